// Indexing ONNX operators: GatherElements, GatherND, ScatterElements, ScatterND, OneHot, TopK,
// ArgMax/ArgMin, CumSum, DepthToSpace/SpaceToDepth.
#include <algorithm>
#include <climits>

#include "context.h"

namespace freedml::onnx {

namespace {

Shape Lead(const Shape& shape, size_t rank) {
    Shape out(rank > shape.size() ? rank - shape.size() : 0, 1);
    out.insert(out.end(), shape.begin(), shape.end());
    return out;
}

size_t RankOf(NodeContext& c, size_t r) { return std::max<size_t>(4, r); }

void GatherElements(NodeContext& c) {
    const Value& x = c.Input(0);
    const Value& idx = c.Input(1);
    const size_t r = x.shape.size(), rank = RankOf(c, r);
    auto* d = c.Make(DML_GATHER_ELEMENTS_OPERATOR_DESC{});
    d->InputTensor = c.InDescRank(x, rank);
    d->IndicesTensor = c.InDescRank(idx, rank);
    d->OutputTensor = c.OutDesc(c.OutType(0), Lead(c.OutShape(0), rank));
    d->Axis = NodeContext::NormalizeAxis(c.Int("axis", 0), r, &c) + static_cast<UINT>(rank - r);
    c.EmitSingle(DML_OPERATOR_GATHER_ELEMENTS, d, {&x, &idx});
}

void GatherND(NodeContext& c) {
    const Value& x = c.Input(0);
    const Value& idx = c.Input(1);
    Shape out = c.OutShape(0);
    const size_t rank = std::max<size_t>({4, x.shape.size(), idx.shape.size(), out.size()});
    auto* d = c.Make(DML_GATHER_ND1_OPERATOR_DESC{});
    d->InputTensor = c.InDescRank(x, rank);
    d->IndicesTensor = c.InDescRank(idx, rank);
    d->OutputTensor = c.OutDesc(c.OutType(0), Lead(out, rank));
    d->InputDimensionCount = static_cast<UINT>(x.shape.size());
    d->IndicesDimensionCount = static_cast<UINT>(idx.shape.size());
    d->BatchDimensionCount = static_cast<UINT>(c.Int("batch_dims", 0));
    c.EmitSingle(DML_OPERATOR_GATHER_ND1, d, {&x, &idx});
}

void ScatterElements(NodeContext& c) {
    if (c.String("reduction", "none") != "none") c.Fail("reductions in ScatterElements are not lowered yet.");
    const Value& x = c.Input(0);
    const Value& idx = c.Input(1);
    const Value& upd = c.Input(2);
    const size_t r = x.shape.size(), rank = RankOf(c, r);
    auto* d = c.Make(DML_SCATTER_OPERATOR_DESC{});
    d->InputTensor = c.InDescRank(x, rank);
    d->IndicesTensor = c.InDescRank(idx, rank);
    d->UpdatesTensor = c.InDescRank(upd, rank);
    d->OutputTensor = c.OutDesc(c.OutType(0), Lead(c.OutShape(0), rank));
    d->Axis = NodeContext::NormalizeAxis(c.Int("axis", 0), r, &c) + static_cast<UINT>(rank - r);
    c.EmitSingle(DML_OPERATOR_SCATTER, d, {&x, &idx, &upd});
}

void ScatterND(NodeContext& c) {
    if (c.String("reduction", "none") != "none") c.Fail("reductions in ScatterND are not lowered yet.");
    const Value& x = c.Input(0);
    const Value& idx = c.Input(1);
    const Value& upd = c.Input(2);
    const size_t rank = std::max<size_t>({4, x.shape.size(), idx.shape.size(), upd.shape.size()});
    auto* d = c.Make(DML_SCATTER_ND_OPERATOR_DESC{});
    d->InputTensor = c.InDescRank(x, rank);
    d->IndicesTensor = c.InDescRank(idx, rank);
    d->UpdatesTensor = c.InDescRank(upd, rank);
    d->OutputTensor = c.OutDesc(c.OutType(0), Lead(c.OutShape(0), rank));
    d->InputDimensionCount = static_cast<UINT>(x.shape.size());
    d->IndicesDimensionCount = static_cast<UINT>(idx.shape.size());
    c.EmitSingle(DML_OPERATOR_SCATTER_ND, d, {&x, &idx, &upd});
}

void ArgMinMax(NodeContext& c, bool max) {
    const Value& x = c.Input(0);
    const size_t r = x.shape.size(), rank = RankOf(c, r);
    const uint32_t axis = NodeContext::NormalizeAxis(c.Int("axis", 0), r, &c) + static_cast<uint32_t>(rank - r);
    Shape reduced = Lead(x.shape, rank);
    reduced[axis] = 1;
    // ARGMAX/ARGMIN's AxisDirection picks the first (INCREASING) or last (DECREASING) of equal values.
    auto* d = c.Make(DML_ARGMAX_OPERATOR_DESC{});
    d->InputTensor = c.InDescRank(x, rank);
    d->OutputTensor = c.OutDesc(c.OutType(0), reduced);
    d->AxisCount = 1;
    d->Axes = c.Array(std::vector<uint32_t>{axis});
    d->AxisDirection = c.Int("select_last_index", 0) ? DML_AXIS_DIRECTION_DECREASING : DML_AXIS_DIRECTION_INCREASING;
    c.EmitSingle(max ? DML_OPERATOR_ARGMAX : DML_OPERATOR_ARGMIN, d, {&x});
}

void TopK(NodeContext& c) {
    const Value& x = c.Input(0);
    const size_t r = x.shape.size(), rank = RankOf(c, r);
    const int64_t k = c.opset < 10 ? c.Int("k", 1) : c.HostInts(1).at(0);
    if (c.Int("sorted", 1) == 0) c.Fail("sorted 0 is not lowered (DirectML's TOP_K1 always sorts).");
    const uint32_t axis = NodeContext::NormalizeAxis(c.Int("axis", -1), r, &c) + static_cast<uint32_t>(rank - r);
    auto* d = c.Make(DML_TOP_K1_OPERATOR_DESC{});
    d->InputTensor = c.InDescRank(x, rank);
    d->OutputValueTensor = c.OutDesc(c.OutType(0), Lead(c.OutShape(0), rank));
    // TOP_K1 writes UINT32 indices; ONNX's are INT64, made by a CAST after it.
    d->OutputIndexTensor = c.OutDesc(DML_TENSOR_DATA_TYPE_UINT32, Lead(c.OutShape(1), rank));
    d->Axis = axis;
    d->K = static_cast<UINT>(k);
    d->AxisDirection = c.Int("largest", 1) ? DML_AXIS_DIRECTION_DECREASING : DML_AXIS_DIRECTION_INCREASING;
    uint32_t n = c.Emit(DML_OPERATOR_TOP_K1, d, {&x});
    c.SetOutput(0, c.NodeOutput(n, 0, c.OutType(0), c.OutOnnxType(0), c.OutShape(0)));
    Value indices = c.NodeOutput(n, 1, DML_TENSOR_DATA_TYPE_UINT32, 0, c.OutShape(1));
    auto* cast = c.Make(DML_CAST_OPERATOR_DESC{});
    cast->InputTensor = c.InDescRank(indices, rank);
    cast->OutputTensor = c.OutDesc(c.OutType(1), Lead(c.OutShape(1), rank));
    uint32_t m = c.Emit(DML_OPERATOR_CAST, cast, {&indices}, "(indices)");
    c.SetOutput(1, c.NodeOutput(m, 0, c.OutType(1), c.OutOnnxType(1), c.OutShape(1)));
}

void CumSum(NodeContext& c) {
    const Value& x = c.Input(0);
    const size_t r = x.shape.size(), rank = RankOf(c, r);
    auto* d = c.Make(DML_CUMULATIVE_SUMMATION_OPERATOR_DESC{});
    d->InputTensor = c.InDescRank(x, rank);
    d->OutputTensor = c.OutDesc(c.OutType(0), Lead(c.OutShape(0), rank));
    d->Axis = NodeContext::NormalizeAxis(c.HostInts(1).at(0), r, &c) + static_cast<UINT>(rank - r);
    d->AxisDirection = c.Int("reverse", 0) ? DML_AXIS_DIRECTION_DECREASING : DML_AXIS_DIRECTION_INCREASING;
    d->HasExclusiveSum = c.Int("exclusive", 0) != 0;
    c.EmitSingle(DML_OPERATOR_CUMULATIVE_SUMMATION, d, {&x});
}

void DepthSpace(NodeContext& c, bool toSpace) {
    const Value& x = c.Input(0);
    if (x.shape.size() != 4) c.Fail("the input must have 4 dimensions.");
    DML_DEPTH_SPACE_ORDER order = DML_DEPTH_SPACE_ORDER_DEPTH_COLUMN_ROW;
    if (toSpace && c.String("mode", "DCR") == "CRD") order = DML_DEPTH_SPACE_ORDER_COLUMN_ROW_DEPTH;
    auto* d = c.Make(DML_DEPTH_TO_SPACE1_OPERATOR_DESC{});  // SPACE_TO_DEPTH1 has the same fields
    d->InputTensor = c.InDescRank(x, 4);
    d->OutputTensor = c.OutDesc(c.OutType(0), c.OutShape(0));
    d->BlockSize = static_cast<UINT>(c.Int("blocksize", 1));
    d->Order = order;
    c.EmitSingle(toSpace ? DML_OPERATOR_DEPTH_TO_SPACE1 : DML_OPERATOR_SPACE_TO_DEPTH1, d, {&x});
}

void OneHot(NodeContext& c) {
    Value idx = c.Input(0);
    if (idx.type == DML_TENSOR_DATA_TYPE_FLOAT32 || idx.type == DML_TENSOR_DATA_TYPE_FLOAT64) {
        // Float indices (ONNX allows any numeric type) are cast to INT64 first.
        const size_t r = std::max<size_t>(4, idx.shape.size());
        auto* cast = c.Make(DML_CAST_OPERATOR_DESC{});
        cast->InputTensor = c.InDescRank(idx, r);
        cast->OutputTensor = c.OutDesc(DML_TENSOR_DATA_TYPE_INT64, Lead(idx.shape, r));
        uint32_t n = c.Emit(DML_OPERATOR_CAST, cast, {&idx}, "(indices)");
        idx = c.NodeOutput(n, 0, DML_TENSOR_DATA_TYPE_INT64, ::onnx::TensorProto::INT64, idx.shape);
    }
    const Value& values = c.Input(2);
    Shape out = c.OutShape(0);
    const size_t rank = std::max<size_t>(4, out.size());
    const uint32_t axis = NodeContext::NormalizeAxis(c.Int("axis", -1), out.size(), &c) + static_cast<uint32_t>(rank - out.size());
    // DirectML's indices have the output's rank with 1 on the one-hot axis.
    Shape idxSizes = Lead(out, rank), idxStrides(rank, 0);
    idxSizes[axis] = 1;
    {
        size_t k = idx.shape.size();
        for (size_t d = rank; d-- > 0;) {
            if (d == axis) continue;
            if (k == 0) break;
            --k;
            idxStrides[d] = idx.strides[k];
        }
    }
    auto* d = c.Make(DML_ONE_HOT_OPERATOR_DESC{});
    d->IndicesTensor = c.InDesc(idx, idxSizes, idxStrides);
    Shape vs(rank, 1), vt(rank, 0);
    vs[rank - 1] = 2;
    vt[rank - 1] = values.strides.empty() ? 1 : values.strides.back();
    d->ValuesTensor = c.InDesc(values, vs, vt);
    d->OutputTensor = c.OutDesc(c.OutType(0), Lead(out, rank));
    d->Axis = axis;
    c.EmitSingle(DML_OPERATOR_ONE_HOT, d, {&idx, &values});
}

// Trilu: the elements outside the kept triangle are a band of diagonals (column - row) that
// DIAGONAL_MATRIX1 fills with zero, copying the input elsewhere.
void Trilu(NodeContext& c) {
    const Value& x = c.Input(0);
    const size_t r = x.shape.size();
    if (r < 2) c.Fail("the input must have at least 2 dimensions.");
    int64_t k = c.HasInput(1) ? c.HostInts(1).at(0) : 0;
    k = std::clamp<int64_t>(k, INT32_MIN + 2, INT32_MAX - 2);
    const bool upper = c.Int("upper", 1) != 0;
    const size_t rank = RankOf(c, r);
    auto* d = c.Make(DML_DIAGONAL_MATRIX1_OPERATOR_DESC{});
    d->InputTensor = c.InDescRank(x, rank);
    d->OutputTensor = c.OutDesc(c.OutType(0), Lead(c.OutShape(0), rank));
    d->ValueDataType = x.type;
    d->Value = DML_SCALAR_UNION{};  // zero of every type
    d->DiagonalFillBegin = upper ? INT32_MIN : static_cast<INT>(k + 1);
    d->DiagonalFillEnd = upper ? static_cast<INT>(k) : INT32_MAX;
    c.EmitSingle(DML_OPERATOR_DIAGONAL_MATRIX1, d, {&x});
}

// EyeLike: ones on diagonal k of a zero matrix of the input's shape (DIAGONAL_MATRIX1 without an
// input), in `dtype` or the input's type.
void EyeLike(NodeContext& c) {
    const Value& x = c.Input(0);
    if (x.shape.size() != 2) c.Fail("the input must have 2 dimensions.");
    const DML_TENSOR_DATA_TYPE type = c.OutType(0);
    const int64_t k = std::clamp<int64_t>(c.Int("k", 0), INT32_MIN + 2, INT32_MAX - 2);
    DML_SCALAR_UNION one{};
    switch (type) {
        case DML_TENSOR_DATA_TYPE_FLOAT32:
            one.Float32 = 1.0f;
            break;
        case DML_TENSOR_DATA_TYPE_FLOAT64:
            one.Float64 = 1.0;
            break;
        case DML_TENSOR_DATA_TYPE_FLOAT16:
            one.UInt16 = 0x3C00;
            break;  // 1.0 in binary16
        default:
            one.Bytes[0] = 1;
            break;  // 1 of every integer type
    }
    auto* d = c.Make(DML_DIAGONAL_MATRIX1_OPERATOR_DESC{});
    d->InputTensor = nullptr;
    d->OutputTensor = c.OutDesc(type, Lead(c.OutShape(0), 4));
    d->ValueDataType = type;
    d->Value = one;
    d->DiagonalFillBegin = static_cast<INT>(k);
    d->DiagonalFillEnd = static_cast<INT>(k + 1);
    c.EmitSingle(DML_OPERATOR_DIAGONAL_MATRIX1, d, {nullptr});
}

// ReverseSequence: REVERSE_SUBSEQUENCES along time_axis, one length per index of batch_axis (the
// INT64 lengths read as UINT64, their non-negative values being the same bytes).
void ReverseSequence(NodeContext& c) {
    const Value& x = c.Input(0);
    Value lengths = c.Input(1);
    const size_t r = x.shape.size(), rank = RankOf(c, r), lead = rank - r;
    if (r < 2) c.Fail("the input must have at least 2 dimensions.");
    const uint32_t time = NodeContext::NormalizeAxis(c.Int("time_axis", 0), r, &c);
    const uint32_t batch = NodeContext::NormalizeAxis(c.Int("batch_axis", 1), r, &c);
    if (lengths.shape.size() != 1 || lengths.shape[0] != x.shape[batch]) {
        c.Fail("sequence_lens has shape " + ShapeText(lengths.shape) + "; it must hold one length per batch entry.");
    }
    if (lengths.type == DML_TENSOR_DATA_TYPE_INT64) lengths.type = DML_TENSOR_DATA_TYPE_UINT64;
    if (lengths.type == DML_TENSOR_DATA_TYPE_INT32) lengths.type = DML_TENSOR_DATA_TYPE_UINT32;
    Shape sizes = Lead(x.shape, rank), strides(rank, 0);
    sizes[lead + time] = 1;
    strides[lead + batch] = lengths.strides[0];
    auto* d = c.Make(DML_REVERSE_SUBSEQUENCES_OPERATOR_DESC{});
    d->InputTensor = c.InDescRank(x, rank);
    d->SequenceLengthsTensor = c.InDesc(lengths, sizes, strides);
    d->OutputTensor = c.OutDesc(c.OutType(0), Lead(c.OutShape(0), rank));
    d->Axis = static_cast<UINT>(lead + time);
    c.EmitSingle(DML_OPERATOR_REVERSE_SUBSEQUENCES, d, {&x, &lengths});
}

}  // namespace

void RegisterIndexingOps(OpTable& t) {
    t["Trilu"] = Trilu;
    t["GatherElements"] = GatherElements;
    t["GatherND"] = GatherND;
    t["ScatterElements"] = ScatterElements;
    t["Scatter"] = ScatterElements;
    t["ScatterND"] = ScatterND;
    t["ArgMax"] = [](NodeContext& c) { ArgMinMax(c, true); };
    t["ArgMin"] = [](NodeContext& c) { ArgMinMax(c, false); };
    t["TopK"] = TopK;
    t["CumSum"] = CumSum;
    t["DepthToSpace"] = [](NodeContext& c) { DepthSpace(c, true); };
    t["SpaceToDepth"] = [](NodeContext& c) { DepthSpace(c, false); };
    t["OneHot"] = OneHot;
    t["EyeLike"] = EyeLike;
    t["ReverseSequence"] = ReverseSequence;
}

}  // namespace freedml::onnx
