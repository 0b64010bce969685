// CreateCpuKernel: turns a validated operator (OperatorArgs) into the CPU kernel of its family,
// and adapts each family's typed Initialize/Execute to the binding model's KernelBindings.
#include <algorithm>

#include "dml/kernel.h"
#include "dml/kernels/cpu/activation.h"
#include "dml/kernels/cpu/convolution.h"
#include "dml/kernels/cpu/elementwise.h"
#include "dml/kernels/cpu/gemm.h"
#include "dml/kernels/cpu/join.h"

namespace freedml::dml {

namespace {

using cpu::MakeView;
using cpu::TensorView;

// A view of binding `index` of `tensors`; null data for an absent tensor, and for an owned one
// at execution.
TensorView ViewOf(const std::vector<std::optional<TensorDesc>>& tensors, const std::vector<std::byte*>& addresses,
                  size_t index) {
    if (index >= tensors.size() || !tensors[index]) return TensorView{};
    return TensorView{&*tensors[index], index < addresses.size() ? addresses[index] : nullptr};
}

// Kernel for the families whose Create takes params and whose sizes come from the kernel.
// `packed` lists the inputs whose OWNED_BY_DML copies `init` makes itself (in the layout the
// kernel prefers); the compiled operator copies any other owned input (Kernel::PacksOwnedInput).
template <class Impl, class Run, class Init>
class CpuKernel final : public Kernel {
public:
    CpuKernel(const OperatorArgs& args, Impl impl, Run run, Init init, std::vector<size_t> packed)
        : args_(args), impl_(std::move(impl)), run_(run), init_(init), packed_(std::move(packed)) {}
    uint64_t PersistentResourceSize() const override { return impl_.PersistentSizeInBytes(); }
    uint64_t TemporaryResourceSize() const override { return impl_.TemporarySizeInBytes(); }
    void Initialize(const KernelBindings& bindings) override { init_(impl_, args_, bindings); }
    bool PacksOwnedInput(size_t input) const override {
        return std::find(packed_.begin(), packed_.end(), input) != packed_.end();
    }
    void Execute(const KernelBindings& bindings) override { run_(impl_, args_, bindings); }

private:
    const OperatorArgs& args_;  // owned by the operator, which the compiled operator keeps alive
    Impl impl_;
    Run run_;
    Init init_;
    std::vector<size_t> packed_;
};

template <class Impl, class Run, class Init>
std::unique_ptr<Kernel> MakeKernel(const OperatorArgs& args, Impl impl, Run run, Init init,
                                   std::vector<size_t> packed = {}) {
    return std::make_unique<CpuKernel<Impl, Run, Init>>(args, std::move(impl), run, init, std::move(packed));
}

constexpr auto kNoInitialize = [](auto&, const OperatorArgs&, const KernelBindings&) {};

Status CreateIdentity(const OperatorArgs& args, std::unique_ptr<Kernel>* out) {
    const auto& desc = args.As<DML_ELEMENT_WISE_IDENTITY_OPERATOR_DESC>();
    cpu::IdentityParams params{*args.inputs[0], *args.outputs[0], desc.ScaleBias != nullptr,
                               desc.ScaleBias ? *desc.ScaleBias : DML_SCALE_BIAS{1.0f, 0.0f}};
    cpu::IdentityKernel kernel;
    FREEDML_TRY(kernel.Create(params));
    *out = MakeKernel(args, std::move(kernel),
                      [](cpu::IdentityKernel& k, const OperatorArgs& a, const KernelBindings& b) {
                          k.Execute(ViewOf(a.inputs, b.inputs, 0), ViewOf(a.outputs, b.outputs, 0), b.persistent,
                                    b.temporary);
                      },
                      kNoInitialize);
    return {};
}

Status CreateGemm(const OperatorArgs& args, std::unique_ptr<Kernel>* out) {
    const auto& desc = args.As<DML_GEMM_OPERATOR_DESC>();
    cpu::GemmParams params;
    params.a = *args.inputs[0];
    params.b = *args.inputs[1];
    params.c = args.inputs[2];
    params.output = *args.outputs[0];
    params.transA = desc.TransA;
    params.transB = desc.TransB;
    params.alpha = desc.Alpha;
    params.beta = desc.Beta;
    FREEDML_TRY(cpu::MakeFusedActivation(desc.FusedActivation, &params.activation));
    cpu::GemmKernel kernel;
    FREEDML_TRY(kernel.Create(params));
    *out = MakeKernel(args, std::move(kernel),
                      [](cpu::GemmKernel& k, const OperatorArgs& a, const KernelBindings& b) {
                          k.Execute(ViewOf(a.inputs, b.inputs, 0), ViewOf(a.inputs, b.inputs, 1),
                                    ViewOf(a.inputs, b.inputs, 2), ViewOf(a.outputs, b.outputs, 0), b.persistent,
                                    b.temporary);
                      },
                      [](cpu::GemmKernel& k, const OperatorArgs& a, const KernelBindings& b) {
                          k.Initialize(ViewOf(a.inputs, b.inputs, 0), ViewOf(a.inputs, b.inputs, 1),
                                       ViewOf(a.inputs, b.inputs, 2), b.persistent);
                      },
                      {0, 1, 2});  // A, B and C
    return {};
}

Status CreateConvolution(const OperatorArgs& args, std::unique_ptr<Kernel>* out) {
    const auto& desc = args.As<DML_CONVOLUTION_OPERATOR_DESC>();
    cpu::ConvolutionParams params;
    params.input = *args.inputs[0];
    params.filter = *args.inputs[1];
    params.bias = args.inputs[2];
    params.output = *args.outputs[0];
    params.mode = desc.Mode;
    params.direction = desc.Direction;
    params.dimensionCount = desc.DimensionCount;
    for (uint32_t i = 0; i < desc.DimensionCount; ++i) {
        params.strides[i] = desc.Strides[i];
        params.dilations[i] = desc.Dilations[i];
        params.startPadding[i] = desc.StartPadding[i];
        params.endPadding[i] = desc.EndPadding[i];
        params.outputPadding[i] = desc.OutputPadding ? desc.OutputPadding[i] : 0;
    }
    params.groupCount = desc.GroupCount;
    FREEDML_TRY(cpu::MakeFusedActivation(desc.FusedActivation, &params.activation));
    cpu::ConvolutionKernel kernel;
    FREEDML_TRY(kernel.Create(params));
    *out = MakeKernel(args, std::move(kernel),
                      [](cpu::ConvolutionKernel& k, const OperatorArgs& a, const KernelBindings& b) {
                          k.Execute(ViewOf(a.inputs, b.inputs, 0), ViewOf(a.inputs, b.inputs, 1),
                                    ViewOf(a.inputs, b.inputs, 2), ViewOf(a.outputs, b.outputs, 0), b.persistent,
                                    b.temporary);
                      },
                      [](cpu::ConvolutionKernel& k, const OperatorArgs& a, const KernelBindings& b) {
                          k.Initialize(ViewOf(a.inputs, b.inputs, 1), ViewOf(a.inputs, b.inputs, 2), b.persistent);
                      },
                      {1, 2});  // filter and bias; an owned input tensor is copied as it is
    return {};
}

Status CreateJoin(const OperatorArgs& args, std::unique_ptr<Kernel>* out) {
    cpu::JoinParams params;
    for (const auto& input : args.inputs) params.inputs.push_back(*input);
    params.output = *args.outputs[0];
    params.axis = args.As<DML_JOIN_OPERATOR_DESC>().Axis;
    cpu::JoinKernel kernel;
    FREEDML_TRY(kernel.Create(params));
    *out = MakeKernel(args, std::move(kernel),
                      [](cpu::JoinKernel& k, const OperatorArgs& a, const KernelBindings& b) {
                          std::vector<TensorView> inputs(a.inputs.size());
                          for (size_t i = 0; i < inputs.size(); ++i) inputs[i] = ViewOf(a.inputs, b.inputs, i);
                          k.Execute(inputs, ViewOf(a.outputs, b.outputs, 0), b.persistent, b.temporary);
                      },
                      kNoInitialize);
    return {};
}

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

Status CreateFamilyKernel(const OperatorArgs& args, DML_EXECUTION_FLAGS flags, std::unique_ptr<Kernel>* kernel) {
    switch (args.schema.type) {
        case DML_OPERATOR_ELEMENT_WISE_IDENTITY:
            return CreateIdentity(args, kernel);
        case DML_OPERATOR_GEMM:
            return CreateGemm(args, kernel);
        case DML_OPERATOR_CONVOLUTION:
            return CreateConvolution(args, kernel);
        case DML_OPERATOR_JOIN:
            return CreateJoin(args, kernel);
        default:
            break;
    }
    for (CpuKernelFactory factory :
         {CreateUnaryCpuKernel, CreateBinaryCpuKernel, CreateActivationCpuKernel, CreateSelectCpuKernel}) {
        Status status;
        if (factory(args, flags, kernel, &status)) return status;
    }
    return NoKernel("FreeDML has no CPU kernel for DML_OPERATOR_%s yet.", args.schema.name);
}

}  // namespace

Status CreateCpuKernel(const OperatorArgs& args, DML_EXECUTION_FLAGS flags, std::unique_ptr<Kernel>* kernel) {
    FREEDML_TRY(CreateFamilyKernel(args, flags, kernel));
    if (!args.schema.supportsInPlaceExecution) return {};  // H2: no input may meet an output
    std::vector<InPlaceSnapshotKernel::Pair> pairs = InPlaceSnapshotKernel::PairsOf(args);
    if (!pairs.empty()) *kernel = std::make_unique<InPlaceSnapshotKernel>(std::move(pairs), std::move(*kernel));
    return {};
}

}  // namespace freedml::dml
