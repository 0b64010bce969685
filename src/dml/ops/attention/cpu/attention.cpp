// MULTIHEAD_ATTENTION and MULTIHEAD_ATTENTION1 on the CPU: per (batch, query head) the scores
// Q.K^T in float32, scaled, biased and masked, a softmax with the row maximum subtracted, and the
// weighted sum of the values. Sizes and strides come from AttentionGeometry (attention_geometry.h),
// which also says what each tensor means.
//
// Two paths. The blocked one takes blocks of query rows through oneDNN's batched matmul for the
// scores of every head at once (scaled by the primitive), a vectorized softmax pass on the host
// pool (masks and relative position bias applied there), and a second batched matmul for P.V.
// FLOAT32 without bias or past keys (a transformer's self-attention) is read where the bindings
// hold it and P.V is written straight into Output; with FLOAT16, a bias or past keys, Q, K and V
// (past and new, bias added) are first gathered into packed floats in the temporary resource, and
// a FLOAT16 output is converted from packed floats at the end. PastSequenceLengths (a key count
// per batch) and builds without oneDNN take the general loop: (batch, head) pairs in parallel, one
// query at a time.
#include "dml/kernels/cpu/float_rows.h"  // first: vectorization and FP settings of the softmax rows

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#include "dml/kernels/cpu/batched_matmul.h"
#include "dml/kernels/cpu/cpu_isa.h"
#include "common/half.h"
#include "dml/kernels/cpu/float16.h"
#include "dml/kernels/cpu/kernel_adapter.h"
#include "dml/kernels/cpu/thread_pool.h"
#include "dml/kernels/cpu/vector_math.h"
#include "dml/ops/attention/attention_geometry.h"

namespace freedml::dml::cpu {
namespace {

// One of PastSequenceLengthsTensor's lengths: integers as they are, floats rounded to the nearest
// whole number (NaN as 0); the caller clamps it to the buffers.
int64_t ReadLength(DML_TENSOR_DATA_TYPE type, const std::byte* base, int64_t element) {
    if (type == DML_TENSOR_DATA_TYPE_FLOAT32 || type == DML_TENSOR_DATA_TYPE_FLOAT16) {
        float v;
        if (type == DML_TENSOR_DATA_TYPE_FLOAT32) {
            std::memcpy(&v, base + element * 4, 4);
        } else {
            uint16_t h;
            std::memcpy(&h, base + element * 2, 2);
            v = HalfToFloat(h);
        }
        if (!(v == v)) return 0;
        return int64_t(std::nearbyint(std::clamp(v, -1.0f, 4294967296.0f)));
    }
    int32_t raw;
    std::memcpy(&raw, base + element * 4, 4);
    return type == DML_TENSOR_DATA_TYPE_INT32 ? int64_t(raw) : int64_t(uint32_t(raw));
}

// One row of scores into softmax weights, in place: a BOOLEAN mask's filter value added where the
// mask is 0 (mask null: none), the maximum subtracted, e^x, and the division by the sum (as a
// product with its reciprocal). Partial maxima and sums over eight lanes let the loops vectorize
// without reassociating anything the compiler is not allowed to.
[[gnu::always_inline]] inline void SoftmaxRowBody(float* s, uint32_t n, const int32_t* mask, int64_t maskStride,
                                                  float filter) {
    if (mask && maskStride == 1) {
        for (uint32_t j = 0; j < n; ++j) s[j] += mask[j] == 0 ? filter : 0.0f;
    } else if (mask) {
        for (uint32_t j = 0; j < n; ++j) s[j] += mask[j * maskStride] == 0 ? filter : 0.0f;
    }
    constexpr uint32_t kLanes = 8;
    const uint32_t whole = n / kLanes * kLanes;
    float lanes[kLanes];
    for (uint32_t l = 0; l < kLanes; ++l) lanes[l] = -std::numeric_limits<float>::infinity();
    for (uint32_t j = 0; j < whole; j += kLanes)
        for (uint32_t l = 0; l < kLanes; ++l) lanes[l] = lanes[l] < s[j + l] ? s[j + l] : lanes[l];
    float maximum = -std::numeric_limits<float>::infinity();
    for (uint32_t l = 0; l < kLanes; ++l) maximum = maximum < lanes[l] ? lanes[l] : maximum;
    for (uint32_t j = whole; j < n; ++j) maximum = maximum < s[j] ? s[j] : maximum;
    for (uint32_t j = 0; j < n; ++j) s[j] = vmath::ExpF(s[j] - maximum);
    for (uint32_t l = 0; l < kLanes; ++l) lanes[l] = 0.0f;
    for (uint32_t j = 0; j < whole; j += kLanes)
        for (uint32_t l = 0; l < kLanes; ++l) lanes[l] += s[j + l];
    float sum = 0.0f;
    for (uint32_t l = 0; l < kLanes; ++l) sum += lanes[l];
    for (uint32_t j = whole; j < n; ++j) sum += s[j];
    const float inverse = 1.0f / sum;
    for (uint32_t j = 0; j < n; ++j) s[j] *= inverse;
}

void SoftmaxRowBaseline(float* s, uint32_t n, const int32_t* mask, int64_t maskStride, float filter) {
    SoftmaxRowBody(s, n, mask, maskStride, filter);
}

#ifdef FREEDML_TARGET_AVX2_FMA
FREEDML_TARGET_AVX2_FMA void SoftmaxRowAvx2(float* s, uint32_t n, const int32_t* mask, int64_t maskStride,
                                            float filter) {
    SoftmaxRowBody(s, n, mask, maskStride, filter);
}
#endif

using SoftmaxRowFunction = void (*)(float*, uint32_t, const int32_t*, int64_t, float);

SoftmaxRowFunction PickSoftmaxRow() {
#ifdef FREEDML_TARGET_AVX2_FMA
    if (UseAvx2Fma()) return SoftmaxRowAvx2;
#endif
    return SoftmaxRowBaseline;
}

// The oneDNN path's plan: query rows per block (every head of a batch at once), and the two
// products for a whole block and for the last, shorter one.
struct BlockedPlan {
    uint32_t rows = 0;
    uint32_t calls = 1;  // products per block: 1, or one per key/value head
    BatchedMatMul scores[2], weighted[2];  // [0] a whole block, [1] the last one when shorter
    bool packed = false;        // Q, K and V gathered into packed floats first
    bool packedOutput = false;  // P.V into packed floats, converted into Output at the end (FLOAT16)
    AttentionOperand q, k, v;   // where the products read: the bindings' layout or the packed copies'
    std::array<int64_t, 3> out{};  // where P.V goes: Output's strides or the packed copy's
    // Offsets in floats of the temporary resource's parts, and its size.
    uint64_t queryAt = 0, keyAt = 0, valueAt = 0, outputAt = 0, floats = 0;
};

// Scores of one block stay below this many bytes (the temporary resource holds them).
constexpr uint64_t kScoreBlockBytes = 8u << 20;

class AttentionKernel {
public:
    explicit AttentionKernel(const AttentionGeometry& g) : g_(g) { PlanBlocked(); }
    uint64_t PersistentSizeInBytes() const { return 0; }
    uint64_t TemporarySizeInBytes() const { return blocked_ ? blocked_->floats * sizeof(float) : 0; }

    void Execute(ThreadPool* threads, const OperatorArgs& args, const KernelBindings& b) const {
        if (blocked_) {
            WritePresent(threads, args, b);
            ExecuteBlocked(threads, args, b);
        } else {
            ExecuteGeneral(threads, args, b, true);
        }
    }

private:
    // The present outputs (phase 1 of the general loop) when they are asked for.
    void WritePresent(ThreadPool* threads, const OperatorArgs& args, const KernelBindings& b) const {
        if (g_.hasPresentKey || g_.hasPresentValue) ExecuteGeneral(threads, args, b, false);
    }

    void PlanBlocked() {
        const AttentionGeometry& g = g_;
        if (g.hasPastSequenceLengths || g.querySequence == 0 || g.totalSequence == 0 || g.headSize == 0 ||
            g.valueHeadSize == 0)
            return;
        auto plan = std::make_unique<BlockedPlan>();
        const int64_t n = g.totalSequence;  // the past keys, then the new ones
        const int64_t rowBytes = int64_t(g.queryHeads) * n * int64_t(sizeof(float));
        plan->rows = uint32_t(std::clamp<int64_t>(int64_t(kScoreBlockBytes) / rowBytes, 1, g.querySequence));
        plan->packed = g.dataType != DML_TENSOR_DATA_TYPE_FLOAT32 || g.hasBias || g.hasPast;
        plan->packedOutput = g.dataType != DML_TENSOR_DATA_TYPE_FLOAT32;
        plan->q = g.query, plan->k = g.key, plan->v = g.value;
        plan->out = g.outputStrides;
        uint64_t floats = uint64_t(g.queryHeads) * plan->rows * uint64_t(n);  // one block's scores
        const auto take = [&](uint64_t count) {
            const uint64_t at = floats;
            floats += count;
            return at;
        };
        if (plan->packed) {
            // {batch, position, head, channel}, packed.
            const int64_t qh = int64_t(g.queryHeads) * g.headSize, kh = int64_t(g.keyValueHeads) * g.headSize;
            const int64_t vh = int64_t(g.keyValueHeads) * g.valueHeadSize;
            plan->q = {0, 0, g.querySequence * qh, qh, g.headSize, 1};
            plan->k = {0, 0, n * kh, kh, g.headSize, 1};
            plan->v = {0, 0, n * vh, vh, g.valueHeadSize, 1};
            plan->queryAt = take(uint64_t(g.batch) * g.querySequence * qh);
            plan->keyAt = take(uint64_t(g.batch) * n * kh);
            plan->valueAt = take(uint64_t(g.batch) * n * vh);
        }
        if (plan->packedOutput) {
            const int64_t oh = int64_t(g.queryHeads) * g.valueHeadSize;
            plan->out = {g.querySequence * oh, oh, 1};
            plan->outputAt = take(uint64_t(g.batch) * g.querySequence * oh);
        }
        plan->floats = floats;
        // One product over every head when each has its own keys (MULTIHEAD_ATTENTION); with grouped
        // heads one per key/value head, over its query heads, its keys broadcast.
        const uint32_t group = g.queryHeads / g.keyValueHeads;
        plan->calls = group == 1 ? 1 : g.keyValueHeads;
        const int64_t perCall = group == 1 ? g.queryHeads : group;
        const uint32_t last = g.querySequence % plan->rows;
        for (int which = 0; which < (last ? 2 : 1); ++which) {
            const int64_t rows = which ? last : plan->rows;
            const AttentionOperand &q = plan->q, &k = plan->k, &v = plan->v;
            const auto& os = plan->out;
            const MatrixStrides s{rows * n, n, 1};  // scores {head, row, key}, packed
            if (!plan->scores[which].Prepare(perCall, rows, g.headSize, n, g.scale, {q.head, q.position, q.channel},
                                             {k.head, k.channel, k.position}, group > 1, s) ||
                !plan->weighted[which].Prepare(perCall, rows, n, g.valueHeadSize, 1.0f, s,
                                               {v.head, v.position, v.channel}, group > 1,
                                               {int64_t(g.valueHeadSize) * os[2], os[1], os[2]}))
                return;
        }
        blocked_ = std::move(plan);
    }

    // Q (bias added), K and V (the past, then the new ones with bias) as packed floats.
    void Gather(ThreadPool* threads, const OperatorArgs& args, const KernelBindings& b, float* temporary) const {
        const AttentionGeometry& g = g_;
        const BlockedPlan& p = *blocked_;
        const int64_t es = ElementSizeInBytes(g.dataType);
        const auto input = [&](uint32_t i) { return ViewOf(args.inputs, b.inputs, i).data; };
        const uint32_t qkHidden = g.queryHeads * g.headSize, kHidden = g.keyValueHeads * g.headSize;
        std::vector<float> bias;
        if (g.hasBias) {
            bias.resize(qkHidden + kHidden + size_t(g.keyValueHeads) * g.valueHeadSize);
            LoadFloats(g.dataType, input(kAttnBias), g.biasStride * es, bias.data(), bias.size());
        }
        // One row of `width` channels: loaded, then its bias (from `biasAt`) added.
        const auto row = [&](const std::byte* from, int64_t channelStride, float* to, uint32_t width, int64_t biasAt) {
            LoadFloats(g.dataType, from, channelStride * es, to, width);
            if (biasAt >= 0)
                for (uint32_t d = 0; d < width; ++d) to[d] += bias[size_t(biasAt) + d];
        };
        const AttentionOperand& q = g.query;
        float* queries = temporary + p.queryAt;
        ParallelFor(threads, uint64_t(g.batch) * g.querySequence * g.queryHeads, 64, [&](uint64_t first, uint64_t last) {
            for (uint64_t r = first; r < last; ++r) {
                const uint32_t h = uint32_t(r % g.queryHeads), i = uint32_t(r / g.queryHeads % g.querySequence);
                const uint32_t bi = uint32_t(r / g.queryHeads / g.querySequence);
                row(input(q.input) + (q.offset + bi * q.batch + i * q.position + h * q.head) * es, q.channel,
                    queries + r * g.headSize, g.headSize, g.hasBias ? int64_t(h) * g.headSize : -1);
            }
        });
        for (bool value : {false, true}) {
            const AttentionOperand& o = value ? g.value : g.key;
            const uint32_t width = value ? g.valueHeadSize : g.headSize;
            const auto& past = value ? g.pastValueStrides : g.pastKeyStrides;
            const std::byte* pastData = g.hasPast ? input(value ? kAttnPastValue : kAttnPastKey) : nullptr;
            float* to = temporary + (value ? p.valueAt : p.keyAt);
            const uint64_t rows = uint64_t(g.batch) * g.totalSequence * g.keyValueHeads;
            ParallelFor(threads, rows, 64, [&](uint64_t first, uint64_t last) {
                for (uint64_t r = first; r < last; ++r) {
                    const uint32_t kh = uint32_t(r % g.keyValueHeads), j = uint32_t(r / g.keyValueHeads % g.totalSequence);
                    const uint32_t bi = uint32_t(r / g.keyValueHeads / g.totalSequence);
                    if (j < g.pastSequence) {
                        row(pastData + (bi * past[0] + kh * past[1] + j * past[2]) * es, past[3], to + r * width, width, -1);
                    } else {
                        const uint32_t at = j - g.pastSequence;
                        const int64_t biasAt = !g.hasBias ? -1
                                               : value   ? int64_t(qkHidden) + kHidden + int64_t(kh) * width
                                                         : int64_t(qkHidden) + int64_t(kh) * width;
                        row(input(o.input) + (o.offset + bi * o.batch + at * o.position + kh * o.head) * es, o.channel,
                            to + r * width, width, biasAt);
                    }
                }
            });
        }
    }

    void ExecuteBlocked(ThreadPool* threads, const OperatorArgs& args, const KernelBindings& b) const {
        const AttentionGeometry& g = g_;
        const BlockedPlan& plan = *blocked_;
        const auto input = [&](uint32_t i) { return reinterpret_cast<const float*>(ViewOf(args.inputs, b.inputs, i).data); };
        float* temporary = reinterpret_cast<float*>(b.temporary);
        const float *query, *key, *value;
        if (plan.packed) {
            Gather(threads, args, b, temporary);
            query = temporary + plan.queryAt, key = temporary + plan.keyAt, value = temporary + plan.valueAt;
        } else {
            query = input(g.query.input), key = input(g.key.input), value = input(g.value.input);
        }
        std::byte* output = ViewOf(args.outputs, b.outputs, kAttnOutput).data;
        float* out = plan.packedOutput ? temporary + plan.outputAt : reinterpret_cast<float*>(output);
        const int64_t es = ElementSizeInBytes(g.dataType);
        const int32_t* mask = g.hasMask ? reinterpret_cast<const int32_t*>(ViewOf(args.inputs, b.inputs, kAttnMask).data)
                                        : nullptr;
        const std::byte* positionBias =
            g.hasRelativePositionBias ? ViewOf(args.inputs, b.inputs, kAttnRelativePositionBias).data : nullptr;
        float* scores = temporary;
        const SoftmaxRowFunction softmaxRow = PickSoftmaxRow();
        const uint32_t n = g.totalSequence;
        for (uint32_t bi = 0; bi < g.batch; ++bi) {
            // Key range the 1-D masks allow (the BOOLEAN mask applies per element).
            int64_t lo = 0, hi = n;
            const bool booleanMask = g.hasMask && g.maskType == DML_MULTIHEAD_ATTENTION_MASK_TYPE_BOOLEAN;
            if (g.hasMask && (g.maskType == DML_MULTIHEAD_ATTENTION_MASK_TYPE_KEY_SEQUENCE_LENGTH ||
                              g.maskType == DML_MULTIHEAD_ATTENTION_MASK_TYPE_KEY_QUERY_SEQUENCE_LENGTH_START_END)) {
                hi = mask[bi * g.maskStrides[3]];
            } else if (g.hasMask && g.maskType == DML_MULTIHEAD_ATTENTION_MASK_TYPE_KEY_SEQUENCE_END_START) {
                hi = mask[bi * g.maskStrides[3]];
                lo = mask[g.maskStrides[2] + bi * g.maskStrides[3]];
            }
            for (uint32_t first = 0; first < g.querySequence; first += plan.rows) {
                const uint32_t rows = std::min(plan.rows, g.querySequence - first);
                const int which = rows == plan.rows ? 0 : 1;
                const float* q = query + plan.q.offset + bi * plan.q.batch + int64_t(first) * plan.q.position;
                const float* k = key + plan.k.offset + bi * plan.k.batch;
                const float* v = value + plan.v.offset + bi * plan.v.batch;
                float* o = out + bi * plan.out[0] + int64_t(first) * plan.out[1];
                const int64_t headsPerCall = g.queryHeads / plan.calls;
                for (uint32_t c = 0; c < plan.calls; ++c) {
                    if (!plan.scores[which].Run(q + c * headsPerCall * plan.q.head, k + c * plan.k.head,
                                                scores + c * headsPerCall * rows * n))
                        return ExecuteGeneral(threads, args, b, true);
                }
                ParallelFor(threads, uint64_t(g.queryHeads) * rows, 8, [&](uint64_t begin, uint64_t end) {
                    std::vector<float> biasRow(positionBias ? n : 0);
                    for (uint64_t r = begin; r < end; ++r) {
                        const uint32_t h = uint32_t(r / rows), i = first + uint32_t(r % rows);
                        float* s = scores + r * n;
                        if (positionBias) {
                            const auto& p = g.biasPositionStrides;
                            LoadFloats(g.dataType, positionBias + (bi * p[0] + h * p[1] + i * p[2]) * es, p[3] * es,
                                       biasRow.data(), n);
                            for (uint32_t j = 0; j < n; ++j) s[j] += biasRow[j];
                        }
                        if (g.hasMask && !booleanMask) {
                            for (int64_t j = 0; j < int64_t(n); ++j)
                                if (j < lo || j >= hi) s[j] += g.maskFilterValue;
                        }
                        const auto& m = g.maskStrides;
                        softmaxRow(s, n, booleanMask ? mask + bi * m[0] + h * m[1] + i * m[2] : nullptr, m[3],
                                   g.maskFilterValue);
                    }
                });
                for (uint32_t c = 0; c < plan.calls; ++c) {
                    if (!plan.weighted[which].Run(scores + c * headsPerCall * rows * n, v + c * plan.v.head,
                                                  o + c * headsPerCall * g.valueHeadSize * plan.out[2]))
                        return ExecuteGeneral(threads, args, b, true);
                }
            }
        }
        if (plan.packedOutput) {
            const auto& os = g.outputStrides;
            const uint32_t width = g.queryHeads * g.valueHeadSize;
            ParallelFor(threads, uint64_t(g.batch) * g.querySequence, 16, [&](uint64_t first, uint64_t last) {
                for (uint64_t r = first; r < last; ++r) {
                    const uint32_t i = uint32_t(r % g.querySequence), bi = uint32_t(r / g.querySequence);
                    StoreFloats(g.dataType, out + r * width, output + (bi * os[0] + i * os[1]) * es, os[2] * es, width);
                }
            });
        }
    }

    // The general loop; `attend` false writes the present outputs only.
    void ExecuteGeneral(ThreadPool* threads, const OperatorArgs& args, const KernelBindings& b, bool attend) const {
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
                pastLength[bi] = uint32_t(std::clamp<int64_t>(
                    ReadLength(g.pastSequenceLengthsType, p, int64_t(bi) * g.pastSequenceLengthsStride), 0, limit));
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

        if (!attend) return;
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

    AttentionGeometry g_;
    std::unique_ptr<BlockedPlan> blocked_;  // null: the general loop runs
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
