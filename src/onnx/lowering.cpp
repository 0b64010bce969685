#include "lowering.h"

#include <algorithm>
#include <cstring>
#include <functional>
#include <numeric>
#include <optional>
#include <set>
#include <sstream>

#include <onnx/defs/schema.h>
#include <onnx/shape_inference/implementation.h>

#include "dml/schema/schema.h"

#include "context.h"

namespace freedml::onnx {

namespace {

constexpr size_t kMaxRank = 8;

std::vector<uint8_t> TensorBytes(const ::onnx::TensorProto& t, DML_TENSOR_DATA_TYPE type, uint64_t count,
                                 const std::string& what) {
    const uint32_t size = DataTypeSize(type);
    auto mismatch = [&](size_t have) {
        throw LoweringError(what + " holds " + std::to_string(have) + " values, but its shape " +
                            "has " + std::to_string(count) + " elements.");
    };
    // The values present are checked against the shape before anything is allocated: a shape may
    // claim more than the file holds.
    size_t have = 0;
    if (t.has_raw_data()) have = t.raw_data().size() / std::max<uint32_t>(size, 1);
    else if (t.data_type() == ::onnx::TensorProto::FLOAT) have = static_cast<size_t>(t.float_data_size());
    else if (t.data_type() == ::onnx::TensorProto::DOUBLE) have = static_cast<size_t>(t.double_data_size());
    else if (t.data_type() == ::onnx::TensorProto::INT64) have = static_cast<size_t>(t.int64_data_size());
    else if (t.data_type() == ::onnx::TensorProto::UINT32 || t.data_type() == ::onnx::TensorProto::UINT64) have = static_cast<size_t>(t.uint64_data_size());
    else have = static_cast<size_t>(t.int32_data_size());
    if (have != count || (t.has_raw_data() && t.raw_data().size() != count * size)) mismatch(have);
    std::vector<uint8_t> bytes(count * size);
    if (t.has_raw_data()) {
        if (!bytes.empty()) std::memcpy(bytes.data(), t.raw_data().data(), bytes.size());  // empty: data() may be null
        return bytes;
    }
    auto put = [&](size_t i, auto value) { std::memcpy(bytes.data() + i * size, &value, size); };
    switch (t.data_type()) {
        case ::onnx::TensorProto::FLOAT:
            if (static_cast<uint64_t>(t.float_data_size()) != count) mismatch(t.float_data_size());
            for (int i = 0; i < t.float_data_size(); ++i) put(i, t.float_data(i));
            break;
        case ::onnx::TensorProto::DOUBLE:
            if (static_cast<uint64_t>(t.double_data_size()) != count) mismatch(t.double_data_size());
            for (int i = 0; i < t.double_data_size(); ++i) put(i, t.double_data(i));
            break;
        case ::onnx::TensorProto::INT64:
            if (static_cast<uint64_t>(t.int64_data_size()) != count) mismatch(t.int64_data_size());
            for (int i = 0; i < t.int64_data_size(); ++i) put(i, t.int64_data(i));
            break;
        case ::onnx::TensorProto::UINT32:
        case ::onnx::TensorProto::UINT64:
            if (static_cast<uint64_t>(t.uint64_data_size()) != count) mismatch(t.uint64_data_size());
            for (int i = 0; i < t.uint64_data_size(); ++i) {
                if (size == 4) put(i, static_cast<uint32_t>(t.uint64_data(i)));
                else put(i, t.uint64_data(i));
            }
            break;
        default:  // INT32, INT16, INT8, UINT16, UINT8, BOOL, FLOAT16: int32_data, one value each
            if (static_cast<uint64_t>(t.int32_data_size()) != count) mismatch(t.int32_data_size());
            for (int i = 0; i < t.int32_data_size(); ++i) {
                const int32_t v = t.int32_data(i);
                std::memcpy(bytes.data() + i * size, &v, size);  // little-endian: the low bytes
            }
            break;
    }
    return bytes;
}

}  // namespace

DML_TENSOR_DATA_TYPE DmlType(int32_t onnxType) {
    switch (onnxType) {
        case ::onnx::TensorProto::FLOAT: return DML_TENSOR_DATA_TYPE_FLOAT32;
        case ::onnx::TensorProto::FLOAT16: return DML_TENSOR_DATA_TYPE_FLOAT16;
        case ::onnx::TensorProto::DOUBLE: return DML_TENSOR_DATA_TYPE_FLOAT64;
        case ::onnx::TensorProto::INT8: return DML_TENSOR_DATA_TYPE_INT8;
        case ::onnx::TensorProto::INT16: return DML_TENSOR_DATA_TYPE_INT16;
        case ::onnx::TensorProto::INT32: return DML_TENSOR_DATA_TYPE_INT32;
        case ::onnx::TensorProto::INT64: return DML_TENSOR_DATA_TYPE_INT64;
        case ::onnx::TensorProto::UINT8: return DML_TENSOR_DATA_TYPE_UINT8;
        case ::onnx::TensorProto::BOOL: return DML_TENSOR_DATA_TYPE_UINT8;
        case ::onnx::TensorProto::UINT16: return DML_TENSOR_DATA_TYPE_UINT16;
        case ::onnx::TensorProto::UINT32: return DML_TENSOR_DATA_TYPE_UINT32;
        case ::onnx::TensorProto::UINT64: return DML_TENSOR_DATA_TYPE_UINT64;
        default: return DML_TENSOR_DATA_TYPE_UNKNOWN;
    }
}

const char* DataTypeName(DML_TENSOR_DATA_TYPE type) {
    switch (type) {
        case DML_TENSOR_DATA_TYPE_FLOAT32: return "FLOAT32";
        case DML_TENSOR_DATA_TYPE_FLOAT16: return "FLOAT16";
        case DML_TENSOR_DATA_TYPE_FLOAT64: return "FLOAT64";
        case DML_TENSOR_DATA_TYPE_INT8: return "INT8";
        case DML_TENSOR_DATA_TYPE_INT16: return "INT16";
        case DML_TENSOR_DATA_TYPE_INT32: return "INT32";
        case DML_TENSOR_DATA_TYPE_INT64: return "INT64";
        case DML_TENSOR_DATA_TYPE_UINT8: return "UINT8";
        case DML_TENSOR_DATA_TYPE_UINT16: return "UINT16";
        case DML_TENSOR_DATA_TYPE_UINT32: return "UINT32";
        case DML_TENSOR_DATA_TYPE_UINT64: return "UINT64";
        default: return "UNKNOWN";
    }
}

uint32_t DataTypeSize(DML_TENSOR_DATA_TYPE type) {
    switch (type) {
        case DML_TENSOR_DATA_TYPE_FLOAT64:
        case DML_TENSOR_DATA_TYPE_INT64:
        case DML_TENSOR_DATA_TYPE_UINT64: return 8;
        case DML_TENSOR_DATA_TYPE_FLOAT32:
        case DML_TENSOR_DATA_TYPE_INT32:
        case DML_TENSOR_DATA_TYPE_UINT32: return 4;
        case DML_TENSOR_DATA_TYPE_FLOAT16:
        case DML_TENSOR_DATA_TYPE_INT16:
        case DML_TENSOR_DATA_TYPE_UINT16: return 2;
        case DML_TENSOR_DATA_TYPE_INT8:
        case DML_TENSOR_DATA_TYPE_UINT8: return 1;
        default: return 0;
    }
}

Shape PackedStrides(const Shape& shape) {
    Shape strides(shape.size(), 1);
    uint64_t stride = 1;
    for (size_t d = shape.size(); d-- > 0;) {
        strides[d] = static_cast<uint32_t>(stride);
        stride *= shape[d];
    }
    return strides;
}

uint64_t RoundUp4(uint64_t bytes) { return (bytes + 3) & ~uint64_t(3); }

std::string ShapeText(const Shape& shape) {
    std::string text = "{";
    for (size_t i = 0; i < shape.size(); ++i) text += (i ? "," : "") + std::to_string(shape[i]);
    return text + "}";
}

uint64_t Value::ElementCount() const {
    uint64_t n = 1;
    for (uint32_t d : shape) n *= d;
    return n;
}

bool Value::IsPacked() const {
    if (RoundUp4(ElementCount() * DataTypeSize(type)) != totalBytes) return false;
    Shape packed = PackedStrides(shape);
    for (size_t d = 0; d < shape.size(); ++d) {
        if (shape[d] != 1 && strides[d] != packed[d]) return false;
    }
    return true;
}

// ---------------------------------------------------------------------------------------------
// NodeContext

NodeContext::NodeContext(Lowerer& l, const ::onnx::NodeProto& n, int64_t o) : node(n), opset(o), lowerer(l) {}

std::string NodeContext::Origin() const {
    std::string made;  // the first output the node makes (a leading optional output may be left out)
    for (const auto& output : node.output()) {
        if (!output.empty()) {
            made = output;
            break;
        }
    }
    std::string name =
        node.name().empty() ? (!made.empty() ? "making '" + made + "'" : "(unnamed)") : "'" + node.name() + "'";
    return "node " + name + " (" + node.op_type() + ", opset " + std::to_string(opset) + ")";
}

void NodeContext::Fail(const std::string& why) const { throw LoweringError(Origin() + ": " + why); }

bool NodeContext::HasInput(size_t i) const { return i < InputCount() && !node.input(static_cast<int>(i)).empty(); }

const Value& NodeContext::Input(size_t i) {
    if (!HasInput(i)) Fail("input " + std::to_string(i) + " is required but absent.");
    auto it = lowerer.values.find(node.input(static_cast<int>(i)));
    if (it == lowerer.values.end()) Fail("input '" + node.input(static_cast<int>(i)) + "' is made by no earlier node.");
    return it->second;
}

Shape NodeContext::OutShape(size_t i) const {
    const std::string& name = node.output(static_cast<int>(i));
    auto it = lowerer.types.find(name);
    if (it == lowerer.types.end() || !it->second->has_tensor_type() || !it->second->tensor_type().has_shape()) {
        LoweringError error(Origin() + ": ONNX's shape inference found no shape for output '" + name +
                            "'; DirectML graphs need static shapes (set the model's symbolic dimensions with --dim).");
        error.shapeUnknown = true;
        throw error;
    }
    Shape shape;
    for (const auto& dim : it->second->tensor_type().shape().dim()) {
        if (!dim.has_dim_value()) {
            LoweringError error(Origin() + ": output '" + name + "' has a dimension " +
                                (dim.has_dim_param() ? "'" + dim.dim_param() + "' " : std::string()) +
                                "that shape inference could not make static (it depends on values computed at run time).");
            error.shapeUnknown = true;
            throw error;
        }
        if (dim.dim_value() < 0 || dim.dim_value() > UINT32_MAX) Fail("output '" + name + "' has a dimension out of range.");
        shape.push_back(static_cast<uint32_t>(dim.dim_value()));
    }
    if (shape.size() > kMaxRank) Fail("output '" + name + "' has " + std::to_string(shape.size()) + " dimensions; DirectML tensors have at most 8.");
    return shape;
}

int32_t NodeContext::OutOnnxType(size_t i) const {
    auto it = lowerer.types.find(node.output(static_cast<int>(i)));
    if (it == lowerer.types.end() || !it->second->has_tensor_type()) {
        Fail("shape inference found no type for output '" + node.output(static_cast<int>(i)) + "'.");
    }
    return it->second->tensor_type().elem_type();
}

DML_TENSOR_DATA_TYPE NodeContext::OutType(size_t i) const {
    int32_t onnxType = OutOnnxType(i);
    DML_TENSOR_DATA_TYPE type = DmlType(onnxType);
    if (type == DML_TENSOR_DATA_TYPE_UNKNOWN) {
        Fail("output '" + node.output(static_cast<int>(i)) + "' has the ONNX data type " +
             ::onnx::TensorProto::DataType_Name(static_cast<::onnx::TensorProto::DataType>(onnxType)) +
             ", which DirectML has no tensor type for.");
    }
    return type;
}

void NodeContext::SetOutput(size_t i, Value value) {
    if (!HasOutput(i)) return;
    lowerer.values[node.output(static_cast<int>(i))] = std::move(value);
}

const ::onnx::AttributeProto* FindAttr(const ::onnx::NodeProto& node, const char* name) {
    for (const auto& a : node.attribute()) {
        if (a.name() == name) return &a;
    }
    return nullptr;
}

bool NodeContext::Has(const char* name) const { return FindAttr(node, name) != nullptr; }
int64_t NodeContext::Int(const char* name, int64_t fallback) const {
    const auto* a = FindAttr(node, name);
    return a ? a->i() : fallback;
}
float NodeContext::Float(const char* name, float fallback) const {
    const auto* a = FindAttr(node, name);
    return a ? a->f() : fallback;
}
std::string NodeContext::String(const char* name, const std::string& fallback) const {
    const auto* a = FindAttr(node, name);
    return a ? a->s() : fallback;
}
std::vector<int64_t> NodeContext::Ints(const char* name) const {
    const auto* a = FindAttr(node, name);
    return a ? std::vector<int64_t>(a->ints().begin(), a->ints().end()) : std::vector<int64_t>{};
}
std::vector<float> NodeContext::Floats(const char* name) const {
    const auto* a = FindAttr(node, name);
    return a ? std::vector<float>(a->floats().begin(), a->floats().end()) : std::vector<float>{};
}
const ::onnx::TensorProto* NodeContext::TensorAttr(const char* name) const {
    const auto* a = FindAttr(node, name);
    return a && a->has_t() ? &a->t() : nullptr;
}

bool NodeContext::HasHost(size_t i) { return HasInput(i) && Input(i).host != nullptr; }

template <class T> static double Read(const uint8_t* p) {
    T v;
    std::memcpy(&v, p, sizeof(T));
    return static_cast<double>(v);
}

static double ReadElement(DML_TENSOR_DATA_TYPE type, const uint8_t* p) {
    switch (type) {
        case DML_TENSOR_DATA_TYPE_FLOAT32: return Read<float>(p);
        case DML_TENSOR_DATA_TYPE_FLOAT64: return Read<double>(p);
        case DML_TENSOR_DATA_TYPE_INT64: return Read<int64_t>(p);
        case DML_TENSOR_DATA_TYPE_INT32: return Read<int32_t>(p);
        case DML_TENSOR_DATA_TYPE_INT16: return Read<int16_t>(p);
        case DML_TENSOR_DATA_TYPE_INT8: return Read<int8_t>(p);
        case DML_TENSOR_DATA_TYPE_UINT64: return Read<uint64_t>(p);
        case DML_TENSOR_DATA_TYPE_UINT32: return Read<uint32_t>(p);
        case DML_TENSOR_DATA_TYPE_UINT16: return Read<uint16_t>(p);
        case DML_TENSOR_DATA_TYPE_UINT8: return Read<uint8_t>(p);
        default: return 0;
    }
}

// The first graph input (not an initializer, not given as a constant) that `name` is computed
// from, or "": with its values known when the graph is built, the computation may fold.
std::string NodeContext::UpstreamGraphInput(const std::string& name) const {
    const auto& g = lowerer.model.proto->graph();
    std::map<std::string, const ::onnx::NodeProto*> producer;
    for (const auto& n : g.node()) {
        for (const auto& output : n.output()) producer[output] = &n;
    }
    std::set<std::string> initializers, seen;
    for (const auto& init : g.initializer()) initializers.insert(init.name());
    std::vector<std::string> pending = {name};
    while (!pending.empty()) {
        std::string current = pending.back();
        pending.pop_back();
        if (current.empty() || !seen.insert(current).second) continue;
        auto it = producer.find(current);
        if (it == producer.end()) {
            const bool given = lowerer.constants && lowerer.constants->count(current);
            if (!initializers.count(current) && !given) {
                for (const auto& input : g.input()) {
                    if (input.name() == current) return current;
                }
            }
            continue;
        }
        for (const auto& input : it->second->input()) pending.push_back(input);
    }
    return "";
}

std::vector<double> NodeContext::HostFloats(size_t i) {
    const Value& v = Input(i);
    if (!v.host && v.source == Value::Source::GraphInput) {
        throw LoweringError(Origin() + ": input " + std::to_string(i) + " ('" + node.input(static_cast<int>(i)) +
                                "') is a graph input, but DirectML takes it as an attribute: its values must be known "
                                "when the graph is built (an initializer, a Constant or shape arithmetic).",
                            node.input(static_cast<int>(i)));
    }
    if (!v.host) {
        throw LoweringError(Origin() + ": input " + std::to_string(i) + " ('" + node.input(static_cast<int>(i)) +
                                "') is computed on the device, but DirectML takes it as an attribute: it must be an "
                                "initializer, a Constant or shape arithmetic.",
                            UpstreamGraphInput(node.input(static_cast<int>(i))));
    }
    if (v.type == DML_TENSOR_DATA_TYPE_FLOAT16) Fail("a FLOAT16 constant is not read while lowering yet.");
    std::vector<double> out;
    const uint32_t size = DataTypeSize(v.type);
    for (uint64_t e = 0; e < v.ElementCount(); ++e) out.push_back(ReadElement(v.type, v.host->data() + e * size));
    return out;
}

std::vector<int64_t> NodeContext::HostInts(size_t i) {
    std::vector<int64_t> out;
    const Value& v = Input(i);
    if (v.host && (v.type == DML_TENSOR_DATA_TYPE_INT64 || v.type == DML_TENSOR_DATA_TYPE_UINT64)) {
        out.resize(v.ElementCount());
        if (!out.empty()) std::memcpy(out.data(), v.host->data(), out.size() * 8);  // exact beyond 2^53
        return out;
    }
    for (double d : HostFloats(i)) out.push_back(static_cast<int64_t>(d));
    return out;
}

uint32_t NodeContext::NormalizeAxis(int64_t axis, size_t rank, const NodeContext* where) {
    int64_t r = static_cast<int64_t>(rank);
    if (axis < -r || axis >= r) {
        where->Fail("axis " + std::to_string(axis) + " is outside the " + std::to_string(rank) + " dimensions of its tensor.");
    }
    return static_cast<uint32_t>(axis < 0 ? axis + r : axis);
}

void NodeContext::Broadcast(const Value& v, const Shape& shape, Shape* sizes, Shape* strides) {
    if (v.shape.size() > shape.size()) Fail("cannot broadcast " + ShapeText(v.shape) + " to " + ShapeText(shape) + ".");
    const size_t lead = shape.size() - v.shape.size();
    sizes->assign(shape.begin(), shape.end());
    strides->assign(shape.size(), 0);
    for (size_t d = 0; d < v.shape.size(); ++d) {
        if (v.shape[d] == shape[lead + d]) {
            (*strides)[lead + d] = v.strides[d];
        } else if (v.shape[d] != 1) {
            Fail("cannot broadcast " + ShapeText(v.shape) + " to " + ShapeText(shape) + ".");
        }
    }
}

const DML_TENSOR_DESC* NodeContext::InDesc(const Value& v, const Shape& sizes, const Shape& strides) {
    if (sizes.size() > kMaxRank) Fail("a tensor needs " + std::to_string(sizes.size()) + " dimensions; DirectML has at most 8.");
    DML_BUFFER_TENSOR_DESC buffer{};
    buffer.DataType = v.type;
    buffer.Flags = DML_TENSOR_FLAG_NONE;
    buffer.DimensionCount = static_cast<UINT>(sizes.size());
    buffer.Sizes = Array(sizes);
    buffer.Strides = Array(strides);
    buffer.TotalTensorSizeInBytes = v.totalBytes;
    return Make(DML_TENSOR_DESC{DML_TENSOR_TYPE_BUFFER, Make(buffer)});
}

const DML_TENSOR_DESC* NodeContext::InDescRank(const Value& v, size_t rank) {
    rank = std::max(rank, v.shape.size());
    Shape sizes(rank - v.shape.size(), 1), strides(rank - v.shape.size(), 0);
    sizes.insert(sizes.end(), v.shape.begin(), v.shape.end());
    strides.insert(strides.end(), v.strides.begin(), v.strides.end());
    return InDesc(v, sizes, strides);
}

const DML_TENSOR_DESC* NodeContext::OutDesc(DML_TENSOR_DATA_TYPE type, const Shape& sizes) {
    if (sizes.size() > kMaxRank) Fail("a tensor needs " + std::to_string(sizes.size()) + " dimensions; DirectML has at most 8.");
    uint64_t count = 1;
    for (uint32_t s : sizes) count *= s;
    DML_BUFFER_TENSOR_DESC buffer{};
    buffer.DataType = type;
    buffer.DimensionCount = static_cast<UINT>(sizes.size());
    buffer.Sizes = Array(sizes);
    buffer.TotalTensorSizeInBytes = RoundUp4(count * DataTypeSize(type));
    return Make(DML_TENSOR_DESC{DML_TENSOR_TYPE_BUFFER, Make(buffer)});
}

uint32_t NodeContext::Emit(DML_OPERATOR_TYPE type, const void* desc, const std::vector<const Value*>& inputs,
                           const char* role) {
    auto& g = lowerer.graph;
    // Constants first, so that the operator's index is final.
    std::vector<uint32_t> constants(inputs.size(), 0);
    for (uint32_t k = 0; k < inputs.size(); ++k) {
        if (inputs[k] && inputs[k]->source == Value::Source::None) constants[k] = lowerer.ConstantNode(*inputs[k]);
    }
    const uint32_t index = static_cast<uint32_t>(g.nodes.size());
    for (uint32_t k = 0; k < inputs.size(); ++k) {
        const Value* v = inputs[k];
        if (!v) continue;
        switch (v->source) {
            case Value::Source::GraphInput:
                g.inputEdges.push_back({v->index, index, k, nullptr});
                break;
            case Value::Source::NodeOutput:
            case Value::Source::Constant:
                g.intermediateEdges.push_back({v->index, v->output, index, k, nullptr});
                break;
            case Value::Source::None:
                g.intermediateEdges.push_back({constants[k], 0, index, k, nullptr});
                break;
        }
    }
    GraphNode node;
    node.origin = Origin();
    node.name = (node.origin.size() > 5 ? node.origin.substr(5) : node.origin) + (role ? std::string(" ") + role : "");
    node.type = type;
    node.desc = desc;
    g.nodes.push_back(std::move(node));
    return index;
}

Value NodeContext::NodeOutput(uint32_t node, uint32_t output, DML_TENSOR_DATA_TYPE type, int32_t onnxType,
                              const Shape& shape) {
    Value v;
    v.source = Value::Source::NodeOutput;
    v.index = node;
    v.output = output;
    v.type = type;
    v.onnxType = onnxType;
    v.shape = shape;
    v.strides = PackedStrides(shape);
    v.totalBytes = RoundUp4(v.ElementCount() * DataTypeSize(type));
    return v;
}

void NodeContext::EmitSingle(DML_OPERATOR_TYPE type, const void* desc, const std::vector<const Value*>& inputs, size_t i) {
    uint32_t n = Emit(type, desc, inputs);
    SetOutput(i, NodeOutput(n, 0, OutType(i), OutOnnxType(i), OutShape(i)));
}

Value NodeContext::HostValue(DML_TENSOR_DATA_TYPE type, int32_t onnxType, const Shape& shape, std::vector<uint8_t> bytes) {
    Value v;
    v.type = type;
    v.onnxType = onnxType;
    v.shape = shape;
    v.strides = PackedStrides(shape);
    v.totalBytes = RoundUp4(bytes.size());
    v.host = std::make_shared<const std::vector<uint8_t>>(std::move(bytes));
    return v;
}

Value NodeContext::Packed(const Value& v) {
    if (v.source != Value::Source::None && v.IsPacked()) return v;
    if (v.source == Value::Source::None && v.host && v.IsPacked()) return v;
    if (v.host && v.ElementCount() <= (uint64_t(1) << 20)) {
        // A strided view of a small host value: gather it on the host (larger ones are copied by
        // an identity node reading the constant).
        const uint32_t size = DataTypeSize(v.type);
        std::vector<uint8_t> bytes(v.ElementCount() * size);
        Shape index(v.shape.size(), 0);
        for (uint64_t e = 0; e < v.ElementCount(); ++e) {
            uint64_t offset = 0;
            for (size_t d = 0; d < index.size(); ++d) offset += uint64_t(index[d]) * v.strides[d];
            std::memcpy(bytes.data() + e * size, v.host->data() + offset * size, size);
            for (size_t d = index.size(); d-- > 0;) {
                if (++index[d] < v.shape[d]) break;
                index[d] = 0;
            }
        }
        return HostValue(v.type, v.onnxType, v.shape, std::move(bytes));
    }
    const size_t rank = std::max<size_t>(4, v.shape.size());
    auto* desc = Make(DML_ELEMENT_WISE_IDENTITY_OPERATOR_DESC{});
    desc->InputTensor = InDescRank(v, rank);
    Shape sizes(rank - v.shape.size(), 1);
    sizes.insert(sizes.end(), v.shape.begin(), v.shape.end());
    desc->OutputTensor = OutDesc(v.type, sizes);
    uint32_t n = Emit(DML_OPERATOR_ELEMENT_WISE_IDENTITY, desc, {&v}, "(copy)");
    return NodeOutput(n, 0, v.type, v.onnxType, v.shape);
}

Value NodeContext::Reshaped(const Value& v, const Shape& shape) {
    Value p = Packed(v);
    uint64_t count = 1;
    for (uint32_t d : shape) count *= d;
    if (count != p.ElementCount()) {
        Fail("cannot reshape " + ShapeText(p.shape) + " (" + std::to_string(p.ElementCount()) + " elements) to " +
             ShapeText(shape) + ".");
    }
    p.shape = shape;
    p.strides = PackedStrides(shape);
    return p;
}

// ---------------------------------------------------------------------------------------------
// Lowerer

Lowerer::Lowerer(const LoadedModel& m, const std::map<std::string, TensorData>* c) : constants(c), model(m) {}

uint32_t Lowerer::ConstantNode(const Value& v) {
    auto cached = constantNodes.find({v.host.get(), v.totalBytes});
    if (cached != constantNodes.end()) return cached->second;
    GraphNode node;
    node.type = DML_OPERATOR_INVALID;
    node.constant = *v.host;
    node.constant.resize(v.totalBytes, 0);
    node.name = "constant " + std::string(DataTypeName(v.type)) + " " + ShapeText(v.shape);
    node.origin = node.name;
    graph.nodes.push_back(std::move(node));
    const uint32_t index = static_cast<uint32_t>(graph.nodes.size() - 1);
    constantNodes[{v.host.get(), v.totalBytes}] = index;
    return index;
}

// ONNX operators whose DirectML operators lack a data type ONNX allows for them: such a node runs
// in the nearest type DirectML has, between casts (FLOAT64 in FLOAT32, INT64 in INT32), and
// --dump-graph notes it.
static bool NarrowType(const std::string& op, int32_t onnxType, int32_t* narrowed) {
    static const std::set<std::string> noFloat64 = {
        "Add", "Sub", "Mul", "Div", "Sum", "Max", "Min", "Mod", "CumSum", "ReduceLogSumExp", "Einsum"};
    if (onnxType == ::onnx::TensorProto::DOUBLE && noFloat64.count(op)) {
        *narrowed = ::onnx::TensorProto::FLOAT;
        return true;
    }
    if (onnxType == ::onnx::TensorProto::INT64 && op == "Pow") {
        *narrowed = ::onnx::TensorProto::INT32;
        return true;
    }
    return false;
}

static Value CastValue(NodeContext& c, const Value& v, int32_t onnxType) {
    const DML_TENSOR_DATA_TYPE type = DmlType(onnxType);
    const size_t rank = std::max<size_t>(4, v.shape.size());
    Shape sizes(rank - v.shape.size(), 1);
    sizes.insert(sizes.end(), v.shape.begin(), v.shape.end());
    auto* d = c.Make(DML_CAST_OPERATOR_DESC{});
    d->InputTensor = c.InDescRank(v, rank);
    d->OutputTensor = c.OutDesc(type, sizes);
    const uint32_t node = c.Emit(DML_OPERATOR_CAST, d, {&v}, "(type)");
    return c.NodeOutput(node, 0, type, onnxType, v.shape);
}

// Lowers `context`'s node, through NarrowType's casts where it names the node's data type.
static void LowerNodeNarrowed(Lowerer& lowerer, NodeContext& context, const OpLowering& lower) {
    const auto& node = context.node;
    int32_t from = 0, to = 0;
    for (int i = 0; i < node.input_size() && !to; ++i) {
        auto it = lowerer.values.find(node.input(i));
        if (it != lowerer.values.end() && NarrowType(node.op_type(), it->second.onnxType, &to))
            from = it->second.onnxType;
    }
    if (!to) {
        lower(context);
        return;
    }
    const std::string suffix =
        std::string(" (as ") + ::onnx::TensorProto::DataType_Name(static_cast<::onnx::TensorProto::DataType>(to)) + ")";
    ::onnx::NodeProto inner = node;
    if (inner.name().empty() && node.output_size()) inner.set_name("making '" + node.output(0) + "'");
    for (int i = 0; i < node.input_size(); ++i) {
        if (node.input(i).empty() || context.Input(i).onnxType != from) continue;
        lowerer.values[node.input(i) + suffix] = CastValue(context, context.Input(i), to);
        inner.set_input(i, node.input(i) + suffix);
    }
    std::vector<int> narrowed;
    for (int i = 0; i < node.output_size(); ++i) {
        if (node.output(i).empty() || context.OutOnnxType(i) != from) continue;
        auto type = std::make_shared<::onnx::TypeProto>(*lowerer.types.at(node.output(i)));
        type->mutable_tensor_type()->set_elem_type(to);
        lowerer.types[node.output(i) + suffix] = lowerer.Keep(type);
        inner.set_output(i, node.output(i) + suffix);
        narrowed.push_back(i);
    }
    NodeContext innerContext(lowerer, inner, context.opset);
    lower(innerContext);
    for (int i : narrowed) {
        auto it = lowerer.values.find(inner.output(i));
        if (it == lowerer.values.end()) continue;
        context.SetOutput(static_cast<size_t>(i), CastValue(context, it->second, from));
    }
    lowerer.graph.notes.push_back(context.Origin() + ": computed in " +
                                  ::onnx::TensorProto::DataType_Name(static_cast<::onnx::TensorProto::DataType>(to)) +
                                  " (DirectML's operator has no " +
                                  ::onnx::TensorProto::DataType_Name(static_cast<::onnx::TensorProto::DataType>(from)) +
                                  ").");
}

static OpTable BuildTable() {
    OpTable table;
    RegisterNnOps(table);
    RegisterElementwiseOps(table);
    RegisterShapeOps(table);
    RegisterIndexingOps(table);
    return table;
}

static const OpTable& Table() {
    static const OpTable table = BuildTable();
    return table;
}

std::vector<std::string> SupportedOperators() {
    std::vector<std::string> names;
    for (const auto& [name, fn] : Table()) names.push_back(name);
    names.push_back("com.microsoft.MultiHeadAttention");  // lowered in fusion.cpp
    return names;
}

static Port MakePort(const std::string& name, const ::onnx::TypeProto& type, const std::string& what) {
    Port port;
    port.name = name;
    port.onnxType = type.tensor_type().elem_type();
    port.dataType = DmlType(port.onnxType);
    if (port.dataType == DML_TENSOR_DATA_TYPE_UNKNOWN) {
        throw LoweringError(what + " '" + name + "' has the ONNX data type " +
                            ::onnx::TensorProto::DataType_Name(static_cast<::onnx::TensorProto::DataType>(port.onnxType)) +
                            ", which DirectML has no tensor type for.");
    }
    for (const auto& dim : type.tensor_type().shape().dim()) {
        if (!dim.has_dim_value()) throw LoweringError(what + " '" + name + "' has a dimension that is not static.");
        port.shape.push_back(static_cast<uint32_t>(dim.dim_value()));
        port.elementCount *= static_cast<uint64_t>(dim.dim_value());
    }
    port.totalBytes = RoundUp4(port.elementCount * DataTypeSize(port.dataType));
    return port;
}

void Lowerer::LowerNode(const ::onnx::NodeProto& node) {
    int64_t opset = model.opset;
    for (const auto& import : model.proto->opset_import()) {
        const bool same = import.domain() == node.domain() || (node.domain().empty() && import.domain() == "ai.onnx") ||
                          (node.domain() == "ai.onnx" && import.domain().empty());
        if (same) opset = import.version();
    }
    NodeContext context(*this, node, opset);
    if (node.domain() == "com.microsoft" && node.op_type() == "MultiHeadAttention") {
        LowerContribMultiHeadAttention(context);
        return;
    }
    // Operators of other domains are in the table as "domain:Op" (the training optimizers).
    const bool standard = node.domain().empty() || node.domain() == "ai.onnx";
    auto it = Table().find(standard ? node.op_type() : node.domain() + ":" + node.op_type());
    if (!standard && it == Table().end()) {
        context.Fail("operators of the domain '" + node.domain() + "' have no DirectML lowering in FreeDML" +
                     (node.domain() == "ai.onnx.preview.training" ? " but Adam." : "."));
    }
    if (it == Table().end()) {
        context.Fail("FreeDML has no lowering for the ONNX operator " + node.op_type() +
                     " yet (dmlrun --list-onnx-operators lists those it has).");
    }
    LowerNodeNarrowed(*this, context, it->second);
    for (int i = 0; i < node.output_size(); ++i) {
        if (!node.output(i).empty() && !values.count(node.output(i))) {
            context.Fail("its output " + std::to_string(i) + " ('" + node.output(i) + "') is not supported.");
        }
    }
}

LoweredGraph Lowerer::Run() {
    const auto& g = model.proto->graph();
    for (const auto& info : g.input()) types[info.name()] = &info.type();
    for (const auto& info : g.value_info()) types[info.name()] = &info.type();
    for (const auto& info : g.output()) types[info.name()] = &info.type();

    for (const auto& init : g.initializer()) {
        Value v;
        v.onnxType = init.data_type();
        v.type = DmlType(v.onnxType);
        if (v.type == DML_TENSOR_DATA_TYPE_UNKNOWN) {
            throw LoweringError("initializer '" + init.name() + "' has the ONNX data type " +
                                ::onnx::TensorProto::DataType_Name(static_cast<::onnx::TensorProto::DataType>(v.onnxType)) +
                                ", which DirectML has no tensor type for.");
        }
        uint64_t elements = 1;
        for (int64_t d : init.dims()) {
            if (d < 0 || d > UINT32_MAX || (d && elements > (uint64_t(1) << 40) / static_cast<uint64_t>(d))) {
                throw LoweringError("initializer '" + init.name() + "' has a dimension out of range.");
            }
            elements *= static_cast<uint64_t>(d);
            v.shape.push_back(static_cast<uint32_t>(d));
        }
        v.strides = PackedStrides(v.shape);
        auto bytes = TensorBytes(init, v.type, v.ElementCount(), "initializer '" + init.name() + "'");
        v.totalBytes = RoundUp4(bytes.size());
        v.host = std::make_shared<const std::vector<uint8_t>>(std::move(bytes));
        values[init.name()] = v;
    }
    for (const auto& input : g.input()) {
        if (values.count(input.name())) continue;  // an initializer with a default value
        if (constants && constants->count(input.name())) {
            const TensorData& t = constants->at(input.name());
            Value v;
            v.type = t.dataType;
            v.onnxType = t.onnxType;
            v.shape = t.shape;
            v.strides = PackedStrides(v.shape);
            v.totalBytes = RoundUp4(t.bytes.size());
            v.host = std::make_shared<const std::vector<uint8_t>>(t.bytes);
            values[input.name()] = v;
            continue;
        }
        Port port = MakePort(input.name(), input.type(), "graph input");
        Value v;
        v.source = Value::Source::GraphInput;
        v.index = static_cast<uint32_t>(graph.inputs.size());
        v.type = port.dataType;
        v.onnxType = port.onnxType;
        v.shape = port.shape;
        v.strides = PackedStrides(v.shape);
        v.totalBytes = port.totalBytes;
        values[input.name()] = v;
        graph.inputs.push_back(std::move(port));
    }

    // A node whose output shape inference left unknown stops the lowering, but the nodes after it
    // are still lowered where they can be, so that every value computable while lowering is known
    // when LowerWithFolding folds them into constants (fewer rounds of folding and inference).
    std::optional<LoweringError> shapeError;
    // Fusable patterns (attention, layer normalization, GELU; fusion.cpp, fusion_chains.cpp): their
    // nodes wait for the last one, which lowers them together (or one by one where the fusion does
    // not apply). A node belongs to one pattern at most, the first found.
    struct Fusion {
        std::vector<int> nodes;
        const char* what;
        std::function<bool(std::string*)> lower;
    };
    std::map<int, Fusion> fusions;
    std::set<int> waiting, claimed;
    auto add = [&](int last, const std::vector<int>& nodes, const char* what, std::function<bool(std::string*)> fn) {
        for (int n : nodes) {
            if (claimed.count(n)) return;
        }
        claimed.insert(nodes.begin(), nodes.end());
        for (int n : nodes) {
            if (n != last) waiting.insert(n);
        }
        fusions[last] = {nodes, what, std::move(fn)};
    };
    // (Named copies, not structured bindings: C++17 lambdas cannot capture those.)
    for (const auto& found : FindAttentionPatterns(g)) {
        const AttentionPattern p = found.second;
        add(found.first, p.nodes, "attention", [this, p](std::string* why) { return LowerAttention(*this, p, why); });
    }
    for (const auto& found : FindLayerNormPatterns(g)) {
        const LayerNormPattern p = found.second;
        add(found.first, p.nodes, "layer normalization",
            [this, p](std::string* why) { return LowerLayerNorm(*this, p, why); });
    }
    for (const auto& found : FindGeluPatterns(g)) {
        const GeluPattern p = found.second;
        add(found.first, p.nodes, "GELU", [this, p](std::string* why) { return LowerGelu(*this, p, why); });
    }
    auto lower = [&](int i) {
        if (waiting.count(i)) return;
        auto it = fusions.find(i);
        std::string why;
        if (it == fusions.end()) {
            LowerNode(g.node(i));
        } else if (!it->second.lower(&why)) {
            std::vector<int> nodes = it->second.nodes;
            std::sort(nodes.begin(), nodes.end());
            for (int n : nodes) LowerNode(g.node(n));
            const auto& last = g.node(i);
            graph.notes.push_back(std::string(it->second.what) + " ending at node '" +
                                  (last.name().empty() ? last.output(0) : last.name()) + "' lowered node by node: " + why +
                                  ".");
        }
    };
    for (int i = 0; i < g.node_size(); ++i) {
        if (shapeError) {
            try {
                lower(i);
            } catch (const std::exception&) {  // the first shape error is the one reported
            }
            continue;
        }
        try {
            lower(i);
        } catch (const LoweringError& error) {
            if (!error.shapeUnknown) throw;
            shapeError = error;
        }
    }
    if (shapeError) throw *shapeError;

    ::onnx::NodeProto outputNode;
    outputNode.set_op_type("Identity");
    std::set<std::pair<uint32_t, uint32_t>> used;
    for (const auto& output : g.output()) {
        auto it = values.find(output.name());
        if (it == values.end()) throw LoweringError("graph output '" + output.name() + "' is made by no node.");
        outputNode.set_name("output '" + output.name() + "'");
        NodeContext context(*this, outputNode, model.opset);
        Port port = MakePort(output.name(), output.type(), "graph output");
        Value v = it->second;
        const bool reused = v.source == Value::Source::NodeOutput && used.count({v.index, v.output});
        if (v.source != Value::Source::NodeOutput || !v.IsPacked() || reused ||
            graph.nodes[v.index].type == DML_OPERATOR_INVALID) {
            // A graph output is an operator's output: copy views, inputs, constants and repeats.
            Value source = v;
            if (v.IsPacked() && v.source == Value::Source::NodeOutput) source.strides = PackedStrides(v.shape);
            const size_t rank = std::max<size_t>(4, v.shape.size());
            auto* desc = context.Make(DML_ELEMENT_WISE_IDENTITY_OPERATOR_DESC{});
            desc->InputTensor = context.InDescRank(source, rank);
            Shape sizes(rank - v.shape.size(), 1);
            sizes.insert(sizes.end(), v.shape.begin(), v.shape.end());
            desc->OutputTensor = context.OutDesc(v.type, sizes);
            uint32_t n = context.Emit(DML_OPERATOR_ELEMENT_WISE_IDENTITY, desc, {&source});
            v = context.NodeOutput(n, 0, v.type, v.onnxType, v.shape);
        }
        used.insert({v.index, v.output});
        if (port.totalBytes != v.totalBytes) {
            throw LoweringError("graph output '" + output.name() + "' has " + ShapeText(port.shape) +
                                " in the model but the lowering made " + ShapeText(v.shape) + ".");
        }
        graph.outputEdges.push_back({v.index, v.output, static_cast<uint32_t>(graph.outputs.size()), nullptr});
        graph.outputs.push_back(std::move(port));
    }
    return std::move(graph);
}

// Lowers; when a shape is not static because shape inference could not follow values computed
// while lowering (Range of a folded sequence length, ...), the nodes whose outputs were all computed
// become Constant nodes in a copy of the model, shape inference runs again, and lowering restarts.
static LoweredGraph LowerWithFolding(const LoadedModel& model, const std::map<std::string, TensorData>* constants) {
    LoadedModel current = model;
    bool owned = false;  // current.proto is this function's copy, changed in place from round to round
    for (int round = 0;; ++round) {
        Lowerer lowerer(current, constants);
        try {
            return lowerer.Run();
        } catch (const LoweringError& error) {
            // Each round folds at least one node (or stops); a model with many layers may need a
            // round per layer where each layer's shapes hang on the previous one's.
            if (!error.shapeUnknown || round == 64) throw;
            // The model is copied once (its weights included), then changed in place.
            auto folded = owned ? current.proto : std::make_shared<::onnx::ModelProto>(*current.proto);
            auto* graph = folded->mutable_graph();
            ::onnx::GraphProto rebuilt;
            bool changed = false;
            for (const auto& node : graph->node()) {
                bool allHost = node.op_type() != "Constant" && node.output_size() > 0;
                for (const auto& output : node.output()) {
                    auto it = lowerer.values.find(output);
                    allHost = allHost && it != lowerer.values.end() && it->second.host &&
                              it->second.source == Value::Source::None && it->second.ElementCount() <= 4096;
                }
                if (!allHost) {
                    *rebuilt.add_node() = node;
                    continue;
                }
                changed = true;
                for (const auto& output : node.output()) {
                    ::onnx::NodeProto constant;
                    ::onnx::NodeProto dummy;
                    NodeContext context(lowerer, dummy, current.opset);
                    Value packed = context.Packed(lowerer.values[output]);
                    constant.set_op_type("Constant");
                    constant.set_name(node.name().empty() ? output + "_folded" : node.name() + "_folded");
                    constant.add_output(output);
                    auto* attr = constant.add_attribute();
                    attr->set_name("value");
                    attr->set_type(::onnx::AttributeProto::TENSOR);
                    auto* t = attr->mutable_t();
                    t->set_data_type(packed.onnxType);
                    for (uint32_t d : packed.shape) t->add_dims(d);
                    t->set_raw_data(std::string(packed.host->begin(),
                                                packed.host->begin() + packed.ElementCount() * DataTypeSize(packed.type)));
                    *rebuilt.add_node() = constant;
                }
            }
            // Outputs the lowering computed a shape for where shape inference has none (operators it
            // does not know, such as com.microsoft ones) are declared, so that it can go on after them.
            std::vector<::onnx::ValueInfoProto> declared;
            for (const auto& [name, value] : lowerer.values) {
                if (value.source != Value::Source::NodeOutput) continue;
                auto known = lowerer.types.find(name);
                if (known != lowerer.types.end() && known->second->has_tensor_type() &&
                    known->second->tensor_type().has_shape()) {
                    continue;
                }
                ::onnx::ValueInfoProto info;
                info.set_name(name);
                auto* tensor = info.mutable_type()->mutable_tensor_type();
                tensor->set_elem_type(value.onnxType);
                for (uint32_t d : value.shape) tensor->mutable_shape()->add_dim()->set_dim_value(d);
                declared.push_back(std::move(info));
                changed = true;
            }
            graph->clear_node();
            for (const auto& node : rebuilt.node()) *graph->add_node() = node;
            graph->clear_value_info();  // inferred again from the constants
            for (auto& info : declared) *graph->add_value_info() = std::move(info);
            if (!changed) throw;
            try {
                ::onnx::ShapeInferenceOptions inference(/*check_type=*/true, /*error_mode=*/1, /*data_prop=*/true);
                ::onnx::shape_inference::InferShapes(*folded, ::onnx::OpSchemaRegistry::Instance(), inference);
            } catch (const std::exception&) {
                throw error;
            }
            current.proto = folded;
            owned = true;
        }
    }
}

LoweredGraph Lower(const LoadedModel& model) { return LowerWithFolding(model, nullptr); }
LoweredGraph Lower(const LoadedModel& model, const std::map<std::string, TensorData>& constants) {
    return LowerWithFolding(model, &constants);
}

TensorData ParseTensor(const uint8_t* data, size_t size) {
    ::onnx::TensorProto proto;
    if (size > static_cast<size_t>(INT32_MAX) || !proto.ParseFromArray(data, static_cast<int>(size))) {
        throw LoweringError("protobuf cannot parse the bytes as an ONNX TensorProto.");
    }
    TensorData t;
    t.name = proto.name();
    t.onnxType = proto.data_type();
    t.dataType = DmlType(t.onnxType);
    if (t.dataType == DML_TENSOR_DATA_TYPE_UNKNOWN) {
        throw LoweringError("the tensor has the ONNX data type " +
                            ::onnx::TensorProto::DataType_Name(static_cast<::onnx::TensorProto::DataType>(t.onnxType)) +
                            ", which DirectML has no tensor type for.");
    }
    uint64_t count = 1;
    for (int64_t d : proto.dims()) {
        if (d < 0 || d > UINT32_MAX || (d && count > (uint64_t(1) << 40) / static_cast<uint64_t>(d))) {
            throw LoweringError("the tensor has a dimension out of range.");
        }
        t.shape.push_back(static_cast<uint32_t>(d));
        count *= static_cast<uint64_t>(d);
    }
    t.bytes = TensorBytes(proto, t.dataType, count, "tensor '" + t.name + "'");
    return t;
}

std::string LoweredGraph::Dump() const {
    std::ostringstream out;
    size_t constants = 0;
    for (const auto& n : nodes) constants += n.type == DML_OPERATOR_INVALID;
    out << "DirectML graph: " << inputs.size() << " inputs, " << outputs.size() << " outputs, " << nodes.size()
        << " nodes (" << constants << " constants), "
        << inputEdges.size() + intermediateEdges.size() + outputEdges.size() << " edges\n";
    for (size_t i = 0; i < inputs.size(); ++i) {
        out << "  input " << i << " '" << inputs[i].name << "': " << DataTypeName(inputs[i].dataType) << " "
            << ShapeText(inputs[i].shape) << "\n";
    }
    for (size_t i = 0; i < outputs.size(); ++i) {
        out << "  output " << i << " '" << outputs[i].name << "': " << DataTypeName(outputs[i].dataType) << " "
            << ShapeText(outputs[i].shape) << "\n";
    }
    for (size_t i = 0; i < nodes.size(); ++i) {
        const auto& n = nodes[i];
        if (n.type == DML_OPERATOR_INVALID) {
            out << "  node " << i << ": " << n.name << " (" << n.constant.size() << " bytes)\n";
        } else {
            out << "  node " << i << ": DML_OPERATOR_" << freedml::dml::OperatorTypeName(n.type) << " <- " << n.name << "\n";
        }
    }
    for (const auto& e : inputEdges) {
        out << "  edge: input " << e.GraphInputIndex << " -> node " << e.ToNodeIndex << " input " << e.ToNodeInputIndex << "\n";
    }
    for (const auto& e : intermediateEdges) {
        out << "  edge: node " << e.FromNodeIndex << " output " << e.FromNodeOutputIndex << " -> node " << e.ToNodeIndex
            << " input " << e.ToNodeInputIndex << "\n";
    }
    for (const auto& e : outputEdges) {
        out << "  edge: node " << e.FromNodeIndex << " output " << e.FromNodeOutputIndex << " -> output "
            << e.GraphOutputIndex << "\n";
    }
    for (const auto& note : notes) out << "  note: " << note << "\n";
    return out.str();
}

}  // namespace freedml::onnx
