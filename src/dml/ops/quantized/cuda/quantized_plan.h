// Plans of the quantized family's CUDA kernels (quantized.cu), made by cuda_quantized.cpp; plain
// data with no DirectML.h. Optional tensors ("slots") are absent when their type is `kNoTensor`; a
// tensor's strides are in elements, 0 where it broadcasts (size 1).
#pragma once

#include <cstdint>

#include "dml/kernels/cuda/ew_plan.h"

namespace freedml::dml::cuda::quantized {

constexpr int kRank = 8;
constexpr int kSlots = 9;

struct Operand {
    bool present = false;
    ElementType type = ElementType::I8;
    int64_t strides[kRank] = {};
};

enum class MatMulKind : uint8_t { Integer, QuantizedLinear, IntegerToFloat };

// Slots: A, AScale, AZeroPoint, B, BScale, BZeroPoint, Bias, OutputScale, OutputZeroPoint.
struct MatMulPlan {
    MatMulKind kind = MatMulKind::Integer;
    int rank = 2;
    uint32_t sizes[kRank] = {};  // the output's
    uint32_t depth = 0;          // K
    bool wide = false;           // an input wider than 8 bits: accumulate in int64
    Operand in[kSlots];
    Operand out;
};

// Slots: Input, InputScale, InputZeroPoint, Filter, FilterScale, FilterZeroPoint, Bias,
// OutputScale, OutputZeroPoint. Spatial values right-aligned into 3 dimensions.
struct ConvPlan {
    bool quantizedOutput = false;
    int dims = 2;
    uint32_t batch = 1, inChannels = 1, outChannels = 1, groups = 1;
    int64_t inSize[3] = {1, 1, 1}, kernelSize[3] = {1, 1, 1}, outSize[3] = {1, 1, 1};
    int64_t stride[3] = {1, 1, 1}, dilation[3] = {1, 1, 1}, pad[3] = {0, 0, 0};
    Operand in[kSlots];  // Input and Filter strides: {N/OC, C, spatial right-aligned at 2..4}
    Operand out;         // strides {N, C, spatial right-aligned at 2..4}
};

// Slots: Input, InputScale, InputZeroPoint, OutputScale, OutputZeroPoint.
struct PoolPlan {
    bool includePadding = false;
    uint32_t batch = 1, channels = 1;
    int64_t inSize[3] = {1, 1, 1}, outSize[3] = {1, 1, 1};
    int64_t stride[3] = {1, 1, 1}, window[3] = {1, 1, 1}, dilation[3] = {1, 1, 1}, pad[3] = {0, 0, 0};
    Operand in[5];
    Operand out;
};

struct DynamicQuantizePlan {
    int rank = 1;
    uint32_t sizes[kRank] = {};
    uint64_t count = 0;
    Operand in, out;
};

// `in` holds kSlots (or 5) device addresses, null for absent tensors.
cudaError_t LaunchQuantizedMatMul(const MatMulPlan& plan, const void* const* in, void* out, LaunchTarget launch);
cudaError_t LaunchQuantizedConv(const ConvPlan& plan, const void* const* in, void* out, LaunchTarget launch);
cudaError_t LaunchQuantizedPool(const PoolPlan& plan, const void* const* in, void* out, LaunchTarget launch);
cudaError_t LaunchDynamicQuantize(const DynamicQuantizePlan& plan, const void* in, void* out, void* scale,
                                  void* zeroPoint, LaunchTarget launch);

}  // namespace freedml::dml::cuda::quantized
