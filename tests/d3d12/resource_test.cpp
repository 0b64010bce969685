// Heaps and buffers: creation rules, Map, aliasing, GPU addresses, sizes.
#include <gtest/gtest.h>

#include <cstring>

#include "d3d12/internal.h"
#include "test_util.h"

using namespace freedml_test;

namespace {

class D3D12Resource : public ::testing::Test {
protected:
    void SetUp() override { device_ = CreateDevice(); }
    void TearDown() override { EXPECT_EQ(device_->Release(), 0u); }

    HRESULT Committed(const D3D12_HEAP_PROPERTIES& heap, const D3D12_RESOURCE_DESC& desc, D3D12_RESOURCE_STATES state,
                      ID3D12Resource** resource) {
        return device_->CreateCommittedResource(&heap, D3D12_HEAP_FLAG_NONE, &desc, state, nullptr,
                                                __uuidof(ID3D12Resource), reinterpret_cast<void**>(resource));
    }
    ID3D12Heap* CreateHeap(D3D12_HEAP_PROPERTIES properties, UINT64 size) {
        D3D12_HEAP_DESC desc{size, properties, 0, D3D12_HEAP_FLAG_NONE};
        ID3D12Heap* heap = nullptr;
        EXPECT_EQ(device_->CreateHeap(&desc, __uuidof(ID3D12Heap), reinterpret_cast<void**>(&heap)), S_OK);
        return heap;
    }

    ID3D12Device* device_ = nullptr;
};

TEST_F(D3D12Resource, CommittedOnEveryHeapType) {
    struct Case {
        D3D12_HEAP_PROPERTIES heap;
        D3D12_RESOURCE_STATES state;
        bool mappable;
    } cases[] = {
        {HeapProperties(D3D12_HEAP_TYPE_DEFAULT), D3D12_RESOURCE_STATE_COMMON, false},
        {HeapProperties(D3D12_HEAP_TYPE_UPLOAD), D3D12_RESOURCE_STATE_GENERIC_READ, true},
        {HeapProperties(D3D12_HEAP_TYPE_READBACK), D3D12_RESOURCE_STATE_COPY_DEST, true},
        {CustomHeapProperties(D3D12_CPU_PAGE_PROPERTY_WRITE_BACK), D3D12_RESOURCE_STATE_COMMON, true},
        {CustomHeapProperties(D3D12_CPU_PAGE_PROPERTY_WRITE_COMBINE), D3D12_RESOURCE_STATE_COMMON, true},
        {CustomHeapProperties(D3D12_CPU_PAGE_PROPERTY_NOT_AVAILABLE), D3D12_RESOURCE_STATE_COMMON, false},
    };
    for (const auto& c : cases) {
        ID3D12Resource* resource = nullptr;
        ASSERT_EQ(Committed(c.heap, BufferDesc(1000), c.state, &resource), S_OK) << c.heap.Type;
        D3D12_RESOURCE_DESC desc = resource->GetDesc();
        EXPECT_EQ(desc.Width, 1000u);
        EXPECT_EQ(desc.Alignment, 65536u);
        D3D12_HEAP_PROPERTIES properties{};
        D3D12_HEAP_FLAGS flags{};
        EXPECT_EQ(resource->GetHeapProperties(&properties, &flags), S_OK);
        EXPECT_EQ(properties.Type, c.heap.Type);
        EXPECT_NE(resource->GetGPUVirtualAddress(), 0u);
        EXPECT_EQ(freedml::d3d12::GetResourceInternal(resource)->TrackedState(), c.state);
        void* data = nullptr;
        MessageCatcher messages;
        HRESULT hr = resource->Map(0, nullptr, &data);
        if (c.mappable) {
            ASSERT_EQ(hr, S_OK);
            std::vector<unsigned char> zeros(1000, 0);  // committed memory starts zeroed
            EXPECT_EQ(std::memcmp(data, zeros.data(), zeros.size()), 0);
            resource->Unmap(0, nullptr);
        } else {
            EXPECT_EQ(hr, E_INVALIDARG);
            EXPECT_EQ(data, nullptr);
            EXPECT_TRUE(messages.Contains("which the CPU cannot access")) << messages.All();
        }
        EXPECT_EQ(resource->Release(), 0u);
    }
}

TEST_F(D3D12Resource, ResourceInterfaces) {
    ID3D12Resource* resource = CreateBuffer(device_, D3D12_HEAP_TYPE_UPLOAD, 64);
    const GUID iids[] = {__uuidof(IUnknown),       __uuidof(ID3D12Object),    __uuidof(ID3D12DeviceChild),
                         __uuidof(ID3D12Pageable), __uuidof(ID3D12Resource),  __uuidof(ID3D12Resource1),
                         __uuidof(ID3D12Resource2)};
    for (const GUID& iid : iids) {
        IUnknown* object = nullptr;
        ASSERT_EQ(resource->QueryInterface(iid, reinterpret_cast<void**>(&object)), S_OK);
        EXPECT_EQ(object->Release(), 1u);
    }
    void* object = nullptr;
    EXPECT_EQ(resource->QueryInterface(__uuidof(ID3D12Heap), &object), E_NOINTERFACE);
    ID3D12Resource2* resource2 = nullptr;
    ASSERT_EQ(resource->QueryInterface(__uuidof(ID3D12Resource2), reinterpret_cast<void**>(&resource2)), S_OK);
    EXPECT_EQ(resource2->GetDesc1().Width, 64u);
    resource2->Release();
    EXPECT_EQ(resource->Release(), 0u);
}

TEST_F(D3D12Resource, InvalidDescriptionsAreRefusedWithMessages) {
    struct Case {
        const char* name;
        D3D12_RESOURCE_DESC desc;
        HRESULT expected;
        const char* message;
    };
    auto with = [](auto change) {
        D3D12_RESOURCE_DESC desc = BufferDesc(4096);
        change(desc);
        return desc;
    };
    const Case cases[] = {
        {"texture", with([](auto& d) { d.Dimension = D3D12_RESOURCE_DIMENSION_TEXTURE2D; }), E_INVALIDARG,
         "Dimension (D3D12_RESOURCE_DIMENSION_TEXTURE2D) is not supported: FreeDML implements buffers only"},
        {"zero width", with([](auto& d) { d.Width = 0; }), E_INVALIDARG, "Width is 0"},
        {"alignment", with([](auto& d) { d.Alignment = 4096; }), E_INVALIDARG, "Alignment (4096)"},
        {"height", with([](auto& d) { d.Height = 2; }), E_INVALIDARG, "Height (2)"},
        {"format", with([](auto& d) { d.Format = DXGI_FORMAT_R32_FLOAT; }), E_INVALIDARG, "DXGI_FORMAT_UNKNOWN"},
        {"layout", with([](auto& d) { d.Layout = D3D12_TEXTURE_LAYOUT_UNKNOWN; }), E_INVALIDARG, "ROW_MAJOR"},
        {"render target", with([](auto& d) { d.Flags = D3D12_RESOURCE_FLAG_ALLOW_RENDER_TARGET; }), E_INVALIDARG,
         "Flags (0x1)"},
        {"huge", with([](auto& d) { d.Width = UINT64_MAX; }), E_INVALIDARG, "larger than any memory"},
        {"more than memory", with([](auto& d) { d.Width = uint64_t{1} << 55; }), E_OUTOFMEMORY, "physical memory"},
    };
    for (const auto& c : cases) {
        MessageCatcher messages;
        ID3D12Resource* resource = reinterpret_cast<ID3D12Resource*>(1);
        EXPECT_EQ(Committed(HeapProperties(D3D12_HEAP_TYPE_DEFAULT), c.desc, D3D12_RESOURCE_STATE_COMMON, &resource),
                  c.expected)
            << c.name;
        EXPECT_EQ(resource, nullptr) << c.name;
        EXPECT_TRUE(messages.Contains(c.message)) << c.name << ": " << messages.All();
    }
    EXPECT_EQ(device_->CreateCommittedResource(nullptr, D3D12_HEAP_FLAG_NONE, nullptr, D3D12_RESOURCE_STATE_COMMON,
                                               nullptr, __uuidof(ID3D12Resource), nullptr),
              E_INVALIDARG);
}

TEST_F(D3D12Resource, InitialStateRulesAndValidationOnly) {
    MessageCatcher messages;
    ID3D12Resource* resource = nullptr;
    EXPECT_EQ(Committed(HeapProperties(D3D12_HEAP_TYPE_UPLOAD), BufferDesc(64), D3D12_RESOURCE_STATE_COPY_DEST,
                        &resource),
              E_INVALIDARG);
    EXPECT_TRUE(messages.Contains("UPLOAD heap must start in D3D12_RESOURCE_STATE_GENERIC_READ")) << messages.All();
    EXPECT_EQ(Committed(HeapProperties(D3D12_HEAP_TYPE_READBACK), BufferDesc(64), D3D12_RESOURCE_STATE_GENERIC_READ,
                        &resource),
              E_INVALIDARG);
    EXPECT_TRUE(messages.Contains("READBACK heap must start in D3D12_RESOURCE_STATE_COPY_DEST")) << messages.All();
    D3D12_HEAP_PROPERTIES heap = HeapProperties(D3D12_HEAP_TYPE_DEFAULT);
    D3D12_RESOURCE_DESC desc = BufferDesc(64);
    EXPECT_EQ(device_->CreateCommittedResource(&heap, D3D12_HEAP_FLAG_NONE, &desc, D3D12_RESOURCE_STATE_COMMON, nullptr,
                                               __uuidof(ID3D12Resource), nullptr),
              S_FALSE);
    void* object = reinterpret_cast<void*>(1);
    EXPECT_EQ(device_->CreateCommittedResource(&heap, D3D12_HEAP_FLAG_NONE, &desc, D3D12_RESOURCE_STATE_COMMON, nullptr,
                                               __uuidof(ID3D12Heap), &object),
              E_NOINTERFACE);
    EXPECT_EQ(object, nullptr);
    D3D12_HEAP_PROPERTIES custom = CustomHeapProperties(D3D12_CPU_PAGE_PROPERTY_WRITE_BACK);
    custom.MemoryPoolPreference = D3D12_MEMORY_POOL_L1;
    EXPECT_EQ(Committed(custom, desc, D3D12_RESOURCE_STATE_COMMON, &resource), E_INVALIDARG);
    EXPECT_TRUE(messages.Contains("the adapter is UMA and has only L0")) << messages.All();
}

TEST_F(D3D12Resource, MapIsNestedAndWritesPersist) {
    ID3D12Resource* resource = CreateBuffer(device_, D3D12_HEAP_TYPE_UPLOAD, 256);
    void* first = nullptr;
    void* second = nullptr;
    D3D12_RANGE nothing{0, 0};
    ASSERT_EQ(resource->Map(0, &nothing, &first), S_OK);
    ASSERT_EQ(resource->Map(0, nullptr, &second), S_OK);
    EXPECT_EQ(first, second);
    std::memset(first, 0x5a, 256);
    D3D12_RANGE written{0, 256};
    resource->Unmap(0, &written);
    resource->Unmap(0, nullptr);
    EXPECT_EQ(resource->Map(0, nullptr, nullptr), S_OK);  // a map without a pointer is allowed
    resource->Unmap(0, nullptr);
    ASSERT_EQ(resource->Map(0, nullptr, &first), S_OK);
    EXPECT_EQ(static_cast<unsigned char*>(first)[255], 0x5a);
    resource->Unmap(0, nullptr);
    MessageCatcher messages;
    resource->Unmap(0, nullptr);  // not mapped: a warning, no crash
    EXPECT_TRUE(messages.Contains("is not mapped")) << messages.All();
    EXPECT_EQ(resource->Map(1, nullptr, &first), E_INVALIDARG);
    EXPECT_EQ(resource->Release(), 0u);
}

TEST_F(D3D12Resource, HeapsAndPlacedResourcesAlias) {
    ID3D12Heap* heap = CreateHeap(CustomHeapProperties(D3D12_CPU_PAGE_PROPERTY_WRITE_BACK), 4 * 65536);
    ASSERT_NE(heap, nullptr);
    D3D12_HEAP_DESC heapDesc = heap->GetDesc();
    EXPECT_EQ(heapDesc.SizeInBytes, 4u * 65536);
    EXPECT_EQ(heapDesc.Alignment, 65536u);
    D3D12_RESOURCE_DESC desc = BufferDesc(65536);
    ID3D12Resource* a = nullptr;
    ID3D12Resource* b = nullptr;
    ID3D12Resource* c = nullptr;
    ASSERT_EQ(device_->CreatePlacedResource(heap, 65536, &desc, D3D12_RESOURCE_STATE_COMMON, nullptr,
                                            __uuidof(ID3D12Resource), reinterpret_cast<void**>(&a)),
              S_OK);
    ASSERT_EQ(device_->CreatePlacedResource(heap, 65536, &desc, D3D12_RESOURCE_STATE_COMMON, nullptr,
                                            __uuidof(ID3D12Resource), reinterpret_cast<void**>(&b)),
              S_OK);
    ASSERT_EQ(device_->CreatePlacedResource(heap, 0, &desc, D3D12_RESOURCE_STATE_COMMON, nullptr,
                                            __uuidof(ID3D12Resource), reinterpret_cast<void**>(&c)),
              S_OK);
    EXPECT_EQ(a->GetGPUVirtualAddress(), b->GetGPUVirtualAddress());
    EXPECT_EQ(a->GetGPUVirtualAddress(), c->GetGPUVirtualAddress() + 65536);
    auto* ia = freedml::d3d12::GetResourceInternal(a);
    auto* ib = freedml::d3d12::GetResourceInternal(b);
    EXPECT_EQ(ia->HeapId(), ib->HeapId());
    EXPECT_NE(ia->Id(), ib->Id());
    EXPECT_EQ(ia->OffsetInMemory(), 65536u);
    EXPECT_EQ(ia->Memory().Address() + ia->OffsetInMemory(), a->GetGPUVirtualAddress());

    uint32_t* pa = nullptr;
    uint32_t* pb = nullptr;
    ASSERT_EQ(a->Map(0, nullptr, reinterpret_cast<void**>(&pa)), S_OK);
    ASSERT_EQ(b->Map(0, nullptr, reinterpret_cast<void**>(&pb)), S_OK);
    pa[7] = 0xabcdef01;
    EXPECT_EQ(pb[7], 0xabcdef01u);  // the same bytes
    a->Unmap(0, nullptr);
    b->Unmap(0, nullptr);

    EXPECT_EQ(RefCount(heap), 4u);  // placed resources hold their heap
    EXPECT_EQ(heap->Release(), 3u);
    a->Release();
    b->Release();
    EXPECT_EQ(c->Release(), 0u);
}

TEST_F(D3D12Resource, PlacedResourceAndHeapRules) {
    ID3D12Heap* heap = CreateHeap(HeapProperties(D3D12_HEAP_TYPE_DEFAULT), 2 * 65536);
    D3D12_RESOURCE_DESC desc = BufferDesc(65536);
    MessageCatcher messages;
    void* resource = nullptr;
    EXPECT_EQ(device_->CreatePlacedResource(heap, 4096, &desc, D3D12_RESOURCE_STATE_COMMON, nullptr,
                                            __uuidof(ID3D12Resource), &resource),
              E_INVALIDARG);
    EXPECT_TRUE(messages.Contains("HeapOffset (4096) must be a multiple of 65536")) << messages.All();
    desc.Width = 65537;
    EXPECT_EQ(device_->CreatePlacedResource(heap, 65536, &desc, D3D12_RESOURCE_STATE_COMMON, nullptr,
                                            __uuidof(ID3D12Resource), &resource),
              E_INVALIDARG);
    EXPECT_TRUE(messages.Contains("does not fit in heap")) << messages.All();
    EXPECT_EQ(device_->CreatePlacedResource(heap, UINT64_MAX - 65535, &desc, D3D12_RESOURCE_STATE_COMMON, nullptr,
                                            __uuidof(ID3D12Resource), &resource),
              E_INVALIDARG);
    EXPECT_EQ(device_->CreatePlacedResource(nullptr, 0, &desc, D3D12_RESOURCE_STATE_COMMON, nullptr,
                                            __uuidof(ID3D12Resource), &resource),
              E_INVALIDARG);
    EXPECT_EQ(resource, nullptr);
    EXPECT_EQ(heap->Release(), 0u);

    D3D12_HEAP_DESC bad{0, HeapProperties(D3D12_HEAP_TYPE_UPLOAD), 0, D3D12_HEAP_FLAG_NONE};
    EXPECT_EQ(device_->CreateHeap(&bad, __uuidof(ID3D12Heap), &resource), E_INVALIDARG);
    bad.SizeInBytes = 65536;
    bad.Alignment = 100;
    EXPECT_EQ(device_->CreateHeap(&bad, __uuidof(ID3D12Heap), &resource), E_INVALIDARG);
    bad.Alignment = 0;
    bad.Properties.Type = static_cast<D3D12_HEAP_TYPE>(77);
    EXPECT_EQ(device_->CreateHeap(&bad, __uuidof(ID3D12Heap), &resource), E_INVALIDARG);
    bad.Properties.Type = D3D12_HEAP_TYPE_UPLOAD;
    bad.SizeInBytes = UINT64_MAX;
    EXPECT_NE(device_->CreateHeap(&bad, __uuidof(ID3D12Heap), &resource), S_OK);
    bad.SizeInBytes = uint64_t{1} << 55;
    EXPECT_EQ(device_->CreateHeap(&bad, __uuidof(ID3D12Heap), &resource), E_OUTOFMEMORY);
    EXPECT_EQ(device_->CreateHeap(nullptr, __uuidof(ID3D12Heap), &resource), E_INVALIDARG);
    EXPECT_EQ(resource, nullptr);
}

TEST_F(D3D12Resource, AllocationInfoAndFootprints) {
    D3D12_RESOURCE_DESC descs[] = {BufferDesc(1), BufferDesc(65536), BufferDesc(65537)};
    D3D12_RESOURCE_ALLOCATION_INFO info = device_->GetResourceAllocationInfo(0, 1, descs);
    EXPECT_EQ(info.SizeInBytes, 65536u);
    EXPECT_EQ(info.Alignment, 65536u);
    info = device_->GetResourceAllocationInfo(0, 3, descs);
    EXPECT_EQ(info.SizeInBytes, 4u * 65536);
    ID3D12Device4* device4 = nullptr;
    ASSERT_EQ(device_->QueryInterface(__uuidof(ID3D12Device4), reinterpret_cast<void**>(&device4)), S_OK);
    D3D12_RESOURCE_ALLOCATION_INFO1 infos[3];
    info = device4->GetResourceAllocationInfo1(0, 3, descs, infos);
    EXPECT_EQ(info.SizeInBytes, 4u * 65536);
    EXPECT_EQ(infos[1].Offset, 65536u);
    EXPECT_EQ(infos[2].Offset, 2u * 65536);
    EXPECT_EQ(infos[2].SizeInBytes, 2u * 65536);
    device4->Release();
    descs[1].Dimension = D3D12_RESOURCE_DIMENSION_TEXTURE1D;
    EXPECT_EQ(device_->GetResourceAllocationInfo(0, 3, descs).SizeInBytes, UINT64_MAX);

    D3D12_RESOURCE_DESC buffer = BufferDesc(1000);
    D3D12_PLACED_SUBRESOURCE_FOOTPRINT layout{};
    UINT rows = 0;
    UINT64 rowSize = 0, total = 0;
    device_->GetCopyableFootprints(&buffer, 0, 1, 512, &layout, &rows, &rowSize, &total);
    EXPECT_EQ(layout.Offset, 512u);
    EXPECT_EQ(layout.Footprint.Width, 1000u);
    EXPECT_EQ(layout.Footprint.Height, 1u);
    EXPECT_EQ(layout.Footprint.RowPitch, 1024u);
    EXPECT_EQ(rows, 1u);
    EXPECT_EQ(rowSize, 1000u);
    EXPECT_EQ(total, 1000u);
    device_->GetCopyableFootprints(&buffer, 1, 1, 0, &layout, &rows, &rowSize, &total);
    EXPECT_EQ(total, UINT64_MAX);
}

}  // namespace
