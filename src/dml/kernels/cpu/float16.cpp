#include "dml/kernels/cpu/float16.h"

#include "dml/kernels/cpu/cpu_isa.h"

#include <cstring>

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#include <immintrin.h>
#define FREEDML_X86 1
#endif

namespace freedml::dml::cpu {
namespace {

#ifdef FREEDML_X86
__attribute__((target("avx,f16c"))) void HalfToFloatF16c(const uint16_t* in, float* out, size_t count) {
    size_t i = 0;
    for (; i + 8 <= count; i += 8) {
        __m128i h = _mm_loadu_si128(reinterpret_cast<const __m128i*>(in + i));
        _mm256_storeu_ps(out + i, _mm256_cvtph_ps(h));
    }
    for (; i < count; ++i) out[i] = HalfToFloat(in[i]);
}

__attribute__((target("avx,f16c"))) void FloatToHalfF16c(const float* in, uint16_t* out, size_t count) {
    size_t i = 0;
    for (; i + 8 <= count; i += 8) {
        __m128i h = _mm256_cvtps_ph(_mm256_loadu_ps(in + i), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
        _mm_storeu_si128(reinterpret_cast<__m128i*>(out + i), h);
    }
    for (; i < count; ++i) out[i] = FloatToHalf(in[i]);
}

// Sixteen at a time where the CPU has AVX-512 (the F16C forms' tails finish the rows). The masked
// forms with a zero source: GCC 12 warns that the unmasked ones read an uninitialized register.
__attribute__((target("avx512f,avx,f16c"))) void HalfToFloatAvx512(const uint16_t* in, float* out, size_t count) {
    size_t i = 0;
    for (; i + 16 <= count; i += 16) {
        __m256i h = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(in + i));
        _mm512_storeu_ps(out + i, _mm512_mask_cvtph_ps(_mm512_setzero_ps(), 0xFFFF, h));
    }
    HalfToFloatF16c(in + i, out + i, count - i);
}

__attribute__((target("avx512f,avx,f16c"))) void FloatToHalfAvx512(const float* in, uint16_t* out, size_t count) {
    size_t i = 0;
    for (; i + 16 <= count; i += 16) {
        __m256i h = _mm512_mask_cvtps_ph(_mm256_setzero_si256(), 0xFFFF, _mm512_loadu_ps(in + i),
                                         _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
        _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + i), h);
    }
    FloatToHalfF16c(in + i, out + i, count - i);
}

#endif

}  // namespace

#ifdef FREEDML_X86
// CPUID leaf 1: F16C (ECX bit 29) and AVX (bit 28), usable only when the OS saves the YMM
// state (OSXSAVE, bit 27, and XCR0 bits 1 and 2).
bool HasF16c() {
    static const bool has = [] {
        unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
        if (!__get_cpuid(1, &eax, &ebx, &ecx, &edx)) return false;
        const bool f16c = ecx & (1u << 29), avx = ecx & (1u << 28), osxsave = ecx & (1u << 27);
        if (!f16c || !avx || !osxsave) return false;
        unsigned xcr0Low, xcr0High;
        __asm__("xgetbv" : "=a"(xcr0Low), "=d"(xcr0High) : "c"(0));
        return (xcr0Low & 6u) == 6u;
    }();
    return has;
}
#else
bool HasF16c() { return false; }
#endif

void ConvertHalfToFloat(const uint16_t* in, float* out, size_t count) {
#ifdef FREEDML_X86
    if (HasF16c() && UseAvx512()) return HalfToFloatAvx512(in, out, count);
    if (HasF16c()) return HalfToFloatF16c(in, out, count);
#endif
    for (size_t i = 0; i < count; ++i) out[i] = HalfToFloat(in[i]);
}

void ConvertFloatToHalf(const float* in, uint16_t* out, size_t count) {
#ifdef FREEDML_X86
    if (HasF16c() && UseAvx512()) return FloatToHalfAvx512(in, out, count);
    if (HasF16c()) return FloatToHalfF16c(in, out, count);
#endif
    for (size_t i = 0; i < count; ++i) out[i] = FloatToHalf(in[i]);
}

// Loads `n` elements (FLOAT32 or FLOAT16) at a byte stride into packed floats.
void LoadFloats(DML_TENSOR_DATA_TYPE type, const std::byte* p, int64_t stride, float* out, size_t n) {
    if (type == DML_TENSOR_DATA_TYPE_FLOAT32) {
        if (stride == 4) {
            std::memcpy(out, p, n * 4);
        } else {
            for (size_t i = 0; i < n; ++i) std::memcpy(&out[i], p + int64_t(i) * stride, 4);
        }
    } else if (stride == 2) {
        ConvertHalfToFloat(reinterpret_cast<const uint16_t*>(p), out, n);
    } else {
        for (size_t i = 0; i < n; ++i) {
            uint16_t h;
            std::memcpy(&h, p + int64_t(i) * stride, 2);
            out[i] = HalfToFloat(h);
        }
    }
}

void StoreFloats(DML_TENSOR_DATA_TYPE type, const float* in, std::byte* p, int64_t stride, size_t n) {
    if (type == DML_TENSOR_DATA_TYPE_FLOAT32) {
        if (stride == 4) {
            std::memcpy(p, in, n * 4);
        } else {
            for (size_t i = 0; i < n; ++i) std::memcpy(p + int64_t(i) * stride, &in[i], 4);
        }
    } else if (stride == 2) {
        ConvertFloatToHalf(in, reinterpret_cast<uint16_t*>(p), n);
    } else {
        for (size_t i = 0; i < n; ++i) {
            uint16_t h = FloatToHalf(in[i]);
            std::memcpy(p + int64_t(i) * stride, &h, 2);
        }
    }
}

}  // namespace freedml::dml::cpu
