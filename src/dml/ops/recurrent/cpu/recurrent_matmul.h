// The products the recurrent CPU kernel spends its time in, through oneDNN's matmul where FreeDML
// is built with it (kernels/cpu/onednn.cpp holds the calls).
#pragma once

#include <cstdint>
#include <memory>

namespace freedml::dml::cpu {

// c {m, n} += a {m, k} x b {k, n}, FLOAT32; a and c row-major with leading dimensions lda and
// ldc, b read through its row and column strides (a transposed matrix is column stride > 1).
// False (nothing written) when oneDNN is not built in or refuses the shapes.
bool MatMulAccumulateOneDnn(const float* a, int64_t lda, const float* b, int64_t bRow, int64_t bCol, float* c,
                            int64_t ldc, int64_t m, int64_t k, int64_t n);

// The same product for a b that stays while a changes (a recurrence's weights, once per step):
// b is packed once into the layout oneDNN prefers and the primitive is kept.
class PackedMatMul {
public:
    PackedMatMul();
    ~PackedMatMul();
    PackedMatMul(const PackedMatMul&) = delete;
    PackedMatMul& operator=(const PackedMatMul&) = delete;

    // False when oneDNN is not built in or refuses the shapes (Run must not be called then).
    bool Prepare(int64_t m, int64_t k, int64_t n, int64_t lda, int64_t ldc, const float* b, int64_t bRow, int64_t bCol);
    void Run(const float* a, float* c) const;

private:
    struct State;
    std::unique_ptr<State> state_;
};

}  // namespace freedml::dml::cpu
