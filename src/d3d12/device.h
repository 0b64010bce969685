// ID3D12Device through ID3D12Device9 for the compute subset DirectML needs. Methods outside it
// return E_NOTIMPL through ReportUnsupported (or, for void and non-HRESULT methods, D3D12's
// neutral value). The device also implements DeviceInternal for libdirectml.
//
// The methods are spread over a few files: device.cpp (creation, resources, heaps, sizes, the
// unsupported methods), device_features.cpp (CheckFeatureSupport), device_views.cpp (views and
// descriptor copies).
#pragma once

#include <atomic>
#include <map>
#include <memory>
#include <mutex>
#include <unordered_map>

#include "common/com_object.h"
#include "d3d12/internal.h"
#include "d3d12/messages.h"

namespace freedml::d3d12 {

class DescriptorHeap;
class Heap;
class InfoQueue;
class Resource;

class Device final : public NamedComObject<Device, ID3D12Device9, ID3D12Device8, ID3D12Device7, ID3D12Device6,
                                           ID3D12Device5, ID3D12Device4, ID3D12Device3, ID3D12Device2,
                                           ID3D12Device1, ID3D12Device, ID3D12Object>,
                     public DeviceInternal {
public:
    static Status Create(backend::Adapter* adapter, Device** device);

    void* QueryExtraInterface(REFIID riid);

    // ---- ID3D12Device ----
    UINT STDMETHODCALLTYPE GetNodeCount() override {
        FREEDML_TRACE_D3D12("ID3D12Device::GetNodeCount", this);
        return 1;
    }
    HRESULT STDMETHODCALLTYPE CreateCommandQueue(const D3D12_COMMAND_QUEUE_DESC* desc, REFIID riid, void** queue) override;
    HRESULT STDMETHODCALLTYPE CreateCommandAllocator(D3D12_COMMAND_LIST_TYPE type, REFIID riid, void** allocator) override;
    HRESULT STDMETHODCALLTYPE CreateGraphicsPipelineState(const D3D12_GRAPHICS_PIPELINE_STATE_DESC* desc, REFIID riid,
                                                          void** state) override;
    HRESULT STDMETHODCALLTYPE CreateComputePipelineState(const D3D12_COMPUTE_PIPELINE_STATE_DESC* desc, REFIID riid,
                                                         void** state) override;
    HRESULT STDMETHODCALLTYPE CreateCommandList(UINT nodeMask, D3D12_COMMAND_LIST_TYPE type,
                                                ID3D12CommandAllocator* allocator, ID3D12PipelineState* initialState,
                                                REFIID riid, void** list) override;
    HRESULT STDMETHODCALLTYPE CheckFeatureSupport(D3D12_FEATURE feature, void* data, UINT dataSize) override;
    HRESULT STDMETHODCALLTYPE CreateDescriptorHeap(const D3D12_DESCRIPTOR_HEAP_DESC* desc, REFIID riid,
                                                   void** heap) override;
    UINT STDMETHODCALLTYPE GetDescriptorHandleIncrementSize(D3D12_DESCRIPTOR_HEAP_TYPE type) override;
    HRESULT STDMETHODCALLTYPE CreateRootSignature(UINT nodeMask, const void* blob, SIZE_T blobLength, REFIID riid,
                                                  void** signature) override;
    void STDMETHODCALLTYPE CreateConstantBufferView(const D3D12_CONSTANT_BUFFER_VIEW_DESC* desc,
                                                    D3D12_CPU_DESCRIPTOR_HANDLE destination) override;
    void STDMETHODCALLTYPE CreateShaderResourceView(ID3D12Resource* resource, const D3D12_SHADER_RESOURCE_VIEW_DESC* desc,
                                                    D3D12_CPU_DESCRIPTOR_HANDLE destination) override;
    void STDMETHODCALLTYPE CreateUnorderedAccessView(ID3D12Resource* resource, ID3D12Resource* counter,
                                                     const D3D12_UNORDERED_ACCESS_VIEW_DESC* desc,
                                                     D3D12_CPU_DESCRIPTOR_HANDLE destination) override;
    void STDMETHODCALLTYPE CreateRenderTargetView(ID3D12Resource* resource, const D3D12_RENDER_TARGET_VIEW_DESC* desc,
                                                  D3D12_CPU_DESCRIPTOR_HANDLE destination) override;
    void STDMETHODCALLTYPE CreateDepthStencilView(ID3D12Resource* resource, const D3D12_DEPTH_STENCIL_VIEW_DESC* desc,
                                                  D3D12_CPU_DESCRIPTOR_HANDLE destination) override;
    void STDMETHODCALLTYPE CreateSampler(const D3D12_SAMPLER_DESC* desc, D3D12_CPU_DESCRIPTOR_HANDLE destination) override;
    void STDMETHODCALLTYPE CopyDescriptors(UINT destinationRangeCount, const D3D12_CPU_DESCRIPTOR_HANDLE* destinationStarts,
                                           const UINT* destinationSizes, UINT sourceRangeCount,
                                           const D3D12_CPU_DESCRIPTOR_HANDLE* sourceStarts, const UINT* sourceSizes,
                                           D3D12_DESCRIPTOR_HEAP_TYPE type) override;
    void STDMETHODCALLTYPE CopyDescriptorsSimple(UINT count, D3D12_CPU_DESCRIPTOR_HANDLE destinationStart,
                                                 D3D12_CPU_DESCRIPTOR_HANDLE sourceStart,
                                                 D3D12_DESCRIPTOR_HEAP_TYPE type) override;
    D3D12_RESOURCE_ALLOCATION_INFO STDMETHODCALLTYPE GetResourceAllocationInfo(UINT visibleMask, UINT descCount,
                                                                               const D3D12_RESOURCE_DESC* descs) override;
    D3D12_HEAP_PROPERTIES STDMETHODCALLTYPE GetCustomHeapProperties(UINT nodeMask, D3D12_HEAP_TYPE type) override;
    HRESULT STDMETHODCALLTYPE CreateCommittedResource(const D3D12_HEAP_PROPERTIES* properties, D3D12_HEAP_FLAGS flags,
                                                      const D3D12_RESOURCE_DESC* desc, D3D12_RESOURCE_STATES state,
                                                      const D3D12_CLEAR_VALUE* clear, REFIID riid,
                                                      void** resource) override;
    HRESULT STDMETHODCALLTYPE CreateHeap(const D3D12_HEAP_DESC* desc, REFIID riid, void** heap) override;
    HRESULT STDMETHODCALLTYPE CreatePlacedResource(ID3D12Heap* heap, UINT64 offset, const D3D12_RESOURCE_DESC* desc,
                                                   D3D12_RESOURCE_STATES state, const D3D12_CLEAR_VALUE* clear,
                                                   REFIID riid, void** resource) override;
    HRESULT STDMETHODCALLTYPE CreateReservedResource(const D3D12_RESOURCE_DESC* desc, D3D12_RESOURCE_STATES state,
                                                     const D3D12_CLEAR_VALUE* clear, REFIID riid,
                                                     void** resource) override;
    HRESULT STDMETHODCALLTYPE CreateSharedHandle(ID3D12DeviceChild* object, const SECURITY_ATTRIBUTES* attributes,
                                                 DWORD access, LPCWSTR name, HANDLE* handle) override;
    HRESULT STDMETHODCALLTYPE OpenSharedHandle(HANDLE handle, REFIID riid, void** object) override;
    HRESULT STDMETHODCALLTYPE OpenSharedHandleByName(LPCWSTR name, DWORD access, HANDLE* handle) override;
    HRESULT STDMETHODCALLTYPE MakeResident(UINT count, ID3D12Pageable* const* objects) override;
    HRESULT STDMETHODCALLTYPE Evict(UINT count, ID3D12Pageable* const* objects) override;
    HRESULT STDMETHODCALLTYPE CreateFence(UINT64 initialValue, D3D12_FENCE_FLAGS flags, REFIID riid,
                                          void** fence) override;
    HRESULT STDMETHODCALLTYPE GetDeviceRemovedReason() override {
        FREEDML_TRACE_D3D12("ID3D12Device::GetDeviceRemovedReason", this);
        return RemovedReason();
    }
    void STDMETHODCALLTYPE GetCopyableFootprints(const D3D12_RESOURCE_DESC* desc, UINT firstSubresource,
                                                 UINT subresourceCount, UINT64 baseOffset,
                                                 D3D12_PLACED_SUBRESOURCE_FOOTPRINT* layouts, UINT* rowCounts,
                                                 UINT64* rowSizes, UINT64* totalBytes) override;
    HRESULT STDMETHODCALLTYPE CreateQueryHeap(const D3D12_QUERY_HEAP_DESC* desc, REFIID riid, void** heap) override;
    HRESULT STDMETHODCALLTYPE SetStablePowerState(BOOL enable) override;
    HRESULT STDMETHODCALLTYPE CreateCommandSignature(const D3D12_COMMAND_SIGNATURE_DESC* desc,
                                                     ID3D12RootSignature* rootSignature, REFIID riid,
                                                     void** signature) override;
    void STDMETHODCALLTYPE GetResourceTiling(ID3D12Resource* resource, UINT* tileCount, D3D12_PACKED_MIP_INFO* packedMips,
                                             D3D12_TILE_SHAPE* tileShape, UINT* subresourceTilingCount,
                                             UINT firstSubresourceTiling,
                                             D3D12_SUBRESOURCE_TILING* subresourceTilings) override;
    LUID STDMETHODCALLTYPE GetAdapterLuid() override;

    // ---- ID3D12Device1 ----
    HRESULT STDMETHODCALLTYPE CreatePipelineLibrary(const void* blob, SIZE_T blobLength, REFIID riid,
                                                    void** library) override;
    HRESULT STDMETHODCALLTYPE SetEventOnMultipleFenceCompletion(ID3D12Fence* const* fences, const UINT64* values,
                                                                UINT count, D3D12_MULTIPLE_FENCE_WAIT_FLAGS flags,
                                                                HANDLE event) override;
    HRESULT STDMETHODCALLTYPE SetResidencyPriority(UINT count, ID3D12Pageable* const* objects,
                                                   const D3D12_RESIDENCY_PRIORITY* priorities) override;
    // ---- ID3D12Device2 ----
    HRESULT STDMETHODCALLTYPE CreatePipelineState(const D3D12_PIPELINE_STATE_STREAM_DESC* desc, REFIID riid,
                                                  void** state) override;
    // ---- ID3D12Device3 ----
    HRESULT STDMETHODCALLTYPE OpenExistingHeapFromAddress(const void* address, REFIID riid, void** heap) override;
    HRESULT STDMETHODCALLTYPE OpenExistingHeapFromFileMapping(HANDLE mapping, REFIID riid, void** heap) override;
    HRESULT STDMETHODCALLTYPE EnqueueMakeResident(D3D12_RESIDENCY_FLAGS flags, UINT count,
                                                  ID3D12Pageable* const* objects, ID3D12Fence* fence,
                                                  UINT64 value) override;
    // ---- ID3D12Device4 ----
    HRESULT STDMETHODCALLTYPE CreateCommandList1(UINT nodeMask, D3D12_COMMAND_LIST_TYPE type,
                                                 D3D12_COMMAND_LIST_FLAGS flags, REFIID riid, void** list) override;
    HRESULT STDMETHODCALLTYPE CreateProtectedResourceSession(const D3D12_PROTECTED_RESOURCE_SESSION_DESC* desc,
                                                             REFIID riid, void** session) override;
    HRESULT STDMETHODCALLTYPE CreateCommittedResource1(const D3D12_HEAP_PROPERTIES* properties, D3D12_HEAP_FLAGS flags,
                                                       const D3D12_RESOURCE_DESC* desc, D3D12_RESOURCE_STATES state,
                                                       const D3D12_CLEAR_VALUE* clear,
                                                       ID3D12ProtectedResourceSession* session, REFIID riid,
                                                       void** resource) override;
    HRESULT STDMETHODCALLTYPE CreateHeap1(const D3D12_HEAP_DESC* desc, ID3D12ProtectedResourceSession* session,
                                          REFIID riid, void** heap) override;
    HRESULT STDMETHODCALLTYPE CreateReservedResource1(const D3D12_RESOURCE_DESC* desc, D3D12_RESOURCE_STATES state,
                                                      const D3D12_CLEAR_VALUE* clear,
                                                      ID3D12ProtectedResourceSession* session, REFIID riid,
                                                      void** resource) override;
    D3D12_RESOURCE_ALLOCATION_INFO STDMETHODCALLTYPE GetResourceAllocationInfo1(
        UINT visibleMask, UINT descCount, const D3D12_RESOURCE_DESC* descs,
        D3D12_RESOURCE_ALLOCATION_INFO1* infos) override;
    // ---- ID3D12Device5 ----
    HRESULT STDMETHODCALLTYPE CreateLifetimeTracker(ID3D12LifetimeOwner* owner, REFIID riid, void** tracker) override;
    void STDMETHODCALLTYPE RemoveDevice() override;
    HRESULT STDMETHODCALLTYPE EnumerateMetaCommands(UINT* count, D3D12_META_COMMAND_DESC* descs) override;
    HRESULT STDMETHODCALLTYPE EnumerateMetaCommandParameters(REFGUID command, D3D12_META_COMMAND_PARAMETER_STAGE stage,
                                                             UINT* totalSize, UINT* parameterCount,
                                                             D3D12_META_COMMAND_PARAMETER_DESC* parameters) override;
    HRESULT STDMETHODCALLTYPE CreateMetaCommand(REFGUID command, UINT nodeMask, const void* data, SIZE_T dataSize,
                                                REFIID riid, void** metaCommand) override;
    HRESULT STDMETHODCALLTYPE CreateStateObject(const D3D12_STATE_OBJECT_DESC* desc, REFIID riid,
                                                void** stateObject) override;
    void STDMETHODCALLTYPE GetRaytracingAccelerationStructurePrebuildInfo(
        const D3D12_BUILD_RAYTRACING_ACCELERATION_STRUCTURE_INPUTS* desc,
        D3D12_RAYTRACING_ACCELERATION_STRUCTURE_PREBUILD_INFO* info) override;
    D3D12_DRIVER_MATCHING_IDENTIFIER_STATUS STDMETHODCALLTYPE CheckDriverMatchingIdentifier(
        D3D12_SERIALIZED_DATA_TYPE type, const D3D12_SERIALIZED_DATA_DRIVER_MATCHING_IDENTIFIER* identifier) override;
    // ---- ID3D12Device6 ----
    HRESULT STDMETHODCALLTYPE SetBackgroundProcessingMode(D3D12_BACKGROUND_PROCESSING_MODE mode,
                                                          D3D12_MEASUREMENTS_ACTION action, HANDLE event,
                                                          BOOL* furtherMeasurementsDesired) override;
    // ---- ID3D12Device7 ----
    HRESULT STDMETHODCALLTYPE AddToStateObject(const D3D12_STATE_OBJECT_DESC* addition, ID3D12StateObject* from,
                                               REFIID riid, void** stateObject) override;
    HRESULT STDMETHODCALLTYPE CreateProtectedResourceSession1(const D3D12_PROTECTED_RESOURCE_SESSION_DESC1* desc,
                                                              REFIID riid, void** session) override;
    // ---- ID3D12Device8 ----
    D3D12_RESOURCE_ALLOCATION_INFO STDMETHODCALLTYPE GetResourceAllocationInfo2(
        UINT visibleMask, UINT descCount, const D3D12_RESOURCE_DESC1* descs,
        D3D12_RESOURCE_ALLOCATION_INFO1* infos) override;
    HRESULT STDMETHODCALLTYPE CreateCommittedResource2(const D3D12_HEAP_PROPERTIES* properties, D3D12_HEAP_FLAGS flags,
                                                       const D3D12_RESOURCE_DESC1* desc, D3D12_RESOURCE_STATES state,
                                                       const D3D12_CLEAR_VALUE* clear,
                                                       ID3D12ProtectedResourceSession* session, REFIID riid,
                                                       void** resource) override;
    HRESULT STDMETHODCALLTYPE CreatePlacedResource1(ID3D12Heap* heap, UINT64 offset, const D3D12_RESOURCE_DESC1* desc,
                                                    D3D12_RESOURCE_STATES state, const D3D12_CLEAR_VALUE* clear,
                                                    REFIID riid, void** resource) override;
    void STDMETHODCALLTYPE CreateSamplerFeedbackUnorderedAccessView(ID3D12Resource* target, ID3D12Resource* feedback,
                                                                    D3D12_CPU_DESCRIPTOR_HANDLE destination) override;
    void STDMETHODCALLTYPE GetCopyableFootprints1(const D3D12_RESOURCE_DESC1* desc, UINT firstSubresource,
                                                  UINT subresourceCount, UINT64 baseOffset,
                                                  D3D12_PLACED_SUBRESOURCE_FOOTPRINT* layouts, UINT* rowCounts,
                                                  UINT64* rowSizes, UINT64* totalBytes) override;
    // ---- ID3D12Device9 ----
    HRESULT STDMETHODCALLTYPE CreateShaderCacheSession(const D3D12_SHADER_CACHE_SESSION_DESC* desc, REFIID riid,
                                                       void** session) override;
    HRESULT STDMETHODCALLTYPE ShaderCacheControl(D3D12_SHADER_CACHE_KIND_FLAGS kinds,
                                                 D3D12_SHADER_CACHE_CONTROL_FLAGS control) override;
    HRESULT STDMETHODCALLTYPE CreateCommandQueue1(const D3D12_COMMAND_QUEUE_DESC* desc, REFIID creator, REFIID riid,
                                                  void** queue) override;

    // ---- DeviceInternal ----
    ID3D12Device* PublicDevice() override { return this; }
    backend::Device& Backend() override { return *backend_; }
    bool DebugLayerEnabled() const override { return debug_; }
    void Report(D3D12_MESSAGE_SEVERITY severity, D3D12_MESSAGE_CATEGORY category, const std::string& text) override;
    void RemoveDevice(HRESULT reason, const std::string& text) override;
    void ReportFrom(const char* source, D3D12_MESSAGE_SEVERITY severity, D3D12_MESSAGE_CATEGORY category,
                    const std::string& text, bool echo) override;
    void RemoveDeviceFrom(const char* source, HRESULT reason, const std::string& text, bool echo) override;
    HRESULT RemovedReason() const override { return removedReason_.load(); }
    ResourceInternal* FindResource(uint64_t resourceId) override;
    uint64_t ReleaseGeneration() const override { return releaseGeneration_.load(std::memory_order_acquire); }
    Status ResolveCpuDescriptor(D3D12_CPU_DESCRIPTOR_HANDLE handle, DescriptorRange* range) override;
    Status ResolveGpuDescriptor(D3D12_GPU_DESCRIPTOR_HANDLE handle, DescriptorRange* range) override;

    // ---- Within libd3d12 ----
    // Reports a failed status as an error message and returns its HRESULT.
    HRESULT Fail(const Status& status);
    MessageLog& Log() { return log_; }
    void RegisterResource(Resource* resource);
    void UnregisterResource(Resource* resource);
    void RegisterDescriptorHeap(DescriptorHeap* heap);
    void UnregisterDescriptorHeap(DescriptorHeap* heap);
    // The live resource whose GPU virtual address range holds [address, address + size).
    Resource* FindResourceByAddress(D3D12_GPU_VIRTUAL_ADDRESS address, uint64_t size);

private:
    Device(backend::Adapter* adapter, std::shared_ptr<backend::Device> backend);
    ~Device() override;

    HRESULT Unsupported(const char* method, void** object = nullptr);
    // Enums from the application are passed on by reference until validated (enum_value.h).
    HRESULT CreateCommitted(const char* where, const D3D12_HEAP_PROPERTIES* properties, const D3D12_HEAP_FLAGS& flags,
                            const D3D12_RESOURCE_DESC* desc, const D3D12_RESOURCE_STATES& state, REFIID riid,
                            void** resource);
    HRESULT CreatePlaced(const char* where, ID3D12Heap* heap, UINT64 offset, const D3D12_RESOURCE_DESC* desc,
                         const D3D12_RESOURCE_STATES& state, REFIID riid, void** resource);
    void CopyDescriptorRanges(UINT destinationRangeCount, const D3D12_CPU_DESCRIPTOR_HANDLE* destinationStarts,
                              const UINT* destinationSizes, UINT sourceRangeCount,
                              const D3D12_CPU_DESCRIPTOR_HANDLE* sourceStarts, const UINT* sourceSizes,
                              const D3D12_DESCRIPTOR_HEAP_TYPE& type);
    D3D12_RESOURCE_ALLOCATION_INFO AllocationInfo(const char* where, UINT descCount, const D3D12_RESOURCE_DESC* descs,
                                                  D3D12_RESOURCE_ALLOCATION_INFO1* infos);
    void CopyableFootprints(const D3D12_RESOURCE_DESC* desc, UINT firstSubresource, UINT subresourceCount,
                            UINT64 baseOffset, D3D12_PLACED_SUBRESOURCE_FOOTPRINT* layouts, UINT* rowCounts,
                            UINT64* rowSizes, UINT64* totalBytes);
    // Finds the live descriptor heap holding `address`; its slot, checked against the heap's
    // increment. `type` < 0 accepts any heap type.
    Status ResolveSlot(uintptr_t address, int type, bool needShaderVisible, const char* what,
                       DescriptorRange* range);
    void WriteDescriptor(const char* where, D3D12_CPU_DESCRIPTOR_HANDLE destination, const Status& status,
                         const Descriptor& descriptor);

    backend::Adapter* adapter_;
    std::shared_ptr<backend::Device> backend_;
    const bool debug_;
    MessageLog log_;
    std::unique_ptr<InfoQueue> infoQueue_;
    std::atomic<HRESULT> removedReason_{S_OK};

    std::mutex registryMutex_;
    std::atomic<uint64_t> releaseGeneration_{0};  // ReleaseGeneration
    std::unordered_map<uint64_t, Resource*> resources_;
    std::map<uintptr_t, DescriptorHeap*> descriptorHeaps_;  // by first slot address
};

// Converts a DESC1 (Device8's methods) to the DESC FreeDML validates; fails when the sampler
// feedback region is set.
Status ToResourceDesc(const D3D12_RESOURCE_DESC1* desc1, const char* where, D3D12_RESOURCE_DESC* desc);

}  // namespace freedml::d3d12
