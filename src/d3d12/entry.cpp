// The exported entry points of libd3d12.so.
#include "backend/backend.h"
#include "common/trace.h"
#include "d3d12/debug.h"
#include "d3d12/device.h"
#include "d3d12/enum_value.h"
#include "d3d12/factories.h"
#include "d3d12/messages.h"
#include "freedml/freedml.h"

namespace freedml::d3d12 {
namespace {

// The minimum feature levels D3D12CreateDevice accepts: 1_0_CORE (the compute-only level
// DirectML asks for on compute-only adapters) and 11_0 through 12_1. FreeDML implements the
// compute subset of these; it does not claim 12_2 (which requires ray tracing, mesh shaders,
// sampler feedback and variable-rate shading).
bool AcceptedFeatureLevel(const D3D_FEATURE_LEVEL& level) {
    switch (Raw(level)) {
        case D3D_FEATURE_LEVEL_1_0_CORE:
        case D3D_FEATURE_LEVEL_11_0:
        case D3D_FEATURE_LEVEL_11_1:
        case D3D_FEATURE_LEVEL_12_0:
        case D3D_FEATURE_LEVEL_12_1: return true;
        default: return false;
    }
}

HRESULT ReportFailure(const Status& status) {
    ReportToProcess(D3D12_MESSAGE_SEVERITY_ERROR, "D3D12", status.FullMessage(),
                    DebugLayerRequested() || DebugEnvironment());
    return status.hr();
}

// The exported functions run through this (common/api_guard.h): no C++ exception leaves them.
template <class Body>
HRESULT GuardedEntry(const char* function, Body&& body) noexcept {
    return Guard(function,
                 [](const char* name, const ExceptionFailure& failure) {
                     ReportFailure(Status(failure.hr, DescribeFailure(name, failure)));
                 },
                 std::forward<Body>(body));
}

// The backend adapter behind an application's adapter pointer: an IDXCoreAdapter of our libdxcore
// (matched by its InstanceLuid), or the default adapter for nullptr.
Status FindAdapter(IUnknown* applicationAdapter, backend::Adapter** adapter) {
    *adapter = nullptr;
    if (!applicationAdapter) return backend::DefaultAdapter(adapter);
    IDXCoreAdapter* dxcore = nullptr;
    if (FAILED(applicationAdapter->QueryInterface(__uuidof(IDXCoreAdapter), reinterpret_cast<void**>(&dxcore)))) {
        return Error(E_INVALIDARG,
                     "D3D12CreateDevice: pAdapter is neither null nor an IDXCoreAdapter: FreeDML has no DXGI; list "
                     "adapters with DXCoreCreateAdapterFactory.");
    }
    LUID luid{};
    HRESULT hr = dxcore->GetProperty(DXCoreAdapterProperty::InstanceLuid, sizeof(luid), &luid);
    dxcore->Release();
    if (FAILED(hr)) return Error(E_INVALIDARG, "D3D12CreateDevice: the IDXCoreAdapter has no InstanceLuid (0x%08x).",
                                 static_cast<unsigned>(hr));
    *adapter = backend::FindAdapterByLuid(luid);
    if (!*adapter) {
        return Error(E_INVALIDARG,
                     "D3D12CreateDevice: the IDXCoreAdapter (LUID %08x:%08x) is not a FreeDML adapter.",
                     static_cast<unsigned>(luid.HighPart), static_cast<unsigned>(luid.LowPart));
    }
    return {};
}

}  // namespace
}  // namespace freedml::d3d12

using namespace freedml;
using namespace freedml::d3d12;

extern "C" {

FREEDML_EXPORT HRESULT WINAPI D3D12CreateDevice(IUnknown* adapter, D3D_FEATURE_LEVEL minimumFeatureLevel, REFIID riid,
                                                void** device) {
    FREEDML_TRACE_D3D12("D3D12CreateDevice", nullptr, adapter, minimumFeatureLevel, riid, device);
    return GuardedEntry("D3D12CreateDevice", [&]() -> HRESULT {
        if (device) *device = nullptr;
        if (!AcceptedFeatureLevel(minimumFeatureLevel)) {
            return ReportFailure(Error(DXGI_ERROR_UNSUPPORTED,
                                       "D3D12CreateDevice: MinimumFeatureLevel (0x%x) is not supported: FreeDML accepts "
                                       "D3D_FEATURE_LEVEL_1_0_CORE and 11_0 to 12_1.",
                                       static_cast<unsigned>(Raw(minimumFeatureLevel))));
        }
        backend::Adapter* found = nullptr;
        Status status = FindAdapter(adapter, &found);
        if (!status.ok()) return ReportFailure(status);
        if (ValidateOnly(device)) return kValidatedOnly;
        Device* created = nullptr;
        status = Device::Create(found, &created);
        if (!status.ok()) return ReportFailure(status);
        return HandOut(created, riid, device);
    });
}

FREEDML_EXPORT HRESULT WINAPI D3D12GetDebugInterface(REFIID riid, void** debug) {
    FREEDML_TRACE_D3D12("D3D12GetDebugInterface", nullptr, riid, debug);
    return GuardedEntry("D3D12GetDebugInterface", [&]() -> HRESULT {
        if (ValidateOnly(debug)) return kValidatedOnly;  // "is the debug layer available?"
        *debug = nullptr;
        auto* object = new (std::nothrow) Debug();
        if (!object) return E_OUTOFMEMORY;
        return HandOut(object, riid, debug);
    });
}

FREEDML_EXPORT HRESULT WINAPI D3D12EnableExperimentalFeatures(UINT, const IID*, void*, UINT*) {
    return ReportUnsupported(nullptr, "D3D12EnableExperimentalFeatures");
}

// Private: see d3d12/internal.h (kReportWithoutDeviceSymbol).
FREEDML_EXPORT void FreeDMLInternalReportWithoutDevice(int severity, const char* source, const char* text, int echo) {
    try {
        ReportToProcess(static_cast<D3D12_MESSAGE_SEVERITY>(severity), source ? source : "FreeDML", text ? text : "",
                        echo != 0 || DebugEnvironment());
    } catch (...) {  // no memory for the message: it is lost, nothing more (common/api_guard.h)
    }
}

FREEDML_EXPORT FREEDML_MESSAGE_CALLBACK FreeDMLSetMessageCallback(FREEDML_MESSAGE_CALLBACK callback, void* context) {
    return SetProcessCallback(callback, context);
}

}  // extern "C"
