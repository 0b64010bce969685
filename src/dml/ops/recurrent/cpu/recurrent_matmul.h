// The product the recurrent CPU kernel spends its time in, through oneDNN's matmul where FreeDML
// is built with it (kernels/cpu/onednn.cpp holds the call).
#pragma once

#include <cstdint>

namespace freedml::dml::cpu {

// c {m, n} += a {m, k} x b {k, n}, FLOAT32 row-major with leading dimensions lda, ldb, ldc.
// False (nothing written) when oneDNN is not built in or refuses the shapes.
bool MatMulAccumulateOneDnn(const float* a, int64_t lda, const float* b, int64_t ldb, float* c, int64_t ldc, int64_t m,
                            int64_t k, int64_t n);

}  // namespace freedml::dml::cpu
