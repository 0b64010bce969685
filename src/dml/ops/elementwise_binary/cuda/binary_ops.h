// Launchers of the binary element-wise family, ELEMENT_WISE_IF and the quantization operators
// (binary_ops.cu), called by their planning code (cuda_binary.cpp). Plain types only: nvcc never
// sees DirectML.h. Each returns the launch's error; nothing synchronizes. A combination of
// operator and types the planning code should have refused returns cudaErrorInvalidValue.
//
// Semantics are the CPU kernels' (../cpu/binary_kernels.h): integers wrap, x / 0 and x % 0
// give 0, INT_MIN / -1 gives INT_MIN, MIN/MAX take a number over a NaN and order signed zeros,
// shifts by the width or more give 0, quantization computes in float32 as written, rounds half to
// even, saturates and maps NaN to the zero point.
#pragma once

#include "dml/kernels/cuda/ew_plan.h"
#include "dml/ops/elementwise_binary/binary_op.h"

namespace freedml::dml::cuda {

// The data types of A and B `op` runs on (a bit per ElementType), as the CPU kernels do.
uint32_t BinaryOpTypes(BinaryOp op);
inline uint32_t BinaryTypeBit(ElementType type) { return 1u << uint32_t(type); }

// out = op(a, b); `output` is `inputs` except for comparisons (U8 or U32).
cudaError_t LaunchBinaryOp(BinaryOp op, const EwPlan<3>& plan, ElementType inputs, ElementType output, void* out,
                           const void* a, const void* b, LaunchTarget launch);

// POW: out = pow(scale * base + bias, exponent) (ScaleBias optional), the output of the base's
// type; the exponent may have another type. Integers to integer powers are exact modulo 2^bits;
// the other combinations compute in double and convert to the output type (integers toward
// zero, saturating, NaN to 0).
struct PowParams {
    bool hasScaleBias = false;
    float scale = 1.0f;
    float bias = 0.0f;
};
cudaError_t LaunchPow(const EwPlan<3>& plan, ElementType base, ElementType exponent, const PowParams& params,
                      void* out, const void* a, const void* b, LaunchTarget launch);

// Quantization launches take the zero point's address, or null for none (a zero).
// out (I8/U8) = saturate(round_half_even(in / scale) + zeroPoint): input F32, F16 or I32, scale
// F32 or F16, zero point of the output's type. Plan operands: output, input, scale, zero point.
cudaError_t LaunchQuantize(const EwPlan<4>& plan, ElementType input, ElementType scale, ElementType output, void* out,
                           const void* in, const void* scaleData, const void* zeroPoint, LaunchTarget launch);
// out (the scale's type, F32 or F16) = (in - zeroPoint) * scale: input and zero point of one
// integer type of 8 to 32 bits.
cudaError_t LaunchDequantize(const EwPlan<4>& plan, ElementType input, ElementType output, void* out, const void* in,
                             const void* scaleData, const void* zeroPoint, LaunchTarget launch);
// QUANTIZE and DEQUANTIZE where a tensor is 4-bit or a scale or zero point is blocked: walked by
// element index. 4-bit tensors hold element i in byte i / 2, the low nibble when i is even.
enum class QuantizedType : uint8_t { I8, U8, I4, U4 };
struct QuantizeIndexPlan {
    int rank = 0;
    uint32_t sizes[kMaxDims] = {};
    // Per operand (output, input, scale, zero point): element strides, and how many consecutive
    // output indices share one of its elements along each dimension.
    uint32_t strides[4][kMaxDims] = {};
    uint32_t blocks[4][kMaxDims] = {};
    uint64_t count = 0;
};
// Quantizing: in and scale of `floatType` (F32 or F16), out and the zero point (null: none) of
// `quantized`. Dequantizing: in and the zero point of `quantized`, scale and out of `floatType`.
cudaError_t LaunchQuantizeIndexed(const QuantizeIndexPlan& plan, bool dequantize, ElementType floatType,
                                  QuantizedType quantized, void* out, const void* in, const void* scaleData,
                                  const void* zeroPoint, LaunchTarget launch);

// QUANTIZED_LINEAR_ADD: A and B (I8/U8) dequantized with their F32 scales and zero points, added,
// quantized with the output's. `in`: a, aScale, aZeroPoint, b, bScale, bZeroPoint, outputScale,
// outputZeroPoint (zero points may be null). Plan operands: output, then `in` in order.
cudaError_t LaunchQuantizedAdd(const EwPlan<9>& plan, ElementType a, ElementType b, ElementType output, void* out,
                               const void* const (&in)[8], LaunchTarget launch);

// ELEMENT_WISE_IF: out = condition (UINT8) != 0 ? a : b, moving elements of `elementBytes`
// (1, 2, 4 or 8) bits untouched. Plan operands: output, condition, a, b.
cudaError_t LaunchSelect(const EwPlan<4>& plan, uint32_t elementBytes, void* out, const void* condition,
                         const void* a, const void* b, LaunchTarget launch);

}  // namespace freedml::dml::cuda
