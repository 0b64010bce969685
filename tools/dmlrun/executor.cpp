#include "executor.h"

#include <DirectML.h>
#include <directx/d3dx12.h>
#include <directx/dxcore.h>
#include <dxguids/dxguids.h>
#include <freedml/freedml.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <unistd.h>
#include <wsl/wrladapter.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <mutex>

#include "npy.h"
#include "print_format.h"
#include "progress.h"
#include "values.h"

namespace dmlrun {

namespace {

using Microsoft::WRL::ComPtr;

std::string HresultText(HRESULT hr) {
    struct Known {
        HRESULT hr;
        const char* name;
    };
    static const Known kKnown[] = {
        {E_INVALIDARG, "E_INVALIDARG"},
        {E_OUTOFMEMORY, "E_OUTOFMEMORY"},
        {E_NOTIMPL, "E_NOTIMPL"},
        {E_FAIL, "E_FAIL"},
        {E_NOINTERFACE, "E_NOINTERFACE"},
        {E_POINTER, "E_POINTER"},
        {DXGI_ERROR_UNSUPPORTED, "DXGI_ERROR_UNSUPPORTED"},
        {DXGI_ERROR_DEVICE_REMOVED, "DXGI_ERROR_DEVICE_REMOVED"},
        {DXGI_ERROR_NOT_FOUND, "DXGI_ERROR_NOT_FOUND"},
        {DXGI_ERROR_INVALID_CALL, "DXGI_ERROR_INVALID_CALL"},
    };
    char buffer[64];
    std::snprintf(buffer, sizeof(buffer), "0x%08X", static_cast<unsigned>(hr));
    for (const auto& known : kKnown) {
        if (known.hr == hr) return std::string(known.name) + ", " + buffer;
    }
    return buffer;
}

std::wstring WideName(const std::string& name) {
    std::wstring wide;
    for (unsigned char c : name) wide += c < 0x80 ? static_cast<wchar_t>(c) : L'?';
    return wide;
}

// FreeDML's messages, from any thread (a queue's worker reports failed dispatches). Warnings and
// errors are kept for the next failure's report; --verbose shows every message as it comes.
class MessageLog {
public:
    explicit MessageLog(bool verbose) : verbose_(verbose) {
        previous_ = FreeDMLSetMessageCallback(&MessageLog::Receive, this);
    }
    ~MessageLog() { FreeDMLSetMessageCallback(previous_, nullptr); }
    MessageLog(const MessageLog&) = delete;
    MessageLog& operator=(const MessageLog&) = delete;

    std::string Take() {
        std::lock_guard<std::mutex> lock(mutex_);
        std::string text;
        for (const auto& message : pending_) text += "\n  " + message;
        pending_.clear();
        return text;
    }

private:
    static void Receive(FREEDML_MESSAGE_SEVERITY severity, const char* source, const char* text, void* context) {
        auto* log = static_cast<MessageLog*>(context);
        static const char* const kSeverity[] = {"corruption", "error", "warning", "info", "message"};
        const char* severityName = static_cast<unsigned>(severity) < 5 ? kSeverity[severity] : "message";
        std::string line = std::string(source ? source : "FreeDML") + " " + severityName + ": " + (text ? text : "");
        std::lock_guard<std::mutex> lock(log->mutex_);
        if (log->verbose_) std::fprintf(stderr, "dmlrun: %s\n", line.c_str());
        if (severity <= FREEDML_MESSAGE_SEVERITY_WARNING && log->pending_.size() < 64) log->pending_.push_back(line);
    }

    bool verbose_;
    FREEDML_MESSAGE_CALLBACK previous_ = nullptr;
    std::mutex mutex_;
    std::vector<std::string> pending_;
};

std::string AdapterDescription(IDXCoreAdapter* adapter) {
    size_t size = 0;
    if (FAILED(adapter->GetPropertySize(DXCoreAdapterProperty::DriverDescription, &size)) || size == 0) return "";
    std::string name(size, '\0');
    if (FAILED(adapter->GetProperty(DXCoreAdapterProperty::DriverDescription, size, name.data()))) return "";
    name.resize(std::strlen(name.c_str()));
    return name;
}

ComPtr<IDXCoreAdapterList> ComputeAdapters() {
    ComPtr<IDXCoreAdapterFactory> factory;
    ComPtr<IDXCoreAdapterList> list;
    if (FAILED(DXCoreCreateAdapterFactory(IID_PPV_ARGS(&factory)))) return nullptr;
    const GUID attributes[] = {DXCORE_ADAPTER_ATTRIBUTE_D3D12_CORE_COMPUTE};
    if (FAILED(factory->CreateAdapterList(1, attributes, IID_PPV_ARGS(&list)))) return nullptr;
    return list;
}

std::string AdapterName(const LUID& luid) {
    ComPtr<IDXCoreAdapterList> list = ComputeAdapters();
    for (uint32_t i = 0; list && i < list->GetAdapterCount(); ++i) {
        ComPtr<IDXCoreAdapter> adapter;
        LUID candidate{};
        if (FAILED(list->GetAdapter(i, IID_PPV_ARGS(&adapter))) ||
            FAILED(adapter->GetProperty(DXCoreAdapterProperty::InstanceLuid, &candidate))) {
            continue;
        }
        if (candidate.LowPart == luid.LowPart && candidate.HighPart == luid.HighPart) return AdapterDescription(adapter.Get());
    }
    return "an unnamed adapter";
}

class Runner {
public:
    Runner(const Model& model, const Options& options, const DispatchObserver& observer)
        : model_(model), options_(options), observer_(observer), log_(options.verbose) {}

    void Run() {
        CreateDevice();
        UploadResources();
        for (size_t i = 0; i < model_.dispatchables.size(); ++i) PrepareDispatchable(i);
        for (size_t index = 0; index < model_.commands.size(); ++index) {
            const Command& command = model_.commands[index];
            if (const auto* dispatch = std::get_if<DispatchCommand>(&command)) {
                Dispatch(*dispatch);
                if (observer_) observer_(index, *dispatch, ReadOutputs(*dispatch));
            } else if (options_.dispatchesOnly) {
                continue;
            } else if (const auto* print = std::get_if<PrintCommand>(&command)) {
                Print(print->resource, print->verbose, print->path, print->deferred);
            } else {
                WriteFile(std::get<WriteFileCommand>(command));
            }
        }
        if (options_.printAll) {
            for (size_t i = 0; i < model_.resources.size(); ++i) {
                // A deferred resource no dispatch wrote has nothing to show.
                if (!model_.resources[i].implicit && (!model_.resources[i].deferred || model_.finalViews[i])) {
                    Print(i, false, model_.resources[i].path, model_.finalViews[i]);
                }
            }
        }
    }

private:
    struct Prepared {
        ComPtr<IDMLCompiledOperator> compiled;
        ComPtr<ID3D12Resource> persistent;
        UINT64 persistentSize = 0;
    };

    void Step(const std::string& text) {
        if (options_.verbose) std::fprintf(stderr, "dmlrun: %s\n", text.c_str());
    }

    void Out(const std::string& line, bool result) {
        if (options_.quiet && !result) return;
        std::fwrite(line.data(), 1, line.size(), stdout);
        std::fputc('\n', stdout);
        std::fflush(stdout);
    }

    [[noreturn]] void Fail(const JsonPath& path, const std::string& what, HRESULT hr, bool modelIsInvalid) {
        std::string message = what + " failed";
        if (hr != S_OK) message += " (" + HresultText(hr) + ")";
        std::string messages = log_.Take();
        if (messages.empty() && dml_ && FAILED(dml_->GetDeviceRemovedReason())) {
            messages = "\n  the DirectML device was removed (" + HresultText(dml_->GetDeviceRemovedReason()) + ")";
        }
        if (!messages.empty()) {
            message += "; FreeDML says:" + messages;
        } else if (!options_.debug) {
            message += ". Run with --debug or --verbose for FreeDML's messages.";
        } else {
            message += ".";
        }
        throw RunError(path, message, modelIsInvalid);
    }

    void Check(HRESULT hr, const JsonPath& path, const std::string& what, bool modelIsInvalid = false) {
        if (FAILED(hr)) Fail(path, what, hr, modelIsInvalid);
    }

    // DirectML's void methods (binding, recording) remove the device when misused.
    void CheckNotRemoved(const JsonPath& path, const std::string& what) {
        HRESULT hr = dml_->GetDeviceRemovedReason();
        if (FAILED(hr)) Fail(path, what, hr, /*modelIsInvalid=*/true);
    }

    void CreateDevice() {
        if (!options_.adapter.empty()) setenv("FREEDML_ADAPTER", options_.adapter.c_str(), 1);
        if (options_.debug) {
            ComPtr<ID3D12Debug> debug;
            if (SUCCEEDED(D3D12GetDebugInterface(IID_PPV_ARGS(&debug)))) debug->EnableDebugLayer();
        }
        Check(D3D12CreateDevice(nullptr, D3D_FEATURE_LEVEL_11_0, IID_PPV_ARGS(&device_)), {}, "D3D12CreateDevice");
        Out("Running on '" + AdapterName(device_->GetAdapterLuid()) + "'", false);
        Check(DMLCreateDevice(device_.Get(), options_.debug ? DML_CREATE_DEVICE_FLAG_DEBUG : DML_CREATE_DEVICE_FLAG_NONE,
                              IID_PPV_ARGS(&dml_)),
              {}, "DMLCreateDevice");
        D3D12_COMMAND_QUEUE_DESC queueDesc = {};
        queueDesc.Type = D3D12_COMMAND_LIST_TYPE_DIRECT;
        Check(device_->CreateCommandQueue(&queueDesc, IID_PPV_ARGS(&queue_)), {}, "CreateCommandQueue");
        Check(device_->CreateCommandAllocator(D3D12_COMMAND_LIST_TYPE_DIRECT, IID_PPV_ARGS(&allocator_)), {},
              "CreateCommandAllocator");
        Check(device_->CreateCommandList(0, D3D12_COMMAND_LIST_TYPE_DIRECT, allocator_.Get(), nullptr, IID_PPV_ARGS(&list_)),
              {}, "CreateCommandList");
        Check(device_->CreateFence(0, D3D12_FENCE_FLAG_NONE, IID_PPV_ARGS(&fence_)), {}, "CreateFence");
        Check(dml_->CreateCommandRecorder(IID_PPV_ARGS(&recorder_)), {}, "IDMLDevice::CreateCommandRecorder");
    }

    ComPtr<ID3D12Resource> CreateBuffer(UINT64 size, D3D12_HEAP_TYPE heapType, D3D12_RESOURCE_STATES state,
                                        const JsonPath& path, const std::string& what) {
        CD3DX12_HEAP_PROPERTIES heap(heapType);
        CD3DX12_RESOURCE_DESC desc = CD3DX12_RESOURCE_DESC::Buffer(
            size, heapType == D3D12_HEAP_TYPE_DEFAULT ? D3D12_RESOURCE_FLAG_ALLOW_UNORDERED_ACCESS : D3D12_RESOURCE_FLAG_NONE);
        ComPtr<ID3D12Resource> buffer;
        Check(device_->CreateCommittedResource(&heap, D3D12_HEAP_FLAG_NONE, &desc, state, nullptr, IID_PPV_ARGS(&buffer)),
              path, "creating " + what + " (" + std::to_string(size) + " bytes)");
        return buffer;
    }

    void Wait(const JsonPath& path, const std::string& what) {
        if (fence_->GetCompletedValue() >= fenceValue_) return;
        int fd = eventfd(0, EFD_CLOEXEC);
        if (fd == 0) {  // descriptor 0 is no event for FreeDML: take another
            int other = dup(fd);
            close(fd);
            fd = other;
        }
        if (fd < 0) {
            Check(fence_->SetEventOnCompletion(fenceValue_, nullptr), path, "waiting for " + what);
            return;
        }
        Check(fence_->SetEventOnCompletion(fenceValue_, FREEDML_FD_TO_HANDLE(fd)), path, "waiting for " + what);
        while (fence_->GetCompletedValue() < fenceValue_) {
            pollfd event{fd, POLLIN, 0};
            if (poll(&event, 1, 200) > 0) break;
            // A removed device may never reach the value; FreeDML may still write to the
            // descriptor then, so it stays open.
            if (FAILED(device_->GetDeviceRemovedReason())) Fail(path, what, device_->GetDeviceRemovedReason(), false);
        }
        close(fd);
    }

    // Closes, executes and waits for the command list, then opens it again.
    void Submit(const JsonPath& path, const std::string& what) {
        Check(list_->Close(), path, "closing the command list of " + what, true);
        ID3D12CommandList* lists[] = {list_.Get()};
        queue_->ExecuteCommandLists(1, lists);
        Check(queue_->Signal(fence_.Get(), ++fenceValue_), path, "signalling the fence after " + what);
        Wait(path, what);
        CheckNotRemoved(path, what);
        if (FAILED(device_->GetDeviceRemovedReason())) Fail(path, what, device_->GetDeviceRemovedReason(), false);
        Check(allocator_->Reset(), path, "resetting the command allocator after " + what);
        Check(list_->Reset(allocator_.Get(), nullptr), path, "resetting the command list after " + what);
    }

    void UploadResources() {
        std::vector<ComPtr<ID3D12Resource>> uploads;
        for (const auto& resource : model_.resources) {
            Step("uploading resource '" + resource.name + "' (" + std::to_string(resource.sizeInBytes) + " bytes)");
            auto buffer = CreateBuffer(resource.sizeInBytes, D3D12_HEAP_TYPE_DEFAULT, D3D12_RESOURCE_STATE_COPY_DEST,
                                       resource.path, "the buffer of resource '" + resource.name + "'");
            buffer->SetName(WideName(resource.name).c_str());
            auto upload = CreateBuffer(resource.sizeInBytes, D3D12_HEAP_TYPE_UPLOAD, D3D12_RESOURCE_STATE_GENERIC_READ,
                                       resource.path, "the upload buffer of resource '" + resource.name + "'");
            void* mapped = nullptr;
            D3D12_RANGE nothingRead = {0, 0};
            Check(upload->Map(0, &nothingRead, &mapped), resource.path, "mapping the upload buffer");
            std::memset(mapped, 0, resource.sizeInBytes);
            if (!resource.initialValues.empty()) {  // a deferred resource has none (and no data pointer)
                std::memcpy(static_cast<uint8_t*>(mapped) + resource.initialValuesOffsetInBytes,
                            resource.initialValues.data(), resource.initialValues.size());
            }
            upload->Unmap(0, nullptr);
            list_->CopyBufferRegion(buffer.Get(), 0, upload.Get(), 0, resource.sizeInBytes);
            auto barrier = CD3DX12_RESOURCE_BARRIER::Transition(buffer.Get(), D3D12_RESOURCE_STATE_COPY_DEST,
                                                                D3D12_RESOURCE_STATE_UNORDERED_ACCESS);
            list_->ResourceBarrier(1, &barrier);
            buffers_.push_back(buffer);
            uploads.push_back(upload);
        }
        Submit({}, "uploading the resources");
    }

    // DML_BUFFER_BINDINGs for every tensor of `points` (in binding order); `owned` selects the
    // OWNED_BY_DML tensors (initialization) or the others (execution).
    void FillBindings(const std::vector<BindPoint>& points, const std::vector<Binding>& bindings, bool owned,
                      std::vector<DML_BUFFER_BINDING>* buffers, std::vector<DML_BINDING_DESC>* descs) {
        size_t total = 0;
        for (const auto& point : points) total += point.given || point.isArray ? point.tensors.size() : 1;
        buffers->assign(total, DML_BUFFER_BINDING{});
        descs->assign(total, DML_BINDING_DESC{DML_BINDING_TYPE_NONE, nullptr});
        size_t index = 0;
        for (const auto& point : points) {
            if (!point.given) {
                if (!point.isArray) ++index;  // an absent optional tensor still has its slot
                continue;
            }
            const Binding* binding = nullptr;
            for (const auto& candidate : bindings) {
                if (candidate.bindPoint == point.name) binding = &candidate;
            }
            for (size_t t = 0; t < point.tensors.size(); ++t, ++index) {
                const bool isOwned = (point.tensors[t]->Flags & DML_TENSOR_FLAG_OWNED_BY_DML) != 0;
                if (!binding || isOwned != owned) continue;
                const BoundRange& range = binding->ranges[t];
                (*buffers)[index] = DML_BUFFER_BINDING{buffers_[range.resource].Get(), range.offset, range.size};
                (*descs)[index] = DML_BINDING_DESC{DML_BINDING_TYPE_BUFFER, &(*buffers)[index]};
            }
        }
    }

    ComPtr<ID3D12DescriptorHeap> CreateDescriptorHeap(UINT count, const JsonPath& path) {
        D3D12_DESCRIPTOR_HEAP_DESC desc = {};
        desc.Type = D3D12_DESCRIPTOR_HEAP_TYPE_CBV_SRV_UAV;
        desc.NumDescriptors = count ? count : 1;  // a binding table needs valid handles even for none
        desc.Flags = D3D12_DESCRIPTOR_HEAP_FLAG_SHADER_VISIBLE;
        ComPtr<ID3D12DescriptorHeap> heap;
        Check(device_->CreateDescriptorHeap(&desc, IID_PPV_ARGS(&heap)), path, "CreateDescriptorHeap");
        return heap;
    }

    // DxDispatch's DmlCompileGraph: the operator as a graph of one node. Graph input and output k
    // are the operator's k-th input and output binding, so the dispatchable binds as it would
    // compiled alone; an absent optional input is a graph input nobody reads.
    void CompileAsGraph(const Dispatchable& dispatchable, IDMLOperator* op, ComPtr<IDMLCompiledOperator>* compiled) {
        const std::string name = "'" + dispatchable.name + "'";
        ComPtr<IDMLDevice1> dml1;
        Check(dml_.As(&dml1), dispatchable.path, "QueryInterface(IDMLDevice1) for dispatchable " + name);
        DML_OPERATOR_GRAPH_NODE_DESC node{op, dispatchable.name.c_str()};
        DML_GRAPH_NODE_DESC nodeDesc{DML_GRAPH_NODE_TYPE_OPERATOR, &node};
        std::vector<DML_INPUT_GRAPH_EDGE_DESC> inputEdges;
        std::vector<DML_OUTPUT_GRAPH_EDGE_DESC> outputEdges;
        UINT inputCount = 0, outputCount = 0;
        for (const auto& point : dispatchable.op->Inputs()) {
            const size_t slots = point.given ? point.tensors.size() : (point.isArray ? 0 : 1);
            for (size_t t = 0; t < slots; ++t, ++inputCount) {
                if (point.given) inputEdges.push_back({inputCount, 0, inputCount, nullptr});
            }
        }
        for (const auto& point : dispatchable.op->Outputs()) {
            const size_t slots = point.given ? point.tensors.size() : (point.isArray ? 0 : 1);
            for (size_t t = 0; t < slots; ++t, ++outputCount) {
                if (point.given) outputEdges.push_back({0, outputCount, outputCount, nullptr});
            }
        }
        std::vector<DML_GRAPH_EDGE_DESC> inputs, outputs;
        for (auto& edge : inputEdges) inputs.push_back({DML_GRAPH_EDGE_TYPE_INPUT, &edge});
        for (auto& edge : outputEdges) outputs.push_back({DML_GRAPH_EDGE_TYPE_OUTPUT, &edge});
        DML_GRAPH_DESC graph{inputCount, outputCount, 1, &nodeDesc, static_cast<UINT>(inputs.size()), inputs.data(),
                             static_cast<UINT>(outputs.size()), outputs.data(), 0, nullptr};
        Check(dml1->CompileGraph(&graph, dispatchable.executionFlags, IID_PPV_ARGS(compiled->GetAddressOf())),
              dispatchable.path, "IDMLDevice1::CompileGraph for dispatchable " + name, true);
    }

    // A graph dispatchable: its operator nodes created, its constants and edges as the model has
    // them, compiled through IDMLDevice1::CompileGraph.
    void CompileGraphModel(const Dispatchable& dispatchable, ComPtr<IDMLCompiledOperator>* compiled) {
        const GraphModel& graph = *dispatchable.graph;
        const std::string name = "'" + dispatchable.name + "'";
        ComPtr<IDMLDevice1> dml1;
        Check(dml_.As(&dml1), dispatchable.path, "QueryInterface(IDMLDevice1) for dispatchable " + name);
        std::vector<ComPtr<IDMLOperator>> ops(graph.nodes.size());
        std::vector<DML_OPERATOR_GRAPH_NODE_DESC> opNodes(graph.nodes.size());
        std::vector<DML_CONSTANT_DATA_GRAPH_NODE_DESC> constNodes(graph.nodes.size());
        std::vector<DML_GRAPH_NODE_DESC> nodes(graph.nodes.size());
        for (size_t n = 0; n < graph.nodes.size(); ++n) {
            const GraphModel::Node& node = graph.nodes[n];
            if (node.op) {
                Check(dml_->CreateOperator(&node.op->Desc(), IID_PPV_ARGS(&ops[n])), dispatchable.path / "nodes" / node.name,
                      "IDMLDevice::CreateOperator for node '" + node.name + "' of dispatchable " + name, true);
                opNodes[n] = {ops[n].Get(), node.name.c_str()};
                nodes[n] = {DML_GRAPH_NODE_TYPE_OPERATOR, &opNodes[n]};
            } else {
                constNodes[n] = {node.constant.data(), node.constant.size(), node.name.c_str()};
                nodes[n] = {DML_GRAPH_NODE_TYPE_CONSTANT, &constNodes[n]};
            }
        }
        std::vector<DML_GRAPH_EDGE_DESC> inputs, intermediates, outputs;
        for (const auto& edge : graph.inputEdges) inputs.push_back({DML_GRAPH_EDGE_TYPE_INPUT, &edge});
        for (const auto& edge : graph.intermediateEdges) intermediates.push_back({DML_GRAPH_EDGE_TYPE_INTERMEDIATE, &edge});
        for (const auto& edge : graph.outputEdges) outputs.push_back({DML_GRAPH_EDGE_TYPE_OUTPUT, &edge});
        DML_GRAPH_DESC desc{static_cast<UINT>(graph.Inputs().size()), static_cast<UINT>(graph.Outputs().size()),
                            static_cast<UINT>(nodes.size()), nodes.data(), static_cast<UINT>(inputs.size()),
                            inputs.data(), static_cast<UINT>(outputs.size()), outputs.data(),
                            static_cast<UINT>(intermediates.size()), intermediates.empty() ? nullptr : intermediates.data()};
        Check(dml1->CompileGraph(&desc, dispatchable.executionFlags, IID_PPV_ARGS(compiled->GetAddressOf())),
              dispatchable.path, "IDMLDevice1::CompileGraph for dispatchable " + name, true);
    }

    void PrepareDispatchable(size_t index) {
        const Dispatchable& dispatchable = model_.dispatchables[index];
        const JsonPath& path = dispatchable.path;
        const std::string name = "'" + dispatchable.name + "'";
        Step("creating and compiling dispatchable " + name + " (" + dispatchable.Binds().Describe() + ")");
        Prepared prepared;
        if (dispatchable.graph) {
            CompileGraphModel(dispatchable, &prepared.compiled);
        } else {
            ComPtr<IDMLOperator> op;
            Check(dml_->CreateOperator(&dispatchable.op->Desc(), IID_PPV_ARGS(&op)), path,
                  "IDMLDevice::CreateOperator for dispatchable " + name, true);
            if (dispatchable.compileAsGraph) {
                CompileAsGraph(dispatchable, op.Get(), &prepared.compiled);
            } else {
                Check(dml_->CompileOperator(op.Get(), dispatchable.executionFlags, IID_PPV_ARGS(&prepared.compiled)),
                      path, "IDMLDevice::CompileOperator for dispatchable " + name, true);
            }
        }
        prepared.compiled->SetName(WideName(dispatchable.name).c_str());

        ComPtr<IDMLOperatorInitializer> initializer;
        IDMLCompiledOperator* operators[] = {prepared.compiled.Get()};
        Check(dml_->CreateOperatorInitializer(1, operators, IID_PPV_ARGS(&initializer)), path,
              "IDMLDevice::CreateOperatorInitializer for dispatchable " + name);
        const DML_BINDING_PROPERTIES initProperties = initializer->GetBindingProperties();
        const DML_BINDING_PROPERTIES executeProperties = prepared.compiled->GetBindingProperties();
        auto heap = CreateDescriptorHeap(initProperties.RequiredDescriptorCount, path);
        DML_BINDING_TABLE_DESC tableDesc = {initializer.Get(), heap->GetCPUDescriptorHandleForHeapStart(),
                                            heap->GetGPUDescriptorHandleForHeapStart(), initProperties.RequiredDescriptorCount};
        ComPtr<IDMLBindingTable> table;
        Check(dml_->CreateBindingTable(&tableDesc, IID_PPV_ARGS(&table)), path,
              "IDMLDevice::CreateBindingTable for initializing dispatchable " + name);

        // An initializer binds the owned inputs of each of its operators as one buffer array.
        std::vector<DML_BUFFER_BINDING> inputBuffers;
        std::vector<DML_BINDING_DESC> inputDescs;
        if (!dispatchable.initBindings.empty()) {
            FillBindings(dispatchable.Binds().Inputs(), dispatchable.initBindings, /*owned=*/true, &inputBuffers, &inputDescs);
            DML_BUFFER_ARRAY_BINDING array = {static_cast<UINT>(inputBuffers.size()), inputBuffers.data()};
            DML_BINDING_DESC arrayDesc = {DML_BINDING_TYPE_BUFFER_ARRAY, &array};
            table->BindInputs(1, &arrayDesc);
            CheckNotRemoved(path, "binding the OWNED_BY_DML inputs of dispatchable " + name);
        }
        ComPtr<ID3D12Resource> temporary;
        if (initProperties.TemporaryResourceSize) {
            temporary = CreateBuffer(initProperties.TemporaryResourceSize, D3D12_HEAP_TYPE_DEFAULT,
                                     D3D12_RESOURCE_STATE_UNORDERED_ACCESS, path, "the initializer's temporary resource");
            DML_BUFFER_BINDING binding = {temporary.Get(), 0, initProperties.TemporaryResourceSize};
            DML_BINDING_DESC desc = {DML_BINDING_TYPE_BUFFER, &binding};
            table->BindTemporaryResource(&desc);
        }
        if (executeProperties.PersistentResourceSize) {
            prepared.persistentSize = executeProperties.PersistentResourceSize;
            prepared.persistent = CreateBuffer(prepared.persistentSize, D3D12_HEAP_TYPE_DEFAULT,
                                               D3D12_RESOURCE_STATE_UNORDERED_ACCESS, path, "the persistent resource");
            DML_BUFFER_BINDING binding = {prepared.persistent.Get(), 0, prepared.persistentSize};
            DML_BINDING_DESC desc = {DML_BINDING_TYPE_BUFFER, &binding};
            table->BindOutputs(1, &desc);
        }
        CheckNotRemoved(path, "binding the initializer of dispatchable " + name);
        ID3D12DescriptorHeap* heaps[] = {heap.Get()};
        list_->SetDescriptorHeaps(1, heaps);
        recorder_->RecordDispatch(list_.Get(), initializer.Get(), table.Get());
        CheckNotRemoved(path, "recording the initialization of dispatchable " + name);
        const auto start = std::chrono::steady_clock::now();
        Submit(path, "initializing dispatchable " + name);
        Step("initialized " + name + " in " +
             std::to_string(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count()) + " ms");
        prepared_.push_back(std::move(prepared));
    }

    void Dispatch(const DispatchCommand& command) {
        const Dispatchable& dispatchable = model_.dispatchables[command.dispatchable];
        const Prepared& prepared = prepared_[command.dispatchable];
        const JsonPath& path = command.path;
        const std::string name = "'" + dispatchable.name + "'";
        const DML_BINDING_PROPERTIES properties = prepared.compiled->GetBindingProperties();
        auto heap = CreateDescriptorHeap(properties.RequiredDescriptorCount, path);
        DML_BINDING_TABLE_DESC tableDesc = {prepared.compiled.Get(), heap->GetCPUDescriptorHandleForHeapStart(),
                                            heap->GetGPUDescriptorHandleForHeapStart(), properties.RequiredDescriptorCount};
        ComPtr<IDMLBindingTable> table;
        Check(dml_->CreateBindingTable(&tableDesc, IID_PPV_ARGS(&table)), path,
              "IDMLDevice::CreateBindingTable for dispatching " + name);
        std::vector<DML_BUFFER_BINDING> inputBuffers, outputBuffers;
        std::vector<DML_BINDING_DESC> inputDescs, outputDescs;
        FillBindings(dispatchable.Binds().Inputs(), command.bindings, /*owned=*/false, &inputBuffers, &inputDescs);
        FillBindings(dispatchable.Binds().Outputs(), command.bindings, /*owned=*/false, &outputBuffers, &outputDescs);
        table->BindInputs(static_cast<UINT>(inputDescs.size()), inputDescs.data());
        CheckNotRemoved(path, "binding the inputs of dispatch " + name);
        table->BindOutputs(static_cast<UINT>(outputDescs.size()), outputDescs.data());
        CheckNotRemoved(path, "binding the outputs of dispatch " + name);
        ComPtr<ID3D12Resource> temporary;
        if (properties.TemporaryResourceSize) {
            temporary = CreateBuffer(properties.TemporaryResourceSize, D3D12_HEAP_TYPE_DEFAULT,
                                     D3D12_RESOURCE_STATE_UNORDERED_ACCESS, path, "the temporary resource");
            DML_BUFFER_BINDING binding = {temporary.Get(), 0, properties.TemporaryResourceSize};
            DML_BINDING_DESC desc = {DML_BINDING_TYPE_BUFFER, &binding};
            table->BindTemporaryResource(&desc);
        }
        if (prepared.persistent) {
            DML_BUFFER_BINDING binding = {prepared.persistent.Get(), 0, prepared.persistentSize};
            DML_BINDING_DESC desc = {DML_BINDING_TYPE_BUFFER, &binding};
            table->BindPersistentResource(&desc);
        }
        CheckNotRemoved(path, "binding the resources of dispatch " + name);

        std::vector<double> milliseconds;
        ProgressBar progress("dispatch " + name, options_.iterations, !options_.quiet);
        for (uint32_t i = 0; i < options_.iterations; ++i) {
            const auto start = std::chrono::steady_clock::now();
            ID3D12DescriptorHeap* heaps[] = {heap.Get()};
            list_->SetDescriptorHeaps(1, heaps);
            recorder_->RecordDispatch(list_.Get(), prepared.compiled.Get(), table.Get());
            auto barrier = CD3DX12_RESOURCE_BARRIER::UAV(nullptr);  // the next command sees every write
            list_->ResourceBarrier(1, &barrier);
            CheckNotRemoved(path, "recording dispatch " + name);
            Submit(path, "dispatch " + name);
            milliseconds.push_back(
                std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
            progress.Update(i + 1);
        }
        Out(FormatDispatchTiming(dispatchable.name, options_.iterations, ComputeTimingStats(milliseconds)), false);
    }

    std::vector<DispatchOutput> ReadOutputs(const DispatchCommand& command) {
        std::vector<DispatchOutput> outputs;
        std::map<size_t, std::vector<uint8_t>> downloaded;  // per resource, read once
        for (const BindPoint& point : model_.dispatchables[command.dispatchable].Binds().Outputs()) {
            for (const Binding& binding : command.bindings) {
                if (binding.bindPoint != point.name) continue;
                for (size_t k = 0; k < binding.ranges.size() && k < point.tensors.size(); ++k) {
                    const BoundRange& range = binding.ranges[k];
                    if (!downloaded.count(range.resource)) downloaded[range.resource] = Download(range.resource, command.path);
                    const std::vector<uint8_t>& bytes = downloaded[range.resource];
                    const uint64_t size = std::min<uint64_t>(point.tensors[k]->TotalTensorSizeInBytes, range.size);
                    DispatchOutput output;
                    output.bindPoint = point.name;
                    output.arrayIndex = k;
                    output.isArray = point.isArray;
                    output.dataType = point.tensors[k]->DataType;
                    output.bytes.assign(bytes.begin() + static_cast<std::ptrdiff_t>(range.offset),
                                        bytes.begin() + static_cast<std::ptrdiff_t>(range.offset + size));
                    outputs.push_back(std::move(output));
                }
            }
        }
        return outputs;
    }

    std::vector<uint8_t> Download(size_t index, const JsonPath& path) {
        const Resource& resource = model_.resources[index];
        auto readback = CreateBuffer(resource.sizeInBytes, D3D12_HEAP_TYPE_READBACK, D3D12_RESOURCE_STATE_COPY_DEST, path,
                                     "the readback buffer of resource '" + resource.name + "'");
        ID3D12Resource* buffer = buffers_[index].Get();
        auto toCopy = CD3DX12_RESOURCE_BARRIER::Transition(buffer, D3D12_RESOURCE_STATE_UNORDERED_ACCESS,
                                                           D3D12_RESOURCE_STATE_COPY_SOURCE);
        list_->ResourceBarrier(1, &toCopy);
        list_->CopyBufferRegion(readback.Get(), 0, buffer, 0, resource.sizeInBytes);
        auto back = CD3DX12_RESOURCE_BARRIER::Transition(buffer, D3D12_RESOURCE_STATE_COPY_SOURCE,
                                                         D3D12_RESOURCE_STATE_UNORDERED_ACCESS);
        list_->ResourceBarrier(1, &back);
        Submit(path, "reading back resource '" + resource.name + "'");
        void* mapped = nullptr;
        D3D12_RANGE everything = {0, static_cast<SIZE_T>(resource.sizeInBytes)};
        Check(readback->Map(0, &everything, &mapped), path, "mapping the readback buffer");
        std::vector<uint8_t> bytes(static_cast<const uint8_t*>(mapped), static_cast<const uint8_t*>(mapped) + resource.sizeInBytes);
        D3D12_RANGE nothingWritten = {0, 0};
        readback->Unmap(0, &nothingWritten);
        return bytes;
    }

    // `deferred`: what a deferred resource holds (the type and shape of the output last written to it).
    void Print(size_t index, bool verbose, const JsonPath& path, const std::optional<DeferredView>& deferred) {
        const Resource& resource = model_.resources[index];
        const DML_TENSOR_DATA_TYPE dataType = deferred ? deferred->dataType : resource.dataType;
        if (ValueSizeInBytes(dataType) == 0) {
            throw RunError(path, "resource '" + resource.name + "' holds a list of typed values, which cannot be printed.", true);
        }
        std::vector<uint8_t> bytes = Download(index, path);
        const uint64_t count = deferred ? deferred->ElementCount() : PrintedElementCount(resource);
        Out(FormatResource(resource.name, dataType, bytes.data(), count, verbose), true);
    }

    void WriteFile(const WriteFileCommand& command) {
        const Resource& resource = model_.resources[command.resource];
        std::vector<uint8_t> bytes = Download(command.resource, command.path);
        std::string extension = command.target.extension().string();
        for (char& c : extension) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        std::vector<uint8_t> file;
        const DML_TENSOR_DATA_TYPE dataType = command.deferred ? command.deferred->dataType : resource.dataType;
        if (command.deferred) bytes.resize(command.deferred->ElementCount() * ValueSizeInBytes(dataType));
        if (extension == ".npy") {
            const uint32_t elementSize = ValueSizeInBytes(dataType);
            if (elementSize == 0) {
                throw RunError(command.path, "resource '" + resource.name + "' holds a list of typed values; write it to a raw file.", true);
            }
            std::vector<uint64_t> shape = command.dimensions;
            if (shape.empty() && command.deferred) {
                shape = command.deferred->shape;  // empty for a scalar
            } else if (shape.empty()) {
                shape = resource.shape.empty() ? std::vector<uint64_t>{bytes.size() / elementSize} : resource.shape;
            }
            uint64_t elements = 1;
            for (uint64_t d : shape) elements = d && elements > ~uint64_t(0) / d ? ~uint64_t(0) : elements * d;
            if (elements > bytes.size() / elementSize) {
                throw RunError(command.path, "dimensions with " + std::to_string(elements) + " elements are more than resource '" +
                                                 resource.name + "' holds (" + std::to_string(bytes.size() / elementSize) + ").",
                               true);
            }
            bytes.resize(elements * elementSize);
            file = WriteNpy(dataType, shape, bytes);
        } else {
            file = std::move(bytes);
        }
        std::error_code error;
        if (command.target.has_parent_path()) std::filesystem::create_directories(command.target.parent_path(), error);
        std::ofstream stream(command.target, std::ios::binary | std::ios::trunc);
        stream.write(reinterpret_cast<const char*>(file.data()), static_cast<std::streamsize>(file.size()));
        if (!stream) throw RunError(command.path, "cannot write '" + command.target.string() + "'.", false);
        Out("Resource '" + resource.name + "' written to '" + command.target.string() + "'", false);
    }

    const Model& model_;
    const Options& options_;
    const DispatchObserver& observer_;
    MessageLog log_;
    ComPtr<ID3D12Device> device_;
    ComPtr<IDMLDevice> dml_;
    ComPtr<ID3D12CommandQueue> queue_;
    ComPtr<ID3D12CommandAllocator> allocator_;
    ComPtr<ID3D12GraphicsCommandList> list_;
    ComPtr<ID3D12Fence> fence_;
    ComPtr<IDMLCommandRecorder> recorder_;
    UINT64 fenceValue_ = 0;
    std::vector<ComPtr<ID3D12Resource>> buffers_;
    std::vector<Prepared> prepared_;
};

}  // namespace

void RunModel(const Model& model, const Options& options) { Runner(model, options, {}).Run(); }

void RunModel(const Model& model, const Options& options, const DispatchObserver& observer) {
    Runner(model, options, observer).Run();
}

bool ListAdapters() {
    ComPtr<IDXCoreAdapterList> list = ComputeAdapters();
    if (!list) {
        std::fprintf(stderr, "dmlrun: DXCore lists no adapters.\n");
        return false;
    }
    for (uint32_t i = 0; i < list->GetAdapterCount(); ++i) {
        ComPtr<IDXCoreAdapter> adapter;
        if (FAILED(list->GetAdapter(i, IID_PPV_ARGS(&adapter)))) continue;
        bool hardware = false;
        adapter->GetProperty(DXCoreAdapterProperty::IsHardware, &hardware);
        std::printf("%s (%s)\n", AdapterDescription(adapter.Get()).c_str(), hardware ? "hardware" : "software");
    }
    std::printf("Choose one with --adapter cpu, --adapter cuda or --adapter cuda:N.\n");
    return true;
}

}  // namespace dmlrun
