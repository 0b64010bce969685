// Each fused activation against its documented formula, evaluated in float64, at ordinary and
// edge points. Tolerance: 8 FLOAT32 ULPs of the result (plus 1e-37 absolute near zero); GELU also
// 1e-7 absolute, the conformance cases' tolerance (its float form keeps an absolute accuracy where
// the result is small, vector_math.h).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "dml/kernels/cpu/activation.h"
#include "test_util.h"

namespace freedml::dml::cpu::test {
namespace {

FusedActivation Act(DML_OPERATOR_TYPE type, float alpha = 0, float beta = 0, float gamma = 0) {
    return FusedActivation{type, alpha, beta, gamma};
}

double AbsoluteTolerance(const FusedActivation& a) { return a.type == DML_OPERATOR_ACTIVATION_GELU ? 1e-7 : 1e-37; }

const double kPoints[] = {-30.0, -10.0, -3.0, -1.5, -1.0, -0.5, -1e-3, -1e-30, 0.0,
                          1e-30, 1e-3,  0.25,  0.5,  1.0,  1.5,  3.0,  10.0,  30.0};

TEST(Activation, FormulasAtPoints) {
    const FusedActivation cases[] = {
        Act(DML_OPERATOR_ACTIVATION_LINEAR, 2.5f, -0.5f),
        Act(DML_OPERATOR_ACTIVATION_SIGMOID),
        Act(DML_OPERATOR_ACTIVATION_HARD_SIGMOID, 0.2f, 0.5f),
        Act(DML_OPERATOR_ACTIVATION_TANH),
        Act(DML_OPERATOR_ACTIVATION_SCALED_TANH, 1.5f, 0.5f),
        Act(DML_OPERATOR_ACTIVATION_RELU),
        Act(DML_OPERATOR_ACTIVATION_LEAKY_RELU, 0.125f),
        Act(DML_OPERATOR_ACTIVATION_THRESHOLDED_RELU, 1.0f),
        Act(DML_OPERATOR_ACTIVATION_ELU, 0.75f),
        Act(DML_OPERATOR_ACTIVATION_CELU, 2.0f),
        Act(DML_OPERATOR_ACTIVATION_SCALED_ELU, 1.5f, 0, 2.0f),
        Act(DML_OPERATOR_ACTIVATION_SOFTPLUS, 2.0f),
        Act(DML_OPERATOR_ACTIVATION_PARAMETRIC_SOFTPLUS, 0.5f, 3.0f),
        Act(DML_OPERATOR_ACTIVATION_SOFTSIGN),
        Act(DML_OPERATOR_ACTIVATION_IDENTITY),
        Act(DML_OPERATOR_ACTIVATION_SHRINK, 0.25f, 0.5f),
        Act(DML_OPERATOR_ACTIVATION_GELU),
    };
    for (const FusedActivation& a : cases) {
        for (double x : kPoints) {
            const float xf = float(x);
            const double ref = RefActivation(a, double(xf));
            const float got = ApplyActivation(a, xf);
            EXPECT_NEAR(got, ref, std::max(8 * kEps32 * std::fabs(ref), AbsoluteTolerance(a)))
                << ActivationName(a.type) << " at x = " << xf;
        }
    }
}

// Packed rows run the vectorized loops: every length from 0 to 40 (main loop and tail) and a long
// row, at an address off any vector boundary, against the float64 formula; a neighbour outside
// the row must stay as it was.
TEST(Activation, PackedRowsAndTails) {
    const FusedActivation cases[] = {
        Act(DML_OPERATOR_ACTIVATION_SIGMOID),           Act(DML_OPERATOR_ACTIVATION_TANH),
        Act(DML_OPERATOR_ACTIVATION_SCALED_TANH, 1.5f, 0.5f), Act(DML_OPERATOR_ACTIVATION_ELU, 0.75f),
        Act(DML_OPERATOR_ACTIVATION_CELU, 2.0f),        Act(DML_OPERATOR_ACTIVATION_SCALED_ELU, 1.5f, 0, 2.0f),
        // Steepness and Beta 1: the kernels scale x in float first (as the operators' formulas do),
        // which the float64 reference here would not.
        Act(DML_OPERATOR_ACTIVATION_SOFTPLUS, 1.0f),    Act(DML_OPERATOR_ACTIVATION_PARAMETRIC_SOFTPLUS, 0.5f, 1.0f),
        Act(DML_OPERATOR_ACTIVATION_GELU),
    };
    std::mt19937 rng(17);
    std::uniform_real_distribution<float> values(-12.0f, 12.0f);
    std::vector<size_t> lengths;
    for (size_t n = 0; n <= 40; ++n) lengths.push_back(n);
    lengths.push_back(4099);
    for (const FusedActivation& a : cases) {
        for (size_t n : lengths) {
            std::vector<float> storage(n + 2);
            for (float& v : storage) v = values(rng);
            const std::vector<float> original = storage;
            // In place, and from another array into this one (the standalone operators' form).
            std::vector<float> copy(storage);
            ApplyActivation(a, storage.data() + 1, n);
            ApplyActivation(a, original.data() + 1, copy.data() + 1, n);
            EXPECT_EQ(storage[0], original[0]);
            EXPECT_EQ(storage[n + 1], original[n + 1]);
            EXPECT_EQ(copy[n + 1], original[n + 1]);
            for (size_t i = 1; i <= n; ++i) {
                const double ref = RefActivation(a, double(original[i]));
                ASSERT_NEAR(storage[i], ref, std::max(2 * kEps32 * std::fabs(ref), AbsoluteTolerance(a)))
                    << ActivationName(a.type) << " at x = " << original[i] << ", row of " << n;
                ASSERT_EQ(copy[i], storage[i]) << ActivationName(a.type) << " out of place, row of " << n;
            }
        }
    }
}

TEST(Activation, EdgeValues) {
    const float inf = std::numeric_limits<float>::infinity();
    EXPECT_EQ(ApplyActivation(Act(DML_OPERATOR_ACTIVATION_SIGMOID), -inf), 0.0f);
    EXPECT_EQ(ApplyActivation(Act(DML_OPERATOR_ACTIVATION_SIGMOID), inf), 1.0f);
    EXPECT_EQ(ApplyActivation(Act(DML_OPERATOR_ACTIVATION_TANH), -inf), -1.0f);
    EXPECT_EQ(ApplyActivation(Act(DML_OPERATOR_ACTIVATION_RELU), -inf), 0.0f);
    EXPECT_EQ(ApplyActivation(Act(DML_OPERATOR_ACTIVATION_SOFTPLUS, 1.0f), 100.0f), 100.0f);  // no overflow
    EXPECT_EQ(ApplyActivation(Act(DML_OPERATOR_ACTIVATION_SOFTSIGN), 1e30f), 1.0f);
    EXPECT_TRUE(std::isnan(ApplyActivation(Act(DML_OPERATOR_ACTIVATION_SIGMOID), NAN)));
    EXPECT_TRUE(std::isnan(ApplyActivation(Act(DML_OPERATOR_ACTIVATION_TANH), NAN)));
    // Thresholds are strict: x == Alpha is not above the threshold.
    EXPECT_EQ(ApplyActivation(Act(DML_OPERATOR_ACTIVATION_THRESHOLDED_RELU, 1.0f), 1.0f), 0.0f);
    EXPECT_EQ(ApplyActivation(Act(DML_OPERATOR_ACTIVATION_SHRINK, 0.25f, 0.5f), 0.5f), 0.0f);
    EXPECT_EQ(ApplyActivation(Act(DML_OPERATOR_ACTIVATION_SHRINK, 0.25f, 0.5f), -0.5f), 0.0f);
    EXPECT_EQ(ApplyActivation(Act(DML_OPERATOR_ACTIVATION_HARD_SIGMOID, 0.2f, 0.5f), 100.0f), 1.0f);
    EXPECT_EQ(ApplyActivation(Act(DML_OPERATOR_ACTIVATION_HARD_SIGMOID, 0.2f, 0.5f), -100.0f), 0.0f);
    // GELU far into the negative tail: small and negative (its 5e-15 within 1e-7), -0 beyond -13, and
    // -inf * 0 = NaN at -inf, as the formula has it.
    const float tail = ApplyActivation(Act(DML_OPERATOR_ACTIVATION_GELU), -8.0f);
    EXPECT_NEAR(tail, RefActivation(Act(DML_OPERATOR_ACTIVATION_GELU), -8.0), 1e-7);
    EXPECT_LE(tail, 0.0f);
    EXPECT_EQ(ApplyActivation(Act(DML_OPERATOR_ACTIVATION_GELU), -14.0f), 0.0f);
    EXPECT_TRUE(std::signbit(ApplyActivation(Act(DML_OPERATOR_ACTIVATION_GELU), -14.0f)));
    EXPECT_TRUE(std::isnan(ApplyActivation(Act(DML_OPERATOR_ACTIVATION_GELU), -inf)));
    EXPECT_EQ(ApplyActivation(Act(DML_OPERATOR_ACTIVATION_GELU), inf), inf);
}

TEST(Activation, ParsesDescs) {
    DML_ACTIVATION_SCALED_ELU_OPERATOR_DESC elu{nullptr, nullptr, 1.6732632f, 1.0507009f};
    DML_OPERATOR_DESC desc{DML_OPERATOR_ACTIVATION_SCALED_ELU, &elu};
    FusedActivation a;
    ASSERT_TRUE(DecodeFusedActivation(&desc, &a).ok());
    EXPECT_EQ(a.type, DML_OPERATOR_ACTIVATION_SCALED_ELU);
    EXPECT_EQ(a.alpha, 1.6732632f);
    EXPECT_EQ(a.gamma, 1.0507009f);

    DML_ACTIVATION_SHRINK_OPERATOR_DESC shrink{nullptr, nullptr, 0.1f, 0.2f};
    desc = {DML_OPERATOR_ACTIVATION_SHRINK, &shrink};
    ASSERT_TRUE(DecodeFusedActivation(&desc, &a).ok());
    EXPECT_EQ(a.alpha, 0.1f);
    EXPECT_EQ(a.beta, 0.2f);

    DML_ACTIVATION_SOFTPLUS_OPERATOR_DESC softplus{nullptr, nullptr, 3.0f};
    desc = {DML_OPERATOR_ACTIVATION_SOFTPLUS, &softplus};
    ASSERT_TRUE(DecodeFusedActivation(&desc, &a).ok());
    EXPECT_EQ(a.alpha, 3.0f);

    ASSERT_TRUE(DecodeFusedActivation(nullptr, &a).ok());
    EXPECT_TRUE(a.IsNone());

    DML_ACTIVATION_SOFTMAX_OPERATOR_DESC softmax{nullptr, nullptr};
    desc = {DML_OPERATOR_ACTIVATION_SOFTMAX, &softmax};
    Status status = DecodeFusedActivation(&desc, &a);
    EXPECT_FALSE(status.ok());
    EXPECT_NE(status.message().find("cannot be a fused activation"), std::string::npos);
}

}  // namespace
}  // namespace freedml::dml::cpu::test
