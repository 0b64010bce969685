#include "dml/schema/schema.h"

#include <algorithm>
#include <cstring>

#include "common/enum_value.h"
#include "dml/schema/families.h"

namespace freedml::dml {

namespace {

constexpr uint32_t kMaxArrayCount = 1u << 24;  // more than any real JOIN; stops a garbage count

std::vector<const OperatorSchema*> FamilySchemas() {
    std::vector<const OperatorSchema*> all;
    const std::span<const OperatorSchema* const> families[] = {
#define FREEDML_FAMILY(NAME) NAME##Schemas(),
#include "dml/ops/operators.def"
#undef FREEDML_FAMILY
    };
    for (auto family : families) {
        all.insert(all.end(), family.begin(), family.end());
    }
    std::sort(all.begin(), all.end(), [](auto* a, auto* b) { return a->type < b->type; });
    return all;
}

// The operator table, read for what the schema library needs: whether each column names a
// factory (the factories themselves live with their backends).
constexpr OperatorTableRow kTableRows[] = {
#define FREEDML_OPERATOR(TYPE, CPU, CUDA) {DML_OPERATOR_##TYPE, #TYPE, sizeof(#CPU) > 1, sizeof(#CUDA) > 1},
#include "dml/ops/operators.def"
#undef FREEDML_OPERATOR
};

struct RegistryData {
    std::vector<const OperatorSchema*> schemas = FamilySchemas();
    std::vector<std::string> errors = CheckOperatorTable(kTableRows, schemas);
};

const RegistryData& TheRegistry() {
    static const RegistryData registry;
    return registry;
}

const std::vector<const OperatorSchema*>& Registry() { return TheRegistry().schemas; }

const OperatorTableRow* FindRow(DML_OPERATOR_TYPE type) {
    for (const auto& row : kTableRows) {
        if (row.type == type) return &row;
    }
    return nullptr;
}

const FieldSchema* FindField(const OperatorSchema& schema, const char* name) {
    for (const auto& field : schema.fields) {
        if (std::strcmp(field.name, name) == 0) return &field;
    }
    return nullptr;
}

bool IsTensorField(FieldKind kind) {
    return kind == FieldKind::InputTensor || kind == FieldKind::OutputTensor || kind == FieldKind::InputTensorArray ||
           kind == FieldKind::OutputTensorArray;
}

}  // namespace

namespace {
constexpr EnumValue kTensorDataTypeValues[] = {
    {"DML_TENSOR_DATA_TYPE_FLOAT32", DML_TENSOR_DATA_TYPE_FLOAT32}, {"DML_TENSOR_DATA_TYPE_FLOAT16", DML_TENSOR_DATA_TYPE_FLOAT16},
    {"DML_TENSOR_DATA_TYPE_UINT32", DML_TENSOR_DATA_TYPE_UINT32},   {"DML_TENSOR_DATA_TYPE_UINT16", DML_TENSOR_DATA_TYPE_UINT16},
    {"DML_TENSOR_DATA_TYPE_UINT8", DML_TENSOR_DATA_TYPE_UINT8},     {"DML_TENSOR_DATA_TYPE_INT32", DML_TENSOR_DATA_TYPE_INT32},
    {"DML_TENSOR_DATA_TYPE_INT16", DML_TENSOR_DATA_TYPE_INT16},     {"DML_TENSOR_DATA_TYPE_INT8", DML_TENSOR_DATA_TYPE_INT8},
    {"DML_TENSOR_DATA_TYPE_FLOAT64", DML_TENSOR_DATA_TYPE_FLOAT64}, {"DML_TENSOR_DATA_TYPE_UINT64", DML_TENSOR_DATA_TYPE_UINT64},
    {"DML_TENSOR_DATA_TYPE_INT64", DML_TENSOR_DATA_TYPE_INT64},
};
const EnumType kTensorDataType{"DML_TENSOR_DATA_TYPE", kTensorDataTypeValues};
}  // namespace

const EnumType& TensorDataTypeEnum() { return kTensorDataType; }

const char* EnumType::NameOf(uint32_t value) const {
    for (const auto& v : values) {
        if (v.value == value) return v.name;
    }
    return nullptr;
}

std::span<const OperatorSchema* const> AllSchemas() { return Registry(); }

bool IsImplemented(const OperatorSchema& schema) {
    const OperatorTableRow* row = FindRow(schema.type);
    return row && row->cpu;
}

bool RunsOnCuda(const OperatorSchema& schema) {
    const OperatorTableRow* row = FindRow(schema.type);
    return row && row->cuda;
}

std::vector<std::string> CheckOperatorTable(std::span<const OperatorTableRow> rows,
                                            std::span<const OperatorSchema* const> schemas) {
    std::vector<std::string> errors;
    for (size_t i = 0; i < rows.size(); ++i) {
        const OperatorTableRow& row = rows[i];
        for (size_t j = 0; j < i; ++j) {
            if (rows[j].type == row.type) {
                errors.push_back(Format("The operator table has two rows for type %d (%s and %s).",
                                        static_cast<int>(row.type), rows[j].name, row.name));
            }
        }
        const OperatorSchema* schema = nullptr;
        for (const OperatorSchema* candidate : schemas) {
            if (candidate->type == row.type) schema = candidate;
        }
        if (!schema) {
            errors.push_back(Format("The operator table's row %s (type %d) has no schema in its family's schema.cpp.",
                                    row.name, static_cast<int>(row.type)));
        } else if (std::strcmp(schema->name, row.name) != 0) {
            errors.push_back(Format("The operator table's row %s (type %d) names a type whose schema is %s.", row.name,
                                    static_cast<int>(row.type), schema->name));
        }
    }
    for (const OperatorSchema* schema : schemas) {
        bool found = false;
        for (const OperatorTableRow& row : rows) found = found || row.type == schema->type;
        if (!found) {
            errors.push_back(Format("DML_OPERATOR_%s has a schema but no row in the operator table "
                                    "(its family's operators.def).",
                                    schema->name));
        }
    }
    return errors;
}

std::span<const std::string> OperatorTableErrors() { return TheRegistry().errors; }

const OperatorSchema* FindSchema(DML_OPERATOR_TYPE type) {
    const auto& all = Registry();
    auto it = std::lower_bound(all.begin(), all.end(), type, [](auto* s, DML_OPERATOR_TYPE t) { return s->type < t; });
    return it != all.end() && (*it)->type == type ? *it : nullptr;
}

const OperatorSchema* FindSchemaByName(const std::string& name) {
    std::string bare = name.rfind("DML_OPERATOR_", 0) == 0 ? name.substr(13) : name;
    for (const auto* schema : Registry()) {
        if (bare == schema->name) return schema;
    }
    return nullptr;
}

const char* OperatorTypeName(DML_OPERATOR_TYPE type) {
    if (const auto* schema = FindSchema(type)) return schema->name;
    static thread_local char buffer[48];
    std::snprintf(buffer, sizeof(buffer), "DML_OPERATOR_TYPE(%d)", static_cast<int>(type));
    return buffer;
}

// ---- Deep copy ---------------------------------------------------------------------------------

struct OwnedOperatorDesc::Storage {
    OwnedOperatorDesc& owner;

    template <class T>
    T* Allocate(size_t count) {
        auto block = std::make_unique<unsigned char[]>(sizeof(T) * std::max<size_t>(count, 1));
        std::memset(block.get(), 0, sizeof(T) * std::max<size_t>(count, 1));
        T* typed = reinterpret_cast<T*>(block.get());
        owner.blocks_.push_back(std::move(block));
        return typed;
    }

    template <class T>
    const T* CopyArray(const T* source, size_t count) {
        if (!source) return nullptr;
        T* copy = Allocate<T>(count);
        if (count) std::memcpy(copy, source, sizeof(T) * count);
        return copy;
    }

    Status CopyTensor(const DML_TENSOR_DESC& source, DML_TENSOR_DESC* target, const std::string& field) {
        *target = source;
        if (Raw(source.Type) != DML_TENSOR_TYPE_BUFFER || !source.Desc) return {};  // validated later
        const auto& buffer = *static_cast<const DML_BUFFER_TENSOR_DESC*>(source.Desc);
        INVALID_IF(buffer.DimensionCount == 0 || buffer.DimensionCount > kMaxTensorRank,
                   "%s: DimensionCount (%u) is outside 1..%u (T1).", field.c_str(), buffer.DimensionCount,
                   kMaxTensorRank);
        INVALID_IF(!buffer.Sizes, "%s: Sizes is null (T1).", field.c_str());
        auto* copy = Allocate<DML_BUFFER_TENSOR_DESC>(1);
        *copy = buffer;
        copy->Sizes = CopyArray(buffer.Sizes, buffer.DimensionCount);
        copy->Strides = CopyArray(buffer.Strides, buffer.DimensionCount);
        target->Desc = copy;
        return {};
    }
};

Status OwnedOperatorDesc::Copy(const DML_OPERATOR_DESC& desc, std::unique_ptr<OwnedOperatorDesc>* out) {
    // The type is read as an integer: an application may pass any value (common/enum_value.h).
    const int type = static_cast<int>(Raw(desc.Type));
    // DirectML's operator types run from 1 to 177 at feature level 6.4.
    constexpr int kLastOperatorType = 177;
    const OperatorSchema* schema =
        type >= 1 && type <= kLastOperatorType ? FindSchema(static_cast<DML_OPERATOR_TYPE>(type)) : nullptr;
    if (!schema) {
        if (type >= 1 && type <= kLastOperatorType) {
            return Error(E_INVALIDARG,
                         "DML_OPERATOR_DESC.Type (%d) is a DirectML operator that FreeDML does not implement yet; "
                         "see docs/OPERATORS.md for the operators it runs.",
                         type);
        }
        return Error(E_INVALIDARG, "DML_OPERATOR_DESC.Type (%d) is not a DirectML operator type (1..%d).", type,
                     kLastOperatorType);
    }
    INVALID_IF(!desc.Desc, "DML_OPERATOR_DESC.Desc is null for a %s operator.", schema->name);

    auto owned = std::unique_ptr<OwnedOperatorDesc>(new OwnedOperatorDesc);
    owned->schema_ = schema;
    Storage storage{*owned};
    auto* bytes = storage.Allocate<unsigned char>(schema->descSize);
    std::memcpy(bytes, desc.Desc, schema->descSize);

    auto countOf = [&](const FieldSchema& field, uint32_t* count) -> Status {
        const FieldSchema* countField = FindField(*schema, field.countField);
        *count = countField ? FieldAt<UINT>(bytes, countField->offset) : 0;
        INVALID_IF(*count > kMaxArrayCount, "%s (%u) is larger than FreeDML accepts (%u).", field.countField, *count,
                   kMaxArrayCount);
        return {};
    };

    for (const auto& field : schema->fields) {
        void* slot = bytes + field.offset;
        switch (field.kind) {
            case FieldKind::InputTensor:
            case FieldKind::OutputTensor: {
                auto*& pointer = *static_cast<const DML_TENSOR_DESC**>(slot);
                if (!pointer) break;
                auto* tensor = storage.Allocate<DML_TENSOR_DESC>(1);
                FREEDML_TRY(storage.CopyTensor(*pointer, tensor, field.name));
                pointer = tensor;
                break;
            }
            case FieldKind::InputTensorArray:
            case FieldKind::OutputTensorArray: {
                uint32_t count = 0;
                FREEDML_TRY(countOf(field, &count));
                auto*& pointer = *static_cast<const DML_TENSOR_DESC**>(slot);
                if (!pointer) break;
                auto* tensors = storage.Allocate<DML_TENSOR_DESC>(count);
                for (uint32_t i = 0; i < count; ++i) {
                    FREEDML_TRY(storage.CopyTensor(pointer[i], &tensors[i], Format("%s[%u]", field.name, i)));
                }
                pointer = tensors;
                break;
            }
            case FieldKind::OperatorDesc: {
                auto*& pointer = *static_cast<const DML_OPERATOR_DESC**>(slot);
                if (!pointer) break;
                std::unique_ptr<OwnedOperatorDesc> child;
                FREEDML_TRY_CONTEXT(Copy(*pointer, &child), "copying %s", field.name);
                pointer = &child->Desc();
                owned->children_.push_back(std::move(child));
                break;
            }
            case FieldKind::OperatorDescArray: {
                uint32_t count = 0;
                FREEDML_TRY(countOf(field, &count));
                auto*& pointer = *static_cast<const DML_OPERATOR_DESC**>(slot);
                if (!pointer) break;
                auto* descs = storage.Allocate<DML_OPERATOR_DESC>(count);
                for (uint32_t i = 0; i < count; ++i) {
                    std::unique_ptr<OwnedOperatorDesc> child;
                    FREEDML_TRY_CONTEXT(Copy(pointer[i], &child), "copying %s[%u]", field.name, i);
                    descs[i] = child->Desc();
                    owned->children_.push_back(std::move(child));
                }
                pointer = descs;
                break;
            }
            case FieldKind::ScaleBias: {
                auto*& pointer = *static_cast<const DML_SCALE_BIAS**>(slot);
                pointer = storage.CopyArray(pointer, 1);
                break;
            }
            case FieldKind::UIntArray:
            case FieldKind::IntArray:
            case FieldKind::FloatArray: {
                uint32_t count = 0;
                FREEDML_TRY(countOf(field, &count));
                auto*& pointer = *static_cast<const uint32_t**>(slot);  // all three are 4-byte elements
                pointer = storage.CopyArray(pointer, count);
                break;
            }
            default:
                break;  // plain values were copied with the struct
        }
    }
    owned->desc_.Type = schema->type;
    owned->desc_.Desc = bytes;
    *out = std::move(owned);
    return {};
}

// ---- Validation --------------------------------------------------------------------------------

Status ValidateOperatorDesc(const OwnedOperatorDesc& owned, DML_FEATURE_LEVEL featureLevel,
                            std::unique_ptr<OperatorArgs>* out) {
    const OperatorSchema& schema = owned.Schema();
    if (!IsImplemented(schema)) {
        return Error(E_INVALIDARG,
                     "DML_OPERATOR_%s is not implemented by FreeDML yet; see docs/OPERATORS.md for the operators "
                     "it runs.",
                     schema.name);
    }
    INVALID_IF(schema.featureLevel > featureLevel,
               "DML_OPERATOR_%s needs feature level 0x%x, above the device's 0x%x.", schema.name,
               static_cast<unsigned>(schema.featureLevel), static_cast<unsigned>(featureLevel));

    const void* desc = owned.Desc().Desc;
    auto args = std::make_unique<OperatorArgs>(OperatorArgs{schema, desc, {}, {}, {}, {}, featureLevel});

    auto validateTensor = [&](const DML_TENSOR_DESC* tensor, const std::string& name, bool isOutput,
                              bool optional) -> Status {
        auto& list = isOutput ? args->outputs : args->inputs;
        auto& names = isOutput ? args->outputNames : args->inputNames;
        names.push_back(name);
        if (!tensor || (Raw(tensor->Type) == DML_TENSOR_TYPE_INVALID && !tensor->Desc)) {
            INVALID_IF(!optional, "%s is required but was not given.", name.c_str());
            list.emplace_back(std::nullopt);
            return {};
        }
        TensorDesc validated;
        TensorRequirements requirements;
        requirements.name = names.back().c_str();
        requirements.isOutput = isOutput;
        FREEDML_TRY(ValidateTensorDesc(tensor, requirements, featureLevel, &validated));
        INVALID_IF(IsPacked4Bit(validated.dataType) && !schema.accepts4BitTensors,
                   "%s: DataType (%s) packs two elements per byte; DML_OPERATOR_%s does not take 4-bit tensors "
                   "(DirectML lists INT4 and UINT4 for QUANTIZE and DEQUANTIZE only).",
                   name.c_str(), DataTypeName(validated.dataType), schema.name);
        list.emplace_back(validated);
        return {};
    };

    // A fused activation (or one of an operator's activations): an activation type whose own
    // tensors are null, since it runs on values of the operator it belongs to.
    auto validateFused = [&](const DML_OPERATOR_DESC& fused, const std::string& name) -> Status {
        // Copy validated the desc's type: it names a known schema.
        const OperatorSchema* fusedSchema = FindSchema(fused.Type);
        INVALID_IF(!fusedSchema || !fusedSchema->canBeFusedActivation,
                   "%s: DML_OPERATOR_%s cannot be fused into DML_OPERATOR_%s.", name.c_str(),
                   OperatorTypeName(fused.Type), schema.name);
        for (const auto& fusedField : fusedSchema->fields) {
            if (IsTensorField(fusedField.kind)) {
                INVALID_IF(FieldAt<const void*>(fused.Desc, fusedField.offset) != nullptr,
                           "%s: the fused DML_OPERATOR_%s has a non-null %s; a fused activation's tensors "
                           "must be null.",
                           name.c_str(), fusedSchema->name, fusedField.name);
            }
        }
        return {};
    };

    for (const auto& field : schema.fields) {
        switch (field.kind) {
            case FieldKind::InputTensor:
            case FieldKind::OutputTensor:
                FREEDML_TRY(validateTensor(FieldAt<const DML_TENSOR_DESC*>(desc, field.offset), field.name,
                                           field.kind == FieldKind::OutputTensor, field.optional));
                break;
            case FieldKind::InputTensorArray:
            case FieldKind::OutputTensorArray: {
                const FieldSchema* countField = FindField(schema, field.countField);
                uint32_t count = countField ? FieldAt<UINT>(desc, countField->offset) : 0;
                const auto* tensors = FieldAt<const DML_TENSOR_DESC*>(desc, field.offset);
                INVALID_IF(count && !tensors, "%s is null but %s is %u.", field.name, field.countField, count);
                for (uint32_t i = 0; i < count; ++i) {
                    FREEDML_TRY(validateTensor(&tensors[i], Format("%s[%u]", field.name, i),
                                               field.kind == FieldKind::OutputTensorArray, false));
                }
                break;
            }
            case FieldKind::OperatorDesc: {
                const auto* fused = FieldAt<const DML_OPERATOR_DESC*>(desc, field.offset);
                if (!fused) break;
                FREEDML_TRY(validateFused(*fused, field.name));
                break;
            }
            case FieldKind::OperatorDescArray: {
                const FieldSchema* countField = FindField(schema, field.countField);
                uint32_t count = countField ? FieldAt<UINT>(desc, countField->offset) : 0;
                const auto* descs = FieldAt<const DML_OPERATOR_DESC*>(desc, field.offset);
                INVALID_IF(count && !descs, "%s is null but %s is %u.", field.name, field.countField, count);
                for (uint32_t i = 0; i < count; ++i) {
                    FREEDML_TRY(validateFused(descs[i], Format("%s[%u]", field.name, i)));
                }
                break;
            }
            case FieldKind::ScalarUnion: {
                // The value is read as its type field says; that type must be one a scalar holds.
                const FieldSchema* typeField = field.typeField ? FindField(schema, field.typeField) : nullptr;
                INVALID_IF(!typeField, "%s: DML_OPERATOR_%s's schema names no data type field for it.", field.name,
                           schema.name);
                uint32_t type = FieldAt<uint32_t>(desc, typeField->offset);
                INVALID_IF(!TensorDataTypeEnum().NameOf(type), "%s (%u) is not a data type %s can hold.",
                           typeField->name, type, field.name);
                break;
            }
            case FieldKind::Enum: {
                uint32_t value = FieldAt<uint32_t>(desc, field.offset);
                INVALID_IF(field.enumType && !field.enumType->NameOf(value), "%s (%u) is not a %s value.", field.name,
                           value, field.enumType->name);
                break;
            }
            default:
                break;
        }
    }
    if (schema.validate) FREEDML_TRY(schema.validate(*args));
    *out = std::move(args);
    return {};
}

}  // namespace freedml::dml
