#include "dml/dispatchable.h"

#include "dml/compiled_operator.h"
#include "dml/operator_initializer.h"

namespace freedml::dml {

DispatchableSnapshot::~DispatchableSnapshot() {
    if (!referencesOperators) return;
    for (auto* op : operators) op->Release();
}

DescriptorLayout MakeDescriptorLayout(const DispatchableBindingInfo& info) {
    DescriptorLayout layout;
    uint32_t slot = 0;
    if (info.isInitializer) {
        for (const auto& target : info.targets) {
            layout.inputFirstSlot.push_back(slot);
            layout.inputSlotCount.push_back(static_cast<uint32_t>(target.inputs.size()));
            slot += static_cast<uint32_t>(target.inputs.size());
        }
        layout.outputCount = static_cast<uint32_t>(info.targets.size());
    } else {
        for (size_t i = 0; i < info.inputs.size(); ++i) {
            layout.inputFirstSlot.push_back(slot++);
            layout.inputSlotCount.push_back(1);
        }
        layout.outputCount = static_cast<uint32_t>(info.outputs.size());
    }
    layout.outputFirstSlot = slot;
    slot += layout.outputCount;
    layout.temporarySlot = slot++;
    layout.persistentSlot = slot++;
    layout.total = slot;
    return layout;
}

std::shared_ptr<const DispatchableSnapshot> SnapshotOf(IDMLDispatchable* dispatchable, Device** device,
                                                       std::string* description) {
    if (auto* compiled = AsChild<CompiledOperator>(dispatchable)) {
        *device = &compiled->GetDmlDevice();
        *description = compiled->Describe();
        return compiled->Snapshot();
    }
    if (auto* initializer = AsChild<OperatorInitializer>(dispatchable)) {
        *device = &initializer->GetDmlDevice();
        *description = initializer->Describe();
        return initializer->Snapshot();
    }
    return nullptr;
}

}  // namespace freedml::dml
