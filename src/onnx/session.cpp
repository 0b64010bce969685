#include "session.h"

#include <DirectML.h>
#include <directx/d3dx12.h>
#include <directx/dxcore.h>
#include <dxguids/dxguids.h>
#include <freedml/freedml.h>
#include <wsl/wrladapter.h>

#include <cstdlib>
#include <cstring>
#include <mutex>

namespace freedml::onnx {

using Microsoft::WRL::ComPtr;

namespace {

std::string Hex(HRESULT hr) {
    char buffer[16];
    std::snprintf(buffer, sizeof(buffer), "0x%08X", static_cast<unsigned>(hr));
    return buffer;
}

std::string AdapterDescription(const LUID& luid) {
    ComPtr<IDXCoreAdapterFactory> factory;
    ComPtr<IDXCoreAdapterList> list;
    const GUID attributes[] = {DXCORE_ADAPTER_ATTRIBUTE_D3D12_CORE_COMPUTE};
    if (FAILED(DXCoreCreateAdapterFactory(IID_PPV_ARGS(&factory))) ||
        FAILED(factory->CreateAdapterList(1, attributes, IID_PPV_ARGS(&list)))) {
        return "an unnamed adapter";
    }
    for (uint32_t i = 0; i < list->GetAdapterCount(); ++i) {
        ComPtr<IDXCoreAdapter> adapter;
        LUID candidate{};
        if (FAILED(list->GetAdapter(i, IID_PPV_ARGS(&adapter))) ||
            FAILED(adapter->GetProperty(DXCoreAdapterProperty::InstanceLuid, &candidate)) ||
            candidate.LowPart != luid.LowPart || candidate.HighPart != luid.HighPart) {
            continue;
        }
        size_t size = 0;
        if (FAILED(adapter->GetPropertySize(DXCoreAdapterProperty::DriverDescription, &size)) || size == 0) break;
        std::string name(size, '\0');
        if (FAILED(adapter->GetProperty(DXCoreAdapterProperty::DriverDescription, size, name.data()))) break;
        name.resize(std::strlen(name.c_str()));
        return name;
    }
    return "an unnamed adapter";
}

}  // namespace

struct Session::Impl {
    const LoweredGraph& graph;
    std::string adapterName;
    std::mutex mutex;
    std::vector<std::string> messages;
    FREEDML_MESSAGE_CALLBACK previous = nullptr;
    ComPtr<ID3D12Device> device;
    ComPtr<IDMLDevice> dml;
    ComPtr<ID3D12CommandQueue> queue;
    ComPtr<ID3D12CommandAllocator> allocator;
    ComPtr<ID3D12GraphicsCommandList> list;
    ComPtr<ID3D12Fence> fence;
    ComPtr<IDMLCommandRecorder> recorder;
    ComPtr<IDMLCompiledOperator> compiled;
    ComPtr<ID3D12Resource> persistent, temporary;
    ComPtr<ID3D12DescriptorHeap> heap;
    ComPtr<IDMLBindingTable> table;
    std::vector<ComPtr<ID3D12Resource>> inputs, outputs;
    UINT64 fenceValue = 0;

    explicit Impl(const LoweredGraph& g) : graph(g) {}

    static void Receive(FREEDML_MESSAGE_SEVERITY severity, const char*, const char* text, void* context) {
        auto* self = static_cast<Impl*>(context);
        if (severity > FREEDML_MESSAGE_SEVERITY_WARNING || !text) return;
        std::lock_guard<std::mutex> lock(self->mutex);
        if (self->messages.size() < 16) self->messages.push_back(text);
    }

    std::string TakeMessages() {
        std::lock_guard<std::mutex> lock(mutex);
        std::string text;
        for (const auto& m : messages) text += (text.empty() ? "" : " ") + m;
        messages.clear();
        return text;
    }

    [[noreturn]] void Fail(const std::string& what, HRESULT hr) {
        std::string said = TakeMessages();
        throw SessionError(what + " failed (" + Hex(hr) + ")" + (said.empty() ? "." : ": FreeDML says: " + said));
    }
    void Check(HRESULT hr, const std::string& what) {
        if (FAILED(hr)) Fail(what, hr);
    }
    void CheckRemoved(const std::string& what) {
        HRESULT hr = dml->GetDeviceRemovedReason();
        if (FAILED(hr)) Fail(what, hr);
    }

    ComPtr<ID3D12Resource> Buffer(UINT64 size, D3D12_HEAP_TYPE type, D3D12_RESOURCE_STATES state) {
        CD3DX12_HEAP_PROPERTIES heapProps(type);
        auto desc = CD3DX12_RESOURCE_DESC::Buffer(
            std::max<UINT64>(size, 4), type == D3D12_HEAP_TYPE_DEFAULT ? D3D12_RESOURCE_FLAG_ALLOW_UNORDERED_ACCESS : D3D12_RESOURCE_FLAG_NONE);
        ComPtr<ID3D12Resource> buffer;
        Check(device->CreateCommittedResource(&heapProps, D3D12_HEAP_FLAG_NONE, &desc, state, nullptr, IID_PPV_ARGS(&buffer)),
              "creating a buffer of " + std::to_string(size) + " bytes");
        return buffer;
    }

    void Submit(const std::string& what) {
        Check(list->Close(), "closing the command list for " + what);
        ID3D12CommandList* lists[] = {list.Get()};
        queue->ExecuteCommandLists(1, lists);
        Check(queue->Signal(fence.Get(), ++fenceValue), "signalling the fence after " + what);
        Check(fence->SetEventOnCompletion(fenceValue, nullptr), "waiting for " + what);  // null: blocks until done
        CheckRemoved(what);
        Check(device->GetDeviceRemovedReason(), what);
        Check(allocator->Reset(), "resetting the command allocator after " + what);
        Check(list->Reset(allocator.Get(), nullptr), "resetting the command list after " + what);
    }

    ComPtr<ID3D12DescriptorHeap> Heap(UINT count) {
        D3D12_DESCRIPTOR_HEAP_DESC desc = {};
        desc.Type = D3D12_DESCRIPTOR_HEAP_TYPE_CBV_SRV_UAV;
        desc.NumDescriptors = std::max<UINT>(count, 1);
        desc.Flags = D3D12_DESCRIPTOR_HEAP_FLAG_SHADER_VISIBLE;
        ComPtr<ID3D12DescriptorHeap> h;
        Check(device->CreateDescriptorHeap(&desc, IID_PPV_ARGS(&h)), "creating a descriptor heap");
        return h;
    }

    void Create(const SessionOptions& options) {
        previous = FreeDMLSetMessageCallback(&Impl::Receive, this);
        if (!options.adapter.empty()) setenv("FREEDML_ADAPTER", options.adapter.c_str(), 1);
        if (options.debug) {
            ComPtr<ID3D12Debug> debug;
            if (SUCCEEDED(D3D12GetDebugInterface(IID_PPV_ARGS(&debug)))) debug->EnableDebugLayer();
        }
        Check(D3D12CreateDevice(nullptr, D3D_FEATURE_LEVEL_11_0, IID_PPV_ARGS(&device)), "D3D12CreateDevice");
        adapterName = AdapterDescription(device->GetAdapterLuid());
        Check(DMLCreateDevice(device.Get(), options.debug ? DML_CREATE_DEVICE_FLAG_DEBUG : DML_CREATE_DEVICE_FLAG_NONE,
                              IID_PPV_ARGS(&dml)),
              "DMLCreateDevice");
        D3D12_COMMAND_QUEUE_DESC queueDesc = {};
        queueDesc.Type = D3D12_COMMAND_LIST_TYPE_DIRECT;
        Check(device->CreateCommandQueue(&queueDesc, IID_PPV_ARGS(&queue)), "CreateCommandQueue");
        Check(device->CreateCommandAllocator(D3D12_COMMAND_LIST_TYPE_DIRECT, IID_PPV_ARGS(&allocator)), "CreateCommandAllocator");
        Check(device->CreateCommandList(0, D3D12_COMMAND_LIST_TYPE_DIRECT, allocator.Get(), nullptr, IID_PPV_ARGS(&list)),
              "CreateCommandList");
        Check(device->CreateFence(0, D3D12_FENCE_FLAG_NONE, IID_PPV_ARGS(&fence)), "CreateFence");
        Check(dml->CreateCommandRecorder(IID_PPV_ARGS(&recorder)), "IDMLDevice::CreateCommandRecorder");

        // Every operator first: a node DirectML refuses is reported before anything runs.
        std::vector<ComPtr<IDMLOperator>> operators(graph.nodes.size());
        std::vector<DML_OPERATOR_GRAPH_NODE_DESC> opNodes(graph.nodes.size());
        std::vector<DML_CONSTANT_DATA_GRAPH_NODE_DESC> constNodes(graph.nodes.size());
        std::vector<DML_GRAPH_NODE_DESC> nodes(graph.nodes.size());
        for (size_t i = 0; i < graph.nodes.size(); ++i) {
            const GraphNode& node = graph.nodes[i];
            if (node.type == DML_OPERATOR_INVALID) {
                constNodes[i] = {node.constant.data(), node.constant.size(), node.name.c_str()};
                nodes[i] = {DML_GRAPH_NODE_TYPE_CONSTANT, &constNodes[i]};
                continue;
            }
            DML_OPERATOR_DESC desc = {node.type, node.desc};
            HRESULT hr = dml->CreateOperator(&desc, IID_PPV_ARGS(&operators[i]));
            if (FAILED(hr)) {
                std::string said = TakeMessages();
                throw SessionError(node.origin + ": DirectML refuses the operator it lowers to (" + Hex(hr) + ")" +
                                   (said.empty() ? "." : ": " + said));
            }
            opNodes[i] = {operators[i].Get(), node.name.c_str()};
            nodes[i] = {DML_GRAPH_NODE_TYPE_OPERATOR, &opNodes[i]};
        }
        std::vector<DML_GRAPH_EDGE_DESC> in, mid, out;
        for (const auto& e : graph.inputEdges) in.push_back({DML_GRAPH_EDGE_TYPE_INPUT, &e});
        for (const auto& e : graph.intermediateEdges) mid.push_back({DML_GRAPH_EDGE_TYPE_INTERMEDIATE, &e});
        for (const auto& e : graph.outputEdges) out.push_back({DML_GRAPH_EDGE_TYPE_OUTPUT, &e});
        DML_GRAPH_DESC desc{static_cast<UINT>(graph.inputs.size()), static_cast<UINT>(graph.outputs.size()),
                            static_cast<UINT>(nodes.size()), nodes.data(), static_cast<UINT>(in.size()), in.data(),
                            static_cast<UINT>(out.size()), out.data(), static_cast<UINT>(mid.size()),
                            mid.empty() ? nullptr : mid.data()};
        ComPtr<IDMLDevice1> dml1;
        Check(dml.As(&dml1), "QueryInterface for IDMLDevice1");
        const DML_EXECUTION_FLAGS flags = options.allowHalfPrecision ? DML_EXECUTION_FLAG_ALLOW_HALF_PRECISION_COMPUTATION
                                                                     : DML_EXECUTION_FLAG_NONE;
        Check(dml1->CompileGraph(&desc, flags, IID_PPV_ARGS(&compiled)), "IDMLDevice1::CompileGraph");

        for (const auto& port : graph.inputs) {
            inputs.push_back(Buffer(port.totalBytes, D3D12_HEAP_TYPE_DEFAULT, D3D12_RESOURCE_STATE_UNORDERED_ACCESS));
        }
        for (const auto& port : graph.outputs) {
            outputs.push_back(Buffer(port.totalBytes, D3D12_HEAP_TYPE_DEFAULT, D3D12_RESOURCE_STATE_UNORDERED_ACCESS));
        }
        Initialize();
        PrepareExecution();
    }

    void Initialize() {
        ComPtr<IDMLOperatorInitializer> initializer;
        IDMLCompiledOperator* ops[] = {compiled.Get()};
        Check(dml->CreateOperatorInitializer(1, ops, IID_PPV_ARGS(&initializer)), "CreateOperatorInitializer");
        const auto initProps = initializer->GetBindingProperties();
        const auto execProps = compiled->GetBindingProperties();
        auto initHeap = Heap(initProps.RequiredDescriptorCount);
        DML_BINDING_TABLE_DESC tableDesc = {initializer.Get(), initHeap->GetCPUDescriptorHandleForHeapStart(),
                                            initHeap->GetGPUDescriptorHandleForHeapStart(), initProps.RequiredDescriptorCount};
        ComPtr<IDMLBindingTable> initTable;
        Check(dml->CreateBindingTable(&tableDesc, IID_PPV_ARGS(&initTable)), "CreateBindingTable (initializer)");
        ComPtr<ID3D12Resource> initTemp;
        if (initProps.TemporaryResourceSize) {
            initTemp = Buffer(initProps.TemporaryResourceSize, D3D12_HEAP_TYPE_DEFAULT, D3D12_RESOURCE_STATE_UNORDERED_ACCESS);
            DML_BUFFER_BINDING b = {initTemp.Get(), 0, initProps.TemporaryResourceSize};
            DML_BINDING_DESC d = {DML_BINDING_TYPE_BUFFER, &b};
            initTable->BindTemporaryResource(&d);
        }
        if (execProps.PersistentResourceSize) {
            persistent = Buffer(execProps.PersistentResourceSize, D3D12_HEAP_TYPE_DEFAULT, D3D12_RESOURCE_STATE_UNORDERED_ACCESS);
            DML_BUFFER_BINDING b = {persistent.Get(), 0, execProps.PersistentResourceSize};
            DML_BINDING_DESC d = {DML_BINDING_TYPE_BUFFER, &b};
            initTable->BindOutputs(1, &d);
        }
        CheckRemoved("binding the initializer");
        ID3D12DescriptorHeap* heaps[] = {initHeap.Get()};
        list->SetDescriptorHeaps(1, heaps);
        recorder->RecordDispatch(list.Get(), initializer.Get(), initTable.Get());
        CheckRemoved("recording the initialization");
        Submit("initializing the graph");
    }

    void PrepareExecution() {
        const auto props = compiled->GetBindingProperties();
        heap = Heap(props.RequiredDescriptorCount);
        DML_BINDING_TABLE_DESC tableDesc = {compiled.Get(), heap->GetCPUDescriptorHandleForHeapStart(),
                                            heap->GetGPUDescriptorHandleForHeapStart(), props.RequiredDescriptorCount};
        Check(dml->CreateBindingTable(&tableDesc, IID_PPV_ARGS(&table)), "CreateBindingTable (execution)");
        std::vector<DML_BUFFER_BINDING> inBuffers(inputs.size()), outBuffers(outputs.size());
        std::vector<DML_BINDING_DESC> inDescs(inputs.size()), outDescs(outputs.size());
        std::vector<bool> read(inputs.size(), false);
        for (const auto& e : graph.inputEdges) read[e.GraphInputIndex] = true;
        for (size_t i = 0; i < inputs.size(); ++i) {
            // A graph input no node reads (a Reshape's shape, known from shape inference) is bound
            // to nothing, as DirectML asks for inputs it does not use.
            if (!read[i]) {
                inDescs[i] = {DML_BINDING_TYPE_NONE, nullptr};
                continue;
            }
            inBuffers[i] = {inputs[i].Get(), 0, graph.inputs[i].totalBytes};
            inDescs[i] = {DML_BINDING_TYPE_BUFFER, &inBuffers[i]};
        }
        for (size_t i = 0; i < outputs.size(); ++i) {
            outBuffers[i] = {outputs[i].Get(), 0, graph.outputs[i].totalBytes};
            outDescs[i] = {DML_BINDING_TYPE_BUFFER, &outBuffers[i]};
        }
        table->BindInputs(static_cast<UINT>(inDescs.size()), inDescs.data());
        table->BindOutputs(static_cast<UINT>(outDescs.size()), outDescs.data());
        if (props.TemporaryResourceSize) {
            temporary = Buffer(props.TemporaryResourceSize, D3D12_HEAP_TYPE_DEFAULT, D3D12_RESOURCE_STATE_UNORDERED_ACCESS);
            DML_BUFFER_BINDING b = {temporary.Get(), 0, props.TemporaryResourceSize};
            DML_BINDING_DESC d = {DML_BINDING_TYPE_BUFFER, &b};
            table->BindTemporaryResource(&d);
        }
        if (persistent) {
            DML_BUFFER_BINDING b = {persistent.Get(), 0, props.PersistentResourceSize};
            DML_BINDING_DESC d = {DML_BINDING_TYPE_BUFFER, &b};
            table->BindPersistentResource(&d);
        }
        CheckRemoved("binding the graph's inputs and outputs");
    }

    void Copy(ID3D12Resource* to, ID3D12Resource* from, UINT64 size, ID3D12Resource* transitioned, bool toCopyDest) {
        auto before = CD3DX12_RESOURCE_BARRIER::Transition(transitioned, D3D12_RESOURCE_STATE_UNORDERED_ACCESS,
                                                           toCopyDest ? D3D12_RESOURCE_STATE_COPY_DEST : D3D12_RESOURCE_STATE_COPY_SOURCE);
        list->ResourceBarrier(1, &before);
        list->CopyBufferRegion(to, 0, from, 0, size);
        auto after = CD3DX12_RESOURCE_BARRIER::Transition(transitioned,
                                                          toCopyDest ? D3D12_RESOURCE_STATE_COPY_DEST : D3D12_RESOURCE_STATE_COPY_SOURCE,
                                                          D3D12_RESOURCE_STATE_UNORDERED_ACCESS);
        list->ResourceBarrier(1, &after);
    }
};

Session::Session(const LoweredGraph& graph, const SessionOptions& options) : impl_(std::make_unique<Impl>(graph)) {
    impl_->Create(options);
}

Session::~Session() {
    if (impl_) FreeDMLSetMessageCallback(impl_->previous, nullptr);
}

const std::string& Session::AdapterName() const { return impl_->adapterName; }

void Session::SetInput(size_t index, const std::vector<uint8_t>& bytes) {
    Impl& s = *impl_;
    const Port& port = s.graph.inputs.at(index);
    if (bytes.size() != port.elementCount * DataTypeSize(port.dataType)) {
        throw SessionError("input '" + port.name + "' takes " + std::to_string(port.elementCount * DataTypeSize(port.dataType)) +
                           " bytes, not " + std::to_string(bytes.size()) + ".");
    }
    auto upload = s.Buffer(port.totalBytes, D3D12_HEAP_TYPE_UPLOAD, D3D12_RESOURCE_STATE_GENERIC_READ);
    void* mapped = nullptr;
    D3D12_RANGE none = {0, 0};
    s.Check(upload->Map(0, &none, &mapped), "mapping an upload buffer");
    std::memset(mapped, 0, port.totalBytes);
    if (!bytes.empty()) std::memcpy(mapped, bytes.data(), bytes.size());
    upload->Unmap(0, nullptr);
    s.Copy(s.inputs[index].Get(), upload.Get(), port.totalBytes, s.inputs[index].Get(), true);
    s.Submit("uploading input '" + port.name + "'");
}

void Session::Execute() {
    Impl& s = *impl_;
    ID3D12DescriptorHeap* heaps[] = {s.heap.Get()};
    s.list->SetDescriptorHeaps(1, heaps);
    s.recorder->RecordDispatch(s.list.Get(), s.compiled.Get(), s.table.Get());
    auto barrier = CD3DX12_RESOURCE_BARRIER::UAV(nullptr);
    s.list->ResourceBarrier(1, &barrier);
    s.CheckRemoved("recording the graph's dispatch");
    s.Submit("running the graph");
}

std::vector<uint8_t> Session::Output(size_t index) {
    Impl& s = *impl_;
    const Port& port = s.graph.outputs.at(index);
    auto readback = s.Buffer(port.totalBytes, D3D12_HEAP_TYPE_READBACK, D3D12_RESOURCE_STATE_COPY_DEST);
    s.Copy(readback.Get(), s.outputs[index].Get(), port.totalBytes, s.outputs[index].Get(), false);
    s.Submit("reading output '" + port.name + "'");
    void* mapped = nullptr;
    D3D12_RANGE all = {0, static_cast<SIZE_T>(port.totalBytes)};
    s.Check(readback->Map(0, &all, &mapped), "mapping a readback buffer");
    const size_t size = port.elementCount * DataTypeSize(port.dataType);
    std::vector<uint8_t> bytes(static_cast<const uint8_t*>(mapped), static_cast<const uint8_t*>(mapped) + size);
    D3D12_RANGE none = {0, 0};
    readback->Unmap(0, &none);
    return bytes;
}

}  // namespace freedml::onnx
