#include "d3d12/fence.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <vector>

#include "common/trace.h"
#include "d3d12/commands.h"
#include "d3d12/enum_value.h"
#include "d3d12/factories.h"

namespace freedml::d3d12 {

namespace {

Status ValidateFenceFlags(const D3D12_FENCE_FLAGS& value) {
    const UINT flags = static_cast<UINT>(Raw(value));
    constexpr UINT kKnown = D3D12_FENCE_FLAG_SHARED | D3D12_FENCE_FLAG_SHARED_CROSS_ADAPTER |
                            D3D12_FENCE_FLAG_NON_MONITORED;
    INVALID_IF(flags & ~kKnown, "Flags (0x%x) has bits that are not D3D12_FENCE_FLAGS (known: 0x%x).",
               static_cast<unsigned>(flags), kKnown);
    INVALID_IF((flags & D3D12_FENCE_FLAG_SHARED_CROSS_ADAPTER) && !(flags & D3D12_FENCE_FLAG_SHARED),
               "Flags (0x%x) has SHARED_CROSS_ADAPTER without SHARED.", static_cast<unsigned>(flags));
    return {};
}

// Writes the event of the HANDLE convention in fence.h. Returns errno on failure, else 0.
int SignalHandle(HANDLE event) {
    int fd = static_cast<int>(reinterpret_cast<intptr_t>(event));
    uint64_t one = 1;
    for (;;) {
        ssize_t written = write(fd, &one, sizeof(one));
        if (written == static_cast<ssize_t>(sizeof(one))) return 0;
        if (written < 0 && errno == EINTR) continue;
        return written < 0 ? errno : EIO;
    }
}

}  // namespace

Fence::Fence(DeviceInternal& device, UINT64 initialValue, D3D12_FENCE_FLAGS flags)
    : device_(device), holdDevice_(Ref<ID3D12Device>::Share(device.PublicDevice())), flags_(flags), value_(initialValue) {}

Fence::~Fence() {
    // Waiters that never fired are dropped: a queue waiting on this fence holds a reference, so
    // only CPU events (which D3D12 leaves unsignaled too) can be left here.
    waiters_.clear();
}

Fence* Fence::FromPublic(ID3D12Fence* fence) {
    void* impl = nullptr;
    if (!fence || FAILED(fence->QueryInterface(kIidFenceImpl, &impl))) return nullptr;
    return static_cast<Fence*>(impl);
}

void* Fence::QueryExtraInterface(REFIID riid) {
    if (SameGuid(riid, kIidFenceImpl)) return this;
    return nullptr;
}

HRESULT Fence::GetDevice(REFIID riid, void** device) {
    FREEDML_TRACE_D3D12("ID3D12Fence::GetDevice", this, riid, device);
    if (!device) return E_POINTER;
    return device_.PublicDevice()->QueryInterface(riid, device);
}

std::string Fence::Describe() const {
    std::string name = Name();
    std::lock_guard lock(mutex_);
    return Format("fence%s%s%s (value %llu)", name.empty() ? "" : " '", name.c_str(), name.empty() ? "" : "'",
                  static_cast<unsigned long long>(value_.load()));
}

UINT64 Fence::GetCompletedValue() {
    FREEDML_TRACE_D3D12("ID3D12Fence::GetCompletedValue", this);
    // A removed device's fences all read UINT64_MAX, as in D3D12.
    if (Removed()) return UINT64_MAX;
    return value_.load(std::memory_order_acquire);
}

void Fence::SetValue(UINT64 value) {
    std::vector<std::function<void()>> ready;
    {
        std::lock_guard lock(mutex_);
        value_.store(value, std::memory_order_release);  // D3D12 lets a signal move the value backwards
        auto end = waiters_.upper_bound(value);
        for (auto it = waiters_.begin(); it != end; ++it) ready.push_back(std::move(it->second));
        waiters_.erase(waiters_.begin(), end);
    }
    changed_.notify_all();
    for (auto& wake : ready) wake();
}

void Fence::AddWaiter(UINT64 value, std::function<void()> wake) {
    {
        std::lock_guard lock(mutex_);
        if (value_ < value && !Removed()) {
            waiters_.emplace(value, std::move(wake));
            return;
        }
    }
    wake();
}

HRESULT Fence::Signal(UINT64 value) {
    FREEDML_TRACE_D3D12("ID3D12Fence::Signal", this, value);
    return Guarded(device_, "ID3D12Fence::Signal", [&]() -> HRESULT {
        if (Removed()) return DXGI_ERROR_DEVICE_REMOVED;
        SetValue(value);
        return S_OK;
    });
}

HRESULT Fence::SetEventOnCompletion(UINT64 value, HANDLE event) {
    FREEDML_TRACE_D3D12("ID3D12Fence::SetEventOnCompletion", this, value, event);
    return Guarded(device_, "ID3D12Fence::SetEventOnCompletion", [&]() -> HRESULT {
        // Reached already (the common case after an inline run): nothing to wait for or write.
        if (value_.load(std::memory_order_acquire) >= value && !event) return S_OK;
        if (!event) {
            std::unique_lock lock(mutex_);
            // Wakes on every signal; the timeout only notices a device removed meanwhile.
            while (value_ < value && !Removed()) changed_.wait_for(lock, std::chrono::milliseconds(50));
            return S_OK;
        }
        int fd = static_cast<int>(reinterpret_cast<intptr_t>(event));
        if (fd < 0 || fcntl(fd, F_GETFD) == -1) {
            return Fail(device_,
                        Error(E_INVALIDARG,
                              "ID3D12Fence::SetEventOnCompletion: hEvent (%p) of %s is not an open file descriptor. "
                              "On Linux a FreeDML event HANDLE is a file descriptor (an eventfd) cast with "
                              "FREEDML_FD_TO_HANDLE.",
                              event, Describe().c_str()),
                        D3D12_MESSAGE_CATEGORY_EXECUTION);
        }
        DeviceInternal* device = &device_;
        auto report = [device, event, value](const std::string& description, int error) {
            device->Report(D3D12_MESSAGE_SEVERITY_WARNING, D3D12_MESSAGE_CATEGORY_EXECUTION,
                           Format("ID3D12Fence::SetEventOnCompletion: %s reached %llu, but writing to its event "
                                  "(file descriptor %d) failed: %s.",
                                  description.c_str(), static_cast<unsigned long long>(value),
                                  static_cast<int>(reinterpret_cast<intptr_t>(event)), std::strerror(error)));
        };
        // Reached already: the event is written now, with nothing kept for later.
        if (value_.load(std::memory_order_acquire) >= value || Removed()) {
            if (int error = SignalHandle(event)) report(Describe(), error);
            return S_OK;
        }
        AddWaiter(value, [report, event, description = Describe()] {
            if (int error = SignalHandle(event)) report(description, error);
        });
        return S_OK;
    });
}

HRESULT CreateFence(DeviceInternal& device, UINT64 initialValue, const D3D12_FENCE_FLAGS& flags, REFIID riid,
                    void** object) {
    // `flags` is read as an integer until validated (enum_value.h).
    Status status = ValidateFenceFlags(flags);
    if (!status.ok()) {
        status.AddContext("calling ID3D12Device::CreateFence");
        return Fail(device, status, D3D12_MESSAGE_CATEGORY_STATE_CREATION);
    }
    if (ValidateOnly(object)) return kValidatedOnly;
    return HandOut(new Fence(device, initialValue, flags), riid, object);
}

}  // namespace freedml::d3d12
