#include "d3d12/command_list.h"

#include <bit>

#include "common/trace.h"
#include "d3d12/command_allocator.h"
#include "d3d12/commands.h"
#include "d3d12/enum_value.h"
#include "d3d12/factories.h"

namespace freedml::d3d12 {

namespace {

// True when `child` (an ID3D12DeviceChild) was made by `device`.
bool SameDevice(DeviceInternal& device, ID3D12DeviceChild* child) {
    ID3D12Device* owner = nullptr;
    if (FAILED(child->GetDevice(__uuidof(ID3D12Device), reinterpret_cast<void**>(&owner))) || !owner) return false;
    bool same = owner == device.PublicDevice();
    owner->Release();
    return same;
}

Status ValidateResource(DeviceInternal& device, ID3D12Resource* resource, const char* argument) {
    INVALID_IF(!resource, "%s is null.", argument);
    ResourceInternal* internal = GetResourceInternal(resource);
    INVALID_IF(!internal, "%s (%p) is not a FreeDML resource.", argument, static_cast<void*>(resource));
    INVALID_IF(!SameDevice(device, resource), "%s (%s) was created on another device.", argument,
               internal->Describe().c_str());
    return {};
}

Status ValidateBuffer(DeviceInternal& device, ID3D12Resource* resource, const char* argument) {
    FREEDML_TRY(ValidateResource(device, resource, argument));
    ResourceInternal* internal = GetResourceInternal(resource);
    INVALID_IF(internal->Desc().Dimension != D3D12_RESOURCE_DIMENSION_BUFFER,
               "%s (%s) is not a buffer (Dimension %d); FreeDML copies buffers only.", argument,
               internal->Describe().c_str(), static_cast<int>(internal->Desc().Dimension));
    return {};
}

Status ValidateRange(ResourceInternal& resource, uint64_t offset, uint64_t byteCount, const char* offsetName,
                     const char* argument) {
    const uint64_t size = resource.SizeInBytes();
    INVALID_IF(offset > size || byteCount > size - offset,
               "%s (%llu) + NumBytes (%llu) is past the end of %s %s (%llu bytes).", offsetName,
               static_cast<unsigned long long>(offset), static_cast<unsigned long long>(byteCount), argument,
               resource.Describe().c_str(), static_cast<unsigned long long>(size));
    return {};
}

Status ValidateCopyBufferRegion(DeviceInternal& device, ID3D12Resource* dst, UINT64 dstOffset, ID3D12Resource* src,
                                UINT64 srcOffset, UINT64 numBytes) {
    FREEDML_TRY(ValidateBuffer(device, dst, "pDstBuffer"));
    FREEDML_TRY(ValidateBuffer(device, src, "pSrcBuffer"));
    ResourceInternal& d = *GetResourceInternal(dst);
    ResourceInternal& s = *GetResourceInternal(src);
    FREEDML_TRY(ValidateRange(d, dstOffset, numBytes, "DstOffset", "pDstBuffer"));
    FREEDML_TRY(ValidateRange(s, srcOffset, numBytes, "SrcOffset", "pSrcBuffer"));
    // Overlap is checked on the bytes of the heap, so placed resources that alias are caught too.
    if (numBytes && &d.Memory() == &s.Memory()) {
        uint64_t a = d.OffsetInMemory() + dstOffset, b = s.OffsetInMemory() + srcOffset;
        INVALID_IF(a < b + numBytes && b < a + numBytes,
                   "the source range (%s, bytes %llu to %llu) and the destination range (%s, bytes %llu to %llu) "
                   "overlap in memory; a copy's ranges must not overlap.",
                   s.Describe().c_str(), static_cast<unsigned long long>(srcOffset),
                   static_cast<unsigned long long>(srcOffset + numBytes), d.Describe().c_str(),
                   static_cast<unsigned long long>(dstOffset), static_cast<unsigned long long>(dstOffset + numBytes));
    }
    return {};
}

Status ValidateCopyResource(DeviceInternal& device, ID3D12Resource* dst, ID3D12Resource* src) {
    FREEDML_TRY(ValidateBuffer(device, dst, "pDstResource"));
    FREEDML_TRY(ValidateBuffer(device, src, "pSrcResource"));
    ResourceInternal& d = *GetResourceInternal(dst);
    ResourceInternal& s = *GetResourceInternal(src);
    INVALID_IF(dst == src || d.Id() == s.Id(), "pDstResource and pSrcResource are the same resource (%s).",
               d.Describe().c_str());
    INVALID_IF(d.SizeInBytes() != s.SizeInBytes(),
               "pDstResource (%s) and pSrcResource (%s) differ in size; CopyResource copies buffers of one size "
               "(use CopyBufferRegion for part of a buffer).",
               d.Describe().c_str(), s.Describe().c_str());
    if (&d.Memory() == &s.Memory()) {
        uint64_t a = d.OffsetInMemory(), b = s.OffsetInMemory(), n = d.SizeInBytes();
        INVALID_IF(n && a < b + n && b < a + n, "pDstResource (%s) and pSrcResource (%s) overlap in their heap.",
                   d.Describe().c_str(), s.Describe().c_str());
    }
    return {};
}

Status ValidateState(const D3D12_RESOURCE_STATES& value, const char* field, D3D12_COMMAND_LIST_TYPE listType) {
    const UINT bits = static_cast<UINT>(Raw(value));
    const auto state = static_cast<D3D12_RESOURCE_STATES>(bits & kKnownStates);
    INVALID_IF(bits & ~kKnownStates, "%s (0x%x) has bits that are not D3D12_RESOURCE_STATES (0x%x).", field, bits,
               bits & ~kKnownStates);
    INVALID_IF((bits & kWriteStates) && std::popcount(bits) > 1,
               "%s (%s) combines a write state with other states; a write state stands alone.", field,
               StateName(state).c_str());
    constexpr UINT kCopyStates = D3D12_RESOURCE_STATE_COPY_SOURCE | D3D12_RESOURCE_STATE_COPY_DEST;
    INVALID_IF(listType == D3D12_COMMAND_LIST_TYPE_COPY && (bits & ~kCopyStates),
               "%s (%s) is not available on a COPY command list (COMMON, COPY_SOURCE and COPY_DEST are).", field,
               StateName(state).c_str());
    return {};
}

Status ValidateBarrier(DeviceInternal& device, D3D12_COMMAND_LIST_TYPE listType, const D3D12_RESOURCE_BARRIER& barrier,
                       UINT index) {
    const UINT flags = static_cast<UINT>(Raw(barrier.Flags));
    switch (Raw(barrier.Type)) {
        case D3D12_RESOURCE_BARRIER_TYPE_TRANSITION: {
            const auto& t = barrier.Transition;
            FREEDML_TRY(ValidateResource(device, t.pResource, Format("pBarriers[%u].Transition.pResource", index).c_str()));
            ResourceInternal& resource = *GetResourceInternal(t.pResource);
            INVALID_IF(flags & ~(D3D12_RESOURCE_BARRIER_FLAG_BEGIN_ONLY | D3D12_RESOURCE_BARRIER_FLAG_END_ONLY),
                       "pBarriers[%u].Flags (0x%x) has bits that are not D3D12_RESOURCE_BARRIER_FLAGS.", index, flags);
            INVALID_IF((flags & D3D12_RESOURCE_BARRIER_FLAG_BEGIN_ONLY) && (flags & D3D12_RESOURCE_BARRIER_FLAG_END_ONLY),
                       "pBarriers[%u].Flags has both BEGIN_ONLY and END_ONLY.", index);
            INVALID_IF(resource.Desc().Dimension == D3D12_RESOURCE_DIMENSION_BUFFER && t.Subresource != 0 &&
                           t.Subresource != D3D12_RESOURCE_BARRIER_ALL_SUBRESOURCES,
                       "pBarriers[%u].Transition.Subresource (%u) is out of range: %s is a buffer, with subresource 0 "
                       "only.",
                       index, t.Subresource, resource.Describe().c_str());
            FREEDML_TRY(ValidateState(t.StateBefore, Format("pBarriers[%u].Transition.StateBefore", index).c_str(),
                                      listType));
            FREEDML_TRY(ValidateState(t.StateAfter, Format("pBarriers[%u].Transition.StateAfter", index).c_str(),
                                      listType));
            INVALID_IF(Raw(t.StateBefore) == Raw(t.StateAfter),
                       "pBarriers[%u] transitions %s from %s to the same state; StateBefore and StateAfter must differ.",
                       index, resource.Describe().c_str(), StateName(t.StateBefore).c_str());
            return {};
        }
        case D3D12_RESOURCE_BARRIER_TYPE_ALIASING:
            INVALID_IF(flags != D3D12_RESOURCE_BARRIER_FLAG_NONE,
                       "pBarriers[%u].Flags (0x%x) must be NONE for an aliasing barrier.", index, flags);
            if (barrier.Aliasing.pResourceBefore) {
                FREEDML_TRY(ValidateResource(device, barrier.Aliasing.pResourceBefore,
                                             Format("pBarriers[%u].Aliasing.pResourceBefore", index).c_str()));
            }
            if (barrier.Aliasing.pResourceAfter) {
                FREEDML_TRY(ValidateResource(device, barrier.Aliasing.pResourceAfter,
                                             Format("pBarriers[%u].Aliasing.pResourceAfter", index).c_str()));
            }
            return {};
        case D3D12_RESOURCE_BARRIER_TYPE_UAV:
            INVALID_IF(flags != D3D12_RESOURCE_BARRIER_FLAG_NONE,
                       "pBarriers[%u].Flags (0x%x) must be NONE for a UAV barrier.", index, flags);
            if (barrier.UAV.pResource) {
                FREEDML_TRY(ValidateResource(device, barrier.UAV.pResource,
                                             Format("pBarriers[%u].UAV.pResource", index).c_str()));
            }
            return {};
    }
    return Error(E_INVALIDARG, "pBarriers[%u].Type (%d) is not TRANSITION, ALIASING or UAV.", index,
                 static_cast<int>(Raw(barrier.Type)));
}

Status ValidateDescriptorHeaps(DeviceInternal& device, D3D12_COMMAND_LIST_TYPE listType, UINT count,
                               ID3D12DescriptorHeap* const* heaps, ID3D12DescriptorHeap** cbvSrvUav) {
    INVALID_IF(listType == D3D12_COMMAND_LIST_TYPE_COPY, "a COPY command list has no descriptor heaps.");
    INVALID_IF(count > 2, "NumDescriptorHeaps (%u) is more than 2 (one CBV_SRV_UAV and one SAMPLER heap).", count);
    INVALID_IF(count && !heaps, "ppDescriptorHeaps is null with NumDescriptorHeaps %u.", count);
    bool seen[2] = {false, false};
    for (UINT i = 0; i < count; ++i) {
        ID3D12DescriptorHeap* heap = heaps[i];
        INVALID_IF(!heap, "ppDescriptorHeaps[%u] is null.", i);
        INVALID_IF(!SameDevice(device, heap), "ppDescriptorHeaps[%u] was created on another device.", i);
        D3D12_DESCRIPTOR_HEAP_DESC desc = heap->GetDesc();
        INVALID_IF(desc.Type != D3D12_DESCRIPTOR_HEAP_TYPE_CBV_SRV_UAV && desc.Type != D3D12_DESCRIPTOR_HEAP_TYPE_SAMPLER,
                   "ppDescriptorHeaps[%u] has Type %d; only CBV_SRV_UAV and SAMPLER heaps are set on a list.", i,
                   static_cast<int>(desc.Type));
        INVALID_IF(!(desc.Flags & D3D12_DESCRIPTOR_HEAP_FLAG_SHADER_VISIBLE),
                   "ppDescriptorHeaps[%u] is not shader visible (Flags 0x%x); create it with "
                   "D3D12_DESCRIPTOR_HEAP_FLAG_SHADER_VISIBLE.",
                   i, static_cast<unsigned>(desc.Flags));
        int slot = desc.Type == D3D12_DESCRIPTOR_HEAP_TYPE_SAMPLER ? 1 : 0;
        INVALID_IF(seen[slot], "ppDescriptorHeaps has two heaps of type %s.", slot ? "SAMPLER" : "CBV_SRV_UAV");
        seen[slot] = true;
        if (slot == 0) *cbvSrvUav = heap;
    }
    return {};
}

}  // namespace

CommandList::CommandList(DeviceInternal& device, D3D12_COMMAND_LIST_TYPE type)
    : device_(device), holdDevice_(Ref<ID3D12Device>::Share(device.PublicDevice())), type_(type) {}

CommandList::~CommandList() {
    recording_.reset();
    cbvSrvUavHeap_.Reset();
    ReleaseAllocator();
}

void CommandList::ReleaseAllocator() {
    if (!allocator_) return;
    if (open_) allocator_->EndRecording(this);
    allocator_.Reset();
}

CommandList* CommandList::FromPublic(ID3D12CommandList* list) {
    void* impl = nullptr;
    if (!list || FAILED(list->QueryInterface(kIidCommandListImpl, &impl))) return nullptr;
    return static_cast<CommandList*>(impl);
}

void* CommandList::QueryExtraInterface(REFIID riid) {
    if (SameGuid(riid, kIidCommandListImpl)) return this;
    if (SameGuid(riid, kIidCommandListInternal)) return static_cast<CommandListInternal*>(this);
    return nullptr;
}

std::string CommandList::Describe() const {
    return Format("%s (%s)", NamedObject("command list", Name()).c_str(), ListTypeName(type_));
}

HRESULT CommandList::GetDevice(REFIID riid, void** device) {
    FREEDML_TRACE_D3D12("ID3D12GraphicsCommandList::GetDevice", this, riid, device);
    if (!device) return E_POINTER;
    return device_.PublicDevice()->QueryInterface(riid, device);
}

void CommandList::BeginRecording(CommandAllocator* allocator) {
    ReleaseAllocator();
    allocator_ = Ref<CommandAllocator>::Share(allocator);
    allocatorGeneration_ = allocator->Generation();
    recording_ = std::make_shared<Recording>();
    cbvSrvUavHeap_.Reset();
    firstError_.clear();
    firstErrorHr_ = S_OK;
    closeFailed_ = false;
    open_ = true;
}

void CommandList::Record(std::unique_ptr<Command> command) {
    if (!CheckOpen(command ? command->Name() : "Record")) return;
    recording_->commands.push_back(std::move(command));
}

void CommandList::FailRecording(const std::string& text) { FailRecordingWith(E_INVALIDARG, text); }

void CommandList::FailRecordingWith(HRESULT hr, const std::string& text) {
    device_.Report(D3D12_MESSAGE_SEVERITY_ERROR, D3D12_MESSAGE_CATEGORY_EXECUTION, text);
    if (open_ && firstErrorHr_ == S_OK) {
        firstErrorHr_ = hr;
        firstError_ = text;
    }
}

bool CommandList::CheckOpen(const char* method) {
    if (open_) return true;
    device_.Report(D3D12_MESSAGE_SEVERITY_ERROR, D3D12_MESSAGE_CATEGORY_EXECUTION,
                   Format("ID3D12GraphicsCommandList::%s: %s is closed; the call is dropped. Reset the list before "
                          "recording.",
                          method, Describe().c_str()));
    return false;
}

void CommandList::Unsupported(const char* method) {
    std::string name = Format("ID3D12GraphicsCommandList::%s", method);
    ReportUnsupported(&device_, name.c_str());
    if (!CheckOpen(method)) return;
    FailRecording(Format("%s: recorded on %s, is outside FreeDML's compute subset; Close will fail and the list "
                         "cannot be executed.",
                         name.c_str(), Describe().c_str()));
}

HRESULT CommandList::Close() {
    FREEDML_TRACE_D3D12("ID3D12GraphicsCommandList::Close", this);
    return Guarded(device_, "ID3D12GraphicsCommandList::Close", [&]() -> HRESULT {
        if (!open_) {
            return Fail(device_,
                        Error(E_FAIL, "ID3D12GraphicsCommandList::Close: %s is already closed. Reset it to record again.",
                              Describe().c_str()),
                        D3D12_MESSAGE_CATEGORY_EXECUTION);
        }
        if (allocator_) allocator_->EndRecording(this);
        open_ = false;
        if (firstErrorHr_ != S_OK) {
            closeFailed_ = true;
            return Fail(device_,
                        Error(firstErrorHr_,
                              "ID3D12GraphicsCommandList::Close: %s had a recording error and cannot be executed: %s",
                              Describe().c_str(), firstError_.c_str()),
                        D3D12_MESSAGE_CATEGORY_EXECUTION);
        }
        return S_OK;
    });
}

HRESULT CommandList::Reset(ID3D12CommandAllocator* allocator, ID3D12PipelineState* initialState) {
    FREEDML_TRACE_D3D12("ID3D12GraphicsCommandList::Reset", this, allocator, initialState);
    return Guarded(device_, "ID3D12GraphicsCommandList::Reset", [&]() -> HRESULT {
        auto fail = [&](HRESULT hr, const std::string& text) {
            return Fail(device_, Error(hr, "ID3D12GraphicsCommandList::Reset of %s: %s", Describe().c_str(), text.c_str()),
                        D3D12_MESSAGE_CATEGORY_EXECUTION);
        };
        if (open_) return fail(E_FAIL, "the list is open; Close it before Reset.");
        CommandAllocator* impl = CommandAllocator::FromPublic(allocator);
        if (!allocator) return fail(E_INVALIDARG, "pAllocator is null.");
        if (!impl) return fail(E_INVALIDARG, "pAllocator is not a FreeDML command allocator.");
        if (&impl->Device() != &device_) return fail(E_INVALIDARG, "pAllocator was created on another device.");
        if (impl->Type() != type_) {
            return fail(E_INVALIDARG, Format("pAllocator (%s) is not of the list's type %s.", impl->Describe().c_str(),
                                             ListTypeName(type_)));
        }
        if (initialState) return ReportUnsupported(&device_, "ID3D12GraphicsCommandList::Reset with a pipeline state");
        if (!impl->ClaimForRecording(this)) {
            CommandList* other = impl->RecordingList();
            return fail(E_INVALIDARG, Format("pAllocator (%s) is in use by %s, which is still open; an allocator records "
                                             "one list at a time.",
                                             impl->Describe().c_str(), other ? other->Describe().c_str() : "another list"));
        }
        BeginRecording(impl);
        return S_OK;
    });
}

void CommandList::ClearState(ID3D12PipelineState* pipelineState) {
    FREEDML_TRACE_D3D12("ID3D12GraphicsCommandList::ClearState", this, pipelineState);
    GuardRecording("ID3D12GraphicsCommandList::ClearState", [&] {
        if (!CheckOpen("ClearState")) return;
        if (type_ == D3D12_COMMAND_LIST_TYPE_COPY) {
            FailRecording(Format("ID3D12GraphicsCommandList::ClearState: %s is a COPY list, which has no state to clear.",
                                 Describe().c_str()));
            return;
        }
        if (pipelineState) return Unsupported("ClearState with a pipeline state");
        cbvSrvUavHeap_.Reset();
    });
}

void CommandList::CopyBufferRegion(ID3D12Resource* dstBuffer, UINT64 dstOffset, ID3D12Resource* srcBuffer,
                                   UINT64 srcOffset, UINT64 numBytes) {
    FREEDML_TRACE_D3D12("ID3D12GraphicsCommandList::CopyBufferRegion", this, dstBuffer, dstOffset, srcBuffer, srcOffset, numBytes);
    GuardRecording("ID3D12GraphicsCommandList::CopyBufferRegion", [&] {
        if (!CheckOpen("CopyBufferRegion")) return;
        Status status = ValidateCopyBufferRegion(device_, dstBuffer, dstOffset, srcBuffer, srcOffset, numBytes);
        if (!status.ok()) {
            status.AddContext(Format("recording ID3D12GraphicsCommandList::CopyBufferRegion on %s", Describe().c_str()));
            return FailRecording(status.FullMessage());
        }
        Record(std::make_unique<CopyBufferCommand>("CopyBufferRegion", dstBuffer, dstOffset, srcBuffer, srcOffset,
                                                   numBytes));
    });
}

void CommandList::CopyResource(ID3D12Resource* dstResource, ID3D12Resource* srcResource) {
    FREEDML_TRACE_D3D12("ID3D12GraphicsCommandList::CopyResource", this, dstResource, srcResource);
    GuardRecording("ID3D12GraphicsCommandList::CopyResource", [&] {
        if (!CheckOpen("CopyResource")) return;
        Status status = ValidateCopyResource(device_, dstResource, srcResource);
        if (!status.ok()) {
            status.AddContext(Format("recording ID3D12GraphicsCommandList::CopyResource on %s", Describe().c_str()));
            return FailRecording(status.FullMessage());
        }
        Record(std::make_unique<CopyBufferCommand>("CopyResource", dstResource, 0, srcResource, 0,
                                                   GetResourceInternal(srcResource)->SizeInBytes()));
    });
}

void CommandList::ResourceBarrier(UINT numBarriers, const D3D12_RESOURCE_BARRIER* barriers) {
    FREEDML_TRACE_D3D12("ID3D12GraphicsCommandList::ResourceBarrier", this, numBarriers, FREEDML_TRACE_LIST(barriers, numBarriers));
    GuardRecording("ID3D12GraphicsCommandList::ResourceBarrier", [&] {
        if (!CheckOpen("ResourceBarrier")) return;
        Status status;
        if (numBarriers && !barriers) status = Error(E_INVALIDARG, "pBarriers is null with NumBarriers %u.", numBarriers);
        for (UINT i = 0; status.ok() && i < numBarriers; ++i) status = ValidateBarrier(device_, type_, barriers[i], i);
        if (!status.ok()) {
            status.AddContext(Format("recording ID3D12GraphicsCommandList::ResourceBarrier on %s", Describe().c_str()));
            return FailRecording(status.FullMessage());
        }
        if (numBarriers) Record(std::make_unique<BarrierCommand>(numBarriers, barriers));
    });
}

void CommandList::SetDescriptorHeaps(UINT numHeaps, ID3D12DescriptorHeap* const* heaps) {
    FREEDML_TRACE_D3D12("ID3D12GraphicsCommandList::SetDescriptorHeaps", this, numHeaps, FREEDML_TRACE_LIST(heaps, numHeaps));
    GuardRecording("ID3D12GraphicsCommandList::SetDescriptorHeaps", [&] {
        if (!CheckOpen("SetDescriptorHeaps")) return;
        ID3D12DescriptorHeap* cbvSrvUav = nullptr;
        Status status = ValidateDescriptorHeaps(device_, type_, numHeaps, heaps, &cbvSrvUav);
        if (!status.ok()) {
            status.AddContext(Format("recording ID3D12GraphicsCommandList::SetDescriptorHeaps on %s", Describe().c_str()));
            return FailRecording(status.FullMessage());
        }
        // Setting heaps replaces both bindings, as in D3D12.
        cbvSrvUavHeap_ = Ref<ID3D12DescriptorHeap>::Share(cbvSrvUav);
    });
}

void CommandList::DiscardResource(ID3D12Resource* resource, const D3D12_DISCARD_REGION* region) {
    FREEDML_TRACE_D3D12("ID3D12GraphicsCommandList::DiscardResource", this, resource, region);
    GuardRecording("ID3D12GraphicsCommandList::DiscardResource", [&] {
        if (!CheckOpen("DiscardResource")) return;
        // Discarding makes the contents undefined; keeping them is a valid implementation.
        Status status = ValidateResource(device_, resource, "pResource");
        if (!status.ok()) {
            status.AddContext(Format("recording ID3D12GraphicsCommandList::DiscardResource on %s", Describe().c_str()));
            FailRecording(status.FullMessage());
        }
    });
}

void CommandList::SetPredication(ID3D12Resource* buffer, UINT64, D3D12_PREDICATION_OP) {
    FREEDML_TRACE_D3D12("ID3D12GraphicsCommandList::SetPredication", this, buffer);
    if (buffer) Unsupported("SetPredication");  // turning predication off is a no-op
}

void CommandList::SetProtectedResourceSession(ID3D12ProtectedResourceSession* session) {
    FREEDML_TRACE_D3D12("ID3D12GraphicsCommandList::SetProtectedResourceSession", this, session);
    if (session) Unsupported("SetProtectedResourceSession");
}

// ---- Outside the compute subset ----------------------------------------------------------------
void CommandList::DrawInstanced(UINT, UINT, UINT, UINT) { FREEDML_TRACE_D3D12("ID3D12GraphicsCommandList::DrawInstanced", this); Unsupported("DrawInstanced"); }
void CommandList::DrawIndexedInstanced(UINT, UINT, UINT, INT, UINT) { FREEDML_TRACE_D3D12("ID3D12GraphicsCommandList::DrawIndexedInstanced", this); Unsupported("DrawIndexedInstanced"); }
void CommandList::Dispatch(UINT, UINT, UINT) { FREEDML_TRACE_D3D12("ID3D12GraphicsCommandList::Dispatch", this); Unsupported("Dispatch"); }
void CommandList::CopyTextureRegion(const D3D12_TEXTURE_COPY_LOCATION*, UINT, UINT, UINT,
                                    const D3D12_TEXTURE_COPY_LOCATION*, const D3D12_BOX*) {
    FREEDML_TRACE_D3D12("ID3D12GraphicsCommandList::CopyTextureRegion", this);
    Unsupported("CopyTextureRegion");
}
void CommandList::CopyTiles(ID3D12Resource*, const D3D12_TILED_RESOURCE_COORDINATE*, const D3D12_TILE_REGION_SIZE*,
                            ID3D12Resource*, UINT64, D3D12_TILE_COPY_FLAGS) {
    FREEDML_TRACE_D3D12("ID3D12GraphicsCommandList::CopyTiles", this);
    Unsupported("CopyTiles");
}
void CommandList::ResolveSubresource(ID3D12Resource*, UINT, ID3D12Resource*, UINT, DXGI_FORMAT) {
    FREEDML_TRACE_D3D12("ID3D12GraphicsCommandList::ResolveSubresource", this);
    Unsupported("ResolveSubresource");
}
void CommandList::IASetPrimitiveTopology(D3D12_PRIMITIVE_TOPOLOGY) { FREEDML_TRACE_D3D12("ID3D12GraphicsCommandList::IASetPrimitiveTopology", this); Unsupported("IASetPrimitiveTopology"); }
void CommandList::RSSetViewports(UINT, const D3D12_VIEWPORT*) { FREEDML_TRACE_D3D12("ID3D12GraphicsCommandList::RSSetViewports", this); Unsupported("RSSetViewports"); }
void CommandList::RSSetScissorRects(UINT, const D3D12_RECT*) { FREEDML_TRACE_D3D12("ID3D12GraphicsCommandList::RSSetScissorRects", this); Unsupported("RSSetScissorRects"); }
void CommandList::OMSetBlendFactor(const FLOAT[4]) { FREEDML_TRACE_D3D12("ID3D12GraphicsCommandList::OMSetBlendFactor", this); Unsupported("OMSetBlendFactor"); }
void CommandList::OMSetStencilRef(UINT) { FREEDML_TRACE_D3D12("ID3D12GraphicsCommandList::OMSetStencilRef", this); Unsupported("OMSetStencilRef"); }
void CommandList::SetPipelineState(ID3D12PipelineState*) { FREEDML_TRACE_D3D12("ID3D12GraphicsCommandList::SetPipelineState", this); Unsupported("SetPipelineState"); }
void CommandList::ExecuteBundle(ID3D12GraphicsCommandList*) { FREEDML_TRACE_D3D12("ID3D12GraphicsCommandList::ExecuteBundle", this); Unsupported("ExecuteBundle"); }
void CommandList::SetComputeRootSignature(ID3D12RootSignature*) { FREEDML_TRACE_D3D12("ID3D12GraphicsCommandList::SetComputeRootSignature", this); Unsupported("SetComputeRootSignature"); }
void CommandList::SetGraphicsRootSignature(ID3D12RootSignature*) { FREEDML_TRACE_D3D12("ID3D12GraphicsCommandList::SetGraphicsRootSignature", this); Unsupported("SetGraphicsRootSignature"); }
void CommandList::SetComputeRootDescriptorTable(UINT, D3D12_GPU_DESCRIPTOR_HANDLE) {
    FREEDML_TRACE_D3D12("ID3D12GraphicsCommandList::SetComputeRootDescriptorTable", this);
    Unsupported("SetComputeRootDescriptorTable");
}
void CommandList::SetGraphicsRootDescriptorTable(UINT, D3D12_GPU_DESCRIPTOR_HANDLE) {
    FREEDML_TRACE_D3D12("ID3D12GraphicsCommandList::SetGraphicsRootDescriptorTable", this);
    Unsupported("SetGraphicsRootDescriptorTable");
}
void CommandList::SetComputeRoot32BitConstant(UINT, UINT, UINT) { FREEDML_TRACE_D3D12("ID3D12GraphicsCommandList::SetComputeRoot32BitConstant", this); Unsupported("SetComputeRoot32BitConstant"); }
void CommandList::SetGraphicsRoot32BitConstant(UINT, UINT, UINT) { FREEDML_TRACE_D3D12("ID3D12GraphicsCommandList::SetGraphicsRoot32BitConstant", this); Unsupported("SetGraphicsRoot32BitConstant"); }
void CommandList::SetComputeRoot32BitConstants(UINT, UINT, const void*, UINT) {
    FREEDML_TRACE_D3D12("ID3D12GraphicsCommandList::SetComputeRoot32BitConstants", this);
    Unsupported("SetComputeRoot32BitConstants");
}
void CommandList::SetGraphicsRoot32BitConstants(UINT, UINT, const void*, UINT) {
    FREEDML_TRACE_D3D12("ID3D12GraphicsCommandList::SetGraphicsRoot32BitConstants", this);
    Unsupported("SetGraphicsRoot32BitConstants");
}
void CommandList::SetComputeRootConstantBufferView(UINT, D3D12_GPU_VIRTUAL_ADDRESS) {
    FREEDML_TRACE_D3D12("ID3D12GraphicsCommandList::SetComputeRootConstantBufferView", this);
    Unsupported("SetComputeRootConstantBufferView");
}
void CommandList::SetGraphicsRootConstantBufferView(UINT, D3D12_GPU_VIRTUAL_ADDRESS) {
    FREEDML_TRACE_D3D12("ID3D12GraphicsCommandList::SetGraphicsRootConstantBufferView", this);
    Unsupported("SetGraphicsRootConstantBufferView");
}
void CommandList::SetComputeRootShaderResourceView(UINT, D3D12_GPU_VIRTUAL_ADDRESS) {
    FREEDML_TRACE_D3D12("ID3D12GraphicsCommandList::SetComputeRootShaderResourceView", this);
    Unsupported("SetComputeRootShaderResourceView");
}
void CommandList::SetGraphicsRootShaderResourceView(UINT, D3D12_GPU_VIRTUAL_ADDRESS) {
    FREEDML_TRACE_D3D12("ID3D12GraphicsCommandList::SetGraphicsRootShaderResourceView", this);
    Unsupported("SetGraphicsRootShaderResourceView");
}
void CommandList::SetComputeRootUnorderedAccessView(UINT, D3D12_GPU_VIRTUAL_ADDRESS) {
    FREEDML_TRACE_D3D12("ID3D12GraphicsCommandList::SetComputeRootUnorderedAccessView", this);
    Unsupported("SetComputeRootUnorderedAccessView");
}
void CommandList::SetGraphicsRootUnorderedAccessView(UINT, D3D12_GPU_VIRTUAL_ADDRESS) {
    FREEDML_TRACE_D3D12("ID3D12GraphicsCommandList::SetGraphicsRootUnorderedAccessView", this);
    Unsupported("SetGraphicsRootUnorderedAccessView");
}
void CommandList::IASetIndexBuffer(const D3D12_INDEX_BUFFER_VIEW*) { FREEDML_TRACE_D3D12("ID3D12GraphicsCommandList::IASetIndexBuffer", this); Unsupported("IASetIndexBuffer"); }
void CommandList::IASetVertexBuffers(UINT, UINT, const D3D12_VERTEX_BUFFER_VIEW*) { FREEDML_TRACE_D3D12("ID3D12GraphicsCommandList::IASetVertexBuffers", this); Unsupported("IASetVertexBuffers"); }
void CommandList::SOSetTargets(UINT, UINT, const D3D12_STREAM_OUTPUT_BUFFER_VIEW*) { FREEDML_TRACE_D3D12("ID3D12GraphicsCommandList::SOSetTargets", this); Unsupported("SOSetTargets"); }
void CommandList::OMSetRenderTargets(UINT, const D3D12_CPU_DESCRIPTOR_HANDLE*, BOOL, const D3D12_CPU_DESCRIPTOR_HANDLE*) {
    FREEDML_TRACE_D3D12("ID3D12GraphicsCommandList::OMSetRenderTargets", this);
    Unsupported("OMSetRenderTargets");
}
void CommandList::ClearDepthStencilView(D3D12_CPU_DESCRIPTOR_HANDLE, D3D12_CLEAR_FLAGS, FLOAT, UINT8, UINT,
                                        const D3D12_RECT*) {
    FREEDML_TRACE_D3D12("ID3D12GraphicsCommandList::ClearDepthStencilView", this);
    Unsupported("ClearDepthStencilView");
}
void CommandList::ClearRenderTargetView(D3D12_CPU_DESCRIPTOR_HANDLE, const FLOAT[4], UINT, const D3D12_RECT*) {
    FREEDML_TRACE_D3D12("ID3D12GraphicsCommandList::ClearRenderTargetView", this);
    Unsupported("ClearRenderTargetView");
}
void CommandList::BeginQuery(ID3D12QueryHeap*, D3D12_QUERY_TYPE, UINT) { FREEDML_TRACE_D3D12("ID3D12GraphicsCommandList::BeginQuery", this); Unsupported("BeginQuery"); }
void CommandList::EndQuery(ID3D12QueryHeap*, D3D12_QUERY_TYPE, UINT) { FREEDML_TRACE_D3D12("ID3D12GraphicsCommandList::EndQuery", this); Unsupported("EndQuery"); }
void CommandList::ResolveQueryData(ID3D12QueryHeap*, D3D12_QUERY_TYPE, UINT, UINT, ID3D12Resource*, UINT64) {
    FREEDML_TRACE_D3D12("ID3D12GraphicsCommandList::ResolveQueryData", this);
    Unsupported("ResolveQueryData");
}
void CommandList::ExecuteIndirect(ID3D12CommandSignature*, UINT, ID3D12Resource*, UINT64, ID3D12Resource*, UINT64) {
    FREEDML_TRACE_D3D12("ID3D12GraphicsCommandList::ExecuteIndirect", this);
    Unsupported("ExecuteIndirect");
}
void CommandList::AtomicCopyBufferUINT(ID3D12Resource*, UINT64, ID3D12Resource*, UINT64, UINT, ID3D12Resource* const*,
                                       const D3D12_SUBRESOURCE_RANGE_UINT64*) {
    FREEDML_TRACE_D3D12("ID3D12GraphicsCommandList::AtomicCopyBufferUINT", this);
    Unsupported("AtomicCopyBufferUINT");
}
void CommandList::AtomicCopyBufferUINT64(ID3D12Resource*, UINT64, ID3D12Resource*, UINT64, UINT,
                                         ID3D12Resource* const*, const D3D12_SUBRESOURCE_RANGE_UINT64*) {
    FREEDML_TRACE_D3D12("ID3D12GraphicsCommandList::AtomicCopyBufferUINT64", this);
    Unsupported("AtomicCopyBufferUINT64");
}
void CommandList::OMSetDepthBounds(FLOAT, FLOAT) { FREEDML_TRACE_D3D12("ID3D12GraphicsCommandList::OMSetDepthBounds", this); Unsupported("OMSetDepthBounds"); }
void CommandList::SetSamplePositions(UINT, UINT, D3D12_SAMPLE_POSITION*) { FREEDML_TRACE_D3D12("ID3D12GraphicsCommandList::SetSamplePositions", this); Unsupported("SetSamplePositions"); }
void CommandList::ResolveSubresourceRegion(ID3D12Resource*, UINT, UINT, UINT, ID3D12Resource*, UINT, D3D12_RECT*,
                                           DXGI_FORMAT, D3D12_RESOLVE_MODE) {
    FREEDML_TRACE_D3D12("ID3D12GraphicsCommandList::ResolveSubresourceRegion", this);
    Unsupported("ResolveSubresourceRegion");
}
void CommandList::SetViewInstanceMask(UINT) { FREEDML_TRACE_D3D12("ID3D12GraphicsCommandList::SetViewInstanceMask", this); Unsupported("SetViewInstanceMask"); }
void CommandList::WriteBufferImmediate(UINT, const D3D12_WRITEBUFFERIMMEDIATE_PARAMETER*,
                                       const D3D12_WRITEBUFFERIMMEDIATE_MODE*) {
    FREEDML_TRACE_D3D12("ID3D12GraphicsCommandList::WriteBufferImmediate", this);
    Unsupported("WriteBufferImmediate");
}
void CommandList::BeginRenderPass(UINT, const D3D12_RENDER_PASS_RENDER_TARGET_DESC*,
                                  const D3D12_RENDER_PASS_DEPTH_STENCIL_DESC*, D3D12_RENDER_PASS_FLAGS) {
    FREEDML_TRACE_D3D12("ID3D12GraphicsCommandList::BeginRenderPass", this);
    Unsupported("BeginRenderPass");
}
void CommandList::EndRenderPass() { FREEDML_TRACE_D3D12("ID3D12GraphicsCommandList::EndRenderPass", this); Unsupported("EndRenderPass"); }
void CommandList::InitializeMetaCommand(ID3D12MetaCommand*, const void*, SIZE_T) { FREEDML_TRACE_D3D12("ID3D12GraphicsCommandList::InitializeMetaCommand", this); Unsupported("InitializeMetaCommand"); }
void CommandList::ExecuteMetaCommand(ID3D12MetaCommand*, const void*, SIZE_T) { FREEDML_TRACE_D3D12("ID3D12GraphicsCommandList::ExecuteMetaCommand", this); Unsupported("ExecuteMetaCommand"); }
void CommandList::BuildRaytracingAccelerationStructure(const D3D12_BUILD_RAYTRACING_ACCELERATION_STRUCTURE_DESC*, UINT,
                                                       const D3D12_RAYTRACING_ACCELERATION_STRUCTURE_POSTBUILD_INFO_DESC*) {
    FREEDML_TRACE_D3D12("ID3D12GraphicsCommandList::BuildRaytracingAccelerationStructure", this);
    Unsupported("BuildRaytracingAccelerationStructure");
}
void CommandList::EmitRaytracingAccelerationStructurePostbuildInfo(
    const D3D12_RAYTRACING_ACCELERATION_STRUCTURE_POSTBUILD_INFO_DESC*, UINT, const D3D12_GPU_VIRTUAL_ADDRESS*) {
    FREEDML_TRACE_D3D12("ID3D12GraphicsCommandList::EmitRaytracingAccelerationStructurePostbuildInfo", this);
    Unsupported("EmitRaytracingAccelerationStructurePostbuildInfo");
}
void CommandList::CopyRaytracingAccelerationStructure(D3D12_GPU_VIRTUAL_ADDRESS, D3D12_GPU_VIRTUAL_ADDRESS,
                                                      D3D12_RAYTRACING_ACCELERATION_STRUCTURE_COPY_MODE) {
    FREEDML_TRACE_D3D12("ID3D12GraphicsCommandList::CopyRaytracingAccelerationStructure", this);
    Unsupported("CopyRaytracingAccelerationStructure");
}
void CommandList::SetPipelineState1(ID3D12StateObject*) { FREEDML_TRACE_D3D12("ID3D12GraphicsCommandList::SetPipelineState1", this); Unsupported("SetPipelineState1"); }
void CommandList::DispatchRays(const D3D12_DISPATCH_RAYS_DESC*) { FREEDML_TRACE_D3D12("ID3D12GraphicsCommandList::DispatchRays", this); Unsupported("DispatchRays"); }
void CommandList::RSSetShadingRate(D3D12_SHADING_RATE, const D3D12_SHADING_RATE_COMBINER*) {
    FREEDML_TRACE_D3D12("ID3D12GraphicsCommandList::RSSetShadingRate", this);
    Unsupported("RSSetShadingRate");
}
void CommandList::RSSetShadingRateImage(ID3D12Resource*) { FREEDML_TRACE_D3D12("ID3D12GraphicsCommandList::RSSetShadingRateImage", this); Unsupported("RSSetShadingRateImage"); }
void CommandList::DispatchMesh(UINT, UINT, UINT) { FREEDML_TRACE_D3D12("ID3D12GraphicsCommandList::DispatchMesh", this); Unsupported("DispatchMesh"); }
void CommandList::Barrier(UINT32, const D3D12_BARRIER_GROUP*) { FREEDML_TRACE_D3D12("ID3D12GraphicsCommandList::Barrier", this); Unsupported("Barrier (enhanced barriers)"); }
void CommandList::OMSetFrontAndBackStencilRef(UINT, UINT) { FREEDML_TRACE_D3D12("ID3D12GraphicsCommandList::OMSetFrontAndBackStencilRef", this); Unsupported("OMSetFrontAndBackStencilRef"); }

// ---- Creation ----------------------------------------------------------------------------------

namespace {
Status ValidateNodeMask(UINT nodeMask) {
    INVALID_IF(nodeMask > 1, "nodeMask (0x%x) names a node that does not exist; FreeDML devices have one node "
               "(nodeMask 0 or 1).", nodeMask);
    return {};
}
}  // namespace

HRESULT CreateCommandList(DeviceInternal& device, UINT nodeMask, const D3D12_COMMAND_LIST_TYPE& type,
                          ID3D12CommandAllocator* allocator, ID3D12PipelineState* initialState, REFIID riid,
                          void** object) {
    const char* call = "calling ID3D12Device::CreateCommandList";
    Status status = ValidateNodeMask(nodeMask);
    if (status.ok()) status = ValidateListType(type);
    if (!status.ok()) return Fail(device, status.AddContext(call), D3D12_MESSAGE_CATEGORY_STATE_CREATION);
    if (!IsSupportedListType(type)) {
        return ReportUnsupported(&device, Format("ID3D12Device::CreateCommandList of type %s", ListTypeName(type)).c_str());
    }
    if (initialState) return ReportUnsupported(&device, "ID3D12Device::CreateCommandList with a pipeline state");
    CommandAllocator* impl = CommandAllocator::FromPublic(allocator);
    auto fail = [&](const std::string& text) {
        return Fail(device, Error(E_INVALIDARG, "%s", text.c_str()).AddContext(call),
                    D3D12_MESSAGE_CATEGORY_STATE_CREATION);
    };
    if (!allocator) return fail("pCommandAllocator is null.");
    if (!impl) return fail("pCommandAllocator is not a FreeDML command allocator.");
    if (&impl->Device() != &device) return fail("pCommandAllocator was created on another device.");
    if (impl->Type() != type) {
        return fail(Format("pCommandAllocator (%s) is not of the list's type %s.", impl->Describe().c_str(),
                           ListTypeName(type)));
    }
    if (ValidateOnly(object)) return kValidatedOnly;
    Ref<CommandList> list(new CommandList(device, type));
    if (!impl->ClaimForRecording(list.Get())) {
        CommandList* other = impl->RecordingList();
        std::string otherName = other ? other->Describe() : "another list";
        list.Reset();
        return fail(Format("pCommandAllocator (%s) is in use by %s, which is still open; an allocator records one "
                           "list at a time.",
                           impl->Describe().c_str(), otherName.c_str()));
    }
    list->BeginRecording(impl);
    return HandOut(list.Detach(), riid, object);
}

HRESULT CreateCommandList1(DeviceInternal& device, UINT nodeMask, const D3D12_COMMAND_LIST_TYPE& type,
                           const D3D12_COMMAND_LIST_FLAGS& flags, REFIID riid, void** object) {
    Status status = ValidateNodeMask(nodeMask);
    if (status.ok()) status = ValidateListType(type);
    if (status.ok() && Raw(flags) != D3D12_COMMAND_LIST_FLAG_NONE) {
        status = Error(E_INVALIDARG, "flags (0x%x) must be D3D12_COMMAND_LIST_FLAG_NONE.",
                       static_cast<unsigned>(Raw(flags)));
    }
    if (!status.ok()) {
        return Fail(device, status.AddContext("calling ID3D12Device4::CreateCommandList1"),
                    D3D12_MESSAGE_CATEGORY_STATE_CREATION);
    }
    if (!IsSupportedListType(type)) {
        return ReportUnsupported(&device,
                                 Format("ID3D12Device4::CreateCommandList1 of type %s", ListTypeName(type)).c_str());
    }
    if (ValidateOnly(object)) return kValidatedOnly;
    return HandOut(new CommandList(device, type), riid, object);  // closed, with no allocator
}

}  // namespace freedml::d3d12
