// Shared fixture of the execution tests: a device, message capture, and buffer helpers. Uses the
// public D3D12 API (plus FreeDML's message callback), as an application would.
#pragma once

#include <wsl/winadapter.h>
#include <wsl/wrladapter.h>
#include <directx/d3d12.h>
#include <directx/d3d12sdklayers.h>
#include <directx/d3dx12.h>
#include <dxguids/dxguids.h>

#include <gtest/gtest.h>

#include <cstring>
#include <mutex>
#include <string>
#include <vector>

#include "freedml/freedml.h"

namespace freedml_test {

using Microsoft::WRL::ComPtr;

// Every message any FreeDML device reports, in order.
class Messages {
public:
    static Messages& Get() {
        static Messages* messages = new Messages;
        return *messages;
    }
    void Install() { FreeDMLSetMessageCallback(&Messages::Callback, this); }
    void Clear() {
        std::lock_guard lock(mutex_);
        texts_.clear();
        errors_ = 0;
    }
    std::vector<std::string> All() {
        std::lock_guard lock(mutex_);
        return texts_;
    }
    bool Contains(const std::string& part) { return Count(part) > 0; }
    size_t Count(const std::string& part) {
        std::lock_guard lock(mutex_);
        size_t count = 0;
        for (const auto& text : texts_) count += text.find(part) != std::string::npos;
        return count;
    }
    size_t Errors() {
        std::lock_guard lock(mutex_);
        return errors_;
    }
    std::string Dump() {
        std::lock_guard lock(mutex_);
        std::string all;
        for (const auto& text : texts_) all += "  " + text + "\n";
        return all;
    }

private:
    static void Callback(FREEDML_MESSAGE_SEVERITY severity, const char*, const char* text, void* context) {
        auto* self = static_cast<Messages*>(context);
        std::lock_guard lock(self->mutex_);
        self->texts_.emplace_back(text);
        if (severity <= FREEDML_MESSAGE_SEVERITY_ERROR) ++self->errors_;
    }
    std::mutex mutex_;
    std::vector<std::string> texts_;
    size_t errors_ = 0;
};

inline ComPtr<ID3D12Device> MakeDevice(bool debugLayer = false) {
    ComPtr<ID3D12Debug> debug;
    if (SUCCEEDED(D3D12GetDebugInterface(IID_PPV_ARGS(&debug)))) {
        if (debugLayer) {
            debug->EnableDebugLayer();
        } else if (ComPtr<ID3D12Debug4> debug4; SUCCEEDED(debug.As(&debug4))) {
            debug4->DisableDebugLayer();
        }
    }
    ComPtr<ID3D12Device> device;
    HRESULT hr = D3D12CreateDevice(nullptr, D3D_FEATURE_LEVEL_11_0, IID_PPV_ARGS(&device));
    EXPECT_EQ(hr, S_OK);
    if (debugLayer && debug) {
        ComPtr<ID3D12Debug4> debug4;
        if (SUCCEEDED(debug.As(&debug4))) debug4->DisableDebugLayer();
    }
    return device;
}

inline ComPtr<ID3D12Resource> MakeBuffer(ID3D12Device* device, D3D12_HEAP_TYPE heapType, UINT64 bytes,
                                         D3D12_RESOURCE_STATES state, const wchar_t* name = nullptr) {
    CD3DX12_HEAP_PROPERTIES heap(heapType);
    CD3DX12_RESOURCE_DESC desc = CD3DX12_RESOURCE_DESC::Buffer(bytes);
    ComPtr<ID3D12Resource> buffer;
    EXPECT_EQ(device->CreateCommittedResource(&heap, D3D12_HEAP_FLAG_NONE, &desc, state, nullptr,
                                              IID_PPV_ARGS(&buffer)),
              S_OK);
    if (buffer && name) buffer->SetName(name);
    return buffer;
}

inline ComPtr<ID3D12Resource> MakeUpload(ID3D12Device* device, UINT64 bytes, const wchar_t* name = nullptr) {
    return MakeBuffer(device, D3D12_HEAP_TYPE_UPLOAD, bytes, D3D12_RESOURCE_STATE_GENERIC_READ, name);
}
inline ComPtr<ID3D12Resource> MakeReadback(ID3D12Device* device, UINT64 bytes, const wchar_t* name = nullptr) {
    return MakeBuffer(device, D3D12_HEAP_TYPE_READBACK, bytes, D3D12_RESOURCE_STATE_COPY_DEST, name);
}

template <class T>
void Write(ID3D12Resource* buffer, const std::vector<T>& values, size_t offsetBytes = 0) {
    void* mapped = nullptr;
    ASSERT_EQ(buffer->Map(0, nullptr, &mapped), S_OK);
    std::memcpy(static_cast<char*>(mapped) + offsetBytes, values.data(), values.size() * sizeof(T));
    buffer->Unmap(0, nullptr);
}

template <class T>
std::vector<T> Read(ID3D12Resource* buffer, size_t count, size_t offsetBytes = 0) {
    std::vector<T> values(count);
    void* mapped = nullptr;
    D3D12_RANGE range = {offsetBytes, offsetBytes + count * sizeof(T)};
    EXPECT_EQ(buffer->Map(0, &range, &mapped), S_OK);
    if (mapped) std::memcpy(values.data(), static_cast<const char*>(mapped) + offsetBytes, count * sizeof(T));
    D3D12_RANGE none = {0, 0};
    buffer->Unmap(0, &none);
    return values;
}

// One queue with an allocator, a list (open after creation) and a fence.
struct Lane {
    ComPtr<ID3D12CommandQueue> queue;
    ComPtr<ID3D12CommandAllocator> allocator;
    ComPtr<ID3D12GraphicsCommandList> list;
    ComPtr<ID3D12Fence> fence;
    UINT64 value = 0;

    Lane(ID3D12Device* device, D3D12_COMMAND_LIST_TYPE type = D3D12_COMMAND_LIST_TYPE_DIRECT) {
        D3D12_COMMAND_QUEUE_DESC desc = {};
        desc.Type = type;
        EXPECT_EQ(device->CreateCommandQueue(&desc, IID_PPV_ARGS(&queue)), S_OK);
        EXPECT_EQ(device->CreateCommandAllocator(type, IID_PPV_ARGS(&allocator)), S_OK);
        EXPECT_EQ(device->CreateCommandList(0, type, allocator.Get(), nullptr, IID_PPV_ARGS(&list)), S_OK);
        EXPECT_EQ(device->CreateFence(0, D3D12_FENCE_FLAG_NONE, IID_PPV_ARGS(&fence)), S_OK);
    }
    // Closes, executes, waits, and reopens the list for the next recording.
    void Run() {
        ASSERT_EQ(list->Close(), S_OK);
        Execute();
        Wait();
        ASSERT_EQ(allocator->Reset(), S_OK);
        ASSERT_EQ(list->Reset(allocator.Get(), nullptr), S_OK);
    }
    void Execute() {
        ID3D12CommandList* lists[] = {list.Get()};
        queue->ExecuteCommandLists(1, lists);
    }
    void Wait() {
        ASSERT_EQ(queue->Signal(fence.Get(), ++value), S_OK);
        ASSERT_EQ(fence->SetEventOnCompletion(value, nullptr), S_OK);
    }
};

class ExecTest : public ::testing::Test {
protected:
    void SetUp() override {
        Messages::Get().Install();
        device_ = MakeDevice(DebugLayer());
        ASSERT_TRUE(device_);
        Messages::Get().Clear();
    }
    void TearDown() override { FreeDMLSetMessageCallback(nullptr, nullptr); }
    virtual bool DebugLayer() const { return false; }

    Messages& messages() { return Messages::Get(); }
    ID3D12Device* device() { return device_.Get(); }

    ComPtr<ID3D12Device> device_;
};

}  // namespace freedml_test
