// FreeDML helpers: the tensor size and stride arithmetic of DirectML's "DirectML helper functions"
// page (rules S1-S4 of BINDING-RULES.md), as header-only functions an application may use.
// C++17 or later. Include after DirectML.h (ours or Microsoft's); when no DirectML.h has been
// included yet, this header includes <DirectML.h> itself.
//
// Every computation is 64-bit and checked: no input makes these functions read outside the
// arrays they are given (dimensionCount entries each), overflow silently or crash.
#pragma once

#if !defined(DML_TARGET_VERSION)
#include <DirectML.h>
#endif

#include <array>
#include <cstdint>
#if __cplusplus >= 202002L && defined(__has_include)
#if __has_include(<span>)
#include <span>
#define FREEDML_HELPERS_HAVE_SPAN 1
#endif
#endif

namespace freedml {

// What DMLCalcBufferTensorSize returns when the true size does not fit in 64 bits. A genuine
// result is a multiple of 4, so this value never is one, and no TotalTensorSizeInBytes (itself a
// multiple of 4) can be at least it.
constexpr UINT64 kTensorSizeOverflow = ~UINT64(0);

// The most dimensions a DirectML tensor has (DML_TENSOR_DIMENSION_COUNT_MAX1).
constexpr uint32_t kMaxTensorDimensions = 8;

// Bytes of one element (S1): 1 for (U)INT8, 2 for FLOAT16 and (U)INT16, 4 for FLOAT32 and
// (U)INT32, 8 for FLOAT64 and (U)INT64. 0 for UNKNOWN, for any value that is no data type, and
// for the packed 4-bit types (two elements share a byte, so no whole-byte element size exists;
// DMLCalcBufferTensorSize counts them in half bytes).
constexpr UINT TensorElementSizeInBytes(DML_TENSOR_DATA_TYPE dataType) {
    switch (dataType) {
        case DML_TENSOR_DATA_TYPE_UINT8:
        case DML_TENSOR_DATA_TYPE_INT8:
            return 1;
        case DML_TENSOR_DATA_TYPE_FLOAT16:
        case DML_TENSOR_DATA_TYPE_UINT16:
        case DML_TENSOR_DATA_TYPE_INT16:
            return 2;
        case DML_TENSOR_DATA_TYPE_FLOAT32:
        case DML_TENSOR_DATA_TYPE_UINT32:
        case DML_TENSOR_DATA_TYPE_INT32:
            return 4;
        case DML_TENSOR_DATA_TYPE_FLOAT64:
        case DML_TENSOR_DATA_TYPE_UINT64:
        case DML_TENSOR_DATA_TYPE_INT64:
            return 8;
        default:
            return 0;
    }
}

// INT4 and UINT4: two elements a byte, element i in byte i / 2 (the low nibble when i is even).
constexpr bool IsPacked4Bit(DML_TENSOR_DATA_TYPE dataType) {
#if DML_TARGET_VERSION >= 0x6300
    return dataType == DML_TENSOR_DATA_TYPE_UINT4 || dataType == DML_TENSOR_DATA_TYPE_INT4;
#else
    (void)dataType;
    return false;
#endif
}

namespace detail {

// a * b into *result; false (and *result undefined) when the product needs more than 64 bits.
constexpr bool CheckedMultiply(uint64_t a, uint64_t b, uint64_t* result) {
    if (a != 0 && b > ~uint64_t(0) / a) return false;
    *result = a * b;
    return true;
}

constexpr bool CheckedAdd(uint64_t a, uint64_t b, uint64_t* result) {
    if (b > ~uint64_t(0) - a) return false;
    *result = a + b;
    return true;
}

}  // namespace detail
}  // namespace freedml

// The minimum number of bytes a buffer tensor of this type, sizes and (optional) strides occupies
// (S2): without strides, the product of the sizes times the element size; with strides, the index
// one past the last element, dot(sizes - 1, strides) + 1, times the element size. Both rounded up
// to a multiple of 4, as DirectML wants every bound size DWORD-aligned.
//
// Unlike the seed, the arithmetic is 64-bit end to end (S3). Beyond the seed:
//   - an unknown data type gives 0, as in the seed;
//   - a 4-bit type (INT4, UINT4) packs two elements a byte: the elements up to one past the last
//     take half a byte each, rounded up to whole bytes and then to a multiple of 4;
//   - null `sizes` or a zero `dimensionCount` gives 0 (no tensor to measure; DirectML tensors have
//     1 to 8 dimensions) and reads nothing;
//   - a size of 0 anywhere gives 0: the tensor has no elements (the seed's `sizes[i] - 1` would
//     wrap around);
//   - a true size beyond 64 bits gives freedml::kTensorSizeOverflow (UINT64_MAX), which is never
//     a genuine result.
inline UINT64 DMLCalcBufferTensorSize(DML_TENSOR_DATA_TYPE dataType, UINT dimensionCount,
                                      const UINT* sizes, const UINT* strides) {
    using freedml::detail::CheckedAdd;
    using freedml::detail::CheckedMultiply;
    const bool nibbles = freedml::IsPacked4Bit(dataType);
    const uint64_t elementSize = nibbles ? 1 : freedml::TensorElementSizeInBytes(dataType);
    if (elementSize == 0 || sizes == nullptr || dimensionCount == 0) return 0;
    for (UINT i = 0; i < dimensionCount; ++i) {
        if (sizes[i] == 0) return 0;
    }

    // Elements from the start of the tensor to one past its last element.
    uint64_t elementSpan = 1;
    bool fits = true;
    if (strides == nullptr) {
        for (UINT i = 0; i < dimensionCount && fits; ++i) {
            fits = CheckedMultiply(elementSpan, sizes[i], &elementSpan);
        }
    } else {
        uint64_t lastIndex = 0;
        for (UINT i = 0; i < dimensionCount && fits; ++i) {
            // (2^32 - 2) * (2^32 - 1) < 2^64: one term always fits.
            const uint64_t term = uint64_t(sizes[i] - 1) * strides[i];
            fits = CheckedAdd(lastIndex, term, &lastIndex);
        }
        fits = fits && CheckedAdd(lastIndex, 1, &elementSpan);
    }
    uint64_t bytes = 0;
    // Half a byte per 4-bit element, a trailing odd one taking a whole byte.
    if (nibbles && fits) elementSpan = elementSpan / 2 + elementSpan % 2;
    fits = fits && CheckedMultiply(elementSpan, elementSize, &bytes) && CheckedAdd(bytes, 3, &bytes);
    if (!fits) return freedml::kTensorSizeOverflow;
    return bytes & ~uint64_t(3);
}

namespace freedml {

// Strides (in elements) of a tensor of `dimensionCount` dimensions (1..8) laid out in memory in
// the given dimension order, with optional broadcasting (S4).
//
//   sizes      dimensionCount sizes, in the tensor's logical order (NCHW order for 4-D images).
//   order      a permutation of 0..dimensionCount-1 listing the logical dimensions from the
//              outermost in memory (largest stride) to the innermost (stride 1). nullptr means
//              {0, 1, ..., dimensionCount-1}: packed row-major. For sizes in NCHW order, NCHW is
//              {0, 1, 2, 3} and NHWC is {0, 2, 3, 1} (N outermost, then H, W, and C innermost);
//              a transposed matrix is {1, 0}.
//   broadcast  dimensionCount flags, or nullptr for none: a broadcast dimension gets stride 0 and
//              counts as size 1 when the other strides are computed.
//   strides    receives dimensionCount strides, in the logical order of `sizes`.
//
// Returns true when every stride fits in 32 bits (DirectML strides are UINT). Otherwise returns
// false and:
//   - for invalid arguments (a null `sizes` or `strides`, dimensionCount outside 1..8, `order`
//     not a permutation), writes nothing;
//   - when a stride would exceed 2^32 - 1, writes every stride, each one too large saturated to
//     UINT32_MAX (0xFFFFFFFF). Such a tensor has more than 2^32 - 1 elements, which DirectML
//     refuses anyway (T1).
// A size of 0 makes the strides outside it 0, as the seed's products do; DirectML refuses sizes of
// 0 (T1).
inline bool CalculateStrides(uint32_t dimensionCount, const uint32_t* sizes, const uint32_t* order,
                             const bool* broadcast, uint32_t* strides) {
    if (sizes == nullptr || strides == nullptr || dimensionCount == 0 ||
        dimensionCount > kMaxTensorDimensions) {
        return false;
    }
    uint32_t memoryOrder[kMaxTensorDimensions] = {};
    if (order != nullptr) {
        bool seen[kMaxTensorDimensions] = {};
        for (uint32_t i = 0; i < dimensionCount; ++i) {
            if (order[i] >= dimensionCount || seen[order[i]]) return false;
            seen[order[i]] = true;
            memoryOrder[i] = order[i];
        }
    } else {
        for (uint32_t i = 0; i < dimensionCount; ++i) memoryOrder[i] = i;
    }

    // Walk from the innermost dimension outwards; `block` is the elements one step of the current
    // dimension skips. It saturates at UINT64_MAX, far above any 32-bit stride.
    bool fits = true;
    uint64_t block = 1;
    for (uint32_t k = dimensionCount; k-- > 0;) {
        const uint32_t d = memoryOrder[k];
        if (broadcast != nullptr && broadcast[d]) {
            strides[d] = 0;
            continue;
        }
        if (block > UINT32_MAX) {
            strides[d] = UINT32_MAX;
            fits = false;
        } else {
            strides[d] = static_cast<uint32_t>(block);
        }
        if (!detail::CheckedMultiply(block, sizes[d], &block)) block = ~uint64_t(0);
    }
    return fits;
}

// Packed row-major strides (the last dimension has stride 1): what DirectML assumes when a
// tensor has no strides. Same arguments and results as CalculateStrides.
inline bool CalculatePackedStrides(uint32_t dimensionCount, const uint32_t* sizes, uint32_t* strides) {
    return CalculateStrides(dimensionCount, sizes, nullptr, nullptr, strides);
}

#ifdef FREEDML_HELPERS_HAVE_SPAN
// The N-d form on spans. `order` empty means row-major; `broadcast` empty means none. Returns
// false, writing nothing, when a non-empty `order` or `broadcast`, or `strides`, has another length
// than `sizes`.
inline bool CalculateStrides(std::span<const uint32_t> sizes, std::span<const uint32_t> order,
                             std::span<uint32_t> strides, std::span<const bool> broadcast = {}) {
    if (sizes.size() > kMaxTensorDimensions || strides.size() != sizes.size() ||
        (!order.empty() && order.size() != sizes.size()) ||
        (!broadcast.empty() && broadcast.size() != sizes.size())) {
        return false;
    }
    return CalculateStrides(static_cast<uint32_t>(sizes.size()), sizes.data(),
                            order.empty() ? nullptr : order.data(),
                            broadcast.empty() ? nullptr : broadcast.data(), strides.data());
}
#endif

// The seed's 4-D form: the two image layouts.
enum class TensorLayout { NCHW, NHWC };

// Strides for a 4-D tensor whose sizes are given in NCHW order, laid out as `layout`, with the
// flagged dimensions broadcast (stride 0, counted as size 1 for the others). Returns the strides
// in NCHW order, as the seed does. When `fits` is given it receives whether every stride fits in
// 32 bits; strides that do not are saturated to UINT32_MAX (see the N-d form). A layout value
// other than NCHW or NHWC gives all zeros and *fits = false.
inline std::array<uint32_t, 4> CalculateStrides(TensorLayout layout, std::array<uint32_t, 4> sizes,
                                                std::array<bool, 4> broadcast, bool* fits = nullptr) {
    static constexpr uint32_t kNchw[4] = {0, 1, 2, 3};
    static constexpr uint32_t kNhwc[4] = {0, 2, 3, 1};
    std::array<uint32_t, 4> strides = {};
    bool ok = false;
    if (layout == TensorLayout::NCHW || layout == TensorLayout::NHWC) {
        ok = CalculateStrides(4, sizes.data(), layout == TensorLayout::NCHW ? kNchw : kNhwc,
                              broadcast.data(), strides.data());
    }
    if (fits != nullptr) *fits = ok;
    return strides;
}

}  // namespace freedml
