// What an operator's lowering function works with (internal to the lowering).
#pragma once

#include <DirectML.h>
#include <onnx/onnx_pb.h>

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "lowering.h"

namespace freedml::onnx {

using Shape = std::vector<uint32_t>;

// One ONNX tensor as the graph sees it: where its bytes come from (a graph input, a node output
// or a constant) and the sizes and element strides that read them. Views (Reshape, Transpose,
// Expand) share their source with different sizes and strides.
struct Value {
    enum class Source { None, GraphInput, NodeOutput, Constant };
    Source source = Source::None;
    uint32_t index = 0;   // graph input index, or node index
    uint32_t output = 0;  // the node's output index
    DML_TENSOR_DATA_TYPE type = DML_TENSOR_DATA_TYPE_UNKNOWN;
    int32_t onnxType = 0;
    Shape shape;
    Shape strides;             // in elements; packed for a fresh node output
    uint64_t totalBytes = 0;   // the source buffer's TotalTensorSizeInBytes
    // The packed bytes, when known while lowering (initializers, Constant, shape arithmetic).
    std::shared_ptr<const std::vector<uint8_t>> host;
    bool IsPacked() const;
    uint64_t ElementCount() const;
};

Shape PackedStrides(const Shape& shape);
uint64_t RoundUp4(uint64_t bytes);
std::string ShapeText(const Shape& shape);
// The attribute `name` of `node`, or null where the node has none.
const ::onnx::AttributeProto* FindAttr(const ::onnx::NodeProto& node, const char* name);

class Lowerer;

class NodeContext {
public:
    NodeContext(Lowerer& lowerer, const ::onnx::NodeProto& node, int64_t opset);

    const ::onnx::NodeProto& node;
    const int64_t opset;

    size_t InputCount() const { return static_cast<size_t>(node.input_size()); }
    bool HasInput(size_t i) const;
    const Value& Input(size_t i);  // fails when absent
    size_t OutputCount() const { return static_cast<size_t>(node.output_size()); }
    bool HasOutput(size_t i) const { return i < OutputCount() && !node.output(static_cast<int>(i)).empty(); }
    Shape OutShape(size_t i) const;  // from shape inference; fails when not static
    DML_TENSOR_DATA_TYPE OutType(size_t i) const;
    int32_t OutOnnxType(size_t i) const;
    void SetOutput(size_t i, Value value);

    // Attributes.
    bool Has(const char* name) const;
    int64_t Int(const char* name, int64_t fallback) const;
    float Float(const char* name, float fallback) const;
    std::string String(const char* name, const std::string& fallback) const;
    std::vector<int64_t> Ints(const char* name) const;
    std::vector<float> Floats(const char* name) const;
    const ::onnx::TensorProto* TensorAttr(const char* name) const;

    // A constant input's values (initializer, Constant, folded shape arithmetic); fails with the
    // reason when the input is computed on the device.
    std::vector<int64_t> HostInts(size_t i);
    std::vector<double> HostFloats(size_t i);
    bool HasHost(size_t i);

    // Views.
    static uint32_t NormalizeAxis(int64_t axis, size_t rank, const NodeContext* where);
    // Sizes and strides reading `v` as `shape` (right-aligned; dimensions of 1 broadcast).
    void Broadcast(const Value& v, const Shape& shape, Shape* sizes, Shape* strides);
    Value Packed(const Value& v);               // materialized with an identity node when strided
    Value Reshaped(const Value& v, const Shape& shape);  // same bytes, new shape

    // Descs.
    const DML_TENSOR_DESC* InDesc(const Value& v, const Shape& sizes, const Shape& strides);
    const DML_TENSOR_DESC* InDescRank(const Value& v, size_t rank);  // leading 1s up to rank
    const DML_TENSOR_DESC* OutDesc(DML_TENSOR_DATA_TYPE type, const Shape& sizes);
    template <class T> T* Make(const T& value);
    template <class T> const T* Array(const std::vector<T>& values);
    template <class T> const T* ArrayOrNull(const std::vector<T>& values) { return values.empty() ? nullptr : Array(values); }

    // Adds a DirectML operator node; inputs[k] feeds the operator's k-th input tensor (null for an
    // absent optional one). Returns the node index.
    uint32_t Emit(DML_OPERATOR_TYPE type, const void* desc, const std::vector<const Value*>& inputs,
                  const char* role = nullptr);
    // The output value of node `node`, slot `output`, with `shape` (its ONNX shape; the DML sizes
    // may add leading 1s).
    Value NodeOutput(uint32_t node, uint32_t output, DML_TENSOR_DATA_TYPE type, int32_t onnxType, const Shape& shape);
    // Shortcut: one-output node whose output is ONNX output `i`.
    void EmitSingle(DML_OPERATOR_TYPE type, const void* desc, const std::vector<const Value*>& inputs, size_t i = 0);

    // A host value (for shape arithmetic) as a Value.
    Value HostValue(DML_TENSOR_DATA_TYPE type, int32_t onnxType, const Shape& shape, std::vector<uint8_t> bytes);

    [[noreturn]] void Fail(const std::string& why) const;
    std::string UpstreamGraphInput(const std::string& name) const;
    std::string Origin() const;

    Lowerer& lowerer;
};

using OpLowering = std::function<void(NodeContext&)>;
using OpTable = std::map<std::string, OpLowering>;

void RegisterNnOps(OpTable& table);
void RegisterElementwiseOps(OpTable& table);
void RegisterShapeOps(OpTable& table);
void RegisterIndexingOps(OpTable& table);

// Attention written out node by node (fusion.cpp): the nodes from MatMul(Q, K^T) to MatMul(., V),
// lowered as one MULTIHEAD_ATTENTION where LowerAttention can prove it the same.
struct AttentionPattern {
    std::vector<int> nodes;  // graph node indices in order; the last is MatMul(., V)
    int softmaxNode = -1;
    std::string query, keyTransposed, value;  // {B,H,S,D}, {B,H,D,T}, {B,H,T,Dv}
    std::string scale;                        // empty: no scaling
    bool scaleDivides = false;
    enum class Mask { None, Additive, Select } mask = Mask::None;
    std::string maskInput, fill;  // Additive: the added tensor; Select: Where's condition and fill
    bool keepWhereTrue = true;
};
std::map<int, AttentionPattern> FindAttentionPatterns(const ::onnx::GraphProto& graph);
// Emits the fused node and sets the last MatMul's output; false (with the reason, nothing emitted)
// where the pattern must be lowered node by node.
bool LowerAttention(Lowerer& lowerer, const AttentionPattern& pattern, std::string* why);
void LowerContribMultiHeadAttention(NodeContext& c);

// LayerNorm and the erf GELU written out node by node (fusion_chains.cpp), each lowered as one
// operator where the lowering can prove it the same.
struct LayerNormPattern {
    std::vector<int> nodes;     // graph node indices in the chain's order; the last makes the result
    int reduceMean[2] = {-1, -1};
    std::string input, exponent, epsilon;  // exponent empty: the square is Mul(d, d)
    std::string scale, bias;               // empty where absent
};
std::map<int, LayerNormPattern> FindLayerNormPatterns(const ::onnx::GraphProto& graph);
bool LowerLayerNorm(Lowerer& lowerer, const LayerNormPattern& pattern, std::string* why);
struct GeluPattern {
    std::vector<int> nodes;  // ascending; the last makes the result
    std::string input, divisor, multiplier, one, half;  // one of divisor (sqrt 2) and multiplier (1 / sqrt 2)
};
std::map<int, GeluPattern> FindGeluPatterns(const ::onnx::GraphProto& graph);
bool LowerGelu(Lowerer& lowerer, const GeluPattern& pattern, std::string* why);
// The value of a scalar known while lowering or computed from such by scalar arithmetic, in
// double; false where it is not one (fusion.cpp).
bool ScalarOf(Lowerer& lowerer, const std::map<std::string, int>& producers, const std::string& name, int depth,
              double* out);

// Tensor element type mapping.
DML_TENSOR_DATA_TYPE DmlType(int32_t onnxType);

class Lowerer {
public:
    Lowerer(const LoadedModel& model, const std::map<std::string, TensorData>* constants);
    const std::map<std::string, TensorData>* constants;
    LoweredGraph Run();
    void LowerNode(const ::onnx::NodeProto& node);

    LoweredGraph graph;
    std::map<std::string, Value> values;
    std::map<std::string, const ::onnx::TypeProto*> types;  // every value info, by name
    // The lowered value named `name`, or null where none is (yet).
    const Value* Lowered(const std::string& name) const {
        auto it = values.find(name);
        return it == values.end() ? nullptr : &it->second;
    }
    const LoadedModel& model;

    template <class T> T* Keep(std::shared_ptr<T> p) {
        graph.storage.push_back(p);
        return p.get();
    }
    uint32_t ConstantNode(const Value& v);  // materializes a host value as a constant node (once)
    // SPLIT nodes by node index: the value split and the (ONNX) axis, for attention reading Q, K
    // and V stacked in place of the split's outputs (fusion.cpp).
    struct SplitOrigin {
        Value input;
        uint32_t axis = 0;
    };
    std::map<uint32_t, SplitOrigin> splits;
    std::map<std::pair<const void*, uint64_t>, uint32_t> constantNodes;  // materializes a host value as a constant node
};

template <class T> T* NodeContext::Make(const T& value) { return lowerer.Keep(std::make_shared<T>(value)); }
template <class T> const T* NodeContext::Array(const std::vector<T>& values) {
    return lowerer.Keep(std::make_shared<std::vector<T>>(values))->data();
}

}  // namespace freedml::onnx
