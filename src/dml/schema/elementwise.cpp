// Element-wise operators (so far: IDENTITY, ADD, ADD1).
#include "dml/schema/families.h"

namespace freedml::dml {

namespace {

// The data types DirectML's reference pages list at the highest feature level: IDENTITY adds
// FLOAT64 to ADD's list; ADD1 takes floats only.
constexpr std::initializer_list<DML_TENSOR_DATA_TYPE> kIdentityTypes = {
    DML_TENSOR_DATA_TYPE_FLOAT64, DML_TENSOR_DATA_TYPE_FLOAT32, DML_TENSOR_DATA_TYPE_FLOAT16,
    DML_TENSOR_DATA_TYPE_INT64,   DML_TENSOR_DATA_TYPE_INT32,   DML_TENSOR_DATA_TYPE_INT16,
    DML_TENSOR_DATA_TYPE_INT8,    DML_TENSOR_DATA_TYPE_UINT64,  DML_TENSOR_DATA_TYPE_UINT32,
    DML_TENSOR_DATA_TYPE_UINT16,  DML_TENSOR_DATA_TYPE_UINT8};
constexpr std::initializer_list<DML_TENSOR_DATA_TYPE> kAddTypes = {
    DML_TENSOR_DATA_TYPE_FLOAT32, DML_TENSOR_DATA_TYPE_FLOAT16, DML_TENSOR_DATA_TYPE_INT64,
    DML_TENSOR_DATA_TYPE_INT32,   DML_TENSOR_DATA_TYPE_INT16,   DML_TENSOR_DATA_TYPE_INT8,
    DML_TENSOR_DATA_TYPE_UINT64,  DML_TENSOR_DATA_TYPE_UINT32,  DML_TENSOR_DATA_TYPE_UINT16,
    DML_TENSOR_DATA_TYPE_UINT8};
constexpr std::initializer_list<DML_TENSOR_DATA_TYPE> kAdd1Types = {DML_TENSOR_DATA_TYPE_FLOAT32,
                                                                    DML_TENSOR_DATA_TYPE_FLOAT16};

Status ValidateSameTypeAndSizes(const OperatorArgs& args, std::initializer_list<DML_TENSOR_DATA_TYPE> types) {
    FREEDML_TRY(ValidateDataTypeIn(args, types));
    FREEDML_TRY(ValidateSameDataType(args));
    return ValidateSameSizes(args);
}

Status ValidateIdentity(const OperatorArgs& args) { return ValidateSameTypeAndSizes(args, kIdentityTypes); }
Status ValidateAdd(const OperatorArgs& args) { return ValidateSameTypeAndSizes(args, kAddTypes); }
Status ValidateAdd1(const OperatorArgs& args) { return ValidateSameTypeAndSizes(args, kAdd1Types); }

const OperatorSchema kIdentity{
    .type = DML_OPERATOR_ELEMENT_WISE_IDENTITY,
    .name = "ELEMENT_WISE_IDENTITY",
    .featureLevel = DML_FEATURE_LEVEL_1_0,
    .descSize = sizeof(DML_ELEMENT_WISE_IDENTITY_OPERATOR_DESC),
    .fields = {DML_FIELD(DML_ELEMENT_WISE_IDENTITY_OPERATOR_DESC, InputTensor, InputTensor),
               DML_FIELD(DML_ELEMENT_WISE_IDENTITY_OPERATOR_DESC, OutputTensor, OutputTensor),
               DML_FIELD(DML_ELEMENT_WISE_IDENTITY_OPERATOR_DESC, ScaleBias, ScaleBias, .optional = true)},
    .supportsInPlaceExecution = true,
    .validate = ValidateIdentity,
    .implemented = true,
    .cudaImplemented = true,
};

const OperatorSchema kAdd{
    .type = DML_OPERATOR_ELEMENT_WISE_ADD,
    .name = "ELEMENT_WISE_ADD",
    .featureLevel = DML_FEATURE_LEVEL_1_0,
    .descSize = sizeof(DML_ELEMENT_WISE_ADD_OPERATOR_DESC),
    .fields = {DML_FIELD(DML_ELEMENT_WISE_ADD_OPERATOR_DESC, ATensor, InputTensor),
               DML_FIELD(DML_ELEMENT_WISE_ADD_OPERATOR_DESC, BTensor, InputTensor),
               DML_FIELD(DML_ELEMENT_WISE_ADD_OPERATOR_DESC, OutputTensor, OutputTensor)},
    .supportsInPlaceExecution = true,
    .validate = ValidateAdd,
    .implemented = true,
    .cudaImplemented = true,
};

const OperatorSchema kAdd1{
    .type = DML_OPERATOR_ELEMENT_WISE_ADD1,
    .name = "ELEMENT_WISE_ADD1",
    .featureLevel = DML_FEATURE_LEVEL_2_0,
    .descSize = sizeof(DML_ELEMENT_WISE_ADD1_OPERATOR_DESC),
    .fields = {DML_FIELD(DML_ELEMENT_WISE_ADD1_OPERATOR_DESC, ATensor, InputTensor),
               DML_FIELD(DML_ELEMENT_WISE_ADD1_OPERATOR_DESC, BTensor, InputTensor),
               DML_FIELD(DML_ELEMENT_WISE_ADD1_OPERATOR_DESC, OutputTensor, OutputTensor),
               DML_FIELD(DML_ELEMENT_WISE_ADD1_OPERATOR_DESC, FusedActivation, OperatorDesc, .optional = true)},
    .supportsInPlaceExecution = true,
    .validate = ValidateAdd1,
    .implemented = true,
    .cudaImplemented = true,
};

const OperatorSchema* const kSchemas[] = {&kIdentity, &kAdd, &kAdd1};

}  // namespace

std::span<const OperatorSchema* const> ElementWiseSchemas() { return kSchemas; }

}  // namespace freedml::dml
