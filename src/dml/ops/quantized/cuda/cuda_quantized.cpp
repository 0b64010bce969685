// CUDA kernels of the quantized family (dml/ops/quantized): plans made from the operator's tensors,
// device code in quantized.cu. The arithmetic is the CPU kernels' (../cpu/quantized.cpp).
#include "dml/kernels/cuda/cuda_common.h"
#include "dml/ops/quantized/cuda/quantized_plan.h"
#include "dml/ops/quantized/quantized_conv_fields.h"

namespace freedml::dml::cuda {

namespace {

using quantized::Operand;

// `t` over a tensor of `rank` dimensions: strides 0 where it has size 1.
Status MakeOperand(const std::optional<TensorDesc>& t, Operand* out) {
    *out = Operand{};
    if (!t) return {};
    INVALID_IF(!ToElementType(t->dataType, &out->type), "The CUDA kernels cannot read %s.", DataTypeName(t->dataType));
    out->present = true;
    for (uint32_t d = 0; d < t->rank; ++d) out->strides[d] = t->sizes[d] == 1 ? 0 : int64_t(t->strides[d]);
    return {};
}

// A convolution or pooling tensor's strides as {N, C, spatial right-aligned at 2..4}.
void AlignSpatial(const TensorDesc& t, uint32_t dims, Operand* o) {
    int64_t s[quantized::kRank] = {};
    s[0] = t.sizes[0] == 1 ? 0 : t.strides[0];
    s[1] = t.sizes[1] == 1 ? 0 : t.strides[1];
    for (uint32_t i = 0; i < dims; ++i) s[2 + 3 - dims + i] = t.strides[2 + i];
    for (int d = 0; d < quantized::kRank; ++d) o->strides[d] = s[d];
}

template <class Plan, class Launch>
class QuantizedKernel final : public Kernel {
public:
    QuantizedKernel(const char* name, Plan plan, std::array<int, quantized::kSlots> slots, Launch launch)
        : name_(name), plan_(plan), slots_(slots), launch_(launch) {}
    uint64_t PersistentResourceSize() const override { return 0; }
    uint64_t TemporaryResourceSize() const override { return 0; }
    void Initialize(const KernelBindings&) override {}
    void Execute(const KernelBindings& b) override {
        CudaStream& stream = StreamOf(b);
        const void* in[quantized::kSlots] = {};
        for (size_t i = 0; i < slots_.size(); ++i) {
            if (slots_[i] >= 0 && size_t(slots_[i]) < b.inputs.size()) in[i] = b.inputs[size_t(slots_[i])];
        }
        stream.Check(launch_(plan_, in, b.outputs[0], stream.Launch()), name_);
    }

private:
    const char* name_;
    Plan plan_;
    std::array<int, quantized::kSlots> slots_;
    Launch launch_;
};

template <class Plan, class Launch>
std::unique_ptr<Kernel> MakeKernel(const char* name, const Plan& plan, std::array<int, quantized::kSlots> slots,
                                   Launch launch) {
    return std::make_unique<QuantizedKernel<Plan, Launch>>(name, plan, slots, launch);
}

class DynamicQuantizeKernel final : public Kernel {
public:
    explicit DynamicQuantizeKernel(quantized::DynamicQuantizePlan plan) : plan_(plan) {}
    uint64_t PersistentResourceSize() const override { return 0; }
    uint64_t TemporaryResourceSize() const override { return 0; }
    void Initialize(const KernelBindings&) override {}
    void Execute(const KernelBindings& b) override {
        CudaStream& stream = StreamOf(b);
        stream.Check(quantized::LaunchDynamicQuantize(plan_, b.inputs[0], b.outputs[0], b.outputs[1], b.outputs[2],
                                                      stream.Launch()),
                     "DYNAMIC_QUANTIZE_LINEAR");
    }

private:
    quantized::DynamicQuantizePlan plan_;
};

}  // namespace

Status CreateCudaQuantizedMatMul(const KernelContext&, const OperatorArgs& args, std::unique_ptr<Kernel>* out) {
    quantized::MatMulPlan plan;
    std::array<int, quantized::kSlots> slots;
    switch (args.schema.type) {
        case DML_OPERATOR_MATRIX_MULTIPLY_INTEGER:
            plan.kind = quantized::MatMulKind::Integer;
            slots = {0, -1, 1, 2, -1, 3, -1, -1, -1};
            break;
        case DML_OPERATOR_QUANTIZED_LINEAR_MATRIX_MULTIPLY:
            plan.kind = quantized::MatMulKind::QuantizedLinear;
            slots = {0, 1, 2, 3, 4, 5, -1, 6, 7};
            break;
        default:
            plan.kind = quantized::MatMulKind::IntegerToFloat;
            slots = {0, 1, 2, 3, 4, 5, 6, -1, -1};
            break;
    }
    const TensorDesc& output = *args.outputs[0];
    plan.rank = int(output.rank);
    for (uint32_t d = 0; d < output.rank; ++d) plan.sizes[d] = output.sizes[d];
    for (size_t i = 0; i < slots.size(); ++i) {
        if (slots[i] >= 0) FREEDML_TRY(MakeOperand(args.inputs[size_t(slots[i])], &plan.in[i]));
        if (slots[i] >= 0 && !args.inputs[size_t(slots[i])]) slots[i] = -1;  // absent: the kernel reads a null address
    }
    // A and B keep their K strides even where K is 1 (the loop steps along them).
    const TensorDesc& a = *args.inputs[size_t(slots[0])];
    const TensorDesc& b = *args.inputs[size_t(slots[3])];
    plan.in[0].strides[a.rank - 1] = a.strides[a.rank - 1];
    plan.in[3].strides[b.rank - 2] = b.strides[b.rank - 2];
    plan.depth = a.sizes[a.rank - 1];
    plan.wide = ElementSizeInBytes(a.dataType) > 1 || ElementSizeInBytes(b.dataType) > 1;
    FREEDML_TRY(MakeOperand(args.outputs[0], &plan.out));
    for (uint32_t d = 0; d < output.rank; ++d) plan.out.strides[d] = output.strides[d];
    *out = MakeKernel(args.schema.name, plan, slots, quantized::LaunchQuantizedMatMul);
    return {};
}

Status CreateCudaQuantizedConv(const KernelContext&, const OperatorArgs& args, std::unique_ptr<Kernel>* out) {
    quantized::ConvPlan plan;
    const dml::quantized::ConvFields fields = dml::quantized::DecodeConvFields(args);
    std::array<int, quantized::kSlots> slots = fields.slots;
    const uint32_t dims = fields.dims;
    const uint32_t *strides = fields.strides, *dilations = fields.dilations, *startPadding = fields.startPadding;
    plan.groups = fields.groups;
    plan.quantizedOutput = fields.quantizedOutput;
    const TensorDesc& input = *args.inputs[size_t(slots[0])];
    const TensorDesc& filter = *args.inputs[size_t(slots[3])];
    const TensorDesc& output = *args.outputs[0];
    plan.dims = int(dims);
    plan.batch = output.sizes[0];
    plan.inChannels = input.sizes[1];
    plan.outChannels = output.sizes[1];
    for (uint32_t i = 0; i < dims; ++i) {
        const uint32_t at = 3 - dims + i;
        plan.inSize[at] = input.sizes[2 + i];
        plan.kernelSize[at] = filter.sizes[2 + i];
        plan.outSize[at] = output.sizes[2 + i];
        plan.stride[at] = strides[i];
        plan.dilation[at] = dilations[i];
        plan.pad[at] = startPadding[i];
    }
    for (size_t i = 0; i < slots.size(); ++i) {
        if (slots[i] >= 0) FREEDML_TRY(MakeOperand(args.inputs[size_t(slots[i])], &plan.in[i]));
        if (slots[i] >= 0 && !args.inputs[size_t(slots[i])]) slots[i] = -1;  // absent: the kernel reads a null address
    }
    AlignSpatial(input, dims, &plan.in[0]);
    AlignSpatial(filter, dims, &plan.in[3]);
    FREEDML_TRY(MakeOperand(args.outputs[0], &plan.out));
    AlignSpatial(output, dims, &plan.out);
    *out = MakeKernel(args.schema.name, plan, slots, quantized::LaunchQuantizedConv);
    return {};
}

Status CreateCudaQuantizedPooling(const KernelContext&, const OperatorArgs& args, std::unique_ptr<Kernel>* out) {
    const auto& desc = args.As<DML_QUANTIZED_LINEAR_AVERAGE_POOLING_OPERATOR_DESC>();
    quantized::PoolPlan plan;
    const TensorDesc& input = *args.inputs[0];
    const TensorDesc& output = *args.outputs[0];
    const uint32_t dims = desc.DimensionCount;
    plan.includePadding = desc.IncludePadding != 0;
    plan.batch = output.sizes[0];
    plan.channels = output.sizes[1];
    for (uint32_t i = 0; i < dims; ++i) {
        const uint32_t at = 3 - dims + i;
        plan.inSize[at] = input.sizes[2 + i];
        plan.outSize[at] = output.sizes[2 + i];
        plan.stride[at] = desc.Strides[i];
        plan.window[at] = desc.WindowSize[i];
        plan.dilation[at] = desc.Dilations[i];
        plan.pad[at] = desc.StartPadding[i];
    }
    std::array<int, quantized::kSlots> slots{0, 1, 2, 3, 4, -1, -1, -1, -1};
    for (size_t i = 0; i < 5; ++i) {
        FREEDML_TRY(MakeOperand(args.inputs[i], &plan.in[i]));
        if (!args.inputs[i]) slots[i] = -1;
    }
    AlignSpatial(input, dims, &plan.in[0]);
    FREEDML_TRY(MakeOperand(args.outputs[0], &plan.out));
    AlignSpatial(output, dims, &plan.out);
    auto launch = [](const quantized::PoolPlan& p, const void* const* in, void* o, LaunchTarget target) {
        return quantized::LaunchQuantizedPool(p, in, o, target);
    };
    *out = MakeKernel(args.schema.name, plan, slots, +launch);
    return {};
}

Status CreateCudaDynamicQuantize(const KernelContext&, const OperatorArgs& args, std::unique_ptr<Kernel>* out) {
    quantized::DynamicQuantizePlan plan;
    const TensorDesc& input = *args.inputs[0];
    plan.rank = int(input.rank);
    for (uint32_t d = 0; d < input.rank; ++d) plan.sizes[d] = input.sizes[d];
    plan.count = input.ElementCount();
    FREEDML_TRY(MakeOperand(args.inputs[0], &plan.in));
    FREEDML_TRY(MakeOperand(args.outputs[0], &plan.out));
    for (uint32_t d = 0; d < input.rank; ++d) {
        plan.in.strides[d] = input.strides[d];
        plan.out.strides[d] = args.outputs[0]->strides[d];
    }
    *out = std::make_unique<DynamicQuantizeKernel>(plan);
    return {};
}

}  // namespace freedml::dml::cuda
