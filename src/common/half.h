// IEEE 754 binary16 <-> binary32, one scalar conversion for every layer (the CPU kernels, the CUDA
// kernels' host-side planning, the D3D12 buffer clears): exact bit manipulation, round to nearest
// even (the rounding of CUDA's __float2half_rn too), NaN kept quiet. Header-only, free of DirectML
// types, and usable in device code.
#pragma once

#include <cstdint>
#include <cstring>

#include "common/host_device.h"

namespace freedml {

FREEDML_HOST_DEVICE inline float HalfToFloat(uint16_t h) {
    uint32_t sign = uint32_t(h & 0x8000) << 16;
    uint32_t exponent = (h >> 10) & 0x1F;
    uint32_t mantissa = h & 0x3FF;
    uint32_t bits;
    if (exponent == 0x1F) {
        bits = sign | 0x7F800000u | (mantissa << 13) | (mantissa ? 0x00400000u : 0);
    } else if (exponent != 0) {
        bits = sign | ((exponent + 112) << 23) | (mantissa << 13);
    } else if (mantissa == 0) {
        bits = sign;
    } else {
        // Subnormal half: value = mantissa * 2^-24, exactly representable as a normal float.
        float value = float(mantissa) * (1.0f / 16777216.0f);
        std::memcpy(&bits, &value, 4);
        bits |= sign;
    }
    float out;
    std::memcpy(&out, &bits, 4);
    return out;
}

FREEDML_HOST_DEVICE inline uint16_t FloatToHalf(float f) {
    uint32_t bits;
    std::memcpy(&bits, &f, 4);
    uint16_t sign = uint16_t((bits >> 16) & 0x8000);
    uint32_t magnitude = bits & 0x7FFFFFFFu;
    if (magnitude >= 0x7F800000u) {  // infinity or NaN (NaN stays NaN, quiet)
        return uint16_t(sign | 0x7C00 | (magnitude > 0x7F800000u ? 0x200 | ((magnitude >> 13) & 0x3FF) : 0));
    }
    if (magnitude >= 0x477FF000u) return uint16_t(sign | 0x7C00);  // rounds to >= 65520: infinity
    if (magnitude >= 0x38800000u) {  // normal half range
        uint32_t rounded = magnitude + 0x0FFF + ((magnitude >> 13) & 1);  // round to nearest even
        return uint16_t(sign | ((rounded - 0x38000000u) >> 13));
    }
    if (magnitude < 0x33000000u) return sign;  // below half of the smallest subnormal: zero
    // Subnormal half: shift the full mantissa into place, rounding to nearest even.
    uint32_t exponent = magnitude >> 23;
    uint32_t mantissa = (magnitude & 0x7FFFFF) | 0x800000;
    uint32_t shift = 126 - exponent;  // 14..24 places below the half's 10-bit field
    uint32_t half = mantissa >> shift;
    uint32_t remainder = mantissa & ((1u << shift) - 1);
    uint32_t midpoint = 1u << (shift - 1);
    if (remainder > midpoint || (remainder == midpoint && (half & 1))) ++half;
    return uint16_t(sign | half);
}

}  // namespace freedml
