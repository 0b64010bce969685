// Random graphs against the same operators dispatched one by one through the API: DAGs of 2 to 40
// element-wise nodes (ADD, MULTIPLY, SUBTRACT, MAX, RELU, SIGMOID, IDENTITY and CLIP with a
// ScaleBias, ADD1 with a fused TANH) over random shapes, nodes listed in a shuffled order, some edges reshaping
// (a [a, b] output read as [b, a]), outputs that other nodes also read, unused graph inputs. Each
// graph is compiled twice: with the optimizer off (FREEDML_GRAPH_FUSION=0) it runs the same kernels
// as the operators do alone, so every output must match bit for bit; with it on (chains and trees
// fused into one element-wise pass, graph/fusion.h) within a few float roundings.
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <deque>
#include <memory>
#include <numeric>
#include <random>
#include <string>

#include "dml_fixture.h"

namespace freedml_test {
namespace {

constexpr auto kF32 = DML_TENSOR_DATA_TYPE_FLOAT32;

struct RandomNode {
    enum class Kind { Add, Multiply, Subtract, Relu, Scale, Max, Clip, Sigmoid, Add1Tanh, Count } kind;
    int inputs[2] = {-1, -1};  // < 0: graph input -(k + 1); else a node (always an earlier one)
    bool transposedView = false;  // its tensors are [b, a] instead of [a, b]
    ComPtr<IDMLOperator> op;
};

class RandomGraphTest : public DmlTest {
protected:
    void SetUp() override {
        DmlTest::SetUp();
        ASSERT_EQ(dml.As(&dml1), S_OK);
    }

    ComPtr<IDMLOperator> MakeOp(const RandomNode& node, const Tensor& t) {
        DML_OPERATOR_DESC desc{};
        DML_ELEMENT_WISE_ADD_OPERATOR_DESC add{&t.desc, &t.desc, &t.desc};
        DML_ELEMENT_WISE_MULTIPLY_OPERATOR_DESC mul{&t.desc, &t.desc, &t.desc};
        DML_ELEMENT_WISE_SUBTRACT_OPERATOR_DESC sub{&t.desc, &t.desc, &t.desc};
        DML_ACTIVATION_RELU_OPERATOR_DESC relu{&t.desc, &t.desc};
        DML_SCALE_BIAS scaleBias{0.5f, 0.25f};
        DML_ELEMENT_WISE_IDENTITY_OPERATOR_DESC scale{&t.desc, &t.desc, &scaleBias};
        DML_ELEMENT_WISE_MAX_OPERATOR_DESC max{&t.desc, &t.desc, &t.desc};
        DML_SCALE_BIAS clipScaleBias{2.0f, -0.5f};
        DML_ELEMENT_WISE_CLIP_OPERATOR_DESC clip{&t.desc, &t.desc, &clipScaleBias, -1.5f, 3.0f};
        DML_ACTIVATION_SIGMOID_OPERATOR_DESC sigmoid{&t.desc, &t.desc};
        DML_ACTIVATION_TANH_OPERATOR_DESC tanhDesc{nullptr, nullptr};
        DML_OPERATOR_DESC tanhOp{DML_OPERATOR_ACTIVATION_TANH, &tanhDesc};
        DML_ELEMENT_WISE_ADD1_OPERATOR_DESC add1{&t.desc, &t.desc, &t.desc, &tanhOp};
        switch (node.kind) {
            case RandomNode::Kind::Add: desc = {DML_OPERATOR_ELEMENT_WISE_ADD, &add}; break;
            case RandomNode::Kind::Multiply: desc = {DML_OPERATOR_ELEMENT_WISE_MULTIPLY, &mul}; break;
            case RandomNode::Kind::Subtract: desc = {DML_OPERATOR_ELEMENT_WISE_SUBTRACT, &sub}; break;
            case RandomNode::Kind::Relu: desc = {DML_OPERATOR_ACTIVATION_RELU, &relu}; break;
            case RandomNode::Kind::Scale: desc = {DML_OPERATOR_ELEMENT_WISE_IDENTITY, &scale}; break;
            case RandomNode::Kind::Max: desc = {DML_OPERATOR_ELEMENT_WISE_MAX, &max}; break;
            case RandomNode::Kind::Clip: desc = {DML_OPERATOR_ELEMENT_WISE_CLIP, &clip}; break;
            case RandomNode::Kind::Sigmoid: desc = {DML_OPERATOR_ACTIVATION_SIGMOID, &sigmoid}; break;
            case RandomNode::Kind::Add1Tanh: desc = {DML_OPERATOR_ELEMENT_WISE_ADD1, &add1}; break;
            case RandomNode::Kind::Count: break;
        }
        ComPtr<IDMLOperator> op;
        EXPECT_EQ(dml->CreateOperator(&desc, IID_PPV_ARGS(&op)), S_OK) << Messages();
        return op;
    }
    static int InputCount(RandomNode::Kind kind) {
        using K = RandomNode::Kind;
        return kind == K::Relu || kind == K::Scale || kind == K::Clip || kind == K::Sigmoid ? 1 : 2;
    }

    void RunOne(uint32_t seed, bool fusion) {
        SCOPED_TRACE(testing::Message() << "seed " << seed << (fusion ? ", fusion on" : ", fusion off"));
        std::mt19937 rng(seed);
        auto pick = [&](int n) { return int(rng() % uint32_t(n)); };
        const UINT a = 1 + pick(9), b = 1 + pick(13);
        Tensor ab(kF32, {a, b}), ba(kF32, {b, a});
        const UINT64 bytes = ab.Bytes();
        const int graphInputs = 1 + pick(3);
        const int unusedInputs = pick(2);  // InputCount above the inputs used (G11)
        const int nodeCount = 2 + pick(39);

        std::vector<RandomNode> nodes(nodeCount);
        for (int n = 0; n < nodeCount; ++n) {
            RandomNode& node = nodes[n];
            node.kind = static_cast<RandomNode::Kind>(pick(int(RandomNode::Kind::Count)));
            node.transposedView = pick(4) == 0;
            for (int i = 0; i < InputCount(node.kind); ++i) {
                // Mostly recent nodes, so chains form; graph inputs throughout.
                const bool fromInput = n == 0 || pick(4) == 0;
                node.inputs[i] = fromInput ? -(1 + pick(graphInputs)) : std::max(0, n - 1 - pick(std::min(n, 4)));
            }
            node.op = MakeOp(node, node.transposedView ? ba : ab);
            ASSERT_TRUE(node.op);
        }
        // Graph outputs: every node nobody reads, and a few that others read too.
        std::vector<bool> read(nodeCount, false);
        for (const RandomNode& node : nodes) {
            for (int input : node.inputs) {
                if (input >= 0) read[input] = true;
            }
        }
        std::vector<int> outputs;
        for (int n = 0; n < nodeCount; ++n) {
            if (!read[n] || pick(5) == 0) outputs.push_back(n);
        }

        // Graph inputs with values that keep every node's result finite and exact enough to compare.
        std::vector<ComPtr<ID3D12Resource>> inputBuffers;
        std::vector<DML_BUFFER_BINDING> inputBindings(graphInputs + unusedInputs);
        std::uniform_real_distribution<float> value(-2.0f, 2.0f);
        for (int g = 0; g < graphInputs; ++g) {
            std::vector<float> values(a * b);
            for (float& v : values) v = value(rng);
            auto buffer = Buffer(bytes);
            Upload(buffer.Get(), values);
            inputBindings[g] = {buffer.Get(), 0, bytes};
            inputBuffers.push_back(buffer);
        }

        // The reference: each operator compiled and dispatched alone, in node order.
        std::vector<ComPtr<ID3D12Resource>> reference(nodeCount);
        for (int n = 0; n < nodeCount; ++n) {
            ComPtr<IDMLCompiledOperator> compiled;
            ASSERT_EQ(dml->CompileOperator(nodes[n].op.Get(), DML_EXECUTION_FLAG_NONE, IID_PPV_ARGS(&compiled)), S_OK);
            std::vector<DML_BUFFER_BINDING> in(InputCount(nodes[n].kind));
            std::vector<DML_BINDING_DESC> inDescs;
            for (size_t i = 0; i < in.size(); ++i) {
                const int source = nodes[n].inputs[i];
                in[i] = source < 0 ? inputBindings[-source - 1] : DML_BUFFER_BINDING{reference[source].Get(), 0, bytes};
                inDescs.push_back(BufferBinding(&in[i]));
            }
            reference[n] = Buffer(bytes);
            DML_BUFFER_BINDING out{reference[n].Get(), 0, bytes};
            auto persistent = Initialize(compiled.Get());
            Dispatch(compiled.Get(), inDescs, {BufferBinding(&out)}, persistent.Get());
            ASSERT_FALSE(DeviceRemoved()) << Messages();
        }

        // The graph, with its nodes listed in a shuffled order.
        std::vector<int> slotOf(nodeCount);
        std::iota(slotOf.begin(), slotOf.end(), 0);
        std::shuffle(slotOf.begin(), slotOf.end(), rng);
        std::deque<DML_OPERATOR_GRAPH_NODE_DESC> opNodes;
        std::vector<DML_GRAPH_NODE_DESC> graphNodes(nodeCount);
        for (int n = 0; n < nodeCount; ++n) {
            opNodes.push_back({nodes[n].op.Get(), nullptr});
            graphNodes[slotOf[n]] = {DML_GRAPH_NODE_TYPE_OPERATOR, &opNodes.back()};
        }
        std::deque<DML_INPUT_GRAPH_EDGE_DESC> inputEdges;
        std::deque<DML_INTERMEDIATE_GRAPH_EDGE_DESC> intermediateEdges;
        std::deque<DML_OUTPUT_GRAPH_EDGE_DESC> outputEdges;
        std::vector<DML_GRAPH_EDGE_DESC> ins, mids, outs;
        for (int n = 0; n < nodeCount; ++n) {
            for (int i = 0; i < InputCount(nodes[n].kind); ++i) {
                const int source = nodes[n].inputs[i];
                if (source < 0) {
                    inputEdges.push_back({UINT(-source - 1), UINT(slotOf[n]), UINT(i), nullptr});
                    ins.push_back({DML_GRAPH_EDGE_TYPE_INPUT, &inputEdges.back()});
                } else {
                    intermediateEdges.push_back({UINT(slotOf[source]), 0, UINT(slotOf[n]), UINT(i), nullptr});
                    mids.push_back({DML_GRAPH_EDGE_TYPE_INTERMEDIATE, &intermediateEdges.back()});
                }
            }
        }
        for (size_t o = 0; o < outputs.size(); ++o) {
            outputEdges.push_back({UINT(slotOf[outputs[o]]), 0, UINT(o), nullptr});
            outs.push_back({DML_GRAPH_EDGE_TYPE_OUTPUT, &outputEdges.back()});
        }
        // Graph inputs nobody reads are legal: find which are.
        std::vector<bool> used(graphInputs + unusedInputs, false);
        for (const auto& edge : inputEdges) used[edge.GraphInputIndex] = true;
        DML_GRAPH_DESC desc{UINT(graphInputs + unusedInputs), UINT(outputs.size()), UINT(nodeCount), graphNodes.data(),
                            UINT(ins.size()), ins.data(), UINT(outs.size()), outs.data(), UINT(mids.size()),
                            mids.empty() ? nullptr : mids.data()};
        ComPtr<IDMLCompiledOperator> graph;
        const char* previous = std::getenv("FREEDML_GRAPH_FUSION");
        const std::string saved = previous ? previous : "";
        setenv("FREEDML_GRAPH_FUSION", fusion ? "1" : "0", 1);
        const HRESULT compiled = dml1->CompileGraph(&desc, DML_EXECUTION_FLAG_NONE, IID_PPV_ARGS(&graph));
        if (previous) {
            setenv("FREEDML_GRAPH_FUSION", saved.c_str(), 1);
        } else {
            unsetenv("FREEDML_GRAPH_FUSION");
        }
        ASSERT_EQ(compiled, S_OK) << Messages();

        std::vector<DML_BINDING_DESC> graphIn;
        for (size_t g = 0; g < used.size(); ++g) {
            graphIn.push_back(used[g] ? BufferBinding(&inputBindings[g]) : NoBinding());
        }
        std::vector<ComPtr<ID3D12Resource>> results;
        std::vector<DML_BUFFER_BINDING> outBindings(outputs.size());
        std::vector<DML_BINDING_DESC> graphOut;
        for (size_t o = 0; o < outputs.size(); ++o) {
            results.push_back(Buffer(bytes));
            outBindings[o] = {results.back().Get(), 0, bytes};
            graphOut.push_back(BufferBinding(&outBindings[o]));
        }
        auto persistent = Initialize(graph.Get());
        Dispatch(graph.Get(), graphIn, graphOut, persistent.Get());
        ASSERT_FALSE(DeviceRemoved()) << Messages();
        for (size_t o = 0; o < outputs.size(); ++o) {
            if (!fusion) {
                auto want = Readback(reference[outputs[o]].Get(), bytes);
                auto got = Readback(results[o].Get(), bytes);
                ASSERT_EQ(got, want) << "graph output " << o << " (node " << outputs[o] << " of " << nodeCount << ")";
                continue;
            }
            auto want = ReadbackAs<float>(reference[outputs[o]].Get(), a * b);
            auto got = ReadbackAs<float>(results[o].Get(), a * b);
            for (size_t i = 0; i < want.size(); ++i) {
                // The same float operations in the same order; only a contraction or a library
                // difference could move a result, by a rounding or two.
                ASSERT_NEAR(got[i], want[i], 1e-5f * std::max(1.0f, std::fabs(want[i])))
                    << "graph output " << o << " (node " << outputs[o] << " of " << nodeCount << "), element " << i;
            }
        }
    }

    ComPtr<IDMLDevice1> dml1;
};

TEST_F(RandomGraphTest, MatchesTheOperatorsDispatchedOneByOne) {
    for (uint32_t seed = 1; seed <= 24; ++seed) {
        for (bool fusion : {false, true}) {
            RunOne(seed, fusion);
            if (HasFatalFailure()) return;
        }
    }
}

}  // namespace
}  // namespace freedml_test
