// EXP, SIGMOID and GELU over packed floats in AVX-512 instructions, for the rows whose time is the
// exponential's arithmetic (a large EXP, SIGMOID or GELU runs at the speed of its math, not of memory).
// vector_math.h's ExpF computes 2^k with integer operations that any instruction set vectorizes,
// in two factors so that a subnormal result rounds once; AVX-512 does that in one instruction
// (VSCALEFPS, which rounds once and gives infinity and zero at the ends), rounds k with another
// (VRNDSCALEPS) and evaluates the same Taylor polynomial with fused multiply-adds: about half the
// instructions, within 0.9 ulp instead of 1.3. Callers pick these rows only where UseAvx512().
//
// Each row writes through the caches, or past them (RowStores::kPastCaches): for an output too large
// to stay cached (streaming_store.h's ShouldStreamOutput), each vector goes from its register to
// memory with a non-temporal store, which saves StreamRow's copy out of an L1 tile.
#pragma once

#include <cstddef>

namespace freedml::dml::cpu {

// kPastCaches: ordinary stores up to the output's first 64-byte boundary and for the last partial
// vector, non-temporal stores between, and a StreamFence at the end (an output that is not
// 4-byte aligned is written through the caches); the input is prefetched 1 KiB ahead.
enum class RowStores { kCached, kPastCaches };

// out[i] = e^in[i]; 0 at -infinity and below -104, infinity from 89, NaN stays NaN. `out` may be
// `in`.
void ExpRowAvx512(const float* in, float* out, size_t n, RowStores stores = RowStores::kCached);

// out[i] = e^(in[i] * scale + bias), the product and the sum rounded separately (as the other rows
// of DML_SCALE_BIAS).
void ExpRowAvx512(const float* in, float* out, size_t n, float scale, float bias,
                  RowStores stores = RowStores::kCached);

// out[i] = 1 / (1 + e^-in[i]): 0 at -infinity, 1 at +infinity, NaN stays NaN.
void SigmoidRowAvx512(const float* in, float* out, size_t n, RowStores stores = RowStores::kCached);

// out[i] = GELU(in[i]), vector_math.h's GeluF with fused multiply-adds in fewer instructions (2^k by
// VSCALEFPS, a reciprocal instead of a division); within its bounds.
void GeluRowAvx512(const float* in, float* out, size_t n, RowStores stores = RowStores::kCached);

}  // namespace freedml::dml::cpu
