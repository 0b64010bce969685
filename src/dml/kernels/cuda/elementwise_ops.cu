// The element-wise operations the CUDA kernels need today (copy, activation, add), built on
// elementwise.cuh; also the device-side helpers the plugin shares (grid sizing, the probe that
// tells whether this build has code for a device).
#include <cmath>
#include <type_traits>
#include <string>

#include "dml/kernels/cuda/activation.cuh"
#include "dml/kernels/cuda/elementwise.cuh"

namespace freedml::backend::cuda {
bool KernelsRunOnDevice(int ordinal, std::string* why);
}

namespace freedml::dml::cuda {

namespace {

__global__ void Probe() {}

// Multiprocessors of the current device, read once per device.
int MultiprocessorCount() {
    constexpr int kMaxDevices = 64;
    static int counts[kMaxDevices] = {};
    int device = 0;
    cudaGetDevice(&device);
    if (device < 0 || device >= kMaxDevices) return 132;
    if (counts[device] == 0) {
        int count = 0;
        cudaDeviceGetAttribute(&count, cudaDevAttrMultiProcessorCount, device);
        counts[device] = count > 0 ? count : 132;
    }
    return counts[device];
}

struct Identity {
    template <class C>
    __device__ C operator()(C x) const { return x; }
};

// IDENTITY's ScaleBias: its own functor, so the element loop carries no activation switch.
struct ScaleBias {
    float scale, bias;
    template <class C>
    __device__ C operator()(C x) const { return x * C(scale) + C(bias); }
};

struct Activation {
    ActParams p;
    template <class C>
    __device__ C operator()(C x) const { return Activate(p, x); }
};

// Both float types keep the activation out of the loop when there is none (the common ADD).
struct Sum {
    template <class C>
    __device__ C operator()(C a, C b) const { return a + b; }
};

struct SumActivation {
    ActParams p;
    template <class C>
    __device__ C operator()(C a, C b) const { return Activate(p, a + b); }
};

// Integers add modulo 2^bits: through the unsigned type, where wrapping is defined.
template <class T>
struct WrappingSum {
    __device__ T operator()(T a, T b) const {
        using U = typename std::make_unsigned<T>::type;
        return T(U(a) + U(b));
    }
};

}  // namespace

int GridBlocks(uint64_t work, int threads) {
    const uint64_t wanted = (work + threads - 1) / threads;
    const uint64_t cap = uint64_t(MultiprocessorCount()) * 16;  // 16 blocks of 256 fill an SM
    return int(wanted < 1 ? 1 : (wanted < cap ? wanted : cap));
}

cudaError_t LaunchCopy(const EwPlan<2>& plan, uint32_t elementBytes, void* out, const void* in, cudaStream_t stream) {
    switch (elementBytes) {
        case 1: return LaunchUnaryTyped<uint8_t>(plan, Identity{}, out, in, stream);
        case 2: return LaunchUnaryTyped<uint16_t>(plan, Identity{}, out, in, stream);
        case 4: return LaunchUnaryTyped<uint32_t>(plan, Identity{}, out, in, stream);
        case 8: return LaunchUnaryTyped<uint64_t>(plan, Identity{}, out, in, stream);
        default: return cudaErrorInvalidValue;
    }
}

cudaError_t LaunchActivation(const EwPlan<2>& plan, ElementType type, const ActParams& act, void* out, const void* in,
                             cudaStream_t stream) {
    switch (act.act) {
        case Act::Linear: return LaunchUnaryMap(plan, type, ScaleBias{act.alpha, act.beta}, out, in, stream);
        default: return LaunchUnaryMap(plan, type, Activation{act}, out, in, stream);
    }
}

cudaError_t LaunchAdd(const EwPlan<3>& plan, ElementType type, const ActParams& act, void* out, const void* a,
                      const void* b, cudaStream_t stream) {
    switch (type) {
        case ElementType::F32: case ElementType::F16: case ElementType::F64:
            if (act.act == Act::None) return LaunchBinaryMap(plan, type, Sum{}, out, a, b, stream);
            return LaunchBinaryMap(plan, type, SumActivation{act}, out, a, b, stream);
        case ElementType::I8: return LaunchBinaryTyped<int8_t>(plan, WrappingSum<int8_t>{}, out, a, b, stream);
        case ElementType::U8: return LaunchBinaryTyped<uint8_t>(plan, WrappingSum<uint8_t>{}, out, a, b, stream);
        case ElementType::I16: return LaunchBinaryTyped<int16_t>(plan, WrappingSum<int16_t>{}, out, a, b, stream);
        case ElementType::U16: return LaunchBinaryTyped<uint16_t>(plan, WrappingSum<uint16_t>{}, out, a, b, stream);
        case ElementType::I32: return LaunchBinaryTyped<int32_t>(plan, WrappingSum<int32_t>{}, out, a, b, stream);
        case ElementType::U32: return LaunchBinaryTyped<uint32_t>(plan, WrappingSum<uint32_t>{}, out, a, b, stream);
        case ElementType::I64: return LaunchBinaryTyped<int64_t>(plan, WrappingSum<int64_t>{}, out, a, b, stream);
        case ElementType::U64: return LaunchBinaryTyped<uint64_t>(plan, WrappingSum<uint64_t>{}, out, a, b, stream);
    }
    return cudaErrorInvalidValue;
}

}  // namespace freedml::dml::cuda

namespace freedml::backend::cuda {

bool KernelsRunOnDevice(int ordinal, std::string* why) {
    int previous = 0;
    cudaGetDevice(&previous);
    cudaSetDevice(ordinal);
    cudaFuncAttributes attributes{};
    cudaError_t error = cudaFuncGetAttributes(&attributes, dml::cuda::Probe);
    cudaSetDevice(previous);
    if (error == cudaSuccess) return true;
    cudaGetLastError();
    *why = std::string("this build of the CUDA plugin has no code it can run there (") + cudaGetErrorString(error) +
           "); rebuild with FREEDML_CUDA_ARCHITECTURES naming its architecture";
    return false;
}

}  // namespace freedml::backend::cuda
