// CUDA kernel of ELEMENT_WISE_ADD and ADD1 (with its fused activation): one LaunchAdd of
// kernels/cuda/elementwise_ops.cu. Zero strides broadcast; every 8- to 64-bit data type; FLOAT16
// computes in float.
#include "dml/kernels/cuda/cuda_common.h"

namespace freedml::dml::cuda {

namespace {

class AddKernel final : public Kernel {
public:
    AddKernel(EwPlan<3> plan, ElementType type, ActParams act) : plan_(plan), type_(type), act_(act) {}
    uint64_t PersistentResourceSize() const override { return 0; }
    uint64_t TemporaryResourceSize() const override { return 0; }
    void Initialize(const KernelBindings&) override {}
    bool ReplaySafe() const override { return true; }  // one launch
    void Execute(const KernelBindings& b) override {
        CudaStream& stream = StreamOf(b);
        stream.Check(LaunchAdd(plan_, type_, act_, b.outputs[0], b.inputs[0], b.inputs[1], stream.Launch()), "ADD");
    }

private:
    EwPlan<3> plan_;
    ElementType type_;
    ActParams act_;
};

}  // namespace

Status CreateCudaAdd(const KernelContext&, const OperatorArgs& args, std::unique_ptr<Kernel>* out) {
    // ADD1 is ADD with an optional fused activation.
    const DML_OPERATOR_DESC* fused = args.schema.type == DML_OPERATOR_ELEMENT_WISE_ADD1
                                         ? args.As<DML_ELEMENT_WISE_ADD1_OPERATOR_DESC>().FusedActivation
                                         : nullptr;
    const TensorDesc& a = *args.inputs[0];
    const TensorDesc& b = *args.inputs[1];
    const TensorDesc& output = *args.outputs[0];
    INVALID_IF(a.dataType != output.dataType || b.dataType != output.dataType,
               "ADD needs equal data types (A %s, B %s, Output %s).", DataTypeName(a.dataType),
               DataTypeName(b.dataType), DataTypeName(output.dataType));
    ElementType type;
    if (!ToElementType(output.dataType, &type)) {
        return NoKernel("ADD does not support data type %s on CUDA.",
                     DataTypeName(output.dataType));
    }
    ActParams act;
    FREEDML_TRY(MakeActParams(fused, &act));
    INVALID_IF(act.act != Act::None && !IsFloatingPoint(type),
               "ADD1's fused activation (%s) needs floating-point tensors (%s given).", ActName(act.act),
               DataTypeName(output.dataType));
    int64_t strides[3][kMaxDims];
    OwnStrides(output, strides[0]);
    BroadcastStrides(a, output, strides[1]);
    BroadcastStrides(b, output, strides[2]);
    *out = std::make_unique<AddKernel>(MakeEwPlan<3>(output.sizes.data(), output.rank, strides), type, act);
    return {};
}

}  // namespace freedml::dml::cuda
