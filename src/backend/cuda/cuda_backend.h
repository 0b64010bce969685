// The CUDA backend, inside the CUDA plugin: "FreeDML CUDA: <name>" adapters, one per device.
//
// - Memory: DEFAULT heaps (MemoryPool::Device) are cudaMalloc'ed device memory, zero-filled;
//   UPLOAD and READBACK heaps are pinned, mapped host memory (cudaHostAlloc): Map returns the host
//   pointer and Address() the device pointer of the same bytes, so kernels and copies reach both.
//   Placed resources and aliasing need nothing more: a resource is its heap's memory plus an offset.
// - Streams: one non-blocking cudaStream_t per D3D12 queue. Copies are cudaMemcpyAsync, kernels
//   launch on the stream; nothing inside a command list waits on the host. Finish (called before
//   a fence signals) synchronizes the stream.
// - Failures: a CUDA error in a queue's work (a kernel launch, a cuBLASLt or cuDNN call, a copy,
//   the stream's synchronization) goes to CudaStream::Fail, which hands it to the queue: the
//   D3D12 device is removed, and the message reaches its info queue and the message callback.
// - Device facts: the cudaDeviceProp read once when the adapter is created lives on CudaDevice;
//   kernels reach it through the stream they run on (CudaStream::Launch).
// - Library handles: each stream owns its cuDNN and cuBLASLt handles, made on first use on the
//   queue's worker thread; the device owns one more pair, under a mutex, for planning at compile time.
#pragma once

#include <cublasLt.h>
#include <cuda_runtime.h>
#include <cudnn.h>

#include <atomic>
#include <mutex>
#include <string>

#include "backend/backend.h"
#include "backend/cuda/launch.h"
#include "common/status.h"

namespace freedml::backend::cuda {

// "out of memory (cudaErrorMemoryAllocation)".
std::string CudaErrorText(cudaError_t error);
// "the requested functionality is not supported (CUBLAS_STATUS_NOT_SUPPORTED)".
std::string CublasStatusText(cublasStatus_t status);

class CudaDevice;

class CudaStream final : public Stream {
public:
    CudaStream(CudaDevice& device, cudaStream_t stream, StreamFailureHandler onFailure);
    ~CudaStream() override;

    // The one place where a failure of this stream's work goes: `what` failed with `detail` (the
    // CUDA, cuBLASLt or cuDNN error text). The first failure removes the queue's device; later
    // ones follow from it and are dropped. Called on the thread that runs the stream's work.
    void Fail(const char* what, const std::string& detail);
    // Fail when `error` is one; true when it was.
    bool Check(cudaError_t error, const char* what);

    // Where this stream's next kernel launches. Test hook: a stream created while the
    // environment variable FREEDML_TEST_FAIL_CUDA_LAUNCH is set (to anything but "" or "0") hands
    // out its first target with no multiprocessors, so that the kernel's launch of a grid of no
    // blocks really fails, and the failure path runs as it would for any CUDA error.
    LaunchTarget Launch();

    void CopyBuffer(Memory& destination, uint64_t destinationOffset, Memory& source, uint64_t sourceOffset,
                    uint64_t byteCount) override;
    void Fill(Memory& destination, uint64_t offset, uint64_t byteCount, const void* pattern,
              uint32_t patternSize) override;
    void CopyAddresses(std::byte* destination, const std::byte* source, uint64_t byteCount) override;
    void WriteFromHost(std::byte* destination, const void* host, uint64_t byteCount) override;
    void ReadToHost(void* host, const std::byte* source, uint64_t byteCount) override;
    void Finish() override;
    void* NativeHandle() override { return stream_; }

    cudaStream_t Get() const { return stream_; }
    CudaDevice& Device() const { return device_; }
    int Ordinal() const;
    // Made on first use, bound to this stream (callers are the queue's worker thread).
    cudnnHandle_t Cudnn();
    cublasLtHandle_t CublasLt();
    // Makes this stream's device current on the calling thread (cheap when it already is).
    void MakeCurrent() const;

private:
    CudaDevice& device_;
    cudaStream_t stream_;
    StreamFailureHandler onFailure_;
    std::atomic<bool> failed_{false};
    bool failNextLaunch_ = false;  // the test hook above (worker thread only)
    cudnnHandle_t cudnn_ = nullptr;
    cublasLtHandle_t cublasLt_ = nullptr;
};

class CudaDevice final : public backend::Device {
public:
    // `properties`: what the adapter read of device `ordinal` when it was created.
    CudaDevice(const AdapterInfo& info, int ordinal, const cudaDeviceProp& properties);
    ~CudaDevice() override;

    const AdapterInfo& Info() const override { return info_; }
    Status Allocate(uint64_t size, MemoryPool pool, std::unique_ptr<Memory>* memory) override;
    std::unique_ptr<Stream> CreateStream(StreamFailureHandler onFailure) override;
    const dml::KernelSet* DmlKernels() const override;

    int Ordinal() const { return ordinal_; }
    const cudaDeviceProp& Properties() const { return properties_; }
    int Multiprocessors() const { return properties_.multiProcessorCount; }
    void MakeCurrent() const { cudaSetDevice(ordinal_); }

    // Handles for planning (algorithm heuristics, workspace sizes) while an operator compiles.
    // Hold PlanningLock() while using them.
    std::unique_lock<std::mutex> PlanningLock() { return std::unique_lock<std::mutex>(planningMutex_); }
    Status PlanningCudnn(cudnnHandle_t* handle);
    Status PlanningCublasLt(cublasLtHandle_t* handle);

private:
    AdapterInfo info_;
    int ordinal_;
    const cudaDeviceProp properties_;
    std::mutex planningMutex_;
    cudnnHandle_t planningCudnn_ = nullptr;
    cublasLtHandle_t planningCublasLt_ = nullptr;
};

// The CUDA stream behind a backend stream of a CUDA device (kernels get it from KernelBindings).
inline CudaStream& AsCudaStream(Stream& stream) { return static_cast<CudaStream&>(stream); }

}  // namespace freedml::backend::cuda
