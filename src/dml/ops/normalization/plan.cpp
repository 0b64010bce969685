// BuildNormPlan (norm_args.h): which dimensions each operator reduces, where its statistics come
// from, and every operand's strides in the plan's dimension order.
#include "dml/ops/normalization/norm_args.h"

namespace freedml::dml {

void NormSlots(DML_OPERATOR_TYPE type, int (&slots)[kNormOperands]) {
    for (int& s : slots) s = -1;
    slots[kNormIn] = 0;
    slots[kNormOut] = 0;
    switch (type) {
        case DML_OPERATOR_LOCAL_RESPONSE_NORMALIZATION_GRAD:
            slots[kNormGradient] = 1;
            break;
        case DML_OPERATOR_BATCH_NORMALIZATION_GRAD:
        case DML_OPERATOR_BATCH_NORMALIZATION_TRAINING_GRAD:
            slots[kNormGradient] = 1, slots[kNormMean] = 2, slots[kNormVariance] = 3, slots[kNormScale] = 4;
            slots[kNormOutScaleGradient] = 1, slots[kNormOutBiasGradient] = 2;
            break;
        case DML_OPERATOR_BATCH_NORMALIZATION_TRAINING:
            slots[kNormScale] = 1, slots[kNormBias] = 2, slots[kNormAdd] = 3;
            slots[kNormOutMean] = 1, slots[kNormOutVariance] = 2;
            break;
        case DML_OPERATOR_BATCH_NORMALIZATION:
            slots[kNormMean] = 1, slots[kNormVariance] = 2, slots[kNormScale] = 3, slots[kNormBias] = 4;
            break;
        case DML_OPERATOR_MEAN_VARIANCE_NORMALIZATION:
        case DML_OPERATOR_MEAN_VARIANCE_NORMALIZATION1:
        case DML_OPERATOR_MEAN_VARIANCE_NORMALIZATION2:
            slots[kNormScale] = 1, slots[kNormBias] = 2;
            break;
        default:
            break;
    }
}

Status BuildNormPlan(const OperatorArgs& args, NormPlan* plan, const DML_OPERATOR_DESC** fusedActivation) {
    NormPlan p;
    const TensorDesc& input = *args.inputs[0];
    const uint32_t rank = input.rank;
    bool reduced[kMaxTensorRank] = {};
    int slot[kNormOperands];
    NormSlots(args.schema.type, slot);
    *fusedActivation = nullptr;
    switch (args.schema.type) {
        case DML_OPERATOR_BATCH_NORMALIZATION: {
            const auto& d = args.As<DML_BATCH_NORMALIZATION_OPERATOR_DESC>();
            p.mode = NormMode::GivenStatistics;
            p.epsilon = d.Epsilon;
            *fusedActivation = d.FusedActivation;
            break;
        }
        case DML_OPERATOR_BATCH_NORMALIZATION_GRAD: {
            const auto& d = args.As<DML_BATCH_NORMALIZATION_GRAD_OPERATOR_DESC>();
            const TensorDesc& scale = *args.inputs[4];
            for (uint32_t a = 0; a < rank; ++a) reduced[a] = scale.sizes[a] == 1;
            p.mode = NormMode::Gradient;
            p.epsilon = d.Epsilon;
            break;
        }
        case DML_OPERATOR_BATCH_NORMALIZATION_TRAINING_GRAD: {
            const auto& d = args.As<DML_BATCH_NORMALIZATION_TRAINING_GRAD_OPERATOR_DESC>();
            const TensorDesc& scale = *args.inputs[4];
            for (uint32_t a = 0; a < rank; ++a) reduced[a] = scale.sizes[a] == 1;
            p.mode = NormMode::Gradient;
            p.training = true;
            p.epsilon = d.Epsilon;
            break;
        }
        case DML_OPERATOR_BATCH_NORMALIZATION_TRAINING: {
            const auto& d = args.As<DML_BATCH_NORMALIZATION_TRAINING_OPERATOR_DESC>();
            const TensorDesc& scale = *args.inputs[1];
            for (uint32_t a = 0; a < rank; ++a) reduced[a] = scale.sizes[a] == 1;
            p.epsilon = d.Epsilon;
            *fusedActivation = d.FusedActivation;
            break;
        }
        case DML_OPERATOR_MEAN_VARIANCE_NORMALIZATION: {
            const auto& d = args.As<DML_MEAN_VARIANCE_NORMALIZATION_OPERATOR_DESC>();
            for (uint32_t a = d.CrossChannel ? 1 : 2; a < rank; ++a) reduced[a] = true;
            p.useVariance = d.NormalizeVariance;
            p.epsilon = d.Epsilon;
            *fusedActivation = d.FusedActivation;
            break;
        }
        case DML_OPERATOR_MEAN_VARIANCE_NORMALIZATION1: {
            const auto& d = args.As<DML_MEAN_VARIANCE_NORMALIZATION1_OPERATOR_DESC>();
            for (uint32_t i = 0; i < d.AxisCount; ++i) reduced[d.Axes[i]] = true;
            p.useVariance = d.NormalizeVariance;
            p.epsilon = d.Epsilon;
            *fusedActivation = d.FusedActivation;
            break;
        }
        case DML_OPERATOR_MEAN_VARIANCE_NORMALIZATION2: {
            const auto& d = args.As<DML_MEAN_VARIANCE_NORMALIZATION2_OPERATOR_DESC>();
            for (uint32_t i = 0; i < d.AxisCount; ++i) reduced[d.Axes[i]] = true;
            p.useMean = d.UseMean;
            p.useVariance = d.UseVariance;
            p.epsilon = d.Epsilon;
            *fusedActivation = d.FusedActivation;
            break;
        }
        case DML_OPERATOR_LP_NORMALIZATION: {
            const auto& d = args.As<DML_LP_NORMALIZATION_OPERATOR_DESC>();
            reduced[d.Axis] = true;
            p.useMean = false;
            p.p = d.P;
            p.epsilon = d.Epsilon;
            break;
        }
        case DML_OPERATOR_LOCAL_RESPONSE_NORMALIZATION: {
            const auto& d = args.As<DML_LOCAL_RESPONSE_NORMALIZATION_OPERATOR_DESC>();
            p.mode = NormMode::LocalResponse;
            p.crossChannel = d.CrossChannel;
            p.localSize = d.LocalSize;
            p.alpha = d.Alpha;
            p.beta = d.Beta;
            p.bias = d.Bias;
            break;
        }
        case DML_OPERATOR_LOCAL_RESPONSE_NORMALIZATION_GRAD: {
            const auto& d = args.As<DML_LOCAL_RESPONSE_NORMALIZATION_GRAD_OPERATOR_DESC>();
            p.mode = NormMode::LocalResponse;
            p.crossChannel = d.CrossChannel;
            p.localSize = d.LocalSize;
            p.alpha = d.Alpha;
            p.beta = d.Beta;
            p.bias = d.Bias;
            break;
        }
        default:
            return NoKernel("DML_OPERATOR_%s is not a normalization operator.", args.schema.name);
    }
    p.half = input.dataType == DML_TENSOR_DATA_TYPE_FLOAT16;
    // Kept dimensions first, then the reduced ones, each in the tensor's order.
    uint32_t order[kMaxTensorRank];
    int n = 0;
    for (uint32_t d = 0; d < rank; ++d)
        if (!reduced[d]) order[n++] = d;
    p.groupRank = n;
    // Given statistics reduce nothing; the last dimension still runs as the inner loop, so that a
    // row's offsets are found once.
    if (p.mode == NormMode::GivenStatistics && n > 0) p.groupRank = n - 1;
    for (uint32_t d = 0; d < rank; ++d)
        if (reduced[d]) order[n++] = d;
    p.rank = n;
    const TensorDesc* operands[kNormOperands] = {};
    for (int o = 0; o < kNormOperands; ++o) {
        if (slot[o] < 0) continue;
        const auto& tensors = NormIsOutput(o) ? args.outputs : args.inputs;
        if (tensors[size_t(slot[o])]) operands[o] = &*tensors[size_t(slot[o])];
    }
    for (int i = 0; i < n; ++i) {
        const uint32_t d = order[i];
        p.sizes[i] = input.sizes[d];
        if (i < p.groupRank) {
            p.groups *= input.sizes[d];  // (GivenStatistics' last dimension counts as the group's)
        } else {
            p.groupSize *= input.sizes[d];
        }
        for (int o = 0; o < kNormOperands; ++o) {
            const TensorDesc* t = operands[o];
            if (!t) continue;
            p.has[o] = true;
            p.strides[o][i] = t->sizes[d] == 1 ? 0 : int64_t(t->strides[d]);
        }
    }
    *plan = p;
    return {};
}

}  // namespace freedml::dml
