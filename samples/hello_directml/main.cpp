// HelloDirectML for Linux: the classic first DirectML program, an ELEMENT_WISE_IDENTITY over a
// FLOAT32 {1, 2, 3, 4} tensor, written against the public D3D12 and DirectML APIs only. It builds
// unchanged against FreeDML's libraries:
//   g++ main.cpp $(pkg-config --cflags --libs freedml)
#include <wsl/winadapter.h>
#include <directx/d3d12.h>
#include <directx/d3dx12.h>
#include <dxguids/dxguids.h>
#include <DirectML.h>
#include <freedml/helpers.h>
#include <wrl/client.h>

#include <cstdio>
#include <cstring>
#include <vector>

using Microsoft::WRL::ComPtr;

#define CHECK(call)                                                                           \
    do {                                                                                      \
        HRESULT hr_ = (call);                                                                 \
        if (FAILED(hr_)) {                                                                    \
            std::fprintf(stderr, "%s failed: 0x%08x\n", #call, static_cast<unsigned>(hr_));  \
            return 1;                                                                         \
        }                                                                                     \
    } while (0)

int main() {
    // 1. The D3D12 device and what runs work on it.
    ComPtr<ID3D12Device> d3d12;
    CHECK(D3D12CreateDevice(nullptr, D3D_FEATURE_LEVEL_11_0, IID_PPV_ARGS(&d3d12)));
    D3D12_COMMAND_QUEUE_DESC queueDesc{D3D12_COMMAND_LIST_TYPE_DIRECT, 0, D3D12_COMMAND_QUEUE_FLAG_NONE, 0};
    ComPtr<ID3D12CommandQueue> queue;
    CHECK(d3d12->CreateCommandQueue(&queueDesc, IID_PPV_ARGS(&queue)));
    ComPtr<ID3D12CommandAllocator> allocator;
    CHECK(d3d12->CreateCommandAllocator(D3D12_COMMAND_LIST_TYPE_DIRECT, IID_PPV_ARGS(&allocator)));
    ComPtr<ID3D12GraphicsCommandList> list;
    CHECK(d3d12->CreateCommandList(0, D3D12_COMMAND_LIST_TYPE_DIRECT, allocator.Get(), nullptr, IID_PPV_ARGS(&list)));
    ComPtr<ID3D12Fence> fence;
    CHECK(d3d12->CreateFence(0, D3D12_FENCE_FLAG_NONE, IID_PPV_ARGS(&fence)));
    UINT64 fenceValue = 0;
    auto executeAndWait = [&]() -> HRESULT {
        HRESULT hr = list->Close();
        if (FAILED(hr)) return hr;
        ID3D12CommandList* lists[] = {list.Get()};
        queue->ExecuteCommandLists(1, lists);
        if (FAILED(hr = queue->Signal(fence.Get(), ++fenceValue))) return hr;
        if (FAILED(hr = fence->SetEventOnCompletion(fenceValue, nullptr))) return hr;  // null event: block
        if (FAILED(hr = allocator->Reset())) return hr;
        return list->Reset(allocator.Get(), nullptr);
    };

    // 2. The DirectML device, with its validation on.
    ComPtr<IDMLDevice> dml;
    CHECK(DMLCreateDevice(d3d12.Get(), DML_CREATE_DEVICE_FLAG_DEBUG, IID_PPV_ARGS(&dml)));

    // 3. The operator: y = x over a FLOAT32 {1, 2, 3, 4} tensor (96 bytes).
    const UINT sizes[4] = {1, 2, 3, 4};
    DML_BUFFER_TENSOR_DESC buffer{DML_TENSOR_DATA_TYPE_FLOAT32, DML_TENSOR_FLAG_NONE, 4, sizes, nullptr,
                                  DMLCalcBufferTensorSize(DML_TENSOR_DATA_TYPE_FLOAT32, 4, sizes, nullptr), 0};
    DML_TENSOR_DESC tensor{DML_TENSOR_TYPE_BUFFER, &buffer};
    DML_ELEMENT_WISE_IDENTITY_OPERATOR_DESC identity{&tensor, &tensor, nullptr};
    DML_OPERATOR_DESC opDesc{DML_OPERATOR_ELEMENT_WISE_IDENTITY, &identity};
    ComPtr<IDMLOperator> op;
    CHECK(dml->CreateOperator(&opDesc, IID_PPV_ARGS(&op)));
    ComPtr<IDMLCompiledOperator> compiled;
    CHECK(dml->CompileOperator(op.Get(), DML_EXECUTION_FLAG_NONE, IID_PPV_ARGS(&compiled)));

    // 4. Descriptors for the initializer and the operator, in one shader-visible heap.
    IDMLCompiledOperator* toInitialize[] = {compiled.Get()};
    ComPtr<IDMLOperatorInitializer> initializer;
    CHECK(dml->CreateOperatorInitializer(1, toInitialize, IID_PPV_ARGS(&initializer)));
    DML_BINDING_PROPERTIES initProps = initializer->GetBindingProperties();
    DML_BINDING_PROPERTIES execProps = compiled->GetBindingProperties();
    UINT descriptorCount = std::max(initProps.RequiredDescriptorCount, execProps.RequiredDescriptorCount);
    D3D12_DESCRIPTOR_HEAP_DESC heapDesc{D3D12_DESCRIPTOR_HEAP_TYPE_CBV_SRV_UAV, descriptorCount,
                                        D3D12_DESCRIPTOR_HEAP_FLAG_SHADER_VISIBLE, 0};
    ComPtr<ID3D12DescriptorHeap> heap;
    CHECK(d3d12->CreateDescriptorHeap(&heapDesc, IID_PPV_ARGS(&heap)));
    ID3D12DescriptorHeap* heaps[] = {heap.Get()};
    list->SetDescriptorHeaps(1, heaps);
    DML_BINDING_TABLE_DESC tableDesc{initializer.Get(), heap->GetCPUDescriptorHandleForHeapStart(),
                                     heap->GetGPUDescriptorHandleForHeapStart(), descriptorCount};
    ComPtr<IDMLBindingTable> table;
    CHECK(dml->CreateBindingTable(&tableDesc, IID_PPV_ARGS(&table)));

    ComPtr<IDMLCommandRecorder> recorder;
    CHECK(dml->CreateCommandRecorder(IID_PPV_ARGS(&recorder)));

    // 5. Initialize (identity owns no weights and needs no persistent resource).
    recorder->RecordDispatch(list.Get(), initializer.Get(), table.Get());
    CHECK(executeAndWait());

    // 6. Buffers: input and output on the DEFAULT heap, data in through an UPLOAD buffer.
    const UINT64 bytes = buffer.TotalTensorSizeInBytes;
    auto makeBuffer = [&](D3D12_HEAP_TYPE type, D3D12_RESOURCE_STATES state, ComPtr<ID3D12Resource>* out) {
        CD3DX12_HEAP_PROPERTIES properties(type);
        auto desc = CD3DX12_RESOURCE_DESC::Buffer(
            bytes, type == D3D12_HEAP_TYPE_DEFAULT ? D3D12_RESOURCE_FLAG_ALLOW_UNORDERED_ACCESS : D3D12_RESOURCE_FLAG_NONE);
        return d3d12->CreateCommittedResource(&properties, D3D12_HEAP_FLAG_NONE, &desc, state, nullptr,
                                              IID_PPV_ARGS(out->ReleaseAndGetAddressOf()));
    };
    ComPtr<ID3D12Resource> upload, input, output, readback;
    CHECK(makeBuffer(D3D12_HEAP_TYPE_UPLOAD, D3D12_RESOURCE_STATE_GENERIC_READ, &upload));
    CHECK(makeBuffer(D3D12_HEAP_TYPE_DEFAULT, D3D12_RESOURCE_STATE_COPY_DEST, &input));
    CHECK(makeBuffer(D3D12_HEAP_TYPE_DEFAULT, D3D12_RESOURCE_STATE_UNORDERED_ACCESS, &output));
    CHECK(makeBuffer(D3D12_HEAP_TYPE_READBACK, D3D12_RESOURCE_STATE_COPY_DEST, &readback));

    std::vector<float> values(24);
    for (size_t i = 0; i < values.size(); ++i) values[i] = 1.618f * static_cast<float>(i);
    D3D12_SUBRESOURCE_DATA data{values.data(), static_cast<LONG_PTR>(bytes), static_cast<LONG_PTR>(bytes)};
    UpdateSubresources(list.Get(), input.Get(), upload.Get(), 0, 0, 1, &data);
    auto toUav = CD3DX12_RESOURCE_BARRIER::Transition(input.Get(), D3D12_RESOURCE_STATE_COPY_DEST,
                                                      D3D12_RESOURCE_STATE_UNORDERED_ACCESS);
    list->ResourceBarrier(1, &toUav);

    // 7. Bind and dispatch the operator. (Resetting the list cleared its descriptor heaps.)
    list->SetDescriptorHeaps(1, heaps);
    tableDesc.Dispatchable = compiled.Get();
    CHECK(table->Reset(&tableDesc));
    DML_BUFFER_BINDING inputBuffer{input.Get(), 0, bytes}, outputBuffer{output.Get(), 0, bytes};
    DML_BINDING_DESC inputBinding{DML_BINDING_TYPE_BUFFER, &inputBuffer};
    DML_BINDING_DESC outputBinding{DML_BINDING_TYPE_BUFFER, &outputBuffer};
    table->BindInputs(1, &inputBinding);
    table->BindOutputs(1, &outputBinding);
    recorder->RecordDispatch(list.Get(), compiled.Get(), table.Get());

    // 8. Copy the result out and read it.
    auto toCopy = CD3DX12_RESOURCE_BARRIER::Transition(output.Get(), D3D12_RESOURCE_STATE_UNORDERED_ACCESS,
                                                       D3D12_RESOURCE_STATE_COPY_SOURCE);
    list->ResourceBarrier(1, &toCopy);
    list->CopyResource(readback.Get(), output.Get());
    CHECK(executeAndWait());
    CHECK(d3d12->GetDeviceRemovedReason());

    float* result = nullptr;
    D3D12_RANGE readRange{0, static_cast<SIZE_T>(bytes)};
    CHECK(readback->Map(0, &readRange, reinterpret_cast<void**>(&result)));
    std::printf("output tensor:");
    bool same = true;
    for (size_t i = 0; i < values.size(); ++i) {
        std::printf(" %.3f", result[i]);
        same = same && result[i] == values[i];
    }
    std::printf("\n");
    D3D12_RANGE nothingWritten{0, 0};
    readback->Unmap(0, &nothingWritten);
    if (!same) {
        std::fprintf(stderr, "The output differs from the input.\n");
        return 1;
    }
    std::printf("HelloDirectML: the identity operator copied all %zu elements.\n", values.size());
    return 0;
}
