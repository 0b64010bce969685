// Plans of the quantized family's CUDA kernels (quantized.cu), made by cuda_quantized.cpp; plain
// data with no DirectML.h. Optional tensors ("slots") are absent when their type is `kNoTensor`; a
// tensor's strides are in elements, 0 where it broadcasts (size 1).
#pragma once

#include <cstdint>

#include "dml/kernels/cuda/ew_plan.h"

namespace freedml::dml::cuda::quantized {

constexpr int kRank = 8;
constexpr int kSlots = 9;

struct Operand {
    bool present = false;
    ElementType type = ElementType::I8;
    int64_t strides[kRank] = {};
};

enum class MatMulKind : uint8_t { Integer, QuantizedLinear, IntegerToFloat };

// Slots: A, AScale, AZeroPoint, B, BScale, BZeroPoint, Bias, OutputScale, OutputZeroPoint.
struct MatMulPlan {
    MatMulKind kind = MatMulKind::Integer;
    int rank = 2;
    uint32_t sizes[kRank] = {};  // the output's
    uint32_t depth = 0;          // K
    bool wide = false;           // an input wider than 8 bits: accumulate in int64
    Operand in[kSlots];
    Operand out;
};

// The cuBLASLt route of an 8-bit matrix multiply (cuda_quantized.cpp plans it). cuBLASLt's integer
// GEMM takes INT8 operands that are contiguous along K, so A (M x K) and B (as N x K) are copied
// into the temporary resource as INT8 (UINT8 minus 128, zero points shifted by as much, so the
// products stay exact), rows zero-padded to `paddedDepth`, with their row sums; cuBLASLt forms
// the INT32 product; one epilogue kernel subtracts the zero-point terms
//     (A' - za')(B' - zb') = A'B' - zb' rowsum(A') - za' colsum(B') + K za' zb'
// and applies the scales, bias and requantization as the tiled kernel does.
struct Int8Operand {
    bool isUnsigned = false;  // UINT8: stored minus 128
    bool pack = true;         // false: cuBLASLt reads it in place (INT8, K-contiguous, aligned)
    bool sums = false;        // its row sums are needed (the other operand has a zero point or is UINT8)
    uint32_t rows = 0;        // M for A, N for B
    uint32_t packedRows = 0;  // rows of the packed copy: B's rounded up to 4 (zero rows), A's as they are
    // Its own sizes and element strides over the output's batch dimensions, right-aligned into two.
    uint32_t batchSizes[2] = {1, 1};
    int64_t batchStrides[2] = {};
    int64_t rowStride = 0, depthStride = 0;  // elements
    // How the packing kernel loads it: 0 byte by byte; 1 four K-neighbours as one word (K
    // contiguous, other strides and the base multiples of 4); 2 four row-neighbours as one word
    // (rows contiguous: B as it usually is).
    uint8_t words = 0;
    uint32_t splits = 1;                       // K tiles of the packing kernel (each adds into the row sums)
    uint64_t packedOffset = 0, sumOffset = 0;  // bytes into the (aligned) temporary resource
    uint32_t blocks = 0;                       // packing blocks; 0 when neither copied nor summed
};

struct Int8GemmPlan {
    uint32_t depth = 0, paddedDepth = 0;  // K, and K rounded up to 16
    uint32_t batchSizes[2] = {1, 1};      // the output's, right-aligned into two
    Int8Operand a, b;
    uint64_t productOffset = 0;  // INT32 [batch][M][productStride] in the temporary
    uint32_t productStride = 0;
    MatMulPlan epilogue;  // kind, quantization tensors and output, as the tiled kernel's
};

// Rows per block of the packing kernel, and K per block (its partial-sum split).
constexpr uint32_t kPackRows = 32, kPackDepth = 256;

// Slots: Input, InputScale, InputZeroPoint, Filter, FilterScale, FilterZeroPoint, Bias,
// OutputScale, OutputZeroPoint. Spatial values right-aligned into 3 dimensions.
struct ConvPlan {
    bool quantizedOutput = false;
    int dims = 2;
    uint32_t batch = 1, inChannels = 1, outChannels = 1, groups = 1;
    int64_t inSize[3] = {1, 1, 1}, kernelSize[3] = {1, 1, 1}, outSize[3] = {1, 1, 1};
    int64_t stride[3] = {1, 1, 1}, dilation[3] = {1, 1, 1}, pad[3] = {0, 0, 0};
    Operand in[kSlots];  // Input and Filter strides: {N/OC, C, spatial right-aligned at 2..4}
    Operand out;         // strides {N, C, spatial right-aligned at 2..4}
};

// Slots: Input, InputScale, InputZeroPoint, OutputScale, OutputZeroPoint.
struct PoolPlan {
    bool includePadding = false;
    uint32_t batch = 1, channels = 1;
    int64_t inSize[3] = {1, 1, 1}, outSize[3] = {1, 1, 1};
    int64_t stride[3] = {1, 1, 1}, window[3] = {1, 1, 1}, dilation[3] = {1, 1, 1}, pad[3] = {0, 0, 0};
    Operand in[5];
    Operand out;
};

struct DynamicQuantizePlan {
    int rank = 1;
    uint32_t sizes[kRank] = {};
    uint64_t count = 0;
    Operand in, out;
};

// `in` holds kSlots (or 5) device addresses, null for absent tensors.
cudaError_t LaunchQuantizedMatMul(const MatMulPlan& plan, const void* const* in, void* out, LaunchTarget launch);
// The packing kernel (A and B in one launch), and the epilogue; `temp` is the aligned temporary.
cudaError_t LaunchInt8Pack(const Int8GemmPlan& plan, const void* a, const void* b, void* temp, LaunchTarget launch);
cudaError_t LaunchInt8Epilogue(const Int8GemmPlan& plan, const void* const* in, const void* temp, void* out,
                               LaunchTarget launch);
cudaError_t LaunchQuantizedConv(const ConvPlan& plan, const void* const* in, void* out, LaunchTarget launch);
cudaError_t LaunchQuantizedPool(const PoolPlan& plan, const void* const* in, void* out, LaunchTarget launch);
cudaError_t LaunchDynamicQuantize(const DynamicQuantizePlan& plan, const void* in, void* out, void* scale,
                                  void* zeroPoint, LaunchTarget launch);

}  // namespace freedml::dml::cuda::quantized
