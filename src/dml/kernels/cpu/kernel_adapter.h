// What the CPU kernel factories share to adapt a family's typed kernel (Create with params,
// Execute with TensorViews) to the binding model's Kernel and KernelBindings.
#pragma once

#include <algorithm>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

#include "dml/kernel.h"
#include "dml/kernels/cpu/tensor_view.h"

namespace freedml::dml::cpu {

// A view of binding `index` of `tensors`; null data for an absent tensor, and for an owned one
// at execution.
inline TensorView ViewOf(const std::vector<std::optional<TensorDesc>>& tensors,
                         const std::vector<std::byte*>& addresses, size_t index) {
    if (index >= tensors.size() || !tensors[index]) return TensorView{};
    return TensorView{&*tensors[index], index < addresses.size() ? addresses[index] : nullptr};
}

// A Kernel made of a typed kernel `Impl` (whose PersistentSizeInBytes and TemporarySizeInBytes
// give the resource sizes) and two adapters, `run(impl, args, bindings)` and `init(impl, args,
// bindings)`. `packed` lists the inputs whose OWNED_BY_DML copies `init` makes itself (in the
// layout the kernel prefers); the compiled operator copies any other owned input
// (Kernel::PacksOwnedInput).
template <class Impl, class Run, class Init>
class AdaptedKernel final : public Kernel {
public:
    AdaptedKernel(const OperatorArgs& args, Impl impl, Run run, Init init, std::vector<size_t> packed)
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
std::unique_ptr<Kernel> AdaptKernel(const OperatorArgs& args, Impl impl, Run run, Init init,
                                    std::vector<size_t> packed = {}) {
    return std::make_unique<AdaptedKernel<Impl, Run, Init>>(args, std::move(impl), run, init, std::move(packed));
}

// The `init` of a kernel that packs nothing.
constexpr auto kNoInitialize = [](auto&, const OperatorArgs&, const KernelBindings&) {};

// A kernel with no persistent or temporary resource whose Execute is `run(impl, bindings)`.
template <class Impl, class Run>
class StatelessKernel final : public Kernel {
public:
    StatelessKernel(Impl impl, Run run) : impl_(std::move(impl)), run_(run) {}
    uint64_t PersistentResourceSize() const override { return 0; }
    uint64_t TemporaryResourceSize() const override { return 0; }
    void Initialize(const KernelBindings&) override {}
    void Execute(const KernelBindings& bindings) override { run_(impl_, bindings); }

private:
    Impl impl_;
    Run run_;
};

template <class Impl, class Run>
std::unique_ptr<Kernel> MakeStateless(Impl impl, Run run) {
    return std::make_unique<StatelessKernel<Impl, Run>>(std::move(impl), run);
}

}  // namespace freedml::dml::cpu
