// KernelSet: one backend's factories, indexed by operator type. Built from the operator table
// (dml/ops/operators.def) by each backend, in libdirectml for the CPU and in the CUDA plugin. The
// in-place snapshot policy (H2) is applied here, once for every backend.
#include "dml/kernel.h"

#include <algorithm>

#include "common/align.h"

namespace freedml::dml {

namespace {

// DirectML lets an in-place operator's output share an input's exact byte region (H2) even when
// the two tensors walk that region through different strides (an input read transposed). Kernels
// of every backend read and write element by element, so such an input is first copied, on the
// stream, into the temporary resource past the kernel's own bytes; an input with the output's own
// layout is read at each element before that element is written, and needs no copy.
class InPlaceSnapshotKernel final : public Kernel {
public:
    // An input that may share an output's region but reads it through another layout.
    struct Pair {
        size_t input, output;
        uint64_t inputBytes;
        uint64_t offset = 0;  // of its snapshot in the temporary resource
    };

    // The pairs of `args` whose layouts differ; only those can need a snapshot.
    static std::vector<Pair> PairsOf(const OperatorArgs& args) {
        std::vector<Pair> pairs;
        for (size_t i = 0; i < args.inputs.size(); ++i) {
            for (size_t o = 0; o < args.outputs.size(); ++o) {
                if (args.inputs[i] && args.outputs[o] && !SameLayout(*args.inputs[i], *args.outputs[o])) {
                    pairs.push_back({i, o, args.inputs[i]->MinimumSizeInBytes()});
                }
            }
        }
        return pairs;
    }

    InPlaceSnapshotKernel(std::vector<Pair> pairs, std::unique_ptr<Kernel> inner)
        : pairs_(std::move(pairs)), inner_(std::move(inner)) {
        constexpr uint64_t kAlignment = 256;
        innerTemporary_ = AlignUp(inner_->TemporaryResourceSize(), kAlignment);
        uint64_t offset = innerTemporary_;
        for (Pair& pair : pairs_) {
            pair.offset = offset;
            offset = AlignUp(offset + pair.inputBytes, kAlignment);
        }
        temporary_ = offset;
    }
    uint64_t PersistentResourceSize() const override { return inner_->PersistentResourceSize(); }
    uint64_t TemporaryResourceSize() const override { return temporary_; }
    void Initialize(const KernelBindings& bindings) override { inner_->Initialize(bindings); }
    bool PacksOwnedInput(size_t input) const override { return inner_->PacksOwnedInput(input); }
    void Execute(const KernelBindings& bindings) override {
        const KernelBindings* effective = &bindings;
        KernelBindings copy;
        for (const Pair& pair : pairs_) {
            if (pair.input >= bindings.inputs.size() || pair.output >= bindings.outputs.size()) continue;
            std::byte* input = bindings.inputs[pair.input];
            if (!input || input != bindings.outputs[pair.output]) continue;
            if (effective == &bindings) copy = bindings, effective = &copy;
            std::byte* snapshot = bindings.temporary + pair.offset;
            bindings.stream->CopyAddresses(snapshot, input, pair.inputBytes);
            copy.inputs[pair.input] = snapshot;
        }
        inner_->Execute(*effective);
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
    uint64_t innerTemporary_ = 0;
    uint64_t temporary_ = 0;
};

}  // namespace

KernelSet::KernelSet(const char* backendName, const char* noKernelHint, std::span<const Row> rows, GraphHooks hooks)
    : backendName_(backendName), noKernelHint_(noKernelHint), hooks_(hooks) {
    for (const Row& row : rows) {
        const int index = static_cast<int>(row.type);
        if (index >= 0 && index < kTypeCount) factories_[index] = row.factory;
    }
}

Status KernelSet::Create(const KernelContext& context, const OperatorArgs& args,
                         std::unique_ptr<Kernel>* kernel) const {
    KernelFactory factory = FactoryOf(args.schema.type);
    if (!factory) {
        return NoKernel("FreeDML has no %s kernel for DML_OPERATOR_%s yet%s", backendName_, args.schema.name,
                        noKernelHint_);
    }
    FREEDML_TRY(factory(context, args, kernel));
    // H2, the same on every backend: an in-place input read through another layout is snapshot.
    if (!args.schema.supportsInPlaceExecution) return {};
    std::vector<InPlaceSnapshotKernel::Pair> pairs = InPlaceSnapshotKernel::PairsOf(args);
    if (!pairs.empty()) *kernel = std::make_unique<InPlaceSnapshotKernel>(std::move(pairs), std::move(*kernel));
    return {};
}

}  // namespace freedml::dml
