// Placed buffers in one heap, as DirectML's clients sub-allocate them (CreateHeap, then
// CreatePlacedResource at 64 KiB offsets). D3D12's "Memory aliasing and data inheritance" page: two
// placed resources over the same bytes of a heap are the same memory, and an aliasing barrier
// between their uses makes the second see what the first wrote (buffers keep their contents).
#include "exec_test.h"

namespace freedml_test {
namespace {

class D3D12ExecPlaced : public ExecTest {
protected:
    ComPtr<ID3D12Heap> MakeHeap(const D3D12_HEAP_PROPERTIES& properties, UINT64 bytes) {
        D3D12_HEAP_DESC desc = {};
        desc.SizeInBytes = bytes;
        desc.Properties = properties;
        desc.Flags = D3D12_HEAP_FLAG_ALLOW_ONLY_BUFFERS;
        ComPtr<ID3D12Heap> heap;
        EXPECT_EQ(device()->CreateHeap(&desc, IID_PPV_ARGS(&heap)), S_OK) << messages().Dump();
        return heap;
    }
    ComPtr<ID3D12Resource> Place(ID3D12Heap* heap, UINT64 offset, UINT64 bytes, D3D12_RESOURCE_STATES state,
                                 D3D12_RESOURCE_FLAGS flags = D3D12_RESOURCE_FLAG_NONE) {
        auto desc = CD3DX12_RESOURCE_DESC::Buffer(bytes, flags);
        ComPtr<ID3D12Resource> buffer;
        EXPECT_EQ(device()->CreatePlacedResource(heap, offset, &desc, state, nullptr, IID_PPV_ARGS(&buffer)), S_OK)
            << messages().Dump();
        return buffer;
    }
};

constexpr UINT64 k64KiB = 65536;

std::vector<uint32_t> Pattern(size_t count, uint32_t seed) {
    std::vector<uint32_t> values(count);
    for (size_t i = 0; i < count; ++i) values[i] = seed * 2654435761u + static_cast<uint32_t>(i) * 40503u;
    return values;
}

// A mappable CUSTOM heap (WRITE_BACK in L0, the readback equivalent on every adapter): what one
// placed buffer's mapping writes, another over the same offset reads; a third at the next 64 KiB
// is separate memory.
TEST_F(D3D12ExecPlaced, AliasedMappableBuffersShareBytes) {
    D3D12_HEAP_PROPERTIES properties = {D3D12_HEAP_TYPE_CUSTOM, D3D12_CPU_PAGE_PROPERTY_WRITE_BACK,
                                        D3D12_MEMORY_POOL_L0, 0, 0};
    auto heap = MakeHeap(properties, 2 * k64KiB);
    ASSERT_TRUE(heap);
    auto first = Place(heap.Get(), 0, 4096, D3D12_RESOURCE_STATE_COPY_DEST);
    auto second = Place(heap.Get(), 0, k64KiB, D3D12_RESOURCE_STATE_COPY_DEST);
    auto third = Place(heap.Get(), k64KiB, 4096, D3D12_RESOURCE_STATE_COPY_DEST);
    ASSERT_TRUE(first && second && third);
    const auto values = Pattern(1024, 7);
    Write(first.Get(), values);
    EXPECT_EQ(Read<uint32_t>(second.Get(), 1024), values);
    Write(third.Get(), Pattern(1024, 9));
    EXPECT_EQ(Read<uint32_t>(first.Get(), 1024), values);  // 64 KiB further is other memory
    // The placed buffer reports the heap's properties, with the node masks D3D12 fills in.
    D3D12_HEAP_PROPERTIES reported = {};
    D3D12_HEAP_FLAGS flags = D3D12_HEAP_FLAG_NONE;
    ASSERT_EQ(second->GetHeapProperties(&reported, &flags), S_OK);
    EXPECT_EQ(reported.Type, D3D12_HEAP_TYPE_CUSTOM);
    EXPECT_EQ(reported.CPUPageProperty, D3D12_CPU_PAGE_PROPERTY_WRITE_BACK);
    EXPECT_EQ(reported.MemoryPoolPreference, D3D12_MEMORY_POOL_L0);
    EXPECT_EQ(messages().Errors(), 0u) << messages().Dump();
}

// A DEFAULT heap: a copy into one placed buffer, an aliasing barrier, then a copy out of another
// placed over the same bytes at a different offset within them.
TEST_F(D3D12ExecPlaced, AliasingBarrierHandsBytesToTheOtherBuffer) {
    auto heap = MakeHeap(CD3DX12_HEAP_PROPERTIES(D3D12_HEAP_TYPE_DEFAULT), 3 * k64KiB);
    ASSERT_TRUE(heap);
    // `wide` spans the first two 64 KiB blocks, `late` the second and `apart` the third.
    auto wide = Place(heap.Get(), 0, 2 * k64KiB, D3D12_RESOURCE_STATE_COMMON, D3D12_RESOURCE_FLAG_ALLOW_UNORDERED_ACCESS);
    auto late = Place(heap.Get(), k64KiB, k64KiB, D3D12_RESOURCE_STATE_COMMON, D3D12_RESOURCE_FLAG_ALLOW_UNORDERED_ACCESS);
    auto apart = Place(heap.Get(), 2 * k64KiB, k64KiB, D3D12_RESOURCE_STATE_COMMON);
    ASSERT_TRUE(wide && late && apart);
    const auto values = Pattern(512, 3);
    auto upload = MakeUpload(device(), 2048);
    auto readback = MakeReadback(device(), 2 * 2048);
    Write(upload.Get(), values);

    Lane lane(device());
    // Into `wide` 64 KiB + 256 bytes in: that is byte 256 of `late`.
    lane.list->CopyBufferRegion(wide.Get(), k64KiB + 256, upload.Get(), 0, 2048);
    D3D12_RESOURCE_BARRIER alias = CD3DX12_RESOURCE_BARRIER::Aliasing(wide.Get(), late.Get());
    lane.list->ResourceBarrier(1, &alias);
    lane.list->CopyBufferRegion(readback.Get(), 0, late.Get(), 256, 2048);
    // `apart` holds its own bytes: a copy into it leaves `late` as it was.
    lane.list->CopyBufferRegion(apart.Get(), 0, upload.Get(), 0, 1024);
    D3D12_RESOURCE_BARRIER none = CD3DX12_RESOURCE_BARRIER::Aliasing(nullptr, nullptr);
    lane.list->ResourceBarrier(1, &none);
    lane.list->CopyBufferRegion(readback.Get(), 2048, late.Get(), 256, 2048);
    lane.Run();
    EXPECT_EQ(Read<uint32_t>(readback.Get(), 512), values);
    EXPECT_EQ(Read<uint32_t>(readback.Get(), 512, 2048), values);
    EXPECT_EQ(messages().Errors(), 0u) << messages().Dump();
}

// CreatePlacedResource's documented limits: the offset is a multiple of the buffer's 64 KiB
// alignment, and the buffer (rounded up to 64 KiB) fits in the heap.
TEST_F(D3D12ExecPlaced, OffsetsAndSizesAreChecked) {
    auto heap = MakeHeap(CD3DX12_HEAP_PROPERTIES(D3D12_HEAP_TYPE_DEFAULT), 2 * k64KiB);
    ASSERT_TRUE(heap);
    auto desc = CD3DX12_RESOURCE_DESC::Buffer(256);
    ComPtr<ID3D12Resource> buffer;
    EXPECT_EQ(device()->CreatePlacedResource(heap.Get(), 256, &desc, D3D12_RESOURCE_STATE_COMMON, nullptr,
                                             IID_PPV_ARGS(&buffer)),
              E_INVALIDARG);
    EXPECT_TRUE(messages().Contains("HeapOffset (256) must be a multiple of 65536")) << messages().Dump();
    desc = CD3DX12_RESOURCE_DESC::Buffer(k64KiB + 1);
    EXPECT_EQ(device()->CreatePlacedResource(heap.Get(), k64KiB, &desc, D3D12_RESOURCE_STATE_COMMON, nullptr,
                                             IID_PPV_ARGS(&buffer)),
              E_INVALIDARG);
    EXPECT_FALSE(buffer);
    EXPECT_EQ(device()->CreatePlacedResource(heap.Get(), 0, &desc, D3D12_RESOURCE_STATE_COMMON, nullptr,
                                             IID_PPV_ARGS(&buffer)),
              S_OK);
}

}  // namespace
}  // namespace freedml_test
