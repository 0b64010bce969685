// Device code of ONE_HOT, DIAGONAL_MATRIX and DIAGONAL_MATRIX1: each thread finds an output
// element's coordinates and writes its bits (as the CPU kernel, ../cpu/generators.cpp, does).
#include <cstdint>

#include "dml/ops/generators/cuda/generator_launch.h"

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

}  // namespace

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
