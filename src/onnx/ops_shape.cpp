// Shape and data-movement ONNX operators. Reshape, Flatten, Squeeze, Unsqueeze, Transpose, Expand,
// Identity and Dropout change only how later edges read a tensor (sizes and strides); Shape,
// Constant and ConstantOfShape make values known while lowering, and Gather, Concat and Slice of
// such values are computed here (the shape arithmetic exporters emit).
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

std::vector<uint8_t> Int64Bytes(const std::vector<int64_t>& v) {
    std::vector<uint8_t> bytes(v.size() * 8);
    if (!v.empty()) std::memcpy(bytes.data(), v.data(), bytes.size());
    return bytes;
}

void ViewAs(NodeContext& c) { c.SetOutput(0, c.Reshaped(c.Input(0), c.OutShape(0))); }

void Transpose(NodeContext& c) {
    Value v = c.Input(0);
    const size_t r = v.shape.size();
    std::vector<int64_t> perm = c.Ints("perm");
    if (perm.empty()) for (size_t i = 0; i < r; ++i) perm.push_back(static_cast<int64_t>(r - 1 - i));
    if (perm.size() != r) c.Fail("perm has " + std::to_string(perm.size()) + " entries for " + std::to_string(r) + " dimensions.");
    Value out = v;
    for (size_t i = 0; i < r; ++i) {
        uint32_t p = NodeContext::NormalizeAxis(perm[i], r, &c);
        out.shape[i] = v.shape[p];
        out.strides[i] = v.strides[p];
    }
    c.SetOutput(0, out);
}

void Expand(NodeContext& c) {
    Value v = c.Input(0);
    Shape out = c.OutShape(0), s, t;
    c.Broadcast(v, out, &s, &t);
    v.shape = s;
    v.strides = t;
    c.SetOutput(0, v);
}

Value HostFrom(NodeContext& c, const ::onnx::TensorProto& t) {
    const DML_TENSOR_DATA_TYPE type = DmlType(t.data_type());
    if (type == DML_TENSOR_DATA_TYPE_UNKNOWN) c.Fail("the constant has a data type DirectML lacks.");
    Shape shape;
    uint64_t count = 1;
    for (int64_t d : t.dims()) {
        if (d < 0 || d > UINT32_MAX || (d && count > (uint64_t(1) << 40) / static_cast<uint64_t>(d))) {
            c.Fail("the constant has a dimension out of range.");
        }
        shape.push_back(static_cast<uint32_t>(d));
        count *= static_cast<uint64_t>(d);
    }
    const uint32_t size = DataTypeSize(type);
    // The values present must match the shape before anything is allocated.
    const uint64_t have = t.has_raw_data() ? t.raw_data().size() / size
                          : std::max<uint64_t>({static_cast<uint64_t>(t.float_data_size()), static_cast<uint64_t>(t.int64_data_size()),
                                                static_cast<uint64_t>(t.double_data_size()), static_cast<uint64_t>(t.int32_data_size())});
    if (have != count) c.Fail("the constant's values do not match its shape.");
    std::vector<uint8_t> bytes(count * size);
    if (bytes.empty()) {  // an empty constant: nothing to copy (and no data pointer to copy from)
    } else if (t.has_raw_data()) {
        if (t.raw_data().size() != bytes.size()) c.Fail("the constant's raw data does not match its shape.");
        std::memcpy(bytes.data(), t.raw_data().data(), bytes.size());
    } else if (t.data_type() == ::onnx::TensorProto::FLOAT && static_cast<uint64_t>(t.float_data_size()) == count) {
        std::memcpy(bytes.data(), t.float_data().data(), bytes.size());
    } else if (t.data_type() == ::onnx::TensorProto::INT64 && static_cast<uint64_t>(t.int64_data_size()) == count) {
        std::memcpy(bytes.data(), t.int64_data().data(), bytes.size());
    } else if (t.data_type() == ::onnx::TensorProto::DOUBLE && static_cast<uint64_t>(t.double_data_size()) == count) {
        std::memcpy(bytes.data(), t.double_data().data(), bytes.size());
    } else if (static_cast<uint64_t>(t.int32_data_size()) == count) {
        for (uint64_t e = 0; e < count; ++e) {
            int32_t v = t.int32_data(static_cast<int>(e));
            std::memcpy(bytes.data() + e * size, &v, size);
        }
    } else {
        c.Fail("the constant's values do not match its shape.");
    }
    return c.HostValue(type, t.data_type(), shape, std::move(bytes));
}

void Constant(NodeContext& c) {
    if (const auto* t = c.TensorAttr("value")) {
        c.SetOutput(0, HostFrom(c, *t));
    } else if (c.Has("value_float")) {
        float f = c.Float("value_float", 0);
        std::vector<uint8_t> b(4);
        std::memcpy(b.data(), &f, 4);
        c.SetOutput(0, c.HostValue(DML_TENSOR_DATA_TYPE_FLOAT32, ::onnx::TensorProto::FLOAT, {}, b));
    } else if (c.Has("value_floats")) {
        std::vector<float> f = c.Floats("value_floats");
        std::vector<uint8_t> b(f.size() * 4);
        std::memcpy(b.data(), f.data(), b.size());
        c.SetOutput(0, c.HostValue(DML_TENSOR_DATA_TYPE_FLOAT32, ::onnx::TensorProto::FLOAT, {static_cast<uint32_t>(f.size())}, b));
    } else if (c.Has("value_int")) {
        c.SetOutput(0, c.HostValue(DML_TENSOR_DATA_TYPE_INT64, ::onnx::TensorProto::INT64, {}, Int64Bytes({c.Int("value_int", 0)})));
    } else if (c.Has("value_ints")) {
        std::vector<int64_t> v = c.Ints("value_ints");
        c.SetOutput(0, c.HostValue(DML_TENSOR_DATA_TYPE_INT64, ::onnx::TensorProto::INT64, {static_cast<uint32_t>(v.size())}, Int64Bytes(v)));
    } else {
        c.Fail("only the value, value_float(s) and value_int(s) forms of Constant are lowered.");
    }
}

void ShapeOp(NodeContext& c) {
    const Value& v = c.Input(0);
    const int64_t r = static_cast<int64_t>(v.shape.size());
    int64_t start = c.Int("start", 0), end = c.Int("end", r);
    if (start < 0) start += r;
    if (end < 0) end += r;
    start = std::clamp<int64_t>(start, 0, r);
    end = std::clamp<int64_t>(end, start, r);
    std::vector<int64_t> dims(v.shape.begin() + start, v.shape.begin() + end);
    c.SetOutput(0, c.HostValue(DML_TENSOR_DATA_TYPE_INT64, ::onnx::TensorProto::INT64, {static_cast<uint32_t>(dims.size())},
                               Int64Bytes(dims)));
}

void ConstantOfShape(NodeContext& c) {
    std::vector<int64_t> shape = c.HostInts(0);
    Shape out;
    uint64_t count = 1;
    for (int64_t d : shape) {
        out.push_back(static_cast<uint32_t>(d));
        count *= static_cast<uint64_t>(d);
    }
    Value fill = c.HostValue(DML_TENSOR_DATA_TYPE_FLOAT32, ::onnx::TensorProto::FLOAT, {1}, std::vector<uint8_t>(4, 0));
    if (const auto* t = c.TensorAttr("value")) fill = HostFrom(c, *t);
    // A broadcast view of the one value: no device memory beyond it.
    fill.shape = out;
    fill.strides.assign(out.size(), 0);
    if (count <= 4096) fill = c.Packed(fill);
    c.SetOutput(0, fill);
}

void Concat(NodeContext& c) {
    bool allHostVectors = true;
    for (size_t i = 0; i < c.InputCount(); ++i) allHostVectors = allHostVectors && c.HasHost(i) && c.Input(i).shape.size() == 1;
    if (allHostVectors) {
        // Shape arithmetic: its length comes from the values, which shape inference may not follow.
        const DML_TENSOR_DATA_TYPE type = c.Input(0).type;
        std::vector<uint8_t> bytes;
        uint32_t length = 0;
        for (size_t i = 0; i < c.InputCount(); ++i) {
            Value p = c.Packed(c.Input(i));
            if (p.type != type) c.Fail("its inputs have different data types.");
            bytes.insert(bytes.end(), p.host->begin(), p.host->begin() + p.ElementCount() * DataTypeSize(type));
            length += p.shape[0];
        }
        c.SetOutput(0, c.HostValue(type, c.Input(0).onnxType, {length}, std::move(bytes)));
        return;
    }
    Shape out = c.OutShape(0);
    const size_t r = out.size();
    const uint32_t axis = NodeContext::NormalizeAxis(c.Int("axis", 0), r, &c);
    const DML_TENSOR_DATA_TYPE type = c.OutType(0);
    const size_t rank = std::max<size_t>(4, r);
    std::vector<DML_TENSOR_DESC> descs;
    std::vector<const Value*> inputs;
    for (size_t i = 0; i < c.InputCount(); ++i) {
        const Value& v = c.Input(i);
        if (v.ElementCount() == 0) continue;
        descs.push_back(*c.InDescRank(v, rank));
        inputs.push_back(&v);
    }
    if (inputs.size() == 1) {
        c.SetOutput(0, c.Packed(*inputs[0]));
        return;
    }
    auto* d = c.Make(DML_JOIN_OPERATOR_DESC{});
    d->InputCount = static_cast<UINT>(descs.size());
    d->InputTensors = c.Array(descs);
    d->OutputTensor = c.OutDesc(type, Lead(out, rank));
    d->Axis = static_cast<UINT>(axis + rank - r);
    c.EmitSingle(DML_OPERATOR_JOIN, d, inputs);
}

void Split(NodeContext& c) {
    const Value& x = c.Input(0);
    const size_t r = x.shape.size();
    const size_t rank = std::max<size_t>(4, r);
    const uint32_t axis = NodeContext::NormalizeAxis(c.Int("axis", 0), r, &c);
    std::vector<DML_TENSOR_DESC> descs;
    std::vector<Shape> shapes;
    for (size_t i = 0; i < c.OutputCount(); ++i) {
        shapes.push_back(c.OutShape(i));
        descs.push_back(*c.OutDesc(c.OutType(i), Lead(shapes.back(), rank)));
    }
    auto* d = c.Make(DML_SPLIT_OPERATOR_DESC{});
    d->InputTensor = c.InDescRank(x, rank);
    d->OutputCount = static_cast<UINT>(descs.size());
    d->OutputTensors = c.Array(descs);
    d->Axis = static_cast<UINT>(axis + rank - r);
    uint32_t n = c.Emit(DML_OPERATOR_SPLIT, d, {&x});
    c.lowerer.splits[n] = {x, axis};
    for (size_t i = 0; i < c.OutputCount(); ++i) {
        c.SetOutput(i, c.NodeOutput(n, static_cast<uint32_t>(i), c.OutType(i), c.OutOnnxType(i), shapes[i]));
    }
}

void Slice(NodeContext& c) {
    const Value& x = c.Input(0);
    const size_t r = x.shape.size();
    std::vector<int64_t> starts, ends, axes, steps;
    if (c.opset < 10) {
        starts = c.Ints("starts");
        ends = c.Ints("ends");
        axes = c.Ints("axes");
    } else {
        starts = c.HostInts(1);
        ends = c.HostInts(2);
        if (c.HasInput(3)) axes = c.HostInts(3);
        if (c.HasInput(4)) steps = c.HostInts(4);
    }
    if (axes.empty()) for (size_t a = 0; a < starts.size(); ++a) axes.push_back(static_cast<int64_t>(a));
    if (steps.empty()) steps.assign(starts.size(), 1);
    Shape out = c.OutShape(0);
    std::vector<int64_t> first(r, 0), step(r, 1);
    for (size_t i = 0; i < starts.size(); ++i) {
        const uint32_t a = NodeContext::NormalizeAxis(axes.at(i), r, &c);
        const int64_t dim = x.shape[a];
        if (steps.at(i) == 0) c.Fail("a step of 0 is not allowed.");
        int64_t s = starts[i];
        if (s < 0) s += dim;
        s = steps[i] > 0 ? std::clamp<int64_t>(s, 0, dim) : std::clamp<int64_t>(s, 0, dim - 1);
        first[a] = s;
        step[a] = steps[i];
    }
    if (x.host) {
        // Shape arithmetic: slice on the host.
        Value view = x;
        uint64_t offset = 0;
        for (size_t d = 0; d < r; ++d) {
            offset += uint64_t(first[d]) * x.strides[d];
            view.strides[d] = static_cast<uint32_t>(int64_t(x.strides[d]) * step[d]);  // positive steps only
        }
        bool positive = std::all_of(step.begin(), step.end(), [](int64_t s) { return s > 0; });
        if (positive) {
            const uint32_t size = DataTypeSize(x.type);
            Value shifted = c.HostValue(x.type, x.onnxType, x.shape,
                                        std::vector<uint8_t>(x.host->begin() + std::min<uint64_t>(offset * size, x.host->size()), x.host->end()));
            shifted.shape = out;
            shifted.strides = view.strides;
            c.SetOutput(0, c.Packed(shifted));
            return;
        }
    }
    const size_t rank = std::max<size_t>(4, r);
    const size_t lead = rank - r;
    std::vector<uint32_t> offsets(rank, 0), sizes(rank, 1);
    std::vector<int32_t> strides(rank, 1);
    for (size_t d = 0; d < r; ++d) {
        const int64_t count = out[d];
        const int64_t extent = count > 0 ? (count - 1) * std::abs(step[d]) + 1 : 0;
        offsets[lead + d] = static_cast<uint32_t>(step[d] > 0 ? first[d] : first[d] - extent + 1);
        sizes[lead + d] = static_cast<uint32_t>(extent);
        strides[lead + d] = static_cast<int32_t>(step[d]);
    }
    auto* d = c.Make(DML_SLICE1_OPERATOR_DESC{});
    d->InputTensor = c.InDescRank(x, rank);
    d->OutputTensor = c.OutDesc(c.OutType(0), Lead(out, rank));
    d->DimensionCount = static_cast<UINT>(rank);
    d->InputWindowOffsets = c.Array(offsets);
    d->InputWindowSizes = c.Array(sizes);
    d->InputWindowStrides = c.Array(strides);
    c.EmitSingle(DML_OPERATOR_SLICE1, d, {&x});
}

void Gather(NodeContext& c) {
    const Value& x = c.Input(0);
    const Value& idx = c.Input(1);
    const size_t r = x.shape.size(), q = idx.shape.size();
    const uint32_t axis = NodeContext::NormalizeAxis(c.Int("axis", 0), r, &c);
    Shape out = c.OutShape(0);
    if (x.host && idx.host && r == 1 && x.ElementCount() <= 4096) {
        // Shape arithmetic: gather on the host.
        std::vector<int64_t> indices = c.HostInts(1);
        const uint32_t size = DataTypeSize(x.type);
        Value packed = c.Packed(x);
        std::vector<uint8_t> bytes;
        for (int64_t i : indices) {
            if (i < 0) i += x.shape[0];
            if (i < 0 || i >= x.shape[0]) c.Fail("an index is out of range.");
            bytes.insert(bytes.end(), packed.host->begin() + i * size, packed.host->begin() + (i + 1) * size);
        }
        c.SetOutput(0, c.HostValue(x.type, x.onnxType, out, std::move(bytes)));
        return;
    }
    Value indices = idx;
    if (idx.host) {  // negative indices counted from the end, as ONNX allows
        std::vector<int64_t> v = c.HostInts(1);
        bool negative = false;
        for (auto& i : v) if (i < 0) { i += x.shape[axis]; negative = true; }
        if (negative) indices = c.HostValue(DML_TENSOR_DATA_TYPE_INT64, ::onnx::TensorProto::INT64, idx.shape, Int64Bytes(v));
    }
    const size_t rank = std::max<size_t>({4, r, q + 1, out.size()});
    auto* d = c.Make(DML_GATHER_OPERATOR_DESC{});
    d->InputTensor = c.InDescRank(x, rank);
    d->IndicesTensor = c.InDescRank(indices, rank);
    d->OutputTensor = c.OutDesc(c.OutType(0), Lead(out, rank));
    d->Axis = static_cast<UINT>(axis + rank - r);
    d->IndexDimensions = static_cast<UINT>(q);
    c.EmitSingle(DML_OPERATOR_GATHER, d, {&x, &indices});
}

void Pad(NodeContext& c) {
    const Value& x = c.Input(0);
    const size_t r = x.shape.size();
    std::vector<int64_t> pads = c.opset < 11 ? c.Ints("pads") : c.HostInts(1);
    if (c.HasInput(3)) c.Fail("the axes input of Pad is not lowered yet.");
    if (pads.size() != 2 * r) c.Fail("pads has " + std::to_string(pads.size()) + " values for " + std::to_string(r) + " dimensions.");
    const std::string mode = c.String("mode", "constant");
    DML_PADDING_MODE dmlMode = DML_PADDING_MODE_CONSTANT;
    if (mode == "reflect") dmlMode = DML_PADDING_MODE_REFLECTION;
    else if (mode == "edge") dmlMode = DML_PADDING_MODE_EDGE;
    else if (mode == "wrap") dmlMode = DML_PADDING_MODE_WRAP;
    else if (mode != "constant") c.Fail("the padding mode '" + mode + "' has no DirectML equivalent.");
    double value = c.opset < 11 ? c.Float("value", 0) : (c.HasInput(2) ? c.HostFloats(2).at(0) : 0.0);
    const size_t rank = std::max<size_t>(4, r);
    std::vector<uint32_t> start(rank, 0), end(rank, 0);
    for (size_t d = 0; d < r; ++d) {
        if (pads[d] < 0 || pads[d + r] < 0) c.Fail("negative pads (cropping) are not lowered yet.");
        start[rank - r + d] = static_cast<uint32_t>(pads[d]);
        end[rank - r + d] = static_cast<uint32_t>(pads[d + r]);
    }
    auto* desc = c.Make(DML_PADDING1_OPERATOR_DESC{});
    desc->InputTensor = c.InDescRank(x, rank);
    desc->OutputTensor = c.OutDesc(c.OutType(0), Lead(c.OutShape(0), rank));
    desc->PaddingMode = dmlMode;
    desc->PaddingValueDataType = x.type;
    DML_SCALAR_UNION scalar{};
    switch (x.type) {
        case DML_TENSOR_DATA_TYPE_FLOAT32: scalar.Float32 = static_cast<float>(value); break;
        case DML_TENSOR_DATA_TYPE_FLOAT64: scalar.Float64 = value; break;
        case DML_TENSOR_DATA_TYPE_INT64: scalar.Int64 = static_cast<int64_t>(value); break;
        case DML_TENSOR_DATA_TYPE_INT32: scalar.Int32 = static_cast<int32_t>(value); break;
        case DML_TENSOR_DATA_TYPE_UINT8: scalar.UInt8 = static_cast<uint8_t>(value); break;
        case DML_TENSOR_DATA_TYPE_INT8: scalar.Int8 = static_cast<int8_t>(value); break;
        default:
            if (value != 0) c.Fail("a non-zero padding value of this data type is not lowered yet.");
    }
    desc->PaddingValue = scalar;
    desc->DimensionCount = static_cast<UINT>(rank);
    desc->StartPadding = c.Array(start);
    desc->EndPadding = c.Array(end);
    c.EmitSingle(DML_OPERATOR_PADDING1, desc, {&x});
}

void Resize(NodeContext& c) {
    const Value& x = c.Input(0);
    const size_t r = x.shape.size();
    Shape out = c.OutShape(0);
    const std::string mode = c.String("mode", "nearest");
    const std::string coords = c.opset >= 11 ? c.String("coordinate_transformation_mode", "half_pixel") : "asymmetric";
    DML_INTERPOLATION_MODE interpolation = DML_INTERPOLATION_MODE_LINEAR;
    DML_AXIS_DIRECTION rounding = DML_AXIS_DIRECTION_INCREASING;
    float roundingShift = 0;  // added to InputPixelOffsets: floor and ceil as rounding of a shifted coordinate
    if (mode == "nearest") {
        interpolation = DML_INTERPOLATION_MODE_NEAREST_NEIGHBOR;
        // DirectML rounds the mapped coordinate to the nearest index, halves up (INCREASING) or
        // down (DECREASING): floor(x) is x - 0.5 rounded halves up, ceil(x) is x + 0.5 halves down.
        const std::string nearest = c.opset >= 11 ? c.String("nearest_mode", "round_prefer_floor") : "floor";
        if (nearest == "round_prefer_floor") {
            rounding = DML_AXIS_DIRECTION_DECREASING;
        } else if (nearest == "floor") {
            roundingShift = 0.5f;
        } else if (nearest == "ceil") {
            rounding = DML_AXIS_DIRECTION_DECREASING;
            roundingShift = -0.5f;
        } else if (nearest != "round_prefer_ceil") {
            c.Fail("nearest_mode '" + nearest + "' is not an ONNX mode.");
        }
    } else if (mode != "linear") {
        c.Fail("the resize mode '" + mode + "' has no DirectML equivalent.");
    }
    std::vector<float> scales(r), inOffsets(r, 0), outOffsets(r, 0);
    std::vector<double> given;
    if (c.opset >= 11 && c.HasInput(2) && c.Input(2).ElementCount() > 0) given = c.HostFloats(2);
    if (c.opset < 11 && c.HasInput(1)) given = c.HostFloats(1);
    for (size_t d = 0; d < r; ++d) {
        double s = given.size() == r ? given[d] : double(out[d]) / double(x.shape[d]);
        if (coords == "align_corners") {
            // x_in = x_out * (in - 1) / (length - 1), the length being in * scale when scales are
            // given (not necessarily a whole number), else the output size.
            const double length = given.size() == r ? double(x.shape[d]) * given[d] : double(out[d]);
            s = length > 1 && x.shape[d] > 1 ? (length - 1) / double(x.shape[d] - 1) : 1.0;
        } else if (coords == "half_pixel" || (coords == "pytorch_half_pixel" && out[d] > 1)) {
            // InputX = (OutputX - OutputPixelOffset) / Scale - InputPixelOffset = (OutputX + 0.5) / Scale - 0.5
            inOffsets[d] = 0.5f;
            outOffsets[d] = -0.5f;
        } else if (coords == "tf_half_pixel_for_nn") {
            // InputX = (OutputX + 0.5) / Scale.
            outOffsets[d] = -0.5f;
        } else if (coords != "asymmetric" && coords != "pytorch_half_pixel") {
            c.Fail("coordinate_transformation_mode '" + coords + "' is not lowered yet.");
        }
        scales[d] = static_cast<float>(s);
        inOffsets[d] += roundingShift;
    }
    const size_t rank = std::max<size_t>(4, r);
    while (scales.size() < rank) {
        scales.insert(scales.begin(), 1.0f);
        inOffsets.insert(inOffsets.begin(), 0.0f);
        outOffsets.insert(outOffsets.begin(), 0.0f);
    }
    auto* d = c.Make(DML_RESAMPLE2_OPERATOR_DESC{});
    d->InputTensor = c.InDescRank(x, rank);
    d->OutputTensor = c.OutDesc(c.OutType(0), Lead(out, rank));
    d->InterpolationMode = interpolation;
    d->RoundingDirection = rounding;
    d->DimensionCount = static_cast<UINT>(rank);
    d->Scales = c.Array(scales);
    d->InputPixelOffsets = c.Array(inOffsets);
    d->OutputPixelOffsets = c.Array(outOffsets);
    c.EmitSingle(DML_OPERATOR_RESAMPLE2, d, {&x});
}

void Tile(NodeContext& c) {
    const Value& x = c.Input(0);
    std::vector<int64_t> repeats = c.HostInts(1);
    const size_t r = x.shape.size();
    const size_t rank = std::max<size_t>(4, r);
    std::vector<uint32_t> rep(rank, 1);
    for (size_t d = 0; d < r; ++d) rep[rank - r + d] = static_cast<uint32_t>(repeats.at(d));
    auto* d = c.Make(DML_TILE_OPERATOR_DESC{});
    d->InputTensor = c.InDescRank(x, rank);
    d->OutputTensor = c.OutDesc(c.OutType(0), Lead(c.OutShape(0), rank));
    d->RepeatsCount = static_cast<UINT>(rank);
    d->Repeats = c.Array(rep);
    c.EmitSingle(DML_OPERATOR_TILE, d, {&x});
}

void Range(NodeContext& c) {
    std::vector<double> start = c.HostFloats(0), limit = c.HostFloats(1), delta = c.HostFloats(2);
    if (start.empty() || limit.empty() || delta.empty() || delta[0] == 0) c.Fail("Range needs scalar start, limit and a non-zero delta.");
    // The length from the values (shape inference may not have followed them).
    const double count = std::max(0.0, std::ceil((limit[0] - start[0]) / delta[0]));
    if (count > double(1u << 24)) c.Fail("a Range of more than 16777216 values is not computed while lowering.");
    const Shape out = {static_cast<uint32_t>(count)};
    const DML_TENSOR_DATA_TYPE type = c.Input(0).type;
    std::vector<uint8_t> bytes(out.at(0) * DataTypeSize(type));
    for (uint32_t i = 0; i < out[0]; ++i) {
        double v = start.at(0) + i * delta.at(0);
        uint8_t* p = bytes.data() + i * DataTypeSize(type);
        if (type == DML_TENSOR_DATA_TYPE_INT64) { int64_t k = static_cast<int64_t>(v); std::memcpy(p, &k, 8); }
        else if (type == DML_TENSOR_DATA_TYPE_INT32) { int32_t k = static_cast<int32_t>(v); std::memcpy(p, &k, 4); }
        else if (type == DML_TENSOR_DATA_TYPE_FLOAT32) { float k = static_cast<float>(v); std::memcpy(p, &k, 4); }
        else c.Fail("Range of this data type is not lowered yet.");
    }
    c.SetOutput(0, c.HostValue(type, c.Input(0).onnxType, out, std::move(bytes)));
}

}  // namespace

void RegisterShapeOps(OpTable& t) {
    for (const char* name : {"Reshape", "Flatten", "Squeeze", "Unsqueeze"}) t[name] = ViewAs;
    t["Identity"] = [](NodeContext& c) { c.SetOutput(0, c.Input(0)); };
    t["Dropout"] = [](NodeContext& c) {
        // Training mode drops elements at random, except with ratio 0, where it keeps them all as
        // inference does.
        const bool training = c.HasInput(2) && c.HostInts(2).at(0) != 0;
        if (training && (!c.HasInput(1) || c.HostFloats(1).at(0) != 0.0)) {
            c.Fail(
                "Dropout in training mode with a ratio above 0 is random; it is lowered for inference (training_mode "
                "false) or ratio 0 only.");
        }
        c.SetOutput(0, c.Input(0));
        if (c.HasOutput(1)) {
            // In inference every element is kept: the mask is all true, one value broadcast.
            Value mask = c.HostValue(DML_TENSOR_DATA_TYPE_UINT8, ::onnx::TensorProto::BOOL, {1}, {1});
            mask.shape = c.OutShape(1);
            mask.strides.assign(mask.shape.size(), 0);
            c.SetOutput(1, mask);
        }
    };
    t["Transpose"] = Transpose;
    t["Expand"] = Expand;
    t["Constant"] = Constant;
    t["Shape"] = ShapeOp;
    t["Size"] = [](NodeContext& c) {
        int64_t n = static_cast<int64_t>(c.Input(0).ElementCount());
        c.SetOutput(0, c.HostValue(DML_TENSOR_DATA_TYPE_INT64, ::onnx::TensorProto::INT64, {}, Int64Bytes({n})));
    };
    t["ConstantOfShape"] = ConstantOfShape;
    t["Concat"] = Concat;
    t["Split"] = Split;
    t["Slice"] = Slice;
    t["Gather"] = Gather;
    t["Pad"] = Pad;
    t["Resize"] = Resize;
    t["Upsample"] = Resize;
    t["Tile"] = Tile;
    t["Range"] = Range;
}

}  // namespace freedml::onnx
