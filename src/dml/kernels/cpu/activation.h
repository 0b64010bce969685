// The activations GEMM, CONVOLUTION and ELEMENT_WISE_ADD1 accept as FusedActivation, applied in
// float after the operator's own math, and the standalone ACTIVATION_* operators' element-wise
// formulas (the same, plus SWISH and HARD_SWISH, which cannot be fused). Parameters are copied out
// of the application's desc by the one decode (ops/activation/activation_params.h). Packed floats run vectorized, on the CPU's widest instruction set.
#pragma once

#include <DirectML.h>

#include <cstddef>
#include <cstdint>

#include "common/thread_pool.h"
#include "common/status.h"
#include "dml/kernels/cpu/tensor_view.h"
#include "dml/kernels/cpu/thread_pool.h"
#include "dml/ops/activation/activation_params.h"

namespace freedml::dml::cpu {

// The CPU kernels apply the decoded parameters as they are (activation_params.h).
using FusedActivation = ActivationParams;

// The activation of one value.
float ApplyActivation(const FusedActivation& activation, float x);

// out[i] = activation(in[i]) over `count` packed floats; `out` may be `in` (the type switch happens
// once, outside the loop).
void ApplyActivation(const FusedActivation& activation, const float* in, float* out, size_t count);

// In place over `count` packed floats.
void ApplyActivation(const FusedActivation& activation, float* values, size_t count);

// ApplyActivation(activation, in, out, count) with `out` written past the caches (exp_avx512.h's
// RowStores::kPastCaches), for an output that ShouldStreamOutput (streaming_store.h); false
// (nothing written) where the activation has no such row on this CPU, and streaming_store.h's
// RunRow then serves.
bool ApplyActivationPastCaches(const FusedActivation& activation, const float* in, float* out, size_t count);

// In place over `count` packed floats that are then rounded to FLOAT16: SIGMOID, TANH and GELU
// through their cheaper forms for FLOAT16 results (vector_math.h), the others as above.
void ApplyActivationForHalf(const FusedActivation& activation, float* values, size_t count);

// out[i] = activation(in[i]) over `count` packed FLOAT16 elements, computed as
// ApplyActivationForHalf computes them, in one pass with the conversions inside the loop; false
// (nothing written) where the CPU lacks the conversion instructions. `out` may be `in`.
bool ApplyActivationToHalves(const FusedActivation& activation, const uint16_t* in, uint16_t* out, size_t count);

// In place over a FLOAT32 or FLOAT16 tensor of any strides, spread over `threads`.
void ApplyActivation(ThreadPool* threads, const FusedActivation& activation, TensorView tensor);

// The same with the rows shared out by `parallelFor` (thread_pool.h), in chunks of at least
// `minElementsPerChunk`: the pass that follows a oneDNN primitive when oneDNN cannot express the
// activation as a post-op runs on oneDNN's team (ApplyActivationBesideOneDnn in onednn.cpp).
void ApplyActivationOn(const ParallelForFunction& parallelFor, const FusedActivation& activation, TensorView tensor,
                       uint64_t minElementsPerChunk);

}  // namespace freedml::dml::cpu
