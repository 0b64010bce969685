// CUDA kernels of the reduction family (dml/ops/reduction), planned here and launched on the
// queue's stream; the CPU kernels (../cpu/reduction_ops.cpp) define what each computes. Any
// strides; each output element reduces its slice in one thread (short slices), one warp, or one
// column of a block (slices down packed columns), each line of a cumulative scan runs in one
// thread, and TOP_K sorts (line, value, index) keys with one radix sort, or places 64-bit
// elements by counting.
#include "dml/kernels/cuda/cuda_common.h"
#include "dml/ops/reduction/cuda/reduction_plan.h"

namespace freedml::dml::cuda {

namespace {

class ReduceKernel final : public Kernel {
public:
    ReduceKernel(const char* name, ReducePlan plan) : name_(name), plan_(plan) {}
    uint64_t PersistentResourceSize() const override { return 0; }
    uint64_t TemporaryResourceSize() const override { return 0; }
    void Initialize(const KernelBindings&) override {}
    void Execute(const KernelBindings& b) override {
        CudaStream& stream = StreamOf(b);
        stream.Check(LaunchReduce(plan_, b.outputs[0], b.inputs[0], stream.Launch()), name_);
    }

private:
    const char* name_;
    ReducePlan plan_;
};

Status Create(const OperatorArgs& args, ReduceFunction function, uint32_t axisCount, const UINT* axes, bool lastTie,
              std::unique_ptr<Kernel>* out) {
    const TensorDesc& input = *args.inputs[0];
    const TensorDesc& output = *args.outputs[0];
    ReducePlan plan;
    plan.function = function;
    plan.lastTie = lastTie;
    if (!ToElementType(input.dataType, &plan.input) || !ToElementType(output.dataType, &plan.output)) {
        return NoKernel("DML_OPERATOR_%s has no CUDA kernel for data types %s and %s.", args.schema.name,
                        DataTypeName(input.dataType), DataTypeName(output.dataType));
    }
    INVALID_IF(input.rank > uint32_t(kMaxDims) || output.rank != input.rank,
               "DML_OPERATOR_%s needs InputTensor and OutputTensor of one rank, at most %d (%u and %u given).",
               args.schema.name, kMaxDims, input.rank, output.rank);
    bool reduced[kMaxDims] = {};
    for (uint32_t i = 0; i < axisCount; ++i) reduced[axes[i]] = true;
    uint32_t keptSizes[kMaxDims] = {}, reducedSizes[kMaxDims] = {};
    for (uint32_t d = 0; d < input.rank; ++d) {
        keptSizes[d] = reduced[d] ? 1 : input.sizes[d];
        reducedSizes[d] = reduced[d] ? input.sizes[d] : 1;
    }
    int64_t strides[2][kMaxDims];
    OwnStrides(output, strides[0]);
    OwnStrides(input, strides[1]);
    plan.rows = MakeEwPlan<2>(keptSizes, input.rank, strides);
    plan.row = MakeEwPlan<1>(reducedSizes, input.rank, &strides[1]);
    *out = std::make_unique<ReduceKernel>(args.schema.name, plan);
    return {};
}

// CUMULATIVE_SUMMATION and CUMULATIVE_PRODUCT run in place (H2). An input bound to the output's
// region through the output's own layout is read element by element before each write; one read
// through other strides (a transposition) is snapshot by the kernel set before the scan runs.
class ScanKernel final : public Kernel {
public:
    ScanKernel(const char* name, ScanPlan plan) : name_(name), plan_(plan) {}
    uint64_t PersistentResourceSize() const override { return 0; }
    uint64_t TemporaryResourceSize() const override { return 0; }
    void Initialize(const KernelBindings&) override {}
    void Execute(const KernelBindings& b) override {
        CudaStream& stream = StreamOf(b);
        stream.Check(LaunchScan(plan_, b.outputs[0], b.inputs[0], stream.Launch()), name_);
    }

private:
    const char* name_;
    ScanPlan plan_;
};

Status CreateScan(const OperatorArgs& args, bool product, uint32_t axis, bool decreasing, bool exclusive,
                  std::unique_ptr<Kernel>* out) {
    const TensorDesc& input = *args.inputs[0];
    const TensorDesc& output = *args.outputs[0];
    ScanPlan plan;
    plan.product = product;
    plan.decreasing = decreasing;
    plan.exclusive = exclusive;
    if (!ToElementType(input.dataType, &plan.type)) {
        return NoKernel("DML_OPERATOR_%s has no CUDA kernel for data type %s.", args.schema.name,
                        DataTypeName(input.dataType));
    }
    INVALID_IF(input.rank > uint32_t(kMaxDims) || output.rank != input.rank,
               "DML_OPERATOR_%s needs InputTensor and OutputTensor of one rank, at most %d (%u and %u given).",
               args.schema.name, kMaxDims, input.rank, output.rank);
    uint32_t lineSizes[kMaxDims] = {};
    for (uint32_t d = 0; d < input.rank; ++d) lineSizes[d] = d == axis ? 1 : input.sizes[d];
    int64_t strides[2][kMaxDims];
    OwnStrides(output, strides[0]);
    OwnStrides(input, strides[1]);
    plan.lines = MakeEwPlan<2>(lineSizes, input.rank, strides);
    plan.length = input.sizes[axis];
    plan.outStride = strides[0][axis];
    plan.inStride = strides[1][axis];
    *out = std::make_unique<ScanKernel>(args.schema.name, plan);
    return {};
}

class TopKKernel final : public Kernel {
public:
    TopKKernel(const char* name, TopKPlan plan) : name_(name), plan_(plan) { temporary_ = PlanTopKSort(&plan_); }
    uint64_t PersistentResourceSize() const override { return 0; }
    uint64_t TemporaryResourceSize() const override { return temporary_; }
    void Initialize(const KernelBindings&) override {}
    void Execute(const KernelBindings& b) override {
        CudaStream& stream = StreamOf(b);
        stream.Check(LaunchTopK(plan_, b.outputs[0], b.outputs[1], b.inputs[0], b.temporary, stream.Launch()), name_);
    }

private:
    const char* name_;
    TopKPlan plan_;
    uint64_t temporary_ = 0;
};

}  // namespace

Status CreateCudaTopK(const KernelContext&, const OperatorArgs& args, std::unique_ptr<Kernel>* out) {
    TopKPlan plan;
    uint32_t axis = 0;
    if (args.schema.type == DML_OPERATOR_TOP_K1) {
        const auto& desc = args.As<DML_TOP_K1_OPERATOR_DESC>();
        axis = desc.Axis;
        plan.k = desc.K;
        plan.largest = desc.AxisDirection == DML_AXIS_DIRECTION_DECREASING;
    } else {
        const auto& desc = args.As<DML_TOP_K_OPERATOR_DESC>();
        axis = desc.Axis;
        plan.k = desc.K;
    }
    const TensorDesc& input = *args.inputs[0];
    if (!ToElementType(input.dataType, &plan.type)) {
        return NoKernel("DML_OPERATOR_%s has no CUDA kernel for data type %s.", args.schema.name,
                        DataTypeName(input.dataType));
    }
    INVALID_IF(input.rank > uint32_t(kMaxDims), "DML_OPERATOR_%s runs on CUDA up to rank %d (%u given).",
               args.schema.name, kMaxDims, input.rank);
    plan.index64 = args.outputs[1]->dataType == DML_TENSOR_DATA_TYPE_UINT64;
    uint32_t lineSizes[kMaxDims] = {};
    for (uint32_t d = 0; d < input.rank; ++d) lineSizes[d] = d == axis ? 1 : input.sizes[d];
    int64_t strides[3][kMaxDims];
    OwnStrides(*args.outputs[0], strides[0]);
    OwnStrides(*args.outputs[1], strides[1]);
    OwnStrides(input, strides[2]);
    plan.lines = MakeEwPlan<3>(lineSizes, input.rank, strides);
    plan.length = input.sizes[axis];
    plan.valueStride = strides[0][axis];
    plan.indexStride = strides[1][axis];
    plan.inStride = strides[2][axis];
    *out = std::make_unique<TopKKernel>(args.schema.name, plan);
    return {};
}

Status CreateCudaCumulative(const KernelContext&, const OperatorArgs& args, std::unique_ptr<Kernel>* out) {
    if (args.schema.type == DML_OPERATOR_CUMULATIVE_PRODUCT) {
        const auto& desc = args.As<DML_CUMULATIVE_PRODUCT_OPERATOR_DESC>();
        return CreateScan(args, true, desc.Axis, desc.AxisDirection == DML_AXIS_DIRECTION_DECREASING,
                          desc.HasExclusiveProduct, out);
    }
    const auto& desc = args.As<DML_CUMULATIVE_SUMMATION_OPERATOR_DESC>();
    return CreateScan(args, false, desc.Axis, desc.AxisDirection == DML_AXIS_DIRECTION_DECREASING,
                      desc.HasExclusiveSum, out);
}

Status CreateCudaReduce(const KernelContext&, const OperatorArgs& args, std::unique_ptr<Kernel>* out) {
    const auto& desc = args.As<DML_REDUCE_OPERATOR_DESC>();
    return Create(args, ReduceFunction(desc.Function), desc.AxisCount, desc.Axes, false, out);
}

Status CreateCudaArgMin(const KernelContext&, const OperatorArgs& args, std::unique_ptr<Kernel>* out) {
    const auto& desc = args.As<DML_ARGMIN_OPERATOR_DESC>();
    return Create(args, ReduceFunction::ArgMin, desc.AxisCount, desc.Axes,
                  desc.AxisDirection == DML_AXIS_DIRECTION_DECREASING, out);
}

Status CreateCudaArgMax(const KernelContext&, const OperatorArgs& args, std::unique_ptr<Kernel>* out) {
    const auto& desc = args.As<DML_ARGMAX_OPERATOR_DESC>();
    return Create(args, ReduceFunction::ArgMax, desc.AxisCount, desc.Axes,
                  desc.AxisDirection == DML_AXIS_DIRECTION_DECREASING, out);
}

}  // namespace freedml::dml::cuda
