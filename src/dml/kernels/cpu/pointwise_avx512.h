// A 1x1 convolution on planar activations (NCHW and its 1-D and 3-D kin: each channel's pixels
// apart from the other channels'), computed in AVX-512 as the matrix product it is: per batch item,
// Output[m][p] = Bias[m] + sum over k of Filter[m][k] * Input[k][pixel p's input element].
//
// oneDNN 2.6 runs this form through its GEMM-based convolution at about half of the FMA peak, or on
// blocked copies of the activations whose reorders cost more than blocking saves on a large plane
// (bench/analysis.md item 13). Here the filter is packed once into panels of 8 output channels; a
// worker copies 48 pixels x 256 input channels of the input into a panel that stays in L1 and
// multiplies every filter panel by it into 24 accumulators (8 channels x 3 vectors of 16 pixels),
// with the bias, a folded residual sum, the fused activation and FLOAT16's conversions done on the
// way in or out. Work is claimed in items of (batch, 48 pixels, up to 256 output channels), so
// that a worker whose core is busy takes fewer of them.
#pragma once

#include <DirectML.h>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "dml/kernels/cpu/activation.h"
#include "dml/kernels/cpu/thread_pool.h"
#include "dml/tensor.h"

namespace freedml::dml::cpu {

// How one convolution's product is laid out, from its tensors (MakePointwisePlan).
struct PointwisePlan {
    DML_TENSOR_DATA_TYPE type = DML_TENSOR_DATA_TYPE_FLOAT32;  // input and output; FLOAT32 or FLOAT16
    uint32_t batch = 0, outChannels = 0, inChannels = 0;
    uint32_t pixels = 0;  // output pixels per channel, packed in the output
    int64_t inBatchStride = 0, inChannelStride = 0, outBatchStride = 0, outChannelStride = 0;  // elements
    // Where output pixel p reads in its input channel (elements), padded with the last one to a
    // multiple of 16; and for each 16 pixels whether they read 16 consecutive elements.
    std::vector<int32_t> pixelOffsets;
    std::vector<uint8_t> groupIsRun;
    uint32_t rowsPerItem = 0;  // output channels one work item computes (a multiple of 8)
    uint32_t rowBlocks = 0;    // items along the output channels
};

// The plan for a forward 1x1 convolution of `input` into `output` with these spatial strides (the
// convolution's, `dims` of them) and no padding, or nothing where this kernel does not run it: a
// CPU without AVX-512 (or F16C for FLOAT16), an output whose pixels are not packed in each channel
// or whose elements share an address, an input channel wider than 2^31 elements. The caller has
// checked the window, groups, padding and direction.
std::optional<PointwisePlan> MakePointwisePlan(const TensorDesc& input, const TensorDesc& output,
                                               const uint32_t* strides, uint32_t dims);

// Floats of the packed filter: output channels rounded up to 8, times the input channels.
uint64_t PointwisePackedFilterFloats(const PointwisePlan& plan);

// Packs a FLOAT32 or FLOAT16 filter {OutputChannels, InputChannels, 1...} of any strides into
// `packed` (PointwisePackedFilterFloats of them), its panels shared out by `parallelFor` (null: on
// the calling thread).
void PackPointwiseFilter(const PointwisePlan& plan, const TensorDesc& filter, const std::byte* data, float* packed,
                         const ParallelForFunction* parallelFor);

// Output = Input x Filter + Bias (`bias`: outChannels floats, or null), plus the values Output held
// where `accumulate`, then `activation`. Items are shared out by `parallelFor` (null: all on the
// calling thread).
void RunPointwise(const PointwisePlan& plan, const float* packedFilter, const float* bias, const std::byte* input,
                  std::byte* output, bool accumulate, const FusedActivation& activation,
                  const ParallelForFunction* parallelFor);

}  // namespace freedml::dml::cpu
