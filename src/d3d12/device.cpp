#include "d3d12/device.h"

#include <cstring>
#include <limits>

#include "common/align.h"
#include "common/trace.h"
#include "d3d12/debug.h"
#include "d3d12/descriptor_heap.h"
#include "d3d12/enum_value.h"
#include "d3d12/factories.h"
#include "d3d12/heap.h"
#include "d3d12/resource.h"

namespace freedml::d3d12 {

Status Device::Create(backend::Adapter* adapter, Device** device) {
    *device = nullptr;
    std::shared_ptr<backend::Device> backend = adapter->GetDevice();
    if (!backend) return Error(DXGI_ERROR_UNSUPPORTED, "The adapter '%s' could not open a device.",
                               adapter->Info().description.c_str());
    *device = new (std::nothrow) Device(adapter, std::move(backend));
    if (!*device) return Error(E_OUTOFMEMORY, "Out of host memory while creating a device.");
    return {};
}

Device::Device(backend::Adapter* adapter, std::shared_ptr<backend::Device> backend)
    : adapter_(adapter),
      backend_(std::move(backend)),
      debug_(DebugLayerRequested() || DebugEnvironment()),
      log_(debug_),
      infoQueue_(std::make_unique<InfoQueue>(static_cast<ID3D12Device*>(this), &log_)) {}

Device::~Device() = default;

void* Device::QueryExtraInterface(REFIID riid) {
    if (SameGuid(riid, kIidDeviceInternal)) return static_cast<DeviceInternal*>(this);  // borrowed
    if (SameGuid(riid, __uuidof(ID3D12InfoQueue)) || SameGuid(riid, __uuidof(ID3D12InfoQueue1))) {
        AddRef();
        return static_cast<ID3D12InfoQueue1*>(infoQueue_.get());
    }
    return nullptr;
}

// ---- Messages, removal, registries ------------------------------------------------------------

void Device::Report(D3D12_MESSAGE_SEVERITY severity, D3D12_MESSAGE_CATEGORY category, const std::string& text) {
    log_.Add(category, severity, D3D12_MESSAGE_ID_UNKNOWN, text);
}

HRESULT Device::Fail(const Status& status) {
    std::string text = status.FullMessage();
    std::string name = Name();
    if (!name.empty()) text += Format(" (device '%s')", name.c_str());
    Report(D3D12_MESSAGE_SEVERITY_ERROR, D3D12_MESSAGE_CATEGORY_MISCELLANEOUS, text);
    return status.hr();
}

void Device::RemoveDevice(HRESULT reason, const std::string& text) { FREEDML_TRACE_D3D12("ID3D12Device::RemoveDevice", this, reason, text); RemoveDeviceFrom("D3D12", reason, text, false); }

void Device::ReportFrom(const char* source, D3D12_MESSAGE_SEVERITY severity, D3D12_MESSAGE_CATEGORY category,
                        const std::string& text, bool echo) {
    log_.Add(category, severity, D3D12_MESSAGE_ID_UNKNOWN, text, source, echo);
}

void Device::RemoveDeviceFrom(const char* source, HRESULT reason, const std::string& text, bool echo) {
    if (SUCCEEDED(reason)) reason = DXGI_ERROR_DEVICE_REMOVED;
    HRESULT expected = S_OK;
    removedReason_.compare_exchange_strong(expected, reason);  // the first reason stays
    std::string message = Format("The device was removed (0x%08x)", static_cast<unsigned>(reason));
    if (!text.empty()) message += ": " + text;
    ReportFrom(source, D3D12_MESSAGE_SEVERITY_CORRUPTION, D3D12_MESSAGE_CATEGORY_EXECUTION, message, echo);
}

void Device::RemoveDevice() { FREEDML_TRACE_D3D12("ID3D12Device::RemoveDevice", this); RemoveDevice(DXGI_ERROR_DEVICE_REMOVED, "ID3D12Device5::RemoveDevice was called."); }

void Device::RegisterResource(Resource* resource) {
    std::lock_guard lock(registryMutex_);
    resources_[resource->Id()] = resource;
}

void Device::UnregisterResource(Resource* resource) {
    std::lock_guard lock(registryMutex_);
    resources_.erase(resource->Id());
    releaseGeneration_.fetch_add(1, std::memory_order_acq_rel);
}

ResourceInternal* Device::FindResource(uint64_t resourceId) {
    std::lock_guard lock(registryMutex_);
    auto it = resources_.find(resourceId);
    return it == resources_.end() ? nullptr : static_cast<ResourceInternal*>(it->second);
}

Resource* Device::FindResourceByAddress(D3D12_GPU_VIRTUAL_ADDRESS address, uint64_t size) {
    std::lock_guard lock(registryMutex_);
    for (auto& [id, resource] : resources_) {
        uint64_t begin = resource->GetGPUVirtualAddress();
        uint64_t end = begin + resource->SizeInBytes();
        if (address >= begin && address < end && size <= end - address) return resource;
    }
    return nullptr;
}

void Device::RegisterDescriptorHeap(DescriptorHeap* heap) {
    std::lock_guard lock(registryMutex_);
    descriptorHeaps_[heap->Begin()] = heap;
}

void Device::UnregisterDescriptorHeap(DescriptorHeap* heap) {
    std::lock_guard lock(registryMutex_);
    descriptorHeaps_.erase(heap->Begin());
    releaseGeneration_.fetch_add(1, std::memory_order_acq_rel);
}

Status Device::ResolveSlot(uintptr_t address, int type, bool needShaderVisible, const char* what,
                           DescriptorRange* range) {
    std::lock_guard lock(registryMutex_);
    auto it = descriptorHeaps_.upper_bound(address);
    DescriptorHeap* heap = nullptr;
    if (it != descriptorHeaps_.begin()) {
        --it;
        if (address < it->second->End()) heap = it->second;
    }
    INVALID_IF(!heap, "%s (0x%llx) is not in any live descriptor heap of this device.", what,
               static_cast<unsigned long long>(address));
    INVALID_IF(type >= 0 && static_cast<int>(Raw(heap->Desc().Type)) != type,
               "%s (0x%llx) is in %s, not in a heap of type %s.", what, static_cast<unsigned long long>(address),
               heap->Describe().c_str(), DescriptorHeapTypeName(static_cast<D3D12_DESCRIPTOR_HEAP_TYPE>(type)));
    INVALID_IF(needShaderVisible && !heap->ShaderVisible(),
               "%s (0x%llx) is in %s, which is not shader visible and so has no GPU handles.", what,
               static_cast<unsigned long long>(address), heap->Describe().c_str());
    uintptr_t offset = address - heap->Begin();
    INVALID_IF(offset % heap->Increment() != 0,
               "%s (0x%llx) is %llu bytes into %s, not a multiple of the descriptor increment (%u).", what,
               static_cast<unsigned long long>(address), static_cast<unsigned long long>(offset),
               heap->Describe().c_str(), heap->Increment());
    range->heapDesc = heap->Desc();
    range->first = reinterpret_cast<Descriptor*>(address);
    range->indexInHeap = static_cast<UINT>(offset / heap->Increment());
    range->slotsLeft = heap->Desc().NumDescriptors - range->indexInHeap;
    range->heapName = heap->Name();
    return {};
}

Status Device::ResolveCpuDescriptor(D3D12_CPU_DESCRIPTOR_HANDLE handle, DescriptorRange* range) {
    return ResolveSlot(handle.ptr, D3D12_DESCRIPTOR_HEAP_TYPE_CBV_SRV_UAV, false, "The CPU descriptor handle", range);
}

Status Device::ResolveGpuDescriptor(D3D12_GPU_DESCRIPTOR_HANDLE handle, DescriptorRange* range) {
    return ResolveSlot(static_cast<uintptr_t>(handle.ptr), D3D12_DESCRIPTOR_HEAP_TYPE_CBV_SRV_UAV, true,
                       "The GPU descriptor handle", range);
}

HRESULT Device::Unsupported(const char* method, void** object) {
    if (object) *object = nullptr;
    return ReportUnsupported(this, method);
}

// ---- Objects of other files --------------------------------------------------------------------

HRESULT Device::CreateCommandQueue(const D3D12_COMMAND_QUEUE_DESC* desc, REFIID riid, void** queue) {
    FREEDML_TRACE_D3D12("ID3D12Device::CreateCommandQueue", this, desc, riid, queue);
    return Guarded(*this, "ID3D12Device::CreateCommandQueue",
                   [&] { return d3d12::CreateCommandQueue(*this, desc, riid, queue); });
}

HRESULT Device::CreateCommandQueue1(const D3D12_COMMAND_QUEUE_DESC* desc, REFIID, REFIID riid, void** queue) {
    FREEDML_TRACE_D3D12("ID3D12Device::CreateCommandQueue1", this, desc, riid, queue);
    // The creator id only groups queues.
    return Guarded(*this, "ID3D12Device9::CreateCommandQueue1",
                   [&] { return d3d12::CreateCommandQueue(*this, desc, riid, queue); });
}

HRESULT Device::CreateCommandAllocator(D3D12_COMMAND_LIST_TYPE type, REFIID riid, void** allocator) {
    FREEDML_TRACE_D3D12("ID3D12Device::CreateCommandAllocator", this, type, riid, allocator);
    return Guarded(*this, "ID3D12Device::CreateCommandAllocator",
                   [&] { return d3d12::CreateCommandAllocator(*this, type, riid, allocator); });
}

HRESULT Device::CreateCommandList(UINT nodeMask, D3D12_COMMAND_LIST_TYPE type, ID3D12CommandAllocator* allocator,
                                  ID3D12PipelineState* initialState, REFIID riid, void** list) {
    FREEDML_TRACE_D3D12("ID3D12Device::CreateCommandList", this, nodeMask, type, allocator, initialState, riid, list);
    return Guarded(*this, "ID3D12Device::CreateCommandList", [&] {
        return d3d12::CreateCommandList(*this, nodeMask, type, allocator, initialState, riid, list);
    });
}

HRESULT Device::CreateCommandList1(UINT nodeMask, D3D12_COMMAND_LIST_TYPE type, D3D12_COMMAND_LIST_FLAGS flags,
                                   REFIID riid, void** list) {
    FREEDML_TRACE_D3D12("ID3D12Device::CreateCommandList1", this, nodeMask, type, flags, riid, list);
    return Guarded(*this, "ID3D12Device4::CreateCommandList1",
                   [&] { return d3d12::CreateCommandList1(*this, nodeMask, type, flags, riid, list); });
}

HRESULT Device::CreateFence(UINT64 initialValue, D3D12_FENCE_FLAGS flags, REFIID riid, void** fence) {
    FREEDML_TRACE_D3D12("ID3D12Device::CreateFence", this, initialValue, flags, riid, fence);
    return Guarded(*this, "ID3D12Device::CreateFence",
                   [&] { return d3d12::CreateFence(*this, initialValue, flags, riid, fence); });
}

HRESULT Device::CreateDescriptorHeap(const D3D12_DESCRIPTOR_HEAP_DESC* desc, REFIID riid, void** heap) {
    FREEDML_TRACE_D3D12("ID3D12Device::CreateDescriptorHeap", this, desc, riid, heap);
    return Guarded(*this, "ID3D12Device::CreateDescriptorHeap", [&]() -> HRESULT {
        if (heap) *heap = nullptr;
        Status status = ValidateDescriptorHeapDesc(desc);
        if (!status.ok()) return Fail(status);
        if (ValidateOnly(heap)) return kValidatedOnly;
        DescriptorHeap* created = nullptr;
        status = DescriptorHeap::Create(this, *desc, &created);
        if (!status.ok()) return Fail(status);
        return HandOut(created, riid, heap);
    });
}

UINT Device::GetDescriptorHandleIncrementSize(D3D12_DESCRIPTOR_HEAP_TYPE type) { FREEDML_TRACE_D3D12("ID3D12Device::GetDescriptorHandleIncrementSize", this, type); return DescriptorIncrement(type); }

// ---- Heaps and resources -----------------------------------------------------------------------

HRESULT Device::CreateHeap(const D3D12_HEAP_DESC* desc, REFIID riid, void** heap) {
    FREEDML_TRACE_D3D12("ID3D12Device::CreateHeap", this, desc, riid, heap);
    return Guarded(*this, "ID3D12Device::CreateHeap", [&]() -> HRESULT {
        if (heap) *heap = nullptr;
        backend::MemoryPool pool;
        Status status = ValidateHeapDesc(desc, adapter_->Info().unifiedMemory, &pool);
        if (!status.ok()) return Fail(status);
        if (FAILED(RemovedReason())) return DXGI_ERROR_DEVICE_REMOVED;
        if (ValidateOnly(heap)) return kValidatedOnly;
        D3D12_HEAP_DESC allocated = *desc;
        // Whole alignment units, so a resource placed in the last unit stays inside the memory.
        uint64_t alignment = desc->Alignment ? desc->Alignment : kBufferAlignment;
        Heap* created = nullptr;
        status = [&]() -> Status {
            INVALID_IF(desc->SizeInBytes > std::numeric_limits<uint64_t>::max() - alignment,
                       "CreateHeap: SizeInBytes (%llu) is larger than any memory.",
                       static_cast<unsigned long long>(desc->SizeInBytes));
            D3D12_HEAP_DESC rounded = allocated;
            rounded.SizeInBytes = AlignUp(desc->SizeInBytes, alignment);
            FREEDML_TRY_CONTEXT(Heap::Create(this, rounded, pool, false, &created), "creating a heap of %llu bytes",
                                static_cast<unsigned long long>(desc->SizeInBytes));
            return {};
        }();
        if (!status.ok()) return Fail(status);
        return HandOut(created, riid, heap);
    });
}

HRESULT Device::CreateHeap1(const D3D12_HEAP_DESC* desc, ID3D12ProtectedResourceSession* session, REFIID riid,
                            void** heap) {
    FREEDML_TRACE_D3D12("ID3D12Device::CreateHeap1", this, desc, session, riid, heap);
    if (session) {
        if (heap) *heap = nullptr;
        return Fail(Error(E_INVALIDARG, "CreateHeap1: protected resource sessions are not supported."));
    }
    return CreateHeap(desc, riid, heap);
}

HRESULT Device::CreateCommitted(const char* where, const D3D12_HEAP_PROPERTIES* properties,
                                const D3D12_HEAP_FLAGS& flags, const D3D12_RESOURCE_DESC* desc,
                                const D3D12_RESOURCE_STATES& state, REFIID riid, void** resource) {
    return Guarded(*this, where, [&]() -> HRESULT {
        if (resource) *resource = nullptr;
        backend::MemoryPool pool;
        Status status = [&]() -> Status {
            FREEDML_TRY(ValidateHeapProperties(properties, flags, where, adapter_->Info().unifiedMemory, &pool));
            INVALID_IF(flags & D3D12_HEAP_FLAG_DENY_BUFFERS,
                       "%s: D3D12_HEAP_FLAG_DENY_BUFFERS is set, but the resource is a buffer.", where);
            FREEDML_TRY(ValidateBufferDesc(desc, where));
            FREEDML_TRY(ValidateInitialState(*properties, state, where));
            return {};
        }();
        if (!status.ok()) return Fail(status);
        if (FAILED(RemovedReason())) return DXGI_ERROR_DEVICE_REMOVED;
        if (ValidateOnly(resource)) return kValidatedOnly;

        D3D12_HEAP_DESC heapDesc{};
        heapDesc.SizeInBytes = AlignUp(desc->Width, kBufferAlignment);
        heapDesc.Properties = *properties;
        heapDesc.Alignment = kBufferAlignment;
        heapDesc.Flags = flags;
        Ref<Heap> heap;  // the resource holds its own reference
        status = Heap::Create(this, heapDesc, pool, true, heap.Put());
        if (!status.ok()) return Fail(status.AddContext(Format("creating a committed buffer of %llu bytes",
                                                               static_cast<unsigned long long>(desc->Width))));
        Ref<Resource> created;
        status = Resource::Create(this, heap.Get(), 0, *desc, state, created.Put());
        if (!status.ok()) return Fail(status);
        return HandOut(created.Detach(), riid, resource);
    });
}

HRESULT Device::CreateCommittedResource(const D3D12_HEAP_PROPERTIES* properties, D3D12_HEAP_FLAGS flags,
                                        const D3D12_RESOURCE_DESC* desc, D3D12_RESOURCE_STATES state,
                                        const D3D12_CLEAR_VALUE*, REFIID riid, void** resource) {
    FREEDML_TRACE_D3D12("ID3D12Device::CreateCommittedResource", this, properties, flags, desc, state, riid, resource);
    return CreateCommitted("CreateCommittedResource", properties, flags, desc, state, riid, resource);
}

HRESULT Device::CreateCommittedResource1(const D3D12_HEAP_PROPERTIES* properties, D3D12_HEAP_FLAGS flags,
                                         const D3D12_RESOURCE_DESC* desc, D3D12_RESOURCE_STATES state,
                                         const D3D12_CLEAR_VALUE*, ID3D12ProtectedResourceSession* session,
                                         REFIID riid, void** resource) {
    FREEDML_TRACE_D3D12("ID3D12Device::CreateCommittedResource1", this, properties, flags, desc, state, session, riid, resource);
    if (session) {
        if (resource) *resource = nullptr;
        return Fail(Error(E_INVALIDARG, "CreateCommittedResource1: protected resource sessions are not supported."));
    }
    return CreateCommitted("CreateCommittedResource1", properties, flags, desc, state, riid, resource);
}

Status ToResourceDesc(const D3D12_RESOURCE_DESC1* desc1, const char* where, D3D12_RESOURCE_DESC* desc) {
    INVALID_IF(!desc1, "%s: the D3D12_RESOURCE_DESC1 pointer is null.", where);
    INVALID_IF(desc1->SamplerFeedbackMipRegion.Width || desc1->SamplerFeedbackMipRegion.Height ||
                   desc1->SamplerFeedbackMipRegion.Depth,
               "%s: SamplerFeedbackMipRegion must be zero: FreeDML has no sampler feedback.", where);
    // DESC1 is DESC followed by the sampler feedback region; bytes, so no enum is loaded unchecked.
    constexpr size_t kShared = offsetof(D3D12_RESOURCE_DESC, Flags) + sizeof(D3D12_RESOURCE_FLAGS);
    static_assert(offsetof(D3D12_RESOURCE_DESC1, SamplerFeedbackMipRegion) >= kShared);
    *desc = D3D12_RESOURCE_DESC{};
    std::memcpy(desc, desc1, kShared);
    return {};
}

HRESULT Device::CreateCommittedResource2(const D3D12_HEAP_PROPERTIES* properties, D3D12_HEAP_FLAGS flags,
                                         const D3D12_RESOURCE_DESC1* desc1, D3D12_RESOURCE_STATES state,
                                         const D3D12_CLEAR_VALUE*, ID3D12ProtectedResourceSession* session,
                                         REFIID riid, void** resource) {
    FREEDML_TRACE_D3D12("ID3D12Device::CreateCommittedResource2", this, properties, flags, desc1, state, session, riid, resource);
    if (resource) *resource = nullptr;
    D3D12_RESOURCE_DESC desc{};
    Status status = ToResourceDesc(desc1, "CreateCommittedResource2", &desc);
    if (status.ok() && session) {
        status = Error(E_INVALIDARG, "CreateCommittedResource2: protected resource sessions are not supported.");
    }
    if (!status.ok()) return Fail(status);
    return CreateCommitted("CreateCommittedResource2", properties, flags, &desc, state, riid, resource);
}

HRESULT Device::CreatePlaced(const char* where, ID3D12Heap* publicHeap, UINT64 offset, const D3D12_RESOURCE_DESC* desc,
                             const D3D12_RESOURCE_STATES& state, REFIID riid, void** resource) {
    return Guarded(*this, where, [&]() -> HRESULT {
        if (resource) *resource = nullptr;
        Heap* heap = nullptr;
        Status status = [&]() -> Status {
            INVALID_IF(!publicHeap, "%s: the heap is null.", where);
            heap = Heap::FromPublic(publicHeap);
            INVALID_IF(!heap, "%s: the heap is not a FreeDML heap.", where);
            INVALID_IF(heap->Owner() != this, "%s: the heap belongs to another device.", where);
            FREEDML_TRY(ValidateBufferDesc(desc, where));
            std::string heapName = heap->Name().empty() ? "" : " '" + heap->Name() + "'";
            INVALID_IF(heap->Desc().Flags & D3D12_HEAP_FLAG_DENY_BUFFERS,
                       "%s: heap%s was created with D3D12_HEAP_FLAG_DENY_BUFFERS and cannot hold a buffer.", where,
                       heapName.c_str());
            INVALID_IF(offset % kBufferAlignment != 0, "%s: HeapOffset (%llu) must be a multiple of 65536.", where,
                       static_cast<unsigned long long>(offset));
            uint64_t size = AlignUp(desc->Width, kBufferAlignment);
            uint64_t heapSize = heap->Desc().SizeInBytes;
            INVALID_IF(offset > heapSize || size > heapSize - offset,
                       "%s: the buffer (%llu bytes, %llu once aligned) at HeapOffset (%llu) does not fit in heap%s of "
                       "%llu bytes.",
                       where, static_cast<unsigned long long>(desc->Width), static_cast<unsigned long long>(size),
                       static_cast<unsigned long long>(offset), heapName.c_str(), static_cast<unsigned long long>(heapSize));
            FREEDML_TRY(ValidateInitialState(heap->Desc().Properties, state, where));
            return {};
        }();
        if (!status.ok()) return Fail(status);
        if (FAILED(RemovedReason())) return DXGI_ERROR_DEVICE_REMOVED;
        if (ValidateOnly(resource)) return kValidatedOnly;
        Resource* created = nullptr;
        status = Resource::Create(this, heap, offset, *desc, state, &created);
        if (!status.ok()) return Fail(status);
        return HandOut(created, riid, resource);
    });
}

HRESULT Device::CreatePlacedResource(ID3D12Heap* heap, UINT64 offset, const D3D12_RESOURCE_DESC* desc,
                                     D3D12_RESOURCE_STATES state, const D3D12_CLEAR_VALUE*, REFIID riid,
                                     void** resource) {
    FREEDML_TRACE_D3D12("ID3D12Device::CreatePlacedResource", this, heap, offset, desc, state, riid, resource);
    return CreatePlaced("CreatePlacedResource", heap, offset, desc, state, riid, resource);
}

HRESULT Device::CreatePlacedResource1(ID3D12Heap* heap, UINT64 offset, const D3D12_RESOURCE_DESC1* desc1,
                                      D3D12_RESOURCE_STATES state, const D3D12_CLEAR_VALUE*, REFIID riid,
                                      void** resource) {
    FREEDML_TRACE_D3D12("ID3D12Device::CreatePlacedResource1", this, heap, offset, desc1, state, riid, resource);
    if (resource) *resource = nullptr;
    D3D12_RESOURCE_DESC desc{};
    Status status = ToResourceDesc(desc1, "CreatePlacedResource1", &desc);
    if (!status.ok()) return Fail(status);
    return CreatePlaced("CreatePlacedResource1", heap, offset, &desc, state, riid, resource);
}

HRESULT Device::CreateReservedResource(const D3D12_RESOURCE_DESC*, D3D12_RESOURCE_STATES, const D3D12_CLEAR_VALUE*,
                                       REFIID, void** resource) {
    FREEDML_TRACE_D3D12("ID3D12Device::CreateReservedResource", this, resource);
    return Unsupported("ID3D12Device::CreateReservedResource", resource);
}

HRESULT Device::CreateReservedResource1(const D3D12_RESOURCE_DESC*, D3D12_RESOURCE_STATES, const D3D12_CLEAR_VALUE*,
                                        ID3D12ProtectedResourceSession*, REFIID, void** resource) {
    FREEDML_TRACE_D3D12("ID3D12Device::CreateReservedResource1", this, resource);
    return Unsupported("ID3D12Device4::CreateReservedResource1", resource);
}

// ---- Sizes -------------------------------------------------------------------------------------

D3D12_RESOURCE_ALLOCATION_INFO Device::AllocationInfo(const char* where, UINT descCount,
                                                      const D3D12_RESOURCE_DESC* descs,
                                                      D3D12_RESOURCE_ALLOCATION_INFO1* infos) {
    D3D12_RESOURCE_ALLOCATION_INFO total{0, kBufferAlignment};
    if (descCount && !descs) {
        Fail(Error(E_INVALIDARG, "%s: %u descriptions were announced but the pointer is null.", where, descCount));
        total.SizeInBytes = std::numeric_limits<UINT64>::max();
        return total;
    }
    for (UINT i = 0; i < descCount; ++i) {
        Status status = ValidateBufferDesc(&descs[i], where);
        if (!status.ok()) {
            Fail(status.AddContext(Format("validating pResourceDescs[%u]", i)));
            total.SizeInBytes = std::numeric_limits<UINT64>::max();  // D3D12's answer for an invalid desc
            if (infos) {
                for (UINT k = i; k < descCount; ++k) {
                    infos[k] = {std::numeric_limits<UINT64>::max(), 0, std::numeric_limits<UINT64>::max()};
                }
            }
            return total;
        }
        uint64_t offset = AlignUp(total.SizeInBytes, kBufferAlignment);
        uint64_t size = AlignUp(descs[i].Width, kBufferAlignment);
        if (infos) infos[i] = {offset, kBufferAlignment, size};
        total.SizeInBytes = offset + size;
    }
    return total;
}

D3D12_RESOURCE_ALLOCATION_INFO Device::GetResourceAllocationInfo(UINT, UINT descCount, const D3D12_RESOURCE_DESC* descs) {
    FREEDML_TRACE_D3D12("ID3D12Device::GetResourceAllocationInfo", this, descCount, descs);
    return AllocationInfo("GetResourceAllocationInfo", descCount, descs, nullptr);
}

D3D12_RESOURCE_ALLOCATION_INFO Device::GetResourceAllocationInfo1(UINT, UINT descCount, const D3D12_RESOURCE_DESC* descs,
                                                                  D3D12_RESOURCE_ALLOCATION_INFO1* infos) {
    FREEDML_TRACE_D3D12("ID3D12Device::GetResourceAllocationInfo1", this, descCount, descs, infos);
    return AllocationInfo("GetResourceAllocationInfo1", descCount, descs, infos);
}

D3D12_RESOURCE_ALLOCATION_INFO Device::GetResourceAllocationInfo2(UINT, UINT descCount,
                                                                  const D3D12_RESOURCE_DESC1* descs1,
                                                                  D3D12_RESOURCE_ALLOCATION_INFO1* infos) {
    FREEDML_TRACE_D3D12("ID3D12Device::GetResourceAllocationInfo2", this, descCount, descs1, infos);
    std::vector<D3D12_RESOURCE_DESC> descs(descCount && descs1 ? descCount : 0);
    for (UINT i = 0; i < descs.size(); ++i) {
        Status status = ToResourceDesc(&descs1[i], "GetResourceAllocationInfo2", &descs[i]);
        if (!status.ok()) {
            Fail(status);
            return {std::numeric_limits<UINT64>::max(), kBufferAlignment};
        }
    }
    return AllocationInfo("GetResourceAllocationInfo2", descCount, descs1 ? descs.data() : nullptr, infos);
}

void Device::CopyableFootprints(const D3D12_RESOURCE_DESC* desc, UINT firstSubresource, UINT subresourceCount,
                                UINT64 baseOffset, D3D12_PLACED_SUBRESOURCE_FOOTPRINT* layouts, UINT* rowCounts,
                                UINT64* rowSizes, UINT64* totalBytes) {
    Status status = [&]() -> Status {
        FREEDML_TRY(ValidateBufferDesc(desc, "GetCopyableFootprints"));
        INVALID_IF(firstSubresource != 0 || subresourceCount != 1,
                   "GetCopyableFootprints: FirstSubresource (%u) and NumSubresources (%u) must be 0 and 1: a buffer "
                   "has one subresource.",
                   firstSubresource, subresourceCount);
        INVALID_IF(desc->Width > std::numeric_limits<UINT>::max() - D3D12_TEXTURE_DATA_PITCH_ALIGNMENT,
                   "GetCopyableFootprints: Width (%llu) does not fit a footprint's 32-bit width.",
                   static_cast<unsigned long long>(desc->Width));
        return {};
    }();
    if (!status.ok()) {
        Fail(status);
        // D3D12 fills the outputs with all ones on failure.
        UINT count = subresourceCount > 0 && subresourceCount < 4096 ? subresourceCount : 0;
        if (layouts) std::memset(layouts, 0xff, sizeof(*layouts) * count);
        if (rowCounts) std::memset(rowCounts, 0xff, sizeof(*rowCounts) * count);
        if (rowSizes) std::memset(rowSizes, 0xff, sizeof(*rowSizes) * count);
        if (totalBytes) *totalBytes = std::numeric_limits<UINT64>::max();
        return;
    }
    if (layouts) {
        layouts[0].Offset = baseOffset;
        layouts[0].Footprint.Format = DXGI_FORMAT_UNKNOWN;
        layouts[0].Footprint.Width = static_cast<UINT>(desc->Width);
        layouts[0].Footprint.Height = 1;
        layouts[0].Footprint.Depth = 1;
        layouts[0].Footprint.RowPitch = static_cast<UINT>(AlignUp(desc->Width, D3D12_TEXTURE_DATA_PITCH_ALIGNMENT));
    }
    if (rowCounts) rowCounts[0] = 1;
    if (rowSizes) rowSizes[0] = desc->Width;
    if (totalBytes) *totalBytes = desc->Width;
}

void Device::GetCopyableFootprints(const D3D12_RESOURCE_DESC* desc, UINT firstSubresource, UINT subresourceCount,
                                   UINT64 baseOffset, D3D12_PLACED_SUBRESOURCE_FOOTPRINT* layouts, UINT* rowCounts,
                                   UINT64* rowSizes, UINT64* totalBytes) {
    FREEDML_TRACE_D3D12("ID3D12Device::GetCopyableFootprints", this, desc, firstSubresource, subresourceCount, baseOffset, layouts, rowCounts, rowSizes, totalBytes);
    CopyableFootprints(desc, firstSubresource, subresourceCount, baseOffset, layouts, rowCounts, rowSizes, totalBytes);
}

void Device::GetCopyableFootprints1(const D3D12_RESOURCE_DESC1* desc1, UINT firstSubresource, UINT subresourceCount,
                                    UINT64 baseOffset, D3D12_PLACED_SUBRESOURCE_FOOTPRINT* layouts, UINT* rowCounts,
                                    UINT64* rowSizes, UINT64* totalBytes) {
    FREEDML_TRACE_D3D12("ID3D12Device::GetCopyableFootprints1", this, desc1, firstSubresource, subresourceCount, baseOffset, layouts, rowCounts, rowSizes, totalBytes);
    D3D12_RESOURCE_DESC desc{};
    Status status = ToResourceDesc(desc1, "GetCopyableFootprints1", &desc);
    if (!status.ok()) {
        Fail(status);
        if (totalBytes) *totalBytes = std::numeric_limits<UINT64>::max();
        return;
    }
    CopyableFootprints(&desc, firstSubresource, subresourceCount, baseOffset, layouts, rowCounts, rowSizes, totalBytes);
}

D3D12_HEAP_PROPERTIES Device::GetCustomHeapProperties(UINT nodeMask, D3D12_HEAP_TYPE type) {
    FREEDML_TRACE_D3D12("ID3D12Device::GetCustomHeapProperties", this, nodeMask, type);
    // The CUSTOM equivalents: all in L0 on a cache-coherent UMA adapter (the CPU); on a discrete
    // one (a CUDA GPU) DEFAULT is L1, the GPU's memory, and UPLOAD and READBACK are host memory.
    D3D12_HEAP_PROPERTIES properties{};
    if (!CustomEquivalent(type, adapter_->Info().unifiedMemory, &properties)) {
        Fail(Error(E_INVALIDARG, "GetCustomHeapProperties: heapType (%d) must be DEFAULT, UPLOAD or READBACK.",
                   static_cast<int>(Raw(type))));
    }
    (void)nodeMask;
    return properties;
}

LUID Device::GetAdapterLuid() { FREEDML_TRACE_D3D12("ID3D12Device::GetAdapterLuid", this); return adapter_->Info().luid; }

// ---- Residency, power, removal -----------------------------------------------------------------

HRESULT Device::MakeResident(UINT count, ID3D12Pageable* const* objects) {
    FREEDML_TRACE_D3D12("ID3D12Device::MakeResident", this, count, objects);
    if (count && !objects) return Fail(Error(E_INVALIDARG, "MakeResident: ppObjects is null for %u objects.", count));
    return S_OK;  // host memory is always resident
}

HRESULT Device::Evict(UINT count, ID3D12Pageable* const* objects) {
    FREEDML_TRACE_D3D12("ID3D12Device::Evict", this, count, objects);
    if (count && !objects) return Fail(Error(E_INVALIDARG, "Evict: ppObjects is null for %u objects.", count));
    return S_OK;
}

HRESULT Device::SetResidencyPriority(UINT count, ID3D12Pageable* const* objects, const D3D12_RESIDENCY_PRIORITY* priorities) {
    FREEDML_TRACE_D3D12("ID3D12Device::SetResidencyPriority", this, count, objects, priorities);
    if (count && (!objects || !priorities)) {
        return Fail(Error(E_INVALIDARG, "SetResidencyPriority: ppObjects or pPriorities is null for %u objects.", count));
    }
    return S_OK;
}

HRESULT Device::EnqueueMakeResident(D3D12_RESIDENCY_FLAGS, UINT count, ID3D12Pageable* const* objects, ID3D12Fence* fence,
                                    UINT64 value) {
    FREEDML_TRACE_D3D12("ID3D12Device::EnqueueMakeResident", this, count, objects, fence, value);
    if ((count && !objects) || !fence) {
        return Fail(Error(E_INVALIDARG, "EnqueueMakeResident: ppObjects (for %u objects) or pFenceToSignal is null.", count));
    }
    return fence->Signal(value);  // already resident: signal at once
}

HRESULT Device::SetStablePowerState(BOOL) { FREEDML_TRACE_D3D12("ID3D12Device::SetStablePowerState", this); return S_OK; }  // the CPU adapter has no clocks to pin

HRESULT Device::SetBackgroundProcessingMode(D3D12_BACKGROUND_PROCESSING_MODE, D3D12_MEASUREMENTS_ACTION, HANDLE,
                                            BOOL* furtherMeasurementsDesired) {
    FREEDML_TRACE_D3D12("ID3D12Device::SetBackgroundProcessingMode", this, furtherMeasurementsDesired);
    if (furtherMeasurementsDesired) *furtherMeasurementsDesired = FALSE;
    return S_OK;
}

// ---- Outside the compute subset ----------------------------------------------------------------

HRESULT Device::CreateGraphicsPipelineState(const D3D12_GRAPHICS_PIPELINE_STATE_DESC*, REFIID, void** state) {
    FREEDML_TRACE_D3D12("ID3D12Device::CreateGraphicsPipelineState", this, state);
    return Unsupported("ID3D12Device::CreateGraphicsPipelineState", state);
}
HRESULT Device::CreateComputePipelineState(const D3D12_COMPUTE_PIPELINE_STATE_DESC*, REFIID, void** state) {
    FREEDML_TRACE_D3D12("ID3D12Device::CreateComputePipelineState", this, state);
    return Unsupported("ID3D12Device::CreateComputePipelineState", state);
}
HRESULT Device::CreateRootSignature(UINT, const void*, SIZE_T, REFIID, void** signature) {
    FREEDML_TRACE_D3D12("ID3D12Device::CreateRootSignature", this, signature);
    return Unsupported("ID3D12Device::CreateRootSignature", signature);
}
void Device::CreateRenderTargetView(ID3D12Resource*, const D3D12_RENDER_TARGET_VIEW_DESC*, D3D12_CPU_DESCRIPTOR_HANDLE) {
    FREEDML_TRACE_D3D12("ID3D12Device::CreateRenderTargetView", this);
    Unsupported("ID3D12Device::CreateRenderTargetView");
}
void Device::CreateDepthStencilView(ID3D12Resource*, const D3D12_DEPTH_STENCIL_VIEW_DESC*, D3D12_CPU_DESCRIPTOR_HANDLE) {
    FREEDML_TRACE_D3D12("ID3D12Device::CreateDepthStencilView", this);
    Unsupported("ID3D12Device::CreateDepthStencilView");
}
void Device::CreateSampler(const D3D12_SAMPLER_DESC*, D3D12_CPU_DESCRIPTOR_HANDLE) {
    FREEDML_TRACE_D3D12("ID3D12Device::CreateSampler", this);
    Unsupported("ID3D12Device::CreateSampler");
}
HRESULT Device::CreateSharedHandle(ID3D12DeviceChild*, const SECURITY_ATTRIBUTES*, DWORD, LPCWSTR, HANDLE* handle) {
    FREEDML_TRACE_D3D12("ID3D12Device::CreateSharedHandle", this, handle);
    if (handle) *handle = nullptr;
    return Unsupported("ID3D12Device::CreateSharedHandle");
}
HRESULT Device::OpenSharedHandle(HANDLE, REFIID, void** object) {
    FREEDML_TRACE_D3D12("ID3D12Device::OpenSharedHandle", this, object);
    return Unsupported("ID3D12Device::OpenSharedHandle", object);
}
HRESULT Device::OpenSharedHandleByName(LPCWSTR, DWORD, HANDLE* handle) {
    FREEDML_TRACE_D3D12("ID3D12Device::OpenSharedHandleByName", this, handle);
    if (handle) *handle = nullptr;
    return Unsupported("ID3D12Device::OpenSharedHandleByName");
}
HRESULT Device::CreateQueryHeap(const D3D12_QUERY_HEAP_DESC*, REFIID, void** heap) {
    FREEDML_TRACE_D3D12("ID3D12Device::CreateQueryHeap", this, heap);
    return Unsupported("ID3D12Device::CreateQueryHeap", heap);
}
HRESULT Device::CreateCommandSignature(const D3D12_COMMAND_SIGNATURE_DESC*, ID3D12RootSignature*, REFIID,
                                       void** signature) {
    FREEDML_TRACE_D3D12("ID3D12Device::CreateCommandSignature", this, signature);
    return Unsupported("ID3D12Device::CreateCommandSignature", signature);
}
void Device::GetResourceTiling(ID3D12Resource*, UINT* tileCount, D3D12_PACKED_MIP_INFO* packedMips,
                               D3D12_TILE_SHAPE* tileShape, UINT* subresourceTilingCount, UINT,
                               D3D12_SUBRESOURCE_TILING*) {
    FREEDML_TRACE_D3D12("ID3D12Device::GetResourceTiling", this, tileCount, packedMips, tileShape, subresourceTilingCount);
    // Buffers that are not reserved have no tiling: report zero tiles.
    if (tileCount) *tileCount = 0;
    if (packedMips) *packedMips = D3D12_PACKED_MIP_INFO{};
    if (tileShape) *tileShape = D3D12_TILE_SHAPE{};
    if (subresourceTilingCount) *subresourceTilingCount = 0;
    Unsupported("ID3D12Device::GetResourceTiling");
}
HRESULT Device::CreatePipelineLibrary(const void*, SIZE_T, REFIID, void** library) {
    FREEDML_TRACE_D3D12("ID3D12Device::CreatePipelineLibrary", this, library);
    return Unsupported("ID3D12Device1::CreatePipelineLibrary", library);
}
HRESULT Device::SetEventOnMultipleFenceCompletion(ID3D12Fence* const*, const UINT64*, UINT,
                                                  D3D12_MULTIPLE_FENCE_WAIT_FLAGS, HANDLE) {
    FREEDML_TRACE_D3D12("ID3D12Device::SetEventOnMultipleFenceCompletion", this);
    return Unsupported("ID3D12Device1::SetEventOnMultipleFenceCompletion");
}
HRESULT Device::CreatePipelineState(const D3D12_PIPELINE_STATE_STREAM_DESC*, REFIID, void** state) {
    FREEDML_TRACE_D3D12("ID3D12Device::CreatePipelineState", this, state);
    return Unsupported("ID3D12Device2::CreatePipelineState", state);
}
HRESULT Device::OpenExistingHeapFromAddress(const void*, REFIID, void** heap) {
    FREEDML_TRACE_D3D12("ID3D12Device::OpenExistingHeapFromAddress", this, heap);
    return Unsupported("ID3D12Device3::OpenExistingHeapFromAddress", heap);
}
HRESULT Device::OpenExistingHeapFromFileMapping(HANDLE, REFIID, void** heap) {
    FREEDML_TRACE_D3D12("ID3D12Device::OpenExistingHeapFromFileMapping", this, heap);
    return Unsupported("ID3D12Device3::OpenExistingHeapFromFileMapping", heap);
}
HRESULT Device::CreateProtectedResourceSession(const D3D12_PROTECTED_RESOURCE_SESSION_DESC*, REFIID, void** session) {
    FREEDML_TRACE_D3D12("ID3D12Device::CreateProtectedResourceSession", this, session);
    return Unsupported("ID3D12Device4::CreateProtectedResourceSession", session);
}
HRESULT Device::CreateLifetimeTracker(ID3D12LifetimeOwner*, REFIID, void** tracker) {
    FREEDML_TRACE_D3D12("ID3D12Device::CreateLifetimeTracker", this, tracker);
    return Unsupported("ID3D12Device5::CreateLifetimeTracker", tracker);
}
HRESULT Device::EnumerateMetaCommands(UINT* count, D3D12_META_COMMAND_DESC*) {
    FREEDML_TRACE_D3D12("ID3D12Device::EnumerateMetaCommands", this, count);
    if (!count) return Fail(Error(E_INVALIDARG, "EnumerateMetaCommands: pNumMetaCommands is null."));
    *count = 0;  // FreeDML offers no meta commands
    return S_OK;
}
HRESULT Device::EnumerateMetaCommandParameters(REFGUID, D3D12_META_COMMAND_PARAMETER_STAGE, UINT* totalSize,
                                               UINT* parameterCount, D3D12_META_COMMAND_PARAMETER_DESC*) {
    FREEDML_TRACE_D3D12("ID3D12Device::EnumerateMetaCommandParameters", this, totalSize, parameterCount);
    if (totalSize) *totalSize = 0;
    if (parameterCount) *parameterCount = 0;
    return Fail(Error(E_INVALIDARG, "EnumerateMetaCommandParameters: FreeDML has no meta commands."));
}
HRESULT Device::CreateMetaCommand(REFGUID, UINT, const void*, SIZE_T, REFIID, void** metaCommand) {
    FREEDML_TRACE_D3D12("ID3D12Device::CreateMetaCommand", this, metaCommand);
    return Unsupported("ID3D12Device5::CreateMetaCommand", metaCommand);
}
HRESULT Device::CreateStateObject(const D3D12_STATE_OBJECT_DESC*, REFIID, void** stateObject) {
    FREEDML_TRACE_D3D12("ID3D12Device::CreateStateObject", this, stateObject);
    return Unsupported("ID3D12Device5::CreateStateObject", stateObject);
}
void Device::GetRaytracingAccelerationStructurePrebuildInfo(const D3D12_BUILD_RAYTRACING_ACCELERATION_STRUCTURE_INPUTS*,
                                                            D3D12_RAYTRACING_ACCELERATION_STRUCTURE_PREBUILD_INFO* info) {
    FREEDML_TRACE_D3D12("ID3D12Device::GetRaytracingAccelerationStructurePrebuildInfo", this, info);
    if (info) *info = D3D12_RAYTRACING_ACCELERATION_STRUCTURE_PREBUILD_INFO{};
    Unsupported("ID3D12Device5::GetRaytracingAccelerationStructurePrebuildInfo");
}
D3D12_DRIVER_MATCHING_IDENTIFIER_STATUS Device::CheckDriverMatchingIdentifier(
    D3D12_SERIALIZED_DATA_TYPE, const D3D12_SERIALIZED_DATA_DRIVER_MATCHING_IDENTIFIER*) {
    FREEDML_TRACE_D3D12("ID3D12Device::CheckDriverMatchingIdentifier", this);
    return D3D12_DRIVER_MATCHING_IDENTIFIER_UNSUPPORTED_TYPE;  // FreeDML serializes nothing
}
HRESULT Device::AddToStateObject(const D3D12_STATE_OBJECT_DESC*, ID3D12StateObject*, REFIID, void** stateObject) {
    FREEDML_TRACE_D3D12("ID3D12Device::AddToStateObject", this, stateObject);
    return Unsupported("ID3D12Device7::AddToStateObject", stateObject);
}
HRESULT Device::CreateProtectedResourceSession1(const D3D12_PROTECTED_RESOURCE_SESSION_DESC1*, REFIID, void** session) {
    FREEDML_TRACE_D3D12("ID3D12Device::CreateProtectedResourceSession1", this, session);
    return Unsupported("ID3D12Device7::CreateProtectedResourceSession1", session);
}
void Device::CreateSamplerFeedbackUnorderedAccessView(ID3D12Resource*, ID3D12Resource*, D3D12_CPU_DESCRIPTOR_HANDLE) {
    FREEDML_TRACE_D3D12("ID3D12Device::CreateSamplerFeedbackUnorderedAccessView", this);
    Unsupported("ID3D12Device8::CreateSamplerFeedbackUnorderedAccessView");
}
HRESULT Device::CreateShaderCacheSession(const D3D12_SHADER_CACHE_SESSION_DESC*, REFIID, void** session) {
    FREEDML_TRACE_D3D12("ID3D12Device::CreateShaderCacheSession", this, session);
    return Unsupported("ID3D12Device9::CreateShaderCacheSession", session);
}
HRESULT Device::ShaderCacheControl(D3D12_SHADER_CACHE_KIND_FLAGS, D3D12_SHADER_CACHE_CONTROL_FLAGS) {
    FREEDML_TRACE_D3D12("ID3D12Device::ShaderCacheControl", this);
    return Unsupported("ID3D12Device9::ShaderCacheControl");
}

}  // namespace freedml::d3d12
