// FREEDML_CPU_AS_HARDWARE=1: the CPU adapter presents itself as a hardware GPU, so that programs
// that skip software adapters (the TensorFlow-DirectML plugin, ONNX Runtime's default filter)
// take it.
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

#include "test_util.h"

namespace {

// Set before main, so before anything in this process finds the adapters (they are found once).
const bool kSwitchSet = setenv("FREEDML_CPU_AS_HARDWARE", "1", 1) == 0;

const GUID kCoreCompute = {0x248e2800, 0xa793, 0x4724, {0xab, 0xaa, 0x23, 0xa6, 0xde, 0x1b, 0xe0, 0x90}};
const GUID kGraphics = {0x0c9ece4d, 0x2f6e, 0x4f01, {0x8c, 0x96, 0xe8, 0x9e, 0x33, 0x1b, 0x47, 0xb1}};
const GUID kHardwareGpu = {0xb69eb219, 0x3ded, 0x4464, {0x97, 0x9f, 0xa0, 0x0b, 0xd4, 0x68, 0x70, 0x06}};

TEST(CpuAsHardware, TheCpuAdapterIsAHardwareGpu) {
    ASSERT_TRUE(kSwitchSet);
    IDXCoreAdapterFactory* factory = nullptr;
    ASSERT_EQ(DXCoreCreateAdapterFactory(__uuidof(IDXCoreAdapterFactory), reinterpret_cast<void**>(&factory)), S_OK);
    IDXCoreAdapterList* list = nullptr;
    ASSERT_EQ(factory->CreateAdapterList(1, &kHardwareGpu, __uuidof(IDXCoreAdapterList), reinterpret_cast<void**>(&list)),
              S_OK);
    IDXCoreAdapter* cpu = nullptr;
    for (uint32_t i = 0; i < list->GetAdapterCount() && !cpu; ++i) {
        IDXCoreAdapter* adapter = nullptr;
        ASSERT_EQ(list->GetAdapter(i, __uuidof(IDXCoreAdapter), reinterpret_cast<void**>(&adapter)), S_OK);
        char description[64] = {};
        ASSERT_EQ(adapter->GetProperty(DXCoreAdapterProperty::DriverDescription, sizeof(description), description), S_OK);
        if (std::string(description) == "FreeDML CPU") {
            cpu = adapter;
        } else {
            adapter->Release();
        }
    }
    ASSERT_NE(cpu, nullptr) << "the CPU adapter is missing from the list of hardware GPUs";
    bool hardware = false;
    EXPECT_EQ(cpu->GetProperty(DXCoreAdapterProperty::IsHardware, sizeof(hardware), &hardware), S_OK);
    EXPECT_TRUE(hardware);
    EXPECT_TRUE(cpu->IsAttributeSupported(kGraphics));
    EXPECT_TRUE(cpu->IsAttributeSupported(kCoreCompute));
    // Still the same memory: the host's, shared and cache coherent (UMA).
    bool integrated = false;
    EXPECT_EQ(cpu->GetProperty(DXCoreAdapterProperty::IsIntegrated, sizeof(integrated), &integrated), S_OK);
    EXPECT_TRUE(integrated);
    // A D3D12 device opens on it at the feature level a client picks for a graphics adapter.
    ID3D12Device* device = nullptr;
    ASSERT_EQ(D3D12CreateDevice(cpu, D3D_FEATURE_LEVEL_11_0, __uuidof(ID3D12Device), reinterpret_cast<void**>(&device)),
              S_OK);
    D3D12_FEATURE_DATA_ARCHITECTURE architecture{};
    EXPECT_EQ(device->CheckFeatureSupport(D3D12_FEATURE_ARCHITECTURE, &architecture, sizeof(architecture)), S_OK);
    EXPECT_TRUE(architecture.UMA);
    EXPECT_TRUE(architecture.CacheCoherentUMA);
    EXPECT_EQ(device->Release(), 0u);
    cpu->Release();
    list->Release();
    EXPECT_EQ(factory->Release(), 0u);
}

// D3D12CreateDevice(nullptr, ...) takes the first hardware adapter: a CUDA GPU where there is one,
// otherwise the CPU, which is now hardware too.
TEST(CpuAsHardware, DefaultAdapterStillPrefersCuda) {
    ID3D12Device* device = nullptr;
    ASSERT_EQ(D3D12CreateDevice(nullptr, D3D_FEATURE_LEVEL_11_0, __uuidof(ID3D12Device), reinterpret_cast<void**>(&device)),
              S_OK);
    IDXCoreAdapterFactory* factory = nullptr;
    ASSERT_EQ(DXCoreCreateAdapterFactory(__uuidof(IDXCoreAdapterFactory), reinterpret_cast<void**>(&factory)), S_OK);
    IDXCoreAdapter* adapter = nullptr;
    ASSERT_EQ(factory->GetAdapterByLuid(device->GetAdapterLuid(), __uuidof(IDXCoreAdapter),
                                        reinterpret_cast<void**>(&adapter)),
              S_OK);
    IDXCoreAdapterList* list = nullptr;
    ASSERT_EQ(factory->CreateAdapterList(1, &kCoreCompute, __uuidof(IDXCoreAdapterList), reinterpret_cast<void**>(&list)),
              S_OK);
    IDXCoreAdapter* first = nullptr;
    ASSERT_EQ(list->GetAdapter(0, __uuidof(IDXCoreAdapter), reinterpret_cast<void**>(&first)), S_OK);
    LUID a{}, b{};
    adapter->GetProperty(DXCoreAdapterProperty::InstanceLuid, sizeof(a), &a);
    first->GetProperty(DXCoreAdapterProperty::InstanceLuid, sizeof(b), &b);
    EXPECT_EQ(a.LowPart, b.LowPart);
    EXPECT_EQ(a.HighPart, b.HighPart);
    first->Release();
    list->Release();
    adapter->Release();
    EXPECT_EQ(factory->Release(), 0u);
    EXPECT_EQ(device->Release(), 0u);
}

}  // namespace
