// GEMM against a float64 reference written here (straight loops over
// Output = act(Alpha * op(A) x op(B) + Beta * C)). Tolerance: a float accumulation of K products,
// (K + 4) FLOAT32 ULPs of |Alpha| * sum|a * b| + |Beta * c|, carried through the activation, plus one
// rounding to the output type. Each case runs on the default path (oneDNN where it applies) and
// on the forced reference path.
#include <gtest/gtest.h>

#include <cstdlib>
#include <thread>

#include "dml/kernels/cpu/team_or_solo.h"
#include "dml/kernels/cpu/thread_pool.h"
#include "dml/ops/matrix/cpu/gemm.h"
#include "test_util.h"

namespace freedml::dml::cpu::test {
namespace {

struct GemmCase {
    DML_TENSOR_DATA_TYPE type = DML_TENSOR_DATA_TYPE_FLOAT32;
    std::vector<uint32_t> batch;  // output batch sizes (rank - 2 entries)
    uint32_t m = 5, n = 7, k = 9;
    bool transA = false, transB = false;
    float alpha = 1.0f, beta = 1.0f;
    bool hasC = false;
    std::vector<uint32_t> cSizes;          // empty: the output's
    std::vector<uint32_t> aBatch, bBatch;  // empty: the output's (1 broadcasts)
    std::vector<uint32_t> aStrides, bStrides, cStrides, outStrides;
    bool ownA = false, ownB = false, ownC = false;
    FusedActivation activation;
    int expectOneDnn = -1;  // 1 / 0: the default path must (not) be oneDNN; -1: either
    bool expectSoloTwin = false;   // oneDNN's primitive has a one-thread twin (team_or_solo.h)
    bool expectRowPanels = false;  // FLOAT16 in row panels on oneDNN's OpenMP team
    bool expectPackedB = false;    // an owned B in oneDNN's blocked layout
    bool expectPoolUnused = false;  // oneDNN's path wakes no thread of FreeDML's pool
};

std::vector<uint32_t> Concat(std::vector<uint32_t> a, std::initializer_list<uint32_t> b) {
    a.insert(a.end(), b);
    return a;
}

void RunGemm(const GemmCase& c) {
    const uint32_t r = uint32_t(c.batch.size()) + 2;
    auto aBatch = c.aBatch.empty() ? c.batch : c.aBatch;
    auto bBatch = c.bBatch.empty() ? c.batch : c.bBatch;
    Tensor a(Desc(c.type, c.transA ? Concat(aBatch, {c.k, c.m}) : Concat(aBatch, {c.m, c.k}), c.aStrides, c.ownA));
    Tensor b(Desc(c.type, c.transB ? Concat(bBatch, {c.n, c.k}) : Concat(bBatch, {c.k, c.n}), c.bStrides, c.ownB));
    Tensor cT(Desc(c.type, c.cSizes.empty() ? Concat(c.batch, {c.m, c.n}) : c.cSizes, c.cStrides, c.ownC));
    std::mt19937 rng(1234);
    a.Fill(rng);
    b.Fill(rng);
    cT.Fill(rng);

    // float64 reference and its error bound, per output element in row-major order.
    const Tensor shape(Desc(c.type, Concat(c.batch, {c.m, c.n}), c.outStrides));
    std::vector<double> ref, tol;
    shape.ForEach([&](const std::vector<uint32_t>& o) {
        auto pick = [&](const Tensor& t, uint32_t row, uint32_t col) {
            std::vector<uint32_t> i(r);
            for (uint32_t d = 0; d + 2 < r; ++d) i[d] = t.desc.sizes[d] == 1 ? 0 : o[d];
            i[r - 2] = row, i[r - 1] = col;
            return t.Get(i);
        };
        double sum = 0, magnitude = 0;
        for (uint32_t k = 0; k < c.k; ++k) {
            double x = c.transA ? pick(a, k, o[r - 2]) : pick(a, o[r - 2], k);
            double y = c.transB ? pick(b, o[r - 1], k) : pick(b, k, o[r - 1]);
            sum += x * y;
            magnitude += std::fabs(x * y);
        }
        double z = double(c.alpha) * sum;
        magnitude *= std::fabs(c.alpha);
        if (c.hasC && c.beta != 0) {
            std::vector<uint32_t> i(r);
            for (uint32_t d = 0; d < r; ++d) i[d] = cT.desc.sizes[d] == 1 ? 0 : o[d];
            z += double(c.beta) * cT.Get(i);
            magnitude += std::fabs(double(c.beta) * cT.Get(i));
        }
        ref.push_back(RefActivation(c.activation, z));
        tol.push_back(ActivatedTolerance(c.activation, z, (c.k + 4) * kEps32 * magnitude + 1e-30, c.type));
    });

    for (bool forceReference : {false, true}) {
        GemmParams p;
        p.a = a.desc, p.b = b.desc, p.output = shape.desc;
        if (c.hasC) p.c = cT.desc;
        p.transA = c.transA ? DML_MATRIX_TRANSFORM_TRANSPOSE : DML_MATRIX_TRANSFORM_NONE;
        p.transB = c.transB ? DML_MATRIX_TRANSFORM_TRANSPOSE : DML_MATRIX_TRANSFORM_NONE;
        p.alpha = c.alpha, p.beta = c.beta, p.activation = c.activation;
        p.forceReference = forceReference;
        GemmKernel kernel;
        Status status = kernel.Create(p);
        ASSERT_TRUE(status.ok()) << status.FullMessage();
        SCOPED_TRACE(kernel.PathDescription());
        if (forceReference) {
            EXPECT_FALSE(kernel.UsesOneDnn());
        }
#ifdef FREEDML_HAVE_DNNL
        if (!forceReference && c.expectOneDnn >= 0) {
            EXPECT_EQ(kernel.UsesOneDnn(), c.expectOneDnn == 1);
        }
        if (!forceReference && c.expectSoloTwin) {
            EXPECT_NE(kernel.PathDescription().find("one-thread twin"), std::string::npos);
        }
        if (!forceReference && c.expectPackedB) {
            EXPECT_NE(kernel.PathDescription().find("owned B packed"), std::string::npos);
        }
        if (!forceReference && c.expectRowPanels) {
            EXPECT_NE(kernel.PathDescription().find("row panels"), std::string::npos);
        }
#endif
        Buffer persistent(kernel.PersistentSizeInBytes()), temporary(kernel.TemporarySizeInBytes());
        kernel.Initialize(a.view(), b.view(), cT.view(), persistent.ptr);
        // Owned tensors are not bound at execution.
        TensorView av = a.view(), bv = b.view(), cv = cT.view();
        if (c.ownA) av.data = nullptr;
        if (c.ownB) bv.data = nullptr;
        if (c.ownC) cv.data = nullptr;
        Tensor out(shape.desc);
        const uint64_t poolJobs = Threads()->JobsShared();
        kernel.Execute(Threads(), av, bv, c.hasC ? cv : TensorView{}, out.view(), persistent.ptr, temporary.ptr);
#ifdef FREEDML_HAVE_DNNL
        if (!forceReference && c.expectPoolUnused) {
            EXPECT_EQ(Threads()->JobsShared(), poolJobs) << "oneDNN's path shared a pass out on FreeDML's pool";
        }
#endif
        size_t e = 0, failures = 0;
        out.ForEach([&](const std::vector<uint32_t>& i) {
            double got = out.Get(i);
            if (!(std::fabs(got - ref[e]) <= tol[e]) && failures++ < 5) {
                ADD_FAILURE() << "element " << e << ": got " << got << ", expected " << ref[e] << " +- " << tol[e];
            }
            ++e;
        });
        // Bytes between strided output elements stay untouched.
        if (!c.outStrides.empty()) {
            const uint32_t es = ElementSizeInBytes(c.type);
            std::vector<bool> used(out.desc.totalTensorSizeInBytes / es + 1, false);
            out.ForEach([&](const std::vector<uint32_t>& i) { used[Offset(out.desc, i)] = true; });
            for (size_t byte = 0; byte < out.desc.totalTensorSizeInBytes; ++byte) {
                if (!used[byte / es]) {
                    ASSERT_EQ(out.bytes[byte], std::byte{0xA5}) << byte;
                }
            }
        }
    }
}

TEST(Gemm, PlainFloat32UsesOneDnn) {
    GemmCase c;
    c.batch = {1, 1};
    c.expectOneDnn = 1;
    RunGemm(c);
}

TEST(Gemm, Transposes) {
    for (bool ta : {false, true}) {
        for (bool tb : {false, true}) {
            GemmCase c;
            c.batch = {1, 1};
            c.m = 13, c.n = 17, c.k = 33;
            c.transA = ta, c.transB = tb;
            c.expectOneDnn = 1;
            RunGemm(c);
        }
    }
}

TEST(Gemm, AlphaBetaAndC) {
    for (float beta : {0.0f, 1.0f, -0.5f}) {
        GemmCase c;
        c.batch = {1, 1};
        c.alpha = 0.75f, c.beta = beta, c.hasC = true;
        c.expectOneDnn = 1;
        RunGemm(c);
    }
    GemmCase c;  // C absent, Alpha != 1
    c.batch = {1, 1};
    c.alpha = -2.0f;
    RunGemm(c);
}

TEST(Gemm, BroadcastC) {
    for (auto cSizes : {std::vector<uint32_t>{1, 1, 1, 7}, std::vector<uint32_t>{1, 1, 5, 1},
                        std::vector<uint32_t>{1, 1, 1, 1}, std::vector<uint32_t>{2, 1, 1, 7}}) {
        for (float beta : {1.0f, 0.5f}) {
            GemmCase c;
            c.batch = {2, 3};
            c.hasC = true, c.cSizes = cSizes, c.beta = beta;
            RunGemm(c);
        }
    }
    GemmCase c;  // broadcast through zero strides with full sizes
    c.batch = {1, 1};
    c.hasC = true, c.cStrides = {0, 0, 0, 1};
    RunGemm(c);
}

TEST(Gemm, BatchAndBatchBroadcast) {
    GemmCase c;
    c.batch = {2, 3};
    c.hasC = true;
    RunGemm(c);
    c.aBatch = {1, 3};  // A shared across dimension 0
    c.bBatch = {2, 1};  // B shared across dimension 1
    RunGemm(c);
    GemmCase two;  // rank 2
    two.m = 4, two.n = 3, two.k = 6;
    RunGemm(two);
    GemmCase three;  // rank 3
    three.batch = {4};
    three.transB = true;
    RunGemm(three);
}

TEST(Gemm, StridedViews) {
    GemmCase c;
    c.batch = {1, 1};
    c.m = 6, c.n = 5, c.k = 4;
    // A with strides 16 and 2 (no unit stride), output with padded rows and a gap per element.
    c.aStrides = {0, 0, 16, 2};
    c.outStrides = {0, 0, 12, 2};
    c.expectOneDnn = 0;
    c.hasC = true;
    RunGemm(c);
    // Transposed views through strides, with a unit stride, stay on oneDNN.
    GemmCase t;
    t.batch = {1, 1};
    t.aStrides = {45, 45, 1, 5};     // A {5, 9} stored column-major
    t.outStrides = {70, 70, 14, 1};  // padded output rows
    t.expectOneDnn = 1;
    RunGemm(t);
}

TEST(Gemm, FusedActivations) {
    const FusedActivation activations[] = {
        {DML_OPERATOR_ACTIVATION_RELU, 0, 0, 0},
        {DML_OPERATOR_ACTIVATION_LEAKY_RELU, 0.1f, 0, 0},
        {DML_OPERATOR_ACTIVATION_SIGMOID, 0, 0, 0},
        {DML_OPERATOR_ACTIVATION_TANH, 0, 0, 0},
        {DML_OPERATOR_ACTIVATION_ELU, 0.5f, 0, 0},
        {DML_OPERATOR_ACTIVATION_GELU, 0, 0, 0},
        {DML_OPERATOR_ACTIVATION_LINEAR, 2.0f, 0.5f, 0},
        {DML_OPERATOR_ACTIVATION_SOFTSIGN, 0, 0, 0},
        {DML_OPERATOR_ACTIVATION_SOFTPLUS, 2.0f, 0, 0},
        {DML_OPERATOR_ACTIVATION_SHRINK, 0.1f, 0.3f, 0},
        {DML_OPERATOR_ACTIVATION_CELU, 1.5f, 0, 0},
        {DML_OPERATOR_ACTIVATION_SCALED_ELU, 1.67f, 0, 1.05f},
        {DML_OPERATOR_ACTIVATION_HARD_SIGMOID, 0.2f, 0.5f, 0},
        {DML_OPERATOR_ACTIVATION_SCALED_TANH, 1.5f, 0.7f, 0},
        {DML_OPERATOR_ACTIVATION_THRESHOLDED_RELU, 0.2f, 0, 0},
        {DML_OPERATOR_ACTIVATION_PARAMETRIC_SOFTPLUS, 0.5f, 2, 0},
        {DML_OPERATOR_ACTIVATION_IDENTITY, 0, 0, 0},
    };
    for (const auto& act : activations) {
        SCOPED_TRACE(ActivationName(act.type));
        GemmCase c;
        c.batch = {1, 2};
        c.hasC = true, c.beta = 0.5f;
        c.activation = act;
        RunGemm(c);
    }
}

TEST(Gemm, Float16) {
    GemmCase c;
    c.type = DML_TENSOR_DATA_TYPE_FLOAT16;
    c.batch = {2, 1};
    c.m = 8, c.n = 9, c.k = 40;
    c.transB = true, c.hasC = true, c.alpha = 0.5f;
    c.activation = {DML_OPERATOR_ACTIVATION_RELU, 0, 0, 0};
    c.expectOneDnn = 1;  // through FLOAT32 copies
    RunGemm(c);
    c.transA = true;  // A {40, 8} read through column-major strides
    c.aBatch = {1, 1};
    c.aStrides = {1, 1, 1, 40};
    RunGemm(c);
}

TEST(Gemm, Float16AnyStridesReachOneDnn) {
    // No unit stride in A, padded and gapped output rows, a broadcast C through zero strides and an
    // activation oneDNN does not fuse: the FLOAT32 copies are packed, so oneDNN runs all the same.
    for (float beta : {1.0f, -0.5f}) {
        GemmCase c;
        c.type = DML_TENSOR_DATA_TYPE_FLOAT16;
        c.batch = {1, 2};
        c.m = 6, c.n = 5, c.k = 4;
        c.aStrides = {0, 64, 16, 2};
        c.outStrides = {0, 80, 12, 2};
        c.hasC = true, c.cStrides = {0, 0, 0, 1}, c.beta = beta;
        c.activation = {DML_OPERATOR_ACTIVATION_SOFTSIGN, 0, 0, 0};
        c.expectOneDnn = 1;
        RunGemm(c);
    }
}

// One FLOAT16 matrix with operands of tens of thousands of elements (uneven shares for two
// threads) and C scaled by Beta: large enough for its conversions to be shared out on oneDNN's
// team, small enough for a one-thread form.
GemmCase MediumFloat16WithScaledC() {
    GemmCase c;
    c.type = DML_TENSOR_DATA_TYPE_FLOAT16;
    c.batch = {1, 1};
    c.m = 151, c.n = 173, c.k = 263;
    c.hasC = true, c.beta = -0.5f;
    c.expectOneDnn = 1;
    return c;
}

TEST(Gemm, Float16LargeEnoughToConvertOnOneDnnsThreads) {
    // Operands of tens of thousands of elements: their FLOAT32 copies are made (and the output
    // rounded back) in shares across oneDNN's OpenMP team. Uneven shares, gapped output rows (the
    // gaps stay untouched), a transposed A read column by column, and C scaled by Beta.
    GemmCase c = MediumFloat16WithScaledC();
    c.outStrides = {0, 0, 180, 1};
    RunGemm(c);
    c.transA = true;
    c.ownB = true;
    RunGemm(c);
}

TEST(Gemm, Float16InRowPanelsOnOneDnnsThreads) {
    // One matrix of medium size, A not transposed, C added by oneDNN and the activation fused: each
    // thread of oneDNN's team converts its rows of A, multiplies them and rounds its rows of the
    // output. Uneven panels (an odd number of rows), gapped output rows (the gaps stay untouched),
    // a broadcast row of C, then owned A and B, and no C.
    GemmCase c;
    c.type = DML_TENSOR_DATA_TYPE_FLOAT16;
    c.batch = {1, 1};
    c.m = 151, c.n = 173, c.k = 263;
    c.hasC = true, c.cSizes = {1, 1, 1, 173};
    c.aStrides = {0, 0, 300, 1};
    c.outStrides = {0, 0, 180, 1};
    c.activation = {DML_OPERATOR_ACTIVATION_RELU, 0, 0, 0};
    c.expectOneDnn = 1;
#ifdef FREEDML_HAVE_DNNL
    // (oneDNN's GNU OpenMP team has more than one thread.)
    const char* ompThreads = std::getenv("OMP_NUM_THREADS");
    c.expectRowPanels = std::thread::hardware_concurrency() > 1 && !(ompThreads && std::atoi(ompThreads) == 1);
#endif
    RunGemm(c);
    c.ownA = c.ownB = true;
    RunGemm(c);
    c.hasC = false;
    c.ownA = false;
    c.m = 64;
    RunGemm(c);
    // Busy cores: the panels one after another on this thread (their one-thread form), uneven
    // panels and C included.
    const ScopedCpuContentionPolicyForTesting alwaysSolo(ContentionPolicy::AlwaysSolo);
    c.m = 151;
    c.hasC = true;
    RunGemm(c);
    c.ownA = c.ownB = false;
    RunGemm(c);
}

TEST(Gemm, OneThreadTwinRunsWhileTheCoresAreContended) {
    // A product of medium size gets a twin matmul sized for one thread, on the team's layouts (B
    // packed once for both); forced to run it, it must give the definition's result.
    const ScopedCpuContentionPolicyForTesting alwaysSolo(ContentionPolicy::AlwaysSolo);
    for (bool ownB : {false, true}) {
        GemmCase c;
        c.batch = {1, 1};
        c.m = 120, c.n = 136, c.k = 144;
        c.hasC = true, c.beta = 0.75f, c.ownB = ownB;
        c.activation = {DML_OPERATOR_ACTIVATION_RELU, 0, 0, 0};
        c.expectOneDnn = 1, c.expectSoloTwin = true;
        RunGemm(c);
        c.type = DML_TENSOR_DATA_TYPE_FLOAT16;
        c.transA = true;
        RunGemm(c);
    }
}

TEST(Gemm, Float16ConversionsRunAsTheProductDoes) {
    // Beside the one-thread form (the twin, or the row panels one after another) the FLOAT32 copies
    // of an unbound B and C and the rounding of the output run on this thread too: a pass on the
    // team would wait for a thread that shares its core with another process. The team's form shares
    // them out (where the team has more than one thread). Both paths: A transposed (the twin) and
    // not (the row panels).
    GemmCase c = MediumFloat16WithScaledC();
    for (bool transA : {true, false}) {
        c.transA = transA;
        SCOPED_TRACE(transA ? "A transposed" : "A as it is");
        {
            const ScopedCpuContentionPolicyForTesting alwaysSolo(ContentionPolicy::AlwaysSolo);
            const uint64_t before = OneDnnTeamRegionsOpened();
            RunGemm(c);
            EXPECT_EQ(OneDnnTeamRegionsOpened(), before) << "the one-thread form opened a region on oneDNN's team";
        }
#ifdef FREEDML_HAVE_DNNL
        const char* ompThreads = std::getenv("OMP_NUM_THREADS");
        if (std::thread::hardware_concurrency() > 1 && !(ompThreads && std::atoi(ompThreads) == 1)) {
            const ScopedCpuContentionPolicyForTesting alwaysTeam(ContentionPolicy::AlwaysTeam);
            const uint64_t before = OneDnnTeamRegionsOpened();
            RunGemm(c);
            EXPECT_GT(OneDnnTeamRegionsOpened(), before) << "the team's form shared nothing out on its team";
        }
#endif
    }
}

TEST(Gemm, OwnActivationPassRunsOnOneDnnsTeam) {
    // An activation oneDNN cannot fuse (SOFTSIGN) is applied by the kernel's own pass right after
    // the matmul, on oneDNN's OpenMP team (FreeDML's pool would wake a second set of threads while
    // oneDNN's fall asleep). An output large enough to be shared out, B owned and bound, FLOAT16
    // (copies on the team too), and the one-thread twin (the pass then on this thread).
    GemmCase c;
    c.batch = {1, 1};
    c.m = 151, c.n = 173, c.k = 263;
    c.hasC = true, c.beta = 0.5f;
    c.activation = {DML_OPERATOR_ACTIVATION_SOFTSIGN, 0, 0, 0};
    c.expectOneDnn = 1, c.expectPoolUnused = true;
    RunGemm(c);
    c.ownB = true;
    RunGemm(c);
    c.type = DML_TENSOR_DATA_TYPE_FLOAT16;
    RunGemm(c);
    const ScopedCpuContentionPolicyForTesting alwaysSolo(ContentionPolicy::AlwaysSolo);
    c.type = DML_TENSOR_DATA_TYPE_FLOAT32;
    c.m = 120, c.n = 136, c.k = 144;
    c.expectSoloTwin = true;
    RunGemm(c);
}

TEST(Gemm, OwnedTensorsArePackedAtInitialization) {
    for (bool ownA : {false, true}) {
        for (bool ownB : {false, true}) {
            GemmCase c;
            c.batch = {1, 1};
            c.m = 16, c.n = 24, c.k = 40;
            c.transB = true, c.hasC = true, c.ownA = ownA, c.ownB = ownB, c.ownC = ownA;
            RunGemm(c);
            c.type = DML_TENSOR_DATA_TYPE_FLOAT16;
            c.expectOneDnn = 1;
            RunGemm(c);
        }
    }
}

// A product large enough for oneDNN's team packs an owned B into oneDNN's blocked layout (N not a
// multiple of its 64-column blocks, B transposed), FLOAT16 through its FLOAT32 copy.
TEST(Gemm, OwnedBOfALargeProductIsPackedInOneDnnsLayout) {
    for (DML_TENSOR_DATA_TYPE type : {DML_TENSOR_DATA_TYPE_FLOAT32, DML_TENSOR_DATA_TYPE_FLOAT16}) {
        for (bool transB : {false, true}) {
            GemmCase c;
            c.batch = {1, 1};
            c.m = 100, c.n = 200, c.k = 72;
            c.type = type, c.transB = transB, c.hasC = true, c.ownB = true;
            c.expectOneDnn = 1, c.expectPackedB = true;
            RunGemm(c);
        }
    }
}

TEST(Gemm, LargerSizes) {
    GemmCase c;
    c.batch = {1, 1};
    c.m = 96, c.n = 130, c.k = 257;
    c.hasC = true, c.cSizes = {1, 1, 1, 130};
    c.activation = {DML_OPERATOR_ACTIVATION_RELU, 0, 0, 0};
    RunGemm(c);
}

TEST(Gemm, RefusesMismatchedSizesAndTypes) {
    GemmParams p;
    p.a = Desc(DML_TENSOR_DATA_TYPE_FLOAT32, {1, 1, 4, 5});
    p.b = Desc(DML_TENSOR_DATA_TYPE_FLOAT32, {1, 1, 6, 3});
    p.output = Desc(DML_TENSOR_DATA_TYPE_FLOAT32, {1, 1, 4, 3});
    GemmKernel k;
    Status s = k.Create(p);
    EXPECT_FALSE(s.ok());
    EXPECT_NE(s.message().find("sizes disagree"), std::string::npos) << s.message();
    p.a.dataType = p.b.dataType = p.output.dataType = DML_TENSOR_DATA_TYPE_INT32;
    EXPECT_FALSE(k.Create(p).ok());
}

}  // namespace
}  // namespace freedml::dml::cpu::test
