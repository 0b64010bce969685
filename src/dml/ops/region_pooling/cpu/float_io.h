// FLOAT32 or FLOAT16 elements read and written as float by the region pooling family's CPU kernels
// (forward and gradient), by element offset.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "dml/kernels/cpu/float16.h"

namespace freedml::dml::region {

template <bool kHalf>
inline float ReadFloat(const std::byte* base, int64_t offset) {
    if constexpr (kHalf) {
        uint16_t v;
        std::memcpy(&v, base + offset * 2, 2);
        return cpu::HalfToFloat(v);
    } else {
        float v;
        std::memcpy(&v, base + offset * 4, 4);
        return v;
    }
}

template <bool kHalf>
inline void WriteFloat(std::byte* base, int64_t offset, float value) {
    if constexpr (kHalf) {
        const uint16_t v = cpu::FloatToHalf(value);
        std::memcpy(base + offset * 2, &v, 2);
    } else {
        std::memcpy(base + offset * 4, &value, 4);
    }
}

}  // namespace freedml::dml::region
