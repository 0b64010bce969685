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
    bool hasBias, hasMask, hasRelativePositionBias, hasPast, hasPastSequenceLengths;
    uint32_t pastLengthsKind;  // 0 INT32, 1 UINT32, 2 FLOAT32, 3 FLOAT16
    uint32_t maskType;
    int64_t biasStride, pastLengthsStride;
    int64_t maskStrides[4], positionBiasStrides[4];
    int64_t pastKeyStrides[4], pastValueStrides[4], presentKeyStrides[4], presentValueStrides[4];
    int64_t outputStrides[3];
    // Key tiles masked for a whole query tile may be skipped (flash_attention_sm80.cu says when).
    bool skipMaskedTiles;
};

// Which of a query tile's 128 rows have an open key (bit r % 64 of `open[r / 64]`) and which a
// masked key in one key tile of a BOOLEAN mask.
struct TileMask {
    unsigned long long open[2], masked[2];
};

// The bindings, by the desc's input order (null where absent).
struct AttentionPointers {
    const void* inputs[12];
    void* output;
    void* presentKey;
    void* presentValue;
};

cudaError_t LaunchAttention(const AttentionPlan& plan, const AttentionPointers& pointers, void* temporary,
                            LaunchTarget launch);
// Bytes of the temporary resource the attention needs (the tile classes of a BOOLEAN mask).
uint64_t AttentionTemporaryBytes(const AttentionPlan& plan);

// Whether the general route's tiled kernel (attention.cu) takes the plan (head sizes up to 128);
// the rest run one block per query row, with the row's scores in shared memory.
bool AttentionTilesCover(const AttentionPlan& plan);

// The tiled FLOAT16 kernel (flash_attention.cu): whether it takes the plan's attention (head sizes
// 64 and 128, no bias, no past keys), and its launch (the present outputs are not its part).
bool FlashAttentionCovers(const AttentionPlan& plan);
cudaError_t LaunchFlashAttention(const AttentionPlan& plan, const AttentionPointers& pointers, cudaStream_t stream);

// The one-pass kernel for sm_80 and later (flash_attention_sm80.cu): the same shapes as the tiled
// kernel above; `temporary` holds FlashAttentionSm80TemporaryBytes.
bool FlashAttentionSm80Covers(const AttentionPlan& plan);
uint64_t FlashAttentionSm80TemporaryBytes(const AttentionPlan& plan);
cudaError_t LaunchFlashAttentionSm80(const AttentionPlan& plan, const AttentionPointers& pointers, void* temporary,
                                     cudaStream_t stream);

}  // namespace freedml::dml::cuda
