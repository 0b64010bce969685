// CPU kernels of the reduction family: REDUCE, ARGMIN, ARGMAX, CUMULATIVE_SUMMATION and
// CUMULATIVE_PRODUCT.
//
// The shape is split once, at Create, into kept dimensions (one output element per index) and
// reduced dimensions (one slice per output element), as the softmax kernels do. Each output
// element then walks its slice in row-major order over the reduced dimensions, any strides; where
// a slice's elements lie apart but neighbouring outputs read neighbouring inputs (a reduction over
// an outer axis), blocks of outputs walk their slices together so the input is read row by row.
// - FLOAT32 accumulates in double and FLOAT16 in float, each rounded once to the output;
// - the integer SUM, MULTIPLY, L1 and SUM_SQUARE wrap modulo 2^bits, MIN and MAX are exact;
// - MIN and MAX pass over NaNs (D3D's min and max), giving NaN only for a slice of NaNs; every
//   other float function lets a NaN reach its result;
// - ARGMIN and ARGMAX count a NaN as the extreme value, and write the position in the slice
//   (the flattened index over the reduced axes) of the first extreme element, or of the last with
//   DML_AXIS_DIRECTION_DECREASING.
// The cumulative scans walk each line along their axis in the chosen direction, with the same
// accumulators (each output rounded once from the running double or float tally; integers wrap).
// Each element is read before it is written, so a scan runs in place over the same layout.
#include "dml/kernels/cpu/float_rows.h"  // first: vectorization and FP settings of this file

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <limits>
#include <type_traits>
#include <vector>

#include "dml/kernel.h"
#include "dml/kernels/cpu/cpu_isa.h"
#include "dml/kernels/cpu/float16.h"
#include "dml/kernels/cpu/tensor_view.h"
#include "dml/kernels/cpu/thread_pool.h"

namespace freedml::dml {

namespace {

using cpu::HostThreads;
using cpu::LoopPlan;
using cpu::MakeLoopPlan;
using cpu::ParallelFor;
using cpu::RunLoopRows;

// DML_REDUCE_FUNCTION's values, in its order.
enum class Fn : uint8_t { ArgMax, ArgMin, Average, L1, L2, LogSum, LogSumExp, Max, Min, Multiply, Sum, SumSquare };

template <class T>
inline T Load(const std::byte* p) {
    T v;
    std::memcpy(&v, p, sizeof(T));
    return v;
}

template <class T>
inline void Store(std::byte* p, T v) {
    std::memcpy(p, &v, sizeof(T));
}

// FLOAT16's storage, told apart from UINT16.
struct Half {
    uint16_t bits;
};

// How an element type is read and what it accumulates in.
template <class T>
struct TypeOf {
    using Value = T;  // what comparisons see
    using Acc = T;    // integers: the sums wrap in the type's unsigned twin (below)
    static Value Read(const std::byte* p) { return Load<T>(p); }
};
template <>
struct TypeOf<float> {
    using Value = float;
    using Acc = double;
    static Value Read(const std::byte* p) { return Load<float>(p); }
    static void Write(std::byte* p, double v) { Store(p, float(v)); }
};
template <>
struct TypeOf<Half> {
    using Value = float;
    using Acc = float;
    static Value Read(const std::byte* p) { return cpu::HalfToFloat(Load<uint16_t>(p)); }
    static void Write(std::byte* p, float v) { Store(p, cpu::FloatToHalf(v)); }
};

// One planned reduction: the loops and what the slice states need.
struct Plan {
    LoopPlan<2> outer;  // the kept dimensions: input, output
    LoopPlan<1> inner;  // one slice's (reduced) dimensions: input
    uint64_t sliceCount = 1;
    uint64_t sliceTotal = 1;
    bool lastTie = false;  // ARGMIN/ARGMAX: the last of equal extremes (DECREASING)
    DML_TENSOR_DATA_TYPE indexType = DML_TENSOR_DATA_TYPE_UINT32;
    // Neighbouring output elements along the innermost kept dimension read neighbouring input
    // elements, while a slice's own elements lie apart (a reduction over an outer axis): blocks of
    // output elements then walk their slices together, reading the input row by row.
    bool blocked = false;
    bool denseBlocks = false;  // blocked, and the runner takes up to kDenseBlock outputs at once
};

#define FREEDML_REDUCE_INLINE __attribute__((always_inline)) inline

constexpr uint64_t kBlock = 256;  // output elements reduced together when blocked (1 KiB rows of FLOAT32)
// ... and by the dense block path, which takes up to kDenseBlock: each visit of a slice row then
// reads up to 8 KiB in a row, long enough for the hardware prefetcher (a 1 KiB visit of each of
// thousands of rows far apart is bound by memory latency).
constexpr uint64_t kDenseBlock = 2048;

// Reduces `count` output elements (1, or up to kBlock neighbours when blocked) from `in` to `out`.
using RunFn = void (*)(const Plan& plan, const std::byte* in, std::byte* out, uint64_t count);

// Calls f(element) for each element of a slice, in row-major order over the reduced dimensions.
template <class F>
inline void ForSlice(const LoopPlan<1>& inner, const std::byte* base, F&& f) {
    RunLoopRows(inner, {const_cast<std::byte*>(base)}, 0, inner.OuterCount(),
                [&](const std::array<std::byte*, 1>& p, uint64_t count, const std::array<int64_t, 1>& s) {
                    const std::byte* q = p[0];
                    for (uint64_t i = 0; i < count; ++i, q += s[0]) f(q);
                });
}

// Calls f(first element, count, byte stride) for each row of a slice, in order.
template <class F>
inline void ForSliceRows(const LoopPlan<1>& inner, const std::byte* base, F&& f) {
    RunLoopRows(inner, {const_cast<std::byte*>(base)}, 0, inner.OuterCount(),
                [&](const std::array<std::byte*, 1>& p, uint64_t count, const std::array<int64_t, 1>& s) {
                    f(static_cast<const std::byte*>(p[0]), count, s[0]);
                });
}

// What Run may do besides feeding a state element by element: contiguous FLOAT32 runs are
// reduced through arrays of tallies (loops the compiler vectorizes), with the same functions in
// the same precision.
enum class Dense { None, Tallies, Extreme };

template <class V>
inline bool IsNan(V v) {
    if constexpr (std::is_floating_point_v<V>) {
        return v != v;
    } else {
        return false;
    }
}

void StoreIndex(DML_TENSOR_DATA_TYPE type, std::byte* out, uint64_t index) {
    switch (type) {
        case DML_TENSOR_DATA_TYPE_UINT32: Store(out, uint32_t(index)); break;
        case DML_TENSOR_DATA_TYPE_INT32: Store(out, int32_t(index)); break;
        case DML_TENSOR_DATA_TYPE_UINT64: Store(out, uint64_t(index)); break;
        default: Store(out, int64_t(index)); break;
    }
}

// Each function is a state fed one slice element at a time (Add, with the element's position k
// in the slice, increasing) and written once (Store).

// ARGMAX / ARGMIN: a NaN beats every number; among equals the first wins, or the last when
// plan.lastTie.
template <bool kMax, class T>
struct ArgState {
    static constexpr Dense kDense = Dense::None;
    using V = typename TypeOf<T>::Value;
    V best{};
    uint64_t bestIndex = 0;
    bool any = false;

    void Add(const Plan& plan, const std::byte* p, uint64_t k) {
        const V x = TypeOf<T>::Read(p);
        bool take = !any;
        if (any) {
            const bool xNan = IsNan(x), bNan = IsNan(best);
            if (xNan || bNan) {
                take = xNan && (!bNan || plan.lastTie);
            } else {
                take = (kMax ? x > best : x < best) || (plan.lastTie && x == best);
            }
        }
        if (take) {
            best = x;
            bestIndex = k;
            any = true;
        }
    }
    void Store(const Plan& plan, std::byte* out) const { StoreIndex(plan.indexType, out, bestIndex); }
};

// MAX / MIN: NaNs are passed over; a slice of NaNs gives NaN.
template <bool kIsMax, class T>
struct ExtremeState {
    static constexpr Dense kDense = std::is_same_v<T, float> ? Dense::Extreme : Dense::None;
    static constexpr bool kMax = kIsMax;
    using V = typename TypeOf<T>::Value;
    V best{};
    bool any = false;

    void Add(const Plan&, const std::byte* p, uint64_t) {
        const V x = TypeOf<T>::Read(p);
        if (!any || IsNan(best) || (kMax ? x > best : x < best)) best = x;
        any = true;
    }

    // `b` (from later elements) fed to a running extreme `a`, as Add would: a NaN gives way, and
    // among equals the earlier stays.
    static V Join(V a, V b) { return IsNan(a) || (kMax ? b > a : b < a) ? b : a; }

    // The n contiguous FLOAT32 elements from p: kLanes running extremes (vector lanes), each
    // Add's rule over its share, then joined. Lanes interleave, so among equal values the joined
    // one may not be the first: that only shows between -0 and +0, so a zero result is found
    // again element by element.
    void AddRow(const Plan& plan, const std::byte* p, uint64_t n, uint64_t k) {
        constexpr uint64_t kLanes = 16;
        uint64_t i = 0;
        if constexpr (std::is_same_v<T, float>) {
            if (n >= 2 * kLanes) {
                float lane[kLanes];
                for (uint64_t j = 0; j < kLanes; ++j) lane[j] = Load<float>(p + j * sizeof(float));
                // Add's test as two selects (a NaN lane takes x, then the comparison), and the
                // lane loop kept rolled: GCC vectorizes it as a loop, while the fully unrolled
                // form (-O3) and the short-circuit || both left it scalar.
                const float* q = reinterpret_cast<const float*>(p);
                for (i = kLanes; i + kLanes <= n; i += kLanes) {
#pragma GCC unroll 1
                    for (uint64_t j = 0; j < kLanes; ++j) {
                        const float x = q[i + j], v = lane[j];
                        const float w = v != v ? x : v;
                        lane[j] = (kMax ? x > w : x < w) ? x : w;
                    }
                }
                float joined = lane[0];
                for (uint64_t j = 1; j < kLanes; ++j) {
                    if (!IsNan(lane[j])) joined = Join(joined, lane[j]);
                }
                if (joined == 0.0f) {
                    for (uint64_t e = 0; e < i; ++e) Add(plan, p + e * sizeof(float), k + e);
                } else {
                    best = any ? Join(best, joined) : joined;
                    any = true;
                }
            }
        }
        for (; i < n; ++i) Add(plan, p + i * sizeof(T), k + i);
    }
    void Store(const Plan&, std::byte* out) const {
        if constexpr (std::is_same_v<T, float> || std::is_same_v<T, Half>) {
            TypeOf<T>::Write(out, best);
        } else {
            ::freedml::dml::Store(out, best);
        }
    }
};

// SUM, AVERAGE, L1, L2, LOG_SUM, SUM_SQUARE and MULTIPLY of floats, in TypeOf<T>::Acc. Four
// partial tallies (by position) keep a long slice from waiting on one chain of additions.
template <Fn kFn, class T>
struct FloatState {
    static constexpr Dense kDense = std::is_same_v<T, float> ? Dense::Tallies : Dense::None;
    using A = typename TypeOf<T>::Acc;
    static constexpr A kStart = kFn == Fn::Multiply ? A(1) : A(0);
    A acc[4] = {kStart, kStart, kStart, kStart};

    // A tally `a` fed the element x.
    static A Fold(A a, A x) {
        if constexpr (kFn == Fn::Multiply) {
            return a * x;
        } else if constexpr (kFn == Fn::L1) {
            return a + std::fabs(x);
        } else if constexpr (kFn == Fn::L2 || kFn == Fn::SumSquare) {
            return a + x * x;
        } else {  // Sum, Average, LogSum
            return a + x;
        }
    }
    // Two tallies of disjoint elements joined.
    static A Join(A a, A b) { return kFn == Fn::Multiply ? a * b : a + b; }

    void Add(const Plan&, const std::byte* p, uint64_t k) { acc[k & 3] = Fold(acc[k & 3], A(TypeOf<T>::Read(p))); }

    // The n contiguous elements from p, the first at slice position k: kLanes partial tallies
    // (vector lanes), joined into the four.
    void AddRow(const Plan& plan, const std::byte* p, uint64_t n, uint64_t k) {
        constexpr uint64_t kLanes = 16;
        uint64_t i = 0;
        if (n >= 2 * kLanes) {
            A part[kLanes];
            for (A& v : part) v = kStart;
            for (; i + kLanes <= n; i += kLanes) {
                for (uint64_t j = 0; j < kLanes; ++j)
                    part[j] = Fold(part[j], A(TypeOf<T>::Read(p + (i + j) * sizeof(T))));
            }
            for (uint64_t j = 0; j < kLanes; ++j) acc[(k + j) & 3] = Join(acc[(k + j) & 3], part[j]);
        }
        for (; i < n; ++i) Add(plan, p + i * sizeof(T), k + i);
    }
    void Store(const Plan& plan, std::byte* out) const {
        A total = kFn == Fn::Multiply ? (acc[0] * acc[1]) * (acc[2] * acc[3]) : (acc[0] + acc[1]) + (acc[2] + acc[3]);
        if constexpr (kFn == Fn::Average) {
            total /= A(plan.sliceCount);
        } else if constexpr (kFn == Fn::L2) {
            total = std::sqrt(total);
        } else if constexpr (kFn == Fn::LogSum) {
            total = std::log(total);
        }
        TypeOf<T>::Write(out, total);
    }
};

// LOG_SUM_EXP in one pass: max + log(sum(exp(x - max))), the sum rescaled whenever the maximum
// grows, so nothing overflows. A NaN gives NaN; an infinite maximum is the result (+inf, or -inf
// for a slice of only -inf).
template <class T>
struct LogSumExpState {
    static constexpr Dense kDense = Dense::None;
    using A = typename TypeOf<T>::Acc;
    A max = -std::numeric_limits<A>::infinity();
    A sum = 0;
    bool nan = false;

    void Add(const Plan&, const std::byte* p, uint64_t) {
        const A x = TypeOf<T>::Read(p);
        if (x != x) {
            nan = true;
        } else if (x > max) {
            sum = sum * std::exp(max - x) + A(1);
            max = x;
        } else if (x != -std::numeric_limits<A>::infinity()) {  // -inf adds nothing (and -inf - -inf is NaN)
            sum += std::exp(x - max);
        }
    }
    void Store(const Plan&, std::byte* out) const {
        A result = max + std::log(sum);
        if (nan) {
            result = std::numeric_limits<A>::quiet_NaN();
        } else if (std::isinf(max)) {
            result = max;
        }
        TypeOf<T>::Write(out, result);
    }
};

// SUM, MULTIPLY, L1 and SUM_SQUARE of integers, modulo 2^bits.
template <Fn kFn, class T>
struct IntegerState {
    static constexpr Dense kDense = Dense::None;
    using U = std::make_unsigned_t<T>;
    static_assert(sizeof(U) >= sizeof(unsigned), "narrow types would promote to int");
    U acc = kFn == Fn::Multiply ? U(1) : U(0);

    void Add(const Plan&, const std::byte* p, uint64_t) {
        const T x = Load<T>(p);
        const U u = U(x);
        if constexpr (kFn == Fn::Multiply) {
            acc *= u;
        } else if constexpr (kFn == Fn::L1) {
            acc += (std::is_signed_v<T> && x < 0) ? U(U(0) - u) : u;
        } else if constexpr (kFn == Fn::SumSquare) {
            acc += u * u;
        } else {
            acc += u;
        }
    }
    void Store(const Plan&, std::byte* out) const { ::freedml::dml::Store(out, T(acc)); }
};

// A block of `count` neighbouring outputs whose inputs are contiguous along the block (FLOAT32),
// reduced row by row of their slices through arrays: FloatState's four tallies per output (by
// slice position), or ExtremeState's running extreme.
template <class S>
FREEDML_REDUCE_INLINE void RunDenseBlock(const Plan& plan, const std::byte* in, std::byte* out, uint64_t count) {
    const int64_t outStep = plan.outer.InnerStride(1);
    if constexpr (S::kDense == Dense::Tallies) {
        using A = typename S::A;
        thread_local std::vector<A> storage;  // grown once per thread, not per dispatch
        storage.resize(4 * kDenseBlock);
        A* tallies[4] = {storage.data(), storage.data() + kDenseBlock, storage.data() + 2 * kDenseBlock,
                         storage.data() + 3 * kDenseBlock};
        for (A* row : tallies) std::fill(row, row + count, S::kStart);
        uint64_t k = 0;
        ForSlice(plan.inner, in, [&](const std::byte* p) {
            A* t = tallies[k++ & 3];
            for (uint64_t b = 0; b < count; ++b) t[b] = S::Fold(t[b], A(Load<float>(p + b * sizeof(float))));
        });
        for (uint64_t b = 0; b < count; ++b) {
            S state{};
            for (int c = 0; c < 4; ++c) state.acc[c] = tallies[c][b];
            state.Store(plan, out + int64_t(b) * outStep);
        }
    } else if constexpr (S::kDense == Dense::Extreme) {
        float best[kDenseBlock] = {};
        bool any = false;
        ForSlice(plan.inner, in, [&](const std::byte* p) {
            if (!any) {
                for (uint64_t b = 0; b < count; ++b) best[b] = Load<float>(p + b * sizeof(float));
                any = true;
                return;
            }
            for (uint64_t b = 0; b < count; ++b) {  // ExtremeState::Add, per lane
                const float x = Load<float>(p + b * sizeof(float)), v = best[b];
                const float w = v != v ? x : v;  // two selects, no ||: the loop vectorizes
                best[b] = (S::kMax ? x > w : x < w) ? x : w;
            }
        });
        for (uint64_t b = 0; b < count; ++b) {
            S state{};
            state.best = best[b];
            state.any = any;
            state.Store(plan, out + int64_t(b) * outStep);
        }
    }
}

template <class S>
FREEDML_REDUCE_INLINE void RunBody(const Plan& plan, const std::byte* in, std::byte* out, uint64_t count) {
    if (count == 1) {
        S state{};
        uint64_t k = 0;
        if constexpr (S::kDense != Dense::None) {
            ForSliceRows(plan.inner, in, [&](const std::byte* p, uint64_t n, int64_t stride) {
                if (stride == int64_t(sizeof(float))) {
                    state.AddRow(plan, p, n, k);
                } else {
                    for (uint64_t i = 0; i < n; ++i) state.Add(plan, p + int64_t(i) * stride, k + i);
                }
                k += n;
            });
        } else {
            ForSlice(plan.inner, in, [&](const std::byte* p) { state.Add(plan, p, k++); });
        }
        state.Store(plan, out);
        return;
    }
    // Blocked: element b of the block is `b` input steps and `b` output steps from the first.
    const int64_t inStep = plan.outer.InnerStride(0), outStep = plan.outer.InnerStride(1);
    if constexpr (S::kDense != Dense::None) {
        if (inStep == int64_t(sizeof(float))) return RunDenseBlock<S>(plan, in, out, count);
    }
    S states[kBlock]{};
    uint64_t k = 0;
    ForSlice(plan.inner, in, [&](const std::byte* p) {
        for (uint64_t b = 0; b < count; ++b) states[b].Add(plan, p + int64_t(b) * inStep, k);
        ++k;
    });
    for (uint64_t b = 0; b < count; ++b) states[b].Store(plan, out + int64_t(b) * outStep);
}

template <class S>
void Run(const Plan& plan, const std::byte* in, std::byte* out, uint64_t count) {
    RunBody<S>(plan, in, out, count);
}
#ifdef FREEDML_CPU_X86_64
template <class S>
FREEDML_TARGET_AVX2_FMA void RunAvx2(const Plan& plan, const std::byte* in, std::byte* out, uint64_t count) {
    RunBody<S>(plan, in, out, count);
}
#endif

// Run<S>, or its AVX2 build where the CPU has it (the same operations, rounded the same).
template <class S>
RunFn Runner() {
#ifdef FREEDML_CPU_X86_64
    if (cpu::UseAvx2Fma()) return RunAvx2<S>;
#endif
    return Run<S>;
}

// The runner of `fn` on element type T (null where the schema allows no such pair).
template <class T>
RunFn Pick(Fn fn) {
    constexpr bool kFloat = std::is_same_v<T, float> || std::is_same_v<T, Half>;
    switch (fn) {
        case Fn::ArgMax:
            return Runner<ArgState<true, T>>();
        case Fn::ArgMin:
            return Runner<ArgState<false, T>>();
        case Fn::Max:
            return Runner<ExtremeState<true, T>>();
        case Fn::Min:
            return Runner<ExtremeState<false, T>>();
        default: break;
    }
    if constexpr (kFloat) {
        switch (fn) {
            case Fn::Average:
                return Runner<FloatState<Fn::Average, T>>();
            case Fn::L1:
                return Runner<FloatState<Fn::L1, T>>();
            case Fn::L2:
                return Runner<FloatState<Fn::L2, T>>();
            case Fn::LogSum:
                return Runner<FloatState<Fn::LogSum, T>>();
            case Fn::LogSumExp:
                return Runner<LogSumExpState<T>>();
            case Fn::Multiply:
                return Runner<FloatState<Fn::Multiply, T>>();
            case Fn::Sum:
                return Runner<FloatState<Fn::Sum, T>>();
            case Fn::SumSquare:
                return Runner<FloatState<Fn::SumSquare, T>>();
            default: return nullptr;
        }
    } else if constexpr (sizeof(T) >= 4) {
        switch (fn) {
            case Fn::L1:
                return Runner<IntegerState<Fn::L1, T>>();
            case Fn::Multiply:
                return Runner<IntegerState<Fn::Multiply, T>>();
            case Fn::Sum:
                return Runner<IntegerState<Fn::Sum, T>>();
            case Fn::SumSquare:
                return Runner<IntegerState<Fn::SumSquare, T>>();
            default: return nullptr;
        }
    } else {
        return nullptr;
    }
}

RunFn PickFor(DML_TENSOR_DATA_TYPE type, Fn fn) {
    switch (type) {
        case DML_TENSOR_DATA_TYPE_FLOAT32: return Pick<float>(fn);
        case DML_TENSOR_DATA_TYPE_FLOAT16: return Pick<Half>(fn);
        case DML_TENSOR_DATA_TYPE_INT64: return Pick<int64_t>(fn);
        case DML_TENSOR_DATA_TYPE_INT32: return Pick<int32_t>(fn);
        case DML_TENSOR_DATA_TYPE_INT16: return Pick<int16_t>(fn);
        case DML_TENSOR_DATA_TYPE_INT8: return Pick<int8_t>(fn);
        case DML_TENSOR_DATA_TYPE_UINT64: return Pick<uint64_t>(fn);
        case DML_TENSOR_DATA_TYPE_UINT32: return Pick<uint32_t>(fn);
        case DML_TENSOR_DATA_TYPE_UINT16: return Pick<uint16_t>(fn);
        case DML_TENSOR_DATA_TYPE_UINT8: return Pick<uint8_t>(fn);
        default: return nullptr;
    }
}

// Calls f(input, output) for elements [first, last) of `outer` in row-major order: an odometer
// over its dimensions that moves both addresses by their strides.
template <class F>
void ForEachOuter(const LoopPlan<2>& outer, const std::byte* inBase, std::byte* outBase, uint64_t first, uint64_t last,
                  F&& f) {
    std::array<uint64_t, kMaxTensorRank> index{};
    uint64_t rest = first;
    for (uint32_t d = outer.rank; d-- > 0;) {
        index[d] = rest % outer.sizes[d];
        rest /= outer.sizes[d];
    }
    const std::byte* in = inBase;
    std::byte* out = outBase;
    for (uint32_t d = 0; d < outer.rank; ++d) {
        in += int64_t(index[d]) * outer.byteStrides[0][d];
        out += int64_t(index[d]) * outer.byteStrides[1][d];
    }
    for (uint64_t e = first; e < last; ++e) {
        f(in, out);
        for (uint32_t d = outer.rank; d-- > 0;) {
            if (++index[d] < outer.sizes[d]) {
                in += outer.byteStrides[0][d];
                out += outer.byteStrides[1][d];
                break;
            }
            in -= int64_t(outer.sizes[d] - 1) * outer.byteStrides[0][d];
            out -= int64_t(outer.sizes[d] - 1) * outer.byteStrides[1][d];
            index[d] = 0;
        }
    }
}

class ReduceKernel final : public Kernel {
public:
    ReduceKernel(Plan plan, RunFn run) : plan_(plan), run_(run) {}
    uint64_t PersistentResourceSize() const override { return 0; }
    uint64_t TemporaryResourceSize() const override { return 0; }
    void Initialize(const KernelBindings&) override {}

    void Execute(const KernelBindings& b) override {
        const uint64_t work = uint64_t(1) << 14;  // elements read per task, at least
        if (!plan_.blocked) {
            const uint64_t minSlices = std::max<uint64_t>(1, work / plan_.sliceCount);
            ParallelFor(HostThreads(b), plan_.sliceTotal, minSlices, [&](uint64_t first, uint64_t last) {
                ForEachOuter(plan_.outer, b.inputs[0], b.outputs[0], first, last,
                             [&](const std::byte* in, std::byte* out) { run_(plan_, in, out, 1); });
            });
            return;
        }
        // Blocks of `width` output elements along each row of the innermost kept dimension: kBlock,
        // or for the dense path as wide as still gives every thread a block (up to kDenseBlock).
        const LoopPlan<2>& outer = plan_.outer;
        const uint64_t rowLength = outer.InnerCount();
        uint64_t width = kBlock;
        if (plan_.denseBlocks) {
            const ThreadPool* threads = HostThreads(b);
            const uint64_t perThread = plan_.sliceTotal / (threads ? threads->Size() : 1);
            width = std::clamp<uint64_t>((perThread + 63) / 64 * 64, kBlock, kDenseBlock);
        }
        const uint64_t blocksPerRow = (rowLength + width - 1) / width;
        const uint64_t minBlocks = std::max<uint64_t>(1, work / (plan_.sliceCount * width));
        ParallelFor(HostThreads(b), outer.OuterCount() * blocksPerRow, minBlocks, [&](uint64_t first, uint64_t last) {
            for (uint64_t i = first; i < last; ++i) {
                const uint64_t start = (i % blocksPerRow) * width;
                uint64_t row = i / blocksPerRow;
                const std::byte* in = b.inputs[0] + int64_t(start) * outer.InnerStride(0);
                std::byte* out = b.outputs[0] + int64_t(start) * outer.InnerStride(1);
                for (uint32_t d = outer.rank - 1; d-- > 0;) {
                    const uint64_t index = row % outer.sizes[d];
                    row /= outer.sizes[d];
                    in += int64_t(index) * outer.byteStrides[0][d];
                    out += int64_t(index) * outer.byteStrides[1][d];
                }
                run_(plan_, in, out, std::min(width, rowLength - start));
            }
        });
    }

private:
    Plan plan_;
    RunFn run_;
};

// The functions whose FLOAT32 state has a dense block path (Dense::Tallies or Dense::Extreme).
bool HasDensePath(Fn fn) { return fn != Fn::ArgMax && fn != Fn::ArgMin && fn != Fn::LogSumExp; }

Status Create(const OperatorArgs& args, Fn fn, uint32_t axisCount, const UINT* axes, bool lastTie,
              std::unique_ptr<Kernel>* kernel) {
    const TensorDesc& input = *args.inputs[0];
    const TensorDesc& output = *args.outputs[0];
    const RunFn run = PickFor(input.dataType, fn);
    if (!run) {
        return NoKernel("DML_OPERATOR_%s has no CPU kernel for this function on data type %s.", args.schema.name,
                        DataTypeName(input.dataType));
    }
    bool reduced[kMaxTensorRank] = {};
    for (uint32_t i = 0; i < axisCount; ++i) reduced[axes[i]] = true;
    std::array<uint32_t, kMaxTensorRank> keptSizes{}, reducedSizes{};
    for (uint32_t d = 0; d < input.rank; ++d) {
        keptSizes[d] = reduced[d] ? 1 : input.sizes[d];
        reducedSizes[d] = reduced[d] ? input.sizes[d] : 1;
    }
    const uint32_t inSize = ElementSizeInBytes(input.dataType);
    Plan plan;
    plan.outer = MakeLoopPlan<2>(keptSizes.data(), input.rank, {input.strides.data(), output.strides.data()},
                                 {inSize, ElementSizeInBytes(output.dataType)});
    plan.inner = MakeLoopPlan<1>(reducedSizes.data(), input.rank, {input.strides.data()}, {inSize});
    plan.sliceCount = cpu::ElementCountOf(reducedSizes, input.rank);
    plan.sliceTotal = cpu::ElementCountOf(keptSizes, input.rank);
    plan.lastTie = lastTie;
    plan.indexType = output.dataType;
    const bool slicesPacked = plan.inner.rank == 1 && plan.inner.InnerStride(0) == int64_t(inSize);
    plan.blocked = plan.outer.rank >= 1 && plan.outer.InnerStride(0) == int64_t(inSize) && plan.sliceCount > 1 &&
                   !slicesPacked;
    plan.denseBlocks = plan.blocked && input.dataType == DML_TENSOR_DATA_TYPE_FLOAT32 && HasDensePath(fn);
    *kernel = std::make_unique<ReduceKernel>(plan, run);
    return {};
}

// ---- CUMULATIVE_SUMMATION and CUMULATIVE_PRODUCT ------------------------------------------------------

struct ScanPlan {
    LoopPlan<2> outer;  // every dimension but the axis: input, output
    uint64_t length = 1;  // the axis
    int64_t inStride = 0, outStride = 0;  // bytes along the axis
    uint64_t lines = 1;
    bool decreasing = false, exclusive = false;
};

using ScanFn = void (*)(const ScanPlan& plan, const std::byte* in, std::byte* out);

// What a scan accumulates in: TypeOf's Acc for floats, the unsigned twin of an integer (it wraps).
template <class T, bool kFloat = std::is_same_v<T, float> || std::is_same_v<T, Half>>
struct ScanAcc {
    using type = std::make_unsigned_t<T>;
};
template <class T>
struct ScanAcc<T, true> {
    using type = typename TypeOf<T>::Acc;
};

template <bool kProduct, class T>
void ScanLine(const ScanPlan& plan, const std::byte* in, std::byte* out) {
    constexpr bool kFloat = std::is_same_v<T, float> || std::is_same_v<T, Half>;
    using A = typename ScanAcc<T>::type;
    A acc = kProduct ? A(1) : A(0);
    const uint64_t n = plan.length;
    int64_t inStep = plan.inStride, outStep = plan.outStride;
    if (plan.decreasing) {
        in += int64_t(n - 1) * inStep;
        out += int64_t(n - 1) * outStep;
        inStep = -inStep;
        outStep = -outStep;
    }
    for (uint64_t i = 0; i < n; ++i, in += inStep, out += outStep) {
        A x;
        if constexpr (kFloat) {
            x = A(TypeOf<T>::Read(in));
        } else {
            x = A(Load<T>(in));
        }
        const A before = acc;
        acc = kProduct ? A(acc * x) : A(acc + x);
        const A result = plan.exclusive ? before : acc;
        if constexpr (kFloat) {
            TypeOf<T>::Write(out, result);
        } else {
            Store(out, T(result));
        }
    }
}

template <bool kProduct>
ScanFn PickScan(DML_TENSOR_DATA_TYPE type) {
    switch (type) {
        case DML_TENSOR_DATA_TYPE_FLOAT32: return ScanLine<kProduct, float>;
        case DML_TENSOR_DATA_TYPE_FLOAT16: return ScanLine<kProduct, Half>;
        case DML_TENSOR_DATA_TYPE_INT64: return ScanLine<kProduct, int64_t>;
        case DML_TENSOR_DATA_TYPE_INT32: return ScanLine<kProduct, int32_t>;
        case DML_TENSOR_DATA_TYPE_UINT64: return ScanLine<kProduct, uint64_t>;
        case DML_TENSOR_DATA_TYPE_UINT32: return ScanLine<kProduct, uint32_t>;
        default: return nullptr;
    }
}

class ScanKernel final : public Kernel {
public:
    ScanKernel(ScanPlan plan, ScanFn line) : plan_(plan), line_(line) {}
    uint64_t PersistentResourceSize() const override { return 0; }
    uint64_t TemporaryResourceSize() const override { return 0; }
    void Initialize(const KernelBindings&) override {}

    void Execute(const KernelBindings& b) override {
        const uint64_t minLines = std::max<uint64_t>(1, (uint64_t(1) << 14) / plan_.length);
        ParallelFor(HostThreads(b), plan_.lines, minLines, [&](uint64_t first, uint64_t last) {
            ForEachOuter(plan_.outer, b.inputs[0], b.outputs[0], first, last,
                         [&](const std::byte* in, std::byte* out) { line_(plan_, in, out); });
        });
    }

private:
    ScanPlan plan_;
    ScanFn line_;
};

Status CreateScan(const OperatorArgs& args, bool product, uint32_t axis, bool decreasing, bool exclusive,
                  std::unique_ptr<Kernel>* kernel) {
    const TensorDesc& input = *args.inputs[0];
    const TensorDesc& output = *args.outputs[0];
    const ScanFn line = product ? PickScan<true>(input.dataType) : PickScan<false>(input.dataType);
    if (!line) {
        return NoKernel("DML_OPERATOR_%s has no CPU kernel for data type %s.", args.schema.name,
                        DataTypeName(input.dataType));
    }
    const uint32_t size = ElementSizeInBytes(input.dataType);
    std::array<uint32_t, kMaxTensorRank> outerSizes{};
    for (uint32_t d = 0; d < input.rank; ++d) outerSizes[d] = d == axis ? 1 : input.sizes[d];
    ScanPlan plan;
    plan.outer = MakeLoopPlan<2>(outerSizes.data(), input.rank, {input.strides.data(), output.strides.data()},
                                 {size, size});
    plan.length = input.sizes[axis];
    plan.inStride = int64_t(input.strides[axis]) * size;
    plan.outStride = int64_t(output.strides[axis]) * size;
    plan.lines = cpu::ElementCountOf(outerSizes, input.rank);
    plan.decreasing = decreasing;
    plan.exclusive = exclusive;
    *kernel = std::make_unique<ScanKernel>(plan, line);
    return {};
}

}  // namespace

namespace cpu {

Status CreateCpuReduce(const KernelContext&, const OperatorArgs& args, std::unique_ptr<Kernel>* kernel) {
    const auto& desc = args.As<DML_REDUCE_OPERATOR_DESC>();
    return Create(args, Fn(desc.Function), desc.AxisCount, desc.Axes, false, kernel);
}

Status CreateCpuArgMin(const KernelContext&, const OperatorArgs& args, std::unique_ptr<Kernel>* kernel) {
    const auto& desc = args.As<DML_ARGMIN_OPERATOR_DESC>();
    return Create(args, Fn::ArgMin, desc.AxisCount, desc.Axes, desc.AxisDirection == DML_AXIS_DIRECTION_DECREASING,
                  kernel);
}

Status CreateCpuArgMax(const KernelContext&, const OperatorArgs& args, std::unique_ptr<Kernel>* kernel) {
    const auto& desc = args.As<DML_ARGMAX_OPERATOR_DESC>();
    return Create(args, Fn::ArgMax, desc.AxisCount, desc.Axes, desc.AxisDirection == DML_AXIS_DIRECTION_DECREASING,
                  kernel);
}

Status CreateCpuCumulative(const KernelContext&, const OperatorArgs& args, std::unique_ptr<Kernel>* kernel) {
    if (args.schema.type == DML_OPERATOR_CUMULATIVE_PRODUCT) {
        const auto& desc = args.As<DML_CUMULATIVE_PRODUCT_OPERATOR_DESC>();
        return CreateScan(args, true, desc.Axis, desc.AxisDirection == DML_AXIS_DIRECTION_DECREASING,
                          desc.HasExclusiveProduct, kernel);
    }
    const auto& desc = args.As<DML_CUMULATIVE_SUMMATION_OPERATOR_DESC>();
    return CreateScan(args, false, desc.Axis, desc.AxisDirection == DML_AXIS_DIRECTION_DECREASING,
                      desc.HasExclusiveSum, kernel);
}

}  // namespace cpu

}  // namespace freedml::dml
