// Creation methods given a null output pointer. D3D12's reference pages say a null ppvHeap or
// ppvResource enables capability testing: nothing is created and S_FALSE is returned when the
// arguments are valid (CreateDescriptorHeap, CreateHeap, CreateCommittedResource,
// CreatePlacedResource); D3D12CreateDevice and DMLCreateDevice answer the same way. DirectML's header
// marks the outputs of CreateOperator and CompileOperator optional and those of
// CreateOperatorInitializer, CreateCommandRecorder and CreateBindingTable required (E_POINTER).
#include <functional>

#include "dml_fixture.h"

namespace freedml_test {
namespace {

ULONG References(IUnknown* object) {
    object->AddRef();
    return object->Release();
}

struct Row {
    const char* method;
    HRESULT expected;  // with valid arguments and a null output pointer
    std::function<HRESULT(void** out)> call;
};

class NullOutputTest : public DmlTest {
protected:
    void SetUp() override {
        DmlTest::SetUp();
        D3D12_HEAP_DESC heapDesc{};
        heapDesc.SizeInBytes = 1 << 16;
        heapDesc.Properties.Type = D3D12_HEAP_TYPE_DEFAULT;
        ASSERT_EQ(d3d->CreateHeap(&heapDesc, IID_PPV_ARGS(&placedHeap)), S_OK);
        ASSERT_EQ(d3d->CreateCommandAllocator(D3D12_COMMAND_LIST_TYPE_COMPUTE, IID_PPV_ARGS(&freeAllocator)), S_OK);
        DML_OPERATOR_DESC opDesc{DML_OPERATOR_ELEMENT_WISE_IDENTITY, &identity};
        ASSERT_EQ(dml->CreateOperator(&opDesc, IID_PPV_ARGS(&op)), S_OK);
        ASSERT_EQ(dml->CompileOperator(op.Get(), DML_EXECUTION_FLAG_NONE, IID_PPV_ARGS(&compiled)), S_OK);
    }

    std::vector<Row> D3D12Rows() {
        static const D3D12_COMMAND_QUEUE_DESC queueDesc{D3D12_COMMAND_LIST_TYPE_COMPUTE, 0,
                                                        D3D12_COMMAND_QUEUE_FLAG_NONE, 0};
        static const D3D12_DESCRIPTOR_HEAP_DESC descriptorHeapDesc{D3D12_DESCRIPTOR_HEAP_TYPE_CBV_SRV_UAV, 8,
                                                                   D3D12_DESCRIPTOR_HEAP_FLAG_SHADER_VISIBLE, 0};
        static const D3D12_HEAP_PROPERTIES defaultHeap = CD3DX12_HEAP_PROPERTIES(D3D12_HEAP_TYPE_DEFAULT);
        static const D3D12_RESOURCE_DESC buffer = CD3DX12_RESOURCE_DESC::Buffer(256);
        static D3D12_HEAP_DESC heapDesc = [] {
            D3D12_HEAP_DESC desc{};
            desc.SizeInBytes = 1 << 16;
            desc.Properties.Type = D3D12_HEAP_TYPE_DEFAULT;
            return desc;
        }();
        ComPtr<ID3D12Device4> d3d4;
        EXPECT_EQ(d3d.As(&d3d4), S_OK);
        ID3D12Device* device = d3d.Get();
        const auto compute = D3D12_COMMAND_LIST_TYPE_COMPUTE;
        const auto common = D3D12_RESOURCE_STATE_COMMON;
        return {
            {"D3D12CreateDevice", S_FALSE,
             [](void** out) { return D3D12CreateDevice(nullptr, D3D_FEATURE_LEVEL_11_0, __uuidof(ID3D12Device), out); }},
            {"D3D12GetDebugInterface", S_FALSE,
             [](void** out) { return D3D12GetDebugInterface(__uuidof(ID3D12Debug), out); }},
            {"CreateCommandQueue", S_FALSE,
             [=](void** out) { return device->CreateCommandQueue(&queueDesc, __uuidof(ID3D12CommandQueue), out); }},
            {"CreateCommandAllocator", S_FALSE,
             [=](void** out) { return device->CreateCommandAllocator(compute, __uuidof(ID3D12CommandAllocator), out); }},
            {"CreateCommandList", S_FALSE,
             [=, a = freeAllocator.Get()](void** out) {
                 return device->CreateCommandList(0, compute, a, nullptr, __uuidof(ID3D12GraphicsCommandList), out);
             }},
            {"CreateCommandList1", S_FALSE,
             [=](void** out) {
                 return d3d4->CreateCommandList1(0, compute, D3D12_COMMAND_LIST_FLAG_NONE,
                                                 __uuidof(ID3D12GraphicsCommandList), out);
             }},
            {"CreateFence", S_FALSE,
             [=](void** out) { return device->CreateFence(0, D3D12_FENCE_FLAG_NONE, __uuidof(ID3D12Fence), out); }},
            {"CreateDescriptorHeap", S_FALSE,
             [=](void** out) {
                 return device->CreateDescriptorHeap(&descriptorHeapDesc, __uuidof(ID3D12DescriptorHeap), out);
             }},
            {"CreateHeap", S_FALSE, [=](void** out) { return device->CreateHeap(&heapDesc, __uuidof(ID3D12Heap), out); }},
            {"CreateCommittedResource", S_FALSE,
             [=](void** out) {
                 return device->CreateCommittedResource(&defaultHeap, D3D12_HEAP_FLAG_NONE, &buffer, common, nullptr,
                                                        __uuidof(ID3D12Resource), out);
             }},
            {"CreatePlacedResource", S_FALSE,
             [=, h = placedHeap.Get()](void** out) {
                 return device->CreatePlacedResource(h, 0, &buffer, common, nullptr, __uuidof(ID3D12Resource), out);
             }},
        };
    }

    std::vector<Row> DmlRows() {
        IDMLDevice* device = dml.Get();
        ID3D12Device* parent = d3d.Get();
        IDMLCompiledOperator* compiledOp = compiled.Get();
        DML_BINDING_TABLE_DESC tableDesc{compiledOp, heap->GetCPUDescriptorHandleForHeapStart(),
                                         heap->GetGPUDescriptorHandleForHeapStart(),
                                         compiledOp->GetBindingProperties().RequiredDescriptorCount};
        return {
            {"DMLCreateDevice", S_FALSE,
             [=](void** out) { return DMLCreateDevice(parent, DML_CREATE_DEVICE_FLAG_NONE, __uuidof(IDMLDevice), out); }},
            {"DMLCreateDevice1", S_FALSE,
             [=](void** out) {
                 return DMLCreateDevice1(parent, DML_CREATE_DEVICE_FLAG_NONE, DML_FEATURE_LEVEL_1_0,
                                         __uuidof(IDMLDevice), out);
             }},
            {"IDMLDevice::CreateOperator", S_FALSE,
             [=, d = &identity](void** out) {
                 DML_OPERATOR_DESC opDesc{DML_OPERATOR_ELEMENT_WISE_IDENTITY, d};
                 return device->CreateOperator(&opDesc, __uuidof(IDMLOperator), out);
             }},
            {"IDMLDevice::CompileOperator", S_FALSE,
             [=, o = op.Get()](void** out) {
                 return device->CompileOperator(o, DML_EXECUTION_FLAG_NONE, __uuidof(IDMLCompiledOperator), out);
             }},
            {"IDMLDevice::CreateOperatorInitializer", E_POINTER,
             [=](void** out) {
                 return device->CreateOperatorInitializer(1, &compiledOp, __uuidof(IDMLOperatorInitializer), out);
             }},
            {"IDMLDevice::CreateCommandRecorder", E_POINTER,
             [=](void** out) { return device->CreateCommandRecorder(__uuidof(IDMLCommandRecorder), out); }},
            {"IDMLDevice::CreateBindingTable", E_POINTER,
             [=](void** out) { return device->CreateBindingTable(&tableDesc, __uuidof(IDMLBindingTable), out); }},
        };
    }

    Tensor tensor{DML_TENSOR_DATA_TYPE_FLOAT32, {4}};
    DML_ELEMENT_WISE_IDENTITY_OPERATOR_DESC identity{&tensor.desc, &tensor.desc, nullptr};
    ComPtr<ID3D12Heap> placedHeap;
    ComPtr<ID3D12CommandAllocator> freeAllocator;
    ComPtr<IDMLOperator> op;
    ComPtr<IDMLCompiledOperator> compiled;
};

TEST_F(NullOutputTest, EveryCreationMethodAnswersANullOutputAsDocumented) {
    std::vector<Row> rows = D3D12Rows();
    for (Row& row : DmlRows()) rows.push_back(std::move(row));
    for (const Row& row : rows) {
        SCOPED_TRACE(row.method);
        // Children hold their device: a child created and leaked by the validation-only call would
        // show as a reference more.
        ULONG d3dBefore = References(d3d.Get()), dmlBefore = References(dml.Get());
        EXPECT_EQ(row.call(nullptr), row.expected) << Messages();
        EXPECT_EQ(References(d3d.Get()), d3dBefore);
        EXPECT_EQ(References(dml.Get()), dmlBefore);
        // The same arguments with an output pointer create the object.
        ComPtr<IUnknown> object;
        EXPECT_EQ(row.call(reinterpret_cast<void**>(object.GetAddressOf())), S_OK) << Messages();
        EXPECT_NE(object, nullptr);
    }
    EXPECT_FALSE(DeviceRemoved());
}

TEST_F(NullOutputTest, ANullOutputStillValidates) {
    D3D12_DESCRIPTOR_HEAP_DESC badHeap{D3D12_DESCRIPTOR_HEAP_TYPE_CBV_SRV_UAV, 0, D3D12_DESCRIPTOR_HEAP_FLAG_NONE, 0};
    ClearMessages();
    EXPECT_EQ(d3d->CreateDescriptorHeap(&badHeap, __uuidof(ID3D12DescriptorHeap), nullptr), E_INVALIDARG);
    EXPECT_NE(Messages().find("NumDescriptors"), std::string::npos) << Messages();
    EXPECT_EQ(d3d->CreateFence(0, static_cast<D3D12_FENCE_FLAGS>(0x80), __uuidof(ID3D12Fence), nullptr), E_INVALIDARG);
    EXPECT_EQ(dml->CompileOperator(op.Get(), static_cast<DML_EXECUTION_FLAGS>(0x100), __uuidof(IDMLCompiledOperator),
                                   nullptr),
              E_INVALIDARG);
    EXPECT_EQ(dml->CompileOperator(nullptr, DML_EXECUTION_FLAG_NONE, __uuidof(IDMLCompiledOperator), nullptr),
              E_INVALIDARG);
    DML_OPERATOR_DESC noDesc{DML_OPERATOR_ELEMENT_WISE_IDENTITY, nullptr};
    EXPECT_EQ(dml->CreateOperator(&noDesc, __uuidof(IDMLOperator), nullptr), E_INVALIDARG);
}

}  // namespace
}  // namespace freedml_test
