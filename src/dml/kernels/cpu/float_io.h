// FLOAT32 (kHalf false) or FLOAT16 elements read and written as float, by element offset: the
// storage access of the CPU kernels that compute in float whatever the tensor holds.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "dml/kernels/cpu/float16.h"

namespace freedml::dml::cpu {

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

}  // namespace freedml::dml::cpu
