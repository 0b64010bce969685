// The RegionPlan of a validated ROI_POOLING, ROI_ALIGN or ROI_ALIGN1 operator, shared by the CPU and
// CUDA kernel factories (host code; region_math.h says what the plan's fields mean).
#pragma once

#include "dml/ops/region_pooling/region_math.h"
#include "dml/schema/schema.h"

namespace freedml::dml::region {

inline RegionPlan PlanFromArgs(const OperatorArgs& args) {
    RegionPlan p;
    const TensorDesc& input = *args.inputs[0];
    const TensorDesc& rois = *args.inputs[1];
    const TensorDesc& output = *args.outputs[0];
    p.half = input.dataType == DML_TENSOR_DATA_TYPE_FLOAT16;
    p.batch = input.sizes[0];
    p.channels = input.sizes[1];
    p.height = input.sizes[2];
    p.width = input.sizes[3];
    p.regions = output.sizes[0];
    p.outHeight = output.sizes[2];
    p.outWidth = output.sizes[3];
    for (int d = 0; d < 4; ++d) {
        p.in[d] = input.strides[d];
        p.out[d] = output.strides[d];
    }
    p.roiRow = rois.strides[rois.rank - 2];
    p.roiColumn = rois.strides[rois.rank - 1];
    const auto align = [&](const auto& desc) {
        p.max = desc.ReductionFunction == DML_REDUCE_FUNCTION_MAX;
        p.linear = desc.InterpolationMode == DML_INTERPOLATION_MODE_LINEAR;
        p.scaleX = desc.SpatialScaleX;
        p.scaleY = desc.SpatialScaleY;
        p.outOfBounds = desc.OutOfBoundsInputValue;
        p.minSamples = desc.MinimumSamplesPerOutput;
        p.maxSamples = desc.MaximumSamplesPerOutput;
        const TensorDesc& batches = *args.inputs[2];
        p.batch64 = batches.dataType == DML_TENSOR_DATA_TYPE_UINT64;
        p.batchStride = batches.strides[batches.rank - 1];
    };
    switch (args.schema.type) {
        case DML_OPERATOR_ROI_POOLING: {
            const auto& desc = args.As<DML_ROI_POOLING_OPERATOR_DESC>();
            p.align = false;
            p.scaleX = p.scaleY = desc.SpatialScale;
            break;
        }
        case DML_OPERATOR_ROI_ALIGN:
            align(args.As<DML_ROI_ALIGN_OPERATOR_DESC>());
            break;
        default: {
            const auto& desc = args.As<DML_ROI_ALIGN1_OPERATOR_DESC>();
            align(desc);
            p.inputOffset = desc.InputPixelOffset;
            p.outputOffset = desc.OutputPixelOffset;
            p.corners = desc.AlignRegionsToCorners != 0;
            break;
        }
    }
    return p;
}

}  // namespace freedml::dml::region
