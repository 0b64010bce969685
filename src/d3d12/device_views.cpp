// Device: buffer views (CBV, SRV, UAV) written into CBV_SRV_UAV slots, and descriptor copies.
#include <cstring>
#include <vector>

#include "common/trace.h"
#include "d3d12/descriptor_heap.h"
#include "d3d12/device.h"
#include "d3d12/enum_value.h"
#include "d3d12/formats.h"
#include "d3d12/resource.h"

namespace freedml::d3d12 {

namespace {

constexpr UINT kRawAlignment = 16;          // a raw view's first byte
constexpr UINT kConstantBufferAlignment = 256;
constexpr UINT kMaxConstantBufferBytes = 4096 * 16;

struct ViewRange {
    UINT64 firstElement;
    UINT numElements;
    UINT structureByteStride;
    bool raw;
};

// Checks a buffer view's format, stride and range against its resource (null: a null view), and
// sets the bytes it covers.
Status ValidateBufferView(const char* where, ResourceInternal* resource, DXGI_FORMAT format, const ViewRange& view,
                          uint64_t* offset, uint64_t* size) {
    UINT elementSize = 0;
    if (view.raw) {
        INVALID_IF(format != DXGI_FORMAT_R32_TYPELESS,
                   "%s: a raw view needs Format DXGI_FORMAT_R32_TYPELESS (got %d).", where, static_cast<int>(format));
        INVALID_IF(view.structureByteStride != 0,
                   "%s: a raw view has StructureByteStride 0 (got %u).", where, view.structureByteStride);
        elementSize = 4;
    } else if (view.structureByteStride != 0) {
        INVALID_IF(format != DXGI_FORMAT_UNKNOWN,
                   "%s: a structured view (StructureByteStride %u) needs Format DXGI_FORMAT_UNKNOWN (got %d).", where,
                   view.structureByteStride, static_cast<int>(format));
        elementSize = view.structureByteStride;
    } else {
        INVALID_IF(format == DXGI_FORMAT_UNKNOWN,
                   "%s: the view has Format DXGI_FORMAT_UNKNOWN and StructureByteStride 0: give a typed format, a "
                   "structure stride or the RAW flag.",
                   where);
        elementSize = BufferFormatSize(format);
        INVALID_IF(elementSize == 0, "%s: Format (%d) is not a format of typed buffer views.", where,
                   static_cast<int>(format));
    }
    INVALID_IF(view.numElements == 0, "%s: NumElements is 0.", where);
    *offset = 0;
    *size = 0;
    if (!resource) return {};  // a null view: reads give zeros, writes are dropped
    uint64_t bytes = resource->SizeInBytes();
    uint64_t maxElements = bytes / elementSize;
    INVALID_IF(view.firstElement > maxElements || view.numElements > maxElements - view.firstElement,
               "%s: the view (FirstElement %llu, NumElements %u, %u bytes each) does not fit in %s.", where,
               static_cast<unsigned long long>(view.firstElement), view.numElements, elementSize,
               resource->Describe().c_str());
    *offset = view.firstElement * elementSize;
    *size = static_cast<uint64_t>(view.numElements) * elementSize;
    INVALID_IF(view.raw && *offset % kRawAlignment != 0,
               "%s: a raw view starts at byte %llu (FirstElement %llu), which is not a multiple of %u.", where,
               static_cast<unsigned long long>(*offset), static_cast<unsigned long long>(view.firstElement),
               kRawAlignment);
    return {};
}

}  // namespace

// Writes `descriptor` into the slot, or an empty descriptor with an error message when the view
// was invalid (so the slot never keeps a stale view that the application meant to replace).
void Device::WriteDescriptor(const char* where, D3D12_CPU_DESCRIPTOR_HANDLE destination, const Status& status,
                             const Descriptor& descriptor) {
    DescriptorRange range;
    Status slot = ResolveSlot(destination.ptr, D3D12_DESCRIPTOR_HEAP_TYPE_CBV_SRV_UAV, false, "DestDescriptor", &range);
    if (!slot.ok()) {
        Fail(slot.AddContext(Format("%s", where)));
        return;
    }
    if (!status.ok()) {
        Fail(status);
        *range.first = Descriptor{};
        return;
    }
    *range.first = descriptor;
}

void Device::CreateUnorderedAccessView(ID3D12Resource* resource, ID3D12Resource* counter,
                                       const D3D12_UNORDERED_ACCESS_VIEW_DESC* desc,
                                       D3D12_CPU_DESCRIPTOR_HANDLE destination) {
    FREEDML_TRACE_D3D12("ID3D12Device::CreateUnorderedAccessView", this, resource, counter, desc, destination);
    // No exception leaves these void methods: one that is thrown (no memory for a message) removes
    // the device, as for every void method (docs/ERRORS.md).
    GuardedOrRemove(*this, "ID3D12Device::CreateUnorderedAccessView", [&] {
        const char* where = "CreateUnorderedAccessView";
        Descriptor descriptor;
        Status status = [&]() -> Status {
            ResourceInternal* internal = nullptr;
            if (resource) {
                internal = GetResourceInternal(resource);
                INVALID_IF(!internal || FindResource(internal->Id()) != internal,
                           "%s: pResource is not a resource of this device.", where);
                INVALID_IF(!(internal->Desc().Flags & D3D12_RESOURCE_FLAG_ALLOW_UNORDERED_ACCESS),
                           "%s: %s was created without D3D12_RESOURCE_FLAG_ALLOW_UNORDERED_ACCESS.", where,
                           internal->Describe().c_str());
            }
            INVALID_IF(counter, "%s: pCounterResource is not supported: FreeDML has no append/consume counters.", where);
            INVALID_IF(!desc, "%s: pDesc is null; a buffer view needs a description.", where);
            INVALID_IF(Raw(desc->ViewDimension) != D3D12_UAV_DIMENSION_BUFFER,
                       "%s: ViewDimension (%d) is not D3D12_UAV_DIMENSION_BUFFER: FreeDML implements buffers only.", where,
                       static_cast<int>(Raw(desc->ViewDimension)));
            INVALID_IF(Raw(desc->Buffer.Flags) & ~D3D12_BUFFER_UAV_FLAG_RAW, "%s: Buffer.Flags (0x%x) has unknown bits.",
                       where, static_cast<unsigned>(Raw(desc->Buffer.Flags)));
            ViewRange view{desc->Buffer.FirstElement, desc->Buffer.NumElements, desc->Buffer.StructureByteStride,
                           (desc->Buffer.Flags & D3D12_BUFFER_UAV_FLAG_RAW) != 0};
            FREEDML_TRY(ValidateBufferView(where, internal, desc->Format, view, &descriptor.offsetInBytes,
                                           &descriptor.sizeInBytes));
            descriptor.kind = Descriptor::Kind::BufferUav;
            descriptor.format = desc->Format;
            descriptor.resourceId = internal ? internal->Id() : 0;
            descriptor.structureByteStride = desc->Buffer.StructureByteStride;
            descriptor.flags = desc->Buffer.Flags;
            return {};
        }();
        WriteDescriptor(where, destination, status, descriptor);
    });
}

void Device::CreateShaderResourceView(ID3D12Resource* resource, const D3D12_SHADER_RESOURCE_VIEW_DESC* desc,
                                      D3D12_CPU_DESCRIPTOR_HANDLE destination) {
    FREEDML_TRACE_D3D12("ID3D12Device::CreateShaderResourceView", this, resource, desc, destination);
    GuardedOrRemove(*this, "ID3D12Device::CreateShaderResourceView", [&] {
        const char* where = "CreateShaderResourceView";
        Descriptor descriptor;
        Status status = [&]() -> Status {
            ResourceInternal* internal = nullptr;
            if (resource) {
                internal = GetResourceInternal(resource);
                INVALID_IF(!internal || FindResource(internal->Id()) != internal,
                           "%s: pResource is not a resource of this device.", where);
                INVALID_IF(internal->Desc().Flags & D3D12_RESOURCE_FLAG_DENY_SHADER_RESOURCE,
                           "%s: %s was created with D3D12_RESOURCE_FLAG_DENY_SHADER_RESOURCE.", where,
                           internal->Describe().c_str());
            }
            INVALID_IF(!desc, "%s: pDesc is null; a buffer view needs a description.", where);
            INVALID_IF(Raw(desc->ViewDimension) != D3D12_SRV_DIMENSION_BUFFER,
                       "%s: ViewDimension (%d) is not D3D12_SRV_DIMENSION_BUFFER: FreeDML implements buffers only.", where,
                       static_cast<int>(Raw(desc->ViewDimension)));
            INVALID_IF(Raw(desc->Buffer.Flags) & ~D3D12_BUFFER_SRV_FLAG_RAW, "%s: Buffer.Flags (0x%x) has unknown bits.",
                       where, static_cast<unsigned>(Raw(desc->Buffer.Flags)));
            ViewRange view{desc->Buffer.FirstElement, desc->Buffer.NumElements, desc->Buffer.StructureByteStride,
                           (desc->Buffer.Flags & D3D12_BUFFER_SRV_FLAG_RAW) != 0};
            FREEDML_TRY(ValidateBufferView(where, internal, desc->Format, view, &descriptor.offsetInBytes,
                                           &descriptor.sizeInBytes));
            descriptor.kind = Descriptor::Kind::BufferSrv;
            descriptor.format = desc->Format;
            descriptor.resourceId = internal ? internal->Id() : 0;
            descriptor.structureByteStride = desc->Buffer.StructureByteStride;
            descriptor.flags = desc->Buffer.Flags;
            return {};
        }();
        WriteDescriptor(where, destination, status, descriptor);
    });
}

void Device::CreateConstantBufferView(const D3D12_CONSTANT_BUFFER_VIEW_DESC* desc,
                                      D3D12_CPU_DESCRIPTOR_HANDLE destination) {
    FREEDML_TRACE_D3D12("ID3D12Device::CreateConstantBufferView", this, desc, destination);
    GuardedOrRemove(*this, "ID3D12Device::CreateConstantBufferView", [&] {
        const char* where = "CreateConstantBufferView";
        Descriptor descriptor;
        Status status = [&]() -> Status {
            INVALID_IF(!desc, "%s: pDesc is null.", where);
            INVALID_IF(desc->SizeInBytes == 0 || desc->SizeInBytes % kConstantBufferAlignment != 0 ||
                           desc->SizeInBytes > kMaxConstantBufferBytes,
                       "%s: SizeInBytes (%u) must be a non-zero multiple of %u, at most %u.", where, desc->SizeInBytes,
                       kConstantBufferAlignment, kMaxConstantBufferBytes);
            descriptor.kind = Descriptor::Kind::ConstantBuffer;
            descriptor.sizeInBytes = desc->SizeInBytes;
            if (desc->BufferLocation == 0) return {};  // a null view
            INVALID_IF(desc->BufferLocation % kConstantBufferAlignment != 0,
                       "%s: BufferLocation (0x%llx) must be a multiple of %u.", where,
                       static_cast<unsigned long long>(desc->BufferLocation), kConstantBufferAlignment);
            Resource* resource = FindResourceByAddress(desc->BufferLocation, desc->SizeInBytes);
            INVALID_IF(!resource,
                       "%s: no live resource of this device holds the %u bytes at BufferLocation (0x%llx).", where,
                       desc->SizeInBytes, static_cast<unsigned long long>(desc->BufferLocation));
            descriptor.resourceId = resource->Id();
            descriptor.offsetInBytes = desc->BufferLocation - resource->GetGPUVirtualAddress();
            return {};
        }();
        WriteDescriptor(where, destination, status, descriptor);
    });
}

void Device::CopyDescriptors(UINT destinationRangeCount, const D3D12_CPU_DESCRIPTOR_HANDLE* destinationStarts,
                             const UINT* destinationSizes, UINT sourceRangeCount,
                             const D3D12_CPU_DESCRIPTOR_HANDLE* sourceStarts, const UINT* sourceSizes,
                             D3D12_DESCRIPTOR_HEAP_TYPE type) {
    FREEDML_TRACE_D3D12("ID3D12Device::CopyDescriptors", this, destinationRangeCount, destinationStarts, destinationSizes, sourceRangeCount, sourceStarts, sourceSizes, type);
    GuardedOrRemove(*this, "ID3D12Device::CopyDescriptors", [&] {
        CopyDescriptorRanges(destinationRangeCount, destinationStarts, destinationSizes, sourceRangeCount, sourceStarts,
                             sourceSizes, type);
    });
}

void Device::CopyDescriptorRanges(UINT destinationRangeCount, const D3D12_CPU_DESCRIPTOR_HANDLE* destinationStarts,
                                  const UINT* destinationSizes, UINT sourceRangeCount,
                                  const D3D12_CPU_DESCRIPTOR_HANDLE* sourceStarts, const UINT* sourceSizes,
                                  const D3D12_DESCRIPTOR_HEAP_TYPE& type) {
    const char* where = "CopyDescriptors";
    struct Span {
        unsigned char* first;
        UINT count;
    };
    std::vector<Span> destinations, sources;
    UINT increment = DescriptorIncrement(type);
    Status status = [&]() -> Status {
        INVALID_IF(increment == 0, "%s: DescriptorHeapsType (%d) is not a descriptor heap type.", where,
                   static_cast<int>(Raw(type)));
        INVALID_IF(destinationRangeCount && !destinationStarts, "%s: pDestDescriptorRangeStarts is null.", where);
        INVALID_IF(sourceRangeCount && !sourceStarts, "%s: pSrcDescriptorRangeStarts is null.", where);
        // Each range must lie in one live heap of the given type (a null size array means ranges of 1).
        auto collect = [&](UINT count, const D3D12_CPU_DESCRIPTOR_HANDLE* starts, const UINT* sizes, const char* what,
                           std::vector<Span>* spans, uint64_t* total) -> Status {
            for (UINT i = 0; i < count; ++i) {
                UINT size = sizes ? sizes[i] : 1;
                *total += size;
                if (size == 0) continue;
                DescriptorRange range;
                FREEDML_TRY_CONTEXT(ResolveSlot(starts[i].ptr, Raw(type), false, "The range start", &range),
                                    "%s: checking %s[%u]", where, what, i);
                INVALID_IF(size > range.slotsLeft,
                           "%s: %s[%u] covers %u descriptors from index %u of a heap of %u descriptors.", where, what,
                           i, size, range.indexInHeap, range.heapDesc.NumDescriptors);
                spans->push_back(Span{reinterpret_cast<unsigned char*>(range.first), size});
            }
            return {};
        };
        uint64_t destinationTotal = 0, sourceTotal = 0;
        FREEDML_TRY(collect(destinationRangeCount, destinationStarts, destinationSizes, "the destination ranges",
                            &destinations, &destinationTotal));
        FREEDML_TRY(collect(sourceRangeCount, sourceStarts, sourceSizes, "the source ranges", &sources, &sourceTotal));
        INVALID_IF(destinationTotal != sourceTotal,
                   "%s: the destination ranges hold %llu descriptors but the source ranges %llu.", where,
                   static_cast<unsigned long long>(destinationTotal), static_cast<unsigned long long>(sourceTotal));
        return {};
    }();
    if (!status.ok()) {
        Fail(status);
        return;
    }
    // Walk both range lists one descriptor at a time.
    size_t d = 0, s = 0;
    UINT dIndex = 0, sIndex = 0;
    while (d < destinations.size() && s < sources.size()) {
        std::memmove(destinations[d].first + static_cast<size_t>(dIndex) * increment,
                     sources[s].first + static_cast<size_t>(sIndex) * increment, increment);
        if (++dIndex == destinations[d].count) {
            ++d;
            dIndex = 0;
        }
        if (++sIndex == sources[s].count) {
            ++s;
            sIndex = 0;
        }
    }
}

void Device::CopyDescriptorsSimple(UINT count, D3D12_CPU_DESCRIPTOR_HANDLE destinationStart,
                                   D3D12_CPU_DESCRIPTOR_HANDLE sourceStart, D3D12_DESCRIPTOR_HEAP_TYPE type) {
    FREEDML_TRACE_D3D12("ID3D12Device::CopyDescriptorsSimple", this, count, destinationStart, sourceStart, type);
    GuardedOrRemove(*this, "ID3D12Device::CopyDescriptorsSimple", [&] {
        CopyDescriptorRanges(1, &destinationStart, &count, 1, &sourceStart, &count, type);
    });
}

}  // namespace freedml::d3d12
