// The fill kernel of CudaStream::Fill: a byte pattern repeated over a range of device memory
// (ClearUnorderedAccessViewUint/Float). Whole 32-bit words where the range allows it, bytes
// otherwise.
#include "backend/cuda/launch.h"

namespace freedml::backend::cuda {

namespace {

constexpr int kThreads = 256;

// `words` (1 to 4) 32-bit words of pattern, repeated over `count` words.
__global__ void FillWords(uint32_t* destination, uint64_t count, uint4 pattern, uint32_t words) {
    const uint32_t values[4] = {pattern.x, pattern.y, pattern.z, pattern.w};
    for (uint64_t i = blockIdx.x * uint64_t(blockDim.x) + threadIdx.x; i < count; i += uint64_t(gridDim.x) * blockDim.x) {
        destination[i] = values[i % words];
    }
}

__global__ void FillBytes(unsigned char* destination, uint64_t count, FillPattern pattern) {
    for (uint64_t i = blockIdx.x * uint64_t(blockDim.x) + threadIdx.x; i < count; i += uint64_t(gridDim.x) * blockDim.x) {
        destination[i] = pattern.bytes[i % pattern.size];
    }
}

}  // namespace

cudaError_t LaunchFill(const LaunchTarget& target, void* destination, uint64_t byteCount, const FillPattern& pattern) {
    // A pattern of 1, 2 or 4 bytes repeats within one word; 8, 12 and 16 bytes are 2 to 4 words.
    const uint32_t wordBytes = pattern.size <= 4 ? 4 : pattern.size;
    const bool wordsFit = (pattern.size == 1 || pattern.size == 2 || pattern.size % 4 == 0) &&
                          reinterpret_cast<uintptr_t>(destination) % 4 == 0 && byteCount % wordBytes == 0;
    if (wordsFit) {
        unsigned char word[16] = {};
        for (uint32_t i = 0; i < wordBytes; ++i) word[i] = pattern.bytes[i % pattern.size];
        uint4 packed;
        __builtin_memcpy(&packed, word, sizeof(packed));
        const uint64_t count = byteCount / 4;
        FillWords<<<target.Blocks(count, kThreads), kThreads, 0, target.stream>>>(static_cast<uint32_t*>(destination),
                                                                                  count, packed, wordBytes / 4);
    } else {
        FillBytes<<<target.Blocks(byteCount, kThreads), kThreads, 0, target.stream>>>(
            static_cast<unsigned char*>(destination), byteCount, pattern);
    }
    return cudaGetLastError();
}

}  // namespace freedml::backend::cuda
