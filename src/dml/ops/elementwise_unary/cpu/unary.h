// Shared pieces of the unary element-wise CPU kernels (unary.cpp: the math and bit operators;
// unary_cast.cpp: CAST and the FILL_VALUE operators). Rows are handed over as (pointers, count,
// byte strides) by the LoopPlan machinery of tensor_view.h.
#pragma once

#include <DirectML.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "dml/kernels/cpu/tensor_view.h"
#include "dml/kernels/integer_math.h"  // SaturatingTruncate: CAST's float-to-integer conversion

namespace freedml::dml::cpu {

template <class T>
inline T LoadAt(const std::byte* p) {
    T v;
    std::memcpy(&v, p, sizeof(T));
    return v;
}

template <class T>
inline void StoreAt(std::byte* p, T v) {
    std::memcpy(p, &v, sizeof(T));
}

using Ptrs2 = std::array<std::byte*, 2>;
using Strides2 = std::array<int64_t, 2>;

// CAST of one row: `n` elements of `inType` at in/inStride to `outType` at out/outStride.
// Floating point to integer truncates toward zero and saturates (NaN gives 0); integer to
// integer keeps the low bits (two's complement wrap); conversions to a floating type round to
// nearest even, once.
void CastRow(DML_TENSOR_DATA_TYPE inType, DML_TENSOR_DATA_TYPE outType, const std::byte* in, int64_t inStride,
             std::byte* out, int64_t outStride, uint64_t n);

// FILL_VALUE_SEQUENCE: element k of the row gets start + (firstIndex + k) * delta, computed in
// float64 and rounded once for the floating types, modulo 2^bits for the integers. `start` and
// `delta` are DML_SCALAR_UNIONs of `type`.
void FillSequenceRow(DML_TENSOR_DATA_TYPE type, const DML_SCALAR_UNION& start, const DML_SCALAR_UNION& delta,
                     uint64_t firstIndex, std::byte* out, int64_t stride, uint64_t n);

// Rounds a double to the nearest FLOAT16 (ties to even), in one step.
uint16_t DoubleToHalf(double value);

}  // namespace freedml::dml::cpu
