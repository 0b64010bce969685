// ID3D12Resource: a buffer placed on a Heap (committed resources on an implicit heap of their own).
#pragma once

#include <atomic>

#include "common/com_object.h"
#include "d3d12/internal.h"

namespace freedml::d3d12 {

class Device;
class Heap;

constexpr UINT64 kBufferAlignment = 64 * 1024;  // D3D12's resource placement alignment

// Checks a resource description (buffers only); `where` names the call.
Status ValidateBufferDesc(const D3D12_RESOURCE_DESC* desc, const char* where);
// The initial-state rules of heaps the CPU writes (UPLOAD: GENERIC_READ) or reads (READBACK: COPY_DEST).
Status ValidateInitialState(const D3D12_HEAP_PROPERTIES& properties, const D3D12_RESOURCE_STATES& state,
                            const char* where);
const char* DimensionName(const D3D12_RESOURCE_DIMENSION& dimension);

class Resource final : public NamedComObject<Resource, ID3D12Resource2, ID3D12Resource1, ID3D12Resource,
                                             ID3D12Pageable, ID3D12DeviceChild, ID3D12Object>,
                       public ResourceInternal {
public:
    // Takes a reference to `heap`. `desc` must have passed ValidateBufferDesc.
    static Status Create(Device* device, Heap* heap, uint64_t offset, const D3D12_RESOURCE_DESC& desc,
                         D3D12_RESOURCE_STATES initialState, Resource** resource);

    void* QueryExtraInterface(REFIID riid);

    // ID3D12DeviceChild
    HRESULT STDMETHODCALLTYPE GetDevice(REFIID riid, void** device) override;
    // ID3D12Resource
    HRESULT STDMETHODCALLTYPE Map(UINT subresource, const D3D12_RANGE* readRange, void** data) override;
    void STDMETHODCALLTYPE Unmap(UINT subresource, const D3D12_RANGE* writtenRange) override;
    D3D12_RESOURCE_DESC STDMETHODCALLTYPE GetDesc() override {
        FREEDML_TRACE_D3D12("ID3D12Resource::GetDesc", this);
        return desc_;
    }
    D3D12_GPU_VIRTUAL_ADDRESS STDMETHODCALLTYPE GetGPUVirtualAddress() override;
    HRESULT STDMETHODCALLTYPE WriteToSubresource(UINT dstSubresource, const D3D12_BOX* dstBox, const void* srcData,
                                                 UINT srcRowPitch, UINT srcDepthPitch) override;
    HRESULT STDMETHODCALLTYPE ReadFromSubresource(void* dstData, UINT dstRowPitch, UINT dstDepthPitch,
                                                  UINT srcSubresource, const D3D12_BOX* srcBox) override;
    HRESULT STDMETHODCALLTYPE GetHeapProperties(D3D12_HEAP_PROPERTIES* properties, D3D12_HEAP_FLAGS* flags) override;
    // ID3D12Resource1, ID3D12Resource2
    HRESULT STDMETHODCALLTYPE GetProtectedResourceSession(REFIID riid, void** session) override;
    D3D12_RESOURCE_DESC1 STDMETHODCALLTYPE GetDesc1() override;

    // ResourceInternal
    ID3D12Resource* PublicResource() override { return this; }
    uint64_t Id() const override { return id_; }
    const D3D12_RESOURCE_DESC& Desc() const override { return desc_; }
    uint64_t SizeInBytes() const override { return desc_.Width; }
    D3D12_HEAP_TYPE HeapType() const override;
    backend::Memory& Memory() override;
    uint64_t OffsetInMemory() const override { return offset_; }
    uint64_t HeapId() const override;
    std::string Name() const override { return privateData_.Name(); }
    std::string Describe() const override;
    D3D12_RESOURCE_STATES TrackedState() const override { return state_.load(); }
    void SetTrackedState(D3D12_RESOURCE_STATES state) override { state_.store(state); }

    Heap* GetHeap() const { return heap_.Get(); }

private:
    Resource(Device* device, Heap* heap, uint64_t offset, const D3D12_RESOURCE_DESC& desc,
             D3D12_RESOURCE_STATES initialState);
    ~Resource() override;

    Ref<Device> device_;  // a resource keeps its device and heap alive
    Ref<Heap> heap_;
    uint64_t offset_;
    D3D12_RESOURCE_DESC desc_;
    uint64_t id_;
    std::atomic<D3D12_RESOURCE_STATES> state_;
    std::atomic<int> mapCount_{0};
};

}  // namespace freedml::d3d12
