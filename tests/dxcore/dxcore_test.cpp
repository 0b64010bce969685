// DXCore: enumeration, identity, properties, sorting, and a D3D12 device made on a DXCore adapter.
#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

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
              E_POINTER);  // a null callback (EventNotificationsFollowTheReferencePage has the rest)
    EXPECT_EQ(cookie, 0u);

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

namespace {

// Every adapter DXCore lists for D3D12 compute, in enumeration order.
std::vector<IDXCoreAdapter*> AllAdapters(IDXCoreAdapterFactory* factory) {
    IDXCoreAdapterList* list = nullptr;
    EXPECT_EQ(factory->CreateAdapterList(1, &kCoreCompute, __uuidof(IDXCoreAdapterList), reinterpret_cast<void**>(&list)),
              S_OK);
    std::vector<IDXCoreAdapter*> adapters;
    for (uint32_t i = 0; list && i < list->GetAdapterCount(); ++i) {
        IDXCoreAdapter* adapter = nullptr;
        EXPECT_EQ(list->GetAdapter(i, __uuidof(IDXCoreAdapter), reinterpret_cast<void**>(&adapter)), S_OK);
        adapters.push_back(adapter);
    }
    if (list) list->Release();
    return adapters;
}

DXCoreAdapterMemoryBudget Budget(IDXCoreAdapter* adapter, DXCoreSegmentGroup group) {
    DXCoreAdapterMemoryBudgetNodeSegmentGroup query{0, group};
    DXCoreAdapterMemoryBudget budget{};
    EXPECT_EQ(adapter->QueryState(DXCoreAdapterState::AdapterMemoryBudget, sizeof(query), &query, sizeof(budget),
                                  &budget),
              S_OK);
    return budget;
}

// This process's resident memory as the kernel reports it in /proc/self/status (VmRSS, in kB).
uint64_t ResidentBytes() {
    FILE* file = std::fopen("/proc/self/status", "r");
    if (!file) return 0;
    char line[256];
    unsigned long long kib = 0;
    while (std::fgets(line, sizeof(line), file)) {
        if (std::sscanf(line, "VmRSS: %llu kB", &kib) == 1) break;
    }
    std::fclose(file);
    return kib * 1024;
}

uint64_t PhysicalBytes() { return uint64_t(sysconf(_SC_PHYS_PAGES)) * uint64_t(sysconf(_SC_PAGESIZE)); }

template <class T>
T Property(IDXCoreAdapter* adapter, DXCoreAdapterProperty property) {
    T value{};
    size_t size = 0;
    EXPECT_EQ(adapter->GetPropertySize(property, &size), S_OK);
    EXPECT_EQ(size, sizeof(T)) << "property " << static_cast<int>(property);
    EXPECT_EQ(adapter->GetProperty(property, sizeof(T), &value), S_OK);
    return value;
}

ID3D12Device* DeviceOn(IDXCoreAdapter* adapter) {
    ID3D12Device* device = nullptr;
    EXPECT_EQ(D3D12CreateDevice(adapter, D3D_FEATURE_LEVEL_1_0_CORE, __uuidof(ID3D12Device),
                                reinterpret_cast<void**>(&device)),
              S_OK);
    return device;
}

constexpr uint64_t kMiB = 1024 * 1024;

}  // namespace

// The properties DirectML's clients read at start-up, with the sizes of the types DXCoreAdapterProperty
// documents, and consistent with each other and with the D3D12 device.
TEST_F(DXCore, PropertiesClientsReadAreConsistent) {
    for (IDXCoreAdapter* adapter : AllAdapters(factory_)) {
        const std::string description = Description(adapter);
        SCOPED_TRACE(description);
        const bool cpu = description == "FreeDML CPU";
        const auto id = Property<DXCoreHardwareID>(adapter, DXCoreAdapterProperty::HardwareID);
        const auto parts = Property<DXCoreHardwareIDParts>(adapter, DXCoreAdapterProperty::HardwareIDParts);
        EXPECT_EQ(id.vendorID, parts.vendorID);
        EXPECT_EQ(id.deviceID, parts.deviceID);
        EXPECT_EQ(id.revision, parts.revisionID);
        EXPECT_EQ(id.subSysID, (parts.subSystemID << 16) | parts.subVendorID);
        EXPECT_EQ(id.vendorID, cpu ? 0u : 0x10DEu);  // NVIDIA's PCI vendor id for the CUDA adapters
        EXPECT_NE(Property<uint64_t>(adapter, DXCoreAdapterProperty::DriverVersion), 0u);
        const auto dedicated = Property<uint64_t>(adapter, DXCoreAdapterProperty::DedicatedAdapterMemory);
        EXPECT_EQ(dedicated == 0, cpu);
        EXPECT_EQ(Property<uint64_t>(adapter, DXCoreAdapterProperty::DedicatedSystemMemory), 0u);
        EXPECT_EQ(Property<uint64_t>(adapter, DXCoreAdapterProperty::SharedSystemMemory), PhysicalBytes());
        EXPECT_EQ(Property<bool>(adapter, DXCoreAdapterProperty::IsIntegrated), cpu);
        const LUID luid = Property<LUID>(adapter, DXCoreAdapterProperty::InstanceLuid);
        ID3D12Device* device = DeviceOn(adapter);
        ASSERT_NE(device, nullptr);
        const LUID deviceLuid = device->GetAdapterLuid();
        EXPECT_EQ(std::memcmp(&luid, &deviceLuid, sizeof(LUID)), 0);
        EXPECT_EQ(device->Release(), 0u);
        adapter->Release();
    }
}

// AdapterMemoryBudget on the CPU adapter: its local segment is the host's memory, measured for this
// process; a UMA adapter has no non-local segment.
TEST_F(DXCore, CpuMemoryBudgetIsTheHostMemory) {
    IDXCoreAdapter* cpu = nullptr;
    for (IDXCoreAdapter* adapter : AllAdapters(factory_)) {
        if (Description(adapter) == "FreeDML CPU") {
            cpu = adapter;
        } else {
            adapter->Release();
        }
    }
    ASSERT_NE(cpu, nullptr);
    EXPECT_TRUE(cpu->IsQueryStateSupported(DXCoreAdapterState::AdapterMemoryBudget));
    EXPECT_FALSE(cpu->IsSetStateSupported(DXCoreAdapterState::AdapterMemoryBudget));

    const DXCoreAdapterMemoryBudget before = Budget(cpu, DXCoreSegmentGroup::Local);
    const uint64_t resident = ResidentBytes();
    EXPECT_NEAR(double(before.currentUsage), double(resident), double(16 * kMiB));
    EXPECT_GE(before.budget, before.currentUsage);
    EXPECT_LE(before.budget, PhysicalBytes());
    EXPECT_EQ(before.availableForReservation, 0u);
    EXPECT_EQ(before.currentReservation, 0u);
    const DXCoreAdapterMemoryBudget nonLocal = Budget(cpu, DXCoreSegmentGroup::NonLocal);
    EXPECT_EQ(nonLocal.budget, 0u);
    EXPECT_EQ(nonLocal.currentUsage, 0u);

    // 64 MiB written through a mapped UPLOAD buffer become this process's usage.
    ID3D12Device* device = DeviceOn(cpu);
    ASSERT_NE(device, nullptr);
    ID3D12Resource* buffer = CreateBuffer(device, D3D12_HEAP_TYPE_UPLOAD, 64 * kMiB);
    ASSERT_NE(buffer, nullptr);
    void* bytes = nullptr;
    ASSERT_EQ(buffer->Map(0, nullptr, &bytes), S_OK);
    std::memset(bytes, 1, 64 * kMiB);
    const DXCoreAdapterMemoryBudget after = Budget(cpu, DXCoreSegmentGroup::Local);
    EXPECT_GE(after.currentUsage, before.currentUsage + 60 * kMiB);
    buffer->Release();
    EXPECT_EQ(device->Release(), 0u);
    cpu->Release();
}

// AdapterMemoryBudget on each CUDA adapter (none here without a GPU): local is device memory,
// non-local the pinned host memory of UPLOAD and READBACK heaps, both counted for this process.
TEST_F(DXCore, CudaMemoryBudgetCountsThisProcess) {
    int checked = 0;
    for (IDXCoreAdapter* adapter : AllAdapters(factory_)) {
        if (Description(adapter) == "FreeDML CPU") {
            adapter->Release();
            continue;
        }
        SCOPED_TRACE(Description(adapter));
        const auto dedicated = Property<uint64_t>(adapter, DXCoreAdapterProperty::DedicatedAdapterMemory);
        ID3D12Device* device = DeviceOn(adapter);
        ASSERT_NE(device, nullptr);
        const DXCoreAdapterMemoryBudget local = Budget(adapter, DXCoreSegmentGroup::Local);
        const DXCoreAdapterMemoryBudget host = Budget(adapter, DXCoreSegmentGroup::NonLocal);
        EXPECT_GT(local.budget, 0u);
        EXPECT_LE(local.budget, dedicated);
        EXPECT_LE(host.budget, PhysicalBytes());
        ID3D12Resource* onDevice = CreateBuffer(device, D3D12_HEAP_TYPE_DEFAULT, 64 * kMiB);
        ID3D12Resource* pinned = CreateBuffer(device, D3D12_HEAP_TYPE_UPLOAD, 32 * kMiB);
        ASSERT_NE(onDevice, nullptr);
        ASSERT_NE(pinned, nullptr);
        const DXCoreAdapterMemoryBudget localAfter = Budget(adapter, DXCoreSegmentGroup::Local);
        const DXCoreAdapterMemoryBudget hostAfter = Budget(adapter, DXCoreSegmentGroup::NonLocal);
        EXPECT_GE(localAfter.currentUsage - local.currentUsage, 64 * kMiB);
        EXPECT_LT(localAfter.currentUsage - local.currentUsage, 65 * kMiB);
        EXPECT_GE(hostAfter.currentUsage - host.currentUsage, 32 * kMiB);
        EXPECT_LT(hostAfter.currentUsage - host.currentUsage, 33 * kMiB);
        onDevice->Release();
        pinned->Release();
        EXPECT_EQ(Budget(adapter, DXCoreSegmentGroup::Local).currentUsage, local.currentUsage);
        EXPECT_EQ(Budget(adapter, DXCoreSegmentGroup::NonLocal).currentUsage, host.currentUsage);
        EXPECT_EQ(device->Release(), 0u);
        adapter->Release();
        ++checked;
    }
    if (checked == 0) GTEST_SKIP() << "no CUDA adapter on this machine";
}

// The documented failures of QueryState; a failed query writes nothing.
TEST_F(DXCore, QueryStateRejectsBadArguments) {
    std::vector<IDXCoreAdapter*> adapters = AllAdapters(factory_);
    ASSERT_FALSE(adapters.empty());
    IDXCoreAdapter* adapter = adapters.back();
    for (size_t i = 0; i + 1 < adapters.size(); ++i) adapters[i]->Release();

    DXCoreAdapterMemoryBudgetNodeSegmentGroup query{0, DXCoreSegmentGroup::Local};
    DXCoreAdapterMemoryBudget budget;
    std::memset(&budget, 0xab, sizeof(budget));
    const DXCoreAdapterMemoryBudget untouched = budget;
    auto query_state = [&](size_t inSize, const void* in, size_t outSize, void* out) {
        return adapter->QueryState(DXCoreAdapterState::AdapterMemoryBudget, inSize, in, outSize, out);
    };
    EXPECT_EQ(query_state(sizeof(query), nullptr, sizeof(budget), &budget), E_POINTER);
    EXPECT_EQ(query_state(sizeof(query), &query, sizeof(budget), nullptr), E_POINTER);
    EXPECT_EQ(query_state(sizeof(query) - 1, &query, sizeof(budget), &budget), E_INVALIDARG);
    EXPECT_EQ(query_state(sizeof(query), &query, sizeof(budget) - 8, &budget), E_INVALIDARG);
    DXCoreAdapterMemoryBudgetNodeSegmentGroup secondNode{1, DXCoreSegmentGroup::Local};
    EXPECT_EQ(query_state(sizeof(secondNode), &secondNode, sizeof(budget), &budget), E_INVALIDARG);
    DXCoreAdapterMemoryBudgetNodeSegmentGroup badGroup{0, static_cast<DXCoreSegmentGroup>(7)};
    EXPECT_EQ(query_state(sizeof(badGroup), &badGroup, sizeof(budget), &budget), E_INVALIDARG);
    EXPECT_EQ(std::memcmp(&budget, &untouched, sizeof(budget)), 0);
    EXPECT_EQ(adapter->QueryState(static_cast<DXCoreAdapterState>(99), sizeof(query), &query, sizeof(budget), &budget),
              DXGI_ERROR_INVALID_CALL);
    EXPECT_FALSE(adapter->IsQueryStateSupported(static_cast<DXCoreAdapterState>(99)));

    // The typed helper of the header passes the sizes of its arguments.
    EXPECT_EQ(adapter->QueryState(DXCoreAdapterState::AdapterMemoryBudget, &query, &budget), S_OK);
    EXPECT_GT(budget.budget, 0u);

    EXPECT_TRUE(adapter->IsQueryStateSupported(DXCoreAdapterState::IsDriverUpdateInProgress));
    uint8_t updating = 0xff;
    EXPECT_EQ(adapter->QueryState(DXCoreAdapterState::IsDriverUpdateInProgress, 0, nullptr, sizeof(updating), &updating),
              S_OK);
    EXPECT_EQ(updating, 0u);
    EXPECT_EQ(adapter->QueryState(DXCoreAdapterState::IsDriverUpdateInProgress, 0, nullptr, 0, &updating), E_INVALIDARG);
    EXPECT_EQ(adapter->QueryState(DXCoreAdapterState::IsDriverUpdateInProgress, 0, nullptr, 1, nullptr), E_POINTER);
    uint64_t reservation = 0;
    EXPECT_EQ(adapter->SetState(DXCoreAdapterState::AdapterMemoryBudget, sizeof(query), &query, sizeof(reservation),
                                &reservation),
              DXGI_ERROR_UNSUPPORTED);
    adapter->Release();
}

namespace {
void Notified(DXCoreNotificationType, IUnknown*, void* context) { ++*static_cast<int*>(context); }
}  // namespace

// RegisterEventNotification's reference page: E_POINTER for a null callback or cookie, E_INVALIDARG
// for a null object or a type the object does not raise (AdapterListStale comes from lists,
// AdapterNoLongerValid from adapters), DXGI_ERROR_INVALID_CALL for a type the system does not
// support; the cookie is nonzero on success and 0 on failure. UnregisterEventNotification refuses
// a cookie that is not registered with E_INVALIDARG. A refused type is logged once, by name.
TEST_F(DXCore, EventNotificationsFollowTheReferencePage) {
    MessageCatcher messages;
    IDXCoreAdapterList* list = List(kCoreCompute);
    ASSERT_TRUE(list);
    IDXCoreAdapter* adapter = nullptr;
    ASSERT_EQ(list->GetAdapter(0, __uuidof(IDXCoreAdapter), reinterpret_cast<void**>(&adapter)), S_OK);
    int calls = 0;
    EXPECT_TRUE(factory_->IsNotificationTypeSupported(DXCoreNotificationType::AdapterListStale));
    EXPECT_TRUE(factory_->IsNotificationTypeSupported(DXCoreNotificationType::AdapterNoLongerValid));
    EXPECT_FALSE(factory_->IsNotificationTypeSupported(DXCoreNotificationType::AdapterBudgetChange));
    EXPECT_FALSE(factory_->IsNotificationTypeSupported(static_cast<DXCoreNotificationType>(40)));

    uint32_t stale = 77, invalid = 77, cookie = 77;
    EXPECT_EQ(factory_->RegisterEventNotification(list, DXCoreNotificationType::AdapterListStale, nullptr, &calls,
                                                  &cookie),
              E_POINTER);
    EXPECT_EQ(cookie, 0u);
    EXPECT_EQ(factory_->RegisterEventNotification(list, DXCoreNotificationType::AdapterListStale, Notified, &calls,
                                                  nullptr),
              E_POINTER);
    cookie = 77;
    EXPECT_EQ(factory_->RegisterEventNotification(nullptr, DXCoreNotificationType::AdapterListStale, Notified, &calls,
                                                  &cookie),
              E_INVALIDARG);
    EXPECT_EQ(cookie, 0u);
    EXPECT_EQ(factory_->RegisterEventNotification(adapter, DXCoreNotificationType::AdapterListStale, Notified, &calls,
                                                  &cookie),
              E_INVALIDARG);
    EXPECT_EQ(factory_->RegisterEventNotification(list, DXCoreNotificationType::AdapterNoLongerValid, Notified, &calls,
                                                  &cookie),
              E_INVALIDARG);
    EXPECT_EQ(factory_->RegisterEventNotification(adapter, DXCoreNotificationType::AdapterBudgetChange, Notified,
                                                  &calls, &cookie),
              DXGI_ERROR_INVALID_CALL);
    EXPECT_EQ(factory_->RegisterEventNotification(adapter, DXCoreNotificationType::AdapterBudgetChange, Notified,
                                                  &calls, &cookie),
              DXGI_ERROR_INVALID_CALL);
    const std::string all = messages.All();
    const std::string name = "IDXCoreAdapterFactory::RegisterEventNotification(AdapterBudgetChange) is not implemented";
    ASSERT_NE(all.find(name), std::string::npos) << all;
    EXPECT_EQ(all.find(name, all.find(name) + 1), std::string::npos) << "logged more than once: " << all;

    ASSERT_EQ(factory_->RegisterEventNotification(list, DXCoreNotificationType::AdapterListStale, Notified, &calls,
                                                  &stale),
              S_OK);
    ASSERT_EQ(factory_->RegisterEventNotification(adapter, DXCoreNotificationType::AdapterNoLongerValid, Notified,
                                                  &calls, &invalid),
              S_OK);
    EXPECT_NE(stale, 0u);
    EXPECT_NE(invalid, 0u);
    EXPECT_NE(stale, invalid);
    EXPECT_FALSE(list->IsStale());  // nothing changes, so nothing is raised
    EXPECT_EQ(calls, 0);
    EXPECT_EQ(factory_->UnregisterEventNotification(stale), S_OK);
    EXPECT_EQ(factory_->UnregisterEventNotification(stale), E_INVALIDARG);  // no longer registered
    EXPECT_EQ(factory_->UnregisterEventNotification(invalid), S_OK);
    EXPECT_EQ(factory_->UnregisterEventNotification(0), E_INVALIDARG);
    adapter->Release();
    list->Release();
}
