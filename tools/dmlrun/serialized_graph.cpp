#include "serialized_graph.h"

#include <cctype>
#include <cstring>
#include <fstream>
#include <map>
#include <set>

#include "dml/schema/schema.h"

namespace dmlrun {

namespace {

using freedml::dml::FieldKind;
using freedml::dml::FieldSchema;
using freedml::dml::OperatorSchema;

[[noreturn]] void Fail(const std::string& message) { throw SerializedGraphError(message); }

// Every read is bounds-checked: a damaged file fails with the offset, never reads past the end.
class Buffer {
public:
    explicit Buffer(const std::vector<uint8_t>& bytes) : bytes_(bytes) {}

    template <class T>
    T Read(uint64_t at, const char* what) const {
        if (at > bytes_.size() || bytes_.size() - at < sizeof(T)) {
            Fail(std::string(what) + " at byte " + std::to_string(at) + " lies past the end of the file (" +
                 std::to_string(bytes_.size()) + " bytes)");
        }
        T value;
        std::memcpy(&value, bytes_.data() + at, sizeof(T));
        return value;
    }
    // The target of the forward offset stored at `at`.
    uint64_t Follow(uint64_t at, const char* what) const { return at + Read<uint32_t>(at, what); }
    size_t Size() const { return bytes_.size(); }
    const uint8_t* Data() const { return bytes_.data(); }

private:
    const std::vector<uint8_t>& bytes_;
};

// A table: its position and its vtable's.
class Table {
public:
    Table(const Buffer& buffer, uint64_t at, const char* what) : buffer_(&buffer), at_(at), what_(what) {
        const int32_t back = buffer.Read<int32_t>(at, what);
        const int64_t vtable = int64_t(at) - back;
        if (vtable < 0 || uint64_t(vtable) >= buffer.Size()) {
            Fail(std::string("the vtable of ") + what + " at byte " + std::to_string(at) + " lies outside the file");
        }
        vtable_ = uint64_t(vtable);
        vtableSize_ = buffer.Read<uint16_t>(vtable_, "a vtable's size");
        tableSize_ = buffer.Read<uint16_t>(vtable_ + 2, "a vtable's table size");
        if (vtableSize_ < 4 || vtableSize_ % 2) {
            Fail(std::string("the vtable of ") + what + " at byte " + std::to_string(vtable_) + " has size " +
                 std::to_string(vtableSize_) + ", not an even number of at least 4");
        }
        if (at + tableSize_ > buffer.Size()) Fail(std::string(what) + " at byte " + std::to_string(at) + " runs past the end of the file");
    }

    // The position of field `slot`, or 0 when absent.
    uint64_t Field(uint32_t slot) const {
        const uint32_t entry = 4 + 2 * slot;
        if (entry + 2 > vtableSize_) return 0;
        const uint16_t offset = buffer_->Read<uint16_t>(vtable_ + entry, "a vtable entry");
        if (offset == 0) return 0;
        if (offset >= tableSize_) {
            Fail(std::string("field ") + std::to_string(slot) + " of " + what_ + " at byte " + std::to_string(at_) +
                 " lies outside its table");
        }
        return at_ + offset;
    }
    template <class T>
    T Scalar(uint32_t slot, T fallback) const {
        const uint64_t at = Field(slot);
        return at ? buffer_->Read<T>(at, what_) : fallback;
    }
    // A field that refers to something (string, vector, table): its target, or 0 when absent.
    uint64_t Ref(uint32_t slot) const {
        const uint64_t at = Field(slot);
        if (!at) return 0;
        const uint64_t target = buffer_->Follow(at, what_);
        if (target >= buffer_->Size()) {
            Fail(std::string("field ") + std::to_string(slot) + " of " + what_ + " at byte " + std::to_string(at_) +
                 " refers past the end of the file");
        }
        return target;
    }
    bool Has(uint32_t slot) const { return Field(slot) != 0; }

private:
    const Buffer* buffer_;
    uint64_t at_;
    const char* what_;
    uint64_t vtable_ = 0;
    uint16_t vtableSize_ = 0, tableSize_ = 0;
};

std::string String(const Buffer& buffer, uint64_t at, const char* what) {
    const uint32_t length = buffer.Read<uint32_t>(at, what);
    // The bytes and the terminating NUL FlatBuffers writes after them.
    if (at + 4 + uint64_t(length) >= buffer.Size()) {
        Fail(std::string(what) + " at byte " + std::to_string(at) + " (" + std::to_string(length) +
             " bytes) runs past the end of the file");
    }
    if (buffer.Data()[at + 4 + length] != 0) {
        Fail(std::string(what) + " at byte " + std::to_string(at) + " is not followed by the NUL that ends a string");
    }
    return std::string(reinterpret_cast<const char*>(buffer.Data() + at + 4), length);
}

// A vector's element count, checked against the file for elements of `elementSize` bytes.
uint32_t VectorCount(const Buffer& buffer, uint64_t at, uint32_t elementSize, const char* what) {
    const uint32_t count = buffer.Read<uint32_t>(at, what);
    if (uint64_t(count) * elementSize > buffer.Size() - std::min<uint64_t>(buffer.Size(), at + 4)) {
        Fail(std::string(what) + " at byte " + std::to_string(at) + " claims " + std::to_string(count) +
             " elements, more than the file holds");
    }
    return count;
}

std::vector<std::string> Strings(const Buffer& buffer, uint64_t at, const char* what) {
    std::vector<std::string> out;
    if (!at) return out;
    const uint32_t count = VectorCount(buffer, at, 4, what);
    for (uint32_t i = 0; i < count; ++i) out.push_back(String(buffer, buffer.Follow(at + 4 + 4ull * i, what), what));
    return out;
}

template <class T>
std::vector<T> Scalars(const Buffer& buffer, uint64_t at, const char* what) {
    std::vector<T> out;
    if (!at) return out;
    const uint32_t count = VectorCount(buffer, at, sizeof(T), what);
    for (uint32_t i = 0; i < count; ++i) out.push_back(buffer.Read<T>(at + 4 + uint64_t(sizeof(T)) * i, what));
    return out;
}

// The tables a vector refers to.
std::vector<uint64_t> Tables(const Buffer& buffer, uint64_t at, const char* what) {
    std::vector<uint64_t> out;
    if (!at) return out;
    const uint32_t count = VectorCount(buffer, at, 4, what);
    for (uint32_t i = 0; i < count; ++i) out.push_back(buffer.Follow(at + 4 + 4ull * i, what));
    return out;
}

std::string WithoutPrefix(const std::string& text, const char* prefix) {
    const size_t length = std::strlen(prefix);
    return text.compare(0, length, prefix) == 0 ? text.substr(length) : text;
}

Json TensorJson(const Buffer& buffer, uint64_t at) {
    Table tensor(buffer, at, "a tensor desc");
    Json json = Json::object();
    const uint64_t dataType = tensor.Ref(0);
    if (!dataType) Fail("a tensor desc at byte " + std::to_string(at) + " has no data type");
    json["DataType"] = WithoutPrefix(String(buffer, dataType, "a tensor data type"), "DML_TENSOR_DATA_TYPE_");
    json["Sizes"] = Scalars<uint32_t>(buffer, tensor.Ref(1), "a tensor's sizes");
    if (tensor.Has(2)) json["Strides"] = Scalars<uint32_t>(buffer, tensor.Ref(2), "a tensor's strides");
    if (tensor.Has(3)) json["TotalTensorSizeInBytes"] = tensor.Scalar<uint64_t>(3, 0);
    return json;
}

// The attribute value types (AttributeDesc's union).
enum Variant : uint8_t {
    kActivation = 1, kActivationArray, kUInt32, kUInt64, kInt32, kFloat32, kUIntArray, kIntArray, kFloatArray,
    kScaleBias, kSize2D, kScalarUnionData, kBool
};

class Converter {
public:
    Converter(const Buffer& buffer, std::filesystem::path directory) : buffer_(buffer), directory_(std::move(directory)) {}

    Json Run() {
        const uint64_t root = buffer_.Follow(0, "the root offset");
        Table graph(buffer_, root, "the graph desc");
        const std::vector<std::string> inputs = Strings(buffer_, graph.Ref(1), "the graph input names");
        const std::vector<std::string> outputs = Strings(buffer_, graph.Ref(2), "the graph output names");
        std::set<std::string> inputSet(inputs.begin(), inputs.end()), outputSet(outputs.begin(), outputs.end());
        Json json = Json::object();
        json["type"] = "graph";
        json["inputs"] = inputs;
        json["outputs"] = outputs;
        json["nodes"] = Json::object();
        json["edges"] = Json::array();
        const std::vector<uint64_t> nodes = Tables(buffer_, graph.Ref(0), "the graph's nodes");
        if (nodes.empty()) Fail("the graph has no nodes");
        for (size_t n = 0; n < nodes.size(); ++n) Node(n, nodes[n], inputSet, outputSet, &json);
        return json;
    }

private:
    // A node's name in dmlrun's graph form: the serialized name where it is one dmlrun can use.
    std::string NodeName(size_t n, const std::string& name, const std::set<std::string>& reserved) {
        bool usable = !name.empty() && !reserved.count(name) && !used_.count(name);
        for (char c : name) usable = usable && (std::isalnum(static_cast<unsigned char>(c)) || c == '_');
        const std::string chosen = usable ? name : "node" + std::to_string(n);
        used_.insert(chosen);
        return chosen;
    }

    void Node(size_t n, uint64_t at, const std::set<std::string>& inputs, const std::set<std::string>& outputs, Json* graph) {
        Table node(buffer_, at, "a graph node");
        const uint8_t kind = node.Scalar<uint8_t>(0, 0);
        const uint64_t desc = node.Ref(1);
        const uint64_t nameAt = node.Ref(2);
        const std::string serialized = nameAt ? String(buffer_, nameAt, "a node name") : std::string();
        if (serialized.empty()) Fail("node " + std::to_string(n) + " has no name");
        std::set<std::string> reserved(inputs);
        reserved.insert(outputs.begin(), outputs.end());
        const std::string name = NodeName(n, serialized, reserved);
        const std::vector<std::string> inNames = Strings(buffer_, node.Ref(3), "a node's input names");
        const std::vector<std::string> outNames = Strings(buffer_, node.Ref(4), "a node's output names");
        const std::string where = "node " + std::to_string(n) + " ('" + serialized + "')";
        if (!desc) Fail(where + " has no desc");
        if (kind == 2) {
            Constant(where, name, desc, outNames, graph);
        } else if (kind == 1) {
            Operator(where, name, desc, inNames, outNames, inputs, outputs, graph);
        } else {
            Fail(where + " has desc type " + std::to_string(kind) + "; 1 (operator) and 2 (constant) are known");
        }
    }

    void Constant(const std::string& where, const std::string& name, uint64_t at, const std::vector<std::string>& outNames,
                  Json* graph) {
        Table constant(buffer_, at, "a constant node desc");
        const uint8_t kind = constant.Scalar<uint8_t>(0, 0);
        const uint64_t data = constant.Ref(1);
        if (!data) Fail(where + " has no constant data");
        Table detail(buffer_, data, "a constant's data");
        std::vector<uint8_t> bytes;
        if (kind == 2) {
            bytes = Scalars<uint8_t>(buffer_, detail.Ref(0), "a constant's raw data");
        } else if (kind == 1) {
            const uint64_t fileName = detail.Ref(0);
            const std::string file = fileName ? String(buffer_, fileName, "a constant's name") : std::string();
            bool plain = !file.empty() && file.find("..") == std::string::npos;
            for (char c : file) plain = plain && (std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.');
            if (!plain) Fail(where + " names its data '" + file + "', which is not a plain file name");
            const std::filesystem::path path = directory_ / (file + ".bin");
            std::error_code error;
            std::ifstream in;
            if (std::filesystem::is_regular_file(path, error)) in.open(path, std::ios::binary);
            if (!in.is_open()) Fail(where + " reads its data from '" + path.filename().string() + "' beside the graph, which cannot be opened");
            bytes.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
        } else {
            Fail(where + " has constant data type " + std::to_string(kind) + "; 1 (a name) and 2 (raw data) are known");
        }
        if (bytes.empty()) Fail(where + " has no bytes of data");
        for (const std::string& out : outNames) {
            if (!out.empty()) producers_[out] = name;
        }
        constants_[name] = {std::move(bytes), where};
        // The node goes in when its first reader says how to read it (its data type).
        (*graph)["nodes"][name] = Json::object();
    }

    // The constant `name` as dmlrun's constant node, its values read as `dataType`.
    void FillConstant(const std::string& name, const std::string& dataType, Json* graph) {
        const auto& entry = constants_[name];
        const std::vector<uint8_t>& bytes = entry.first;
        const std::string& where = entry.second;
        Json& node = (*graph)["nodes"][name];
        if (!node.empty()) return;
        node["type"] = "constant";
        node["dataType"] = dataType;
        Json values = Json::array();
        auto take = [&](auto sample) {
            using T = decltype(sample);
            if (bytes.size() % sizeof(T)) {
                Fail(where + " has " + std::to_string(bytes.size()) + " bytes, not a whole number of " + dataType + " values");
            }
            for (size_t i = 0; i < bytes.size(); i += sizeof(T)) {
                T v;
                std::memcpy(&v, bytes.data() + i, sizeof(T));
                values.push_back(v);
            }
        };
        if (dataType == "FLOAT32") take(float{});
        else if (dataType == "FLOAT64") take(double{});
        else if (dataType == "INT32") take(int32_t{});
        else if (dataType == "UINT32") take(uint32_t{});
        else if (dataType == "INT64") take(int64_t{});
        else if (dataType == "UINT64") take(uint64_t{});
        else if (dataType == "INT16") take(int16_t{});
        else if (dataType == "UINT16") take(uint16_t{});
        else if (dataType == "INT8") take(int8_t{});
        else if (dataType == "UINT8") take(uint8_t{});
        else Fail(where + " is read as " + dataType + ", which dmlrun cannot hold as a constant");
        node["values"] = std::move(values);
    }

    void Operator(const std::string& where, const std::string& name, uint64_t at, const std::vector<std::string>& inNames,
                  const std::vector<std::string>& outNames, const std::set<std::string>& inputs,
                  const std::set<std::string>& outputs, Json* graph) {
        Table op(buffer_, at, "an operator node desc");
        enums_.clear();
        const uint64_t typeAt = op.Ref(0);
        const std::string type = typeAt ? String(buffer_, typeAt, "an operator type") : std::string();
        const OperatorSchema* schema = freedml::dml::FindSchemaByName(type);
        if (!schema) Fail(where + " has operator type '" + type + "', which is not a DirectML operator FreeDML knows");
        const std::vector<uint64_t> inTensors = Tables(buffer_, op.Ref(1), "a node's input tensors");
        const std::vector<uint64_t> outTensors = Tables(buffer_, op.Ref(2), "a node's output tensors");
        const std::vector<uint64_t> attributes = Tables(buffer_, op.Ref(3), "a node's attributes");

        Json desc = Json::object();
        size_t inName = 0, inTensor = 0, outName = 0, outTensor = 0;
        std::vector<std::pair<std::string, std::string>> reads;  // (source name, "node.Field")
        std::vector<std::pair<std::string, std::string>> writes;  // (output name, "node.Field")
        auto tensorField = [&](const FieldSchema& field, bool output) {
            const std::vector<std::string>& names = output ? outNames : inNames;
            const std::vector<uint64_t>& tensors = output ? outTensors : inTensors;
            size_t& nameIndex = output ? outName : inName;
            size_t& tensorIndex = output ? outTensor : inTensor;
            const bool array = field.kind == FieldKind::InputTensorArray || field.kind == FieldKind::OutputTensorArray;
            if (!array) {
                if (nameIndex >= names.size()) Fail(where + " names fewer " + (output ? "outputs" : "inputs") + " than " + type + " has");
                const std::string& edge = names[nameIndex++];
                if (edge.empty()) return;  // an absent optional tensor
                if (tensorIndex >= tensors.size()) Fail(where + " has fewer tensor descs than named tensors");
                Json tensor = TensorJson(buffer_, tensors[tensorIndex++]);
                (output ? writes : reads).push_back({edge, name + "." + field.name});
                desc[field.name] = std::move(tensor);
                return;
            }
            Json list = Json::array();
            while (tensorIndex < tensors.size()) {
                if (nameIndex >= names.size()) Fail(where + " names fewer tensors than it has tensor descs");
                const std::string& edge = names[nameIndex++];
                const std::string endpoint = name + "." + field.name + "[" + std::to_string(list.size()) + "]";
                if (!edge.empty()) (output ? writes : reads).push_back({edge, endpoint});
                list.push_back(TensorJson(buffer_, tensors[tensorIndex++]));
            }
            desc[field.name] = std::move(list);
        };
        std::set<std::string> countFields;
        for (const FieldSchema& field : schema->fields) {
            if (field.countField) countFields.insert(field.countField);
        }
        size_t attribute = 0;
        for (const FieldSchema& field : schema->fields) {
            switch (field.kind) {
                case FieldKind::InputTensor:
                case FieldKind::InputTensorArray: tensorField(field, false); break;
                case FieldKind::OutputTensor:
                case FieldKind::OutputTensorArray: tensorField(field, true); break;
                default:
                    if (countFields.count(field.name)) break;  // the arrays give the counts
                    if (attribute < attributes.size()) Attribute(where, *schema, field, attributes[attribute], &desc);
                    ++attribute;
                    break;
            }
        }
        Json node = Json::object();
        node["type"] = std::string("DML_OPERATOR_") + schema->name;
        node["desc"] = std::move(desc);
        (*graph)["nodes"][name] = std::move(node);

        for (const auto& [source, endpoint] : reads) {
            std::string from;
            if (inputs.count(source)) {
                from = source;
            } else if (auto found = producers_.find(source); found != producers_.end()) {
                from = found->second;
                if (constants_.count(from)) {
                    const Json& tensor = (*graph)["nodes"][name]["desc"];
                    const std::string field = endpoint.substr(name.size() + 1);
                    const size_t bracket = field.find('[');
                    const Json& t = bracket == std::string::npos ? tensor[field]
                                                                 : tensor[field.substr(0, bracket)][std::stoul(field.substr(bracket + 1))];
                    FillConstant(from, t["DataType"].get<std::string>(), graph);
                }
            } else {
                Fail(where + " reads '" + source + "', which is neither a graph input nor the output of an earlier node");
            }
            (*graph)["edges"].push_back({{"from", from}, {"to", endpoint}});
        }
        for (const auto& [output, endpoint] : writes) {
            producers_[output] = endpoint;
            if (outputs.count(output)) (*graph)["edges"].push_back({{"from", endpoint}, {"to", output}});
        }
    }

    // One attribute into `desc[field.name]`; an absent one (no value) leaves the field out.
    void Attribute(const std::string& where, const OperatorSchema& schema, const FieldSchema& field, uint64_t at, Json* desc) {
        Table attribute(buffer_, at, "an attribute");
        const uint8_t variant = attribute.Scalar<uint8_t>(1, 0);
        if (variant == 0 || !attribute.Has(2)) return;
        if (const uint64_t nameAt = attribute.Ref(0)) {
            const std::string name = String(buffer_, nameAt, "an attribute name");
            if (!name.empty() && name != field.name) {
                Fail(where + ": attribute '" + name + "' stands where " + schema.name + "'s field " + field.name + " belongs");
            }
        }
        const uint64_t value = attribute.Ref(2);
        const std::string context = where + ", attribute " + field.name;
        auto expect = [&](uint8_t wanted) {
            if (variant != wanted) {
                Fail(context + " holds value type " + std::to_string(variant) + ", not the " + std::to_string(wanted) +
                     " its field takes");
            }
        };
        Json& out = (*desc)[field.name];
        switch (field.kind) {
            case FieldKind::UInt: expect(kUInt32); out = buffer_.Read<uint32_t>(value, "a UInt32"); break;
            case FieldKind::Int: expect(kInt32); out = buffer_.Read<int32_t>(value, "an Int32"); break;
            case FieldKind::Float: expect(kFloat32); out = buffer_.Read<float>(value, "a Float32"); break;
            case FieldKind::Bool: expect(kBool); out = buffer_.Read<uint8_t>(value, "a Bool") != 0; break;
            case FieldKind::Enum: {
                expect(kUInt32);
                const uint32_t v = buffer_.Read<uint32_t>(value, "an enum value");
                const char* enumName = field.enumType ? field.enumType->NameOf(v) : nullptr;
                if (!enumName) Fail(context + " is " + std::to_string(v) + ", not a value of its enum");
                out = enumName;
                enums_[field.name] = v;
                break;
            }
            case FieldKind::UIntArray:
                expect(kUIntArray);
                out = Scalars<uint32_t>(buffer_, Table(buffer_, value, "a UInt array").Ref(0), "a UInt array");
                break;
            case FieldKind::IntArray:
                expect(kIntArray);
                out = Scalars<int32_t>(buffer_, Table(buffer_, value, "an Int array").Ref(0), "an Int array");
                break;
            case FieldKind::FloatArray:
                expect(kFloatArray);
                out = Scalars<float>(buffer_, Table(buffer_, value, "a Float array").Ref(0), "a Float array");
                break;
            case FieldKind::ScaleBias:
                expect(kScaleBias);
                out = {{"Scale", buffer_.Read<float>(value, "a ScaleBias")}, {"Bias", buffer_.Read<float>(value + 4, "a ScaleBias")}};
                break;
            case FieldKind::Size2D:
                expect(kSize2D);
                out = {{"Width", buffer_.Read<uint32_t>(value, "a Size2D")}, {"Height", buffer_.Read<uint32_t>(value + 4, "a Size2D")}};
                break;
            case FieldKind::ScalarUnion: {
                expect(kScalarUnionData);
                Table scalar(buffer_, value, "a scalar union");
                if (scalar.Scalar<uint8_t>(0, 0) != 1 || !scalar.Has(1)) Fail(context + " is not held as 8 bytes");
                uint8_t bytes[8];
                const uint64_t data = scalar.Ref(1);
                for (int i = 0; i < 8; ++i) bytes[i] = buffer_.Read<uint8_t>(data + i, "a scalar union's bytes");
                out = ScalarJson(context, field, bytes);
                break;
            }
            case FieldKind::OperatorDesc:
                expect(kActivation);
                out = ActivationJson(where, value);
                break;
            case FieldKind::OperatorDescArray: {
                expect(kActivationArray);
                out = Json::array();
                for (uint64_t a : Tables(buffer_, Table(buffer_, value, "an activation array").Ref(0), "an activation array")) {
                    out.push_back(ActivationJson(where, a));
                }
                break;
            }
            default: Fail(context + " is of a kind dmlrun cannot read from a serialized graph");
        }
    }

    // A DML_SCALAR_UNION's bytes as the number its type field says.
    Json ScalarJson(const std::string& context, const FieldSchema& field, const uint8_t* bytes) {
        auto typeOf = enums_.find(field.typeField ? field.typeField : "");
        if (typeOf == enums_.end()) Fail(context + " comes before the data type that says how to read it");
        auto as = [&](auto sample) {
            decltype(sample) v;
            std::memcpy(&v, bytes, sizeof(v));
            return Json(v);
        };
        switch (typeOf->second) {
            case DML_TENSOR_DATA_TYPE_FLOAT32: return as(float{});
            case DML_TENSOR_DATA_TYPE_FLOAT64: return as(double{});
            case DML_TENSOR_DATA_TYPE_INT8: return as(int8_t{});
            case DML_TENSOR_DATA_TYPE_UINT8: return as(uint8_t{});
            case DML_TENSOR_DATA_TYPE_INT16: return as(int16_t{});
            case DML_TENSOR_DATA_TYPE_UINT16: return as(uint16_t{});
            case DML_TENSOR_DATA_TYPE_INT32: return as(int32_t{});
            case DML_TENSOR_DATA_TYPE_UINT32: return as(uint32_t{});
            case DML_TENSOR_DATA_TYPE_INT64: return as(int64_t{});
            case DML_TENSOR_DATA_TYPE_UINT64: return as(uint64_t{});
            default: Fail(context + " has a data type dmlrun cannot read as a number");
        }
    }

    Json ActivationJson(const std::string& where, uint64_t at) {
        // Activations hold no activations; a file that nests them is damaged (and would recurse).
        if (++activationDepth_ > 1) Fail(where + " nests a fused activation inside a fused activation");
        struct Leave {
            int& depth;
            ~Leave() { --depth; }
        } leave{activationDepth_};
        Table activation(buffer_, at, "an activation");
        const uint64_t typeAt = activation.Ref(0);
        const std::string type = typeAt ? String(buffer_, typeAt, "an activation type") : std::string();
        const OperatorSchema* schema = freedml::dml::FindSchemaByName(type);
        if (!schema) Fail(where + " has a fused activation of type '" + type + "', which FreeDML does not know");
        const std::vector<uint64_t> attributes = Tables(buffer_, activation.Ref(1), "an activation's attributes");
        Json desc = Json::object();
        size_t attribute = 0;
        for (const FieldSchema& field : schema->fields) {
            if (field.kind == FieldKind::InputTensor || field.kind == FieldKind::OutputTensor) continue;
            if (attribute < attributes.size()) Attribute(where, *schema, field, attributes[attribute], &desc);
            ++attribute;
        }
        return {{"type", std::string("DML_OPERATOR_") + schema->name}, {"desc", std::move(desc)}};
    }

    const Buffer& buffer_;
    std::filesystem::path directory_;
    std::set<std::string> used_;
    std::map<std::string, std::string> producers_;  // an edge name -> "node.Field" or a constant node
    std::map<std::string, std::pair<std::vector<uint8_t>, std::string>> constants_;  // bytes, description
    std::map<std::string, uint32_t> enums_;  // the enum values read so far for the current desc
    int activationDepth_ = 0;
};

}  // namespace

Json ReadSerializedGraph(const std::vector<uint8_t>& bytes, const std::filesystem::path& constantDirectory) {
    if (bytes.size() < 8) Fail("the file has " + std::to_string(bytes.size()) + " bytes, too few for a serialized graph");
    const Buffer buffer(bytes);
    Json graph = Converter(buffer, constantDirectory).Run();
    // A constant no node reads has no data type to be read as.
    for (auto& [name, node] : graph["nodes"].items()) {
        if (node.empty()) Fail("constant '" + name + "' is read by no node");
    }
    return graph;
}

}  // namespace dmlrun
