// CUDA factory of RNN, LSTM and GRU: the shared plan (../recurrent_plan.h) in the device code's
// terms, launched on the queue's stream (recurrent_ops.cu).
#include "dml/kernels/cuda/cuda_common.h"
#include "dml/ops/recurrent/cuda/recurrent_device.h"
#include "dml/ops/recurrent/recurrent_plan.h"

namespace freedml::dml::cuda {

namespace {

class RecurrentCudaKernel final : public Kernel {
public:
    RecurrentCudaKernel(const char* name, RecurrentDevicePlan plan, int inputIndex[8], int outputCount)
        : name_(name), plan_(plan), outputCount_(outputCount) {
        for (int i = 0; i < 8; ++i) inputIndex_[i] = inputIndex[i];
    }
    uint64_t PersistentResourceSize() const override { return 0; }
    uint64_t TemporaryResourceSize() const override { return RecurrentTemporaryFloats(plan_) * sizeof(float); }
    void Initialize(const KernelBindings&) override {}
    void Execute(const KernelBindings& b) override {
        CudaStream& stream = StreamOf(b);
        RecurrentPointers pointers;
        for (int i = 0; i < 8; ++i) {
            if (inputIndex_[i] >= 0 && plan_.present[i]) pointers.in[i] = b.inputs[inputIndex_[i]];
        }
        for (int i = 0; i < outputCount_; ++i) {
            if (plan_.present[8 + i]) pointers.out[i] = b.outputs[i];
        }
        pointers.temporary = reinterpret_cast<float*>(b.temporary);
        stream.Check(LaunchRecurrent(plan_, pointers, stream.Launch()), name_);
    }

private:
    const char* name_;
    RecurrentDevicePlan plan_;
    int inputIndex_[8];
    int outputCount_;
};

}  // namespace

Status CreateCudaRecurrent(const KernelContext&, const OperatorArgs& args, std::unique_ptr<Kernel>* kernel) {
    const RecurrentPlan plan = MakeRecurrentPlan(args);
    RecurrentDevicePlan device;
    device.cell = plan.cell == RecurrentCell::Rnn ? 0 : plan.cell == RecurrentCell::Lstm ? 1 : 2;
    device.gates = int(plan.gates);
    device.seq = int(plan.seq), device.batch = int(plan.batch), device.input = int(plan.input);
    device.hidden = int(plan.hidden), device.dirs = int(plan.dirs);
    device.backward[0] = plan.backward[0], device.backward[1] = plan.backward[1];
    device.half = plan.dataType == DML_TENSOR_DATA_TYPE_FLOAT16;
    device.useClip = plan.useClip, device.clip = plan.clip;
    device.couple = plan.coupleInputForget, device.linearBeforeReset = plan.linearBeforeReset;
    for (uint32_t d = 0; d < plan.dirs; ++d) {
        for (int a = 0; a < 3; ++a) {
            if (plan.activations[d][a].type == DML_OPERATOR_INVALID) continue;
            FREEDML_TRY(ToActParams(plan.activations[d][a], &device.act[d][a]));
        }
    }
    // The device plan's slots: x, w, r, bias, h0, c0, lengths, peephole; then y, yh, yc.
    int inputIndex[8] = {0, 1, 2, plan.bias, plan.hiddenInit, plan.cellInit, plan.sequenceLengths, plan.peephole};
    for (int i = 0; i < 8; ++i) {
        const int index = inputIndex[i];
        if (index < 0 || !args.inputs[index]) continue;
        device.present[i] = true;
        for (int k = 0; k < 4; ++k) device.strides[i][k] = args.inputs[index]->strides[k];
    }
    for (size_t o = 0; o < args.outputs.size(); ++o) {
        if (!args.outputs[o]) continue;
        device.present[8 + o] = true;
        for (int k = 0; k < 4; ++k) device.strides[8 + o][k] = args.outputs[o]->strides[k];
    }
    *kernel = std::make_unique<RecurrentCudaKernel>(args.schema.name, device, inputIndex, int(args.outputs.size()));
    return {};
}

}  // namespace freedml::dml::cuda
