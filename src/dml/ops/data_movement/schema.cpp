// Data movement operators (so far: SPLIT and JOIN, which cut a tensor along one axis and join
// pieces along one).
#include "dml/schema/families.h"

namespace freedml::dml {

namespace {

// The tensor cut into pieces (JOIN's output, SPLIT's input) and the pieces have one data type and
// one rank; the pieces have the whole tensor's sizes except along Axis, where their sizes add up.
Status ValidateAxisPieces(const OperatorArgs& args, const TensorDesc& whole, const std::string& wholeName,
                          const std::vector<std::optional<TensorDesc>>& pieces,
                          const std::vector<std::string>& pieceNames, const char* countName, uint32_t axis) {
    FREEDML_TRY(ValidateSameDataType(args));
    INVALID_IF(pieces.empty(), "%s is 0; DML_OPERATOR_%s needs at least one.", countName, args.schema.name);
    INVALID_IF(axis >= whole.rank, "Axis (%u) must be below %s's dimension count (%u).", axis, wholeName.c_str(),
               whole.rank);
    uint64_t total = 0;
    for (size_t i = 0; i < pieces.size(); ++i) {
        const TensorDesc& piece = *pieces[i];
        INVALID_IF(piece.rank != whole.rank, "%s has %u dimensions; %s has %u.", pieceNames[i].c_str(), piece.rank,
                   wholeName.c_str(), whole.rank);
        for (uint32_t d = 0; d < whole.rank; ++d) {
            INVALID_IF(d != axis && piece.sizes[d] != whole.sizes[d],
                       "%s %s differs from %s %s in dimension %u, which is not the Axis (%u).", pieceNames[i].c_str(),
                       SizesToString(piece).c_str(), wholeName.c_str(), SizesToString(whole).c_str(), d, axis);
        }
        total += piece.sizes[axis];
    }
    INVALID_IF(total != whole.sizes[axis], "The sizes of %s along Axis %u add up to %llu, but %s's is %u.",
               args.schema.type == DML_OPERATOR_JOIN ? "the inputs" : "the outputs", axis,
               static_cast<unsigned long long>(total), wholeName.c_str(), whole.sizes[axis]);
    return {};
}

Status ValidateJoin(const OperatorArgs& args) {
    return ValidateAxisPieces(args, *args.outputs[0], args.outputNames[0], args.inputs, args.inputNames, "InputCount",
                              args.As<DML_JOIN_OPERATOR_DESC>().Axis);
}

Status ValidateSplit(const OperatorArgs& args) {
    return ValidateAxisPieces(args, *args.inputs[0], args.inputNames[0], args.outputs, args.outputNames,
                              "OutputCount", args.As<DML_SPLIT_OPERATOR_DESC>().Axis);
}

const OperatorSchema kJoin{
    .type = DML_OPERATOR_JOIN,
    .name = "JOIN",
    .featureLevel = DML_FEATURE_LEVEL_1_0,
    .descSize = sizeof(DML_JOIN_OPERATOR_DESC),
    .fields = {DML_FIELD(DML_JOIN_OPERATOR_DESC, InputCount, UInt),
               DML_FIELD(DML_JOIN_OPERATOR_DESC, InputTensors, InputTensorArray, .countField = "InputCount"),
               DML_FIELD(DML_JOIN_OPERATOR_DESC, OutputTensor, OutputTensor),
               DML_FIELD(DML_JOIN_OPERATOR_DESC, Axis, UInt)},
    .validate = ValidateJoin,
};

const OperatorSchema kSplit{
    .type = DML_OPERATOR_SPLIT,
    .name = "SPLIT",
    .featureLevel = DML_FEATURE_LEVEL_1_0,
    .descSize = sizeof(DML_SPLIT_OPERATOR_DESC),
    .fields = {DML_FIELD(DML_SPLIT_OPERATOR_DESC, InputTensor, InputTensor),
               DML_FIELD(DML_SPLIT_OPERATOR_DESC, OutputCount, UInt),
               DML_FIELD(DML_SPLIT_OPERATOR_DESC, OutputTensors, OutputTensorArray, .countField = "OutputCount"),
               DML_FIELD(DML_SPLIT_OPERATOR_DESC, Axis, UInt)},
    .validate = ValidateSplit,
};

const OperatorSchema* const kSchemas[] = {&kSplit, &kJoin};

}  // namespace

std::span<const OperatorSchema* const> DataMovementSchemas() { return kSchemas; }

}  // namespace freedml::dml
