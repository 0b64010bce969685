// IEEE 754 binary16 <-> binary32 conversion for the CPU kernels. Scalar conversions are
// common/half.h's (round to nearest even, NaN payloads kept quiet); the bulk conversions use F16C
// when the CPU has it, chosen once at run time (never by compile flags).
#pragma once

#include <DirectML.h>

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "common/half.h"

namespace freedml::dml::cpu {

// The scalar conversions are the project's one pair (common/half.h).
using ::freedml::FloatToHalf;
using ::freedml::HalfToFloat;

// Whether the CPU (and the OS) can run F16C's conversions (vcvtph2ps, vcvtps2ph).
bool HasF16c();

// Bulk conversions of `count` packed elements.
void ConvertHalfToFloat(const uint16_t* in, float* out, size_t count);
void ConvertFloatToHalf(const float* in, uint16_t* out, size_t count);

// `n` FLOAT32 or FLOAT16 elements at a byte stride <-> packed floats (packed strides take the
// bulk paths above).
void LoadFloats(DML_TENSOR_DATA_TYPE type, const std::byte* p, int64_t stride, float* out, size_t n);
void StoreFloats(DML_TENSOR_DATA_TYPE type, const float* in, std::byte* p, int64_t stride, size_t n);

}  // namespace freedml::dml::cpu
