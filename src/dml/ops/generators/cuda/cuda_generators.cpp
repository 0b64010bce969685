// CUDA kernels of the generator family (dml/ops/generators), planned by plan.cpp (shared with the
// CPU kernels) and launched on the queue's stream.
#include "dml/kernels/cuda/cuda_common.h"
#include "dml/ops/generators/cuda/generator_launch.h"
#include "dml/ops/generators/generator_args.h"

namespace freedml::dml::cuda {

namespace {

class GeneratorKernel final : public Kernel {
public:
    GeneratorKernel(const char* name, generators::GenPlan plan, int64_t onOffset)
        : name_(name), plan_(plan), onOffset_(onOffset) {}
    uint64_t PersistentResourceSize() const override { return 0; }
    uint64_t TemporaryResourceSize() const override { return 0; }
    void Initialize(const KernelBindings&) override {}
    void Execute(const KernelBindings& b) override {
        CudaStream& stream = StreamOf(b);
        const bool oneHot = plan_.mode == generators::GenMode::OneHot;
        const void* source = plan_.hasSource ? b.inputs[0] : nullptr;
        const void* values = oneHot ? b.inputs[1] : nullptr;
        stream.Check(LaunchGenerator(plan_, b.outputs[0], source, values, onOffset_, stream.Launch()), name_);
    }

private:
    const char* name_;
    generators::GenPlan plan_;
    int64_t onOffset_;
};

Status Create(const OperatorArgs& args, std::unique_ptr<Kernel>* out) {
    generators::GenPlan plan;
    FREEDML_TRY(generators::MakeGenPlan(args, &plan));
    const int64_t onOffset =
        plan.mode == generators::GenMode::OneHot ? generators::OnValueOffset(*args.inputs[1]) : 0;
    *out = std::make_unique<GeneratorKernel>(args.schema.name, plan, onOffset);
    return {};
}

class NonzeroKernel final : public Kernel {
public:
    explicit NonzeroKernel(generators::NonzeroPlan plan) : plan_(plan) {}
    uint64_t PersistentResourceSize() const override { return 0; }
    uint64_t TemporaryResourceSize() const override { return 0; }
    void Initialize(const KernelBindings&) override {}
    void Execute(const KernelBindings& b) override {
        CudaStream& stream = StreamOf(b);
        stream.Check(LaunchNonzero(plan_, b.outputs[0], b.outputs[1], b.inputs[0], stream.Launch()),
                     "NONZERO_COORDINATES");
    }

private:
    generators::NonzeroPlan plan_;
};

class RandomKernel final : public Kernel {
public:
    explicit RandomKernel(generators::RandomPlan plan) : plan_(plan) {}
    uint64_t PersistentResourceSize() const override { return 0; }
    uint64_t TemporaryResourceSize() const override { return 0; }
    void Initialize(const KernelBindings&) override {}
    void Execute(const KernelBindings& b) override {
        CudaStream& stream = StreamOf(b);
        void* next = plan_.writesState ? b.outputs[1] : nullptr;
        stream.Check(LaunchRandom(plan_, b.outputs[0], next, b.inputs[0], stream.Launch()), "RANDOM_GENERATOR");
    }

private:
    generators::RandomPlan plan_;
};

}  // namespace

Status CreateCudaRandomGenerator(const KernelContext&, const OperatorArgs& args, std::unique_ptr<Kernel>* out) {
    *out = std::make_unique<RandomKernel>(generators::MakeRandomPlan(args));
    return {};
}

Status CreateCudaNonzeroCoordinates(const KernelContext&, const OperatorArgs& args, std::unique_ptr<Kernel>* out) {
    *out = std::make_unique<NonzeroKernel>(generators::MakeNonzeroPlan(args));
    return {};
}

Status CreateCudaOneHot(const KernelContext&, const OperatorArgs& args, std::unique_ptr<Kernel>* out) {
    return Create(args, out);
}

Status CreateCudaDiagonalMatrix(const KernelContext&, const OperatorArgs& args, std::unique_ptr<Kernel>* out) {
    return Create(args, out);
}

}  // namespace freedml::dml::cuda
