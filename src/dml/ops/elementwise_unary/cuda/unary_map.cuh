// The launch shapes the unary family needs beyond elementwise.cuh (whose same-type maps it uses
// for everything else): a map whose input and output types differ (CAST, BIT_COUNT, IS_NAN,
// IS_INFINITY), and a generator that writes a function of each element's logical index (the
// FILL_VALUE operators). Functors work on storage types here (no FLOAT16 compute type): a map is
// `TOut operator()(TIn) const`, a generator `T operator()(uint64_t index) const`.
//
// Packed tensors move 16 bytes per access on the narrower side: a thread takes K = 16 / the
// narrower element size consecutive elements, so the wider side moves K * its size (a multiple
// of 16 bytes). Anything else goes through the strided kernels, which index through the plan.
// Everything lives in its own namespace: other families have templates of the same names.
#pragma once

#include "dml/kernels/cuda/elementwise.cuh"

namespace freedml::dml::cuda::unary {

// K consecutive elements, aligned to 16 bytes so that the copy is vector accesses.
template <class T, int K>
struct alignas(16) Group {
    T v[K];
};

template <class TIn, class TOut>
struct MapShape {
    static constexpr int kNarrow = int(sizeof(TIn) < sizeof(TOut) ? sizeof(TIn) : sizeof(TOut));
    static constexpr int kWide = int(sizeof(TIn) < sizeof(TOut) ? sizeof(TOut) : sizeof(TIn));
    static constexpr int kCount = 16 / kNarrow;
    // Groups in flight per thread: about 64 bytes of the wider side.
    static constexpr int kUnroll = kCount * kWide >= 64 ? 1 : 64 / (kCount * kWide);
};

template <class TIn, class TOut, class F>
__global__ void __launch_bounds__(kThreads) MapStrided(StridedArgs<2> args, F f) {
    const uint64_t step = uint64_t(gridDim.x) * blockDim.x;
    for (uint64_t i = uint64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < args.plan.count; i += step) {
        int64_t o[2];
        Offsets(args.plan, i, o);
        const TIn x = reinterpret_cast<const TIn*>(args.base[1])[o[1]];
        reinterpret_cast<TOut*>(args.base[0])[o[0]] = f(x);
    }
}

template <class TIn, class TOut, class F>
__global__ void __launch_bounds__(kThreads) MapPacked(TOut* out, const TIn* in, uint64_t count, F f) {
    using Shape = MapShape<TIn, TOut>;
    constexpr int kCount = Shape::kCount, kUnroll = Shape::kUnroll;
    using GroupIn = Group<TIn, kCount>;
    using GroupOut = Group<TOut, kCount>;
    const uint64_t groups = count / kCount;
    const uint64_t step = uint64_t(gridDim.x) * blockDim.x;
    const GroupIn* gin = reinterpret_cast<const GroupIn*>(in);
    GroupOut* gout = reinterpret_cast<GroupOut*>(out);
    uint64_t i = uint64_t(blockIdx.x) * blockDim.x + threadIdx.x;
    for (; i + (kUnroll - 1) * step < groups; i += kUnroll * step) {
        GroupIn x[kUnroll];
#pragma unroll
        for (int u = 0; u < kUnroll; ++u) x[u] = gin[i + u * step];
#pragma unroll
        for (int u = 0; u < kUnroll; ++u) {
            GroupOut y;
#pragma unroll
            for (int e = 0; e < kCount; ++e) y.v[e] = f(x[u].v[e]);
            gout[i + u * step] = y;
        }
    }
    for (; i < groups; i += step) {
        const GroupIn x = gin[i];
        GroupOut y;
#pragma unroll
        for (int e = 0; e < kCount; ++e) y.v[e] = f(x.v[e]);
        gout[i] = y;
    }
    // The tail that does not fill a group (fewer elements than one block has threads).
    const uint64_t t = groups * kCount + uint64_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (t < count) out[t] = f(in[t]);
}

// out[i] = f(in[i]) for element types TIn -> TOut over any plan.
template <class TIn, class TOut, class F>
cudaError_t LaunchMap(const EwPlan<2>& plan, F f, void* out, const void* in, LaunchTarget launch) {
    if (plan.count == 0) return cudaSuccess;
    if (plan.Packed() && plan.strides[1][0] != 0 && Aligned16(out) && Aligned16(in)) {
        using Shape = MapShape<TIn, TOut>;
        const uint64_t groups = plan.count / Shape::kCount;
        const int blocks = launch.Blocks(groups > 0 ? (groups + Shape::kUnroll - 1) / Shape::kUnroll : 1, kThreads);
        MapPacked<TIn, TOut, F><<<blocks, kThreads, 0, launch.stream>>>(static_cast<TOut*>(out),
                                                                        static_cast<const TIn*>(in), plan.count, f);
    } else {
        StridedArgs<2> args{plan, {static_cast<char*>(out), const_cast<char*>(static_cast<const char*>(in))}};
        MapStrided<TIn, TOut, F><<<launch.Blocks(plan.count, kThreads), kThreads, 0, launch.stream>>>(args, f);
    }
    return cudaGetLastError();
}

// ---- Conversions shared by CAST and FILL_VALUE_SEQUENCE -------------------------------------

// float64 -> FLOAT16 in one rounding (to nearest even), as the CPU's DoubleToHalf: float64
// subnormals are far below half of FLOAT16's smallest subnormal, so they give a zero.
__device__ __forceinline__ uint16_t DoubleToHalfBits(double value) {
    const uint64_t bits = uint64_t(__double_as_longlong(value));
    const uint16_t sign = uint16_t((bits >> 48) & 0x8000);
    const int exponent = int((bits >> 52) & 0x7FF);
    const uint64_t fraction = bits & ((uint64_t(1) << 52) - 1);
    if (exponent == 0x7FF) return uint16_t(sign | 0x7C00 | (fraction ? 0x200 : 0));
    if (exponent == 0) return sign;
    const int e = exponent - 1023;
    if (e > 15) return uint16_t(sign | 0x7C00);
    const uint64_t mantissa = fraction | (uint64_t(1) << 52);
    // Keeps the bits above `shift`, rounding the rest to nearest even.
    auto round = [](uint64_t m, int shift) {
        const uint64_t kept = m >> shift, rest = m & ((uint64_t(1) << shift) - 1), halfway = uint64_t(1) << (shift - 1);
        return kept + ((rest > halfway || (rest == halfway && (kept & 1))) ? 1 : 0);
    };
    if (e >= -14) {
        // 11 significant bits; a carry moves into the exponent (and to infinity from the top).
        return uint16_t(sign | ((uint64_t(e + 15) << 10) + round(mantissa, 42) - 0x400));
    }
    const int shift = 28 - e;  // units of 2^-24
    if (shift > 53) return sign;
    return uint16_t(sign | round(mantissa, shift));
}

// ---- Generators: out[i] = g(logical index i) ----------------------------------------------------

template <class T, class G>
__global__ void __launch_bounds__(kThreads) GenerateStrided(StridedArgs<1> args, G g) {
    const uint64_t step = uint64_t(gridDim.x) * blockDim.x;
    for (uint64_t i = uint64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < args.plan.count; i += step) {
        int64_t o[1];
        Offsets(args.plan, i, o);
        reinterpret_cast<T*>(args.base[0])[o[0]] = g(i);
    }
}

template <class T, class G>
__global__ void __launch_bounds__(kThreads) GeneratePacked(T* out, uint64_t count, G g) {
    constexpr int kCount = 16 / int(sizeof(T));
    using GroupOut = Group<T, kCount>;
    const uint64_t groups = count / kCount;
    const uint64_t step = uint64_t(gridDim.x) * blockDim.x;
    GroupOut* gout = reinterpret_cast<GroupOut*>(out);
    for (uint64_t i = uint64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < groups; i += step) {
        GroupOut y;
#pragma unroll
        for (int e = 0; e < kCount; ++e) y.v[e] = g(i * kCount + e);
        gout[i] = y;
    }
    const uint64_t t = groups * kCount + uint64_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (t < count) out[t] = g(t);
}

// The plan's linear index is the logical (row-major) index: MakeEwPlan keeps the order of the
// dimensions, it only drops those of size 1 and merges contiguous neighbours.
template <class T, class G>
cudaError_t LaunchGenerate(const EwPlan<1>& plan, G g, void* out, LaunchTarget launch) {
    if (plan.count == 0) return cudaSuccess;
    if (plan.Packed() && plan.rank == 1 && Aligned16(out)) {
        const uint64_t groups = plan.count / (16 / sizeof(T));
        GeneratePacked<T, G><<<launch.Blocks(groups > 0 ? groups : 1, kThreads), kThreads, 0, launch.stream>>>(
            static_cast<T*>(out), plan.count, g);
    } else {
        StridedArgs<1> args{plan, {static_cast<char*>(out)}};
        GenerateStrided<T, G><<<launch.Blocks(plan.count, kThreads), kThreads, 0, launch.stream>>>(args, g);
    }
    return cudaGetLastError();
}

}  // namespace freedml::dml::cuda::unary
