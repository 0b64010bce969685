// ClearUnorderedAccessViewUint/Float on buffer views, checked byte by byte on any device: shared
// by the CPU tests (clear_uav_test.cpp) and the CUDA tests (tests/cuda). The expected elements are
// written out by hand from the formats' definitions (IEEE 754 binary32/binary16 bits, UNORM and
// SNORM scaling), not computed by FreeDML.
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

struct ClearCase {
    const char* name;
    DXGI_FORMAT format;
    bool raw;
    UINT stride;          // StructureByteStride (0: typed or raw)
    UINT64 firstElement;
    UINT numElements;
    bool floats;          // ClearUnorderedAccessViewFloat (else Uint)
    UINT uints[4];
    FLOAT floatValues[4];
    std::vector<uint8_t> element;  // the bytes one element must hold afterwards
};

inline std::vector<ClearCase> ClearCases() {
    return {
        {"raw R32_TYPELESS", DXGI_FORMAT_R32_TYPELESS, true, 0, 4, 8, false, {0xDEADBEEF, 1, 2, 3}, {},
         {0xEF, 0xBE, 0xAD, 0xDE}},
        {"R32_UINT", DXGI_FORMAT_R32_UINT, false, 0, 1, 3, false, {7, 0, 0, 0}, {}, {7, 0, 0, 0}},
        {"R32_FLOAT cleared with Uint copies bits", DXGI_FORMAT_R32_FLOAT, false, 0, 2, 5, false, {0x3F800000}, {},
         {0x00, 0x00, 0x80, 0x3F}},
        // 1.5f is 0x3FC00000 in binary32.
        {"R32_FLOAT", DXGI_FORMAT_R32_FLOAT, false, 0, 0, 16, true, {}, {1.5f, 9, 9, 9}, {0x00, 0x00, 0xC0, 0x3F}},
        // A binary32 denormal is flushed to zero by the runtime.
        {"R32_FLOAT denormal", DXGI_FORMAT_R32_FLOAT, false, 0, 3, 2, true, {}, {1e-40f}, {0, 0, 0, 0}},
        // 1.0 is 0x3C00 and -2.0 is 0xC000 in binary16.
        {"R16G16_FLOAT", DXGI_FORMAT_R16G16_FLOAT, false, 0, 1, 7, true, {}, {1.0f, -2.0f}, {0x00, 0x3C, 0x00, 0xC0}},
        // UNORM8: 0.25 * 255 = 63.75 -> 64; above 1 clamps to 255; below 0 to 0.
        {"R8G8B8A8_UNORM", DXGI_FORMAT_R8G8B8A8_UNORM, false, 0, 0, 9, true, {}, {0.25f, 2.0f, -1.0f, 1.0f},
         {64, 255, 0, 255}},
        // SNORM16: -1 -> -32767 (0x8001); 0.25 * 32767 = 8191.75 -> 8192 (0x2000).
        {"R16G16_SNORM", DXGI_FORMAT_R16G16_SNORM, false, 0, 2, 3, true, {}, {-1.0f, 0.25f},
         {0x01, 0x80, 0x00, 0x20}},
        // Uint keeps the low bits of each channel, with no conversion.
        {"R8G8B8A8_UINT", DXGI_FORMAT_R8G8B8A8_UINT, false, 0, 5, 11, false, {0x101, 2, 3, 0xFFFFFFFF}, {},
         {0x01, 0x02, 0x03, 0xFF}},
        {"R8_UINT (odd byte count)", DXGI_FORMAT_R8_UINT, false, 0, 3, 5, false, {0xAB}, {}, {0xAB}},
        {"R32G32B32_UINT", DXGI_FORMAT_R32G32B32_UINT, false, 0, 1, 6, false, {1, 2, 3, 4}, {},
         {1, 0, 0, 0, 2, 0, 0, 0, 3, 0, 0, 0}},
        {"R32G32B32A32_SINT", DXGI_FORMAT_R32G32B32A32_SINT, false, 0, 2, 4, false, {0xFFFFFFFF, 5, 6, 7}, {},
         {0xFF, 0xFF, 0xFF, 0xFF, 5, 0, 0, 0, 6, 0, 0, 0, 7, 0, 0, 0}},
        // A structured view takes Values[0] in every 32-bit word.
        {"structured, stride 8", DXGI_FORMAT_UNKNOWN, false, 8, 3, 4, false, {0x01020304, 9, 9, 9}, {},
         {0x04, 0x03, 0x02, 0x01, 0x04, 0x03, 0x02, 0x01}},
    };
}

// Fills a 512-byte DEFAULT buffer with 0xEE, clears `c`'s view, reads the buffer back and checks
// that exactly the view's bytes changed.
inline void RunClearCase(ID3D12Device* device, const ClearCase& c) {
    using Microsoft::WRL::ComPtr;
    SCOPED_TRACE(c.name);
    constexpr UINT64 kBytes = 512;
    CD3DX12_HEAP_PROPERTIES defaultHeap(D3D12_HEAP_TYPE_DEFAULT), uploadHeap(D3D12_HEAP_TYPE_UPLOAD),
        readbackHeap(D3D12_HEAP_TYPE_READBACK);
    CD3DX12_RESOURCE_DESC uavDesc = CD3DX12_RESOURCE_DESC::Buffer(kBytes, D3D12_RESOURCE_FLAG_ALLOW_UNORDERED_ACCESS);
    CD3DX12_RESOURCE_DESC plainDesc = CD3DX12_RESOURCE_DESC::Buffer(kBytes);
    ComPtr<ID3D12Resource> buffer, upload, readback;
    ASSERT_EQ(device->CreateCommittedResource(&defaultHeap, D3D12_HEAP_FLAG_NONE, &uavDesc, D3D12_RESOURCE_STATE_COMMON,
                                              nullptr, IID_PPV_ARGS(&buffer)),
              S_OK);
    ASSERT_EQ(device->CreateCommittedResource(&uploadHeap, D3D12_HEAP_FLAG_NONE, &plainDesc,
                                              D3D12_RESOURCE_STATE_GENERIC_READ, nullptr, IID_PPV_ARGS(&upload)),
              S_OK);
    ASSERT_EQ(device->CreateCommittedResource(&readbackHeap, D3D12_HEAP_FLAG_NONE, &plainDesc,
                                              D3D12_RESOURCE_STATE_COPY_DEST, nullptr, IID_PPV_ARGS(&readback)),
              S_OK);
    void* mapped = nullptr;
    ASSERT_EQ(upload->Map(0, nullptr, &mapped), S_OK);
    std::memset(mapped, 0xEE, kBytes);
    upload->Unmap(0, nullptr);

    // The same view in a shader-visible heap (the GPU handle) and in a CPU-only heap (the CPU handle).
    ComPtr<ID3D12DescriptorHeap> visible, cpuOnly;
    D3D12_DESCRIPTOR_HEAP_DESC heapDesc = {D3D12_DESCRIPTOR_HEAP_TYPE_CBV_SRV_UAV, 1,
                                           D3D12_DESCRIPTOR_HEAP_FLAG_SHADER_VISIBLE, 0};
    ASSERT_EQ(device->CreateDescriptorHeap(&heapDesc, IID_PPV_ARGS(&visible)), S_OK);
    heapDesc.Flags = D3D12_DESCRIPTOR_HEAP_FLAG_NONE;
    ASSERT_EQ(device->CreateDescriptorHeap(&heapDesc, IID_PPV_ARGS(&cpuOnly)), S_OK);
    D3D12_UNORDERED_ACCESS_VIEW_DESC view = {};
    view.Format = c.format;
    view.ViewDimension = D3D12_UAV_DIMENSION_BUFFER;
    view.Buffer.FirstElement = c.firstElement;
    view.Buffer.NumElements = c.numElements;
    view.Buffer.StructureByteStride = c.stride;
    view.Buffer.Flags = c.raw ? D3D12_BUFFER_UAV_FLAG_RAW : D3D12_BUFFER_UAV_FLAG_NONE;
    device->CreateUnorderedAccessView(buffer.Get(), nullptr, &view, visible->GetCPUDescriptorHandleForHeapStart());
    device->CreateUnorderedAccessView(buffer.Get(), nullptr, &view, cpuOnly->GetCPUDescriptorHandleForHeapStart());

    ComPtr<ID3D12CommandQueue> queue;
    ComPtr<ID3D12CommandAllocator> allocator;
    ComPtr<ID3D12GraphicsCommandList> list;
    ComPtr<ID3D12Fence> fence;
    D3D12_COMMAND_QUEUE_DESC queueDesc = {D3D12_COMMAND_LIST_TYPE_COMPUTE, 0, D3D12_COMMAND_QUEUE_FLAG_NONE, 0};
    ASSERT_EQ(device->CreateCommandQueue(&queueDesc, IID_PPV_ARGS(&queue)), S_OK);
    ASSERT_EQ(device->CreateCommandAllocator(D3D12_COMMAND_LIST_TYPE_COMPUTE, IID_PPV_ARGS(&allocator)), S_OK);
    ASSERT_EQ(device->CreateCommandList(0, D3D12_COMMAND_LIST_TYPE_COMPUTE, allocator.Get(), nullptr,
                                        IID_PPV_ARGS(&list)),
              S_OK);
    ASSERT_EQ(device->CreateFence(0, D3D12_FENCE_FLAG_NONE, IID_PPV_ARGS(&fence)), S_OK);

    list->CopyResource(buffer.Get(), upload.Get());
    auto toUav = CD3DX12_RESOURCE_BARRIER::Transition(buffer.Get(), D3D12_RESOURCE_STATE_COPY_DEST,
                                                      D3D12_RESOURCE_STATE_UNORDERED_ACCESS);
    list->ResourceBarrier(1, &toUav);
    ID3D12DescriptorHeap* heaps[] = {visible.Get()};
    list->SetDescriptorHeaps(1, heaps);
    if (c.floats) {
        list->ClearUnorderedAccessViewFloat(visible->GetGPUDescriptorHandleForHeapStart(),
                                            cpuOnly->GetCPUDescriptorHandleForHeapStart(), buffer.Get(), c.floatValues,
                                            0, nullptr);
    } else {
        list->ClearUnorderedAccessViewUint(visible->GetGPUDescriptorHandleForHeapStart(),
                                           cpuOnly->GetCPUDescriptorHandleForHeapStart(), buffer.Get(), c.uints, 0,
                                           nullptr);
    }
    D3D12_RESOURCE_BARRIER after[] = {CD3DX12_RESOURCE_BARRIER::UAV(buffer.Get()),
                                      CD3DX12_RESOURCE_BARRIER::Transition(buffer.Get(),
                                                                           D3D12_RESOURCE_STATE_UNORDERED_ACCESS,
                                                                           D3D12_RESOURCE_STATE_COPY_SOURCE)};
    list->ResourceBarrier(2, after);
    list->CopyResource(readback.Get(), buffer.Get());
    ASSERT_EQ(list->Close(), S_OK);
    ID3D12CommandList* lists[] = {list.Get()};
    queue->ExecuteCommandLists(1, lists);
    ASSERT_EQ(queue->Signal(fence.Get(), 1), S_OK);
    ASSERT_EQ(fence->SetEventOnCompletion(1, nullptr), S_OK);

    std::vector<uint8_t> bytes(kBytes);
    ASSERT_EQ(readback->Map(0, nullptr, &mapped), S_OK);
    std::memcpy(bytes.data(), mapped, kBytes);
    readback->Unmap(0, nullptr);
    const size_t elementSize = c.element.size();
    const size_t begin = size_t(c.firstElement) * elementSize, end = begin + size_t(c.numElements) * elementSize;
    for (size_t i = 0; i < kBytes; ++i) {
        const uint8_t expected = i >= begin && i < end ? c.element[(i - begin) % elementSize] : 0xEE;
        ASSERT_EQ(bytes[i], expected) << "byte " << i << " (the view covers bytes " << begin << " to " << end << ")";
    }
}

}  // namespace freedml_test
