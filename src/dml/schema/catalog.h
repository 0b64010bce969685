// The catalog of every DirectML operator type through feature level 6.4: the facts DirectML's
// reference pages give about each one (the level that introduced it, the tensor data types it
// allows at the highest level, in-place support), whether or not FreeDML has a schema for it.
// docs/OPERATORS.md is generated from this catalog and the schema registry; a test keeps the two
// in agreement for every operator FreeDML implements.
#pragma once

#include <DirectML.h>

#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace freedml::dml {

// A set of DML_TENSOR_DATA_TYPE values, bit (1 << type) for each.
using DataTypeSet = uint32_t;
constexpr DataTypeSet DataTypeBit(DML_TENSOR_DATA_TYPE type) { return DataTypeSet{1} << static_cast<unsigned>(type); }

// The DML_TENSOR_DATA_TYPE values FreeDML's header declares, in the order the catalog prints them
// (FLOAT64 first, then the narrower floats, signed, unsigned, then the 4-bit types).
std::span<const DML_TENSOR_DATA_TYPE> CatalogDataTypeOrder();
// "FLOAT32, FLOAT16" (full names without the prefix), or "none".
std::string DataTypeSetToString(DataTypeSet set);

struct CatalogTensor {
    std::string name;   // the desc member: "InputTensor", "InputTensors" for an array
    DataTypeSet types;  // what the reference page allows at the highest feature level
};

struct CatalogEntry {
    DML_OPERATOR_TYPE type;
    const char* name;                  // "ELEMENT_WISE_ABS" (DML_OPERATOR_ without the prefix)
    DML_FEATURE_LEVEL featureLevel;    // the level that introduced it
    bool supportsInPlaceExecution;     // H2: an output may alias an input of the same region
    bool dataTypesKnown;               // false where the reference page gives no data types
    std::vector<CatalogTensor> tensors;  // empty when !dataTypesKnown
    const char* note;                  // a remark for OPERATORS.md, or nullptr

    DataTypeSet AllTypes() const;      // union over the tensors
    const CatalogTensor* FindTensor(const std::string& name) const;
};

// All 177 operator types, in DML_OPERATOR_TYPE order (ELEMENT_WISE_IDENTITY = 1 first).
std::span<const CatalogEntry> OperatorCatalog();
const CatalogEntry* FindCatalogEntry(DML_OPERATOR_TYPE type);
// Rows of the table that did not parse (empty unless catalog.cpp has a typo; a test checks).
std::span<const std::string> CatalogParseErrors();
// "6.4" for DML_FEATURE_LEVEL_6_4.
std::string FeatureLevelToString(DML_FEATURE_LEVEL level);

}  // namespace freedml::dml
