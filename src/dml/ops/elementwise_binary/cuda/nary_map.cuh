// Element-wise maps whose operands do not share one type, or that have more than two inputs:
// comparisons (numbers in, UINT8/UINT32 out), quantization (three to eight inputs of mixed types)
// and selection. The companion of elementwise.cuh, whose loads, stores and grid sizing it reuses:
//
//     struct Less { template <class C> __device__ uint8_t operator()(C a, C b) const { return a < b; } };
//     LaunchNary<Less, uint8_t, float, float>(plan, Less{}, out, {a, b}, launch);
//
// A functor takes each input in its compute type (FLOAT16 as float) and returns the output's
// compute type. Packed operands (inputs may be broadcast scalars) move up to 16 bytes per access:
// each thread takes K consecutive elements, K = 16 bytes / the widest operand; anything else goes
// through the strided kernel.
#pragma once

#include <utility>

#include "dml/kernels/cuda/elementwise.cuh"

namespace freedml::dml::cuda {

// K consecutive elements of T, aligned as a whole, so that one access moves them.
template <class T, int K>
struct alignas(sizeof(T) * K) Pack {
    T v[K];
};

template <class... T>
constexpr size_t WidestOf() {
    size_t widest = 1;
    ((widest = sizeof(T) > widest ? sizeof(T) : widest), ...);
    return widest;
}

// One Pack per input, addressed by the input's position.
template <int K, size_t I, class T>
struct PackSlot {
    Pack<T, K> pack;
};
template <int K, class Sequence, class... T>
struct PackSet;
template <int K, size_t... I, class... T>
struct PackSet<K, std::index_sequence<I...>, T...> : PackSlot<K, I, T>... {};

template <size_t I, int K, class T>
__device__ __forceinline__ Pack<T, K>& SlotOf(PackSlot<K, I, T>& slot) { return slot.pack; }

template <int N>
struct NaryPointers {
    char* base[N];  // the output, then the inputs
};

template <class F, class TOut, class... TIn, size_t... I>
__device__ __forceinline__ void NaryElement(const NaryPointers<1 + sizeof...(TIn)>& p, const int64_t* offset, F& f,
                                            std::index_sequence<I...>) {
    StoreAs(reinterpret_cast<TOut*>(p.base[0]) + offset[0],
            f(LoadAs(reinterpret_cast<const TIn*>(p.base[I + 1]) + offset[I + 1])...));
}

template <class F, class TOut, class... TIn>
__global__ void __launch_bounds__(kThreads)
    NaryStrided(EwPlan<1 + sizeof...(TIn)> plan, NaryPointers<1 + sizeof...(TIn)> p, F f) {
    constexpr int N = 1 + sizeof...(TIn);
    const uint64_t step = uint64_t(gridDim.x) * blockDim.x;
    for (uint64_t i = uint64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < plan.count; i += step) {
        int64_t offset[N];
        Offsets(plan, i, offset);
        NaryElement<F, TOut, TIn...>(p, offset, f, std::index_sequence_for<TIn...>{});
    }
}

// Packed: every operand contiguous from its base; scalar[k] says input k is one element
// broadcast over the output. Inputs are read before the output is written, so the output may
// be one of them (in-place execution).
template <class F, class TOut, class... TIn>
struct NaryPacked {
    static constexpr int kInputs = sizeof...(TIn);
    static constexpr int K = int(16 / WidestOf<TOut, TIn...>());
    using Packs = PackSet<K, std::index_sequence_for<TIn...>, TIn...>;

    template <size_t I, class T>
    static __device__ __forceinline__ void Fill(Packs& packs, const NaryPointers<1 + kInputs>& p, const bool* scalar) {
        if (!scalar[I]) return;
        const T value = *reinterpret_cast<const T*>(p.base[I + 1]);
#pragma unroll
        for (int e = 0; e < K; ++e) SlotOf<I>(packs).v[e] = value;
    }

    template <size_t I, class T>
    static __device__ __forceinline__ void Load(Packs& packs, const NaryPointers<1 + kInputs>& p, const bool* scalar,
                                                uint64_t vector) {
        if (!scalar[I]) SlotOf<I>(packs) = reinterpret_cast<const Pack<T, K>*>(p.base[I + 1])[vector];
    }

    template <size_t... I>
    static __device__ __forceinline__ void Run(const NaryPointers<1 + kInputs>& p, const bool* scalar, uint64_t count,
                                               F& f, std::index_sequence<I...>) {
        Packs packs;
        (Fill<I, TIn>(packs, p, scalar), ...);
        const uint64_t vectors = count / K;
        const uint64_t step = uint64_t(gridDim.x) * blockDim.x;
        const uint64_t first = uint64_t(blockIdx.x) * blockDim.x + threadIdx.x;
        Pack<TOut, K>* out = reinterpret_cast<Pack<TOut, K>*>(p.base[0]);
        for (uint64_t i = first; i < vectors; i += step) {
            (Load<I, TIn>(packs, p, scalar, i), ...);
            Pack<TOut, K> result;
#pragma unroll
            for (int e = 0; e < K; ++e) StoreAs(&result.v[e], f(LoadAs(&SlotOf<I>(packs).v[e])...));
            out[i] = result;
        }
        // The tail that does not fill a pack.
        const uint64_t t = vectors * K + first;
        if (t < count) {
            StoreAs(reinterpret_cast<TOut*>(p.base[0]) + t,
                    f(LoadAs(reinterpret_cast<const TIn*>(p.base[I + 1]) + (scalar[I] ? 0 : t))...));
        }
    }
};

template <int N>
struct ScalarFlags {
    bool scalar[N > 1 ? N - 1 : 1];
};

template <class F, class TOut, class... TIn>
__global__ void __launch_bounds__(kThreads)
    NaryPackedKernel(NaryPointers<1 + sizeof...(TIn)> p, ScalarFlags<1 + sizeof...(TIn)> flags, uint64_t count, F f) {
    NaryPacked<F, TOut, TIn...>::Run(p, flags.scalar, count, f, std::index_sequence_for<TIn...>{});
}

// out = f(in[0], in[1], ...) over `plan` (operand 0 the output, then the inputs in order).
template <class F, class TOut, class... TIn>
cudaError_t LaunchNary(const EwPlan<1 + sizeof...(TIn)>& plan, F f, void* out,
                       const void* const (&in)[sizeof...(TIn)], LaunchTarget launch) {
    constexpr int N = 1 + sizeof...(TIn);
    if (plan.count == 0) return cudaSuccess;
    NaryPointers<N> p;
    p.base[0] = static_cast<char*>(out);
    for (int k = 1; k < N; ++k) p.base[k] = const_cast<char*>(static_cast<const char*>(in[k - 1]));
    ScalarFlags<N> flags;
    bool packed = plan.Packed() && Aligned16(out);
    for (int k = 1; k < N; ++k) {
        flags.scalar[k - 1] = plan.rank == 0 || plan.strides[k][0] == 0;
        packed = packed && (flags.scalar[k - 1] || Aligned16(in[k - 1]));
    }
    if (packed) {
        constexpr int K = NaryPacked<F, TOut, TIn...>::K;
        const uint64_t vectors = plan.count / K;
        const int blocks = launch.Blocks(vectors > 0 ? vectors : 1, kThreads);
        NaryPackedKernel<F, TOut, TIn...><<<blocks, kThreads, 0, launch.stream>>>(p, flags, plan.count, f);
    } else {
        NaryStrided<F, TOut, TIn...><<<launch.Blocks(plan.count, kThreads), kThreads, 0, launch.stream>>>(plan, p, f);
    }
    return cudaGetLastError();
}

}  // namespace freedml::dml::cuda
