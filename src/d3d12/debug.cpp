#include "d3d12/debug.h"

namespace freedml::d3d12 {

HRESULT InfoQueue::AddMessage(D3D12_MESSAGE_CATEGORY category, D3D12_MESSAGE_SEVERITY severity, D3D12_MESSAGE_ID id,
                              LPCSTR description) {
    if (!description) return E_INVALIDARG;
    log_->Add(category, severity, id, description);
    return S_OK;
}

HRESULT InfoQueue::AddApplicationMessage(D3D12_MESSAGE_SEVERITY severity, LPCSTR description) {
    if (!description) return E_INVALIDARG;
    log_->Add(D3D12_MESSAGE_CATEGORY_APPLICATION_DEFINED, severity, D3D12_MESSAGE_ID_UNKNOWN, description);
    return S_OK;
}

}  // namespace freedml::d3d12
