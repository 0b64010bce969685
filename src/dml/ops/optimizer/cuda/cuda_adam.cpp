// CUDA kernel of ADAM_OPTIMIZER (dml/ops/optimizer): the seven element-wise tensors planned once
// as one strided loop, launched on the queue's stream (adam_ops.cu).
#include <memory>

#include "dml/kernels/cuda/cuda_common.h"
#include "dml/ops/optimizer/cuda/adam_launch.h"

namespace freedml::dml::cuda {

namespace {

class AdamKernel final : public Kernel {
public:
    explicit AdamKernel(const OperatorArgs& args) {
        const auto& desc = args.As<DML_ADAM_OPTIMIZER_OPERATOR_DESC>();
        params_ = {desc.LearningRate, desc.Beta1, desc.Beta2, desc.Epsilon};
        const TensorDesc& out = *args.outputs[0];
        half_ = out.dataType == DML_TENSOR_DATA_TYPE_FLOAT16;
        stepUint32_ = args.inputs[4]->dataType == DML_TENSOR_DATA_TYPE_UINT32;
        const TensorDesc* operands[7] = {&*args.outputs[0], &*args.outputs[1], &*args.outputs[2], &*args.inputs[0],
                                         &*args.inputs[1],  &*args.inputs[2],  &*args.inputs[3]};
        int64_t strides[7][kMaxDims] = {};
        for (int k = 0; k < 7; ++k) {
            for (uint32_t d = 0; d < out.rank; ++d) strides[k][d] = operands[k]->strides[d];
        }
        plan_ = MakeEwPlan<7>(out.sizes.data(), out.rank, strides);
    }

    uint64_t PersistentResourceSize() const override { return 0; }
    uint64_t TemporaryResourceSize() const override { return 0; }
    void Initialize(const KernelBindings&) override {}
    void Execute(const KernelBindings& b) override {
        CudaStream& stream = StreamOf(b);
        void* const operands[7] = {b.outputs[0], b.outputs[1], b.outputs[2], b.inputs[0],
                                   b.inputs[1],  b.inputs[2],  b.inputs[3]};
        stream.Check(LaunchAdam(plan_, half_, params_, operands, b.inputs[4], stepUint32_, stream.Launch()), "ADAM_OPTIMIZER");
    }

private:
    adam::AdamParams params_;
    bool half_ = false;
    bool stepUint32_ = false;  // TrainingStepTensor is UINT32 (else the parameters' type)
    EwPlan<7> plan_;
};

}  // namespace

Status CreateCudaAdamOptimizer(const KernelContext&, const OperatorArgs& args, std::unique_ptr<Kernel>* out) {
    *out = std::make_unique<AdamKernel>(args);
    return {};
}

}  // namespace freedml::dml::cuda
