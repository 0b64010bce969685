// ClearUnorderedAccessViewUint and ClearUnorderedAccessViewFloat on buffer views: the view's bytes
// are set to one element, built at record time from the four values and the view's format, and
// the queue's stream fills them (backend::Stream::Fill) when the list runs.
#include <cmath>
#include <cstring>
#include <string>

#include "common/half.h"
#include "common/trace.h"
#include "d3d12/command_list.h"
#include "d3d12/commands.h"
#include "d3d12/enum_value.h"
#include "d3d12/formats.h"

namespace freedml::d3d12 {

namespace {

// The bytes of one element of the view, which the clear repeats over it.
struct ClearPattern {
    unsigned char bytes[16] = {};
    uint32_t size = 0;
};

void PutChannel(ClearPattern* pattern, UINT channel, UINT bits, uint32_t value) {
    const UINT bytes = bits / 8;
    for (UINT b = 0; b < bytes; ++b) pattern->bytes[channel * bytes + b] = static_cast<unsigned char>(value >> (8 * b));
}

// A float for a FLOAT channel of `bits` bits. The runtime flushes denormal inputs to zero (keeping
// NaN); 16-bit channels round to the nearest half.
uint32_t FloatChannel(float value, UINT bits) {
    if (std::fpclassify(value) == FP_SUBNORMAL) value = std::signbit(value) ? -0.0f : 0.0f;
    if (bits == 32) {
        uint32_t word;
        std::memcpy(&word, &value, sizeof(word));
        return word;
    }
    return FloatToHalf(value);
}

// UNORM maps [0, 1] to [0, 2^n - 1], SNORM [-1, 1] to [-(2^(n-1) - 1), 2^(n-1) - 1], rounding to
// the nearest integer; values outside clamp, NaN becomes 0.
uint32_t NormChannel(float value, UINT bits, bool isSigned) {
    if (std::isnan(value)) return 0;
    const double scale = isSigned ? double((1u << (bits - 1)) - 1) : double((1ull << bits) - 1);
    const double clamped = std::fmin(std::fmax(double(value), isSigned ? -1.0 : 0.0), 1.0);
    const auto integer = static_cast<int64_t>(std::nearbyint(clamped * scale));
    return static_cast<uint32_t>(integer);
}

const char* KindName(ChannelKind kind) {
    switch (kind) {
        case ChannelKind::Typeless: return "typeless";
        case ChannelKind::Float: return "float";
        case ChannelKind::Unorm: return "UNORM";
        case ChannelKind::Snorm: return "SNORM";
        case ChannelKind::Uint: return "UINT";
        case ChannelKind::Sint: return "SINT";
    }
    return "unknown";
}

// The element a clear writes into `view`. Uint copies the low bits of each value into its channel
// with no conversion; raw and structured views take Values[0] in every 32-bit word. Float converts
// to FLOAT, UNORM and SNORM channels, the only ones it clears (as in D3D11 and D3D12).
Status MakePattern(const char* method, const Descriptor& view, const void* values, bool floats,
                   ClearPattern* pattern) {
    const bool raw = (view.flags & D3D12_BUFFER_UAV_FLAG_RAW) != 0;
    if (raw || view.structureByteStride != 0) {
        INVALID_IF(floats,
                   "%s: the view is %s buffer view, which ClearUnorderedAccessViewFloat does not clear (it converts to "
                   "FLOAT, UNORM and SNORM formats); use ClearUnorderedAccessViewUint with the value's bits.",
                   method, raw ? "a raw" : "a structured");
        INVALID_IF(view.structureByteStride % 4 != 0,
                   "%s: the structured view's StructureByteStride (%u) is not a multiple of 4, so its 32-bit words "
                   "cannot be cleared.",
                   method, view.structureByteStride);
        PutChannel(pattern, 0, 32, static_cast<const UINT*>(values)[0]);
        pattern->size = 4;
        return {};
    }
    const FormatLayout layout = BufferFormatLayout(view.format);
    INVALID_IF(layout.channels == 0, "%s: the view's Format (%d) is not a format FreeDML clears.", method,
               static_cast<int>(view.format));
    const bool convertible =
        layout.kind == ChannelKind::Float || layout.kind == ChannelKind::Unorm || layout.kind == ChannelKind::Snorm;
    INVALID_IF(floats && !convertible,
               "%s: the view's Format (%d) is a %s format; ClearUnorderedAccessViewFloat clears FLOAT, UNORM and "
               "SNORM formats only. Use ClearUnorderedAccessViewUint.",
               method, static_cast<int>(view.format), KindName(layout.kind));
    for (UINT c = 0; c < layout.channels; ++c) {
        uint32_t bits;
        if (!floats) {
            bits = static_cast<const UINT*>(values)[c];
        } else {
            const float value = static_cast<const FLOAT*>(values)[c];
            bits = layout.kind == ChannelKind::Float ? FloatChannel(value, layout.bitsPerChannel)
                                                     : NormChannel(value, layout.bitsPerChannel,
                                                                   layout.kind == ChannelKind::Snorm);
        }
        PutChannel(pattern, c, layout.bitsPerChannel, bits);
    }
    pattern->size = layout.channels * layout.bitsPerChannel / 8;
    return {};
}

// "descriptor heap 'bindings'", or "an unnamed descriptor heap".
std::string HeapText(const DescriptorRange& range) {
    return range.heapName.empty() ? std::string("an unnamed descriptor heap")
                                  : "descriptor heap '" + range.heapName + "'";
}

bool SameView(const Descriptor& a, const Descriptor& b) {
    return a.kind == b.kind && a.format == b.format && a.resourceId == b.resourceId &&
           a.offsetInBytes == b.offsetInBytes && a.sizeInBytes == b.sizeInBytes &&
           a.structureByteStride == b.structureByteStride && a.flags == b.flags;
}

// The checks of both clears; `view` gets the descriptor to clear.
Status ValidateClear(DeviceInternal& device, D3D12_COMMAND_LIST_TYPE listType, ID3D12DescriptorHeap* currentHeap,
                     D3D12_GPU_DESCRIPTOR_HANDLE gpuHandle, D3D12_CPU_DESCRIPTOR_HANDLE cpuHandle,
                     ID3D12Resource* resource, const void* values, UINT numRects, Descriptor* view) {
    INVALID_IF(listType == D3D12_COMMAND_LIST_TYPE_COPY,
               "a COPY command list cannot clear views; record the clear on a DIRECT or COMPUTE list.");
    INVALID_IF(!values, "Values is null.");
    INVALID_IF(!resource, "pResource is null.");
    ResourceInternal* internal = GetResourceInternal(resource);
    INVALID_IF(!internal || device.FindResource(internal->Id()) != internal,
               "pResource (%p) is not a resource of this device.", static_cast<void*>(resource));
    INVALID_IF(internal->Desc().Dimension != D3D12_RESOURCE_DIMENSION_BUFFER,
               "pResource (%s) is not a buffer; FreeDML clears buffer views only.", internal->Describe().c_str());
    INVALID_IF(numRects != 0,
               "NumRects is %u: rectangles select parts of a texture, and a buffer view is cleared whole (pass 0 "
               "and null).",
               numRects);

    DescriptorRange gpuRange, cpuRange;
    FREEDML_TRY_CONTEXT(device.ResolveGpuDescriptor(gpuHandle, &gpuRange), "checking ViewGPUHandleInCurrentHeap");
    INVALID_IF(!currentHeap,
               "ViewGPUHandleInCurrentHeap is in %s, but no CBV_SRV_UAV heap is set on the list; call "
               "SetDescriptorHeaps with that heap before the clear.",
               HeapText(gpuRange).c_str());
    const D3D12_DESCRIPTOR_HEAP_DESC current = currentHeap->GetDesc();
    const UINT64 currentStart = currentHeap->GetGPUDescriptorHandleForHeapStart().ptr;
    INVALID_IF(gpuHandle.ptr < currentStart ||
                   gpuHandle.ptr >= currentStart + UINT64(current.NumDescriptors) * kCbvSrvUavDescriptorSize,
               "ViewGPUHandleInCurrentHeap is in %s, which is not the heap set by SetDescriptorHeaps.",
               HeapText(gpuRange).c_str());
    FREEDML_TRY_CONTEXT(device.ResolveCpuDescriptor(cpuHandle, &cpuRange), "checking ViewCPUHandle");
    INVALID_IF(cpuRange.heapDesc.Flags & D3D12_DESCRIPTOR_HEAP_FLAG_SHADER_VISIBLE,
               "ViewCPUHandle is in %s, which is shader visible; the CPU handle of a clear must be in a heap that is "
               "not shader visible.",
               HeapText(cpuRange).c_str());

    const Descriptor& cpuView = *cpuRange.first;
    const Descriptor& gpuView = *gpuRange.first;
    INVALID_IF(cpuView.kind != Descriptor::Kind::BufferUav,
               "ViewCPUHandle (descriptor %u of %s) holds no unordered-access view.", cpuRange.indexInHeap,
               HeapText(cpuRange).c_str());
    INVALID_IF(!SameView(cpuView, gpuView),
               "ViewGPUHandleInCurrentHeap (descriptor %u of %s) and ViewCPUHandle (descriptor %u of %s) hold "
               "different views; both must describe the view to clear.",
               gpuRange.indexInHeap, HeapText(gpuRange).c_str(), cpuRange.indexInHeap, HeapText(cpuRange).c_str());
    INVALID_IF(cpuView.resourceId != internal->Id(),
               "the view describes %s, not pResource (%s).",
               cpuView.resourceId == 0 ? "a null resource" : "another resource", internal->Describe().c_str());
    *view = cpuView;
    return {};
}

class ClearUavCommand final : public Command {
public:
    ClearUavCommand(const char* name, ID3D12Resource* resource, uint64_t offset, uint64_t size,
                    const ClearPattern& pattern)
        : name_(name), resource_(resource), offset_(offset), size_(size), pattern_(pattern) {}

    void Execute(ExecutionContext& context) override {
        if (context.device.DebugLayerEnabled()) {
            TrackAccess(context, name_, *resource_.get(), D3D12_RESOURCE_STATE_UNORDERED_ACCESS, "clear target");
        }
        context.stream.Fill(resource_->Memory(), resource_->OffsetInMemory() + offset_, size_, pattern_.bytes,
                            pattern_.size);
    }
    const char* Name() const override { return name_; }

private:
    const char* name_;
    HeldResource resource_;
    uint64_t offset_, size_;
    ClearPattern pattern_;
};

}  // namespace

void CommandList::ClearUnorderedAccessView(const char* method, D3D12_GPU_DESCRIPTOR_HANDLE gpuHandle,
                                           D3D12_CPU_DESCRIPTOR_HANDLE cpuHandle, ID3D12Resource* resource,
                                           const void* values, bool floats, UINT numRects, const D3D12_RECT*) {
    const std::string name = Format("ID3D12GraphicsCommandList::%s", method);
    GuardRecording(name.c_str(), [&] {
        if (!CheckOpen(method)) return;
        Descriptor view;
        ClearPattern pattern;
        Status status = ValidateClear(device_, type_, cbvSrvUavHeap_.Get(), gpuHandle, cpuHandle, resource, values, numRects,
                                      &view);
        if (status.ok()) status = MakePattern(method, view, values, floats, &pattern);
        if (!status.ok()) {
            status.AddContext(Format("recording %s on %s", name.c_str(), Describe().c_str()));
            return FailRecording(status.FullMessage());
        }
        Record(std::make_unique<ClearUavCommand>(method, resource, view.offsetInBytes, view.sizeInBytes, pattern));
    });
}

void CommandList::ClearUnorderedAccessViewUint(D3D12_GPU_DESCRIPTOR_HANDLE gpuHandle,
                                               D3D12_CPU_DESCRIPTOR_HANDLE cpuHandle, ID3D12Resource* resource,
                                               const UINT values[4], UINT numRects, const D3D12_RECT* rects) {
    FREEDML_TRACE_D3D12("ID3D12GraphicsCommandList::ClearUnorderedAccessViewUint", this, gpuHandle, cpuHandle, resource, values, numRects, rects);
    ClearUnorderedAccessView("ClearUnorderedAccessViewUint", gpuHandle, cpuHandle, resource, values, false, numRects,
                             rects);
}

void CommandList::ClearUnorderedAccessViewFloat(D3D12_GPU_DESCRIPTOR_HANDLE gpuHandle,
                                                D3D12_CPU_DESCRIPTOR_HANDLE cpuHandle, ID3D12Resource* resource,
                                                const FLOAT values[4], UINT numRects, const D3D12_RECT* rects) {
    FREEDML_TRACE_D3D12("ID3D12GraphicsCommandList::ClearUnorderedAccessViewFloat", this, gpuHandle, cpuHandle, resource, values, numRects, rects);
    ClearUnorderedAccessView("ClearUnorderedAccessViewFloat", gpuHandle, cpuHandle, resource, values, true, numRects,
                             rects);
}

}  // namespace freedml::d3d12
