// The one loop planner both backends build on: a loop over a shape shared by N operands, with the
// dimensions merged wherever every operand steps contiguously across them, so that a kernel walks
// as few and as long rows as the strides allow. The CPU's LoopPlan (byte strides, cpu/tensor_view.h)
// and CUDA's EwPlan (element strides, cuda/ew_plan.h) are both made here. Host code; nvcc reads it
// too (C++17).
#pragma once

#include <cstddef>
#include <cstdint>

namespace freedml::dml {

// Merges dimension d into the one before it when, for every operand k, the earlier dimension's
// stride equals strideOf(k, d) * sizes[d]; size-1 dimensions vanish. `strideOf(k, d)` is operand
// k's stride over dimension d, in whatever unit the caller keeps (0 broadcasts; negative walks
// backwards). Writes the merged sizes and strides (indexable as mergedSizes[r] and
// mergedStrides[k][r]) and returns the merged rank (0: a single element).
template <size_t N, class StrideOf, class Sizes, class Strides>
uint32_t MergeLoopDimensions(const uint32_t* sizes, uint32_t rank, StrideOf&& strideOf, Sizes& mergedSizes,
                             Strides& mergedStrides) {
    uint32_t merged = 0;
    for (uint32_t d = 0; d < rank; ++d) {
        if (sizes[d] == 1) continue;
        bool merge = merged > 0;
        for (size_t k = 0; k < N && merge; ++k) {
            merge = mergedStrides[k][merged - 1] == int64_t(strideOf(k, d)) * int64_t(sizes[d]);
        }
        const uint32_t r = merge ? merged - 1 : merged++;
        mergedSizes[r] = merge ? mergedSizes[r] * sizes[d] : sizes[d];
        for (size_t k = 0; k < N; ++k) mergedStrides[k][r] = int64_t(strideOf(k, d));
    }
    return merged;
}

}  // namespace freedml::dml
