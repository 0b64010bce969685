#include "d3d12/debug.h"

#include "d3d12/enum_value.h"

namespace freedml::d3d12 {

HRESULT InfoQueue::AddMessage(D3D12_MESSAGE_CATEGORY category, D3D12_MESSAGE_SEVERITY severity, D3D12_MESSAGE_ID id,
                              LPCSTR description) {
    return Guard("ID3D12InfoQueue::AddMessage", NoReport, [&]() -> HRESULT {
        if (!description) return E_INVALIDARG;
        // Out-of-range values would be stored and compared as enums later: refuse them here.
        if (Raw(category) > D3D12_MESSAGE_CATEGORY_SHADER || Raw(severity) > D3D12_MESSAGE_SEVERITY_MESSAGE ||
            Raw(id) >= D3D12_MESSAGE_ID_D3D12_MESSAGES_END) {
            return E_INVALIDARG;
        }
        log_->Add(category, severity, id, description);
        return S_OK;
    });
}

HRESULT InfoQueue::AddApplicationMessage(D3D12_MESSAGE_SEVERITY severity, LPCSTR description) {
    return Guard("ID3D12InfoQueue::AddApplicationMessage", NoReport, [&]() -> HRESULT {
        if (!description || Raw(severity) > D3D12_MESSAGE_SEVERITY_MESSAGE) return E_INVALIDARG;
        log_->Add(D3D12_MESSAGE_CATEGORY_APPLICATION_DEFINED, severity, D3D12_MESSAGE_ID_UNKNOWN, description);
        return S_OK;
    });
}

}  // namespace freedml::d3d12
