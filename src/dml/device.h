// The DirectML device: the factory of every other DirectML object, and the one place where
// DirectML errors are reported (to the D3D12 device's info queue, the FreeDML callback, and
// standard error when debugging), unless IDMLDebugDevice::SetMuteDebugOutput muted them.
#pragma once

#include <atomic>

#include "common/api_guard.h"
#include "common/com_object.h"
#include "d3d12/internal.h"
#include "dml/tensor.h"

namespace freedml::dml {

class Device;

// IDMLDebugDevice lives beside the device and shares its reference count.
class DebugDeviceInterface final : public IDMLDebugDevice {
public:
    explicit DebugDeviceInterface(Device& device) : device_(device) {}
    HRESULT STDMETHODCALLTYPE QueryInterface(REFIID riid, void** object) override;
    ULONG STDMETHODCALLTYPE AddRef() override;
    ULONG STDMETHODCALLTYPE Release() override;
    void STDMETHODCALLTYPE SetMuteDebugOutput(BOOL mute) override;

private:
    Device& device_;
};

class Device final : public NamedComObject<Device, IDMLDevice1, IDMLDevice, IDMLObject> {
public:
    // `flags` and `minimumFeatureLevel` are the application's values read as integers (see
    // common/enum_value.h): they are validated here before they become enums.
    static HRESULT Create(ID3D12Device* d3d12Device, uint32_t flags, uint32_t minimumFeatureLevel, REFIID riid,
                          void** object);

    // IDMLDevice
    HRESULT STDMETHODCALLTYPE CheckFeatureSupport(DML_FEATURE feature, UINT featureQueryDataSize,
                                                  const void* featureQueryData, UINT featureSupportDataSize,
                                                  void* featureSupportData) override;
    HRESULT STDMETHODCALLTYPE CreateOperator(const DML_OPERATOR_DESC* desc, REFIID riid, void** object) override;
    HRESULT STDMETHODCALLTYPE CompileOperator(IDMLOperator* op, DML_EXECUTION_FLAGS flags, REFIID riid,
                                              void** object) override;
    HRESULT STDMETHODCALLTYPE CreateOperatorInitializer(UINT operatorCount, IDMLCompiledOperator* const* operators,
                                                        REFIID riid, void** object) override;
    HRESULT STDMETHODCALLTYPE CreateCommandRecorder(REFIID riid, void** object) override;
    HRESULT STDMETHODCALLTYPE CreateBindingTable(const DML_BINDING_TABLE_DESC* desc, REFIID riid,
                                                 void** object) override;
    HRESULT STDMETHODCALLTYPE Evict(UINT count, IDMLPageable* const* objects) override;
    HRESULT STDMETHODCALLTYPE MakeResident(UINT count, IDMLPageable* const* objects) override;
    HRESULT STDMETHODCALLTYPE GetDeviceRemovedReason() override;
    HRESULT STDMETHODCALLTYPE GetParentDevice(REFIID riid, void** object) override;
    // IDMLDevice1
    HRESULT STDMETHODCALLTYPE CompileGraph(const DML_GRAPH_DESC* desc, DML_EXECUTION_FLAGS flags, REFIID riid,
                                           void** object) override;

    void* QueryExtraInterface(REFIID riid);

    // ---- For the other DirectML objects ----
    d3d12::DeviceInternal& D3D12() { return *d3d12_; }
    ID3D12Device* D3D12Device() { return d3d12Device_.Get(); }
    DML_FEATURE_LEVEL FeatureLevel() const { return featureLevel_; }
    bool DebugEnabled() const { return (flags_ & DML_CREATE_DEVICE_FLAG_DEBUG) != 0; }
    void SetMuted(bool muted) { muted_ = muted; }
    // 1 for the first DirectML device the process creates, 2 for the next... (capture.h's test hook)
    uint32_t Ordinal() const { return ordinal_; }

    // Reports a failed HRESULT method and returns its HRESULT:
    //   "IDMLDevice::CreateOperator: While validating a GEMM operator: ATensor: ..."
    HRESULT Fail(const char* method, const Status& status);
    // Reports a misused void method and removes the device, as DirectML does.
    void Remove(const char* method, const Status& status);
    // Runs a method's body so that no C++ exception leaves it (common/api_guard.h): an HRESULT
    // method fails with the exception's HRESULT (E_OUTOFMEMORY for std::bad_alloc) and a message;
    // a void method removes the device, as a misused one does.
    template <class Body>
    HRESULT Guarded(const char* method, Body&& body) noexcept {
        return Guard(method, [&](const char* name, const ExceptionFailure& failure) {
            Fail(name, Status(failure.hr, FailureSentence(failure)));
        }, std::forward<Body>(body));
    }
    template <class Body>
    void GuardedOrRemove(const char* method, Body&& body) noexcept {
        GuardVoid(method, [&](const char* name, const ExceptionFailure& failure) {
            Remove(name, Status(RemovalReason(failure), FailureSentence(failure)));
        }, std::forward<Body>(body));
    }
    // Reports an error that neither fails a call nor removes the device (a skipped dispatch).
    void ReportError(const std::string& text);

    // True when `object` (an IDML* pointer) is a FreeDML DirectML object of this device.
    bool Owns(IDMLDeviceChild* object);

private:
    Device(ID3D12Device* d3d12Device, d3d12::DeviceInternal* internal, DML_CREATE_DEVICE_FLAGS flags,
           DML_FEATURE_LEVEL featureLevel);

    Ref<ID3D12Device> d3d12Device_;
    d3d12::DeviceInternal* d3d12_;
    DML_CREATE_DEVICE_FLAGS flags_;
    DML_FEATURE_LEVEL featureLevel_;
    std::atomic<bool> muted_{false};
    uint32_t ordinal_;
    DebugDeviceInterface debugInterface_{*this};
};

// The highest feature level FreeDML's DirectML.h declares (and its device reports).
constexpr DML_FEATURE_LEVEL kMaxFeatureLevel = DML_FEATURE_LEVEL_6_4;

}  // namespace freedml::dml
