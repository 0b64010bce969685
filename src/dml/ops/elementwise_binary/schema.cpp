// Schemas of the binary element-wise family: arithmetic (ADD, ADD1, SUBTRACT, MULTIPLY, DIVIDE, MIN, MAX, MEAN,
// POW, ATAN_YX, DIFFERENCE_SQUARE, MODULUS_*), bitwise, logical, comparison, and the quantization
// operators (QUANTIZE_LINEAR, DEQUANTIZE_LINEAR, QUANTIZED_LINEAR_ADD, QUANTIZE, DEQUANTIZE), and
// ELEMENT_WISE_IF, which selects between two inputs of these types.
// Data types are those of each reference page's table for the highest feature level; QUANTIZE and
// DEQUANTIZE are the only operators that take the 4-bit types (two elements a byte).
#include <algorithm>

#include "dml/schema/families.h"

namespace freedml::dml {

namespace {

using Types = std::initializer_list<DML_TENSOR_DATA_TYPE>;

constexpr Types kFloat = {DML_TENSOR_DATA_TYPE_FLOAT32, DML_TENSOR_DATA_TYPE_FLOAT16};
// FLOAT32, FLOAT16 and the eight integer types (ADD, SUBTRACT, MULTIPLY, DIVIDE, MIN, MAX, MODULUS_*;
// the inputs of the comparisons).
constexpr Types kNumeric = {DML_TENSOR_DATA_TYPE_FLOAT32, DML_TENSOR_DATA_TYPE_FLOAT16, DML_TENSOR_DATA_TYPE_INT64,
                            DML_TENSOR_DATA_TYPE_INT32,   DML_TENSOR_DATA_TYPE_INT16,   DML_TENSOR_DATA_TYPE_INT8,
                            DML_TENSOR_DATA_TYPE_UINT64,  DML_TENSOR_DATA_TYPE_UINT32,  DML_TENSOR_DATA_TYPE_UINT16,
                            DML_TENSOR_DATA_TYPE_UINT8};
constexpr Types kFloat32Integers = {DML_TENSOR_DATA_TYPE_FLOAT32, DML_TENSOR_DATA_TYPE_FLOAT16,
                                    DML_TENSOR_DATA_TYPE_INT32, DML_TENSOR_DATA_TYPE_UINT32};
// Bitwise operators: every type of 8 to 64 bits, floats included (their encoding).
constexpr Types kAllTypes = {DML_TENSOR_DATA_TYPE_FLOAT64, DML_TENSOR_DATA_TYPE_FLOAT32, DML_TENSOR_DATA_TYPE_FLOAT16,
                             DML_TENSOR_DATA_TYPE_INT64,   DML_TENSOR_DATA_TYPE_INT32,   DML_TENSOR_DATA_TYPE_INT16,
                             DML_TENSOR_DATA_TYPE_INT8,    DML_TENSOR_DATA_TYPE_UINT64,  DML_TENSOR_DATA_TYPE_UINT32,
                             DML_TENSOR_DATA_TYPE_UINT16,  DML_TENSOR_DATA_TYPE_UINT8};
constexpr Types kUnsigned = {DML_TENSOR_DATA_TYPE_UINT64, DML_TENSOR_DATA_TYPE_UINT32, DML_TENSOR_DATA_TYPE_UINT16,
                             DML_TENSOR_DATA_TYPE_UINT8};
constexpr Types kBoolean = {DML_TENSOR_DATA_TYPE_UINT32, DML_TENSOR_DATA_TYPE_UINT8};
constexpr Types kPow = {DML_TENSOR_DATA_TYPE_FLOAT32, DML_TENSOR_DATA_TYPE_FLOAT16, DML_TENSOR_DATA_TYPE_INT32,
                        DML_TENSOR_DATA_TYPE_INT16,   DML_TENSOR_DATA_TYPE_INT8,    DML_TENSOR_DATA_TYPE_UINT32,
                        DML_TENSOR_DATA_TYPE_UINT16,  DML_TENSOR_DATA_TYPE_UINT8};
constexpr Types kQuantizeInputs = {DML_TENSOR_DATA_TYPE_FLOAT32, DML_TENSOR_DATA_TYPE_FLOAT16,
                                   DML_TENSOR_DATA_TYPE_INT32};
constexpr Types kQuantized8 = {DML_TENSOR_DATA_TYPE_INT8, DML_TENSOR_DATA_TYPE_UINT8};
constexpr Types kQuantized8And4 = {DML_TENSOR_DATA_TYPE_INT8, DML_TENSOR_DATA_TYPE_UINT8, DML_TENSOR_DATA_TYPE_INT4,
                                   DML_TENSOR_DATA_TYPE_UINT4};
constexpr Types kDequantizeInputs = {DML_TENSOR_DATA_TYPE_INT32,  DML_TENSOR_DATA_TYPE_INT16, DML_TENSOR_DATA_TYPE_INT8,
                                     DML_TENSOR_DATA_TYPE_UINT32, DML_TENSOR_DATA_TYPE_UINT16, DML_TENSOR_DATA_TYPE_UINT8};

// One tensor's data type is one of `types`.
Status CheckType(const OperatorArgs& args, const TensorDesc& tensor, const std::string& name, Types types) {
    INVALID_IF(!DataTypeIn(types, tensor.dataType), "%s has data type %s; DML_OPERATOR_%s accepts %s.", name.c_str(),
               DataTypeName(tensor.dataType), args.schema.name, DataTypeListToString(types).c_str());
    return {};
}

Status CheckSameType(const TensorDesc& tensor, const std::string& name, const TensorDesc& reference,
                     const std::string& referenceName) {
    INVALID_IF(tensor.dataType != reference.dataType, "%s has data type %s, but %s is %s; they must match.",
               name.c_str(), DataTypeName(tensor.dataType), referenceName.c_str(), DataTypeName(reference.dataType));
    return {};
}

// Every tensor (inputs, then outputs) has the output's sizes (broadcast is done with zero strides).
Status ValidateSameShape(const OperatorArgs& args) { return ValidateSameSizes(args); }

template <const Types& kTypes>
Status ValidateSameTypeIn(const OperatorArgs& args) {
    FREEDML_TRY(ValidateDataTypeIn(args, kTypes));
    FREEDML_TRY(ValidateSameDataType(args));
    return ValidateSameShape(args);
}

// Comparisons: A and B of one numeric type, the output UINT8 or UINT32.
Status ValidateComparison(const OperatorArgs& args) {
    FREEDML_TRY(CheckType(args, *args.inputs[0], args.inputNames[0], kNumeric));
    FREEDML_TRY(CheckSameType(*args.inputs[1], args.inputNames[1], *args.inputs[0], args.inputNames[0]));
    FREEDML_TRY(CheckType(args, *args.outputs[0], args.outputNames[0], kBoolean));
    return ValidateSameShape(args);
}

// POW: input and output share a type; the exponent may have another (feature level 3.0 on).
Status ValidatePow(const OperatorArgs& args) {
    const TensorDesc &input = *args.inputs[0], &exponent = *args.inputs[1], &output = *args.outputs[0];
    FREEDML_TRY(CheckType(args, input, args.inputNames[0], kPow));
    FREEDML_TRY(CheckType(args, exponent, args.inputNames[1], kPow));
    FREEDML_TRY(CheckSameType(output, args.outputNames[0], input, args.inputNames[0]));
    if (args.featureLevel < DML_FEATURE_LEVEL_3_0) {
        FREEDML_TRY(CheckSameType(exponent, args.inputNames[1], input, args.inputNames[0]));
    }
    return ValidateSameShape(args);
}

// Quantization scale and zero-point tensors: the output's rank, and each size 1 or the output's
// (the single-value form QUANTIZED_LINEAR_ADD documents, and per-axis forms, broadcast by strides).
// QUANTIZE and DEQUANTIZE (`blocked`) also take blocked quantization: a size that divides the
// output's, each of its elements then covering output size / its size consecutive indices.
Status ValidateBroadcastable(const OperatorArgs& args, size_t input, bool blocked = false) {
    if (!args.inputs[input]) return {};
    const TensorDesc &tensor = *args.inputs[input], &output = *args.outputs[0];
    bool ok = tensor.rank == output.rank;
    for (uint32_t d = 0; ok && d < tensor.rank; ++d) {
        ok = tensor.sizes[d] == 1 || tensor.sizes[d] == output.sizes[d] ||
             (blocked && output.sizes[d] % tensor.sizes[d] == 0);
    }
    INVALID_IF(!ok && !blocked,
               "%s has sizes %s; against OutputTensor %s it must have the same DimensionCount and each size 1 or "
               "equal.",
               args.inputNames[input].c_str(), SizesToString(tensor).c_str(), SizesToString(output).c_str());
    INVALID_IF(!ok,
               "%s has sizes %s; against OutputTensor %s it must have the same DimensionCount and each size 1, "
               "equal, or a divisor of the output's (a block of elements per value).",
               args.inputNames[input].c_str(), SizesToString(tensor).c_str(), SizesToString(output).c_str());
    return {};
}

Status ValidateZeroPointRequired(const OperatorArgs& args, size_t input) {
    INVALID_IF(!args.inputs[input] && args.featureLevel < DML_FEATURE_LEVEL_6_2,
               "%s is optional only from feature level 6.2 (the device's is 0x%x).", args.inputNames[input].c_str(),
               unsigned(args.featureLevel));
    return {};
}

// Input, Scale, ZeroPoint (optional), Output: shapes and types of QUANTIZE_LINEAR.
Status ValidateQuantizeTensors(const OperatorArgs& args, size_t zeroPointIndex, Types outputTypes,
                               bool blocked = false) {
    const TensorDesc &input = *args.inputs[0], &scale = *args.inputs[1], &output = *args.outputs[0];
    FREEDML_TRY(CheckType(args, input, args.inputNames[0], kQuantizeInputs));
    if (input.dataType == DML_TENSOR_DATA_TYPE_INT32) {
        INVALID_IF(scale.dataType != DML_TENSOR_DATA_TYPE_FLOAT32,
                   "%s is INT32, so %s must be FLOAT32 (it is %s).", args.inputNames[0].c_str(),
                   args.inputNames[1].c_str(), DataTypeName(scale.dataType));
    } else {
        FREEDML_TRY(CheckSameType(scale, args.inputNames[1], input, args.inputNames[0]));
    }
    FREEDML_TRY(CheckType(args, output, args.outputNames[0], outputTypes));
    if (zeroPointIndex < args.inputs.size() && args.inputs[zeroPointIndex]) {
        FREEDML_TRY(CheckSameType(*args.inputs[zeroPointIndex], args.inputNames[zeroPointIndex], output,
                                  args.outputNames[0]));
    }
    INVALID_IF(input.rank != output.rank ||
                   !std::equal(input.sizes.begin(), input.sizes.begin() + input.rank, output.sizes.begin()),
               "%s has sizes %s, but %s has %s; they must match.", args.inputNames[0].c_str(),
               SizesToString(input).c_str(), args.outputNames[0].c_str(), SizesToString(output).c_str());
    for (size_t i = 1; i < args.inputs.size(); ++i) FREEDML_TRY(ValidateBroadcastable(args, i, blocked));
    return {};
}

Status ValidateDequantizeTensors(const OperatorArgs& args, size_t zeroPointIndex, Types inputTypes,
                                 bool blocked = false) {
    const TensorDesc &input = *args.inputs[0], &scale = *args.inputs[1], &output = *args.outputs[0];
    FREEDML_TRY(CheckType(args, input, args.inputNames[0], inputTypes));
    FREEDML_TRY(CheckType(args, scale, args.inputNames[1], kFloat));
    FREEDML_TRY(CheckSameType(output, args.outputNames[0], scale, args.inputNames[1]));
    if (zeroPointIndex < args.inputs.size() && args.inputs[zeroPointIndex]) {
        FREEDML_TRY(CheckSameType(*args.inputs[zeroPointIndex], args.inputNames[zeroPointIndex], input,
                                  args.inputNames[0]));
    }
    INVALID_IF(input.rank != output.rank ||
                   !std::equal(input.sizes.begin(), input.sizes.begin() + input.rank, output.sizes.begin()),
               "%s has sizes %s, but %s has %s; they must match.", args.inputNames[0].c_str(),
               SizesToString(input).c_str(), args.outputNames[0].c_str(), SizesToString(output).c_str());
    for (size_t i = 1; i < args.inputs.size(); ++i) FREEDML_TRY(ValidateBroadcastable(args, i, blocked));
    return {};
}

Status ValidateQuantizeLinear(const OperatorArgs& args) {
    FREEDML_TRY(ValidateZeroPointRequired(args, 2));
    return ValidateQuantizeTensors(args, 2, kQuantized8);
}

Status ValidateDequantizeLinear(const OperatorArgs& args) {
    FREEDML_TRY(ValidateZeroPointRequired(args, 2));
    return ValidateDequantizeTensors(args, 2, kDequantizeInputs);
}

// QUANTIZE / DEQUANTIZE (6.3): QuantizationTensors holds the scale, then the zero point for
// SCALE_ZERO_POINT.
Status ValidateQuantizationCount(const OperatorArgs& args, DML_QUANTIZATION_TYPE type, UINT count) {
    INVALID_IF(type == DML_QUANTIZATION_TYPE_NONE, "QuantizationType is DML_QUANTIZATION_TYPE_NONE; DML_OPERATOR_%s "
               "needs SCALE or SCALE_ZERO_POINT.", args.schema.name);
    const UINT expected = type == DML_QUANTIZATION_TYPE_SCALE ? 1 : 2;
    INVALID_IF(count != expected, "QuantizationTensorCount is %u, but QuantizationType %s takes %u tensor(s).", count,
               type == DML_QUANTIZATION_TYPE_SCALE ? "SCALE" : "SCALE_ZERO_POINT", expected);
    return {};
}

Status ValidateQuantize(const OperatorArgs& args) {
    const auto& desc = args.As<DML_QUANTIZE_OPERATOR_DESC>();
    FREEDML_TRY(ValidateQuantizationCount(args, desc.QuantizationType, desc.QuantizationTensorCount));
    FREEDML_TRY(CheckType(args, *args.inputs[0], args.inputNames[0], kFloat));
    return ValidateQuantizeTensors(args, 2, kQuantized8And4, true);
}

Status ValidateDequantize(const OperatorArgs& args) {
    const auto& desc = args.As<DML_DEQUANTIZE_OPERATOR_DESC>();
    FREEDML_TRY(ValidateQuantizationCount(args, desc.QuantizationType, desc.QuantizationTensorCount));
    return ValidateDequantizeTensors(args, 2, kQuantized8And4, true);
}

// A, AScale, AZeroPoint?, B, BScale, BZeroPoint?, OutputScale, OutputZeroPoint?, Output.
Status ValidateQuantizedLinearAdd(const OperatorArgs& args) {
    const TensorDesc& output = *args.outputs[0];
    FREEDML_TRY(CheckType(args, *args.inputs[0], args.inputNames[0], kQuantized8));
    FREEDML_TRY(CheckType(args, *args.inputs[3], args.inputNames[3], kQuantized8));
    FREEDML_TRY(CheckType(args, output, args.outputNames[0], kQuantized8));
    for (size_t scale : {1, 4, 6}) {
        FREEDML_TRY(CheckType(args, *args.inputs[scale], args.inputNames[scale], {DML_TENSOR_DATA_TYPE_FLOAT32}));
    }
    const std::pair<size_t, const TensorDesc*> zeroPoints[] = {{2, &*args.inputs[0]}, {5, &*args.inputs[3]}, {7, &output}};
    for (const auto& [index, owner] : zeroPoints) {
        if (!args.inputs[index]) continue;
        FREEDML_TRY(CheckSameType(*args.inputs[index], args.inputNames[index], *owner,
                                  index == 2 ? args.inputNames[0] : index == 5 ? args.inputNames[3] : args.outputNames[0]));
    }
    for (size_t data : {0, 3}) {
        const TensorDesc& t = *args.inputs[data];
        INVALID_IF(t.rank != output.rank || !std::equal(t.sizes.begin(), t.sizes.begin() + t.rank, output.sizes.begin()),
                   "%s has sizes %s, but %s has %s; they must match.", args.inputNames[data].c_str(),
                   SizesToString(t).c_str(), args.outputNames[0].c_str(), SizesToString(output).c_str());
    }
    for (size_t i : {1, 2, 4, 5, 6, 7}) FREEDML_TRY(ValidateBroadcastable(args, i));
    return {};
}

constexpr EnumValue kQuantizationTypeValues[] = {
    {"DML_QUANTIZATION_TYPE_NONE", DML_QUANTIZATION_TYPE_NONE},
    {"DML_QUANTIZATION_TYPE_SCALE", DML_QUANTIZATION_TYPE_SCALE},
    {"DML_QUANTIZATION_TYPE_SCALE_ZERO_POINT", DML_QUANTIZATION_TYPE_SCALE_ZERO_POINT},
};
const EnumType kQuantizationType{"DML_QUANTIZATION_TYPE", kQuantizationTypeValues};

// A, B, Output with one validation rule: the shape of most of this family.
#define FREEDML_BINARY_SCHEMA(variable, NAME, level, inPlace, rule)                                  \
    const OperatorSchema variable{                                                                  \
        .type = DML_OPERATOR_##NAME,                                                                \
        .name = #NAME,                                                                              \
        .featureLevel = level,                                                                      \
        .descSize = sizeof(DML_##NAME##_OPERATOR_DESC),                                             \
        .fields = {DML_FIELD(DML_##NAME##_OPERATOR_DESC, ATensor, InputTensor),                     \
                   DML_FIELD(DML_##NAME##_OPERATOR_DESC, BTensor, InputTensor),                     \
                   DML_FIELD(DML_##NAME##_OPERATOR_DESC, OutputTensor, OutputTensor)},              \
        .supportsInPlaceExecution = inPlace,                                                        \
        .validate = rule,                                                                           \
    }

FREEDML_BINARY_SCHEMA(kSubtract, ELEMENT_WISE_SUBTRACT, DML_FEATURE_LEVEL_1_0, true, ValidateSameTypeIn<kNumeric>);
FREEDML_BINARY_SCHEMA(kMultiply, ELEMENT_WISE_MULTIPLY, DML_FEATURE_LEVEL_1_0, true, ValidateSameTypeIn<kNumeric>);
FREEDML_BINARY_SCHEMA(kDivide, ELEMENT_WISE_DIVIDE, DML_FEATURE_LEVEL_1_0, true, ValidateSameTypeIn<kNumeric>);
FREEDML_BINARY_SCHEMA(kMin, ELEMENT_WISE_MIN, DML_FEATURE_LEVEL_1_0, true, ValidateSameTypeIn<kNumeric>);
FREEDML_BINARY_SCHEMA(kMax, ELEMENT_WISE_MAX, DML_FEATURE_LEVEL_1_0, true, ValidateSameTypeIn<kNumeric>);
FREEDML_BINARY_SCHEMA(kMean, ELEMENT_WISE_MEAN, DML_FEATURE_LEVEL_1_0, true, ValidateSameTypeIn<kFloat32Integers>);
FREEDML_BINARY_SCHEMA(kAtanYX, ELEMENT_WISE_ATAN_YX, DML_FEATURE_LEVEL_3_1, true, ValidateSameTypeIn<kFloat>);
FREEDML_BINARY_SCHEMA(kDifferenceSquare, ELEMENT_WISE_DIFFERENCE_SQUARE, DML_FEATURE_LEVEL_3_1, true,
                      ValidateSameTypeIn<kFloat32Integers>);
FREEDML_BINARY_SCHEMA(kModulusTruncate, ELEMENT_WISE_MODULUS_TRUNCATE, DML_FEATURE_LEVEL_2_1, true,
                      ValidateSameTypeIn<kNumeric>);
FREEDML_BINARY_SCHEMA(kModulusFloor, ELEMENT_WISE_MODULUS_FLOOR, DML_FEATURE_LEVEL_2_1, true,
                      ValidateSameTypeIn<kNumeric>);
FREEDML_BINARY_SCHEMA(kBitAnd, ELEMENT_WISE_BIT_AND, DML_FEATURE_LEVEL_3_0, true, ValidateSameTypeIn<kAllTypes>);
FREEDML_BINARY_SCHEMA(kBitOr, ELEMENT_WISE_BIT_OR, DML_FEATURE_LEVEL_3_0, true, ValidateSameTypeIn<kAllTypes>);
FREEDML_BINARY_SCHEMA(kBitXor, ELEMENT_WISE_BIT_XOR, DML_FEATURE_LEVEL_3_0, true, ValidateSameTypeIn<kAllTypes>);
FREEDML_BINARY_SCHEMA(kShiftLeft, ELEMENT_WISE_BIT_SHIFT_LEFT, DML_FEATURE_LEVEL_2_1, true,
                      ValidateSameTypeIn<kUnsigned>);
FREEDML_BINARY_SCHEMA(kShiftRight, ELEMENT_WISE_BIT_SHIFT_RIGHT, DML_FEATURE_LEVEL_2_1, true,
                      ValidateSameTypeIn<kUnsigned>);
FREEDML_BINARY_SCHEMA(kLogicalAnd, ELEMENT_WISE_LOGICAL_AND, DML_FEATURE_LEVEL_1_0, true,
                      ValidateSameTypeIn<kBoolean>);
FREEDML_BINARY_SCHEMA(kLogicalOr, ELEMENT_WISE_LOGICAL_OR, DML_FEATURE_LEVEL_1_0, true, ValidateSameTypeIn<kBoolean>);
FREEDML_BINARY_SCHEMA(kLogicalXor, ELEMENT_WISE_LOGICAL_XOR, DML_FEATURE_LEVEL_1_0, true,
                      ValidateSameTypeIn<kBoolean>);
FREEDML_BINARY_SCHEMA(kEquals, ELEMENT_WISE_LOGICAL_EQUALS, DML_FEATURE_LEVEL_1_0, false, ValidateComparison);
FREEDML_BINARY_SCHEMA(kGreaterThan, ELEMENT_WISE_LOGICAL_GREATER_THAN, DML_FEATURE_LEVEL_1_0, false,
                      ValidateComparison);
FREEDML_BINARY_SCHEMA(kLessThan, ELEMENT_WISE_LOGICAL_LESS_THAN, DML_FEATURE_LEVEL_1_0, false, ValidateComparison);
FREEDML_BINARY_SCHEMA(kGreaterThanOrEqual, ELEMENT_WISE_LOGICAL_GREATER_THAN_OR_EQUAL, DML_FEATURE_LEVEL_3_0, false,
                      ValidateComparison);
FREEDML_BINARY_SCHEMA(kLessThanOrEqual, ELEMENT_WISE_LOGICAL_LESS_THAN_OR_EQUAL, DML_FEATURE_LEVEL_3_0, false,
                      ValidateComparison);

#undef FREEDML_BINARY_SCHEMA

const OperatorSchema kPowSchema{
    .type = DML_OPERATOR_ELEMENT_WISE_POW,
    .name = "ELEMENT_WISE_POW",
    .featureLevel = DML_FEATURE_LEVEL_1_0,
    .descSize = sizeof(DML_ELEMENT_WISE_POW_OPERATOR_DESC),
    .fields = {DML_FIELD(DML_ELEMENT_WISE_POW_OPERATOR_DESC, InputTensor, InputTensor),
               DML_FIELD(DML_ELEMENT_WISE_POW_OPERATOR_DESC, ExponentTensor, InputTensor),
               DML_FIELD(DML_ELEMENT_WISE_POW_OPERATOR_DESC, OutputTensor, OutputTensor),
               DML_FIELD(DML_ELEMENT_WISE_POW_OPERATOR_DESC, ScaleBias, ScaleBias, .optional = true)},
    .supportsInPlaceExecution = true,
    .validate = ValidatePow,
};

const OperatorSchema kQuantizeLinear{
    .type = DML_OPERATOR_ELEMENT_WISE_QUANTIZE_LINEAR,
    .name = "ELEMENT_WISE_QUANTIZE_LINEAR",
    .featureLevel = DML_FEATURE_LEVEL_1_0,
    .descSize = sizeof(DML_ELEMENT_WISE_QUANTIZE_LINEAR_OPERATOR_DESC),
    .fields = {DML_FIELD(DML_ELEMENT_WISE_QUANTIZE_LINEAR_OPERATOR_DESC, InputTensor, InputTensor),
               DML_FIELD(DML_ELEMENT_WISE_QUANTIZE_LINEAR_OPERATOR_DESC, ScaleTensor, InputTensor),
               DML_FIELD(DML_ELEMENT_WISE_QUANTIZE_LINEAR_OPERATOR_DESC, ZeroPointTensor, InputTensor, .optional = true),
               DML_FIELD(DML_ELEMENT_WISE_QUANTIZE_LINEAR_OPERATOR_DESC, OutputTensor, OutputTensor)},
    .validate = ValidateQuantizeLinear,
};

const OperatorSchema kDequantizeLinear{
    .type = DML_OPERATOR_ELEMENT_WISE_DEQUANTIZE_LINEAR,
    .name = "ELEMENT_WISE_DEQUANTIZE_LINEAR",
    .featureLevel = DML_FEATURE_LEVEL_1_0,
    .descSize = sizeof(DML_ELEMENT_WISE_DEQUANTIZE_LINEAR_OPERATOR_DESC),
    .fields = {DML_FIELD(DML_ELEMENT_WISE_DEQUANTIZE_LINEAR_OPERATOR_DESC, InputTensor, InputTensor),
               DML_FIELD(DML_ELEMENT_WISE_DEQUANTIZE_LINEAR_OPERATOR_DESC, ScaleTensor, InputTensor),
               DML_FIELD(DML_ELEMENT_WISE_DEQUANTIZE_LINEAR_OPERATOR_DESC, ZeroPointTensor, InputTensor,
                         .optional = true),
               DML_FIELD(DML_ELEMENT_WISE_DEQUANTIZE_LINEAR_OPERATOR_DESC, OutputTensor, OutputTensor)},
    .validate = ValidateDequantizeLinear,
};

const OperatorSchema kQuantizedLinearAdd{
    .type = DML_OPERATOR_ELEMENT_WISE_QUANTIZED_LINEAR_ADD,
    .name = "ELEMENT_WISE_QUANTIZED_LINEAR_ADD",
    .featureLevel = DML_FEATURE_LEVEL_4_0,
    .descSize = sizeof(DML_ELEMENT_WISE_QUANTIZED_LINEAR_ADD_OPERATOR_DESC),
    .fields = {DML_FIELD(DML_ELEMENT_WISE_QUANTIZED_LINEAR_ADD_OPERATOR_DESC, ATensor, InputTensor),
               DML_FIELD(DML_ELEMENT_WISE_QUANTIZED_LINEAR_ADD_OPERATOR_DESC, AScaleTensor, InputTensor),
               DML_FIELD(DML_ELEMENT_WISE_QUANTIZED_LINEAR_ADD_OPERATOR_DESC, AZeroPointTensor, InputTensor,
                         .optional = true),
               DML_FIELD(DML_ELEMENT_WISE_QUANTIZED_LINEAR_ADD_OPERATOR_DESC, BTensor, InputTensor),
               DML_FIELD(DML_ELEMENT_WISE_QUANTIZED_LINEAR_ADD_OPERATOR_DESC, BScaleTensor, InputTensor),
               DML_FIELD(DML_ELEMENT_WISE_QUANTIZED_LINEAR_ADD_OPERATOR_DESC, BZeroPointTensor, InputTensor,
                         .optional = true),
               DML_FIELD(DML_ELEMENT_WISE_QUANTIZED_LINEAR_ADD_OPERATOR_DESC, OutputScaleTensor, InputTensor),
               DML_FIELD(DML_ELEMENT_WISE_QUANTIZED_LINEAR_ADD_OPERATOR_DESC, OutputZeroPointTensor, InputTensor,
                         .optional = true),
               DML_FIELD(DML_ELEMENT_WISE_QUANTIZED_LINEAR_ADD_OPERATOR_DESC, OutputTensor, OutputTensor)},
    .validate = ValidateQuantizedLinearAdd,
};

const OperatorSchema kQuantize{
    .type = DML_OPERATOR_QUANTIZE,
    .name = "QUANTIZE",
    .featureLevel = DML_FEATURE_LEVEL_6_3,
    .descSize = sizeof(DML_QUANTIZE_OPERATOR_DESC),
    .fields = {DML_FIELD(DML_QUANTIZE_OPERATOR_DESC, InputTensor, InputTensor),
               DML_FIELD(DML_QUANTIZE_OPERATOR_DESC, QuantizationType, Enum, .enumType = &kQuantizationType),
               DML_FIELD(DML_QUANTIZE_OPERATOR_DESC, QuantizationTensorCount, UInt),
               DML_FIELD(DML_QUANTIZE_OPERATOR_DESC, QuantizationTensors, InputTensorArray,
                         .countField = "QuantizationTensorCount"),
               DML_FIELD(DML_QUANTIZE_OPERATOR_DESC, OutputTensor, OutputTensor)},
    .accepts4BitTensors = true,
    .validate = ValidateQuantize,
};

const OperatorSchema kDequantize{
    .type = DML_OPERATOR_DEQUANTIZE,
    .name = "DEQUANTIZE",
    .featureLevel = DML_FEATURE_LEVEL_6_3,
    .descSize = sizeof(DML_DEQUANTIZE_OPERATOR_DESC),
    .fields = {DML_FIELD(DML_DEQUANTIZE_OPERATOR_DESC, InputTensor, InputTensor),
               DML_FIELD(DML_DEQUANTIZE_OPERATOR_DESC, QuantizationType, Enum, .enumType = &kQuantizationType),
               DML_FIELD(DML_DEQUANTIZE_OPERATOR_DESC, QuantizationTensorCount, UInt),
               DML_FIELD(DML_DEQUANTIZE_OPERATOR_DESC, QuantizationTensors, InputTensorArray,
                         .countField = "QuantizationTensorCount"),
               DML_FIELD(DML_DEQUANTIZE_OPERATOR_DESC, OutputTensor, OutputTensor)},
    .accepts4BitTensors = true,
    .validate = ValidateDequantize,
};

// ELEMENT_WISE_ADD and ADD1 (ADD1 adds a fused activation and takes floats only).
constexpr std::initializer_list<DML_TENSOR_DATA_TYPE> kAddTypes = {
    DML_TENSOR_DATA_TYPE_FLOAT32, DML_TENSOR_DATA_TYPE_FLOAT16, DML_TENSOR_DATA_TYPE_INT64,
    DML_TENSOR_DATA_TYPE_INT32,   DML_TENSOR_DATA_TYPE_INT16,   DML_TENSOR_DATA_TYPE_INT8,
    DML_TENSOR_DATA_TYPE_UINT64,  DML_TENSOR_DATA_TYPE_UINT32,  DML_TENSOR_DATA_TYPE_UINT16,
    DML_TENSOR_DATA_TYPE_UINT8};
constexpr std::initializer_list<DML_TENSOR_DATA_TYPE> kAdd1Types = {DML_TENSOR_DATA_TYPE_FLOAT32,
                                                                    DML_TENSOR_DATA_TYPE_FLOAT16};

Status ValidateSameTypeAndSizes(const OperatorArgs& args, std::initializer_list<DML_TENSOR_DATA_TYPE> types) {
    FREEDML_TRY(ValidateDataTypeIn(args, types));
    FREEDML_TRY(ValidateSameDataType(args));
    return ValidateSameSizes(args);
}

Status ValidateAdd(const OperatorArgs& args) { return ValidateSameTypeAndSizes(args, kAddTypes); }
Status ValidateAdd1(const OperatorArgs& args) { return ValidateSameTypeAndSizes(args, kAdd1Types); }


const OperatorSchema kAdd{
    .type = DML_OPERATOR_ELEMENT_WISE_ADD,
    .name = "ELEMENT_WISE_ADD",
    .featureLevel = DML_FEATURE_LEVEL_1_0,
    .descSize = sizeof(DML_ELEMENT_WISE_ADD_OPERATOR_DESC),
    .fields = {DML_FIELD(DML_ELEMENT_WISE_ADD_OPERATOR_DESC, ATensor, InputTensor),
               DML_FIELD(DML_ELEMENT_WISE_ADD_OPERATOR_DESC, BTensor, InputTensor),
               DML_FIELD(DML_ELEMENT_WISE_ADD_OPERATOR_DESC, OutputTensor, OutputTensor)},
    .supportsInPlaceExecution = true,
    .validate = ValidateAdd,
};

const OperatorSchema kAdd1{
    .type = DML_OPERATOR_ELEMENT_WISE_ADD1,
    .name = "ELEMENT_WISE_ADD1",
    .featureLevel = DML_FEATURE_LEVEL_2_0,
    .descSize = sizeof(DML_ELEMENT_WISE_ADD1_OPERATOR_DESC),
    .fields = {DML_FIELD(DML_ELEMENT_WISE_ADD1_OPERATOR_DESC, ATensor, InputTensor),
               DML_FIELD(DML_ELEMENT_WISE_ADD1_OPERATOR_DESC, BTensor, InputTensor),
               DML_FIELD(DML_ELEMENT_WISE_ADD1_OPERATOR_DESC, OutputTensor, OutputTensor),
               DML_FIELD(DML_ELEMENT_WISE_ADD1_OPERATOR_DESC, FusedActivation, OperatorDesc, .optional = true)},
    .supportsInPlaceExecution = true,
    .validate = ValidateAdd1,
};

// ELEMENT_WISE_IF

// ConditionTensor is UINT8; A, B and Output share any of the 8- to 64-bit types (feature level
// 5.0 on, as the reference page lists them).
constexpr std::initializer_list<DML_TENSOR_DATA_TYPE> kValueTypes = {
    DML_TENSOR_DATA_TYPE_FLOAT64, DML_TENSOR_DATA_TYPE_FLOAT32, DML_TENSOR_DATA_TYPE_FLOAT16,
    DML_TENSOR_DATA_TYPE_INT64,   DML_TENSOR_DATA_TYPE_INT32,   DML_TENSOR_DATA_TYPE_INT16,
    DML_TENSOR_DATA_TYPE_INT8,    DML_TENSOR_DATA_TYPE_UINT64,  DML_TENSOR_DATA_TYPE_UINT32,
    DML_TENSOR_DATA_TYPE_UINT16,  DML_TENSOR_DATA_TYPE_UINT8};

Status ValidateIf(const OperatorArgs& args) {
    const TensorDesc& condition = *args.inputs[0];
    INVALID_IF(condition.dataType != DML_TENSOR_DATA_TYPE_UINT8,
               "%s has data type %s; DML_OPERATOR_ELEMENT_WISE_IF takes a UINT8 condition (non-zero selects ATensor).",
               args.inputNames[0].c_str(), DataTypeName(condition.dataType));
    FREEDML_TRY(ValidateDataTypeIn(args, kValueTypes));  // the condition's UINT8 is among them
    const TensorDesc& output = *args.outputs[0];
    for (size_t i = 1; i < 3; ++i) {
        INVALID_IF(args.inputs[i]->dataType != output.dataType, "%s has data type %s, but %s is %s; they must match.",
                   args.inputNames[i].c_str(), DataTypeName(args.inputs[i]->dataType), args.outputNames[0].c_str(),
                   DataTypeName(output.dataType));
    }
    return ValidateSameSizes(args);
}

const OperatorSchema kIf{
    .type = DML_OPERATOR_ELEMENT_WISE_IF,
    .name = "ELEMENT_WISE_IF",
    .featureLevel = DML_FEATURE_LEVEL_2_0,
    .descSize = sizeof(DML_ELEMENT_WISE_IF_OPERATOR_DESC),
    .fields = {DML_FIELD(DML_ELEMENT_WISE_IF_OPERATOR_DESC, ConditionTensor, InputTensor),
               DML_FIELD(DML_ELEMENT_WISE_IF_OPERATOR_DESC, ATensor, InputTensor),
               DML_FIELD(DML_ELEMENT_WISE_IF_OPERATOR_DESC, BTensor, InputTensor),
               DML_FIELD(DML_ELEMENT_WISE_IF_OPERATOR_DESC, OutputTensor, OutputTensor)},
    .validate = ValidateIf,
};

const OperatorSchema* const kSchemas[] = {
    &kAdd, &kAdd1, &kIf,
    &kSubtract,   &kMultiply,     &kDivide,       &kMin,        &kMax,
    &kMean,       &kAtanYX,       &kDifferenceSquare, &kModulusTruncate, &kModulusFloor,
    &kBitAnd,     &kBitOr,        &kBitXor,       &kShiftLeft,  &kShiftRight,
    &kLogicalAnd, &kLogicalOr,    &kLogicalXor,   &kEquals,     &kGreaterThan,
    &kLessThan,   &kGreaterThanOrEqual, &kLessThanOrEqual, &kPowSchema, &kQuantizeLinear,
    &kDequantizeLinear, &kQuantizedLinearAdd, &kQuantize, &kDequantize,
};

}  // namespace

std::span<const OperatorSchema* const> ElementWiseBinarySchemas() { return kSchemas; }

}  // namespace freedml::dml
