// The CPU kernel set: the CPU column of the operator table (dml/ops/operators.def), and the
// in-place snapshot every CPU kernel of an in-place operator is wrapped in.
#include "dml/kernel.h"

namespace freedml::dml {

namespace cpu {

// Each factory the table's CPU column names, declared here with the one signature they share.
#define FREEDML_DECLARE_FACTORY(...) \
    __VA_OPT__(Status __VA_ARGS__(const KernelContext&, const OperatorArgs&, std::unique_ptr<Kernel>*);)
#define FREEDML_OPERATOR(TYPE, CPU, CUDA) FREEDML_DECLARE_FACTORY(CPU)
#include "dml/ops/operators.def"
#undef FREEDML_OPERATOR

namespace {

constexpr KernelSet::Row kRows[] = {
#define FREEDML_OPERATOR(TYPE, CPU, CUDA) {DML_OPERATOR_##TYPE, CPU},
#include "dml/ops/operators.def"
#undef FREEDML_OPERATOR
};
#undef FREEDML_DECLARE_FACTORY

// DirectML lets an in-place operator's output share an input's exact byte region (H2) even when
// the two tensors walk that region through different strides (an input read transposed). Kernels
// read and write element by element, so such an input is copied before the kernel runs; an input
// with the output's own layout is read at each element before that element is written, and needs
// no copy.
class InPlaceSnapshotKernel final : public Kernel {
public:
    // An input that may share an output's region but reads it through another layout.
    struct Pair {
        size_t input, output;
        uint64_t inputBytes;
    };

    // The pairs of `args` whose layouts differ; only those can need a snapshot.
    static std::vector<Pair> PairsOf(const OperatorArgs& args) {
        std::vector<Pair> pairs;
        for (size_t i = 0; i < args.inputs.size(); ++i) {
            for (size_t o = 0; o < args.outputs.size(); ++o) {
                if (args.inputs[i] && args.outputs[o] && !SameLayout(*args.inputs[i], *args.outputs[o])) {
                    pairs.push_back({i, o, args.inputs[i]->totalTensorSizeInBytes});
                }
            }
        }
        return pairs;
    }

    InPlaceSnapshotKernel(std::vector<Pair> pairs, std::unique_ptr<Kernel> inner)
        : pairs_(std::move(pairs)), inner_(std::move(inner)) {}
    uint64_t PersistentResourceSize() const override { return inner_->PersistentResourceSize(); }
    uint64_t TemporaryResourceSize() const override { return inner_->TemporaryResourceSize(); }
    void Initialize(const KernelBindings& bindings) override { inner_->Initialize(bindings); }
    bool PacksOwnedInput(size_t input) const override { return inner_->PacksOwnedInput(input); }
    void Execute(const KernelBindings& bindings) override {
        std::vector<std::vector<std::byte>> copies;
        KernelBindings effective;
        for (const Pair& pair : pairs_) {
            if (pair.input >= bindings.inputs.size() || pair.output >= bindings.outputs.size()) continue;
            std::byte* input = bindings.inputs[pair.input];
            if (!input || input != bindings.outputs[pair.output]) continue;
            if (copies.empty()) effective = bindings;
            copies.emplace_back(input, input + pair.inputBytes);
            effective.inputs[pair.input] = copies.back().data();
        }
        inner_->Execute(copies.empty() ? bindings : effective);
    }

private:
    static bool SameLayout(const TensorDesc& a, const TensorDesc& b) {
        if (a.rank != b.rank || ElementSizeInBytes(a.dataType) != ElementSizeInBytes(b.dataType)) return false;
        for (uint32_t d = 0; d < a.rank; ++d) {
            if (a.sizes[d] != 1 && a.strides[d] != b.strides[d]) return false;
        }
        return true;
    }

    std::vector<Pair> pairs_;
    std::unique_ptr<Kernel> inner_;
};

// H2: an in-place operator's CPU kernel reads an input that shares the output's region through
// another layout from a snapshot of it.
Status AddInPlaceSnapshots(const OperatorArgs& args, std::unique_ptr<Kernel>* kernel) {
    if (!args.schema.supportsInPlaceExecution) return {};  // no input may meet an output
    std::vector<InPlaceSnapshotKernel::Pair> pairs = InPlaceSnapshotKernel::PairsOf(args);
    if (!pairs.empty()) *kernel = std::make_unique<InPlaceSnapshotKernel>(std::move(pairs), std::move(*kernel));
    return {};
}

}  // namespace

}  // namespace cpu

const KernelSet& CpuKernels() {
    static const KernelSet kernels("CPU", ".", cpu::kRows, cpu::AddInPlaceSnapshots);
    return kernels;
}

}  // namespace freedml::dml
