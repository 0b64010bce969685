// The activations GEMM, CONVOLUTION and ELEMENT_WISE_ADD1 accept as FusedActivation, applied in
// float after the operator's own math, and the standalone ACTIVATION_* operators' element-wise
// formulas (the same, plus SWISH and HARD_SWISH, which cannot be fused). Parameters are copied out
// of the application's desc. Packed floats run vectorized, on the CPU's widest instruction set.
#pragma once

#include <DirectML.h>

#include <cstddef>

#include "common/status.h"
#include "dml/kernels/cpu/tensor_view.h"

namespace freedml::dml::cpu {

// `type` DML_OPERATOR_INVALID means no activation. Parameters by type:
//   LINEAR, HARD_SIGMOID, SCALED_TANH, PARAMETRIC_SOFTPLUS: alpha = Alpha, beta = Beta
//   LEAKY_RELU, THRESHOLDED_RELU, ELU, CELU:                alpha = Alpha
//   SCALED_ELU:                                             alpha = Alpha, gamma = Gamma
//   SOFTPLUS:                                               alpha = Steepness
//   SHRINK:                                                 alpha = Bias, beta = Threshold
//   SWISH (standalone only):                                alpha = SigmoidInputScale
//   HARD_SWISH (standalone only):                           alpha = Alpha, beta = Beta
struct FusedActivation {
    DML_OPERATOR_TYPE type = DML_OPERATOR_INVALID;
    float alpha = 0.0f;
    float beta = 0.0f;
    float gamma = 0.0f;

    bool IsNone() const { return type == DML_OPERATOR_INVALID || type == DML_OPERATOR_ACTIVATION_IDENTITY; }
};

// Copies a FusedActivation desc (null means none). Refuses operator types outside the fused set.
Status MakeFusedActivation(const DML_OPERATOR_DESC* desc, FusedActivation* out);

// The activation of one value.
float ApplyActivation(const FusedActivation& activation, float x);

// out[i] = activation(in[i]) over `count` packed floats; `out` may be `in` (the type switch happens
// once, outside the loop).
void ApplyActivation(const FusedActivation& activation, const float* in, float* out, size_t count);

// In place over `count` packed floats.
void ApplyActivation(const FusedActivation& activation, float* values, size_t count);

// In place over a FLOAT32 or FLOAT16 tensor of any strides (the pass that follows a oneDNN
// primitive when oneDNN cannot express the activation as a post-op).
void ApplyActivation(const FusedActivation& activation, TensorView tensor);

const char* ActivationName(DML_OPERATOR_TYPE type);

}  // namespace freedml::dml::cpu
