// The CPU kernel factories of the binary element-wise family (ADD and ADD1 included) and of the
// quantization operators (binary_kernels.h), adapted to the binding model's Kernel interface.
#include "dml/kernels/cpu/kernel_adapter.h"
#include "dml/ops/elementwise_binary/cpu/binary_kernels.h"

namespace freedml::dml::cpu {

namespace {

bool BinaryOpOf(DML_OPERATOR_TYPE type, BinaryOp* op) {
    switch (type) {
        case DML_OPERATOR_ELEMENT_WISE_ADD: *op = BinaryOp::Add; return true;
        case DML_OPERATOR_ELEMENT_WISE_ADD1: *op = BinaryOp::Add; return true;
        case DML_OPERATOR_ELEMENT_WISE_SUBTRACT: *op = BinaryOp::Subtract; return true;
        case DML_OPERATOR_ELEMENT_WISE_MULTIPLY: *op = BinaryOp::Multiply; return true;
        case DML_OPERATOR_ELEMENT_WISE_DIVIDE: *op = BinaryOp::Divide; return true;
        case DML_OPERATOR_ELEMENT_WISE_MIN: *op = BinaryOp::Min; return true;
        case DML_OPERATOR_ELEMENT_WISE_MAX: *op = BinaryOp::Max; return true;
        case DML_OPERATOR_ELEMENT_WISE_MEAN: *op = BinaryOp::Mean; return true;
        case DML_OPERATOR_ELEMENT_WISE_ATAN_YX: *op = BinaryOp::AtanYX; return true;
        case DML_OPERATOR_ELEMENT_WISE_DIFFERENCE_SQUARE: *op = BinaryOp::DifferenceSquare; return true;
        case DML_OPERATOR_ELEMENT_WISE_MODULUS_FLOOR: *op = BinaryOp::ModulusFloor; return true;
        case DML_OPERATOR_ELEMENT_WISE_MODULUS_TRUNCATE: *op = BinaryOp::ModulusTruncate; return true;
        case DML_OPERATOR_ELEMENT_WISE_BIT_AND: *op = BinaryOp::BitAnd; return true;
        case DML_OPERATOR_ELEMENT_WISE_BIT_OR: *op = BinaryOp::BitOr; return true;
        case DML_OPERATOR_ELEMENT_WISE_BIT_XOR: *op = BinaryOp::BitXor; return true;
        case DML_OPERATOR_ELEMENT_WISE_BIT_SHIFT_LEFT: *op = BinaryOp::ShiftLeft; return true;
        case DML_OPERATOR_ELEMENT_WISE_BIT_SHIFT_RIGHT: *op = BinaryOp::ShiftRight; return true;
        case DML_OPERATOR_ELEMENT_WISE_LOGICAL_AND: *op = BinaryOp::LogicalAnd; return true;
        case DML_OPERATOR_ELEMENT_WISE_LOGICAL_OR: *op = BinaryOp::LogicalOr; return true;
        case DML_OPERATOR_ELEMENT_WISE_LOGICAL_XOR: *op = BinaryOp::LogicalXor; return true;
        case DML_OPERATOR_ELEMENT_WISE_LOGICAL_EQUALS: *op = BinaryOp::Equals; return true;
        case DML_OPERATOR_ELEMENT_WISE_LOGICAL_GREATER_THAN: *op = BinaryOp::GreaterThan; return true;
        case DML_OPERATOR_ELEMENT_WISE_LOGICAL_LESS_THAN: *op = BinaryOp::LessThan; return true;
        case DML_OPERATOR_ELEMENT_WISE_LOGICAL_GREATER_THAN_OR_EQUAL: *op = BinaryOp::GreaterThanOrEqual; return true;
        case DML_OPERATOR_ELEMENT_WISE_LOGICAL_LESS_THAN_OR_EQUAL: *op = BinaryOp::LessThanOrEqual; return true;
        case DML_OPERATOR_ELEMENT_WISE_POW: *op = BinaryOp::Pow; return true;
        default: return false;
    }
}

}  // namespace

Status CreateCpuBinary(const KernelContext&, const OperatorArgs& args, std::unique_ptr<Kernel>* out) {
    BinaryOp op;
    if (!BinaryOpOf(args.schema.type, &op)) {
        return NoKernel("DML_OPERATOR_%s is not a binary arithmetic operator.", args.schema.name);
    }
    BinaryParams params;
    params.op = op;
    params.a = *args.inputs[0];
    params.b = *args.inputs[1];
    params.output = *args.outputs[0];
    if (op == BinaryOp::Pow) {
        const auto& desc = args.As<DML_ELEMENT_WISE_POW_OPERATOR_DESC>();
        params.hasScaleBias = desc.ScaleBias != nullptr;
        if (desc.ScaleBias) params.scaleBias = *desc.ScaleBias;
    }
    if (args.schema.type == DML_OPERATOR_ELEMENT_WISE_ADD1) {
        FREEDML_TRY(MakeFusedActivation(args.As<DML_ELEMENT_WISE_ADD1_OPERATOR_DESC>().FusedActivation,
                                             &params.activation));
    }
    BinaryKernel kernel;
    FREEDML_TRY(kernel.Create(params));
    const OperatorArgs* a = &args;  // the operator outlives its compiled kernels
    *out = MakeStateless(std::move(kernel), [a](const BinaryKernel& k, const KernelBindings& b) {
        k.Execute(ViewOf(a->inputs, b.inputs, 0), ViewOf(a->inputs, b.inputs, 1), ViewOf(a->outputs, b.outputs, 0));
    });
    return {};
}

// QUANTIZE_LINEAR / DEQUANTIZE_LINEAR (input, scale, zero point) and QUANTIZE / DEQUANTIZE (input,
// then the quantization tensors: scale, and the zero point for SCALE_ZERO_POINT) bind alike.
namespace {

template <class Impl>
Status CreateQuantizeKernel(const OperatorArgs& args, std::unique_ptr<Kernel>* out) {
    QuantizeParams params;
    params.input = *args.inputs[0];
    params.scale = *args.inputs[1];
    if (args.inputs.size() > 2) params.zeroPoint = args.inputs[2];
    params.output = *args.outputs[0];
    Impl kernel;
    FREEDML_TRY(kernel.Create(params));
    const OperatorArgs* a = &args;
    *out = MakeStateless(std::move(kernel), [a](const Impl& k, const KernelBindings& b) {
        k.Execute(ViewOf(a->inputs, b.inputs, 0), ViewOf(a->inputs, b.inputs, 1), ViewOf(a->inputs, b.inputs, 2),
                  ViewOf(a->outputs, b.outputs, 0));
    });
    return {};
}

}  // namespace

Status CreateCpuQuantize(const KernelContext&, const OperatorArgs& args, std::unique_ptr<Kernel>* out) {
    return CreateQuantizeKernel<QuantizeKernel>(args, out);
}

Status CreateCpuDequantize(const KernelContext&, const OperatorArgs& args, std::unique_ptr<Kernel>* out) {
    return CreateQuantizeKernel<DequantizeKernel>(args, out);
}

Status CreateCpuQuantizedAdd(const KernelContext&, const OperatorArgs& args, std::unique_ptr<Kernel>* out) {
    QuantizedAddParams params;
    params.a = *args.inputs[0];
    params.aScale = *args.inputs[1];
    params.aZeroPoint = args.inputs[2];
    params.b = *args.inputs[3];
    params.bScale = *args.inputs[4];
    params.bZeroPoint = args.inputs[5];
    params.outputScale = *args.inputs[6];
    params.outputZeroPoint = args.inputs[7];
    params.output = *args.outputs[0];
    QuantizedAddKernel kernel;
    FREEDML_TRY(kernel.Create(params));
    const OperatorArgs* a = &args;
    *out = MakeStateless(std::move(kernel), [a](const QuantizedAddKernel& k, const KernelBindings& b) {
        std::array<TensorView, 8> inputs;
        for (size_t i = 0; i < inputs.size(); ++i) inputs[i] = ViewOf(a->inputs, b.inputs, i);
        k.Execute(inputs, ViewOf(a->outputs, b.outputs, 0));
    });
    return {};
}

}  // namespace freedml::dml::cpu
