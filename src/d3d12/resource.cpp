#include "d3d12/resource.h"

#include "common/trace.h"
#include "d3d12/device.h"
#include "d3d12/enum_value.h"
#include "d3d12/heap.h"

namespace freedml::d3d12 {

namespace {
std::atomic<uint64_t> gNextResourceId{1};
}  // namespace

const char* DimensionName(const D3D12_RESOURCE_DIMENSION& dimension) {
    switch (Raw(dimension)) {
        case D3D12_RESOURCE_DIMENSION_UNKNOWN: return "D3D12_RESOURCE_DIMENSION_UNKNOWN";
        case D3D12_RESOURCE_DIMENSION_BUFFER: return "D3D12_RESOURCE_DIMENSION_BUFFER";
        case D3D12_RESOURCE_DIMENSION_TEXTURE1D: return "D3D12_RESOURCE_DIMENSION_TEXTURE1D";
        case D3D12_RESOURCE_DIMENSION_TEXTURE2D: return "D3D12_RESOURCE_DIMENSION_TEXTURE2D";
        case D3D12_RESOURCE_DIMENSION_TEXTURE3D: return "D3D12_RESOURCE_DIMENSION_TEXTURE3D";
    }
    return "an unknown dimension";
}

Status ValidateBufferDesc(const D3D12_RESOURCE_DESC* desc, const char* where) {
    INVALID_IF(!desc, "%s: the D3D12_RESOURCE_DESC pointer is null.", where);
    const D3D12_RESOURCE_DESC& d = *desc;
    INVALID_IF(Raw(d.Dimension) != D3D12_RESOURCE_DIMENSION_BUFFER,
               "%s: D3D12_RESOURCE_DESC.Dimension (%s) is not supported: FreeDML implements buffers only.", where,
               DimensionName(d.Dimension));
    INVALID_IF(d.Width == 0, "%s: D3D12_RESOURCE_DESC.Width is 0: a buffer needs at least one byte.", where);
    // Keeps every size computed from Width (rounded to 64 KiB, plus offsets) far from overflow.
    INVALID_IF(d.Width > (uint64_t{1} << 56), "%s: D3D12_RESOURCE_DESC.Width (%llu) is larger than any memory.",
               where, static_cast<unsigned long long>(d.Width));
    INVALID_IF(d.Alignment != 0 && d.Alignment != kBufferAlignment,
               "%s: D3D12_RESOURCE_DESC.Alignment (%llu) of a buffer must be 0 or 65536.", where,
               static_cast<unsigned long long>(d.Alignment));
    INVALID_IF(d.Height != 1 || d.DepthOrArraySize != 1 || d.MipLevels != 1,
               "%s: a buffer has Height (%u), DepthOrArraySize (%u) and MipLevels (%u) of 1.", where, d.Height,
               static_cast<unsigned>(d.DepthOrArraySize), static_cast<unsigned>(d.MipLevels));
    INVALID_IF(d.Format != DXGI_FORMAT_UNKNOWN, "%s: a buffer's Format (%d) must be DXGI_FORMAT_UNKNOWN.", where,
               static_cast<int>(d.Format));
    INVALID_IF(d.SampleDesc.Count != 1 || d.SampleDesc.Quality != 0,
               "%s: a buffer's SampleDesc must be {1, 0} (got {%u, %u}).", where, d.SampleDesc.Count,
               d.SampleDesc.Quality);
    INVALID_IF(Raw(d.Layout) != D3D12_TEXTURE_LAYOUT_ROW_MAJOR,
               "%s: a buffer's Layout (%d) must be D3D12_TEXTURE_LAYOUT_ROW_MAJOR.", where, static_cast<int>(Raw(d.Layout)));
    constexpr int kAllowed = D3D12_RESOURCE_FLAG_ALLOW_UNORDERED_ACCESS | D3D12_RESOURCE_FLAG_DENY_SHADER_RESOURCE |
                             D3D12_RESOURCE_FLAG_ALLOW_SIMULTANEOUS_ACCESS;
    const auto flags = Raw(d.Flags);
    INVALID_IF((flags & ~kAllowed) != 0,
               "%s: D3D12_RESOURCE_DESC.Flags (0x%x) has flags a FreeDML buffer cannot have (0x%x); buffers take "
               "ALLOW_UNORDERED_ACCESS, DENY_SHADER_RESOURCE and ALLOW_SIMULTANEOUS_ACCESS.",
               where, static_cast<unsigned>(flags), static_cast<unsigned>(flags & ~kAllowed));
    return {};
}

Status ValidateInitialState(const D3D12_HEAP_PROPERTIES& properties, const D3D12_RESOURCE_STATES& initial,
                            const char* where) {
    const auto state = Raw(initial);
    constexpr unsigned kKnownStates = 0xffffff;
    INVALID_IF(static_cast<unsigned>(state) & ~kKnownStates, "%s: InitialResourceState (0x%x) has unknown bits.", where,
               static_cast<unsigned>(state));
    INVALID_IF(properties.Type == D3D12_HEAP_TYPE_UPLOAD && state != D3D12_RESOURCE_STATE_GENERIC_READ,
               "%s: a resource on an UPLOAD heap must start in D3D12_RESOURCE_STATE_GENERIC_READ (0x%x), not 0x%x.",
               where, static_cast<unsigned>(D3D12_RESOURCE_STATE_GENERIC_READ), static_cast<unsigned>(state));
    INVALID_IF(properties.Type == D3D12_HEAP_TYPE_READBACK && state != D3D12_RESOURCE_STATE_COPY_DEST,
               "%s: a resource on a READBACK heap must start in D3D12_RESOURCE_STATE_COPY_DEST (0x%x), not 0x%x.",
               where, static_cast<unsigned>(D3D12_RESOURCE_STATE_COPY_DEST), static_cast<unsigned>(state));
    return {};
}

Status Resource::Create(Device* device, Heap* heap, uint64_t offset, const D3D12_RESOURCE_DESC& desc,
                        D3D12_RESOURCE_STATES initialState, Resource** resource) {
    *resource = new (std::nothrow) Resource(device, heap, offset, desc, initialState);
    if (!*resource) return Error(E_OUTOFMEMORY, "Out of host memory while creating a resource.");
    return {};
}

Resource::Resource(Device* device, Heap* heap, uint64_t offset, const D3D12_RESOURCE_DESC& desc,
                   D3D12_RESOURCE_STATES initialState)
    : device_(Ref<Device>::Share(device)),
      heap_(Ref<Heap>::Share(heap)),
      offset_(offset),
      desc_(desc),
      id_(gNextResourceId++),
      state_(initialState) {
    if (desc_.Alignment == 0) desc_.Alignment = kBufferAlignment;
    device_->RegisterResource(this);  // may throw: the references above are then given back
}

Resource::~Resource() { device_->UnregisterResource(this); }

void* Resource::QueryExtraInterface(REFIID riid) {
    if (SameGuid(riid, kIidResourceInternal)) return static_cast<ResourceInternal*>(this);  // borrowed
    return nullptr;
}

HRESULT Resource::GetDevice(REFIID riid, void** device) { FREEDML_TRACE_D3D12("ID3D12Resource::GetDevice", this, riid, device); return device_->QueryInterface(riid, device); }

HRESULT Resource::Map(UINT subresource, const D3D12_RANGE* readRange, void** data) {
    FREEDML_TRACE_D3D12("ID3D12Resource::Map", this, subresource, readRange, data);
    if (data) *data = nullptr;
    const D3D12_HEAP_PROPERTIES& properties = heap_->Desc().Properties;
    Status status = [&]() -> Status {
        INVALID_IF(subresource != 0, "Map: Subresource (%u) of %s must be 0: a buffer has one subresource.",
                   subresource, Describe().c_str());
        INVALID_IF(!HeapIsMappable(properties),
                   "Map: %s lives on a %s heap%s, which the CPU cannot access; copy it to a READBACK or from an "
                   "UPLOAD resource instead.",
                   Describe().c_str(), HeapTypeName(properties.Type),
                   properties.Type == D3D12_HEAP_TYPE_CUSTOM ? " with D3D12_CPU_PAGE_PROPERTY_NOT_AVAILABLE" : "");
        return {};
    }();
    if (!status.ok()) return device_->Fail(status);
    (void)readRange;  // the CPU backend is coherent: what the GPU wrote is already visible
    ++mapCount_;
    if (data) *data = static_cast<unsigned char*>(Memory().HostPointer()) + offset_;
    return S_OK;
}

void Resource::Unmap(UINT subresource, const D3D12_RANGE* writtenRange) {
    FREEDML_TRACE_D3D12("ID3D12Resource::Unmap", this, subresource, writtenRange);
    if (subresource != 0) {
        device_->Report(D3D12_MESSAGE_SEVERITY_ERROR, D3D12_MESSAGE_CATEGORY_RESOURCE_MANIPULATION,
                        Format("Unmap: Subresource (%u) of %s must be 0.", subresource, Describe().c_str()));
        return;
    }
    (void)writtenRange;  // nothing to flush on coherent host memory
    int count = mapCount_.load();
    while (count > 0 && !mapCount_.compare_exchange_weak(count, count - 1)) {
    }
    if (count <= 0) {
        device_->Report(D3D12_MESSAGE_SEVERITY_WARNING, D3D12_MESSAGE_CATEGORY_RESOURCE_MANIPULATION,
                        Format("Unmap: %s is not mapped.", Describe().c_str()));
    }
}

D3D12_GPU_VIRTUAL_ADDRESS Resource::GetGPUVirtualAddress() { FREEDML_TRACE_D3D12("ID3D12Resource::GetGPUVirtualAddress", this); return heap_->Memory().Address() + offset_; }

HRESULT Resource::WriteToSubresource(UINT, const D3D12_BOX*, const void*, UINT, UINT) {
    FREEDML_TRACE_D3D12("ID3D12Resource::WriteToSubresource", this);
    return device_->Fail(Error(E_INVALIDARG,
                               "WriteToSubresource: %s is a buffer; WriteToSubresource copies texture data. Map the "
                               "buffer and write to it instead.",
                               Describe().c_str()));
}

HRESULT Resource::ReadFromSubresource(void*, UINT, UINT, UINT, const D3D12_BOX*) {
    FREEDML_TRACE_D3D12("ID3D12Resource::ReadFromSubresource", this);
    return device_->Fail(Error(E_INVALIDARG,
                               "ReadFromSubresource: %s is a buffer; ReadFromSubresource copies texture data. Map "
                               "the buffer and read from it instead.",
                               Describe().c_str()));
}

HRESULT Resource::GetHeapProperties(D3D12_HEAP_PROPERTIES* properties, D3D12_HEAP_FLAGS* flags) {
    FREEDML_TRACE_D3D12("ID3D12Resource::GetHeapProperties", this, properties, flags);
    if (properties) *properties = heap_->Desc().Properties;
    if (flags) *flags = heap_->Desc().Flags;
    return S_OK;
}

HRESULT Resource::GetProtectedResourceSession(REFIID, void** session) {
    FREEDML_TRACE_D3D12("ID3D12Resource::GetProtectedResourceSession", this, session);
    if (session) *session = nullptr;
    return DXGI_ERROR_NOT_FOUND;
}

D3D12_RESOURCE_DESC1 Resource::GetDesc1() {
    FREEDML_TRACE_D3D12("ID3D12Resource::GetDesc1", this);
    D3D12_RESOURCE_DESC1 desc1{};
    desc1.Dimension = desc_.Dimension;
    desc1.Alignment = desc_.Alignment;
    desc1.Width = desc_.Width;
    desc1.Height = desc_.Height;
    desc1.DepthOrArraySize = desc_.DepthOrArraySize;
    desc1.MipLevels = desc_.MipLevels;
    desc1.Format = desc_.Format;
    desc1.SampleDesc = desc_.SampleDesc;
    desc1.Layout = desc_.Layout;
    desc1.Flags = desc_.Flags;
    return desc1;
}

D3D12_HEAP_TYPE Resource::HeapType() const { return heap_->Desc().Properties.Type; }
backend::Memory& Resource::Memory() { return heap_->Memory(); }
uint64_t Resource::HeapId() const { return heap_->Id(); }

std::string Resource::Describe() const {
    std::string name = Name();
    std::string quoted = name.empty() ? "" : " '" + name + "'";
    return Format("resource%s (ID3D12Resource #%llu, %llu bytes)", quoted.c_str(), static_cast<unsigned long long>(id_),
                  static_cast<unsigned long long>(desc_.Width));
}

}  // namespace freedml::d3d12
