// ID3D12Fence1: a 64-bit value that the CPU and the queues signal, and that both wait on.
//
// Events on Linux: SetEventOnCompletion takes a Win32 event HANDLE, and Linux has no such thing.
// FreeDML's HANDLE is a file descriptor cast to a pointer (FREEDML_FD_TO_HANDLE in
// freedml/freedml.h). When the fence reaches the value, FreeDML writes the 8-byte integer 1 to that
// descriptor, once. With an eventfd (the intended use) that adds 1 to its counter, so the
// application can poll()/epoll() it for POLLIN and read() it; a pipe's write end works too.
// FreeDML never closes the descriptor; it must stay open until the value is reached or the fence
// is released. A null HANDLE blocks the call until the value is reached (as in D3D12).
#pragma once

#include <atomic>
#include <condition_variable>
#include <functional>
#include <map>
#include <mutex>

#include "common/com_object.h"
#include "common/private_iids.h"
#include "d3d12/internal.h"

namespace freedml::d3d12 {

class Fence final : public NamedComObject<Fence, ID3D12Fence1, ID3D12Fence, ID3D12Pageable, ID3D12DeviceChild,
                                          ID3D12Object> {
public:
    Fence(DeviceInternal& device, UINT64 initialValue, D3D12_FENCE_FLAGS flags);
    ~Fence() override;

    static Fence* FromPublic(ID3D12Fence* fence);

    // ID3D12DeviceChild
    HRESULT STDMETHODCALLTYPE GetDevice(REFIID riid, void** device) override;
    // ID3D12Fence
    UINT64 STDMETHODCALLTYPE GetCompletedValue() override;
    HRESULT STDMETHODCALLTYPE SetEventOnCompletion(UINT64 value, HANDLE event) override;
    HRESULT STDMETHODCALLTYPE Signal(UINT64 value) override;
    // ID3D12Fence1
    D3D12_FENCE_FLAGS STDMETHODCALLTYPE GetCreationFlags() override {
        FREEDML_TRACE_D3D12("ID3D12Fence1::GetCreationFlags", this);
        return flags_;
    }

    void* QueryExtraInterface(REFIID riid);

    DeviceInternal& Device() { return device_; }
    std::string Describe() const;
    // A queue's Signal, run on its worker after all earlier work finished.
    void SignalFromQueue(UINT64 value) { SetValue(value); }
    // Calls `wake` once the value is reached (right away when it already is), from whichever
    // thread reaches it. `wake` must not call back into this fence.
    void AddWaiter(UINT64 value, std::function<void()> wake);

private:
    void SetValue(UINT64 value);
    bool Removed() const { return device_.RemovedReason() != S_OK; }

    DeviceInternal& device_;
    Ref<ID3D12Device> holdDevice_;  // a fence keeps its device alive
    const D3D12_FENCE_FLAGS flags_;
    mutable std::mutex mutex_;
    std::condition_variable changed_;
    // Written under mutex_ (with the waiters it releases); read without it where only the value
    // matters (GetCompletedValue, a wait that is already over).
    std::atomic<UINT64> value_;
    std::multimap<UINT64, std::function<void()>> waiters_;  // by the value they wait for
};

}  // namespace freedml::d3d12
