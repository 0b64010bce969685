// A progress bar on standard error for long runs: drawn only when standard error is a terminal,
// only once a run has lasted a second, at most ten times a second, and erased when done.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>

namespace dmlrun {

class ProgressBar {
public:
    // `enabled`: the caller allows it (not --quiet); the terminal test is made here.
    ProgressBar(std::string label, uint64_t total, bool enabled);
    ~ProgressBar();
    ProgressBar(const ProgressBar&) = delete;
    ProgressBar& operator=(const ProgressBar&) = delete;

    void Update(uint64_t done);

private:
    std::string label_;
    uint64_t total_;
    bool enabled_;
    bool drawn_ = false;
    std::chrono::steady_clock::time_point start_;
    std::chrono::steady_clock::time_point lastDraw_;
};

}  // namespace dmlrun
