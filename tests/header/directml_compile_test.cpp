// FreeDML - source compatibility of include/DirectML.h.
//
// HelloDirectML() below is written the way DirectML applications are written (an element-wise
// identity over a 1x2x3x4 tensor, recorded with a command recorder), using ComPtr, IID_PPV_ARGS
// and __uuidof. The test only needs it to compile and link: it is never called with a real device,
// because the library under test is built separately. DMLCreateDevice / DMLCreateDevice1 are
// referenced weakly so that this program links whether or not libdirectml is on the link line.
#include <wsl/winadapter.h>
#include <directx/d3d12.h>
#include <DirectML.h>
#include <dxguids/dxguids.h>  // __uuidof for the D3D12 interfaces on Linux
#include <wrl/client.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <cstdlib>
#include <vector>

extern "C" HRESULT DMLCreateDevice(ID3D12Device*, DML_CREATE_DEVICE_FLAGS, REFIID, void**) __attribute__((weak));
extern "C" HRESULT DMLCreateDevice1(ID3D12Device*, DML_CREATE_DEVICE_FLAGS, DML_FEATURE_LEVEL, REFIID, void**)
    __attribute__((weak));

using Microsoft::WRL::ComPtr;

namespace {

#define RETURN_IF_FAILED(expr)      \
    do {                            \
        HRESULT hr_ = (expr);       \
        if (FAILED(hr_)) return hr_; \
    } while (0)

// Element count of an array, as a UINT (Windows code often spells this ARRAYSIZE).
template <typename T, std::size_t N>
constexpr UINT CountOf(const T (&)[N])
{
    return static_cast<UINT>(N);
}

constexpr UINT kTensorSizes[4] = {1, 2, 3, 4};
constexpr UINT kTensorElementCount = 1 * 2 * 3 * 4;

// The usual size formula for a packed float32 tensor, rounded up to 4 bytes.
UINT64 PackedTensorBytes()
{
    return (static_cast<UINT64>(kTensorElementCount) * sizeof(float) + 3) & ~UINT64(3);
}

// Creates, compiles, initializes and records one identity operator. Returns the first failure.
HRESULT HelloDirectML(ID3D12Device* d3d12Device, ID3D12CommandQueue* queue, ID3D12CommandAllocator* allocator,
                      ID3D12GraphicsCommandList* commandList, ID3D12Resource* inputBuffer,
                      ID3D12Resource* outputBuffer)
{
    // Device, with the debug layer in debug builds.
    DML_CREATE_DEVICE_FLAGS createFlags = DML_CREATE_DEVICE_FLAG_NONE;
#if !defined(NDEBUG)
    createFlags |= DML_CREATE_DEVICE_FLAG_DEBUG;
#endif
    ComPtr<IDMLDevice> dmlDevice;
    RETURN_IF_FAILED(DMLCreateDevice(d3d12Device, createFlags, IID_PPV_ARGS(&dmlDevice)));

    // Feature level query.
    DML_FEATURE_LEVEL levels[] = {DML_FEATURE_LEVEL_5_0, DML_FEATURE_LEVEL_6_0, DML_FEATURE_LEVEL_6_4};
    DML_FEATURE_QUERY_FEATURE_LEVELS query = {static_cast<UINT>(std::size(levels)), levels};
    DML_FEATURE_DATA_FEATURE_LEVELS supported = {};
    RETURN_IF_FAILED(dmlDevice->CheckFeatureSupport(DML_FEATURE_FEATURE_LEVELS, sizeof(query), &query,
                                                    sizeof(supported), &supported));

    // Tensor and operator descriptions.
    DML_BUFFER_TENSOR_DESC bufferDesc = {};
    bufferDesc.DataType = DML_TENSOR_DATA_TYPE_FLOAT32;
    bufferDesc.Flags = DML_TENSOR_FLAG_NONE;
    bufferDesc.DimensionCount = CountOf(kTensorSizes);
    bufferDesc.Sizes = kTensorSizes;
    bufferDesc.Strides = nullptr;
    bufferDesc.TotalTensorSizeInBytes = PackedTensorBytes();
    DML_TENSOR_DESC tensorDesc = {DML_TENSOR_TYPE_BUFFER, &bufferDesc};

    DML_ELEMENT_WISE_IDENTITY_OPERATOR_DESC identityDesc = {};
    identityDesc.InputTensor = &tensorDesc;
    identityDesc.OutputTensor = &tensorDesc;
    DML_OPERATOR_DESC opDesc = {DML_OPERATOR_ELEMENT_WISE_IDENTITY, &identityDesc};

    ComPtr<IDMLOperator> op;
    RETURN_IF_FAILED(dmlDevice->CreateOperator(&opDesc, IID_PPV_ARGS(op.GetAddressOf())));

    ComPtr<IDMLCompiledOperator> compiled;
    RETURN_IF_FAILED(dmlDevice->CompileOperator(op.Get(), DML_EXECUTION_FLAG_ALLOW_HALF_PRECISION_COMPUTATION,
                                                IID_PPV_ARGS(&compiled)));

    // A fused activation on a second operator, as many applications use.
    DML_ACTIVATION_RELU_OPERATOR_DESC reluDesc = {};
    DML_OPERATOR_DESC fusedRelu = {DML_OPERATOR_ACTIVATION_RELU, &reluDesc};
    DML_ELEMENT_WISE_ADD1_OPERATOR_DESC addDesc = {&tensorDesc, &tensorDesc, &tensorDesc, &fusedRelu};
    DML_OPERATOR_DESC addOpDesc = {DML_OPERATOR_ELEMENT_WISE_ADD1, &addDesc};
    ComPtr<IDMLOperator> addOp;
    RETURN_IF_FAILED(dmlDevice->CreateOperator(&addOpDesc, __uuidof(IDMLOperator),
                                               reinterpret_cast<void**>(addOp.GetAddressOf())));

    // Initializer and the descriptor heap sized for both it and the operator.
    IDMLCompiledOperator* compiledOperators[] = {compiled.Get()};
    ComPtr<IDMLOperatorInitializer> initializer;
    RETURN_IF_FAILED(dmlDevice->CreateOperatorInitializer(CountOf(compiledOperators), compiledOperators,
                                                          IID_PPV_ARGS(&initializer)));
    DML_BINDING_PROPERTIES initProps = initializer->GetBindingProperties();
    DML_BINDING_PROPERTIES execProps = compiled->GetBindingProperties();
    UINT descriptorCount = std::max(initProps.RequiredDescriptorCount, execProps.RequiredDescriptorCount);

    D3D12_DESCRIPTOR_HEAP_DESC heapDesc = {};
    heapDesc.Type = D3D12_DESCRIPTOR_HEAP_TYPE_CBV_SRV_UAV;
    heapDesc.NumDescriptors = descriptorCount;
    heapDesc.Flags = D3D12_DESCRIPTOR_HEAP_FLAG_SHADER_VISIBLE;
    ComPtr<ID3D12DescriptorHeap> heap;
    RETURN_IF_FAILED(d3d12Device->CreateDescriptorHeap(&heapDesc, IID_PPV_ARGS(&heap)));
    ID3D12DescriptorHeap* heaps[] = {heap.Get()};
    commandList->SetDescriptorHeaps(CountOf(heaps), heaps);

    DML_BINDING_TABLE_DESC tableDesc = {};
    tableDesc.Dispatchable = initializer.Get();
    tableDesc.CPUDescriptorHandle = heap->GetCPUDescriptorHandleForHeapStart();
    tableDesc.GPUDescriptorHandle = heap->GetGPUDescriptorHandleForHeapStart();
    tableDesc.SizeInDescriptors = descriptorCount;
    ComPtr<IDMLBindingTable> bindingTable;
    RETURN_IF_FAILED(dmlDevice->CreateBindingTable(&tableDesc, IID_PPV_ARGS(&bindingTable)));

    ComPtr<IDMLCommandRecorder> recorder;
    RETURN_IF_FAILED(dmlDevice->CreateCommandRecorder(IID_PPV_ARGS(&recorder)));
    recorder->RecordDispatch(commandList, initializer.Get(), bindingTable.Get());

    // Execution bindings.
    tableDesc.Dispatchable = compiled.Get();
    RETURN_IF_FAILED(bindingTable->Reset(&tableDesc));
    DML_BUFFER_BINDING inputBinding = {inputBuffer, 0, PackedTensorBytes()};
    DML_BINDING_DESC inputBindingDesc = {DML_BINDING_TYPE_BUFFER, &inputBinding};
    bindingTable->BindInputs(1, &inputBindingDesc);
    DML_BUFFER_BINDING outputBinding = {outputBuffer, 0, PackedTensorBytes()};
    DML_BINDING_DESC outputBindingDesc = {DML_BINDING_TYPE_BUFFER, &outputBinding};
    bindingTable->BindOutputs(1, &outputBindingDesc);
    DML_BUFFER_ARRAY_BINDING noArray = {0, nullptr};
    (void)noArray;
    DML_BINDING_DESC none = {DML_BINDING_TYPE_NONE, nullptr};
    bindingTable->BindTemporaryResource(&none);
    bindingTable->BindPersistentResource(&none);
    recorder->RecordDispatch(commandList, compiled.Get(), bindingTable.Get());

    RETURN_IF_FAILED(commandList->Close());
    ID3D12CommandList* lists[] = {commandList};
    queue->ExecuteCommandLists(CountOf(lists), lists);
    RETURN_IF_FAILED(allocator->Reset());

    // Object names, private data, residency, the parent device, the debug interface.
    RETURN_IF_FAILED(compiled->SetName(L"identity"));
    IDMLPageable* pageables[] = {compiled.Get()};
    RETURN_IF_FAILED(dmlDevice->Evict(CountOf(pageables), pageables));
    RETURN_IF_FAILED(dmlDevice->MakeResident(CountOf(pageables), pageables));
    ComPtr<ID3D12Device> parent;
    RETURN_IF_FAILED(dmlDevice->GetParentDevice(IID_PPV_ARGS(&parent)));
    ComPtr<IDMLDevice> owner;
    RETURN_IF_FAILED(compiled->GetDevice(IID_PPV_ARGS(&owner)));
    ComPtr<IDMLDebugDevice> debug;
    if (SUCCEEDED(dmlDevice.As(&debug))) debug->SetMuteDebugOutput(FALSE);

    // Graph compilation through IDMLDevice1.
    ComPtr<IDMLDevice1> device1;
    RETURN_IF_FAILED(dmlDevice.As(&device1));
    DML_OPERATOR_GRAPH_NODE_DESC nodeDesc = {op.Get(), "identity"};
    DML_GRAPH_NODE_DESC node = {DML_GRAPH_NODE_TYPE_OPERATOR, &nodeDesc};
    DML_INPUT_GRAPH_EDGE_DESC inEdge = {0, 0, 0, nullptr};
    DML_OUTPUT_GRAPH_EDGE_DESC outEdge = {0, 0, 0, nullptr};
    DML_GRAPH_EDGE_DESC inEdges[] = {{DML_GRAPH_EDGE_TYPE_INPUT, &inEdge}};
    DML_GRAPH_EDGE_DESC outEdges[] = {{DML_GRAPH_EDGE_TYPE_OUTPUT, &outEdge}};
    DML_GRAPH_DESC graph = {1, 1, 1, &node, 1, inEdges, 1, outEdges, 0, nullptr};
    ComPtr<IDMLCompiledOperator> compiledGraph;
    RETURN_IF_FAILED(device1->CompileGraph(&graph, DML_EXECUTION_FLAG_NONE, IID_PPV_ARGS(&compiledGraph)));

    // DMLCreateDevice1 with a minimum feature level.
    ComPtr<IDMLDevice1> device1b;
    RETURN_IF_FAILED(DMLCreateDevice1(d3d12Device, DML_CREATE_DEVICE_FLAG_NONE, DML_FEATURE_LEVEL_6_4,
                                      IID_PPV_ARGS(&device1b)));
    return dmlDevice->GetDeviceRemovedReason();
}

// Descriptions of a few more operators, built the way applications fill them in.
int BuildMoreDescs()
{
    DML_TENSOR_DESC t = {};
    UINT strides[2] = {1, 1}, dilations[2] = {1, 1}, pads[2] = {0, 0}, outPads[2] = {0, 0};
    DML_CONVOLUTION_OPERATOR_DESC conv = {&t, &t, nullptr, &t, DML_CONVOLUTION_MODE_CROSS_CORRELATION,
                                          DML_CONVOLUTION_DIRECTION_FORWARD, 2, strides, dilations, pads, pads,
                                          outPads, 1, nullptr};
    DML_GEMM_OPERATOR_DESC gemm = {&t, &t, nullptr, &t, DML_MATRIX_TRANSFORM_NONE, DML_MATRIX_TRANSFORM_TRANSPOSE,
                                   1.0f, 0.0f, nullptr};
    DML_TENSOR_DESC parts[2] = {t, t};
    DML_JOIN_OPERATOR_DESC join = {2, parts, &t, 1};
    DML_SCALAR_UNION value = {};
    value.Float32 = 1.5f;
    DML_FILL_VALUE_CONSTANT_OPERATOR_DESC fill = {&t, DML_TENSOR_DATA_TYPE_FLOAT32, value};
    DML_MULTIHEAD_ATTENTION_OPERATOR_DESC mha = {};
    mha.OutputTensor = &t;
    mha.HeadCount = 8;
    mha.MaskType = DML_MULTIHEAD_ATTENTION_MASK_TYPE_NONE;
    DML_QUANTIZE_OPERATOR_DESC quantize = {&t, DML_QUANTIZATION_TYPE_SCALE_ZERO_POINT, 2, parts, &t};
    std::vector<DML_OPERATOR_DESC> descs = {
        {DML_OPERATOR_CONVOLUTION, &conv},     {DML_OPERATOR_GEMM, &gemm},
        {DML_OPERATOR_JOIN, &join},            {DML_OPERATOR_FILL_VALUE_CONSTANT, &fill},
        {DML_OPERATOR_MULTIHEAD_ATTENTION, &mha}, {DML_OPERATOR_QUANTIZE, &quantize},
    };
    return static_cast<int>(descs.size());
}

TEST(DirectMLHeader, ApplicationCodeCompilesAndLinks)
{
    EXPECT_EQ(BuildMoreDescs(), 6);

    // Never true in the test run: the point is that HelloDirectML is compiled and linked.
    if (std::getenv("FREEDML_HEADER_TEST_CALL_HELLO_WITH_NULL_DEVICE") != nullptr && DMLCreateDevice != nullptr) {
        // Called through a volatile pointer so the optimizer does not reason about the null arguments.
        decltype(&HelloDirectML) volatile hello = &HelloDirectML;
        EXPECT_TRUE(FAILED(hello(nullptr, nullptr, nullptr, nullptr, nullptr, nullptr)));
    }
    auto create = &DMLCreateDevice;
    auto create1 = &DMLCreateDevice1;
    (void)create;
    (void)create1;
}

} // namespace
