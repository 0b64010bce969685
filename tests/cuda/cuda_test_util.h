// Helpers of the CUDA backend tests: the CUDA adapter through DXCore (tests skip, saying why,
// where there is none) and a D3D12 device on it. Public API only, as an application would.
#pragma once

#include <wsl/winadapter.h>
#include <wsl/wrladapter.h>
#include <directx/d3d12.h>
#include <directx/d3dx12.h>
#include <directx/dxcore.h>
#include <dxguids/dxguids.h>

#include <gtest/gtest.h>

#include <string>

namespace freedml_test {

using Microsoft::WRL::ComPtr;

// The first hardware adapter DXCore lists (FreeDML's hardware adapters are CUDA devices), or the
// CPU adapter when `hardware` is false.
inline ComPtr<IDXCoreAdapter> FindAdapter(bool hardware) {
    ComPtr<IDXCoreAdapterFactory> factory;
    ComPtr<IDXCoreAdapterList> list;
    if (FAILED(DXCoreCreateAdapterFactory(IID_PPV_ARGS(&factory)))) return nullptr;
    if (FAILED(factory->CreateAdapterList(1, &DXCORE_ADAPTER_ATTRIBUTE_D3D12_CORE_COMPUTE, IID_PPV_ARGS(&list)))) {
        return nullptr;
    }
    for (uint32_t i = 0; i < list->GetAdapterCount(); ++i) {
        ComPtr<IDXCoreAdapter> adapter;
        if (FAILED(list->GetAdapter(i, IID_PPV_ARGS(&adapter)))) continue;
        bool isHardware = false;
        adapter->GetProperty(DXCoreAdapterProperty::IsHardware, sizeof(isHardware), &isHardware);
        if (isHardware == hardware) return adapter;
    }
    return nullptr;
}

constexpr const char* kNoCudaAdapter =
    "No CUDA adapter: this machine has no NVIDIA GPU, driver or CUDA plugin (FREEDML_DEBUG=1 says which).";

inline std::string AdapterName(IDXCoreAdapter* adapter) {
    size_t size = 0;
    adapter->GetPropertySize(DXCoreAdapterProperty::DriverDescription, &size);
    std::string name(size, '\0');
    adapter->GetProperty(DXCoreAdapterProperty::DriverDescription, size, name.data());
    if (!name.empty() && name.back() == '\0') name.pop_back();
    return name;
}

inline ComPtr<ID3D12Device> MakeDeviceOn(IDXCoreAdapter* adapter) {
    ComPtr<ID3D12Device> device;
    EXPECT_EQ(D3D12CreateDevice(adapter, D3D_FEATURE_LEVEL_11_0, IID_PPV_ARGS(&device)), S_OK);
    return device;
}

}  // namespace freedml_test
