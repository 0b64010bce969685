// The cost of binding and validating N inputs through the public API: a JOIN of N FLOAT32
// {1,1,1,4} tensors, all on one DEFAULT buffer at disjoint 16-byte aligned offsets, the output
// after them. Measured: IDMLBindingTable::BindInputs alone, and BindInputs + BindOutputs (each
// call checks every rule on its bindings and the hazards over everything bound, H1-H7). The
// fitted complexity must come out no worse than N log N.
#include <wsl/winadapter.h>
#include <directx/d3d12.h>
#include <directx/d3dx12.h>
#include <dxguids/dxguids.h>
#include <DirectML.h>
#include <wrl/client.h>

#include <benchmark/benchmark.h>

#include <cstdio>
#include <memory>
#include <vector>

namespace {

using Microsoft::WRL::ComPtr;

// Everything one JOIN of `count` inputs needs, made once per benchmark run.
struct JoinSetup {
    ComPtr<ID3D12Device> d3d;
    ComPtr<IDMLDevice> dml;
    ComPtr<ID3D12DescriptorHeap> heap;
    ComPtr<IDMLCompiledOperator> op;
    ComPtr<IDMLBindingTable> table;
    ComPtr<ID3D12Resource> buffer;
    std::vector<DML_BUFFER_BINDING> buffers;
    std::vector<DML_BINDING_DESC> inputs;
    DML_BUFFER_BINDING outputBuffer{};
    DML_BINDING_DESC output{};
    bool ok = false;

    explicit JoinSetup(UINT count) {
        if (FAILED(D3D12CreateDevice(nullptr, D3D_FEATURE_LEVEL_11_0, IID_PPV_ARGS(&d3d)))) return;
        if (FAILED(DMLCreateDevice(d3d.Get(), DML_CREATE_DEVICE_FLAG_NONE, IID_PPV_ARGS(&dml)))) return;

        UINT inSizes[4] = {1, 1, 1, 4}, outSizes[4] = {1, 1, 1, 4 * count};
        DML_BUFFER_TENSOR_DESC in{DML_TENSOR_DATA_TYPE_FLOAT32, DML_TENSOR_FLAG_NONE, 4, inSizes, nullptr, 16, 0};
        DML_BUFFER_TENSOR_DESC out{DML_TENSOR_DATA_TYPE_FLOAT32, DML_TENSOR_FLAG_NONE, 4, outSizes, nullptr,
                                   UINT64(16) * count, 0};
        DML_TENSOR_DESC inDesc{DML_TENSOR_TYPE_BUFFER, &in}, outDesc{DML_TENSOR_TYPE_BUFFER, &out};
        std::vector<DML_TENSOR_DESC> inDescs(count, inDesc);
        DML_JOIN_OPERATOR_DESC join{count, inDescs.data(), &outDesc, 3};
        DML_OPERATOR_DESC opDesc{DML_OPERATOR_JOIN, &join};
        ComPtr<IDMLOperator> created;
        if (FAILED(dml->CreateOperator(&opDesc, IID_PPV_ARGS(&created)))) return;
        if (FAILED(dml->CompileOperator(created.Get(), DML_EXECUTION_FLAG_NONE, IID_PPV_ARGS(&op)))) return;

        const UINT descriptors = op->GetBindingProperties().RequiredDescriptorCount;
        D3D12_DESCRIPTOR_HEAP_DESC heapDesc{D3D12_DESCRIPTOR_HEAP_TYPE_CBV_SRV_UAV, descriptors,
                                            D3D12_DESCRIPTOR_HEAP_FLAG_SHADER_VISIBLE, 0};
        if (FAILED(d3d->CreateDescriptorHeap(&heapDesc, IID_PPV_ARGS(&heap)))) return;
        DML_BINDING_TABLE_DESC tableDesc{op.Get(), heap->GetCPUDescriptorHandleForHeapStart(),
                                         heap->GetGPUDescriptorHandleForHeapStart(), descriptors};
        if (FAILED(dml->CreateBindingTable(&tableDesc, IID_PPV_ARGS(&table)))) return;

        // One buffer: the inputs at 16 * i, the output after them.
        const UINT64 bytes = UINT64(32) * count;
        CD3DX12_HEAP_PROPERTIES properties(D3D12_HEAP_TYPE_DEFAULT);
        auto resourceDesc = CD3DX12_RESOURCE_DESC::Buffer(bytes, D3D12_RESOURCE_FLAG_ALLOW_UNORDERED_ACCESS);
        if (FAILED(d3d->CreateCommittedResource(&properties, D3D12_HEAP_FLAG_NONE, &resourceDesc,
                                                D3D12_RESOURCE_STATE_COMMON, nullptr, IID_PPV_ARGS(&buffer)))) {
            return;
        }
        buffers.resize(count);
        inputs.resize(count);
        for (UINT i = 0; i < count; ++i) {
            buffers[i] = {buffer.Get(), UINT64(16) * i, 16};
            inputs[i] = {DML_BINDING_TYPE_BUFFER, &buffers[i]};
        }
        outputBuffer = {buffer.Get(), UINT64(16) * count, UINT64(16) * count};
        output = {DML_BINDING_TYPE_BUFFER, &outputBuffer};
        ok = true;
    }

    bool Removed() { return d3d->GetDeviceRemovedReason() != S_OK; }
};

void Finish(benchmark::State& state, JoinSetup& setup, UINT count) {
    if (setup.Removed()) state.SkipWithError("the device was removed: a binding was refused");
    state.SetComplexityN(count);
    // Seconds per input (shown as a time per input).
    state.counters["per_input"] = benchmark::Counter(double(count), benchmark::Counter::kIsIterationInvariantRate |
                                                                        benchmark::Counter::kInvert);
}

void BM_BindInputs(benchmark::State& state) {
    const UINT count = static_cast<UINT>(state.range(0));
    JoinSetup setup(count);
    if (!setup.ok) {
        state.SkipWithError("setting up the JOIN failed");
        return;
    }
    for (auto _ : state) {
        setup.table->BindInputs(count, setup.inputs.data());
        benchmark::ClobberMemory();
    }
    Finish(state, setup, count);
}

void BM_BindInputsAndOutputs(benchmark::State& state) {
    const UINT count = static_cast<UINT>(state.range(0));
    JoinSetup setup(count);
    if (!setup.ok) {
        state.SkipWithError("setting up the JOIN failed");
        return;
    }
    for (auto _ : state) {
        setup.table->BindInputs(count, setup.inputs.data());
        setup.table->BindOutputs(1, &setup.output);
        benchmark::ClobberMemory();
    }
    Finish(state, setup, count);
}

BENCHMARK(BM_BindInputs)->RangeMultiplier(10)->Range(10, 10000)->Complexity(benchmark::oNLogN);
BENCHMARK(BM_BindInputsAndOutputs)->RangeMultiplier(10)->Range(10, 10000)->Complexity(benchmark::oNLogN);

}  // namespace

BENCHMARK_MAIN();
