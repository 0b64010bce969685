#include "test_util.h"

#include <gtest/gtest.h>

namespace freedml_test {

ID3D12Device* CreateDevice() {
    ID3D12Device* device = nullptr;
    HRESULT hr = D3D12CreateDevice(nullptr, D3D_FEATURE_LEVEL_11_0, __uuidof(ID3D12Device),
                                   reinterpret_cast<void**>(&device));
    EXPECT_EQ(hr, S_OK);
    return device;
}

D3D12_RESOURCE_DESC BufferDesc(UINT64 width, D3D12_RESOURCE_FLAGS flags) {
    D3D12_RESOURCE_DESC desc{};
    desc.Dimension = D3D12_RESOURCE_DIMENSION_BUFFER;
    desc.Width = width;
    desc.Height = 1;
    desc.DepthOrArraySize = 1;
    desc.MipLevels = 1;
    desc.Format = DXGI_FORMAT_UNKNOWN;
    desc.SampleDesc.Count = 1;
    desc.Layout = D3D12_TEXTURE_LAYOUT_ROW_MAJOR;
    desc.Flags = flags;
    return desc;
}

D3D12_HEAP_PROPERTIES HeapProperties(D3D12_HEAP_TYPE type) {
    D3D12_HEAP_PROPERTIES properties{};
    properties.Type = type;
    return properties;
}

D3D12_HEAP_PROPERTIES CustomHeapProperties(D3D12_CPU_PAGE_PROPERTY page) {
    D3D12_HEAP_PROPERTIES properties{};
    properties.Type = D3D12_HEAP_TYPE_CUSTOM;
    properties.CPUPageProperty = page;
    properties.MemoryPoolPreference = D3D12_MEMORY_POOL_L0;
    return properties;
}

ULONG RefCount(IUnknown* object) {
    object->AddRef();
    return object->Release();
}

ID3D12Resource* CreateBuffer(ID3D12Device* device, D3D12_HEAP_TYPE type, UINT64 width, D3D12_RESOURCE_FLAGS flags) {
    D3D12_HEAP_PROPERTIES properties = HeapProperties(type);
    D3D12_RESOURCE_DESC desc = BufferDesc(width, flags);
    D3D12_RESOURCE_STATES state = type == D3D12_HEAP_TYPE_UPLOAD     ? D3D12_RESOURCE_STATE_GENERIC_READ
                                  : type == D3D12_HEAP_TYPE_READBACK ? D3D12_RESOURCE_STATE_COPY_DEST
                                                                     : D3D12_RESOURCE_STATE_COMMON;
    ID3D12Resource* resource = nullptr;
    EXPECT_EQ(device->CreateCommittedResource(&properties, D3D12_HEAP_FLAG_NONE, &desc, state, nullptr,
                                              __uuidof(ID3D12Resource), reinterpret_cast<void**>(&resource)),
              S_OK);
    return resource;
}

MessageCatcher::MessageCatcher() { previous_ = FreeDMLSetMessageCallback(&Callback, this); }
MessageCatcher::~MessageCatcher() { FreeDMLSetMessageCallback(previous_, nullptr); }

void MessageCatcher::Callback(FREEDML_MESSAGE_SEVERITY, const char*, const char* text, void* context) {
    auto* self = static_cast<MessageCatcher*>(context);
    std::lock_guard lock(self->mutex_);
    self->messages_.push_back(text);
}

std::string MessageCatcher::All() {
    std::lock_guard lock(mutex_);
    std::string all;
    for (const auto& message : messages_) all += message + "\n";
    return all;
}

bool MessageCatcher::Contains(const std::string& text) { return All().find(text) != std::string::npos; }

void MessageCatcher::Clear() {
    std::lock_guard lock(mutex_);
    messages_.clear();
}

}  // namespace freedml_test
