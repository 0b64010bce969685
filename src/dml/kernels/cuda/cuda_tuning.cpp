#include "dml/kernels/cuda/cuda_tuning.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <limits>

namespace freedml::dml::cuda {

bool MeasuringAllowed() {
    const char* setting = std::getenv("FREEDML_CUDNN_FIND");
    return !(setting && std::string(setting) == "0");
}

bool TimingScratch::Allocate(std::initializer_list<uint64_t> sizes, uint64_t workspaceLimit) {
    Release();
    for (uint64_t size : sizes) {
        void* buffer = nullptr;
        const size_t bytes = size_t(std::max<uint64_t>(size, 256));
        if (cudaMalloc(&buffer, bytes) != cudaSuccess) {
            cudaGetLastError();
            Release();
            return false;
        }
        buffers.push_back(buffer);
        cudaMemset(buffer, 0x3C, bytes);
    }
    for (workspaceBytes = workspaceLimit; workspaceBytes > 0;) {
        if (cudaMalloc(&workspace, size_t(workspaceBytes)) == cudaSuccess) break;
        workspace = nullptr;
        workspaceBytes = workspaceBytes > (uint64_t(1) << 20) ? workspaceBytes / 2 : 0;
    }
    cudaGetLastError();
    if (!workspace) workspaceBytes = 0;
    ok = true;
    return true;
}

void TimingScratch::Release() {
    for (void* buffer : buffers) cudaFree(buffer);
    buffers.clear();
    if (workspace) cudaFree(workspace);
    workspace = nullptr;
    workspaceBytes = 0;
    cudaGetLastError();
    ok = false;
}

namespace {

constexpr int kSamples = 5;
// Milliseconds of timed runs per candidate beyond its warm-up: long candidates get fewer samples.
constexpr float kBudgetMs = 50.0f;
constexpr double kNever = std::numeric_limits<double>::infinity();

bool DebugReport() {
    const char* setting = std::getenv("FREEDML_DEBUG");
    return setting && *setting && std::string(setting) != "0";
}

// Median milliseconds of one run of `launch`, or kNever when it did not run.
double TimeOne(const CandidateLaunch& launch, cudaStream_t stream, cudaEvent_t (&events)[kSamples + 1]) {
    // The warm-up loads the candidate's kernels; its time sizes the number of samples.
    cudaEventRecord(events[0], stream);
    bool ran = launch(stream);
    cudaEventRecord(events[1], stream);
    float warmMs = 0.0f;
    if (!ran || cudaEventSynchronize(events[1]) != cudaSuccess ||
        cudaEventElapsedTime(&warmMs, events[0], events[1]) != cudaSuccess) {
        return kNever;
    }
    const int samples = std::clamp(int(kBudgetMs / std::max(warmMs, 1e-3f)), 1, kSamples);
    // Back to back, so that each sample is device time rather than launch latency.
    cudaEventRecord(events[0], stream);
    for (int s = 0; s < samples && ran; ++s) {
        ran = launch(stream);
        cudaEventRecord(events[s + 1], stream);
    }
    if (!ran || cudaEventSynchronize(events[samples]) != cudaSuccess) return kNever;
    std::vector<float> ms(size_t(samples), 0.0f);
    for (int s = 0; s < samples; ++s) {
        if (cudaEventElapsedTime(&ms[size_t(s)], events[s], events[s + 1]) != cudaSuccess) return kNever;
    }
    std::sort(ms.begin(), ms.end());
    return ms[ms.size() / 2];
}

}  // namespace

int FastestCandidate(const std::vector<CandidateLaunch>& candidates, const char* what,
                     const std::vector<std::string>& labels) {
    cudaStream_t stream = nullptr;
    if (cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking) != cudaSuccess) {
        cudaGetLastError();
        return -1;
    }
    cudaEvent_t events[kSamples + 1] = {};
    bool ready = true;
    for (cudaEvent_t& e : events) ready = ready && cudaEventCreate(&e) == cudaSuccess;
    std::vector<double> times(candidates.size(), kNever);
    int best = -1;
    for (size_t i = 0; ready && i < candidates.size(); ++i) {
        times[i] = TimeOne(candidates[i], stream, events);
        if (times[i] == kNever) {
            // A candidate that failed must leave nothing behind for the next.
            cudaStreamSynchronize(stream);
            cudaGetLastError();
            continue;
        }
        if (best < 0 || times[i] < times[size_t(best)]) best = int(i);
    }
    cudaStreamSynchronize(stream);
    for (cudaEvent_t e : events) {
        if (e) cudaEventDestroy(e);
    }
    cudaStreamDestroy(stream);
    cudaGetLastError();
    // A tuning trace, printed only under FREEDML_DEBUG, stays on standard error: a candidate that
    // fails here is skipped while the operator compiles and is no failure of the application's
    // work (the choice falls to the other candidates or to the libraries' heuristics).
    if (DebugReport()) {
        for (size_t i = 0; i < candidates.size(); ++i) {
            const std::string label = i < labels.size() ? labels[i] : "candidate " + std::to_string(i);
            if (times[i] == kNever) {
                std::fprintf(stderr, "FreeDML CUDA: %s: %s: failed\n", what, label.c_str());
            } else {
                std::fprintf(stderr, "FreeDML CUDA: %s: %s: %.4f ms%s\n", what, label.c_str(), times[i],
                             int(i) == best ? " (chosen)" : "");
            }
        }
    }
    return best;
}

}  // namespace freedml::dml::cuda
