// Where a kernel of the CUDA plugin launches: a queue's stream and the facts of its device that
// size the grid, as CudaStream::Launch() hands them out. Plain data with no FreeDML dependency, so
// that the .cu files can take it without the backend's headers.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

namespace freedml::backend::cuda {

struct LaunchTarget {
    cudaStream_t stream = nullptr;
    // The device's streaming multiprocessors (cudaDeviceProp::multiProcessorCount, read when the
    // adapter was created).
    int multiprocessors = 0;

    // Blocks for a grid-stride loop over `work` items of `threads` threads each: enough to fill
    // the device (16 blocks of 256 threads fill a multiprocessor), no more, and at least one.
    // With no multiprocessors it is 0 blocks, which the CUDA runtime refuses to launch (CUDA 13
    // says cudaErrorInvalidValue); the test hook of CudaStream relies on this.
    int Blocks(uint64_t work, int threads) const {
        const uint64_t wanted = (work + uint64_t(threads) - 1) / uint64_t(threads);
        const uint64_t cap = uint64_t(multiprocessors > 0 ? multiprocessors : 0) * 16;
        if (cap == 0) return 0;
        return int(wanted < 1 ? 1 : (wanted < cap ? wanted : cap));
    }
};

// A byte pattern of 1 to 16 bytes, passed by value to the fill kernel.
struct FillPattern {
    unsigned char bytes[16];
    uint32_t size;
};

// Enqueues on `target.stream` a kernel that repeats `pattern` over `byteCount` bytes from
// `destination` (a device pointer; byteCount a multiple of pattern.size). Returns the launch's error.
cudaError_t LaunchFill(const LaunchTarget& target, void* destination, uint64_t byteCount, const FillPattern& pattern);

}  // namespace freedml::backend::cuda
