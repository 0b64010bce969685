// CUDA kernels of ELEMENT_WISE_IDENTITY (with ScaleBias), ELEMENT_WISE_ADD / ADD1 (with a fused
// activation) and JOIN: planned here into ew_plan.h launches, run by elementwise_ops.cu. Any
// strides (zero strides broadcast), every 8- to 64-bit data type; FLOAT16 computes in float.
#include <vector>

#include "dml/kernels/cuda/cuda_common.h"

namespace freedml::dml::cuda {

namespace {

bool IsFloat(ElementType type) { return type == ElementType::F32 || type == ElementType::F16 || type == ElementType::F64; }

class IdentityKernel final : public Kernel {
public:
    IdentityKernel(EwPlan<2> plan, ElementType type, bool scaleBias, ActParams linear)
        : plan_(plan), type_(type), scaleBias_(scaleBias), linear_(linear) {}
    uint64_t PersistentResourceSize() const override { return 0; }
    uint64_t TemporaryResourceSize() const override { return 0; }
    void Initialize(const KernelBindings&) override {}
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

class AddKernel final : public Kernel {
public:
    AddKernel(EwPlan<3> plan, ElementType type, ActParams act) : plan_(plan), type_(type), act_(act) {}
    uint64_t PersistentResourceSize() const override { return 0; }
    uint64_t TemporaryResourceSize() const override { return 0; }
    void Initialize(const KernelBindings&) override {}
    void Execute(const KernelBindings& b) override {
        CudaStream& stream = StreamOf(b);
        stream.Check(LaunchAdd(plan_, type_, act_, b.outputs[0], b.inputs[0], b.inputs[1], stream.Launch()), "ADD");
    }

private:
    EwPlan<3> plan_;
    ElementType type_;
    ActParams act_;
};

// One strided copy per input into its slice of the output.
class JoinKernel final : public Kernel {
public:
    struct Piece {
        EwPlan<2> plan;
        int64_t outputOffsetBytes;
    };
    JoinKernel(std::vector<Piece> pieces, uint32_t elementBytes)
        : pieces_(std::move(pieces)), elementBytes_(elementBytes) {}
    uint64_t PersistentResourceSize() const override { return 0; }
    uint64_t TemporaryResourceSize() const override { return 0; }
    void Initialize(const KernelBindings&) override {}
    void Execute(const KernelBindings& b) override {
        CudaStream& stream = StreamOf(b);
        for (size_t i = 0; i < pieces_.size(); ++i) {
            stream.Check(LaunchCopy(pieces_[i].plan, elementBytes_, b.outputs[0] + pieces_[i].outputOffsetBytes,
                                    b.inputs[i], stream.Launch()),
                         "JOIN");
        }
    }

private:
    std::vector<Piece> pieces_;
    uint32_t elementBytes_;
};

}  // namespace

Status CreateIdentityKernel(const OperatorArgs& args, std::unique_ptr<Kernel>* out) {
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
    INVALID_IF(scaleBias && !IsFloat(type), "IDENTITY applies a ScaleBias only to floating-point tensors (%s given).",
               DataTypeName(output.dataType));
    ActParams linear;
    if (scaleBias) linear = {Act::Linear, desc.ScaleBias->Scale, desc.ScaleBias->Bias};
    *out = std::make_unique<IdentityKernel>(CopyPlan(output, input), type, scaleBias, linear);
    return {};
}

Status CreateAddKernel(const OperatorArgs& args, const DML_OPERATOR_DESC* fused, std::unique_ptr<Kernel>* out) {
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
    INVALID_IF(act.act != Act::None && !IsFloat(type),
               "ADD1's fused activation (%s) needs floating-point tensors (%s given).", ActName(act.act),
               DataTypeName(output.dataType));
    int64_t strides[3][kMaxDims];
    OwnStrides(output, strides[0]);
    BroadcastStrides(a, output, strides[1]);
    BroadcastStrides(b, output, strides[2]);
    *out = std::make_unique<AddKernel>(MakeEwPlan<3>(output.sizes.data(), output.rank, strides), type, act);
    return {};
}

Status CreateJoinKernel(const OperatorArgs& args, std::unique_ptr<Kernel>* out) {
    const TensorDesc& output = *args.outputs[0];
    const uint32_t axis = args.As<DML_JOIN_OPERATOR_DESC>().Axis;
    ElementType type;
    if (!ToElementType(output.dataType, &type)) {
        return NoKernel("JOIN does not support data type %s on CUDA.",
                     DataTypeName(output.dataType));
    }
    const uint32_t bytes = ElementBytes(type);
    std::vector<JoinKernel::Piece> pieces;
    uint64_t position = 0;  // along the axis
    for (const auto& input : args.inputs) {
        INVALID_IF(input->dataType != output.dataType, "JOIN needs every input's data type to be the output's (%s, %s).",
                   DataTypeName(input->dataType), DataTypeName(output.dataType));
        // The slice of the output this input fills: its sizes, the output's strides.
        TensorDesc slice = output;
        slice.sizes = input->sizes;
        pieces.push_back({CopyPlan(slice, *input), int64_t(position * output.strides[axis] * bytes)});
        position += input->sizes[axis];
    }
    *out = std::make_unique<JoinKernel>(std::move(pieces), bytes);
    return {};
}

}  // namespace freedml::dml::cuda
