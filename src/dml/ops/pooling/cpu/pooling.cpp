// CPU kernels of the pooling family: one loop (pool_plan.h) for every pooling operator, run in
// parallel over the output's elements (or its rows, where no indices are written), any strides;
// oneDNN's pooling for the FLOAT32 averages it computes alike. MAX_UNPOOLING zero-fills, then
// scatters. FLOAT32 and FLOAT16 average and Lp accumulate in double; MAX compares in the element's
// own type.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <memory>
#include <type_traits>
#include <vector>

#include "dml/kernel.h"
#include "dml/kernels/cpu/float16.h"
#include "dml/kernels/cpu/thread_pool.h"
#include "dml/ops/pooling/cpu/pooling_onednn.h"
#include "dml/ops/pooling/pool_desc.h"

namespace freedml::dml {

namespace {

struct Half {
    uint16_t bits;
};

// How one element type is read for comparison (Value) and for arithmetic (double).
template <class T>
struct Element {
    using Value = T;
    static T Read(const std::byte* base, int64_t offset) {
        T v;
        std::memcpy(&v, base + offset * int64_t(sizeof(T)), sizeof(T));
        return v;
    }
    static void Write(std::byte* base, int64_t offset, T v) {
        std::memcpy(base + offset * int64_t(sizeof(T)), &v, sizeof(T));
    }
    static T Lowest() {
        if constexpr (std::numeric_limits<T>::has_infinity) return -std::numeric_limits<T>::infinity();
        return std::numeric_limits<T>::lowest();
    }
};
template <>
struct Element<Half> {
    using Value = float;
    static float Read(const std::byte* base, int64_t offset) {
        uint16_t v;
        std::memcpy(&v, base + offset * 2, 2);
        return cpu::HalfToFloat(v);
    }
    static void Write(std::byte* base, int64_t offset, float v) {
        const uint16_t h = cpu::FloatToHalf(v);
        std::memcpy(base + offset * 2, &h, 2);
    }
    static float Lowest() { return -std::numeric_limits<float>::infinity(); }
};

template <class T>
constexpr int64_t ElementBytes() {
    return std::is_same_v<T, Half> ? 2 : int64_t(sizeof(T));
}

inline void WriteIndex(const PoolPlan& plan, std::byte* indices, int64_t offset, uint64_t index) {
    if (plan.index64) {
        std::memcpy(indices + offset * 8, &index, 8);
    } else {
        const uint32_t i32 = uint32_t(index);
        std::memcpy(indices + offset * 4, &i32, 4);
    }
}

template <class T>
void PoolRange(const PoolPlan& plan, const std::byte* in, std::byte* out, std::byte* indices, uint64_t first,
               uint64_t last) {
    using E = Element<T>;
    for (uint64_t o = first; o < last; ++o) {
        const PoolSite site = LocatePool(plan, o);
        if (plan.kind == PoolKind::Max) {
            uint64_t index = 0;
            const auto best = PoolMax<typename E::Value>(plan, site, E::Lowest(),
                                                         [&](int64_t offset) { return E::Read(in, offset); }, &index);
            E::Write(out, site.outOffset, best);
            if (plan.hasIndices) WriteIndex(plan, indices, site.indexOffset, index);
        } else if constexpr (std::is_same_v<T, float> || std::is_same_v<T, Half>) {
            const double v = PoolAverageOrLp<double>(plan, site, [&](int64_t offset) { return double(E::Read(in, offset)); });
            E::Write(out, site.outOffset, static_cast<typename E::Value>(v));
        }
    }
}

// The same pooling by output rows (all but the last spatial dimension fixed), for the operators
// without indices: each valid input row of the window is walked once per window column for the
// whole output row, over just the outputs whose tap falls inside the input, so the innermost loop
// is a strided load and a max or a sum. Each output still sees its window positions in row-major
// order, so the results are PoolRange's (a NaN maximum is the quiet NaN, not the input's payload).
template <class T, PoolKind K>
void PoolRowsOf(const PoolPlan& plan, const std::byte* in, std::byte* out, uint64_t first, uint64_t last) {
    using E = Element<T>;
    using V = typename E::Value;
    using Acc = std::conditional_t<K == PoolKind::Max, V, double>;
    const uint32_t ow = plan.out[2];
    std::vector<Acc> acc(ow);
    std::vector<uint32_t> count(K == PoolKind::Average ? ow : 0);
    std::vector<uint8_t> nan(K == PoolKind::Max ? ow : 0);
    const int64_t inW = plan.in[2], stepW = plan.inStrides[4], strideW = plan.stride[2];
    const uint32_t p = plan.p;
    // Per window column k2: output x reads input column x * strideW + offset, inside the input for
    // x in [lo, hi). The same for every row, so worked out once (divisions cost more than the loads).
    struct Column {
        int64_t offset, lo, hi;
    };
    std::vector<Column> columns(plan.window[2]);
    for (uint32_t k2 = 0; k2 < plan.window[2]; ++k2) {
        const int64_t offset = int64_t(k2) * plan.dilation[2] - plan.pad[2];
        const int64_t lo = offset >= 0 ? 0 : (-offset + strideW - 1) / strideW;
        const int64_t hi = inW - 1 - offset < 0 ? 0 : std::min<int64_t>(ow, (inW - 1 - offset) / strideW + 1);
        columns[k2] = {offset, lo, hi};
    }
    for (uint64_t row = first; row < last; ++row) {
        uint64_t rest = row;
        const uint32_t y1 = uint32_t(rest % plan.out[1]);
        rest /= plan.out[1];
        const uint32_t y0 = uint32_t(rest % plan.out[0]);
        rest /= plan.out[0];
        const uint32_t c = uint32_t(rest % plan.channels), n = uint32_t(rest / plan.channels);
        std::fill(acc.begin(), acc.end(), K == PoolKind::Max ? Acc(E::Lowest()) : Acc(0));
        std::fill(count.begin(), count.end(), 0u);
        std::fill(nan.begin(), nan.end(), uint8_t(0));
        const int64_t inBase = int64_t(n) * plan.inStrides[0] + int64_t(c) * plan.inStrides[1];
        for (uint32_t k0 = 0; k0 < plan.window[0]; ++k0) {
            const int64_t i0 = int64_t(y0) * plan.stride[0] - plan.pad[0] + int64_t(k0) * plan.dilation[0];
            if (i0 < 0 || i0 >= int64_t(plan.in[0])) continue;
            for (uint32_t k1 = 0; k1 < plan.window[1]; ++k1) {
                const int64_t i1 = int64_t(y1) * plan.stride[1] - plan.pad[1] + int64_t(k1) * plan.dilation[1];
                if (i1 < 0 || i1 >= int64_t(plan.in[1])) continue;
                const int64_t rowBase = inBase + i0 * plan.inStrides[2] + i1 * plan.inStrides[3];
                // Plain restrict pointers: stores through uint8_t and std::byte may alias anything,
                // which would reload every pointer from memory on each element.
                Acc* __restrict accs = acc.data();
                uint8_t* __restrict nans = nan.data();
                uint32_t* __restrict counts = count.data();
                for (const Column& column : columns) {
                    const std::byte* __restrict src = in + (rowBase + column.offset * stepW) * int64_t(ElementBytes<T>());
                    const int64_t step = strideW * stepW;
                    for (int64_t x = column.lo; x < column.hi; ++x) {
                        const V v = E::Read(src, x * step);
                        if constexpr (K == PoolKind::Max) {
                            // The first largest (a plain max, no branch: random data defeats the
                            // branch predictor); NaNs are counted apart and win at the end.
                            accs[x] = v > accs[x] ? v : accs[x];
                            if constexpr (std::is_floating_point_v<V>) nans[x] |= uint8_t(!(v == v));
                        } else if constexpr (K == PoolKind::Average) {
                            accs[x] += double(v);
                            ++counts[x];
                        } else {
                            const double a = std::fabs(double(v));
                            accs[x] += p == 1 ? a : p == 2 ? a * a : std::pow(a, double(p));
                        }
                    }
                }
            }
        }
        const int64_t outBase = int64_t(n) * plan.outStrides[0] + int64_t(c) * plan.outStrides[1] +
                                int64_t(y0) * plan.outStrides[2] + int64_t(y1) * plan.outStrides[3];
        for (uint32_t x = 0; x < ow; ++x) {
            const int64_t at = outBase + int64_t(x) * plan.outStrides[4];
            if constexpr (K == PoolKind::Max) {
                if constexpr (std::is_floating_point_v<V>) {
                    E::Write(out, at, nan[x] ? std::numeric_limits<V>::quiet_NaN() : acc[x]);
                } else {
                    E::Write(out, at, acc[x]);
                }
            } else if constexpr (K == PoolKind::Average) {
                E::Write(out, at, static_cast<V>(acc[x] / double(plan.includePadding ? plan.windowVolume : count[x])));
            } else {
                const double v = p == 1 ? acc[x] : p == 2 ? std::sqrt(acc[x]) : std::pow(acc[x], 1.0 / p);
                E::Write(out, at, static_cast<V>(v));
            }
        }
    }
}

// Whether the plan is a global average pool over packed planes (a CNN's head): one output per
// {N, C}, its window the whole plane, no padding.
bool IsGlobalAverage(const PoolPlan& plan) {
    if (plan.kind != PoolKind::Average) return false;
    int64_t packed = 1;
    for (int d = 2; d >= 0; --d) {
        if (plan.out[d] != 1 || plan.window[d] != plan.in[d] || plan.pad[d] != 0) return false;
        if (plan.window[d] > 1 && plan.dilation[d] != 1) return false;
        if (plan.in[d] > 1 && plan.inStrides[2 + d] != packed) return false;
        packed *= plan.in[d];
    }
    return true;
}

// IsGlobalAverage's rows: each plane summed in row-major order as PoolRowsOf sums a window, so
// the results are its, without its per-row set-up (which costs more than 7x7 elements).
template <class T>
void GlobalAverageRows(const PoolPlan& plan, const std::byte* in, std::byte* out, uint64_t first, uint64_t last) {
    using E = Element<T>;
    using V = typename E::Value;
    const uint64_t plane = uint64_t(plan.in[0]) * plan.in[1] * plan.in[2];
    for (uint64_t row = first; row < last; ++row) {
        const uint32_t c = uint32_t(row % plan.channels), n = uint32_t(row / plan.channels);
        const int64_t base = int64_t(n) * plan.inStrides[0] + int64_t(c) * plan.inStrides[1];
        double sum = 0;
        for (uint64_t i = 0; i < plane; ++i) sum += double(E::Read(in, base + int64_t(i)));
        E::Write(out, int64_t(n) * plan.outStrides[0] + int64_t(c) * plan.outStrides[1],
                 static_cast<V>(sum / double(plan.windowVolume)));
    }
}

template <class T>
void PoolRows(const PoolPlan& plan, const std::byte* in, std::byte* out, std::byte*, uint64_t first, uint64_t last) {
    if constexpr (std::is_same_v<T, float> || std::is_same_v<T, Half>) {
        if (IsGlobalAverage(plan)) return GlobalAverageRows<T>(plan, in, out, first, last);
        if (plan.kind == PoolKind::Average) return PoolRowsOf<T, PoolKind::Average>(plan, in, out, first, last);
        if (plan.kind == PoolKind::Lp) return PoolRowsOf<T, PoolKind::Lp>(plan, in, out, first, last);
    }
    PoolRowsOf<T, PoolKind::Max>(plan, in, out, first, last);
}

using PoolFn = void (*)(const PoolPlan&, const std::byte*, std::byte*, std::byte*, uint64_t, uint64_t);

template <template <class> class Fn, class R>
R PickByType(DML_TENSOR_DATA_TYPE type) {
    switch (type) {
        case DML_TENSOR_DATA_TYPE_FLOAT32: return Fn<float>::value;
        case DML_TENSOR_DATA_TYPE_FLOAT16: return Fn<Half>::value;
        case DML_TENSOR_DATA_TYPE_INT64: return Fn<int64_t>::value;
        case DML_TENSOR_DATA_TYPE_INT32: return Fn<int32_t>::value;
        case DML_TENSOR_DATA_TYPE_INT16: return Fn<int16_t>::value;
        case DML_TENSOR_DATA_TYPE_INT8: return Fn<int8_t>::value;
        case DML_TENSOR_DATA_TYPE_UINT64: return Fn<uint64_t>::value;
        case DML_TENSOR_DATA_TYPE_UINT32: return Fn<uint32_t>::value;
        case DML_TENSOR_DATA_TYPE_UINT16: return Fn<uint16_t>::value;
        case DML_TENSOR_DATA_TYPE_UINT8: return Fn<uint8_t>::value;
        default: return nullptr;
    }
}

template <class T>
struct PoolOf {
    static constexpr PoolFn value = PoolRange<T>;
};
template <class T>
struct RowsOf {
    static constexpr PoolFn value = PoolRows<T>;
};

class PoolingKernel final : public Kernel {
public:
    // `run` goes over output elements, `rows` (null: none) over output rows of the last spatial
    // dimension.
    PoolingKernel(PoolPlan plan, PoolFn run, PoolFn rows, std::unique_ptr<cpu::OneDnnPooling> oneDnn)
        : plan_(plan), run_(run), rows_(rows), oneDnn_(std::move(oneDnn)) {}
    uint64_t PersistentResourceSize() const override { return 0; }
    uint64_t TemporaryResourceSize() const override { return 0; }
    void Initialize(const KernelBindings&) override {}
    void Execute(const KernelBindings& b) override {
        std::byte* indices = plan_.hasIndices ? b.outputs[1] : nullptr;
        if (oneDnn_) return oneDnn_->Run(b.inputs[0], b.outputs[0]);
        if (rows_) {
            const uint64_t rows = plan_.outCount / plan_.out[2];
            const uint64_t minRows = std::max<uint64_t>(1, (uint64_t(1) << 13) / (plan_.windowVolume * plan_.out[2]));
            cpu::ParallelFor(cpu::HostThreads(b), rows, minRows, [&](uint64_t first, uint64_t last) {
                rows_(plan_, b.inputs[0], b.outputs[0], nullptr, first, last);
            });
            return;
        }
        const uint64_t minChunk = std::max<uint64_t>(1, (uint64_t(1) << 13) / plan_.windowVolume);
        cpu::ParallelFor(cpu::HostThreads(b), plan_.outCount, minChunk, [&](uint64_t first, uint64_t last) {
            run_(plan_, b.inputs[0], b.outputs[0], indices, first, last);
        });
    }

private:
    PoolPlan plan_;
    PoolFn run_;
    PoolFn rows_;
    std::unique_ptr<cpu::OneDnnPooling> oneDnn_;
};

// Whether oneDNN's pooling computes this pool as FreeDML defines it: a FLOAT32 AVERAGE with no
// dilations and every window holding at least one input (oneDNN's exclude-padding average of no
// input is not 0/0). Not MAX: oneDNN's max passes over NaNs, where FreeDML's propagates them.
bool OneDnnComputes(const PoolPlan& plan, DML_TENSOR_DATA_TYPE type) {
    if (type != DML_TENSOR_DATA_TYPE_FLOAT32 || plan.kind != PoolKind::Average) return false;
    for (int d = 0; d < 3; ++d) {
        if (plan.dilation[d] != 1) return false;
        const int64_t lastEnd = int64_t(plan.out[d] - 1) * plan.stride[d] + plan.window[d] - plan.pad[d];
        if (plan.pad[d] >= plan.window[d] || lastEnd - int64_t(plan.window[d]) >= int64_t(plan.in[d])) return false;
    }
    return true;
}

// AVERAGE_POOLING_GRAD and MAX_POOLING_GRAD: each OutputGradientTensor element gathers its share
// (PoolGradient), in double; elements run in parallel.
template <class T>
void PoolGradRange(const PoolPlan& plan, const std::byte* x, const std::byte* dy, std::byte* dx, uint64_t first,
                   uint64_t last) {
    using E = Element<T>;
    using V = typename E::Value;
    for (uint64_t i = first; i < last; ++i) {
        const double g = PoolGradient<double, V>(
            plan, i, [&](int64_t offset) { return double(E::Read(dy, offset)); },
            [&](int64_t offset) { return E::Read(x, offset); }, E::Lowest());
        E::Write(dx, GradientOffset(plan, i), static_cast<V>(g));
    }
}

using GradFn = void (*)(const PoolPlan&, const std::byte*, const std::byte*, std::byte*, uint64_t, uint64_t);

// MAX_POOLING_GRAD where no two windows share an input element and none reaches into padding
// (NonOverlappingMax): by (n, c) planes, the plane's gradient zero-filled, then each window's
// output gradient written to its first maximum (PoolMax's choice, as PoolGradRange's) once, instead
// of every input element searching the windows that hold it. The same values PoolGradRange writes.
template <class T>
void MaxGradPlanes(const PoolPlan& plan, const std::byte* x, const std::byte* dy, std::byte* dx, uint64_t first,
                   uint64_t last) {
    using E = Element<T>;
    using V = typename E::Value;
    const int64_t *gs = plan.gradStrides, *xs = plan.inStrides, *ys = plan.outStrides;
    // Per window of one output row: the running maximum, where it is (in the plane's gradient),
    // and whether it is a NaN (which no later element replaces).
    std::vector<V> best(plan.out[2]);
    std::vector<int64_t> at(plan.out[2]);
    std::vector<uint8_t> bestNaN(plan.out[2]);
    for (uint64_t plane = first; plane < last; ++plane) {
        const int64_t n = int64_t(plane / plan.channels), c = int64_t(plane % plan.channels);
        const int64_t gBase = n * gs[0] + c * gs[1], xBase = n * xs[0] + c * xs[1], yBase = n * ys[0] + c * ys[1];
        for (uint32_t i0 = 0; i0 < plan.in[0]; ++i0) {
            for (uint32_t i1 = 0; i1 < plan.in[1]; ++i1) {
                const int64_t row = gBase + int64_t(i0) * gs[2] + int64_t(i1) * gs[3];
                if (gs[4] == 1) {  // a packed row: zero bits are +0 in every type here
                    std::memset(dx + row * ElementBytes<T>(), 0, size_t(plan.in[2]) * ElementBytes<T>());
                    continue;
                }
                for (uint32_t i2 = 0; i2 < plan.in[2]; ++i2) E::Write(dx, row + int64_t(i2) * gs[4], V(0));
            }
        }
        // Every window lies inside the input (NonOverlappingMax), so no position needs a bounds check.
        // A whole output row at a time: each window position (k0, k1, k2), in PoolMax's row-major
        // window order, updates the running maximum of every window of the row, so the innermost
        // loop is a strided load and a compare.
        for (uint32_t y0 = 0; y0 < plan.out[0]; ++y0) {
            for (uint32_t y1 = 0; y1 < plan.out[1]; ++y1) {
                const int64_t f0 = int64_t(y0) * plan.stride[0], f1 = int64_t(y1) * plan.stride[1];
                bool firstPosition = true;
                for (uint32_t k0 = 0; k0 < plan.window[0]; ++k0) {
                    for (uint32_t k1 = 0; k1 < plan.window[1]; ++k1) {
                        const int64_t xRow = xBase + (f0 + k0) * xs[2] + (f1 + k1) * xs[3];
                        const int64_t gRow = (f0 + k0) * gs[2] + (f1 + k1) * gs[3];
                        for (uint32_t k2 = 0; k2 < plan.window[2]; ++k2, firstPosition = false) {
                            for (uint32_t y2 = 0; y2 < plan.out[2]; ++y2) {
                                const int64_t i2 = int64_t(y2) * plan.stride[2] + k2;
                                const V v = E::Read(x, xRow + i2 * xs[4]);
                                const bool nan = !(v == v);
                                if (firstPosition || (!bestNaN[y2] && (nan || v > best[y2]))) {
                                    best[y2] = v;
                                    at[y2] = gRow + i2 * gs[4];
                                    bestNaN[y2] = nan;
                                }
                            }
                        }
                    }
                }
                const int64_t yRow = yBase + int64_t(y0) * ys[2] + int64_t(y1) * ys[3];
                for (uint32_t y2 = 0; y2 < plan.out[2]; ++y2) {
                    const double g = E::Read(dy, yRow + int64_t(y2) * ys[4]);
                    // 0 + g, as PoolGradRange's sum: a -0 gradient lands as +0.
                    E::Write(dx, gBase + at[y2], static_cast<V>(0.0 + g));
                }
            }
        }
    }
}

bool NonOverlappingMax(const PoolPlan& plan) {
    if (plan.kind != PoolKind::Max) return false;
    for (int d = 0; d < 3; ++d) {
        if (plan.dilation[d] != 1 || plan.pad[d] != 0 || plan.stride[d] < plan.window[d]) return false;
        if (plan.out[d] > 0 && uint64_t(plan.out[d] - 1) * plan.stride[d] + plan.window[d] > plan.in[d]) return false;
    }
    return true;
}

class PoolingGradKernel final : public Kernel {
public:
    // `planes` (null: none) runs by (n, c) planes where the plan allows it (MaxGradPlanes).
    PoolingGradKernel(PoolPlan plan, GradFn run, GradFn planes) : plan_(plan), run_(run), planes_(planes) {}
    uint64_t PersistentResourceSize() const override { return 0; }
    uint64_t TemporaryResourceSize() const override { return 0; }
    void Initialize(const KernelBindings&) override {}
    void Execute(const KernelBindings& b) override {
        const bool max = plan_.kind == PoolKind::Max;
        const std::byte* x = max ? b.inputs[0] : nullptr;
        const std::byte* dy = b.inputs[max ? 1 : 0];
        if (planes_) {
            const uint64_t planes = uint64_t(plan_.batch) * plan_.channels;
            const uint64_t perPlane = std::max<uint64_t>(1, plan_.inCount / std::max<uint64_t>(1, planes));
            const uint64_t minPlanes = std::max<uint64_t>(1, 4096 / perPlane);
            cpu::ParallelFor(cpu::HostThreads(b), planes, minPlanes, [&](uint64_t first, uint64_t last) {
                planes_(plan_, x, dy, b.outputs[0], first, last);
            });
            return;
        }
        cpu::ParallelFor(cpu::HostThreads(b), plan_.inCount, 1024, [&](uint64_t first, uint64_t last) {
            run_(plan_, x, dy, b.outputs[0], first, last);
        });
    }

private:
    PoolPlan plan_;
    GradFn run_;
    GradFn planes_;
};

// MAX_UNPOOLING: every output element 0, then each input element to the output element its index
// names; an index past the output's last element is skipped (the page does not define it), and of
// several inputs naming one output element the last in InputTensor's row-major order stays.
template <class T>
void Unpool(ThreadPool* threads, const UnpoolPlan& plan, const std::byte* in, const std::byte* indices,
            std::byte* out) {
    constexpr size_t size = std::is_same_v<T, Half> ? 2 : sizeof(T);
    cpu::ParallelFor(threads, plan.outCount, 1 << 14, [&](uint64_t first, uint64_t last) {
        for (uint64_t i = first; i < last; ++i)
            std::memset(out + OffsetOf4(plan.outSizes, plan.outStrides, i) * int64_t(size), 0, size);
    });
    for (uint64_t i = 0; i < plan.inCount; ++i) {
        const int64_t at = OffsetOf4(plan.inSizes, plan.indexStrides, i);
        uint64_t target;
        if (plan.index64) {
            std::memcpy(&target, indices + at * 8, 8);
        } else {
            uint32_t t32;
            std::memcpy(&t32, indices + at * 4, 4);
            target = t32;
        }
        if (target >= plan.outCount) continue;
        const int64_t from = OffsetOf4(plan.inSizes, plan.inStrides, i);
        const int64_t to = OffsetOf4(plan.outSizes, plan.outStrides, target);
        std::memcpy(out + to * int64_t(size), in + from * int64_t(size), size);
    }
}

using UnpoolFn = void (*)(ThreadPool*, const UnpoolPlan&, const std::byte*, const std::byte*, std::byte*);

template <class T>
struct UnpoolOf {
    static constexpr UnpoolFn value = Unpool<T>;
};

class UnpoolingKernel final : public Kernel {
public:
    UnpoolingKernel(UnpoolPlan plan, UnpoolFn run) : plan_(plan), run_(run) {}
    uint64_t PersistentResourceSize() const override { return 0; }
    uint64_t TemporaryResourceSize() const override { return 0; }
    void Initialize(const KernelBindings&) override {}
    void Execute(const KernelBindings& b) override {
        run_(cpu::HostThreads(b), plan_, b.inputs[0], b.inputs[1], b.outputs[0]);
    }

private:
    UnpoolPlan plan_;
    UnpoolFn run_;
};

}  // namespace

namespace cpu {

Status CreateCpuPooling(const KernelContext&, const OperatorArgs& args, std::unique_ptr<Kernel>* kernel) {
    const DML_TENSOR_DATA_TYPE type = args.inputs[0]->dataType;
    const PoolFn run = PickByType<PoolOf, PoolFn>(type);
    if (!run) {
        return NoKernel("DML_OPERATOR_%s has no CPU kernel for data type %s.", args.schema.name, DataTypeName(type));
    }
    const PoolPlan plan = MakePoolPlan(args);
    // Rows serve every operator but those writing indices; an empty output needs neither.
    const PoolFn rows = plan.hasIndices || plan.outCount == 0 ? nullptr : PickByType<RowsOf, PoolFn>(type);
    std::unique_ptr<cpu::OneDnnPooling> oneDnn;
    if (OneDnnComputes(plan, type)) oneDnn = cpu::OneDnnPooling::Make(plan, *args.inputs[0], *args.outputs[0]);
    *kernel = std::make_unique<PoolingKernel>(plan, run, rows, std::move(oneDnn));
    return {};
}

Status CreateCpuPoolingGrad(const KernelContext&, const OperatorArgs& args, std::unique_ptr<Kernel>* kernel) {
    const DML_TENSOR_DATA_TYPE type = args.outputs[0]->dataType;
    GradFn run = nullptr, planes = nullptr;
    if (type == DML_TENSOR_DATA_TYPE_FLOAT32) run = PoolGradRange<float>, planes = MaxGradPlanes<float>;
    if (type == DML_TENSOR_DATA_TYPE_FLOAT16) run = PoolGradRange<Half>, planes = MaxGradPlanes<Half>;
    if (!run) {
        return NoKernel("DML_OPERATOR_%s has no CPU kernel for data type %s.", args.schema.name, DataTypeName(type));
    }
    const PoolPlan plan = MakePoolPlan(args);
    *kernel = std::make_unique<PoolingGradKernel>(plan, run, NonOverlappingMax(plan) ? planes : nullptr);
    return {};
}

Status CreateCpuMaxUnpooling(const KernelContext&, const OperatorArgs& args, std::unique_ptr<Kernel>* kernel) {
    const DML_TENSOR_DATA_TYPE type = args.inputs[0]->dataType;
    const UnpoolFn run = PickByType<UnpoolOf, UnpoolFn>(type);
    if (!run) {
        return NoKernel("DML_OPERATOR_MAX_UNPOOLING has no CPU kernel for data type %s.", DataTypeName(type));
    }
    *kernel = std::make_unique<UnpoolingKernel>(MakeUnpoolPlan(args), run);
    return {};
}

}  // namespace cpu

}  // namespace freedml::dml
