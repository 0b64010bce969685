// The CPU kernel set: the CPU column of the operator table (dml/ops/operators.def).
#include "dml/kernel.h"

namespace freedml::dml {

namespace cpu {

// Each factory the table's CPU column names, declared here with the one signature they share.
#define FREEDML_DECLARE_FACTORY(...) \
    __VA_OPT__(Status __VA_ARGS__(const KernelContext&, const OperatorArgs&, std::unique_ptr<Kernel>*);)
#define FREEDML_OPERATOR(TYPE, CPU, CUDA) FREEDML_DECLARE_FACTORY(CPU)
#include "dml/ops/operators.def"
#undef FREEDML_OPERATOR

// A compiled graph's fused element-wise pass (fused_elementwise.cpp).
Status CreateFusedElementwise(const KernelContext&, const EwProgram&, std::unique_ptr<Kernel>*);

namespace {

constexpr KernelSet::Row kRows[] = {
#define FREEDML_OPERATOR(TYPE, CPU, CUDA) {DML_OPERATOR_##TYPE, CPU},
#include "dml/ops/operators.def"
#undef FREEDML_OPERATOR
};
#undef FREEDML_DECLARE_FACTORY

}  // namespace

}  // namespace cpu

const KernelSet& CpuKernels() {
    static const KernelSet kernels("CPU", ".", cpu::kRows, GraphHooks{cpu::CreateFusedElementwise, nullptr});
    return kernels;
}

}  // namespace freedml::dml
