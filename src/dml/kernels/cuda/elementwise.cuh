// The element-wise machinery of the CUDA kernels: one strided kernel and one packed, vectorized
// kernel per (storage type, functor). An operator family plugs in with a functor and one line:
//
//     struct Exp { template <class C> __device__ C operator()(C x) const { return exp(x); } };
//     return LaunchUnaryMap<Exp>(plan, type, Exp{}, out, in, launch);   // F32, F16, F64
//
// (LaunchBinaryMap likewise with `C operator()(C a, C b)`). Storage types load into a compute
// type (FLOAT16 computes in float and rounds once, to nearest even, when stored), so a functor
// is written once. Packed operands move 16 bytes per access, several accesses in flight per
// thread; anything else takes the strided kernel, which indexes through the plan's dimensions.
#pragma once

#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstdint>

#include "dml/kernels/cuda/ew_plan.h"

namespace freedml::dml::cuda {

template <class T> struct ComputeOf { using type = T; };
template <> struct ComputeOf<__half> { using type = float; };

template <class T>
__device__ __forceinline__ typename ComputeOf<T>::type LoadAs(const T* p) { return *p; }
template <>
__device__ __forceinline__ float LoadAs<__half>(const __half* p) { return __half2float(*p); }

template <class T>
__device__ __forceinline__ void StoreAs(T* p, typename ComputeOf<T>::type v) { *p = v; }
template <>
__device__ __forceinline__ void StoreAs<__half>(__half* p, float v) { *p = __float2half_rn(v); }

template <class T>
struct alignas(16) Vec {
    static constexpr int kCount = sizeof(T) >= 16 ? 1 : 16 / int(sizeof(T));
    T v[kCount];
};

constexpr int kThreads = 256;
constexpr int kUnroll = 4;  // independent 16-byte accesses per thread per step

// ---- Strided: any ranks and strides ------------------------------------------------------------

template <int N>
struct StridedArgs {
    EwPlan<N> plan;
    char* base[N];
};

template <int N>
__device__ __forceinline__ void Offsets(const EwPlan<N>& plan, uint64_t index, int64_t (&offset)[N]) {
    for (int k = 0; k < N; ++k) offset[k] = 0;
    for (int d = plan.rank - 1; d >= 0; --d) {
        const uint64_t size = plan.sizes[d];
        const uint64_t i = index % size;
        index /= size;
        for (int k = 0; k < N; ++k) offset[k] += int64_t(i) * plan.strides[k][d];
    }
}

template <class T, class F>
__global__ void __launch_bounds__(kThreads) UnaryStrided(StridedArgs<2> args, F f) {
    const uint64_t step = uint64_t(gridDim.x) * blockDim.x;
    for (uint64_t i = uint64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < args.plan.count; i += step) {
        int64_t o[2];
        Offsets(args.plan, i, o);
        const T* in = reinterpret_cast<const T*>(args.base[1]) + o[1];
        StoreAs(reinterpret_cast<T*>(args.base[0]) + o[0], f(LoadAs(in)));
    }
}

template <class T, class F>
__global__ void __launch_bounds__(kThreads) BinaryStrided(StridedArgs<3> args, F f) {
    const uint64_t step = uint64_t(gridDim.x) * blockDim.x;
    for (uint64_t i = uint64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < args.plan.count; i += step) {
        int64_t o[3];
        Offsets(args.plan, i, o);
        const T* a = reinterpret_cast<const T*>(args.base[1]) + o[1];
        const T* b = reinterpret_cast<const T*>(args.base[2]) + o[2];
        StoreAs(reinterpret_cast<T*>(args.base[0]) + o[0], f(LoadAs(a), LoadAs(b)));
    }
}

// ---- Packed: contiguous operands (inputs may be broadcast scalars) -----------------------------

template <class T, class F>
__global__ void __launch_bounds__(kThreads) UnaryPacked(T* out, const T* in, uint64_t count, F f) {
    using V = Vec<T>;
    constexpr int kVec = V::kCount;
    const uint64_t vectors = count / kVec;
    const uint64_t step = uint64_t(gridDim.x) * blockDim.x;
    uint64_t i = uint64_t(blockIdx.x) * blockDim.x + threadIdx.x;
    const V* vin = reinterpret_cast<const V*>(in);
    V* vout = reinterpret_cast<V*>(out);
    for (; i + (kUnroll - 1) * step < vectors; i += kUnroll * step) {
        V x[kUnroll];
#pragma unroll
        for (int u = 0; u < kUnroll; ++u) x[u] = vin[i + u * step];
#pragma unroll
        for (int u = 0; u < kUnroll; ++u) {
#pragma unroll
            for (int e = 0; e < kVec; ++e) StoreAs(&x[u].v[e], f(LoadAs(&x[u].v[e])));
            vout[i + u * step] = x[u];
        }
    }
    for (; i < vectors; i += step) {
        V x = vin[i];
#pragma unroll
        for (int e = 0; e < kVec; ++e) StoreAs(&x.v[e], f(LoadAs(&x.v[e])));
        vout[i] = x;
    }
    // The tail that does not fill a vector.
    const uint64_t t = vectors * kVec + uint64_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (t < count) StoreAs(out + t, f(LoadAs(in + t)));
}

// aScalar / bScalar: that input is one element broadcast over the output.
template <class T, class F>
__global__ void __launch_bounds__(kThreads) BinaryPacked(T* out, const T* a, const T* b, bool aScalar, bool bScalar,
                                                         uint64_t count, F f) {
    using V = Vec<T>;
    using C = typename ComputeOf<T>::type;
    constexpr int kVec = V::kCount;
    const uint64_t vectors = count / kVec;
    const uint64_t step = uint64_t(gridDim.x) * blockDim.x;
    uint64_t i = uint64_t(blockIdx.x) * blockDim.x + threadIdx.x;
    const V* va = reinterpret_cast<const V*>(a);
    const V* vb = reinterpret_cast<const V*>(b);
    V* vout = reinterpret_cast<V*>(out);
    const C sa = aScalar ? LoadAs(a) : C(0), sb = bScalar ? LoadAs(b) : C(0);
    for (; i + (kUnroll - 1) * step < vectors; i += kUnroll * step) {
        V x[kUnroll], y[kUnroll];
#pragma unroll
        for (int u = 0; u < kUnroll; ++u) {
            if (!aScalar) x[u] = va[i + u * step];
            if (!bScalar) y[u] = vb[i + u * step];
        }
#pragma unroll
        for (int u = 0; u < kUnroll; ++u) {
#pragma unroll
            for (int e = 0; e < kVec; ++e) {
                C p = aScalar ? sa : LoadAs(&x[u].v[e]);
                C q = bScalar ? sb : LoadAs(&y[u].v[e]);
                StoreAs(&x[u].v[e], f(p, q));
            }
            vout[i + u * step] = x[u];
        }
    }
    for (; i < vectors; i += step) {
        V x, y;
        if (!aScalar) x = va[i];
        if (!bScalar) y = vb[i];
#pragma unroll
        for (int e = 0; e < kVec; ++e) {
            C p = aScalar ? sa : LoadAs(&x.v[e]);
            C q = bScalar ? sb : LoadAs(&y.v[e]);
            StoreAs(&x.v[e], f(p, q));
        }
        vout[i] = x;
    }
    const uint64_t t = vectors * kVec + uint64_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (t < count) StoreAs(out + t, f(aScalar ? sa : LoadAs(a + t), bScalar ? sb : LoadAs(b + t)));
}

inline bool Aligned16(const void* p) { return (reinterpret_cast<uintptr_t>(p) & 15) == 0; }

// ---- Typed launches ----------------------------------------------------------------------------

template <class T, class F>
cudaError_t LaunchUnaryTyped(const EwPlan<2>& plan, F f, void* out, const void* in, LaunchTarget launch) {
    if (plan.count == 0) return cudaSuccess;
    if (plan.Packed() && plan.strides[1][0] != 0 && Aligned16(out) && Aligned16(in)) {
        const uint64_t vectors = plan.count / Vec<T>::kCount;
        int blocks = launch.Blocks(vectors > 0 ? (vectors + kUnroll - 1) / kUnroll : 1, kThreads);
        UnaryPacked<T, F><<<blocks, kThreads, 0, launch.stream>>>(static_cast<T*>(out), static_cast<const T*>(in),
                                                                  plan.count, f);
    } else {
        StridedArgs<2> args{plan, {static_cast<char*>(out), const_cast<char*>(static_cast<const char*>(in))}};
        UnaryStrided<T, F><<<launch.Blocks(plan.count, kThreads), kThreads, 0, launch.stream>>>(args, f);
    }
    return cudaGetLastError();
}

template <class T, class F>
cudaError_t LaunchBinaryTyped(const EwPlan<3>& plan, F f, void* out, const void* a, const void* b,
                              LaunchTarget launch) {
    if (plan.count == 0) return cudaSuccess;
    const bool aScalar = plan.rank == 0 || plan.strides[1][0] == 0;
    const bool bScalar = plan.rank == 0 || plan.strides[2][0] == 0;
    if (plan.Packed() && Aligned16(out) && (aScalar || Aligned16(a)) && (bScalar || Aligned16(b))) {
        const uint64_t vectors = plan.count / Vec<T>::kCount;
        int blocks = launch.Blocks(vectors > 0 ? (vectors + kUnroll - 1) / kUnroll : 1, kThreads);
        BinaryPacked<T, F><<<blocks, kThreads, 0, launch.stream>>>(
            static_cast<T*>(out), static_cast<const T*>(a), static_cast<const T*>(b), aScalar, bScalar, plan.count, f);
    } else {
        StridedArgs<3> args{plan,
                            {static_cast<char*>(out), const_cast<char*>(static_cast<const char*>(a)),
                             const_cast<char*>(static_cast<const char*>(b))}};
        BinaryStrided<T, F><<<launch.Blocks(plan.count, kThreads), kThreads, 0, launch.stream>>>(args, f);
    }
    return cudaGetLastError();
}

// F32, F16 and F64 with a functor of the compute type (float, float, double).
template <class F>
cudaError_t LaunchUnaryMap(const EwPlan<2>& plan, ElementType type, F f, void* out, const void* in,
                           LaunchTarget launch) {
    switch (type) {
        case ElementType::F32: return LaunchUnaryTyped<float>(plan, f, out, in, launch);
        case ElementType::F16: return LaunchUnaryTyped<__half>(plan, f, out, in, launch);
        case ElementType::F64: return LaunchUnaryTyped<double>(plan, f, out, in, launch);
        default: return cudaErrorInvalidValue;
    }
}

template <class F>
cudaError_t LaunchBinaryMap(const EwPlan<3>& plan, ElementType type, F f, void* out, const void* a, const void* b,
                            LaunchTarget launch) {
    switch (type) {
        case ElementType::F32: return LaunchBinaryTyped<float>(plan, f, out, a, b, launch);
        case ElementType::F16: return LaunchBinaryTyped<__half>(plan, f, out, a, b, launch);
        case ElementType::F64: return LaunchBinaryTyped<double>(plan, f, out, a, b, launch);
        default: return cudaErrorInvalidValue;
    }
}

}  // namespace freedml::dml::cuda
