// A fused element-wise program: what a compiled graph runs in place of a chain (or tree) of
// element-wise nodes, in one pass over memory. The program is plain data made once at compile
// time (graph/fusion.cpp); the CPU kernel (graph/fused_elementwise.cpp) interprets it over blocks
// of floats and the CUDA kernel (kernels/cuda/fused_elementwise.cu) over one element per thread.
// A plain header: nvcc reads it, DirectML.h is not needed.
//
// Every operand is FLOAT32 and indexed over one shape (the fused nodes' common sizes); an input's
// element strides may be 0 (broadcast). Registers hold one float per element; Load fills one from
// an input, each other instruction computes one from one or two registers, and the program's
// result register is stored to the output.
#pragma once

#include <cmath>
#include <cstdint>

#include "common/host_device.h"
#include "dml/kernels/float_math.h"
#include "dml/ops/elementwise_binary/binary_op.h"
#include "dml/ops/elementwise_unary/unary_op.h"

namespace freedml::dml {

constexpr int kEwMaxInputs = 12;
constexpr int kEwMaxInstructions = 48;
constexpr int kEwMaxRegisters = 6;
constexpr int kEwMaxDims = 8;

enum class EwCode : uint8_t {
    Load,        // dst = input a
    Unary,       // dst = f(scale * a + bias): op is a UnaryFloatOp; p0, p1 its Min/Max or Exponent
    Binary,      // dst = op(a, b): op is a BinaryOp (ADD, SUBTRACT, MULTIPLY, DIVIDE, MIN, MAX)
    Activation,  // dst = activation(a): activationType is the DML_OPERATOR_TYPE, p0-p2 alpha, beta, gamma;
                 // op is the backend's own code for it, filled in when a backend plans the program
};

struct EwInstruction {
    EwCode code = EwCode::Load;
    uint8_t dst = 0, a = 0, b = 0;
    uint8_t op = 0;
    bool scaleBias = false;
    float scale = 1.0f, bias = 0.0f;
    float p0 = 0.0f, p1 = 0.0f, p2 = 0.0f;
    uint32_t activationType = 0;
};

struct EwProgram {
    // The loop: `rank` dimensions (merged where every operand steps contiguously; 0 is one element).
    uint32_t rank = 0;
    uint64_t count = 1;
    uint64_t sizes[kEwMaxDims] = {};
    uint32_t inputCount = 0;
    // Element strides: operand 0 is the output, 1 + k input k.
    int64_t strides[kEwMaxInputs + 1][kEwMaxDims] = {};
    uint32_t instructionCount = 0;
    EwInstruction instructions[kEwMaxInstructions];
    uint8_t result = 0;
    uint8_t registerCount = 0;
};

// The unary functions as the unfused kernels define them (elementwise_unary): scale and bias
// first, as two roundings.
FREEDML_HOST_DEVICE inline float EwUnary(const EwInstruction& in, float x) {
    if (in.scaleBias) {
        x = x * in.scale;
        x = x + in.bias;
    }
    using Op = UnaryFloatOp;
    switch (static_cast<Op>(in.op)) {
        case Op::Abs: return fabsf(x);
        case Op::Acos: return acosf(x);
        case Op::Asin: return asinf(x);
        case Op::Atan: return atanf(x);
        case Op::Ceil: return ceilf(x);
        case Op::Cos: return cosf(x);
        case Op::Exp: return expf(x);
        case Op::Floor: return floorf(x);
        case Op::Log: return logf(x);
        case Op::Recip: return 1.0f / x;
        case Op::Sin: return sinf(x);
        case Op::Sqrt: return sqrtf(x);
        case Op::Tan: return tanf(x);
        case Op::Erf: return erff(x);
        case Op::Sinh: return sinhf(x);
        case Op::Cosh: return coshf(x);
        case Op::Tanh: return tanhf(x);
        case Op::Asinh: return asinhf(x);
        case Op::Acosh: return acoshf(x);
        case Op::Atanh: return atanhf(x);
        case Op::Negate: return -x;
        case Op::Sign: return x > 0.0f ? 1.0f : (x < 0.0f ? -1.0f : 0.0f);
        case Op::RoundEven: return rintf(x);
        case Op::RoundZero: return truncf(x);
        case Op::RoundAway: return roundf(x);
        case Op::Clip: {
            const float t = x > in.p1 ? in.p1 : x;
            return t < in.p0 ? in.p0 : t;
        }
        case Op::Threshold: return x < in.p0 ? in.p0 : x;
        case Op::Pow: {
            // A negative base with a non-integral exponent is NaN, as documented.
            const bool integral = truncf(in.p0) == in.p0;
            return (x < 0.0f && !integral) ? NAN : powf(x, in.p0);
        }
    }
    return x;
}

// The binary operations a fused program takes, as the unfused kernels compute them for FLOAT32.
FREEDML_HOST_DEVICE inline float EwBinary(uint8_t op, float a, float b) {
    switch (static_cast<BinaryOp>(op)) {
        case BinaryOp::Add: return a + b;
        case BinaryOp::Subtract: return a - b;
        case BinaryOp::Multiply: return a * b;
        case BinaryOp::Divide: return a / b;
        case BinaryOp::Min: return MinNumber(a, b);
        case BinaryOp::Max: return MaxNumber(a, b);
        default: return a;
    }
}

// The binary operations EwBinary computes.
constexpr bool EwBinaryFusable(BinaryOp op) {
    return op == BinaryOp::Add || op == BinaryOp::Subtract || op == BinaryOp::Multiply || op == BinaryOp::Divide ||
           op == BinaryOp::Min || op == BinaryOp::Max;
}

}  // namespace freedml::dml
