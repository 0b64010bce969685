#include "dml/compiled_operator.h"

#include <algorithm>

#include "common/align.h"
#include "common/trace.h"

namespace freedml::dml {

namespace {
constexpr DML_EXECUTION_FLAGS kKnownExecutionFlags = static_cast<DML_EXECUTION_FLAGS>(
    DML_EXECUTION_FLAG_ALLOW_HALF_PRECISION_COMPUTATION | DML_EXECUTION_FLAG_DISABLE_META_COMMANDS |
    DML_EXECUTION_FLAG_DESCRIPTORS_VOLATILE);

// Places a copy of every owned input the kernel does not pack after the kernel's own persistent
// bytes; returns the persistent resource's size. Each copy starts at a multiple of
// DML_PERSISTENT_BUFFER_ALIGNMENT (and of the tensor's GuaranteedBaseOffsetAlignment), so it is
// as aligned as a binding of that tensor could be (V3).
uint64_t PlanOwnedInputCopies(const std::vector<const TensorDesc*>& inputs, const Kernel& kernel,
                              std::vector<OwnedInputCopy>* copies) {
    uint64_t size = kernel.PersistentResourceSize();
    for (size_t i = 0; i < inputs.size(); ++i) {
        if (!inputs[i] || !inputs[i]->OwnedByDml() || kernel.PacksOwnedInput(i)) continue;
        const TensorDesc& tensor = *inputs[i];
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

CompiledOperator::CompiledOperator(Device& device, CompiledInterface shape, DML_EXECUTION_FLAGS flags,
                                   std::unique_ptr<Kernel> kernel)
    : DeviceChild(device), shape_(std::move(shape)), flags_(flags), kernel_(std::move(kernel)) {
    auto snapshot = std::make_shared<DispatchableSnapshot>();
    DispatchableBindingInfo& info = snapshot->info;
    info.isInitializer = false;
    info.supportsInPlaceExecution = shape_.supportsInPlaceExecution;
    info.inputs = shape_.inputs;
    info.inputNames = shape_.inputNames;
    info.outputs = shape_.outputs;
    info.outputNames = shape_.outputNames;
    snapshot->layout = MakeDescriptorLayout(info);
    info.properties.RequiredDescriptorCount = snapshot->layout.total;
    info.properties.TemporaryResourceSize = kernel_->TemporaryResourceSize();
    info.properties.PersistentResourceSize = PlanOwnedInputCopies(shape_.inputs, *kernel_, &ownedCopies_);
    info.description = "compiled " + shape_.subject;
    snapshot->operators.push_back(this);
    snapshot_ = std::move(snapshot);
}

Status ValidateExecutionFlags(uint32_t rawFlags, DML_EXECUTION_FLAGS* flags) {
    const uint32_t known = kKnownExecutionFlags;
    INVALID_IF((rawFlags & ~known) != 0,
               "DML_EXECUTION_FLAGS (0x%x) has bits FreeDML does not know (0x%x); the known flags are 0x%x.",
               rawFlags, rawFlags & ~known, known);
    *flags = static_cast<DML_EXECUTION_FLAGS>(rawFlags);
    return {};
}

Status CreateKernelFor(Device& device, const Operator& op, DML_EXECUTION_FLAGS flags, std::unique_ptr<Kernel>* kernel) {
    backend::Device& backend = device.D3D12().Backend();
    const KernelSet& kernels = backend.DmlKernels() ? *backend.DmlKernels() : CpuKernels();
    FREEDML_TRY_CONTEXT(kernels.Create(KernelContext{backend, flags}, op.Args(), kernel),
                        "compiling a %s for adapter '%s'", op.Describe().c_str(), backend.Info().description.c_str());
    return {};
}

Status CompiledOperator::Create(Device& device, Operator& op, uint32_t rawFlags, CompiledOperator** created) {
    DML_EXECUTION_FLAGS flags = DML_EXECUTION_FLAG_NONE;
    FREEDML_TRY(ValidateExecutionFlags(rawFlags, &flags));
    std::unique_ptr<Kernel> kernel;
    FREEDML_TRY(CreateKernelFor(device, op, flags, &kernel));
    const OperatorArgs& args = op.Args();
    CompiledInterface shape;
    shape.supportsInPlaceExecution = args.schema.supportsInPlaceExecution;
    for (size_t i = 0; i < args.inputs.size(); ++i) {
        shape.inputs.push_back(args.inputs[i] ? &*args.inputs[i] : nullptr);
        shape.inputNames.push_back(args.inputNames[i]);
    }
    for (size_t i = 0; i < args.outputs.size(); ++i) {
        shape.outputs.push_back(args.outputs[i] ? &*args.outputs[i] : nullptr);
        shape.outputNames.push_back(args.outputNames[i]);
    }
    shape.what = std::string(op.Schema().name) + " operator";
    shape.subject = op.Describe();
    shape.operators.push_back(Ref<Operator>::Share(&op));
    return Create(device, std::move(shape), flags, std::move(kernel), created);
}

Status CompiledOperator::Create(Device& device, CompiledInterface shape, DML_EXECUTION_FLAGS flags,
                                std::unique_ptr<Kernel> kernel, CompiledOperator** created) {
    *created = new CompiledOperator(device, std::move(shape), flags, std::move(kernel));
    return {};
}

DML_BINDING_PROPERTIES CompiledOperator::GetBindingProperties() { FREEDML_TRACE_DML("IDMLCompiledOperator::GetBindingProperties", this); return snapshot_->info.properties; }

std::string CompiledOperator::Describe() const { return "compiled " + shape_.what + NameSuffix(); }

}  // namespace freedml::dml
