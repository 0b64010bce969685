// CUDA kernels of the region pooling family (dml/ops/region_pooling), planned here and launched on
// the queue's stream; region_math.h and region_grad_math.h define what each output element is (for
// both backends).
#include "dml/kernels/cuda/cuda_common.h"
#include "dml/ops/region_pooling/cuda/region_grad_launch.h"
#include "dml/ops/region_pooling/cuda/region_plan.h"
#include "dml/ops/region_pooling/grad_plan_from_args.h"
#include "dml/ops/region_pooling/plan_from_args.h"

namespace freedml::dml::cuda {

namespace {

class RegionKernel final : public Kernel {
public:
    RegionKernel(const char* name, region::RegionPlan plan) : name_(name), plan_(plan) {}
    uint64_t PersistentResourceSize() const override { return 0; }
    uint64_t TemporaryResourceSize() const override { return 0; }
    void Initialize(const KernelBindings&) override {}
    void Execute(const KernelBindings& b) override {
        CudaStream& stream = StreamOf(b);
        const void* batchIndices = plan_.align ? b.inputs[2] : nullptr;
        stream.Check(LaunchRegionPooling(plan_, b.outputs[0], b.inputs[0], b.inputs[1], batchIndices, stream.Launch()),
                     name_);
    }

private:
    const char* name_;
    region::RegionPlan plan_;
};

// ROI_ALIGN_GRAD: float scratch for OutputGradientTensor's sums in the temporary resource.
class RoiAlignGradKernel final : public Kernel {
public:
    explicit RoiAlignGradKernel(region::GradPlan plan) : plan_(plan) {}
    uint64_t PersistentResourceSize() const override { return 0; }
    uint64_t TemporaryResourceSize() const override { return RoiAlignGradScratchBytes(plan_); }
    void Initialize(const KernelBindings&) override {}
    void Execute(const KernelBindings& b) override {
        CudaStream& stream = StreamOf(b);
        void* const outputs[2] = {plan_.hasOutputGradient ? b.outputs[0] : nullptr,
                                  plan_.hasRoiGradient ? b.outputs[1] : nullptr};
        const void* const inputs[4] = {plan_.hasInput ? b.inputs[0] : nullptr, b.inputs[1], b.inputs[2], b.inputs[3]};
        stream.Check(LaunchRoiAlignGrad(plan_, outputs, inputs, b.temporary, stream.Launch()), "ROI_ALIGN_GRAD");
    }

private:
    region::GradPlan plan_;
};

}  // namespace

Status CreateCudaRoiPooling(const KernelContext&, const OperatorArgs& args, std::unique_ptr<Kernel>* out) {
    *out = std::make_unique<RegionKernel>(args.schema.name, region::PlanFromArgs(args));
    return {};
}

Status CreateCudaRoiAlign(const KernelContext&, const OperatorArgs& args, std::unique_ptr<Kernel>* out) {
    *out = std::make_unique<RegionKernel>(args.schema.name, region::PlanFromArgs(args));
    return {};
}

Status CreateCudaRoiAlignGrad(const KernelContext&, const OperatorArgs& args, std::unique_ptr<Kernel>* out) {
    *out = std::make_unique<RoiAlignGradKernel>(region::GradPlanFromArgs(args));
    return {};
}

}  // namespace freedml::dml::cuda
