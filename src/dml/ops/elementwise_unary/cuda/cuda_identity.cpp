// CUDA kernel of ELEMENT_WISE_IDENTITY: a strided copy (LaunchCopy), or with its ScaleBias the
// LINEAR activation (LaunchActivation), both in kernels/cuda/elementwise_ops.cu. Any strides, every
// 8- to 64-bit data type; FLOAT16 computes in float.
#include "dml/kernels/cuda/cuda_common.h"

namespace freedml::dml::cuda {

namespace {

class IdentityKernel final : public Kernel {
public:
    IdentityKernel(EwPlan<2> plan, ElementType type, bool scaleBias, ActParams linear)
        : plan_(plan), type_(type), scaleBias_(scaleBias), linear_(linear) {}
    uint64_t PersistentResourceSize() const override { return 0; }
    uint64_t TemporaryResourceSize() const override { return 0; }
    void Initialize(const KernelBindings&) override {}
    bool ReplaySafe() const override { return true; }  // one launch
    void Execute(const KernelBindings& b) override {
        CudaStream& stream = StreamOf(b);
        if (scaleBias_) {
            stream.Check(LaunchActivation(plan_, type_, linear_, b.outputs[0], b.inputs[0], stream.Launch()),
                         "IDENTITY");
        } else {
            stream.Check(LaunchCopy(plan_, ElementBytes(type_), b.outputs[0], b.inputs[0], stream.Launch()),
                         "IDENTITY");
        }
    }

private:
    EwPlan<2> plan_;
    ElementType type_;
    bool scaleBias_;
    ActParams linear_;
};

}  // namespace

Status CreateCudaIdentity(const KernelContext&, const OperatorArgs& args, std::unique_ptr<Kernel>* out) {
    const auto& desc = args.As<DML_ELEMENT_WISE_IDENTITY_OPERATOR_DESC>();
    const TensorDesc& input = *args.inputs[0];
    const TensorDesc& output = *args.outputs[0];
    ElementType type;
    INVALID_IF(input.dataType != output.dataType, "IDENTITY needs equal input and output data types (%s, %s).",
               DataTypeName(input.dataType), DataTypeName(output.dataType));
    if (!ToElementType(output.dataType, &type)) {
        return NoKernel("IDENTITY does not support data type %s on CUDA.",
                     DataTypeName(output.dataType));
    }
    const bool scaleBias = desc.ScaleBias != nullptr;
    INVALID_IF(scaleBias && !IsFloatingPoint(type), "IDENTITY applies a ScaleBias only to floating-point tensors (%s given).",
               DataTypeName(output.dataType));
    ActParams linear;
    if (scaleBias) linear = {Act::Linear, desc.ScaleBias->Scale, desc.ScaleBias->Bias};
    *out = std::make_unique<IdentityKernel>(CopyPlan(output, input), type, scaleBias, linear);
    return {};
}

}  // namespace freedml::dml::cuda
