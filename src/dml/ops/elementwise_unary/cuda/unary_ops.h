// Plain launch descriptions of the unary element-wise family (this folder's schema.cpp),
// shared by the planning code (cuda_unary.cpp, which sees DirectML.h) and the device code
// (unary_ops.cu, unary_cast.cu, compiled by nvcc). Each launcher returns the launch's error and
// synchronizes nothing; `out` may equal an input only where the operator runs in place and that
// input is read through the output's own strides.
#pragma once

#include "dml/kernels/cuda/ew_plan.h"
#include "dml/ops/elementwise_unary/unary_op.h"

namespace freedml::dml::cuda {

// The floating-point functions (UnaryFloatOp, unary_op.h): FLOAT32 and FLOAT16, both computed in
// float (FLOAT16 rounds once, to nearest even, when stored), with the formulas of the CPU kernels.

struct UnaryFloatParams {
    bool scaleBias = false;  // x * scale + bias (two roundings, no fused multiply-add) before the function
    float scale = 1.0f, bias = 0.0f;
    float lo = 0.0f, hi = 0.0f;  // CLIP: Min, Max; THRESHOLD: Min; already in the tensor's precision
    float exponent = 0.0f;       // CONSTANT_POW
    bool integralExponent = false;
};


// IS_NAN and the three IS_INFINITY modes, tested on the bits of a FLOAT32 or FLOAT16 input.
enum class FloatClassTest : uint8_t { Nan, Infinity, PositiveInfinity, NegativeInfinity };

// ELEMENT_WISE_CLIP_GRAD(1): out = gradient where lo < x < hi, else 0. Floating-point tensors
// compare with loFloat/hiFloat; integer ones with loBits/hiBits (the bounds' bytes in the type).
struct ClipGradBounds {
    float loFloat = 0.0f, hiFloat = 0.0f;
    uint64_t loBits = 0, hiBits = 0;
};

// FILL_VALUE_SEQUENCE: element k (logical order) = start + k * delta. Floating-point types compute
// in float64 (start and delta exact there) and round once; integers wrap modulo 2^64 and keep
// their low bits (startBits and deltaBits are the values sign- or zero-extended to 64 bits).
struct FillSequenceParams {
    double start = 0.0, delta = 0.0;
    uint64_t startBits = 0, deltaBits = 0;
};

// ---- unary_ops.cu ----
cudaError_t LaunchUnaryFloat(const EwPlan<2>& plan, ElementType type, UnaryFloatOp op, const UnaryFloatParams& params,
                             void* out, const void* in, LaunchTarget launch);
// lo, hi: CLIP's and THRESHOLD's bounds as bytes of `type` (the low ones of the 64 bits).
cudaError_t LaunchUnaryInteger(const EwPlan<2>& plan, ElementType type, UnaryIntegerOp op, uint64_t lo, uint64_t hi,
                               void* out, const void* in, LaunchTarget launch);
// BIT_NOT on elements of `elementBytes` bytes, whatever their type.
cudaError_t LaunchBitNot(const EwPlan<2>& plan, uint32_t elementBytes, void* out, const void* in, LaunchTarget launch);
// BIT_COUNT: set bits of each `inBytes`-byte element, into U8 or U32.
cudaError_t LaunchBitCount(const EwPlan<2>& plan, uint32_t inBytes, ElementType outType, void* out, const void* in,
                           LaunchTarget launch);
// 0 or 1 into U8 or U32, from F32 or F16.
cudaError_t LaunchFloatClassTest(const EwPlan<2>& plan, ElementType inType, ElementType outType, FloatClassTest test,
                                 void* out, const void* in, LaunchTarget launch);
// Operands: 0 the output gradient, 1 the input, 2 the input gradient.
cudaError_t LaunchClipGrad(const EwPlan<3>& plan, ElementType type, const ClipGradBounds& bounds, void* out,
                           const void* x, const void* gradient, LaunchTarget launch);
// The value's bytes (the low `elementBytes` of `bits`) into every element.
cudaError_t LaunchFillConstant(const EwPlan<1>& plan, uint32_t elementBytes, uint64_t bits, void* out,
                               LaunchTarget launch);
cudaError_t LaunchFillSequence(const EwPlan<1>& plan, ElementType type, const FillSequenceParams& params, void* out,
                               LaunchTarget launch);

// ---- unary_cast.cu ----
// CAST as the CPU does it: floating point to integer truncates toward zero and saturates (NaN
// gives 0); integer to integer keeps the low bits; to a floating type rounds to nearest even,
// once (integers reach FLOAT16 through float64, as on the CPU).
cudaError_t LaunchCast(const EwPlan<2>& plan, ElementType inType, ElementType outType, void* out, const void* in,
                       LaunchTarget launch);

}  // namespace freedml::dml::cuda
