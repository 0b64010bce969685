#include "dml/compiled_operator.h"

#include <algorithm>

#include "common/align.h"

namespace freedml::dml {

namespace {
constexpr DML_EXECUTION_FLAGS kKnownExecutionFlags = static_cast<DML_EXECUTION_FLAGS>(
    DML_EXECUTION_FLAG_ALLOW_HALF_PRECISION_COMPUTATION | DML_EXECUTION_FLAG_DISABLE_META_COMMANDS |
    DML_EXECUTION_FLAG_DESCRIPTORS_VOLATILE);

// Places a copy of every owned input the kernel does not pack after the kernel's own persistent
// bytes; returns the persistent resource's size. Each copy starts at a multiple of
// DML_PERSISTENT_BUFFER_ALIGNMENT (and of the tensor's GuaranteedBaseOffsetAlignment), so it is
// as aligned as a binding of that tensor could be (V3).
uint64_t PlanOwnedInputCopies(const OperatorArgs& args, const Kernel& kernel, std::vector<OwnedInputCopy>* copies) {
    uint64_t size = kernel.PersistentResourceSize();
    for (size_t i = 0; i < args.inputs.size(); ++i) {
        if (!args.inputs[i] || !args.inputs[i]->OwnedByDml() || kernel.PacksOwnedInput(i)) continue;
        const TensorDesc& tensor = *args.inputs[i];
        OwnedInputCopy copy;
        copy.input = i;
        const uint64_t alignment =
            std::max<uint64_t>(DML_PERSISTENT_BUFFER_ALIGNMENT, tensor.RequiredOffsetAlignment());
        copy.offset = AlignUp(size, alignment);
        copy.bytes = tensor.MinimumSizeInBytes();
        size = copy.offset + copy.bytes;
        copies->push_back(copy);
    }
    return size;
}

}  // namespace

CompiledOperator::CompiledOperator(Device& device, Operator& op, DML_EXECUTION_FLAGS flags,
                                   std::unique_ptr<Kernel> kernel)
    : DeviceChild(device), operator_(&op), flags_(flags), kernel_(std::move(kernel)) {
    const OperatorArgs& args = op.Args();
    auto snapshot = std::make_shared<DispatchableSnapshot>();
    DispatchableBindingInfo& info = snapshot->info;
    info.isInitializer = false;
    info.supportsInPlaceExecution = args.schema.supportsInPlaceExecution;
    for (size_t i = 0; i < args.inputs.size(); ++i) {
        info.inputs.push_back(args.inputs[i] ? &*args.inputs[i] : nullptr);
        info.inputNames.push_back(args.inputNames[i]);
    }
    for (size_t i = 0; i < args.outputs.size(); ++i) {
        info.outputs.push_back(args.outputs[i] ? &*args.outputs[i] : nullptr);
        info.outputNames.push_back(args.outputNames[i]);
    }
    snapshot->layout = MakeDescriptorLayout(info);
    info.properties.RequiredDescriptorCount = snapshot->layout.total;
    info.properties.TemporaryResourceSize = kernel_->TemporaryResourceSize();
    info.properties.PersistentResourceSize = PlanOwnedInputCopies(args, *kernel_, &ownedCopies_);
    info.description = "compiled " + op.Describe();
    snapshot->operators.push_back(this);
    snapshot_ = std::move(snapshot);
    operator_->AddRef();  // last: a throw above must leave the operator's count as it was
}

CompiledOperator::~CompiledOperator() { operator_->Release(); }

Status CompiledOperator::Create(Device& device, Operator& op, uint32_t rawFlags, CompiledOperator** created) {
    const uint32_t known = kKnownExecutionFlags;
    INVALID_IF((rawFlags & ~known) != 0,
               "DML_EXECUTION_FLAGS (0x%x) has bits FreeDML does not know (0x%x); the known flags are 0x%x.",
               rawFlags, rawFlags & ~known, known);
    const auto flags = static_cast<DML_EXECUTION_FLAGS>(rawFlags);
    std::unique_ptr<Kernel> kernel;
    // The kernel comes from the kernels of the device's backend: its own (the CUDA plugin's), or
    // libdirectml's CPU kernels for a backend whose memory is host memory.
    backend::Device& backend = device.D3D12().Backend();
    const KernelSet& kernels = backend.DmlKernels() ? *backend.DmlKernels() : CpuKernels();
    FREEDML_TRY_CONTEXT(kernels.Create(KernelContext{backend, flags}, op.Args(), &kernel),
                        "compiling a %s for adapter '%s'", op.Describe().c_str(), backend.Info().description.c_str());
    *created = new CompiledOperator(device, op, flags, std::move(kernel));
    return {};
}

DML_BINDING_PROPERTIES CompiledOperator::GetBindingProperties() { return snapshot_->info.properties; }

std::string CompiledOperator::Describe() const {
    return "compiled " + std::string(operator_->Schema().name) + " operator" + NameSuffix();
}

}  // namespace freedml::dml
