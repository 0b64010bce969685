// Every rule id of BINDING-RULES.md through the public API: for each, a test that keeps it and
// one that breaks it, named after the id. A broken rule gives DirectML's outcome (an HRESULT
// method fails with E_INVALIDARG, a void method removes the device) and a message naming the rule,
// the method, and where it applies the binding index and the resource's SetName name. Rejected
// dispatches are shown to leave every bound buffer as it was, byte for byte.
#include "binding_api_fixture.h"

namespace freedml_test {
namespace {

UINT64 Aligned(UINT64 size) { return (size + 255) / 256 * 256; }

std::vector<float> Floats(size_t count, float first = 1.0f) {
    std::vector<float> values(count);
    for (size_t i = 0; i < count; ++i) values[i] = first + float(i);
    return values;
}

// ---------------------------------------------------------------------------------------------
// S1-S4: sizes and strides (the helpers themselves: tests/tensor). Here: what the helpers compute
// is what CreateOperator and the bindings accept.

TEST_F(BindingApi, S1_S2_CalculatedSizeIsAcceptedAndBindsExactly) {
    // FLOAT16 {1,1,1,3}: 6 bytes, rounded up to 8 (S1: 2-byte elements, S2: multiple of 4).
    Tensor half(DML_TENSOR_DATA_TYPE_FLOAT16, {1, 1, 1, 3});
    ASSERT_EQ(half.Bytes(), 8u);
    DML_ELEMENT_WISE_IDENTITY_OPERATOR_DESC desc{&half.desc, &half.desc, nullptr};
    auto op = Compile(DML_OPERATOR_ELEMENT_WISE_IDENTITY, &desc);
    ASSERT_TRUE(op);
    auto persistent = Initialize(op.Get());
    auto in = Buffer(16, D3D12_HEAP_TYPE_DEFAULT, L"in"), out = Buffer(16, D3D12_HEAP_TYPE_DEFAULT, L"out");
    Upload(in.Get(), std::vector<uint16_t>{0x3C00, 0x4000, 0x4200, 0x1234});  // 1, 2, 3, padding
    DML_BUFFER_BINDING ib{in.Get(), 0, 8}, ob{out.Get(), 0, 8};               // exactly the calculated size
    Dispatch(op.Get(), {BufferBinding(&ib)}, {BufferBinding(&ob)}, persistent.Get());
    ASSERT_TRUE(Alive());
    auto values = ReadbackAs<uint16_t>(out.Get(), 3);
    EXPECT_EQ(values, (std::vector<uint16_t>{0x3C00, 0x4000, 0x4200}));
}

TEST_F(BindingApi, S1_UnknownDataTypeHasNoSizeAndIsRefused) {
    Tensor unknown(DML_TENSOR_DATA_TYPE_UNKNOWN, {1, 1, 1, 4});
    EXPECT_EQ(unknown.Bytes(), 0u);  // S1: an unknown type gives 0
    Tensor out(kF32, {1, 1, 1, 4});
    DML_ELEMENT_WISE_IDENTITY_OPERATOR_DESC desc{&unknown.desc, &out.desc, nullptr};
    DML_OPERATOR_DESC opDesc{DML_OPERATOR_ELEMENT_WISE_IDENTITY, &desc};
    ComPtr<IDMLOperator> op;
    EXPECT_EQ(dml->CreateOperator(&opDesc, IID_PPV_ARGS(&op)), E_INVALIDARG);
    EXPECT_TRUE(Said({"IDMLDevice::CreateOperator", "InputTensor"}));
}

TEST_F(BindingApi, S2_StridedSizeBelowCalculatedIsRefused) {
    // Strides {0,0,4,1} over {1,1,2,3}: (1*4 + 2*1 + 1) * 4 = 28 bytes.
    Tensor strided(kF32, {1, 1, 2, 3}, {0, 0, 4, 1});
    ASSERT_EQ(strided.Bytes(), 28u);
    Tensor out(kF32, {1, 1, 2, 3});
    DML_ELEMENT_WISE_IDENTITY_OPERATOR_DESC desc{&strided.desc, &out.desc, nullptr};
    DML_OPERATOR_DESC opDesc{DML_OPERATOR_ELEMENT_WISE_IDENTITY, &desc};
    ComPtr<IDMLOperator> op;
    EXPECT_EQ(dml->CreateOperator(&opDesc, IID_PPV_ARGS(&op)), S_OK) << Messages();
    strided.buffer.TotalTensorSizeInBytes = 24;  // the packed size: too small for the strides
    op.Reset();
    EXPECT_EQ(dml->CreateOperator(&opDesc, IID_PPV_ARGS(&op)), E_INVALIDARG);
    EXPECT_TRUE(Said({"IDMLDevice::CreateOperator", "TotalTensorSizeInBytes (24)", "28 bytes", "(T2)"}));
    EXPECT_TRUE(Alive());
}

TEST_F(BindingApi, S3_SizeBeyond32BitsIsComputedIn64Bits) {
    // 4 elements whose strides reach past 2^32 bytes: (2^30 + 1 + 1) * 4 = 2^32 + 8.
    Tensor wide(kF32, {1, 1, 2, 2}, {0, 0, 0x40000000u, 1});
    ASSERT_EQ(wide.Bytes(), (UINT64(1) << 32) + 8);
    Tensor out(kF32, {1, 1, 2, 2});
    DML_ELEMENT_WISE_IDENTITY_OPERATOR_DESC desc{&wide.desc, &out.desc, nullptr};
    DML_OPERATOR_DESC opDesc{DML_OPERATOR_ELEMENT_WISE_IDENTITY, &desc};
    ComPtr<IDMLOperator> op;
    EXPECT_EQ(dml->CreateOperator(&opDesc, IID_PPV_ARGS(&op)), S_OK) << Messages();
}

TEST_F(BindingApi, S3_SizeWrappedTo32BitsIsRefused) {
    Tensor wide(kF32, {1, 1, 2, 2}, {0, 0, 0x40000000u, 1});
    wide.buffer.TotalTensorSizeInBytes = 8;  // what a 32-bit accumulation gives
    Tensor out(kF32, {1, 1, 2, 2});
    DML_ELEMENT_WISE_IDENTITY_OPERATOR_DESC desc{&wide.desc, &out.desc, nullptr};
    DML_OPERATOR_DESC opDesc{DML_OPERATOR_ELEMENT_WISE_IDENTITY, &desc};
    ComPtr<IDMLOperator> op;
    EXPECT_EQ(dml->CreateOperator(&opDesc, IID_PPV_ARGS(&op)), E_INVALIDARG);
    EXPECT_TRUE(Said({"IDMLDevice::CreateOperator", "TotalTensorSizeInBytes (8)", "4294967304 bytes", "(T2)"}));
}

TEST_F(BindingApi, S4_BroadcastStridesFromCalculateStridesWorkOnAnInput) {
    // NHWC {1,3,2,2} with C broadcast: one 2x2 plane read for every channel.
    auto strides = freedml::CalculateStrides(freedml::TensorLayout::NHWC, {1, 3, 2, 2}, {false, true, false, false});
    Tensor in(kF32, {1, 3, 2, 2}, {strides[0], strides[1], strides[2], strides[3]});
    EXPECT_EQ(strides[1], 0u);
    EXPECT_EQ(in.Bytes(), 16u);
    Tensor out(kF32, {1, 3, 2, 2});
    DML_ELEMENT_WISE_IDENTITY_OPERATOR_DESC desc{&in.desc, &out.desc, nullptr};
    auto op = Compile(DML_OPERATOR_ELEMENT_WISE_IDENTITY, &desc);
    ASSERT_TRUE(op);
    auto persistent = Initialize(op.Get());
    auto inBuf = Buffer(16, D3D12_HEAP_TYPE_DEFAULT, L"in"), outBuf = Buffer(out.Bytes(), D3D12_HEAP_TYPE_DEFAULT, L"out");
    Upload(inBuf.Get(), std::vector<float>{1, 2, 3, 4});
    DML_BUFFER_BINDING ib{inBuf.Get(), 0, in.Bytes()}, ob{outBuf.Get(), 0, out.Bytes()};
    Dispatch(op.Get(), {BufferBinding(&ib)}, {BufferBinding(&ob)}, persistent.Get());
    ASSERT_TRUE(Alive());
    EXPECT_EQ(ReadbackAs<float>(outBuf.Get(), 12), (std::vector<float>{1, 2, 3, 4, 1, 2, 3, 4, 1, 2, 3, 4}));
}

TEST_F(BindingApi, S4_BroadcastStridesOnAnOutputAreRefused) {
    auto strides = freedml::CalculateStrides(freedml::TensorLayout::NCHW, {1, 3, 2, 2}, {false, true, false, false});
    Tensor in(kF32, {1, 3, 2, 2});
    Tensor out(kF32, {1, 3, 2, 2}, {strides[0], strides[1], strides[2], strides[3]});
    DML_ELEMENT_WISE_IDENTITY_OPERATOR_DESC desc{&in.desc, &out.desc, nullptr};
    DML_OPERATOR_DESC opDesc{DML_OPERATOR_ELEMENT_WISE_IDENTITY, &desc};
    ComPtr<IDMLOperator> op;
    EXPECT_EQ(dml->CreateOperator(&opDesc, IID_PPV_ARGS(&op)), E_INVALIDARG);
    EXPECT_TRUE(Said({"IDMLDevice::CreateOperator", "(T4)"}));
}

// ---------------------------------------------------------------------------------------------
// T1-T4: tensor descriptions, checked by CreateOperator.

HRESULT CreateIdentity(IDMLDevice* device, Tensor& in, Tensor& out) {
    DML_ELEMENT_WISE_IDENTITY_OPERATOR_DESC desc{&in.desc, &out.desc, nullptr};
    DML_OPERATOR_DESC opDesc{DML_OPERATOR_ELEMENT_WISE_IDENTITY, &desc};
    ComPtr<IDMLOperator> op;
    return device->CreateOperator(&opDesc, IID_PPV_ARGS(&op));
}

TEST_F(BindingApi, T1_RanksOneToEightAccepted) {
    Tensor one(kF32, {5});
    EXPECT_EQ(CreateIdentity(dml.Get(), one, one), S_OK) << Messages();
    Tensor eight(kF32, {1, 2, 1, 2, 1, 2, 1, 2});
    EXPECT_EQ(CreateIdentity(dml.Get(), eight, eight), S_OK) << Messages();
}

TEST_F(BindingApi, T1_RankOrSizeOutOfRangeRefused) {
    Tensor nine(kF32, {1, 1, 1, 1, 1, 1, 1, 1, 1});
    EXPECT_EQ(CreateIdentity(dml.Get(), nine, nine), E_INVALIDARG);
    EXPECT_TRUE(Said({"IDMLDevice::CreateOperator", "DimensionCount (9)", "(T1)"}));
    ClearMessages();
    Tensor zero(kF32, {1, 0, 2, 2});
    zero.buffer.TotalTensorSizeInBytes = 16;
    Tensor out(kF32, {1, 1, 2, 2});
    EXPECT_EQ(CreateIdentity(dml.Get(), zero, out), E_INVALIDARG);
    EXPECT_TRUE(Said({"IDMLDevice::CreateOperator", "Sizes[1] is 0", "(T1)"}));
}

TEST_F(BindingApi, T2_LargerTotalSizeAccepted) {
    Tensor in(kF32, {1, 1, 2, 2});
    in.buffer.TotalTensorSizeInBytes = 64;
    Tensor out(kF32, {1, 1, 2, 2});
    EXPECT_EQ(CreateIdentity(dml.Get(), in, out), S_OK) << Messages();
}

TEST_F(BindingApi, T2_SmallOrUnalignedTotalSizeRefused) {
    Tensor in(kF32, {1, 1, 2, 2});
    Tensor out(kF32, {1, 1, 2, 2});
    in.buffer.TotalTensorSizeInBytes = 12;
    EXPECT_EQ(CreateIdentity(dml.Get(), in, out), E_INVALIDARG);
    EXPECT_TRUE(Said({"IDMLDevice::CreateOperator", "TotalTensorSizeInBytes (12)", "(T2)"}));
    ClearMessages();
    in.buffer.TotalTensorSizeInBytes = 18;
    EXPECT_EQ(CreateIdentity(dml.Get(), in, out), E_INVALIDARG);
    EXPECT_TRUE(Said({"TotalTensorSizeInBytes (18) is not a multiple of 4", "(T2)"}));
}

TEST_F(BindingApi, T3_PowerOfTwoAlignmentAcceptedAndHonoredByBindings) {
    Tensor t(kF32, {1, 1, 1, 4});
    t.buffer.GuaranteedBaseOffsetAlignment = 256;
    DML_ELEMENT_WISE_IDENTITY_OPERATOR_DESC desc{&t.desc, &t.desc, nullptr};
    auto op = Compile(DML_OPERATOR_ELEMENT_WISE_IDENTITY, &desc);
    ASSERT_TRUE(op);
    auto persistent = Initialize(op.Get());
    auto buffer = Buffer(1024, D3D12_HEAP_TYPE_DEFAULT, L"aligned");
    Upload(buffer.Get(), std::vector<float>{5, 6, 7, 8}, 256);
    DML_BUFFER_BINDING ib{buffer.Get(), 256, 16}, ob{buffer.Get(), 512, 16};
    Dispatch(op.Get(), {BufferBinding(&ib)}, {BufferBinding(&ob)}, persistent.Get());
    ASSERT_TRUE(Alive());
    EXPECT_EQ(ReadbackAs<float>(buffer.Get(), 4, 512), (std::vector<float>{5, 6, 7, 8}));
}

TEST_F(BindingApi, T3_BadAlignmentRefused) {
    Tensor in(kF32, {1, 1, 1, 4});
    Tensor out(kF32, {1, 1, 1, 4});
    in.buffer.GuaranteedBaseOffsetAlignment = 24;
    EXPECT_EQ(CreateIdentity(dml.Get(), in, out), E_INVALIDARG);
    EXPECT_TRUE(Said({"IDMLDevice::CreateOperator", "GuaranteedBaseOffsetAlignment", "(T3)"}));
    ClearMessages();
    in.buffer.GuaranteedBaseOffsetAlignment = 2;  // a power of two, but below the 4-byte element
    EXPECT_EQ(CreateIdentity(dml.Get(), in, out), E_INVALIDARG);
    EXPECT_TRUE(Said({"(T3)"}));
}

TEST_F(BindingApi, T4_BroadcastInputAccepted) {
    Tensor in(kF32, {1, 1, 2, 2}, {0, 0, 0, 1});
    Tensor out(kF32, {1, 1, 2, 2});
    EXPECT_EQ(CreateIdentity(dml.Get(), in, out), S_OK) << Messages();
}

TEST_F(BindingApi, T4_OutputSharingMemoryRefused) {
    Tensor in(kF32, {1, 1, 2, 2});
    Tensor out(kF32, {1, 1, 2, 2}, {0, 0, 1, 1});  // (0,1) and (1,0) land on one element
    EXPECT_EQ(CreateIdentity(dml.Get(), in, out), E_INVALIDARG);
    EXPECT_TRUE(Said({"IDMLDevice::CreateOperator", "(T4)"}));
}

// ---------------------------------------------------------------------------------------------
// BT1-BT3: binding tables

DML_BINDING_TABLE_DESC TableDesc(ID3D12DescriptorHeap* heap, UINT first, UINT size, IDMLDispatchable* dispatchable,
                                 UINT increment) {
    return {dispatchable, CD3DX12_CPU_DESCRIPTOR_HANDLE(heap->GetCPUDescriptorHandleForHeapStart(), INT(first), increment),
            CD3DX12_GPU_DESCRIPTOR_HANDLE(heap->GetGPUDescriptorHandleForHeapStart(), INT(first), increment), size};
}

TEST_F(BindingApi, BT1_RequiredDescriptorsInAShaderVisibleHeap) {
    auto op = Identity();
    ASSERT_TRUE(op);
    const UINT required = op->GetBindingProperties().RequiredDescriptorCount;
    EXPECT_GE(required, 2u);
    auto desc = TableDesc(heap.Get(), 10, required, op.Get(), descriptorSize);
    ComPtr<IDMLBindingTable> table;
    EXPECT_EQ(dml->CreateBindingTable(&desc, IID_PPV_ARGS(&table)), S_OK) << Messages();
    // A null desc makes an empty table; Reset gives it a dispatchable later.
    ComPtr<IDMLBindingTable> empty;
    EXPECT_EQ(dml->CreateBindingTable(nullptr, IID_PPV_ARGS(&empty)), S_OK) << Messages();
    EXPECT_EQ(empty->Reset(&desc), S_OK) << Messages();
    EXPECT_EQ(empty->Reset(nullptr), S_OK);
    EXPECT_TRUE(Alive());
}

TEST_F(BindingApi, BT1_TooFewDescriptorsOrWrongHeapRefused) {
    auto op = Identity();
    ASSERT_TRUE(op);
    const UINT required = op->GetBindingProperties().RequiredDescriptorCount;
    auto desc = TableDesc(heap.Get(), 0, required - 1, op.Get(), descriptorSize);
    ComPtr<IDMLBindingTable> table;
    EXPECT_EQ(dml->CreateBindingTable(&desc, IID_PPV_ARGS(&table)), E_INVALIDARG);
    EXPECT_EQ(table, nullptr);
    EXPECT_TRUE(Said({"IDMLDevice::CreateBindingTable", "SizeInDescriptors (3)", "BT1)"}));
    ClearMessages();
    // Past the end of the heap.
    desc = TableDesc(heap.Get(), kHeapSize - 1, required, op.Get(), descriptorSize);
    EXPECT_EQ(dml->CreateBindingTable(&desc, IID_PPV_ARGS(&table)), E_INVALIDARG);
    EXPECT_TRUE(Said({"IDMLDevice::CreateBindingTable", "runs past the end", "(BT1)"}));
    ClearMessages();
    // A GPU handle that addresses other descriptors than the CPU handle.
    desc = TableDesc(heap.Get(), 0, required, op.Get(), descriptorSize);
    desc.GPUDescriptorHandle.ptr += descriptorSize;
    EXPECT_EQ(dml->CreateBindingTable(&desc, IID_PPV_ARGS(&table)), E_INVALIDARG);
    EXPECT_TRUE(Said({"IDMLDevice::CreateBindingTable", "(BT1)"}));
    ClearMessages();
    // Reset checks the same way.
    ASSERT_EQ(dml->CreateBindingTable(nullptr, IID_PPV_ARGS(&table)), S_OK);
    desc = TableDesc(heap.Get(), 0, required - 1, op.Get(), descriptorSize);
    EXPECT_EQ(table->Reset(&desc), E_INVALIDARG);
    EXPECT_TRUE(Said({"IDMLBindingTable::Reset", "BT1)"}));
    EXPECT_TRUE(Alive());  // HRESULT methods do not remove the device
}

TEST_F(BindingApi, BT1_BindingAnEmptyTableRemovesDevice) {
    ComPtr<IDMLBindingTable> table;
    ASSERT_EQ(dml->CreateBindingTable(nullptr, IID_PPV_ARGS(&table)), S_OK);
    table->BindInputs(0, nullptr);
    EXPECT_TRUE(Removed());
    EXPECT_TRUE(Said({"IDMLBindingTable::BindInputs", "null DML_BINDING_TABLE_DESC", "(BT1)"}));
}

TEST_F(BindingApi, BT2_TableHoldsTheDispatchableButNotTheResources) {
    auto op = Identity(4);
    ASSERT_TRUE(op);
    auto persistent = Initialize(op.Get());
    auto in = Buffer(16, D3D12_HEAP_TYPE_DEFAULT, L"in"), out = Buffer(16, D3D12_HEAP_TYPE_DEFAULT, L"out");
    Upload(in.Get(), std::vector<float>{1, 2, 3, 4});
    auto table = Table(op.Get());
    auto references = [](IUnknown* object) {
        object->AddRef();
        return object->Release();
    };
    const ULONG inBefore = references(in.Get()), opBefore = references(op.Get());
    DML_BUFFER_BINDING ib{in.Get(), 0, 16}, ob{out.Get(), 0, 16};
    DML_BINDING_DESC input = BufferBinding(&ib), output = BufferBinding(&ob);
    table->BindInputs(1, &input);
    table->BindOutputs(1, &output);
    EXPECT_EQ(references(in.Get()), inBefore);  // no reference to the resource
    // The table keeps the operator alive when the application lets go of it.
    IDMLCompiledOperator* raw = op.Detach();
    EXPECT_EQ(raw->Release(), opBefore - 1);
    EXPECT_GE(opBefore - 1, 1u);
    Record(raw, table.Get());
    ExecuteAndWait();
    ASSERT_TRUE(Alive());
    EXPECT_EQ(ReadbackAs<float>(out.Get(), 4), (std::vector<float>{1, 2, 3, 4}));
}

TEST_F(BindingApi, BT2_ResetDropsEveryBinding) {
    auto op = Identity(4);
    ASSERT_TRUE(op);
    auto persistent = Initialize(op.Get());
    auto in = Filled(16, L"in"), out = Filled(16, L"out");
    auto table = Table(op.Get());
    DML_BUFFER_BINDING ib{in.Get(), 0, 16}, ob{out.Get(), 0, 16};
    DML_BINDING_DESC input = BufferBinding(&ib), output = BufferBinding(&ob);
    table->BindInputs(1, &input);
    table->BindOutputs(1, &output);
    auto desc = TableDesc(heap.Get(), 0, op->GetBindingProperties().RequiredDescriptorCount, op.Get(), descriptorSize);
    ASSERT_EQ(table->Reset(&desc), S_OK);
    Record(op.Get(), table.Get());  // nothing bound any more
    EXPECT_TRUE(Removed());
    EXPECT_TRUE(Said({"IDMLCommandRecorder::RecordDispatch", "inputs[0]", "is not bound", "(D2)"}));
    Submit();
    EXPECT_TRUE(Unchanged());
}

TEST_F(BindingApi, BT2_ResourceReleasedAfterRecordingRemovesDeviceAtExecution) {
    auto op = Identity(4);
    ASSERT_TRUE(op);
    auto persistent = Initialize(op.Get());
    auto in = Filled(16, L"doomed"), out = Filled(16, L"out");
    auto table = Table(op.Get());
    DML_BUFFER_BINDING ib{in.Get(), 0, 16}, ob{out.Get(), 0, 16};
    DML_BINDING_DESC input = BufferBinding(&ib), output = BufferBinding(&ob);
    table->BindInputs(1, &input);
    table->BindOutputs(1, &output);
    Record(op.Get(), table.Get());
    ASSERT_TRUE(Alive());
    // The table took no reference (BT2): releasing the input frees it under the recorded dispatch.
    Forget(in.Get());
    EXPECT_EQ(in.Reset(), 0u);
    Submit();
    EXPECT_TRUE(Removed());
    EXPECT_TRUE(Said({"ExecuteCommandLists", "released", "(BT3)"}));
    EXPECT_TRUE(Unchanged());
}

// An identity of 4 floats, initialized, with a table at descriptor 0 bound to `in` -> `out` and
// recorded; BT3's tests then change the descriptors under it.
class RecordedIdentity : public BindingApi {
protected:
    void SetUp() override {
        BindingApi::SetUp();
        op = Identity(4);
        ASSERT_TRUE(op);
        persistent = Initialize(op.Get());
        in = Filled(16, L"in");
        out = Filled(16, L"out");
        table = Table(op.Get());
        DML_BUFFER_BINDING ib{in.Get(), 0, 16}, ob{out.Get(), 0, 16};
        DML_BINDING_DESC input = BufferBinding(&ib), output = BufferBinding(&ob);
        table->BindInputs(1, &input);
        table->BindOutputs(1, &output);
        ASSERT_TRUE(Alive());
    }
    // Records the dispatch. Uploads go through the same command list and run what it holds, so
    // tests make their buffers first.
    void RecordIt() {
        Record(op.Get(), table.Get());
        ASSERT_TRUE(Alive());
    }
    D3D12_CPU_DESCRIPTOR_HANDLE Slot(UINT index) {
        return CD3DX12_CPU_DESCRIPTOR_HANDLE(heap->GetCPUDescriptorHandleForHeapStart(), INT(index), descriptorSize);
    }
    ComPtr<IDMLCompiledOperator> op;
    ComPtr<ID3D12Resource> persistent, in, out;
    ComPtr<IDMLBindingTable> table;
};

TEST_F(RecordedIdentity, BT3_RebindingTheRangeAfterRecordingChangesWhatRuns) {
    auto in2 = Buffer(16, D3D12_HEAP_TYPE_DEFAULT, L"in2"), out2 = Buffer(16, D3D12_HEAP_TYPE_DEFAULT, L"out2");
    auto values = Floats(4, 10.0f);
    Upload(in2.Get(), values);
    RecordIt();
    // A second table over the same descriptors.
    auto second = Table(op.Get());
    DML_BUFFER_BINDING ib{in2.Get(), 0, 16}, ob{out2.Get(), 0, 16};
    DML_BINDING_DESC input = BufferBinding(&ib), output = BufferBinding(&ob);
    second->BindInputs(1, &input);
    second->BindOutputs(1, &output);
    Submit();
    ASSERT_TRUE(Alive());
    EXPECT_EQ(ReadbackAs<float>(out2.Get(), 4), values);
    EXPECT_TRUE(Unchanged());  // the first table's buffers were not touched
}

TEST_F(RecordedIdentity, BT3_CopiedDescriptorIsReadAtExecution) {
    auto in2 = Buffer(16, D3D12_HEAP_TYPE_DEFAULT, L"in2");
    auto values = Floats(4, 20.0f);
    Upload(in2.Get(), values);
    // A raw UAV of in2 in a CPU-only heap, copied over the input's descriptor.
    D3D12_DESCRIPTOR_HEAP_DESC staging{D3D12_DESCRIPTOR_HEAP_TYPE_CBV_SRV_UAV, 1, D3D12_DESCRIPTOR_HEAP_FLAG_NONE, 0};
    ComPtr<ID3D12DescriptorHeap> cpuHeap;
    ASSERT_EQ(d3d->CreateDescriptorHeap(&staging, IID_PPV_ARGS(&cpuHeap)), S_OK);
    RecordIt();
    D3D12_UNORDERED_ACCESS_VIEW_DESC uav{};
    uav.Format = DXGI_FORMAT_R32_TYPELESS;
    uav.ViewDimension = D3D12_UAV_DIMENSION_BUFFER;
    uav.Buffer.NumElements = 4;
    uav.Buffer.Flags = D3D12_BUFFER_UAV_FLAG_RAW;
    d3d->CreateUnorderedAccessView(in2.Get(), nullptr, &uav, cpuHeap->GetCPUDescriptorHandleForHeapStart());
    d3d->CopyDescriptorsSimple(1, Slot(0), cpuHeap->GetCPUDescriptorHandleForHeapStart(),
                               D3D12_DESCRIPTOR_HEAP_TYPE_CBV_SRV_UAV);
    Submit();
    ASSERT_TRUE(Alive());
    EXPECT_EQ(ReadbackAs<float>(out.Get(), 4), values);
}

TEST_F(RecordedIdentity, BT3_OverwrittenWithAnotherViewRemovesDeviceAtExecution) {
    auto other = Filled(16, L"other");
    D3D12_SHADER_RESOURCE_VIEW_DESC srv{};
    srv.Format = DXGI_FORMAT_R32_TYPELESS;
    srv.ViewDimension = D3D12_SRV_DIMENSION_BUFFER;
    srv.Shader4ComponentMapping = D3D12_DEFAULT_SHADER_4_COMPONENT_MAPPING;
    srv.Buffer.NumElements = 4;
    srv.Buffer.Flags = D3D12_BUFFER_SRV_FLAG_RAW;
    RecordIt();
    d3d->CreateShaderResourceView(other.Get(), &srv, Slot(0));
    ASSERT_TRUE(Alive());
    Submit();
    EXPECT_TRUE(Removed());
    EXPECT_TRUE(Said({"ExecuteCommandLists", "not a buffer UAV", "(BT3)"}));
    EXPECT_TRUE(Unchanged());
}

TEST_F(RecordedIdentity, BT3_OverwrittenWithATooSmallViewRemovesDeviceAtExecution) {
    // The rules are checked again on what the descriptors say when the dispatch runs.
    auto small = Filled(16, L"small");
    D3D12_UNORDERED_ACCESS_VIEW_DESC uav{};
    uav.Format = DXGI_FORMAT_R32_TYPELESS;
    uav.ViewDimension = D3D12_UAV_DIMENSION_BUFFER;
    uav.Buffer.NumElements = 2;  // 8 bytes: below the tensor's 16
    uav.Buffer.Flags = D3D12_BUFFER_UAV_FLAG_RAW;
    RecordIt();
    d3d->CreateUnorderedAccessView(small.Get(), nullptr, &uav, Slot(1));  // the output's descriptor
    Submit();
    EXPECT_TRUE(Removed());
    EXPECT_TRUE(Said({"ExecuteCommandLists", "outputs[0]", "(V2)", "'small'"}));
    EXPECT_TRUE(Unchanged());
}

// A dispatch keeps what its last run validated and reuses it while its descriptors read the same
// and no resource or descriptor heap was released (dispatch.cpp). These run one closed list again
// and again, changing what lies under it between runs: every change must be seen.
class ReExecutedIdentity : public RecordedIdentity {
protected:
    // Records the dispatch into a list of its own (the fixture's list carries the uploads and
    // readbacks) and closes it.
    void RecordAndClose() {
        ASSERT_EQ(d3d->CreateCommandAllocator(D3D12_COMMAND_LIST_TYPE_COMPUTE, IID_PPV_ARGS(&runAllocator)), S_OK);
        ASSERT_EQ(d3d->CreateCommandList(0, D3D12_COMMAND_LIST_TYPE_COMPUTE, runAllocator.Get(), nullptr,
                                         IID_PPV_ARGS(&runList)),
                  S_OK);
        ID3D12DescriptorHeap* heaps[] = {heap.Get()};
        runList->SetDescriptorHeaps(1, heaps);
        recorder->RecordDispatch(runList.Get(), op.Get(), table.Get());
        ASSERT_EQ(runList->Close(), S_OK);
        ASSERT_TRUE(Alive());
    }
    void RunClosed() {
        ID3D12CommandList* lists[] = {runList.Get()};
        queue->ExecuteCommandLists(1, lists);
        queue->Signal(fence.Get(), ++fenceValue);
        fence->SetEventOnCompletion(fenceValue, nullptr);
    }
    ComPtr<ID3D12CommandAllocator> runAllocator;
    ComPtr<ID3D12GraphicsCommandList> runList;
};

TEST_F(ReExecutedIdentity, BT3_DescriptorsRewrittenBetweenRunsAreRead) {
    auto in2 = Buffer(16, D3D12_HEAP_TYPE_DEFAULT, L"in2"), out2 = Buffer(16, D3D12_HEAP_TYPE_DEFAULT, L"out2"),
         out3 = Buffer(16, D3D12_HEAP_TYPE_DEFAULT, L"out3");
    auto values = Floats(4, 30.0f);
    Upload(in2.Get(), values);
    DML_BUFFER_BINDING ib{in2.Get(), 0, 16}, ob{out2.Get(), 0, 16};
    DML_BINDING_DESC input = BufferBinding(&ib), output = BufferBinding(&ob);
    table->BindInputs(1, &input);
    table->BindOutputs(1, &output);
    RecordAndClose();
    RunClosed();
    ASSERT_TRUE(Alive());
    EXPECT_EQ(ReadbackAs<float>(out2.Get(), 4), values);
    // The same table, the same list: only the output's descriptor changes.
    ob = {out3.Get(), 0, 16};
    table->BindOutputs(1, &output);
    RunClosed();
    ASSERT_TRUE(Alive());
    EXPECT_EQ(ReadbackAs<float>(out3.Get(), 4), values);
    EXPECT_TRUE(Unchanged());
}

TEST_F(ReExecutedIdentity, BT3_DescriptorOverwrittenBetweenRunsRemovesDevice) {
    auto other = Filled(16, L"other");
    D3D12_SHADER_RESOURCE_VIEW_DESC srv{};
    srv.Format = DXGI_FORMAT_R32_TYPELESS;
    srv.ViewDimension = D3D12_SRV_DIMENSION_BUFFER;
    srv.Shader4ComponentMapping = D3D12_DEFAULT_SHADER_4_COMPONENT_MAPPING;
    srv.Buffer.NumElements = 4;
    srv.Buffer.Flags = D3D12_BUFFER_SRV_FLAG_RAW;
    RecordAndClose();
    RunClosed();
    ASSERT_TRUE(Alive());
    d3d->CreateShaderResourceView(other.Get(), &srv, Slot(0));
    RunClosed();
    EXPECT_TRUE(Removed());
    EXPECT_TRUE(Said({"ExecuteCommandLists", "not a buffer UAV", "(BT3)"}));
}

TEST_F(ReExecutedIdentity, BT3_ResourceReleasedBetweenRunsRemovesDevice) {
    RecordAndClose();
    RunClosed();
    ASSERT_TRUE(Alive());
    // The descriptors still read the same, but the input they name is gone.
    Forget(in.Get());
    EXPECT_EQ(in.Reset(), 0u);
    Forget(out.Get());  // the first run wrote it
    RunClosed();
    EXPECT_TRUE(Removed());
    EXPECT_TRUE(Said({"ExecuteCommandLists", "released", "(BT3)"}));
}

// ---------------------------------------------------------------------------------------------
// I1-I7: inputs of a compiled operator

class Inputs : public BindingApi {
protected:
    void SetUp() override {
        BindingApi::SetUp();
        add = Add(4);
        ASSERT_TRUE(add);
        table = Table(add.Get());
        a = Buffer(64, D3D12_HEAP_TYPE_DEFAULT, L"a");
        b = Buffer(64, D3D12_HEAP_TYPE_DEFAULT, L"b");
        ab = {a.Get(), 0, 16};
        bb = {b.Get(), 0, 16};
    }
    void Bind(std::vector<DML_BINDING_DESC> inputs) {
        table->BindInputs(static_cast<UINT>(inputs.size()), inputs.data());
    }
    ComPtr<IDMLCompiledOperator> add;
    ComPtr<IDMLBindingTable> table;
    ComPtr<ID3D12Resource> a, b;
    DML_BUFFER_BINDING ab{}, bb{};
};

TEST_F(Inputs, I1_ExactlyTheOperatorsInputCount) {
    Bind({BufferBinding(&ab), BufferBinding(&bb)});
    EXPECT_TRUE(Alive());
}

TEST_F(Inputs, I1_TooFewInputsRemovesDevice) {
    Bind({BufferBinding(&ab)});
    EXPECT_TRUE(Removed());
    EXPECT_TRUE(Said({"IDMLBindingTable::BindInputs", "bindingCount is 1", "2 inputs", "(I1)",
                      "compiled ELEMENT_WISE_ADD operator"}));
}

TEST_F(Inputs, I1_TooManyInputsRemovesDevice) {
    Bind({BufferBinding(&ab), BufferBinding(&bb), BufferBinding(&bb)});
    EXPECT_TRUE(Removed());
    EXPECT_TRUE(Said({"IDMLBindingTable::BindInputs", "bindingCount is 3", "(I1)"}));
}

TEST_F(BindingApi, I2_AbsentOptionalTensorTakesNone) {
    auto gemm = Gemm();
    ASSERT_TRUE(gemm);
    auto persistent = Initialize(gemm.Get());
    auto a = Buffer(kGemmA), b = Buffer(kGemmB), out = Buffer(kGemmOut);
    Upload(a.Get(), std::vector<float>{1, 2, 3, 4, 5, 6, 7, 8});
    std::vector<float> identity(16, 0.0f);
    for (int i = 0; i < 4; ++i) identity[i * 5] = 1.0f;
    Upload(b.Get(), identity);
    DML_BUFFER_BINDING abind{a.Get(), 0, kGemmA}, bbind{b.Get(), 0, kGemmB}, obind{out.Get(), 0, kGemmOut};
    Dispatch(gemm.Get(), {BufferBinding(&abind), BufferBinding(&bbind), NoBinding()}, {BufferBinding(&obind)},
             persistent.Get());
    ASSERT_TRUE(Alive());
    EXPECT_EQ(ReadbackAs<float>(out.Get(), 8), (std::vector<float>{1, 2, 3, 4, 5, 6, 7, 8}));
}

TEST_F(BindingApi, I2_BufferForAbsentOptionalTensorRemovesDevice) {
    auto gemm = Gemm();
    ASSERT_TRUE(gemm);
    auto table = Table(gemm.Get());
    auto a = Buffer(256, D3D12_HEAP_TYPE_DEFAULT, L"a");
    DML_BUFFER_BINDING abind{a.Get(), 0, kGemmA}, bbind{a.Get(), 64, kGemmB}, cbind{a.Get(), 128, kGemmOut};
    DML_BINDING_DESC inputs[] = {BufferBinding(&abind), BufferBinding(&bbind), BufferBinding(&cbind)};
    table->BindInputs(3, inputs);
    EXPECT_TRUE(Removed());
    EXPECT_TRUE(Said({"IDMLBindingTable::BindInputs", "inputs[2] (CTensor)", "DML_BINDING_TYPE_NONE", "(I2)"}));
}

TEST_F(Inputs, I3_BufferBindingForABufferTensor) {
    Bind({BufferBinding(&ab), BufferBinding(&bb)});
    EXPECT_TRUE(Alive());
}

TEST_F(Inputs, I3_BufferArrayForABufferTensorRemovesDevice) {
    DML_BUFFER_ARRAY_BINDING array{1, &bb};
    Bind({BufferBinding(&ab), {DML_BINDING_TYPE_BUFFER_ARRAY, &array}});
    EXPECT_TRUE(Removed());
    EXPECT_TRUE(Said({"IDMLBindingTable::BindInputs", "inputs[1] (BTensor)", "DML_BINDING_TYPE_BUFFER_ARRAY", "(I3)"}));
}

TEST_F(BindingApi, I4_OwnedTensorIsNoneAtExecution) {
    auto gemm = Gemm(true);
    ASSERT_TRUE(gemm);
    auto a = Buffer(kGemmA, D3D12_HEAP_TYPE_DEFAULT, L"a"), b = Buffer(kGemmB, D3D12_HEAP_TYPE_DEFAULT, L"weights");
    auto out = Buffer(kGemmOut, D3D12_HEAP_TYPE_DEFAULT, L"out");
    std::vector<float> doubling(16, 0.0f);
    for (int i = 0; i < 4; ++i) doubling[i * 5] = 2.0f;
    Upload(a.Get(), std::vector<float>{1, 2, 3, 4, 5, 6, 7, 8});
    Upload(b.Get(), doubling);
    DML_BUFFER_BINDING abind{a.Get(), 0, kGemmA}, bbind{b.Get(), 0, kGemmB}, obind{out.Get(), 0, kGemmOut};
    auto persistent = Initialize(gemm.Get(), {DML_BUFFER_BINDING{}, bbind, DML_BUFFER_BINDING{}});
    ASSERT_TRUE(persistent);
    Dispatch(gemm.Get(), {BufferBinding(&abind), NoBinding(), NoBinding()}, {BufferBinding(&obind)}, persistent.Get());
    ASSERT_TRUE(Alive());
    EXPECT_EQ(ReadbackAs<float>(out.Get(), 8), (std::vector<float>{2, 4, 6, 8, 10, 12, 14, 16}));
}

TEST_F(BindingApi, I4_OwnedTensorBoundAtExecutionRemovesDevice) {
    auto gemm = Gemm(true);
    ASSERT_TRUE(gemm);
    auto table = Table(gemm.Get());
    auto a = Buffer(kGemmA, D3D12_HEAP_TYPE_DEFAULT, L"a"), b = Buffer(kGemmB, D3D12_HEAP_TYPE_DEFAULT, L"weights");
    DML_BUFFER_BINDING abind{a.Get(), 0, kGemmA}, bbind{b.Get(), 0, kGemmB};
    DML_BINDING_DESC inputs[] = {BufferBinding(&abind), BufferBinding(&bbind), NoBinding()};
    table->BindInputs(3, inputs);
    EXPECT_TRUE(Removed());
    EXPECT_TRUE(Said({"IDMLBindingTable::BindInputs", "inputs[1] (BTensor)", "OWNED_BY_DML", "(I4)"}));
}

TEST_F(Inputs, I5_NonOwnedTensorBoundAtExecution) {
    Bind({BufferBinding(&ab), BufferBinding(&bb)});
    EXPECT_TRUE(Alive());
}

TEST_F(Inputs, I5_NonOwnedTensorLeftUnboundRemovesDevice) {
    Bind({BufferBinding(&ab), NoBinding()});
    EXPECT_TRUE(Removed());
    EXPECT_TRUE(Said({"IDMLBindingTable::BindInputs", "inputs[1] (BTensor)", "is not bound", "(I5)"}));
}

TEST_F(BindingApi, I5_NonOwnedTensorBoundAtInitializationRemovesDevice) {
    auto gemm = Gemm(true);
    ASSERT_TRUE(gemm);
    IDMLCompiledOperator* ops[] = {gemm.Get()};
    ComPtr<IDMLOperatorInitializer> initializer;
    ASSERT_EQ(dml->CreateOperatorInitializer(1, ops, IID_PPV_ARGS(&initializer)), S_OK);
    auto table = Table(initializer.Get());
    auto weights = Buffer(256, D3D12_HEAP_TYPE_DEFAULT, L"weights");
    std::vector<DML_BUFFER_BINDING> entries = {{weights.Get(), 128, kGemmA}, {weights.Get(), 0, kGemmB}, {}};
    DML_BUFFER_ARRAY_BINDING array{3, entries.data()};
    DML_BINDING_DESC input{DML_BINDING_TYPE_BUFFER_ARRAY, &array};
    table->BindInputs(1, &input);
    EXPECT_TRUE(Removed());
    EXPECT_TRUE(Said({"IDMLBindingTable::BindInputs", "inputs[0][0] (ATensor of compiled GEMM operator)", "I5)"}));
}

TEST_F(BindingApi, I6_OwnedTensorOnAnUploadHeapForTheInitializer) {
    auto gemm = Gemm(true);
    ASSERT_TRUE(gemm);
    std::vector<float> doubling(16, 0.0f);
    for (int i = 0; i < 4; ++i) doubling[i * 5] = 2.0f;
    auto upload = Buffer(kGemmB, D3D12_HEAP_TYPE_UPLOAD, L"staged weights");
    void* mapped = nullptr;
    ASSERT_EQ(upload->Map(0, nullptr, &mapped), S_OK);
    std::memcpy(mapped, doubling.data(), kGemmB);
    upload->Unmap(0, nullptr);
    DML_BUFFER_BINDING bbind{upload.Get(), 0, kGemmB};
    auto persistent = Initialize(gemm.Get(), {DML_BUFFER_BINDING{}, bbind, DML_BUFFER_BINDING{}});
    ASSERT_TRUE(Alive());
    auto a = Buffer(kGemmA), out = Buffer(kGemmOut);
    Upload(a.Get(), std::vector<float>{1, 1, 1, 1, 2, 2, 2, 2});
    DML_BUFFER_BINDING abind{a.Get(), 0, kGemmA}, obind{out.Get(), 0, kGemmOut};
    Dispatch(gemm.Get(), {BufferBinding(&abind), NoBinding(), NoBinding()}, {BufferBinding(&obind)}, persistent.Get());
    ASSERT_TRUE(Alive());
    EXPECT_EQ(ReadbackAs<float>(out.Get(), 8), (std::vector<float>{2, 2, 2, 2, 4, 4, 4, 4}));
}

TEST_F(Inputs, I6_InputOnAnUploadHeapAtExecutionRemovesDevice) {
    auto upload = Buffer(64, D3D12_HEAP_TYPE_UPLOAD, L"staging");
    DML_BUFFER_BINDING ub{upload.Get(), 0, 16};
    Bind({BufferBinding(&ab), BufferBinding(&ub)});
    EXPECT_TRUE(Removed());
    EXPECT_TRUE(Said({"IDMLBindingTable::BindInputs", "inputs[1] (BTensor)", "UPLOAD", "'staging'", "(I6)"}));
}

TEST_F(Inputs, I7_ZeroAndNullUnbindsThenRebindingWorks) {
    auto out = Buffer(16, D3D12_HEAP_TYPE_DEFAULT, L"out");
    Upload(a.Get(), std::vector<float>{1, 2, 3, 4});
    Upload(b.Get(), std::vector<float>{10, 20, 30, 40});
    auto persistent = Initialize(add.Get());
    DML_BUFFER_BINDING ob{out.Get(), 0, 16};
    DML_BINDING_DESC output = BufferBinding(&ob);
    Bind({BufferBinding(&ab), BufferBinding(&bb)});
    table->BindInputs(0, nullptr);
    EXPECT_TRUE(Alive());
    Bind({BufferBinding(&ab), BufferBinding(&bb)});
    table->BindOutputs(1, &output);
    Record(add.Get(), table.Get());
    ExecuteAndWait();
    ASSERT_TRUE(Alive());
    EXPECT_EQ(ReadbackAs<float>(out.Get(), 4), (std::vector<float>{11, 22, 33, 44}));
}

TEST_F(Inputs, I7_DispatchAfterUnbindingRemovesDevice) {
    auto out = Filled(16, L"out");
    Watch(a.Get());
    Watch(b.Get());
    DML_BUFFER_BINDING ob{out.Get(), 0, 16};
    DML_BINDING_DESC output = BufferBinding(&ob);
    Bind({BufferBinding(&ab), BufferBinding(&bb)});
    table->BindOutputs(1, &output);
    table->BindInputs(0, nullptr);
    EXPECT_TRUE(Alive());
    Record(add.Get(), table.Get());
    EXPECT_TRUE(Removed());
    EXPECT_TRUE(Said({"IDMLCommandRecorder::RecordDispatch", "inputs[0] (ATensor) is not bound", "(D2)"}));
    Submit();
    EXPECT_TRUE(Unchanged());
}

// ---------------------------------------------------------------------------------------------
// N1-N7: the operator initializer. Two targets: a GEMM whose B is OWNED_BY_DML, and an ADD.

class Initializer : public BindingApi {
protected:
    void SetUp() override {
        BindingApi::SetUp();
        gemm = Gemm(true);
        add = Add(4);
        ASSERT_TRUE(gemm && add);
        IDMLCompiledOperator* ops[] = {gemm.Get(), add.Get()};
        ASSERT_EQ(dml->CreateOperatorInitializer(2, ops, IID_PPV_ARGS(&initializer)), S_OK);
        table = Table(initializer.Get());
        weights = Buffer(kGemmB, D3D12_HEAP_TYPE_DEFAULT, L"weights");
        persistentSize = gemm->GetBindingProperties().PersistentResourceSize;
        ASSERT_GT(persistentSize, 0u);
        persistent = Buffer(persistentSize + 1024, D3D12_HEAP_TYPE_DEFAULT, L"persistent");
        gemmEntries = {DML_BUFFER_BINDING{}, {weights.Get(), 0, kGemmB}, DML_BUFFER_BINDING{}};
        gemmArray = {3, gemmEntries.data()};
        persistentBinding = {persistent.Get(), 0, persistentSize};
    }
    DML_BINDING_DESC GemmInputs() { return {DML_BINDING_TYPE_BUFFER_ARRAY, &gemmArray}; }
    DML_BINDING_DESC GemmPersistent() { return BufferBinding(&persistentBinding); }
    void BindInputs(std::vector<DML_BINDING_DESC> inputs) {
        table->BindInputs(static_cast<UINT>(inputs.size()), inputs.data());
    }
    void BindOutputs(std::vector<DML_BINDING_DESC> outputs) {
        table->BindOutputs(static_cast<UINT>(outputs.size()), outputs.data());
    }
    // Runs the initializer, then the GEMM with A = {1..8} and checks that B (doubling) made it in.
    void ExpectInitializedGemm() {
        std::vector<float> doubling(16, 0.0f);
        for (int i = 0; i < 4; ++i) doubling[i * 5] = 2.0f;
        Upload(weights.Get(), doubling);
        Record(initializer.Get(), table.Get());
        ExecuteAndWait();
        ASSERT_TRUE(Alive());
        auto a = Buffer(kGemmA), out = Buffer(kGemmOut);
        Upload(a.Get(), std::vector<float>{1, 2, 3, 4, 5, 6, 7, 8});
        DML_BUFFER_BINDING abind{a.Get(), 0, kGemmA}, obind{out.Get(), 0, kGemmOut};
        Dispatch(gemm.Get(), {BufferBinding(&abind), NoBinding(), NoBinding()}, {BufferBinding(&obind)},
                 persistent.Get());
        ASSERT_TRUE(Alive());
        EXPECT_EQ(ReadbackAs<float>(out.Get(), 8), (std::vector<float>{2, 4, 6, 8, 10, 12, 14, 16}));
    }

    ComPtr<IDMLCompiledOperator> gemm, add;
    ComPtr<IDMLOperatorInitializer> initializer;
    ComPtr<IDMLBindingTable> table;
    ComPtr<ID3D12Resource> weights, persistent;
    UINT64 persistentSize = 0;
    std::vector<DML_BUFFER_BINDING> gemmEntries;
    DML_BUFFER_ARRAY_BINDING gemmArray{};
    DML_BUFFER_BINDING persistentBinding{};
};

TEST_F(Initializer, N1_OneArrayPerTargetInOrder) {
    BindInputs({GemmInputs(), NoBinding()});
    BindOutputs({GemmPersistent(), NoBinding()});
    ExpectInitializedGemm();
}

TEST_F(Initializer, N1_TargetsOutOfOrderRemovesDevice) {
    BindInputs({NoBinding(), GemmInputs()});  // the ADD owns nothing, the GEMM needs its B
    EXPECT_TRUE(Removed());
    EXPECT_TRUE(Said({"IDMLBindingTable::BindInputs", "inputs[0] (compiled GEMM operator) binds nothing", "N4)"}));
}

TEST_F(Initializer, N1_WrongCountOrTypeRemovesDevice) {
    BindInputs({GemmInputs()});
    EXPECT_TRUE(Removed());
    EXPECT_TRUE(Said({"IDMLBindingTable::BindInputs", "bindingCount is 1", "2 target operators", "(N1)"}));
}

TEST_F(Initializer, N1_BufferInsteadOfArrayRemovesDevice) {
    DML_BUFFER_BINDING plain{weights.Get(), 0, kGemmB};
    BindInputs({BufferBinding(&plain), NoBinding()});
    EXPECT_TRUE(Removed());
    EXPECT_TRUE(Said({"IDMLBindingTable::BindInputs", "inputs[0] (compiled GEMM operator", "(N1)"}));
}

TEST_F(Initializer, N2_ArrayAsLongAsTheTargetsInputs) {
    std::vector<DML_BUFFER_BINDING> none(2);
    DML_BUFFER_ARRAY_BINDING addArray{2, none.data()};
    BindInputs({GemmInputs(), {DML_BINDING_TYPE_BUFFER_ARRAY, &addArray}});
    EXPECT_TRUE(Alive());
}

TEST_F(Initializer, N2_ShortArrayRemovesDevice) {
    gemmArray.BindingCount = 2;
    BindInputs({GemmInputs(), NoBinding()});
    EXPECT_TRUE(Removed());
    EXPECT_TRUE(Said({"IDMLBindingTable::BindInputs", "inputs[0] (compiled GEMM operator", "2 entries", "3 inputs",
                      "(N2)"}));
}

TEST_F(Initializer, N3_OwnedEntriesBoundOthersEmpty) {
    BindInputs({GemmInputs(), NoBinding()});
    EXPECT_TRUE(Alive());
}

TEST_F(Initializer, N3_OwnedEntryLeftEmptyRemovesDevice) {
    gemmEntries[1] = {};  // B, owned: must be bound
    BindInputs({GemmInputs(), NoBinding()});
    EXPECT_TRUE(Removed());
    EXPECT_TRUE(Said({"IDMLBindingTable::BindInputs", "inputs[0][1] (BTensor of compiled GEMM operator)", "N3"}));
}

TEST_F(Initializer, N4_NoOwnedTensorsMeansNoBinding) {
    // The ADD owns nothing: NONE or an empty array.
    DML_BUFFER_ARRAY_BINDING empty{0, nullptr};
    BindInputs({GemmInputs(), {DML_BINDING_TYPE_BUFFER_ARRAY, &empty}});
    EXPECT_TRUE(Alive());
    // An initializer of the ADD alone: BindInputs(0, nullptr) is a complete binding.
    IDMLCompiledOperator* ops[] = {add.Get()};
    ComPtr<IDMLOperatorInitializer> addOnly;
    ASSERT_EQ(dml->CreateOperatorInitializer(1, ops, IID_PPV_ARGS(&addOnly)), S_OK);
    auto addTable = Table(addOnly.Get(), 100);
    addTable->BindInputs(0, nullptr);
    DML_BINDING_DESC none = NoBinding();
    addTable->BindOutputs(1, &none);
    Record(addOnly.Get(), addTable.Get());
    ExecuteAndWait();
    EXPECT_TRUE(Alive());
}

TEST_F(Initializer, N4_NoBindingForATargetWithOwnedTensorsRemovesDevice) {
    BindInputs({NoBinding(), NoBinding()});
    EXPECT_TRUE(Removed());
    EXPECT_TRUE(Said({"IDMLBindingTable::BindInputs", "inputs[0] (compiled GEMM operator) binds nothing", "BTensor", "N4)"}));
}

TEST_F(Initializer, N5_PersistentResourcesAsOutputs) {
    BindInputs({GemmInputs(), NoBinding()});
    BindOutputs({GemmPersistent(), NoBinding()});
    ExpectInitializedGemm();
}

TEST_F(Initializer, N5_MissingPersistentOutputRemovesDevice) {
    BindOutputs({NoBinding(), NoBinding()});
    EXPECT_TRUE(Removed());
    EXPECT_TRUE(Said({"IDMLBindingTable::BindOutputs", "outputs[0] (compiled GEMM operator", "(N5)"}));
}

TEST_F(Initializer, N5_PersistentForATargetThatNeedsNoneRemovesDevice) {
    DML_BUFFER_BINDING extra{persistent.Get(), 0, 256};
    persistentBinding.Offset = 512;
    BindOutputs({GemmPersistent(), BufferBinding(&extra)});
    EXPECT_TRUE(Removed());
    EXPECT_TRUE(Said({"IDMLBindingTable::BindOutputs", "outputs[1] (compiled ELEMENT_WISE_ADD operator",
                      "needs no persistent resource", "(N5)"}));
}

TEST_F(Initializer, N6_InitializerNeedsNoPersistentResourceAndNoTargetsIsANoOp) {
    DML_BINDING_PROPERTIES properties = initializer->GetBindingProperties();
    EXPECT_EQ(properties.PersistentResourceSize, 0u);
    EXPECT_EQ(properties.TemporaryResourceSize, 0u);
    table->BindPersistentResource(nullptr);
    DML_BINDING_DESC none = NoBinding();
    table->BindPersistentResource(&none);
    EXPECT_TRUE(Alive());
    ComPtr<IDMLOperatorInitializer> nothing;
    ASSERT_EQ(dml->CreateOperatorInitializer(0, nullptr, IID_PPV_ARGS(&nothing)), S_OK);
    auto emptyTable = Table(nothing.Get(), 200);
    emptyTable->BindInputs(0, nullptr);
    emptyTable->BindOutputs(0, nullptr);
    Record(nothing.Get(), emptyTable.Get());
    ExecuteAndWait();
    EXPECT_TRUE(Alive());
}

TEST_F(Initializer, N6_PersistentResourceForTheInitializerRemovesDevice) {
    DML_BINDING_DESC binding = GemmPersistent();
    table->BindPersistentResource(&binding);
    EXPECT_TRUE(Removed());
    EXPECT_TRUE(Said({"IDMLBindingTable::BindPersistentResource", "BindOutputs", "(N6)"}));
}

TEST_F(BindingApi, N7_InitializedOnceThenExecutes) {
    auto op = Identity(4);
    ASSERT_TRUE(op);
    auto persistent = Initialize(op.Get());
    auto in = Buffer(16), out = Buffer(16);
    Upload(in.Get(), std::vector<float>{4, 3, 2, 1});
    DML_BUFFER_BINDING ib{in.Get(), 0, 16}, ob{out.Get(), 0, 16};
    Dispatch(op.Get(), {BufferBinding(&ib)}, {BufferBinding(&ob)}, persistent.Get());
    EXPECT_TRUE(Alive());
    EXPECT_EQ(ReadbackAs<float>(out.Get(), 4), (std::vector<float>{4, 3, 2, 1}));
    EXPECT_EQ(Messages(), "");
}

TEST_F(BindingApi, N7_ExecutingWithoutInitializingRunsNothing) {
    auto op = Identity(4);
    ASSERT_TRUE(op);
    auto in = Filled(16, L"in"), out = Filled(16, L"out");
    DML_BUFFER_BINDING ib{in.Get(), 0, 16}, ob{out.Get(), 0, 16};
    Dispatch(op.Get(), {BufferBinding(&ib)}, {BufferBinding(&ob)});
    EXPECT_TRUE(Alive());  // reported, not removed [choice]
    EXPECT_TRUE(Said({"ExecuteCommandLists", "never initialized", "(N7)", "Nothing ran"}));
    EXPECT_TRUE(Unchanged());
    EXPECT_EQ(Readback(out.Get(), 16), PatternOf(out.Get()));  // and through the queue too
}

TEST_F(BindingApi, N7_InitializingTwiceRunsNothing) {
    auto gemm = Gemm(true);
    ASSERT_TRUE(gemm);
    auto weights = Filled(kGemmB, L"weights");
    DML_BUFFER_BINDING bbind{weights.Get(), 0, kGemmB};
    auto persistent = Initialize(gemm.Get(), {DML_BUFFER_BINDING{}, bbind, DML_BUFFER_BINDING{}});
    ASSERT_TRUE(Alive());
    EXPECT_EQ(Messages(), "");
    // A second initialization into a fresh persistent resource: refused, which stays as it was.
    auto second = Filled(gemm->GetBindingProperties().PersistentResourceSize, L"second persistent");
    std::vector<DML_BUFFER_BINDING> entries = {{}, bbind, {}};
    DML_BUFFER_ARRAY_BINDING array{3, entries.data()};
    DML_BUFFER_BINDING pbind{second.Get(), 0, second->GetDesc().Width};
    InitializeWith({gemm.Get()}, {{DML_BINDING_TYPE_BUFFER_ARRAY, &array}}, {BufferBinding(&pbind)});
    EXPECT_TRUE(Alive());
    EXPECT_TRUE(Said({"ExecuteCommandLists", "already initialized", "(N7)", "Nothing ran"}));
    EXPECT_TRUE(Unchanged());
}

// ---------------------------------------------------------------------------------------------
// V1-V3: every buffer binding

TEST_F(Inputs, V1_RangeEndingAtTheEndOfTheBuffer) {
    DML_BUFFER_BINDING last{a.Get(), 48, 16};
    Bind({BufferBinding(&last), BufferBinding(&bb)});
    EXPECT_TRUE(Alive());
}

TEST_F(Inputs, V1_RangePastTheEndRemovesDevice) {
    DML_BUFFER_BINDING past{a.Get(), 48, 32};
    Bind({BufferBinding(&past), BufferBinding(&bb)});
    EXPECT_TRUE(Removed());
    EXPECT_TRUE(Said({"IDMLBindingTable::BindInputs", "inputs[0] (ATensor)", "Offset (48) + SizeInBytes (32)", "'a'",
                      "(V1)"}));
}

TEST_F(Inputs, V1_NotAResourceRemovesDevice) {
    DML_BUFFER_BINDING stranger{reinterpret_cast<ID3D12Resource*>(fence.Get()), 0, 16};
    Bind({BufferBinding(&ab), BufferBinding(&stranger)});
    EXPECT_TRUE(Removed());
    EXPECT_TRUE(Said({"IDMLBindingTable::BindInputs", "inputs[1] (BTensor)", "(V1)"}));
}

TEST_F(Inputs, V2_SizeAtLeastTheTensors) {
    DML_BUFFER_BINDING larger{a.Get(), 0, 64};
    Bind({BufferBinding(&larger), BufferBinding(&bb)});
    EXPECT_TRUE(Alive());
}

TEST_F(Inputs, V2_SizeBelowTheTensorsRemovesDevice) {
    DML_BUFFER_BINDING small{b.Get(), 0, 12};
    Bind({BufferBinding(&ab), BufferBinding(&small)});
    EXPECT_TRUE(Removed());
    EXPECT_TRUE(Said({"IDMLBindingTable::BindInputs", "inputs[1] (BTensor)", "12 bytes", "TotalTensorSizeInBytes (16)",
                      "(V2)"}));
}

TEST_F(Inputs, V3_OffsetAMultipleOf16) {
    DML_BUFFER_BINDING aligned{a.Get(), 32, 16};
    Bind({BufferBinding(&aligned), BufferBinding(&bb)});
    EXPECT_TRUE(Alive());
}

TEST_F(Inputs, V3_MisalignedOffsetRemovesDevice) {
    DML_BUFFER_BINDING misaligned{a.Get(), 8, 16};
    Bind({BufferBinding(&misaligned), BufferBinding(&bb)});
    EXPECT_TRUE(Removed());
    EXPECT_TRUE(Said({"IDMLBindingTable::BindInputs", "inputs[0] (ATensor)", "offset 8", "multiple of 16", "(V3)"}));
}

TEST_F(BindingApi, V3_GuaranteedAlignmentIsTheMultiple) {
    Tensor t(kF32, {1, 1, 1, 4});
    t.buffer.GuaranteedBaseOffsetAlignment = 256;
    DML_ELEMENT_WISE_IDENTITY_OPERATOR_DESC desc{&t.desc, &t.desc, nullptr};
    auto op = Compile(DML_OPERATOR_ELEMENT_WISE_IDENTITY, &desc);
    ASSERT_TRUE(op);
    auto table = Table(op.Get());
    auto buffer = Buffer(1024, D3D12_HEAP_TYPE_DEFAULT, L"aligned");
    DML_BUFFER_BINDING ib{buffer.Get(), 16, 16};
    DML_BINDING_DESC input = BufferBinding(&ib);
    table->BindInputs(1, &input);
    EXPECT_TRUE(Removed());
    EXPECT_TRUE(Said({"IDMLBindingTable::BindInputs", "offset 16", "multiple of 256", "(V3)"}));
}

// ---------------------------------------------------------------------------------------------
// O1-O2: outputs

TEST_F(Inputs, O1_OneBindingPerOutput) {
    DML_BUFFER_BINDING ob{a.Get(), 32, 16};
    DML_BINDING_DESC output = BufferBinding(&ob);
    table->BindOutputs(1, &output);
    EXPECT_TRUE(Alive());
}

TEST_F(Inputs, O1_WrongOutputCountRemovesDevice) {
    DML_BUFFER_BINDING ob{a.Get(), 32, 16};
    DML_BINDING_DESC outputs[] = {BufferBinding(&ob), BufferBinding(&ob)};
    table->BindOutputs(2, outputs);
    EXPECT_TRUE(Removed());
    EXPECT_TRUE(Said({"IDMLBindingTable::BindOutputs", "bindingCount is 2", "(O1)"}));
}

TEST_F(Inputs, O1_RequiredOutputLeftNoneRemovesDevice) {
    DML_BINDING_DESC output = NoBinding();
    table->BindOutputs(1, &output);
    EXPECT_TRUE(Removed());
    EXPECT_TRUE(Said({"IDMLBindingTable::BindOutputs", "outputs[0] (OutputTensor)", "(O1)"}));
}

TEST_F(Inputs, O2_OutputOnADefaultHeap) {
    DML_BUFFER_BINDING ob{b.Get(), 32, 16};
    DML_BINDING_DESC output = BufferBinding(&ob);
    table->BindOutputs(1, &output);
    EXPECT_TRUE(Alive());
}

TEST_F(Inputs, O2_OutputOnAReadbackHeapRemovesDevice) {
    auto readback = Buffer(64, D3D12_HEAP_TYPE_READBACK, L"readback");
    DML_BUFFER_BINDING ob{readback.Get(), 0, 16};
    DML_BINDING_DESC output = BufferBinding(&ob);
    table->BindOutputs(1, &output);
    EXPECT_TRUE(Removed());
    EXPECT_TRUE(Said({"IDMLBindingTable::BindOutputs", "outputs[0] (OutputTensor)", "READBACK", "'readback'", "(O2)"}));
}

// ---------------------------------------------------------------------------------------------
// P1-P2: temporary and persistent resources

// A FLOAT16 GEMM: the reference kernel runs it with a temporary resource.
class Temporary : public BindingApi {
protected:
    void SetUp() override {
        BindingApi::SetUp();
        gemm = Gemm(false, DML_TENSOR_DATA_TYPE_FLOAT16);
        ASSERT_TRUE(gemm);
        temporarySize = gemm->GetBindingProperties().TemporaryResourceSize;
        if (temporarySize == 0) GTEST_SKIP() << "the FLOAT16 GEMM kernel needs no temporary resource";
        persistent = Initialize(gemm.Get());
        table = Table(gemm.Get());
        data = Buffer(1024, D3D12_HEAP_TYPE_DEFAULT, L"data");
        // A = ones {2x4}, B = identity {4x4} in FLOAT16.
        std::vector<uint16_t> a(8, 0x3C00), b(16, 0);
        for (int i = 0; i < 4; ++i) b[i * 5] = 0x3C00;
        Upload(data.Get(), a, 0);
        Upload(data.Get(), b, 64);
        abind = {data.Get(), 0, 16};
        bbind = {data.Get(), 64, 32};
        obind = {data.Get(), 128, 16};
        DML_BINDING_DESC inputs[] = {BufferBinding(&abind), BufferBinding(&bbind), NoBinding()};
        DML_BINDING_DESC output = BufferBinding(&obind);
        table->BindInputs(3, inputs);
        table->BindOutputs(1, &output);
        ASSERT_TRUE(Alive());
    }
    ComPtr<IDMLCompiledOperator> gemm;
    ComPtr<ID3D12Resource> persistent, data;
    ComPtr<IDMLBindingTable> table;
    UINT64 temporarySize = 0;
    DML_BUFFER_BINDING abind{}, bbind{}, obind{};
};

TEST_F(Temporary, P1_TemporaryLargeEnoughAlignedOnDefault) {
    auto scratch = Buffer(256 + Aligned(temporarySize), D3D12_HEAP_TYPE_DEFAULT, L"scratch");
    DML_BUFFER_BINDING tbind{scratch.Get(), 256, temporarySize};
    DML_BINDING_DESC temporary = BufferBinding(&tbind);
    table->BindTemporaryResource(&temporary);
    Record(gemm.Get(), table.Get());
    ExecuteAndWait();
    ASSERT_TRUE(Alive());
    EXPECT_EQ(ReadbackAs<uint16_t>(data.Get(), 8, 128), std::vector<uint16_t>(8, 0x3C00));
}

TEST_F(Temporary, P1_BrokenTemporaryRemovesDevice) {
    auto scratch = Buffer(256 + Aligned(temporarySize), D3D12_HEAP_TYPE_DEFAULT, L"scratch");
    DML_BUFFER_BINDING tbind{scratch.Get(), 128, temporarySize};
    DML_BINDING_DESC temporary = BufferBinding(&tbind);
    table->BindTemporaryResource(&temporary);
    EXPECT_TRUE(Removed());
    EXPECT_TRUE(Said({"IDMLBindingTable::BindTemporaryResource", "offset 128", "multiple of 256", "'scratch'", "(P1)"}));
}

TEST_F(Temporary, P1_MissingTemporaryRemovesDeviceAtRecording) {
    Record(gemm.Get(), table.Get());
    EXPECT_TRUE(Removed());
    EXPECT_TRUE(Said({"IDMLCommandRecorder::RecordDispatch", "temporary resource", "(D2)"}));
}

TEST_F(BindingApi, P1_NullTemporaryWhenNoneIsNeeded) {
    auto op = Identity();
    ASSERT_TRUE(op);
    ASSERT_EQ(op->GetBindingProperties().TemporaryResourceSize, 0u);
    auto table = Table(op.Get());
    table->BindTemporaryResource(nullptr);
    DML_BINDING_DESC none = NoBinding();
    table->BindTemporaryResource(&none);
    EXPECT_TRUE(Alive());
}

TEST_F(BindingApi, P1_TemporaryOnAnUploadHeapRemovesDevice) {
    auto op = Identity();
    ASSERT_TRUE(op);
    auto table = Table(op.Get());
    auto upload = Buffer(1024, D3D12_HEAP_TYPE_UPLOAD, L"upload scratch");
    DML_BUFFER_BINDING tbind{upload.Get(), 0, 1024};
    DML_BINDING_DESC temporary = BufferBinding(&tbind);
    table->BindTemporaryResource(&temporary);
    EXPECT_TRUE(Removed());
    EXPECT_TRUE(Said({"IDMLBindingTable::BindTemporaryResource", "UPLOAD", "'upload scratch'", "(P1)"}));
}

class Persistent : public BindingApi {
protected:
    void SetUp() override {
        BindingApi::SetUp();
        gemm = Gemm(true);
        ASSERT_TRUE(gemm);
        persistentSize = gemm->GetBindingProperties().PersistentResourceSize;
        ASSERT_GT(persistentSize, 0u);
        table = Table(gemm.Get());
    }
    void BindPersistent(ID3D12Resource* resource, UINT64 offset, UINT64 size) {
        DML_BUFFER_BINDING binding{resource, offset, size};
        DML_BINDING_DESC desc = BufferBinding(&binding);
        table->BindPersistentResource(&desc);
    }
    ComPtr<IDMLCompiledOperator> gemm;
    ComPtr<IDMLBindingTable> table;
    UINT64 persistentSize = 0;
};

TEST_F(Persistent, P2_PersistentLargeEnoughAligned) {
    auto state = Buffer(512 + persistentSize, D3D12_HEAP_TYPE_DEFAULT, L"state");
    BindPersistent(state.Get(), 512, persistentSize);
    EXPECT_TRUE(Alive());
}

TEST_F(Persistent, P2_TooSmallPersistentRemovesDevice) {
    auto state = Buffer(512 + persistentSize, D3D12_HEAP_TYPE_DEFAULT, L"state");
    BindPersistent(state.Get(), 0, persistentSize - 4);
    EXPECT_TRUE(Removed());
    EXPECT_TRUE(Said({"IDMLBindingTable::BindPersistentResource", "'state'", "(P2)"}));
}

TEST_F(Persistent, P2_MisalignedPersistentRemovesDevice) {
    auto state = Buffer(512 + persistentSize, D3D12_HEAP_TYPE_DEFAULT, L"state");
    BindPersistent(state.Get(), 16, persistentSize);
    EXPECT_TRUE(Removed());
    EXPECT_TRUE(Said({"IDMLBindingTable::BindPersistentResource", "offset 16", "multiple of 256", "(P2)"}));
}

TEST_F(Persistent, P2_MissingPersistentRemovesDeviceAtRecording) {
    auto a = Buffer(kGemmA), out = Buffer(kGemmOut);
    DML_BUFFER_BINDING abind{a.Get(), 0, kGemmA}, obind{out.Get(), 0, kGemmOut};
    DML_BINDING_DESC inputs[] = {BufferBinding(&abind), NoBinding(), NoBinding()};
    DML_BINDING_DESC output = BufferBinding(&obind);
    table->BindInputs(3, inputs);
    table->BindOutputs(1, &output);
    Record(gemm.Get(), table.Get());
    EXPECT_TRUE(Removed());
    EXPECT_TRUE(Said({"IDMLCommandRecorder::RecordDispatch", "persistent resource", "(D2)"}));
}

// ---------------------------------------------------------------------------------------------
// H1-H7: hazards (the seed's five examples are in hazard_examples_test.cpp)

TEST_F(Initializer, H1_InputsAndPersistentOnDifferentResources) {
    BindInputs({GemmInputs(), NoBinding()});
    BindOutputs({GemmPersistent(), NoBinding()});
    ExpectInitializedGemm();
}

TEST_F(Initializer, H1_InputSharingTheOutputsResourceRemovesDevice) {
    // The weights after the persistent region, on the same buffer: disjoint, and still refused.
    gemmEntries[1] = {persistent.Get(), Aligned(persistentSize), kGemmB};
    BindInputs({GemmInputs(), NoBinding()});
    EXPECT_TRUE(Alive());
    BindOutputs({GemmPersistent(), NoBinding()});
    EXPECT_TRUE(Removed());
    EXPECT_TRUE(Said({"IDMLBindingTable::BindOutputs", "inputs[0][1] (BTensor", "outputs[0] (compiled GEMM operator",
                      "'persistent'", "(H1)"}));
}

TEST_F(Inputs, H2_InPlaceIdenticalRegionsAllowedForAdd) {
    auto out = Buffer(16);
    Upload(a.Get(), std::vector<float>{1, 2, 3, 4});
    Upload(b.Get(), std::vector<float>{10, 20, 30, 40});
    auto persistent = Initialize(add.Get());
    Bind({BufferBinding(&ab), BufferBinding(&bb)});
    DML_BINDING_DESC output = BufferBinding(&ab);
    table->BindOutputs(1, &output);
    Record(add.Get(), table.Get());
    ExecuteAndWait();
    ASSERT_TRUE(Alive());
    EXPECT_EQ(ReadbackAs<float>(a.Get(), 4), (std::vector<float>{11, 22, 33, 44}));
}

TEST_F(BindingApi, H2_OverlappingNotIdenticalRemovesDevice) {
    auto add = Add(8);  // 32-byte tensors: 16-byte aligned regions can overlap by half
    ASSERT_TRUE(add);
    auto table = Table(add.Get());
    auto shared = Buffer(128, D3D12_HEAP_TYPE_DEFAULT, L"shared"), other = Buffer(32, D3D12_HEAP_TYPE_DEFAULT, L"other");
    DML_BUFFER_BINDING ab{shared.Get(), 0, 32}, bb{other.Get(), 0, 32}, ob{shared.Get(), 16, 32};
    DML_BINDING_DESC inputs[] = {BufferBinding(&ab), BufferBinding(&bb)};
    DML_BINDING_DESC output = BufferBinding(&ob);
    table->BindInputs(2, inputs);
    table->BindOutputs(1, &output);
    EXPECT_TRUE(Removed());
    EXPECT_TRUE(Said({"IDMLBindingTable::BindOutputs", "inputs[0] (ATensor) [0, 32)", "outputs[0] (OutputTensor) [16, 48)",
                      "'shared'", "overlap without being identical", "(H2)"}));
}

TEST_F(BindingApi, H2_IdenticalRegionsForAnOperatorWithoutInPlaceRemovesDevice) {
    auto gemm = Gemm();
    ASSERT_TRUE(gemm);
    auto table = Table(gemm.Get());
    auto shared = Buffer(256, D3D12_HEAP_TYPE_DEFAULT, L"shared");
    DML_BUFFER_BINDING abind{shared.Get(), 0, kGemmA}, bbind{shared.Get(), 64, kGemmB}, obind{shared.Get(), 0, kGemmOut};
    DML_BINDING_DESC inputs[] = {BufferBinding(&abind), BufferBinding(&bbind), NoBinding()};
    DML_BINDING_DESC output = BufferBinding(&obind);
    table->BindInputs(3, inputs);
    table->BindOutputs(1, &output);
    EXPECT_TRUE(Removed());
    EXPECT_TRUE(Said({"IDMLBindingTable::BindOutputs", "inputs[0] (ATensor) [0, 32)", "outputs[0] (OutputTensor) [0, 32)",
                      "are identical", "(H2)"}));
}

TEST_F(Persistent, H3_PersistentApartFromTheOutputOnOneResource) {
    // Persistent at [0, P) and the output after it, on one buffer; the GEMM runs.
    const UINT64 outputOffset = Aligned(persistentSize);
    auto shared = Buffer(outputOffset + 256, D3D12_HEAP_TYPE_DEFAULT, L"shared");
    auto weights = Buffer(kGemmB, D3D12_HEAP_TYPE_DEFAULT, L"weights"), a = Buffer(kGemmA, D3D12_HEAP_TYPE_DEFAULT, L"a");
    std::vector<float> tripling(16, 0.0f);
    for (int i = 0; i < 4; ++i) tripling[i * 5] = 3.0f;
    Upload(weights.Get(), tripling);
    Upload(a.Get(), std::vector<float>{1, 2, 3, 4, 5, 6, 7, 8});
    std::vector<DML_BUFFER_BINDING> entries = {{}, {weights.Get(), 0, kGemmB}, {}};
    DML_BUFFER_ARRAY_BINDING array{3, entries.data()};
    DML_BUFFER_BINDING pbind{shared.Get(), 0, persistentSize};
    InitializeWith({gemm.Get()}, {{DML_BINDING_TYPE_BUFFER_ARRAY, &array}}, {BufferBinding(&pbind)});
    ASSERT_TRUE(Alive());
    DML_BUFFER_BINDING abind{a.Get(), 0, kGemmA}, obind{shared.Get(), outputOffset, kGemmOut};
    DML_BINDING_DESC inputs[] = {BufferBinding(&abind), NoBinding(), NoBinding()};
    DML_BINDING_DESC output = BufferBinding(&obind), persistentDesc = BufferBinding(&pbind);
    table->BindInputs(3, inputs);
    table->BindOutputs(1, &output);
    table->BindPersistentResource(&persistentDesc);
    BindTemporary(gemm.Get(), table.Get());
    Record(gemm.Get(), table.Get());
    ExecuteAndWait();
    ASSERT_TRUE(Alive());
    EXPECT_EQ(ReadbackAs<float>(shared.Get(), 8, outputOffset), (std::vector<float>{3, 6, 9, 12, 15, 18, 21, 24}));
}

TEST_F(Persistent, H3_PersistentIntersectingAnOutputRemovesDevice) {
    auto shared = Buffer(Aligned(persistentSize) + 256, D3D12_HEAP_TYPE_DEFAULT, L"shared");
    auto a = Buffer(kGemmA);
    DML_BUFFER_BINDING abind{a.Get(), 0, kGemmA}, obind{shared.Get(), 0, kGemmOut};
    DML_BINDING_DESC inputs[] = {BufferBinding(&abind), NoBinding(), NoBinding()};
    DML_BINDING_DESC output = BufferBinding(&obind);
    table->BindInputs(3, inputs);
    table->BindOutputs(1, &output);
    EXPECT_TRUE(Alive());
    BindPersistent(shared.Get(), 0, persistentSize);
    EXPECT_TRUE(Removed());
    EXPECT_TRUE(Said({"IDMLBindingTable::BindPersistentResource", "the persistent resource [0, ",
                      "outputs[0] (OutputTensor) [0, 32)", "'shared'", "(H3)"}));
}

TEST_F(Temporary, H4_TemporaryApartFromEverythingOnOneResource) {
    // data holds A [0, 16), B [64, 96) and the output [128, 144); the temporary goes at 256.
    auto shared = Buffer(256 + Aligned(temporarySize), D3D12_HEAP_TYPE_DEFAULT, L"shared");
    std::vector<uint16_t> a(8, 0x4000), b(16, 0);  // A = 2, B = identity
    for (int i = 0; i < 4; ++i) b[i * 5] = 0x3C00;
    Upload(shared.Get(), a, 0);
    Upload(shared.Get(), b, 64);
    abind = {shared.Get(), 0, 16};
    bbind = {shared.Get(), 64, 32};
    obind = {shared.Get(), 128, 16};
    DML_BINDING_DESC inputs[] = {BufferBinding(&abind), BufferBinding(&bbind), NoBinding()};
    DML_BINDING_DESC output = BufferBinding(&obind);
    table->BindInputs(3, inputs);
    table->BindOutputs(1, &output);
    DML_BUFFER_BINDING tbind{shared.Get(), 256, temporarySize};
    DML_BINDING_DESC temporary = BufferBinding(&tbind);
    table->BindTemporaryResource(&temporary);
    Record(gemm.Get(), table.Get());
    ExecuteAndWait();
    ASSERT_TRUE(Alive());
    EXPECT_EQ(ReadbackAs<uint16_t>(shared.Get(), 8, 128), std::vector<uint16_t>(8, 0x4000));
}

TEST_F(Temporary, H4_TemporaryIntersectingAnInputRemovesDevice) {
    auto scratch = Buffer(Aligned(temporarySize), D3D12_HEAP_TYPE_DEFAULT, L"scratch");
    abind = {scratch.Get(), 0, 16};  // A on the scratch buffer's first bytes
    DML_BINDING_DESC inputs[] = {BufferBinding(&abind), BufferBinding(&bbind), NoBinding()};
    table->BindInputs(3, inputs);
    EXPECT_TRUE(Alive());
    DML_BUFFER_BINDING tbind{scratch.Get(), 0, temporarySize};
    DML_BINDING_DESC temporary = BufferBinding(&tbind);
    table->BindTemporaryResource(&temporary);
    EXPECT_TRUE(Removed());
    EXPECT_TRUE(Said({"IDMLBindingTable::BindTemporaryResource", "the temporary resource [0, ",
                      "inputs[0] (ATensor) [0, 16)", "'scratch'", "(H4)"}));
}

TEST_F(Inputs, H5_ReadOnlyBindingsOverlapFreely) {
    // Both inputs on one region: A + A.
    auto out = Buffer(16, D3D12_HEAP_TYPE_DEFAULT, L"out");
    Upload(a.Get(), std::vector<float>{1, 2, 3, 4});
    auto persistent = Initialize(add.Get());
    DML_BUFFER_BINDING ob{out.Get(), 0, 16};
    DML_BINDING_DESC output = BufferBinding(&ob);
    Bind({BufferBinding(&ab), BufferBinding(&ab)});
    table->BindOutputs(1, &output);
    Record(add.Get(), table.Get());
    ExecuteAndWait();
    ASSERT_TRUE(Alive());
    EXPECT_EQ(ReadbackAs<float>(out.Get(), 4), (std::vector<float>{2, 4, 6, 8}));
}

TEST_F(Persistent, H5_InputOverlappingThePersistentResourceAllowed) {
    // At execution the persistent resource is read-only, like the inputs.
    auto shared = Buffer(Aligned(persistentSize) + 256, D3D12_HEAP_TYPE_DEFAULT, L"shared");
    auto out = Buffer(kGemmOut);
    DML_BUFFER_BINDING abind{shared.Get(), 0, kGemmA}, obind{out.Get(), 0, kGemmOut};
    DML_BINDING_DESC inputs[] = {BufferBinding(&abind), NoBinding(), NoBinding()};
    DML_BINDING_DESC output = BufferBinding(&obind);
    table->BindInputs(3, inputs);
    table->BindOutputs(1, &output);
    BindPersistent(shared.Get(), 0, persistentSize);
    EXPECT_TRUE(Alive());
}

TEST_F(Persistent, H5_ReadOnlyOverlapBecomesAHazardWhenOneSideWrites) {
    // The same bytes as above, but bound as the output: written, so H3 applies.
    auto shared = Buffer(Aligned(persistentSize) + 256, D3D12_HEAP_TYPE_DEFAULT, L"shared");
    auto a = Buffer(kGemmA);
    DML_BUFFER_BINDING abind{a.Get(), 0, kGemmA}, obind{shared.Get(), 0, kGemmOut};
    DML_BINDING_DESC inputs[] = {BufferBinding(&abind), NoBinding(), NoBinding()};
    DML_BINDING_DESC output = BufferBinding(&obind);
    table->BindInputs(3, inputs);
    BindPersistent(shared.Get(), 0, persistentSize);
    EXPECT_TRUE(Alive());
    table->BindOutputs(1, &output);
    EXPECT_TRUE(Removed());
    EXPECT_TRUE(Said({"IDMLBindingTable::BindOutputs", "(H3)"}));
}

// Two GEMMs with owned weights, initialized together: the initializer has two outputs.
class TwoTargets : public BindingApi {
protected:
    void SetUp() override {
        BindingApi::SetUp();
        first = Gemm(true);
        second = Gemm(true);
        ASSERT_TRUE(first && second);
        IDMLCompiledOperator* ops[] = {first.Get(), second.Get()};
        ASSERT_EQ(dml->CreateOperatorInitializer(2, ops, IID_PPV_ARGS(&initializer)), S_OK);
        table = Table(initializer.Get());
        size = first->GetBindingProperties().PersistentResourceSize;
        weights = Buffer(2 * kGemmB, D3D12_HEAP_TYPE_DEFAULT, L"weights");
        std::vector<float> b(32, 0.0f);
        for (int i = 0; i < 4; ++i) b[i * 5] = 2.0f, b[16 + i * 5] = 5.0f;
        Upload(weights.Get(), b);
        firstEntries = {DML_BUFFER_BINDING{}, {weights.Get(), 0, kGemmB}, DML_BUFFER_BINDING{}};
        secondEntries = {DML_BUFFER_BINDING{}, {weights.Get(), kGemmB, kGemmB}, DML_BUFFER_BINDING{}};
        firstArray = {3, firstEntries.data()};
        secondArray = {3, secondEntries.data()};
        DML_BINDING_DESC inputs[] = {{DML_BINDING_TYPE_BUFFER_ARRAY, &firstArray},
                                     {DML_BINDING_TYPE_BUFFER_ARRAY, &secondArray}};
        table->BindInputs(2, inputs);
        ASSERT_TRUE(Alive());
    }
    ComPtr<IDMLCompiledOperator> first, second;
    ComPtr<IDMLOperatorInitializer> initializer;
    ComPtr<IDMLBindingTable> table;
    ComPtr<ID3D12Resource> weights;
    UINT64 size = 0;
    std::vector<DML_BUFFER_BINDING> firstEntries, secondEntries;
    DML_BUFFER_ARRAY_BINDING firstArray{}, secondArray{};
};

TEST_F(TwoTargets, H6_OutputsApartOnOneResource) {
    auto persistent = Buffer(2 * Aligned(size), D3D12_HEAP_TYPE_DEFAULT, L"persistent");
    DML_BUFFER_BINDING p0{persistent.Get(), 0, size}, p1{persistent.Get(), Aligned(size), size};
    DML_BINDING_DESC outputs[] = {BufferBinding(&p0), BufferBinding(&p1)};
    table->BindOutputs(2, outputs);
    Record(initializer.Get(), table.Get());
    ExecuteAndWait();
    ASSERT_TRUE(Alive());
    // Each GEMM finds its own weights in its part of the buffer.
    auto a = Buffer(kGemmA), out = Buffer(kGemmOut);
    Upload(a.Get(), std::vector<float>{1, 1, 1, 1, 1, 1, 1, 1});
    DML_BUFFER_BINDING abind{a.Get(), 0, kGemmA}, obind{out.Get(), 0, kGemmOut};
    auto persistentOf = [&](IDMLCompiledOperator* op, const DML_BUFFER_BINDING& p) {
        auto t = Table(op, 300);
        DML_BINDING_DESC inputs[] = {BufferBinding(&abind), NoBinding(), NoBinding()};
        DML_BINDING_DESC output = BufferBinding(&obind);
        DML_BUFFER_BINDING pb = p;
        DML_BINDING_DESC pd = BufferBinding(&pb);
        t->BindInputs(3, inputs);
        t->BindOutputs(1, &output);
        t->BindPersistentResource(&pd);
        BindTemporary(op, t.Get());
        Record(op, t.Get());
        ExecuteAndWait();
        if (!Alive()) return std::vector<float>();
        return ReadbackAs<float>(out.Get(), 8);
    };
    EXPECT_EQ(persistentOf(first.Get(), p0), std::vector<float>(8, 2.0f));
    EXPECT_EQ(persistentOf(second.Get(), p1), std::vector<float>(8, 5.0f));
    EXPECT_TRUE(Alive());
}

TEST_F(TwoTargets, H6_OutputsIntersectingRemovesDevice) {
    auto persistent = Buffer(2 * Aligned(size), D3D12_HEAP_TYPE_DEFAULT, L"persistent");
    DML_BUFFER_BINDING p0{persistent.Get(), 0, size}, p1{persistent.Get(), 0, size};
    DML_BINDING_DESC outputs[] = {BufferBinding(&p0), BufferBinding(&p1)};
    table->BindOutputs(2, outputs);
    EXPECT_TRUE(Removed());
    EXPECT_TRUE(Said({"IDMLBindingTable::BindOutputs", "outputs[0]", "outputs[1]", "'persistent'", "(H6)"}));
}

// Two buffers placed on one heap: `low` covers [0, 128K), `high` covers [64K, 128K) and so aliases
// low's second half.
class Placed : public BindingApi {
protected:
    void SetUp() override {
        BindingApi::SetUp();
        D3D12_HEAP_DESC desc{};
        desc.SizeInBytes = 2 * kBlock;
        desc.Properties.Type = D3D12_HEAP_TYPE_DEFAULT;
        desc.Flags = D3D12_HEAP_FLAG_ALLOW_ONLY_BUFFERS;
        ASSERT_EQ(d3d->CreateHeap(&desc, IID_PPV_ARGS(&placedHeap)), S_OK) << Messages();
        auto resourceDesc = CD3DX12_RESOURCE_DESC::Buffer(2 * kBlock, D3D12_RESOURCE_FLAG_ALLOW_UNORDERED_ACCESS);
        ASSERT_EQ(d3d->CreatePlacedResource(placedHeap.Get(), 0, &resourceDesc, D3D12_RESOURCE_STATE_COMMON, nullptr,
                                            IID_PPV_ARGS(&low)),
                  S_OK)
            << Messages();
        resourceDesc.Width = kBlock;
        ASSERT_EQ(d3d->CreatePlacedResource(placedHeap.Get(), kBlock, &resourceDesc, D3D12_RESOURCE_STATE_COMMON,
                                            nullptr, IID_PPV_ARGS(&high)),
                  S_OK)
            << Messages();
        low->SetName(L"low");
        high->SetName(L"high");
        op = Identity(8);  // in-place capable: even so, aliasing regions that differ are refused
        ASSERT_TRUE(op);
    }
    static constexpr UINT64 kBlock = D3D12_DEFAULT_RESOURCE_PLACEMENT_ALIGNMENT;
    ComPtr<ID3D12Heap> placedHeap;
    ComPtr<ID3D12Resource> low, high;
    ComPtr<IDMLCompiledOperator> op;
};

TEST_F(Placed, H7_PlacedResourcesOnDisjointHeapRanges) {
    auto persistent = Initialize(op.Get());
    Upload(low.Get(), Floats(8));
    DML_BUFFER_BINDING ib{low.Get(), 0, 32}, ob{high.Get(), 0, 32};  // heap [0, 32) and [64K, 64K + 32)
    Dispatch(op.Get(), {BufferBinding(&ib)}, {BufferBinding(&ob)}, persistent.Get());
    ASSERT_TRUE(Alive());
    EXPECT_EQ(ReadbackAs<float>(high.Get(), 8), Floats(8));
    // What high wrote is what low shows in its second half: the heap really is shared.
    EXPECT_EQ(ReadbackAs<float>(low.Get(), 8, kBlock), Floats(8));
}

TEST_F(Placed, H7_AliasingPlacedResourcesRemovesDevice) {
    auto table = Table(op.Get());
    DML_BUFFER_BINDING ib{low.Get(), kBlock + 16, 32}, ob{high.Get(), 0, 32};  // heap [64K+16, +32) and [64K, +32)
    DML_BINDING_DESC input = BufferBinding(&ib), output = BufferBinding(&ob);
    table->BindInputs(1, &input);
    table->BindOutputs(1, &output);
    EXPECT_TRUE(Removed());
    EXPECT_TRUE(Said({"IDMLBindingTable::BindOutputs", "'low'", "'high'", "alias bytes of heap", "(H7)"}));
}

TEST_F(Placed, H7_AliasingAtInitializationRemovesDevice) {
    auto gemm = Gemm(true);
    ASSERT_TRUE(gemm);
    IDMLCompiledOperator* ops[] = {gemm.Get()};
    ComPtr<IDMLOperatorInitializer> initializer;
    ASSERT_EQ(dml->CreateOperatorInitializer(1, ops, IID_PPV_ARGS(&initializer)), S_OK);
    auto table = Table(initializer.Get());
    const UINT64 size = gemm->GetBindingProperties().PersistentResourceSize;
    // The weights at low's [64K, 64K + 64) and the persistent resource at high's [0, size): two
    // resources, so H1 (which compares resources) does not see it; their heap ranges meet.
    std::vector<DML_BUFFER_BINDING> entries = {{}, {low.Get(), kBlock, kGemmB}, {}};
    DML_BUFFER_ARRAY_BINDING array{3, entries.data()};
    DML_BINDING_DESC input{DML_BINDING_TYPE_BUFFER_ARRAY, &array};
    DML_BUFFER_BINDING pbind{high.Get(), 0, size};
    DML_BINDING_DESC output = BufferBinding(&pbind);
    table->BindInputs(1, &input);
    table->BindOutputs(1, &output);
    EXPECT_TRUE(Removed());
    EXPECT_TRUE(Said({"IDMLBindingTable::BindOutputs", "'low'", "'high'", "(H7)"}));
}

// ---------------------------------------------------------------------------------------------
// D1-D4: dispatch

TEST_F(BindingApi, D1_DirectAndComputeListsAccepted) {
    auto op = Identity(4);
    ASSERT_TRUE(op);
    auto persistent = Initialize(op.Get());  // on the fixture's COMPUTE list
    auto in = Buffer(16), out = Buffer(16);
    Upload(in.Get(), std::vector<float>{9, 8, 7, 6});
    auto table = Table(op.Get());
    DML_BUFFER_BINDING ib{in.Get(), 0, 16}, ob{out.Get(), 0, 16};
    DML_BINDING_DESC input = BufferBinding(&ib), output = BufferBinding(&ob);
    table->BindInputs(1, &input);
    table->BindOutputs(1, &output);
    D3D12_COMMAND_QUEUE_DESC queueDesc{};
    queueDesc.Type = D3D12_COMMAND_LIST_TYPE_DIRECT;
    ComPtr<ID3D12CommandQueue> direct;
    ComPtr<ID3D12CommandAllocator> directAllocator;
    ComPtr<ID3D12GraphicsCommandList> directList;
    ASSERT_EQ(d3d->CreateCommandQueue(&queueDesc, IID_PPV_ARGS(&direct)), S_OK);
    ASSERT_EQ(d3d->CreateCommandAllocator(D3D12_COMMAND_LIST_TYPE_DIRECT, IID_PPV_ARGS(&directAllocator)), S_OK);
    ASSERT_EQ(d3d->CreateCommandList(0, D3D12_COMMAND_LIST_TYPE_DIRECT, directAllocator.Get(), nullptr,
                                     IID_PPV_ARGS(&directList)),
              S_OK);
    ID3D12DescriptorHeap* heaps[] = {heap.Get()};
    directList->SetDescriptorHeaps(1, heaps);
    recorder->RecordDispatch(directList.Get(), op.Get(), table.Get());
    ASSERT_EQ(directList->Close(), S_OK) << Messages();
    ID3D12CommandList* lists[] = {directList.Get()};
    direct->ExecuteCommandLists(1, lists);
    ASSERT_EQ(direct->Signal(fence.Get(), ++fenceValue), S_OK);
    ASSERT_EQ(fence->SetEventOnCompletion(fenceValue, nullptr), S_OK);
    ASSERT_TRUE(Alive());
    EXPECT_EQ(ReadbackAs<float>(out.Get(), 4), (std::vector<float>{9, 8, 7, 6}));
}

class Recordable : public BindingApi {
protected:
    void SetUp() override {
        BindingApi::SetUp();
        op = Identity(4);
        ASSERT_TRUE(op);
        persistent = Initialize(op.Get());
        in = Filled(16, L"in");
        out = Filled(16, L"out");
        table = Table(op.Get());
        ib = {in.Get(), 0, 16};
        ob = {out.Get(), 0, 16};
        DML_BINDING_DESC input = BufferBinding(&ib), output = BufferBinding(&ob);
        table->BindInputs(1, &input);
        table->BindOutputs(1, &output);
        ASSERT_TRUE(Alive());
    }
    ComPtr<IDMLCompiledOperator> op;
    ComPtr<ID3D12Resource> persistent, in, out;
    ComPtr<IDMLBindingTable> table;
    DML_BUFFER_BINDING ib{}, ob{};
};

TEST_F(Recordable, D1_CopyListRemovesDevice) {
    ComPtr<ID3D12CommandAllocator> copyAllocator;
    ComPtr<ID3D12GraphicsCommandList> copyList;
    ASSERT_EQ(d3d->CreateCommandAllocator(D3D12_COMMAND_LIST_TYPE_COPY, IID_PPV_ARGS(&copyAllocator)), S_OK);
    ASSERT_EQ(d3d->CreateCommandList(0, D3D12_COMMAND_LIST_TYPE_COPY, copyAllocator.Get(), nullptr,
                                     IID_PPV_ARGS(&copyList)),
              S_OK);
    recorder->RecordDispatch(copyList.Get(), op.Get(), table.Get());
    EXPECT_TRUE(Removed());
    EXPECT_TRUE(Said({"IDMLCommandRecorder::RecordDispatch", "DIRECT or COMPUTE", "(D1)"}));
    EXPECT_TRUE(Unchanged());
}

TEST_F(Recordable, D1_TableOfAnotherDispatchableRemovesDevice) {
    auto other = Identity(4);
    ASSERT_TRUE(other);
    Record(other.Get(), table.Get());
    EXPECT_TRUE(Removed());
    EXPECT_TRUE(Said({"IDMLCommandRecorder::RecordDispatch", "was not created (or last reset) for", "(D1)"}));
}

TEST_F(Recordable, D1_NoDescriptorHeapSetRemovesDevice) {
    recorder->RecordDispatch(list.Get(), op.Get(), table.Get());
    EXPECT_TRUE(Removed());
    EXPECT_TRUE(Said({"IDMLCommandRecorder::RecordDispatch", "SetDescriptorHeaps", "(D1)"}));
}

TEST_F(Recordable, D2_EverythingBoundAtRecording) {
    Upload(in.Get(), std::vector<float>{1, 2, 3, 4});
    Record(op.Get(), table.Get());
    ExecuteAndWait();
    ASSERT_TRUE(Alive());
    EXPECT_EQ(ReadbackAs<float>(out.Get(), 4), (std::vector<float>{1, 2, 3, 4}));
}

TEST_F(BindingApi, D2_OutputMissingAtRecordingRemovesDevice) {
    auto op = Identity(4);
    ASSERT_TRUE(op);
    auto in = Filled(16, L"in");
    auto table = Table(op.Get());
    DML_BUFFER_BINDING ib{in.Get(), 0, 16};
    DML_BINDING_DESC input = BufferBinding(&ib);
    table->BindInputs(1, &input);
    Record(op.Get(), table.Get());
    EXPECT_TRUE(Removed());
    EXPECT_TRUE(Said({"IDMLCommandRecorder::RecordDispatch", "outputs[0] (OutputTensor) is not bound",
                      "no BindOutputs", "(D2)"}));
    Submit();
    EXPECT_TRUE(Unchanged());
}

TEST_F(BindingApi, D2_VolatileDescriptorsCompletedBeforeExecution) {
    auto op = Identity(4, DML_EXECUTION_FLAG_DESCRIPTORS_VOLATILE);
    ASSERT_TRUE(op);
    auto persistent = Initialize(op.Get());
    auto in = Buffer(16), out = Buffer(16);
    Upload(in.Get(), std::vector<float>{3, 1, 4, 1});
    auto table = Table(op.Get());
    Record(op.Get(), table.Get());  // nothing bound yet: allowed with DESCRIPTORS_VOLATILE
    ASSERT_TRUE(Alive());
    DML_BUFFER_BINDING ib{in.Get(), 0, 16}, ob{out.Get(), 0, 16};
    DML_BINDING_DESC input = BufferBinding(&ib), output = BufferBinding(&ob);
    table->BindInputs(1, &input);
    table->BindOutputs(1, &output);
    ExecuteAndWait();
    ASSERT_TRUE(Alive());
    EXPECT_EQ(ReadbackAs<float>(out.Get(), 4), (std::vector<float>{3, 1, 4, 1}));
}

TEST_F(BindingApi, D2_VolatileDescriptorsIncompleteAtExecutionRemovesDevice) {
    auto op = Identity(4, DML_EXECUTION_FLAG_DESCRIPTORS_VOLATILE);
    ASSERT_TRUE(op);
    auto persistent = Initialize(op.Get());
    auto in = Filled(16, L"in"), out = Filled(16, L"out");
    auto table = Table(op.Get());
    Record(op.Get(), table.Get());
    DML_BUFFER_BINDING ib{in.Get(), 0, 16};
    DML_BINDING_DESC input = BufferBinding(&ib);
    table->BindInputs(1, &input);  // the output never gets bound
    ASSERT_TRUE(Alive());
    Submit();
    EXPECT_TRUE(Removed());
    EXPECT_TRUE(Said({"ExecuteCommandLists", "outputs[0] (OutputTensor) is not bound", "(D2)"}));
    EXPECT_TRUE(Unchanged());
}

TEST_F(Recordable, D3_CommonAndUnorderedAccessStatesAccepted) {
    // in and out are in COMMON (promotable); move out to UNORDERED_ACCESS explicitly.
    auto barrier = CD3DX12_RESOURCE_BARRIER::Transition(out.Get(), D3D12_RESOURCE_STATE_COMMON,
                                                        D3D12_RESOURCE_STATE_UNORDERED_ACCESS);
    list->ResourceBarrier(1, &barrier);
    Record(op.Get(), table.Get());
    ExecuteAndWait();
    ASSERT_TRUE(Alive());
    EXPECT_EQ(Readback(out.Get(), 16, 0).size(), 16u);
    EXPECT_EQ(Peek(out.Get()), Peek(in.Get()));
}

// Not enforced yet: libdirectml cannot tell a buffer transitioned to another state from one that
// a copy in an earlier ExecuteCommandLists promoted and that has since decayed to COMMON (the D3D12
// state tracker keeps that per ExecuteCommandLists, out of libdirectml's reach). Enable when it
// can ask.
TEST_F(Recordable, DISABLED_D3_BufferInAnotherStateRemovesDeviceAtExecution) {
    auto barrier = CD3DX12_RESOURCE_BARRIER::Transition(out.Get(), D3D12_RESOURCE_STATE_COMMON,
                                                        D3D12_RESOURCE_STATE_COPY_SOURCE);
    list->ResourceBarrier(1, &barrier);
    Record(op.Get(), table.Get());
    Submit();
    EXPECT_TRUE(Removed());
    EXPECT_TRUE(Said({"ExecuteCommandLists", "'out'", "COPY_SOURCE", "UNORDERED_ACCESS", "(D3)"}));
    EXPECT_TRUE(Unchanged());
}

TEST_F(BindingApi, D4_NothingOutsideTheOutputTensorIsWritten) {
    // 5 floats: a 20-byte tensor bound with 48 bytes at offset 64 of a 256-byte buffer.
    auto op = Identity(5);
    ASSERT_TRUE(op);
    auto persistent = Initialize(op.Get());
    auto in = Buffer(32, D3D12_HEAP_TYPE_DEFAULT, L"in");
    auto values = Floats(5, 100.0f);
    Upload(in.Get(), values);
    auto out = Filled(256, L"out");
    DML_BUFFER_BINDING ib{in.Get(), 0, 20}, ob{out.Get(), 64, 48};
    Dispatch(op.Get(), {BufferBinding(&ib)}, {BufferBinding(&ob)}, persistent.Get());
    ASSERT_TRUE(Alive());
    auto expected = PatternOf(out.Get());
    auto written = Bytes(values);
    std::copy(written.begin(), written.end(), expected.begin() + 64);
    EXPECT_EQ(Readback(out.Get(), 256), expected);
    EXPECT_EQ(ReadbackAs<float>(in.Get(), 5), values);  // inputs are read only
}

TEST_F(BindingApi, D4_JoinWritesOnlyItsOutputRegion) {
    auto join = Join(3);
    ASSERT_TRUE(join);
    auto persistent = Initialize(join.Get());
    auto buffer = Filled(512, L"everything");
    // Three inputs at 0, 16, 32 and the 48-byte output at 128; every other byte is a sentinel.
    std::vector<DML_BUFFER_BINDING> ins = {{buffer.Get(), 0, 16}, {buffer.Get(), 16, 16}, {buffer.Get(), 32, 16}};
    DML_BUFFER_BINDING ob{buffer.Get(), 128, 64};
    Dispatch(join.Get(), {BufferBinding(&ins[0]), BufferBinding(&ins[1]), BufferBinding(&ins[2])},
             {BufferBinding(&ob)}, persistent.Get());
    ASSERT_TRUE(Alive());
    auto expected = PatternOf(buffer.Get());
    std::copy(expected.begin(), expected.begin() + 48, expected.begin() + 128);  // the join of the inputs' bytes
    EXPECT_EQ(Readback(buffer.Get(), 512), expected);
}
}  // namespace
}  // namespace freedml_test
