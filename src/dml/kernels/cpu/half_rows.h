// Packed FLOAT16 rows computed in float with the conversions inside the row's own loop: chunks of
// kHalfChunk elements are widened with vcvtph2ps into a block that stays in registers or L1, the
// float body runs over the block, and vcvtps2ph rounds it back (to nearest even, as FloatToHalf),
// so a FLOAT16 row is one pass instead of three calls over separate buffers. The same float
// arithmetic as the FLOAT32 blocks of LoadFloats / StoreFloats, so the results are identical.
// Only for the instruction-set variants that have the conversions: the AVX-512 rows, and the
// AVX2+FMA rows where the CPU also has F16C (HasF16c); the baseline keeps the block path.
#pragma once

#include <cstddef>
#include <cstdint>

#include "dml/kernels/cpu/cpu_isa.h"
#include "dml/kernels/cpu/float16.h"

#ifdef FREEDML_CPU_X86_64
#include <immintrin.h>

#define FREEDML_TARGET_AVX2_FMA_F16C __attribute__((target("avx2,fma,f16c")))

namespace freedml::dml::cpu {

constexpr size_t kHalfChunk = 256;  // elements per chunk: sixteen AVX-512 or 32 AVX2 conversions

// body(block, count) transforms `count` packed floats in place; `out` may be `in`.
template <class Body>
[[gnu::always_inline]] FREEDML_TARGET_AVX512 inline void MapHalvesAvx512(const uint16_t* in, uint16_t* out, size_t n,
                                                                         Body&& body) {
    alignas(64) float block[kHalfChunk];
    size_t i = 0;
    for (; i + kHalfChunk <= n; i += kHalfChunk) {
        for (size_t j = 0; j < kHalfChunk; j += 16) {
            const __m256i h = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(in + i + j));
            // The masked forms with a zero source (float16.cpp says why).
            _mm512_store_ps(block + j, _mm512_mask_cvtph_ps(_mm512_setzero_ps(), 0xFFFF, h));
        }
        body(block, kHalfChunk);
        for (size_t j = 0; j < kHalfChunk; j += 16) {
            const __m256i h = _mm512_mask_cvtps_ph(_mm256_setzero_si256(), 0xFFFF, _mm512_load_ps(block + j),
                                                   _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
            _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + i + j), h);
        }
    }
    if (i < n) {
        ConvertHalfToFloat(in + i, block, n - i);
        body(block, n - i);
        ConvertFloatToHalf(block, out + i, n - i);
    }
}

template <class Body>
[[gnu::always_inline]] FREEDML_TARGET_AVX2_FMA_F16C inline void MapHalvesAvx2(const uint16_t* in, uint16_t* out,
                                                                              size_t n, Body&& body) {
    alignas(32) float block[kHalfChunk];
    size_t i = 0;
    for (; i + kHalfChunk <= n; i += kHalfChunk) {
        for (size_t j = 0; j < kHalfChunk; j += 8) {
            const __m128i h = _mm_loadu_si128(reinterpret_cast<const __m128i*>(in + i + j));
            _mm256_store_ps(block + j, _mm256_cvtph_ps(h));
        }
        body(block, kHalfChunk);
        for (size_t j = 0; j < kHalfChunk; j += 8) {
            const __m128i h = _mm256_cvtps_ph(_mm256_load_ps(block + j), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
            _mm_storeu_si128(reinterpret_cast<__m128i*>(out + i + j), h);
        }
    }
    if (i < n) {
        ConvertHalfToFloat(in + i, block, n - i);
        body(block, n - i);
        ConvertFloatToHalf(block, out + i, n - i);
    }
}

}  // namespace freedml::dml::cpu

#endif  // FREEDML_CPU_X86_64
