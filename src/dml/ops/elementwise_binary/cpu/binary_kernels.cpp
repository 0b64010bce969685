#include "dml/ops/elementwise_binary/cpu/binary_kernels.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <type_traits>

#include "dml/kernels/cpu/cpu_isa.h"
#include "dml/kernels/cpu/float16.h"
#include "dml/kernels/cpu/thread_pool.h"
#include "dml/kernels/float_math.h"
#include "dml/kernels/integer_math.h"

#if defined(__x86_64__) || defined(__i386__)
#define FREEDML_BINARY_X86 1
#include <emmintrin.h>
#endif
#include <unistd.h>

// GCC's -O2 vectorizes only loops without a remainder; the row loops below need its -O3 cost
// model. Clang vectorizes them at -O2.
#if defined(__GNUC__) && !defined(__clang__)
#define FREEDML_VECTORIZE __attribute__((optimize("O3")))
#else
#define FREEDML_VECTORIZE
#endif
#define FREEDML_INLINE __attribute__((always_inline)) inline

namespace freedml::dml::cpu {
namespace {

// FLOAT16 storage, kept apart from UINT16 in templates.
struct Half {
    uint16_t bits;
};

template <class T>
constexpr bool kIsFloat = std::is_floating_point_v<T>;

template <class T>
FREEDML_INLINE T Load(const std::byte* p) {
    T v;
    std::memcpy(&v, p, sizeof(T));
    return v;
}

template <class T>
FREEDML_INLINE void Store(std::byte* p, T v) {
    std::memcpy(p, &v, sizeof(T));
}

// ---- Operators on one pair of elements --------------------------------------------------------

struct AddOp {
    template <class T>
    static FREEDML_INLINE T Apply(T a, T b) {
        if constexpr (kIsFloat<T>) return a + b;
        else return T(Wide<T>(a) + Wide<T>(b));
    }
};

struct SubtractOp {
    template <class T>
    static FREEDML_INLINE T Apply(T a, T b) {
        if constexpr (kIsFloat<T>) return a - b;
        else return T(Wide<T>(a) - Wide<T>(b));
    }
};

struct MultiplyOp {
    template <class T>
    static FREEDML_INLINE T Apply(T a, T b) {
        if constexpr (kIsFloat<T>) return a * b;
        else return T(Wide<T>(a) * Wide<T>(b));
    }
};

struct DivideOp {
    template <class T>
    static FREEDML_INLINE T Apply(T a, T b) {
        if constexpr (kIsFloat<T>) {
            return a / b;
        } else {
            if (b == 0) return T(0);
            if constexpr (std::is_signed_v<T>) {
                if (b == T(-1)) return T(Wide<T>(0) - Wide<T>(a));  // INT_MIN / -1 wraps
            }
            return T(a / b);
        }
    }
};

// Floats: maxNum / minNum with signed zeros ordered, as on CUDA (kernels/float_math.h).
struct MaxOp {
    template <class T>
    static FREEDML_INLINE T Apply(T a, T b) {
        if constexpr (kIsFloat<T>) {
            return MaxNumber(a, b);
        } else {
            return a > b ? a : b;
        }
    }
};

struct MinOp {
    template <class T>
    static FREEDML_INLINE T Apply(T a, T b) {
        if constexpr (kIsFloat<T>) {
            return MinNumber(a, b);
        } else {
            return a < b ? a : b;
        }
    }
};

struct MeanOp {
    template <class T>
    static FREEDML_INLINE T Apply(T a, T b) {
        if constexpr (kIsFloat<T>) {
            return T((double(a) + double(b)) * 0.5);  // exact sum, one rounding
        } else if constexpr (std::is_signed_v<T>) {
            return T((int64_t(a) + int64_t(b)) / 2);  // truncates toward zero
        } else {
            return T((uint64_t(a) + uint64_t(b)) / 2);
        }
    }
};

struct AtanYXOp {
    template <class T>
    static FREEDML_INLINE T Apply(T y, T x) {
        return std::atan2(y, x);
    }
};

struct DifferenceSquareOp {
    template <class T>
    static FREEDML_INLINE T Apply(T a, T b) {
        if constexpr (kIsFloat<T>) {
            T d = a - b;
            return d * d;
        } else {
            Wide<T> d = Wide<T>(a) - Wide<T>(b);
            return T(d * d);
        }
    }
};

struct ModulusTruncateOp {
    template <class T>
    static FREEDML_INLINE T Apply(T a, T b) {
        if constexpr (kIsFloat<T>) {
            return std::fmod(a, b);
        } else {
            if (b == 0) return T(0);
            if constexpr (std::is_signed_v<T>) {
                if (b == T(-1)) return T(0);
            }
            return T(a % b);
        }
    }
};

struct ModulusFloorOp {
    template <class T>
    static FREEDML_INLINE T Apply(T a, T b) {
        if constexpr (kIsFloat<T>) {
            T m = std::fmod(a, b);
            if (b == 0) return m;  // NaN
            if (m != 0) {
                if ((b < 0) != (m < 0)) m += b;
            } else {
                m = std::copysign(T(0), b);
            }
            return m;
        } else {
            if (b == 0) return T(0);
            if constexpr (std::is_signed_v<T>) {
                if (b == T(-1)) return T(0);
                T m = T(a % b);
                if (m != 0 && ((m < 0) != (b < 0))) m = T(m + b);
                return m;
            } else {
                return T(a % b);
            }
        }
    }
};

struct BitAndOp {
    template <class T>
    static FREEDML_INLINE T Apply(T a, T b) { return T(a & b); }
};
struct BitOrOp {
    template <class T>
    static FREEDML_INLINE T Apply(T a, T b) { return T(a | b); }
};
struct BitXorOp {
    template <class T>
    static FREEDML_INLINE T Apply(T a, T b) { return T(a ^ b); }
};

// Logical shifts of unsigned elements; a count of the width or more shifts everything out.
struct ShiftLeftOp {
    template <class T>
    static FREEDML_INLINE T Apply(T a, T b) {
        return b >= T(sizeof(T) * 8) ? T(0) : T(Wide<T>(a) << b);
    }
};
struct ShiftRightOp {
    template <class T>
    static FREEDML_INLINE T Apply(T a, T b) {
        return b >= T(sizeof(T) * 8) ? T(0) : T(Wide<T>(a) >> b);
    }
};

struct LogicalAndOp {
    template <class T>
    static FREEDML_INLINE T Apply(T a, T b) { return T((a != 0) & (b != 0)); }
};
struct LogicalOrOp {
    template <class T>
    static FREEDML_INLINE T Apply(T a, T b) { return T((a != 0) | (b != 0)); }
};
struct LogicalXorOp {
    template <class T>
    static FREEDML_INLINE T Apply(T a, T b) { return T((a != 0) ^ (b != 0)); }
};

struct EqualsOp {
    template <class T>
    static FREEDML_INLINE bool Apply(T a, T b) { return a == b; }
};
struct GreaterThanOp {
    template <class T>
    static FREEDML_INLINE bool Apply(T a, T b) { return a > b; }
};
struct LessThanOp {
    template <class T>
    static FREEDML_INLINE bool Apply(T a, T b) { return a < b; }
};
struct GreaterThanOrEqualOp {
    template <class T>
    static FREEDML_INLINE bool Apply(T a, T b) { return a >= b; }
};
struct LessThanOrEqualOp {
    template <class T>
    static FREEDML_INLINE bool Apply(T a, T b) { return a <= b; }
};

// ---- Rows ---------------------------------------------------------------------------------------

// Outputs far larger than the last-level cache are written with non-temporal stores: the lines are
// not read for ownership first, so a binary operator moves 3 bytes of traffic per 3 bytes of data
// instead of 4 (as memcpy does for large copies), and the inputs are not evicted by the output.
// Computed in L1, then streamed out: short bursts of non-temporal stores between the loads keep
// both streams moving (256 bytes measured about 15% faster than 2 KiB and than 128 bytes for a
// FLOAT32 ADD of 64 MiB tensors on two cores of an AMD EPYC).
constexpr size_t kStreamBlockBytes = 256;
constexpr uint64_t kStreamMinRowBytes = 64 * 1024;  // shorter rows are not worth the detour

FREEDML_INLINE void StreamOut(std::byte* out, const std::byte* block, size_t bytes) {
#ifdef FREEDML_BINARY_X86
    for (size_t j = 0; j < bytes; j += 16) {
        _mm_stream_si128(reinterpret_cast<__m128i*>(out + j), _mm_load_si128(reinterpret_cast<const __m128i*>(block + j)));
    }
#else
    std::memcpy(out, block, bytes);
#endif
}

FREEDML_INLINE void StreamFence() {
#ifdef FREEDML_BINARY_X86
    _mm_sfence();  // order the non-temporal stores before the pool's completion signal
#endif
}

// out[i] = f(i) for i < n over a packed output; f is the operator applied to the inputs' i-th
// elements. Vectorized by the compiler; streamed when `stream` and the row is long.
template <class R, class F>
FREEDML_INLINE void PackedLoop(R* out, uint64_t n, bool stream, F&& f) {
    uint64_t i = 0;
    if (stream && n * sizeof(R) >= kStreamMinRowBytes) {
        constexpr size_t kBlock = kStreamBlockBytes / sizeof(R);
        for (; i < n && (reinterpret_cast<uintptr_t>(out + i) & 15) != 0; ++i) out[i] = f(i);
        alignas(64) R block[kBlock];
        for (; i + kBlock <= n; i += kBlock) {
            for (size_t j = 0; j < kBlock; ++j) block[j] = f(i + j);
            StreamOut(reinterpret_cast<std::byte*>(out + i), reinterpret_cast<const std::byte*>(block), sizeof(block));
        }
        StreamFence();
    }
    for (; i < n; ++i) out[i] = f(i);
}

// One row of T op T -> R. Packed rows, and packed rows against a broadcast scalar, are plain
// loops the compiler vectorizes; the in-place forms read and write through one pointer so that
// the compiler's overlap check (output against the other input) passes.
template <class Op, class T, class R>
FREEDML_INLINE void RowBody(std::byte* o, int64_t so, const std::byte* a, int64_t sa, const std::byte* b, int64_t sb,
                            uint64_t n, bool stream) {
    constexpr int64_t kT = sizeof(T), kR = sizeof(R);
    if (so == kR && (sa == kT || sa == 0) && (sb == kT || sb == 0)) {
        R* out = reinterpret_cast<R*>(o);
        const T* x = reinterpret_cast<const T*>(a);
        const T* y = reinterpret_cast<const T*>(b);
        if (sa == kT && sb == kT) {
            if constexpr (std::is_same_v<T, R>) {
                if (o == a) return PackedLoop(out, n, stream, [&](uint64_t i) { return R(Op::Apply(out[i], y[i])); });
                if (o == b) return PackedLoop(out, n, stream, [&](uint64_t i) { return R(Op::Apply(x[i], out[i])); });
            }
            return PackedLoop(out, n, stream, [&](uint64_t i) { return R(Op::Apply(x[i], y[i])); });
        }
        if (sa == kT) {  // b broadcast
            const T yv = *y;
            if constexpr (std::is_same_v<T, R>) {
                if (o == a) return PackedLoop(out, n, stream, [&](uint64_t i) { return R(Op::Apply(out[i], yv)); });
            }
            return PackedLoop(out, n, stream, [&](uint64_t i) { return R(Op::Apply(x[i], yv)); });
        }
        if (sb == kT) {  // a broadcast
            const T xv = *x;
            if constexpr (std::is_same_v<T, R>) {
                if (o == b) return PackedLoop(out, n, stream, [&](uint64_t i) { return R(Op::Apply(xv, out[i])); });
            }
            return PackedLoop(out, n, stream, [&](uint64_t i) { return R(Op::Apply(xv, y[i])); });
        }
        const R v = R(Op::Apply(*x, *y));  // both broadcast
        return PackedLoop(out, n, stream, [&](uint64_t) { return v; });
    }
    for (uint64_t i = 0; i < n; ++i, o += so, a += sa, b += sb) {
        Store<R>(o, R(Op::Apply(Load<T>(a), Load<T>(b))));
    }
}

constexpr size_t kFloatBlock = 256;  // block rows compute this many floats at a time

// `m` FLOAT32 or FLOAT16 (T) elements at a byte stride (0 broadcasts) into floats.
template <class T>
FREEDML_INLINE void LoadBlock(const std::byte* p, int64_t stride, float* out, size_t m) {
    if (stride == 0) {
        float v;
        if constexpr (std::is_same_v<T, Half>) v = HalfToFloat(Load<uint16_t>(p));
        else v = Load<float>(p);
        for (size_t j = 0; j < m; ++j) out[j] = v;
    } else {
        LoadFloats(std::is_same_v<T, Half> ? DML_TENSOR_DATA_TYPE_FLOAT16 : DML_TENSOR_DATA_TYPE_FLOAT32, p, stride, out,
                   m);
    }
}

// Rows that compute in blocks of floats: FLOAT16 rows (exact for every operator here but the
// transcendental ones and DIFFERENCE_SQUARE, whose float result is rounded once more to half), and
// ADD1's rows with a fused activation, which runs over each block while it is in L1. Arithmetic
// rows store T (FLOAT32 or FLOAT16), comparisons R.
template <class Op, class T, class R, bool kActivated>
FREEDML_INLINE void BlockRowBody(std::byte* o, int64_t so, const std::byte* a, int64_t sa, const std::byte* b,
                                 int64_t sb, uint64_t n, const BinaryContext& context) {
    constexpr bool kArithmetic = std::is_same_v<R, T>;
    constexpr DML_TENSOR_DATA_TYPE kType =
        std::is_same_v<T, Half> ? DML_TENSOR_DATA_TYPE_FLOAT16 : DML_TENSOR_DATA_TYPE_FLOAT32;
    alignas(64) float x[kFloatBlock];
    float y[kFloatBlock];
    const bool stream = kArithmetic && context.streamOutput && so == int64_t(sizeof(T)) &&
                        n * sizeof(T) >= kStreamMinRowBytes && reinterpret_cast<uintptr_t>(o) % sizeof(T) == 0;
    // When streaming, a first short block brings the output to 16-byte alignment.
    uint64_t first = stream ? ((16 - (reinterpret_cast<uintptr_t>(o) & 15)) & 15) / sizeof(T) : 0;
    for (uint64_t i = 0; i < n;) {
        const size_t m = size_t(std::min<uint64_t>(first ? first : kFloatBlock, n - i));
        first = 0;
        LoadBlock<T>(a + int64_t(i) * sa, sa, x, m);
        LoadBlock<T>(b + int64_t(i) * sb, sb, y, m);
        std::byte* out = o + int64_t(i) * so;
        if constexpr (kArithmetic) {
            for (size_t j = 0; j < m; ++j) x[j] = Op::Apply(x[j], y[j]);
            if constexpr (kActivated) ApplyActivation(context.activation, x, m);
            if (stream && m == kFloatBlock) {
                if constexpr (std::is_same_v<T, Half>) {
                    alignas(64) uint16_t halves[kFloatBlock];
                    ConvertFloatToHalf(x, halves, m);
                    StreamOut(out, reinterpret_cast<const std::byte*>(halves), sizeof(halves));
                } else {
                    StreamOut(out, reinterpret_cast<const std::byte*>(x), sizeof(x));
                }
            } else {
                StoreFloats(kType, x, out, so, m);
            }
        } else if (so == int64_t(sizeof(R))) {
            R* packed = reinterpret_cast<R*>(out);
            for (size_t j = 0; j < m; ++j) packed[j] = R(Op::Apply(x[j], y[j]));
        } else {
            for (size_t j = 0; j < m; ++j) Store<R>(out + int64_t(j) * so, R(Op::Apply(x[j], y[j])));
        }
        i += m;
    }
    if (stream) StreamFence();
}

template <class Op, class T, class R, bool kActivated>
FREEDML_INLINE void AnyRowBody(std::byte* o, int64_t so, const std::byte* a, int64_t sa, const std::byte* b,
                               int64_t sb, uint64_t n, const BinaryContext& context) {
    if constexpr (std::is_same_v<T, Half> || kActivated) {
        BlockRowBody<Op, T, R, kActivated>(o, so, a, sa, b, sb, n, context);
    } else {
        RowBody<Op, T, R>(o, so, a, sa, b, sb, n, context.streamOutput);
    }
}

// Each row exists once per instruction set (cpu_isa.h); Create picks one for the CPU it runs on.
template <class Op, class T, class R, bool kActivated>
FREEDML_VECTORIZE void RowBaseline(std::byte* o, int64_t so, const std::byte* a, int64_t sa, const std::byte* b,
                                   int64_t sb, uint64_t n, const BinaryContext& context) {
    AnyRowBody<Op, T, R, kActivated>(o, so, a, sa, b, sb, n, context);
}

#ifdef FREEDML_CPU_X86_64
template <class Op, class T, class R, bool kActivated>
FREEDML_VECTORIZE FREEDML_TARGET_AVX2_FMA void RowAvx2(std::byte* o, int64_t so, const std::byte* a, int64_t sa,
                                                       const std::byte* b, int64_t sb, uint64_t n,
                                                       const BinaryContext& context) {
    AnyRowBody<Op, T, R, kActivated>(o, so, a, sa, b, sb, n, context);
}
#endif

struct RowChoice {
    BinaryRowFn row = nullptr;
    const char* isa = "baseline";
};

template <class Op, class T, class R = T, bool kActivated = false>
RowChoice Pick() {
#ifdef FREEDML_CPU_X86_64
    if (UseAvx2Fma()) return {&RowAvx2<Op, T, R, kActivated>, "avx2"};
#endif
    return {&RowBaseline<Op, T, R, kActivated>, "baseline"};
}

// ---- POW ----------------------------------------------------------------------------------------

double LoadAsDouble(DML_TENSOR_DATA_TYPE type, const std::byte* p) {
    switch (type) {
        case DML_TENSOR_DATA_TYPE_FLOAT32: return Load<float>(p);
        case DML_TENSOR_DATA_TYPE_FLOAT16: return HalfToFloat(Load<uint16_t>(p));
        case DML_TENSOR_DATA_TYPE_FLOAT64: return Load<double>(p);
        case DML_TENSOR_DATA_TYPE_INT8: return Load<int8_t>(p);
        case DML_TENSOR_DATA_TYPE_UINT8: return Load<uint8_t>(p);
        case DML_TENSOR_DATA_TYPE_INT16: return Load<int16_t>(p);
        case DML_TENSOR_DATA_TYPE_UINT16: return Load<uint16_t>(p);
        case DML_TENSOR_DATA_TYPE_INT32: return Load<int32_t>(p);
        case DML_TENSOR_DATA_TYPE_UINT32: return Load<uint32_t>(p);
        case DML_TENSOR_DATA_TYPE_INT64: return double(Load<int64_t>(p));
        case DML_TENSOR_DATA_TYPE_UINT64: return double(Load<uint64_t>(p));
        default: return 0;
    }
}

int64_t LoadAsInt64(DML_TENSOR_DATA_TYPE type, const std::byte* p) {
    switch (type) {
        case DML_TENSOR_DATA_TYPE_INT8: return Load<int8_t>(p);
        case DML_TENSOR_DATA_TYPE_UINT8: return Load<uint8_t>(p);
        case DML_TENSOR_DATA_TYPE_INT16: return Load<int16_t>(p);
        case DML_TENSOR_DATA_TYPE_UINT16: return Load<uint16_t>(p);
        case DML_TENSOR_DATA_TYPE_INT32: return Load<int32_t>(p);
        case DML_TENSOR_DATA_TYPE_UINT32: return Load<uint32_t>(p);
        case DML_TENSOR_DATA_TYPE_INT64: return Load<int64_t>(p);
        case DML_TENSOR_DATA_TYPE_UINT64: return int64_t(Load<uint64_t>(p));
        default: return 0;
    }
}

template <class T>
void PowRow(std::byte* o, int64_t so, const std::byte* a, int64_t sa, const std::byte* b, int64_t sb, uint64_t n,
            const BinaryContext& c) {
    const bool exactIntegers = !kIsFloat<T> && !std::is_same_v<T, Half> && !IsFloatingPoint(c.bType) && !c.hasScaleBias;
    for (uint64_t i = 0; i < n; ++i, o += so, a += sa, b += sb) {
        if constexpr (!kIsFloat<T> && !std::is_same_v<T, Half>) {
            if (exactIntegers) {
                Store<T>(o, IntegerPow<T>(Load<T>(a), LoadAsInt64(c.bType, b)));
                continue;
            }
        }
        double base = LoadAsDouble(c.aType, a);
        if (c.hasScaleBias) base = double(float(float(base) * c.scale) + c.bias);
        const double r = std::pow(base, LoadAsDouble(c.bType, b));
        if constexpr (std::is_same_v<T, float>) {
            Store<float>(o, float(r));
        } else if constexpr (std::is_same_v<T, Half>) {
            Store<uint16_t>(o, FloatToHalf(float(r)));
        } else {
            Store<T>(o, SaturatingTruncate<T>(r));
        }
    }
}

// ---- Type dispatch ------------------------------------------------------------------------------

enum TypeSet : unsigned {
    kF32 = 1u << 0,
    kF16 = 1u << 1,
    kF64 = 1u << 2,
    kI8 = 1u << 3,
    kU8 = 1u << 4,
    kI16 = 1u << 5,
    kU16 = 1u << 6,
    kI32 = 1u << 7,
    kU32 = 1u << 8,
    kI64 = 1u << 9,
    kU64 = 1u << 10,
};

constexpr unsigned kIntegers = kI8 | kU8 | kI16 | kU16 | kI32 | kU32 | kI64 | kU64;
constexpr unsigned kArithmetic = kF32 | kF16 | kIntegers;

unsigned TypeBit(DML_TENSOR_DATA_TYPE type) {
    switch (type) {
        case DML_TENSOR_DATA_TYPE_FLOAT32: return kF32;
        case DML_TENSOR_DATA_TYPE_FLOAT16: return kF16;
        case DML_TENSOR_DATA_TYPE_FLOAT64: return kF64;
        case DML_TENSOR_DATA_TYPE_INT8: return kI8;
        case DML_TENSOR_DATA_TYPE_UINT8: return kU8;
        case DML_TENSOR_DATA_TYPE_INT16: return kI16;
        case DML_TENSOR_DATA_TYPE_UINT16: return kU16;
        case DML_TENSOR_DATA_TYPE_INT32: return kI32;
        case DML_TENSOR_DATA_TYPE_UINT32: return kU32;
        case DML_TENSOR_DATA_TYPE_INT64: return kI64;
        case DML_TENSOR_DATA_TYPE_UINT64: return kU64;
        default: return 0;
    }
}


template <class T>
constexpr unsigned TypeBitOf() {
    if constexpr (std::is_same_v<T, float>) return kF32;
    else if constexpr (std::is_same_v<T, Half>) return kF16;
    else if constexpr (std::is_same_v<T, double>) return kF64;
    else if constexpr (std::is_same_v<T, int8_t>) return kI8;
    else if constexpr (std::is_same_v<T, uint8_t>) return kU8;
    else if constexpr (std::is_same_v<T, int16_t>) return kI16;
    else if constexpr (std::is_same_v<T, uint16_t>) return kU16;
    else if constexpr (std::is_same_v<T, int32_t>) return kI32;
    else if constexpr (std::is_same_v<T, uint32_t>) return kU32;
    else if constexpr (std::is_same_v<T, int64_t>) return kI64;
    else return kU64;
}

// Instantiates rows only for the types an operator allows (compile time and code size).
template <class Op, unsigned kAllowed, class T, class R = T>
RowChoice PickIf() {
    if constexpr ((kAllowed & TypeBitOf<T>()) != 0) return Pick<Op, T, R>();
    else return {};
}

// Same-type arithmetic rows (T op T -> T) for the types in kAllowed.
template <class Op, unsigned kAllowed>
RowChoice ArithmeticRow(DML_TENSOR_DATA_TYPE type) {
    switch (type) {
        case DML_TENSOR_DATA_TYPE_FLOAT32: return PickIf<Op, kAllowed, float>();
        case DML_TENSOR_DATA_TYPE_FLOAT16: return PickIf<Op, kAllowed, Half>();
        case DML_TENSOR_DATA_TYPE_FLOAT64: return PickIf<Op, kAllowed, double>();
        case DML_TENSOR_DATA_TYPE_INT8: return PickIf<Op, kAllowed, int8_t>();
        case DML_TENSOR_DATA_TYPE_UINT8: return PickIf<Op, kAllowed, uint8_t>();
        case DML_TENSOR_DATA_TYPE_INT16: return PickIf<Op, kAllowed, int16_t>();
        case DML_TENSOR_DATA_TYPE_UINT16: return PickIf<Op, kAllowed, uint16_t>();
        case DML_TENSOR_DATA_TYPE_INT32: return PickIf<Op, kAllowed, int32_t>();
        case DML_TENSOR_DATA_TYPE_UINT32: return PickIf<Op, kAllowed, uint32_t>();
        case DML_TENSOR_DATA_TYPE_INT64: return PickIf<Op, kAllowed, int64_t>();
        case DML_TENSOR_DATA_TYPE_UINT64: return PickIf<Op, kAllowed, uint64_t>();
        default: return {};
    }
}

// Bitwise operators see only the encoding: the element width picks the row.
template <class Op>
RowChoice BitwiseRow(DML_TENSOR_DATA_TYPE type) {
    if (!TypeBit(type)) return {};
    switch (ElementSizeInBytes(type)) {
        case 1: return Pick<Op, uint8_t>();
        case 2: return Pick<Op, uint16_t>();
        case 4: return Pick<Op, uint32_t>();
        case 8: return Pick<Op, uint64_t>();
        default: return {};
    }
}

template <class Op, class R>
RowChoice ComparisonRowTo(DML_TENSOR_DATA_TYPE type) {
    switch (type) {
        case DML_TENSOR_DATA_TYPE_FLOAT32: return Pick<Op, float, R>();
        case DML_TENSOR_DATA_TYPE_FLOAT16: return Pick<Op, Half, R>();
        case DML_TENSOR_DATA_TYPE_INT8: return Pick<Op, int8_t, R>();
        case DML_TENSOR_DATA_TYPE_UINT8: return Pick<Op, uint8_t, R>();
        case DML_TENSOR_DATA_TYPE_INT16: return Pick<Op, int16_t, R>();
        case DML_TENSOR_DATA_TYPE_UINT16: return Pick<Op, uint16_t, R>();
        case DML_TENSOR_DATA_TYPE_INT32: return Pick<Op, int32_t, R>();
        case DML_TENSOR_DATA_TYPE_UINT32: return Pick<Op, uint32_t, R>();
        case DML_TENSOR_DATA_TYPE_INT64: return Pick<Op, int64_t, R>();
        case DML_TENSOR_DATA_TYPE_UINT64: return Pick<Op, uint64_t, R>();
        default: return {};
    }
}

template <class Op>
RowChoice ComparisonRow(DML_TENSOR_DATA_TYPE type, DML_TENSOR_DATA_TYPE output) {
    if (output == DML_TENSOR_DATA_TYPE_UINT8) return ComparisonRowTo<Op, uint8_t>(type);
    if (output == DML_TENSOR_DATA_TYPE_UINT32) return ComparisonRowTo<Op, uint32_t>(type);
    return {};
}

template <class Op>
RowChoice LogicalRow(DML_TENSOR_DATA_TYPE type) {
    if (type == DML_TENSOR_DATA_TYPE_UINT8) return Pick<Op, uint8_t>();
    if (type == DML_TENSOR_DATA_TYPE_UINT32) return Pick<Op, uint32_t>();
    return {};
}

RowChoice PowRowFor(DML_TENSOR_DATA_TYPE type) {
    switch (type) {
        case DML_TENSOR_DATA_TYPE_FLOAT32: return {&PowRow<float>, "scalar"};
        case DML_TENSOR_DATA_TYPE_FLOAT16: return {&PowRow<Half>, "scalar"};
        case DML_TENSOR_DATA_TYPE_INT8: return {&PowRow<int8_t>, "scalar"};
        case DML_TENSOR_DATA_TYPE_UINT8: return {&PowRow<uint8_t>, "scalar"};
        case DML_TENSOR_DATA_TYPE_INT16: return {&PowRow<int16_t>, "scalar"};
        case DML_TENSOR_DATA_TYPE_UINT16: return {&PowRow<uint16_t>, "scalar"};
        case DML_TENSOR_DATA_TYPE_INT32: return {&PowRow<int32_t>, "scalar"};
        case DML_TENSOR_DATA_TYPE_UINT32: return {&PowRow<uint32_t>, "scalar"};
        default: return {};
    }
}

RowChoice ChooseRow(const BinaryParams& p) {
    const DML_TENSOR_DATA_TYPE type = p.a.dataType, out = p.output.dataType;
    switch (p.op) {
        case BinaryOp::Add:
            if (p.activation.IsNone()) return ArithmeticRow<AddOp, kArithmetic>(type);
            if (type == DML_TENSOR_DATA_TYPE_FLOAT32) return Pick<AddOp, float, float, true>();
            if (type == DML_TENSOR_DATA_TYPE_FLOAT16) return Pick<AddOp, Half, Half, true>();
            return {};
        case BinaryOp::Subtract: return ArithmeticRow<SubtractOp, kArithmetic>(type);
        case BinaryOp::Multiply: return ArithmeticRow<MultiplyOp, kArithmetic>(type);
        case BinaryOp::Divide: return ArithmeticRow<DivideOp, kArithmetic>(type);
        case BinaryOp::Min: return ArithmeticRow<MinOp, kArithmetic>(type);
        case BinaryOp::Max: return ArithmeticRow<MaxOp, kArithmetic>(type);
        case BinaryOp::Mean: return ArithmeticRow<MeanOp, kF32 | kF16 | kI32 | kU32>(type);
        case BinaryOp::AtanYX: return ArithmeticRow<AtanYXOp, kF32 | kF16>(type);
        case BinaryOp::DifferenceSquare: return ArithmeticRow<DifferenceSquareOp, kF32 | kF16 | kI32 | kU32>(type);
        case BinaryOp::ModulusFloor: return ArithmeticRow<ModulusFloorOp, kArithmetic>(type);
        case BinaryOp::ModulusTruncate: return ArithmeticRow<ModulusTruncateOp, kArithmetic>(type);
        case BinaryOp::BitAnd: return BitwiseRow<BitAndOp>(type);
        case BinaryOp::BitOr: return BitwiseRow<BitOrOp>(type);
        case BinaryOp::BitXor: return BitwiseRow<BitXorOp>(type);
        case BinaryOp::ShiftLeft: return ArithmeticRow<ShiftLeftOp, kU8 | kU16 | kU32 | kU64>(type);
        case BinaryOp::ShiftRight: return ArithmeticRow<ShiftRightOp, kU8 | kU16 | kU32 | kU64>(type);
        case BinaryOp::LogicalAnd: return LogicalRow<LogicalAndOp>(type);
        case BinaryOp::LogicalOr: return LogicalRow<LogicalOrOp>(type);
        case BinaryOp::LogicalXor: return LogicalRow<LogicalXorOp>(type);
        case BinaryOp::Equals: return ComparisonRow<EqualsOp>(type, out);
        case BinaryOp::GreaterThan: return ComparisonRow<GreaterThanOp>(type, out);
        case BinaryOp::LessThan: return ComparisonRow<LessThanOp>(type, out);
        case BinaryOp::GreaterThanOrEqual: return ComparisonRow<GreaterThanOrEqualOp>(type, out);
        case BinaryOp::LessThanOrEqual: return ComparisonRow<LessThanOrEqualOp>(type, out);
        case BinaryOp::Pow: return PowRowFor(type);
    }
    return {};
}

// Outputs at least this large bypass the caches: half the last-level cache, kept within 4..32 MiB
// (virtual machines often report the host socket's whole cache, not their share of it).
uint64_t StreamThresholdBytes() {
    static const uint64_t threshold = [] {
        long l3 = -1;
#if defined(_SC_LEVEL3_CACHE_SIZE)
        l3 = sysconf(_SC_LEVEL3_CACHE_SIZE);
#endif
        const uint64_t half = l3 > 0 ? uint64_t(l3) / 2 : uint64_t(8) << 20;
        return std::clamp<uint64_t>(half, uint64_t(4) << 20, uint64_t(32) << 20);
    }();
    return threshold;
}

}  // namespace

std::array<uint32_t, kMaxTensorRank> BroadcastStridesOver(const TensorDesc& desc, const TensorDesc& output) {
    std::array<uint32_t, kMaxTensorRank> strides{};
    const uint32_t offset = output.rank >= desc.rank ? output.rank - desc.rank : 0;
    for (uint32_t i = 0; i < desc.rank && offset + i < kMaxTensorRank; ++i) {
        strides[offset + i] = (desc.sizes[i] == 1 && output.sizes[offset + i] != 1) ? 0 : desc.strides[i];
    }
    return strides;
}

// ---- BinaryKernel -------------------------------------------------------------------------------

Status BinaryKernel::Create(const BinaryParams& params) {
    // The rows read A and B as A's type and write the output's: only comparisons change the type,
    // and only POW's exponent may differ from A (validation ensures it; a kernel never trusts it).
    const bool comparison = params.op >= BinaryOp::Equals && params.op <= BinaryOp::LessThanOrEqual;
    INVALID_IF(!comparison && params.output.dataType != params.a.dataType,
               "ELEMENT_WISE_%s needs the output's data type (%s) to be A's (%s).", BinaryOpName(params.op),
               DataTypeName(params.output.dataType), DataTypeName(params.a.dataType));
    INVALID_IF(params.op != BinaryOp::Pow && params.b.dataType != params.a.dataType,
               "ELEMENT_WISE_%s needs equal input data types (%s, %s).", BinaryOpName(params.op),
               DataTypeName(params.a.dataType), DataTypeName(params.b.dataType));
    INVALID_IF(!params.activation.IsNone() && (params.op != BinaryOp::Add ||
                                               (params.a.dataType != DML_TENSOR_DATA_TYPE_FLOAT32 &&
                                                params.a.dataType != DML_TENSOR_DATA_TYPE_FLOAT16)),
               "ELEMENT_WISE_%s's fused activation (%s) needs ADD1 of FLOAT32 or FLOAT16 tensors (%s given).",
               BinaryOpName(params.op), ActivationName(params.activation.type), DataTypeName(params.a.dataType));
    const RowChoice choice = ChooseRow(params);
    if (!choice.row) {
        return NoKernel("ELEMENT_WISE_%s does not run data types %s, %s -> %s on the CPU.",
                     BinaryOpName(params.op), DataTypeName(params.a.dataType), DataTypeName(params.b.dataType),
                     DataTypeName(params.output.dataType));
    }
    params_ = params;
    row_ = choice.row;
    isa_ = choice.isa;
    context_.hasScaleBias = params.hasScaleBias;
    context_.scale = params.scaleBias.Scale;
    context_.bias = params.scaleBias.Bias;
    context_.aType = params.a.dataType;
    context_.bType = params.b.dataType;
    context_.outputType = params.output.dataType;
    context_.streamOutput = params.output.totalTensorSizeInBytes >= StreamThresholdBytes();
    context_.activation = params.activation;
    const auto aStrides = BroadcastStridesOver(params_.a, params_.output);
    const auto bStrides = BroadcastStridesOver(params_.b, params_.output);
    plan_ = MakeLoopPlan<3>(params_.output.sizes.data(), params_.output.rank,
                            {params_.output.strides.data(), aStrides.data(), bStrides.data()},
                            {ElementSizeInBytes(params_.output.dataType), ElementSizeInBytes(params_.a.dataType),
                             ElementSizeInBytes(params_.b.dataType)});
    return Status::Ok();
}

void BinaryKernel::Execute(ThreadPool* threads, TensorView a, TensorView b, TensorView output) const {
    const BinaryRowFn row = row_;
    const BinaryContext& context = context_;
    ParallelLoop(threads, plan_, {output.data, a.data, b.data},
                 [row, &context](const std::array<std::byte*, 3>& p, uint64_t n, const std::array<int64_t, 3>& s) {
                     row(p[0], s[0], p[1], s[1], p[2], s[2], n, context);
                 });
}

// ---- Quantization -------------------------------------------------------------------------------

namespace {

float LoadAsFloat(DML_TENSOR_DATA_TYPE type, const std::byte* p) {
    switch (type) {
        case DML_TENSOR_DATA_TYPE_FLOAT32: return Load<float>(p);
        case DML_TENSOR_DATA_TYPE_FLOAT16: return HalfToFloat(Load<uint16_t>(p));
        case DML_TENSOR_DATA_TYPE_INT32: return float(Load<int32_t>(p));
        default: return 0.0f;
    }
}

// round half to even (the default rounding mode), add the zero point, saturate; NaN -> zero point.
template <class Q>
FREEDML_INLINE Q QuantizeValue(float value, int32_t zeroPoint) {
    const float r = std::nearbyint(value);
    if (r != r) return Q(zeroPoint);
    const float shifted = r + float(zeroPoint);
    const float lo = float(std::numeric_limits<Q>::min()), hi = float(std::numeric_limits<Q>::max());
    return Q(int32_t(shifted < lo ? lo : (shifted > hi ? hi : shifted)));
}

// QuantizeValue for any integer range [lo, hi] (the 4-bit types' -8..7 and 0..15).
FREEDML_INLINE int32_t QuantizeToRange(float value, int32_t zeroPoint, int32_t lo, int32_t hi) {
    const float r = std::nearbyint(value);
    if (r != r) return zeroPoint;
    const float shifted = r + float(zeroPoint);
    return int32_t(shifted < float(lo) ? float(lo) : (shifted > float(hi) ? float(hi) : shifted));
}

int32_t LoadZeroPoint(DML_TENSOR_DATA_TYPE type, const std::byte* p) {
    switch (type) {
        case DML_TENSOR_DATA_TYPE_INT8: return Load<int8_t>(p);
        case DML_TENSOR_DATA_TYPE_UINT8: return Load<uint8_t>(p);
        case DML_TENSOR_DATA_TYPE_INT16: return Load<int16_t>(p);
        case DML_TENSOR_DATA_TYPE_UINT16: return Load<uint16_t>(p);
        case DML_TENSOR_DATA_TYPE_INT32: return Load<int32_t>(p);
        default: return 0;
    }
}

int64_t LoadQuantized(DML_TENSOR_DATA_TYPE type, const std::byte* p) {
    switch (type) {
        case DML_TENSOR_DATA_TYPE_INT8: return Load<int8_t>(p);
        case DML_TENSOR_DATA_TYPE_UINT8: return Load<uint8_t>(p);
        case DML_TENSOR_DATA_TYPE_INT16: return Load<int16_t>(p);
        case DML_TENSOR_DATA_TYPE_UINT16: return Load<uint16_t>(p);
        case DML_TENSOR_DATA_TYPE_INT32: return Load<int32_t>(p);
        case DML_TENSOR_DATA_TYPE_UINT32: return Load<uint32_t>(p);
        default: return 0;
    }
}

bool LoadQuantizedSupported(DML_TENSOR_DATA_TYPE type) {
    switch (type) {
        case DML_TENSOR_DATA_TYPE_INT8: case DML_TENSOR_DATA_TYPE_UINT8: case DML_TENSOR_DATA_TYPE_INT16:
        case DML_TENSOR_DATA_TYPE_UINT16: case DML_TENSOR_DATA_TYPE_INT32: case DML_TENSOR_DATA_TYPE_UINT32:
            return true;
        default:
            return false;
    }
}

void StoreQuantized(DML_TENSOR_DATA_TYPE type, std::byte* p, float value, int32_t zeroPoint) {
    if (type == DML_TENSOR_DATA_TYPE_INT8) Store<int8_t>(p, QuantizeValue<int8_t>(value, zeroPoint));
    else Store<uint8_t>(p, QuantizeValue<uint8_t>(value, zeroPoint));
}

// An absent zero point reads this (strides 0).
alignas(16) const std::byte kZeroes[16] = {};

template <size_t N>
std::array<uint32_t, N> ElementSizes(const std::array<const TensorDesc*, N>& tensors) {
    std::array<uint32_t, N> sizes{};
    for (size_t k = 0; k < N; ++k) sizes[k] = tensors[k] ? ElementSizeInBytes(tensors[k]->dataType) : 1;
    return sizes;
}

template <size_t N>
LoopPlan<N> PlanOver(const TensorDesc& output, const std::array<const TensorDesc*, N>& tensors) {
    std::array<std::array<uint32_t, kMaxTensorRank>, N> strides{};
    std::array<const uint32_t*, N> stridePointers{};
    for (size_t k = 0; k < N; ++k) {
        if (k == 0) strides[k] = output.strides;
        else if (tensors[k]) strides[k] = BroadcastStridesOver(*tensors[k], output);
        stridePointers[k] = strides[k].data();  // absent tensors stay all-zero
    }
    return MakeLoopPlan<N>(output.sizes.data(), output.rank, stridePointers, ElementSizes(tensors));
}

// ---- 4-bit and blocked quantization, by element index ----

// Element `index` (in elements from `base`) of a quantized tensor: 4-bit ones hold element i in
// byte i / 2, the low nibble when i is even; INT4 sign-extends its nibble.
int64_t LoadQuantizedAt(DML_TENSOR_DATA_TYPE type, const std::byte* base, uint64_t index) {
    if (IsPacked4Bit(type)) {
        const auto byte = static_cast<uint8_t>(base[index / 2]);
        const int32_t nibble = (index & 1) ? byte >> 4 : byte & 0xF;
        return type == DML_TENSOR_DATA_TYPE_INT4 ? (nibble ^ 8) - 8 : nibble;
    }
    return LoadQuantized(type, base + index * ElementSizeInBytes(type));
}

// Writes a 4-bit element, leaving the other nibble of its byte as it is. Two elements of one byte
// may be written by different threads, so the byte is changed atomically.
void StoreNibble(std::byte* base, uint64_t index, int32_t value) {
    std::atomic_ref<unsigned char> byte(*reinterpret_cast<unsigned char*>(base + index / 2));
    const unsigned shift = (index & 1) ? 4 : 0;
    const auto keep = static_cast<unsigned char>(~(0xFu << shift));
    const auto bits = static_cast<unsigned char>((unsigned(value) & 0xFu) << shift);
    unsigned char old = byte.load(std::memory_order_relaxed);
    while (
        !byte.compare_exchange_weak(old, static_cast<unsigned char>((old & keep) | bits), std::memory_order_relaxed)) {
    }
}

void StoreQuantizedAt(DML_TENSOR_DATA_TYPE type, std::byte* base, uint64_t index, float value, int32_t zeroPoint) {
    switch (type) {
        case DML_TENSOR_DATA_TYPE_INT4:
            StoreNibble(base, index, QuantizeToRange(value, zeroPoint, -8, 7));
            break;
        case DML_TENSOR_DATA_TYPE_UINT4:
            StoreNibble(base, index, QuantizeToRange(value, zeroPoint, 0, 15));
            break;
        default:
            StoreQuantized(type, base + index, value, zeroPoint);
            break;  // INT8, UINT8
    }
}

float LoadFloatAt(DML_TENSOR_DATA_TYPE type, const std::byte* base, uint64_t index) {
    return LoadAsFloat(type, base + index * ElementSizeInBytes(type));
}

// Whether a scale or zero point has a size other than 1 and the output's (a block of elements).
bool IsBlocked(const TensorDesc& tensor, const TensorDesc& output) {
    for (uint32_t d = 0; d < output.rank; ++d) {
        if (tensor.sizes[d] != 1 && tensor.sizes[d] != output.sizes[d]) return true;
    }
    return false;
}

QuantizeIndexPlan MakeIndexPlan(const TensorDesc& output, const std::array<const TensorDesc*, 4>& tensors) {
    QuantizeIndexPlan plan;
    plan.rank = output.rank;
    plan.sizes = output.sizes;
    plan.count = output.ElementCount();
    for (size_t k = 0; k < tensors.size(); ++k) {
        for (uint32_t d = 0; d < output.rank; ++d) {
            if (!tensors[k]) {  // absent zero point: always its one zero element
                plan.strides[k][d] = 0;
                plan.blocks[k][d] = 1;
                continue;
            }
            plan.strides[k][d] = tensors[k]->strides[d];
            plan.blocks[k][d] = output.sizes[d] / tensors[k]->sizes[d];  // validation: it divides
        }
    }
    return plan;
}

// Calls visit(offsets) for the output elements [begin, end) in row-major order, with each
// operand's element offset.
template <class Visit>
void ForEachIndexed(const QuantizeIndexPlan& plan, uint64_t begin, uint64_t end, Visit&& visit) {
    std::array<uint32_t, kMaxTensorRank> index{};
    uint64_t rest = begin;
    for (uint32_t d = plan.rank; d-- > 0;) {
        index[d] = uint32_t(rest % plan.sizes[d]);
        rest /= plan.sizes[d];
    }
    for (uint64_t i = begin; i < end; ++i) {
        std::array<uint64_t, 4> offsets{};
        for (size_t k = 0; k < 4; ++k) {
            for (uint32_t d = 0; d < plan.rank; ++d) {
                offsets[k] += uint64_t(index[d] / plan.blocks[k][d]) * plan.strides[k][d];
            }
        }
        visit(offsets);
        for (uint32_t d = plan.rank; d-- > 0;) {
            if (++index[d] < plan.sizes[d]) break;
            index[d] = 0;
        }
    }
}

constexpr uint64_t kIndexedChunk = 4096;

}  // namespace

Status QuantizeKernel::Create(const QuantizeParams& params) {
    const auto in = params.input.dataType, out = params.output.dataType, scale = params.scale.dataType;
    INVALID_IF(in != DML_TENSOR_DATA_TYPE_FLOAT32 && in != DML_TENSOR_DATA_TYPE_FLOAT16 &&
                   in != DML_TENSOR_DATA_TYPE_INT32,
               "Quantizing reads FLOAT32, FLOAT16 or INT32, not %s.", DataTypeName(in));
    INVALID_IF(scale != DML_TENSOR_DATA_TYPE_FLOAT32 && scale != DML_TENSOR_DATA_TYPE_FLOAT16,
               "A quantization scale is FLOAT32 or FLOAT16, not %s.", DataTypeName(scale));
    INVALID_IF(out != DML_TENSOR_DATA_TYPE_INT8 && out != DML_TENSOR_DATA_TYPE_UINT8 && !IsPacked4Bit(out),
               "Quantizing writes INT8, UINT8, INT4 or UINT4 on the CPU, not %s.", DataTypeName(out));
    params_ = params;
    const TensorDesc* zeroPoint = params_.zeroPoint ? &*params_.zeroPoint : nullptr;
    byIndex_ = IsPacked4Bit(out) || IsBlocked(params_.scale, params_.output) ||
               (zeroPoint && IsBlocked(*zeroPoint, params_.output));
    if (byIndex_) {
        indexPlan_ = MakeIndexPlan(params_.output, {&params_.output, &params_.input, &params_.scale, zeroPoint});
    } else {
        plan_ = PlanOver<4>(params_.output, {&params_.output, &params_.input, &params_.scale, zeroPoint});
    }
    return Status::Ok();
}

void QuantizeKernel::Execute(ThreadPool* threads, TensorView input, TensorView scale, TensorView zeroPoint,
                             TensorView output) const {
    const auto inType = params_.input.dataType, scaleType = params_.scale.dataType, outType = params_.output.dataType;
    const auto zpType = params_.zeroPoint ? params_.zeroPoint->dataType : DML_TENSOR_DATA_TYPE_UINT8;
    std::byte* zp = zeroPoint.data ? zeroPoint.data : const_cast<std::byte*>(kZeroes);
    if (byIndex_) {
        ParallelFor(threads, indexPlan_.count, kIndexedChunk, [&](uint64_t begin, uint64_t end) {
            ForEachIndexed(indexPlan_, begin, end, [&](const std::array<uint64_t, 4>& at) {
                const float v = LoadFloatAt(inType, input.data, at[1]) / LoadFloatAt(scaleType, scale.data, at[2]);
                StoreQuantizedAt(outType, output.data, at[0], v, int32_t(LoadQuantizedAt(zpType, zp, at[3])));
            });
        });
        return;
    }
    ParallelLoop(threads, plan_, {output.data, input.data, scale.data, zp},
                 [&](const std::array<std::byte*, 4>& p, uint64_t n, const std::array<int64_t, 4>& s) {
                     std::byte* o = p[0];
                     const std::byte *x = p[1], *sc = p[2], *z = p[3];
                     for (uint64_t i = 0; i < n; ++i, o += s[0], x += s[1], sc += s[2], z += s[3]) {
                         const float v = LoadAsFloat(inType, x) / LoadAsFloat(scaleType, sc);
                         StoreQuantized(outType, o, v, LoadZeroPoint(zpType, z));
                     }
                 });
}

Status DequantizeKernel::Create(const QuantizeParams& params) {
    const auto in = params.input.dataType, out = params.output.dataType, scale = params.scale.dataType;
    INVALID_IF(!LoadQuantizedSupported(in) && !IsPacked4Bit(in),
               "Dequantizing reads 4-, 8-, 16- or 32-bit integers, not %s.", DataTypeName(in));
    INVALID_IF(out != scale || (out != DML_TENSOR_DATA_TYPE_FLOAT32 && out != DML_TENSOR_DATA_TYPE_FLOAT16),
               "Dequantizing writes the scale's type, FLOAT32 or FLOAT16 (scale %s, output %s).", DataTypeName(scale),
               DataTypeName(out));
    params_ = params;
    const TensorDesc* zeroPoint = params_.zeroPoint ? &*params_.zeroPoint : nullptr;
    byIndex_ = IsPacked4Bit(in) || IsBlocked(params_.scale, params_.output) ||
               (zeroPoint && IsBlocked(*zeroPoint, params_.output));
    if (byIndex_) {
        indexPlan_ = MakeIndexPlan(params_.output, {&params_.output, &params_.input, &params_.scale, zeroPoint});
    } else {
        plan_ = PlanOver<4>(params_.output, {&params_.output, &params_.input, &params_.scale, zeroPoint});
    }
    return Status::Ok();
}

void DequantizeKernel::Execute(ThreadPool* threads, TensorView input, TensorView scale, TensorView zeroPoint,
                               TensorView output) const {
    const auto inType = params_.input.dataType, outType = params_.output.dataType;
    const auto zpType = params_.zeroPoint ? params_.zeroPoint->dataType : DML_TENSOR_DATA_TYPE_UINT8;
    std::byte* zp = zeroPoint.data ? zeroPoint.data : const_cast<std::byte*>(kZeroes);
    if (byIndex_) {
        ParallelFor(threads, indexPlan_.count, kIndexedChunk, [&](uint64_t begin, uint64_t end) {
            ForEachIndexed(indexPlan_, begin, end, [&](const std::array<uint64_t, 4>& at) {
                const float difference =
                    float(LoadQuantizedAt(inType, input.data, at[1]) - LoadQuantizedAt(zpType, zp, at[3]));
                const float v = difference * LoadFloatAt(outType, scale.data, at[2]);
                std::byte* o = output.data + at[0] * ElementSizeInBytes(outType);
                if (outType == DML_TENSOR_DATA_TYPE_FLOAT32)
                    Store<float>(o, v);
                else
                    Store<uint16_t>(o, FloatToHalf(v));
            });
        });
        return;
    }
    ParallelLoop(threads, plan_, {output.data, input.data, scale.data, zp},
                 [&](const std::array<std::byte*, 4>& p, uint64_t n, const std::array<int64_t, 4>& s) {
                     std::byte* o = p[0];
                     const std::byte *x = p[1], *sc = p[2], *z = p[3];
                     for (uint64_t i = 0; i < n; ++i, o += s[0], x += s[1], sc += s[2], z += s[3]) {
                         const float difference = float(LoadQuantized(inType, x) - LoadQuantized(zpType, z));
                         const float v = difference * LoadAsFloat(outType, sc);
                         if (outType == DML_TENSOR_DATA_TYPE_FLOAT32)
                             Store<float>(o, v);
                         else
                             Store<uint16_t>(o, FloatToHalf(v));
                     }
                 });
}

Status QuantizedAddKernel::Create(const QuantizedAddParams& params) {
    for (auto type : {params.a.dataType, params.b.dataType, params.output.dataType}) {
        INVALID_IF(type != DML_TENSOR_DATA_TYPE_INT8 && type != DML_TENSOR_DATA_TYPE_UINT8,
                   "QUANTIZED_LINEAR_ADD runs INT8 and UINT8 tensors, not %s.", DataTypeName(type));
    }
    params_ = params;
    const auto opt = [](const std::optional<TensorDesc>& t) { return t ? &*t : nullptr; };
    plan_ = PlanOver<9>(params_.output, {&params_.output, &params_.a, &params_.aScale, opt(params_.aZeroPoint),
                                         &params_.b, &params_.bScale, opt(params_.bZeroPoint), &params_.outputScale,
                                         opt(params_.outputZeroPoint)});
    return Status::Ok();
}

void QuantizedAddKernel::Execute(ThreadPool* threads, const std::array<TensorView, 8>& in, TensorView output) const {
    const auto aType = params_.a.dataType, bType = params_.b.dataType, outType = params_.output.dataType;
    // An absent zero point reads as a zero of any type.
    const auto zpType = [](const std::optional<TensorDesc>& t) {
        return t ? t->dataType : DML_TENSOR_DATA_TYPE_UINT8;
    };
    const auto aZpType = zpType(params_.aZeroPoint), bZpType = zpType(params_.bZeroPoint),
               outZpType = zpType(params_.outputZeroPoint);
    std::array<std::byte*, 9> bases{output.data};
    for (size_t k = 0; k < 8; ++k) bases[k + 1] = in[k].data ? in[k].data : const_cast<std::byte*>(kZeroes);
    ParallelLoop(
        threads, plan_, bases, [&](const std::array<std::byte*, 9>& base, uint64_t n, const std::array<int64_t, 9>& s) {
            std::array<std::byte*, 9> p = base;
            for (uint64_t i = 0; i < n; ++i) {
                const float a = float(LoadQuantized(aType, p[1]) - LoadQuantized(aZpType, p[3])) * Load<float>(p[2]);
                const float b = float(LoadQuantized(bType, p[4]) - LoadQuantized(bZpType, p[6])) * Load<float>(p[5]);
                const float sum = a + b;
                StoreQuantized(outType, p[0], sum / Load<float>(p[7]), LoadZeroPoint(outZpType, p[8]));
                for (size_t k = 0; k < 9; ++k) p[k] += s[k];
            }
        });
}

}  // namespace freedml::dml::cpu
