// The shape rules of a forward or backward convolution, shared by CONVOLUTION and the integer
// convolutions of the quantized family (CONVOLUTION_INTEGER, QUANTIZED_LINEAR_CONVOLUTION).
#pragma once

#include <cstdint>

#include "common/status.h"
#include "dml/tensor.h"

namespace freedml::dml {

struct ConvolutionShape {
    const TensorDesc& input;
    const TensorDesc& filter;
    const TensorDesc& output;
    uint32_t dimensionCount;
    const uint32_t* strides;
    const uint32_t* dilations;
    const uint32_t* startPadding;
    const uint32_t* endPadding;
    const uint32_t* outputPadding;  // backward only
    uint32_t groupCount;
    bool backward;
};

// Ranks, channels and groups, filter sizes, and each output spatial size from the input, kernel,
// strides, dilations and padding.
Status ValidateConvolutionShape(const ConvolutionShape& shape);
// `name` is {1, OutputChannels, 1, ...} with the convolution's rank.
Status ValidateConvolutionBias(const TensorDesc& bias, const char* name, const ConvolutionShape& shape);

}  // namespace freedml::dml
