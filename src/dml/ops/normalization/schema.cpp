// Normalization operators: BATCH_NORMALIZATION (statistics given as tensors),
// BATCH_NORMALIZATION_TRAINING (statistics computed over the dimensions ScaleTensor broadcasts, and
// written out), BATCH_NORMALIZATION_GRAD (its gradients with the statistics held fixed),
// BATCH_NORMALIZATION_TRAINING_GRAD (with the statistics depending on the input), the
// MEAN_VARIANCE_NORMALIZATION forms (statistics computed over a set of axes: {C,H,W} or {H,W} for
// the first, Axes for 1 and 2; 2 can skip the mean or the variance), LOCAL_RESPONSE_NORMALIZATION
// (a window over channels or over height and width) with its gradient, and LP_NORMALIZATION (the
// L1 or L2 norm along one axis).
//
// Every tensor is FLOAT32 or FLOAT16 and of one data type; the output has the input's sizes. The
// optional Scale, Bias, Mean and Variance tensors have the input's rank, each dimension 1 (broadcast)
// or the input's size (the reference pages).
#include "dml/schema/families.h"

namespace freedml::dml {

namespace {

Status ValidateCommon(const OperatorArgs& args, uint32_t minRank, uint32_t maxRank) {
    FREEDML_TRY(ValidateDataTypeIn(args, {DML_TENSOR_DATA_TYPE_FLOAT32, DML_TENSOR_DATA_TYPE_FLOAT16}));
    FREEDML_TRY(ValidateSameDataType(args));
    const TensorDesc& input = *args.inputs[0];
    const TensorDesc& output = *args.outputs[0];
    INVALID_IF(input.rank < minRank || input.rank > maxRank,
               "InputTensor has DimensionCount %u; DML_OPERATOR_%s accepts %u to %u.", input.rank, args.schema.name,
               minRank, maxRank);
    bool same = output.rank == input.rank;
    for (uint32_t d = 0; same && d < input.rank; ++d) same = output.sizes[d] == input.sizes[d];
    INVALID_IF(!same, "OutputTensor has sizes %s, but InputTensor has %s; they must match.",
               SizesToString(output).c_str(), SizesToString(input).c_str());
    // Every other input broadcasts to InputTensor.
    for (size_t i = 1; i < args.inputs.size(); ++i) {
        if (!args.inputs[i]) continue;
        const TensorDesc& t = *args.inputs[i];
        bool ok = t.rank == input.rank;
        for (uint32_t d = 0; ok && d < input.rank; ++d) ok = t.sizes[d] == 1 || t.sizes[d] == input.sizes[d];
        INVALID_IF(!ok,
                   "%s has sizes %s; with InputTensor %s it must have %u dimensions, each 1 or InputTensor's size.",
                   args.inputNames[i].c_str(), SizesToString(t).c_str(), SizesToString(input).c_str(), input.rank);
    }
    return {};
}

// Below DML_FEATURE_LEVEL_5_2 ScaleTensor and BiasTensor come together or not at all.
Status ValidateScaleBiasPair(const OperatorArgs& args) {
    const bool scale = bool(args.inputs[1]), bias = bool(args.inputs[2]);
    INVALID_IF(scale != bias && args.featureLevel < DML_FEATURE_LEVEL_5_2,
               "%s is given without %s; below DML_FEATURE_LEVEL_5_2 the two come together.",
               scale ? "ScaleTensor" : "BiasTensor", scale ? "BiasTensor" : "ScaleTensor");
    return {};
}

Status ValidateAxes(const OperatorArgs& args, uint32_t axisCount, const UINT* axes) {
    const uint32_t rank = args.inputs[0]->rank;
    INVALID_IF(axisCount == 0 || axisCount > rank, "AxisCount (%u) must be 1 to InputTensor's DimensionCount (%u).",
               axisCount, rank);
    INVALID_IF(!axes, "Axes is null but AxisCount is %u.", axisCount);
    bool seen[kMaxTensorRank] = {};
    for (uint32_t i = 0; i < axisCount; ++i) {
        INVALID_IF(axes[i] >= rank, "Axes[%u] (%u) is outside [0, %u), InputTensor's dimensions.", i, axes[i], rank);
        INVALID_IF(seen[axes[i]], "Axes[%u] (%u) repeats an axis; each axis may appear once.", i, axes[i]);
        seen[axes[i]] = true;
    }
    return {};
}

Status ValidateBatchNormalization(const OperatorArgs& args) {
    FREEDML_TRY(ValidateCommon(args, 1, 8));
    // Spatial is deprecated from DML_FEATURE_LEVEL_4_0 and has no effect: the statistics'
    // sizes say what they broadcast over.
    return {};
}

// Mean and variance over the dimensions where ScaleTensor has size 1; BiasTensor,
// OutputMeanTensor and OutputVarianceTensor have ScaleTensor's sizes.
Status ValidateBatchNormalizationTraining(const OperatorArgs& args) {
    FREEDML_TRY(ValidateCommon(args, 1, 8));
    const TensorDesc& scale = *args.inputs[1];
    const TensorDesc* same[] = {&*args.inputs[2], &*args.outputs[1], &*args.outputs[2]};
    const char* names[] = {"BiasTensor", "OutputMeanTensor", "OutputVarianceTensor"};
    for (int i = 0; i < 3; ++i) {
        bool ok = same[i]->rank == scale.rank;
        for (uint32_t d = 0; ok && d < scale.rank; ++d) ok = same[i]->sizes[d] == scale.sizes[d];
        INVALID_IF(!ok, "%s has sizes %s, but ScaleTensor has %s; they must match.", names[i],
                   SizesToString(*same[i]).c_str(), SizesToString(scale).c_str());
    }
    return {};
}

// Sums over the dimensions where ScaleTensor has size 1; MeanTensor, VarianceTensor and the two
// parameter gradients have ScaleTensor's sizes, InputGradientTensor the input's.
Status ValidateBatchNormalizationGrad(const OperatorArgs& args) {
    FREEDML_TRY(ValidateCommon(args, 1, 8));
    const TensorDesc& input = *args.inputs[0];
    const TensorDesc& gradient = *args.inputs[1];
    bool same = gradient.rank == input.rank;
    for (uint32_t d = 0; same && d < input.rank; ++d) same = gradient.sizes[d] == input.sizes[d];
    INVALID_IF(!same, "InputGradientTensor has sizes %s, but InputTensor has %s; they must match.",
               SizesToString(gradient).c_str(), SizesToString(input).c_str());
    const TensorDesc& scale = *args.inputs[4];
    const TensorDesc* others[] = {&*args.inputs[2], &*args.inputs[3], &*args.outputs[1], &*args.outputs[2]};
    const char* names[] = {"MeanTensor", "VarianceTensor", "OutputScaleGradientTensor", "OutputBiasGradientTensor"};
    for (int i = 0; i < 4; ++i) {
        bool ok = others[i]->rank == scale.rank;
        for (uint32_t d = 0; ok && d < scale.rank; ++d) ok = others[i]->sizes[d] == scale.sizes[d];
        INVALID_IF(!ok, "%s has sizes %s, but ScaleTensor has %s; they must match.", names[i],
                   SizesToString(*others[i]).c_str(), SizesToString(scale).c_str());
    }
    return {};
}

Status ValidateMeanVarianceNormalization(const OperatorArgs& args) {
    FREEDML_TRY(ValidateCommon(args, 4, 5));
    return ValidateScaleBiasPair(args);
}

Status ValidateMeanVarianceNormalization1(const OperatorArgs& args) {
    const auto& desc = args.As<DML_MEAN_VARIANCE_NORMALIZATION1_OPERATOR_DESC>();
    FREEDML_TRY(ValidateCommon(args, 1, 8));
    FREEDML_TRY(ValidateScaleBiasPair(args));
    return ValidateAxes(args, desc.AxisCount, desc.Axes);
}

Status ValidateMeanVarianceNormalization2(const OperatorArgs& args) {
    const auto& desc = args.As<DML_MEAN_VARIANCE_NORMALIZATION2_OPERATOR_DESC>();
    FREEDML_TRY(ValidateCommon(args, 1, 8));
    return ValidateAxes(args, desc.AxisCount, desc.Axes);
}

Status ValidateLocalResponseNormalization(const OperatorArgs& args) {
    const auto& desc = args.As<DML_LOCAL_RESPONSE_NORMALIZATION_OPERATOR_DESC>();
    FREEDML_TRY(ValidateCommon(args, 4, 4));
    INVALID_IF(desc.LocalSize == 0, "LocalSize is 0; it must be at least 1.");
    return {};
}

Status ValidateLocalResponseNormalizationGrad(const OperatorArgs& args) {
    const auto& desc = args.As<DML_LOCAL_RESPONSE_NORMALIZATION_GRAD_OPERATOR_DESC>();
    FREEDML_TRY(ValidateCommon(args, 4, 4));
    const TensorDesc& input = *args.inputs[0];
    const TensorDesc& gradient = *args.inputs[1];
    bool same = gradient.rank == input.rank;
    for (uint32_t d = 0; same && d < input.rank; ++d) same = gradient.sizes[d] == input.sizes[d];
    INVALID_IF(!same, "InputGradientTensor has sizes %s, but InputTensor has %s; they must match.",
               SizesToString(gradient).c_str(), SizesToString(input).c_str());
    INVALID_IF(desc.LocalSize == 0, "LocalSize is 0; it must be at least 1.");
    return {};
}

Status ValidateLpNormalization(const OperatorArgs& args) {
    const auto& desc = args.As<DML_LP_NORMALIZATION_OPERATOR_DESC>();
    FREEDML_TRY(ValidateCommon(args, 1, 8));
    INVALID_IF(desc.Axis >= args.inputs[0]->rank, "Axis (%u) is outside [0, %u), InputTensor's dimensions.",
               desc.Axis, args.inputs[0]->rank);
    INVALID_IF(desc.P != 1 && desc.P != 2, "P is %u; it must be 1 or 2.", desc.P);
    return {};
}

const OperatorSchema kBatchNormalization{
    .type = DML_OPERATOR_BATCH_NORMALIZATION,
    .name = "BATCH_NORMALIZATION",
    .featureLevel = DML_FEATURE_LEVEL_1_0,
    .descSize = sizeof(DML_BATCH_NORMALIZATION_OPERATOR_DESC),
    .fields = {DML_FIELD(DML_BATCH_NORMALIZATION_OPERATOR_DESC, InputTensor, InputTensor),
               DML_FIELD(DML_BATCH_NORMALIZATION_OPERATOR_DESC, MeanTensor, InputTensor),
               DML_FIELD(DML_BATCH_NORMALIZATION_OPERATOR_DESC, VarianceTensor, InputTensor),
               DML_FIELD(DML_BATCH_NORMALIZATION_OPERATOR_DESC, ScaleTensor, InputTensor),
               DML_FIELD(DML_BATCH_NORMALIZATION_OPERATOR_DESC, BiasTensor, InputTensor),
               DML_FIELD(DML_BATCH_NORMALIZATION_OPERATOR_DESC, OutputTensor, OutputTensor),
               DML_FIELD(DML_BATCH_NORMALIZATION_OPERATOR_DESC, Spatial, Bool),
               DML_FIELD(DML_BATCH_NORMALIZATION_OPERATOR_DESC, Epsilon, Float),
               DML_FIELD(DML_BATCH_NORMALIZATION_OPERATOR_DESC, FusedActivation, OperatorDesc, .optional = true)},
    .validate = ValidateBatchNormalization,
};

const OperatorSchema kBatchNormalizationTraining{
    .type = DML_OPERATOR_BATCH_NORMALIZATION_TRAINING,
    .name = "BATCH_NORMALIZATION_TRAINING",
    .featureLevel = DML_FEATURE_LEVEL_4_1,
    .descSize = sizeof(DML_BATCH_NORMALIZATION_TRAINING_OPERATOR_DESC),
    .fields = {DML_FIELD(DML_BATCH_NORMALIZATION_TRAINING_OPERATOR_DESC, InputTensor, InputTensor),
               DML_FIELD(DML_BATCH_NORMALIZATION_TRAINING_OPERATOR_DESC, ScaleTensor, InputTensor),
               DML_FIELD(DML_BATCH_NORMALIZATION_TRAINING_OPERATOR_DESC, BiasTensor, InputTensor),
               DML_FIELD(DML_BATCH_NORMALIZATION_TRAINING_OPERATOR_DESC, FusedAddTensor, InputTensor, .optional = true),
               DML_FIELD(DML_BATCH_NORMALIZATION_TRAINING_OPERATOR_DESC, OutputTensor, OutputTensor),
               DML_FIELD(DML_BATCH_NORMALIZATION_TRAINING_OPERATOR_DESC, OutputMeanTensor, OutputTensor),
               DML_FIELD(DML_BATCH_NORMALIZATION_TRAINING_OPERATOR_DESC, OutputVarianceTensor, OutputTensor),
               DML_FIELD(DML_BATCH_NORMALIZATION_TRAINING_OPERATOR_DESC, Epsilon, Float),
               DML_FIELD(DML_BATCH_NORMALIZATION_TRAINING_OPERATOR_DESC, FusedActivation, OperatorDesc,
                         .optional = true)},
    .validate = ValidateBatchNormalizationTraining,
};

const OperatorSchema kBatchNormalizationGrad{
    .type = DML_OPERATOR_BATCH_NORMALIZATION_GRAD,
    .name = "BATCH_NORMALIZATION_GRAD",
    .featureLevel = DML_FEATURE_LEVEL_3_1,
    .descSize = sizeof(DML_BATCH_NORMALIZATION_GRAD_OPERATOR_DESC),
    .fields = {DML_FIELD(DML_BATCH_NORMALIZATION_GRAD_OPERATOR_DESC, InputTensor, InputTensor),
               DML_FIELD(DML_BATCH_NORMALIZATION_GRAD_OPERATOR_DESC, InputGradientTensor, InputTensor),
               DML_FIELD(DML_BATCH_NORMALIZATION_GRAD_OPERATOR_DESC, MeanTensor, InputTensor),
               DML_FIELD(DML_BATCH_NORMALIZATION_GRAD_OPERATOR_DESC, VarianceTensor, InputTensor),
               DML_FIELD(DML_BATCH_NORMALIZATION_GRAD_OPERATOR_DESC, ScaleTensor, InputTensor),
               DML_FIELD(DML_BATCH_NORMALIZATION_GRAD_OPERATOR_DESC, OutputGradientTensor, OutputTensor),
               DML_FIELD(DML_BATCH_NORMALIZATION_GRAD_OPERATOR_DESC, OutputScaleGradientTensor, OutputTensor),
               DML_FIELD(DML_BATCH_NORMALIZATION_GRAD_OPERATOR_DESC, OutputBiasGradientTensor, OutputTensor),
               DML_FIELD(DML_BATCH_NORMALIZATION_GRAD_OPERATOR_DESC, Epsilon, Float)},
    .validate = ValidateBatchNormalizationGrad,
};

const OperatorSchema kBatchNormalizationTrainingGrad{
    .type = DML_OPERATOR_BATCH_NORMALIZATION_TRAINING_GRAD,
    .name = "BATCH_NORMALIZATION_TRAINING_GRAD",
    .featureLevel = DML_FEATURE_LEVEL_4_1,
    .descSize = sizeof(DML_BATCH_NORMALIZATION_TRAINING_GRAD_OPERATOR_DESC),
    .fields = {DML_FIELD(DML_BATCH_NORMALIZATION_TRAINING_GRAD_OPERATOR_DESC, InputTensor, InputTensor),
               DML_FIELD(DML_BATCH_NORMALIZATION_TRAINING_GRAD_OPERATOR_DESC, InputGradientTensor, InputTensor),
               DML_FIELD(DML_BATCH_NORMALIZATION_TRAINING_GRAD_OPERATOR_DESC, MeanTensor, InputTensor),
               DML_FIELD(DML_BATCH_NORMALIZATION_TRAINING_GRAD_OPERATOR_DESC, VarianceTensor, InputTensor),
               DML_FIELD(DML_BATCH_NORMALIZATION_TRAINING_GRAD_OPERATOR_DESC, ScaleTensor, InputTensor),
               DML_FIELD(DML_BATCH_NORMALIZATION_TRAINING_GRAD_OPERATOR_DESC, OutputGradientTensor, OutputTensor),
               DML_FIELD(DML_BATCH_NORMALIZATION_TRAINING_GRAD_OPERATOR_DESC, OutputScaleGradientTensor, OutputTensor),
               DML_FIELD(DML_BATCH_NORMALIZATION_TRAINING_GRAD_OPERATOR_DESC, OutputBiasGradientTensor, OutputTensor),
               DML_FIELD(DML_BATCH_NORMALIZATION_TRAINING_GRAD_OPERATOR_DESC, Epsilon, Float)},
    .validate = ValidateBatchNormalizationGrad,  // the same tensors and shape rules
};

const OperatorSchema kMeanVarianceNormalization{
    .type = DML_OPERATOR_MEAN_VARIANCE_NORMALIZATION,
    .name = "MEAN_VARIANCE_NORMALIZATION",
    .featureLevel = DML_FEATURE_LEVEL_1_0,
    .descSize = sizeof(DML_MEAN_VARIANCE_NORMALIZATION_OPERATOR_DESC),
    .fields = {DML_FIELD(DML_MEAN_VARIANCE_NORMALIZATION_OPERATOR_DESC, InputTensor, InputTensor),
               DML_FIELD(DML_MEAN_VARIANCE_NORMALIZATION_OPERATOR_DESC, ScaleTensor, InputTensor, .optional = true),
               DML_FIELD(DML_MEAN_VARIANCE_NORMALIZATION_OPERATOR_DESC, BiasTensor, InputTensor, .optional = true),
               DML_FIELD(DML_MEAN_VARIANCE_NORMALIZATION_OPERATOR_DESC, OutputTensor, OutputTensor),
               DML_FIELD(DML_MEAN_VARIANCE_NORMALIZATION_OPERATOR_DESC, CrossChannel, Bool),
               DML_FIELD(DML_MEAN_VARIANCE_NORMALIZATION_OPERATOR_DESC, NormalizeVariance, Bool),
               DML_FIELD(DML_MEAN_VARIANCE_NORMALIZATION_OPERATOR_DESC, Epsilon, Float),
               DML_FIELD(DML_MEAN_VARIANCE_NORMALIZATION_OPERATOR_DESC, FusedActivation, OperatorDesc,
                         .optional = true)},
    .validate = ValidateMeanVarianceNormalization,
};

const OperatorSchema kMeanVarianceNormalization1{
    .type = DML_OPERATOR_MEAN_VARIANCE_NORMALIZATION1,
    .name = "MEAN_VARIANCE_NORMALIZATION1",
    .featureLevel = DML_FEATURE_LEVEL_2_1,
    .descSize = sizeof(DML_MEAN_VARIANCE_NORMALIZATION1_OPERATOR_DESC),
    .fields = {DML_FIELD(DML_MEAN_VARIANCE_NORMALIZATION1_OPERATOR_DESC, InputTensor, InputTensor),
               DML_FIELD(DML_MEAN_VARIANCE_NORMALIZATION1_OPERATOR_DESC, ScaleTensor, InputTensor, .optional = true),
               DML_FIELD(DML_MEAN_VARIANCE_NORMALIZATION1_OPERATOR_DESC, BiasTensor, InputTensor, .optional = true),
               DML_FIELD(DML_MEAN_VARIANCE_NORMALIZATION1_OPERATOR_DESC, OutputTensor, OutputTensor),
               DML_FIELD(DML_MEAN_VARIANCE_NORMALIZATION1_OPERATOR_DESC, AxisCount, UInt),
               DML_FIELD(DML_MEAN_VARIANCE_NORMALIZATION1_OPERATOR_DESC, Axes, UIntArray, .countField = "AxisCount"),
               DML_FIELD(DML_MEAN_VARIANCE_NORMALIZATION1_OPERATOR_DESC, NormalizeVariance, Bool),
               DML_FIELD(DML_MEAN_VARIANCE_NORMALIZATION1_OPERATOR_DESC, Epsilon, Float),
               DML_FIELD(DML_MEAN_VARIANCE_NORMALIZATION1_OPERATOR_DESC, FusedActivation, OperatorDesc,
                         .optional = true)},
    .validate = ValidateMeanVarianceNormalization1,
};

const OperatorSchema kMeanVarianceNormalization2{
    .type = DML_OPERATOR_MEAN_VARIANCE_NORMALIZATION2,
    .name = "MEAN_VARIANCE_NORMALIZATION2",
    .featureLevel = DML_FEATURE_LEVEL_6_3,
    .descSize = sizeof(DML_MEAN_VARIANCE_NORMALIZATION2_OPERATOR_DESC),
    .fields = {DML_FIELD(DML_MEAN_VARIANCE_NORMALIZATION2_OPERATOR_DESC, InputTensor, InputTensor),
               DML_FIELD(DML_MEAN_VARIANCE_NORMALIZATION2_OPERATOR_DESC, ScaleTensor, InputTensor, .optional = true),
               DML_FIELD(DML_MEAN_VARIANCE_NORMALIZATION2_OPERATOR_DESC, BiasTensor, InputTensor, .optional = true),
               DML_FIELD(DML_MEAN_VARIANCE_NORMALIZATION2_OPERATOR_DESC, OutputTensor, OutputTensor),
               DML_FIELD(DML_MEAN_VARIANCE_NORMALIZATION2_OPERATOR_DESC, AxisCount, UInt),
               DML_FIELD(DML_MEAN_VARIANCE_NORMALIZATION2_OPERATOR_DESC, Axes, UIntArray, .countField = "AxisCount"),
               DML_FIELD(DML_MEAN_VARIANCE_NORMALIZATION2_OPERATOR_DESC, UseMean, Bool),
               DML_FIELD(DML_MEAN_VARIANCE_NORMALIZATION2_OPERATOR_DESC, UseVariance, Bool),
               DML_FIELD(DML_MEAN_VARIANCE_NORMALIZATION2_OPERATOR_DESC, Epsilon, Float),
               DML_FIELD(DML_MEAN_VARIANCE_NORMALIZATION2_OPERATOR_DESC, FusedActivation, OperatorDesc,
                         .optional = true)},
    .validate = ValidateMeanVarianceNormalization2,
};

const OperatorSchema kLocalResponseNormalization{
    .type = DML_OPERATOR_LOCAL_RESPONSE_NORMALIZATION,
    .name = "LOCAL_RESPONSE_NORMALIZATION",
    .featureLevel = DML_FEATURE_LEVEL_1_0,
    .descSize = sizeof(DML_LOCAL_RESPONSE_NORMALIZATION_OPERATOR_DESC),
    .fields = {DML_FIELD(DML_LOCAL_RESPONSE_NORMALIZATION_OPERATOR_DESC, InputTensor, InputTensor),
               DML_FIELD(DML_LOCAL_RESPONSE_NORMALIZATION_OPERATOR_DESC, OutputTensor, OutputTensor),
               DML_FIELD(DML_LOCAL_RESPONSE_NORMALIZATION_OPERATOR_DESC, CrossChannel, Bool),
               DML_FIELD(DML_LOCAL_RESPONSE_NORMALIZATION_OPERATOR_DESC, LocalSize, UInt),
               DML_FIELD(DML_LOCAL_RESPONSE_NORMALIZATION_OPERATOR_DESC, Alpha, Float),
               DML_FIELD(DML_LOCAL_RESPONSE_NORMALIZATION_OPERATOR_DESC, Beta, Float),
               DML_FIELD(DML_LOCAL_RESPONSE_NORMALIZATION_OPERATOR_DESC, Bias, Float)},
    .validate = ValidateLocalResponseNormalization,
};

const OperatorSchema kLocalResponseNormalizationGrad{
    .type = DML_OPERATOR_LOCAL_RESPONSE_NORMALIZATION_GRAD,
    .name = "LOCAL_RESPONSE_NORMALIZATION_GRAD",
    .featureLevel = DML_FEATURE_LEVEL_3_1,
    .descSize = sizeof(DML_LOCAL_RESPONSE_NORMALIZATION_GRAD_OPERATOR_DESC),
    .fields = {DML_FIELD(DML_LOCAL_RESPONSE_NORMALIZATION_GRAD_OPERATOR_DESC, InputTensor, InputTensor),
               DML_FIELD(DML_LOCAL_RESPONSE_NORMALIZATION_GRAD_OPERATOR_DESC, InputGradientTensor, InputTensor),
               DML_FIELD(DML_LOCAL_RESPONSE_NORMALIZATION_GRAD_OPERATOR_DESC, OutputGradientTensor, OutputTensor),
               DML_FIELD(DML_LOCAL_RESPONSE_NORMALIZATION_GRAD_OPERATOR_DESC, CrossChannel, Bool),
               DML_FIELD(DML_LOCAL_RESPONSE_NORMALIZATION_GRAD_OPERATOR_DESC, LocalSize, UInt),
               DML_FIELD(DML_LOCAL_RESPONSE_NORMALIZATION_GRAD_OPERATOR_DESC, Alpha, Float),
               DML_FIELD(DML_LOCAL_RESPONSE_NORMALIZATION_GRAD_OPERATOR_DESC, Beta, Float),
               DML_FIELD(DML_LOCAL_RESPONSE_NORMALIZATION_GRAD_OPERATOR_DESC, Bias, Float)},
    .validate = ValidateLocalResponseNormalizationGrad,
};

const OperatorSchema kLpNormalization{
    .type = DML_OPERATOR_LP_NORMALIZATION,
    .name = "LP_NORMALIZATION",
    .featureLevel = DML_FEATURE_LEVEL_1_0,
    .descSize = sizeof(DML_LP_NORMALIZATION_OPERATOR_DESC),
    .fields = {DML_FIELD(DML_LP_NORMALIZATION_OPERATOR_DESC, InputTensor, InputTensor),
               DML_FIELD(DML_LP_NORMALIZATION_OPERATOR_DESC, OutputTensor, OutputTensor),
               DML_FIELD(DML_LP_NORMALIZATION_OPERATOR_DESC, Axis, UInt),
               DML_FIELD(DML_LP_NORMALIZATION_OPERATOR_DESC, Epsilon, Float),
               DML_FIELD(DML_LP_NORMALIZATION_OPERATOR_DESC, P, UInt)},
    .validate = ValidateLpNormalization,
};

const OperatorSchema* const kSchemas[] = {
    &kBatchNormalization,         &kBatchNormalizationTraining, &kBatchNormalizationGrad,
    &kBatchNormalizationTrainingGrad, &kMeanVarianceNormalization,  &kMeanVarianceNormalization1, &kMeanVarianceNormalization2,
    &kLocalResponseNormalization, &kLocalResponseNormalizationGrad, &kLpNormalization,
};

}  // namespace

std::span<const OperatorSchema* const> NormalizationSchemas() { return kSchemas; }

}  // namespace freedml::dml
