// ID3D12GraphicsCommandList8 (and every version below it, so applications that ask for any of them
// get one). FreeDML records the compute subset: buffer copies, resource barriers, descriptor heaps,
// and the DirectML dispatches that libdirectml records through CommandListInternal::Record.
// Every other method says once that it is unsupported and makes Close fail, since a list that
// silently dropped a draw or a root-signature change would compute something else.
#pragma once

#include <atomic>
#include <memory>
#include <string>
#include <vector>

#include "common/com_object.h"
#include "common/private_iids.h"
#include "d3d12/internal.h"

namespace freedml::d3d12 {

class CommandAllocator;

// What one recording (creation or Reset up to Close) produced. The list and every queue running it
// share it, so a list may be reset and re-recorded while the queue still runs its last recording.
struct Recording {
    std::vector<std::unique_ptr<Command>> commands;
    // One execution of a recording at a time. A Reset starts a new recording, which may run while
    // the previous one still does (ID3D12GraphicsCommandList::Reset's remarks).
    std::atomic<bool> executing{false};
};

class CommandList final
    : public NamedComObject<CommandList, ID3D12GraphicsCommandList8, ID3D12GraphicsCommandList7,
                            ID3D12GraphicsCommandList6, ID3D12GraphicsCommandList5, ID3D12GraphicsCommandList4,
                            ID3D12GraphicsCommandList3, ID3D12GraphicsCommandList2, ID3D12GraphicsCommandList1,
                            ID3D12GraphicsCommandList, ID3D12CommandList, ID3D12DeviceChild, ID3D12Object>,
      public CommandListInternal {
public:
    CommandList(DeviceInternal& device, D3D12_COMMAND_LIST_TYPE type);
    ~CommandList() override;

    static CommandList* FromPublic(ID3D12CommandList* list);
    void* QueryExtraInterface(REFIID riid);

    // Starts recording on `allocator`, which the caller validated and claimed for this list.
    void BeginRecording(CommandAllocator* allocator);
    std::string Describe() const;
    DeviceInternal& Device() { return device_; }

    // For the queue.
    std::shared_ptr<Recording> Recorded() const { return recording_; }
    // The same without a reference, for a run that ends before the caller's call returns.
    const Recording* RecordedNow() const { return recording_.get(); }
    CommandAllocator* Allocator() const { return allocator_.Get(); }
    uint64_t AllocatorGeneration() const { return allocatorGeneration_; }
    bool CloseFailed() const { return closeFailed_; }
    // One execution of the current recording at a time: false when a queue has not finished the
    // previous execution of this recording (a list that was Reset since is free to run again).
    bool TryBeginExecution() {
        bool idle = false;
        return !recording_ || recording_->executing.compare_exchange_strong(idle, true);
    }
    // Undoes TryBeginExecution before the submission was queued.
    void EndExecution() {
        if (recording_) recording_->executing.store(false);
    }

    // CommandListInternal
    ID3D12GraphicsCommandList* PublicCommandList() override { return this; }
    D3D12_COMMAND_LIST_TYPE Type() const override { return type_; }
    bool IsOpen() const override { return open_; }
    ID3D12DescriptorHeap* CurrentDescriptorHeap() const override { return cbvSrvUavHeap_.Get(); }
    void Record(std::unique_ptr<Command> command) override;
    void FailRecording(const std::string& text) override;

    // ID3D12DeviceChild
    HRESULT STDMETHODCALLTYPE GetDevice(REFIID riid, void** device) override;
    // ID3D12CommandList
    D3D12_COMMAND_LIST_TYPE STDMETHODCALLTYPE GetType() override {
        FREEDML_TRACE_D3D12("ID3D12GraphicsCommandList::GetType", this);
        return type_;
    }

    // ID3D12GraphicsCommandList
    HRESULT STDMETHODCALLTYPE Close() override;
    HRESULT STDMETHODCALLTYPE Reset(ID3D12CommandAllocator* allocator, ID3D12PipelineState* initialState) override;
    void STDMETHODCALLTYPE ClearState(ID3D12PipelineState* pipelineState) override;
    void STDMETHODCALLTYPE DrawInstanced(UINT, UINT, UINT, UINT) override;
    void STDMETHODCALLTYPE DrawIndexedInstanced(UINT, UINT, UINT, INT, UINT) override;
    void STDMETHODCALLTYPE Dispatch(UINT, UINT, UINT) override;
    void STDMETHODCALLTYPE CopyBufferRegion(ID3D12Resource* dstBuffer, UINT64 dstOffset, ID3D12Resource* srcBuffer,
                                            UINT64 srcOffset, UINT64 numBytes) override;
    void STDMETHODCALLTYPE CopyTextureRegion(const D3D12_TEXTURE_COPY_LOCATION*, UINT, UINT, UINT,
                                             const D3D12_TEXTURE_COPY_LOCATION*, const D3D12_BOX*) override;
    void STDMETHODCALLTYPE CopyResource(ID3D12Resource* dstResource, ID3D12Resource* srcResource) override;
    void STDMETHODCALLTYPE CopyTiles(ID3D12Resource*, const D3D12_TILED_RESOURCE_COORDINATE*,
                                     const D3D12_TILE_REGION_SIZE*, ID3D12Resource*, UINT64,
                                     D3D12_TILE_COPY_FLAGS) override;
    void STDMETHODCALLTYPE ResolveSubresource(ID3D12Resource*, UINT, ID3D12Resource*, UINT, DXGI_FORMAT) override;
    void STDMETHODCALLTYPE IASetPrimitiveTopology(D3D12_PRIMITIVE_TOPOLOGY) override;
    void STDMETHODCALLTYPE RSSetViewports(UINT, const D3D12_VIEWPORT*) override;
    void STDMETHODCALLTYPE RSSetScissorRects(UINT, const D3D12_RECT*) override;
    void STDMETHODCALLTYPE OMSetBlendFactor(const FLOAT[4]) override;
    void STDMETHODCALLTYPE OMSetStencilRef(UINT) override;
    void STDMETHODCALLTYPE SetPipelineState(ID3D12PipelineState*) override;
    void STDMETHODCALLTYPE ResourceBarrier(UINT numBarriers, const D3D12_RESOURCE_BARRIER* barriers) override;
    void STDMETHODCALLTYPE ExecuteBundle(ID3D12GraphicsCommandList*) override;
    void STDMETHODCALLTYPE SetDescriptorHeaps(UINT numHeaps, ID3D12DescriptorHeap* const* heaps) override;
    void STDMETHODCALLTYPE SetComputeRootSignature(ID3D12RootSignature*) override;
    void STDMETHODCALLTYPE SetGraphicsRootSignature(ID3D12RootSignature*) override;
    void STDMETHODCALLTYPE SetComputeRootDescriptorTable(UINT, D3D12_GPU_DESCRIPTOR_HANDLE) override;
    void STDMETHODCALLTYPE SetGraphicsRootDescriptorTable(UINT, D3D12_GPU_DESCRIPTOR_HANDLE) override;
    void STDMETHODCALLTYPE SetComputeRoot32BitConstant(UINT, UINT, UINT) override;
    void STDMETHODCALLTYPE SetGraphicsRoot32BitConstant(UINT, UINT, UINT) override;
    void STDMETHODCALLTYPE SetComputeRoot32BitConstants(UINT, UINT, const void*, UINT) override;
    void STDMETHODCALLTYPE SetGraphicsRoot32BitConstants(UINT, UINT, const void*, UINT) override;
    void STDMETHODCALLTYPE SetComputeRootConstantBufferView(UINT, D3D12_GPU_VIRTUAL_ADDRESS) override;
    void STDMETHODCALLTYPE SetGraphicsRootConstantBufferView(UINT, D3D12_GPU_VIRTUAL_ADDRESS) override;
    void STDMETHODCALLTYPE SetComputeRootShaderResourceView(UINT, D3D12_GPU_VIRTUAL_ADDRESS) override;
    void STDMETHODCALLTYPE SetGraphicsRootShaderResourceView(UINT, D3D12_GPU_VIRTUAL_ADDRESS) override;
    void STDMETHODCALLTYPE SetComputeRootUnorderedAccessView(UINT, D3D12_GPU_VIRTUAL_ADDRESS) override;
    void STDMETHODCALLTYPE SetGraphicsRootUnorderedAccessView(UINT, D3D12_GPU_VIRTUAL_ADDRESS) override;
    void STDMETHODCALLTYPE IASetIndexBuffer(const D3D12_INDEX_BUFFER_VIEW*) override;
    void STDMETHODCALLTYPE IASetVertexBuffers(UINT, UINT, const D3D12_VERTEX_BUFFER_VIEW*) override;
    void STDMETHODCALLTYPE SOSetTargets(UINT, UINT, const D3D12_STREAM_OUTPUT_BUFFER_VIEW*) override;
    void STDMETHODCALLTYPE OMSetRenderTargets(UINT, const D3D12_CPU_DESCRIPTOR_HANDLE*, BOOL,
                                              const D3D12_CPU_DESCRIPTOR_HANDLE*) override;
    void STDMETHODCALLTYPE ClearDepthStencilView(D3D12_CPU_DESCRIPTOR_HANDLE, D3D12_CLEAR_FLAGS, FLOAT, UINT8, UINT,
                                                 const D3D12_RECT*) override;
    void STDMETHODCALLTYPE ClearRenderTargetView(D3D12_CPU_DESCRIPTOR_HANDLE, const FLOAT[4], UINT,
                                                 const D3D12_RECT*) override;
    void STDMETHODCALLTYPE ClearUnorderedAccessViewUint(D3D12_GPU_DESCRIPTOR_HANDLE, D3D12_CPU_DESCRIPTOR_HANDLE,
                                                        ID3D12Resource*, const UINT[4], UINT,
                                                        const D3D12_RECT*) override;
    void STDMETHODCALLTYPE ClearUnorderedAccessViewFloat(D3D12_GPU_DESCRIPTOR_HANDLE, D3D12_CPU_DESCRIPTOR_HANDLE,
                                                         ID3D12Resource*, const FLOAT[4], UINT,
                                                         const D3D12_RECT*) override;
    void STDMETHODCALLTYPE DiscardResource(ID3D12Resource* resource, const D3D12_DISCARD_REGION* region) override;
    void STDMETHODCALLTYPE BeginQuery(ID3D12QueryHeap*, D3D12_QUERY_TYPE, UINT) override;
    void STDMETHODCALLTYPE EndQuery(ID3D12QueryHeap*, D3D12_QUERY_TYPE, UINT) override;
    void STDMETHODCALLTYPE ResolveQueryData(ID3D12QueryHeap*, D3D12_QUERY_TYPE, UINT, UINT, ID3D12Resource*,
                                           UINT64) override;
    void STDMETHODCALLTYPE SetPredication(ID3D12Resource* buffer, UINT64, D3D12_PREDICATION_OP) override;
    void STDMETHODCALLTYPE SetMarker(UINT, const void*, UINT) override {}
    void STDMETHODCALLTYPE BeginEvent(UINT, const void*, UINT) override {}
    void STDMETHODCALLTYPE EndEvent() override {}
    void STDMETHODCALLTYPE ExecuteIndirect(ID3D12CommandSignature*, UINT, ID3D12Resource*, UINT64, ID3D12Resource*,
                                           UINT64) override;
    // ID3D12GraphicsCommandList1
    void STDMETHODCALLTYPE AtomicCopyBufferUINT(ID3D12Resource*, UINT64, ID3D12Resource*, UINT64, UINT,
                                                ID3D12Resource* const*,
                                                const D3D12_SUBRESOURCE_RANGE_UINT64*) override;
    void STDMETHODCALLTYPE AtomicCopyBufferUINT64(ID3D12Resource*, UINT64, ID3D12Resource*, UINT64, UINT,
                                                  ID3D12Resource* const*,
                                                  const D3D12_SUBRESOURCE_RANGE_UINT64*) override;
    void STDMETHODCALLTYPE OMSetDepthBounds(FLOAT, FLOAT) override;
    void STDMETHODCALLTYPE SetSamplePositions(UINT, UINT, D3D12_SAMPLE_POSITION*) override;
    void STDMETHODCALLTYPE ResolveSubresourceRegion(ID3D12Resource*, UINT, UINT, UINT, ID3D12Resource*, UINT,
                                                    D3D12_RECT*, DXGI_FORMAT, D3D12_RESOLVE_MODE) override;
    void STDMETHODCALLTYPE SetViewInstanceMask(UINT) override;
    // ID3D12GraphicsCommandList2
    void STDMETHODCALLTYPE WriteBufferImmediate(UINT, const D3D12_WRITEBUFFERIMMEDIATE_PARAMETER*,
                                                const D3D12_WRITEBUFFERIMMEDIATE_MODE*) override;
    // ID3D12GraphicsCommandList3
    void STDMETHODCALLTYPE SetProtectedResourceSession(ID3D12ProtectedResourceSession* session) override;
    // ID3D12GraphicsCommandList4
    void STDMETHODCALLTYPE BeginRenderPass(UINT, const D3D12_RENDER_PASS_RENDER_TARGET_DESC*,
                                           const D3D12_RENDER_PASS_DEPTH_STENCIL_DESC*,
                                           D3D12_RENDER_PASS_FLAGS) override;
    void STDMETHODCALLTYPE EndRenderPass() override;
    void STDMETHODCALLTYPE InitializeMetaCommand(ID3D12MetaCommand*, const void*, SIZE_T) override;
    void STDMETHODCALLTYPE ExecuteMetaCommand(ID3D12MetaCommand*, const void*, SIZE_T) override;
    void STDMETHODCALLTYPE BuildRaytracingAccelerationStructure(
        const D3D12_BUILD_RAYTRACING_ACCELERATION_STRUCTURE_DESC*, UINT,
        const D3D12_RAYTRACING_ACCELERATION_STRUCTURE_POSTBUILD_INFO_DESC*) override;
    void STDMETHODCALLTYPE EmitRaytracingAccelerationStructurePostbuildInfo(
        const D3D12_RAYTRACING_ACCELERATION_STRUCTURE_POSTBUILD_INFO_DESC*, UINT,
        const D3D12_GPU_VIRTUAL_ADDRESS*) override;
    void STDMETHODCALLTYPE CopyRaytracingAccelerationStructure(D3D12_GPU_VIRTUAL_ADDRESS, D3D12_GPU_VIRTUAL_ADDRESS,
                                                               D3D12_RAYTRACING_ACCELERATION_STRUCTURE_COPY_MODE) override;
    void STDMETHODCALLTYPE SetPipelineState1(ID3D12StateObject*) override;
    void STDMETHODCALLTYPE DispatchRays(const D3D12_DISPATCH_RAYS_DESC*) override;
    // ID3D12GraphicsCommandList5
    void STDMETHODCALLTYPE RSSetShadingRate(D3D12_SHADING_RATE, const D3D12_SHADING_RATE_COMBINER*) override;
    void STDMETHODCALLTYPE RSSetShadingRateImage(ID3D12Resource*) override;
    // ID3D12GraphicsCommandList6
    void STDMETHODCALLTYPE DispatchMesh(UINT, UINT, UINT) override;
    // ID3D12GraphicsCommandList7
    void STDMETHODCALLTYPE Barrier(UINT32, const D3D12_BARRIER_GROUP*) override;
    // ID3D12GraphicsCommandList8
    void STDMETHODCALLTYPE OMSetFrontAndBackStencilRef(UINT, UINT) override;

private:
    // Reports the method once as unsupported and fails the recording.
    void Unsupported(const char* method);
    // ClearUnorderedAccessViewUint (`floats` false: `values` is UINT[4]) and ...Float (FLOAT[4]);
    // clear_uav.cpp.
    void ClearUnorderedAccessView(const char* method, D3D12_GPU_DESCRIPTOR_HANDLE gpuHandle,
                                  D3D12_CPU_DESCRIPTOR_HANDLE cpuHandle, ID3D12Resource* resource, const void* values,
                                  bool floats, UINT numRects, const D3D12_RECT* rects);
    // False (with an error message) when the list is closed: the call is dropped.
    bool CheckOpen(const char* method);
    void ReleaseAllocator();
    // A recording error whose HRESULT Close returns (FailRecording's is E_INVALIDARG).
    void FailRecordingWith(HRESULT hr, const std::string& text);
    // A recording method's body, so that no C++ exception leaves it (common/api_guard.h): an
    // exception fails the recording, and Close returns its HRESULT (E_OUTOFMEMORY for
    // std::bad_alloc), as D3D12 reports an allocation failure during recording.
    template <class Body>
    void GuardRecording(const char* method, Body&& body) noexcept {
        GuardVoid(method,
                  [&](const char* name, const ExceptionFailure& failure) {
                      FailRecordingWith(failure.hr, DescribeFailure(name, failure));
                  },
                  std::forward<Body>(body));
    }

    DeviceInternal& device_;
    Ref<ID3D12Device> holdDevice_;  // a list keeps its device alive
    const D3D12_COMMAND_LIST_TYPE type_;
    Ref<CommandAllocator> allocator_;
    uint64_t allocatorGeneration_ = 0;
    bool open_ = false;
    bool closeFailed_ = false;
    std::string firstError_;
    HRESULT firstErrorHr_ = S_OK;
    std::shared_ptr<Recording> recording_;
    Ref<ID3D12DescriptorHeap> cbvSrvUavHeap_;  // held until Reset
};

}  // namespace freedml::d3d12
