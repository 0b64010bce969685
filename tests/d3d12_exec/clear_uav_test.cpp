// ClearUnorderedAccessViewUint and ClearUnorderedAccessViewFloat on buffer views (the fill that
// DirectML's clients use): the values each format gets, the validation of their arguments (a bad
// clear fails Close and names what was wrong), and the debug layer's state check at execution.
#include <functional>

#include "exec_test.h"
#include "clear_uav_cases.h"

namespace freedml_test {
namespace {

class D3D12ExecClear : public ExecTest {};

TEST_F(D3D12ExecClear, EveryFormatGetsItsElement) {
    for (const ClearCase& c : ClearCases()) RunClearCase(device(), c);
    EXPECT_EQ(messages().Errors(), 0u) << messages().Dump();
}

// A UAV buffer with its view in a shader-visible heap (slot 0) and a CPU-only heap (slot 0), and a
// second view (raw) in slot 1 of both.
struct ClearSetup {
    ComPtr<ID3D12Resource> buffer, other;
    ComPtr<ID3D12DescriptorHeap> visible, cpuOnly, visible2;
    D3D12_GPU_DESCRIPTOR_HANDLE gpu{}, gpuRaw{};
    D3D12_CPU_DESCRIPTOR_HANDLE cpu{}, cpuRaw{}, visibleCpu{};

    explicit ClearSetup(ID3D12Device* device) {
        CD3DX12_HEAP_PROPERTIES heap(D3D12_HEAP_TYPE_DEFAULT);
        auto desc = CD3DX12_RESOURCE_DESC::Buffer(256, D3D12_RESOURCE_FLAG_ALLOW_UNORDERED_ACCESS);
        EXPECT_EQ(device->CreateCommittedResource(&heap, D3D12_HEAP_FLAG_NONE, &desc, D3D12_RESOURCE_STATE_COMMON,
                                                  nullptr, IID_PPV_ARGS(&buffer)),
                  S_OK);
        buffer->SetName(L"target");
        EXPECT_EQ(device->CreateCommittedResource(&heap, D3D12_HEAP_FLAG_NONE, &desc, D3D12_RESOURCE_STATE_COMMON,
                                                  nullptr, IID_PPV_ARGS(&other)),
                  S_OK);
        D3D12_DESCRIPTOR_HEAP_DESC heapDesc = {D3D12_DESCRIPTOR_HEAP_TYPE_CBV_SRV_UAV, 2,
                                               D3D12_DESCRIPTOR_HEAP_FLAG_SHADER_VISIBLE, 0};
        EXPECT_EQ(device->CreateDescriptorHeap(&heapDesc, IID_PPV_ARGS(&visible)), S_OK);
        EXPECT_EQ(device->CreateDescriptorHeap(&heapDesc, IID_PPV_ARGS(&visible2)), S_OK);
        heapDesc.Flags = D3D12_DESCRIPTOR_HEAP_FLAG_NONE;
        EXPECT_EQ(device->CreateDescriptorHeap(&heapDesc, IID_PPV_ARGS(&cpuOnly)), S_OK);
        visible->SetName(L"visible");
        cpuOnly->SetName(L"cpu-only");
        const UINT step = device->GetDescriptorHandleIncrementSize(D3D12_DESCRIPTOR_HEAP_TYPE_CBV_SRV_UAV);
        gpu = visible->GetGPUDescriptorHandleForHeapStart();
        gpuRaw = {gpu.ptr + step};
        visibleCpu = visible->GetCPUDescriptorHandleForHeapStart();
        cpu = cpuOnly->GetCPUDescriptorHandleForHeapStart();
        cpuRaw = {cpu.ptr + step};
        D3D12_UNORDERED_ACCESS_VIEW_DESC typed = {};
        typed.Format = DXGI_FORMAT_R32_UINT;
        typed.ViewDimension = D3D12_UAV_DIMENSION_BUFFER;
        typed.Buffer.NumElements = 64;
        D3D12_UNORDERED_ACCESS_VIEW_DESC raw = typed;
        raw.Format = DXGI_FORMAT_R32_TYPELESS;
        raw.Buffer.Flags = D3D12_BUFFER_UAV_FLAG_RAW;
        device->CreateUnorderedAccessView(buffer.Get(), nullptr, &typed, visibleCpu);
        device->CreateUnorderedAccessView(buffer.Get(), nullptr, &typed, cpu);
        device->CreateUnorderedAccessView(buffer.Get(), nullptr, &raw, {visibleCpu.ptr + step});
        device->CreateUnorderedAccessView(buffer.Get(), nullptr, &raw, cpuRaw);
    }
};

TEST_F(D3D12ExecClear, BadClearsFailClose) {
    ClearSetup s(device());
    const UINT uints[4] = {1, 2, 3, 4};
    const FLOAT floats[4] = {1, 2, 3, 4};
    const D3D12_RECT rect = {0, 0, 1, 1};
    ComPtr<ID3D12DescriptorHeap> visible = s.visible, visible2 = s.visible2;
    struct Case {
        const char* message;
        std::function<void(ID3D12GraphicsCommandList*)> record;
    } cases[] = {
        {"NumRects is 1: rectangles select parts of a texture",
         [&](ID3D12GraphicsCommandList* l) { l->ClearUnorderedAccessViewUint(s.gpu, s.cpu, s.buffer.Get(), uints, 1, &rect); }},
        {"Values is null",
         [&](ID3D12GraphicsCommandList* l) { l->ClearUnorderedAccessViewUint(s.gpu, s.cpu, s.buffer.Get(), nullptr, 0, nullptr); }},
        {"pResource is null",
         [&](ID3D12GraphicsCommandList* l) { l->ClearUnorderedAccessViewUint(s.gpu, s.cpu, nullptr, uints, 0, nullptr); }},
        {"ViewCPUHandle is in descriptor heap 'visible', which is shader visible",
         [&](ID3D12GraphicsCommandList* l) { l->ClearUnorderedAccessViewUint(s.gpu, s.visibleCpu, s.buffer.Get(), uints, 0, nullptr); }},
        {"the view describes another resource, not pResource (resource 'other'",
         [&](ID3D12GraphicsCommandList* l) {
             s.other->SetName(L"other");
             l->ClearUnorderedAccessViewUint(s.gpu, s.cpu, s.other.Get(), uints, 0, nullptr);
         }},
        {"hold different views; both must describe the view to clear",
         [&](ID3D12GraphicsCommandList* l) { l->ClearUnorderedAccessViewUint(s.gpu, s.cpuRaw, s.buffer.Get(), uints, 0, nullptr); }},
        {"which ClearUnorderedAccessViewFloat does not clear",
         [&](ID3D12GraphicsCommandList* l) { l->ClearUnorderedAccessViewFloat(s.gpuRaw, s.cpuRaw, s.buffer.Get(), floats, 0, nullptr); }},
        {"is a UINT format; ClearUnorderedAccessViewFloat clears FLOAT, UNORM and SNORM formats only",
         [&](ID3D12GraphicsCommandList* l) { l->ClearUnorderedAccessViewFloat(s.gpu, s.cpu, s.buffer.Get(), floats, 0, nullptr); }},
        {"which is not the heap set by SetDescriptorHeaps",
         [&](ID3D12GraphicsCommandList* l) {
             ID3D12DescriptorHeap* heaps[] = {visible2.Get()};
             l->SetDescriptorHeaps(1, heaps);
             l->ClearUnorderedAccessViewUint(s.gpu, s.cpu, s.buffer.Get(), uints, 0, nullptr);
         }},
        {"but no CBV_SRV_UAV heap is set on the list",
         [&](ID3D12GraphicsCommandList* l) {
             l->SetDescriptorHeaps(0, nullptr);
             l->ClearUnorderedAccessViewUint(s.gpu, s.cpu, s.buffer.Get(), uints, 0, nullptr);
         }},
        {"checking ViewGPUHandleInCurrentHeap",
         [&](ID3D12GraphicsCommandList* l) { l->ClearUnorderedAccessViewUint({12345}, s.cpu, s.buffer.Get(), uints, 0, nullptr); }},
    };
    Lane lane(device());
    ASSERT_EQ(lane.list->Close(), S_OK);
    for (const Case& c : cases) {
        messages().Clear();
        ASSERT_EQ(lane.list->Reset(lane.allocator.Get(), nullptr), S_OK);
        ID3D12DescriptorHeap* heaps[] = {visible.Get()};
        lane.list->SetDescriptorHeaps(1, heaps);
        c.record(lane.list.Get());
        EXPECT_EQ(lane.list->Close(), E_INVALIDARG) << c.message;
        EXPECT_TRUE(messages().Contains(c.message)) << c.message << "\n" << messages().Dump();
        EXPECT_TRUE(messages().Contains("While recording ID3D12GraphicsCommandList::ClearUnorderedAccessView"))
            << messages().Dump();
    }

    // A view slot that holds a shader-resource view is no UAV.
    messages().Clear();
    ComPtr<ID3D12DescriptorHeap> srvHeap;
    D3D12_DESCRIPTOR_HEAP_DESC heapDesc = {D3D12_DESCRIPTOR_HEAP_TYPE_CBV_SRV_UAV, 1, D3D12_DESCRIPTOR_HEAP_FLAG_NONE, 0};
    ASSERT_EQ(device()->CreateDescriptorHeap(&heapDesc, IID_PPV_ARGS(&srvHeap)), S_OK);
    D3D12_SHADER_RESOURCE_VIEW_DESC srv = {};
    srv.Format = DXGI_FORMAT_R32_UINT;
    srv.ViewDimension = D3D12_SRV_DIMENSION_BUFFER;
    srv.Shader4ComponentMapping = D3D12_DEFAULT_SHADER_4_COMPONENT_MAPPING;
    srv.Buffer.NumElements = 64;
    device()->CreateShaderResourceView(s.buffer.Get(), &srv, srvHeap->GetCPUDescriptorHandleForHeapStart());
    ASSERT_EQ(lane.list->Reset(lane.allocator.Get(), nullptr), S_OK);
    ID3D12DescriptorHeap* heaps[] = {visible.Get()};
    lane.list->SetDescriptorHeaps(1, heaps);
    lane.list->ClearUnorderedAccessViewUint(s.gpu, srvHeap->GetCPUDescriptorHandleForHeapStart(), s.buffer.Get(),
                                            uints, 0, nullptr);
    EXPECT_EQ(lane.list->Close(), E_INVALIDARG);
    EXPECT_TRUE(messages().Contains("holds no unordered-access view")) << messages().Dump();

    // COPY lists clear nothing.
    messages().Clear();
    Lane copy(device(), D3D12_COMMAND_LIST_TYPE_COPY);
    copy.list->ClearUnorderedAccessViewUint(s.gpu, s.cpu, s.buffer.Get(), uints, 0, nullptr);
    EXPECT_EQ(copy.list->Close(), E_INVALIDARG);
    EXPECT_TRUE(messages().Contains("a COPY command list cannot clear views")) << messages().Dump();
}

// The clear is recorded with the view as it was: the bytes it writes do not follow a later
// rewrite of the CPU-only descriptor (the CPU handle is read when the clear is recorded).
TEST_F(D3D12ExecClear, TheViewIsReadWhenRecorded) {
    ClearSetup s(device());
    Lane lane(device());
    const UINT uints[4] = {0x11111111, 0, 0, 0};
    ID3D12DescriptorHeap* heaps[] = {s.visible.Get()};
    lane.list->SetDescriptorHeaps(1, heaps);
    lane.list->ClearUnorderedAccessViewUint(s.gpu, s.cpu, s.buffer.Get(), uints, 0, nullptr);
    D3D12_UNORDERED_ACCESS_VIEW_DESC half = {};
    half.Format = DXGI_FORMAT_R32_UINT;
    half.ViewDimension = D3D12_UAV_DIMENSION_BUFFER;
    half.Buffer.NumElements = 32;
    device()->CreateUnorderedAccessView(s.buffer.Get(), nullptr, &half, s.cpu);
    auto readback = MakeReadback(device(), 256);
    lane.list->CopyResource(readback.Get(), s.buffer.Get());
    lane.Run();
    const std::vector<uint32_t> words = Read<uint32_t>(readback.Get(), 64);
    EXPECT_EQ(words, std::vector<uint32_t>(64, 0x11111111u));
}

class D3D12ExecClearDebug : public ExecTest {
protected:
    bool DebugLayer() const override { return true; }
};

// The debug layer checks at execution that the buffer is in UNORDERED_ACCESS (a buffer in COMMON
// is promoted to it).
TEST_F(D3D12ExecClearDebug, TheTargetMustBeInUnorderedAccess) {
    ClearSetup s(device());
    const UINT uints[4] = {5, 0, 0, 0};
    Lane lane(device());
    ID3D12DescriptorHeap* heaps[] = {s.visible.Get()};
    lane.list->SetDescriptorHeaps(1, heaps);
    lane.list->ClearUnorderedAccessViewUint(s.gpu, s.cpu, s.buffer.Get(), uints, 0, nullptr);  // promoted from COMMON
    lane.Run();
    EXPECT_EQ(messages().Errors(), 0u) << messages().Dump();

    lane.list->SetDescriptorHeaps(1, heaps);
    auto toCopy = CD3DX12_RESOURCE_BARRIER::Transition(s.buffer.Get(), D3D12_RESOURCE_STATE_UNORDERED_ACCESS,
                                                       D3D12_RESOURCE_STATE_COPY_SOURCE);
    lane.list->ClearUnorderedAccessViewUint(s.gpu, s.cpu, s.buffer.Get(), uints, 0, nullptr);
    lane.list->ResourceBarrier(1, &toCopy);
    lane.list->ClearUnorderedAccessViewUint(s.gpu, s.cpu, s.buffer.Get(), uints, 0, nullptr);
    lane.Run();
    EXPECT_TRUE(messages().Contains("ClearUnorderedAccessViewUint uses resource 'target'")) << messages().Dump();
    EXPECT_TRUE(messages().Contains("as its clear target while it is in state COPY_SOURCE; a clear target must be in "
                                    "UNORDERED_ACCESS"))
        << messages().Dump();
}

}  // namespace
}  // namespace freedml_test
