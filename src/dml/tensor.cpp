// Tensor descriptions: the tensor rules T1-T4 of BINDING-RULES.md. Every size computed here comes
// from include/freedml/helpers.h, the single source of size and stride arithmetic.
#include "dml/tensor.h"

#include <freedml/helpers.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <vector>

namespace freedml::dml {

namespace {

// An output layout small enough to check for shared memory by listing every offset.
constexpr uint64_t kMaxEnumeratedOutputElements = uint64_t(1) << 20;

std::string FormatList(const uint32_t* values, uint32_t count) {
    std::string text = "{";
    for (uint32_t i = 0; i < count; ++i) {
        if (i) text += ", ";
        text += std::to_string(values[i]);
    }
    return text + "}";
}

std::string FormatList(const std::array<uint64_t, kMaxTensorRank>& values, uint32_t count) {
    std::string text = "{";
    for (uint32_t i = 0; i < count; ++i) {
        if (i) text += ", ";
        text += std::to_string(values[i]);
    }
    return text + "}";
}

// The value an application stored in an enum field. An application may store any 32-bit value
// there; loading one outside the enumerators' range through the enum type is undefined behaviour,
// so validation reads the bytes.
template <typename Enum>
uint32_t RawValue(const Enum& field) {
    static_assert(sizeof(Enum) == sizeof(uint32_t));
    uint32_t value;
    std::memcpy(&value, &field, sizeof(value));
    return value;
}

// "FLOAT32", or nullptr when the value is no data type.
const char* KnownDataTypeName(uint32_t value) {
    switch (value) {
        case DML_TENSOR_DATA_TYPE_UNKNOWN: return "UNKNOWN";
        case DML_TENSOR_DATA_TYPE_FLOAT32: return "FLOAT32";
        case DML_TENSOR_DATA_TYPE_FLOAT16: return "FLOAT16";
        case DML_TENSOR_DATA_TYPE_UINT32: return "UINT32";
        case DML_TENSOR_DATA_TYPE_UINT16: return "UINT16";
        case DML_TENSOR_DATA_TYPE_UINT8: return "UINT8";
        case DML_TENSOR_DATA_TYPE_INT32: return "INT32";
        case DML_TENSOR_DATA_TYPE_INT16: return "INT16";
        case DML_TENSOR_DATA_TYPE_INT8: return "INT8";
        case DML_TENSOR_DATA_TYPE_FLOAT64: return "FLOAT64";
        case DML_TENSOR_DATA_TYPE_UINT64: return "UINT64";
        case DML_TENSOR_DATA_TYPE_INT64: return "INT64";
#if DML_TARGET_VERSION >= 0x6300
        case DML_TENSOR_DATA_TYPE_UINT4: return "UINT4";
        case DML_TENSOR_DATA_TYPE_INT4: return "INT4";
#endif
        default: return nullptr;
    }
}

bool IsPowerOfTwo(uint32_t value) { return value != 0 && (value & (value - 1)) == 0; }

// "3_0" for DML_FEATURE_LEVEL_3_0.
std::string FeatureLevelName(DML_FEATURE_LEVEL level) {
    const auto value = static_cast<uint32_t>(level);
    return Format("%u_%u", (value >> 12) & 0xF, (value >> 8) & 0xF);
}

// One dimension of size > 1 of an output, for the overlap test.
struct Extent {
    uint32_t dimension;  // index in the tensor's sizes
    uint64_t size;
    uint64_t stride;
};

// Element offset of the index `index` (one entry per tensor dimension).
uint64_t OffsetOf(const std::array<uint64_t, kMaxTensorRank>& index, const uint32_t* strides, uint32_t rank) {
    uint64_t offset = 0;
    for (uint32_t d = 0; d < rank; ++d) offset += index[d] * strides[d];
    return offset;
}

Status SharedMemoryError(const char* name, const uint32_t* sizes, const uint32_t* strides, uint32_t rank,
                         const std::array<uint64_t, kMaxTensorRank>& first,
                         const std::array<uint64_t, kMaxTensorRank>& second) {
    const uint64_t offset = OffsetOf(first, strides, rank);
    return Error(E_INVALIDARG,
                 "%s: Strides %s with Sizes %s make two elements of an output share memory: indices %s and "
                 "%s both land on element offset %llu (T4).",
                 name, FormatList(strides, rank).c_str(), FormatList(sizes, rank).c_str(),
                 FormatList(first, rank).c_str(), FormatList(second, rank).c_str(),
                 static_cast<unsigned long long>(offset));
}

// Refuses an output whose strides map two distinct indices to one offset (T4). Call it once T2
// passed: dot(sizes - 1, strides) then fits in 64 bits, and so does every partial sum below.
//
// The test. Only dimensions of size > 1 matter (a size-1 dimension has index 0 whatever its
// stride). A zero stride on one of them is overlap: indices 0 and 1 of it coincide. Otherwise sort
// them by stride, t_1 <= t_2 <= ... with sizes s_j, and let span_k = sum_{j<k} (s_j - 1) t_j, the
// largest offset dimensions 1..k-1 reach.
//   Sufficient: if t_k > span_k for every k, no two indices coincide (the highest dimension in
//   which two indices differ moves the offset by at least t_k, more than the lower ones can take
//   back).
//   Necessary when every stride divides the next (t_1 | t_2 | ... | t_k, true of every packed or
//   permuted layout and of any layout whose strides are multiples of one another): if
//   t_k <= span_k, the offset t_k (a multiple of t_{k-1}) is reached by dimensions 1..k-1:
//   greedily, taking min(v / t_j, s_j - 1) steps from j = k-1 down, each remainder stays a
//   multiple of the next smaller stride and within the span left. That index and the unit step of
//   dimension k coincide; the greedy walk below builds this witness.
//   Otherwise (strides that do not divide each other, e.g. sizes {3, 2} strides {2, 3}, which is
//   injective although 3 <= span = 4) the question is a bounded subset-sum problem; FreeDML answers
//   it exactly by listing every offset when the output has at most 2^20 elements, and beyond that
//   refuses conservatively, saying that overlap could not be ruled out.
Status ValidateNoSharedMemory(const char* name, const uint32_t* sizes, const uint32_t* strides, uint32_t rank) {
    std::vector<Extent> extents;
    for (uint32_t d = 0; d < rank; ++d) {
        if (sizes[d] > 1) extents.push_back({d, sizes[d], strides[d]});
    }
    for (const Extent& e : extents) {
        INVALID_IF(e.stride == 0,
                   "%s: Strides[%u] is 0 on a dimension of size %u: an output cannot broadcast, since its "
                   "elements would share memory (T4).",
                   name, e.dimension, sizes[e.dimension]);
    }
    std::stable_sort(extents.begin(), extents.end(),
                     [](const Extent& a, const Extent& b) { return a.stride < b.stride; });

    bool divisibilityChain = true;
    uint64_t span = 0;
    size_t k = 0;
    for (; k < extents.size(); ++k) {
        if (k > 0 && extents[k].stride % extents[k - 1].stride != 0) divisibilityChain = false;
        if (extents[k].stride > span) {
            span += (extents[k].size - 1) * extents[k].stride;
            continue;
        }
        if (divisibilityChain) {
            std::array<uint64_t, kMaxTensorRank> first{}, second{};
            second[extents[k].dimension] = 1;
            uint64_t remainder = extents[k].stride;
            for (size_t j = k; j-- > 0;) {
                const uint64_t steps = std::min(remainder / extents[j].stride, extents[j].size - 1);
                first[extents[j].dimension] = steps;
                remainder -= steps * extents[j].stride;
            }
            return SharedMemoryError(name, sizes, strides, rank, first, second);
        }
        break;  // strides that do not divide each other: decide below
    }
    if (k == extents.size()) return Status::Ok();  // every stride passed the span test

    uint64_t elements = 1;
    for (const Extent& e : extents) elements *= e.size;  // <= 2^32 - 1 after T1
    INVALID_IF(elements > kMaxEnumeratedOutputElements,
               "%s: Strides %s with Sizes %s: FreeDML cannot rule out that two elements of this output share "
               "memory (strides that do not divide one another, on more than %llu elements) (T4).",
               name, FormatList(strides, rank).c_str(), FormatList(sizes, rank).c_str(),
               static_cast<unsigned long long>(kMaxEnumeratedOutputElements));

    // List every offset, in index order (odometer over the extents).
    auto forEachIndex = [&](auto&& visit) {
        std::array<uint64_t, kMaxTensorRank> index{};
        for (uint64_t n = 0; n < elements; ++n) {
            if (!visit(index)) return;
            for (const Extent& e : extents) {
                if (++index[e.dimension] < e.size) break;
                index[e.dimension] = 0;
            }
        }
    };
    std::vector<uint64_t> offsets;
    offsets.reserve(elements);
    forEachIndex([&](const std::array<uint64_t, kMaxTensorRank>& index) {
        offsets.push_back(OffsetOf(index, strides, rank));
        return true;
    });
    std::sort(offsets.begin(), offsets.end());
    const auto repeated = std::adjacent_find(offsets.begin(), offsets.end());
    if (repeated == offsets.end()) return Status::Ok();

    const uint64_t shared = *repeated;
    std::array<uint64_t, kMaxTensorRank> first{}, second{};
    int found = 0;
    forEachIndex([&](const std::array<uint64_t, kMaxTensorRank>& index) {
        if (OffsetOf(index, strides, rank) == shared) (found++ == 0 ? first : second) = index;
        return found < 2;
    });
    return SharedMemoryError(name, sizes, strides, rank, first, second);
}

}  // namespace

uint32_t ElementSizeInBytes(DML_TENSOR_DATA_TYPE dataType) {
#if DML_TARGET_VERSION >= 0x6300
    if (dataType == DML_TENSOR_DATA_TYPE_UINT4 || dataType == DML_TENSOR_DATA_TYPE_INT4) return 1;
#endif
    return TensorElementSizeInBytes(dataType);
}

const char* DataTypeName(DML_TENSOR_DATA_TYPE dataType) {
    if (const char* name = KnownDataTypeName(static_cast<uint32_t>(dataType))) return name;
    // Not an enumerator: name the value. One buffer per thread keeps the pointer valid until the
    // thread's next unknown value.
    thread_local char unknown[40];
    std::snprintf(unknown, sizeof(unknown), "DML_TENSOR_DATA_TYPE(%d)", static_cast<int>(dataType));
    return unknown;
}

uint64_t TensorDesc::ElementCount() const {
    uint64_t count = 1;
    for (uint32_t i = 0; i < rank; ++i) {
        if (!detail::CheckedMultiply(count, sizes[i], &count)) return ~uint64_t(0);
    }
    return count;
}

uint64_t TensorDesc::MinimumSizeInBytes() const {
    return DMLCalcBufferTensorSize(dataType, rank, sizes.data(), hasExplicitStrides ? strides.data() : nullptr);
}

uint64_t TensorDesc::RequiredOffsetAlignment() const {
    return guaranteedBaseOffsetAlignment != 0 ? guaranteedBaseOffsetAlignment : DML_MINIMUM_BUFFER_TENSOR_ALIGNMENT;
}

std::string TensorDesc::Describe() const {
    std::string text = DataTypeName(dataType);
    text += ' ';
    text += FormatList(sizes.data(), rank);
    if (hasExplicitStrides) {
        text += " strides ";
        text += FormatList(strides.data(), rank);
    }
    return text;
}

Status ValidateTensorDesc(const DML_TENSOR_DESC* desc, const TensorRequirements& requirements,
                          DML_FEATURE_LEVEL featureLevel, TensorDesc* out) {
    const char* name = requirements.name && requirements.name[0] ? requirements.name : "Tensor";

    INVALID_IF(desc == nullptr, "%s: the DML_TENSOR_DESC pointer is null.", name);
    const uint32_t type = RawValue(desc->Type);
    INVALID_IF(type == DML_TENSOR_TYPE_INVALID, "%s: Type is DML_TENSOR_TYPE_INVALID, but this tensor is required.",
               name);
    INVALID_IF(type != DML_TENSOR_TYPE_BUFFER, "%s: Type (%u) is not DML_TENSOR_TYPE_BUFFER (%d).", name, type,
               static_cast<int>(DML_TENSOR_TYPE_BUFFER));
    INVALID_IF(desc->Desc == nullptr, "%s: Desc is null; a DML_TENSOR_TYPE_BUFFER tensor points at a "
               "DML_BUFFER_TENSOR_DESC.", name);
    const auto& buffer = *static_cast<const DML_BUFFER_TENSOR_DESC*>(desc->Desc);

    // Data type and flags.
    const uint32_t rawDataType = RawValue(buffer.DataType);
    INVALID_IF(rawDataType == DML_TENSOR_DATA_TYPE_UNKNOWN, "%s: DataType is DML_TENSOR_DATA_TYPE_UNKNOWN.", name);
    INVALID_IF(KnownDataTypeName(rawDataType) == nullptr, "%s: DataType (%u) is not a DML_TENSOR_DATA_TYPE.", name,
               rawDataType);
    const auto dataType = static_cast<DML_TENSOR_DATA_TYPE>(rawDataType);
    const uint32_t elementSize = ElementSizeInBytes(dataType);
    const uint32_t flags = RawValue(buffer.Flags);
    const uint32_t knownFlags = DML_TENSOR_FLAG_OWNED_BY_DML;
    INVALID_IF((flags & ~knownFlags) != 0,
               "%s: Flags (0x%x) has bits (0x%x) other than DML_TENSOR_FLAG_OWNED_BY_DML (0x%x).", name, flags,
               flags & ~knownFlags, knownFlags);
    INVALID_IF(requirements.isOutput && (flags & DML_TENSOR_FLAG_OWNED_BY_DML) != 0,
               "%s: Flags has DML_TENSOR_FLAG_OWNED_BY_DML, which only input tensors may carry (DirectML copies an "
               "owned input into the persistent resource when the operator is initialized).",
               name);

    // T1: rank, sizes, element count.
    const uint32_t rank = buffer.DimensionCount;
    const uint32_t levelMaxRank =
        featureLevel < DML_FEATURE_LEVEL_3_0 ? DML_TENSOR_DIMENSION_COUNT_MAX : DML_TENSOR_DIMENSION_COUNT_MAX1;
    if (featureLevel < DML_FEATURE_LEVEL_3_0) {
        INVALID_IF(rank < 1 || rank > levelMaxRank,
                   "%s: DimensionCount (%u) is outside 1..%u, the ranks of feature level %s (T1).", name, rank,
                   levelMaxRank, FeatureLevelName(featureLevel).c_str());
    } else {
        INVALID_IF(rank < 1 || rank > levelMaxRank, "%s: DimensionCount (%u) is outside 1..%u (T1).", name, rank,
                   levelMaxRank);
    }
    const uint32_t minRank = std::max(requirements.minRank, 1u);
    const uint32_t maxRank = std::min(requirements.maxRank, levelMaxRank);
    INVALID_IF(rank < minRank || rank > maxRank,
               "%s: DimensionCount (%u) is outside %u..%u, the ranks this operator accepts (T1).", name, rank,
               minRank, maxRank);
    INVALID_IF(buffer.Sizes == nullptr, "%s: Sizes is null, but DimensionCount is %u (T1).", name, rank);
    const uint32_t* sizes = buffer.Sizes;
    const uint32_t* strides = buffer.Strides;
    for (uint32_t i = 0; i < rank; ++i) {
        INVALID_IF(sizes[i] == 0, "%s: Sizes[%u] is 0 in Sizes %s; every size is at least 1 (T1).", name, i,
                   FormatList(sizes, rank).c_str());
    }
    uint64_t elements = 1;
    bool countFits = true;
    for (uint32_t i = 0; i < rank && countFits; ++i) {
        countFits = detail::CheckedMultiply(elements, sizes[i], &elements) && elements <= UINT32_MAX;
    }
    INVALID_IF(!countFits, "%s: Sizes %s hold more than 4294967295 elements (T1).", name,
               FormatList(sizes, rank).c_str());

    // T2: the buffer size covers every element and is DWORD-aligned.
    const uint64_t minimumSize = DMLCalcBufferTensorSize(dataType, rank, sizes, strides);
    const std::string spanned = strides ? Format("sizes %s and strides %s", FormatList(sizes, rank).c_str(),
                                                 FormatList(strides, rank).c_str())
                                        : Format("sizes %s", FormatList(sizes, rank).c_str());
    const auto totalSize = static_cast<unsigned long long>(buffer.TotalTensorSizeInBytes);
    INVALID_IF(minimumSize == kTensorSizeOverflow, "%s: TotalTensorSizeInBytes cannot cover what %s span: more than 2^64 bytes (T2).", name,
               spanned.c_str());
    INVALID_IF(buffer.TotalTensorSizeInBytes < minimumSize,
               "%s: TotalTensorSizeInBytes (%llu) is smaller than the %llu bytes its %s span (T2).", name, totalSize,
               static_cast<unsigned long long>(minimumSize), spanned.c_str());
    INVALID_IF(buffer.TotalTensorSizeInBytes % 4 != 0,
               "%s: TotalTensorSizeInBytes (%llu) is not a multiple of 4 (T2).", name, totalSize);

    // T3: the promised alignment of the binding offset.
    const uint32_t alignment = buffer.GuaranteedBaseOffsetAlignment;
    INVALID_IF(alignment != 0 && (!IsPowerOfTwo(alignment) || alignment < elementSize),
               "%s: GuaranteedBaseOffsetAlignment (%u) is neither 0 nor a power of two of at least the element "
               "size (%u bytes for %s) (T3).",
               name, alignment, elementSize, DataTypeName(dataType));

    // T4: a stride of 0 broadcasts an input; an output must not write one element twice.
    if (requirements.isOutput && strides != nullptr) {
        FREEDML_TRY(ValidateNoSharedMemory(name, sizes, strides, rank));
    }

    if (out != nullptr) {
        TensorDesc copy;
        copy.dataType = dataType;
        copy.flags = static_cast<DML_TENSOR_FLAGS>(flags);
        copy.rank = rank;
        std::copy(sizes, sizes + rank, copy.sizes.begin());
        copy.hasExplicitStrides = strides != nullptr;
        if (strides != nullptr) {
            std::copy(strides, strides + rank, copy.strides.begin());
        } else {
            // Fits: at most 2^32 - 1 elements (T1).
            CalculatePackedStrides(rank, copy.sizes.data(), copy.strides.data());
        }
        copy.totalTensorSizeInBytes = buffer.TotalTensorSizeInBytes;
        copy.guaranteedBaseOffsetAlignment = alignment;
        *out = copy;
    }
    return Status::Ok();
}

}  // namespace freedml::dml
