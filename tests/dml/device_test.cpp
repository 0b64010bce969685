// IDMLDevice: creation, feature support, operator creation and its validation messages, child
// objects, private data, residency, removal.
#include <cstring>
#include <string>

#include "dml_fixture.h"

namespace freedml_test {
namespace {

TEST_F(DmlTest, CreateDeviceRefusesNullAndForeignDevices) {
    ComPtr<IDMLDevice> device;
    EXPECT_EQ(DMLCreateDevice(nullptr, DML_CREATE_DEVICE_FLAG_NONE, IID_PPV_ARGS(&device)), E_INVALIDARG);
    EXPECT_EQ(device, nullptr);
    // Something that answers QueryInterface but is not a FreeDML D3D12 device: a fence.
    EXPECT_EQ(DMLCreateDevice(reinterpret_cast<ID3D12Device*>(fence.Get()), DML_CREATE_DEVICE_FLAG_NONE,
                              IID_PPV_ARGS(&device)),
              E_INVALIDARG);
    EXPECT_NE(Messages().find("DirectML: DMLCreateDevice: d3d12Device is not a FreeDML D3D12 device"),
              std::string::npos)
        << Messages();
}

TEST_F(DmlTest, CreateDeviceChecksFlagsAndFeatureLevels) {
    ComPtr<IDMLDevice> device;
    EXPECT_EQ(DMLCreateDevice(d3d.Get(), static_cast<DML_CREATE_DEVICE_FLAGS>(0x80), IID_PPV_ARGS(&device)),
              E_INVALIDARG);
    EXPECT_EQ(DMLCreateDevice1(d3d.Get(), DML_CREATE_DEVICE_FLAG_NONE, DML_FEATURE_LEVEL_6_4, IID_PPV_ARGS(&device)),
              S_OK);
    device.Reset();
    EXPECT_EQ(DMLCreateDevice1(d3d.Get(), DML_CREATE_DEVICE_FLAG_NONE, static_cast<DML_FEATURE_LEVEL>(0x7000),
                               IID_PPV_ARGS(&device)),
              DXGI_ERROR_UNSUPPORTED);
    EXPECT_NE(Messages().find("0x7000"), std::string::npos) << Messages();
    // A null output pointer asks whether the device could be created.
    EXPECT_EQ(DMLCreateDevice1(d3d.Get(), DML_CREATE_DEVICE_FLAG_NONE, DML_FEATURE_LEVEL_1_0, __uuidof(IDMLDevice),
                               nullptr),
              S_FALSE);
}

TEST_F(DmlTest, QueryInterfaceAndParentDevice) {
    ComPtr<IDMLDevice1> device1;
    EXPECT_EQ(dml.As(&device1), S_OK);
    ComPtr<IDMLObject> object;
    EXPECT_EQ(dml.As(&object), S_OK);
    ComPtr<ID3D12Device> parent;
    EXPECT_EQ(dml->GetParentDevice(IID_PPV_ARGS(&parent)), S_OK);
    EXPECT_EQ(parent.Get(), d3d.Get());
    ComPtr<IDMLDebugDevice> debug;
    EXPECT_EQ(dml.As(&debug), E_NOINTERFACE);  // only with DML_CREATE_DEVICE_FLAG_DEBUG
    ComPtr<ID3D12Resource> notAnInterface;
    EXPECT_EQ(dml.As(&notAnInterface), E_NOINTERFACE);
}

TEST_F(DmlTest, DebugDeviceMutesMessagesButStillRemoves) {
    ComPtr<IDMLDevice> device;
    ASSERT_EQ(DMLCreateDevice(d3d.Get(), DML_CREATE_DEVICE_FLAG_DEBUG, IID_PPV_ARGS(&device)), S_OK);
    ComPtr<IDMLDebugDevice> debug;
    ASSERT_EQ(device.As(&debug), S_OK);
    debug->SetMuteDebugOutput(TRUE);
    ClearMessages();
    ComPtr<IDMLOperator> op;
    DML_OPERATOR_DESC desc{DML_OPERATOR_ELEMENT_WISE_IDENTITY, nullptr};
    EXPECT_EQ(device->CreateOperator(&desc, IID_PPV_ARGS(&op)), E_INVALIDARG);
    EXPECT_EQ(Messages(), "");
    debug->SetMuteDebugOutput(FALSE);
    EXPECT_EQ(device->CreateOperator(&desc, IID_PPV_ARGS(&op)), E_INVALIDARG);
    EXPECT_NE(Messages().find("Desc is null"), std::string::npos) << Messages();
}

TEST_F(DmlTest, ChildrenKeepTheDeviceAlive) {
    ComPtr<IDMLCommandRecorder> child;
    ASSERT_EQ(dml->CreateCommandRecorder(IID_PPV_ARGS(&child)), S_OK);
    ComPtr<IDMLDevice> fromChild;
    ASSERT_EQ(child->GetDevice(IID_PPV_ARGS(&fromChild)), S_OK);
    EXPECT_EQ(fromChild.Get(), dml.Get());
    fromChild.Reset();
    recorder.Reset();
    IDMLDevice* raw = dml.Detach();
    // The device has one reference of ours and one of the child; releasing ours leaves 1.
    EXPECT_EQ(raw->Release(), 1u);
    EXPECT_EQ(child.Reset(), 0u);  // the last child goes, and the device with it
}

TEST_F(DmlTest, CheckFeatureSupportTensorDataTypes) {
    for (auto type : {DML_TENSOR_DATA_TYPE_FLOAT32, DML_TENSOR_DATA_TYPE_FLOAT16, DML_TENSOR_DATA_TYPE_INT8,
                      DML_TENSOR_DATA_TYPE_UINT64, DML_TENSOR_DATA_TYPE_FLOAT64}) {
        DML_FEATURE_QUERY_TENSOR_DATA_TYPE_SUPPORT query{type};
        DML_FEATURE_DATA_TENSOR_DATA_TYPE_SUPPORT data{};
        ASSERT_EQ(dml->CheckFeatureSupport(DML_FEATURE_TENSOR_DATA_TYPE_SUPPORT, sizeof(query), &query, sizeof(data),
                                           &data),
                  S_OK);
        EXPECT_TRUE(data.IsSupported) << type;
    }
    DML_FEATURE_QUERY_TENSOR_DATA_TYPE_SUPPORT query{DML_TENSOR_DATA_TYPE_UNKNOWN};
    DML_FEATURE_DATA_TENSOR_DATA_TYPE_SUPPORT data{TRUE};
    ASSERT_EQ(dml->CheckFeatureSupport(DML_FEATURE_TENSOR_DATA_TYPE_SUPPORT, sizeof(query), &query, sizeof(data), &data),
              S_OK);
    EXPECT_FALSE(data.IsSupported);
    EXPECT_EQ(dml->CheckFeatureSupport(DML_FEATURE_TENSOR_DATA_TYPE_SUPPORT, sizeof(query), &query, 1, &data),
              E_INVALIDARG);
    EXPECT_EQ(dml->CheckFeatureSupport(static_cast<DML_FEATURE>(42), 0, nullptr, 0, nullptr), E_INVALIDARG);
}

// Every DML_TENSOR_DATA_TYPE, answered for this device's adapter: the CPU's and the CUDA plugin's
// kernels both hold the 8- to 64-bit types and the 4-bit ones (QUANTIZE and DEQUANTIZE take
// those); UNKNOWN and values outside the enumeration are unsupported (still S_OK: the query is well formed).
TEST_F(DmlTest, CheckFeatureSupportEveryTensorDataType) {
    // The type is held as its integer: a value outside the enumeration may not be loaded as the enum.
    const struct {
        int type;
        bool supported;
    } table[] = {
        {DML_TENSOR_DATA_TYPE_UNKNOWN, false}, {DML_TENSOR_DATA_TYPE_FLOAT32, true},
        {DML_TENSOR_DATA_TYPE_FLOAT16, true},  {DML_TENSOR_DATA_TYPE_UINT32, true},
        {DML_TENSOR_DATA_TYPE_UINT16, true},   {DML_TENSOR_DATA_TYPE_UINT8, true},
        {DML_TENSOR_DATA_TYPE_INT32, true},    {DML_TENSOR_DATA_TYPE_INT16, true},
        {DML_TENSOR_DATA_TYPE_INT8, true},     {DML_TENSOR_DATA_TYPE_FLOAT64, true},
        {DML_TENSOR_DATA_TYPE_UINT64, true},   {DML_TENSOR_DATA_TYPE_INT64, true},
        {DML_TENSOR_DATA_TYPE_UINT4, true},    {DML_TENSOR_DATA_TYPE_INT4, true},
        {99, false},
    };
    for (const auto& row : table) {
        DML_FEATURE_QUERY_TENSOR_DATA_TYPE_SUPPORT query{};
        std::memcpy(&query.DataType, &row.type, sizeof(query.DataType));
        DML_FEATURE_DATA_TENSOR_DATA_TYPE_SUPPORT data{!row.supported};
        ASSERT_EQ(dml->CheckFeatureSupport(DML_FEATURE_TENSOR_DATA_TYPE_SUPPORT, sizeof(query), &query, sizeof(data),
                                           &data),
                  S_OK)
            << row.type;
        EXPECT_EQ(data.IsSupported != FALSE, row.supported) << row.type;
    }
    // Malformed queries fail with E_INVALIDARG and a message naming the feature.
    DML_FEATURE_QUERY_TENSOR_DATA_TYPE_SUPPORT query{DML_TENSOR_DATA_TYPE_FLOAT32};
    DML_FEATURE_DATA_TENSOR_DATA_TYPE_SUPPORT data{};
    EXPECT_EQ(dml->CheckFeatureSupport(DML_FEATURE_TENSOR_DATA_TYPE_SUPPORT, sizeof(query), nullptr, sizeof(data),
                                       &data),
              E_INVALIDARG);
    EXPECT_EQ(dml->CheckFeatureSupport(DML_FEATURE_TENSOR_DATA_TYPE_SUPPORT, sizeof(query), &query, sizeof(data),
                                       nullptr),
              E_INVALIDARG);
    EXPECT_EQ(dml->CheckFeatureSupport(DML_FEATURE_TENSOR_DATA_TYPE_SUPPORT, sizeof(query) + 4, &query, sizeof(data),
                                       &data),
              E_INVALIDARG);
    EXPECT_NE(Messages().find("IDMLDevice::CheckFeatureSupport: DML_FEATURE_TENSOR_DATA_TYPE_SUPPORT takes a 4-byte "
                              "query and a 4-byte result"),
              std::string::npos)
        << Messages();
    EXPECT_EQ(dml->CheckFeatureSupport(static_cast<DML_FEATURE>(2), 0, nullptr, 0, nullptr), E_INVALIDARG);
    EXPECT_NE(Messages().find("DML_FEATURE (2) is not a feature FreeDML knows"), std::string::npos) << Messages();
}

TEST_F(DmlTest, CheckFeatureSupportFeatureLevelsEdges) {
    // Every level of the header is supported; the answer is the highest one asked about.
    const DML_FEATURE_LEVEL all[] = {DML_FEATURE_LEVEL_1_0, DML_FEATURE_LEVEL_2_0, DML_FEATURE_LEVEL_2_1,
                                     DML_FEATURE_LEVEL_3_0, DML_FEATURE_LEVEL_3_1, DML_FEATURE_LEVEL_4_0,
                                     DML_FEATURE_LEVEL_4_1, DML_FEATURE_LEVEL_5_0, DML_FEATURE_LEVEL_5_1,
                                     DML_FEATURE_LEVEL_5_2, DML_FEATURE_LEVEL_6_0, DML_FEATURE_LEVEL_6_1,
                                     DML_FEATURE_LEVEL_6_2, DML_FEATURE_LEVEL_6_3, DML_FEATURE_LEVEL_6_4};
    for (UINT count = 1; count <= 15; ++count) {
        DML_FEATURE_QUERY_FEATURE_LEVELS query{count, all};
        DML_FEATURE_DATA_FEATURE_LEVELS data{};
        ASSERT_EQ(dml->CheckFeatureSupport(DML_FEATURE_FEATURE_LEVELS, sizeof(query), &query, sizeof(data), &data),
                  S_OK);
        EXPECT_EQ(data.MaxSupportedFeatureLevel, all[count - 1]);
    }
    // Asked in any order.
    const DML_FEATURE_LEVEL shuffled[] = {DML_FEATURE_LEVEL_6_1, DML_FEATURE_LEVEL_2_0, DML_FEATURE_LEVEL_6_3,
                                          DML_FEATURE_LEVEL_4_0};
    DML_FEATURE_QUERY_FEATURE_LEVELS query{4, shuffled};
    DML_FEATURE_DATA_FEATURE_LEVELS data{};
    ASSERT_EQ(dml->CheckFeatureSupport(DML_FEATURE_FEATURE_LEVELS, sizeof(query), &query, sizeof(data), &data), S_OK);
    EXPECT_EQ(data.MaxSupportedFeatureLevel, DML_FEATURE_LEVEL_6_3);
    // No levels, or a null list, is a malformed query.
    query = {0, shuffled};
    EXPECT_EQ(dml->CheckFeatureSupport(DML_FEATURE_FEATURE_LEVELS, sizeof(query), &query, sizeof(data), &data),
              E_INVALIDARG);
    query = {2, nullptr};
    EXPECT_EQ(dml->CheckFeatureSupport(DML_FEATURE_FEATURE_LEVELS, sizeof(query), &query, sizeof(data), &data),
              E_INVALIDARG);
    EXPECT_NE(Messages().find("DML_FEATURE_QUERY_FEATURE_LEVELS asks for no feature levels"), std::string::npos)
        << Messages();
    query = {4, shuffled};
    EXPECT_EQ(dml->CheckFeatureSupport(DML_FEATURE_FEATURE_LEVELS, sizeof(query), &query, 2, &data), E_INVALIDARG);
}

TEST_F(DmlTest, CheckFeatureSupportFeatureLevels) {
    DML_FEATURE_LEVEL levels[] = {DML_FEATURE_LEVEL_1_0, DML_FEATURE_LEVEL_5_0, DML_FEATURE_LEVEL_6_4,
                                  static_cast<DML_FEATURE_LEVEL>(0x7000)};
    DML_FEATURE_QUERY_FEATURE_LEVELS query{4, levels};
    DML_FEATURE_DATA_FEATURE_LEVELS data{};
    ASSERT_EQ(dml->CheckFeatureSupport(DML_FEATURE_FEATURE_LEVELS, sizeof(query), &query, sizeof(data), &data), S_OK);
    EXPECT_EQ(data.MaxSupportedFeatureLevel, DML_FEATURE_LEVEL_6_4);
    query.RequestedFeatureLevelCount = 2;
    ASSERT_EQ(dml->CheckFeatureSupport(DML_FEATURE_FEATURE_LEVELS, sizeof(query), &query, sizeof(data), &data), S_OK);
    EXPECT_EQ(data.MaxSupportedFeatureLevel, DML_FEATURE_LEVEL_5_0);
}

TEST_F(DmlTest, CreateOperatorNamesTheFieldAndRule) {
    Tensor a(DML_TENSOR_DATA_TYPE_FLOAT32, {1, 1, 2, 3});
    Tensor bad(DML_TENSOR_DATA_TYPE_FLOAT32, {1, 1, 2, 3});
    bad.buffer.TotalTensorSizeInBytes = 20;  // 24 needed
    DML_ELEMENT_WISE_ADD_OPERATOR_DESC desc{&a.desc, &bad.desc, &a.desc};
    DML_OPERATOR_DESC opDesc{DML_OPERATOR_ELEMENT_WISE_ADD, &desc};
    ComPtr<IDMLOperator> op;
    EXPECT_EQ(dml->CreateOperator(&opDesc, IID_PPV_ARGS(&op)), E_INVALIDARG);
    EXPECT_EQ(op, nullptr);
    std::string messages = Messages();
    EXPECT_NE(messages.find("IDMLDevice::CreateOperator"), std::string::npos) << messages;
    EXPECT_NE(messages.find("ELEMENT_WISE_ADD"), std::string::npos) << messages;
    EXPECT_NE(messages.find("BTensor"), std::string::npos) << messages;
    EXPECT_NE(messages.find("T2"), std::string::npos) << messages;
}

TEST_F(DmlTest, CreateOperatorKnowsEveryOperatorTypeAndRefusesOthers) {
    // Every DML_OPERATOR_TYPE of feature level 6.4 (1 to 177) is one FreeDML runs: with no desc
    // struct each is refused for that reason, by its name, never as unknown or not implemented.
    ComPtr<IDMLOperator> op;
    for (int type = 1; type <= 177; ++type) {
        ClearMessages();
        DML_OPERATOR_DESC opDesc{static_cast<DML_OPERATOR_TYPE>(type), nullptr};
        ASSERT_EQ(dml->CreateOperator(&opDesc, IID_PPV_ARGS(&op)), E_INVALIDARG) << type;
        const std::string messages = Messages();
        EXPECT_NE(messages.find("DML_OPERATOR_DESC.Desc is null for a"), std::string::npos) << type << ": " << messages;
        EXPECT_EQ(messages.find("does not implement"), std::string::npos) << type << ": " << messages;
    }
    // Values outside the enumeration: refused with the range, whatever the desc points to.
    Tensor t(DML_TENSOR_DATA_TYPE_FLOAT32, {1, 1, 2, 2});
    DML_ELEMENT_WISE_IDENTITY_OPERATOR_DESC desc{&t.desc, &t.desc, nullptr};
    for (int type : {0, 178, -1, 100000}) {
        ClearMessages();
        DML_OPERATOR_DESC unknown{static_cast<DML_OPERATOR_TYPE>(type), &desc};
        EXPECT_EQ(dml->CreateOperator(&unknown, IID_PPV_ARGS(&op)), E_INVALIDARG) << type;
        EXPECT_EQ(op, nullptr);
        const std::string expected =
            "DML_OPERATOR_DESC.Type (" + std::to_string(type) + ") is not a DirectML operator type (1..177).";
        EXPECT_NE(Messages().find(expected), std::string::npos) << Messages();
    }
    EXPECT_EQ(dml->CreateOperator(nullptr, IID_PPV_ARGS(&op)), E_INVALIDARG);
}

TEST_F(DmlTest, OperatorCopiesItsDesc) {
    // The application's desc may be freed right after CreateOperator.
    ComPtr<IDMLOperator> op;
    {
        auto tensor = std::make_unique<Tensor>(DML_TENSOR_DATA_TYPE_FLOAT32, std::vector<UINT>{4});
        auto desc = std::make_unique<DML_ELEMENT_WISE_IDENTITY_OPERATOR_DESC>(
            DML_ELEMENT_WISE_IDENTITY_OPERATOR_DESC{&tensor->desc, &tensor->desc, nullptr});
        DML_OPERATOR_DESC opDesc{DML_OPERATOR_ELEMENT_WISE_IDENTITY, desc.get()};
        ASSERT_EQ(dml->CreateOperator(&opDesc, IID_PPV_ARGS(&op)), S_OK);
        std::memset(tensor->sizes.data(), 0xff, sizeof(UINT));
    }
    ComPtr<IDMLCompiledOperator> compiled;
    ASSERT_EQ(dml->CompileOperator(op.Get(), DML_EXECUTION_FLAG_NONE, IID_PPV_ARGS(&compiled)), S_OK);
    EXPECT_EQ(compiled->GetBindingProperties().PersistentResourceSize, 0u);
}

TEST_F(DmlTest, CompileOperatorChecksItsArguments) {
    ComPtr<IDMLCompiledOperator> compiled;
    EXPECT_EQ(dml->CompileOperator(nullptr, DML_EXECUTION_FLAG_NONE, IID_PPV_ARGS(&compiled)), E_INVALIDARG);
    Tensor t(DML_TENSOR_DATA_TYPE_FLOAT32, {4});
    DML_ELEMENT_WISE_IDENTITY_OPERATOR_DESC desc{&t.desc, &t.desc, nullptr};
    DML_OPERATOR_DESC opDesc{DML_OPERATOR_ELEMENT_WISE_IDENTITY, &desc};
    ComPtr<IDMLOperator> op;
    ASSERT_EQ(dml->CreateOperator(&opDesc, IID_PPV_ARGS(&op)), S_OK);
    EXPECT_EQ(dml->CompileOperator(op.Get(), static_cast<DML_EXECUTION_FLAGS>(0x100), IID_PPV_ARGS(&compiled)),
              E_INVALIDARG);
    EXPECT_NE(Messages().find("DML_EXECUTION_FLAGS"), std::string::npos) << Messages();
    // An operator of another DirectML device.
    ComPtr<IDMLDevice> other;
    ASSERT_EQ(DMLCreateDevice(d3d.Get(), DML_CREATE_DEVICE_FLAG_NONE, IID_PPV_ARGS(&other)), S_OK);
    EXPECT_EQ(other->CompileOperator(op.Get(), DML_EXECUTION_FLAG_NONE, IID_PPV_ARGS(&compiled)), E_INVALIDARG);
}

TEST_F(DmlTest, PrivateDataAndNames) {
    const GUID key = {0x1234, 0x5678, 0x9abc, {1, 2, 3, 4, 5, 6, 7, 8}};
    int value = 42, read = 0;
    UINT size = sizeof(read);
    EXPECT_EQ(dml->SetPrivateData(key, sizeof(value), &value), S_OK);
    EXPECT_EQ(dml->GetPrivateData(key, &size, &read), S_OK);
    EXPECT_EQ(read, 42);
    EXPECT_EQ(recorder->SetName(L"recorder"), S_OK);
}

TEST_F(DmlTest, ResidencyAcceptsOwnObjectsOnly) {
    Tensor t(DML_TENSOR_DATA_TYPE_FLOAT32, {4});
    DML_ELEMENT_WISE_IDENTITY_OPERATOR_DESC desc{&t.desc, &t.desc, nullptr};
    auto compiled = Compile(DML_OPERATOR_ELEMENT_WISE_IDENTITY, &desc);
    ComPtr<IDMLPageable> pageable;
    ASSERT_EQ(compiled.As(&pageable), S_OK);
    IDMLPageable* objects[] = {pageable.Get()};
    EXPECT_EQ(dml->Evict(1, objects), S_OK);
    EXPECT_EQ(dml->MakeResident(1, objects), S_OK);
    EXPECT_EQ(dml->MakeResident(1, nullptr), E_INVALIDARG);
}

TEST_F(DmlTest, CompileGraphRefusesANullDescWithAMessage) {
    ComPtr<IDMLDevice1> device1;
    ASSERT_EQ(dml.As(&device1), S_OK);
    ComPtr<IDMLCompiledOperator> compiled;
    EXPECT_EQ(device1->CompileGraph(nullptr, DML_EXECUTION_FLAG_NONE, IID_PPV_ARGS(&compiled)), E_INVALIDARG);
    EXPECT_NE(Messages().find("IDMLDevice1::CompileGraph: desc is null"), std::string::npos) << Messages();
}

}  // namespace
}  // namespace freedml_test
