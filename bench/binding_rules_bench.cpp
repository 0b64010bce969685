// Function-level cost of binding validation: ValidateInputBindings plus CheckHazards for a
// JOIN-like operator with N inputs and one output, all on one resource, in disjoint regions.
// Reports the fitted complexity; it should read as N log N (the hazard search sorts).

#include <benchmark/benchmark.h>

#include <cstdint>
#include <vector>

#include "dml/binding_rules.h"

namespace {

using namespace freedml::dml;

constexpr uint64_t kTensorBytes = 256;

// One buffer large enough for every binding.
class OneResource : public ResourceResolver {
public:
    explicit OneResource(uint64_t width) { facts_.id = 1; facts_.heapId = 1; facts_.width = width; }
    ID3D12Resource* pointer() const { return reinterpret_cast<ID3D12Resource*>(uintptr_t{0x10000}); }
    bool Resolve(ID3D12Resource* resource, ResourceFacts* facts) override {
        if (resource != pointer()) return false;
        *facts = facts_;
        return true;
    }
    std::string Describe(uint64_t) override { return "resource 'join'"; }

private:
    ResourceFacts facts_;
};

void BM_ValidateJoinBindings(benchmark::State& state) {
    const size_t n = static_cast<size_t>(state.range(0));
    OneResource resolver((n + 1) * kTensorBytes);

    TensorDesc input;
    input.dataType = DML_TENSOR_DATA_TYPE_FLOAT32;
    input.rank = 1;
    input.sizes[0] = kTensorBytes / 4;
    input.strides[0] = 1;
    input.totalTensorSizeInBytes = kTensorBytes;
    TensorDesc output = input;

    DispatchableBindingInfo info;
    info.description = "compiled JOIN operator";
    info.inputs.assign(n, &input);
    info.outputs = {&output};

    std::vector<DML_BUFFER_BINDING> buffers(n);
    std::vector<DML_BINDING_DESC> descs(n);
    for (size_t i = 0; i < n; ++i) {
        // Inputs in reverse order of offset, so the sort has work to do.
        buffers[i] = {resolver.pointer(), (n - 1 - i) * kTensorBytes, kTensorBytes};
        descs[i] = {DML_BINDING_TYPE_BUFFER, &buffers[i]};
    }
    // The output's region as BindOutputs would give it, right after the inputs: binding the one
    // output is not what is measured, the hazard search over all N + 1 regions is.
    BoundRegion outputRegion;
    outputRegion.role = BindingRole::Output;
    outputRegion.resourceId = 1;
    outputRegion.heapId = 1;
    outputRegion.offset = n * kTensorBytes;
    outputRegion.size = kTensorBytes;

    std::vector<BoundRegion> regions;
    for (auto _ : state) {
        freedml::Status status =
            ValidateInputBindings(info, static_cast<UINT>(n), descs.data(), resolver, &regions);
        regions.push_back(outputRegion);
        freedml::Status hazards = CheckHazards(regions, false, false, resolver);
        if (!status.ok() || !hazards.ok()) {
            state.SkipWithError("the JOIN bindings were rejected");
            break;
        }
        benchmark::DoNotOptimize(regions.data());
    }
    state.SetComplexityN(static_cast<benchmark::IterationCount>(n));
    state.SetItemsProcessed(state.iterations() * static_cast<int64_t>(n));
}
BENCHMARK(BM_ValidateJoinBindings)->RangeMultiplier(10)->Range(10, 10000)->Complexity(benchmark::oNLogN);

}  // namespace

BENCHMARK_MAIN();
