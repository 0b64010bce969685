// ELEMENT_WISE_IF: Output = Condition != 0 ? A : B, element by element. The selection family of
// one operator; its own file because it is the only element-wise operator with three inputs.
#include "dml/schema/families.h"

namespace freedml::dml {

namespace {

// ConditionTensor is UINT8; A, B and Output share any of the 8- to 64-bit types (feature level
// 5.0 on, as the reference page lists them).
constexpr std::initializer_list<DML_TENSOR_DATA_TYPE> kValueTypes = {
    DML_TENSOR_DATA_TYPE_FLOAT64, DML_TENSOR_DATA_TYPE_FLOAT32, DML_TENSOR_DATA_TYPE_FLOAT16,
    DML_TENSOR_DATA_TYPE_INT64,   DML_TENSOR_DATA_TYPE_INT32,   DML_TENSOR_DATA_TYPE_INT16,
    DML_TENSOR_DATA_TYPE_INT8,    DML_TENSOR_DATA_TYPE_UINT64,  DML_TENSOR_DATA_TYPE_UINT32,
    DML_TENSOR_DATA_TYPE_UINT16,  DML_TENSOR_DATA_TYPE_UINT8};

Status ValidateIf(const OperatorArgs& args) {
    const TensorDesc& condition = *args.inputs[0];
    INVALID_IF(condition.dataType != DML_TENSOR_DATA_TYPE_UINT8,
               "%s has data type %s; DML_OPERATOR_ELEMENT_WISE_IF takes a UINT8 condition (non-zero selects ATensor).",
               args.inputNames[0].c_str(), DataTypeName(condition.dataType));
    FREEDML_TRY(ValidateDataTypeIn(args, kValueTypes));  // the condition's UINT8 is among them
    const TensorDesc& output = *args.outputs[0];
    for (size_t i = 1; i < 3; ++i) {
        INVALID_IF(args.inputs[i]->dataType != output.dataType, "%s has data type %s, but %s is %s; they must match.",
                   args.inputNames[i].c_str(), DataTypeName(args.inputs[i]->dataType), args.outputNames[0].c_str(),
                   DataTypeName(output.dataType));
    }
    return ValidateSameSizes(args);
}

const OperatorSchema kIf{
    .type = DML_OPERATOR_ELEMENT_WISE_IF,
    .name = "ELEMENT_WISE_IF",
    .featureLevel = DML_FEATURE_LEVEL_2_0,
    .descSize = sizeof(DML_ELEMENT_WISE_IF_OPERATOR_DESC),
    .fields = {DML_FIELD(DML_ELEMENT_WISE_IF_OPERATOR_DESC, ConditionTensor, InputTensor),
               DML_FIELD(DML_ELEMENT_WISE_IF_OPERATOR_DESC, ATensor, InputTensor),
               DML_FIELD(DML_ELEMENT_WISE_IF_OPERATOR_DESC, BTensor, InputTensor),
               DML_FIELD(DML_ELEMENT_WISE_IF_OPERATOR_DESC, OutputTensor, OutputTensor)},
    .validate = ValidateIf,
    .implemented = true,
    .cudaImplemented = true,
};

const OperatorSchema* const kSchemas[] = {&kIf};

}  // namespace

std::span<const OperatorSchema* const> ElementWiseIfSchemas() { return kSchemas; }

}  // namespace freedml::dml
