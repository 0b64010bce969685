// Neural-network ONNX operators: convolution, pooling, normalization, Gemm/MatMul, Softmax,
// reductions.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>
#include <string>

#include "context.h"

namespace freedml::onnx {

namespace {

Shape Lead(const Shape& shape, size_t rank) {
    Shape out(rank > shape.size() ? rank - shape.size() : 0, 1);
    out.insert(out.end(), shape.begin(), shape.end());
    return out;
}

// Sizes and strides of `v` with trailing 1s up to `rank` (N, C, spatial...: 1-D spatial becomes 2-D).
void Trail(const Value& v, size_t rank, Shape* sizes, Shape* strides) {
    *sizes = v.shape;
    *strides = v.strides;
    while (sizes->size() < rank) {
        sizes->push_back(1);
        strides->push_back(1);
    }
}

Shape TrailShape(Shape s, size_t rank) {
    while (s.size() < rank) s.push_back(1);
    return s;
}

// A [C] tensor read as {1, C, 1, ...} of `rank` dimensions.
const DML_TENSOR_DESC* ChannelDesc(NodeContext& c, const Value& v, size_t rank) {
    if (v.shape.size() != 1) c.Fail("a per-channel input has shape " + ShapeText(v.shape) + ", not one dimension.");
    Shape sizes(rank, 1), strides(rank, 0);
    sizes[1] = v.shape[0];
    strides[1] = v.strides[0];
    return c.InDesc(v, sizes, strides);
}

struct Window {
    std::vector<uint32_t> kernel, strides, dilations, start, end;
};

// Kernel, strides, dilations and padding of a convolution or pooling window, with auto_pad and
// ceil_mode resolved against the inferred output sizes (`spatial` input and output sizes).
Window ResolveWindow(NodeContext& c, const Shape& in, const Shape& out, const std::vector<int64_t>& kernel,
                     bool transposed = false) {
    const size_t n = kernel.size();
    Window w;
    auto ints = [&](const char* name, int64_t fallback, size_t count) {
        std::vector<int64_t> v = c.Ints(name);
        if (v.empty()) v.assign(count, fallback);
        if (v.size() != count) c.Fail(std::string("attribute ") + name + " has " + std::to_string(v.size()) + " values, not " + std::to_string(count) + ".");
        std::vector<uint32_t> u;
        for (int64_t x : v) {
            if (x < 0) c.Fail(std::string("attribute ") + name + " has a negative value.");
            u.push_back(static_cast<uint32_t>(x));
        }
        return u;
    };
    for (int64_t k : kernel) w.kernel.push_back(static_cast<uint32_t>(k));
    w.strides = ints("strides", 1, n);
    w.dilations = ints("dilations", 1, n);
    std::vector<uint32_t> pads = ints("pads", 0, 2 * n);
    w.start.assign(pads.begin(), pads.begin() + n);
    w.end.assign(pads.begin() + n, pads.end());
    const std::string autoPad = c.String("auto_pad", "NOTSET");
    for (size_t d = 0; d < n; ++d) {
        const int64_t window = int64_t(w.kernel[d] - 1) * w.dilations[d] + 1;
        if (transposed) {
            if (autoPad == "SAME_UPPER" || autoPad == "SAME_LOWER" || c.Has("output_shape")) {
                const int64_t outPad = c.Ints("output_padding").empty() ? 0 : c.Ints("output_padding")[d];
                int64_t total = int64_t(in[d] - 1) * w.strides[d] + window + outPad - out[d];
                if (total < 0) total = 0;
                w.start[d] = static_cast<uint32_t>(autoPad == "SAME_UPPER" ? total / 2 : total - total / 2);
                w.end[d] = static_cast<uint32_t>(total - w.start[d]);
            }
            continue;
        }
        if (autoPad == "SAME_UPPER" || autoPad == "SAME_LOWER") {
            int64_t total = int64_t(out[d] - 1) * w.strides[d] + window - in[d];
            if (total < 0) total = 0;
            w.start[d] = static_cast<uint32_t>(autoPad == "SAME_UPPER" ? total / 2 : total - total / 2);
            w.end[d] = static_cast<uint32_t>(total - w.start[d]);
        } else if (autoPad == "VALID") {
            w.start[d] = w.end[d] = 0;
        }
        // ceil_mode (and any rounding shape inference chose): extend the end padding until the
        // floor formula gives the inferred size.
        int64_t need = int64_t(out[d] - 1) * w.strides[d] + window - (int64_t(in[d]) + w.start[d] + w.end[d]);
        if (need > 0) w.end[d] += static_cast<uint32_t>(need);
    }
    return w;
}

// The window of a convolution, resolved for DirectML's rank (at least 4: 1-D becomes 2-D).
struct ConvGeometry {
    Window w;
    size_t rank = 4, dims = 2;
    std::vector<uint32_t> outPad;
};

ConvGeometry ResolveConv(NodeContext& c, const Value& x, const Value& wv, const Shape& out, bool transposed) {
    const size_t r = x.shape.size();
    if (r < 3 || r > 5) c.Fail("convolution of a " + std::to_string(r) + "-D input is not supported (3-D to 5-D).");
    const size_t spatial = r - 2;
    std::vector<int64_t> kernel = c.Ints("kernel_shape");
    if (kernel.empty()) for (size_t d = 2; d < wv.shape.size(); ++d) kernel.push_back(wv.shape[d]);
    Shape inSp(x.shape.begin() + 2, x.shape.end()), outSp(out.begin() + 2, out.end());
    ConvGeometry g;
    g.w = ResolveWindow(c, inSp, outSp, kernel, transposed);
    Window& w = g.w;
    g.rank = std::max<size_t>(4, r);
    g.dims = g.rank - 2;
    while (w.kernel.size() < g.dims) {  // 1-D: a 2-D window of width 1
        w.kernel.push_back(1); w.strides.push_back(1); w.dilations.push_back(1); w.start.push_back(0); w.end.push_back(0);
    }
    g.outPad.assign(g.dims, 0);
    if (transposed) {
        std::vector<int64_t> op = c.Ints("output_padding");
        for (size_t d = 0; d < op.size() && d < g.dims; ++d) g.outPad[d] = static_cast<uint32_t>(op[d]);
        if (c.Has("output_shape")) {
            // Padding was chosen to reach output_shape exactly; the rest is output padding.
            for (size_t d = 0; d < spatial; ++d) {
                int64_t natural = int64_t(inSp[d] - 1) * w.strides[d] + int64_t(w.kernel[d] - 1) * w.dilations[d] + 1 -
                                  w.start[d] - w.end[d];
                g.outPad[d] = static_cast<uint32_t>(std::max<int64_t>(0, int64_t(outSp[d]) - natural));
            }
        }
    }
    return g;
}

// The window fields every DirectML convolution desc shares.
template <class Desc>
void SetConvWindow(NodeContext& c, const ConvGeometry& g, UINT groups, Desc* d) {
    d->DimensionCount = static_cast<UINT>(g.dims);
    d->Strides = c.Array(g.w.strides);
    d->Dilations = c.Array(g.w.dilations);
    d->StartPadding = c.Array(g.w.start);
    d->EndPadding = c.Array(g.w.end);
    d->GroupCount = groups;
}

void Conv(NodeContext& c, bool transposed) {
    const Value& x = c.Input(0);
    const Value& wv = c.Input(1);
    Shape out = c.OutShape(0);
    ConvGeometry g = ResolveConv(c, x, wv, out, transposed);
    const size_t rank = g.rank;
    Shape s, t;
    auto* d = c.Make(DML_CONVOLUTION_OPERATOR_DESC{});
    Trail(x, rank, &s, &t);
    d->InputTensor = c.InDesc(x, s, t);
    Trail(wv, rank, &s, &t);
    d->FilterTensor = c.InDesc(wv, s, t);
    const Value* bias = c.HasInput(2) ? &c.Input(2) : nullptr;
    d->BiasTensor = bias ? ChannelDesc(c, *bias, rank) : nullptr;
    d->OutputTensor = c.OutDesc(c.OutType(0), TrailShape(out, rank));
    d->Mode = DML_CONVOLUTION_MODE_CROSS_CORRELATION;
    d->Direction = transposed ? DML_CONVOLUTION_DIRECTION_BACKWARD : DML_CONVOLUTION_DIRECTION_FORWARD;
    SetConvWindow(c, g, static_cast<UINT>(c.Int("group", 1)), d);
    d->OutputPadding = c.Array(g.outPad);
    c.EmitSingle(DML_OPERATOR_CONVOLUTION, d, {&x, &wv, bias});
}

// A scale or zero point (a scalar, or 1-D with one value per index of `axis`) read with `rank`
// dimensions: every size 1 but `axis`, as DirectML's quantized operators take them.
const DML_TENSOR_DESC* QuantParamDesc(NodeContext& c, const Value& v, size_t rank, size_t axis, uint32_t axisSize,
                                      const char* what) {
    Shape sizes(rank, 1), strides(rank, 0);
    uint64_t count = v.ElementCount();
    if (v.shape.size() > 1 || (count != 1 && count != axisSize)) {
        c.Fail(std::string(what) + " has shape " + ShapeText(v.shape) + "; it must be a scalar or hold " +
               std::to_string(axisSize) + " values.");
    }
    if (count > 1) {
        sizes[axis] = axisSize;
        strides[axis] = v.strides[0];
    }
    return c.InDesc(v, sizes, strides);
}

// ConvInteger (x, w, x_zero_point?, w_zero_point?) and QLinearConv (x, x_scale, x_zero_point, w,
// w_scale, w_zero_point, y_scale, y_zero_point, B?): the input's parameters per tensor, the
// filter's per tensor or per output channel.
void QuantizedConv(NodeContext& c, bool linear) {
    const size_t xi = 0, wi = linear ? 3 : 1;
    const Value& x = c.Input(xi);
    const Value& wv = c.Input(wi);
    Shape out = c.OutShape(0);
    ConvGeometry g = ResolveConv(c, x, wv, out, false);
    const size_t rank = g.rank;
    const uint32_t channels = out[1];
    auto opt = [&](size_t i) { return c.HasInput(i) ? &c.Input(i) : nullptr; };
    auto param = [&](const Value* v, bool perChannel, const char* what) -> const DML_TENSOR_DESC* {
        if (!v) return nullptr;
        return QuantParamDesc(c, *v, rank, 1, perChannel ? channels : 1, what);
    };
    Shape s, t;
    Trail(x, rank, &s, &t);
    const DML_TENSOR_DESC* in = c.InDesc(x, s, t);
    Trail(wv, rank, &s, &t);
    const DML_TENSOR_DESC* filter = c.InDesc(wv, s, t);
    const DML_TENSOR_DESC* output = c.OutDesc(c.OutType(0), TrailShape(out, rank));
    const UINT groups = static_cast<UINT>(c.Int("group", 1));
    if (!linear) {
        const Value *xz = opt(2), *wz = opt(3);
        auto* d = c.Make(DML_CONVOLUTION_INTEGER_OPERATOR_DESC{});
        d->InputTensor = in;
        d->InputZeroPointTensor = param(xz, false, "x_zero_point");
        d->FilterTensor = filter;
        d->FilterZeroPointTensor = param(wz, true, "w_zero_point");
        d->OutputTensor = output;
        SetConvWindow(c, g, groups, d);
        c.EmitSingle(DML_OPERATOR_CONVOLUTION_INTEGER, d, {&x, xz, &wv, wz});
        return;
    }
    const Value *xs = &c.Input(1), *xz = opt(2), *ws = &c.Input(4), *wz = opt(5), *ys = &c.Input(6), *yz = opt(7),
                *bias = opt(8);
    auto* d = c.Make(DML_QUANTIZED_LINEAR_CONVOLUTION_OPERATOR_DESC{});
    d->InputTensor = in;
    d->InputScaleTensor = param(xs, false, "x_scale");
    d->InputZeroPointTensor = param(xz, false, "x_zero_point");
    d->FilterTensor = filter;
    d->FilterScaleTensor = param(ws, true, "w_scale");
    d->FilterZeroPointTensor = param(wz, true, "w_zero_point");
    d->BiasTensor = bias ? ChannelDesc(c, *bias, rank) : nullptr;
    d->OutputScaleTensor = param(ys, false, "y_scale");
    d->OutputZeroPointTensor = param(yz, false, "y_zero_point");
    d->OutputTensor = output;
    SetConvWindow(c, g, groups, d);
    c.EmitSingle(DML_OPERATOR_QUANTIZED_LINEAR_CONVOLUTION, d, {&x, xs, xz, &wv, ws, wz, bias, ys, yz});
}

void Pool(NodeContext& c, bool max) {
    const bool indices = max && c.HasOutput(1);
    if (indices && c.Int("storage_order", 0) != 0) {
        c.Fail(
            "storage_order 1 (column-major Indices) has no DirectML equivalent (MAX_POOLING2's indices are "
            "row-major).");
    }
    const Value& x = c.Input(0);
    Shape out = c.OutShape(0);
    const size_t r = x.shape.size();
    if (r < 3 || r > 5) c.Fail("pooling of a " + std::to_string(r) + "-D input is not supported (3-D to 5-D).");
    Shape inSp(x.shape.begin() + 2, x.shape.end()), outSp(out.begin() + 2, out.end());
    Window w = ResolveWindow(c, inSp, outSp, c.Ints("kernel_shape"));
    const size_t rank = std::max<size_t>(4, r);
    const size_t dims = rank - 2;
    while (w.kernel.size() < dims) {
        w.kernel.push_back(1); w.strides.push_back(1); w.dilations.push_back(1); w.start.push_back(0); w.end.push_back(0);
    }
    Shape s, t;
    Trail(x, rank, &s, &t);
    const DML_TENSOR_DESC* in = c.InDesc(x, s, t);
    const DML_TENSOR_DESC* o = c.OutDesc(c.OutType(0), TrailShape(out, rank));
    if (max) {
        auto* d = c.Make(DML_MAX_POOLING2_OPERATOR_DESC{});
        d->InputTensor = in;
        d->OutputTensor = o;
        d->DimensionCount = static_cast<UINT>(dims);
        d->Strides = c.Array(w.strides);
        d->WindowSize = c.Array(w.kernel);
        d->StartPadding = c.Array(w.start);
        d->EndPadding = c.Array(w.end);
        d->Dilations = c.Array(w.dilations);
        if (!indices) {
            c.EmitSingle(DML_OPERATOR_MAX_POOLING2, d, {&x});
            return;
        }
        // Indices: flat positions in the input (N, C and the spatial dimensions, as ONNX's), which
        // DirectML gives as UINT64; a cast makes them ONNX's INT64.
        const Shape outR = TrailShape(out, rank);
        d->OutputIndicesTensor = c.OutDesc(DML_TENSOR_DATA_TYPE_UINT64, outR);
        const uint32_t node = c.Emit(DML_OPERATOR_MAX_POOLING2, d, {&x});
        c.SetOutput(0, c.NodeOutput(node, 0, c.OutType(0), c.OutOnnxType(0), out));
        Value flat = c.NodeOutput(node, 1, DML_TENSOR_DATA_TYPE_UINT64, c.OutOnnxType(1), out);
        auto* cast = c.Make(DML_CAST_OPERATOR_DESC{});
        Trail(flat, rank, &s, &t);
        cast->InputTensor = c.InDesc(flat, s, t);
        cast->OutputTensor = c.OutDesc(c.OutType(1), outR);
        c.EmitSingle(DML_OPERATOR_CAST, cast, {&flat}, 1);
        return;
    }
    const bool includePad = c.Int("count_include_pad", 0) != 0;
    if (includePad && c.Int("ceil_mode", 0) != 0) {
        c.Fail("AveragePool with both ceil_mode and count_include_pad is not lowered yet (DirectML would count "
               "the extra window positions as padding).");
    }
    auto* d = c.Make(DML_AVERAGE_POOLING1_OPERATOR_DESC{});
    d->InputTensor = in;
    d->OutputTensor = o;
    d->DimensionCount = static_cast<UINT>(dims);
    d->Strides = c.Array(w.strides);
    d->WindowSize = c.Array(w.kernel);
    d->StartPadding = c.Array(w.start);
    d->EndPadding = c.Array(w.end);
    d->Dilations = c.Array(w.dilations);
    d->IncludePadding = includePad;
    c.EmitSingle(DML_OPERATOR_AVERAGE_POOLING1, d, {&x});
}

// MaxUnpool: MAX_UNPOOLING scatters each value to its index in the output (MaxPool's flat indices,
// INT64 read as UINT64); the output's size comes from shape inference (output_shape, or the window).
void MaxUnpool(NodeContext& c) {
    const Value& x = c.Input(0);
    Value indices = c.Input(1);
    if (c.HasInput(2)) c.HostInts(2);  // output_shape must be known when the graph is built
    Shape out = c.OutShape(0);
    const size_t r = x.shape.size();
    if (r < 3 || r > 5) c.Fail("unpooling of a " + std::to_string(r) + "-D input is not supported (3-D to 5-D).");
    if (indices.type == DML_TENSOR_DATA_TYPE_INT64) indices.type = DML_TENSOR_DATA_TYPE_UINT64;
    const size_t rank = std::max<size_t>(4, r);
    // The indices address the unpooled size the window gives; a larger output_shape pads that
    // result with zeros at the end of each spatial dimension (as ONNX's reference does).
    const std::vector<int64_t> kernel = c.Ints("kernel_shape"), strides = c.Ints("strides"), pads = c.Ints("pads");
    const size_t spatial = r - 2;
    if (kernel.size() != spatial) c.Fail("kernel_shape must have one value per spatial dimension.");
    Shape natural(x.shape.begin(), x.shape.begin() + 2);
    for (size_t i = 0; i < spatial; ++i) {
        const int64_t stride = i < strides.size() ? strides[i] : 1;
        const int64_t pad = pads.size() == 2 * spatial ? pads[i] + pads[spatial + i] : 0;
        const int64_t size = (int64_t(x.shape[2 + i]) - 1) * stride + kernel[i] - pad;
        if (size < 1 || size > int64_t(out[2 + i])) c.Fail("output_shape is smaller than the unpooled size.");
        natural.push_back(static_cast<uint32_t>(size));
    }
    Shape s, t;
    auto* d = c.Make(DML_MAX_UNPOOLING_OPERATOR_DESC{});
    Trail(x, rank, &s, &t);
    d->InputTensor = c.InDesc(x, s, t);
    Trail(indices, rank, &s, &t);
    d->IndicesTensor = c.InDesc(indices, s, t);
    d->OutputTensor = c.OutDesc(c.OutType(0), TrailShape(natural, rank));
    if (natural == out) {
        c.EmitSingle(DML_OPERATOR_MAX_UNPOOLING, d, {&x, &indices});
        return;
    }
    const uint32_t node = c.Emit(DML_OPERATOR_MAX_UNPOOLING, d, {&x, &indices}, "(unpooled)");
    Value unpooled = c.NodeOutput(node, 0, c.OutType(0), c.OutOnnxType(0), natural);
    std::vector<uint32_t> start(rank, 0), end(rank, 0);
    for (size_t i = 2; i < r; ++i) end[i] = out[i] - natural[i];
    auto* p = c.Make(DML_PADDING_OPERATOR_DESC{});
    Trail(unpooled, rank, &s, &t);
    p->InputTensor = c.InDesc(unpooled, s, t);
    p->OutputTensor = c.OutDesc(c.OutType(0), TrailShape(out, rank));
    p->PaddingMode = DML_PADDING_MODE_CONSTANT;
    p->PaddingValue = 0.0f;
    p->DimensionCount = static_cast<UINT>(rank);
    p->StartPadding = c.Array(start);
    p->EndPadding = c.Array(end);
    c.EmitSingle(DML_OPERATOR_PADDING, p, {&unpooled});
}

// One activation of a recurrent operator (ONNX's `activations` names) as the fused-activation desc
// DirectML's RNN, GRU and LSTM take, without tensors.
DML_OPERATOR_DESC RecurrentActivation(NodeContext& c, const std::string& name, float alpha, float beta, bool hasAlpha,
                                      bool hasBeta) {
    auto simple = [&](DML_OPERATOR_TYPE type) {
        return DML_OPERATOR_DESC{type, c.Make(DML_ACTIVATION_SIGMOID_OPERATOR_DESC{})};  // {Input, Output}, both null
    };
    if (name == "Sigmoid") return simple(DML_OPERATOR_ACTIVATION_SIGMOID);
    if (name == "Tanh") return simple(DML_OPERATOR_ACTIVATION_TANH);
    if (name == "Relu") return simple(DML_OPERATOR_ACTIVATION_RELU);
    if (name == "Softsign") return simple(DML_OPERATOR_ACTIVATION_SOFTSIGN);
    if (name == "Softplus")
        return {DML_OPERATOR_ACTIVATION_SOFTPLUS,
                c.Make(DML_ACTIVATION_SOFTPLUS_OPERATOR_DESC{nullptr, nullptr, 1.0f})};
    if (name == "LeakyRelu") {
        return {DML_OPERATOR_ACTIVATION_LEAKY_RELU,
                c.Make(DML_ACTIVATION_LEAKY_RELU_OPERATOR_DESC{nullptr, nullptr, hasAlpha ? alpha : 0.01f})};
    }
    if (name == "ThresholdedRelu") {
        return {DML_OPERATOR_ACTIVATION_THRESHOLDED_RELU,
                c.Make(DML_ACTIVATION_THRESHOLDED_RELU_OPERATOR_DESC{nullptr, nullptr, hasAlpha ? alpha : 1.0f})};
    }
    if (name == "Elu")
        return {DML_OPERATOR_ACTIVATION_ELU,
                c.Make(DML_ACTIVATION_ELU_OPERATOR_DESC{nullptr, nullptr, hasAlpha ? alpha : 1.0f})};
    if (name == "HardSigmoid") {
        return {DML_OPERATOR_ACTIVATION_HARD_SIGMOID,
                c.Make(DML_ACTIVATION_HARD_SIGMOID_OPERATOR_DESC{nullptr, nullptr, hasAlpha ? alpha : 0.2f,
                                                                 hasBeta ? beta : 0.5f})};
    }
    if (name == "Affine") {
        return {DML_OPERATOR_ACTIVATION_LINEAR, c.Make(DML_ACTIVATION_LINEAR_OPERATOR_DESC{
                                                    nullptr, nullptr, hasAlpha ? alpha : 1.0f, hasBeta ? beta : 0.0f})};
    }
    if (name == "ScaledTanh") {
        return {DML_OPERATOR_ACTIVATION_SCALED_TANH,
                c.Make(DML_ACTIVATION_SCALED_TANH_OPERATOR_DESC{nullptr, nullptr, hasAlpha ? alpha : 1.0f,
                                                                hasBeta ? beta : 1.0f})};
    }
    c.Fail("the recurrent activation '" + name + "' has no DirectML equivalent.");
}

// RNN, GRU and LSTM: one DirectML operator each, the ONNX tensors read with a leading 1 (layout 1's
// batch-major X, initial states and outputs as strided views), gate orders the same as ONNX's.
void Recurrent(NodeContext& c, DML_OPERATOR_TYPE type) {
    const bool lstm = type == DML_OPERATOR_LSTM, gru = type == DML_OPERATOR_GRU;
    const size_t gates = lstm ? 4 : gru ? 3 : 1;
    const std::string direction = c.String("direction", "forward");
    const DML_RECURRENT_NETWORK_DIRECTION dir = direction == "reverse" ? DML_RECURRENT_NETWORK_DIRECTION_BACKWARD
                                                : direction == "bidirectional"
                                                    ? DML_RECURRENT_NETWORK_DIRECTION_BIDIRECTIONAL
                                                    : DML_RECURRENT_NETWORK_DIRECTION_FORWARD;
    if (direction != "forward" && direction != "reverse" && direction != "bidirectional") {
        c.Fail("direction '" + direction + "' is not forward, reverse or bidirectional.");
    }
    const uint32_t dirs = dir == DML_RECURRENT_NETWORK_DIRECTION_BIDIRECTIONAL ? 2 : 1;
    const bool batchMajor = c.Int("layout", 0) != 0;
    const Value& x = c.Input(0);
    const Value& w = c.Input(1);
    const Value& r = c.Input(2);
    if (x.shape.size() != 3 || w.shape.size() != 3) c.Fail("X and W must have 3 dimensions.");
    const uint32_t seq = batchMajor ? x.shape[1] : x.shape[0], batch = batchMajor ? x.shape[0] : x.shape[1];
    const uint32_t hidden = w.shape[1] / static_cast<uint32_t>(gates);
    auto opt = [&](size_t i) { return c.HasInput(i) ? &c.Input(i) : nullptr; };
    // X: {1, seq, batch, input}.
    Shape xs = {1, seq, batch, x.shape[2]};
    Shape xt = batchMajor ? Shape{0, x.strides[1], x.strides[0], x.strides[2]}
                          : Shape{0, x.strides[0], x.strides[1], x.strides[2]};
    // A state [dirs, batch, hidden] (layout 1: [batch, dirs, hidden]) as {1, dirs, batch, hidden}.
    auto state = [&](const Value* v) -> const DML_TENSOR_DESC* {
        if (!v) return nullptr;
        if (v->shape.size() != 3) c.Fail("an initial state must have 3 dimensions.");
        Shape t = batchMajor ? Shape{0, v->strides[1], v->strides[0], v->strides[2]}
                             : Shape{0, v->strides[0], v->strides[1], v->strides[2]};
        return c.InDesc(*v, {1, dirs, batch, hidden}, t);
    };
    const Value* bias = opt(3);
    Value lengths;
    const Value* lengthsPtr = nullptr;
    if (const Value* l = opt(4)) {
        lengths = *l;
        lengths.type = DML_TENSOR_DATA_TYPE_UINT32;  // ONNX's INT32 lengths, non-negative: the same bytes
        lengthsPtr = &lengths;
    }
    const Value* h0 = opt(5);
    const Value* c0 = lstm ? opt(6) : nullptr;
    const Value* peep = lstm ? opt(7) : nullptr;

    // Activations: ONNX's defaults per cell, repeated for each direction.
    std::vector<std::string> names;
    for (const auto& a : c.node.attribute()) {
        if (a.name() == "activations") names.assign(a.strings().begin(), a.strings().end());
    }
    const size_t perDirection = lstm ? 3 : gru ? 2 : 1;
    if (names.empty()) {
        const std::vector<std::string> defaults = lstm  ? std::vector<std::string>{"Sigmoid", "Tanh", "Tanh"}
                                                  : gru ? std::vector<std::string>{"Sigmoid", "Tanh"}
                                                        : std::vector<std::string>{"Tanh"};
        for (uint32_t d = 0; d < dirs; ++d) names.insert(names.end(), defaults.begin(), defaults.end());
    }
    if (names.size() != perDirection * dirs)
        c.Fail("activations has " + std::to_string(names.size()) + " names, not " +
               std::to_string(perDirection * dirs) + ".");
    const std::vector<float> alphas = c.Floats("activation_alpha"), betas = c.Floats("activation_beta");
    std::vector<DML_OPERATOR_DESC> activations;
    for (size_t i = 0; i < names.size(); ++i) {
        activations.push_back(RecurrentActivation(c, names[i], i < alphas.size() ? alphas[i] : 0.0f,
                                                  i < betas.size() ? betas[i] : 0.0f, i < alphas.size(),
                                                  i < betas.size()));
    }

    const DML_TENSOR_DATA_TYPE t = x.type;
    const DML_TENSOR_DESC* outSeq = c.HasOutput(0) ? c.OutDesc(t, {seq, dirs, batch, hidden}) : nullptr;
    const DML_TENSOR_DESC* outH = c.HasOutput(1) ? c.OutDesc(t, {1, dirs, batch, hidden}) : nullptr;
    const DML_TENSOR_DESC* outC = lstm && c.HasOutput(2) ? c.OutDesc(t, {1, dirs, batch, hidden}) : nullptr;
    uint32_t node = 0;
    if (lstm) {
        auto* d = c.Make(DML_LSTM_OPERATOR_DESC{});
        d->InputTensor = c.InDesc(x, xs, xt);
        d->WeightTensor = c.InDescRank(w, 4);
        d->RecurrenceTensor = c.InDescRank(r, 4);
        d->BiasTensor = bias ? c.InDescRank(*bias, 4) : nullptr;
        d->HiddenInitTensor = state(h0);
        d->CellMemInitTensor = state(c0);
        d->SequenceLengthsTensor = lengthsPtr ? c.InDescRank(lengths, 4) : nullptr;
        d->PeepholeTensor = peep ? c.InDescRank(*peep, 4) : nullptr;
        d->OutputSequenceTensor = outSeq;
        d->OutputSingleTensor = outH;
        d->OutputCellSingleTensor = outC;
        d->ActivationDescCount = static_cast<UINT>(activations.size());
        d->ActivationDescs = c.Array(activations);
        d->Direction = dir;
        d->UseClipThreshold = c.Has("clip");
        d->ClipThreshold = c.Float("clip", 0.0f);
        d->CoupleInputForget = c.Int("input_forget", 0) != 0;
        node = c.Emit(type, d, {&x, &w, &r, bias, h0, c0, lengthsPtr, peep});
    } else {
        // GRU's and RNN's descs share these fields (GRU adds LinearBeforeReset).
        auto fill = [&](auto* d) {
            d->InputTensor = c.InDesc(x, xs, xt);
            d->WeightTensor = c.InDescRank(w, 4);
            d->RecurrenceTensor = c.InDescRank(r, 4);
            d->BiasTensor = bias ? c.InDescRank(*bias, 4) : nullptr;
            d->HiddenInitTensor = state(h0);
            d->SequenceLengthsTensor = lengthsPtr ? c.InDescRank(lengths, 4) : nullptr;
            d->OutputSequenceTensor = outSeq;
            d->OutputSingleTensor = outH;
            d->ActivationDescCount = static_cast<UINT>(activations.size());
            d->ActivationDescs = c.Array(activations);
            d->Direction = dir;
            return d;
        };
        if (gru) {
            auto* d = fill(c.Make(DML_GRU_OPERATOR_DESC{}));
            d->LinearBeforeReset = c.Int("linear_before_reset", 0) != 0;
            node = c.Emit(type, d, {&x, &w, &r, bias, h0, lengthsPtr});
        } else {
            if (c.Has("clip")) c.Fail("RNN's clip has no DirectML equivalent (DirectML's RNN has no clip threshold).");
            node = c.Emit(type, fill(c.Make(DML_RNN_OPERATOR_DESC{})), {&x, &w, &r, bias, h0, lengthsPtr});
        }
    }
    if (lstm && c.Has("clip") && !(c.Float("clip", 0.0f) >= 0.0f)) c.Fail("clip must not be negative.");
    // Y {seq, dirs, batch, hidden} (layout 1: [batch, seq, dirs, hidden]); Y_h and Y_c {1, dirs,
    // batch, hidden} as [dirs, batch, hidden] (layout 1: [batch, dirs, hidden]).
    const uint32_t bh = batch * hidden;
    if (c.HasOutput(0)) {
        Value y = c.NodeOutput(node, 0, t, c.OutOnnxType(0), {seq, dirs, batch, hidden});
        if (batchMajor) {
            y.shape = {batch, seq, dirs, hidden};
            y.strides = {hidden, dirs * bh, bh, 1};
        }
        c.SetOutput(0, y);
    }
    for (uint32_t i = 1; i < (lstm ? 3u : 2u); ++i) {
        if (!c.HasOutput(i)) continue;
        Value v = c.NodeOutput(node, i, t, c.OutOnnxType(i), {dirs, batch, hidden});
        if (batchMajor) {
            v.shape = {batch, dirs, hidden};
            v.strides = {hidden, bh, 1};
        }
        c.SetOutput(i, v);
    }
}

// RoiAlign: ROI_ALIGN1 with bilinear samples; half_pixel shifts the sample grid by half a pixel
// (the opset 10 behaviour, output_half_pixel, does not); sampling_ratio 0 is the adaptive count
// (ceil(region / output) per axis), otherwise that many samples per axis.
void RoiAlign(NodeContext& c) {
    const Value& x = c.Input(0);
    const Value& rois = c.Input(1);
    Value batches = c.Input(2);
    if (x.shape.size() != 4) c.Fail("X must have 4 dimensions.");
    if (batches.type == DML_TENSOR_DATA_TYPE_INT64) batches.type = DML_TENSOR_DATA_TYPE_UINT64;
    const std::string mode = c.String("mode", "avg");
    if (mode != "avg" && mode != "max") c.Fail("mode '" + mode + "' is not avg or max.");
    const std::string coords =
        c.opset >= 16 ? c.String("coordinate_transformation_mode", "half_pixel") : "output_half_pixel";
    if (coords != "half_pixel" && coords != "output_half_pixel")
        c.Fail("coordinate_transformation_mode '" + coords + "' is not an ONNX mode.");
    const int64_t ratio = c.Int("sampling_ratio", 0);
    if (ratio < 0) c.Fail("sampling_ratio must not be negative.");
    const float scale = c.Float("spatial_scale", 1.0f);
    auto* d = c.Make(DML_ROI_ALIGN1_OPERATOR_DESC{});
    d->InputTensor = c.InDescRank(x, 4);
    d->ROITensor = c.InDescRank(rois, 4);
    d->BatchIndicesTensor = c.InDescRank(batches, 4);
    d->OutputTensor = c.OutDesc(c.OutType(0), c.OutShape(0));
    d->ReductionFunction = mode == "max" ? DML_REDUCE_FUNCTION_MAX : DML_REDUCE_FUNCTION_AVERAGE;
    d->InterpolationMode = DML_INTERPOLATION_MODE_LINEAR;
    d->SpatialScaleX = scale;
    d->SpatialScaleY = scale;
    d->InputPixelOffset = coords == "half_pixel" ? 0.5f : 0.0f;
    d->OutputPixelOffset = -0.5f;
    d->OutOfBoundsInputValue = 0.0f;
    d->MinimumSamplesPerOutput = ratio == 0 ? 1u : static_cast<UINT>(ratio);
    d->MaximumSamplesPerOutput = ratio == 0 ? UINT32_MAX : static_cast<UINT>(ratio);
    d->AlignRegionsToCorners = FALSE;
    c.EmitSingle(DML_OPERATOR_ROI_ALIGN1, d, {&x, &rois, &batches});
}

// Einsum of one or two operands: repeated letters of an operand become a diagonal view (the
// strides added), letters summed away from one operand a REDUCE, and a two-operand contraction a
// batched GEMM over [batch, m, k] x [batch, k, n]; the output order is a view.
void Einsum(NodeContext& c) {
    std::string eq;
    for (char ch : c.String("equation", "")) {
        if (ch != ' ') eq += ch;
    }
    const size_t inputs = c.InputCount();
    if (inputs < 1 || inputs > 2)
        c.Fail("Einsum of " + std::to_string(inputs) + " operands is not lowered (one or two are).");
    const size_t arrow = eq.find("->");
    std::string lhs = eq.substr(0, arrow), rhs = arrow == std::string::npos ? std::string() : eq.substr(arrow + 2);
    std::vector<std::string> terms;
    for (size_t start = 0;;) {
        const size_t comma = lhs.find(',', start);
        terms.push_back(lhs.substr(start, comma - start));
        if (comma == std::string::npos) break;
        start = comma + 1;
    }
    if (terms.size() != inputs)
        c.Fail("the equation names " + std::to_string(terms.size()) + " operands, the node has " +
               std::to_string(inputs) + ".");
    // The ellipsis stands for the leading dimensions no letter names, as digits here.
    std::string ellipsis;
    for (size_t i = 0; i < inputs; ++i) {
        const size_t dots = terms[i].find("...");
        if (dots == std::string::npos) continue;
        const size_t named = terms[i].size() - 3, rank = c.Input(i).shape.size();
        if (rank < named) c.Fail("operand " + std::to_string(i) + " has fewer dimensions than letters.");
        std::string digits;
        for (size_t d = 0; d < rank - named; ++d) digits += static_cast<char>('0' + d);
        if (!ellipsis.empty() && ellipsis != digits)
            c.Fail("operands whose ellipses cover different ranks are not lowered.");
        ellipsis = digits;
        terms[i].replace(dots, 3, digits);
    }
    if (arrow == std::string::npos) {
        std::map<char, int> counts;
        for (const auto& term : terms)
            for (char ch : term) ++counts[ch];
        rhs = ellipsis;
        for (const auto& [ch, n] : counts) {
            if (n == 1 && !(ch >= '0' && ch <= '9')) rhs += ch;
        }
    } else if (const size_t dots = rhs.find("..."); dots != std::string::npos) {
        rhs.replace(dots, 3, ellipsis);
    }
    // Each operand as a view with one dimension per distinct letter.
    std::map<char, uint32_t> size;
    struct Operand {
        Value v;
        std::string letters;
    };
    std::vector<Operand> ops;
    for (size_t i = 0; i < inputs; ++i) {
        const Value& in = c.Input(i);
        const std::string& term = terms[i];
        if (term.size() != in.shape.size())
            c.Fail("operand " + std::to_string(i) + " has " + std::to_string(in.shape.size()) +
                   " dimensions, its term '" + term + "' names " + std::to_string(term.size()) + ".");
        Operand op{in, ""};
        op.v.shape.clear();
        op.v.strides.clear();
        for (size_t d = 0; d < term.size(); ++d) {
            const char ch = term[d];
            auto known = size.find(ch);
            if (known != size.end() && known->second != in.shape[d])
                c.Fail(std::string("the letter '") + ch + "' has two sizes.");
            size[ch] = in.shape[d];
            const size_t at = op.letters.find(ch);
            if (at == std::string::npos) {
                op.letters += ch;
                op.v.shape.push_back(in.shape[d]);
                op.v.strides.push_back(in.strides[d]);
            } else {
                op.v.strides[at] += in.strides[d];  // a diagonal: both indices move together
            }
        }
        ops.push_back(op);
    }
    // A view of `op` with its letters in `order`.
    auto permuted = [&](const Operand& op, const std::string& order) {
        Value v = op.v;
        v.shape.clear();
        v.strides.clear();
        for (char ch : order) {
            const size_t at = op.letters.find(ch);
            v.shape.push_back(op.v.shape[at]);
            v.strides.push_back(op.v.strides[at]);
        }
        return v;
    };
    auto contains = [](const std::string& s, char ch) { return s.find(ch) != std::string::npos; };
    auto sizesOf = [&](const std::string& letters) {
        Shape sh;
        for (char ch : letters) sh.push_back(size[ch]);
        return sh;
    };
    auto product = [&](const std::string& letters) {
        uint32_t n = 1;
        for (char ch : letters) n *= size[ch];
        return n;
    };
    const DML_TENSOR_DATA_TYPE type = c.OutType(0);
    Value result;
    std::string resultLetters;
    if (inputs == 1) {
        std::string kept, summed;
        for (char ch : rhs) {
            if (!contains(ops[0].letters, ch)) c.Fail(std::string("the output letter '") + ch + "' is in no operand.");
            kept += ch;
        }
        for (char ch : ops[0].letters) {
            if (!contains(rhs, ch)) summed += ch;
        }
        Value v = permuted(ops[0], kept + summed);
        if (summed.empty()) {
            result = v;
        } else {
            const size_t rank = std::max<size_t>(4, v.shape.size());
            const size_t lead = rank - v.shape.size();
            Shape reduced(lead, 1);
            for (char ch : kept) reduced.push_back(size[ch]);
            std::vector<uint32_t> axes;
            for (size_t a = 0; a < summed.size(); ++a) {
                reduced.push_back(1);
                axes.push_back(static_cast<uint32_t>(lead + kept.size() + a));
            }
            auto* d = c.Make(DML_REDUCE_OPERATOR_DESC{});
            d->Function = DML_REDUCE_FUNCTION_SUM;
            d->InputTensor = c.InDescRank(v, rank);
            d->OutputTensor = c.OutDesc(type, reduced);
            d->AxisCount = static_cast<UINT>(axes.size());
            d->Axes = c.Array(axes);
            result = c.NodeOutput(c.Emit(DML_OPERATOR_REDUCE, d, {&v}), 0, type, c.OutOnnxType(0), sizesOf(kept));
        }
        resultLetters = kept;
    } else {
        const std::string& la = ops[0].letters;
        const std::string& lb = ops[1].letters;
        std::string batch, m, n, k;
        for (char ch : rhs) {
            const bool a = contains(la, ch), b = contains(lb, ch);
            if (a && b)
                batch += ch;
            else if (a)
                m += ch;
            else if (b)
                n += ch;
            else
                c.Fail(std::string("the output letter '") + ch + "' is in no operand.");
        }
        for (char ch : la) {
            if (contains(rhs, ch)) continue;
            if (!contains(lb, ch))
                c.Fail(std::string("the letter '") + ch +
                       "' is summed within one operand of two; that is not lowered yet.");
            k += ch;
        }
        for (char ch : lb) {
            if (!contains(rhs, ch) && !contains(la, ch))
                c.Fail(std::string("the letter '") + ch +
                       "' is summed within one operand of two; that is not lowered yet.");
        }
        const uint32_t bt = product(batch), mm = product(m), nn = product(n), kk = product(k);
        Value a = c.Reshaped(c.Packed(permuted(ops[0], batch + m + k)), {bt, mm, kk});
        Value b = c.Reshaped(c.Packed(permuted(ops[1], batch + k + n)), {bt, kk, nn});
        auto* d = c.Make(DML_GEMM_OPERATOR_DESC{});
        d->ATensor = c.InDescRank(a, 4);
        d->BTensor = c.InDescRank(b, 4);
        d->OutputTensor = c.OutDesc(type, {1, bt, mm, nn});
        d->TransA = DML_MATRIX_TRANSFORM_NONE;
        d->TransB = DML_MATRIX_TRANSFORM_NONE;
        d->Alpha = 1.0f;
        resultLetters = batch + m + n;
        result =
            c.NodeOutput(c.Emit(DML_OPERATOR_GEMM, d, {&a, &b}), 0, type, c.OutOnnxType(0), sizesOf(resultLetters));
    }
    // The output's letter order as a view of the result.
    Operand done{result, resultLetters};
    c.SetOutput(0, permuted(done, rhs));
}

// Adam (ai.onnx.preview.training): one ADAM_OPTIMIZER per (X, G, V, H) group. ONNX's
// norm_coefficient adds norm_coefficient * X to the gradient first and norm_coefficient_post scales
// the result; the step T is read when the graph is built: T > 0 is DirectML's bias correction, and
// T = 0 (none) runs DirectML's step 1 with the learning rate divided by its correction.
void Adam(NodeContext& c) {
    const size_t groups = (c.InputCount() - 2) / 4;
    if (groups == 0 || c.InputCount() != 2 + 4 * groups) c.Fail("Adam takes R, T and groups of X, G, V and H.");
    const double rate = c.HostFloats(0).at(0);
    const int64_t step = c.HostInts(1).at(0);
    if (step < 0) c.Fail("the step count T is negative.");
    const float beta1 = c.Float("alpha", 0.9f), beta2 = c.Float("beta", 0.999f), epsilon = c.Float("epsilon", 1e-6f);
    const float decay = c.Float("norm_coefficient", 0.0f), post = c.Float("norm_coefficient_post", 0.0f);
    double learningRate = rate;
    float stepValue = static_cast<float>(step);
    if (step == 0) {
        stepValue = 1.0f;
        learningRate = rate * (1.0 - double(beta1)) / std::sqrt(1.0 - double(beta2));
    }
    for (size_t g = 0; g < groups; ++g) {
        const Value& x = c.Input(2 + g);
        const Value& grad = c.Input(2 + groups + g);
        const Value& v = c.Input(2 + 2 * groups + g);
        const Value& h = c.Input(2 + 3 * groups + g);
        const DML_TENSOR_DATA_TYPE type = x.type;
        if (type != DML_TENSOR_DATA_TYPE_FLOAT32 && type != DML_TENSOR_DATA_TYPE_FLOAT16) {
            c.Fail(std::string("Adam of ") + DataTypeName(type) +
                   " is not lowered (DirectML's ADAM_OPTIMIZER takes FLOAT32 or FLOAT16).");
        }
        const Shape flat = {1, 1, 1, static_cast<uint32_t>(x.ElementCount())};
        auto packed = [&](const Value& value) { return c.Reshaped(c.Packed(value), flat); };
        Value xp = packed(x), gp = packed(grad), vp = packed(v), hp = packed(h);
        if (decay != 0.0f) {
            // G + decay * X: a scaled identity and an add.
            auto* scale = c.Make(DML_ELEMENT_WISE_IDENTITY_OPERATOR_DESC{});
            scale->InputTensor = c.InDescRank(xp, 4);
            scale->OutputTensor = c.OutDesc(type, flat);
            scale->ScaleBias = c.Make(DML_SCALE_BIAS{decay, 0.0f});
            Value scaled = c.NodeOutput(c.Emit(DML_OPERATOR_ELEMENT_WISE_IDENTITY, scale, {&xp}, "(decay)"), 0, type,
                                        x.onnxType, flat);
            auto* add = c.Make(DML_ELEMENT_WISE_ADD_OPERATOR_DESC{});
            add->ATensor = c.InDescRank(gp, 4);
            add->BTensor = c.InDescRank(scaled, 4);
            add->OutputTensor = c.OutDesc(type, flat);
            gp = c.NodeOutput(c.Emit(DML_OPERATOR_ELEMENT_WISE_ADD, add, {&gp, &scaled}, "(decay)"), 0, type,
                              x.onnxType, flat);
        }
        std::vector<uint8_t> bytes(DataTypeSize(type));
        if (type == DML_TENSOR_DATA_TYPE_FLOAT32) {
            std::memcpy(bytes.data(), &stepValue, 4);
        } else {
            c.Fail("Adam of FLOAT16 is not lowered yet (the step would be a FLOAT16 constant).");
        }
        Value t = c.HostValue(type, x.onnxType, {1, 1, 1, 1}, bytes);
        auto* d = c.Make(DML_ADAM_OPTIMIZER_OPERATOR_DESC{});
        d->InputParametersTensor = c.InDescRank(xp, 4);
        d->InputFirstMomentTensor = c.InDescRank(vp, 4);
        d->InputSecondMomentTensor = c.InDescRank(hp, 4);
        d->GradientTensor = c.InDescRank(gp, 4);
        d->TrainingStepTensor = c.InDescRank(t, 4);
        d->OutputParametersTensor = c.OutDesc(type, flat);
        d->OutputFirstMomentTensor = c.OutDesc(type, flat);
        d->OutputSecondMomentTensor = c.OutDesc(type, flat);
        d->LearningRate = static_cast<float>(learningRate);
        d->Beta1 = beta1;
        d->Beta2 = beta2;
        d->Epsilon = epsilon;
        const uint32_t node = c.Emit(DML_OPERATOR_ADAM_OPTIMIZER, d, {&xp, &vp, &hp, &gp, &t});
        Value xNew = c.NodeOutput(node, 0, type, x.onnxType, flat);
        if (post != 0.0f) {
            auto* scale = c.Make(DML_ELEMENT_WISE_IDENTITY_OPERATOR_DESC{});
            scale->InputTensor = c.InDescRank(xNew, 4);
            scale->OutputTensor = c.OutDesc(type, flat);
            scale->ScaleBias = c.Make(DML_SCALE_BIAS{1.0f - post, 0.0f});
            xNew = c.NodeOutput(c.Emit(DML_OPERATOR_ELEMENT_WISE_IDENTITY, scale, {&xNew}, "(post decay)"), 0, type,
                                x.onnxType, flat);
        }
        c.SetOutput(g, c.Reshaped(xNew, x.shape));
        c.SetOutput(groups + g, c.Reshaped(c.NodeOutput(node, 1, type, x.onnxType, flat), x.shape));
        c.SetOutput(2 * groups + g, c.Reshaped(c.NodeOutput(node, 2, type, x.onnxType, flat), x.shape));
    }
}

// A reduction over `axes` (of the ONNX input), keeping reduced dimensions as 1 in DirectML.
void Reduce(NodeContext& c, DML_REDUCE_FUNCTION function, std::vector<int64_t> axes) {
    const Value& x = c.Input(0);
    const size_t r = x.shape.size();
    const size_t rank = std::max<size_t>(4, r);
    const size_t lead = rank - r;
    Shape in = Lead(x.shape, rank), reduced = in;
    std::vector<uint32_t> dmlAxes;
    if (axes.empty()) for (size_t a = 0; a < r; ++a) axes.push_back(static_cast<int64_t>(a));
    for (int64_t a : axes) {
        uint32_t axis = NodeContext::NormalizeAxis(a, r, &c) + static_cast<uint32_t>(lead);
        if (std::find(dmlAxes.begin(), dmlAxes.end(), axis) == dmlAxes.end()) dmlAxes.push_back(axis);
        reduced[axis] = 1;
    }
    std::sort(dmlAxes.begin(), dmlAxes.end());
    auto* d = c.Make(DML_REDUCE_OPERATOR_DESC{});
    d->Function = function;
    d->InputTensor = c.InDescRank(x, rank);
    d->OutputTensor = c.OutDesc(c.OutType(0), reduced);
    d->AxisCount = static_cast<UINT>(dmlAxes.size());
    d->Axes = c.Array(dmlAxes);
    c.EmitSingle(DML_OPERATOR_REDUCE, d, {&x});
}

void ReduceOp(NodeContext& c, DML_REDUCE_FUNCTION function, int64_t axesInputOpset) {
    std::vector<int64_t> axes;
    if (c.opset >= axesInputOpset) {
        if (c.HasInput(1)) axes = c.HostInts(1);
    } else {
        axes = c.Ints("axes");
    }
    if (axes.empty() && c.Int("noop_with_empty_axes", 0)) {
        c.SetOutput(0, c.Packed(c.Input(0)));
        return;
    }
    Reduce(c, function, axes);
}

void Global(NodeContext& c, DML_REDUCE_FUNCTION function) {
    std::vector<int64_t> axes;
    for (size_t a = 2; a < c.Input(0).shape.size(); ++a) axes.push_back(static_cast<int64_t>(a));
    Reduce(c, function, axes);
}

// BatchNormalization's training mode (opset 14+): BATCH_NORMALIZATION_TRAINING normalizes with the
// batch's mean and population variance and gives them; the running statistics are
// input * momentum + batch * (1 - momentum), two scaled identities and an add each.
void BatchNormTraining(NodeContext& c) {
    const Value& x = c.Input(0);
    const size_t rank = std::max<size_t>(4, x.shape.size());
    const uint32_t channels = x.shape.size() > 1 ? x.shape[1] : 1;
    Shape out = c.OutShape(0), s, t;
    Shape stat(rank, 1);
    stat[1] = channels;
    const DML_TENSOR_DATA_TYPE type = x.type;
    Trail(x, rank, &s, &t);
    auto* d = c.Make(DML_BATCH_NORMALIZATION_TRAINING_OPERATOR_DESC{});
    d->InputTensor = c.InDesc(x, s, t);
    d->ScaleTensor = ChannelDesc(c, c.Input(1), rank);
    d->BiasTensor = ChannelDesc(c, c.Input(2), rank);
    d->OutputTensor = c.OutDesc(c.OutType(0), TrailShape(out, rank));
    d->OutputMeanTensor = c.OutDesc(type, stat);
    d->OutputVarianceTensor = c.OutDesc(type, stat);
    d->Epsilon = c.Float("epsilon", 1e-5f);
    const uint32_t node = c.Emit(DML_OPERATOR_BATCH_NORMALIZATION_TRAINING, d, {&x, &c.Input(1), &c.Input(2), nullptr});
    c.SetOutput(0, c.NodeOutput(node, 0, c.OutType(0), c.OutOnnxType(0), out));
    const float momentum = c.Float("momentum", 0.9f);
    for (uint32_t k = 1; k <= 2; ++k) {
        if (!c.HasOutput(k)) continue;
        Value batch = c.NodeOutput(node, k, type, x.onnxType, {channels});
        const Value& running = c.Input(2 + k);  // input_mean, input_var
        auto scaled = [&](const Value& v, float factor) {
            auto* id = c.Make(DML_ELEMENT_WISE_IDENTITY_OPERATOR_DESC{});
            id->InputTensor = ChannelDesc(c, v, rank);
            id->OutputTensor = c.OutDesc(type, stat);
            id->ScaleBias = c.Make(DML_SCALE_BIAS{factor, 0.0f});
            return c.NodeOutput(c.Emit(DML_OPERATOR_ELEMENT_WISE_IDENTITY, id, {&v}, "(running statistics)"), 0, type,
                                x.onnxType, {channels});
        };
        Value a = scaled(running, momentum), b = scaled(batch, 1.0f - momentum);
        auto* add = c.Make(DML_ELEMENT_WISE_ADD_OPERATOR_DESC{});
        add->ATensor = ChannelDesc(c, a, rank);
        add->BTensor = ChannelDesc(c, b, rank);
        add->OutputTensor = c.OutDesc(type, stat);
        const uint32_t sum = c.Emit(DML_OPERATOR_ELEMENT_WISE_ADD, add, {&a, &b}, "(running statistics)");
        c.SetOutput(k, c.NodeOutput(sum, 0, type, x.onnxType, c.OutShape(k)));
    }
}

void BatchNorm(NodeContext& c) {
    if (c.Int("training_mode", 0)) {
        if (c.opset < 14) c.Fail("training_mode is an attribute of opset 14 and later.");
        BatchNormTraining(c);
        return;
    }
    if (c.OutputCount() > 1) c.Fail("the running statistics outputs of opsets before 14 (training) are not lowered.");
    const Value& x = c.Input(0);
    const size_t rank = std::max<size_t>(4, x.shape.size());
    Shape out = c.OutShape(0), s, t;
    Trail(x, rank, &s, &t);
    auto* d = c.Make(DML_BATCH_NORMALIZATION_OPERATOR_DESC{});
    d->InputTensor = c.InDesc(x, s, t);
    d->ScaleTensor = ChannelDesc(c, c.Input(1), rank);
    d->BiasTensor = ChannelDesc(c, c.Input(2), rank);
    d->MeanTensor = ChannelDesc(c, c.Input(3), rank);
    d->VarianceTensor = ChannelDesc(c, c.Input(4), rank);
    d->OutputTensor = c.OutDesc(c.OutType(0), TrailShape(out, rank));
    d->Spatial = TRUE;
    d->Epsilon = c.Float("epsilon", 1e-5f);
    // DirectML's input order: Input, Mean, Variance, Scale, Bias.
    c.EmitSingle(DML_OPERATOR_BATCH_NORMALIZATION, d, {&x, &c.Input(3), &c.Input(4), &c.Input(1), &c.Input(2)});
}

void InstanceNorm(NodeContext& c) {
    const Value& x = c.Input(0);
    const size_t rank = std::max<size_t>(4, x.shape.size());
    Shape s, t;
    Trail(x, rank, &s, &t);
    std::vector<uint32_t> axes;
    for (uint32_t a = 2; a < rank; ++a) axes.push_back(a);
    auto* d = c.Make(DML_MEAN_VARIANCE_NORMALIZATION1_OPERATOR_DESC{});
    d->InputTensor = c.InDesc(x, s, t);
    d->ScaleTensor = ChannelDesc(c, c.Input(1), rank);
    d->BiasTensor = ChannelDesc(c, c.Input(2), rank);
    d->OutputTensor = c.OutDesc(c.OutType(0), TrailShape(c.OutShape(0), rank));
    d->AxisCount = static_cast<UINT>(axes.size());
    d->Axes = c.Array(axes);
    d->NormalizeVariance = TRUE;
    d->Epsilon = c.Float("epsilon", 1e-5f);
    c.EmitSingle(DML_OPERATOR_MEAN_VARIANCE_NORMALIZATION1, d, {&x, &c.Input(1), &c.Input(2)});
}

// LayerNormalization's optional Mean and InvStdDev outputs: mean = average over the axes, then
// 1 / sqrt(average((x - mean)^2) + epsilon), as separate nodes (MVN gives only the normalized tensor).
void LayerNormStatistics(NodeContext& c, const Value& x, const Shape& in, const std::vector<uint32_t>& axes, float epsilon) {
    const size_t rank = in.size();
    Shape reduced = in;
    for (uint32_t a : axes) reduced[a] = 1;
    const DML_TENSOR_DATA_TYPE type = x.type;
    auto reduce = [&](const Value& v) {
        auto* d = c.Make(DML_REDUCE_OPERATOR_DESC{});
        d->Function = DML_REDUCE_FUNCTION_AVERAGE;
        d->InputTensor = c.InDescRank(v, rank);
        d->OutputTensor = c.OutDesc(type, reduced);
        d->AxisCount = static_cast<UINT>(axes.size());
        d->Axes = c.Array(axes);
        return c.NodeOutput(c.Emit(DML_OPERATOR_REDUCE, d, {&v}, "(statistics)"), 0, type, x.onnxType, reduced);
    };
    Value mean = reduce(x);
    Shape s, t;
    auto* sub = c.Make(DML_ELEMENT_WISE_SUBTRACT_OPERATOR_DESC{});
    sub->ATensor = c.InDescRank(x, rank);
    c.Broadcast(mean, in, &s, &t);
    sub->BTensor = c.InDesc(mean, s, t);
    sub->OutputTensor = c.OutDesc(type, in);
    Value diff = c.NodeOutput(c.Emit(DML_OPERATOR_ELEMENT_WISE_SUBTRACT, sub, {&x, &mean}, "(statistics)"), 0, type, x.onnxType, in);
    auto* mul = c.Make(DML_ELEMENT_WISE_MULTIPLY_OPERATOR_DESC{});
    mul->ATensor = c.InDescRank(diff, rank);
    mul->BTensor = c.InDescRank(diff, rank);
    mul->OutputTensor = c.OutDesc(type, in);
    Value square = c.NodeOutput(c.Emit(DML_OPERATOR_ELEMENT_WISE_MULTIPLY, mul, {&diff, &diff}, "(statistics)"), 0, type, x.onnxType, in);
    Value variance = reduce(square);
    auto* root = c.Make(DML_ELEMENT_WISE_SQRT_OPERATOR_DESC{});
    root->InputTensor = c.InDescRank(variance, rank);
    root->OutputTensor = c.OutDesc(type, reduced);
    root->ScaleBias = c.Make(DML_SCALE_BIAS{1.0f, epsilon});  // sqrt(variance + epsilon)
    Value sd = c.NodeOutput(c.Emit(DML_OPERATOR_ELEMENT_WISE_SQRT, root, {&variance}, "(statistics)"), 0, type, x.onnxType, reduced);
    auto* recip = c.Make(DML_ELEMENT_WISE_RECIP_OPERATOR_DESC{});
    recip->InputTensor = c.InDescRank(sd, rank);
    recip->OutputTensor = c.OutDesc(type, reduced);
    Value inv = c.NodeOutput(c.Emit(DML_OPERATOR_ELEMENT_WISE_RECIP, recip, {&sd}, "(statistics)"), 0, type, x.onnxType, reduced);
    if (c.HasOutput(1)) c.SetOutput(1, c.Reshaped(mean, c.OutShape(1)));
    if (c.HasOutput(2)) c.SetOutput(2, c.Reshaped(inv, c.OutShape(2)));
}

void LayerNorm(NodeContext& c) {
    const Value& x = c.Input(0);
    const size_t r = x.shape.size();
    const size_t rank = std::max<size_t>(4, r);
    const Shape in = Lead(x.shape, rank);
    const uint32_t axis = NodeContext::NormalizeAxis(c.Int("axis", -1), r, &c) + static_cast<uint32_t>(rank - r);
    std::vector<uint32_t> axes;
    for (uint32_t a = axis; a < rank; ++a) axes.push_back(a);
    Shape s, t;
    auto* d = c.Make(DML_MEAN_VARIANCE_NORMALIZATION1_OPERATOR_DESC{});
    d->InputTensor = c.InDescRank(x, rank);
    const Value& scale = c.Input(1);
    c.Broadcast(scale, in, &s, &t);
    d->ScaleTensor = c.InDesc(scale, s, t);
    const Value* bias = c.HasInput(2) ? &c.Input(2) : nullptr;
    if (bias) {
        c.Broadcast(*bias, in, &s, &t);
        d->BiasTensor = c.InDesc(*bias, s, t);
    }
    d->OutputTensor = c.OutDesc(c.OutType(0), in);
    d->AxisCount = static_cast<UINT>(axes.size());
    d->Axes = c.Array(axes);
    d->NormalizeVariance = TRUE;
    d->Epsilon = c.Float("epsilon", 1e-5f);
    c.EmitSingle(DML_OPERATOR_MEAN_VARIANCE_NORMALIZATION1, d, {&x, &scale, bias});
    if (c.HasOutput(1) || c.HasOutput(2)) LayerNormStatistics(c, x, in, axes, d->Epsilon);
}

void Lrn(NodeContext& c) {
    const Value& x = c.Input(0);
    auto* d = c.Make(DML_LOCAL_RESPONSE_NORMALIZATION_OPERATOR_DESC{});
    Shape s, t;
    Trail(x, 4, &s, &t);
    d->InputTensor = c.InDesc(x, s, t);
    d->OutputTensor = c.OutDesc(c.OutType(0), TrailShape(c.OutShape(0), 4));
    d->CrossChannel = TRUE;
    d->LocalSize = static_cast<UINT>(c.Int("size", 1));
    d->Alpha = c.Float("alpha", 1e-4f);
    d->Beta = c.Float("beta", 0.75f);
    d->Bias = c.Float("bias", 1.0f);
    c.EmitSingle(DML_OPERATOR_LOCAL_RESPONSE_NORMALIZATION, d, {&x});
}

void Mvn(NodeContext& c) {
    const Value& x = c.Input(0);
    const size_t r = x.shape.size(), rank = std::max<size_t>(4, r);
    std::vector<int64_t> onnxAxes = c.Ints("axes");
    if (onnxAxes.empty()) onnxAxes = {0, 2, 3};
    std::vector<uint32_t> axes;
    for (int64_t a : onnxAxes) axes.push_back(NodeContext::NormalizeAxis(a, r, &c) + static_cast<uint32_t>(rank - r));
    std::sort(axes.begin(), axes.end());
    auto* d = c.Make(DML_MEAN_VARIANCE_NORMALIZATION1_OPERATOR_DESC{});
    d->InputTensor = c.InDescRank(x, rank);
    d->OutputTensor = c.OutDesc(c.OutType(0), Lead(c.OutShape(0), rank));
    d->AxisCount = static_cast<UINT>(axes.size());
    d->Axes = c.Array(axes);
    d->NormalizeVariance = TRUE;
    d->Epsilon = 1e-9f;
    c.EmitSingle(DML_OPERATOR_MEAN_VARIANCE_NORMALIZATION1, d, {&x});
}

void Gemm(NodeContext& c) {
    const Value& a = c.Input(0);
    const Value& b = c.Input(1);
    if (a.shape.size() != 2 || b.shape.size() != 2) c.Fail("Gemm takes 2-D A and B.");
    Shape out = c.OutShape(0);
    const Shape out4 = {1, 1, out[0], out[1]};
    auto* d = c.Make(DML_GEMM_OPERATOR_DESC{});
    d->ATensor = c.InDescRank(a, 4);
    d->BTensor = c.InDescRank(b, 4);
    const Value* cv = c.HasInput(2) ? &c.Input(2) : nullptr;
    if (cv) {
        Shape s, t;
        c.Broadcast(*cv, out4, &s, &t);
        d->CTensor = c.InDesc(*cv, s, t);
    }
    d->OutputTensor = c.OutDesc(c.OutType(0), out4);
    d->TransA = c.Int("transA", 0) ? DML_MATRIX_TRANSFORM_TRANSPOSE : DML_MATRIX_TRANSFORM_NONE;
    d->TransB = c.Int("transB", 0) ? DML_MATRIX_TRANSFORM_TRANSPOSE : DML_MATRIX_TRANSFORM_NONE;
    d->Alpha = c.Float("alpha", 1.0f);
    d->Beta = cv ? c.Float("beta", 1.0f) : 0.0f;
    c.EmitSingle(DML_OPERATOR_GEMM, d, {&a, &b, cv});
}

void MatMul(NodeContext& c) {
    Value a = c.Input(0), b = c.Input(1);
    if (a.shape.empty() || b.shape.empty()) c.Fail("MatMul of a scalar is not defined.");
    // 1-D operands become a row (A) or a column (B), as numpy's matmul does.
    if (a.shape.size() == 1) { a.shape.insert(a.shape.begin(), 1); a.strides.insert(a.strides.begin(), 0); }
    if (b.shape.size() == 1) { b.shape.push_back(1); b.strides.push_back(1); }
    const size_t ra = a.shape.size(), rb = b.shape.size();
    const size_t batchRank = std::max(ra, rb) - 2;
    Shape batch(batchRank, 1);
    for (size_t i = 0; i < batchRank; ++i) {
        uint32_t da = i + ra >= batchRank + 2 ? a.shape[i + ra - batchRank - 2] : 1;
        uint32_t db = i + rb >= batchRank + 2 ? b.shape[i + rb - batchRank - 2] : 1;
        if (da != db && da != 1 && db != 1) c.Fail("the batch dimensions of A and B do not broadcast.");
        batch[i] = std::max(da, db);
    }
    // DirectML's GEMM has two batch dimensions; fold leading ones when they are 1.
    while (batch.size() > 2 && batch.front() == 1) batch.erase(batch.begin());
    if (batch.size() > 2) c.Fail("MatMul with more than two batch dimensions is not lowered yet.");
    while (batch.size() < 2) batch.insert(batch.begin(), 1);
    const uint32_t m = a.shape[ra - 2], k = a.shape[ra - 1], n = b.shape[rb - 1];
    if (b.shape[rb - 2] != k) c.Fail("A's columns do not match B's rows.");
    auto view = [&](const Value& v, uint32_t rows, uint32_t cols) {
        Shape target = batch;
        target.push_back(rows);
        target.push_back(cols);
        Shape s, t;
        // Right-align v's batch dims to the 2 batch dims (extra leading dims are all 1).
        Value trimmed = v;
        while (trimmed.shape.size() > 4 && trimmed.shape.front() == 1) {
            trimmed.shape.erase(trimmed.shape.begin());
            trimmed.strides.erase(trimmed.strides.begin());
        }
        c.Broadcast(trimmed, target, &s, &t);
        return c.InDesc(v, s, t);
    };
    Shape out4 = batch;
    out4.push_back(m);
    out4.push_back(n);
    auto* d = c.Make(DML_GEMM_OPERATOR_DESC{});
    d->ATensor = view(a, m, k);
    d->BTensor = view(b, k, n);
    d->OutputTensor = c.OutDesc(c.OutType(0), out4);
    d->TransA = DML_MATRIX_TRANSFORM_NONE;
    d->TransB = DML_MATRIX_TRANSFORM_NONE;
    d->Alpha = 1.0f;
    const Value& a0 = c.Input(0);
    const Value& b0 = c.Input(1);
    c.EmitSingle(DML_OPERATOR_GEMM, d, {&a0, &b0});
}

// MatMulInteger (A, B, a_zero_point?, b_zero_point?) and QLinearMatMul (a, a_scale, a_zero_point,
// b, b_scale, b_zero_point, y_scale, y_zero_point): numpy's matmul of 1-D to 4-D operands, A's
// parameters per tensor or per row, B's per tensor or per column, the output's per tensor or per row.
void QuantizedMatMul(NodeContext& c, bool linear) {
    const size_t ai = 0, bi = linear ? 3 : 1;
    Value a = c.Input(ai), b = c.Input(bi);
    if (a.shape.empty() || b.shape.empty()) c.Fail("MatMul of a scalar is not defined.");
    if (a.shape.size() == 1) {
        a.shape.insert(a.shape.begin(), 1);
        a.strides.insert(a.strides.begin(), 0);
    }
    if (b.shape.size() == 1) {
        b.shape.push_back(1);
        b.strides.push_back(1);
    }
    const size_t rank = std::max(a.shape.size(), b.shape.size());
    if (rank > 4)
        c.Fail("a quantized MatMul of " + std::to_string(rank) +
               "-D operands is not lowered (DirectML takes 2-D to 4-D).");
    const uint32_t m = a.shape[a.shape.size() - 2], k = a.shape.back(), n = b.shape.back();
    if (b.shape[b.shape.size() - 2] != k) c.Fail("A's columns do not match B's rows.");
    const Shape ar = Lead(a.shape, rank), br = Lead(b.shape, rank);
    Shape out(rank, 1);
    for (size_t d = 0; d + 2 < rank; ++d) {
        if (ar[d] != br[d] && ar[d] != 1 && br[d] != 1) c.Fail("the batch dimensions of A and B do not broadcast.");
        out[d] = std::max(ar[d], br[d]);
    }
    out[rank - 2] = m;
    out[rank - 1] = n;
    auto opt = [&](size_t i) { return c.HasInput(i) ? &c.Input(i) : nullptr; };
    auto rows = [&](const Value* v, const char* what) -> const DML_TENSOR_DESC* {
        return v ? QuantParamDesc(c, *v, rank, rank - 2, m, what) : nullptr;
    };
    auto columns = [&](const Value* v, const char* what) -> const DML_TENSOR_DESC* {
        return v ? QuantParamDesc(c, *v, rank, rank - 1, n, what) : nullptr;
    };
    const Value& a0 = c.Input(ai);
    const Value& b0 = c.Input(bi);
    const DML_TENSOR_DESC* aDesc = c.InDescRank(a, rank);
    const DML_TENSOR_DESC* bDesc = c.InDescRank(b, rank);
    const DML_TENSOR_DESC* output = c.OutDesc(c.OutType(0), out);
    if (!linear) {
        const Value *az = opt(2), *bz = opt(3);
        auto* d = c.Make(DML_MATRIX_MULTIPLY_INTEGER_OPERATOR_DESC{});
        d->ATensor = aDesc;
        d->AZeroPointTensor = rows(az, "a_zero_point");
        d->BTensor = bDesc;
        d->BZeroPointTensor = columns(bz, "b_zero_point");
        d->OutputTensor = output;
        c.EmitSingle(DML_OPERATOR_MATRIX_MULTIPLY_INTEGER, d, {&a0, az, &b0, bz});
        return;
    }
    const Value *as = &c.Input(1), *az = opt(2), *bs = &c.Input(4), *bz = opt(5), *ys = &c.Input(6), *yz = opt(7);
    auto* d = c.Make(DML_QUANTIZED_LINEAR_MATRIX_MULTIPLY_OPERATOR_DESC{});
    d->ATensor = aDesc;
    d->AScaleTensor = rows(as, "a_scale");
    d->AZeroPointTensor = rows(az, "a_zero_point");
    d->BTensor = bDesc;
    d->BScaleTensor = columns(bs, "b_scale");
    d->BZeroPointTensor = columns(bz, "b_zero_point");
    d->OutputScaleTensor = rows(ys, "y_scale");
    d->OutputZeroPointTensor = rows(yz, "y_zero_point");
    d->OutputTensor = output;
    c.EmitSingle(DML_OPERATOR_QUANTIZED_LINEAR_MATRIX_MULTIPLY, d, {&a0, as, az, &b0, bs, bz, ys, yz});
}

// DynamicQuantizeLinear: x to UINT8 with the scale and zero point computed from x's range; the two
// scalars are one-element tensors of x's rank in DirectML.
void DynamicQuantize(NodeContext& c) {
    const Value& x = c.Input(0);
    const size_t rank = std::max<size_t>(4, x.shape.size());
    const Shape one(rank, 1);
    auto* d = c.Make(DML_DYNAMIC_QUANTIZE_LINEAR_OPERATOR_DESC{});
    d->InputTensor = c.InDescRank(x, rank);
    d->OutputTensor = c.OutDesc(c.OutType(0), Lead(c.OutShape(0), rank));
    d->OutputScaleTensor = c.OutDesc(c.OutType(1), one);
    d->OutputZeroPointTensor = c.OutDesc(c.OutType(2), one);
    const uint32_t node = c.Emit(DML_OPERATOR_DYNAMIC_QUANTIZE_LINEAR, d, {&x});
    for (uint32_t i = 0; i < 3; ++i)
        c.SetOutput(i, c.NodeOutput(node, i, c.OutType(i), c.OutOnnxType(i), c.OutShape(i)));
}

void Softmax(NodeContext& c, DML_OPERATOR_TYPE type) {
    const Value& x = c.Input(0);
    const size_t r = x.shape.size();
    const size_t rank = std::max<size_t>(4, r);
    const uint32_t lead = static_cast<uint32_t>(rank - r);
    std::vector<uint32_t> axes;
    if (c.opset < 13) {
        // Before opset 13 the input is flattened to 2-D at `axis`: every axis from it on.
        for (uint32_t a = NodeContext::NormalizeAxis(c.Int("axis", 1), r, &c); a < r; ++a) axes.push_back(a + lead);
    } else {
        axes.push_back(NodeContext::NormalizeAxis(c.Int("axis", -1), r, &c) + lead);
    }
    auto* d = c.Make(DML_ACTIVATION_SOFTMAX1_OPERATOR_DESC{});
    d->InputTensor = c.InDescRank(x, rank);
    d->OutputTensor = c.OutDesc(c.OutType(0), Lead(c.OutShape(0), rank));
    d->AxisCount = static_cast<UINT>(axes.size());
    d->Axes = c.Array(axes);
    c.EmitSingle(type, d, {&x});
}

}  // namespace

void RegisterNnOps(OpTable& t) {
    t["Conv"] = [](NodeContext& c) { Conv(c, false); };
    t["ConvTranspose"] = [](NodeContext& c) { Conv(c, true); };
    t["MaxPool"] = [](NodeContext& c) { Pool(c, true); };
    t["AveragePool"] = [](NodeContext& c) { Pool(c, false); };
    t["MaxUnpool"] = MaxUnpool;
    t["RoiAlign"] = RoiAlign;
    t["ai.onnx.preview.training:Adam"] = Adam;
    t["RNN"] = [](NodeContext& c) { Recurrent(c, DML_OPERATOR_RNN); };
    t["GRU"] = [](NodeContext& c) { Recurrent(c, DML_OPERATOR_GRU); };
    t["LSTM"] = [](NodeContext& c) { Recurrent(c, DML_OPERATOR_LSTM); };
    t["GlobalAveragePool"] = [](NodeContext& c) { Global(c, DML_REDUCE_FUNCTION_AVERAGE); };
    t["GlobalMaxPool"] = [](NodeContext& c) { Global(c, DML_REDUCE_FUNCTION_MAX); };
    t["BatchNormalization"] = BatchNorm;
    t["InstanceNormalization"] = InstanceNorm;
    t["LayerNormalization"] = LayerNorm;
    t["Gemm"] = Gemm;
    t["MatMul"] = MatMul;
    t["Einsum"] = Einsum;
    t["MatMulInteger"] = [](NodeContext& c) { QuantizedMatMul(c, false); };
    t["QLinearMatMul"] = [](NodeContext& c) { QuantizedMatMul(c, true); };
    t["ConvInteger"] = [](NodeContext& c) { QuantizedConv(c, false); };
    t["QLinearConv"] = [](NodeContext& c) { QuantizedConv(c, true); };
    t["DynamicQuantizeLinear"] = DynamicQuantize;
    t["Softmax"] = [](NodeContext& c) { Softmax(c, DML_OPERATOR_ACTIVATION_SOFTMAX1); };
    t["LogSoftmax"] = [](NodeContext& c) { Softmax(c, DML_OPERATOR_ACTIVATION_LOG_SOFTMAX1); };
    t["Hardmax"] = [](NodeContext& c) { Softmax(c, DML_OPERATOR_ACTIVATION_HARDMAX1); };
    struct R { const char* name; DML_REDUCE_FUNCTION function; int64_t axesInputOpset; };
    static const R reductions[] = {
        {"ReduceSum", DML_REDUCE_FUNCTION_SUM, 13},          {"ReduceMean", DML_REDUCE_FUNCTION_AVERAGE, 18},
        {"ReduceMax", DML_REDUCE_FUNCTION_MAX, 18},          {"ReduceMin", DML_REDUCE_FUNCTION_MIN, 18},
        {"ReduceProd", DML_REDUCE_FUNCTION_MULTIPLY, 18},    {"ReduceL1", DML_REDUCE_FUNCTION_L1, 18},
        {"ReduceL2", DML_REDUCE_FUNCTION_L2, 18},            {"ReduceLogSum", DML_REDUCE_FUNCTION_LOG_SUM, 18},
        {"ReduceLogSumExp", DML_REDUCE_FUNCTION_LOG_SUM_EXP, 18},
        {"ReduceSumSquare", DML_REDUCE_FUNCTION_SUM_SQUARE, 18},
    };
    for (const R& r : reductions) {
        DML_REDUCE_FUNCTION f = r.function;
        int64_t opset = r.axesInputOpset;
        t[r.name] = [f, opset](NodeContext& c) { ReduceOp(c, f, opset); };
    }
    t["LRN"] = Lrn;
    t["MeanVarianceNormalization"] = Mvn;
}

}  // namespace freedml::onnx
