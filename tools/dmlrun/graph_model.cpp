#include "graph_model.h"

#include <algorithm>
#include <map>

#include "values.h"

namespace dmlrun {

namespace {

std::vector<std::string> NameList(const Json& object, const JsonPath& path, const char* name) {
    std::vector<std::string> names;
    const Json* list = FindMember(object, name);
    if (!list) return names;
    if (!list->is_array()) throw ModelError(path / name, "expected an array of names, found " + DescribeValue(*list) + ".");
    for (size_t i = 0; i < list->size(); ++i) {
        names.push_back(ExpectString((*list)[i], (path / name)[i], "a name"));
        if (std::count(names.begin(), names.end(), names.back()) > 1) {
            throw ModelError((path / name)[i], "'" + names.back() + "' is named twice.");
        }
    }
    return names;
}

// The binding slot of `field` (element `element` of an array) among `points`: absent optional
// tensors keep their slot, absent arrays take none.
bool SlotOf(const std::vector<BindPoint>& points, const std::string& field, size_t element, uint32_t* slot,
            const BindPoint** found) {
    uint32_t next = 0;
    for (const auto& point : points) {
        const size_t count = point.given ? point.tensors.size() : (point.isArray ? 0 : 1);
        if (point.name == field) {
            if (!point.given || element >= count) return false;
            *slot = next + static_cast<uint32_t>(element);
            *found = &point;
            return true;
        }
        next += static_cast<uint32_t>(count);
    }
    return false;
}

// "node.Field[3]" -> node, Field, 3; "node" -> node, "", 0.
struct Endpoint {
    std::string node, field;
    size_t element = 0;
};

Endpoint ParseEndpoint(const std::string& text, const JsonPath& path) {
    Endpoint endpoint;
    const size_t dot = text.find('.');
    endpoint.node = text.substr(0, dot);
    if (dot == std::string::npos) return endpoint;
    endpoint.field = text.substr(dot + 1);
    const size_t bracket = endpoint.field.find('[');
    if (bracket != std::string::npos) {
        const size_t close = endpoint.field.find(']', bracket);
        if (close == std::string::npos || close != endpoint.field.size() - 1) {
            throw ModelError(path, "'" + text + "' is not NODE.FIELD or NODE.FIELD[INDEX].");
        }
        endpoint.element = std::stoul(endpoint.field.substr(bracket + 1, close - bracket - 1));
        endpoint.field = endpoint.field.substr(0, bracket);
    }
    return endpoint;
}

}  // namespace

std::unique_ptr<GraphModel> BuildGraph(const Json& object, const JsonPath& path) {
    auto graph = std::make_unique<GraphModel>();
    const std::vector<std::string> inputNames = NameList(object, path, "inputs");
    const std::vector<std::string> outputNames = NameList(object, path, "outputs");
    if (outputNames.empty()) throw ModelError(path, "a graph needs \"outputs\": the names of its outputs, in binding order.");

    const Json& nodes = Require(object, path, "nodes", "an object of named operators and constants");
    if (!nodes.is_object() || nodes.empty()) throw ModelError(path / "nodes", "expected an object of named nodes, found " + DescribeValue(nodes) + ".");
    std::map<std::string, uint32_t> nodeIndex;
    for (const auto& [name, value] : nodes.items()) {
        const JsonPath nodePath = path / "nodes" / name;
        if (std::count(inputNames.begin(), inputNames.end(), name) || std::count(outputNames.begin(), outputNames.end(), name)) {
            throw ModelError(nodePath, "'" + name + "' names both a node and a graph input or output.");
        }
        GraphModel::Node node;
        node.name = name;
        const Json* type = FindMember(value, "type");
        if (type && type->is_string() && type->get<std::string>() == "constant") {
            const DML_TENSOR_DATA_TYPE dataType = ParseDataType(Require(value, nodePath, "dataType", "the values' data type"),
                                                                nodePath / "dataType");
            const Json& values = Require(value, nodePath, "values", "the constant's values");
            if (!values.is_array() || values.empty()) {
                throw ModelError(nodePath / "values", "expected a non-empty array of values, found " + DescribeValue(values) + ".");
            }
            for (size_t i = 0; i < values.size(); ++i) AppendValue(dataType, values[i], (nodePath / "values")[i], &node.constant);
        } else {
            node.op = BuildOperator(value, nodePath, {"$comment"});
        }
        nodeIndex[name] = static_cast<uint32_t>(graph->nodes.size());
        graph->nodes.push_back(std::move(node));
    }

    // Graph inputs and outputs become the bind points, with the tensors of what they connect to.
    graph->inputs_.resize(inputNames.size());
    for (size_t i = 0; i < inputNames.size(); ++i) {
        graph->inputs_[i].name = inputNames[i];
        graph->inputs_[i].optional = true;  // until an edge reads it
    }
    graph->outputs_.resize(outputNames.size());
    for (size_t o = 0; o < outputNames.size(); ++o) {
        graph->outputs_[o].name = outputNames[o];
        graph->outputs_[o].isOutput = true;
    }
    auto indexIn = [](const std::vector<std::string>& names, const std::string& name) -> int {
        auto it = std::find(names.begin(), names.end(), name);
        return it == names.end() ? -1 : static_cast<int>(it - names.begin());
    };

    const Json& edges = Require(object, path, "edges", "an array of {\"from\": ..., \"to\": ...}");
    if (!edges.is_array()) throw ModelError(path / "edges", "expected an array of edges, found " + DescribeValue(edges) + ".");
    for (size_t e = 0; e < edges.size(); ++e) {
        const JsonPath edgePath = (path / "edges")[e];
        const std::string fromText = ExpectString(Require(edges[e], edgePath, "from", "a graph input or a node output"), edgePath / "from", "an endpoint");
        const std::string toText = ExpectString(Require(edges[e], edgePath, "to", "a node input or a graph output"), edgePath / "to", "an endpoint");

        // The target: a node input, or a graph output.
        const int graphOutput = indexIn(outputNames, toText);
        uint32_t toNode = 0, toSlot = 0;
        const BindPoint* toPoint = nullptr;
        size_t toElement = 0;
        if (graphOutput < 0) {
            const Endpoint to = ParseEndpoint(toText, edgePath / "to");
            toElement = to.element;
            auto found = nodeIndex.find(to.node);
            if (found == nodeIndex.end() || !graph->nodes[found->second].op || to.field.empty()) {
                throw ModelError(edgePath / "to", "'" + toText + "' is neither a graph output nor NODE.INPUT of an operator node.");
            }
            toNode = found->second;
            const BuiltOperator& op = *graph->nodes[toNode].op;
            if (!SlotOf(op.Inputs(), to.field, to.element, &toSlot, &toPoint)) {
                throw ModelError(edgePath / "to", "node '" + to.node + "' (" + op.Describe() + ") has no input '" + to.field +
                                                      (to.element ? "[" + std::to_string(to.element) + "]" : std::string()) +
                                                      "' in its desc; its tensors are " + op.BindPointNames() + ".");
            }
        }

        // The source: a graph input, a constant, or a node output.
        const int graphInput = indexIn(inputNames, fromText);
        if (graphInput >= 0) {
            if (graphOutput >= 0) throw ModelError(edgePath, "an edge may not join a graph input to a graph output.");
            graph->inputEdges.push_back({static_cast<UINT>(graphInput), toNode, toSlot, nullptr});
            BindPoint& point = graph->inputs_[graphInput];
            if (!point.given) point.tensors = {toPoint->tensors[toElement]};  // the first reader's tensor
            point.given = true;
            point.optional = false;
            continue;
        }
        const Endpoint from = ParseEndpoint(fromText, edgePath / "from");
        auto found = nodeIndex.find(from.node);
        if (found == nodeIndex.end()) {
            throw ModelError(edgePath / "from", "'" + fromText + "' is neither a graph input nor a node.");
        }
        const uint32_t fromNode = found->second;
        uint32_t fromSlot = 0;
        const BindPoint* fromPoint = nullptr;
        if (graph->nodes[fromNode].op) {
            const BuiltOperator& op = *graph->nodes[fromNode].op;
            std::string field = from.field;
            if (field.empty()) {
                if (op.Outputs().size() != 1) {
                    throw ModelError(edgePath / "from", "node '" + from.node + "' has several outputs; name one (" + from.node + ".FIELD).");
                }
                field = op.Outputs()[0].name;
            }
            if (!SlotOf(op.Outputs(), field, from.element, &fromSlot, &fromPoint)) {
                throw ModelError(edgePath / "from", "node '" + from.node + "' (" + op.Describe() + ") has no output '" + field +
                                                        "' in its desc; its tensors are " + op.BindPointNames() + ".");
            }
        } else if (!from.field.empty()) {
            throw ModelError(edgePath / "from", "'" + from.node + "' is a constant; name it alone.");
        }
        if (graphOutput >= 0) {
            graph->outputEdges.push_back({fromNode, fromSlot, static_cast<UINT>(graphOutput), nullptr});
            BindPoint& point = graph->outputs_[graphOutput];
            if (fromPoint) point.tensors = {fromPoint->tensors[from.element]};
            point.given = true;
        } else {
            graph->intermediateEdges.push_back({fromNode, fromSlot, toNode, toSlot, nullptr});
        }
    }
    for (const BindPoint& point : graph->outputs_) {
        if (!point.given || point.tensors.empty()) {
            throw ModelError(path / "edges", "no edge fills graph output '" + point.name + "' from an operator node.");
        }
    }
    return graph;
}

}  // namespace dmlrun
