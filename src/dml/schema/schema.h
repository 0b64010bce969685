// Operator schemas: one description per DML_OPERATOR_TYPE of its desc struct's fields (name,
// kind, offset), which tensors it binds, its in-place support and its shape rules. CreateOperator
// validation, the binding table (input and output counts), the deep copy an operator keeps of its
// desc, and dmlrun's JSON field names all come from here; nothing lists an operator twice.
#pragma once

#include <DirectML.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "common/status.h"
#include "dml/tensor.h"

namespace freedml::dml {

enum class FieldKind : uint8_t {
    InputTensor,        // const DML_TENSOR_DESC*
    OutputTensor,       // const DML_TENSOR_DESC*
    InputTensorArray,   // const DML_TENSOR_DESC* to `count` descs
    OutputTensorArray,  // const DML_TENSOR_DESC* to `count` descs
    OperatorDesc,       // const DML_OPERATOR_DESC* (a fused activation)
    // const DML_OPERATOR_DESC* to `count` descs (the activations of RNN, LSTM and GRU; each one's
    // tensors are null, as a fused activation's)
    OperatorDescArray,
    ScaleBias,          // const DML_SCALE_BIAS*
    UInt,               // UINT
    Int,                // INT
    Float,              // FLOAT
    Bool,               // BOOL
    Enum,               // a 32-bit enum, named by `enumType`
    UIntArray,          // const UINT* to `count` values
    IntArray,           // const INT* to `count` values
    FloatArray,         // const FLOAT* to `count` values
    Size2D,             // DML_SIZE_2D
    // DML_SCALAR_UNION, read as the DML_TENSOR_DATA_TYPE held by the field named `typeField`
    // (FLOAT16 values are the half's bits in UInt16).
    ScalarUnion,
};

// The names and values of one enum type, for messages and for dmlrun's JSON.
struct EnumValue {
    const char* name;  // full name: "DML_MATRIX_TRANSFORM_TRANSPOSE"
    uint32_t value;
};
struct EnumType {
    const char* name;    // "DML_MATRIX_TRANSFORM"
    std::span<const EnumValue> values;
    const char* NameOf(uint32_t value) const;  // nullptr when unknown
};

struct FieldSchema {
    const char* name;          // exactly the C struct member: "ATensor", "TransA"
    FieldKind kind;
    size_t offset;             // offsetof in the desc struct
    bool optional = false;     // tensors and pointers that may be null
    // Arrays: the UINT field that holds the element count ("InputCount", "DimensionCount").
    const char* countField = nullptr;
    const EnumType* enumType = nullptr;
    // ScalarUnion: the DML_TENSOR_DATA_TYPE field that says how to read it ("MinMaxDataType").
    const char* typeField = nullptr;
};

// DML_TENSOR_DATA_TYPE as an enum field (the typed-scalar fields: "MinMaxDataType", "ValueDataType").
const EnumType& TensorDataTypeEnum();

struct OperatorSchema;

// An operator desc after it was validated: tensors in binding order (inputs, outputs, with
// std::nullopt for absent optional tensors) plus the typed fields, read through the schema.
class OperatorArgs {
public:
    const OperatorSchema& schema;
    const void* desc;  // the (deep-copied) desc struct
    std::vector<std::optional<TensorDesc>> inputs;
    std::vector<std::optional<TensorDesc>> outputs;
    std::vector<std::string> inputNames;   // field name of each input ("ATensor", "InputTensors[3]")
    std::vector<std::string> outputNames;
    DML_FEATURE_LEVEL featureLevel = DML_FEATURE_LEVEL_1_0;
    // FreeDML's own epilogue, which no DirectML desc can express: max(Min, min(y, Max)) applied
    // to the output after the operator's math (an ELEMENT_WISE_CLIP without ScaleBias folded into
    // the node before it). Set only by the graph optimizer, only on a CONVOLUTION whose
    // FusedActivation is null; the kernels of such operators honour it.
    bool clampOutput = false;
    float clampMin = 0.0f, clampMax = 0.0f;
    // FreeDML's own epilogue too: the operator's result is added to the value its output tensor
    // holds when it runs, before FusedActivation and the clamp (an ELEMENT_WISE_ADD of a residual
    // folded into the CONVOLUTION that computes the other addend; the graph places the output over
    // the residual's bytes). Set only by the graph optimizer, only on a FLOAT32 CPU CONVOLUTION.
    bool accumulateOutput = false;

    template <class Desc>
    const Desc& As() const { return *static_cast<const Desc*>(desc); }
};

struct OperatorSchema {
    DML_OPERATOR_TYPE type;
    const char* name;                    // "GEMM" (DML_OPERATOR_ without the prefix)
    DML_FEATURE_LEVEL featureLevel;      // the level that introduced it
    size_t descSize;
    std::vector<FieldSchema> fields;
    bool supportsInPlaceExecution = false;  // H2 (DirectMLSchema's IN_PLACE_EXECUTION flag)
    bool canBeFusedActivation = false;      // may appear as another operator's FusedActivation
    // Whether its tensors may be INT4 or UINT4 (QUANTIZE and DEQUANTIZE); every other operator
    // refuses 4-bit tensors before its own rules run.
    bool accepts4BitTensors = false;
    // Shape and attribute rules beyond T1-T4 (null: none). Runs after every tensor was validated.
    Status (*validate)(const OperatorArgs& args) = nullptr;
};

// Where FreeDML runs a type, as the operator table (dml/ops/operators.def) says: a CPU kernel
// makes it implemented (CreateOperator accepts it); a schema with no kernel is known only for its
// layout (dmlrun, docs/OPERATORS.md) and CreateOperator refuses it with a message that says so.
bool IsImplemented(const OperatorSchema& schema);
bool RunsOnCuda(const OperatorSchema& schema);

// One row of the operator table as the registry reads it: the type, its name as the row spells
// it, and whether each backend's column names a factory.
struct OperatorTableRow {
    DML_OPERATOR_TYPE type;
    const char* name;
    bool cpu;
    bool cuda;
};
// Where `rows` and `schemas` disagree, one sentence each: a row without a schema, a schema
// without a row, a type with two rows, a row whose name is not its schema's. Empty when they
// agree. The registry checks the real table with it (OperatorTableErrors); tests check it too.
std::vector<std::string> CheckOperatorTable(std::span<const OperatorTableRow> rows,
                                            std::span<const OperatorSchema* const> schemas);
// CheckOperatorTable for FreeDML's own table and schemas (empty unless a row or schema is wrong).
std::span<const std::string> OperatorTableErrors();

// Every schema FreeDML knows, in DML_OPERATOR_TYPE order.
std::span<const OperatorSchema* const> AllSchemas();
const OperatorSchema* FindSchema(DML_OPERATOR_TYPE type);
const OperatorSchema* FindSchemaByName(const std::string& name);  // "GEMM" or "DML_OPERATOR_GEMM"
const char* OperatorTypeName(DML_OPERATOR_TYPE type);             // "GEMM", or "DML_OPERATOR_TYPE(999)"

// A deep copy of an application's DML_OPERATOR_DESC (and everything it points to), made when
// an operator is created, so the operator never reads the application's memory again.
class OwnedOperatorDesc {
public:
    // Copies `desc` through its schema. Fails (with a message naming the field) on a null
    // required pointer or an absurd count; it does not validate tensors (ValidateOperatorDesc does).
    static Status Copy(const DML_OPERATOR_DESC& desc, std::unique_ptr<OwnedOperatorDesc>* out);

    const DML_OPERATOR_DESC& Desc() const { return desc_; }
    const OperatorSchema& Schema() const { return *schema_; }

private:
    struct Storage;
    DML_OPERATOR_DESC desc_{};
    const OperatorSchema* schema_ = nullptr;
    std::vector<std::unique_ptr<unsigned char[]>> blocks_;  // every copied struct and array
    std::vector<std::unique_ptr<OwnedOperatorDesc>> children_;  // fused activations
    friend struct Storage;
};

// CreateOperator's validation: the schema exists and FreeDML implements it, every tensor obeys
// T1-T4 and the schema's rules, a fused activation is one the operator accepts. On success
// `args` holds the validated tensors.
Status ValidateOperatorDesc(const OwnedOperatorDesc& desc, DML_FEATURE_LEVEL featureLevel,
                            std::unique_ptr<OperatorArgs>* args);

// Helpers for schema rule functions.
template <class T>
const T& FieldAt(const void* desc, size_t offset) {
    return *reinterpret_cast<const T*>(static_cast<const unsigned char*>(desc) + offset);
}

}  // namespace freedml::dml
