// Element-wise throughput on the CPU, in one run, as GB/s moved (bytes read + bytes written), for
// issue 5's table: large packed FLOAT32 and FLOAT16 tensors, unary (IDENTITY, EXP, SIGMOID, TANH,
// ABS, SOFTMAX over rows of 1024, ERF and GELU) and binary (ADD, SUBTRACT, MULTIPLY, DIVIDE, MAX)
// operators:
//   - copy bandwidth: memcpy of one tensor's bytes on 1, 2 and pool-size threads, in this process;
//   - FreeDML kernel: the CPU kernel's Execute on host memory, no API (IDENTITY and the binary
//     operators, whose kernels are public to the library; n/a for the others);
//   - FreeDML API: the operator through D3D12 + DirectML on the CPU adapter: a command list with one
//     recorded dispatch, re-executed (ExecuteCommandLists + fence wait) every iteration;
//   - PyTorch: bench/elementwise_torch.py on the same sizes and thread count, when python3-torch exists.
// The machine may be shared: the whole measurement runs `--rounds` times (the copy, then for each
// operator PyTorch's figure and FreeDML's, one right after the other), and each figure printed is
// the median over rounds (of the median of the timed iterations after warm-up within a round); the
// ratios are medians of each round's own ratios, so they compare figures taken moments apart. Then a PASS/FAIL line for
// issue 5's target: packed binary FLOAT32 at >= 0.80 of the copy bandwidth and >= 1.0x PyTorch.
// Usage:
//   elementwise_bench [--elements N] [--iterations K] [--rounds R] [--no-torch] [--ops EXP,ADD,...]
// FREEDML_BENCH_PYTHON names the Python with torch (default python3; Debian's is /usr/bin/python3).
#include <wsl/winadapter.h>
#include <directx/d3d12.h>
#include <directx/d3dx12.h>
#include <dxguids/dxguids.h>
#include <DirectML.h>
#include <wrl/client.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
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

#include "dml/ops/elementwise_binary/cpu/binary_kernels.h"
#include "dml/ops/elementwise_unary/cpu/elementwise.h"
#include "dml/kernels/cpu/float16.h"
#include "backend/cpu/cpu_backend.h"
#include "common/thread_pool.h"

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

// The median of positive values (0 when there is none).
double Median(std::vector<double> values) {
    values.erase(std::remove_if(values.begin(), values.end(), [](double v) { return !(v > 0); }), values.end());
    if (values.empty()) return 0;
    std::sort(values.begin(), values.end());
    const size_t half = values.size() / 2;
    return values.size() % 2 ? values[half] : (values[half - 1] + values[half]) / 2;
}

struct OpSpec {
    std::string name;     // "MULTIPLY"
    DML_TENSOR_DATA_TYPE type;
    int operands;         // 1 (unary) or 2 (binary)
};

// The operators of the table, unary first; every one exists as a DirectML operator of its name.
// SOFTMAX (ACTIVATION_SOFTMAX over the last axis) runs on rows of kSoftmaxRow elements.
const std::vector<std::pair<std::string, DML_OPERATOR_TYPE>> kOperators = {
    {"IDENTITY", DML_OPERATOR_ELEMENT_WISE_IDENTITY}, {"EXP", DML_OPERATOR_ELEMENT_WISE_EXP},
    {"SIGMOID", DML_OPERATOR_ACTIVATION_SIGMOID},     {"TANH", DML_OPERATOR_ELEMENT_WISE_TANH},
    {"ABS", DML_OPERATOR_ELEMENT_WISE_ABS},           {"SOFTMAX", DML_OPERATOR_ACTIVATION_SOFTMAX},
    {"ERF", DML_OPERATOR_ELEMENT_WISE_ERF},           {"GELU", DML_OPERATOR_ACTIVATION_GELU},
    {"ADD", DML_OPERATOR_ELEMENT_WISE_ADD},
    {"SUBTRACT", DML_OPERATOR_ELEMENT_WISE_SUBTRACT}, {"MULTIPLY", DML_OPERATOR_ELEMENT_WISE_MULTIPLY},
    {"DIVIDE", DML_OPERATOR_ELEMENT_WISE_DIVIDE},     {"MAX", DML_OPERATOR_ELEMENT_WISE_MAX}};

constexpr uint32_t kSoftmaxRow = 1024;

bool IsBinary(const std::string& name) {
    return name == "ADD" || name == "SUBTRACT" || name == "MULTIPLY" || name == "DIVIDE" || name == "MAX";
}

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

bool BinaryOpFromName(const std::string& name, freedml::dml::BinaryOp* op) {
    static const std::map<std::string, freedml::dml::BinaryOp> kOps = {
        {"ADD", freedml::dml::BinaryOp::Add},           {"SUBTRACT", freedml::dml::BinaryOp::Subtract},
        {"MULTIPLY", freedml::dml::BinaryOp::Multiply}, {"DIVIDE", freedml::dml::BinaryOp::Divide},
        {"MAX", freedml::dml::BinaryOp::Max}};
    auto it = kOps.find(name);
    if (it == kOps.end()) return false;
    *op = it->second;
    return true;
}

// ---- Kernel level ---------------------------------------------------------------------------------

// The kernel-level figures' threads: as many as the CPU device's kernels get.
freedml::ThreadPool& KernelThreads() {
    static freedml::ThreadPool pool(freedml::backend::cpu::CpuThreadCount());
    return pool;
}

// 0 where the operator's kernel is not callable from outside the library.
double KernelSeconds(const OpSpec& spec, uint32_t n, std::vector<std::byte>& a, std::vector<std::byte>& b,
                     std::vector<std::byte>& out) {
    TensorDesc desc = Packed(spec.type, n);
    cpu::TensorView va{&desc, a.data()}, vb{&desc, b.data()}, vo{&desc, out.data()};
    if (spec.name == "IDENTITY") {
        cpu::IdentityKernel k;
        if (!k.Create({desc, desc, false, {1, 0}}).ok()) return 0;
        return MedianSeconds([&] { k.Execute(&KernelThreads(), va, vo, nullptr, nullptr); });
    }
    cpu::BinaryParams params;
    if (!BinaryOpFromName(spec.name, &params.op)) return 0;
    params.a = params.b = params.output = desc;
    cpu::BinaryKernel k;
    if (!k.Create(params).ok()) return 0;
    return MedianSeconds([&] { k.Execute(&KernelThreads(), va, vb, vo); });
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
    // Softmax's rows: kSoftmaxRow elements each (one row of n when n is not a multiple).
    const bool rows = spec.name == "SOFTMAX" && n % kSoftmaxRow == 0;
    const UINT sizes[4] = {1, 1, rows ? n / kSoftmaxRow : 1, rows ? kSoftmaxRow : n};
    DML_BUFFER_TENSOR_DESC buffer{spec.type, DML_TENSOR_FLAG_NONE, 4, sizes, nullptr,
                                  (uint64_t(n) * ElementSizeInBytes(spec.type) + 3) / 4 * 4, 0};
    DML_TENSOR_DESC t{DML_TENSOR_TYPE_BUFFER, &buffer};
    // The unary descs here are {Input, Output[, ScaleBias]} and the binary ones {A, B, Output}: one
    // struct of each layout serves every operator of the table.
    DML_ELEMENT_WISE_IDENTITY_OPERATOR_DESC unary{&t, &t, nullptr};
    DML_ELEMENT_WISE_ADD_OPERATOR_DESC binary{&t, &t, &t};
    DML_OPERATOR_DESC opDesc{};
    for (const auto& [name, type] : kOperators) {
        if (name == spec.name) opDesc.Type = type;
    }
    opDesc.Desc = spec.operands == 1 ? static_cast<const void*>(&unary) : static_cast<const void*>(&binary);

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

// bench/elementwise_torch.py --serve in a child process, asked for one figure at a time, so that
// PyTorch and FreeDML measure the same operator moments apart. Its other output goes to stderr.
class TorchServer {
public:
    bool Start(uint32_t n) {
        const char* script = std::getenv("FREEDML_BENCH_TORCH_SCRIPT");  // where the source tree moved
        const char* python = std::getenv("FREEDML_BENCH_PYTHON");  // the interpreter that has torch
        const std::string command = std::string(python ? python : "python3") + " " +
                                    (script ? script : FREEDML_BENCH_TORCH_SCRIPT) + " --serve --elements " +
                                    std::to_string(n) + " --iterations " + std::to_string(gIterations) + " --threads " +
                                    std::to_string(freedml::backend::cpu::CpuThreadCount());
        int toChild[2], fromChild[2];
        if (pipe(toChild) != 0) return false;
        if (pipe(fromChild) != 0) return false;
        pid_ = fork();
        if (pid_ < 0) return false;
        if (pid_ == 0) {
            dup2(toChild[0], 0);
            dup2(fromChild[1], 1);
            for (int fd : {toChild[0], toChild[1], fromChild[0], fromChild[1]}) close(fd);
            execl("/bin/sh", "sh", "-c", command.c_str(), static_cast<char*>(nullptr));
            _exit(127);
        }
        close(toChild[0]);
        close(fromChild[1]);
        to_ = fdopen(toChild[1], "w");
        from_ = fdopen(fromChild[0], "r");
        std::string line;
        while (ReadLine(&line)) {
            if (line == "READY") return true;
            std::fprintf(stderr, "torch: %s\n", line.c_str());
        }
        return false;  // no PyTorch: the script said why and ended
    }

    // GB/s of `op` on `type` (0 when PyTorch lacks it or the server is gone).
    double Measure(const std::string& op, const char* type) {
        if (!to_ || !from_) return 0;
        std::fprintf(to_, "%s %s\n", op.c_str(), type);
        std::fflush(to_);
        std::string line;
        while (ReadLine(&line)) {
            char name[64], dtype[32];
            double gbps = 0;
            if (std::sscanf(line.c_str(), "RESULT %63s %31s %lf", name, dtype, &gbps) == 3) return gbps;
            std::fprintf(stderr, "torch: %s\n", line.c_str());
            if (line.rfind("UNAVAILABLE", 0) == 0) return 0;
        }
        return 0;
    }

    ~TorchServer() {
        if (to_) std::fclose(to_);  // end of input: the script ends
        if (from_) std::fclose(from_);
        if (pid_ > 0) waitpid(pid_, nullptr, 0);
    }

private:
    bool ReadLine(std::string* line) {
        char buffer[512];
        if (!from_ || !std::fgets(buffer, sizeof(buffer), from_)) return false;
        *line = buffer;
        while (!line->empty() && (line->back() == '\n' || line->back() == '\r')) line->pop_back();
        return true;
    }

    pid_t pid_ = -1;
    FILE* to_ = nullptr;
    FILE* from_ = nullptr;
};

// One operator's figures over the rounds: GB/s and ratios, a value per round.
struct Figures {
    std::vector<double> api, kernel, torch, apiOverCopy, apiOverTorch;
};

void FillRandom(DML_TENSOR_DATA_TYPE type, std::mt19937& random, std::vector<std::byte>& bytes) {
    const size_t count = bytes.size() / ElementSizeInBytes(type);
    std::uniform_real_distribution<float> values(0.5f, 2.0f);
    for (size_t i = 0; i < count; ++i) {
        const float x = values(random);
        if (type == DML_TENSOR_DATA_TYPE_FLOAT32) {
            std::memcpy(&bytes[i * 4], &x, 4);
        } else {
            const uint16_t h = cpu::FloatToHalf(x);
            std::memcpy(&bytes[i * 2], &h, 2);
        }
    }
}

std::string Number(double value, const char* format = "%.1f") {
    if (!(value > 0)) return "n/a";
    char text[32];
    std::snprintf(text, sizeof(text), format, value);
    return text;
}

}  // namespace

int main(int argc, char** argv) {
    uint32_t n = 1u << 24;  // 64 MiB per FLOAT32 tensor: far beyond the caches
    int rounds = 3;
    bool torch = true;
    std::string opFilter;
    for (int i = 1; i < argc; ++i) {
        std::string arg = argv[i];
        if (arg == "--elements" && i + 1 < argc) n = uint32_t(std::strtoul(argv[++i], nullptr, 0));
        else if (arg == "--iterations" && i + 1 < argc) gIterations = std::max(1, std::atoi(argv[++i]));
        else if (arg == "--rounds" && i + 1 < argc) rounds = std::max(1, std::atoi(argv[++i]));
        else if (arg == "--no-torch") torch = false;
        else if (arg == "--ops" && i + 1 < argc) opFilter = "," + std::string(argv[++i]) + ",";
        else {
            std::fprintf(stderr,
                         "usage: %s [--elements N] [--iterations K] [--rounds R] [--no-torch] [--ops EXP,ADD,...]\n",
                         argv[0]);
            return 2;
        }
    }
    const DML_TENSOR_DATA_TYPE kTypes[] = {DML_TENSOR_DATA_TYPE_FLOAT32, DML_TENSOR_DATA_TYPE_FLOAT16};
    std::vector<OpSpec> specs;
    for (auto type : kTypes) {
        for (const auto& [name, opType] : kOperators) {
            if (!opFilter.empty() && opFilter.find("," + name + ",") == std::string::npos) continue;
            specs.push_back({name, type, IsBinary(name) ? 2 : 1});
        }
    }

    // Started first: the child is forked before this process holds threads and large buffers.
    TorchServer torchServer;
    if (torch && !torchServer.Start(n)) std::fprintf(stderr, "PyTorch did not start: no PyTorch figures.\n");
    Api api;
    if (!api.ok) std::fprintf(stderr, "The D3D12/DirectML CPU device did not start: no API figures.\n");
    const unsigned threads = freedml::backend::cpu::CpuThreadCount();
    std::mt19937 random(42);
    std::map<DML_TENSOR_DATA_TYPE, std::array<std::vector<std::byte>, 3>> buffers;  // a, b, out
    for (auto type : kTypes) {
        auto& [a, b, out] = buffers[type];
        const size_t bytes = size_t(n) * ElementSizeInBytes(type);
        a.resize(bytes), b.resize(bytes), out.resize(bytes);
        FillRandom(type, random, a);
        FillRandom(type, random, b);
    }

    std::map<DML_TENSOR_DATA_TYPE, std::vector<double>> copy, copy1, copy2, copyN;
    std::map<std::string, Figures> figures;  // "OP/TYPE"
    for (int round = 0; round < rounds; ++round) {
        std::fprintf(stderr, "round %d of %d\n", round + 1, rounds);
        for (auto type : kTypes) {
            auto& [a, b, out] = buffers[type];
            const size_t bytes = a.size();
            // The copy bandwidth is the best of 1, 2 and `threads` concurrent memcpys of the tensor's bytes.
            const double s1 = CopySeconds(out, a, 1), s2 = CopySeconds(out, a, 2),
                         sN = threads > 2 ? CopySeconds(out, a, threads) : s2;
            const double copyGbps = 2.0 * bytes / std::min({s1, s2, sN}) / 1e9;
            copy[type].push_back(copyGbps);
            copy1[type].push_back(2.0 * bytes / s1 / 1e9);
            copy2[type].push_back(2.0 * bytes / s2 / 1e9);
            copyN[type].push_back(2.0 * bytes / sN / 1e9);
            for (const auto& spec : specs) {
                if (spec.type != type) continue;
                const double moved = double(bytes) * (spec.operands + 1);
                const double torchGbps = torchServer.Measure(spec.name, TypeName(type));
                const double kernel = KernelSeconds(spec, n, a, b, out);
                const double apiSeconds = api.ok ? ApiSeconds(api, spec, n, a, b) : 0;
                const double apiGbps = apiSeconds > 0 ? moved / apiSeconds / 1e9 : 0;
                Figures& f = figures[spec.name + "/" + TypeName(type)];
                f.api.push_back(apiGbps);
                f.kernel.push_back(kernel > 0 ? moved / kernel / 1e9 : 0);
                f.torch.push_back(torchGbps);
                f.apiOverCopy.push_back(apiGbps / copyGbps);
                f.apiOverTorch.push_back(torchGbps > 0 ? apiGbps / torchGbps : 0);
            }
        }
    }

    std::printf("elements per tensor: %u, iterations: %d (median), rounds: %d (median of the rounds), threads: %u "
                "(FreeDML's pool, PyTorch, widest memcpy)\n\n",
                n, gIterations, rounds, threads);
    std::printf("%-9s %-8s %11s %11s %11s %11s %9s %9s\n", "operator", "type", "API GB/s", "kernel GB/s",
                "memcpy GB/s", "torch GB/s", "API/copy", "API/torch");
    double worstCopy = 1e9, worstTorch = 1e9;
    std::string worstCopyOp, worstTorchOp;
    for (auto type : kTypes) {
        const double copyGbps = Median(copy[type]);
        std::printf("%-9s %-8s %11s %11s %11.1f %11s %9s %9s   (1 thread %.1f, 2 threads %.1f, %u threads %.1f)\n",
                    "memcpy", TypeName(type), "", "", copyGbps, "", "", "", Median(copy1[type]), Median(copy2[type]),
                    threads, Median(copyN[type]));
        for (const auto& spec : specs) {
            if (spec.type != type) continue;
            const Figures& f = figures[spec.name + "/" + TypeName(type)];
            const double overCopy = Median(f.apiOverCopy), overTorch = Median(f.apiOverTorch);
            std::printf("%-9s %-8s %11.1f %11s %11.1f %11s %9.2f %9s\n", spec.name.c_str(), TypeName(type),
                        Median(f.api), Number(Median(f.kernel)).c_str(), copyGbps, Number(Median(f.torch)).c_str(),
                        overCopy, Number(overTorch, "%.2f").c_str());
            if (type == DML_TENSOR_DATA_TYPE_FLOAT32 && spec.operands == 2) {
                if (overCopy < worstCopy) worstCopy = overCopy, worstCopyOp = spec.name;
                // No PyTorch figure counts as failing the comparison.
                if (overTorch < worstTorch) worstTorch = overTorch, worstTorchOp = spec.name;
            }
        }
    }
    if (worstCopyOp.empty()) {
        std::printf("\nissue 5 target: no packed binary FLOAT32 operator measured (see --ops)\n");
        return 0;
    }
    const bool pass = worstCopy >= 0.80 && worstTorch >= 1.0;
    std::printf("\nissue 5 target, packed binary FLOAT32 >= 0.80 of copy bandwidth and >= 1.00x PyTorch: %s "
                "(lowest: %s %.2f of copy, %s %s PyTorch)\n",
                pass ? "PASS" : "FAIL", worstCopyOp.c_str(), worstCopy, worstTorchOp.c_str(),
                worstTorch > 0 ? (Number(worstTorch, "%.2f") + "x").c_str() : "no figure for");
    return 0;
}
