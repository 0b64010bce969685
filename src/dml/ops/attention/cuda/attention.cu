// Device code of MULTIHEAD_ATTENTION and MULTIHEAD_ATTENTION1: the general route, for what the
// tiled FLOAT16 kernels (flash_attention_sm80.cu on sm_80 and later, else flash_attention.cu) do
// not cover (FLOAT32, a packed bias, past keys and values, other head sizes). One kernel writes the
// present key/value outputs (one thread per element). Then, for head sizes up to 128, AttendTiles:
// one block per (batch, query head, tile of query rows), each warp owning kRowsPerWarp rows; the
// block stages 32 keys and values at a time in shared memory, lane j scores key j of the tile for
// the warp's rows, and the softmax runs online in float32 (running maximum and sum per row), so
// every key and value is read from global memory once per tile of rows. Larger heads use
// AttendRows: one block per query row, its scores in shared memory. The CPU kernel's general loop
// (../cpu/attention.cpp) computes the same scores; the sums run in another order.
#include <cuda_fp16.h>

#include <cmath>

#include "dml/ops/attention/cuda/attention_plan.h"

namespace freedml::dml::cuda {
namespace {

constexpr int kThreads = 128;

__device__ float Load(const AttentionPlan& p, const void* base, int64_t element) {
    return p.half ? __half2float(static_cast<const __half*>(base)[element]) : static_cast<const float*>(base)[element];
}
__device__ void Store(const AttentionPlan& p, void* base, int64_t element, float v) {
    if (p.half) {
        static_cast<__half*>(base)[element] = __float2half_rn(v);
    } else {
        static_cast<float*>(base)[element] = v;
    }
}

// Valid past positions of batch b (clamped so that no length reaches outside the buffers).
__device__ uint32_t PastLength(const AttentionPlan& p, const AttentionPointers& ptr, uint32_t b) {
    if (!p.hasPastSequenceLengths) return p.pastSequence;
    // Integers as they are, floats rounded to the nearest whole number (NaN as 0), as on the CPU.
    const int64_t at = b * p.pastLengthsStride;
    int64_t len;
    if (p.pastLengthsKind >= 2) {
        float v = p.pastLengthsKind == 2 ? static_cast<const float*>(ptr.inputs[11])[at]
                                         : __half2float(static_cast<const __half*>(ptr.inputs[11])[at]);
        len = v != v ? 0 : int64_t(nearbyintf(fminf(fmaxf(v, -1.0f), 4294967296.0f)));
    } else {
        const int32_t raw = static_cast<const int32_t*>(ptr.inputs[11])[at];
        len = p.pastLengthsKind == 0 ? int64_t(raw) : int64_t(uint32_t(raw));
    }
    const int64_t limit = p.hasPast ? p.pastSequence : p.totalSequence - p.keyValueSequence;
    return uint32_t(len < 0 ? 0 : (len > limit ? limit : len));
}

__device__ float BiasAt(const AttentionPlan& p, const AttentionPointers& ptr, uint32_t index) {
    return p.hasBias ? Load(p, ptr.inputs[6], int64_t(index) * p.biasStride) : 0.0f;
}

// Key (value = false) or value element of key position j: the past, then the new ones plus bias.
__device__ float KeyAt(const AttentionPlan& p, const AttentionPointers& ptr, bool value, uint32_t b, uint32_t past,
                       uint32_t j, uint32_t kh, uint32_t d) {
    if (j < past) {
        const int64_t* s = value ? (p.hasPast ? p.pastValueStrides : p.presentValueStrides)
                                 : (p.hasPast ? p.pastKeyStrides : p.presentKeyStrides);
        const void* base = p.hasPast ? ptr.inputs[value ? 10 : 9] : (value ? ptr.presentValue : ptr.presentKey);
        return Load(p, base, b * s[0] + kh * s[1] + j * s[2] + d * s[3]);
    }
    const AttentionOperandPlan& o = value ? p.value : p.key;
    const uint32_t n = j - past;
    const float x = Load(p, ptr.inputs[o.input], o.offset + b * o.batch + n * o.position + kh * o.head + d * o.channel);
    const uint32_t qk = p.queryHeads * p.headSize, k = p.keyValueHeads * p.headSize;
    return x + BiasAt(p, ptr, value ? qk + k + kh * p.valueHeadSize + d : qk + kh * p.headSize + d);
}

__device__ int32_t MaskAt(const AttentionPointers& ptr, int64_t element) {
    return static_cast<const int32_t*>(ptr.inputs[7])[element];
}

// The keys [lo, hi) of batch b that the sequence-length masks leave open (lo and hi are left as
// they are for the other masks).
__device__ void OpenKeys(const AttentionPlan& p, const AttentionPointers& ptr, uint32_t b, int64_t* lo, int64_t* hi) {
    if (p.hasMask && (p.maskType == 1 || p.maskType == 3)) {  // KEY_SEQUENCE_LENGTH, KEY_QUERY_..._START_END
        *hi = MaskAt(ptr, b * p.maskStrides[3]);
    } else if (p.hasMask && p.maskType == 2) {  // KEY_SEQUENCE_END_START
        *hi = MaskAt(ptr, b * p.maskStrides[3]);
        *lo = MaskAt(ptr, p.maskStrides[2] + b * p.maskStrides[3]);
    }
}

// A scaled score of (query i, key j) with the relative position bias added and the mask's filter
// value where the key is masked (BOOLEAN mask, or outside [lo, hi) for the sequence-length masks).
__device__ float BiasedScore(const AttentionPlan& p, const AttentionPointers& ptr, float s, uint32_t b, uint32_t h,
                             uint32_t i, uint32_t j, int64_t lo, int64_t hi) {
    if (p.hasRelativePositionBias) {
        const int64_t* r = p.positionBiasStrides;
        s += Load(p, ptr.inputs[8], b * r[0] + h * r[1] + i * r[2] + j * r[3]);
    }
    bool masked = false;
    if (p.hasMask && p.maskType == 4) {  // BOOLEAN
        const int64_t* m = p.maskStrides;
        masked = MaskAt(ptr, b * m[0] + h * m[1] + i * m[2] + j * m[3]) == 0;
    } else if (p.hasMask) {
        masked = int64_t(j) < lo || int64_t(j) >= hi;
    }
    return masked ? s + p.maskFilterValue : s;
}

// One thread per element of {batch, kv head, total position, channel} of the present outputs.
__global__ void WritePresent(AttentionPlan p, AttentionPointers ptr, bool value) {
    const uint32_t width = value ? p.valueHeadSize : p.headSize;
    const uint64_t count = uint64_t(p.batch) * p.keyValueHeads * p.totalSequence * width;
    void* out = value ? ptr.presentValue : ptr.presentKey;
    const int64_t* s = value ? p.presentValueStrides : p.presentKeyStrides;
    for (uint64_t e = blockIdx.x * uint64_t(blockDim.x) + threadIdx.x; e < count; e += uint64_t(gridDim.x) * blockDim.x) {
        const uint32_t d = uint32_t(e % width);
        const uint32_t j = uint32_t(e / width % p.totalSequence);
        const uint32_t kh = uint32_t(e / width / p.totalSequence % p.keyValueHeads);
        const uint32_t b = uint32_t(e / width / p.totalSequence / p.keyValueHeads);
        const uint32_t past = PastLength(p, ptr, b);
        // With PastSequenceLengths and no PastKey the past is already in place; positions after
        // the new keys keep what they hold. With PastKey, positions after the keys are 0.
        const bool inPlace = p.hasPastSequenceLengths && !p.hasPast;
        const uint32_t keys = past + p.keyValueSequence;
        if (inPlace && (j < past || j >= keys)) continue;
        Store(p, out, b * s[0] + kh * s[1] + j * s[2] + d * s[3], j < keys ? KeyAt(p, ptr, value, b, past, j, kh, d) : 0.0f);
    }
}

__device__ float BlockReduce(float v, bool isMax, float* scratch) {
    for (int o = 16; o > 0; o >>= 1) {
        const float w = __shfl_xor_sync(0xffffffffu, v, o);
        v = isMax ? fmaxf(v, w) : v + w;
    }
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    __syncthreads();
    if (lane == 0) scratch[warp] = v;
    __syncthreads();
    float r = scratch[0];
    for (int w = 1; w < kThreads / 32; ++w) r = isMax ? fmaxf(r, scratch[w]) : r + scratch[w];
    return r;
}

// One block per (batch, query head, query row); shared memory holds the row's scores and the query.
__global__ void AttendRows(AttentionPlan p, AttentionPointers ptr) {
    extern __shared__ float shared[];
    float* scores = shared;                     // totalSequence
    float* q = shared + p.totalSequence;        // headSize
    __shared__ float scratch[kThreads / 32];
    const uint64_t rows = uint64_t(p.batch) * p.queryHeads * p.querySequence;
    const uint32_t group = p.queryHeads / p.keyValueHeads;
    for (uint64_t row = blockIdx.x; row < rows; row += gridDim.x) {
        const uint32_t i = uint32_t(row % p.querySequence);
        const uint32_t h = uint32_t(row / p.querySequence % p.queryHeads);
        const uint32_t b = uint32_t(row / p.querySequence / p.queryHeads);
        const uint32_t kh = h / group;
        const uint32_t past = PastLength(p, ptr, b);
        const uint32_t count = past + p.keyValueSequence;
        int64_t lo = 0, hi = count;
        OpenKeys(p, ptr, b, &lo, &hi);
        __syncthreads();  // the previous row is done with q and scores
        const AttentionOperandPlan& o = p.query;
        for (uint32_t d = threadIdx.x; d < p.headSize; d += blockDim.x) {
            q[d] = Load(p, ptr.inputs[o.input], o.offset + b * o.batch + i * o.position + h * o.head + d * o.channel) +
                   BiasAt(p, ptr, h * p.headSize + d);
        }
        __syncthreads();
        float localMax = -INFINITY;
        for (uint32_t j = threadIdx.x; j < count; j += blockDim.x) {
            float dot = 0.0f;
            for (uint32_t d = 0; d < p.headSize; ++d) dot += q[d] * KeyAt(p, ptr, false, b, past, j, kh, d);
            const float s = BiasedScore(p, ptr, dot * p.scale, b, h, i, j, lo, hi);
            scores[j] = s;
            localMax = fmaxf(localMax, s);
        }
        const float maxScore = BlockReduce(localMax, true, scratch);
        float localSum = 0.0f;
        for (uint32_t j = threadIdx.x; j < count; j += blockDim.x) localSum += (scores[j] = expf(scores[j] - maxScore));
        const float sum = BlockReduce(localSum, false, scratch);
        __syncthreads();  // every score is final
        for (uint32_t d = threadIdx.x; d < p.valueHeadSize; d += blockDim.x) {
            float acc = 0.0f;
            for (uint32_t j = 0; j < count; ++j) acc += (scores[j] / sum) * KeyAt(p, ptr, true, b, past, j, kh, d);
            Store(p, ptr.output, b * p.outputStrides[0] + i * p.outputStrides[1] +
                                     (h * p.valueHeadSize + d) * p.outputStrides[2], acc);
        }
    }
}


// AttendTiles' shape: 32 keys a tile (one per lane), kRowsPerWarp query rows per warp, and 8 warps
// where the head sizes are at most 64 (4 otherwise, which keeps shared memory under 48 KiB).
constexpr uint32_t kTileKeys = 32;
constexpr uint32_t kRowsPerWarp = 4;
constexpr uint32_t kMaxTiledHead = 128;

__host__ __device__ uint32_t TileWarps(const AttentionPlan& p) {
    return p.headSize <= 64 && p.valueHeadSize <= 64 ? 8 : 4;
}
size_t TileSharedBytes(const AttentionPlan& p) {
    const size_t rows = size_t(TileWarps(p)) * kRowsPerWarp;
    return (rows * p.headSize + kTileKeys * (p.headSize + 1) + kTileKeys * p.valueHeadSize) * sizeof(float);
}

__device__ __forceinline__ float WarpMax(float v) {
    for (int o = 16; o > 0; o >>= 1) v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, o));
    return v;
}
__device__ __forceinline__ float WarpSum(float v) {
    for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
    return v;
}

__global__ void AttendTiles(AttentionPlan p, AttentionPointers ptr) {
    extern __shared__ float shared[];
    const uint32_t warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    const uint32_t rowsPerBlock = (blockDim.x / 32) * kRowsPerWarp;
    const uint32_t D = p.headSize, Dv = p.valueHeadSize, kStride = D + 1;  // +1: lanes read distinct banks
    float* qs = shared;                     // rowsPerBlock x D, the block's query rows (bias added)
    float* ks = qs + rowsPerBlock * D;      // kTileKeys x kStride
    float* vs = ks + kTileKeys * kStride;   // kTileKeys x Dv
    const uint32_t rowTiles = (p.querySequence + rowsPerBlock - 1) / rowsPerBlock;
    const uint32_t tile = blockIdx.x % rowTiles;
    const uint32_t h = blockIdx.x / rowTiles % p.queryHeads;
    const uint32_t b = blockIdx.x / rowTiles / p.queryHeads;
    const uint32_t kh = h / (p.queryHeads / p.keyValueHeads);
    const uint32_t past = PastLength(p, ptr, b);
    const uint32_t count = past + p.keyValueSequence;
    int64_t lo = 0, hi = count;
    OpenKeys(p, ptr, b, &lo, &hi);
    const uint32_t firstRow = tile * rowsPerBlock;
    const AttentionOperandPlan& o = p.query;
    for (uint32_t e = threadIdx.x; e < rowsPerBlock * D; e += blockDim.x) {
        const uint32_t i = firstRow + e / D, d = e % D;
        qs[e] = i < p.querySequence ? Load(p, ptr.inputs[o.input], o.offset + b * o.batch + i * o.position +
                                                                      h * o.head + d * o.channel) +
                                          BiasAt(p, ptr, h * p.headSize + d)
                                    : 0.0f;
    }
    float rowMax[kRowsPerWarp], rowSum[kRowsPerWarp], acc[kRowsPerWarp][kMaxTiledHead / 32];
    for (uint32_t r = 0; r < kRowsPerWarp; ++r) {
        rowMax[r] = -INFINITY, rowSum[r] = 0.0f;
#pragma unroll
        for (uint32_t t = 0; t < kMaxTiledHead / 32; ++t) acc[r][t] = 0.0f;
    }
    const float* myRows = qs + warp * kRowsPerWarp * D;
    for (uint32_t j0 = 0; j0 < count; j0 += kTileKeys) {
        __syncthreads();  // the previous tile is consumed (and, the first time, the query rows are in)
        for (uint32_t e = threadIdx.x; e < kTileKeys * D; e += blockDim.x) {
            const uint32_t jj = e / D, d = e % D;
            ks[jj * kStride + d] = j0 + jj < count ? KeyAt(p, ptr, false, b, past, j0 + jj, kh, d) : 0.0f;
        }
        for (uint32_t e = threadIdx.x; e < kTileKeys * Dv; e += blockDim.x) {
            const uint32_t jj = e / Dv, d = e % Dv;
            vs[e] = j0 + jj < count ? KeyAt(p, ptr, true, b, past, j0 + jj, kh, d) : 0.0f;
        }
        __syncthreads();
        float s[kRowsPerWarp] = {};
        for (uint32_t d = 0; d < D; ++d) {
            const float k = ks[lane * kStride + d];
            for (uint32_t r = 0; r < kRowsPerWarp; ++r) s[r] += myRows[r * D + d] * k;
        }
        const uint32_t j = j0 + lane;
        for (uint32_t r = 0; r < kRowsPerWarp; ++r) {
            const uint32_t i = firstRow + warp * kRowsPerWarp + r;
            float score = -INFINITY;  // keys past the sequence weigh nothing
            if (j < count) {
                score = s[r] * p.scale;
                if (i < p.querySequence) score = BiasedScore(p, ptr, score, b, h, i, j, lo, hi);
            }
            const float newMax = fmaxf(rowMax[r], WarpMax(score));
            const float base = newMax == -INFINITY ? 0.0f : newMax;  // nothing scored yet
            const float weight = expf(score - base);
            const float alpha = expf(rowMax[r] - base);
            rowSum[r] = rowSum[r] * alpha + WarpSum(weight);
            rowMax[r] = newMax;
            for (uint32_t t = 0; t < kMaxTiledHead / 32; ++t) acc[r][t] *= alpha;
            s[r] = weight;
        }
        const uint32_t keys = count - j0 < kTileKeys ? count - j0 : kTileKeys;
        for (uint32_t jj = 0; jj < keys; ++jj) {
            float w[kRowsPerWarp];
            for (uint32_t r = 0; r < kRowsPerWarp; ++r) w[r] = __shfl_sync(0xffffffffu, s[r], jj);
            for (uint32_t t = 0; t < kMaxTiledHead / 32; ++t) {
                const uint32_t d = t * 32 + lane;
                if (t * 32 >= Dv) break;
                const float v = d < Dv ? vs[jj * Dv + d] : 0.0f;
                for (uint32_t r = 0; r < kRowsPerWarp; ++r) acc[r][t] += w[r] * v;
            }
        }
    }
    for (uint32_t r = 0; r < kRowsPerWarp; ++r) {
        const uint32_t i = firstRow + warp * kRowsPerWarp + r;
        if (i >= p.querySequence) continue;
        for (uint32_t t = 0; t < kMaxTiledHead / 32; ++t) {
            const uint32_t d = t * 32 + lane;
            if (d >= Dv) break;
            Store(p, ptr.output, b * p.outputStrides[0] + i * p.outputStrides[1] + (h * Dv + d) * p.outputStrides[2],
                  acc[r][t] / rowSum[r]);
        }
    }
}

}  // namespace

uint64_t AttentionTemporaryBytes(const AttentionPlan& plan) { return FlashAttentionSm80TemporaryBytes(plan); }

bool AttentionTilesCover(const AttentionPlan& plan) {
    return plan.headSize <= kMaxTiledHead && plan.valueHeadSize <= kMaxTiledHead && plan.headSize > 0 &&
           plan.valueHeadSize > 0;
}

cudaError_t LaunchAttention(const AttentionPlan& plan, const AttentionPointers& ptr, void* temporary,
                            LaunchTarget launch) {
    const int blocksCap = launch.Blocks(uint64_t(1) << 40, kThreads);
    if (blocksCap == 0) return cudaErrorInvalidValue;
    // Present outputs first: the rows read only past positions of them, which this leaves alone.
    if (ptr.presentKey) {
        const uint64_t n = uint64_t(plan.batch) * plan.keyValueHeads * plan.totalSequence * plan.headSize;
        WritePresent<<<launch.Blocks(n, kThreads), kThreads, 0, launch.stream>>>(plan, ptr, false);
    }
    if (ptr.presentValue) {
        const uint64_t n = uint64_t(plan.batch) * plan.keyValueHeads * plan.totalSequence * plan.valueHeadSize;
        WritePresent<<<launch.Blocks(n, kThreads), kThreads, 0, launch.stream>>>(plan, ptr, true);
    }
    if (FlashAttentionSm80Covers(plan)) {
        int device = 0, major = 0;
        if (cudaGetDevice(&device) == cudaSuccess &&
            cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device) == cudaSuccess && major >= 8) {
            return LaunchFlashAttentionSm80(plan, ptr, temporary, launch.stream);
        }
    }
    if (FlashAttentionCovers(plan)) return LaunchFlashAttention(plan, ptr, launch.stream);
    if (AttentionTilesCover(plan)) {
        const uint32_t warps = TileWarps(plan), rowsPerBlock = warps * kRowsPerWarp;
        const uint64_t tiles =
            uint64_t(plan.batch) * plan.queryHeads * ((plan.querySequence + rowsPerBlock - 1) / rowsPerBlock);
        if (tiles == 0) return cudaSuccess;
        if (tiles > 0x7fffffffu) return cudaErrorInvalidValue;
        AttendTiles<<<unsigned(tiles), warps * 32, TileSharedBytes(plan), launch.stream>>>(plan, ptr);
        return cudaGetLastError();
    }
    const uint64_t rows = uint64_t(plan.batch) * plan.queryHeads * plan.querySequence;
    const size_t sharedBytes = (size_t(plan.totalSequence) + plan.headSize) * sizeof(float);
    const int blocks = int(rows < uint64_t(blocksCap) ? rows : uint64_t(blocksCap));
    AttendRows<<<blocks, kThreads, sharedBytes, launch.stream>>>(plan, ptr);
    return cudaGetLastError();
}

}  // namespace freedml::dml::cuda
