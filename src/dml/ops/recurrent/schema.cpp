// Recurrent layers: RNN, LSTM and GRU (DirectML feature level 1.0), ONNX's operators of the same
// names over DirectML's 4-D tensors (recurrent_plan.h lists the shapes).
#include <string>

#include "dml/ops/recurrent/recurrent_plan.h"
#include "dml/schema/families.h"

namespace freedml::dml {

namespace {

constexpr EnumValue kDirectionValues[] = {
    {"DML_RECURRENT_NETWORK_DIRECTION_FORWARD", DML_RECURRENT_NETWORK_DIRECTION_FORWARD},
    {"DML_RECURRENT_NETWORK_DIRECTION_BACKWARD", DML_RECURRENT_NETWORK_DIRECTION_BACKWARD},
    {"DML_RECURRENT_NETWORK_DIRECTION_BIDIRECTIONAL", DML_RECURRENT_NETWORK_DIRECTION_BIDIRECTIONAL},
};
const EnumType kDirection{"DML_RECURRENT_NETWORK_DIRECTION", kDirectionValues};

// The activations ONNX's recurrent operators name (Relu, Tanh, Sigmoid, Affine, LeakyRelu,
// ThresholdedRelu, ScaledTanh, HardSigmoid, Elu, Softsign, Softplus) as DirectML operators.
bool IsRecurrentActivation(DML_OPERATOR_TYPE type) {
    switch (type) {
        case DML_OPERATOR_ACTIVATION_RELU:
        case DML_OPERATOR_ACTIVATION_TANH:
        case DML_OPERATOR_ACTIVATION_SIGMOID:
        case DML_OPERATOR_ACTIVATION_LINEAR:
        case DML_OPERATOR_ACTIVATION_LEAKY_RELU:
        case DML_OPERATOR_ACTIVATION_THRESHOLDED_RELU:
        case DML_OPERATOR_ACTIVATION_SCALED_TANH:
        case DML_OPERATOR_ACTIVATION_HARD_SIGMOID:
        case DML_OPERATOR_ACTIVATION_ELU:
        case DML_OPERATOR_ACTIVATION_SOFTSIGN:
        case DML_OPERATOR_ACTIVATION_SOFTPLUS:
            return true;
        default:
            return false;
    }
}

// The fields each operator shares, read from whichever desc it is.
struct Common {
    RecurrentCell cell;
    uint32_t gates;
    uint32_t activationsPerDirection;
    uint32_t activationCount;
    const DML_OPERATOR_DESC* activations;
    uint32_t direction;
};

Common CommonOf(const OperatorArgs& args) {
    switch (args.schema.type) {
        case DML_OPERATOR_LSTM: {
            const auto& d = args.As<DML_LSTM_OPERATOR_DESC>();
            return {RecurrentCell::Lstm, 4, 3, d.ActivationDescCount, d.ActivationDescs, uint32_t(d.Direction)};
        }
        case DML_OPERATOR_GRU: {
            const auto& d = args.As<DML_GRU_OPERATOR_DESC>();
            return {RecurrentCell::Gru, 3, 2, d.ActivationDescCount, d.ActivationDescs, uint32_t(d.Direction)};
        }
        default: {
            const auto& d = args.As<DML_RNN_OPERATOR_DESC>();
            return {RecurrentCell::Rnn, 1, 1, d.ActivationDescCount, d.ActivationDescs, uint32_t(d.Direction)};
        }
    }
}

std::string Sizes4(uint32_t a, uint32_t b, uint32_t c, uint32_t d) {
    return "{" + std::to_string(a) + ", " + std::to_string(b) + ", " + std::to_string(c) + ", " + std::to_string(d) +
           "}";
}

Status ExpectSizes(const std::optional<TensorDesc>& tensor, const std::string& name, uint32_t a, uint32_t b, uint32_t c,
                   uint32_t d, const char* meaning) {
    if (!tensor) return {};
    const bool ok = tensor->rank == 4 && tensor->sizes[0] == a && tensor->sizes[1] == b && tensor->sizes[2] == c &&
                    tensor->sizes[3] == d;
    INVALID_IF(!ok, "%s has sizes %s; it must be %s (%s).", name.c_str(), SizesToString(*tensor).c_str(),
               Sizes4(a, b, c, d).c_str(), meaning);
    return {};
}

Status ValidateRecurrent(const OperatorArgs& args) {
    const Common common = CommonOf(args);
    const RecurrentPlan plan = MakeRecurrentPlan(args);
    const char* op = args.schema.name;

    // Data types: every tensor but SequenceLengthsTensor is the input's FLOAT32 or FLOAT16.
    const auto kFloats = {DML_TENSOR_DATA_TYPE_FLOAT32, DML_TENSOR_DATA_TYPE_FLOAT16};
    const TensorDesc& input = *args.inputs[0];
    INVALID_IF(!DataTypeIn(kFloats, input.dataType), "InputTensor is %s; DML_OPERATOR_%s takes %s.",
               DataTypeName(input.dataType), op, DataTypeListToString(kFloats).c_str());
    auto checkType = [&](const std::optional<TensorDesc>& tensor, const std::string& name) -> Status {
        if (!tensor) return {};
        INVALID_IF(tensor->dataType != input.dataType, "%s is %s but InputTensor is %s; they must be the same type.",
                   name.c_str(), DataTypeName(tensor->dataType), DataTypeName(input.dataType));
        return {};
    };
    for (size_t i = 0; i < args.inputs.size(); ++i) {
        if (int(i) == plan.sequenceLengths) {
            if (args.inputs[i]) {
                INVALID_IF(args.inputs[i]->dataType != DML_TENSOR_DATA_TYPE_UINT32,
                           "SequenceLengthsTensor is %s; it must be UINT32.", DataTypeName(args.inputs[i]->dataType));
            }
            continue;
        }
        FREEDML_TRY(checkType(args.inputs[i], args.inputNames[i]));
    }
    for (size_t i = 0; i < args.outputs.size(); ++i) FREEDML_TRY(checkType(args.outputs[i], args.outputNames[i]));

    // The reference pages exclude the flag on these four (DirectML reads them as they are bound).
    for (size_t i = 0; i < 4; ++i) {
        INVALID_IF(args.inputs[i] && args.inputs[i]->OwnedByDml(),
                   "%s has DML_TENSOR_FLAG_OWNED_BY_DML; DML_OPERATOR_%s does not accept the flag on it.",
                   args.inputNames[i].c_str(), op);
    }

    INVALID_IF(common.direction > DML_RECURRENT_NETWORK_DIRECTION_BIDIRECTIONAL,
               "Direction (%u) is not a DML_RECURRENT_NETWORK_DIRECTION value.", common.direction);

    // Shapes: the input gives seq, batch and input; the weights give hidden.
    INVALID_IF(input.rank != 4 || input.sizes[0] != 1,
               "InputTensor has sizes %s; it must be 4-D {1, seq_length, batch_size, input_size}.",
               SizesToString(input).c_str());
    const TensorDesc& weight = *args.inputs[1];
    const uint32_t dirs = plan.dirs;
    const uint32_t g = common.gates;
    INVALID_IF(weight.rank != 4 || weight.sizes[0] != 1 || weight.sizes[1] != dirs || weight.sizes[2] % g != 0 ||
                   weight.sizes[2] == 0,
               "WeightTensor has sizes %s; it must be {1, num_directions (%u for Direction %s), %u * hidden_size, "
               "input_size}.",
               SizesToString(weight).c_str(), dirs, kDirection.NameOf(common.direction), g);
    const uint32_t seq = input.sizes[1], batch = input.sizes[2], in = input.sizes[3], h = weight.sizes[2] / g;
    INVALID_IF(weight.sizes[3] != in, "WeightTensor %s has input_size %u, but InputTensor %s has %u.",
               SizesToString(weight).c_str(), weight.sizes[3], SizesToString(input).c_str(), in);
    FREEDML_TRY(ExpectSizes(args.inputs[2], "RecurrenceTensor", 1, dirs, g * h, h,
                            "{1, num_directions, gates * hidden_size, hidden_size}"));
    FREEDML_TRY(ExpectSizes(args.inputs[plan.bias], "BiasTensor", 1, 1, dirs, 2 * g * h,
                            "{1, 1, num_directions, 2 * gates * hidden_size}"));
    FREEDML_TRY(ExpectSizes(args.inputs[plan.hiddenInit], "HiddenInitTensor", 1, dirs, batch, h,
                            "{1, num_directions, batch_size, hidden_size}"));
    if (plan.cellInit >= 0) {
        FREEDML_TRY(ExpectSizes(args.inputs[plan.cellInit], "CellMemInitTensor", 1, dirs, batch, h,
                                "{1, num_directions, batch_size, hidden_size}"));
    }
    FREEDML_TRY(ExpectSizes(args.inputs[plan.sequenceLengths], "SequenceLengthsTensor", 1, 1, 1, batch,
                            "{1, 1, 1, batch_size}"));
    if (plan.peephole >= 0) {
        FREEDML_TRY(ExpectSizes(args.inputs[plan.peephole], "PeepholeTensor", 1, 1, dirs, 3 * h,
                                "{1, 1, num_directions, 3 * hidden_size}"));
    }
    FREEDML_TRY(ExpectSizes(args.outputs[0], "OutputSequenceTensor", seq, dirs, batch, h,
                            "{seq_length, num_directions, batch_size, hidden_size}"));
    FREEDML_TRY(ExpectSizes(args.outputs[1], "OutputSingleTensor", 1, dirs, batch, h,
                            "{1, num_directions, batch_size, hidden_size}"));
    if (args.outputs.size() > 2) {
        FREEDML_TRY(ExpectSizes(args.outputs[2], "OutputCellSingleTensor", 1, dirs, batch, h,
                                "{1, num_directions, batch_size, hidden_size}"));
    }

    // Activations: a fixed number per direction, each one the ONNX operators allow.
    const uint32_t expected = common.activationsPerDirection * dirs;
    INVALID_IF(common.activationCount != expected,
               "ActivationDescCount is %u; DML_OPERATOR_%s with Direction %s takes %u (%u per direction).",
               common.activationCount, op, kDirection.NameOf(common.direction), expected,
               common.activationsPerDirection);
    for (uint32_t i = 0; i < common.activationCount; ++i) {
        const DML_OPERATOR_TYPE type = common.activations[i].Type;
        INVALID_IF(!IsRecurrentActivation(type),
                   "ActivationDescs[%u] is DML_OPERATOR_%s; a recurrent layer's activation is one of RELU, TANH, "
                   "SIGMOID, LINEAR, LEAKY_RELU, THRESHOLDED_RELU, SCALED_TANH, HARD_SIGMOID, ELU, SOFTSIGN or "
                   "SOFTPLUS.",
                   i, OperatorTypeName(type));
    }
    if (args.schema.type == DML_OPERATOR_LSTM) {
        const auto& d = args.As<DML_LSTM_OPERATOR_DESC>();
        INVALID_IF(d.UseClipThreshold && !(d.ClipThreshold >= 0.0f),
                   "ClipThreshold (%g) must be a number of at least 0 when UseClipThreshold is TRUE.",
                   double(d.ClipThreshold));
    }
    (void)seq;
    return {};
}

const OperatorSchema kRnn{
    .type = DML_OPERATOR_RNN,
    .name = "RNN",
    .featureLevel = DML_FEATURE_LEVEL_1_0,
    .descSize = sizeof(DML_RNN_OPERATOR_DESC),
    .fields = {DML_FIELD(DML_RNN_OPERATOR_DESC, InputTensor, InputTensor),
               DML_FIELD(DML_RNN_OPERATOR_DESC, WeightTensor, InputTensor),
               DML_FIELD(DML_RNN_OPERATOR_DESC, RecurrenceTensor, InputTensor),
               DML_FIELD(DML_RNN_OPERATOR_DESC, BiasTensor, InputTensor, .optional = true),
               DML_FIELD(DML_RNN_OPERATOR_DESC, HiddenInitTensor, InputTensor, .optional = true),
               DML_FIELD(DML_RNN_OPERATOR_DESC, SequenceLengthsTensor, InputTensor, .optional = true),
               DML_FIELD(DML_RNN_OPERATOR_DESC, OutputSequenceTensor, OutputTensor, .optional = true),
               DML_FIELD(DML_RNN_OPERATOR_DESC, OutputSingleTensor, OutputTensor, .optional = true),
               DML_FIELD(DML_RNN_OPERATOR_DESC, ActivationDescCount, UInt),
               DML_FIELD(DML_RNN_OPERATOR_DESC, ActivationDescs, OperatorDescArray,
                         .countField = "ActivationDescCount"),
               DML_FIELD(DML_RNN_OPERATOR_DESC, Direction, Enum, .enumType = &kDirection)},
    .validate = ValidateRecurrent,
};

const OperatorSchema kLstm{
    .type = DML_OPERATOR_LSTM,
    .name = "LSTM",
    .featureLevel = DML_FEATURE_LEVEL_1_0,
    .descSize = sizeof(DML_LSTM_OPERATOR_DESC),
    .fields = {DML_FIELD(DML_LSTM_OPERATOR_DESC, InputTensor, InputTensor),
               DML_FIELD(DML_LSTM_OPERATOR_DESC, WeightTensor, InputTensor),
               DML_FIELD(DML_LSTM_OPERATOR_DESC, RecurrenceTensor, InputTensor),
               DML_FIELD(DML_LSTM_OPERATOR_DESC, BiasTensor, InputTensor, .optional = true),
               DML_FIELD(DML_LSTM_OPERATOR_DESC, HiddenInitTensor, InputTensor, .optional = true),
               DML_FIELD(DML_LSTM_OPERATOR_DESC, CellMemInitTensor, InputTensor, .optional = true),
               DML_FIELD(DML_LSTM_OPERATOR_DESC, SequenceLengthsTensor, InputTensor, .optional = true),
               DML_FIELD(DML_LSTM_OPERATOR_DESC, PeepholeTensor, InputTensor, .optional = true),
               DML_FIELD(DML_LSTM_OPERATOR_DESC, OutputSequenceTensor, OutputTensor, .optional = true),
               DML_FIELD(DML_LSTM_OPERATOR_DESC, OutputSingleTensor, OutputTensor, .optional = true),
               DML_FIELD(DML_LSTM_OPERATOR_DESC, OutputCellSingleTensor, OutputTensor, .optional = true),
               DML_FIELD(DML_LSTM_OPERATOR_DESC, ActivationDescCount, UInt),
               DML_FIELD(DML_LSTM_OPERATOR_DESC, ActivationDescs, OperatorDescArray,
                         .countField = "ActivationDescCount"),
               DML_FIELD(DML_LSTM_OPERATOR_DESC, Direction, Enum, .enumType = &kDirection),
               DML_FIELD(DML_LSTM_OPERATOR_DESC, ClipThreshold, Float),
               DML_FIELD(DML_LSTM_OPERATOR_DESC, UseClipThreshold, Bool),
               DML_FIELD(DML_LSTM_OPERATOR_DESC, CoupleInputForget, Bool)},
    .validate = ValidateRecurrent,
};

const OperatorSchema kGru{
    .type = DML_OPERATOR_GRU,
    .name = "GRU",
    .featureLevel = DML_FEATURE_LEVEL_1_0,
    .descSize = sizeof(DML_GRU_OPERATOR_DESC),
    .fields = {DML_FIELD(DML_GRU_OPERATOR_DESC, InputTensor, InputTensor),
               DML_FIELD(DML_GRU_OPERATOR_DESC, WeightTensor, InputTensor),
               DML_FIELD(DML_GRU_OPERATOR_DESC, RecurrenceTensor, InputTensor),
               DML_FIELD(DML_GRU_OPERATOR_DESC, BiasTensor, InputTensor, .optional = true),
               DML_FIELD(DML_GRU_OPERATOR_DESC, HiddenInitTensor, InputTensor, .optional = true),
               DML_FIELD(DML_GRU_OPERATOR_DESC, SequenceLengthsTensor, InputTensor, .optional = true),
               DML_FIELD(DML_GRU_OPERATOR_DESC, OutputSequenceTensor, OutputTensor, .optional = true),
               DML_FIELD(DML_GRU_OPERATOR_DESC, OutputSingleTensor, OutputTensor, .optional = true),
               DML_FIELD(DML_GRU_OPERATOR_DESC, ActivationDescCount, UInt),
               DML_FIELD(DML_GRU_OPERATOR_DESC, ActivationDescs, OperatorDescArray,
                         .countField = "ActivationDescCount"),
               DML_FIELD(DML_GRU_OPERATOR_DESC, Direction, Enum, .enumType = &kDirection),
               DML_FIELD(DML_GRU_OPERATOR_DESC, LinearBeforeReset, Bool)},
    .validate = ValidateRecurrent,
};

const OperatorSchema* const kSchemas[] = {&kRnn, &kLstm, &kGru};

}  // namespace

RecurrentPlan MakeRecurrentPlan(const OperatorArgs& args) {
    const Common common = CommonOf(args);
    RecurrentPlan plan;
    plan.cell = common.cell;
    plan.gates = common.gates;
    plan.dirs = common.direction == DML_RECURRENT_NETWORK_DIRECTION_BIDIRECTIONAL ? 2 : 1;
    plan.backward[0] = common.direction == DML_RECURRENT_NETWORK_DIRECTION_BACKWARD;
    plan.backward[1] = true;
    if (plan.cell == RecurrentCell::Lstm) {
        const auto& d = args.As<DML_LSTM_OPERATOR_DESC>();
        plan.cellInit = 5, plan.sequenceLengths = 6, plan.peephole = 7;
        plan.useClip = d.UseClipThreshold != FALSE;
        plan.clip = d.ClipThreshold;
        plan.coupleInputForget = d.CoupleInputForget != FALSE;
    } else if (plan.cell == RecurrentCell::Gru) {
        plan.linearBeforeReset = args.As<DML_GRU_OPERATOR_DESC>().LinearBeforeReset != FALSE;
    }
    const TensorDesc& input = *args.inputs[0];
    const TensorDesc& weight = *args.inputs[1];
    plan.dataType = input.dataType;
    if (input.rank == 4) plan.seq = input.sizes[1], plan.batch = input.sizes[2], plan.input = input.sizes[3];
    if (weight.rank == 4) plan.hidden = weight.sizes[2] / plan.gates;
    const uint32_t perDirection = common.gates == 4 ? 3 : common.gates == 3 ? 2 : 1;
    for (uint32_t d = 0; d < plan.dirs; ++d) {
        for (uint32_t a = 0; a < perDirection; ++a) {
            const uint32_t i = d * perDirection + a;
            if (i >= common.activationCount || !common.activations) continue;
            // The desc was validated (a known activation type), so the decode succeeds.
            (void)DecodeFusedActivation(&common.activations[i], &plan.activations[d][a]);
        }
    }
    return plan;
}

std::span<const OperatorSchema* const> RecurrentSchemas() { return kSchemas; }

}  // namespace freedml::dml
