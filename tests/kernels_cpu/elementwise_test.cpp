// ELEMENT_WISE_IDENTITY and ADD/ADD1 (the binary family's kernel) against float64 (or exact
// integer) references computed here.
// Float tolerance: the exact result rounded once to the output type (0.5 ULP) plus 1 ULP of
// slack; with an activation, the tolerance carried through the float64 activation (test_util.h).
// Integers must match exactly (wrap-around modulo 2^bits).
#include <gtest/gtest.h>

#include <type_traits>

#include "dml/ops/elementwise_binary/cpu/binary_kernels.h"
#include "dml/ops/elementwise_unary/cpu/elementwise.h"
#include "test_util.h"

namespace freedml::dml::cpu::test {
namespace {

bool IsFloat(DML_TENSOR_DATA_TYPE t) {
    return t == DML_TENSOR_DATA_TYPE_FLOAT32 || t == DML_TENSOR_DATA_TYPE_FLOAT16 || t == DML_TENSOR_DATA_TYPE_FLOAT64;
}

// The integer value modulo 2^bits, read back in the type.
double Wrap(DML_TENSOR_DATA_TYPE type, int64_t v) {
    switch (type) {
        case DML_TENSOR_DATA_TYPE_UINT8: return double(uint8_t(uint64_t(v)));
        case DML_TENSOR_DATA_TYPE_INT8: return double(int8_t(uint8_t(uint64_t(v))));
        case DML_TENSOR_DATA_TYPE_UINT16: return double(uint16_t(uint64_t(v)));
        case DML_TENSOR_DATA_TYPE_INT16: return double(int16_t(uint16_t(uint64_t(v))));
        case DML_TENSOR_DATA_TYPE_UINT32: return double(uint32_t(uint64_t(v)));
        case DML_TENSOR_DATA_TYPE_INT32: return double(int32_t(uint32_t(uint64_t(v))));
        default: return double(v);
    }
}

void ExpectClose(DML_TENSOR_DATA_TYPE type, double got, double ref, const char* what) {
    if (type != DML_TENSOR_DATA_TYPE_FLOAT32 && type != DML_TENSOR_DATA_TYPE_FLOAT16) {
        EXPECT_EQ(got, ref) << what;
        return;
    }
    double tol = 1.5 * TypeUlp(type) * std::fabs(ref) + 1e-30;
    if (type == DML_TENSOR_DATA_TYPE_FLOAT16) tol += 6e-8;  // FLOAT16 subnormal spacing
    EXPECT_NEAR(got, ref, tol) << what;
}

// ADD, or ADD1 with `activation`, on the binary family's kernel.
Status CreateAdd(BinaryKernel* kernel, const TensorDesc& a, const TensorDesc& b, const TensorDesc& output,
                 FusedActivation activation = {}) {
    BinaryParams params;
    params.op = BinaryOp::Add;
    params.a = a;
    params.b = b;
    params.output = output;
    params.activation = activation;
    return kernel->Create(params);
}

struct AddCase {
    DML_TENSOR_DATA_TYPE type;
    std::vector<uint32_t> sizes;
    std::vector<uint32_t> aStrides = {}, bStrides = {}, outStrides = {};  // empty: packed
};

void RunAdd(const AddCase& c, FusedActivation activation = {}, bool extremes = false) {
    SCOPED_TRACE(testing::Message() << DataTypeName(c.type) << " rank " << c.sizes.size());
    Tensor a(Desc(c.type, c.sizes, c.aStrides)), b(Desc(c.type, c.sizes, c.bStrides)),
        out(Desc(c.type, c.sizes, c.outStrides));
    std::mt19937 rng(42);
    if (extremes) {
        // Values near the type's limits, so that sums wrap around.
        const uint32_t bits = 8 * ElementSizeInBytes(c.type);
        const bool isSigned = c.type == DML_TENSOR_DATA_TYPE_INT8 || c.type == DML_TENSOR_DATA_TYPE_INT16 ||
                              c.type == DML_TENSOR_DATA_TYPE_INT32;
        const double hi = std::ldexp(1.0, isSigned ? int(bits) - 1 : int(bits)) - 1;
        a.Fill(rng, isSigned ? -hi : 0, hi);
        b.Fill(rng, isSigned ? -hi : 0, hi);
    } else {
        a.Fill(rng, -100, 100);
        b.Fill(rng, -100, 100);
    }
    BinaryKernel kernel;
    Status status = CreateAdd(&kernel, a.desc, b.desc, out.desc, activation);
    ASSERT_TRUE(status.ok()) << status.FullMessage();
    kernel.Execute(Threads(), a.view(), b.view(), out.view());
    out.ForEach([&](const std::vector<uint32_t>& i) {
        if (!IsFloat(c.type)) {
            EXPECT_EQ(out.Get(i), Wrap(c.type, int64_t(a.Get(i)) + int64_t(b.Get(i))));
            return;
        }
        const double sum = a.Get(i) + b.Get(i);  // exact in float64 for these inputs
        if (!activation.IsNone()) {
            EXPECT_NEAR(out.Get(i), RefActivation(activation, sum),
                        ActivatedTolerance(activation, sum, kEps32 * std::fabs(sum), c.type));
            return;
        }
        ExpectClose(c.type, out.Get(i), sum, "ADD");
    });
}

TEST(ElementWiseAdd, PackedAllTypes) {
    for (auto type : {DML_TENSOR_DATA_TYPE_FLOAT32, DML_TENSOR_DATA_TYPE_FLOAT16, DML_TENSOR_DATA_TYPE_INT32,
                      DML_TENSOR_DATA_TYPE_UINT32, DML_TENSOR_DATA_TYPE_INT16, DML_TENSOR_DATA_TYPE_UINT16,
                      DML_TENSOR_DATA_TYPE_INT8, DML_TENSOR_DATA_TYPE_UINT8, DML_TENSOR_DATA_TYPE_INT64}) {
        RunAdd({type, {2, 3, 5, 7}});
    }
    // FLOAT64 is not among ADD's data types.
    BinaryKernel k;
    EXPECT_FALSE(CreateAdd(&k, Desc(DML_TENSOR_DATA_TYPE_FLOAT64, {4}), Desc(DML_TENSOR_DATA_TYPE_FLOAT64, {4}),
                           Desc(DML_TENSOR_DATA_TYPE_FLOAT64, {4}))
                     .ok());
}

TEST(ElementWiseAdd, IntegerWrapAround) {
    for (auto type : {DML_TENSOR_DATA_TYPE_INT32, DML_TENSOR_DATA_TYPE_UINT32, DML_TENSOR_DATA_TYPE_INT16,
                      DML_TENSOR_DATA_TYPE_UINT16, DML_TENSOR_DATA_TYPE_INT8, DML_TENSOR_DATA_TYPE_UINT8}) {
        RunAdd({type, {4, 33}}, {}, true);
        RunAdd({type, {4, 33}, {1, 4}}, {}, true);  // strided path too
    }
    // Fixed values: 127 + 1 wraps to -128 in INT8, -128 + -1 to 127.
    Tensor a(Desc(DML_TENSOR_DATA_TYPE_INT8, {1, 2})), b(Desc(DML_TENSOR_DATA_TYPE_INT8, {1, 2})),
        o(Desc(DML_TENSOR_DATA_TYPE_INT8, {1, 2}));
    a.Set({0, 0}, 127), b.Set({0, 0}, 1), a.Set({0, 1}, -128), b.Set({0, 1}, -1);
    BinaryKernel k;
    ASSERT_TRUE(CreateAdd(&k, a.desc, b.desc, o.desc).ok());
    k.Execute(Threads(), a.view(), b.view(), o.view());
    EXPECT_EQ(o.Get({0, 0}), -128);
    EXPECT_EQ(o.Get({0, 1}), 127);
}

TEST(ElementWiseAdd, BroadcastTransposedOffsetStrides) {
    for (auto type : {DML_TENSOR_DATA_TYPE_FLOAT32, DML_TENSOR_DATA_TYPE_FLOAT16, DML_TENSOR_DATA_TYPE_INT16}) {
        // A transposed; B broadcast along dimensions 0 and 2 (zero strides); output with padded rows.
        RunAdd({type, {3, 4, 5}, {1, 3, 12}, {0, 1, 0}, {40, 8, 1}});
        // Scalar broadcast.
        RunAdd({type, {2, 65}, {65, 1}, {0, 0}});
        // Everything strided in the innermost dimension.
        RunAdd({type, {5, 9}, {20, 2}, {1, 5}, {30, 3}});
    }
}

TEST(ElementWiseAdd, LargeTensorsSplitAcrossThreads) {
    RunAdd({DML_TENSOR_DATA_TYPE_FLOAT32, {1, 1, 517, 1031}});
    RunAdd({DML_TENSOR_DATA_TYPE_FLOAT16, {3, 100003}});
    RunAdd({DML_TENSOR_DATA_TYPE_FLOAT32, {1, 300000}, {2, 2}});  // one strided row, split
}

TEST(ElementWiseAdd1, FusedActivation) {
    RunAdd({DML_TENSOR_DATA_TYPE_FLOAT32, {4, 50}}, {DML_OPERATOR_ACTIVATION_RELU, 0, 0, 0});
    RunAdd({DML_TENSOR_DATA_TYPE_FLOAT16, {4, 50}}, {DML_OPERATOR_ACTIVATION_LEAKY_RELU, 0.1f, 0, 0});
    RunAdd({DML_TENSOR_DATA_TYPE_FLOAT32, {4, 50}, {1, 4}}, {DML_OPERATOR_ACTIVATION_SIGMOID, 0, 0, 0});
    BinaryKernel k;
    Status s = CreateAdd(&k, Desc(DML_TENSOR_DATA_TYPE_INT32, {4}), Desc(DML_TENSOR_DATA_TYPE_INT32, {4}),
                         Desc(DML_TENSOR_DATA_TYPE_INT32, {4}), {DML_OPERATOR_ACTIVATION_RELU, 0, 0, 0});
    EXPECT_FALSE(s.ok());
}

// Outputs of 32 MiB and more take the streaming path on any machine (half the last-level cache,
// at most 32 MiB): an alignment prefix, blocks computed in L1 and written with non-temporal stores,
// a tail. Operands one element past a 16-byte boundary, in place or not, with an activation
// applied to each block before it is streamed, and without one.
TEST(ElementWiseAdd1, StreamedRowsUnalignedInPlace) {
    const FusedActivation sigmoid{DML_OPERATOR_ACTIVATION_SIGMOID, 0, 0, 0};
    for (auto type : {DML_TENSOR_DATA_TYPE_FLOAT32, DML_TENSOR_DATA_TYPE_FLOAT16}) {
        const uint32_t size = ElementSizeInBytes(type);
        const uint32_t n = uint32_t((uint64_t(32) << 20) / size + 77);
        const TensorDesc desc = Desc(type, {1, n});
        Tensor a(Desc(type, {1, n + 1})), b(Desc(type, {1, n + 1})), out(Desc(type, {1, n + 1}));
        std::mt19937 rng(11);
        a.Fill(rng, -8, 8);
        b.Fill(rng, -8, 8);
        const Tensor original = a;
        for (bool activated : {true, false}) {
            for (bool inPlace : {false, true}) {
                SCOPED_TRACE(testing::Message() << DataTypeName(type) << (activated ? " SIGMOID" : "")
                                                << (inPlace ? " in place" : ""));
                a = original;
                Tensor& result = inPlace ? a : out;
                const double before = result.GetAt(0);
                BinaryKernel k;
                ASSERT_TRUE(CreateAdd(&k, desc, desc, desc, activated ? sigmoid : FusedActivation{}).ok());
                k.Execute(Threads(), MakeView(desc, a.data() + size), MakeView(desc, b.data() + size),
                          MakeView(desc, result.data() + size));
                uint64_t wrong = 0;
                for (uint64_t i = 1; i <= n; ++i) {
                    const double sum = original.GetAt(i) + b.GetAt(i);
                    const double got = result.GetAt(i);
                    const bool ok = activated
                        ? std::fabs(got - RefActivation(sigmoid, sum)) <=
                              ActivatedTolerance(sigmoid, sum, kEps32 * std::fabs(sum), type)
                        : std::fabs(got - sum) <= 0.5 * TypeUlp(type) * std::fabs(sum) + 6e-8;
                    if (!ok && wrong++ < 5) ADD_FAILURE() << "element " << i - 1 << ": " << got << " for " << sum;
                }
                EXPECT_EQ(wrong, 0u);
                EXPECT_EQ(result.GetAt(0), before);  // the element before the view is not written
            }
        }
    }
}

TEST(ElementWiseAdd, InPlace) {
    for (auto type : {DML_TENSOR_DATA_TYPE_FLOAT32, DML_TENSOR_DATA_TYPE_FLOAT16, DML_TENSOR_DATA_TYPE_INT32}) {
        for (auto strides : {std::vector<uint32_t>{}, std::vector<uint32_t>{1, 7}}) {
            Tensor a(Desc(type, {7, 300}, strides)), b(Desc(type, {7, 300}));
            std::mt19937 rng(7);
            a.Fill(rng, -50, 50);
            b.Fill(rng, -50, 50);
            Tensor original = a;
            BinaryKernel k;
            ASSERT_TRUE(CreateAdd(&k, a.desc, b.desc, a.desc).ok());
            k.Execute(Threads(), a.view(), b.view(), a.view());
            a.ForEach([&](const std::vector<uint32_t>& i) {
                ExpectClose(type, a.Get(i), original.Get(i) + b.Get(i), "in place");
            });
        }
    }
}

TEST(ElementWiseAdd, Float16RoundsToNearestEven) {
    // 2048 + 1 lies halfway between FLOAT16 2048 and 2050: ties to even gives 2048; 2050 + 1 gives
    // 2052; 65504 + 32 rounds to infinity.
    Tensor a(Desc(DML_TENSOR_DATA_TYPE_FLOAT16, {1, 3})), b(Desc(DML_TENSOR_DATA_TYPE_FLOAT16, {1, 3})),
        o(Desc(DML_TENSOR_DATA_TYPE_FLOAT16, {1, 3}));
    a.Set({0, 0}, 2048), b.Set({0, 0}, 1);
    a.Set({0, 1}, 2050), b.Set({0, 1}, 1);
    a.Set({0, 2}, 65504), b.Set({0, 2}, 32);
    BinaryKernel k;
    ASSERT_TRUE(CreateAdd(&k, a.desc, b.desc, o.desc).ok());
    k.Execute(Threads(), a.view(), b.view(), o.view());
    EXPECT_EQ(o.Get({0, 0}), 2048);
    EXPECT_EQ(o.Get({0, 1}), 2052);
    EXPECT_TRUE(std::isinf(o.Get({0, 2})));
}

void RunIdentity(DML_TENSOR_DATA_TYPE type, std::vector<uint32_t> sizes, std::vector<uint32_t> inStrides,
                 std::vector<uint32_t> outStrides, bool scaleBias) {
    SCOPED_TRACE(testing::Message() << DataTypeName(type) << (scaleBias ? " with ScaleBias" : ""));
    Tensor in(Desc(type, sizes, inStrides)), out(Desc(type, sizes, outStrides));
    std::mt19937 rng(3);
    in.Fill(rng, -100, 100);
    IdentityParams params{in.desc, out.desc, scaleBias, {scaleBias ? 0.5f : 1.0f, scaleBias ? -3.25f : 0.0f}};
    IdentityKernel k;
    ASSERT_TRUE(k.Create(params).ok());
    k.Execute(Threads(), in.view(), out.view(), nullptr, nullptr);
    in.ForEach([&](const std::vector<uint32_t>& i) {
        ExpectClose(type, out.Get(i), scaleBias ? in.Get(i) * 0.5 - 3.25 : in.Get(i), "IDENTITY");
    });
}

TEST(ElementWiseIdentity, CopiesAndScaleBias) {
    for (auto type : {DML_TENSOR_DATA_TYPE_FLOAT32, DML_TENSOR_DATA_TYPE_FLOAT16, DML_TENSOR_DATA_TYPE_UINT8,
                      DML_TENSOR_DATA_TYPE_INT16, DML_TENSOR_DATA_TYPE_INT32, DML_TENSOR_DATA_TYPE_INT64}) {
        RunIdentity(type, {2, 3, 17}, {}, {}, false);
        RunIdentity(type, {2, 3, 17}, {1, 2, 6}, {60, 20, 1}, false);  // transpose into padded rows
        RunIdentity(type, {4, 5}, {0, 1}, {}, false);                  // broadcast rows
    }
    for (auto type : {DML_TENSOR_DATA_TYPE_FLOAT32, DML_TENSOR_DATA_TYPE_FLOAT16}) {
        RunIdentity(type, {2, 3, 17}, {}, {}, true);
        RunIdentity(type, {2, 3, 17}, {1, 2, 6}, {}, true);
        RunIdentity(type, {1, 200000}, {}, {}, true);
    }
    IdentityKernel k;
    EXPECT_FALSE(
        k.Create({Desc(DML_TENSOR_DATA_TYPE_INT32, {4}), Desc(DML_TENSOR_DATA_TYPE_INT32, {4}), true, {2.0f, 1.0f}})
            .ok());
}

TEST(ElementWiseIdentity, InPlaceScaleBias) {
    Tensor t(Desc(DML_TENSOR_DATA_TYPE_FLOAT32, {3, 1000}));
    std::mt19937 rng(5);
    t.Fill(rng);
    Tensor original = t;
    IdentityKernel k;
    ASSERT_TRUE(k.Create({t.desc, t.desc, true, {2.0f, 1.0f}}).ok());
    k.Execute(Threads(), t.view(), t.view(), nullptr, nullptr);
    t.ForEach([&](const std::vector<uint32_t>& i) { EXPECT_EQ(t.Get(i), double(float(original.Get(i) * 2 + 1))); });
}

}  // namespace
}  // namespace freedml::dml::cpu::test
