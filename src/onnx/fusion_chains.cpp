// Layer normalization and the erf GELU written out node by node, as PyTorch's exporter writes
// BERT's and GPT-2's (and the transformers package's) LayerNorm and GELU, each lowered to one
// DirectML operator:
//
//     mean = ReduceMean(x, axes); d = Sub(x, mean); var = ReduceMean(Pow(d, 2) or Mul(d, d), axes)
//     y = Div(d, Sqrt(Add(var, epsilon))) [-> Mul(., scale) [-> Add(., bias)]]
//         -> MEAN_VARIANCE_NORMALIZATION1 over the axes, NormalizeVariance, Epsilon, Scale, Bias
//
//     y = x * 0.5 * (1 + Erf(x / sqrt(2)))   (Div by sqrt(2) or Mul by 1 / sqrt(2); the halving
//         before or after the product with x)  -> ACTIVATION_GELU
//
// Equivalence: MVN1 computes (x - mean) / sqrt(population variance + Epsilon) * Scale + Bias over
// the axes, the decomposed form's formula exactly (the exporter's variance is the mean of squared
// deviations); DirectML's GELU is the exact erf form. The fusion applies only where the formula is
// the same: both means over the same axes keeping them, an exponent of exactly 2, epsilon a
// scalar known while lowering, the GELU's constants 1, 0.5 and sqrt(2) (within float32 rounding),
// scale, bias and constants that broadcast to x without enlarging it, and no intermediate read by
// another node or given as a graph output (it would no longer be computed). Anything else is
// lowered node by node, with the reason in --dump-graph's notes.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <map>
#include <set>
#include <string>

#include "context.h"

namespace freedml::onnx {

namespace {

// Who reads each value, for following single-consumer chains.
struct Readers {
    explicit Readers(const ::onnx::GraphProto& g) : graph(g) {
        for (int i = 0; i < g.node_size(); ++i) {
            for (const auto& input : g.node(i).input()) {
                if (!input.empty()) readers[input].insert(i);
            }
        }
        for (const auto& o : g.output()) outputs.insert(o.name());
    }
    // The nodes reading `name` (each once, however many of its inputs read it); empty when `name`
    // is a graph output, whose value must stay computed.
    std::set<int> Of(const std::string& name) const {
        auto it = readers.find(name);
        if (outputs.count(name) || it == readers.end()) return {};
        return it->second;
    }
    // The one node reading `name`, or -1.
    int Only(const std::string& name) const {
        std::set<int> r = Of(name);
        return r.size() == 1 ? *r.begin() : -1;
    }
    // Node n when it is a standard `op` with `inputs` inputs.
    bool Is(int n, const char* op, int inputs) const {
        if (n < 0) return false;
        const auto& node = graph.node(n);
        return node.op_type() == op && (node.domain().empty() || node.domain() == "ai.onnx") &&
               node.input_size() == inputs && node.output_size() >= 1;
    }
    const ::onnx::GraphProto& graph;
    std::map<std::string, std::set<int>> readers;
    std::set<std::string> outputs;
};

// The other input of a two-input node, given one of them; empty when neither is `one`.
std::string Other(const ::onnx::NodeProto& node, const std::string& one) {
    if (node.input(0) == one) return node.input(1);
    if (node.input(1) == one) return node.input(0);
    return {};
}

Shape Lead(const Shape& shape, size_t rank) {
    Shape out(rank > shape.size() ? rank - shape.size() : 0, 1);
    out.insert(out.end(), shape.begin(), shape.end());
    return out;
}

// `v` broadcasts to `shape` without enlarging it (right-aligned, each dimension equal or 1).
bool FitsInside(const Value& v, const Shape& shape) {
    if (v.shape.size() > shape.size()) return false;
    for (size_t d = 0; d < v.shape.size(); ++d) {
        const uint32_t full = shape[shape.size() - v.shape.size() + d];
        if (v.shape[d] != full && v.shape[d] != 1) return false;
    }
    return true;
}

std::string NodeNames(const ::onnx::GraphProto& g, const std::vector<int>& nodes) {
    std::string names;
    for (int i : nodes) {
        const auto& node = g.node(i);
        const std::string& name = node.name().empty() ? node.output(0) : node.name();  // unnamed: what it makes
        names += (names.empty() ? "'" : ", '") + name + "' (" + node.op_type() + ")";
    }
    return names;
}

std::map<std::string, int> Producers(const ::onnx::GraphProto& g) {
    std::map<std::string, int> producers;
    for (int i = 0; i < g.node_size(); ++i) {
        for (const auto& o : g.node(i).output()) producers[o] = i;
    }
    return producers;
}

bool IsFloat(DML_TENSOR_DATA_TYPE type) {
    return type == DML_TENSOR_DATA_TYPE_FLOAT32 || type == DML_TENSOR_DATA_TYPE_FLOAT16;
}

// Whether a pattern's input can be fused: lowered, floating point, and not a constant (which
// folding computes instead); otherwise `why` says which.
bool FusibleInput(const Value* x, std::string* why) {
    if (!x) return *why = "its input is not lowered", false;
    if (!IsFloat(x->type)) return *why = "its input is not FLOAT32 or FLOAT16", false;
    if (x->host) return *why = "its input is known while lowering (folded instead)", false;
    return true;
}

}  // namespace

std::map<int, LayerNormPattern> FindLayerNormPatterns(const ::onnx::GraphProto& g) {
    const Readers r(g);
    std::map<int, LayerNormPattern> found;
    for (int first = 0; first < g.node_size(); ++first) {
        if (!r.Is(first, "ReduceMean", 1) && !r.Is(first, "ReduceMean", 2)) continue;
        LayerNormPattern p;
        p.input = g.node(first).input(0);
        const std::string& mean = g.node(first).output(0);
        const int sub = r.Only(mean);
        if (!r.Is(sub, "Sub", 2) || g.node(sub).input(0) != p.input || g.node(sub).input(1) != mean) continue;
        // The deviation feeds the square and the division, nothing else.
        const std::string& d = g.node(sub).output(0);
        const std::set<int> uses = r.Of(d);
        if (uses.size() != 2) continue;
        int square = -1, divide = -1;
        for (int u : uses) {
            const auto& node = g.node(u);
            if (r.Is(u, "Pow", 2) && node.input(0) == d && node.input(1) != d) {
                square = u;
                p.exponent = node.input(1);
            } else if (r.Is(u, "Mul", 2) && node.input(0) == d && node.input(1) == d) {
                square = u;
            } else if (r.Is(u, "Div", 2) && node.input(0) == d && node.input(1) != d) {
                divide = u;
            }
        }
        if (square < 0 || divide < 0) continue;
        const int variance = r.Only(g.node(square).output(0));
        if ((!r.Is(variance, "ReduceMean", 1) && !r.Is(variance, "ReduceMean", 2)) ||
            g.node(variance).input(0) != g.node(square).output(0)) {
            continue;
        }
        const std::string& var = g.node(variance).output(0);
        const int add = r.Only(var);
        if (!r.Is(add, "Add", 2) || Other(g.node(add), var).empty() || Other(g.node(add), var) == var) continue;
        p.epsilon = Other(g.node(add), var);
        const int root = r.Only(g.node(add).output(0));
        if (!r.Is(root, "Sqrt", 1)) continue;
        if (r.Only(g.node(root).output(0)) != divide || g.node(divide).input(1) != g.node(root).output(0)) continue;
        p.nodes = {first, sub, square, variance, add, root, divide};
        p.reduceMean[0] = first;
        p.reduceMean[1] = variance;
        // The scale, then the bias, where the normalized value feeds only them.
        std::string current = g.node(divide).output(0);
        const int scale = r.Only(current);
        if (r.Is(scale, "Mul", 2) && !Other(g.node(scale), current).empty() && Other(g.node(scale), current) != current) {
            p.scale = Other(g.node(scale), current);
            p.nodes.push_back(scale);
            current = g.node(scale).output(0);
            const int bias = r.Only(current);
            if (r.Is(bias, "Add", 2) && !Other(g.node(bias), current).empty() && Other(g.node(bias), current) != current) {
                p.bias = Other(g.node(bias), current);
                p.nodes.push_back(bias);
            }
        }
        // The pattern is lowered where its result is made: that node must come last in the graph.
        std::vector<int> sorted = p.nodes;
        std::sort(sorted.begin(), sorted.end());
        if (sorted.back() != p.nodes.back()) continue;
        found[p.nodes.back()] = p;
    }
    return found;
}

bool LowerLayerNorm(Lowerer& l, const LayerNormPattern& p, std::string* why) {
    const auto& g = l.model.proto->graph();
    const Value* x = l.Lowered(p.input);
    if (!FusibleInput(x, why)) return false;
    const size_t r = x->shape.size();
    if (r == 0) return *why = "its input is a scalar", false;
    const int64_t opset = l.model.opset;
    // Both means over the same axes, keeping them.
    std::set<uint32_t> axes[2];
    for (int k = 0; k < 2; ++k) {
        const auto& node = g.node(p.reduceMean[k]);
        const auto* keep = FindAttr(node, "keepdims");
        if (keep && keep->i() != 1) return *why = "a ReduceMean drops the reduced axes (keepdims=0)", false;
        std::vector<int64_t> list;
        if (opset >= 18) {
            if (node.input_size() > 1 && !node.input(1).empty()) {
                const Value* a = l.Lowered(node.input(1));
                if (!a || !a->host || a->type != DML_TENSOR_DATA_TYPE_INT64)
                    return *why = "a ReduceMean's axes are not known while lowering", false;
                list.resize(a->ElementCount());
                if (!list.empty()) std::memcpy(list.data(), a->host->data(), list.size() * 8);
            }
        } else if (const auto* a = FindAttr(node, "axes")) {
            list.assign(a->ints().begin(), a->ints().end());
        }
        if (list.empty()) {
            const auto* noop = FindAttr(node, "noop_with_empty_axes");
            if (noop && noop->i() != 0) return *why = "a ReduceMean reduces nothing (noop_with_empty_axes)", false;
            for (size_t a = 0; a < r; ++a) list.push_back(int64_t(a));
        }
        for (int64_t a : list) {
            if (a < -int64_t(r) || a >= int64_t(r)) return *why = "a ReduceMean's axis is out of range", false;
            axes[k].insert(static_cast<uint32_t>(a < 0 ? a + int64_t(r) : a));
        }
    }
    if (axes[0] != axes[1]) return *why = "the two ReduceMean nodes reduce different axes", false;

    std::map<std::string, int> producers = Producers(g);
    double exponent = 2, epsilon = 0;
    if (!p.exponent.empty() && (!ScalarOf(l, producers, p.exponent, 0, &exponent) || exponent != 2))
        return *why = "the Pow's exponent is not a scalar 2", false;
    const Value* eps = l.Lowered(p.epsilon);
    if (!eps || !FitsInside(*eps, x->shape) || !ScalarOf(l, producers, p.epsilon, 0, &epsilon) ||
        !std::isfinite(epsilon) || epsilon < 0) {
        return *why = "epsilon is not a non-negative scalar known while lowering", false;
    }
    const Value* scale = p.scale.empty() ? nullptr : l.Lowered(p.scale);
    const Value* bias = p.bias.empty() ? nullptr : l.Lowered(p.bias);
    for (const Value* v : {scale, bias}) {
        if (!v) continue;
        if (v->type != x->type || !FitsInside(*v, x->shape))
            return *why = "the scale or bias is not of the input's type or does not broadcast to it", false;
    }
    if ((!p.scale.empty() && !scale) || (!p.bias.empty() && !bias)) return *why = "the scale or bias is not lowered", false;

    const ::onnx::NodeProto& named = g.node(p.nodes.back());
    NodeContext c(l, named, opset);
    const size_t rank = std::max<size_t>(4, r);
    const Shape in = Lead(x->shape, rank);
    std::vector<uint32_t> dmlAxes;
    for (uint32_t a : axes[0]) dmlAxes.push_back(a + static_cast<uint32_t>(rank - r));
    auto* d = c.Make(DML_MEAN_VARIANCE_NORMALIZATION1_OPERATOR_DESC{});
    d->InputTensor = c.InDescRank(*x, rank);
    Shape sizes, strides;
    if (scale) {
        c.Broadcast(*scale, in, &sizes, &strides);
        d->ScaleTensor = c.InDesc(*scale, sizes, strides);
    }
    if (bias) {
        c.Broadcast(*bias, in, &sizes, &strides);
        d->BiasTensor = c.InDesc(*bias, sizes, strides);
    }
    d->OutputTensor = c.OutDesc(x->type, in);
    d->AxisCount = static_cast<UINT>(dmlAxes.size());
    d->Axes = c.Array(dmlAxes);
    d->NormalizeVariance = TRUE;
    d->Epsilon = static_cast<float>(epsilon);
    const uint32_t n = c.Emit(DML_OPERATOR_MEAN_VARIANCE_NORMALIZATION1, d, {x, scale, bias}, "(fused layer normalization)");
    l.values[named.output(0)] = c.NodeOutput(n, 0, x->type, x->onnxType, x->shape);
    std::string axisText;
    for (uint32_t a : axes[0]) axisText += (axisText.empty() ? "" : ", ") + std::to_string(a);
    char eText[32];
    std::snprintf(eText, sizeof eText, "%g", epsilon);
    l.graph.notes.push_back("layer normalization fused into MEAN_VARIANCE_NORMALIZATION1 (node " + std::to_string(n) +
                            ", axes {" + axisText + "}, epsilon " + eText +
                            (scale ? (bias ? ", scale and bias" : ", scale") : "") + "): " + NodeNames(g, p.nodes));
    return true;
}

std::map<int, GeluPattern> FindGeluPatterns(const ::onnx::GraphProto& g) {
    const Readers r(g);
    const std::map<std::string, int> producers = Producers(g);
    auto producer = [&](const std::string& name) {
        auto it = producers.find(name);
        return it == producers.end() ? -1 : it->second;
    };
    std::map<int, GeluPattern> found;
    for (int erf = 0; erf < g.node_size(); ++erf) {
        if (!r.Is(erf, "Erf", 1)) continue;
        const std::string& scaled = g.node(erf).input(0);
        const int pre = producer(scaled);
        if (r.Only(scaled) != erf || (!r.Is(pre, "Div", 2) && !r.Is(pre, "Mul", 2))) continue;
        const bool divides = g.node(pre).op_type() == "Div";
        // x / c, or x * c with either input x (settled below by the product with x).
        std::vector<std::pair<std::string, std::string>> candidates;  // {x, constant}
        candidates.push_back({g.node(pre).input(0), g.node(pre).input(1)});
        if (!divides) candidates.push_back({g.node(pre).input(1), g.node(pre).input(0)});
        const int plus = r.Only(g.node(erf).output(0));
        if (!r.Is(plus, "Add", 2)) continue;
        const std::string one = Other(g.node(plus), g.node(erf).output(0));
        if (one.empty() || one == g.node(erf).output(0)) continue;
        const std::string& sum = g.node(plus).output(0);
        const int m1 = r.Only(sum);
        if (!r.Is(m1, "Mul", 2)) continue;
        const std::string other1 = Other(g.node(m1), sum);
        if (other1.empty() || other1 == sum) continue;
        for (const auto& [x, constant] : candidates) {
            if (x == constant) continue;
            GeluPattern p;
            p.input = x;
            p.divisor = divides ? constant : std::string();
            p.multiplier = divides ? std::string() : constant;
            p.one = one;
            const std::string& product = g.node(m1).output(0);
            const int m2 = r.Only(product);
            const int h = producer(other1);
            if (other1 == x) {
                // (x * (1 + erf)) * 0.5
                if (!r.Is(m2, "Mul", 2)) continue;
                p.half = Other(g.node(m2), product);
                if (p.half.empty() || p.half == product) continue;
                p.nodes = {pre, erf, plus, m1, m2};
            } else if (r.Is(h, "Mul", 2) && r.Only(other1) == m1 && !Other(g.node(h), x).empty() &&
                       Other(g.node(h), x) != x) {
                // (x * 0.5) * (1 + erf)
                p.half = Other(g.node(h), x);
                p.nodes = {h, pre, erf, plus, m1};
            } else if (r.Is(m2, "Mul", 2) && Other(g.node(m2), product) == x) {
                // ((1 + erf) * 0.5) * x
                p.half = other1;
                p.nodes = {pre, erf, plus, m1, m2};
            } else {
                continue;
            }
            std::sort(p.nodes.begin(), p.nodes.end());
            found[p.nodes.back()] = p;
            break;
        }
    }
    return found;
}

bool LowerGelu(Lowerer& l, const GeluPattern& p, std::string* why) {
    const auto& g = l.model.proto->graph();
    const Value* x = l.Lowered(p.input);
    if (!FusibleInput(x, why)) return false;
    const std::map<std::string, int> producers = Producers(g);
    // A constant: a scalar (or all-ones shape inside x's) known while lowering, equal to `want`
    // within `tolerance` (relative).
    auto constant = [&](const std::string& name, double want, double tolerance) {
        const Value* v = l.Lowered(name);
        double value = 0;
        return v && FitsInside(*v, x->shape) && ScalarOf(l, producers, name, 0, &value) &&
               std::fabs(value - want) <= tolerance * want;
    };
    // sqrt(2) and its reciprocal as float32 or float16 round them.
    const double rounding = x->type == DML_TENSOR_DATA_TYPE_FLOAT16 ? 1.0 / 1024 : 1.0 / (1 << 23);
    const bool scaled = p.divisor.empty() ? constant(p.multiplier, std::sqrt(0.5), rounding)
                                          : constant(p.divisor, std::sqrt(2.0), rounding);
    if (!scaled) return *why = "x is not divided by sqrt(2) (or multiplied by its reciprocal)", false;
    if (!constant(p.one, 1.0, 0.0)) return *why = "erf's result is not added to 1", false;
    if (!constant(p.half, 0.5, 0.0)) return *why = "the product is not halved", false;

    const ::onnx::NodeProto& named = g.node(p.nodes.back());
    NodeContext c(l, named, l.model.opset);
    const size_t rank = std::max<size_t>(4, x->shape.size());
    auto* d = c.Make(DML_ACTIVATION_GELU_OPERATOR_DESC{});
    d->InputTensor = c.InDescRank(*x, rank);
    d->OutputTensor = c.OutDesc(x->type, Lead(x->shape, rank));
    const uint32_t n = c.Emit(DML_OPERATOR_ACTIVATION_GELU, d, {x}, "(fused GELU)");
    l.values[named.output(0)] = c.NodeOutput(n, 0, x->type, x->onnxType, x->shape);
    l.graph.notes.push_back("GELU fused into ACTIVATION_GELU (node " + std::to_string(n) + "): " + NodeNames(g, p.nodes));
    return true;
}

}  // namespace freedml::onnx
