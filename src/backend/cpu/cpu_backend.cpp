#include "backend/cpu/cpu_backend.h"

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <thread>

#include "backend/host_memory.h"
#include "common/thread_pool.h"

namespace freedml::backend::cpu {

uint64_t PhysicalMemoryBytes() { return HostPhysicalBytes(); }

namespace {

uint64_t PageSize() { return HostPageSize(); }

// Anonymous mappings: page aligned (more than the 64-byte alignment kernels want) and zero-filled
// by the kernel lazily, so a large heap costs nothing until it is touched.
class HostMemory final : public Memory {
public:
    HostMemory(void* bytes, uint64_t size, uint64_t mappedSize, MemoryPool pool)
        : bytes_(bytes), size_(size), mappedSize_(mappedSize), pool_(pool) {}
    ~HostMemory() override { munmap(bytes_, mappedSize_); }

    uint64_t Size() const override { return size_; }
    MemoryPool Pool() const override { return pool_; }
    uint64_t Address() const override { return reinterpret_cast<uint64_t>(bytes_); }
    void* HostPointer() const override { return bytes_; }

private:
    void* bytes_;
    uint64_t size_;
    uint64_t mappedSize_;
    MemoryPool pool_;
};

class CpuStream final : public Stream {
public:
    explicit CpuStream(ThreadPool& threads) : threads_(threads) {}
    ThreadPool* HostThreads() override { return &threads_; }
    bool CompletesOnReturn() const override { return true; }
    void CopyBuffer(Memory& destination, uint64_t destinationOffset, Memory& source, uint64_t sourceOffset,
                    uint64_t byteCount) override {
        if (byteCount == 0) return;
        auto* to = static_cast<unsigned char*>(destination.HostPointer()) + destinationOffset;
        auto* from = static_cast<const unsigned char*>(source.HostPointer()) + sourceOffset;
        std::memmove(to, from, byteCount);  // source and destination may alias (placed resources)
    }
    void Fill(Memory& destination, uint64_t offset, uint64_t byteCount, const void* pattern,
              uint32_t patternSize) override {
        if (byteCount == 0) return;
        auto* to = static_cast<unsigned char*>(destination.HostPointer()) + offset;
        // One copy of the pattern, then the filled prefix doubles until it covers the range.
        const uint64_t first = std::min<uint64_t>(patternSize, byteCount);
        std::memcpy(to, pattern, first);
        for (uint64_t done = first; done < byteCount;) {
            const uint64_t step = std::min(done, byteCount - done);
            std::memcpy(to + done, to, step);
            done += step;
        }
    }
    void CopyAddresses(std::byte* destination, const std::byte* source, uint64_t byteCount) override {
        if (byteCount) std::memcpy(destination, source, byteCount);
    }
    void ReadToHost(void* host, const std::byte* source, uint64_t byteCount) override {
        if (byteCount) std::memcpy(host, source, byteCount);
    }
    void WriteFromHost(std::byte* destination, const void* host, uint64_t byteCount) override {
        if (byteCount) std::memcpy(destination, host, byteCount);
    }
    void Finish() override {}  // work already ran on the calling thread

private:
    ThreadPool& threads_;
};

const char* PoolName(MemoryPool pool) {
    switch (pool) {
        case MemoryPool::Device: return "device";
        case MemoryPool::Upload: return "upload";
        case MemoryPool::Readback: return "readback";
    }
    return "unknown";
}

class CpuDevice final : public Device {
public:
    explicit CpuDevice(const AdapterInfo& info) : info_(info), threads_(CpuThreadCount()) {}

    const AdapterInfo& Info() const override { return info_; }

    Status Allocate(uint64_t size, MemoryPool pool, std::unique_ptr<Memory>* memory) override {
        uint64_t physical = info_.sharedMemoryBytes;
        if (physical != 0 && size > physical) {
            return Error(E_OUTOFMEMORY,
                         "Cannot allocate %llu bytes of %s memory on adapter '%s': it has %llu bytes of physical "
                         "memory.",
                         static_cast<unsigned long long>(size), PoolName(pool), info_.description.c_str(),
                         static_cast<unsigned long long>(physical));
        }
        uint64_t page = PageSize();
        uint64_t mapped = size == 0 ? page : (size + page - 1) / page * page;
        void* bytes = mmap(nullptr, mapped, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (bytes == MAP_FAILED) {
            return Error(E_OUTOFMEMORY, "Cannot allocate %llu bytes of %s memory on adapter '%s': the system refused (%s).",
                         static_cast<unsigned long long>(size), PoolName(pool), info_.description.c_str(),
                         std::strerror(errno));
        }
        memory->reset(new (std::nothrow) HostMemory(bytes, size, mapped, pool));
        if (!*memory) {
            munmap(bytes, mapped);
            return Error(E_OUTOFMEMORY, "Out of host memory while creating a heap of %llu bytes.",
                         static_cast<unsigned long long>(size));
        }
        return {};
    }

    std::unique_ptr<Stream> CreateStream(StreamFailureHandler) override {
        return std::make_unique<CpuStream>(threads_);
    }

private:
    AdapterInfo info_;
    ThreadPool threads_;  // shared by the kernels of every stream (queue) of this device
};

class CpuAdapter final : public Adapter {
public:
    explicit CpuAdapter(const AdapterInfo& info) : info_(info) {}
    const AdapterInfo& Info() const override { return info_; }
    MemoryBudget QueryMemoryBudget(SegmentGroup group) const override {
        if (group == SegmentGroup::NonLocal) return {};  // UMA: all of the host's memory is local
        return HostMemoryBudget();
    }
    std::shared_ptr<Device> GetDevice() override {
        std::lock_guard lock(mutex_);
        if (!device_) device_ = std::make_shared<CpuDevice>(info_);
        return device_;
    }

private:
    AdapterInfo info_;
    std::mutex mutex_;
    std::shared_ptr<Device> device_;
};

}  // namespace

MemoryBudget HostMemoryBudget() {
    MemoryBudget result;
    result.currentUsage = ProcessResidentBytes();
    result.budget = HostBudget(result.currentUsage);
    return result;
}

unsigned CpuThreadCount() {
    const char* value = std::getenv("FREEDML_CPU_THREADS");
    if (value && *value) {
        char* end = nullptr;
        const unsigned long requested = std::strtoul(value, &end, 10);
        if (*end == '\0' && requested >= 1) return unsigned(std::min<unsigned long>(requested, 256));
    }
    return std::max(1u, std::min(std::thread::hardware_concurrency(), 64u));
}

bool CpuPresentedAsHardware() {
    const char* value = std::getenv("FREEDML_CPU_AS_HARDWARE");
    return value && *value && std::strcmp(value, "0") != 0;
}

std::unique_ptr<Adapter> CreateCpuAdapter(const LUID& luid) {
    AdapterInfo info;
    info.kind = AdapterKind::Cpu;
    info.description = "FreeDML CPU";
    info.luid = luid;
    info.sharedMemoryBytes = PhysicalMemoryBytes();
    // A software adapter, like WARP, unless the user asks for it to pass as hardware (some DirectML
    // programs skip software adapters).
    info.isHardware = CpuPresentedAsHardware();
    info.unifiedMemory = true;
    info.ordinalName = "cpu";
    return std::make_unique<CpuAdapter>(info);
}

}  // namespace freedml::backend::cpu
