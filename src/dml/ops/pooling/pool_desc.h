// The fields the pooling descs share, read from any of them, and the PoolPlan (pool_plan.h) a
// validated operator runs by; host code only (the schema and both backends' planning code).
#pragma once

#include <algorithm>

#include "dml/ops/pooling/pool_plan.h"
#include "dml/schema/schema.h"

namespace freedml::dml {

struct PoolFields {
    PoolKind kind = PoolKind::Max;
    uint32_t dimensionCount = 0;
    const UINT* strides = nullptr;
    const UINT* windowSize = nullptr;
    const UINT* startPadding = nullptr;
    const UINT* endPadding = nullptr;
    const UINT* dilations = nullptr;  // null for the descs without Dilations (all 1)
    bool hasDilations = false;
    bool includePadding = false;
    uint32_t p = 0;
};

template <class Desc>
PoolFields ReadWindow(const Desc& desc, PoolKind kind) {
    PoolFields f;
    f.kind = kind;
    f.dimensionCount = desc.DimensionCount;
    f.strides = desc.Strides;
    f.windowSize = desc.WindowSize;
    f.startPadding = desc.StartPadding;
    f.endPadding = desc.EndPadding;
    return f;
}

template <class Desc>
PoolFields ReadDilatedWindow(const Desc& desc, PoolKind kind) {
    PoolFields f = ReadWindow(desc, kind);
    f.dilations = desc.Dilations;
    f.hasDilations = true;
    return f;
}

inline PoolFields ReadPoolFields(const OperatorArgs& args) {
    switch (args.schema.type) {
        case DML_OPERATOR_AVERAGE_POOLING: {
            const auto& d = args.As<DML_AVERAGE_POOLING_OPERATOR_DESC>();
            PoolFields f = ReadWindow(d, PoolKind::Average);
            f.includePadding = d.IncludePadding != 0;
            return f;
        }
        case DML_OPERATOR_AVERAGE_POOLING1: {
            const auto& d = args.As<DML_AVERAGE_POOLING1_OPERATOR_DESC>();
            PoolFields f = ReadDilatedWindow(d, PoolKind::Average);
            f.includePadding = d.IncludePadding != 0;
            return f;
        }
        case DML_OPERATOR_LP_POOLING: {
            const auto& d = args.As<DML_LP_POOLING_OPERATOR_DESC>();
            PoolFields f = ReadWindow(d, PoolKind::Lp);
            f.p = d.P;
            return f;
        }
        case DML_OPERATOR_LP_POOLING1: {
            const auto& d = args.As<DML_LP_POOLING1_OPERATOR_DESC>();
            PoolFields f = ReadDilatedWindow(d, PoolKind::Lp);
            f.p = d.P;
            return f;
        }
        case DML_OPERATOR_AVERAGE_POOLING_GRAD: {
            const auto& d = args.As<DML_AVERAGE_POOLING_GRAD_OPERATOR_DESC>();
            PoolFields f = ReadWindow(d, PoolKind::Average);
            f.includePadding = d.IncludePadding != 0;
            return f;
        }
        case DML_OPERATOR_MAX_POOLING_GRAD:
            return ReadDilatedWindow(args.As<DML_MAX_POOLING_GRAD_OPERATOR_DESC>(), PoolKind::Max);
        case DML_OPERATOR_MAX_POOLING: return ReadWindow(args.As<DML_MAX_POOLING_OPERATOR_DESC>(), PoolKind::Max);
        case DML_OPERATOR_MAX_POOLING1: return ReadWindow(args.As<DML_MAX_POOLING1_OPERATOR_DESC>(), PoolKind::Max);
        default: return ReadDilatedWindow(args.As<DML_MAX_POOLING2_OPERATOR_DESC>(), PoolKind::Max);
    }
}

// Element strides of {N, C, spatial..} into the plan's 5 slots (spatial dimensions right-aligned).
inline void PoolStrides(const TensorDesc& t, int64_t (&out)[5]) {
    const uint32_t spatial = t.rank - 2;
    for (int d = 0; d < 5; ++d) out[d] = 0;
    out[0] = t.strides[0];
    out[1] = t.strides[1];
    for (uint32_t i = 0; i < spatial; ++i) out[2 + (3 - spatial) + i] = t.strides[2 + i];
}

// The plan of a validated pooling operator; for a gradient, of its forward pooling (pool_plan.h).
inline PoolPlan MakePoolPlan(const OperatorArgs& args) {
    const PoolFields f = ReadPoolFields(args);
    const bool gradient = args.schema.type == DML_OPERATOR_AVERAGE_POOLING_GRAD ||
                          args.schema.type == DML_OPERATOR_MAX_POOLING_GRAD;
    const bool maxGradient = args.schema.type == DML_OPERATOR_MAX_POOLING_GRAD;
    // The forward input's geometry and the forward output's.
    const TensorDesc& input = gradient ? *args.outputs[0] : *args.inputs[0];
    const TensorDesc& output = gradient ? *args.inputs[maxGradient ? 1 : 0] : *args.outputs[0];
    PoolPlan plan;
    plan.kind = f.kind;
    plan.includePadding = f.includePadding;
    plan.p = f.p;
    plan.batch = input.sizes[0];
    plan.channels = input.sizes[1];
    const uint32_t spatial = f.dimensionCount, lead = 3 - spatial;
    for (uint32_t i = 0; i < spatial; ++i) {
        plan.in[lead + i] = input.sizes[2 + i];
        plan.out[lead + i] = output.sizes[2 + i];
        plan.window[lead + i] = f.windowSize[i];
        plan.stride[lead + i] = f.strides[i];
        plan.pad[lead + i] = f.startPadding[i];
        plan.dilation[lead + i] = f.hasDilations ? f.dilations[i] : 1;
        plan.windowVolume *= f.windowSize[i];
    }
    PoolStrides(maxGradient ? *args.inputs[0] : input, plan.inStrides);
    PoolStrides(output, plan.outStrides);
    if (gradient) PoolStrides(*args.outputs[0], plan.gradStrides);
    plan.inCount = uint64_t(plan.batch) * plan.channels * plan.in[0] * plan.in[1] * plan.in[2];
    if (!gradient && args.outputs.size() > 1 && args.outputs[1]) {
        plan.hasIndices = true;
        plan.index64 = args.outputs[1]->dataType == DML_TENSOR_DATA_TYPE_UINT64;
        PoolStrides(*args.outputs[1], plan.indexStrides);
    }
    plan.outCount = uint64_t(plan.batch) * plan.channels * plan.out[0] * plan.out[1] * plan.out[2];
    return plan;
}

inline UnpoolPlan MakeUnpoolPlan(const OperatorArgs& args) {
    const TensorDesc& input = *args.inputs[0];
    const TensorDesc& indices = *args.inputs[1];
    const TensorDesc& output = *args.outputs[0];
    UnpoolPlan plan;
    plan.index64 = indices.dataType == DML_TENSOR_DATA_TYPE_UINT64;
    plan.inCount = plan.outCount = 1;
    for (int d = 0; d < 4; ++d) {
        plan.inSizes[d] = input.sizes[d];
        plan.outSizes[d] = output.sizes[d];
        plan.inStrides[d] = input.strides[d];
        plan.indexStrides[d] = indices.strides[d];
        plan.outStrides[d] = output.strides[d];
        plan.inCount *= input.sizes[d];
        plan.outCount *= output.sizes[d];
    }
    return plan;
}

}  // namespace freedml::dml
