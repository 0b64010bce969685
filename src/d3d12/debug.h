// ID3D12Debug (what D3D12GetDebugInterface returns) and ID3D12InfoQueue (what a device answers
// for IID_ID3D12InfoQueue). Unlike Windows, a FreeDML device has an info queue whether or not
// the debug layer is on: its messages are useful either way.
#pragma once

#include "common/api_guard.h"
#include "common/com_object.h"
#include "d3d12/messages.h"

namespace freedml::d3d12 {

// The process-wide debug interface. EnableDebugLayer affects devices created afterwards.
class Debug final : public ComObject<Debug, ID3D12Debug6, ID3D12Debug5, ID3D12Debug4, ID3D12Debug3, ID3D12Debug> {
public:
    Debug() = default;
    void STDMETHODCALLTYPE EnableDebugLayer() override {
        FREEDML_TRACE_D3D12("ID3D12Debug::EnableDebugLayer", nullptr);
        SetDebugLayerRequested(true);
    }
    // GPU-based validation checks shaders; FreeDML runs none, so these are accepted and ignored.
    void STDMETHODCALLTYPE SetEnableGPUBasedValidation(BOOL) override {}
    void STDMETHODCALLTYPE SetEnableSynchronizedCommandQueueValidation(BOOL) override {}
    void STDMETHODCALLTYPE SetGPUBasedValidationFlags(D3D12_GPU_BASED_VALIDATION_FLAGS) override {}
    void STDMETHODCALLTYPE DisableDebugLayer() override {
        FREEDML_TRACE_D3D12("ID3D12Debug4::DisableDebugLayer", nullptr);
        SetDebugLayerRequested(false);
    }
    void STDMETHODCALLTYPE SetEnableAutoName(BOOL) override {}
    void STDMETHODCALLTYPE SetForceLegacyBarrierValidation(BOOL) override {}
};

// A tear-off of the device: it shares the device's reference count and identity, and reads and
// writes the device's MessageLog.
// Its methods run through Guard with no report: a failure to store a message cannot be reported as
// a message.
class InfoQueue final : public ID3D12InfoQueue1 {
public:
    InfoQueue(IUnknown* device, MessageLog* log) : device_(device), log_(log) {}
    InfoQueue(const InfoQueue&) = delete;
    InfoQueue& operator=(const InfoQueue&) = delete;
    virtual ~InfoQueue() = default;

    HRESULT STDMETHODCALLTYPE QueryInterface(REFIID riid, void** object) override {
        return device_->QueryInterface(riid, object);
    }
    ULONG STDMETHODCALLTYPE AddRef() override { return device_->AddRef(); }
    ULONG STDMETHODCALLTYPE Release() override { return device_->Release(); }

    HRESULT STDMETHODCALLTYPE SetMessageCountLimit(UINT64 limit) override {
        return Guard("ID3D12InfoQueue::SetMessageCountLimit", NoReport,
                     [&] { return log_->SetMessageCountLimit(limit); });
    }
    void STDMETHODCALLTYPE ClearStoredMessages() override { log_->ClearStoredMessages(); }
    HRESULT STDMETHODCALLTYPE GetMessage(UINT64 index, D3D12_MESSAGE* message, SIZE_T* byteLength) override {
        return Guard("ID3D12InfoQueue::GetMessage", NoReport,
                     [&] { return log_->GetMessage(index, message, byteLength); });
    }
    UINT64 STDMETHODCALLTYPE GetNumMessagesAllowedByStorageFilter() override { return log_->NumAllowedByStorageFilter(); }
    UINT64 STDMETHODCALLTYPE GetNumMessagesDeniedByStorageFilter() override { return log_->NumDeniedByStorageFilter(); }
    UINT64 STDMETHODCALLTYPE GetNumStoredMessages() override { return log_->NumStored(); }
    UINT64 STDMETHODCALLTYPE GetNumStoredMessagesAllowedByRetrievalFilter() override {
        return log_->NumStoredAllowedByRetrievalFilter();
    }
    UINT64 STDMETHODCALLTYPE GetNumMessagesDiscardedByMessageCountLimit() override {
        return log_->NumDiscardedByCountLimit();
    }
    UINT64 STDMETHODCALLTYPE GetMessageCountLimit() override { return log_->MessageCountLimit(); }

    HRESULT STDMETHODCALLTYPE AddStorageFilterEntries(D3D12_INFO_QUEUE_FILTER* filter) override {
        return Guard("ID3D12InfoQueue::AddStorageFilterEntries", NoReport,
                     [&] { return log_->AddFilterEntries(MessageLog::Stack::Storage, filter); });
    }
    HRESULT STDMETHODCALLTYPE GetStorageFilter(D3D12_INFO_QUEUE_FILTER* filter, SIZE_T* byteLength) override {
        return Guard("ID3D12InfoQueue::GetStorageFilter", NoReport,
                     [&] { return log_->GetFilter(MessageLog::Stack::Storage, filter, byteLength); });
    }
    void STDMETHODCALLTYPE ClearStorageFilter() override { log_->ClearFilter(MessageLog::Stack::Storage); }
    HRESULT STDMETHODCALLTYPE PushEmptyStorageFilter() override {
        return Guard("ID3D12InfoQueue::PushEmptyStorageFilter", NoReport,
                     [&] { return log_->PushFilter(MessageLog::Stack::Storage, nullptr); });
    }
    HRESULT STDMETHODCALLTYPE PushCopyOfStorageFilter() override {
        return Guard("ID3D12InfoQueue::PushCopyOfStorageFilter", NoReport,
                     [&] { return log_->PushCopyOfFilter(MessageLog::Stack::Storage); });
    }
    HRESULT STDMETHODCALLTYPE PushStorageFilter(D3D12_INFO_QUEUE_FILTER* filter) override {
        if (!filter) return E_INVALIDARG;
        return Guard("ID3D12InfoQueue::PushStorageFilter", NoReport,
                     [&] { return log_->PushFilter(MessageLog::Stack::Storage, filter); });
    }
    void STDMETHODCALLTYPE PopStorageFilter() override { log_->PopFilter(MessageLog::Stack::Storage); }
    UINT STDMETHODCALLTYPE GetStorageFilterStackSize() override {
        return log_->FilterStackSize(MessageLog::Stack::Storage);
    }

    HRESULT STDMETHODCALLTYPE AddRetrievalFilterEntries(D3D12_INFO_QUEUE_FILTER* filter) override {
        return Guard("ID3D12InfoQueue::AddRetrievalFilterEntries", NoReport,
                     [&] { return log_->AddFilterEntries(MessageLog::Stack::Retrieval, filter); });
    }
    HRESULT STDMETHODCALLTYPE GetRetrievalFilter(D3D12_INFO_QUEUE_FILTER* filter, SIZE_T* byteLength) override {
        return Guard("ID3D12InfoQueue::GetRetrievalFilter", NoReport,
                     [&] { return log_->GetFilter(MessageLog::Stack::Retrieval, filter, byteLength); });
    }
    void STDMETHODCALLTYPE ClearRetrievalFilter() override { log_->ClearFilter(MessageLog::Stack::Retrieval); }
    HRESULT STDMETHODCALLTYPE PushEmptyRetrievalFilter() override {
        return Guard("ID3D12InfoQueue::PushEmptyRetrievalFilter", NoReport,
                     [&] { return log_->PushFilter(MessageLog::Stack::Retrieval, nullptr); });
    }
    HRESULT STDMETHODCALLTYPE PushCopyOfRetrievalFilter() override {
        return Guard("ID3D12InfoQueue::PushCopyOfRetrievalFilter", NoReport,
                     [&] { return log_->PushCopyOfFilter(MessageLog::Stack::Retrieval); });
    }
    HRESULT STDMETHODCALLTYPE PushRetrievalFilter(D3D12_INFO_QUEUE_FILTER* filter) override {
        if (!filter) return E_INVALIDARG;
        return Guard("ID3D12InfoQueue::PushRetrievalFilter", NoReport,
                     [&] { return log_->PushFilter(MessageLog::Stack::Retrieval, filter); });
    }
    void STDMETHODCALLTYPE PopRetrievalFilter() override { log_->PopFilter(MessageLog::Stack::Retrieval); }
    UINT STDMETHODCALLTYPE GetRetrievalFilterStackSize() override {
        return log_->FilterStackSize(MessageLog::Stack::Retrieval);
    }

    HRESULT STDMETHODCALLTYPE AddMessage(D3D12_MESSAGE_CATEGORY category, D3D12_MESSAGE_SEVERITY severity,
                                         D3D12_MESSAGE_ID id, LPCSTR description) override;
    HRESULT STDMETHODCALLTYPE AddApplicationMessage(D3D12_MESSAGE_SEVERITY severity, LPCSTR description) override;
    HRESULT STDMETHODCALLTYPE SetBreakOnCategory(D3D12_MESSAGE_CATEGORY category, BOOL enable) override {
        return Guard("ID3D12InfoQueue::SetBreakOnCategory", NoReport,
                     [&] { return log_->SetBreakOn(0, category, enable); });
    }
    HRESULT STDMETHODCALLTYPE SetBreakOnSeverity(D3D12_MESSAGE_SEVERITY severity, BOOL enable) override {
        return Guard("ID3D12InfoQueue::SetBreakOnSeverity", NoReport,
                     [&] { return log_->SetBreakOn(1, severity, enable); });
    }
    HRESULT STDMETHODCALLTYPE SetBreakOnID(D3D12_MESSAGE_ID id, BOOL enable) override {
        return Guard("ID3D12InfoQueue::SetBreakOnID", NoReport, [&] { return log_->SetBreakOn(2, id, enable); });
    }
    BOOL STDMETHODCALLTYPE GetBreakOnCategory(D3D12_MESSAGE_CATEGORY category) override {
        return log_->GetBreakOn(0, category);
    }
    BOOL STDMETHODCALLTYPE GetBreakOnSeverity(D3D12_MESSAGE_SEVERITY severity) override {
        return log_->GetBreakOn(1, severity);
    }
    BOOL STDMETHODCALLTYPE GetBreakOnID(D3D12_MESSAGE_ID id) override { return log_->GetBreakOn(2, id); }
    void STDMETHODCALLTYPE SetMuteDebugOutput(BOOL mute) override { log_->SetMute(mute); }
    BOOL STDMETHODCALLTYPE GetMuteDebugOutput() override { return log_->Mute(); }

    HRESULT STDMETHODCALLTYPE RegisterMessageCallback(D3D12MessageFunc function, D3D12_MESSAGE_CALLBACK_FLAGS flags,
                                                      void* context, DWORD* cookie) override {
        return Guard("ID3D12InfoQueue::RegisterMessageCallback", NoReport,
                     [&] { return log_->RegisterCallback(function, flags, context, cookie); });
    }
    HRESULT STDMETHODCALLTYPE UnregisterMessageCallback(DWORD cookie) override {
        return Guard("ID3D12InfoQueue::UnregisterMessageCallback", NoReport,
                     [&] { return log_->UnregisterCallback(cookie); });
    }

private:
    IUnknown* device_;  // borrowed: the device owns this object
    MessageLog* log_;
};

}  // namespace freedml::d3d12
