// Device code of ONE_HOT, DIAGONAL_MATRIX and DIAGONAL_MATRIX1: each thread finds an output
// element's coordinates and writes its bits (as the CPU kernel, ../cpu/generators.cpp, does).
// NONZERO_COORDINATES zeroes the coordinates matrix, then one block walks the input in tiles of
// its threads, each tile's nonzero elements placed by a block-wide exclusive scan (CUB) after the
// ones before it: the order of the coordinates is the input's. RANDOM_GENERATOR gives each thread
// one Philox block of four outputs; the first thread also writes the next state.
#include <cub/block/block_scan.cuh>

#include <cstdint>

#include "dml/ops/generators/cuda/generator_launch.h"
#include "dml/ops/generators/philox.h"

namespace freedml::dml::cuda {

namespace {

using generators::GenMode;
using generators::GenPlan;
using generators::IndexType;

constexpr int kBlockThreads = 256;


__device__ __forceinline__ int64_t ReadIndex(IndexType type, const void* base, int64_t offset) {
    switch (type) {
        case IndexType::I32: return static_cast<const int32_t*>(base)[offset];
        case IndexType::I64: return static_cast<const int64_t*>(base)[offset];
        case IndexType::U32: return static_cast<const uint32_t*>(base)[offset];
        default: {
            const uint64_t v = static_cast<const uint64_t*>(base)[offset];
            return v > uint64_t(INT64_MAX) ? INT64_MAX : int64_t(v);
        }
    }
}

template <class T>  // T: an unsigned integer of the element's size
__global__ void __launch_bounds__(kBlockThreads) Generate(GenPlan plan, T* out, const void* source, const T* values,
                                                          int64_t onOffset) {
    const uint64_t step = uint64_t(gridDim.x) * kBlockThreads;
    for (uint64_t e = uint64_t(blockIdx.x) * kBlockThreads + threadIdx.x; e < plan.count; e += step) {
        uint64_t coord[generators::kMaxRank];
        int64_t o = 0, s = 0;
        uint64_t rest = e;
        for (int d = int(plan.rank) - 1; d >= 0; --d) {
            coord[d] = rest % plan.sizes[d];
            rest /= plan.sizes[d];
            o += int64_t(coord[d]) * plan.outStrides[d];
            s += int64_t(coord[d]) * plan.srcStrides[d];
        }
        T bits = 0;
        if (plan.mode == GenMode::OneHot) {
            const int64_t index =
                generators::NormalizeIndex(ReadIndex(plan.indexType, source, s), plan.sizes[plan.axis]);
            bits = index == int64_t(coord[plan.axis]) ? values[onOffset] : values[0];
        } else {
            const int64_t topX = int64_t(coord[plan.rank - 1]) - int64_t(coord[plan.rank - 2]);
            if (generators::InFillBand(topX, plan.fillBegin, plan.fillEnd)) {
                bits = T(plan.valueBits);
            } else if (source) {
                bits = static_cast<const T*>(source)[s];
            }
        }
        out[o] = bits;
    }
}

template <class T>
cudaError_t LaunchTyped(const GenPlan& plan, void* out, const void* source, const void* values, int64_t onOffset,
                        LaunchTarget launch) {
    if (plan.count == 0) return cudaSuccess;
    Generate<T><<<launch.Blocks(plan.count, kBlockThreads), kBlockThreads, 0, launch.stream>>>(
        plan, static_cast<T*>(out), source, static_cast<const T*>(values), onOffset);
    return cudaGetLastError();
}

constexpr int kScanThreads = 1024;

__global__ void __launch_bounds__(kBlockThreads) ZeroCoordinates(generators::NonzeroPlan p, uint32_t* coords) {
    const uint64_t total = p.count * p.columns;
    const uint64_t step = uint64_t(gridDim.x) * kBlockThreads;
    for (uint64_t t = uint64_t(blockIdx.x) * kBlockThreads + threadIdx.x; t < total; t += step) {
        const uint64_t r = t / p.columns, c = t % p.columns;
        coords[int64_t(r) * p.rowStride + int64_t(c) * p.columnStride] = 0;
    }
}

__global__ void __launch_bounds__(kScanThreads) CompactNonzero(generators::NonzeroPlan p, uint32_t* count,
                                                               uint32_t* coords, const unsigned char* in) {
    using Scan = cub::BlockScan<uint32_t, kScanThreads>;
    __shared__ typename Scan::TempStorage scratch;
    uint32_t base = 0;
    for (uint64_t tile = 0; tile < p.count; tile += kScanThreads) {
        const uint64_t e = tile + threadIdx.x;
        uint64_t coord[generators::kMaxRank] = {};
        uint32_t flag = 0;
        if (e < p.count) {
            uint64_t rest = e;
            int64_t offset = 0;
            for (int d = int(p.rank) - 1; d >= 0; --d) {
                coord[d] = rest % p.sizes[d];
                rest /= p.sizes[d];
                offset += int64_t(coord[d]) * p.inStrides[d];
            }
            const unsigned char* x = in + offset * p.elementSize;
            uint64_t bits = 0;
            switch (p.elementSize) {
                case 1: bits = *x; break;
                case 2: bits = *reinterpret_cast<const uint16_t*>(x); break;
                default: bits = *reinterpret_cast<const uint32_t*>(x); break;
            }
            flag = (bits & p.zeroMask) != 0;
        }
        uint32_t place, tileTotal;
        Scan(scratch).ExclusiveSum(flag, place, tileTotal);
        if (flag) {
            uint32_t* row = coords + int64_t(base + place) * p.rowStride;
            for (uint32_t c = 0; c < p.columns; ++c) {
                row[int64_t(c) * p.columnStride] = uint32_t(coord[p.rank - p.columns + c]);
            }
        }
        base += tileTotal;
        __syncthreads();  // the scan's scratch is reused by the next tile
    }
    if (threadIdx.x == 0) *count = base;
}

__global__ void __launch_bounds__(kBlockThreads) PhiloxBlocks(generators::RandomPlan plan, uint32_t* out,
                                                              uint32_t* nextState, const uint32_t* stateIn) {
    uint32_t state[6];
    for (int i = 0; i < 6; ++i) state[i] = stateIn[int64_t(i) * plan.stateStride];
    const uint64_t blocks = (plan.count + 3) / 4;
    const uint64_t step = uint64_t(gridDim.x) * kBlockThreads;
    const uint64_t first = uint64_t(blockIdx.x) * kBlockThreads + threadIdx.x;
    for (uint64_t block = first; block < blocks; block += step) {
        const generators::Philox4x32 bits =
            generators::Philox4x32x10(generators::AddToCounter(state, block), state[4], state[5]);
        const uint64_t end = block * 4 + 4 < plan.count ? block * 4 + 4 : plan.count;
        for (uint64_t i = block * 4; i < end; ++i) {
            int64_t o = 0;
            uint64_t rest = i;
            for (int d = int(plan.rank) - 1; d >= 0; --d) {
                o += int64_t(rest % plan.sizes[d]) * plan.outStrides[d];
                rest /= plan.sizes[d];
            }
            out[o] = bits.v[i % 4];
        }
    }
    // The next state has a buffer of its own (DirectML does not run this operator in place, H2), so
    // one thread writes it while others may still read the input state.
    if (nextState && first == 0) {
        const generators::Philox4x32 next = generators::AddToCounter(state, blocks);
        for (int i = 0; i < 4; ++i) nextState[int64_t(i) * plan.nextStateStride] = next.v[i];
        nextState[4 * plan.nextStateStride] = state[4];
        nextState[5 * plan.nextStateStride] = state[5];
    }
}

}  // namespace

cudaError_t LaunchRandom(const generators::RandomPlan& plan, void* out, void* nextState, const void* state,
                         LaunchTarget launch) {
    const uint64_t blocks = (plan.count + 3) / 4;
    PhiloxBlocks<<<launch.Blocks(blocks > 0 ? blocks : 1, kBlockThreads), kBlockThreads, 0, launch.stream>>>(
        plan, static_cast<uint32_t*>(out), static_cast<uint32_t*>(nextState), static_cast<const uint32_t*>(state));
    return cudaGetLastError();
}

cudaError_t LaunchNonzero(const generators::NonzeroPlan& plan, void* count, void* coords, const void* in,
                          LaunchTarget launch) {
    const uint64_t total = plan.count * plan.columns;
    if (total > 0) {
        ZeroCoordinates<<<launch.Blocks(total, kBlockThreads), kBlockThreads, 0, launch.stream>>>(
            plan, static_cast<uint32_t*>(coords));
    }
    CompactNonzero<<<1, kScanThreads, 0, launch.stream>>>(plan, static_cast<uint32_t*>(count),
                                                           static_cast<uint32_t*>(coords),
                                                           static_cast<const unsigned char*>(in));
    return cudaGetLastError();
}

cudaError_t LaunchGenerator(const GenPlan& plan, void* out, const void* source, const void* values, int64_t onOffset,
                            LaunchTarget launch) {
    switch (plan.elementSize) {
        case 1: return LaunchTyped<uint8_t>(plan, out, source, values, onOffset, launch);
        case 2: return LaunchTyped<uint16_t>(plan, out, source, values, onOffset, launch);
        case 4: return LaunchTyped<uint32_t>(plan, out, source, values, onOffset, launch);
        case 8: return LaunchTyped<uint64_t>(plan, out, source, values, onOffset, launch);
        default: return cudaErrorInvalidValue;
    }
}

}  // namespace freedml::dml::cuda
