// Region pooling operators: ROI_POOLING (max over integer bins of each region of interest, the
// Fast R-CNN form), ROI_ALIGN and ROI_ALIGN1 (each output element reduces a grid of interpolated
// samples of its region, the Mask R-CNN form; ROI_ALIGN1 adds the pixel offsets and corner
// alignment) and ROI_ALIGN_GRAD, ROI_ALIGN1's gradients (region_grad_math.h). The data types and
// dimension counts follow the reference pages' tables for the highest feature level
// (dml/schema/catalog.cpp has them); the kernels' comments say how each output element is computed.
#include <algorithm>
#include <optional>

#include "dml/schema/families.h"

namespace freedml::dml {

namespace {

using Types = std::initializer_list<DML_TENSOR_DATA_TYPE>;

constexpr Types kFloatTypes = {DML_TENSOR_DATA_TYPE_FLOAT32, DML_TENSOR_DATA_TYPE_FLOAT16};
constexpr Types kBatchIndexTypes = {DML_TENSOR_DATA_TYPE_UINT32, DML_TENSOR_DATA_TYPE_UINT64};

// The two values the region operators accept come first: tools/opmatrix probes with the first.
constexpr EnumValue kReduceFunctionValues[] = {
    {"DML_REDUCE_FUNCTION_AVERAGE", DML_REDUCE_FUNCTION_AVERAGE},
    {"DML_REDUCE_FUNCTION_MAX", DML_REDUCE_FUNCTION_MAX},
    {"DML_REDUCE_FUNCTION_ARGMAX", DML_REDUCE_FUNCTION_ARGMAX},
    {"DML_REDUCE_FUNCTION_ARGMIN", DML_REDUCE_FUNCTION_ARGMIN},
    {"DML_REDUCE_FUNCTION_L1", DML_REDUCE_FUNCTION_L1},
    {"DML_REDUCE_FUNCTION_L2", DML_REDUCE_FUNCTION_L2},
    {"DML_REDUCE_FUNCTION_LOG_SUM", DML_REDUCE_FUNCTION_LOG_SUM},
    {"DML_REDUCE_FUNCTION_LOG_SUM_EXP", DML_REDUCE_FUNCTION_LOG_SUM_EXP},
    {"DML_REDUCE_FUNCTION_MIN", DML_REDUCE_FUNCTION_MIN},
    {"DML_REDUCE_FUNCTION_MULTIPLY", DML_REDUCE_FUNCTION_MULTIPLY},
    {"DML_REDUCE_FUNCTION_SUM", DML_REDUCE_FUNCTION_SUM},
    {"DML_REDUCE_FUNCTION_SUM_SQUARE", DML_REDUCE_FUNCTION_SUM_SQUARE},
};
const EnumType kReduceFunction{"DML_REDUCE_FUNCTION", kReduceFunctionValues};

constexpr EnumValue kInterpolationModeValues[] = {
    {"DML_INTERPOLATION_MODE_NEAREST_NEIGHBOR", DML_INTERPOLATION_MODE_NEAREST_NEIGHBOR},
    {"DML_INTERPOLATION_MODE_LINEAR", DML_INTERPOLATION_MODE_LINEAR},
};
const EnumType kInterpolationMode{"DML_INTERPOLATION_MODE", kInterpolationModeValues};

// `tensor` has `rank` dimensions.
Status ValidateRank(const TensorDesc& tensor, const char* name, uint32_t rank) {
    INVALID_IF(tensor.rank != rank, "%s has DimensionCount %u; it must be %u.", name, tensor.rank, rank);
    return {};
}

// `tensor` is `count` values along its last dimension(s), preceded by any number of 1s within
// ranks [minRank, 4]: {count, last} with leading 1s ({NumROIs, 4}, {1, NumROIs, 4}, ...) when
// last != 0, else {count} with leading 1s (the batch indices).
Status ValidateRows(const TensorDesc& tensor, const char* name, uint32_t minRank, uint32_t count, uint32_t last,
                    const char* form) {
    INVALID_IF(tensor.rank < minRank || tensor.rank > 4, "%s has DimensionCount %u; it must be %u to 4 (%s).", name,
               tensor.rank, minRank, form);
    const uint32_t tail = last != 0 ? 2 : 1;
    bool ok = true;
    for (uint32_t d = 0; d + tail < tensor.rank; ++d) ok = ok && tensor.sizes[d] == 1;
    if (last != 0) {
        ok = ok && tensor.sizes[tensor.rank - 2] == count && tensor.sizes[tensor.rank - 1] == last;
    } else {
        ok = ok && tensor.sizes[tensor.rank - 1] == count;
    }
    INVALID_IF(!ok, "%s has sizes %s; with %u regions it must be %s.", name, SizesToString(tensor).c_str(), count,
               form);
    return {};
}

// InputTensor, ROITensor and OutputTensor: FLOAT32 or FLOAT16, all one type (the pages'
// "Tensor constraints").
Status ValidateFloatTensors(const OperatorArgs& args, const TensorDesc& input, const TensorDesc& rois,
                            const TensorDesc& output) {
    INVALID_IF(!DataTypeIn(kFloatTypes, input.dataType), "InputTensor has data type %s; DML_OPERATOR_%s accepts %s.",
               DataTypeName(input.dataType), args.schema.name, DataTypeListToString(kFloatTypes).c_str());
    INVALID_IF(rois.dataType != input.dataType,
               "ROITensor has data type %s, but InputTensor is %s; DML_OPERATOR_%s needs them to match.",
               DataTypeName(rois.dataType), DataTypeName(input.dataType), args.schema.name);
    INVALID_IF(output.dataType != input.dataType,
               "OutputTensor has data type %s, but InputTensor is %s; DML_OPERATOR_%s needs them to match.",
               DataTypeName(output.dataType), DataTypeName(input.dataType), args.schema.name);
    return {};
}

// ROI_POOLING: InputTensor {BatchCount, ChannelCount, H, W}; ROITensor {1, 1, NumROIs, 5}, rows
// [batch, x1, y1, x2, y2]; OutputTensor {NumROIs, ChannelCount, PooledSize.Height,
// PooledSize.Width}.
Status ValidateRoiPooling(const OperatorArgs& args) {
    const auto& desc = args.As<DML_ROI_POOLING_OPERATOR_DESC>();
    const TensorDesc& input = *args.inputs[0];
    const TensorDesc& rois = *args.inputs[1];
    const TensorDesc& output = *args.outputs[0];
    FREEDML_TRY(ValidateRank(input, "InputTensor", 4));
    FREEDML_TRY(ValidateRank(rois, "ROITensor", 4));
    FREEDML_TRY(ValidateRank(output, "OutputTensor", 4));
    FREEDML_TRY(ValidateFloatTensors(args, input, rois, output));
    INVALID_IF(desc.PooledSize.Width == 0 || desc.PooledSize.Height == 0,
               "PooledSize is {Width %u, Height %u}; both must be at least 1.", desc.PooledSize.Width,
               desc.PooledSize.Height);
    const uint32_t count = rois.sizes[2];
    INVALID_IF(rois.sizes[0] != 1 || rois.sizes[1] != 1 || rois.sizes[3] != 5,
               "ROITensor has sizes %s; it must be {1, 1, NumROIs, 5}, each row [batch, x1, y1, x2, y2].",
               SizesToString(rois).c_str());
    INVALID_IF(output.sizes[0] != count || output.sizes[1] != input.sizes[1] ||
                   output.sizes[2] != desc.PooledSize.Height || output.sizes[3] != desc.PooledSize.Width,
               "OutputTensor has sizes %s; for %u regions, InputTensor's %u channels and PooledSize {Width %u, "
               "Height %u} it must be {%u, %u, %u, %u}.",
               SizesToString(output).c_str(), count, input.sizes[1], desc.PooledSize.Width, desc.PooledSize.Height,
               count, input.sizes[1], desc.PooledSize.Height, desc.PooledSize.Width);
    return {};
}

// ROI_ALIGN and ROI_ALIGN1: InputTensor {BatchCount, ChannelCount, H, W}; ROITensor {NumROIs, 4}
// with leading 1s up to rank 4, rows [x1, y1, x2, y2]; BatchIndicesTensor {NumROIs} with leading 1s
// up to rank 4, UINT32 or UINT64; OutputTensor {NumROIs, ChannelCount, OutputHeight, OutputWidth}.
// The pages do not bound the sample counts; FreeDML needs 1 <= Minimum <= Maximum so that every
// output element has at least one sample and the clamp is well defined.
template <class Desc>
Status ValidateRoiAlign(const OperatorArgs& args) {
    const auto& desc = args.As<Desc>();
    const TensorDesc& input = *args.inputs[0];
    const TensorDesc& rois = *args.inputs[1];
    const TensorDesc& batches = *args.inputs[2];
    const TensorDesc& output = *args.outputs[0];
    FREEDML_TRY(ValidateRank(input, "InputTensor", 4));
    FREEDML_TRY(ValidateRank(output, "OutputTensor", 4));
    FREEDML_TRY(ValidateFloatTensors(args, input, rois, output));
    INVALID_IF(!DataTypeIn(kBatchIndexTypes, batches.dataType),
               "BatchIndicesTensor has data type %s; DML_OPERATOR_%s accepts %s.", DataTypeName(batches.dataType),
               args.schema.name, DataTypeListToString(kBatchIndexTypes).c_str());
    INVALID_IF(rois.rank < 2, "ROITensor has DimensionCount %u; it must be 2 to 4 ({NumROIs, 4} with leading 1s).",
               rois.rank);
    const uint32_t count = rois.sizes[rois.rank - 2];
    FREEDML_TRY(ValidateRows(rois, "ROITensor", 2, count, 4, "{NumROIs, 4} with leading 1s, rows [x1, y1, x2, y2]"));
    FREEDML_TRY(ValidateRows(batches, "BatchIndicesTensor", 1, count, 0, "{NumROIs} with leading 1s"));
    INVALID_IF(output.sizes[0] != count || output.sizes[1] != input.sizes[1],
               "OutputTensor has sizes %s; for %u regions and InputTensor's %u channels it must be {%u, %u, "
               "OutputHeight, OutputWidth}.",
               SizesToString(output).c_str(), count, input.sizes[1], count, input.sizes[1]);
    INVALID_IF(desc.ReductionFunction != DML_REDUCE_FUNCTION_AVERAGE && desc.ReductionFunction != DML_REDUCE_FUNCTION_MAX,
               "ReductionFunction is %s; DML_OPERATOR_%s accepts DML_REDUCE_FUNCTION_AVERAGE or "
               "DML_REDUCE_FUNCTION_MAX.",
               kReduceFunction.NameOf(desc.ReductionFunction), args.schema.name);
    INVALID_IF(desc.MinimumSamplesPerOutput == 0, "MinimumSamplesPerOutput is 0; it must be at least 1.");
    INVALID_IF(desc.MaximumSamplesPerOutput < desc.MinimumSamplesPerOutput,
               "MaximumSamplesPerOutput (%u) is less than MinimumSamplesPerOutput (%u).",
               desc.MaximumSamplesPerOutput, desc.MinimumSamplesPerOutput);
    return {};
}

// ROI_ALIGN_GRAD (the DML_ROI_ALIGN_GRAD_OPERATOR_DESC page): InputGradientTensor {NumROIs,
// ChannelCount, OutputHeight, OutputWidth}; InputTensor and OutputGradientTensor {BatchCount,
// ChannelCount, InputHeight, InputWidth}; ROITensor as for ROI_ALIGN1 and OutputROIGradientTensor of
// its sizes; BatchIndicesTensor UINT32 only. At least one output; InputTensor when
// OutputROIGradientTensor is bound or the reduction is MAX. Every float tensor has
// InputGradientTensor's type. Sample counts as for ROI_ALIGN1.
Status ValidateRoiAlignGrad(const OperatorArgs& args) {
    const auto& desc = args.As<DML_ROI_ALIGN_GRAD_OPERATOR_DESC>();
    const std::optional<TensorDesc>& input = args.inputs[0];
    const TensorDesc& gradient = *args.inputs[1];
    const TensorDesc& rois = *args.inputs[2];
    const TensorDesc& batches = *args.inputs[3];
    const std::optional<TensorDesc>& outputGradient = args.outputs[0];
    const std::optional<TensorDesc>& roiGradient = args.outputs[1];
    INVALID_IF(!outputGradient && !roiGradient,
               "OutputGradientTensor and OutputROIGradientTensor are both null; DML_OPERATOR_ROI_ALIGN_GRAD needs at "
               "least one of them.");
    INVALID_IF(!input && roiGradient,
               "InputTensor is null, but OutputROIGradientTensor is bound; the region gradient needs the forward "
               "input.");
    INVALID_IF(!input && desc.ReductionFunction == DML_REDUCE_FUNCTION_MAX,
               "InputTensor is null, but ReductionFunction is DML_REDUCE_FUNCTION_MAX; the gradient of a maximum "
               "needs the forward input.");
    FREEDML_TRY(ValidateRank(gradient, "InputGradientTensor", 4));
    INVALID_IF(!DataTypeIn(kFloatTypes, gradient.dataType),
               "InputGradientTensor has data type %s; DML_OPERATOR_ROI_ALIGN_GRAD accepts %s.",
               DataTypeName(gradient.dataType), DataTypeListToString(kFloatTypes).c_str());
    const auto sameType = [&](const TensorDesc& tensor, const char* name) -> Status {
        INVALID_IF(tensor.dataType != gradient.dataType,
                   "%s has data type %s, but InputGradientTensor is %s; DML_OPERATOR_ROI_ALIGN_GRAD needs them to "
                   "match.",
                   name, DataTypeName(tensor.dataType), DataTypeName(gradient.dataType));
        return {};
    };
    FREEDML_TRY(sameType(rois, "ROITensor"));
    if (input) {
        FREEDML_TRY(ValidateRank(*input, "InputTensor", 4));
        FREEDML_TRY(sameType(*input, "InputTensor"));
    }
    if (outputGradient) {
        FREEDML_TRY(ValidateRank(*outputGradient, "OutputGradientTensor", 4));
        FREEDML_TRY(sameType(*outputGradient, "OutputGradientTensor"));
    }
    if (input && outputGradient) {
        const bool same = std::equal(input->sizes.begin(), input->sizes.begin() + 4, outputGradient->sizes.begin());
        INVALID_IF(!same, "OutputGradientTensor has sizes %s, but InputTensor has %s; they must match.",
                   SizesToString(*outputGradient).c_str(), SizesToString(*input).c_str());
    }
    INVALID_IF(batches.dataType != DML_TENSOR_DATA_TYPE_UINT32,
               "BatchIndicesTensor has data type %s; DML_OPERATOR_ROI_ALIGN_GRAD accepts UINT32.",
               DataTypeName(batches.dataType));
    INVALID_IF(rois.rank < 2, "ROITensor has DimensionCount %u; it must be 2 to 4 ({NumROIs, 4} with leading 1s).",
               rois.rank);
    const uint32_t count = rois.sizes[rois.rank - 2];
    FREEDML_TRY(ValidateRows(rois, "ROITensor", 2, count, 4, "{NumROIs, 4} with leading 1s, rows [x1, y1, x2, y2]"));
    FREEDML_TRY(ValidateRows(batches, "BatchIndicesTensor", 1, count, 0, "{NumROIs} with leading 1s"));
    if (roiGradient) {
        FREEDML_TRY(sameType(*roiGradient, "OutputROIGradientTensor"));
        const bool same = roiGradient->rank == rois.rank &&
                          std::equal(rois.sizes.begin(), rois.sizes.begin() + rois.rank, roiGradient->sizes.begin());
        INVALID_IF(!same, "OutputROIGradientTensor has sizes %s, but ROITensor has %s; they must match.",
                   SizesToString(*roiGradient).c_str(), SizesToString(rois).c_str());
    }
    const uint32_t channels = input ? input->sizes[1] : outputGradient->sizes[1];
    INVALID_IF(gradient.sizes[0] != count || gradient.sizes[1] != channels,
               "InputGradientTensor has sizes %s; for %u regions and %u channels (%s) it must be {%u, %u, "
               "OutputHeight, OutputWidth}.",
               SizesToString(gradient).c_str(), count, channels, input ? "InputTensor" : "OutputGradientTensor", count,
               channels);
    INVALID_IF(desc.ReductionFunction != DML_REDUCE_FUNCTION_AVERAGE &&
                   desc.ReductionFunction != DML_REDUCE_FUNCTION_MAX,
               "ReductionFunction is %s; DML_OPERATOR_ROI_ALIGN_GRAD accepts DML_REDUCE_FUNCTION_AVERAGE or "
               "DML_REDUCE_FUNCTION_MAX.",
               kReduceFunction.NameOf(desc.ReductionFunction));
    INVALID_IF(desc.MinimumSamplesPerOutput == 0, "MinimumSamplesPerOutput is 0; it must be at least 1.");
    INVALID_IF(desc.MaximumSamplesPerOutput < desc.MinimumSamplesPerOutput,
               "MaximumSamplesPerOutput (%u) is less than MinimumSamplesPerOutput (%u).",
               desc.MaximumSamplesPerOutput, desc.MinimumSamplesPerOutput);
    return {};
}

const OperatorSchema kRoiPooling{
    .type = DML_OPERATOR_ROI_POOLING,
    .name = "ROI_POOLING",
    .featureLevel = DML_FEATURE_LEVEL_1_0,
    .descSize = sizeof(DML_ROI_POOLING_OPERATOR_DESC),
    .fields = {DML_FIELD(DML_ROI_POOLING_OPERATOR_DESC, InputTensor, InputTensor),
               DML_FIELD(DML_ROI_POOLING_OPERATOR_DESC, ROITensor, InputTensor),
               DML_FIELD(DML_ROI_POOLING_OPERATOR_DESC, OutputTensor, OutputTensor),
               DML_FIELD(DML_ROI_POOLING_OPERATOR_DESC, SpatialScale, Float),
               DML_FIELD(DML_ROI_POOLING_OPERATOR_DESC, PooledSize, Size2D)},
    .validate = ValidateRoiPooling,
};

#define ALIGN_COMMON_FIELDS(DESC)                                                       \
    DML_FIELD(DESC, InputTensor, InputTensor), DML_FIELD(DESC, ROITensor, InputTensor), \
        DML_FIELD(DESC, BatchIndicesTensor, InputTensor), DML_FIELD(DESC, OutputTensor, OutputTensor), \
        DML_FIELD(DESC, ReductionFunction, Enum, .enumType = &kReduceFunction),         \
        DML_FIELD(DESC, InterpolationMode, Enum, .enumType = &kInterpolationMode),      \
        DML_FIELD(DESC, SpatialScaleX, Float), DML_FIELD(DESC, SpatialScaleY, Float)

const OperatorSchema kRoiAlign{
    .type = DML_OPERATOR_ROI_ALIGN,
    .name = "ROI_ALIGN",
    .featureLevel = DML_FEATURE_LEVEL_3_0,
    .descSize = sizeof(DML_ROI_ALIGN_OPERATOR_DESC),
    .fields = {ALIGN_COMMON_FIELDS(DML_ROI_ALIGN_OPERATOR_DESC),
               DML_FIELD(DML_ROI_ALIGN_OPERATOR_DESC, OutOfBoundsInputValue, Float),
               DML_FIELD(DML_ROI_ALIGN_OPERATOR_DESC, MinimumSamplesPerOutput, UInt),
               DML_FIELD(DML_ROI_ALIGN_OPERATOR_DESC, MaximumSamplesPerOutput, UInt)},
    .validate = ValidateRoiAlign<DML_ROI_ALIGN_OPERATOR_DESC>,
};

const OperatorSchema kRoiAlign1{
    .type = DML_OPERATOR_ROI_ALIGN1,
    .name = "ROI_ALIGN1",
    .featureLevel = DML_FEATURE_LEVEL_4_0,
    .descSize = sizeof(DML_ROI_ALIGN1_OPERATOR_DESC),
    .fields = {ALIGN_COMMON_FIELDS(DML_ROI_ALIGN1_OPERATOR_DESC),
               DML_FIELD(DML_ROI_ALIGN1_OPERATOR_DESC, InputPixelOffset, Float),
               DML_FIELD(DML_ROI_ALIGN1_OPERATOR_DESC, OutputPixelOffset, Float),
               DML_FIELD(DML_ROI_ALIGN1_OPERATOR_DESC, OutOfBoundsInputValue, Float),
               DML_FIELD(DML_ROI_ALIGN1_OPERATOR_DESC, MinimumSamplesPerOutput, UInt),
               DML_FIELD(DML_ROI_ALIGN1_OPERATOR_DESC, MaximumSamplesPerOutput, UInt),
               DML_FIELD(DML_ROI_ALIGN1_OPERATOR_DESC, AlignRegionsToCorners, Bool)},
    .validate = ValidateRoiAlign<DML_ROI_ALIGN1_OPERATOR_DESC>,
};

#undef ALIGN_COMMON_FIELDS

const OperatorSchema kRoiAlignGrad{
    .type = DML_OPERATOR_ROI_ALIGN_GRAD,
    .name = "ROI_ALIGN_GRAD",
    .featureLevel = DML_FEATURE_LEVEL_4_1,
    .descSize = sizeof(DML_ROI_ALIGN_GRAD_OPERATOR_DESC),
    .fields = {DML_FIELD(DML_ROI_ALIGN_GRAD_OPERATOR_DESC, InputTensor, InputTensor, .optional = true),
               DML_FIELD(DML_ROI_ALIGN_GRAD_OPERATOR_DESC, InputGradientTensor, InputTensor),
               DML_FIELD(DML_ROI_ALIGN_GRAD_OPERATOR_DESC, ROITensor, InputTensor),
               DML_FIELD(DML_ROI_ALIGN_GRAD_OPERATOR_DESC, BatchIndicesTensor, InputTensor),
               DML_FIELD(DML_ROI_ALIGN_GRAD_OPERATOR_DESC, OutputGradientTensor, OutputTensor, .optional = true),
               DML_FIELD(DML_ROI_ALIGN_GRAD_OPERATOR_DESC, OutputROIGradientTensor, OutputTensor, .optional = true),
               DML_FIELD(DML_ROI_ALIGN_GRAD_OPERATOR_DESC, ReductionFunction, Enum, .enumType = &kReduceFunction),
               DML_FIELD(DML_ROI_ALIGN_GRAD_OPERATOR_DESC, InterpolationMode, Enum, .enumType = &kInterpolationMode),
               DML_FIELD(DML_ROI_ALIGN_GRAD_OPERATOR_DESC, SpatialScaleX, Float),
               DML_FIELD(DML_ROI_ALIGN_GRAD_OPERATOR_DESC, SpatialScaleY, Float),
               DML_FIELD(DML_ROI_ALIGN_GRAD_OPERATOR_DESC, InputPixelOffset, Float),
               DML_FIELD(DML_ROI_ALIGN_GRAD_OPERATOR_DESC, OutputPixelOffset, Float),
               DML_FIELD(DML_ROI_ALIGN_GRAD_OPERATOR_DESC, MinimumSamplesPerOutput, UInt),
               DML_FIELD(DML_ROI_ALIGN_GRAD_OPERATOR_DESC, MaximumSamplesPerOutput, UInt),
               DML_FIELD(DML_ROI_ALIGN_GRAD_OPERATOR_DESC, AlignRegionsToCorners, Bool)},
    .validate = ValidateRoiAlignGrad,
};

const OperatorSchema* const kSchemas[] = {&kRoiPooling, &kRoiAlign, &kRoiAlign1, &kRoiAlignGrad};

}  // namespace

std::span<const OperatorSchema* const> RegionPoolingSchemas() { return kSchemas; }

}  // namespace freedml::dml
