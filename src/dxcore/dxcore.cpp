// The exported entry point of libdxcore.so.
#include <new>

#include "common/api_guard.h"
#include "dxcore/factory.h"

extern "C" FREEDML_EXPORT HRESULT STDMETHODCALLTYPE DXCoreCreateAdapterFactory(REFIID riid, void** factory) {
    // No C++ exception leaves the library; DXCore has no message channel, so none is reported.
    return freedml::Guard(
        "DXCoreCreateAdapterFactory", [](const char*, const freedml::ExceptionFailure&) {},
        [&]() -> HRESULT {
            if (!factory) return E_POINTER;
            *factory = nullptr;
            auto* created = new (std::nothrow) freedml::dxcore::Factory();
            if (!created) return E_OUTOFMEMORY;
            HRESULT hr = created->QueryInterface(riid, factory);
            created->Release();
            return hr;
        });
}
