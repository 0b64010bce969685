// CAST between any two of the eleven tensor data types, and the rows of FILL_VALUE_SEQUENCE.
// Packed rows are plain typed loops the compiler vectorizes; FLOAT32 <-> FLOAT16 takes the
// F16C bulk conversions.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("tree-vectorize", "vect-cost-model=dynamic", "fp-contract=off", "no-trapping-math")
#endif

#include <cmath>
#include <limits>
#include <type_traits>

#include "dml/kernels/cpu/float16.h"
#include "dml/ops/elementwise_unary/cpu/unary.h"

namespace freedml::dml::cpu {
namespace {

// A FLOAT16 element as stored: its bits.
struct Half {
    uint16_t bits;
};

template <class T>
struct TypeTag {
    using Type = T;
};

// Calls visit(TypeTag<T>{}) with the C++ type that stores `type`'s elements.
template <class Visit>
void WithType(DML_TENSOR_DATA_TYPE type, Visit&& visit) {
    switch (type) {
        case DML_TENSOR_DATA_TYPE_FLOAT32: return visit(TypeTag<float>{});
        case DML_TENSOR_DATA_TYPE_FLOAT16: return visit(TypeTag<Half>{});
        case DML_TENSOR_DATA_TYPE_FLOAT64: return visit(TypeTag<double>{});
        case DML_TENSOR_DATA_TYPE_UINT8: return visit(TypeTag<uint8_t>{});
        case DML_TENSOR_DATA_TYPE_INT8: return visit(TypeTag<int8_t>{});
        case DML_TENSOR_DATA_TYPE_UINT16: return visit(TypeTag<uint16_t>{});
        case DML_TENSOR_DATA_TYPE_INT16: return visit(TypeTag<int16_t>{});
        case DML_TENSOR_DATA_TYPE_UINT32: return visit(TypeTag<uint32_t>{});
        case DML_TENSOR_DATA_TYPE_INT32: return visit(TypeTag<int32_t>{});
        case DML_TENSOR_DATA_TYPE_UINT64: return visit(TypeTag<uint64_t>{});
        case DML_TENSOR_DATA_TYPE_INT64: return visit(TypeTag<int64_t>{});
        default: return;  // validation admits nothing else
    }
}

template <class TOut, class TIn>
inline TOut Convert(TIn x) {
    if constexpr (std::is_same_v<TIn, TOut>) {
        return x;
    } else if constexpr (std::is_same_v<TIn, Half>) {
        return Convert<TOut>(HalfToFloat(x.bits));  // every half is exactly a float
    } else if constexpr (std::is_same_v<TOut, Half>) {
        if constexpr (std::is_same_v<TIn, float>) {
            return Half{FloatToHalf(x)};
        } else {
            // Integers up to 2^53 are exact doubles; larger ones overflow FLOAT16 either way.
            return Half{DoubleToHalf(static_cast<double>(x))};
        }
    } else if constexpr (std::is_floating_point_v<TOut>) {
        return static_cast<TOut>(x);  // one rounding to nearest even
    } else if constexpr (std::is_floating_point_v<TIn>) {
        return SaturatingTruncate<TOut>(static_cast<double>(x));
    } else {
        return static_cast<TOut>(x);  // modulo 2^bits
    }
}

template <class TIn, class TOut>
void CastTyped(const std::byte* in, int64_t inStride, std::byte* out, int64_t outStride, uint64_t n) {
    if (inStride == int64_t(sizeof(TIn)) && outStride == int64_t(sizeof(TOut))) {
        const auto* source = reinterpret_cast<const TIn*>(in);
        auto* target = reinterpret_cast<TOut*>(out);
        for (uint64_t i = 0; i < n; ++i) target[i] = Convert<TOut>(source[i]);
        return;
    }
    for (uint64_t i = 0; i < n; ++i) {
        StoreAt<TOut>(out + int64_t(i) * outStride, Convert<TOut>(LoadAt<TIn>(in + int64_t(i) * inStride)));
    }
}

}  // namespace


uint16_t DoubleToHalf(double value) {
    uint64_t bits;
    std::memcpy(&bits, &value, 8);
    const uint16_t sign = uint16_t((bits >> 48) & 0x8000);
    const int exponent = int((bits >> 52) & 0x7FF);
    const uint64_t fraction = bits & ((uint64_t(1) << 52) - 1);
    if (exponent == 0x7FF) return uint16_t(sign | 0x7C00 | (fraction ? 0x200 : 0));
    if (exponent == 0) return sign;  // double subnormals are far below half of FLOAT16's smallest
    const int e = exponent - 1023;
    if (e > 15) return uint16_t(sign | 0x7C00);
    const uint64_t mantissa = fraction | (uint64_t(1) << 52);
    auto round = [](uint64_t m, int shift) {
        uint64_t kept = m >> shift, rest = m & ((uint64_t(1) << shift) - 1), halfway = uint64_t(1) << (shift - 1);
        return kept + ((rest > halfway || (rest == halfway && (kept & 1))) ? 1 : 0);
    };
    if (e >= -14) {
        // Normal: 11 significant bits; a carry out of them moves into the exponent (and to
        // infinity from the largest exponent), which is what rounding should do.
        uint64_t significand = round(mantissa, 42);
        return uint16_t(sign | ((uint64_t(e + 15) << 10) + significand - 0x400));
    }
    // Subnormal: count units of 2^-24.
    const int shift = 28 - e;
    if (shift > 53) return sign;
    return uint16_t(sign | round(mantissa, shift));
}

void CastRow(DML_TENSOR_DATA_TYPE inType, DML_TENSOR_DATA_TYPE outType, const std::byte* in, int64_t inStride,
             std::byte* out, int64_t outStride, uint64_t n) {
    if (inType == DML_TENSOR_DATA_TYPE_FLOAT32 && outType == DML_TENSOR_DATA_TYPE_FLOAT16 && inStride == 4 &&
        outStride == 2) {
        return ConvertFloatToHalf(reinterpret_cast<const float*>(in), reinterpret_cast<uint16_t*>(out), n);
    }
    if (inType == DML_TENSOR_DATA_TYPE_FLOAT16 && outType == DML_TENSOR_DATA_TYPE_FLOAT32 && inStride == 2 &&
        outStride == 4) {
        return ConvertHalfToFloat(reinterpret_cast<const uint16_t*>(in), reinterpret_cast<float*>(out), n);
    }
    WithType(inType, [&](auto inTag) {
        WithType(outType, [&](auto outTag) {
            CastTyped<typename decltype(inTag)::Type, typename decltype(outTag)::Type>(in, inStride, out, outStride, n);
        });
    });
}

void FillSequenceRow(DML_TENSOR_DATA_TYPE type, const DML_SCALAR_UNION& start, const DML_SCALAR_UNION& delta,
                     uint64_t firstIndex, std::byte* out, int64_t stride, uint64_t n) {
    auto floating = [&](double first, double step, auto store) {
        for (uint64_t i = 0; i < n; ++i) store(out + int64_t(i) * stride, first + double(firstIndex + i) * step);
    };
    switch (type) {
        case DML_TENSOR_DATA_TYPE_FLOAT32:
            return floating(start.Float32, delta.Float32,
                            [](std::byte* p, double v) { StoreAt<float>(p, static_cast<float>(v)); });
        case DML_TENSOR_DATA_TYPE_FLOAT64:
            return floating(start.Float64, delta.Float64, [](std::byte* p, double v) { StoreAt<double>(p, v); });
        case DML_TENSOR_DATA_TYPE_FLOAT16:
            return floating(HalfToFloat(start.UInt16), HalfToFloat(delta.UInt16),
                            [](std::byte* p, double v) { StoreAt<uint16_t>(p, DoubleToHalf(v)); });
        default:
            break;
    }
    // Integers: the sequence modulo 2^64, then its low bits (signed values sign-extended first).
    WithType(type, [&](auto tag) {
        using T = typename decltype(tag)::Type;
        if constexpr (std::is_integral_v<T>) {
            T first, step;
            std::memcpy(&first, start.Bytes, sizeof(T));
            std::memcpy(&step, delta.Bytes, sizeof(T));
            const uint64_t a = uint64_t(first), d = uint64_t(step);
            for (uint64_t i = 0; i < n; ++i) StoreAt<T>(out + int64_t(i) * stride, T(a + (firstIndex + i) * d));
        }
    });
}

}  // namespace freedml::dml::cpu
