// vector_math.h's functions, rounded to float as the kernels use them, against the C library's
// long double functions (an independent reference, about 1e-19 relative) over float arguments:
// random bit patterns (every binade, infinities, NaNs), dense ranges where each function bends,
// and the edges (overflow and underflow thresholds, zeros of either sign, subnormals). The double
// forms are built for 0.5 ulp plus about 1e-11, and the test allows them 1 ulp.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <iterator>
#include <random>
#include <utility>
#include <vector>

#include "dml/kernels/cpu/cpu_isa.h"
#include "dml/kernels/cpu/exp_avx512.h"
#include "dml/kernels/cpu/vector_math.h"

namespace freedml::dml::cpu::test {
namespace {

// Distance of `got` from the exact `want` in units of the float spacing at `want` (subnormal
// spacing below FLT_MIN); infinite results must match exactly, NaN must give NaN.
double UlpDistance(float got, long double want) {
    if (std::isnan(want)) return std::isnan(got) ? 0 : 1e30;
    if (std::isnan(got)) return 1e30;
    const float rounded = float(want);
    if (std::isinf(rounded) || std::isinf(got)) return got == rounded ? 0 : 1e30;
    int exponent = 0;
    std::frexp(double(want), &exponent);
    const long double ulp = std::ldexp(1.0L, std::max(exponent - 24, -149));
    return double(std::fabs((long double)got - want) / ulp);
}

std::vector<float> Arguments(float lo, float hi, std::initializer_list<float> edges) {
    std::vector<float> xs(edges);
    const float specials[] = {0.0f, -0.0f, std::numeric_limits<float>::infinity(),
                              -std::numeric_limits<float>::infinity(), std::numeric_limits<float>::quiet_NaN(),
                              std::numeric_limits<float>::denorm_min(), -1e-40f, 1e-30f, -1e-30f,
                              std::numeric_limits<float>::max(), -std::numeric_limits<float>::max()};
    xs.insert(xs.end(), std::begin(specials), std::end(specials));
    std::mt19937 rng(20261124);
    std::uniform_real_distribution<float> range(lo, hi);
    for (int i = 0; i < 200000; ++i) {
        const uint32_t bits = rng();
        float x;
        std::memcpy(&x, &bits, 4);
        xs.push_back(x);
        xs.push_back(range(rng));
    }
    return xs;
}

// `function` of each float argument (computed in double, or in float for the F forms) within
// `ulps` of the reference, or within `absolute` of it.
template <class F, class R>
void ExpectWithin(double ulps, double absolute, const char* name, F function, R reference,
                  const std::vector<float>& xs) {
    double worst = 0;
    float worstAt = 0;
    for (float x : xs) {
        const long double want = reference((long double)x);
        const float got = float(function(x));
        if (std::fabs((long double)got - want) <= absolute) continue;
        const double d = UlpDistance(got, want);
        if (d > worst) worst = d, worstAt = x;
    }
    EXPECT_LE(worst, ulps) << name << " is " << worst << " ulp off at x = " << worstAt;
}

template <class F, class R>
void ExpectWithinOneUlp(const char* name, F function, R reference, const std::vector<float>& xs) {
    ExpectWithin(1.0, 0.0, name, [&](float x) { return function(double(x)); }, reference, xs);
}

TEST(VectorMath, Exp) {
    ExpectWithinOneUlp("Exp", vmath::Exp, [](long double x) { return expl(x); },
                       Arguments(-110, 95, {88.72f, 88.73f, -87.3f, -103.9f, -104.0f, 11.09f, -16.6f, 1e-7f}));
}

// ExpForFloat: 2e-9 relative over [-88, 0] (a dense sweep of doubles, the float arguments, and the
// ends), 0 below -88 and at -infinity, exactly 1 at 0, NaN for NaN.
TEST(VectorMath, ExpForFloat) {
    double worst = 0, worstAt = 0;
    auto check = [&](double x) {
        const long double want = expl((long double)x);
        const double got = vmath::ExpForFloat(x);
        const double relative = double(std::fabs((long double)got - want) / want);
        if (!(relative <= worst)) worst = relative, worstAt = x;
    };
    for (int i = 0; i <= 2000000; ++i) check(-88.0 * i / 2000000);
    for (float x : Arguments(-88, 0, {-87.99999f, -0.34657359f, -0.34657362f, -1e-30f, -1e-45f})) {
        if (x <= 0.0f && x >= -88.0f) check(x);
    }
    EXPECT_LE(worst, 2.5e-9) << "ExpForFloat is " << worst << " relative off at x = " << worstAt;
    EXPECT_EQ(vmath::ExpForFloat(0.0), 1.0);
    EXPECT_EQ(vmath::ExpForFloat(-0.0), 1.0);
    EXPECT_EQ(vmath::ExpForFloat(-88.000001), 0.0);
    EXPECT_EQ(vmath::ExpForFloat(-1000.0), 0.0);
    EXPECT_EQ(vmath::ExpForFloat(-std::numeric_limits<double>::infinity()), 0.0);
    EXPECT_TRUE(std::isnan(vmath::ExpForFloat(std::numeric_limits<double>::quiet_NaN())));
}

// The float forms: within the ulps the design allows (1.3, 2.5 and 1.1 measured over the floats of
// the range), below the conformance tolerances of EXP (4), SIGMOID (3 ulp, or FLT_MIN where the
// result is subnormal) and TANH (2).
TEST(VectorMath, ExpF) {
    ExpectWithin(1.5, 0.0, "ExpF", vmath::ExpF, [](long double x) { return expl(x); },
                 Arguments(-110, 95, {88.72f, 88.73f, -87.3f, -103.9f, -103.97f, -104.0f, 11.09f, -16.6f, 1e-7f}));
}

TEST(VectorMath, SigmoidF) {
    ExpectWithin(2.5, std::numeric_limits<float>::min(), "SigmoidF", vmath::SigmoidF,
                 [](long double x) { return 1.0L / (1.0L + expl(-x)); },
                 Arguments(-110, 110, {-16.6357002f, -87.3f, -88.8f, -103.0f, 16.7f, 17.0f}));
}

// exp_avx512.h's rows, where the CPU has AVX-512 (they are picked nowhere else): EXP within 1 ulp
// (0.87 measured), SIGMOID within SigmoidF's 2.5 ulp or FLT_MIN (2.47 measured, at -16.6357); the
// scaled EXP against the argument rounded as DML_SCALE_BIAS rounds it; a short row (its masked
// tail) in place, equal bit for bit to the same values inside a long row.
#ifdef FREEDML_CPU_X86_64
template <class Row, class R>
void ExpectRowWithin(double ulps, double absolute, const char* name, Row row, R reference,
                     const std::vector<float>& xs) {
    std::vector<float> out(xs.size());
    row(xs.data(), out.data(), xs.size());
    size_t next = 0;  // ExpectWithin asks for the arguments in order
    ExpectWithin(
        ulps, absolute, name, [&](float) { return out[next++]; }, reference, xs);
}

const std::vector<float>& ExpArguments() {
    static const auto xs = Arguments(
        -110, 95, {88.72f, 88.73f, 89.0f, -87.3f, -103.9f, -103.97f, -104.0f, -104.1f, 11.09f, -16.6f, 1e-7f});
    return xs;
}

TEST(VectorMath, ExpRowAvx512) {
    if (!UseAvx512()) GTEST_SKIP() << "the CPU has no AVX-512 F, BW, DQ and VL (or FREEDML_CPU_NO_AVX512 is set)";
    auto exp = [](long double x) { return expl(x); };
    ExpectRowWithin(
        1.0, 0.0, "ExpRowAvx512", [](const float* in, float* out, size_t n) { ExpRowAvx512(in, out, n); }, exp,
        ExpArguments());
    ExpectRowWithin(
        1.0, 0.0, "ExpRowAvx512 (scale 0.5, bias 1)",
        [](const float* in, float* out, size_t n) { ExpRowAvx512(in, out, n, 0.5f, 1.0f); },
        [](long double x) {
            const float scaled = float(x) * 0.5f;  // as the row rounds it: the product, then the sum
            return expl((long double)(scaled + 1.0f));
        },
        ExpArguments());
    std::vector<float> row = {-std::numeric_limits<float>::infinity(),
                              std::numeric_limits<float>::infinity(),
                              std::numeric_limits<float>::quiet_NaN(),
                              -0.0f,
                              0.0f,
                              1.0f,
                              -104.0f,
                              88.73f};
    for (int i = 0; i < 29; ++i) row.push_back(float(i) * 0.37f - 5.0f);  // 37 values: two vectors and a tail of 5
    std::vector<float> longRow(row);
    longRow.resize(64, 0.0f);
    ExpRowAvx512(longRow.data(), longRow.data(), longRow.size());
    std::vector<float> shortRow(row);
    ExpRowAvx512(shortRow.data(), shortRow.data(), shortRow.size());
    EXPECT_EQ(shortRow[0], 0.0f);
    EXPECT_EQ(shortRow[1], std::numeric_limits<float>::infinity());
    EXPECT_TRUE(std::isnan(shortRow[2]));
    EXPECT_EQ(shortRow[3], 1.0f);
    EXPECT_EQ(shortRow[4], 1.0f);
    EXPECT_EQ(shortRow[6], 0.0f);
    EXPECT_EQ(shortRow[7], std::numeric_limits<float>::infinity());
    for (size_t i = 3; i < shortRow.size(); ++i) EXPECT_EQ(shortRow[i], longRow[i]) << "element " << i;
}

TEST(VectorMath, SigmoidRowAvx512) {
    if (!UseAvx512()) GTEST_SKIP() << "the CPU has no AVX-512 F, BW, DQ and VL (or FREEDML_CPU_NO_AVX512 is set)";
    ExpectRowWithin(
        2.5, std::numeric_limits<float>::min(), "SigmoidRowAvx512",
        [](const float* in, float* out, size_t n) { SigmoidRowAvx512(in, out, n); },
        [](long double x) { return 1.0L / (1.0L + expl(-x)); },
        Arguments(-110, 110, {-16.6357002f, -87.3f, -88.8f, -103.0f, 16.7f, 17.0f}));
    float ends[3] = {-std::numeric_limits<float>::infinity(), std::numeric_limits<float>::infinity(),
                     std::numeric_limits<float>::quiet_NaN()};
    SigmoidRowAvx512(ends, ends, 3);
    EXPECT_EQ(ends[0], 0.0f);
    EXPECT_EQ(ends[1], 1.0f);
    EXPECT_TRUE(std::isnan(ends[2]));
}
#endif

TEST(VectorMath, TanhF) {
    ExpectWithin(1.5, 0.0, "TanhF", vmath::TanhF, [](long double x) { return tanhl(x); },
                 Arguments(-10, 10, {0.99999994f, 1.0f, -1.0f, 0.976745784f, 1.0103085f, 9.0f, -9.0f, 44.5f, 1e-6f}));
}

TEST(VectorMath, Expm1) {
    ExpectWithinOneUlp("Expm1", vmath::Expm1, [](long double x) { return expm1l(x); },
                       Arguments(-2, 2, {0.03125f, -0.03125f, 0.0312499f, -0.0312501f, 1e-7f, -1e-7f, -20.0f}));
}

TEST(VectorMath, Log) {
    ExpectWithinOneUlp("Log", vmath::Log, [](long double x) { return logl(x); },
                       Arguments(0, 4, {1.0000001f, 0.99999994f, 0.70710677f, 0.70710683f, 1.4142135f, 2.0f,
                                        1e-38f, 1e-44f, 65504.0f, -1.0f}));
}

TEST(VectorMath, Log1p) {
    ExpectWithinOneUlp("Log1p", vmath::Log1p, [](long double x) { return log1pl(x); },
                       Arguments(-0.9f, 3, {1.0f / 8192, -1.0f / 8192, 1.2e-4f, -1.2e-4f, -1.0f, -0.99999994f}));
}

TEST(VectorMath, Tanh) {
    ExpectWithinOneUlp("Tanh", vmath::Tanh, [](long double x) { return tanhl(x); },
                       Arguments(-10, 10, {0.015625f, -0.015625f, 9.0f, -9.0f, 20.0f, -20.0f, 1e-6f}));
}

TEST(VectorMath, Sigmoid) {
    ExpectWithinOneUlp("Sigmoid", vmath::Sigmoid, [](long double x) { return 1.0L / (1.0L + expl(-x)); },
                       Arguments(-110, 110, {-87.3f, -88.8f, -103.0f, 16.7f, 17.0f}));
}

TEST(VectorMath, Softplus) {
    ExpectWithinOneUlp("Softplus", vmath::Softplus,
                       [](long double x) { return x > 0 ? x + log1pl(expl(-x)) : log1pl(expl(x)); },
                       Arguments(-110, 110, {-87.3f, -103.0f, 16.7f, 17.0f, 1e-4f}));
}

TEST(VectorMath, Erf) {
    ExpectWithinOneUlp("Erf", vmath::Erf, [](long double x) { return erfl(x); },
                       Arguments(-6, 6, {0.99999994f, 1.0f, -1.0f, 3.9f, -3.9f, 1e-6f, 1e-20f, 10.0f}));
}

TEST(VectorMath, Erfc) {
    // Beyond 10, erfc is below half the smallest float subnormal but for the few floats next to 10.
    ExpectWithin(1.5, 0.0, "Erfc", [](float x) { return vmath::Erfc(x); }, [](long double x) { return erfcl(x); },
                 Arguments(-6, 11, {0.99999994f, 1.0f, -1.0f, 3.9f, 9.9f, 10.0f, 10.1f, -10.0f, 1e-6f}));
}

TEST(VectorMath, ErfF) {
    // Built for 2.3 ulp; dense around the switch at |x| = 1 and where erf reaches 1 in float.
    ExpectWithin(2.5, 0.0, "ErfF", vmath::ErfF, [](long double x) { return erfl(x); },
                 Arguments(-5, 5, {0.99999994f, 1.0f, 1.0000001f, -1.0f, 3.9f, -3.9f, 4.0f, 1e-6f, 1e-20f, 10.0f}));
    ExpectWithin(2.5, 0.0, "ErfF", vmath::ErfF, [](long double x) { return erfl(x); }, Arguments(0.9f, 1.1f, {}));
}

// A GELU of one float: GeluF in either form, products and sums (the baseline rows) or fused
// multiply-adds (the rows for CPUs that have them), or the AVX-512 row. `fused`: the bounds of the
// forms that round less.
template <class Gelu>
void ExpectGeluAccurate(const char* name, Gelu geluOf, bool fused) {
    // 0.5 x erfc(-x / sqrt 2) within 2 ulp or the conformance cases' 1e-7 absolute: built for 1.8
    // ulp, including the switches at |x| = sqrt 2 and 13 and the far negative tail.
    auto gelu = [](long double x) {
        if (std::isinf(x) && x < 0) return (long double)NAN;  // -inf * erfc(inf) = -inf * 0
        return 0.5L * x * erfcl(-x / sqrtl(2.0L));
    };
    ExpectWithin(2.0, 1e-7, name, geluOf, gelu,
                 Arguments(-16, 16,
                           {-0.70710677f, -0.7071068f, 1.4142135f, 1.4142137f, -1.4142135f, -1.4142137f, -5.0f, -5.6f,
                            -13.0f, -13.000001f, 13.0f, 13.000001f, -15.0f, -16.0f, 15.0f, 1e-30f, -1e-30f}));
    ExpectWithin(2.0, 1e-7, name, geluOf, gelu, Arguments(-6, 0, {}));
    // A sweep over the bit patterns of [-16, 16] (every 251st float of either sign): within 2 ulp
    // where the result is at least 1/2 in magnitude, and within 9e-8 absolute below (where the
    // form for |x| < sqrt 2 cancels for x < 0 and the tail's error is absolute). The fused form
    // rounds less: 1.5 ulp and 7e-8 (measured over every 61st float: 1.37 and 6.4e-8).
    double worstUlps = 0, worstAbsolute = 0;
    float ulpsAt = 0, absoluteAt = 0;
    for (uint32_t sign : {0u, 0x80000000u}) {
        for (uint32_t bits = 0; bits <= 0x41800000u; bits += 251) {
            float x;
            const uint32_t pattern = bits | sign;
            std::memcpy(&x, &pattern, 4);
            const long double want = gelu(x);
            const float got = geluOf(x);
            if (std::fabs(want) < 0.5L) {
                const double error = double(std::fabs((long double)got - want));
                if (!(error <= worstAbsolute)) worstAbsolute = error, absoluteAt = x;
            } else {
                const double d = UlpDistance(got, want);
                if (d > worstUlps) worstUlps = d, ulpsAt = x;
            }
        }
    }
    EXPECT_LE(worstUlps, fused ? 1.5 : 2.0) << name << " is " << worstUlps << " ulp off at x = " << ulpsAt;
    EXPECT_LE(worstAbsolute, fused ? 7e-8 : 9e-8) << name << " is " << worstAbsolute << " off at x = " << absoluteAt;
    // The limits: x beyond 13 gives x, -0 below -13; the infinities as the formula has them; zeros
    // keep their sign; subnormals give x / 2 within the absolute bound.
    const float inf = std::numeric_limits<float>::infinity();
    EXPECT_EQ(geluOf(inf), inf);
    EXPECT_TRUE(std::isnan(geluOf(-inf)));
    EXPECT_TRUE(std::isnan(geluOf(std::numeric_limits<float>::quiet_NaN())));
    EXPECT_EQ(geluOf(std::numeric_limits<float>::max()), std::numeric_limits<float>::max());
    EXPECT_EQ(geluOf(20.0f), 20.0f);
    EXPECT_EQ(geluOf(-20.0f), 0.0f);
    EXPECT_TRUE(std::signbit(geluOf(-20.0f)));
    EXPECT_EQ(geluOf(-std::numeric_limits<float>::max()), 0.0f);
    EXPECT_EQ(geluOf(0.0f), 0.0f);
    EXPECT_FALSE(std::signbit(geluOf(0.0f)));
    EXPECT_TRUE(std::signbit(geluOf(-0.0f)));
    const float tiny = std::numeric_limits<float>::denorm_min() * 1000;
    EXPECT_NEAR(geluOf(tiny), tiny / 2, 1e-45);
    EXPECT_NEAR(geluOf(-tiny), -tiny / 2, 1e-45);
}

TEST(VectorMath, GeluF) { ExpectGeluAccurate("GeluF", vmath::GeluF<false>, false); }

TEST(VectorMath, GeluFWithFusedMultiplyAdds) { ExpectGeluAccurate("GeluF<fma>", vmath::GeluF<true>, true); }

TEST(VectorMath, GeluRowAvx512) {
    if (!UseAvx512()) GTEST_SKIP() << "this CPU has no AVX-512 (or FREEDML_CPU_NO_AVX512 is set)";
    // One float at a time (the masked tail of the row), then whole rows with a tail of each length,
    // which must give the same values lane for lane.
    ExpectGeluAccurate(
        "GeluRowAvx512",
        [](float x) {
            float y;
            GeluRowAvx512(&x, &y, 1);
            return y;
        },
        true);
    std::vector<float> in(16 * 5 + 15), out(in.size(), -1.0f);
    std::mt19937 rng(7);
    std::normal_distribution<float> values(0.0f, 4.0f);
    for (float& x : in) x = values(rng);
    for (size_t n = 0; n <= in.size(); n += 7) {
        std::fill(out.begin(), out.end(), -1.0f);
        GeluRowAvx512(in.data(), out.data(), n);
        for (size_t i = 0; i < in.size(); ++i) {
            float one;
            GeluRowAvx512(&in[i], &one, 1);
            ASSERT_EQ(out[i], i < n ? one : -1.0f) << "row of " << n << ", element " << i;
        }
    }
}

// RowStores::kPastCaches writes the values of the cached form bit for bit, at every alignment of
// the output (the ordinary head up to a 64-byte boundary, the non-temporal middle, the masked tail),
// in place too, and nothing outside the row.
#ifdef FREEDML_CPU_X86_64
TEST(VectorMath, RowsPastCachesMatchTheCachedRows) {
    if (!UseAvx512()) GTEST_SKIP() << "this CPU has no AVX-512 (or FREEDML_CPU_NO_AVX512 is set)";
    using RowFn = void (*)(const float*, float*, size_t, RowStores);
    const std::pair<const char*, RowFn> rows[] = {
        {"EXP", [](const float* in, float* out, size_t n, RowStores st) { ExpRowAvx512(in, out, n, st); }},
        {"EXP scaled",
         [](const float* in, float* out, size_t n, RowStores st) { ExpRowAvx512(in, out, n, 0.5f, 1.0f, st); }},
        {"SIGMOID", SigmoidRowAvx512},
        {"GELU", GeluRowAvx512},
    };
    std::vector<float> in(16 * 9 + 40);
    std::mt19937 rng(11);
    std::normal_distribution<float> values(0.0f, 5.0f);
    for (float& x : in) x = values(rng);
    alignas(64) float cached[16 * 9 + 40];
    alignas(64) float past[16 * 9 + 40];
    for (const auto& [name, row] : rows) {
        for (size_t n : {size_t(0), size_t(1), size_t(15), size_t(16), size_t(17), size_t(47), size_t(16 * 8 + 5)}) {
            for (size_t offset = 0; offset < 16; offset += 3) {  // out + offset: each head length
                std::fill(std::begin(cached), std::end(cached), -7.0f);
                std::fill(std::begin(past), std::end(past), -7.0f);
                row(in.data(), cached + offset, n, RowStores::kCached);
                row(in.data(), past + offset, n, RowStores::kPastCaches);
                for (size_t i = 0; i < std::size(past); ++i) {
                    ASSERT_EQ(std::memcmp(&past[i], &cached[i], sizeof(float)), 0)
                        << name << ", row of " << n << " at offset " << offset << ", element " << i << ": " << past[i]
                        << " against " << cached[i];
                }
                if (n > 0) {
                    ASSERT_NE(past[offset + n - 1], -7.0f) << name << ": the last element was not written";
                }
                // In place: the same values over the input's own memory.
                std::copy(in.begin(), in.begin() + n, past + offset);
                row(past + offset, past + offset, n, RowStores::kPastCaches);
                for (size_t i = 0; i < n; ++i) {
                    ASSERT_EQ(std::memcmp(&past[offset + i], &cached[offset + i], sizeof(float)), 0)
                        << name << ", in place, row of " << n << " at offset " << offset << ", element " << i;
                }
            }
        }
    }
}
#endif

// The forms for FLOAT16 results: within 2^-13 relative (half of FLOAT16's smallest half-spacing)
// or 2^-26 absolute (a quarter of its subnormal spacing), so that the result rounded to FLOAT16
// stays within 1 ulp; results beyond FLOAT16's largest must round to its infinity too.
template <class F, class R>
void ExpectHalfAccurate(const char* name, F function, R reference, const std::vector<float>& xs) {
    double worst = 0;
    float worstAt = 0;
    for (float x : xs) {
        const long double want = reference((long double)x);
        const float got = function(x);
        if (std::isnan(want)) {
            EXPECT_TRUE(std::isnan(got)) << name << " at x = " << x;
            continue;
        }
        if (std::fabs(want) >= 65520.0L) {
            EXPECT_TRUE(std::fabs(got) >= 65520.0f && std::signbit(got) == std::signbit(double(want)))
                << name << " at x = " << x << " gives " << got << ", not FLOAT16's infinity";
            continue;
        }
        const double error = double(std::fabs((long double)got - want));
        const double allowed = std::ldexp(double(std::fabs(want)), -13) + std::ldexp(1.0, -26);
        if (error / allowed > worst) worst = error / allowed, worstAt = x;
    }
    EXPECT_LE(worst, 1.0) << name << " is " << worst << " times its allowance off at x = " << worstAt;
}

TEST(VectorMath, FormsForFloat16Results) {
    const auto halfRange = Arguments(-20, 20, {-18.0f, 18.0f, -18.5f, 18.5f, 11.09f, 11.1f, -17.3f, 0.625f, -0.625f, 1.0f, -1.0f, 3.0f,
                                               -6.3f, 6.3f, -4.5f, 0.0f});
    ExpectHalfAccurate("ExpH", vmath::ExpH, [](long double x) { return expl(x); }, halfRange);
    ExpectHalfAccurate("SigmoidH", vmath::SigmoidH, [](long double x) { return 1.0L / (1.0L + expl(-x)); }, halfRange);
    ExpectHalfAccurate("TanhH", vmath::TanhH, [](long double x) { return tanhl(x); }, halfRange);
    ExpectHalfAccurate("ErfH", vmath::ErfH, [](long double x) { return erfl(x); }, halfRange);
    const auto gelu = [](long double x) {
        if (std::isinf(x) && x < 0) return (long double)NAN;  // -inf * erfc(inf) = -inf * 0
        return 0.5L * x * erfcl(-x / sqrtl(2.0L));
    };
    ExpectHalfAccurate("GeluH", vmath::GeluH<false>, gelu, halfRange);
    ExpectHalfAccurate("GeluH<fma>", vmath::GeluH<true>, gelu, halfRange);
}

// The same over every FLOAT16 value (the arguments the FLOAT16 rows mostly see), infinities and NaNs
// included: the values decoded here from their bits.
TEST(VectorMath, FormsForFloat16ResultsOverEveryHalf) {
    std::vector<float> halves;
    for (uint32_t bits = 0; bits < 0x10000; ++bits) {
        const uint32_t exponent = (bits >> 10) & 0x1F, mantissa = bits & 0x3FF;
        float magnitude = exponent == 0    ? std::ldexp(float(mantissa), -24)
                          : exponent == 31 ? (mantissa ? std::numeric_limits<float>::quiet_NaN()
                                                       : std::numeric_limits<float>::infinity())
                                           : std::ldexp(float(mantissa | 0x400), int(exponent) - 25);
        halves.push_back(bits & 0x8000 ? -magnitude : magnitude);
    }
    ExpectHalfAccurate("ExpH", vmath::ExpH, [](long double x) { return expl(x); }, halves);
    ExpectHalfAccurate("SigmoidH", vmath::SigmoidH, [](long double x) { return 1.0L / (1.0L + expl(-x)); }, halves);
    ExpectHalfAccurate("TanhH", vmath::TanhH, [](long double x) { return tanhl(x); }, halves);
    ExpectHalfAccurate("ErfH", vmath::ErfH, [](long double x) { return erfl(x); }, halves);
    const auto gelu = [](long double x) {
        if (std::isinf(x) && x < 0) return (long double)NAN;  // -inf * erfc(inf) = -inf * 0
        return 0.5L * x * erfcl(-x / sqrtl(2.0L));
    };
    ExpectHalfAccurate("GeluH", vmath::GeluH<false>, gelu, halves);
    ExpectHalfAccurate("GeluH<fma>", vmath::GeluH<true>, gelu, halves);
}

// The limits the activations rely on: exact zeros and ones at the infinities (SWISH's
// -inf * sigmoid(-inf) must stay NaN, not become -inf).
TEST(VectorMath, InfinitiesGiveExactLimits) {
    const double inf = std::numeric_limits<double>::infinity();
    const float infF = std::numeric_limits<float>::infinity();
    EXPECT_EQ(vmath::ExpF(-infF), 0.0f);
    EXPECT_EQ(vmath::ExpF(infF), infF);
    EXPECT_EQ(vmath::SigmoidF(-infF), 0.0f);
    EXPECT_EQ(vmath::SigmoidF(infF), 1.0f);
    EXPECT_EQ(vmath::TanhF(infF), 1.0f);
    EXPECT_EQ(vmath::TanhF(-infF), -1.0f);
    EXPECT_TRUE(std::isnan(vmath::TanhF(std::numeric_limits<float>::quiet_NaN())));
    EXPECT_EQ(vmath::Exp(-inf), 0.0);
    EXPECT_EQ(vmath::Exp(inf), inf);
    EXPECT_EQ(vmath::Expm1(-inf), -1.0);
    EXPECT_EQ(vmath::Sigmoid(-inf), 0.0);
    EXPECT_EQ(vmath::Sigmoid(inf), 1.0);
    EXPECT_EQ(vmath::Tanh(inf), 1.0);
    EXPECT_EQ(vmath::Tanh(-inf), -1.0);
    EXPECT_EQ(vmath::Softplus(inf), inf);
    EXPECT_EQ(vmath::Softplus(-inf), 0.0);
    EXPECT_EQ(vmath::Erf(inf), 1.0);
    EXPECT_EQ(vmath::Erf(-inf), -1.0);
    EXPECT_EQ(vmath::Erfc(inf), 0.0);
    EXPECT_EQ(vmath::Erfc(-inf), 2.0);
    EXPECT_EQ(vmath::Log(0.0), -inf);
    EXPECT_EQ(vmath::Log(inf), inf);
    EXPECT_TRUE(std::isnan(vmath::Log(-1.0)));
    EXPECT_TRUE(std::isnan(-inf * vmath::Sigmoid(-inf)));
}

}  // namespace
}  // namespace freedml::dml::cpu::test
