// Floating-point semantics that the CPU and the CUDA kernels share, written once so that both
// backends agree bit for bit: compiled as host code by the C++ compiler and as host and device code
// by nvcc (integer_math.h is its integer counterpart).
#pragma once

#include <cstdint>
#include <cstring>
#include <type_traits>

#include "common/host_device.h"

namespace freedml::dml {

// The bits of a float or double, and back (memcpy: defined behaviour on host and device alike).
template <class T>
FREEDML_HOST_DEVICE inline auto FloatBits(T value) {
    static_assert(std::is_same_v<T, float> || std::is_same_v<T, double>);
    std::conditional_t<sizeof(T) == 4, uint32_t, uint64_t> bits;
    std::memcpy(&bits, &value, sizeof(T));
    return bits;
}
template <class T, class Bits>
FREEDML_HOST_DEVICE inline T FloatFromBits(Bits bits) {
    static_assert(sizeof(T) == sizeof(Bits));
    T value;
    std::memcpy(&value, &bits, sizeof(T));
    return value;
}

// ELEMENT_WISE_MAX of two floats (IEEE 754 maxNum, with signed zeros ordered): a NaN operand
// yields the other operand (NaN only when both are), and MAX(-0, +0) is +0 in either order (equal
// operands combine their bits with AND, which keeps the sign only when both are negative).
template <class T>
FREEDML_HOST_DEVICE inline T MaxNumber(T a, T b) {
    T r = a > b ? a : b;
    r = a == b ? FloatFromBits<T>(FloatBits(a) & FloatBits(b)) : r;
    r = b != b ? a : r;
    return a != a ? b : r;
}

// ELEMENT_WISE_MIN: minNum, with MIN(-0, +0) = -0 in either order (OR keeps a sign bit).
template <class T>
FREEDML_HOST_DEVICE inline T MinNumber(T a, T b) {
    T r = a < b ? a : b;
    r = a == b ? FloatFromBits<T>(FloatBits(a) | FloatBits(b)) : r;
    r = b != b ? a : r;
    return a != a ? b : r;
}

}  // namespace freedml::dml
