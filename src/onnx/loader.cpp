#include "loader.h"

#include <google/protobuf/io/coded_stream.h>
#include <onnx/checker.h>
#include <onnx/defs/function.h>
#include <onnx/defs/schema.h>
#include <onnx/onnx_pb.h>
#include <onnx/shape_inference/implementation.h>

#include <algorithm>
#include <fstream>
#include <iterator>
#include <set>

#include "lowering.h"

namespace freedml::onnx {

namespace {

// Sets every symbolic dimension named in `dims` in one value info; returns the names seen.
void SetDims(::onnx::ValueInfoProto* info, const std::map<std::string, uint64_t>& dims, std::set<std::string>* seen) {
    if (!info->type().has_tensor_type() || !info->type().tensor_type().has_shape()) return;
    auto* shape = info->mutable_type()->mutable_tensor_type()->mutable_shape();
    for (auto& dim : *shape->mutable_dim()) {
        if (!dim.has_dim_param()) continue;
        seen->insert(dim.dim_param());
        auto it = dims.find(dim.dim_param());
        if (it != dims.end()) dim.set_dim_value(static_cast<int64_t>(it->second));
    }
}

// "[N,2]": a declared shape as a message shows it ("?" for an unnamed unknown dimension).
std::string ShapeText(const ::onnx::TensorShapeProto& shape) {
    std::string text = "[";
    for (int i = 0; i < shape.dim_size(); ++i) {
        const auto& dim = shape.dim(i);
        text += (i ? "," : "") + (dim.has_dim_value()   ? std::to_string(dim.dim_value())
                                  : dim.has_dim_param() ? dim.dim_param()
                                                        : "?");
    }
    return text + "]";
}

std::string ShapeText(const std::vector<uint64_t>& shape) {
    std::string text = "[";
    for (size_t i = 0; i < shape.size(); ++i) text += (i ? "," : "") + std::to_string(shape[i]);
    return text + "]";
}

// Gives graph input `info` the whole shape `given`, which must fit what the model declares.
void SetInputShape(::onnx::ValueInfoProto* info, const std::vector<uint64_t>& given) {
    auto* type = info->mutable_type();
    if (!type->has_tensor_type()) {
        throw LoadError("a shape is given for graph input '" + info->name() + "', which is not a tensor.");
    }
    auto* shape = type->mutable_tensor_type()->mutable_shape();
    if (type->tensor_type().has_shape() && shape->dim_size() != static_cast<int>(given.size())) {
        throw LoadError("the shape " + ShapeText(given) + " given for graph input '" + info->name() + "' has " +
                        std::to_string(given.size()) + " dimension" + (given.size() == 1 ? "" : "s") +
                        "; the input has " + std::to_string(shape->dim_size()) + " (" + ShapeText(*shape) + ").");
    }
    for (int i = 0; i < shape->dim_size(); ++i) {
        const auto& dim = shape->dim(i);
        if (dim.has_dim_value() && static_cast<uint64_t>(dim.dim_value()) != given[i]) {
            throw LoadError("the shape " + ShapeText(given) + " given for graph input '" + info->name() +
                            "' does not fit its declared shape " + ShapeText(*shape) + ": dimension " +
                            std::to_string(i) + " is " + std::to_string(dim.dim_value()) + ", not " +
                            std::to_string(given[i]) + ".");
        }
    }
    shape->clear_dim();
    for (uint64_t value : given) shape->add_dim()->set_dim_value(static_cast<int64_t>(value));
}

// The value's type as the graph knows it now (graph inputs, initializers, value infos, outputs).
std::map<std::string, ::onnx::TypeProto> KnownTypes(const ::onnx::GraphProto& graph) {
    std::map<std::string, ::onnx::TypeProto> types;
    for (const auto& init : graph.initializer()) {
        auto* tensor = types[init.name()].mutable_tensor_type();
        tensor->set_elem_type(init.data_type());
        auto* shape = tensor->mutable_shape();
        for (int64_t d : init.dims()) shape->add_dim()->set_dim_value(d);
    }
    for (const auto* list : {&graph.input(), &graph.value_info(), &graph.output()}) {
        for (const auto& info : *list) types[info.name()] = info.type();
    }
    return types;
}

// Operators of the default domain that the lowering has no entry for but ONNX defines as a function
// of other operators (the loss functions, ...) are replaced by that body, as ONNX Runtime does for
// operators its providers lack; bodies may hold such operators again, so this repeats. Returns
// whether it changed the graph (shape inference must then run again).
bool ExpandFunctions(::onnx::ModelProto* model, int64_t opset, int round) {
    static const std::vector<std::string> lowered = SupportedOperators();
    auto* graph = model->mutable_graph();
    std::map<std::string, ::onnx::TypeProto> types;
    ::onnx::GraphProto expanded;
    bool changed = false;
    int index = 0;
    for (const auto& node : graph->node()) {
        ++index;
        const bool known = std::binary_search(lowered.begin(), lowered.end(), node.op_type());
        const auto* schema = node.domain().empty() || node.domain() == "ai.onnx"
                                 ? ::onnx::OpSchemaRegistry::Schema(node.op_type(), static_cast<int>(opset), "")
                                 : nullptr;
        ::onnx::FunctionProto function;
        bool built = false;
        if (!known && schema) {
            if (schema->HasFunction() && schema->GetFunction()) {
                function = *schema->GetFunction();
                built = true;
            } else if (schema->HasContextDependentFunction()) {
                if (types.empty()) types = KnownTypes(*graph);
                std::vector<::onnx::TypeProto> inputTypes;
                for (const auto& input : node.input()) {
                    auto it = types.find(input);
                    inputTypes.push_back(it == types.end() ? ::onnx::TypeProto() : it->second);
                }
                ::onnx::FunctionBodyBuildContextImpl context(node, inputTypes);
                built = schema->BuildContextDependentFunction(context, function);
            }
        }
        if (!built) {
            *expanded.add_node() = node;
            continue;
        }
        // A body attribute that refers to an attribute the node leaves unset takes the operator's
        // default, or is left out so that the inner operator takes its own (ONNX 1.12's expansion
        // would set it to zero).
        std::set<std::string> given;
        for (const auto& attribute : node.attribute()) given.insert(attribute.name());
        for (auto& inner : *function.mutable_node()) {
            auto* attributes = inner.mutable_attribute();
            for (int a = attributes->size() - 1; a >= 0; --a) {
                const std::string ref = attributes->Get(a).ref_attr_name();
                if (ref.empty() || given.count(ref)) continue;
                auto declared = schema->attributes().find(ref);
                if (declared != schema->attributes().end() && declared->second.default_value.has_type()) {
                    const std::string name = attributes->Get(a).name();
                    *attributes->Mutable(a) = declared->second.default_value;
                    attributes->Mutable(a)->set_name(name);
                } else {
                    attributes->DeleteSubrange(a, 1);
                }
            }
        }
        ::onnx::FunctionExpandHelper(
            node, function, expanded,
            "f" + std::to_string(round) + "_" + std::to_string(index) + "_" + node.op_type() + "_");
        changed = true;
    }
    if (changed) graph->mutable_node()->Swap(expanded.mutable_node());
    return changed;
}

}  // namespace

LoadedModel LoadModel(const uint8_t* data, size_t size, const LoadOptions& options) {
    auto model = std::make_shared<::onnx::ModelProto>();
    {
        google::protobuf::io::CodedInputStream input(data, static_cast<int>(size));
        input.SetTotalBytesLimit(INT32_MAX);
        if (size > static_cast<size_t>(INT32_MAX)) {
            throw LoadError("the file is " + std::to_string(size) +
                            " bytes; protobuf reads models up to 2 GiB (larger models keep their weights as external data, "
                            "which FreeDML does not read yet).");
        }
        if (!model->ParseFromCodedStream(&input) || !input.ConsumedEntireMessage()) {
            throw LoadError("protobuf cannot parse the file as an ONNX ModelProto: it stopped at byte " +
                            std::to_string(input.CurrentPosition()) + " of " + std::to_string(size) +
                            " (a truncated file, or not an ONNX model).");
        }
    }
    if (!model->has_graph()) throw LoadError("the file parses but holds no graph (is it an ONNX model?).");
    // ONNX 1.12's checker asks graph outputs for a shape, which exporters may leave to shape
    // inference: such a model is checked again after inference; any other refusal stops here.
    bool outputsWithoutShape = false;
    for (const auto& output : model->graph().output()) {
        outputsWithoutShape |= output.type().has_tensor_type() && !output.type().tensor_type().has_shape();
    }
    auto check = [&] {
        try {
            ::onnx::checker::check_model(*model);
        } catch (const std::exception& error) {
            return std::string(error.what());
        }
        return std::string();
    };
    std::string refusal = check();
    if (!refusal.empty() && !outputsWithoutShape) throw LoadError("ONNX's checker refuses the model: " + refusal);

    LoadedModel loaded;
    for (const auto& opset : model->opset_import()) {
        if (opset.domain().empty() || opset.domain() == "ai.onnx") loaded.opset = opset.version();
    }

    auto* graph = model->mutable_graph();
    std::set<std::string> initializers;
    for (const auto& init : graph->initializer()) {
        if (init.data_location() == ::onnx::TensorProto::EXTERNAL) {
            throw LoadError("initializer '" + init.name() +
                            "' keeps its data in an external file, which FreeDML does not read yet; save the model "
                            "with its weights inside (onnx.save(model, path, save_as_external_data=False)).");
        }
        initializers.insert(init.name());
    }
    std::set<std::string> seen;
    for (auto& input : *graph->mutable_input()) SetDims(&input, options.dims, &seen);
    for (auto& output : *graph->mutable_output()) SetDims(&output, options.dims, &seen);
    for (auto& info : *graph->mutable_value_info()) SetDims(&info, options.dims, &seen);
    for (const auto& [name, value] : options.dims) {
        if (!seen.count(name)) {
            std::string known;
            for (const auto& s : seen) known += (known.empty() ? "" : ", ") + s;
            throw LoadError(options.dimsName + " " + name + "=" + std::to_string(value) +
                            " names no symbolic dimension of the model" +
                            (known.empty() ? std::string(" (it has none).") : " (it has: " + known + ")."));
        }
    }
    for (const auto& [name, shape] : options.inputShapes) {
        ::onnx::ValueInfoProto* found = nullptr;
        for (auto& input : *graph->mutable_input()) {
            if (input.name() == name && !initializers.count(name)) found = &input;
        }
        if (!found) {
            std::string known;
            for (const auto& input : graph->input()) {
                if (!initializers.count(input.name())) known += (known.empty() ? "'" : ", '") + input.name() + "'";
            }
            throw LoadError("a shape is given for '" + name + "', which is not an input of the model" +
                            (known.empty() ? std::string(" (it has none).") : " (its inputs: " + known + ")."));
        }
        SetInputShape(found, shape);
    }
    if (options.unsetDimensionsAreOne) {
        for (auto& input : *graph->mutable_input()) {
            if (initializers.count(input.name()) || !input.type().has_tensor_type() ||
                !input.type().tensor_type().has_shape()) {
                continue;
            }
            for (auto& dim : *input.mutable_type()->mutable_tensor_type()->mutable_shape()->mutable_dim()) {
                if (!dim.has_dim_value()) dim.set_dim_value(1);
            }
        }
    }
    for (const auto& input : graph->input()) {
        if (initializers.count(input.name())) continue;
        loaded.inputNames.push_back(input.name());
        if (!input.type().has_tensor_type()) {
            throw LoadError("graph input '" + input.name() + "' is not a tensor (sequences and maps have no DirectML form).");
        }
        if (!input.type().tensor_type().has_shape()) {
            throw LoadError("graph input '" + input.name() + "' has no shape; DirectML graphs need static shapes.");
        }
        int index = 0;
        for (const auto& dim : input.type().tensor_type().shape().dim()) {
            if (dim.has_dim_param()) {
                throw LoadError("graph input '" + input.name() + "' has the symbolic dimension '" + dim.dim_param() +
                                "' (dimension " + std::to_string(index) + "); give its value with --dim " +
                                dim.dim_param() + "=N.");
            }
            if (!dim.has_dim_value()) {
                throw LoadError("graph input '" + input.name() + "' has an unnamed unknown dimension " +
                                std::to_string(index) + "; DirectML graphs need static shapes.");
            }
            ++index;
        }
    }

    auto infer = [&] {
        try {
            ::onnx::ShapeInferenceOptions inference(/*check_type=*/true, /*error_mode=*/1, /*data_prop=*/true);
            ::onnx::shape_inference::InferShapes(*model, ::onnx::OpSchemaRegistry::Instance(), inference);
        } catch (const std::exception& error) {
            throw LoadError(std::string("ONNX's shape inference refuses the model: ") + error.what());
        }
    };
    infer();
    // Function bodies are built from the inferred input types; a few rounds cover nested ones.
    for (int round = 0; round < 4; ++round) {
        bool changed = false;
        try {
            changed = ExpandFunctions(model.get(), loaded.opset, round);
        } catch (const std::exception& error) {
            throw LoadError(std::string("ONNX cannot expand a function operator of the model: ") + error.what());
        }
        if (!changed) break;
        infer();
    }
    if (!refusal.empty()) {
        refusal = check();
        if (!refusal.empty()) throw LoadError("ONNX's checker refuses the model: " + refusal);
    }
    for (const auto& output : model->graph().output()) loaded.outputNames.push_back(output.name());
    loaded.proto = std::move(model);
    return loaded;
}

LoadedModel LoadModelFile(const std::string& path, const LoadOptions& options) {
    std::ifstream stream(path, std::ios::binary);
    if (!stream) throw LoadError("cannot open '" + path + "'.");
    std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(stream)), std::istreambuf_iterator<char>());
    if (stream.bad()) throw LoadError("cannot read '" + path + "'.");
    return LoadModel(bytes.data(), bytes.size(), options);
}

}  // namespace freedml::onnx
