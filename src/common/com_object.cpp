#include "common/com_object.h"

#include <cwchar>

#include "common/api_guard.h"

namespace freedml {

namespace {
// The well-known debug-name GUIDs of d3dcommon.h, spelled out so this file needs no GUID library.
constexpr GUID kDebugObjectName = {0x429b8c22, 0x9188, 0x4b0c, {0x87, 0x42, 0xac, 0xb0, 0xbf, 0x85, 0xc2, 0x00}};
constexpr GUID kDebugObjectNameW = {0x4cca5fd8, 0x921f, 0x42c8, {0x85, 0x66, 0x70, 0xca, 0xf2, 0xa9, 0xb7, 0x41}};
}  // namespace

PrivateDataStore::~PrivateDataStore() {
    for (auto& [guid, entry] : entries_) {
        if (entry.object) entry.object->Release();
    }
}

void PrivateDataStore::EraseLocked(REFGUID guid) {
    for (auto it = entries_.begin(); it != entries_.end(); ++it) {
        if (SameGuid(it->first, guid)) {
            if (it->second.object) it->second.object->Release();
            entries_.erase(it);
            return;
        }
    }
}

HRESULT PrivateDataStore::Get(REFGUID guid, UINT* dataSize, void* data) const {
    if (!dataSize) return E_INVALIDARG;
    std::lock_guard lock(mutex_);
    for (const auto& [key, entry] : entries_) {
        if (!SameGuid(key, guid)) continue;
        UINT size = entry.object ? static_cast<UINT>(sizeof(IUnknown*)) : static_cast<UINT>(entry.bytes.size());
        if (!data) {
            *dataSize = size;
            return S_OK;
        }
        if (*dataSize < size) {
            *dataSize = size;
            return DXGI_ERROR_MORE_DATA;
        }
        *dataSize = size;
        if (entry.object) {
            entry.object->AddRef();
            std::memcpy(data, &entry.object, sizeof(IUnknown*));
        } else if (size) {
            std::memcpy(data, entry.bytes.data(), size);
        }
        return S_OK;
    }
    *dataSize = 0;
    return DXGI_ERROR_NOT_FOUND;
}

// Set and SetInterface allocate everything before they change anything, so an allocation failure
// (E_OUTOFMEMORY through Guard: no C++ exception leaves a COM method) leaves the store as it was.
HRESULT PrivateDataStore::Set(REFGUID guid, UINT dataSize, const void* data) {
    if (dataSize && !data) return E_INVALIDARG;
    return Guard("SetPrivateData", [](const char*, const ExceptionFailure&) {}, [&]() -> HRESULT {
        std::lock_guard lock(mutex_);
        if (!data) {  // a null pointer removes the entry
            EraseLocked(guid);
            return S_OK;
        }
        Entry entry;
        entry.bytes.assign(static_cast<const unsigned char*>(data), static_cast<const unsigned char*>(data) + dataSize);
        entries_.reserve(entries_.size() + 1);
        EraseLocked(guid);
        entries_.emplace_back(guid, std::move(entry));
        return S_OK;
    });
}

HRESULT PrivateDataStore::SetInterface(REFGUID guid, const IUnknown* object) {
    return Guard("SetPrivateDataInterface", [](const char*, const ExceptionFailure&) {}, [&]() -> HRESULT {
        std::lock_guard lock(mutex_);
        entries_.reserve(entries_.size() + 1);
        EraseLocked(guid);
        if (!object) return S_OK;
        Entry entry;
        entry.object = const_cast<IUnknown*>(object);
        entry.object->AddRef();
        entries_.emplace_back(guid, std::move(entry));
        return S_OK;
    });
}

HRESULT PrivateDataStore::SetName(const wchar_t* name) {
    if (!name) return Set(kDebugObjectNameW, 0, nullptr);
    size_t length = std::wcslen(name);
    return Set(kDebugObjectNameW, static_cast<UINT>((length + 1) * sizeof(wchar_t)), name);
}

std::string PrivateDataStore::Name() const {
    std::lock_guard lock(mutex_);
    for (const auto& [key, entry] : entries_) {
        if (SameGuid(key, kDebugObjectNameW) && !entry.bytes.empty()) {
            std::wstring wide(entry.bytes.size() / sizeof(wchar_t), L'\0');
            std::memcpy(wide.data(), entry.bytes.data(), wide.size() * sizeof(wchar_t));
            return Narrow(wide.c_str());
        }
        if (SameGuid(key, kDebugObjectName)) {
            std::string narrow(entry.bytes.begin(), entry.bytes.end());
            return std::string(narrow.c_str());
        }
    }
    return {};
}

}  // namespace freedml
