// MULTIHEAD_ATTENTION and MULTIHEAD_ATTENTION1 on the CPU: per (batch, query head) the scores
// Q.K^T in float32, scaled, biased and masked, a softmax with the row maximum subtracted, and the
// weighted sum of the values; (batch, head) pairs run in parallel. Sizes and strides come from
// AttentionGeometry (attention_geometry.h), which also says what each tensor means.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#include "dml/kernels/cpu/float16.h"
#include "dml/kernels/cpu/kernel_adapter.h"
#include "dml/kernels/cpu/thread_pool.h"
#include "dml/ops/attention/attention_geometry.h"

namespace freedml::dml::cpu {
namespace {

class AttentionKernel {
public:
    explicit AttentionKernel(const AttentionGeometry& g) : g_(g) {}
    uint64_t PersistentSizeInBytes() const { return 0; }
    uint64_t TemporarySizeInBytes() const { return 0; }

    void Execute(ThreadPool* threads, const OperatorArgs& args, const KernelBindings& b) const {
        const AttentionGeometry& g = g_;
        std::vector<const std::byte*> in(args.inputs.size(), nullptr);
        for (size_t i = 0; i < in.size(); ++i) in[i] = ViewOf(args.inputs, b.inputs, i).data;
        std::byte* out = ViewOf(args.outputs, b.outputs, kAttnOutput).data;
        std::byte* presentKey = g.hasPresentKey ? ViewOf(args.outputs, b.outputs, kAttnPresentKey).data : nullptr;
        std::byte* presentValue = g.hasPresentValue ? ViewOf(args.outputs, b.outputs, kAttnPresentValue).data : nullptr;
        const int64_t es = ElementSizeInBytes(g.dataType);
        const auto load = [&](const std::byte* base, int64_t element) {
            float v;
            LoadFloats(g.dataType, base + element * es, es, &v, 1);
            return v;
        };
        const auto store = [&](std::byte* base, int64_t element, float v) {
            StoreFloats(g.dataType, &v, base + element * es, es, 1);
        };

        // Past positions per batch: PastSequenceLengths when given (clamped to what the buffers
        // hold, so bad lengths never reach outside them), else all of PastKey's.
        std::vector<uint32_t> pastLength(g.batch, g.pastSequence);
        if (g.hasPastSequenceLengths) {
            const uint32_t limit = g.hasPast ? g.pastSequence : g.totalSequence - g.keyValueSequence;
            const std::byte* p = in[kAttnPastSequenceLengths];
            for (uint32_t bi = 0; bi < g.batch; ++bi) {
                int32_t raw;
                std::memcpy(&raw, p + int64_t(bi) * g.pastSequenceLengthsStride * 4, 4);
                int64_t len = g.pastSequenceLengthsType == DML_TENSOR_DATA_TYPE_INT32 ? int64_t(raw)
                                                                                       : int64_t(uint32_t(raw));
                pastLength[bi] = uint32_t(std::clamp<int64_t>(len, 0, limit));
            }
        }
        const uint32_t qkHidden = g.queryHeads * g.headSize, kHidden = g.keyValueHeads * g.headSize;
        const auto biasOf = [&](uint32_t index) {
            return g.hasBias ? load(in[kAttnBias], int64_t(index) * g.biasStride) : 0.0f;
        };
        // Key/value element (batch, key position j, kv head, channel): the past below pastLength[b]
        // (PastKey, or the present buffer itself when PastKey is null), then the new ones with bias.
        const auto keyAt = [&](bool value, uint32_t bi, uint32_t j, uint32_t kh, uint32_t d) -> float {
            const uint32_t past = pastLength[bi];
            if (j < past) {
                const auto& s = value ? (g.hasPast ? g.pastValueStrides : g.presentValueStrides)
                                      : (g.hasPast ? g.pastKeyStrides : g.presentKeyStrides);
                const std::byte* base = g.hasPast ? in[value ? kAttnPastValue : kAttnPastKey]
                                                  : (value ? presentValue : presentKey);
                return load(base, bi * s[0] + kh * s[1] + j * s[2] + d * s[3]);
            }
            const AttentionOperand& o = value ? g.value : g.key;
            const uint32_t n = j - past;
            const float x = load(in[o.input], o.offset + bi * o.batch + n * o.position + kh * o.head + d * o.channel);
            return x + biasOf(value ? qkHidden + kHidden + kh * g.valueHeadSize + d : qkHidden + kh * g.headSize + d);
        };
        const auto keysOf = [&](uint32_t bi) { return pastLength[bi] + g.keyValueSequence; };

        // Phase 1: the present outputs, per (batch, kv head): the past, then the new keys. With
        // PastSequenceLengths and PastKey, positions after a batch's keys are written as 0; with
        // PastSequenceLengths and no PastKey (the present is the cache) only the new keys are
        // written, and every other position keeps what it holds.
        if (presentKey || presentValue) {
            ParallelFor(threads, uint64_t(g.batch) * g.keyValueHeads, 1, [&](uint64_t first, uint64_t last) {
                for (uint64_t p = first; p < last; ++p) {
                    const uint32_t bi = uint32_t(p / g.keyValueHeads), kh = uint32_t(p % g.keyValueHeads);
                    const bool inPlace = g.hasPastSequenceLengths && !g.hasPast;
                    const uint32_t count = keysOf(bi);
                    const uint32_t from = inPlace ? pastLength[bi] : 0, to = inPlace ? count : g.totalSequence;
                    for (uint32_t j = from; j < to; ++j) {
                        if (presentKey) {
                            const auto& s = g.presentKeyStrides;
                            for (uint32_t d = 0; d < g.headSize; ++d)
                                store(presentKey, bi * s[0] + kh * s[1] + j * s[2] + d * s[3],
                                      j < count ? keyAt(false, bi, j, kh, d) : 0.0f);
                        }
                        if (presentValue) {
                            const auto& s = g.presentValueStrides;
                            for (uint32_t d = 0; d < g.valueHeadSize; ++d)
                                store(presentValue, bi * s[0] + kh * s[1] + j * s[2] + d * s[3],
                                      j < count ? keyAt(true, bi, j, kh, d) : 0.0f);
                        }
                    }
                }
            });
        }

        // Phase 2: attention per (batch, query head). Reads only the past positions of the present
        // buffers, which phase 1 left as they were.
        const uint32_t group = g.queryHeads / g.keyValueHeads;
        const auto maskValue = [&](int64_t element) {
            int32_t m;
            std::memcpy(&m, in[kAttnMask] + element * 4, 4);
            return m;
        };
        ParallelFor(threads, uint64_t(g.batch) * g.queryHeads, 1, [&](uint64_t first, uint64_t last) {
            const uint32_t maxKeys = g.totalSequence;
            std::vector<float> keys(size_t(maxKeys) * g.headSize), values(size_t(maxKeys) * g.valueHeadSize);
            std::vector<float> q(g.headSize), scores(maxKeys), acc(g.valueHeadSize);
            for (uint64_t p = first; p < last; ++p) {
                const uint32_t bi = uint32_t(p / g.queryHeads), h = uint32_t(p % g.queryHeads), kh = h / group;
                const uint32_t count = keysOf(bi);
                for (uint32_t j = 0; j < count; ++j) {
                    for (uint32_t d = 0; d < g.headSize; ++d) keys[size_t(j) * g.headSize + d] = keyAt(false, bi, j, kh, d);
                    for (uint32_t d = 0; d < g.valueHeadSize; ++d)
                        values[size_t(j) * g.valueHeadSize + d] = keyAt(true, bi, j, kh, d);
                }
                // Key range the 1-D masks allow (the others apply per element).
                int64_t lo = 0, hi = count;
                if (g.hasMask && (g.maskType == DML_MULTIHEAD_ATTENTION_MASK_TYPE_KEY_SEQUENCE_LENGTH ||
                                  g.maskType == DML_MULTIHEAD_ATTENTION_MASK_TYPE_KEY_QUERY_SEQUENCE_LENGTH_START_END)) {
                    hi = maskValue(bi * g.maskStrides[3]);
                } else if (g.hasMask && g.maskType == DML_MULTIHEAD_ATTENTION_MASK_TYPE_KEY_SEQUENCE_END_START) {
                    hi = maskValue(bi * g.maskStrides[3]);
                    lo = maskValue(g.maskStrides[2] + bi * g.maskStrides[3]);
                }
                for (uint32_t i = 0; i < g.querySequence; ++i) {
                    const AttentionOperand& o = g.query;
                    for (uint32_t d = 0; d < g.headSize; ++d) {
                        q[d] = load(in[o.input], o.offset + bi * o.batch + i * o.position + h * o.head + d * o.channel) +
                               biasOf(h * g.headSize + d);
                    }
                    float maxScore = -std::numeric_limits<float>::infinity();
                    for (uint32_t j = 0; j < count; ++j) {
                        float dot = 0.0f;
                        const float* k = &keys[size_t(j) * g.headSize];
                        for (uint32_t d = 0; d < g.headSize; ++d) dot += q[d] * k[d];
                        float s = dot * g.scale;
                        if (g.hasRelativePositionBias) {
                            const auto& r = g.biasPositionStrides;
                            s += load(in[kAttnRelativePositionBias], bi * r[0] + h * r[1] + i * r[2] + j * r[3]);
                        }
                        bool masked = false;
                        if (g.hasMask && g.maskType == DML_MULTIHEAD_ATTENTION_MASK_TYPE_BOOLEAN) {
                            const auto& m = g.maskStrides;
                            masked = maskValue(bi * m[0] + h * m[1] + i * m[2] + j * m[3]) == 0;
                        } else if (g.hasMask) {
                            masked = int64_t(j) < lo || int64_t(j) >= hi;
                        }
                        // The filter value is added, as ONNX Runtime's attention adds its mask_filter_value.
                        if (masked) s += g.maskFilterValue;
                        scores[j] = s;
                        maxScore = std::max(maxScore, s);
                    }
                    float sum = 0.0f;
                    for (uint32_t j = 0; j < count; ++j) sum += (scores[j] = std::exp(scores[j] - maxScore));
                    std::fill(acc.begin(), acc.end(), 0.0f);
                    for (uint32_t j = 0; j < count; ++j) {
                        const float w = scores[j] / sum;
                        const float* v = &values[size_t(j) * g.valueHeadSize];
                        for (uint32_t d = 0; d < g.valueHeadSize; ++d) acc[d] += w * v[d];
                    }
                    const auto& os = g.outputStrides;
                    for (uint32_t d = 0; d < g.valueHeadSize; ++d)
                        store(out, bi * os[0] + i * os[1] + (h * g.valueHeadSize + d) * os[2], acc[d]);
                }
            }
        });
    }

private:
    AttentionGeometry g_;
};

}  // namespace

// The factory the operator table names (dml/ops/operators.def), for both MULTIHEAD_ATTENTION and
// MULTIHEAD_ATTENTION1.
Status CreateCpuMultiheadAttention(const KernelContext&, const OperatorArgs& args, std::unique_ptr<Kernel>* out) {
    AttentionGeometry geometry;
    FREEDML_TRY(MakeAttentionGeometry(args, &geometry));
    *out = AdaptKernel(
        args, AttentionKernel(geometry),
        [](AttentionKernel& k, const OperatorArgs& a, const KernelBindings& b) { k.Execute(HostThreads(b), a, b); },
        kNoInitialize);
    return {};
}

}  // namespace freedml::dml::cpu
