#include "d3d12/command_allocator.h"

#include "common/trace.h"
#include "d3d12/command_list.h"
#include "d3d12/commands.h"
#include "d3d12/factories.h"

namespace freedml::d3d12 {

CommandAllocator::CommandAllocator(DeviceInternal& device, D3D12_COMMAND_LIST_TYPE type)
    : device_(device), holdDevice_(Ref<ID3D12Device>::Share(device.PublicDevice())), type_(type) {}

CommandAllocator* CommandAllocator::FromPublic(ID3D12CommandAllocator* allocator) {
    void* impl = nullptr;
    if (!allocator || FAILED(allocator->QueryInterface(kIidCommandAllocatorImpl, &impl))) return nullptr;
    return static_cast<CommandAllocator*>(impl);
}

void* CommandAllocator::QueryExtraInterface(REFIID riid) {
    return SameGuid(riid, kIidCommandAllocatorImpl) ? this : nullptr;
}

HRESULT CommandAllocator::GetDevice(REFIID riid, void** device) {
    FREEDML_TRACE_D3D12("ID3D12CommandAllocator::GetDevice", this, riid, device);
    if (!device) return E_POINTER;
    return device_.PublicDevice()->QueryInterface(riid, device);
}

std::string CommandAllocator::Describe() const {
    return Format("%s (%s)", NamedObject("command allocator", Name()).c_str(), ListTypeName(type_));
}

HRESULT CommandAllocator::Reset() {
    FREEDML_TRACE_D3D12("ID3D12CommandAllocator::Reset", this);
    return Guarded(device_, "ID3D12CommandAllocator::Reset", [&]() -> HRESULT {
        if (CommandList* list = recording_.load()) {
            return Fail(device_,
                        Error(E_FAIL,
                              "ID3D12CommandAllocator::Reset: %s cannot be reset while %s recorded on it is open. "
                              "Close the list first.",
                              Describe().c_str(), list->Describe().c_str()),
                        D3D12_MESSAGE_CATEGORY_EXECUTION);
        }
        if (int inFlight = inFlight_.load(); inFlight > 0) {
            return Fail(device_,
                        Error(E_FAIL,
                              "ID3D12CommandAllocator::Reset: %s cannot be reset while command lists recorded on it may "
                              "still be executing (%d executions not finished). Wait on a fence that the queue signals "
                              "after them first.",
                              Describe().c_str(), inFlight),
                        D3D12_MESSAGE_CATEGORY_EXECUTION);
        }
        ++generation_;
        return S_OK;
    });
}

HRESULT CreateCommandAllocator(DeviceInternal& device, const D3D12_COMMAND_LIST_TYPE& type, REFIID riid,
                               void** object) {
    Status status = ValidateListType(type);
    if (!status.ok()) {
        return Fail(device, status.AddContext("calling ID3D12Device::CreateCommandAllocator"),
                    D3D12_MESSAGE_CATEGORY_STATE_CREATION);
    }
    if (!IsSupportedListType(type)) {
        return ReportUnsupported(&device,
                                 Format("ID3D12Device::CreateCommandAllocator of type %s", ListTypeName(type)).c_str());
    }
    if (ValidateOnly(object)) return kValidatedOnly;
    return HandOut(new CommandAllocator(device, type), riid, object);
}

}  // namespace freedml::d3d12
