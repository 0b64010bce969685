// Element-wise ONNX operators: unary math, activations, binary arithmetic and comparisons with
// broadcasting (as zero strides), Clip, Where, Cast.
#include <algorithm>
#include <cmath>
#include <cstring>

#include "context.h"

namespace freedml::onnx {

namespace {

Shape Lead(const Shape& shape, size_t rank) {
    Shape out(rank > shape.size() ? rank - shape.size() : 0, 1);
    out.insert(out.end(), shape.begin(), shape.end());
    return out;
}

// The layout every unary element-wise desc starts with; activations with parameters append FLOATs.
struct UnaryDesc {
    const DML_TENSOR_DESC* input;
    const DML_TENSOR_DESC* output;
    const void* scaleBiasOrNothing;
};
struct ActivationDesc {
    const DML_TENSOR_DESC* input;
    const DML_TENSOR_DESC* output;
    FLOAT a, b;
};
static_assert(sizeof(UnaryDesc) == sizeof(DML_ELEMENT_WISE_IDENTITY_OPERATOR_DESC));
static_assert(offsetof(ActivationDesc, a) == offsetof(DML_ACTIVATION_LINEAR_OPERATOR_DESC, Alpha));
static_assert(offsetof(ActivationDesc, b) == offsetof(DML_ACTIVATION_LINEAR_OPERATOR_DESC, Beta));

void Unary(NodeContext& c, DML_OPERATOR_TYPE type) {
    const Value& x = c.Input(0);
    // Shape arithmetic (a negated axis count) on values known while lowering.
    if (x.host && x.type == DML_TENSOR_DATA_TYPE_INT64 && x.ElementCount() <= 4096 &&
        (type == DML_OPERATOR_ELEMENT_WISE_NEGATE || type == DML_OPERATOR_ELEMENT_WISE_ABS)) {
        std::vector<int64_t> v = c.HostInts(0);
        for (auto& e : v) e = type == DML_OPERATOR_ELEMENT_WISE_NEGATE ? -e : (e < 0 ? -e : e);
        std::vector<uint8_t> bytes(v.size() * 8);
        if (!v.empty()) std::memcpy(bytes.data(), v.data(), bytes.size());
        c.SetOutput(0, c.HostValue(x.type, x.onnxType, x.shape, std::move(bytes)));
        return;
    }
    Shape out = c.OutShape(0);
    const size_t rank = std::max<size_t>(4, out.size());
    auto* d = c.Make(UnaryDesc{});
    d->input = c.InDescRank(x, rank);
    d->output = c.OutDesc(c.OutType(0), Lead(out, rank));
    c.EmitSingle(type, d, {&x});
}

void Activation(NodeContext& c, DML_OPERATOR_TYPE type, float a, float b) {
    const Value& x = c.Input(0);
    Shape out = c.OutShape(0);
    const size_t rank = std::max<size_t>(4, out.size());
    auto* d = c.Make(ActivationDesc{});
    d->input = c.InDescRank(x, rank);
    d->output = c.OutDesc(c.OutType(0), Lead(out, rank));
    d->a = a;
    d->b = b;
    c.EmitSingle(type, d, {&x});
}

// Integer shape arithmetic on values known while lowering (Shape -> Gather -> Mul -> Reshape).
bool HostBinary(NodeContext& c, const std::string& op) {
    if (!c.HasHost(0) || !c.HasHost(1)) return false;
    const DML_TENSOR_DATA_TYPE type = c.OutType(0);
    if (type != DML_TENSOR_DATA_TYPE_INT64 && type != DML_TENSOR_DATA_TYPE_INT32) return false;
    Shape out = c.OutShape(0);
    uint64_t count = 1;
    for (uint32_t d : out) count *= d;
    if (count > 4096) return false;
    Value a = c.Input(0), b = c.Input(1);
    std::vector<int64_t> av = c.HostInts(0), bv = c.HostInts(1);
    Shape sa, ta, sb, tb;
    c.Broadcast(a, out, &sa, &ta);
    c.Broadcast(b, out, &sb, &tb);
    std::vector<int64_t> result(count);
    Shape index(out.size(), 0);
    for (uint64_t e = 0; e < count; ++e) {
        uint64_t oa = 0, ob = 0;
        for (size_t d = 0; d < out.size(); ++d) {
            oa += uint64_t(index[d]) * ta[d];
            ob += uint64_t(index[d]) * tb[d];
        }
        const int64_t x = av[oa], y = bv[ob];
        int64_t r = 0;
        if (op == "Add") r = x + y;
        else if (op == "Sub") r = x - y;
        else if (op == "Mul") r = x * y;
        else if (op == "Div") {
            if (y == 0) c.Fail("divides by zero in shape arithmetic.");
            r = x / y;
        } else return false;
        result[e] = r;
        for (size_t d = out.size(); d-- > 0;) {
            if (++index[d] < out[d]) break;
            index[d] = 0;
        }
    }
    std::vector<uint8_t> bytes(count * DataTypeSize(type));
    for (uint64_t e = 0; e < count; ++e) {
        if (type == DML_TENSOR_DATA_TYPE_INT64) std::memcpy(bytes.data() + e * 8, &result[e], 8);
        else {
            int32_t v = static_cast<int32_t>(result[e]);
            std::memcpy(bytes.data() + e * 4, &v, 4);
        }
    }
    c.SetOutput(0, c.HostValue(type, c.OutOnnxType(0), out, std::move(bytes)));
    return true;
}

// Binary element-wise with ONNX (numpy) broadcasting; variadic ops (Sum, Max, Min, Mean) chain.
void Binary(NodeContext& c, DML_OPERATOR_TYPE type) {
    if (HostBinary(c, c.node.op_type())) return;
    Shape out = c.OutShape(0);
    const size_t rank = std::max<size_t>(4, out.size());
    const Shape outR = Lead(out, rank);
    Value acc = c.Input(0);
    if (c.InputCount() == 1) {  // Sum/Max/Min/Mean of one input: a copy
        acc = c.Packed(acc);
        c.SetOutput(0, acc);
        return;
    }
    for (size_t i = 1; i < c.InputCount(); ++i) {
        const Value& b = c.Input(i);
        Shape sa, ta, sb, tb;
        c.Broadcast(acc, outR, &sa, &ta);
        c.Broadcast(b, outR, &sb, &tb);
        auto* d = c.Make(DML_ELEMENT_WISE_ADD_OPERATOR_DESC{});
        d->ATensor = c.InDesc(acc, sa, ta);
        d->BTensor = c.InDesc(b, sb, tb);
        d->OutputTensor = c.OutDesc(c.OutType(0), outR);
        uint32_t n = c.Emit(type, d, {&acc, &b});
        acc = c.NodeOutput(n, 0, c.OutType(0), c.OutOnnxType(0), out);
    }
    c.SetOutput(0, acc);
}

void Pow(NodeContext& c) {
    Shape out = c.OutShape(0);
    const size_t rank = std::max<size_t>(4, out.size());
    const Shape outR = Lead(out, rank);
    const Value& a = c.Input(0);
    Value b = c.Input(1);
    const bool floatBase = a.type == DML_TENSOR_DATA_TYPE_FLOAT32 || a.type == DML_TENSOR_DATA_TYPE_FLOAT16;
    if (floatBase && c.HasHost(1)) {
        // A constant exponent of 2 (LayerNorm's variance as exported) or 3 (GPT-2's tanh GELU):
        // x * x (* x), as ONNX Runtime computes them; the multiplies join the element-wise trees
        // the optimizer fuses, where POW would call pow() per element.
        const std::vector<double> exponent = c.HostFloats(1);
        for (const double power : {2.0, 3.0}) {
            if (exponent.empty() || !std::all_of(exponent.begin(), exponent.end(), [&](double e) { return e == power; }))
                continue;
            Shape sa, ta;
            c.Broadcast(a, outR, &sa, &ta);
            auto* square = c.Make(DML_ELEMENT_WISE_MULTIPLY_OPERATOR_DESC{});
            square->ATensor = c.InDesc(a, sa, ta);
            square->BTensor = c.InDesc(a, sa, ta);
            square->OutputTensor = c.OutDesc(c.OutType(0), outR);
            if (power == 2.0) {
                c.EmitSingle(DML_OPERATOR_ELEMENT_WISE_MULTIPLY, square, {&a, &a});
                return;
            }
            const uint32_t n = c.Emit(DML_OPERATOR_ELEMENT_WISE_MULTIPLY, square, {&a, &a}, "(square)");
            const Value squared = c.NodeOutput(n, 0, c.OutType(0), c.OutOnnxType(0), out);
            auto* cube = c.Make(DML_ELEMENT_WISE_MULTIPLY_OPERATOR_DESC{});
            cube->ATensor = c.InDescRank(squared, rank);
            cube->BTensor = c.InDesc(a, sa, ta);
            cube->OutputTensor = c.OutDesc(c.OutType(0), outR);
            c.EmitSingle(DML_OPERATOR_ELEMENT_WISE_MULTIPLY, cube, {&squared, &a});
            return;
        }
    }
    if (b.type != a.type) {
        // DirectML's POW takes one data type: the exponent is cast to the base's first.
        const size_t r = std::max<size_t>(4, b.shape.size());
        auto* cast = c.Make(DML_CAST_OPERATOR_DESC{});
        cast->InputTensor = c.InDescRank(b, r);
        cast->OutputTensor = c.OutDesc(a.type, Lead(b.shape, r));
        uint32_t n = c.Emit(DML_OPERATOR_CAST, cast, {&b}, "(exponent)");
        b = c.NodeOutput(n, 0, a.type, a.onnxType, b.shape);
    }
    Shape sa, ta, sb, tb;
    c.Broadcast(a, outR, &sa, &ta);
    c.Broadcast(b, outR, &sb, &tb);
    auto* d = c.Make(DML_ELEMENT_WISE_POW_OPERATOR_DESC{});
    d->InputTensor = c.InDesc(a, sa, ta);
    d->ExponentTensor = c.InDesc(b, sb, tb);
    d->OutputTensor = c.OutDesc(c.OutType(0), outR);
    c.EmitSingle(DML_OPERATOR_ELEMENT_WISE_POW, d, {&a, &b});
}

void Mean(NodeContext& c) {
    Binary(c, DML_OPERATOR_ELEMENT_WISE_ADD);
    if (c.InputCount() == 1) return;
    Value sum = c.lowerer.values[c.node.output(0)];
    Shape out = c.OutShape(0);
    const size_t rank = std::max<size_t>(4, out.size());
    auto* scale = c.Make(DML_SCALE_BIAS{1.0f / static_cast<float>(c.InputCount()), 0.0f});
    auto* d = c.Make(DML_ELEMENT_WISE_IDENTITY_OPERATOR_DESC{});
    d->InputTensor = c.InDescRank(sum, rank);
    d->OutputTensor = c.OutDesc(c.OutType(0), Lead(out, rank));
    d->ScaleBias = scale;
    c.EmitSingle(DML_OPERATOR_ELEMENT_WISE_IDENTITY, d, {&sum});
}

void Clip(NodeContext& c) {
    float lo = -INFINITY, hi = INFINITY;
    if (c.opset < 11) {
        lo = c.Float("min", lo);
        hi = c.Float("max", hi);
    } else {
        if (c.HasInput(1)) lo = static_cast<float>(c.HostFloats(1).at(0));
        if (c.HasInput(2)) hi = static_cast<float>(c.HostFloats(2).at(0));
    }
    const Value& x = c.Input(0);
    const DML_TENSOR_DATA_TYPE type = c.OutType(0);
    if (type != DML_TENSOR_DATA_TYPE_FLOAT32 && type != DML_TENSOR_DATA_TYPE_FLOAT16) {
        // Integers: CLIP1 takes bounds of the tensor's own type; an absent bound is the type's limit.
        if (c.opset < 11) c.Fail("Clip of integers before opset 11 is not defined by ONNX.");
        const uint32_t bits = 8 * DataTypeSize(type);
        const bool isSigned = type == DML_TENSOR_DATA_TYPE_INT8 || type == DML_TENSOR_DATA_TYPE_INT16 ||
                              type == DML_TENSOR_DATA_TYPE_INT32 || type == DML_TENSOR_DATA_TYPE_INT64;
        if (!isSigned && type != DML_TENSOR_DATA_TYPE_UINT8 && type != DML_TENSOR_DATA_TYPE_UINT16 &&
            type != DML_TENSOR_DATA_TYPE_UINT32 && type != DML_TENSOR_DATA_TYPE_UINT64) {
            c.Fail(std::string("Clip of ") + DataTypeName(type) + " is not lowered.");
        }
        auto scalar = [&](size_t input, bool upper) {
            DML_SCALAR_UNION u{};
            if (c.HasInput(input)) {
                const int64_t v = c.HostInts(input).at(0);
                std::memcpy(u.Bytes, &v, bits / 8);  // little-endian: the low bytes are the narrower value
            } else if (isSigned) {
                const int64_t v = upper ? (bits == 64 ? INT64_MAX : (int64_t(1) << (bits - 1)) - 1)
                                        : (bits == 64 ? INT64_MIN : -(int64_t(1) << (bits - 1)));
                std::memcpy(u.Bytes, &v, bits / 8);
            } else {
                const uint64_t v = upper ? (bits == 64 ? UINT64_MAX : (uint64_t(1) << bits) - 1) : 0;
                std::memcpy(u.Bytes, &v, bits / 8);
            }
            return u;
        };
        Shape out = c.OutShape(0);
        const size_t rank = std::max<size_t>(4, out.size());
        auto* d = c.Make(DML_ELEMENT_WISE_CLIP1_OPERATOR_DESC{});
        d->InputTensor = c.InDescRank(x, rank);
        d->OutputTensor = c.OutDesc(type, Lead(out, rank));
        d->MinMaxDataType = type;
        d->Min = scalar(1, false);
        d->Max = scalar(2, true);
        c.EmitSingle(DML_OPERATOR_ELEMENT_WISE_CLIP1, d, {&x});
        return;
    }
    Shape out = c.OutShape(0);
    const size_t rank = std::max<size_t>(4, out.size());
    auto* d = c.Make(DML_ELEMENT_WISE_CLIP_OPERATOR_DESC{});
    d->InputTensor = c.InDescRank(x, rank);
    d->OutputTensor = c.OutDesc(c.OutType(0), Lead(out, rank));
    d->Min = lo;
    d->Max = hi;
    c.EmitSingle(DML_OPERATOR_ELEMENT_WISE_CLIP, d, {&x});
}

void Where(NodeContext& c) {
    Shape out = c.OutShape(0);
    const size_t rank = std::max<size_t>(4, out.size());
    const Shape outR = Lead(out, rank);
    const Value& cond = c.Input(0);
    const Value& a = c.Input(1);
    const Value& b = c.Input(2);
    Shape s, t;
    auto* d = c.Make(DML_ELEMENT_WISE_IF_OPERATOR_DESC{});
    c.Broadcast(cond, outR, &s, &t);
    d->ConditionTensor = c.InDesc(cond, s, t);
    c.Broadcast(a, outR, &s, &t);
    d->ATensor = c.InDesc(a, s, t);
    c.Broadcast(b, outR, &s, &t);
    d->BTensor = c.InDesc(b, s, t);
    d->OutputTensor = c.OutDesc(c.OutType(0), outR);
    c.EmitSingle(DML_OPERATOR_ELEMENT_WISE_IF, d, {&cond, &a, &b});
}

void Cast(NodeContext& c) {
    const Value& x = c.Input(0);
    const DML_TENSOR_DATA_TYPE to = c.OutType(0);
    if (x.host && x.ElementCount() <= 4096 && to != DML_TENSOR_DATA_TYPE_FLOAT16 && x.type != DML_TENSOR_DATA_TYPE_FLOAT16) {
        std::vector<double> v = c.HostFloats(0);
        std::vector<int64_t> iv;
        const bool exactInts = x.type == DML_TENSOR_DATA_TYPE_INT64 || x.type == DML_TENSOR_DATA_TYPE_UINT64;
        if (exactInts) iv = c.HostInts(0);
        std::vector<uint8_t> bytes(v.size() * DataTypeSize(to));
        for (size_t e = 0; e < v.size(); ++e) {
            uint8_t* p = bytes.data() + e * DataTypeSize(to);
            const double d = v[e];
            const int64_t i = exactInts ? iv[e] : static_cast<int64_t>(d);
            switch (to) {
                case DML_TENSOR_DATA_TYPE_FLOAT32: { float f = static_cast<float>(d); std::memcpy(p, &f, 4); break; }
                case DML_TENSOR_DATA_TYPE_FLOAT64: std::memcpy(p, &d, 8); break;
                case DML_TENSOR_DATA_TYPE_INT64: case DML_TENSOR_DATA_TYPE_UINT64: std::memcpy(p, &i, 8); break;
                case DML_TENSOR_DATA_TYPE_INT32: case DML_TENSOR_DATA_TYPE_UINT32: { int32_t k = static_cast<int32_t>(i); std::memcpy(p, &k, 4); break; }
                case DML_TENSOR_DATA_TYPE_INT16: case DML_TENSOR_DATA_TYPE_UINT16: { int16_t k = static_cast<int16_t>(i); std::memcpy(p, &k, 2); break; }
                default: {
                    // BOOL is UINT8: any non-zero value is 1.
                    uint8_t k = c.OutOnnxType(0) == ::onnx::TensorProto::BOOL ? (d != 0) : static_cast<uint8_t>(i);
                    *p = k;
                    break;
                }
            }
        }
        c.SetOutput(0, c.HostValue(to, c.OutOnnxType(0), x.shape, std::move(bytes)));
        return;
    }
    Shape out = c.OutShape(0);
    const size_t rank = std::max<size_t>(4, out.size());
    if (c.OutOnnxType(0) == ::onnx::TensorProto::BOOL && x.onnxType != ::onnx::TensorProto::BOOL) {
        // x != 0, as ONNX defines the cast (NaN is not zero: true): LOGICAL_EQUALS with a zero of
        // x's type, then LOGICAL_NOT. DirectML's CAST would truncate 0.5 to 0 instead.
        const Shape outR = Lead(out, rank);
        Value zero = c.HostValue(x.type, x.onnxType, Shape{1}, std::vector<uint8_t>(DataTypeSize(x.type), 0));
        Shape sx, tx, sz, tz;
        c.Broadcast(x, outR, &sx, &tx);
        c.Broadcast(zero, outR, &sz, &tz);
        auto* equals = c.Make(DML_ELEMENT_WISE_LOGICAL_EQUALS_OPERATOR_DESC{});
        equals->ATensor = c.InDesc(x, sx, tx);
        equals->BTensor = c.InDesc(zero, sz, tz);
        equals->OutputTensor = c.OutDesc(DML_TENSOR_DATA_TYPE_UINT8, outR);
        const uint32_t n = c.Emit(DML_OPERATOR_ELEMENT_WISE_LOGICAL_EQUALS, equals, {&x, &zero}, "(equals zero)");
        const Value isZero = c.NodeOutput(n, 0, DML_TENSOR_DATA_TYPE_UINT8, ::onnx::TensorProto::BOOL, out);
        auto* negate = c.Make(DML_ELEMENT_WISE_LOGICAL_NOT_OPERATOR_DESC{});
        negate->InputTensor = c.InDescRank(isZero, rank);
        negate->OutputTensor = c.OutDesc(DML_TENSOR_DATA_TYPE_UINT8, outR);
        c.EmitSingle(DML_OPERATOR_ELEMENT_WISE_LOGICAL_NOT, negate, {&isZero});
        return;
    }
    auto* d = c.Make(DML_CAST_OPERATOR_DESC{});
    d->InputTensor = c.InDescRank(x, rank);
    d->OutputTensor = c.OutDesc(to, Lead(out, rank));
    c.EmitSingle(DML_OPERATOR_CAST, d, {&x});
}

// QuantizeLinear and DequantizeLinear: scale and zero point per tensor, or per `axis`.
void Quantize(NodeContext& c, bool quantize) {
    const Value& x = c.Input(0);
    const Value& scale = c.Input(1);
    const Value* zero = c.HasInput(2) ? &c.Input(2) : nullptr;
    Shape out = c.OutShape(0);
    const size_t r = out.size(), rank = std::max<size_t>(4, r);
    const Shape outR = Lead(out, rank);
    auto param = [&](const Value& v) {
        Shape s(rank, 1), t(rank, 0);
        if (v.shape.size() == 1 && v.shape[0] > 1) {
            const uint32_t axis = NodeContext::NormalizeAxis(c.Int("axis", 1), r, &c) + static_cast<uint32_t>(rank - r);
            s = outR;
            t[axis] = v.strides[0];
        } else {
            s = outR;
        }
        return c.InDesc(v, s, t);
    };
    auto* d = c.Make(DML_ELEMENT_WISE_QUANTIZE_LINEAR_OPERATOR_DESC{});  // DEQUANTIZE_LINEAR has the same fields
    d->InputTensor = c.InDescRank(x, rank);
    d->ScaleTensor = param(scale);
    d->ZeroPointTensor = zero ? param(*zero) : nullptr;
    d->OutputTensor = c.OutDesc(c.OutType(0), outR);
    c.EmitSingle(quantize ? DML_OPERATOR_ELEMENT_WISE_QUANTIZE_LINEAR : DML_OPERATOR_ELEMENT_WISE_DEQUANTIZE_LINEAR, d,
                 {&x, &scale, zero});
}

void PRelu(NodeContext& c) {
    Shape out = c.OutShape(0);
    const size_t rank = std::max<size_t>(4, out.size());
    const Shape outR = Lead(out, rank);
    const Value& x = c.Input(0);
    const Value& slope = c.Input(1);
    Shape s, t;
    auto* d = c.Make(DML_ACTIVATION_PARAMETERIZED_RELU_OPERATOR_DESC{});
    d->InputTensor = c.InDescRank(x, rank);
    if (c.opset < 7 && slope.shape.size() == 1 && out.size() >= 2 && slope.shape[0] == out[1] && slope.shape[0] > 1) {
        // Before opset 7 a 1-D slope holds one value per channel (dimension 1), not numpy broadcasting.
        s = outR;
        t.assign(rank, 0);
        t[rank - out.size() + 1] = slope.strides[0];
    } else {
        c.Broadcast(slope, outR, &s, &t);
    }
    d->SlopeTensor = c.InDesc(slope, s, t);
    d->OutputTensor = c.OutDesc(c.OutType(0), outR);
    c.EmitSingle(DML_OPERATOR_ACTIVATION_PARAMETERIZED_RELU, d, {&x, &slope});
}

}  // namespace

void RegisterElementwiseOps(OpTable& t) {
    struct U { const char* name; DML_OPERATOR_TYPE type; };
    static const U unary[] = {
        {"Abs", DML_OPERATOR_ELEMENT_WISE_ABS},       {"Ceil", DML_OPERATOR_ELEMENT_WISE_CEIL},
        {"Floor", DML_OPERATOR_ELEMENT_WISE_FLOOR},   {"Exp", DML_OPERATOR_ELEMENT_WISE_EXP},
        {"Log", DML_OPERATOR_ELEMENT_WISE_LOG},       {"Sqrt", DML_OPERATOR_ELEMENT_WISE_SQRT},
        {"Reciprocal", DML_OPERATOR_ELEMENT_WISE_RECIP}, {"Sin", DML_OPERATOR_ELEMENT_WISE_SIN},
        {"Cos", DML_OPERATOR_ELEMENT_WISE_COS},       {"Tan", DML_OPERATOR_ELEMENT_WISE_TAN},
        {"Asin", DML_OPERATOR_ELEMENT_WISE_ASIN},     {"Acos", DML_OPERATOR_ELEMENT_WISE_ACOS},
        {"Atan", DML_OPERATOR_ELEMENT_WISE_ATAN},     {"Sinh", DML_OPERATOR_ELEMENT_WISE_SINH},
        {"Cosh", DML_OPERATOR_ELEMENT_WISE_COSH},     {"Asinh", DML_OPERATOR_ELEMENT_WISE_ASINH},
        {"Acosh", DML_OPERATOR_ELEMENT_WISE_ACOSH},   {"Atanh", DML_OPERATOR_ELEMENT_WISE_ATANH},
        {"Erf", DML_OPERATOR_ELEMENT_WISE_ERF},       {"Neg", DML_OPERATOR_ELEMENT_WISE_NEGATE},
        {"Sign", DML_OPERATOR_ELEMENT_WISE_SIGN},     {"Round", DML_OPERATOR_ELEMENT_WISE_ROUND},
        {"IsNaN", DML_OPERATOR_ELEMENT_WISE_IS_NAN},  {"Not", DML_OPERATOR_ELEMENT_WISE_LOGICAL_NOT},
        {"Relu", DML_OPERATOR_ACTIVATION_RELU},       {"Sigmoid", DML_OPERATOR_ACTIVATION_SIGMOID},
        {"Tanh", DML_OPERATOR_ACTIVATION_TANH},       {"Softsign", DML_OPERATOR_ACTIVATION_SOFTSIGN},
    };
    for (const U& u : unary) {
        DML_OPERATOR_TYPE type = u.type;
        t[u.name] = [type](NodeContext& c) { Unary(c, type); };
    }
    static const U binary[] = {
        {"Add", DML_OPERATOR_ELEMENT_WISE_ADD},       {"Sub", DML_OPERATOR_ELEMENT_WISE_SUBTRACT},
        {"Mul", DML_OPERATOR_ELEMENT_WISE_MULTIPLY},  {"Div", DML_OPERATOR_ELEMENT_WISE_DIVIDE},
        {"Max", DML_OPERATOR_ELEMENT_WISE_MAX},       {"Min", DML_OPERATOR_ELEMENT_WISE_MIN},
        {"Sum", DML_OPERATOR_ELEMENT_WISE_ADD},       {"Equal", DML_OPERATOR_ELEMENT_WISE_LOGICAL_EQUALS},
        {"Less", DML_OPERATOR_ELEMENT_WISE_LOGICAL_LESS_THAN},
        {"Greater", DML_OPERATOR_ELEMENT_WISE_LOGICAL_GREATER_THAN},
        {"LessOrEqual", DML_OPERATOR_ELEMENT_WISE_LOGICAL_LESS_THAN_OR_EQUAL},
        {"GreaterOrEqual", DML_OPERATOR_ELEMENT_WISE_LOGICAL_GREATER_THAN_OR_EQUAL},
        {"And", DML_OPERATOR_ELEMENT_WISE_LOGICAL_AND}, {"Or", DML_OPERATOR_ELEMENT_WISE_LOGICAL_OR},
        {"Xor", DML_OPERATOR_ELEMENT_WISE_LOGICAL_XOR},
    };
    for (const U& b : binary) {
        DML_OPERATOR_TYPE type = b.type;
        t[b.name] = [type](NodeContext& c) { Binary(c, type); };
    }
    t["Mean"] = Mean;
    t["Gelu"] = [](NodeContext& c) {
        // DirectML's GELU is the exact (erf) form; the tanh approximation has no operator of its own.
        if (c.String("approximate", "none") != "none") c.Fail("Gelu's approximate=\"tanh\" is not lowered yet (DirectML's GELU is the erf form).");
        Unary(c, DML_OPERATOR_ACTIVATION_GELU);
    };
    t["Mod"] = [](NodeContext& c) {
        Binary(c, c.Int("fmod", 0) ? DML_OPERATOR_ELEMENT_WISE_MODULUS_TRUNCATE : DML_OPERATOR_ELEMENT_WISE_MODULUS_FLOOR);
    };
    t["BitShift"] = [](NodeContext& c) {
        Binary(c, c.String("direction", "") == "LEFT" ? DML_OPERATOR_ELEMENT_WISE_BIT_SHIFT_LEFT
                                                        : DML_OPERATOR_ELEMENT_WISE_BIT_SHIFT_RIGHT);
    };
    t["CastLike"] = Cast;
    t["IsInf"] = [](NodeContext& c) {
        const bool pos = c.Int("detect_positive", 1) != 0, neg = c.Int("detect_negative", 1) != 0;
        if (!pos && !neg) c.Fail("detecting neither infinity is not lowered.");
        Activation(c, DML_OPERATOR_ELEMENT_WISE_IS_INFINITY, 0, 0);
        // InfinityMode follows Input and Output: patch the desc just made.
        auto& node = c.lowerer.graph.nodes.back();
        auto* d = static_cast<DML_ELEMENT_WISE_IS_INFINITY_OPERATOR_DESC*>(const_cast<void*>(node.desc));
        d->InfinityMode = pos && neg ? DML_IS_INFINITY_MODE_EITHER : pos ? DML_IS_INFINITY_MODE_POSITIVE : DML_IS_INFINITY_MODE_NEGATIVE;
    };
    t["Pow"] = Pow;
    t["Clip"] = Clip;
    t["Where"] = Where;
    t["Cast"] = Cast;
    t["PRelu"] = PRelu;
    t["QuantizeLinear"] = [](NodeContext& c) { Quantize(c, true); };
    t["DequantizeLinear"] = [](NodeContext& c) { Quantize(c, false); };
    t["LeakyRelu"] = [](NodeContext& c) { Activation(c, DML_OPERATOR_ACTIVATION_LEAKY_RELU, c.Float("alpha", 0.01f), 0); };
    t["Elu"] = [](NodeContext& c) { Activation(c, DML_OPERATOR_ACTIVATION_ELU, c.Float("alpha", 1.0f), 0); };
    t["Celu"] = [](NodeContext& c) { Activation(c, DML_OPERATOR_ACTIVATION_CELU, c.Float("alpha", 1.0f), 0); };
    t["Selu"] = [](NodeContext& c) {
        Activation(c, DML_OPERATOR_ACTIVATION_SCALED_ELU, c.Float("alpha", 1.67326319217681884765625f),
                   c.Float("gamma", 1.05070102214813232421875f));
    };
    t["HardSigmoid"] = [](NodeContext& c) {
        Activation(c, DML_OPERATOR_ACTIVATION_HARD_SIGMOID, c.Float("alpha", 0.2f), c.Float("beta", 0.5f));
    };
    t["HardSwish"] = [](NodeContext& c) { Activation(c, DML_OPERATOR_ACTIVATION_HARD_SWISH, 1.0f / 6.0f, 0.5f); };
    t["Softplus"] = [](NodeContext& c) { Activation(c, DML_OPERATOR_ACTIVATION_SOFTPLUS, 1.0f, 0); };
    t["ThresholdedRelu"] = [](NodeContext& c) {
        Activation(c, DML_OPERATOR_ACTIVATION_THRESHOLDED_RELU, c.Float("alpha", 1.0f), 0);
    };
    t["Shrink"] = [](NodeContext& c) {
        Activation(c, DML_OPERATOR_ACTIVATION_SHRINK, c.Float("bias", 0.0f), c.Float("lambd", 0.5f));
    };
}

}  // namespace freedml::onnx
