// oneDNN's integer GEMM for the quantized family's matrix multiplies (kernels/cpu/onednn.cpp holds
// the call): row-major C[m x n] (INT32) = A[m x k] (UINT8 or INT8) x B[k x n] (INT8), no zero
// points (the caller applies them exactly afterwards from row and column sums).
#pragma once

#include <cstdint>

namespace freedml::dml::cpu {

// False when FreeDML was built without oneDNN or oneDNN refused; C is then unspecified.
bool Int8Gemm(bool aSigned, int64_t m, int64_t n, int64_t k, const void* a, int64_t lda, const int8_t* b, int64_t ldb,
              int32_t* c, int64_t ldc);

}  // namespace freedml::dml::cpu
