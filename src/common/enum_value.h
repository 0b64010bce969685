// Reads an enum that came from the application as its integer value. An out-of-range value is
// legal input that FreeDML must refuse with a message, but loading it as the enum type is
// undefined behaviour (UBSan's -fsanitize=enum stops there), so it is copied out as bytes.
#pragma once

#include <cstring>
#include <type_traits>

namespace freedml {

template <class Enum>
std::underlying_type_t<Enum> Raw(const Enum& value) {
    std::underlying_type_t<Enum> raw;
    std::memcpy(&raw, &value, sizeof(raw));
    return raw;
}

}  // namespace freedml
