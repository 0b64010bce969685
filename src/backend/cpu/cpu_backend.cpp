#include "backend/cpu/cpu_backend.h"

#include <sys/mman.h>
#include <unistd.h>

#include <cstring>
#include <mutex>

namespace freedml::backend::cpu {

uint64_t PhysicalMemoryBytes() {
    long pages = sysconf(_SC_PHYS_PAGES);
    long pageSize = sysconf(_SC_PAGESIZE);
    if (pages <= 0 || pageSize <= 0) return 0;
    return static_cast<uint64_t>(pages) * static_cast<uint64_t>(pageSize);
}

namespace {

uint64_t PageSize() {
    long size = sysconf(_SC_PAGESIZE);
    return size > 0 ? static_cast<uint64_t>(size) : 4096;
}

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
    void CopyBuffer(Memory& destination, uint64_t destinationOffset, Memory& source, uint64_t sourceOffset,
                    uint64_t byteCount) override {
        if (byteCount == 0) return;
        auto* to = static_cast<unsigned char*>(destination.HostPointer()) + destinationOffset;
        auto* from = static_cast<const unsigned char*>(source.HostPointer()) + sourceOffset;
        std::memmove(to, from, byteCount);  // source and destination may alias (placed resources)
    }
    void CopyAddresses(std::byte* destination, const std::byte* source, uint64_t byteCount) override {
        if (byteCount) std::memcpy(destination, source, byteCount);
    }
    void WriteFromHost(std::byte* destination, const void* host, uint64_t byteCount) override {
        if (byteCount) std::memcpy(destination, host, byteCount);
    }
    void Finish() override {}  // work already ran on the calling thread
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
    explicit CpuDevice(const AdapterInfo& info) : info_(info) {}

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

    std::unique_ptr<Stream> CreateStream(StreamFailureHandler) override { return std::make_unique<CpuStream>(); }

private:
    AdapterInfo info_;
};

class CpuAdapter final : public Adapter {
public:
    explicit CpuAdapter(const AdapterInfo& info) : info_(info) {}
    const AdapterInfo& Info() const override { return info_; }
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

std::unique_ptr<Adapter> CreateCpuAdapter(const LUID& luid) {
    AdapterInfo info;
    info.kind = AdapterKind::Cpu;
    info.description = "FreeDML CPU";
    info.luid = luid;
    info.sharedMemoryBytes = PhysicalMemoryBytes();
    info.isHardware = false;
    info.unifiedMemory = true;
    info.ordinalName = "cpu";
    return std::make_unique<CpuAdapter>(info);
}

}  // namespace freedml::backend::cpu
