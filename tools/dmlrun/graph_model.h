// A graph dispatchable: several operators (and constants) compiled together through
// IDMLDevice1::CompileGraph. dmlrun's own form (DxDispatch has none for hand-written graphs):
//
//   "mlp": {
//     "type": "graph",
//     "inputs": ["X", "W"],                       graph inputs, in binding order
//     "outputs": ["Y"],                           graph outputs, in binding order
//     "nodes": {
//       "fc":   {"type": "DML_OPERATOR_GEMM", "desc": {...}},
//       "bias": {"type": "constant", "dataType": "FLOAT32", "values": [0.5, -1]},
//       "add":  {"type": "DML_OPERATOR_ELEMENT_WISE_ADD", "desc": {...}}
//     },
//     "edges": [
//       {"from": "X", "to": "fc.ATensor"}, {"from": "W", "to": "fc.BTensor"},
//       {"from": "fc", "to": "add.ATensor"}, {"from": "bias", "to": "add.BTensor"},
//       {"from": "add.OutputTensor", "to": "Y"}
//     ]
//   }
//
// An edge's "from" is a graph input, a constant, or a node output ("node.Field", "node.Field[k]"
// for an array, or "node" alone when it has one output); its "to" is a node input or a graph
// output. The graph's bind points are its inputs and outputs, bound by name like an operator's
// tensors; a graph input that no edge reads is bound to nothing.
#pragma once

#include <DirectML.h>

#include <cstdint>
#include <deque>
#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "desc_builder.h"
#include "json_document.h"

namespace dmlrun {

// DxDispatch's "type": "onnx" dispatchable: an ONNX model file, read and checked once. Each set of
// input shapes its dispatch commands give (binding "shape"s) lowers it to its own DirectML graph.
struct OnnxSource {
    std::filesystem::path file;
    std::vector<uint8_t> bytes;
    std::map<std::string, uint64_t> dims;           // freeDimensionNameOverrides
    std::vector<std::string> inputs, outputs;       // the model's input and output names
    std::string Name() const { return file.filename().string(); }
};

class GraphModel : public Bindable {
public:
    struct Node {
        std::string name;
        std::unique_ptr<BuiltOperator> op;  // null for a constant
        std::vector<uint8_t> constant;
    };
    std::vector<Node> nodes;
    std::vector<DML_INPUT_GRAPH_EDGE_DESC> inputEdges;
    std::vector<DML_INTERMEDIATE_GRAPH_EDGE_DESC> intermediateEdges;
    std::vector<DML_OUTPUT_GRAPH_EDGE_DESC> outputEdges;

    std::string description = "the graph";
    std::vector<std::shared_ptr<const DML_BUFFER_TENSOR_DESC>> portTensors;  // an ONNX model's bind points
    // An ONNX model's lowered graph: the static shape of each input and output, in binding order
    // (a bind point's buffer is rounded up to 4 bytes; its elements are what the shape holds).
    std::vector<std::vector<uint64_t>> inputShapes, outputShapes;
    std::string Describe() const override { return description; }

private:
    friend std::unique_ptr<GraphModel> BuildGraph(const Json& object, const JsonPath& path);
    friend std::unique_ptr<GraphModel> BuildOnnxGraph(const OnnxSource& source,
                                                      const std::map<std::string, std::vector<uint64_t>>& inputShapes,
                                                      const JsonPath& path);
};

// Reads a graph dispatchable; throws ModelError naming the field and what it expected.
std::unique_ptr<GraphModel> BuildGraph(const Json& object, const JsonPath& path);

// Reads and checks the model at `file` (parse, checker, shape inference with symbolic input
// dimensions from `dims` and the rest 1). Throws ModelError at `path`; without ONNX support, says so.
std::shared_ptr<const OnnxSource> ReadOnnxSource(const std::filesystem::path& file, std::vector<uint8_t> bytes,
                                                 const std::map<std::string, uint64_t>& dims, const JsonPath& path);

// The model lowered to one DirectML graph (src/onnx) with the given input shapes (the other
// inputs' symbolic dimensions from the source's dims, else 1); it binds by the model's input and
// output names. Throws ModelError at `path` with the loader's or the lowering's sentence.
std::unique_ptr<GraphModel> BuildOnnxGraph(const OnnxSource& source, const std::map<std::string, std::vector<uint64_t>>& inputShapes,
                                           const JsonPath& path);

}  // namespace dmlrun
