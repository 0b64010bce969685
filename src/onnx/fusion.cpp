// Attention written out in an ONNX graph (and ONNX Runtime's contrib MultiHeadAttention, at the
// end), lowered to one DirectML MULTIHEAD_ATTENTION node:
//     MatMul(Q, K^T) -> Div or Mul by a scalar -> [Add(mask) or Where(keep, ., fill)] -> Softmax(last)
//     -> MatMul(., V)
// with Casts to the same type allowed between them, and Q, K and V the head-split views exporters
// make (Reshape {B, S, H, D} then Transpose {0, 2, 1, 3}; K^T with {0, 2, 3, 1}), which the
// lowering keeps as strides over one {B, S, H x D} tensor.
//
// Equivalence: MULTIHEAD_ATTENTION computes softmax_j(Scale * Q.K + RelativePositionBias +
// (masked ? MaskFilterValue : 0)) . V. An additive mask (BERT's (1 - mask) * min) becomes the
// RelativePositionBias exactly. A Where mask (GPT-2's causal mask from its bias buffer) replaces
// the masked scores by `fill`, while the operator adds MaskFilterValue = fill to them; the two
// softmaxes agree where each row keeps at least one key (checked on the mask's values, which must
// be known while lowering) and fill is at most -1e30 (so exp(score + fill - max) underflows to 0
// for any score below 1e29 in magnitude, as exp(fill - max) does). Anything else is lowered node by
// node.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <map>
#include <set>

#include "context.h"

namespace freedml::onnx {

std::map<int, AttentionPattern> FindAttentionPatterns(const ::onnx::GraphProto& g) {
    std::map<std::string, std::vector<int>> consumers;
    for (int i = 0; i < g.node_size(); ++i) {
        for (const auto& input : g.node(i).input()) {
            if (!input.empty()) consumers[input].push_back(i);
        }
    }
    std::set<std::string> outputs;
    for (const auto& o : g.output()) outputs.insert(o.name());
    // The one node reading `name`, or -1 when it is read by several, none, or is a graph output.
    auto only = [&](const std::string& name) {
        auto it = consumers.find(name);
        if (outputs.count(name) || it == consumers.end() || it->second.size() != 1) return -1;
        return it->second[0];
    };
    auto sameTypeCast = [&](int n) {
        // A Cast whose target is FLOAT (what these exporters cast the float scores to).
        const auto* to = FindAttr(g.node(n), "to");
        return g.node(n).op_type() == "Cast" && to && to->i() == ::onnx::TensorProto::FLOAT;
    };

    std::map<int, AttentionPattern> found;
    for (int first = 0; first < g.node_size(); ++first) {
        const auto& m1 = g.node(first);
        if (m1.op_type() != "MatMul" || !m1.domain().empty() || m1.input_size() != 2) continue;
        AttentionPattern p;
        p.nodes.push_back(first);
        p.query = m1.input(0);
        p.keyTransposed = m1.input(1);
        std::string current = m1.output(0);
        int n = only(current);
        auto advance = [&]() {
            p.nodes.push_back(n);
            current = g.node(n).output(0);
            n = only(current);
        };
        while (n >= 0 && sameTypeCast(n)) advance();
        if (n < 0) continue;
        // The scale.
        const auto* node = &g.node(n);
        if (node->input_size() == 2 &&
            ((node->op_type() == "Div" && node->input(0) == current) || node->op_type() == "Mul")) {
            p.scale = node->input(0) == current ? node->input(1) : node->input(0);
            p.scaleDivides = node->op_type() == "Div";
            advance();
        }
        while (n >= 0 && sameTypeCast(n)) advance();
        if (n < 0) continue;
        // The mask.
        node = &g.node(n);
        if (node->op_type() == "Add" && node->input_size() == 2) {
            p.mask = AttentionPattern::Mask::Additive;
            p.maskInput = node->input(0) == current ? node->input(1) : node->input(0);
            advance();
        } else if (node->op_type() == "Where" && node->input_size() == 3 && node->input(0) != current &&
                   (node->input(1) == current) != (node->input(2) == current)) {
            p.mask = AttentionPattern::Mask::Select;
            p.maskInput = node->input(0);
            p.keepWhereTrue = node->input(1) == current;
            p.fill = p.keepWhereTrue ? node->input(2) : node->input(1);
            advance();
        }
        while (n >= 0 && sameTypeCast(n)) advance();
        if (n < 0 || g.node(n).op_type() != "Softmax") continue;
        p.softmaxNode = n;
        advance();
        while (n >= 0 && sameTypeCast(n)) advance();
        if (n < 0 || g.node(n).op_type() != "MatMul" || g.node(n).input_size() != 2 || g.node(n).input(0) != current) {
            continue;
        }
        p.value = g.node(n).input(1);
        p.nodes.push_back(n);
        found[n] = p;
    }
    return found;
}

// The value of a scalar computed from constants by scalar arithmetic (GPT-2 divides by
// Add(ConstantOfShape, Pow(Cast(head size), 0.5))), in double; false where it is not one.
bool ScalarOf(Lowerer& l, const std::map<std::string, int>& producers, const std::string& name, int depth,
              double* out) {
    auto v = l.values.find(name);
    if (v != l.values.end() && v->second.host && v->second.ElementCount() == 1 &&
        v->second.type != DML_TENSOR_DATA_TYPE_FLOAT16) {
        const Value& value = v->second;
        const uint8_t* p = value.host->data();
        switch (value.type) {
            case DML_TENSOR_DATA_TYPE_FLOAT32: {
                float f;
                std::memcpy(&f, p, 4);
                *out = f;
                return true;
            }
            case DML_TENSOR_DATA_TYPE_FLOAT64: {
                double d;
                std::memcpy(&d, p, 8);
                *out = d;
                return true;
            }
            case DML_TENSOR_DATA_TYPE_INT64: {
                int64_t i;
                std::memcpy(&i, p, 8);
                *out = double(i);
                return true;
            }
            case DML_TENSOR_DATA_TYPE_INT32: {
                int32_t i;
                std::memcpy(&i, p, 4);
                *out = double(i);
                return true;
            }
            default:
                return false;
        }
    }
    auto it = producers.find(name);
    if (depth > 16 || it == producers.end()) return false;
    const auto& node = l.model.proto->graph().node(it->second);
    const std::string& op = node.op_type();
    double a = 0, b = 0;
    if (node.input_size() < 1) return false;
    if (op == "Cast" || op == "Identity" || op == "Sqrt") {
        if (!ScalarOf(l, producers, node.input(0), depth + 1, &a)) return false;
        *out = op == "Sqrt" ? std::sqrt(a) : a;
        return true;
    }
    if (node.input_size() != 2 || !ScalarOf(l, producers, node.input(0), depth + 1, &a) ||
        !ScalarOf(l, producers, node.input(1), depth + 1, &b)) {
        return false;
    }
    if (op == "Add")
        *out = a + b;
    else if (op == "Sub")
        *out = a - b;
    else if (op == "Mul")
        *out = a * b;
    else if (op == "Div" && b != 0)
        *out = a / b;
    else if (op == "Pow")
        *out = std::pow(a, b);
    else
        return false;
    return true;
}

bool LowerAttention(Lowerer& l, const AttentionPattern& p, std::string* why) {
    const auto& g = l.model.proto->graph();
    const Value* q = l.Lowered(p.query);
    const Value* kt = l.Lowered(p.keyTransposed);
    const Value* v = l.Lowered(p.value);
    if (!q || !kt || !v) return *why = "an input is not lowered", false;
    if (q->shape.size() != 4 || kt->shape.size() != 4 || v->shape.size() != 4)
        return *why = "Q, K and V are not 4-D", false;
    const uint32_t B = q->shape[0], H = q->shape[1], S = q->shape[2], D = q->shape[3];
    const uint32_t T = kt->shape[3], Dv = v->shape[3];
    if (kt->shape[0] != B || v->shape[0] != B || kt->shape[1] != H || v->shape[1] != H || kt->shape[2] != D ||
        v->shape[2] != T) {
        return *why = "Q, K^T and V sizes are not {B, H, S, D}, {B, H, D, T}, {B, H, T, Dv}", false;
    }
    const DML_TENSOR_DATA_TYPE type = q->type;
    if ((type != DML_TENSOR_DATA_TYPE_FLOAT32 && type != DML_TENSOR_DATA_TYPE_FLOAT16) || kt->type != type ||
        v->type != type) {
        return *why = "Q, K and V are not all FLOAT32 or all FLOAT16", false;
    }
    // Heads side by side in one {B, S, H x D} tensor: a head's stride is D channels.
    if (H > 1 && (q->strides[1] != D * q->strides[3] || kt->strides[1] != D * kt->strides[2] ||
                  v->strides[1] != Dv * v->strides[3])) {
        return *why = "the heads of Q, K or V are not D channels apart", false;
    }
    // Softmax over the last axis (opset 13 on; before, flattening from the last axis is the same).
    const auto& softmax = g.node(p.softmaxNode);
    const auto* axisAttr = FindAttr(softmax, "axis");
    int64_t axis = axisAttr ? axisAttr->i() : -1;
    int64_t opset = l.model.opset;
    if (!axisAttr && opset < 13) axis = 1;
    if (axis != -1 && axis != 3) return *why = "the Softmax is not over the last axis", false;

    std::map<std::string, int> producers;
    for (int i = 0; i < g.node_size(); ++i) {
        for (const auto& o : g.node(i).output()) producers[o] = i;
    }
    double scale = 1.0;
    if (!p.scale.empty()) {
        double s = 0;
        if (!ScalarOf(l, producers, p.scale, 0, &s))
            return *why = "the scale is not a scalar known while lowering", false;
        if (p.scaleDivides && s == 0) return *why = "the scale divides by zero", false;
        scale = p.scaleDivides ? 1.0 / s : s;
    }

    ::onnx::NodeProto named = g.node(p.nodes.back());
    NodeContext c(l, named, opset);
    const Shape scores = {B, H, S, T};
    auto broadcasts = [&](const Value& m) {
        if (m.shape.size() > 4) return false;
        for (size_t d = 0; d < m.shape.size(); ++d) {
            const uint32_t full = scores[4 - m.shape.size() + d];
            if (m.shape[d] != full && m.shape[d] != 1) return false;
        }
        return true;
    };
    auto* desc = c.Make(DML_MULTIHEAD_ATTENTION_OPERATOR_DESC{});
    std::vector<const Value*> inputs(11, nullptr);
    // Q, K and V the three equal parts of one SPLIT along the last axis of X {B, S, 3 x H x D}
    // (GPT-2's c_attn output), each head-split in the canonical way: the operator reads them
    // stacked in X, {B, S, H, 3, D} with strides, and the SPLIT's copy is left unread (the graph
    // optimizer removes it).
    const Lowerer::SplitOrigin* split = nullptr;
    if (q->source == Value::Source::NodeOutput && kt->source == Value::Source::NodeOutput &&
        v->source == Value::Source::NodeOutput && q->index == kt->index && q->index == v->index && q->output == 0 &&
        kt->output == 1 && v->output == 2 && l.splits.count(q->index)) {
        split = &l.splits.at(q->index);
        const Value& x = split->input;
        const uint32_t E = H * D;
        const Shape headStrides = {S * E, D, E, 1}, keyStrides = {S * E, D, 1, E};
        if (x.shape != Shape{B, S, 3 * E} || split->axis != 2 || T != S || Dv != D || q->strides != headStrides ||
            kt->strides != keyStrides || v->strides != headStrides) {
            split = nullptr;
        }
    }
    if (split) {
        const Value& x = split->input;
        const uint32_t E = H * D;
        desc->StackedQueryKeyValueTensor =
            c.InDesc(x, {B, S, H, 3, D}, {x.strides[0], x.strides[1], D * x.strides[2], E * x.strides[2], x.strides[2]});
        inputs[5] = &x;
    } else {
        desc->QueryTensor = c.InDesc(*q, {B, S, H * D}, {q->strides[0], q->strides[2], q->strides[3]});
        desc->KeyTensor = c.InDesc(*kt, {B, T, H * D}, {kt->strides[0], kt->strides[3], kt->strides[2]});
        desc->ValueTensor = c.InDesc(*v, {B, T, H * Dv}, {v->strides[0], v->strides[2], v->strides[3]});
        inputs[0] = q, inputs[1] = kt, inputs[2] = v;
    }
    desc->OutputTensor = c.OutDesc(type, {B, S, H * Dv});
    desc->Scale = static_cast<float>(scale);
    desc->HeadCount = H;
    desc->MaskType = DML_MULTIHEAD_ATTENTION_MASK_TYPE_NONE;
    Value keep;
    std::string note;
    if (p.mask == AttentionPattern::Mask::Additive) {
        const Value* m = l.Lowered(p.maskInput);
        if (!m || m->type != type || !broadcasts(*m))
            return *why = "the additive mask does not broadcast to the scores", false;
        Shape sizes, strides;
        c.Broadcast(*m, scores, &sizes, &strides);
        desc->RelativePositionBiasTensor = c.InDesc(*m, sizes, strides);
        inputs[8] = m;
        note = ", the additive mask '" + p.maskInput + "' as RelativePositionBias";
    } else if (p.mask == AttentionPattern::Mask::Select) {
        const Value* cond = l.Lowered(p.maskInput);
        double fill = 0;
        if (!cond || !cond->host || !broadcasts(*cond) || DataTypeSize(cond->type) != 1) {
            return *why = "the Where mask's values are not known while lowering", false;
        }
        if (!ScalarOf(l, producers, p.fill, 0, &fill) || !(fill <= -1e30)) {
            return *why = "the Where mask's fill value is not a scalar of at most -1e30", false;
        }
        // The mask as INT32 (0: masked) over the condition's own shape, read packed.
        Value packed = c.Packed(*cond);
        if (!packed.host) return *why = "the Where mask is too large to read while lowering", false;
        const uint64_t count = packed.ElementCount();
        std::vector<uint8_t> bytes(count * 4);
        Shape padded(4 - packed.shape.size(), 1);
        padded.insert(padded.end(), packed.shape.begin(), packed.shape.end());
        for (uint64_t e = 0; e < count; ++e) {
            const int32_t kept = ((*packed.host)[e] != 0) == p.keepWhereTrue ? 1 : 0;
            std::memcpy(bytes.data() + e * 4, &kept, 4);
        }
        // Every row keeps a key, or the two softmaxes differ on it.
        for (uint64_t row = 0; row < count / padded[3]; ++row) {
            bool any = false;
            for (uint32_t j = 0; j < padded[3] && !any; ++j) any = bytes[(row * padded[3] + j) * 4] != 0;
            if (!any) return *why = "a row of the Where mask masks every key", false;
        }
        keep = c.HostValue(DML_TENSOR_DATA_TYPE_INT32, ::onnx::TensorProto::INT32, packed.shape, std::move(bytes));
        Shape sizes, strides;
        c.Broadcast(keep, scores, &sizes, &strides);
        desc->MaskTensor = c.InDesc(keep, sizes, strides);
        desc->MaskType = DML_MULTIHEAD_ATTENTION_MASK_TYPE_BOOLEAN;
        desc->MaskFilterValue = static_cast<float>(std::max(fill, -3.4028234663852886e38));
        inputs[7] = &keep;
        char filter[32];
        std::snprintf(filter, sizeof filter, "%g", desc->MaskFilterValue);
        note = ", the Where mask '" + p.maskInput + "' as a BOOLEAN mask, filter " + filter;
    }
    const uint32_t n = c.Emit(DML_OPERATOR_MULTIHEAD_ATTENTION, desc, inputs, "(fused attention)");
    // MatMul(., V)'s {B, H, S, Dv} is the operator's {B, S, H x Dv} output read with strides.
    Value out = c.NodeOutput(n, 0, type, q->onnxType, {B, S, H * Dv});
    out.shape = {B, H, S, Dv};
    out.strides = {S * H * Dv, Dv, H * Dv, 1};
    l.values[g.node(p.nodes.back()).output(0)] = out;
    std::string names;
    for (int i : p.nodes) names += (names.empty() ? "'" : ", '") + g.node(i).name() + "' (" + g.node(i).op_type() + ")";
    char buffer[64];
    std::snprintf(buffer, sizeof buffer, "%.6g", scale);
    if (split) note += ", Q, K and V read stacked in the split's input";
    l.graph.notes.push_back("attention fused into MULTIHEAD_ATTENTION (node " + std::to_string(n) + ", " +
                            std::to_string(H) + " heads, scale " + buffer + note + "): " + names);
    return true;
}

// com.microsoft MultiHeadAttention (ONNX Runtime's contrib operator, which its DirectML provider
// maps to this operator): separate 3-D query, key and value {batch, sequence, heads x size}, an
// optional packed bias, a key_padding_mask of key lengths {batch} or of 0/1 {batch, keys}, and an
// attention_bias; the packed, 4-D (pre-split) and past/present forms are not lowered.
void LowerContribMultiHeadAttention(NodeContext& c) {
    const Value& q = c.Input(0);
    if (!c.HasInput(1) || !c.HasInput(2))
        c.Fail("only separate query, key and value inputs are lowered (not packed ones).");
    const Value& k = c.Input(1);
    const Value& v = c.Input(2);
    if (q.shape.size() != 3 || k.shape.size() != 3 || v.shape.size() != 3) {
        c.Fail("only 3-D query, key and value {batch, sequence, heads x size} are lowered.");
    }
    for (size_t i = 6; i < c.InputCount(); ++i) {
        if (c.HasInput(i)) c.Fail("past key and value inputs are not lowered.");
    }
    if (c.OutputCount() > 1 && (c.HasOutput(1) || c.HasOutput(2)))
        c.Fail("present key and value outputs are not lowered.");
    if (c.Int("unidirectional", 0) != 0) c.Fail("unidirectional (causal) attention is not lowered.");
    const uint32_t heads = static_cast<uint32_t>(c.Int("num_heads", 0));
    if (heads == 0 || q.shape[2] % heads != 0 || v.shape[2] % heads != 0) {
        c.Fail("num_heads must divide the query and value hidden sizes.");
    }
    const uint32_t B = q.shape[0], S = q.shape[1], T = k.shape[1];
    const uint32_t D = q.shape[2] / heads, Dv = v.shape[2] / heads;
    const DML_TENSOR_DATA_TYPE type = q.type;
    auto* d = c.Make(DML_MULTIHEAD_ATTENTION_OPERATOR_DESC{});
    std::vector<const Value*> inputs(11, nullptr);
    d->QueryTensor = c.InDesc(q, q.shape, q.strides);
    d->KeyTensor = c.InDesc(k, k.shape, k.strides);
    d->ValueTensor = c.InDesc(v, v.shape, v.strides);
    inputs[0] = &q, inputs[1] = &k, inputs[2] = &v;
    if (c.HasInput(3)) {
        const Value& bias = c.Input(3);
        d->BiasTensor = c.InDesc(bias, bias.shape, bias.strides);
        inputs[6] = &bias;
    }
    d->MaskType = DML_MULTIHEAD_ATTENTION_MASK_TYPE_NONE;
    if (c.HasInput(4)) {
        const Value& mask = c.Input(4);
        if (mask.type != DML_TENSOR_DATA_TYPE_INT32) c.Fail("key_padding_mask must be INT32.");
        if (mask.shape == Shape{B}) {
            d->MaskType = DML_MULTIHEAD_ATTENTION_MASK_TYPE_KEY_SEQUENCE_LENGTH;
            d->MaskTensor = c.InDesc(mask, mask.shape, mask.strides);
        } else if (mask.shape == Shape{B, T}) {
            d->MaskType = DML_MULTIHEAD_ATTENTION_MASK_TYPE_BOOLEAN;
            d->MaskTensor = c.InDesc(mask, {B, 1, 1, T}, {mask.strides[0], 0, 0, mask.strides[1]});
        } else {
            c.Fail("key_padding_mask " + ShapeText(mask.shape) + " is not lowered; {batch} key lengths and {batch, " +
                   "keys} 0/1 masks are.");
        }
        inputs[7] = &mask;
    }
    if (c.HasInput(5)) {
        const Value& bias = c.Input(5);
        Shape sizes, strides;
        c.Broadcast(bias, {B, heads, S, T}, &sizes, &strides);
        d->RelativePositionBiasTensor = c.InDesc(bias, sizes, strides);
        inputs[8] = &bias;
    }
    d->OutputTensor = c.OutDesc(type, {B, S, heads * Dv});
    d->Scale = c.Has("scale") ? c.Float("scale", 1.0f) : static_cast<float>(1.0 / std::sqrt(double(D)));
    d->MaskFilterValue = c.Float("mask_filter_value", -10000.0f);
    d->HeadCount = heads;
    const uint32_t n = c.Emit(DML_OPERATOR_MULTIHEAD_ATTENTION, d, inputs);
    // Shape inference does not know contrib operators: the output's shape is computed here.
    c.SetOutput(0, c.NodeOutput(n, 0, type, q.onnxType, {B, S, heads * Dv}));
}

}  // namespace freedml::onnx
