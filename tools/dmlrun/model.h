// A DxDispatch model read from JSON and checked as far as it can be without a device: resources
// with their initial bytes, dispatchables with their operator descs, commands with their bindings
// resolved to byte ranges. Everything wrong with a model is reported here, with its JSON path.
#pragma once

#include <DirectML.h>

#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "desc_builder.h"
#include "graph_model.h"
#include "json_document.h"

namespace dmlrun {

struct ParseOptions {
    std::filesystem::path modelDirectory;  // sourcePath resolves here first, then in the current directory
    bool allowFiles = true;                // the fuzzer reads no files
    uint64_t maxMemoryBytes = uint64_t(4) << 30;  // all buffers together
};

struct Resource {
    std::string name;
    JsonPath path;
    DML_TENSOR_DATA_TYPE dataType = DML_TENSOR_DATA_TYPE_UNKNOWN;  // UNKNOWN: a list of typed values
    std::vector<uint8_t> initialValues;
    uint64_t initialValuesOffsetInBytes = 0;
    uint64_t sizeInBytes = 0;
    std::vector<uint64_t> shape;  // an .npy file's shape; empty otherwise
    // {"randomSeed": ...}: seeded random values stand in for data a capture left out.
    bool random = false;
    // "initialValues": "deferred" (DxDispatch): no values; the ONNX model output bound to it gives
    // its type and shape when a dispatch writes it. Its buffer is as large as the largest such output.
    bool deferred = false;
    // An ONNX model input or output a dispatch command left unbound (DxDispatch's implicit
    // bindings): a buffer of its size that no command names, left out of --print-all.
    bool implicit = false;
};

// What a deferred resource holds after the dispatch commands before a print or writeFile: the
// type and shape of the ONNX model output last written to it.
struct DeferredView {
    DML_TENSOR_DATA_TYPE dataType = DML_TENSOR_DATA_TYPE_UNKNOWN;
    std::vector<uint64_t> shape;
    uint64_t ElementCount() const;
};

// A byte range of a resource bound to one tensor.
struct BoundRange {
    size_t resource = 0;  // index in Model::resources
    uint64_t offset = 0;
    uint64_t size = 0;
};

// The resources bound to one bind point ("ATensor", or the array "InputTensors").
struct Binding {
    std::string bindPoint;
    JsonPath path;
    std::vector<BoundRange> ranges;
};

struct Dispatchable {
    std::string name;
    JsonPath path;
    std::unique_ptr<BuiltOperator> op;     // an operator dispatchable
    std::unique_ptr<GraphModel> graph;     // a graph dispatchable ("type": "graph")
    const Bindable& Binds() const { return graph ? static_cast<const Bindable&>(*graph) : *op; }
    // An ONNX dispatchable: its model file. Each distinct set of binding shapes has its own
    // lowered graph, so one JSON dispatchable may become several entries of Model::dispatchables
    // with the same name and source (dispatch commands name the one with their shapes).
    std::shared_ptr<const OnnxSource> onnx;
    DML_EXECUTION_FLAGS executionFlags = DML_EXECUTION_FLAG_NONE;
    // "dmlCompileType": "DmlCompileGraph": compiled through IDMLDevice1::CompileGraph as a graph of
    // this one operator (graph input and output k are its k-th input and output binding).
    bool compileAsGraph = false;
    std::vector<Binding> initBindings;  // OWNED_BY_DML inputs, bound when the operator is initialized
};

// What a captured dispatch wrote to one output (the command's "expected"), for --check.
struct ExpectedOutput {
    std::string bindPoint;  // "OutputTensor", or an array field
    size_t arrayIndex = 0;
    bool given = false;     // false: the capture left it out (null)
    std::string file;
    std::vector<uint8_t> bytes;
    JsonPath path;
};

struct DispatchCommand {
    size_t dispatchable = 0;  // index in Model::dispatchables
    std::vector<Binding> bindings;
    JsonPath path;
    std::vector<ExpectedOutput> expected;
};

struct PrintCommand {
    size_t resource = 0;
    bool verbose = false;
    JsonPath path;
    std::optional<DeferredView> deferred;  // a deferred resource: what it holds here
};

struct WriteFileCommand {
    size_t resource = 0;
    std::filesystem::path target;
    std::vector<uint64_t> dimensions;  // empty: the resource's .npy shape (a deferred one's), else one dimension
    JsonPath path;
    std::optional<DeferredView> deferred;  // a deferred resource: what it holds here
};

using Command = std::variant<DispatchCommand, PrintCommand, WriteFileCommand>;

struct Model {
    // "$capture": {"version": N}: a FreeDML capture (0: a model written by hand).
    int captureVersion = 0;
    std::vector<Resource> resources;
    std::vector<Dispatchable> dispatchables;
    std::vector<Command> commands;
    // Per resource: what a deferred one holds after the last command (for --print-all).
    std::vector<std::optional<DeferredView>> finalViews;
};

// Throws ModelError for anything wrong, naming the JSON path and what was expected.
Model ParseModel(const Json& root, const ParseOptions& options);

// The capture format versions this dmlrun reads (docs/USER-GUIDE.md, "Capturing a workload").
constexpr int kCaptureFormatVersion = 1;

// The elements a print command shows: the initial values' (DxDispatch does not show the padding
// or the rest of a larger buffer), or the whole buffer for a list of typed values.
uint64_t PrintedElementCount(const Resource& resource);

}  // namespace dmlrun
