// Helpers shared by the D3D12 device tests: a device, buffer descriptions, and a message catcher.
#pragma once

#include <wsl/winadapter.h>
#include <directx/d3d12.h>
#include <directx/d3d12sdklayers.h>
#include <directx/dxcore.h>
#include <dxguids/dxguids.h>

#include <mutex>
#include <string>
#include <vector>

#include "freedml/freedml.h"

namespace freedml_test {

ID3D12Device* CreateDevice();  // on the default (CPU) adapter; fails the test when it cannot
D3D12_RESOURCE_DESC BufferDesc(UINT64 width, D3D12_RESOURCE_FLAGS flags = D3D12_RESOURCE_FLAG_NONE);
D3D12_HEAP_PROPERTIES HeapProperties(D3D12_HEAP_TYPE type);
D3D12_HEAP_PROPERTIES CustomHeapProperties(D3D12_CPU_PAGE_PROPERTY page);
ULONG RefCount(IUnknown* object);  // AddRef + Release
ID3D12Resource* CreateBuffer(ID3D12Device* device, D3D12_HEAP_TYPE type, UINT64 width,
                             D3D12_RESOURCE_FLAGS flags = D3D12_RESOURCE_FLAG_NONE);

// Collects every FreeDML message while alive (through FreeDMLSetMessageCallback).
class MessageCatcher {
public:
    MessageCatcher();
    ~MessageCatcher();
    std::string All();
    bool Contains(const std::string& text);
    void Clear();

private:
    static void Callback(FREEDML_MESSAGE_SEVERITY, const char*, const char* text, void* context);
    std::mutex mutex_;
    std::vector<std::string> messages_;
    FREEDML_MESSAGE_CALLBACK previous_;
};

}  // namespace freedml_test
