// IDXCoreAdapter over one backend adapter.
#pragma once

#include "backend/backend.h"
#include "common/com_object.h"

namespace freedml::dxcore {

// The attributes DirectML programs filter on, spelled out: the header declares them without
// defining them, and GENERIC_ML and the hardware-type attributes are newer than Debian's header.
constexpr GUID kAttributeCoreCompute = {0x248e2800, 0xa793, 0x4724, {0xab, 0xaa, 0x23, 0xa6, 0xde, 0x1b, 0xe0, 0x90}};
constexpr GUID kAttributeGenericMl = {0xb71b0d41, 0x1088, 0x422f, {0xa2, 0x7c, 0x02, 0x50, 0xb7, 0xd3, 0xa9, 0x88}};
constexpr GUID kAttributeD3D12Graphics = {0x0c9ece4d, 0x2f6e, 0x4f01, {0x8c, 0x96, 0xe8, 0x9e, 0x33, 0x1b, 0x47, 0xb1}};
constexpr GUID kHardwareTypeGpu = {0xb69eb219, 0x3ded, 0x4464, {0x97, 0x9f, 0xa0, 0x0b, 0xd4, 0x68, 0x70, 0x06}};
// Every FreeDML adapter runs D3D12 compute and DirectML (CORE_COMPUTE, GENERIC_ML). A hardware
// adapter (a CUDA GPU, or the CPU under FREEDML_CPU_AS_HARDWARE) is also a GPU (the GPU hardware
// type) with the D3D12_GRAPHICS attribute: DirectML's clients take an adapter without it for an
// NPU (ONNX Runtime's default device filter then skips it). No FreeDML adapter draws: the graphics
// methods stay unimplemented (they log once and fail, docs/USER-GUIDE.md lists them).
bool AdapterHasAttribute(const backend::AdapterInfo& info, REFGUID attribute);

class Adapter final : public ComObject<Adapter, IDXCoreAdapter> {
public:
    // Holds a reference to `factory` (GetFactory returns it).
    Adapter(IDXCoreAdapterFactory* factory, backend::Adapter* adapter);

    bool STDMETHODCALLTYPE IsValid() override { return true; }  // adapters never go away
    bool STDMETHODCALLTYPE IsAttributeSupported(REFGUID attribute) override;
    bool STDMETHODCALLTYPE IsPropertySupported(DXCoreAdapterProperty property) override;
    HRESULT STDMETHODCALLTYPE GetProperty(DXCoreAdapterProperty property, size_t bufferSize, void* data) override;
    HRESULT STDMETHODCALLTYPE GetPropertySize(DXCoreAdapterProperty property, size_t* bufferSize) override;
    // AdapterMemoryBudget (for the local and non-local segment groups of node 0) and
    // IsDriverUpdateInProgress (always false: FreeDML's "driver" is the process's own libraries).
    bool STDMETHODCALLTYPE IsQueryStateSupported(DXCoreAdapterState state) override;
    HRESULT STDMETHODCALLTYPE QueryState(DXCoreAdapterState state, size_t inputStateDetailsSize,
                                         const void* inputStateDetails, size_t outputBufferSize,
                                         void* outputBuffer) override;
    bool STDMETHODCALLTYPE IsSetStateSupported(DXCoreAdapterState) override { return false; }
    HRESULT STDMETHODCALLTYPE SetState(DXCoreAdapterState, size_t, const void*, size_t, const void*) override {
        return DXGI_ERROR_UNSUPPORTED;
    }
    HRESULT STDMETHODCALLTYPE GetFactory(REFIID riid, void** factory) override;

    backend::Adapter* Backend() const { return adapter_; }

private:

    Ref<IDXCoreAdapterFactory> factory_;
    backend::Adapter* adapter_;
};

}  // namespace freedml::dxcore
