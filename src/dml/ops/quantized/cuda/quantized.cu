// Device code of the quantized family: 16 x 16 shared-memory tiles for the small 8-bit matrix
// multiplies, the packing and epilogue kernels around cuBLASLt's INT8 GEMM for the larger ones
// (quantized_plan.h, Int8GemmPlan), one thread per output element for the wider ones, the
// convolutions and pooling (exact integer accumulation; float32 requantization in the order the
// CPU kernels use, with explicitly rounded operations so that no contraction changes a result),
// and DYNAMIC_QUANTIZE_LINEAR as one block that finds the range and writes scale and zero point,
// then a grid that quantizes with them.
#include <cuda_fp16.h>

#include <cstddef>
#include <cstdint>

#include "dml/ops/quantized/cuda/quantized_plan.h"

namespace freedml::dml::cuda::quantized {

namespace {

constexpr int kThreads = 256;

__device__ __forceinline__ int64_t LoadInt(ElementType type, const void* base, int64_t offset) {
    switch (type) {
        case ElementType::I8: return static_cast<const int8_t*>(base)[offset];
        case ElementType::U8: return static_cast<const uint8_t*>(base)[offset];
        case ElementType::I16: return static_cast<const int16_t*>(base)[offset];
        case ElementType::U16: return static_cast<const uint16_t*>(base)[offset];
        case ElementType::I32: return static_cast<const int32_t*>(base)[offset];
        case ElementType::U32: return static_cast<const uint32_t*>(base)[offset];
        default: return 0;
    }
}

__device__ __forceinline__ float LoadFloat(ElementType type, const void* base, int64_t offset) {
    if (type == ElementType::F16) return __half2float(static_cast<const __half*>(base)[offset]);
    return static_cast<const float*>(base)[offset];
}

__device__ __forceinline__ void StoreQuantized(ElementType type, void* base, int64_t offset, float value,
                                               int32_t zeroPoint) {
    const bool isSigned = type == ElementType::I8;
    const float lo = isSigned ? -128.0f : 0.0f, hi = isSigned ? 127.0f : 255.0f;
    const float r = rintf(value);  // half to even
    float q = r != r ? float(zeroPoint) : __fadd_rn(r, float(zeroPoint));
    q = fminf(fmaxf(q, lo), hi);
    if (isSigned) static_cast<int8_t*>(base)[offset] = int8_t(int32_t(q));
    else static_cast<uint8_t*>(base)[offset] = uint8_t(int32_t(q));
}

__device__ __forceinline__ int64_t Offset(const Operand& t, const uint32_t* index, int rank) {
    int64_t o = 0;
    for (int d = 0; d < rank; ++d) o += int64_t(index[d]) * t.strides[d];
    return o;
}

__device__ __forceinline__ int64_t IntAt(const Operand& t, const void* p, const uint32_t* index, int rank) {
    return p ? LoadInt(t.type, p, Offset(t, index, rank)) : 0;
}

__device__ __forceinline__ float FloatAt(const Operand& t, const void* p, const uint32_t* index, int rank,
                                         float absent) {
    return p ? LoadFloat(t.type, p, Offset(t, index, rank)) : absent;
}

struct Pointers {
    const void* p[kSlots];
};

// Writes one matrix multiply result at output index `o` from its exact integer sum.
template <class Acc>
__device__ __forceinline__ void StoreMatMulResult(const MatMulPlan& plan, const Pointers& in, void* out,
                                                  const uint32_t* o, Acc acc) {
    const int rank = plan.rank;
    const int64_t dst = Offset(plan.out, o, rank);
    if (plan.kind == MatMulKind::Integer) {
        static_cast<int32_t*>(out)[dst] = int32_t(uint32_t(uint64_t(acc)));
        return;
    }
    const float real = __fmul_rn(__fmul_rn(float(acc), FloatAt(plan.in[1], in.p[1], o, rank, 1.0f)),
                                 FloatAt(plan.in[4], in.p[4], o, rank, 1.0f));
    if (plan.kind == MatMulKind::IntegerToFloat) {
        const float v = __fadd_rn(real, FloatAt(plan.in[6], in.p[6], o, rank, 0.0f));
        if (plan.out.type == ElementType::F16) static_cast<__half*>(out)[dst] = __float2half_rn(v);
        else static_cast<float*>(out)[dst] = v;
    } else {
        StoreQuantized(plan.out.type, out, dst, __fdiv_rn(real, FloatAt(plan.in[7], in.p[7], o, rank, 1.0f)),
                       int32_t(IntAt(plan.in[8], in.p[8], o, rank)));
    }
}

template <class Acc>
__global__ void MatMulKernel(MatMulPlan plan, Pointers in, void* out, uint64_t count) {
    const int rank = plan.rank;
    for (uint64_t e = blockIdx.x * uint64_t(blockDim.x) + threadIdx.x; e < count; e += uint64_t(gridDim.x) * blockDim.x) {
        uint32_t o[kRank];
        uint64_t rest = e;
        for (int d = rank - 1; d >= 0; --d) {
            o[d] = uint32_t(rest % plan.sizes[d]);
            rest /= plan.sizes[d];
        }
        const uint32_t m = o[rank - 2], n = o[rank - 1];
        uint32_t ia[kRank], ib[kRank];
        for (int d = 0; d < rank; ++d) ia[d] = ib[d] = o[d];
        ia[rank - 1] = 0;
        ib[rank - 2] = 0;
        const Acc aZero = Acc(IntAt(plan.in[2], in.p[2], ia, rank));
        const Acc bZero = Acc(IntAt(plan.in[5], in.p[5], ib, rank));
        const int64_t aBase = Offset(plan.in[0], ia, rank), bBase = Offset(plan.in[3], ib, rank);
        const int64_t aStep = plan.in[0].strides[rank - 1], bStep = plan.in[3].strides[rank - 2];
        Acc acc = 0;
        for (uint32_t k = 0; k < plan.depth; ++k) {
            const Acc a = Acc(LoadInt(plan.in[0].type, in.p[0], aBase + int64_t(k) * aStep)) - aZero;
            const Acc b = Acc(LoadInt(plan.in[3].type, in.p[3], bBase + int64_t(k) * bStep)) - bZero;
            acc += a * b;
        }
        (void)m;
        (void)n;
        StoreMatMulResult(plan, in, out, o, acc);
    }
}

// 16 x 16 outputs per block of 16 x 16 threads, K in tiles of 16 through shared memory, zero points
// subtracted as the tiles load: the 8-bit case (int32 sums). blockIdx.z is the batch.
constexpr int kTile = 16;

__global__ void MatMulTiledKernel(MatMulPlan plan, Pointers in, void* out) {
    __shared__ int32_t tileA[kTile][kTile + 1];
    __shared__ int32_t tileB[kTile][kTile + 1];
    const int rank = plan.rank;
    const uint32_t m = plan.sizes[rank - 2], n = plan.sizes[rank - 1];
    uint32_t o[kRank] = {};
    uint64_t rest = blockIdx.z;
    for (int d = rank - 3; d >= 0; --d) {
        o[d] = uint32_t(rest % plan.sizes[d]);
        rest /= plan.sizes[d];
    }
    const uint32_t row = blockIdx.y * kTile + threadIdx.y, column = blockIdx.x * kTile + threadIdx.x;
    // This thread loads A at (row, k0 + threadIdx.x) and B at (k0 + threadIdx.y, column).
    uint32_t ia[kRank], ib[kRank];
    for (int d = 0; d < rank; ++d) ia[d] = ib[d] = o[d];
    ia[rank - 2] = row < m ? row : 0;
    ia[rank - 1] = 0;
    ib[rank - 2] = 0;
    ib[rank - 1] = column < n ? column : 0;
    const int32_t aZero = int32_t(IntAt(plan.in[2], in.p[2], ia, rank));
    const int32_t bZero = int32_t(IntAt(plan.in[5], in.p[5], ib, rank));
    const int64_t aBase = Offset(plan.in[0], ia, rank), bBase = Offset(plan.in[3], ib, rank);
    const int64_t aStep = plan.in[0].strides[rank - 1], bStep = plan.in[3].strides[rank - 2];
    int32_t acc = 0;
    for (uint32_t k0 = 0; k0 < plan.depth; k0 += kTile) {
        const uint32_t ka = k0 + threadIdx.x, kb = k0 + threadIdx.y;
        tileA[threadIdx.y][threadIdx.x] =
            row < m && ka < plan.depth
                ? int32_t(LoadInt(plan.in[0].type, in.p[0], aBase + int64_t(ka) * aStep)) - aZero
                : 0;
        tileB[threadIdx.y][threadIdx.x] =
            column < n && kb < plan.depth
                ? int32_t(LoadInt(plan.in[3].type, in.p[3], bBase + int64_t(kb) * bStep)) - bZero
                : 0;
        __syncthreads();
        for (int kk = 0; kk < kTile; ++kk) acc += tileA[threadIdx.y][kk] * tileB[kk][threadIdx.x];
        __syncthreads();
    }
    if (row >= m || column >= n) return;
    o[rank - 2] = row;
    o[rank - 1] = column;
    StoreMatMulResult(plan, in, out, o, acc);
}

// The cuBLASLt route's packing: one block copies kPackRows rows x kPackDepth of K of A or B as
// INT8 (UINT8 with its top bit flipped: minus 128), rows contiguous along K and zero beyond K
// (and in the padding rows), and adds the sums of those row pieces into the rows' sums. Loads run along the
// operand's smaller stride (B is read across its rows and transposed through shared memory).
// (At most 32 registers: eight blocks per multiprocessor; 134 unbounded left one, and 64 gave
// 0.216 ms at 4096 against 0.202 with 32 on an H200.)
__global__ void __launch_bounds__(kThreads, 8)
    Int8PackKernel(Int8GemmPlan plan, const uint8_t* aSource, const uint8_t* bSource, std::byte* temp) {
    constexpr uint32_t kPitch = kPackDepth + 4;  // bytes: rows start 4-aligned, in different banks
    __shared__ __align__(16) int8_t tile[kPackRows * kPitch];
    const bool isB = blockIdx.x >= plan.a.blocks;
    const Int8Operand& x = isB ? plan.b : plan.a;
    const uint8_t* source = isB ? bSource : aSource;
    uint32_t index = isB ? blockIdx.x - plan.a.blocks : blockIdx.x;
    const uint32_t rowTiles = (x.packedRows + kPackRows - 1) / kPackRows;
    const uint32_t row0 = (index % rowTiles) * kPackRows;
    index /= rowTiles;
    const uint32_t split = index % x.splits, batch = index / x.splits;
    const uint32_t k0 = split * kPackDepth;
    const int64_t base =
        int64_t(batch / x.batchSizes[1]) * x.batchStrides[0] + int64_t(batch % x.batchSizes[1]) * x.batchStrides[1];
    const uint32_t flip = x.isUnsigned ? 0x80 : 0;
    // Every load of a thread is issued before any is used (the loads are independent: enough in
    // flight to cover memory latency with few blocks).
    auto at = [&](uint32_t row, uint32_t depth) {
        return base + int64_t(row) * x.rowStride + int64_t(depth) * x.depthStride;
    };
    // One element: its value minus 128 for UINT8, 0 outside the matrix.
    auto element = [&](uint32_t row, uint32_t depth) -> uint32_t {
        return row < x.rows && depth < plan.depth ? (uint32_t(source[at(row, depth)]) ^ flip) & 0xffu : 0u;
    };
    constexpr uint32_t kWordsPerThread = kPackRows * kPackDepth / 4 / kThreads;
    if (x.words == 1) {  // word j: row i / 64, depth 4 (i % 64)
        uint32_t w[kWordsPerThread];
#pragma unroll
        for (uint32_t j = 0; j < kWordsPerThread; ++j) {
            const uint32_t i = threadIdx.x + j * kThreads, row = row0 + i / 64, depth = k0 + 4 * (i % 64);
            if (row < x.rows && depth + 3 < plan.depth) {
                w[j] = *reinterpret_cast<const uint32_t*>(source + at(row, depth)) ^ (flip * 0x01010101u);
            } else {
                w[j] = element(row, depth) | element(row, depth + 1) << 8 | element(row, depth + 2) << 16 |
                       element(row, depth + 3) << 24;
            }
        }
#pragma unroll
        for (uint32_t j = 0; j < kWordsPerThread; ++j) {
            const uint32_t i = threadIdx.x + j * kThreads;
            *reinterpret_cast<uint32_t*>(&tile[(i / 64) * kPitch + 4 * (i % 64)]) = w[j];
        }
    } else if (x.words == 2) {  // word j: rows 4 (i % 8) .. + 3, depth i / 8
        uint32_t w[kWordsPerThread];
#pragma unroll
        for (uint32_t j = 0; j < kWordsPerThread; ++j) {
            const uint32_t i = threadIdx.x + j * kThreads, row = row0 + 4 * (i % 8), depth = k0 + i / 8;
            if (row + 3 < x.rows && depth < plan.depth) {
                w[j] = *reinterpret_cast<const uint32_t*>(source + at(row, depth)) ^ (flip * 0x01010101u);
            } else {
                w[j] = element(row, depth) | element(row + 1, depth) << 8 | element(row + 2, depth) << 16 |
                       element(row + 3, depth) << 24;
            }
        }
#pragma unroll
        for (uint32_t j = 0; j < kWordsPerThread; ++j) {
            const uint32_t i = threadIdx.x + j * kThreads, r = 4 * (i % 8), k = i / 8;
            for (uint32_t q = 0; q < 4; ++q) tile[(r + q) * kPitch + k] = int8_t(uint8_t(w[j] >> (8 * q)));
        }
    } else {  // bytes, along the smaller stride
        const bool depthFast =
            (x.depthStride < 0 ? -x.depthStride : x.depthStride) <= (x.rowStride < 0 ? -x.rowStride : x.rowStride);
        // In rounds of 8 loads in flight (registers for more would cost occupancy).
        constexpr uint32_t kPerThread = kPackRows * kPackDepth / kThreads, kRound = 8;
        for (uint32_t j0 = 0; j0 < kPerThread; j0 += kRound) {
            uint8_t v[kRound];
#pragma unroll
            for (uint32_t j = 0; j < kRound; ++j) {
                const uint32_t i = threadIdx.x + (j0 + j) * kThreads;
                const uint32_t r = depthFast ? i / kPackDepth : i % kPackRows;
                const uint32_t k = depthFast ? i % kPackDepth : i / kPackRows;
                v[j] = uint8_t(element(row0 + r, k0 + k));
            }
#pragma unroll
            for (uint32_t j = 0; j < kRound; ++j) {
                const uint32_t i = threadIdx.x + (j0 + j) * kThreads;
                const uint32_t r = depthFast ? i / kPackDepth : i % kPackRows;
                const uint32_t k = depthFast ? i % kPackDepth : i / kPackRows;
                tile[r * kPitch + k] = int8_t(v[j]);
            }
        }
    }
    __syncthreads();
    const uint32_t warp = threadIdx.x / 32, lane = threadIdx.x % 32, warps = blockDim.x / 32;
    for (uint32_t r = warp; r < kPackRows; r += warps) {
        const uint32_t row = row0 + r;
        if (row >= x.packedRows) break;  // the same for the whole warp
        int32_t sum = 0;
        for (uint32_t w = lane; w < kPackDepth / 4; w += 32) {
            const uint32_t depth = k0 + 4 * w;
            if (depth >= plan.paddedDepth) break;
            const char4 c = *reinterpret_cast<const char4*>(&tile[r * kPitch + 4 * w]);
            sum += int32_t(c.x) + int32_t(c.y) + int32_t(c.z) + int32_t(c.w);
            if (x.pack) {
                *reinterpret_cast<char4*>(temp + x.packedOffset +
                                          (uint64_t(batch) * x.packedRows + row) * plan.paddedDepth + depth) = c;
            }
        }
        for (int offset = 16; offset > 0; offset /= 2) sum += __shfl_xor_sync(0xffffffffu, sum, offset);
        if (lane == 0 && x.sums && row < x.rows) {
            // Added into the row's total (zeroed before this kernel): exact in wrapping 32-bit
            // arithmetic whatever the order, and the epilogue reads one value per row.
            atomicAdd(reinterpret_cast<unsigned int*>(temp + x.sumOffset) + uint64_t(batch) * x.rows + row,
                      uint32_t(sum));
        }
    }
}

// The element offset of tensor `t` at the batch part of output index `o` (its matrix dims at 0).
__device__ __forceinline__ int64_t BatchOffset(const Operand& t, const uint32_t* o, int rank) {
    int64_t offset = 0;
    for (int d = 0; d + 2 < rank; ++d) offset += int64_t(o[d]) * t.strides[d];
    return offset;
}

// The batch index of an Int8Operand's own packed copy at output batch (i0, i1).
__device__ __forceinline__ uint32_t OperandBatch(const Int8Operand& x, uint32_t i0, uint32_t i1) {
    return (x.batchSizes[0] > 1 ? i0 : 0) * x.batchSizes[1] + (x.batchSizes[1] > 1 ? i1 : 0);
}

// The cuBLASLt route's epilogue: kEpilogueRows x kEpilogueColumns outputs per block (blockIdx.z
// is the batch), their rows' and columns' zero points, scales and sums gathered first.
constexpr uint32_t kEpilogueRows = 32, kEpilogueColumns = 128;

__global__ void __launch_bounds__(kEpilogueColumns * 2, 4)
    Int8EpilogueKernel(Int8GemmPlan plan, Pointers in, const std::byte* temp, void* out) {
    __shared__ uint32_t rowSum[kEpilogueRows], rowZero[kEpilogueRows], columnSum[kEpilogueColumns],
        columnZero[kEpilogueColumns];
    __shared__ float rowScale[kEpilogueRows], columnScale[kEpilogueColumns];
    const MatMulPlan& p = plan.epilogue;
    const int rank = p.rank;
    const uint32_t m = p.sizes[rank - 2], n = p.sizes[rank - 1];
    const uint32_t i1 = blockIdx.z % plan.batchSizes[1], i0 = blockIdx.z / plan.batchSizes[1];
    uint32_t o[kRank] = {};
    if (rank == 4) {
        o[0] = i0;
        o[1] = i1;
    } else if (rank == 3) {
        o[0] = i1;
    }
    const uint32_t m0 = blockIdx.y * kEpilogueRows, n0 = blockIdx.x * kEpilogueColumns;
    const uint32_t t = threadIdx.y * blockDim.x + threadIdx.x;
    const bool scaled = p.kind != MatMulKind::Integer;
    if (t < kEpilogueRows && m0 + t < m) {
        uint32_t idx[kRank];
        for (int d = 0; d < kRank; ++d) idx[d] = o[d];
        idx[rank - 2] = m0 + t;
        idx[rank - 1] = 0;
        rowZero[t] = uint32_t(int32_t(IntAt(p.in[2], in.p[2], idx, rank)) - (plan.a.isUnsigned ? 128 : 0));
        rowScale[t] = scaled ? FloatAt(p.in[1], in.p[1], idx, rank, 1.0f) : 1.0f;
        uint32_t sum = 0;
        if (plan.a.sums) {
            const int32_t* sums = reinterpret_cast<const int32_t*>(temp + plan.a.sumOffset);
            sum = uint32_t(sums[uint64_t(OperandBatch(plan.a, i0, i1)) * m + m0 + t]);
        }
        rowSum[t] = sum;
    }
    if (t < kEpilogueColumns && n0 + t < n) {
        uint32_t idx[kRank];
        for (int d = 0; d < kRank; ++d) idx[d] = o[d];
        idx[rank - 2] = 0;
        idx[rank - 1] = n0 + t;
        columnZero[t] = uint32_t(int32_t(IntAt(p.in[5], in.p[5], idx, rank)) - (plan.b.isUnsigned ? 128 : 0));
        columnScale[t] = scaled ? FloatAt(p.in[4], in.p[4], idx, rank, 1.0f) : 1.0f;
        uint32_t sum = 0;
        if (plan.b.sums) {
            const int32_t* sums = reinterpret_cast<const int32_t*>(temp + plan.b.sumOffset);
            sum = uint32_t(sums[uint64_t(OperandBatch(plan.b, i0, i1)) * n + n0 + t]);
        }
        columnSum[t] = sum;
    }
    __syncthreads();
    const uint32_t column = n0 + threadIdx.x;
    if (column >= n) return;
    const int32_t* __restrict__ product =
        reinterpret_cast<const int32_t*>(temp + plan.productOffset) + uint64_t(blockIdx.z) * m * plan.productStride;
    const int64_t outBase = BatchOffset(p.out, o, rank);
    const uint32_t c = threadIdx.x, depth = plan.depth;
    const uint32_t mEnd = m0 + kEpilogueRows < m ? m0 + kEpilogueRows : m;
    // Every product of this thread is loaded before any is used (independent loads in flight).
    constexpr uint32_t kPerThread = kEpilogueRows / 2;  // blockDim.y is 2
    uint32_t raw[kPerThread];
#pragma unroll
    for (uint32_t i = 0; i < kPerThread; ++i) {
        const uint32_t row = m0 + threadIdx.y + 2 * i;
        raw[i] = row < mEnd ? uint32_t(__ldg(&product[uint64_t(row) * plan.productStride + column])) : 0u;
    }
    // A bias, output scale or output zero point that varies along neither matrix dimension is
    // read once.
    auto fixed = [&](int slot) {
        return !in.p[slot] || (p.in[slot].strides[rank - 2] == 0 && p.in[slot].strides[rank - 1] == 0);
    };
    const int64_t biasBase = BatchOffset(p.in[6], o, rank), scaleBase = BatchOffset(p.in[7], o, rank),
                  zeroBase = BatchOffset(p.in[8], o, rank);
    auto bias = [&](uint32_t row) {
        return in.p[6] ? LoadFloat(p.in[6].type, in.p[6],
                                   biasBase + int64_t(row) * p.in[6].strides[rank - 2] +
                                       int64_t(column) * p.in[6].strides[rank - 1])
                       : 0.0f;
    };
    auto outScale = [&](uint32_t row) {
        return in.p[7] ? LoadFloat(p.in[7].type, in.p[7],
                                   scaleBase + int64_t(row) * p.in[7].strides[rank - 2] +
                                       int64_t(column) * p.in[7].strides[rank - 1])
                       : 1.0f;
    };
    auto outZero = [&](uint32_t row) {
        return in.p[8] ? int32_t(LoadInt(p.in[8].type, in.p[8],
                                         zeroBase + int64_t(row) * p.in[8].strides[rank - 2] +
                                             int64_t(column) * p.in[8].strides[rank - 1]))
                       : 0;
    };
    const bool fixedBias = fixed(6), fixedScale = fixed(7), fixedZero = fixed(8);
    const float biasValue = fixedBias ? bias(0) : 0.0f, scaleValue = fixedScale ? outScale(0) : 1.0f;
    const int32_t zeroValue = fixedZero ? outZero(0) : 0;
#pragma unroll
    for (uint32_t i = 0; i < kPerThread; ++i) {
        const uint32_t row = m0 + threadIdx.y + 2 * i;
        if (row >= mEnd) break;
        const uint32_t r = row - m0;
        // Wrapping int32 arithmetic, as the exact sum modulo 2^32 (unsigned: no signed overflow).
        const int32_t acc = int32_t(raw[i] - columnZero[c] * rowSum[r] - rowZero[r] * columnSum[c] +
                                    depth * rowZero[r] * columnZero[c]);
        const int64_t dst =
            outBase + int64_t(row) * p.out.strides[rank - 2] + int64_t(column) * p.out.strides[rank - 1];
        if (p.kind == MatMulKind::Integer) {
            static_cast<int32_t*>(out)[dst] = acc;
            continue;
        }
        const float real = __fmul_rn(__fmul_rn(float(acc), rowScale[r]), columnScale[c]);
        if (p.kind == MatMulKind::IntegerToFloat) {
            const float v = __fadd_rn(real, fixedBias ? biasValue : bias(row));
            if (p.out.type == ElementType::F16)
                static_cast<__half*>(out)[dst] = __float2half_rn(v);
            else
                static_cast<float*>(out)[dst] = v;
        } else {
            StoreQuantized(p.out.type, out, dst, __fdiv_rn(real, fixedScale ? scaleValue : outScale(row)),
                           fixedZero ? zeroValue : outZero(row));
        }
    }
}

__global__ void ConvKernel(ConvPlan plan, Pointers in, void* out, uint64_t count) {
    const uint32_t zero[kRank] = {};
    for (uint64_t e = blockIdx.x * uint64_t(blockDim.x) + threadIdx.x; e < count; e += uint64_t(gridDim.x) * blockDim.x) {
        uint64_t rest = e;
        const int64_t o2 = int64_t(rest % plan.outSize[2]);
        rest /= plan.outSize[2];
        const int64_t o1 = int64_t(rest % plan.outSize[1]);
        rest /= plan.outSize[1];
        const int64_t o0 = int64_t(rest % plan.outSize[0]);
        rest /= plan.outSize[0];
        const uint32_t oc = uint32_t(rest % plan.outChannels);
        const uint32_t nb = uint32_t(rest / plan.outChannels);
        const uint32_t cig = plan.inChannels / plan.groups, cog = plan.outChannels / plan.groups, g = oc / cog;
        uint32_t channel[kRank] = {};
        channel[1] = oc;
        const Operand &x = plan.in[0], &w = plan.in[3];
        const int32_t inZero = int32_t(IntAt(plan.in[2], in.p[2], zero, 5));
        const int32_t filterZero = int32_t(IntAt(plan.in[5], in.p[5], channel, 5));
        int32_t acc = int32_t(IntAt(plan.in[6], in.p[6], channel, 5));
        for (uint32_t icg = 0; icg < cig; ++icg) {
            const int64_t xBase = int64_t(nb) * x.strides[0] + int64_t(g * cig + icg) * x.strides[1];
            const int64_t wBase = int64_t(oc) * w.strides[0] + int64_t(icg) * w.strides[1];
            for (int64_t k0 = 0; k0 < plan.kernelSize[0]; ++k0) {
                const int64_t i0 = o0 * plan.stride[0] + k0 * plan.dilation[0] - plan.pad[0];
                if (i0 < 0 || i0 >= plan.inSize[0]) continue;
                for (int64_t k1 = 0; k1 < plan.kernelSize[1]; ++k1) {
                    const int64_t i1 = o1 * plan.stride[1] + k1 * plan.dilation[1] - plan.pad[1];
                    if (i1 < 0 || i1 >= plan.inSize[1]) continue;
                    for (int64_t k2 = 0; k2 < plan.kernelSize[2]; ++k2) {
                        const int64_t i2 = o2 * plan.stride[2] + k2 * plan.dilation[2] - plan.pad[2];
                        if (i2 < 0 || i2 >= plan.inSize[2]) continue;
                        const int32_t xv = int32_t(LoadInt(
                            x.type, in.p[0], xBase + i0 * x.strides[2] + i1 * x.strides[3] + i2 * x.strides[4]));
                        const int32_t wv = int32_t(LoadInt(
                            w.type, in.p[3], wBase + k0 * w.strides[2] + k1 * w.strides[3] + k2 * w.strides[4]));
                        acc += (xv - inZero) * (wv - filterZero);
                    }
                }
            }
        }
        const int64_t dst = int64_t(nb) * plan.out.strides[0] + int64_t(oc) * plan.out.strides[1] +
                            o0 * plan.out.strides[2] + o1 * plan.out.strides[3] + o2 * plan.out.strides[4];
        if (!plan.quantizedOutput) {
            static_cast<int32_t*>(out)[dst] = acc;
            continue;
        }
        const float multiplier = __fmul_rn(FloatAt(plan.in[1], in.p[1], zero, 5, 1.0f),
                                           FloatAt(plan.in[4], in.p[4], channel, 5, 1.0f));
        const float real = __fmul_rn(float(acc), multiplier);
        StoreQuantized(plan.out.type, out, dst, __fdiv_rn(real, FloatAt(plan.in[7], in.p[7], zero, 5, 1.0f)),
                       int32_t(IntAt(plan.in[8], in.p[8], zero, 5)));
    }
}

__global__ void PoolKernel(PoolPlan plan, Pointers in, void* out, uint64_t count) {
    for (uint64_t e = blockIdx.x * uint64_t(blockDim.x) + threadIdx.x; e < count; e += uint64_t(gridDim.x) * blockDim.x) {
        uint64_t rest = e;
        const int64_t o2 = int64_t(rest % plan.outSize[2]);
        rest /= plan.outSize[2];
        const int64_t o1 = int64_t(rest % plan.outSize[1]);
        rest /= plan.outSize[1];
        const int64_t o0 = int64_t(rest % plan.outSize[0]);
        rest /= plan.outSize[0];
        uint32_t index[kRank] = {};
        index[1] = uint32_t(rest % plan.channels);
        index[0] = uint32_t(rest / plan.channels);
        const Operand& x = plan.in[0];
        const int32_t inZero = int32_t(IntAt(plan.in[2], in.p[2], index, 5));
        const float inScale = FloatAt(plan.in[1], in.p[1], index, 5, 1.0f);
        const float outScale = FloatAt(plan.in[3], in.p[3], index, 5, 1.0f);
        const int32_t outZero = int32_t(IntAt(plan.in[4], in.p[4], index, 5));
        const int64_t base = int64_t(index[0]) * x.strides[0] + int64_t(index[1]) * x.strides[1];
        int64_t sum = 0, counted = 0;
        for (int64_t k0 = 0; k0 < plan.window[0]; ++k0) {
            const int64_t i0 = o0 * plan.stride[0] + k0 * plan.dilation[0] - plan.pad[0];
            for (int64_t k1 = 0; k1 < plan.window[1]; ++k1) {
                const int64_t i1 = o1 * plan.stride[1] + k1 * plan.dilation[1] - plan.pad[1];
                for (int64_t k2 = 0; k2 < plan.window[2]; ++k2) {
                    const int64_t i2 = o2 * plan.stride[2] + k2 * plan.dilation[2] - plan.pad[2];
                    const bool inside = i0 >= 0 && i0 < plan.inSize[0] && i1 >= 0 && i1 < plan.inSize[1] && i2 >= 0 &&
                                        i2 < plan.inSize[2];
                    if (inside) {
                        sum += LoadInt(x.type, in.p[0], base + i0 * x.strides[2] + i1 * x.strides[3] + i2 * x.strides[4]) -
                               inZero;
                        ++counted;
                    } else if (plan.includePadding) {
                        ++counted;
                    }
                }
            }
        }
        const float average = counted ? __fdiv_rn(__fmul_rn(float(sum), inScale), float(counted)) : 0.0f;
        const int64_t dst = int64_t(index[0]) * plan.out.strides[0] + int64_t(index[1]) * plan.out.strides[1] +
                            o0 * plan.out.strides[2] + o1 * plan.out.strides[3] + o2 * plan.out.strides[4];
        StoreQuantized(plan.out.type, out, dst, __fdiv_rn(average, outScale), outZero);
    }
}

__device__ __forceinline__ int64_t ElementOffset(const DynamicQuantizePlan& plan, const Operand& t, uint64_t e) {
    int64_t o = 0;
    for (int d = plan.rank - 1; d >= 0; --d) {
        o += int64_t(e % plan.sizes[d]) * t.strides[d];
        e /= plan.sizes[d];
    }
    return o;
}

// One block: the range (always including 0), then scale and zero point as the CPU kernel computes them.
__global__ void RangeKernel(DynamicQuantizePlan plan, const void* in, float* scaleOut, void* zeroOut) {
    __shared__ float los[kThreads], his[kThreads];
    float lo = 0.0f, hi = 0.0f;
    for (uint64_t e = threadIdx.x; e < plan.count; e += blockDim.x) {
        const float v = LoadFloat(plan.in.type, in, ElementOffset(plan, plan.in, e));
        lo = fminf(lo, v);
        hi = fmaxf(hi, v);
    }
    los[threadIdx.x] = lo;
    his[threadIdx.x] = hi;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s /= 2) {
        if (int(threadIdx.x) < s) {
            los[threadIdx.x] = fminf(los[threadIdx.x], los[threadIdx.x + s]);
            his[threadIdx.x] = fmaxf(his[threadIdx.x], his[threadIdx.x + s]);
        }
        __syncthreads();
    }
    if (threadIdx.x == 0) {
        const bool isSigned = plan.out.type == ElementType::I8;
        const float qmin = isSigned ? -128.0f : 0.0f, qmax = isSigned ? 127.0f : 255.0f;
        const float scale = __fdiv_rn(__fsub_rn(his[0], los[0]), qmax - qmin);
        const float shift = scale != 0.0f ? __fdiv_rn(los[0], scale) : 0.0f;
        const float zero = rintf(fminf(fmaxf(__fsub_rn(qmin, shift), qmin), qmax));
        *scaleOut = scale;
        StoreQuantized(plan.out.type, zeroOut, 0, 0.0f, int32_t(zero));
    }
}

__global__ void QuantizeKernel(DynamicQuantizePlan plan, const void* in, void* out, const float* scaleIn,
                               const void* zeroIn) {
    const float scale = *scaleIn;
    const int32_t zero = int32_t(LoadInt(plan.out.type, zeroIn, 0));
    for (uint64_t e = blockIdx.x * uint64_t(blockDim.x) + threadIdx.x; e < plan.count;
         e += uint64_t(gridDim.x) * blockDim.x) {
        const float v = LoadFloat(plan.in.type, in, ElementOffset(plan, plan.in, e));
        const float q = scale != 0.0f ? __fdiv_rn(v, scale) : 0.0f;
        StoreQuantized(plan.out.type, out, ElementOffset(plan, plan.out, e), q, zero);
    }
}

Pointers Gather(const void* const* in, int count) {
    Pointers p{};
    for (int i = 0; i < count; ++i) p.p[i] = in[i];
    return p;
}

}  // namespace

cudaError_t LaunchQuantizedMatMul(const MatMulPlan& plan, const void* const* in, void* out, LaunchTarget launch) {
    uint64_t count = 1;
    for (int d = 0; d < plan.rank; ++d) count *= plan.sizes[d];
    if (count == 0) return cudaSuccess;
    const Pointers p = Gather(in, kSlots);
    if (plan.wide) {
        MatMulKernel<int64_t><<<launch.Blocks(count, kThreads), kThreads, 0, launch.stream>>>(plan, p, out, count);
        return cudaGetLastError();
    }
    const uint32_t m = plan.sizes[plan.rank - 2], n = plan.sizes[plan.rank - 1];
    const uint64_t batches = count / (uint64_t(m) * n);
    if (batches > 65535 || (m + kTile - 1) / kTile > 65535) {  // grid limits: one thread per output instead
        MatMulKernel<int32_t><<<launch.Blocks(count, kThreads), kThreads, 0, launch.stream>>>(plan, p, out, count);
        return cudaGetLastError();
    }
    const dim3 grid((n + kTile - 1) / kTile, (m + kTile - 1) / kTile, uint32_t(batches));
    MatMulTiledKernel<<<grid, dim3(kTile, kTile), 0, launch.stream>>>(plan, p, out);
    return cudaGetLastError();
}

cudaError_t LaunchInt8Pack(const Int8GemmPlan& plan, const void* a, const void* b, void* temp, LaunchTarget launch) {
    const uint32_t blocks = plan.a.blocks + plan.b.blocks;
    if (blocks == 0) return cudaSuccess;
    Int8PackKernel<<<blocks, kThreads, 0, launch.stream>>>(
        plan, static_cast<const uint8_t*>(a), static_cast<const uint8_t*>(b), static_cast<std::byte*>(temp));
    return cudaGetLastError();
}

cudaError_t LaunchInt8Epilogue(const Int8GemmPlan& plan, const void* const* in, const void* temp, void* out,
                               LaunchTarget launch) {
    const MatMulPlan& p = plan.epilogue;
    const uint32_t m = p.sizes[p.rank - 2], n = p.sizes[p.rank - 1];
    const dim3 grid((n + kEpilogueColumns - 1) / kEpilogueColumns, (m + kEpilogueRows - 1) / kEpilogueRows,
                    plan.batchSizes[0] * plan.batchSizes[1]);
    Int8EpilogueKernel<<<grid, dim3(kEpilogueColumns, 2), 0, launch.stream>>>(plan, Gather(in, kSlots),
                                                                              static_cast<const std::byte*>(temp), out);
    return cudaGetLastError();
}

cudaError_t LaunchQuantizedConv(const ConvPlan& plan, const void* const* in, void* out, LaunchTarget launch) {
    const uint64_t count = uint64_t(plan.batch) * plan.outChannels * plan.outSize[0] * plan.outSize[1] * plan.outSize[2];
    if (count == 0) return cudaSuccess;
    ConvKernel<<<launch.Blocks(count, kThreads), kThreads, 0, launch.stream>>>(plan, Gather(in, kSlots), out, count);
    return cudaGetLastError();
}

cudaError_t LaunchQuantizedPool(const PoolPlan& plan, const void* const* in, void* out, LaunchTarget launch) {
    const uint64_t count = uint64_t(plan.batch) * plan.channels * plan.outSize[0] * plan.outSize[1] * plan.outSize[2];
    if (count == 0) return cudaSuccess;
    PoolKernel<<<launch.Blocks(count, kThreads), kThreads, 0, launch.stream>>>(plan, Gather(in, 5), out, count);
    return cudaGetLastError();
}

cudaError_t LaunchDynamicQuantize(const DynamicQuantizePlan& plan, const void* in, void* out, void* scale,
                                  void* zeroPoint, LaunchTarget launch) {
    RangeKernel<<<1, kThreads, 0, launch.stream>>>(plan, in, static_cast<float*>(scale), zeroPoint);
    cudaError_t status = cudaGetLastError();
    if (status != cudaSuccess || plan.count == 0) return status;
    QuantizeKernel<<<launch.Blocks(plan.count, kThreads), kThreads, 0, launch.stream>>>(
        plan, in, out, static_cast<const float*>(scale), zeroPoint);
    return cudaGetLastError();
}

}  // namespace freedml::dml::cuda::quantized
