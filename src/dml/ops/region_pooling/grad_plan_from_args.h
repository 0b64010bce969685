// The GradPlan of a validated ROI_ALIGN_GRAD operator, shared by the CPU and CUDA kernel factories
// (host code; region_grad_math.h says what the plan's fields mean).
#pragma once

#include "dml/ops/region_pooling/region_grad_math.h"
#include "dml/schema/schema.h"

namespace freedml::dml::region {

inline GradPlan GradPlanFromArgs(const OperatorArgs& args) {
    const auto& desc = args.As<DML_ROI_ALIGN_GRAD_OPERATOR_DESC>();
    GradPlan p;
    const std::optional<TensorDesc>& input = args.inputs[0];
    const TensorDesc& gradient = *args.inputs[1];
    const TensorDesc& rois = *args.inputs[2];
    const TensorDesc& batches = *args.inputs[3];
    const std::optional<TensorDesc>& outputGradient = args.outputs[0];
    const std::optional<TensorDesc>& roiGradient = args.outputs[1];
    const TensorDesc& image = input ? *input : *outputGradient;
    p.half = gradient.dataType == DML_TENSOR_DATA_TYPE_FLOAT16;
    p.max = desc.ReductionFunction == DML_REDUCE_FUNCTION_MAX;
    p.linear = desc.InterpolationMode == DML_INTERPOLATION_MODE_LINEAR;
    p.corners = desc.AlignRegionsToCorners != 0;
    p.hasInput = input.has_value();
    p.hasOutputGradient = outputGradient.has_value();
    p.hasRoiGradient = roiGradient.has_value();
    p.scaleX = desc.SpatialScaleX;
    p.scaleY = desc.SpatialScaleY;
    p.inputOffset = desc.InputPixelOffset;
    p.outputOffset = desc.OutputPixelOffset;
    p.minSamples = desc.MinimumSamplesPerOutput;
    p.maxSamples = desc.MaximumSamplesPerOutput;
    p.batch = image.sizes[0];
    p.channels = image.sizes[1];
    p.height = image.sizes[2];
    p.width = image.sizes[3];
    p.regions = gradient.sizes[0];
    p.outHeight = gradient.sizes[2];
    p.outWidth = gradient.sizes[3];
    for (int d = 0; d < 4; ++d) {
        p.inGrad[d] = gradient.strides[d];
        if (input) p.in[d] = input->strides[d];
        if (outputGradient) p.outGrad[d] = outputGradient->strides[d];
    }
    p.roiRow = rois.strides[rois.rank - 2];
    p.roiColumn = rois.strides[rois.rank - 1];
    if (roiGradient) {
        p.roiGradRow = roiGradient->strides[roiGradient->rank - 2];
        p.roiGradColumn = roiGradient->strides[roiGradient->rank - 1];
    }
    p.batchStride = batches.strides[batches.rank - 1];
    return p;
}

}  // namespace freedml::dml::region
