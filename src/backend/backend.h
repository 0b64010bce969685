// The backend interface: what the D3D12 and DirectML front ends need from a place that holds
// memory and runs work. The CPU backend (host memory, work runs on the queue's worker thread) is
// always present; the CUDA backend (device memory, pinned host memory for UPLOAD/READBACK, one
// stream per queue) is added when a CUDA driver is found at run time.
//
// The front end validates; a backend assumes valid arguments and never re-checks them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "common/platform.h"
#include "common/status.h"

namespace freedml::dml {
class KernelSet;  // dml/kernel.h: one backend's operator kernels
}  // namespace freedml::dml

namespace freedml {
class ThreadPool;  // common/thread_pool.h: host threads a CPU device shares among its kernels
}  // namespace freedml

namespace freedml::backend {

enum class AdapterKind { Cpu, Cuda };

struct AdapterInfo {
    AdapterKind kind = AdapterKind::Cpu;
    std::string description;              // "FreeDML CPU", "FreeDML CUDA: NVIDIA H100 80GB HBM3"
    LUID luid{};                          // unique per adapter within the process
    uint32_t vendorId = 0;                // PCI ids; 0 for the CPU adapter
    uint32_t deviceId = 0;
    uint32_t subSystemId = 0;             // PCI subsystem device and vendor ids, revision
    uint32_t subVendorId = 0;
    uint32_t revision = 0;
    uint64_t dedicatedMemoryBytes = 0;    // device memory (0 for the CPU adapter)
    uint64_t sharedMemoryBytes = 0;       // host memory the adapter may use
    bool isHardware = false;              // false for the CPU adapter (like WARP) unless FREEDML_CPU_AS_HARDWARE
    bool unifiedMemory = false;           // true for the CPU adapter (UMA, cache coherent)
    std::string ordinalName;              // "cpu", "cuda:0" (what FREEDML_ADAPTER names)
};

// Where a heap's bytes live. CUSTOM heaps map by CPU page property: NOT_AVAILABLE -> Device,
// WRITE_COMBINE -> Upload, WRITE_BACK -> Readback.
enum class MemoryPool { Device, Upload, Readback };

// One heap's storage (a committed resource has a heap of its own).
class Memory {
public:
    virtual ~Memory() = default;
    virtual uint64_t Size() const = 0;
    virtual MemoryPool Pool() const = 0;
    // The GPU virtual address of byte 0. On the CPU backend it is the host address.
    virtual uint64_t Address() const = 0;
    // Where the CPU can read and write the bytes; nullptr where it cannot (device memory).
    virtual void* HostPointer() const = 0;
};

// The ordered timeline of one D3D12 command queue, as the backend sees it. Commands call these
// from the queue's worker thread, one command after another. On the CPU backend work runs
// immediately; on CUDA it is enqueued on the queue's stream, and Finish waits for it.
class Stream {
public:
    virtual ~Stream() = default;
    virtual void CopyBuffer(Memory& destination, uint64_t destinationOffset, Memory& source, uint64_t sourceOffset,
                            uint64_t byteCount) = 0;
    // Writes the `patternSize` bytes of `pattern` (1 to 16) again and again over the `byteCount`
    // bytes of `destination` from `offset` (a multiple of `patternSize`): ClearUnorderedAccessView*.
    // The pattern is copied before the call returns.
    virtual void Fill(Memory& destination, uint64_t offset, uint64_t byteCount, const void* pattern,
                      uint32_t patternSize) = 0;
    // The same two copies between kernel addresses (Memory::Address plus an offset: host addresses
    // on the CPU backend, device pointers on CUDA), for work that addresses memory the way kernels
    // do (a compiled graph's constants and its node outputs bound to two graph outputs). The ranges
    // do not overlap. WriteFromHost reads `host` before it returns.
    virtual void CopyAddresses(std::byte* destination, const std::byte* source, uint64_t byteCount) = 0;
    virtual void WriteFromHost(std::byte* destination, const void* host, uint64_t byteCount) = 0;
    // Copies from a kernel address into host memory (capture reads what a dispatch saw); the bytes
    // are there once Finish returns.
    virtual void ReadToHost(void* host, const std::byte* source, uint64_t byteCount) = 0;
    // Blocks until everything enqueued on this stream so far has completed (fences call it before
    // they signal).
    virtual void Finish() = 0;
    // The backend's own stream object (a cudaStream_t on CUDA), for kernels that launch work on
    // it; nullptr on the CPU backend, whose work runs on the calling thread.
    virtual void* NativeHandle() { return nullptr; }
    // True when every call above has finished its work by the time it returns, on the calling
    // thread (the CPU backend): Finish is then a no-op, and a queue may run such a stream's work on
    // whichever thread submits it.
    virtual bool CompletesOnReturn() const { return false; }
    // The host threads the CPU kernels of this stream's work may share (the CPU device's pool);
    // nullptr on a backend whose kernels run elsewhere.
    virtual ThreadPool* HostThreads() { return nullptr; }
};

// How a stream reports a failure of the device's work that no call can return (a failed CUDA
// kernel launch, cuBLASLt or cuDNN call, or stream error): the command queue that owns the stream
// removes its D3D12 device. `text` is a sentence that names what failed and the backend's error.
using StreamFailureHandler = std::function<void(const std::string& text)>;

class Device {
public:
    virtual ~Device() = default;
    virtual const AdapterInfo& Info() const = 0;
    // Allocates zero-filled memory (D3D12 zeroes committed and heap memory by default).
    // Returns E_OUTOFMEMORY with a message when the pool cannot hold `size` bytes.
    virtual Status Allocate(uint64_t size, MemoryPool pool, std::unique_ptr<Memory>* memory) = 0;
    // `onFailure` is called, on the thread that runs the stream's work, when that work fails on the
    // device. The CPU backend ignores it: its stream copies host memory, which cannot fail.
    virtual std::unique_ptr<Stream> CreateStream(StreamFailureHandler onFailure) = 0;
    // The DirectML kernels this device brings, for a backend whose kernels live with it (the CUDA
    // plugin's); nullptr for a device whose memory is host memory, which libdirectml's own CPU
    // kernels run on.
    virtual const dml::KernelSet* DmlKernels() const { return nullptr; }
};

// DXCore's segment groups. Local: the memory the adapter computes in (device memory; all of the
// host's memory on a UMA adapter). NonLocal: host memory a discrete adapter reaches over the bus
// (its UPLOAD and READBACK heaps); a UMA adapter has none.
enum class SegmentGroup { Local, NonLocal };

struct MemoryBudget {
    uint64_t budget = 0;        // what this process can use now without evicting or swapping
    uint64_t currentUsage = 0;  // what this process uses now
};

class Adapter {
public:
    virtual ~Adapter() = default;
    virtual const AdapterInfo& Info() const = 0;
    // Measured now, for this process; usable without opening the adapter's device.
    virtual MemoryBudget QueryMemoryBudget(SegmentGroup group) const = 0;
    // Every D3D12 device made on one adapter shares one backend device.
    virtual std::shared_ptr<Device> GetDevice() = 0;
};

// Every adapter of this process: hardware adapters first (one per CUDA device), the CPU adapter
// last. Found once, on first use.
const std::vector<Adapter*>& EnumerateAdapters();

// The adapter D3D12CreateDevice(nullptr, ...) uses: FREEDML_ADAPTER (cpu, cuda, cuda:N) when set,
// else the first hardware adapter, else the CPU. Fails (with a message) when FREEDML_ADAPTER names
// an adapter that does not exist.
Status DefaultAdapter(Adapter** adapter);

Adapter* FindAdapterByLuid(const LUID& luid);

}  // namespace freedml::backend
