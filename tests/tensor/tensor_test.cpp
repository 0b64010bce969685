// Tensor validation (src/dml/tensor.cpp): one passing and one failing desc per rule T1-T4, the
// output overlap test, and the TensorDesc members.
#include "dml/tensor.h"

#include <freedml/helpers.h>

#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

namespace {

using freedml::Status;
using freedml::dml::TensorDesc;
using freedml::dml::TensorRequirements;
using freedml::dml::ValidateTensorDesc;

// A buffer tensor desc that owns its arrays. TotalTensorSizeInBytes defaults to the exact size.
struct Tensor {
    DML_TENSOR_DATA_TYPE type = DML_TENSOR_DATA_TYPE_FLOAT32;
    std::vector<UINT> sizes;
    std::vector<UINT> strides;  // empty: packed
    UINT64 total = 0;           // 0: DMLCalcBufferTensorSize
    UINT alignment = 0;
    DML_TENSOR_FLAGS flags = DML_TENSOR_FLAG_NONE;

    DML_BUFFER_TENSOR_DESC buffer{};
    DML_TENSOR_DESC desc{};

    const DML_TENSOR_DESC* Get() {
        const UINT* stridePointer = strides.empty() ? nullptr : strides.data();
        const auto rank = static_cast<UINT>(sizes.size());
        buffer = {type, flags, rank, sizes.data(), stridePointer,
                  total ? total : DMLCalcBufferTensorSize(type, rank, sizes.data(), stridePointer), alignment};
        desc = {DML_TENSOR_TYPE_BUFFER, &buffer};
        return &desc;
    }
};

// Stores any 32-bit value in an enum field, as a careless application might (a cast to the enum
// type would itself be undefined for values outside the enumerators' range).
template <typename Enum>
void StoreRaw(Enum* field, uint32_t value) {
    static_assert(sizeof(Enum) == sizeof(value));
    std::memcpy(field, &value, sizeof(value));
}

TensorRequirements Input(const char* name = "ATensor") { return {name, false, 1, 8}; }
TensorRequirements Output(const char* name = "OutputTensor") { return {name, true, 1, 8}; }

Status Validate(Tensor& tensor, const TensorRequirements& requirements = Input(),
                DML_FEATURE_LEVEL level = DML_FEATURE_LEVEL_6_4, TensorDesc* out = nullptr) {
    return ValidateTensorDesc(tensor.Get(), requirements, level, out);
}

#define EXPECT_VALID(expression)                      \
    do {                                              \
        const Status s_ = (expression);               \
        EXPECT_TRUE(s_.ok()) << s_.FullMessage();     \
    } while (0)

// E_INVALIDARG, and the message contains `text` (which cites the rule).
#define EXPECT_INVALID(expression, text)                                           \
    do {                                                                           \
        const Status s_ = (expression);                                            \
        EXPECT_EQ(s_.hr(), E_INVALIDARG) << s_.FullMessage();                      \
        EXPECT_NE(s_.message().find(text), std::string::npos)                     \
            << "message: " << s_.message() << "\nexpected to contain: " << (text); \
    } while (0)

// ------------------------------------------------------------------------------------------------
// The desc itself

TEST(TensorDescShape, NullDescTypeAndPointer) {
    EXPECT_INVALID(ValidateTensorDesc(nullptr, Input(), DML_FEATURE_LEVEL_6_4, nullptr),
                   "ATensor: the DML_TENSOR_DESC pointer is null.");
    DML_TENSOR_DESC invalid = {DML_TENSOR_TYPE_INVALID, nullptr};
    EXPECT_INVALID(ValidateTensorDesc(&invalid, Input(), DML_FEATURE_LEVEL_6_4, nullptr),
                   "ATensor: Type is DML_TENSOR_TYPE_INVALID, but this tensor is required.");
    Tensor t{DML_TENSOR_DATA_TYPE_FLOAT32, {2}};
    DML_TENSOR_DESC other = *t.Get();
    StoreRaw(&other.Type, 5);
    EXPECT_INVALID(ValidateTensorDesc(&other, Input(), DML_FEATURE_LEVEL_6_4, nullptr),
                   "ATensor: Type (5) is not DML_TENSOR_TYPE_BUFFER (1).");
    DML_TENSOR_DESC empty = {DML_TENSOR_TYPE_BUFFER, nullptr};
    EXPECT_INVALID(ValidateTensorDesc(&empty, Input(), DML_FEATURE_LEVEL_6_4, nullptr), "ATensor: Desc is null");
}

TEST(TensorDescShape, DataType) {
    Tensor unknown{DML_TENSOR_DATA_TYPE_UNKNOWN, {2}, {}, 8};
    EXPECT_INVALID(Validate(unknown), "ATensor: DataType is DML_TENSOR_DATA_TYPE_UNKNOWN.");
    Tensor bogus{DML_TENSOR_DATA_TYPE_FLOAT32, {2}, {}, 8};
    bogus.Get();
    StoreRaw(&bogus.buffer.DataType, 77);
    EXPECT_INVALID(ValidateTensorDesc(&bogus.desc, Input(), DML_FEATURE_LEVEL_6_4, nullptr),
                   "ATensor: DataType (77) is not a DML_TENSOR_DATA_TYPE.");
    // Two 4-bit elements a byte: 9 UINT4 elements take 5 bytes, rounded up to 8 (T2).
    Tensor nibbles{DML_TENSOR_DATA_TYPE_UINT4, {9}, {}, 4};
    EXPECT_INVALID(Validate(nibbles), "TotalTensorSizeInBytes (4) is smaller than the 8 bytes");
    Tensor nibbles8{DML_TENSOR_DATA_TYPE_INT4, {9}, {}, 8};
    EXPECT_TRUE(Validate(nibbles8).ok());
    for (auto type : {DML_TENSOR_DATA_TYPE_FLOAT32, DML_TENSOR_DATA_TYPE_FLOAT16, DML_TENSOR_DATA_TYPE_UINT32,
                      DML_TENSOR_DATA_TYPE_UINT16, DML_TENSOR_DATA_TYPE_UINT8, DML_TENSOR_DATA_TYPE_INT32,
                      DML_TENSOR_DATA_TYPE_INT16, DML_TENSOR_DATA_TYPE_INT8, DML_TENSOR_DATA_TYPE_FLOAT64,
                      DML_TENSOR_DATA_TYPE_UINT64, DML_TENSOR_DATA_TYPE_INT64}) {
        Tensor t{type, {3, 5}};
        EXPECT_VALID(Validate(t));
    }
}

TEST(TensorDescShape, Flags) {
    Tensor owned{DML_TENSOR_DATA_TYPE_FLOAT32, {4}};
    owned.flags = DML_TENSOR_FLAG_OWNED_BY_DML;
    TensorDesc out;
    EXPECT_VALID(Validate(owned, Input(), DML_FEATURE_LEVEL_6_4, &out));
    EXPECT_TRUE(out.OwnedByDml());
    Tensor unknownBit{DML_TENSOR_DATA_TYPE_FLOAT32, {4}};
    unknownBit.Get();
    StoreRaw(&unknownBit.buffer.Flags, 0x3);
    EXPECT_INVALID(ValidateTensorDesc(&unknownBit.desc, Input(), DML_FEATURE_LEVEL_6_4, nullptr),
                   "ATensor: Flags (0x3) has bits (0x2) other than DML_TENSOR_FLAG_OWNED_BY_DML (0x1).");
    // DML_TENSOR_FLAGS: the flag "can only be used on input tensors".
    EXPECT_INVALID(Validate(owned, Output()),
                   "OutputTensor: Flags has DML_TENSOR_FLAG_OWNED_BY_DML, which only input tensors may carry");
}

// ------------------------------------------------------------------------------------------------
// T1: rank, sizes, element count

TEST(TensorT1, Rank) {
    Tensor eight{DML_TENSOR_DATA_TYPE_FLOAT32, {1, 1, 1, 1, 1, 1, 2, 3}};
    EXPECT_VALID(Validate(eight));
    Tensor nine{DML_TENSOR_DATA_TYPE_FLOAT32, {1, 1, 1, 1, 1, 1, 1, 2, 3}};
    EXPECT_INVALID(Validate(nine, Output()), "OutputTensor: DimensionCount (9) is outside 1..8 (T1).");
    Tensor none{DML_TENSOR_DATA_TYPE_FLOAT32, {}, {}, 4};
    EXPECT_INVALID(Validate(none), "ATensor: DimensionCount (0) is outside 1..8 (T1).");
}

TEST(TensorT1, RankByFeatureLevel) {
    Tensor five{DML_TENSOR_DATA_TYPE_FLOAT32, {1, 1, 1, 2, 3}};
    EXPECT_VALID(Validate(five, Input(), DML_FEATURE_LEVEL_2_1));
    Tensor six{DML_TENSOR_DATA_TYPE_FLOAT32, {1, 1, 1, 1, 2, 3}};
    EXPECT_INVALID(Validate(six, Input(), DML_FEATURE_LEVEL_2_1),
                   "ATensor: DimensionCount (6) is outside 1..5, the ranks of feature level 2_1 (T1).");
    EXPECT_VALID(Validate(six, Input(), DML_FEATURE_LEVEL_3_0));
}

TEST(TensorT1, RankNarrowedByTheOperator) {
    const TensorRequirements fourD = {"InputTensor", false, 4, 4};
    Tensor four{DML_TENSOR_DATA_TYPE_FLOAT32, {1, 2, 3, 4}};
    EXPECT_VALID(Validate(four, fourD));
    Tensor three{DML_TENSOR_DATA_TYPE_FLOAT32, {2, 3, 4}};
    EXPECT_INVALID(Validate(three, fourD),
                   "InputTensor: DimensionCount (3) is outside 4..4, the ranks this operator accepts (T1).");
    // An operator allowing up to 8 still gets 5 below feature level 3_0.
    Tensor six{DML_TENSOR_DATA_TYPE_FLOAT32, {1, 1, 1, 1, 2, 3}};
    EXPECT_INVALID(Validate(six, {"InputTensor", false, 4, 8}, DML_FEATURE_LEVEL_2_0), "is outside 1..5");
}

TEST(TensorT1, NullSizes) {
    Tensor t{DML_TENSOR_DATA_TYPE_FLOAT32, {2, 3}};
    t.Get();
    t.buffer.Sizes = nullptr;
    EXPECT_INVALID(ValidateTensorDesc(&t.desc, Input(), DML_FEATURE_LEVEL_6_4, nullptr),
                   "ATensor: Sizes is null, but DimensionCount is 2 (T1).");
}

TEST(TensorT1, ZeroSize) {
    Tensor t{DML_TENSOR_DATA_TYPE_FLOAT32, {2, 0, 3}, {}, 4};
    EXPECT_INVALID(Validate(t), "ATensor: Sizes[1] is 0 in Sizes {2, 0, 3}; every size is at least 1 (T1).");
}

TEST(TensorT1, ElementCount) {
    // 65535 * 65537 = 2^32 - 1 elements: the most allowed.
    Tensor most{DML_TENSOR_DATA_TYPE_UINT8, {65535, 65537}};
    EXPECT_VALID(Validate(most));
    // 65536 * 65536 = 2^32: one too many.
    Tensor tooMany{DML_TENSOR_DATA_TYPE_UINT8, {65536, 65536}};
    EXPECT_INVALID(Validate(tooMany), "ATensor: Sizes {65536, 65536} hold more than 4294967295 elements (T1).");
    // A product beyond 64 bits is caught the same way.
    Tensor huge{DML_TENSOR_DATA_TYPE_UINT8, {UINT32_MAX, UINT32_MAX, UINT32_MAX}, {}, 4};
    EXPECT_INVALID(Validate(huge), "hold more than 4294967295 elements (T1).");
}

// ------------------------------------------------------------------------------------------------
// T2: TotalTensorSizeInBytes

TEST(TensorT2, SmallerThanTheSpan) {
    // FLOAT32 {2, 3} strides {3, 1}: last index 5, 6 elements, 24 bytes.
    Tensor exact{DML_TENSOR_DATA_TYPE_FLOAT32, {2, 3}, {3, 1}, 24};
    EXPECT_VALID(Validate(exact));
    Tensor larger{DML_TENSOR_DATA_TYPE_FLOAT32, {2, 3}, {3, 1}, 1024};
    EXPECT_VALID(Validate(larger));
    Tensor small{DML_TENSOR_DATA_TYPE_FLOAT32, {2, 3}, {3, 1}, 20};
    EXPECT_INVALID(Validate(small),
                   "ATensor: TotalTensorSizeInBytes (20) is smaller than the 24 bytes its sizes {2, 3} and "
                   "strides {3, 1} span (T2).");
    // Packed: HelloDirectML's FLOAT32 {1, 2, 3, 4} needs 96 bytes.
    Tensor hello{DML_TENSOR_DATA_TYPE_FLOAT32, {1, 2, 3, 4}, {}, 92};
    EXPECT_INVALID(Validate(hello),
                   "TotalTensorSizeInBytes (92) is smaller than the 96 bytes its sizes {1, 2, 3, 4} span (T2).");
    hello.total = 96;
    EXPECT_VALID(Validate(hello));
}

TEST(TensorT2, MultipleOfFour) {
    // FLOAT16 {3}: 6 bytes, rounded up to 8. 10 covers it but is no multiple of 4.
    Tensor odd{DML_TENSOR_DATA_TYPE_FLOAT16, {3}, {}, 10};
    EXPECT_INVALID(Validate(odd), "ATensor: TotalTensorSizeInBytes (10) is not a multiple of 4 (T2).");
    Tensor unrounded{DML_TENSOR_DATA_TYPE_FLOAT16, {3}, {}, 6};
    EXPECT_INVALID(Validate(unrounded), "is smaller than the 8 bytes its sizes {3} span (T2).");
    Tensor rounded{DML_TENSOR_DATA_TYPE_FLOAT16, {3}, {}, 12};
    EXPECT_VALID(Validate(rounded));
}

TEST(TensorT2, SpanBeyondSixtyFourBits) {
    // INT64 {2^30} stride {2^32 - 1}: about 2^62 elements of span, 2^65 bytes.
    Tensor t{DML_TENSOR_DATA_TYPE_INT64, {1u << 30}, {UINT32_MAX}, 0xFFFFFFFFFFFFFFF0ull};
    EXPECT_INVALID(Validate(t),
                   "ATensor: TotalTensorSizeInBytes cannot cover what sizes {1073741824} and strides {4294967295} "
                   "span: more than 2^64 bytes (T2).");
}

TEST(TensorT2, SpanBeyondThirtyTwoBits) {
    // UINT8 {2, 2} strides {2^32 - 1, 2}: last index 2^32 - 1 + 2 = 2^32 + 1, so 2^32 + 2 bytes,
    // rounded up 4294967300. The seed's 32-bit index wraps to 1 and would accept 4 bytes.
    Tensor seedSize{DML_TENSOR_DATA_TYPE_UINT8, {2, 2}, {UINT32_MAX, 2}, 4};
    EXPECT_INVALID(Validate(seedSize),
                   "TotalTensorSizeInBytes (4) is smaller than the 4294967300 bytes its sizes {2, 2} and strides "
                   "{4294967295, 2} span (T2).");
    seedSize.total = 4294967300ull;
    EXPECT_VALID(Validate(seedSize));
    // UINT8 {65535, 65537} strides {65537, 1} (2^32 - 1 elements, the most T1 allows): last index
    // 65534*65537 + 65536 = 4294967294, 4294967295 bytes, rounded up 4294967296.
    Tensor fits{DML_TENSOR_DATA_TYPE_UINT8, {65535, 65537}, {65537, 1}};
    EXPECT_EQ(fits.Get(), &fits.desc);
    EXPECT_EQ(fits.buffer.TotalTensorSizeInBytes, 4294967296ull);
    EXPECT_VALID(Validate(fits));
}

// ------------------------------------------------------------------------------------------------
// T3: GuaranteedBaseOffsetAlignment

TEST(TensorT3, Alignment) {
    for (UINT alignment : {0u, 4u, 8u, 16u, 256u, 0x80000000u}) {
        Tensor t{DML_TENSOR_DATA_TYPE_FLOAT32, {4}};
        t.alignment = alignment;
        EXPECT_VALID(Validate(t));
    }
    Tensor small{DML_TENSOR_DATA_TYPE_FLOAT32, {4}};
    small.alignment = 2;
    EXPECT_INVALID(Validate(small),
                   "ATensor: GuaranteedBaseOffsetAlignment (2) is neither 0 nor a power of two of at least the "
                   "element size (4 bytes for FLOAT32) (T3).");
    Tensor notPower{DML_TENSOR_DATA_TYPE_UINT8, {4}};
    notPower.alignment = 12;
    EXPECT_INVALID(Validate(notPower), "GuaranteedBaseOffsetAlignment (12) is neither 0 nor a power of two");
    Tensor wide{DML_TENSOR_DATA_TYPE_FLOAT64, {4}};
    wide.alignment = 4;
    EXPECT_INVALID(Validate(wide), "(8 bytes for FLOAT64) (T3).");
    wide.alignment = 8;
    EXPECT_VALID(Validate(wide));
    Tensor bytes{DML_TENSOR_DATA_TYPE_INT8, {4}};
    bytes.alignment = 1;
    EXPECT_VALID(Validate(bytes));
}

// ------------------------------------------------------------------------------------------------
// T4: broadcast inputs, outputs that share memory

TEST(TensorT4, InputsMayBroadcast) {
    Tensor zero{DML_TENSOR_DATA_TYPE_FLOAT32, {3, 4}, {0, 0}};
    EXPECT_VALID(Validate(zero));
    Tensor rows{DML_TENSOR_DATA_TYPE_FLOAT32, {3, 4}, {0, 1}};
    EXPECT_VALID(Validate(rows));
    Tensor overlapping{DML_TENSOR_DATA_TYPE_FLOAT32, {2, 2}, {1, 1}};
    EXPECT_VALID(Validate(overlapping));
}

TEST(TensorT4, OutputLayoutsThatAreFine) {
    const std::vector<std::pair<std::vector<UINT>, std::vector<UINT>>> fine = {
        {{3, 4}, {4, 1}},                // packed
        {{3, 4}, {1, 3}},                // transposed
        {{2, 3}, {16, 1}},               // padded rows
        {{1, 5}, {0, 1}},                // stride 0 on a size-1 dimension
        {{5, 1}, {1, 1}},                // any stride on a size-1 dimension
        {{1, 1, 1}, {0, 0, 0}},          // a single element
        {{2, 3, 4, 5}, {60, 1, 15, 3}},  // NHWC
        {{3, 2}, {2, 3}},                // strides that do not divide: offsets 0 2 4 3 5 7
        {{2, 3, 4}, {13, 4, 1}},         // 4 does not divide 13, but 13 > 3 + 8
        // 2^21 elements, rows padded to 1025 and planes to 1049601 (not a multiple of 1025): the span
        // test passes (1049601 > 1023 + 1023 * 1025 = 1049598), so nothing is listed.
        {{2, 1024, 1024}, {1049601, 1025, 1}},
    };
    for (auto& [sizes, strides] : fine) {
        Tensor t{DML_TENSOR_DATA_TYPE_FLOAT32, sizes, strides};
        EXPECT_VALID(Validate(t, Output()));
    }
}

TEST(TensorT4, ZeroStrideOutputIsRefused) {
    Tensor t{DML_TENSOR_DATA_TYPE_FLOAT32, {3, 4}, {0, 1}};
    EXPECT_INVALID(Validate(t, Output()),
                   "OutputTensor: Strides[0] is 0 on a dimension of size 3: an output cannot broadcast, since its "
                   "elements would share memory (T4).");
}

TEST(TensorT4, OverlappingStridesAreRefused) {
    // {2, 2} strides {1, 1}: (1, 0) and (0, 1) are both offset 1.
    Tensor diagonal{DML_TENSOR_DATA_TYPE_FLOAT32, {2, 2}, {1, 1}};
    EXPECT_INVALID(Validate(diagonal, Output()),
                   "OutputTensor: Strides {1, 1} with Sizes {2, 2} make two elements of an output share memory: "
                   "indices {1, 0} and {0, 1} both land on element offset 1 (T4).");
    // {2, 3, 4} strides {8, 4, 1}: rows of 4 overlap by half: (0, 2, 0) and (1, 0, 0) are offset 8.
    Tensor rows{DML_TENSOR_DATA_TYPE_FLOAT32, {2, 3, 4}, {8, 4, 1}};
    EXPECT_INVALID(Validate(rows, Output()), "indices {0, 2, 0} and {1, 0, 0} both land on element offset 8 (T4).");
    // {2, 3} strides {2, 1}: (0, 2) and (1, 0) are offset 2.
    Tensor shortRows{DML_TENSOR_DATA_TYPE_FLOAT32, {2, 3}, {2, 1}};
    EXPECT_INVALID(Validate(shortRows, Output()), "indices {0, 2} and {1, 0} both land on element offset 2 (T4).");
    // Strides that do not divide each other, found by listing offsets: {4, 3} strides {2, 3}:
    // (3, 0) and (0, 2) are offset 6.
    Tensor listed{DML_TENSOR_DATA_TYPE_FLOAT32, {4, 3}, {2, 3}};
    EXPECT_INVALID(Validate(listed, Output()), "indices {3, 0} and {0, 2} both land on element offset 6 (T4).");
}

TEST(TensorT4, TooLargeToListIsRefusedConservatively) {
    // {3, 2, 262144} strides {2, 3, 6} never overlaps (each block of 6 holds the residues 0, 2, 4,
    // 3, 5 and 7 = 1 mod 6 once), but 2 does not divide 3 and the output has more than 2^20
    // elements: FreeDML refuses it, saying it could not rule overlap out.
    Tensor t{DML_TENSOR_DATA_TYPE_FLOAT32, {3, 2, 262144}, {2, 3, 6}};
    EXPECT_INVALID(Validate(t, Output()), "cannot rule out that two elements of this output share memory");
    EXPECT_VALID(Validate(t, Input()));
    // The same pattern on fewer elements is listed and accepted.
    Tensor small{DML_TENSOR_DATA_TYPE_FLOAT32, {3, 2, 1024}, {2, 3, 6}};
    EXPECT_VALID(Validate(small, Output()));
}

// ------------------------------------------------------------------------------------------------
// What a valid desc becomes

TEST(TensorDescCopy, PackedTensor) {
    Tensor hello{DML_TENSOR_DATA_TYPE_FLOAT32, {1, 2, 3, 4}};
    TensorDesc out;
    EXPECT_VALID(Validate(hello, Input(), DML_FEATURE_LEVEL_6_4, &out));
    EXPECT_EQ(out.dataType, DML_TENSOR_DATA_TYPE_FLOAT32);
    EXPECT_EQ(out.rank, 4u);
    EXPECT_EQ(out.sizes[3], 4u);
    EXPECT_FALSE(out.hasExplicitStrides);
    EXPECT_EQ(out.strides[0], 24u);
    EXPECT_EQ(out.strides[1], 12u);
    EXPECT_EQ(out.strides[2], 4u);
    EXPECT_EQ(out.strides[3], 1u);
    EXPECT_EQ(out.ElementCount(), 24u);
    EXPECT_EQ(out.MinimumSizeInBytes(), 96u);
    EXPECT_EQ(out.totalTensorSizeInBytes, 96u);
    EXPECT_EQ(out.RequiredOffsetAlignment(), 16u);
    EXPECT_FALSE(out.OwnedByDml());
    EXPECT_EQ(out.Describe(), "FLOAT32 {1, 2, 3, 4}");
}

TEST(TensorDescCopy, StridedTensor) {
    Tensor t{DML_TENSOR_DATA_TYPE_FLOAT16, {2, 3}, {1, 2}, 64};
    t.alignment = 32;
    TensorDesc out;
    EXPECT_VALID(Validate(t, Output(), DML_FEATURE_LEVEL_6_4, &out));
    EXPECT_TRUE(out.hasExplicitStrides);
    EXPECT_EQ(out.strides[0], 1u);
    EXPECT_EQ(out.strides[1], 2u);
    EXPECT_EQ(out.MinimumSizeInBytes(), 12u);  // last index 1 + 4 = 5, 6 elements, 12 bytes
    EXPECT_EQ(out.totalTensorSizeInBytes, 64u);
    EXPECT_EQ(out.RequiredOffsetAlignment(), 32u);
    EXPECT_EQ(out.Describe(), "FLOAT16 {2, 3} strides {1, 2}");
}

TEST(TensorDescCopy, ElementSizeAndNames) {
    using freedml::dml::DataTypeName;
    using freedml::dml::ElementSizeInBytes;
    EXPECT_EQ(ElementSizeInBytes(DML_TENSOR_DATA_TYPE_INT8), 1u);
    EXPECT_EQ(ElementSizeInBytes(DML_TENSOR_DATA_TYPE_FLOAT16), 2u);
    EXPECT_EQ(ElementSizeInBytes(DML_TENSOR_DATA_TYPE_UINT32), 4u);
    EXPECT_EQ(ElementSizeInBytes(DML_TENSOR_DATA_TYPE_INT64), 8u);
    EXPECT_EQ(ElementSizeInBytes(DML_TENSOR_DATA_TYPE_UINT4), 1u);
    EXPECT_EQ(ElementSizeInBytes(DML_TENSOR_DATA_TYPE_UNKNOWN), 0u);
    EXPECT_STREQ(DataTypeName(DML_TENSOR_DATA_TYPE_FLOAT32), "FLOAT32");
    EXPECT_STREQ(DataTypeName(DML_TENSOR_DATA_TYPE_UINT64), "UINT64");
    EXPECT_STREQ(DataTypeName(DML_TENSOR_DATA_TYPE_INT4), "INT4");
    EXPECT_STREQ(DataTypeName(DML_TENSOR_DATA_TYPE_UNKNOWN), "UNKNOWN");
    // 15 is within the enum's range (4 bits) but names no type.
    EXPECT_STREQ(DataTypeName(static_cast<DML_TENSOR_DATA_TYPE>(15)), "DML_TENSOR_DATA_TYPE(15)");
}

}  // namespace
