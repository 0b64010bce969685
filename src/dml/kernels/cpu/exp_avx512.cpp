#include "dml/kernels/cpu/float_rows.h"  // first: no contraction of the scale and bias into an FMA

#include "dml/kernels/cpu/exp_avx512.h"

#include <algorithm>
#include <cstdint>

#include "dml/kernels/cpu/vector_math.h"

#include "dml/kernels/cpu/avx512_intrinsics.h"

namespace freedml::dml::cpu {

#ifdef FREEDML_CPU_X86_64
namespace {

using E = vmath::ExpTraits<float>;

#define FREEDML_AVX512_INLINE [[gnu::always_inline]] inline FREEDML_TARGET_AVX512

// sum over n = kFrom..kTo of r^(n - kFrom) / n!, by Horner's rule in fused multiply-adds (the
// series of vector_math.h's TaylorOfExp, of the same degree).
template <int kFrom, int kTo>
FREEDML_AVX512_INLINE __m512 TaylorOfExp16(__m512 r) {
    if constexpr (kFrom == kTo) {
        return _mm512_set1_ps(float(vmath::InverseFactorial(kTo)));
    } else {
        return _mm512_fmadd_ps(TaylorOfExp16<kFrom + 1, kTo>(r), r,
                               _mm512_set1_ps(float(vmath::InverseFactorial(kFrom))));
    }
}

// e^x for 16 floats: x = k ln2 + r (ln2 in two parts, so that k * kLn2Hi is exact), |r| <= ln2/2,
// e^r by its Taylor series, p * 2^k by VSCALEFPS. The clamps keep NaN (VMINPS and VMAXPS return
// their second operand when either is NaN); at -104 the result rounds to 0 and at 89 it
// overflows to infinity, as the exact function does beyond them.
FREEDML_AVX512_INLINE __m512 Exp16(__m512 x) {
    x = _mm512_min_ps(_mm512_set1_ps(E::kHigh), x);
    x = _mm512_max_ps(_mm512_set1_ps(E::kLow), x);
    const __m512 k = _mm512_roundscale_ps(_mm512_mul_ps(x, _mm512_set1_ps(1.4426950408889634f)),
                                          _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    __m512 r = _mm512_fnmadd_ps(k, _mm512_set1_ps(E::kLn2Hi), x);
    r = _mm512_fnmadd_ps(k, _mm512_set1_ps(E::kLn2Lo), r);
    return _mm512_scalef_ps(TaylorOfExp16<0, E::kDegree>(r), k);
}

// The functions of the rows, as types that Map16 inlines (a lambda would not inherit the target).
struct ExpOf16 {
    FREEDML_AVX512_INLINE __m512 operator()(__m512 x) const { return Exp16(x); }
};

struct ScaledExpOf16 {
    __m512 scale, bias;
    FREEDML_AVX512_INLINE __m512 operator()(__m512 x) const {
        return Exp16(_mm512_add_ps(_mm512_mul_ps(x, scale), bias));
    }
};

struct SigmoidOf16 {
    FREEDML_AVX512_INLINE __m512 operator()(__m512 x) const {
        const __m512 one = _mm512_set1_ps(1.0f);
        return _mm512_div_ps(one, _mm512_add_ps(one, Exp16(_mm512_sub_ps(_mm512_setzero_ps(), x))));
    }
};

// p[0] z^(N-1) + ... + p[N-1] in fused multiply-adds (vector_math.h's Horner).
template <size_t kN, size_t kI = 1>
FREEDML_AVX512_INLINE __m512 Horner16(const float (&p)[kN], __m512 z, __m512 sum) {
    if constexpr (kI == kN) {
        return sum;
    } else {
        return Horner16<kN, kI + 1>(p, z, _mm512_fmadd_ps(sum, z, _mm512_set1_ps(p[kI])));
    }
}
template <size_t kN>
FREEDML_AVX512_INLINE __m512 Horner16(const float (&p)[kN], __m512 z) {
    return Horner16<kN, 1>(p, z, _mm512_set1_ps(p[0]));
}

// GeluF<true> for 16 floats, its polynomials and selects as they are, with three steps in fewer
// instructions: k rounded by VRNDSCALEPS and 2^k applied by VSCALEFPS (k >= -122, so the product
// is as exact as GeluF's two factors), and 1 / (2 + |x|) as VRCP14PS refined by one Newton step
// (relative error below 2^-27, where a division takes several times the cycles).
struct GeluOf16 {
    FREEDML_AVX512_INLINE __m512 operator()(__m512 x) const {
        using G = vmath::GeluFConstants;
        const __m512 v = _mm512_mul_ps(x, x);
        const __m512 central = _mm512_mul_ps(x, _mm512_fmadd_ps(x, Horner16(G::kCentral, v), _mm512_set1_ps(0.5f)));

        const __m512 a = _mm512_abs_ps(x);
        // VMINPS returns its second operand where either is NaN: a NaN x^2 stays NaN, as in GeluF.
        const __m512 w =
            _mm512_mul_ps(_mm512_min_ps(_mm512_set1_ps(G::kSquareAtMost), v), _mm512_set1_ps(G::kMinusHalfLog2e));
        const __m512 k = _mm512_roundscale_ps(w, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
        const __m512 gauss = _mm512_scalef_ps(Horner16(G::kTwoToThe, _mm512_sub_ps(w, k)), k);
        const __m512 d = _mm512_add_ps(a, _mm512_set1_ps(2.0f));
        const __m512 y = _mm512_rcp14_ps(d);
        const __m512 reciprocal = _mm512_fmadd_ps(y, _mm512_fnmadd_ps(d, y, _mm512_set1_ps(1.0f)), y);
        const __m512 s = _mm512_fmsub_ps(reciprocal, _mm512_set1_ps(G::kTailScale), _mm512_set1_ps(G::kTailShift));
        const __mmask16 beyond = _mm512_cmp_ps_mask(a, _mm512_set1_ps(G::kTailBeyond), _CMP_GT_OQ);
        const __m512 q = _mm512_maskz_mul_ps(__mmask16(~beyond), gauss, Horner16(G::kTail, s));
        const __m512 xq = _mm512_mul_ps(x, q);
        const __m512 upper = _mm512_mask_blend_ps(beyond, _mm512_sub_ps(x, xq), x);
        const __m512 tail = _mm512_mask_blend_ps(_mm512_cmp_ps_mask(x, _mm512_setzero_ps(), _CMP_LT_OQ), upper, xq);
        return _mm512_mask_blend_ps(_mm512_cmp_ps_mask(a, _mm512_set1_ps(G::kCentralBelow), _CMP_LT_OQ), tail, central);
    }
};

// out[i] = f(in[i]) sixteen at a time, the last few under a mask.
template <class F>
FREEDML_AVX512_INLINE void Map16(const float* in, float* out, size_t n, F f) {
    size_t i = 0;
    for (; i + 16 <= n; i += 16) _mm512_storeu_ps(out + i, f(_mm512_loadu_ps(in + i)));
    if (i < n) {
        const __mmask16 mask = __mmask16((1u << (n - i)) - 1);
        _mm512_mask_storeu_ps(out + i, mask, f(_mm512_maskz_loadu_ps(mask, in + i)));
    }
}

// How far ahead of the row Map16PastCaches asks for the input: 1 KiB, 16 lines. The hardware's
// own prefetch left these rows 20-30% below that on the machines measured (bench/analysis.md item 11).
constexpr size_t kPrefetchFloats = 1024 / sizeof(float);

// Map16 with the whole vectors from out's first 64-byte boundary on written by non-temporal stores
// (a masked ordinary store before it, Map16's tail after), then ordered by a fence; each input line
// prefetched kPrefetchFloats ahead.
template <class F>
FREEDML_AVX512_INLINE void Map16PastCaches(const float* in, float* out, size_t n, F f) {
    const size_t head = std::min(n, (size_t(0) - reinterpret_cast<uintptr_t>(out)) % 64 / sizeof(float));
    Map16(in, out, head, f);
    size_t i = head;
    for (; i + 16 <= n; i += 16) {
        if (i + kPrefetchFloats < n) _mm_prefetch(reinterpret_cast<const char*>(in + i + kPrefetchFloats), _MM_HINT_T0);
        _mm512_stream_ps(out + i, f(_mm512_loadu_ps(in + i)));
    }
    Map16(in + i, out + i, n - i, f);
    _mm_sfence();
}

template <class F>
FREEDML_AVX512_INLINE void MapRow(const float* in, float* out, size_t n, RowStores stores, F f) {
    if (stores == RowStores::kPastCaches && reinterpret_cast<uintptr_t>(out) % sizeof(float) == 0) {
        Map16PastCaches(in, out, n, f);
    } else {
        Map16(in, out, n, f);
    }
}

}  // namespace

FREEDML_TARGET_AVX512 void ExpRowAvx512(const float* in, float* out, size_t n, RowStores stores) {
    MapRow(in, out, n, stores, ExpOf16{});
}

FREEDML_TARGET_AVX512 void ExpRowAvx512(const float* in, float* out, size_t n, float scale, float bias,
                                        RowStores stores) {
    MapRow(in, out, n, stores, ScaledExpOf16{_mm512_set1_ps(scale), _mm512_set1_ps(bias)});
}

FREEDML_TARGET_AVX512 void SigmoidRowAvx512(const float* in, float* out, size_t n, RowStores stores) {
    MapRow(in, out, n, stores, SigmoidOf16{});
}

FREEDML_TARGET_AVX512 void GeluRowAvx512(const float* in, float* out, size_t n, RowStores stores) {
    MapRow(in, out, n, stores, GeluOf16{});
}
#endif

}  // namespace freedml::dml::cpu
