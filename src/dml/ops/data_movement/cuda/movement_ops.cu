// Device code of the data movement index map (PADDING, PADDING1, TILE): one thread per output
// element in a grid-stride loop, the input coordinate found dimension by dimension by
// MapCoordinate, the same function the CPU kernel builds its tables with.
#include "dml/ops/data_movement/cuda/movement_launch.h"

namespace freedml::dml::cuda {

namespace {

constexpr int kMapThreads = 256;

template <class T>
__global__ void __launch_bounds__(kMapThreads) IndexMapKernel(IndexMap map, T* out, const T* in) {
    T constant;
    memcpy(&constant, &map.constantBits, sizeof(T));  // little-endian: the low bytes
    const uint64_t step = uint64_t(gridDim.x) * blockDim.x;
    for (uint64_t i = uint64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < map.count; i += step) {
        uint64_t rest = i;
        int64_t inOffset = 0, outOffset = 0;
        bool isConstant = false;
        for (int d = int(map.rank) - 1; d >= 0; --d) {
            const int64_t c = int64_t(rest % map.outSizes[d]);
            rest /= map.outSizes[d];
            outOffset += c * map.outStrides[d];
            const int64_t source = MapCoordinate(map.mode, c - map.start[d], map.inSizes[d]);
            isConstant |= source < 0;
            inOffset += source * map.inStrides[d];
        }
        out[outOffset] = isConstant ? constant : in[inOffset];
    }
}

template <class T>
cudaError_t LaunchTyped(const IndexMap& map, void* out, const void* in, LaunchTarget launch) {
    if (map.count == 0) return cudaSuccess;
    IndexMapKernel<T><<<launch.Blocks(map.count, kMapThreads), kMapThreads, 0, launch.stream>>>(
        map, static_cast<T*>(out), static_cast<const T*>(in));
    return cudaGetLastError();
}

}  // namespace

cudaError_t LaunchIndexMap(const IndexMap& map, uint32_t elementBytes, void* out, const void* in, LaunchTarget launch) {
    switch (elementBytes) {
        case 1: return LaunchTyped<uint8_t>(map, out, in, launch);
        case 2: return LaunchTyped<uint16_t>(map, out, in, launch);
        case 4: return LaunchTyped<uint32_t>(map, out, in, launch);
        case 8: return LaunchTyped<uint64_t>(map, out, in, launch);
        default: return cudaErrorInvalidValue;
    }
}

}  // namespace freedml::dml::cuda
