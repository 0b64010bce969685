// CPU kernel of TOP_K and TOP_K1: the K first elements of each line along Axis in the order the
// operator asks for (largest first for TOP_K and DML_AXIS_DIRECTION_DECREASING, smallest first
// for DML_AXIS_DIRECTION_INCREASING), equal values in increasing index (the pages). The pages say
// nothing of NaN; FreeDML ranks a NaN above every number (as ARGMAX does), so the largest-first
// order puts NaNs first and the smallest-first order puts them last. -0 and +0 are equal.
//
// Each line is copied into (value, index) pairs and partially sorted; lines run in parallel.
#include <algorithm>
#include <array>
#include <cstring>
#include <type_traits>
#include <utility>
#include <vector>

#include "dml/kernel.h"
#include "dml/kernels/cpu/float16.h"
#include "dml/kernels/cpu/thread_pool.h"

namespace freedml::dml {

namespace {

struct Half {
    uint16_t bits;
};

template <class T>
struct Key {
    using type = T;
    static T Read(const std::byte* p) {
        T v;
        std::memcpy(&v, p, sizeof(T));
        return v;
    }
};
template <>
struct Key<Half> {
    using type = float;
    static float Read(const std::byte* p) {
        uint16_t v;
        std::memcpy(&v, p, 2);
        return cpu::HalfToFloat(v);
    }
};

struct TopKPlan {
    uint32_t rank = 0, axis = 0, k = 1;
    uint32_t length = 1;  // InputTensor's size along Axis
    bool largest = true;
    bool index64 = false;
    uint32_t elementSize = 4;
    std::array<uint32_t, kMaxTensorRank> sizes{};
    std::array<uint32_t, kMaxTensorRank> strides[3]{};  // input, values, indices (elements)
    uint64_t lines = 1;
};

// Whether a goes before b: a total order on (value, index) pairs.
template <class V>
inline bool Before(bool largest, const std::pair<V, uint32_t>& a, const std::pair<V, uint32_t>& b) {
    if constexpr (std::is_floating_point_v<V>) {
        const bool an = a.first != a.first, bn = b.first != b.first;
        if (an || bn) {
            if (an != bn) return largest ? an : bn;  // NaN ranks above every number
            return a.second < b.second;
        }
    }
    if (a.first != b.first) return largest ? a.first > b.first : a.first < b.first;
    return a.second < b.second;
}

template <class T>
void RunLines(const TopKPlan& plan, const std::byte* in, std::byte* values, std::byte* indices, uint64_t first,
              uint64_t last) {
    using V = typename Key<T>::type;
    std::vector<std::pair<V, uint32_t>> line(plan.length);
    const uint32_t size = plan.elementSize, indexSize = plan.index64 ? 8 : 4;
    for (uint64_t l = first; l < last; ++l) {
        // The line's start in each operand, from its coordinates over every dimension but Axis.
        int64_t offset[3] = {0, 0, 0};
        uint64_t rest = l;
        for (uint32_t d = plan.rank; d-- > 0;) {
            if (d == plan.axis) continue;
            const uint64_t i = rest % plan.sizes[d];
            rest /= plan.sizes[d];
            for (int o = 0; o < 3; ++o) offset[o] += int64_t(i) * plan.strides[o][d];
        }
        const std::byte* src = in + offset[0] * size;
        const int64_t step = plan.strides[0][plan.axis];
        for (uint32_t i = 0; i < plan.length; ++i) line[i] = {Key<T>::Read(src + int64_t(i) * step * size), i};
        std::partial_sort(line.begin(), line.begin() + plan.k, line.end(),
                          [&](const auto& a, const auto& b) { return Before(plan.largest, a, b); });
        std::byte* v = values + offset[1] * size;
        std::byte* x = indices + offset[2] * indexSize;
        for (uint32_t j = 0; j < plan.k; ++j) {
            const uint32_t i = line[j].second;
            std::memcpy(v + int64_t(j) * plan.strides[1][plan.axis] * size, src + int64_t(i) * step * size, size);
            std::byte* dst = x + int64_t(j) * plan.strides[2][plan.axis] * indexSize;
            if (plan.index64) {
                const uint64_t i64 = i;
                std::memcpy(dst, &i64, 8);
            } else {
                std::memcpy(dst, &i, 4);
            }
        }
    }
}

using LinesFn = void (*)(const TopKPlan&, const std::byte*, std::byte*, std::byte*, uint64_t, uint64_t);

LinesFn PickLines(DML_TENSOR_DATA_TYPE type) {
    switch (type) {
        case DML_TENSOR_DATA_TYPE_FLOAT32: return RunLines<float>;
        case DML_TENSOR_DATA_TYPE_FLOAT16: return RunLines<Half>;
        case DML_TENSOR_DATA_TYPE_INT64: return RunLines<int64_t>;
        case DML_TENSOR_DATA_TYPE_INT32: return RunLines<int32_t>;
        case DML_TENSOR_DATA_TYPE_INT16: return RunLines<int16_t>;
        case DML_TENSOR_DATA_TYPE_INT8: return RunLines<int8_t>;
        case DML_TENSOR_DATA_TYPE_UINT64: return RunLines<uint64_t>;
        case DML_TENSOR_DATA_TYPE_UINT32: return RunLines<uint32_t>;
        case DML_TENSOR_DATA_TYPE_UINT16: return RunLines<uint16_t>;
        case DML_TENSOR_DATA_TYPE_UINT8: return RunLines<uint8_t>;
        default: return nullptr;
    }
}

class TopKKernel final : public Kernel {
public:
    TopKKernel(TopKPlan plan, LinesFn run) : plan_(plan), run_(run) {}
    uint64_t PersistentResourceSize() const override { return 0; }
    uint64_t TemporaryResourceSize() const override { return 0; }
    void Initialize(const KernelBindings&) override {}
    void Execute(const KernelBindings& b) override {
        const uint64_t minLines = std::max<uint64_t>(1, (uint64_t(1) << 14) / plan_.length);
        cpu::ParallelFor(cpu::HostThreads(b), plan_.lines, minLines, [&](uint64_t first, uint64_t last) {
            run_(plan_, b.inputs[0], b.outputs[0], b.outputs[1], first, last);
        });
    }

private:
    TopKPlan plan_;
    LinesFn run_;
};

}  // namespace

namespace cpu {

Status CreateCpuTopK(const KernelContext&, const OperatorArgs& args, std::unique_ptr<Kernel>* kernel) {
    TopKPlan plan;
    if (args.schema.type == DML_OPERATOR_TOP_K1) {
        const auto& desc = args.As<DML_TOP_K1_OPERATOR_DESC>();
        plan.axis = desc.Axis;
        plan.k = desc.K;
        plan.largest = desc.AxisDirection == DML_AXIS_DIRECTION_DECREASING;
    } else {
        const auto& desc = args.As<DML_TOP_K_OPERATOR_DESC>();
        plan.axis = desc.Axis;
        plan.k = desc.K;
    }
    const TensorDesc& input = *args.inputs[0];
    const LinesFn run = PickLines(input.dataType);
    if (!run) {
        return NoKernel("DML_OPERATOR_%s has no CPU kernel for data type %s.", args.schema.name,
                        DataTypeName(input.dataType));
    }
    plan.rank = input.rank;
    plan.length = input.sizes[plan.axis];
    plan.index64 = args.outputs[1]->dataType == DML_TENSOR_DATA_TYPE_UINT64;
    plan.elementSize = ElementSizeInBytes(input.dataType);
    for (uint32_t d = 0; d < input.rank; ++d) {
        plan.sizes[d] = input.sizes[d];
        plan.strides[0][d] = input.strides[d];
        plan.strides[1][d] = args.outputs[0]->strides[d];
        plan.strides[2][d] = args.outputs[1]->strides[d];
        if (d != plan.axis) plan.lines *= input.sizes[d];
    }
    *kernel = std::make_unique<TopKKernel>(plan, run);
    return {};
}

}  // namespace cpu

}  // namespace freedml::dml
