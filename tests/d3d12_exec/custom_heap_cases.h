// CUSTOM heaps for buffers, as DirectML's clients make them (write-combined upload paths, UMA
// buffers the CPU maps, the GPU's own memory named as L1), on a UMA adapter (the CPU) or a discrete
// one (a CUDA GPU). Shared by the CPU tests (custom_heap_test.cpp) and the CUDA tests. The rules are
// D3D12's (D3D12_HEAP_PROPERTIES, GetCustomHeapProperties reference pages).
#pragma once

#include <wsl/winadapter.h>
#include <wsl/wrladapter.h>
#include <directx/d3d12.h>
#include <directx/d3dx12.h>
#include <dxguids/dxguids.h>

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <vector>

namespace freedml_test {

inline D3D12_HEAP_PROPERTIES Custom(D3D12_CPU_PAGE_PROPERTY page, D3D12_MEMORY_POOL pool) {
    D3D12_HEAP_PROPERTIES properties = {};
    properties.Type = D3D12_HEAP_TYPE_CUSTOM;
    properties.CPUPageProperty = page;
    properties.MemoryPoolPreference = pool;
    return properties;
}

inline HRESULT CreateOn(ID3D12Device* device, const D3D12_HEAP_PROPERTIES& heap, UINT64 bytes,
                        Microsoft::WRL::ComPtr<ID3D12Resource>* resource,
                        D3D12_RESOURCE_FLAGS flags = D3D12_RESOURCE_FLAG_NONE) {
    CD3DX12_RESOURCE_DESC desc = CD3DX12_RESOURCE_DESC::Buffer(bytes, flags);
    return device->CreateCommittedResource(&heap, D3D12_HEAP_FLAG_NONE, &desc, D3D12_RESOURCE_STATE_COMMON, nullptr,
                                           IID_PPV_ARGS(resource->ReleaseAndGetAddressOf()));
}

// Runs `record` on a fresh list of `device`'s new DIRECT queue and waits for it.
template <class Record>
void RunOnce(ID3D12Device* device, Record&& record) {
    using Microsoft::WRL::ComPtr;
    ComPtr<ID3D12CommandQueue> queue;
    ComPtr<ID3D12CommandAllocator> allocator;
    ComPtr<ID3D12GraphicsCommandList> list;
    ComPtr<ID3D12Fence> fence;
    D3D12_COMMAND_QUEUE_DESC desc = {D3D12_COMMAND_LIST_TYPE_DIRECT, 0, D3D12_COMMAND_QUEUE_FLAG_NONE, 0};
    ASSERT_EQ(device->CreateCommandQueue(&desc, IID_PPV_ARGS(&queue)), S_OK);
    ASSERT_EQ(device->CreateCommandAllocator(D3D12_COMMAND_LIST_TYPE_DIRECT, IID_PPV_ARGS(&allocator)), S_OK);
    ASSERT_EQ(device->CreateCommandList(0, D3D12_COMMAND_LIST_TYPE_DIRECT, allocator.Get(), nullptr,
                                        IID_PPV_ARGS(&list)),
              S_OK);
    ASSERT_EQ(device->CreateFence(0, D3D12_FENCE_FLAG_NONE, IID_PPV_ARGS(&fence)), S_OK);
    record(list.Get());
    ASSERT_EQ(list->Close(), S_OK);
    ID3D12CommandList* lists[] = {list.Get()};
    queue->ExecuteCommandLists(1, lists);
    ASSERT_EQ(queue->Signal(fence.Get(), 1), S_OK);
    ASSERT_EQ(fence->SetEventOnCompletion(1, nullptr), S_OK);
}

// `uma`: what the device's D3D12_FEATURE_ARCHITECTURE says, which the rules depend on.
inline void CheckCustomHeaps(ID3D12Device* device, bool uma) {
    using Microsoft::WRL::ComPtr;
    D3D12_FEATURE_DATA_ARCHITECTURE architecture = {};
    ASSERT_EQ(device->CheckFeatureSupport(D3D12_FEATURE_ARCHITECTURE, &architecture, sizeof(architecture)), S_OK);
    ASSERT_EQ(architecture.UMA != FALSE, uma);

    // GetCustomHeapProperties: DEFAULT is the adapter's own memory (L1 on a discrete adapter, L0 on
    // UMA), never CPU-visible; UPLOAD and READBACK are L0 and CPU-visible.
    const D3D12_HEAP_PROPERTIES defaults = device->GetCustomHeapProperties(0, D3D12_HEAP_TYPE_DEFAULT);
    EXPECT_EQ(defaults.Type, D3D12_HEAP_TYPE_CUSTOM);
    EXPECT_EQ(defaults.CPUPageProperty, D3D12_CPU_PAGE_PROPERTY_NOT_AVAILABLE);
    EXPECT_EQ(defaults.MemoryPoolPreference, uma ? D3D12_MEMORY_POOL_L0 : D3D12_MEMORY_POOL_L1);
    const D3D12_HEAP_PROPERTIES upload = device->GetCustomHeapProperties(0, D3D12_HEAP_TYPE_UPLOAD);
    EXPECT_EQ(upload.MemoryPoolPreference, D3D12_MEMORY_POOL_L0);
    EXPECT_NE(upload.CPUPageProperty, D3D12_CPU_PAGE_PROPERTY_NOT_AVAILABLE);
    const D3D12_HEAP_PROPERTIES readback = device->GetCustomHeapProperties(0, D3D12_HEAP_TYPE_READBACK);
    EXPECT_EQ(readback.MemoryPoolPreference, D3D12_MEMORY_POOL_L0);
    EXPECT_EQ(readback.CPUPageProperty, D3D12_CPU_PAGE_PROPERTY_WRITE_BACK);

    // What D3D12 refuses: UNKNOWN properties on a CUSTOM heap, L1 on UMA, CPU pages in L1.
    ComPtr<ID3D12Resource> refused;
    EXPECT_EQ(CreateOn(device, Custom(D3D12_CPU_PAGE_PROPERTY_UNKNOWN, D3D12_MEMORY_POOL_L0), 256, &refused),
              E_INVALIDARG);
    EXPECT_EQ(CreateOn(device, Custom(D3D12_CPU_PAGE_PROPERTY_WRITE_BACK, D3D12_MEMORY_POOL_UNKNOWN), 256, &refused),
              E_INVALIDARG);
    EXPECT_EQ(CreateOn(device, Custom(D3D12_CPU_PAGE_PROPERTY_WRITE_BACK, D3D12_MEMORY_POOL_L1), 256, &refused),
              E_INVALIDARG);
    EXPECT_EQ(CreateOn(device, Custom(D3D12_CPU_PAGE_PROPERTY_WRITE_COMBINE, D3D12_MEMORY_POOL_L1), 256, &refused),
              E_INVALIDARG);
    EXPECT_EQ(CreateOn(device, Custom(D3D12_CPU_PAGE_PROPERTY_NOT_AVAILABLE, D3D12_MEMORY_POOL_L1), 256, &refused),
              uma ? E_INVALIDARG : S_OK);
    EXPECT_EQ(refused == nullptr, uma);

    // The combinations the adapter takes, each carrying data: the CPU writes a write-combined L0
    // buffer, the queue copies it through every CPU-invisible kind to a write-back L0 buffer that
    // the CPU maps and reads.
    constexpr UINT64 kBytes = 4096;
    ComPtr<ID3D12Resource> source, hostOnly, own, target;
    ASSERT_EQ(CreateOn(device, Custom(D3D12_CPU_PAGE_PROPERTY_WRITE_COMBINE, D3D12_MEMORY_POOL_L0), kBytes, &source),
              S_OK);
    ASSERT_EQ(CreateOn(device, Custom(D3D12_CPU_PAGE_PROPERTY_NOT_AVAILABLE, D3D12_MEMORY_POOL_L0), kBytes, &hostOnly),
              S_OK);
    ASSERT_EQ(CreateOn(device, defaults, kBytes, &own), S_OK);
    ASSERT_EQ(CreateOn(device, Custom(D3D12_CPU_PAGE_PROPERTY_WRITE_BACK, D3D12_MEMORY_POOL_L0), kBytes, &target),
              S_OK);
    void* mapped = nullptr;
    EXPECT_EQ(hostOnly->Map(0, nullptr, &mapped), E_INVALIDARG);  // NOT_AVAILABLE: no CPU access
    EXPECT_EQ(own->Map(0, nullptr, &mapped), E_INVALIDARG);
    std::vector<uint32_t> values(kBytes / 4);
    for (size_t i = 0; i < values.size(); ++i) values[i] = uint32_t(i * 2654435761u);
    ASSERT_EQ(source->Map(0, nullptr, &mapped), S_OK);
    std::memcpy(mapped, values.data(), kBytes);
    source->Unmap(0, nullptr);
    RunOnce(device, [&](ID3D12GraphicsCommandList* list) {
        list->CopyResource(hostOnly.Get(), source.Get());
        D3D12_RESOURCE_BARRIER toSource =
            CD3DX12_RESOURCE_BARRIER::Transition(hostOnly.Get(), D3D12_RESOURCE_STATE_COPY_DEST,
                                                 D3D12_RESOURCE_STATE_COPY_SOURCE);
        list->ResourceBarrier(1, &toSource);
        list->CopyResource(own.Get(), hostOnly.Get());
        toSource = CD3DX12_RESOURCE_BARRIER::Transition(own.Get(), D3D12_RESOURCE_STATE_COPY_DEST,
                                                        D3D12_RESOURCE_STATE_COPY_SOURCE);
        list->ResourceBarrier(1, &toSource);
        list->CopyResource(target.Get(), own.Get());
    });
    std::vector<uint32_t> read(values.size());
    ASSERT_EQ(target->Map(0, nullptr, &mapped), S_OK);
    std::memcpy(read.data(), mapped, kBytes);
    target->Unmap(0, nullptr);
    EXPECT_EQ(read, values);

    // A CUSTOM heap made with CreateHeap takes placed buffers, as a committed resource's heap does.
    D3D12_HEAP_DESC heapDesc = {};
    heapDesc.SizeInBytes = 2 * 65536;
    heapDesc.Properties = Custom(D3D12_CPU_PAGE_PROPERTY_WRITE_BACK, D3D12_MEMORY_POOL_L0);
    heapDesc.Flags = D3D12_HEAP_FLAG_ALLOW_ONLY_BUFFERS;
    ComPtr<ID3D12Heap> heap;
    ASSERT_EQ(device->CreateHeap(&heapDesc, IID_PPV_ARGS(&heap)), S_OK);
    CD3DX12_RESOURCE_DESC desc = CD3DX12_RESOURCE_DESC::Buffer(65536);
    ComPtr<ID3D12Resource> placed;
    ASSERT_EQ(device->CreatePlacedResource(heap.Get(), 65536, &desc, D3D12_RESOURCE_STATE_COMMON, nullptr,
                                           IID_PPV_ARGS(&placed)),
              S_OK);
    ASSERT_EQ(placed->Map(0, nullptr, &mapped), S_OK);
    placed->Unmap(0, nullptr);
    heapDesc.Properties = Custom(D3D12_CPU_PAGE_PROPERTY_WRITE_BACK, D3D12_MEMORY_POOL_L1);
    ComPtr<ID3D12Heap> refusedHeap;
    EXPECT_EQ(device->CreateHeap(&heapDesc, IID_PPV_ARGS(&refusedHeap)), E_INVALIDARG);
}

}  // namespace freedml_test
