// The fields CONVOLUTION_INTEGER and QUANTIZED_LINEAR_CONVOLUTION share, decoded once for every
// backend: where each of the nine tensors of the quantized form sits among the operator's inputs
// (-1 for one the integer form lacks), and the window geometry.
#pragma once

#include <DirectML.h>

#include <array>
#include <cstdint>

#include "dml/schema/schema.h"

namespace freedml::dml::quantized {

// The nine tensors in QUANTIZED_LINEAR_CONVOLUTION's order: Input, InputScale, InputZeroPoint,
// Filter, FilterScale, FilterZeroPoint, Bias, OutputScale, OutputZeroPoint.
struct ConvFields {
    std::array<int, 9> slots{};
    uint32_t dims = 0;
    const uint32_t* strides = nullptr;
    const uint32_t* dilations = nullptr;
    const uint32_t* startPadding = nullptr;
    uint32_t groups = 1;
    bool quantizedOutput = false;  // QUANTIZED_LINEAR_CONVOLUTION; CONVOLUTION_INTEGER writes INT32
};

inline ConvFields DecodeConvFields(const OperatorArgs& args) {
    ConvFields f;
    auto take = [&](const auto& desc) {
        f.dims = desc.DimensionCount;
        f.strides = desc.Strides;
        f.dilations = desc.Dilations;
        f.startPadding = desc.StartPadding;
        f.groups = desc.GroupCount;
    };
    if (args.schema.type == DML_OPERATOR_CONVOLUTION_INTEGER) {
        f.slots = {0, -1, 1, 2, -1, 3, -1, -1, -1};
        take(args.As<DML_CONVOLUTION_INTEGER_OPERATOR_DESC>());
    } else {
        f.slots = {0, 1, 2, 3, 4, 5, 6, 7, 8};
        take(args.As<DML_QUANTIZED_LINEAR_CONVOLUTION_OPERATOR_DESC>());
        f.quantizedOutput = true;
    }
    return f;
}

}  // namespace freedml::dml::quantized
