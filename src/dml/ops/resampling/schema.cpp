// Resampling operators: VALUE_SCALE_2D (x * Scale + Bias[channel]), UPSAMPLE_2D (height and width
// enlarged by integer factors), RESAMPLE, RESAMPLE1, RESAMPLE2, RESAMPLE3 (every dimension scaled by
// a float factor, nearest neighbour or linear, with the pixel offsets, rounding direction and
// antialiasing each version adds) and the gradients RESAMPLE_GRAD and RESAMPLE_GRAD1. Data types
// follow the reference pages' tables (dml/schema/catalog.cpp has them); INT8 and UINT8 for
// RESAMPLE, RESAMPLE1 and RESAMPLE3 from feature level 6.2, where the pages' tables add them.
#include <cmath>

#include "dml/schema/families.h"

namespace freedml::dml {

namespace {

using Types = std::initializer_list<DML_TENSOR_DATA_TYPE>;
constexpr Types kFloatTypes = {DML_TENSOR_DATA_TYPE_FLOAT32, DML_TENSOR_DATA_TYPE_FLOAT16};
constexpr Types kResampleTypes = {DML_TENSOR_DATA_TYPE_FLOAT32, DML_TENSOR_DATA_TYPE_FLOAT16,
                                  DML_TENSOR_DATA_TYPE_INT8, DML_TENSOR_DATA_TYPE_UINT8};

constexpr EnumValue kInterpolationModeValues[] = {
    {"DML_INTERPOLATION_MODE_NEAREST_NEIGHBOR", DML_INTERPOLATION_MODE_NEAREST_NEIGHBOR},
    {"DML_INTERPOLATION_MODE_LINEAR", DML_INTERPOLATION_MODE_LINEAR},
};
const EnumType kInterpolationMode{"DML_INTERPOLATION_MODE", kInterpolationModeValues};

constexpr EnumValue kAxisDirectionValues[] = {
    {"DML_AXIS_DIRECTION_INCREASING", DML_AXIS_DIRECTION_INCREASING},
    {"DML_AXIS_DIRECTION_DECREASING", DML_AXIS_DIRECTION_DECREASING},
};
const EnumType kAxisDirection{"DML_AXIS_DIRECTION", kAxisDirectionValues};

// Both tensors: one data type of `allowed` (the 8-bit integers only from feature level 6.2), one
// dimension count.
Status ValidatePair(const OperatorArgs& args, Types allowed) {
    FREEDML_TRY(ValidateDataTypeIn(args, allowed));
    FREEDML_TRY(ValidateSameDataType(args));
    const DML_TENSOR_DATA_TYPE type = args.inputs[0]->dataType;
    INVALID_IF((type == DML_TENSOR_DATA_TYPE_INT8 || type == DML_TENSOR_DATA_TYPE_UINT8) &&
                   args.featureLevel < DML_FEATURE_LEVEL_6_2,
               "DML_OPERATOR_%s takes %s from feature level 6.2 (the device's is 0x%x).", args.schema.name,
               DataTypeName(type), unsigned(args.featureLevel));
    const TensorDesc& in = *args.inputs[0];
    const TensorDesc& out = *args.outputs[0];
    INVALID_IF(in.rank != out.rank, "%s has %u dimensions and %s %u; they must match.", args.inputNames[0].c_str(),
               in.rank, args.outputNames[0].c_str(), out.rank);
    return {};
}

Status ValidateValueScale2d(const OperatorArgs& args) {
    const auto& desc = args.As<DML_VALUE_SCALE_2D_OPERATOR_DESC>();
    FREEDML_TRY(ValidatePair(args, kFloatTypes));
    FREEDML_TRY(ValidateSameSizes(args));
    const TensorDesc& in = *args.inputs[0];
    INVALID_IF(in.rank != 4, "InputTensor has %u dimensions; DML_OPERATOR_VALUE_SCALE_2D takes 4 ({N, C, H, W}).",
               in.rank);
    INVALID_IF(desc.ChannelCount != in.sizes[1],
               "ChannelCount (%u) must equal InputTensor's channel count (its size in dimension 1, %u).",
               desc.ChannelCount, in.sizes[1]);
    return {};
}

Status ValidateUpsample2d(const OperatorArgs& args) {
    const auto& desc = args.As<DML_UPSAMPLE_2D_OPERATOR_DESC>();
    FREEDML_TRY(ValidatePair(args, kFloatTypes));
    const TensorDesc& in = *args.inputs[0];
    const TensorDesc& out = *args.outputs[0];
    INVALID_IF(in.rank != 4 && in.rank != 5,
               "InputTensor has %u dimensions; DML_OPERATOR_UPSAMPLE_2D takes 4 ({N, C, H, W}) or 5 ({N, C, D, H, W}).",
               in.rank);
    INVALID_IF(desc.ScaleSize.Width == 0 || desc.ScaleSize.Height == 0,
               "ScaleSize ({Width %u, Height %u}) must be at least 1 in both.", desc.ScaleSize.Width,
               desc.ScaleSize.Height);
    const uint32_t r = in.rank;
    for (uint32_t d = 0; d < r; ++d) {
        const uint64_t factor = d == r - 1 ? desc.ScaleSize.Width : (d == r - 2 ? desc.ScaleSize.Height : 1);
        INVALID_IF(uint64_t(in.sizes[d]) * factor != out.sizes[d],
                   "OutputTensor %s must be InputTensor %s with height times ScaleSize.Height (%u) and width times "
                   "ScaleSize.Width (%u); dimension %u differs.",
                   SizesToString(out).c_str(), SizesToString(in).c_str(), desc.ScaleSize.Height,
                   desc.ScaleSize.Width, d);
    }
    return {};
}

// The RESAMPLE family: `count` (ScaleCount or DimensionCount) matches the tensors' dimension count,
// 1 to 4 as the pages' tables give; each scale is finite and above 0, each offset finite.
Status ValidateResampleArrays(const OperatorArgs& args, Types allowed, const char* countName, uint32_t count,
                              const FLOAT* scales, const FLOAT* inOffsets, const FLOAT* outOffsets) {
    FREEDML_TRY(ValidatePair(args, allowed));
    const uint32_t rank = args.inputs[0]->rank;
    INVALID_IF(rank < 1 || rank > 4, "%s has %u dimensions; DML_OPERATOR_%s takes 1 to 4.",
               args.inputNames[0].c_str(), rank, args.schema.name);
    INVALID_IF(count != rank, "%s (%u) must equal the tensors' dimension count (%u).", countName, count, rank);
    for (uint32_t d = 0; d < count; ++d) {
        INVALID_IF(!(scales[d] > 0) || !std::isfinite(scales[d]), "Scales[%u] (%g) must be a finite number above 0.",
                   d, double(scales[d]));
        INVALID_IF(inOffsets && !std::isfinite(inOffsets[d]), "InputPixelOffsets[%u] (%g) must be finite.", d,
                   double(inOffsets[d]));
        INVALID_IF(outOffsets && !std::isfinite(outOffsets[d]), "OutputPixelOffsets[%u] (%g) must be finite.", d,
                   double(outOffsets[d]));
    }
    return {};
}

Status ValidateResample(const OperatorArgs& args) {
    const auto& desc = args.As<DML_RESAMPLE_OPERATOR_DESC>();
    return ValidateResampleArrays(args, kResampleTypes, "ScaleCount", desc.ScaleCount, desc.Scales, nullptr,
                                  nullptr);
}

template <class Desc>
Status ValidateResampleOffsets(const OperatorArgs& args, Types allowed) {
    const auto& desc = args.As<Desc>();
    return ValidateResampleArrays(args, allowed, "DimensionCount", desc.DimensionCount, desc.Scales,
                                  desc.InputPixelOffsets, desc.OutputPixelOffsets);
}

Status ValidateResample1(const OperatorArgs& args) {
    return ValidateResampleOffsets<DML_RESAMPLE1_OPERATOR_DESC>(args, kResampleTypes);
}
Status ValidateResample2(const OperatorArgs& args) {
    return ValidateResampleOffsets<DML_RESAMPLE2_OPERATOR_DESC>(args, kFloatTypes);
}
Status ValidateResample3(const OperatorArgs& args) {
    return ValidateResampleOffsets<DML_RESAMPLE3_OPERATOR_DESC>(args, kResampleTypes);
}
Status ValidateResampleGrad(const OperatorArgs& args) {
    return ValidateResampleOffsets<DML_RESAMPLE_GRAD_OPERATOR_DESC>(args, kFloatTypes);
}
Status ValidateResampleGrad1(const OperatorArgs& args) {
    return ValidateResampleOffsets<DML_RESAMPLE_GRAD1_OPERATOR_DESC>(args, kFloatTypes);
}

const OperatorSchema kValueScale2d{
    .type = DML_OPERATOR_VALUE_SCALE_2D,
    .name = "VALUE_SCALE_2D",
    .featureLevel = DML_FEATURE_LEVEL_1_0,
    .descSize = sizeof(DML_VALUE_SCALE_2D_OPERATOR_DESC),
    .fields = {DML_FIELD(DML_VALUE_SCALE_2D_OPERATOR_DESC, InputTensor, InputTensor),
               DML_FIELD(DML_VALUE_SCALE_2D_OPERATOR_DESC, OutputTensor, OutputTensor),
               DML_FIELD(DML_VALUE_SCALE_2D_OPERATOR_DESC, Scale, Float),
               DML_FIELD(DML_VALUE_SCALE_2D_OPERATOR_DESC, ChannelCount, UInt),
               DML_FIELD(DML_VALUE_SCALE_2D_OPERATOR_DESC, Bias, FloatArray, .countField = "ChannelCount")},
    .validate = ValidateValueScale2d,
};

const OperatorSchema kUpsample2d{
    .type = DML_OPERATOR_UPSAMPLE_2D,
    .name = "UPSAMPLE_2D",
    .featureLevel = DML_FEATURE_LEVEL_1_0,
    .descSize = sizeof(DML_UPSAMPLE_2D_OPERATOR_DESC),
    .fields = {DML_FIELD(DML_UPSAMPLE_2D_OPERATOR_DESC, InputTensor, InputTensor),
               DML_FIELD(DML_UPSAMPLE_2D_OPERATOR_DESC, OutputTensor, OutputTensor),
               DML_FIELD(DML_UPSAMPLE_2D_OPERATOR_DESC, ScaleSize, Size2D),
               DML_FIELD(DML_UPSAMPLE_2D_OPERATOR_DESC, InterpolationMode, Enum, .enumType = &kInterpolationMode)},
    .validate = ValidateUpsample2d,
};

const OperatorSchema kResample{
    .type = DML_OPERATOR_RESAMPLE,
    .name = "RESAMPLE",
    .featureLevel = DML_FEATURE_LEVEL_2_0,
    .descSize = sizeof(DML_RESAMPLE_OPERATOR_DESC),
    .fields = {DML_FIELD(DML_RESAMPLE_OPERATOR_DESC, InputTensor, InputTensor),
               DML_FIELD(DML_RESAMPLE_OPERATOR_DESC, OutputTensor, OutputTensor),
               DML_FIELD(DML_RESAMPLE_OPERATOR_DESC, InterpolationMode, Enum, .enumType = &kInterpolationMode),
               DML_FIELD(DML_RESAMPLE_OPERATOR_DESC, ScaleCount, UInt),
               DML_FIELD(DML_RESAMPLE_OPERATOR_DESC, Scales, FloatArray, .countField = "ScaleCount")},
    .validate = ValidateResample,
};

// The fields RESAMPLE1, RESAMPLE2, RESAMPLE3 and the gradients share, after the rounding direction.
#define FREEDML_RESAMPLE_ARRAYS(Desc)                                                   \
    DML_FIELD(Desc, DimensionCount, UInt),                                              \
        DML_FIELD(Desc, Scales, FloatArray, .countField = "DimensionCount"),            \
        DML_FIELD(Desc, InputPixelOffsets, FloatArray, .countField = "DimensionCount"), \
        DML_FIELD(Desc, OutputPixelOffsets, FloatArray, .countField = "DimensionCount")

const OperatorSchema kResample1{
    .type = DML_OPERATOR_RESAMPLE1,
    .name = "RESAMPLE1",
    .featureLevel = DML_FEATURE_LEVEL_2_1,
    .descSize = sizeof(DML_RESAMPLE1_OPERATOR_DESC),
    .fields = {DML_FIELD(DML_RESAMPLE1_OPERATOR_DESC, InputTensor, InputTensor),
               DML_FIELD(DML_RESAMPLE1_OPERATOR_DESC, OutputTensor, OutputTensor),
               DML_FIELD(DML_RESAMPLE1_OPERATOR_DESC, InterpolationMode, Enum, .enumType = &kInterpolationMode),
               FREEDML_RESAMPLE_ARRAYS(DML_RESAMPLE1_OPERATOR_DESC)},
    .validate = ValidateResample1,
};

const OperatorSchema kResample2{
    .type = DML_OPERATOR_RESAMPLE2,
    .name = "RESAMPLE2",
    .featureLevel = DML_FEATURE_LEVEL_5_1,
    .descSize = sizeof(DML_RESAMPLE2_OPERATOR_DESC),
    .fields = {DML_FIELD(DML_RESAMPLE2_OPERATOR_DESC, InputTensor, InputTensor),
               DML_FIELD(DML_RESAMPLE2_OPERATOR_DESC, OutputTensor, OutputTensor),
               DML_FIELD(DML_RESAMPLE2_OPERATOR_DESC, InterpolationMode, Enum, .enumType = &kInterpolationMode),
               DML_FIELD(DML_RESAMPLE2_OPERATOR_DESC, RoundingDirection, Enum, .enumType = &kAxisDirection),
               FREEDML_RESAMPLE_ARRAYS(DML_RESAMPLE2_OPERATOR_DESC)},
    .validate = ValidateResample2,
};

const OperatorSchema kResample3{
    .type = DML_OPERATOR_RESAMPLE3,
    .name = "RESAMPLE3",
    .featureLevel = DML_FEATURE_LEVEL_6_4,
    .descSize = sizeof(DML_RESAMPLE3_OPERATOR_DESC),
    .fields = {DML_FIELD(DML_RESAMPLE3_OPERATOR_DESC, InputTensor, InputTensor),
               DML_FIELD(DML_RESAMPLE3_OPERATOR_DESC, OutputTensor, OutputTensor),
               DML_FIELD(DML_RESAMPLE3_OPERATOR_DESC, InterpolationMode, Enum, .enumType = &kInterpolationMode),
               DML_FIELD(DML_RESAMPLE3_OPERATOR_DESC, RoundingDirection, Enum, .enumType = &kAxisDirection),
               FREEDML_RESAMPLE_ARRAYS(DML_RESAMPLE3_OPERATOR_DESC),
               DML_FIELD(DML_RESAMPLE3_OPERATOR_DESC, Antialiased, Bool)},
    .validate = ValidateResample3,
};

const OperatorSchema kResampleGrad{
    .type = DML_OPERATOR_RESAMPLE_GRAD,
    .name = "RESAMPLE_GRAD",
    .featureLevel = DML_FEATURE_LEVEL_3_0,
    .descSize = sizeof(DML_RESAMPLE_GRAD_OPERATOR_DESC),
    .fields = {DML_FIELD(DML_RESAMPLE_GRAD_OPERATOR_DESC, InputGradientTensor, InputTensor),
               DML_FIELD(DML_RESAMPLE_GRAD_OPERATOR_DESC, OutputGradientTensor, OutputTensor),
               DML_FIELD(DML_RESAMPLE_GRAD_OPERATOR_DESC, InterpolationMode, Enum, .enumType = &kInterpolationMode),
               FREEDML_RESAMPLE_ARRAYS(DML_RESAMPLE_GRAD_OPERATOR_DESC)},
    .validate = ValidateResampleGrad,
};

const OperatorSchema kResampleGrad1{
    .type = DML_OPERATOR_RESAMPLE_GRAD1,
    .name = "RESAMPLE_GRAD1",
    .featureLevel = DML_FEATURE_LEVEL_5_1,
    .descSize = sizeof(DML_RESAMPLE_GRAD1_OPERATOR_DESC),
    .fields = {DML_FIELD(DML_RESAMPLE_GRAD1_OPERATOR_DESC, InputGradientTensor, InputTensor),
               DML_FIELD(DML_RESAMPLE_GRAD1_OPERATOR_DESC, OutputGradientTensor, OutputTensor),
               DML_FIELD(DML_RESAMPLE_GRAD1_OPERATOR_DESC, InterpolationMode, Enum, .enumType = &kInterpolationMode),
               DML_FIELD(DML_RESAMPLE_GRAD1_OPERATOR_DESC, RoundingDirection, Enum, .enumType = &kAxisDirection),
               FREEDML_RESAMPLE_ARRAYS(DML_RESAMPLE_GRAD1_OPERATOR_DESC)},
    .validate = ValidateResampleGrad1,
};
#undef FREEDML_RESAMPLE_ARRAYS

const OperatorSchema* const kSchemas[] = {&kValueScale2d, &kUpsample2d, &kResample,     &kResample1,
                                          &kResampleGrad, &kResample2,  &kResampleGrad1, &kResample3};

}  // namespace

std::span<const OperatorSchema* const> ResamplingSchemas() { return kSchemas; }

}  // namespace freedml::dml
