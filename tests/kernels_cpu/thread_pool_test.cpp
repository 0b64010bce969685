// The host thread pool the CPU kernels share out their loops on (common/thread_pool.h), and its
// owner: each CPU backend device has one, which its streams hand to the kernels.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <mutex>
#include <set>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "backend/backend.h"
#include "backend/cpu/cpu_backend.h"
#include "common/thread_pool.h"
#include "dml/kernels/cpu/thread_pool.h"

namespace freedml {
namespace {

TEST(ThreadPool, EveryIndexRunsExactlyOnceInChunksOfAtLeastMinChunk) {
    ThreadPool pool(4);
    EXPECT_EQ(pool.Size(), 4u);
    for (uint64_t count : {0ull, 1ull, 7ull, 100ull, 1000ull, 4097ull}) {
        std::vector<std::atomic<int>> hits(count);
        std::mutex mutex;
        std::vector<std::pair<uint64_t, uint64_t>> chunks;
        pool.ParallelFor(count, 10, [&](uint64_t begin, uint64_t end) {
            for (uint64_t i = begin; i < end; ++i) hits[i]++;
            std::lock_guard lock(mutex);
            chunks.emplace_back(begin, end);
        });
        for (uint64_t i = 0; i < count; ++i) ASSERT_EQ(hits[i].load(), 1) << "index " << i << " of " << count;
        // Every chunk but the last in index order has at least minChunk elements.
        std::sort(chunks.begin(), chunks.end());
        for (size_t c = 0; c + 1 < chunks.size(); ++c) {
            EXPECT_GE(chunks[c].second - chunks[c].first, 10u) << "count " << count;
        }
    }
}

TEST(ThreadPool, LargeJobsUseTheWorkers) {
    ThreadPool pool(4);
    std::mutex mutex;
    std::set<std::thread::id> seen;
    std::atomic<int> started{0};
    pool.ParallelFor(16, 1, [&](uint64_t, uint64_t) {
        // Each chunk waits (up to seconds: a loaded machine under a sanitizer is slow to schedule the
        // workers) for the others to start, so one thread cannot take them all.
        started++;
        const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
        while (started.load() < 4 && std::chrono::steady_clock::now() < deadline) std::this_thread::yield();
        std::lock_guard lock(mutex);
        seen.insert(std::this_thread::get_id());
    });
    EXPECT_GT(seen.size(), 1u);
}

TEST(ThreadPool, AThrowingChunkReachesTheCallerAndThePoolStaysUsable) {
    ThreadPool pool(4);
    EXPECT_THROW(pool.ParallelFor(1000, 1,
                                  [](uint64_t begin, uint64_t end) {
                                      if (begin <= 500 && 500 < end) throw std::runtime_error("chunk 500");
                                  }),
                 std::runtime_error);
    std::atomic<uint64_t> sum{0};
    pool.ParallelFor(1000, 1, [&](uint64_t begin, uint64_t end) {
        for (uint64_t i = begin; i < end; ++i) sum += i;
    });
    EXPECT_EQ(sum.load(), 999u * 1000u / 2);
}

TEST(ThreadPool, ANestedLoopRunsInlineInsteadOfWaiting) {
    ThreadPool pool(3);
    std::atomic<uint64_t> inner{0};
    pool.ParallelFor(8, 1, [&](uint64_t begin, uint64_t end) {
        for (uint64_t i = begin; i < end; ++i) {
            pool.ParallelFor(100, 1, [&](uint64_t b, uint64_t e) { inner += e - b; });
        }
    });
    EXPECT_EQ(inner.load(), 800u);
}

TEST(ThreadPool, NoPoolMeansTheCallingThread) {
    const std::thread::id caller = std::this_thread::get_id();
    uint64_t covered = 0;
    dml::cpu::ParallelFor(nullptr, 1000, 1, [&](uint64_t begin, uint64_t end) {
        EXPECT_EQ(std::this_thread::get_id(), caller);
        covered += end - begin;
    });
    EXPECT_EQ(covered, 1000u);
}

backend::Adapter* CpuAdapter() {
    for (backend::Adapter* adapter : backend::EnumerateAdapters()) {
        if (adapter->Info().kind == backend::AdapterKind::Cpu) return adapter;
    }
    return nullptr;
}

TEST(CpuDeviceThreads, EveryStreamOfTheDeviceSharesItsPool) {
    backend::Adapter* adapter = CpuAdapter();
    ASSERT_NE(adapter, nullptr);
    std::shared_ptr<backend::Device> device = adapter->GetDevice();
    auto first = device->CreateStream(nullptr), second = device->CreateStream(nullptr);
    ASSERT_NE(first->HostThreads(), nullptr);
    EXPECT_EQ(first->HostThreads(), second->HostThreads());
    EXPECT_EQ(first->HostThreads()->Size(), backend::cpu::CpuThreadCount());
}

TEST(CpuDeviceThreads, FreedmlCpuThreadsSetsTheCount) {
    const char* saved = std::getenv("FREEDML_CPU_THREADS");
    const std::string restore = saved ? saved : "";
    setenv("FREEDML_CPU_THREADS", "3", 1);
    EXPECT_EQ(backend::cpu::CpuThreadCount(), 3u);
    setenv("FREEDML_CPU_THREADS", "0", 1);  // not a count: the default
    const unsigned fallback = backend::cpu::CpuThreadCount();
    EXPECT_GE(fallback, 1u);
    EXPECT_LE(fallback, 64u);
    setenv("FREEDML_CPU_THREADS", "3x", 1);
    EXPECT_EQ(backend::cpu::CpuThreadCount(), fallback);
    if (saved) {
        setenv("FREEDML_CPU_THREADS", restore.c_str(), 1);
    } else {
        unsetenv("FREEDML_CPU_THREADS");
    }
}

}  // namespace
}  // namespace freedml
