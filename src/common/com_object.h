// ComObject: the one implementation of IUnknown that every FreeDML COM object uses.
//
//   class Fence final : public ComObject<Fence, ID3D12Fence1, ID3D12Fence, ID3D12Pageable,
//                                        ID3D12DeviceChild, ID3D12Object> { ... };
//
// The first interface is the most derived one the object implements; the others are the bases
// it can also be queried as (all reached through the same pointer). A class that hands out
// something else (a private FreeDML interface) defines QueryExtraInterface(riid), which returns
// the pointer with whatever reference it implies already taken, or nullptr.
#pragma once

#include <atomic>
#include <cstring>
#include <map>
#include <mutex>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "common/platform.h"
#include "common/status.h"
#include "common/trace.h"

namespace freedml {

inline bool SameGuid(REFGUID a, REFGUID b) { return std::memcmp(&a, &b, sizeof(GUID)) == 0; }

template <class Derived, class Primary, class... Bases>
class ComObject : public Primary {
public:
    HRESULT STDMETHODCALLTYPE QueryInterface(REFIID riid, void** object) override {
        if (!object) return E_POINTER;
        *object = nullptr;
        if (SameGuid(riid, __uuidof(IUnknown)) || SameGuid(riid, __uuidof(Primary)) ||
            (SameGuid(riid, __uuidof(Bases)) || ...)) {
            AddRef();
            *object = static_cast<Primary*>(this);
            return S_OK;
        }
        if (void* extra = static_cast<Derived*>(this)->QueryExtraInterface(riid)) {
            *object = extra;
            return S_OK;
        }
        return E_NOINTERFACE;
    }
    ULONG STDMETHODCALLTYPE AddRef() override { return ++references_; }
    ULONG STDMETHODCALLTYPE Release() override {
        ULONG left = --references_;
        if (left == 0) delete this;  // through the virtual destructor
        return left;
    }

    // Default: no interfaces besides the chain above. Derived classes hide this one.
    void* QueryExtraInterface(REFIID) { return nullptr; }

    ULONG ReferenceCount() const { return references_.load(); }

protected:
    ComObject() = default;
    // Virtual so that Release deletes the whole object whatever Derived's bases are; it adds a
    // slot after the interface's own, so the interface's vtable layout is unchanged.
    virtual ~ComObject() = default;
    ComObject(const ComObject&) = delete;
    ComObject& operator=(const ComObject&) = delete;

private:
    std::atomic<ULONG> references_{1};
};

// The null-output rule of creation methods. D3D12 documents it (CreateDescriptorHeap, CreateHeap,
// CreateCommittedResource, CreatePlacedResource: "ppv can be NULL, to enable capability testing")
// and applies it to D3D12CreateDevice; DirectML applies it to DMLCreateDevice and to the methods its
// header marks `_COM_Outptr_opt_` (CreateOperator, CompileOperator). FreeDML applies it to every
// D3D12 creation method and to those DirectML ones: with a null output pointer the method validates
// everything as usual, creates nothing, and returns S_FALSE ("it could be created"). DirectML's
// methods whose output is required (`_COM_Outptr_`) return E_POINTER instead.
constexpr HRESULT kValidatedOnly = S_FALSE;
inline bool ValidateOnly(void* const* out) { return out == nullptr; }

// One reference to a COM object, released when the Ref goes, also when an exception unwinds
// past it. Internal code holds what it creates through a Ref instead of pairing AddRef and Release
// by hand, so that a failure between creating an object and handing it out leaks nothing.
//   Ref<Heap> heap;
//   FREEDML_TRY(Heap::Create(..., heap.Put()));   // Create fills a T** with a new reference
//   return HandOut(heap.Detach(), riid, out);
template <class T>
class Ref {
public:
    Ref() = default;
    explicit Ref(T* adopted) : object_(adopted) {}  // takes over a reference its caller owned
    // A new reference to `object` (AddRef now, Release when the Ref goes).
    static Ref Share(T* object) {
        if (object) object->AddRef();
        return Ref(object);
    }
    Ref(Ref&& other) noexcept : object_(std::exchange(other.object_, nullptr)) {}
    Ref& operator=(Ref&& other) noexcept {
        if (this != &other) {
            Reset();
            object_ = std::exchange(other.object_, nullptr);
        }
        return *this;
    }
    Ref(const Ref&) = delete;
    Ref& operator=(const Ref&) = delete;
    ~Ref() { Reset(); }

    T* Get() const { return object_; }
    T* operator->() const { return object_; }
    explicit operator bool() const { return object_ != nullptr; }
    // Gives the reference away (to an out parameter, or to HandOut).
    T* Detach() { return std::exchange(object_, nullptr); }
    void Reset() {
        if (object_) std::exchange(object_, nullptr)->Release();
    }
    // For a creation function's T** out parameter.
    T** Put() {
        Reset();
        return &object_;
    }

private:
    T* object_ = nullptr;
};

// The usual tail of a creation method: hands `created` out through riid and drops the creation
// reference (so a failed QueryInterface destroys it). A null `out` is the validation-only call of
// a method that must build the object to validate it: the object is destroyed and S_FALSE returned.
template <class Object>
HRESULT HandOut(Object* created, REFIID riid, void** out) {
    if (ValidateOnly(out)) {
        created->Release();
        return kValidatedOnly;
    }
    HRESULT hr = created->QueryInterface(riid, out);
    created->Release();
    return hr;
}

// Private data of ID3D12Object and IDMLObject: GUID-keyed blobs, interfaces and the debug name.
class PrivateDataStore {
public:
    PrivateDataStore() = default;
    PrivateDataStore(const PrivateDataStore&) = delete;
    PrivateDataStore& operator=(const PrivateDataStore&) = delete;
    ~PrivateDataStore();

    HRESULT Get(REFGUID guid, UINT* dataSize, void* data) const;
    HRESULT Set(REFGUID guid, UINT dataSize, const void* data);
    HRESULT SetInterface(REFGUID guid, const IUnknown* object);
    HRESULT SetName(const wchar_t* name);
    // The debug name given by SetName or by either debug-name GUID, in UTF-8 ("" when none).
    std::string Name() const;

private:
    struct Entry {
        std::vector<unsigned char> bytes;
        IUnknown* object = nullptr;  // holds a reference
    };
    void EraseLocked(REFGUID guid);

    mutable std::mutex mutex_;
    std::vector<std::pair<GUID, Entry>> entries_;
};

// Adds the four private-data methods shared by ID3D12Object and IDMLObject (same order, same
// meaning; D3D12 takes `const IUnknown*` where DirectML takes `IUnknown*`).
template <class Derived, class Primary, class... Bases>
class NamedComObject : public ComObject<Derived, Primary, Bases...> {
    static constexpr bool kIsD3D12 = std::is_base_of_v<ID3D12Object, Primary>;
    using InterfaceArgument = std::conditional_t<kIsD3D12, const IUnknown*, IUnknown*>;

public:
    HRESULT STDMETHODCALLTYPE GetPrivateData(REFGUID guid, UINT* dataSize, void* data) override {
        return privateData_.Get(guid, dataSize, data);
    }
    HRESULT STDMETHODCALLTYPE SetPrivateData(REFGUID guid, UINT dataSize, const void* data) override {
        return privateData_.Set(guid, dataSize, data);
    }
    HRESULT STDMETHODCALLTYPE SetPrivateDataInterface(REFGUID guid, InterfaceArgument object) override {
        return privateData_.SetInterface(guid, object);
    }
    HRESULT STDMETHODCALLTYPE SetName(const wchar_t* name) override {
        FREEDML_TRACE_SOURCE(kIsD3D12 ? "D3D12" : "DirectML", kIsD3D12 ? "ID3D12Object::SetName" : "IDMLObject::SetName",
                             this, name);
        return privateData_.SetName(name);
    }

    std::string Name() const { return privateData_.Name(); }

protected:
    PrivateDataStore privateData_;
};

}  // namespace freedml
