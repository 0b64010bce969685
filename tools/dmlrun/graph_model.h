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
    std::string Describe() const override { return description; }

private:
    friend std::unique_ptr<GraphModel> BuildGraph(const Json& object, const JsonPath& path);
    friend std::unique_ptr<GraphModel> BuildOnnxGraph(const std::filesystem::path& file, const std::map<std::string, uint64_t>& dims,
                                                      const JsonPath& path);
};

// Reads a graph dispatchable; throws ModelError naming the field and what it expected.
std::unique_ptr<GraphModel> BuildGraph(const Json& object, const JsonPath& path);

// DxDispatch's "type": "onnx" dispatchable: the model at `file` lowered to one DirectML graph (src/onnx)
// with its symbolic dimensions from `dims` (freeDimensionNameOverrides); it binds by the model's input
// and output names. Throws ModelError with the lowering's sentence; without ONNX support, says so.
std::unique_ptr<GraphModel> BuildOnnxGraph(const std::filesystem::path& file, const std::map<std::string, uint64_t>& dims,
                                           const JsonPath& path);

}  // namespace dmlrun
