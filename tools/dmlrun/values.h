// Typed values: DML_TENSOR_DATA_TYPE names, JSON numbers converted to element bytes with range
// checks, FLOAT16 conversion, and the typed initializers of a buffer (array, constant, sequence).
#pragma once

#include <DirectML.h>

#include <cstdint>
#include <vector>

#include "json_document.h"

namespace dmlrun {

// "FLOAT32" or "DML_TENSOR_DATA_TYPE_FLOAT32" (the names come from FreeDML's DataTypeName).
// Throws ModelError naming `path` and listing the names.
DML_TENSOR_DATA_TYPE ParseDataType(const Json& value, const JsonPath& path);

// Bytes of one element of a type whose values a model can write: 0 for UNKNOWN and the 4-bit types.
uint32_t ValueSizeInBytes(DML_TENSOR_DATA_TYPE type);

// Appends `value` (a JSON number; for the floating types also "nan", "inf", "-inf") as one
// element of `type`. Throws ModelError when it is not a number or does not fit the type.
void AppendValue(DML_TENSOR_DATA_TYPE type, const Json& value, const JsonPath& path, std::vector<uint8_t>* out);

// The scalar fields of operator descs, with the same checks.
float ParseFloat32(const Json& value, const JsonPath& path);
uint32_t ParseUInt32(const Json& value, const JsonPath& path);
int32_t ParseInt32(const Json& value, const JsonPath& path);
uint64_t ParseUInt64(const Json& value, const JsonPath& path);
bool ParseBool(const Json& value, const JsonPath& path);

// `count` copies of `value`, or the sequence start, start + delta, ... computed in the element
// type (as DxDispatch does: integers wrap, FLOAT16 rounds at every step).
void AppendConstant(DML_TENSOR_DATA_TYPE type, const Json& value, uint64_t count, const JsonPath& path,
                    std::vector<uint8_t>* out);
void AppendSequence(DML_TENSOR_DATA_TYPE type, const Json& start, const Json& delta, uint64_t count,
                    const JsonPath& startPath, const JsonPath& deltaPath, std::vector<uint8_t>* out);

// IEEE binary16 <-> binary32, rounding to nearest even.
// `count` values from a seeded generator (splitmix64): floats uniform in [-1, 1), integers in
// [-8, 8) (unsigned: [0, 16)). The same seed gives the same bytes on every machine.
void AppendRandom(DML_TENSOR_DATA_TYPE type, uint64_t seed, uint64_t count, std::vector<uint8_t>* out);

uint16_t FloatToHalf(float value);
float HalfToFloat(uint16_t bits);

}  // namespace dmlrun
