// CPU kernel of ELEMENT_WISE_IF: Output = Condition != 0 ? A : B. Selection moves bits, so each
// element size (1, 2, 4, 8 bytes) has one loop for every data type of that size: FLOAT16 NaN
// payloads and negative zeros come through untouched. Any strides through LoopPlan; rows whose
// operands are all contiguous run a plain indexed loop the compiler vectorizes into blends.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("tree-vectorize")
#endif

#include <cstring>

#include "dml/kernel.h"
#include "dml/kernels/cpu/tensor_view.h"
#include "dml/kernels/cpu/thread_pool.h"

namespace freedml::dml {

namespace {

using namespace cpu;

// Operand order of the plan: condition, A, B, output.
using SelectPlan = LoopPlan<4>;

template <class Bits>
void SelectRow(const std::array<std::byte*, 4>& p, uint64_t n, const std::array<int64_t, 4>& s) {
    const uint8_t* condition = reinterpret_cast<const uint8_t*>(p[0]);
    if (s[0] == 1 && s[1] == int64_t(sizeof(Bits)) && s[2] == int64_t(sizeof(Bits)) && s[3] == int64_t(sizeof(Bits)) &&
        reinterpret_cast<uintptr_t>(p[1]) % alignof(Bits) == 0 && reinterpret_cast<uintptr_t>(p[2]) % alignof(Bits) == 0 &&
        reinterpret_cast<uintptr_t>(p[3]) % alignof(Bits) == 0) {
        const Bits* a = reinterpret_cast<const Bits*>(p[1]);
        const Bits* b = reinterpret_cast<const Bits*>(p[2]);
        Bits* out = reinterpret_cast<Bits*>(p[3]);
        for (uint64_t i = 0; i < n; ++i) out[i] = condition[i] ? a[i] : b[i];
        return;
    }
    const std::byte* a = p[1];
    const std::byte* b = p[2];
    std::byte* out = p[3];
    for (uint64_t i = 0; i < n; ++i) {
        std::memcpy(out, *condition ? a : b, sizeof(Bits));
        condition += s[0];
        a += s[1];
        b += s[2];
        out += s[3];
    }
}

using SelectRowFn = void (*)(const std::array<std::byte*, 4>&, uint64_t, const std::array<int64_t, 4>&);

class SelectKernel final : public Kernel {
public:
    SelectKernel(SelectPlan plan, SelectRowFn row) : plan_(plan), row_(row) {}
    uint64_t PersistentResourceSize() const override { return 0; }
    uint64_t TemporaryResourceSize() const override { return 0; }
    void Initialize(const KernelBindings&) override {}
    void Execute(const KernelBindings& b) override {
        const std::array<std::byte*, 4> bases = {b.inputs[0], b.inputs[1], b.inputs[2], b.outputs[0]};
        ParallelLoop(
            HostThreads(b), plan_, bases,
            [this](const std::array<std::byte*, 4>& p, uint64_t n, const std::array<int64_t, 4>& s) { row_(p, n, s); });
    }

private:
    SelectPlan plan_;
    SelectRowFn row_;
};

Status CreateSelect(const OperatorArgs& args, std::unique_ptr<Kernel>* out) {
    const TensorDesc& output = *args.outputs[0];
    const uint32_t elementBytes = ElementSizeInBytes(output.dataType);
    SelectRowFn row = nullptr;
    switch (elementBytes) {
        case 1: row = SelectRow<uint8_t>; break;
        case 2: row = SelectRow<uint16_t>; break;
        case 4: row = SelectRow<uint32_t>; break;
        case 8: row = SelectRow<uint64_t>; break;
        default:
            return Error(E_INVALIDARG, "ELEMENT_WISE_IF cannot select elements of data type %s.",
                         DataTypeName(output.dataType));
    }
    // Validation gave every tensor the output's sizes; strides may be zero (broadcast).
    const std::array<const uint32_t*, 4> strides = {args.inputs[0]->strides.data(), args.inputs[1]->strides.data(),
                                                     args.inputs[2]->strides.data(), output.strides.data()};
    const SelectPlan plan =
        MakeLoopPlan<4>(output.sizes.data(), output.rank, strides, {1, elementBytes, elementBytes, elementBytes});
    *out = std::make_unique<SelectKernel>(plan, row);
    return {};
}

}  // namespace

namespace cpu {

Status CreateCpuSelect(const KernelContext&, const OperatorArgs& args, std::unique_ptr<Kernel>* kernel) {
    return CreateSelect(args, kernel);
}

}  // namespace cpu

}  // namespace freedml::dml
