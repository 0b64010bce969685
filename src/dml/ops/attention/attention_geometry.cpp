#include "dml/ops/attention/attention_geometry.h"

#include <string>

#include "dml/schema/families.h"

namespace freedml::dml {
namespace {

const char* const kMaskTypeNames[] = {
    "DML_MULTIHEAD_ATTENTION_MASK_TYPE_NONE",
    "DML_MULTIHEAD_ATTENTION_MASK_TYPE_KEY_SEQUENCE_LENGTH",
    "DML_MULTIHEAD_ATTENTION_MASK_TYPE_KEY_SEQUENCE_END_START",
    "DML_MULTIHEAD_ATTENTION_MASK_TYPE_KEY_QUERY_SEQUENCE_LENGTH_START_END",
    "DML_MULTIHEAD_ATTENTION_MASK_TYPE_BOOLEAN",
};

// The pages let the 3-D tensors (and the 1-D bias) carry up to 5 dimensions when the extra leading
// ones are 1. Returns the last `want` sizes and strides, or fails naming the field.
Status TrailingDims(const OperatorArgs& args, uint32_t input, uint32_t want, std::array<uint32_t, 5>* sizes,
                    std::array<int64_t, 5>* strides) {
    const TensorDesc& t = *args.inputs[input];
    const char* name = args.inputNames[input].c_str();
    INVALID_IF(t.rank < want, "%s %s has %u dimensions; it needs %u (extra leading dimensions of size 1 are allowed).",
               name, SizesToString(t).c_str(), t.rank, want);
    for (uint32_t d = 0; d + want < t.rank; ++d) {
        INVALID_IF(t.sizes[d] != 1, "%s %s: dimension %u is %u; only leading dimensions of size 1 may precede its %u.",
                   name, SizesToString(t).c_str(), d, t.sizes[d], want);
    }
    for (uint32_t d = 0; d < want; ++d) {
        (*sizes)[d] = t.sizes[t.rank - want + d];
        (*strides)[d] = t.strides[t.rank - want + d];
    }
    return {};
}

// A {batch, head, query, key} tensor (BOOLEAN mask, RelativePositionBias) of rank 1 to 4, aligned
// to the right; each size equals the full one or is 1 (broadcast, stride 0 here).
Status FourDimStrides(const OperatorArgs& args, uint32_t input, const std::array<uint32_t, 4>& full,
                      std::array<int64_t, 4>* strides) {
    const TensorDesc& t = *args.inputs[input];
    const char* name = args.inputNames[input].c_str();
    INVALID_IF(t.rank < 1 || t.rank > 5 || (t.rank == 5 && t.sizes[0] != 1),
               "%s %s has %u dimensions; it takes 1 to 4 (5 with a leading 1), aligned to {batchSize %u, "
               "headCount %u, sequenceLength %u, totalSequenceLength %u}.", name, SizesToString(t).c_str(), t.rank,
               full[0], full[1], full[2], full[3]);
    strides->fill(0);
    for (uint32_t d = t.rank == 5 ? 1 : 0; d < t.rank; ++d) {
        const uint32_t f = 4 - t.rank + d;
        INVALID_IF(t.sizes[d] != full[f] && t.sizes[d] != 1,
                   "%s %s: dimension %u is %u; it must be %u or 1 to match {batchSize %u, headCount %u, "
                   "sequenceLength %u, totalSequenceLength %u}.", name, SizesToString(t).c_str(), d, t.sizes[d],
                   full[f], full[0], full[1], full[2], full[3]);
        (*strides)[f] = t.sizes[d] == 1 ? 0 : int64_t(t.strides[d]);
    }
    return {};
}

// One {batch, heads, positions, channels} tensor: the past and present keys and values.
// 4 dimensions, or 5 with a leading 1 (the pages' "4 to 5").
Status CheckBnsh(const TensorDesc& t, const std::string& name, uint32_t b, uint32_t n, uint32_t s, uint32_t h,
                 std::array<int64_t, 4>* strides) {
    const uint32_t o = t.rank == 5 ? 1 : 0;
    INVALID_IF((t.rank != 4 && t.rank != 5) || (o && t.sizes[0] != 1) || t.sizes[o] != b || t.sizes[o + 1] != n ||
                   t.sizes[o + 2] != s || t.sizes[o + 3] != h,
               "%s %s must be {batchSize, headCount, sequence, headSize} = {%u, %u, %u, %u}.", name.c_str(),
               SizesToString(t).c_str(), b, n, s, h);
    for (uint32_t d = 0; d < 4; ++d) (*strides)[d] = t.strides[o + d];
    return {};
}

// Dimension `d` of the 4 {batch, heads, sequence, headSize} dimensions of a 4- or 5-D tensor.
uint32_t BnshSize(const TensorDesc& t, uint32_t d) { return t.rank == 5 ? t.sizes[d + 1] : t.sizes[d]; }

}  // namespace

Status MakeAttentionGeometry(const OperatorArgs& args, AttentionGeometry* out) {
    AttentionGeometry g;
    const bool v1 = args.schema.type == DML_OPERATOR_MULTIHEAD_ATTENTION1;
    float scale, filter;
    uint32_t maskType;
    if (v1) {
        const auto& desc = args.As<DML_MULTIHEAD_ATTENTION1_OPERATOR_DESC>();
        scale = desc.Scale, filter = desc.MaskFilterValue, maskType = desc.MaskType;
        g.queryHeads = desc.QueryHeadCount, g.keyValueHeads = desc.KeyValueHeadCount;
        INVALID_IF(g.queryHeads == 0 || g.keyValueHeads == 0,
                   "QueryHeadCount (%u) and KeyValueHeadCount (%u) must be at least 1.", g.queryHeads, g.keyValueHeads);
        INVALID_IF(g.queryHeads % g.keyValueHeads != 0,
                   "QueryHeadCount (%u) must be a multiple of KeyValueHeadCount (%u): each key/value head serves "
                   "QueryHeadCount / KeyValueHeadCount query heads.", g.queryHeads, g.keyValueHeads);
    } else {
        const auto& desc = args.As<DML_MULTIHEAD_ATTENTION_OPERATOR_DESC>();
        scale = desc.Scale, filter = desc.MaskFilterValue, maskType = desc.MaskType;
        g.queryHeads = g.keyValueHeads = desc.HeadCount;
        INVALID_IF(desc.HeadCount == 0, "HeadCount must be at least 1.");
    }
    g.scale = scale, g.maskFilterValue = filter, g.maskType = maskType;
    const auto has = [&](uint32_t i) { return i < args.inputs.size() && args.inputs[i].has_value(); };
    const auto name = [&](uint32_t i) { return args.inputNames[i].c_str(); };

    // Every floating-point tensor shares the output's type (FLOAT32 or FLOAT16).
    const TensorDesc& output = *args.outputs[kAttnOutput];
    g.dataType = output.dataType;
    INVALID_IF(!DataTypeIn({DML_TENSOR_DATA_TYPE_FLOAT32, DML_TENSOR_DATA_TYPE_FLOAT16}, g.dataType),
               "OutputTensor is %s; MULTIHEAD_ATTENTION takes FLOAT32 or FLOAT16.", DataTypeName(g.dataType));
    for (uint32_t i = 0; i < args.inputs.size(); ++i) {
        if (!has(i) || i == kAttnMask || i == kAttnPastSequenceLengths) continue;
        INVALID_IF(args.inputs[i]->dataType != g.dataType, "%s is %s; it must have OutputTensor's data type %s.",
                   name(i), DataTypeName(args.inputs[i]->dataType), DataTypeName(g.dataType));
    }
    for (uint32_t o = 1; o < args.outputs.size(); ++o) {
        if (!args.outputs[o]) continue;
        INVALID_IF(args.outputs[o]->dataType != g.dataType, "%s is %s; it must have OutputTensor's data type %s.",
                   args.outputNames[o].c_str(), DataTypeName(args.outputs[o]->dataType), DataTypeName(g.dataType));
    }

    // Exactly one source for each of query, key and value: separate, or one of the stacked forms.
    const bool q = has(kAttnQuery), k = has(kAttnKey), v = has(kAttnValue);
    const bool sqk = has(kAttnStackedQueryKey), skv = has(kAttnStackedKeyValue), sqkv = has(kAttnStackedQueryKeyValue);
    const int queries = int(q) + int(sqk) + int(sqkv), keys = int(k) + int(sqk) + int(skv) + int(sqkv),
              values = int(v) + int(skv) + int(sqkv);
    INVALID_IF(queries != 1 || keys != 1 || values != 1,
               "Exactly one query, one key and one value must be given, separate or stacked: QueryTensor %s, "
               "KeyTensor %s, ValueTensor %s, StackedQueryKeyTensor %s, StackedKeyValueTensor %s, "
               "StackedQueryKeyValueTensor %s gives %d queries, %d keys and %d values.",
               q ? "set" : "null", k ? "set" : "null", v ? "set" : "null", sqk ? "set" : "null", skv ? "set" : "null",
               sqkv ? "set" : "null", queries, keys, values);

    std::array<uint32_t, 5> sz{};
    std::array<int64_t, 5> st{};
    // A stacked tensor {batch, sequence, heads, count, headSize}: slot `slot` of the fourth dimension.
    const auto stacked = [&](uint32_t input, uint32_t count, uint32_t slot, AttentionOperand* op) -> Status {
        const TensorDesc& t = *args.inputs[input];
        INVALID_IF(t.rank != 5 || t.sizes[3] != count,
                   "%s %s must have 5 dimensions {batchSize, sequenceLength, headCount, %u, headSize}.", name(input),
                   SizesToString(t).c_str(), count);
        *op = {input, int64_t(slot) * t.strides[3], t.strides[0], t.strides[1], t.strides[2], t.strides[4]};
        return {};
    };

    // Query: {batch, sequence, QueryHeadCount * headSize}, or stacked.
    if (q) {
        FREEDML_TRY(TrailingDims(args, kAttnQuery, 3, &sz, &st));
        g.batch = sz[0], g.querySequence = sz[1];
        INVALID_IF(sz[2] % g.queryHeads != 0, "QueryTensor's hidden size %u is not a multiple of the %u query heads.",
                   sz[2], g.queryHeads);
        g.headSize = sz[2] / g.queryHeads;
        g.query = {kAttnQuery, 0, st[0], st[1], int64_t(g.headSize) * st[2], st[2]};
    } else {
        const uint32_t input = sqk ? kAttnStackedQueryKey : kAttnStackedQueryKeyValue;
        FREEDML_TRY(stacked(input, sqk ? 2 : 3, 0, &g.query));
        const TensorDesc& t = *args.inputs[input];
        // One head count for the stack, so grouped key/value heads need separate tensors.
        INVALID_IF(t.sizes[2] != g.queryHeads || g.keyValueHeads != g.queryHeads,
                   "%s %s stacks query and key heads together: its third dimension must be the head count, and the "
                   "query and key/value head counts (%u, %u) must be equal.", name(input), SizesToString(t).c_str(),
                   g.queryHeads, g.keyValueHeads);
        g.batch = t.sizes[0], g.querySequence = t.sizes[1], g.headSize = t.sizes[4];
    }
    INVALID_IF(g.batch == 0 || g.querySequence == 0 || g.headSize == 0,
               "The batch size (%u), query sequence length (%u) and head size (%u) must not be 0.", g.batch,
               g.querySequence, g.headSize);

    // Key: {batch, kvSequence, KeyValueHeadCount * headSize}, or stacked.
    if (k) {
        FREEDML_TRY(TrailingDims(args, kAttnKey, 3, &sz, &st));
        INVALID_IF(sz[0] != g.batch || sz[2] != g.keyValueHeads * g.headSize,
                   "KeyTensor %s must be {batchSize %u, kvSequenceLength, headCount %u x headSize %u}.",
                   SizesToString(*args.inputs[kAttnKey]).c_str(), g.batch, g.keyValueHeads, g.headSize);
        g.keyValueSequence = sz[1];
        g.key = {kAttnKey, 0, st[0], st[1], int64_t(g.headSize) * st[2], st[2]};
    } else if (sqk) {
        FREEDML_TRY(stacked(kAttnStackedQueryKey, 2, 1, &g.key));
        g.keyValueSequence = g.querySequence;
    } else {
        const uint32_t input = skv ? kAttnStackedKeyValue : kAttnStackedQueryKeyValue;
        FREEDML_TRY(stacked(input, skv ? 2 : 3, skv ? 0 : 1, &g.key));
        const TensorDesc& t = *args.inputs[input];
        INVALID_IF(t.sizes[0] != g.batch || t.sizes[2] != g.keyValueHeads || t.sizes[4] != g.headSize,
                   "%s %s must be {batchSize %u, kvSequenceLength, headCount %u, 2, headSize %u}.", name(input),
                   SizesToString(t).c_str(), g.batch, g.keyValueHeads, g.headSize);
        g.keyValueSequence = t.sizes[1];
    }
    INVALID_IF(g.keyValueSequence == 0, "The key/value sequence length must not be 0.");

    // Value: {batch, kvSequence, KeyValueHeadCount * valueHeadSize}, or stacked (valueHeadSize = headSize).
    if (v) {
        FREEDML_TRY(TrailingDims(args, kAttnValue, 3, &sz, &st));
        INVALID_IF(sz[0] != g.batch || sz[1] != g.keyValueSequence || sz[2] % g.keyValueHeads != 0 || sz[2] == 0,
                   "ValueTensor %s must be {batchSize %u, kvSequenceLength %u, headCount %u x valueHeadSize}.",
                   SizesToString(*args.inputs[kAttnValue]).c_str(), g.batch, g.keyValueSequence, g.keyValueHeads);
        g.valueHeadSize = sz[2] / g.keyValueHeads;
        g.value = {kAttnValue, 0, st[0], st[1], int64_t(g.valueHeadSize) * st[2], st[2]};
    } else {
        FREEDML_TRY(stacked(skv ? kAttnStackedKeyValue : kAttnStackedQueryKeyValue, skv ? 2 : 3, skv ? 1 : 2,
                            &g.value));
        g.valueHeadSize = g.headSize;
    }

    // Bias: {QueryHeadCount*headSize + KeyValueHeadCount*headSize + KeyValueHeadCount*valueHeadSize},
    // added to the new query, key and value (never to PastKey/PastValue).
    if (has(kAttnBias)) {
        FREEDML_TRY(TrailingDims(args, kAttnBias, 1, &sz, &st));
        const uint32_t want = g.queryHeads * g.headSize + g.keyValueHeads * (g.headSize + g.valueHeadSize);
        INVALID_IF(sz[0] != want, "BiasTensor %s must hold %u values (query, key and value hidden sizes %u + %u + %u).",
                   SizesToString(*args.inputs[kAttnBias]).c_str(), want, g.queryHeads * g.headSize,
                   g.keyValueHeads * g.headSize, g.keyValueHeads * g.valueHeadSize);
        g.hasBias = true, g.biasStride = st[0];
    }

    // Past key and value: both or neither, {batch, KeyValueHeadCount, pastSequence, head size}.
    const bool pk = has(kAttnPastKey), pv = has(kAttnPastValue);
    INVALID_IF(pk != pv, "PastKeyTensor and PastValueTensor come together (PastKeyTensor %s, PastValueTensor %s).",
               pk ? "set" : "null", pv ? "set" : "null");
    if (pk) {
        g.hasPast = true;
        g.pastSequence = BnshSize(*args.inputs[kAttnPastKey], 2);
        FREEDML_TRY(CheckBnsh(*args.inputs[kAttnPastKey], "PastKeyTensor", g.batch, g.keyValueHeads, g.pastSequence,
                              g.headSize, &g.pastKeyStrides));
        FREEDML_TRY(CheckBnsh(*args.inputs[kAttnPastValue], "PastValueTensor", g.batch, g.keyValueHeads,
                              g.pastSequence, g.valueHeadSize, &g.pastValueStrides));
    }

    // PastSequenceLengths (MULTIHEAD_ATTENTION1): {batch} valid past positions per batch, as ONNX
    // Runtime's GroupQueryAttention binds it. The present outputs are then buffers of a fixed
    // length, written at the positions after each batch's past; their earlier positions are read
    // as the past when PastKeyTensor is null (the shared past/present buffer of key-value caches).
    g.hasPastSequenceLengths = v1 && has(kAttnPastSequenceLengths);
    g.totalSequence = g.pastSequence + g.keyValueSequence;
    if (g.hasPastSequenceLengths) {
        const TensorDesc& t = *args.inputs[kAttnPastSequenceLengths];
        // The page lists FLOAT32/FLOAT16 for it, and ONNX Runtime binds INT32: both are read.
        INVALID_IF(!DataTypeIn({DML_TENSOR_DATA_TYPE_INT32, DML_TENSOR_DATA_TYPE_UINT32, DML_TENSOR_DATA_TYPE_FLOAT32,
                                DML_TENSOR_DATA_TYPE_FLOAT16},
                               t.dataType),
                   "PastSequenceLengthsTensor is %s; it holds lengths as INT32, UINT32, FLOAT32 or FLOAT16.",
                   DataTypeName(t.dataType));
        FREEDML_TRY(TrailingDims(args, kAttnPastSequenceLengths, 1, &sz, &st));
        INVALID_IF(sz[0] != g.batch, "PastSequenceLengthsTensor %s must hold batchSize (%u) lengths.",
                   SizesToString(t).c_str(), g.batch);
        g.pastSequenceLengthsType = t.dataType, g.pastSequenceLengthsStride = st[0];
        INVALID_IF(!args.outputs[kAttnPresentKey] || !args.outputs[kAttnPresentValue],
                   "PastSequenceLengthsTensor needs OutputPresentKeyTensor and OutputPresentValueTensor: they hold "
                   "the key/value cache it counts.");
        const TensorDesc& pkOut = *args.outputs[kAttnPresentKey];
        INVALID_IF(pkOut.rank != 4 && pkOut.rank != 5, "OutputPresentKeyTensor %s must have 4 or 5 dimensions.",
                   SizesToString(pkOut).c_str());
        g.totalSequence = BnshSize(pkOut, 2);
        INVALID_IF(g.totalSequence < g.pastSequence + g.keyValueSequence,
                   "OutputPresentKeyTensor %s has %u positions; it needs PastKeyTensor's %u plus the %u new ones.",
                   SizesToString(pkOut).c_str(), g.totalSequence, g.pastSequence, g.keyValueSequence);
    }
    if (args.outputs[kAttnPresentKey]) {
        g.hasPresentKey = true;
        FREEDML_TRY(CheckBnsh(*args.outputs[kAttnPresentKey], "OutputPresentKeyTensor", g.batch, g.keyValueHeads,
                              g.totalSequence, g.headSize, &g.presentKeyStrides));
    }
    if (args.outputs[kAttnPresentValue]) {
        g.hasPresentValue = true;
        FREEDML_TRY(CheckBnsh(*args.outputs[kAttnPresentValue], "OutputPresentValueTensor", g.batch, g.keyValueHeads,
                              g.totalSequence, g.valueHeadSize, &g.presentValueStrides));
    }

    const std::array<uint32_t, 4> scoreSizes{g.batch, g.queryHeads, g.querySequence, g.totalSequence};
    if (has(kAttnRelativePositionBias)) {
        g.hasRelativePositionBias = true;
        FREEDML_TRY(FourDimStrides(args, kAttnRelativePositionBias, scoreSizes, &g.biasPositionStrides));
    }

    // Mask (INT32): its meaning is MaskType's.
    INVALID_IF(maskType > DML_MULTIHEAD_ATTENTION_MASK_TYPE_BOOLEAN, "MaskType %u is not a DML_MULTIHEAD_ATTENTION_MASK_TYPE.",
               maskType);
    g.hasMask = has(kAttnMask);
    INVALID_IF(g.hasMask != (maskType != DML_MULTIHEAD_ATTENTION_MASK_TYPE_NONE),
               "MaskType %s %s MaskTensor, which is %s.", kMaskTypeNames[maskType],
               maskType == DML_MULTIHEAD_ATTENTION_MASK_TYPE_NONE ? "takes no" : "needs a", g.hasMask ? "set" : "null");
    if (g.hasMask) {
        const TensorDesc& t = *args.inputs[kAttnMask];
        INVALID_IF(t.dataType != DML_TENSOR_DATA_TYPE_INT32, "MaskTensor is %s; it must be INT32.",
                   DataTypeName(t.dataType));
        switch (maskType) {
        case DML_MULTIHEAD_ATTENTION_MASK_TYPE_KEY_SEQUENCE_LENGTH:
            // {batch}: keys j < length[b] take part.
            FREEDML_TRY(TrailingDims(args, kAttnMask, 1, &sz, &st));
            INVALID_IF(sz[0] != g.batch, "MaskTensor %s with %s must hold batchSize (%u) key sequence lengths.",
                       SizesToString(t).c_str(), kMaskTypeNames[maskType], g.batch);
            g.maskStrides[3] = st[0];
            break;
        case DML_MULTIHEAD_ATTENTION_MASK_TYPE_KEY_SEQUENCE_END_START:
            // {2, batch} (the page's shape), or the same values as one {2 x batch} row (ONNX
            // Runtime's mask_index): the end positions (exclusive) of every batch, then the start
            // positions (inclusive); keys start[b] <= j < end[b] take part. maskStrides[2] is
            // where the starts begin.
            if (t.rank >= 2 && t.sizes[t.rank - 2] == 2 && t.sizes[t.rank - 1] == g.batch) {
                FREEDML_TRY(TrailingDims(args, kAttnMask, 2, &sz, &st));
                g.maskStrides[2] = st[0], g.maskStrides[3] = st[1];
            } else {
                FREEDML_TRY(TrailingDims(args, kAttnMask, 1, &sz, &st));
                INVALID_IF(sz[0] != 2 * g.batch,
                           "MaskTensor %s with %s must be {2, batchSize %u}: the ends, then the starts.",
                           SizesToString(t).c_str(), kMaskTypeNames[maskType], g.batch);
                g.maskStrides[2] = int64_t(g.batch) * st[0], g.maskStrides[3] = st[0];
            }
            break;
        case DML_MULTIHEAD_ATTENTION_MASK_TYPE_KEY_QUERY_SEQUENCE_LENGTH_START_END:
            // {3 x batch + 2}: the key lengths, then the cumulative query and key offsets of
            // packed sequences. With the padded {batch, sequence, ...} tensors of this operator
            // the offsets say no more than the lengths, so keys j < keyLength[b] take part (as
            // KEY_SEQUENCE_LENGTH) and every query row is computed.
            FREEDML_TRY(TrailingDims(args, kAttnMask, 1, &sz, &st));
            INVALID_IF(sz[0] != 3 * g.batch + 2, "MaskTensor %s with %s must hold 3 x batchSize + 2 (%u) values.",
                       SizesToString(t).c_str(), kMaskTypeNames[maskType], 3 * g.batch + 2);
            g.maskStrides[3] = st[0];
            break;
        default:
            // BOOLEAN: {batch, heads, query, key} (broadcast where a size is 1); zero masks the pair.
            FREEDML_TRY(FourDimStrides(args, kAttnMask, scoreSizes, &g.maskStrides));
            break;
        }
    }

    // Output: {batch, querySequence, QueryHeadCount * valueHeadSize} (extra leading 1s allowed).
    const uint32_t hidden = g.queryHeads * g.valueHeadSize;
    INVALID_IF(output.rank < 3 || output.sizes[output.rank - 3] != g.batch ||
                   output.sizes[output.rank - 2] != g.querySequence || output.sizes[output.rank - 1] != hidden,
               "OutputTensor %s must be {batchSize, sequenceLength, headCount x valueHeadSize} = {%u, %u, %u}.",
               SizesToString(output).c_str(), g.batch, g.querySequence, hidden);
    for (uint32_t d = 0; d + 3 < output.rank; ++d) {
        INVALID_IF(output.sizes[d] != 1, "OutputTensor %s: leading dimension %u must be 1.", SizesToString(output).c_str(), d);
    }
    for (uint32_t d = 0; d < 3; ++d) g.outputStrides[d] = output.strides[output.rank - 3 + d];
    *out = g;
    return {};
}

}  // namespace freedml::dml
