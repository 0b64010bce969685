// FreeDML's private view of its own D3D12 objects, used by libdirectml (and by our D3D12 objects
// among themselves). As on Windows, DirectML is a separate library that receives public
// `ID3D12*` pointers; it reaches what it needs behind them with QueryInterface for the private
// IIDs below. A pointer that is not a FreeDML object answers E_NOINTERFACE, which is how
// DMLCreateDevice refuses a device that is not ours.
//
// Rules of these interfaces:
// - QueryInterface for a private IID returns a *borrowed* pointer: no reference is taken. It is
//   valid while the caller holds the public interface it queried. Use the Get*Internal helpers.
// - They are pure virtual (or inline) so they can be called across the shared-library boundary
//   of hidden-visibility libraries built from this tree.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "backend/backend.h"
#include "common/api_guard.h"
#include "common/platform.h"
#include "common/private_iids.h"
#include "common/status.h"

namespace freedml::d3d12 {

class ResourceInternal;
class DeviceInternal;

// ---- Descriptors -------------------------------------------------------------------------------
// The bytes of one CBV_SRV_UAV descriptor slot. CPU and GPU descriptor handles of FreeDML heaps
// are both the host address of the slot, so reading a descriptor is a load; the device keeps a
// registry of live heaps so that a handle can be checked before it is used.
struct Descriptor {
    enum class Kind : uint32_t { Empty = 0, BufferUav, BufferSrv, ConstantBuffer };
    Kind kind = Kind::Empty;
    DXGI_FORMAT format = DXGI_FORMAT_UNKNOWN;
    uint64_t resourceId = 0;      // ResourceInternal::Id(); 0 = null resource. Looked up at use,
                                  // so a descriptor of a released resource is detected, not used.
    uint64_t offsetInBytes = 0;   // the view's first byte within the resource
    uint64_t sizeInBytes = 0;     // the view's byte count
    uint32_t structureByteStride = 0;
    uint32_t flags = 0;           // D3D12_BUFFER_UAV_FLAGS / D3D12_BUFFER_SRV_FLAGS
};
static_assert(sizeof(Descriptor) <= 64, "GetDescriptorHandleIncrementSize reports 64");
constexpr UINT kCbvSrvUavDescriptorSize = 64;

// What the registry knows of the heap a handle points into.
struct DescriptorRange {
    D3D12_DESCRIPTOR_HEAP_DESC heapDesc{};
    Descriptor* first = nullptr;  // the slot the handle addresses
    UINT indexInHeap = 0;         // its index
    UINT slotsLeft = 0;           // slots from `first` to the end of the heap
    std::string heapName;
};

// ---- Commands ----------------------------------------------------------------------------------
// What a recorded command sees when its queue runs it.
class StateTrackingScope;  // commands.h: the debug layer's resource states of one ExecuteCommandLists

struct ExecutionContext {
    DeviceInternal& device;
    backend::Stream& stream;
    // What this ExecuteCommandLists has done to resource states so far (null: none tracked).
    StateTrackingScope* stateTracking = nullptr;
};

// One recorded command (copy, barrier, DirectML dispatch). Command lists own them; queues run
// them in order on the queue's worker thread.
class Command {
public:
    virtual ~Command() = default;
    virtual void Execute(ExecutionContext& context) = 0;
    virtual const char* Name() const = 0;  // for messages: "CopyBufferRegion", "DML dispatch"
};

// ---- Private interfaces ------------------------------------------------------------------------
class DeviceInternal {
public:
    virtual ID3D12Device* PublicDevice() = 0;
    virtual backend::Device& Backend() = 0;
    virtual bool DebugLayerEnabled() const = 0;
    // Sends a message to the device's info queue, the FreeDML message callback, and standard
    // error when debugging (ID3D12Debug, DML_CREATE_DEVICE_FLAG_DEBUG or FREEDML_DEBUG=1).
    virtual void Report(D3D12_MESSAGE_SEVERITY severity, D3D12_MESSAGE_CATEGORY category, const std::string& text) = 0;
    // Marks the device removed (what a misused void method of D3D12 or DirectML does) and reports
    // why. GetDeviceRemovedReason returns `reason` from then on.
    virtual void RemoveDevice(HRESULT reason, const std::string& text) = 0;
    // The same, on behalf of another FreeDML library: `source` ("DirectML") labels the message for
    // the callback and standard error, and `echo` prints it to standard error even when the D3D12
    // debug layer is off (DML_CREATE_DEVICE_FLAG_DEBUG).
    virtual void ReportFrom(const char* source, D3D12_MESSAGE_SEVERITY severity, D3D12_MESSAGE_CATEGORY category,
                            const std::string& text, bool echo) = 0;
    virtual void RemoveDeviceFrom(const char* source, HRESULT reason, const std::string& text, bool echo) = 0;
    virtual HRESULT RemovedReason() const = 0;  // S_OK while the device is alive
    // The live resource with this id, or nullptr when it was released (or never existed).
    // The caller keeps it alive with the public interface while it uses it.
    virtual ResourceInternal* FindResource(uint64_t resourceId) = 0;
    // A count that grows whenever a resource or descriptor heap of this device is released. While
    // it stays the same, every resource id and descriptor handle that resolved before still
    // resolves to the same object: what a dispatch validated once still holds.
    virtual uint64_t ReleaseGeneration() const = 0;
    // Resolves a descriptor handle of one of this device's CBV_SRV_UAV heaps. Fails (with a
    // message naming the handle) when no live heap contains it.
    virtual Status ResolveCpuDescriptor(D3D12_CPU_DESCRIPTOR_HANDLE handle, DescriptorRange* range) = 0;
    virtual Status ResolveGpuDescriptor(D3D12_GPU_DESCRIPTOR_HANDLE handle, DescriptorRange* range) = 0;

protected:
    ~DeviceInternal() = default;
};

class ResourceInternal {
public:
    virtual ID3D12Resource* PublicResource() = 0;
    virtual uint64_t Id() const = 0;                 // unique in the process, never 0
    virtual const D3D12_RESOURCE_DESC& Desc() const = 0;
    virtual uint64_t SizeInBytes() const = 0;        // a buffer's Width
    virtual D3D12_HEAP_TYPE HeapType() const = 0;    // of the heap it lives on (CUSTOM stays CUSTOM)
    virtual backend::Memory& Memory() = 0;           // the heap's storage
    virtual uint64_t OffsetInMemory() const = 0;     // where the resource starts in it
    // The heap it lives on, to tell placed resources that alias the same bytes (H7). Committed
    // resources have an implicit heap of their own.
    virtual uint64_t HeapId() const = 0;
    virtual std::string Name() const = 0;            // SetName's, or "" when none
    // "resource 'weights' (ID3D12Resource #12, 4096 bytes)": how messages name it.
    virtual std::string Describe() const = 0;
    // The state the queue timeline last left it in (state tracking of the debug layer).
    virtual D3D12_RESOURCE_STATES TrackedState() const = 0;
    virtual void SetTrackedState(D3D12_RESOURCE_STATES state) = 0;

protected:
    ~ResourceInternal() = default;
};

class CommandListInternal {
public:
    virtual ID3D12GraphicsCommandList* PublicCommandList() = 0;
    virtual D3D12_COMMAND_LIST_TYPE Type() const = 0;
    virtual bool IsOpen() const = 0;  // recording: between Reset/creation and Close
    // The shader-visible CBV_SRV_UAV heap set by SetDescriptorHeaps, or nullptr.
    virtual ID3D12DescriptorHeap* CurrentDescriptorHeap() const = 0;
    virtual void Record(std::unique_ptr<Command> command) = 0;
    // A recording error: Close will fail with E_INVALIDARG and this message.
    virtual void FailRecording(const std::string& text) = 0;

protected:
    ~CommandListInternal() = default;
};

// An HRESULT method of a D3D12 object runs its body through this (common/api_guard.h): a C++
// exception becomes its HRESULT (E_OUTOFMEMORY for std::bad_alloc) and an error message.
template <class Body>
HRESULT Guarded(DeviceInternal& device, const char* method, Body&& body) noexcept {
    return Guard(method,
                 [&](const char* name, const ExceptionFailure& failure) {
                     device.Report(D3D12_MESSAGE_SEVERITY_ERROR, D3D12_MESSAGE_CATEGORY_MISCELLANEOUS,
                                   DescribeFailure(name, failure));
                 },
                 std::forward<Body>(body));
}
// A void method: nothing can be returned, so the device is removed with the failure's HRESULT as
// its reason, as a misused void method does.
template <class Body>
void GuardedOrRemove(DeviceInternal& device, const char* method, Body&& body) noexcept {
    GuardVoid(method,
              [&](const char* name, const ExceptionFailure& failure) {
                  device.RemoveDevice(RemovalReason(failure), DescribeFailure(name, failure));
              },
              std::forward<Body>(body));
}

// For messages that have no device to go through (DMLCreateDevice given something that is not a
// FreeDML device): libd3d12 exports this C function; other libraries look it up at run time, so
// they need no link to libd3d12. It sends the message to the FreeDML callback, and to standard
// error when `echo` is nonzero or FREEDML_DEBUG=1.
using ReportWithoutDeviceFunction = void (*)(int severity, const char* source, const char* text, int echo);
constexpr const char* kReportWithoutDeviceSymbol = "FreeDMLInternalReportWithoutDevice";

template <class Internal>
Internal* QueryInternal(IUnknown* object, const GUID& iid) {
    if (!object) return nullptr;
    void* internal = nullptr;
    if (FAILED(object->QueryInterface(iid, &internal))) return nullptr;
    return static_cast<Internal*>(internal);
}
inline DeviceInternal* GetDeviceInternal(IUnknown* device) {
    return QueryInternal<DeviceInternal>(device, kIidDeviceInternal);
}
inline ResourceInternal* GetResourceInternal(IUnknown* resource) {
    return QueryInternal<ResourceInternal>(resource, kIidResourceInternal);
}
inline CommandListInternal* GetCommandListInternal(IUnknown* list) {
    return QueryInternal<CommandListInternal>(list, kIidCommandListInternal);
}

}  // namespace freedml::d3d12
