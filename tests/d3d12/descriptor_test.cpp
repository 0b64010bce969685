// Descriptor heaps, buffer views and descriptor copies.
#include <gtest/gtest.h>

#include "d3d12/internal.h"
#include "test_util.h"

using namespace freedml_test;
using freedml::d3d12::Descriptor;

namespace {

class D3D12Descriptors : public ::testing::Test {
protected:
    void SetUp() override {
        device_ = CreateDevice();
        internal_ = freedml::d3d12::GetDeviceInternal(device_);
        visible_ = CreateHeap(D3D12_DESCRIPTOR_HEAP_TYPE_CBV_SRV_UAV, 8, true);
        cpuOnly_ = CreateHeap(D3D12_DESCRIPTOR_HEAP_TYPE_CBV_SRV_UAV, 8, false);
        buffer_ = CreateBuffer(device_, D3D12_HEAP_TYPE_DEFAULT, 4096, D3D12_RESOURCE_FLAG_ALLOW_UNORDERED_ACCESS);
    }
    void TearDown() override {
        buffer_->Release();
        visible_->Release();
        cpuOnly_->Release();
        EXPECT_EQ(device_->Release(), 0u);
    }
    ID3D12DescriptorHeap* CreateHeap(D3D12_DESCRIPTOR_HEAP_TYPE type, UINT count, bool visible) {
        D3D12_DESCRIPTOR_HEAP_DESC desc{
            type, count, visible ? D3D12_DESCRIPTOR_HEAP_FLAG_SHADER_VISIBLE : D3D12_DESCRIPTOR_HEAP_FLAG_NONE, 0};
        ID3D12DescriptorHeap* heap = nullptr;
        EXPECT_EQ(device_->CreateDescriptorHeap(&desc, __uuidof(ID3D12DescriptorHeap), reinterpret_cast<void**>(&heap)),
                  S_OK);
        return heap;
    }
    D3D12_CPU_DESCRIPTOR_HANDLE Cpu(ID3D12DescriptorHeap* heap, UINT index) {
        D3D12_CPU_DESCRIPTOR_HANDLE handle = heap->GetCPUDescriptorHandleForHeapStart();
        handle.ptr += static_cast<SIZE_T>(index) * device_->GetDescriptorHandleIncrementSize(heap->GetDesc().Type);
        return handle;
    }
    Descriptor Read(D3D12_CPU_DESCRIPTOR_HANDLE handle) {
        freedml::d3d12::DescriptorRange range;
        EXPECT_TRUE(internal_->ResolveCpuDescriptor(handle, &range).ok());
        return range.first ? *range.first : Descriptor{};
    }
    D3D12_UNORDERED_ACCESS_VIEW_DESC Uav(UINT64 first, UINT count, DXGI_FORMAT format = DXGI_FORMAT_R32_FLOAT) {
        D3D12_UNORDERED_ACCESS_VIEW_DESC desc{};
        desc.Format = format;
        desc.ViewDimension = D3D12_UAV_DIMENSION_BUFFER;
        desc.Buffer.FirstElement = first;
        desc.Buffer.NumElements = count;
        return desc;
    }

    ID3D12Device* device_ = nullptr;
    freedml::d3d12::DeviceInternal* internal_ = nullptr;
    ID3D12DescriptorHeap* visible_ = nullptr;
    ID3D12DescriptorHeap* cpuOnly_ = nullptr;
    ID3D12Resource* buffer_ = nullptr;
};

TEST_F(D3D12Descriptors, HeapsAndHandles) {
    EXPECT_EQ(device_->GetDescriptorHandleIncrementSize(D3D12_DESCRIPTOR_HEAP_TYPE_CBV_SRV_UAV),
              freedml::d3d12::kCbvSrvUavDescriptorSize);
    EXPECT_GT(device_->GetDescriptorHandleIncrementSize(D3D12_DESCRIPTOR_HEAP_TYPE_SAMPLER), 0u);
    EXPECT_EQ(visible_->GetGPUDescriptorHandleForHeapStart().ptr, visible_->GetCPUDescriptorHandleForHeapStart().ptr);
    EXPECT_EQ(cpuOnly_->GetGPUDescriptorHandleForHeapStart().ptr, 0u);
    EXPECT_EQ(visible_->GetDesc().NumDescriptors, 8u);
    EXPECT_EQ(Read(Cpu(visible_, 3)).kind, Descriptor::Kind::Empty);  // slots start empty

    freedml::d3d12::DescriptorRange range;
    D3D12_GPU_DESCRIPTOR_HANDLE gpu = visible_->GetGPUDescriptorHandleForHeapStart();
    gpu.ptr += 2 * 64;
    ASSERT_TRUE(internal_->ResolveGpuDescriptor(gpu, &range).ok());
    EXPECT_EQ(range.indexInHeap, 2u);
    EXPECT_EQ(range.slotsLeft, 6u);
    gpu.ptr += 1;
    freedml::Status misaligned = internal_->ResolveGpuDescriptor(gpu, &range);
    EXPECT_FALSE(misaligned.ok());
    EXPECT_NE(misaligned.message().find("not a multiple of the descriptor increment"), std::string::npos);
    D3D12_GPU_DESCRIPTOR_HANDLE cpuOnlyAsGpu{cpuOnly_->GetCPUDescriptorHandleForHeapStart().ptr};
    EXPECT_FALSE(internal_->ResolveGpuDescriptor(cpuOnlyAsGpu, &range).ok());
    EXPECT_FALSE(internal_->ResolveCpuDescriptor(D3D12_CPU_DESCRIPTOR_HANDLE{12345}, &range).ok());

    ID3D12DescriptorHeap* samplers = CreateHeap(D3D12_DESCRIPTOR_HEAP_TYPE_SAMPLER, 4, false);
    ID3D12DescriptorHeap* rtvs = CreateHeap(D3D12_DESCRIPTOR_HEAP_TYPE_RTV, 4, false);
    ASSERT_NE(samplers, nullptr);
    ASSERT_NE(rtvs, nullptr);
    samplers->Release();
    rtvs->Release();

    MessageCatcher messages;
    D3D12_DESCRIPTOR_HEAP_DESC bad{D3D12_DESCRIPTOR_HEAP_TYPE_RTV, 4, D3D12_DESCRIPTOR_HEAP_FLAG_SHADER_VISIBLE, 0};
    void* heap = nullptr;
    EXPECT_EQ(device_->CreateDescriptorHeap(&bad, __uuidof(ID3D12DescriptorHeap), &heap), E_INVALIDARG);
    EXPECT_TRUE(messages.Contains("RTV heaps cannot be shader visible")) << messages.All();
    bad = {D3D12_DESCRIPTOR_HEAP_TYPE_CBV_SRV_UAV, 0, D3D12_DESCRIPTOR_HEAP_FLAG_NONE, 0};
    EXPECT_EQ(device_->CreateDescriptorHeap(&bad, __uuidof(ID3D12DescriptorHeap), &heap), E_INVALIDARG);
    bad = {D3D12_DESCRIPTOR_HEAP_TYPE_CBV_SRV_UAV, 2000000, D3D12_DESCRIPTOR_HEAP_FLAG_SHADER_VISIBLE, 0};
    EXPECT_EQ(device_->CreateDescriptorHeap(&bad, __uuidof(ID3D12DescriptorHeap), &heap), E_INVALIDARG);
    bad = {D3D12_DESCRIPTOR_HEAP_TYPE_CBV_SRV_UAV, 0xffffffffu, D3D12_DESCRIPTOR_HEAP_FLAG_NONE, 0};
    EXPECT_EQ(device_->CreateDescriptorHeap(&bad, __uuidof(ID3D12DescriptorHeap), &heap), E_OUTOFMEMORY);
    EXPECT_EQ(device_->CreateDescriptorHeap(nullptr, __uuidof(ID3D12DescriptorHeap), &heap), E_INVALIDARG);
    EXPECT_EQ(heap, nullptr);
}

TEST_F(D3D12Descriptors, BufferViewsAreWritten) {
    auto* resource = freedml::d3d12::GetResourceInternal(buffer_);
    D3D12_UNORDERED_ACCESS_VIEW_DESC uav = Uav(16, 100);
    device_->CreateUnorderedAccessView(buffer_, nullptr, &uav, Cpu(visible_, 1));
    Descriptor written = Read(Cpu(visible_, 1));
    EXPECT_EQ(written.kind, Descriptor::Kind::BufferUav);
    EXPECT_EQ(written.resourceId, resource->Id());
    EXPECT_EQ(written.offsetInBytes, 64u);
    EXPECT_EQ(written.sizeInBytes, 400u);

    D3D12_SHADER_RESOURCE_VIEW_DESC srv{};
    srv.ViewDimension = D3D12_SRV_DIMENSION_BUFFER;
    srv.Format = DXGI_FORMAT_UNKNOWN;
    srv.Shader4ComponentMapping = D3D12_DEFAULT_SHADER_4_COMPONENT_MAPPING;
    srv.Buffer.NumElements = 32;
    srv.Buffer.StructureByteStride = 128;
    device_->CreateShaderResourceView(buffer_, &srv, Cpu(cpuOnly_, 0));
    written = Read(Cpu(cpuOnly_, 0));
    EXPECT_EQ(written.kind, Descriptor::Kind::BufferSrv);
    EXPECT_EQ(written.sizeInBytes, 4096u);
    EXPECT_EQ(written.structureByteStride, 128u);

    D3D12_UNORDERED_ACCESS_VIEW_DESC raw = Uav(4, 8, DXGI_FORMAT_R32_TYPELESS);
    raw.Buffer.Flags = D3D12_BUFFER_UAV_FLAG_RAW;
    device_->CreateUnorderedAccessView(buffer_, nullptr, &raw, Cpu(visible_, 2));
    EXPECT_EQ(Read(Cpu(visible_, 2)).offsetInBytes, 16u);

    D3D12_CONSTANT_BUFFER_VIEW_DESC cbv{buffer_->GetGPUVirtualAddress() + 256, 512};
    device_->CreateConstantBufferView(&cbv, Cpu(visible_, 3));
    written = Read(Cpu(visible_, 3));
    EXPECT_EQ(written.kind, Descriptor::Kind::ConstantBuffer);
    EXPECT_EQ(written.resourceId, resource->Id());
    EXPECT_EQ(written.offsetInBytes, 256u);

    // A null resource with a description is a null view.
    device_->CreateUnorderedAccessView(nullptr, nullptr, &uav, Cpu(visible_, 4));
    written = Read(Cpu(visible_, 4));
    EXPECT_EQ(written.kind, Descriptor::Kind::BufferUav);
    EXPECT_EQ(written.resourceId, 0u);
}

TEST_F(D3D12Descriptors, InvalidViewsReportAndEmptyTheSlot) {
    D3D12_UNORDERED_ACCESS_VIEW_DESC good = Uav(0, 4);
    struct Case {
        const char* name;
        D3D12_UNORDERED_ACCESS_VIEW_DESC desc;
        const char* message;
    };
    auto with = [&](auto change) {
        D3D12_UNORDERED_ACCESS_VIEW_DESC desc = good;
        change(desc);
        return desc;
    };
    const Case cases[] = {
        {"past the end", with([](auto& d) { d.Buffer.FirstElement = 1000; d.Buffer.NumElements = 100; }),
         "does not fit in resource"},
        {"overflow", with([](auto& d) { d.Buffer.FirstElement = UINT64_MAX; }), "does not fit"},
        {"texture", with([](auto& d) { d.ViewDimension = D3D12_UAV_DIMENSION_TEXTURE2D; }),
         "is not D3D12_UAV_DIMENSION_BUFFER"},
        {"no format", with([](auto& d) { d.Format = DXGI_FORMAT_UNKNOWN; }), "StructureByteStride 0"},
        {"odd format", with([](auto& d) { d.Format = DXGI_FORMAT_BC1_UNORM; }), "is not a format of typed buffer"},
        {"raw format", with([](auto& d) { d.Buffer.Flags = D3D12_BUFFER_UAV_FLAG_RAW; }), "R32_TYPELESS"},
        {"zero elements", with([](auto& d) { d.Buffer.NumElements = 0; }), "NumElements is 0"},
    };
    for (const auto& c : cases) {
        device_->CreateUnorderedAccessView(buffer_, nullptr, &good, Cpu(visible_, 0));
        ASSERT_EQ(Read(Cpu(visible_, 0)).kind, Descriptor::Kind::BufferUav);
        MessageCatcher messages;
        device_->CreateUnorderedAccessView(buffer_, nullptr, &c.desc, Cpu(visible_, 0));
        EXPECT_TRUE(messages.Contains(c.message)) << c.name << ": " << messages.All();
        EXPECT_EQ(Read(Cpu(visible_, 0)).kind, Descriptor::Kind::Empty) << c.name;
    }
    MessageCatcher messages;
    buffer_->SetName(L"activations");
    ID3D12Resource* noUav = CreateBuffer(device_, D3D12_HEAP_TYPE_DEFAULT, 64);
    device_->CreateUnorderedAccessView(noUav, nullptr, &good, Cpu(visible_, 0));
    EXPECT_TRUE(messages.Contains("without D3D12_RESOURCE_FLAG_ALLOW_UNORDERED_ACCESS")) << messages.All();
    noUav->Release();
    D3D12_UNORDERED_ACCESS_VIEW_DESC past = with([](auto& d) { d.Buffer.NumElements = 2000; });
    device_->CreateUnorderedAccessView(buffer_, nullptr, &past, Cpu(visible_, 0));
    EXPECT_TRUE(messages.Contains("'activations'")) << messages.All();
    device_->CreateUnorderedAccessView(buffer_, nullptr, &good, D3D12_CPU_DESCRIPTOR_HANDLE{42});
    EXPECT_TRUE(messages.Contains("DestDescriptor (0x2a) is not in any live descriptor heap")) << messages.All();
    device_->CreateUnorderedAccessView(buffer_, nullptr, nullptr, Cpu(visible_, 0));
    EXPECT_TRUE(messages.Contains("pDesc is null")) << messages.All();
    D3D12_CONSTANT_BUFFER_VIEW_DESC cbv{buffer_->GetGPUVirtualAddress(), 100};
    device_->CreateConstantBufferView(&cbv, Cpu(visible_, 0));
    EXPECT_TRUE(messages.Contains("SizeInBytes (100) must be a non-zero multiple of 256")) << messages.All();
    cbv = {buffer_->GetGPUVirtualAddress() + 4096 * 16, 256};
    device_->CreateConstantBufferView(&cbv, Cpu(visible_, 0));
    EXPECT_TRUE(messages.Contains("no live resource")) << messages.All();
}

TEST_F(D3D12Descriptors, CopyDescriptors) {
    for (UINT i = 0; i < 4; ++i) {
        D3D12_UNORDERED_ACCESS_VIEW_DESC uav = Uav(i, 1);
        device_->CreateUnorderedAccessView(buffer_, nullptr, &uav, Cpu(cpuOnly_, i));
    }
    device_->CopyDescriptorsSimple(4, Cpu(visible_, 2), Cpu(cpuOnly_, 0), D3D12_DESCRIPTOR_HEAP_TYPE_CBV_SRV_UAV);
    for (UINT i = 0; i < 4; ++i) EXPECT_EQ(Read(Cpu(visible_, 2 + i)).offsetInBytes, 4u * i);

    // Ranges of different shapes: destinations {1 at 0, 3 at 5}, sources {1 at 3, 3 at 0}.
    D3D12_CPU_DESCRIPTOR_HANDLE destinations[] = {Cpu(visible_, 0), Cpu(visible_, 5)};
    UINT destinationSizes[] = {1, 3};
    D3D12_CPU_DESCRIPTOR_HANDLE sources[] = {Cpu(cpuOnly_, 3), Cpu(cpuOnly_, 0)};
    UINT sourceSizes[] = {1, 3};
    device_->CopyDescriptors(2, destinations, destinationSizes, 2, sources, sourceSizes,
                             D3D12_DESCRIPTOR_HEAP_TYPE_CBV_SRV_UAV);
    EXPECT_EQ(Read(Cpu(visible_, 0)).offsetInBytes, 12u);
    EXPECT_EQ(Read(Cpu(visible_, 5)).offsetInBytes, 0u);
    EXPECT_EQ(Read(Cpu(visible_, 7)).offsetInBytes, 8u);

    MessageCatcher messages;
    device_->CopyDescriptorsSimple(5, Cpu(visible_, 4), Cpu(cpuOnly_, 0), D3D12_DESCRIPTOR_HEAP_TYPE_CBV_SRV_UAV);
    EXPECT_TRUE(messages.Contains("covers 5 descriptors from index 4 of a heap of 8")) << messages.All();
    UINT three = 3;
    UINT two = 2;
    device_->CopyDescriptors(1, destinations, &three, 1, sources, &two, D3D12_DESCRIPTOR_HEAP_TYPE_CBV_SRV_UAV);
    EXPECT_TRUE(messages.Contains("hold 3 descriptors but the source ranges 2")) << messages.All();
    device_->CopyDescriptorsSimple(1, Cpu(visible_, 0), Cpu(cpuOnly_, 0), D3D12_DESCRIPTOR_HEAP_TYPE_SAMPLER);
    EXPECT_TRUE(messages.Contains("not in a heap of type SAMPLER")) << messages.All();
}

TEST_F(D3D12Descriptors, ReleasedHeapsAndResourcesAreNotFound) {
    ID3D12DescriptorHeap* heap = CreateHeap(D3D12_DESCRIPTOR_HEAP_TYPE_CBV_SRV_UAV, 2, true);
    D3D12_CPU_DESCRIPTOR_HANDLE handle = heap->GetCPUDescriptorHandleForHeapStart();
    freedml::d3d12::DescriptorRange range;
    EXPECT_TRUE(internal_->ResolveCpuDescriptor(handle, &range).ok());
    heap->Release();
    EXPECT_FALSE(internal_->ResolveCpuDescriptor(handle, &range).ok());

    ID3D12Resource* resource = CreateBuffer(device_, D3D12_HEAP_TYPE_UPLOAD, 64);
    uint64_t id = freedml::d3d12::GetResourceInternal(resource)->Id();
    EXPECT_NE(internal_->FindResource(id), nullptr);
    resource->Release();
    EXPECT_EQ(internal_->FindResource(id), nullptr);
    EXPECT_EQ(internal_->FindResource(0), nullptr);
}

}  // namespace
