// CUDA factory of the normalization family: the plan of norm_args.h, the fused activation in the
// device code's terms, and the launch of normalization.cu.
#include "dml/kernels/cuda/cuda_common.h"
#include "dml/ops/normalization/cuda/norm_launch.h"
#include "dml/ops/normalization/norm_args.h"

namespace freedml::dml::cuda {

namespace {

class NormalizationKernel final : public Kernel {
public:
    NormalizationKernel(const char* name, DML_OPERATOR_TYPE type, const NormPlan& plan, const ActParams& act)
        : name_(name), plan_(plan), act_(act) {
        NormSlots(type, slots_);
    }
    uint64_t PersistentResourceSize() const override { return 0; }
    uint64_t TemporaryResourceSize() const override { return 0; }
    void Initialize(const KernelBindings&) override {}
    void Execute(const KernelBindings& b) override {
        CudaStream& stream = StreamOf(b);
        void* operands[kNormOperands] = {};
        for (int o = 0; o < kNormOperands; ++o) {
            if (plan_.has[o]) operands[o] = (NormIsOutput(o) ? b.outputs : b.inputs)[size_t(slots_[o])];
        }
        stream.Check(LaunchNormalization(plan_, act_, operands, stream.Launch()), name_);
    }

private:
    const char* name_;
    int slots_[kNormOperands] = {};
    NormPlan plan_;
    ActParams act_;
};

}  // namespace

Status CreateCudaNormalization(const KernelContext&, const OperatorArgs& args, std::unique_ptr<Kernel>* out) {
    NormPlan plan;
    const DML_OPERATOR_DESC* fused = nullptr;
    FREEDML_TRY(BuildNormPlan(args, &plan, &fused));
    ActParams act;
    FREEDML_TRY(MakeActParams(fused, &act));
    *out = std::make_unique<NormalizationKernel>(args.schema.name, args.schema.type, plan, act);
    return {};
}

}  // namespace freedml::dml::cuda
