// IDXCoreAdapter over one backend adapter.
#pragma once

#include "backend/backend.h"
#include "common/com_object.h"

namespace freedml::dxcore {

// The attributes DirectML programs filter on, spelled out: the header declares them without
// defining them, and GENERIC_ML is newer than Debian's header.
constexpr GUID kAttributeCoreCompute = {0x248e2800, 0xa793, 0x4724, {0xab, 0xaa, 0x23, 0xa6, 0xde, 0x1b, 0xe0, 0x90}};
constexpr GUID kAttributeGenericMl = {0xb71b0d41, 0x1088, 0x422f, {0xa2, 0x7c, 0x02, 0x50, 0xb7, 0xd3, 0xa9, 0x88}};
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
    bool STDMETHODCALLTYPE IsQueryStateSupported(DXCoreAdapterState) override { return false; }
    HRESULT STDMETHODCALLTYPE QueryState(DXCoreAdapterState, size_t, const void*, size_t, void*) override {
        return DXGI_ERROR_UNSUPPORTED;
    }
    bool STDMETHODCALLTYPE IsSetStateSupported(DXCoreAdapterState) override { return false; }
    HRESULT STDMETHODCALLTYPE SetState(DXCoreAdapterState, size_t, const void*, size_t, const void*) override {
        return DXGI_ERROR_UNSUPPORTED;
    }
    HRESULT STDMETHODCALLTYPE GetFactory(REFIID riid, void** factory) override;

    backend::Adapter* Backend() const { return adapter_; }

private:
    ~Adapter() override;

    IDXCoreAdapterFactory* factory_;
    backend::Adapter* adapter_;
};

}  // namespace freedml::dxcore
