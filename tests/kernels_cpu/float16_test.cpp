// FLOAT16 conversions against the arithmetic conversions of test_util.h (independent of the
// kernels' bit manipulation and F16C): every half
// to float, and float to half (round to nearest even) at every half, at every midpoint between
// neighbours and next to it, and at random floats, on the scalar and the bulk (F16C) paths.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "dml/kernels/cpu/float16.h"
#include "test_util.h"

namespace freedml::dml::cpu::test {
namespace {

uint32_t FloatBits(float f) {
    uint32_t b;
    std::memcpy(&b, &f, 4);
    return b;
}

bool SameHalf(uint16_t a, uint16_t b) {
    bool aNan = (a & 0x7C00) == 0x7C00 && (a & 0x3FF), bNan = (b & 0x7C00) == 0x7C00 && (b & 0x3FF);
    return aNan ? bNan : a == b;
}

TEST(Float16, EveryHalfToFloat) {
    std::vector<uint16_t> all(65536);
    for (uint32_t i = 0; i < 65536; ++i) all[i] = uint16_t(i);
    std::vector<float> bulk(65536);
    ConvertHalfToFloat(all.data(), bulk.data(), all.size());
    for (uint32_t i = 0; i < 65536; ++i) {
        float expected = float(HalfBitsToDouble(uint16_t(i)));
        float scalar = HalfToFloat(uint16_t(i));
        if (std::isnan(expected)) {
            EXPECT_TRUE(std::isnan(scalar) && std::isnan(bulk[i])) << i;
        } else {
            ASSERT_EQ(FloatBits(scalar), FloatBits(expected)) << i;
            ASSERT_EQ(FloatBits(bulk[i]), FloatBits(expected)) << i;
        }
    }
}

TEST(Float16, FloatToHalfRoundsToNearestEven) {
    std::vector<float> values;
    for (uint32_t i = 0; i < 0x7BFF; ++i) {
        for (float sign : {1.0f, -1.0f}) {
            float v = sign * float(HalfBitsToDouble(uint16_t(i)));
            float next = sign * float(HalfBitsToDouble(uint16_t(i + 1)));
            float mid = v + (next - v) * 0.5f;  // exact: ties to even
            values.push_back(v);
            values.push_back(mid);
            values.push_back(std::nextafter(mid, 0.0f));
            values.push_back(std::nextafter(mid, next * 2));
        }
    }
    std::mt19937 rng(1);
    std::uniform_int_distribution<uint32_t> bits;
    for (int i = 0; i < 200000; ++i) {
        uint32_t b = bits(rng);
        float f;
        std::memcpy(&f, &b, 4);
        values.push_back(f);
    }
    values.insert(values.end(), {65504.0f, 65519.99f, 65520.0f, 1e10f, -1e10f, 1e-10f, 5.96e-8f, 2.98e-8f,
                                 2.9802322e-8f, std::numeric_limits<float>::infinity(),
                                 -std::numeric_limits<float>::infinity(), NAN});
    std::vector<uint16_t> bulk(values.size());
    ConvertFloatToHalf(values.data(), bulk.data(), values.size());
    for (size_t i = 0; i < values.size(); ++i) {
        uint16_t expected = DoubleToHalfBits(double(values[i]));
        ASSERT_TRUE(SameHalf(FloatToHalf(values[i]), expected)) << values[i];
        ASSERT_TRUE(SameHalf(bulk[i], expected)) << values[i];
    }
}

}  // namespace
}  // namespace freedml::dml::cpu::test
