// Convolution operators (so far: CONVOLUTION, 2-D and 3-D, forward and backward).
#include "dml/ops/convolution/convolution_shape.h"
#include "dml/schema/families.h"

namespace freedml::dml {

// Input {N, C, spatial..}, Filter {M, C / GroupCount, kernel..} (backward: {C, M / GroupCount,
// kernel..}), Output {N, M, out..}; ranks DimensionCount + 2.
Status ValidateConvolutionShape(const ConvolutionShape& shape) {
    const TensorDesc& input = shape.input;
    const TensorDesc& filter = shape.filter;
    const TensorDesc& output = shape.output;
    const uint32_t spatial = shape.dimensionCount;
    INVALID_IF(spatial != 2 && spatial != 3, "DimensionCount (%u) must be 2 or 3.", spatial);
    const uint32_t rank = spatial + 2;
    INVALID_IF(input.rank != rank || filter.rank != rank || output.rank != rank,
               "InputTensor (%u dimensions), FilterTensor (%u) and OutputTensor (%u) must have DimensionCount + 2 "
               "= %u.",
               input.rank, filter.rank, output.rank, rank);
    INVALID_IF(!shape.strides || !shape.dilations || !shape.startPadding || !shape.endPadding,
               "Strides, Dilations, StartPadding and EndPadding must each point to DimensionCount (%u) values.",
               spatial);
    const bool backward = shape.backward;
    INVALID_IF(backward && !shape.outputPadding, "OutputPadding must point to DimensionCount (%u) values.", spatial);
    const uint32_t groups = shape.groupCount;
    INVALID_IF(groups == 0, "GroupCount is 0; it must be at least 1.");
    const uint32_t inChannels = input.sizes[1];
    const uint32_t outChannels = output.sizes[1];
    INVALID_IF(input.sizes[0] != output.sizes[0], "InputTensor's batch (%u) and OutputTensor's (%u) differ.",
               input.sizes[0], output.sizes[0]);
    INVALID_IF(inChannels % groups || outChannels % groups,
               "GroupCount (%u) must divide InputTensor's channels (%u) and OutputTensor's (%u).", groups, inChannels,
               outChannels);
    if (!backward) {
        INVALID_IF(filter.sizes[0] != outChannels || filter.sizes[1] != inChannels / groups,
                   "FilterTensor %s must begin {OutputChannels, InputChannels / GroupCount} = {%u, %u}.",
                   SizesToString(filter).c_str(), outChannels, inChannels / groups);
    } else {
        INVALID_IF(filter.sizes[0] != inChannels || filter.sizes[1] != outChannels / groups,
                   "FilterTensor %s must begin {InputChannels, OutputChannels / GroupCount} = {%u, %u} for a "
                   "backward convolution.",
                   SizesToString(filter).c_str(), inChannels, outChannels / groups);
    }
    for (uint32_t i = 0; i < spatial; ++i) {
        const uint32_t stride = shape.strides[i], dilation = shape.dilations[i];
        INVALID_IF(stride == 0 || dilation == 0, "Strides[%u] (%u) and Dilations[%u] (%u) must be at least 1.", i,
                   stride, i, dilation);
        const int64_t in = input.sizes[2 + i], kernel = filter.sizes[2 + i];
        const int64_t pads = int64_t(shape.startPadding[i]) + shape.endPadding[i];
        const int64_t span = int64_t(dilation) * (kernel - 1) + 1;
        int64_t expected;
        if (!backward) {
            INVALID_IF(in + pads < span,
                       "Spatial dimension %u: the dilated kernel (%lld) is larger than the padded input (%lld).", i,
                       static_cast<long long>(span), static_cast<long long>(in + pads));
            expected = (in + pads - span) / stride + 1;
        } else {
            INVALID_IF(shape.outputPadding[i] >= stride && shape.outputPadding[i] >= dilation,
                       "OutputPadding[%u] (%u) must be smaller than Strides[%u] (%u) or Dilations[%u] (%u).", i,
                       shape.outputPadding[i], i, stride, i, dilation);
            expected = (in - 1) * stride + span - pads + shape.outputPadding[i];
        }
        INVALID_IF(expected != output.sizes[2 + i],
                   "OutputTensor's spatial dimension %u is %u; the convolution produces %lld.", i,
                   output.sizes[2 + i], static_cast<long long>(expected));
    }
    return {};
}

// A per-output-channel tensor: {1, OutputChannels, 1, ...} with the convolution's rank.
Status ValidateConvolutionBias(const TensorDesc& bias, const char* name, const ConvolutionShape& shape) {
    const uint32_t rank = shape.dimensionCount + 2, outChannels = shape.output.sizes[1];
    bool ok = bias.rank == rank && bias.sizes[1] == outChannels;
    for (uint32_t d = 0; d < rank; ++d) ok = ok && (d == 1 || bias.sizes[d] == 1);
    INVALID_IF(!ok, "%s %s must be {1, %u, 1, ...} with %u dimensions.", name, SizesToString(bias).c_str(),
               outChannels, rank);
    return {};
}

namespace {

constexpr EnumValue kModeValues[] = {
    {"DML_CONVOLUTION_MODE_CONVOLUTION", DML_CONVOLUTION_MODE_CONVOLUTION},
    {"DML_CONVOLUTION_MODE_CROSS_CORRELATION", DML_CONVOLUTION_MODE_CROSS_CORRELATION},
};
const EnumType kMode{"DML_CONVOLUTION_MODE", kModeValues};
constexpr EnumValue kDirectionValues[] = {
    {"DML_CONVOLUTION_DIRECTION_FORWARD", DML_CONVOLUTION_DIRECTION_FORWARD},
    {"DML_CONVOLUTION_DIRECTION_BACKWARD", DML_CONVOLUTION_DIRECTION_BACKWARD},
};
const EnumType kDirection{"DML_CONVOLUTION_DIRECTION", kDirectionValues};

// CONVOLUTION: FLOAT32 or FLOAT16 throughout; the shapes as ValidateConvolutionShape checks them.
Status ValidateConvolution(const OperatorArgs& args) {
    FREEDML_TRY(ValidateDataTypeIn(args, {DML_TENSOR_DATA_TYPE_FLOAT32, DML_TENSOR_DATA_TYPE_FLOAT16}));
    FREEDML_TRY(ValidateSameDataType(args));
    const auto& desc = args.As<DML_CONVOLUTION_OPERATOR_DESC>();
    const ConvolutionShape shape{.input = *args.inputs[0],
                                 .filter = *args.inputs[1],
                                 .output = *args.outputs[0],
                                 .dimensionCount = desc.DimensionCount,
                                 .strides = desc.Strides,
                                 .dilations = desc.Dilations,
                                 .startPadding = desc.StartPadding,
                                 .endPadding = desc.EndPadding,
                                 .outputPadding = desc.OutputPadding,
                                 .groupCount = desc.GroupCount,
                                 .backward = desc.Direction == DML_CONVOLUTION_DIRECTION_BACKWARD};
    FREEDML_TRY(ValidateConvolutionShape(shape));
    if (args.inputs[2]) FREEDML_TRY(ValidateConvolutionBias(*args.inputs[2], "BiasTensor", shape));
    return {};
}

const OperatorSchema kConvolution{
    .type = DML_OPERATOR_CONVOLUTION,
    .name = "CONVOLUTION",
    .featureLevel = DML_FEATURE_LEVEL_1_0,
    .descSize = sizeof(DML_CONVOLUTION_OPERATOR_DESC),
    .fields = {DML_FIELD(DML_CONVOLUTION_OPERATOR_DESC, InputTensor, InputTensor),
               DML_FIELD(DML_CONVOLUTION_OPERATOR_DESC, FilterTensor, InputTensor),
               DML_FIELD(DML_CONVOLUTION_OPERATOR_DESC, BiasTensor, InputTensor, .optional = true),
               DML_FIELD(DML_CONVOLUTION_OPERATOR_DESC, OutputTensor, OutputTensor),
               DML_FIELD(DML_CONVOLUTION_OPERATOR_DESC, Mode, Enum, .enumType = &kMode),
               DML_FIELD(DML_CONVOLUTION_OPERATOR_DESC, Direction, Enum, .enumType = &kDirection),
               DML_FIELD(DML_CONVOLUTION_OPERATOR_DESC, DimensionCount, UInt),
               DML_FIELD(DML_CONVOLUTION_OPERATOR_DESC, Strides, UIntArray, .countField = "DimensionCount"),
               DML_FIELD(DML_CONVOLUTION_OPERATOR_DESC, Dilations, UIntArray, .countField = "DimensionCount"),
               DML_FIELD(DML_CONVOLUTION_OPERATOR_DESC, StartPadding, UIntArray, .countField = "DimensionCount"),
               DML_FIELD(DML_CONVOLUTION_OPERATOR_DESC, EndPadding, UIntArray, .countField = "DimensionCount"),
               DML_FIELD(DML_CONVOLUTION_OPERATOR_DESC, OutputPadding, UIntArray, .countField = "DimensionCount"),
               DML_FIELD(DML_CONVOLUTION_OPERATOR_DESC, GroupCount, UInt),
               DML_FIELD(DML_CONVOLUTION_OPERATOR_DESC, FusedActivation, OperatorDesc, .optional = true)},
    .validate = ValidateConvolution,
};

const OperatorSchema* const kSchemas[] = {&kConvolution};

}  // namespace

std::span<const OperatorSchema* const> ConvolutionSchemas() { return kSchemas; }

}  // namespace freedml::dml
