// A small fork-join pool for the CPU kernels that do not use oneDNN (oneDNN has its own OpenMP
// threads). One job at a time: a caller that finds the pool busy runs its job inline, so nested
// or concurrent calls from several queues never wait on each other.
#pragma once

#include <cstdint>
#include <functional>

namespace freedml::dml::cpu {

// Calls body(begin, end) over [0, count) in chunks, on the calling thread and the pool's
// workers. Runs inline when count < 2 * minChunk or the machine has one core.
void ParallelFor(uint64_t count, uint64_t minChunk, const std::function<void(uint64_t, uint64_t)>& body);

// Number of threads a ParallelFor may use (workers + the caller).
unsigned ThreadCount();

}  // namespace freedml::dml::cpu

#include "dml/kernels/cpu/tensor_view.h"

namespace freedml::dml::cpu {

// Runs a LoopPlan across the pool when it has enough elements to pay for the fork: whole rows per
// chunk, or pieces of the single row of a packed loop.
template <size_t N, class Inner>
void ParallelLoop(const LoopPlan<N>& plan, const std::array<std::byte*, N>& bases, Inner&& inner,
                  uint64_t minElementsPerChunk = 1u << 15) {
    const uint64_t rows = plan.OuterCount();
    const uint64_t count = plan.InnerCount();
    if (rows * count < 2 * minElementsPerChunk) {
        RunLoopRows(plan, bases, 0, rows, inner);
        return;
    }
    if (rows == 1) {
        std::array<int64_t, N> strides{};
        for (size_t k = 0; k < N; ++k) strides[k] = plan.InnerStride(k);
        ParallelFor(count, minElementsPerChunk, [&](uint64_t begin, uint64_t end) {
            std::array<std::byte*, N> ptrs;
            for (size_t k = 0; k < N; ++k) ptrs[k] = bases[k] + int64_t(begin) * strides[k];
            inner(ptrs, end - begin, strides);
        });
        return;
    }
    uint64_t minRows = (minElementsPerChunk + count - 1) / count;
    ParallelFor(rows, minRows, [&](uint64_t begin, uint64_t end) { RunLoopRows(plan, bases, begin, end, inner); });
}

}  // namespace freedml::dml::cpu
