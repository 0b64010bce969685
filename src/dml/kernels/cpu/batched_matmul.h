// A FLOAT32 matrix product over a batch of matrices whose elements lie at arbitrary element
// strides, through oneDNN's matmul (kernels/cpu/onednn.cpp holds the calls): the attention
// kernel's scores Q.K^T and its weighted sum P.V read the bindings where they are.
#pragma once

#include <array>
#include <cstdint>
#include <memory>

namespace freedml::dml::cpu {

// Element strides of a batch of matrices: batch, rows, columns.
struct MatrixStrides {
    int64_t batch = 0, row = 0, column = 0;
};

// c[i] = alpha * a[i] x b[i] for i < batch; a {m, k}, b {k, n}, c {m, n}. With broadcastB, one b
// serves every i (how the query heads of one key/value head share its keys; b.batch is unused).
class BatchedMatMul {
public:
    BatchedMatMul();
    ~BatchedMatMul();
    BatchedMatMul(BatchedMatMul&&) noexcept;
    BatchedMatMul& operator=(BatchedMatMul&&) noexcept;

    // False when oneDNN is not built in, refuses the shapes, or would run them only through its
    // reference implementation (then Run must not be called).
    bool Prepare(int64_t batch, int64_t m, int64_t k, int64_t n, float alpha, const MatrixStrides& a,
                 const MatrixStrides& b, bool broadcastB, const MatrixStrides& c);
    // False when oneDNN failed (c is then unspecified).
    bool Run(const float* a, const float* b, float* c) const;

private:
    struct State;
    std::unique_ptr<State> state_;
};

}  // namespace freedml::dml::cpu
