// ID3D12DescriptorHeap: an array of descriptor slots in host memory. CPU and GPU handles are both
// the host address of a slot (internal.h); CBV_SRV_UAV slots hold a freedml::d3d12::Descriptor.
// SAMPLER, RTV and DSV heaps exist (with their own increments) but FreeDML writes no views there.
#pragma once

#include <cstdint>

#include "common/com_object.h"
#include "d3d12/internal.h"

namespace freedml::d3d12 {

class Device;

// GetDescriptorHandleIncrementSize; 0 for a type that is not a descriptor heap type.
// Both take the type by reference: it may be any value the application passed (see enum_value.h).
UINT DescriptorIncrement(const D3D12_DESCRIPTOR_HEAP_TYPE& type);
const char* DescriptorHeapTypeName(const D3D12_DESCRIPTOR_HEAP_TYPE& type);
Status ValidateDescriptorHeapDesc(const D3D12_DESCRIPTOR_HEAP_DESC* desc);

class DescriptorHeap final
    : public NamedComObject<DescriptorHeap, ID3D12DescriptorHeap, ID3D12Pageable, ID3D12DeviceChild, ID3D12Object> {
public:
    static Status Create(Device* device, const D3D12_DESCRIPTOR_HEAP_DESC& desc, DescriptorHeap** heap);

    // ID3D12DeviceChild
    HRESULT STDMETHODCALLTYPE GetDevice(REFIID riid, void** device) override;
    // ID3D12DescriptorHeap
    D3D12_DESCRIPTOR_HEAP_DESC STDMETHODCALLTYPE GetDesc() override {
        FREEDML_TRACE_D3D12("ID3D12DescriptorHeap::GetDesc", this);
        return desc_;
    }
    D3D12_CPU_DESCRIPTOR_HANDLE STDMETHODCALLTYPE GetCPUDescriptorHandleForHeapStart() override;
    D3D12_GPU_DESCRIPTOR_HANDLE STDMETHODCALLTYPE GetGPUDescriptorHandleForHeapStart() override;

    const D3D12_DESCRIPTOR_HEAP_DESC& Desc() const { return desc_; }
    UINT Increment() const { return increment_; }
    uintptr_t Begin() const { return reinterpret_cast<uintptr_t>(slots_); }
    uintptr_t End() const { return Begin() + static_cast<uintptr_t>(desc_.NumDescriptors) * increment_; }
    bool ShaderVisible() const { return desc_.Flags & D3D12_DESCRIPTOR_HEAP_FLAG_SHADER_VISIBLE; }
    // "descriptor heap 'bindings' (CBV_SRV_UAV, 16 descriptors, shader visible)"
    std::string Describe() const;

private:
    DescriptorHeap(Device* device, const D3D12_DESCRIPTOR_HEAP_DESC& desc, unsigned char* slots);
    ~DescriptorHeap() override;

    Ref<Device> device_;  // a descriptor heap keeps its device alive
    D3D12_DESCRIPTOR_HEAP_DESC desc_;
    UINT increment_;
    unsigned char* slots_;  // zero-filled: every CBV_SRV_UAV slot starts as an Empty Descriptor
};

}  // namespace freedml::d3d12
