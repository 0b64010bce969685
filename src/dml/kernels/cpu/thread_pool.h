// How the CPU kernels that do not use oneDNN spread a loop over the host threads of the device
// they run on (common/thread_pool.h; oneDNN has its own OpenMP threads).
#pragma once

#include <cstdint>
#include <functional>
#include <utility>

#include "common/thread_pool.h"
#include "dml/kernel.h"

namespace freedml::dml::cpu {

// The host threads of the stream a kernel executes on (its CPU device's pool), or null where there
// are none (the loops below then run on the calling thread). Kernels reach the pool only through
// here: it travels with the execution, never through a process-wide static.
inline ThreadPool* HostThreads(const KernelBindings& bindings) {
    return bindings.stream ? bindings.stream->HostThreads() : nullptr;
}

// Calls body(begin, end) over [0, count) in chunks of at least `minChunk`, on `threads` (inline
// when null or too little work for two chunks).
inline void ParallelFor(ThreadPool* threads, uint64_t count, uint64_t minChunk,
                        const std::function<void(uint64_t, uint64_t)>& body) {
    if (threads) {
        threads->ParallelFor(count, minChunk, body);
    } else if (count) {
        body(0, count);
    }
}

// A way to share out [0, count) as ParallelFor does: `parallelFor(count, minChunk, body)`. The passes
// that sit between oneDNN primitives take one, to run on oneDNN's OpenMP team instead of the pool.
using ParallelForFunction =
    std::function<void(uint64_t count, uint64_t minChunk, const std::function<void(uint64_t, uint64_t)>& body)>;

// ParallelFor on `threads`, as a ParallelForFunction.
inline ParallelForFunction OnPool(ThreadPool* threads) {
    return [threads](uint64_t count, uint64_t minChunk, const std::function<void(uint64_t, uint64_t)>& body) {
        ParallelFor(threads, count, minChunk, body);
    };
}

// Shares out work that runs just before or after a oneDNN primitive (or between two of them): on
// oneDNN's OpenMP team, whose threads are still polling then, or on `threads` where oneDNN runs on
// another runtime or is absent. FreeDML's pool would wake a second set of threads, and oneDNN's
// would fall asleep meanwhile and take a wake-up (tens of microseconds on a virtual machine) at the
// next primitive. Defined in onednn.cpp.
ParallelForFunction BesideOneDnn(ThreadPool* threads);

// Parallel regions FreeDML has opened on oneDNN's OpenMP team so far (BesideOneDnn's passes, the
// FLOAT16 row panels): which threads a kernel woke, for its tests. Defined in onednn.cpp.
uint64_t OneDnnTeamRegionsOpened();

}  // namespace freedml::dml::cpu

#include "dml/kernels/cpu/tensor_view.h"

namespace freedml::dml::cpu {

// Runs a LoopPlan across the pool when it has enough elements to pay for the fork: whole rows per
// chunk, or pieces of the single row of a packed loop.
// `parallelFor(count, minChunk, body)` shares out the chunks (ParallelLoop: FreeDML's pool).
template <size_t N, class For, class Inner>
void ParallelLoopOn(For&& parallelFor, const LoopPlan<N>& plan, const std::array<std::byte*, N>& bases, Inner&& inner,
                    uint64_t minElementsPerChunk) {
    const uint64_t rows = plan.OuterCount();
    const uint64_t count = plan.InnerCount();
    if (rows * count < 2 * minElementsPerChunk) {
        RunLoopRows(plan, bases, 0, rows, inner);
        return;
    }
    if (rows == 1) {
        std::array<int64_t, N> strides{};
        for (size_t k = 0; k < N; ++k) strides[k] = plan.InnerStride(k);
        parallelFor(count, minElementsPerChunk, [&](uint64_t begin, uint64_t end) {
            std::array<std::byte*, N> ptrs;
            for (size_t k = 0; k < N; ++k) ptrs[k] = bases[k] + int64_t(begin) * strides[k];
            inner(ptrs, end - begin, strides);
        });
        return;
    }
    uint64_t minRows = (minElementsPerChunk + count - 1) / count;
    parallelFor(rows, minRows, [&](uint64_t begin, uint64_t end) { RunLoopRows(plan, bases, begin, end, inner); });
}

template <size_t N, class Inner>
void ParallelLoop(ThreadPool* threads, const LoopPlan<N>& plan, const std::array<std::byte*, N>& bases, Inner&& inner,
                  uint64_t minElementsPerChunk = 1u << 15) {
    ParallelLoopOn(OnPool(threads), plan, bases, std::forward<Inner>(inner), minElementsPerChunk);
}

}  // namespace freedml::dml::cpu
