// What ADAM_OPTIMIZER computes, shared by the CPU kernel (cpu/adam_ops.cpp) and the CUDA kernel
// (cuda/adam_ops.cu) so that both backends give one answer. Plain C++ (no DirectML.h).
//
// The DML_ADAM_OPTIMIZER_OPERATOR_DESC page's computation, per element:
//     M' = Beta1 * M + (1 - Beta1) * G
//     V' = Beta2 * V + (1 - Beta2) * G * G
//     X' = X - LearningRate * Alpha * M' / (sqrt(V') + Epsilon)
// with the bias correction Alpha = sqrt(1 - Beta2^T) / (1 - Beta1^T) of the training step T,
// exactly as the page gives it (T is used as it is, not T + 1: at T = 0 Alpha is 0 / 0, NaN, and so
// are the parameters, as the formula says). Alpha is computed once per execution in double; the
// element arithmetic is in float (FLOAT16 tensors are read and written through float).
#pragma once

#include <cmath>

#ifdef __CUDACC__
#define FREEDML_ADAM_HD __host__ __device__ __forceinline__
#else
#define FREEDML_ADAM_HD inline
#endif

namespace freedml::dml::adam {

struct AdamParams {
    float learningRate = 0, beta1 = 0, beta2 = 0, epsilon = 0;
};

FREEDML_ADAM_HD double BiasCorrection(const AdamParams& p, double step) {
    return sqrt(1.0 - pow(double(p.beta2), step)) / (1.0 - pow(double(p.beta1), step));
}

// One element: reads x, m, v, g; writes the three results (the caller stores them, so an output
// may be the same memory as its input).
struct AdamResult {
    float x, m, v;
};
FREEDML_ADAM_HD AdamResult Step(const AdamParams& p, float scaledRate, float x, float m, float v, float g) {
    AdamResult r;
    r.m = p.beta1 * m + (1.0f - p.beta1) * g;
    r.v = p.beta2 * v + (1.0f - p.beta2) * g * g;
    r.x = x - scaledRate * r.m / (sqrtf(r.v) + p.epsilon);
    return r;
}

}  // namespace freedml::dml::adam
