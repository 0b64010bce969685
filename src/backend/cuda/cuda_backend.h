// The CUDA backend, inside the CUDA plugin: "FreeDML CUDA: <name>" adapters, one per device.
//
// - Memory: DEFAULT heaps (MemoryPool::Device) are cudaMalloc'ed device memory, zero-filled;
//   UPLOAD and READBACK heaps are pinned, mapped host memory (cudaHostAlloc): Map returns the host
//   pointer and Address() the device pointer of the same bytes, so kernels and copies reach both.
//   Placed resources and aliasing need nothing more: a resource is its heap's memory plus an offset.
// - Streams: one non-blocking cudaStream_t per D3D12 queue. Copies are cudaMemcpyAsync, kernels
//   launch on the stream; nothing inside a command list waits on the host. Finish (called before
//   a fence signals) synchronizes the stream.
// - Library handles: each stream owns its cuDNN and cuBLASLt handles, made on first use on the
//   queue's worker thread; the device owns one more pair, under a mutex, for planning at compile time.
#pragma once

#include <cublasLt.h>
#include <cuda_runtime.h>
#include <cudnn.h>

#include <mutex>
#include <string>

#include "backend/backend.h"
#include "common/status.h"

namespace freedml::backend::cuda {

// "cudaMalloc failed: out of memory (cudaErrorMemoryAllocation)".
std::string CudaErrorText(cudaError_t error);

// Logs a CUDA error that happened where nothing can return it (inside a queue's work); returns
// true when `error` is a failure.
bool ReportCudaError(cudaError_t error, const char* what);

class CudaDevice;

class CudaStream final : public Stream {
public:
    CudaStream(CudaDevice& device, cudaStream_t stream);
    ~CudaStream() override;

    void CopyBuffer(Memory& destination, uint64_t destinationOffset, Memory& source, uint64_t sourceOffset,
                    uint64_t byteCount) override;
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
    cudnnHandle_t cudnn_ = nullptr;
    cublasLtHandle_t cublasLt_ = nullptr;
};

class CudaDevice final : public backend::Device {
public:
    CudaDevice(const AdapterInfo& info, int ordinal);
    ~CudaDevice() override;

    const AdapterInfo& Info() const override { return info_; }
    Status Allocate(uint64_t size, MemoryPool pool, std::unique_ptr<Memory>* memory) override;
    std::unique_ptr<Stream> CreateStream() override;
    void* PluginSymbol(const char* name) override;

    int Ordinal() const { return ordinal_; }
    const cudaDeviceProp& Properties() const { return properties_; }
    void MakeCurrent() const { cudaSetDevice(ordinal_); }

    // Handles for planning (algorithm heuristics, workspace sizes) while an operator compiles.
    // Hold PlanningLock() while using them.
    std::unique_lock<std::mutex> PlanningLock() { return std::unique_lock<std::mutex>(planningMutex_); }
    Status PlanningCudnn(cudnnHandle_t* handle);
    Status PlanningCublasLt(cublasLtHandle_t* handle);

private:
    AdapterInfo info_;
    int ordinal_;
    cudaDeviceProp properties_{};
    std::mutex planningMutex_;
    cudnnHandle_t planningCudnn_ = nullptr;
    cublasLtHandle_t planningCublasLt_ = nullptr;
};

// The CUDA stream behind a backend stream of a CUDA device (kernels get it from KernelBindings).
inline CudaStream& AsCudaStream(Stream& stream) { return static_cast<CudaStream&>(stream); }

}  // namespace freedml::backend::cuda
