#include "desc_builder.h"

#include <freedml/helpers.h>

#include <algorithm>
#include <cstring>
#include <map>

#include "dml/tensor.h"

#include "values.h"

namespace dmlrun {

using freedml::dml::FieldKind;
using freedml::dml::FieldSchema;
using freedml::dml::OperatorSchema;

namespace {

constexpr int kMaxNesting = 4;  // an operator, its fused activation, and room to spare

// The tensor enums a desc uses outside the operator schemas (they belong to DML_TENSOR_DESC).
struct NamedValue {
    const char* name;
    uint32_t value;
};
constexpr NamedValue kTensorFlags[] = {
    {"DML_TENSOR_FLAG_NONE", DML_TENSOR_FLAG_NONE},
    {"DML_TENSOR_FLAG_OWNED_BY_DML", DML_TENSOR_FLAG_OWNED_BY_DML},
};
constexpr NamedValue kTensorTypes[] = {{"DML_TENSOR_TYPE_BUFFER", DML_TENSOR_TYPE_BUFFER}};

const char* KindName(FieldKind kind) {
    switch (kind) {
        case FieldKind::InputTensor: return "an input tensor desc";
        case FieldKind::OutputTensor: return "an output tensor desc";
        case FieldKind::InputTensorArray: return "an array of input tensor descs";
        case FieldKind::OutputTensorArray: return "an array of output tensor descs";
        case FieldKind::OperatorDesc: return "an operator desc";
        case FieldKind::OperatorDescArray: return "an array of operator descs";
        case FieldKind::ScaleBias: return "a DML_SCALE_BIAS";
        case FieldKind::UInt: return "a UINT";
        case FieldKind::Int: return "an INT";
        case FieldKind::Float: return "a FLOAT";
        case FieldKind::Bool: return "a BOOL";
        case FieldKind::Enum: return "an enum value";
        case FieldKind::UIntArray: return "an array of UINT";
        case FieldKind::IntArray: return "an array of INT";
        case FieldKind::FloatArray: return "an array of FLOAT";
        case FieldKind::Size2D: return "a DML_SIZE_2D";
        case FieldKind::ScalarUnion: return "a DML_SCALAR_UNION (a number of the type its data type field names)";
    }
    return "a value";
}

bool IsTensorKind(FieldKind kind) {
    return kind == FieldKind::InputTensor || kind == FieldKind::OutputTensor || kind == FieldKind::InputTensorArray ||
           kind == FieldKind::OutputTensorArray;
}

// "TRANSPOSE" or "DML_MATRIX_TRANSFORM_TRANSPOSE" among `values` whose full names start with
// `prefix` + "_".
template <class Values, class GetName, class GetValue>
uint32_t ParseNamed(const Json& json, const JsonPath& path, const std::string& prefix, const Values& values,
                    GetName name, GetValue value) {
    std::string list;
    if (json.is_string()) {
        const std::string& text = json.get_ref<const std::string&>();
        for (const auto& entry : values) {
            std::string full = name(entry);
            std::string suffix = full.rfind(prefix + "_", 0) == 0 ? full.substr(prefix.size() + 1) : full;
            if (text == full || text == suffix) return value(entry);
        }
    }
    for (const auto& entry : values) {
        std::string full = name(entry);
        list += (list.empty() ? "" : ", ") + (full.rfind(prefix + "_", 0) == 0 ? full.substr(prefix.size() + 1) : full);
    }
    throw ModelError(path, "expected a " + prefix + " value (" + list + ", with or without the prefix " + prefix +
                               "_), found " + DescribeValue(json) + ".");
}

uint32_t ParseNamedValue(const Json& json, const JsonPath& path, const std::string& prefix,
                         std::span<const NamedValue> values) {
    return ParseNamed(
        json, path, prefix, values, [](const NamedValue& v) { return std::string(v.name); },
        [](const NamedValue& v) { return v.value; });
}

void ExpectArray(const Json& json, const JsonPath& path, const char* what) {
    if (!json.is_array()) throw ModelError(path, std::string("expected ") + what + " (a JSON array), found " + DescribeValue(json) + ".");
}

}  // namespace

class DescBuilder {
public:
    explicit DescBuilder(BuiltOperator& target) : target_(target) {}

    template <class T>
    T* Allocate(size_t count) {
        const size_t bytes = sizeof(T) * (count ? count : 1);
        auto block = std::make_unique<uint8_t[]>(bytes);
        std::memset(block.get(), 0, bytes);
        T* typed = reinterpret_cast<T*>(block.get());
        target_.blocks_.push_back(std::move(block));
        return typed;
    }

    // Fills `out` from a JSON tensor desc; returns its buffer desc.
    const DML_BUFFER_TENSOR_DESC* Tensor(const Json& json, const JsonPath& path, DML_TENSOR_DESC* out) {
        ExpectObject(json, path, "a tensor desc");
        out->Type = DML_TENSOR_TYPE_BUFFER;
        const Json* body = &json;
        JsonPath bodyPath = path;
        for (const auto& [key, value] : json.items()) {
            if (key == "Type") {
                out->Type = static_cast<DML_TENSOR_TYPE>(ParseNamedValue(value, path / key, "DML_TENSOR_TYPE", kTensorTypes));
            } else if (key == "Desc") {
                ExpectObject(value, path / key, "a DML_BUFFER_TENSOR_DESC");
                body = &value;
                bodyPath = path / key;
            }
        }
        static const char* const kFields[] = {"DataType", "Flags", "DimensionCount", "Sizes", "Strides",
                                              "TotalTensorSizeInBytes", "GuaranteedBaseOffsetAlignment"};
        for (const auto& [key, value] : body->items()) {
            bool known = false;
            for (const char* field : kFields) known = known || key == field;
            if (body == &json && (key == "Type" || key == "Desc")) known = true;
            if (!known) {
                throw ModelError(bodyPath / key,
                                 "a tensor desc has no field '" + key +
                                     "'; its fields are DataType, Sizes, Strides, Flags, DimensionCount, "
                                     "TotalTensorSizeInBytes and GuaranteedBaseOffsetAlignment.");
            }
        }
        auto* buffer = Allocate<DML_BUFFER_TENSOR_DESC>(1);
        const Json* dataType = FindMember(*body, "DataType");
        if (!dataType) throw ModelError(bodyPath, "the tensor desc has no DataType (FLOAT32, FLOAT16, ...).");
        buffer->DataType = ParseDataType(*dataType, bodyPath / "DataType");

        const Json* sizes = FindMember(*body, "Sizes");
        if (!sizes) throw ModelError(bodyPath, "the tensor desc has no Sizes (an array of UINT, e.g. [1, 3, 224, 224]).");
        ExpectArray(*sizes, bodyPath / "Sizes", "the tensor's Sizes");
        const size_t rank = sizes->size();
        auto* sizeValues = Allocate<UINT>(rank);
        for (size_t i = 0; i < rank; ++i) sizeValues[i] = ParseUInt32((*sizes)[i], (bodyPath / "Sizes")[i]);
        buffer->Sizes = sizeValues;
        buffer->DimensionCount = static_cast<UINT>(rank);
        if (const Json* count = FindMember(*body, "DimensionCount")) {
            uint32_t given = ParseUInt32(*count, bodyPath / "DimensionCount");
            if (given != rank) {
                throw ModelError(bodyPath / "DimensionCount", "DimensionCount is " + std::to_string(given) + " but Sizes has " +
                                                                  std::to_string(rank) + " values; leave it out to use Sizes'.");
            }
        }
        if (const Json* strides = FindMember(*body, "Strides"); strides && !strides->is_null()) {
            ExpectArray(*strides, bodyPath / "Strides", "the tensor's Strides");
            if (strides->size() != rank) {
                throw ModelError(bodyPath / "Strides", "Strides has " + std::to_string(strides->size()) +
                                                           " values; Sizes has " + std::to_string(rank) + ".");
            }
            auto* strideValues = Allocate<UINT>(rank);
            for (size_t i = 0; i < rank; ++i) strideValues[i] = ParseUInt32((*strides)[i], (bodyPath / "Strides")[i]);
            buffer->Strides = strideValues;
        }
        if (const Json* flags = FindMember(*body, "Flags")) {
            uint32_t value = 0;
            if (flags->is_array()) {
                for (size_t i = 0; i < flags->size(); ++i) {
                    value |= ParseNamedValue((*flags)[i], (bodyPath / "Flags")[i], "DML_TENSOR_FLAG", kTensorFlags);
                }
            } else {
                value = ParseNamedValue(*flags, bodyPath / "Flags", "DML_TENSOR_FLAG", kTensorFlags);
            }
            buffer->Flags = static_cast<DML_TENSOR_FLAGS>(value);
        }
        if (const Json* total = FindMember(*body, "TotalTensorSizeInBytes")) {
            buffer->TotalTensorSizeInBytes = ParseUInt64(*total, bodyPath / "TotalTensorSizeInBytes");
        } else {
            // The seed helper is the one place tensor sizes are computed. An overflow stays
            // visible (UINT64_MAX), for FreeDML's validation to report.
            buffer->TotalTensorSizeInBytes =
                DMLCalcBufferTensorSize(buffer->DataType, buffer->DimensionCount, buffer->Sizes, buffer->Strides);
        }
        if (const Json* alignment = FindMember(*body, "GuaranteedBaseOffsetAlignment")) {
            buffer->GuaranteedBaseOffsetAlignment = ParseUInt32(*alignment, bodyPath / "GuaranteedBaseOffsetAlignment");
        }
        out->Desc = buffer;
        return buffer;
    }

    // Builds the operator `object` describes into target_. `fused`: it is another operator's
    // fused activation, whose tensors are left out (it runs on that operator's output).
    void Build(const Json& object, const JsonPath& path, const std::set<std::string>& reservedKeys, bool fused,
               int nesting) {
        if (nesting > kMaxNesting) throw ModelError(path, "operator descs nest deeper than dmlrun follows.");
        ExpectObject(object, path, "an operator (with \"type\" and \"desc\")");
        const Json* type = FindMember(object, "type");
        JsonPath typePath = path / "type";
        if (const Json* upper = FindMember(object, "Type")) {
            type = upper;
            typePath = path / "Type";
        }
        if (!type) throw ModelError(path, "the operator has no \"type\" (e.g. \"DML_OPERATOR_GEMM\").");
        const OperatorSchema& schema = FindOperatorSchema(*type, typePath);
        if (fused && !schema.canBeFusedActivation) {
            throw ModelError(typePath, std::string("DML_OPERATOR_") + schema.name + " cannot be a fused activation.");
        }
        if (!fused && !freedml::dml::IsImplemented(schema)) {
            throw ModelError(typePath, std::string("DML_OPERATOR_") + schema.name +
                                           " is not implemented by FreeDML yet (dmlrun --list-operators shows which are).");
        }
        target_.schema_ = &schema;

        // The fields are in "desc" (or "Desc"), or inline beside "type".
        const Json* fields = &object;
        JsonPath fieldsPath = path;
        std::set<std::string> ignored = reservedKeys;
        ignored.insert({"type", "Type", "$comment"});
        for (const char* name : {"desc", "Desc"}) {
            if (const Json* desc = FindMember(object, name)) {
                ExpectObject(*desc, path / name, "the operator's desc");
                fields = desc;
                fieldsPath = path / name;
                ignored = {"$comment"};
            }
        }
        if (fields == &object) ignored.insert({"desc", "Desc"});
        std::string names;
        for (const auto& field : schema.fields) names += (names.empty() ? "" : ", ") + std::string(field.name);
        for (const auto& [key, value] : fields->items()) {
            bool known = ignored.count(key) != 0;
            for (const auto& field : schema.fields) known = known || key == field.name;
            if (!known) {
                throw ModelError(fieldsPath / key, std::string("DML_") + schema.name + "_OPERATOR_DESC has no field '" + key +
                                                       "'; its fields are " + names + ".");
            }
        }

        auto* bytes = Allocate<uint8_t>(schema.descSize);
        target_.desc_.Type = schema.type;
        target_.desc_.Desc = bytes;

        const std::map<std::string, uint32_t> counts = Counts(schema, *fields, fieldsPath, fused);
        struct Deferred {
            const FieldSchema* field;
            const Json* value;
            JsonPath path;
        };
        std::vector<Deferred> deferred;
        for (const auto& field : schema.fields) {
            const Json* value = FindMember(*fields, field.name);
            if (value && value->is_null()) value = nullptr;  // null is how JSON leaves a pointer out
            const JsonPath fieldPath = fieldsPath / field.name;
            uint8_t* slot = bytes + field.offset;
            if (fused && IsTensorKind(field.kind)) {
                if (value) {
                    throw ModelError(fieldPath, "a fused activation has no tensors of its own (it runs on the output of "
                                                "the operator it is fused into); leave " +
                                                    std::string(field.name) + " out.");
                }
                continue;
            }
            if (counts.count(field.name)) {
                uint32_t count = counts.at(field.name);
                std::memcpy(slot, &count, sizeof(count));
                continue;
            }
            if (!value) {
                if (!field.optional) {
                    throw ModelError(fieldsPath, "the desc has no " + std::string(field.name) + " (" + KindName(field.kind) +
                                                     "), which DML_" + schema.name + "_OPERATOR_DESC requires.");
                }
                if (IsTensorKind(field.kind)) AddBindPoint(field, false, {});
                continue;  // the slot stays null
            }
            if (field.kind == FieldKind::ScalarUnion) {
                deferred.push_back({&field, value, fieldPath});  // its type may be a later field
                continue;
            }
            Field(field, *value, fieldPath, slot, nesting);
        }
        for (const auto& [field, value, fieldPath] : deferred) {
            ScalarUnion(schema, *field, *value, fieldPath, bytes);
        }
    }

private:
    // The values of the count fields ("InputCount", "DimensionCount"): given, or the length of
    // the arrays they count, which must all agree.
    std::map<std::string, uint32_t> Counts(const OperatorSchema& schema, const Json& fields, const JsonPath& path,
                                           bool fused) {
        std::map<std::string, uint32_t> counts;
        for (const auto& counter : schema.fields) {
            std::optional<uint32_t> count;
            std::string source;
            if (const Json* given = FindMember(fields, counter.name); given && !given->is_null()) {
                bool counts_something = false;
                for (const auto& field : schema.fields) {
                    counts_something = counts_something || (field.countField && counter.name == std::string(field.countField));
                }
                if (!counts_something) continue;
                count = ParseUInt32(*given, path / counter.name);
                source = counter.name;
            }
            bool isCounter = false;
            for (const auto& field : schema.fields) {
                if (!field.countField || counter.name != std::string(field.countField)) continue;
                isCounter = true;
                if (fused && IsTensorKind(field.kind)) continue;
                const Json* array = FindMember(fields, field.name);
                if (!array || array->is_null()) continue;
                ExpectArray(*array, path / field.name, KindName(field.kind));
                if (array->size() > UINT32_MAX) throw ModelError(path / field.name, "the array is too long.");
                uint32_t length = static_cast<uint32_t>(array->size());
                if (!count) {
                    count = length;
                    source = field.name;
                } else if (*count != length) {
                    throw ModelError(path / field.name,
                                     std::string(field.name) + " has " + std::to_string(length) + " values, but " + source +
                                         (source == counter.name ? " is " : " has ") + std::to_string(*count) + "; " +
                                         counter.name + " counts both.");
                }
            }
            if (isCounter) counts[counter.name] = count.value_or(0);
        }
        return counts;
    }

    void AddBindPoint(const FieldSchema& field, bool given, std::vector<const DML_BUFFER_TENSOR_DESC*> tensors) {
        BindPoint point;
        point.name = field.name;
        point.isOutput = field.kind == FieldKind::OutputTensor || field.kind == FieldKind::OutputTensorArray;
        point.optional = field.optional;
        point.given = given;
        point.isArray = field.kind == FieldKind::InputTensorArray || field.kind == FieldKind::OutputTensorArray;
        point.tensors = std::move(tensors);
        (point.isOutput ? target_.outputs_ : target_.inputs_).push_back(std::move(point));
    }

    // A DML_SCALAR_UNION holds a value of the type its `typeField` names: a JSON number, or
    // DxDispatch's object form naming the union member ({"Float32": 1.5}).
    void ScalarUnion(const OperatorSchema& schema, const FieldSchema& field, const Json& value, const JsonPath& path,
                     uint8_t* bytes) {
        const FieldSchema* typeField = nullptr;
        for (const auto& candidate : schema.fields) {
            if (field.typeField && candidate.name == std::string(field.typeField)) typeField = &candidate;
        }
        if (!typeField) throw ModelError(path, "dmlrun does not know which field gives this value's data type.");
        uint32_t typeValue;
        std::memcpy(&typeValue, bytes + typeField->offset, sizeof(typeValue));
        auto type = static_cast<DML_TENSOR_DATA_TYPE>(typeValue);
        if (ValueSizeInBytes(type) == 0) {
            throw ModelError(path, std::string("give ") + typeField->name + " (a data type) to say how to read " + field.name + ".");
        }
        static const struct {
            const char* member;
            DML_TENSOR_DATA_TYPE type;
        } kMembers[] = {{"Int8", DML_TENSOR_DATA_TYPE_INT8},       {"UInt8", DML_TENSOR_DATA_TYPE_UINT8},
                        {"Int16", DML_TENSOR_DATA_TYPE_INT16},     {"UInt16", DML_TENSOR_DATA_TYPE_UINT16},
                        {"Int32", DML_TENSOR_DATA_TYPE_INT32},     {"UInt32", DML_TENSOR_DATA_TYPE_UINT32},
                        {"Int64", DML_TENSOR_DATA_TYPE_INT64},     {"UInt64", DML_TENSOR_DATA_TYPE_UINT64},
                        {"Float32", DML_TENSOR_DATA_TYPE_FLOAT32}, {"Float64", DML_TENSOR_DATA_TYPE_FLOAT64}};
        const Json* number = &value;
        JsonPath numberPath = path;
        if (value.is_object()) {
            if (value.size() != 1) throw ModelError(path, "a DML_SCALAR_UNION object has one member, e.g. {\"Float32\": 1.5}.");
            const std::string& member = value.begin().key();
            bool known = false;
            for (const auto& entry : kMembers) {
                if (member == entry.member) {
                    known = true;
                    // FLOAT16 values are stored as their bits in UInt16.
                    if (type != entry.type && !(type == DML_TENSOR_DATA_TYPE_FLOAT16 && entry.type == DML_TENSOR_DATA_TYPE_UINT16)) {
                        throw ModelError(path / member, std::string(field.typeField) + " is " +
                                                            freedml::dml::DataTypeName(type) + ", so the value is not a " +
                                                            member + ".");
                    }
                    if (type == DML_TENSOR_DATA_TYPE_FLOAT16) type = DML_TENSOR_DATA_TYPE_UINT16;
                }
            }
            if (!known) throw ModelError(path / member, "DML_SCALAR_UNION has no member '" + member + "'.");
            number = &value.begin().value();
            numberPath = path / member;
        }
        std::vector<uint8_t> element;
        AppendValue(type, *number, numberPath, &element);
        DML_SCALAR_UNION scalar{};
        std::memcpy(scalar.Bytes, element.data(), std::min(element.size(), sizeof(scalar.Bytes)));
        std::memcpy(bytes + field.offset, &scalar, sizeof(scalar));
    }

    template <class T, class Parse>
    void Array(const Json& value, const JsonPath& path, uint8_t* slot, Parse parse) {
        auto* values = Allocate<T>(value.size());
        for (size_t i = 0; i < value.size(); ++i) values[i] = parse(value[i], path[i]);
        T* pointer = values;
        std::memcpy(slot, &pointer, sizeof(pointer));
    }

    void Field(const FieldSchema& field, const Json& value, const JsonPath& path, uint8_t* slot, int nesting) {
        switch (field.kind) {
            case FieldKind::InputTensor:
            case FieldKind::OutputTensor: {
                auto* tensor = Allocate<DML_TENSOR_DESC>(1);
                const DML_BUFFER_TENSOR_DESC* buffer = Tensor(value, path, tensor);
                std::memcpy(slot, &tensor, sizeof(tensor));
                AddBindPoint(field, true, {buffer});
                break;
            }
            case FieldKind::InputTensorArray:
            case FieldKind::OutputTensorArray: {
                auto* tensors = Allocate<DML_TENSOR_DESC>(value.size());
                std::vector<const DML_BUFFER_TENSOR_DESC*> buffers;
                for (size_t i = 0; i < value.size(); ++i) buffers.push_back(Tensor(value[i], path[i], &tensors[i]));
                std::memcpy(slot, &tensors, sizeof(tensors));
                AddBindPoint(field, true, std::move(buffers));
                break;
            }
            case FieldKind::OperatorDesc: {
                // Every operator-desc field of a DirectML operator is a fused activation.
                auto child = std::make_unique<BuiltOperator>();
                DescBuilder(*child).Build(value, path, {}, /*fused=*/true, nesting + 1);
                const DML_OPERATOR_DESC* pointer = &child->desc_;
                std::memcpy(slot, &pointer, sizeof(pointer));
                target_.children_.push_back(std::move(child));
                break;
            }
            case FieldKind::OperatorDescArray: {
                // RNN, LSTM and GRU's activations: each is built as a fused activation is.
                ExpectArray(value, path, KindName(field.kind));
                auto* descs = Allocate<DML_OPERATOR_DESC>(value.size());
                for (size_t i = 0; i < value.size(); ++i) {
                    auto child = std::make_unique<BuiltOperator>();
                    DescBuilder(*child).Build(value[i], path[i], {}, /*fused=*/true, nesting + 1);
                    descs[i] = child->desc_;
                    target_.children_.push_back(std::move(child));
                }
                std::memcpy(slot, &descs, sizeof(descs));
                break;
            }
            case FieldKind::ScaleBias: {
                ExpectObject(value, path, "a DML_SCALE_BIAS ({\"Scale\": 1, \"Bias\": 0})");
                auto* scaleBias = Allocate<DML_SCALE_BIAS>(1);
                for (const auto& [key, member] : value.items()) {
                    if (key != "Scale" && key != "Bias") {
                        throw ModelError(path / key, "DML_SCALE_BIAS has only Scale and Bias.");
                    }
                }
                for (const char* name : {"Scale", "Bias"}) {
                    const Json* member = FindMember(value, name);
                    if (!member) throw ModelError(path, std::string("the DML_SCALE_BIAS has no ") + name + ".");
                    (name[0] == 'S' ? scaleBias->Scale : scaleBias->Bias) = ParseFloat32(*member, path / name);
                }
                std::memcpy(slot, &scaleBias, sizeof(scaleBias));
                break;
            }
            case FieldKind::Size2D: {
                ExpectObject(value, path, "a DML_SIZE_2D ({\"Width\": 1, \"Height\": 1})");
                DML_SIZE_2D size{};
                for (const auto& [key, member] : value.items()) {
                    if (key != "Width" && key != "Height") throw ModelError(path / key, "DML_SIZE_2D has only Width and Height.");
                }
                for (const char* name : {"Width", "Height"}) {
                    const Json* member = FindMember(value, name);
                    if (!member) throw ModelError(path, std::string("the DML_SIZE_2D has no ") + name + ".");
                    (name[0] == 'W' ? size.Width : size.Height) = ParseUInt32(*member, path / name);
                }
                std::memcpy(slot, &size, sizeof(size));
                break;
            }
            case FieldKind::UInt: {
                UINT v = ParseUInt32(value, path);
                std::memcpy(slot, &v, sizeof(v));
                break;
            }
            case FieldKind::Int: {
                INT v = ParseInt32(value, path);
                std::memcpy(slot, &v, sizeof(v));
                break;
            }
            case FieldKind::Float: {
                FLOAT v = ParseFloat32(value, path);
                std::memcpy(slot, &v, sizeof(v));
                break;
            }
            case FieldKind::Bool: {
                BOOL v = ParseBool(value, path) ? TRUE : FALSE;
                std::memcpy(slot, &v, sizeof(v));
                break;
            }
            case FieldKind::Enum: {
                if (!field.enumType) throw ModelError(path, "dmlrun does not know this enum field's values.");
                uint32_t v = ParseNamed(
                    value, path, field.enumType->name, field.enumType->values,
                    [](const freedml::dml::EnumValue& e) { return std::string(e.name); },
                    [](const freedml::dml::EnumValue& e) { return e.value; });
                std::memcpy(slot, &v, sizeof(v));
                break;
            }
            case FieldKind::UIntArray:
                ExpectArray(value, path, KindName(field.kind));
                Array<UINT>(value, path, slot, ParseUInt32);
                break;
            case FieldKind::IntArray:
                ExpectArray(value, path, KindName(field.kind));
                Array<INT>(value, path, slot, ParseInt32);
                break;
            case FieldKind::FloatArray:
                ExpectArray(value, path, KindName(field.kind));
                Array<FLOAT>(value, path, slot, ParseFloat32);
                break;
            default:
                throw ModelError(path, "dmlrun cannot read this kind of field yet.");
        }
    }

    BuiltOperator& target_;
};

const freedml::dml::OperatorSchema& FindOperatorSchema(const Json& type, const JsonPath& path) {
    if (!type.is_string()) {
        throw ModelError(path, "expected an operator type name (e.g. \"DML_OPERATOR_GEMM\"), found " + DescribeValue(type) + ".");
    }
    const auto* schema = freedml::dml::FindSchemaByName(type.get<std::string>());
    if (!schema) {
        std::string implemented;
        for (const auto* candidate : freedml::dml::AllSchemas()) {
            if (freedml::dml::IsImplemented(*candidate)) implemented += (implemented.empty() ? "" : ", ") + std::string(candidate->name);
        }
        throw ModelError(path, "'" + type.get<std::string>() + "' is not a DirectML operator type FreeDML knows; FreeDML runs " +
                                   implemented + " (with or without the prefix DML_OPERATOR_).");
    }
    return *schema;
}

const BindPoint* Bindable::FindBindPoint(const std::string& name) const {
    for (const auto* list : {&inputs_, &outputs_}) {
        for (const auto& point : *list) {
            if (point.name == name) return &point;
        }
    }
    return nullptr;
}

std::string Bindable::BindPointNames() const {
    std::string names;
    for (const auto* list : {&inputs_, &outputs_}) {
        for (const auto& point : *list) names += (names.empty() ? "" : ", ") + point.name;
    }
    return names;
}

std::unique_ptr<BuiltOperator> BuildOperator(const Json& object, const JsonPath& path,
                                             const std::set<std::string>& reservedKeys) {
    auto built = std::make_unique<BuiltOperator>();
    DescBuilder builder(*built);
    builder.Build(object, path, reservedKeys, /*fused=*/false, 0);
    return built;
}

}  // namespace dmlrun
