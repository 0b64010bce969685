// IDMLDevice1::CompileGraph through the public API: graphs that run (against references computed
// here from the operators' documented formulas) and one keep test and one break test for each
// graph rule (G1-G11 of docs/BINDING-RULES.md), asserting the HRESULT and the rule id.
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <string>
#include <deque>

#include "dml_fixture.h"

namespace freedml_test {
namespace {

constexpr auto kF32 = DML_TENSOR_DATA_TYPE_FLOAT32;
constexpr DML_TENSOR_FLAGS kOwned = DML_TENSOR_FLAG_OWNED_BY_DML;

// Builds a DML_GRAPH_DESC; every struct it points into lives as long as the builder.
class GraphBuilder {
public:
    uint32_t AddOperator(IDMLOperator* op, const char* name = nullptr) {
        opNodes_.push_back({op, name});
        nodes_.push_back({DML_GRAPH_NODE_TYPE_OPERATOR, &opNodes_.back()});
        return static_cast<uint32_t>(nodes_.size() - 1);
    }
    uint32_t AddConstant(const void* data, size_t size, const char* name = nullptr) {
        constNodes_.push_back({data, size, name});
        nodes_.push_back({DML_GRAPH_NODE_TYPE_CONSTANT, &constNodes_.back()});
        return static_cast<uint32_t>(nodes_.size() - 1);
    }
    void Input(uint32_t graphInput, uint32_t node, uint32_t nodeInput) {
        inputEdges_.push_back({graphInput, node, nodeInput, nullptr});
        inputs_.push_back({DML_GRAPH_EDGE_TYPE_INPUT, &inputEdges_.back()});
    }
    void Output(uint32_t node, uint32_t nodeOutput, uint32_t graphOutput) {
        outputEdges_.push_back({node, nodeOutput, graphOutput, nullptr});
        outputs_.push_back({DML_GRAPH_EDGE_TYPE_OUTPUT, &outputEdges_.back()});
    }
    void Connect(uint32_t from, uint32_t fromOutput, uint32_t to, uint32_t toInput) {
        intermediateEdges_.push_back({from, fromOutput, to, toInput, nullptr});
        intermediates_.push_back({DML_GRAPH_EDGE_TYPE_INTERMEDIATE, &intermediateEdges_.back()});
    }
    DML_GRAPH_DESC Desc(uint32_t inputCount, uint32_t outputCount) {
        return {inputCount,
                outputCount,
                static_cast<UINT>(nodes_.size()),
                nodes_.data(),
                static_cast<UINT>(inputs_.size()),
                inputs_.data(),
                static_cast<UINT>(outputs_.size()),
                outputs_.data(),
                static_cast<UINT>(intermediates_.size()),
                intermediates_.data()};
    }
    std::vector<DML_GRAPH_NODE_DESC>& Nodes() { return nodes_; }
    std::vector<DML_GRAPH_EDGE_DESC>& InputEdges() { return inputs_; }
    std::vector<DML_GRAPH_EDGE_DESC>& IntermediateEdges() { return intermediates_; }

private:
    // deques: the edge and node structs must not move once an array points at them.
    std::deque<DML_OPERATOR_GRAPH_NODE_DESC> opNodes_;
    std::deque<DML_CONSTANT_DATA_GRAPH_NODE_DESC> constNodes_;
    std::deque<DML_INPUT_GRAPH_EDGE_DESC> inputEdges_;
    std::deque<DML_OUTPUT_GRAPH_EDGE_DESC> outputEdges_;
    std::deque<DML_INTERMEDIATE_GRAPH_EDGE_DESC> intermediateEdges_;
    std::vector<DML_GRAPH_NODE_DESC> nodes_;
    std::vector<DML_GRAPH_EDGE_DESC> inputs_, outputs_, intermediates_;
};

class GraphTest : public DmlTest {
protected:
    void SetUp() override {
        DmlTest::SetUp();
        ASSERT_EQ(dml.As(&dml1), S_OK);
    }

    ComPtr<IDMLOperator> Op(DML_OPERATOR_TYPE type, const void* desc) {
        DML_OPERATOR_DESC opDesc{type, desc};
        ComPtr<IDMLOperator> op;
        EXPECT_EQ(dml->CreateOperator(&opDesc, IID_PPV_ARGS(&op)), S_OK) << Messages();
        return op;
    }
    ComPtr<IDMLOperator> Add(const Tensor& a, const Tensor& b, const Tensor& out) {
        DML_ELEMENT_WISE_ADD_OPERATOR_DESC desc{&a.desc, &b.desc, &out.desc};
        return Op(DML_OPERATOR_ELEMENT_WISE_ADD, &desc);
    }
    ComPtr<IDMLOperator> Relu(const Tensor& in, const Tensor& out) {
        DML_ACTIVATION_RELU_OPERATOR_DESC desc{&in.desc, &out.desc};
        return Op(DML_OPERATOR_ACTIVATION_RELU, &desc);
    }
    ComPtr<IDMLOperator> Identity(const Tensor& in, const Tensor& out, float scale = 1.0f, float bias = 0.0f) {
        scaleBias_.push_back({scale, bias});
        DML_ELEMENT_WISE_IDENTITY_OPERATOR_DESC desc{&in.desc, &out.desc, &scaleBias_.back()};
        return Op(DML_OPERATOR_ELEMENT_WISE_IDENTITY, &desc);
    }

    // CompileGraph expected to fail with E_INVALIDARG and a message citing `rule`.
    // `flags` is an integer: a value outside DML_EXECUTION_FLAGS may not be loaded as the enum.
    void ExpectRefused(const DML_GRAPH_DESC& desc, const char* rule, uint32_t flags = 0) {
        ClearMessages();
        ComPtr<IDMLCompiledOperator> compiled;
        EXPECT_EQ(dml1->CompileGraph(&desc, static_cast<DML_EXECUTION_FLAGS>(flags), IID_PPV_ARGS(&compiled)),
                  E_INVALIDARG)
            << rule;
        EXPECT_EQ(compiled, nullptr);
        EXPECT_NE(Messages().find(std::string("(") + rule + ")"), std::string::npos) << Messages();
        EXPECT_NE(Messages().find("IDMLDevice1::CompileGraph"), std::string::npos) << Messages();
    }
    ComPtr<IDMLCompiledOperator> Compile(const DML_GRAPH_DESC& desc, DML_EXECUTION_FLAGS flags = DML_EXECUTION_FLAG_NONE) {
        ComPtr<IDMLCompiledOperator> compiled;
        EXPECT_EQ(dml1->CompileGraph(&desc, flags, IID_PPV_ARGS(&compiled)), S_OK) << Messages();
        return compiled;
    }

    ComPtr<ID3D12Resource> Filled(const std::vector<float>& values) {
        auto buffer = Buffer(std::max<UINT64>(16, values.size() * 4));
        Upload(buffer.Get(), values);
        return buffer;
    }

    ComPtr<IDMLDevice1> dml1;
    std::deque<DML_SCALE_BIAS> scaleBias_;
};

// out0 = relu(a + b), out1 = a + b: an output that another node also reads, two outputs.
TEST_F(GraphTest, AddThenReluWithTheSumAlsoAnOutput) {
    Tensor t(kF32, {2, 3});
    auto add = Add(t, t, t);
    auto relu = Relu(t, t);
    GraphBuilder g;
    const uint32_t addNode = g.AddOperator(add.Get(), "sum");
    const uint32_t reluNode = g.AddOperator(relu.Get());
    g.Input(0, addNode, 0);
    g.Input(1, addNode, 1);
    g.Connect(addNode, 0, reluNode, 0);
    g.Output(reluNode, 0, 0);
    g.Output(addNode, 0, 1);
    auto compiled = Compile(g.Desc(2, 2));
    ASSERT_TRUE(compiled);

    const std::vector<float> a{1, -2, 3, -4, 0.5f, -0.25f}, b{-3, 1, 0.5f, 8, -1, 0.25f};
    auto aBuf = Filled(a), bBuf = Filled(b), out0 = Buffer(24), out1 = Buffer(24);
    DML_BUFFER_BINDING ab{aBuf.Get(), 0, 24}, bb{bBuf.Get(), 0, 24}, o0{out0.Get(), 0, 24}, o1{out1.Get(), 0, 24};
    auto persistent = Initialize(compiled.Get());
    Dispatch(compiled.Get(), {BufferBinding(&ab), BufferBinding(&bb)}, {BufferBinding(&o0), BufferBinding(&o1)},
             persistent.Get());
    ASSERT_FALSE(DeviceRemoved()) << Messages();
    auto y0 = ReadbackAs<float>(out0.Get(), 6), y1 = ReadbackAs<float>(out1.Get(), 6);
    for (size_t i = 0; i < 6; ++i) {
        const double sum = double(a[i]) + double(b[i]);
        EXPECT_EQ(y1[i], float(sum)) << i;
        EXPECT_EQ(y0[i], float(std::max(sum, 0.0))) << i;
    }
}

// An edge joins tensors of one TotalTensorSizeInBytes that differ in sizes: the reshape DirectMLX
// does through edges. A [2,3] sum is read as [3,2] and added to its own transpose-free view.
TEST_F(GraphTest, EdgesReshapeBetweenSizesOfOneByteSize) {
    Tensor t23(kF32, {2, 3}), t32(kF32, {3, 2});
    auto add = Add(t23, t23, t23);
    auto add2 = Add(t32, t32, t32);
    GraphBuilder g;
    const uint32_t first = g.AddOperator(add.Get());
    const uint32_t second = g.AddOperator(add2.Get());
    g.Input(0, first, 0);
    g.Input(0, first, 1);
    g.Connect(first, 0, second, 0);
    g.Connect(first, 0, second, 1);
    g.Output(second, 0, 0);
    auto compiled = Compile(g.Desc(1, 1));
    ASSERT_TRUE(compiled);
    const std::vector<float> x{1, 2, 3, 4, 5, 6};
    auto xBuf = Filled(x), out = Buffer(24);
    DML_BUFFER_BINDING xb{xBuf.Get(), 0, 24}, ob{out.Get(), 0, 24};
    auto persistent = Initialize(compiled.Get());
    Dispatch(compiled.Get(), {BufferBinding(&xb)}, {BufferBinding(&ob)}, persistent.Get());
    ASSERT_FALSE(DeviceRemoved()) << Messages();
    EXPECT_EQ(ReadbackAs<float>(out.Get(), 6), (std::vector<float>{4, 8, 12, 16, 20, 24}));
}

// Intermediates whose lifetimes do not overlap share bytes: a chain of 12 nodes over 64 KiB
// tensors needs far less temporary memory than its 11 intermediates, and still computes
// ((x * 2 + 1) * 2 + 1) ... exactly.
TEST_F(GraphTest, ChainPacksIntermediatesByLifetime) {
    constexpr UINT kCount = 16384;
    Tensor t(kF32, {1, kCount});
    std::vector<ComPtr<IDMLOperator>> ops;
    GraphBuilder g;
    for (int n = 0; n < 12; ++n) {
        ops.push_back(Identity(t, t, 2.0f, 1.0f));
        g.AddOperator(ops.back().Get());
        if (n > 0) g.Connect(n - 1, 0, n, 0);
    }
    g.Input(0, 0, 0);
    g.Output(11, 0, 0);
    auto compiled = Compile(g.Desc(1, 1));
    ASSERT_TRUE(compiled);
    const UINT64 intermediates = 11 * t.Bytes();
    const UINT64 temporary = compiled->GetBindingProperties().TemporaryResourceSize;
    EXPECT_LE(temporary, 2 * t.Bytes() + 1024) << "intermediates need " << intermediates;

    std::vector<float> x(kCount);
    for (UINT i = 0; i < kCount; ++i) x[i] = float(int(i % 97) - 48) * 0.125f;
    auto xBuf = Filled(x), out = Buffer(t.Bytes());
    DML_BUFFER_BINDING xb{xBuf.Get(), 0, t.Bytes()}, ob{out.Get(), 0, t.Bytes()};
    auto persistent = Initialize(compiled.Get());
    Dispatch(compiled.Get(), {BufferBinding(&xb)}, {BufferBinding(&ob)}, persistent.Get());
    ASSERT_FALSE(DeviceRemoved()) << Messages();
    auto y = ReadbackAs<float>(out.Get(), kCount);
    for (UINT i = 0; i < kCount; ++i) {
        double v = x[i];
        for (int n = 0; n < 12; ++n) v = v * 2.0 + 1.0;  // exact in float for these values
        ASSERT_EQ(y[i], float(v)) << i;
    }
}

// A constant node (feature level 6.2) feeds ADD's B; a graph input nobody reads is bound NONE
// (G11), and InputCount may exceed the inputs used.
TEST_F(GraphTest, ConstantNodeAndUnusedGraphInput) {
    Tensor t(kF32, {4});
    auto add = Add(t, t, t);
    const float bias[4] = {0.5f, -1, 2, 10};
    GraphBuilder g;
    const uint32_t constant = g.AddConstant(bias, sizeof(bias), "bias");
    const uint32_t addNode = g.AddOperator(add.Get());
    g.Input(1, addNode, 0);
    g.Connect(constant, 0, addNode, 1);
    g.Output(addNode, 0, 0);
    auto compiled = Compile(g.Desc(3, 1));
    ASSERT_TRUE(compiled);
    auto xBuf = Filled({1, 2, 3, 4}), out = Buffer(16);
    DML_BUFFER_BINDING xb{xBuf.Get(), 0, 16}, ob{out.Get(), 0, 16};
    auto persistent = Initialize(compiled.Get());
    ASSERT_TRUE(persistent) << "the constant lives in the persistent resource";
    Dispatch(compiled.Get(), {NoBinding(), BufferBinding(&xb), NoBinding()}, {BufferBinding(&ob)}, persistent.Get());
    ASSERT_FALSE(DeviceRemoved()) << Messages();
    EXPECT_EQ(ReadbackAs<float>(out.Get(), 4), (std::vector<float>{1.5f, 1, 5, 14}));

    // G11: an unused graph input takes no buffer.
    ComPtr<IDMLBindingTable> table = Table(compiled.Get());
    DML_BINDING_DESC inputs[3] = {BufferBinding(&xb), BufferBinding(&xb), NoBinding()};
    ClearMessages();
    table->BindInputs(3, inputs);
    EXPECT_TRUE(DeviceRemoved());
    EXPECT_NE(Messages().find("I2"), std::string::npos) << Messages();
}

// A constant node as GEMM's B, read by an ADD as well: the optimizer makes it the GEMM's owned
// weight (packed at initialization) while the ADD reads the constant itself; both dispatches of
// the compiled graph compute A x B and B + B.
TEST_F(GraphTest, ConstantWeightOfAGemmIsPackedAtInitialization) {
    constexpr UINT M = 3, K = 40, N = 48;
    Tensor a(kF32, {1, 1, M, K}), b(kF32, {1, 1, K, N}), out(kF32, {1, 1, M, N});
    DML_GEMM_OPERATOR_DESC gemmDesc{&a.desc, &b.desc, nullptr, &out.desc, DML_MATRIX_TRANSFORM_NONE,
                                    DML_MATRIX_TRANSFORM_NONE, 1.0f, 0.0f, nullptr};
    auto gemm = Op(DML_OPERATOR_GEMM, &gemmDesc);
    auto add = Add(b, b, b);
    std::vector<float> av(M * K), bv(K * N);
    for (UINT i = 0; i < av.size(); ++i) av[i] = float(int(i % 7) - 3) * 0.25f;
    for (UINT i = 0; i < bv.size(); ++i) bv[i] = float(int(i % 5) - 2) * 0.5f;
    GraphBuilder g;
    const uint32_t constant = g.AddConstant(bv.data(), bv.size() * 4, "weights");
    const uint32_t gemmNode = g.AddOperator(gemm.Get());
    const uint32_t addNode = g.AddOperator(add.Get());
    g.Input(0, gemmNode, 0);
    g.Connect(constant, 0, gemmNode, 1);
    g.Connect(constant, 0, addNode, 0);
    g.Connect(constant, 0, addNode, 1);
    g.Output(gemmNode, 0, 0);
    g.Output(addNode, 0, 1);
    auto compiled = Compile(g.Desc(1, 2));
    ASSERT_TRUE(compiled);
    std::vector<double> want(M * N);
    for (UINT m = 0; m < M; ++m) {
        for (UINT n = 0; n < N; ++n) {
            double sum = 0;
            for (UINT k = 0; k < K; ++k) sum += double(av[m * K + k]) * bv[k * N + n];
            want[m * N + n] = sum;
        }
    }
    auto aBuf = Filled(av), outBuf = Buffer(M * N * 4), sumBuf = Buffer(K * N * 4);
    DML_BUFFER_BINDING ab{aBuf.Get(), 0, M * K * 4}, ob{outBuf.Get(), 0, M * N * 4}, sb{sumBuf.Get(), 0, K * N * 4};
    auto persistent = Initialize(compiled.Get());
    ASSERT_TRUE(persistent);
    for (int run = 0; run < 2; ++run) {
        Upload(outBuf.Get(), std::vector<float>(M * N, -1.0f));
        Dispatch(compiled.Get(), {BufferBinding(&ab)}, {BufferBinding(&ob), BufferBinding(&sb)}, persistent.Get());
        ASSERT_FALSE(DeviceRemoved()) << Messages();
        const std::vector<float> got = ReadbackAs<float>(outBuf.Get(), M * N);
        for (UINT i = 0; i < M * N; ++i) ASSERT_NEAR(got[i], want[i], 1e-4) << "run " << run << ", element " << i;
        const std::vector<float> sum = ReadbackAs<float>(sumBuf.Get(), K * N);
        for (UINT i = 0; i < K * N; ++i) ASSERT_EQ(sum[i], 2.0f * bv[i]) << "run " << run << ", element " << i;
    }
}

// An OWNED_BY_DML graph input read by GEMM's B (packed) and by ADD (read from the copy).
TEST_F(GraphTest, OwnedGraphInputReadByTwoNodes) {
    Tensor a(kF32, {1, 1, 2, 2}), bOwned(kF32, {1, 1, 2, 2}, {}, kOwned), out(kF32, {1, 1, 2, 2});
    DML_GEMM_OPERATOR_DESC gemmDesc{&a.desc, &bOwned.desc, nullptr, &out.desc, DML_MATRIX_TRANSFORM_NONE,
                                    DML_MATRIX_TRANSFORM_NONE, 1.0f, 0.0f, nullptr};
    auto gemm = Op(DML_OPERATOR_GEMM, &gemmDesc);
    auto add = Add(out, bOwned, out);
    GraphBuilder g;
    const uint32_t gemmNode = g.AddOperator(gemm.Get());
    const uint32_t addNode = g.AddOperator(add.Get());
    g.Input(0, gemmNode, 0);
    g.Input(1, gemmNode, 1);
    g.Input(1, addNode, 1);
    g.Connect(gemmNode, 0, addNode, 0);
    g.Output(addNode, 0, 0);
    auto compiled = Compile(g.Desc(2, 1));
    ASSERT_TRUE(compiled);
    const std::vector<float> av{1, 2, 3, 4}, bv{5, 6, 7, 8};
    auto aBuf = Filled(av), bBuf = Filled(bv), outBuf = Buffer(16);
    DML_BUFFER_BINDING ab{aBuf.Get(), 0, 16}, bb{bBuf.Get(), 0, 16}, ob{outBuf.Get(), 0, 16};
    auto persistent = Initialize(compiled.Get(), {DML_BUFFER_BINDING{}, bb});
    ASSERT_FALSE(DeviceRemoved()) << Messages();
    Upload(bBuf.Get(), std::vector<float>{0, 0, 0, 0});  // the graph keeps its own copy
    Dispatch(compiled.Get(), {BufferBinding(&ab), NoBinding()}, {BufferBinding(&ob)}, persistent.Get());
    ASSERT_FALSE(DeviceRemoved()) << Messages();
    // A x B + B, B = [[5, 6], [7, 8]].
    EXPECT_EQ(ReadbackAs<float>(outBuf.Get(), 4), (std::vector<float>{1 * 5 + 2 * 7 + 5, 1 * 6 + 2 * 8 + 6,
                                                                     3 * 5 + 4 * 7 + 7, 3 * 6 + 4 * 8 + 8}));
}

// One node output fills two graph outputs.
TEST_F(GraphTest, OneNodeOutputFillsTwoGraphOutputs) {
    Tensor t(kF32, {4});
    auto relu = Relu(t, t);
    GraphBuilder g;
    const uint32_t node = g.AddOperator(relu.Get());
    g.Input(0, node, 0);
    g.Output(node, 0, 0);
    g.Output(node, 0, 1);
    auto compiled = Compile(g.Desc(1, 2));
    ASSERT_TRUE(compiled);
    auto xBuf = Filled({-1, 2, -3, 4}), o0 = Buffer(16), o1 = Buffer(16);
    DML_BUFFER_BINDING xb{xBuf.Get(), 0, 16}, b0{o0.Get(), 0, 16}, b1{o1.Get(), 0, 16};
    auto persistent = Initialize(compiled.Get());
    Dispatch(compiled.Get(), {BufferBinding(&xb)}, {BufferBinding(&b0), BufferBinding(&b1)}, persistent.Get());
    ASSERT_FALSE(DeviceRemoved()) << Messages();
    EXPECT_EQ(ReadbackAs<float>(o0.Get(), 4), (std::vector<float>{0, 2, 0, 4}));
    EXPECT_EQ(ReadbackAs<float>(o1.Get(), 4), (std::vector<float>{0, 2, 0, 4}));
}

// ---- The rules, broken one at a time -------------------------------------------------------------

// In-place graphs (H2), as TensorFlow-DirectML's training kernels bind them: var = var - lr * grad
// as MULTIPLY then SUBTRACT, the output bound to var's own bytes. The last read of every graph
// input (SUBTRACT's) is the step that writes the output, and SUBTRACT runs in place, so the graph
// does too. A graph whose output is written before an input is read last refuses the same binding.
TEST_F(GraphTest, InPlaceWhenNoInputIsReadAfterTheOutputIsWritten) {
    Tensor t(kF32, {1, 4});
    DML_ELEMENT_WISE_MULTIPLY_OPERATOR_DESC mulDesc{&t.desc, &t.desc, &t.desc};
    auto mul = Op(DML_OPERATOR_ELEMENT_WISE_MULTIPLY, &mulDesc);
    DML_ELEMENT_WISE_SUBTRACT_OPERATOR_DESC subDesc{&t.desc, &t.desc, &t.desc};
    auto sub = Op(DML_OPERATOR_ELEMENT_WISE_SUBTRACT, &subDesc);
    GraphBuilder g;
    const uint32_t mulNode = g.AddOperator(mul.Get());
    const uint32_t subNode = g.AddOperator(sub.Get());
    g.Input(1, mulNode, 0);  // lr
    g.Input(2, mulNode, 1);  // grad
    g.Input(0, subNode, 0);  // var
    g.Connect(mulNode, 0, subNode, 1);
    g.Output(subNode, 0, 0);
    auto compiled = Compile(g.Desc(3, 1));
    ASSERT_TRUE(compiled);
    const std::vector<float> var{1, -2, 0.5f, 8}, lr{0.5f, 0.5f, 0.5f, 0.5f}, grad{2, -4, 1, 0.25f};
    auto varBuf = Filled(var), lrBuf = Filled(lr), gradBuf = Filled(grad);
    DML_BUFFER_BINDING v{varBuf.Get(), 0, 16}, l{lrBuf.Get(), 0, 16}, d{gradBuf.Get(), 0, 16};
    auto persistent = Initialize(compiled.Get());
    Dispatch(compiled.Get(), {BufferBinding(&v), BufferBinding(&l), BufferBinding(&d)}, {BufferBinding(&v)},
             persistent.Get());
    ASSERT_FALSE(DeviceRemoved()) << Messages();
    auto updated = ReadbackAs<float>(varBuf.Get(), 4);
    for (size_t i = 0; i < 4; ++i) EXPECT_EQ(updated[i], float(double(var[i]) - 0.5 * double(grad[i]))) << i;

    // out0 = relu(x) is written by the first step and y = x + 1 reads x in the second: bound over x,
    // out0 would hand the second node relu(x) instead of x, so this graph is not in place.
    Tensor u(kF32, {1, 4});
    auto relu = Relu(u, u);
    auto add = Add(u, u, u);
    GraphBuilder h;
    const uint32_t reluNode = h.AddOperator(relu.Get());
    const uint32_t addNode = h.AddOperator(add.Get());
    h.Input(0, reluNode, 0);
    h.Input(0, addNode, 0);
    h.Input(1, addNode, 1);
    h.Output(reluNode, 0, 0);
    h.Output(addNode, 0, 1);
    auto twoOutputs = Compile(h.Desc(2, 2));
    ASSERT_TRUE(twoOutputs);
    auto x = Filled({-1, 2, -3, 4}), one = Filled({1, 1, 1, 1}), y = Buffer(16);
    DML_BUFFER_BINDING xb{x.Get(), 0, 16}, ob{one.Get(), 0, 16}, yb{y.Get(), 0, 16};
    auto table = Table(twoOutputs.Get());
    DML_BINDING_DESC ins[] = {BufferBinding(&xb), BufferBinding(&ob)};
    table->BindInputs(2, ins);
    DML_BINDING_DESC outs[] = {BufferBinding(&xb), BufferBinding(&yb)};
    table->BindOutputs(2, outs);
    EXPECT_TRUE(DeviceRemoved());
    EXPECT_NE(Messages().find("does not support in-place execution"), std::string::npos) << Messages();
}

class GraphRuleTest : public GraphTest {
protected:
    void SetUp() override {
        GraphTest::SetUp();
        add = Add(t, t, t);
        relu = Relu(t, t);
    }
    // The valid graph every break test starts from: out = relu(in0 + in1).
    void Build(GraphBuilder& g) {
        g.AddOperator(add.Get(), "sum");
        g.AddOperator(relu.Get(), "act");
        g.Input(0, 0, 0);
        g.Input(1, 0, 1);
        g.Connect(0, 0, 1, 0);
        g.Output(1, 0, 0);
    }
    Tensor t{kF32, {8}};
    ComPtr<IDMLOperator> add, relu;
};

TEST_F(GraphRuleTest, KeepTheBaseGraphCompiles) {
    GraphBuilder g;
    Build(g);
    EXPECT_TRUE(Compile(g.Desc(2, 1)));
}

TEST_F(GraphRuleTest, G1_CountsArraysAndNodeTypes) {
    GraphBuilder g;
    Build(g);
    DML_GRAPH_DESC desc = g.Desc(2, 1);
    desc.NodeCount = 0;
    ExpectRefused(desc, "G1");
    desc = g.Desc(2, 0);
    ExpectRefused(desc, "G1");
    desc = g.Desc(2, 1);
    desc.IntermediateEdges = nullptr;
    ExpectRefused(desc, "G1");
    g.Nodes()[1].Type = static_cast<DML_GRAPH_NODE_TYPE>(7);
    ExpectRefused(g.Desc(2, 1), "G1");
}

TEST_F(GraphRuleTest, G2_NodesAreOperatorsOfThisDevice) {
    GraphBuilder g;
    Build(g);
    DML_OPERATOR_GRAPH_NODE_DESC nullOp{nullptr, "nothing"};
    g.Nodes()[1].Desc = &nullOp;
    ExpectRefused(g.Desc(2, 1), "G2");
    EXPECT_NE(Messages().find("'nothing'"), std::string::npos) << Messages();

    ComPtr<IDMLDevice> other;
    ASSERT_EQ(DMLCreateDevice(d3d.Get(), DML_CREATE_DEVICE_FLAG_NONE, IID_PPV_ARGS(&other)), S_OK);
    DML_ACTIVATION_RELU_OPERATOR_DESC reluDesc{&t.desc, &t.desc};
    DML_OPERATOR_DESC opDesc{DML_OPERATOR_ACTIVATION_RELU, &reluDesc};
    ComPtr<IDMLOperator> foreign;
    ASSERT_EQ(other->CreateOperator(&opDesc, IID_PPV_ARGS(&foreign)), S_OK);
    DML_OPERATOR_GRAPH_NODE_DESC foreignNode{foreign.Get(), nullptr};
    g.Nodes()[1].Desc = &foreignNode;
    ExpectRefused(g.Desc(2, 1), "G2");
}

TEST_F(GraphRuleTest, G3_EdgeTypesMatchTheirArrays) {
    GraphBuilder g;
    Build(g);
    g.InputEdges()[1].Type = DML_GRAPH_EDGE_TYPE_INTERMEDIATE;
    ExpectRefused(g.Desc(2, 1), "G3");
}

TEST_F(GraphRuleTest, G4_IndicesAreInRange) {
    {
        GraphBuilder g;
        Build(g);
        g.Input(5, 0, 0);  // graph input 5 of 2
        ExpectRefused(g.Desc(2, 1), "G4");
    }
    {
        GraphBuilder g;
        Build(g);
        g.Connect(0, 1, 1, 0);  // ADD has one output
        ExpectRefused(g.Desc(2, 1), "G4");
    }
    {
        GraphBuilder g;
        Build(g);
        g.Output(1, 0, 3);  // graph output 3 of 1
        ExpectRefused(g.Desc(2, 1), "G4");
    }
}

TEST_F(GraphRuleTest, G5_EachRequiredNodeInputIsFedOnce) {
    {
        GraphBuilder g;
        Build(g);
        g.Input(0, 1, 0);  // RELU's input is already fed by ADD
        ExpectRefused(g.Desc(2, 1), "G5");
    }
    {
        GraphBuilder g;
        g.AddOperator(add.Get());
        g.Input(0, 0, 0);  // BTensor fed by nobody
        g.Output(0, 0, 0);
        ExpectRefused(g.Desc(1, 1), "G5");
        EXPECT_NE(Messages().find("BTensor"), std::string::npos) << Messages();
    }
}

TEST_F(GraphRuleTest, G6_EveryGraphOutputIsFilledOnce) {
    {
        GraphBuilder g;
        Build(g);
        ExpectRefused(g.Desc(2, 2), "G6");  // graph output 1 unfilled
    }
    {
        GraphBuilder g;
        Build(g);
        g.Output(0, 0, 0);  // graph output 0 filled twice
        ExpectRefused(g.Desc(2, 1), "G6");
    }
}

TEST_F(GraphRuleTest, G7_NoCycles) {
    auto add2 = Add(t, t, t);
    GraphBuilder g;
    g.AddOperator(add.Get(), "first");
    g.AddOperator(add2.Get(), "second");
    g.Input(0, 0, 0);
    g.Connect(1, 0, 0, 1);
    g.Connect(0, 0, 1, 0);
    g.Input(1, 1, 1);
    g.Output(1, 0, 0);
    ExpectRefused(g.Desc(2, 1), "G7");
}

TEST_F(GraphRuleTest, G8_EdgesJoinTensorsOfOneByteSize) {
    Tensor small(kF32, {4});
    auto reluSmall = Relu(small, small);
    GraphBuilder g;
    g.AddOperator(add.Get());
    g.AddOperator(reluSmall.Get());
    g.Input(0, 0, 0);
    g.Input(1, 0, 1);
    g.Connect(0, 0, 1, 0);  // 32 bytes into 16
    g.Output(1, 0, 0);
    ExpectRefused(g.Desc(2, 1), "G8");
}

TEST_F(GraphRuleTest, G9_OwnedTensorsComeStraightFromAGraphInputThatAgrees) {
    Tensor owned(kF32, {8}, {}, kOwned);
    auto reluOwned = Relu(owned, t);
    {
        GraphBuilder g;
        g.AddOperator(add.Get());
        g.AddOperator(reluOwned.Get());
        g.Input(0, 0, 0);
        g.Input(1, 0, 1);
        g.Connect(0, 0, 1, 0);  // an owned input fed by a node
        g.Output(1, 0, 0);
        ExpectRefused(g.Desc(2, 1), "G9");
    }
    {
        GraphBuilder g;
        g.AddOperator(add.Get());
        g.AddOperator(reluOwned.Get());
        g.Input(0, 0, 0);
        g.Input(0, 0, 1);
        g.Input(0, 1, 0);  // one consumer owned, the others not
        g.Output(0, 0, 0);
        g.Output(1, 0, 1);
        ExpectRefused(g.Desc(1, 2), "G9");
    }
}

TEST_F(GraphRuleTest, G10_ExecutionFlagsAreKnown) {
    GraphBuilder g;
    Build(g);
    ExpectRefused(g.Desc(2, 1), "G10", 0x100);
    EXPECT_TRUE(Compile(g.Desc(2, 1), DML_EXECUTION_FLAG_ALLOW_HALF_PRECISION_COMPUTATION));
}

TEST_F(GraphRuleTest, NullDescAndValidationOnlyCall) {
    ComPtr<IDMLCompiledOperator> compiled;
    EXPECT_EQ(dml1->CompileGraph(nullptr, DML_EXECUTION_FLAG_NONE, IID_PPV_ARGS(&compiled)), E_INVALIDARG);
    GraphBuilder g;
    Build(g);
    const DML_GRAPH_DESC desc = g.Desc(2, 1);
    EXPECT_EQ(dml1->CompileGraph(&desc, DML_EXECUTION_FLAG_NONE, __uuidof(IDMLCompiledOperator), nullptr), S_FALSE);
}


// ---- The optimizer (src/dml/graph/fusion.h): fused graphs compute what the unfused ones do ----

// Sets FREEDML_GRAPH_FUSION for one scope ("0": CompileGraph leaves the graph as it is).
class ScopedFusion {
public:
    explicit ScopedFusion(bool on) {
        if (const char* old = std::getenv("FREEDML_GRAPH_FUSION")) old_ = old, had_ = true;
        setenv("FREEDML_GRAPH_FUSION", on ? "1" : "0", 1);
    }
    ~ScopedFusion() {
        if (had_) {
            setenv("FREEDML_GRAPH_FUSION", old_.c_str(), 1);
        } else {
            unsetenv("FREEDML_GRAPH_FUSION");
        }
    }

private:
    std::string old_;
    bool had_ = false;
};

class GraphFusionTest : public GraphTest {
protected:
    // Compiles with fusion on or off, runs once, returns output 0 and the temporary size.
    std::vector<float> Run(const DML_GRAPH_DESC& desc, bool fusion, const std::vector<std::vector<float>>& inputs,
                           size_t outCount, UINT64* temporary) {
        ComPtr<IDMLCompiledOperator> compiled;
        {
            ScopedFusion scope(fusion);
            compiled = Compile(desc);
        }
        if (!compiled) return {};
        *temporary = compiled->GetBindingProperties().TemporaryResourceSize;
        std::vector<ComPtr<ID3D12Resource>> buffers;
        std::vector<DML_BUFFER_BINDING> bindings(inputs.size());
        std::vector<DML_BINDING_DESC> in;
        for (size_t i = 0; i < inputs.size(); ++i) {
            buffers.push_back(Filled(inputs[i]));
            bindings[i] = {buffers.back().Get(), 0, std::max<UINT64>(16, inputs[i].size() * 4)};
            in.push_back(BufferBinding(&bindings[i]));
        }
        const UINT64 outBytes = std::max<UINT64>(16, outCount * 4);
        auto out = Buffer(outBytes);
        DML_BUFFER_BINDING ob{out.Get(), 0, outBytes};
        auto persistent = Initialize(compiled.Get());
        Dispatch(compiled.Get(), in, {BufferBinding(&ob)}, persistent.Get());
        EXPECT_FALSE(DeviceRemoved()) << Messages();
        return ReadbackAs<float>(out.Get(), outCount);
    }

    static void ExpectNear(const std::vector<float>& got, const std::vector<double>& want, double tolerance) {
        ASSERT_EQ(got.size(), want.size());
        for (size_t i = 0; i < got.size(); ++i) {
            ASSERT_NEAR(got[i], want[i], tolerance * std::max(1.0, std::fabs(want[i]))) << "element " << i;
        }
    }
};

// sigmoid(((relu(x + y) * 0.5 + 0.25) * z)) with z broadcast along rows: five element-wise
// nodes become one pass, so no intermediate is left in the temporary resource.
TEST_F(GraphFusionTest, ElementWiseChainRunsAsOnePass) {
    constexpr UINT kRows = 4, kCols = 1000;
    Tensor t(kF32, {kRows, kCols}), zRow(kF32, {kRows, kCols}, {0, 1});
    auto add = Add(t, t, t);
    auto relu = Relu(t, t);
    auto scale = Identity(t, t, 0.5f, 0.25f);
    DML_ELEMENT_WISE_MULTIPLY_OPERATOR_DESC mulDesc{&t.desc, &zRow.desc, &t.desc};
    auto mul = Op(DML_OPERATOR_ELEMENT_WISE_MULTIPLY, &mulDesc);
    DML_ACTIVATION_SIGMOID_OPERATOR_DESC sigDesc{&t.desc, &t.desc};
    auto sigmoid = Op(DML_OPERATOR_ACTIVATION_SIGMOID, &sigDesc);
    GraphBuilder g;
    for (auto* op : {add.Get(), relu.Get(), scale.Get(), mul.Get(), sigmoid.Get()}) g.AddOperator(op);
    g.Input(0, 0, 0);
    g.Input(1, 0, 1);
    for (uint32_t n = 1; n < 5; ++n) g.Connect(n - 1, 0, n, 0);
    g.Input(2, 3, 1);
    g.Output(4, 0, 0);
    const DML_GRAPH_DESC desc = g.Desc(3, 1);

    std::vector<float> x(kRows * kCols), y(kRows * kCols), z(kCols);
    for (UINT i = 0; i < kRows * kCols; ++i) {
        x[i] = float(int(i % 37) - 18) * 0.125f;
        y[i] = float(int(i % 11) - 4) * 0.25f;
    }
    for (UINT c = 0; c < kCols; ++c) z[c] = float(int(c % 9) - 4) * 0.5f;
    std::vector<double> want(kRows * kCols);
    for (UINT i = 0; i < kRows * kCols; ++i) {
        const double v = (std::max(double(x[i]) + y[i], 0.0) * 0.5 + 0.25) * z[i % kCols];
        want[i] = 1.0 / (1.0 + std::exp(-v));
    }
    UINT64 fusedTemp = 0, plainTemp = 0;
    auto fused = Run(desc, true, {x, y, z}, x.size(), &fusedTemp);
    auto plain = Run(desc, false, {x, y, z}, x.size(), &plainTemp);
    ExpectNear(fused, want, 1e-6);
    ExpectNear(plain, want, 1e-6);
    EXPECT_EQ(fusedTemp, 0u) << "the fused pass keeps no intermediate";
    EXPECT_GE(plainTemp, 2 * t.Bytes()) << "unfused, two intermediates are live at once";
}

// GEMM (with C as a bias) followed by RELU: the activation becomes GEMM's FusedActivation and
// the intermediate disappears from the temporary resource.
TEST_F(GraphFusionTest, ActivationBecomesTheGemmEpilogue) {
    constexpr UINT M = 4, K = 8, N = 5;
    Tensor a(kF32, {1, 1, M, K}), b(kF32, {1, 1, K, N}), c(kF32, {1, 1, M, N}), out(kF32, {1, 1, M, N});
    DML_GEMM_OPERATOR_DESC gemmDesc{&a.desc, &b.desc, &c.desc, &out.desc, DML_MATRIX_TRANSFORM_NONE,
                                    DML_MATRIX_TRANSFORM_NONE, 1.0f, 1.0f, nullptr};
    auto gemm = Op(DML_OPERATOR_GEMM, &gemmDesc);
    DML_ACTIVATION_LEAKY_RELU_OPERATOR_DESC leakyDesc{&out.desc, &out.desc, 0.125f};
    auto leaky = Op(DML_OPERATOR_ACTIVATION_LEAKY_RELU, &leakyDesc);
    GraphBuilder g;
    g.AddOperator(gemm.Get());
    g.AddOperator(leaky.Get());
    g.Input(0, 0, 0);
    g.Input(1, 0, 1);
    g.Input(2, 0, 2);
    g.Connect(0, 0, 1, 0);
    g.Output(1, 0, 0);
    const DML_GRAPH_DESC desc = g.Desc(3, 1);
    std::vector<float> av(M * K), bv(K * N), cv(M * N);
    for (UINT i = 0; i < M * K; ++i) av[i] = float(int(i % 7) - 3) * 0.5f;
    for (UINT i = 0; i < K * N; ++i) bv[i] = float(int(i % 5) - 2) * 0.25f;
    for (UINT i = 0; i < M * N; ++i) cv[i] = float(int(i % 3) - 1);
    std::vector<double> want(M * N);
    for (UINT m = 0; m < M; ++m) {
        for (UINT n = 0; n < N; ++n) {
            double sum = cv[m * N + n];
            for (UINT k = 0; k < K; ++k) sum += double(av[m * K + k]) * bv[k * N + n];
            want[m * N + n] = sum >= 0 ? sum : 0.125 * sum;
        }
    }
    UINT64 fusedTemp = 0, plainTemp = 0;
    ExpectNear(Run(desc, true, {av, bv, cv}, M * N, &fusedTemp), want, 1e-5);
    ExpectNear(Run(desc, false, {av, bv, cv}, M * N, &plainTemp), want, 1e-5);
    EXPECT_GE(plainTemp, fusedTemp + out.Bytes()) << "the GEMM output is no longer an intermediate";
}

// CONVOLUTION (3x3, padding 1, one input channel, two output channels) followed by SIGMOID: the
// activation becomes the convolution's FusedActivation.
TEST_F(GraphFusionTest, ActivationBecomesTheConvolutionEpilogue) {
    constexpr UINT H = 4, W = 5, C = 2;
    Tensor input(kF32, {1, 1, H, W}), filter(kF32, {C, 1, 3, 3}), output(kF32, {1, C, H, W});
    const UINT strides[2] = {1, 1}, dilations[2] = {1, 1}, pads[2] = {1, 1}, outputPadding[2] = {0, 0};
    DML_CONVOLUTION_OPERATOR_DESC convDesc{&input.desc, &filter.desc, nullptr, &output.desc,
                                           DML_CONVOLUTION_MODE_CROSS_CORRELATION, DML_CONVOLUTION_DIRECTION_FORWARD,
                                           2, strides, dilations, pads, pads, outputPadding, 1, nullptr};
    auto conv = Op(DML_OPERATOR_CONVOLUTION, &convDesc);
    DML_ACTIVATION_SIGMOID_OPERATOR_DESC sigDesc{&output.desc, &output.desc};
    auto sigmoid = Op(DML_OPERATOR_ACTIVATION_SIGMOID, &sigDesc);
    GraphBuilder g;
    g.AddOperator(conv.Get());
    g.AddOperator(sigmoid.Get());
    g.Input(0, 0, 0);
    g.Input(1, 0, 1);
    g.Connect(0, 0, 1, 0);
    g.Output(1, 0, 0);
    const DML_GRAPH_DESC desc = g.Desc(2, 1);
    std::vector<float> x(H * W), f(C * 9);
    for (UINT i = 0; i < H * W; ++i) x[i] = float(int(i % 7) - 3) * 0.25f;
    for (UINT i = 0; i < C * 9; ++i) f[i] = float(int(i % 5) - 2) * 0.5f;
    std::vector<double> want(C * H * W);
    for (UINT c = 0; c < C; ++c) {
        for (UINT y = 0; y < H; ++y) {
            for (UINT xx = 0; xx < W; ++xx) {
                double sum = 0;
                for (int ky = 0; ky < 3; ++ky) {
                    for (int kx = 0; kx < 3; ++kx) {
                        const int iy = int(y) + ky - 1, ix = int(xx) + kx - 1;
                        if (iy < 0 || ix < 0 || iy >= int(H) || ix >= int(W)) continue;
                        sum += double(x[iy * W + ix]) * f[c * 9 + ky * 3 + kx];
                    }
                }
                want[(c * H + y) * W + xx] = 1.0 / (1.0 + std::exp(-sum));
            }
        }
    }
    UINT64 fusedTemp = 0, plainTemp = 0;
    ExpectNear(Run(desc, true, {x, f}, C * H * W, &fusedTemp), want, 1e-5);
    ExpectNear(Run(desc, false, {x, f}, C * H * W, &plainTemp), want, 1e-5);
    EXPECT_GE(plainTemp, fusedTemp + output.Bytes()) << "the convolution's output is no longer an intermediate";
}

// CONVOLUTION then CLIP(0, 6) (ReLU6): DirectML's FusedActivation cannot name CLIP, so the
// optimizer gives the convolution a clamped output. Eight channels reach oneDNN; a NaN input
// stays NaN through the clamp, as the standalone CLIP keeps it.
TEST_F(GraphFusionTest, ClipBecomesTheConvolutionsClampedOutput) {
    constexpr UINT H = 6, W = 7, CI = 4, CO = 8;
    Tensor input(kF32, {1, CI, H, W}), filter(kF32, {CO, CI, 3, 3}), output(kF32, {1, CO, H, W});
    const UINT strides[2] = {1, 1}, dilations[2] = {1, 1}, pads[2] = {1, 1}, outputPadding[2] = {0, 0};
    DML_CONVOLUTION_OPERATOR_DESC convDesc{&input.desc, &filter.desc, nullptr, &output.desc,
                                           DML_CONVOLUTION_MODE_CROSS_CORRELATION, DML_CONVOLUTION_DIRECTION_FORWARD,
                                           2, strides, dilations, pads, pads, outputPadding, 1, nullptr};
    auto conv = Op(DML_OPERATOR_CONVOLUTION, &convDesc);
    DML_ELEMENT_WISE_CLIP_OPERATOR_DESC clipDesc{&output.desc, &output.desc, nullptr, 0.0f, 6.0f};
    auto clip = Op(DML_OPERATOR_ELEMENT_WISE_CLIP, &clipDesc);
    GraphBuilder g;
    g.AddOperator(conv.Get());
    g.AddOperator(clip.Get());
    g.Input(0, 0, 0);
    g.Input(1, 0, 1);
    g.Connect(0, 0, 1, 0);
    g.Output(1, 0, 0);
    const DML_GRAPH_DESC desc = g.Desc(2, 1);
    std::vector<float> x(CI * H * W), f(CO * CI * 9);
    for (UINT i = 0; i < x.size(); ++i) x[i] = float(int(i % 11) - 4) * 0.75f;
    for (UINT i = 0; i < f.size(); ++i) f[i] = float(int(i % 7) - 3) * 0.5f;
    const UINT nanAt = (1 * H + 3) * W + 2;  // channel 1, row 3, column 2
    x[nanAt] = std::nanf("");
    std::vector<double> want(CO * H * W);
    for (UINT c = 0; c < CO; ++c) {
        for (UINT y = 0; y < H; ++y) {
            for (UINT xx = 0; xx < W; ++xx) {
                double sum = 0;
                for (UINT ci = 0; ci < CI; ++ci) {
                    for (int ky = 0; ky < 3; ++ky) {
                        for (int kx = 0; kx < 3; ++kx) {
                            const int iy = int(y) + ky - 1, ix = int(xx) + kx - 1;
                            if (iy < 0 || ix < 0 || iy >= int(H) || ix >= int(W)) continue;
                            sum += double(x[(ci * H + iy) * W + ix]) * f[((c * CI + ci) * 3 + ky) * 3 + kx];
                        }
                    }
                }
                want[(c * H + y) * W + xx] = std::isnan(sum) ? sum : std::min(6.0, std::max(0.0, sum));
            }
        }
    }
    size_t nans = 0, clamped = 0;
    for (double v : want) nans += std::isnan(v), clamped += v == 0.0 || v == 6.0;
    ASSERT_GT(nans, 0u);
    ASSERT_GT(clamped, want.size() / 4) << "the data should reach both bounds";
    auto expect = [&](const std::vector<float>& got) {
        ASSERT_EQ(got.size(), want.size());
        for (size_t i = 0; i < got.size(); ++i) {
            if (std::isnan(want[i])) {
                EXPECT_TRUE(std::isnan(got[i])) << "element " << i << " is " << got[i];
            } else {
                ASSERT_NEAR(got[i], want[i], 1e-5 * std::max(1.0, std::fabs(want[i]))) << "element " << i;
            }
        }
    };
    UINT64 fusedTemp = 0, plainTemp = 0;
    expect(Run(desc, true, {x, f}, CO * H * W, &fusedTemp));
    expect(Run(desc, false, {x, f}, CO * H * W, &plainTemp));
    EXPECT_GE(plainTemp, fusedTemp + output.Bytes()) << "the convolution's output is no longer an intermediate";
}

// An IDENTITY without ScaleBias between two tensors of one packed layout is a copy: GEMM writes
// the graph output directly.
TEST_F(GraphFusionTest, IdentityCopyIsElided) {
    Tensor a(kF32, {1, 1, 2, 3}), b(kF32, {1, 1, 3, 2}), out(kF32, {1, 1, 2, 2});
    DML_GEMM_OPERATOR_DESC gemmDesc{&a.desc, &b.desc, nullptr, &out.desc, DML_MATRIX_TRANSFORM_NONE,
                                    DML_MATRIX_TRANSFORM_NONE, 1.0f, 1.0f, nullptr};
    auto gemm = Op(DML_OPERATOR_GEMM, &gemmDesc);
    DML_ELEMENT_WISE_IDENTITY_OPERATOR_DESC idDesc{&out.desc, &out.desc, nullptr};
    auto identity = Op(DML_OPERATOR_ELEMENT_WISE_IDENTITY, &idDesc);
    GraphBuilder g;
    g.AddOperator(gemm.Get());
    g.AddOperator(identity.Get());
    g.Input(0, 0, 0);
    g.Input(1, 0, 1);
    g.Connect(0, 0, 1, 0);
    g.Output(1, 0, 0);
    const DML_GRAPH_DESC desc = g.Desc(2, 1);
    const std::vector<float> av{1, 2, 3, 4, 5, 6}, bv{1, -1, 0.5f, 2, -2, 0.25f};
    const std::vector<double> want{1 * 1 + 2 * 0.5 + 3 * -2.0, 1 * -1 + 2 * 2 + 3 * 0.25, 4 * 1 + 5 * 0.5 + 6 * -2.0,
                                   4 * -1 + 5 * 2 + 6 * 0.25};
    UINT64 fusedTemp = 0, plainTemp = 0;
    ExpectNear(Run(desc, true, {av, bv}, 4, &fusedTemp), want, 1e-6);
    ExpectNear(Run(desc, false, {av, bv}, 4, &plainTemp), want, 1e-6);
    EXPECT_GE(plainTemp, fusedTemp + out.Bytes());
}

// GEMM, then ADD of a bias broadcast over the rows, then RELU (a perceptron layer): the ADD
// becomes GEMM's C and the RELU its FusedActivation, one kernel where there were three.
TEST_F(GraphFusionTest, BiasAddAndActivationFoldIntoTheGemm) {
    constexpr UINT M = 3, K = 6, N = 4;
    Tensor a(kF32, {1, 1, M, K}), b(kF32, {1, 1, K, N}), out(kF32, {1, 1, M, N});
    Tensor biasRow(kF32, {1, 1, M, N}, {0, 0, 0, 1});
    DML_GEMM_OPERATOR_DESC gemmDesc{&a.desc, &b.desc, nullptr, &out.desc, DML_MATRIX_TRANSFORM_NONE,
                                    DML_MATRIX_TRANSFORM_NONE, 0.5f, 0.0f, nullptr};
    auto gemm = Op(DML_OPERATOR_GEMM, &gemmDesc);
    DML_ELEMENT_WISE_ADD_OPERATOR_DESC addDesc{&biasRow.desc, &out.desc, &out.desc};  // the bias is A
    auto add = Op(DML_OPERATOR_ELEMENT_WISE_ADD, &addDesc);
    auto relu = Relu(out, out);
    GraphBuilder g;
    g.AddOperator(gemm.Get());
    g.AddOperator(add.Get());
    g.AddOperator(relu.Get());
    g.Input(0, 0, 0);
    g.Input(1, 0, 1);
    g.Input(2, 1, 0);
    g.Connect(0, 0, 1, 1);
    g.Connect(1, 0, 2, 0);
    g.Output(2, 0, 0);
    const DML_GRAPH_DESC desc = g.Desc(3, 1);
    std::vector<float> av(M * K), bv(K * N), bias{0.5f, -8.0f, 2.0f, -0.25f};
    for (UINT i = 0; i < M * K; ++i) av[i] = float(int(i % 5) - 2);
    for (UINT i = 0; i < K * N; ++i) bv[i] = float(int(i % 7) - 3) * 0.5f;
    std::vector<double> want(M * N);
    for (UINT m = 0; m < M; ++m) {
        for (UINT n = 0; n < N; ++n) {
            double sum = 0;
            for (UINT k = 0; k < K; ++k) sum += double(av[m * K + k]) * bv[k * N + n];
            want[m * N + n] = std::max(0.5 * sum + bias[n], 0.0);
        }
    }
    UINT64 fusedTemp = 0, plainTemp = 0;
    ExpectNear(Run(desc, true, {av, bv, bias}, M * N, &fusedTemp), want, 1e-6);
    ExpectNear(Run(desc, false, {av, bv, bias}, M * N, &plainTemp), want, 1e-6);
    EXPECT_GE(plainTemp, fusedTemp + 2 * out.Bytes()) << "neither intermediate is left";
}

// One compiled graph executed again and again: with new values in the same buffers, and bound to
// other buffers and back. (On CUDA the second execution records the graph as a CUDA graph and
// later ones relaunch or re-record it; every result must still be the current one.)
TEST_F(GraphFusionTest, ReexecutedAndReboundGraphsComputeCurrentValues) {
    Tensor t(kF32, {2, 8});
    auto scale = Identity(t, t, 2.0f, 1.0f);
    auto relu = Relu(t, t);
    auto add = Add(t, t, t);
    GraphBuilder g;
    g.AddOperator(scale.Get());
    g.AddOperator(relu.Get());
    g.AddOperator(add.Get());
    g.Input(0, 0, 0);
    g.Connect(0, 0, 1, 0);
    g.Connect(1, 0, 2, 0);
    g.Input(1, 2, 1);
    g.Output(2, 0, 0);
    for (bool fusion : {true, false}) {
        SCOPED_TRACE(fusion ? "fusion on" : "fusion off");
        ComPtr<IDMLCompiledOperator> compiled;
        {
            ScopedFusion scope(fusion);
            compiled = Compile(g.Desc(2, 1));
        }
        ASSERT_TRUE(compiled);
        auto persistent = Initialize(compiled.Get());
        ComPtr<ID3D12Resource> x[2] = {Buffer(64), Buffer(64)}, y[2] = {Buffer(64), Buffer(64)}, out[2] = {Buffer(64), Buffer(64)};
        const int sets[] = {0, 0, 0, 1, 1, 0};
        for (int run = 0; run < 6; ++run) {
            const int k = sets[run];
            std::vector<float> xv(16), yv(16);
            for (int i = 0; i < 16; ++i) {
                xv[i] = float((i * (run + 3)) % 11 - 5) * 0.5f;
                yv[i] = float(run * 16 + i) * 0.25f;
            }
            Upload(x[k].Get(), xv);
            Upload(y[k].Get(), yv);
            DML_BUFFER_BINDING xb{x[k].Get(), 0, 64}, yb{y[k].Get(), 0, 64}, ob{out[k].Get(), 0, 64};
            Dispatch(compiled.Get(), {BufferBinding(&xb), BufferBinding(&yb)}, {BufferBinding(&ob)}, persistent.Get());
            ASSERT_FALSE(DeviceRemoved()) << Messages();
            auto got = ReadbackAs<float>(out[k].Get(), 16);
            for (int i = 0; i < 16; ++i) {
                ASSERT_EQ(got[i], std::max(2.0f * xv[i] + 1.0f, 0.0f) + yv[i]) << "run " << run << ", element " << i;
            }
        }
    }
}

// A tree, not a chain: (x + y) - (relu(x) * y) in one pass; and an intermediate two nodes read
// stays in memory (the two readers are fused apart from it).
TEST_F(GraphFusionTest, TreesFuseAndSharedIntermediatesStay) {
    Tensor t(kF32, {3, 5});
    auto add = Add(t, t, t);
    auto relu = Relu(t, t);
    DML_ELEMENT_WISE_MULTIPLY_OPERATOR_DESC mulDesc{&t.desc, &t.desc, &t.desc};
    auto mul = Op(DML_OPERATOR_ELEMENT_WISE_MULTIPLY, &mulDesc);
    DML_ELEMENT_WISE_SUBTRACT_OPERATOR_DESC subDesc{&t.desc, &t.desc, &t.desc};
    auto sub = Op(DML_OPERATOR_ELEMENT_WISE_SUBTRACT, &subDesc);
    auto scale = Identity(t, t, 3.0f, -1.0f);
    auto relu2 = Relu(t, t);
    GraphBuilder g;
    for (auto* op : {add.Get(), relu.Get(), mul.Get(), sub.Get(), scale.Get(), relu2.Get()}) g.AddOperator(op);
    g.Input(0, 0, 0);
    g.Input(1, 0, 1);
    g.Input(0, 1, 0);
    g.Connect(1, 0, 2, 0);
    g.Input(1, 2, 1);
    g.Connect(0, 0, 3, 0);
    g.Connect(2, 0, 3, 1);
    g.Connect(3, 0, 4, 0);  // the difference is read twice: by the scale and by relu2
    g.Connect(3, 0, 5, 0);
    g.Output(4, 0, 0);
    g.Output(5, 0, 1);
    auto compiled = Compile(g.Desc(2, 2));
    ASSERT_TRUE(compiled);
    std::vector<float> x(15), y(15);
    for (int i = 0; i < 15; ++i) x[i] = float(i - 7) * 0.5f, y[i] = float(3 - i % 6) * 0.75f;
    auto xb = Filled(x), yb = Filled(y), o0 = Buffer(60), o1 = Buffer(60);
    DML_BUFFER_BINDING xbb{xb.Get(), 0, 60}, ybb{yb.Get(), 0, 60}, o0b{o0.Get(), 0, 60}, o1b{o1.Get(), 0, 60};
    auto persistent = Initialize(compiled.Get());
    Dispatch(compiled.Get(), {BufferBinding(&xbb), BufferBinding(&ybb)}, {BufferBinding(&o0b), BufferBinding(&o1b)},
             persistent.Get());
    ASSERT_FALSE(DeviceRemoved()) << Messages();
    auto y0 = ReadbackAs<float>(o0.Get(), 15), y1 = ReadbackAs<float>(o1.Get(), 15);
    for (int i = 0; i < 15; ++i) {
        const double d = (double(x[i]) + y[i]) - std::max(double(x[i]), 0.0) * y[i];
        EXPECT_NEAR(y0[i], 3.0 * d - 1.0, 1e-5) << i;
        EXPECT_NEAR(y1[i], std::max(d, 0.0), 1e-6) << i;
    }
    EXPECT_GE(compiled->GetBindingProperties().TemporaryResourceSize, t.Bytes()) << "the shared difference stays";
}


// Sets an environment variable for the life of the scope.
class ScopedEnv {
public:
    ScopedEnv(const char* name, const char* value) : name_(name) {
        if (const char* old = std::getenv(name)) old_ = old, had_ = true;
        setenv(name, value, 1);
    }
    ~ScopedEnv() {
        if (had_) {
            setenv(name_.c_str(), old_.c_str(), 1);
        } else {
            unsetenv(name_.c_str());
        }
    }

private:
    std::string name_, old_;
    bool had_ = false;
};

size_t Occurrences(const std::string& text, const std::string& what) {
    size_t count = 0;
    for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++count;
    return count;
}

// The graph fusion tests on the CPU adapter (FREEDML_ADAPTER=cpu while the device is made), where
// the layout choices are the CPU kernels'.
class CpuGraphFusionTest : public GraphFusionTest {
protected:
    void SetUp() override {
        ScopedEnv cpu("FREEDML_ADAPTER", "cpu");
        GraphFusionTest::SetUp();
    }
};

// An inverted-residual block (MobileNetV2's): 1x1 convolution, CLIP(0, 6), depthwise 3x3, 1x1,
// and the ADD of the block's input. The CPU graph stores the three convolutions' outputs
// channels-last (NHWC), the optimizer's log says so (FREEDML_DEBUG), and the ADD reads one NHWC
// and one NCHW operand into the NCHW graph output. The result is the definition's whether the
// layouts change (FREEDML_CHANNELS_LAST unset), stay (=0) or the optimizer is off.
TEST_F(CpuGraphFusionTest, ConvolutionIntermediatesAreStoredChannelsLast) {
    constexpr UINT H = 6, W = 5, CI = 8, CM = 16;
    Tensor x(kF32, {1, CI, H, W}), mid(kF32, {1, CM, H, W});
    Tensor fa(kF32, {CM, CI, 1, 1}), fb(kF32, {CM, 1, 3, 3}), fc(kF32, {CI, CM, 1, 1});
    const UINT ones[2] = {1, 1}, zeros[2] = {0, 0};
    DML_CONVOLUTION_OPERATOR_DESC aDesc{&x.desc, &fa.desc, nullptr, &mid.desc, DML_CONVOLUTION_MODE_CROSS_CORRELATION,
                                        DML_CONVOLUTION_DIRECTION_FORWARD, 2, ones, ones, zeros, zeros, zeros, 1, nullptr};
    DML_CONVOLUTION_OPERATOR_DESC bDesc{&mid.desc, &fb.desc, nullptr, &mid.desc, DML_CONVOLUTION_MODE_CROSS_CORRELATION,
                                        DML_CONVOLUTION_DIRECTION_FORWARD, 2, ones, ones, ones, ones, zeros, CM, nullptr};
    DML_CONVOLUTION_OPERATOR_DESC cDesc{&mid.desc, &fc.desc, nullptr, &x.desc, DML_CONVOLUTION_MODE_CROSS_CORRELATION,
                                        DML_CONVOLUTION_DIRECTION_FORWARD, 2, ones, ones, zeros, zeros, zeros, 1, nullptr};
    auto convA = Op(DML_OPERATOR_CONVOLUTION, &aDesc);
    auto convB = Op(DML_OPERATOR_CONVOLUTION, &bDesc);
    auto convC = Op(DML_OPERATOR_CONVOLUTION, &cDesc);
    DML_ELEMENT_WISE_CLIP_OPERATOR_DESC clipDesc{&mid.desc, &mid.desc, nullptr, 0.0f, 6.0f};
    auto clip = Op(DML_OPERATOR_ELEMENT_WISE_CLIP, &clipDesc);
    auto add = Add(x, x, x);
    GraphBuilder g;
    for (auto* op : {convA.Get(), clip.Get(), convB.Get(), convC.Get(), add.Get()}) g.AddOperator(op);
    g.Input(0, 0, 0);
    g.Input(1, 0, 1);
    g.Connect(0, 0, 1, 0);
    g.Connect(1, 0, 2, 0);
    g.Input(2, 2, 1);
    g.Connect(2, 0, 3, 0);
    g.Input(3, 3, 1);
    g.Connect(3, 0, 4, 0);
    g.Input(0, 4, 1);
    g.Output(4, 0, 0);
    const DML_GRAPH_DESC desc = g.Desc(4, 1);

    std::vector<float> xv(CI * H * W), av(CM * CI), bv(CM * 9), cv(CI * CM);
    for (UINT i = 0; i < xv.size(); ++i) xv[i] = float(int(i * 7 % 23) - 11) * 0.25f;
    for (UINT i = 0; i < av.size(); ++i) av[i] = float(int(i * 5 % 13) - 6) * 0.5f;
    for (UINT i = 0; i < bv.size(); ++i) bv[i] = float(int(i * 3 % 11) - 5) * 0.25f;
    for (UINT i = 0; i < cv.size(); ++i) cv[i] = float(int(i * 11 % 17) - 8) * 0.125f;
    // float64 reference, NCHW.
    std::vector<double> a(CM * H * W), b(CM * H * W), want(CI * H * W);
    size_t clamped = 0;
    for (UINT m = 0; m < CM; ++m) {
        for (UINT p = 0; p < H * W; ++p) {
            double sum = 0;
            for (UINT c = 0; c < CI; ++c) sum += double(xv[c * H * W + p]) * av[m * CI + c];
            a[m * H * W + p] = std::min(6.0, std::max(0.0, sum));
            clamped += sum < 0.0 || sum > 6.0;
        }
    }
    ASSERT_GT(clamped, a.size() / 8) << "the data should reach the clip's bounds";
    for (UINT m = 0; m < CM; ++m) {
        for (UINT y = 0; y < H; ++y) {
            for (UINT xx = 0; xx < W; ++xx) {
                double sum = 0;
                for (int ky = 0; ky < 3; ++ky) {
                    for (int kx = 0; kx < 3; ++kx) {
                        const int iy = int(y) + ky - 1, ix = int(xx) + kx - 1;
                        if (iy < 0 || ix < 0 || iy >= int(H) || ix >= int(W)) continue;
                        sum += a[(m * H + iy) * W + ix] * bv[m * 9 + ky * 3 + kx];
                    }
                }
                b[(m * H + y) * W + xx] = sum;
            }
        }
    }
    for (UINT c = 0; c < CI; ++c) {
        for (UINT p = 0; p < H * W; ++p) {
            double sum = xv[c * H * W + p];
            for (UINT m = 0; m < CM; ++m) sum += b[m * H * W + p] * cv[c * CM + m];
            want[c * H * W + p] = sum;
        }
    }

    const std::string line = "channels-last (NHWC)";
    for (const char* choice : {"1", "0"}) {
        SCOPED_TRACE(testing::Message() << "FREEDML_CHANNELS_LAST=" << choice);
        ScopedEnv debug("FREEDML_DEBUG", "1"), channelsLast("FREEDML_CHANNELS_LAST", choice);
        UINT64 temporary = 0;
        testing::internal::CaptureStderr();
        const std::vector<float> got = Run(desc, true, {xv, av, bv, cv}, CI * H * W, &temporary);
        const std::string log = testing::internal::GetCapturedStderr();
        ExpectNear(got, want, 1e-4);
        EXPECT_EQ(Occurrences(log, line), choice[0] == '1' ? 3u : 0u) << log;
        if (choice[0] == '1') {
            EXPECT_NE(log.find("node 3 (CONVOLUTION operator) channels-last"), std::string::npos) << log;
        }
    }
    UINT64 temporary = 0;
    ExpectNear(Run(desc, false, {xv, av, bv, cv}, CI * H * W, &temporary), want, 1e-4);
}


// A residual block: r = conv0(x); out = relu(conv2(relu(conv1(r))) + r). The ADD folds into conv2,
// which writes over r's bytes and adds its result to them (r has no reader after it), and the
// RELU after it becomes conv2's FusedActivation, applied after the sum; the log says so and the
// result is the definition's, with and without the optimizer.
TEST_F(CpuGraphFusionTest, ResidualAddFoldsIntoTheConvolution) {
    constexpr UINT H = 5, W = 6, C = 8;
    Tensor t(kF32, {1, C, H, W}), f1(kF32, {C, C, 1, 1}), f3(kF32, {C, C, 3, 3});
    const UINT ones[2] = {1, 1}, zeros[2] = {0, 0};
    auto conv = [&](const Tensor& filter, const UINT* pads) {
        DML_CONVOLUTION_OPERATOR_DESC desc{&t.desc, &filter.desc, nullptr, &t.desc, DML_CONVOLUTION_MODE_CROSS_CORRELATION,
                                           DML_CONVOLUTION_DIRECTION_FORWARD, 2, ones, ones, pads, pads, zeros, 1, nullptr};
        return Op(DML_OPERATOR_CONVOLUTION, &desc);
    };
    auto conv0 = conv(f1, zeros), conv1 = conv(f3, ones), conv2 = conv(f1, zeros);
    auto relu1 = Relu(t, t), relu2 = Relu(t, t);
    auto add = Add(t, t, t);
    GraphBuilder g;
    for (auto* op : {conv0.Get(), conv1.Get(), relu1.Get(), conv2.Get(), add.Get(), relu2.Get()}) g.AddOperator(op);
    g.Input(0, 0, 0);
    g.Input(1, 0, 1);
    g.Connect(0, 0, 1, 0);
    g.Input(2, 1, 1);
    g.Connect(1, 0, 2, 0);
    g.Connect(2, 0, 3, 0);
    g.Input(3, 3, 1);
    g.Connect(3, 0, 4, 0);
    g.Connect(0, 0, 4, 1);  // the shortcut
    g.Connect(4, 0, 5, 0);
    g.Output(5, 0, 0);
    const DML_GRAPH_DESC desc = g.Desc(4, 1);

    std::vector<float> xv(C * H * W), a(C * C), b(C * C * 9), c(C * C);
    for (UINT i = 0; i < xv.size(); ++i) xv[i] = float(int(i * 7 % 19) - 9) * 0.25f;
    for (UINT i = 0; i < a.size(); ++i) a[i] = float(int(i * 5 % 11) - 5) * 0.25f;
    for (UINT i = 0; i < b.size(); ++i) b[i] = float(int(i * 3 % 13) - 6) * 0.125f;
    for (UINT i = 0; i < c.size(); ++i) c[i] = float(int(i * 11 % 7) - 3) * 0.5f;
    auto pointwise = [&](const std::vector<double>& in, const std::vector<float>& w) {
        std::vector<double> out(C * H * W, 0.0);
        for (UINT o = 0; o < C; ++o)
            for (UINT i = 0; i < C; ++i)
                for (UINT p = 0; p < H * W; ++p) out[o * H * W + p] += in[i * H * W + p] * w[o * C + i];
        return out;
    };
    const std::vector<double> r = pointwise(std::vector<double>(xv.begin(), xv.end()), a);
    std::vector<double> h(C * H * W, 0.0);
    for (UINT o = 0; o < C; ++o) {
        for (UINT y = 0; y < H; ++y) {
            for (UINT xx = 0; xx < W; ++xx) {
                double sum = 0;
                for (UINT i = 0; i < C; ++i) {
                    for (int ky = 0; ky < 3; ++ky) {
                        for (int kx = 0; kx < 3; ++kx) {
                            const int iy = int(y) + ky - 1, ix = int(xx) + kx - 1;
                            if (iy < 0 || ix < 0 || iy >= int(H) || ix >= int(W)) continue;
                            sum += r[(i * H + iy) * W + ix] * b[((o * C + i) * 3 + ky) * 3 + kx];
                        }
                    }
                }
                h[(o * H + y) * W + xx] = std::max(sum, 0.0);
            }
        }
    }
    std::vector<double> want = pointwise(h, c);
    size_t negative = 0;
    for (size_t i = 0; i < want.size(); ++i) {
        negative += want[i] + r[i] < 0.0;
        want[i] = std::max(want[i] + r[i], 0.0);
    }
    ASSERT_GT(negative, want.size() / 8) << "the final RELU should act";

    ScopedEnv debug("FREEDML_DEBUG", "1");
    UINT64 temporary = 0;
    testing::internal::CaptureStderr();
    const std::vector<float> got = Run(desc, true, {xv, a, b, c}, C * H * W, &temporary);
    const std::string log = testing::internal::GetCapturedStderr();
    ExpectNear(got, want, 1e-4);
    EXPECT_NE(log.find("folded node 4 (ELEMENT_WISE_ADD operator) into node 3 (CONVOLUTION operator) as an "
                       "accumulated output over the bytes of node 0's output"),
              std::string::npos)
        << log;
    ExpectNear(Run(desc, false, {xv, a, b, c}, C * H * W, &temporary), want, 1e-4);
}

}  // namespace
}  // namespace freedml_test
