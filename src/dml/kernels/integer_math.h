// Integer semantics that the CPU and the CUDA kernels share, written once so that both backends
// agree bit for bit: compiled as host code by the C++ compiler and as host and device code by
// nvcc (no std::numeric_limits calls, which device code cannot make).
#pragma once

#include <cmath>
#include <cstdint>
#include <type_traits>

#include "common/host_device.h"

namespace freedml::dml {

// Integer arithmetic in an unsigned type at least as wide as `unsigned`: wraps modulo 2^bits and
// never overflows into undefined behaviour (uint16 * uint16 would promote to int).
template <class T>
using Wide = std::conditional_t<(sizeof(T) < sizeof(unsigned)), unsigned, std::make_unsigned_t<T>>;

template <class T>
struct IntegerLimits {
    static constexpr bool kSigned = std::is_signed_v<T>;
    static constexpr T kMax = T(std::make_unsigned_t<T>(~std::make_unsigned_t<T>(0)) >> (kSigned ? 1 : 0));
    static constexpr T kMin = kSigned ? T(-kMax - 1) : T(0);
    // 2^digits: the first value past kMax, and (like kMin) an exact double.
    static constexpr double kPastMax = double(uint64_t(1) << (sizeof(T) * 8 - (kSigned ? 2 : 1))) * 2.0;
};
static_assert(IntegerLimits<int8_t>::kMin == -128 && IntegerLimits<int8_t>::kMax == 127);
static_assert(IntegerLimits<uint16_t>::kMin == 0 && IntegerLimits<uint16_t>::kMax == 65535);
static_assert(IntegerLimits<int64_t>::kMin == INT64_MIN && IntegerLimits<int64_t>::kPastMax == 9223372036854775808.0);
static_assert(IntegerLimits<uint64_t>::kMax == UINT64_MAX && IntegerLimits<uint64_t>::kPastMax == 18446744073709551616.0);

// A float64 as integer type T, as CAST and every FLOAT bound on an integer tensor convert:
// truncation toward zero, saturation at the type's limits, NaN gives 0.
template <class T>
FREEDML_HOST_DEVICE inline T SaturatingTruncate(double value) {
    if (value != value) return T(0);
    if (value >= IntegerLimits<T>::kPastMax) return IntegerLimits<T>::kMax;
    if (value <= double(IntegerLimits<T>::kMin)) return IntegerLimits<T>::kMin;
    return T(value);  // in range: truncates toward zero
}

// base^exponent modulo 2^bits, exactly (integer POW); a negative exponent gives trunc(1 / base^-e).
template <class T>
FREEDML_HOST_DEVICE inline T IntegerPow(T base, int64_t exponent) {
    using U = Wide<T>;
    if (exponent < 0) {
        if (base == T(1)) return T(1);
        if constexpr (std::is_signed_v<T>) {
            if (base == T(-1)) return (exponent & 1) ? T(-1) : T(1);
        }
        return T(0);
    }
    U result = 1, factor = U(base);
    for (uint64_t e = uint64_t(exponent); e; e >>= 1) {
        if (e & 1) result = U(result * factor);
        factor = U(factor * factor);
    }
    return T(result);
}

// ACTIVATION_SHRINK on an integer: x - Bias above Threshold, x + Bias below -Threshold, else 0,
// computed in float64, then truncated and saturated (a NaN parameter gives 0).
template <class T>
FREEDML_HOST_DEVICE inline T ShrinkInteger(T x, double bias, double threshold) {
    const double v = double(x);
    double r = 0.0;
    if (v < -threshold) {
        r = v + bias;
    } else if (v > threshold) {
        r = v - bias;
    }
    return SaturatingTruncate<T>(r);
}

}  // namespace freedml::dml
