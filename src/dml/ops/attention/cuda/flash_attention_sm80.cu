// The one-pass FLOAT16 attention kernel for sm_80 and later (FlashAttention-2 scheme): one block
// of eight warps per (batch, query head, 128 query rows), 16 rows a warp. The block streams the
// keys and values in tiles of 64 through two shared-memory buffers (cp.async: the next tile loads
// while the warps work on this one, one barrier a tile), multiplies on the tensor cores with mma.sync
// m16n8k16 (FLOAT16 in, float32 accumulate; the P fragments of Q.K^T feed P.V straight from
// registers) and keeps the softmax online in float32 (running maximum and sum per row; the output
// accumulators rescale when the maximum grows), dividing by the sum once at the end.
//
// Masks (every MaskType) and RelativePositionBias apply per score where a tile needs them; tiles
// that need nothing use the scaled product as it is. A key tile that is masked for every query row
// of the block is skipped when the filter value is -10^4 or lower and every row has an open key
// elsewhere: a masked score then sits at least 10^4 - (spread of the row's scores) below the row's
// maximum, whose exponential is 0 in float32 for any spread short of 9900. A first kernel
// (ClassifyMask) condenses a BOOLEAN mask into the temporary resource: per (query tile, key tile)
// which rows have open and masked keys, and per row of it a word of 64 bits, one a key, so that the
// partly masked tiles (the diagonal of a causal mask) test bits instead of reading the mask.
#include <cuda_fp16.h>

#include <atomic>
#include <cmath>
#include <cstdint>

#include "dml/ops/attention/cuda/attention_plan.h"

namespace freedml::dml::cuda {
namespace {

constexpr int kM = 128;  // query rows per block
constexpr int kN = 64;   // keys per tile
constexpr int kThreads = 32 * kM / 16;
constexpr float kLog2e = 1.4426950408889634f;

template <int D>
constexpr size_t SharedBytes() {
    return sizeof(__half) * (kM + 4 * kN) * D;  // Q, and two buffers of K and V tiles
}

__device__ __forceinline__ uint32_t SharedAddress(const void* p) { return uint32_t(__cvta_generic_to_shared(p)); }

// Element offset of 16-byte chunk c of row r in a tile of D halves a row. The chunk index is
// XORed with the row so that the eight rows one ldmatrix reads fall into different banks.
template <int D>
__device__ __forceinline__ int Swizzled(int r, int c) {
    return r * D + ((c ^ (r & 7)) << 3);
}

__device__ __forceinline__ void CopyAsync16(void* dst, const void* src, bool valid) {
    // A source size of 0 fills the 16 bytes with zeros (rows past the sequence).
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(SharedAddress(dst)), "l"(src),
                 "r"(valid ? 16 : 0));
}
__device__ __forceinline__ void CopyCommit() { asm volatile("cp.async.commit_group;\n" ::); }
__device__ __forceinline__ void CopyWaitAll() { asm volatile("cp.async.wait_group 0;\n" ::: "memory"); }

__device__ __forceinline__ void LoadMatrix(uint32_t (&r)[4], const void* p) {
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\n"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"(SharedAddress(p)));
}
__device__ __forceinline__ void LoadMatrixTransposed(uint32_t (&r)[4], const void* p) {
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];\n"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"(SharedAddress(p)));
}

// c += a (16 x 16, row-major) x b (16 x 8, column-major).
__device__ __forceinline__ void Mma(float (&c)[4], const uint32_t (&a)[4], uint32_t b0, uint32_t b1) {
    asm("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
        "{%0, %1, %2, %3};\n"
        : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}

// 2^x by the special function unit (2^-inf = 0); its error is far below FLOAT16 rounding.
__device__ __forceinline__ float Exp2(float x) {
    float y;
    asm("ex2.approx.ftz.f32 %0, %1;\n" : "=f"(y) : "f"(x));
    return y;
}

__device__ __forceinline__ uint32_t PackHalves(float lo, float hi) {
    const __half2 h = __floats2half2_rn(lo, hi);
    return *reinterpret_cast<const uint32_t*>(&h);
}

// Rows first .. first + rows - 1 of one operand into a swizzled tile (rows past `count` are zero):
// asynchronous 16-byte copies where the channels are packed and the rows 16-byte aligned, else
// plain loads one element at a time.
template <int D, int rows = kN>
__device__ void LoadTile(__half* dst, const __half* base, int64_t rowStride, int64_t channelStride, uint32_t first,
                         uint32_t count) {
    constexpr int chunks = D / 8;
    const bool packed = channelStride == 1 && rowStride % 8 == 0 && reinterpret_cast<uintptr_t>(base) % 16 == 0;
    if (packed) {
        for (int e = threadIdx.x; e < rows * chunks; e += kThreads) {
            const int r = e / chunks, c = e % chunks;
            const bool valid = first + r < count;
            CopyAsync16(dst + Swizzled<D>(r, c), base + (valid ? int64_t(first + r) * rowStride + c * 8 : 0), valid);
        }
        return;
    }
    for (int e = threadIdx.x; e < rows * D; e += kThreads) {
        const int r = e / D, d = e % D;
        dst[Swizzled<D>(r, d / 8) + d % 8] =
            first + r < count ? base[int64_t(first + r) * rowStride + int64_t(d) * channelStride] : __float2half(0.0f);
    }
}

// What a key tile needs: the scale alone, per-score work, or nothing at all (skipped).
enum TileKind { kPlain = 0, kPerScore = 1, kSkip = 2 };

struct BlockView {
    bool perScoreAlways;             // relative position bias, or a BOOLEAN mask without tile classes
    bool rangeMask;                  // a mask of key ranges (lo, hi)
    uint32_t kv;                     // keys
    const TileMask* tiles;           // this (batch, head, query tile)'s classes of a BOOLEAN mask, or null
    const unsigned long long* bits;  // its open keys: word kt * kM + row
    int64_t lo, hi;                  // open key range of the range masks
    bool skipAllowed;
    uint32_t kTiles;

    __device__ TileKind Kind(uint32_t kt) const {
        const uint32_t j0 = kt * kN;
        bool perScore = perScoreAlways || j0 + kN > kv;
        if (tiles) {
            const TileMask t = tiles[kt];
            if ((t.open[0] | t.open[1]) == 0 && skipAllowed) return kSkip;
            perScore |= (t.masked[0] | t.masked[1]) != 0;
        } else if (rangeMask) {
            if ((int64_t(j0) + kN <= lo || int64_t(j0) >= hi) && skipAllowed) return kSkip;
            perScore |= int64_t(j0) < lo || int64_t(j0) + kN > hi;
        }
        return perScore ? kPerScore : kPlain;
    }
    __device__ uint32_t Next(uint32_t kt) const {
        while (kt < kTiles && Kind(kt) == kSkip) ++kt;
        return kt;
    }
};

// The score of (query i, key j) in log2 units: scaled, biased and masked; keys past the sequence
// score -inf (they weigh nothing). Rows past the sequence read nothing (they are never stored).
// With `mask` null a BOOLEAN mask's value comes as `open`.
__device__ __forceinline__ float ScoreLog2(const AttentionPlan& p, const __half* positionBias, const int32_t* mask,
                                           float raw, uint32_t b, uint32_t h, uint32_t i, uint32_t j, int64_t lo,
                                           int64_t hi, bool open) {
    if (j >= p.keyValueSequence) return -INFINITY;
    float s = raw * p.scale;
    if (i < p.querySequence) {
        if (p.hasRelativePositionBias) {
            const int64_t* r = p.positionBiasStrides;
            s += __half2float(positionBias[b * r[0] + h * r[1] + i * r[2] + j * r[3]]);
        }
        bool masked = false;
        if (p.hasMask && p.maskType == 4) {  // BOOLEAN
            const int64_t* m = p.maskStrides;
            masked = mask ? mask[b * m[0] + h * m[1] + i * m[2] + j * m[3]] == 0 : !open;
        } else if (p.hasMask) {
            masked = int64_t(j) < lo || int64_t(j) >= hi;
        }
        if (masked) s += p.maskFilterValue;
    }
    return s * kLog2e;
}

// The bindings the kernel reads, picked on the host (an array indexed at run time would put the
// whole of AttentionPointers on the stack).
struct FlashOperands {
    const __half *query, *key, *value, *positionBias;
    const int32_t* mask;
    __half* output;
};

template <int D>
__global__ void __launch_bounds__(kThreads, D == 64 ? 2 : 1)
    FlashAttendSm80(AttentionPlan p, FlashOperands ptr, const TileMask* tileMasks, const unsigned long long* tileBits) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 800
    __trap();  // the launcher picks this kernel only on sm_80 and later
#else
    extern __shared__ __align__(128) unsigned char sharedBytes[];
    __half* qs = reinterpret_cast<__half*>(sharedBytes);
    __half* kBuffers = qs + kM * D;  // K of buffer 0, V of buffer 0, K of buffer 1, V of buffer 1
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    const int g = lane / 4, t = lane % 4;

    const uint32_t qTiles = (p.querySequence + kM - 1) / kM;
    const uint32_t qt = qTiles - 1 - blockIdx.x % qTiles;  // the longest rows of a causal mask first
    const uint32_t h = blockIdx.x / qTiles % p.queryHeads;
    const uint32_t b = blockIdx.x / qTiles / p.queryHeads;
    const uint32_t kh = h / (p.queryHeads / p.keyValueHeads);
    const uint32_t first = qt * kM;
    const uint32_t kv = p.keyValueSequence;
    const __half* q = ptr.query + p.query.offset + b * p.query.batch + h * p.query.head;
    const __half* k = ptr.key + p.key.offset + b * p.key.batch + kh * p.key.head;
    const __half* v = ptr.value + p.value.offset + b * p.value.batch + kh * p.value.head;

    BlockView view{p.hasRelativePositionBias || (p.hasMask && p.maskType == 4),
                   p.hasMask && p.maskType != 4,
                   kv,
                   nullptr,
                   nullptr,
                   0,
                   int64_t(kv),
                   false,
                   (kv + kN - 1) / kN};
    const int32_t* mask = ptr.mask;
    const __half* positionBias = ptr.positionBias;
    if (p.hasMask && (p.maskType == 1 || p.maskType == 3)) {  // KEY_SEQUENCE_LENGTH, KEY_QUERY_..._START_END
        view.hi = mask[b * p.maskStrides[3]];
    } else if (p.hasMask && p.maskType == 2) {  // KEY_SEQUENCE_END_START
        view.hi = mask[b * p.maskStrides[3]];
        view.lo = mask[p.maskStrides[2] + b * p.maskStrides[3]];
    }
    const uint32_t valid = p.querySequence - first < kM ? p.querySequence - first : kM;
    if (p.hasMask && p.skipMaskedTiles) {
        if (p.maskType == 4) {
            const uint32_t mb = p.maskStrides[0] ? b : 0, mh = p.maskStrides[1] ? h : 0;
            const uint32_t heads = p.maskStrides[1] ? p.queryHeads : 1;
            const uint64_t tileBase = ((uint64_t(mb) * heads + mh) * qTiles + qt) * view.kTiles;
            view.tiles = tileMasks + tileBase;
            view.bits = tileBits + tileBase * kM;
            view.perScoreAlways = p.hasRelativePositionBias;
            // Skipping needs an open key in every row: the union of the tiles' open rows.
            bool all = true;
            for (int w = 0; w < 2; ++w) {
                unsigned long long open = 0;
                for (uint32_t kt = lane; kt < view.kTiles; kt += 32) open |= view.tiles[kt].open[w];
                const uint32_t low = __reduce_or_sync(0xffffffffu, uint32_t(open));
                const uint32_t high = __reduce_or_sync(0xffffffffu, uint32_t(open >> 32));
                const uint32_t rows = valid > 64u * w ? valid - 64u * w : 0u;
                const unsigned long long need = rows >= 64 ? ~0ull : (1ull << rows) - 1;
                all = all && ((static_cast<unsigned long long>(high) << 32 | low) & need) == need;
            }
            view.skipAllowed = all;
        } else {
            const int64_t open0 = view.lo > 0 ? view.lo : 0, open1 = view.hi < int64_t(kv) ? view.hi : int64_t(kv);
            view.skipAllowed = open0 < open1;
        }
    }

    LoadTile<D, kM>(qs, q, p.query.position, p.query.channel, first, p.querySequence);
    uint32_t kt = view.Next(0);
    if (kt < view.kTiles) {
        LoadTile<D>(kBuffers, k, p.key.position, p.key.channel, kt * kN, kv);
        LoadTile<D>(kBuffers + kN * D, v, p.value.position, p.value.channel, kt * kN, kv);
    }
    CopyCommit();
    CopyWaitAll();
    __syncthreads();

    uint32_t qf[D / 16][4];
#pragma unroll
    for (int kk = 0; kk < D / 16; ++kk) LoadMatrix(qf[kk], qs + Swizzled<D>(warp * 16 + lane % 16, kk * 2 + lane / 16));

    float o[D / 8][4];
#pragma unroll
    for (int n = 0; n < D / 8; ++n) o[n][0] = o[n][1] = o[n][2] = o[n][3] = 0.0f;
    float rowMax[2] = {-INFINITY, -INFINITY}, rowSum[2] = {0.0f, 0.0f};
    const float scaleLog2 = p.scale * kLog2e;
    const uint32_t row0 = first + warp * 16 + g;

    int buffer = 0;
    while (kt < view.kTiles) {
        // Tile kt is in `buffer`; the next one loads into the other, which every warp is done with.
        const __half* ks = kBuffers + buffer * 2 * kN * D;
        const __half* vs = ks + kN * D;
        const uint32_t next = view.Next(kt + 1);
        if (next < view.kTiles) {
            __half* kn = kBuffers + (buffer ^ 1) * 2 * kN * D;
            LoadTile<D>(kn, k, p.key.position, p.key.channel, next * kN, kv);
            LoadTile<D>(kn + kN * D, v, p.value.position, p.value.channel, next * kN, kv);
        }
        CopyCommit();

        float s[kN / 8][4];
#pragma unroll
        for (int n = 0; n < kN / 8; ++n) s[n][0] = s[n][1] = s[n][2] = s[n][3] = 0.0f;
#pragma unroll
        for (int kk = 0; kk < D / 16; ++kk) {
#pragma unroll
            for (int np = 0; np < kN / 16; ++np) {
                uint32_t kf[4];
                LoadMatrix(kf, ks + Swizzled<D>(np * 16 + lane % 8 + 8 * (lane / 16), kk * 2 + (lane / 8) % 2));
                Mma(s[2 * np], qf[kk], kf[0], kf[1]);
                Mma(s[2 * np + 1], qf[kk], kf[2], kf[3]);
            }
        }
        if (view.Kind(kt) == kPlain) {
#pragma unroll
            for (int n = 0; n < kN / 8; ++n)
#pragma unroll
                for (int e = 0; e < 4; ++e) s[n][e] *= scaleLog2;
        } else {
            unsigned long long open[2] = {~0ull, ~0ull};
            if (view.bits) {
                open[0] = view.bits[kt * kM + warp * 16 + g];
                open[1] = view.bits[kt * kM + warp * 16 + g + 8];
            }
            const int32_t* elements = view.bits ? nullptr : mask;
#pragma unroll
            for (int n = 0; n < kN / 8; ++n)
#pragma unroll
                for (int e = 0; e < 4; ++e) {
                    const int key = n * 8 + 2 * t + e % 2;
                    s[n][e] = ScoreLog2(p, positionBias, elements, s[n][e], b, h, row0 + (e / 2) * 8, kt * kN + key,
                                        view.lo, view.hi, (open[e / 2] >> key) & 1);
                }
        }

        // Online softmax: the new maximum per row, the old sum and output rescaled to it.
#pragma unroll
        for (int r = 0; r < 2; ++r) {
            float m = rowMax[r];
#pragma unroll
            for (int n = 0; n < kN / 8; ++n) m = fmaxf(m, fmaxf(s[n][2 * r], s[n][2 * r + 1]));
            m = fmaxf(m, __shfl_xor_sync(0xffffffffu, m, 1));
            m = fmaxf(m, __shfl_xor_sync(0xffffffffu, m, 2));
            const float base = m == -INFINITY ? 0.0f : m;  // a row with nothing open so far
            const float alpha = Exp2(rowMax[r] - base);
            rowMax[r] = m;
            float sum = 0.0f;
#pragma unroll
            for (int n = 0; n < kN / 8; ++n) {
                s[n][2 * r] = Exp2(s[n][2 * r] - base);
                s[n][2 * r + 1] = Exp2(s[n][2 * r + 1] - base);
                sum += s[n][2 * r] + s[n][2 * r + 1];
            }
            rowSum[r] = rowSum[r] * alpha + sum;
#pragma unroll
            for (int n = 0; n < D / 8; ++n) o[n][2 * r] *= alpha, o[n][2 * r + 1] *= alpha;
        }
        // The C fragments of two neighbouring 8-key pieces are the A fragment of 16 keys.
        uint32_t pf[kN / 16][4];
#pragma unroll
        for (int kk = 0; kk < kN / 16; ++kk) {
            pf[kk][0] = PackHalves(s[2 * kk][0], s[2 * kk][1]);
            pf[kk][1] = PackHalves(s[2 * kk][2], s[2 * kk][3]);
            pf[kk][2] = PackHalves(s[2 * kk + 1][0], s[2 * kk + 1][1]);
            pf[kk][3] = PackHalves(s[2 * kk + 1][2], s[2 * kk + 1][3]);
        }

#pragma unroll
        for (int kk = 0; kk < kN / 16; ++kk) {
#pragma unroll
            for (int dp = 0; dp < D / 16; ++dp) {
                uint32_t vf[4];
                LoadMatrixTransposed(vf,
                                     vs + Swizzled<D>(kk * 16 + lane % 8 + 8 * ((lane / 8) % 2), dp * 2 + lane / 16));
                Mma(o[2 * dp], pf[kk], vf[0], vf[1]);
                Mma(o[2 * dp + 1], pf[kk], vf[2], vf[3]);
            }
        }
        CopyWaitAll();
        __syncthreads();  // the next tile in place; every warp is done with this one
        kt = next;
        buffer ^= 1;
    }

    const int64_t* os = p.outputStrides;
    __half* output = ptr.output;
#pragma unroll
    for (int r = 0; r < 2; ++r) {
        float sum = rowSum[r];
        sum += __shfl_xor_sync(0xffffffffu, sum, 1);
        sum += __shfl_xor_sync(0xffffffffu, sum, 2);
        const uint32_t i = row0 + r * 8;
        if (i >= p.querySequence) continue;
        const float inverse = 1.0f / sum;
        const int64_t rowStart = b * os[0] + i * os[1] + int64_t(h) * D * os[2];
        const bool pairs = os[2] == 1 && rowStart % 2 == 0 && reinterpret_cast<uintptr_t>(output) % 4 == 0;
#pragma unroll
        for (int n = 0; n < D / 8; ++n) {
            const int c = n * 8 + 2 * t;
            const float x = o[n][2 * r] * inverse, y = o[n][2 * r + 1] * inverse;
            if (pairs) {
                *reinterpret_cast<__half2*>(output + rowStart + c) = __floats2half2_rn(x, y);
            } else {
                output[rowStart + c * os[2]] = __float2half_rn(x);
                output[rowStart + (c + 1) * os[2]] = __float2half_rn(y);
            }
        }
    }
#endif
}

// One block per (mask batch, mask head, query tile, key tile), a warp per 16 rows: which rows have
// an open key and which a masked key in the tile (valid rows and keys only).
__global__ void __launch_bounds__(kThreads)
    ClassifyMask(AttentionPlan p, const int32_t* mask, TileMask* out, unsigned long long* bits, uint32_t heads,
                 uint32_t qTiles, uint32_t kTiles) {
    __shared__ unsigned long long open[2], masked[2];
    if (threadIdx.x < 2) open[threadIdx.x] = masked[threadIdx.x] = 0;
    __syncthreads();
    const uint64_t idx = blockIdx.x;
    const uint32_t kt = uint32_t(idx % kTiles), qt = uint32_t(idx / kTiles % qTiles);
    const uint32_t mh = uint32_t(idx / kTiles / qTiles % heads), mb = uint32_t(idx / kTiles / qTiles / heads);
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    const int64_t* m = p.maskStrides;
    unsigned long long myOpen = 0, myMasked = 0;
    for (int r = warp * 16; r < warp * 16 + 16; ++r) {
        const uint32_t i = qt * kM + r;
        const bool row = i < p.querySequence;
        bool anyOpen = false, anyMasked = false;
        unsigned long long word = 0;
        for (int part = 0; part < kN / 32; ++part) {
            const uint32_t j = kt * kN + part * 32 + lane;
            const bool inside = row && j < p.keyValueSequence;
            const int32_t x = inside ? mask[mb * m[0] + mh * m[1] + i * m[2] + j * m[3]] : 0;
            const uint32_t openKeys = __ballot_sync(0xffffffffu, inside && x != 0);
            anyOpen |= openKeys != 0;
            anyMasked |= __any_sync(0xffffffffu, inside && x == 0);
            word |= static_cast<unsigned long long>(openKeys) << (32 * part);
        }
        if (lane == 0) bits[idx * kM + r] = word;
        if (anyOpen) myOpen |= 1ull << (r % 64);
        if (anyMasked) myMasked |= 1ull << (r % 64);
    }
    if (lane == 0) {  // a warp's 16 rows lie in one word
        atomicOr(&open[warp * 16 / 64], myOpen);
        atomicOr(&masked[warp * 16 / 64], myMasked);
    }
    __syncthreads();
    if (threadIdx.x == 0) out[idx] = TileMask{{open[0], open[1]}, {masked[0], masked[1]}};
}

uint64_t MaskTileCount(const AttentionPlan& p) {
    const uint64_t qTiles = (p.querySequence + kM - 1) / kM, kTiles = (p.keyValueSequence + kN - 1) / kN;
    return (p.maskStrides[0] ? p.batch : 1) * uint64_t(p.maskStrides[1] ? p.queryHeads : 1) * qTiles * kTiles;
}

}  // namespace

bool FlashAttentionSm80Covers(const AttentionPlan& p) { return FlashAttentionCovers(p); }

uint64_t FlashAttentionSm80TemporaryBytes(const AttentionPlan& p) {
    return FlashAttentionSm80Covers(p) && p.hasMask && p.maskType == 4 && p.skipMaskedTiles
               ? MaskTileCount(p) * (sizeof(TileMask) + kM * sizeof(unsigned long long))
               : 0;
}

cudaError_t LaunchFlashAttentionSm80(const AttentionPlan& p, const AttentionPointers& ptr, void* temporary,
                                     cudaStream_t stream) {
    const uint64_t blocks = uint64_t(p.batch) * p.queryHeads * ((p.querySequence + kM - 1) / kM);
    if (blocks == 0) return cudaSuccess;
    if (blocks > 0x7fffffffu) return cudaErrorInvalidValue;
    TileMask* tiles = nullptr;
    unsigned long long* bits = nullptr;
    if (FlashAttentionSm80TemporaryBytes(p) != 0) {
        const uint64_t count = MaskTileCount(p);
        if (count > 0x7fffffffu || temporary == nullptr) return cudaErrorInvalidValue;
        tiles = static_cast<TileMask*>(temporary);
        bits = reinterpret_cast<unsigned long long*>(tiles + count);
        const int32_t* mask = static_cast<const int32_t*>(ptr.inputs[7]);
        const uint32_t heads = p.maskStrides[1] ? p.queryHeads : 1;
        const uint32_t qTiles = (p.querySequence + kM - 1) / kM, kTiles = (p.keyValueSequence + kN - 1) / kN;
        ClassifyMask<<<unsigned(count), kThreads, 0, stream>>>(p, mask, tiles, bits, heads, qTiles, kTiles);
    }
    const FlashOperands o{static_cast<const __half*>(ptr.inputs[p.query.input]),
                          static_cast<const __half*>(ptr.inputs[p.key.input]),
                          static_cast<const __half*>(ptr.inputs[p.value.input]),
                          static_cast<const __half*>(ptr.inputs[8]),
                          static_cast<const int32_t*>(ptr.inputs[7]),
                          static_cast<__half*>(ptr.output)};
    // More than the 48 KiB of shared memory a block gets without asking, once per device and size.
    static std::atomic<uint64_t> raised[2];
    int device = 0;
    if (cudaGetDevice(&device) != cudaSuccess) return cudaGetLastError();
    const int which = p.headSize == 64 ? 0 : 1;
    const uint64_t bit = uint64_t(1) << (device % 64);
    if (!(raised[which].load() & bit)) {
        const cudaError_t e =
            which == 0 ? cudaFuncSetAttribute(FlashAttendSm80<64>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                              int(SharedBytes<64>()))
                       : cudaFuncSetAttribute(FlashAttendSm80<128>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                              int(SharedBytes<128>()));
        if (e != cudaSuccess) return e;
        raised[which].fetch_or(bit);
    }
    if (p.headSize == 64) {
        FlashAttendSm80<64><<<unsigned(blocks), kThreads, SharedBytes<64>(), stream>>>(p, o, tiles, bits);
    } else {
        FlashAttendSm80<128><<<unsigned(blocks), kThreads, SharedBytes<128>(), stream>>>(p, o, tiles, bits);
    }
    return cudaGetLastError();
}

}  // namespace freedml::dml::cuda
