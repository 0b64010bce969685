// A batch of FLOAT32 matrices transposed in AVX-512: what turns planar activations (NCHW: per batch
// item a channels x pixels matrix) into channels-last ones (NHWC: pixels x channels) and back.
// oneDNN 2.6's brgemm convolutions run on channels-last activations, and its generic reorder
// between the two layouts moves 6-7 GB/s on a Xeon core, a fifth of a 3x3 convolution's time on
// ResNet-50's planes; this one transposes 16 x 16 blocks in registers (four rounds of shuffles) at
// the speed of memory.
#pragma once

#include <cstdint>

#include "dml/kernels/cpu/thread_pool.h"

namespace freedml::dml::cpu {

// out[b][c][r] = in[b][r][c] for `batch` packed row-major matrices of rows x columns (`out` holds
// columns x rows each). Blocks of 64 x 64 are shared out by `parallelFor` (null: all on the calling
// thread). Callers use it only where UseAvx512() (cpu_isa.h); `in` and `out` do not overlap.
void TransposeMatricesAvx512(const float* in, float* out, uint64_t batch, uint64_t rows, uint64_t columns,
                             const ParallelForFunction* parallelFor);

}  // namespace freedml::dml::cpu
