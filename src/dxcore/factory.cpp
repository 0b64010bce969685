#include "dxcore/factory.h"

#include <new>
#include <vector>

#include "backend/backend.h"
#include "common/api_guard.h"
#include "dxcore/adapter.h"
#include "dxcore/adapter_list.h"

namespace freedml::dxcore {

HRESULT Factory::CreateAdapterList(uint32_t attributeCount, const GUID* attributes, REFIID riid, void** list) {
    return Guard("IDXCoreAdapterFactory::CreateAdapterList", NoReport, [&]() -> HRESULT {
        if (!list) return E_POINTER;
        *list = nullptr;
        if (attributeCount == 0 || !attributes) return E_INVALIDARG;  // DXCore requires at least one attribute
        std::vector<Ref<Adapter>> chosen;  // released if anything below fails
        for (backend::Adapter* adapter : backend::EnumerateAdapters()) {
            bool all = true;
            for (uint32_t i = 0; i < attributeCount && all; ++i) all = AdapterHasAttribute(adapter->Info(), attributes[i]);
            if (!all) continue;
            Ref<Adapter> object(new (std::nothrow) Adapter(this, adapter));
            if (!object) return E_OUTOFMEMORY;
            chosen.push_back(std::move(object));
        }
        auto* created = new (std::nothrow) AdapterList(this, std::move(chosen));
        if (!created) return E_OUTOFMEMORY;
        return HandOut(created, riid, list);
    });
}

HRESULT Factory::GetAdapterByLuid(const LUID& luid, REFIID riid, void** adapter) {
    return Guard("IDXCoreAdapterFactory::GetAdapterByLuid", NoReport, [&]() -> HRESULT {
        if (!adapter) return E_POINTER;
        *adapter = nullptr;
        backend::Adapter* found = backend::FindAdapterByLuid(luid);
        if (!found) return E_INVALIDARG;
        auto* created = new (std::nothrow) Adapter(this, found);
        if (!created) return E_OUTOFMEMORY;
        HRESULT hr = created->QueryInterface(riid, adapter);
        created->Release();
        return hr;
    });
}

HRESULT Factory::RegisterEventNotification(IUnknown*, DXCoreNotificationType, PFN_DXCORE_NOTIFICATION_CALLBACK, void*,
                                           uint32_t* cookie) {
    if (cookie) *cookie = 0;
    return E_NOTIMPL;  // adapters never change while a FreeDML process runs
}

}  // namespace freedml::dxcore
