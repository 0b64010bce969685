#include "dml/command_recorder.h"

#include "common/trace.h"
#include "dml/binding_table.h"
#include "dml/compiled_operator.h"
#include "dml/dispatch.h"

namespace freedml::dml {

namespace {

// D1 and D2: what RecordDispatch checks before it records anything.
Status ValidateRecordDispatch(Device& device, d3d12::CommandListInternal* list, IDMLDispatchable* dispatchable,
                              BindingTable* table, const std::shared_ptr<const DispatchableSnapshot>& snapshot,
                              const std::string& description) {
    INVALID_IF(!list, "commandList is %s, not a FreeDML D3D12 command list (D1).",
               "null or another implementation's");
    INVALID_IF(list->Type() != D3D12_COMMAND_LIST_TYPE_DIRECT && list->Type() != D3D12_COMMAND_LIST_TYPE_COMPUTE,
               "commandList has type %d; DirectML records onto DIRECT or COMPUTE command lists only (D1).",
               static_cast<int>(list->Type()));
    INVALID_IF(!list->IsOpen(), "commandList is closed; reset it before recording (D1).");
    INVALID_IF(!snapshot, "dispatchable is %s, not a FreeDML compiled operator or operator initializer (D1).",
               dispatchable ? "another object" : "null");
    INVALID_IF(!table, "bindings is %s, not a FreeDML binding table (D1).", "null or another object");
    INVALID_IF(&table->GetDmlDevice() != &device, "%s belongs to another DirectML device (D1).",
               table->Describe().c_str());
    INVALID_IF(!table->Snapshot() || table->Dispatchable() != dispatchable,
               "%s was not created (or last reset) for %s; a binding table serves the dispatchable of its "
               "DML_BINDING_TABLE_DESC (D1).",
               table->Describe().c_str(), description.c_str());
    INVALID_IF(table->Snapshot() != snapshot,
               "%s was reset after %s was bound; reset the binding table and bind again (D1).", description.c_str(),
               table->Describe().c_str());

    // The binding table's descriptors must be in the heap the command list has set.
    ID3D12DescriptorHeap* heap = list->CurrentDescriptorHeap();
    INVALID_IF(!heap, "No shader-visible CBV_SRV_UAV descriptor heap is set on the command list; call "
               "SetDescriptorHeaps with the heap of %s first (D1).", table->Describe().c_str());
    D3D12_DESCRIPTOR_HEAP_DESC heapDesc = heap->GetDesc();
    const uint64_t start = heap->GetGPUDescriptorHandleForHeapStart().ptr;
    const uint64_t end = start + uint64_t(heapDesc.NumDescriptors) * d3d12::kCbvSrvUavDescriptorSize;
    const uint64_t first = table->GpuHandle().ptr;
    const uint64_t last = first + uint64_t(snapshot->layout.total) * d3d12::kCbvSrvUavDescriptorSize;
    INVALID_IF(first < start || last > end,
               "The descriptors of %s are not in the descriptor heap set on the command list (D1).",
               table->Describe().c_str());

    // D2: without DESCRIPTORS_VOLATILE, everything is bound now.
    auto* compiled = AsChild<CompiledOperator>(dispatchable);
    const bool isVolatile = compiled && (compiled->Flags() & DML_EXECUTION_FLAG_DESCRIPTORS_VOLATILE);
    if (!isVolatile) FREEDML_TRY(ValidateBindingsComplete(snapshot->info, table->State()));
    return {};
}

}  // namespace

void CommandRecorder::RecordDispatch(ID3D12CommandList* commandList, IDMLDispatchable* dispatchable,
                                     IDMLBindingTable* bindings) {
    FREEDML_TRACE_DML("IDMLCommandRecorder::RecordDispatch", this, commandList, dispatchable, bindings);
    GetDmlDevice().GuardedOrRemove("IDMLCommandRecorder::RecordDispatch", [&] {
        Device& device = GetDmlDevice();
        Device* owner = nullptr;
        std::string description;
        auto snapshot = SnapshotOf(dispatchable, &owner, &description);
        d3d12::CommandListInternal* list = d3d12::GetCommandListInternal(commandList);
        BindingTable* table = AsChild<BindingTable>(bindings);
        Status status = ValidateRecordDispatch(device, list, dispatchable, table, snapshot, description);
        if (status.ok() && owner != &device) {
            status = Error(E_INVALIDARG, "%s belongs to another DirectML device (D1).", description.c_str());
        }
        if (!status.ok()) {
            status.AddContext(Format("recording a dispatch of %s", snapshot ? description.c_str() : "a dispatchable"));
            device.Remove("IDMLCommandRecorder::RecordDispatch", status);
            return;
        }
        list->Record(MakeDispatchCommand(device, dispatchable, std::move(snapshot), table->GpuHandle(),
                                         std::move(description)));
    });
}

}  // namespace freedml::dml
