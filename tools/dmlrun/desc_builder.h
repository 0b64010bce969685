// JSON -> DML_OPERATOR_DESC, driven by FreeDML's operator schemas: the JSON field names are the
// schema's (the C struct members), so an operator the library describes is one dmlrun reads,
// with nothing listed here.
//
// An operator object is {"type": "DML_OPERATOR_GEMM", "desc": {fields}} or has its fields inline
// beside "type" ("Type" and "Desc" work too). Tensor descs take defaults as DxDispatch's do: Type
// BUFFER, Flags NONE, DimensionCount from Sizes, no Strides, TotalTensorSizeInBytes computed.
// Enum values may omit their type's prefix ("TRANSPOSE"). Array count fields ("InputCount",
// "DimensionCount") may be left out: the arrays give them.
#pragma once

#include <DirectML.h>

#include <memory>
#include <set>
#include <string>
#include <vector>

#include "dml/schema/schema.h"
#include "json_document.h"

namespace dmlrun {

// One place the operator binds tensors: a tensor field, or a tensor array field.
struct BindPoint {
    std::string name;  // the field: "ATensor", "InputTensors"
    bool isOutput = false;
    bool optional = false;
    bool given = false;  // the desc describes it (an absent optional tensor is not bound)
    bool isArray = false;  // a tensor array field: absent, it takes no binding slots
    // One entry per tensor (1 for a tensor field): its validated size and flags.
    std::vector<const DML_BUFFER_TENSOR_DESC*> tensors;
};

// What a dispatchable binds: an operator's tensor fields, or a graph's inputs and outputs.
class Bindable {
public:
    virtual ~Bindable() = default;
    // In binding order: DirectML binds inputs and outputs in the order of the desc's fields (a
    // graph's in the order of its inputs and outputs).
    const std::vector<BindPoint>& Inputs() const { return inputs_; }
    const std::vector<BindPoint>& Outputs() const { return outputs_; }
    const BindPoint* FindBindPoint(const std::string& name) const;
    std::string BindPointNames() const;  // "ATensor, BTensor, CTensor, OutputTensor"
    virtual std::string Describe() const = 0;  // "DML_OPERATOR_GEMM", "the graph"

protected:
    std::vector<BindPoint> inputs_;
    std::vector<BindPoint> outputs_;
};

class BuiltOperator : public Bindable {
public:
    // An operator whose desc was made elsewhere (an ONNX model's lowering), kept alive by `owner`.
    static std::unique_ptr<BuiltOperator> Wrap(const freedml::dml::OperatorSchema& schema, const DML_OPERATOR_DESC& desc,
                                               std::shared_ptr<const void> owner) {
        auto op = std::unique_ptr<BuiltOperator>(new BuiltOperator);
        op->schema_ = &schema;
        op->desc_ = desc;
        op->owner_ = std::move(owner);
        return op;
    }
    const freedml::dml::OperatorSchema& Schema() const { return *schema_; }
    const DML_OPERATOR_DESC& Desc() const { return desc_; }
    std::string Describe() const override { return std::string("DML_OPERATOR_") + schema_->name; }

private:
    friend class DescBuilder;
    const freedml::dml::OperatorSchema* schema_ = nullptr;
    DML_OPERATOR_DESC desc_{};
    std::vector<std::unique_ptr<uint8_t[]>> blocks_;  // every struct and array the desc points to
    std::vector<std::unique_ptr<BuiltOperator>> children_;  // fused activations the desc points to
    std::shared_ptr<const void> owner_;                      // a wrapped desc's storage
};

// Builds the operator described by `object`. `reservedKeys` are keys of `object` that belong to
// its container (a dispatchable's "executionFlags", "bindings"...), not to an inline desc.
// Throws ModelError naming the field and what it expected.
std::unique_ptr<BuiltOperator> BuildOperator(const Json& object, const JsonPath& path,
                                             const std::set<std::string>& reservedKeys = {});

// "DML_OPERATOR_GEMM" / "GEMM" -> the schema; throws ModelError (for an unknown name, or one
// FreeDML does not run yet).
const freedml::dml::OperatorSchema& FindOperatorSchema(const Json& type, const JsonPath& path);

}  // namespace dmlrun
