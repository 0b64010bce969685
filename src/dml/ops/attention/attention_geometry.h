// What MULTIHEAD_ATTENTION and MULTIHEAD_ATTENTION1 descs mean, decoded once for the schema's
// validation and for every backend's kernel: the sizes (batch, sequences, heads, head sizes) and,
// for each logical tensor, where element (batch, position, head, channel) lies in its binding.
//
// Semantics (the DirectML reference pages, with ONNX Runtime's contrib MultiHeadAttention and
// GroupQueryAttention as the reading where the pages are terse):
//   scores[b,h,i,j] = Scale * sum_d (Q[b,i,h,d] + bQ[h,d]) * K[b,j,kh,d]
//                     + RelativePositionBias[b,h,i,j] + (masked(b,h,i,j) ? MaskFilterValue : 0)
// (MaskFilterValue is added, as the page's MaskFilterValue member and ONNX Runtime say; the page's
// MaskType text says "set to" for the length masks, which differs only where a row is all masked)
//   Output[b,i,h*Hv+e] = sum_j softmax_j(scores[b,h,i,:]) * V[b,j,kh,e]
// where kh = h / (QueryHeadCount / KeyValueHeadCount) (one head each for MULTIHEAD_ATTENTION),
// keys j run over the past (PastKey) and then the new ones (Key + bias), and the present outputs
// are that concatenation in {batch, heads, positions, channel} order.
#pragma once

#include <array>
#include <cstdint>

#include "dml/schema/schema.h"

namespace freedml::dml {

// Binding order of the desc's tensors (the schema's field order; PastSequenceLengthsTensor exists
// in MULTIHEAD_ATTENTION1 only, and AttentionGeometry maps it).
enum AttentionInput : uint32_t {
    kAttnQuery, kAttnKey, kAttnValue, kAttnStackedQueryKey, kAttnStackedKeyValue, kAttnStackedQueryKeyValue,
    kAttnBias, kAttnMask, kAttnRelativePositionBias, kAttnPastKey, kAttnPastValue, kAttnPastSequenceLengths,
};
enum AttentionOutput : uint32_t { kAttnOutput, kAttnPresentKey, kAttnPresentValue };

// Element (b, s, h, d) of one logical tensor is element
// offset + b*batch + s*position + h*head + d*channel of input `input` (strides in elements).
struct AttentionOperand {
    uint32_t input = 0;
    int64_t offset = 0, batch = 0, position = 0, head = 0, channel = 0;
};

struct AttentionGeometry {
    DML_TENSOR_DATA_TYPE dataType = DML_TENSOR_DATA_TYPE_FLOAT32;
    uint32_t batch = 0, querySequence = 0, keyValueSequence = 0;
    uint32_t pastSequence = 0;   // positions of PastKey (0 without it)
    uint32_t totalSequence = 0;  // keys per batch: pastSequence + keyValueSequence, or the present's size with PastSequenceLengths
    uint32_t queryHeads = 0, keyValueHeads = 0, headSize = 0, valueHeadSize = 0;
    float scale = 1.0f, maskFilterValue = 0.0f;
    AttentionOperand query, key, value;
    bool hasBias = false;
    int64_t biasStride = 0;  // element stride of the bias's last dimension
    uint32_t maskType = 0;   // DML_MULTIHEAD_ATTENTION_MASK_TYPE
    bool hasMask = false;
    // Element strides over {batch, head, query, key} (0 where broadcast) of a BOOLEAN mask and of
    // RelativePositionBias. The other masks step over batches by maskStrides[3]; KEY_SEQUENCE_END_START's
    // starts begin maskStrides[2] elements after its ends.
    std::array<int64_t, 4> maskStrides{}, biasPositionStrides{};
    bool hasRelativePositionBias = false;
    bool hasPast = false, hasPresentKey = false, hasPresentValue = false;
    // {batch, head, position, channel} element strides of PastKey/PastValue and the present outputs.
    std::array<int64_t, 4> pastKeyStrides{}, pastValueStrides{}, presentKeyStrides{}, presentValueStrides{};
    // Output {batch, position, channel} element strides (channel runs over head*Hv + e).
    std::array<int64_t, 3> outputStrides{};
    bool hasPastSequenceLengths = false;
    DML_TENSOR_DATA_TYPE pastSequenceLengthsType = DML_TENSOR_DATA_TYPE_INT32;
    int64_t pastSequenceLengthsStride = 0;
};

// Validates the desc's tensors and attributes together (every message names the fields and values)
// and decodes them. MULTIHEAD_ATTENTION and MULTIHEAD_ATTENTION1 both.
Status MakeAttentionGeometry(const OperatorArgs& args, AttentionGeometry* geometry);

}  // namespace freedml::dml
