// Compiled graphs (IDMLDevice1::CompileGraph) against the same operators recorded as separate
// dispatches in one command list (with the UAV barriers an application puts between dependent
// dispatches), through the public API, on the adapter FREEDML_ADAPTER picks:
//   - a 20-node element-wise chain (IDENTITY with a scale and bias) over 4 Ki and 16 Mi floats;
//   - a 3-layer perceptron (GEMM, bias ADD, RELU per layer) at batch 16 x width 64 and
//     batch 512 x width 1024;
//   - CompileGraph's time per node for chains of 10 to 10,000 nodes;
//   - the graph's temporary resource against the sum of its intermediates.
// The graph runs what the optimizer made of it (graph/fusion.h: fused element-wise passes, biases and
// activations folded into GEMM); the bench checks that its output matches the separate dispatches'
// within 1e-4, and times the graph compiled with the optimizer off too (same kernels, same bits).
// Prints RESULT lines (bench_common.h). Usage: graph_bench [--rounds R] [--sample-seconds S] [--quick]
#include "bench_common.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <memory>

using namespace freedml_bench;

namespace {

struct Node {
    ComPtr<IDMLOperator> op;
    ComPtr<IDMLCompiledOperator> compiled;
    std::vector<int> inputs;  // < 0: graph input -(k + 1); kAbsent: an optional input left out; else a node
};

constexpr int kAbsent = -1000000;

// A DAG of operators (each node one output), runnable as separate dispatches or as one graph.
class Network {
public:
    Network(Api& api, int graphInputs) : api_(api), graphInputs_(graphInputs) {}

    int Add(DML_OPERATOR_TYPE type, const void* desc, std::vector<int> inputs) {
        DML_OPERATOR_DESC opDesc{type, desc};
        Node node;
        if (FAILED(api_.dml->CreateOperator(&opDesc, IID_PPV_ARGS(&node.op)))) failed_ = true;
        node.inputs = std::move(inputs);
        nodes_.push_back(std::move(node));
        return int(nodes_.size()) - 1;
    }
    bool Failed() const { return failed_; }

    // The graph of every node, its last node the only output; `fusion` false compiles it with the
    // graph optimizer off (FREEDML_GRAPH_FUSION=0), node by node.
    ComPtr<IDMLCompiledOperator> CompileGraph(bool fusion = true) {
        std::deque<DML_OPERATOR_GRAPH_NODE_DESC> opNodes;
        std::vector<DML_GRAPH_NODE_DESC> nodes;
        std::deque<DML_INPUT_GRAPH_EDGE_DESC> inputEdges;
        std::deque<DML_INTERMEDIATE_GRAPH_EDGE_DESC> intermediateEdges;
        std::vector<DML_GRAPH_EDGE_DESC> ins, mids;
        for (size_t n = 0; n < nodes_.size(); ++n) {
            opNodes.push_back({nodes_[n].op.Get(), nullptr});
            nodes.push_back({DML_GRAPH_NODE_TYPE_OPERATOR, &opNodes.back()});
            for (size_t i = 0; i < nodes_[n].inputs.size(); ++i) {
                const int source = nodes_[n].inputs[i];
                if (source == kAbsent) continue;
                if (source < 0) {
                    inputEdges.push_back({UINT(-source - 1), UINT(n), UINT(i), nullptr});
                    ins.push_back({DML_GRAPH_EDGE_TYPE_INPUT, &inputEdges.back()});
                } else {
                    intermediateEdges.push_back({UINT(source), 0, UINT(n), UINT(i), nullptr});
                    mids.push_back({DML_GRAPH_EDGE_TYPE_INTERMEDIATE, &intermediateEdges.back()});
                }
            }
        }
        DML_OUTPUT_GRAPH_EDGE_DESC outputEdge{UINT(nodes_.size() - 1), 0, 0, nullptr};
        DML_GRAPH_EDGE_DESC out{DML_GRAPH_EDGE_TYPE_OUTPUT, &outputEdge};
        DML_GRAPH_DESC desc{UINT(graphInputs_), 1, UINT(nodes.size()), nodes.data(), UINT(ins.size()), ins.data(), 1,
                            &out, UINT(mids.size()), mids.empty() ? nullptr : mids.data()};
        ComPtr<IDMLDevice1> dml1;
        ComPtr<IDMLCompiledOperator> compiled;
        if (!fusion) setenv("FREEDML_GRAPH_FUSION", "0", 1);
        const bool ok = SUCCEEDED(api_.dml.As(&dml1)) &&
                        SUCCEEDED(dml1->CompileGraph(&desc, DML_EXECUTION_FLAG_NONE, IID_PPV_ARGS(&compiled)));
        if (!fusion) unsetenv("FREEDML_GRAPH_FUSION");
        return ok ? compiled : nullptr;
    }

    // Records every node as its own dispatch into one list: `inputs` are the graph inputs'
    // bindings, `bytes[n]` node n's output size; node outputs live in buffers made here, the last
    // one being `output`.
    bool PrepareSeparate(const std::vector<DML_BUFFER_BINDING>& inputs, const std::vector<UINT64>& bytes,
                         ID3D12Resource* output) {
        if (FAILED(api_.d3d->CreateCommandAllocator(D3D12_COMMAND_LIST_TYPE_COMPUTE, IID_PPV_ARGS(&allocator_))) ||
            FAILED(api_.d3d->CreateCommandList(0, D3D12_COMMAND_LIST_TYPE_COMPUTE, allocator_.Get(), nullptr,
                                               IID_PPV_ARGS(&list_)))) {
            return false;
        }
        ID3D12DescriptorHeap* heaps[] = {api_.heap.Get()};
        list_->SetDescriptorHeaps(1, heaps);
        for (size_t n = 0; n < nodes_.size(); ++n) {
            Node& node = nodes_[n];
            if (FAILED(api_.dml->CompileOperator(node.op.Get(), DML_EXECUTION_FLAG_NONE, IID_PPV_ARGS(&node.compiled)))) {
                return false;
            }
            outputs_.push_back(n + 1 == nodes_.size() ? ComPtr<ID3D12Resource>(output) : api_.Buffer(bytes[n]));
            std::vector<DML_BUFFER_BINDING> in;
            for (int source : node.inputs) {
                in.push_back(source == kAbsent ? DML_BUFFER_BINDING{}
                             : source < 0      ? inputs[-source - 1]
                                               : DML_BUFFER_BINDING{outputs_[source].Get(), 0, bytes[source]});
            }
            std::vector<DML_BINDING_DESC> inDescs;
            for (auto& binding : in) inDescs.push_back(binding.Buffer ? Bind(&binding) : NoBinding());
            DML_BUFFER_BINDING outBinding{outputs_[n].Get(), 0, bytes[n]};
            auto bound = std::make_unique<BoundTable>();
            bound->persistent = api_.Initialize(node.compiled.Get());
            bound->table = api_.Table(node.compiled.Get());
            bound->table->BindInputs(UINT(inDescs.size()), inDescs.data());
            DML_BINDING_DESC outDesc = Bind(&outBinding);
            bound->table->BindOutputs(1, &outDesc);
            const DML_BINDING_PROPERTIES properties = node.compiled->GetBindingProperties();
            if (properties.TemporaryResourceSize) {
                bound->temporary = api_.Buffer(properties.TemporaryResourceSize);
                DML_BUFFER_BINDING t{bound->temporary.Get(), 0, properties.TemporaryResourceSize};
                DML_BINDING_DESC td = Bind(&t);
                bound->table->BindTemporaryResource(&td);
            }
            if (properties.PersistentResourceSize) {
                DML_BUFFER_BINDING p{bound->persistent.Get(), 0, properties.PersistentResourceSize};
                DML_BINDING_DESC pd = Bind(&p);
                bound->table->BindPersistentResource(&pd);
            }
            api_.recorder->RecordDispatch(list_.Get(), node.compiled.Get(), bound->table.Get());
            const auto barrier = CD3DX12_RESOURCE_BARRIER::UAV(nullptr);
            list_->ResourceBarrier(1, &barrier);
            tables_.push_back(std::move(bound));
        }
        return SUCCEEDED(list_->Close()) && !api_.Removed();
    }

    void RunSeparate() {
        ID3D12CommandList* lists[] = {list_.Get()};
        api_.queue->ExecuteCommandLists(1, lists);
        api_.queue->Signal(api_.fence.Get(), ++api_.fenceValue);
        api_.fence->SetEventOnCompletion(api_.fenceValue, nullptr);
    }

private:
    struct BoundTable {
        ComPtr<IDMLBindingTable> table;
        ComPtr<ID3D12Resource> persistent, temporary;
    };
    Api& api_;
    int graphInputs_;
    bool failed_ = false;
    std::vector<Node> nodes_;
    std::vector<ComPtr<ID3D12Resource>> outputs_;
    std::vector<std::unique_ptr<BoundTable>> tables_;
    ComPtr<ID3D12CommandAllocator> allocator_;
    ComPtr<ID3D12GraphicsCommandList> list_;
};

// Runs one network both ways, checks they agree, prints the two times.
bool Compare(Api& api, Network& network, const std::string& name, const std::vector<DML_BUFFER_BINDING>& inputs,
             const std::vector<UINT64>& bytes, const TimingOptions& options) {
    const UINT64 outputBytes = bytes.back();
    auto separateOut = api.Buffer(outputBytes), graphOut = api.Buffer(outputBytes), plainOut = api.Buffer(outputBytes);
    if (network.Failed() || !network.PrepareSeparate(inputs, bytes, separateOut.Get())) return false;
    BoundOperator graph, plain;
    std::vector<DML_BINDING_DESC> inDescs;
    std::vector<DML_BUFFER_BINDING> in = inputs;
    for (auto& binding : in) inDescs.push_back(Bind(&binding));
    DML_BUFFER_BINDING out{graphOut.Get(), 0, outputBytes}, plainBinding{plainOut.Get(), 0, outputBytes};
    if (!graph.Prepare(api, network.CompileGraph(), {}, inDescs, {Bind(&out)})) return false;
    if (!plain.Prepare(api, network.CompileGraph(false), {}, inDescs, {Bind(&plainBinding)})) return false;
    auto samples =
        MeasureInterleaved({[&] { network.RunSeparate(); }, [&] { graph.Run(); }, [&] { plain.Run(); }}, options);
    if (api.Removed()) return false;
    if (api.Readback(separateOut.Get(), outputBytes) != api.Readback(plainOut.Get(), outputBytes)) {
        std::fprintf(stderr, "graph_bench: %s: the unfused graph's output differs from the separate dispatches'\n",
                     name.c_str());
        return false;
    }
    const auto want = api.Readback(separateOut.Get(), outputBytes), got = api.Readback(graphOut.Get(), outputBytes);
    for (size_t i = 0; i + 4 <= want.size(); i += 4) {
        float a, b;
        std::memcpy(&a, want.data() + i, 4);
        std::memcpy(&b, got.data() + i, 4);
        if (!(std::fabs(a - b) <= 1e-4f * std::max(1.0f, std::fabs(a)))) {
            std::fprintf(stderr, "graph_bench: %s: the graph's element %zu is %g, the separate dispatches' %g\n",
                         name.c_str(), i / 4, double(b), double(a));
            return false;
        }
    }
    const double us = 1e6;
    Result("graph", name, "FLOAT32", "separate dispatches", Median(samples[0]) * us, "us", Spread(samples[0]));
    Result("graph", name, "FLOAT32", "compiled graph", Median(samples[1]) * us, "us", Spread(samples[1]));
    Result("graph", name, "FLOAT32", "compiled graph fusion off", Median(samples[2]) * us, "us", Spread(samples[2]));
    const DML_BINDING_PROPERTIES properties = graph.op->GetBindingProperties();
    UINT64 intermediates = 0;
    for (size_t n = 0; n + 1 < bytes.size(); ++n) intermediates += bytes[n];
    Result("graph", name + " temporary", "-", "compiled graph", double(properties.TemporaryResourceSize), "bytes",
           "intermediates sum to " + std::to_string(intermediates));
    return true;
}

bool Chain(Api& api, UINT count, const TimingOptions& options) {
    Tensor t(DML_TENSOR_DATA_TYPE_FLOAT32, {1, count});
    DML_SCALE_BIAS scaleBias{0.5f, 1.0f};
    DML_ELEMENT_WISE_IDENTITY_OPERATOR_DESC identity{&t.desc, &t.desc, &scaleBias};
    Network network(api, 1);
    for (int n = 0; n < 20; ++n) network.Add(DML_OPERATOR_ELEMENT_WISE_IDENTITY, &identity, {n == 0 ? -1 : n - 1});
    auto input = api.Buffer(t.Bytes());
    std::vector<float> values(count);
    for (UINT i = 0; i < count; ++i) values[i] = float(i % 251) * 0.25f;
    api.Upload(input.Get(), values.data(), t.Bytes());
    return Compare(api, network, "20-node chain of " + std::to_string(count) + " floats", {{input.Get(), 0, t.Bytes()}},
                   std::vector<UINT64>(20, t.Bytes()), options);
}

bool Perceptron(Api& api, UINT batch, UINT width, const TimingOptions& options) {
    Tensor x(DML_TENSOR_DATA_TYPE_FLOAT32, {1, 1, batch, width}), w(DML_TENSOR_DATA_TYPE_FLOAT32, {1, 1, width, width});
    Tensor bias(DML_TENSOR_DATA_TYPE_FLOAT32, {1, 1, 1, width});
    // The bias read broadcast over the batch: sizes of the output, stride 0 across rows.
    std::vector<UINT> biasSizes{1, 1, batch, width}, biasStrides{0, 0, 0, 1};
    DML_BUFFER_TENSOR_DESC biasView{DML_TENSOR_DATA_TYPE_FLOAT32, DML_TENSOR_FLAG_NONE, 4, biasSizes.data(),
                                    biasStrides.data(), bias.Bytes(), 0};
    DML_TENSOR_DESC biasDesc{DML_TENSOR_TYPE_BUFFER, &biasView};
    DML_GEMM_OPERATOR_DESC gemm{&x.desc, &w.desc, nullptr, &x.desc, DML_MATRIX_TRANSFORM_NONE, DML_MATRIX_TRANSFORM_NONE,
                                1.0f, 0.0f, nullptr};
    DML_ELEMENT_WISE_ADD_OPERATOR_DESC add{&x.desc, &biasDesc, &x.desc};
    DML_ACTIVATION_RELU_OPERATOR_DESC relu{&x.desc, &x.desc};
    // Graph inputs: 0 = x, then per layer W and bias.
    Network network(api, 7);
    int previous = -1;
    for (int layer = 0; layer < 3; ++layer) {
        const int g = network.Add(DML_OPERATOR_GEMM, &gemm, {previous, -(2 + 2 * layer), kAbsent});
        const int b = network.Add(DML_OPERATOR_ELEMENT_WISE_ADD, &add, {g, -(3 + 2 * layer)});
        previous = network.Add(DML_OPERATOR_ACTIVATION_RELU, &relu, {b});
    }
    std::vector<ComPtr<ID3D12Resource>> buffers;
    std::vector<DML_BUFFER_BINDING> inputs;
    auto make = [&](const Tensor& tensor, float scale) {
        std::vector<float> values(tensor.Bytes() / 4);
        for (size_t i = 0; i < values.size(); ++i) values[i] = (float(int(i * 7 % 13)) - 6.0f) * scale;
        buffers.push_back(api.Buffer(tensor.Bytes()));
        api.Upload(buffers.back().Get(), values.data(), tensor.Bytes());
        inputs.push_back({buffers.back().Get(), 0, tensor.Bytes()});
    };
    make(x, 0.25f);
    for (int layer = 0; layer < 3; ++layer) {
        make(w, 1.0f / float(width));
        make(bias, 0.125f);
    }
    return Compare(api, network,
                   "3-layer perceptron batch " + std::to_string(batch) + " width " + std::to_string(width), inputs,
                   std::vector<UINT64>(9, x.Bytes()), options);
}

// CompileGraph of an n-node chain (one IDENTITY operator used by every node), median of a few.
bool CompileTime(Api& api, int nodes, const TimingOptions& options) {
    Tensor t(DML_TENSOR_DATA_TYPE_FLOAT32, {1, 64});
    DML_ELEMENT_WISE_IDENTITY_OPERATOR_DESC identity{&t.desc, &t.desc, nullptr};
    Network network(api, 1);
    for (int n = 0; n < nodes; ++n) network.Add(DML_OPERATOR_ELEMENT_WISE_IDENTITY, &identity, {n == 0 ? -1 : n - 1});
    if (network.Failed()) return false;
    bool ok = true;
    TimingOptions once = options;
    once.sampleSeconds = 0;  // one compile per round
    auto samples = MeasureInterleaved({[&] { ok = ok && network.CompileGraph(); }}, once);
    Result("graph compile", std::to_string(nodes) + " nodes", "-", "FreeDML", Median(samples[0]) / nodes * 1e6,
           "us per node", Spread(samples[0]));
    return ok;
}

}  // namespace

int main(int argc, char** argv) {
    TimingOptions options;
    options.rounds = 7;
    options.sampleSeconds = 0.2;
    bool quick = false;
    for (int i = 1; i < argc; ++i) {
        std::string arg = argv[i];
        if (arg == "--rounds" && i + 1 < argc) options.rounds = std::max(1, std::atoi(argv[++i]));
        else if (arg == "--sample-seconds" && i + 1 < argc) options.sampleSeconds = std::atof(argv[++i]);
        else if (arg == "--quick") quick = true;
        else {
            std::fprintf(stderr, "usage: %s [--rounds R] [--sample-seconds S] [--quick]\n", argv[0]);
            return 2;
        }
    }
    if (quick) options.rounds = 3, options.sampleSeconds = 0.05;
    Api api;
    if (!api.ok) {
        std::fprintf(stderr, "graph_bench: the D3D12/DirectML device did not start\n");
        return 1;
    }
    bool ok = Chain(api, 4096, options) && Chain(api, quick ? 1u << 20 : 1u << 24, options) &&
              Perceptron(api, 16, 64, options) && Perceptron(api, quick ? 128 : 512, quick ? 256 : 1024, options);
    for (int nodes : {10, 100, 1000, 10000}) {
        if (quick && nodes > 1000) break;
        ok = ok && CompileTime(api, nodes, options);
    }
    if (!ok || api.Removed()) {
        std::fprintf(stderr, "graph_bench: a case failed%s\n", api.Removed() ? " (the device was removed)" : "");
        return 1;
    }
    return 0;
}
