// transpose_avx512.h: every element of each matrix lands at its transposed place, for shapes whose
// sides are multiples of 16, of 64, and neither (the scalar edges), over several matrices, shared out
// in tasks or on one thread; nothing outside the output is written. Skipped (saying why) on a CPU
// without AVX-512, where the kernels never call it.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "dml/kernels/cpu/cpu_isa.h"
#include "dml/kernels/cpu/transpose_avx512.h"
#include "test_util.h"

namespace freedml::dml::cpu::test {
namespace {

TEST(TransposeAvx512, EveryElementAtItsTransposedPlace) {
    if (!UseAvx512()) GTEST_SKIP() << "this CPU has no AVX-512 (or FREEDML_CPU_NO_AVX512 is set)";
    struct Shape {
        uint64_t batch, rows, columns;
    };
    const ParallelForFunction pool = OnPool(Threads());
    for (const Shape shape : {Shape{1, 16, 16}, Shape{2, 64, 196}, Shape{1, 3136, 64}, Shape{3, 37, 53},
                              Shape{1, 1, 70}, Shape{2, 130, 17}}) {
        for (const ParallelForFunction* parallelFor : {static_cast<const ParallelForFunction*>(nullptr), &pool}) {
            const uint64_t size = shape.batch * shape.rows * shape.columns;
            std::vector<float> in(size), out(size + 32, -1.0f);
            for (uint64_t i = 0; i < size; ++i) in[i] = float(i) * 0.5f + 1.0f;  // exact, all distinct
            TransposeMatricesAvx512(in.data(), out.data() + 16, shape.batch, shape.rows, shape.columns, parallelFor);
            SCOPED_TRACE(testing::Message() << shape.batch << " x " << shape.rows << " x " << shape.columns
                                            << (parallelFor ? ", shared out" : ", one thread"));
            for (uint64_t b = 0; b < shape.batch; ++b) {
                const uint64_t base = b * shape.rows * shape.columns;
                for (uint64_t r = 0; r < shape.rows; ++r) {
                    for (uint64_t c = 0; c < shape.columns; ++c) {
                        ASSERT_EQ(out[16 + base + c * shape.rows + r], in[base + r * shape.columns + c])
                            << "matrix " << b << ", row " << r << ", column " << c;
                    }
                }
            }
            for (uint64_t i = 0; i < 16; ++i) {
                ASSERT_EQ(out[i], -1.0f) << "wrote before the output";
                ASSERT_EQ(out[16 + size + i], -1.0f) << "wrote past the output";
            }
        }
    }
}

}  // namespace
}  // namespace freedml::dml::cpu::test
