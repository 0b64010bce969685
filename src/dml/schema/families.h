// The schemas of each operator family, one file per family folder (dml/ops/<family>/schema.cpp),
// and the rules several families share. schema.cpp gathers them into the registry and checks them
// against the operator table.
#pragma once

#include <cstddef>
#include <span>

#include "dml/schema/schema.h"

namespace freedml::dml {

// One ...Schemas() per family of the operator table (dml/ops/operators.def), defined by the family's
// schema.cpp: ActivationSchemas(), ElementWiseUnarySchemas()...
#define FREEDML_FAMILY(NAME) std::span<const OperatorSchema* const> NAME##Schemas();
#include "dml/ops/operators.def"
#undef FREEDML_FAMILY

// Schema-building shorthands: DML_FIELD(DML_GEMM_OPERATOR_DESC, ATensor, InputTensor).
#define DML_FIELD(Desc, member, fieldKind, ...) \
    ::freedml::dml::FieldSchema {                                                        \
        .name = #member, .kind = ::freedml::dml::FieldKind::fieldKind, .offset = offsetof(Desc, member) \
        __VA_OPT__(, ) __VA_ARGS__                                                       \
    }

// Rules shared by several families.
// Every present tensor of `args` has `dataType`'s type as the first input (names the culprit).
Status ValidateSameDataType(const OperatorArgs& args);
// Every present tensor has the output's sizes (element-wise operators broadcast through strides).
Status ValidateSameSizes(const OperatorArgs& args);
// The data type is one of `allowed`.
Status ValidateDataTypeIn(const OperatorArgs& args, std::initializer_list<DML_TENSOR_DATA_TYPE> allowed);
std::string SizesToString(const TensorDesc& tensor);
// "FLOAT32, FLOAT16": a list of allowed types, for messages.
std::string DataTypeListToString(std::initializer_list<DML_TENSOR_DATA_TYPE> types);
bool DataTypeIn(std::initializer_list<DML_TENSOR_DATA_TYPE> types, DML_TENSOR_DATA_TYPE type);

}  // namespace freedml::dml
