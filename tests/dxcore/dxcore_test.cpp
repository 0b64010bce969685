// DXCore: enumeration, identity, properties, sorting, and a D3D12 device made on a DXCore adapter.
#include <gtest/gtest.h>

#include <cstring>

#include "test_util.h"

using namespace freedml_test;

namespace {

const GUID kCoreCompute = {0x248e2800, 0xa793, 0x4724, {0xab, 0xaa, 0x23, 0xa6, 0xde, 0x1b, 0xe0, 0x90}};
const GUID kGenericMl = {0xb71b0d41, 0x1088, 0x422f, {0xa2, 0x7c, 0x02, 0x50, 0xb7, 0xd3, 0xa9, 0x88}};
const GUID kGraphics = {0x0c9ece4d, 0x2f6e, 0x4f01, {0x8c, 0x96, 0xe8, 0x9e, 0x33, 0x1b, 0x47, 0xb1}};
// DXCORE_HARDWARE_TYPE_ATTRIBUTE_GPU and _NPU (newer than Debian's dxcore_interface.h).
const GUID kHardwareGpu = {0xb69eb219, 0x3ded, 0x4464, {0x97, 0x9f, 0xa0, 0x0b, 0xd4, 0x68, 0x70, 0x06}};
const GUID kHardwareNpu = {0xd46140c4, 0xadd7, 0x451b, {0x9e, 0x56, 0x06, 0xfe, 0x8c, 0x3b, 0x58, 0xed}};

bool IsHardware(IDXCoreAdapter* adapter) {
    bool hardware = false;
    EXPECT_EQ(adapter->GetProperty(DXCoreAdapterProperty::IsHardware, sizeof(hardware), &hardware), S_OK);
    return hardware;
}

std::string Description(IDXCoreAdapter* adapter) {
    size_t size = 0;
    EXPECT_EQ(adapter->GetPropertySize(DXCoreAdapterProperty::DriverDescription, &size), S_OK);
    std::string text(size, '\0');
    EXPECT_EQ(adapter->GetProperty(DXCoreAdapterProperty::DriverDescription, size, text.data()), S_OK);
    return text.c_str();
}

class DXCore : public ::testing::Test {
protected:
    void SetUp() override {
        ASSERT_EQ(DXCoreCreateAdapterFactory(__uuidof(IDXCoreAdapterFactory), reinterpret_cast<void**>(&factory_)),
                  S_OK);
    }
    void TearDown() override { EXPECT_EQ(factory_->Release(), 0u); }
    IDXCoreAdapterList* List(const GUID& attribute) {
        IDXCoreAdapterList* list = nullptr;
        EXPECT_EQ(factory_->CreateAdapterList(1, &attribute, __uuidof(IDXCoreAdapterList),
                                              reinterpret_cast<void**>(&list)),
                  S_OK);
        return list;
    }
    IDXCoreAdapterFactory* factory_ = nullptr;
};

TEST_F(DXCore, EnumeratesTheCpuAdapter) {
    for (const GUID& attribute : {kCoreCompute, kGenericMl}) {
        IDXCoreAdapterList* list = List(attribute);
        ASSERT_GE(list->GetAdapterCount(), 1u);
        EXPECT_FALSE(list->IsStale());
        IDXCoreAdapter* adapter = nullptr;
        ASSERT_EQ(list->GetAdapter(list->GetAdapterCount() - 1, __uuidof(IDXCoreAdapter),
                                   reinterpret_cast<void**>(&adapter)),
                  S_OK);
        EXPECT_TRUE(adapter->IsValid());
        EXPECT_TRUE(adapter->IsAttributeSupported(kCoreCompute));
        EXPECT_TRUE(adapter->IsAttributeSupported(kGenericMl));
        EXPECT_FALSE(adapter->IsAttributeSupported(kGraphics));
        size_t size = 0;
        ASSERT_EQ(adapter->GetPropertySize(DXCoreAdapterProperty::DriverDescription, &size), S_OK);
        std::string description(size, '\0');
        ASSERT_EQ(adapter->GetProperty(DXCoreAdapterProperty::DriverDescription, size, description.data()), S_OK);
        EXPECT_STREQ(description.c_str(), "FreeDML CPU");
        bool hardware = true;
        EXPECT_EQ(adapter->GetProperty(DXCoreAdapterProperty::IsHardware, sizeof(hardware), &hardware), S_OK);
        EXPECT_FALSE(hardware);
        uint64_t shared = 0;
        EXPECT_EQ(adapter->GetProperty(DXCoreAdapterProperty::SharedSystemMemory, sizeof(shared), &shared), S_OK);
        EXPECT_GT(shared, 0u);
        uint64_t version = 0;
        EXPECT_EQ(adapter->GetProperty(DXCoreAdapterProperty::DriverVersion, sizeof(version), &version), S_OK);
        char tiny[2];
        EXPECT_EQ(adapter->GetProperty(DXCoreAdapterProperty::DriverDescription, sizeof(tiny), tiny), E_INVALIDARG);
        EXPECT_FALSE(adapter->IsPropertySupported(DXCoreAdapterProperty::KmdModelVersion));
        EXPECT_EQ(adapter->GetPropertySize(DXCoreAdapterProperty::KmdModelVersion, &size), DXGI_ERROR_UNSUPPORTED);
        IDXCoreAdapterFactory* owner = nullptr;
        EXPECT_EQ(adapter->GetFactory(__uuidof(IDXCoreAdapterFactory), reinterpret_cast<void**>(&owner)), S_OK);
        EXPECT_EQ(owner, factory_);
        owner->Release();
        adapter->Release();
        void* none = nullptr;
        EXPECT_EQ(list->GetAdapter(100, __uuidof(IDXCoreAdapter), &none), E_INVALIDARG);
        list->Release();
    }
    // Software adapters are no GPUs: the CPU adapter is in neither list.
    for (const GUID& attribute : {kGraphics, kHardwareGpu}) {
        IDXCoreAdapterList* graphics = List(attribute);
        for (uint32_t i = 0; i < graphics->GetAdapterCount(); ++i) {
            IDXCoreAdapter* adapter = nullptr;
            ASSERT_EQ(graphics->GetAdapter(i, __uuidof(IDXCoreAdapter), reinterpret_cast<void**>(&adapter)), S_OK);
            EXPECT_NE(Description(adapter), "FreeDML CPU");
            adapter->Release();
        }
        graphics->Release();
    }
    void* list = nullptr;
    EXPECT_EQ(factory_->CreateAdapterList(0, nullptr, __uuidof(IDXCoreAdapterList), &list), E_INVALIDARG);
}

// Identity as DirectML's clients read it: the CPU adapter is a software adapter without the GPU
// attributes; every CUDA adapter is a hardware GPU with D3D12_GRAPHICS (a hardware adapter without
// it would be taken for an NPU), and none is an NPU.
TEST_F(DXCore, HardwareAdaptersAreGpusAndTheCpuIsSoftware) {
    IDXCoreAdapterList* list = List(kCoreCompute);
    uint32_t cpus = 0;
    for (uint32_t i = 0; i < list->GetAdapterCount(); ++i) {
        IDXCoreAdapter* adapter = nullptr;
        ASSERT_EQ(list->GetAdapter(i, __uuidof(IDXCoreAdapter), reinterpret_cast<void**>(&adapter)), S_OK);
        const std::string description = Description(adapter);
        const bool cpu = description == "FreeDML CPU";
        cpus += cpu;
        if (!cpu) {
            EXPECT_EQ(description.rfind("FreeDML CUDA: ", 0), 0u) << description;
        }
        EXPECT_EQ(IsHardware(adapter), !cpu) << description;
        EXPECT_EQ(adapter->IsAttributeSupported(kGraphics), !cpu) << description;
        EXPECT_EQ(adapter->IsAttributeSupported(kHardwareGpu), !cpu) << description;
        EXPECT_FALSE(adapter->IsAttributeSupported(kHardwareNpu)) << description;
        EXPECT_TRUE(adapter->IsAttributeSupported(kGenericMl)) << description;
        // A GPU is opened at feature level 11_0 by clients that see D3D12_GRAPHICS, 1_0_CORE otherwise.
        ID3D12Device* device = nullptr;
        const D3D_FEATURE_LEVEL level = cpu ? D3D_FEATURE_LEVEL_1_0_CORE : D3D_FEATURE_LEVEL_11_0;
        EXPECT_EQ(D3D12CreateDevice(adapter, level, __uuidof(ID3D12Device), reinterpret_cast<void**>(&device)), S_OK);
        if (device) {
            EXPECT_EQ(device->Release(), 0u);
        }
        adapter->Release();
    }
    EXPECT_EQ(cpus, 1u);
    // Sorted for hardware, the way the TensorFlow-DirectML plugin stops at the first software
    // adapter: every CUDA adapter comes before the CPU, which is last.
    const DXCoreAdapterPreference hardwareFirst[] = {DXCoreAdapterPreference::Hardware};
    ASSERT_EQ(list->Sort(1, hardwareFirst), S_OK);
    IDXCoreAdapter* last = nullptr;
    ASSERT_EQ(list->GetAdapter(list->GetAdapterCount() - 1, __uuidof(IDXCoreAdapter), reinterpret_cast<void**>(&last)),
              S_OK);
    EXPECT_EQ(Description(last), "FreeDML CPU");
    last->Release();
    list->Release();
}

TEST_F(DXCore, SortAndLookupByLuid) {
    IDXCoreAdapterList* list = List(kCoreCompute);
    const DXCoreAdapterPreference preferences[] = {DXCoreAdapterPreference::Hardware,
                                                   DXCoreAdapterPreference::HighPerformance};
    EXPECT_EQ(list->Sort(2, preferences), S_OK);
    EXPECT_TRUE(list->IsAdapterPreferenceSupported(DXCoreAdapterPreference::MinimumPower));
    const auto bad = static_cast<DXCoreAdapterPreference>(77);
    EXPECT_EQ(list->Sort(1, &bad), E_INVALIDARG);
    IDXCoreAdapter* adapter = nullptr;
    ASSERT_EQ(list->GetAdapter(0, __uuidof(IDXCoreAdapter), reinterpret_cast<void**>(&adapter)), S_OK);
    LUID luid{};
    ASSERT_EQ(adapter->GetProperty(DXCoreAdapterProperty::InstanceLuid, sizeof(luid), &luid), S_OK);
    IDXCoreAdapter* same = nullptr;
    ASSERT_EQ(factory_->GetAdapterByLuid(luid, __uuidof(IDXCoreAdapter), reinterpret_cast<void**>(&same)), S_OK);
    LUID again{};
    same->GetProperty(DXCoreAdapterProperty::InstanceLuid, sizeof(again), &again);
    EXPECT_EQ(std::memcmp(&luid, &again, sizeof(LUID)), 0);
    same->Release();
    LUID unknown{12345, 678};
    void* none = nullptr;
    EXPECT_EQ(factory_->GetAdapterByLuid(unknown, __uuidof(IDXCoreAdapter), &none), E_INVALIDARG);
    uint32_t cookie = 1;
    EXPECT_EQ(factory_->RegisterEventNotification(adapter, DXCoreNotificationType::AdapterListStale, nullptr, nullptr,
                                                  &cookie),
              E_NOTIMPL);

    // The D3D12 device made on this adapter reports the adapter's LUID (libd3d12 and libdxcore agree).
    ID3D12Device* device = nullptr;
    ASSERT_EQ(D3D12CreateDevice(adapter, D3D_FEATURE_LEVEL_1_0_CORE, __uuidof(ID3D12Device),
                                reinterpret_cast<void**>(&device)),
              S_OK);
    LUID deviceLuid = device->GetAdapterLuid();
    EXPECT_EQ(std::memcmp(&luid, &deviceLuid, sizeof(LUID)), 0);
    EXPECT_EQ(device->Release(), 0u);
    EXPECT_EQ(D3D12CreateDevice(adapter, D3D_FEATURE_LEVEL_11_0, __uuidof(ID3D12Device), nullptr), S_FALSE);
    adapter->Release();
    list->Release();
}

TEST_F(DXCore, D3D12RefusesForeignAdapters) {
    MessageCatcher messages;
    void* device = nullptr;
    EXPECT_EQ(D3D12CreateDevice(factory_, D3D_FEATURE_LEVEL_11_0, __uuidof(ID3D12Device), &device), E_INVALIDARG);
    EXPECT_TRUE(messages.Contains("neither null nor an IDXCoreAdapter")) << messages.All();
}

}  // namespace
