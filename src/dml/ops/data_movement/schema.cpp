// Data movement operators: SPLIT and JOIN (cut a tensor along one axis, join pieces along one),
// SLICE and SLICE1 (a strided window of the input), PADDING and PADDING1 (the input surrounded by
// a constant or by mirrored or repeated edges), TILE (the input repeated along each dimension),
// the space/depth permutations SPACE_TO_DEPTH(1) and DEPTH_TO_SPACE(1), and GATHER,
// GATHER_ELEMENTS, GATHER_ND and GATHER_ND1 (elements or blocks picked by an indices tensor), their
// inverses SCATTER_ELEMENTS (also named SCATTER) and SCATTER_ND, SLICE_GRAD (SLICE1's adjoint),
// REVERSE_SUBSEQUENCES, and UNFOLD and FOLD (im2col and col2im). All but FOLD move elements
// without looking at their values; the data types follow the reference pages' tables at the
// highest feature level (dml/schema/catalog.cpp has them; FOLD's and UNFOLD's pages give none).
#include <cstdlib>

#include "dml/ops/data_movement/movement_params.h"
#include "dml/schema/families.h"

namespace freedml::dml {

namespace {

// The tensor cut into pieces (JOIN's output, SPLIT's input) and the pieces have one data type and
// one rank; the pieces have the whole tensor's sizes except along Axis, where their sizes add up.
Status ValidateAxisPieces(const OperatorArgs& args, const TensorDesc& whole, const std::string& wholeName,
                          const std::vector<std::optional<TensorDesc>>& pieces,
                          const std::vector<std::string>& pieceNames, const char* countName, uint32_t axis) {
    FREEDML_TRY(ValidateSameDataType(args));
    INVALID_IF(pieces.empty(), "%s is 0; DML_OPERATOR_%s needs at least one.", countName, args.schema.name);
    INVALID_IF(axis >= whole.rank, "Axis (%u) must be below %s's dimension count (%u).", axis, wholeName.c_str(),
               whole.rank);
    uint64_t total = 0;
    for (size_t i = 0; i < pieces.size(); ++i) {
        const TensorDesc& piece = *pieces[i];
        INVALID_IF(piece.rank != whole.rank, "%s has %u dimensions; %s has %u.", pieceNames[i].c_str(), piece.rank,
                   wholeName.c_str(), whole.rank);
        for (uint32_t d = 0; d < whole.rank; ++d) {
            INVALID_IF(d != axis && piece.sizes[d] != whole.sizes[d],
                       "%s %s differs from %s %s in dimension %u, which is not the Axis (%u).", pieceNames[i].c_str(),
                       SizesToString(piece).c_str(), wholeName.c_str(), SizesToString(whole).c_str(), d, axis);
        }
        total += piece.sizes[axis];
    }
    INVALID_IF(total != whole.sizes[axis], "The sizes of %s along Axis %u add up to %llu, but %s's is %u.",
               args.schema.type == DML_OPERATOR_JOIN ? "the inputs" : "the outputs", axis,
               static_cast<unsigned long long>(total), wholeName.c_str(), whole.sizes[axis]);
    return {};
}

Status ValidateJoin(const OperatorArgs& args) {
    return ValidateAxisPieces(args, *args.outputs[0], args.outputNames[0], args.inputs, args.inputNames, "InputCount",
                              args.As<DML_JOIN_OPERATOR_DESC>().Axis);
}

Status ValidateSplit(const OperatorArgs& args) {
    return ValidateAxisPieces(args, *args.inputs[0], args.inputNames[0], args.outputs, args.outputNames,
                              "OutputCount", args.As<DML_SPLIT_OPERATOR_DESC>().Axis);
}

const OperatorSchema kJoin{
    .type = DML_OPERATOR_JOIN,
    .name = "JOIN",
    .featureLevel = DML_FEATURE_LEVEL_1_0,
    .descSize = sizeof(DML_JOIN_OPERATOR_DESC),
    .fields = {DML_FIELD(DML_JOIN_OPERATOR_DESC, InputCount, UInt),
               DML_FIELD(DML_JOIN_OPERATOR_DESC, InputTensors, InputTensorArray, .countField = "InputCount"),
               DML_FIELD(DML_JOIN_OPERATOR_DESC, OutputTensor, OutputTensor),
               DML_FIELD(DML_JOIN_OPERATOR_DESC, Axis, UInt)},
    .validate = ValidateJoin,
};

const OperatorSchema kSplit{
    .type = DML_OPERATOR_SPLIT,
    .name = "SPLIT",
    .featureLevel = DML_FEATURE_LEVEL_1_0,
    .descSize = sizeof(DML_SPLIT_OPERATOR_DESC),
    .fields = {DML_FIELD(DML_SPLIT_OPERATOR_DESC, InputTensor, InputTensor),
               DML_FIELD(DML_SPLIT_OPERATOR_DESC, OutputCount, UInt),
               DML_FIELD(DML_SPLIT_OPERATOR_DESC, OutputTensors, OutputTensorArray, .countField = "OutputCount"),
               DML_FIELD(DML_SPLIT_OPERATOR_DESC, Axis, UInt)},
    .validate = ValidateSplit,
};

using Types = std::initializer_list<DML_TENSOR_DATA_TYPE>;

// Every 8- to 64-bit type: what SLICE, PADDING and the space/depth operators accept.
constexpr Types kAllTypes = {DML_TENSOR_DATA_TYPE_FLOAT64, DML_TENSOR_DATA_TYPE_FLOAT32, DML_TENSOR_DATA_TYPE_FLOAT16,
                             DML_TENSOR_DATA_TYPE_INT64,   DML_TENSOR_DATA_TYPE_INT32,   DML_TENSOR_DATA_TYPE_INT16,
                             DML_TENSOR_DATA_TYPE_INT8,    DML_TENSOR_DATA_TYPE_UINT64,  DML_TENSOR_DATA_TYPE_UINT32,
                             DML_TENSOR_DATA_TYPE_UINT16,  DML_TENSOR_DATA_TYPE_UINT8};
// TILE's table has no FLOAT64.
constexpr Types kTileTypes = {DML_TENSOR_DATA_TYPE_FLOAT32, DML_TENSOR_DATA_TYPE_FLOAT16, DML_TENSOR_DATA_TYPE_INT64,
                              DML_TENSOR_DATA_TYPE_INT32,   DML_TENSOR_DATA_TYPE_INT16,   DML_TENSOR_DATA_TYPE_INT8,
                              DML_TENSOR_DATA_TYPE_UINT64,  DML_TENSOR_DATA_TYPE_UINT32,  DML_TENSOR_DATA_TYPE_UINT16,
                              DML_TENSOR_DATA_TYPE_UINT8};

constexpr EnumValue kPaddingModeValues[] = {
    {"DML_PADDING_MODE_CONSTANT", DML_PADDING_MODE_CONSTANT},
    {"DML_PADDING_MODE_EDGE", DML_PADDING_MODE_EDGE},
    {"DML_PADDING_MODE_REFLECTION", DML_PADDING_MODE_REFLECTION},
    {"DML_PADDING_MODE_SYMMETRIC", DML_PADDING_MODE_SYMMETRIC},
    {"DML_PADDING_MODE_WRAP", DML_PADDING_MODE_WRAP},
};
const EnumType kPaddingMode{"DML_PADDING_MODE", kPaddingModeValues};

constexpr EnumValue kDepthSpaceOrderValues[] = {
    {"DML_DEPTH_SPACE_ORDER_DEPTH_COLUMN_ROW", DML_DEPTH_SPACE_ORDER_DEPTH_COLUMN_ROW},
    {"DML_DEPTH_SPACE_ORDER_COLUMN_ROW_DEPTH", DML_DEPTH_SPACE_ORDER_COLUMN_ROW_DEPTH},
};
const EnumType kDepthSpaceOrder{"DML_DEPTH_SPACE_ORDER", kDepthSpaceOrderValues};

// One data type for input and output, one of `allowed`; the attribute arrays (DimensionCount or
// RepeatsCount of them) have one entry per dimension of both tensors.
Status ValidateInOut(const OperatorArgs& args, Types allowed, const char* countName, uint32_t count) {
    FREEDML_TRY(ValidateDataTypeIn(args, allowed));
    FREEDML_TRY(ValidateSameDataType(args));
    const TensorDesc& in = *args.inputs[0];
    const TensorDesc& out = *args.outputs[0];
    INVALID_IF(out.rank != in.rank, "OutputTensor has %u dimensions, but InputTensor has %u; they must match.",
               out.rank, in.rank);
    INVALID_IF(countName && count != in.rank, "%s (%u) must equal the tensors' dimension count (%u).", countName,
               count, in.rank);
    return {};
}

// SLICE and SLICE1 take 1 to 8 dimensions from feature level 3.0, only 4 or 5 below it.
Status ValidateSliceRank(const OperatorArgs& args, uint32_t count) {
    INVALID_IF(args.featureLevel < DML_FEATURE_LEVEL_3_0 && count != 4 && count != 5,
               "DimensionCount (%u) must be 4 or 5 below feature level 3.0 (the device's is 0x%x).", count,
               unsigned(args.featureLevel));
    return {};
}

Status ValidateSlice(const OperatorArgs& args) {
    const auto& desc = args.As<DML_SLICE_OPERATOR_DESC>();
    FREEDML_TRY(ValidateInOut(args, kAllTypes, "DimensionCount", desc.DimensionCount));
    FREEDML_TRY(ValidateSliceRank(args, desc.DimensionCount));
    const TensorDesc& in = *args.inputs[0];
    const TensorDesc& out = *args.outputs[0];
    for (uint32_t d = 0; d < in.rank; ++d) {
        // The page does not say whether a stride may be 0; FreeDML asks for at least 1.
        INVALID_IF(desc.Strides[d] == 0, "Strides[%u] is 0; each stride must be at least 1.", d);
        INVALID_IF(desc.Sizes[d] != out.sizes[d], "Sizes[%u] (%u) must equal OutputTensor's size there (%u).", d,
                   desc.Sizes[d], out.sizes[d]);
        const uint64_t last = uint64_t(desc.Offsets[d]) + uint64_t(desc.Sizes[d] - 1) * desc.Strides[d];
        INVALID_IF(last >= in.sizes[d],
                   "The slice reads element %llu of dimension %u (Offsets %u + (Sizes %u - 1) * Strides %u), beyond "
                   "InputTensor's size %u there; DML_OPERATOR_SLICE reads only inside the input.",
                   (unsigned long long)last, d, desc.Offsets[d], desc.Sizes[d], desc.Strides[d], in.sizes[d]);
    }
    return {};
}

Status ValidateSlice1(const OperatorArgs& args) {
    const auto& desc = args.As<DML_SLICE1_OPERATOR_DESC>();
    FREEDML_TRY(ValidateInOut(args, kAllTypes, "DimensionCount", desc.DimensionCount));
    FREEDML_TRY(ValidateSliceRank(args, desc.DimensionCount));
    const TensorDesc& in = *args.inputs[0];
    const TensorDesc& out = *args.outputs[0];
    for (uint32_t d = 0; d < in.rank; ++d) {
        const int64_t stride = desc.InputWindowStrides[d];
        const uint64_t size = desc.InputWindowSizes[d];
        INVALID_IF(stride == 0, "InputWindowStrides[%u] is 0; a stride must be nonzero.", d);
        INVALID_IF(size == 0, "InputWindowSizes[%u] is 0; the input window must not be empty.", d);
        INVALID_IF(uint64_t(desc.InputWindowOffsets[d]) + size > in.sizes[d],
                   "The input window of dimension %u (InputWindowOffsets %u, InputWindowSizes %llu) extends beyond "
                   "InputTensor's size there (%u).",
                   d, desc.InputWindowOffsets[d], (unsigned long long)size, in.sizes[d]);
        const uint64_t reachable = 1 + (size - 1) / uint64_t(std::llabs(stride));
        INVALID_IF(out.sizes[d] > reachable,
                   "OutputTensor's size in dimension %u (%u) exceeds the %llu elements the window (InputWindowSizes "
                   "%llu, InputWindowStrides %lld) reaches.",
                   d, out.sizes[d], (unsigned long long)reachable, (unsigned long long)size, (long long)stride);
    }
    return {};
}

// PADDING and PADDING1: OutputTensor.Sizes = InputTensor.Sizes + StartPadding + EndPadding.
Status ValidatePaddingShape(const OperatorArgs& args, uint32_t mode, uint32_t count, const UINT* start,
                            const UINT* end) {
    FREEDML_TRY(ValidateInOut(args, kAllTypes, "DimensionCount", count));
    INVALID_IF(mode == DML_PADDING_MODE_SYMMETRIC && args.featureLevel < DML_FEATURE_LEVEL_3_0,
               "PaddingMode DML_PADDING_MODE_SYMMETRIC needs feature level 3.0 (the device's is 0x%x).",
               unsigned(args.featureLevel));
    INVALID_IF(mode == DML_PADDING_MODE_WRAP && args.featureLevel < DML_FEATURE_LEVEL_6_4,
               "PaddingMode DML_PADDING_MODE_WRAP needs feature level 6.4 (the device's is 0x%x).",
               unsigned(args.featureLevel));
    const TensorDesc& in = *args.inputs[0];
    const TensorDesc& out = *args.outputs[0];
    for (uint32_t d = 0; d < in.rank; ++d) {
        const uint64_t want = uint64_t(in.sizes[d]) + start[d] + end[d];
        INVALID_IF(out.sizes[d] != want,
                   "OutputTensor's size in dimension %u (%u) must be InputTensor's (%u) + StartPadding (%u) + "
                   "EndPadding (%u) = %llu.",
                   d, out.sizes[d], in.sizes[d], start[d], end[d], (unsigned long long)want);
    }
    return {};
}

Status ValidatePadding(const OperatorArgs& args) {
    const auto& desc = args.As<DML_PADDING_OPERATOR_DESC>();
    return ValidatePaddingShape(args, desc.PaddingMode, desc.DimensionCount, desc.StartPadding, desc.EndPadding);
}

Status ValidatePadding1(const OperatorArgs& args) {
    const auto& desc = args.As<DML_PADDING1_OPERATOR_DESC>();
    FREEDML_TRY(
        ValidatePaddingShape(args, desc.PaddingMode, desc.DimensionCount, desc.StartPadding, desc.EndPadding));
    // The page: the value's type must be OutputTensor's.
    INVALID_IF(desc.PaddingValueDataType != args.outputs[0]->dataType,
               "PaddingValueDataType (%s) must match OutputTensor's data type (%s).",
               DataTypeName(desc.PaddingValueDataType), DataTypeName(args.outputs[0]->dataType));
    return {};
}

Status ValidateTile(const OperatorArgs& args) {
    const auto& desc = args.As<DML_TILE_OPERATOR_DESC>();
    FREEDML_TRY(ValidateInOut(args, kTileTypes, "RepeatsCount", desc.RepeatsCount));
    const TensorDesc& in = *args.inputs[0];
    const TensorDesc& out = *args.outputs[0];
    for (uint32_t d = 0; d < in.rank; ++d) {
        const uint64_t want = uint64_t(in.sizes[d]) * desc.Repeats[d];
        INVALID_IF(out.sizes[d] != want,
                   "OutputTensor's size in dimension %u (%u) must be InputTensor's (%u) * Repeats[%u] (%u) = %llu.", d,
                   out.sizes[d], in.sizes[d], d, desc.Repeats[d], (unsigned long long)want);
    }
    return {};
}

// The space/depth operators: 4-D {N, C, H, W} tensors; the depth side has BlockSize^2 times the
// channels of the space side, which has BlockSize times its height and width.
Status ValidateDepthSpace(const OperatorArgs& args, uint32_t blockSize, bool depthIsInput) {
    FREEDML_TRY(ValidateInOut(args, kAllTypes, nullptr, 0));
    const TensorDesc& in = *args.inputs[0];
    const TensorDesc& out = *args.outputs[0];
    INVALID_IF(in.rank != 4, "InputTensor has %u dimensions; DML_OPERATOR_%s takes 4 ({N, C, H, W}).", in.rank,
               args.schema.name);
    INVALID_IF(blockSize == 0, "BlockSize is 0; it must be at least 1.");
    const TensorDesc& depth = depthIsInput ? in : out;
    const TensorDesc& space = depthIsInput ? out : in;
    const char* depthName = depthIsInput ? "InputTensor" : "OutputTensor";
    const char* spaceName = depthIsInput ? "OutputTensor" : "InputTensor";
    const uint64_t b = blockSize;
    const bool ok = depth.sizes[0] == space.sizes[0] && uint64_t(depth.sizes[1]) == uint64_t(space.sizes[1]) * b * b &&
                    uint64_t(space.sizes[2]) == uint64_t(depth.sizes[2]) * b &&
                    uint64_t(space.sizes[3]) == uint64_t(depth.sizes[3]) * b;
    INVALID_IF(!ok,
               "%s %s and %s %s do not fit BlockSize %u: the depth side {N, C * %u, H, W} goes with the space side "
               "{N, C, H * %u, W * %u}.",
               depthName, SizesToString(depth).c_str(), spaceName, SizesToString(space).c_str(), blockSize,
               blockSize * blockSize, blockSize, blockSize);
    return {};
}

template <class Desc, bool kDepthIsInput>
Status ValidateDepthSpaceOf(const OperatorArgs& args) {
    return ValidateDepthSpace(args, args.As<Desc>().BlockSize, kDepthIsInput);
}

const OperatorSchema kSlice{
    .type = DML_OPERATOR_SLICE,
    .name = "SLICE",
    .featureLevel = DML_FEATURE_LEVEL_1_0,
    .descSize = sizeof(DML_SLICE_OPERATOR_DESC),
    .fields = {DML_FIELD(DML_SLICE_OPERATOR_DESC, InputTensor, InputTensor),
               DML_FIELD(DML_SLICE_OPERATOR_DESC, OutputTensor, OutputTensor),
               DML_FIELD(DML_SLICE_OPERATOR_DESC, DimensionCount, UInt),
               DML_FIELD(DML_SLICE_OPERATOR_DESC, Offsets, UIntArray, .countField = "DimensionCount"),
               DML_FIELD(DML_SLICE_OPERATOR_DESC, Sizes, UIntArray, .countField = "DimensionCount"),
               DML_FIELD(DML_SLICE_OPERATOR_DESC, Strides, UIntArray, .countField = "DimensionCount")},
    .validate = ValidateSlice,
};

const OperatorSchema kSlice1{
    .type = DML_OPERATOR_SLICE1,
    .name = "SLICE1",
    .featureLevel = DML_FEATURE_LEVEL_2_1,
    .descSize = sizeof(DML_SLICE1_OPERATOR_DESC),
    .fields = {DML_FIELD(DML_SLICE1_OPERATOR_DESC, InputTensor, InputTensor),
               DML_FIELD(DML_SLICE1_OPERATOR_DESC, OutputTensor, OutputTensor),
               DML_FIELD(DML_SLICE1_OPERATOR_DESC, DimensionCount, UInt),
               DML_FIELD(DML_SLICE1_OPERATOR_DESC, InputWindowOffsets, UIntArray, .countField = "DimensionCount"),
               DML_FIELD(DML_SLICE1_OPERATOR_DESC, InputWindowSizes, UIntArray, .countField = "DimensionCount"),
               DML_FIELD(DML_SLICE1_OPERATOR_DESC, InputWindowStrides, IntArray, .countField = "DimensionCount")},
    .validate = ValidateSlice1,
};

const OperatorSchema kPadding{
    .type = DML_OPERATOR_PADDING,
    .name = "PADDING",
    .featureLevel = DML_FEATURE_LEVEL_1_0,
    .descSize = sizeof(DML_PADDING_OPERATOR_DESC),
    .fields = {DML_FIELD(DML_PADDING_OPERATOR_DESC, InputTensor, InputTensor),
               DML_FIELD(DML_PADDING_OPERATOR_DESC, OutputTensor, OutputTensor),
               DML_FIELD(DML_PADDING_OPERATOR_DESC, PaddingMode, Enum, .enumType = &kPaddingMode),
               DML_FIELD(DML_PADDING_OPERATOR_DESC, PaddingValue, Float),
               DML_FIELD(DML_PADDING_OPERATOR_DESC, DimensionCount, UInt),
               DML_FIELD(DML_PADDING_OPERATOR_DESC, StartPadding, UIntArray, .countField = "DimensionCount"),
               DML_FIELD(DML_PADDING_OPERATOR_DESC, EndPadding, UIntArray, .countField = "DimensionCount")},
    .validate = ValidatePadding,
};

const OperatorSchema kPadding1{
    .type = DML_OPERATOR_PADDING1,
    .name = "PADDING1",
    .featureLevel = DML_FEATURE_LEVEL_5_0,
    .descSize = sizeof(DML_PADDING1_OPERATOR_DESC),
    .fields = {DML_FIELD(DML_PADDING1_OPERATOR_DESC, InputTensor, InputTensor),
               DML_FIELD(DML_PADDING1_OPERATOR_DESC, OutputTensor, OutputTensor),
               DML_FIELD(DML_PADDING1_OPERATOR_DESC, PaddingMode, Enum, .enumType = &kPaddingMode),
               DML_FIELD(DML_PADDING1_OPERATOR_DESC, PaddingValueDataType, Enum, .enumType = &TensorDataTypeEnum()),
               DML_FIELD(DML_PADDING1_OPERATOR_DESC, PaddingValue, ScalarUnion, .typeField = "PaddingValueDataType"),
               DML_FIELD(DML_PADDING1_OPERATOR_DESC, DimensionCount, UInt),
               DML_FIELD(DML_PADDING1_OPERATOR_DESC, StartPadding, UIntArray, .countField = "DimensionCount"),
               DML_FIELD(DML_PADDING1_OPERATOR_DESC, EndPadding, UIntArray, .countField = "DimensionCount")},
    .validate = ValidatePadding1,
};

const OperatorSchema kTile{
    .type = DML_OPERATOR_TILE,
    .name = "TILE",
    .featureLevel = DML_FEATURE_LEVEL_1_0,
    .descSize = sizeof(DML_TILE_OPERATOR_DESC),
    .fields = {DML_FIELD(DML_TILE_OPERATOR_DESC, InputTensor, InputTensor),
               DML_FIELD(DML_TILE_OPERATOR_DESC, OutputTensor, OutputTensor),
               DML_FIELD(DML_TILE_OPERATOR_DESC, RepeatsCount, UInt),
               DML_FIELD(DML_TILE_OPERATOR_DESC, Repeats, UIntArray, .countField = "RepeatsCount")},
    .validate = ValidateTile,
};

#define FREEDML_DEPTH_SPACE_SCHEMA(var, TYPE, Desc, level, depthIsInput, ...)             \
    const OperatorSchema var{                                                             \
        .type = DML_OPERATOR_##TYPE,                                                      \
        .name = #TYPE,                                                                    \
        .featureLevel = DML_FEATURE_LEVEL_##level,                                        \
        .descSize = sizeof(Desc),                                                         \
        .fields = {DML_FIELD(Desc, InputTensor, InputTensor), DML_FIELD(Desc, OutputTensor, OutputTensor), \
                   DML_FIELD(Desc, BlockSize, UInt) __VA_ARGS__},                         \
        .validate = ValidateDepthSpaceOf<Desc, depthIsInput>,                             \
    }

FREEDML_DEPTH_SPACE_SCHEMA(kSpaceToDepth, SPACE_TO_DEPTH, DML_SPACE_TO_DEPTH_OPERATOR_DESC, 1_0, false);
FREEDML_DEPTH_SPACE_SCHEMA(kDepthToSpace, DEPTH_TO_SPACE, DML_DEPTH_TO_SPACE_OPERATOR_DESC, 1_0, true);
FREEDML_DEPTH_SPACE_SCHEMA(kSpaceToDepth1, SPACE_TO_DEPTH1, DML_SPACE_TO_DEPTH1_OPERATOR_DESC, 2_1, false,
                           , DML_FIELD(DML_SPACE_TO_DEPTH1_OPERATOR_DESC, Order, Enum, .enumType = &kDepthSpaceOrder));
FREEDML_DEPTH_SPACE_SCHEMA(kDepthToSpace1, DEPTH_TO_SPACE1, DML_DEPTH_TO_SPACE1_OPERATOR_DESC, 2_1, true,
                           , DML_FIELD(DML_DEPTH_TO_SPACE1_OPERATOR_DESC, Order, Enum, .enumType = &kDepthSpaceOrder));
#undef FREEDML_DEPTH_SPACE_SCHEMA

constexpr Types kIndexTypes = {DML_TENSOR_DATA_TYPE_INT64, DML_TENSOR_DATA_TYPE_INT32, DML_TENSOR_DATA_TYPE_UINT64,
                               DML_TENSOR_DATA_TYPE_UINT32};

// InputTensor and OutputTensor of one of the ten-plus-one value types, IndicesTensor of an index
// type, all three of one DimensionCount.
Status ValidateGatherTensors(const OperatorArgs& args) {
    const TensorDesc& in = *args.inputs[0];
    const TensorDesc& idx = *args.inputs[1];
    const TensorDesc& out = *args.outputs[0];
    bool known = false;
    for (auto t : kAllTypes) known |= t == in.dataType;
    INVALID_IF(!known, "InputTensor has data type %s; DML_OPERATOR_%s accepts %s.", DataTypeName(in.dataType),
               args.schema.name, DataTypeListToString(kAllTypes).c_str());
    INVALID_IF(out.dataType != in.dataType, "OutputTensor has data type %s, but InputTensor is %s; they must match.",
               DataTypeName(out.dataType), DataTypeName(in.dataType));
    bool index = false;
    for (auto t : kIndexTypes) index |= t == idx.dataType;
    INVALID_IF(!index, "IndicesTensor has data type %s; DML_OPERATOR_%s takes indices as %s.",
               DataTypeName(idx.dataType), args.schema.name, DataTypeListToString(kIndexTypes).c_str());
    INVALID_IF(idx.rank != in.rank || out.rank != in.rank,
               "InputTensor, IndicesTensor and OutputTensor have %u, %u and %u dimensions; they must match.", in.rank,
               idx.rank, out.rank);
    return {};
}

// OutputTensor has the sizes the page gives, right-aligned to its dimension count: extra leading
// dimensions must be 1, missing ones are 1.
Status ValidateGatherOutput(const OperatorArgs& args) {
    const TensorDesc& out = *args.outputs[0];
    std::vector<GatherDim> dims = GatherOutputDims(args);
    std::string want = "{";
    for (size_t i = 0; i < dims.size(); ++i) want += (i ? ", " : "") + std::to_string(dims[i].size);
    want += "}";
    while (dims.size() > out.rank) {
        INVALID_IF(dims.front().size != 1,
                   "The output sizes DML_OPERATOR_%s gives (%s) have more than OutputTensor's %u dimensions and a "
                   "leading one that is not 1.",
                   args.schema.name, want.c_str(), out.rank);
        dims.erase(dims.begin());
    }
    while (dims.size() < out.rank) dims.insert(dims.begin(), GatherDim{1, 0, 0});
    for (uint32_t d = 0; d < out.rank; ++d) {
        INVALID_IF(out.sizes[d] != dims[d].size,
                   "OutputTensor has sizes %s; DML_OPERATOR_%s gives %s here (right-aligned to %u dimensions).",
                   SizesToString(out).c_str(), args.schema.name, want.c_str(), out.rank);
    }
    return {};
}

// Dimensions before a tensor's original rank (the count the desc gives) are padding and must be 1.
Status ValidateLeadingOnes(const TensorDesc& tensor, const char* name, uint32_t count, const char* countName) {
    INVALID_IF(count == 0 || count > tensor.rank, "%s (%u) must be 1 to %s's DimensionCount (%u).", countName, count,
               name, tensor.rank);
    for (uint32_t d = 0; d + count < tensor.rank; ++d) {
        INVALID_IF(tensor.sizes[d] != 1,
                   "%s has sizes %s; with %s %u its leading dimension %u is padding and must be 1.", name,
                   SizesToString(tensor).c_str(), countName, count, d);
    }
    return {};
}

Status ValidateGather(const OperatorArgs& args) {
    const auto& desc = args.As<DML_GATHER_OPERATOR_DESC>();
    FREEDML_TRY(ValidateGatherTensors(args));
    const TensorDesc& in = *args.inputs[0];
    const TensorDesc& idx = *args.inputs[1];
    INVALID_IF(desc.Axis >= in.rank, "Axis (%u) must be below InputTensor's DimensionCount (%u).", desc.Axis,
               in.rank);
    INVALID_IF(desc.IndexDimensions >= idx.rank, "IndexDimensions (%u) must be below IndicesTensor's DimensionCount (%u).",
               desc.IndexDimensions, idx.rank);
    // The page: IndicesTensor's dimensions before the last IndexDimensions are ignored; FreeDML asks
    // them to be 1, so that no index goes unread.
    for (uint32_t d = 0; d + desc.IndexDimensions < idx.rank; ++d) {
        INVALID_IF(idx.sizes[d] != 1,
                   "IndicesTensor has sizes %s; with IndexDimensions %u its dimension %u must be 1.",
                   SizesToString(idx).c_str(), desc.IndexDimensions, d);
    }
    return ValidateGatherOutput(args);
}

Status ValidateGatherElements(const OperatorArgs& args) {
    const auto& desc = args.As<DML_GATHER_ELEMENTS_OPERATOR_DESC>();
    FREEDML_TRY(ValidateGatherTensors(args));
    const TensorDesc& in = *args.inputs[0];
    const TensorDesc& idx = *args.inputs[1];
    INVALID_IF(desc.Axis >= in.rank, "Axis (%u) must be below InputTensor's DimensionCount (%u).", desc.Axis,
               in.rank);
    for (uint32_t d = 0; d < in.rank; ++d) {
        INVALID_IF(d != desc.Axis && idx.sizes[d] > in.sizes[d],
                   "IndicesTensor has sizes %s, larger than InputTensor's %s in dimension %u, which is not the Axis "
                   "(%u).",
                   SizesToString(idx).c_str(), SizesToString(in).c_str(), d, desc.Axis);
    }
    return ValidateGatherOutput(args);
}

Status ValidateGatherNd(const OperatorArgs& args, uint32_t inCount, uint32_t idxCount, uint32_t batchCount) {
    FREEDML_TRY(ValidateGatherTensors(args));
    const TensorDesc& in = *args.inputs[0];
    const TensorDesc& idx = *args.inputs[1];
    FREEDML_TRY(ValidateLeadingOnes(in, "InputTensor", inCount, "InputDimensionCount"));
    FREEDML_TRY(ValidateLeadingOnes(idx, "IndicesTensor", idxCount, "IndicesDimensionCount"));
    const uint32_t r = in.rank, q = idx.sizes[r - 1];
    INVALID_IF(batchCount >= idxCount || batchCount >= inCount,
               "BatchDimensionCount (%u) must be below IndicesDimensionCount (%u) and InputDimensionCount (%u).",
               batchCount, idxCount, inCount);
    INVALID_IF(q == 0 || batchCount + q > inCount,
               "IndicesTensor's last dimension (%u, the coordinates per index tuple) must be 1 to %u "
               "(InputDimensionCount %u less BatchDimensionCount %u).",
               q, inCount - batchCount, inCount, batchCount);
    for (uint32_t j = 0; j < batchCount; ++j) {
        const uint32_t a = in.sizes[r - inCount + j], b = idx.sizes[r - idxCount + j];
        INVALID_IF(a != b, "Batch dimension %u has size %u in InputTensor and %u in IndicesTensor; they must match.",
                   j, a, b);
    }
    return ValidateGatherOutput(args);
}

Status ValidateGatherNd0(const OperatorArgs& args) {
    const auto& desc = args.As<DML_GATHER_ND_OPERATOR_DESC>();
    return ValidateGatherNd(args, desc.InputDimensionCount, desc.IndicesDimensionCount, 0);
}

Status ValidateGatherNd1(const OperatorArgs& args) {
    const auto& desc = args.As<DML_GATHER_ND1_OPERATOR_DESC>();
    return ValidateGatherNd(args, desc.InputDimensionCount, desc.IndicesDimensionCount, desc.BatchDimensionCount);
}

#define FREEDML_GATHER_FIELDS(Desc)                                                                  \
    DML_FIELD(Desc, InputTensor, InputTensor), DML_FIELD(Desc, IndicesTensor, InputTensor),         \
        DML_FIELD(Desc, OutputTensor, OutputTensor)

const OperatorSchema kGather{
    .type = DML_OPERATOR_GATHER,
    .name = "GATHER",
    .featureLevel = DML_FEATURE_LEVEL_1_0,
    .descSize = sizeof(DML_GATHER_OPERATOR_DESC),
    .fields = {FREEDML_GATHER_FIELDS(DML_GATHER_OPERATOR_DESC), DML_FIELD(DML_GATHER_OPERATOR_DESC, Axis, UInt),
               DML_FIELD(DML_GATHER_OPERATOR_DESC, IndexDimensions, UInt)},
    .validate = ValidateGather,
};

const OperatorSchema kGatherElements{
    .type = DML_OPERATOR_GATHER_ELEMENTS,
    .name = "GATHER_ELEMENTS",
    .featureLevel = DML_FEATURE_LEVEL_2_1,
    .descSize = sizeof(DML_GATHER_ELEMENTS_OPERATOR_DESC),
    .fields = {FREEDML_GATHER_FIELDS(DML_GATHER_ELEMENTS_OPERATOR_DESC),
               DML_FIELD(DML_GATHER_ELEMENTS_OPERATOR_DESC, Axis, UInt)},
    .validate = ValidateGatherElements,
};

const OperatorSchema kGatherNd{
    .type = DML_OPERATOR_GATHER_ND,
    .name = "GATHER_ND",
    .featureLevel = DML_FEATURE_LEVEL_2_1,
    .descSize = sizeof(DML_GATHER_ND_OPERATOR_DESC),
    .fields = {FREEDML_GATHER_FIELDS(DML_GATHER_ND_OPERATOR_DESC),
               DML_FIELD(DML_GATHER_ND_OPERATOR_DESC, InputDimensionCount, UInt),
               DML_FIELD(DML_GATHER_ND_OPERATOR_DESC, IndicesDimensionCount, UInt)},
    .validate = ValidateGatherNd0,
};

const OperatorSchema kGatherNd1{
    .type = DML_OPERATOR_GATHER_ND1,
    .name = "GATHER_ND1",
    .featureLevel = DML_FEATURE_LEVEL_3_0,
    .descSize = sizeof(DML_GATHER_ND1_OPERATOR_DESC),
    .fields = {FREEDML_GATHER_FIELDS(DML_GATHER_ND1_OPERATOR_DESC),
               DML_FIELD(DML_GATHER_ND1_OPERATOR_DESC, InputDimensionCount, UInt),
               DML_FIELD(DML_GATHER_ND1_OPERATOR_DESC, IndicesDimensionCount, UInt),
               DML_FIELD(DML_GATHER_ND1_OPERATOR_DESC, BatchDimensionCount, UInt)},
    .validate = ValidateGatherNd1,
};
#undef FREEDML_GATHER_FIELDS

// ---- SCATTER_ELEMENTS, SCATTER_ND and SLICE_GRAD ----------------------------------------------------

// InputTensor, UpdatesTensor and OutputTensor of one value type, IndicesTensor of an index type,
// all four of one DimensionCount; OutputTensor has InputTensor's sizes.
Status ValidateScatterTensors(const OperatorArgs& args) {
    const TensorDesc& in = *args.inputs[0];
    const TensorDesc& idx = *args.inputs[1];
    const TensorDesc& upd = *args.inputs[2];
    const TensorDesc& out = *args.outputs[0];
    bool known = false;
    for (auto t : kAllTypes) known |= t == in.dataType;
    INVALID_IF(!known, "InputTensor has data type %s; DML_OPERATOR_%s accepts %s.", DataTypeName(in.dataType),
               args.schema.name, DataTypeListToString(kAllTypes).c_str());
    INVALID_IF(upd.dataType != in.dataType || out.dataType != in.dataType,
               "InputTensor, UpdatesTensor and OutputTensor have data types %s, %s and %s; they must match.",
               DataTypeName(in.dataType), DataTypeName(upd.dataType), DataTypeName(out.dataType));
    bool index = false;
    for (auto t : kIndexTypes) index |= t == idx.dataType;
    INVALID_IF(!index, "IndicesTensor has data type %s; DML_OPERATOR_%s takes indices as %s.",
               DataTypeName(idx.dataType), args.schema.name, DataTypeListToString(kIndexTypes).c_str());
    INVALID_IF(idx.rank != in.rank || upd.rank != in.rank || out.rank != in.rank,
               "InputTensor, IndicesTensor, UpdatesTensor and OutputTensor have %u, %u, %u and %u dimensions; they "
               "must match.",
               in.rank, idx.rank, upd.rank, out.rank);
    for (uint32_t d = 0; d < in.rank; ++d) {
        INVALID_IF(out.sizes[d] != in.sizes[d], "OutputTensor has sizes %s; they must be InputTensor's %s.",
                   SizesToString(out).c_str(), SizesToString(in).c_str());
    }
    return {};
}

Status ValidateScatterElements(const OperatorArgs& args) {
    const auto& desc = args.As<DML_SCATTER_ELEMENTS_OPERATOR_DESC>();
    FREEDML_TRY(ValidateScatterTensors(args));
    const TensorDesc& in = *args.inputs[0];
    const TensorDesc& idx = *args.inputs[1];
    const TensorDesc& upd = *args.inputs[2];
    INVALID_IF(desc.Axis >= in.rank, "Axis (%u) must be below OutputTensor's DimensionCount (%u).", desc.Axis,
               in.rank);
    for (uint32_t d = 0; d < in.rank; ++d) {
        // The page: IndicesTensor's sizes match InputTensor's in every dimension but Axis.
        INVALID_IF(d != desc.Axis && idx.sizes[d] != in.sizes[d],
                   "IndicesTensor has sizes %s; they must equal InputTensor's %s in dimension %u, which is not the "
                   "Axis (%u).",
                   SizesToString(idx).c_str(), SizesToString(in).c_str(), d, desc.Axis);
        INVALID_IF(upd.sizes[d] != idx.sizes[d], "UpdatesTensor has sizes %s; they must equal IndicesTensor's %s.",
                   SizesToString(upd).c_str(), SizesToString(idx).c_str());
    }
    return {};
}

Status ValidateScatterNd(const OperatorArgs& args) {
    const auto& desc = args.As<DML_SCATTER_ND_OPERATOR_DESC>();
    FREEDML_TRY(ValidateScatterTensors(args));
    const TensorDesc& in = *args.inputs[0];
    const TensorDesc& idx = *args.inputs[1];
    const TensorDesc& upd = *args.inputs[2];
    FREEDML_TRY(ValidateLeadingOnes(in, "InputTensor", desc.InputDimensionCount, "InputDimensionCount"));
    FREEDML_TRY(ValidateLeadingOnes(idx, "IndicesTensor", desc.IndicesDimensionCount, "IndicesDimensionCount"));
    const uint32_t q = idx.sizes[in.rank - 1];
    INVALID_IF(q == 0 || q > desc.InputDimensionCount,
               "IndicesTensor's last dimension (%u, the coordinates per index tuple) must be 1 to "
               "InputDimensionCount (%u).",
               q, desc.InputDimensionCount);
    // The page: UpdatesTensor's sizes are IndicesTensor's but the last, then InputTensor's after the
    // indexed ones, right-aligned (leading ones added or dropped).
    std::vector<GatherDim> dims = ScatterUpdateDims(args);
    std::string want = "{";
    for (size_t i = 0; i < dims.size(); ++i) want += (i ? ", " : "") + std::to_string(dims[i].size);
    want += "}";
    while (dims.size() > upd.rank && dims.front().size == 1) dims.erase(dims.begin());
    while (dims.size() < upd.rank) dims.insert(dims.begin(), GatherDim{1, 0, 0});
    bool match = dims.size() == upd.rank;
    for (uint32_t d = 0; match && d < upd.rank; ++d) match = upd.sizes[d] == dims[d].size;
    INVALID_IF(!match, "UpdatesTensor has sizes %s; DML_OPERATOR_SCATTER_ND needs %s (right-aligned to %u dimensions).",
               SizesToString(upd).c_str(), want.c_str(), upd.rank);
    return {};
}

Status ValidateSliceGrad(const OperatorArgs& args) {
    const auto& desc = args.As<DML_SLICE_GRAD_OPERATOR_DESC>();
    FREEDML_TRY(ValidateInOut(args, kAllTypes, "DimensionCount", desc.DimensionCount));
    // SLICE1's rules with the tensors exchanged: the window lies in OutputGradientTensor (the
    // sliced tensor's shape), InputGradientTensor has the slice's shape.
    const TensorDesc& dy = *args.inputs[0];
    const TensorDesc& dx = *args.outputs[0];
    for (uint32_t d = 0; d < dx.rank; ++d) {
        const int64_t stride = desc.InputWindowStrides[d];
        const uint64_t size = desc.InputWindowSizes[d];
        INVALID_IF(stride == 0, "InputWindowStrides[%u] is 0; a stride must be nonzero.", d);
        INVALID_IF(size == 0, "InputWindowSizes[%u] is 0; the window must not be empty.", d);
        INVALID_IF(uint64_t(desc.InputWindowOffsets[d]) + size > dx.sizes[d],
                   "The window of dimension %u (InputWindowOffsets %u, InputWindowSizes %llu) extends beyond "
                   "OutputGradientTensor's size there (%u).",
                   d, desc.InputWindowOffsets[d], (unsigned long long)size, dx.sizes[d]);
        const uint64_t reachable = 1 + (size - 1) / uint64_t(std::llabs(stride));
        INVALID_IF(dy.sizes[d] > reachable,
                   "InputGradientTensor's size in dimension %u (%u) exceeds the %llu elements the window "
                   "(InputWindowSizes %llu, InputWindowStrides %lld) reaches.",
                   d, dy.sizes[d], (unsigned long long)reachable, (unsigned long long)size, (long long)stride);
    }
    return {};
}

Status ValidateReverseSubsequences(const OperatorArgs& args) {
    const auto& desc = args.As<DML_REVERSE_SUBSEQUENCES_OPERATOR_DESC>();
    const TensorDesc& in = *args.inputs[0];
    const TensorDesc& len = *args.inputs[1];
    const TensorDesc& out = *args.outputs[0];
    bool known = false;
    for (auto t : kAllTypes) known |= t == in.dataType;
    INVALID_IF(!known, "InputTensor has data type %s; DML_OPERATOR_REVERSE_SUBSEQUENCES accepts %s.",
               DataTypeName(in.dataType), DataTypeListToString(kAllTypes).c_str());
    INVALID_IF(out.dataType != in.dataType, "OutputTensor has data type %s, but InputTensor is %s; they must match.",
               DataTypeName(out.dataType), DataTypeName(in.dataType));
    INVALID_IF(out.rank != in.rank, "OutputTensor has %u dimensions, but InputTensor has %u; they must match.",
               out.rank, in.rank);
    INVALID_IF(len.dataType != DML_TENSOR_DATA_TYPE_UINT32 && len.dataType != DML_TENSOR_DATA_TYPE_UINT64,
               "SequenceLengthsTensor has data type %s; DML_OPERATOR_REVERSE_SUBSEQUENCES takes UINT32 or UINT64.",
               DataTypeName(len.dataType));
    INVALID_IF(desc.Axis >= in.rank, "Axis (%u) must be below InputTensor's DimensionCount (%u).", desc.Axis, in.rank);
    INVALID_IF(len.rank != in.rank, "SequenceLengthsTensor has %u dimensions; InputTensor has %u, they must match.",
               len.rank, in.rank);
    for (uint32_t d = 0; d < in.rank; ++d) {
        INVALID_IF(out.sizes[d] != in.sizes[d], "OutputTensor has sizes %s; they must be InputTensor's %s.",
                   SizesToString(out).c_str(), SizesToString(in).c_str());
        const uint32_t want = d == desc.Axis ? 1 : in.sizes[d];
        INVALID_IF(len.sizes[d] != want,
                   "SequenceLengthsTensor has sizes %s; with Axis %u it must have InputTensor's sizes %s with 1 in "
                   "dimension %u.",
                   SizesToString(len).c_str(), desc.Axis, SizesToString(in).c_str(), desc.Axis);
    }
    return {};
}

const OperatorSchema kReverseSubsequences{
    .type = DML_OPERATOR_REVERSE_SUBSEQUENCES,
    .name = "REVERSE_SUBSEQUENCES",
    .featureLevel = DML_FEATURE_LEVEL_2_1,
    .descSize = sizeof(DML_REVERSE_SUBSEQUENCES_OPERATOR_DESC),
    .fields = {DML_FIELD(DML_REVERSE_SUBSEQUENCES_OPERATOR_DESC, InputTensor, InputTensor),
               DML_FIELD(DML_REVERSE_SUBSEQUENCES_OPERATOR_DESC, SequenceLengthsTensor, InputTensor),
               DML_FIELD(DML_REVERSE_SUBSEQUENCES_OPERATOR_DESC, OutputTensor, OutputTensor),
               DML_FIELD(DML_REVERSE_SUBSEQUENCES_OPERATOR_DESC, Axis, UInt)},
    .validate = ValidateReverseSubsequences,
};

// ---- FOLD and UNFOLD -------------------------------------------------------------------------------

// The pages give no data types. Both take every 8- to 64-bit type: UNFOLD only moves elements,
// FOLD sums overlapping windows (floats in float, FLOAT16 in float32; integers modulo their type,
// as DirectML's integer ADD wraps).
// The image tensor is {N, C, spatial...} with DimensionCount spatial dimensions; the column tensor
// is {N, C * prod(WindowSizes), BlockCount} (leading dimensions of 1 before those three allowed),
// with BlocksPerDimension as the pages give it.
Status ValidateFoldUnfold(const OperatorArgs& args) {
    const auto& desc = args.As<DML_FOLD_OPERATOR_DESC>();  // UNFOLD's desc has the same fields
    const bool fold = args.schema.type == DML_OPERATOR_FOLD;
    const TensorDesc& in = *args.inputs[0];
    const TensorDesc& out = *args.outputs[0];
    const Types allowed = kAllTypes;
    bool known = false;
    for (auto t : allowed) known |= t == in.dataType;
    INVALID_IF(!known, "InputTensor has data type %s; DML_OPERATOR_%s accepts %s.", DataTypeName(in.dataType),
               args.schema.name, DataTypeListToString(allowed).c_str());
    INVALID_IF(out.dataType != in.dataType, "OutputTensor has data type %s, but InputTensor is %s; they must match.",
               DataTypeName(out.dataType), DataTypeName(in.dataType));
    const TensorDesc& image = fold ? out : in;
    const TensorDesc& columns = fold ? in : out;
    const char* imageName = fold ? "OutputTensor" : "InputTensor";
    const char* columnsName = fold ? "InputTensor" : "OutputTensor";
    const uint32_t n = desc.DimensionCount;
    INVALID_IF(n == 0 || n > kWindowMaxDims, "DimensionCount (%u) must be 1 to %u.", n, kWindowMaxDims);
    INVALID_IF(image.rank != n + 2,
               "%s has %u dimensions; with DimensionCount %u it must have %u ({N, C} and the spatial ones).",
               imageName, image.rank, n, n + 2);
    INVALID_IF(columns.rank < 3, "%s has %u dimensions; it must have 3 ({N, C * window elements, blocks}).",
               columnsName, columns.rank);
    for (uint32_t d = 0; d + 3 < columns.rank; ++d) {
        INVALID_IF(columns.sizes[d] != 1, "%s has sizes %s; dimensions before its last three must be 1.", columnsName,
                   SizesToString(columns).c_str());
    }
    uint64_t window = 1, blocks = 1;
    for (uint32_t d = 0; d < n; ++d) {
        INVALID_IF(desc.WindowSizes[d] == 0, "WindowSizes[%u] is 0; it must be at least 1.", d);
        INVALID_IF(desc.Strides[d] == 0, "Strides[%u] is 0; it must be at least 1.", d);
        INVALID_IF(desc.Dilations[d] == 0, "Dilations[%u] is 0; it must be at least 1.", d);
        const int64_t padded = int64_t(image.sizes[d + 2]) + desc.StartPadding[d] + desc.EndPadding[d];
        const int64_t reach = int64_t(desc.Dilations[d]) * (desc.WindowSizes[d] - 1) + 1;
        INVALID_IF(reach > padded,
                   "The window of spatial dimension %u (WindowSizes %u, Dilations %u) spans %lld elements, more than "
                   "the %lld of %s's size %u plus StartPadding %u and EndPadding %u.",
                   d, desc.WindowSizes[d], desc.Dilations[d], (long long)reach, (long long)padded, imageName,
                   image.sizes[d + 2], desc.StartPadding[d], desc.EndPadding[d]);
        window *= desc.WindowSizes[d];
        blocks *= uint64_t((padded - reach) / desc.Strides[d] + 1);
    }
    const uint32_t r = columns.rank;
    const uint64_t want[3] = {image.sizes[0], uint64_t(image.sizes[1]) * window, blocks};
    INVALID_IF(columns.sizes[r - 3] != want[0] || columns.sizes[r - 2] != want[1] || columns.sizes[r - 1] != want[2],
               "%s has sizes %s; DML_OPERATOR_%s needs {%llu, %llu, %llu} (N, C * the window's %llu elements, the "
               "BlockCount).",
               columnsName, SizesToString(columns).c_str(), args.schema.name, (unsigned long long)want[0],
               (unsigned long long)want[1], (unsigned long long)want[2], (unsigned long long)window);
    return {};
}

#define FREEDML_FOLD_SCHEMA(var, TYPE, Desc)                                                                   \
    const OperatorSchema var{                                                                                  \
        .type = DML_OPERATOR_##TYPE,                                                                           \
        .name = #TYPE,                                                                                         \
        .featureLevel = DML_FEATURE_LEVEL_6_4,                                                                 \
        .descSize = sizeof(Desc),                                                                              \
        .fields = {DML_FIELD(Desc, InputTensor, InputTensor), DML_FIELD(Desc, OutputTensor, OutputTensor),      \
                   DML_FIELD(Desc, DimensionCount, UInt),                                                      \
                   DML_FIELD(Desc, WindowSizes, UIntArray, .countField = "DimensionCount"),                    \
                   DML_FIELD(Desc, Strides, UIntArray, .countField = "DimensionCount"),                        \
                   DML_FIELD(Desc, Dilations, UIntArray, .countField = "DimensionCount"),                      \
                   DML_FIELD(Desc, StartPadding, UIntArray, .countField = "DimensionCount"),                   \
                   DML_FIELD(Desc, EndPadding, UIntArray, .countField = "DimensionCount")},                    \
        .validate = ValidateFoldUnfold,                                                                        \
    }

FREEDML_FOLD_SCHEMA(kFold, FOLD, DML_FOLD_OPERATOR_DESC);
FREEDML_FOLD_SCHEMA(kUnfold, UNFOLD, DML_UNFOLD_OPERATOR_DESC);
#undef FREEDML_FOLD_SCHEMA

#define FREEDML_SCATTER_FIELDS(Desc)                                                                   \
    DML_FIELD(Desc, InputTensor, InputTensor), DML_FIELD(Desc, IndicesTensor, InputTensor),           \
        DML_FIELD(Desc, UpdatesTensor, InputTensor), DML_FIELD(Desc, OutputTensor, OutputTensor)

// DML_OPERATOR_SCATTER is the same value as SCATTER_ELEMENTS (its older name), so one schema.
const OperatorSchema kScatterElements{
    .type = DML_OPERATOR_SCATTER_ELEMENTS,
    .name = "SCATTER_ELEMENTS",
    .featureLevel = DML_FEATURE_LEVEL_2_0,
    .descSize = sizeof(DML_SCATTER_ELEMENTS_OPERATOR_DESC),
    .fields = {FREEDML_SCATTER_FIELDS(DML_SCATTER_ELEMENTS_OPERATOR_DESC),
               DML_FIELD(DML_SCATTER_ELEMENTS_OPERATOR_DESC, Axis, UInt)},
    .validate = ValidateScatterElements,
};

const OperatorSchema kScatterNd{
    .type = DML_OPERATOR_SCATTER_ND,
    .name = "SCATTER_ND",
    .featureLevel = DML_FEATURE_LEVEL_2_1,
    .descSize = sizeof(DML_SCATTER_ND_OPERATOR_DESC),
    .fields = {FREEDML_SCATTER_FIELDS(DML_SCATTER_ND_OPERATOR_DESC),
               DML_FIELD(DML_SCATTER_ND_OPERATOR_DESC, InputDimensionCount, UInt),
               DML_FIELD(DML_SCATTER_ND_OPERATOR_DESC, IndicesDimensionCount, UInt)},
    .validate = ValidateScatterNd,
};
#undef FREEDML_SCATTER_FIELDS

const OperatorSchema kSliceGrad{
    .type = DML_OPERATOR_SLICE_GRAD,
    .name = "SLICE_GRAD",
    .featureLevel = DML_FEATURE_LEVEL_3_0,
    .descSize = sizeof(DML_SLICE_GRAD_OPERATOR_DESC),
    .fields = {DML_FIELD(DML_SLICE_GRAD_OPERATOR_DESC, InputGradientTensor, InputTensor),
               DML_FIELD(DML_SLICE_GRAD_OPERATOR_DESC, OutputGradientTensor, OutputTensor),
               DML_FIELD(DML_SLICE_GRAD_OPERATOR_DESC, DimensionCount, UInt),
               DML_FIELD(DML_SLICE_GRAD_OPERATOR_DESC, InputWindowOffsets, UIntArray, .countField = "DimensionCount"),
               DML_FIELD(DML_SLICE_GRAD_OPERATOR_DESC, InputWindowSizes, UIntArray, .countField = "DimensionCount"),
               DML_FIELD(DML_SLICE_GRAD_OPERATOR_DESC, InputWindowStrides, IntArray, .countField = "DimensionCount")},
    .validate = ValidateSliceGrad,
};

const OperatorSchema* const kSchemas[] = {&kSlice,         &kSplit,         &kJoin,          &kPadding,
                                          &kSpaceToDepth,  &kDepthToSpace,  &kTile,          &kSlice1,
                                          &kDepthToSpace1, &kSpaceToDepth1, &kPadding1,    &kGather,
                                          &kGatherElements, &kGatherNd,    &kGatherNd1,
                                          &kScatterElements, &kScatterNd, &kSliceGrad,
                                          &kReverseSubsequences, &kFold,    &kUnfold};

}  // namespace

std::span<const OperatorSchema* const> DataMovementSchemas() { return kSchemas; }

}  // namespace freedml::dml
