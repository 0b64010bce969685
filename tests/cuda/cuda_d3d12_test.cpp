// The CUDA backend under the D3D12 objects: adapters, memory pools, Map of UPLOAD and READBACK
// heaps, copies, placed resources that alias, fences and cross-queue waits. Every test skips,
// saying why, where there is no CUDA adapter.
#include "cuda_test_util.h"
#include "../d3d12_exec/exec_test.h"
#include "../d3d12_exec/clear_uav_cases.h"
#include "../d3d12_exec/custom_heap_cases.h"

#include <cstdlib>
#include <numeric>
#include <thread>

namespace freedml_test {
namespace {

class CudaD3D12Test : public ::testing::Test {
protected:
    void SetUp() override {
        adapter_ = FindAdapter(true);
        if (!adapter_) GTEST_SKIP() << kNoCudaAdapter;
        device_ = MakeDeviceOn(adapter_.Get());
        ASSERT_TRUE(device_);
    }
    ID3D12Device* device() { return device_.Get(); }

    ComPtr<ID3D12Heap> MakeHeap(D3D12_HEAP_TYPE type, UINT64 size) {
        D3D12_HEAP_DESC desc = {};
        desc.SizeInBytes = size;
        desc.Properties.Type = type;
        desc.Flags = D3D12_HEAP_FLAG_ALLOW_ONLY_BUFFERS;
        ComPtr<ID3D12Heap> heap;
        EXPECT_EQ(device_->CreateHeap(&desc, IID_PPV_ARGS(&heap)), S_OK);
        return heap;
    }
    ComPtr<ID3D12Resource> Placed(ID3D12Heap* heap, UINT64 offset, UINT64 size, D3D12_RESOURCE_STATES state) {
        CD3DX12_RESOURCE_DESC desc = CD3DX12_RESOURCE_DESC::Buffer(size);
        ComPtr<ID3D12Resource> resource;
        EXPECT_EQ(device_->CreatePlacedResource(heap, offset, &desc, state, nullptr, IID_PPV_ARGS(&resource)), S_OK);
        return resource;
    }

    ComPtr<IDXCoreAdapter> adapter_;
    ComPtr<ID3D12Device> device_;
};

std::vector<uint32_t> Pattern(size_t count, uint32_t seed) {
    std::vector<uint32_t> values(count);
    uint32_t x = seed * 2654435761u + 1;
    for (auto& v : values) v = (x = x * 1664525u + 1013904223u);
    return values;
}

TEST_F(CudaD3D12Test, AdapterIsHardwareNvidiaFirstInList) {
    bool hardware = false;
    ASSERT_EQ(adapter_->GetProperty(DXCoreAdapterProperty::IsHardware, sizeof(hardware), &hardware), S_OK);
    EXPECT_TRUE(hardware);
    DXCoreHardwareID id{};
    ASSERT_EQ(adapter_->GetProperty(DXCoreAdapterProperty::HardwareID, sizeof(id), &id), S_OK);
    EXPECT_EQ(id.vendorID, 0x10DEu);
    uint64_t dedicated = 0;
    ASSERT_EQ(adapter_->GetProperty(DXCoreAdapterProperty::DedicatedAdapterMemory, sizeof(dedicated), &dedicated), S_OK);
    EXPECT_GT(dedicated, 1ull << 30);
    EXPECT_EQ(AdapterName(adapter_.Get()).rfind("FreeDML CUDA: ", 0), 0u) << AdapterName(adapter_.Get());
    // The default device prefers the GPU; FREEDML_ADAPTER=cpu overrides.
    LUID luid{};
    adapter_->GetProperty(DXCoreAdapterProperty::InstanceLuid, sizeof(luid), &luid);
    ComPtr<ID3D12Device> defaultDevice;
    const char* previous = std::getenv("FREEDML_ADAPTER");
    unsetenv("FREEDML_ADAPTER");
    ASSERT_EQ(D3D12CreateDevice(nullptr, D3D_FEATURE_LEVEL_11_0, IID_PPV_ARGS(&defaultDevice)), S_OK);
    LUID chosen = defaultDevice->GetAdapterLuid();
    EXPECT_EQ(chosen.LowPart, luid.LowPart);
    EXPECT_EQ(chosen.HighPart, luid.HighPart);
    setenv("FREEDML_ADAPTER", "cpu", 1);
    ComPtr<ID3D12Device> cpuDevice;
    ASSERT_EQ(D3D12CreateDevice(nullptr, D3D_FEATURE_LEVEL_11_0, IID_PPV_ARGS(&cpuDevice)), S_OK);
    EXPECT_NE(cpuDevice->GetAdapterLuid().HighPart, luid.HighPart);
    if (previous) setenv("FREEDML_ADAPTER", previous, 1); else unsetenv("FREEDML_ADAPTER");
}

TEST_F(CudaD3D12Test, UploadDefaultReadbackRoundTripAndZeroFill) {
    constexpr size_t kCount = (8 << 20) / 4 + 7;  // 8 MiB and an odd tail
    auto values = Pattern(kCount, 1);
    auto upload = MakeUpload(device(), kCount * 4);
    auto gpu = MakeBuffer(device(), D3D12_HEAP_TYPE_DEFAULT, kCount * 4, D3D12_RESOURCE_STATE_COMMON);
    auto fresh = MakeBuffer(device(), D3D12_HEAP_TYPE_DEFAULT, 4096, D3D12_RESOURCE_STATE_COMMON);
    auto readback = MakeReadback(device(), kCount * 4 + 4096);
    Write(upload.Get(), values);
    // DEFAULT memory has no CPU address.
    void* mapped = reinterpret_cast<void*>(1);
    EXPECT_NE(gpu->Map(0, nullptr, &mapped), S_OK);
    Lane lane(device());
    lane.list->CopyBufferRegion(gpu.Get(), 0, upload.Get(), 0, kCount * 4);
    lane.list->CopyBufferRegion(readback.Get(), 0, gpu.Get(), 0, kCount * 4);
    lane.list->CopyBufferRegion(readback.Get(), kCount * 4, fresh.Get(), 0, 4096);
    lane.Run();
    EXPECT_EQ(Read<uint32_t>(readback.Get(), kCount), values);
    auto zeros = Read<uint32_t>(readback.Get(), 1024, kCount * 4);
    EXPECT_EQ(zeros, std::vector<uint32_t>(1024, 0u));
    EXPECT_NE(gpu->GetGPUVirtualAddress(), 0u);
}

// ClearUnorderedAccessView* on device memory: the fill kernel's word path (1, 2, 4, 8, 12 and
// 16-byte elements) and its byte path (an odd count of 1-byte elements), byte by byte.
TEST_F(CudaD3D12Test, ClearUnorderedAccessViewFillsDeviceMemory) {
    for (const ClearCase& c : ClearCases()) RunClearCase(device(), c);
}

// CUSTOM heaps on a discrete adapter: L1 is the GPU's memory (CPU pages NOT_AVAILABLE only), L0
// host memory in each CPU page property.
TEST_F(CudaD3D12Test, CustomHeapsOnADiscreteAdapter) { CheckCustomHeaps(device(), false); }

// A discrete GPU is no UMA adapter.
TEST_F(CudaD3D12Test, ArchitectureIsNotUma) {
    D3D12_FEATURE_DATA_ARCHITECTURE architecture{};
    ASSERT_EQ(device()->CheckFeatureSupport(D3D12_FEATURE_ARCHITECTURE, &architecture, sizeof(architecture)), S_OK);
    EXPECT_FALSE(architecture.UMA);
    EXPECT_FALSE(architecture.CacheCoherentUMA);
}

TEST_F(CudaD3D12Test, PlacedResourcesAliasTheirHeapsBytes) {
    constexpr UINT64 k64 = 65536;  // the placement alignment of buffers
    auto heap = MakeHeap(D3D12_HEAP_TYPE_DEFAULT, 4 * k64);
    auto whole = Placed(heap.Get(), 0, 4 * k64, D3D12_RESOURCE_STATE_COMMON);
    auto low = Placed(heap.Get(), 0, 2 * k64, D3D12_RESOURCE_STATE_COMMON);
    auto high = Placed(heap.Get(), k64, 2 * k64, D3D12_RESOURCE_STATE_COMMON);  // overlaps `low` by 64 KiB
    EXPECT_EQ(high->GetGPUVirtualAddress(), whole->GetGPUVirtualAddress() + k64);
    auto values = Pattern(2 * k64 / 4, 7);
    auto upload = MakeUpload(device(), 2 * k64);
    auto readback = MakeReadback(device(), 4 * k64);
    Write(upload.Get(), values);
    Lane lane(device());
    // Written through `low`: `whole` sees it at offset 0, `high` sees its second half at offset 0.
    lane.list->CopyBufferRegion(low.Get(), 0, upload.Get(), 0, 2 * k64);
    lane.list->CopyBufferRegion(readback.Get(), 0, whole.Get(), 0, 2 * k64);
    lane.list->CopyBufferRegion(readback.Get(), 2 * k64, high.Get(), 0, k64);
    // Written through `high` past `low`'s end: `whole` sees it at 128 KiB.
    lane.list->CopyBufferRegion(high.Get(), k64, upload.Get(), 0, k64);
    lane.list->CopyBufferRegion(readback.Get(), 3 * k64, whole.Get(), 2 * k64, k64);
    lane.Run();
    const size_t half = values.size() / 2;
    EXPECT_EQ(Read<uint32_t>(readback.Get(), values.size()), values);
    EXPECT_EQ(Read<uint32_t>(readback.Get(), half, 2 * k64), std::vector<uint32_t>(values.begin() + half, values.end()));
    EXPECT_EQ(Read<uint32_t>(readback.Get(), half, 3 * k64), std::vector<uint32_t>(values.begin(), values.begin() + half));
}

TEST_F(CudaD3D12Test, FencesSignalAfterTheWorkCompletes) {
    constexpr size_t kBytes = 256 << 20;  // long enough that a signal before completion would show
    auto a = MakeBuffer(device(), D3D12_HEAP_TYPE_DEFAULT, kBytes, D3D12_RESOURCE_STATE_COMMON);
    auto b = MakeBuffer(device(), D3D12_HEAP_TYPE_DEFAULT, kBytes, D3D12_RESOURCE_STATE_COMMON);
    auto upload = MakeUpload(device(), 4096);
    auto readback = MakeReadback(device(), 4096);
    auto values = Pattern(1024, 3);
    Write(upload.Get(), values);
    Lane lane(device());
    lane.list->CopyBufferRegion(a.Get(), kBytes - 4096, upload.Get(), 0, 4096);
    for (int i = 0; i < 8; ++i) {
        lane.list->CopyBufferRegion(b.Get(), 0, a.Get(), 0, kBytes);
        lane.list->CopyBufferRegion(a.Get(), 0, b.Get(), 0, kBytes);
    }
    lane.list->CopyBufferRegion(readback.Get(), 0, a.Get(), kBytes - 4096, 4096);
    ASSERT_EQ(lane.list->Close(), S_OK);
    lane.Execute();
    ASSERT_EQ(lane.queue->Signal(lane.fence.Get(), 1), S_OK);
    ASSERT_EQ(lane.fence->SetEventOnCompletion(1, nullptr), S_OK);
    EXPECT_EQ(lane.fence->GetCompletedValue(), 1u);
    EXPECT_EQ(Read<uint32_t>(readback.Get(), 1024), values);
}

TEST_F(CudaD3D12Test, CrossQueueWaitOrdersTheQueues) {
    constexpr size_t kBytes = 128 << 20;
    auto a = MakeBuffer(device(), D3D12_HEAP_TYPE_DEFAULT, kBytes, D3D12_RESOURCE_STATE_COMMON);
    auto b = MakeBuffer(device(), D3D12_HEAP_TYPE_DEFAULT, kBytes, D3D12_RESOURCE_STATE_COMMON);
    auto upload = MakeUpload(device(), kBytes);
    auto readback = MakeReadback(device(), 4096);
    std::vector<uint32_t> values = Pattern(kBytes / 4, 5);
    Write(upload.Get(), values);
    Lane producer(device()), consumer(device(), D3D12_COMMAND_LIST_TYPE_COMPUTE);
    ComPtr<ID3D12Fence> handoff;
    ASSERT_EQ(device()->CreateFence(0, D3D12_FENCE_FLAG_NONE, IID_PPV_ARGS(&handoff)), S_OK);
    // The consumer waits first, then copies what the producer wrote.
    ASSERT_EQ(consumer.queue->Wait(handoff.Get(), 1), S_OK);
    consumer.list->CopyBufferRegion(b.Get(), 0, a.Get(), 0, kBytes);
    consumer.list->CopyBufferRegion(readback.Get(), 0, b.Get(), kBytes - 4096, 4096);
    ASSERT_EQ(consumer.list->Close(), S_OK);
    consumer.Execute();
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    producer.list->CopyBufferRegion(a.Get(), 0, upload.Get(), 0, kBytes);
    ASSERT_EQ(producer.list->Close(), S_OK);
    producer.Execute();
    ASSERT_EQ(producer.queue->Signal(handoff.Get(), 1), S_OK);
    consumer.Wait();
    EXPECT_EQ(Read<uint32_t>(readback.Get(), 1024),
              std::vector<uint32_t>(values.end() - 1024, values.end()));
}

TEST_F(CudaD3D12Test, OutOfMemoryIsAnErrorNotACrash) {
    D3D12_HEAP_DESC desc = {};
    desc.SizeInBytes = 1ull << 50;  // a petabyte
    desc.Properties.Type = D3D12_HEAP_TYPE_DEFAULT;
    desc.Flags = D3D12_HEAP_FLAG_ALLOW_ONLY_BUFFERS;
    ComPtr<ID3D12Heap> heap;
    EXPECT_EQ(device()->CreateHeap(&desc, IID_PPV_ARGS(&heap)), E_OUTOFMEMORY);
    // The device still works.
    auto buffer = MakeBuffer(device(), D3D12_HEAP_TYPE_DEFAULT, 4096, D3D12_RESOURCE_STATE_COMMON);
    EXPECT_TRUE(buffer);
}

}  // namespace
}  // namespace freedml_test
