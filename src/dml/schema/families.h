// The schemas of each operator family, one file per family folder (dml/ops/<family>/schema.cpp).
// schema.cpp gathers them into the registry and checks them against the operator table.
#pragma once

#include <cstddef>
#include <span>

#include "dml/schema/schema.h"

namespace freedml::dml {

std::span<const OperatorSchema* const> ActivationSchemas();
std::span<const OperatorSchema* const> MatrixSchemas();
std::span<const OperatorSchema* const> ConvolutionSchemas();
std::span<const OperatorSchema* const> DataMovementSchemas();
// IDENTITY, the unary math element-wise operators, CAST and the FILL_VALUE operators.
std::span<const OperatorSchema* const> ElementWiseUnarySchemas();
// ADD, binary arithmetic, comparison, logical, bitwise and quantization element-wise operators, and
// ELEMENT_WISE_IF.
std::span<const OperatorSchema* const> ElementWiseBinarySchemas();
// REDUCE, ARGMIN, ARGMAX, CUMULATIVE_SUMMATION, CUMULATIVE_PRODUCT, TOP_K and TOP_K1.
std::span<const OperatorSchema* const> ReductionSchemas();
// ONE_HOT, DIAGONAL_MATRIX, DIAGONAL_MATRIX1, NONZERO_COORDINATES and RANDOM_GENERATOR.
std::span<const OperatorSchema* const> GeneratorSchemas();

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

}  // namespace freedml::dml
