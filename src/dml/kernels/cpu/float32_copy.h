// FLOAT32 working copies of FLOAT16 tensors, for the kernels whose fast path (oneDNN's GEMM and
// convolution) computes in float only: a tensor is converted into a packed FLOAT32 copy of the
// same sizes (in the temporary resource, or once at initialization for an owned tensor), the
// kernel runs on the copies, and its FLOAT32 result is rounded once into the FLOAT16 output.
// Converting costs one pass over each operand, which the O(n^3) or O(n k^2) work of the dense
// kernels hides; FLOAT16 keeps every bit of its value in float, so the result equals the FLOAT32
// computation on the same values.
#pragma once

#include <cstdint>
#include <functional>

#include "common/thread_pool.h"
#include "dml/kernels/cpu/thread_pool.h"
#include "dml/kernels/cpu/tensor_view.h"
#include "dml/tensor.h"

namespace freedml::dml::cpu {

// A packed FLOAT32 tensor of `desc`'s sizes and flags (strides packed, broadcasts expanded).
TensorDesc PackedFloat32Like(const TensorDesc& desc);

// to <- from, element by element over their common sizes; each is FLOAT16 or FLOAT32 with any
// strides (zero strides of `from` broadcast). Large tensors are split over `threads`.
void ConvertTensor(ThreadPool* threads, TensorView from, TensorView to);

// The same with the rows shared out by `parallelFor(count, minChunk, body)` (oneDNN's OpenMP team
// where the conversion sits between oneDNN primitives), in chunks of at least `minElementsPerChunk`.
void ConvertTensorOn(const ParallelForFunction& parallelFor, TensorView from, TensorView to,
                     uint64_t minElementsPerChunk);

// ConvertTensor for the operands of a oneDNN primitive (onednn.cpp): shared out on oneDNN's own
// OpenMP team, whose threads are still polling just before and after a primitive, so that even a
// small tensor is converted on every core without waking a second set of threads; on `threads`
// where oneDNN runs on another runtime or is absent.
void ConvertTensorBesideOneDnn(ThreadPool* threads, TensorView from, TensorView to);

}  // namespace freedml::dml::cpu
