#include "common/thread_pool.h"

#include <algorithm>
#include <utility>

namespace freedml {

ThreadPool::ThreadPool(unsigned threads) {
    for (unsigned i = 1; i < threads; ++i) threads_.emplace_back([this] { WorkerLoop(); });
}

ThreadPool::~ThreadPool() {
    {
        std::lock_guard<std::mutex> lock(mutex_);
        stopping_ = true;
    }
    wake_.notify_all();
    for (auto& t : threads_) t.join();
}

void ThreadPool::ParallelFor(uint64_t count, uint64_t minChunk, const std::function<void(uint64_t, uint64_t)>& body) {
    minChunk = std::max<uint64_t>(minChunk, 1);
    const unsigned threads = Size();
    if (threads < 2 || count < 2 * minChunk) {
        if (count) body(0, count);
        return;
    }
    // A few chunks per thread balances uneven progress without much scheduling.
    uint64_t chunks = std::min<uint64_t>(count / minChunk, uint64_t(threads) * 4);
    const uint64_t chunkSize = (count + chunks - 1) / chunks;
    chunks = (count + chunkSize - 1) / chunkSize;
    std::function<void(uint64_t)> chunkBody = [&](uint64_t chunk) {
        const uint64_t begin = chunk * chunkSize;
        body(begin, std::min(count, begin + chunkSize));
    };
    if (!TryRun(chunks, chunkBody)) body(0, count);
}

// Returns false (doing nothing) when another job holds the pool.
bool ThreadPool::TryRun(uint64_t chunks, const std::function<void(uint64_t)>& chunkBody) {
    std::unique_lock<std::mutex> busy(busy_, std::try_to_lock);
    if (!busy.owns_lock()) return false;
    {
        std::lock_guard<std::mutex> lock(mutex_);
        job_ = &chunkBody;
        chunkCount_ = chunks;
        nextChunk_.store(0);
        pending_ = unsigned(threads_.size());
        ++generation_;
    }
    jobsShared_.fetch_add(1, std::memory_order_relaxed);
    wake_.notify_all();
    Work();
    std::unique_lock<std::mutex> lock(mutex_);
    done_.wait(lock, [this] { return pending_ == 0; });
    job_ = nullptr;
    // A chunk that threw: the job stops and the first exception goes to the caller (the queue's
    // worker, which removes the device) instead of ending the process on a pool thread.
    if (std::exception_ptr failure = std::exchange(failure_, nullptr)) std::rethrow_exception(failure);
    return true;
}

void ThreadPool::Work() {
    for (;;) {
        const uint64_t chunk = nextChunk_.fetch_add(1);
        if (chunk >= chunkCount_) return;
        try {
            (*job_)(chunk);
        } catch (...) {
            std::lock_guard<std::mutex> lock(mutex_);
            if (!failure_) failure_ = std::current_exception();
            nextChunk_.store(chunkCount_);  // the other chunks are skipped
        }
    }
}

void ThreadPool::WorkerLoop() {
    uint64_t seen = 0;
    for (;;) {
        {
            std::unique_lock<std::mutex> lock(mutex_);
            wake_.wait(lock, [&] { return stopping_ || generation_ != seen; });
            if (stopping_) return;
            seen = generation_;
        }
        Work();
        {
            std::lock_guard<std::mutex> lock(mutex_);
            if (--pending_ == 0) done_.notify_one();
        }
    }
}

}  // namespace freedml
