// Measured choices while an operator compiles: DirectML compiles ahead of execution, so a kernel
// may time its candidate implementations once, on scratch buffers of the operator's sizes, and
// keep the fastest. One way of timing, shared by every kernel that chooses this way.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <functional>
#include <initializer_list>
#include <string>
#include <vector>

namespace freedml::dml::cuda {

// Whether compile-time measurements are allowed: FREEDML_CUDNN_FIND=0 keeps every choice to the
// libraries' heuristics.
bool MeasuringAllowed();

// Device buffers for timing candidates, filled with a non-zero pattern (zeros can time
// differently from real data). `ok` is false when an allocation failed.
class TimingScratch {
public:
    TimingScratch() = default;
    TimingScratch(const TimingScratch&) = delete;
    TimingScratch& operator=(const TimingScratch&) = delete;
    ~TimingScratch() { Release(); }

    // One buffer per size, and a workspace of up to `workspaceLimit` bytes (halved while the
    // allocation fails, down to 1 MiB; none when even that fails). False when a buffer fails.
    bool Allocate(std::initializer_list<uint64_t> sizes, uint64_t workspaceLimit);
    void Release();

    bool ok = false;
    std::vector<void*> buffers;
    void* workspace = nullptr;
    uint64_t workspaceBytes = 0;
};

// Enqueues one run of a candidate on the stream given; false when it could not.
using CandidateLaunch = std::function<bool(cudaStream_t)>;

// Times each candidate on a private stream with CUDA events (one warm-up run, then the median of
// a few back-to-back runs) and returns the index of the fastest, or -1 when none ran. `labels`
// (optional, one per candidate) name them in the report FREEDML_DEBUG=1 prints, headed by `what`.
int FastestCandidate(const std::vector<CandidateLaunch>& candidates, const char* what,
                     const std::vector<std::string>& labels = {});

}  // namespace freedml::dml::cuda
