#include "d3d12/messages.h"

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace freedml::d3d12 {

namespace {

std::atomic<bool> gDebugLayer{false};

struct ProcessCallback {
    std::mutex mutex;
    FREEDML_MESSAGE_CALLBACK function = nullptr;
    void* context = nullptr;
};
ProcessCallback& GetProcessCallback() {
    static ProcessCallback* callback = new ProcessCallback;  // never destroyed: used until exit
    return *callback;
}

const char* SeverityName(D3D12_MESSAGE_SEVERITY severity) {
    switch (severity) {
        case D3D12_MESSAGE_SEVERITY_CORRUPTION: return "CORRUPTION";
        case D3D12_MESSAGE_SEVERITY_ERROR: return "ERROR";
        case D3D12_MESSAGE_SEVERITY_WARNING: return "WARNING";
        case D3D12_MESSAGE_SEVERITY_INFO: return "INFO";
        case D3D12_MESSAGE_SEVERITY_MESSAGE: return "MESSAGE";
    }
    return "MESSAGE";
}

template <class T>
bool Contains(const std::vector<T>& list, T value) {
    return std::find(list.begin(), list.end(), value) != list.end();
}

template <class T>
void Append(std::vector<T>* list, UINT count, const T* values) {
    if (!values) return;
    for (UINT i = 0; i < count; ++i) {
        if (!Contains(*list, values[i])) list->push_back(values[i]);
    }
}

}  // namespace

bool DebugLayerRequested() { return gDebugLayer.load(); }
void SetDebugLayerRequested(bool enabled) { gDebugLayer.store(enabled); }

bool DebugEnvironment() {
    static const bool enabled = [] {
        const char* value = std::getenv("FREEDML_DEBUG");
        return value && *value && std::strcmp(value, "0") != 0;
    }();
    return enabled;
}

FREEDML_MESSAGE_CALLBACK SetProcessCallback(FREEDML_MESSAGE_CALLBACK callback, void* context) {
    ProcessCallback& process = GetProcessCallback();
    std::lock_guard lock(process.mutex);
    FREEDML_MESSAGE_CALLBACK previous = process.function;
    process.function = callback;
    process.context = context;
    return previous;
}

void ReportToProcess(D3D12_MESSAGE_SEVERITY severity, const char* source, const std::string& text, bool toStderr) {
    ProcessCallback& process = GetProcessCallback();
    FREEDML_MESSAGE_CALLBACK function;
    void* context;
    {
        std::lock_guard lock(process.mutex);
        function = process.function;
        context = process.context;
    }
    if (function) function(static_cast<FREEDML_MESSAGE_SEVERITY>(severity), source, text.c_str(), context);
    if (toStderr) std::fprintf(stderr, "FreeDML %s %s: %s\n", source, SeverityName(severity), text.c_str());
}

// ---- Filter ------------------------------------------------------------------------------------

bool MessageLog::Filter::Passes(D3D12_MESSAGE_CATEGORY category, D3D12_MESSAGE_SEVERITY severity,
                                D3D12_MESSAGE_ID id) const {
    // A non-empty allow list lets through only what it names; a deny list removes what it names.
    if (!allowCategories.empty() && !Contains(allowCategories, category)) return false;
    if (!allowSeverities.empty() && !Contains(allowSeverities, severity)) return false;
    if (!allowIds.empty() && !Contains(allowIds, id)) return false;
    return !Contains(denyCategories, category) && !Contains(denySeverities, severity) && !Contains(denyIds, id);
}

void MessageLog::Filter::Add(const D3D12_INFO_QUEUE_FILTER& filter) {
    Append(&allowCategories, filter.AllowList.NumCategories, filter.AllowList.pCategoryList);
    Append(&allowSeverities, filter.AllowList.NumSeverities, filter.AllowList.pSeverityList);
    Append(&allowIds, filter.AllowList.NumIDs, filter.AllowList.pIDList);
    Append(&denyCategories, filter.DenyList.NumCategories, filter.DenyList.pCategoryList);
    Append(&denySeverities, filter.DenyList.NumSeverities, filter.DenyList.pSeverityList);
    Append(&denyIds, filter.DenyList.NumIDs, filter.DenyList.pIDList);
}

HRESULT MessageLog::Filter::Write(D3D12_INFO_QUEUE_FILTER* filter, SIZE_T* byteLength) const {
    if (!byteLength) return E_INVALIDARG;
    SIZE_T needed = sizeof(D3D12_INFO_QUEUE_FILTER) +
                    (allowCategories.size() + denyCategories.size()) * sizeof(D3D12_MESSAGE_CATEGORY) +
                    (allowSeverities.size() + denySeverities.size()) * sizeof(D3D12_MESSAGE_SEVERITY) +
                    (allowIds.size() + denyIds.size()) * sizeof(D3D12_MESSAGE_ID);
    if (!filter) {
        *byteLength = needed;
        return S_OK;
    }
    if (*byteLength < needed) {
        *byteLength = needed;
        return E_INVALIDARG;
    }
    *byteLength = needed;
    std::memset(filter, 0, sizeof(*filter));
    auto* cursor = reinterpret_cast<unsigned char*>(filter + 1);
    auto place = [&cursor](const auto& list, UINT* count, auto** pointer) {
        *count = static_cast<UINT>(list.size());
        *pointer = nullptr;
        if (list.empty()) return;
        using Element = std::remove_reference_t<decltype(list[0])>;
        *pointer = reinterpret_cast<std::remove_const_t<Element>*>(cursor);
        std::memcpy(cursor, list.data(), list.size() * sizeof(Element));
        cursor += list.size() * sizeof(Element);
    };
    place(allowCategories, &filter->AllowList.NumCategories, &filter->AllowList.pCategoryList);
    place(allowSeverities, &filter->AllowList.NumSeverities, &filter->AllowList.pSeverityList);
    place(allowIds, &filter->AllowList.NumIDs, &filter->AllowList.pIDList);
    place(denyCategories, &filter->DenyList.NumCategories, &filter->DenyList.pCategoryList);
    place(denySeverities, &filter->DenyList.NumSeverities, &filter->DenyList.pSeverityList);
    place(denyIds, &filter->DenyList.NumIDs, &filter->DenyList.pIDList);
    return S_OK;
}

// ---- Log ---------------------------------------------------------------------------------------

void MessageLog::Add(D3D12_MESSAGE_CATEGORY category, D3D12_MESSAGE_SEVERITY severity, D3D12_MESSAGE_ID id,
                     const std::string& text, const char* source, bool echo) {
    std::vector<Callback> toCall;
    bool mute;
    {
        std::lock_guard lock(mutex_);
        bool passes = storage_.back().Passes(category, severity, id);
        if (passes) {
            ++allowed_;
            if (limit_ == 0) {
                ++discarded_;
            } else {
                if (messages_.size() >= limit_) {
                    messages_.pop_front();
                    ++discarded_;
                }
                messages_.push_back(Message{category, severity, id, text});
            }
        } else {
            ++denied_;
        }
        for (const Callback& callback : callbacks_) {
            if (passes || (callback.flags & D3D12_MESSAGE_CALLBACK_IGNORE_FILTERS)) toCall.push_back(callback);
        }
        mute = mute_;
    }
    // Callbacks run outside the lock: they may call back into the info queue.
    for (const Callback& callback : toCall) callback.function(category, severity, id, text.c_str(), callback.context);
    ReportToProcess(severity, source, text, (debug_ || echo || DebugEnvironment()) && !mute);
}

HRESULT MessageLog::SetMessageCountLimit(UINT64 limit) {
    std::lock_guard lock(mutex_);
    limit_ = limit;
    while (messages_.size() > limit_) {
        messages_.pop_front();
        ++discarded_;
    }
    return S_OK;
}

UINT64 MessageLog::MessageCountLimit() {
    std::lock_guard lock(mutex_);
    return limit_;
}

void MessageLog::ClearStoredMessages() {
    std::lock_guard lock(mutex_);
    messages_.clear();
}

const MessageLog::Message* MessageLog::AllowedMessageLocked(UINT64 index) const {
    const Filter& filter = retrieval_.back();
    for (const Message& message : messages_) {
        if (!filter.Passes(message.category, message.severity, message.id)) continue;
        if (index == 0) return &message;
        --index;
    }
    return nullptr;
}

HRESULT MessageLog::GetMessage(UINT64 index, D3D12_MESSAGE* message, SIZE_T* byteLength) {
    if (!byteLength) return E_INVALIDARG;
    std::lock_guard lock(mutex_);
    const Message* stored = AllowedMessageLocked(index);
    if (!stored) return E_INVALIDARG;
    SIZE_T needed = sizeof(D3D12_MESSAGE) + stored->text.size() + 1;
    if (!message) {
        *byteLength = needed;
        return S_OK;
    }
    if (*byteLength < needed) {
        *byteLength = needed;
        return E_INVALIDARG;
    }
    // The description follows the struct in the caller's block.
    auto* description = reinterpret_cast<char*>(message + 1);
    std::memcpy(description, stored->text.c_str(), stored->text.size() + 1);
    message->Category = stored->category;
    message->Severity = stored->severity;
    message->ID = stored->id;
    message->pDescription = description;
    message->DescriptionByteLength = stored->text.size() + 1;
    *byteLength = needed;
    return S_OK;
}

UINT64 MessageLog::NumAllowedByStorageFilter() {
    std::lock_guard lock(mutex_);
    return allowed_;
}
UINT64 MessageLog::NumDeniedByStorageFilter() {
    std::lock_guard lock(mutex_);
    return denied_;
}
UINT64 MessageLog::NumStored() {
    std::lock_guard lock(mutex_);
    return messages_.size();
}
UINT64 MessageLog::NumStoredAllowedByRetrievalFilter() {
    std::lock_guard lock(mutex_);
    UINT64 count = 0;
    for (const Message& message : messages_) {
        if (retrieval_.back().Passes(message.category, message.severity, message.id)) ++count;
    }
    return count;
}
UINT64 MessageLog::NumDiscardedByCountLimit() {
    std::lock_guard lock(mutex_);
    return discarded_;
}

HRESULT MessageLog::AddFilterEntries(Stack stack, const D3D12_INFO_QUEUE_FILTER* filter) {
    if (!filter) return E_INVALIDARG;
    std::lock_guard lock(mutex_);
    StackOf(stack).back().Add(*filter);
    return S_OK;
}

HRESULT MessageLog::GetFilter(Stack stack, D3D12_INFO_QUEUE_FILTER* filter, SIZE_T* byteLength) {
    std::lock_guard lock(mutex_);
    return StackOf(stack).back().Write(filter, byteLength);
}

void MessageLog::ClearFilter(Stack stack) {
    std::lock_guard lock(mutex_);
    StackOf(stack).back() = Filter{};
}

HRESULT MessageLog::PushFilter(Stack stack, const D3D12_INFO_QUEUE_FILTER* filter) {
    std::lock_guard lock(mutex_);
    Filter pushed;
    if (filter) pushed.Add(*filter);
    StackOf(stack).push_back(std::move(pushed));
    return S_OK;
}

HRESULT MessageLog::PushCopyOfFilter(Stack stack) {
    std::lock_guard lock(mutex_);
    auto& filters = StackOf(stack);
    filters.push_back(filters.back());
    return S_OK;
}

void MessageLog::PopFilter(Stack stack) {
    std::lock_guard lock(mutex_);
    auto& filters = StackOf(stack);
    if (filters.size() > 1) {
        filters.pop_back();
    } else {
        filters.back() = Filter{};  // the bottom filter is cleared, never removed
    }
}

UINT MessageLog::FilterStackSize(Stack stack) {
    std::lock_guard lock(mutex_);
    return static_cast<UINT>(StackOf(stack).size());
}

HRESULT MessageLog::SetBreakOn(int kind, int value, bool enable) {
    std::lock_guard lock(mutex_);
    auto entry = std::make_pair(kind, value);
    auto it = std::find(breakOn_.begin(), breakOn_.end(), entry);
    if (enable && it == breakOn_.end()) breakOn_.push_back(entry);
    if (!enable && it != breakOn_.end()) breakOn_.erase(it);
    return S_OK;
}

bool MessageLog::GetBreakOn(int kind, int value) {
    std::lock_guard lock(mutex_);
    return Contains(breakOn_, std::make_pair(kind, value));
}

void MessageLog::SetMute(bool mute) {
    std::lock_guard lock(mutex_);
    mute_ = mute;
}

bool MessageLog::Mute() {
    std::lock_guard lock(mutex_);
    return mute_;
}

HRESULT MessageLog::RegisterCallback(D3D12MessageFunc function, D3D12_MESSAGE_CALLBACK_FLAGS flags, void* context,
                                     DWORD* cookie) {
    if (!function || !cookie) return E_INVALIDARG;
    std::lock_guard lock(mutex_);
    *cookie = nextCookie_++;
    callbacks_.push_back(Callback{function, flags, context, *cookie});
    return S_OK;
}

HRESULT MessageLog::UnregisterCallback(DWORD cookie) {
    std::lock_guard lock(mutex_);
    for (auto it = callbacks_.begin(); it != callbacks_.end(); ++it) {
        if (it->cookie == cookie) {
            callbacks_.erase(it);
            return S_OK;
        }
    }
    return E_INVALIDARG;
}

}  // namespace freedml::d3d12
