// Host threads that share out a loop: a small fork-join pool. The CPU backend device owns one
// (backend/cpu), and a kernel reaches it through the stream it runs on (Stream::HostThreads), so
// that nothing about it is process-wide. oneDNN keeps its own OpenMP threads.
//
// One job at a time: a caller that finds the pool busy runs its job inline, so nested or concurrent
// calls from several queues never wait on each other.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace freedml {

class ThreadPool {
public:
    // `threads` counts the caller: a pool of N runs a job on N - 1 workers and the calling thread.
    explicit ThreadPool(unsigned threads);
    ~ThreadPool();
    ThreadPool(const ThreadPool&) = delete;
    ThreadPool& operator=(const ThreadPool&) = delete;

    // Number of threads a ParallelFor may use (workers + the caller).
    unsigned Size() const { return unsigned(threads_.size()) + 1; }

    // Calls body(begin, end) over [0, count) in chunks of at least `minChunk`, on the calling
    // thread and the workers. Runs inline when count < 2 * minChunk, the pool has no workers, or
    // another job holds it. The first exception a chunk throws skips the remaining chunks and is
    // rethrown here, on the caller's thread.
    void ParallelFor(uint64_t count, uint64_t minChunk, const std::function<void(uint64_t, uint64_t)>& body);

    // Jobs handed to the workers so far (ParallelFor calls that did not run inline): which threads
    // a kernel woke, for its tests.
    uint64_t JobsShared() const { return jobsShared_.load(std::memory_order_relaxed); }

private:
    bool TryRun(uint64_t chunks, const std::function<void(uint64_t)>& chunkBody);
    void Work();
    void WorkerLoop();

    std::vector<std::thread> threads_;
    std::mutex busy_;
    std::mutex mutex_;
    std::condition_variable wake_, done_;
    const std::function<void(uint64_t)>* job_ = nullptr;
    uint64_t chunkCount_ = 0;
    std::atomic<uint64_t> nextChunk_{0};
    unsigned pending_ = 0;
    uint64_t generation_ = 0;
    bool stopping_ = false;
    std::exception_ptr failure_;  // guarded by mutex_
    std::atomic<uint64_t> jobsShared_{0};
};

}  // namespace freedml
