#include "dml/kernels/cpu/streaming_store.h"

#include <algorithm>
#include <cstring>

#include "dml/kernels/cpu/cpu_isa.h"

#ifdef FREEDML_CPU_X86_64
#include <immintrin.h>
#endif

namespace freedml::dml::cpu {
namespace {

constexpr uint64_t kStreamThresholdBytes = uint64_t(32) << 20;

#ifdef FREEDML_CPU_X86_64
// The aligned middle of a copy, `bytes` a multiple of 64 and dst 64-byte aligned: one full line
// per step, so that each line's write-combining buffer fills at once.
FREEDML_TARGET_AVX512 void StreamLinesAvx512(const std::byte* src, std::byte* dst, size_t bytes) {
    for (size_t i = 0; i < bytes; i += 64) {
        _mm512_stream_si512(reinterpret_cast<__m512i*>(dst + i),
                            _mm512_loadu_si512(reinterpret_cast<const __m512i*>(src + i)));
    }
}

FREEDML_TARGET_AVX2_FMA void StreamLinesAvx2(const std::byte* src, std::byte* dst, size_t bytes) {
    for (size_t i = 0; i < bytes; i += 64) {
        const __m256i a = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(src + i));
        const __m256i b = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(src + i + 32));
        _mm256_stream_si256(reinterpret_cast<__m256i*>(dst + i), a);
        _mm256_stream_si256(reinterpret_cast<__m256i*>(dst + i + 32), b);
    }
}

void StreamLinesSse2(const std::byte* src, std::byte* dst, size_t bytes) {
    for (size_t i = 0; i < bytes; i += 64) {
        for (size_t k = 0; k < 64; k += 16) {
            _mm_stream_si128(reinterpret_cast<__m128i*>(dst + i + k),
                             _mm_loadu_si128(reinterpret_cast<const __m128i*>(src + i + k)));
        }
    }
}
#endif

}  // namespace

bool ShouldStreamOutput(uint64_t outputBytes) { return outputBytes >= kStreamThresholdBytes; }

void StreamCopy(const void* src, void* dst, size_t bytes) {
    auto* from = static_cast<const std::byte*>(src);
    auto* to = static_cast<std::byte*>(dst);
#ifdef FREEDML_CPU_X86_64
    // Ordinary stores up to dst's first line boundary and after its last; lines between.
    const size_t head = std::min(bytes, size_t(-reinterpret_cast<uintptr_t>(to) & 63));
    std::memcpy(to, from, head);
    const size_t lines = (bytes - head) & ~size_t(63);
    if (UseAvx512()) {
        StreamLinesAvx512(from + head, to + head, lines);
    } else if (UseAvx2Fma()) {
        StreamLinesAvx2(from + head, to + head, lines);
    } else {
        StreamLinesSse2(from + head, to + head, lines);
    }
    std::memcpy(to + head + lines, from + head + lines, bytes - head - lines);
#else
    std::memcpy(to, from, bytes);
#endif
}

void StreamFence() {
#ifdef FREEDML_CPU_X86_64
    _mm_sfence();
#endif
}

}  // namespace freedml::dml::cpu
