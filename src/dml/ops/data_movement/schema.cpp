// Data movement operators: SPLIT and JOIN (cut a tensor along one axis, join pieces along one),
// SLICE and SLICE1 (a strided window of the input), PADDING and PADDING1 (the input surrounded by
// a constant or by mirrored or repeated edges), TILE (the input repeated along each dimension) and
// the space/depth permutations SPACE_TO_DEPTH(1) and DEPTH_TO_SPACE(1). Each moves elements
// without looking at their values; the data types follow the reference pages' tables at the
// highest feature level (dml/schema/catalog.cpp has them).
#include <cstdlib>

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
    // The page does not say whether the value may have another type than the tensors; FreeDML asks
    // for the same type, as the FILL_VALUE operators do.
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

const OperatorSchema* const kSchemas[] = {&kSlice,         &kSplit,         &kJoin,          &kPadding,
                                          &kSpaceToDepth,  &kDepthToSpace,  &kTile,          &kSlice1,
                                          &kDepthToSpace1, &kSpaceToDepth1, &kPadding1};

}  // namespace

std::span<const OperatorSchema* const> DataMovementSchemas() { return kSchemas; }

}  // namespace freedml::dml
