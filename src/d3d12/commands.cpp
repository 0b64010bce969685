#include "d3d12/commands.h"

#include <optional>

#include "d3d12/enum_value.h"
#include <utility>

namespace freedml::d3d12 {

// ---- Helpers -----------------------------------------------------------------------------------

HRESULT Fail(DeviceInternal& device, const Status& status, D3D12_MESSAGE_CATEGORY category) {
    device.Report(D3D12_MESSAGE_SEVERITY_ERROR, category, status.FullMessage());
    return status.hr();
}

std::string StateName(D3D12_RESOURCE_STATES states) {
    if (states == D3D12_RESOURCE_STATE_COMMON) return "COMMON";
    if (states == D3D12_RESOURCE_STATE_GENERIC_READ) return "GENERIC_READ";
    static const std::pair<UINT, const char*> kNames[] = {
        {D3D12_RESOURCE_STATE_VERTEX_AND_CONSTANT_BUFFER, "VERTEX_AND_CONSTANT_BUFFER"},
        {D3D12_RESOURCE_STATE_INDEX_BUFFER, "INDEX_BUFFER"},
        {D3D12_RESOURCE_STATE_RENDER_TARGET, "RENDER_TARGET"},
        {D3D12_RESOURCE_STATE_UNORDERED_ACCESS, "UNORDERED_ACCESS"},
        {D3D12_RESOURCE_STATE_DEPTH_WRITE, "DEPTH_WRITE"},
        {D3D12_RESOURCE_STATE_DEPTH_READ, "DEPTH_READ"},
        {D3D12_RESOURCE_STATE_NON_PIXEL_SHADER_RESOURCE, "NON_PIXEL_SHADER_RESOURCE"},
        {D3D12_RESOURCE_STATE_PIXEL_SHADER_RESOURCE, "PIXEL_SHADER_RESOURCE"},
        {D3D12_RESOURCE_STATE_STREAM_OUT, "STREAM_OUT"},
        {D3D12_RESOURCE_STATE_INDIRECT_ARGUMENT, "INDIRECT_ARGUMENT"},
        {D3D12_RESOURCE_STATE_COPY_DEST, "COPY_DEST"},
        {D3D12_RESOURCE_STATE_COPY_SOURCE, "COPY_SOURCE"},
        {D3D12_RESOURCE_STATE_RESOLVE_DEST, "RESOLVE_DEST"},
        {D3D12_RESOURCE_STATE_RESOLVE_SOURCE, "RESOLVE_SOURCE"},
        {D3D12_RESOURCE_STATE_VIDEO_DECODE_READ, "VIDEO_DECODE_READ"},
        {D3D12_RESOURCE_STATE_VIDEO_DECODE_WRITE, "VIDEO_DECODE_WRITE"},
        {D3D12_RESOURCE_STATE_VIDEO_PROCESS_READ, "VIDEO_PROCESS_READ"},
        {D3D12_RESOURCE_STATE_VIDEO_PROCESS_WRITE, "VIDEO_PROCESS_WRITE"},
        {D3D12_RESOURCE_STATE_VIDEO_ENCODE_READ, "VIDEO_ENCODE_READ"},
        {D3D12_RESOURCE_STATE_RAYTRACING_ACCELERATION_STRUCTURE, "RAYTRACING_ACCELERATION_STRUCTURE"},
        {D3D12_RESOURCE_STATE_VIDEO_ENCODE_WRITE, "VIDEO_ENCODE_WRITE"},
        {D3D12_RESOURCE_STATE_SHADING_RATE_SOURCE, "SHADING_RATE_SOURCE"},
    };
    std::string text;
    UINT left = static_cast<UINT>(states);
    for (const auto& [bit, name] : kNames) {
        if (!(left & bit)) continue;
        if (!text.empty()) text += '|';
        text += name;
        left &= ~bit;
    }
    if (left) text += Format("%s0x%x", text.empty() ? "" : "|", left);
    return text;
}

const char* ListTypeName(D3D12_COMMAND_LIST_TYPE type) {
    switch (type) {
        case D3D12_COMMAND_LIST_TYPE_DIRECT: return "DIRECT";
        case D3D12_COMMAND_LIST_TYPE_BUNDLE: return "BUNDLE";
        case D3D12_COMMAND_LIST_TYPE_COMPUTE: return "COMPUTE";
        case D3D12_COMMAND_LIST_TYPE_COPY: return "COPY";
        case D3D12_COMMAND_LIST_TYPE_VIDEO_DECODE: return "VIDEO_DECODE";
        case D3D12_COMMAND_LIST_TYPE_VIDEO_PROCESS: return "VIDEO_PROCESS";
        case D3D12_COMMAND_LIST_TYPE_VIDEO_ENCODE: return "VIDEO_ENCODE";
        default: return "(unknown type)";
    }
}

Status ValidateListType(const D3D12_COMMAND_LIST_TYPE& type) {
    const auto raw = Raw(type);
    INVALID_IF(raw != D3D12_COMMAND_LIST_TYPE_DIRECT && raw != D3D12_COMMAND_LIST_TYPE_COMPUTE &&
                   raw != D3D12_COMMAND_LIST_TYPE_COPY && raw != D3D12_COMMAND_LIST_TYPE_BUNDLE &&
                   raw != D3D12_COMMAND_LIST_TYPE_VIDEO_DECODE && raw != D3D12_COMMAND_LIST_TYPE_VIDEO_PROCESS &&
                   raw != D3D12_COMMAND_LIST_TYPE_VIDEO_ENCODE,
               "type (%d) is not a D3D12_COMMAND_LIST_TYPE.", static_cast<int>(raw));
    return {};
}

bool IsSupportedListType(D3D12_COMMAND_LIST_TYPE type) {
    return type == D3D12_COMMAND_LIST_TYPE_DIRECT || type == D3D12_COMMAND_LIST_TYPE_COMPUTE ||
           type == D3D12_COMMAND_LIST_TYPE_COPY;
}

std::string NamedObject(const char* kind, const std::string& name) {
    if (name.empty()) return kind;
    return Format("%s '%s'", kind, name.c_str());
}

// ---- State tracking ----------------------------------------------------------------------------

namespace {

bool IsBuffer(ResourceInternal& resource) { return resource.Desc().Dimension == D3D12_RESOURCE_DIMENSION_BUFFER; }

// The one state that resources on UPLOAD and READBACK heaps keep for life.
std::optional<D3D12_RESOURCE_STATES> FixedState(ResourceInternal& resource) {
    switch (resource.HeapType()) {
        case D3D12_HEAP_TYPE_UPLOAD: return D3D12_RESOURCE_STATE_GENERIC_READ;
        case D3D12_HEAP_TYPE_READBACK: return D3D12_RESOURCE_STATE_COPY_DEST;
        default: return std::nullopt;
    }
}

const char* HeapName(ResourceInternal& resource) {
    return resource.HeapType() == D3D12_HEAP_TYPE_UPLOAD ? "UPLOAD" : "READBACK";
}

}  // namespace

void TrackAccess(ExecutionContext& context, const char* command, ResourceInternal& resource,
                 D3D12_RESOURCE_STATES need, const char* role) {
    const bool write = (need & kWriteStates) != 0;
    if (auto fixed = FixedState(resource)) {
        if (!(*fixed & need)) {
            context.device.Report(
                D3D12_MESSAGE_SEVERITY_ERROR, D3D12_MESSAGE_CATEGORY_EXECUTION,
                Format("ID3D12CommandQueue::ExecuteCommandLists: %s uses %s as its %s, but resources on %s "
                       "heaps stay in %s for life, and a %s must be in %s.",
                       command, resource.Describe().c_str(), role, HeapName(resource), StateName(*fixed).c_str(),
                       role, StateName(need).c_str()));
        }
        return;
    }
    StateTrackingScope* scope = context.stateTracking;
    const D3D12_RESOURCE_STATES state = resource.TrackedState();
    StateTrackingScope::Touch* touch = scope ? scope->Find(resource.Id()) : nullptr;
    const bool firstUse = scope && !touch;
    const bool readOnlyPromoted = touch && touch->promoted && !(state & kWriteStates);
    if ((state & need) == need && (write ? state == need : !(state & kWriteStates))) {
        if (scope) scope->Mark(resource.Id());
        return;
    }
    // Implicit promotion: a buffer in COMMON (or decayed to it) becomes what the access needs; read
    // promotions accumulate.
    if (IsBuffer(resource) && (state == D3D12_RESOURCE_STATE_COMMON || firstUse || readOnlyPromoted)) {
        D3D12_RESOURCE_STATES promoted = need;
        if (!write && readOnlyPromoted) promoted = static_cast<D3D12_RESOURCE_STATES>(state | need);
        if (scope) {
            StateTrackingScope::Touch& mark = scope->Mark(resource.Id());
            if (!mark.promoted) mark.beforePromotion = state;
            mark.promoted = true;
        }
        resource.SetTrackedState(promoted);
        return;
    }
    context.device.Report(
        D3D12_MESSAGE_SEVERITY_ERROR, D3D12_MESSAGE_CATEGORY_EXECUTION,
        Format("ID3D12CommandQueue::ExecuteCommandLists: %s uses %s as its %s while it is in state %s; a %s must "
               "be in %s. Add a transition barrier (StateBefore %s, StateAfter %s) before it.",
               command, resource.Describe().c_str(), role, StateName(state).c_str(), role, StateName(need).c_str(),
               StateName(state).c_str(), StateName(need).c_str()));
}

namespace {

// A copy reads (COPY_SOURCE) or writes (COPY_DEST) `resource`.
void TrackCopyAccess(ExecutionContext& context, const char* command, ResourceInternal& resource, bool write) {
    TrackAccess(context, command, resource,
                write ? D3D12_RESOURCE_STATE_COPY_DEST : D3D12_RESOURCE_STATE_COPY_SOURCE,
                write ? "copy destination" : "copy source");
}

}  // namespace


StateTrackingScope::Touch* StateTrackingScope::Find(uint64_t resourceId) {
    auto it = touched_.find(resourceId);
    return it == touched_.end() ? nullptr : &it->second;
}

StateTrackingScope::Touch& StateTrackingScope::Mark(uint64_t resourceId) { return touched_[resourceId]; }

// ---- HeldResource ------------------------------------------------------------------------------

HeldResource::HeldResource(ID3D12Resource* resource) {
    internal_ = GetResourceInternal(resource);
    if (internal_) public_ = Ref<ID3D12Resource>::Share(resource);
}

HeldResource::HeldResource(HeldResource&& other) noexcept
    : public_(std::move(other.public_)), internal_(std::exchange(other.internal_, nullptr)) {}

HeldResource& HeldResource::operator=(HeldResource&& other) noexcept {
    if (this != &other) {
        public_ = std::move(other.public_);
        internal_ = std::exchange(other.internal_, nullptr);
    }
    return *this;
}

// ---- CopyBufferCommand -------------------------------------------------------------------------

CopyBufferCommand::CopyBufferCommand(const char* name, ID3D12Resource* destination, uint64_t destinationOffset,
                                     ID3D12Resource* source, uint64_t sourceOffset, uint64_t byteCount)
    : name_(name),
      destination_(destination),
      source_(source),
      destinationOffset_(destinationOffset),
      sourceOffset_(sourceOffset),
      byteCount_(byteCount) {}

void CopyBufferCommand::Execute(ExecutionContext& context) {
    if (context.device.DebugLayerEnabled()) {
        TrackCopyAccess(context, name_, *source_.get(), false);
        TrackCopyAccess(context, name_, *destination_.get(), true);
    }
    if (byteCount_ == 0) return;
    context.stream.CopyBuffer(destination_->Memory(), destination_->OffsetInMemory() + destinationOffset_,
                              source_->Memory(), source_->OffsetInMemory() + sourceOffset_, byteCount_);
}

// ---- BarrierCommand ----------------------------------------------------------------------------

BarrierCommand::BarrierCommand(UINT count, const D3D12_RESOURCE_BARRIER* barriers) {
    for (UINT i = 0; i < count; ++i) {
        const D3D12_RESOURCE_BARRIER& barrier = barriers[i];
        switch (barrier.Type) {
            case D3D12_RESOURCE_BARRIER_TYPE_TRANSITION:
                transitions_.push_back({HeldResource(barrier.Transition.pResource), barrier.Transition.StateBefore,
                                        barrier.Transition.StateAfter, barrier.Flags, i});
                break;
            case D3D12_RESOURCE_BARRIER_TYPE_ALIASING:
                if (barrier.Aliasing.pResourceBefore) others_.emplace_back(barrier.Aliasing.pResourceBefore);
                if (barrier.Aliasing.pResourceAfter) others_.emplace_back(barrier.Aliasing.pResourceAfter);
                break;
            case D3D12_RESOURCE_BARRIER_TYPE_UAV:
                if (barrier.UAV.pResource) others_.emplace_back(barrier.UAV.pResource);
                break;
        }
    }
}

void BarrierCommand::Execute(ExecutionContext& context) {
    if (!context.device.DebugLayerEnabled()) return;
    StateTrackingScope* scope = context.stateTracking;
    for (Transition& transition : transitions_) {
        // A split barrier changes the state at its END_ONLY half.
        if (transition.flags & D3D12_RESOURCE_BARRIER_FLAG_BEGIN_ONLY) continue;
        ResourceInternal& resource = *transition.resource.get();
        if (auto fixed = FixedState(resource)) {
            context.device.Report(
                D3D12_MESSAGE_SEVERITY_ERROR, D3D12_MESSAGE_CATEGORY_EXECUTION,
                Format("ID3D12CommandQueue::ExecuteCommandLists: ResourceBarrier pBarriers[%u] transitions %s from "
                       "%s to %s, but resources on %s heaps stay in %s for life.",
                       transition.index, resource.Describe().c_str(), StateName(transition.before).c_str(),
                       StateName(transition.after).c_str(), HeapName(resource), StateName(*fixed).c_str()));
            continue;
        }
        const D3D12_RESOURCE_STATES state = resource.TrackedState();
        StateTrackingScope::Touch* touch = scope ? scope->Find(resource.Id()) : nullptr;
        bool matches = transition.before == state;
        if (!matches && IsBuffer(resource) && transition.before == D3D12_RESOURCE_STATE_COMMON) {
            // COMMON is right for a buffer that decayed (first use here) or was promoted from it.
            matches = (scope && !touch) || (touch && touch->promoted);
        }
        if (!matches && touch && touch->promoted) matches = transition.before == touch->beforePromotion;
        if (!matches) {
            context.device.Report(
                D3D12_MESSAGE_SEVERITY_ERROR, D3D12_MESSAGE_CATEGORY_EXECUTION,
                Format("ID3D12CommandQueue::ExecuteCommandLists: ResourceBarrier pBarriers[%u] transitions %s with "
                       "StateBefore %s, but at this point of the queue's timeline the resource is in %s.",
                       transition.index, resource.Describe().c_str(), StateName(transition.before).c_str(),
                       StateName(state).c_str()));
        }
        resource.SetTrackedState(transition.after);
        if (scope) scope->Mark(resource.Id()) = StateTrackingScope::Touch{};
    }
}

}  // namespace freedml::d3d12
