// No C++ exception crosses the API (docs/ERRORS.md). Each API call below runs once per allocation
// it makes, with that one allocation failing: the call must return E_OUTOFMEMORY (or succeed, where
// the failed allocation was only for a message), never crash or let std::bad_alloc out, and the
// same call without a failure must then succeed. A failure on the queue's worker removes the device.
// DXCore's header first: dml_fixture.h includes dxguids.h, which gives IIDs only to the interfaces
// already declared.
#include <wsl/winadapter.h>
#include <directx/dxcore.h>

#include <cstdlib>
#include <functional>
#include <string>

#include "allocation_failure.h"
#include "dml_fixture.h"

namespace freedml_test {
namespace {

class OutOfMemoryTest : public DmlTest {
protected:
    // Runs `call` with its first, second, ... allocation failing until it makes no more allocations.
    // `reports`: the call sends a message when it fails (DXCore has no message channel).
    void EveryAllocationFails(const char* name, const std::function<HRESULT(ComPtr<IUnknown>*)>& call,
                              bool reports = true) {
        SCOPED_TRACE(name);
        size_t outOfMemory = 0;
        for (uint64_t index = 0; index < 100000; ++index) {
            ComPtr<IUnknown> object;
            ArmAllocationFailure(index, FailOn::ThisThread);
            HRESULT hr = call(&object);
            bool failed = DisarmAllocationFailure();
            if (!failed) {
                EXPECT_EQ(hr, S_OK) << "with no allocation failing";
                EXPECT_NE(object, nullptr);
                break;
            }
            if (hr == E_OUTOFMEMORY) {
                ++outOfMemory;
                EXPECT_EQ(object, nullptr) << "allocation " << index;
            } else {
                EXPECT_EQ(hr, S_OK) << "allocation " << index << " failed: " << Messages();
            }
        }
        EXPECT_GT(outOfMemory, 0u);
        EXPECT_FALSE(DeviceRemoved());
        if (outOfMemory && reports) {
            EXPECT_NE(Messages().find("Out of host memory"), std::string::npos) << Messages();
        }
    }

    Tensor tensor{DML_TENSOR_DATA_TYPE_FLOAT32, {2, 3}};
    DML_ELEMENT_WISE_IDENTITY_OPERATOR_DESC identity{&tensor.desc, &tensor.desc, nullptr};
};

void** Out(ComPtr<IUnknown>* object) {
    return reinterpret_cast<void**>(object->GetAddressOf());
}

TEST_F(OutOfMemoryTest, D3D12CreationMethods) {
    ID3D12Device* device = d3d.Get();
    EveryAllocationFails("D3D12CreateDevice", [](ComPtr<IUnknown>* out) {
        return D3D12CreateDevice(nullptr, D3D_FEATURE_LEVEL_11_0, __uuidof(ID3D12Device), Out(out));
    });
    EveryAllocationFails("CreateDescriptorHeap", [=](ComPtr<IUnknown>* out) {
        D3D12_DESCRIPTOR_HEAP_DESC desc{D3D12_DESCRIPTOR_HEAP_TYPE_CBV_SRV_UAV, 16,
                                        D3D12_DESCRIPTOR_HEAP_FLAG_SHADER_VISIBLE, 0};
        return device->CreateDescriptorHeap(&desc, __uuidof(ID3D12DescriptorHeap), Out(out));
    });
    EveryAllocationFails("CreateCommittedResource", [=](ComPtr<IUnknown>* out) {
        CD3DX12_HEAP_PROPERTIES heap(D3D12_HEAP_TYPE_DEFAULT);
        CD3DX12_RESOURCE_DESC desc = CD3DX12_RESOURCE_DESC::Buffer(1024);
        return device->CreateCommittedResource(&heap, D3D12_HEAP_FLAG_NONE, &desc, D3D12_RESOURCE_STATE_COMMON,
                                               nullptr, __uuidof(ID3D12Resource), Out(out));
    });
    EveryAllocationFails("CreateFence", [=](ComPtr<IUnknown>* out) {
        return device->CreateFence(0, D3D12_FENCE_FLAG_NONE, __uuidof(ID3D12Fence), Out(out));
    });
    EveryAllocationFails("CreateCommandQueue", [=](ComPtr<IUnknown>* out) {
        D3D12_COMMAND_QUEUE_DESC desc{D3D12_COMMAND_LIST_TYPE_COMPUTE, 0, D3D12_COMMAND_QUEUE_FLAG_NONE, 0};
        return device->CreateCommandQueue(&desc, __uuidof(ID3D12CommandQueue), Out(out));
    });
}

TEST_F(OutOfMemoryTest, DirectMLCreationMethods) {
    ID3D12Device* parent = d3d.Get();
    IDMLDevice* device = dml.Get();
    EveryAllocationFails("DMLCreateDevice", [=](ComPtr<IUnknown>* out) {
        return DMLCreateDevice(parent, DML_CREATE_DEVICE_FLAG_NONE, __uuidof(IDMLDevice), Out(out));
    });
    EveryAllocationFails("IDMLDevice::CreateOperator", [=, d = &identity](ComPtr<IUnknown>* out) {
        DML_OPERATOR_DESC desc{DML_OPERATOR_ELEMENT_WISE_IDENTITY, d};
        return device->CreateOperator(&desc, __uuidof(IDMLOperator), Out(out));
    });
    DML_OPERATOR_DESC desc{DML_OPERATOR_ELEMENT_WISE_IDENTITY, &identity};
    ComPtr<IDMLOperator> op;
    ASSERT_EQ(dml->CreateOperator(&desc, IID_PPV_ARGS(&op)), S_OK);
    EveryAllocationFails("IDMLDevice::CompileOperator", [=, o = op.Get()](ComPtr<IUnknown>* out) {
        return device->CompileOperator(o, DML_EXECUTION_FLAG_NONE, __uuidof(IDMLCompiledOperator), Out(out));
    });
    ComPtr<IDMLCompiledOperator> compiled;
    ASSERT_EQ(dml->CompileOperator(op.Get(), DML_EXECUTION_FLAG_NONE, IID_PPV_ARGS(&compiled)), S_OK);
    EveryAllocationFails("IDMLDevice::CreateOperatorInitializer", [=, c = compiled.Get()](ComPtr<IUnknown>* out) {
        IDMLCompiledOperator* ops[] = {c};
        return device->CreateOperatorInitializer(1, ops, __uuidof(IDMLOperatorInitializer), Out(out));
    });
    DML_BINDING_TABLE_DESC tableDesc{compiled.Get(), heap->GetCPUDescriptorHandleForHeapStart(),
                                     heap->GetGPUDescriptorHandleForHeapStart(),
                                     compiled->GetBindingProperties().RequiredDescriptorCount};
    EveryAllocationFails("IDMLDevice::CreateBindingTable", [=](ComPtr<IUnknown>* out) {
        return device->CreateBindingTable(&tableDesc, __uuidof(IDMLBindingTable), Out(out));
    });
}

// CheckFeatureSupport's failure path builds a message: with each of its allocations failing, the
// call still returns an HRESULT (E_INVALIDARG, or E_OUTOFMEMORY where the message could not be made).
TEST_F(OutOfMemoryTest, DirectMLCheckFeatureSupport) {
    DML_FEATURE_QUERY_TENSOR_DATA_TYPE_SUPPORT query{DML_TENSOR_DATA_TYPE_FLOAT32};
    DML_FEATURE_DATA_TENSOR_DATA_TYPE_SUPPORT data{};
    size_t failures = 0;
    for (uint64_t index = 0; index < 10000; ++index) {
        ArmAllocationFailure(index, FailOn::ThisThread);
        HRESULT hr = dml->CheckFeatureSupport(DML_FEATURE_TENSOR_DATA_TYPE_SUPPORT, sizeof(query), &query, 1, &data);
        if (!DisarmAllocationFailure()) {
            EXPECT_EQ(hr, E_INVALIDARG);
            break;
        }
        ++failures;
        EXPECT_TRUE(hr == E_INVALIDARG || hr == E_OUTOFMEMORY) << "allocation " << index << ": 0x" << std::hex << hr;
    }
    EXPECT_GT(failures, 0u);
    // A well-formed query allocates nothing and answers.
    ArmAllocationFailure(0, FailOn::ThisThread);
    EXPECT_EQ(dml->CheckFeatureSupport(DML_FEATURE_TENSOR_DATA_TYPE_SUPPORT, sizeof(query), &query, sizeof(data), &data),
              S_OK);
    EXPECT_FALSE(DisarmAllocationFailure());
    EXPECT_TRUE(data.IsSupported);
    EXPECT_FALSE(DeviceRemoved());
}

TEST_F(OutOfMemoryTest, DXCoreMethods) {
    EveryAllocationFails(
        "DXCoreCreateAdapterFactory",
        [](ComPtr<IUnknown>* out) { return DXCoreCreateAdapterFactory(__uuidof(IDXCoreAdapterFactory), Out(out)); },
        false);
    ComPtr<IDXCoreAdapterFactory> factory;
    ASSERT_EQ(DXCoreCreateAdapterFactory(IID_PPV_ARGS(&factory)), S_OK);
    // DXCORE_ADAPTER_ATTRIBUTE_D3D12_CORE_COMPUTE, spelled out (it needs no GUID library then).
    static const GUID kCoreCompute = {0x248e2800, 0xa793, 0x4724, {0xab, 0xaa, 0x23, 0xa6, 0xde, 0x1b, 0xe0, 0x90}};
    EveryAllocationFails(
        "IDXCoreAdapterFactory::CreateAdapterList",
        [f = factory.Get()](ComPtr<IUnknown>* out) {
            return f->CreateAdapterList(1, &kCoreCompute, __uuidof(IDXCoreAdapterList), Out(out));
        },
        false);
}

// The info queue cannot report its own failure as a message: it returns E_OUTOFMEMORY and stores
// nothing.
TEST_F(OutOfMemoryTest, InfoQueueAddMessage) {
    ComPtr<ID3D12InfoQueue> queue;
    ASSERT_EQ(d3d.As(&queue), S_OK);
    const UINT64 before = queue->GetNumStoredMessages();
    ArmAllocationFailure(0, FailOn::ThisThread);
    HRESULT hr = queue->AddApplicationMessage(D3D12_MESSAGE_SEVERITY_INFO, "a message that needs memory to be stored");
    ASSERT_TRUE(DisarmAllocationFailure());
    EXPECT_EQ(hr, E_OUTOFMEMORY);
    EXPECT_EQ(queue->GetNumStoredMessages(), before);
    EXPECT_EQ(queue->AddApplicationMessage(D3D12_MESSAGE_SEVERITY_INFO, "and now it fits"), S_OK);
    EXPECT_EQ(queue->GetNumStoredMessages(), before + 1);
}

// A failed SetPrivateData changes nothing: the value set before is still there.
TEST_F(OutOfMemoryTest, SetPrivateDataKeepsTheOldValue) {
    const GUID key = {0x5eed, 0x1, 0x2, {3, 4, 5, 6, 7, 8, 9, 10}};
    const int before = 7;
    ASSERT_EQ(fence->SetPrivateData(key, sizeof(before), &before), S_OK);
    const std::vector<int> large(64, 42);
    ArmAllocationFailure(0, FailOn::ThisThread);
    HRESULT hr = fence->SetPrivateData(key, static_cast<UINT>(large.size() * sizeof(int)), large.data());
    ASSERT_TRUE(DisarmAllocationFailure());
    EXPECT_EQ(hr, E_OUTOFMEMORY);
    int read = 0;
    UINT size = sizeof(read);
    EXPECT_EQ(fence->GetPrivateData(key, &size, &read), S_OK);
    EXPECT_EQ(size, sizeof(before));
    EXPECT_EQ(read, before);
    ArmAllocationFailure(0, FailOn::ThisThread);
    hr = dml->SetName(L"a name that needs memory");
    ASSERT_TRUE(DisarmAllocationFailure());
    EXPECT_EQ(hr, E_OUTOFMEMORY);
}

// D3D12 reports an allocation failure while recording at Close.
TEST_F(OutOfMemoryTest, AFailureWhileRecordingFailsClose) {
    auto a = Buffer(256), b = Buffer(256);
    size_t outOfMemory = 0;
    for (uint64_t index = 0; index < 1000; ++index) {
        ArmAllocationFailure(index, FailOn::ThisThread);
        list->CopyBufferRegion(b.Get(), 0, a.Get(), 0, 256);
        bool failed = DisarmAllocationFailure();
        HRESULT close = list->Close();
        ASSERT_EQ(list->Reset(allocator.Get(), nullptr), S_OK);
        if (!failed) {
            EXPECT_EQ(close, S_OK) << Messages();
            break;
        }
        EXPECT_TRUE(close == E_OUTOFMEMORY || close == S_OK) << "allocation " << index << ": " << close;
        outOfMemory += close == E_OUTOFMEMORY;
    }
    EXPECT_GT(outOfMemory, 0u);
    EXPECT_FALSE(DeviceRemoved());
}

// A void method that writes descriptors has no HRESULT: an allocation failure inside it (here in
// the message of an invalid view, and in CopyDescriptors' range lists) removes the device with
// E_OUTOFMEMORY instead of letting std::bad_alloc out to the application.
TEST_F(OutOfMemoryTest, AFailureInADescriptorWriteRemovesTheDevice) {
    auto buffer = Buffer(256);
    D3D12_UNORDERED_ACCESS_VIEW_DESC tooLong{};
    tooLong.ViewDimension = D3D12_UAV_DIMENSION_BUFFER;
    tooLong.Format = DXGI_FORMAT_R32_FLOAT;
    tooLong.Buffer.NumElements = 1000;  // 4000 bytes of a 256-byte buffer: refused, with a message
    ArmAllocationFailure(0, FailOn::ThisThread);
    d3d->CreateUnorderedAccessView(buffer.Get(), nullptr, &tooLong, heap->GetCPUDescriptorHandleForHeapStart());
    ASSERT_TRUE(DisarmAllocationFailure()) << "the refusal made no allocation";
    EXPECT_EQ(d3d->GetDeviceRemovedReason(), E_OUTOFMEMORY);
}

TEST_F(OutOfMemoryTest, AFailureInCopyDescriptorsRemovesTheDevice) {
    D3D12_DESCRIPTOR_HEAP_DESC desc{D3D12_DESCRIPTOR_HEAP_TYPE_CBV_SRV_UAV, 4, D3D12_DESCRIPTOR_HEAP_FLAG_NONE, 0};
    ComPtr<ID3D12DescriptorHeap> staging;
    ASSERT_EQ(d3d->CreateDescriptorHeap(&desc, IID_PPV_ARGS(&staging)), S_OK);
    ArmAllocationFailure(0, FailOn::ThisThread);
    d3d->CopyDescriptorsSimple(2, heap->GetCPUDescriptorHandleForHeapStart(),
                               staging->GetCPUDescriptorHandleForHeapStart(), D3D12_DESCRIPTOR_HEAP_TYPE_CBV_SRV_UAV);
    ASSERT_TRUE(DisarmAllocationFailure()) << "the copy made no allocation";
    EXPECT_EQ(d3d->GetDeviceRemovedReason(), E_OUTOFMEMORY);
}

// Makes `queue` (replacing what it held) while FREEDML_CPU_QUEUE_INLINE is `inlineRuns` ("0":
// every submission on the queue's worker; "1": idle queues run submissions on the calling thread).
HRESULT MakeQueue(ID3D12Device* device, const char* inlineRuns, ComPtr<ID3D12CommandQueue>* queue) {
    const char* before = std::getenv("FREEDML_CPU_QUEUE_INLINE");
    const std::string saved = before ? before : "";
    setenv("FREEDML_CPU_QUEUE_INLINE", inlineRuns, 1);
    D3D12_COMMAND_QUEUE_DESC desc{D3D12_COMMAND_LIST_TYPE_COMPUTE, 0, D3D12_COMMAND_QUEUE_FLAG_NONE, 0};
    HRESULT hr = device->CreateCommandQueue(&desc, IID_PPV_ARGS(queue->ReleaseAndGetAddressOf()));
    if (before) {
        setenv("FREEDML_CPU_QUEUE_INLINE", saved.c_str(), 1);
    } else {
        unsetenv("FREEDML_CPU_QUEUE_INLINE");
    }
    return hr;
}

TEST_F(OutOfMemoryTest, AFailureOnTheQueueRemovesTheDevice) {
    auto compiled = Compile(DML_OPERATOR_ELEMENT_WISE_IDENTITY, &identity);
    auto input = Buffer(tensor.Bytes()), output = Buffer(tensor.Bytes());
    Upload(input.Get(), std::vector<float>{1, 2, 3, 4, 5, 6});
    DML_BUFFER_BINDING inBinding{input.Get(), 0, tensor.Bytes()}, outBinding{output.Get(), 0, tensor.Bytes()};
    DML_BINDING_DESC inputs[] = {BufferBinding(&inBinding)}, outputs[] = {BufferBinding(&outBinding)};
    auto table = Table(compiled.Get());
    table->BindInputs(1, inputs);
    table->BindOutputs(1, outputs);
    ID3D12DescriptorHeap* heaps[] = {heap.Get()};
    list->SetDescriptorHeaps(1, heaps);
    Record(compiled.Get(), table.Get());
    ASSERT_EQ(list->Close(), S_OK) << Messages();
    ASSERT_FALSE(DeviceRemoved());
    ClearMessages();

    // A queue that runs everything on its worker (an idle CPU queue would run the list on this
    // thread). The first allocation on any thread but this one: the worker, running the list.
    ASSERT_EQ(MakeQueue(d3d.Get(), "0", &queue), S_OK);
    ArmAllocationFailure(0, FailOn::OtherThreads);
    ID3D12CommandList* lists[] = {list.Get()};
    queue->ExecuteCommandLists(1, lists);
    // The worker may remove the device before Signal is called; either way the wait ends.
    HRESULT signal = queue->Signal(fence.Get(), ++fenceValue);
    EXPECT_TRUE(signal == S_OK || signal == DXGI_ERROR_DEVICE_REMOVED) << signal;
    EXPECT_EQ(fence->SetEventOnCompletion(fenceValue, nullptr), S_OK);  // returns once removed
    bool failed = DisarmAllocationFailure();
    ASSERT_TRUE(failed) << "the worker made no allocation";

    EXPECT_EQ(d3d->GetDeviceRemovedReason(), E_OUTOFMEMORY);
    EXPECT_EQ(dml->GetDeviceRemovedReason(), E_OUTOFMEMORY);
    EXPECT_EQ(fence->GetCompletedValue(), UINT64_MAX);
    EXPECT_NE(Messages().find("Out of host memory while the work of ExecuteCommandLists ran"), std::string::npos)
        << Messages();
    // Later work is refused, not run.
    EXPECT_EQ(queue->Signal(fence.Get(), ++fenceValue), DXGI_ERROR_DEVICE_REMOVED);
}

TEST_F(OutOfMemoryTest, AFailureDuringAnInlineRunRemovesTheDevice) {
    // An idle CPU queue runs the list on the thread that calls ExecuteCommandLists: a failure
    // there removes the device as one on the worker does, and ExecuteCommandLists still returns.
    auto compiled = Compile(DML_OPERATOR_ELEMENT_WISE_IDENTITY, &identity);
    auto input = Buffer(tensor.Bytes()), output = Buffer(tensor.Bytes());
    Upload(input.Get(), std::vector<float>{1, 2, 3, 4, 5, 6});
    DML_BUFFER_BINDING inBinding{input.Get(), 0, tensor.Bytes()}, outBinding{output.Get(), 0, tensor.Bytes()};
    DML_BINDING_DESC inputs[] = {BufferBinding(&inBinding)}, outputs[] = {BufferBinding(&outBinding)};
    auto table = Table(compiled.Get());
    table->BindInputs(1, inputs);
    table->BindOutputs(1, outputs);
    ID3D12DescriptorHeap* heaps[] = {heap.Get()};
    list->SetDescriptorHeaps(1, heaps);
    Record(compiled.Get(), table.Get());
    ASSERT_EQ(list->Close(), S_OK) << Messages();
    ClearMessages();
    ASSERT_EQ(MakeQueue(d3d.Get(), "1", &queue), S_OK);  // the inline path, whatever the environment says

    ArmAllocationFailure(0, FailOn::ThisThread);
    ID3D12CommandList* lists[] = {list.Get()};
    queue->ExecuteCommandLists(1, lists);
    bool failed = DisarmAllocationFailure();
    ASSERT_TRUE(failed) << "ExecuteCommandLists made no allocation on the calling thread";
    EXPECT_EQ(d3d->GetDeviceRemovedReason(), E_OUTOFMEMORY);
    EXPECT_EQ(fence->GetCompletedValue(), UINT64_MAX);
    EXPECT_NE(Messages().find("Out of host memory while the work of ExecuteCommandLists ran"), std::string::npos)
        << Messages();
    EXPECT_EQ(queue->Signal(fence.Get(), ++fenceValue), DXGI_ERROR_DEVICE_REMOVED);
    // The (failed) execution is over: its allocator is not left counting it as executing.
    EXPECT_EQ(allocator->Reset(), S_OK) << Messages();
}

}  // namespace
}  // namespace freedml_test
