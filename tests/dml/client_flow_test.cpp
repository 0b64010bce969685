// What DirectML's clients (ONNX Runtime's DirectML provider, the TensorFlow-DirectML plugin) record
// around their operators, in one command list: a buffer fill with ClearUnorderedAccessViewUint,
// two dispatches over placed buffers of one heap, and between them a CopyBufferRegion fenced by
// UAV barriers and state transitions. The queue runs the commands in order, so the second dispatch
// reads what the first wrote and the copy moved.
#include "dml_fixture.h"

namespace freedml_test {
namespace {

constexpr UINT64 k64KiB = 65536;

TEST_F(DmlTest, DispatchCopyDispatchInOneCommandList) {
    Tensor tensor(DML_TENSOR_DATA_TYPE_FLOAT32, {1, 1, 4, 4});  // 64 bytes
    DML_SCALE_BIAS scaleBias{2.0f, 0.5f};
    DML_ELEMENT_WISE_IDENTITY_OPERATOR_DESC desc{&tensor.desc, &tensor.desc, &scaleBias};
    auto op = Compile(DML_OPERATOR_ELEMENT_WISE_IDENTITY, &desc);
    ASSERT_TRUE(op);
    auto persistent = Initialize(op.Get());

    // Three placed buffers of 256 bytes, one per 64 KiB of a DEFAULT heap.
    D3D12_HEAP_DESC heapDesc{3 * k64KiB, CD3DX12_HEAP_PROPERTIES(D3D12_HEAP_TYPE_DEFAULT), 0,
                             D3D12_HEAP_FLAG_ALLOW_ONLY_BUFFERS};
    ComPtr<ID3D12Heap> memory;
    ASSERT_EQ(d3d->CreateHeap(&heapDesc, IID_PPV_ARGS(&memory)), S_OK) << Messages();
    auto bufferDesc = CD3DX12_RESOURCE_DESC::Buffer(256, D3D12_RESOURCE_FLAG_ALLOW_UNORDERED_ACCESS);
    ComPtr<ID3D12Resource> in, mid, out;
    for (auto [buffer, offset] : {std::pair{&in, UINT64{0}}, {&mid, k64KiB}, {&out, 2 * k64KiB}}) {
        ASSERT_EQ(d3d->CreatePlacedResource(memory.Get(), offset, &bufferDesc, D3D12_RESOURCE_STATE_COMMON, nullptr,
                                            IID_PPV_ARGS(buffer)),
                  S_OK)
            << Messages();
    }
    std::vector<float> x(16);
    for (size_t i = 0; i < x.size(); ++i) x[i] = 0.25f * static_cast<float>(i) - 2.0f;
    Upload(in.Get(), x);

    // out: every 32-bit word set to a marker through an R32_UINT view (its CPU handle in a
    // non-shader-visible heap, as D3D12 requires of the clear's second handle).
    const UINT kClearSlot = 200;
    D3D12_DESCRIPTOR_HEAP_DESC cpuHeapDesc{D3D12_DESCRIPTOR_HEAP_TYPE_CBV_SRV_UAV, 1, D3D12_DESCRIPTOR_HEAP_FLAG_NONE, 0};
    ComPtr<ID3D12DescriptorHeap> cpuHeap;
    ASSERT_EQ(d3d->CreateDescriptorHeap(&cpuHeapDesc, IID_PPV_ARGS(&cpuHeap)), S_OK);
    D3D12_UNORDERED_ACCESS_VIEW_DESC view{};
    view.Format = DXGI_FORMAT_R32_UINT;
    view.ViewDimension = D3D12_UAV_DIMENSION_BUFFER;
    view.Buffer.NumElements = 64;
    CD3DX12_CPU_DESCRIPTOR_HANDLE visibleCpu(heap->GetCPUDescriptorHandleForHeapStart(), kClearSlot, descriptorSize);
    CD3DX12_GPU_DESCRIPTOR_HANDLE visibleGpu(heap->GetGPUDescriptorHandleForHeapStart(), kClearSlot, descriptorSize);
    d3d->CreateUnorderedAccessView(out.Get(), nullptr, &view, visibleCpu);
    d3d->CreateUnorderedAccessView(out.Get(), nullptr, &view, cpuHeap->GetCPUDescriptorHandleForHeapStart());

    // Two binding tables at different descriptors: both are read when the list runs.
    auto first = Table(op.Get(), 0);
    auto second = Table(op.Get(), 16);
    DML_BUFFER_BINDING firstIn{in.Get(), 0, 64}, firstOut{mid.Get(), 0, 64};
    DML_BUFFER_BINDING secondIn{in.Get(), 128, 64}, secondOut{out.Get(), 64, 64};
    DML_BINDING_DESC bindings[] = {BufferBinding(&firstIn), BufferBinding(&firstOut), BufferBinding(&secondIn),
                                   BufferBinding(&secondOut)};
    first->BindInputs(1, &bindings[0]);
    first->BindOutputs(1, &bindings[1]);
    second->BindInputs(1, &bindings[2]);
    second->BindOutputs(1, &bindings[3]);
    ASSERT_EQ(op->GetBindingProperties().TemporaryResourceSize, 0u);
    if (persistent) {
        DML_BUFFER_BINDING p{persistent.Get(), 0, op->GetBindingProperties().PersistentResourceSize};
        DML_BINDING_DESC binding = BufferBinding(&p);
        first->BindPersistentResource(&binding);
        second->BindPersistentResource(&binding);
    }

    ID3D12DescriptorHeap* heaps[] = {heap.Get()};
    list->SetDescriptorHeaps(1, heaps);
    auto toUav = [](ID3D12Resource* r) {
        return CD3DX12_RESOURCE_BARRIER::Transition(r, D3D12_RESOURCE_STATE_COMMON,
                                                    D3D12_RESOURCE_STATE_UNORDERED_ACCESS);
    };
    D3D12_RESOURCE_BARRIER start[] = {toUav(in.Get()), toUav(mid.Get()), toUav(out.Get())};
    list->ResourceBarrier(3, start);
    const UINT marker[4] = {0xc0ffee11u, 1, 2, 3};  // a UINT view takes Values[0]
    list->ClearUnorderedAccessViewUint(visibleGpu, cpuHeap->GetCPUDescriptorHandleForHeapStart(), out.Get(), marker, 0,
                                       nullptr);
    D3D12_RESOURCE_BARRIER uavOut = CD3DX12_RESOURCE_BARRIER::UAV(out.Get());
    list->ResourceBarrier(1, &uavOut);
    recorder->RecordDispatch(list.Get(), op.Get(), first.Get());  // mid = 2x + 0.5
    D3D12_RESOURCE_BARRIER afterFirst[] = {
        CD3DX12_RESOURCE_BARRIER::UAV(mid.Get()),
        CD3DX12_RESOURCE_BARRIER::Transition(mid.Get(), D3D12_RESOURCE_STATE_UNORDERED_ACCESS,
                                             D3D12_RESOURCE_STATE_COPY_SOURCE),
        CD3DX12_RESOURCE_BARRIER::Transition(in.Get(), D3D12_RESOURCE_STATE_UNORDERED_ACCESS,
                                             D3D12_RESOURCE_STATE_COPY_DEST),
    };
    list->ResourceBarrier(3, afterFirst);
    list->CopyBufferRegion(in.Get(), 128, mid.Get(), 0, 64);
    D3D12_RESOURCE_BARRIER afterCopy[] = {
        CD3DX12_RESOURCE_BARRIER::Transition(in.Get(), D3D12_RESOURCE_STATE_COPY_DEST,
                                             D3D12_RESOURCE_STATE_UNORDERED_ACCESS),
        CD3DX12_RESOURCE_BARRIER::Transition(mid.Get(), D3D12_RESOURCE_STATE_COPY_SOURCE,
                                             D3D12_RESOURCE_STATE_UNORDERED_ACCESS),
        CD3DX12_RESOURCE_BARRIER::UAV(nullptr),
    };
    list->ResourceBarrier(3, afterCopy);
    recorder->RecordDispatch(list.Get(), op.Get(), second.Get());  // out[64..128) = 2 mid + 0.5
    D3D12_RESOURCE_BARRIER end[] = {
        CD3DX12_RESOURCE_BARRIER::UAV(out.Get()),
        CD3DX12_RESOURCE_BARRIER::Transition(out.Get(), D3D12_RESOURCE_STATE_UNORDERED_ACCESS,
                                             D3D12_RESOURCE_STATE_COPY_SOURCE),
    };
    list->ResourceBarrier(2, end);
    ExecuteAndWait();
    ASSERT_FALSE(DeviceRemoved()) << Messages();

    // y = 2 (2x + 0.5) + 0.5 = 4x + 1.5, exact in FLOAT32 for these x.
    auto words = ReadbackAs<uint32_t>(out.Get(), 64);
    for (size_t i = 0; i < 64; ++i) {
        if (i >= 16 && i < 32) {
            float y;
            std::memcpy(&y, &words[i], sizeof(y));
            EXPECT_EQ(y, 4.0 * x[i - 16] + 1.5) << "element " << i - 16;
        } else {
            EXPECT_EQ(words[i], 0xc0ffee11u) << "word " << i << " lies outside the second dispatch's output";
        }
    }
    EXPECT_EQ(ReadbackAs<float>(in.Get(), 16), x);  // the first input is untouched
}

}  // namespace
}  // namespace freedml_test
