// Device code of the activation operators that the fused-activation launch (LaunchActivation in
// elementwise_ops.cu) does not cover: integer RELU and SHRINK, PARAMETERIZED_RELU, RELU_GRAD (all
// on elementwise.cuh's strided and packed maps) and the axis functions SOFTMAX, LOG_SOFTMAX and
// HARDMAX with their `1` forms.
//
// The axis functions give each row (one index of the kept dimensions) to a warp, to a block when
// the row is long, or to a single thread when rows are many, short and side by side in memory
// (softmax over NCHW's channels). A row takes three passes: the maximum (and whether a NaN is
// present), the sum of exponentials, the output. Rows short enough keep their values in registers
// between the passes, so the input is read once; longer rows read it again, from cache.
#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "dml/kernels/cuda/elementwise.cuh"
#include "dml/kernels/integer_math.h"
#include "dml/ops/activation/cuda/activation_plan.h"

namespace freedml::dml::cuda {

namespace {

// ---- Element-wise functors ----------------------------------------------------------------------

struct IntegerRelu {
    template <class T>
    __device__ T operator()(T x) const { return x > T(0) ? x : T(0); }
};

// SHRINK on an integer: the formula the CPU kernel uses too (integer_math.h).
template <class T>
struct IntegerShrink {
    double bias, threshold;
    __device__ T operator()(T x) const { return ShrinkInteger(x, bias, threshold); }
};

struct FloatParameterizedRelu {
    template <class C>
    __device__ C operator()(C x, C slope) const { return x >= C(0) ? x : slope * x; }
};

// The product wraps modulo 2^bits, as integer ADD does.
template <class T>
struct IntegerParameterizedRelu {
    __device__ T operator()(T x, T slope) const {
        using U = typename std::make_unsigned<T>::type;
        return x >= T(0) ? x : T(U(uint64_t(int64_t(slope) * int64_t(x))));
    }
};

// RELU_GRAD selects dy as bits: no arithmetic touches it, so NaN payloads and -0 pass unchanged.
struct Float32ReluGrad {
    __device__ uint32_t operator()(uint32_t x, uint32_t dy) const { return __uint_as_float(x) > 0.0f ? dy : 0u; }
};

// x > 0 for FLOAT16 bits: sign clear, not zero, not NaN.
struct Float16ReluGrad {
    __device__ uint16_t operator()(uint16_t x, uint16_t dy) const {
        const bool positive = !(x & 0x8000u) && x != 0 && x <= 0x7C00u;
        return positive ? dy : uint16_t(0);
    }
};

struct IntegerReluGrad {
    template <class T>
    __device__ T operator()(T x, T dy) const { return x > T(0) ? dy : T(0); }
};

template <class T>
cudaError_t LaunchShrinkTyped(const EwPlan<2>& plan, float bias, float threshold, void* out, const void* in,
                              LaunchTarget launch) {
    const IntegerShrink<T> f{bias, threshold};
    return LaunchUnaryTyped<T>(plan, f, out, in, launch);
}

// ---- Axis functions -----------------------------------------------------------------------------

// What exp and the sum run in: double for FLOAT32 (as the CPU kernel, so x - max is exact and the
// result is rounded once), float for FLOAT16.
template <class T> struct AccumOf { using type = double; };
template <> struct AccumOf<__half> { using type = float; };

constexpr uint64_t kNoIndex = ~uint64_t(0);

// Where Auto gives each row one thread (see ChooseLaunch).
constexpr uint64_t kThreadRowMaxLength = 256;
constexpr uint64_t kThreadRowMinRows = 16384;
// The longest row Auto gives a warp.
constexpr uint64_t kWarpRowMaxLength = 1024;

// A candidate maximum: its value, its index in the row (kNoIndex: none yet), whether a NaN was seen.
template <class C>
struct Candidate {
    C value;
    uint64_t index;
    int nan;
};

__device__ __forceinline__ float ShuffleXor(float v, int mask) { return __shfl_xor_sync(0xffffffffu, v, mask); }
__device__ __forceinline__ double ShuffleXor(double v, int mask) { return __shfl_xor_sync(0xffffffffu, v, mask); }
template <class C>
__device__ __forceinline__ Candidate<C> ShuffleXor(Candidate<C> c, int mask) {
    c.value = ShuffleXor(c.value, mask);
    c.index = uint64_t(__shfl_xor_sync(0xffffffffu, static_cast<unsigned long long>(c.index), mask));
    c.nan = __shfl_xor_sync(0xffffffffu, c.nan, mask);
    return c;
}

// Softmax forms: the largest number (NaNs aside) at its first index, and whether any NaN was seen.
struct LargestNumber {
    template <class C>
    __device__ Candidate<C> operator()(Candidate<C> a, Candidate<C> b) const {
        Candidate<C> r = (b.value > a.value || (b.value == a.value && b.index < a.index)) ? b : a;
        r.nan = a.nan | b.nan;
        return r;
    }
};

// Hardmax: the first NaN if there is one, else the first maximum (a NaN counts as the largest).
struct FirstMaximum {
    template <class C>
    __device__ Candidate<C> operator()(Candidate<C> a, Candidate<C> b) const {
        if (a.index == kNoIndex) return b;
        if (b.index == kNoIndex) return a;
        const bool aNan = a.value != a.value, bNan = b.value != b.value;
        if (aNan != bNan) return aNan ? a : b;
        if (!aNan && a.value != b.value) return a.value > b.value ? a : b;
        return a.index < b.index ? a : b;
    }
};

struct Sum {
    template <class A>
    __device__ A operator()(A a, A b) const { return a + b; }
};

// The threads that share one row: a warp. Every lane gets the result of Reduce (the operations
// are commutative, so the butterfly agrees on every lane).
struct WarpGroup {
    static constexpr int kThreads = 32;
    __device__ int Rank() const { return threadIdx.x & 31; }
    template <class V, class Op>
    __device__ V Reduce(V v, Op op) const {
#pragma unroll
        for (int mask = 16; mask > 0; mask >>= 1) v = op(v, ShuffleXor(v, mask));
        return v;
    }
};

// A whole block per row: warps reduce, then every thread folds the warps' results in the same
// order (so all agree) from shared memory.
template <int kBlockThreads>
struct BlockGroup {
    static constexpr int kThreads = kBlockThreads;
    unsigned char* scratch;  // room for one reduced value per warp
    __device__ int Rank() const { return threadIdx.x; }
    template <class V, class Op>
    __device__ V Reduce(V v, Op op) const {
        v = WarpGroup{}.Reduce(v, op);
        V* shared = reinterpret_cast<V*>(scratch);
        __syncthreads();  // the previous reduction's readers are done with `shared`
        if ((threadIdx.x & 31) == 0) shared[threadIdx.x >> 5] = v;
        __syncthreads();
        V r = shared[0];
#pragma unroll
        for (int w = 1; w < kBlockThreads / 32; ++w) r = op(r, shared[w]);
        return r;
    }
};

// Element i of a row: a multiply when the row is one dimension (the common, innermost case).
__device__ __forceinline__ void RowOffsets(const EwPlan<2>& row, uint64_t i, int64_t (&o)[2]) {
    if (row.rank <= 1) {
        o[0] = int64_t(i) * row.strides[0][0];
        o[1] = int64_t(i) * row.strides[1][0];
    } else {
        Offsets(row, i, o);
    }
}

// Calls f(slot, i) for the row elements this thread owns, in increasing i: `slot` is the register
// that caches element i when kCache > 0.
template <int kCache, int kStep, class F>
__device__ __forceinline__ void ForOwned(uint64_t first, uint64_t n, F&& f) {
    if constexpr (kCache > 0) {
#pragma unroll
        for (int j = 0; j < kCache; ++j) {
            const uint64_t i = first + uint64_t(j) * kStep;
            if (i < n) f(j, i);
        }
    } else {
        for (uint64_t i = first; i < n; i += kStep) f(0, i);
    }
}

// One row: `out` and `in` point at its first element.
template <class T, int kCache, class Group>
__device__ __forceinline__ void RunRow(const AxisPlan& plan, T* out, const T* in, const Group& group) {
    using C = typename ComputeOf<T>::type;
    using A = typename AccumOf<T>::type;
    constexpr int kStep = Group::kThreads;
    const uint64_t n = plan.row.count;
    const uint64_t first = group.Rank();
    auto load = [&](uint64_t i) -> C {
        int64_t o[2];
        RowOffsets(plan.row, i, o);
        return LoadAs(in + o[1]);
    };
    auto store = [&](uint64_t i, C v) {
        int64_t o[2];
        RowOffsets(plan.row, i, o);
        StoreAs(out + o[0], v);
    };
    C cache[kCache > 0 ? kCache : 1] = {};
    auto value = [&](int j, uint64_t i) -> C {
        if constexpr (kCache > 0) {
            return cache[j];
        } else {
            return load(i);
        }
    };
    if constexpr (kCache > 0) {
        ForOwned<kCache, kStep>(first, n, [&](int j, uint64_t i) { cache[j] = load(i); });
    }

    if (plan.function == AxisFunction::Hardmax) {
        Candidate<C> best{C(0), kNoIndex, 0};
        ForOwned<kCache, kStep>(first, n, [&](int j, uint64_t i) {
            const C v = value(j, i);
            if (best.index == kNoIndex || (best.value == best.value && (v > best.value || v != v))) {
                best = {v, i, 0};
            }
        });
        best = group.Reduce(best, FirstMaximum{});
        ForOwned<kCache, kStep>(first, n, [&](int, uint64_t i) { store(i, i == best.index ? C(1) : C(0)); });
        return;
    }

    // The largest number and its first index, whose exp(x - max) is exactly 1.
    Candidate<C> top{C(-INFINITY), kNoIndex, 0};
    ForOwned<kCache, kStep>(first, n, [&](int j, uint64_t i) {
        const C v = value(j, i);
        if (v > top.value) top.value = v, top.index = i;
        top.nan |= v != v;
    });
    top = group.Reduce(top, LargestNumber{});
    const A max = top.nan ? A(NAN) : A(top.value);

    if (plan.function == AxisFunction::Softmax) {
        A e[kCache > 0 ? kCache : 1] = {};
        A sum = 0;
        ForOwned<kCache, kStep>(first, n, [&](int j, uint64_t i) {
            const A x = exp(A(value(j, i)) - max);
            if constexpr (kCache > 0) e[j] = x;
            sum += x;
        });
        sum = group.Reduce(sum, Sum{});
        ForOwned<kCache, kStep>(first, n, [&](int j, uint64_t i) {
            A x;
            if constexpr (kCache > 0) {
                x = e[j];
            } else {
                x = exp(A(value(j, i)) - max);
            }
            store(i, C(x / sum));
        });
        return;
    }

    // LOG_SOFTMAX: log(1 + rest) through log1p keeps the digits of a small rest; a NaN, a +inf or a
    // row of -inf only gives NaN throughout, as the formula has it.
    A rest = 0;
    ForOwned<kCache, kStep>(first, n, [&](int j, uint64_t i) {
        if (i != top.index) rest += exp(A(value(j, i)) - max);
    });
    rest = group.Reduce(rest, Sum{});
    const A logSum = top.nan || isinf(top.value) ? A(NAN) : log1p(rest);
    ForOwned<kCache, kStep>(first, n, [&](int j, uint64_t i) { store(i, C((A(value(j, i)) - max) - logSum)); });
}

// One thread per row, rows side by side: for rows whose elements lie apart (a reduction over an
// outer axis, softmax over NCHW's channels) while neighbouring rows are neighbours in memory, so
// that a warp's loads are contiguous.
struct ThreadGroup {
    static constexpr int kThreads = 1;
    __device__ int Rank() const { return 0; }
    template <class V, class Op>
    __device__ V Reduce(V v, Op) const { return v; }
};

constexpr int kRowsBlockThreads = 256;  // the warp- and thread-per-row kernels' block
constexpr int kCachedRowThreads = 256;  // a block per cached row
constexpr int kLongRowThreads = 1024;   // a block per row too long to cache

template <class T, int kCache>
__global__ void __launch_bounds__(kRowsBlockThreads) AxisWarpPerRow(AxisPlan plan, T* out, const T* in) {
    const uint64_t warps = uint64_t(gridDim.x) * (kRowsBlockThreads / 32);
    for (uint64_t r = (uint64_t(blockIdx.x) * kRowsBlockThreads + threadIdx.x) / 32; r < plan.rows.count; r += warps) {
        int64_t o[2];
        Offsets(plan.rows, r, o);
        RunRow<T, kCache>(plan, out + o[0], in + o[1], WarpGroup{});
    }
}

template <class T, int kCache, int kThreadsPerRow>
__global__ void __launch_bounds__(kThreadsPerRow) AxisBlockPerRow(AxisPlan plan, T* out, const T* in) {
    __shared__ alignas(16) unsigned char scratch[(kThreadsPerRow / 32) * sizeof(Candidate<double>)];
    for (uint64_t r = blockIdx.x; r < plan.rows.count; r += gridDim.x) {
        int64_t o[2];
        Offsets(plan.rows, r, o);
        RunRow<T, kCache>(plan, out + o[0], in + o[1], BlockGroup<kThreadsPerRow>{scratch});
    }
}

template <class T>
__global__ void __launch_bounds__(kRowsBlockThreads) AxisThreadPerRow(AxisPlan plan, T* out, const T* in) {
    const uint64_t step = uint64_t(gridDim.x) * kRowsBlockThreads;
    for (uint64_t r = uint64_t(blockIdx.x) * kRowsBlockThreads + threadIdx.x; r < plan.rows.count; r += step) {
        int64_t o[2];
        Offsets(plan.rows, r, o);
        RunRow<T, 0>(plan, out + o[0], in + o[1], ThreadGroup{});
    }
}

// Auto: a thread per row where rows are many, short, and neighbours in memory while their own
// elements are not; a warp per row up to 1024 elements; a block per row beyond.
AxisLaunch ChooseLaunch(const AxisPlan& plan) {
    if (plan.launch != AxisLaunch::Auto) return plan.launch;
    const uint64_t n = plan.row.count, rows = plan.rows.count;
    const bool rowsAdjacent = plan.rows.rank >= 1 && plan.rows.strides[1][plan.rows.rank - 1] == 1 &&
                              plan.rows.strides[0][plan.rows.rank - 1] == 1;
    const bool elementsApart = plan.row.rank > 1 || plan.row.strides[1][0] != 1;
    if (rowsAdjacent && elementsApart && n <= kThreadRowMaxLength && rows >= kThreadRowMinRows) {
        return AxisLaunch::ThreadPerRow;
    }
    // Measured on an H200: a warp per row still leads at 1024 elements (cached up to 512, read
    // again beyond), a block per row at 4096.
    return n <= kWarpRowMaxLength ? AxisLaunch::WarpPerRow : AxisLaunch::BlockPerRow;
}

template <class T>
cudaError_t LaunchAxisTyped(const AxisPlan& plan, void* outBytes, const void* inBytes, LaunchTarget launch) {
    if (plan.rows.count == 0 || plan.row.count == 0) return cudaSuccess;
    T* out = static_cast<T*>(outBytes);
    const T* in = static_cast<const T*>(inBytes);
    const uint64_t n = plan.row.count, rows = plan.rows.count;
    switch (ChooseLaunch(plan)) {
        case AxisLaunch::ThreadPerRow:
            AxisThreadPerRow<T>
                <<<launch.Blocks(rows, kRowsBlockThreads), kRowsBlockThreads, 0, launch.stream>>>(plan, out, in);
            break;
        case AxisLaunch::Auto:  // resolved above
        case AxisLaunch::WarpPerRow: {
            const int blocks = launch.Blocks(rows * 32, kRowsBlockThreads);
            if (n <= 32 * 4) {
                AxisWarpPerRow<T, 4><<<blocks, kRowsBlockThreads, 0, launch.stream>>>(plan, out, in);
            } else if (n <= 32 * 16) {
                AxisWarpPerRow<T, 16><<<blocks, kRowsBlockThreads, 0, launch.stream>>>(plan, out, in);
            } else {
                AxisWarpPerRow<T, 0><<<blocks, kRowsBlockThreads, 0, launch.stream>>>(plan, out, in);
            }
            break;
        }
        case AxisLaunch::BlockPerRow:
            if (n <= uint64_t(kCachedRowThreads) * 16) {
                const int blocks = launch.Blocks(rows * kCachedRowThreads, kCachedRowThreads);
                AxisBlockPerRow<T, 16, kCachedRowThreads>
                    <<<blocks, kCachedRowThreads, 0, launch.stream>>>(plan, out, in);
            } else {
                AxisBlockPerRow<T, 0, kLongRowThreads>
                    <<<launch.Blocks(rows * kLongRowThreads, kLongRowThreads), kLongRowThreads, 0, launch.stream>>>(
                        plan, out, in);
            }
            break;
    }
    return cudaGetLastError();
}

}  // namespace

cudaError_t LaunchIntegerRelu(const EwPlan<2>& plan, ElementType type, void* out, const void* in,
                              LaunchTarget launch) {
    switch (type) {
        case ElementType::I8: return LaunchUnaryTyped<int8_t>(plan, IntegerRelu{}, out, in, launch);
        case ElementType::I16: return LaunchUnaryTyped<int16_t>(plan, IntegerRelu{}, out, in, launch);
        case ElementType::I32: return LaunchUnaryTyped<int32_t>(plan, IntegerRelu{}, out, in, launch);
        default: return cudaErrorInvalidValue;
    }
}

cudaError_t LaunchIntegerShrink(const EwPlan<2>& plan, ElementType type, float bias, float threshold, void* out,
                                const void* in, LaunchTarget launch) {
    switch (type) {
        case ElementType::I8: return LaunchShrinkTyped<int8_t>(plan, bias, threshold, out, in, launch);
        case ElementType::U8: return LaunchShrinkTyped<uint8_t>(plan, bias, threshold, out, in, launch);
        case ElementType::I16: return LaunchShrinkTyped<int16_t>(plan, bias, threshold, out, in, launch);
        case ElementType::U16: return LaunchShrinkTyped<uint16_t>(plan, bias, threshold, out, in, launch);
        case ElementType::I32: return LaunchShrinkTyped<int32_t>(plan, bias, threshold, out, in, launch);
        case ElementType::U32: return LaunchShrinkTyped<uint32_t>(plan, bias, threshold, out, in, launch);
        default: return cudaErrorInvalidValue;
    }
}

cudaError_t LaunchParameterizedRelu(const EwPlan<3>& plan, ElementType type, void* out, const void* x,
                                    const void* slope, LaunchTarget launch) {
    switch (type) {
        case ElementType::F32: case ElementType::F16:
            return LaunchBinaryMap(plan, type, FloatParameterizedRelu{}, out, x, slope, launch);
        case ElementType::I8:
            return LaunchBinaryTyped<int8_t>(plan, IntegerParameterizedRelu<int8_t>{}, out, x, slope, launch);
        case ElementType::I16:
            return LaunchBinaryTyped<int16_t>(plan, IntegerParameterizedRelu<int16_t>{}, out, x, slope, launch);
        case ElementType::I32:
            return LaunchBinaryTyped<int32_t>(plan, IntegerParameterizedRelu<int32_t>{}, out, x, slope, launch);
        default: return cudaErrorInvalidValue;
    }
}

cudaError_t LaunchReluGrad(const EwPlan<3>& plan, ElementType type, void* out, const void* x, const void* dy,
                           LaunchTarget launch) {
    switch (type) {
        case ElementType::F32: return LaunchBinaryTyped<uint32_t>(plan, Float32ReluGrad{}, out, x, dy, launch);
        case ElementType::F16: return LaunchBinaryTyped<uint16_t>(plan, Float16ReluGrad{}, out, x, dy, launch);
        case ElementType::I8: return LaunchBinaryTyped<int8_t>(plan, IntegerReluGrad{}, out, x, dy, launch);
        case ElementType::I16: return LaunchBinaryTyped<int16_t>(plan, IntegerReluGrad{}, out, x, dy, launch);
        case ElementType::I32: return LaunchBinaryTyped<int32_t>(plan, IntegerReluGrad{}, out, x, dy, launch);
        default: return cudaErrorInvalidValue;
    }
}

cudaError_t LaunchAxisActivation(const AxisPlan& plan, ElementType type, void* out, const void* in,
                                 LaunchTarget launch) {
    switch (type) {
        case ElementType::F32: return LaunchAxisTyped<float>(plan, out, in, launch);
        case ElementType::F16: return LaunchAxisTyped<__half>(plan, out, in, launch);
        default: return cudaErrorInvalidValue;
    }
}

}  // namespace freedml::dml::cuda
