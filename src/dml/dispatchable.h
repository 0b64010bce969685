// What compiled operators and operator initializers share as dispatchables: binding
// requirements (binding_rules.h) and the layout of their descriptors in a binding table.
#pragma once

#include <memory>

#include "d3d12/internal.h"
#include "dml/binding_rules.h"

namespace freedml::dml {

class CompiledOperator;
class Device;

// The descriptor slots of a dispatchable's binding table, in order:
//   inputs (an initializer's BUFFER_ARRAY entries flattened, target by target), outputs,
//   the temporary resource, the persistent resource.
struct DescriptorLayout {
    std::vector<uint32_t> inputFirstSlot;  // per input binding (initializer: per target)
    std::vector<uint32_t> inputSlotCount;  // 1 for a compiled operator, the array size for a target
    uint32_t outputFirstSlot = 0;
    uint32_t outputCount = 0;
    uint32_t temporarySlot = 0;
    uint32_t persistentSlot = 0;
    uint32_t total = 0;
};

// An immutable snapshot of what a dispatchable binds, shared by the binding tables made for it
// and the dispatches recorded with them (an initializer's Reset makes a new one).
struct DispatchableSnapshot {
    DispatchableBindingInfo info;
    DescriptorLayout layout;
    // The compiled operator itself (not referenced: it owns this snapshot), or an initializer's
    // targets (each referenced while the snapshot lives).
    std::vector<CompiledOperator*> operators;
    bool referencesOperators = false;

    DispatchableSnapshot() = default;
    DispatchableSnapshot(const DispatchableSnapshot&) = delete;
    DispatchableSnapshot& operator=(const DispatchableSnapshot&) = delete;
    ~DispatchableSnapshot();
};

// Slot `slot` of a binding table whose first descriptor is `first`. Slots are a descriptor
// handle increment apart (GetDescriptorHandleIncrementSize), not sizeof(Descriptor): the
// application and ID3D12Device::Create*View/CopyDescriptors address them that way.
inline d3d12::Descriptor& DescriptorSlot(d3d12::Descriptor* first, uint32_t slot) {
    return *reinterpret_cast<d3d12::Descriptor*>(reinterpret_cast<unsigned char*>(first) +
                                                 size_t(slot) * d3d12::kCbvSrvUavDescriptorSize);
}
inline const d3d12::Descriptor& DescriptorSlot(const d3d12::Descriptor* first, uint32_t slot) {
    return DescriptorSlot(const_cast<d3d12::Descriptor*>(first), slot);
}

DescriptorLayout MakeDescriptorLayout(const DispatchableBindingInfo& info);

// The snapshot of an IDMLDispatchable of ours (nullptr when it is not one).
std::shared_ptr<const DispatchableSnapshot> SnapshotOf(IDMLDispatchable* dispatchable, Device** device,
                                                       std::string* description);

}  // namespace freedml::dml
