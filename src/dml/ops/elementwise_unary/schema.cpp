// Schemas of the unary element-wise family: IDENTITY (with its optional scale and bias), the math functions of one tensor (ABS ... THRESHOLD,
// CONSTANT_POW), the bit and logical NOTs, BIT_COUNT, the IS_NAN / IS_INFINITY tests, CLIP and
// CLIP1 with their gradients, CAST, and the FILL_VALUE operators (no input at all). The data types
// are those each operator's reference page lists for the highest feature level (6.4).
#include <algorithm>

#include "dml/schema/families.h"

namespace freedml::dml {

namespace {

using TypeList = std::initializer_list<DML_TENSOR_DATA_TYPE>;

constexpr TypeList kFloat = {DML_TENSOR_DATA_TYPE_FLOAT32, DML_TENSOR_DATA_TYPE_FLOAT16};
constexpr TypeList kSigned = {DML_TENSOR_DATA_TYPE_FLOAT32, DML_TENSOR_DATA_TYPE_FLOAT16, DML_TENSOR_DATA_TYPE_INT64,
                              DML_TENSOR_DATA_TYPE_INT32,   DML_TENSOR_DATA_TYPE_INT16,   DML_TENSOR_DATA_TYPE_INT8};
// Every type but FLOAT64.
constexpr TypeList kNumeric = {DML_TENSOR_DATA_TYPE_FLOAT32, DML_TENSOR_DATA_TYPE_FLOAT16, DML_TENSOR_DATA_TYPE_INT64,
                               DML_TENSOR_DATA_TYPE_INT32,   DML_TENSOR_DATA_TYPE_INT16,   DML_TENSOR_DATA_TYPE_INT8,
                               DML_TENSOR_DATA_TYPE_UINT64,  DML_TENSOR_DATA_TYPE_UINT32,  DML_TENSOR_DATA_TYPE_UINT16,
                               DML_TENSOR_DATA_TYPE_UINT8};
constexpr TypeList kAll = {DML_TENSOR_DATA_TYPE_FLOAT64, DML_TENSOR_DATA_TYPE_FLOAT32, DML_TENSOR_DATA_TYPE_FLOAT16,
                           DML_TENSOR_DATA_TYPE_INT64,   DML_TENSOR_DATA_TYPE_INT32,   DML_TENSOR_DATA_TYPE_INT16,
                           DML_TENSOR_DATA_TYPE_INT8,    DML_TENSOR_DATA_TYPE_UINT64,  DML_TENSOR_DATA_TYPE_UINT32,
                           DML_TENSOR_DATA_TYPE_UINT16,  DML_TENSOR_DATA_TYPE_UINT8};
// The 32-bit-and-narrower types of THRESHOLD.
constexpr TypeList kNarrow = {DML_TENSOR_DATA_TYPE_FLOAT32, DML_TENSOR_DATA_TYPE_FLOAT16, DML_TENSOR_DATA_TYPE_INT32,
                              DML_TENSOR_DATA_TYPE_INT16,   DML_TENSOR_DATA_TYPE_INT8,    DML_TENSOR_DATA_TYPE_UINT32,
                              DML_TENSOR_DATA_TYPE_UINT16,  DML_TENSOR_DATA_TYPE_UINT8};
constexpr TypeList kBoolean = {DML_TENSOR_DATA_TYPE_UINT32, DML_TENSOR_DATA_TYPE_UINT8};
constexpr TypeList kUInt8 = {DML_TENSOR_DATA_TYPE_UINT8};

constexpr EnumValue kRoundingModeValues[] = {
    {"DML_ROUNDING_MODE_HALVES_TO_NEAREST_EVEN", DML_ROUNDING_MODE_HALVES_TO_NEAREST_EVEN},
    {"DML_ROUNDING_MODE_TOWARD_ZERO", DML_ROUNDING_MODE_TOWARD_ZERO},
    {"DML_ROUNDING_MODE_TOWARD_INFINITY", DML_ROUNDING_MODE_TOWARD_INFINITY},
};
const EnumType kRoundingMode{"DML_ROUNDING_MODE", kRoundingModeValues};
constexpr EnumValue kInfinityModeValues[] = {
    {"DML_IS_INFINITY_MODE_EITHER", DML_IS_INFINITY_MODE_EITHER},
    {"DML_IS_INFINITY_MODE_POSITIVE", DML_IS_INFINITY_MODE_POSITIVE},
    {"DML_IS_INFINITY_MODE_NEGATIVE", DML_IS_INFINITY_MODE_NEGATIVE},
};
const EnumType kInfinityMode{"DML_IS_INFINITY_MODE", kInfinityModeValues};

Status CheckType(const OperatorArgs& args, const TensorDesc& tensor, const std::string& name, TypeList allowed) {
    if (std::find(allowed.begin(), allowed.end(), tensor.dataType) != allowed.end()) return {};
    std::string list;
    for (auto type : allowed) list += (list.empty() ? "" : ", ") + std::string(DataTypeName(type));
    return Error(E_INVALIDARG, "%s has data type %s; DML_OPERATOR_%s accepts %s.", name.c_str(),
                 DataTypeName(tensor.dataType), args.schema.name, list.c_str());
}

// A ScaleBias is float arithmetic: FreeDML refuses it on integer tensors rather than guess how
// it would round.
Status ValidateScaleBias(const OperatorArgs& args) {
    for (const auto& field : args.schema.fields) {
        if (field.kind != FieldKind::ScaleBias || !FieldAt<const DML_SCALE_BIAS*>(args.desc, field.offset)) continue;
        const TensorDesc& output = *args.outputs[0];
        INVALID_IF(!IsFloatingPoint(output.dataType),
                   "ScaleBias is given, but %s is %s; DML_OPERATOR_%s applies a ScaleBias only to FLOAT32 and FLOAT16 "
                   "tensors.",
                   args.outputNames[0].c_str(), DataTypeName(output.dataType), args.schema.name);
    }
    return {};
}

// Input(s) and output of one type from `allowed`, all of the output's sizes.
Status ValidateSameType(const OperatorArgs& args, TypeList allowed) {
    FREEDML_TRY(ValidateDataTypeIn(args, allowed));
    FREEDML_TRY(ValidateSameDataType(args));
    FREEDML_TRY(ValidateSameSizes(args));
    return ValidateScaleBias(args);
}

// An input of one of `inputTypes` and an output of one of `outputTypes`, of equal sizes.
Status ValidateTwoTypes(const OperatorArgs& args, TypeList inputTypes, TypeList outputTypes) {
    FREEDML_TRY(CheckType(args, *args.inputs[0], args.inputNames[0], inputTypes));
    FREEDML_TRY(CheckType(args, *args.outputs[0], args.outputNames[0], outputTypes));
    return ValidateSameSizes(args);
}

// The DML_TENSOR_DATA_TYPE field `typeField` of the desc names the output's type.
Status ValidateScalarType(const OperatorArgs& args, const char* typeField) {
    for (const auto& field : args.schema.fields) {
        if (std::string(field.name) != typeField) continue;
        auto type = static_cast<DML_TENSOR_DATA_TYPE>(FieldAt<uint32_t>(args.desc, field.offset));
        const TensorDesc& output = *args.outputs[0];
        INVALID_IF(type != output.dataType, "%s (%s) must match %s's data type (%s).", typeField, DataTypeName(type),
                   args.outputNames[0].c_str(), DataTypeName(output.dataType));
    }
    return {};
}

#define FIELD(Desc, member, kind, ...) DML_FIELD(Desc, member, kind __VA_OPT__(, ) __VA_ARGS__)
#define IN_OUT(Desc) FIELD(Desc, InputTensor, InputTensor), FIELD(Desc, OutputTensor, OutputTensor)
#define SCALE_BIAS(Desc) FIELD(Desc, ScaleBias, ScaleBias, .optional = true)

// An element-wise operator of one tensor whose input and output share a type from TYPES.
#define SAME_TYPE_SCHEMA(NAME, LEVEL, TYPES, ...)                                               \
    const OperatorSchema k##NAME{                                                               \
        .type = DML_OPERATOR_ELEMENT_WISE_##NAME,                                               \
        .name = "ELEMENT_WISE_" #NAME,                                                          \
        .featureLevel = LEVEL,                                                                  \
        .descSize = sizeof(DML_ELEMENT_WISE_##NAME##_OPERATOR_DESC),                            \
        .fields = {IN_OUT(DML_ELEMENT_WISE_##NAME##_OPERATOR_DESC) __VA_OPT__(, ) __VA_ARGS__}, \
        .supportsInPlaceExecution = true,                                                       \
        .validate = [](const OperatorArgs& args) { return ValidateSameType(args, TYPES); },     \
    }
// The same with the optional ScaleBias after the tensors.
#define SCALED_SCHEMA(NAME, LEVEL, TYPES, ...)                                        \
    SAME_TYPE_SCHEMA(NAME, LEVEL, TYPES, SCALE_BIAS(DML_ELEMENT_WISE_##NAME##_OPERATOR_DESC) \
                                             __VA_OPT__(, ) __VA_ARGS__)

SCALED_SCHEMA(ABS, DML_FEATURE_LEVEL_1_0, kSigned);
SCALED_SCHEMA(ACOS, DML_FEATURE_LEVEL_1_0, kFloat);
SCALED_SCHEMA(ASIN, DML_FEATURE_LEVEL_1_0, kFloat);
SCALED_SCHEMA(ATAN, DML_FEATURE_LEVEL_1_0, kFloat);
SCALED_SCHEMA(CEIL, DML_FEATURE_LEVEL_1_0, kFloat);
SCALED_SCHEMA(CLIP, DML_FEATURE_LEVEL_1_0, kNumeric, FIELD(DML_ELEMENT_WISE_CLIP_OPERATOR_DESC, Min, Float),
              FIELD(DML_ELEMENT_WISE_CLIP_OPERATOR_DESC, Max, Float));
SCALED_SCHEMA(COS, DML_FEATURE_LEVEL_1_0, kFloat);
SCALED_SCHEMA(EXP, DML_FEATURE_LEVEL_1_0, kFloat);
SCALED_SCHEMA(FLOOR, DML_FEATURE_LEVEL_1_0, kFloat);
SCALED_SCHEMA(LOG, DML_FEATURE_LEVEL_1_0, kFloat);
SAME_TYPE_SCHEMA(LOGICAL_NOT, DML_FEATURE_LEVEL_1_0, kBoolean);
SCALED_SCHEMA(CONSTANT_POW, DML_FEATURE_LEVEL_1_0, kFloat,
              FIELD(DML_ELEMENT_WISE_CONSTANT_POW_OPERATOR_DESC, Exponent, Float));
SCALED_SCHEMA(RECIP, DML_FEATURE_LEVEL_1_0, kFloat);
SCALED_SCHEMA(SIN, DML_FEATURE_LEVEL_1_0, kFloat);
SCALED_SCHEMA(SQRT, DML_FEATURE_LEVEL_1_0, kFloat);
SCALED_SCHEMA(TAN, DML_FEATURE_LEVEL_1_0, kFloat);
SCALED_SCHEMA(THRESHOLD, DML_FEATURE_LEVEL_1_0, kNarrow, FIELD(DML_ELEMENT_WISE_THRESHOLD_OPERATOR_DESC, Min, Float));
SAME_TYPE_SCHEMA(SIGN, DML_FEATURE_LEVEL_2_0, kNumeric);
SCALED_SCHEMA(ERF, DML_FEATURE_LEVEL_2_0, kFloat);
SCALED_SCHEMA(SINH, DML_FEATURE_LEVEL_2_0, kFloat);
SCALED_SCHEMA(COSH, DML_FEATURE_LEVEL_2_0, kFloat);
SCALED_SCHEMA(TANH, DML_FEATURE_LEVEL_2_0, kFloat);
SCALED_SCHEMA(ASINH, DML_FEATURE_LEVEL_2_0, kFloat);
SCALED_SCHEMA(ACOSH, DML_FEATURE_LEVEL_2_0, kFloat);
SCALED_SCHEMA(ATANH, DML_FEATURE_LEVEL_2_0, kFloat);
SAME_TYPE_SCHEMA(ROUND, DML_FEATURE_LEVEL_2_1, kFloat,
                 FIELD(DML_ELEMENT_WISE_ROUND_OPERATOR_DESC, RoundingMode, Enum, .enumType = &kRoundingMode));
SAME_TYPE_SCHEMA(BIT_NOT, DML_FEATURE_LEVEL_3_0, kAll);
SAME_TYPE_SCHEMA(NEGATE, DML_FEATURE_LEVEL_5_0, kSigned);

const OperatorSchema kClip1{
    .type = DML_OPERATOR_ELEMENT_WISE_CLIP1,
    .name = "ELEMENT_WISE_CLIP1",
    .featureLevel = DML_FEATURE_LEVEL_5_0,
    .descSize = sizeof(DML_ELEMENT_WISE_CLIP1_OPERATOR_DESC),
    .fields = {IN_OUT(DML_ELEMENT_WISE_CLIP1_OPERATOR_DESC), SCALE_BIAS(DML_ELEMENT_WISE_CLIP1_OPERATOR_DESC),
               FIELD(DML_ELEMENT_WISE_CLIP1_OPERATOR_DESC, MinMaxDataType, Enum, .enumType = &TensorDataTypeEnum()),
               FIELD(DML_ELEMENT_WISE_CLIP1_OPERATOR_DESC, Min, ScalarUnion, .typeField = "MinMaxDataType"),
               FIELD(DML_ELEMENT_WISE_CLIP1_OPERATOR_DESC, Max, ScalarUnion, .typeField = "MinMaxDataType")},
    .supportsInPlaceExecution = true,
    .validate = [](const OperatorArgs& args) -> Status {
        FREEDML_TRY(ValidateSameType(args, kNumeric));
        return ValidateScalarType(args, "MinMaxDataType");
    },
};

const OperatorSchema kClipGrad{
    .type = DML_OPERATOR_ELEMENT_WISE_CLIP_GRAD,
    .name = "ELEMENT_WISE_CLIP_GRAD",
    .featureLevel = DML_FEATURE_LEVEL_3_1,
    .descSize = sizeof(DML_ELEMENT_WISE_CLIP_GRAD_OPERATOR_DESC),
    .fields = {FIELD(DML_ELEMENT_WISE_CLIP_GRAD_OPERATOR_DESC, InputTensor, InputTensor),
               FIELD(DML_ELEMENT_WISE_CLIP_GRAD_OPERATOR_DESC, InputGradientTensor, InputTensor),
               FIELD(DML_ELEMENT_WISE_CLIP_GRAD_OPERATOR_DESC, OutputGradientTensor, OutputTensor),
               FIELD(DML_ELEMENT_WISE_CLIP_GRAD_OPERATOR_DESC, Min, Float),
               FIELD(DML_ELEMENT_WISE_CLIP_GRAD_OPERATOR_DESC, Max, Float)},
    .supportsInPlaceExecution = true,
    .validate = [](const OperatorArgs& args) { return ValidateSameType(args, kNumeric); },
};

const OperatorSchema kClipGrad1{
    .type = DML_OPERATOR_ELEMENT_WISE_CLIP_GRAD1,
    .name = "ELEMENT_WISE_CLIP_GRAD1",
    .featureLevel = DML_FEATURE_LEVEL_5_0,
    .descSize = sizeof(DML_ELEMENT_WISE_CLIP_GRAD1_OPERATOR_DESC),
    .fields = {FIELD(DML_ELEMENT_WISE_CLIP_GRAD1_OPERATOR_DESC, InputTensor, InputTensor),
               FIELD(DML_ELEMENT_WISE_CLIP_GRAD1_OPERATOR_DESC, InputGradientTensor, InputTensor),
               FIELD(DML_ELEMENT_WISE_CLIP_GRAD1_OPERATOR_DESC, OutputGradientTensor, OutputTensor),
               FIELD(DML_ELEMENT_WISE_CLIP_GRAD1_OPERATOR_DESC, MinMaxDataType, Enum, .enumType = &TensorDataTypeEnum()),
               FIELD(DML_ELEMENT_WISE_CLIP_GRAD1_OPERATOR_DESC, Min, ScalarUnion, .typeField = "MinMaxDataType"),
               FIELD(DML_ELEMENT_WISE_CLIP_GRAD1_OPERATOR_DESC, Max, ScalarUnion, .typeField = "MinMaxDataType")},
    .supportsInPlaceExecution = true,
    .validate = [](const OperatorArgs& args) -> Status {
        FREEDML_TRY(ValidateSameType(args, kNumeric));
        return ValidateScalarType(args, "MinMaxDataType");
    },
};

// The tests write 0 or 1 into an unsigned output of their own type.
const OperatorSchema kIsNan{
    .type = DML_OPERATOR_ELEMENT_WISE_IS_NAN,
    .name = "ELEMENT_WISE_IS_NAN",
    .featureLevel = DML_FEATURE_LEVEL_2_0,
    .descSize = sizeof(DML_ELEMENT_WISE_IS_NAN_OPERATOR_DESC),
    .fields = {IN_OUT(DML_ELEMENT_WISE_IS_NAN_OPERATOR_DESC)},
    .validate = [](const OperatorArgs& args) { return ValidateTwoTypes(args, kFloat, kBoolean); },
};

const OperatorSchema kIsInfinity{
    .type = DML_OPERATOR_ELEMENT_WISE_IS_INFINITY,
    .name = "ELEMENT_WISE_IS_INFINITY",
    .featureLevel = DML_FEATURE_LEVEL_2_1,
    .descSize = sizeof(DML_ELEMENT_WISE_IS_INFINITY_OPERATOR_DESC),
    .fields = {IN_OUT(DML_ELEMENT_WISE_IS_INFINITY_OPERATOR_DESC),
               FIELD(DML_ELEMENT_WISE_IS_INFINITY_OPERATOR_DESC, InfinityMode, Enum, .enumType = &kInfinityMode)},
    .validate = [](const OperatorArgs& args) { return ValidateTwoTypes(args, kFloat, kUInt8); },
};

const OperatorSchema kBitCount{
    .type = DML_OPERATOR_ELEMENT_WISE_BIT_COUNT,
    .name = "ELEMENT_WISE_BIT_COUNT",
    .featureLevel = DML_FEATURE_LEVEL_3_0,
    .descSize = sizeof(DML_ELEMENT_WISE_BIT_COUNT_OPERATOR_DESC),
    .fields = {IN_OUT(DML_ELEMENT_WISE_BIT_COUNT_OPERATOR_DESC)},
    .validate = [](const OperatorArgs& args) { return ValidateTwoTypes(args, kAll, kBoolean); },
};

const OperatorSchema kCast{
    .type = DML_OPERATOR_CAST,
    .name = "CAST",
    .featureLevel = DML_FEATURE_LEVEL_1_0,
    .descSize = sizeof(DML_CAST_OPERATOR_DESC),
    .fields = {IN_OUT(DML_CAST_OPERATOR_DESC)},
    .validate = [](const OperatorArgs& args) { return ValidateTwoTypes(args, kAll, kAll); },
};

const OperatorSchema kFillValueConstant{
    .type = DML_OPERATOR_FILL_VALUE_CONSTANT,
    .name = "FILL_VALUE_CONSTANT",
    .featureLevel = DML_FEATURE_LEVEL_2_1,
    .descSize = sizeof(DML_FILL_VALUE_CONSTANT_OPERATOR_DESC),
    .fields = {FIELD(DML_FILL_VALUE_CONSTANT_OPERATOR_DESC, OutputTensor, OutputTensor),
               FIELD(DML_FILL_VALUE_CONSTANT_OPERATOR_DESC, ValueDataType, Enum, .enumType = &TensorDataTypeEnum()),
               FIELD(DML_FILL_VALUE_CONSTANT_OPERATOR_DESC, Value, ScalarUnion, .typeField = "ValueDataType")},
    .supportsInPlaceExecution = true,
    .validate = [](const OperatorArgs& args) -> Status {
        FREEDML_TRY(ValidateDataTypeIn(args, kAll));
        return ValidateScalarType(args, "ValueDataType");
    },
};

const OperatorSchema kFillValueSequence{
    .type = DML_OPERATOR_FILL_VALUE_SEQUENCE,
    .name = "FILL_VALUE_SEQUENCE",
    .featureLevel = DML_FEATURE_LEVEL_2_1,
    .descSize = sizeof(DML_FILL_VALUE_SEQUENCE_OPERATOR_DESC),
    .fields = {FIELD(DML_FILL_VALUE_SEQUENCE_OPERATOR_DESC, OutputTensor, OutputTensor),
               FIELD(DML_FILL_VALUE_SEQUENCE_OPERATOR_DESC, ValueDataType, Enum, .enumType = &TensorDataTypeEnum()),
               FIELD(DML_FILL_VALUE_SEQUENCE_OPERATOR_DESC, ValueStart, ScalarUnion, .typeField = "ValueDataType"),
               FIELD(DML_FILL_VALUE_SEQUENCE_OPERATOR_DESC, ValueDelta, ScalarUnion, .typeField = "ValueDataType")},
    .supportsInPlaceExecution = true,
    .validate = [](const OperatorArgs& args) -> Status {
        FREEDML_TRY(ValidateDataTypeIn(args, kNumeric));
        return ValidateScalarType(args, "ValueDataType");
    },
};

#undef SCALED_SCHEMA
#undef SAME_TYPE_SCHEMA
#undef SCALE_BIAS
#undef IN_OUT
#undef FIELD

// ELEMENT_WISE_IDENTITY: every type, FLOAT64 included (the reference page's list at the highest
// feature level).
constexpr std::initializer_list<DML_TENSOR_DATA_TYPE> kIdentityTypes = {
    DML_TENSOR_DATA_TYPE_FLOAT64, DML_TENSOR_DATA_TYPE_FLOAT32, DML_TENSOR_DATA_TYPE_FLOAT16,
    DML_TENSOR_DATA_TYPE_INT64,   DML_TENSOR_DATA_TYPE_INT32,   DML_TENSOR_DATA_TYPE_INT16,
    DML_TENSOR_DATA_TYPE_INT8,    DML_TENSOR_DATA_TYPE_UINT64,  DML_TENSOR_DATA_TYPE_UINT32,
    DML_TENSOR_DATA_TYPE_UINT16,  DML_TENSOR_DATA_TYPE_UINT8};
Status ValidateSameTypeAndSizes(const OperatorArgs& args, std::initializer_list<DML_TENSOR_DATA_TYPE> types) {
    FREEDML_TRY(ValidateDataTypeIn(args, types));
    FREEDML_TRY(ValidateSameDataType(args));
    return ValidateSameSizes(args);
}

Status ValidateIdentity(const OperatorArgs& args) { return ValidateSameTypeAndSizes(args, kIdentityTypes); }

const OperatorSchema kIdentity{
    .type = DML_OPERATOR_ELEMENT_WISE_IDENTITY,
    .name = "ELEMENT_WISE_IDENTITY",
    .featureLevel = DML_FEATURE_LEVEL_1_0,
    .descSize = sizeof(DML_ELEMENT_WISE_IDENTITY_OPERATOR_DESC),
    .fields = {DML_FIELD(DML_ELEMENT_WISE_IDENTITY_OPERATOR_DESC, InputTensor, InputTensor),
               DML_FIELD(DML_ELEMENT_WISE_IDENTITY_OPERATOR_DESC, OutputTensor, OutputTensor),
               DML_FIELD(DML_ELEMENT_WISE_IDENTITY_OPERATOR_DESC, ScaleBias, ScaleBias, .optional = true)},
    .supportsInPlaceExecution = true,
    .validate = ValidateIdentity,
};

const OperatorSchema* const kSchemas[] = {
    &kIdentity,
    &kABS,   &kACOS,  &kASIN,     &kATAN,      &kCEIL,     &kCLIP,        &kCOS,      &kEXP,
    &kFLOOR, &kLOG,   &kLOGICAL_NOT, &kCONSTANT_POW, &kRECIP, &kSIN,       &kSQRT,     &kTAN,
    &kTHRESHOLD, &kSIGN, &kERF,   &kSINH,      &kCOSH,     &kTANH,        &kASINH,    &kACOSH,
    &kATANH, &kROUND, &kBIT_NOT,  &kNEGATE,    &kClip1,    &kClipGrad,    &kClipGrad1, &kIsNan,
    &kIsInfinity, &kBitCount, &kCast, &kFillValueConstant, &kFillValueSequence,
};

}  // namespace

std::span<const OperatorSchema* const> ElementWiseUnarySchemas() { return kSchemas; }

}  // namespace freedml::dml
