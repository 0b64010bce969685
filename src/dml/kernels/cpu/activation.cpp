// The fused activations, applied over blocks of packed floats. Every formula lives in
// ActivationBody, compiled once per instruction set (baseline x86-64, AVX2+FMA and AVX-512,
// cpu_isa.h) and picked at run time; the exponential family (SIGMOID, TANH, ELU, SOFTPLUS, SWISH...) computes
// through vector_math.h, so each loop vectorizes: SIGMOID and TANH in float, the others in double,
// rounded once. SIGMOID's and GELU's FLOAT32 rows on AVX-512 are exp_avx512.h's.
#include "dml/kernels/cpu/float_rows.h"  // first: vectorization and FP settings of this file

#include "dml/kernels/cpu/activation.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "dml/kernels/cpu/cpu_isa.h"
#include "dml/kernels/cpu/exp_avx512.h"
#include "dml/kernels/cpu/float16.h"
#include "dml/kernels/cpu/half_rows.h"
#include "dml/kernels/cpu/thread_pool.h"
#include "dml/kernels/cpu/vector_math.h"

namespace freedml::dml::cpu {
namespace {

template <class Desc>
const Desc& As(const DML_OPERATOR_DESC* desc) {
    return *static_cast<const Desc*>(desc->Desc);
}

// out[i] = f(in[i]); `out` may be `in` (the vectorized loop is right for either).
template <class F>
[[gnu::always_inline]] inline void Map(const float* in, float* out, size_t count, F f) {
    for (size_t i = 0; i < count; ++i) out[i] = f(in[i]);
}

// Every activation over `n` packed floats. Parameters that scale a double computation are widened
// once; SOFTPLUS and PARAMETRIC_SOFTPLUS scale x in float first, as their formulas do. kHalf: the
// results are rounded to FLOAT16 afterwards, which the cheaper forms of SIGMOID, TANH and GELU serve.
// kFma: the rows for CPUs with fused multiply-adds, which GELU's polynomials use (vector_math.h).
template <bool kHalf, bool kFma>
[[gnu::always_inline]] inline void ActivationBody(const FusedActivation& a, const float* in, float* v, size_t n) {
    const float alpha = a.alpha, beta = a.beta;
    const double alphaD = a.alpha, betaD = a.beta, gammaD = a.gamma;
    switch (a.type) {
        case DML_OPERATOR_ACTIVATION_LINEAR:
            return Map(in, v, n, [=](float x) { return alpha * x + beta; });
        case DML_OPERATOR_ACTIVATION_SIGMOID:
            if constexpr (kHalf) return Map(in, v, n, [](float x) { return vmath::SigmoidH(x); });
            return Map(in, v, n, [](float x) { return vmath::SigmoidF(x); });
        case DML_OPERATOR_ACTIVATION_HARD_SIGMOID:
            return Map(in, v, n, [=](float x) { return std::min(1.0f, std::max(0.0f, alpha * x + beta)); });
        case DML_OPERATOR_ACTIVATION_TANH:
            if constexpr (kHalf) return Map(in, v, n, [](float x) { return vmath::TanhH(x); });
            return Map(in, v, n, [](float x) { return vmath::TanhF(x); });
        case DML_OPERATOR_ACTIVATION_SCALED_TANH:
            return Map(in, v, n, [=](float x) { return float(alphaD * vmath::Tanh(betaD * x)); });
        case DML_OPERATOR_ACTIVATION_RELU:
            return Map(in, v, n, [](float x) { return x > 0.0f ? x : 0.0f; });
        case DML_OPERATOR_ACTIVATION_LEAKY_RELU:
            return Map(in, v, n, [=](float x) { return x >= 0.0f ? x : alpha * x; });
        case DML_OPERATOR_ACTIVATION_THRESHOLDED_RELU:
            return Map(in, v, n, [=](float x) { return x > alpha ? x : 0.0f; });
        case DML_OPERATOR_ACTIVATION_ELU:
            return Map(in, v, n, [=](float x) { return x > 0.0f ? x : float(alphaD * vmath::Expm1(x)); });
        case DML_OPERATOR_ACTIVATION_CELU:
            // max(0, x) + min(0, alpha (e^(x/alpha) - 1)), both clamps as selects (NaN gives 0).
            return Map(in, v, n, [=](float x) {
                const double t = alphaD * vmath::Expm1(double(x) / alphaD);
                return float((x > 0.0f ? double(x) : 0.0) + (t < 0.0 ? t : 0.0));
            });
        case DML_OPERATOR_ACTIVATION_SCALED_ELU:
            return Map(in, v, n, [=](float x) { return float(gammaD * (x > 0.0f ? double(x) : alphaD * vmath::Expm1(x))); });
        case DML_OPERATOR_ACTIVATION_SOFTPLUS:
            return Map(in, v, n, [=](float x) { return float(vmath::Softplus(alpha * x) / alphaD); });
        case DML_OPERATOR_ACTIVATION_PARAMETRIC_SOFTPLUS:
            return Map(in, v, n, [=](float x) { return float(alphaD * vmath::Softplus(beta * x)); });
        case DML_OPERATOR_ACTIVATION_SOFTSIGN:
            return Map(in, v, n, [](float x) { return x / (1.0f + std::fabs(x)); });
        case DML_OPERATOR_ACTIVATION_SHRINK:
            return Map(in, v, n, [=](float x) { return x > beta ? x - alpha : (x < -beta ? x + alpha : 0.0f); });
        case DML_OPERATOR_ACTIVATION_GELU:
            // 0.5 x (1 + erf(x / sqrt 2)), keeping its relative accuracy for negative x (vector_math.h).
            if constexpr (kHalf) return Map(in, v, n, [](float x) { return vmath::GeluH<kFma>(x); });
            return Map(in, v, n, [](float x) { return vmath::GeluF<kFma>(x); });
        case DML_OPERATOR_ACTIVATION_SWISH:
            // x * sigmoid(alpha x): -inf gives -inf * 0 = NaN, as the formula does.
            return Map(in, v, n, [=](float x) { return float(double(x) * vmath::Sigmoid(alphaD * x)); });
        case DML_OPERATOR_ACTIVATION_HARD_SWISH:
            // HardSigmoid clamps like D3D's min/max: a NaN argument gives 0, x * 0 keeps NaN.
            return Map(in, v, n, [=](float x) { return x * std::min(1.0f, std::max(0.0f, alpha * x + beta)); });
        case DML_OPERATOR_ELEMENT_WISE_CLIP:
            // The standalone CLIP's order: Min wins when Min > Max; NaN stays NaN.
            return Map(in, v, n, [=](float x) {
                const float t = x > beta ? beta : x;
                return t < alpha ? alpha : t;
            });
        default:  // none / IDENTITY
            if (in != v) std::memcpy(v, in, n * sizeof(float));
            return;
    }
}

// flatten: every formula inlined into its loop, however large (GELU's, SOFTPLUS's), so that the
// loop vectorizes in this function's instruction set instead of calling a scalar baseline copy.
template <bool kHalf>
[[gnu::flatten]] void ActivationBaseline(const FusedActivation& a, const float* in, float* out, size_t n) {
    ActivationBody<kHalf, false>(a, in, out, n);
}

#ifdef FREEDML_CPU_X86_64
template <bool kHalf>
[[gnu::flatten]] FREEDML_TARGET_AVX2_FMA void ActivationAvx2(const FusedActivation& a, const float* in, float* out,
                                                             size_t n) {
    ActivationBody<kHalf, true>(a, in, out, n);
}

template <bool kHalf>
[[gnu::flatten]] FREEDML_TARGET_AVX512 void ActivationAvx512(const FusedActivation& a, const float* in, float* out,
                                                             size_t n) {
    ActivationBody<kHalf, true>(a, in, out, n);
}

// FLOAT16 rows with the conversions in the loop (half_rows.h), computed as ActivationBody<true, true>.
[[gnu::flatten]] FREEDML_TARGET_AVX512 void ActivationHalvesAvx512(const FusedActivation& a, const uint16_t* in,
                                                                   uint16_t* out, size_t n) {
    MapHalvesAvx512(in, out, n, [&](float* v, size_t m) { ActivationBody<true, true>(a, v, v, m); });
}

[[gnu::flatten]] FREEDML_TARGET_AVX2_FMA_F16C void ActivationHalvesAvx2(const FusedActivation& a, const uint16_t* in,
                                                                        uint16_t* out, size_t n) {
    MapHalvesAvx2(in, out, n, [&](float* v, size_t m) { ActivationBody<true, true>(a, v, v, m); });
}
#endif

#ifdef FREEDML_CPU_X86_64
// The FLOAT32 row of exp_avx512.h for an activation: SIGMOID's and GELU's where the CPU has
// AVX-512, null otherwise (their FLOAT16 forms keep SigmoidH and GeluH).
using IntrinsicsRow = void (*)(const float* in, float* out, size_t n, RowStores stores);
IntrinsicsRow IntrinsicsRowFor(const FusedActivation& a) {
    if (!UseAvx512()) return nullptr;
    if (a.type == DML_OPERATOR_ACTIVATION_SIGMOID) return SigmoidRowAvx512;
    if (a.type == DML_OPERATOR_ACTIVATION_GELU) return GeluRowAvx512;
    return nullptr;
}
#endif

template <bool kHalf>
void ApplyActivationRow(const FusedActivation& a, const float* in, float* out, size_t n) {
#ifdef FREEDML_CPU_X86_64
    if (UseAvx512()) {
        if (!kHalf) {
            if (const IntrinsicsRow row = IntrinsicsRowFor(a)) return row(in, out, n, RowStores::kCached);
        }
        return ActivationAvx512<kHalf>(a, in, out, n);
    }
    if (UseAvx2Fma()) return ActivationAvx2<kHalf>(a, in, out, n);
#endif
    ActivationBaseline<kHalf>(a, in, out, n);
}

}  // namespace

float ApplyActivation(const FusedActivation& a, float x) {
    float v = x;
    ApplyActivation(a, &v, 1);
    return v;
}

void ApplyActivation(const FusedActivation& a, const float* in, float* out, size_t n) {
    ApplyActivationRow<false>(a, in, out, n);
}

void ApplyActivation(const FusedActivation& a, float* v, size_t n) { ApplyActivation(a, v, v, n); }

bool ApplyActivationPastCaches(const FusedActivation& a, const float* in, float* out, size_t n) {
#ifdef FREEDML_CPU_X86_64
    if (const IntrinsicsRow row = IntrinsicsRowFor(a)) {
        row(in, out, n, RowStores::kPastCaches);
        return true;
    }
#endif
    (void)a, (void)in, (void)out, (void)n;
    return false;
}

void ApplyActivationForHalf(const FusedActivation& a, float* v, size_t n) { ApplyActivationRow<true>(a, v, v, n); }

bool ApplyActivationToHalves(const FusedActivation& a, const uint16_t* in, uint16_t* out, size_t n) {
#ifdef FREEDML_CPU_X86_64
    if (HasF16c() && UseAvx512()) {
        ActivationHalvesAvx512(a, in, out, n);
        return true;
    }
    if (HasF16c() && UseAvx2Fma()) {
        ActivationHalvesAvx2(a, in, out, n);
        return true;
    }
#endif
    (void)a, (void)in, (void)out, (void)n;
    return false;
}

void ApplyActivation(ThreadPool* threads, const FusedActivation& activation, TensorView tensor) {
    ApplyActivationOn(OnPool(threads), activation, tensor, 1u << 13);
}

void ApplyActivationOn(const ParallelForFunction& parallelFor, const FusedActivation& activation, TensorView tensor,
                       uint64_t minElementsPerChunk) {
    if (activation.IsNone()) return;
    const TensorDesc& desc = tensor.Desc();
    const uint32_t size = ElementSizeInBytes(desc.dataType);
    auto plan = MakeLoopPlan<1>(desc.sizes.data(), desc.rank, {desc.strides.data()}, {size});
    ParallelLoopOn(
        parallelFor, plan, {tensor.data},
        [&](const std::array<std::byte*, 1>& p, uint64_t n, const std::array<int64_t, 1>& s) {
            if (desc.dataType == DML_TENSOR_DATA_TYPE_FLOAT32 && s[0] == 4) {
                ApplyActivation(activation, reinterpret_cast<float*>(p[0]), n);
                return;
            }
            float block[256];
            for (uint64_t i = 0; i < n; i += 256) {
                size_t m = size_t(std::min<uint64_t>(256, n - i));
                LoadFloats(desc.dataType, p[0] + int64_t(i) * s[0], s[0], block, m);
                if (desc.dataType == DML_TENSOR_DATA_TYPE_FLOAT16) {
                    ApplyActivationForHalf(activation, block, m);
                } else {
                    ApplyActivation(activation, block, m);
                }
                StoreFloats(desc.dataType, block, p[0] + int64_t(i) * s[0], s[0], m);
            }
        },
        minElementsPerChunk);
}

}  // namespace freedml::dml::cpu
