// CUDA kernels of the pooling family, planned here (pool_desc.h gives the same plan the CPU kernels
// run) and launched on the queue's stream by pooling.cu; the CPU kernels define what they compute.
#include "dml/kernels/cuda/cuda_common.h"
#include "dml/ops/pooling/cuda/pooling_launch.h"
#include "dml/ops/pooling/pool_desc.h"

namespace freedml::dml::cuda {

namespace {

class PoolingKernel final : public Kernel {
public:
    PoolingKernel(const char* name, PoolPlan plan, ElementType type) : name_(name), plan_(plan), type_(type) {}
    uint64_t PersistentResourceSize() const override { return 0; }
    uint64_t TemporaryResourceSize() const override { return 0; }
    void Initialize(const KernelBindings&) override {}
    void Execute(const KernelBindings& b) override {
        CudaStream& stream = StreamOf(b);
        void* indices = plan_.hasIndices ? b.outputs[1] : nullptr;
        stream.Check(LaunchPooling(plan_, type_, b.outputs[0], indices, b.inputs[0], stream.Launch()), name_);
    }

private:
    const char* name_;
    PoolPlan plan_;
    ElementType type_;
};

class PoolingGradKernel final : public Kernel {
public:
    PoolingGradKernel(const char* name, PoolPlan plan, ElementType type) : name_(name), plan_(plan), type_(type) {}
    uint64_t PersistentResourceSize() const override { return 0; }
    uint64_t TemporaryResourceSize() const override { return 0; }
    void Initialize(const KernelBindings&) override {}
    void Execute(const KernelBindings& b) override {
        CudaStream& stream = StreamOf(b);
        const bool max = plan_.kind == PoolKind::Max;
        const void* x = max ? b.inputs[0] : nullptr;
        const void* dy = b.inputs[max ? 1 : 0];
        stream.Check(LaunchPoolingGrad(plan_, type_, b.outputs[0], x, dy, stream.Launch()), name_);
    }

private:
    const char* name_;
    PoolPlan plan_;
    ElementType type_;
};

class UnpoolingKernel final : public Kernel {
public:
    UnpoolingKernel(UnpoolPlan plan, ElementType type) : plan_(plan), type_(type) {}
    uint64_t PersistentResourceSize() const override { return 0; }
    uint64_t TemporaryResourceSize() const override { return 0; }
    void Initialize(const KernelBindings&) override {}
    void Execute(const KernelBindings& b) override {
        CudaStream& stream = StreamOf(b);
        stream.Check(LaunchMaxUnpooling(plan_, type_, b.outputs[0], b.inputs[1], b.inputs[0], stream.Launch()),
                     "MAX_UNPOOLING");
    }

private:
    UnpoolPlan plan_;
    ElementType type_;
};

}  // namespace

Status CreateCudaPooling(const KernelContext&, const OperatorArgs& args, std::unique_ptr<Kernel>* out) {
    ElementType type;
    const DML_TENSOR_DATA_TYPE dataType = args.inputs[0]->dataType;
    if (!ToElementType(dataType, &type) || type == ElementType::F64) {
        return NoKernel("DML_OPERATOR_%s has no CUDA kernel for data type %s.", args.schema.name,
                        DataTypeName(dataType));
    }
    *out = std::make_unique<PoolingKernel>(args.schema.name, MakePoolPlan(args), type);
    return {};
}

Status CreateCudaPoolingGrad(const KernelContext&, const OperatorArgs& args, std::unique_ptr<Kernel>* out) {
    ElementType type;
    const DML_TENSOR_DATA_TYPE dataType = args.outputs[0]->dataType;
    if (!ToElementType(dataType, &type) || !IsFloat16Or32(type)) {
        return NoKernel("DML_OPERATOR_%s has no CUDA kernel for data type %s.", args.schema.name,
                        DataTypeName(dataType));
    }
    *out = std::make_unique<PoolingGradKernel>(args.schema.name, MakePoolPlan(args), type);
    return {};
}

Status CreateCudaMaxUnpooling(const KernelContext&, const OperatorArgs& args, std::unique_ptr<Kernel>* out) {
    ElementType type;
    const DML_TENSOR_DATA_TYPE dataType = args.inputs[0]->dataType;
    if (!ToElementType(dataType, &type)) {
        return NoKernel("DML_OPERATOR_MAX_UNPOOLING has no CUDA kernel for data type %s.", DataTypeName(dataType));
    }
    *out = std::make_unique<UnpoolingKernel>(MakeUnpoolPlan(args), type);
    return {};
}

}  // namespace freedml::dml::cuda
