// The device's message log: what ID3D12InfoQueue stores and filters, plus the two other places a
// message goes (the process-wide FreeDML callback, and standard error when debugging).
#pragma once

#include <deque>
#include <mutex>
#include <string>
#include <vector>

#include "common/platform.h"
#include "freedml/freedml.h"

namespace freedml::d3d12 {

// ---- Process-wide ------------------------------------------------------------------------------
// True after ID3D12Debug::EnableDebugLayer (until ID3D12Debug4::DisableDebugLayer); devices
// created afterwards are debug devices.
bool DebugLayerRequested();
void SetDebugLayerRequested(bool enabled);
// FREEDML_DEBUG=1 in the environment.
bool DebugEnvironment();
// Sends a message to the FreeDML callback, and to standard error when `toStderr`.
void ReportToProcess(D3D12_MESSAGE_SEVERITY severity, const char* source, const std::string& text, bool toStderr);
FREEDML_MESSAGE_CALLBACK SetProcessCallback(FREEDML_MESSAGE_CALLBACK callback, void* context);

// ---- One device's log --------------------------------------------------------------------------
class MessageLog {
public:
    struct Filter {
        std::vector<D3D12_MESSAGE_CATEGORY> allowCategories, denyCategories;
        std::vector<D3D12_MESSAGE_SEVERITY> allowSeverities, denySeverities;
        std::vector<D3D12_MESSAGE_ID> allowIds, denyIds;
        bool Passes(D3D12_MESSAGE_CATEGORY category, D3D12_MESSAGE_SEVERITY severity, D3D12_MESSAGE_ID id) const;
        void Add(const D3D12_INFO_QUEUE_FILTER& filter);
        // The filter as one block (the struct followed by its arrays), with GetStorageFilter's
        // size protocol.
        HRESULT Write(D3D12_INFO_QUEUE_FILTER* filter, SIZE_T* byteLength) const;
    };
    enum class Stack { Storage, Retrieval };

    explicit MessageLog(bool debug) : debug_(debug) {}

    bool Debug() const { return debug_; }
    // Stores (through the storage filter), calls the registered callbacks and the FreeDML
    // callback, and prints to standard error when debugging and not muted.
    // `source` labels it for the FreeDML callback and standard error; `echo` prints it to standard
    // error even when this log is not debugging.
    void Add(D3D12_MESSAGE_CATEGORY category, D3D12_MESSAGE_SEVERITY severity, D3D12_MESSAGE_ID id,
             const std::string& text, const char* source = "D3D12", bool echo = false);

    // ID3D12InfoQueue's operations.
    HRESULT SetMessageCountLimit(UINT64 limit);
    UINT64 MessageCountLimit();
    void ClearStoredMessages();
    HRESULT GetMessage(UINT64 index, D3D12_MESSAGE* message, SIZE_T* byteLength);
    UINT64 NumAllowedByStorageFilter();
    UINT64 NumDeniedByStorageFilter();
    UINT64 NumStored();
    UINT64 NumStoredAllowedByRetrievalFilter();
    UINT64 NumDiscardedByCountLimit();
    HRESULT AddFilterEntries(Stack stack, const D3D12_INFO_QUEUE_FILTER* filter);
    HRESULT GetFilter(Stack stack, D3D12_INFO_QUEUE_FILTER* filter, SIZE_T* byteLength);
    void ClearFilter(Stack stack);
    HRESULT PushFilter(Stack stack, const D3D12_INFO_QUEUE_FILTER* filter);  // nullptr: empty
    HRESULT PushCopyOfFilter(Stack stack);
    void PopFilter(Stack stack);
    UINT FilterStackSize(Stack stack);
    HRESULT SetBreakOn(int kind, int value, bool enable);  // kind: 0 category, 1 severity, 2 id
    bool GetBreakOn(int kind, int value);
    void SetMute(bool mute);
    bool Mute();
    HRESULT RegisterCallback(D3D12MessageFunc function, D3D12_MESSAGE_CALLBACK_FLAGS flags, void* context,
                             DWORD* cookie);
    HRESULT UnregisterCallback(DWORD cookie);

private:
    struct Message {
        D3D12_MESSAGE_CATEGORY category;
        D3D12_MESSAGE_SEVERITY severity;
        D3D12_MESSAGE_ID id;
        std::string text;
    };
    struct Callback {
        D3D12MessageFunc function;
        D3D12_MESSAGE_CALLBACK_FLAGS flags;
        void* context;
        DWORD cookie;
    };
    std::vector<Filter>& StackOf(Stack stack) { return stack == Stack::Storage ? storage_ : retrieval_; }
    const Message* AllowedMessageLocked(UINT64 index) const;

    const bool debug_;
    std::mutex mutex_;
    std::deque<Message> messages_;
    UINT64 limit_ = D3D12_INFO_QUEUE_DEFAULT_MESSAGE_COUNT_LIMIT;
    UINT64 allowed_ = 0, denied_ = 0, discarded_ = 0;
    // Each stack always holds at least one filter (an empty one at the bottom).
    std::vector<Filter> storage_{Filter{}};
    std::vector<Filter> retrieval_{Filter{}};
    std::vector<std::pair<int, int>> breakOn_;
    bool mute_ = false;
    std::vector<Callback> callbacks_;
    DWORD nextCookie_ = 1;
};

}  // namespace freedml::d3d12
