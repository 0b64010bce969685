// IDXCoreAdapterFactory over the backend's adapter registry.
#pragma once

#include "common/com_object.h"

namespace freedml::dxcore {

class Factory final : public ComObject<Factory, IDXCoreAdapterFactory> {
public:
    Factory() = default;

    HRESULT STDMETHODCALLTYPE CreateAdapterList(uint32_t attributeCount, const GUID* attributes, REFIID riid,
                                                void** list) override;
    HRESULT STDMETHODCALLTYPE GetAdapterByLuid(const LUID& luid, REFIID riid, void** adapter) override;
    bool STDMETHODCALLTYPE IsNotificationTypeSupported(DXCoreNotificationType) override { return false; }
    HRESULT STDMETHODCALLTYPE RegisterEventNotification(IUnknown*, DXCoreNotificationType,
                                                        PFN_DXCORE_NOTIFICATION_CALLBACK, void*,
                                                        uint32_t* cookie) override;
    HRESULT STDMETHODCALLTYPE UnregisterEventNotification(uint32_t) override { return E_NOTIMPL; }
};

}  // namespace freedml::dxcore
