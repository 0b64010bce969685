// Data movement operators (so far: JOIN).
#include "dml/schema/families.h"

namespace freedml::dml {

namespace {

// Every input has the output's rank and sizes except along Axis, where the sizes add up.
Status ValidateJoin(const OperatorArgs& args) {
    FREEDML_TRY(ValidateSameDataType(args));
    const auto& desc = args.As<DML_JOIN_OPERATOR_DESC>();
    INVALID_IF(desc.InputCount == 0, "InputCount is 0; JOIN needs at least one input.");
    const TensorDesc& output = *args.outputs[0];
    INVALID_IF(desc.Axis >= output.rank, "Axis (%u) must be below OutputTensor's dimension count (%u).", desc.Axis,
               output.rank);
    uint64_t total = 0;
    for (size_t i = 0; i < args.inputs.size(); ++i) {
        const TensorDesc& input = *args.inputs[i];
        INVALID_IF(input.rank != output.rank, "InputTensors[%zu] has %u dimensions; OutputTensor has %u.", i,
                   input.rank, output.rank);
        for (uint32_t d = 0; d < output.rank; ++d) {
            INVALID_IF(d != desc.Axis && input.sizes[d] != output.sizes[d],
                       "InputTensors[%zu] %s differs from OutputTensor %s in dimension %u, which is not the Axis (%u).",
                       i, SizesToString(input).c_str(), SizesToString(output).c_str(), d, desc.Axis);
        }
        total += input.sizes[desc.Axis];
    }
    INVALID_IF(total != output.sizes[desc.Axis],
               "The inputs' sizes along Axis %u add up to %llu, but OutputTensor's is %u.", desc.Axis,
               static_cast<unsigned long long>(total), output.sizes[desc.Axis]);
    return {};
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

const OperatorSchema* const kSchemas[] = {&kJoin};

}  // namespace

std::span<const OperatorSchema* const> DataMovementSchemas() { return kSchemas; }

}  // namespace freedml::dml
