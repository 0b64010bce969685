// One training step of a small CNN composed from DirectML operators through the public API, as a
// DirectML training framework records it: every operator compiled and initialized once, one binding
// table each, and the whole step (forward, loss, backward, optimizer) recorded into ONE command list
// with a UAV barrier after each dispatch; the closed list is re-executed for every step (two
// identical lists take turns, so that one step waits in the queue while the other runs).
// training_bench.cpp times it; tests/training checks it against a float64 reference.
//
// The network (NCHW, FLOAT32; sizes from NetConfig, the benchmark's defaults in brackets):
//   x {N, Cin, S, S}                     [32, 3, 32, 32]
//   CONVOLUTION 3x3 pad 1, no bias       -> c1 {N, C1, S, S}        [C1 = 32]
//   BATCH_NORMALIZATION_TRAINING (g1, be1) -> z1, batch mean1 and variance1
//   ACTIVATION_RELU                      -> a1
//   MAX_POOLING 2x2 stride 2             -> p1 {N, C1, S/2, S/2}
//   CONVOLUTION 3x3 pad 1, no bias       -> c2 {N, C2, S/2, S/2}    [C2 = 64]
//   BATCH_NORMALIZATION_TRAINING (g2, be2), ACTIVATION_RELU, MAX_POOLING 2x2 -> p2 {N, C2, S/4, S/4}
//   GEMM p2 {N, F} x W3^T {F, K} + b3    -> logits {N, K}           [F = C2 (S/4)^2 = 4096, K = 10]
//   ACTIVATION_LOG_SOFTMAX1 over K, loss = -(1/N) sum(onehot * logp) (a GEMM dot product)
// Backward, with D = exp(logp) - onehot (N times the gradient of the mean loss by the logits; the
// 1/N rides in the GEMMs' Alpha):
//   gW3 = D^T p2 / N, gb3 = ones^T D / N, gp2 = D W3 / N                       (GEMM)
//   MAX_POOLING_GRAD, ACTIVATION_RELU_GRAD, BATCH_NORMALIZATION_TRAINING_GRAD    (-> gc2, gg2, gbe2)
//   gp1 = CONVOLUTION BACKWARD (transposed) of gc2 by W2
//   gW2 = a FORWARD CONVOLUTION with batch and channels swapped: input p1 as {C1, N, ...}, filter gc2
//         as {C2, N, ...}, output {C1, C2, 3, 3}; the swaps are ELEMENT_WISE_IDENTITY copies of
//         strided views (oneDNN takes packed tensors), and a last copy puts gW2 as {C2, C1, 3, 3}
//   the same for the first block (-> gW1, gg1, gbe1; no gradient for x)
//   (NetConfig::weightGradient = Unfold instead: UNFOLD the layer input to columns {N, Cin*9, s*s},
//   a GEMM batched over the N images, gc[n] x columns[n]^T, and a REDUCE SUM over the images)
// Optimizer: ADAM_OPTIMIZER in place on each of the 8 parameter tensors with its two moments and
// the shared training-step tensor (1 at the first step), then step += 1 (ELEMENT_WISE_IDENTITY with
// ScaleBias, in place). Optimizer::Sgd replaces Adam by plain SGD from element-wise operators
// (s = -lr g; p += s), for builds without ADAM_OPTIMIZER.
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
#include <deque>
#include <map>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace freedml_train {

using Microsoft::WRL::ComPtr;

// How the convolutions' weight gradients are composed (see the top of this file).
enum class WeightGradient {
    SwappedConvolution,  // a FORWARD CONVOLUTION of the batch-channel-swapped tensors
    Unfold,              // UNFOLD (im2col), a GEMM batched over the images, REDUCE SUM over them
};

struct NetConfig {
    UINT batch = 32, inChannels = 3, size = 32, c1 = 32, c2 = 64, classes = 10;
    WeightGradient weightGradient = WeightGradient::SwappedConvolution;
};

enum class Optimizer { Adam, Sgd };

struct Hyper {
    float learningRate = 1e-3f, beta1 = 0.9f, beta2 = 0.999f, epsilon = 1e-8f, bnEpsilon = 1e-5f;
};

// The parameters in the order the optimizer updates them.
inline const std::vector<std::string>& ParameterNames() {
    static const std::vector<std::string> names{"W1", "g1", "be1", "W2", "g2", "be2", "W3", "b3"};
    return names;
}

class TrainingStep {
public:
    TrainingStep(const NetConfig& net, Optimizer optimizer, const Hyper& hyper)
        : net_(net), optimizer_(optimizer), hyper_(hyper) {
        Check(D3D12CreateDevice(nullptr, D3D_FEATURE_LEVEL_11_0, IID_PPV_ARGS(&d3d_)), "D3D12CreateDevice");
        D3D12_COMMAND_QUEUE_DESC q{D3D12_COMMAND_LIST_TYPE_COMPUTE};
        Check(d3d_->CreateCommandQueue(&q, IID_PPV_ARGS(&queue_)), "CreateCommandQueue");
        Check(d3d_->CreateCommandAllocator(D3D12_COMMAND_LIST_TYPE_COMPUTE, IID_PPV_ARGS(&allocator_)),
              "CreateCommandAllocator");
        Check(d3d_->CreateCommandList(0, D3D12_COMMAND_LIST_TYPE_COMPUTE, allocator_.Get(), nullptr,
                                      IID_PPV_ARGS(&list_)),
              "CreateCommandList");
        Check(d3d_->CreateFence(0, D3D12_FENCE_FLAG_NONE, IID_PPV_ARGS(&fence_)), "CreateFence");
        D3D12_DESCRIPTOR_HEAP_DESC h{D3D12_DESCRIPTOR_HEAP_TYPE_CBV_SRV_UAV, kDescriptors,
                                     D3D12_DESCRIPTOR_HEAP_FLAG_SHADER_VISIBLE, 0};
        Check(d3d_->CreateDescriptorHeap(&h, IID_PPV_ARGS(&heap_)), "CreateDescriptorHeap");
        increment_ = d3d_->GetDescriptorHandleIncrementSize(D3D12_DESCRIPTOR_HEAP_TYPE_CBV_SRV_UAV);
        Check(DMLCreateDevice(d3d_.Get(), DML_CREATE_DEVICE_FLAG_NONE, IID_PPV_ARGS(&dml_)), "DMLCreateDevice");
        Check(dml_->CreateCommandRecorder(IID_PPV_ARGS(&recorder_)), "CreateCommandRecorder");
        Build();
        Initialize();
        RecordStep();
    }

    const NetConfig& Net() const { return net_; }
    size_t OperatorCount() const { return ops_.size(); }

    // Whether this FreeDML compiles ADAM_OPTIMIZER (the benchmark falls back to SGD where not).
    static bool CompilesAdam() {
        ComPtr<ID3D12Device> d3d;
        ComPtr<IDMLDevice> dml;
        if (FAILED(D3D12CreateDevice(nullptr, D3D_FEATURE_LEVEL_11_0, IID_PPV_ARGS(&d3d))) ||
            FAILED(DMLCreateDevice(d3d.Get(), DML_CREATE_DEVICE_FLAG_NONE, IID_PPV_ARGS(&dml))))
            return false;
        const UINT sizes[] = {1, 1, 1, 4}, one[] = {1, 1, 1, 1};
        DML_BUFFER_TENSOR_DESC b{DML_TENSOR_DATA_TYPE_FLOAT32, DML_TENSOR_FLAG_NONE, 4, sizes, nullptr, 16, 0};
        DML_BUFFER_TENSOR_DESC s{DML_TENSOR_DATA_TYPE_FLOAT32, DML_TENSOR_FLAG_NONE, 4, one, nullptr, 4, 0};
        DML_TENSOR_DESC t{DML_TENSOR_TYPE_BUFFER, &b}, st{DML_TENSOR_TYPE_BUFFER, &s};
        DML_ADAM_OPTIMIZER_OPERATOR_DESC d{&t, &t, &t, &t, &st, &t, &t, &t, 1e-3f, 0.9f, 0.999f, 1e-8f};
        DML_OPERATOR_DESC od{DML_OPERATOR_ADAM_OPTIMIZER, &d};
        ComPtr<IDMLOperator> op;
        ComPtr<IDMLCompiledOperator> compiled;
        return SUCCEEDED(dml->CreateOperator(&od, IID_PPV_ARGS(&op))) &&
               SUCCEEDED(dml->CompileOperator(op.Get(), DML_EXECUTION_FLAG_NONE, IID_PPV_ARGS(&compiled)));
    }

    void Write(const std::string& name, const std::vector<float>& values) {
        Resource& r = buffers_.at(name);
        if (values.size() != r.elements) throw std::runtime_error("Write(" + name + "): wrong element count");
        auto upload = Buffer(values.size() * 4, D3D12_HEAP_TYPE_UPLOAD);
        void* mapped = nullptr;
        Check(upload->Map(0, nullptr, &mapped), "Map");
        std::memcpy(mapped, values.data(), values.size() * 4);
        upload->Unmap(0, nullptr);
        list_->CopyBufferRegion(r.resource.Get(), 0, upload.Get(), 0, values.size() * 4);
        RunList();
    }

    std::vector<float> Read(const std::string& name) {
        Resource& r = buffers_.at(name);
        auto readback = Buffer(r.elements * 4, D3D12_HEAP_TYPE_READBACK);
        list_->CopyBufferRegion(readback.Get(), 0, r.resource.Get(), 0, r.elements * 4);
        RunList();
        std::vector<float> values(r.elements);
        void* mapped = nullptr;
        Check(readback->Map(0, nullptr, &mapped), "Map");
        std::memcpy(values.data(), mapped, values.size() * 4);
        readback->Unmap(0, nullptr);
        return values;
    }

    // Executes the recorded step `count` times and waits for the last. The step is recorded in two
    // identical lists that take turns, so one step is queued while the other runs (a command list
    // may be executed again only once its previous execution has finished).
    void Steps(int count) {
        for (int i = 0; i < count; ++i) {
            const int k = i % 2;
            if (stepFence_[k]) Check(fence_->SetEventOnCompletion(stepFence_[k], nullptr), "SetEventOnCompletion");
            ID3D12CommandList* lists[] = {step_[k].Get()};
            queue_->ExecuteCommandLists(1, lists);
            Check(queue_->Signal(fence_.Get(), ++fenceValue_), "Signal");
            stepFence_[k] = fenceValue_;
        }
        Check(fence_->SetEventOnCompletion(fenceValue_, nullptr), "SetEventOnCompletion");
    }

    // Median milliseconds of each operator alone (its dispatch recorded `reps` times in one list,
    // with barriers), in step order. Leaves the state garbage: run it after everything else.
    std::vector<std::pair<std::string, double>> Profile(int reps, int runs = 5) {
        std::vector<std::pair<std::string, double>> result;
        for (const Op& op : ops_) {
            std::vector<double> times;
            for (int r = 0; r <= runs; ++r) {
                ID3D12DescriptorHeap* heaps[] = {heap_.Get()};
                list_->SetDescriptorHeaps(1, heaps);
                for (int i = 0; i < reps; ++i) {
                    recorder_->RecordDispatch(list_.Get(), op.compiled.Get(), op.table.Get());
                    auto barrier = CD3DX12_RESOURCE_BARRIER::UAV(nullptr);
                    list_->ResourceBarrier(1, &barrier);
                }
                const auto start = std::chrono::steady_clock::now();
                RunList();
                if (r > 0)
                    times.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
                                        .count() / reps);
            }
            std::sort(times.begin(), times.end());
            result.emplace_back(op.name, times[times.size() / 2]);
        }
        return result;
    }

private:
    static constexpr UINT kDescriptors = 4096;

    struct Resource {
        ComPtr<ID3D12Resource> resource;
        UINT64 elements = 0;
    };
    struct Op {
        std::string name;
        ComPtr<IDMLCompiledOperator> compiled;
        ComPtr<IDMLBindingTable> table;
        ComPtr<ID3D12Resource> temporary, persistent;
        UINT64 persistentSize = 0;
    };
    struct Desc {
        std::vector<UINT> sizes, strides;
        DML_BUFFER_TENSOR_DESC buffer{};
        DML_TENSOR_DESC desc{};
    };

    static void Check(HRESULT hr, const char* what) {
        if (FAILED(hr)) {
            char message[160];
            std::snprintf(message, sizeof message, "%s failed (0x%08x)", what, unsigned(hr));
            throw std::runtime_error(message);
        }
    }

    ComPtr<ID3D12Resource> Buffer(UINT64 size, D3D12_HEAP_TYPE type = D3D12_HEAP_TYPE_DEFAULT) {
        CD3DX12_HEAP_PROPERTIES p(type);
        auto desc = CD3DX12_RESOURCE_DESC::Buffer(
            std::max<UINT64>(size, 256),
            type == D3D12_HEAP_TYPE_DEFAULT ? D3D12_RESOURCE_FLAG_ALLOW_UNORDERED_ACCESS : D3D12_RESOURCE_FLAG_NONE);
        D3D12_RESOURCE_STATES state = type == D3D12_HEAP_TYPE_UPLOAD     ? D3D12_RESOURCE_STATE_GENERIC_READ
                                      : type == D3D12_HEAP_TYPE_READBACK ? D3D12_RESOURCE_STATE_COPY_DEST
                                                                         : D3D12_RESOURCE_STATE_COMMON;
        ComPtr<ID3D12Resource> r;
        Check(d3d_->CreateCommittedResource(&p, D3D12_HEAP_FLAG_NONE, &desc, state, nullptr, IID_PPV_ARGS(&r)),
              "CreateCommittedResource");
        return r;
    }

    void Wait() {
        Check(queue_->Signal(fence_.Get(), ++fenceValue_), "Signal");
        Check(fence_->SetEventOnCompletion(fenceValue_, nullptr), "SetEventOnCompletion");
    }

    void RunList() {
        Check(list_->Close(), "Close");
        ID3D12CommandList* lists[] = {list_.Get()};
        queue_->ExecuteCommandLists(1, lists);
        Wait();
        Check(allocator_->Reset(), "Reset");
        Check(list_->Reset(allocator_.Get(), nullptr), "Reset");
    }

    void Declare(const std::string& name, UINT64 elements) {
        buffers_[name] = {Buffer(elements * 4), elements};
    }

    // A FLOAT32 tensor desc that lives as long as this object.
    const DML_TENSOR_DESC* T(std::vector<UINT> sizes, std::vector<UINT> strides = {}) {
        Desc& d = descs_.emplace_back();
        d.sizes = std::move(sizes);
        d.strides = std::move(strides);
        d.buffer = {DML_TENSOR_DATA_TYPE_FLOAT32, DML_TENSOR_FLAG_NONE, UINT(d.sizes.size()), d.sizes.data(),
                    d.strides.empty() ? nullptr : d.strides.data(), 0, 0};
        d.buffer.TotalTensorSizeInBytes =
            DMLCalcBufferTensorSize(DML_TENSOR_DATA_TYPE_FLOAT32, UINT(d.sizes.size()), d.sizes.data(),
                                    d.buffer.Strides);
        d.desc = {DML_TENSOR_TYPE_BUFFER, &d.buffer};
        return &d.desc;
    }

    // Compiles an operator and remembers the buffers its inputs and outputs bind ("" = none).
    void Add(const char* name, DML_OPERATOR_TYPE type, const void* desc, std::vector<std::string> inputs,
             std::vector<std::string> outputs) {
        Op op;
        op.name = name;
        DML_OPERATOR_DESC od{type, desc};
        ComPtr<IDMLOperator> created;
        Check(dml_->CreateOperator(&od, IID_PPV_ARGS(&created)), (std::string("CreateOperator ") + name).c_str());
        Check(dml_->CompileOperator(created.Get(), DML_EXECUTION_FLAG_NONE, IID_PPV_ARGS(&op.compiled)),
              (std::string("CompileOperator ") + name).c_str());
        ops_.push_back(std::move(op));
        bindings_.emplace_back(std::move(inputs), std::move(outputs));
    }

    ComPtr<IDMLBindingTable> Table(IDMLDispatchable* dispatchable) {
        const auto props = dispatchable->GetBindingProperties();
        const UINT count = std::max<UINT>(props.RequiredDescriptorCount, 1);
        if (nextDescriptor_ + count > kDescriptors) throw std::runtime_error("descriptor heap exhausted");
        DML_BINDING_TABLE_DESC desc{
            dispatchable,
            CD3DX12_CPU_DESCRIPTOR_HANDLE(heap_->GetCPUDescriptorHandleForHeapStart(), INT(nextDescriptor_), increment_),
            CD3DX12_GPU_DESCRIPTOR_HANDLE(heap_->GetGPUDescriptorHandleForHeapStart(), INT(nextDescriptor_), increment_),
            props.RequiredDescriptorCount};
        nextDescriptor_ += count;
        ComPtr<IDMLBindingTable> table;
        Check(dml_->CreateBindingTable(&desc, IID_PPV_ARGS(&table)), "CreateBindingTable");
        return table;
    }

    void Build() {
        const NetConfig& n = net_;
        const UINT N = n.batch, Ci = n.inChannels, S = n.size, C1 = n.c1, C2 = n.c2, K = n.classes;
        const UINT S2 = S / 2, S4 = S / 4, F = C2 * S4 * S4;
        const float invN = 1.0f / float(N);
        // Data, parameters and what the step keeps.
        Declare("x", UINT64(N) * Ci * S * S);
        Declare("onehot", UINT64(N) * K);
        Declare("ones", N);
        Declare("step", 1);
        const std::map<std::string, UINT64> params{{"W1", UINT64(C1) * Ci * 9}, {"g1", C1}, {"be1", C1},
                                                   {"W2", UINT64(C2) * C1 * 9}, {"g2", C2}, {"be2", C2},
                                                   {"W3", UINT64(K) * F},       {"b3", K}};
        for (const auto& [name, count] : params) {
            Declare(name, count);
            Declare("g" + name, count);
            if (optimizer_ == Optimizer::Adam) {
                Declare("m" + name, count);
                Declare("v" + name, count);
            } else {
                Declare("s" + name, count);  // -lr * gradient
            }
        }
        // Activations and their gradients.
        for (const char* name : {"c1", "z1", "a1", "gp1", "ga1", "gz1", "gc1", "gc1T"}) {
            const bool pooled = std::strcmp(name, "gp1") == 0;
            Declare(name, UINT64(N) * C1 * (pooled ? S2 * S2 : S * S));
        }
        // The weight gradients' scratch: swapped copies, or UNFOLD's columns (9 times larger).
        const UINT64 columns = net_.weightGradient == WeightGradient::Unfold ? 9 : 1;
        Declare("xT", UINT64(N) * Ci * S * S * columns);
        Declare("p1", UINT64(N) * C1 * S2 * S2);
        Declare("p1T", UINT64(N) * C1 * S2 * S2 * columns);
        for (const char* name : {"c2", "z2", "a2", "ga2", "gz2", "gc2", "gc2T"}) Declare(name, UINT64(N) * C2 * S2 * S2);
        Declare("p2", UINT64(N) * F);
        Declare("gp2", UINT64(N) * F);
        for (const char* name : {"mean1", "var1"}) Declare(name, C1);
        for (const char* name : {"mean2", "var2"}) Declare(name, C2);
        for (const char* name : {"logits", "logp", "prob", "d"}) Declare(name, UINT64(N) * K);
        Declare("loss", 1);
        const UINT64 images = net_.weightGradient == WeightGradient::Unfold ? N : 1;
        Declare("gW1T", UINT64(C1) * Ci * 9 * images);
        Declare("gW2T", UINT64(C2) * C1 * 9 * images);

        static const UINT one2[] = {1, 1}, pad1[] = {1, 1}, zero2[] = {0, 0}, two2[] = {2, 2}, axis3[] = {3};
        auto conv = [&](const char* name, const DML_TENSOR_DESC* in, const DML_TENSOR_DESC* filter,
                        const DML_TENSOR_DESC* out, DML_CONVOLUTION_DIRECTION direction,
                        std::vector<std::string> inputs, std::string output) {
            DML_CONVOLUTION_OPERATOR_DESC d{in,   filter, nullptr, out,  DML_CONVOLUTION_MODE_CROSS_CORRELATION,
                                            direction, 2, one2, one2, pad1, pad1, zero2, 1, nullptr};
            inputs.push_back("");
            Add(name, DML_OPERATOR_CONVOLUTION, &d, std::move(inputs), {std::move(output)});
        };
        auto bn = [&](const char* name, UINT C, UINT s, const char* c, const char* g, const char* be, const char* z,
                      const char* mean, const char* var) {
            const DML_TENSOR_DESC *x = T({N, C, s, s}), *stat = T({1, C, 1, 1});
            DML_BATCH_NORMALIZATION_TRAINING_OPERATOR_DESC d{x, stat, stat, nullptr, x, stat, stat,
                                                             hyper_.bnEpsilon, nullptr};
            Add(name, DML_OPERATOR_BATCH_NORMALIZATION_TRAINING, &d, {c, g, be, ""}, {z, mean, var});
        };
        auto relu = [&](const char* name, UINT C, UINT s, const char* in, const char* out) {
            const DML_TENSOR_DESC* x = T({N, C, s, s});
            DML_ACTIVATION_RELU_OPERATOR_DESC d{x, x};
            Add(name, DML_OPERATOR_ACTIVATION_RELU, &d, {in}, {out});
        };
        auto pool = [&](const char* name, UINT C, UINT s, const char* in, const char* out) {
            DML_MAX_POOLING_OPERATOR_DESC d{T({N, C, s, s}), T({N, C, s / 2, s / 2}), 2, two2, two2, zero2, zero2};
            Add(name, DML_OPERATOR_MAX_POOLING, &d, {in}, {out});
        };
        auto gemm = [&](const char* name, const DML_TENSOR_DESC* a, const DML_TENSOR_DESC* b, const DML_TENSOR_DESC* c,
                        const DML_TENSOR_DESC* out, DML_MATRIX_TRANSFORM ta, DML_MATRIX_TRANSFORM tb, float alpha,
                        float beta, std::vector<std::string> inputs, std::string output) {
            DML_GEMM_OPERATOR_DESC d{a, b, c, out, ta, tb, alpha, beta, nullptr};
            Add(name, DML_OPERATOR_GEMM, &d, std::move(inputs), {std::move(output)});
        };
        // {A, B, C, D} viewed as {B, A, C, D}: the batch and channel swap of the weight gradients.
        auto swapped = [&](UINT a, UINT b, UINT c, UINT d) { return T({b, a, c, d}, {c * d, b * c * d, d, 1}); };
        auto copy = [&](const char* name, const DML_TENSOR_DESC* in, const DML_TENSOR_DESC* out, const char* from,
                        const char* to) {
            DML_ELEMENT_WISE_IDENTITY_OPERATOR_DESC d{in, out, nullptr};
            Add(name, DML_OPERATOR_ELEMENT_WISE_IDENTITY, &d, {from}, {to});
        };
        const auto NONE = DML_MATRIX_TRANSFORM_NONE, TRANS = DML_MATRIX_TRANSFORM_TRANSPOSE;
        const auto FWD = DML_CONVOLUTION_DIRECTION_FORWARD, BWD = DML_CONVOLUTION_DIRECTION_BACKWARD;

        // ---- Forward and loss ----
        conv("conv1", T({N, Ci, S, S}), T({C1, Ci, 3, 3}), T({N, C1, S, S}), FWD, {"x", "W1"}, "c1");
        bn("bn1", C1, S, "c1", "g1", "be1", "z1", "mean1", "var1");
        relu("relu1", C1, S, "z1", "a1");
        pool("pool1", C1, S, "a1", "p1");
        conv("conv2", T({N, C1, S2, S2}), T({C2, C1, 3, 3}), T({N, C2, S2, S2}), FWD, {"p1", "W2"}, "c2");
        bn("bn2", C2, S2, "c2", "g2", "be2", "z2", "mean2", "var2");
        relu("relu2", C2, S2, "z2", "a2");
        pool("pool2", C2, S2, "a2", "p2");
        gemm("fc", T({1, 1, N, F}), T({1, 1, K, F}), T({1, 1, N, K}, {0, 0, 0, 1}), T({1, 1, N, K}), NONE, TRANS,
             1.0f, 1.0f, {"p2", "W3", "b3"}, "logits");
        {
            const DML_TENSOR_DESC* l = T({1, 1, N, K});
            DML_ACTIVATION_LOG_SOFTMAX1_OPERATOR_DESC d{l, l, 1, axis3};
            Add("log_softmax", DML_OPERATOR_ACTIVATION_LOG_SOFTMAX1, &d, {"logits"}, {"logp"});
        }
        gemm("loss", T({1, 1, 1, N * K}), T({1, 1, N * K, 1}), nullptr, T({1, 1, 1, 1}), NONE, NONE, -invN, 0.0f,
             {"onehot", "logp", ""}, "loss");

        // ---- Backward ----
        {
            const DML_TENSOR_DESC* l = T({1, 1, N, K});
            DML_ELEMENT_WISE_EXP_OPERATOR_DESC e{l, l, nullptr};
            Add("softmax (exp)", DML_OPERATOR_ELEMENT_WISE_EXP, &e, {"logp"}, {"prob"});
            DML_ELEMENT_WISE_SUBTRACT_OPERATOR_DESC s{l, l, l};
            Add("softmax - onehot", DML_OPERATOR_ELEMENT_WISE_SUBTRACT, &s, {"prob", "onehot"}, {"d"});
        }
        gemm("fc grad W", T({1, 1, N, K}), T({1, 1, N, F}), nullptr, T({1, 1, K, F}), TRANS, NONE, invN, 0.0f,
             {"d", "p2", ""}, "gW3");
        gemm("fc grad b", T({1, 1, 1, N}), T({1, 1, N, K}), nullptr, T({1, 1, 1, K}), NONE, NONE, invN, 0.0f,
             {"ones", "d", ""}, "gb3");
        gemm("fc grad input", T({1, 1, N, K}), T({1, 1, K, F}), nullptr, T({1, 1, N, F}), NONE, NONE, invN, 0.0f,
             {"d", "W3", ""}, "gp2");
        auto block = [&](const char* tag, UINT Cin, UINT C, UINT s, const char* in, const char* inT, const char* W,
                         const char* c, const char* z, const char* a, const char* gp, const char* ga, const char* gz,
                         const char* mean, const char* var, const char* g, const char* gc, const char* gcT,
                         const char* gg, const char* gbe, const char* gWT, const char* gW, const char* gin) {
            const std::string t = tag;
            {
                DML_MAX_POOLING_GRAD_OPERATOR_DESC d{T({N, C, s, s}), T({N, C, s / 2, s / 2}), T({N, C, s, s}), 2,
                                                     two2, two2, zero2, zero2, one2};
                Add(("pool" + t + " grad").c_str(), DML_OPERATOR_MAX_POOLING_GRAD, &d, {a, gp}, {ga});
            }
            {
                const DML_TENSOR_DESC* x = T({N, C, s, s});
                DML_ACTIVATION_RELU_GRAD_OPERATOR_DESC d{x, x, x};
                Add(("relu" + t + " grad").c_str(), DML_OPERATOR_ACTIVATION_RELU_GRAD, &d, {z, ga}, {gz});
            }
            {
                const DML_TENSOR_DESC *x = T({N, C, s, s}), *stat = T({1, C, 1, 1});
                DML_BATCH_NORMALIZATION_TRAINING_GRAD_OPERATOR_DESC d{x, x, stat, stat, stat, x, stat, stat,
                                                                      hyper_.bnEpsilon};
                Add(("bn" + t + " grad").c_str(), DML_OPERATOR_BATCH_NORMALIZATION_TRAINING_GRAD, &d,
                    {c, gz, mean, var, g}, {gc, gg, gbe});
            }
            if (gin) {
                conv(("conv" + t + " grad input").c_str(), T({N, C, s, s}), T({C, Cin, 3, 3}), T({N, Cin, s, s}), BWD,
                     {gc, W}, gin);
            }
            if (net_.weightGradient == WeightGradient::Unfold) {
                // gW[co, (ci, k)] = sum over n of gc[n] {C, s*s} x cols[n]^T {s*s, Cin*9}.
                static const UINT window[] = {3, 3}, axis1[] = {1};
                DML_UNFOLD_OPERATOR_DESC u{T({N, Cin, s, s}), T({1, N, Cin * 9, s * s}), 2, window, one2, one2, pad1, pad1};
                Add(("conv" + t + " grad W: unfold").c_str(), DML_OPERATOR_UNFOLD, &u, {in}, {inT});
                gemm(("conv" + t + " grad W: batched GEMM").c_str(), T({1, N, C, s * s}), T({1, N, Cin * 9, s * s}),
                     nullptr, T({1, N, C, Cin * 9}), NONE, TRANS, 1.0f, 0.0f, {gc, inT, ""}, gWT);
                DML_REDUCE_OPERATOR_DESC r{DML_REDUCE_FUNCTION_SUM, T({1, N, C, Cin * 9}), T({1, 1, C, Cin * 9}), 1,
                                           axis1};
                Add(("conv" + t + " grad W: sum over images").c_str(), DML_OPERATOR_REDUCE, &r, {gWT}, {gW});
                return;
            }
            copy(("conv" + t + " grad W: input swap").c_str(), swapped(N, Cin, s, s), T({Cin, N, s, s}), in, inT);
            copy(("conv" + t + " grad W: gradient swap").c_str(), swapped(N, C, s, s), T({C, N, s, s}), gc, gcT);
            conv(("conv" + t + " grad W").c_str(), T({Cin, N, s, s}), T({C, N, s, s}), T({Cin, C, 3, 3}), FWD,
                 {inT, gcT}, gWT);
            copy(("conv" + t + " grad W: output swap").c_str(), swapped(Cin, C, 3, 3), T({C, Cin, 3, 3}), gWT, gW);
        };
        block("2", C1, C2, S2, "p1", "p1T", "W2", "c2", "z2", "a2", "gp2", "ga2", "gz2", "mean2", "var2", "g2", "gc2",
              "gc2T", "gg2", "gbe2", "gW2T", "gW2", "gp1");
        block("1", Ci, C1, S, "x", "xT", "W1", "c1", "z1", "a1", "gp1", "ga1", "gz1", "mean1", "var1", "g1", "gc1",
              "gc1T", "gg1", "gbe1", "gW1T", "gW1", nullptr);

        // ---- Optimizer ----
        for (const std::string& p : ParameterNames()) {
            const DML_TENSOR_DESC* t = T({1, 1, 1, UINT(params.at(p))});
            if (optimizer_ == Optimizer::Adam) {
                DML_ADAM_OPTIMIZER_OPERATOR_DESC d{t, t, t, t, T({1, 1, 1, 1}), t, t, t, hyper_.learningRate,
                                                   hyper_.beta1, hyper_.beta2, hyper_.epsilon};
                Add(("adam " + p).c_str(), DML_OPERATOR_ADAM_OPTIMIZER, &d, {p, "m" + p, "v" + p, "g" + p, "step"},
                    {p, "m" + p, "v" + p});
            } else {
                DML_SCALE_BIAS scale{-hyper_.learningRate, 0.0f};
                DML_ELEMENT_WISE_IDENTITY_OPERATOR_DESC s{t, t, &scale};
                Add(("sgd " + p + " scale").c_str(), DML_OPERATOR_ELEMENT_WISE_IDENTITY, &s, {"g" + p}, {"s" + p});
                DML_ELEMENT_WISE_ADD_OPERATOR_DESC a{t, t, t};
                Add(("sgd " + p + " add").c_str(), DML_OPERATOR_ELEMENT_WISE_ADD, &a, {p, "s" + p}, {p});
            }
        }
        {
            const DML_TENSOR_DESC* t = T({1, 1, 1, 1});
            DML_SCALE_BIAS plusOne{1.0f, 1.0f};
            DML_ELEMENT_WISE_IDENTITY_OPERATOR_DESC d{t, t, &plusOne};
            Add("step + 1", DML_OPERATOR_ELEMENT_WISE_IDENTITY, &d, {"step"}, {"step"});
        }
    }

    // One initializer for every operator (their persistent resources), then each operator's binding
    // table with its buffers and temporary resource.
    void Initialize() {
        std::vector<IDMLCompiledOperator*> compiled;
        for (Op& op : ops_) {
            compiled.push_back(op.compiled.Get());
            const auto props = op.compiled->GetBindingProperties();
            if (props.PersistentResourceSize) op.persistent = Buffer(props.PersistentResourceSize);
            if (props.TemporaryResourceSize) op.temporary = Buffer(props.TemporaryResourceSize);
            op.persistentSize = props.PersistentResourceSize;
        }
        ComPtr<IDMLOperatorInitializer> init;
        Check(dml_->CreateOperatorInitializer(UINT(compiled.size()), compiled.data(), IID_PPV_ARGS(&init)),
              "CreateOperatorInitializer");
        auto initTable = Table(init.Get());
        std::vector<DML_BUFFER_BINDING> persistent(ops_.size());
        std::vector<DML_BINDING_DESC> outputs(ops_.size());
        for (size_t i = 0; i < ops_.size(); ++i) {
            if (ops_[i].persistent) {
                persistent[i] = {ops_[i].persistent.Get(), 0, ops_[i].persistentSize};
                outputs[i] = {DML_BINDING_TYPE_BUFFER, &persistent[i]};
            } else {
                outputs[i] = {DML_BINDING_TYPE_NONE, nullptr};
            }
        }
        initTable->BindOutputs(UINT(outputs.size()), outputs.data());
        ComPtr<ID3D12Resource> initTemporary;
        const auto initProps = init->GetBindingProperties();
        if (initProps.TemporaryResourceSize) {
            initTemporary = Buffer(initProps.TemporaryResourceSize);
            DML_BUFFER_BINDING b{initTemporary.Get(), 0, initProps.TemporaryResourceSize};
            DML_BINDING_DESC t{DML_BINDING_TYPE_BUFFER, &b};
            initTable->BindTemporaryResource(&t);
        }
        ID3D12DescriptorHeap* heaps[] = {heap_.Get()};
        list_->SetDescriptorHeaps(1, heaps);
        recorder_->RecordDispatch(list_.Get(), init.Get(), initTable.Get());
        RunList();

        for (size_t i = 0; i < ops_.size(); ++i) {
            Op& op = ops_[i];
            op.table = Table(op.compiled.Get());
            const auto& [inputs, outputs_] = bindings_[i];
            std::vector<DML_BUFFER_BINDING> b;
            b.reserve(inputs.size() + outputs_.size() + 2);
            std::vector<DML_BINDING_DESC> in, out;
            for (const std::string& name : inputs) {
                if (name.empty()) {
                    in.push_back({DML_BINDING_TYPE_NONE, nullptr});
                    continue;
                }
                const Resource& r = buffers_.at(name);
                b.push_back({r.resource.Get(), 0, r.resource->GetDesc().Width});
                in.push_back({DML_BINDING_TYPE_BUFFER, &b.back()});
            }
            for (const std::string& name : outputs_) {
                const Resource& r = buffers_.at(name);
                b.push_back({r.resource.Get(), 0, r.resource->GetDesc().Width});
                out.push_back({DML_BINDING_TYPE_BUFFER, &b.back()});
            }
            op.table->BindInputs(UINT(in.size()), in.data());
            op.table->BindOutputs(UINT(out.size()), out.data());
            if (op.temporary) {
                b.push_back({op.temporary.Get(), 0, op.temporary->GetDesc().Width});
                DML_BINDING_DESC t{DML_BINDING_TYPE_BUFFER, &b.back()};
                op.table->BindTemporaryResource(&t);
            }
            if (op.persistent) {
                b.push_back({op.persistent.Get(), 0, op.persistentSize});
                DML_BINDING_DESC p{DML_BINDING_TYPE_BUFFER, &b.back()};
                op.table->BindPersistentResource(&p);
            }
        }
        // Constants: ones for the bias gradient, and the first training step.
        Write("ones", std::vector<float>(net_.batch, 1.0f));
        Write("step", {1.0f});
    }

    void RecordStep() {
        for (int k = 0; k < 2; ++k) {
            Check(d3d_->CreateCommandAllocator(D3D12_COMMAND_LIST_TYPE_COMPUTE, IID_PPV_ARGS(&stepAllocator_[k])),
                  "CreateCommandAllocator");
            Check(d3d_->CreateCommandList(0, D3D12_COMMAND_LIST_TYPE_COMPUTE, stepAllocator_[k].Get(), nullptr,
                                          IID_PPV_ARGS(&step_[k])),
                  "CreateCommandList");
            ID3D12DescriptorHeap* heaps[] = {heap_.Get()};
            step_[k]->SetDescriptorHeaps(1, heaps);
            for (const Op& op : ops_) {
                recorder_->RecordDispatch(step_[k].Get(), op.compiled.Get(), op.table.Get());
                auto barrier = CD3DX12_RESOURCE_BARRIER::UAV(nullptr);
                step_[k]->ResourceBarrier(1, &barrier);
            }
            Check(step_[k]->Close(), "Close (step)");
        }
    }

    NetConfig net_;
    Optimizer optimizer_;
    Hyper hyper_;
    ComPtr<ID3D12Device> d3d_;
    ComPtr<ID3D12CommandQueue> queue_;
    ComPtr<ID3D12CommandAllocator> allocator_, stepAllocator_[2];
    ComPtr<ID3D12GraphicsCommandList> list_, step_[2];
    UINT64 stepFence_[2] = {0, 0};
    ComPtr<ID3D12Fence> fence_;
    UINT64 fenceValue_ = 0;
    ComPtr<ID3D12DescriptorHeap> heap_;
    UINT increment_ = 0, nextDescriptor_ = 0;
    ComPtr<IDMLDevice> dml_;
    ComPtr<IDMLCommandRecorder> recorder_;
    std::map<std::string, Resource> buffers_;
    std::deque<Desc> descs_;
    std::vector<Op> ops_;
    std::vector<std::pair<std::vector<std::string>, std::vector<std::string>>> bindings_;
};

}  // namespace freedml_train
