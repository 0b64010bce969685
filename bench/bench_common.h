// What FreeDML's side-by-side benchmarks share (dispatch_bench, dense_bench):
//   - timing: every implementation of one case runs in interleaved rounds, a calibrated batch of
//     iterations per round, so the noise of a shared machine falls on all of them alike; a figure
//     is the median over rounds of the seconds per iteration;
//   - results: "RESULT,group,case,dtype,implementation,value,unit,note" lines that bench/report.py
//     reads (bench/run.sh collects them);
//   - the public-API stack: a D3D12 device, queue, allocator, command list, fence, descriptor heap
//     and a DirectML device, with helpers to upload, compile, initialize and bind, as an
//     application would write them.
#pragma once

#include <wsl/winadapter.h>
#include <directx/d3d12.h>
#include <directx/d3dx12.h>
#include <dxguids/dxguids.h>
#include <DirectML.h>
#include <freedml/helpers.h>
#include <wrl/client.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

namespace freedml_bench {

using Microsoft::WRL::ComPtr;
using Clock = std::chrono::steady_clock;

inline double Now() { return std::chrono::duration<double>(Clock::now().time_since_epoch()).count(); }

inline double Median(std::vector<double> values) {
    if (values.empty()) return 0;
    std::sort(values.begin(), values.end());
    const size_t n = values.size();
    return n % 2 ? values[n / 2] : 0.5 * (values[n / 2 - 1] + values[n / 2]);
}

struct TimingOptions {
    int rounds = 5;               // samples per implementation
    double sampleSeconds = 0.05;  // one sample runs at least this long (one iteration at least)
};

// Runs `bodies` (the implementations of one case) in `rounds` interleaved rounds after one warm-up
// call each. Returns, per body, the seconds per iteration of every round. An empty body is skipped
// (its vector stays empty).
inline std::vector<std::vector<double>> MeasureInterleaved(const std::vector<std::function<void()>>& bodies,
                                                           const TimingOptions& options) {
    const size_t count = bodies.size();
    std::vector<long> iterations(count, 1);
    std::vector<std::vector<double>> samples(count);
    for (size_t i = 0; i < count; ++i) {
        if (!bodies[i]) continue;
        bodies[i]();  // warm-up: page faults, lazy primitive creation, thread pools
        // Timed from the second call: the first one's one-off costs (tens of milliseconds of JIT and
        // page faults for a kernel of a fraction of one) would leave a sample at one execution,
        // which then follows the other bodies' executions cold every time.
        const double start = Now();
        bodies[i]();
        const double once = std::max(Now() - start, 1e-7);
        iterations[i] = std::max(1L, long(options.sampleSeconds / once));
        // Calibrate on a short batch too: single calls vary.
        if (iterations[i] > 1) {
            const long probe = std::min(iterations[i], 16L);
            const double t0 = Now();
            for (long k = 0; k < probe; ++k) bodies[i]();
            iterations[i] = std::max(1L, long(options.sampleSeconds / std::max((Now() - t0) / double(probe), 1e-9)));
        }
    }
    for (int r = 0; r < options.rounds; ++r) {
        for (size_t i = 0; i < count; ++i) {
            if (!bodies[i]) continue;
            const double t0 = Now();
            for (long k = 0; k < iterations[i]; ++k) bodies[i]();
            samples[i].push_back((Now() - t0) / double(iterations[i]));
        }
    }
    return samples;
}

// One result line. `note` must not contain commas (they are replaced by semicolons).
inline void Result(const std::string& group, const std::string& name, const std::string& dtype, const std::string& impl,
                   double value, const std::string& unit, std::string note = "") {
    std::replace(note.begin(), note.end(), ',', ';');
    std::printf("RESULT,%s,%s,%s,%s,%.6g,%s,%s\n", group.c_str(), name.c_str(), dtype.c_str(), impl.c_str(), value,
                unit.c_str(), note.c_str());
    std::fflush(stdout);
}

// The spread of a sample, for the note: "rounds 5; min 1.2e-3; max 1.4e-3".
inline std::string Spread(const std::vector<double>& s) {
    if (s.empty()) return "";
    char text[128];
    std::snprintf(text, sizeof(text), "rounds %zu; min %.4g; max %.4g", s.size(), *std::min_element(s.begin(), s.end()),
                  *std::max_element(s.begin(), s.end()));
    return text;
}

// IEEE binary16 from float, rounding to nearest even (inputs here are finite and in range).
inline uint16_t ToHalf(float value) {
    uint32_t bits;
    std::memcpy(&bits, &value, 4);
    const uint32_t sign = (bits >> 16) & 0x8000u;
    int32_t exponent = int32_t((bits >> 23) & 0xff) - 127 + 15;
    uint32_t mantissa = bits & 0x7fffffu;
    if (exponent <= 0) {  // subnormal or zero
        if (exponent < -10) return uint16_t(sign);
        mantissa |= 0x800000u;
        const uint32_t shift = uint32_t(14 - exponent);
        uint32_t half = mantissa >> shift;
        const uint32_t rest = mantissa & ((1u << shift) - 1), midpoint = 1u << (shift - 1);
        if (rest > midpoint || (rest == midpoint && (half & 1))) ++half;
        return uint16_t(sign | half);
    }
    if (exponent >= 31) return uint16_t(sign | 0x7c00u);
    uint32_t half = (uint32_t(exponent) << 10) | (mantissa >> 13);
    const uint32_t rest = mantissa & 0x1fffu;
    if (rest > 0x1000u || (rest == 0x1000u && (half & 1))) ++half;  // may carry into the exponent: correct
    return uint16_t(sign | half);
}

inline float FromHalf(uint16_t h) {
    const uint32_t sign = uint32_t(h & 0x8000u) << 16;
    const uint32_t exponent = (h >> 10) & 0x1fu, mantissa = h & 0x3ffu;
    float magnitude;
    if (exponent == 0) magnitude = std::ldexp(float(mantissa), -24);
    else if (exponent == 31) magnitude = mantissa ? NAN : INFINITY;
    else magnitude = std::ldexp(float(mantissa | 0x400u), int(exponent) - 25);
    uint32_t bits;
    std::memcpy(&bits, &magnitude, 4);
    bits |= sign;
    std::memcpy(&magnitude, &bits, 4);
    return magnitude;
}

inline const char* TypeName(DML_TENSOR_DATA_TYPE type) {
    return type == DML_TENSOR_DATA_TYPE_FLOAT16 ? "FLOAT16" : "FLOAT32";
}

// A DML_BUFFER_TENSOR_DESC with its arrays, kept alive together (packed unless strides are given).
struct Tensor {
    std::vector<UINT> sizes;
    DML_BUFFER_TENSOR_DESC buffer{};
    DML_TENSOR_DESC desc{};

    Tensor(DML_TENSOR_DATA_TYPE type, std::vector<UINT> s, DML_TENSOR_FLAGS flags = DML_TENSOR_FLAG_NONE)
        : sizes(std::move(s)) {
        buffer.DataType = type;
        buffer.Flags = flags;
        buffer.DimensionCount = UINT(sizes.size());
        buffer.Sizes = sizes.data();
        buffer.TotalTensorSizeInBytes = DMLCalcBufferTensorSize(type, buffer.DimensionCount, sizes.data(), nullptr);
        desc = {DML_TENSOR_TYPE_BUFFER, &buffer};
    }
    Tensor(const Tensor&) = delete;
    Tensor& operator=(const Tensor&) = delete;
    UINT64 Bytes() const { return buffer.TotalTensorSizeInBytes; }
};

// The application side of D3D12 + DirectML, on the adapter D3D12CreateDevice(nullptr) picks
// (FREEDML_ADAPTER chooses it).
class Api {
public:
    bool ok = false;
    ComPtr<ID3D12Device> d3d;
    ComPtr<ID3D12CommandQueue> queue;
    ComPtr<ID3D12CommandAllocator> allocator;
    ComPtr<ID3D12GraphicsCommandList> list;
    ComPtr<ID3D12Fence> fence;
    UINT64 fenceValue = 0;
    ComPtr<ID3D12DescriptorHeap> heap;
    static constexpr UINT kHeapSize = 1024;
    UINT descriptorSize = 0;
    UINT nextDescriptor = 0;
    ComPtr<IDMLDevice> dml;
    ComPtr<IDMLCommandRecorder> recorder;

    Api() {
        if (FAILED(D3D12CreateDevice(nullptr, D3D_FEATURE_LEVEL_11_0, IID_PPV_ARGS(&d3d)))) return;
        D3D12_COMMAND_QUEUE_DESC queueDesc{};
        queueDesc.Type = D3D12_COMMAND_LIST_TYPE_COMPUTE;
        if (FAILED(d3d->CreateCommandQueue(&queueDesc, IID_PPV_ARGS(&queue))) ||
            FAILED(d3d->CreateCommandAllocator(D3D12_COMMAND_LIST_TYPE_COMPUTE, IID_PPV_ARGS(&allocator))) ||
            FAILED(d3d->CreateCommandList(0, D3D12_COMMAND_LIST_TYPE_COMPUTE, allocator.Get(), nullptr,
                                          IID_PPV_ARGS(&list))) ||
            FAILED(d3d->CreateFence(0, D3D12_FENCE_FLAG_NONE, IID_PPV_ARGS(&fence)))) {
            return;
        }
        D3D12_DESCRIPTOR_HEAP_DESC heapDesc{D3D12_DESCRIPTOR_HEAP_TYPE_CBV_SRV_UAV, kHeapSize,
                                            D3D12_DESCRIPTOR_HEAP_FLAG_SHADER_VISIBLE, 0};
        if (FAILED(d3d->CreateDescriptorHeap(&heapDesc, IID_PPV_ARGS(&heap)))) return;
        descriptorSize = d3d->GetDescriptorHandleIncrementSize(D3D12_DESCRIPTOR_HEAP_TYPE_CBV_SRV_UAV);
        ok = SUCCEEDED(DMLCreateDevice(d3d.Get(), DML_CREATE_DEVICE_FLAG_NONE, IID_PPV_ARGS(&dml))) &&
             SUCCEEDED(dml->CreateCommandRecorder(IID_PPV_ARGS(&recorder)));
    }

    bool Removed() { return d3d->GetDeviceRemovedReason() != S_OK; }

    ComPtr<ID3D12Resource> Buffer(UINT64 size, D3D12_HEAP_TYPE type = D3D12_HEAP_TYPE_DEFAULT) {
        CD3DX12_HEAP_PROPERTIES properties(type);
        auto desc = CD3DX12_RESOURCE_DESC::Buffer(std::max<UINT64>(size, 4), type == D3D12_HEAP_TYPE_DEFAULT
                                                                               ? D3D12_RESOURCE_FLAG_ALLOW_UNORDERED_ACCESS
                                                                               : D3D12_RESOURCE_FLAG_NONE);
        const D3D12_RESOURCE_STATES state = type == D3D12_HEAP_TYPE_UPLOAD     ? D3D12_RESOURCE_STATE_GENERIC_READ
                                            : type == D3D12_HEAP_TYPE_READBACK ? D3D12_RESOURCE_STATE_COPY_DEST
                                                                               : D3D12_RESOURCE_STATE_COMMON;
        ComPtr<ID3D12Resource> resource;
        d3d->CreateCommittedResource(&properties, D3D12_HEAP_FLAG_NONE, &desc, state, nullptr, IID_PPV_ARGS(&resource));
        return resource;
    }

    // Executes the closed command list and blocks on the fence.
    void Submit() {
        ID3D12CommandList* lists[] = {list.Get()};
        queue->ExecuteCommandLists(1, lists);
        queue->Signal(fence.Get(), ++fenceValue);
        fence->SetEventOnCompletion(fenceValue, nullptr);  // null event: wait here
    }

    void Reopen() {
        allocator->Reset();
        list->Reset(allocator.Get(), nullptr);
    }

    void CloseSubmitReopen() {
        list->Close();
        Submit();
        Reopen();
    }

    void Upload(ID3D12Resource* target, const void* bytes, size_t size) {
        auto staging = Buffer(size, D3D12_HEAP_TYPE_UPLOAD);
        void* mapped = nullptr;
        staging->Map(0, nullptr, &mapped);
        std::memcpy(mapped, bytes, size);
        staging->Unmap(0, nullptr);
        list->CopyBufferRegion(target, 0, staging.Get(), 0, size);
        CloseSubmitReopen();
    }

    std::vector<unsigned char> Readback(ID3D12Resource* source, size_t size) {
        auto staging = Buffer(size, D3D12_HEAP_TYPE_READBACK);
        list->CopyBufferRegion(staging.Get(), 0, source, 0, size);
        CloseSubmitReopen();
        std::vector<unsigned char> bytes(size);
        void* mapped = nullptr;
        staging->Map(0, nullptr, &mapped);
        if (mapped) std::memcpy(bytes.data(), mapped, size);
        staging->Unmap(0, nullptr);
        return bytes;
    }

    ComPtr<IDMLCompiledOperator> Compile(DML_OPERATOR_TYPE type, const void* desc) {
        DML_OPERATOR_DESC opDesc{type, desc};
        ComPtr<IDMLOperator> op;
        ComPtr<IDMLCompiledOperator> compiled;
        if (FAILED(dml->CreateOperator(&opDesc, IID_PPV_ARGS(&op))) ||
            FAILED(dml->CompileOperator(op.Get(), DML_EXECUTION_FLAG_NONE, IID_PPV_ARGS(&compiled)))) {
            return nullptr;
        }
        return compiled;
    }

    // A binding table over the next free descriptors of the heap (wraps around: tables made
    // earlier must not be used after it does).
    ComPtr<IDMLBindingTable> Table(IDMLDispatchable* dispatchable) {
        const UINT count = std::max(1u, dispatchable->GetBindingProperties().RequiredDescriptorCount);
        if (nextDescriptor + count > kHeapSize) nextDescriptor = 0;
        DML_BINDING_TABLE_DESC desc{
            dispatchable,
            CD3DX12_CPU_DESCRIPTOR_HANDLE(heap->GetCPUDescriptorHandleForHeapStart(), INT(nextDescriptor), descriptorSize),
            CD3DX12_GPU_DESCRIPTOR_HANDLE(heap->GetGPUDescriptorHandleForHeapStart(), INT(nextDescriptor), descriptorSize),
            count};
        nextDescriptor += count;
        ComPtr<IDMLBindingTable> table;
        dml->CreateBindingTable(&desc, IID_PPV_ARGS(&table));
        return table;
    }

    void Record(IDMLDispatchable* dispatchable, IDMLBindingTable* table) {
        ID3D12DescriptorHeap* heaps[] = {heap.Get()};
        list->SetDescriptorHeaps(1, heaps);
        recorder->RecordDispatch(list.Get(), dispatchable, table);
    }

    // Initializes `op` with its OWNED_BY_DML inputs (`owned`: one entry per operator input, a null
    // Buffer where it is not owned; empty: none). Returns the persistent resource (null when none).
    ComPtr<ID3D12Resource> Initialize(IDMLCompiledOperator* op, std::vector<DML_BUFFER_BINDING> owned = {}) {
        IDMLCompiledOperator* ops[] = {op};
        ComPtr<IDMLOperatorInitializer> initializer;
        if (FAILED(dml->CreateOperatorInitializer(1, ops, IID_PPV_ARGS(&initializer)))) return nullptr;
        auto table = Table(initializer.Get());
        DML_BUFFER_ARRAY_BINDING array{UINT(owned.size()), owned.data()};
        DML_BINDING_DESC input = owned.empty() ? DML_BINDING_DESC{DML_BINDING_TYPE_NONE, nullptr}
                                               : DML_BINDING_DESC{DML_BINDING_TYPE_BUFFER_ARRAY, &array};
        table->BindInputs(1, &input);
        const UINT64 persistentSize = op->GetBindingProperties().PersistentResourceSize;
        ComPtr<ID3D12Resource> persistent;
        DML_BUFFER_BINDING persistentBinding{};
        DML_BINDING_DESC output{DML_BINDING_TYPE_NONE, nullptr};
        if (persistentSize) {
            persistent = Buffer(persistentSize);
            persistentBinding = {persistent.Get(), 0, persistentSize};
            output = {DML_BINDING_TYPE_BUFFER, &persistentBinding};
        }
        table->BindOutputs(1, &output);
        const UINT64 temporarySize = initializer->GetBindingProperties().TemporaryResourceSize;
        ComPtr<ID3D12Resource> temporary;
        DML_BUFFER_BINDING temporaryBinding{};
        if (temporarySize) {
            temporary = Buffer(temporarySize);
            temporaryBinding = {temporary.Get(), 0, temporarySize};
            DML_BINDING_DESC binding{DML_BINDING_TYPE_BUFFER, &temporaryBinding};
            table->BindTemporaryResource(&binding);
        }
        Record(initializer.Get(), table.Get());
        CloseSubmitReopen();
        return persistent;
    }
};

// One operator, initialized and bound, recorded once into its own command list: Run() re-executes
// it and waits, which is what an application does in steady state.
struct BoundOperator {
    ComPtr<IDMLCompiledOperator> op;
    ComPtr<IDMLBindingTable> table;
    ComPtr<ID3D12Resource> persistent, temporary;
    ComPtr<ID3D12CommandAllocator> allocator;
    ComPtr<ID3D12GraphicsCommandList> list;
    Api* api = nullptr;

    // `inputs` and `outputs` as BindInputs/BindOutputs take them.
    bool Prepare(Api& a, ComPtr<IDMLCompiledOperator> compiled, std::vector<DML_BUFFER_BINDING> owned,
                 const std::vector<DML_BINDING_DESC>& inputs, const std::vector<DML_BINDING_DESC>& outputs) {
        api = &a;
        op = std::move(compiled);
        if (!op) return false;
        persistent = a.Initialize(op.Get(), std::move(owned));
        table = a.Table(op.Get());
        table->BindInputs(UINT(inputs.size()), inputs.data());
        table->BindOutputs(UINT(outputs.size()), outputs.data());
        const DML_BINDING_PROPERTIES properties = op->GetBindingProperties();
        DML_BUFFER_BINDING temporaryBinding{}, persistentBinding{};
        if (properties.TemporaryResourceSize) {
            temporary = a.Buffer(properties.TemporaryResourceSize);
            temporaryBinding = {temporary.Get(), 0, properties.TemporaryResourceSize};
            DML_BINDING_DESC binding{DML_BINDING_TYPE_BUFFER, &temporaryBinding};
            table->BindTemporaryResource(&binding);
        }
        if (properties.PersistentResourceSize) {
            persistentBinding = {persistent.Get(), 0, properties.PersistentResourceSize};
            DML_BINDING_DESC binding{DML_BINDING_TYPE_BUFFER, &persistentBinding};
            table->BindPersistentResource(&binding);
        }
        if (FAILED(a.d3d->CreateCommandAllocator(D3D12_COMMAND_LIST_TYPE_COMPUTE, IID_PPV_ARGS(&allocator))) ||
            FAILED(a.d3d->CreateCommandList(0, D3D12_COMMAND_LIST_TYPE_COMPUTE, allocator.Get(), nullptr,
                                            IID_PPV_ARGS(&list)))) {
            return false;
        }
        ID3D12DescriptorHeap* heaps[] = {a.heap.Get()};
        list->SetDescriptorHeaps(1, heaps);
        a.recorder->RecordDispatch(list.Get(), op.Get(), table.Get());
        return SUCCEEDED(list->Close()) && !a.Removed();
    }

    void Run() {
        ID3D12CommandList* lists[] = {list.Get()};
        api->queue->ExecuteCommandLists(1, lists);
        api->queue->Signal(api->fence.Get(), ++api->fenceValue);
        api->fence->SetEventOnCompletion(api->fenceValue, nullptr);
    }
};

inline DML_BINDING_DESC Bind(DML_BUFFER_BINDING* binding) { return {DML_BINDING_TYPE_BUFFER, binding}; }
inline DML_BINDING_DESC NoBinding() { return {DML_BINDING_TYPE_NONE, nullptr}; }

}  // namespace freedml_bench
