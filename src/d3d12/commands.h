// The commands that command lists record and queues run: buffer copies and resource barriers,
// plus the helpers that the execution objects (allocator, list, queue, fence) share.
//
// State tracking of the debug layer happens at EXECUTION, on the queue's worker, against the
// global tracked state of each resource (ResourceInternal::TrackedState). Checking there sees the
// real timeline: the lists of other ExecuteCommandLists calls, other queues ordered by fences, and
// the order in which lists were submitted, none of which recording can know. Record time checks
// only what a list's own arguments say (bounds, struct validity); those fail Close.
//
// Buffers follow D3D12's implicit promotion and decay: a buffer decays to COMMON when an
// ExecuteCommandLists that used it completes, and a buffer in COMMON is promoted to whatever a
// copy needs. The tracker does not see DirectML dispatches, so it cannot tell whether a buffer
// decayed before the current ExecuteCommandLists; it gives every buffer the benefit of the doubt
// on its first use in each ExecuteCommandLists (promotion allowed, StateBefore COMMON accepted).
// Within one ExecuteCommandLists it is exact. Resources on UPLOAD and READBACK heaps never change
// state (GENERIC_READ and COPY_DEST).
#pragma once

#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "common/com_object.h"
#include "common/status.h"
#include "d3d12/internal.h"

namespace freedml::d3d12 {

// Reports `status` (with its contexts) as an error message of `device` and returns its HRESULT.
HRESULT Fail(DeviceInternal& device, const Status& status, D3D12_MESSAGE_CATEGORY category);

// "COPY_SOURCE", "COPY_DEST|UNORDERED_ACCESS", "GENERIC_READ", "COMMON".
std::string StateName(D3D12_RESOURCE_STATES states);
const char* ListTypeName(D3D12_COMMAND_LIST_TYPE type);
// Any D3D12_COMMAND_LIST_TYPE passes; FreeDML runs DIRECT, COMPUTE and COPY.
// Takes a reference: the value came from the application and is read as an integer (enum_value.h).
Status ValidateListType(const D3D12_COMMAND_LIST_TYPE& type);
bool IsSupportedListType(D3D12_COMMAND_LIST_TYPE type);

// States that a resource holds alone (one writer at a time).
constexpr UINT kWriteStates = D3D12_RESOURCE_STATE_RENDER_TARGET | D3D12_RESOURCE_STATE_UNORDERED_ACCESS |
                              D3D12_RESOURCE_STATE_DEPTH_WRITE | D3D12_RESOURCE_STATE_STREAM_OUT |
                              D3D12_RESOURCE_STATE_COPY_DEST | D3D12_RESOURCE_STATE_RESOLVE_DEST |
                              D3D12_RESOURCE_STATE_VIDEO_DECODE_WRITE | D3D12_RESOURCE_STATE_VIDEO_PROCESS_WRITE |
                              D3D12_RESOURCE_STATE_VIDEO_ENCODE_WRITE;
// Every D3D12_RESOURCE_STATES bit an application may name.
constexpr UINT kKnownStates =
    kWriteStates | D3D12_RESOURCE_STATE_VERTEX_AND_CONSTANT_BUFFER | D3D12_RESOURCE_STATE_INDEX_BUFFER |
    D3D12_RESOURCE_STATE_DEPTH_READ | D3D12_RESOURCE_STATE_NON_PIXEL_SHADER_RESOURCE |
    D3D12_RESOURCE_STATE_PIXEL_SHADER_RESOURCE | D3D12_RESOURCE_STATE_INDIRECT_ARGUMENT |
    D3D12_RESOURCE_STATE_COPY_SOURCE | D3D12_RESOURCE_STATE_RESOLVE_SOURCE | D3D12_RESOURCE_STATE_VIDEO_DECODE_READ |
    D3D12_RESOURCE_STATE_VIDEO_PROCESS_READ | D3D12_RESOURCE_STATE_VIDEO_ENCODE_READ |
    D3D12_RESOURCE_STATE_RAYTRACING_ACCELERATION_STRUCTURE | D3D12_RESOURCE_STATE_SHADING_RATE_SOURCE;
// The debug layer's check of one access by a command at execution: `resource` must be in `need`
// (a buffer in COMMON is promoted to it); `role` names the access in the message ("copy
// destination", "clear target").
void TrackAccess(ExecutionContext& context, const char* command, ResourceInternal& resource,
                 D3D12_RESOURCE_STATES need, const char* role);

// "command list 'upload'" or "command list" when it has no name.
std::string NamedObject(const char* kind, const std::string& name);

// What one ExecuteCommandLists has done to resource states so far (per resource id). The queue's
// worker makes one for each ExecuteCommandLists and hands it to the commands in their
// ExecutionContext.
class StateTrackingScope {
public:
    StateTrackingScope() = default;
    StateTrackingScope(const StateTrackingScope&) = delete;
    StateTrackingScope& operator=(const StateTrackingScope&) = delete;

    struct Touch {
        bool promoted = false;                                 // its state came from a promotion
        D3D12_RESOURCE_STATES beforePromotion = D3D12_RESOURCE_STATE_COMMON;
    };
    // nullptr on the resource's first use in this ExecuteCommandLists.
    Touch* Find(uint64_t resourceId);
    Touch& Mark(uint64_t resourceId);

private:
    std::unordered_map<uint64_t, Touch> touched_;
};

// A resource held by a command: the public reference keeps it alive until the command is
// destroyed (when its list is reset or destroyed and no queue still runs it).
class HeldResource {
public:
    HeldResource() = default;
    explicit HeldResource(ID3D12Resource* resource);
    HeldResource(HeldResource&& other) noexcept;
    HeldResource& operator=(HeldResource&& other) noexcept;
    HeldResource(const HeldResource&) = delete;
    HeldResource& operator=(const HeldResource&) = delete;
    ~HeldResource() = default;

    ResourceInternal* get() const { return internal_; }
    ResourceInternal* operator->() const { return internal_; }
    explicit operator bool() const { return internal_ != nullptr; }

private:
    Ref<ID3D12Resource> public_;
    ResourceInternal* internal_ = nullptr;  // borrowed from public_
};

// CopyBufferRegion and CopyResource.
class CopyBufferCommand final : public Command {
public:
    CopyBufferCommand(const char* name, ID3D12Resource* destination, uint64_t destinationOffset,
                      ID3D12Resource* source, uint64_t sourceOffset, uint64_t byteCount);
    void Execute(ExecutionContext& context) override;
    const char* Name() const override { return name_; }

private:
    const char* name_;
    HeldResource destination_, source_;
    uint64_t destinationOffset_, sourceOffset_, byteCount_;
};

// One ResourceBarrier call. On an in-order stream the barriers themselves need no work; they
// matter to the debug layer's state tracking.
class BarrierCommand final : public Command {
public:
    // Takes barriers that were validated; holds every resource they name.
    BarrierCommand(UINT count, const D3D12_RESOURCE_BARRIER* barriers);
    void Execute(ExecutionContext& context) override;
    const char* Name() const override { return "ResourceBarrier"; }

private:
    struct Transition {
        HeldResource resource;
        D3D12_RESOURCE_STATES before, after;
        D3D12_RESOURCE_BARRIER_FLAGS flags;
        UINT index;
    };
    std::vector<Transition> transitions_;
    std::vector<HeldResource> others_;  // of UAV and aliasing barriers
};

}  // namespace freedml::d3d12
