// CUDA kernels of the region pooling family (dml/ops/region_pooling), planned here and launched on
// the queue's stream; region_math.h defines what each output element is (for both backends).
#include "dml/kernels/cuda/cuda_common.h"
#include "dml/ops/region_pooling/cuda/region_plan.h"
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

}  // namespace

Status CreateCudaRoiPooling(const KernelContext&, const OperatorArgs& args, std::unique_ptr<Kernel>* out) {
    *out = std::make_unique<RegionKernel>(args.schema.name, region::PlanFromArgs(args));
    return {};
}

Status CreateCudaRoiAlign(const KernelContext&, const OperatorArgs& args, std::unique_ptr<Kernel>* out) {
    *out = std::make_unique<RegionKernel>(args.schema.name, region::PlanFromArgs(args));
    return {};
}

}  // namespace freedml::dml::cuda
