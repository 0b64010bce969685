// KernelSet: one backend's factories, indexed by operator type. Built from the operator table
// (dml/ops/operators.def) by each backend, in libdirectml for the CPU and in the CUDA plugin.
#include "dml/kernel.h"

namespace freedml::dml {

KernelSet::KernelSet(const char* backendName, const char* noKernelHint, std::span<const Row> rows,
                     Status (*finish)(const OperatorArgs& args, std::unique_ptr<Kernel>* kernel))
    : backendName_(backendName), noKernelHint_(noKernelHint), finish_(finish) {
    for (const Row& row : rows) {
        const int index = static_cast<int>(row.type);
        if (index >= 0 && index < kTypeCount) factories_[index] = row.factory;
    }
}

Status KernelSet::Create(const KernelContext& context, const OperatorArgs& args,
                         std::unique_ptr<Kernel>* kernel) const {
    KernelFactory factory = FactoryOf(args.schema.type);
    if (!factory) {
        return NoKernel("FreeDML has no %s kernel for DML_OPERATOR_%s yet%s", backendName_, args.schema.name,
                        noKernelHint_);
    }
    FREEDML_TRY(factory(context, args, kernel));
    return finish_ ? finish_(args, kernel) : Status{};
}

}  // namespace freedml::dml
