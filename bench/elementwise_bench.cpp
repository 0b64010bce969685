// Element-wise throughput on the CPU, in one run, as GB/s moved (bytes read + bytes written):
//   - copy bandwidth: memcpy of one tensor's bytes on 1, 2 and pool-size threads, in this process;
//   - FreeDML kernel: the CPU kernel's Execute on host memory (no API);
//   - FreeDML API: the same operator through D3D12 + DirectML on the CPU adapter: a command list
//     with one recorded dispatch, re-executed (ExecuteCommandLists + fence wait) every iteration;
//   - PyTorch: bench/elementwise_torch.py on the same sizes and thread count, when python3-torch exists.
// Each figure is the median of the timed iterations after warm-up. Usage:
//   elementwise_bench [--elements N] [--iterations K] [--no-torch] [--ops MULTIPLY,ADD,...]
// FREEDML_BENCH_PYTHON names the Python with torch (default python3; Debian's is /usr/bin/python3).
#include <wsl/winadapter.h>
#include <directx/d3d12.h>
#include <directx/d3dx12.h>
#include <dxguids/dxguids.h>
#include <DirectML.h>
#include <wrl/client.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <map>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "dml/kernels/cpu/binary_kernels.h"
#include "dml/kernels/cpu/elementwise.h"
#include "dml/kernels/cpu/float16.h"
#include "dml/kernels/cpu/thread_pool.h"

using Microsoft::WRL::ComPtr;
using namespace freedml::dml;

namespace {

using Clock = std::chrono::steady_clock;

int gIterations = 15;

double MedianSeconds(const std::function<void()>& body, int iterations = gIterations) {
    for (int i = 0; i < 3; ++i) body();  // warm-up: page faults, pool threads, caches
    std::vector<double> times;
    for (int i = 0; i < iterations; ++i) {
        auto start = Clock::now();
        body();
        times.push_back(std::chrono::duration<double>(Clock::now() - start).count());
    }
    std::sort(times.begin(), times.end());
    return times[times.size() / 2];
}

struct OpSpec {
    std::string name;     // "MULTIPLY"
    DML_TENSOR_DATA_TYPE type;
    int operands;         // 1 (unary: IDENTITY) or 2
};

const char* TypeName(DML_TENSOR_DATA_TYPE t) { return t == DML_TENSOR_DATA_TYPE_FLOAT16 ? "FLOAT16" : "FLOAT32"; }

TensorDesc Packed(DML_TENSOR_DATA_TYPE type, uint32_t n) {
    TensorDesc d;
    d.dataType = type;
    d.rank = 4;
    d.sizes = {1, 1, 1, n};
    d.strides = {n, n, n, 1};
    d.totalTensorSizeInBytes = (uint64_t(n) * ElementSizeInBytes(type) + 3) / 4 * 4;
    return d;
}

bool BinaryOpFromName(const std::string& name, cpu::BinaryOp* op) {
    static const std::map<std::string, cpu::BinaryOp> kOps = {
        {"SUBTRACT", cpu::BinaryOp::Subtract}, {"MULTIPLY", cpu::BinaryOp::Multiply},
        {"DIVIDE", cpu::BinaryOp::Divide},     {"MAX", cpu::BinaryOp::Max},
        {"MIN", cpu::BinaryOp::Min}};
    auto it = kOps.find(name);
    if (it == kOps.end()) return false;
    *op = it->second;
    return true;
}

// ---- Kernel level ---------------------------------------------------------------------------------

double KernelSeconds(const OpSpec& spec, uint32_t n, std::vector<std::byte>& a, std::vector<std::byte>& b,
                     std::vector<std::byte>& out) {
    TensorDesc desc = Packed(spec.type, n);
    cpu::TensorView va{&desc, a.data()}, vb{&desc, b.data()}, vo{&desc, out.data()};
    if (spec.name == "IDENTITY") {
        cpu::IdentityKernel k;
        if (!k.Create({desc, desc, false, {1, 0}}).ok()) return 0;
        return MedianSeconds([&] { k.Execute(va, vo, nullptr, nullptr); });
    }
    if (spec.name == "ADD") {
        cpu::AddKernel k;
        if (!k.Create({desc, desc, desc, {}}).ok()) return 0;
        return MedianSeconds([&] { k.Execute(va, vb, vo, nullptr, nullptr); });
    }
    cpu::BinaryParams params;
    if (!BinaryOpFromName(spec.name, &params.op)) return 0;
    params.a = params.b = params.output = desc;
    cpu::BinaryKernel k;
    if (!k.Create(params).ok()) return 0;
    return MedianSeconds([&] { k.Execute(va, vb, vo); });
}

// ---- API level ----------------------------------------------------------------------------------

struct Api {
    ComPtr<ID3D12Device> d3d;
    ComPtr<ID3D12CommandQueue> queue;
    ComPtr<ID3D12CommandAllocator> allocator;
    ComPtr<ID3D12GraphicsCommandList> list;
    ComPtr<ID3D12Fence> fence;
    UINT64 fenceValue = 0;
    ComPtr<ID3D12DescriptorHeap> heap;
    ComPtr<IDMLDevice> dml;
    ComPtr<IDMLCommandRecorder> recorder;
    bool ok = false;

    Api() {
        setenv("FREEDML_ADAPTER", "cpu", 0);
        if (FAILED(D3D12CreateDevice(nullptr, D3D_FEATURE_LEVEL_11_0, IID_PPV_ARGS(&d3d)))) return;
        D3D12_COMMAND_QUEUE_DESC q{};
        q.Type = D3D12_COMMAND_LIST_TYPE_COMPUTE;
        d3d->CreateCommandQueue(&q, IID_PPV_ARGS(&queue));
        d3d->CreateCommandAllocator(D3D12_COMMAND_LIST_TYPE_COMPUTE, IID_PPV_ARGS(&allocator));
        d3d->CreateCommandList(0, D3D12_COMMAND_LIST_TYPE_COMPUTE, allocator.Get(), nullptr, IID_PPV_ARGS(&list));
        d3d->CreateFence(0, D3D12_FENCE_FLAG_NONE, IID_PPV_ARGS(&fence));
        D3D12_DESCRIPTOR_HEAP_DESC h{D3D12_DESCRIPTOR_HEAP_TYPE_CBV_SRV_UAV, 64, D3D12_DESCRIPTOR_HEAP_FLAG_SHADER_VISIBLE, 0};
        d3d->CreateDescriptorHeap(&h, IID_PPV_ARGS(&heap));
        ok = queue && list && fence && heap &&
             SUCCEEDED(DMLCreateDevice(d3d.Get(), DML_CREATE_DEVICE_FLAG_NONE, IID_PPV_ARGS(&dml))) &&
             SUCCEEDED(dml->CreateCommandRecorder(IID_PPV_ARGS(&recorder)));
    }

    ComPtr<ID3D12Resource> Buffer(UINT64 size, D3D12_HEAP_TYPE type) {
        CD3DX12_HEAP_PROPERTIES properties(type);
        auto desc = CD3DX12_RESOURCE_DESC::Buffer(
            size, type == D3D12_HEAP_TYPE_DEFAULT ? D3D12_RESOURCE_FLAG_ALLOW_UNORDERED_ACCESS : D3D12_RESOURCE_FLAG_NONE);
        ComPtr<ID3D12Resource> r;
        d3d->CreateCommittedResource(&properties, D3D12_HEAP_FLAG_NONE, &desc,
                                     type == D3D12_HEAP_TYPE_UPLOAD ? D3D12_RESOURCE_STATE_GENERIC_READ
                                                                    : D3D12_RESOURCE_STATE_COMMON,
                                     nullptr, IID_PPV_ARGS(&r));
        return r;
    }

    void Submit() {
        ID3D12CommandList* lists[] = {list.Get()};
        queue->ExecuteCommandLists(1, lists);
        queue->Signal(fence.Get(), ++fenceValue);
        fence->SetEventOnCompletion(fenceValue, nullptr);  // blocks until the queue reaches it
    }

    void Upload(ID3D12Resource* target, const std::vector<std::byte>& bytes) {
        auto staging = Buffer(bytes.size(), D3D12_HEAP_TYPE_UPLOAD);
        void* mapped = nullptr;
        staging->Map(0, nullptr, &mapped);
        std::memcpy(mapped, bytes.data(), bytes.size());
        staging->Unmap(0, nullptr);
        list->CopyBufferRegion(target, 0, staging.Get(), 0, bytes.size());
        list->Close();
        Submit();
        allocator->Reset();
        list->Reset(allocator.Get(), nullptr);
    }
};

double ApiSeconds(Api& api, const OpSpec& spec, uint32_t n, const std::vector<std::byte>& a,
                  const std::vector<std::byte>& b) {
    const UINT sizes[4] = {1, 1, 1, n};
    DML_BUFFER_TENSOR_DESC buffer{spec.type, DML_TENSOR_FLAG_NONE, 4, sizes, nullptr,
                                  (uint64_t(n) * ElementSizeInBytes(spec.type) + 3) / 4 * 4, 0};
    DML_TENSOR_DESC t{DML_TENSOR_TYPE_BUFFER, &buffer};
    DML_OPERATOR_DESC opDesc{};
    DML_ELEMENT_WISE_IDENTITY_OPERATOR_DESC identity{&t, &t, nullptr};
    DML_ELEMENT_WISE_ADD_OPERATOR_DESC binary{&t, &t, &t};  // {A, B, Output}: shared by every binary op here
    static const std::map<std::string, DML_OPERATOR_TYPE> kTypes = {
        {"IDENTITY", DML_OPERATOR_ELEMENT_WISE_IDENTITY}, {"ADD", DML_OPERATOR_ELEMENT_WISE_ADD},
        {"SUBTRACT", DML_OPERATOR_ELEMENT_WISE_SUBTRACT}, {"MULTIPLY", DML_OPERATOR_ELEMENT_WISE_MULTIPLY},
        {"DIVIDE", DML_OPERATOR_ELEMENT_WISE_DIVIDE},     {"MAX", DML_OPERATOR_ELEMENT_WISE_MAX},
        {"MIN", DML_OPERATOR_ELEMENT_WISE_MIN}};
    opDesc.Type = kTypes.at(spec.name);
    opDesc.Desc = spec.operands == 1 ? static_cast<const void*>(&identity) : static_cast<const void*>(&binary);

    ComPtr<IDMLOperator> op;
    ComPtr<IDMLCompiledOperator> compiled;
    if (FAILED(api.dml->CreateOperator(&opDesc, IID_PPV_ARGS(&op))) ||
        FAILED(api.dml->CompileOperator(op.Get(), DML_EXECUTION_FLAG_NONE, IID_PPV_ARGS(&compiled)))) {
        std::fprintf(stderr, "%s %s: the operator does not compile\n", spec.name.c_str(), TypeName(spec.type));
        return 0;
    }
    auto inA = api.Buffer(buffer.TotalTensorSizeInBytes, D3D12_HEAP_TYPE_DEFAULT);
    auto inB = api.Buffer(buffer.TotalTensorSizeInBytes, D3D12_HEAP_TYPE_DEFAULT);
    auto out = api.Buffer(buffer.TotalTensorSizeInBytes, D3D12_HEAP_TYPE_DEFAULT);
    api.Upload(inA.Get(), a);
    api.Upload(inB.Get(), b);

    // Initialize (no owned inputs, no persistent resource for element-wise operators).
    ComPtr<IDMLOperatorInitializer> initializer;
    IDMLCompiledOperator* ops[] = {compiled.Get()};
    api.dml->CreateOperatorInitializer(1, ops, IID_PPV_ARGS(&initializer));
    auto tableFor = [&](IDMLDispatchable* d, UINT first) {
        DML_BINDING_TABLE_DESC desc{d, CD3DX12_CPU_DESCRIPTOR_HANDLE(api.heap->GetCPUDescriptorHandleForHeapStart(), first,
                                                                     api.d3d->GetDescriptorHandleIncrementSize(
                                                                         D3D12_DESCRIPTOR_HEAP_TYPE_CBV_SRV_UAV)),
                                    CD3DX12_GPU_DESCRIPTOR_HANDLE(api.heap->GetGPUDescriptorHandleForHeapStart(), first,
                                                                  api.d3d->GetDescriptorHandleIncrementSize(
                                                                      D3D12_DESCRIPTOR_HEAP_TYPE_CBV_SRV_UAV)),
                                    d->GetBindingProperties().RequiredDescriptorCount};
        ComPtr<IDMLBindingTable> table;
        api.dml->CreateBindingTable(&desc, IID_PPV_ARGS(&table));
        return table;
    };
    ID3D12DescriptorHeap* heaps[] = {api.heap.Get()};
    {
        auto table = tableFor(initializer.Get(), 0);
        api.list->SetDescriptorHeaps(1, heaps);
        api.recorder->RecordDispatch(api.list.Get(), initializer.Get(), table.Get());
        api.list->Close();
        api.Submit();
        api.allocator->Reset();
        api.list->Reset(api.allocator.Get(), nullptr);
    }
    auto table = tableFor(compiled.Get(), 16);
    DML_BUFFER_BINDING ab{inA.Get(), 0, buffer.TotalTensorSizeInBytes}, bb{inB.Get(), 0, buffer.TotalTensorSizeInBytes},
        ob{out.Get(), 0, buffer.TotalTensorSizeInBytes};
    DML_BINDING_DESC inputs[2] = {{DML_BINDING_TYPE_BUFFER, &ab}, {DML_BINDING_TYPE_BUFFER, &bb}};
    DML_BINDING_DESC output{DML_BINDING_TYPE_BUFFER, &ob};
    table->BindInputs(spec.operands, inputs);
    table->BindOutputs(1, &output);
    // Record once; every iteration re-executes the closed list.
    api.list->SetDescriptorHeaps(1, heaps);
    api.recorder->RecordDispatch(api.list.Get(), compiled.Get(), table.Get());
    api.list->Close();
    const double seconds = MedianSeconds([&] { api.Submit(); });
    api.allocator->Reset();
    api.list->Reset(api.allocator.Get(), nullptr);
    if (FAILED(api.d3d->GetDeviceRemovedReason())) {
        std::fprintf(stderr, "%s %s: the device was removed\n", spec.name.c_str(), TypeName(spec.type));
        return 0;
    }
    return seconds;
}

// ---- Copy bandwidth -----------------------------------------------------------------------------

double CopySeconds(std::vector<std::byte>& dst, const std::vector<std::byte>& src, unsigned threads) {
    return MedianSeconds([&] {
        const size_t n = src.size(), chunk = (n / threads + 63) / 64 * 64;
        std::vector<std::thread> workers;
        for (unsigned t = 1; t < threads; ++t) {
            workers.emplace_back([&, t] {
                size_t begin = std::min(n, t * chunk), end = std::min(n, begin + chunk);
                std::memcpy(dst.data() + begin, src.data() + begin, end - begin);
            });
        }
        std::memcpy(dst.data(), src.data(), std::min(n, chunk));
        for (auto& w : workers) w.join();
    });
}

// ---- PyTorch ------------------------------------------------------------------------------------

// "OP DTYPE GBPS" lines from the script, keyed "OP/DTYPE".
std::map<std::string, double> RunTorch(uint32_t n) {
    std::map<std::string, double> results;
    const char* script = std::getenv("FREEDML_BENCH_TORCH_SCRIPT");  // where the source tree moved
    const char* python = std::getenv("FREEDML_BENCH_PYTHON");  // the interpreter that has torch
    std::string command = std::string(python ? python : "python3") + " " + (script ? script : FREEDML_BENCH_TORCH_SCRIPT) + " --elements " + std::to_string(n) +
                          " --iterations " + std::to_string(gIterations) + " --threads " +
                          std::to_string(cpu::ThreadCount()) + " 2>&1";
    FILE* pipe = popen(command.c_str(), "r");
    if (!pipe) return results;
    char line[512];
    while (std::fgets(line, sizeof(line), pipe)) {
        char op[64], dtype[32];
        double gbps = 0;
        if (std::sscanf(line, "RESULT %63s %31s %lf", op, dtype, &gbps) == 3) {
            results[std::string(op) + "/" + dtype] = gbps;
        } else {
            std::fprintf(stderr, "torch: %s", line);
        }
    }
    pclose(pipe);
    return results;
}

}  // namespace

int main(int argc, char** argv) {
    uint32_t n = 1u << 24;  // 64 MiB per FLOAT32 tensor: far beyond the caches
    bool torch = true;
    std::vector<OpSpec> specs;
    std::string opFilter;
    for (int i = 1; i < argc; ++i) {
        std::string arg = argv[i];
        if (arg == "--elements" && i + 1 < argc) n = uint32_t(std::strtoul(argv[++i], nullptr, 0));
        else if (arg == "--iterations" && i + 1 < argc) gIterations = std::max(1, std::atoi(argv[++i]));
        else if (arg == "--no-torch") torch = false;
        else if (arg == "--ops" && i + 1 < argc) opFilter = "," + std::string(argv[++i]) + ",";
        else {
            std::fprintf(stderr, "usage: %s [--elements N] [--iterations K] [--no-torch] [--ops A,B]\n", argv[0]);
            return 2;
        }
    }
    for (auto type : {DML_TENSOR_DATA_TYPE_FLOAT32, DML_TENSOR_DATA_TYPE_FLOAT16}) {
        for (const char* name : {"IDENTITY", "ADD", "SUBTRACT", "MULTIPLY", "DIVIDE", "MAX"}) {
            if (!opFilter.empty() && opFilter.find("," + std::string(name) + ",") == std::string::npos) continue;
            specs.push_back({name, type, std::string(name) == "IDENTITY" ? 1 : 2});
        }
    }

    std::map<std::string, double> torchResults;
    if (torch) torchResults = RunTorch(n);

    Api api;
    if (!api.ok) std::fprintf(stderr, "The D3D12/DirectML CPU device did not start: no API figures.\n");
    std::mt19937 random(42);
    const unsigned threads = cpu::ThreadCount();
    std::printf("elements per tensor: %u, iterations: %d (median), threads: %u (FreeDML's pool, PyTorch, widest memcpy)\n\n",
                n, gIterations, threads);
    std::printf("%-9s %-8s %11s %11s %11s %11s %9s %9s\n", "operator", "type", "API GB/s", "kernel GB/s",
                "memcpy GB/s", "torch GB/s", "API/copy", "API/torch");
    for (auto type : {DML_TENSOR_DATA_TYPE_FLOAT32, DML_TENSOR_DATA_TYPE_FLOAT16}) {
        const size_t bytes = size_t(n) * ElementSizeInBytes(type);
        std::vector<std::byte> a(bytes), b(bytes), out(bytes);
        for (size_t i = 0; i < bytes / ElementSizeInBytes(type); ++i) {
            float x = std::uniform_real_distribution<float>(0.5f, 2.0f)(random);
            float y = std::uniform_real_distribution<float>(0.5f, 2.0f)(random);
            if (type == DML_TENSOR_DATA_TYPE_FLOAT32) {
                std::memcpy(&a[i * 4], &x, 4);
                std::memcpy(&b[i * 4], &y, 4);
            } else {
                uint16_t hx = cpu::FloatToHalf(x), hy = cpu::FloatToHalf(y);
                std::memcpy(&a[i * 2], &hx, 2);
                std::memcpy(&b[i * 2], &hy, 2);
            }
        }
        // The copy bandwidth is the best of 1, 2 and `threads` concurrent memcpys of the tensor's bytes.
        const double copy1 = CopySeconds(out, a, 1), copy2 = CopySeconds(out, a, 2),
                     copyN = threads > 2 ? CopySeconds(out, a, threads) : copy2;
        const double copyGbps = 2.0 * bytes / std::min({copy1, copy2, copyN}) / 1e9;
        std::printf("%-9s %-8s %11s %11s %11.1f %11s %9s %9s   (1 thread %.1f, 2 threads %.1f, %u threads %.1f)\n",
                    "memcpy", TypeName(type), "", "", copyGbps, "", "", "", 2.0 * bytes / copy1 / 1e9,
                    2.0 * bytes / copy2 / 1e9, threads, 2.0 * bytes / copyN / 1e9);
        for (const auto& spec : specs) {
            if (spec.type != type) continue;
            const double moved = double(bytes) * (spec.operands + 1);
            const double kernel = KernelSeconds(spec, n, a, b, out);
            const double apiSeconds = api.ok ? ApiSeconds(api, spec, n, a, b) : 0;
            const double apiGbps = apiSeconds > 0 ? moved / apiSeconds / 1e9 : 0;
            const double kernelGbps = kernel > 0 ? moved / kernel / 1e9 : 0;
            auto it = torchResults.find(spec.name + "/" + TypeName(type));
            const double torchGbps = it == torchResults.end() ? 0 : it->second;
            char torchText[32] = "n/a", ratioText[32] = "n/a";
            if (torchGbps > 0) {
                std::snprintf(torchText, sizeof(torchText), "%.1f", torchGbps);
                std::snprintf(ratioText, sizeof(ratioText), "%.2f", apiGbps / torchGbps);
            }
            std::printf("%-9s %-8s %11.1f %11.1f %11.1f %11s %9.2f %9s\n", spec.name.c_str(), TypeName(type), apiGbps,
                        kernelGbps, copyGbps, torchText, apiGbps / copyGbps, ratioText);
        }
    }
    return 0;
}
