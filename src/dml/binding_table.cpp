#include "dml/binding_table.h"

#include <algorithm>

#include "common/trace.h"
#include "dml/resolver.h"

namespace freedml::dml {

BindingTable::~BindingTable() { ClearDispatchable(); }

void BindingTable::ClearDispatchable() {
    dispatchable_.Reset();
    snapshot_.reset();
    descriptors_ = nullptr;
    gpuHandle_ = {};
    sizeInDescriptors_ = 0;
    state_ = {};
}

Status BindingTable::Create(Device& device, const DML_BINDING_TABLE_DESC* desc, BindingTable** created) {
    Ref<BindingTable> table(new BindingTable(device));
    FREEDML_TRY(table->ApplyDesc(desc));
    *created = table.Detach();
    return {};
}

// BT1: the handles address the same slots of a shader-visible CBV_SRV_UAV heap, with room for
// what the dispatchable needs. A null desc makes an empty table.
Status BindingTable::ApplyDesc(const DML_BINDING_TABLE_DESC* desc) {
    if (!desc) {
        ClearDispatchable();
        return {};
    }
    Device* owner = nullptr;
    std::string description;
    auto snapshot = SnapshotOf(desc->Dispatchable, &owner, &description);
    INVALID_IF(!snapshot, "DML_BINDING_TABLE_DESC.Dispatchable is %s, not a FreeDML compiled operator or operator "
               "initializer (BT1).", desc->Dispatchable ? "another object" : "null");
    INVALID_IF(owner != &GetDmlDevice(), "DML_BINDING_TABLE_DESC.Dispatchable (%s) belongs to another DirectML "
               "device (BT1).", description.c_str());
    const UINT required = snapshot->info.properties.RequiredDescriptorCount;
    INVALID_IF(desc->SizeInDescriptors < required,
               "DML_BINDING_TABLE_DESC.SizeInDescriptors (%u) is smaller than the %u descriptors %s requires "
               "(RequiredDescriptorCount, BT1).", desc->SizeInDescriptors, required, description.c_str());

    d3d12::DescriptorRange cpuRange, gpuRange;
    Status status = GetDmlDevice().D3D12().ResolveCpuDescriptor(desc->CPUDescriptorHandle, &cpuRange);
    FREEDML_TRY_CONTEXT(std::move(status), "resolving DML_BINDING_TABLE_DESC.CPUDescriptorHandle (BT1)");
    INVALID_IF(cpuRange.heapDesc.Type != D3D12_DESCRIPTOR_HEAP_TYPE_CBV_SRV_UAV,
               "DML_BINDING_TABLE_DESC.CPUDescriptorHandle points into descriptor heap '%s', which is not a "
               "CBV_SRV_UAV heap (BT1).", cpuRange.heapName.c_str());
    INVALID_IF(cpuRange.slotsLeft < desc->SizeInDescriptors,
               "DML_BINDING_TABLE_DESC.SizeInDescriptors (%u) runs past the end of descriptor heap '%s': only %u "
               "descriptors follow index %u (BT1).", desc->SizeInDescriptors, cpuRange.heapName.c_str(),
               cpuRange.slotsLeft, cpuRange.indexInHeap);
    status = GetDmlDevice().D3D12().ResolveGpuDescriptor(desc->GPUDescriptorHandle, &gpuRange);
    FREEDML_TRY_CONTEXT(std::move(status), "resolving DML_BINDING_TABLE_DESC.GPUDescriptorHandle (BT1)");
    INVALID_IF(!(gpuRange.heapDesc.Flags & D3D12_DESCRIPTOR_HEAP_FLAG_SHADER_VISIBLE),
               "DML_BINDING_TABLE_DESC.GPUDescriptorHandle points into descriptor heap '%s', which is not shader "
               "visible (BT1).", gpuRange.heapName.c_str());
    INVALID_IF(gpuRange.first != cpuRange.first,
               "DML_BINDING_TABLE_DESC's CPU handle (heap '%s', index %u) and GPU handle (heap '%s', index %u) "
               "address different descriptors; they must address the same ones (BT1).",
               cpuRange.heapName.c_str(), cpuRange.indexInHeap, gpuRange.heapName.c_str(), gpuRange.indexInHeap);

    ClearDispatchable();
    dispatchable_ = Ref<IDMLDispatchable>::Share(desc->Dispatchable);
    snapshot_ = std::move(snapshot);
    descriptors_ = cpuRange.first;
    gpuHandle_ = desc->GPUDescriptorHandle;
    sizeInDescriptors_ = desc->SizeInDescriptors;
    // A new table binds nothing: its descriptors say so too.
    for (uint32_t slot = 0; slot < snapshot_->layout.total; ++slot) WriteDescriptor(slot, nullptr);
    return {};
}

HRESULT BindingTable::Reset(const DML_BINDING_TABLE_DESC* desc) {
    FREEDML_TRACE_DML("IDMLBindingTable::Reset", this, desc);
    return GetDmlDevice().Guarded("IDMLBindingTable::Reset", [&]() -> HRESULT {
        Status status = ApplyDesc(desc);
        return status.ok() ? S_OK : GetDmlDevice().Fail("IDMLBindingTable::Reset", status);
    });
}

void BindingTable::WriteDescriptor(uint32_t slot, const BoundRegion* region) {
    d3d12::Descriptor descriptor;
    if (region) {
        descriptor.kind = d3d12::Descriptor::Kind::BufferUav;
        descriptor.format = DXGI_FORMAT_R32_TYPELESS;
        descriptor.resourceId = region->resourceId;
        descriptor.offsetInBytes = region->offset;
        descriptor.sizeInBytes = region->size;
        descriptor.flags = D3D12_BUFFER_UAV_FLAG_RAW;
    }
    DescriptorSlot(descriptors_, slot) = descriptor;
}

Status BindingTable::Commit(BindingRole role, std::vector<BoundRegion> regions, const char* method) {
    std::vector<BoundRegion> all;
    all.reserve(state_.regions.size() + regions.size());
    for (const auto& region : state_.regions) {
        if (region.role != role) all.push_back(region);
    }
    all.insert(all.end(), regions.begin(), regions.end());
    D3D12ResourceResolver resolver(GetDmlDevice().D3D12());
    FREEDML_TRY_CONTEXT(CheckHazards(all, snapshot_->info.isInitializer, snapshot_->info.supportsInPlaceExecution,
                                     resolver, method, &snapshot_->info),
                        "%s of %s for %s", method, Describe().c_str(), snapshot_->info.description.c_str());

    // Everything holds: write the descriptors of this role, then the table's state.
    const DescriptorLayout& layout = snapshot_->layout;
    switch (role) {
        case BindingRole::Input:
            for (uint32_t slot = 0; slot < layout.outputFirstSlot; ++slot) WriteDescriptor(slot, nullptr);
            for (const auto& region : regions) {
                WriteDescriptor(layout.inputFirstSlot[region.index] + region.arrayIndex, &region);
            }
            state_.inputsBound = true;
            break;
        case BindingRole::Output:
            for (uint32_t i = 0; i < layout.outputCount; ++i) WriteDescriptor(layout.outputFirstSlot + i, nullptr);
            for (const auto& region : regions) WriteDescriptor(layout.outputFirstSlot + region.index, &region);
            state_.outputsBound = true;
            break;
        case BindingRole::Temporary:
            WriteDescriptor(layout.temporarySlot, regions.empty() ? nullptr : &regions.front());
            state_.temporaryBound = true;
            break;
        case BindingRole::Persistent:
            WriteDescriptor(layout.persistentSlot, regions.empty() ? nullptr : &regions.front());
            state_.persistentBound = true;
            break;
    }
    state_.regions = std::move(all);
    return {};
}

namespace {
Status RequireDispatchable(const BindingTable& table, const char* method) {
    INVALID_IF(!table.Snapshot(), "%s: %s was created or reset with a null DML_BINDING_TABLE_DESC, so it has "
               "nothing to bind for (BT1).", method, table.Describe().c_str());
    return {};
}
}  // namespace

template <class Validate>
bool BindingTable::Bind(const char* method, const char* shortName, BindingRole role, Validate&& validate) {
    bool committed = false;
    GetDmlDevice().GuardedOrRemove(method, [&] {
        Status status = RequireDispatchable(*this, method);
        if (status.ok()) {
            D3D12ResourceResolver resolver(GetDmlDevice().D3D12());
            std::vector<BoundRegion> regions;
            status = validate(snapshot_->info, resolver, &regions);
            if (status.ok()) status = Commit(role, std::move(regions), shortName);
        }
        if (status.ok()) {
            committed = true;
        } else {
            GetDmlDevice().Remove(method, status);
        }
    });
    return committed;
}

void BindingTable::BindInputs(UINT bindingCount, const DML_BINDING_DESC* bindings) {
    FREEDML_TRACE_DML("IDMLBindingTable::BindInputs", this, bindingCount, FREEDML_TRACE_LIST(bindings, bindingCount));
    const bool committed = Bind("IDMLBindingTable::BindInputs", "BindInputs", BindingRole::Input,
                                [&](const DispatchableBindingInfo& info, ResourceResolver& resolver,
                                    std::vector<BoundRegion>* regions) {
                                    return ValidateInputBindings(info, bindingCount, bindings, resolver, regions);
                                });
    // I7: BindInputs(0, nullptr) unbinds every input.
    if (committed && bindingCount == 0 && !bindings) state_.inputsBound = false;
}

void BindingTable::BindOutputs(UINT bindingCount, const DML_BINDING_DESC* bindings) {
    FREEDML_TRACE_DML("IDMLBindingTable::BindOutputs", this, bindingCount, FREEDML_TRACE_LIST(bindings, bindingCount));
    Bind("IDMLBindingTable::BindOutputs", "BindOutputs", BindingRole::Output,
         [&](const DispatchableBindingInfo& info, ResourceResolver& resolver, std::vector<BoundRegion>* regions) {
             return ValidateOutputBindings(info, bindingCount, bindings, resolver, regions);
         });
}

void BindingTable::BindTemporaryResource(const DML_BINDING_DESC* binding) {
    FREEDML_TRACE_DML("IDMLBindingTable::BindTemporaryResource", this, binding);
    Bind("IDMLBindingTable::BindTemporaryResource", "BindTemporaryResource", BindingRole::Temporary,
         [&](const DispatchableBindingInfo& info, ResourceResolver& resolver, std::vector<BoundRegion>* regions) {
             return ValidateTemporaryBinding(info, binding, resolver, regions);
         });
}

void BindingTable::BindPersistentResource(const DML_BINDING_DESC* binding) {
    FREEDML_TRACE_DML("IDMLBindingTable::BindPersistentResource", this, binding);
    Bind("IDMLBindingTable::BindPersistentResource", "BindPersistentResource", BindingRole::Persistent,
         [&](const DispatchableBindingInfo& info, ResourceResolver& resolver, std::vector<BoundRegion>* regions) {
             return ValidatePersistentBinding(info, binding, resolver, regions);
         });
}

}  // namespace freedml::dml
