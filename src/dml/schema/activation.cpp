// Activation operators. Here as the fused activations GEMM, CONVOLUTION and ADD1 accept; each is
// also a standalone operator, which FreeDML runs once the element-wise family's kernels arrive.
#include "dml/schema/families.h"

namespace freedml::dml {

namespace {

#define ACTIVATION_SCHEMA(NAME, LEVEL, ...)                                                        \
    const OperatorSchema k##NAME{                                                                  \
        .type = DML_OPERATOR_ACTIVATION_##NAME,                                                    \
        .name = "ACTIVATION_" #NAME,                                                               \
        .featureLevel = LEVEL,                                                                     \
        .descSize = sizeof(DML_ACTIVATION_##NAME##_OPERATOR_DESC),                                 \
        .fields = {DML_FIELD(DML_ACTIVATION_##NAME##_OPERATOR_DESC, InputTensor, InputTensor),     \
                   DML_FIELD(DML_ACTIVATION_##NAME##_OPERATOR_DESC, OutputTensor, OutputTensor) __VA_OPT__(, ) __VA_ARGS__}, \
        .supportsInPlaceExecution = true,                                                          \
        .canBeFusedActivation = true,                                                              \
    }
#define FLOAT_FIELD(NAME, member) DML_FIELD(DML_ACTIVATION_##NAME##_OPERATOR_DESC, member, Float)

ACTIVATION_SCHEMA(ELU, DML_FEATURE_LEVEL_1_0, FLOAT_FIELD(ELU, Alpha));
ACTIVATION_SCHEMA(HARD_SIGMOID, DML_FEATURE_LEVEL_1_0, FLOAT_FIELD(HARD_SIGMOID, Alpha), FLOAT_FIELD(HARD_SIGMOID, Beta));
ACTIVATION_SCHEMA(IDENTITY, DML_FEATURE_LEVEL_1_0);
ACTIVATION_SCHEMA(LEAKY_RELU, DML_FEATURE_LEVEL_1_0, FLOAT_FIELD(LEAKY_RELU, Alpha));
ACTIVATION_SCHEMA(LINEAR, DML_FEATURE_LEVEL_1_0, FLOAT_FIELD(LINEAR, Alpha), FLOAT_FIELD(LINEAR, Beta));
ACTIVATION_SCHEMA(PARAMETRIC_SOFTPLUS,
                  DML_FEATURE_LEVEL_1_0, FLOAT_FIELD(PARAMETRIC_SOFTPLUS, Alpha), FLOAT_FIELD(PARAMETRIC_SOFTPLUS, Beta));
ACTIVATION_SCHEMA(RELU, DML_FEATURE_LEVEL_1_0);
ACTIVATION_SCHEMA(SCALED_ELU, DML_FEATURE_LEVEL_1_0, FLOAT_FIELD(SCALED_ELU, Alpha), FLOAT_FIELD(SCALED_ELU, Gamma));
ACTIVATION_SCHEMA(SCALED_TANH, DML_FEATURE_LEVEL_1_0, FLOAT_FIELD(SCALED_TANH, Alpha), FLOAT_FIELD(SCALED_TANH, Beta));
ACTIVATION_SCHEMA(SIGMOID, DML_FEATURE_LEVEL_1_0);
ACTIVATION_SCHEMA(SOFTPLUS, DML_FEATURE_LEVEL_1_0, FLOAT_FIELD(SOFTPLUS, Steepness));
ACTIVATION_SCHEMA(SOFTSIGN, DML_FEATURE_LEVEL_1_0);
ACTIVATION_SCHEMA(TANH, DML_FEATURE_LEVEL_1_0);
ACTIVATION_SCHEMA(THRESHOLDED_RELU, DML_FEATURE_LEVEL_1_0, FLOAT_FIELD(THRESHOLDED_RELU, Alpha));
ACTIVATION_SCHEMA(SHRINK, DML_FEATURE_LEVEL_2_1, FLOAT_FIELD(SHRINK, Bias), FLOAT_FIELD(SHRINK, Threshold));
ACTIVATION_SCHEMA(CELU, DML_FEATURE_LEVEL_3_0, FLOAT_FIELD(CELU, Alpha));
ACTIVATION_SCHEMA(GELU, DML_FEATURE_LEVEL_5_1);

#undef FLOAT_FIELD
#undef ACTIVATION_SCHEMA

const OperatorSchema* const kSchemas[] = {
    &kELU,         &kHARD_SIGMOID, &kIDENTITY, &kLEAKY_RELU, &kLINEAR,  &kPARAMETRIC_SOFTPLUS,
    &kRELU,        &kSCALED_ELU,   &kSCALED_TANH, &kSIGMOID, &kSOFTPLUS, &kSOFTSIGN,
    &kTANH,        &kTHRESHOLDED_RELU, &kSHRINK, &kCELU,     &kGELU,
};

}  // namespace

std::span<const OperatorSchema* const> ActivationSchemas() { return kSchemas; }

}  // namespace freedml::dml
