#include "dml/dispatch.h"

#include "dml/capture.h"
#include "dml/compiled_operator.h"
#include "dml/resolver.h"

namespace freedml::dml {

namespace {

// The bindings a dispatch reads back from its descriptors, in the form Bind* took them, so that
// the same rule functions check them.
struct DecodedBindings {
    std::vector<DML_BUFFER_BINDING> buffers;       // storage for every BUFFER binding below
    std::vector<DML_BUFFER_ARRAY_BINDING> arrays;  // initializer inputs
    std::vector<DML_BINDING_DESC> inputs;
    std::vector<DML_BINDING_DESC> outputs;
    DML_BINDING_DESC temporary{DML_BINDING_TYPE_NONE, nullptr};
    DML_BINDING_DESC persistent{DML_BINDING_TYPE_NONE, nullptr};
};

class DispatchCommand final : public d3d12::Command {
public:
    DispatchCommand(Device& device, IDMLDispatchable* dispatchable, std::shared_ptr<const DispatchableSnapshot> snapshot,
                    D3D12_GPU_DESCRIPTOR_HANDLE descriptors, std::string description)
        : device_(device),
          holdDevice_(Ref<Device>::Share(&device)),
          dispatchable_(Ref<IDMLDispatchable>::Share(dispatchable)),
          snapshot_(std::move(snapshot)),
          descriptors_(descriptors),
          description_(std::move(description)) {}

    const char* Name() const override { return "DirectML dispatch"; }

    void Execute(d3d12::ExecutionContext& context) override {
        Status status = Run(context);
        if (!status.ok()) {
            status.AddContext(Format("executing a dispatch of %s", description_.c_str()));
            device_.Remove("ExecuteCommandLists", status);
        }
    }

private:
    static constexpr const char* kMethod = "ExecuteCommandLists";

    // What the last full validation of this dispatch established: the descriptors it read, and
    // the kernel bindings they gave. While the descriptors read the same and no resource or
    // descriptor heap of the device was released since (ReleaseGeneration), every rule holds as
    // it did then (resource facts do not change while a resource lives), so a run reuses the
    // bindings without decoding, validating or allocating. A dispatch runs on one thread at a
    // time (a command list executes once at a time), so this needs no lock.
    struct Validated {
        bool valid = false;
        uint64_t generation = 0;
        std::vector<d3d12::Descriptor> descriptors;  // slot by slot, as validated
        KernelBindings bindings;                     // `stream` is set by each run
    };
    bool SameDescriptors(const d3d12::Descriptor* slots) const;

    // The slots that hold a buffer, as regions (role and index only): what D2 looks at.
    std::vector<BoundRegion> FilledSlots(const DecodedBindings& decoded) const;
    Status Decode(const d3d12::Descriptor* slots, DecodedBindings* out, std::vector<d3d12::ResourceInternal*>* owners);
    Status Run(d3d12::ExecutionContext& context);

    Device& device_;
    // A recorded dispatch keeps its device and dispatchable alive until the list is reset or gone.
    Ref<Device> holdDevice_;
    Ref<IDMLDispatchable> dispatchable_;
    std::shared_ptr<const DispatchableSnapshot> snapshot_;
    D3D12_GPU_DESCRIPTOR_HANDLE descriptors_;
    std::string description_;
    Validated validated_;
};

bool SameDescriptor(const d3d12::Descriptor& a, const d3d12::Descriptor& b) {
    return a.kind == b.kind && a.format == b.format && a.resourceId == b.resourceId &&
           a.offsetInBytes == b.offsetInBytes && a.sizeInBytes == b.sizeInBytes &&
           a.structureByteStride == b.structureByteStride && a.flags == b.flags;
}

bool DispatchCommand::SameDescriptors(const d3d12::Descriptor* slots) const {
    const uint32_t total = snapshot_->layout.total;
    if (validated_.descriptors.size() != total) return false;
    for (uint32_t slot = 0; slot < total; ++slot) {
        if (!SameDescriptor(DescriptorSlot(slots, slot), validated_.descriptors[slot])) return false;
    }
    return true;
}

Status DispatchCommand::Decode(const d3d12::Descriptor* slots, DecodedBindings* out,
                               std::vector<d3d12::ResourceInternal*>* owners) {
    const DescriptorLayout& layout = snapshot_->layout;
    d3d12::DeviceInternal& d3d12 = device_.D3D12();
    out->buffers.resize(layout.total);
    owners->assign(layout.total, nullptr);
    // Slot -> a BUFFER binding of the resource it names, or NONE.
    auto decode = [&](uint32_t slot, DML_BINDING_DESC* binding) -> Status {
        const d3d12::Descriptor& descriptor = DescriptorSlot(slots, slot);
        *binding = {DML_BINDING_TYPE_NONE, nullptr};
        if (descriptor.kind == d3d12::Descriptor::Kind::Empty) return {};
        d3d12::ResourceInternal* resource = d3d12.FindResource(descriptor.resourceId);
        INVALID_IF(!resource, "Descriptor %u of the binding table names resource #%llu, which was released (BT3).",
                   slot, static_cast<unsigned long long>(descriptor.resourceId));
        INVALID_IF(descriptor.kind != d3d12::Descriptor::Kind::BufferUav,
                   "Descriptor %u of the binding table is not a buffer UAV; it was overwritten after binding (BT3).",
                   slot);
        (*owners)[slot] = resource;
        out->buffers[slot] = {resource->PublicResource(), descriptor.offsetInBytes, descriptor.sizeInBytes};
        *binding = {DML_BINDING_TYPE_BUFFER, &out->buffers[slot]};
        return {};
    };

    const DispatchableBindingInfo& info = snapshot_->info;
    out->inputs.resize(layout.inputFirstSlot.size());
    if (info.isInitializer) {
        out->arrays.resize(layout.inputFirstSlot.size());
        for (size_t t = 0; t < layout.inputFirstSlot.size(); ++t) {
            bool any = false;
            for (uint32_t k = 0; k < layout.inputSlotCount[t]; ++k) {
                DML_BINDING_DESC entry;
                FREEDML_TRY(decode(layout.inputFirstSlot[t] + k, &entry));
                if (entry.Type == DML_BINDING_TYPE_BUFFER) {
                    any = true;
                } else {
                    out->buffers[layout.inputFirstSlot[t] + k] = {nullptr, 0, 0};
                }
            }
            out->arrays[t] = {layout.inputSlotCount[t], &out->buffers[layout.inputFirstSlot[t]]};
            out->inputs[t] = any ? DML_BINDING_DESC{DML_BINDING_TYPE_BUFFER_ARRAY, &out->arrays[t]}
                                 : DML_BINDING_DESC{DML_BINDING_TYPE_NONE, nullptr};
        }
    } else {
        for (size_t i = 0; i < layout.inputFirstSlot.size(); ++i) {
            FREEDML_TRY(decode(layout.inputFirstSlot[i], &out->inputs[i]));
        }
    }
    out->outputs.resize(layout.outputCount);
    for (uint32_t i = 0; i < layout.outputCount; ++i) FREEDML_TRY(decode(layout.outputFirstSlot + i, &out->outputs[i]));
    FREEDML_TRY(decode(layout.temporarySlot, &out->temporary));
    FREEDML_TRY(decode(layout.persistentSlot, &out->persistent));
    return {};
}

std::vector<BoundRegion> DispatchCommand::FilledSlots(const DecodedBindings& decoded) const {
    std::vector<BoundRegion> filled;
    auto add = [&](BindingRole role, size_t index, uint32_t arrayIndex) {
        BoundRegion region;
        region.role = role;
        region.index = static_cast<uint32_t>(index);
        region.arrayIndex = arrayIndex;
        filled.push_back(region);
    };
    for (size_t i = 0; i < decoded.inputs.size(); ++i) {
        const DML_BINDING_DESC& input = decoded.inputs[i];
        if (input.Type == DML_BINDING_TYPE_BUFFER) add(BindingRole::Input, i, 0);
        if (input.Type != DML_BINDING_TYPE_BUFFER_ARRAY) continue;
        const auto* array = static_cast<const DML_BUFFER_ARRAY_BINDING*>(input.Desc);
        for (uint32_t k = 0; k < array->BindingCount; ++k) {
            if (array->Bindings[k].Buffer) add(BindingRole::Input, i, k);
        }
    }
    for (size_t i = 0; i < decoded.outputs.size(); ++i) {
        if (decoded.outputs[i].Type == DML_BINDING_TYPE_BUFFER) add(BindingRole::Output, i, 0);
    }
    if (decoded.temporary.Type == DML_BINDING_TYPE_BUFFER) add(BindingRole::Temporary, 0, 0);
    if (decoded.persistent.Type == DML_BINDING_TYPE_BUFFER) add(BindingRole::Persistent, 0, 0);
    return filled;
}

// The address kernels use: the GPU virtual address of the bytes, which is the host address on
// the CPU backend and a device pointer on CUDA (backend::Memory::Address).
std::byte* KernelAddress(d3d12::ResourceInternal* resource, uint64_t offset) {
    if (!resource) return nullptr;
    return reinterpret_cast<std::byte*>(resource->Memory().Address() + resource->OffsetInMemory() + offset);
}

Status DispatchCommand::Run(d3d12::ExecutionContext& context) {
    d3d12::DeviceInternal& d3d12 = device_.D3D12();
    const DispatchableBindingInfo& info = snapshot_->info;
    // Read before the descriptors: a release from here on shows up at the next run.
    const uint64_t generation = d3d12.ReleaseGeneration();
    // Capture and its test hooks (capture.h) watch every execution through the full path below.
    if (validated_.valid && validated_.generation == generation && !capture::ExecutionHooks()) {
        // The heap that held these slots when they were validated is still alive (no heap was
        // released), and a GPU handle is the host address of its slot (descriptor_heap.h).
        const auto* slots = reinterpret_cast<const d3d12::Descriptor*>(static_cast<uintptr_t>(descriptors_.ptr));
        if (SameDescriptors(slots)) {
            CompiledOperator& compiled = *snapshot_->operators.front();
            if (!compiled.IsInitialized()) {
                device_.ReportError(Format("ExecuteCommandLists: %s was never initialized; record a dispatch of an "
                                           "operator initializer for it first (N7). Nothing ran.",
                                           description_.c_str()));
                return {};
            }
            validated_.bindings.stream = &context.stream;
            compiled.GetKernel().Execute(validated_.bindings);
            return {};
        }
    }
    validated_.valid = false;

    d3d12::DescriptorRange range;
    FREEDML_TRY_CONTEXT(d3d12.ResolveGpuDescriptor(descriptors_, &range), "reading the binding table's descriptors");
    const DescriptorLayout& layout = snapshot_->layout;
    INVALID_IF(range.slotsLeft < layout.total, "The binding table needs %u descriptors, but only %u remain in heap '%s' "
               "(BT1).", layout.total, range.slotsLeft, range.heapName.c_str());

    DecodedBindings decoded;
    std::vector<d3d12::ResourceInternal*> owners;
    FREEDML_TRY(Decode(range.first, &decoded, &owners));

    // Every rule again, on what the descriptors say now. First D2: a required slot left empty
    // (DESCRIPTORS_VOLATILE bindings never completed, or a range rebound without it) is reported
    // as the missing binding it is, before the per-binding rules would call it I5 or O1.
    D3D12ResourceResolver resolver(d3d12);
    BindingState state;
    state.inputsBound = state.outputsBound = state.temporaryBound = state.persistentBound = true;
    state.regions = FilledSlots(decoded);
    FREEDML_TRY(ValidateBindingsComplete(info, state, kMethod));
    state.regions.clear();
    std::vector<BoundRegion> regions;
    FREEDML_TRY(ValidateInputBindings(info, static_cast<UINT>(decoded.inputs.size()), decoded.inputs.data(), resolver,
                                      &regions));
    state.regions.insert(state.regions.end(), regions.begin(), regions.end());
    regions.clear();
    FREEDML_TRY(ValidateOutputBindings(info, static_cast<UINT>(decoded.outputs.size()), decoded.outputs.data(),
                                       resolver, &regions));
    state.regions.insert(state.regions.end(), regions.begin(), regions.end());
    regions.clear();
    FREEDML_TRY(ValidateTemporaryBinding(info, decoded.temporary.Type == DML_BINDING_TYPE_NONE ? nullptr : &decoded.temporary,
                                         resolver, &regions));
    state.regions.insert(state.regions.end(), regions.begin(), regions.end());
    regions.clear();
    FREEDML_TRY(ValidatePersistentBinding(info,
                                          decoded.persistent.Type == DML_BINDING_TYPE_NONE ? nullptr : &decoded.persistent,
                                          resolver, &regions));
    state.regions.insert(state.regions.end(), regions.begin(), regions.end());
    FREEDML_TRY(CheckHazards(state.regions, info.isInitializer, info.supportsInPlaceExecution, resolver, kMethod,
                             &info));
    FREEDML_TRY(ValidateBindingsComplete(info, state, kMethod));

    auto address = [&](uint32_t slot) -> std::byte* {
        return KernelAddress(owners[slot], decoded.buffers[slot].Offset);
    };

    if (info.isInitializer) {
        for (size_t t = 0; t < snapshot_->operators.size(); ++t) {
            if (snapshot_->operators[t]->IsInitialized()) {
                device_.ReportError(Format("ExecuteCommandLists: %s initializes %s, which was already initialized; "
                                           "an operator is initialized exactly once (N7). Nothing ran.",
                                           description_.c_str(), snapshot_->operators[t]->Describe().c_str()));
                return {};
            }
        }
        for (size_t t = 0; t < snapshot_->operators.size(); ++t) {
            CompiledOperator& target = *snapshot_->operators[t];
            const uint32_t persistentSlot = layout.outputFirstSlot + static_cast<uint32_t>(t);
            // Owned inputs the kernel does not pack: copied as they are, on the queue's stream
            // (a device copy on CUDA), before the kernel packs its own.
            for (const OwnedInputCopy& copy : target.OwnedInputCopies()) {
                const uint32_t sourceSlot = layout.inputFirstSlot[t] + static_cast<uint32_t>(copy.input);
                d3d12::ResourceInternal* source = owners[sourceSlot];
                d3d12::ResourceInternal* persistent = owners[persistentSlot];
                if (!source || !persistent) continue;  // N3 and N5 were checked above: never here
                const uint64_t to = persistent->OffsetInMemory() + decoded.buffers[persistentSlot].Offset + copy.offset;
                const uint64_t from = source->OffsetInMemory() + decoded.buffers[sourceSlot].Offset;
                context.stream.CopyBuffer(persistent->Memory(), to, source->Memory(), from, copy.bytes);
            }
            KernelBindings bindings;
            bindings.stream = &context.stream;
            for (uint32_t k = 0; k < layout.inputSlotCount[t]; ++k) {
                bindings.inputs.push_back(address(layout.inputFirstSlot[t] + k));
            }
            bindings.persistent = address(persistentSlot);
            if (capture::Enabled()) {
                std::vector<capture::Bound> owned;
                for (uint32_t k = 0; k < layout.inputSlotCount[t]; ++k) {
                    const uint32_t slot = layout.inputFirstSlot[t] + k;
                    const TensorDesc* tensor = k < target.Interface().inputs.size() ? target.Interface().inputs[k] : nullptr;
                    if (owners[slot] && tensor) owned.push_back({k, address(slot), tensor->totalTensorSizeInBytes});
                }
                capture::RecordInitialization(target, owned, context.stream);
            }
            target.GetKernel().Initialize(bindings);
            target.MarkInitialized();
        }
        return {};
    }

    CompiledOperator& compiled = *snapshot_->operators.front();
    if (!compiled.IsInitialized()) {
        device_.ReportError(Format("ExecuteCommandLists: %s was never initialized; record a dispatch of an operator "
                                   "initializer for it first (N7). Nothing ran.",
                                   description_.c_str()));
        return {};
    }
    KernelBindings& bindings = validated_.bindings;
    bindings.stream = &context.stream;
    bindings.inputs.clear();
    bindings.outputs.clear();
    for (uint32_t slot : layout.inputFirstSlot) bindings.inputs.push_back(address(slot));
    for (uint32_t i = 0; i < layout.outputCount; ++i) bindings.outputs.push_back(address(layout.outputFirstSlot + i));
    bindings.temporary = address(layout.temporarySlot);
    bindings.persistent = address(layout.persistentSlot);
    // The owned inputs the initializer copied are read from the persistent resource.
    for (const OwnedInputCopy& copy : compiled.OwnedInputCopies()) {
        bindings.inputs[copy.input] = bindings.persistent + copy.offset;
    }
    if (capture::ExecutionHooks()) {
        // The bytes each bound tensor spans, read before and after the kernel.
        const CompiledInterface& shape = compiled.Interface();
        std::vector<capture::Bound> inputs, outputs;
        for (size_t i = 0; i < layout.inputFirstSlot.size(); ++i) {
            const uint32_t slot = layout.inputFirstSlot[i];
            if (owners[slot] && shape.inputs[i]) inputs.push_back({i, address(slot), shape.inputs[i]->totalTensorSizeInBytes});
        }
        for (uint32_t i = 0; i < layout.outputCount; ++i) {
            const uint32_t slot = layout.outputFirstSlot + i;
            if (owners[slot] && shape.outputs[i]) outputs.push_back({i, address(slot), shape.outputs[i]->totalTensorSizeInBytes});
        }
        const uint64_t token = capture::ExecutionStarting(compiled, inputs, outputs, context.stream);
        compiled.GetKernel().Execute(bindings);
        capture::ApplyTestPerturbation(compiled, device_.Ordinal(), outputs, context.stream);
        capture::ExecutionFinished(token, outputs, context.stream);
        return {};
    }
    validated_.descriptors.resize(layout.total);
    for (uint32_t slot = 0; slot < layout.total; ++slot) validated_.descriptors[slot] = DescriptorSlot(range.first, slot);
    validated_.generation = generation;
    validated_.valid = true;
    compiled.GetKernel().Execute(bindings);
    return {};
}

}  // namespace

std::unique_ptr<d3d12::Command> MakeDispatchCommand(Device& device, IDMLDispatchable* dispatchable,
                                                    std::shared_ptr<const DispatchableSnapshot> snapshot,
                                                    D3D12_GPU_DESCRIPTOR_HANDLE descriptors, std::string description) {
    return std::make_unique<DispatchCommand>(device, dispatchable, std::move(snapshot), descriptors,
                                             std::move(description));
}

}  // namespace freedml::dml
