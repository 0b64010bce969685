// Plain launch descriptions of the activation operators that LaunchActivation and LaunchCopy
// (ew_plan.h) do not cover, shared by the planning code (cuda_activation.cpp) and the device code
// (activation_ops.cu, which never sees DirectML.h). Operand 0 is the one written.
#pragma once

#include "dml/kernels/cuda/ew_plan.h"

namespace freedml::dml::cuda {

// ---- Element-wise, integer and two-input ----------------------------------------------------------

// RELU on INT8/16/32: x > 0 ? x : 0.
cudaError_t LaunchIntegerRelu(const EwPlan<2>& plan, ElementType type, void* out, const void* in,
                              LaunchTarget launch);

// SHRINK on the 8- to 32-bit integer types: x - bias above threshold, x + bias below -threshold, 0
// between, in double, rounded toward zero and saturated (a NaN result gives 0).
cudaError_t LaunchIntegerShrink(const EwPlan<2>& plan, ElementType type, float bias, float threshold, void* out,
                                const void* in, LaunchTarget launch);

// PARAMETERIZED_RELU: x >= 0 ? x : slope * x. F32 and F16 compute in float (rounded once); INT8/16/32
// multiply modulo 2^bits. Operands: output, x, slope.
cudaError_t LaunchParameterizedRelu(const EwPlan<3>& plan, ElementType type, void* out, const void* x,
                                    const void* slope, LaunchTarget launch);

// RELU_GRAD: x > 0 ? dy : 0, selecting dy's bits untouched (F32, F16, INT8/16/32). Operands: output,
// x, dy.
cudaError_t LaunchReluGrad(const EwPlan<3>& plan, ElementType type, void* out, const void* x, const void* dy,
                           LaunchTarget launch);

// ---- SOFTMAX, LOG_SOFTMAX, HARDMAX and their `1` forms ------------------------------------------

enum class AxisFunction : uint8_t { Softmax, LogSoftmax, Hardmax };

// A tensor split into rows: `rows` walks the kept dimensions (one row per index, the reduced ones
// at 0), `row` the reduced dimensions of one row, row-major, so that "the first maximum" is the
// CPU kernels' first. Operand 0 is the output, 1 the input; strides in elements.
// Which threads share a row. Auto chooses by the row's length and layout; the others force a
// shape (for tests and benchmarks that compare them).
enum class AxisLaunch : uint8_t { Auto, WarpPerRow, BlockPerRow, ThreadPerRow };

struct AxisPlan {
    AxisFunction function = AxisFunction::Softmax;
    AxisLaunch launch = AxisLaunch::Auto;
    EwPlan<2> rows;
    EwPlan<2> row;
};

// F32 computes exp and sums in double, F16 in float, each rounded once when stored. The input and
// output may not overlap.
cudaError_t LaunchAxisActivation(const AxisPlan& plan, ElementType type, void* out, const void* in,
                                 LaunchTarget launch);

}  // namespace freedml::dml::cuda
