// An activation's parameters, decoded once from its desc into the plain struct every backend
// reads: the CPU kernels (kernels/cpu/activation.h) apply it as it is, the CUDA kernels turn its
// type into their device enum. Fused activations (GEMM, CONVOLUTION, ELEMENT_WISE_ADD1 and the
// others' FusedActivation) and the standalone element-wise ACTIVATION_* operators share it.
#pragma once

#include <DirectML.h>

#include "common/status.h"

namespace freedml::dml {

// `type` DML_OPERATOR_INVALID means no activation. Parameters by type:
//   LINEAR, HARD_SIGMOID, SCALED_TANH, PARAMETRIC_SOFTPLUS: alpha = Alpha, beta = Beta
//   LEAKY_RELU, THRESHOLDED_RELU, ELU, CELU:                alpha = Alpha
//   SCALED_ELU:                                             alpha = Alpha, gamma = Gamma
//   SOFTPLUS:                                               alpha = Steepness
//   SHRINK:                                                 alpha = Bias, beta = Threshold
//   SWISH (standalone only):                                alpha = SigmoidInputScale
//   HARD_SWISH (standalone only):                           alpha = Alpha, beta = Beta
//   ELEMENT_WISE_CLIP (only as OperatorArgs' clampOutput):  alpha = Min, beta = Max;
//       max(Min, min(x, Max)), NaN stays NaN, as the standalone CLIP computes it
struct ActivationParams {
    DML_OPERATOR_TYPE type = DML_OPERATOR_INVALID;
    float alpha = 0.0f;
    float beta = 0.0f;
    float gamma = 0.0f;

    bool IsNone() const { return type == DML_OPERATOR_INVALID || type == DML_OPERATOR_ACTIVATION_IDENTITY; }
};

// A FusedActivation desc (null means none). Refuses operator types outside the fused set.
Status DecodeFusedActivation(const DML_OPERATOR_DESC* desc, ActivationParams* out);

// A standalone element-wise ACTIVATION_* operator of `type` whose desc is `desc` (SWISH and
// HARD_SWISH included; the parameters follow the tensor fields as in the fused form).
Status DecodeActivation(DML_OPERATOR_TYPE type, const void* desc, ActivationParams* out);

// "ACTIVATION_RELU", "none" for DML_OPERATOR_INVALID.
const char* ActivationName(DML_OPERATOR_TYPE type);

// The activation a kernel applies for `fused` (a FusedActivation desc, null for none) and the
// operator's clampOutput epilogue (schema.h), which replaces a null FusedActivation.
Status DecodeEpilogue(const DML_OPERATOR_DESC* fused, bool clampOutput, float clampMin, float clampMax,
                      ActivationParams* out);

}  // namespace freedml::dml
