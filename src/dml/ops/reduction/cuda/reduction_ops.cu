// Device code of REDUCE, ARGMIN, ARGMAX, CUMULATIVE_SUMMATION and CUMULATIVE_PRODUCT.
//
// Each output element (one index of the kept dimensions) reduces its slice in one thread when the
// slice is short, else in one warp: lane j folds elements j, j + 32, ... in increasing order (16
// bytes a lane where the slice is packed), then the lanes combine their states through a
// butterfly. Slices that run down the columns of a row-major layout (consecutive outputs,
// consecutive inputs) go to ReduceColumns instead, which reads whole rows at once. Every combine is commutative (ARGMIN and
// ARGMAX break ties by index), so each lane ends with the same result and lane 0 stores it.
// The scans give each line along the axis to one thread.
#include <cmath>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "dml/kernels/cuda/elementwise.cuh"
#include "dml/ops/reduction/cuda/reduction_plan.h"

namespace freedml::dml::cuda {

namespace {

using F = ReduceFunction;

constexpr int kBlockThreads = 256;
// Slices shorter than this get one thread each.
constexpr uint64_t kWarpMinLength = 32;

// What a float element accumulates in: double for FLOAT32 (the result is rounded once, as on the
// CPU), float for FLOAT16.
template <class T> struct AccOf { using type = double; };
template <> struct AccOf<__half> { using type = float; };

template <class T>
constexpr bool kIsFloat = std::is_same_v<T, float> || std::is_same_v<T, __half>;

// What SUM, MULTIPLY, L1 and SUM_SQUARE accumulate in: AccOf for floats, the unsigned twin of an
// integer type (so that they wrap modulo 2^bits).
template <class T, bool kFloat = kIsFloat<T>>
struct SumTypeOf {
    using type = std::make_unsigned_t<T>;
};
template <class T>
struct SumTypeOf<T, true> {
    using type = typename AccOf<T>::type;
};

template <class V>
__device__ __forceinline__ bool IsNan(V v) {
    if constexpr (std::is_floating_point_v<V>) {
        return v != v;
    } else {
        return false;
    }
}

// Any trivially copyable state, moved across lanes word by word.
template <class S>
__device__ __forceinline__ S ShuffleXor(S s, int mask) {
    constexpr int kWords = int((sizeof(S) + 3) / 4);
    unsigned words[kWords] = {};
    memcpy(words, &s, sizeof(S));
#pragma unroll
    for (int i = 0; i < kWords; ++i) words[i] = __shfl_xor_sync(0xffffffffu, words[i], mask);
    memcpy(&s, words, sizeof(S));
    return s;
}

__device__ __forceinline__ int64_t RowOffset(const EwPlan<1>& row, uint64_t i) {
    if (row.rank <= 1) return int64_t(i) * row.strides[0][0];
    int64_t o[1];
    Offsets(row, i, o);
    return o[0];
}

// ---- The functions, each a state with Add (one element, in increasing index), Combine (two
// states, commutative) and Store. -----------------------------------------------------------------

// SUM, AVERAGE, L1, L2, LOG_SUM, SUM_SQUARE and MULTIPLY.
template <F kFn, class T>
struct Accumulate {
    static constexpr bool kFloat = kIsFloat<T>;
    using A = typename SumTypeOf<T>::type;
    A acc = kFn == F::Multiply ? A(1) : A(0);

    __device__ void Add(T raw, uint64_t) {
        if constexpr (kFloat) {
            const A x = A(LoadAs(&raw));
            if constexpr (kFn == F::Multiply) {
                acc *= x;
            } else if constexpr (kFn == F::L1) {
                acc += fabs(x);
            } else if constexpr (kFn == F::L2 || kFn == F::SumSquare) {
                acc += x * x;
            } else {
                acc += x;
            }
        } else {
            const A u = A(raw);
            if constexpr (kFn == F::Multiply) {
                acc *= u;
            } else if constexpr (kFn == F::L1) {
                acc += (std::is_signed_v<T> && raw < T(0)) ? A(A(0) - u) : u;
            } else if constexpr (kFn == F::SumSquare) {
                acc += u * u;
            } else {
                acc += u;
            }
        }
    }
    __device__ void Combine(const Accumulate& other) {
        if constexpr (kFn == F::Multiply) {
            acc *= other.acc;
        } else {
            acc += other.acc;
        }
    }
    __device__ void Store(const ReducePlan& plan, void* out) const {
        if constexpr (kFloat) {
            A r = acc;
            if constexpr (kFn == F::Average) r = acc / A(plan.row.count);
            if constexpr (kFn == F::L2) r = sqrt(acc);
            if constexpr (kFn == F::LogSum) r = log(acc);
            StoreAs(static_cast<T*>(out), typename ComputeOf<T>::type(r));
        } else {
            *static_cast<T*>(out) = T(acc);
        }
    }
};

// MAX and MIN: NaNs are passed over; a slice of NaNs gives NaN.
template <bool kMax, class T>
struct Extreme {
    using V = typename ComputeOf<T>::type;
    V value{};
    int any = 0;

    __device__ void Take(V x) {
        if (!any || IsNan(value) || (kMax ? x > value : x < value)) value = x;
        any = 1;
    }
    __device__ void Add(T raw, uint64_t) { Take(LoadAs(&raw)); }
    __device__ void Combine(const Extreme& other) {
        if (other.any) Take(other.value);
    }
    __device__ void Store(const ReducePlan&, void* out) const { StoreAs(static_cast<T*>(out), value); }
};

// ARGMAX and ARGMIN: a NaN beats every number; equal values go to the lower index, or the higher
// with lastTie.
template <bool kMax, class T>
struct ArgExtreme {
    using V = typename ComputeOf<T>::type;
    V value{};
    uint64_t index = 0;
    int any = 0;
    int lastTie = 0;

    // Whether (x, i) replaces the current best.
    __device__ bool Beats(V x, uint64_t i) const {
        if (!any) return true;
        const bool xNan = IsNan(x), bNan = IsNan(value);
        bool tie;
        if (xNan || bNan) {
            if (xNan != bNan) return xNan;
            tie = true;
        } else {
            if (kMax ? x > value : x < value) return true;
            tie = x == value;
        }
        return tie && (lastTie ? i > index : i < index);
    }
    __device__ void Add(T raw, uint64_t i) {
        const V x = LoadAs(&raw);
        if (Beats(x, i)) {
            value = x;
            index = i;
            any = 1;
        }
    }
    __device__ void Combine(const ArgExtreme& other) {
        if (other.any && Beats(other.value, other.index)) {
            value = other.value;
            index = other.index;
            any = 1;
        }
    }
    __device__ void Store(const ReducePlan& plan, void* out) const {
        switch (plan.output) {
            case ElementType::U32: *static_cast<uint32_t*>(out) = uint32_t(index); break;
            case ElementType::I32: *static_cast<int32_t*>(out) = int32_t(index); break;
            case ElementType::U64: *static_cast<uint64_t*>(out) = uint64_t(index); break;
            default: *static_cast<int64_t*>(out) = int64_t(index); break;
        }
    }
};

// LOG_SUM_EXP's first pass: the largest number and whether a NaN was seen.
template <class T>
struct MaxAndNan {
    using A = typename AccOf<T>::type;
    A max = A(-INFINITY);
    int nan = 0;
    __device__ void Add(T raw, uint64_t) {
        const A x = A(LoadAs(&raw));
        nan |= x != x;
        max = x > max ? x : max;
    }
    __device__ void Combine(const MaxAndNan& other) {
        nan |= other.nan;
        max = other.max > max ? other.max : max;
    }
};

// LOG_SUM_EXP's second pass: the sum of exp(x - max).
template <class T>
struct ExpSum {
    using A = typename AccOf<T>::type;
    A max = 0;
    A sum = 0;
    __device__ void Add(T raw, uint64_t) { sum += exp(A(LoadAs(&raw)) - max); }
    __device__ void Combine(const ExpSum& other) { sum += other.sum; }
};

// Folds the slice at `in` into `state` with kThreads threads (1, or the 32 lanes of a warp). A warp
// reads a packed, 16-byte aligned slice 16 bytes a lane, four such loads in flight; each lane still
// adds its elements in increasing index.
template <int kThreads, class T, class State>
__device__ __forceinline__ void Fold(const EwPlan<1>& row, const T* in, State& state) {
    const uint64_t n = row.count;
    const uint64_t lane = kThreads == 1 ? 0 : (threadIdx.x & 31);
    uint64_t first = lane;
    if constexpr (kThreads == 32) {
        if (row.rank == 1 && row.strides[0][0] == 1 && (reinterpret_cast<uintptr_t>(in) & 15) == 0) {
            constexpr int kVec = int(16 / sizeof(T));
            struct alignas(16) Vec {
                T v[kVec];
            };
            const Vec* vin = reinterpret_cast<const Vec*>(in);
            const uint64_t vectors = n / kVec;
            uint64_t v = lane;
            for (; v + 96 < vectors; v += 128) {
                Vec a[4];
#pragma unroll
                for (int u = 0; u < 4; ++u) a[u] = vin[v + 32 * u];
#pragma unroll
                for (int u = 0; u < 4; ++u) {
#pragma unroll
                    for (int e = 0; e < kVec; ++e) state.Add(a[u].v[e], (v + 32 * u) * kVec + e);
                }
            }
            for (; v < vectors; v += 32) {
                const Vec a = vin[v];
#pragma unroll
                for (int e = 0; e < kVec; ++e) state.Add(a.v[e], v * kVec + e);
            }
            first = vectors * kVec + lane;
        }
    }
    for (uint64_t i = first; i < n; i += kThreads) state.Add(in[RowOffset(row, i)], i);
    if constexpr (kThreads > 1) {
#pragma unroll
        for (int mask = 16; mask > 0; mask >>= 1) state.Combine(ShuffleXor(state, mask));
    }
}

template <int kThreads, F kFn, class T>
__device__ __forceinline__ void ReduceOne(const ReducePlan& plan, const T* in, void* out, bool store) {
    if constexpr (kFn == F::LogSumExp) {
        using A = typename AccOf<T>::type;
        MaxAndNan<T> first;
        Fold<kThreads>(plan.row, in, first);
        A result;
        if (first.nan) {
            result = A(NAN);
        } else if (isinf(first.max)) {
            result = first.max;
        } else {
            ExpSum<T> second;
            second.max = first.max;
            Fold<kThreads>(plan.row, in, second);
            result = first.max + log(second.sum);
        }
        if (store) StoreAs(static_cast<T*>(out), typename ComputeOf<T>::type(result));
    } else {
        using State = std::conditional_t<
            kFn == F::ArgMax || kFn == F::ArgMin, ArgExtreme<kFn == F::ArgMax, T>,
            std::conditional_t<kFn == F::Max || kFn == F::Min, Extreme<kFn == F::Max, T>, Accumulate<kFn, T>>>;
        State state;
        if constexpr (kFn == F::ArgMax || kFn == F::ArgMin) state.lastTie = plan.lastTie;
        Fold<kThreads>(plan.row, in, state);
        if (store) state.Store(plan, out);
    }
}

// Output element r's input and output addresses.
template <class T>
__device__ __forceinline__ void RowAddresses(const ReducePlan& plan, uint64_t r, const T* in, void* out,
                                             const T** rowIn, void** rowOut) {
    int64_t o[2];
    Offsets(plan.rows, r, o);
    *rowIn = in + o[1];
    *rowOut = static_cast<unsigned char*>(out) + o[0] * int64_t(plan.outputBytes);
}

template <F kFn, class T>
__global__ void __launch_bounds__(kBlockThreads) ReduceThreadPerRow(ReducePlan plan, void* out, const T* in) {
    const uint64_t step = uint64_t(gridDim.x) * kBlockThreads;
    for (uint64_t r = uint64_t(blockIdx.x) * kBlockThreads + threadIdx.x; r < plan.rows.count; r += step) {
        const T* rowIn;
        void* rowOut;
        RowAddresses(plan, r, in, out, &rowIn, &rowOut);
        ReduceOne<1, kFn>(plan, rowIn, rowOut, true);
    }
}

template <F kFn, class T>
__global__ void __launch_bounds__(kBlockThreads) ReduceWarpPerRow(ReducePlan plan, void* out, const T* in) {
    const uint64_t warps = uint64_t(gridDim.x) * (kBlockThreads / 32);
    // Every lane of a warp takes the same rows, so the shuffles see all 32 lanes.
    for (uint64_t r = (uint64_t(blockIdx.x) * kBlockThreads + threadIdx.x) / 32; r < plan.rows.count; r += warps) {
        const T* rowIn;
        void* rowOut;
        RowAddresses(plan, r, in, out, &rowIn, &rowOut);
        ReduceOne<32, kFn>(plan, rowIn, rowOut, (threadIdx.x & 31) == 0);
    }
}

// The reduced slices run down columns: consecutive outputs read consecutive input elements (the
// innermost kept dimension has input stride 1) and the slice has one stride. A block owns 32
// outputs; its 32 x kColumnParts threads read 32 adjacent elements of a slice row at once, part y
// taking slice rows y, y + kColumnParts, ...; the parts then combine through shared memory.
constexpr int kColumnParts = 16;
constexpr int kColumnUnroll = 8;

template <F kFn, class T>
__global__ void __launch_bounds__(32 * kColumnParts) ReduceColumns(ReducePlan plan, void* out, const T* in) {
    using State = std::conditional_t<
        kFn == F::ArgMax || kFn == F::ArgMin, ArgExtreme<kFn == F::ArgMax, T>,
        std::conditional_t<kFn == F::Max || kFn == F::Min, Extreme<kFn == F::Max, T>, Accumulate<kFn, T>>>;
    // Raw storage: a __shared__ array of a class with member initializers would want construction.
    __shared__ alignas(16) unsigned char partBytes[kColumnParts * 32 * sizeof(State)];
    State* parts = reinterpret_cast<State*>(partBytes);
    const uint64_t column = uint64_t(blockIdx.x) * 32 + threadIdx.x;
    const bool active = column < plan.rows.count;
    const uint64_t n = plan.row.count;
    const int64_t stride = plan.row.rank == 0 ? 0 : plan.row.strides[0][0];
    State state;
    if constexpr (kFn == F::ArgMax || kFn == F::ArgMin) state.lastTie = plan.lastTie;
    int64_t o[2] = {};
    if (active) Offsets(plan.rows, column, o);
    if (active) {
        const T* x = in + o[1];
        uint64_t i = threadIdx.y;
        for (; i + (kColumnUnroll - 1) * kColumnParts < n; i += kColumnUnroll * kColumnParts) {
            T a[kColumnUnroll];
#pragma unroll
            for (int u = 0; u < kColumnUnroll; ++u) a[u] = x[int64_t(i + u * kColumnParts) * stride];
#pragma unroll
            for (int u = 0; u < kColumnUnroll; ++u) state.Add(a[u], i + u * kColumnParts);
        }
        for (; i < n; i += kColumnParts) state.Add(x[int64_t(i) * stride], i);
    }
    parts[threadIdx.y * 32 + threadIdx.x] = state;
    __syncthreads();
    if (threadIdx.y != 0 || !active) return;
    for (int y = 1; y < kColumnParts; ++y) state.Combine(parts[y * 32 + threadIdx.x]);
    state.Store(plan, static_cast<unsigned char*>(out) + o[0] * int64_t(plan.outputBytes));
}

template <F kFn>
bool ColumnsFit(const ReducePlan& plan) {
    if constexpr (kFn == F::LogSumExp) {
        return false;
    } else {
        return plan.rows.rank >= 1 && plan.rows.strides[1][plan.rows.rank - 1] == 1 && plan.row.rank <= 1 &&
               plan.row.count >= kWarpMinLength && plan.rows.count >= 32;
    }
}

// Whether the schema allows function kFn on element type T (the others are never planned).
template <F kFn, class T>
constexpr bool Allowed() {
    switch (kFn) {
        case F::ArgMax: case F::ArgMin: case F::Max: case F::Min: return true;
        case F::Average: case F::L2: case F::LogSum: case F::LogSumExp: return kIsFloat<T>;
        default: return kIsFloat<T> || sizeof(T) >= 4;  // L1, MULTIPLY, SUM, SUM_SQUARE
    }
}

template <F kFn, class T>
cudaError_t LaunchTyped(const ReducePlan& plan, void* out, const void* inBytes, LaunchTarget launch) {
    if constexpr (!Allowed<kFn, T>()) {
        return cudaErrorInvalidValue;
    } else {
        if (plan.rows.count == 0 || plan.row.count == 0) return cudaSuccess;
        const T* in = static_cast<const T*>(inBytes);
        const uint64_t rows = plan.rows.count;
        if (ColumnsFit<kFn>(plan)) {
            const uint64_t blocks = (rows + 31) / 32;
            if (blocks > uint64_t(INT32_MAX)) return cudaErrorInvalidValue;
            if (launch.multiprocessors <= 0) return cudaErrorInvalidValue;  // as Blocks() refuses
            ReduceColumns<kFn, T><<<unsigned(blocks), dim3(32, kColumnParts), 0, launch.stream>>>(plan, out, in);
        } else if (plan.row.count < kWarpMinLength) {
            ReduceThreadPerRow<kFn, T>
                <<<launch.Blocks(rows, kBlockThreads), kBlockThreads, 0, launch.stream>>>(plan, out, in);
        } else {
            ReduceWarpPerRow<kFn, T>
                <<<launch.Blocks(rows * 32, kBlockThreads), kBlockThreads, 0, launch.stream>>>(plan, out, in);
        }
        return cudaGetLastError();
    }
}

template <class T>
cudaError_t LaunchFunction(const ReducePlan& plan, void* out, const void* in, LaunchTarget launch) {
    switch (plan.function) {
        case F::ArgMax: return LaunchTyped<F::ArgMax, T>(plan, out, in, launch);
        case F::ArgMin: return LaunchTyped<F::ArgMin, T>(plan, out, in, launch);
        case F::Average: return LaunchTyped<F::Average, T>(plan, out, in, launch);
        case F::L1: return LaunchTyped<F::L1, T>(plan, out, in, launch);
        case F::L2: return LaunchTyped<F::L2, T>(plan, out, in, launch);
        case F::LogSum: return LaunchTyped<F::LogSum, T>(plan, out, in, launch);
        case F::LogSumExp: return LaunchTyped<F::LogSumExp, T>(plan, out, in, launch);
        case F::Max: return LaunchTyped<F::Max, T>(plan, out, in, launch);
        case F::Min: return LaunchTyped<F::Min, T>(plan, out, in, launch);
        case F::Multiply: return LaunchTyped<F::Multiply, T>(plan, out, in, launch);
        case F::Sum: return LaunchTyped<F::Sum, T>(plan, out, in, launch);
        case F::SumSquare: return LaunchTyped<F::SumSquare, T>(plan, out, in, launch);
    }
    return cudaErrorInvalidValue;
}

// ---- CUMULATIVE_SUMMATION and CUMULATIVE_PRODUCT --------------------------------------------------

template <bool kProduct, class T>
__global__ void __launch_bounds__(kBlockThreads) ScanLines(ScanPlan plan, T* out, const T* in) {
    using A = typename SumTypeOf<T>::type;
    const uint64_t step = uint64_t(gridDim.x) * kBlockThreads;
    for (uint64_t r = uint64_t(blockIdx.x) * kBlockThreads + threadIdx.x; r < plan.lines.count; r += step) {
        int64_t o[2];
        Offsets(plan.lines, r, o);
        int64_t outStep = plan.outStride, inStep = plan.inStride;
        T* y = out + o[0];
        const T* x = in + o[1];
        if (plan.decreasing) {
            y += int64_t(plan.length - 1) * outStep;
            x += int64_t(plan.length - 1) * inStep;
            outStep = -outStep;
            inStep = -inStep;
        }
        A acc = kProduct ? A(1) : A(0);
        for (uint64_t i = 0; i < plan.length; ++i, x += inStep, y += outStep) {
            A v;
            if constexpr (kIsFloat<T>) {
                v = A(LoadAs(x));
            } else {
                v = A(*x);
            }
            const A before = acc;
            if constexpr (kProduct) {
                acc = A(acc * v);
            } else {
                acc = A(acc + v);
            }
            const A result = plan.exclusive ? before : acc;
            if constexpr (kIsFloat<T>) {
                StoreAs(y, typename ComputeOf<T>::type(result));
            } else {
                *y = T(result);
            }
        }
    }
}

template <class T>
cudaError_t LaunchScanTyped(const ScanPlan& plan, void* outBytes, const void* inBytes, LaunchTarget launch) {
    if (plan.lines.count == 0 || plan.length == 0) return cudaSuccess;
    T* out = static_cast<T*>(outBytes);
    const T* in = static_cast<const T*>(inBytes);
    const int blocks = launch.Blocks(plan.lines.count, kBlockThreads);
    if (plan.product) {
        ScanLines<true, T><<<blocks, kBlockThreads, 0, launch.stream>>>(plan, out, in);
    } else {
        ScanLines<false, T><<<blocks, kBlockThreads, 0, launch.stream>>>(plan, out, in);
    }
    return cudaGetLastError();
}

}  // namespace

cudaError_t LaunchScan(const ScanPlan& plan, void* out, const void* in, LaunchTarget launch) {
    switch (plan.type) {
        case ElementType::F32: return LaunchScanTyped<float>(plan, out, in, launch);
        case ElementType::F16: return LaunchScanTyped<__half>(plan, out, in, launch);
        case ElementType::I64: return LaunchScanTyped<int64_t>(plan, out, in, launch);
        case ElementType::I32: return LaunchScanTyped<int32_t>(plan, out, in, launch);
        case ElementType::U64: return LaunchScanTyped<uint64_t>(plan, out, in, launch);
        case ElementType::U32: return LaunchScanTyped<uint32_t>(plan, out, in, launch);
        default: return cudaErrorInvalidValue;
    }
}

cudaError_t LaunchReduce(const ReducePlan& given, void* out, const void* in, LaunchTarget launch) {
    ReducePlan plan = given;
    plan.outputBytes = ElementBytes(plan.output);
    switch (plan.input) {
        case ElementType::F32: return LaunchFunction<float>(plan, out, in, launch);
        case ElementType::F16: return LaunchFunction<__half>(plan, out, in, launch);
        case ElementType::I64: return LaunchFunction<int64_t>(plan, out, in, launch);
        case ElementType::I32: return LaunchFunction<int32_t>(plan, out, in, launch);
        case ElementType::I16: return LaunchFunction<int16_t>(plan, out, in, launch);
        case ElementType::I8: return LaunchFunction<int8_t>(plan, out, in, launch);
        case ElementType::U64: return LaunchFunction<uint64_t>(plan, out, in, launch);
        case ElementType::U32: return LaunchFunction<uint32_t>(plan, out, in, launch);
        case ElementType::U16: return LaunchFunction<uint16_t>(plan, out, in, launch);
        case ElementType::U8: return LaunchFunction<uint8_t>(plan, out, in, launch);
        default: return cudaErrorInvalidValue;
    }
}

}  // namespace freedml::dml::cuda
