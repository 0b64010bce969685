// The plain description every normalization kernel runs from (CPU and CUDA device code alike; no
// DirectML types). One formula covers BATCH_NORMALIZATION, the MEAN_VARIANCE_NORMALIZATION forms
// and LP_NORMALIZATION:
//     y = activation(scale * (x - mean) * factor + bias + add)
// where, per group (the elements that share every kept coordinate, over the reduced dimensions):
//   Statistics:      mean = the group's mean (0 when !useMean); factor = 1 / sqrt(variance +
//                    epsilon), variance taken about that mean (factor 1 when !useVariance); with
//                    p = 1 or 2 mean = 0 and factor = 1 / max(Lp norm, epsilon) instead.
//   GivenStatistics: mean and variance read from their tensors per element; nothing is reduced (the
//                    last dimension is still the inner one, [groupRank, rank), for the loops).
// BATCH_NORMALIZATION_TRAINING is Statistics over the dimensions where ScaleTensor has size 1,
// with a FusedAddTensor (`add`) and the group's mean and variance written to OutputMeanTensor and
// OutputVarianceTensor.
// Gradient (BATCH_NORMALIZATION_GRAD): groups over the dimensions where ScaleTensor is not 1, with
// mean, variance and scale read once per group (g = InputGradient, k = 1 / sqrt(variance + epsilon)):
//     out = g * scale * k;   scale gradient = sum(g * (x - mean) * k);   bias gradient = sum(g)
// and with `training` (BATCH_NORMALIZATION_TRAINING_GRAD, the page's formula; m() a group mean):
//     out = scale * k * ((g - m(g)) - (x - m(x)) * m(g * (x - m(x))) * k^2)
// LocalResponse (LRN, 4-D, dimensions in the input's order):
//     y = x / (bias + alpha / localSize * sum of x^2 over the window) ^ beta
// (with an InputGradient operand, LOCAL_RESPONSE_NORMALIZATION_GRAD: the gradient of that y),
// the window spanning localSize channels (crossChannel) or localSize x localSize positions of
// height and width, from floor((localSize - 1) / 2) before the element to ceil((localSize - 1) / 2)
// after it, clipped to the tensor.
#pragma once

#include <cstdint>

namespace freedml::dml {

enum class NormMode : uint8_t { Statistics, GivenStatistics, LocalResponse, Gradient };

// Inputs and outputs alike; the three outputs are kNormOut, kNormOutMean and kNormOutVariance.
enum NormOperand : int {
    kNormOut, kNormIn, kNormScale, kNormBias, kNormMean, kNormVariance, kNormAdd, kNormOutMean, kNormOutVariance,
    kNormGradient, kNormOutScaleGradient, kNormOutBiasGradient, kNormOperands
};
constexpr bool NormIsOutput(int operand) {
    return operand == kNormOut || operand == kNormOutMean || operand == kNormOutVariance ||
           operand == kNormOutScaleGradient || operand == kNormOutBiasGradient;
}

constexpr int kNormMaxRank = 8;

struct NormPlan {
    NormMode mode = NormMode::Statistics;
    bool half = false;  // FLOAT16 storage (math in float, sums in double on the CPU)
    // Dimensions [0, groupRank) are kept (they index the groups), [groupRank, rank) are reduced;
    // sizes and strides are in that order, not the tensors' own.
    int rank = 0;
    int groupRank = 0;
    uint32_t sizes[kNormMaxRank] = {};
    int64_t strides[kNormOperands][kNormMaxRank] = {};  // elements; 0 where broadcast
    bool has[kNormOperands] = {};
    uint64_t groups = 1;     // product of the kept sizes
    uint64_t groupSize = 1;  // product of the reduced sizes
    bool training = false;  // Gradient: the statistics depend on the input
    bool useMean = true;
    bool useVariance = true;
    uint32_t p = 0;  // LP_NORMALIZATION: 1 or 2; 0 for the mean-variance forms
    float epsilon = 0.0f;
    // LocalResponse.
    bool crossChannel = false;
    uint32_t localSize = 1;
    float alpha = 0.0f, beta = 0.0f, bias = 0.0f;
};

}  // namespace freedml::dml
