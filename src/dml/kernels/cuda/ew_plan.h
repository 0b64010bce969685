// Plain descriptions of element-wise launches, shared by the planning code (C++, compiled by the
// host compiler with the DirectML headers) and the CUDA code (compiled by nvcc, which never sees
// DirectML.h). Operand 0 is the one written; strides are in elements and may be 0 (broadcast).
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "backend/cuda/launch.h"
#include "dml/kernels/loop_merge.h"

namespace freedml::dml::cuda {

using backend::cuda::LaunchTarget;  // every Launch* below takes one: the stream and its device's facts

constexpr int kMaxDims = 8;

enum class ElementType : uint8_t { F32, F16, F64, I8, U8, I16, U16, I32, U32, I64, U64 };

// The CUDA kernels' forms of dml/tensor.h's IsFloatingPoint (FLOAT64 included) and IsFloat16Or32,
// for code that sees only ElementType.
constexpr bool IsFloatingPoint(ElementType type) {
    return type == ElementType::F32 || type == ElementType::F16 || type == ElementType::F64;
}
constexpr bool IsFloat16Or32(ElementType type) { return type == ElementType::F32 || type == ElementType::F16; }

inline uint32_t ElementBytes(ElementType type) {
    switch (type) {
        case ElementType::I8: case ElementType::U8: return 1;
        case ElementType::F16: case ElementType::I16: case ElementType::U16: return 2;
        case ElementType::F32: case ElementType::I32: case ElementType::U32: return 4;
        default: return 8;
    }
}

// The activations DirectML fuses (FusedActivation), and IDENTITY's ScaleBias as Linear; Swish and
// HardSwish only as standalone operators (DirectML does not fuse them).
enum class Act : uint8_t {
    None,
    Linear,
    Sigmoid,
    HardSigmoid,
    Tanh,
    ScaledTanh,
    Relu,
    LeakyRelu,
    ThresholdedRelu,
    Elu,
    Celu,
    ScaledElu,
    Softplus,
    ParametricSoftplus,
    Softsign,
    Shrink,
    Gelu,
    Swish,
    HardSwish,
    Clip  // OperatorArgs' clampOutput epilogue: alpha = Min, beta = Max
};

// Parameters as in the CPU kernels' FusedActivation (activation.h there); Swish: alpha =
// SigmoidInputScale; HardSwish: alpha = Alpha, beta = Beta.
struct ActParams {
    Act act = Act::None;
    float alpha = 0.0f, beta = 0.0f, gamma = 0.0f;
};

// A loop over a common shape for N operands, dimensions of size 1 dropped and dimensions that
// are contiguous in every operand merged (so a packed tensor is rank 1).
template <int N>
struct EwPlan {
    int rank = 0;  // 0: a single element
    uint64_t count = 1;
    uint64_t sizes[kMaxDims] = {};
    int64_t strides[N][kMaxDims] = {};

    // Rank <= 1 with unit strides, inputs possibly broadcast scalars (stride 0): the fast path.
    bool Packed() const {
        if (rank == 0) return true;
        if (rank > 1 || strides[0][0] != 1) return false;
        for (int k = 1; k < N; ++k) {
            if (strides[k][0] != 1 && strides[k][0] != 0) return false;
        }
        return true;
    }
};

// `sizes` is the shape (rank dims); `strides[k]` operand k's element strides over it.
template <int N>
EwPlan<N> MakeEwPlan(const uint32_t* sizes, uint32_t rank, const int64_t (*strides)[kMaxDims]) {
    EwPlan<N> plan;
    for (uint32_t d = 0; d < rank; ++d) plan.count *= sizes[d];
    auto stride = [&](size_t k, uint32_t d) { return strides[k][d]; };
    plan.rank = int(MergeLoopDimensions<size_t(N)>(sizes, rank, stride, plan.sizes, plan.strides));
    return plan;
}

// ---- Launchers (elementwise_ops.cu). Each returns the launch's error; nothing synchronizes. ----

// out = in, moving elements of `elementBytes` (1, 2, 4 or 8) bytes: IDENTITY, JOIN, packing.
cudaError_t LaunchCopy(const EwPlan<2>& plan, uint32_t elementBytes, void* out, const void* in, LaunchTarget launch);
// out = act(in) for F32, F16 and F64 (in may equal out): ScaleBias, activation epilogues.
cudaError_t LaunchActivation(const EwPlan<2>& plan, ElementType type, const ActParams& act, void* out, const void* in,
                             LaunchTarget launch);
// out = act(a + b); integers wrap around and take no activation: ADD, ADD1, bias epilogues.
cudaError_t LaunchAdd(const EwPlan<3>& plan, ElementType type, const ActParams& act, void* out, const void* a,
                      const void* b, LaunchTarget launch);

}  // namespace freedml::dml::cuda
