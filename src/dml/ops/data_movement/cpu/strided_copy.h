// The row copy the CPU data movement kernels share: elements of 1, 2, 4 or 8 bytes moved by size
// between two strided rows (byte strides, either may be negative), a memcpy where both are packed.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>

namespace freedml::dml::cpu {

template <class T>
void CopyStrided(std::byte* dst, int64_t ds, const std::byte* src, int64_t ss, uint64_t n) {
    for (uint64_t i = 0; i < n; ++i) {
        T v;
        std::memcpy(&v, src + int64_t(i) * ss, sizeof(T));
        std::memcpy(dst + int64_t(i) * ds, &v, sizeof(T));
    }
}

// The copy of one row of elements of `size` bytes from operand 1 into operand 0, as a LoopPlan<2>
// inner function.
inline auto CopyRowOf(uint32_t size) {
    return [size](const std::array<std::byte*, 2>& p, uint64_t n, const std::array<int64_t, 2>& s) {
        if (s[0] == int64_t(size) && s[1] == int64_t(size)) {
            std::memcpy(p[0], p[1], n * size);
            return;
        }
        switch (size) {
            case 1: return CopyStrided<uint8_t>(p[0], s[0], p[1], s[1], n);
            case 2: return CopyStrided<uint16_t>(p[0], s[0], p[1], s[1], n);
            case 4: return CopyStrided<uint32_t>(p[0], s[0], p[1], s[1], n);
            default: return CopyStrided<uint64_t>(p[0], s[0], p[1], s[1], n);
        }
    };
}

}  // namespace freedml::dml::cpu
