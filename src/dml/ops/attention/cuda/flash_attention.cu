// The tiled FLOAT16 attention kernel (flash-attention class: no score matrix in global memory)
// for the common self-attention shapes on devices before sm_80 (flash_attention_sm80.cu serves the
// later ones): head sizes 64 and 128, no bias and no past keys. Tensor
// cores (WMMA, FLOAT16 in, float accumulate) compute the scores and the weighted sums.
//
// One block of four warps takes 64 query rows of one (batch, head), 16 rows a warp, and walks the
// keys in tiles of 32 twice: the first walk finds each row's maximum score and the sum of its
// exponentials, the second forms the weights e^(s - max) (rounded to FLOAT16 for the tensor
// cores, as flash-attention kernels do) and accumulates weights x values in the warp's fragments;
// the sum divides once at the end. Walking twice computes Q.K^T twice but keeps the accumulators
// in fragments, whose element layout WMMA does not define, so no per-row rescaling is needed.
// Masks (every MaskType) and RelativePositionBias apply per score as the general kernel does.
#include <cuda_fp16.h>
#include <mma.h>

#include <cmath>
#include <cstdint>

#include "dml/ops/attention/cuda/attention_plan.h"

namespace freedml::dml::cuda {
namespace {

using namespace nvcuda;

constexpr int kWarps = 4;
constexpr int kRows = 16 * kWarps;  // query rows per block
constexpr int kKeys = 32;           // keys per tile
constexpr int kFlashThreads = 32 * kWarps;

template <int D>
constexpr size_t FlashSharedBytes() {
    // Q {64, D}, K and V tiles {32, D}, per warp weights {16, 32} (FLOAT16) and scores {16, 32}
    // (float), per warp row sums {16}.
    return sizeof(__half) * (kRows * D + 2 * kKeys * D + kWarps * 16 * kKeys) +
           sizeof(float) * (kWarps * 16 * kKeys + kWarps * 16);
}

// Rows of one operand into shared memory (row-major, D halves a row; rows past `count` are zero):
// 16 bytes a load where the channels are packed and every row starts 16-byte aligned, else one
// element a load.
template <int D>
__device__ void LoadTile(__half* dst, const __half* base, int64_t rowStride, int64_t channelStride, uint32_t first,
                         uint32_t rows, uint32_t count) {
    if (channelStride == 1 && rowStride % 8 == 0 && reinterpret_cast<uintptr_t>(base) % 16 == 0) {
        for (uint32_t e = threadIdx.x; e < rows * (D / 8); e += kFlashThreads) {
            const uint32_t r = e / (D / 8), d = e % (D / 8) * 8;
            uint4 v = make_uint4(0, 0, 0, 0);
            if (first + r < count) v = *reinterpret_cast<const uint4*>(base + int64_t(first + r) * rowStride + d);
            *reinterpret_cast<uint4*>(dst + r * D + d) = v;
        }
        return;
    }
    for (uint32_t e = threadIdx.x; e < rows * D; e += kFlashThreads) {
        const uint32_t r = e / D, d = e % D;
        dst[e] = first + r < count ? base[int64_t(first + r) * rowStride + int64_t(d) * channelStride] : __float2half(0.0f);
    }
}

// The score of (query i, key j) from the product in `raw`: scaled, biased and masked. Keys past
// the sequence score -inf (they weigh nothing); a query row past the sequence scores 0.
__device__ float Score(const AttentionPlan& p, const AttentionPointers& ptr, float raw, uint32_t b, uint32_t h,
                       uint32_t i, uint32_t j, int64_t lo, int64_t hi) {
    if (j >= p.keyValueSequence) return -INFINITY;
    if (i >= p.querySequence) return 0.0f;
    float s = raw * p.scale;
    if (p.hasRelativePositionBias) {
        const int64_t* r = p.positionBiasStrides;
        s += __half2float(static_cast<const __half*>(ptr.inputs[8])[b * r[0] + h * r[1] + i * r[2] + j * r[3]]);
    }
    bool masked = false;
    if (p.hasMask && p.maskType == 4) {  // BOOLEAN
        const int64_t* m = p.maskStrides;
        masked = static_cast<const int32_t*>(ptr.inputs[7])[b * m[0] + h * m[1] + i * m[2] + j * m[3]] == 0;
    } else if (p.hasMask) {
        masked = int64_t(j) < lo || int64_t(j) >= hi;
    }
    return masked ? s + p.maskFilterValue : s;
}

// The warp's 16 x 32 raw scores Q.K^T of the current key tile into `scores` (row-major).
template <int D>
__device__ void TileScores(const __half* q, const __half* k, float* scores) {
    for (int n = 0; n < kKeys / 16; ++n) {
        wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc;
        wmma::fill_fragment(acc, 0.0f);
        for (int kk = 0; kk < D / 16; ++kk) {
            wmma::fragment<wmma::matrix_a, 16, 16, 16, __half, wmma::row_major> a;
            wmma::fragment<wmma::matrix_b, 16, 16, 16, __half, wmma::col_major> bk;  // K^T: K rows are its columns
            wmma::load_matrix_sync(a, q + kk * 16, D);
            wmma::load_matrix_sync(bk, k + n * 16 * D + kk * 16, D);
            wmma::mma_sync(acc, a, bk, acc);
        }
        wmma::store_matrix_sync(scores + n * 16, acc, kKeys, wmma::mem_row_major);
    }
    __syncwarp();
}

template <int D>
__global__ void __launch_bounds__(kFlashThreads) FlashAttend(AttentionPlan p, AttentionPointers ptr) {
    extern __shared__ __align__(32) unsigned char sharedBytes[];
    __half* qs = reinterpret_cast<__half*>(sharedBytes);
    __half* ks = qs + kRows * D;
    __half* vs = ks + kKeys * D;
    __half* ps = vs + kKeys * D;
    float* ss = reinterpret_cast<float*>(ps + kWarps * 16 * kKeys);
    float* sums = ss + kWarps * 16 * kKeys;
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    __half* pw = ps + warp * 16 * kKeys;
    float* sw = ss + warp * 16 * kKeys;

    const uint32_t blocksPerHead = (p.querySequence + kRows - 1) / kRows;
    const uint32_t first = (blockIdx.x % blocksPerHead) * kRows;
    const uint32_t h = blockIdx.x / blocksPerHead % p.queryHeads;
    const uint32_t b = blockIdx.x / blocksPerHead / p.queryHeads;
    const uint32_t kh = h / (p.queryHeads / p.keyValueHeads);
    const __half* q = static_cast<const __half*>(ptr.inputs[p.query.input]) + p.query.offset + b * p.query.batch +
                      h * p.query.head;
    const __half* k = static_cast<const __half*>(ptr.inputs[p.key.input]) + p.key.offset + b * p.key.batch +
                      kh * p.key.head;
    const __half* v = static_cast<const __half*>(ptr.inputs[p.value.input]) + p.value.offset + b * p.value.batch +
                      kh * p.value.head;
    int64_t lo = 0, hi = p.keyValueSequence;
    if (p.hasMask && (p.maskType == 1 || p.maskType == 3)) {  // KEY_SEQUENCE_LENGTH, KEY_QUERY_..._START_END
        hi = static_cast<const int32_t*>(ptr.inputs[7])[b * p.maskStrides[3]];
    } else if (p.hasMask && p.maskType == 2) {  // KEY_SEQUENCE_END_START
        hi = static_cast<const int32_t*>(ptr.inputs[7])[b * p.maskStrides[3]];
        lo = static_cast<const int32_t*>(ptr.inputs[7])[p.maskStrides[2] + b * p.maskStrides[3]];
    }
    LoadTile<D>(qs, q, p.query.position, p.query.channel, first, kRows, p.querySequence);
    const __half* qw = qs + warp * 16 * D;
    // Each row belongs to two lanes, 16 of the tile's 32 keys each.
    const uint32_t row = lane / 2, column0 = (lane % 2) * 16;
    const uint32_t i = first + warp * 16 + row;

    // Walk 1: the row's maximum and sum of exponentials (per lane, merged at the end).
    float maximum = -INFINITY, sum = 0.0f;
    for (uint32_t tile = 0; tile < p.keyValueSequence; tile += kKeys) {
        __syncthreads();  // every warp is done with the previous tile (and Q is in place)
        LoadTile<D>(ks, k, p.key.position, p.key.channel, tile, kKeys, p.keyValueSequence);
        __syncthreads();
        TileScores<D>(qw, ks, sw);
        float s[16], tileMax = -INFINITY;
        for (int c = 0; c < 16; ++c) {
            s[c] = Score(p, ptr, sw[row * kKeys + column0 + c], b, h, i, tile + column0 + c, lo, hi);
            tileMax = fmaxf(tileMax, s[c]);
        }
        if (tileMax == -INFINITY) continue;  // nothing of this lane's keys counts
        const float next = fmaxf(maximum, tileMax);
        sum = maximum == -INFINITY ? 0.0f : sum * __expf(maximum - next);
        for (int c = 0; c < 16; ++c) sum += __expf(s[c] - next);
        maximum = next;
    }
    {
        const float otherMax = __shfl_xor_sync(0xffffffffu, maximum, 1);
        const float otherSum = __shfl_xor_sync(0xffffffffu, sum, 1);
        const float m = fmaxf(maximum, otherMax);
        sum = (maximum == -INFINITY ? 0.0f : sum * __expf(maximum - m)) +
              (otherMax == -INFINITY ? 0.0f : otherSum * __expf(otherMax - m));
        maximum = m;
        if (lane % 2 == 0) sums[warp * 16 + row] = sum;
    }

    // Walk 2: weights x values into the warp's fragments.
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> out[D / 16];
    for (int n = 0; n < D / 16; ++n) wmma::fill_fragment(out[n], 0.0f);
    for (uint32_t tile = 0; tile < p.keyValueSequence; tile += kKeys) {
        __syncthreads();
        LoadTile<D>(ks, k, p.key.position, p.key.channel, tile, kKeys, p.keyValueSequence);
        LoadTile<D>(vs, v, p.value.position, p.value.channel, tile, kKeys, p.keyValueSequence);
        __syncthreads();
        TileScores<D>(qw, ks, sw);
        for (int c = 0; c < 16; ++c) {
            const float s = Score(p, ptr, sw[row * kKeys + column0 + c], b, h, i, tile + column0 + c, lo, hi);
            pw[row * kKeys + column0 + c] = __float2half(s == -INFINITY ? 0.0f : __expf(s - maximum));
        }
        __syncwarp();
        for (int kk = 0; kk < kKeys / 16; ++kk) {
            wmma::fragment<wmma::matrix_a, 16, 16, 16, __half, wmma::row_major> a;
            wmma::load_matrix_sync(a, pw + kk * 16, kKeys);
            for (int n = 0; n < D / 16; ++n) {
                wmma::fragment<wmma::matrix_b, 16, 16, 16, __half, wmma::row_major> bv;
                wmma::load_matrix_sync(bv, vs + kk * 16 * D + n * 16, D);
                wmma::mma_sync(out[n], a, bv, out[n]);
            }
        }
        __syncwarp();
    }

    // Out: each 16 x 16 piece through the warp's score buffer, divided by the row's sum.
    __syncwarp();
    const int64_t* os = p.outputStrides;
    __half* output = static_cast<__half*>(ptr.output);
    for (int n = 0; n < D / 16; ++n) {
        wmma::store_matrix_sync(sw, out[n], 16, wmma::mem_row_major);
        __syncwarp();
        for (int e = lane; e < 256; e += 32) {
            const uint32_t r = e / 16, c = e % 16, qi = first + warp * 16 + r;
            if (qi < p.querySequence) {
                output[b * os[0] + qi * os[1] + (int64_t(h) * D + n * 16 + c) * os[2]] =
                    __float2half_rn(sw[e] / sums[warp * 16 + r]);
            }
        }
        __syncwarp();
    }
}

}  // namespace

bool FlashAttentionCovers(const AttentionPlan& p) {
    return p.half && p.headSize == p.valueHeadSize && (p.headSize == 64 || p.headSize == 128) && !p.hasBias &&
           !p.hasPast && !p.hasPastSequenceLengths && p.totalSequence == p.keyValueSequence && p.querySequence > 0 &&
           p.keyValueSequence > 0;
}

cudaError_t LaunchFlashAttention(const AttentionPlan& p, const AttentionPointers& ptr, cudaStream_t stream) {
    const uint64_t blocks = uint64_t(p.batch) * p.queryHeads * ((p.querySequence + kRows - 1) / kRows);
    if (blocks == 0) return cudaSuccess;
    if (blocks > 0x7fffffffu) return cudaErrorInvalidValue;
    if (p.headSize == 64) {
        FlashAttend<64><<<unsigned(blocks), kFlashThreads, FlashSharedBytes<64>(), stream>>>(p, ptr);
    } else {
        FlashAttend<128><<<unsigned(blocks), kFlashThreads, FlashSharedBytes<128>(), stream>>>(p, ptr);
    }
    return cudaGetLastError();
}

}  // namespace freedml::dml::cuda
