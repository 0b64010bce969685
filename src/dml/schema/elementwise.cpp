// Element-wise operators (so far: IDENTITY, ADD, ADD1).
#include "dml/schema/families.h"

namespace freedml::dml {

namespace {

// The types the CPU kernels run for IDENTITY and ADD: every type DirectML lists for them at
// feature level 6.4 (the 4-bit types aside).
constexpr std::initializer_list<DML_TENSOR_DATA_TYPE> kArithmeticTypes = {
    DML_TENSOR_DATA_TYPE_FLOAT32, DML_TENSOR_DATA_TYPE_FLOAT16, DML_TENSOR_DATA_TYPE_FLOAT64,
    DML_TENSOR_DATA_TYPE_UINT32,  DML_TENSOR_DATA_TYPE_UINT16,  DML_TENSOR_DATA_TYPE_UINT8,
    DML_TENSOR_DATA_TYPE_INT32,   DML_TENSOR_DATA_TYPE_INT16,   DML_TENSOR_DATA_TYPE_INT8,
    DML_TENSOR_DATA_TYPE_UINT64,  DML_TENSOR_DATA_TYPE_INT64};

Status ValidateElementWise(const OperatorArgs& args) {
    FREEDML_TRY(ValidateDataTypeIn(args, kArithmeticTypes));
    FREEDML_TRY(ValidateSameDataType(args));
    return ValidateSameSizes(args);
}

Status ValidateAdd1(const OperatorArgs& args) {
    FREEDML_TRY(ValidateElementWise(args));
    // A fused activation computes in floating point.
    const auto& desc = args.As<DML_ELEMENT_WISE_ADD1_OPERATOR_DESC>();
    INVALID_IF(desc.FusedActivation && args.outputs[0]->dataType != DML_TENSOR_DATA_TYPE_FLOAT32 &&
                   args.outputs[0]->dataType != DML_TENSOR_DATA_TYPE_FLOAT16,
               "FusedActivation needs FLOAT32 or FLOAT16 tensors, not %s.", DataTypeName(args.outputs[0]->dataType));
    return {};
}

const OperatorSchema kIdentity{
    .type = DML_OPERATOR_ELEMENT_WISE_IDENTITY,
    .name = "ELEMENT_WISE_IDENTITY",
    .featureLevel = DML_FEATURE_LEVEL_1_0,
    .descSize = sizeof(DML_ELEMENT_WISE_IDENTITY_OPERATOR_DESC),
    .fields = {DML_FIELD(DML_ELEMENT_WISE_IDENTITY_OPERATOR_DESC, InputTensor, InputTensor),
               DML_FIELD(DML_ELEMENT_WISE_IDENTITY_OPERATOR_DESC, OutputTensor, OutputTensor),
               DML_FIELD(DML_ELEMENT_WISE_IDENTITY_OPERATOR_DESC, ScaleBias, ScaleBias, .optional = true)},
    .supportsInPlaceExecution = true,
    .validate = ValidateElementWise,
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
    .validate = ValidateElementWise,
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
