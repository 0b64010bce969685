// DxDispatch's "dmlSerializedGraph" dispatchables: a DirectML graph in the binary form DirectML's
// graph serialization writes (a FlatBuffers buffer whose root is a DmlGraphDesc table).
//
// The layout, as this reader understands it (table fields by vtable slot, from 0):
//   DmlGraphDesc        0 nodes [DmlGraphNode], 1 graphInputNames [string], 2 graphOutputNames [string]
//   DmlGraphNode        0 desc type (u8: 1 operator, 2 constant), 1 desc, 2 name, 3 inputNames, 4 outputNames
//   OperatorNodeDesc    0 type ("DML_OPERATOR_GEMM"), 1 inputs [DmlBufferTensorDesc], 2 outputs, 3 attributes
//   DmlBufferTensorDesc 0 dataType ("DML_TENSOR_DATA_TYPE_FLOAT32"), 1 sizes [u32], 2 strides [u32], 3 total bytes (u64)
//   ConstantNodeDesc    0 data type (u8: 1 a name, 2 raw data), 1 data: ConstantName {0 name} or ConstantRawData {0 [u8]}
//   AttributeDesc       0 name, 1 value type (u8), 2 value: UInt32, UInt64, Int32, Float32, Bool, ScaleBias,
//                       Size2D (width, height) structs; UIntArray, IntArray, FloatArray {0 data}; Activation
//                       {0 type, 1 attributes}; ActivationArray {0 [Activation]}; ScalarUnionData {0 u8, 1 value}
// Edges are implied by names: a node input names a graph input or an earlier node's output; a node
// output that bears a graph output's name fills it. An empty name is an absent optional tensor.
// Tensor inputs and outputs are listed in the order of the operator's tensor fields, attributes in
// the order of its other fields (a name, when given, must be the field's). A named constant's bytes
// are read from NAME.bin beside the graph file.
//
// The graph becomes dmlrun's own graph form (graph_model.h), which BuildGraph then checks and builds.
#pragma once

#include <cstdint>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <vector>

#include "json_document.h"

namespace dmlrun {

// Why a serialized graph was refused: a sentence naming what was wrong and where (a byte offset,
// a node).
class SerializedGraphError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// `bytes` is the file's content; named constants are read from `constantDirectory`. Throws
// SerializedGraphError for a damaged or unsupported file.
Json ReadSerializedGraph(const std::vector<uint8_t>& bytes, const std::filesystem::path& constantDirectory);

}  // namespace dmlrun
