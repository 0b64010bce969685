// The DirectML layer's own form of a tensor description: an owned, validated copy of a
// DML_BUFFER_TENSOR_DESC, made when an operator is created. Everything after CreateOperator
// (binding validation, kernels) works on these, never on the application's pointers.
#pragma once

#include <DirectML.h>
#include <freedml/helpers.h>  // IsPacked4Bit, DMLCalcBufferTensorSize

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>

#include "common/status.h"

namespace freedml::dml {

constexpr uint32_t kMaxTensorRank = 8;  // DML_TENSOR_DIMENSION_COUNT_MAX1

struct TensorDesc {
    DML_TENSOR_DATA_TYPE dataType = DML_TENSOR_DATA_TYPE_UNKNOWN;
    DML_TENSOR_FLAGS flags = DML_TENSOR_FLAG_NONE;
    uint32_t rank = 0;
    std::array<uint32_t, kMaxTensorRank> sizes{};
    // In elements. When the application gave no strides these are the packed strides, and
    // hasExplicitStrides is false.
    std::array<uint32_t, kMaxTensorRank> strides{};
    bool hasExplicitStrides = false;
    uint64_t totalTensorSizeInBytes = 0;
    uint32_t guaranteedBaseOffsetAlignment = 0;

    uint64_t ElementCount() const;
    bool OwnedByDml() const { return (flags & DML_TENSOR_FLAG_OWNED_BY_DML) != 0; }
    // Bytes the elements span (DMLCalcBufferTensorSize of this tensor).
    uint64_t MinimumSizeInBytes() const;
    // The base-offset alignment binding requires (V3): GuaranteedBaseOffsetAlignment, or
    // DML_MINIMUM_BUFFER_TENSOR_ALIGNMENT (16) when that is 0.
    uint64_t RequiredOffsetAlignment() const;
    // "FLOAT32 {1, 2, 3, 4}" or "FLOAT16 {2, 3} strides {1, 2}": how messages show a tensor.
    std::string Describe() const;
};

// 1, 2, 4 or 8; 0 for UNKNOWN. INT4/UINT4 report 1: two elements share a byte (element i in
// byte i / 2, the low nibble when i is even), and a byte is the smallest unit of alignment.
uint32_t ElementSizeInBytes(DML_TENSOR_DATA_TYPE dataType);
const char* DataTypeName(DML_TENSOR_DATA_TYPE dataType);  // "FLOAT32"; "DML_TENSOR_DATA_TYPE(77)" if unknown

// FLOAT16, FLOAT32 or FLOAT64.
constexpr bool IsFloatingPoint(DML_TENSOR_DATA_TYPE type) {
    return type == DML_TENSOR_DATA_TYPE_FLOAT16 || type == DML_TENSOR_DATA_TYPE_FLOAT32 ||
           type == DML_TENSOR_DATA_TYPE_FLOAT64;
}
// FLOAT16 or FLOAT32: the types the CPU kernels compute in float (FLOAT16 loaded and stored
// through float), where FLOAT64 has paths of its own.
constexpr bool IsFloat16Or32(DML_TENSOR_DATA_TYPE type) {
    return type == DML_TENSOR_DATA_TYPE_FLOAT16 || type == DML_TENSOR_DATA_TYPE_FLOAT32;
}

// What an operator allows for one of its tensors, beyond the rules every tensor obeys (T1-T4).
struct TensorRequirements {
    const char* name = "";            // the desc field: "ATensor", "OutputTensor"
    bool isOutput = false;
    uint32_t minRank = 1;
    uint32_t maxRank = kMaxTensorRank;
};

// Validates one DML_TENSOR_DESC of an operator desc and copies it into `out`. `featureLevel` is
// the device's: below DML_FEATURE_LEVEL_3_0 a rank above 5 is refused (T1). Messages name the
// field, the values given and the limit, and cite the rule id (T1..T4).
Status ValidateTensorDesc(const DML_TENSOR_DESC* desc, const TensorRequirements& requirements,
                          DML_FEATURE_LEVEL featureLevel, TensorDesc* out);

}  // namespace freedml::dml
