// The optimizer operators: ADAM_OPTIMIZER (adam_math.h says what it computes). The tensor rules
// are the DML_ADAM_OPTIMIZER_OPERATOR_DESC page's "Tensor constraints" and "Tensor support" table:
// every tensor has 4 dimensions and one data type, FLOAT32 or FLOAT16; the parameter, moment and
// gradient tensors share their sizes; TrainingStepTensor is {1, 1, 1, 1}. The page's member text
// calls the training step UINT32, which its constraint and table leave out; the TensorFlow-DirectML
// plugin passes UINT32, so FreeDML takes the step as UINT32 or as the parameters' float type (the
// catalog row says the same). Every output may be bound in place of an input (the page's remarks; H2).
#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "dml/schema/families.h"

namespace freedml::dml {

namespace {

constexpr std::initializer_list<DML_TENSOR_DATA_TYPE> kFloatTypes = {DML_TENSOR_DATA_TYPE_FLOAT32,
                                                                     DML_TENSOR_DATA_TYPE_FLOAT16};

// Binding order: InputParametersTensor, InputFirstMomentTensor, InputSecondMomentTensor,
// GradientTensor, TrainingStepTensor; OutputParametersTensor, OutputFirstMomentTensor,
// OutputSecondMomentTensor.
constexpr size_t kTrainingStep = 4;

Status ValidateAdamOptimizer(const OperatorArgs& args) {
    const TensorDesc& parameters = *args.inputs[0];
    std::vector<std::pair<const TensorDesc*, const std::string*>> tensors;
    for (size_t i = 0; i < args.inputs.size(); ++i) tensors.push_back({&*args.inputs[i], &args.inputNames[i]});
    for (size_t i = 0; i < args.outputs.size(); ++i) tensors.push_back({&*args.outputs[i], &args.outputNames[i]});
    for (const auto& [tensor, name] : tensors) {
        INVALID_IF(tensor->rank != 4, "%s has DimensionCount %u; DML_OPERATOR_ADAM_OPTIMIZER needs 4.", name->c_str(),
                   tensor->rank);
        if (tensor == &*args.inputs[kTrainingStep] && tensor->dataType == DML_TENSOR_DATA_TYPE_UINT32) continue;
        INVALID_IF(!DataTypeIn(kFloatTypes, tensor->dataType), "%s has data type %s; DML_OPERATOR_ADAM_OPTIMIZER "
                   "accepts %s%s.", name->c_str(), DataTypeName(tensor->dataType),
                   DataTypeListToString(kFloatTypes).c_str(),
                   tensor == &*args.inputs[kTrainingStep] ? " (and UINT32 for the training step)" : "");
        INVALID_IF(tensor->dataType != parameters.dataType,
                   "%s has data type %s, but InputParametersTensor is %s; every tensor of "
                   "DML_OPERATOR_ADAM_OPTIMIZER has the same data type.",
                   name->c_str(), DataTypeName(tensor->dataType), DataTypeName(parameters.dataType));
    }
    for (const auto& [tensor, name] : tensors) {
        if (tensor == &*args.inputs[kTrainingStep]) {
            const bool scalar = std::all_of(tensor->sizes.begin(), tensor->sizes.begin() + 4,
                                            [](uint32_t size) { return size == 1; });
            INVALID_IF(!scalar, "TrainingStepTensor has sizes %s; it must be a scalar, {1, 1, 1, 1}.",
                       SizesToString(*tensor).c_str());
            continue;
        }
        const bool same = std::equal(tensor->sizes.begin(), tensor->sizes.begin() + 4, parameters.sizes.begin());
        INVALID_IF(!same, "%s has sizes %s, but InputParametersTensor has %s; they must match.", name->c_str(),
                   SizesToString(*tensor).c_str(), SizesToString(parameters).c_str());
    }
    return {};
}

const OperatorSchema kAdamOptimizer{
    .type = DML_OPERATOR_ADAM_OPTIMIZER,
    .name = "ADAM_OPTIMIZER",
    .featureLevel = DML_FEATURE_LEVEL_3_0,
    .descSize = sizeof(DML_ADAM_OPTIMIZER_OPERATOR_DESC),
    .fields = {DML_FIELD(DML_ADAM_OPTIMIZER_OPERATOR_DESC, InputParametersTensor, InputTensor),
               DML_FIELD(DML_ADAM_OPTIMIZER_OPERATOR_DESC, InputFirstMomentTensor, InputTensor),
               DML_FIELD(DML_ADAM_OPTIMIZER_OPERATOR_DESC, InputSecondMomentTensor, InputTensor),
               DML_FIELD(DML_ADAM_OPTIMIZER_OPERATOR_DESC, GradientTensor, InputTensor),
               DML_FIELD(DML_ADAM_OPTIMIZER_OPERATOR_DESC, TrainingStepTensor, InputTensor),
               DML_FIELD(DML_ADAM_OPTIMIZER_OPERATOR_DESC, OutputParametersTensor, OutputTensor),
               DML_FIELD(DML_ADAM_OPTIMIZER_OPERATOR_DESC, OutputFirstMomentTensor, OutputTensor),
               DML_FIELD(DML_ADAM_OPTIMIZER_OPERATOR_DESC, OutputSecondMomentTensor, OutputTensor),
               DML_FIELD(DML_ADAM_OPTIMIZER_OPERATOR_DESC, LearningRate, Float),
               DML_FIELD(DML_ADAM_OPTIMIZER_OPERATOR_DESC, Beta1, Float),
               DML_FIELD(DML_ADAM_OPTIMIZER_OPERATOR_DESC, Beta2, Float),
               DML_FIELD(DML_ADAM_OPTIMIZER_OPERATOR_DESC, Epsilon, Float)},
    .supportsInPlaceExecution = true,
    .validate = ValidateAdamOptimizer,
};

const OperatorSchema* const kSchemas[] = {&kAdamOptimizer};

}  // namespace

std::span<const OperatorSchema* const> OptimizerSchemas() { return kSchemas; }

}  // namespace freedml::dml
