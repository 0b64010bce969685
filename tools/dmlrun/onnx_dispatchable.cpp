#include <memory>

#include "graph_model.h"

#if FREEDML_HAVE_ONNX
#include "loader.h"
#include "lowering.h"
#endif

namespace dmlrun {

std::unique_ptr<GraphModel> BuildOnnxGraph(const std::filesystem::path& file, const std::map<std::string, uint64_t>& dims,
                                           const JsonPath& path) {
#if FREEDML_HAVE_ONNX
    namespace fo = freedml::onnx;
    auto lowered = std::make_shared<fo::LoweredGraph>();
    try {
        fo::LoadOptions options;
        options.dims = dims;
        *lowered = fo::Lower(fo::LoadModelFile(file.string(), options));
    } catch (const std::exception& error) {  // LoadError, LoweringError
        throw ModelError(path, file.string() + ": " + error.what());
    }
    auto graph = std::unique_ptr<GraphModel>(new GraphModel);
    graph->description = "the ONNX model '" + file.filename().string() + "'";
    for (const auto& node : lowered->nodes) {
        GraphModel::Node n;
        n.name = node.name;
        if (node.type == DML_OPERATOR_INVALID) {
            n.constant = node.constant;
        } else {
            const auto* schema = freedml::dml::FindSchema(node.type);
            if (!schema) throw ModelError(path, node.origin + ": its DirectML operator has no schema in FreeDML.");
            n.op = BuiltOperator::Wrap(*schema, DML_OPERATOR_DESC{node.type, node.desc}, lowered);
        }
        graph->nodes.push_back(std::move(n));
    }
    graph->inputEdges = lowered->inputEdges;
    graph->intermediateEdges = lowered->intermediateEdges;
    graph->outputEdges = lowered->outputEdges;
    // Bind points: the model's inputs and outputs, each one buffer of its packed size.
    auto point = [&](const fo::Port& port, bool isOutput) {
        auto tensor = std::make_shared<DML_BUFFER_TENSOR_DESC>();
        tensor->DataType = port.dataType;
        tensor->TotalTensorSizeInBytes = port.totalBytes;
        BindPoint p;
        p.name = port.name;
        p.isOutput = isOutput;
        p.given = true;
        p.tensors = {tensor.get()};
        graph->portTensors.push_back(tensor);
        return p;
    };
    std::vector<bool> read(lowered->inputs.size(), false);
    for (const auto& e : lowered->inputEdges) read[e.GraphInputIndex] = true;
    for (size_t i = 0; i < lowered->inputs.size(); ++i) {
        BindPoint p = point(lowered->inputs[i], false);
        // An input no node reads (its values were only needed for shapes) is bound to nothing.
        if (!read[i]) {
            p.given = false;
            p.optional = true;
        }
        graph->inputs_.push_back(p);
    }
    for (const auto& port : lowered->outputs) graph->outputs_.push_back(point(port, true));
    return graph;
#else
    (void)dims;
    throw ModelError(path, "this dmlrun was built without ONNX support, so it cannot read '" + file.string() +
                               "' (install the Debian packages libonnx-dev and libprotobuf-dev and build FreeDML again).");
#endif
}

}  // namespace dmlrun
