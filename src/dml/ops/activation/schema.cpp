// Activation operators (every DML_OPERATOR_ACTIVATION_* through feature level 6.4). The
// element-wise ones that DirectML lists as fusable are also accepted as the FusedActivation of
// GEMM, CONVOLUTION and ADD1 (with null tensors); the axis-based ones (softmax, log-softmax,
// hardmax) reduce over the last axis (original forms) or over a set of axes (the `1` forms).
#include <algorithm>

#include "dml/schema/families.h"

namespace freedml::dml {

namespace {

using Types = std::initializer_list<DML_TENSOR_DATA_TYPE>;

constexpr Types kFloatTypes = {DML_TENSOR_DATA_TYPE_FLOAT32, DML_TENSOR_DATA_TYPE_FLOAT16};
// RELU, PARAMETERIZED_RELU and RELU_GRAD from feature level 5.1.
constexpr Types kSignedTypes = {DML_TENSOR_DATA_TYPE_FLOAT32, DML_TENSOR_DATA_TYPE_FLOAT16,
                                DML_TENSOR_DATA_TYPE_INT32, DML_TENSOR_DATA_TYPE_INT16, DML_TENSOR_DATA_TYPE_INT8};
// SHRINK from feature level 5.1.
constexpr Types kShrinkTypes = {DML_TENSOR_DATA_TYPE_FLOAT32, DML_TENSOR_DATA_TYPE_FLOAT16,
                                DML_TENSOR_DATA_TYPE_INT32,   DML_TENSOR_DATA_TYPE_INT16,
                                DML_TENSOR_DATA_TYPE_INT8,    DML_TENSOR_DATA_TYPE_UINT32,
                                DML_TENSOR_DATA_TYPE_UINT16,  DML_TENSOR_DATA_TYPE_UINT8};

// Integer types arrived at 5.1; below it the operators take FLOAT32 and FLOAT16 only.
Status ValidateTypes(const OperatorArgs& args, Types wide) {
    if (args.featureLevel < DML_FEATURE_LEVEL_5_1) {
        const DML_TENSOR_DATA_TYPE type = args.outputs[0]->dataType;
        INVALID_IF(type != DML_TENSOR_DATA_TYPE_FLOAT32 && type != DML_TENSOR_DATA_TYPE_FLOAT16,
                   "%s has data type %s; DML_OPERATOR_%s takes integer types from feature level 0x5100 (the device "
                   "has 0x%x).",
                   args.outputNames[0].c_str(), DataTypeName(type), args.schema.name,
                   static_cast<unsigned>(args.featureLevel));
    }
    FREEDML_TRY(ValidateDataTypeIn(args, wide));
    FREEDML_TRY(ValidateSameDataType(args));
    return ValidateSameSizes(args);
}

Status ValidateFloat(const OperatorArgs& args) { return ValidateTypes(args, kFloatTypes); }
Status ValidateSigned(const OperatorArgs& args) { return ValidateTypes(args, kSignedTypes); }
Status ValidateShrink(const OperatorArgs& args) { return ValidateTypes(args, kShrinkTypes); }

Status ValidateSoftplus(const OperatorArgs& args) {
    FREEDML_TRY(ValidateFloat(args));
    const float steepness = args.As<DML_ACTIVATION_SOFTPLUS_OPERATOR_DESC>().Steepness;
    // Feature level 6.4 lifted the lower bound of 1; zero would divide by zero at any level.
    INVALID_IF(!(steepness >= 1.0f) && args.featureLevel < DML_FEATURE_LEVEL_6_4,
               "Steepness (%g) must be at least 1 below feature level 0x6400 (the device has 0x%x).",
               static_cast<double>(steepness), static_cast<unsigned>(args.featureLevel));
    INVALID_IF(steepness == 0.0f || steepness != steepness, "Steepness (%g) must be a nonzero number.",
               static_cast<double>(steepness));
    return {};
}

// SOFTMAX, LOG_SOFTMAX and HARDMAX (the original forms) work on the last axis of a tensor whose
// effective rank (DimensionCount less its leading 1s) is at most 2.
Status ValidateLastAxis(const OperatorArgs& args) {
    FREEDML_TRY(ValidateFloat(args));
    const TensorDesc& input = *args.inputs[0];
    uint32_t leadingOnes = 0;
    while (leadingOnes + 1 < input.rank && input.sizes[leadingOnes] == 1) ++leadingOnes;
    INVALID_IF(input.rank - leadingOnes > 2,
               "InputTensor has sizes %s, an effective rank of %u; DML_OPERATOR_%s takes at most 2 (leading sizes of 1 "
               "aside). Use the `1` form with Axes for other shapes.",
               SizesToString(input).c_str(), input.rank - leadingOnes, args.schema.name);
    return {};
}

// The `1` forms: AxisCount axes, each in [0, DimensionCount), none repeated.
template <class Desc>
Status ValidateAxes(const OperatorArgs& args) {
    FREEDML_TRY(ValidateFloat(args));
    const auto& desc = args.As<Desc>();
    const uint32_t rank = args.inputs[0]->rank;
    INVALID_IF(desc.AxisCount == 0 || desc.AxisCount > rank,
               "AxisCount (%u) must be 1 to InputTensor's DimensionCount (%u).", desc.AxisCount, rank);
    INVALID_IF(!desc.Axes, "Axes is null but AxisCount is %u.", desc.AxisCount);
    bool seen[kMaxTensorRank] = {};
    for (uint32_t i = 0; i < desc.AxisCount; ++i) {
        const uint32_t axis = desc.Axes[i];
        INVALID_IF(axis >= rank, "Axes[%u] (%u) is outside [0, %u), InputTensor's dimensions.", i, axis, rank);
        INVALID_IF(seen[axis], "Axes[%u] (%u) repeats an axis; each axis may appear once.", i, axis);
        seen[axis] = true;
    }
    return {};
}

// Element-wise activations with one input and one output, in place, optionally fusable.
#define UNARY_SCHEMA(NAME, LEVEL, FUSABLE, VALIDATE, ...)                                          \
    const OperatorSchema k##NAME{                                                                  \
        .type = DML_OPERATOR_ACTIVATION_##NAME,                                                    \
        .name = "ACTIVATION_" #NAME,                                                               \
        .featureLevel = LEVEL,                                                                     \
        .descSize = sizeof(DML_ACTIVATION_##NAME##_OPERATOR_DESC),                                 \
        .fields = {DML_FIELD(DML_ACTIVATION_##NAME##_OPERATOR_DESC, InputTensor, InputTensor),     \
                   DML_FIELD(DML_ACTIVATION_##NAME##_OPERATOR_DESC, OutputTensor, OutputTensor) __VA_OPT__(, ) __VA_ARGS__}, \
        .supportsInPlaceExecution = true,                                                          \
        .canBeFusedActivation = FUSABLE,                                                           \
        .validate = VALIDATE,                                                                      \
    }
#define FLOAT_FIELD(NAME, member) DML_FIELD(DML_ACTIVATION_##NAME##_OPERATOR_DESC, member, Float)

// Fusable: the list of DirectML's "fused activations" page, plus GELU, which DirectML accepts
// as a fused activation from 5.1.
UNARY_SCHEMA(ELU, DML_FEATURE_LEVEL_1_0, true, ValidateFloat, FLOAT_FIELD(ELU, Alpha));
UNARY_SCHEMA(HARD_SIGMOID, DML_FEATURE_LEVEL_1_0, true, ValidateFloat, FLOAT_FIELD(HARD_SIGMOID, Alpha),
             FLOAT_FIELD(HARD_SIGMOID, Beta));
UNARY_SCHEMA(IDENTITY, DML_FEATURE_LEVEL_1_0, true, ValidateFloat);
UNARY_SCHEMA(LEAKY_RELU, DML_FEATURE_LEVEL_1_0, true, ValidateFloat, FLOAT_FIELD(LEAKY_RELU, Alpha));
UNARY_SCHEMA(LINEAR, DML_FEATURE_LEVEL_1_0, true, ValidateFloat, FLOAT_FIELD(LINEAR, Alpha), FLOAT_FIELD(LINEAR, Beta));
UNARY_SCHEMA(PARAMETRIC_SOFTPLUS, DML_FEATURE_LEVEL_1_0, true, ValidateFloat,
             FLOAT_FIELD(PARAMETRIC_SOFTPLUS, Alpha), FLOAT_FIELD(PARAMETRIC_SOFTPLUS, Beta));
UNARY_SCHEMA(RELU, DML_FEATURE_LEVEL_1_0, true, ValidateSigned);
UNARY_SCHEMA(SCALED_ELU, DML_FEATURE_LEVEL_1_0, true, ValidateFloat, FLOAT_FIELD(SCALED_ELU, Alpha),
             FLOAT_FIELD(SCALED_ELU, Gamma));
UNARY_SCHEMA(SCALED_TANH, DML_FEATURE_LEVEL_1_0, true, ValidateFloat, FLOAT_FIELD(SCALED_TANH, Alpha),
             FLOAT_FIELD(SCALED_TANH, Beta));
UNARY_SCHEMA(SIGMOID, DML_FEATURE_LEVEL_1_0, true, ValidateFloat);
UNARY_SCHEMA(SOFTPLUS, DML_FEATURE_LEVEL_1_0, true, ValidateSoftplus, FLOAT_FIELD(SOFTPLUS, Steepness));
UNARY_SCHEMA(SOFTSIGN, DML_FEATURE_LEVEL_1_0, true, ValidateFloat);
UNARY_SCHEMA(TANH, DML_FEATURE_LEVEL_1_0, true, ValidateFloat);
UNARY_SCHEMA(THRESHOLDED_RELU, DML_FEATURE_LEVEL_1_0, true, ValidateFloat, FLOAT_FIELD(THRESHOLDED_RELU, Alpha));
UNARY_SCHEMA(SHRINK, DML_FEATURE_LEVEL_2_0, true, ValidateShrink, FLOAT_FIELD(SHRINK, Bias),
             FLOAT_FIELD(SHRINK, Threshold));
UNARY_SCHEMA(CELU, DML_FEATURE_LEVEL_3_0, true, ValidateFloat, FLOAT_FIELD(CELU, Alpha));
UNARY_SCHEMA(GELU, DML_FEATURE_LEVEL_5_1, true, ValidateFloat);
// Not fusable.
UNARY_SCHEMA(SWISH, DML_FEATURE_LEVEL_6_2, false, ValidateFloat, FLOAT_FIELD(SWISH, SigmoidInputScale));
UNARY_SCHEMA(HARD_SWISH, DML_FEATURE_LEVEL_6_2, false, ValidateFloat, FLOAT_FIELD(HARD_SWISH, Alpha),
             FLOAT_FIELD(HARD_SWISH, Beta));

#undef FLOAT_FIELD
#undef UNARY_SCHEMA

const OperatorSchema kParameterizedRelu{
    .type = DML_OPERATOR_ACTIVATION_PARAMETERIZED_RELU,
    .name = "ACTIVATION_PARAMETERIZED_RELU",
    .featureLevel = DML_FEATURE_LEVEL_1_0,
    .descSize = sizeof(DML_ACTIVATION_PARAMETERIZED_RELU_OPERATOR_DESC),
    .fields = {DML_FIELD(DML_ACTIVATION_PARAMETERIZED_RELU_OPERATOR_DESC, InputTensor, InputTensor),
               DML_FIELD(DML_ACTIVATION_PARAMETERIZED_RELU_OPERATOR_DESC, SlopeTensor, InputTensor),
               DML_FIELD(DML_ACTIVATION_PARAMETERIZED_RELU_OPERATOR_DESC, OutputTensor, OutputTensor)},
    .supportsInPlaceExecution = true,
    .validate = ValidateSigned,
};

const OperatorSchema kReluGrad{
    .type = DML_OPERATOR_ACTIVATION_RELU_GRAD,
    .name = "ACTIVATION_RELU_GRAD",
    .featureLevel = DML_FEATURE_LEVEL_3_0,
    .descSize = sizeof(DML_ACTIVATION_RELU_GRAD_OPERATOR_DESC),
    .fields = {DML_FIELD(DML_ACTIVATION_RELU_GRAD_OPERATOR_DESC, InputTensor, InputTensor),
               DML_FIELD(DML_ACTIVATION_RELU_GRAD_OPERATOR_DESC, InputGradientTensor, InputTensor),
               DML_FIELD(DML_ACTIVATION_RELU_GRAD_OPERATOR_DESC, OutputGradientTensor, OutputTensor)},
    .validate = ValidateSigned,
};

#define LAST_AXIS_SCHEMA(NAME)                                                                     \
    const OperatorSchema k##NAME{                                                                  \
        .type = DML_OPERATOR_ACTIVATION_##NAME,                                                    \
        .name = "ACTIVATION_" #NAME,                                                               \
        .featureLevel = DML_FEATURE_LEVEL_1_0,                                                     \
        .descSize = sizeof(DML_ACTIVATION_##NAME##_OPERATOR_DESC),                                 \
        .fields = {DML_FIELD(DML_ACTIVATION_##NAME##_OPERATOR_DESC, InputTensor, InputTensor),     \
                   DML_FIELD(DML_ACTIVATION_##NAME##_OPERATOR_DESC, OutputTensor, OutputTensor)},  \
        .validate = ValidateLastAxis,                                                              \
    }
#define AXES_SCHEMA(NAME)                                                                          \
    const OperatorSchema k##NAME{                                                                  \
        .type = DML_OPERATOR_ACTIVATION_##NAME,                                                    \
        .name = "ACTIVATION_" #NAME,                                                               \
        .featureLevel = DML_FEATURE_LEVEL_5_1,                                                     \
        .descSize = sizeof(DML_ACTIVATION_##NAME##_OPERATOR_DESC),                                 \
        .fields = {DML_FIELD(DML_ACTIVATION_##NAME##_OPERATOR_DESC, InputTensor, InputTensor),     \
                   DML_FIELD(DML_ACTIVATION_##NAME##_OPERATOR_DESC, OutputTensor, OutputTensor),   \
                   DML_FIELD(DML_ACTIVATION_##NAME##_OPERATOR_DESC, AxisCount, UInt),              \
                   DML_FIELD(DML_ACTIVATION_##NAME##_OPERATOR_DESC, Axes, UIntArray, .countField = "AxisCount")}, \
        .validate = ValidateAxes<DML_ACTIVATION_##NAME##_OPERATOR_DESC>,                           \
    }

LAST_AXIS_SCHEMA(SOFTMAX);
LAST_AXIS_SCHEMA(LOG_SOFTMAX);
LAST_AXIS_SCHEMA(HARDMAX);
AXES_SCHEMA(SOFTMAX1);
AXES_SCHEMA(LOG_SOFTMAX1);
AXES_SCHEMA(HARDMAX1);

#undef AXES_SCHEMA
#undef LAST_AXIS_SCHEMA

const OperatorSchema* const kSchemas[] = {
    &kELU,      &kHARDMAX,     &kHARD_SIGMOID, &kIDENTITY,   &kLEAKY_RELU,         &kLINEAR,
    &kLOG_SOFTMAX, &kParameterizedRelu, &kPARAMETRIC_SOFTPLUS, &kRELU, &kSCALED_ELU, &kSCALED_TANH,
    &kSIGMOID,  &kSOFTMAX,     &kSOFTPLUS,     &kSOFTSIGN,   &kTANH,               &kTHRESHOLDED_RELU,
    &kSHRINK,   &kCELU,        &kReluGrad,     &kGELU,       &kSOFTMAX1,           &kLOG_SOFTMAX1,
    &kHARDMAX1, &kSWISH,       &kHARD_SWISH,
};

}  // namespace

std::span<const OperatorSchema* const> ActivationSchemas() { return kSchemas; }

}  // namespace freedml::dml
