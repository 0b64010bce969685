#include "model.h"
#include "serialized_graph.h"

#include <algorithm>
#include <cctype>
#include <fstream>
#include <system_error>

#include "npy.h"
#include "values.h"

namespace dmlrun {

namespace {

constexpr struct {
    const char* name;
    DML_EXECUTION_FLAGS value;
} kExecutionFlags[] = {
    {"NONE", DML_EXECUTION_FLAG_NONE},
    {"ALLOW_HALF_PRECISION_COMPUTATION", DML_EXECUTION_FLAG_ALLOW_HALF_PRECISION_COMPUTATION},
    {"DISABLE_META_COMMANDS", DML_EXECUTION_FLAG_DISABLE_META_COMMANDS},
    {"DESCRIPTORS_VOLATILE", DML_EXECUTION_FLAG_DESCRIPTORS_VOLATILE},
};

std::string Lower(std::string text) {
    for (char& c : text) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return text;
}

class ModelReader {
public:
    explicit ModelReader(const ParseOptions& options) : options_(options) {}

    Model Read(const Json& root) {
        ExpectObject(root, {}, "a model: an object with \"resources\", \"dispatchables\" and \"commands\"");
        if (const Json* capture = FindMember(root, "$capture")) {
            const JsonPath capturePath = JsonPath() / "$capture";
            ExpectObject(*capture, capturePath, "the capture's description ({\"format\": ..., \"version\": 1})");
            const JsonPath versionPath = capturePath / "version";
            const uint32_t version = ParseUInt32(Require(*capture, capturePath, "version", "the capture format's version"), versionPath);
            if (version == 0 || version > static_cast<uint32_t>(kCaptureFormatVersion)) {
                throw ModelError(versionPath, "this capture has format version " + std::to_string(version) + "; this dmlrun reads " +
                                                  "version " + std::to_string(kCaptureFormatVersion) + " (a newer FreeDML wrote it).");
            }
            model_.captureVersion = static_cast<int>(version);
        }
        const JsonPath resourcesPath = JsonPath() / "resources";
        const Json& resources = Require(root, {}, "resources", "an object of named buffers");
        ExpectObject(resources, resourcesPath, "an object of named buffers");
        for (const auto& [name, value] : resources.items()) {
            model_.resources.push_back(ReadResource(name, value, resourcesPath / name));
            resourceIndex_[name] = model_.resources.size() - 1;
        }
        const JsonPath dispatchablesPath = JsonPath() / "dispatchables";
        const Json& dispatchables = Require(root, {}, "dispatchables", "an object of named operators");
        ExpectObject(dispatchables, dispatchablesPath, "an object of named operators");
        for (const auto& [name, value] : dispatchables.items()) {
            model_.dispatchables.push_back(ReadDispatchable(name, value, dispatchablesPath / name));
            dispatchableIndex_[name] = model_.dispatchables.size() - 1;
        }
        const JsonPath commandsPath = JsonPath() / "commands";
        const Json& commands = Require(root, {}, "commands", "an array of commands");
        if (!commands.is_array()) {
            throw ModelError(commandsPath, "expected an array of commands, found " + DescribeValue(commands) + ".");
        }
        for (size_t i = 0; i < commands.size(); ++i) model_.commands.push_back(ReadCommand(commands[i], commandsPath[i]));
        FinishOnnx();
        return std::move(model_);
    }

private:
    // Counts bytes against --max-memory before they are allocated.
    void Reserve(uint64_t bytes, const JsonPath& path, const char* what) {
        if (bytes > options_.maxMemoryBytes - memoryUsed_) {
            throw ModelError(path, std::string(what) + " would take " + std::to_string(bytes) + " bytes; with the buffers before it " +
                                       "that is more than dmlrun's limit of " + std::to_string(options_.maxMemoryBytes) +
                                       " bytes (raise it with --max-memory MiB).");
        }
        memoryUsed_ += bytes;
    }

    // `resolved` (optional) receives the path the file was read from.
    std::vector<uint8_t> ReadFile(const std::string& sourcePath, const JsonPath& path,
                                  std::filesystem::path* resolved = nullptr) {
        if (!options_.allowFiles) throw ModelError(path, "this reader does not open files.");
        std::error_code error;
        std::filesystem::path file = options_.modelDirectory / sourcePath;
        if (!std::filesystem::exists(file, error)) file = sourcePath;
        if (resolved) *resolved = file;
        if (!std::filesystem::is_regular_file(file, error)) {
            throw ModelError(path, "cannot open '" + sourcePath + "': no such file beside the model or in the current directory.");
        }
        const uint64_t size = std::filesystem::file_size(file, error);
        if (error) throw ModelError(path, "cannot read '" + file.string() + "': " + error.message() + ".");
        if (size > options_.maxMemoryBytes - memoryUsed_) {
            throw ModelError(path, "'" + file.string() + "' (" + std::to_string(size) + " bytes) is larger than dmlrun's limit of " +
                                       std::to_string(options_.maxMemoryBytes) + " bytes (raise it with --max-memory MiB).");
        }
        std::ifstream stream(file, std::ios::binary);
        std::vector<uint8_t> bytes(size);
        if (!stream || !stream.read(reinterpret_cast<char*>(bytes.data()), static_cast<std::streamsize>(size))) {
            throw ModelError(path, "cannot read '" + file.string() + "'.");
        }
        return bytes;
    }

    Resource ReadResource(const std::string& name, const Json& value, const JsonPath& path) {
        ExpectObject(value, path, "a resource");
        Resource resource;
        resource.name = name;
        resource.path = path;
        if (const Json* type = FindMember(value, "type"); type && ExpectString(*type, path / "type", "a resource type") != "buffer") {
            throw ModelError(path / "type", "only \"buffer\" resources exist; found " + DescribeValue(*type) + ".");
        }
        bool typeGiven = false;
        if (const Json* type = FindMember(value, "initialValuesDataType")) {
            resource.dataType = ParseDataType(*type, path / "initialValuesDataType");
            typeGiven = true;
        }
        const JsonPath valuesPath = path / "initialValues";
        const Json& initial = Require(value, path, "initialValues", "an array, or an object with value, valueStart or sourcePath");
        const bool isTypedList = initial.is_array() && resource.dataType == DML_TENSOR_DATA_TYPE_UNKNOWN && typeGiven;
        auto requireType = [&]() {
            if (resource.dataType == DML_TENSOR_DATA_TYPE_UNKNOWN || ValueSizeInBytes(resource.dataType) == 0) {
                throw ModelError(typeGiven ? path / "initialValuesDataType" : path,
                                 "these initialValues need an initialValuesDataType with values (FLOAT32, INT32, ...).");
            }
        };
        if (initial.is_string()) {
            if (initial.get<std::string>() != "deferred") {
                throw ModelError(valuesPath, "the one string initialValues is \"deferred\" (a buffer that takes its type and shape "
                                             "from the ONNX model output bound to it); found \"" +
                                                 initial.get<std::string>() + "\". Give an array or an object otherwise.");
            }
            for (const auto& item : value.items()) {
                const std::string& key = item.key();
                if (key != "type" && key != "initialValuesDataType" && key != "initialValues" && key != "$comment") {
                    throw ModelError(path / key, "a deferred resource takes its size from the ONNX model output bound to it, so "
                                                 "it has no \"" + key + "\".");
                }
            }
            resource.deferred = true;
            return resource;
        } else if (isTypedList) {
            // A list of {"type": ..., "value": ...} (a constant buffer for a shader); each element
            // has its own type.
            for (size_t i = 0; i < initial.size(); ++i) {
                const Json& element = initial[i];
                ExpectObject(element, valuesPath[i], "an object with \"type\" and \"value\"");
                DML_TENSOR_DATA_TYPE type =
                    ParseDataType(Require(element, valuesPath[i], "type", "the element's data type"), valuesPath[i] / "type");
                Reserve(8, valuesPath[i], "the initial values");
                AppendValue(type, Require(element, valuesPath[i], "value", "the element's value"), valuesPath[i] / "value",
                            &resource.initialValues);
            }
        } else if (initial.is_array()) {
            requireType();
            Reserve(initial.size() * ValueSizeInBytes(resource.dataType), valuesPath, "the initial values");
            resource.initialValues.reserve(initial.size() * ValueSizeInBytes(resource.dataType));
            for (size_t i = 0; i < initial.size(); ++i) AppendValue(resource.dataType, initial[i], valuesPath[i], &resource.initialValues);
        } else if (initial.is_object()) {
            ReadGenerator(initial, valuesPath, path, typeGiven, &resource);
        } else {
            throw ModelError(valuesPath, "expected an array of values, or an object ({\"value\", \"valueCount\"}, "
                                         "{\"valueStart\", \"valueDelta\", \"valueCount\"} or {\"sourcePath\"}), found " +
                                             DescribeValue(initial) + ".");
        }
        if (resource.initialValues.empty()) throw ModelError(valuesPath, "the initial values are empty; a buffer needs at least one.");

        if (const Json* offset = FindMember(value, "initialValuesOffsetInBytes")) {
            resource.initialValuesOffsetInBytes = ParseUInt64(*offset, path / "initialValuesOffsetInBytes");
        }
        const uint64_t needed = resource.initialValues.size() + std::min<uint64_t>(resource.initialValuesOffsetInBytes, options_.maxMemoryBytes);
        if (const Json* size = FindMember(value, "sizeInBytes")) {
            resource.sizeInBytes = ParseUInt64(*size, path / "sizeInBytes");
            if (resource.sizeInBytes == 0) throw ModelError(path / "sizeInBytes", "sizeInBytes must be at least 1.");
            if (resource.sizeInBytes < needed || resource.initialValuesOffsetInBytes > resource.sizeInBytes) {
                throw ModelError(path / "sizeInBytes", "the buffer (" + std::to_string(resource.sizeInBytes) +
                                                           " bytes) is too small for its initial values (" +
                                                           std::to_string(resource.initialValues.size()) + " bytes at offset " +
                                                           std::to_string(resource.initialValuesOffsetInBytes) + ").");
            }
        } else {
            resource.sizeInBytes = (needed + 3) & ~uint64_t(3);  // DirectML binds whole DWORDs
        }
        // The initial values were counted already; the rest of the buffer counts now.
        Reserve(resource.sizeInBytes - std::min<uint64_t>(resource.sizeInBytes, resource.initialValues.size()), path,
                "the buffer");
        return resource;
    }

    void ReadGenerator(const Json& initial, const JsonPath& valuesPath, const JsonPath& resourcePath,
                       bool typeGiven, Resource* resource) {
        const Json* constant = FindMember(initial, "value");
        const Json* start = FindMember(initial, "valueStart");
        const Json* source = FindMember(initial, "sourcePath");
        const Json* random = FindMember(initial, "randomSeed");
        if ((constant != nullptr) + (start != nullptr) + (source != nullptr) + (random != nullptr) != 1) {
            throw ModelError(valuesPath, "the initialValues object needs exactly one of \"value\" (a constant), \"valueStart\" "
                                         "(a sequence), \"sourcePath\" (a file) or \"randomSeed\" (seeded random values).");
        }
        if (source) {
            const std::string& file = ExpectString(*source, valuesPath / "sourcePath", "a file path");
            std::string extension = Lower(std::filesystem::path(file).extension().string());
            if (extension == ".png" || extension == ".jpg" || extension == ".jpeg") {
                throw ModelError(valuesPath / "sourcePath", "images are not supported by dmlrun; give a .npy or raw binary file.");
            }
            std::vector<uint8_t> bytes = ReadFile(file, valuesPath / "sourcePath");
            if (extension == ".npy") {
                NpyArray array;
                try {
                    array = ReadNpy(bytes, options_.maxMemoryBytes);
                } catch (const std::runtime_error& error) {
                    throw ModelError(valuesPath / "sourcePath", "cannot read '" + file + "': " + error.what());
                }
                if (typeGiven && resource->dataType != DML_TENSOR_DATA_TYPE_UNKNOWN && resource->dataType != array.dataType) {
                    throw ModelError(resourcePath / "initialValuesDataType",
                                     std::string("initialValuesDataType is ") + freedml::dml::DataTypeName(resource->dataType) +
                                         " but '" + file + "' holds " + freedml::dml::DataTypeName(array.dataType) + ".");
                }
                resource->dataType = array.dataType;
                resource->shape = array.shape;
                resource->initialValues = std::move(array.data);
            } else {
                if (!typeGiven || ValueSizeInBytes(resource->dataType) == 0) {
                    throw ModelError(resourcePath, "a raw file needs an initialValuesDataType (FLOAT32, INT32, ...).");
                }
                resource->initialValues = std::move(bytes);
            }
            memoryUsed_ += resource->initialValues.size();
            return;
        }
        if (!typeGiven || ValueSizeInBytes(resource->dataType) == 0) {
            throw ModelError(typeGiven ? resourcePath / "initialValuesDataType" : resourcePath,
                             "these initialValues need an initialValuesDataType with values (FLOAT32, INT32, ...).");
        }
        const JsonPath countPath = valuesPath / "valueCount";
        const uint64_t count = ParseUInt32(Require(initial, valuesPath, "valueCount", "the number of elements"), countPath);
        if (count == 0) throw ModelError(countPath, "valueCount must be at least 1.");
        Reserve(count * ValueSizeInBytes(resource->dataType), countPath, "the initial values");
        if (random) {
            AppendRandom(resource->dataType, ParseUInt64(*random, valuesPath / "randomSeed"), count, &resource->initialValues);
            resource->random = true;
        } else if (constant) {
            AppendConstant(resource->dataType, *constant, count, valuesPath / "value", &resource->initialValues);
        } else {
            AppendSequence(resource->dataType, *start, Require(initial, valuesPath, "valueDelta", "the step of the sequence"), count,
                           valuesPath / "valueStart", valuesPath / "valueDelta", &resource->initialValues);
        }
    }

    // DxDispatch's {"type": "dmlSerializedGraph", "sourcePath": "FILE"}: the graph in DirectML's
    // binary serialization (serialized_graph.h), turned into a graph dispatchable whose bind points
    // are the graph's input and output names.
    Dispatchable ReadSerializedDispatchable(const std::string& name, const Json& value, const JsonPath& path) {
        for (const auto& item : value.items()) {
            const std::string& key = item.key();
            if (key != "type" && key != "sourcePath" && key != "$comment") {
                throw ModelError(path / key, "a dmlSerializedGraph dispatchable has no field \"" + key +
                                                 "\" (it has type and sourcePath).");
            }
        }
        const std::string& source = ExpectString(Require(value, path, "sourcePath", "the serialized graph's file"),
                                                 path / "sourcePath", "a file path");
        std::filesystem::path file;
        const std::vector<uint8_t> bytes = ReadFile(source, path / "sourcePath", &file);
        Json graph;
        try {
            graph = ReadSerializedGraph(bytes, file.parent_path());
        } catch (const SerializedGraphError& error) {
            throw ModelError(path / "sourcePath", "'" + source + "' is not a graph dmlrun can read: " + error.what() + ".");
        }
        Dispatchable dispatchable;
        dispatchable.name = name;
        dispatchable.path = path;
        try {
            dispatchable.graph = BuildGraph(graph, path);
        } catch (const ModelError& error) {
            throw ModelError(path / "sourcePath", "the graph in '" + source + "' is not one FreeDML accepts: " +
                                                      error.Path().ToString() + ": " + error.what());
        }
        dispatchable.compileAsGraph = true;
        return dispatchable;
    }

    // DxDispatch's ONNX dispatchable: {"type": "onnx", "sourcePath": "model.onnx",
    // "freeDimensionNameOverrides": {"batch": 2}}, bound by the model's input and output names.
    Dispatchable ReadOnnxDispatchable(Dispatchable dispatchable, const Json& value, const JsonPath& path) {
        for (const auto& item : value.items()) {
            const std::string& key = item.key();
            static const char* const kKeys[] = {"type", "sourcePath", "freeDimensionNameOverrides", "$comment"};
            if (std::none_of(std::begin(kKeys), std::end(kKeys), [&](const char* k) { return key == k; })) {
                throw ModelError(path / key, "an onnx dispatchable has no field \"" + key + "\" dmlrun reads (it reads "
                                                 "sourcePath and freeDimensionNameOverrides).");
            }
        }
        const JsonPath sourcePath = path / "sourcePath";
        const std::string& source = ExpectString(Require(value, path, "sourcePath", "the .onnx file"), sourcePath, "a file path");
        std::filesystem::path file;
        std::vector<uint8_t> bytes = ReadFile(source, sourcePath, &file);
        std::map<std::string, uint64_t> dims;
        if (const Json* overrides = FindMember(value, "freeDimensionNameOverrides")) {
            const JsonPath overridesPath = path / "freeDimensionNameOverrides";
            if (!overrides->is_object()) {
                throw ModelError(overridesPath, "expected an object of dimension names and sizes, found " + DescribeValue(*overrides) + ".");
            }
            for (const auto& item : overrides->items()) dims[item.key()] = ParseUInt64(item.value(), overridesPath / item.key());
        }
        // The model is lowered by the dispatch commands, once per set of binding shapes.
        dispatchable.onnx = ReadOnnxSource(file, std::move(bytes), dims, path);
        dispatchable.compileAsGraph = true;
        return dispatchable;
    }

    Dispatchable ReadDispatchable(const std::string& name, const Json& value, const JsonPath& path) {
        ExpectObject(value, path, "a dispatchable");
        Dispatchable dispatchable;
        dispatchable.name = name;
        dispatchable.path = path;
        const Json& type = Require(value, path, "type", "the operator type, e.g. \"DML_OPERATOR_GEMM\", or \"graph\"");
        const bool isGraph = type.is_string() && type.get<std::string>() == "graph";
        if (type.is_string()) {
            std::string lower = Lower(type.get<std::string>());
            if (lower == "dmlserializedgraph") return ReadSerializedDispatchable(name, value, path);
            if (lower == "onnx") return ReadOnnxDispatchable(std::move(dispatchable), value, path);
            if (lower == "hlsl") {
                throw ModelError(path / "type", "\"" + type.get<std::string>() +
                                                    "\" dispatchables are not supported: dmlrun runs DirectML operators "
                                                    "(\"DML_OPERATOR_...\").");
            }
        }
        if (const Json* compile = FindMember(value, "dmlCompileType")) {
            const std::string& kind = ExpectString(*compile, path / "dmlCompileType", "DmlCompileOp or DmlCompileGraph");
            if (kind != "DmlCompileOp" && kind != "DmlCompileGraph") {
                throw ModelError(path / "dmlCompileType", "expected DmlCompileOp or DmlCompileGraph, found '" + kind + "'.");
            }
            dispatchable.compileAsGraph = kind == "DmlCompileGraph";
        }
        if (const Json* flags = FindMember(value, "executionFlags")) {
            const JsonPath flagsPath = path / "executionFlags";
            auto parseFlag = [&](const Json& flag, const JsonPath& flagPath) {
                if (flag.is_string()) {
                    std::string text = flag.get<std::string>();
                    if (text.rfind("DML_EXECUTION_FLAG_", 0) == 0) text = text.substr(19);
                    for (const auto& entry : kExecutionFlags) {
                        if (text == entry.name) return entry.value;
                    }
                }
                throw ModelError(flagPath, "expected a DML_EXECUTION_FLAGS value (NONE, ALLOW_HALF_PRECISION_COMPUTATION, "
                                           "DISABLE_META_COMMANDS, DESCRIPTORS_VOLATILE, with or without the prefix "
                                           "DML_EXECUTION_FLAG_), found " +
                                               DescribeValue(flag) + ".");
            };
            uint32_t bits = 0;
            if (flags->is_array()) {
                for (size_t i = 0; i < flags->size(); ++i) bits |= parseFlag((*flags)[i], flagsPath[i]);
            } else {
                bits = parseFlag(*flags, flagsPath);
            }
            dispatchable.executionFlags = static_cast<DML_EXECUTION_FLAGS>(bits);
        }
        if (isGraph) {
            if (const Json* compile = FindMember(value, "dmlCompileType")) {
                const std::string& kind = ExpectString(*compile, path / "dmlCompileType", "a compile type");
                if (kind != "DmlCompileGraph") throw ModelError(path / "dmlCompileType", "a graph compiles only as DmlCompileGraph.");
            }
            for (const auto& item : value.items()) {
                const std::string& key = item.key();
                static const char* const kKeys[] = {"type", "inputs", "outputs", "nodes", "edges", "executionFlags",
                                                    "bindings", "dmlCompileType", "$comment"};
                if (std::find_if(std::begin(kKeys), std::end(kKeys), [&](const char* k) { return key == k; }) == std::end(kKeys)) {
                    throw ModelError(path / key, "a graph dispatchable has no field \"" + key +
                                                     "\" (it has type, inputs, outputs, nodes, edges, executionFlags, bindings).");
                }
            }
            dispatchable.graph = BuildGraph(value, path);
            dispatchable.compileAsGraph = true;
        } else {
            dispatchable.op = BuildOperator(value, path, {"executionFlags", "bindings", "dmlCompileType", "$comment"});
        }

        // Initialization bindings: inputs flagged OWNED_BY_DML, which DirectML reads once, when
        // the operator is initialized.
        if (const Json* bindings = FindMember(value, "bindings")) {
            dispatchable.initBindings = ReadBindings(*bindings, path / "bindings", dispatchable.Binds(), /*initialization=*/true);
        }
        for (const auto& point : dispatchable.Binds().Inputs()) {
            if (!point.given || !AllOwned(point)) continue;
            bool bound = std::any_of(dispatchable.initBindings.begin(), dispatchable.initBindings.end(),
                                     [&](const Binding& binding) { return binding.bindPoint == point.name; });
            if (!bound) {
                throw ModelError(path, point.name + " is flagged OWNED_BY_DML, so it is bound when the operator is initialized: "
                                                    "give it in this dispatchable's \"bindings\" ({\"" +
                                                    point.name + "\": \"RESOURCE\"}).");
            }
        }
        return dispatchable;
    }

    static bool AllOwned(const BindPoint& point) {
        return !point.tensors.empty() && std::all_of(point.tensors.begin(), point.tensors.end(), [](const auto* tensor) {
            return (tensor->Flags & DML_TENSOR_FLAG_OWNED_BY_DML) != 0;
        });
    }

    static bool AnyOwned(const BindPoint& point) {
        return std::any_of(point.tensors.begin(), point.tensors.end(),
                           [](const auto* tensor) { return (tensor->Flags & DML_TENSOR_FLAG_OWNED_BY_DML) != 0; });
    }

    BoundRange ReadSource(const Json& source, const JsonPath& path) {
        const Json* name = &source;
        JsonPath namePath = path;
        uint64_t elementOffset = 0, elementSize = 0;
        std::optional<uint64_t> elementCount;
        if (source.is_object()) {
            for (auto it = source.begin(); it != source.end(); ++it) {
                const std::string& key = it.key();
                static const char* const kKnown[] = {"name", "elementOffset", "elementCount", "elementSizeInBytes",
                                                     "elementStride", "format", "shape", "counter", "counterOffsetBytes"};
                if (std::none_of(std::begin(kKnown), std::end(kKnown), [&](const char* k) { return key == k; })) {
                    throw ModelError(path / key, "a binding has no field '" + key +
                                                     "'; DirectML bindings use name, elementOffset, elementCount and "
                                                     "elementSizeInBytes.");
                }
            }
            name = &Require(source, path, "name", "the name of the resource to bind");
            namePath = path / "name";
            if (const Json* v = FindMember(source, "elementOffset")) elementOffset = ParseUInt64(*v, path / "elementOffset");
            if (const Json* v = FindMember(source, "elementCount")) elementCount = ParseUInt64(*v, path / "elementCount");
            for (const char* key : {"elementSizeInBytes", "elementStride"}) {
                if (const Json* v = FindMember(source, key)) elementSize = ParseUInt64(*v, path / key);
            }
        } else if (!source.is_string()) {
            throw ModelError(path, "expected a resource name or a binding object ({\"name\": ..., \"elementOffset\": ...}), found " +
                                       DescribeValue(source) + ".");
        }
        const std::string& resourceName = ExpectString(*name, namePath, "a resource name");
        auto found = resourceIndex_.find(resourceName);
        if (found == resourceIndex_.end()) {
            throw ModelError(namePath, "no resource is named '" + resourceName + "'" + ResourceList() + ".");
        }
        const Resource& resource = model_.resources[found->second];
        BoundRange range;
        range.resource = found->second;
        if (resource.deferred) {
            for (const char* key : {"elementOffset", "elementCount", "elementSizeInBytes", "elementStride"}) {
                if (source.is_object() && FindMember(source, key)) {
                    throw ModelError(path / key, "resource '" + resourceName + "' is deferred: it is bound whole to an ONNX "
                                                 "model output, which gives its size, so a binding to it has no " + key + ".");
                }
            }
            return range;  // its size is the output's, set when the dispatch command is read
        }
        if (elementSize == 0) elementSize = std::max<uint32_t>(ValueSizeInBytes(resource.dataType), 1);
        if (elementOffset > resource.sizeInBytes / elementSize) {
            throw ModelError(path, "elementOffset " + std::to_string(elementOffset) + " (of " + std::to_string(elementSize) +
                                       "-byte elements) is past the end of '" + resourceName + "' (" +
                                       std::to_string(resource.sizeInBytes) + " bytes).");
        }
        range.offset = elementOffset * elementSize;
        range.size = resource.sizeInBytes - range.offset;
        if (elementCount) {
            if (*elementCount > range.size / elementSize) {
                throw ModelError(path, std::to_string(*elementCount) + " elements of " + std::to_string(elementSize) +
                                           " bytes from element " + std::to_string(elementOffset) + " run past the end of '" +
                                           resourceName + "' (" + std::to_string(resource.sizeInBytes) + " bytes).");
            }
            range.size = *elementCount * elementSize;
        }
        return range;
    }

    std::string ResourceList() const {
        if (model_.resources.empty()) return " (the model has no resources)";
        std::string names;
        for (const auto& resource : model_.resources) names += (names.empty() ? "" : ", ") + ("'" + resource.name + "'");
        return " (the resources are " + names + ")";
    }

    // `onnx`: the dispatch command of an ONNX dispatchable, whose outputs may be deferred resources.
    std::vector<Binding> ReadBindings(const Json& json, const JsonPath& path, const Bindable& op, bool initialization,
                                      bool onnx = false) {
        if (!json.is_object()) {
            throw ModelError(path, "expected an object of bindings ({\"ATensor\": \"A\", ...}), found " + DescribeValue(json) + ".");
        }
        std::vector<Binding> bindings;
        for (const auto& [name, value] : json.items()) {
            const JsonPath pointPath = path / name;
            const BindPoint* point = op.FindBindPoint(name);
            if (!point) {
                throw ModelError(pointPath, op.Describe() + " has no tensor named '" + name +
                                                "'; its tensors are " + op.BindPointNames() + ".");
            }
            if (!point->given && onnx) continue;  // an ONNX input no node reads: nothing to bind
            if (!point->given) {
                throw ModelError(pointPath, name + " is not in the operator's desc, so nothing can be bound to it (describe it "
                                                   "in the desc, or leave this binding out).");
            }
            if (initialization && (point->isOutput || !AnyOwned(*point))) {
                throw ModelError(pointPath, "only inputs flagged OWNED_BY_DML are bound when an operator is initialized; " + name +
                                                " is bound by the dispatch commands.");
            }
            if (!initialization && AllOwned(*point)) {
                throw ModelError(pointPath, name + " is flagged OWNED_BY_DML: it was bound when the operator was initialized (the "
                                                   "dispatchable's \"bindings\") and is not bound again at dispatch.");
            }
            Binding binding;
            binding.bindPoint = name;
            binding.path = pointPath;
            if (value.is_array()) {
                for (size_t i = 0; i < value.size(); ++i) binding.ranges.push_back(ReadSource(value[i], pointPath[i]));
            } else {
                binding.ranges.push_back(ReadSource(value, pointPath));
            }
            for (const BoundRange& range : binding.ranges) {
                const Resource& resource = model_.resources[range.resource];
                if (!resource.deferred) continue;
                if (!onnx) {
                    throw ModelError(pointPath, "resource '" + resource.name + "' is deferred: only an ONNX dispatchable's output " +
                                                    "gives a deferred resource its type and shape, and " + op.Describe() +
                                                    " is not one.");
                }
                if (!point->isOutput) {
                    throw ModelError(pointPath, "resource '" + resource.name + "' is deferred (it takes its type and shape from the "
                                                "ONNX model output bound to it), so it cannot be bound to the input '" + name +
                                                    "'.");
                }
            }
            if (binding.ranges.size() != point->tensors.size()) {
                throw ModelError(pointPath, name + " takes " + std::to_string(point->tensors.size()) + " resource" +
                                                (point->tensors.size() == 1 ? "" : "s") + ", but " +
                                                std::to_string(binding.ranges.size()) + " " +
                                                (binding.ranges.size() == 1 ? "is" : "are") + " bound.");
            }
            bindings.push_back(std::move(binding));
        }
        return bindings;
    }

    Command ReadCommand(const Json& json, const JsonPath& path) {
        ExpectObject(json, path, "a command");
        const std::string type = Lower(ExpectString(Require(json, path, "type", "dispatch, print or writeFile"), path / "type",
                                                    "dispatch, print or writeFile"));
        if (type == "dispatch") {
            DispatchCommand command;
            command.path = path;
            const std::string& name = ExpectString(Require(json, path, "dispatchable", "the name of a dispatchable"),
                                                   path / "dispatchable", "a dispatchable name");
            auto found = dispatchableIndex_.find(name);
            if (found == dispatchableIndex_.end()) {
                std::string names;
                for (const auto& d : model_.dispatchables) names += (names.empty() ? "" : ", ") + ("'" + d.name + "'");
                throw ModelError(path / "dispatchable", "no dispatchable is named '" + name + "'" +
                                                            (names.empty() ? " (the model has none)" : " (they are " + names + ")") + ".");
            }
            command.dispatchable = found->second;
            if (model_.dispatchables[found->second].onnx) {
                ReadOnnxDispatch(json, path, &command);
            } else {
                command.bindings = ReadBindings(Require(json, path, "bindings", "the resources bound to the operator's tensors"),
                                                path / "bindings", model_.dispatchables[found->second].Binds(),
                                                /*initialization=*/false);
            }
            const Dispatchable& dispatchable = model_.dispatchables[command.dispatchable];
            for (const auto* list : {&dispatchable.Binds().Inputs(), &dispatchable.Binds().Outputs()}) {
                for (const auto& point : *list) {
                    if (!point.given || AllOwned(point)) continue;
                    bool bound = std::any_of(command.bindings.begin(), command.bindings.end(),
                                             [&](const Binding& b) { return b.bindPoint == point.name; });
                    if (!bound) {
                        throw ModelError(path / "bindings", "nothing is bound to " + point.name + ", which '" + dispatchable.name +
                                                                "' describes; bind a resource to it.");
                    }
                }
            }
            if (const Json* expected = FindMember(json, "expected")) {
                command.expected = ReadExpected(*expected, path / "expected", dispatchable.Binds());
            }
            return command;
        }
        if (type == "print") {
            PrintCommand command;
            command.path = path;
            command.resource = ResourceNamed(Require(json, path, "resource", "the name of the resource to print"), path / "resource");
            command.deferred = DeferredViewAt(command.resource, path / "resource");
            if (const Json* verbose = FindMember(json, "verbose")) command.verbose = ParseBool(*verbose, path / "verbose");
            return command;
        }
        if (type == "writefile") {
            WriteFileCommand command;
            command.path = path;
            command.resource = ResourceNamed(Require(json, path, "resource", "the name of the resource to write"), path / "resource");
            command.deferred = DeferredViewAt(command.resource, path / "resource");
            command.target = ExpectString(Require(json, path, "targetPath", "the file to write"), path / "targetPath", "a file path");
            std::string extension = Lower(command.target.extension().string());
            if (extension == ".png" || extension == ".jpg" || extension == ".jpeg") {
                throw ModelError(path / "targetPath", "images are not supported by dmlrun; write a .npy or raw binary file.");
            }
            if (const Json* dimensions = FindMember(json, "dimensions")) {
                if (!dimensions->is_array()) throw ModelError(path / "dimensions", "expected an array of dimensions.");
                for (size_t i = 0; i < dimensions->size(); ++i) {
                    command.dimensions.push_back(ParseUInt32((*dimensions)[i], (path / "dimensions")[i]));
                }
            }
            return command;
        }
        throw ModelError(path / "type", "expected a command type of dispatch, print or writeFile, found " +
                                            DescribeValue(json.at("type")) + ".");
    }

    // "expected": {"OutputTensor": "file.npy", "OutputTensors": ["a.npy", null]}: the outputs a
    // capture recorded, each as long as the bound tensor (null: left out of the capture).
    std::vector<ExpectedOutput> ReadExpected(const Json& json, const JsonPath& path, const Bindable& op) {
        ExpectObject(json, path, "an object of expected outputs ({\"OutputTensor\": \"file.npy\"})");
        std::vector<ExpectedOutput> outputs;
        for (const auto& [name, value] : json.items()) {
            const JsonPath pointPath = path / name;
            const BindPoint* point = op.FindBindPoint(name);
            if (!point || !point->isOutput) {
                throw ModelError(pointPath, op.Describe() + " has no output named '" + name + "'.");
            }
            std::vector<std::pair<const Json*, JsonPath>> files;
            if (value.is_array()) {
                for (size_t i = 0; i < value.size(); ++i) files.push_back({&value[i], pointPath[i]});
            } else {
                files.push_back({&value, pointPath});
            }
            if (files.size() != point->tensors.size()) {
                throw ModelError(pointPath, name + " has " + std::to_string(point->tensors.size()) + " tensors but " +
                                                std::to_string(files.size()) + " expected outputs are given.");
            }
            for (size_t k = 0; k < files.size(); ++k) {
                ExpectedOutput expected;
                expected.bindPoint = name;
                expected.arrayIndex = k;
                expected.path = files[k].second;
                if (!files[k].first->is_null()) {
                    expected.file = ExpectString(*files[k].first, files[k].second, "an .npy file name, or null");
                    std::vector<uint8_t> bytes = ReadFile(expected.file, files[k].second);
                    NpyArray array;
                    try {
                        array = ReadNpy(bytes, options_.maxMemoryBytes);
                    } catch (const std::runtime_error& error) {
                        throw ModelError(files[k].second, "cannot read '" + expected.file + "': " + error.what());
                    }
                    const uint64_t tensorBytes = point->tensors[k]->TotalTensorSizeInBytes;
                    if (array.data.size() != tensorBytes) {
                        throw ModelError(files[k].second, "'" + expected.file + "' holds " + std::to_string(array.data.size()) +
                                                              " bytes, but " + name + " spans " + std::to_string(tensorBytes) +
                                                              " bytes; the capture is damaged.");
                    }
                    expected.bytes = std::move(array.data);
                    expected.given = true;
                }
                outputs.push_back(std::move(expected));
            }
        }
        return outputs;
    }

    static std::string ShapeText(const std::vector<uint64_t>& shape) {
        std::string text = "[";
        for (size_t i = 0; i < shape.size(); ++i) text += (i ? "," : "") + std::to_string(shape[i]);
        return text + "]";
    }

    static std::string NameList(const std::vector<std::string>& names) {
        std::string text;
        for (const auto& name : names) text += (text.empty() ? "'" : ", '") + name + "'";
        return text.empty() ? "none" : text;
    }

    // A dispatch command of an ONNX dispatchable: its binding shapes choose (or lower) the graph
    // it runs; its outputs may be deferred resources, which take the outputs' types and shapes.
    void ReadOnnxDispatch(const Json& json, const JsonPath& path, DispatchCommand* command) {
        const size_t base = command->dispatchable;
        const std::shared_ptr<const OnnxSource> source = model_.dispatchables[base].onnx;
        const JsonPath bindingsPath = path / "bindings";
        const Json& bindings = Require(json, path, "bindings", "the resources bound to the model's inputs and outputs");
        if (!bindings.is_object()) {
            throw ModelError(bindingsPath, "expected an object of bindings ({\"INPUT\": \"RESOURCE\", ...}), found " +
                                               DescribeValue(bindings) + ".");
        }
        std::map<std::string, std::vector<uint64_t>> inputShapes, outputShapes;
        for (const auto& [name, value] : bindings.items()) {
            const JsonPath pointPath = bindingsPath / name;
            const bool isInput = std::count(source->inputs.begin(), source->inputs.end(), name) != 0;
            const bool isOutput = std::count(source->outputs.begin(), source->outputs.end(), name) != 0;
            if (!isInput && !isOutput) {
                throw ModelError(pointPath, "the ONNX model '" + source->Name() + "' has no input or output named '" + name +
                                                "' (its inputs: " + NameList(source->inputs) + "; its outputs: " +
                                                NameList(source->outputs) + ").");
            }
            if (value.is_array()) {
                throw ModelError(pointPath, "an ONNX model's input or output is bound to one resource, not an array.");
            }
            const Json* shape = value.is_object() ? FindMember(value, "shape") : nullptr;
            if (!shape) continue;
            if (!shape->is_array()) throw ModelError(pointPath / "shape", "expected an array of dimensions, found " + DescribeValue(*shape) + ".");
            std::vector<uint64_t> dims;
            for (size_t i = 0; i < shape->size(); ++i) dims.push_back(ParseUInt32((*shape)[i], (pointPath / "shape")[i]));
            (isInput ? inputShapes : outputShapes)[name] = std::move(dims);
        }

        // The graph for these input shapes: lowered once, shared by the commands that give them.
        auto& variants = onnxVariants_[base];
        auto known = variants.find(inputShapes);
        if (known != variants.end()) {
            command->dispatchable = known->second;
        } else {
            // Errors of the model itself are the dispatchable's; those of given shapes the command's.
            auto graph = BuildOnnxGraph(*source, inputShapes, inputShapes.empty() ? model_.dispatchables[base].path : bindingsPath);
            if (!inputShapes.empty()) {
                std::string shapes;
                for (const auto& [name, dims] : inputShapes) shapes += (shapes.empty() ? "" : ", ") + name + " " + ShapeText(dims);
                graph->description += " with " + shapes;
            }
            if (!model_.dispatchables[base].graph) {
                model_.dispatchables[base].graph = std::move(graph);
            } else {
                Dispatchable variant;
                variant.name = model_.dispatchables[base].name;
                variant.path = model_.dispatchables[base].path;
                variant.onnx = source;
                variant.compileAsGraph = true;
                variant.graph = std::move(graph);
                model_.dispatchables.push_back(std::move(variant));
                command->dispatchable = model_.dispatchables.size() - 1;
            }
            variants[inputShapes] = command->dispatchable;
        }
        const GraphModel& graph = *model_.dispatchables[command->dispatchable].graph;
        command->bindings = ReadBindings(bindings, bindingsPath, graph, /*initialization=*/false, /*onnx=*/true);

        // DxDispatch's implicit bindings: an input or output the command leaves out gets a buffer of
        // its own, zeros for an input, that no other command can name.
        for (const auto* points : {&graph.Inputs(), &graph.Outputs()}) {
            for (const BindPoint& point : *points) {
                const bool bound = std::any_of(command->bindings.begin(), command->bindings.end(),
                                               [&](const Binding& b) { return b.bindPoint == point.name; });
                if (bound || !point.given) continue;
                Resource implicit;
                implicit.name = model_.dispatchables[base].name + "." + point.name + " (implicit)";
                implicit.path = bindingsPath;
                implicit.dataType = point.tensors[0]->DataType;
                implicit.sizeInBytes = point.tensors[0]->TotalTensorSizeInBytes;
                implicit.implicit = true;
                Reserve(implicit.sizeInBytes, bindingsPath, "an implicit buffer");
                model_.resources.push_back(std::move(implicit));
                Binding binding;
                binding.bindPoint = point.name;
                binding.path = bindingsPath;
                binding.ranges.push_back(BoundRange{model_.resources.size() - 1, 0, point.tensors[0]->TotalTensorSizeInBytes});
                command->bindings.push_back(std::move(binding));
            }
        }

        for (Binding& binding : command->bindings) {
            const JsonPath pointPath = bindingsPath / binding.bindPoint;
            const BindPoint* point = graph.FindBindPoint(binding.bindPoint);
            const auto& points = point->isOutput ? graph.Outputs() : graph.Inputs();
            const size_t index = static_cast<size_t>(point - points.data());
            const std::vector<uint64_t>& shape = (point->isOutput ? graph.outputShapes : graph.inputShapes)[index];
            const DML_BUFFER_TENSOR_DESC& tensor = *point->tensors[0];
            if (point->isOutput) {
                auto given = outputShapes.find(binding.bindPoint);
                if (given != outputShapes.end() && given->second != shape) {
                    throw ModelError(pointPath / "shape", "the shape " + ShapeText(given->second) + " given for the output '" +
                                                              binding.bindPoint + "' is not the " + ShapeText(shape) +
                                                              " the model computes from its input shapes.");
                }
            }
            BoundRange& range = binding.ranges[0];
            Resource& resource = model_.resources[range.resource];
            if (resource.deferred) {
                if (resource.dataType != DML_TENSOR_DATA_TYPE_UNKNOWN && resource.dataType != tensor.DataType) {
                    throw ModelError(pointPath, "resource '" + resource.name + "' is deferred with the initialValuesDataType " +
                                                    freedml::dml::DataTypeName(resource.dataType) + ", but the output '" +
                                                    binding.bindPoint + "' is " + freedml::dml::DataTypeName(tensor.DataType) + ".");
                }
                range.size = tensor.TotalTensorSizeInBytes;
                uint64_t& size = deferredSizes_[range.resource];
                size = std::max(size, range.size);
                deferredViews_[range.resource] = DeferredView{tensor.DataType, shape};
            } else if (range.size < tensor.TotalTensorSizeInBytes) {
                throw ModelError(pointPath, "'" + binding.bindPoint + "' (" + freedml::dml::DataTypeName(tensor.DataType) + " " +
                                                ShapeText(shape) + ") takes " + std::to_string(tensor.TotalTensorSizeInBytes) +
                                                " bytes, but the binding of resource '" + resource.name + "' spans " +
                                                std::to_string(range.size) + ".");
            }
        }
    }

    // What deferred resource `index` holds at this command; nothing for another resource.
    std::optional<DeferredView> DeferredViewAt(size_t index, const JsonPath& path) {
        const Resource& resource = model_.resources[index];
        if (!resource.deferred) return std::nullopt;
        auto view = deferredViews_.find(index);
        if (view == deferredViews_.end()) {
            throw ModelError(path, "resource '" + resource.name + "' is deferred, and no dispatch command before this one writes "
                                   "an ONNX model output to it, so it has no type or shape yet.");
        }
        return view->second;
    }

    // After the commands: deferred buffers sized, and ONNX dispatchables no command dispatched
    // lowered with the model's own shapes, so that a model that cannot run is refused.
    void FinishOnnx() {
        for (size_t i = 0; i < model_.resources.size(); ++i) {
            Resource& resource = model_.resources[i];
            if (resource.deferred) {
                auto size = deferredSizes_.find(i);
                resource.sizeInBytes = std::max<uint64_t>((size == deferredSizes_.end() ? 0 : size->second + 3) & ~uint64_t(3), 4);
                Reserve(resource.sizeInBytes, resource.path, "the deferred buffer");
            }
            auto view = deferredViews_.find(i);
            model_.finalViews.push_back(view == deferredViews_.end() ? std::nullopt : std::optional<DeferredView>(view->second));
        }
        for (auto& dispatchable : model_.dispatchables) {
            if (dispatchable.onnx && !dispatchable.graph) dispatchable.graph = BuildOnnxGraph(*dispatchable.onnx, {}, dispatchable.path);
        }
    }

    size_t ResourceNamed(const Json& json, const JsonPath& path) {
        const std::string& name = ExpectString(json, path, "a resource name");
        auto found = resourceIndex_.find(name);
        if (found == resourceIndex_.end()) throw ModelError(path, "no resource is named '" + name + "'" + ResourceList() + ".");
        return found->second;
    }

    const ParseOptions& options_;
    Model model_;
    std::map<std::string, size_t> resourceIndex_;
    std::map<std::string, size_t> dispatchableIndex_;
    uint64_t memoryUsed_ = 0;
    // Per ONNX dispatchable: its graphs by the input shapes of the dispatch commands (index in
    // Model::dispatchables).
    std::map<size_t, std::map<std::map<std::string, std::vector<uint64_t>>, size_t>> onnxVariants_;
    std::map<size_t, uint64_t> deferredSizes_;         // per deferred resource: its largest output
    std::map<size_t, DeferredView> deferredViews_;     // per deferred resource: what it holds now
};

}  // namespace

Model ParseModel(const Json& root, const ParseOptions& options) { return ModelReader(options).Read(root); }

uint64_t DeferredView::ElementCount() const {
    uint64_t count = 1;
    for (uint64_t d : shape) count *= d;
    return count;
}

uint64_t PrintedElementCount(const Resource& resource) {
    const uint32_t size = ValueSizeInBytes(resource.dataType);
    return size ? resource.initialValues.size() / size : 0;
}

}  // namespace dmlrun
