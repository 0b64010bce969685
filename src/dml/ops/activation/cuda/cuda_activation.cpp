// CUDA kernels of the activation family (dml/ops/activation), planned here and launched on the
// queue's stream; the CPU kernels (../cpu/activation_ops.cpp) define what each computes.
//
// - Element-wise float activations: the fused-activation formulas (activation.cuh) through
//   LaunchActivation, FLOAT16 in float rounded once; IDENTITY is a copy.
// - Integer RELU and SHRINK, PARAMETERIZED_RELU and RELU_GRAD: activation_ops.cu.
// - SOFTMAX, LOG_SOFTMAX, HARDMAX and their `1` forms: rows over the kept dimensions, each reduced
//   over the chosen axes (activation_ops.cu).
// Any strides; the element-wise ones run in place where the schema allows it.
#include "dml/kernels/cuda/cuda_common.h"
#include "dml/ops/activation/cuda/activation_plan.h"

namespace freedml::dml::cuda {

namespace {

// The kernels here need no persistent or temporary memory.
class StatelessKernel : public Kernel {
public:
    uint64_t PersistentResourceSize() const override { return 0; }
    uint64_t TemporaryResourceSize() const override { return 0; }
    void Initialize(const KernelBindings&) override {}
};

class UnaryActivationKernel final : public StatelessKernel {
public:
    enum class Kind : uint8_t { Copy, Float, IntegerRelu, IntegerShrink };
    UnaryActivationKernel(const char* name, Kind kind, EwPlan<2> plan, ElementType type, ActParams act)
        : name_(name), kind_(kind), plan_(plan), type_(type), act_(act) {}
    bool ReplaySafe() const override { return true; }  // one launch
    void Execute(const KernelBindings& b) override {
        CudaStream& stream = StreamOf(b);
        void* out = b.outputs[0];
        const void* in = b.inputs[0];
        cudaError_t error = cudaSuccess;
        switch (kind_) {
            case Kind::Copy: error = LaunchCopy(plan_, ElementBytes(type_), out, in, stream.Launch()); break;
            case Kind::Float: error = LaunchActivation(plan_, type_, act_, out, in, stream.Launch()); break;
            case Kind::IntegerRelu: error = LaunchIntegerRelu(plan_, type_, out, in, stream.Launch()); break;
            case Kind::IntegerShrink:
                // ActParams of SHRINK: alpha = Bias, beta = Threshold.
                error = LaunchIntegerShrink(plan_, type_, act_.alpha, act_.beta, out, in, stream.Launch());
                break;
        }
        stream.Check(error, name_);
    }

private:
    const char* name_;
    Kind kind_;
    EwPlan<2> plan_;
    ElementType type_;
    ActParams act_;
};

// PARAMETERIZED_RELU (x, slope) and RELU_GRAD (x, dy).
class BinaryActivationKernel final : public StatelessKernel {
public:
    BinaryActivationKernel(const char* name, bool grad, EwPlan<3> plan, ElementType type)
        : name_(name), grad_(grad), plan_(plan), type_(type) {}
    void Execute(const KernelBindings& b) override {
        CudaStream& stream = StreamOf(b);
        const cudaError_t error =
            grad_ ? LaunchReluGrad(plan_, type_, b.outputs[0], b.inputs[0], b.inputs[1], stream.Launch())
                  : LaunchParameterizedRelu(plan_, type_, b.outputs[0], b.inputs[0], b.inputs[1], stream.Launch());
        stream.Check(error, name_);
    }

private:
    const char* name_;
    bool grad_;
    EwPlan<3> plan_;
    ElementType type_;
};

class AxisActivationKernel final : public StatelessKernel {
public:
    AxisActivationKernel(const char* name, AxisPlan plan, ElementType type) : name_(name), plan_(plan), type_(type) {}
    void Execute(const KernelBindings& b) override {
        CudaStream& stream = StreamOf(b);
        stream.Check(LaunchAxisActivation(plan_, type_, b.outputs[0], b.inputs[0], stream.Launch()), name_);
    }

private:
    const char* name_;
    AxisPlan plan_;
    ElementType type_;
};

bool IsSignedInteger(ElementType type) {
    return type == ElementType::I8 || type == ElementType::I16 || type == ElementType::I32;
}
bool IsShrinkInteger(ElementType type) {
    return IsSignedInteger(type) || type == ElementType::U8 || type == ElementType::U16 || type == ElementType::U32;
}

// Which data types each operator's CUDA kernel takes, for the refusal message.
enum class TypeSet : uint8_t { Float, Signed, Shrink };

Status Unsupported(const OperatorArgs& args, DML_TENSOR_DATA_TYPE type, TypeSet set) {
    const char* takes = set == TypeSet::Float    ? "FLOAT32 and FLOAT16"
                        : set == TypeSet::Signed ? "FLOAT32, FLOAT16, INT32, INT16 and INT8"
                                                 : "FLOAT32, FLOAT16 and the 8- to 32-bit integer types";
    return NoKernel(
                 "DML_OPERATOR_%s has no CUDA kernel for data type %s: it takes %s on CUDA, as on the CPU.",
                 args.schema.name, DataTypeName(type), takes);
}

// Every tensor of the operator has the output's data type (the schema validated it); this
// resolves it, or refuses a type outside `set`.
Status TypeOf(const OperatorArgs& args, TypeSet set, ElementType* type) {
    const DML_TENSOR_DATA_TYPE dataType = args.outputs[0]->dataType;
    for (const auto& input : args.inputs) {
        INVALID_IF(input && input->dataType != dataType,
                   "DML_OPERATOR_%s needs every tensor's data type to be the output's (%s given beside %s).",
                   args.schema.name, DataTypeName(input->dataType), DataTypeName(dataType));
    }
    bool ok = ToElementType(dataType, type);
    if (ok) {
        switch (set) {
            case TypeSet::Float: ok = IsFloat16Or32(*type); break;
            case TypeSet::Signed: ok = IsFloat16Or32(*type) || IsSignedInteger(*type); break;
            case TypeSet::Shrink: ok = IsFloat16Or32(*type) || IsShrinkInteger(*type); break;
        }
    }
    return ok ? Status{} : Unsupported(args, dataType, set);
}

// The parameters of a standalone element-wise activation, from the one activation decode.
Status ActParamsOf(const OperatorArgs& args, ActParams* act) {
    ActivationParams decoded;
    FREEDML_TRY(DecodeActivation(args.schema.type, args.desc, &decoded));
    return ToActParams(decoded, act);
}

Status CreateUnary(const OperatorArgs& args, std::unique_ptr<Kernel>* out) {
    const DML_OPERATOR_TYPE op = args.schema.type;
    const TypeSet set = op == DML_OPERATOR_ACTIVATION_RELU     ? TypeSet::Signed
                        : op == DML_OPERATOR_ACTIVATION_SHRINK ? TypeSet::Shrink
                                                               : TypeSet::Float;
    ElementType type;
    FREEDML_TRY(TypeOf(args, set, &type));
    ActParams act;
    FREEDML_TRY(ActParamsOf(args, &act));
    using Kind = UnaryActivationKernel::Kind;
    Kind kind = Kind::Float;
    if (act.act == Act::None) {
        kind = Kind::Copy;  // IDENTITY
    } else if (!IsFloat16Or32(type)) {
        kind = op == DML_OPERATOR_ACTIVATION_RELU ? Kind::IntegerRelu : Kind::IntegerShrink;
    }
    *out = std::make_unique<UnaryActivationKernel>(args.schema.name, kind, CopyPlan(*args.outputs[0], *args.inputs[0]),
                                                   type, act);
    return {};
}

Status CreateBinary(const OperatorArgs& args, std::unique_ptr<Kernel>* out) {
    ElementType type;
    FREEDML_TRY(TypeOf(args, TypeSet::Signed, &type));
    const TensorDesc& output = *args.outputs[0];
    int64_t strides[3][kMaxDims];
    OwnStrides(output, strides[0]);
    BroadcastStrides(*args.inputs[0], output, strides[1]);
    BroadcastStrides(*args.inputs[1], output, strides[2]);
    *out = std::make_unique<BinaryActivationKernel>(args.schema.name,
                                                    args.schema.type == DML_OPERATOR_ACTIVATION_RELU_GRAD,
                                                    MakeEwPlan<3>(output.sizes.data(), output.rank, strides), type);
    return {};
}

template <class AxesDesc>
void MarkAxes(const OperatorArgs& args, bool* reduced) {
    const auto& desc = args.As<AxesDesc>();
    for (uint32_t i = 0; i < desc.AxisCount; ++i) reduced[desc.Axes[i]] = true;
}

Status CreateAxis(const OperatorArgs& args, std::unique_ptr<Kernel>* out) {
    ElementType type;
    FREEDML_TRY(TypeOf(args, TypeSet::Float, &type));
    const TensorDesc& input = *args.inputs[0];
    const TensorDesc& output = *args.outputs[0];
    INVALID_IF(output.rank > uint32_t(kMaxDims) || input.rank != output.rank,
               "DML_OPERATOR_%s needs InputTensor and OutputTensor of one rank, at most %d (%u and %u given).",
               args.schema.name, kMaxDims, input.rank, output.rank);
    bool reduced[kMaxDims] = {};
    AxisPlan plan;
    switch (args.schema.type) {
        case DML_OPERATOR_ACTIVATION_SOFTMAX1: MarkAxes<DML_ACTIVATION_SOFTMAX1_OPERATOR_DESC>(args, reduced); break;
        case DML_OPERATOR_ACTIVATION_LOG_SOFTMAX1:
            MarkAxes<DML_ACTIVATION_LOG_SOFTMAX1_OPERATOR_DESC>(args, reduced);
            plan.function = AxisFunction::LogSoftmax;
            break;
        case DML_OPERATOR_ACTIVATION_HARDMAX1:
            MarkAxes<DML_ACTIVATION_HARDMAX1_OPERATOR_DESC>(args, reduced);
            plan.function = AxisFunction::Hardmax;
            break;
        default:  // the original forms: the last axis
            reduced[output.rank - 1] = true;
            plan.function = args.schema.type == DML_OPERATOR_ACTIVATION_SOFTMAX       ? AxisFunction::Softmax
                            : args.schema.type == DML_OPERATOR_ACTIVATION_LOG_SOFTMAX ? AxisFunction::LogSoftmax
                                                                                       : AxisFunction::Hardmax;
            break;
    }
    uint32_t keptSizes[kMaxDims] = {}, reducedSizes[kMaxDims] = {};
    for (uint32_t d = 0; d < output.rank; ++d) {
        keptSizes[d] = reduced[d] ? 1 : output.sizes[d];
        reducedSizes[d] = reduced[d] ? output.sizes[d] : 1;
    }
    int64_t strides[2][kMaxDims];
    OwnStrides(output, strides[0]);
    OwnStrides(input, strides[1]);
    plan.rows = MakeEwPlan<2>(keptSizes, output.rank, strides);
    plan.row = MakeEwPlan<2>(reducedSizes, output.rank, strides);
    *out = std::make_unique<AxisActivationKernel>(args.schema.name, plan, type);
    return {};
}

}  // namespace

Status CreateCudaActivation(const KernelContext&, const OperatorArgs& args, std::unique_ptr<Kernel>* out) { return CreateUnary(args, out); }
Status CreateCudaBinaryActivation(const KernelContext&, const OperatorArgs& args, std::unique_ptr<Kernel>* out) { return CreateBinary(args, out); }
Status CreateCudaAxisActivation(const KernelContext&, const OperatorArgs& args, std::unique_ptr<Kernel>* out) { return CreateAxis(args, out); }

}  // namespace freedml::dml::cuda
