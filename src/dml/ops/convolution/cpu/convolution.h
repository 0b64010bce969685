// CPU kernel of CONVOLUTION: 1-, 2- and 3-D (tensors of rank DimensionCount + 2: NCW, NCHW,
// NCDHW), FORWARD and BACKWARD (transposed, with OutputPadding), CONVOLUTION (flipped filter) and
// CROSS_CORRELATION, strides, dilations, asymmetric padding, groups, optional bias {1, C, 1...},
// fused activation, and optionally the sum with what Output holds (a folded residual ADD); FLOAT32
// and FLOAT16 (FLOAT16 computes in float).
//
// Filter layouts, as DirectML and ONNX give them: FORWARD {OutputChannels, InputChannels / Groups,
// spatial...}; BACKWARD {InputChannels, OutputChannels / Groups, spatial...}.
//
// Create chooses, for a forward 1x1 convolution without padding or groups whose output keeps each
// channel's pixels packed (NCHW and its kin) on a plane of more than 64 pixels, FreeDML's own
// AVX-512 kernel (kernels/cpu/pointwise_avx512.h), which beats oneDNN's forms of it there. Otherwise
// it chooses oneDNN convolution_forward / deconvolution_forward when oneDNN is built in and no two
// elements of the input or output share an address (any order of strides: NCHW, NHWC, padded); the
// reference kernel otherwise. oneDNN reads the activations where they are when its implementation
// for their layout is a good one (NHWC), and otherwise, where blocking pays for its reorders, runs
// on blocked copies in the temporary resource (the input reordered in, the output reordered out; an
// input of up to four channels, a first layer's, is read as it is). A fused activation oneDNN has no
// post-op for (and the clamped output of a folded CLIP, which keeps NaN where oneDNN's clip would
// not) is applied by a pass after the primitive, over the output as one run when its elements fill
// their span (NCHW or NHWC alike). FLOAT16 reaches oneDNN through packed FLOAT32 copies of the input
// and output in the temporary resource (float32_copy.h) and a FLOAT32 filter. An owned filter is
// flipped (CONVOLUTION mode) and reordered into oneDNN's preferred layout in the persistent resource
// at Initialize; an unowned one is prepared in the temporary resource at every Execute.
#pragma once

#include <DirectML.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "common/thread_pool.h"
#include "common/status.h"
#include "dml/kernels/cpu/activation.h"
#include "dml/kernels/cpu/pointwise_avx512.h"
#include "dml/kernels/cpu/team_or_solo.h"
#include "dml/kernels/cpu/tensor_view.h"
#include "dml/tensor.h"

namespace freedml::dml::cpu {

constexpr uint32_t kMaxConvolutionSpatialDims = 3;

struct ConvolutionParams {
    TensorDesc input;
    TensorDesc filter;
    std::optional<TensorDesc> bias;
    TensorDesc output;
    DML_CONVOLUTION_MODE mode = DML_CONVOLUTION_MODE_CROSS_CORRELATION;
    DML_CONVOLUTION_DIRECTION direction = DML_CONVOLUTION_DIRECTION_FORWARD;
    uint32_t dimensionCount = 2;
    std::array<uint32_t, kMaxConvolutionSpatialDims> strides{1, 1, 1};
    std::array<uint32_t, kMaxConvolutionSpatialDims> dilations{1, 1, 1};
    std::array<uint32_t, kMaxConvolutionSpatialDims> startPadding{};
    std::array<uint32_t, kMaxConvolutionSpatialDims> endPadding{};
    std::array<uint32_t, kMaxConvolutionSpatialDims> outputPadding{};
    uint32_t groupCount = 1;
    FusedActivation activation;
    // The result is added to the values Output holds when Execute runs, before the activation
    // (OperatorArgs::accumulateOutput).
    bool accumulate = false;
    bool forceReference = false;  // tests and debugging: never use oneDNN
};

class ConvolutionKernel {
public:
    ConvolutionKernel();
    ~ConvolutionKernel();
    ConvolutionKernel(ConvolutionKernel&&) noexcept;
    ConvolutionKernel& operator=(ConvolutionKernel&&) noexcept;

    Status Create(const ConvolutionParams& params);
    uint64_t PersistentSizeInBytes() const { return persistentSize_; }
    uint64_t TemporarySizeInBytes() const { return temporarySize_; }
    // Views of the OWNED_BY_DML tensors (the others may have null data; bias ignored when absent).
    void Initialize(TensorView filter, TensorView bias, std::byte* persistent) const;
    void Execute(ThreadPool* threads, TensorView input, TensorView filter, TensorView bias, TensorView output,
                 std::byte* persistent, std::byte* temporary) const;

    bool UsesOneDnn() const { return oneDnn_ != nullptr; }
    bool UsesPointwiseKernel() const { return pointwise_ != nullptr; }
    const std::string& PathDescription() const { return path_; }

private:
    // The 1x1 kernel's plan and, where the work suits both, the choice between oneDNN's team and
    // the calling thread alone (team_or_solo.h).
    struct PointwiseState {
        PointwisePlan plan;
        bool hasSolo = false;     // the choice is measured
        bool alwaysSolo = false;  // too little work for a second thread
        mutable TeamOrSolo chooser;
        uint64_t filterOffset = 0, biasOffset = 0;  // an unowned filter (packed) and bias in the temporary resource
    };
    // The 1x1 kernel where it applies (sets pointwise_ and path_).
    void TryPointwise();
    uint64_t PlanPointwiseTemporary();  // lays out the temporary resource; returns its size
    void ExecutePointwise(ThreadPool* threads, TensorView input, TensorView filter, TensorView bias, TensorView output,
                          const std::byte* filterData, const std::byte* biasData, std::byte* temporary) const;
    struct OneDnnState;
    // oneDNN's part, in kernels/cpu/onednn.cpp (the one file that calls oneDNN).
    void TryOneDnn();
    uint64_t OneDnnOwnedFilterSize() const;  // an owned filter's bytes in the persistent resource
    uint64_t PlanOneDnnTemporary();          // lays out the temporary resource; returns its size
    void InitializeOneDnn(TensorView filter, TensorView bias, std::byte* persistent) const;
    void ExecuteOneDnn(ThreadPool* threads, TensorView input, TensorView filter, TensorView bias, TensorView output,
                       const std::byte* filterData, const std::byte* biasData, std::byte* temporary) const;
    void ExecuteReference(ThreadPool* threads, const std::byte* input, const std::byte* filter, const std::byte* bias,
                          std::byte* output) const;
    // Copies the filter into packed floats in its own dimension order, spatially reversed in
    // CONVOLUTION mode.
    void DenseFilter(ThreadPool* threads, TensorView filter, float* out) const;
    int64_t BiasByteStride() const;  // between the bias's channels

    ConvolutionParams params_;
    uint32_t inChannels_ = 0, outChannels_ = 0;
    uint64_t filterOffset_ = UINT64_MAX, biasOffset_ = UINT64_MAX;  // in the persistent resource
    uint64_t persistentSize_ = 0, temporarySize_ = 0;
    std::unique_ptr<PointwiseState> pointwise_;
    std::unique_ptr<OneDnnState> oneDnn_;
    std::string path_;
};

}  // namespace freedml::dml::cpu
