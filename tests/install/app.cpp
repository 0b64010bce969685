// The D3D12 half of the HelloDirectML sequence, built against an installed FreeDML only: a device,
// a queue, an allocator and a list; committed buffers on the DEFAULT, UPLOAD and READBACK heaps;
// UpdateSubresources; barriers; copies; a fence wait through an eventfd; Map of the readback.
// Prints "install app: OK <sum>" when the data made the round trip.
#include <wsl/winadapter.h>
#include <directx/d3d12.h>
#include <directx/d3dx12.h>
#include <dxguids/dxguids.h>
#include <freedml/freedml.h>

#include <poll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>

#define CHECK(call)                                                                               \
    do {                                                                                          \
        HRESULT hr_ = (call);                                                                     \
        if (FAILED(hr_)) {                                                                        \
            std::fprintf(stderr, "install app: %s failed (0x%08x)\n", #call, (unsigned)hr_);      \
            return 1;                                                                             \
        }                                                                                         \
    } while (0)

static void Print(FREEDML_MESSAGE_SEVERITY, const char* source, const char* text, void*) {
    std::fprintf(stderr, "%s: %s\n", source, text);
}

int main() {
    FreeDMLSetMessageCallback(Print, nullptr);
    constexpr UINT kCount = 64;
    constexpr UINT64 kBytes = kCount * sizeof(float);

    ID3D12Device* device = nullptr;
    CHECK(D3D12CreateDevice(nullptr, D3D_FEATURE_LEVEL_11_0, IID_PPV_ARGS(&device)));
    D3D12_COMMAND_QUEUE_DESC queueDesc = {D3D12_COMMAND_LIST_TYPE_DIRECT};
    ID3D12CommandQueue* queue = nullptr;
    CHECK(device->CreateCommandQueue(&queueDesc, IID_PPV_ARGS(&queue)));
    ID3D12CommandAllocator* allocator = nullptr;
    CHECK(device->CreateCommandAllocator(D3D12_COMMAND_LIST_TYPE_DIRECT, IID_PPV_ARGS(&allocator)));
    ID3D12GraphicsCommandList* list = nullptr;
    CHECK(device->CreateCommandList(0, D3D12_COMMAND_LIST_TYPE_DIRECT, allocator, nullptr, IID_PPV_ARGS(&list)));

    ID3D12Resource* buffers[3] = {};
    const D3D12_HEAP_TYPE heaps[3] = {D3D12_HEAP_TYPE_UPLOAD, D3D12_HEAP_TYPE_DEFAULT, D3D12_HEAP_TYPE_READBACK};
    const D3D12_RESOURCE_STATES states[3] = {D3D12_RESOURCE_STATE_GENERIC_READ, D3D12_RESOURCE_STATE_COPY_DEST,
                                             D3D12_RESOURCE_STATE_COPY_DEST};
    for (int i = 0; i < 3; ++i) {
        CD3DX12_HEAP_PROPERTIES heap(heaps[i]);
        CD3DX12_RESOURCE_DESC desc = CD3DX12_RESOURCE_DESC::Buffer(kBytes);
        CHECK(device->CreateCommittedResource(&heap, D3D12_HEAP_FLAG_NONE, &desc, states[i], nullptr,
                                              IID_PPV_ARGS(&buffers[i])));
    }
    float input[kCount];
    for (UINT i = 0; i < kCount; ++i) input[i] = 0.5f * i;
    D3D12_SUBRESOURCE_DATA data = {input, (LONG_PTR)kBytes, (LONG_PTR)kBytes};
    if (UpdateSubresources(list, buffers[1], buffers[0], 0, 0, 1, &data) != kBytes) return 1;
    auto barrier = CD3DX12_RESOURCE_BARRIER::Transition(buffers[1], D3D12_RESOURCE_STATE_COPY_DEST,
                                                        D3D12_RESOURCE_STATE_COPY_SOURCE);
    list->ResourceBarrier(1, &barrier);
    list->CopyResource(buffers[2], buffers[1]);
    CHECK(list->Close());
    ID3D12CommandList* lists[] = {list};
    queue->ExecuteCommandLists(1, lists);

    ID3D12Fence* fence = nullptr;
    CHECK(device->CreateFence(0, D3D12_FENCE_FLAG_NONE, IID_PPV_ARGS(&fence)));
    int event = eventfd(0, EFD_CLOEXEC);
    CHECK(fence->SetEventOnCompletion(1, FREEDML_FD_TO_HANDLE(event)));
    CHECK(queue->Signal(fence, 1));
    pollfd entry = {event, POLLIN, 0};
    if (poll(&entry, 1, 10000) != 1) {
        std::fprintf(stderr, "install app: the fence event never fired\n");
        return 1;
    }
    close(event);

    void* mapped = nullptr;
    CHECK(buffers[2]->Map(0, nullptr, &mapped));
    bool same = std::memcmp(mapped, input, kBytes) == 0;
    float sum = 0;
    for (UINT i = 0; i < kCount; ++i) sum += static_cast<const float*>(mapped)[i];
    buffers[2]->Unmap(0, nullptr);

    fence->Release();
    for (auto* buffer : buffers) buffer->Release();
    list->Release();
    allocator->Release();
    queue->Release();
    device->Release();
    if (!same) {
        std::fprintf(stderr, "install app: the data that came back differs\n");
        return 1;
    }
    std::printf("install app: OK %g\n", sum);
    return 0;
}
