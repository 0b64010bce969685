// Multi-head attention: MULTIHEAD_ATTENTION (feature level 6.1) and MULTIHEAD_ATTENTION1 (6.3, with
// PastSequenceLengthsTensor and separate query and key/value head counts). The rules that tie the
// tensors together are in attention_geometry.cpp, which the kernels read too.
#include "dml/ops/attention/attention_geometry.h"
#include "dml/schema/families.h"

namespace freedml::dml {

namespace {

constexpr EnumValue kMaskTypeValues[] = {
    {"DML_MULTIHEAD_ATTENTION_MASK_TYPE_NONE", DML_MULTIHEAD_ATTENTION_MASK_TYPE_NONE},
    {"DML_MULTIHEAD_ATTENTION_MASK_TYPE_KEY_SEQUENCE_LENGTH", DML_MULTIHEAD_ATTENTION_MASK_TYPE_KEY_SEQUENCE_LENGTH},
    {"DML_MULTIHEAD_ATTENTION_MASK_TYPE_KEY_SEQUENCE_END_START",
     DML_MULTIHEAD_ATTENTION_MASK_TYPE_KEY_SEQUENCE_END_START},
    {"DML_MULTIHEAD_ATTENTION_MASK_TYPE_KEY_QUERY_SEQUENCE_LENGTH_START_END",
     DML_MULTIHEAD_ATTENTION_MASK_TYPE_KEY_QUERY_SEQUENCE_LENGTH_START_END},
    {"DML_MULTIHEAD_ATTENTION_MASK_TYPE_BOOLEAN", DML_MULTIHEAD_ATTENTION_MASK_TYPE_BOOLEAN},
};
const EnumType kMaskType{"DML_MULTIHEAD_ATTENTION_MASK_TYPE", kMaskTypeValues};

Status ValidateAttention(const OperatorArgs& args) {
    AttentionGeometry geometry;
    return MakeAttentionGeometry(args, &geometry);
}

const OperatorSchema kMultiheadAttention{
    .type = DML_OPERATOR_MULTIHEAD_ATTENTION,
    .name = "MULTIHEAD_ATTENTION",
    .featureLevel = DML_FEATURE_LEVEL_6_1,
    .descSize = sizeof(DML_MULTIHEAD_ATTENTION_OPERATOR_DESC),
    .fields = {DML_FIELD(DML_MULTIHEAD_ATTENTION_OPERATOR_DESC, QueryTensor, InputTensor, .optional = true),
               DML_FIELD(DML_MULTIHEAD_ATTENTION_OPERATOR_DESC, KeyTensor, InputTensor, .optional = true),
               DML_FIELD(DML_MULTIHEAD_ATTENTION_OPERATOR_DESC, ValueTensor, InputTensor, .optional = true),
               DML_FIELD(DML_MULTIHEAD_ATTENTION_OPERATOR_DESC, StackedQueryKeyTensor, InputTensor, .optional = true),
               DML_FIELD(DML_MULTIHEAD_ATTENTION_OPERATOR_DESC, StackedKeyValueTensor, InputTensor, .optional = true),
               DML_FIELD(DML_MULTIHEAD_ATTENTION_OPERATOR_DESC, StackedQueryKeyValueTensor, InputTensor,
                         .optional = true),
               DML_FIELD(DML_MULTIHEAD_ATTENTION_OPERATOR_DESC, BiasTensor, InputTensor, .optional = true),
               DML_FIELD(DML_MULTIHEAD_ATTENTION_OPERATOR_DESC, MaskTensor, InputTensor, .optional = true),
               DML_FIELD(DML_MULTIHEAD_ATTENTION_OPERATOR_DESC, RelativePositionBiasTensor, InputTensor,
                         .optional = true),
               DML_FIELD(DML_MULTIHEAD_ATTENTION_OPERATOR_DESC, PastKeyTensor, InputTensor, .optional = true),
               DML_FIELD(DML_MULTIHEAD_ATTENTION_OPERATOR_DESC, PastValueTensor, InputTensor, .optional = true),
               DML_FIELD(DML_MULTIHEAD_ATTENTION_OPERATOR_DESC, OutputTensor, OutputTensor),
               DML_FIELD(DML_MULTIHEAD_ATTENTION_OPERATOR_DESC, OutputPresentKeyTensor, OutputTensor, .optional = true),
               DML_FIELD(DML_MULTIHEAD_ATTENTION_OPERATOR_DESC, OutputPresentValueTensor, OutputTensor,
                         .optional = true),
               DML_FIELD(DML_MULTIHEAD_ATTENTION_OPERATOR_DESC, Scale, Float),
               DML_FIELD(DML_MULTIHEAD_ATTENTION_OPERATOR_DESC, MaskFilterValue, Float),
               DML_FIELD(DML_MULTIHEAD_ATTENTION_OPERATOR_DESC, HeadCount, UInt),
               DML_FIELD(DML_MULTIHEAD_ATTENTION_OPERATOR_DESC, MaskType, Enum, .enumType = &kMaskType)},
    .validate = ValidateAttention,
};

const OperatorSchema kMultiheadAttention1{
    .type = DML_OPERATOR_MULTIHEAD_ATTENTION1,
    .name = "MULTIHEAD_ATTENTION1",
    .featureLevel = DML_FEATURE_LEVEL_6_3,
    .descSize = sizeof(DML_MULTIHEAD_ATTENTION1_OPERATOR_DESC),
    .fields = {DML_FIELD(DML_MULTIHEAD_ATTENTION1_OPERATOR_DESC, QueryTensor, InputTensor, .optional = true),
               DML_FIELD(DML_MULTIHEAD_ATTENTION1_OPERATOR_DESC, KeyTensor, InputTensor, .optional = true),
               DML_FIELD(DML_MULTIHEAD_ATTENTION1_OPERATOR_DESC, ValueTensor, InputTensor, .optional = true),
               DML_FIELD(DML_MULTIHEAD_ATTENTION1_OPERATOR_DESC, StackedQueryKeyTensor, InputTensor, .optional = true),
               DML_FIELD(DML_MULTIHEAD_ATTENTION1_OPERATOR_DESC, StackedKeyValueTensor, InputTensor, .optional = true),
               DML_FIELD(DML_MULTIHEAD_ATTENTION1_OPERATOR_DESC, StackedQueryKeyValueTensor, InputTensor,
                         .optional = true),
               DML_FIELD(DML_MULTIHEAD_ATTENTION1_OPERATOR_DESC, BiasTensor, InputTensor, .optional = true),
               DML_FIELD(DML_MULTIHEAD_ATTENTION1_OPERATOR_DESC, MaskTensor, InputTensor, .optional = true),
               DML_FIELD(DML_MULTIHEAD_ATTENTION1_OPERATOR_DESC, RelativePositionBiasTensor, InputTensor,
                         .optional = true),
               DML_FIELD(DML_MULTIHEAD_ATTENTION1_OPERATOR_DESC, PastKeyTensor, InputTensor, .optional = true),
               DML_FIELD(DML_MULTIHEAD_ATTENTION1_OPERATOR_DESC, PastValueTensor, InputTensor, .optional = true),
               DML_FIELD(DML_MULTIHEAD_ATTENTION1_OPERATOR_DESC, PastSequenceLengthsTensor, InputTensor,
                         .optional = true),
               DML_FIELD(DML_MULTIHEAD_ATTENTION1_OPERATOR_DESC, OutputTensor, OutputTensor),
               DML_FIELD(DML_MULTIHEAD_ATTENTION1_OPERATOR_DESC, OutputPresentKeyTensor, OutputTensor,
                         .optional = true),
               DML_FIELD(DML_MULTIHEAD_ATTENTION1_OPERATOR_DESC, OutputPresentValueTensor, OutputTensor,
                         .optional = true),
               DML_FIELD(DML_MULTIHEAD_ATTENTION1_OPERATOR_DESC, Scale, Float),
               DML_FIELD(DML_MULTIHEAD_ATTENTION1_OPERATOR_DESC, MaskFilterValue, Float),
               DML_FIELD(DML_MULTIHEAD_ATTENTION1_OPERATOR_DESC, QueryHeadCount, UInt),
               DML_FIELD(DML_MULTIHEAD_ATTENTION1_OPERATOR_DESC, KeyValueHeadCount, UInt),
               DML_FIELD(DML_MULTIHEAD_ATTENTION1_OPERATOR_DESC, MaskType, Enum, .enumType = &kMaskType)},
    .validate = ValidateAttention,
};

const OperatorSchema* const kSchemas[] = {&kMultiheadAttention, &kMultiheadAttention1};

}  // namespace

std::span<const OperatorSchema* const> AttentionSchemas() { return kSchemas; }

}  // namespace freedml::dml
