// Device code of the unary element-wise family (CAST is in unary_cast.cu): the float functions
// and integer functions of one tensor, the bit operators, the NaN and infinity tests,
// CLIP_GRAD(1) and the FILL_VALUE operators. Same-type maps run on elementwise.cuh; the others
// on unary_map.cuh. The formulas are the CPU kernels' (../cpu/unary.cpp), written with
// explicitly rounded arithmetic where the compiler could otherwise fuse a multiply-add.
#include <cstring>
#include <type_traits>

#include "dml/kernels/cuda/elementwise.cuh"
#include "dml/ops/elementwise_unary/cuda/unary_map.cuh"
#include "dml/ops/elementwise_unary/cuda/unary_ops.h"

namespace freedml::dml::cuda {

namespace {

using unary::DoubleToHalfBits;
using unary::LaunchGenerate;
using unary::LaunchMap;

__device__ __forceinline__ float QuietNan() { return __int_as_float(0x7FC00000); }

// ---- Float functions ---------------------------------------------------------------------------

template <UnaryFloatOp kOp>
__device__ __forceinline__ float ApplyFloat(float x, const UnaryFloatParams& p) {
    using Op = UnaryFloatOp;
    if constexpr (kOp == Op::Abs) return fabsf(x);
    if constexpr (kOp == Op::Acos) return acosf(x);
    if constexpr (kOp == Op::Asin) return asinf(x);
    if constexpr (kOp == Op::Atan) return atanf(x);
    if constexpr (kOp == Op::Ceil) return ceilf(x);
    if constexpr (kOp == Op::Cos) return cosf(x);
    if constexpr (kOp == Op::Exp) return expf(x);
    if constexpr (kOp == Op::Floor) return floorf(x);
    if constexpr (kOp == Op::Log) return logf(x);
    if constexpr (kOp == Op::Recip) return __fdiv_rn(1.0f, x);
    if constexpr (kOp == Op::Sin) return sinf(x);
    if constexpr (kOp == Op::Sqrt) return __fsqrt_rn(x);
    if constexpr (kOp == Op::Tan) return tanf(x);
    if constexpr (kOp == Op::Erf) return erff(x);
    if constexpr (kOp == Op::Sinh) return sinhf(x);
    if constexpr (kOp == Op::Cosh) return coshf(x);
    if constexpr (kOp == Op::Tanh) return tanhf(x);
    if constexpr (kOp == Op::Asinh) return asinhf(x);
    if constexpr (kOp == Op::Acosh) return acoshf(x);
    if constexpr (kOp == Op::Atanh) return atanhf(x);
    if constexpr (kOp == Op::Negate) return -x;
    // The documented sign: -1 below zero, 1 above, 0 otherwise (zeros of either sign and NaN).
    if constexpr (kOp == Op::Sign) return x > 0.0f ? 1.0f : (x < 0.0f ? -1.0f : 0.0f);
    if constexpr (kOp == Op::RoundEven) return rintf(x);
    if constexpr (kOp == Op::RoundZero) return truncf(x);
    if constexpr (kOp == Op::RoundAway) return roundf(x);
    // max(Min, min(x, Max)): Min wins when Min > Max; NaN stays NaN.
    if constexpr (kOp == Op::Clip) {
        const float t = x > p.hi ? p.hi : x;
        return t < p.lo ? p.lo : t;
    }
    if constexpr (kOp == Op::Threshold) return x < p.lo ? p.lo : x;
    // A negative base (-inf included) with a non-integral exponent is NaN, as documented (C's pow
    // gives +inf for -inf).
    if constexpr (kOp == Op::Pow) return (x < 0.0f && !p.integralExponent) ? QuietNan() : powf(x, p.exponent);
    return x;
}

// One function of one value, after the optional ScaleBias. LoadAs/StoreAs of elementwise.cuh
// hand FLOAT16 over as float, so one functor serves both types.
template <UnaryFloatOp kOp>
struct FloatFunction {
    UnaryFloatParams p;
    __device__ float operator()(float x) const {
        if (p.scaleBias) x = __fadd_rn(__fmul_rn(x, p.scale), p.bias);
        return ApplyFloat<kOp>(x, p);
    }
};

template <UnaryFloatOp kOp>
cudaError_t LaunchFloatOp(const EwPlan<2>& plan, ElementType type, const UnaryFloatParams& params, void* out,
                          const void* in, LaunchTarget launch) {
    const FloatFunction<kOp> f{params};
    switch (type) {
        case ElementType::F32: return LaunchUnaryTyped<float>(plan, f, out, in, launch);
        case ElementType::F16: return LaunchUnaryTyped<__half>(plan, f, out, in, launch);
        default: return cudaErrorInvalidValue;
    }
}

// ---- Integer functions -------------------------------------------------------------------------

template <class T>
__device__ __forceinline__ bool IsNegative(T x) {
    if constexpr (std::is_signed_v<T>) {
        return x < T(0);
    } else {
        return false;
    }
}

// The operator is a uniform branch: these are a few instructions each, the loads dominate.
template <class T>
struct IntegerFunction {
    UnaryIntegerOp op;
    T lo, hi;
    __device__ T operator()(T x) const {
        using U = std::make_unsigned_t<T>;
        const bool negative = IsNegative(x);
        switch (op) {
            case UnaryIntegerOp::Abs: return negative ? T(U(0) - U(x)) : x;
            case UnaryIntegerOp::Negate: return T(U(0) - U(x));
            case UnaryIntegerOp::Sign: return T(T(x > T(0)) - T(negative));
            case UnaryIntegerOp::Clip: {
                const T t = x > hi ? hi : x;
                return t < lo ? lo : t;
            }
            case UnaryIntegerOp::Threshold: return x < lo ? lo : x;
            case UnaryIntegerOp::LogicalNot: return T(x == T(0));
        }
        return x;
    }
};

template <class T>
T FromBits(uint64_t bits) {
    T value;
    std::memcpy(&value, &bits, sizeof(T));  // little-endian: the low bytes
    return value;
}

template <class T>
cudaError_t LaunchIntegerTyped(const EwPlan<2>& plan, UnaryIntegerOp op, uint64_t lo, uint64_t hi, void* out,
                               const void* in, LaunchTarget launch) {
    return LaunchUnaryTyped<T>(plan, IntegerFunction<T>{op, FromBits<T>(lo), FromBits<T>(hi)}, out, in, launch);
}

// ---- Bits --------------------------------------------------------------------------------------

template <class U>
struct BitNot {
    __device__ U operator()(U x) const { return U(~x); }
};

template <class U, class O>
struct BitCount {
    __device__ O operator()(U x) const {
        if constexpr (sizeof(U) == 8) {
            return O(__popcll(x));
        } else {
            return O(__popc(uint32_t(x)));
        }
    }
};

// On the bits: a magnitude above the infinity pattern is NaN, equal to it is infinity.
template <class U, class O>
struct FloatClass {
    FloatClassTest test;
    __device__ O operator()(U x) const {
        constexpr U kSign = U(U(1) << (sizeof(U) * 8 - 1));
        constexpr U kInfinity = sizeof(U) == 2 ? U(0x7C00) : U(0x7F800000u);
        const U magnitude = U(x & U(~kSign));
        const bool negative = (x & kSign) != 0;
        switch (test) {
            case FloatClassTest::Nan: return O(magnitude > kInfinity);
            case FloatClassTest::Infinity: return O(magnitude == kInfinity);
            case FloatClassTest::PositiveInfinity: return O(magnitude == kInfinity && !negative);
            case FloatClassTest::NegativeInfinity: return O(magnitude == kInfinity && negative);
        }
        return O(0);
    }
};

template <class U, class O>
cudaError_t LaunchFloatClassTyped(const EwPlan<2>& plan, FloatClassTest test, void* out, const void* in,
                                  LaunchTarget launch) {
    return LaunchMap<U, O>(plan, FloatClass<U, O>{test}, out, in, launch);
}

// ---- CLIP_GRAD ---------------------------------------------------------------------------------

// The gradient where lo < x < hi, else 0 (a NaN x passes its gradient, as the formula reads).
struct FloatClipGrad {
    float lo, hi;
    __device__ float operator()(float x, float g) const { return (x <= lo || x >= hi) ? 0.0f : g; }
};

template <class T>
struct IntegerClipGrad {
    T lo, hi;
    __device__ T operator()(T x, T g) const { return (x <= lo || x >= hi) ? T(0) : g; }
};

template <class T>
cudaError_t LaunchIntegerClipGrad(const EwPlan<3>& plan, const ClipGradBounds& b, void* out, const void* x,
                                  const void* g, LaunchTarget launch) {
    return LaunchBinaryTyped<T>(plan, IntegerClipGrad<T>{FromBits<T>(b.loBits), FromBits<T>(b.hiBits)}, out, x, g,
                                launch);
}

// ---- FILL_VALUE --------------------------------------------------------------------------------

template <class U>
struct Constant {
    U value;
    __device__ U operator()(uint64_t) const { return value; }
};

// start + index * delta in float64, multiply and add rounded separately (the CPU's arithmetic).
struct FloatSequence32 {
    double start, delta;
    __device__ float operator()(uint64_t index) const {
        return __double2float_rn(__dadd_rn(start, __dmul_rn(__ull2double_rn(index), delta)));
    }
};
struct FloatSequence64 {
    double start, delta;
    __device__ double operator()(uint64_t index) const {
        return __dadd_rn(start, __dmul_rn(__ull2double_rn(index), delta));
    }
};
struct FloatSequence16 {
    double start, delta;
    __device__ uint16_t operator()(uint64_t index) const {
        return DoubleToHalfBits(__dadd_rn(start, __dmul_rn(__ull2double_rn(index), delta)));
    }
};

template <class T>
struct IntegerSequence {
    uint64_t start, delta;
    __device__ T operator()(uint64_t index) const { return T(start + index * delta); }
};

}  // namespace

cudaError_t LaunchUnaryFloat(const EwPlan<2>& plan, ElementType type, UnaryFloatOp op, const UnaryFloatParams& params,
                             void* out, const void* in, LaunchTarget launch) {
    using Op = UnaryFloatOp;
    switch (op) {
#define FREEDML_FLOAT_OP(NAME) \
    case Op::NAME: return LaunchFloatOp<Op::NAME>(plan, type, params, out, in, launch);
        FREEDML_FLOAT_OP(Abs)
        FREEDML_FLOAT_OP(Acos)
        FREEDML_FLOAT_OP(Asin)
        FREEDML_FLOAT_OP(Atan)
        FREEDML_FLOAT_OP(Ceil)
        FREEDML_FLOAT_OP(Cos)
        FREEDML_FLOAT_OP(Exp)
        FREEDML_FLOAT_OP(Floor)
        FREEDML_FLOAT_OP(Log)
        FREEDML_FLOAT_OP(Recip)
        FREEDML_FLOAT_OP(Sin)
        FREEDML_FLOAT_OP(Sqrt)
        FREEDML_FLOAT_OP(Tan)
        FREEDML_FLOAT_OP(Erf)
        FREEDML_FLOAT_OP(Sinh)
        FREEDML_FLOAT_OP(Cosh)
        FREEDML_FLOAT_OP(Tanh)
        FREEDML_FLOAT_OP(Asinh)
        FREEDML_FLOAT_OP(Acosh)
        FREEDML_FLOAT_OP(Atanh)
        FREEDML_FLOAT_OP(Negate)
        FREEDML_FLOAT_OP(Sign)
        FREEDML_FLOAT_OP(RoundEven)
        FREEDML_FLOAT_OP(RoundZero)
        FREEDML_FLOAT_OP(RoundAway)
        FREEDML_FLOAT_OP(Clip)
        FREEDML_FLOAT_OP(Threshold)
        FREEDML_FLOAT_OP(Pow)
#undef FREEDML_FLOAT_OP
    }
    return cudaErrorInvalidValue;
}

cudaError_t LaunchUnaryInteger(const EwPlan<2>& plan, ElementType type, UnaryIntegerOp op, uint64_t lo, uint64_t hi,
                               void* out, const void* in, LaunchTarget launch) {
    switch (type) {
        case ElementType::I8: return LaunchIntegerTyped<int8_t>(plan, op, lo, hi, out, in, launch);
        case ElementType::U8: return LaunchIntegerTyped<uint8_t>(plan, op, lo, hi, out, in, launch);
        case ElementType::I16: return LaunchIntegerTyped<int16_t>(plan, op, lo, hi, out, in, launch);
        case ElementType::U16: return LaunchIntegerTyped<uint16_t>(plan, op, lo, hi, out, in, launch);
        case ElementType::I32: return LaunchIntegerTyped<int32_t>(plan, op, lo, hi, out, in, launch);
        case ElementType::U32: return LaunchIntegerTyped<uint32_t>(plan, op, lo, hi, out, in, launch);
        case ElementType::I64: return LaunchIntegerTyped<int64_t>(plan, op, lo, hi, out, in, launch);
        case ElementType::U64: return LaunchIntegerTyped<uint64_t>(plan, op, lo, hi, out, in, launch);
        default: return cudaErrorInvalidValue;
    }
}

cudaError_t LaunchBitNot(const EwPlan<2>& plan, uint32_t elementBytes, void* out, const void* in, LaunchTarget launch) {
    switch (elementBytes) {
        case 1: return LaunchUnaryTyped<uint8_t>(plan, BitNot<uint8_t>{}, out, in, launch);
        case 2: return LaunchUnaryTyped<uint16_t>(plan, BitNot<uint16_t>{}, out, in, launch);
        case 4: return LaunchUnaryTyped<uint32_t>(plan, BitNot<uint32_t>{}, out, in, launch);
        case 8: return LaunchUnaryTyped<uint64_t>(plan, BitNot<uint64_t>{}, out, in, launch);
        default: return cudaErrorInvalidValue;
    }
}

cudaError_t LaunchBitCount(const EwPlan<2>& plan, uint32_t inBytes, ElementType outType, void* out, const void* in,
                           LaunchTarget launch) {
    auto launchFor = [&](auto inTag) -> cudaError_t {
        using U = decltype(inTag);
        if (outType == ElementType::U8) return LaunchMap<U, uint8_t>(plan, BitCount<U, uint8_t>{}, out, in, launch);
        if (outType == ElementType::U32) return LaunchMap<U, uint32_t>(plan, BitCount<U, uint32_t>{}, out, in, launch);
        return cudaErrorInvalidValue;
    };
    switch (inBytes) {
        case 1: return launchFor(uint8_t{});
        case 2: return launchFor(uint16_t{});
        case 4: return launchFor(uint32_t{});
        case 8: return launchFor(uint64_t{});
        default: return cudaErrorInvalidValue;
    }
}

cudaError_t LaunchFloatClassTest(const EwPlan<2>& plan, ElementType inType, ElementType outType, FloatClassTest test,
                                 void* out, const void* in, LaunchTarget launch) {
    const bool out8 = outType == ElementType::U8;
    if (!out8 && outType != ElementType::U32) return cudaErrorInvalidValue;
    switch (inType) {
        case ElementType::F16:
            return out8 ? LaunchFloatClassTyped<uint16_t, uint8_t>(plan, test, out, in, launch)
                        : LaunchFloatClassTyped<uint16_t, uint32_t>(plan, test, out, in, launch);
        case ElementType::F32:
            return out8 ? LaunchFloatClassTyped<uint32_t, uint8_t>(plan, test, out, in, launch)
                        : LaunchFloatClassTyped<uint32_t, uint32_t>(plan, test, out, in, launch);
        default: return cudaErrorInvalidValue;
    }
}

cudaError_t LaunchClipGrad(const EwPlan<3>& plan, ElementType type, const ClipGradBounds& bounds, void* out,
                           const void* x, const void* gradient, LaunchTarget launch) {
    const FloatClipGrad floats{bounds.loFloat, bounds.hiFloat};
    switch (type) {
        case ElementType::F32: return LaunchBinaryTyped<float>(plan, floats, out, x, gradient, launch);
        case ElementType::F16: return LaunchBinaryTyped<__half>(plan, floats, out, x, gradient, launch);
        case ElementType::I8: return LaunchIntegerClipGrad<int8_t>(plan, bounds, out, x, gradient, launch);
        case ElementType::U8: return LaunchIntegerClipGrad<uint8_t>(plan, bounds, out, x, gradient, launch);
        case ElementType::I16: return LaunchIntegerClipGrad<int16_t>(plan, bounds, out, x, gradient, launch);
        case ElementType::U16: return LaunchIntegerClipGrad<uint16_t>(plan, bounds, out, x, gradient, launch);
        case ElementType::I32: return LaunchIntegerClipGrad<int32_t>(plan, bounds, out, x, gradient, launch);
        case ElementType::U32: return LaunchIntegerClipGrad<uint32_t>(plan, bounds, out, x, gradient, launch);
        case ElementType::I64: return LaunchIntegerClipGrad<int64_t>(plan, bounds, out, x, gradient, launch);
        case ElementType::U64: return LaunchIntegerClipGrad<uint64_t>(plan, bounds, out, x, gradient, launch);
        default: return cudaErrorInvalidValue;
    }
}

cudaError_t LaunchFillConstant(const EwPlan<1>& plan, uint32_t elementBytes, uint64_t bits, void* out,
                               LaunchTarget launch) {
    switch (elementBytes) {
        case 1: return LaunchGenerate<uint8_t>(plan, Constant<uint8_t>{uint8_t(bits)}, out, launch);
        case 2: return LaunchGenerate<uint16_t>(plan, Constant<uint16_t>{uint16_t(bits)}, out, launch);
        case 4: return LaunchGenerate<uint32_t>(plan, Constant<uint32_t>{uint32_t(bits)}, out, launch);
        case 8: return LaunchGenerate<uint64_t>(plan, Constant<uint64_t>{bits}, out, launch);
        default: return cudaErrorInvalidValue;
    }
}

cudaError_t LaunchFillSequence(const EwPlan<1>& plan, ElementType type, const FillSequenceParams& p, void* out,
                               LaunchTarget launch) {
    auto integers = [&](auto tag) {
        using T = decltype(tag);
        return LaunchGenerate<T>(plan, IntegerSequence<T>{p.startBits, p.deltaBits}, out, launch);
    };
    switch (type) {
        case ElementType::F32: return LaunchGenerate<float>(plan, FloatSequence32{p.start, p.delta}, out, launch);
        case ElementType::F64: return LaunchGenerate<double>(plan, FloatSequence64{p.start, p.delta}, out, launch);
        case ElementType::F16: return LaunchGenerate<uint16_t>(plan, FloatSequence16{p.start, p.delta}, out, launch);
        case ElementType::I8: return integers(int8_t{});
        case ElementType::U8: return integers(uint8_t{});
        case ElementType::I16: return integers(int16_t{});
        case ElementType::U16: return integers(uint16_t{});
        case ElementType::I32: return integers(int32_t{});
        case ElementType::U32: return integers(uint32_t{});
        case ElementType::I64: return integers(int64_t{});
        case ElementType::U64: return integers(uint64_t{});
    }
    return cudaErrorInvalidValue;
}

}  // namespace freedml::dml::cuda
