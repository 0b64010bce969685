#include "d3d12/descriptor_heap.h"

#include <cstdlib>
#include <cstring>
#include <memory>

#include "common/trace.h"
#include "d3d12/device.h"
#include "d3d12/enum_value.h"

namespace freedml::d3d12 {

namespace {
// D3D12's limits for shader-visible heaps (resource binding tier 3 and samplers).
constexpr UINT kMaxShaderVisibleCbvSrvUav = 1000000;
constexpr UINT kMaxShaderVisibleSamplers = 2048;
// A bound of our own for CPU-only heaps, far above what DirectML needs (1 GiB of slots).
constexpr UINT kMaxDescriptors = 1u << 24;
}  // namespace

UINT DescriptorIncrement(const D3D12_DESCRIPTOR_HEAP_TYPE& type) {
    switch (Raw(type)) {
        case D3D12_DESCRIPTOR_HEAP_TYPE_CBV_SRV_UAV: return kCbvSrvUavDescriptorSize;
        case D3D12_DESCRIPTOR_HEAP_TYPE_SAMPLER: return 32;
        case D3D12_DESCRIPTOR_HEAP_TYPE_RTV: return 32;
        case D3D12_DESCRIPTOR_HEAP_TYPE_DSV: return 32;
        default: return 0;
    }
}

const char* DescriptorHeapTypeName(const D3D12_DESCRIPTOR_HEAP_TYPE& type) {
    switch (Raw(type)) {
        case D3D12_DESCRIPTOR_HEAP_TYPE_CBV_SRV_UAV: return "CBV_SRV_UAV";
        case D3D12_DESCRIPTOR_HEAP_TYPE_SAMPLER: return "SAMPLER";
        case D3D12_DESCRIPTOR_HEAP_TYPE_RTV: return "RTV";
        case D3D12_DESCRIPTOR_HEAP_TYPE_DSV: return "DSV";
        default: return "unknown";
    }
}

Status ValidateDescriptorHeapDesc(const D3D12_DESCRIPTOR_HEAP_DESC* desc) {
    INVALID_IF(!desc, "CreateDescriptorHeap: the D3D12_DESCRIPTOR_HEAP_DESC pointer is null.");
    INVALID_IF(DescriptorIncrement(desc->Type) == 0, "CreateDescriptorHeap: Type (%d) is not a descriptor heap type.",
               static_cast<int>(Raw(desc->Type)));
    INVALID_IF(desc->NodeMask > 1, "CreateDescriptorHeap: NodeMask (0x%x) must be 0 or 1: the adapter has one node.",
               desc->NodeMask);
    INVALID_IF((Raw(desc->Flags) & ~D3D12_DESCRIPTOR_HEAP_FLAG_SHADER_VISIBLE) != 0,
               "CreateDescriptorHeap: Flags (0x%x) has unknown bits.", static_cast<unsigned>(Raw(desc->Flags)));
    INVALID_IF(desc->NumDescriptors == 0, "CreateDescriptorHeap: NumDescriptors is 0.");
    bool visible = desc->Flags & D3D12_DESCRIPTOR_HEAP_FLAG_SHADER_VISIBLE;
    INVALID_IF(visible && (desc->Type == D3D12_DESCRIPTOR_HEAP_TYPE_RTV || desc->Type == D3D12_DESCRIPTOR_HEAP_TYPE_DSV),
               "CreateDescriptorHeap: %s heaps cannot be shader visible.", DescriptorHeapTypeName(desc->Type));
    INVALID_IF(visible && desc->Type == D3D12_DESCRIPTOR_HEAP_TYPE_CBV_SRV_UAV &&
                   desc->NumDescriptors > kMaxShaderVisibleCbvSrvUav,
               "CreateDescriptorHeap: NumDescriptors (%u) of a shader-visible CBV_SRV_UAV heap exceeds the limit (%u).",
               desc->NumDescriptors, kMaxShaderVisibleCbvSrvUav);
    INVALID_IF(visible && desc->Type == D3D12_DESCRIPTOR_HEAP_TYPE_SAMPLER &&
                   desc->NumDescriptors > kMaxShaderVisibleSamplers,
               "CreateDescriptorHeap: NumDescriptors (%u) of a shader-visible SAMPLER heap exceeds the limit (%u).",
               desc->NumDescriptors, kMaxShaderVisibleSamplers);
    if (desc->NumDescriptors > kMaxDescriptors) {
        return Error(E_OUTOFMEMORY, "CreateDescriptorHeap: NumDescriptors (%u) exceeds FreeDML's limit (%u).",
                     desc->NumDescriptors, kMaxDescriptors);
    }
    return {};
}

Status DescriptorHeap::Create(Device* device, const D3D12_DESCRIPTOR_HEAP_DESC& desc, DescriptorHeap** heap) {
    *heap = nullptr;
    size_t bytes = static_cast<size_t>(desc.NumDescriptors) * DescriptorIncrement(desc.Type);
    bytes = (bytes + 63) / 64 * 64;
    // Owned here until the heap takes them (its constructor may throw).
    std::unique_ptr<unsigned char, decltype(&std::free)> slots(static_cast<unsigned char*>(std::aligned_alloc(64, bytes)),
                                                               &std::free);
    if (!slots) {
        return Error(E_OUTOFMEMORY, "CreateDescriptorHeap: out of host memory for %u descriptors.", desc.NumDescriptors);
    }
    std::memset(slots.get(), 0, bytes);
    *heap = new (std::nothrow) DescriptorHeap(device, desc, slots.get());
    if (!*heap) return Error(E_OUTOFMEMORY, "CreateDescriptorHeap: out of host memory.");
    slots.release();
    return {};
}

DescriptorHeap::DescriptorHeap(Device* device, const D3D12_DESCRIPTOR_HEAP_DESC& desc, unsigned char* slots)
    : device_(Ref<Device>::Share(device)), desc_(desc), increment_(DescriptorIncrement(desc.Type)), slots_(slots) {
    if (desc_.NodeMask == 0) desc_.NodeMask = 1;
    device_->RegisterDescriptorHeap(this);  // may throw: the reference above is then given back
}

DescriptorHeap::~DescriptorHeap() {
    device_->UnregisterDescriptorHeap(this);
    std::free(slots_);
}

HRESULT DescriptorHeap::GetDevice(REFIID riid, void** device) { FREEDML_TRACE_D3D12("ID3D12DescriptorHeap::GetDevice", this, riid, device); return device_->QueryInterface(riid, device); }

D3D12_CPU_DESCRIPTOR_HANDLE DescriptorHeap::GetCPUDescriptorHandleForHeapStart() {
    FREEDML_TRACE_D3D12("ID3D12DescriptorHeap::GetCPUDescriptorHandleForHeapStart", this);
    D3D12_CPU_DESCRIPTOR_HANDLE handle;
    handle.ptr = Begin();
    return handle;
}

D3D12_GPU_DESCRIPTOR_HANDLE DescriptorHeap::GetGPUDescriptorHandleForHeapStart() {
    FREEDML_TRACE_D3D12("ID3D12DescriptorHeap::GetGPUDescriptorHandleForHeapStart", this);
    D3D12_GPU_DESCRIPTOR_HANDLE handle;
    handle.ptr = ShaderVisible() ? Begin() : 0;  // a CPU-only heap has no GPU handle
    return handle;
}

std::string DescriptorHeap::Describe() const {
    std::string name = Name();
    std::string quoted = name.empty() ? "" : " '" + name + "'";
    return Format("descriptor heap%s (%s, %u descriptors%s)", quoted.c_str(), DescriptorHeapTypeName(desc_.Type),
                  desc_.NumDescriptors, ShaderVisible() ? ", shader visible" : "");
}

}  // namespace freedml::d3d12
