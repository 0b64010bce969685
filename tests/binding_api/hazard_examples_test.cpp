// The five binding-hazard examples of seed 002 (IDMLBindingTable::BindInputs), through the API,
// with the outcomes the seed gives:
//   1. input and output on different resources: always valid;
//   2. disjoint regions of one resource: valid for execution, invalid for initialization;
//   3. two inputs whose ranges overlap: always valid (read-only bindings never hazard);
//   4. identical input and output regions: valid if and only if the operator supports in-place
//      execution and the binding is for execution;
//   5. overlapping regions that are not identical: never valid.
// "Resource A" and "Resource B" are DEFAULT buffers named so; initialization cases bind a GEMM's
// OWNED_BY_DML weights as the input and its persistent resource as the output.
#include "binding_api_fixture.h"

namespace freedml_test {
namespace {

class HazardExamples : public BindingApi {
protected:
    void SetUp() override {
        BindingApi::SetUp();
        resourceA = Buffer(1024, D3D12_HEAP_TYPE_DEFAULT, L"A");
        resourceB = Buffer(1024, D3D12_HEAP_TYPE_DEFAULT, L"B");
    }

    // Binds one input and the output of an 8-float IDENTITY (32-byte tensors) for execution,
    // records and runs it; returns what the output holds.
    std::vector<float> RunIdentity(ID3D12Resource* in, UINT64 inOffset, ID3D12Resource* out, UINT64 outOffset) {
        auto op = Identity(8);
        if (!op) return {};
        auto persistent = Initialize(op.Get());
        Upload(in, Values(), inOffset);
        DML_BUFFER_BINDING ib{in, inOffset, 32}, ob{out, outOffset, 32};
        Dispatch(op.Get(), {BufferBinding(&ib)}, {BufferBinding(&ob)}, persistent.Get());
        return ReadbackAs<float>(out, 8, outOffset);
    }

    // ADD of 8 floats with both inputs and the output where the caller says, for execution.
    void BindAdd(ID3D12Resource* a, UINT64 aOffset, ID3D12Resource* b, UINT64 bOffset, ID3D12Resource* out,
                 UINT64 outOffset, bool run, std::vector<float>* result = nullptr) {
        auto op = Add(8);
        ASSERT_TRUE(op);
        ComPtr<ID3D12Resource> persistent;
        if (run) persistent = Initialize(op.Get());
        auto table = Table(op.Get());
        DML_BUFFER_BINDING ab{a, aOffset, 32}, bb{b, bOffset, 32}, ob{out, outOffset, 32};
        DML_BINDING_DESC inputs[] = {BufferBinding(&ab), BufferBinding(&bb)};
        DML_BINDING_DESC output = BufferBinding(&ob);
        table->BindInputs(2, inputs);
        table->BindOutputs(1, &output);
        if (!run) return;
        Record(op.Get(), table.Get());
        ExecuteAndWait();
        if (result) *result = ReadbackAs<float>(out, 8, outOffset);
    }

    // GEMM {2x4}x{4x4}: A (32 bytes) and the output (32 bytes) where the caller says; B apart.
    void BindGemm(ID3D12Resource* a, UINT64 aOffset, ID3D12Resource* out, UINT64 outOffset) {
        auto op = Gemm();
        ASSERT_TRUE(op);
        auto table = Table(op.Get());
        weights = Buffer(kGemmB, D3D12_HEAP_TYPE_DEFAULT, L"weights");
        DML_BUFFER_BINDING ab{a, aOffset, kGemmA}, bb{weights.Get(), 0, kGemmB}, ob{out, outOffset, kGemmOut};
        DML_BINDING_DESC inputs[] = {BufferBinding(&ab), BufferBinding(&bb), NoBinding()};
        DML_BINDING_DESC output = BufferBinding(&ob);
        table->BindInputs(3, inputs);
        table->BindOutputs(1, &output);
    }

    // JOIN of one {1,1,1,4} input into {1,1,1,4} (16-byte tensors), where the caller says.
    void BindJoin(ID3D12Resource* in, UINT64 inOffset, ID3D12Resource* out, UINT64 outOffset) {
        auto op = Join(1);
        ASSERT_TRUE(op);
        auto table = Table(op.Get());
        DML_BUFFER_BINDING ib{in, inOffset, 16}, ob{out, outOffset, 16};
        DML_BINDING_DESC input = BufferBinding(&ib), output = BufferBinding(&ob);
        table->BindInputs(1, &input);
        table->BindOutputs(1, &output);
    }

    // Initialization of a GEMM with owned B: the weights (64 bytes) are the input, the persistent
    // resource the output.
    void BindInitializer(ID3D12Resource* in, UINT64 inOffset, ID3D12Resource* out, UINT64 outOffset,
                         bool run = false) {
        gemm = Gemm(true);
        ASSERT_TRUE(gemm);
        IDMLCompiledOperator* ops[] = {gemm.Get()};
        ComPtr<IDMLOperatorInitializer> initializer;
        ASSERT_EQ(dml->CreateOperatorInitializer(1, ops, IID_PPV_ARGS(&initializer)), S_OK);
        auto table = Table(initializer.Get());
        persistentSize = gemm->GetBindingProperties().PersistentResourceSize;
        ASSERT_LE(persistentSize, 512u);
        std::vector<DML_BUFFER_BINDING> entries = {{}, {in, inOffset, kGemmB}, {}};
        DML_BUFFER_ARRAY_BINDING array{3, entries.data()};
        DML_BINDING_DESC input{DML_BINDING_TYPE_BUFFER_ARRAY, &array};
        DML_BUFFER_BINDING pb{out, outOffset, persistentSize};
        DML_BINDING_DESC output = BufferBinding(&pb);
        table->BindInputs(1, &input);
        table->BindOutputs(1, &output);
        if (!run) return;
        Record(initializer.Get(), table.Get());
        ExecuteAndWait();
    }

    static std::vector<float> Values() { return {1, 2, 3, 4, 5, 6, 7, 8}; }

    ComPtr<ID3D12Resource> resourceA, resourceB, weights;
    ComPtr<IDMLCompiledOperator> gemm;
    UINT64 persistentSize = 0;
};

// ---- Example 1: different resources ----

TEST_F(HazardExamples, Example1_DifferentResourcesValidForExecution) {
    EXPECT_EQ(RunIdentity(resourceA.Get(), 0, resourceB.Get(), 0), Values());
    EXPECT_TRUE(Alive());
    BindGemm(resourceA.Get(), 0, resourceB.Get(), 0);  // an operator without in-place support too
    EXPECT_TRUE(Alive());
}

TEST_F(HazardExamples, Example1_DifferentResourcesValidForInitialization) {
    BindInitializer(resourceA.Get(), 0, resourceB.Get(), 0, true);
    EXPECT_TRUE(Alive());
}

// ---- Example 2: disjoint regions of one resource ----

TEST_F(HazardExamples, Example2_DisjointRegionsValidForExecution) {
    EXPECT_EQ(RunIdentity(resourceA.Get(), 0, resourceA.Get(), 32), Values());
    EXPECT_TRUE(Alive());
    BindGemm(resourceA.Get(), 0, resourceA.Get(), 32);
    EXPECT_TRUE(Alive());
}

TEST_F(HazardExamples, Example2_DisjointRegionsInvalidForInitialization) {
    BindInitializer(resourceA.Get(), 0, resourceA.Get(), 512);  // [0, 64) and [512, 512 + P)
    EXPECT_TRUE(Removed());
    EXPECT_TRUE(Said({"IDMLBindingTable::BindOutputs", "inputs[0][1] (BTensor", "[0, 64)", "outputs[0]", "'A'",
                      "(H1)"}));
}

// ---- Example 3: overlapping inputs ----

TEST_F(HazardExamples, Example3_OverlappingInputsAlwaysValid) {
    // inputs [0, 32) and [16, 48) of A, output on B.
    Upload(resourceA.Get(), std::vector<float>{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12});
    std::vector<float> sum;
    BindAdd(resourceA.Get(), 0, resourceA.Get(), 16, resourceB.Get(), 0, true, &sum);
    ASSERT_TRUE(Alive());
    EXPECT_EQ(sum, (std::vector<float>{6, 8, 10, 12, 14, 16, 18, 20}));
    // Without in-place support as well: GEMM's A and B overlapping on one resource.
    auto op = Gemm();
    ASSERT_TRUE(op);
    auto table = Table(op.Get());
    DML_BUFFER_BINDING ab{resourceA.Get(), 0, kGemmA}, bb{resourceA.Get(), 16, kGemmB}, ob{resourceB.Get(), 0, kGemmOut};
    DML_BINDING_DESC inputs[] = {BufferBinding(&ab), BufferBinding(&bb), NoBinding()};
    DML_BINDING_DESC output = BufferBinding(&ob);
    table->BindInputs(3, inputs);
    table->BindOutputs(1, &output);
    EXPECT_TRUE(Alive());
}

// ---- Example 4: identical regions ----

TEST_F(HazardExamples, Example4_IdenticalRegionsValidForAddInPlace) {
    Upload(resourceA.Get(), Values());
    Upload(resourceB.Get(), std::vector<float>(8, 10.0f));
    std::vector<float> result;
    BindAdd(resourceA.Get(), 0, resourceB.Get(), 0, resourceA.Get(), 0, true, &result);
    ASSERT_TRUE(Alive());
    EXPECT_EQ(result, (std::vector<float>{11, 12, 13, 14, 15, 16, 17, 18}));
}

TEST_F(HazardExamples, Example4_IdenticalRegionsInvalidForGemm) {
    BindGemm(resourceA.Get(), 0, resourceA.Get(), 0);
    EXPECT_TRUE(Removed());
    EXPECT_TRUE(Said({"IDMLBindingTable::BindOutputs", "inputs[0] (ATensor) [0, 32)", "outputs[0] (OutputTensor) [0, 32)",
                      "'A'", "are identical", "(H2)"}));
}

TEST_F(HazardExamples, Example4_IdenticalRegionsInvalidForJoin) {
    BindJoin(resourceA.Get(), 0, resourceA.Get(), 0);
    EXPECT_TRUE(Removed());
    EXPECT_TRUE(Said({"IDMLBindingTable::BindOutputs", "inputs[0]", "[0, 16)", "outputs[0]", "'A'", "are identical",
                      "(H2)"}));
}

TEST_F(HazardExamples, Example4_IdenticalRegionsInvalidForInitialization) {
    BindInitializer(resourceA.Get(), 0, resourceA.Get(), 0);
    EXPECT_TRUE(Removed());
    EXPECT_TRUE(Said({"IDMLBindingTable::BindOutputs", "'A'", "(H1)"}));
}

// ---- Example 5: overlapping, not identical ----

TEST_F(HazardExamples, Example5_OverlapInvalidEvenForAddInPlace) {
    BindAdd(resourceA.Get(), 0, resourceB.Get(), 0, resourceA.Get(), 16, false);
    EXPECT_TRUE(Removed());
    EXPECT_TRUE(Said({"IDMLBindingTable::BindOutputs", "inputs[0] (ATensor) [0, 32)",
                      "outputs[0] (OutputTensor) [16, 48)", "'A'", "overlap without being identical", "(H2)"}));
}

TEST_F(HazardExamples, Example5_OverlapInvalidForGemm) {
    BindGemm(resourceA.Get(), 16, resourceA.Get(), 0);
    EXPECT_TRUE(Removed());
    EXPECT_TRUE(Said({"IDMLBindingTable::BindOutputs", "[16, 48)", "[0, 32)", "'A'", "(H2)"}));
}

TEST_F(HazardExamples, Example5_OverlapInvalidForInitialization) {
    BindInitializer(resourceA.Get(), 16, resourceA.Get(), 0);
    EXPECT_TRUE(Removed());
    EXPECT_TRUE(Said({"IDMLBindingTable::BindOutputs", "'A'", "(H1)"}));
}

}  // namespace
}  // namespace freedml_test
