// The lowering: one ONNX model (loaded and shape-inferred by loader.h) to one DirectML graph
// description. Every ONNX operator has a small lowering function in a table (ops_*.cpp); tensors
// that only change shape or order (Reshape, Transpose, Expand, ...) become different sizes and
// strides on the edges that read them, not operators. Initializers become constant nodes.
#pragma once

#include <DirectML.h>

#include <cstdint>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "loader.h"

namespace freedml::onnx {

// A model that cannot become a DirectML graph: one sentence that names the node (name, op type,
// opset) and why.
class LoweringError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
    LoweringError(const std::string& message, std::string graphInput)
        : std::runtime_error(message), constantInputNeeded(std::move(graphInput)) {}
    // Set when the model would lower with this graph input's values known (an input DirectML takes
    // as an attribute: a Reshape's shape, a Slice's starts...); see Lower's `constants`.
    std::string constantInputNeeded;
    // Set when a node's output shape was not static; Lower then folds what it computed while
    // lowering into constants and runs ONNX's shape inference again.
    bool shapeUnknown = false;
};

// A graph input or output: an ONNX tensor with its static shape, bound as one buffer.
struct Port {
    std::string name;
    DML_TENSOR_DATA_TYPE dataType = DML_TENSOR_DATA_TYPE_UNKNOWN;
    int32_t onnxType = 0;  // onnx::TensorProto::DataType
    std::vector<uint32_t> shape;
    uint64_t elementCount = 1;
    uint64_t totalBytes = 0;  // the buffer size the graph binds (rounded up to 4 bytes)
};

struct GraphNode {
    std::string name;    // "conv1 (Conv)", or the initializer's name for a constant
    std::string origin;  // "node 'conv1' (Conv, opset 13)": what an error about it names
    DML_OPERATOR_TYPE type = DML_OPERATOR_INVALID;  // INVALID: a constant node
    const void* desc = nullptr;                     // the operator's DML_*_OPERATOR_DESC
    std::vector<uint8_t> constant;                  // a constant node's bytes
};

class LoweredGraph {
public:
    std::vector<Port> inputs, outputs;
    std::vector<GraphNode> nodes;
    std::vector<DML_INPUT_GRAPH_EDGE_DESC> inputEdges;
    std::vector<DML_INTERMEDIATE_GRAPH_EDGE_DESC> intermediateEdges;
    std::vector<DML_OUTPUT_GRAPH_EDGE_DESC> outputEdges;
    std::vector<std::string> notes;  // lowering choices worth showing in --dump-graph

    // Nodes, edges and notes, one per line, for --dump-graph.
    std::string Dump() const;

    // Keeps every desc, tensor desc and array the nodes point into alive with the graph.
    std::vector<std::shared_ptr<void>> storage;
};

struct TensorData;
// `constants`: graph inputs whose values are given now (as ONNX Runtime's DirectML provider asks for
// inputs it takes as attributes); they become constants and leave the graph's inputs.
LoweredGraph Lower(const LoadedModel& model);
LoweredGraph Lower(const LoadedModel& model, const std::map<std::string, TensorData>& constants);

// The ONNX operators the table lowers, sorted (for --help and the docs).
std::vector<std::string> SupportedOperators();

// A serialized onnx.TensorProto (the backend test suite's input_k.pb and output_k.pb files), its
// elements packed as DirectML lays them out (BOOL as UINT8). Throws LoweringError.
struct TensorData {
    std::string name;
    DML_TENSOR_DATA_TYPE dataType = DML_TENSOR_DATA_TYPE_UNKNOWN;
    int32_t onnxType = 0;
    std::vector<uint32_t> shape;
    std::vector<uint8_t> bytes;
};
TensorData ParseTensor(const uint8_t* data, size_t size);

const char* DataTypeName(DML_TENSOR_DATA_TYPE type);
uint32_t DataTypeSize(DML_TENSOR_DATA_TYPE type);

}  // namespace freedml::onnx
