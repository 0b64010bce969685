// The binding rules of BINDING-RULES.md, one passing and one failing test per rule id (tests are
// named after the ids), the five hazard examples of seed 002, and a randomized cross-check of
// the O(n log n) hazard search against a pairwise one.

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <deque>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "dml/binding_rules.h"

namespace freedml::dml {
namespace {

// Resources made up for the rules: pointers that are never dereferenced, mapped to facts.
class FakeResolver : public ResourceResolver {
public:
    // A committed buffer: its own heap, at offset 0.
    ID3D12Resource* Add(const std::string& name, uint64_t width, D3D12_HEAP_TYPE heapType = D3D12_HEAP_TYPE_DEFAULT) {
        return AddPlaced(name, width, nextId_ + 1000000, 0, heapType);
    }
    // A placed buffer on a shared heap (H7).
    ID3D12Resource* AddPlaced(const std::string& name, uint64_t width, uint64_t heapId, uint64_t offsetInHeap,
                              D3D12_HEAP_TYPE heapType = D3D12_HEAP_TYPE_DEFAULT) {
        ResourceFacts facts;
        facts.id = nextId_++;
        facts.width = width;
        facts.heapType = heapType;
        facts.heapId = heapId;
        facts.offsetInHeap = offsetInHeap;
        auto* pointer = reinterpret_cast<ID3D12Resource*>(static_cast<uintptr_t>(0x10000 * facts.id));
        byPointer_[pointer] = facts;
        names_[facts.id] = name;
        return pointer;
    }
    ResourceFacts& Facts(ID3D12Resource* resource) { return byPointer_.at(resource); }

    bool Resolve(ID3D12Resource* resource, ResourceFacts* facts) override {
        auto it = byPointer_.find(resource);
        if (it == byPointer_.end()) return false;
        *facts = it->second;
        return true;
    }
    std::string Describe(uint64_t resourceId) override {
        for (const auto& [pointer, facts] : byPointer_) {
            if (facts.id == resourceId) {
                return "resource '" + names_[resourceId] + "' (" + std::to_string(facts.width) + " bytes)";
            }
        }
        return "resource #" + std::to_string(resourceId);
    }

private:
    uint64_t nextId_ = 1;
    std::map<ID3D12Resource*, ResourceFacts> byPointer_;
    std::map<uint64_t, std::string> names_;
};

TensorDesc Tensor(uint64_t bytes, DML_TENSOR_FLAGS flags = DML_TENSOR_FLAG_NONE, uint32_t alignment = 0) {
    TensorDesc tensor;
    tensor.dataType = DML_TENSOR_DATA_TYPE_FLOAT32;
    tensor.flags = flags;
    tensor.rank = 1;
    tensor.sizes[0] = static_cast<uint32_t>(bytes / 4);
    tensor.strides[0] = 1;
    tensor.totalTensorSizeInBytes = bytes;
    tensor.guaranteedBaseOffsetAlignment = alignment;
    return tensor;
}

// Keeps the structures that DML_BINDING_DESCs point at alive, at stable addresses.
class Bindings {
public:
    DML_BINDING_DESC Buffer(ID3D12Resource* resource, uint64_t offset, uint64_t size) {
        buffers_.push_back({resource, offset, size});
        return {DML_BINDING_TYPE_BUFFER, &buffers_.back()};
    }
    static DML_BINDING_DESC None() { return {DML_BINDING_TYPE_NONE, nullptr}; }
    // A Type outside the enumeration, as a careless application might pass (written through
    // memcpy: converting 7 to the enum would itself be undefined).
    static DML_BINDING_DESC BadType(uint32_t type) {
        DML_BINDING_DESC desc{DML_BINDING_TYPE_NONE, nullptr};
        std::memcpy(&desc.Type, &type, sizeof type);
        return desc;
    }
    DML_BINDING_DESC Array(std::vector<DML_BUFFER_BINDING> entries) {
        entries_.push_back(std::move(entries));
        arrays_.push_back({static_cast<UINT>(entries_.back().size()), entries_.back().data()});
        return {DML_BINDING_TYPE_BUFFER_ARRAY, &arrays_.back()};
    }

private:
    std::deque<DML_BUFFER_BINDING> buffers_;
    std::deque<std::vector<DML_BUFFER_BINDING>> entries_;
    std::deque<DML_BUFFER_ARRAY_BINDING> arrays_;
};

::testing::AssertionResult Fails(const Status& status, const std::vector<std::string>& fragments) {
    if (status.ok()) return ::testing::AssertionFailure() << "the call succeeded";
    if (status.hr() != E_INVALIDARG) return ::testing::AssertionFailure() << "hr " << status.hr();
    std::string message = status.FullMessage();
    for (const std::string& fragment : fragments) {
        if (message.find(fragment) == std::string::npos) {
            return ::testing::AssertionFailure() << "'" << fragment << "' is not in: " << message;
        }
    }
    return ::testing::AssertionSuccess() << message;
}

::testing::AssertionResult Passes(const Status& status) {
    if (status.ok()) return ::testing::AssertionSuccess();
    return ::testing::AssertionFailure() << status.FullMessage();
}

// A compiled GEMM-like operator: A, B, an absent optional C, one output; an optional second
// output that is absent. Every tensor is 4096 bytes.
class CompiledOperator : public ::testing::Test {
protected:
    CompiledOperator() {
        info.description = "compiled GEMM operator 'layer1'";
        info.inputs = {&a, &b, nullptr};
        info.inputNames = {"ATensor", "BTensor", "CTensor"};
        info.outputs = {&out, nullptr};
        info.outputNames = {"OutputTensor", "ExtraTensor"};
        activations = resolver.Add("activations", 65536);
        weights = resolver.Add("weights", 65536);
        outputs = resolver.Add("outputs", 65536);
    }

    Status BindInputs(std::vector<DML_BINDING_DESC> descs) {
        return ValidateInputBindings(info, static_cast<UINT>(descs.size()), descs.data(), resolver, &inputRegions);
    }
    Status BindOutputs(std::vector<DML_BINDING_DESC> descs) {
        return ValidateOutputBindings(info, static_cast<UINT>(descs.size()), descs.data(), resolver, &outputRegions);
    }
    // A, B, no C: every input as it should be.
    std::vector<DML_BINDING_DESC> GoodInputs() {
        return {bind.Buffer(activations, 0, 4096), bind.Buffer(weights, 0, 4096), Bindings::None()};
    }
    Status BindGood() {
        FREEDML_TRY(BindInputs(GoodInputs()));
        return BindOutputs({bind.Buffer(outputs, 0, 4096), Bindings::None()});
    }
    std::vector<BoundRegion> All() const {
        std::vector<BoundRegion> all = inputRegions;
        all.insert(all.end(), outputRegions.begin(), outputRegions.end());
        all.insert(all.end(), temporaryRegions.begin(), temporaryRegions.end());
        all.insert(all.end(), persistentRegions.begin(), persistentRegions.end());
        return all;
    }
    Status Hazards(const char* method = "RecordDispatch") {
        return CheckHazards(All(), false, info.supportsInPlaceExecution, resolver, method, &info);
    }

    TensorDesc a = Tensor(4096), b = Tensor(4096), out = Tensor(4096);
    DispatchableBindingInfo info;
    FakeResolver resolver;
    Bindings bind;
    ID3D12Resource* activations;
    ID3D12Resource* weights;
    ID3D12Resource* outputs;
    std::vector<BoundRegion> inputRegions, outputRegions, temporaryRegions, persistentRegions;
};

// An initializer of two targets: a convolution whose filter and bias are OWNED_BY_DML (input X
// is not) and needs a 1024-byte persistent resource, and an element-wise operator with nothing
// owned and no persistent resource.
class Initializer : public ::testing::Test {
protected:
    Initializer() {
        info.isInitializer = true;
        info.description = "operator initializer 'init'";
        DispatchableBindingInfo::Target conv;
        conv.description = "compiled CONVOLUTION operator 'conv1'";
        conv.inputs = {&x, &filter, &bias};
        conv.inputNames = {"InputTensor", "FilterTensor", "BiasTensor"};
        conv.persistentResourceSize = 1024;
        DispatchableBindingInfo::Target add;
        add.description = "compiled ADD operator 'add1'";
        add.inputs = {&addA, &addB};
        add.inputNames = {"ATensor", "BTensor"};
        info.targets = {conv, add};
        weights = resolver.Add("weights", 65536);
        upload = resolver.Add("upload", 65536, D3D12_HEAP_TYPE_UPLOAD);
        persistent = resolver.Add("persistent", 65536);
    }
    Status BindInputs(std::vector<DML_BINDING_DESC> descs) {
        return ValidateInputBindings(info, static_cast<UINT>(descs.size()), descs.data(), resolver, &inputRegions);
    }
    Status BindOutputs(std::vector<DML_BINDING_DESC> descs) {
        return ValidateOutputBindings(info, static_cast<UINT>(descs.size()), descs.data(), resolver, &outputRegions);
    }
    DML_BINDING_DESC ConvInputs(ID3D12Resource* resource) {
        return bind.Array({{nullptr, 0, 0}, {resource, 0, 4096}, {resource, 4096, 4096}});
    }
    std::vector<BoundRegion> All() const {
        std::vector<BoundRegion> all = inputRegions;
        all.insert(all.end(), outputRegions.begin(), outputRegions.end());
        return all;
    }

    TensorDesc x = Tensor(4096), filter = Tensor(4096, DML_TENSOR_FLAG_OWNED_BY_DML),
               bias = Tensor(4096, DML_TENSOR_FLAG_OWNED_BY_DML), addA = Tensor(4096), addB = Tensor(4096);
    DispatchableBindingInfo info;
    FakeResolver resolver;
    Bindings bind;
    ID3D12Resource* weights;
    ID3D12Resource* upload;
    ID3D12Resource* persistent;
    std::vector<BoundRegion> inputRegions, outputRegions;
};

// ---------------------------------------------------------------------------------------------
// I1-I7: inputs of a compiled operator

TEST_F(CompiledOperator, I1_CountEqualsInputCountWithOptionals) {
    ASSERT_TRUE(Passes(BindGood()));
    ASSERT_EQ(inputRegions.size(), 2u);
    EXPECT_EQ(inputRegions[1].index, 1u);
    EXPECT_EQ(inputRegions[1].role, BindingRole::Input);
    EXPECT_EQ(inputRegions[1].size, 4096u);
}

TEST_F(CompiledOperator, I1_TooFewOrTooManyIsError) {
    EXPECT_TRUE(Fails(BindInputs({bind.Buffer(activations, 0, 4096), bind.Buffer(weights, 0, 4096)}),
                      {"I1", "BindInputs", "bindingCount is 2", "3 inputs", "compiled GEMM operator 'layer1'"}));
    EXPECT_TRUE(Fails(BindInputs({bind.Buffer(activations, 0, 4096), bind.Buffer(weights, 0, 4096),
                                  Bindings::None(), Bindings::None()}),
                      {"I1", "bindingCount is 4"}));
    EXPECT_TRUE(Fails(ValidateInputBindings(info, 3, nullptr, resolver, &inputRegions), {"I1", "null"}));
}

TEST_F(CompiledOperator, I2_AbsentOptionalTakesNone) {
    EXPECT_TRUE(Passes(BindInputs(GoodInputs())));
    // A DML_BUFFER_BINDING with a null Buffer is "nothing bound" as well.
    EXPECT_TRUE(Passes(BindInputs({bind.Buffer(activations, 0, 4096), bind.Buffer(weights, 0, 4096),
                                   bind.Buffer(nullptr, 0, 0)})));
}

TEST_F(CompiledOperator, I2_AbsentOptionalBoundIsError) {
    EXPECT_TRUE(Fails(BindInputs({bind.Buffer(activations, 0, 4096), bind.Buffer(weights, 0, 4096),
                                  bind.Buffer(weights, 4096, 4096)}),
                      {"I2", "inputs[2] (CTensor)", "DML_BINDING_TYPE_NONE"}));
}

TEST_F(CompiledOperator, I3_BufferBindingForBufferTensor) {
    ASSERT_TRUE(Passes(BindGood()));
}

TEST_F(CompiledOperator, I3_WrongBindingTypeIsError) {
    EXPECT_TRUE(Fails(BindInputs({bind.Buffer(activations, 0, 4096), bind.Array({{weights, 0, 4096}}),
                                  Bindings::None()}),
                      {"I3", "inputs[1] (BTensor)", "DML_BINDING_TYPE_BUFFER_ARRAY"}));
    EXPECT_TRUE(Fails(BindInputs({{DML_BINDING_TYPE_BUFFER, nullptr}, bind.Buffer(weights, 0, 4096), Bindings::None()}),
                      {"I3", "inputs[0] (ATensor)", "null Desc"}));
    EXPECT_TRUE(Fails(BindInputs({Bindings::BadType(7), bind.Buffer(weights, 0, 4096),
                                  Bindings::None()}),
                      {"I3", "DML_BINDING_TYPE(7)"}));
    EXPECT_TRUE(Fails(BindInputs({bind.Buffer(activations, 0, 4096), Bindings::BadType(0xFFFFFFFFu), Bindings::None()}),
                      {"I3", "inputs[1] (BTensor)", "DML_BINDING_TYPE(4294967295)"}));
}

TEST_F(CompiledOperator, I4_OwnedTensorIsNoneAtExecution) {
    b.flags = DML_TENSOR_FLAG_OWNED_BY_DML;
    ASSERT_TRUE(Passes(BindInputs({bind.Buffer(activations, 0, 4096), Bindings::None(), Bindings::None()})));
    EXPECT_EQ(inputRegions.size(), 1u);
}

TEST_F(CompiledOperator, I4_OwnedTensorBoundAtExecutionIsError) {
    b.flags = DML_TENSOR_FLAG_OWNED_BY_DML;
    EXPECT_TRUE(Fails(BindInputs(GoodInputs()),
                      {"I4", "inputs[1] (BTensor)", "OWNED_BY_DML"}));
}

TEST_F(CompiledOperator, I5_NonOwnedTensorBoundAtExecution) {
    ASSERT_TRUE(Passes(BindGood()));
}

TEST_F(CompiledOperator, I5_NonOwnedTensorUnboundAtExecutionIsError) {
    EXPECT_TRUE(Fails(BindInputs({Bindings::None(), bind.Buffer(weights, 0, 4096), Bindings::None()}),
                      {"I5", "inputs[0] (ATensor)", "not bound"}));
    EXPECT_TRUE(Fails(BindInputs({bind.Buffer(activations, 0, 4096), bind.Buffer(nullptr, 0, 4096), Bindings::None()}),
                      {"I5", "inputs[1] (BTensor)", "null Buffer"}));
}

TEST_F(Initializer, I5_NonOwnedTensorBoundAtInitializationIsError) {
    EXPECT_TRUE(Fails(BindInputs({bind.Array({{weights, 8192, 4096}, {weights, 0, 4096}, {weights, 4096, 4096}}),
                                  Bindings::None()}),
                      {"I5", "N3", "inputs[0][0] (InputTensor of compiled CONVOLUTION operator 'conv1')"}));
}

TEST_F(CompiledOperator, I6_InputsOnDefaultHeap) {
    ASSERT_TRUE(Passes(BindGood()));
}

TEST_F(CompiledOperator, I6_InputOnUploadHeapAtExecutionIsError) {
    ID3D12Resource* upload = resolver.Add("staging", 65536, D3D12_HEAP_TYPE_UPLOAD);
    EXPECT_TRUE(Fails(BindInputs({bind.Buffer(upload, 0, 4096), bind.Buffer(weights, 0, 4096), Bindings::None()}),
                      {"I6", "inputs[0] (ATensor)", "UPLOAD", "resource 'staging' (65536 bytes)"}));
}

TEST_F(Initializer, I6_OwnedTensorOnUploadOrCustomHeapForInitializer) {
    ID3D12Resource* custom = resolver.Add("custom", 65536, D3D12_HEAP_TYPE_CUSTOM);
    EXPECT_TRUE(Passes(BindInputs({ConvInputs(upload), Bindings::None()})));
    EXPECT_TRUE(Passes(BindInputs({ConvInputs(custom), Bindings::None()})));
    EXPECT_TRUE(Passes(BindInputs({ConvInputs(weights), Bindings::None()})));
}

TEST_F(Initializer, I6_OwnedTensorOnReadbackHeapIsError) {
    ID3D12Resource* readback = resolver.Add("readback", 65536, D3D12_HEAP_TYPE_READBACK);
    EXPECT_TRUE(Fails(BindInputs({ConvInputs(readback), Bindings::None()}),
                      {"I6", "inputs[0][1] (FilterTensor", "READBACK"}));
}

TEST_F(CompiledOperator, I7_ZeroAndNullptrUnbindsEverything) {
    ASSERT_TRUE(Passes(BindGood()));
    ASSERT_FALSE(inputRegions.empty());
    ASSERT_TRUE(Passes(ValidateInputBindings(info, 0, nullptr, resolver, &inputRegions)));
    EXPECT_TRUE(inputRegions.empty());
    ASSERT_TRUE(Passes(ValidateOutputBindings(info, 0, nullptr, resolver, &outputRegions)));
    EXPECT_TRUE(outputRegions.empty());
}

TEST_F(CompiledOperator, I7_UnboundInputsFailAtDispatch) {
    // Unbinding is valid in itself; dispatching without the inputs is not (D2).
    ASSERT_TRUE(Passes(BindGood()));
    ASSERT_TRUE(Passes(ValidateInputBindings(info, 0, nullptr, resolver, &inputRegions)));
    BindingState state;
    state.inputsBound = state.outputsBound = true;
    state.regions = All();
    EXPECT_TRUE(Fails(ValidateBindingsComplete(info, state), {"D2", "inputs[0] (ATensor)", "left it unbound"}));
}

TEST_F(CompiledOperator, FailedBindLeavesRegionsUntouched) {
    ASSERT_TRUE(Passes(BindGood()));
    std::vector<BoundRegion> before = inputRegions;
    ASSERT_FALSE(BindInputs({bind.Buffer(activations, 0, 4096), bind.Buffer(weights, 0, 16), Bindings::None()}).ok());
    ASSERT_EQ(inputRegions.size(), before.size());
    EXPECT_EQ(inputRegions[1].offset, before[1].offset);
}

// ---------------------------------------------------------------------------------------------
// N1-N6: the operator initializer

TEST_F(Initializer, N1_OneBufferArrayOrNonePerTarget) {
    ASSERT_TRUE(Passes(BindInputs({ConvInputs(weights), Bindings::None()})));
    ASSERT_EQ(inputRegions.size(), 2u);
    EXPECT_EQ(inputRegions[0].index, 0u);
    EXPECT_EQ(inputRegions[0].arrayIndex, 1u);
    EXPECT_EQ(inputRegions[1].arrayIndex, 2u);
}

TEST_F(Initializer, N1_WrongCountOrTypeIsError) {
    EXPECT_TRUE(Fails(BindInputs({ConvInputs(weights)}), {"N1", "bindingCount is 1", "2 target operators"}));
    EXPECT_TRUE(Fails(BindInputs({ConvInputs(weights), bind.Buffer(weights, 0, 4096)}),
                      {"N1", "inputs[1] (compiled ADD operator 'add1')", "DML_BINDING_TYPE_BUFFER"}));
}

TEST_F(Initializer, N2_ArraySizeEqualsTargetInputCount) {
    ASSERT_TRUE(Passes(BindInputs({ConvInputs(weights), bind.Array({{nullptr, 0, 0}, {nullptr, 0, 0}})})));
}

TEST_F(Initializer, N2_ArraySizeMismatchIsError) {
    EXPECT_TRUE(Fails(BindInputs({bind.Array({{nullptr, 0, 0}, {weights, 0, 4096}}), Bindings::None()}),
                      {"N2", "inputs[0] (compiled CONVOLUTION operator 'conv1')", "2 entries", "3 inputs"}));
}

TEST_F(Initializer, N3_OwnedEntriesBoundOthersEmpty) {
    ASSERT_TRUE(Passes(BindInputs({ConvInputs(weights), Bindings::None()})));
}

TEST_F(Initializer, N3_OwnedEntryEmptyIsError) {
    EXPECT_TRUE(Fails(BindInputs({bind.Array({{nullptr, 0, 0}, {weights, 0, 4096}, {nullptr, 0, 0}}),
                                  Bindings::None()}),
                      {"N3", "inputs[0][2] (BiasTensor of compiled CONVOLUTION operator 'conv1')", "null"}));
}

TEST_F(Initializer, N4_NoOwnedTensorsMeansNoBinding) {
    // The ADD target owns nothing: NONE, an empty array, or a null array all mean "no binding".
    EXPECT_TRUE(Passes(BindInputs({ConvInputs(weights), Bindings::None()})));
    EXPECT_TRUE(Passes(BindInputs({ConvInputs(weights), bind.Array({})})));
    EXPECT_TRUE(Passes(BindInputs({ConvInputs(weights), {DML_BINDING_TYPE_BUFFER_ARRAY, nullptr}})));
    // With no owned tensor anywhere, BindInputs(0, nullptr) is a complete binding.
    filter.flags = bias.flags = DML_TENSOR_FLAG_NONE;
    ASSERT_TRUE(Passes(ValidateInputBindings(info, 0, nullptr, resolver, &inputRegions)));
    ASSERT_TRUE(Passes(BindOutputs({bind.Buffer(persistent, 0, 1024), Bindings::None()})));
    BindingState state;
    state.regions = All();
    state.inputsBound = state.outputsBound = true;
    EXPECT_TRUE(Passes(ValidateBindingsComplete(info, state)));
}

TEST_F(Initializer, N4_NoBindingForTargetWithOwnedTensorsIsError) {
    EXPECT_TRUE(Fails(BindInputs({Bindings::None(), Bindings::None()}),
                      {"N4", "inputs[0] (compiled CONVOLUTION operator 'conv1')", "FilterTensor"}));
    EXPECT_TRUE(Fails(BindInputs({bind.Array({}), Bindings::None()}), {"N4"}));
}

TEST_F(Initializer, N5_OutputsArePersistentResourcesOfTargets) {
    ASSERT_TRUE(Passes(BindOutputs({bind.Buffer(persistent, 256, 1024), Bindings::None()})));
    ASSERT_EQ(outputRegions.size(), 1u);
    EXPECT_EQ(outputRegions[0].role, BindingRole::Output);
    EXPECT_EQ(outputRegions[0].size, 1024u);
}

TEST_F(Initializer, N5_WrongPersistentBindingIsError) {
    EXPECT_TRUE(Fails(BindOutputs({bind.Buffer(persistent, 0, 1024)}), {"N5", "bindingCount is 1", "2 target"}));
    EXPECT_TRUE(Fails(BindOutputs({Bindings::None(), Bindings::None()}),
                      {"N5", "outputs[0] (compiled CONVOLUTION operator 'conv1')", "1024 bytes"}));
    EXPECT_TRUE(Fails(BindOutputs({bind.Buffer(persistent, 0, 1024), bind.Buffer(persistent, 2048, 1024)}),
                      {"N5", "outputs[1] (compiled ADD operator 'add1')", "needs no persistent resource"}));
    EXPECT_TRUE(Fails(BindOutputs({bind.Buffer(persistent, 0, 512), Bindings::None()}), {"P2", "512 bytes"}));
}

TEST_F(Initializer, N6_InitializerHasNoPersistentResource) {
    EXPECT_TRUE(Passes(ValidatePersistentBinding(info, nullptr, resolver, &outputRegions)));
    DML_BINDING_DESC none = Bindings::None();
    EXPECT_TRUE(Passes(ValidatePersistentBinding(info, &none, resolver, &outputRegions)));
}

TEST_F(Initializer, N6_PersistentBufferForInitializerIsError) {
    DML_BINDING_DESC buffer = bind.Buffer(persistent, 0, 1024);
    std::vector<BoundRegion> regions;
    EXPECT_TRUE(Fails(ValidatePersistentBinding(info, &buffer, resolver, &regions),
                      {"N6", "BindPersistentResource", "BindOutputs"}));
}

TEST(BindingRules, N6_InitializerWithoutTargetsIsNoOp) {
    DispatchableBindingInfo info;
    info.isInitializer = true;
    FakeResolver resolver;
    std::vector<BoundRegion> regions;
    EXPECT_TRUE(Passes(ValidateInputBindings(info, 0, nullptr, resolver, &regions)));
    EXPECT_TRUE(Passes(ValidateOutputBindings(info, 0, nullptr, resolver, &regions)));
    EXPECT_TRUE(Passes(ValidateBindingsComplete(info, BindingState{})));
}

// ---------------------------------------------------------------------------------------------
// V1-V3: every buffer binding

TEST_F(CompiledOperator, V1_RangeInsideBuffer) {
    // Ends exactly at the end of the resource.
    ASSERT_TRUE(Passes(BindInputs({bind.Buffer(activations, 65536 - 4096, 4096), bind.Buffer(weights, 0, 4096),
                                   Bindings::None()})));
}

TEST_F(CompiledOperator, V1_RangeOutsideBufferIsError) {
    EXPECT_TRUE(Fails(BindInputs({bind.Buffer(activations, 65536 - 4080, 4096), bind.Buffer(weights, 0, 4096),
                                  Bindings::None()}),
                      {"V1", "inputs[0] (ATensor)", "Offset (61456) + SizeInBytes (4096)",
                       "resource 'activations' (65536 bytes)"}));
    // Offset + SizeInBytes wraps around 2^64: still caught.
    EXPECT_TRUE(Fails(BindInputs({bind.Buffer(activations, 16, UINT64_MAX - 8), bind.Buffer(weights, 0, 4096),
                                  Bindings::None()}),
                      {"V1"}));
    EXPECT_TRUE(Fails(BindInputs({bind.Buffer(activations, UINT64_MAX - 15, 4096), bind.Buffer(weights, 0, 4096),
                                  Bindings::None()}),
                      {"V1"}));
}

TEST_F(CompiledOperator, V1_NotABufferOrNotAResourceIsError) {
    ID3D12Resource* texture = resolver.Add("texture", 65536);
    resolver.Facts(texture).dimension = D3D12_RESOURCE_DIMENSION_TEXTURE2D;
    EXPECT_TRUE(Fails(BindInputs({bind.Buffer(texture, 0, 4096), bind.Buffer(weights, 0, 4096), Bindings::None()}),
                      {"V1", "not a buffer", "resource 'texture'"}));
    auto* stranger = reinterpret_cast<ID3D12Resource*>(uintptr_t{0x1234});
    EXPECT_TRUE(Fails(BindInputs({bind.Buffer(stranger, 0, 4096), bind.Buffer(weights, 0, 4096), Bindings::None()}),
                      {"V1", "not a live FreeDML resource"}));
}

TEST_F(CompiledOperator, V2_SizeAtLeastTotalTensorSize) {
    ASSERT_TRUE(Passes(BindInputs({bind.Buffer(activations, 0, 8192), bind.Buffer(weights, 0, 4096),
                                   Bindings::None()})));
    // The region is the tensor's bytes, not the larger binding.
    EXPECT_EQ(inputRegions[0].size, 4096u);
}

TEST_F(CompiledOperator, V2_SizeBelowTotalTensorSizeIsError) {
    EXPECT_TRUE(Fails(BindOutputs({bind.Buffer(outputs, 0, 4092), Bindings::None()}),
                      {"V2", "BindOutputs", "outputs[0] (OutputTensor)", "4092 bytes",
                       "TotalTensorSizeInBytes (4096)"}));
}

TEST_F(CompiledOperator, V3_OffsetAligned) {
    ASSERT_TRUE(Passes(BindInputs({bind.Buffer(activations, 16, 4096), bind.Buffer(weights, 48, 4096),
                                   Bindings::None()})));
    b.guaranteedBaseOffsetAlignment = 256;
    ASSERT_TRUE(Passes(BindInputs({bind.Buffer(activations, 16, 4096), bind.Buffer(weights, 512, 4096),
                                   Bindings::None()})));
}

TEST_F(CompiledOperator, V3_OffsetMisalignedIsError) {
    EXPECT_TRUE(Fails(BindInputs({bind.Buffer(activations, 8, 4096), bind.Buffer(weights, 0, 4096), Bindings::None()}),
                      {"V3", "inputs[0] (ATensor)", "offset 8", "multiple of 16"}));
    b.guaranteedBaseOffsetAlignment = 256;
    EXPECT_TRUE(Fails(BindInputs({bind.Buffer(activations, 0, 4096), bind.Buffer(weights, 16, 4096), Bindings::None()}),
                      {"V3", "inputs[1] (BTensor)", "offset 16", "multiple of 256"}));
}

// ---------------------------------------------------------------------------------------------
// O1-O2: outputs

TEST_F(CompiledOperator, O1_CountAndAbsentOptionalOutputs) {
    ASSERT_TRUE(Passes(BindOutputs({bind.Buffer(outputs, 0, 4096), Bindings::None()})));
    ASSERT_EQ(outputRegions.size(), 1u);
    EXPECT_EQ(outputRegions[0].role, BindingRole::Output);
}

TEST_F(CompiledOperator, O1_WrongOutputBindingsIsError) {
    EXPECT_TRUE(Fails(BindOutputs({bind.Buffer(outputs, 0, 4096)}),
                      {"O1", "BindOutputs", "bindingCount is 1", "2 outputs"}));
    EXPECT_TRUE(Fails(BindOutputs({bind.Buffer(outputs, 0, 4096), bind.Buffer(outputs, 4096, 4096)}),
                      {"O1", "outputs[1] (ExtraTensor)", "absent"}));
    EXPECT_TRUE(Fails(BindOutputs({Bindings::None(), Bindings::None()}), {"O1", "outputs[0] (OutputTensor)"}));
}

TEST_F(CompiledOperator, O2_OutputsOnDefaultHeap) {
    ASSERT_TRUE(Passes(BindOutputs({bind.Buffer(outputs, 0, 4096), Bindings::None()})));
}

TEST_F(CompiledOperator, O2_OutputOnReadbackHeapIsError) {
    ID3D12Resource* readback = resolver.Add("readback", 65536, D3D12_HEAP_TYPE_READBACK);
    EXPECT_TRUE(Fails(BindOutputs({bind.Buffer(readback, 0, 4096), Bindings::None()}),
                      {"O2", "outputs[0] (OutputTensor)", "READBACK"}));
    ID3D12Resource* uploadHeap = resolver.Add("upload", 65536, D3D12_HEAP_TYPE_UPLOAD);
    EXPECT_TRUE(Fails(BindOutputs({bind.Buffer(uploadHeap, 0, 4096), Bindings::None()}), {"O2", "UPLOAD"}));
}

// ---------------------------------------------------------------------------------------------
// P1-P2: temporary and persistent resources

TEST_F(CompiledOperator, P1_TemporaryResource) {
    EXPECT_TRUE(Passes(ValidateTemporaryBinding(info, nullptr, resolver, &temporaryRegions)));  // size 0
    info.properties.TemporaryResourceSize = 1000;
    ID3D12Resource* scratch = resolver.Add("scratch", 4096);
    DML_BINDING_DESC desc = bind.Buffer(scratch, 256, 1000);
    ASSERT_TRUE(Passes(ValidateTemporaryBinding(info, &desc, resolver, &temporaryRegions)));
    ASSERT_EQ(temporaryRegions.size(), 1u);
    EXPECT_EQ(temporaryRegions[0].role, BindingRole::Temporary);
    EXPECT_EQ(temporaryRegions[0].offset, 256u);
    EXPECT_EQ(temporaryRegions[0].size, 1000u);
}

TEST_F(CompiledOperator, P1_TemporaryResourceBrokenIsError) {
    info.properties.TemporaryResourceSize = 1000;
    ID3D12Resource* scratch = resolver.Add("scratch", 4096);
    ID3D12Resource* uploadHeap = resolver.Add("upload", 4096, D3D12_HEAP_TYPE_UPLOAD);
    EXPECT_TRUE(Fails(ValidateTemporaryBinding(info, nullptr, resolver, &temporaryRegions),
                      {"P1", "BindTemporaryResource", "1000 bytes"}));
    DML_BINDING_DESC none = Bindings::None();
    EXPECT_TRUE(Fails(ValidateTemporaryBinding(info, &none, resolver, &temporaryRegions), {"P1"}));
    DML_BINDING_DESC small = bind.Buffer(scratch, 0, 999);
    EXPECT_TRUE(Fails(ValidateTemporaryBinding(info, &small, resolver, &temporaryRegions), {"P1", "999 bytes"}));
    DML_BINDING_DESC misaligned = bind.Buffer(scratch, 128, 1000);
    EXPECT_TRUE(Fails(ValidateTemporaryBinding(info, &misaligned, resolver, &temporaryRegions),
                      {"P1", "offset 128", "multiple of 256"}));
    DML_BINDING_DESC wrongHeap = bind.Buffer(uploadHeap, 0, 1000);
    EXPECT_TRUE(Fails(ValidateTemporaryBinding(info, &wrongHeap, resolver, &temporaryRegions), {"P1", "UPLOAD"}));
    DML_BINDING_DESC array = bind.Array({{scratch, 0, 1000}});
    EXPECT_TRUE(Fails(ValidateTemporaryBinding(info, &array, resolver, &temporaryRegions), {"P1", "BUFFER_ARRAY"}));
    DML_BINDING_DESC outside = bind.Buffer(scratch, 3840, 1000);
    EXPECT_TRUE(Fails(ValidateTemporaryBinding(info, &outside, resolver, &temporaryRegions), {"V1"}));
}

TEST_F(CompiledOperator, P2_PersistentResource) {
    EXPECT_TRUE(Passes(ValidatePersistentBinding(info, nullptr, resolver, &persistentRegions)));  // size 0
    info.properties.PersistentResourceSize = 2048;
    ID3D12Resource* state = resolver.Add("state", 8192);
    DML_BINDING_DESC desc = bind.Buffer(state, 512, 2048);
    ASSERT_TRUE(Passes(ValidatePersistentBinding(info, &desc, resolver, &persistentRegions)));
    ASSERT_EQ(persistentRegions.size(), 1u);
    EXPECT_EQ(persistentRegions[0].role, BindingRole::Persistent);
    EXPECT_EQ(persistentRegions[0].size, 2048u);
}

TEST_F(CompiledOperator, P2_PersistentResourceBrokenIsError) {
    info.properties.PersistentResourceSize = 2048;
    ID3D12Resource* state = resolver.Add("state", 8192);
    EXPECT_TRUE(Fails(ValidatePersistentBinding(info, nullptr, resolver, &persistentRegions),
                      {"P2", "BindPersistentResource", "2048 bytes"}));
    DML_BINDING_DESC small = bind.Buffer(state, 0, 1024);
    EXPECT_TRUE(Fails(ValidatePersistentBinding(info, &small, resolver, &persistentRegions), {"P2", "1024 bytes"}));
    DML_BINDING_DESC misaligned = bind.Buffer(state, 64, 2048);
    EXPECT_TRUE(Fails(ValidatePersistentBinding(info, &misaligned, resolver, &persistentRegions),
                      {"P2", "offset 64", "multiple of 256"}));
}

// ---------------------------------------------------------------------------------------------
// H1-H7: hazards

TEST_F(Initializer, H1_InputsAndOutputsOnDifferentResources) {
    ASSERT_TRUE(Passes(BindInputs({ConvInputs(weights), Bindings::None()})));
    ASSERT_TRUE(Passes(BindOutputs({bind.Buffer(persistent, 0, 1024), Bindings::None()})));
    EXPECT_TRUE(Passes(CheckHazards(All(), true, false, resolver, "RecordDispatch", &info)));
}

TEST_F(Initializer, H1_InputSharingResourceWithOutputIsError) {
    // Disjoint ranges, same resource: still an error at initialization.
    ASSERT_TRUE(Passes(BindInputs({ConvInputs(weights), Bindings::None()})));
    ASSERT_TRUE(Passes(BindOutputs({bind.Buffer(weights, 16384, 1024), Bindings::None()})));
    EXPECT_TRUE(Fails(CheckHazards(All(), true, false, resolver, "BindOutputs", &info),
                      {"H1", "BindOutputs",
                       "inputs[0][1] (FilterTensor of compiled CONVOLUTION operator 'conv1') [0, 4096)",
                       "outputs[0] (compiled CONVOLUTION operator 'conv1') [16384, 17408)", "resource 'weights'"}));
}

TEST_F(CompiledOperator, H2_InPlaceIdenticalRegionsAllowed) {
    info.supportsInPlaceExecution = true;
    ASSERT_TRUE(Passes(BindInputs(GoodInputs())));
    ASSERT_TRUE(Passes(BindOutputs({bind.Buffer(activations, 0, 4096), Bindings::None()})));
    EXPECT_TRUE(Passes(Hazards()));
}

TEST_F(CompiledOperator, H2_PartialOverlapIsError) {
    info.supportsInPlaceExecution = true;
    ID3D12Resource* shared = resolver.Add("activations", 8192);
    ASSERT_TRUE(Passes(BindInputs({bind.Buffer(weights, 0, 4096), bind.Buffer(shared, 0, 4096), Bindings::None()})));
    ASSERT_TRUE(Passes(BindOutputs({bind.Buffer(shared, 2048, 4096), Bindings::None()})));
    EXPECT_TRUE(Fails(Hazards("BindInputs"),
                      {"BindInputs: inputs[1] (BTensor) [0, 4096) and outputs[0] (OutputTensor) [2048, 6144) of "
                       "resource 'activations' (8192 bytes) overlap without being identical; DirectML allows an "
                       "input and an output to share bytes only when their regions are identical and the operator "
                       "supports in-place execution (H2)."}));
}

TEST_F(CompiledOperator, H2_IdenticalWithoutInPlaceSupportIsError) {
    ASSERT_TRUE(Passes(BindInputs(GoodInputs())));
    ASSERT_TRUE(Passes(BindOutputs({bind.Buffer(activations, 0, 4096), Bindings::None()})));
    EXPECT_TRUE(Fails(Hazards(), {"H2", "inputs[0] (ATensor) [0, 4096)", "outputs[0] (OutputTensor) [0, 4096)",
                                  "are identical", "in-place"}));
}

TEST_F(CompiledOperator, H3_PersistentApartFromOutputs) {
    info.properties.PersistentResourceSize = 1024;
    ASSERT_TRUE(Passes(BindGood()));
    DML_BINDING_DESC desc = bind.Buffer(outputs, 4096, 1024);
    ASSERT_TRUE(Passes(ValidatePersistentBinding(info, &desc, resolver, &persistentRegions)));
    EXPECT_TRUE(Passes(Hazards()));
}

TEST_F(CompiledOperator, H3_PersistentIntersectingOutputIsError) {
    info.properties.PersistentResourceSize = 1024;
    info.supportsInPlaceExecution = true;  // no exemption for the persistent resource
    ASSERT_TRUE(Passes(BindGood()));
    DML_BINDING_DESC desc = bind.Buffer(outputs, 3840, 1024);
    ASSERT_TRUE(Passes(ValidatePersistentBinding(info, &desc, resolver, &persistentRegions)));
    EXPECT_TRUE(Fails(Hazards(),
                      {"H3", "the persistent resource [3840, 4864)", "outputs[0] (OutputTensor) [0, 4096)"}));
}

TEST_F(CompiledOperator, H4_TemporaryApartFromEverything) {
    info.properties.TemporaryResourceSize = 1024;
    ASSERT_TRUE(Passes(BindGood()));
    DML_BINDING_DESC desc = bind.Buffer(activations, 4096, 1024);  // right after inputs[0]
    ASSERT_TRUE(Passes(ValidateTemporaryBinding(info, &desc, resolver, &temporaryRegions)));
    EXPECT_TRUE(Passes(Hazards()));
}

TEST_F(CompiledOperator, H4_TemporaryIntersectingInputIsError) {
    info.properties.TemporaryResourceSize = 1024;
    ASSERT_TRUE(Passes(BindGood()));
    DML_BINDING_DESC desc = bind.Buffer(weights, 3840, 1024);
    ASSERT_TRUE(Passes(ValidateTemporaryBinding(info, &desc, resolver, &temporaryRegions)));
    EXPECT_TRUE(Fails(Hazards("BindTemporaryResource"),
                      {"H4", "BindTemporaryResource", "inputs[1] (BTensor) [0, 4096)",
                       "the temporary resource [3840, 4864)", "resource 'weights' (65536 bytes)"}));
}

TEST_F(CompiledOperator, H5_ReadOnlyBindingsNeverHazard) {
    info.properties.PersistentResourceSize = 4096;
    // Both inputs and the persistent resource overlap each other partially: all read-only.
    ASSERT_TRUE(Passes(BindInputs({bind.Buffer(activations, 0, 4096), bind.Buffer(activations, 2048, 4096),
                                   Bindings::None()})));
    ASSERT_TRUE(Passes(BindOutputs({bind.Buffer(outputs, 0, 4096), Bindings::None()})));
    DML_BINDING_DESC desc = bind.Buffer(activations, 3072, 4096);
    ASSERT_TRUE(Passes(ValidatePersistentBinding(info, &desc, resolver, &persistentRegions)));
    EXPECT_TRUE(Passes(Hazards()));
}

TEST_F(CompiledOperator, H5_ReadOnlyOverlapNextToWriterIsStillChecked) {
    // H5 exempts only read/read pairs: an output meeting one of the overlapping inputs is caught.
    ASSERT_TRUE(Passes(BindInputs({bind.Buffer(activations, 0, 4096), bind.Buffer(activations, 2048, 4096),
                                   Bindings::None()})));
    ASSERT_TRUE(Passes(BindOutputs({bind.Buffer(activations, 4096, 4096), Bindings::None()})));
    EXPECT_TRUE(Fails(Hazards(), {"H2", "inputs[1] (BTensor) [2048, 6144)", "outputs[0] (OutputTensor) [4096, 8192)"}));
}

TEST(BindingRules, H6_OutputsApart) {
    FakeResolver resolver;
    ID3D12Resource* r = resolver.Add("out", 8192);
    ResourceFacts facts;
    ASSERT_TRUE(resolver.Resolve(r, &facts));
    std::vector<BoundRegion> regions = {
        {BindingRole::Output, 0, 0, facts.id, facts.heapId, 0, 0, 4096},
        {BindingRole::Output, 1, 0, facts.id, facts.heapId, 0, 4096, 4096},
    };
    EXPECT_TRUE(Passes(CheckHazards(regions, false, true, resolver)));
}

TEST(BindingRules, H6_OverlappingOutputsIsError) {
    FakeResolver resolver;
    ID3D12Resource* r = resolver.Add("out", 8192);
    ResourceFacts facts;
    ASSERT_TRUE(resolver.Resolve(r, &facts));
    std::vector<BoundRegion> regions = {
        {BindingRole::Output, 0, 0, facts.id, facts.heapId, 0, 0, 4096},
        {BindingRole::Output, 1, 0, facts.id, facts.heapId, 0, 4092, 4096},
    };
    EXPECT_TRUE(Fails(CheckHazards(regions, false, true, resolver, "BindOutputs"),
                      {"H6", "BindOutputs", "outputs[0] [0, 4096)", "outputs[1] [4092, 8188)"}));
    // Identical outputs as well, in-place or not.
    regions[1].offset = 0;
    EXPECT_TRUE(Fails(CheckHazards(regions, false, true, resolver), {"H6", "identical"}));
}

TEST_F(CompiledOperator, H7_PlacedResourcesOnDisjointHeapRanges) {
    ID3D12Resource* first = resolver.AddPlaced("first", 4096, 7, 0);
    ID3D12Resource* second = resolver.AddPlaced("second", 4096, 7, 4096);
    ASSERT_TRUE(Passes(BindInputs({bind.Buffer(first, 0, 4096), bind.Buffer(weights, 0, 4096), Bindings::None()})));
    ASSERT_TRUE(Passes(BindOutputs({bind.Buffer(second, 0, 4096), Bindings::None()})));
    EXPECT_TRUE(Passes(Hazards()));
}

TEST_F(CompiledOperator, H7_AliasingPlacedResourcesIsError) {
    // Two resources placed on heap 7 whose bytes overlap: DirectML would not see it.
    ID3D12Resource* first = resolver.AddPlaced("first", 8192, 7, 0);
    ID3D12Resource* second = resolver.AddPlaced("second", 8192, 7, 2048);
    ASSERT_TRUE(Passes(BindInputs({bind.Buffer(first, 4096, 4096), bind.Buffer(weights, 0, 4096), Bindings::None()})));
    ASSERT_TRUE(Passes(BindOutputs({bind.Buffer(second, 0, 4096), Bindings::None()})));
    EXPECT_TRUE(Fails(Hazards(), {"H7", "H2", "inputs[0] (ATensor) [4096, 8192) of resource 'first' (8192 bytes)",
                                  "outputs[0] (OutputTensor) [0, 4096) of resource 'second' (8192 bytes)",
                                  "heap 7", "[4096, 8192) and [2048, 6144) of the heap"}));
}

TEST_F(Initializer, H7_AliasingAtInitializationIsError) {
    ID3D12Resource* first = resolver.AddPlaced("first", 8192, 9, 0);
    ID3D12Resource* second = resolver.AddPlaced("second", 8192, 9, 4096);
    ASSERT_TRUE(Passes(BindInputs({ConvInputs(first), Bindings::None()})));
    ASSERT_TRUE(Passes(BindOutputs({bind.Buffer(second, 0, 1024), Bindings::None()})));
    EXPECT_TRUE(Fails(CheckHazards(All(), true, false, resolver, "RecordDispatch", &info), {"H7", "H1", "heap 9"}));
}

// ---------------------------------------------------------------------------------------------
// The five hazard examples of seed 002 (one input, one output; "resource A" is 4096 bytes).

class HazardExamples : public CompiledOperator {
protected:
    HazardExamples() {
        info.inputs = {&a};
        info.inputNames = {"InputTensor"};
        info.outputs = {&out};
        info.outputNames = {"OutputTensor"};
        resourceA = resolver.Add("A", 8192);
        resourceB = resolver.Add("B", 8192);
    }
    // Binds input 0 and output 0, then checks hazards for execution or initialization.
    Status Check(ID3D12Resource* in, uint64_t inOffset, ID3D12Resource* o, uint64_t outOffset, bool forInitializer,
                 bool inPlace) {
        info.supportsInPlaceExecution = inPlace;
        FREEDML_TRY(BindInputs({bind.Buffer(in, inOffset, 4096)}));
        FREEDML_TRY(BindOutputs({bind.Buffer(o, outOffset, 4096)}));
        return CheckHazards(All(), forInitializer, inPlace, resolver, "RecordDispatch", &info);
    }
    ID3D12Resource* resourceA;
    ID3D12Resource* resourceB;
};

TEST_F(HazardExamples, Example1_DifferentResourcesAlwaysValid) {
    for (bool init : {false, true}) {
        for (bool inPlace : {false, true}) EXPECT_TRUE(Passes(Check(resourceA, 0, resourceB, 0, init, inPlace)));
    }
}

TEST_F(HazardExamples, Example2_DisjointRegionsValidForExecutionOnly) {
    EXPECT_TRUE(Passes(Check(resourceA, 0, resourceA, 4096, false, false)));
    EXPECT_TRUE(Passes(Check(resourceA, 0, resourceA, 4096, false, true)));
    EXPECT_TRUE(Fails(Check(resourceA, 0, resourceA, 4096, true, false), {"H1"}));
}

TEST_F(HazardExamples, Example3_OverlappingInputsAlwaysValid) {
    info.inputs = {&a, &b};
    info.inputNames = {"InputTensor", "SecondTensor"};
    for (bool inPlace : {false, true}) {
        info.supportsInPlaceExecution = inPlace;
        ASSERT_TRUE(Passes(BindInputs({bind.Buffer(resourceA, 0, 4096), bind.Buffer(resourceA, 2048, 4096)})));
        ASSERT_TRUE(Passes(BindOutputs({bind.Buffer(resourceB, 0, 4096)})));
        EXPECT_TRUE(Passes(CheckHazards(All(), false, inPlace, resolver)));
    }
}

TEST_F(HazardExamples, Example4_IdenticalRegionsValidOnlyInPlaceForExecution) {
    EXPECT_TRUE(Passes(Check(resourceA, 0, resourceA, 0, false, true)));
    EXPECT_TRUE(Fails(Check(resourceA, 0, resourceA, 0, false, false), {"H2", "are identical"}));
    EXPECT_TRUE(Fails(Check(resourceA, 0, resourceA, 0, true, true), {"H1"}));
    EXPECT_TRUE(Fails(Check(resourceA, 0, resourceA, 0, true, false), {"H1"}));
}

TEST_F(HazardExamples, Example5_OverlapNotIdenticalNeverValid) {
    for (bool inPlace : {false, true}) {
        EXPECT_TRUE(Fails(Check(resourceA, 0, resourceA, 1024, false, inPlace),
                          {"H2", "inputs[0] (InputTensor) [0, 4096)", "outputs[0] (OutputTensor) [1024, 5120)",
                           "overlap without being identical"}));
        EXPECT_TRUE(Fails(Check(resourceA, 0, resourceA, 1024, true, inPlace), {"H1"}));
    }
}

// ---------------------------------------------------------------------------------------------
// D2: everything required is bound at dispatch

TEST_F(CompiledOperator, D2_EverythingBound) {
    info.properties.TemporaryResourceSize = 256;
    info.properties.PersistentResourceSize = 256;
    ASSERT_TRUE(Passes(BindGood()));
    ID3D12Resource* scratch = resolver.Add("scratch", 4096);
    DML_BINDING_DESC temporary = bind.Buffer(scratch, 0, 256);
    DML_BINDING_DESC persistentDesc = bind.Buffer(scratch, 256, 256);
    ASSERT_TRUE(Passes(ValidateTemporaryBinding(info, &temporary, resolver, &temporaryRegions)));
    ASSERT_TRUE(Passes(ValidatePersistentBinding(info, &persistentDesc, resolver, &persistentRegions)));
    BindingState state;
    state.inputsBound = state.outputsBound = state.temporaryBound = state.persistentBound = true;
    state.regions = All();
    EXPECT_TRUE(Passes(ValidateBindingsComplete(info, state)));
    EXPECT_TRUE(Passes(Hazards()));
}

TEST_F(CompiledOperator, D2_MissingBindingIsError) {
    info.properties.TemporaryResourceSize = 256;
    BindingState state;
    EXPECT_TRUE(Fails(ValidateBindingsComplete(info, state),
                      {"D2", "RecordDispatch", "inputs[0] (ATensor) is not bound",
                       "no BindInputs since the binding table was created or reset has bound it", "compiled GEMM operator 'layer1'"}));
    ASSERT_TRUE(Passes(BindGood()));
    state.inputsBound = state.outputsBound = true;
    state.regions = All();
    EXPECT_TRUE(Fails(ValidateBindingsComplete(info, state), {"D2", "temporary resource (256 bytes)"}));
    state.regions.erase(state.regions.begin() + 1);  // inputs[1]
    EXPECT_TRUE(Fails(ValidateBindingsComplete(info, state, "ExecuteCommandLists"),
                      {"D2", "ExecuteCommandLists", "inputs[1] (BTensor)"}));
    info.properties.PersistentResourceSize = 512;
    state.regions = All();
    std::vector<BoundRegion> onlyTemporary = {{BindingRole::Temporary, 0, 0, 1, 1, 0, 0, 256}};
    state.regions.insert(state.regions.end(), onlyTemporary.begin(), onlyTemporary.end());
    EXPECT_TRUE(Fails(ValidateBindingsComplete(info, state), {"D2", "persistent resource (512 bytes)"}));
    state.regions = inputRegions;
    EXPECT_TRUE(Fails(ValidateBindingsComplete(info, state), {"D2", "outputs[0] (OutputTensor)"}));
}

TEST_F(Initializer, D2_InitializerBindingsComplete) {
    ASSERT_TRUE(Passes(BindInputs({ConvInputs(weights), Bindings::None()})));
    ASSERT_TRUE(Passes(BindOutputs({bind.Buffer(persistent, 0, 1024), Bindings::None()})));
    BindingState state;
    state.inputsBound = state.outputsBound = true;
    state.regions = All();
    EXPECT_TRUE(Passes(ValidateBindingsComplete(info, state)));
}

TEST_F(Initializer, D2_InitializerMissingOwnedOrPersistentIsError) {
    ASSERT_TRUE(Passes(ValidateInputBindings(info, 0, nullptr, resolver, &inputRegions)));  // I7: valid
    ASSERT_TRUE(Passes(BindOutputs({bind.Buffer(persistent, 0, 1024), Bindings::None()})));
    BindingState state;
    state.inputsBound = state.outputsBound = true;
    state.regions = All();
    EXPECT_TRUE(Fails(ValidateBindingsComplete(info, state),
                      {"D2", "inputs[0][1] (FilterTensor of compiled CONVOLUTION operator 'conv1')", "OWNED_BY_DML"}));
    ASSERT_TRUE(Passes(BindInputs({ConvInputs(weights), Bindings::None()})));
    state.regions = inputRegions;
    EXPECT_TRUE(Fails(ValidateBindingsComplete(info, state), {"D2", "outputs[0]", "1024 bytes"}));
}

// ---------------------------------------------------------------------------------------------
// The hazard search against a pairwise one.

bool IsWrite(BindingRole role) { return role == BindingRole::Output || role == BindingRole::Temporary; }

// Written from the rules, independently of the sweep: does this pair break H1-H7?
bool PairConflicts(const BoundRegion& a, const BoundRegion& b, bool forInitializer, bool inPlace) {
    bool inputOutput = (a.role == BindingRole::Input && b.role == BindingRole::Output) ||
                       (a.role == BindingRole::Output && b.role == BindingRole::Input);
    if (forInitializer && inputOutput && a.resourceId == b.resourceId) return true;  // H1
    if (!IsWrite(a.role) && !IsWrite(b.role)) return false;                          // H5
    if (a.size == 0 || b.size == 0 || a.heapId != b.heapId) return false;
    uint64_t aBegin = a.offsetInHeap + a.offset, bBegin = b.offsetInHeap + b.offset;
    uint64_t aEnd = aBegin + a.size, bEnd = bBegin + b.size;
    if (aEnd <= bBegin || bEnd <= aBegin) return false;
    bool identical = aBegin == bBegin && aEnd == bEnd;
    return !(identical && inputOutput && inPlace && !forInitializer);  // H2's exemption
}

TEST(BindingRules, HazardSearchMatchesPairwiseCheck) {
    std::mt19937_64 random(20240601);
    FakeResolver resolver;
    const BindingRole roles[] = {BindingRole::Input, BindingRole::Input, BindingRole::Input, BindingRole::Output,
                                 BindingRole::Output, BindingRole::Temporary, BindingRole::Persistent};
    int conflicts = 0, exemptions = 0;
    for (int trial = 0; trial < 20000; ++trial) {
        bool forInitializer = random() % 3 == 0;
        bool inPlace = random() % 2 == 0;
        // A few resources, some placed on two shared heaps (aliasing), some committed.
        struct Res { uint64_t id, heap, offsetInHeap; };
        std::vector<Res> resources;
        size_t resourceCount = 1 + random() % 4;
        for (size_t r = 0; r < resourceCount; ++r) {
            bool placed = random() % 2 == 0;
            resources.push_back({r + 1, placed ? 100 + random() % 2 : 200 + r, placed ? 16 * (random() % 8) : 0});
        }
        size_t count = random() % 10;
        std::vector<BoundRegion> regions;
        for (size_t i = 0; i < count; ++i) {
            const Res& res = resources[random() % resources.size()];
            BoundRegion region;
            region.role = roles[random() % 7];
            region.index = static_cast<uint32_t>(i);
            region.resourceId = res.id;
            region.heapId = res.heap;
            region.offsetInHeap = res.offsetInHeap;
            // Few distinct offsets and sizes, so that identical regions are common.
            region.offset = 16 * (random() % 6);
            region.size = random() % 8 == 0 ? 0 : 16 * (1 + random() % 4);
            regions.push_back(region);
        }
        bool expected = false;
        for (size_t i = 0; i < regions.size() && !expected; ++i) {
            for (size_t j = i + 1; j < regions.size() && !expected; ++j) {
                expected = PairConflicts(regions[i], regions[j], forInitializer, inPlace);
                if (!expected && inPlace && !forInitializer && regions[i].size &&
                    regions[i].heapId == regions[j].heapId &&
                    regions[i].offsetInHeap + regions[i].offset == regions[j].offsetInHeap + regions[j].offset &&
                    regions[i].size == regions[j].size && (IsWrite(regions[i].role) || IsWrite(regions[j].role))) {
                    ++exemptions;
                }
            }
        }
        Hazard hazard = FindHazard(regions, forInitializer, inPlace);
        ASSERT_EQ(hazard.found, expected) << "trial " << trial;
        Status status = CheckHazards(regions, forInitializer, inPlace, resolver);
        ASSERT_EQ(status.ok(), !expected);
        if (!expected) continue;
        ++conflicts;
        ASSERT_NE(hazard.first, hazard.second);
        ASSERT_LT(hazard.first, regions.size());
        ASSERT_LT(hazard.second, regions.size());
        // The pair it names really conflicts, and the message cites its rule.
        ASSERT_TRUE(PairConflicts(regions[hazard.first], regions[hazard.second], forInitializer, inPlace))
            << "trial " << trial;
        ASSERT_NE(status.message().find(std::string("(") + hazard.rule + ")"), std::string::npos) << status.message();
        if (regions[hazard.first].resourceId != regions[hazard.second].resourceId) {
            ASSERT_NE(status.message().find("(H7)"), std::string::npos) << status.message();
        }
    }
    // Both outcomes and the in-place exemption were exercised.
    EXPECT_GT(conflicts, 2000);
    EXPECT_LT(conflicts, 18000);
    EXPECT_GT(exemptions, 100);
}

TEST(BindingRules, HazardSearchNamesAnIntersectingEarlierRegion) {
    // The earlier writer that ends farthest is named, not the most recent one, which ended before.
    std::vector<BoundRegion> regions = {
        {BindingRole::Output, 0, 0, 1, 1, 0, 0, 1000},   // [0, 1000)
        {BindingRole::Output, 1, 0, 2, 2, 0, 0, 100},    // another heap
        {BindingRole::Input, 0, 0, 1, 1, 0, 1000, 10},   // [1000, 1010): touches nothing
        {BindingRole::Input, 1, 0, 1, 1, 0, 500, 10},    // [500, 510): inside outputs[0]
    };
    Hazard hazard = FindHazard(regions, false, true);
    ASSERT_TRUE(hazard.found);
    EXPECT_EQ(hazard.first, 3u);
    EXPECT_EQ(hazard.second, 0u);
    EXPECT_STREQ(hazard.rule, "H2");
}

// Not a timing test: a JOIN of 100000 inputs with one output goes through validation and the
// hazard search, which a quadratic step would make take hours.
TEST(BindingRules, LargeJoinValidates) {
    constexpr size_t kInputs = 100000;
    FakeResolver resolver;
    ID3D12Resource* resource = resolver.Add("everything", (kInputs + 1) * 256);
    TensorDesc tensor = Tensor(256);
    TensorDesc output = Tensor(256 * kInputs);
    DispatchableBindingInfo info;
    info.inputs.assign(kInputs, &tensor);
    info.outputs = {&output};
    Bindings bind;
    std::vector<DML_BINDING_DESC> descs;
    for (size_t i = 0; i < kInputs; ++i) descs.push_back(bind.Buffer(resource, 256 * i, 256));
    std::vector<BoundRegion> regions, outputRegions;
    ASSERT_TRUE(Passes(ValidateInputBindings(info, kInputs, descs.data(), resolver, &regions)));
    DML_BINDING_DESC out = bind.Buffer(resource, 256 * kInputs, 256 * kInputs);
    // The output does not fit: V1. Then bind it where it fits, overlapping nothing.
    ASSERT_TRUE(Fails(ValidateOutputBindings(info, 1, &out, resolver, &outputRegions), {"V1"}));
    output = Tensor(256);
    out = bind.Buffer(resource, 256 * kInputs, 256);
    ASSERT_TRUE(Passes(ValidateOutputBindings(info, 1, &out, resolver, &outputRegions)));
    regions.insert(regions.end(), outputRegions.begin(), outputRegions.end());
    EXPECT_TRUE(Passes(CheckHazards(regions, false, false, resolver)));
    regions.back().offset -= 256;  // now over the last input
    EXPECT_TRUE(Fails(CheckHazards(regions, false, false, resolver), {"H2", "inputs[99999]"}));
}

}  // namespace
}  // namespace freedml::dml
