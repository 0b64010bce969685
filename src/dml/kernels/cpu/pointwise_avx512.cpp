#include "dml/kernels/cpu/pointwise_avx512.h"

#include <algorithm>
#include <atomic>
#include <cstring>

#include "common/align.h"
#include "dml/kernels/cpu/float16.h"

#include "dml/kernels/cpu/avx512_intrinsics.h"

namespace freedml::dml::cpu {
namespace {

constexpr uint32_t kRows = 8;     // output channels of a filter panel (rows of the accumulator tile)
constexpr uint32_t kVectors = 3;  // vectors of 16 pixels in a pixel panel
constexpr uint32_t kPanel = 16 * kVectors;
constexpr uint32_t kDepth = 256;  // input channels of a pixel panel: 48 KiB, L1's size
constexpr uint32_t kMaxRowsPerItem = 256;
constexpr uint32_t kItemsForTwoCores = 8;  // fewer items than this split the output channels

// Sizes here stay below 2^32 (MakePointwisePlan checks the pixels; channels are uint32_t).
uint32_t RoundUp(uint32_t v, uint32_t to) { return uint32_t(AlignUp(v, to)); }

// Where filter element (m, k) goes in the packed filter: depth chunks of kDepth input channels, in
// each the panels of kRows output channels, in each k-major rows of kRows.
uint64_t PackedIndex(uint32_t paddedRows, uint32_t depth, uint32_t m, uint32_t k) {
    const uint32_t k0 = k / kDepth * kDepth, chunk = std::min(kDepth, depth - k0);
    return uint64_t(k0) * paddedRows + uint64_t(m / kRows * kRows) * chunk + uint64_t(k - k0) * kRows + m % kRows;
}

}  // namespace

std::optional<PointwisePlan> MakePointwisePlan(const TensorDesc& input, const TensorDesc& output,
                                               const uint32_t* strides, uint32_t dims) {
    const DML_TENSOR_DATA_TYPE type = output.dataType;
    if (!UseAvx512() || (type != DML_TENSOR_DATA_TYPE_FLOAT32 && type != DML_TENSOR_DATA_TYPE_FLOAT16)) return {};
    if (type == DML_TENSOR_DATA_TYPE_FLOAT16 && !HasF16c()) return {};
    PointwisePlan plan;
    plan.type = type;
    plan.batch = output.sizes[0];
    plan.outChannels = output.sizes[1];
    plan.inChannels = input.sizes[1];
    // The output's pixels packed in each channel (the channels and batch items anywhere that keeps
    // the elements apart).
    uint64_t pixels = 1;
    for (uint32_t d = dims; d-- > 0;) {
        if (output.sizes[2 + d] > 1 && output.strides[2 + d] != pixels) return {};
        pixels *= output.sizes[2 + d];
    }
    if (pixels > UINT32_MAX / 2) return {};
    plan.pixels = uint32_t(pixels);
    plan.outChannelStride = output.strides[1];
    plan.outBatchStride = output.strides[0];
    const uint64_t channelSpan = plan.outChannels > 1 ? uint64_t(plan.outChannelStride) : pixels;
    if (plan.outChannels > 1 && uint64_t(plan.outChannelStride) < pixels) return {};
    if (plan.batch > 1 && uint64_t(plan.outBatchStride) < channelSpan * (plan.outChannels - 1) + pixels) return {};
    plan.inChannelStride = input.strides[1];
    plan.inBatchStride = input.strides[0];

    // Each output pixel's input element, by odometer over the output's spatial positions.
    int64_t step[3] = {0, 0, 0}, extent = 0;
    for (uint32_t d = 0; d < dims; ++d) {
        step[d] = int64_t(strides[d]) * input.strides[2 + d];
        extent += int64_t(output.sizes[2 + d] - 1) * step[d];
    }
    if (extent > INT32_MAX) return {};
    plan.pixelOffsets.resize(RoundUp(plan.pixels, 16));
    uint32_t position[3] = {0, 0, 0};
    int64_t offset = 0;
    for (uint32_t p = 0; p < plan.pixels; ++p) {
        plan.pixelOffsets[p] = int32_t(offset);
        for (uint32_t d = dims; d-- > 0;) {
            if (++position[d] < output.sizes[2 + d]) {
                offset += step[d];
                break;
            }
            offset -= int64_t(position[d] - 1) * step[d];
            position[d] = 0;
        }
    }
    for (size_t p = plan.pixels; p < plan.pixelOffsets.size(); ++p) plan.pixelOffsets[p] = plan.pixelOffsets[p - 1];
    plan.groupIsRun.resize(plan.pixelOffsets.size() / 16);
    for (size_t g = 0; g < plan.groupIsRun.size(); ++g) {
        bool run = true;
        for (uint32_t j = 1; j < 16 && g * 16 + j < plan.pixels; ++j) {
            run = run && plan.pixelOffsets[g * 16 + j] == plan.pixelOffsets[g * 16] + int32_t(j);
        }
        plan.groupIsRun[g] = run;
    }

    // Items: (batch item, pixel panel, block of output channels); the channels split only where
    // too few panels would leave a core idle.
    const uint64_t panels = uint64_t(plan.batch) * ((plan.pixels + kPanel - 1) / kPanel);
    uint32_t blocks = (plan.outChannels + kMaxRowsPerItem - 1) / kMaxRowsPerItem;
    if (panels < kItemsForTwoCores)
        blocks = std::max<uint32_t>(blocks, uint32_t((kItemsForTwoCores + panels - 1) / panels));
    plan.rowsPerItem = std::max(kRows, RoundUp((plan.outChannels + blocks - 1) / blocks, kRows));
    plan.rowBlocks = (plan.outChannels + plan.rowsPerItem - 1) / plan.rowsPerItem;
    return plan;
}

uint64_t PointwisePackedFilterFloats(const PointwisePlan& plan) {
    return uint64_t(RoundUp(plan.outChannels, kRows)) * plan.inChannels;
}

void PackPointwiseFilter(const PointwisePlan& plan, const TensorDesc& filter, const std::byte* data, float* packed,
                         const ParallelForFunction* parallelFor) {
    const uint32_t paddedRows = RoundUp(plan.outChannels, kRows), depth = plan.inChannels;
    const int64_t es = ElementSizeInBytes(filter.dataType), kStride = int64_t(filter.strides[1]) * es;
    // Row by row, a depth chunk at a time through a buffer on the stack: an unowned filter is
    // packed at every execution, which allocates nothing.
    auto pack = [&](uint64_t firstRow, uint64_t endRow) {
        float values[kDepth];
        for (uint32_t m = uint32_t(firstRow); m < endRow; ++m) {
            for (uint32_t k0 = 0; k0 < depth; k0 += kDepth) {
                const uint32_t chunk = std::min(kDepth, depth - k0);
                if (m < plan.outChannels) {
                    LoadFloats(filter.dataType, data + int64_t(m) * filter.strides[0] * es + int64_t(k0) * kStride,
                               kStride, values, chunk);
                } else {
                    std::fill(values, values + chunk, 0.0f);  // the last panel's missing channels
                }
                float* to = packed + PackedIndex(paddedRows, depth, m, k0);
                for (uint32_t k = 0; k < chunk; ++k) to[k * kRows] = values[k];
            }
        }
    };
    if (parallelFor) {
        (*parallelFor)(paddedRows, kRows, pack);
    } else {
        pack(0, paddedRows);
    }
}

#ifdef FREEDML_CPU_X86_64
namespace {

__mmask16 TailMask(uint32_t count) { return count >= 16 ? __mmask16(0xFFFF) : __mmask16((1u << count) - 1); }

// Where a tile's results go. Sums between depth chunks stay in floats at `sums` (the FLOAT32 output
// itself, or the item's buffer for FLOAT16); the last chunk writes `halves` instead where it is
// set (FLOAT16 output rows, converted in the registers).
struct TileTarget {
    float* sums;
    int64_t sumsStride;
    uint16_t* halves;
    int64_t halvesStride;
};

// What a tile does around its product.
struct TileSteps {
    bool first;       // the first depth chunk: start from the bias (and the output where `accumulate`)
    bool last;        // the last depth chunk: apply `relu` and write the result where it belongs
    bool accumulate;  // add the values the output held
    bool relu;
};

// R x 16 NV results of pixels' panel `b` (k-major rows of kPanel floats) times the filter's panel
// `a` (k-major rows of kRows floats) over `depth` input channels; the last vector of each row masked
// by `tail`.
template <uint32_t R, uint32_t NV>
FREEDML_TARGET_AVX512 void MultiplyTile(uint32_t depth, const float* a, const float* b, const TileTarget& t,
                                        __mmask16 tail, TileSteps steps, const float* bias) {
    auto mask = [tail](uint32_t j) { return j == NV - 1 ? tail : __mmask16(0xFFFF); };
    __m512 acc[R][NV];
    for (uint32_t i = 0; i < R; ++i) {
        const __m512 start = _mm512_set1_ps(steps.first && bias ? bias[i] : 0.0f);
        for (uint32_t j = 0; j < NV; ++j) {
            __m512 previous = _mm512_setzero_ps();
            if (!steps.first) {
                previous = _mm512_maskz_loadu_ps(mask(j), t.sums + i * t.sumsStride + 16 * j);
            } else if (steps.accumulate && t.halves) {
                previous = _mm512_cvtph_ps(_mm256_maskz_loadu_epi16(mask(j), t.halves + i * t.halvesStride + 16 * j));
            } else if (steps.accumulate) {
                previous = _mm512_maskz_loadu_ps(mask(j), t.sums + i * t.sumsStride + 16 * j);
            }
            acc[i][j] = _mm512_add_ps(start, previous);
        }
    }
    for (uint32_t k = 0; k < depth; ++k, a += kRows, b += kPanel) {
        __m512 bk[NV];
        for (uint32_t j = 0; j < NV; ++j) bk[j] = _mm512_load_ps(b + 16 * j);
        for (uint32_t i = 0; i < R; ++i) {
            const __m512 ak = _mm512_set1_ps(a[i]);
            for (uint32_t j = 0; j < NV; ++j) acc[i][j] = _mm512_fmadd_ps(ak, bk[j], acc[i][j]);
        }
    }
    for (uint32_t i = 0; i < R; ++i) {
        for (uint32_t j = 0; j < NV; ++j) {
            __m512 value = acc[i][j];
            // RELU as the activation's own row computes it (x > 0 ? x : 0, so NaN and -0 give +0):
            // max_ps returns its second operand unless the first is greater.
            if (steps.last && steps.relu) value = _mm512_max_ps(value, _mm512_setzero_ps());
            if (steps.last && t.halves) {
                _mm256_mask_storeu_epi16(t.halves + i * t.halvesStride + 16 * j, mask(j),
                                         _mm512_cvtps_ph(value, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
            } else {
                _mm512_mask_storeu_ps(t.sums + i * t.sumsStride + 16 * j, mask(j), value);
            }
        }
    }
}

using TileFunction = void (*)(uint32_t, const float*, const float*, const TileTarget&, __mmask16, TileSteps,
                              const float*);

template <uint32_t R>
TileFunction TileFor(uint32_t vectors) {
    return vectors == 1 ? MultiplyTile<R, 1> : vectors == 2 ? MultiplyTile<R, 2> : MultiplyTile<R, 3>;
}

TileFunction TileFor(uint32_t rows, uint32_t vectors) {
    switch (rows) {
        case 1:
            return TileFor<1>(vectors);
        case 2:
            return TileFor<2>(vectors);
        case 3:
            return TileFor<3>(vectors);
        case 4:
            return TileFor<4>(vectors);
        case 5:
            return TileFor<5>(vectors);
        case 6:
            return TileFor<6>(vectors);
        case 7:
            return TileFor<7>(vectors);
        default:
            return TileFor<8>(vectors);
    }
}

// Copies input channels [k0, k0 + depth) of pixels [p0, p0 + count) into the panel `b` (rows of kPanel
// floats), converting FLOAT16; channel by channel, so that each input row is read in one stretch.
FREEDML_TARGET_AVX512 void PackPixels(const PointwisePlan& plan, const std::byte* input, uint32_t k0, uint32_t depth,
                                      uint32_t p0, uint32_t count, float* b) {
    const uint32_t vectors = (count + 15) / 16;
    const bool half = plan.type == DML_TENSOR_DATA_TYPE_FLOAT16;
    const int64_t channelBytes = plan.inChannelStride * (half ? 2 : 4);
    const int32_t* offsets = plan.pixelOffsets.data() + p0;
    __mmask16 masks[kVectors];
    __m512i indices[kVectors];
    bool runs = true;  // every vector reads consecutive elements
    for (uint32_t v = 0; v < vectors; ++v) {
        masks[v] = TailMask(count - 16 * v);
        indices[v] = _mm512_loadu_si512(offsets + 16 * v);
        runs = runs && plan.groupIsRun[p0 / 16 + v];  // p0 is a multiple of 16
    }
    const std::byte* channel = input + int64_t(k0) * channelBytes;
    if (!half && runs) {
        const float* row = reinterpret_cast<const float*>(channel) + offsets[0];
        const int64_t step = plan.inChannelStride;
        for (uint32_t k = 0; k < depth; ++k, row += step, b += kPanel) {
            for (uint32_t v = 0; v < vectors; ++v)
                _mm512_store_ps(b + 16 * v, _mm512_maskz_loadu_ps(masks[v], row + 16 * v));
        }
    } else if (!half) {
        for (uint32_t k = 0; k < depth; ++k, channel += channelBytes, b += kPanel) {
            for (uint32_t v = 0; v < vectors; ++v)
                _mm512_store_ps(b + 16 * v, _mm512_i32gather_ps(indices[v], channel, 4));
        }
    } else if (runs) {
        const uint16_t* row = reinterpret_cast<const uint16_t*>(channel) + offsets[0];
        const int64_t step = plan.inChannelStride;
        for (uint32_t k = 0; k < depth; ++k, row += step, b += kPanel) {
            for (uint32_t v = 0; v < vectors; ++v) {
                _mm512_store_ps(b + 16 * v, _mm512_cvtph_ps(_mm256_maskz_loadu_epi16(masks[v], row + 16 * v)));
            }
        }
    } else {
        // No 16-bit gather: the halves one by one (strided FLOAT16 inputs only).
        alignas(32) uint16_t gathered[16];
        for (uint32_t k = 0; k < depth; ++k, channel += channelBytes, b += kPanel) {
            for (uint32_t v = 0; v < vectors; ++v) {
                for (uint32_t j = 0; j < 16; ++j)
                    std::memcpy(&gathered[j], channel + int64_t(offsets[16 * v + j]) * 2, 2);
                _mm512_store_ps(b + 16 * v,
                                _mm512_cvtph_ps(_mm256_load_si256(reinterpret_cast<const __m256i*>(gathered))));
            }
        }
    }
}

// One item: rows [m0, m1) of the output, pixels [p0, p0 + count) of batch item n.
FREEDML_TARGET_AVX512 void RunItem(const PointwisePlan& plan, const float* packedFilter, const float* bias,
                                   const std::byte* input, std::byte* output, bool accumulate,
                                   const FusedActivation& activation, uint32_t n, uint32_t m0, uint32_t m1, uint32_t p0,
                                   uint32_t count) {
    alignas(64) float panel[kDepth * kPanel];
    alignas(64) float buffer[kMaxRowsPerItem * kPanel];  // FLOAT16: sums between depth chunks
    const bool half = plan.type == DML_TENSOR_DATA_TYPE_FLOAT16;
    const int64_t es = half ? 2 : 4;
    const std::byte* in = input + int64_t(n) * plan.inBatchStride * es;
    std::byte* out = output + (int64_t(n) * plan.outBatchStride + int64_t(m0) * plan.outChannelStride + p0) * es;
    // RELU (and none) in the registers; any other activation by a pass over the item's rows, in
    // floats: FLOAT16 then keeps its sums in the buffer until that pass has run.
    const bool inTile = activation.IsNone() || activation.type == DML_OPERATOR_ACTIVATION_RELU;
    TileTarget target{reinterpret_cast<float*>(out), plan.outChannelStride, nullptr, 0};
    if (half) {
        target.sums = buffer, target.sumsStride = kPanel;
        if (inTile) target.halves = reinterpret_cast<uint16_t*>(out), target.halvesStride = plan.outChannelStride;
        if (accumulate && !inTile) {
            for (uint32_t m = m0; m < m1; ++m) {
                ConvertHalfToFloat(reinterpret_cast<const uint16_t*>(out + int64_t(m - m0) * plan.outChannelStride * 2),
                                   buffer + (m - m0) * kPanel, count);
            }
        }
    }
    const uint32_t vectors = (count + 15) / 16, paddedRows = RoundUp(plan.outChannels, kRows);
    const __mmask16 tail = TailMask(count - 16 * (vectors - 1));
    const TileFunction full = TileFor(kRows, vectors);
    for (uint32_t k0 = 0; k0 < plan.inChannels; k0 += kDepth) {
        const uint32_t depth = std::min(kDepth, plan.inChannels - k0);
        PackPixels(plan, in, k0, depth, p0, count, panel);
        const float* chunk = packedFilter + uint64_t(k0) * paddedRows;
        const TileSteps steps{k0 == 0, k0 + depth == plan.inChannels, accumulate,
                              activation.type == DML_OPERATOR_ACTIVATION_RELU};
        for (uint32_t m = m0; m < m1; m += kRows) {
            const uint32_t rows = std::min(kRows, m1 - m);
            const TileFunction tile = rows == kRows ? full : TileFor(rows, vectors);
            const int64_t row = m - m0;
            const TileTarget at{target.sums + row * target.sumsStride, target.sumsStride,
                                target.halves ? target.halves + row * target.halvesStride : nullptr,
                                target.halvesStride};
            tile(depth, chunk + uint64_t(m) * depth, panel, at, tail, steps, bias ? bias + m : nullptr);
        }
    }
    if (inTile) return;
    for (uint32_t m = m0; m < m1; ++m) {
        float* sums = target.sums + (m - m0) * target.sumsStride;
        if (!half) {
            ApplyActivation(activation, sums, count);
            continue;
        }
        ApplyActivationForHalf(activation, sums, count);
        ConvertFloatToHalf(sums, reinterpret_cast<uint16_t*>(out + int64_t(m - m0) * plan.outChannelStride * 2), count);
    }
}

}  // namespace

void RunPointwise(const PointwisePlan& plan, const float* packedFilter, const float* bias, const std::byte* input,
                  std::byte* output, bool accumulate, const FusedActivation& activation,
                  const ParallelForFunction* parallelFor) {
    const uint32_t panels = (plan.pixels + kPanel - 1) / kPanel;
    const uint64_t items = uint64_t(plan.batch) * plan.rowBlocks * panels;
    std::atomic<uint64_t> next{0};
    // Items are claimed one by one, so that a worker that shares its core with another process takes
    // fewer; consecutive items share their rows of the filter.
    auto claim = [&](uint64_t, uint64_t) {
        for (uint64_t item = next.fetch_add(1, std::memory_order_relaxed); item < items;
             item = next.fetch_add(1, std::memory_order_relaxed)) {
            const uint32_t panel = uint32_t(item % panels), block = uint32_t(item / panels % plan.rowBlocks);
            const uint32_t n = uint32_t(item / panels / plan.rowBlocks);
            const uint32_t m0 = block * plan.rowsPerItem, m1 = std::min(plan.outChannels, m0 + plan.rowsPerItem);
            const uint32_t p0 = panel * kPanel;
            RunItem(plan, packedFilter, bias, input, output, accumulate, activation, n, m0, m1, p0,
                    std::min(kPanel, plan.pixels - p0));
        }
    };
    if (parallelFor && items > 1) {
        (*parallelFor)(items, 1, claim);
    } else {
        claim(0, items);
    }
}

#else  // not x86-64: MakePointwisePlan plans nothing, so nothing runs.

void RunPointwise(const PointwisePlan&, const float*, const float*, const std::byte*, std::byte*, bool,
                  const FusedActivation&, const ParallelForFunction*) {}

#endif

}  // namespace freedml::dml::cpu
