// The graph rules (G1-G11 of docs/BINDING-RULES.md). DirectML answers every graph mistake with a
// bare E_INVALIDARG; FreeDML's messages name the node (with its name or its operator's), the edge
// and the values, and cite the rule.
#include "dml/graph/graph.h"

#include <algorithm>
#include <cstring>

#include "common/enum_value.h"
#include "dml/device.h"
#include "dml/graph/fusion.h"
#include "dml/object.h"

namespace freedml::dml {

const TensorDesc* GraphNode::InputTensor(size_t i) const {
    if (fused) return i < fused->inputs.size() ? &fused->inputs[i] : nullptr;
    if (!op || i >= op->Args().inputs.size() || !op->Args().inputs[i]) return nullptr;
    return &*op->Args().inputs[i];
}

const TensorDesc* GraphNode::OutputTensor(size_t o) const {
    if (fused) return o == 0 ? &fused->output : nullptr;
    if (!op) return o == 0 ? constantTensor : nullptr;
    if (o >= op->Args().outputs.size() || !op->Args().outputs[o]) return nullptr;
    return &*op->Args().outputs[o];
}

namespace {

// A graph this large is a mistake (a garbage count), not a model.
constexpr uint32_t kMaxGraphCount = 1u << 24;

std::string Named(const char* name) { return name && *name ? Format(" '%s'", name) : std::string(); }

// The input names of an operator node, for messages ("ATensor").
std::string InputName(const GraphNode& node, uint32_t input) {
    if (node.op && input < node.op->Args().inputNames.size()) return node.op->Args().inputNames[input];
    return Format("input %u", input);
}
std::string OutputName(const GraphNode& node, uint32_t output) {
    if (node.op && output < node.op->Args().outputNames.size()) return node.op->Args().outputNames[output];
    return node.op ? Format("output %u", output) : std::string("its data");
}

Status ValidateCounts(const DML_GRAPH_DESC& desc) {
    INVALID_IF(desc.NodeCount == 0, "DML_GRAPH_DESC.NodeCount is 0; a graph has at least one node (G1).");
    INVALID_IF(desc.OutputCount == 0, "DML_GRAPH_DESC.OutputCount is 0; a graph has at least one output (G1).");
    const struct {
        const char* name;
        uint32_t count;
        const void* array;
        const char* arrayName;
    } arrays[] = {{"NodeCount", desc.NodeCount, desc.Nodes, "Nodes"},
                  {"InputEdgeCount", desc.InputEdgeCount, desc.InputEdges, "InputEdges"},
                  {"OutputEdgeCount", desc.OutputEdgeCount, desc.OutputEdges, "OutputEdges"},
                  {"IntermediateEdgeCount", desc.IntermediateEdgeCount, desc.IntermediateEdges, "IntermediateEdges"}};
    for (const auto& a : arrays) {
        INVALID_IF(a.count > kMaxGraphCount, "DML_GRAPH_DESC.%s (%u) is larger than FreeDML accepts (%u) (G1).", a.name,
                   a.count, kMaxGraphCount);
        INVALID_IF(a.count != 0 && !a.array, "DML_GRAPH_DESC.%s is null but %s is %u (G1).", a.arrayName, a.name,
                   a.count);
    }
    INVALID_IF(desc.InputCount > kMaxGraphCount || desc.OutputCount > kMaxGraphCount,
               "DML_GRAPH_DESC.InputCount (%u) or OutputCount (%u) is larger than FreeDML accepts (%u) (G1).",
               desc.InputCount, desc.OutputCount, kMaxGraphCount);
    return {};
}

// G1, G2: every node is an operator of this device or (feature level 6.2) a constant.
Status ValidateNodes(Device& device, const DML_GRAPH_DESC& desc, ValidatedGraph* graph) {
    graph->nodes.resize(desc.NodeCount);
    for (uint32_t n = 0; n < desc.NodeCount; ++n) {
        const DML_GRAPH_NODE_DESC& node = desc.Nodes[n];
        GraphNode& out = graph->nodes[n];
        const int type = static_cast<int>(Raw(node.Type));
        INVALID_IF(!node.Desc, "Nodes[%u].Desc is null (G1).", n);
        if (type == DML_GRAPH_NODE_TYPE_OPERATOR) {
            const auto& opNode = *static_cast<const DML_OPERATOR_GRAPH_NODE_DESC*>(node.Desc);
            Operator* op = AsChild<Operator>(opNode.Operator);
            INVALID_IF(!op, "Nodes[%u]%s: Operator is %s, not a FreeDML operator (G2).", n, Named(opNode.Name).c_str(),
                       opNode.Operator ? "another object" : "null");
            INVALID_IF(&op->GetDmlDevice() != &device, "Nodes[%u]%s: %s was created on another DirectML device (G2).", n,
                       Named(opNode.Name).c_str(), op->Describe().c_str());
            out.op = Ref<Operator>::Share(op);
            out.description = Format("node %u%s (%s)", n, Named(opNode.Name).c_str(), op->Describe().c_str());
            out.inputs.resize(op->Args().inputs.size());
            out.outputCount = static_cast<uint32_t>(op->Args().outputs.size());
        } else if (type == DML_GRAPH_NODE_TYPE_CONSTANT) {
            const auto& constant = *static_cast<const DML_CONSTANT_DATA_GRAPH_NODE_DESC*>(node.Desc);
            INVALID_IF(device.FeatureLevel() < DML_FEATURE_LEVEL_6_2,
                       "Nodes[%u] is a constant node, which needs feature level 6.2; the device has 0x%x (G1).", n,
                       static_cast<unsigned>(device.FeatureLevel()));
            INVALID_IF(constant.DataSize == 0, "Nodes[%u]%s: a constant node's DataSize is 0 (G2).", n,
                       Named(constant.Name).c_str());
            INVALID_IF(!constant.Data, "Nodes[%u]%s: a constant node's Data is null but DataSize is %zu (G2).", n,
                       Named(constant.Name).c_str(), static_cast<size_t>(constant.DataSize));
            const auto* bytes = static_cast<const std::byte*>(constant.Data);
            out.constant.assign(bytes, bytes + constant.DataSize);
            out.description = Format("node %u (constant%s)", n, Named(constant.Name).c_str());
            out.outputCount = 1;
        } else {
            return Error(E_INVALIDARG, "Nodes[%u].Type (%d) is not a DML_GRAPH_NODE_TYPE FreeDML knows (G1).", n, type);
        }
    }
    return {};
}

// G3: the edge's Type is its array's, and its Desc is set.
template <class EdgeDesc>
Status EdgeOf(const DML_GRAPH_EDGE_DESC* edges, uint32_t e, DML_GRAPH_EDGE_TYPE expected, const char* array,
              const EdgeDesc** out) {
    const DML_GRAPH_EDGE_DESC& edge = edges[e];
    const int type = static_cast<int>(Raw(edge.Type));
    INVALID_IF(type != expected, "%s[%u].Type is %d; every edge in %s has type %d (G3).", array, e, type, array,
               static_cast<int>(expected));
    INVALID_IF(!edge.Desc, "%s[%u].Desc is null (G3).", array, e);
    *out = static_cast<const EdgeDesc*>(edge.Desc);
    return {};
}

// G4, G5: `node`'s input `input` exists, takes a tensor, and is fed once.
Status Connect(ValidatedGraph* graph, const char* edgeName, uint32_t toNode, uint32_t toInput, GraphSource source) {
    INVALID_IF(toNode >= graph->nodes.size(), "%s: ToNodeIndex (%u) is not below NodeCount (%zu) (G4).", edgeName,
               toNode, graph->nodes.size());
    GraphNode& node = graph->nodes[toNode];
    INVALID_IF(!node.op, "%s: %s is a constant node, which has no inputs (G4).", edgeName, node.description.c_str());
    INVALID_IF(toInput >= node.inputs.size(), "%s: ToNodeInputIndex (%u) is not below the %zu inputs of %s (G4).",
               edgeName, toInput, node.inputs.size(), node.description.c_str());
    INVALID_IF(!node.InputTensor(toInput),
               "%s feeds %s of %s, an optional tensor absent from its operator's desc (G5).", edgeName,
               InputName(node, toInput).c_str(), node.description.c_str());
    INVALID_IF(node.inputs[toInput].kind != GraphSource::Kind::None, "%s feeds %s of %s, which another edge feeds (G5).",
               edgeName, InputName(node, toInput).c_str(), node.description.c_str());
    node.inputs[toInput] = source;
    return {};
}

Status ValidateFromNode(const ValidatedGraph& graph, const char* edgeName, uint32_t fromNode, uint32_t fromOutput) {
    INVALID_IF(fromNode >= graph.nodes.size(), "%s: FromNodeIndex (%u) is not below NodeCount (%zu) (G4).", edgeName,
               fromNode, graph.nodes.size());
    const GraphNode& node = graph.nodes[fromNode];
    INVALID_IF(fromOutput >= node.outputCount, "%s: FromNodeOutputIndex (%u) is not below the %u outputs of %s (G4).",
               edgeName, fromOutput, node.outputCount, node.description.c_str());
    INVALID_IF(node.op && !node.OutputTensor(fromOutput),
               "%s reads %s of %s, an optional output absent from its operator's desc (G4).", edgeName,
               OutputName(node, fromOutput).c_str(), node.description.c_str());
    return {};
}

// G7: Kahn's algorithm; what is left over lies on a cycle.
Status Order(ValidatedGraph* graph) {
    const size_t count = graph->nodes.size();
    std::vector<uint32_t> waiting(count, 0);
    std::vector<std::vector<uint32_t>> readers(count);
    for (uint32_t n = 0; n < count; ++n) {
        for (const GraphSource& source : graph->nodes[n].inputs) {
            if (source.kind != GraphSource::Kind::NodeOutput) continue;
            ++waiting[n];
            readers[source.index].push_back(n);
        }
    }
    std::vector<uint32_t>& order = graph->order;
    order.clear();
    for (uint32_t n = 0; n < count; ++n) {
        if (waiting[n] == 0) order.push_back(n);
    }
    for (size_t next = 0; next < order.size(); ++next) {
        for (uint32_t reader : readers[order[next]]) {
            if (--waiting[reader] == 0) order.push_back(reader);
        }
    }
    if (order.size() == count) return {};
    for (uint32_t n = 0; n < count; ++n) {
        if (waiting[n] != 0) {
            return Error(E_INVALIDARG, "The graph has a cycle through %s; a node may not read, directly or not, its own "
                         "output (G7).", graph->nodes[n].description.c_str());
        }
    }
    return Error(E_INVALIDARG, "The graph has a cycle (G7).");
}

}  // namespace

Status ValidateGraph(Device& device, const DML_GRAPH_DESC& desc, ValidatedGraph* graph) {
    FREEDML_TRY(ValidateCounts(desc));
    FREEDML_TRY(ValidateNodes(device, desc, graph));
    graph->inputConsumers.assign(desc.InputCount, {});
    graph->inputNames.resize(desc.InputCount);
    graph->outputNames.resize(desc.OutputCount);
    for (uint32_t i = 0; i < desc.InputCount; ++i) graph->inputNames[i] = Format("graph input %u", i);
    for (uint32_t o = 0; o < desc.OutputCount; ++o) graph->outputNames[o] = Format("graph output %u", o);

    for (uint32_t e = 0; e < desc.InputEdgeCount; ++e) {
        const DML_INPUT_GRAPH_EDGE_DESC* edge = nullptr;
        FREEDML_TRY(EdgeOf(desc.InputEdges, e, DML_GRAPH_EDGE_TYPE_INPUT, "InputEdges", &edge));
        const std::string name = Format("InputEdges[%u]%s", e, Named(edge->Name).c_str());
        INVALID_IF(edge->GraphInputIndex >= desc.InputCount, "%s: GraphInputIndex (%u) is not below InputCount (%u) (G4).",
                   name.c_str(), edge->GraphInputIndex, desc.InputCount);
        FREEDML_TRY(Connect(graph, name.c_str(), edge->ToNodeIndex, edge->ToNodeInputIndex,
                            {GraphSource::Kind::GraphInput, edge->GraphInputIndex, 0}));
        graph->inputConsumers[edge->GraphInputIndex].emplace_back(edge->ToNodeIndex, edge->ToNodeInputIndex);
        if (edge->Name && *edge->Name) graph->inputNames[edge->GraphInputIndex] += Named(edge->Name);
    }
    for (uint32_t e = 0; e < desc.IntermediateEdgeCount; ++e) {
        const DML_INTERMEDIATE_GRAPH_EDGE_DESC* edge = nullptr;
        FREEDML_TRY(EdgeOf(desc.IntermediateEdges, e, DML_GRAPH_EDGE_TYPE_INTERMEDIATE, "IntermediateEdges", &edge));
        const std::string name = Format("IntermediateEdges[%u]%s", e, Named(edge->Name).c_str());
        FREEDML_TRY(ValidateFromNode(*graph, name.c_str(), edge->FromNodeIndex, edge->FromNodeOutputIndex));
        FREEDML_TRY(Connect(graph, name.c_str(), edge->ToNodeIndex, edge->ToNodeInputIndex,
                            {GraphSource::Kind::NodeOutput, edge->FromNodeIndex, edge->FromNodeOutputIndex}));
    }
    graph->outputSources.assign(desc.OutputCount, {UINT32_MAX, 0});
    for (uint32_t e = 0; e < desc.OutputEdgeCount; ++e) {
        const DML_OUTPUT_GRAPH_EDGE_DESC* edge = nullptr;
        FREEDML_TRY(EdgeOf(desc.OutputEdges, e, DML_GRAPH_EDGE_TYPE_OUTPUT, "OutputEdges", &edge));
        const std::string name = Format("OutputEdges[%u]%s", e, Named(edge->Name).c_str());
        FREEDML_TRY(ValidateFromNode(*graph, name.c_str(), edge->FromNodeIndex, edge->FromNodeOutputIndex));
        INVALID_IF(edge->GraphOutputIndex >= desc.OutputCount,
                   "%s: GraphOutputIndex (%u) is not below OutputCount (%u) (G4).", name.c_str(), edge->GraphOutputIndex,
                   desc.OutputCount);
        INVALID_IF(graph->outputSources[edge->GraphOutputIndex].first != UINT32_MAX,
                   "%s fills graph output %u, which another output edge fills (G6).", name.c_str(),
                   edge->GraphOutputIndex);
        INVALID_IF(!graph->nodes[edge->FromNodeIndex].op,
                   "%s makes %s a graph output; a constant node feeds only other nodes (G6).", name.c_str(),
                   graph->nodes[edge->FromNodeIndex].description.c_str());
        graph->outputSources[edge->GraphOutputIndex] = {edge->FromNodeIndex, edge->FromNodeOutputIndex};
        if (edge->Name && *edge->Name) graph->outputNames[edge->GraphOutputIndex] += Named(edge->Name);
    }
    for (uint32_t o = 0; o < desc.OutputCount; ++o) {
        INVALID_IF(graph->outputSources[o].first == UINT32_MAX, "No output edge fills graph output %u (G6).", o);
    }

    // G5: every required input is fed.
    for (const GraphNode& node : graph->nodes) {
        for (uint32_t i = 0; i < node.inputs.size(); ++i) {
            INVALID_IF(node.InputTensor(i) && node.inputs[i].kind == GraphSource::Kind::None,
                       "%s of %s is required, but no edge feeds it (G5).", InputName(node, i).c_str(),
                       node.description.c_str());
        }
    }
    FREEDML_TRY(Order(graph));

    // G8: an edge joins tensors of one TotalTensorSizeInBytes; a constant's consumers read it as
    // one tensor that its data covers.
    for (uint32_t n = 0; n < graph->nodes.size(); ++n) {
        GraphNode& node = graph->nodes[n];
        for (uint32_t i = 0; i < node.inputs.size(); ++i) {
            const GraphSource& source = node.inputs[i];
            if (source.kind != GraphSource::Kind::NodeOutput) continue;
            GraphNode& producer = graph->nodes[source.index];
            const TensorDesc& consumer = *node.InputTensor(i);
            if (!producer.op) {
                if (!producer.constantTensor) {
                    INVALID_IF(producer.constant.size() < consumer.MinimumSizeInBytes() ||
                                   producer.constant.size() > consumer.totalTensorSizeInBytes,
                               "%s reads %s as %s of %llu bytes (it reaches %llu), but its DataSize is %zu; it must "
                               "cover the tensor and not exceed its TotalTensorSizeInBytes (G8).",
                               node.description.c_str(), producer.description.c_str(), InputName(node, i).c_str(),
                               static_cast<unsigned long long>(consumer.totalTensorSizeInBytes),
                               static_cast<unsigned long long>(consumer.MinimumSizeInBytes()), producer.constant.size());
                    producer.constantTensor = &consumer;
                }
                INVALID_IF(consumer.totalTensorSizeInBytes != producer.constantTensor->totalTensorSizeInBytes,
                           "%s reads %s as %s with TotalTensorSizeInBytes %llu, but another node reads it with %llu "
                           "(G8).",
                           node.description.c_str(), producer.description.c_str(), InputName(node, i).c_str(),
                           static_cast<unsigned long long>(consumer.totalTensorSizeInBytes),
                           static_cast<unsigned long long>(producer.constantTensor->totalTensorSizeInBytes));
                continue;
            }
            const TensorDesc& produced = *producer.OutputTensor(source.output);
            INVALID_IF(produced.totalTensorSizeInBytes != consumer.totalTensorSizeInBytes,
                       "An edge joins %s of %s (TotalTensorSizeInBytes %llu) to %s of %s (%llu); the two tensors of an "
                       "edge may differ in sizes, strides and data type but not in TotalTensorSizeInBytes (G8).",
                       OutputName(producer, source.output).c_str(), producer.description.c_str(),
                       static_cast<unsigned long long>(produced.totalTensorSizeInBytes), InputName(node, i).c_str(),
                       node.description.c_str(), static_cast<unsigned long long>(consumer.totalTensorSizeInBytes));
            INVALID_IF(consumer.OwnedByDml(),
                       "%s of %s is flagged DML_TENSOR_FLAG_OWNED_BY_DML but is fed by %s; an owned tensor comes "
                       "straight from a graph input (G9).",
                       InputName(node, i).c_str(), node.description.c_str(), producer.description.c_str());
        }
    }
    for (uint32_t n = 0; n < graph->nodes.size(); ++n) {
        INVALID_IF(!graph->nodes[n].op && !graph->nodes[n].constantTensor,
                   "%s feeds no node; a constant node's output is read by at least one node (G6).",
                   graph->nodes[n].description.c_str());
    }

    // G8, G9 for graph inputs: the consumers agree on the size and on OWNED_BY_DML. G11: an input
    // no edge reads is bound as NONE.
    graph->inputTensors.assign(desc.InputCount, nullptr);
    for (uint32_t g = 0; g < desc.InputCount; ++g) {
        const auto& consumers = graph->inputConsumers[g];
        if (consumers.empty()) continue;
        const GraphNode& firstNode = graph->nodes[consumers[0].first];
        const TensorDesc* first = firstNode.InputTensor(consumers[0].second);
        graph->inputTensors[g] = first;
        for (const auto& [n, i] : consumers) {
            const GraphNode& node = graph->nodes[n];
            const TensorDesc& tensor = *node.InputTensor(i);
            INVALID_IF(tensor.totalTensorSizeInBytes != first->totalTensorSizeInBytes,
                       "%s feeds %s of %s (TotalTensorSizeInBytes %llu) and %s of %s (%llu); the tensors one graph "
                       "input feeds have one TotalTensorSizeInBytes (G8).",
                       graph->inputNames[g].c_str(), InputName(firstNode, consumers[0].second).c_str(),
                       firstNode.description.c_str(), static_cast<unsigned long long>(first->totalTensorSizeInBytes),
                       InputName(node, i).c_str(), node.description.c_str(),
                       static_cast<unsigned long long>(tensor.totalTensorSizeInBytes));
            INVALID_IF(tensor.OwnedByDml() != first->OwnedByDml(),
                       "%s feeds %s of %s, %s DML_TENSOR_FLAG_OWNED_BY_DML, and %s of %s, %s; every tensor one graph "
                       "input feeds agrees on the flag (G9).",
                       graph->inputNames[g].c_str(), InputName(firstNode, consumers[0].second).c_str(),
                       firstNode.description.c_str(), first->OwnedByDml() ? "flagged" : "not flagged",
                       InputName(node, i).c_str(), node.description.c_str(),
                       tensor.OwnedByDml() ? "flagged" : "not flagged");
        }
    }
    return {};
}

bool SameLayout(const TensorDesc& a, const TensorDesc& b) {
    if (a.dataType != b.dataType || a.rank != b.rank || a.totalTensorSizeInBytes != b.totalTensorSizeInBytes) return false;
    for (uint32_t d = 0; d < a.rank; ++d) {
        if (a.sizes[d] != b.sizes[d]) return false;
        if (a.sizes[d] != 1 && a.strides[d] != b.strides[d]) return false;
    }
    return true;
}

}  // namespace freedml::dml
