// HelloDirectMLX for Linux: a small graph written with DirectMLX, DirectML's header-only C++ graph
// helper (DirectMLX.h, from Microsoft's DirectML repository; not part of FreeDML), compiled with
// IDMLDevice1::CompileGraph and run through the public D3D12 and DirectML APIs:
//   hidden = RELU(GEMM(x, w)) * 2 + 1, total = REDUCE_SUM(hidden) over the last axis
// with x FLOAT32 {1, 1, 2, 3} and w {1, 1, 3, 2}. It checks both outputs against the same math
// done here, and builds unchanged against FreeDML's libraries (with Clang: DirectMLX.h relies on
// in-class member template specializations that GCC refuses):
//   clang++ -std=c++17 -I<folder of DirectMLX.h> main.cpp $(pkg-config --cflags --libs freedml)
#include <wsl/winadapter.h>
#include <directx/d3d12.h>
#include <directx/d3dx12.h>
#include <dxguids/dxguids.h>
#include <DirectML.h>
#include <wrl/client.h>

#include "DirectMLX.h"

#include <algorithm>
#include <cmath>
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
    // The D3D12 device, a queue, and a list that is executed and waited for.
    ComPtr<ID3D12Device> d3d12;
    CHECK(D3D12CreateDevice(nullptr, D3D_FEATURE_LEVEL_11_0, IID_PPV_ARGS(&d3d12)));
    D3D12_COMMAND_QUEUE_DESC queueDesc{D3D12_COMMAND_LIST_TYPE_COMPUTE, 0, D3D12_COMMAND_QUEUE_FLAG_NONE, 0};
    ComPtr<ID3D12CommandQueue> queue;
    CHECK(d3d12->CreateCommandQueue(&queueDesc, IID_PPV_ARGS(&queue)));
    ComPtr<ID3D12CommandAllocator> allocator;
    CHECK(d3d12->CreateCommandAllocator(D3D12_COMMAND_LIST_TYPE_COMPUTE, IID_PPV_ARGS(&allocator)));
    ComPtr<ID3D12GraphicsCommandList> list;
    CHECK(d3d12->CreateCommandList(0, D3D12_COMMAND_LIST_TYPE_COMPUTE, allocator.Get(), nullptr, IID_PPV_ARGS(&list)));
    ComPtr<ID3D12Fence> fence;
    CHECK(d3d12->CreateFence(0, D3D12_FENCE_FLAG_NONE, IID_PPV_ARGS(&fence)));
    UINT64 fenceValue = 0;
    auto executeAndWait = [&]() -> HRESULT {
        HRESULT hr = list->Close();
        if (FAILED(hr)) return hr;
        ID3D12CommandList* lists[] = {list.Get()};
        queue->ExecuteCommandLists(1, lists);
        if (FAILED(hr = queue->Signal(fence.Get(), ++fenceValue))) return hr;
        if (FAILED(hr = fence->SetEventOnCompletion(fenceValue, nullptr))) return hr;
        if (FAILED(hr = allocator->Reset())) return hr;
        return list->Reset(allocator.Get(), nullptr);
    };
    ComPtr<IDMLDevice> dml;
    CHECK(DMLCreateDevice(d3d12.Get(), DML_CREATE_DEVICE_FLAG_DEBUG, IID_PPV_ARGS(&dml)));

    // The graph, in DirectMLX's expressions.
    dml::Graph graph(dml.Get());
    auto x = dml::InputTensor(graph, 0, dml::TensorDesc(DML_TENSOR_DATA_TYPE_FLOAT32, {1, 1, 2, 3}));
    auto w = dml::InputTensor(graph, 1, dml::TensorDesc(DML_TENSOR_DATA_TYPE_FLOAT32, {1, 1, 3, 2}));
    auto hidden = dml::ActivationRelu(dml::Gemm(x, w)) * 2.0f + 1.0f;
    const uint32_t lastAxis[] = {3};
    auto total = dml::Reduce(hidden, DML_REDUCE_FUNCTION_SUM, lastAxis);
    const dml::Expression outputs[] = {hidden, total};
    ComPtr<IDMLCompiledOperator> compiled = graph.Compile(DML_EXECUTION_FLAG_NONE, outputs);
    if (!compiled) {
        std::fprintf(stderr, "CompileGraph failed.\n");
        return 1;
    }

    // Buffers: x, w, hidden, total, and the graph's temporary and persistent resources.
    const std::vector<float> xValues{1.0f, 2.0f, 3.0f, 0.5f, 0.25f, -1.0f};
    const std::vector<float> wValues{0.5f, -1.0f, 2.0f, 1.0f, -0.5f, 0.25f};
    auto makeBuffer = [&](UINT64 bytes, D3D12_HEAP_TYPE type, D3D12_RESOURCE_STATES state,
                          ComPtr<ID3D12Resource>* out) {
        CD3DX12_HEAP_PROPERTIES properties(type);
        auto desc = CD3DX12_RESOURCE_DESC::Buffer(
            std::max<UINT64>(bytes, 4),
            type == D3D12_HEAP_TYPE_DEFAULT ? D3D12_RESOURCE_FLAG_ALLOW_UNORDERED_ACCESS : D3D12_RESOURCE_FLAG_NONE);
        return d3d12->CreateCommittedResource(&properties, D3D12_HEAP_FLAG_NONE, &desc, state, nullptr,
                                              IID_PPV_ARGS(out->ReleaseAndGetAddressOf()));
    };
    // Tensors live on DEFAULT heaps: inputs arrive through an UPLOAD buffer, outputs leave through a
    // READBACK one.
    ComPtr<ID3D12Resource> upload, xBuffer, wBuffer, hiddenBuffer, totalBuffer, readback;
    CHECK(makeBuffer(48, D3D12_HEAP_TYPE_UPLOAD, D3D12_RESOURCE_STATE_GENERIC_READ, &upload));
    CHECK(makeBuffer(24, D3D12_HEAP_TYPE_DEFAULT, D3D12_RESOURCE_STATE_COPY_DEST, &xBuffer));
    CHECK(makeBuffer(24, D3D12_HEAP_TYPE_DEFAULT, D3D12_RESOURCE_STATE_COPY_DEST, &wBuffer));
    CHECK(makeBuffer(16, D3D12_HEAP_TYPE_DEFAULT, D3D12_RESOURCE_STATE_UNORDERED_ACCESS, &hiddenBuffer));
    CHECK(makeBuffer(8, D3D12_HEAP_TYPE_DEFAULT, D3D12_RESOURCE_STATE_UNORDERED_ACCESS, &totalBuffer));
    CHECK(makeBuffer(24, D3D12_HEAP_TYPE_READBACK, D3D12_RESOURCE_STATE_COPY_DEST, &readback));
    void* staged = nullptr;
    CHECK(upload->Map(0, nullptr, &staged));
    std::memcpy(staged, xValues.data(), 24);
    std::memcpy(static_cast<char*>(staged) + 24, wValues.data(), 24);
    upload->Unmap(0, nullptr);
    list->CopyBufferRegion(xBuffer.Get(), 0, upload.Get(), 0, 24);
    list->CopyBufferRegion(wBuffer.Get(), 0, upload.Get(), 24, 24);
    D3D12_RESOURCE_BARRIER toUav[] = {
        CD3DX12_RESOURCE_BARRIER::Transition(xBuffer.Get(), D3D12_RESOURCE_STATE_COPY_DEST,
                                             D3D12_RESOURCE_STATE_UNORDERED_ACCESS),
        CD3DX12_RESOURCE_BARRIER::Transition(wBuffer.Get(), D3D12_RESOURCE_STATE_COPY_DEST,
                                             D3D12_RESOURCE_STATE_UNORDERED_ACCESS)};
    list->ResourceBarrier(2, toUav);
    const DML_BINDING_PROPERTIES props = compiled->GetBindingProperties();
    ComPtr<ID3D12Resource> temporary, persistent;
    if (props.TemporaryResourceSize) {
        CHECK(makeBuffer(props.TemporaryResourceSize, D3D12_HEAP_TYPE_DEFAULT, D3D12_RESOURCE_STATE_UNORDERED_ACCESS,
                         &temporary));
    }
    if (props.PersistentResourceSize) {
        CHECK(makeBuffer(props.PersistentResourceSize, D3D12_HEAP_TYPE_DEFAULT,
                         D3D12_RESOURCE_STATE_UNORDERED_ACCESS, &persistent));
    }

    // Initialize, then bind and dispatch the graph.
    IDMLCompiledOperator* toInitialize[] = {compiled.Get()};
    ComPtr<IDMLOperatorInitializer> initializer;
    CHECK(dml->CreateOperatorInitializer(1, toInitialize, IID_PPV_ARGS(&initializer)));
    const UINT descriptors =
        std::max(initializer->GetBindingProperties().RequiredDescriptorCount, props.RequiredDescriptorCount);
    D3D12_DESCRIPTOR_HEAP_DESC heapDesc{D3D12_DESCRIPTOR_HEAP_TYPE_CBV_SRV_UAV, descriptors,
                                        D3D12_DESCRIPTOR_HEAP_FLAG_SHADER_VISIBLE, 0};
    ComPtr<ID3D12DescriptorHeap> heap;
    CHECK(d3d12->CreateDescriptorHeap(&heapDesc, IID_PPV_ARGS(&heap)));
    ID3D12DescriptorHeap* heaps[] = {heap.Get()};
    DML_BINDING_TABLE_DESC tableDesc{initializer.Get(), heap->GetCPUDescriptorHandleForHeapStart(),
                                     heap->GetGPUDescriptorHandleForHeapStart(), descriptors};
    ComPtr<IDMLBindingTable> table;
    CHECK(dml->CreateBindingTable(&tableDesc, IID_PPV_ARGS(&table)));
    ComPtr<IDMLCommandRecorder> recorder;
    CHECK(dml->CreateCommandRecorder(IID_PPV_ARGS(&recorder)));
    DML_BUFFER_BINDING persistentBuffer{persistent.Get(), 0, props.PersistentResourceSize};
    DML_BINDING_DESC persistentBinding{persistent ? DML_BINDING_TYPE_BUFFER : DML_BINDING_TYPE_NONE,
                                       persistent ? &persistentBuffer : nullptr};
    table->BindOutputs(1, &persistentBinding);
    list->SetDescriptorHeaps(1, heaps);
    recorder->RecordDispatch(list.Get(), initializer.Get(), table.Get());
    CHECK(executeAndWait());

    tableDesc.Dispatchable = compiled.Get();
    CHECK(table->Reset(&tableDesc));
    DML_BUFFER_BINDING inputBuffers[] = {{xBuffer.Get(), 0, 24}, {wBuffer.Get(), 0, 24}};
    DML_BUFFER_BINDING outputBuffers[] = {{hiddenBuffer.Get(), 0, 16}, {totalBuffer.Get(), 0, 8}};
    DML_BINDING_DESC inputs[] = {{DML_BINDING_TYPE_BUFFER, &inputBuffers[0]}, {DML_BINDING_TYPE_BUFFER, &inputBuffers[1]}};
    DML_BINDING_DESC bound[] = {{DML_BINDING_TYPE_BUFFER, &outputBuffers[0]}, {DML_BINDING_TYPE_BUFFER, &outputBuffers[1]}};
    table->BindInputs(2, inputs);
    table->BindOutputs(2, bound);
    DML_BUFFER_BINDING temporaryBuffer{temporary.Get(), 0, props.TemporaryResourceSize};
    DML_BINDING_DESC temporaryBinding{temporary ? DML_BINDING_TYPE_BUFFER : DML_BINDING_TYPE_NONE,
                                      temporary ? &temporaryBuffer : nullptr};
    table->BindTemporaryResource(&temporaryBinding);
    table->BindPersistentResource(&persistentBinding);
    list->SetDescriptorHeaps(1, heaps);
    recorder->RecordDispatch(list.Get(), compiled.Get(), table.Get());
    D3D12_RESOURCE_BARRIER toCopy[] = {
        CD3DX12_RESOURCE_BARRIER::Transition(hiddenBuffer.Get(), D3D12_RESOURCE_STATE_UNORDERED_ACCESS,
                                             D3D12_RESOURCE_STATE_COPY_SOURCE),
        CD3DX12_RESOURCE_BARRIER::Transition(totalBuffer.Get(), D3D12_RESOURCE_STATE_UNORDERED_ACCESS,
                                             D3D12_RESOURCE_STATE_COPY_SOURCE)};
    list->ResourceBarrier(2, toCopy);
    list->CopyBufferRegion(readback.Get(), 0, hiddenBuffer.Get(), 0, 16);
    list->CopyBufferRegion(readback.Get(), 16, totalBuffer.Get(), 0, 8);
    CHECK(executeAndWait());
    CHECK(d3d12->GetDeviceRemovedReason());

    // The same math here: hidden[i][j] = max(0, sum_k x[i][k] w[k][j]) * 2 + 1; total[i] = sum_j.
    float got[6];
    void* mapped = nullptr;
    CHECK(readback->Map(0, nullptr, &mapped));
    std::memcpy(got, mapped, sizeof(got));
    readback->Unmap(0, nullptr);
    bool same = true;
    for (int i = 0; i < 2; ++i) {
        double rowSum = 0;
        for (int j = 0; j < 2; ++j) {
            double product = 0;
            for (int k = 0; k < 3; ++k) product += double(xValues[i * 3 + k]) * wValues[k * 2 + j];
            const double expected = std::max(0.0, product) * 2 + 1;
            rowSum += expected;
            std::printf("hidden[%d][%d] = %g (expected %g)\n", i, j, got[i * 2 + j], expected);
            same = same && std::fabs(got[i * 2 + j] - expected) < 1e-5;
        }
        std::printf("total[%d] = %g (expected %g)\n", i, got[4 + i], rowSum);
        same = same && std::fabs(got[4 + i] - rowSum) < 1e-5;
    }
    if (!same) {
        std::fprintf(stderr, "HelloDirectMLX: the graph's outputs differ from the expected values.\n");
        return 1;
    }
    std::printf("HelloDirectMLX: the DirectMLX graph's two outputs match.\n");
    return 0;
}
