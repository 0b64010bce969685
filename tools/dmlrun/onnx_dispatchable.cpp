#include <memory>

#include "graph_model.h"

#if FREEDML_HAVE_ONNX
#include "loader.h"
#include "lowering.h"
#endif

namespace dmlrun {

#if FREEDML_HAVE_ONNX
namespace {

namespace fo = freedml::onnx;

fo::LoadOptions SourceOptions(const OnnxSource& source) {
    fo::LoadOptions options;
    options.dims = source.dims;
    options.unsetDimensionsAreOne = true;  // DxDispatch's rule for inputs nobody gives a shape
    options.dimsName = "freeDimensionNameOverrides";
    return options;
}

}  // namespace

std::shared_ptr<const OnnxSource> ReadOnnxSource(const std::filesystem::path& file, std::vector<uint8_t> bytes,
                                                 const std::map<std::string, uint64_t>& dims, const JsonPath& path) {
    auto source = std::make_shared<OnnxSource>();
    source->file = file;
    source->bytes = std::move(bytes);
    source->dims = dims;
    try {
        fo::LoadedModel loaded = fo::LoadModel(source->bytes.data(), source->bytes.size(), SourceOptions(*source));
        source->inputs = loaded.inputNames;
        source->outputs = loaded.outputNames;
    } catch (const fo::LoadError& error) {
        throw ModelError(path, source->Name() + ": " + error.what());
    }
    return source;
}

std::unique_ptr<GraphModel> BuildOnnxGraph(const OnnxSource& source, const std::map<std::string, std::vector<uint64_t>>& inputShapes,
                                           const JsonPath& path) {
    auto lowered = std::make_shared<fo::LoweredGraph>();
    try {
        fo::LoadOptions options = SourceOptions(source);
        options.inputShapes = inputShapes;
        *lowered = fo::Lower(fo::LoadModel(source.bytes.data(), source.bytes.size(), options));
    } catch (const std::exception& error) {  // LoadError, LoweringError
        throw ModelError(path, source.Name() + ": " + error.what());
    }
    auto graph = std::unique_ptr<GraphModel>(new GraphModel);
    graph->description = "the ONNX model '" + source.Name() + "'";
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
        (isOutput ? graph->outputShapes : graph->inputShapes).emplace_back(port.shape.begin(), port.shape.end());
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
}

#else

std::shared_ptr<const OnnxSource> ReadOnnxSource(const std::filesystem::path& file, std::vector<uint8_t>,
                                                 const std::map<std::string, uint64_t>&, const JsonPath& path) {
    throw ModelError(path, "this dmlrun was built without ONNX support, so it cannot read '" + file.string() +
                               "' (install the Debian packages libonnx-dev and libprotobuf-dev and build FreeDML again).");
}

std::unique_ptr<GraphModel> BuildOnnxGraph(const OnnxSource& source, const std::map<std::string, std::vector<uint64_t>>&,
                                           const JsonPath& path) {
    throw ModelError(path, "this dmlrun was built without ONNX support, so it cannot read '" + source.file.string() + "'.");
}

#endif

}  // namespace dmlrun
