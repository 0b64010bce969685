// IDXCoreAdapterFactory over the backend's adapter registry.
#pragma once

#include <cstdint>
#include <map>
#include <mutex>

#include "common/com_object.h"

namespace freedml::dxcore {

class Factory final : public ComObject<Factory, IDXCoreAdapterFactory> {
public:
    Factory() = default;

    HRESULT STDMETHODCALLTYPE CreateAdapterList(uint32_t attributeCount, const GUID* attributes, REFIID riid,
                                                void** list) override;
    HRESULT STDMETHODCALLTYPE GetAdapterByLuid(const LUID& luid, REFIID riid, void** adapter) override;
    // FreeDML's adapters are found once per process and never change, so AdapterListStale and
    // AdapterNoLongerValid are supported and never raised. AdapterBudgetChange and the content
    // protection teardown are not supported (DXGI_ERROR_INVALID_CALL, logged once).
    bool STDMETHODCALLTYPE IsNotificationTypeSupported(DXCoreNotificationType type) override;
    HRESULT STDMETHODCALLTYPE RegisterEventNotification(IUnknown* object, DXCoreNotificationType type,
                                                        PFN_DXCORE_NOTIFICATION_CALLBACK callback, void* context,
                                                        uint32_t* cookie) override;
    HRESULT STDMETHODCALLTYPE UnregisterEventNotification(uint32_t cookie) override;

private:
    std::mutex mutex_;
    std::map<uint32_t, uint32_t> registrations_;  // cookie -> notification type
    uint32_t lastCookie_ = 0;
};

// Says once per process and `what` that FreeDML does not implement it, through libd3d12's message
// machinery when it is loaded (the FreeDML callback, and standard error under FREEDML_DEBUG=1).
void ReportUnsupportedOnce(const char* what);

}  // namespace freedml::dxcore
