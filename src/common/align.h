// Rounding a byte offset or size up to a multiple of an alignment.
#pragma once

#include <cstdint>

namespace freedml {

constexpr uint64_t AlignUp(uint64_t value, uint64_t alignment) {
    return (value + alignment - 1) / alignment * alignment;
}

}  // namespace freedml
