// Plain descriptions of the generator operators' work, shared by the CPU kernels, the CUDA planning
// code and the CUDA device code (which never sees DirectML.h). plan.cpp fills them from a
// validated desc.
#pragma once

#include <cstdint>

// Shared by host and device code.
#ifdef __CUDACC__
#define FREEDML_GEN_HD __host__ __device__
#else
#define FREEDML_GEN_HD
#endif

namespace freedml::dml::generators {

constexpr uint32_t kMaxRank = 8;

enum class GenMode : uint8_t { OneHot, Diagonal };
enum class IndexType : uint8_t { I32, I64, U32, U64 };

// Every output element is chosen by its coordinates: ONE_HOT compares its coordinate along `axis`
// with the index read at `src` (the indices tensor's strides over the output's shape, 0 along
// the axis); the diagonal operators compare its column minus its row with the fill band and take
// `valueBits`, else the input element at `src` (DIAGONAL_MATRIX1 with an InputTensor), else zero.
// Elements are moved as bits of `elementSize` bytes (1, 2, 4 or 8), so every data type is one case.
struct GenPlan {
    GenMode mode = GenMode::Diagonal;
    uint32_t rank = 0;
    uint64_t count = 1;
    uint32_t elementSize = 4;
    uint64_t sizes[kMaxRank] = {};
    int64_t outStrides[kMaxRank] = {};  // elements
    int64_t srcStrides[kMaxRank] = {};  // elements of the indices (ONE_HOT) or the input (DIAGONAL_MATRIX1)
    bool hasSource = false;
    // ONE_HOT
    uint32_t axis = 0;
    IndexType indexType = IndexType::U32;
    uint64_t onBits = 0, offBits = 0;
    // DIAGONAL_MATRIX (as the band [Offset, Offset + 1)) and DIAGONAL_MATRIX1
    int64_t fillBegin = 0, fillEnd = 1;
    uint64_t valueBits = 0;
};

// The DIAGONAL_MATRIX1 page's rule for a column minus row `topX`: inside [begin, end), or outside
// [end, begin) when end < begin.
FREEDML_GEN_HD inline bool InFillBand(int64_t topX, int64_t begin, int64_t end) {
    return (end >= begin) ^ (topX >= begin) ^ (topX < end);
}

// ONE_HOT's index, counted from the end when negative (signed types, feature level 3.0); -1 when it
// lies outside [0, length), so the line is all OffValue.
FREEDML_GEN_HD inline int64_t NormalizeIndex(int64_t index, uint64_t length) {
    if (index < 0) index += int64_t(length);
    return index >= 0 && uint64_t(index) < length ? index : -1;
}

// NONZERO_COORDINATES: the input's elements in row-major order (`sizes`, `inStrides` in elements),
// nonzero where any bit of `zeroMask` is set (floats leave out the sign bit, so -0 is zero, and
// NaN is nonzero). Row r of the coordinates matrix starts `rowStride` elements in, its columns
// `columnStride` apart; it holds the last `columns` coordinates of the r-th nonzero element. Rows
// past the count are written with zeros (the page leaves them undefined).
struct NonzeroPlan {
    uint32_t rank = 0;
    uint64_t count = 1;
    uint64_t sizes[kMaxRank] = {};
    int64_t inStrides[kMaxRank] = {};
    uint32_t elementSize = 4;
    uint64_t zeroMask = ~uint64_t(0);
    uint32_t columns = 0;
    int64_t rowStride = 0, columnStride = 0;
};

// RANDOM_GENERATOR: output element i (row-major over `sizes`, written at `outStrides`) is word i % 4
// of Philox 4x32-10 of (the input counter + i / 4, the key). The output state, when bound, is the
// input counter plus the number of 4-word blocks used, ceil(count / 4), and the same key.
struct RandomPlan {
    uint32_t rank = 0;
    uint64_t count = 1;
    uint64_t sizes[kMaxRank] = {};
    int64_t outStrides[kMaxRank] = {};
    int64_t stateStride = 1;      // InputStateTensor's stride along its last dimension (elements)
    int64_t nextStateStride = 1;  // OutputStateTensor's
    bool writesState = false;
};

}  // namespace freedml::dml::generators
