// IDMLBindingTable: binds resources for one dispatchable. Each Bind* call is validated against
// the binding rules (a broken rule removes the device, as in DirectML, and says which rule) and
// writes real descriptors into the application's descriptor heap; a recorded dispatch reads them
// back when it runs (BT3).
#pragma once

#include <memory>

#include "dml/dispatchable.h"
#include "dml/object.h"

namespace freedml::dml {

class BindingTable final
    : public DeviceChild<BindingTable, ChildKind::BindingTable, IDMLBindingTable, IDMLDeviceChild, IDMLObject> {
public:
    static constexpr ChildKind kKind = ChildKind::BindingTable;

    static Status Create(Device& device, const DML_BINDING_TABLE_DESC* desc, BindingTable** created);

    void STDMETHODCALLTYPE BindInputs(UINT bindingCount, const DML_BINDING_DESC* bindings) override;
    void STDMETHODCALLTYPE BindOutputs(UINT bindingCount, const DML_BINDING_DESC* bindings) override;
    void STDMETHODCALLTYPE BindTemporaryResource(const DML_BINDING_DESC* binding) override;
    void STDMETHODCALLTYPE BindPersistentResource(const DML_BINDING_DESC* binding) override;
    HRESULT STDMETHODCALLTYPE Reset(const DML_BINDING_TABLE_DESC* desc) override;

    // For RecordDispatch.
    IDMLDispatchable* Dispatchable() const { return dispatchable_.Get(); }
    const std::shared_ptr<const DispatchableSnapshot>& Snapshot() const { return snapshot_; }
    const BindingState& State() const { return state_; }
    D3D12_GPU_DESCRIPTOR_HANDLE GpuHandle() const { return gpuHandle_; }
    std::string Describe() const { return "binding table" + NameSuffix(); }

private:
    explicit BindingTable(Device& device) : DeviceChild(device) {}
    ~BindingTable() override;
    Status ApplyDesc(const DML_BINDING_TABLE_DESC* desc);
    void ClearDispatchable();
    // What every Bind* method does: requires a dispatchable, validates with
    // validate(info, resolver, &regions), and commits the regions as `role`. These methods return
    // nothing, so a failure removes the device. Returns whether the regions were committed.
    template <class Validate>
    bool Bind(const char* method, const char* shortName, BindingRole role, Validate&& validate);
    // Replaces the regions of `role`, checks hazards over everything bound, writes descriptors.
    Status Commit(BindingRole role, std::vector<BoundRegion> regions, const char* method);
    void WriteDescriptor(uint32_t slot, const BoundRegion* region);

    Ref<IDMLDispatchable> dispatchable_;  // BT2: the table keeps its dispatchable alive
    std::shared_ptr<const DispatchableSnapshot> snapshot_;
    d3d12::Descriptor* descriptors_ = nullptr;  // the CPU handle's slots in the heap
    D3D12_GPU_DESCRIPTOR_HANDLE gpuHandle_{};
    UINT sizeInDescriptors_ = 0;
    BindingState state_;
};

}  // namespace freedml::dml
