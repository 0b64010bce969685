// include/freedml/helpers.h against the seed formulas (S1-S4), on cases worked by hand.
// helpers.h comes first and alone: it must pull in DirectML.h itself.
#include <freedml/helpers.h>

#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <vector>

namespace {

constexpr DML_TENSOR_DATA_TYPE kOneByte[] = {DML_TENSOR_DATA_TYPE_UINT8, DML_TENSOR_DATA_TYPE_INT8};
constexpr DML_TENSOR_DATA_TYPE kTwoBytes[] = {DML_TENSOR_DATA_TYPE_FLOAT16, DML_TENSOR_DATA_TYPE_UINT16,
                                              DML_TENSOR_DATA_TYPE_INT16};
constexpr DML_TENSOR_DATA_TYPE kFourBytes[] = {DML_TENSOR_DATA_TYPE_FLOAT32, DML_TENSOR_DATA_TYPE_UINT32,
                                               DML_TENSOR_DATA_TYPE_INT32};
constexpr DML_TENSOR_DATA_TYPE kEightBytes[] = {DML_TENSOR_DATA_TYPE_FLOAT64, DML_TENSOR_DATA_TYPE_UINT64,
                                                DML_TENSOR_DATA_TYPE_INT64};

// 15: inside the data type enum's 4-bit range (so a cast to it is defined) but no data type.
const auto kNotAType = static_cast<DML_TENSOR_DATA_TYPE>(15);

// The seed's strided path as the English page writes it: the index of the last element
// accumulates in a 32-bit UINT and wraps; only the final "+ 1" is 64-bit.
UINT64 SeedStridedSize(UINT elementSize, UINT count, const UINT* sizes, const UINT* strides) {
    UINT indexOfLastElement = 0;
    for (UINT i = 0; i < count; ++i) indexOfLastElement += (sizes[i] - 1) * strides[i];
    return ((static_cast<UINT64>(indexOfLastElement) + 1) * elementSize + 3) & ~UINT64(3);
}

// The seed's CalculateStrides, transcribed formula by formula (n', c', h', w' are the sizes, or 1
// when broadcast), in 64 bits so that it serves as an independent reference.
std::array<uint64_t, 4> SeedStrides(freedml::TensorLayout layout, std::array<uint32_t, 4> s, std::array<bool, 4> b) {
    const uint64_t c = b[1] ? 1 : s[1], h = b[2] ? 1 : s[2], w = b[3] ? 1 : s[3];
    auto unless = [](bool broadcast, uint64_t stride) -> uint64_t { return broadcast ? 0 : stride; };
    if (layout == freedml::TensorLayout::NCHW) {
        return {unless(b[0], c * h * w), unless(b[1], h * w), unless(b[2], w), unless(b[3], 1)};
    }
    return {unless(b[0], h * w * c), unless(b[1], 1), unless(b[2], w * c), unless(b[3], c)};
}

// ------------------------------------------------------------------------------------------------
// S1: element sizes

TEST(HelpersS1, ElementSizeOfEveryDataType) {
    for (auto type : kOneByte) EXPECT_EQ(freedml::TensorElementSizeInBytes(type), 1u) << type;
    for (auto type : kTwoBytes) EXPECT_EQ(freedml::TensorElementSizeInBytes(type), 2u) << type;
    for (auto type : kFourBytes) EXPECT_EQ(freedml::TensorElementSizeInBytes(type), 4u) << type;
    for (auto type : kEightBytes) EXPECT_EQ(freedml::TensorElementSizeInBytes(type), 8u) << type;
    EXPECT_EQ(freedml::TensorElementSizeInBytes(DML_TENSOR_DATA_TYPE_UNKNOWN), 0u);
    EXPECT_EQ(freedml::TensorElementSizeInBytes(DML_TENSOR_DATA_TYPE_UINT4), 0u);
    EXPECT_EQ(freedml::TensorElementSizeInBytes(DML_TENSOR_DATA_TYPE_INT4), 0u);
    EXPECT_EQ(freedml::TensorElementSizeInBytes(kNotAType), 0u);
}

TEST(HelpersS1, UnknownTypeGivesZero) {
    const UINT sizes[] = {2, 3};
    const UINT strides[] = {3, 1};
    EXPECT_EQ(DMLCalcBufferTensorSize(DML_TENSOR_DATA_TYPE_UNKNOWN, 2, sizes, nullptr), 0u);
    EXPECT_EQ(DMLCalcBufferTensorSize(DML_TENSOR_DATA_TYPE_UNKNOWN, 2, sizes, strides), 0u);
    EXPECT_EQ(DMLCalcBufferTensorSize(kNotAType, 2, sizes, nullptr), 0u);
}

// The 4-bit types pack two elements a byte: the span in elements, halved and rounded up to a
// whole byte, then to a multiple of 4.
TEST(HelpersS2, FourBitTypesCountHalfBytes) {
    const UINT sizes[] = {2, 3};
    EXPECT_EQ(DMLCalcBufferTensorSize(DML_TENSOR_DATA_TYPE_INT4, 2, sizes, nullptr), 4u);  // 6 nibbles: 3 bytes
    const UINT nine[] = {9};
    EXPECT_EQ(DMLCalcBufferTensorSize(DML_TENSOR_DATA_TYPE_UINT4, 1, nine, nullptr), 8u);  // 9 nibbles: 5 bytes
    const UINT sixteen[] = {2, 8};
    EXPECT_EQ(DMLCalcBufferTensorSize(DML_TENSOR_DATA_TYPE_UINT4, 2, sixteen, nullptr), 8u);  // 16 nibbles: 8 bytes
    // Strides {20, 1}: the last element is index 27, so 28 nibbles, 14 bytes, 16 rounded.
    const UINT strides[] = {20, 1};
    EXPECT_EQ(DMLCalcBufferTensorSize(DML_TENSOR_DATA_TYPE_INT4, 2, sixteen, strides), 16u);
    // Broadcast: one element, one byte, 4 rounded.
    const UINT zero[] = {0, 0};
    EXPECT_EQ(DMLCalcBufferTensorSize(DML_TENSOR_DATA_TYPE_INT4, 2, sixteen, zero), 4u);
    EXPECT_TRUE(freedml::IsPacked4Bit(DML_TENSOR_DATA_TYPE_INT4));
    EXPECT_TRUE(freedml::IsPacked4Bit(DML_TENSOR_DATA_TYPE_UINT4));
    EXPECT_FALSE(freedml::IsPacked4Bit(DML_TENSOR_DATA_TYPE_UINT8));
}

// ------------------------------------------------------------------------------------------------
// S2: the two formulas and the rounding

TEST(HelpersS2, HelloDirectMLTensor) {
    // FLOAT32 {1, 2, 3, 4}: 24 elements * 4 bytes = 96.
    const UINT sizes[] = {1, 2, 3, 4};
    EXPECT_EQ(DMLCalcBufferTensorSize(DML_TENSOR_DATA_TYPE_FLOAT32, 4, sizes, nullptr), 96u);
}

TEST(HelpersS2, PackedEveryDataType) {
    // {3, 5}: 15 elements. 1 byte: 15 -> 16. 2 bytes: 30 -> 32. 4 bytes: 60. 8 bytes: 120.
    const UINT sizes[] = {3, 5};
    for (auto type : kOneByte) EXPECT_EQ(DMLCalcBufferTensorSize(type, 2, sizes, nullptr), 16u) << type;
    for (auto type : kTwoBytes) EXPECT_EQ(DMLCalcBufferTensorSize(type, 2, sizes, nullptr), 32u) << type;
    for (auto type : kFourBytes) EXPECT_EQ(DMLCalcBufferTensorSize(type, 2, sizes, nullptr), 60u) << type;
    for (auto type : kEightBytes) EXPECT_EQ(DMLCalcBufferTensorSize(type, 2, sizes, nullptr), 120u) << type;
}

TEST(HelpersS2, StridedEveryDataType) {
    // {3, 5} strides {10, 2}: last index (3-1)*10 + (5-1)*2 = 28, so 29 elements.
    // 1 byte: 29 -> 32. 2 bytes: 58 -> 60. 4 bytes: 116. 8 bytes: 232.
    const UINT sizes[] = {3, 5};
    const UINT strides[] = {10, 2};
    for (auto type : kOneByte) EXPECT_EQ(DMLCalcBufferTensorSize(type, 2, sizes, strides), 32u) << type;
    for (auto type : kTwoBytes) EXPECT_EQ(DMLCalcBufferTensorSize(type, 2, sizes, strides), 60u) << type;
    for (auto type : kFourBytes) EXPECT_EQ(DMLCalcBufferTensorSize(type, 2, sizes, strides), 116u) << type;
    for (auto type : kEightBytes) EXPECT_EQ(DMLCalcBufferTensorSize(type, 2, sizes, strides), 232u) << type;
}

TEST(HelpersS2, PackedStridesGiveThePackedSize) {
    // FLOAT32 {2, 3, 4} strides {12, 4, 1}: last index 12 + 8 + 3 = 23, 24 elements, 96 bytes.
    const UINT sizes[] = {2, 3, 4};
    const UINT strides[] = {12, 4, 1};
    EXPECT_EQ(DMLCalcBufferTensorSize(DML_TENSOR_DATA_TYPE_FLOAT32, 3, sizes, strides), 96u);
    EXPECT_EQ(DMLCalcBufferTensorSize(DML_TENSOR_DATA_TYPE_FLOAT32, 3, sizes, nullptr), 96u);
}

TEST(HelpersS2, TransposedAndPaddedStrides) {
    // FLOAT16 {2, 3} strides {1, 2}: last index 1 + 4 = 5, 6 elements, 12 bytes.
    const UINT sizes[] = {2, 3};
    const UINT transposed[] = {1, 2};
    EXPECT_EQ(DMLCalcBufferTensorSize(DML_TENSOR_DATA_TYPE_FLOAT16, 2, sizes, transposed), 12u);
    // FLOAT32 {2, 3} strides {3, 1}: last index 3 + 2 = 5, 6 elements, 24 bytes (the T2 example).
    const UINT rows[] = {3, 1};
    EXPECT_EQ(DMLCalcBufferTensorSize(DML_TENSOR_DATA_TYPE_FLOAT32, 2, sizes, rows), 24u);
    // UINT8 {2, 3} strides {16, 1} (rows padded to 16): last index 16 + 2 = 18, 19 bytes -> 20.
    const UINT padded[] = {16, 1};
    EXPECT_EQ(DMLCalcBufferTensorSize(DML_TENSOR_DATA_TYPE_UINT8, 2, sizes, padded), 20u);
}

TEST(HelpersS2, BroadcastStrides) {
    // FLOAT32 {3, 4} strides {0, 0}: every element is element 0: 1 element, 4 bytes.
    const UINT sizes[] = {3, 4};
    const UINT zero[] = {0, 0};
    EXPECT_EQ(DMLCalcBufferTensorSize(DML_TENSOR_DATA_TYPE_FLOAT32, 2, sizes, zero), 4u);
    // UINT8 {3, 4} strides {0, 1}: last index 3, 4 bytes.
    const UINT rowBroadcast[] = {0, 1};
    EXPECT_EQ(DMLCalcBufferTensorSize(DML_TENSOR_DATA_TYPE_UINT8, 2, sizes, rowBroadcast), 4u);
    // FLOAT64 {3, 4} strides {1, 0}: last index 2, 3 elements, 24 bytes.
    const UINT columnBroadcast[] = {1, 0};
    EXPECT_EQ(DMLCalcBufferTensorSize(DML_TENSOR_DATA_TYPE_FLOAT64, 2, sizes, columnBroadcast), 24u);
}

TEST(HelpersS2, RoundsUpToFour) {
    // UINT8 {n}: n bytes rounded up: 1 -> 4, 2 -> 4, 3 -> 4, 4 -> 4, 5 -> 8, 7 -> 8, 8 -> 8, 9 -> 12.
    const std::pair<UINT, UINT64> cases[] = {{1, 4}, {2, 4}, {3, 4}, {4, 4}, {5, 8}, {7, 8}, {8, 8}, {9, 12}};
    for (const auto& [n, bytes] : cases) {
        EXPECT_EQ(DMLCalcBufferTensorSize(DML_TENSOR_DATA_TYPE_UINT8, 1, &n, nullptr), bytes) << n;
    }
    // FLOAT16 {3}: 6 bytes -> 8. INT16 {1, 1, 1}: 2 -> 4.
    const UINT three = 3;
    EXPECT_EQ(DMLCalcBufferTensorSize(DML_TENSOR_DATA_TYPE_FLOAT16, 1, &three, nullptr), 8u);
    const UINT ones[] = {1, 1, 1};
    EXPECT_EQ(DMLCalcBufferTensorSize(DML_TENSOR_DATA_TYPE_INT16, 3, ones, nullptr), 4u);
    // INT8 {5} stride {2}: last index 8, 9 bytes -> 12.
    const UINT five = 5, two = 2;
    EXPECT_EQ(DMLCalcBufferTensorSize(DML_TENSOR_DATA_TYPE_INT8, 1, &five, &two), 12u);
}

TEST(HelpersS2, EightDimensions) {
    // UINT16 {2, 2, 2, 2, 2, 2, 2, 3}: 384 elements, 768 bytes. With strides {1, 2, 4, ..., 128}
    // (reversed order): last index 1+2+...+64 + 2*128 = 127 + 256 = 383, 384 elements, 768 bytes.
    const UINT sizes[] = {2, 2, 2, 2, 2, 2, 2, 3};
    const UINT strides[] = {1, 2, 4, 8, 16, 32, 64, 128};
    EXPECT_EQ(DMLCalcBufferTensorSize(DML_TENSOR_DATA_TYPE_UINT16, 8, sizes, nullptr), 768u);
    EXPECT_EQ(DMLCalcBufferTensorSize(DML_TENSOR_DATA_TYPE_UINT16, 8, sizes, strides), 768u);
}

// ------------------------------------------------------------------------------------------------
// S3: 64-bit arithmetic end to end

TEST(HelpersS3, FourGibibytesOfBytes) {
    // UINT8 {65536, 65536} strides {65536, 1}: last index 65535*65536 + 65535 = 2^32 - 1, so
    // 2^32 = 4294967296 bytes. The English seed's index just fits in 32 bits here and agrees;
    // the Chinese seed's 32-bit "+ 1" would wrap to 0.
    const UINT sizes[] = {65536, 65536};
    const UINT strides[] = {65536, 1};
    EXPECT_EQ(DMLCalcBufferTensorSize(DML_TENSOR_DATA_TYPE_UINT8, 2, sizes, strides), 4294967296u);
    EXPECT_EQ(DMLCalcBufferTensorSize(DML_TENSOR_DATA_TYPE_UINT8, 2, sizes, nullptr), 4294967296u);
    EXPECT_EQ(SeedStridedSize(1, 2, sizes, strides), 4294967296u);
    EXPECT_EQ(static_cast<UINT>(UINT(65535u * 65536u + 65535u) + 1u), 0u);  // the Chinese seed
}

TEST(HelpersS3, LastIndexBeyond32Bits) {
    // UINT8 {65536, 65537} strides {65537, 1}: last index 65535*65537 + 65536 = 4294967295 + 65536
    // = 4295032831, one past it 4295032832 (a multiple of 4). The seed's 32-bit index wraps to
    // 4295032831 - 2^32 = 65535 and it answers 65536 bytes: 65537 times too small.
    const UINT sizes[] = {65536, 65537};
    const UINT strides[] = {65537, 1};
    EXPECT_EQ(DMLCalcBufferTensorSize(DML_TENSOR_DATA_TYPE_UINT8, 2, sizes, strides), 4295032832u);
    EXPECT_EQ(SeedStridedSize(1, 2, sizes, strides), 65536u);
    // The same layout of FLOAT64: 4295032832 * 8 = 34360262656.
    EXPECT_EQ(DMLCalcBufferTensorSize(DML_TENSOR_DATA_TYPE_FLOAT64, 2, sizes, strides), 34360262656u);
}

TEST(HelpersS3, LargestSizesThatFit) {
    // UINT8 {2^32-1, 2^32-1} strides {2^32-1, 1}: last index (2^32-2)(2^32-1) + (2^32-2)
    // = (2^32-2) * 2^32 = 2^64 - 2^33; one past it 2^64 - 2^33 + 1, rounded up 2^64 - 2^33 + 4.
    const UINT sizes[] = {0xFFFFFFFFu, 0xFFFFFFFFu};
    const UINT strides[] = {0xFFFFFFFFu, 1};
    EXPECT_EQ(DMLCalcBufferTensorSize(DML_TENSOR_DATA_TYPE_UINT8, 2, sizes, strides), 18446744065119617028ull);
    // Packed: (2^32-1)^2 = 2^64 - 2^33 + 1 bytes, rounded up 2^64 - 2^33 + 4 as well.
    EXPECT_EQ(DMLCalcBufferTensorSize(DML_TENSOR_DATA_TYPE_UINT8, 2, sizes, nullptr), 18446744065119617028ull);
}

TEST(HelpersS3, BeyondSixtyFourBitsIsReported) {
    ASSERT_EQ(freedml::kTensorSizeOverflow, ~UINT64(0));
    // FLOAT64 {2^32-1, 2^32-1, 2}: (2^32-1)^2 * 2 elements is about 2^65.
    const UINT big[] = {0xFFFFFFFFu, 0xFFFFFFFFu, 2};
    EXPECT_EQ(DMLCalcBufferTensorSize(DML_TENSOR_DATA_TYPE_FLOAT64, 3, big, nullptr), freedml::kTensorSizeOverflow);
    // The same in 1-byte elements: (2^32-1)^2 * 2 > 2^64 already.
    EXPECT_EQ(DMLCalcBufferTensorSize(DML_TENSOR_DATA_TYPE_UINT8, 3, big, nullptr), freedml::kTensorSizeOverflow);
    // The dot product itself: 2 * (2^32-2)(2^32-1) > 2^64.
    const UINT bigStrides[] = {0xFFFFFFFFu, 0xFFFFFFFFu, 0};
    EXPECT_EQ(DMLCalcBufferTensorSize(DML_TENSOR_DATA_TYPE_UINT8, 3, big, bigStrides), freedml::kTensorSizeOverflow);
    // The element size: INT64 {2^30} stride {2^32-1}: (2^30-1)(2^32-1) + 1 is about 2^62, times 8
    // about 2^65.
    const UINT tall = 1u << 30, wide = 0xFFFFFFFFu;
    EXPECT_EQ(DMLCalcBufferTensorSize(DML_TENSOR_DATA_TYPE_INT64, 1, &tall, &wide), freedml::kTensorSizeOverflow);
    // ...in bytes it fits: (2^30-1)(2^32-1) + 1 = 2^62 - 2^32 - 2^30 + 2, rounded up + 4.
    EXPECT_EQ(DMLCalcBufferTensorSize(DML_TENSOR_DATA_TYPE_UINT8, 1, &tall, &wide),
              (1ull << 62) - (1ull << 32) - (1ull << 30) + 4);
    // The rounding: UINT8 {2^32-1, 5} strides {2^32-1, 3221225471}: last index
    // (2^64 - 3*2^32 + 2) + 4 * (3*2^30 - 1) = 2^64 - 2, one past it 2^64 - 1: no multiple of 4
    // at or above it fits in 64 bits.
    const UINT roundSizes[] = {0xFFFFFFFFu, 5};
    const UINT roundStrides[] = {0xFFFFFFFFu, 3221225471u};
    EXPECT_EQ(DMLCalcBufferTensorSize(DML_TENSOR_DATA_TYPE_UINT8, 2, roundSizes, roundStrides),
              freedml::kTensorSizeOverflow);
}

// ------------------------------------------------------------------------------------------------
// Edge inputs of DMLCalcBufferTensorSize

TEST(HelpersEdges, NullSizesAndZeroCount) {
    const UINT sizes[] = {2, 3};
    const UINT strides[] = {3, 1};
    EXPECT_EQ(DMLCalcBufferTensorSize(DML_TENSOR_DATA_TYPE_FLOAT32, 2, nullptr, nullptr), 0u);
    EXPECT_EQ(DMLCalcBufferTensorSize(DML_TENSOR_DATA_TYPE_FLOAT32, 2, nullptr, strides), 0u);
    EXPECT_EQ(DMLCalcBufferTensorSize(DML_TENSOR_DATA_TYPE_FLOAT32, 0, sizes, nullptr), 0u);
    EXPECT_EQ(DMLCalcBufferTensorSize(DML_TENSOR_DATA_TYPE_FLOAT32, 0, sizes, strides), 0u);
    EXPECT_EQ(DMLCalcBufferTensorSize(DML_TENSOR_DATA_TYPE_FLOAT32, 0, nullptr, nullptr), 0u);
}

TEST(HelpersEdges, ZeroSizeHasNoBytes) {
    // A zero size anywhere: no elements, 0 bytes, with or without strides (the seed's
    // (0 - 1) * stride would wrap).
    const UINT sizes[] = {4, 0, 3};
    const UINT strides[] = {12, 3, 1};
    EXPECT_EQ(DMLCalcBufferTensorSize(DML_TENSOR_DATA_TYPE_FLOAT32, 3, sizes, nullptr), 0u);
    EXPECT_EQ(DMLCalcBufferTensorSize(DML_TENSOR_DATA_TYPE_FLOAT32, 3, sizes, strides), 0u);
    // Even when the other sizes alone would overflow.
    const UINT huge[] = {0xFFFFFFFFu, 0xFFFFFFFFu, 0xFFFFFFFFu, 0};
    EXPECT_EQ(DMLCalcBufferTensorSize(DML_TENSOR_DATA_TYPE_FLOAT64, 4, huge, nullptr), 0u);
}

TEST(HelpersEdges, OneElement) {
    // {1} or {1, 1, 1}: one element rounded up to 4 (8 for 8-byte types).
    const UINT ones[] = {1, 1, 1};
    const UINT anyStrides[] = {1000, 7, 0};  // never multiplied by anything but 0
    EXPECT_EQ(DMLCalcBufferTensorSize(DML_TENSOR_DATA_TYPE_UINT8, 3, ones, anyStrides), 4u);
    EXPECT_EQ(DMLCalcBufferTensorSize(DML_TENSOR_DATA_TYPE_INT64, 1, ones, nullptr), 8u);
}

// ------------------------------------------------------------------------------------------------
// S4: CalculateStrides for NCHW and NHWC, every broadcast combination

struct BroadcastCase {
    std::array<bool, 4> broadcast;  // N, C, H, W
    std::array<uint32_t, 4> nchw;   // strides in NCHW order
    std::array<uint32_t, 4> nhwc;   // strides in NCHW order, for the NHWC layout
};

// Sizes {N=2, C=3, H=4, W=5}. A broadcast dimension has stride 0 and counts as size 1:
//   NCHW: W 1, H w', C h'w', N c'h'w'.   NHWC: C 1, W c', H w'c', N h'w'c'.
constexpr BroadcastCase kBroadcastCases[] = {
    {{0, 0, 0, 0}, {60, 20, 5, 1}, {60, 1, 15, 3}},
    {{0, 0, 0, 1}, {12, 4, 1, 0}, {12, 1, 3, 0}},   // w' = 1
    {{0, 0, 1, 0}, {15, 5, 0, 1}, {15, 1, 0, 3}},   // h' = 1
    {{0, 0, 1, 1}, {3, 1, 0, 0}, {3, 1, 0, 0}},     // h' = w' = 1
    {{0, 1, 0, 0}, {20, 0, 5, 1}, {20, 0, 5, 1}},   // c' = 1: NHWC's W stride is c' = 1
    {{0, 1, 0, 1}, {4, 0, 1, 0}, {4, 0, 1, 0}},
    {{0, 1, 1, 0}, {5, 0, 0, 1}, {5, 0, 0, 1}},
    {{0, 1, 1, 1}, {1, 0, 0, 0}, {1, 0, 0, 0}},
    {{1, 0, 0, 0}, {0, 20, 5, 1}, {0, 1, 15, 3}},   // N broadcast: only its own stride changes
    {{1, 0, 0, 1}, {0, 4, 1, 0}, {0, 1, 3, 0}},
    {{1, 0, 1, 0}, {0, 5, 0, 1}, {0, 1, 0, 3}},
    {{1, 0, 1, 1}, {0, 1, 0, 0}, {0, 1, 0, 0}},
    {{1, 1, 0, 0}, {0, 0, 5, 1}, {0, 0, 5, 1}},
    {{1, 1, 0, 1}, {0, 0, 1, 0}, {0, 0, 1, 0}},
    {{1, 1, 1, 0}, {0, 0, 0, 1}, {0, 0, 0, 1}},
    {{1, 1, 1, 1}, {0, 0, 0, 0}, {0, 0, 0, 0}},
};

TEST(HelpersS4, EveryBroadcastCombination) {
    const std::array<uint32_t, 4> sizes = {2, 3, 4, 5};
    for (const auto& c : kBroadcastCases) {
        bool fits = false;
        EXPECT_EQ(freedml::CalculateStrides(freedml::TensorLayout::NCHW, sizes, c.broadcast, &fits), c.nchw);
        EXPECT_TRUE(fits);
        EXPECT_EQ(freedml::CalculateStrides(freedml::TensorLayout::NHWC, sizes, c.broadcast, &fits), c.nhwc);
        EXPECT_TRUE(fits);
        // The seed's own formulas agree.
        for (auto layout : {freedml::TensorLayout::NCHW, freedml::TensorLayout::NHWC}) {
            const auto seed = SeedStrides(layout, sizes, c.broadcast);
            const auto ours = freedml::CalculateStrides(layout, sizes, c.broadcast);
            for (int i = 0; i < 4; ++i) EXPECT_EQ(ours[i], seed[i]);
        }
    }
}

TEST(HelpersS4, AgreesWithTheSeedOnManyShapes) {
    const uint32_t values[] = {1, 2, 3, 7, 16};
    for (uint32_t n : values)
        for (uint32_t c : values)
            for (uint32_t h : values)
                for (uint32_t w : values)
                    for (int mask = 0; mask < 16; ++mask) {
                        const std::array<uint32_t, 4> sizes = {n, c, h, w};
                        const std::array<bool, 4> b = {(mask & 8) != 0, (mask & 4) != 0, (mask & 2) != 0,
                                                       (mask & 1) != 0};
                        for (auto layout : {freedml::TensorLayout::NCHW, freedml::TensorLayout::NHWC}) {
                            const auto seed = SeedStrides(layout, sizes, b);
                            const auto ours = freedml::CalculateStrides(layout, sizes, b);
                            for (int i = 0; i < 4; ++i) ASSERT_EQ(ours[i], seed[i]);
                        }
                    }
}

TEST(HelpersS4, StrideOverflowSaturatesAndSaysSo) {
    // NCHW {2, 65536, 65536, 2}: W 1, H 2, C 131072, N 65536*65536*2 = 2^33: saturated.
    bool fits = true;
    auto strides = freedml::CalculateStrides(freedml::TensorLayout::NCHW, {2, 65536, 65536, 2}, {}, &fits);
    EXPECT_FALSE(fits);
    EXPECT_EQ(strides, (std::array<uint32_t, 4>{UINT32_MAX, 131072, 2, 1}));
    // Broadcasting C brings N down to 65536*2 = 131072.
    strides = freedml::CalculateStrides(freedml::TensorLayout::NCHW, {2, 65536, 65536, 2},
                                        {false, true, false, false}, &fits);
    EXPECT_TRUE(fits);
    EXPECT_EQ(strides, (std::array<uint32_t, 4>{131072, 0, 2, 1}));
    // Exactly 2^32 - 1 = 65535 * 65537 fits: NCHW {2, 1, 65535, 65537}: W 1, H 65537,
    // C 4294967295, N 4294967295.
    strides = freedml::CalculateStrides(freedml::TensorLayout::NCHW, {2, 1, 65535, 65537}, {}, &fits);
    EXPECT_TRUE(fits);
    EXPECT_EQ(strides, (std::array<uint32_t, 4>{4294967295u, 4294967295u, 65537, 1}));
    // NHWC {2, 65536, 1, 65536}: C 1, W 65536, H 2^32 (saturated), N 2^32 (saturated).
    strides = freedml::CalculateStrides(freedml::TensorLayout::NHWC, {2, 65536, 1, 65536}, {}, &fits);
    EXPECT_FALSE(fits);
    EXPECT_EQ(strides, (std::array<uint32_t, 4>{UINT32_MAX, 1, UINT32_MAX, 65536}));
}

TEST(HelpersS4, UnknownLayout) {
    bool fits = true;
    const auto strides = freedml::CalculateStrides(static_cast<freedml::TensorLayout>(7), {2, 3, 4, 5}, {}, &fits);
    EXPECT_FALSE(fits);
    EXPECT_EQ(strides, (std::array<uint32_t, 4>{0, 0, 0, 0}));
}

// ------------------------------------------------------------------------------------------------
// The N-d form

TEST(HelpersNd, PackedRanksOneToEight) {
    // Sizes {2, 3, ..., rank+1}; packed strides are the products of the sizes to the right.
    const uint32_t sizes[] = {2, 3, 4, 5, 6, 7, 8, 9};
    const std::vector<std::vector<uint32_t>> expected = {
        {1},
        {3, 1},
        {12, 4, 1},
        {60, 20, 5, 1},
        {360, 120, 30, 6, 1},
        {2520, 840, 210, 42, 7, 1},
        {20160, 6720, 1680, 336, 56, 8, 1},
        {181440, 60480, 15120, 3024, 504, 72, 9, 1},
    };
    for (uint32_t rank = 1; rank <= 8; ++rank) {
        std::vector<uint32_t> strides(rank, 77);
        EXPECT_TRUE(freedml::CalculatePackedStrides(rank, sizes, strides.data()));
        EXPECT_EQ(strides, expected[rank - 1]) << "rank " << rank;
        std::vector<uint32_t> viaOrder(rank, 77);
        std::vector<uint32_t> identity(rank);
        for (uint32_t i = 0; i < rank; ++i) identity[i] = i;
        EXPECT_TRUE(freedml::CalculateStrides(rank, sizes, identity.data(), nullptr, viaOrder.data()));
        EXPECT_EQ(viaOrder, expected[rank - 1]) << "rank " << rank;
    }
}

TEST(HelpersNd, PermutedOrders) {
    // Transpose of {3, 4}: order {1, 0}: dimension 0 innermost (stride 1), dimension 1 stride 3.
    const uint32_t matrix[] = {3, 4};
    const uint32_t transpose[] = {1, 0};
    uint32_t strides2[2] = {};
    EXPECT_TRUE(freedml::CalculateStrides(2, matrix, transpose, nullptr, strides2));
    EXPECT_EQ(strides2[0], 1u);
    EXPECT_EQ(strides2[1], 3u);

    // NHWC as the order {0, 2, 3, 1} matches the 4-D form.
    const uint32_t image[] = {2, 3, 4, 5};
    const uint32_t nhwc[] = {0, 2, 3, 1};
    uint32_t strides4[4] = {};
    EXPECT_TRUE(freedml::CalculateStrides(4, image, nhwc, nullptr, strides4));
    EXPECT_EQ(std::vector<uint32_t>(strides4, strides4 + 4), (std::vector<uint32_t>{60, 1, 15, 3}));

    // Rank 5 column-major, order {4, 3, 2, 1, 0} of {2, 3, 4, 5, 6}: 1, 2, 2*3, 2*3*4, 2*3*4*5.
    const uint32_t five[] = {2, 3, 4, 5, 6};
    const uint32_t reversed[] = {4, 3, 2, 1, 0};
    uint32_t strides5[5] = {};
    EXPECT_TRUE(freedml::CalculateStrides(5, five, reversed, nullptr, strides5));
    EXPECT_EQ(std::vector<uint32_t>(strides5, strides5 + 5), (std::vector<uint32_t>{1, 2, 6, 24, 120}));

    // Rank 8, sizes {2..9}, order {7, 0, 6, 1, 5, 2, 4, 3}: from the innermost, dimension 3
    // (size 5) 1, 4 (size 6) 5, 2 (size 4) 30, 5 (size 7) 120, 1 (size 3) 840, 6 (size 8) 2520,
    // 0 (size 2) 20160, 7 (size 9) 40320.
    const uint32_t eight[] = {2, 3, 4, 5, 6, 7, 8, 9};
    const uint32_t shuffled[] = {7, 0, 6, 1, 5, 2, 4, 3};
    uint32_t strides8[8] = {};
    EXPECT_TRUE(freedml::CalculateStrides(8, eight, shuffled, nullptr, strides8));
    EXPECT_EQ(std::vector<uint32_t>(strides8, strides8 + 8),
              (std::vector<uint32_t>{20160, 840, 30, 1, 5, 120, 2520, 40320}));
}

TEST(HelpersNd, Broadcast) {
    // {4, 5, 6} row-major with dimension 1 broadcast: 6, 0, 1 (5 counts as 1).
    const uint32_t sizes[] = {4, 5, 6};
    const bool broadcast[] = {false, true, false};
    uint32_t strides[3] = {};
    EXPECT_TRUE(freedml::CalculateStrides(3, sizes, nullptr, broadcast, strides));
    EXPECT_EQ(std::vector<uint32_t>(strides, strides + 3), (std::vector<uint32_t>{6, 0, 1}));
    // Order {2, 0, 1} (dimension 1 innermost and broadcast, then 0, then 2):
    // dimension 1: 0; dimension 0: 1; dimension 2: 4.
    const uint32_t order[] = {2, 0, 1};
    EXPECT_TRUE(freedml::CalculateStrides(3, sizes, order, broadcast, strides));
    EXPECT_EQ(std::vector<uint32_t>(strides, strides + 3), (std::vector<uint32_t>{1, 0, 4}));
}

TEST(HelpersNd, InvalidArgumentsWriteNothing) {
    const uint32_t sizes[9] = {2, 2, 2, 2, 2, 2, 2, 2, 2};
    uint32_t strides[9];
    for (uint32_t& s : strides) s = 77;
    EXPECT_FALSE(freedml::CalculateStrides(0, sizes, nullptr, nullptr, strides));
    EXPECT_FALSE(freedml::CalculateStrides(9, sizes, nullptr, nullptr, strides));
    EXPECT_FALSE(freedml::CalculateStrides(2, nullptr, nullptr, nullptr, strides));
    EXPECT_FALSE(freedml::CalculateStrides(2, sizes, nullptr, nullptr, nullptr));
    const uint32_t repeated[] = {0, 0};
    EXPECT_FALSE(freedml::CalculateStrides(2, sizes, repeated, nullptr, strides));
    const uint32_t outOfRange[] = {0, 2};
    EXPECT_FALSE(freedml::CalculateStrides(2, sizes, outOfRange, nullptr, strides));
    for (uint32_t s : strides) EXPECT_EQ(s, 77u);
}

TEST(HelpersNd, OverflowSaturates) {
    // {2, 65536, 65536}: 1, 65536, 2^32 (saturated).
    const uint32_t sizes[] = {2, 65536, 65536};
    uint32_t strides[3] = {};
    EXPECT_FALSE(freedml::CalculatePackedStrides(3, sizes, strides));
    EXPECT_EQ(std::vector<uint32_t>(strides, strides + 3), (std::vector<uint32_t>{UINT32_MAX, 65536, 1}));
    // Eight dimensions of 2^32 - 1: the running product passes 2^64 without harm.
    const uint32_t huge[8] = {UINT32_MAX, UINT32_MAX, UINT32_MAX, UINT32_MAX,
                              UINT32_MAX, UINT32_MAX, UINT32_MAX, UINT32_MAX};
    uint32_t strides8[8] = {};
    EXPECT_FALSE(freedml::CalculatePackedStrides(8, huge, strides8));
    EXPECT_EQ(strides8[7], 1u);
    EXPECT_EQ(strides8[6], UINT32_MAX);  // 2^32 - 1 itself fits
    for (int i = 0; i < 6; ++i) EXPECT_EQ(strides8[i], UINT32_MAX) << i;
}

TEST(HelpersNd, ZeroSize) {
    // {3, 0, 4}: 0, 4, 1 (the seed's products; such tensors fail T1 anyway).
    const uint32_t sizes[] = {3, 0, 4};
    uint32_t strides[3] = {77, 77, 77};
    EXPECT_TRUE(freedml::CalculatePackedStrides(3, sizes, strides));
    EXPECT_EQ(std::vector<uint32_t>(strides, strides + 3), (std::vector<uint32_t>{0, 4, 1}));
}

#ifdef FREEDML_HELPERS_HAVE_SPAN
TEST(HelpersNd, Spans) {
    const std::array<uint32_t, 4> sizes = {2, 3, 4, 5};
    const std::array<uint32_t, 4> nhwc = {0, 2, 3, 1};
    std::array<uint32_t, 4> strides = {};
    EXPECT_TRUE(freedml::CalculateStrides(std::span<const uint32_t>(sizes), nhwc, std::span<uint32_t>(strides)));
    EXPECT_EQ(strides, (std::array<uint32_t, 4>{60, 1, 15, 3}));
    EXPECT_TRUE(freedml::CalculateStrides(std::span<const uint32_t>(sizes), {}, std::span<uint32_t>(strides)));
    EXPECT_EQ(strides, (std::array<uint32_t, 4>{60, 20, 5, 1}));
    const std::array<bool, 4> broadcast = {true, false, false, false};
    EXPECT_TRUE(freedml::CalculateStrides(std::span<const uint32_t>(sizes), {}, std::span<uint32_t>(strides),
                                          broadcast));
    EXPECT_EQ(strides, (std::array<uint32_t, 4>{0, 20, 5, 1}));
    std::array<uint32_t, 3> tooShort = {};
    EXPECT_FALSE(freedml::CalculateStrides(std::span<const uint32_t>(sizes), {}, std::span<uint32_t>(tooShort)));
}
#endif

}  // namespace
