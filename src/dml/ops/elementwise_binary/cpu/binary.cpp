// The CPU kernel factories of the binary element-wise family (ADD and ADD1 included) and of the
// quantization operators (binary_kernels.h), adapted to the binding model's Kernel interface.
#include "dml/kernels/cpu/kernel_adapter.h"
#include "dml/kernels/cpu/thread_pool.h"
#include "dml/ops/elementwise_binary/binary_decode.h"
#include "dml/ops/elementwise_binary/cpu/binary_kernels.h"

namespace freedml::dml::cpu {

namespace {

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
        FREEDML_TRY(DecodeFusedActivation(args.As<DML_ELEMENT_WISE_ADD1_OPERATOR_DESC>().FusedActivation,
                                             &params.activation));
    }
    BinaryKernel kernel;
    FREEDML_TRY(kernel.Create(params));
    const OperatorArgs* a = &args;  // the operator outlives its compiled kernels
    *out = MakeStateless(std::move(kernel), [a](const BinaryKernel& k, const KernelBindings& b) {
        k.Execute(HostThreads(b), ViewOf(a->inputs, b.inputs, 0), ViewOf(a->inputs, b.inputs, 1),
                  ViewOf(a->outputs, b.outputs, 0));
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
        k.Execute(HostThreads(b), ViewOf(a->inputs, b.inputs, 0), ViewOf(a->inputs, b.inputs, 1),
                  ViewOf(a->inputs, b.inputs, 2), ViewOf(a->outputs, b.outputs, 0));
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
        k.Execute(HostThreads(b), inputs, ViewOf(a->outputs, b.outputs, 0));
    });
    return {};
}

}  // namespace freedml::dml::cpu
