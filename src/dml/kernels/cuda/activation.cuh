// One formula per activation, in the compute type (float for FLOAT32 and FLOAT16, double for
// FLOAT64): the formulas of the CPU kernels (kernels/cpu/activation.cpp and activation_ops.cpp).
// The fused epilogues (elementwise_ops.cu) and the standalone ACTIVATION_* operators
// (activation_ops.cu) both call Activate, so an activation computes the same wherever it runs.
#pragma once

#include <cuda_runtime.h>

#include "dml/kernels/cuda/ew_plan.h"

namespace freedml::dml::cuda {

// ln(1 + e^v) without overflow for large v or loss for very negative v.
template <class C>
__device__ __forceinline__ C Softplus(C v) {
    return (v > C(0) ? v : C(0)) + log1p(exp(-fabs(v)));
}

template <class C>
__device__ __forceinline__ C Activate(const ActParams& p, C x) {
    const C alpha = C(p.alpha), beta = C(p.beta), gamma = C(p.gamma);
    switch (p.act) {
        case Act::None: return x;
        case Act::Linear: return alpha * x + beta;
        case Act::Sigmoid: return C(1) / (C(1) + exp(-x));
        // fmin/fmax return the number when one side is NaN, as the CPU's std::min/std::max here.
        case Act::HardSigmoid: return fmin(C(1), fmax(C(0), alpha * x + beta));
        case Act::Tanh: return tanh(x);
        case Act::ScaledTanh: return alpha * tanh(beta * x);
        case Act::Relu: return x > C(0) ? x : C(0);
        case Act::LeakyRelu: return x >= C(0) ? x : alpha * x;
        case Act::ThresholdedRelu: return x > alpha ? x : C(0);
        case Act::Elu: return x > C(0) ? x : alpha * expm1(x);
        case Act::Celu: return fmax(C(0), x) + fmin(C(0), alpha * expm1(x / alpha));
        case Act::ScaledElu: return gamma * (x > C(0) ? x : alpha * expm1(x));
        case Act::Softplus: return Softplus(alpha * x) / alpha;
        case Act::ParametricSoftplus: return alpha * Softplus(beta * x);
        case Act::Softsign: return x / (C(1) + fabs(x));
        case Act::Shrink: return x > beta ? x - alpha : (x < -beta ? x + alpha : C(0));
        // erfc keeps the relative accuracy for negative x, where 1 + erf(x) would cancel.
        case Act::Gelu: return C(0.5) * x * erfc(-x * C(0.70710678118654752));
        case Act::Swish: {
            // sigmoid(t) from e^-|t|, which never overflows.
            const C t = alpha * x;
            const C e = exp(-fabs(t));
            return x * ((t >= C(0) ? C(1) : e) / (C(1) + e));
        }
        // A NaN x clamps to 0 inside and stays NaN through the product.
        case Act::HardSwish: return x * fmin(C(1), fmax(C(0), alpha * x + beta));
        // The standalone CLIP's order: Min wins when Min > Max; NaN stays NaN.
        case Act::Clip: {
            const C t = x > beta ? beta : x;
            return t < alpha ? alpha : t;
        }
    }
    return x;
}

}  // namespace freedml::dml::cuda
