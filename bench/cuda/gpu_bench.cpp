// FreeDML on a CUDA adapter, through the public D3D12 and DirectML APIs as an application uses
// them: GEMM, the ResNet-50 convolution layers, packed element-wise against the device-to-device
// copy bandwidth, and the cost of one dispatch. Each measurement records `reps` dispatches in one
// command list and times ExecuteCommandLists to the fence (host clock; the one fence wait is
// amortized over the dispatches), after a warm-up run; the median of several runs is printed.
// Output: one JSON object per line (bench/run_gpu.sh joins it with the PyTorch numbers).
// The "op" section times the memory-bound operators of the operator issues (reductions, TOP_K,
// data movement, pooling, normalization) as GB/s of the bytes they must read and write.
// FREEDML_GPU_BENCH=gemm,dispatch (bench names: gemm, conv, elementwise, dispatch, op) runs only
// those sections, for repeated A/B runs of one figure (bench/ab_gpu.sh).
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

namespace {

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
        for (auto* r : outputs) {
            b.push_back({r, 0, r->GetDesc().Width});
            out.push_back({DML_BINDING_TYPE_BUFFER, &b.back()});
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

// Whether FREEDML_GPU_BENCH (a comma-separated list of bench names) selects `name`; unset selects all.
bool Selected(const char* name) {
    const char* only = std::getenv("FREEDML_GPU_BENCH");
    if (only == nullptr || *only == '\0') return true;
    const std::string list = std::string(",") + only + ",";
    return list.find(std::string(",") + name + ",") != std::string::npos;
}

const char* TypeName(DML_TENSOR_DATA_TYPE t) { return t == DML_TENSOR_DATA_TYPE_FLOAT16 ? "f16" : "f32"; }

struct ConvLayer {
    const char* name;
    UINT c, h, k, r, stride, pad;
};

}  // namespace

int main(int argc, char** argv) {
    const bool quick = argc > 1 && std::string(argv[1]) == "--quick";
    Bench bench;
    const auto F32 = DML_TENSOR_DATA_TYPE_FLOAT32, F16 = DML_TENSOR_DATA_TYPE_FLOAT16;

    // GEMM.
    for (auto type : {F16, F32}) {
        if (!Selected("gemm")) break;
        for (UINT n : {1024u, 2048u, 4096u, 8192u}) {
            if (quick && n > 2048) continue;
            Tensor a(type, {1, 1, n, n}), b(type, {1, 1, n, n}), o(type, {1, 1, n, n});
            auto A = bench.Random(a), B = bench.Random(b);
            auto O = bench.Buffer(o.Bytes());
            DML_GEMM_OPERATOR_DESC d{&a.desc, &b.desc, nullptr, &o.desc, DML_MATRIX_TRANSFORM_NONE,
                                     DML_MATRIX_TRANSFORM_NONE, 1.0f, 0.0f, nullptr};
            auto p = bench.Prepare(DML_OPERATOR_GEMM, &d, {A.Get(), B.Get(), nullptr}, {O.Get()});
            const double flops = 2.0 * n * n * n;
            int reps = std::max(3, int(2e13 / flops));
            double ms = bench.Time(p, reps);
            std::printf("{\"bench\": \"gemm\", \"type\": \"%s\", \"n\": %u, \"ms\": %.5f, \"tflops\": %.2f}\n",
                        TypeName(type), n, ms, flops / ms / 1e9);
            std::fflush(stdout);
        }
    }

    // ResNet-50 convolution layers (batch 32, NCHW, as PyTorch's default layout).
    const ConvLayer layers[] = {
        {"conv1_7x7s2", 3, 224, 64, 7, 2, 3},     {"l1_1x1_64_64", 64, 56, 64, 1, 1, 0},
        {"l1_3x3_64", 64, 56, 64, 3, 1, 1},       {"l1_1x1_64_256", 64, 56, 256, 1, 1, 0},
        {"l2_3x3_128", 128, 28, 128, 3, 1, 1},    {"l2_1x1_512_128", 512, 28, 128, 1, 1, 0},
        {"l3_3x3_256", 256, 14, 256, 3, 1, 1},    {"l3_1x1_256_1024", 256, 14, 1024, 1, 1, 0},
        {"l4_3x3_512", 512, 7, 512, 3, 1, 1},     {"l4_1x1_512_2048", 512, 7, 2048, 1, 1, 0},
    };
    const UINT batch = 32;
    for (auto type : {F16, F32}) {
        if (!Selected("conv")) break;
        for (const ConvLayer& L : layers) {
            const UINT out = (L.h + 2 * L.pad - L.r) / L.stride + 1;
            Tensor x(type, {batch, L.c, L.h, L.h}), w(type, {L.k, L.c, L.r, L.r}), y(type, {batch, L.k, out, out});
            auto X = bench.Random(x), W = bench.Random(w);
            auto Y = bench.Buffer(y.Bytes());
            UINT strides[2] = {L.stride, L.stride}, dil[2] = {1, 1}, pad[2] = {L.pad, L.pad}, opad[2] = {0, 0};
            DML_CONVOLUTION_OPERATOR_DESC d{&x.desc, &w.desc, nullptr, &y.desc, DML_CONVOLUTION_MODE_CROSS_CORRELATION,
                                            DML_CONVOLUTION_DIRECTION_FORWARD, 2, strides, dil, pad, pad, opad, 1, nullptr};
            auto p = bench.Prepare(DML_OPERATOR_CONVOLUTION, &d, {X.Get(), W.Get(), nullptr}, {Y.Get()});
            const double flops = 2.0 * batch * L.k * out * out * L.c * L.r * L.r;
            int reps = std::max(5, int(5e12 / flops));
            double ms = bench.Time(p, reps);
            std::printf("{\"bench\": \"conv\", \"type\": \"%s\", \"layer\": \"%s\", \"ms\": %.5f, \"tflops\": %.2f}\n",
                        TypeName(type), L.name, ms, flops / ms / 1e9);
            std::fflush(stdout);
        }
    }

    // Element-wise against the device-to-device copy bandwidth (bytes read + written).
    if (Selected("elementwise")) {
        const UINT64 count = 64ull << 20;  // 64 Mi elements
        for (auto type : {F32, F16}) {
            const UINT esize = type == F16 ? 2 : 4;
            Tensor a(type, {1, 1, 1, UINT(count)}), b(type, {1, 1, 1, UINT(count)}), o(type, {1, 1, 1, UINT(count)});
            auto A = bench.Random(a), B = bench.Random(b);
            auto O = bench.Buffer(o.Bytes());
            double copyMs = bench.TimeCopy(O.Get(), A.Get(), count * esize, 20);
            double copyGBs = 2.0 * count * esize / copyMs / 1e6;
            DML_ELEMENT_WISE_ADD_OPERATOR_DESC add{&a.desc, &b.desc, &o.desc};
            auto p = bench.Prepare(DML_OPERATOR_ELEMENT_WISE_ADD, &add, {A.Get(), B.Get()}, {O.Get()});
            double addMs = bench.Time(p, 20);
            double addGBs = 3.0 * count * esize / addMs / 1e6;
            DML_SCALE_BIAS sb{2.0f, 1.0f};
            DML_ELEMENT_WISE_IDENTITY_OPERATOR_DESC id{&a.desc, &o.desc, &sb};
            auto q = bench.Prepare(DML_OPERATOR_ELEMENT_WISE_IDENTITY, &id, {A.Get()}, {O.Get()});
            double idMs = bench.Time(q, 20);
            double idGBs = 2.0 * count * esize / idMs / 1e6;
            std::printf("{\"bench\": \"elementwise\", \"type\": \"%s\", \"copy_gbs\": %.1f, \"add_gbs\": %.1f, "
                        "\"scale_bias_gbs\": %.1f, \"add_ms\": %.4f, \"copy_ms\": %.4f}\n",
                        TypeName(type), copyGBs, addGBs, idGBs, addMs, copyMs);
            std::fflush(stdout);
        }
    }

    // Dispatch overhead: a tiny IDENTITY recorded many times in one list.
    if (Selected("dispatch")) {
        Tensor a(F32, {1, 1, 1, 64}), o(F32, {1, 1, 1, 64});
        auto A = bench.Random(a);
        auto O = bench.Buffer(o.Bytes());
        DML_ELEMENT_WISE_IDENTITY_OPERATOR_DESC id{&a.desc, &o.desc, nullptr};
        auto p = bench.Prepare(DML_OPERATOR_ELEMENT_WISE_IDENTITY, &id, {A.Get()}, {O.Get()});
        double ms = bench.Time(p, 5000);
        std::printf("{\"bench\": \"dispatch\", \"us_per_dispatch\": %.2f}\n", ms * 1000.0);
    }

    // Memory-bound operators: GB/s of the bytes each must move (inputs read once, outputs written
    // once), the same problems as torch_bench.py's "op" lines.
    if (Selected("op")) {
        const auto U32 = DML_TENSOR_DATA_TYPE_UINT32;
        // Times one prepared operator and prints its line; `bytes` is what it must read and write.
        auto report = [&](const char* name, DML_TENSOR_DATA_TYPE type, DML_OPERATOR_TYPE op, const void* desc,
                          const std::vector<ID3D12Resource*>& inputs, const std::vector<ID3D12Resource*>& outputs,
                          double bytes) {
            if (!bench.Compiles(op, desc)) {
                std::printf("{\"bench\": \"op\", \"name\": \"%s\", \"type\": \"%s\", \"skipped\": true}\n", name,
                            TypeName(type));
                std::fflush(stdout);
                return;
            }
            auto p = bench.Prepare(op, desc, inputs, outputs);
            const int reps = std::max(10, int(2e10 / bytes));
            const double ms = bench.Time(p, reps);
            std::printf("{\"bench\": \"op\", \"name\": \"%s\", \"type\": \"%s\", \"ms\": %.5f, \"gbs\": %.1f}\n", name,
                        TypeName(type), ms, bytes / ms / 1e6);
            std::fflush(stdout);
        };
        // Issue 17: REDUCE SUM/MAX over the last and the first axis of 64 MiB, ARGMAX of rows, TOP_K.
        {
            Tensor x(F32, {1, 1, 4096, 4096}), rows(F32, {1, 1, 4096, 1}), cols(F32, {1, 1, 1, 4096});
            Tensor index(U32, {1, 1, 4096, 1});
            auto X = bench.Random(x);
            auto R = bench.Buffer(rows.Bytes()), C = bench.Buffer(cols.Bytes()), I = bench.Buffer(index.Bytes());
            const UINT last[] = {3}, first[] = {2};
            for (auto [name, function, axes, out, O] :
                 {std::tuple{"reduce_sum_last", DML_REDUCE_FUNCTION_SUM, last, &rows, R.Get()},
                  std::tuple{"reduce_sum_first", DML_REDUCE_FUNCTION_SUM, first, &cols, C.Get()},
                  std::tuple{"reduce_max_last", DML_REDUCE_FUNCTION_MAX, last, &rows, R.Get()},
                  std::tuple{"reduce_max_first", DML_REDUCE_FUNCTION_MAX, first, &cols, C.Get()}}) {
                DML_REDUCE_OPERATOR_DESC d{function, &x.desc, &out->desc, 1, axes};
                report(name, F32, DML_OPERATOR_REDUCE, &d, {X.Get()}, {O}, double(x.Bytes() + out->Bytes()));
            }
            DML_ARGMAX_OPERATOR_DESC argmax{&x.desc, &index.desc, 1, last, DML_AXIS_DIRECTION_INCREASING};
            report("argmax_rows", F32, DML_OPERATOR_ARGMAX, &argmax, {X.Get()}, {I.Get()},
                   double(x.Bytes() + index.Bytes()));
        }
        {
            Tensor x(F32, {1, 1, 64, 32768});
            auto X = bench.Random(x);
            for (UINT k : {1u, 8u, 256u}) {
                Tensor values(F32, {1, 1, 64, k}), indices(U32, {1, 1, 64, k});
                auto V = bench.Buffer(values.Bytes()), I = bench.Buffer(indices.Bytes());
                DML_TOP_K1_OPERATOR_DESC d{&x.desc, &values.desc, &indices.desc, 3, k, DML_AXIS_DIRECTION_DECREASING};
                const std::string name = "top_k_" + std::to_string(k);
                report(name.c_str(), F32, DML_OPERATOR_TOP_K1, &d, {X.Get()}, {V.Get(), I.Get()},
                       double(x.Bytes() + values.Bytes() + indices.Bytes()));
            }
        }
        // Issue 18: GATHER of embedding rows, SLICE and PADDING of 64 MiB, RESAMPLE 2x bilinear.
        {
            Tensor table(F16, {1, 1, 32000, 4096}), ids(U32, {1, 1, 1, 512}), rows(F16, {1, 1, 512, 4096});
            auto T = bench.Random(table);
            std::vector<uint32_t> picks(512);
            std::mt19937 rng(7);
            for (auto& v : picks) v = rng() % 32000;
            auto Ids = bench.Upload(picks.data(), picks.size() * 4);
            auto O = bench.Buffer(rows.Bytes());
            DML_GATHER_OPERATOR_DESC d{&table.desc, &ids.desc, &rows.desc, 2, 1};
            report("gather_embedding", F16, DML_OPERATOR_GATHER, &d, {T.Get(), Ids.Get()}, {O.Get()},
                   2.0 * double(rows.Bytes()) + double(ids.Bytes()));
        }
        {
            Tensor x(F32, {1, 1, 4096, 4096}), half(F32, {1, 1, 4096, 2048}), padded(F32, {1, 1, 4128, 4128});
            auto X = bench.Random(x);
            auto H = bench.Buffer(half.Bytes()), P = bench.Buffer(padded.Bytes());
            const UINT offsets[] = {0, 0, 0, 1024}, sizes[] = {1, 1, 4096, 2048};
            const INT steps[] = {1, 1, 1, 1};
            DML_SLICE1_OPERATOR_DESC slice{&x.desc, &half.desc, 4, offsets, sizes, steps};
            report("slice_64mib", F32, DML_OPERATOR_SLICE1, &slice, {X.Get()}, {H.Get()}, 2.0 * double(half.Bytes()));
            const UINT start[] = {0, 0, 16, 16}, end[] = {0, 0, 16, 16};
            DML_SCALAR_UNION zero{};
            DML_PADDING1_OPERATOR_DESC pad{&x.desc, &padded.desc, DML_PADDING_MODE_CONSTANT, F32, zero, 4, start, end};
            report("padding_64mib", F32, DML_OPERATOR_PADDING1, &pad, {X.Get()}, {P.Get()},
                   double(x.Bytes() + padded.Bytes()));
        }
        {
            Tensor x(F32, {1, 64, 512, 512}), y(F32, {1, 64, 1024, 1024});
            auto X = bench.Random(x);
            auto Y = bench.Buffer(y.Bytes());
            const FLOAT scales[] = {1, 1, 2, 2}, offsets[] = {0.5f, 0.5f, 0.5f, 0.5f};
            DML_RESAMPLE1_OPERATOR_DESC d{&x.desc, &y.desc, DML_INTERPOLATION_MODE_LINEAR, 4, scales, offsets, offsets};
            report("resample_2x_bilinear", F32, DML_OPERATOR_RESAMPLE1, &d, {X.Get()}, {Y.Get()},
                   double(x.Bytes() + y.Bytes()));
        }
        // Issue 19: ResNet-50's max pool and global average pool, layer and batch normalization.
        for (UINT images : {1u, 32u}) {
            Tensor x(F32, {images, 64, 112, 112}), y(F32, {images, 64, 56, 56});
            auto X = bench.Random(x);
            auto Y = bench.Buffer(y.Bytes());
            const UINT strides[] = {2, 2}, window[] = {3, 3}, pads[] = {1, 1};
            DML_MAX_POOLING_OPERATOR_DESC d{&x.desc, &y.desc, 2, strides, window, pads, pads};
            const std::string name = "max_pool_3x3s2_b" + std::to_string(images);
            report(name.c_str(), F32, DML_OPERATOR_MAX_POOLING, &d, {X.Get()}, {Y.Get()}, double(x.Bytes() + y.Bytes()));
            Tensor g(F32, {images, 2048, 7, 7}), gy(F32, {images, 2048, 1, 1});
            auto G = bench.Random(g);
            auto GY = bench.Buffer(gy.Bytes());
            const UINT ones[] = {1, 1}, whole[] = {7, 7}, none[] = {0, 0};
            DML_AVERAGE_POOLING_OPERATOR_DESC avg{&g.desc, &gy.desc, 2, ones, whole, none, none, FALSE};
            const std::string avgName = "global_avg_pool_b" + std::to_string(images);
            report(avgName.c_str(), F32, DML_OPERATOR_AVERAGE_POOLING, &avg, {G.Get()}, {GY.Get()},
                   double(g.Bytes() + gy.Bytes()));
        }
        for (auto type : {F32, F16}) {
            Tensor x(type, {1, 1, 512, 4096}), gamma(type, {1, 1, 1, 4096}), y(type, {1, 1, 512, 4096});
            auto X = bench.Random(x), S = bench.Random(gamma), B = bench.Random(gamma);
            auto Y = bench.Buffer(y.Bytes());
            const UINT axes[] = {3};
            DML_MEAN_VARIANCE_NORMALIZATION1_OPERATOR_DESC d{&x.desc, &gamma.desc, &gamma.desc, &y.desc, 1, axes,
                                                             TRUE, 1e-5f, nullptr};
            report("layer_norm_512x4096", type, DML_OPERATOR_MEAN_VARIANCE_NORMALIZATION1, &d,
                   {X.Get(), S.Get(), B.Get()}, {Y.Get()}, double(x.Bytes() + y.Bytes()));
        }
        {
            Tensor x(F32, {1, 256, 56, 56}), stat(F32, {1, 256, 1, 1}), y(F32, {1, 256, 56, 56});
            auto X = bench.Random(x), M = bench.Random(stat), S = bench.Random(stat), B = bench.Random(stat);
            // A variance of ones: positive, so the figure times numbers, not NaNs.
            std::vector<float> ones(256, 1.0f);
            auto V = bench.Upload(ones.data(), ones.size() * 4);
            auto Y = bench.Buffer(y.Bytes());
            DML_BATCH_NORMALIZATION_OPERATOR_DESC d{&x.desc, &stat.desc, &stat.desc, &stat.desc, &stat.desc, &y.desc,
                                                    TRUE, 1e-5f, nullptr};
            report("batch_norm_256x56x56", F32, DML_OPERATOR_BATCH_NORMALIZATION, &d,
                   {X.Get(), M.Get(), V.Get(), S.Get(), B.Get()}, {Y.Get()}, double(x.Bytes() + y.Bytes()));
        }
    }
    return 0;
}
