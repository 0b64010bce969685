// The element-wise operations the CUDA kernels need today (copy, activation, add), built on
// elementwise.cuh; also the probe that tells whether this build has code for a device.
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

cudaError_t LaunchCopy(const EwPlan<2>& plan, uint32_t elementBytes, void* out, const void* in, LaunchTarget launch) {
    switch (elementBytes) {
        case 1: return LaunchUnaryTyped<uint8_t>(plan, Identity{}, out, in, launch);
        case 2: return LaunchUnaryTyped<uint16_t>(plan, Identity{}, out, in, launch);
        case 4: return LaunchUnaryTyped<uint32_t>(plan, Identity{}, out, in, launch);
        case 8: return LaunchUnaryTyped<uint64_t>(plan, Identity{}, out, in, launch);
        default: return cudaErrorInvalidValue;
    }
}

cudaError_t LaunchActivation(const EwPlan<2>& plan, ElementType type, const ActParams& act, void* out, const void* in,
                             LaunchTarget launch) {
    switch (act.act) {
        case Act::Linear: return LaunchUnaryMap(plan, type, ScaleBias{act.alpha, act.beta}, out, in, launch);
        default: return LaunchUnaryMap(plan, type, Activation{act}, out, in, launch);
    }
}

cudaError_t LaunchAdd(const EwPlan<3>& plan, ElementType type, const ActParams& act, void* out, const void* a,
                      const void* b, LaunchTarget launch) {
    switch (type) {
        case ElementType::F32: case ElementType::F16: case ElementType::F64:
            if (act.act == Act::None) return LaunchBinaryMap(plan, type, Sum{}, out, a, b, launch);
            return LaunchBinaryMap(plan, type, SumActivation{act}, out, a, b, launch);
        case ElementType::I8: return LaunchBinaryTyped<int8_t>(plan, WrappingSum<int8_t>{}, out, a, b, launch);
        case ElementType::U8: return LaunchBinaryTyped<uint8_t>(plan, WrappingSum<uint8_t>{}, out, a, b, launch);
        case ElementType::I16: return LaunchBinaryTyped<int16_t>(plan, WrappingSum<int16_t>{}, out, a, b, launch);
        case ElementType::U16: return LaunchBinaryTyped<uint16_t>(plan, WrappingSum<uint16_t>{}, out, a, b, launch);
        case ElementType::I32: return LaunchBinaryTyped<int32_t>(plan, WrappingSum<int32_t>{}, out, a, b, launch);
        case ElementType::U32: return LaunchBinaryTyped<uint32_t>(plan, WrappingSum<uint32_t>{}, out, a, b, launch);
        case ElementType::I64: return LaunchBinaryTyped<int64_t>(plan, WrappingSum<int64_t>{}, out, a, b, launch);
        case ElementType::U64: return LaunchBinaryTyped<uint64_t>(plan, WrappingSum<uint64_t>{}, out, a, b, launch);
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
