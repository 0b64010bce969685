// Device code of the binary element-wise family, ELEMENT_WISE_IF and the quantization operators:
// one functor per operator, written once for every type (FLOAT16 computes in float and rounds
// once when stored, as the CPU kernels do), run by the maps of elementwise.cuh (A, B and the
// output of one type: vectorized when packed) and nary_map.cuh (mixed types, more inputs).
//
// Float results must equal the CPU kernels' bit for bit where the conformance cases ask it, so
// products and sums that the CPU rounds one at a time use __fmul_rn / __fadd_rn (nvcc would
// otherwise fuse them into one FMA, rounded once).
#include <cmath>
#include <cstdint>
#include <type_traits>

#include "dml/kernels/float_math.h"
#include "dml/kernels/integer_math.h"
#include "dml/ops/elementwise_binary/cuda/binary_ops.h"
#include "dml/ops/elementwise_binary/cuda/nary_map.cuh"

namespace freedml::dml::cuda {

namespace {

// ---- Types --------------------------------------------------------------------------------------

template <class T>
constexpr uint32_t BitOf() {
    if constexpr (std::is_same_v<T, float>) return 1u << uint32_t(ElementType::F32);
    else if constexpr (std::is_same_v<T, __half>) return 1u << uint32_t(ElementType::F16);
    else if constexpr (std::is_same_v<T, double>) return 1u << uint32_t(ElementType::F64);
    else if constexpr (std::is_same_v<T, int8_t>) return 1u << uint32_t(ElementType::I8);
    else if constexpr (std::is_same_v<T, uint8_t>) return 1u << uint32_t(ElementType::U8);
    else if constexpr (std::is_same_v<T, int16_t>) return 1u << uint32_t(ElementType::I16);
    else if constexpr (std::is_same_v<T, uint16_t>) return 1u << uint32_t(ElementType::U16);
    else if constexpr (std::is_same_v<T, int32_t>) return 1u << uint32_t(ElementType::I32);
    else if constexpr (std::is_same_v<T, uint32_t>) return 1u << uint32_t(ElementType::U32);
    else if constexpr (std::is_same_v<T, int64_t>) return 1u << uint32_t(ElementType::I64);
    else return 1u << uint32_t(ElementType::U64);
}

constexpr uint32_t kF32 = BitOf<float>(), kF16 = BitOf<__half>(), kF64 = BitOf<double>();
constexpr uint32_t kIntegers = BitOf<int8_t>() | BitOf<uint8_t>() | BitOf<int16_t>() | BitOf<uint16_t>() |
                               BitOf<int32_t>() | BitOf<uint32_t>() | BitOf<int64_t>() | BitOf<uint64_t>();
constexpr uint32_t kUnsigned = BitOf<uint8_t>() | BitOf<uint16_t>() | BitOf<uint32_t>() | BitOf<uint64_t>();
constexpr uint32_t kNumeric = kF32 | kF16 | kIntegers;
constexpr uint32_t kFloat32Integers = kF32 | kF16 | BitOf<int32_t>() | BitOf<uint32_t>();
constexpr uint32_t kBoolean = BitOf<uint8_t>() | BitOf<uint32_t>();
constexpr uint32_t kAll = kNumeric | kF64;
constexpr uint32_t kPowBases = kF32 | kF16 | BitOf<int8_t>() | BitOf<uint8_t>() | BitOf<int16_t>() |
                               BitOf<uint16_t>() | BitOf<int32_t>() | BitOf<uint32_t>();

template <class T>
struct Tag {
    using type = T;
};

// Calls visit(Tag<storage type>{}) for `type`.
template <class Visit>
cudaError_t VisitType(ElementType type, Visit&& visit) {
    switch (type) {
        case ElementType::F32: return visit(Tag<float>{});
        case ElementType::F16: return visit(Tag<__half>{});
        case ElementType::F64: return visit(Tag<double>{});
        case ElementType::I8: return visit(Tag<int8_t>{});
        case ElementType::U8: return visit(Tag<uint8_t>{});
        case ElementType::I16: return visit(Tag<int16_t>{});
        case ElementType::U16: return visit(Tag<uint16_t>{});
        case ElementType::I32: return visit(Tag<int32_t>{});
        case ElementType::U32: return visit(Tag<uint32_t>{});
        case ElementType::I64: return visit(Tag<int64_t>{});
        case ElementType::U64: return visit(Tag<uint64_t>{});
    }
    return cudaErrorInvalidValue;
}

// The unsigned type of an element's width: what bitwise operators and selection move.
template <class Visit>
cudaError_t VisitWidth(uint32_t bytes, Visit&& visit) {
    switch (bytes) {
        case 1: return visit(Tag<uint8_t>{});
        case 2: return visit(Tag<uint16_t>{});
        case 4: return visit(Tag<uint32_t>{});
        case 8: return visit(Tag<uint64_t>{});
        default: return cudaErrorInvalidValue;
    }
}

template <class T>
constexpr bool kFloat = std::is_floating_point_v<T>;


// ---- Arithmetic (the compute type: float for FLOAT16) --------------------------------------------

struct SubtractOp {
    template <class T>
    __device__ T operator()(T a, T b) const {
        if constexpr (kFloat<T>) return a - b;
        else return T(Wide<T>(a) - Wide<T>(b));
    }
};

struct MultiplyOp {
    template <class T>
    __device__ T operator()(T a, T b) const {
        if constexpr (kFloat<T>) return a * b;
        else return T(Wide<T>(a) * Wide<T>(b));
    }
};

struct DivideOp {
    template <class T>
    __device__ T operator()(T a, T b) const {
        if constexpr (kFloat<T>) {
            return a / b;
        } else {
            if (b == T(0)) return T(0);
            if constexpr (std::is_signed_v<T>) {
                if (b == T(-1)) return T(Wide<T>(0) - Wide<T>(a));  // INT_MIN / -1 wraps to INT_MIN
            }
            return T(a / b);
        }
    }
};

// maxNum / minNum with signed zeros ordered: equal operands combine their bits (AND keeps +0 for
// MAX, OR keeps -0 for MIN), then a NaN operand yields the other one.
struct MaxOp {
    template <class T>
    __device__ T operator()(T a, T b) const {
        if constexpr (kFloat<T>) {
            return MaxNumber(a, b);  // kernels/float_math.h: the CPU's rule too
        } else {
            return a > b ? a : b;
        }
    }
};

struct MinOp {
    template <class T>
    __device__ T operator()(T a, T b) const {
        if constexpr (kFloat<T>) {
            return MinNumber(a, b);
        } else {
            return a < b ? a : b;
        }
    }
};

struct MeanOp {
    template <class T>
    __device__ T operator()(T a, T b) const {
        if constexpr (kFloat<T>) return T((double(a) + double(b)) * 0.5);  // exact sum, one rounding
        else if constexpr (std::is_signed_v<T>) return T((int64_t(a) + int64_t(b)) / 2);  // toward zero
        else return T((uint64_t(a) + uint64_t(b)) / 2);
    }
};

// In double, then rounded once: within an ulp of the CPU's atan2f.
struct AtanYXOp {
    template <class T>
    __device__ T operator()(T y, T x) const { return T(atan2(double(y), double(x))); }
};

struct DifferenceSquareOp {
    template <class T>
    __device__ T operator()(T a, T b) const {
        if constexpr (kFloat<T>) {
            const T d = a - b;
            return d * d;
        } else {
            const Wide<T> d = Wide<T>(a) - Wide<T>(b);
            return T(d * d);
        }
    }
};

struct ModulusTruncateOp {
    template <class T>
    __device__ T operator()(T a, T b) const {
        if constexpr (kFloat<T>) {
            return fmod(a, b);
        } else {
            if (b == T(0)) return T(0);
            if constexpr (std::is_signed_v<T>) {
                if (b == T(-1)) return T(0);
            }
            return T(a % b);
        }
    }
};

// Python's %: the result takes the divisor's sign (a zero result too).
struct ModulusFloorOp {
    template <class T>
    __device__ T operator()(T a, T b) const {
        if constexpr (kFloat<T>) {
            T m = fmod(a, b);
            if (b == T(0)) return m;  // NaN
            if (m != T(0)) {
                if ((b < T(0)) != (m < T(0))) m += b;
            } else {
                m = copysign(T(0), b);
            }
            return m;
        } else {
            if (b == T(0)) return T(0);
            if constexpr (std::is_signed_v<T>) {
                if (b == T(-1)) return T(0);
                T m = T(a % b);
                if (m != T(0) && ((m < T(0)) != (b < T(0)))) m = T(m + b);
                return m;
            } else {
                return T(a % b);
            }
        }
    }
};

// ---- Bitwise and logical (unsigned elements) ----------------------------------------------------

struct BitAndOp {
    template <class T>
    __device__ T operator()(T a, T b) const { return T(a & b); }
};
struct BitOrOp {
    template <class T>
    __device__ T operator()(T a, T b) const { return T(a | b); }
};
struct BitXorOp {
    template <class T>
    __device__ T operator()(T a, T b) const { return T(a ^ b); }
};

// Logical shifts; a count of the width or more shifts everything out.
struct ShiftLeftOp {
    template <class T>
    __device__ T operator()(T a, T b) const { return b >= T(sizeof(T) * 8) ? T(0) : T(Wide<T>(a) << b); }
};
struct ShiftRightOp {
    template <class T>
    __device__ T operator()(T a, T b) const { return b >= T(sizeof(T) * 8) ? T(0) : T(Wide<T>(a) >> b); }
};

struct LogicalAndOp {
    template <class T>
    __device__ T operator()(T a, T b) const { return T((a != T(0)) & (b != T(0))); }
};
struct LogicalOrOp {
    template <class T>
    __device__ T operator()(T a, T b) const { return T((a != T(0)) | (b != T(0))); }
};
struct LogicalXorOp {
    template <class T>
    __device__ T operator()(T a, T b) const { return T((a != T(0)) ^ (b != T(0))); }
};

// ---- Comparisons (UINT8 or UINT32 out) -----------------------------------------------------------

struct EqualsOp {
    template <class C>
    __device__ bool operator()(C a, C b) const { return a == b; }
};
struct GreaterThanOp {
    template <class C>
    __device__ bool operator()(C a, C b) const { return a > b; }
};
struct LessThanOp {
    template <class C>
    __device__ bool operator()(C a, C b) const { return a < b; }
};
struct GreaterThanOrEqualOp {
    template <class C>
    __device__ bool operator()(C a, C b) const { return a >= b; }
};
struct LessThanOrEqualOp {
    template <class C>
    __device__ bool operator()(C a, C b) const { return a <= b; }
};

// ---- Launch helpers ------------------------------------------------------------------------------

// A and B of A's type into the same type, for the types in kAllowed.
template <uint32_t kAllowed, class F>
cudaError_t SameType(ElementType type, F f, const EwPlan<3>& plan, void* out, const void* a, const void* b,
                     LaunchTarget launch) {
    return VisitType(type, [&](auto tag) -> cudaError_t {
        using T = typename decltype(tag)::type;
        if constexpr ((kAllowed & BitOf<T>()) != 0) return LaunchBinaryTyped<T>(plan, f, out, a, b, launch);
        else return cudaErrorInvalidValue;
    });
}

// Bitwise operators see only the encoding: the element width picks the kernel.
template <class F>
cudaError_t Bitwise(ElementType type, F f, const EwPlan<3>& plan, void* out, const void* a, const void* b,
                    LaunchTarget launch) {
    return VisitWidth(ElementBytes(type), [&](auto tag) -> cudaError_t {
        using T = typename decltype(tag)::type;
        return LaunchBinaryTyped<T>(plan, f, out, a, b, launch);
    });
}

template <class F>
cudaError_t Comparison(ElementType type, ElementType output, F f, const EwPlan<3>& plan, void* out, const void* a,
                       const void* b, LaunchTarget launch) {
    return VisitType(type, [&](auto tag) -> cudaError_t {
        using T = typename decltype(tag)::type;
        if constexpr ((kNumeric & BitOf<T>()) != 0) {
            if (output == ElementType::U8) return LaunchNary<F, uint8_t, T, T>(plan, f, out, {a, b}, launch);
            if (output == ElementType::U32) return LaunchNary<F, uint32_t, T, T>(plan, f, out, {a, b}, launch);
        }
        return cudaErrorInvalidValue;
    });
}

// ---- POW ----------------------------------------------------------------------------------------

// Floats to powers of their own type: vectorized through the binary map.
struct PowFloatOp {
    PowParams p;
    template <class C>
    __device__ C operator()(C base, C exponent) const {
        double x = double(base);
        if (p.hasScaleBias) x = double(__fadd_rn(__fmul_rn(float(base), p.scale), p.bias));
        return C(pow(x, double(exponent)));
    }
};

__device__ __forceinline__ double ExponentAsDouble(ElementType type, const char* p) {
    switch (type) {
        case ElementType::F32: return *reinterpret_cast<const float*>(p);
        case ElementType::F16: return __half2float(*reinterpret_cast<const __half*>(p));
        case ElementType::I8: return *reinterpret_cast<const int8_t*>(p);
        case ElementType::U8: return *reinterpret_cast<const uint8_t*>(p);
        case ElementType::I16: return *reinterpret_cast<const int16_t*>(p);
        case ElementType::U16: return *reinterpret_cast<const uint16_t*>(p);
        case ElementType::I32: return *reinterpret_cast<const int32_t*>(p);
        case ElementType::U32: return *reinterpret_cast<const uint32_t*>(p);
        default: return 0.0;
    }
}

__device__ __forceinline__ int64_t ExponentAsInteger(ElementType type, const char* p) {
    switch (type) {
        case ElementType::I8: return *reinterpret_cast<const int8_t*>(p);
        case ElementType::U8: return *reinterpret_cast<const uint8_t*>(p);
        case ElementType::I16: return *reinterpret_cast<const int16_t*>(p);
        case ElementType::U16: return *reinterpret_cast<const uint16_t*>(p);
        case ElementType::I32: return *reinterpret_cast<const int32_t*>(p);
        case ElementType::U32: return *reinterpret_cast<const uint32_t*>(p);
        default: return 0;
    }
}

// pow for a result truncated to an integer. CUDA's pow (within 2 ulps) may land just below an
// exact integer result that the CPU's pow returns exactly, and truncation would then take the
// integer below. An integral exponent is applied by repeated squaring instead: the products are
// exact while the result is (up to 2^53, beyond every integer output's range), none larger than it.
__device__ __forceinline__ double PowForInteger(double x, double y) {
    const double magnitude = fabs(y);
    if (y != trunc(y) || !(magnitude < 9.2e18)) return pow(x, y);
    double result = 1.0, factor = x;
    for (uint64_t e = uint64_t(magnitude); e;) {
        if (e & 1) result *= factor;
        e >>= 1;
        if (e) factor *= factor;
    }
    return y < 0 ? 1.0 / result : result;
}

// Any base type with an exponent of any type (read by its type at run time: one kernel per base).
template <class T>
__global__ void __launch_bounds__(kThreads)
    PowMixed(StridedArgs<3> args, ElementType exponentType, uint32_t exponentBytes, bool exactIntegers, PowParams p) {
    const uint64_t step = uint64_t(gridDim.x) * blockDim.x;
    for (uint64_t i = uint64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < args.plan.count; i += step) {
        int64_t o[3];
        Offsets(args.plan, i, o);
        T* out = reinterpret_cast<T*>(args.base[0]) + o[0];
        const T* a = reinterpret_cast<const T*>(args.base[1]) + o[1];
        const char* b = args.base[2] + o[2] * int64_t(exponentBytes);
        if constexpr (std::is_integral_v<T>) {
            if (exactIntegers) {
                *out = IntegerPow<T>(*a, ExponentAsInteger(exponentType, b));
                continue;
            }
        }
        double x = double(LoadAs(a));
        if (p.hasScaleBias) x = double(__fadd_rn(__fmul_rn(float(x), p.scale), p.bias));
        const double y = ExponentAsDouble(exponentType, b);
        if constexpr (std::is_integral_v<T>) *out = SaturatingTruncate<T>(PowForInteger(x, y));
        else StoreAs(out, float(pow(x, y)));
    }
}

// ---- Quantization ------------------------------------------------------------------------------

__device__ uint64_t gZeroPoint[2] = {0, 0};  // what an absent zero point reads (stride 0)

cudaError_t ZeroPointOr(const void* given, const void** out) {
    if (given) {
        *out = given;
        return cudaSuccess;
    }
    void* zero = nullptr;
    const cudaError_t error = cudaGetSymbolAddress(&zero, gZeroPoint);
    *out = zero;
    return error;
}

// Round half to even (the default rounding mode), add the zero point, saturate; NaN gives the
// zero point. Float arithmetic as the CPU kernel writes it.
template <class Q>
__device__ __forceinline__ Q QuantizeValue(float value, int32_t zeroPoint) {
    const float r = rintf(value);
    if (r != r) return Q(zeroPoint);
    const float shifted = __fadd_rn(r, float(zeroPoint));
    const float lo = float(IntegerLimits<Q>::kMin), hi = float(IntegerLimits<Q>::kMax);
    return Q(int32_t(shifted < lo ? lo : (shifted > hi ? hi : shifted)));
}

template <class Q>
struct QuantizeOp {
    template <class CIn, class CScale, class CZero>
    __device__ Q operator()(CIn x, CScale scale, CZero zeroPoint) const {
        return QuantizeValue<Q>(__fdiv_rn(float(x), float(scale)), int32_t(zeroPoint));
    }
};

struct DequantizeOp {
    template <class CIn, class CScale>
    __device__ float operator()(CIn x, CScale scale, CIn zeroPoint) const {
        return __fmul_rn(float(int64_t(x) - int64_t(zeroPoint)), float(scale));
    }
};

template <class Q>
struct QuantizedAddOp {
    template <class CA, class CB, class CZero>
    __device__ Q operator()(CA a, float aScale, CA aZero, CB b, float bScale, CB bZero, float outScale,
                            CZero outZero) const {
        const float x = __fmul_rn(float(int64_t(a) - int64_t(aZero)), aScale);
        const float y = __fmul_rn(float(int64_t(b) - int64_t(bZero)), bScale);
        return QuantizeValue<Q>(__fdiv_rn(__fadd_rn(x, y), outScale), int32_t(outZero));
    }
};

template <class Visit>
cudaError_t VisitQuantized(ElementType type, Visit&& visit) {
    if (type == ElementType::I8) return visit(Tag<int8_t>{});
    if (type == ElementType::U8) return visit(Tag<uint8_t>{});
    return cudaErrorInvalidValue;
}

template <class Visit>
cudaError_t VisitScale(ElementType type, Visit&& visit) {
    if (type == ElementType::F32) return visit(Tag<float>{});
    if (type == ElementType::F16) return visit(Tag<__half>{});
    return cudaErrorInvalidValue;
}

// ---- Selection ---------------------------------------------------------------------------------

struct SelectOp {
    template <class U>
    __device__ U operator()(uint8_t condition, U a, U b) const { return condition != 0 ? a : b; }
};

}  // namespace

uint32_t BinaryOpTypes(BinaryOp op) {
    switch (op) {
        case BinaryOp::Subtract: case BinaryOp::Multiply: case BinaryOp::Divide:
        case BinaryOp::Min: case BinaryOp::Max: case BinaryOp::ModulusTruncate:
        case BinaryOp::ModulusFloor:
            return kNumeric;
        case BinaryOp::Mean: case BinaryOp::DifferenceSquare: return kFloat32Integers;
        case BinaryOp::AtanYX: return kF32 | kF16;
        case BinaryOp::BitAnd: case BinaryOp::BitOr: case BinaryOp::BitXor: return kAll;
        case BinaryOp::ShiftLeft: case BinaryOp::ShiftRight: return kUnsigned;
        case BinaryOp::LogicalAnd: case BinaryOp::LogicalOr: case BinaryOp::LogicalXor: return kBoolean;
        case BinaryOp::Equals: case BinaryOp::GreaterThan: case BinaryOp::LessThan:
        case BinaryOp::GreaterThanOrEqual: case BinaryOp::LessThanOrEqual:
            return kNumeric;
        case BinaryOp::Add: case BinaryOp::Pow:  // LaunchAdd and LaunchPow
            return 0;
    }
    return 0;
}

cudaError_t LaunchBinaryOp(BinaryOp op, const EwPlan<3>& plan, ElementType type, ElementType output, void* out,
                           const void* a, const void* b, LaunchTarget launch) {
    if ((BinaryOpTypes(op) & BinaryTypeBit(type)) == 0) return cudaErrorInvalidValue;
    if (!IsComparison(op) && output != type) return cudaErrorInvalidValue;
    switch (op) {
        case BinaryOp::Subtract: return SameType<kNumeric>(type, SubtractOp{}, plan, out, a, b, launch);
        case BinaryOp::Multiply: return SameType<kNumeric>(type, MultiplyOp{}, plan, out, a, b, launch);
        case BinaryOp::Divide: return SameType<kNumeric>(type, DivideOp{}, plan, out, a, b, launch);
        case BinaryOp::Min: return SameType<kNumeric>(type, MinOp{}, plan, out, a, b, launch);
        case BinaryOp::Max: return SameType<kNumeric>(type, MaxOp{}, plan, out, a, b, launch);
        case BinaryOp::Mean: return SameType<kFloat32Integers>(type, MeanOp{}, plan, out, a, b, launch);
        case BinaryOp::AtanYX: return SameType<kF32 | kF16>(type, AtanYXOp{}, plan, out, a, b, launch);
        case BinaryOp::DifferenceSquare:
            return SameType<kFloat32Integers>(type, DifferenceSquareOp{}, plan, out, a, b, launch);
        case BinaryOp::ModulusTruncate:
            return SameType<kNumeric>(type, ModulusTruncateOp{}, plan, out, a, b, launch);
        case BinaryOp::ModulusFloor: return SameType<kNumeric>(type, ModulusFloorOp{}, plan, out, a, b, launch);
        case BinaryOp::BitAnd: return Bitwise(type, BitAndOp{}, plan, out, a, b, launch);
        case BinaryOp::BitOr: return Bitwise(type, BitOrOp{}, plan, out, a, b, launch);
        case BinaryOp::BitXor: return Bitwise(type, BitXorOp{}, plan, out, a, b, launch);
        case BinaryOp::ShiftLeft: return SameType<kUnsigned>(type, ShiftLeftOp{}, plan, out, a, b, launch);
        case BinaryOp::ShiftRight: return SameType<kUnsigned>(type, ShiftRightOp{}, plan, out, a, b, launch);
        case BinaryOp::LogicalAnd: return SameType<kBoolean>(type, LogicalAndOp{}, plan, out, a, b, launch);
        case BinaryOp::LogicalOr: return SameType<kBoolean>(type, LogicalOrOp{}, plan, out, a, b, launch);
        case BinaryOp::LogicalXor: return SameType<kBoolean>(type, LogicalXorOp{}, plan, out, a, b, launch);
        case BinaryOp::Equals: return Comparison(type, output, EqualsOp{}, plan, out, a, b, launch);
        case BinaryOp::GreaterThan: return Comparison(type, output, GreaterThanOp{}, plan, out, a, b, launch);
        case BinaryOp::LessThan: return Comparison(type, output, LessThanOp{}, plan, out, a, b, launch);
        case BinaryOp::GreaterThanOrEqual:
            return Comparison(type, output, GreaterThanOrEqualOp{}, plan, out, a, b, launch);
        case BinaryOp::LessThanOrEqual:
            return Comparison(type, output, LessThanOrEqualOp{}, plan, out, a, b, launch);
        case BinaryOp::Add: case BinaryOp::Pow:  // LaunchAdd and LaunchPow
            break;
    }
    return cudaErrorInvalidValue;
}

cudaError_t LaunchPow(const EwPlan<3>& plan, ElementType base, ElementType exponent, const PowParams& params,
                      void* out, const void* a, const void* b, LaunchTarget launch) {
    if ((kPowBases & BinaryTypeBit(base)) == 0 || (kPowBases & BinaryTypeBit(exponent)) == 0) {
        return cudaErrorInvalidValue;
    }
    if (plan.count == 0) return cudaSuccess;
    if (base == exponent && base == ElementType::F32) {
        return LaunchBinaryTyped<float>(plan, PowFloatOp{params}, out, a, b, launch);
    }
    if (base == exponent && base == ElementType::F16) {
        return LaunchBinaryTyped<__half>(plan, PowFloatOp{params}, out, a, b, launch);
    }
    const bool exactIntegers = !IsFloatingPoint(base) && !IsFloatingPoint(exponent) && !params.hasScaleBias;
    return VisitType(base, [&](auto tag) -> cudaError_t {
        using T = typename decltype(tag)::type;
        if constexpr ((kPowBases & BitOf<T>()) != 0) {
            StridedArgs<3> args{plan,
                                {static_cast<char*>(out), const_cast<char*>(static_cast<const char*>(a)),
                                 const_cast<char*>(static_cast<const char*>(b))}};
            PowMixed<T><<<launch.Blocks(plan.count, kThreads), kThreads, 0, launch.stream>>>(
                args, exponent, ElementBytes(exponent), exactIntegers, params);
            return cudaGetLastError();
        } else {
            return cudaErrorInvalidValue;
        }
    });
}

cudaError_t LaunchQuantize(const EwPlan<4>& plan, ElementType input, ElementType scale, ElementType output, void* out,
                           const void* in, const void* scaleData, const void* zeroPoint, LaunchTarget launch) {
    const void* zero = nullptr;
    if (cudaError_t error = ZeroPointOr(zeroPoint, &zero); error != cudaSuccess) return error;
    return VisitQuantized(output, [&](auto outTag) -> cudaError_t {
        using Q = typename decltype(outTag)::type;
        return VisitScale(scale, [&](auto scaleTag) -> cudaError_t {
            using S = typename decltype(scaleTag)::type;
            const void* const operands[3] = {in, scaleData, zero};
            using Op = QuantizeOp<Q>;
            switch (input) {
                case ElementType::F32: return LaunchNary<Op, Q, float, S, Q>(plan, {}, out, operands, launch);
                case ElementType::F16: return LaunchNary<Op, Q, __half, S, Q>(plan, {}, out, operands, launch);
                case ElementType::I32: return LaunchNary<Op, Q, int32_t, S, Q>(plan, {}, out, operands, launch);
                default: return cudaErrorInvalidValue;
            }
        });
    });
}

cudaError_t LaunchDequantize(const EwPlan<4>& plan, ElementType input, ElementType output, void* out, const void* in,
                             const void* scaleData, const void* zeroPoint, LaunchTarget launch) {
    const void* zero = nullptr;
    if (cudaError_t error = ZeroPointOr(zeroPoint, &zero); error != cudaSuccess) return error;
    constexpr uint32_t kInputs = BitOf<int8_t>() | BitOf<uint8_t>() | BitOf<int16_t>() | BitOf<uint16_t>() |
                                 BitOf<int32_t>() | BitOf<uint32_t>();
    return VisitScale(output, [&](auto outTag) -> cudaError_t {
        using S = typename decltype(outTag)::type;
        return VisitType(input, [&](auto inTag) -> cudaError_t {
            using T = typename decltype(inTag)::type;
            if constexpr ((kInputs & BitOf<T>()) != 0) {
                const void* const operands[3] = {in, scaleData, zero};
                return LaunchNary<DequantizeOp, S, T, S, T>(plan, {}, out, operands, launch);
            } else {
                return cudaErrorInvalidValue;
            }
        });
    });
}

namespace {

__device__ __forceinline__ int32_t QuantizeToRange(float value, int32_t zeroPoint, int32_t lo, int32_t hi) {
    const float r = rintf(value);
    if (r != r) return zeroPoint;
    const float shifted = __fadd_rn(r, float(zeroPoint));
    return int32_t(shifted < float(lo) ? float(lo) : (shifted > float(hi) ? float(hi) : shifted));
}

__device__ __forceinline__ int32_t LoadQuantizedAt(QuantizedType type, const uint8_t* base, uint64_t index) {
    switch (type) {
        case QuantizedType::I8:
            return reinterpret_cast<const int8_t*>(base)[index];
        case QuantizedType::U8:
            return base[index];
        default: {
            const uint8_t byte = base[index / 2];
            const int32_t nibble = (index & 1) ? byte >> 4 : byte & 0xF;
            return type == QuantizedType::I4 ? (nibble ^ 8) - 8 : nibble;
        }
    }
}

// Writes one nibble and leaves its neighbour: another thread may write the other element of the
// byte, so the aligned word holding it changes through one compare-and-swap loop.
__device__ __forceinline__ void StoreNibble(uint8_t* base, uint64_t index, int32_t value) {
    uint8_t* byte = base + index / 2;
    const uintptr_t address = reinterpret_cast<uintptr_t>(byte);
    auto* word = reinterpret_cast<unsigned int*>(address & ~uintptr_t(3));
    const unsigned shift = unsigned(address & 3) * 8 + ((index & 1) ? 4 : 0);
    const unsigned keep = ~(0xFu << shift), bits = (unsigned(value) & 0xFu) << shift;
    unsigned old = *word, assumed;
    do {
        assumed = old;
        old = atomicCAS(word, assumed, (assumed & keep) | bits);
    } while (old != assumed);
}

template <class F>
__global__ void __launch_bounds__(kThreads)
    QuantizeIndexedKernel(QuantizeIndexPlan plan, bool dequantize, QuantizedType quantized, void* out, const void* in,
                          const void* scaleData, const void* zeroPoint) {
    for (uint64_t i = blockIdx.x * uint64_t(blockDim.x) + threadIdx.x; i < plan.count;
         i += uint64_t(gridDim.x) * blockDim.x) {
        uint64_t at[4] = {0, 0, 0, 0};
        uint64_t rest = i;
        for (int d = plan.rank - 1; d >= 0; --d) {
            const uint32_t index = uint32_t(rest % plan.sizes[d]);
            rest /= plan.sizes[d];
            for (int k = 0; k < 4; ++k) at[k] += uint64_t(index / plan.blocks[k][d]) * plan.strides[k][d];
        }
        const int32_t zero = zeroPoint ? LoadQuantizedAt(quantized, static_cast<const uint8_t*>(zeroPoint), at[3]) : 0;
        const float scale = float(static_cast<const F*>(scaleData)[at[2]]);
        if (dequantize) {
            const int32_t x = LoadQuantizedAt(quantized, static_cast<const uint8_t*>(in), at[1]);
            static_cast<F*>(out)[at[0]] = F(__fmul_rn(float(x - zero), scale));
            continue;
        }
        const float v = __fdiv_rn(float(static_cast<const F*>(in)[at[1]]), scale);
        auto* o = static_cast<uint8_t*>(out);
        switch (quantized) {
            case QuantizedType::I8:
                reinterpret_cast<int8_t*>(o)[at[0]] = int8_t(QuantizeToRange(v, zero, -128, 127));
                break;
            case QuantizedType::U8:
                o[at[0]] = uint8_t(QuantizeToRange(v, zero, 0, 255));
                break;
            case QuantizedType::I4:
                StoreNibble(o, at[0], QuantizeToRange(v, zero, -8, 7));
                break;
            case QuantizedType::U4:
                StoreNibble(o, at[0], QuantizeToRange(v, zero, 0, 15));
                break;
        }
    }
}

}  // namespace

cudaError_t LaunchQuantizeIndexed(const QuantizeIndexPlan& plan, bool dequantize, ElementType floatType,
                                  QuantizedType quantized, void* out, const void* in, const void* scaleData,
                                  const void* zeroPoint, LaunchTarget launch) {
    if (plan.count == 0) return cudaSuccess;
    const int blocks = launch.Blocks(plan.count, kThreads);
    if (floatType == ElementType::F32) {
        QuantizeIndexedKernel<float>
            <<<blocks, kThreads, 0, launch.stream>>>(plan, dequantize, quantized, out, in, scaleData, zeroPoint);
    } else if (floatType == ElementType::F16) {
        QuantizeIndexedKernel<__half>
            <<<blocks, kThreads, 0, launch.stream>>>(plan, dequantize, quantized, out, in, scaleData, zeroPoint);
    } else {
        return cudaErrorInvalidValue;
    }
    return cudaGetLastError();
}

cudaError_t LaunchQuantizedAdd(const EwPlan<9>& plan, ElementType a, ElementType b, ElementType output, void* out,
                               const void* const (&in)[8], LaunchTarget launch) {
    constexpr int kZeroPointAt[3] = {2, 5, 7};
    const void* zeroPoints[3] = {};
    for (int k = 0; k < 3; ++k) {
        if (cudaError_t error = ZeroPointOr(in[kZeroPointAt[k]], &zeroPoints[k]); error != cudaSuccess) return error;
    }
    const void* const given[8] = {in[0], in[1], zeroPoints[0], in[3], in[4], zeroPoints[1], in[6], zeroPoints[2]};
    return VisitQuantized(a, [&](auto aTag) -> cudaError_t {
        using A = typename decltype(aTag)::type;
        return VisitQuantized(b, [&](auto bTag) -> cudaError_t {
            using B = typename decltype(bTag)::type;
            return VisitQuantized(output, [&](auto outTag) -> cudaError_t {
                using Q = typename decltype(outTag)::type;
                return LaunchNary<QuantizedAddOp<Q>, Q, A, float, A, B, float, B, float, Q>(plan, {}, out, given,
                                                                                           launch);
            });
        });
    });
}

cudaError_t LaunchSelect(const EwPlan<4>& plan, uint32_t elementBytes, void* out, const void* condition,
                         const void* a, const void* b, LaunchTarget launch) {
    return VisitWidth(elementBytes, [&](auto tag) -> cudaError_t {
        using U = typename decltype(tag)::type;
        return LaunchNary<SelectOp, U, uint8_t, U, U>(plan, {}, out, {condition, a, b}, launch);
    });
}

}  // namespace freedml::dml::cuda
