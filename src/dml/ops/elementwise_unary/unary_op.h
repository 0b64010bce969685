// The unary element-wise functions, one list for every backend: the CPU kernels, the CUDA planning
// code and the CUDA device code (a plain header: nvcc sees it, and DirectML.h is not needed).
// unary_decode.h turns an operator desc into one of them.
#pragma once

#include <cstdint>

namespace freedml::dml {

// The floating-point functions of one tensor (FLOAT32 and FLOAT16 compute in float). ROUND is
// three functions, one per rounding mode.
enum class UnaryFloatOp : uint8_t {
    Abs, Acos, Asin, Atan, Ceil, Cos, Exp, Floor, Log, Recip, Sin, Sqrt, Tan, Erf, Sinh, Cosh, Tanh, Asinh, Acosh,
    Atanh, Negate, Sign, RoundEven, RoundZero, RoundAway, Clip, Threshold, Pow
};

// The integer functions (input and output of one integer type); arithmetic wraps modulo 2^bits.
enum class UnaryIntegerOp : uint8_t { Abs, Negate, Sign, Clip, Threshold, LogicalNot };

}  // namespace freedml::dml
