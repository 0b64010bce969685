// What the API-level benchmarks share (gpu_bench.cpp on CUDA, operator_bench.cpp on any adapter):
// packed buffer tensors, and a Bench that owns a D3D12 device, queue, command list and descriptor
// heap with a DirectML device over them, prepares a compiled and initialized operator with its
// bindings, and times recorded dispatches as an application sees them (ExecuteCommandLists to the
// fence, host clock). The adapter is D3D12CreateDevice's default: FREEDML_ADAPTER picks it.
#pragma once

#include <wsl/winadapter.h>
#include <wsl/wrladapter.h>
#include <directx/d3d12.h>
#include <directx/d3dx12.h>
#include <dxguids/dxguids.h>
#include <DirectML.h>
#include <freedml/helpers.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <tuple>
#include <vector>

using Microsoft::WRL::ComPtr;


namespace freedml_bench {

using Microsoft::WRL::ComPtr;

#define CHECK(x)                                                                              \
    do {                                                                                      \
        HRESULT hr_ = (x);                                                                    \
        if (FAILED(hr_)) {                                                                    \
            std::fprintf(stderr, "%s:%d: %s failed (0x%08x)\n", __FILE__, __LINE__, #x, unsigned(hr_)); \
            std::exit(1);                                                                     \
        }                                                                                     \
    } while (0)

struct Tensor {
    std::vector<UINT> sizes;
    DML_BUFFER_TENSOR_DESC buffer{};
    DML_TENSOR_DESC desc{};
    Tensor(DML_TENSOR_DATA_TYPE type, std::vector<UINT> s, DML_TENSOR_FLAGS flags = DML_TENSOR_FLAG_NONE)
        : sizes(std::move(s)) {
        buffer = {type, flags, UINT(sizes.size()), sizes.data(), nullptr,
                  DMLCalcBufferTensorSize(type, UINT(sizes.size()), sizes.data(), nullptr), 0};
        desc = {DML_TENSOR_TYPE_BUFFER, &buffer};
    }
    Tensor(const Tensor&) = delete;
    UINT64 Bytes() const { return buffer.TotalTensorSizeInBytes; }
};

class Bench {
public:
    Bench() {
        CHECK(D3D12CreateDevice(nullptr, D3D_FEATURE_LEVEL_11_0, IID_PPV_ARGS(&d3d_)));
        D3D12_COMMAND_QUEUE_DESC q{D3D12_COMMAND_LIST_TYPE_COMPUTE};
        CHECK(d3d_->CreateCommandQueue(&q, IID_PPV_ARGS(&queue_)));
        CHECK(d3d_->CreateCommandAllocator(D3D12_COMMAND_LIST_TYPE_COMPUTE, IID_PPV_ARGS(&allocator_)));
        CHECK(d3d_->CreateCommandList(0, D3D12_COMMAND_LIST_TYPE_COMPUTE, allocator_.Get(), nullptr,
                                      IID_PPV_ARGS(&list_)));
        CHECK(d3d_->CreateFence(0, D3D12_FENCE_FLAG_NONE, IID_PPV_ARGS(&fence_)));
        D3D12_DESCRIPTOR_HEAP_DESC h{D3D12_DESCRIPTOR_HEAP_TYPE_CBV_SRV_UAV, 4096,
                                     D3D12_DESCRIPTOR_HEAP_FLAG_SHADER_VISIBLE, 0};
        CHECK(d3d_->CreateDescriptorHeap(&h, IID_PPV_ARGS(&heap_)));
        increment_ = d3d_->GetDescriptorHandleIncrementSize(D3D12_DESCRIPTOR_HEAP_TYPE_CBV_SRV_UAV);
        CHECK(DMLCreateDevice(d3d_.Get(), DML_CREATE_DEVICE_FLAG_NONE, IID_PPV_ARGS(&dml_)));
        CHECK(dml_->CreateCommandRecorder(IID_PPV_ARGS(&recorder_)));
    }

    ComPtr<ID3D12Resource> Buffer(UINT64 size, D3D12_HEAP_TYPE type = D3D12_HEAP_TYPE_DEFAULT) {
        CD3DX12_HEAP_PROPERTIES p(type);
        auto desc = CD3DX12_RESOURCE_DESC::Buffer(
            std::max<UINT64>(size, 256),
            type == D3D12_HEAP_TYPE_DEFAULT ? D3D12_RESOURCE_FLAG_ALLOW_UNORDERED_ACCESS : D3D12_RESOURCE_FLAG_NONE);
        D3D12_RESOURCE_STATES state = type == D3D12_HEAP_TYPE_UPLOAD ? D3D12_RESOURCE_STATE_GENERIC_READ
                                      : type == D3D12_HEAP_TYPE_READBACK ? D3D12_RESOURCE_STATE_COPY_DEST
                                                                         : D3D12_RESOURCE_STATE_COMMON;
        ComPtr<ID3D12Resource> r;
        CHECK(d3d_->CreateCommittedResource(&p, D3D12_HEAP_FLAG_NONE, &desc, state, nullptr, IID_PPV_ARGS(&r)));
        return r;
    }

    // A DEFAULT buffer holding `bytes` bytes of `data` (indices and other exact inputs).
    ComPtr<ID3D12Resource> Upload(const void* data, UINT64 bytes) {
        auto upload = Buffer(bytes, D3D12_HEAP_TYPE_UPLOAD);
        void* mapped = nullptr;
        CHECK(upload->Map(0, nullptr, &mapped));
        std::memcpy(mapped, data, bytes);
        upload->Unmap(0, nullptr);
        auto buffer = Buffer(bytes);
        list_->CopyBufferRegion(buffer.Get(), 0, upload.Get(), 0, bytes);
        Run();
        return buffer;
    }

    // Whether this FreeDML compiles the operator (a benchmark of one it does not run is skipped).
    bool Compiles(DML_OPERATOR_TYPE type, const void* desc) {
        DML_OPERATOR_DESC opDesc{type, desc};
        ComPtr<IDMLOperator> op;
        ComPtr<IDMLCompiledOperator> compiled;
        return SUCCEEDED(dml_->CreateOperator(&opDesc, IID_PPV_ARGS(&op))) &&
               SUCCEEDED(dml_->CompileOperator(op.Get(), DML_EXECUTION_FLAG_NONE, IID_PPV_ARGS(&compiled)));
    }

    // A DEFAULT buffer of random values in [-1, 1) (FLOAT32 or FLOAT16), never zeros.
    ComPtr<ID3D12Resource> Random(const Tensor& t) {
        const UINT64 bytes = t.Bytes();
        auto upload = Buffer(bytes, D3D12_HEAP_TYPE_UPLOAD);
        void* mapped = nullptr;
        CHECK(upload->Map(0, nullptr, &mapped));
        std::uniform_int_distribution<int> steps(-512, 511);
        if (t.buffer.DataType == DML_TENSOR_DATA_TYPE_FLOAT16) {
            auto* h = static_cast<uint16_t*>(mapped);
            for (UINT64 i = 0; i < bytes / 2; ++i) {
                int s = steps(rng_);  // s/512 exactly, as a half: sign, exponent, mantissa
                float f = float(s) / 512.0f;
                uint32_t b;
                std::memcpy(&b, &f, 4);
                int e = int((b >> 23) & 0xff) - 112;
                h[i] = s == 0 ? 0 : uint16_t(((b >> 16) & 0x8000) | (uint32_t(e) << 10) | ((b & 0x7fffff) >> 13));
            }
        } else {
            auto* f = static_cast<float*>(mapped);
            for (UINT64 i = 0; i < bytes / 4; ++i) f[i] = float(steps(rng_)) / 512.0f;
        }
        upload->Unmap(0, nullptr);
        auto buffer = Buffer(bytes);
        list_->CopyBufferRegion(buffer.Get(), 0, upload.Get(), 0, bytes);
        Run();
        return buffer;
    }

    void Run() {
        CHECK(list_->Close());
        ID3D12CommandList* lists[] = {list_.Get()};
        queue_->ExecuteCommandLists(1, lists);
        CHECK(queue_->Signal(fence_.Get(), ++value_));
        CHECK(fence_->SetEventOnCompletion(value_, nullptr));
        CHECK(allocator_->Reset());
        CHECK(list_->Reset(allocator_.Get(), nullptr));
    }

    ComPtr<IDMLBindingTable> Table(IDMLDispatchable* dispatchable, UINT first) {
        auto props = dispatchable->GetBindingProperties();
        DML_BINDING_TABLE_DESC desc{dispatchable,
                                    CD3DX12_CPU_DESCRIPTOR_HANDLE(heap_->GetCPUDescriptorHandleForHeapStart(), INT(first), increment_),
                                    CD3DX12_GPU_DESCRIPTOR_HANDLE(heap_->GetGPUDescriptorHandleForHeapStart(), INT(first), increment_),
                                    props.RequiredDescriptorCount};
        ComPtr<IDMLBindingTable> table;
        CHECK(dml_->CreateBindingTable(&desc, IID_PPV_ARGS(&table)));
        return table;
    }

    // Compiles, initializes (owned inputs none) and binds `inputs`/`outputs`; returns a closure-like
    // prepared dispatch.
    struct Prepared {
        ComPtr<IDMLCompiledOperator> op;
        ComPtr<IDMLBindingTable> table;
        ComPtr<ID3D12Resource> temporary, persistent;
    };
    Prepared Prepare(DML_OPERATOR_TYPE type, const void* desc, const std::vector<ID3D12Resource*>& inputs,
                     const std::vector<ID3D12Resource*>& outputs, DML_EXECUTION_FLAGS flags = DML_EXECUTION_FLAG_NONE) {
        Prepared p;
        DML_OPERATOR_DESC opDesc{type, desc};
        ComPtr<IDMLOperator> op;
        CHECK(dml_->CreateOperator(&opDesc, IID_PPV_ARGS(&op)));
        CHECK(dml_->CompileOperator(op.Get(), flags, IID_PPV_ARGS(&p.op)));
        auto props = p.op->GetBindingProperties();
        if (props.PersistentResourceSize) p.persistent = Buffer(props.PersistentResourceSize);
        if (props.TemporaryResourceSize) p.temporary = Buffer(props.TemporaryResourceSize);
        // Initialize.
        IDMLCompiledOperator* ops[] = {p.op.Get()};
        ComPtr<IDMLOperatorInitializer> init;
        CHECK(dml_->CreateOperatorInitializer(1, ops, IID_PPV_ARGS(&init)));
        auto initTable = Table(init.Get(), 2048);
        DML_BUFFER_BINDING persistent{p.persistent.Get(), 0, props.PersistentResourceSize};
        DML_BINDING_DESC persistentDesc{p.persistent ? DML_BINDING_TYPE_BUFFER : DML_BINDING_TYPE_NONE,
                                        p.persistent ? &persistent : nullptr};
        initTable->BindOutputs(1, &persistentDesc);
        ID3D12DescriptorHeap* heaps[] = {heap_.Get()};
        list_->SetDescriptorHeaps(1, heaps);
        recorder_->RecordDispatch(list_.Get(), init.Get(), initTable.Get());
        Run();
        // Execution bindings.
        p.table = Table(p.op.Get(), 0);
        std::vector<DML_BUFFER_BINDING> b;
        b.reserve(inputs.size() + outputs.size() + 2);
        std::vector<DML_BINDING_DESC> in, out;
        for (auto* r : inputs) {
            b.push_back({r, 0, r ? r->GetDesc().Width : 0});
            in.push_back({r ? DML_BINDING_TYPE_BUFFER : DML_BINDING_TYPE_NONE, r ? &b.back() : nullptr});
        }
        for (auto* r : outputs) {  // null: an optional output left unbound
            b.push_back({r, 0, r ? r->GetDesc().Width : 0});
            out.push_back({r ? DML_BINDING_TYPE_BUFFER : DML_BINDING_TYPE_NONE, r ? &b.back() : nullptr});
        }
        p.table->BindInputs(UINT(in.size()), in.data());
        p.table->BindOutputs(UINT(out.size()), out.data());
        if (p.temporary) {
            b.push_back({p.temporary.Get(), 0, props.TemporaryResourceSize});
            DML_BINDING_DESC t{DML_BINDING_TYPE_BUFFER, &b.back()};
            p.table->BindTemporaryResource(&t);
        }
        if (p.persistent) p.table->BindPersistentResource(&persistentDesc);
        return p;
    }

    // Median milliseconds per dispatch over `runs` runs of `reps` dispatches.
    double Time(const Prepared& p, int reps, int runs = 5) {
        auto record = [&] {
            ID3D12DescriptorHeap* heaps[] = {heap_.Get()};
            list_->SetDescriptorHeaps(1, heaps);
            for (int i = 0; i < reps; ++i) recorder_->RecordDispatch(list_.Get(), p.op.Get(), p.table.Get());
        };
        record();
        Run();  // warm-up
        std::vector<double> times;
        for (int r = 0; r < runs; ++r) {
            record();
            auto start = std::chrono::steady_clock::now();
            Run();
            times.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count() / reps);
        }
        std::sort(times.begin(), times.end());
        return times[times.size() / 2];
    }

    // Median milliseconds of one device-to-device CopyBufferRegion of `bytes`.
    double TimeCopy(ID3D12Resource* to, ID3D12Resource* from, UINT64 bytes, int reps, int runs = 5) {
        std::vector<double> times;
        for (int r = 0; r <= runs; ++r) {
            for (int i = 0; i < reps; ++i) list_->CopyBufferRegion(to, 0, from, 0, bytes);
            auto start = std::chrono::steady_clock::now();
            Run();
            if (r > 0) times.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count() / reps);
        }
        std::sort(times.begin(), times.end());
        return times[times.size() / 2];
    }

private:
    ComPtr<ID3D12Device> d3d_;
    ComPtr<ID3D12CommandQueue> queue_;
    ComPtr<ID3D12CommandAllocator> allocator_;
    ComPtr<ID3D12GraphicsCommandList> list_;
    ComPtr<ID3D12Fence> fence_;
    UINT64 value_ = 0;
    ComPtr<ID3D12DescriptorHeap> heap_;
    UINT increment_ = 0;
    ComPtr<IDMLDevice> dml_;
    ComPtr<IDMLCommandRecorder> recorder_;
    std::mt19937 rng_{12345};
};

inline const char* TypeName(DML_TENSOR_DATA_TYPE t) { return t == DML_TENSOR_DATA_TYPE_FLOAT16 ? "f16" : "f32"; }

}  // namespace freedml_bench
