// Plain launch descriptions of the reduction operators (REDUCE, ARGMIN, ARGMAX and the cumulative
// scans), shared by the
// planning code (cuda_reduction.cpp) and the device code (reduction_ops.cu, which never sees
// DirectML.h).
#pragma once

#include "dml/kernels/cuda/ew_plan.h"

namespace freedml::dml::cuda {

// DML_REDUCE_FUNCTION's values, in its order.
enum class ReduceFunction : uint8_t {
    ArgMax, ArgMin, Average, L1, L2, LogSum, LogSumExp, Max, Min, Multiply, Sum, SumSquare
};

// `rows` walks the kept dimensions (one output element per index; operand 0 the output, 1 the
// input), `row` the reduced dimensions of one output element in row-major order (the input's
// strides), so that an ARGMIN/ARGMAX index is the position in that order. Strides in elements.
struct ReducePlan {
    ReduceFunction function = ReduceFunction::Sum;
    bool lastTie = false;  // ARGMIN/ARGMAX: the last of equal extremes (DECREASING), else the first
    ElementType input = ElementType::F32;
    ElementType output = ElementType::F32;  // the input's type, or the index type of the arg forms
    uint32_t outputBytes = 4;               // set by LaunchReduce (ElementBytes is host code)
    EwPlan<2> rows;
    EwPlan<1> row;
};

// FLOAT32 accumulates in double, FLOAT16 in float; integer sums and products wrap; MIN and MAX
// pass over NaNs; ARGMIN and ARGMAX count a NaN as the extreme (as the CPU kernels do).
cudaError_t LaunchReduce(const ReducePlan& plan, void* out, const void* in, LaunchTarget launch);

// CUMULATIVE_SUMMATION and CUMULATIVE_PRODUCT: `lines` walks every dimension but the axis
// (operand 0 the output, 1 the input); each line has `length` elements, `outStride` and
// `inStride` apart (elements). A line reads each element before writing it, so the input may be
// the output itself through the same layout.
struct ScanPlan {
    bool product = false;
    bool decreasing = false;
    bool exclusive = false;
    ElementType type = ElementType::F32;
    EwPlan<2> lines;
    uint64_t length = 1;
    int64_t outStride = 0, inStride = 0;
};

// F32 accumulates in double, F16 in float (each output rounded once); integers wrap.
cudaError_t LaunchScan(const ScanPlan& plan, void* out, const void* in, LaunchTarget launch);

}  // namespace freedml::dml::cuda

namespace freedml::dml::cuda {

// TOP_K and TOP_K1: `lines` walks every dimension but the axis (operand 0 the values, 1 the
// indices, 2 the input); along the axis the input has `length` elements `inStride` apart and the
// outputs `k`, `valueStride` and `indexStride` apart (elements). The order is the CPU kernel's
// (../cpu/top_k.cpp): largest or smallest first, NaN above every number, ties by lower index.
struct TopKPlan {
    ElementType type = ElementType::F32;
    bool largest = true;
    bool index64 = false;
    EwPlan<3> lines;
    uint32_t length = 1, k = 1;
    int64_t inStride = 0, valueStride = 0, indexStride = 0;
    // The sorting path (set by PlanTopKSort; valueBytes 0 takes the counting path): the bits of
    // each key's line and index fields, and CUB's storage.
    uint32_t valueBytes = 0, lineBits = 0, indexBits = 0;
    uint64_t sortBytes = 0;
    // The selecting path (set by PlanTopKSort): long lines, K small enough to sort in one block.
    bool select = false;
};

// Chooses the selecting or the sorting path where the element type and sizes allow it; returns the
// temporary memory (bytes) LaunchTopK then needs, 0 for the selecting and the counting paths.
uint64_t PlanTopKSort(TopKPlan* plan);

cudaError_t LaunchTopK(const TopKPlan& plan, void* values, void* indices, const void* in, void* temporary,
                       LaunchTarget launch);

}  // namespace freedml::dml::cuda
