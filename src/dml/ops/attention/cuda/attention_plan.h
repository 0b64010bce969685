// The launch description of the CUDA attention kernels: AttentionGeometry (../attention_geometry.h)
// in plain arrays that device code reads. Strides are in elements.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "dml/kernels/cuda/ew_plan.h"

namespace freedml::dml::cuda {

struct AttentionOperandPlan {
    int input;
    int64_t offset, batch, position, head, channel;
};

struct AttentionPlan {
    bool half;  // FLOAT16 data (else FLOAT32); arithmetic is float32 either way
    uint32_t batch, querySequence, keyValueSequence, pastSequence, totalSequence;
    uint32_t queryHeads, keyValueHeads, headSize, valueHeadSize;
    float scale, maskFilterValue;
    AttentionOperandPlan query, key, value;
    bool hasBias, hasMask, hasRelativePositionBias, hasPast, hasPastSequenceLengths, pastLengthsSigned;
    uint32_t maskType;
    int64_t biasStride, pastLengthsStride;
    int64_t maskStrides[4], positionBiasStrides[4];
    int64_t pastKeyStrides[4], pastValueStrides[4], presentKeyStrides[4], presentValueStrides[4];
    int64_t outputStrides[3];
};

// The bindings, by the desc's input order (null where absent).
struct AttentionPointers {
    const void* inputs[12];
    void* output;
    void* presentKey;
    void* presentValue;
};

cudaError_t LaunchAttention(const AttentionPlan& plan, const AttentionPointers& pointers, LaunchTarget launch);

// The tiled FLOAT16 kernel (flash_attention.cu): whether it takes the plan's attention (head sizes
// 64 and 128, no bias, no past keys), and its launch (the present outputs are not its part).
bool FlashAttentionCovers(const AttentionPlan& plan);
cudaError_t LaunchFlashAttention(const AttentionPlan& plan, const AttentionPointers& pointers, cudaStream_t stream);

}  // namespace freedml::dml::cuda
