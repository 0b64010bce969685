// Integer and quantized operators: MATRIX_MULTIPLY_INTEGER, QUANTIZED_LINEAR_MATRIX_MULTIPLY,
// MATRIX_MULTIPLY_INTEGER_TO_FLOAT, CONVOLUTION_INTEGER, QUANTIZED_LINEAR_CONVOLUTION,
// QUANTIZED_LINEAR_AVERAGE_POOLING and DYNAMIC_QUANTIZE_LINEAR.
//
// Scales and zero points are per tensor (every size 1) or per axis (the documented axis has the
// data's size there), with the rank of the tensor they go with; kernels broadcast them by strides.
#include <algorithm>
#include <string>

#include "dml/ops/convolution/convolution_shape.h"
#include "dml/schema/families.h"

namespace freedml::dml {

namespace {

using Types = std::initializer_list<DML_TENSOR_DATA_TYPE>;
constexpr Types k8Bit = {DML_TENSOR_DATA_TYPE_INT8, DML_TENSOR_DATA_TYPE_UINT8};
constexpr Types kInt32 = {DML_TENSOR_DATA_TYPE_INT32};
constexpr Types kFloat32 = {DML_TENSOR_DATA_TYPE_FLOAT32};
constexpr Types kFloat = {DML_TENSOR_DATA_TYPE_FLOAT32, DML_TENSOR_DATA_TYPE_FLOAT16};
constexpr Types kWideIntegers = {DML_TENSOR_DATA_TYPE_INT32,  DML_TENSOR_DATA_TYPE_INT16, DML_TENSOR_DATA_TYPE_INT8,
                                 DML_TENSOR_DATA_TYPE_UINT32, DML_TENSOR_DATA_TYPE_UINT16, DML_TENSOR_DATA_TYPE_UINT8};

// The tensor at input index `i` (or output index `i - inputs.size()`) with its field name.
struct Named {
    const TensorDesc* tensor;
    const std::string* name;
};

Named Input(const OperatorArgs& args, size_t i) {
    return {args.inputs[i] ? &*args.inputs[i] : nullptr, &args.inputNames[i]};
}
Named Output(const OperatorArgs& args, size_t i) {
    return {args.outputs[i] ? &*args.outputs[i] : nullptr, &args.outputNames[i]};
}

Status CheckType(const OperatorArgs& args, Named t, Types types) {
    if (!t.tensor) return {};
    INVALID_IF(!DataTypeIn(types, t.tensor->dataType), "%s has data type %s; DML_OPERATOR_%s accepts %s.",
               t.name->c_str(), DataTypeName(t.tensor->dataType), args.schema.name,
               DataTypeListToString(types).c_str());
    return {};
}

Status CheckSameType(Named t, Named reference) {
    if (!t.tensor) return {};
    INVALID_IF(t.tensor->dataType != reference.tensor->dataType, "%s has data type %s, but %s is %s; they must match.",
               t.name->c_str(), DataTypeName(t.tensor->dataType), reference.name->c_str(),
               DataTypeName(reference.tensor->dataType));
    return {};
}

// `t` (if present) has `rank` dimensions, and each size is 1 or allowed[d] (0 allows only 1).
Status CheckQuantizationShape(Named t, uint32_t rank, const uint32_t* allowed, const char* forms) {
    if (!t.tensor) return {};
    bool ok = t.tensor->rank == rank;
    for (uint32_t d = 0; ok && d < rank; ++d) ok = t.tensor->sizes[d] == 1 || t.tensor->sizes[d] == allowed[d];
    INVALID_IF(!ok, "%s has sizes %s; it must have %u dimensions and be %s.", t.name->c_str(),
               SizesToString(*t.tensor).c_str(), rank, forms);
    return {};
}

// ---- Matrix multiplies --------------------------------------------------------------------------

// A {batch.., M, K} x B {batch.., K, N} = Output {batch.., M, N}; 2 to 4 dimensions, batch sizes
// broadcast (each 1 or the output's). Scales and zero points of A per tensor or per row (M), of B
// per tensor or per column (N).
Status ValidateMatMulShapes(const OperatorArgs& args, size_t a, size_t b, std::initializer_list<size_t> aQuant,
                            std::initializer_list<size_t> bQuant) {
    const TensorDesc &ta = *args.inputs[a], &tb = *args.inputs[b], &out = *args.outputs[0];
    const uint32_t rank = out.rank;
    INVALID_IF(rank < 2 || rank > 4 || ta.rank != rank || tb.rank != rank,
               "%s (%u dimensions), %s (%u) and %s (%u) must have the same DimensionCount, 2 to 4.",
               args.inputNames[a].c_str(), ta.rank, args.inputNames[b].c_str(), tb.rank,
               args.outputNames[0].c_str(), rank);
    const uint32_t m = ta.sizes[rank - 2], k = ta.sizes[rank - 1], n = tb.sizes[rank - 1];
    INVALID_IF(tb.sizes[rank - 2] != k || out.sizes[rank - 2] != m || out.sizes[rank - 1] != n,
               "%s %s x %s %s gives {.., %u, %u}, but %s is %s.", args.inputNames[a].c_str(),
               SizesToString(ta).c_str(), args.inputNames[b].c_str(), SizesToString(tb).c_str(), m, n,
               args.outputNames[0].c_str(), SizesToString(out).c_str());
    for (uint32_t d = 0; d + 2 < rank; ++d) {
        INVALID_IF((ta.sizes[d] != 1 && ta.sizes[d] != out.sizes[d]) || (tb.sizes[d] != 1 && tb.sizes[d] != out.sizes[d]),
                   "Batch dimension %u: %s (%u) and %s (%u) must each be 1 or %s's (%u).", d,
                   args.inputNames[a].c_str(), ta.sizes[d], args.inputNames[b].c_str(), tb.sizes[d],
                   args.outputNames[0].c_str(), out.sizes[d]);
    }
    uint32_t rowForm[kMaxTensorRank] = {}, columnForm[kMaxTensorRank] = {};
    rowForm[rank - 2] = m;
    columnForm[rank - 1] = n;
    for (size_t i : aQuant) {
        FREEDML_TRY(CheckQuantizationShape(Input(args, i), rank, rowForm, "{1, .., 1} (per tensor) or {1, .., M, 1} (per row)"));
    }
    for (size_t i : bQuant) {
        FREEDML_TRY(CheckQuantizationShape(Input(args, i), rank, columnForm,
                                           "{1, .., 1} (per tensor) or {1, .., 1, N} (per column)"));
    }
    return {};
}

// A, AZeroPoint?, B, BZeroPoint?, Output.
Status ValidateMatrixMultiplyInteger(const OperatorArgs& args) {
    FREEDML_TRY(CheckType(args, Input(args, 0), k8Bit));
    FREEDML_TRY(CheckType(args, Input(args, 2), k8Bit));
    FREEDML_TRY(CheckSameType(Input(args, 1), Input(args, 0)));
    FREEDML_TRY(CheckSameType(Input(args, 3), Input(args, 2)));
    FREEDML_TRY(CheckType(args, Output(args, 0), kInt32));
    return ValidateMatMulShapes(args, 0, 2, {1}, {3});
}

// A, AScale, AZeroPoint?, B, BScale, BZeroPoint?, OutputScale, OutputZeroPoint?, Output.
Status ValidateQuantizedLinearMatrixMultiply(const OperatorArgs& args) {
    FREEDML_TRY(CheckType(args, Input(args, 0), k8Bit));
    FREEDML_TRY(CheckType(args, Input(args, 3), k8Bit));
    FREEDML_TRY(CheckType(args, Output(args, 0), k8Bit));
    FREEDML_TRY(CheckSameType(Input(args, 2), Input(args, 0)));
    FREEDML_TRY(CheckSameType(Input(args, 5), Input(args, 3)));
    FREEDML_TRY(CheckSameType(Input(args, 7), Output(args, 0)));
    for (size_t i : {1, 4, 6}) FREEDML_TRY(CheckType(args, Input(args, i), kFloat32));
    FREEDML_TRY(ValidateMatMulShapes(args, 0, 3, {1, 2}, {4, 5}));
    const TensorDesc& out = *args.outputs[0];
    for (size_t i : {6, 7}) {
        FREEDML_TRY(CheckQuantizationShape(Input(args, i), out.rank, out.sizes.data(),
                                           "each size 1 or OutputTensor's"));
    }
    return {};
}

// A, AScale, AZeroPoint?, B, BScale, BZeroPoint?, Bias?, Output.
Status ValidateMatrixMultiplyIntegerToFloat(const OperatorArgs& args) {
    FREEDML_TRY(CheckType(args, Input(args, 0), kWideIntegers));
    FREEDML_TRY(CheckType(args, Input(args, 3), kWideIntegers));
    FREEDML_TRY(CheckSameType(Input(args, 2), Input(args, 0)));
    FREEDML_TRY(CheckSameType(Input(args, 5), Input(args, 3)));
    FREEDML_TRY(CheckType(args, Output(args, 0), kFloat));
    for (size_t i : {1, 4, 6}) FREEDML_TRY(CheckSameType(Input(args, i), Output(args, 0)));
    FREEDML_TRY(ValidateMatMulShapes(args, 0, 3, {1, 2}, {4, 5}));
    const TensorDesc& out = *args.outputs[0];
    return CheckQuantizationShape(Input(args, 6), out.rank, out.sizes.data(), "each size 1 or OutputTensor's");
}

// ---- Convolutions -------------------------------------------------------------------------------

// The convolution fields both integer convolutions share (the desc's members from InputTensor on
// are at different offsets, so each passes its own).
struct IntegerConvolution {
    size_t input, inputScale, inputZeroPoint, filter, filterScale, filterZeroPoint, bias, outputScale,
        outputZeroPoint;  // SIZE_MAX: the operator has no such tensor
    uint32_t dimensionCount;
    const uint32_t *strides, *dilations, *startPadding, *endPadding;
    uint32_t groupCount;
};

Status ValidateIntegerConvolution(const OperatorArgs& args, const IntegerConvolution& c) {
    FREEDML_TRY(CheckType(args, Input(args, c.input), k8Bit));
    FREEDML_TRY(CheckType(args, Input(args, c.filter), k8Bit));
    FREEDML_TRY(CheckSameType(Input(args, c.inputZeroPoint), Input(args, c.input)));
    FREEDML_TRY(CheckSameType(Input(args, c.filterZeroPoint), Input(args, c.filter)));
    const ConvolutionShape shape{.input = *args.inputs[c.input],
                                 .filter = *args.inputs[c.filter],
                                 .output = *args.outputs[0],
                                 .dimensionCount = c.dimensionCount,
                                 .strides = c.strides,
                                 .dilations = c.dilations,
                                 .startPadding = c.startPadding,
                                 .endPadding = c.endPadding,
                                 .outputPadding = nullptr,
                                 .groupCount = c.groupCount,
                                 .backward = false};
    FREEDML_TRY(ValidateConvolutionShape(shape));
    const uint32_t rank = c.dimensionCount + 2;
    const uint32_t perTensor[kMaxTensorRank] = {};
    uint32_t perChannel[kMaxTensorRank] = {};
    perChannel[1] = args.outputs[0]->sizes[1];
    for (size_t i : {c.inputScale, c.inputZeroPoint, c.outputScale, c.outputZeroPoint}) {
        if (i == SIZE_MAX) continue;
        FREEDML_TRY(CheckQuantizationShape(Input(args, i), rank, perTensor, "{1, 1, ..} (per tensor)"));
    }
    for (size_t i : {c.filterScale, c.filterZeroPoint}) {
        if (i == SIZE_MAX) continue;
        FREEDML_TRY(CheckQuantizationShape(Input(args, i), rank, perChannel,
                                           "{1, 1, ..} (per tensor) or {1, OutputChannels, 1, ..} (per channel)"));
    }
    if (c.bias != SIZE_MAX && args.inputs[c.bias]) {
        FREEDML_TRY(CheckType(args, Input(args, c.bias), kInt32));
        FREEDML_TRY(ValidateConvolutionBias(*args.inputs[c.bias], args.inputNames[c.bias].c_str(), shape));
    }
    return {};
}

// Input, InputZeroPoint?, Filter, FilterZeroPoint?, Output.
Status ValidateConvolutionInteger(const OperatorArgs& args) {
    const auto& desc = args.As<DML_CONVOLUTION_INTEGER_OPERATOR_DESC>();
    FREEDML_TRY(CheckType(args, Output(args, 0), kInt32));
    return ValidateIntegerConvolution(
        args, {0, SIZE_MAX, 1, 2, SIZE_MAX, 3, SIZE_MAX, SIZE_MAX, SIZE_MAX, desc.DimensionCount, desc.Strides,
               desc.Dilations, desc.StartPadding, desc.EndPadding, desc.GroupCount});
}

// Input, InputScale, InputZeroPoint?, Filter, FilterScale, FilterZeroPoint?, Bias?, OutputScale,
// OutputZeroPoint?, Output.
Status ValidateQuantizedLinearConvolution(const OperatorArgs& args) {
    const auto& desc = args.As<DML_QUANTIZED_LINEAR_CONVOLUTION_OPERATOR_DESC>();
    FREEDML_TRY(CheckType(args, Output(args, 0), k8Bit));
    FREEDML_TRY(CheckSameType(Input(args, 8), Output(args, 0)));
    for (size_t i : {1, 4, 7}) FREEDML_TRY(CheckType(args, Input(args, i), kFloat32));
    return ValidateIntegerConvolution(args, {0, 1, 2, 3, 4, 5, 6, 7, 8, desc.DimensionCount, desc.Strides,
                                             desc.Dilations, desc.StartPadding, desc.EndPadding, desc.GroupCount});
}

// ---- Pooling ------------------------------------------------------------------------------------

// Input, InputScale, InputZeroPoint?, OutputScale, OutputZeroPoint?, Output; ranks DimensionCount
// + 2; each output spatial size from the padded input, the dilated window and the stride.
Status ValidateQuantizedLinearAveragePooling(const OperatorArgs& args) {
    const auto& desc = args.As<DML_QUANTIZED_LINEAR_AVERAGE_POOLING_OPERATOR_DESC>();
    FREEDML_TRY(CheckType(args, Input(args, 0), k8Bit));
    FREEDML_TRY(CheckSameType(Output(args, 0), Input(args, 0)));
    FREEDML_TRY(CheckSameType(Input(args, 2), Input(args, 0)));
    FREEDML_TRY(CheckSameType(Input(args, 4), Output(args, 0)));
    for (size_t i : {1, 3}) FREEDML_TRY(CheckType(args, Input(args, i), kFloat32));
    const TensorDesc &in = *args.inputs[0], &out = *args.outputs[0];
    const uint32_t spatial = desc.DimensionCount, rank = spatial + 2;
    INVALID_IF(spatial < 1 || spatial > 3, "DimensionCount (%u) must be 1 to 3.", spatial);
    INVALID_IF(in.rank != rank || out.rank != rank,
               "InputTensor (%u dimensions) and OutputTensor (%u) must have DimensionCount + 2 = %u.", in.rank,
               out.rank, rank);
    INVALID_IF(!desc.Strides || !desc.WindowSize || !desc.StartPadding || !desc.EndPadding || !desc.Dilations,
               "Strides, WindowSize, StartPadding, EndPadding and Dilations must each point to DimensionCount (%u) "
               "values.",
               spatial);
    INVALID_IF(in.sizes[0] != out.sizes[0] || in.sizes[1] != out.sizes[1],
               "InputTensor %s and OutputTensor %s must have the same batch and channel sizes.",
               SizesToString(in).c_str(), SizesToString(out).c_str());
    for (uint32_t i = 0; i < spatial; ++i) {
        const uint32_t stride = desc.Strides[i], window = desc.WindowSize[i], dilation = desc.Dilations[i];
        INVALID_IF(stride == 0 || window == 0 || dilation == 0,
                   "Strides[%u] (%u), WindowSize[%u] (%u) and Dilations[%u] (%u) must be at least 1.", i, stride, i,
                   window, i, dilation);
        const int64_t padded = int64_t(in.sizes[2 + i]) + desc.StartPadding[i] + desc.EndPadding[i];
        const int64_t span = int64_t(dilation) * (window - 1) + 1;
        INVALID_IF(padded < span, "Spatial dimension %u: the dilated window (%lld) is larger than the padded input (%lld).",
                   i, static_cast<long long>(span), static_cast<long long>(padded));
        const int64_t expected = (padded - span) / stride + 1;
        INVALID_IF(expected != out.sizes[2 + i], "OutputTensor's spatial dimension %u is %u; the pooling produces %lld.",
                   i, out.sizes[2 + i], static_cast<long long>(expected));
    }
    uint32_t perChannel[kMaxTensorRank] = {};
    perChannel[1] = in.sizes[1];
    for (size_t i : {1, 2, 3, 4}) {
        FREEDML_TRY(CheckQuantizationShape(Input(args, i), rank, perChannel,
                                           "{1, 1, ..} (per tensor) or {1, Channels, 1, ..} (per channel)"));
    }
    return {};
}

// ---- Dynamic quantization -----------------------------------------------------------------------

// Input; outputs Output, OutputScale, OutputZeroPoint (one element each), all of one rank.
Status ValidateDynamicQuantizeLinear(const OperatorArgs& args) {
    FREEDML_TRY(CheckType(args, Input(args, 0), kFloat));
    FREEDML_TRY(CheckType(args, Output(args, 0), k8Bit));
    FREEDML_TRY(CheckType(args, Output(args, 1), kFloat32));
    FREEDML_TRY(CheckSameType(Output(args, 2), Output(args, 0)));
    const TensorDesc &in = *args.inputs[0], &out = *args.outputs[0];
    INVALID_IF(in.rank != out.rank || !std::equal(in.sizes.begin(), in.sizes.begin() + in.rank, out.sizes.begin()),
               "InputTensor has sizes %s, but OutputTensor has %s; they must match.", SizesToString(in).c_str(),
               SizesToString(out).c_str());
    for (size_t i : {1, 2}) {
        const TensorDesc& t = *args.outputs[i];
        INVALID_IF(t.rank != in.rank || t.ElementCount() != 1,
                   "%s has sizes %s; it must hold one element and have InputTensor's DimensionCount (%u).",
                   args.outputNames[i].c_str(), SizesToString(t).c_str(), in.rank);
    }
    return {};
}

const OperatorSchema kMatrixMultiplyInteger{
    .type = DML_OPERATOR_MATRIX_MULTIPLY_INTEGER,
    .name = "MATRIX_MULTIPLY_INTEGER",
    .featureLevel = DML_FEATURE_LEVEL_2_1,
    .descSize = sizeof(DML_MATRIX_MULTIPLY_INTEGER_OPERATOR_DESC),
    .fields = {DML_FIELD(DML_MATRIX_MULTIPLY_INTEGER_OPERATOR_DESC, ATensor, InputTensor),
               DML_FIELD(DML_MATRIX_MULTIPLY_INTEGER_OPERATOR_DESC, AZeroPointTensor, InputTensor, .optional = true),
               DML_FIELD(DML_MATRIX_MULTIPLY_INTEGER_OPERATOR_DESC, BTensor, InputTensor),
               DML_FIELD(DML_MATRIX_MULTIPLY_INTEGER_OPERATOR_DESC, BZeroPointTensor, InputTensor, .optional = true),
               DML_FIELD(DML_MATRIX_MULTIPLY_INTEGER_OPERATOR_DESC, OutputTensor, OutputTensor)},
    .validate = ValidateMatrixMultiplyInteger,
};

#define QLMM DML_QUANTIZED_LINEAR_MATRIX_MULTIPLY_OPERATOR_DESC
const OperatorSchema kQuantizedLinearMatrixMultiply{
    .type = DML_OPERATOR_QUANTIZED_LINEAR_MATRIX_MULTIPLY,
    .name = "QUANTIZED_LINEAR_MATRIX_MULTIPLY",
    .featureLevel = DML_FEATURE_LEVEL_2_1,
    .descSize = sizeof(QLMM),
    .fields = {DML_FIELD(QLMM, ATensor, InputTensor), DML_FIELD(QLMM, AScaleTensor, InputTensor),
               DML_FIELD(QLMM, AZeroPointTensor, InputTensor, .optional = true), DML_FIELD(QLMM, BTensor, InputTensor),
               DML_FIELD(QLMM, BScaleTensor, InputTensor),
               DML_FIELD(QLMM, BZeroPointTensor, InputTensor, .optional = true),
               DML_FIELD(QLMM, OutputScaleTensor, InputTensor),
               DML_FIELD(QLMM, OutputZeroPointTensor, InputTensor, .optional = true),
               DML_FIELD(QLMM, OutputTensor, OutputTensor)},
    .validate = ValidateQuantizedLinearMatrixMultiply,
};
#undef QLMM

#define MMIF DML_MATRIX_MULTIPLY_INTEGER_TO_FLOAT_OPERATOR_DESC
const OperatorSchema kMatrixMultiplyIntegerToFloat{
    .type = DML_OPERATOR_MATRIX_MULTIPLY_INTEGER_TO_FLOAT,
    .name = "MATRIX_MULTIPLY_INTEGER_TO_FLOAT",
    .featureLevel = DML_FEATURE_LEVEL_6_2,
    .descSize = sizeof(MMIF),
    .fields = {DML_FIELD(MMIF, ATensor, InputTensor), DML_FIELD(MMIF, AScaleTensor, InputTensor),
               DML_FIELD(MMIF, AZeroPointTensor, InputTensor, .optional = true), DML_FIELD(MMIF, BTensor, InputTensor),
               DML_FIELD(MMIF, BScaleTensor, InputTensor),
               DML_FIELD(MMIF, BZeroPointTensor, InputTensor, .optional = true),
               DML_FIELD(MMIF, BiasTensor, InputTensor, .optional = true), DML_FIELD(MMIF, OutputTensor, OutputTensor)},
    .validate = ValidateMatrixMultiplyIntegerToFloat,
};
#undef MMIF

#define CI DML_CONVOLUTION_INTEGER_OPERATOR_DESC
const OperatorSchema kConvolutionInteger{
    .type = DML_OPERATOR_CONVOLUTION_INTEGER,
    .name = "CONVOLUTION_INTEGER",
    .featureLevel = DML_FEATURE_LEVEL_2_1,
    .descSize = sizeof(CI),
    .fields = {DML_FIELD(CI, InputTensor, InputTensor),
               DML_FIELD(CI, InputZeroPointTensor, InputTensor, .optional = true),
               DML_FIELD(CI, FilterTensor, InputTensor),
               DML_FIELD(CI, FilterZeroPointTensor, InputTensor, .optional = true),
               DML_FIELD(CI, OutputTensor, OutputTensor), DML_FIELD(CI, DimensionCount, UInt),
               DML_FIELD(CI, Strides, UIntArray, .countField = "DimensionCount"),
               DML_FIELD(CI, Dilations, UIntArray, .countField = "DimensionCount"),
               DML_FIELD(CI, StartPadding, UIntArray, .countField = "DimensionCount"),
               DML_FIELD(CI, EndPadding, UIntArray, .countField = "DimensionCount"), DML_FIELD(CI, GroupCount, UInt)},
    .validate = ValidateConvolutionInteger,
};
#undef CI

#define QLC DML_QUANTIZED_LINEAR_CONVOLUTION_OPERATOR_DESC
const OperatorSchema kQuantizedLinearConvolution{
    .type = DML_OPERATOR_QUANTIZED_LINEAR_CONVOLUTION,
    .name = "QUANTIZED_LINEAR_CONVOLUTION",
    .featureLevel = DML_FEATURE_LEVEL_2_1,
    .descSize = sizeof(QLC),
    .fields = {DML_FIELD(QLC, InputTensor, InputTensor), DML_FIELD(QLC, InputScaleTensor, InputTensor),
               DML_FIELD(QLC, InputZeroPointTensor, InputTensor, .optional = true),
               DML_FIELD(QLC, FilterTensor, InputTensor), DML_FIELD(QLC, FilterScaleTensor, InputTensor),
               DML_FIELD(QLC, FilterZeroPointTensor, InputTensor, .optional = true),
               DML_FIELD(QLC, BiasTensor, InputTensor, .optional = true),
               DML_FIELD(QLC, OutputScaleTensor, InputTensor),
               DML_FIELD(QLC, OutputZeroPointTensor, InputTensor, .optional = true),
               DML_FIELD(QLC, OutputTensor, OutputTensor), DML_FIELD(QLC, DimensionCount, UInt),
               DML_FIELD(QLC, Strides, UIntArray, .countField = "DimensionCount"),
               DML_FIELD(QLC, Dilations, UIntArray, .countField = "DimensionCount"),
               DML_FIELD(QLC, StartPadding, UIntArray, .countField = "DimensionCount"),
               DML_FIELD(QLC, EndPadding, UIntArray, .countField = "DimensionCount"),
               DML_FIELD(QLC, GroupCount, UInt)},
    .validate = ValidateQuantizedLinearConvolution,
};
#undef QLC

#define QLAP DML_QUANTIZED_LINEAR_AVERAGE_POOLING_OPERATOR_DESC
const OperatorSchema kQuantizedLinearAveragePooling{
    .type = DML_OPERATOR_QUANTIZED_LINEAR_AVERAGE_POOLING,
    .name = "QUANTIZED_LINEAR_AVERAGE_POOLING",
    .featureLevel = DML_FEATURE_LEVEL_6_2,
    .descSize = sizeof(QLAP),
    .fields = {DML_FIELD(QLAP, InputTensor, InputTensor), DML_FIELD(QLAP, InputScaleTensor, InputTensor),
               DML_FIELD(QLAP, InputZeroPointTensor, InputTensor, .optional = true),
               DML_FIELD(QLAP, OutputScaleTensor, InputTensor),
               DML_FIELD(QLAP, OutputZeroPointTensor, InputTensor, .optional = true),
               DML_FIELD(QLAP, OutputTensor, OutputTensor), DML_FIELD(QLAP, DimensionCount, UInt),
               DML_FIELD(QLAP, Strides, UIntArray, .countField = "DimensionCount"),
               DML_FIELD(QLAP, WindowSize, UIntArray, .countField = "DimensionCount"),
               DML_FIELD(QLAP, StartPadding, UIntArray, .countField = "DimensionCount"),
               DML_FIELD(QLAP, EndPadding, UIntArray, .countField = "DimensionCount"),
               DML_FIELD(QLAP, Dilations, UIntArray, .countField = "DimensionCount"),
               DML_FIELD(QLAP, IncludePadding, Bool)},
    .validate = ValidateQuantizedLinearAveragePooling,
};
#undef QLAP

const OperatorSchema kDynamicQuantizeLinear{
    .type = DML_OPERATOR_DYNAMIC_QUANTIZE_LINEAR,
    .name = "DYNAMIC_QUANTIZE_LINEAR",
    .featureLevel = DML_FEATURE_LEVEL_4_0,
    .descSize = sizeof(DML_DYNAMIC_QUANTIZE_LINEAR_OPERATOR_DESC),
    .fields = {DML_FIELD(DML_DYNAMIC_QUANTIZE_LINEAR_OPERATOR_DESC, InputTensor, InputTensor),
               DML_FIELD(DML_DYNAMIC_QUANTIZE_LINEAR_OPERATOR_DESC, OutputTensor, OutputTensor),
               DML_FIELD(DML_DYNAMIC_QUANTIZE_LINEAR_OPERATOR_DESC, OutputScaleTensor, OutputTensor),
               DML_FIELD(DML_DYNAMIC_QUANTIZE_LINEAR_OPERATOR_DESC, OutputZeroPointTensor, OutputTensor)},
    .validate = ValidateDynamicQuantizeLinear,
};

const OperatorSchema* const kSchemas[] = {
    &kMatrixMultiplyInteger,         &kQuantizedLinearMatrixMultiply, &kMatrixMultiplyIntegerToFloat,
    &kConvolutionInteger,            &kQuantizedLinearConvolution,    &kQuantizedLinearAveragePooling,
    &kDynamicQuantizeLinear,
};

}  // namespace

std::span<const OperatorSchema* const> QuantizedSchemas() { return kSchemas; }

}  // namespace freedml::dml
