// The CUDA kernel of a compiled graph's fused element-wise pass (graph/ew_program.h): the program
// as the graph optimizer made it, with each Activation instruction's op set to the CUDA Act that
// Activate (activation.cuh) computes, launched once per execution.
#include <DirectML.h>

#include "dml/kernels/cuda/cuda_common.h"
#include "dml/kernels/cuda/fused_elementwise.cuh"
#include "dml/ops/activation/activation_params.h"

namespace freedml::dml::cuda {

namespace {

class FusedElementwiseKernel final : public Kernel {
public:
    explicit FusedElementwiseKernel(const EwProgram& program) : program_(program) {}
    uint64_t PersistentResourceSize() const override { return 0; }
    uint64_t TemporaryResourceSize() const override { return 0; }
    void Initialize(const KernelBindings&) override {}
    bool ReplaySafe() const override { return true; }
    void Execute(const KernelBindings& b) override {
        CudaStream& stream = StreamOf(b);
        FusedOperands operands;
        operands.output = reinterpret_cast<float*>(b.outputs[0]);
        for (uint32_t k = 0; k < program_.inputCount; ++k) operands.inputs[k] = reinterpret_cast<const float*>(b.inputs[k]);
        stream.Check(LaunchFusedElementwise(program_, operands, stream.Launch()), "the fused element-wise pass");
    }

private:
    EwProgram program_;
};

}  // namespace

Status CreateCudaFusedElementwise(const KernelContext&, const EwProgram& program, std::unique_ptr<Kernel>* out) {
    EwProgram planned = program;
    for (uint32_t i = 0; i < planned.instructionCount; ++i) {
        EwInstruction& in = planned.instructions[i];
        if (in.code != EwCode::Activation) continue;
        ActivationParams params;
        params.type = static_cast<DML_OPERATOR_TYPE>(in.activationType);
        params.alpha = in.p0;
        params.beta = in.p1;
        params.gamma = in.p2;
        ActParams act;
        FREEDML_TRY(ToActParams(params, &act));
        in.op = static_cast<uint8_t>(act.act);
        in.p0 = act.alpha;
        in.p1 = act.beta;
        in.p2 = act.gamma;
    }
    *out = std::make_unique<FusedElementwiseKernel>(planned);
    return {};
}

}  // namespace freedml::dml::cuda
