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

bool Factory::IsNotificationTypeSupported(DXCoreNotificationType type) {
    const auto value = static_cast<uint32_t>(type);  // any integer may arrive
    return value == static_cast<uint32_t>(DXCoreNotificationType::AdapterListStale) ||
           value == static_cast<uint32_t>(DXCoreNotificationType::AdapterNoLongerValid);
}

HRESULT Factory::RegisterEventNotification(IUnknown* object, DXCoreNotificationType type,
                                           PFN_DXCORE_NOTIFICATION_CALLBACK callback, void*, uint32_t* cookie) {
    return Guard("IDXCoreAdapterFactory::RegisterEventNotification", NoReport, [&]() -> HRESULT {
        // The reference page's answers: the cookie is 0 on failure; E_POINTER for a null callback
        // or cookie, E_INVALIDARG for a null object or a type that does not fit the object,
        // DXGI_ERROR_INVALID_CALL for a type the system does not support.
        if (cookie) *cookie = 0;
        if (!callback || !cookie) return E_POINTER;
        if (!object) return E_INVALIDARG;
        const auto value = static_cast<uint32_t>(type);
        if (!IsNotificationTypeSupported(type)) {
            ReportUnsupportedOnce(value == static_cast<uint32_t>(DXCoreNotificationType::AdapterBudgetChange)
                                      ? "IDXCoreAdapterFactory::RegisterEventNotification(AdapterBudgetChange)"
                                      : "IDXCoreAdapterFactory::RegisterEventNotification of this notification type");
            return DXGI_ERROR_INVALID_CALL;
        }
        // AdapterListStale is raised by adapter lists, AdapterNoLongerValid by adapters.
        void* typed = nullptr;
        const bool listType = value == static_cast<uint32_t>(DXCoreNotificationType::AdapterListStale);
        HRESULT hr = listType ? object->QueryInterface(IID_PPV_ARGS(reinterpret_cast<IDXCoreAdapterList**>(&typed)))
                              : object->QueryInterface(IID_PPV_ARGS(reinterpret_cast<IDXCoreAdapter**>(&typed)));
        if (FAILED(hr)) return E_INVALIDARG;
        static_cast<IUnknown*>(typed)->Release();
        std::lock_guard lock(mutex_);
        do {
            ++lastCookie_;
        } while (lastCookie_ == 0 || registrations_.count(lastCookie_));  // never 0, never one in use
        registrations_[lastCookie_] = value;
        *cookie = lastCookie_;
        return S_OK;
    });
}

HRESULT Factory::UnregisterEventNotification(uint32_t cookie) {
    std::lock_guard lock(mutex_);
    return registrations_.erase(cookie) ? S_OK : E_INVALIDARG;  // no callback is ever running
}

}  // namespace freedml::dxcore
