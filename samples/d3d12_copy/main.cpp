// d3d12_copy: the smallest useful D3D12 program on FreeDML. It uploads 16 floats (UPLOAD buffer ->
// DEFAULT buffer with d3dx12.h's UpdateSubresources), transitions the DEFAULT buffer, copies it into
// a READBACK buffer, waits on a fence, maps the READBACK buffer and prints what came back.
// Exits with 1 when the data does not match (or any call fails).
#include <wsl/winadapter.h>
#include <directx/d3d12.h>
#include <directx/d3dx12.h>
#include <dxguids/dxguids.h>

#include <cstdio>
#include <cstring>

namespace {

constexpr UINT kCount = 16;
constexpr UINT64 kBytes = kCount * sizeof(float);

bool Check(HRESULT hr, const char* what) {
    if (SUCCEEDED(hr)) return true;
    std::fprintf(stderr, "d3d12_copy: %s failed (HRESULT 0x%08x)\n", what, static_cast<unsigned>(hr));
    return false;
}

template <class T>
void SafeRelease(T*& object) {
    if (object) object->Release();
    object = nullptr;
}

ID3D12Resource* CreateBuffer(ID3D12Device* device, D3D12_HEAP_TYPE heapType, D3D12_RESOURCE_STATES state) {
    CD3DX12_HEAP_PROPERTIES heap(heapType);
    CD3DX12_RESOURCE_DESC desc = CD3DX12_RESOURCE_DESC::Buffer(kBytes);
    ID3D12Resource* buffer = nullptr;
    if (!Check(device->CreateCommittedResource(&heap, D3D12_HEAP_FLAG_NONE, &desc, state, nullptr,
                                               IID_PPV_ARGS(&buffer)),
               "CreateCommittedResource")) {
        return nullptr;
    }
    return buffer;
}

int Run() {
    ID3D12Device* device = nullptr;
    if (!Check(D3D12CreateDevice(nullptr, D3D_FEATURE_LEVEL_11_0, IID_PPV_ARGS(&device)), "D3D12CreateDevice")) return 1;

    D3D12_COMMAND_QUEUE_DESC queueDesc = {};
    queueDesc.Type = D3D12_COMMAND_LIST_TYPE_DIRECT;
    ID3D12CommandQueue* queue = nullptr;
    ID3D12CommandAllocator* allocator = nullptr;
    ID3D12GraphicsCommandList* list = nullptr;
    ID3D12Fence* fence = nullptr;
    ID3D12Resource* upload = nullptr;
    ID3D12Resource* gpu = nullptr;
    ID3D12Resource* readback = nullptr;
    int result = 1;
    do {
        if (!Check(device->CreateCommandQueue(&queueDesc, IID_PPV_ARGS(&queue)), "CreateCommandQueue")) break;
        if (!Check(device->CreateCommandAllocator(D3D12_COMMAND_LIST_TYPE_DIRECT, IID_PPV_ARGS(&allocator)),
                   "CreateCommandAllocator")) {
            break;
        }
        if (!Check(device->CreateCommandList(0, D3D12_COMMAND_LIST_TYPE_DIRECT, allocator, nullptr,
                                             IID_PPV_ARGS(&list)),
                   "CreateCommandList")) {
            break;
        }
        if (!Check(device->CreateFence(0, D3D12_FENCE_FLAG_NONE, IID_PPV_ARGS(&fence)), "CreateFence")) break;
        upload = CreateBuffer(device, D3D12_HEAP_TYPE_UPLOAD, D3D12_RESOURCE_STATE_GENERIC_READ);
        gpu = CreateBuffer(device, D3D12_HEAP_TYPE_DEFAULT, D3D12_RESOURCE_STATE_COPY_DEST);
        readback = CreateBuffer(device, D3D12_HEAP_TYPE_READBACK, D3D12_RESOURCE_STATE_COPY_DEST);
        if (!upload || !gpu || !readback) break;

        float input[kCount];
        for (UINT i = 0; i < kCount; ++i) input[i] = static_cast<float>(i);
        D3D12_SUBRESOURCE_DATA data = {input, static_cast<LONG_PTR>(kBytes), static_cast<LONG_PTR>(kBytes)};
        if (UpdateSubresources(list, gpu, upload, 0, 0, 1, &data) != kBytes) {
            std::fprintf(stderr, "d3d12_copy: UpdateSubresources failed\n");
            break;
        }
        D3D12_RESOURCE_BARRIER barrier = CD3DX12_RESOURCE_BARRIER::Transition(gpu, D3D12_RESOURCE_STATE_COPY_DEST,
                                                                              D3D12_RESOURCE_STATE_COPY_SOURCE);
        list->ResourceBarrier(1, &barrier);
        list->CopyResource(readback, gpu);
        if (!Check(list->Close(), "ID3D12GraphicsCommandList::Close")) break;

        ID3D12CommandList* lists[] = {list};
        queue->ExecuteCommandLists(1, lists);
        if (!Check(queue->Signal(fence, 1), "ID3D12CommandQueue::Signal")) break;
        if (!Check(fence->SetEventOnCompletion(1, nullptr), "ID3D12Fence::SetEventOnCompletion")) break;

        void* mapped = nullptr;
        D3D12_RANGE readRange = {0, static_cast<SIZE_T>(kBytes)};
        if (!Check(readback->Map(0, &readRange, &mapped), "ID3D12Resource::Map")) break;
        float output[kCount];
        std::memcpy(output, mapped, kBytes);
        D3D12_RANGE noWrite = {0, 0};
        readback->Unmap(0, &noWrite);

        std::printf("Copied %u floats through the D3D12 queue:", kCount);
        for (float value : output) std::printf(" %g", value);
        std::printf("\n");
        result = std::memcmp(input, output, kBytes) == 0 ? 0 : 1;
        if (result) std::fprintf(stderr, "d3d12_copy: the data that came back differs from what was uploaded\n");
    } while (false);

    SafeRelease(readback);
    SafeRelease(gpu);
    SafeRelease(upload);
    SafeRelease(fence);
    SafeRelease(list);
    SafeRelease(allocator);
    SafeRelease(queue);
    SafeRelease(device);
    return result;
}

}  // namespace

int main() { return Run(); }
