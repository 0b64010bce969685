#include "d3d12/heap.h"

#include <atomic>

#include "common/trace.h"
#include "d3d12/device.h"
#include "d3d12/enum_value.h"

namespace freedml::d3d12 {

namespace {
std::atomic<uint64_t> gNextHeapId{1};
constexpr UINT64 k64KiB = 64 * 1024;
constexpr UINT64 k4MiB = 4 * 1024 * 1024;
// Private to libd3d12: how the device finds its Heap behind an ID3D12Heap (borrowed pointer).
constexpr GUID kIidHeapSelf = {0x6a3e1f0b, 0x5d2c, 0x4e8a, {0x9b, 0x41, 0x7c, 0x2d, 0x10, 0xe5, 0x33, 0x81}};
}  // namespace

Heap* Heap::FromPublic(ID3D12Heap* heap) {
    void* self = nullptr;
    if (!heap || FAILED(heap->QueryInterface(kIidHeapSelf, &self))) return nullptr;
    return static_cast<Heap*>(self);
}

void* Heap::QueryExtraInterface(REFIID riid) { return SameGuid(riid, kIidHeapSelf) ? this : nullptr; }

const char* HeapTypeName(const D3D12_HEAP_TYPE& type) {
    switch (Raw(type)) {
        case D3D12_HEAP_TYPE_DEFAULT: return "D3D12_HEAP_TYPE_DEFAULT";
        case D3D12_HEAP_TYPE_UPLOAD: return "D3D12_HEAP_TYPE_UPLOAD";
        case D3D12_HEAP_TYPE_READBACK: return "D3D12_HEAP_TYPE_READBACK";
        case D3D12_HEAP_TYPE_CUSTOM: return "D3D12_HEAP_TYPE_CUSTOM";
        default: return "an unknown heap type";
    }
}

Status ValidateHeapProperties(const D3D12_HEAP_PROPERTIES* properties, const D3D12_HEAP_FLAGS& flags, const char* where,
                              bool uma, backend::MemoryPool* pool) {
    INVALID_IF(!properties, "%s: the heap properties pointer is null.", where);
    const D3D12_HEAP_PROPERTIES& p = *properties;
    INVALID_IF(p.CreationNodeMask > 1 || p.VisibleNodeMask > 1,
               "%s: D3D12_HEAP_PROPERTIES.CreationNodeMask (%u) and VisibleNodeMask (%u) must be 0 or 1: the "
               "adapter has one node.",
               where, p.CreationNodeMask, p.VisibleNodeMask);
    const auto page = Raw(p.CPUPageProperty);
    const auto memoryPool = Raw(p.MemoryPoolPreference);
    switch (Raw(p.Type)) {
        case D3D12_HEAP_TYPE_DEFAULT:
        case D3D12_HEAP_TYPE_UPLOAD:
        case D3D12_HEAP_TYPE_READBACK:
            INVALID_IF(page != D3D12_CPU_PAGE_PROPERTY_UNKNOWN || memoryPool != D3D12_MEMORY_POOL_UNKNOWN,
                       "%s: a heap of type %s must leave CPUPageProperty (%d) and MemoryPoolPreference (%d) UNKNOWN; "
                       "only CUSTOM heaps set them.",
                       where, HeapTypeName(p.Type), static_cast<int>(page), static_cast<int>(memoryPool));
            *pool = p.Type == D3D12_HEAP_TYPE_DEFAULT  ? backend::MemoryPool::Device
                    : p.Type == D3D12_HEAP_TYPE_UPLOAD ? backend::MemoryPool::Upload
                                                       : backend::MemoryPool::Readback;
            break;
        case D3D12_HEAP_TYPE_CUSTOM:
            // D3D12's rules for CUSTOM heaps: both properties named; L1 (the adapter's own memory)
            // exists only on a discrete adapter and is never CPU-accessible.
            INVALID_IF(page < D3D12_CPU_PAGE_PROPERTY_NOT_AVAILABLE || page > D3D12_CPU_PAGE_PROPERTY_WRITE_BACK,
                       "%s: a CUSTOM heap needs CPUPageProperty NOT_AVAILABLE, WRITE_COMBINE or WRITE_BACK (got %d).",
                       where, static_cast<int>(page));
            INVALID_IF(memoryPool != D3D12_MEMORY_POOL_L0 && memoryPool != D3D12_MEMORY_POOL_L1,
                       "%s: a CUSTOM heap needs MemoryPoolPreference D3D12_MEMORY_POOL_L0 or L1 (got %d).", where,
                       static_cast<int>(memoryPool));
            INVALID_IF(memoryPool == D3D12_MEMORY_POOL_L1 && uma,
                       "%s: MemoryPoolPreference is D3D12_MEMORY_POOL_L1, but the adapter is UMA and has only L0 "
                       "(D3D12_FEATURE_ARCHITECTURE).",
                       where);
            INVALID_IF(memoryPool == D3D12_MEMORY_POOL_L1 && page != D3D12_CPU_PAGE_PROPERTY_NOT_AVAILABLE,
                       "%s: a CUSTOM heap in D3D12_MEMORY_POOL_L1 (the adapter's own memory) needs CPUPageProperty "
                       "NOT_AVAILABLE (got %d): the CPU cannot reach L1.",
                       where, static_cast<int>(page));
            if (memoryPool == D3D12_MEMORY_POOL_L1) {
                *pool = backend::MemoryPool::Device;
            } else if (page == D3D12_CPU_PAGE_PROPERTY_WRITE_COMBINE) {
                *pool = backend::MemoryPool::Upload;
            } else if (page == D3D12_CPU_PAGE_PROPERTY_WRITE_BACK) {
                *pool = backend::MemoryPool::Readback;
            } else {
                // NOT_AVAILABLE in L0: the adapter's memory on a UMA adapter; on a discrete one, host
                // memory that only the adapter touches (pinned, as an UPLOAD heap's, but never mapped).
                *pool = uma ? backend::MemoryPool::Device : backend::MemoryPool::Upload;
            }
            break;
        default:
            return Error(E_INVALIDARG, "%s: D3D12_HEAP_PROPERTIES.Type (%d) is not a heap type.", where,
                         static_cast<int>(Raw(p.Type)));
    }
    constexpr int kUnsupportedFlags = D3D12_HEAP_FLAG_SHARED | D3D12_HEAP_FLAG_ALLOW_DISPLAY |
                                      D3D12_HEAP_FLAG_SHARED_CROSS_ADAPTER | D3D12_HEAP_FLAG_HARDWARE_PROTECTED |
                                      D3D12_HEAP_FLAG_ALLOW_WRITE_WATCH;
    constexpr int kKnownFlags = 0x1fff;
    const auto bits = Raw(flags);
    INVALID_IF((bits & ~kKnownFlags) != 0, "%s: D3D12_HEAP_FLAGS (0x%x) has unknown bits.", where,
               static_cast<unsigned>(bits));
    if (bits & kUnsupportedFlags) {
        return Error(E_INVALIDARG,
                     "%s: D3D12_HEAP_FLAGS (0x%x) asks for sharing, display, protection or write watch (0x%x), which "
                     "FreeDML does not support.",
                     where, static_cast<unsigned>(bits), static_cast<unsigned>(bits & kUnsupportedFlags));
    }
    return {};
}

Status ValidateHeapDesc(const D3D12_HEAP_DESC* desc, bool uma, backend::MemoryPool* pool) {
    INVALID_IF(!desc, "CreateHeap: the D3D12_HEAP_DESC pointer is null.");
    FREEDML_TRY(ValidateHeapProperties(&desc->Properties, desc->Flags, "CreateHeap", uma, pool));
    INVALID_IF(desc->SizeInBytes == 0, "CreateHeap: D3D12_HEAP_DESC.SizeInBytes is 0.");
    INVALID_IF(desc->Alignment != 0 && desc->Alignment != k64KiB && desc->Alignment != k4MiB,
               "CreateHeap: D3D12_HEAP_DESC.Alignment (%llu) must be 0, 65536 or 4194304.",
               static_cast<unsigned long long>(desc->Alignment));
    return {};
}

bool CustomEquivalent(const D3D12_HEAP_TYPE& type, bool uma, D3D12_HEAP_PROPERTIES* properties) {
    *properties = {};
    properties->Type = D3D12_HEAP_TYPE_CUSTOM;
    properties->CreationNodeMask = 1;
    properties->VisibleNodeMask = 1;
    properties->MemoryPoolPreference = D3D12_MEMORY_POOL_L0;
    switch (Raw(type)) {
        case D3D12_HEAP_TYPE_DEFAULT:
            properties->CPUPageProperty = D3D12_CPU_PAGE_PROPERTY_NOT_AVAILABLE;
            if (!uma) properties->MemoryPoolPreference = D3D12_MEMORY_POOL_L1;  // the adapter's own memory
            return true;
        case D3D12_HEAP_TYPE_UPLOAD: properties->CPUPageProperty = D3D12_CPU_PAGE_PROPERTY_WRITE_COMBINE; return true;
        case D3D12_HEAP_TYPE_READBACK: properties->CPUPageProperty = D3D12_CPU_PAGE_PROPERTY_WRITE_BACK; return true;
        default: properties->MemoryPoolPreference = D3D12_MEMORY_POOL_UNKNOWN; return false;
    }
}

bool HeapIsMappable(const D3D12_HEAP_PROPERTIES& properties) {
    if (properties.Type == D3D12_HEAP_TYPE_UPLOAD || properties.Type == D3D12_HEAP_TYPE_READBACK) return true;
    return properties.Type == D3D12_HEAP_TYPE_CUSTOM &&
           properties.CPUPageProperty != D3D12_CPU_PAGE_PROPERTY_NOT_AVAILABLE;
}

Status Heap::Create(Device* device, const D3D12_HEAP_DESC& desc, backend::MemoryPool pool, bool implicit,
                    Heap** heap) {
    *heap = nullptr;
    std::unique_ptr<backend::Memory> memory;
    FREEDML_TRY(device->Backend().Allocate(desc.SizeInBytes, pool, &memory));
    D3D12_HEAP_DESC stored = desc;
    if (stored.Alignment == 0) stored.Alignment = k64KiB;
    // D3D12 reports node masks of 1 on a single-node adapter.
    if (stored.Properties.CreationNodeMask == 0) stored.Properties.CreationNodeMask = 1;
    if (stored.Properties.VisibleNodeMask == 0) stored.Properties.VisibleNodeMask = 1;
    *heap = new (std::nothrow) Heap(device, stored, std::move(memory), implicit);
    if (!*heap) return Error(E_OUTOFMEMORY, "Out of host memory while creating a heap.");
    return {};
}

Heap::Heap(Device* device, const D3D12_HEAP_DESC& desc, std::unique_ptr<backend::Memory> memory, bool implicit)
    : device_(Ref<Device>::Share(device)),
      desc_(desc),
      memory_(std::move(memory)),
      id_(gNextHeapId++),
      implicit_(implicit) {}

Heap::~Heap() {
    memory_.reset();  // before the device (and its backend) may go
}

HRESULT Heap::GetDevice(REFIID riid, void** device) { FREEDML_TRACE_D3D12("ID3D12Heap::GetDevice", this, riid, device); return device_->QueryInterface(riid, device); }

HRESULT Heap::GetProtectedResourceSession(REFIID riid, void** session) {
    FREEDML_TRACE_D3D12("ID3D12Heap::GetProtectedResourceSession", this, riid, session);
    if (session) *session = nullptr;
    return DXGI_ERROR_NOT_FOUND;  // FreeDML heaps never have a protected session
}

}  // namespace freedml::d3d12
