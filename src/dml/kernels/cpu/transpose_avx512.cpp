#include "dml/kernels/cpu/transpose_avx512.h"

#include <algorithm>

#include "dml/kernels/cpu/avx512_intrinsics.h"

namespace freedml::dml::cpu {

#ifdef FREEDML_CPU_X86_64
namespace {

constexpr uint64_t kBlock = 64;  // a task's rows and columns: 16 KiB in, 16 KiB out

// The 16 x 16 block at `in` (row stride `inStride`) into `out` (row stride `outStride`), transposed:
// pairs, then quads (unpack), then 128-bit lanes and halves (shuffle_f32x4).
FREEDML_TARGET_AVX512 void Transpose16(const float* in, int64_t inStride, float* out, int64_t outStride) {
    __m512 r[16], t[16];
    for (int i = 0; i < 16; ++i) r[i] = _mm512_loadu_ps(in + i * inStride);
    for (int i = 0; i < 16; i += 2) {
        t[i] = _mm512_unpacklo_ps(r[i], r[i + 1]);
        t[i + 1] = _mm512_unpackhi_ps(r[i], r[i + 1]);
    }
    for (int i = 0; i < 16; i += 4) {
        for (int j = 0; j < 2; ++j) {
            r[i + j] = _mm512_castpd_ps(_mm512_unpacklo_pd(_mm512_castps_pd(t[i + j]), _mm512_castps_pd(t[i + j + 2])));
            r[i + j + 2] =
                _mm512_castpd_ps(_mm512_unpackhi_pd(_mm512_castps_pd(t[i + j]), _mm512_castps_pd(t[i + j + 2])));
        }
    }
    // r[4q + k] now holds, in each 128-bit lane L, column 4L + k' of rows 4q..4q+3 for its k.
    for (int i = 0; i < 16; i += 8) {
        for (int j = 0; j < 4; ++j) {
            t[i + j] = _mm512_shuffle_f32x4(r[i + j], r[i + j + 4], 0x88);
            t[i + j + 4] = _mm512_shuffle_f32x4(r[i + j], r[i + j + 4], 0xDD);
        }
    }
    for (int j = 0; j < 8; ++j) {
        r[j] = _mm512_shuffle_f32x4(t[j], t[j + 8], 0x88);
        r[j + 8] = _mm512_shuffle_f32x4(t[j], t[j + 8], 0xDD);
    }
    // Output row c is column c of the block: the rounds leave column c in r[order[c]].
    static constexpr int kOrder[16] = {0, 2, 1, 3, 4, 6, 5, 7, 8, 10, 9, 11, 12, 14, 13, 15};
    for (int c = 0; c < 16; ++c) _mm512_storeu_ps(out + c * outStride, r[kOrder[c]]);
}

// Rows [r0, r1) x columns [c0, c1) of one matrix.
FREEDML_TARGET_AVX512 void TransposeBlock(const float* in, float* out, uint64_t rows, uint64_t columns, uint64_t r0,
                                          uint64_t r1, uint64_t c0, uint64_t c1) {
    uint64_t r = r0;
    for (; r + 16 <= r1; r += 16) {
        uint64_t c = c0;
        for (; c + 16 <= c1; c += 16) {
            Transpose16(in + r * columns + c, int64_t(columns), out + c * rows + r, int64_t(rows));
        }
        for (; c < c1; ++c) {
            for (uint64_t i = r; i < r + 16; ++i) out[c * rows + i] = in[i * columns + c];
        }
    }
    for (; r < r1; ++r) {
        for (uint64_t c = c0; c < c1; ++c) out[c * rows + r] = in[r * columns + c];
    }
}

}  // namespace

void TransposeMatricesAvx512(const float* in, float* out, uint64_t batch, uint64_t rows, uint64_t columns,
                             const ParallelForFunction* parallelFor) {
    const uint64_t rowBlocks = (rows + kBlock - 1) / kBlock, columnBlocks = (columns + kBlock - 1) / kBlock;
    const uint64_t perMatrix = rowBlocks * columnBlocks;
    auto run = [&](uint64_t begin, uint64_t end) {
        for (uint64_t task = begin; task < end; ++task) {
            const uint64_t b = task / perMatrix, block = task % perMatrix;
            const uint64_t r0 = block / columnBlocks * kBlock, c0 = block % columnBlocks * kBlock;
            const uint64_t offset = b * rows * columns;
            TransposeBlock(in + offset, out + offset, rows, columns, r0, std::min(rows, r0 + kBlock), c0,
                           std::min(columns, c0 + kBlock));
        }
    };
    const uint64_t tasks = batch * perMatrix;
    if (parallelFor) {
        (*parallelFor)(tasks, 1, run);
    } else {
        run(0, tasks);
    }
}

#else  // not x86-64: callers check UseAvx512() first, so nothing reaches here.

void TransposeMatricesAvx512(const float*, float*, uint64_t, uint64_t, uint64_t, const ParallelForFunction*) {}

#endif

}  // namespace freedml::dml::cpu
