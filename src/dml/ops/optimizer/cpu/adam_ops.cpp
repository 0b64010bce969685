// CPU kernel of ADAM_OPTIMIZER: one strided loop over the seven element-wise tensors (three
// outputs, four inputs) on the host threads, each element computed by adam_math.h. Every input
// element is read before its outputs are written, so an output bound in place of its input (the
// same region and layout, H2) updates it correctly.
#include <array>
#include <cstring>
#include <memory>

#include "dml/kernel.h"
#include "dml/kernels/cpu/float16.h"
#include "dml/kernels/cpu/thread_pool.h"
#include "dml/ops/optimizer/adam_math.h"

namespace freedml::dml {

namespace {

// Operands of the loop: outputs X, M, V, then inputs X, M, V, G.
constexpr size_t kOperands = 7;

template <bool kHalf>
float Load(const std::byte* p) {
    if constexpr (kHalf) {
        uint16_t v;
        std::memcpy(&v, p, 2);
        return cpu::HalfToFloat(v);
    } else {
        float v;
        std::memcpy(&v, p, 4);
        return v;
    }
}

template <bool kHalf>
void Store(std::byte* p, float value) {
    if constexpr (kHalf) {
        const uint16_t v = cpu::FloatToHalf(value);
        std::memcpy(p, &v, 2);
    } else {
        std::memcpy(p, &value, 4);
    }
}

class AdamKernel final : public Kernel {
public:
    explicit AdamKernel(const OperatorArgs& args) {
        const auto& desc = args.As<DML_ADAM_OPTIMIZER_OPERATOR_DESC>();
        params_ = {desc.LearningRate, desc.Beta1, desc.Beta2, desc.Epsilon};
        const TensorDesc& out = *args.outputs[0];
        half_ = out.dataType == DML_TENSOR_DATA_TYPE_FLOAT16;
        stepUint32_ = args.inputs[4]->dataType == DML_TENSOR_DATA_TYPE_UINT32;
        const uint32_t size = half_ ? 2 : 4;
        plan_ = cpu::MakeLoopPlan<kOperands>(
            out.sizes.data(), out.rank,
            {args.outputs[0]->strides.data(), args.outputs[1]->strides.data(), args.outputs[2]->strides.data(),
             args.inputs[0]->strides.data(), args.inputs[1]->strides.data(), args.inputs[2]->strides.data(),
             args.inputs[3]->strides.data()},
            {size, size, size, size, size, size, size});
    }

    uint64_t PersistentResourceSize() const override { return 0; }
    uint64_t TemporaryResourceSize() const override { return 0; }
    void Initialize(const KernelBindings&) override {}

    void Execute(const KernelBindings& b) override {
        // TrainingStepTensor holds one element, at the start of its binding.
        float step = 0;
        if (stepUint32_) {
            uint32_t count;
            std::memcpy(&count, b.inputs[4], sizeof(count));
            step = float(count);
        } else {
            step = half_ ? Load<true>(b.inputs[4]) : Load<false>(b.inputs[4]);
        }
        const float rate = float(double(params_.learningRate) * adam::BiasCorrection(params_, step));
        const std::array<std::byte*, kOperands> bases = {b.outputs[0], b.outputs[1], b.outputs[2], b.inputs[0],
                                                         b.inputs[1],  b.inputs[2],  b.inputs[3]};
        if (half_) {
            Run<true>(b, bases, rate);
        } else {
            Run<false>(b, bases, rate);
        }
    }

private:
    template <bool kHalf>
    void Run(const KernelBindings& b, const std::array<std::byte*, kOperands>& bases, float rate) const {
        const adam::AdamParams params = params_;
        cpu::ParallelLoop(
            cpu::HostThreads(b), plan_, bases,
            [&](const std::array<std::byte*, kOperands>& p, uint64_t n, const std::array<int64_t, kOperands>& s) {
                for (uint64_t i = 0; i < n; ++i) {
                    const int64_t at = int64_t(i);
                    const adam::AdamResult r =
                        adam::Step(params, rate, Load<kHalf>(p[3] + at * s[3]), Load<kHalf>(p[4] + at * s[4]),
                                   Load<kHalf>(p[5] + at * s[5]), Load<kHalf>(p[6] + at * s[6]));
                    Store<kHalf>(p[0] + at * s[0], r.x);
                    Store<kHalf>(p[1] + at * s[1], r.m);
                    Store<kHalf>(p[2] + at * s[2], r.v);
                }
            },
            1u << 14);
    }

    adam::AdamParams params_;
    bool half_ = false;
    bool stepUint32_ = false;  // TrainingStepTensor is UINT32 (else the parameters' type)
    cpu::LoopPlan<kOperands> plan_;
};

}  // namespace

namespace cpu {

Status CreateCpuAdamOptimizer(const KernelContext&, const OperatorArgs& args, std::unique_ptr<Kernel>* kernel) {
    *kernel = std::make_unique<AdamKernel>(args);
    return {};
}

}  // namespace cpu

}  // namespace freedml::dml
