// Tensor views for the CPU kernels: a validated TensorDesc plus the address of element 0, and
// the strided-loop machinery every element-wise and data-movement kernel shares. A loop is
// planned once (dimensions of size 1 dropped, dimensions contiguous in every operand merged),
// then run as an odometer over the outer dimensions with the innermost dimension handed to a
// kernel function as (pointers, count, byte strides): no index arithmetic per element.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

#include "dml/kernels/loop_merge.h"
#include "dml/tensor.h"

namespace freedml::dml::cpu {

struct TensorView {
    const TensorDesc* desc = nullptr;
    std::byte* data = nullptr;  // element 0; binding offset already applied

    const TensorDesc& Desc() const { return *desc; }
};

inline TensorView MakeView(const TensorDesc& desc, void* data) {
    return TensorView{&desc, static_cast<std::byte*>(data)};
}

// Strides of a packed (row-major) tensor of these sizes.
inline std::array<uint32_t, kMaxTensorRank> PackedStrides(const std::array<uint32_t, kMaxTensorRank>& sizes,
                                                          uint32_t rank) {
    std::array<uint32_t, kMaxTensorRank> strides{};
    uint64_t stride = 1;
    for (uint32_t i = rank; i-- > 0;) {
        strides[i] = uint32_t(stride);
        stride *= sizes[i];
    }
    return strides;
}

// True when the strides are the packed strides of the sizes (ignoring dimensions of size 1).
inline bool IsPacked(const TensorDesc& desc) {
    uint64_t expected = 1;
    for (uint32_t i = desc.rank; i-- > 0;) {
        if (desc.sizes[i] != 1 && desc.strides[i] != expected) return false;
        expected *= desc.sizes[i];
    }
    return true;
}

inline uint64_t ElementCountOf(const std::array<uint32_t, kMaxTensorRank>& sizes, uint32_t rank) {
    uint64_t count = 1;
    for (uint32_t i = 0; i < rank; ++i) count *= sizes[i];
    return count;
}

// A loop over a common shape shared by N operands, each with its own byte strides.
template <size_t N>
struct LoopPlan {
    uint32_t rank = 0;  // after merging; 0 means a single element
    std::array<uint64_t, kMaxTensorRank> sizes{};
    std::array<std::array<int64_t, kMaxTensorRank>, N> byteStrides{};

    uint64_t InnerCount() const { return rank ? sizes[rank - 1] : 1; }
    uint64_t OuterCount() const {
        uint64_t count = 1;
        for (uint32_t i = 0; i + 1 < rank; ++i) count *= sizes[i];
        return count;
    }
    int64_t InnerStride(size_t operand) const { return rank ? byteStrides[operand][rank - 1] : 0; }
};

// `strides[k]` are operand k's strides in elements over `sizes` (rank dimensions); a zero stride
// broadcasts (and with Stride = int64_t a negative one walks backwards). Merges dimension i into
// i+1 when every operand steps contiguously across them.
template <size_t N, class Stride = uint32_t>
LoopPlan<N> MakeLoopPlan(const uint32_t* sizes, uint32_t rank, const std::array<const Stride*, N>& strides,
                         const std::array<uint32_t, N>& elementSizes) {
    LoopPlan<N> plan;
    auto byteStride = [&](size_t k, uint32_t d) { return int64_t(strides[k][d]) * elementSizes[k]; };
    plan.rank = MergeLoopDimensions<N>(sizes, rank, byteStride, plan.sizes, plan.byteStrides);
    return plan;
}

// Runs rows [firstRow, lastRow) of the plan's outer dimensions; `inner(ptrs, count, strides)`
// handles one innermost row.
template <size_t N, class Inner>
void RunLoopRows(const LoopPlan<N>& plan, const std::array<std::byte*, N>& bases, uint64_t firstRow,
                 uint64_t lastRow, Inner&& inner) {
    const uint64_t count = plan.InnerCount();
    std::array<int64_t, N> innerStrides{};
    for (size_t k = 0; k < N; ++k) innerStrides[k] = plan.InnerStride(k);
    if (plan.rank <= 1) {
        if (firstRow < lastRow) inner(bases, count, innerStrides);
        return;
    }
    const uint32_t outerRank = plan.rank - 1;
    std::array<uint64_t, kMaxTensorRank> index{};
    uint64_t row = firstRow;
    for (uint32_t d = outerRank; d-- > 0;) {
        index[d] = row % plan.sizes[d];
        row /= plan.sizes[d];
    }
    std::array<std::byte*, N> ptrs;
    for (size_t k = 0; k < N; ++k) {
        ptrs[k] = bases[k];
        for (uint32_t d = 0; d < outerRank; ++d) ptrs[k] += int64_t(index[d]) * plan.byteStrides[k][d];
    }
    for (uint64_t r = firstRow; r < lastRow; ++r) {
        inner(ptrs, count, innerStrides);
        // Odometer step: advance the innermost outer dimension, carrying outwards.
        for (uint32_t d = outerRank; d-- > 0;) {
            if (++index[d] < plan.sizes[d]) {
                for (size_t k = 0; k < N; ++k) ptrs[k] += plan.byteStrides[k][d];
                break;
            }
            for (size_t k = 0; k < N; ++k) ptrs[k] -= int64_t(plan.sizes[d] - 1) * plan.byteStrides[k][d];
            index[d] = 0;
        }
    }
}

}  // namespace freedml::dml::cpu
