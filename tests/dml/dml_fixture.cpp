#include "dml_fixture.h"

namespace freedml_test {

void DmlTest::Capture(FREEDML_MESSAGE_SEVERITY, const char* source, const char* text, void* context) {
    auto* self = static_cast<DmlTest*>(context);
    std::lock_guard lock(self->mutex_);
    self->messages_.push_back(std::string(source) + ": " + text);
}

std::string DmlTest::Messages() {
    std::lock_guard lock(mutex_);
    std::string all;
    for (const auto& m : messages_) all += m + "\n";
    return all;
}

void DmlTest::ClearMessages() {
    std::lock_guard lock(mutex_);
    messages_.clear();
}

void DmlTest::Refused(DML_OPERATOR_TYPE type, const void* desc, const char* words) {
    DML_OPERATOR_DESC opDesc{type, desc};
    ComPtr<IDMLOperator> op;
    EXPECT_EQ(dml->CreateOperator(&opDesc, IID_PPV_ARGS(&op)), E_INVALIDARG) << words;
    EXPECT_NE(Messages().find(words), std::string::npos) << words << ": " << Messages();
    ClearMessages();
}

void DmlTest::Accepted(DML_OPERATOR_TYPE type, const void* desc) {
    DML_OPERATOR_DESC opDesc{type, desc};
    ComPtr<IDMLOperator> op;
    EXPECT_EQ(dml->CreateOperator(&opDesc, IID_PPV_ARGS(&op)), S_OK) << Messages();
    ClearMessages();
}

void DmlTest::SetUp() {
    FreeDMLSetMessageCallback(&Capture, this);
    ASSERT_EQ(D3D12CreateDevice(Adapter(), D3D_FEATURE_LEVEL_11_0, IID_PPV_ARGS(&d3d)), S_OK) << Messages();
    D3D12_COMMAND_QUEUE_DESC queueDesc{};
    queueDesc.Type = D3D12_COMMAND_LIST_TYPE_COMPUTE;
    ASSERT_EQ(d3d->CreateCommandQueue(&queueDesc, IID_PPV_ARGS(&queue)), S_OK);
    ASSERT_EQ(d3d->CreateCommandAllocator(D3D12_COMMAND_LIST_TYPE_COMPUTE, IID_PPV_ARGS(&allocator)), S_OK);
    ASSERT_EQ(d3d->CreateCommandList(0, D3D12_COMMAND_LIST_TYPE_COMPUTE, allocator.Get(), nullptr, IID_PPV_ARGS(&list)),
              S_OK);
    ASSERT_EQ(d3d->CreateFence(0, D3D12_FENCE_FLAG_NONE, IID_PPV_ARGS(&fence)), S_OK);
    D3D12_DESCRIPTOR_HEAP_DESC heapDesc{D3D12_DESCRIPTOR_HEAP_TYPE_CBV_SRV_UAV, kHeapSize,
                                        D3D12_DESCRIPTOR_HEAP_FLAG_SHADER_VISIBLE, 0};
    ASSERT_EQ(d3d->CreateDescriptorHeap(&heapDesc, IID_PPV_ARGS(&heap)), S_OK);
    descriptorSize = d3d->GetDescriptorHandleIncrementSize(D3D12_DESCRIPTOR_HEAP_TYPE_CBV_SRV_UAV);
    ASSERT_EQ(DMLCreateDevice(d3d.Get(), DML_CREATE_DEVICE_FLAG_NONE, IID_PPV_ARGS(&dml)), S_OK);
    ASSERT_EQ(dml->CreateCommandRecorder(IID_PPV_ARGS(&recorder)), S_OK);
}

void DmlTest::TearDown() {
    if (queue && fence && !DeviceRemoved()) {
        queue->Signal(fence.Get(), ++fenceValue);
        fence->SetEventOnCompletion(fenceValue, nullptr);
    }
    FreeDMLSetMessageCallback(nullptr, nullptr);
}

ComPtr<ID3D12Resource> DmlTest::Buffer(UINT64 size, D3D12_HEAP_TYPE heapType, const wchar_t* name) {
    CD3DX12_HEAP_PROPERTIES properties(heapType);
    auto desc = CD3DX12_RESOURCE_DESC::Buffer(
        size, heapType == D3D12_HEAP_TYPE_DEFAULT ? D3D12_RESOURCE_FLAG_ALLOW_UNORDERED_ACCESS : D3D12_RESOURCE_FLAG_NONE);
    D3D12_RESOURCE_STATES state = heapType == D3D12_HEAP_TYPE_UPLOAD     ? D3D12_RESOURCE_STATE_GENERIC_READ
                                  : heapType == D3D12_HEAP_TYPE_READBACK ? D3D12_RESOURCE_STATE_COPY_DEST
                                                                         : D3D12_RESOURCE_STATE_COMMON;
    ComPtr<ID3D12Resource> buffer;
    HRESULT hr = d3d->CreateCommittedResource(&properties, D3D12_HEAP_FLAG_NONE, &desc, state, nullptr,
                                              IID_PPV_ARGS(&buffer));
    EXPECT_EQ(hr, S_OK) << Messages();
    if (buffer && name) buffer->SetName(name);
    return buffer;
}

void DmlTest::ExecuteAndWait() {
    ASSERT_EQ(list->Close(), S_OK) << Messages();
    ID3D12CommandList* lists[] = {list.Get()};
    queue->ExecuteCommandLists(1, lists);
    ASSERT_EQ(queue->Signal(fence.Get(), ++fenceValue), S_OK);
    ASSERT_EQ(fence->SetEventOnCompletion(fenceValue, nullptr), S_OK);
    ASSERT_EQ(allocator->Reset(), S_OK);
    ASSERT_EQ(list->Reset(allocator.Get(), nullptr), S_OK);
}

void DmlTest::Upload(ID3D12Resource* destination, const void* bytes, UINT64 size, UINT64 offset) {
    auto staging = Buffer(size, D3D12_HEAP_TYPE_UPLOAD);
    void* mapped = nullptr;
    ASSERT_EQ(staging->Map(0, nullptr, &mapped), S_OK);
    std::memcpy(mapped, bytes, size);
    staging->Unmap(0, nullptr);
    list->CopyBufferRegion(destination, offset, staging.Get(), 0, size);
    ExecuteAndWait();
}

std::vector<unsigned char> DmlTest::Readback(ID3D12Resource* source, UINT64 size, UINT64 offset) {
    auto staging = Buffer(size, D3D12_HEAP_TYPE_READBACK);
    list->CopyBufferRegion(staging.Get(), 0, source, offset, size);
    ExecuteAndWait();
    std::vector<unsigned char> bytes(size);
    void* mapped = nullptr;
    EXPECT_EQ(staging->Map(0, nullptr, &mapped), S_OK);
    if (mapped) std::memcpy(bytes.data(), mapped, size);
    staging->Unmap(0, nullptr);
    return bytes;
}

ComPtr<IDMLCompiledOperator> DmlTest::Compile(DML_OPERATOR_TYPE type, const void* desc, DML_EXECUTION_FLAGS flags) {
    DML_OPERATOR_DESC opDesc{type, desc};
    ComPtr<IDMLOperator> op;
    HRESULT hr = dml->CreateOperator(&opDesc, IID_PPV_ARGS(&op));
    EXPECT_EQ(hr, S_OK) << Messages();
    if (FAILED(hr)) return nullptr;
    ComPtr<IDMLCompiledOperator> compiled;
    hr = dml->CompileOperator(op.Get(), flags, IID_PPV_ARGS(&compiled));
    EXPECT_EQ(hr, S_OK) << Messages();
    return compiled;
}

ComPtr<IDMLBindingTable> DmlTest::Table(IDMLDispatchable* dispatchable, UINT firstDescriptor) {
    DML_BINDING_PROPERTIES properties = dispatchable->GetBindingProperties();
    DML_BINDING_TABLE_DESC desc{dispatchable,
                                CD3DX12_CPU_DESCRIPTOR_HANDLE(heap->GetCPUDescriptorHandleForHeapStart(),
                                                              static_cast<INT>(firstDescriptor), descriptorSize),
                                CD3DX12_GPU_DESCRIPTOR_HANDLE(heap->GetGPUDescriptorHandleForHeapStart(),
                                                              static_cast<INT>(firstDescriptor), descriptorSize),
                                properties.RequiredDescriptorCount};
    ComPtr<IDMLBindingTable> table;
    EXPECT_EQ(dml->CreateBindingTable(&desc, IID_PPV_ARGS(&table)), S_OK) << Messages();
    return table;
}

void DmlTest::Record(IDMLDispatchable* dispatchable, IDMLBindingTable* table) {
    ID3D12DescriptorHeap* heaps[] = {heap.Get()};
    list->SetDescriptorHeaps(1, heaps);
    recorder->RecordDispatch(list.Get(), dispatchable, table);
}

ComPtr<ID3D12Resource> DmlTest::Initialize(IDMLCompiledOperator* op, std::vector<DML_BUFFER_BINDING> ownedInputs) {
    IDMLCompiledOperator* ops[] = {op};
    ComPtr<IDMLOperatorInitializer> initializer;
    EXPECT_EQ(dml->CreateOperatorInitializer(1, ops, IID_PPV_ARGS(&initializer)), S_OK) << Messages();
    auto table = Table(initializer.Get());
    DML_BUFFER_ARRAY_BINDING array{static_cast<UINT>(ownedInputs.size()), ownedInputs.data()};
    DML_BINDING_DESC input = ownedInputs.empty() ? NoBinding() : DML_BINDING_DESC{DML_BINDING_TYPE_BUFFER_ARRAY, &array};
    table->BindInputs(1, &input);
    ComPtr<ID3D12Resource> persistent;
    UINT64 persistentSize = op->GetBindingProperties().PersistentResourceSize;
    DML_BUFFER_BINDING persistentBinding{};
    DML_BINDING_DESC output = NoBinding();
    if (persistentSize) {
        persistent = Buffer(persistentSize, D3D12_HEAP_TYPE_DEFAULT, L"persistent");
        persistentBinding = {persistent.Get(), 0, persistentSize};
        output = BufferBinding(&persistentBinding);
    }
    table->BindOutputs(1, &output);
    Record(initializer.Get(), table.Get());
    ExecuteAndWait();
    return persistent;
}

void DmlTest::Dispatch(IDMLCompiledOperator* op, std::vector<DML_BINDING_DESC> inputs,
                       std::vector<DML_BINDING_DESC> outputs, ID3D12Resource* persistent) {
    auto table = Table(op);
    table->BindInputs(static_cast<UINT>(inputs.size()), inputs.data());
    table->BindOutputs(static_cast<UINT>(outputs.size()), outputs.data());
    DML_BINDING_PROPERTIES properties = op->GetBindingProperties();
    ComPtr<ID3D12Resource> temporary;
    DML_BUFFER_BINDING temporaryBinding{}, persistentBinding{};
    if (properties.TemporaryResourceSize) {
        temporary = Buffer(properties.TemporaryResourceSize, D3D12_HEAP_TYPE_DEFAULT, L"temporary");
        temporaryBinding = {temporary.Get(), 0, properties.TemporaryResourceSize};
        DML_BINDING_DESC binding = BufferBinding(&temporaryBinding);
        table->BindTemporaryResource(&binding);
    }
    if (properties.PersistentResourceSize) {
        persistentBinding = {persistent, 0, properties.PersistentResourceSize};
        DML_BINDING_DESC binding = BufferBinding(&persistentBinding);
        table->BindPersistentResource(&binding);
    }
    Record(op, table.Get());
    ExecuteAndWait();
}

}  // namespace freedml_test
