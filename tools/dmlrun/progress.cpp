#include "progress.h"

#include <unistd.h>

#include <cstdio>

namespace dmlrun {

ProgressBar::ProgressBar(std::string label, uint64_t total, bool enabled)
    : label_(std::move(label)), total_(total), enabled_(enabled && total > 1 && isatty(STDERR_FILENO)),
      start_(std::chrono::steady_clock::now()), lastDraw_(start_) {}

ProgressBar::~ProgressBar() {
    if (drawn_) std::fprintf(stderr, "\r\033[K");  // erase the line, leave the cursor at its start
}

void ProgressBar::Update(uint64_t done) {
    if (!enabled_) return;
    const auto now = std::chrono::steady_clock::now();
    if (now - start_ < std::chrono::seconds(1) || (drawn_ && now - lastDraw_ < std::chrono::milliseconds(100))) return;
    lastDraw_ = now;
    drawn_ = true;
    constexpr int kWidth = 30;
    const int filled = static_cast<int>(kWidth * done / total_);
    const double elapsed = std::chrono::duration<double>(now - start_).count();
    const double remaining = done ? elapsed * static_cast<double>(total_ - done) / static_cast<double>(done) : 0.0;
    std::fprintf(stderr, "\r%s [%.*s%*s] %llu/%llu, %.0f s left\033[K", label_.c_str(), filled,
                 "==============================", kWidth - filled, "", static_cast<unsigned long long>(done),
                 static_cast<unsigned long long>(total_), remaining);
    std::fflush(stderr);
}

}  // namespace dmlrun
