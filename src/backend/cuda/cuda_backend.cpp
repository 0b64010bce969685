#include "backend/cuda/cuda_backend.h"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "backend/cuda/cuda_plugin.h"
#include "backend/host_memory.h"

namespace freedml::backend::cuda {

// Defined in the CUDA kernels (src/dml/kernels/cuda): the DirectML kernel set of the CUDA backend,
// and whether this plugin's GPU code has an image for device `ordinal`.
const dml::KernelSet& DmlCudaKernels();
bool KernelsRunOnDevice(int ordinal, std::string* why);

std::string CudaErrorText(cudaError_t error) {
    return Format("%s (%s)", cudaGetErrorString(error), cudaGetErrorName(error));
}

std::string CublasStatusText(cublasStatus_t status) {
    return Format("%s (%s)", cublasLtGetStatusString(status), cublasLtGetStatusName(status));
}

namespace {

const char* PoolName(MemoryPool pool) {
    switch (pool) {
        case MemoryPool::Device: return "device";
        case MemoryPool::Upload: return "upload";
        case MemoryPool::Readback: return "readback";
    }
    return "unknown";
}

// The bytes this process holds on each CUDA device (cudaMalloc) and in pinned host memory for it
// (cudaHostAlloc), for DXCore's memory budgets. Kept here, in the plugin, which a process loads
// once: libd3d12 allocates, libdxcore reports, and both reach the same counters.
struct DeviceUsage {
    std::atomic<uint64_t> device{0};
    std::atomic<uint64_t> pinned{0};
};
constexpr int kTrackedDevices = 256;

DeviceUsage* UsageOf(int ordinal) {
    static DeviceUsage usage[kTrackedDevices];
    return ordinal >= 0 && ordinal < kTrackedDevices ? &usage[ordinal] : nullptr;
}

class CudaMemory final : public Memory {
public:
    CudaMemory(int ordinal, uint64_t size, MemoryPool pool, void* device, void* host)
        : ordinal_(ordinal), size_(size), pool_(pool), device_(device), host_(host) {
        if (DeviceUsage* usage = UsageOf(ordinal_)) (host_ ? usage->pinned : usage->device) += size_;
    }
    ~CudaMemory() override {
        cudaSetDevice(ordinal_);
        if (host_) {
            cudaFreeHost(host_);
        } else {
            cudaFree(device_);
        }
        if (DeviceUsage* usage = UsageOf(ordinal_)) (host_ ? usage->pinned : usage->device) -= size_;
    }
    uint64_t Size() const override { return size_; }
    MemoryPool Pool() const override { return pool_; }
    uint64_t Address() const override { return reinterpret_cast<uint64_t>(device_); }
    void* HostPointer() const override { return host_; }

private:
    int ordinal_;
    uint64_t size_;
    MemoryPool pool_;
    void* device_;  // what kernels and copies use (the mapped device pointer for host memory)
    void* host_;    // pinned host memory, or nullptr for device memory
};

// One PCI id of the device that the CUDA runtime does not report (device, subsystem_device,
// subsystem_vendor, revision), read from sysfs; 0 when unknown.
uint32_t PciId(const cudaDeviceProp& p, const char* name) {
    char path[160];
    std::snprintf(path, sizeof(path), "/sys/bus/pci/devices/%04x:%02x:%02x.0/%s", p.pciDomainID, p.pciBusID,
                  p.pciDeviceID, name);
    FILE* file = std::fopen(path, "r");
    if (!file) return 0;
    unsigned id = 0;
    if (std::fscanf(file, "%x", &id) != 1) id = 0;
    std::fclose(file);
    return id;
}

class CudaAdapter final : public Adapter {
public:
    CudaAdapter(const AdapterInfo& info, int ordinal, const cudaDeviceProp& properties)
        : info_(info), ordinal_(ordinal), properties_(properties) {}
    const AdapterInfo& Info() const override { return info_; }
    MemoryBudget QueryMemoryBudget(SegmentGroup group) const override {
        const DeviceUsage* usage = UsageOf(ordinal_);
        MemoryBudget result;
        if (group == SegmentGroup::NonLocal) {
            // UPLOAD and READBACK heaps: pinned host memory.
            result.currentUsage = usage ? usage->pinned.load() : 0;
            result.budget = HostBudget(result.currentUsage);
            return result;
        }
        result.currentUsage = usage ? usage->device.load() : 0;
        // What this process holds plus what is free on the device now (other processes count),
        // never more than the device has. cudaMemGetInfo needs the device current on this thread.
        result.budget = info_.dedicatedMemoryBytes;
        int previous = 0;
        size_t freeBytes = 0, totalBytes = 0;
        if (cudaGetDevice(&previous) == cudaSuccess && cudaSetDevice(ordinal_) == cudaSuccess &&
            cudaMemGetInfo(&freeBytes, &totalBytes) == cudaSuccess) {
            result.budget = std::min<uint64_t>(result.currentUsage + freeBytes, totalBytes);
        }
        cudaGetLastError();  // a failed query is no error of the application's work
        cudaSetDevice(previous);
        return result;
    }
    std::shared_ptr<backend::Device> GetDevice() override {
        std::lock_guard lock(mutex_);
        if (!device_) device_ = std::make_shared<CudaDevice>(info_, ordinal_, properties_);
        return device_;
    }

private:
    AdapterInfo info_;
    int ordinal_;
    cudaDeviceProp properties_;
    std::mutex mutex_;
    std::shared_ptr<backend::Device> device_;
};

int DeviceCount(std::string* whyNone) {
    int count = 0;
    cudaError_t error = cudaGetDeviceCount(&count);
    if (error != cudaSuccess) {
        *whyNone = "the CUDA runtime found no usable device: " + CudaErrorText(error);
        cudaGetLastError();
        return 0;
    }
    if (count == 0) *whyNone = "the CUDA driver reports no device";
    return count;
}

// The device's facts are read here, once; the adapter and its backend device keep them.
std::unique_ptr<Adapter> CreateAdapter(int ordinal, const LUID& luid) {
    cudaDeviceProp properties{};
    if (cudaGetDeviceProperties(&properties, ordinal) != cudaSuccess || properties.multiProcessorCount < 1) {
        cudaGetLastError();
        return nullptr;
    }
    std::string why;
    if (!KernelsRunOnDevice(ordinal, &why)) {
        // Stays on standard error: this happens while the process enumerates adapters, before any
        // device (or info queue) exists, and it is no failure of the application's work; the
        // device is simply not offered.
        std::fprintf(stderr, "FreeDML CUDA: device %d (%s) is skipped: %s.\n", ordinal, properties.name, why.c_str());
        return nullptr;
    }
    AdapterInfo info;
    info.kind = AdapterKind::Cuda;
    info.description = std::string("FreeDML CUDA: ") + properties.name;
    info.luid = luid;
    info.vendorId = 0x10DE;
    info.deviceId = PciId(properties, "device");
    info.subSystemId = PciId(properties, "subsystem_device");
    info.subVendorId = PciId(properties, "subsystem_vendor");
    info.revision = PciId(properties, "revision");
    info.dedicatedMemoryBytes = properties.totalGlobalMem;
    info.sharedMemoryBytes = HostPhysicalBytes();
    info.isHardware = true;
    info.unifiedMemory = properties.integrated != 0;
    info.ordinalName = "cuda:" + std::to_string(ordinal);
    return std::make_unique<CudaAdapter>(info, ordinal, properties);
}

const PluginApi kApi{kPluginAbiVersion, &DeviceCount, &CreateAdapter};

}  // namespace

// ---- CudaStream -------------------------------------------------------------------------------------

CudaStream::CudaStream(CudaDevice& device, cudaStream_t stream, StreamFailureHandler onFailure)
    : device_(device), stream_(stream), onFailure_(std::move(onFailure)) {
    const char* failLaunch = std::getenv("FREEDML_TEST_FAIL_CUDA_LAUNCH");
    failNextLaunch_ = failLaunch && *failLaunch && std::strcmp(failLaunch, "0") != 0;
}

CudaStream::~CudaStream() {
    MakeCurrent();
    cudaStreamSynchronize(stream_);
    if (cudnn_) cudnnDestroy(cudnn_);
    if (cublasLt_) cublasLtDestroy(cublasLt_);
    cudaStreamDestroy(stream_);
}

int CudaStream::Ordinal() const { return device_.Ordinal(); }

void CudaStream::Fail(const char* what, const std::string& detail) {
    if (failed_.exchange(true)) return;
    if (onFailure_) {
        onFailure_(Format("%s failed on adapter '%s': %s.", what, device_.Info().description.c_str(), detail.c_str()));
    }
}

bool CudaStream::Check(cudaError_t error, const char* what) {
    if (error == cudaSuccess) return false;
    Fail(what, CudaErrorText(error));
    return true;
}

LaunchTarget CudaStream::Launch() {
    LaunchTarget target{stream_, device_.Multiprocessors()};
    if (failNextLaunch_) {
        failNextLaunch_ = false;
        target.multiprocessors = 0;
    }
    return target;
}

void CudaStream::MakeCurrent() const { device_.MakeCurrent(); }

void CudaStream::CopyAddresses(std::byte* destination, const std::byte* source, uint64_t byteCount) {
    if (byteCount == 0) return;
    MakeCurrent();
    Check(cudaMemcpyAsync(destination, source, byteCount, cudaMemcpyDeviceToDevice, stream_),
          "cudaMemcpyAsync (a copy between kernel addresses)");
}

void CudaStream::WriteFromHost(std::byte* destination, const void* host, uint64_t byteCount) {
    if (byteCount == 0) return;
    MakeCurrent();
    // From pageable memory the copy is staged before cudaMemcpyAsync returns, so `host` may go.
    Check(cudaMemcpyAsync(destination, host, byteCount, cudaMemcpyHostToDevice, stream_),
          "cudaMemcpyAsync (host bytes to the device)");
}

void CudaStream::ReadToHost(void* host, const std::byte* source, uint64_t byteCount) {
    if (byteCount == 0) return;
    MakeCurrent();
    Check(cudaMemcpyAsync(host, source, byteCount, cudaMemcpyDeviceToHost, stream_),
          "cudaMemcpyAsync (device bytes to the host)");
}

void CudaStream::CopyBuffer(Memory& destination, uint64_t destinationOffset, Memory& source, uint64_t sourceOffset,
                            uint64_t byteCount) {
    if (byteCount == 0) return;
    MakeCurrent();
    auto* to = reinterpret_cast<unsigned char*>(destination.Address() + destinationOffset);
    auto* from = reinterpret_cast<const unsigned char*>(source.Address() + sourceOffset);
    // Placed resources may make the two ranges overlap; cudaMemcpy does not allow that, so such a
    // copy goes through stream-ordered scratch memory (no host synchronization).
    bool overlap = &destination == &source && to < from + byteCount && from < to + byteCount;
    if (overlap && to != from) {
        void* scratch = nullptr;
        if (!Check(cudaMallocAsync(&scratch, byteCount, stream_), "cudaMallocAsync (an overlapping copy's scratch)")) {
            const char* what = "cudaMemcpyAsync (CopyBuffer)";
            Check(cudaMemcpyAsync(scratch, from, byteCount, cudaMemcpyDefault, stream_), what);
            Check(cudaMemcpyAsync(to, scratch, byteCount, cudaMemcpyDefault, stream_), what);
            Check(cudaFreeAsync(scratch, stream_), "cudaFreeAsync (an overlapping copy's scratch)");
        }
        return;
    }
    if (to == from) return;
    Check(cudaMemcpyAsync(to, from, byteCount, cudaMemcpyDefault, stream_), "cudaMemcpyAsync (CopyBuffer)");
}

void CudaStream::Fill(Memory& destination, uint64_t offset, uint64_t byteCount, const void* pattern,
                      uint32_t patternSize) {
    if (byteCount == 0) return;
    MakeCurrent();
    FillPattern fill{};
    std::memcpy(fill.bytes, pattern, patternSize);
    fill.size = patternSize;
    Check(LaunchFill(Launch(), reinterpret_cast<void*>(destination.Address() + offset), byteCount, fill),
          "the fill kernel (ClearUnorderedAccessView)");
}

void CudaStream::Finish() {
    MakeCurrent();
    Check(cudaStreamSynchronize(stream_), "cudaStreamSynchronize (the queue's work so far)");
}

cudnnHandle_t CudaStream::Cudnn() {
    if (!cudnn_) {
        MakeCurrent();
        const cudnnStatus_t status = cudnnCreate(&cudnn_);
        if (status != CUDNN_STATUS_SUCCESS) {
            cudnn_ = nullptr;
            Fail("cudnnCreate (the queue's cuDNN handle)", cudnnGetErrorString(status));
            return nullptr;
        }
        const cudnnStatus_t bound = cudnnSetStream(cudnn_, stream_);
        if (bound != CUDNN_STATUS_SUCCESS) {
            Fail("cudnnSetStream (the queue's cuDNN handle)", cudnnGetErrorString(bound));
        }
    }
    return cudnn_;
}

cublasLtHandle_t CudaStream::CublasLt() {
    if (!cublasLt_) {
        MakeCurrent();
        const cublasStatus_t status = cublasLtCreate(&cublasLt_);
        if (status != CUBLAS_STATUS_SUCCESS) {
            cublasLt_ = nullptr;
            Fail("cublasLtCreate (the queue's cuBLASLt handle)", CublasStatusText(status));
        }
    }
    return cublasLt_;
}

// ---- CudaDevice -------------------------------------------------------------------------------------

CudaDevice::CudaDevice(const AdapterInfo& info, int ordinal, const cudaDeviceProp& properties)
    : info_(info), ordinal_(ordinal), properties_(properties) {}

CudaDevice::~CudaDevice() {
    MakeCurrent();
    if (planningCudnn_) cudnnDestroy(planningCudnn_);
    if (planningCublasLt_) cublasLtDestroy(planningCublasLt_);
}

Status CudaDevice::Allocate(uint64_t size, MemoryPool pool, std::unique_ptr<Memory>* memory) {
    MakeCurrent();
    const size_t bytes = size_t(size == 0 ? 1 : size);
    void* device = nullptr;
    void* host = nullptr;
    cudaError_t error;
    if (pool == MemoryPool::Device) {
        error = cudaMalloc(&device, bytes);
        if (error == cudaSuccess) {
            // D3D12 zero-fills heaps. The legacy stream does not order our non-blocking streams,
            // so wait for the fill here, before any queue can touch the memory.
            error = cudaMemsetAsync(device, 0, bytes, nullptr);
            if (error == cudaSuccess) error = cudaStreamSynchronize(nullptr);
            if (error != cudaSuccess) cudaFree(device);
        }
    } else {
        error = cudaHostAlloc(&host, bytes, cudaHostAllocMapped | cudaHostAllocPortable);
        if (error == cudaSuccess) {
            std::memset(host, 0, bytes);
            error = cudaHostGetDevicePointer(&device, host, 0);
            if (error != cudaSuccess) cudaFreeHost(host);
        }
    }
    if (error != cudaSuccess) {
        cudaGetLastError();  // allocation failures are not sticky; clear them
        size_t freeBytes = 0, totalBytes = 0;
        cudaMemGetInfo(&freeBytes, &totalBytes);
        return Error(E_OUTOFMEMORY,
                     "Cannot allocate %llu bytes of %s memory on adapter '%s': %s failed with %s (the device has %llu "
                     "bytes, %llu free).",
                     static_cast<unsigned long long>(size), PoolName(pool), info_.description.c_str(),
                     pool == MemoryPool::Device ? "cudaMalloc" : "cudaHostAlloc", CudaErrorText(error).c_str(),
                     static_cast<unsigned long long>(totalBytes), static_cast<unsigned long long>(freeBytes));
    }
    memory->reset(new CudaMemory(ordinal_, size, pool, device, host));
    return {};
}

std::unique_ptr<Stream> CudaDevice::CreateStream(StreamFailureHandler onFailure) {
    MakeCurrent();
    cudaStream_t stream = nullptr;
    const cudaError_t error = cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking);
    if (error != cudaSuccess) stream = nullptr;  // the legacy stream would run the work in order
    auto result = std::make_unique<CudaStream>(*this, stream, std::move(onFailure));
    // A device that cannot make a stream is lost; the queue's device goes with it.
    result->Check(error, "cudaStreamCreateWithFlags (the queue's stream)");
    return result;
}

const dml::KernelSet* CudaDevice::DmlKernels() const { return &DmlCudaKernels(); }

Status CudaDevice::PlanningCudnn(cudnnHandle_t* handle) {
    if (!planningCudnn_) {
        MakeCurrent();
        cudnnStatus_t status = cudnnCreate(&planningCudnn_);
        if (status != CUDNN_STATUS_SUCCESS) {
            planningCudnn_ = nullptr;
            return Error(E_FAIL, "cudnnCreate failed on adapter '%s': %s.", info_.description.c_str(),
                         cudnnGetErrorString(status));
        }
    }
    *handle = planningCudnn_;
    return {};
}

Status CudaDevice::PlanningCublasLt(cublasLtHandle_t* handle) {
    if (!planningCublasLt_) {
        MakeCurrent();
        cublasStatus_t status = cublasLtCreate(&planningCublasLt_);
        if (status != CUBLAS_STATUS_SUCCESS) {
            planningCublasLt_ = nullptr;
            return Error(E_FAIL, "cublasLtCreate failed on adapter '%s': %s.", info_.description.c_str(),
                         CublasStatusText(status).c_str());
        }
    }
    *handle = planningCublasLt_;
    return {};
}

}  // namespace freedml::backend::cuda

extern "C" FREEDML_EXPORT const freedml::backend::cuda::PluginApi* FreeDmlCudaPluginEntry() {
    return &freedml::backend::cuda::kApi;
}
