// Device creation, interfaces, reference counts, private data, features, removal, unsupported
// methods, adapters chosen by FREEDML_ADAPTER, and concurrent creation.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <thread>

#include "d3d12/internal.h"
#include "test_util.h"

using namespace freedml_test;

namespace {

struct LevelCase {
    D3D_FEATURE_LEVEL level;
    HRESULT expected;
};

TEST(D3D12Device, CreateDeviceByFeatureLevel) {
    const LevelCase cases[] = {
        {D3D_FEATURE_LEVEL_1_0_CORE, S_OK}, {D3D_FEATURE_LEVEL_11_0, S_OK},
        {D3D_FEATURE_LEVEL_11_1, S_OK},     {D3D_FEATURE_LEVEL_12_0, S_OK},
        {D3D_FEATURE_LEVEL_12_1, S_OK},     {D3D_FEATURE_LEVEL_12_2, DXGI_ERROR_UNSUPPORTED},
        {D3D_FEATURE_LEVEL_10_0, DXGI_ERROR_UNSUPPORTED},
    };
    for (const auto& c : cases) {
        ID3D12Device* device = nullptr;
        EXPECT_EQ(D3D12CreateDevice(nullptr, c.level, __uuidof(ID3D12Device), reinterpret_cast<void**>(&device)),
                  c.expected)
            << std::hex << c.level;
        if (device) {
            EXPECT_EQ(device->Release(), 0u);
        }
        if (FAILED(c.expected)) {
            EXPECT_EQ(device, nullptr);
        }
    }
}

TEST(D3D12Device, CreateDeviceWithoutOutputReturnsSFalse) {
    EXPECT_EQ(D3D12CreateDevice(nullptr, D3D_FEATURE_LEVEL_11_0, __uuidof(ID3D12Device), nullptr), S_FALSE);
}

TEST(D3D12Device, CreateDeviceWithWrongIidFails) {
    void* object = reinterpret_cast<void*>(1);
    EXPECT_EQ(D3D12CreateDevice(nullptr, D3D_FEATURE_LEVEL_11_0, __uuidof(ID3D12Resource), &object), E_NOINTERFACE);
    EXPECT_EQ(object, nullptr);
}

TEST(D3D12Device, QueryInterfaceEveryVersion) {
    ID3D12Device* device = CreateDevice();
    const GUID iids[] = {__uuidof(IUnknown),        __uuidof(ID3D12Object),    __uuidof(ID3D12Device),
                         __uuidof(ID3D12Device1),   __uuidof(ID3D12Device2),   __uuidof(ID3D12Device3),
                         __uuidof(ID3D12Device4),   __uuidof(ID3D12Device5),   __uuidof(ID3D12Device6),
                         __uuidof(ID3D12Device7),   __uuidof(ID3D12Device8),   __uuidof(ID3D12Device9),
                         __uuidof(ID3D12InfoQueue), __uuidof(ID3D12InfoQueue1)};
    for (const GUID& iid : iids) {
        IUnknown* object = nullptr;
        ASSERT_EQ(device->QueryInterface(iid, reinterpret_cast<void**>(&object)), S_OK);
        EXPECT_EQ(RefCount(device), 2u);  // every interface shares the device's count
        object->Release();
    }
    IUnknown* object = reinterpret_cast<IUnknown*>(1);
    EXPECT_EQ(device->QueryInterface(__uuidof(ID3D12Device10), reinterpret_cast<void**>(&object)), E_NOINTERFACE);
    EXPECT_EQ(object, nullptr);
    EXPECT_EQ(device->QueryInterface(__uuidof(ID3D12Resource), reinterpret_cast<void**>(&object)), E_NOINTERFACE);
    EXPECT_EQ(device->QueryInterface(__uuidof(ID3D12Device), nullptr), E_POINTER);
    // The private interface is borrowed: no reference taken.
    ASSERT_NE(freedml::d3d12::GetDeviceInternal(device), nullptr);
    EXPECT_EQ(RefCount(device), 1u);
    EXPECT_EQ(device->Release(), 0u);
}

TEST(D3D12Device, ChildrenKeepTheDeviceAlive) {
    ID3D12Device* device = CreateDevice();
    ID3D12Resource* buffer = CreateBuffer(device, D3D12_HEAP_TYPE_DEFAULT, 256);
    ASSERT_NE(buffer, nullptr);
    EXPECT_EQ(RefCount(device), 3u);  // the application, the buffer and the buffer's implicit heap
    EXPECT_EQ(device->Release(), 2u);
    ID3D12Device* fromChild = nullptr;
    ASSERT_EQ(buffer->GetDevice(__uuidof(ID3D12Device), reinterpret_cast<void**>(&fromChild)), S_OK);
    EXPECT_EQ(fromChild->GetNodeCount(), 1u);
    EXPECT_EQ(fromChild->Release(), 2u);
    EXPECT_EQ(buffer->Release(), 0u);  // releases the device too
}

TEST(D3D12Device, PrivateDataAndNames) {
    ID3D12Device* device = CreateDevice();
    const GUID key = {0x12345678, 0x1, 0x2, {1, 2, 3, 4, 5, 6, 7, 8}};
    const uint32_t value = 0xfeedbeef;
    EXPECT_EQ(device->SetPrivateData(key, sizeof(value), &value), S_OK);
    UINT size = 0;
    EXPECT_EQ(device->GetPrivateData(key, &size, nullptr), S_OK);
    EXPECT_EQ(size, sizeof(value));
    uint32_t read = 0;
    size = 2;
    EXPECT_EQ(device->GetPrivateData(key, &size, &read), DXGI_ERROR_MORE_DATA);
    size = sizeof(read);
    EXPECT_EQ(device->GetPrivateData(key, &size, &read), S_OK);
    EXPECT_EQ(read, value);
    const GUID missing = {0x1, 0x1, 0x1, {1, 1, 1, 1, 1, 1, 1, 1}};
    EXPECT_EQ(device->GetPrivateData(missing, &size, &read), DXGI_ERROR_NOT_FOUND);

    ID3D12Resource* buffer = CreateBuffer(device, D3D12_HEAP_TYPE_DEFAULT, 64);
    EXPECT_EQ(device->SetPrivateDataInterface(key, buffer), S_OK);
    EXPECT_EQ(RefCount(buffer), 2u);
    EXPECT_EQ(device->SetPrivateDataInterface(key, nullptr), S_OK);
    EXPECT_EQ(RefCount(buffer), 1u);
    EXPECT_EQ(buffer->SetName(L"weights"), S_OK);
    auto* internal = freedml::d3d12::GetResourceInternal(buffer);
    ASSERT_NE(internal, nullptr);
    EXPECT_EQ(internal->Name(), "weights");
    EXPECT_NE(internal->Describe().find("'weights'"), std::string::npos);
    buffer->Release();
    EXPECT_EQ(device->Release(), 0u);
}

TEST(D3D12Device, CheckFeatureSupportAnswers) {
    ID3D12Device* device = CreateDevice();
    D3D12_FEATURE_DATA_D3D12_OPTIONS options{};
    ASSERT_EQ(device->CheckFeatureSupport(D3D12_FEATURE_D3D12_OPTIONS, &options, sizeof(options)), S_OK);
    EXPECT_EQ(options.ResourceBindingTier, D3D12_RESOURCE_BINDING_TIER_3);
    EXPECT_EQ(options.TiledResourcesTier, D3D12_TILED_RESOURCES_TIER_NOT_SUPPORTED);

    D3D12_FEATURE_DATA_ARCHITECTURE1 architecture{};
    ASSERT_EQ(device->CheckFeatureSupport(D3D12_FEATURE_ARCHITECTURE1, &architecture, sizeof(architecture)), S_OK);
    EXPECT_TRUE(architecture.UMA);
    EXPECT_TRUE(architecture.CacheCoherentUMA);
    architecture.NodeIndex = 1;
    EXPECT_EQ(device->CheckFeatureSupport(D3D12_FEATURE_ARCHITECTURE1, &architecture, sizeof(architecture)),
              E_INVALIDARG);

    const D3D_FEATURE_LEVEL levels[] = {D3D_FEATURE_LEVEL_11_0, D3D_FEATURE_LEVEL_12_1, D3D_FEATURE_LEVEL_12_2};
    D3D12_FEATURE_DATA_FEATURE_LEVELS featureLevels{3, levels, {}};
    ASSERT_EQ(device->CheckFeatureSupport(D3D12_FEATURE_FEATURE_LEVELS, &featureLevels, sizeof(featureLevels)), S_OK);
    EXPECT_EQ(featureLevels.MaxSupportedFeatureLevel, D3D_FEATURE_LEVEL_12_1);

    D3D12_FEATURE_DATA_SHADER_MODEL shaderModel{D3D_SHADER_MODEL_6_8};
    ASSERT_EQ(device->CheckFeatureSupport(D3D12_FEATURE_SHADER_MODEL, &shaderModel, sizeof(shaderModel)), S_OK);
    EXPECT_EQ(shaderModel.HighestShaderModel, D3D_SHADER_MODEL_6_2);

    D3D12_FEATURE_DATA_FORMAT_SUPPORT format{DXGI_FORMAT_R32_FLOAT, {}, {}};
    ASSERT_EQ(device->CheckFeatureSupport(D3D12_FEATURE_FORMAT_SUPPORT, &format, sizeof(format)), S_OK);
    EXPECT_TRUE(format.Support1 & D3D12_FORMAT_SUPPORT1_BUFFER);
    EXPECT_TRUE(format.Support2 & D3D12_FORMAT_SUPPORT2_UAV_TYPED_STORE);

    D3D12_FEATURE_DATA_GPU_VIRTUAL_ADDRESS_SUPPORT va{};
    ASSERT_EQ(device->CheckFeatureSupport(D3D12_FEATURE_GPU_VIRTUAL_ADDRESS_SUPPORT, &va, sizeof(va)), S_OK);
    EXPECT_GE(va.MaxGPUVirtualAddressBitsPerProcess, 40u);

    D3D12_FEATURE_DATA_ROOT_SIGNATURE root{D3D_ROOT_SIGNATURE_VERSION_1_1};
    EXPECT_EQ(device->CheckFeatureSupport(D3D12_FEATURE_ROOT_SIGNATURE, &root, sizeof(root)), S_OK);
    D3D12_FEATURE_DATA_COMMAND_QUEUE_PRIORITY priority{D3D12_COMMAND_LIST_TYPE_COMPUTE,
                                                       D3D12_COMMAND_QUEUE_PRIORITY_HIGH, FALSE};
    ASSERT_EQ(device->CheckFeatureSupport(D3D12_FEATURE_COMMAND_QUEUE_PRIORITY, &priority, sizeof(priority)), S_OK);
    EXPECT_TRUE(priority.PriorityForTypeIsSupported);
    D3D12_FEATURE_DATA_D3D12_OPTIONS5 options5{};
    ASSERT_EQ(device->CheckFeatureSupport(D3D12_FEATURE_D3D12_OPTIONS5, &options5, sizeof(options5)), S_OK);
    EXPECT_EQ(options5.RaytracingTier, D3D12_RAYTRACING_TIER_NOT_SUPPORTED);

    MessageCatcher messages;
    EXPECT_EQ(device->CheckFeatureSupport(D3D12_FEATURE_D3D12_OPTIONS, &options, sizeof(options) - 4), E_INVALIDARG);
    EXPECT_TRUE(messages.Contains("FeatureSupportDataSize")) << messages.All();
    EXPECT_EQ(device->CheckFeatureSupport(static_cast<D3D12_FEATURE>(9999), &options, sizeof(options)), E_INVALIDARG);
    EXPECT_EQ(device->CheckFeatureSupport(D3D12_FEATURE_D3D12_OPTIONS, nullptr, sizeof(options)), E_INVALIDARG);
    device->Release();
}

TEST(D3D12Device, AdapterLuidAndCustomHeapProperties) {
    ID3D12Device* device = CreateDevice();
    LUID first = device->GetAdapterLuid();
    ID3D12Device* second = CreateDevice();
    LUID other = second->GetAdapterLuid();
    EXPECT_EQ(first.LowPart, other.LowPart);
    EXPECT_EQ(first.HighPart, other.HighPart);
    D3D12_HEAP_PROPERTIES upload = device->GetCustomHeapProperties(0, D3D12_HEAP_TYPE_UPLOAD);
    EXPECT_EQ(upload.Type, D3D12_HEAP_TYPE_CUSTOM);
    EXPECT_EQ(upload.CPUPageProperty, D3D12_CPU_PAGE_PROPERTY_WRITE_COMBINE);
    EXPECT_EQ(upload.MemoryPoolPreference, D3D12_MEMORY_POOL_L0);
    EXPECT_EQ(device->GetCustomHeapProperties(0, D3D12_HEAP_TYPE_DEFAULT).CPUPageProperty,
              D3D12_CPU_PAGE_PROPERTY_NOT_AVAILABLE);
    EXPECT_EQ(device->MakeResident(0, nullptr), S_OK);
    EXPECT_EQ(device->SetStablePowerState(TRUE), S_OK);
    second->Release();
    device->Release();
}

TEST(D3D12Device, UnsupportedMethodsReturnNotImplOnce) {
    ID3D12Device* device = CreateDevice();
    MessageCatcher messages;
    void* object = reinterpret_cast<void*>(1);
    EXPECT_EQ(device->CreateQueryHeap(nullptr, __uuidof(ID3D12QueryHeap), &object), E_NOTIMPL);
    EXPECT_EQ(object, nullptr);
    EXPECT_TRUE(messages.Contains("ID3D12Device::CreateQueryHeap is not implemented")) << messages.All();
    messages.Clear();
    EXPECT_EQ(device->CreateQueryHeap(nullptr, __uuidof(ID3D12QueryHeap), &object), E_NOTIMPL);
    EXPECT_FALSE(messages.Contains("CreateQueryHeap")) << "reported twice";
    D3D12_RESOURCE_DESC desc = BufferDesc(256);
    EXPECT_EQ(device->CreateReservedResource(&desc, D3D12_RESOURCE_STATE_COMMON, nullptr, __uuidof(ID3D12Resource),
                                             &object),
              E_NOTIMPL);
    EXPECT_EQ(device->CreateRootSignature(0, nullptr, 0, __uuidof(ID3D12RootSignature), &object), E_NOTIMPL);
    device->Release();
}

TEST(D3D12Device, RemovalReason) {
    ID3D12Device* device = CreateDevice();
    EXPECT_EQ(device->GetDeviceRemovedReason(), S_OK);
    MessageCatcher messages;
    auto* internal = freedml::d3d12::GetDeviceInternal(device);
    ASSERT_NE(internal, nullptr);
    internal->RemoveDevice(DXGI_ERROR_DEVICE_HUNG, "the test misused a binding table");
    EXPECT_EQ(device->GetDeviceRemovedReason(), DXGI_ERROR_DEVICE_HUNG);
    EXPECT_TRUE(messages.Contains("the test misused a binding table")) << messages.All();
    internal->RemoveDevice(DXGI_ERROR_DEVICE_RESET, "a second reason");
    EXPECT_EQ(device->GetDeviceRemovedReason(), DXGI_ERROR_DEVICE_HUNG);  // the first stays
    D3D12_HEAP_PROPERTIES heap = HeapProperties(D3D12_HEAP_TYPE_DEFAULT);
    D3D12_RESOURCE_DESC desc = BufferDesc(256);
    void* resource = nullptr;
    EXPECT_EQ(device->CreateCommittedResource(&heap, D3D12_HEAP_FLAG_NONE, &desc, D3D12_RESOURCE_STATE_COMMON, nullptr,
                                              __uuidof(ID3D12Resource), &resource),
              DXGI_ERROR_DEVICE_REMOVED);
    device->Release();

    ID3D12Device5* device5 = nullptr;
    ASSERT_EQ(D3D12CreateDevice(nullptr, D3D_FEATURE_LEVEL_11_0, __uuidof(ID3D12Device5),
                                reinterpret_cast<void**>(&device5)),
              S_OK);
    device5->RemoveDevice();
    EXPECT_EQ(device5->GetDeviceRemovedReason(), DXGI_ERROR_DEVICE_REMOVED);
    device5->Release();
}

TEST(D3D12Device, AdapterEnvironmentVariable) {
    setenv("FREEDML_ADAPTER", "cpu", 1);
    ID3D12Device* device = CreateDevice();
    EXPECT_NE(device, nullptr);
    if (device) device->Release();
    MessageCatcher messages;
    setenv("FREEDML_ADAPTER", "tpu:3", 1);
    void* object = nullptr;
    EXPECT_EQ(D3D12CreateDevice(nullptr, D3D_FEATURE_LEVEL_11_0, __uuidof(ID3D12Device), &object),
              DXGI_ERROR_NOT_FOUND);
    EXPECT_EQ(object, nullptr);
    EXPECT_TRUE(messages.Contains("FREEDML_ADAPTER (tpu:3)")) << messages.All();
    unsetenv("FREEDML_ADAPTER");
}

TEST(D3D12Device, DebugInterface) {
    ID3D12Debug* debug = nullptr;
    ASSERT_EQ(D3D12GetDebugInterface(__uuidof(ID3D12Debug), reinterpret_cast<void**>(&debug)), S_OK);
    ID3D12Debug3* debug3 = nullptr;
    EXPECT_EQ(debug->QueryInterface(__uuidof(ID3D12Debug3), reinterpret_cast<void**>(&debug3)), S_OK);
    debug3->SetEnableGPUBasedValidation(TRUE);
    debug3->Release();
    EXPECT_EQ(debug->Release(), 0u);
    void* object = nullptr;
    EXPECT_EQ(D3D12GetDebugInterface(__uuidof(ID3D12Device), &object), E_NOINTERFACE);
}

TEST(D3D12Device, ConcurrentResourceCreation) {
    ID3D12Device* device = CreateDevice();
    std::vector<std::thread> threads;
    std::atomic<int> failures{0};
    for (int t = 0; t < 8; ++t) {
        threads.emplace_back([&, t] {
            for (int i = 0; i < 50; ++i) {
                D3D12_HEAP_TYPE type = (i + t) % 2 ? D3D12_HEAP_TYPE_UPLOAD : D3D12_HEAP_TYPE_DEFAULT;
                D3D12_HEAP_PROPERTIES heap = HeapProperties(type);
                D3D12_RESOURCE_DESC desc = BufferDesc(1024 + i);
                ID3D12Resource* resource = nullptr;
                HRESULT hr = device->CreateCommittedResource(
                    &heap, D3D12_HEAP_FLAG_NONE, &desc,
                    type == D3D12_HEAP_TYPE_UPLOAD ? D3D12_RESOURCE_STATE_GENERIC_READ : D3D12_RESOURCE_STATE_COMMON,
                    nullptr, __uuidof(ID3D12Resource), reinterpret_cast<void**>(&resource));
                if (FAILED(hr)) {
                    ++failures;
                    continue;
                }
                auto* internal = freedml::d3d12::GetResourceInternal(resource);
                if (freedml::d3d12::GetDeviceInternal(device)->FindResource(internal->Id()) != internal) ++failures;
                resource->Release();
            }
        });
    }
    for (auto& thread : threads) thread.join();
    EXPECT_EQ(failures.load(), 0);
    EXPECT_EQ(device->Release(), 0u);
}

}  // namespace
