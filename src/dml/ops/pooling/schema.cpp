// Pooling operators: AVERAGE_POOLING, LP_POOLING and MAX_POOLING (feature level 1.0), MAX_POOLING1
// (2.0, an optional output of the maxima's indices), MAX_POOLING2 (2.1, Dilations), MAX_UNPOOLING
// (3.0), AVERAGE_POOLING1 and LP_POOLING1 (6.2, Dilations), and the gradients AVERAGE_POOLING_GRAD
// and MAX_POOLING_GRAD (3.0): the gradient of each forward output goes back to the inputs of its
// window, divided by the window's divisor (AVERAGE) or all to its first maximum (MAX).
//
// The pooling descs share their window fields. DimensionCount is the number of spatial dimensions,
// 2 for a 4-D InputTensor {N, C, H, W} and 3 for a 5-D one {N, C, D, H, W} (the pages); a 1-D
// window is a 2-D one of height 1. OutputTensor keeps N and C and has, per spatial dimension,
//     (In + StartPadding + EndPadding - ((WindowSize - 1) * Dilation + 1)) / Stride + 1
// elements, rounded down: DirectML has no ceil mode, so the output's sizes must be exactly these.
// The pages print the formula without Dilations; with them the window spans (WindowSize - 1) *
// Dilation + 1 inputs, as ONNX's pooling counts it. The dilated window must fit the padded input.
//
// MAX_POOLING1/2's OutputIndicesTensor (UINT32 or UINT64, OutputTensor's sizes) holds, for each
// maximum, its index in InputTensor read as a packed row-major array; of equal maxima the first in
// window order. MAX_UNPOOLING writes each InputTensor element to the OutputTensor element its index
// names (OutputTensor read as a packed row-major array) and zero everywhere else.
#include "dml/ops/pooling/pool_desc.h"
#include "dml/schema/families.h"

namespace freedml::dml {

namespace {

using Types = std::initializer_list<DML_TENSOR_DATA_TYPE>;

constexpr Types kFloatTypes = {DML_TENSOR_DATA_TYPE_FLOAT32, DML_TENSOR_DATA_TYPE_FLOAT16};
constexpr Types kMaxTypes = {DML_TENSOR_DATA_TYPE_FLOAT32, DML_TENSOR_DATA_TYPE_FLOAT16, DML_TENSOR_DATA_TYPE_INT64,
                             DML_TENSOR_DATA_TYPE_INT32,   DML_TENSOR_DATA_TYPE_INT16,   DML_TENSOR_DATA_TYPE_INT8,
                             DML_TENSOR_DATA_TYPE_UINT64,  DML_TENSOR_DATA_TYPE_UINT32,  DML_TENSOR_DATA_TYPE_UINT16,
                             DML_TENSOR_DATA_TYPE_UINT8};
constexpr Types kIndexTypes = {DML_TENSOR_DATA_TYPE_UINT32, DML_TENSOR_DATA_TYPE_UINT64};

// The window fields against the forward input `in` and the forward output `out` (named as the
// desc names them): ranks, DimensionCount, the arrays, N and C kept, the output-size rule.
Status ValidateWindow(const OperatorArgs& args, const PoolFields& f, const TensorDesc& input, const char* inName,
                      const TensorDesc& output, const char* outName) {
    const char* name = args.schema.name;
    INVALID_IF(input.rank != 4 && input.rank != 5,
               "%s has %u dimensions; DML_OPERATOR_%s takes a 4-D {N, C, H, W} or 5-D {N, C, D, H, W} tensor.", inName,
               input.rank, name);
    const uint32_t spatial = f.dimensionCount;
    INVALID_IF(spatial != input.rank - 2,
               "DimensionCount (%u) must be %s's DimensionCount minus 2 (%u): 2 for a 4-D tensor, 3 for a 5-D one.",
               spatial, inName, input.rank - 2);
    INVALID_IF(output.rank != input.rank, "%s has %u dimensions, but %s has %u; they must match.", outName,
               output.rank, inName, input.rank);
    INVALID_IF(!f.strides || !f.windowSize || !f.startPadding || !f.endPadding || (f.hasDilations && !f.dilations),
               "Strides, WindowSize, StartPadding, EndPadding%s must each point to DimensionCount (%u) values.",
               f.hasDilations ? " and Dilations" : "", spatial);
    INVALID_IF(output.sizes[0] != input.sizes[0] || output.sizes[1] != input.sizes[1],
               "%s %s must keep %s's batch and channels (%u, %u).", outName, SizesToString(output).c_str(), inName,
               input.sizes[0], input.sizes[1]);
    for (uint32_t i = 0; i < spatial; ++i) {
        const uint32_t stride = f.strides[i], window = f.windowSize[i];
        const uint32_t dilation = f.hasDilations ? f.dilations[i] : 1;
        INVALID_IF(stride == 0, "Strides[%u] is 0; it must be at least 1.", i);
        INVALID_IF(window == 0, "WindowSize[%u] is 0; it must be at least 1.", i);
        INVALID_IF(dilation == 0, "Dilations[%u] is 0; it must be at least 1.", i);
        const int64_t padded = int64_t(input.sizes[2 + i]) + f.startPadding[i] + f.endPadding[i];
        const int64_t span = int64_t(dilation) * (window - 1) + 1;
        INVALID_IF(span > padded,
                   "Spatial dimension %u: the window spans %lld inputs (WindowSize[%u] %u, Dilations[%u] %u), more "
                   "than the padded input's %lld (size %u, StartPadding %u, EndPadding %u).",
                   i, static_cast<long long>(span), i, window, i, dilation, static_cast<long long>(padded),
                   input.sizes[2 + i], f.startPadding[i], f.endPadding[i]);
        const int64_t expected = (padded - span) / stride + 1;
        INVALID_IF(output.sizes[2 + i] != expected,
                   "%s's spatial dimension %u (dimension %u) is %u; the window gives (%lld - %lld) / %u + 1 = %lld "
                   "(rounded down; DirectML has no ceil mode).",
                   outName, i, i + 2, output.sizes[2 + i], static_cast<long long>(padded),
                   static_cast<long long>(span), stride, static_cast<long long>(expected));
    }
    return {};
}

Status ValidatePooling(const OperatorArgs& args) {
    const PoolFields f = ReadPoolFields(args);
    const TensorDesc& input = *args.inputs[0];
    const TensorDesc& output = *args.outputs[0];
    const char* name = args.schema.name;

    const Types types = f.kind == PoolKind::Max ? kMaxTypes : kFloatTypes;
    INVALID_IF(!DataTypeIn(types, input.dataType), "InputTensor has data type %s; DML_OPERATOR_%s accepts %s.",
               DataTypeName(input.dataType), name, DataTypeListToString(types).c_str());
    INVALID_IF(output.dataType != input.dataType,
               "OutputTensor has data type %s, but InputTensor is %s; they must match.", DataTypeName(output.dataType),
               DataTypeName(input.dataType));
    FREEDML_TRY(ValidateWindow(args, f, input, "InputTensor", output, "OutputTensor"));
    if (f.kind == PoolKind::Lp) INVALID_IF(f.p == 0, "P is 0; the Lp norm needs P of at least 1.");
    if (args.outputs.size() > 1 && args.outputs[1]) {
        const TensorDesc& indices = *args.outputs[1];
        INVALID_IF(!DataTypeIn(kIndexTypes, indices.dataType),
                   "OutputIndicesTensor has data type %s; DML_OPERATOR_%s writes indices as UINT32 or UINT64.",
                   DataTypeName(indices.dataType), name);
        bool same = indices.rank == output.rank;
        for (uint32_t d = 0; same && d < output.rank; ++d) same = indices.sizes[d] == output.sizes[d];
        INVALID_IF(!same, "OutputIndicesTensor %s must have OutputTensor's sizes %s.", SizesToString(indices).c_str(),
                   SizesToString(output).c_str());
    }
    return {};
}

// AVERAGE_POOLING_GRAD and MAX_POOLING_GRAD: OutputGradientTensor has the forward input's sizes,
// InputGradientTensor the forward output's; MAX_POOLING_GRAD's InputTensor (the forward input) has
// OutputGradientTensor's sizes. Every tensor FLOAT32 or FLOAT16, one type.
Status ValidatePoolingGrad(const OperatorArgs& args) {
    FREEDML_TRY(ValidateDataTypeIn(args, kFloatTypes));
    FREEDML_TRY(ValidateSameDataType(args));
    const PoolFields f = ReadPoolFields(args);
    const bool max = f.kind == PoolKind::Max;
    const TensorDesc& inputGradient = *args.inputs[max ? 1 : 0];
    const TensorDesc& outputGradient = *args.outputs[0];
    FREEDML_TRY(ValidateWindow(args, f, outputGradient, "OutputGradientTensor", inputGradient, "InputGradientTensor"));
    if (max) {
        const TensorDesc& input = *args.inputs[0];
        bool same = input.rank == outputGradient.rank;
        for (uint32_t d = 0; same && d < input.rank; ++d) same = input.sizes[d] == outputGradient.sizes[d];
        INVALID_IF(!same, "InputTensor %s must have OutputGradientTensor's sizes %s.", SizesToString(input).c_str(),
                   SizesToString(outputGradient).c_str());
    }
    return {};
}

Status ValidateMaxUnpooling(const OperatorArgs& args) {
    const TensorDesc& input = *args.inputs[0];
    const TensorDesc& indices = *args.inputs[1];
    const TensorDesc& output = *args.outputs[0];
    INVALID_IF(!DataTypeIn(kMaxTypes, input.dataType),
               "InputTensor has data type %s; DML_OPERATOR_MAX_UNPOOLING accepts %s.", DataTypeName(input.dataType),
               DataTypeListToString(kMaxTypes).c_str());
    INVALID_IF(output.dataType != input.dataType,
               "OutputTensor has data type %s, but InputTensor is %s; they must match.", DataTypeName(output.dataType),
               DataTypeName(input.dataType));
    INVALID_IF(!DataTypeIn(kIndexTypes, indices.dataType),
               "IndicesTensor has data type %s; DML_OPERATOR_MAX_UNPOOLING reads indices as UINT32 or UINT64.",
               DataTypeName(indices.dataType));
    INVALID_IF(input.rank != 4 || indices.rank != 4 || output.rank != 4,
               "InputTensor (%u dimensions), IndicesTensor (%u) and OutputTensor (%u) must each have 4.", input.rank,
               indices.rank, output.rank);
    bool same = true;
    for (uint32_t d = 0; d < 4; ++d) same = same && indices.sizes[d] == input.sizes[d];
    INVALID_IF(!same, "IndicesTensor %s must have InputTensor's sizes %s.", SizesToString(indices).c_str(),
               SizesToString(input).c_str());
    return {};
}

#define WINDOW_FIELDS(DESC)                                                                    \
    DML_FIELD(DESC, DimensionCount, UInt),                                                     \
        DML_FIELD(DESC, Strides, UIntArray, .countField = "DimensionCount"),                   \
        DML_FIELD(DESC, WindowSize, UIntArray, .countField = "DimensionCount"),                \
        DML_FIELD(DESC, StartPadding, UIntArray, .countField = "DimensionCount"),              \
        DML_FIELD(DESC, EndPadding, UIntArray, .countField = "DimensionCount")
#define DILATIONS(DESC) DML_FIELD(DESC, Dilations, UIntArray, .countField = "DimensionCount")

const OperatorSchema kAveragePooling{
    .type = DML_OPERATOR_AVERAGE_POOLING,
    .name = "AVERAGE_POOLING",
    .featureLevel = DML_FEATURE_LEVEL_1_0,
    .descSize = sizeof(DML_AVERAGE_POOLING_OPERATOR_DESC),
    .fields = {DML_FIELD(DML_AVERAGE_POOLING_OPERATOR_DESC, InputTensor, InputTensor),
               DML_FIELD(DML_AVERAGE_POOLING_OPERATOR_DESC, OutputTensor, OutputTensor),
               WINDOW_FIELDS(DML_AVERAGE_POOLING_OPERATOR_DESC),
               DML_FIELD(DML_AVERAGE_POOLING_OPERATOR_DESC, IncludePadding, Bool)},
    .validate = ValidatePooling,
};

const OperatorSchema kAveragePooling1{
    .type = DML_OPERATOR_AVERAGE_POOLING1,
    .name = "AVERAGE_POOLING1",
    .featureLevel = DML_FEATURE_LEVEL_6_2,
    .descSize = sizeof(DML_AVERAGE_POOLING1_OPERATOR_DESC),
    .fields = {DML_FIELD(DML_AVERAGE_POOLING1_OPERATOR_DESC, InputTensor, InputTensor),
               DML_FIELD(DML_AVERAGE_POOLING1_OPERATOR_DESC, OutputTensor, OutputTensor),
               WINDOW_FIELDS(DML_AVERAGE_POOLING1_OPERATOR_DESC), DILATIONS(DML_AVERAGE_POOLING1_OPERATOR_DESC),
               DML_FIELD(DML_AVERAGE_POOLING1_OPERATOR_DESC, IncludePadding, Bool)},
    .validate = ValidatePooling,
};

const OperatorSchema kLpPooling{
    .type = DML_OPERATOR_LP_POOLING,
    .name = "LP_POOLING",
    .featureLevel = DML_FEATURE_LEVEL_1_0,
    .descSize = sizeof(DML_LP_POOLING_OPERATOR_DESC),
    .fields = {DML_FIELD(DML_LP_POOLING_OPERATOR_DESC, InputTensor, InputTensor),
               DML_FIELD(DML_LP_POOLING_OPERATOR_DESC, OutputTensor, OutputTensor),
               WINDOW_FIELDS(DML_LP_POOLING_OPERATOR_DESC), DML_FIELD(DML_LP_POOLING_OPERATOR_DESC, P, UInt)},
    .validate = ValidatePooling,
};

const OperatorSchema kLpPooling1{
    .type = DML_OPERATOR_LP_POOLING1,
    .name = "LP_POOLING1",
    .featureLevel = DML_FEATURE_LEVEL_6_2,
    .descSize = sizeof(DML_LP_POOLING1_OPERATOR_DESC),
    .fields = {DML_FIELD(DML_LP_POOLING1_OPERATOR_DESC, InputTensor, InputTensor),
               DML_FIELD(DML_LP_POOLING1_OPERATOR_DESC, OutputTensor, OutputTensor),
               WINDOW_FIELDS(DML_LP_POOLING1_OPERATOR_DESC), DILATIONS(DML_LP_POOLING1_OPERATOR_DESC),
               DML_FIELD(DML_LP_POOLING1_OPERATOR_DESC, P, UInt)},
    .validate = ValidatePooling,
};

const OperatorSchema kMaxPooling{
    .type = DML_OPERATOR_MAX_POOLING,
    .name = "MAX_POOLING",
    .featureLevel = DML_FEATURE_LEVEL_1_0,
    .descSize = sizeof(DML_MAX_POOLING_OPERATOR_DESC),
    .fields = {DML_FIELD(DML_MAX_POOLING_OPERATOR_DESC, InputTensor, InputTensor),
               DML_FIELD(DML_MAX_POOLING_OPERATOR_DESC, OutputTensor, OutputTensor),
               WINDOW_FIELDS(DML_MAX_POOLING_OPERATOR_DESC)},
    .validate = ValidatePooling,
};

const OperatorSchema kMaxPooling1{
    .type = DML_OPERATOR_MAX_POOLING1,
    .name = "MAX_POOLING1",
    .featureLevel = DML_FEATURE_LEVEL_2_0,
    .descSize = sizeof(DML_MAX_POOLING1_OPERATOR_DESC),
    .fields = {DML_FIELD(DML_MAX_POOLING1_OPERATOR_DESC, InputTensor, InputTensor),
               DML_FIELD(DML_MAX_POOLING1_OPERATOR_DESC, OutputTensor, OutputTensor),
               DML_FIELD(DML_MAX_POOLING1_OPERATOR_DESC, OutputIndicesTensor, OutputTensor, .optional = true),
               WINDOW_FIELDS(DML_MAX_POOLING1_OPERATOR_DESC)},
    .validate = ValidatePooling,
};

const OperatorSchema kMaxPooling2{
    .type = DML_OPERATOR_MAX_POOLING2,
    .name = "MAX_POOLING2",
    .featureLevel = DML_FEATURE_LEVEL_2_1,
    .descSize = sizeof(DML_MAX_POOLING2_OPERATOR_DESC),
    .fields = {DML_FIELD(DML_MAX_POOLING2_OPERATOR_DESC, InputTensor, InputTensor),
               DML_FIELD(DML_MAX_POOLING2_OPERATOR_DESC, OutputTensor, OutputTensor),
               DML_FIELD(DML_MAX_POOLING2_OPERATOR_DESC, OutputIndicesTensor, OutputTensor, .optional = true),
               WINDOW_FIELDS(DML_MAX_POOLING2_OPERATOR_DESC), DILATIONS(DML_MAX_POOLING2_OPERATOR_DESC)},
    .validate = ValidatePooling,
};

const OperatorSchema kMaxUnpooling{
    .type = DML_OPERATOR_MAX_UNPOOLING,
    .name = "MAX_UNPOOLING",
    .featureLevel = DML_FEATURE_LEVEL_3_0,
    .descSize = sizeof(DML_MAX_UNPOOLING_OPERATOR_DESC),
    .fields = {DML_FIELD(DML_MAX_UNPOOLING_OPERATOR_DESC, InputTensor, InputTensor),
               DML_FIELD(DML_MAX_UNPOOLING_OPERATOR_DESC, IndicesTensor, InputTensor),
               DML_FIELD(DML_MAX_UNPOOLING_OPERATOR_DESC, OutputTensor, OutputTensor)},
    .validate = ValidateMaxUnpooling,
};

const OperatorSchema kAveragePoolingGrad{
    .type = DML_OPERATOR_AVERAGE_POOLING_GRAD,
    .name = "AVERAGE_POOLING_GRAD",
    .featureLevel = DML_FEATURE_LEVEL_3_0,
    .descSize = sizeof(DML_AVERAGE_POOLING_GRAD_OPERATOR_DESC),
    .fields = {DML_FIELD(DML_AVERAGE_POOLING_GRAD_OPERATOR_DESC, InputGradientTensor, InputTensor),
               DML_FIELD(DML_AVERAGE_POOLING_GRAD_OPERATOR_DESC, OutputGradientTensor, OutputTensor),
               WINDOW_FIELDS(DML_AVERAGE_POOLING_GRAD_OPERATOR_DESC),
               DML_FIELD(DML_AVERAGE_POOLING_GRAD_OPERATOR_DESC, IncludePadding, Bool)},
    .validate = ValidatePoolingGrad,
};

const OperatorSchema kMaxPoolingGrad{
    .type = DML_OPERATOR_MAX_POOLING_GRAD,
    .name = "MAX_POOLING_GRAD",
    .featureLevel = DML_FEATURE_LEVEL_3_0,
    .descSize = sizeof(DML_MAX_POOLING_GRAD_OPERATOR_DESC),
    .fields = {DML_FIELD(DML_MAX_POOLING_GRAD_OPERATOR_DESC, InputTensor, InputTensor),
               DML_FIELD(DML_MAX_POOLING_GRAD_OPERATOR_DESC, InputGradientTensor, InputTensor),
               DML_FIELD(DML_MAX_POOLING_GRAD_OPERATOR_DESC, OutputGradientTensor, OutputTensor),
               WINDOW_FIELDS(DML_MAX_POOLING_GRAD_OPERATOR_DESC), DILATIONS(DML_MAX_POOLING_GRAD_OPERATOR_DESC)},
    .validate = ValidatePoolingGrad,
};

#undef WINDOW_FIELDS
#undef DILATIONS

const OperatorSchema* const kSchemas[] = {&kAveragePooling, &kAveragePooling1, &kLpPooling,   &kLpPooling1,
                                          &kMaxPooling,     &kMaxPooling1,     &kMaxPooling2, &kMaxUnpooling,
                                          &kAveragePoolingGrad, &kMaxPoolingGrad};

}  // namespace

std::span<const OperatorSchema* const> PoolingSchemas() { return kSchemas; }

}  // namespace freedml::dml
