#include "dml/ops/data_movement/movement_params.h"

#include <cmath>
#include <cstring>
#include <limits>

#include "dml/kernels/cpu/float16.h"

namespace freedml::dml {

namespace {

// SLICE and SLICE1: output coordinate c reads start + stride * c along each dimension.
MovementCopy SliceCopy(const TensorDesc& in, const TensorDesc& out, const uint32_t* starts, const int64_t* steps) {
    MovementCopy copy;
    copy.rank = out.rank;
    for (uint32_t d = 0; d < out.rank; ++d) {
        copy.sizes[d] = out.sizes[d];
        copy.outStrides[d] = out.strides[d];
        copy.inStrides[d] = steps[d] * int64_t(in.strides[d]);
        copy.inOffset += int64_t(starts[d]) * in.strides[d];
    }
    return copy;
}

// The four space/depth operators as one permutation of blocks. The loop runs over the space
// side viewed as {N, C, H, by, W, bx} (C the smaller channel count, by and bx the position in a
// block); the depth side's channel of (c, by, bx) is (by * b + bx) * C + c in DEPTH_COLUMN_ROW
// order and (c * b + by) * b + bx in COLUMN_ROW_DEPTH order.
MovementCopy DepthSpaceCopy(const TensorDesc& space, const TensorDesc& depth, uint32_t b,
                            DML_DEPTH_SPACE_ORDER order, bool spaceIsOutput) {
    const int64_t c = space.sizes[1];
    const int64_t s[4] = {space.strides[0], space.strides[1], space.strides[2], space.strides[3]};
    const int64_t t[4] = {depth.strides[0], depth.strides[1], depth.strides[2], depth.strides[3]};
    const uint32_t sizes[6] = {space.sizes[0], space.sizes[1], space.sizes[2] / b, b, space.sizes[3] / b, b};
    const int64_t spaceStrides[6] = {s[0], s[1], s[2] * b, s[2], s[3] * b, s[3]};
    int64_t depthStrides[6];
    if (order == DML_DEPTH_SPACE_ORDER_DEPTH_COLUMN_ROW) {
        const int64_t k[6] = {t[0], t[1], t[2], b * c * t[1], t[3], c * t[1]};
        std::memcpy(depthStrides, k, sizeof(k));
    } else {
        const int64_t k[6] = {t[0], int64_t(b) * b * t[1], t[2], b * t[1], t[3], t[1]};
        std::memcpy(depthStrides, k, sizeof(k));
    }
    MovementCopy copy;
    copy.rank = 6;
    for (int d = 0; d < 6; ++d) {
        copy.sizes[d] = sizes[d];
        copy.outStrides[d] = spaceIsOutput ? spaceStrides[d] : depthStrides[d];
        copy.inStrides[d] = spaceIsOutput ? depthStrides[d] : spaceStrides[d];
    }
    return copy;
}

// PADDING's FLOAT value in the tensor's type: integers truncate toward zero (the reference page:
// 10.6 becomes 10) and saturate at the type's range (NaN becomes 0), a choice where the page is
// silent.
template <class I>
uint64_t IntegerBits(float value) {
    I v = 0;
    if (std::isnan(value)) {
        v = 0;
    } else if (double(value) <= double(std::numeric_limits<I>::min())) {
        v = std::numeric_limits<I>::min();
    } else if (double(value) >= double(std::numeric_limits<I>::max())) {
        v = std::numeric_limits<I>::max();
    } else {
        v = static_cast<I>(value);
    }
    uint64_t bits = 0;
    std::memcpy(&bits, &v, sizeof(I));
    return bits;
}

uint64_t FloatAsTypeBits(float value, DML_TENSOR_DATA_TYPE type) {
    uint64_t bits = 0;
    switch (type) {
        case DML_TENSOR_DATA_TYPE_FLOAT32: std::memcpy(&bits, &value, 4); return bits;
        case DML_TENSOR_DATA_TYPE_FLOAT16: return cpu::FloatToHalf(value);
        case DML_TENSOR_DATA_TYPE_FLOAT64: {
            const double d = value;
            std::memcpy(&bits, &d, 8);
            return bits;
        }
        case DML_TENSOR_DATA_TYPE_INT8: return IntegerBits<int8_t>(value);
        case DML_TENSOR_DATA_TYPE_UINT8: return IntegerBits<uint8_t>(value);
        case DML_TENSOR_DATA_TYPE_INT16: return IntegerBits<int16_t>(value);
        case DML_TENSOR_DATA_TYPE_UINT16: return IntegerBits<uint16_t>(value);
        case DML_TENSOR_DATA_TYPE_INT32: return IntegerBits<int32_t>(value);
        case DML_TENSOR_DATA_TYPE_UINT32: return IntegerBits<uint32_t>(value);
        case DML_TENSOR_DATA_TYPE_INT64: return IntegerBits<int64_t>(value);
        case DML_TENSOR_DATA_TYPE_UINT64: return IntegerBits<uint64_t>(value);
        default: return 0;
    }
}

MapMode ToMapMode(DML_PADDING_MODE mode) {
    switch (mode) {
        case DML_PADDING_MODE_EDGE: return MapMode::Edge;
        case DML_PADDING_MODE_REFLECTION: return MapMode::Reflect;
        case DML_PADDING_MODE_SYMMETRIC: return MapMode::Symmetric;
        case DML_PADDING_MODE_WRAP: return MapMode::Wrap;
        default: return MapMode::Constant;
    }
}

IndexMap MapOver(const TensorDesc& in, const TensorDesc& out, MapMode mode, const uint32_t* starts) {
    IndexMap map;
    map.rank = out.rank;
    map.mode = mode;
    map.count = 1;
    for (uint32_t d = 0; d < out.rank; ++d) {
        map.outSizes[d] = out.sizes[d];
        map.outStrides[d] = out.strides[d];
        map.inSizes[d] = in.sizes[d];
        map.inStrides[d] = in.strides[d];
        map.start[d] = starts ? starts[d] : 0;
        map.count *= out.sizes[d];
    }
    return map;
}

}  // namespace

bool IsMovementCopy(DML_OPERATOR_TYPE type) {
    switch (type) {
        case DML_OPERATOR_SLICE:
        case DML_OPERATOR_SLICE1:
        case DML_OPERATOR_SPACE_TO_DEPTH:
        case DML_OPERATOR_SPACE_TO_DEPTH1:
        case DML_OPERATOR_DEPTH_TO_SPACE:
        case DML_OPERATOR_DEPTH_TO_SPACE1:
            return true;
        default:
            return false;
    }
}

MovementCopy DecodeMovementCopy(const OperatorArgs& args) {
    const TensorDesc& in = *args.inputs[0];
    const TensorDesc& out = *args.outputs[0];
    switch (args.schema.type) {
        case DML_OPERATOR_SLICE: {
            const auto& desc = args.As<DML_SLICE_OPERATOR_DESC>();
            int64_t steps[kMovementMaxDims];
            for (uint32_t d = 0; d < desc.DimensionCount; ++d) steps[d] = desc.Strides[d];
            return SliceCopy(in, out, desc.Offsets, steps);
        }
        case DML_OPERATOR_SLICE1: {
            // A negative stride starts at the window's last element and walks backwards.
            const auto& desc = args.As<DML_SLICE1_OPERATOR_DESC>();
            int64_t steps[kMovementMaxDims];
            uint32_t starts[kMovementMaxDims];
            for (uint32_t d = 0; d < desc.DimensionCount; ++d) {
                steps[d] = desc.InputWindowStrides[d];
                starts[d] = desc.InputWindowOffsets[d] + (steps[d] < 0 ? desc.InputWindowSizes[d] - 1 : 0);
            }
            return SliceCopy(in, out, starts, steps);
        }
        case DML_OPERATOR_SPACE_TO_DEPTH: {
            const auto& desc = args.As<DML_SPACE_TO_DEPTH_OPERATOR_DESC>();
            return DepthSpaceCopy(in, out, desc.BlockSize, DML_DEPTH_SPACE_ORDER_DEPTH_COLUMN_ROW, false);
        }
        case DML_OPERATOR_SPACE_TO_DEPTH1: {
            const auto& desc = args.As<DML_SPACE_TO_DEPTH1_OPERATOR_DESC>();
            return DepthSpaceCopy(in, out, desc.BlockSize, desc.Order, false);
        }
        case DML_OPERATOR_DEPTH_TO_SPACE: {
            const auto& desc = args.As<DML_DEPTH_TO_SPACE_OPERATOR_DESC>();
            return DepthSpaceCopy(out, in, desc.BlockSize, DML_DEPTH_SPACE_ORDER_DEPTH_COLUMN_ROW, true);
        }
        case DML_OPERATOR_DEPTH_TO_SPACE1: {
            const auto& desc = args.As<DML_DEPTH_TO_SPACE1_OPERATOR_DESC>();
            return DepthSpaceCopy(out, in, desc.BlockSize, desc.Order, true);
        }
        default:
            return {};
    }
}

IndexMap DecodeIndexMap(const OperatorArgs& args) {
    const TensorDesc& in = *args.inputs[0];
    const TensorDesc& out = *args.outputs[0];
    switch (args.schema.type) {
        case DML_OPERATOR_PADDING: {
            const auto& desc = args.As<DML_PADDING_OPERATOR_DESC>();
            IndexMap map = MapOver(in, out, ToMapMode(desc.PaddingMode), desc.StartPadding);
            map.constantBits = FloatAsTypeBits(desc.PaddingValue, out.dataType);
            return map;
        }
        case DML_OPERATOR_PADDING1: {
            // Validation made PaddingValueDataType the tensor's type: the union's low bytes are the
            // element.
            const auto& desc = args.As<DML_PADDING1_OPERATOR_DESC>();
            IndexMap map = MapOver(in, out, ToMapMode(desc.PaddingMode), desc.StartPadding);
            std::memcpy(&map.constantBits, &desc.PaddingValue, sizeof(map.constantBits));
            const uint32_t bytes = ElementSizeInBytes(out.dataType);
            if (bytes < 8) map.constantBits &= (uint64_t{1} << (8 * bytes)) - 1;
            return map;
        }
        case DML_OPERATOR_TILE:
            return MapOver(in, out, MapMode::Wrap, nullptr);
        default:
            return {};
    }
}

namespace {

// GATHER_ND and GATHER_ND1 (batchCount 0 for GATHER_ND), following ONNX's GatherND, which the pages
// describe: output = the batch dimensions, the indices' other dimensions but the last, then the
// input's dimensions after the batch and the indexed ones. Counts are of the tensors' original
// ranks, right-aligned in their DimensionCount.
std::vector<GatherDim> GatherNdDims(const TensorDesc& in, const TensorDesc& idx, uint32_t inCount, uint32_t idxCount,
                                    uint32_t batchCount) {
    const uint32_t r = in.rank, ib = r - inCount, xb = r - idxCount, q = idx.sizes[r - 1];
    std::vector<GatherDim> dims;
    for (uint32_t j = 0; j < batchCount; ++j) dims.push_back({idx.sizes[xb + j], in.strides[ib + j], idx.strides[xb + j]});
    for (uint32_t k = xb + batchCount; k + 1 < r; ++k) dims.push_back({idx.sizes[k], 0, idx.strides[k]});
    for (uint32_t d = ib + batchCount + q; d < r; ++d) dims.push_back({in.sizes[d], in.strides[d], 0});
    return dims;
}

}  // namespace

std::vector<GatherDim> GatherOutputDims(const OperatorArgs& args) {
    const TensorDesc& in = *args.inputs[0];
    const TensorDesc& idx = *args.inputs[1];
    const uint32_t r = in.rank;
    std::vector<GatherDim> dims;
    switch (args.schema.type) {
        case DML_OPERATOR_GATHER: {
            const auto& desc = args.As<DML_GATHER_OPERATOR_DESC>();
            for (uint32_t d = 0; d < desc.Axis; ++d) dims.push_back({in.sizes[d], in.strides[d], 0});
            for (uint32_t k = r - desc.IndexDimensions; k < r; ++k) dims.push_back({idx.sizes[k], 0, idx.strides[k]});
            for (uint32_t d = desc.Axis + 1; d < r; ++d) dims.push_back({in.sizes[d], in.strides[d], 0});
            break;
        }
        case DML_OPERATOR_GATHER_ELEMENTS: {
            const uint32_t axis = args.As<DML_GATHER_ELEMENTS_OPERATOR_DESC>().Axis;
            for (uint32_t d = 0; d < r; ++d) {
                dims.push_back({idx.sizes[d], d == axis ? 0 : int64_t(in.strides[d]), idx.strides[d]});
            }
            break;
        }
        case DML_OPERATOR_GATHER_ND: {
            const auto& desc = args.As<DML_GATHER_ND_OPERATOR_DESC>();
            dims = GatherNdDims(in, idx, desc.InputDimensionCount, desc.IndicesDimensionCount, 0);
            break;
        }
        case DML_OPERATOR_GATHER_ND1: {
            const auto& desc = args.As<DML_GATHER_ND1_OPERATOR_DESC>();
            dims = GatherNdDims(in, idx, desc.InputDimensionCount, desc.IndicesDimensionCount,
                                desc.BatchDimensionCount);
            break;
        }
        default:
            break;
    }
    return dims;
}

GatherMap DecodeGatherMap(const OperatorArgs& args) {
    const TensorDesc& in = *args.inputs[0];
    const TensorDesc& idx = *args.inputs[1];
    const TensorDesc& out = *args.outputs[0];
    GatherMap map;
    map.rank = out.rank;
    map.count = 1;
    // Right-align the page's dimensions to the output's: leading ones dropped (validation made them
    // 1) or leading dimensions of 1 added.
    std::vector<GatherDim> dims = GatherOutputDims(args);
    while (dims.size() > out.rank) dims.erase(dims.begin());
    while (dims.size() < out.rank) dims.insert(dims.begin(), GatherDim{1, 0, 0});
    for (uint32_t d = 0; d < out.rank; ++d) {
        map.outSizes[d] = out.sizes[d];
        map.outStrides[d] = out.strides[d];
        map.inStrides[d] = dims[d].inStride;
        map.idxStrides[d] = dims[d].idxStride;
        map.count *= out.sizes[d];
    }
    auto component = [&](uint32_t k, uint32_t dim) {
        map.componentSizes[k] = in.sizes[dim];
        map.componentStrides[k] = in.strides[dim];
    };
    const uint32_t r = in.rank;
    switch (args.schema.type) {
        case DML_OPERATOR_GATHER:
            component(0, args.As<DML_GATHER_OPERATOR_DESC>().Axis);
            break;
        case DML_OPERATOR_GATHER_ELEMENTS:
            component(0, args.As<DML_GATHER_ELEMENTS_OPERATOR_DESC>().Axis);
            break;
        case DML_OPERATOR_GATHER_ND:
        case DML_OPERATOR_GATHER_ND1: {
            const bool nd1 = args.schema.type == DML_OPERATOR_GATHER_ND1;
            const uint32_t inCount = nd1 ? args.As<DML_GATHER_ND1_OPERATOR_DESC>().InputDimensionCount
                                         : args.As<DML_GATHER_ND_OPERATOR_DESC>().InputDimensionCount;
            const uint32_t batch = nd1 ? args.As<DML_GATHER_ND1_OPERATOR_DESC>().BatchDimensionCount : 0;
            map.tupleSize = idx.sizes[r - 1];
            map.tupleStride = idx.strides[r - 1];
            for (uint32_t k = 0; k < map.tupleSize; ++k) component(k, r - inCount + batch + k);
            break;
        }
        default:
            break;
    }
    return map;
}

std::vector<GatherDim> ScatterUpdateDims(const OperatorArgs& args) {
    // The GATHER operators' dimensions, with the output standing where GATHER's input stands (it
    // has InputTensor's sizes, but its own strides).
    const TensorDesc& idx = *args.inputs[1];
    const TensorDesc& out = *args.outputs[0];
    std::vector<GatherDim> dims;
    if (args.schema.type == DML_OPERATOR_SCATTER_ELEMENTS) {
        const uint32_t axis = args.As<DML_SCATTER_ELEMENTS_OPERATOR_DESC>().Axis;
        for (uint32_t d = 0; d < out.rank; ++d) {
            dims.push_back({idx.sizes[d], d == axis ? 0 : int64_t(out.strides[d]), idx.strides[d]});
        }
    } else if (args.schema.type == DML_OPERATOR_SCATTER_ND) {
        const auto& desc = args.As<DML_SCATTER_ND_OPERATOR_DESC>();
        dims = GatherNdDims(out, idx, desc.InputDimensionCount, desc.IndicesDimensionCount, 0);
    }
    return dims;
}

ScatterPlan DecodeScatterPlan(const OperatorArgs& args) {
    const TensorDesc& in = *args.inputs[0];
    const TensorDesc& idx = *args.inputs[1];
    const TensorDesc& upd = *args.inputs[2];
    const TensorDesc& out = *args.outputs[0];
    ScatterPlan plan;
    plan.copy.rank = out.rank;
    for (uint32_t d = 0; d < out.rank; ++d) {
        plan.copy.sizes[d] = out.sizes[d];
        plan.copy.inStrides[d] = in.strides[d];
        plan.copy.outStrides[d] = out.strides[d];
    }
    GatherMap& map = plan.map;
    std::vector<GatherDim> dims = ScatterUpdateDims(args);
    while (dims.size() > upd.rank) dims.erase(dims.begin());
    while (dims.size() < upd.rank) dims.insert(dims.begin(), GatherDim{1, 0, 0});
    map.rank = upd.rank;
    map.count = 1;
    for (uint32_t d = 0; d < upd.rank; ++d) {
        map.outSizes[d] = upd.sizes[d];
        map.outStrides[d] = upd.strides[d];
        map.inStrides[d] = dims[d].inStride;
        map.idxStrides[d] = dims[d].idxStride;
        map.count *= upd.sizes[d];
    }
    auto component = [&](uint32_t k, uint32_t dim) {
        map.componentSizes[k] = out.sizes[dim];
        map.componentStrides[k] = out.strides[dim];
    };
    const uint32_t r = out.rank;
    if (args.schema.type == DML_OPERATOR_SCATTER_ELEMENTS) {
        component(0, args.As<DML_SCATTER_ELEMENTS_OPERATOR_DESC>().Axis);
    } else {
        const uint32_t inCount = args.As<DML_SCATTER_ND_OPERATOR_DESC>().InputDimensionCount;
        map.tupleSize = idx.sizes[r - 1];
        map.tupleStride = idx.strides[r - 1];
        for (uint32_t k = 0; k < map.tupleSize; ++k) component(k, r - inCount + k);
    }
    return plan;
}

SliceGradPlan DecodeSliceGrad(const OperatorArgs& args) {
    const auto& desc = args.As<DML_SLICE_GRAD_OPERATOR_DESC>();
    const TensorDesc& dy = *args.inputs[0];
    const TensorDesc& dx = *args.outputs[0];
    SliceGradPlan plan;
    // Every coordinate maps to the constant 0: an input dimension of 0 elements has none inside.
    plan.zero.rank = dx.rank;
    plan.zero.mode = MapMode::Constant;
    plan.zero.count = 1;
    for (uint32_t d = 0; d < dx.rank; ++d) {
        plan.zero.outSizes[d] = dx.sizes[d];
        plan.zero.outStrides[d] = dx.strides[d];
        plan.zero.count *= dx.sizes[d];
    }
    // SLICE1's window read backwards for a negative stride: it starts at its last element.
    plan.copy.rank = dy.rank;
    for (uint32_t d = 0; d < dy.rank; ++d) {
        const int64_t step = desc.InputWindowStrides[d];
        const int64_t start = int64_t(desc.InputWindowOffsets[d]) + (step < 0 ? desc.InputWindowSizes[d] - 1 : 0);
        plan.copy.sizes[d] = dy.sizes[d];
        plan.copy.inStrides[d] = dy.strides[d];
        plan.copy.outStrides[d] = step * int64_t(dx.strides[d]);
        plan.outOffset += start * int64_t(dx.strides[d]);
    }
    return plan;
}

ReverseMap DecodeReverseMap(const OperatorArgs& args) {
    const TensorDesc& in = *args.inputs[0];
    const TensorDesc& len = *args.inputs[1];
    const TensorDesc& out = *args.outputs[0];
    ReverseMap map;
    map.rank = out.rank;
    map.axis = args.As<DML_REVERSE_SUBSEQUENCES_OPERATOR_DESC>().Axis;
    map.count = 1;
    for (uint32_t d = 0; d < out.rank; ++d) {
        map.sizes[d] = out.sizes[d];
        map.inStrides[d] = in.strides[d];
        map.outStrides[d] = out.strides[d];
        map.lenStrides[d] = d == map.axis ? 0 : int64_t(len.strides[d]);
        map.count *= out.sizes[d];
    }
    return map;
}

WindowMap DecodeWindowMap(const OperatorArgs& args) {
    // FOLD and UNFOLD have one layout of desc.
    static_assert(sizeof(DML_FOLD_OPERATOR_DESC) == sizeof(DML_UNFOLD_OPERATOR_DESC));
    const auto& desc = args.As<DML_FOLD_OPERATOR_DESC>();
    const bool fold = args.schema.type == DML_OPERATOR_FOLD;
    const TensorDesc& image = fold ? *args.outputs[0] : *args.inputs[0];
    const TensorDesc& columns = fold ? *args.inputs[0] : *args.outputs[0];
    WindowMap m;
    m.spatial = desc.DimensionCount;
    m.batch = image.sizes[0];
    m.channels = image.sizes[1];
    m.imageStrides[0] = image.strides[0];
    m.imageStrides[1] = image.strides[1];
    m.windowCount = 1;
    m.blockCount = 1;
    for (uint32_t d = 0; d < m.spatial; ++d) {
        m.imageSizes[d] = image.sizes[d + 2];
        m.imageStrides[d + 2] = image.strides[d + 2];
        m.window[d] = desc.WindowSizes[d];
        m.strides[d] = desc.Strides[d];
        m.dilations[d] = desc.Dilations[d];
        m.startPadding[d] = desc.StartPadding[d];
        const int64_t span = int64_t(m.imageSizes[d]) + desc.StartPadding[d] + desc.EndPadding[d] -
                             int64_t(m.dilations[d]) * (m.window[d] - 1) - 1;
        m.blocks[d] = uint32_t(span / m.strides[d] + 1);
        m.windowCount *= m.window[d];
        m.blockCount *= m.blocks[d];
    }
    const uint32_t r = columns.rank;  // its last three dimensions: N, C * P, L
    m.columnStrides[0] = columns.strides[r - 3];
    m.columnStrides[1] = columns.strides[r - 2];
    m.columnStrides[2] = columns.strides[r - 1];
    uint64_t imageCount = 1;
    for (uint32_t d = 0; d < image.rank; ++d) imageCount *= image.sizes[d];
    m.count = fold ? imageCount : uint64_t(m.batch) * m.channels * m.windowCount * m.blockCount;
    return m;
}

FoldType FoldTypeOf(DML_TENSOR_DATA_TYPE type) {
    switch (type) {
        case DML_TENSOR_DATA_TYPE_FLOAT64: return FoldType::F64;
        case DML_TENSOR_DATA_TYPE_FLOAT16: return FoldType::F16;
        case DML_TENSOR_DATA_TYPE_INT64: return FoldType::I64;
        case DML_TENSOR_DATA_TYPE_INT32: return FoldType::I32;
        case DML_TENSOR_DATA_TYPE_UINT64: return FoldType::U64;
        case DML_TENSOR_DATA_TYPE_UINT32: return FoldType::U32;
        case DML_TENSOR_DATA_TYPE_INT16:
            return FoldType::I16;
        case DML_TENSOR_DATA_TYPE_INT8:
            return FoldType::I8;
        case DML_TENSOR_DATA_TYPE_UINT16:
            return FoldType::U16;
        case DML_TENSOR_DATA_TYPE_UINT8:
            return FoldType::U8;
        default: return FoldType::F32;
    }
}

}  // namespace freedml::dml
