// IDMLDevice1::CompileGraph: a DML_GRAPH_DESC checked against the graph rules (G1-G11 of
// docs/BINDING-RULES.md), then planned into one kernel that runs its nodes in topological order
// (GraphKernel). The compiled graph is an IDMLCompiledOperator like any other: its inputs and
// outputs are the graph's, and binding tables, initializers and the command recorder treat it as
// they treat one operator.
#pragma once

#include <DirectML.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "common/com_object.h"
#include "common/status.h"
#include "dml/operator.h"

namespace freedml::dml {

class CompiledOperator;
class Device;

// Where a node input reads from.
struct GraphSource {
    enum class Kind : uint8_t { None, GraphInput, NodeOutput };
    Kind kind = Kind::None;
    uint32_t index = 0;   // graph input, or producing node
    uint32_t output = 0;  // the producing node's output
};

// A node the optimizer made from a tree of element-wise nodes (graph/fusion.h): its program and
// the tensors it reads and writes.
struct FusedElementwise;

struct GraphNode {
    std::string description;  // "node 3 (GEMM operator 'fc1')", "node 0 (constant 'bias')"
    Ref<Operator> op;         // operator nodes; null for a constant node and a fused node
    std::shared_ptr<const FusedElementwise> fused;  // a fused element-wise node
    bool removed = false;     // folded into another node by the optimizer; in no order
    // Set by the optimizer on a node whose operator accumulates onto its output
    // (OperatorArgs::accumulateOutput): the intermediate whose bytes its output 0 is written over,
    // holding the value it adds to. That intermediate has no reader after this node.
    GraphSource outputOver;
    std::vector<std::byte> constant;  // a constant node's data, copied at compile time
    const TensorDesc* constantTensor = nullptr;  // what its consumers read it as (G8)
    std::vector<GraphSource> inputs;  // one per operator input (absent optional inputs: None)
    uint32_t outputCount = 0;         // an operator's outputs; 1 for a constant

    const TensorDesc* InputTensor(size_t i) const;    // nullptr for an absent optional input
    const TensorDesc* OutputTensor(size_t o) const;   // a constant's: constantTensor
    bool IsConstant() const { return !op && !fused && !removed; }
};

// A DML_GRAPH_DESC after validation: its nodes, what feeds each node input and graph output, and
// the nodes in an order where every node follows the nodes it reads.
struct ValidatedGraph {
    std::vector<GraphNode> nodes;
    std::vector<uint32_t> order;  // topological
    // Per graph input: the tensor it is bound as (its first consumer's), or nullptr when no edge
    // reads it (bound as NONE, G11); and its consumers (node, input).
    std::vector<const TensorDesc*> inputTensors;
    std::vector<std::vector<std::pair<uint32_t, uint32_t>>> inputConsumers;
    // Per graph output: the node output that fills it.
    std::vector<std::pair<uint32_t, uint32_t>> outputSources;
    std::vector<std::string> inputNames;   // "graph input 0 'x'"
    std::vector<std::string> outputNames;
};

// G1-G9 and G11 over `desc` (the operators must belong to `device`). On success `graph` holds the
// nodes (with references to their operators) and constant data copied out of the application's
// desc.
Status ValidateGraph(Device& device, const DML_GRAPH_DESC& desc, ValidatedGraph* graph);

// CompileGraph after the API checks: validates (G1-G11, the execution flags), plans a kernel for
// every operator node on the device's backend and the graph's memory, and makes the compiled
// operator.
Status CompileGraph(Device& device, const DML_GRAPH_DESC& desc, uint32_t rawFlags, CompiledOperator** created);

// Whether a and b are the same type and sizes and step the same bytes (strides compared where a
// size exceeds 1): one tensor, however the two descs spell it.
bool SameLayout(const TensorDesc& a, const TensorDesc& b);

}  // namespace freedml::dml
