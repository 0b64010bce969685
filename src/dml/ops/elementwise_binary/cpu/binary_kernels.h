// CPU kernels of the binary element-wise family (ADD and ADD1 with its fused activation,
// arithmetic, comparison, logical, bitwise, POW) and of the quantization operators (QUANTIZE_LINEAR, DEQUANTIZE_LINEAR, QUANTIZED_LINEAR_ADD and
// the 6.3 QUANTIZE / DEQUANTIZE), over any strides: zero strides broadcast, and the output may
// share an input's memory (in-place execution).
//
// A kernel is planned once (Create: a LoopPlan, and a row function picked for the operator, the
// data types and the CPU's instruction sets), then runs rows: packed rows and rows against a
// broadcast scalar go through loops the compiler vectorizes, strided rows step pointers, never
// indices. FLOAT16 rows, and ADD1's rows with an activation, compute blocks of floats (the
// activation runs over each block while it is in cache). Outputs beyond half the last-level cache
// are written with streaming stores. Large tensors are split over the thread pool.
//
// Semantics where DirectML's pages are silent (FreeDML's choices, also in the conformance cases):
// - Integer arithmetic wraps modulo 2^bits. x / 0 and x % 0 give 0; INT_MIN / -1 gives INT_MIN.
// - MIN / MAX: a NaN operand loses to a number (IEEE minNum/maxNum, as D3D's min/max do); NaN
//   only when both are NaN. MIN(-0, +0) is -0 and MAX(-0, +0) is +0.
// - MODULUS_FLOOR on floats follows Python/numpy (result has the divisor's sign, a zero result
//   takes the divisor's sign); MODULUS_TRUNCATE is C's fmod.
// - Shifts by the element width or more give 0.
// - MEAN of integers is the exact (a + b) / 2 truncated toward zero (no intermediate overflow).
// - POW of integers is exact modulo 2^bits; a negative exponent gives 1 / base^-e truncated (so 0
//   unless |base| is 1, and 0 for base 0). Mixed integer/float POW computes in double and
//   converts to the output type truncating toward zero, saturating, NaN to 0.
// - Quantization rounds half to even, computes in float32 as the formulas are written, saturates,
//   and maps a NaN input to the zero point.
#pragma once

#include <DirectML.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>

#include "common/thread_pool.h"
#include "common/status.h"
#include "dml/kernels/cpu/activation.h"
#include "dml/kernels/cpu/tensor_view.h"
#include "dml/ops/elementwise_binary/binary_op.h"
#include "dml/tensor.h"

namespace freedml::dml::cpu {

// Everything a row needs besides its pointers.
struct BinaryContext {
    bool hasScaleBias = false;  // POW: applied to the base
    float scale = 1.0f;
    float bias = 0.0f;
    DML_TENSOR_DATA_TYPE aType = DML_TENSOR_DATA_TYPE_UNKNOWN;
    DML_TENSOR_DATA_TYPE bType = DML_TENSOR_DATA_TYPE_UNKNOWN;
    DML_TENSOR_DATA_TYPE outputType = DML_TENSOR_DATA_TYPE_UNKNOWN;
    bool streamOutput = false;  // write packed output rows with non-temporal stores (outputs beyond the caches)
    FusedActivation activation;  // ADD1's; applied by the rows picked for it
};

// One innermost row: n elements at byte strides (0 broadcasts).
using BinaryRowFn = void (*)(std::byte* out, int64_t outStride, const std::byte* a, int64_t aStride,
                             const std::byte* b, int64_t bStride, uint64_t n, const BinaryContext& context);

struct BinaryParams {
    BinaryOp op = BinaryOp::Add;
    TensorDesc a;  // POW: the base (InputTensor)
    TensorDesc b;  // POW: the exponent
    TensorDesc output;
    bool hasScaleBias = false;
    DML_SCALE_BIAS scaleBias{1.0f, 0.0f};
    FusedActivation activation;  // ADD (ADD1) only; FLOAT32 and FLOAT16
};

class BinaryKernel {
public:
    // Fails (kNoKernel) for a combination of operator and data types it does not run.
    Status Create(const BinaryParams& params);
    uint64_t PersistentSizeInBytes() const { return 0; }
    uint64_t TemporarySizeInBytes() const { return 0; }
    void Execute(ThreadPool* threads, TensorView a, TensorView b, TensorView output) const;
    // Which row implementation was picked ("avx2", "baseline"): for benchmarks and tests.
    const char* Isa() const { return isa_; }

private:
    BinaryParams params_;
    BinaryContext context_;
    LoopPlan<3> plan_;  // operands: output, a, b
    BinaryRowFn row_ = nullptr;
    const char* isa_ = "baseline";
};

// QUANTIZE_LINEAR and QUANTIZE: out = saturate(round_half_even(x / scale) + zeroPoint).
struct QuantizeParams {
    TensorDesc input;
    TensorDesc scale;
    std::optional<TensorDesc> zeroPoint;
    TensorDesc output;
};

// Where a tensor is 4-bit (INT4, UINT4: two elements a byte) or a scale or zero point is blocked
// (a size that divides the output's, neither 1 nor equal to it), QUANTIZE and DEQUANTIZE walk the
// elements by index instead of through a byte-stride loop plan.
struct QuantizeIndexPlan {
    uint32_t rank = 0;
    std::array<uint32_t, kMaxTensorRank> sizes{};
    // Per operand (output, input, scale, zero point): element strides, and how many output
    // indices share one of its elements along each dimension (1: none; the size: broadcast).
    std::array<std::array<uint32_t, kMaxTensorRank>, 4> strides{};
    std::array<std::array<uint32_t, kMaxTensorRank>, 4> blocks{};
    uint64_t count = 0;
};

class QuantizeKernel {
public:
    Status Create(const QuantizeParams& params);
    void Execute(ThreadPool* threads, TensorView input, TensorView scale, TensorView zeroPoint,
                 TensorView output) const;

private:
    QuantizeParams params_;
    LoopPlan<4> plan_;  // output, input, scale, zero point
    bool byIndex_ = false;
    QuantizeIndexPlan indexPlan_;
};

// DEQUANTIZE_LINEAR and DEQUANTIZE: out = (x - zeroPoint) * scale.
class DequantizeKernel {
public:
    Status Create(const QuantizeParams& params);
    void Execute(ThreadPool* threads, TensorView input, TensorView scale, TensorView zeroPoint,
                 TensorView output) const;

private:
    QuantizeParams params_;
    LoopPlan<4> plan_;
    bool byIndex_ = false;
    QuantizeIndexPlan indexPlan_;
};

// QUANTIZED_LINEAR_ADD: dequantize A and B, add, quantize to the output's scale and zero point.
struct QuantizedAddParams {
    TensorDesc a, aScale;
    std::optional<TensorDesc> aZeroPoint;
    TensorDesc b, bScale;
    std::optional<TensorDesc> bZeroPoint;
    TensorDesc outputScale;
    std::optional<TensorDesc> outputZeroPoint;
    TensorDesc output;
};

class QuantizedAddKernel {
public:
    Status Create(const QuantizedAddParams& params);
    // `tensors`: a, aScale, aZeroPoint, b, bScale, bZeroPoint, outputScale, outputZeroPoint
    // (null data for an absent zero point).
    void Execute(ThreadPool* threads, const std::array<TensorView, 8>& inputs, TensorView output) const;

private:
    QuantizedAddParams params_;
    LoopPlan<9> plan_;  // output, then the eight inputs
};

// Strides of `desc` over `output`'s shape: a dimension of size 1 facing a larger one broadcasts.
std::array<uint32_t, kMaxTensorRank> BroadcastStridesOver(const TensorDesc& desc, const TensorDesc& output);

}  // namespace freedml::dml::cpu
