// See common/enum_value.h: application enums are read as integers until validated.
#pragma once

#include "common/enum_value.h"

namespace freedml::d3d12 {
using freedml::Raw;
}  // namespace freedml::d3d12
