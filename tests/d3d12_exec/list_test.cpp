// ID3D12CommandAllocator and ID3D12GraphicsCommandList: recording, Close/Reset rules, validation of
// copies and barriers, unsupported methods, interfaces and references.
#include "exec_test.h"

#include "d3d12/internal.h"

namespace freedml_test {
namespace {

class D3D12ExecList : public ExecTest {};

TEST_F(D3D12ExecList, AllocatorCreationAndInterfaces) {
    ComPtr<ID3D12CommandAllocator> allocator;
    EXPECT_EQ(device()->CreateCommandAllocator(static_cast<D3D12_COMMAND_LIST_TYPE>(99), IID_PPV_ARGS(&allocator)),
              E_INVALIDARG);
    EXPECT_TRUE(messages().Contains("type (99)")) << messages().Dump();
    EXPECT_EQ(device()->CreateCommandAllocator(D3D12_COMMAND_LIST_TYPE_BUNDLE, IID_PPV_ARGS(&allocator)), E_NOTIMPL);
    EXPECT_EQ(device()->CreateCommandAllocator(D3D12_COMMAND_LIST_TYPE_COPY, __uuidof(ID3D12CommandAllocator), nullptr),
              S_FALSE);
    ASSERT_EQ(device()->CreateCommandAllocator(D3D12_COMMAND_LIST_TYPE_COMPUTE, IID_PPV_ARGS(&allocator)), S_OK);
    ComPtr<ID3D12Pageable> pageable;
    ComPtr<ID3D12CommandList> notAList;
    EXPECT_EQ(allocator.As(&pageable), S_OK);
    EXPECT_EQ(allocator.As(&notAList), E_NOINTERFACE);
    ComPtr<ID3D12Device> owner;
    ASSERT_EQ(allocator->GetDevice(IID_PPV_ARGS(&owner)), S_OK);
    EXPECT_EQ(owner.Get(), device());
    EXPECT_EQ(allocator->SetName(L"frame allocator"), S_OK);
    UINT size = 0;
    const GUID debugObjectNameW = {0x4cca5fd8, 0x921f, 0x42c8, {0x85, 0x66, 0x70, 0xca, 0xf2, 0xa9, 0xb7, 0x41}};
    EXPECT_EQ(allocator->GetPrivateData(debugObjectNameW, &size, nullptr), S_OK);
    EXPECT_EQ(size, sizeof(L"frame allocator"));
    EXPECT_EQ(allocator->Reset(), S_OK);  // nothing recorded
}

TEST_F(D3D12ExecList, AllocatorResetRules) {
    Lane lane(device());
    lane.allocator->SetName(L"alloc");
    lane.list->SetName(L"recorder");
    EXPECT_EQ(lane.allocator->Reset(), E_FAIL);
    EXPECT_TRUE(messages().Contains("while command list 'recorder' (DIRECT) recorded on it is open")) << messages().Dump();
    ASSERT_EQ(lane.list->Close(), S_OK);
    EXPECT_EQ(lane.allocator->Reset(), S_OK);

    // In flight: the queue waits on a fence before running the list.
    ASSERT_EQ(lane.list->Reset(lane.allocator.Get(), nullptr), S_OK);
    ASSERT_EQ(lane.list->Close(), S_OK);
    ComPtr<ID3D12Fence> gate;
    ASSERT_EQ(device()->CreateFence(0, D3D12_FENCE_FLAG_NONE, IID_PPV_ARGS(&gate)), S_OK);
    ASSERT_EQ(lane.queue->Wait(gate.Get(), 1), S_OK);
    lane.Execute();
    messages().Clear();
    EXPECT_EQ(lane.allocator->Reset(), E_FAIL);
    EXPECT_TRUE(messages().Contains("command allocator 'alloc' (DIRECT) cannot be reset while command lists recorded "
                                    "on it may still be executing"))
        << messages().Dump();
    // The list itself may be reset meanwhile (onto another allocator), as in D3D12.
    ComPtr<ID3D12CommandAllocator> other;
    ASSERT_EQ(device()->CreateCommandAllocator(D3D12_COMMAND_LIST_TYPE_DIRECT, IID_PPV_ARGS(&other)), S_OK);
    EXPECT_EQ(lane.list->Reset(other.Get(), nullptr), S_OK);
    EXPECT_EQ(lane.list->Close(), S_OK);
    gate->Signal(1);
    lane.Wait();
    EXPECT_EQ(lane.allocator->Reset(), S_OK);
}

TEST_F(D3D12ExecList, CreationIsValidated) {
    ComPtr<ID3D12CommandAllocator> direct, copy;
    ASSERT_EQ(device()->CreateCommandAllocator(D3D12_COMMAND_LIST_TYPE_DIRECT, IID_PPV_ARGS(&direct)), S_OK);
    ASSERT_EQ(device()->CreateCommandAllocator(D3D12_COMMAND_LIST_TYPE_COPY, IID_PPV_ARGS(&copy)), S_OK);
    ComPtr<ID3D12GraphicsCommandList> list;
    EXPECT_EQ(device()->CreateCommandList(0, D3D12_COMMAND_LIST_TYPE_DIRECT, nullptr, nullptr, IID_PPV_ARGS(&list)),
              E_INVALIDARG);
    EXPECT_TRUE(messages().Contains("pCommandAllocator is null")) << messages().Dump();
    EXPECT_EQ(device()->CreateCommandList(0, D3D12_COMMAND_LIST_TYPE_DIRECT, copy.Get(), nullptr, IID_PPV_ARGS(&list)),
              E_INVALIDARG);
    EXPECT_TRUE(messages().Contains("is not of the list's type DIRECT")) << messages().Dump();
    EXPECT_EQ(device()->CreateCommandList(4, D3D12_COMMAND_LIST_TYPE_DIRECT, direct.Get(), nullptr, IID_PPV_ARGS(&list)),
              E_INVALIDARG);
    EXPECT_TRUE(messages().Contains("nodeMask (0x4)")) << messages().Dump();
    EXPECT_EQ(device()->CreateCommandList(0, D3D12_COMMAND_LIST_TYPE_BUNDLE, direct.Get(), nullptr, IID_PPV_ARGS(&list)),
              E_NOTIMPL);

    ASSERT_EQ(device()->CreateCommandList(0, D3D12_COMMAND_LIST_TYPE_DIRECT, direct.Get(), nullptr, IID_PPV_ARGS(&list)),
              S_OK);
    ComPtr<ID3D12GraphicsCommandList> second;
    EXPECT_EQ(device()->CreateCommandList(0, D3D12_COMMAND_LIST_TYPE_DIRECT, direct.Get(), nullptr,
                                          IID_PPV_ARGS(&second)),
              E_INVALIDARG);
    EXPECT_TRUE(messages().Contains("is in use by command list (DIRECT), which is still open")) << messages().Dump();
    EXPECT_EQ(list->GetType(), D3D12_COMMAND_LIST_TYPE_DIRECT);

    // ID3D12Device4::CreateCommandList1: closed, without an allocator.
    ComPtr<ID3D12Device4> device4;
    ASSERT_EQ(device_.As(&device4), S_OK);
    ComPtr<ID3D12GraphicsCommandList> closed;
    ASSERT_EQ(device4->CreateCommandList1(0, D3D12_COMMAND_LIST_TYPE_COPY, D3D12_COMMAND_LIST_FLAG_NONE,
                                          IID_PPV_ARGS(&closed)),
              S_OK);
    EXPECT_EQ(closed->Close(), E_FAIL);
    EXPECT_TRUE(messages().Contains("is already closed")) << messages().Dump();
    EXPECT_EQ(closed->Reset(copy.Get(), nullptr), S_OK);
    EXPECT_EQ(closed->Close(), S_OK);
    EXPECT_EQ(device4->CreateCommandList1(0, D3D12_COMMAND_LIST_TYPE_COPY, static_cast<D3D12_COMMAND_LIST_FLAGS>(1),
                                          IID_PPV_ARGS(&closed)),
              E_INVALIDARG);
}

TEST_F(D3D12ExecList, CloseAndResetRules) {
    Lane lane(device());
    lane.list->SetName(L"L");
    EXPECT_EQ(lane.list->Reset(lane.allocator.Get(), nullptr), E_FAIL);
    EXPECT_TRUE(messages().Contains("Reset of command list 'L' (DIRECT): the list is open")) << messages().Dump();
    EXPECT_EQ(lane.list->Close(), S_OK);
    EXPECT_EQ(lane.list->Close(), E_FAIL);
    EXPECT_EQ(lane.list->Reset(nullptr, nullptr), E_INVALIDARG);
    EXPECT_TRUE(messages().Contains("pAllocator is null")) << messages().Dump();
    ComPtr<ID3D12CommandAllocator> copy;
    ASSERT_EQ(device()->CreateCommandAllocator(D3D12_COMMAND_LIST_TYPE_COPY, IID_PPV_ARGS(&copy)), S_OK);
    EXPECT_EQ(lane.list->Reset(copy.Get(), nullptr), E_INVALIDARG);
    EXPECT_EQ(lane.list->Reset(lane.allocator.Get(), nullptr), S_OK);

    // Recording on a closed list is dropped with a message.
    ASSERT_EQ(lane.list->Close(), S_OK);
    auto buffer = MakeUpload(device(), 4);
    auto readback = MakeReadback(device(), 4);
    lane.list->CopyResource(readback.Get(), buffer.Get());
    EXPECT_TRUE(messages().Contains("CopyResource: command list 'L' (DIRECT) is closed; the call is dropped"))
        << messages().Dump();
}

TEST_F(D3D12ExecList, QueryInterfaceForEveryVersion) {
    Lane lane(device());
    ID3D12GraphicsCommandList* base = lane.list.Get();
    auto same = [&](REFIID iid) {
        void* pointer = nullptr;
        HRESULT hr = base->QueryInterface(iid, &pointer);
        if (FAILED(hr)) return false;
        static_cast<IUnknown*>(pointer)->Release();
        return pointer == static_cast<void*>(base);
    };
    EXPECT_TRUE(same(__uuidof(IUnknown)));
    EXPECT_TRUE(same(__uuidof(ID3D12Object)));
    EXPECT_TRUE(same(__uuidof(ID3D12DeviceChild)));
    EXPECT_TRUE(same(__uuidof(ID3D12CommandList)));
    EXPECT_TRUE(same(__uuidof(ID3D12GraphicsCommandList)));
    EXPECT_TRUE(same(__uuidof(ID3D12GraphicsCommandList1)));
    EXPECT_TRUE(same(__uuidof(ID3D12GraphicsCommandList2)));
    EXPECT_TRUE(same(__uuidof(ID3D12GraphicsCommandList3)));
    EXPECT_TRUE(same(__uuidof(ID3D12GraphicsCommandList4)));
    EXPECT_TRUE(same(__uuidof(ID3D12GraphicsCommandList5)));
    EXPECT_TRUE(same(__uuidof(ID3D12GraphicsCommandList6)));
    EXPECT_TRUE(same(__uuidof(ID3D12GraphicsCommandList7)));
    EXPECT_TRUE(same(__uuidof(ID3D12GraphicsCommandList8)));
    void* pointer = nullptr;
    EXPECT_EQ(base->QueryInterface(__uuidof(ID3D12Device), &pointer), E_NOINTERFACE);
    EXPECT_EQ(pointer, nullptr);
    EXPECT_EQ(base->QueryInterface(__uuidof(ID3D12Device), nullptr), E_POINTER);

    // The private interface is borrowed: no reference is taken.
    ULONG references = base->AddRef() - 1;
    base->Release();
    freedml::d3d12::CommandListInternal* internal = freedml::d3d12::GetCommandListInternal(base);
    ASSERT_NE(internal, nullptr);
    EXPECT_EQ(base->AddRef() - 1, references);
    base->Release();
    EXPECT_EQ(internal->PublicCommandList(), base);
    EXPECT_TRUE(internal->IsOpen());
    EXPECT_EQ(internal->Type(), D3D12_COMMAND_LIST_TYPE_DIRECT);
    EXPECT_EQ(internal->CurrentDescriptorHeap(), nullptr);
    ComPtr<ID3D12Device> owner;
    ASSERT_EQ(lane.list->GetDevice(IID_PPV_ARGS(&owner)), S_OK);
    EXPECT_EQ(owner.Get(), device());
}

TEST_F(D3D12ExecList, CopyBufferRegionIsValidated) {
    Lane lane(device());
    auto a = MakeUpload(device(), 64, L"a");
    auto b = MakeBuffer(device(), D3D12_HEAP_TYPE_DEFAULT, 32, D3D12_RESOURCE_STATE_COMMON, L"b");
    struct Case {
        ID3D12Resource* dst;
        UINT64 dstOffset;
        ID3D12Resource* src;
        UINT64 srcOffset;
        UINT64 bytes;
        const char* message;
    } cases[] = {
        {b.Get(), 16, a.Get(), 0, 17, "DstOffset (16) + NumBytes (17) is past the end of pDstBuffer resource 'b'"},
        {b.Get(), 0, a.Get(), 60, 8, "SrcOffset (60) + NumBytes (8) is past the end of pSrcBuffer resource 'a'"},
        {b.Get(), UINT64_MAX, a.Get(), 0, 2, "DstOffset (18446744073709551615)"},
        {nullptr, 0, a.Get(), 0, 4, "pDstBuffer is null"},
        {b.Get(), 0, nullptr, 0, 4, "pSrcBuffer is null"},
        {b.Get(), 0, b.Get(), 8, 16, "overlap in memory"},
    };
    ASSERT_EQ(lane.list->Close(), S_OK);
    for (const Case& c : cases) {
        messages().Clear();
        ASSERT_EQ(lane.list->Reset(lane.allocator.Get(), nullptr), S_OK);
        lane.list->CopyBufferRegion(c.dst, c.dstOffset, c.src, c.srcOffset, c.bytes);
        EXPECT_EQ(lane.list->Close(), E_INVALIDARG) << c.message;
        EXPECT_TRUE(messages().Contains(c.message)) << c.message << "\n" << messages().Dump();
        EXPECT_TRUE(messages().Contains("While recording ID3D12GraphicsCommandList::CopyBufferRegion on command list"))
            << messages().Dump();
    }
    // Two ranges of one buffer that do not overlap copy fine.
    messages().Clear();
    ASSERT_EQ(lane.list->Reset(lane.allocator.Get(), nullptr), S_OK);
    auto upload = MakeUpload(device(), 16);
    Write(upload.Get(), std::vector<uint32_t>{1, 2, 3, 4});
    auto readback = MakeReadback(device(), 16);
    lane.list->CopyBufferRegion(b.Get(), 0, upload.Get(), 0, 8);
    lane.list->CopyBufferRegion(b.Get(), 8, b.Get(), 0, 8);
    lane.list->CopyBufferRegion(readback.Get(), 0, b.Get(), 0, 16);
    lane.list->CopyBufferRegion(readback.Get(), 0, b.Get(), 0, 0);  // zero bytes: nothing
    lane.Run();
    EXPECT_EQ(Read<uint32_t>(readback.Get(), 4), (std::vector<uint32_t>{1, 2, 1, 2}));
    EXPECT_EQ(messages().Errors(), 0u) << messages().Dump();
}

TEST_F(D3D12ExecList, CopyResourceIsValidated) {
    Lane lane(device());
    auto a = MakeUpload(device(), 64);
    auto b = MakeReadback(device(), 32);
    lane.list->CopyResource(b.Get(), a.Get());
    EXPECT_EQ(lane.list->Close(), E_INVALIDARG);
    EXPECT_TRUE(messages().Contains("differ in size")) << messages().Dump();
    ASSERT_EQ(lane.list->Reset(lane.allocator.Get(), nullptr), S_OK);
    lane.list->CopyResource(a.Get(), a.Get());
    EXPECT_EQ(lane.list->Close(), E_INVALIDARG);
    EXPECT_TRUE(messages().Contains("are the same resource")) << messages().Dump();
}

TEST_F(D3D12ExecList, BarriersAreValidated) {
    auto buffer = MakeBuffer(device(), D3D12_HEAP_TYPE_DEFAULT, 64, D3D12_RESOURCE_STATE_COMMON, L"buf");
    auto transition = [&](D3D12_RESOURCE_STATES before, D3D12_RESOURCE_STATES after) {
        return CD3DX12_RESOURCE_BARRIER::Transition(buffer.Get(), before, after);
    };
    struct Case {
        D3D12_COMMAND_LIST_TYPE type;
        D3D12_RESOURCE_BARRIER barrier;
        const char* message;
    };
    D3D12_RESOURCE_BARRIER badType = CD3DX12_RESOURCE_BARRIER::UAV(nullptr);
    badType.Type = static_cast<D3D12_RESOURCE_BARRIER_TYPE>(7);
    D3D12_RESOURCE_BARRIER nullResource = transition(D3D12_RESOURCE_STATE_COMMON, D3D12_RESOURCE_STATE_COPY_DEST);
    nullResource.Transition.pResource = nullptr;
    D3D12_RESOURCE_BARRIER bothHalves = transition(D3D12_RESOURCE_STATE_COMMON, D3D12_RESOURCE_STATE_COPY_DEST);
    bothHalves.Flags = D3D12_RESOURCE_BARRIER_FLAG_BEGIN_ONLY | D3D12_RESOURCE_BARRIER_FLAG_END_ONLY;
    D3D12_RESOURCE_BARRIER subresource = transition(D3D12_RESOURCE_STATE_COMMON, D3D12_RESOURCE_STATE_COPY_DEST);
    subresource.Transition.Subresource = 3;
    // Not a D3D12_RESOURCE_STATES value: stored as bytes (loading it as the enum is undefined).
    D3D12_RESOURCE_BARRIER unknownBits = transition(D3D12_RESOURCE_STATE_COMMON, D3D12_RESOURCE_STATE_COPY_DEST);
    const UINT unknownState = 0x20000000;
    std::memcpy(&unknownBits.Transition.StateBefore, &unknownState, sizeof(unknownState));
    D3D12_RESOURCE_BARRIER uavFlags = CD3DX12_RESOURCE_BARRIER::UAV(buffer.Get());
    uavFlags.Flags = D3D12_RESOURCE_BARRIER_FLAG_END_ONLY;
    const Case cases[] = {
        {D3D12_COMMAND_LIST_TYPE_DIRECT, badType, "pBarriers[0].Type (7)"},
        {D3D12_COMMAND_LIST_TYPE_DIRECT, nullResource, "pBarriers[0].Transition.pResource is null"},
        {D3D12_COMMAND_LIST_TYPE_DIRECT, bothHalves, "both BEGIN_ONLY and END_ONLY"},
        {D3D12_COMMAND_LIST_TYPE_DIRECT, subresource, "Subresource (3) is out of range"},
        {D3D12_COMMAND_LIST_TYPE_DIRECT, uavFlags, "must be NONE for a UAV barrier"},
        {D3D12_COMMAND_LIST_TYPE_DIRECT,
         transition(D3D12_RESOURCE_STATE_COPY_DEST, D3D12_RESOURCE_STATE_COPY_DEST), "StateBefore and StateAfter must differ"},
        {D3D12_COMMAND_LIST_TYPE_DIRECT,
         transition(D3D12_RESOURCE_STATE_COMMON,
                    static_cast<D3D12_RESOURCE_STATES>(D3D12_RESOURCE_STATE_COPY_DEST |
                                                       D3D12_RESOURCE_STATE_UNORDERED_ACCESS)),
         "StateAfter (UNORDERED_ACCESS|COPY_DEST) combines a write state"},
        {D3D12_COMMAND_LIST_TYPE_DIRECT, unknownBits,
         "StateBefore (0x20000000) has bits that are not D3D12_RESOURCE_STATES"},
        {D3D12_COMMAND_LIST_TYPE_COPY,
         transition(D3D12_RESOURCE_STATE_COMMON, D3D12_RESOURCE_STATE_UNORDERED_ACCESS),
         "is not available on a COPY command list"},
    };
    for (const Case& c : cases) {
        messages().Clear();
        Lane lane(device(), c.type);
        lane.list->ResourceBarrier(1, &c.barrier);
        EXPECT_EQ(lane.list->Close(), E_INVALIDARG) << c.message;
        EXPECT_TRUE(messages().Contains(c.message)) << c.message << "\n" << messages().Dump();
    }
    // Valid forms: UAV and aliasing barriers without resources, a split transition, none at all.
    messages().Clear();
    Lane lane(device());
    D3D12_RESOURCE_BARRIER valid[] = {
        CD3DX12_RESOURCE_BARRIER::UAV(nullptr),
        CD3DX12_RESOURCE_BARRIER::UAV(buffer.Get()),
        CD3DX12_RESOURCE_BARRIER::Aliasing(nullptr, nullptr),
        transition(D3D12_RESOURCE_STATE_COMMON, D3D12_RESOURCE_STATE_GENERIC_READ),
    };
    lane.list->ResourceBarrier(4, valid);
    lane.list->ResourceBarrier(0, nullptr);
    EXPECT_EQ(lane.list->Close(), S_OK) << messages().Dump();
    lane.Execute();
    lane.Wait();
    ASSERT_EQ(lane.allocator->Reset(), S_OK);
    ASSERT_EQ(lane.list->Reset(lane.allocator.Get(), nullptr), S_OK);
    lane.list->ResourceBarrier(2, nullptr);
    EXPECT_EQ(lane.list->Close(), E_INVALIDARG);
    EXPECT_TRUE(messages().Contains("pBarriers is null with NumBarriers 2")) << messages().Dump();
}

TEST_F(D3D12ExecList, DescriptorHeapsAreRemembered) {
    Lane lane(device());
    D3D12_DESCRIPTOR_HEAP_DESC desc = {D3D12_DESCRIPTOR_HEAP_TYPE_CBV_SRV_UAV, 8,
                                       D3D12_DESCRIPTOR_HEAP_FLAG_SHADER_VISIBLE, 0};
    ComPtr<ID3D12DescriptorHeap> heap, hidden;
    ASSERT_EQ(device()->CreateDescriptorHeap(&desc, IID_PPV_ARGS(&heap)), S_OK);
    desc.Flags = D3D12_DESCRIPTOR_HEAP_FLAG_NONE;
    ASSERT_EQ(device()->CreateDescriptorHeap(&desc, IID_PPV_ARGS(&hidden)), S_OK);
    auto* internal = freedml::d3d12::GetCommandListInternal(lane.list.Get());
    ASSERT_NE(internal, nullptr);
    ID3D12DescriptorHeap* heaps[] = {heap.Get()};
    lane.list->SetDescriptorHeaps(1, heaps);
    EXPECT_EQ(internal->CurrentDescriptorHeap(), heap.Get());
    lane.list->SetDescriptorHeaps(0, nullptr);
    EXPECT_EQ(internal->CurrentDescriptorHeap(), nullptr);
    lane.list->SetDescriptorHeaps(1, heaps);
    lane.list->ClearState(nullptr);
    EXPECT_EQ(internal->CurrentDescriptorHeap(), nullptr);
    EXPECT_EQ(lane.list->Close(), S_OK);

    ASSERT_EQ(lane.list->Reset(lane.allocator.Get(), nullptr), S_OK);
    ID3D12DescriptorHeap* invisible[] = {hidden.Get()};
    lane.list->SetDescriptorHeaps(1, invisible);
    EXPECT_EQ(lane.list->Close(), E_INVALIDARG);
    EXPECT_TRUE(messages().Contains("ppDescriptorHeaps[0] is not shader visible")) << messages().Dump();

    Lane copy(device(), D3D12_COMMAND_LIST_TYPE_COPY);
    copy.list->SetDescriptorHeaps(1, heaps);
    EXPECT_EQ(copy.list->Close(), E_INVALIDARG);
    EXPECT_TRUE(messages().Contains("a COPY command list has no descriptor heaps")) << messages().Dump();
}

TEST_F(D3D12ExecList, MethodsOutsideTheSubsetFailClose) {
    Lane lane(device());
    lane.list->SetMarker(0, nullptr, 0);  // markers are fine
    lane.list->BeginEvent(0, nullptr, 0);
    lane.list->EndEvent();
    lane.list->SetPredication(nullptr, 0, D3D12_PREDICATION_OP_EQUAL_ZERO);  // turning it off is a no-op
    lane.list->Dispatch(1, 1, 1);
    lane.list->DrawInstanced(3, 1, 0, 0);
    EXPECT_EQ(lane.list->Close(), E_INVALIDARG);
    EXPECT_TRUE(messages().Contains("ID3D12GraphicsCommandList::Dispatch: recorded on command list (DIRECT), is "
                                    "outside FreeDML's compute subset"))
        << messages().Dump();
    EXPECT_TRUE(messages().Contains("ID3D12GraphicsCommandList::Dispatch is not implemented")) << messages().Dump();

    // Newer interface versions too.
    ComPtr<ID3D12GraphicsCommandList6> list6;
    ASSERT_EQ(lane.list.As(&list6), S_OK);
    ASSERT_EQ(lane.list->Reset(lane.allocator.Get(), nullptr), S_OK);
    list6->DispatchMesh(1, 1, 1);
    EXPECT_EQ(list6->Close(), E_INVALIDARG);
    EXPECT_TRUE(messages().Contains("DispatchMesh")) << messages().Dump();
}

TEST_F(D3D12ExecList, CommandsKeepTheirResourcesAlive) {
    Lane lane(device());
    auto readback = MakeReadback(device(), 8);
    {
        auto upload = MakeUpload(device(), 8);
        Write(upload.Get(), std::vector<uint32_t>{21, 22});
        lane.list->CopyResource(readback.Get(), upload.Get());
        ULONG references = upload->AddRef() - 1;
        upload->Release();
        EXPECT_EQ(references, 2u);  // ours and the command's
    }  // the application lets go of the upload buffer
    lane.Run();
    EXPECT_EQ(Read<uint32_t>(readback.Get(), 2), (std::vector<uint32_t>{21, 22}));
    // Reset dropped the command, and with it the reference.
    ULONG references = readback->AddRef() - 1;
    readback->Release();
    EXPECT_EQ(references, 1u);
}

TEST_F(D3D12ExecList, RecordTakesCommandsFromOtherLibraries) {
    struct Counter final : freedml::d3d12::Command {
        int* runs;
        explicit Counter(int* r) : runs(r) {}
        void Execute(freedml::d3d12::ExecutionContext&) override { ++*runs; }
        const char* Name() const override { return "counter"; }
    };
    int runs = 0;
    Lane lane(device());
    auto* internal = freedml::d3d12::GetCommandListInternal(lane.list.Get());
    internal->Record(std::make_unique<Counter>(&runs));
    internal->Record(std::make_unique<Counter>(&runs));
    lane.Run();
    EXPECT_EQ(runs, 2);
    internal->FailRecording("DML said no.");
    EXPECT_EQ(lane.list->Close(), E_INVALIDARG);
    EXPECT_TRUE(messages().Contains("DML said no.")) << messages().Dump();
}

}  // namespace
}  // namespace freedml_test
