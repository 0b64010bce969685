// IDXCoreAdapterList: a snapshot of the adapters that have every attribute asked for.
#pragma once

#include <vector>

#include "common/com_object.h"
#include "dxcore/adapter.h"

namespace freedml::dxcore {

class AdapterList final : public ComObject<AdapterList, IDXCoreAdapterList> {
public:
    // Takes the references of `adapters`; holds one to `factory`.
    AdapterList(IDXCoreAdapterFactory* factory, std::vector<Ref<Adapter>> adapters);

    HRESULT STDMETHODCALLTYPE GetAdapter(uint32_t index, REFIID riid, void** adapter) override;
    uint32_t STDMETHODCALLTYPE GetAdapterCount() override { return static_cast<uint32_t>(adapters_.size()); }
    bool STDMETHODCALLTYPE IsStale() override { return false; }  // adapters are found once per process
    HRESULT STDMETHODCALLTYPE GetFactory(REFIID riid, void** factory) override;
    HRESULT STDMETHODCALLTYPE Sort(uint32_t preferenceCount, const DXCoreAdapterPreference* preferences) override;
    bool STDMETHODCALLTYPE IsAdapterPreferenceSupported(DXCoreAdapterPreference preference) override;

private:

    Ref<IDXCoreAdapterFactory> factory_;
    std::vector<Ref<Adapter>> adapters_;
};

}  // namespace freedml::dxcore
