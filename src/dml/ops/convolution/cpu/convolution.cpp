#include "dml/ops/convolution/cpu/convolution.h"

#include <algorithm>
#include <cstring>
#include <unordered_map>
#include <vector>

#include "dml/kernels/cpu/float16.h"
#include "dml/kernels/cpu/float32_copy.h"
#include "dml/kernels/cpu/kernel_adapter.h"
#include "dml/kernels/cpu/thread_pool.h"

namespace freedml::dml::cpu {
namespace {

constexpr uint64_t kAlign = 64;
uint64_t AlignUp(uint64_t v) { return (v + kAlign - 1) / kAlign * kAlign; }

inline float LoadOne(DML_TENSOR_DATA_TYPE type, const std::byte* p) {
    if (type == DML_TENSOR_DATA_TYPE_FLOAT32) {
        float v;
        std::memcpy(&v, p, 4);
        return v;
    }
    uint16_t h;
    std::memcpy(&h, p, 2);
    return HalfToFloat(h);
}

// A tensor's spatial sizes and strides, right-aligned into 3 dimensions (leading ones of size 1).
struct Spatial3 {
    std::array<int64_t, 3> size{1, 1, 1};
    std::array<int64_t, 3> stride{0, 0, 0};
};

Spatial3 SpatialOf(const TensorDesc& desc, uint32_t dims) {
    Spatial3 s;
    for (uint32_t i = 0; i < dims; ++i) {
        s.size[3 - dims + i] = desc.sizes[2 + i];
        s.stride[3 - dims + i] = desc.strides[2 + i];
    }
    return s;
}

// A plane of at most this many output pixels stays with oneDNN's blocked 1x1 convolution: the
// 48-pixel panels of the 1x1 kernel would be partly empty (7 x 7 = 49 pixels fill two).
constexpr uint64_t kPointwiseMinPixels = 64;

}  // namespace

void ConvolutionKernel::TryPointwise() {
    pointwise_.reset();
    const ConvolutionParams& p = params_;
    if (p.forceReference || p.direction != DML_CONVOLUTION_DIRECTION_FORWARD || p.groupCount != 1) return;
    const uint32_t dims = p.dimensionCount;
    uint64_t pixels = 1;
    for (uint32_t i = 0; i < dims; ++i) {
        if (p.filter.sizes[2 + i] != 1 || p.startPadding[i] != 0 || p.endPadding[i] != 0) return;
        pixels *= p.output.sizes[2 + i];
    }
    // Planar input (each row of pixels at consecutive addresses): a channels-last input goes to
    // oneDNN's kernels for it instead of a gather per 16 pixels.
    if (pixels <= kPointwiseMinPixels || p.input.strides[p.input.rank - 1] != 1) return;
    std::optional<PointwisePlan> plan = MakePointwisePlan(p.input, p.output, p.strides.data(), dims);
    if (!plan) return;
    auto state = std::make_unique<PointwiseState>();
    state->plan = std::move(*plan);
    const double work = double(p.output.ElementCount()) * double(inChannels_);
    state->alwaysSolo = work <= kOneThreadWork;
    state->hasSolo = !state->alwaysSolo && work <= kSoloTwinWork;
    path_ = "FreeDML 1x1 convolution (AVX-512, 8 x 48 tiles)";
    if (state->hasSolo) path_ += "; a one-thread twin for busy cores";
    pointwise_ = std::move(state);
}

uint64_t ConvolutionKernel::PlanPointwiseTemporary() {
    PointwiseState& s = *pointwise_;
    uint64_t t = 0;
    if (!params_.filter.OwnedByDml()) s.filterOffset = t, t = AlignUp(t + PointwisePackedFilterFloats(s.plan) * 4);
    if (params_.bias && !params_.bias->OwnedByDml()) s.biasOffset = t, t = AlignUp(t + uint64_t(outChannels_) * 4);
    return t;
}

void ConvolutionKernel::ExecutePointwise(ThreadPool* threads, TensorView input, TensorView filter, TensorView bias,
                                         TensorView output, const std::byte* filterData, const std::byte* biasData,
                                         std::byte* temporary) const {
    const PointwiseState& s = *pointwise_;
    const FormChoice choice = s.hasSolo ? ChooseForm(s.chooser) : FormChoice{s.alwaysSolo, -1};
    // On oneDNN's team, whose threads the convolutions before and after this one keep polling.
    const ParallelForFunction team = BesideOneDnn(threads);
    const ParallelForFunction* parallelFor = choice.solo ? nullptr : &team;
    if (filterOffset_ == UINT64_MAX) {
        float* packed = reinterpret_cast<float*>(temporary + s.filterOffset);
        PackPointwiseFilter(s.plan, params_.filter, filter.data, packed, parallelFor);
        filterData = reinterpret_cast<const std::byte*>(packed);
    }
    if (params_.bias && biasOffset_ == UINT64_MAX) {
        float* dense = reinterpret_cast<float*>(temporary + s.biasOffset);
        LoadFloats(params_.bias->dataType, bias.data, BiasByteStride(), dense, outChannels_);
        biasData = temporary + s.biasOffset;
    }
    RunPointwise(s.plan, reinterpret_cast<const float*>(filterData), reinterpret_cast<const float*>(biasData),
                 input.data, output.data, params_.accumulate, params_.activation, parallelFor);
    if (s.hasSolo) RecordForm(s.chooser, choice);
}

Status ConvolutionKernel::Create(const ConvolutionParams& params) {
    const TensorDesc &in = params.input, &filter = params.filter, &out = params.output;
    const DML_TENSOR_DATA_TYPE type = out.dataType;
    const uint32_t dims = params.dimensionCount;
    INVALID_IF(type != DML_TENSOR_DATA_TYPE_FLOAT32 && type != DML_TENSOR_DATA_TYPE_FLOAT16,
               "CONVOLUTION supports FLOAT32 and FLOAT16 on the CPU (%s given).", DataTypeName(type));
    INVALID_IF(in.dataType != type || filter.dataType != type || (params.bias && params.bias->dataType != type),
               "CONVOLUTION needs one data type for Input, Filter, Bias and Output.");
    INVALID_IF(dims < 1 || dims > kMaxConvolutionSpatialDims, "CONVOLUTION's DimensionCount (%u) must be 1 to 3.",
               dims);
    INVALID_IF(in.rank != dims + 2 || filter.rank != dims + 2 || out.rank != dims + 2,
               "CONVOLUTION with DimensionCount %u needs rank-%u Input, Filter and Output (%u, %u, %u given).", dims,
               dims + 2, in.rank, filter.rank, out.rank);
    const uint32_t groups = params.groupCount;
    INVALID_IF(groups == 0 || in.sizes[1] % groups != 0 || out.sizes[1] % groups != 0,
               "CONVOLUTION's GroupCount (%u) must divide the input (%u) and output (%u) channels.", groups,
               in.sizes[1], out.sizes[1]);
    INVALID_IF(in.sizes[0] != out.sizes[0], "CONVOLUTION's Input and Output batch sizes differ (%u, %u).",
               in.sizes[0], out.sizes[0]);
    const bool backward = params.direction == DML_CONVOLUTION_DIRECTION_BACKWARD;
    const uint32_t cin = in.sizes[1], cout = out.sizes[1];
    const uint32_t expect0 = backward ? cin : cout, expect1 = backward ? cout / groups : cin / groups;
    INVALID_IF(filter.sizes[0] != expect0 || filter.sizes[1] != expect1,
               "CONVOLUTION's Filter %s should be {%u, %u, ...} for these channels and groups.",
               filter.Describe().c_str(), expect0, expect1);
    if (params.bias) {
        const TensorDesc& bias = *params.bias;
        uint64_t count = bias.ElementCount();
        INVALID_IF(bias.rank < 2 || bias.sizes[1] != cout || count != cout,
                   "CONVOLUTION's Bias %s should be {1, %u, 1, ...}.", bias.Describe().c_str(), cout);
    }
    for (uint32_t i = 0; i < dims; ++i) {
        INVALID_IF(params.strides[i] == 0 || params.dilations[i] == 0,
                   "CONVOLUTION's Strides and Dilations must be at least 1.");
    }
    params_ = params;
    inChannels_ = cin;
    outChannels_ = cout;
    TryPointwise();
    if (!pointwise_) TryOneDnn();

    uint64_t offset = 0;
    filterOffset_ = biasOffset_ = UINT64_MAX;
    if (filter.OwnedByDml()) {
        filterOffset_ = offset;
        uint64_t size = filter.MinimumSizeInBytes();
        if (pointwise_) size = PointwisePackedFilterFloats(pointwise_->plan) * 4;
        if (oneDnn_) size = OneDnnOwnedFilterSize();
        offset = AlignUp(offset + size);
    }
    if (params.bias && params.bias->OwnedByDml()) {
        biasOffset_ = offset;
        offset = AlignUp(offset + (oneDnn_ || pointwise_ ? uint64_t(cout) * 4 : params.bias->MinimumSizeInBytes()));
    }
    persistentSize_ = offset;

    temporarySize_ = pointwise_ ? PlanPointwiseTemporary() : oneDnn_ ? PlanOneDnnTemporary() : 0;
    return Status::Ok();
}

void ConvolutionKernel::DenseFilter(ThreadPool* threads, TensorView filter, float* out) const {
    const TensorDesc& f = params_.filter;
    if (params_.mode != DML_CONVOLUTION_MODE_CONVOLUTION) {
        const TensorDesc dense = PackedFloat32Like(f);
        ConvertTensor(threads, filter, TensorView{&dense, reinterpret_cast<std::byte*>(out)});
        return;
    }
    const DML_TENSOR_DATA_TYPE type = f.dataType;
    const int64_t es = ElementSizeInBytes(type);
    const Spatial3 s = SpatialOf(f, params_.dimensionCount);
    uint64_t o = 0;
    for (uint32_t i0 = 0; i0 < f.sizes[0]; ++i0)
        for (uint32_t i1 = 0; i1 < f.sizes[1]; ++i1)
            for (int64_t d = 0; d < s.size[0]; ++d)
                for (int64_t h = 0; h < s.size[1]; ++h)
                    for (int64_t w = 0; w < s.size[2]; ++w) {
                        int64_t e = int64_t(i0) * f.strides[0] + int64_t(i1) * f.strides[1] +
                                    (s.size[0] - 1 - d) * s.stride[0] + (s.size[1] - 1 - h) * s.stride[1] +
                                    (s.size[2] - 1 - w) * s.stride[2];
                        out[o++] = LoadOne(type, filter.data + e * es);
                    }
}

int64_t ConvolutionKernel::BiasByteStride() const {
    return int64_t(params_.bias->strides[1]) * ElementSizeInBytes(params_.bias->dataType);
}

void ConvolutionKernel::Initialize(TensorView filter, TensorView bias, std::byte* persistent) const {
    if (pointwise_) {
        if (filterOffset_ != UINT64_MAX) {
            PackPointwiseFilter(pointwise_->plan, params_.filter, filter.data,
                                reinterpret_cast<float*>(persistent + filterOffset_), nullptr);
        }
        if (biasOffset_ != UINT64_MAX) {
            LoadFloats(params_.bias->dataType, bias.data, BiasByteStride(),
                       reinterpret_cast<float*>(persistent + biasOffset_), outChannels_);
        }
        return;
    }
    if (oneDnn_) {
        InitializeOneDnn(filter, bias, persistent);
        return;
    }
    if (filterOffset_ != UINT64_MAX) {
        std::memcpy(persistent + filterOffset_, filter.data, params_.filter.MinimumSizeInBytes());
    }
    if (biasOffset_ != UINT64_MAX) std::memcpy(persistent + biasOffset_, bias.data, params_.bias->MinimumSizeInBytes());
}

void ConvolutionKernel::Execute(ThreadPool* threads, TensorView input, TensorView filter, TensorView bias,
                                TensorView output, std::byte* persistent, std::byte* temporary) const {
    const std::byte* filterData = filterOffset_ != UINT64_MAX ? persistent + filterOffset_ : filter.data;
    const std::byte* biasData = !params_.bias ? nullptr : biasOffset_ != UINT64_MAX ? persistent + biasOffset_ : bias.data;
    if (pointwise_) {
        ExecutePointwise(threads, input, filter, bias, output, filterData, biasData, temporary);
        return;
    }
    if (!oneDnn_) {
        ExecuteReference(threads, input.data, filterData, biasData, output.data);
        return;
    }
    ExecuteOneDnn(threads, input, filter, bias, output, filterData, biasData, temporary);
}

void ConvolutionKernel::ExecuteReference(ThreadPool* threads, const std::byte* input, const std::byte* filter,
                                         const std::byte* bias, std::byte* output) const {
    const ConvolutionParams& p = params_;
    const DML_TENSOR_DATA_TYPE type = p.output.dataType;
    const int64_t es = ElementSizeInBytes(type);
    const uint32_t dims = p.dimensionCount;
    const bool backward = p.direction == DML_CONVOLUTION_DIRECTION_BACKWARD;
    const bool flip = p.mode == DML_CONVOLUTION_MODE_CONVOLUTION;
    const Spatial3 is = SpatialOf(p.input, dims), fs = SpatialOf(p.filter, dims), os = SpatialOf(p.output, dims);
    std::array<int64_t, 3> stride{1, 1, 1}, dil{1, 1, 1}, pad{0, 0, 0};
    for (uint32_t i = 0; i < dims; ++i) {
        stride[3 - dims + i] = p.strides[i];
        dil[3 - dims + i] = p.dilations[i];
        pad[3 - dims + i] = p.startPadding[i];
    }
    const uint32_t groups = p.groupCount;
    const uint32_t cig = inChannels_ / groups, cog = outChannels_ / groups;
    const uint32_t batch = p.output.sizes[0];
    const int64_t ow = os.size[2];

    ParallelFor(threads, uint64_t(batch) * outChannels_, 1, [&](uint64_t first, uint64_t last) {
        std::vector<float> row(static_cast<size_t>(ow));
        for (uint64_t job = first; job < last; ++job) {
            const uint32_t n = uint32_t(job / outChannels_), oc = uint32_t(job % outChannels_);
            const uint32_t g = oc / cog, ocg = oc % cog;
            const float biasValue = bias ? LoadOne(type, bias + int64_t(oc) * p.bias->strides[1] * es) : 0.0f;
            const std::byte* inBatch = input + int64_t(n) * p.input.strides[0] * es;
            std::byte* outChannel = output + (int64_t(n) * p.output.strides[0] + int64_t(oc) * p.output.strides[1]) * es;
            for (int64_t o0 = 0; o0 < os.size[0]; ++o0) {
                for (int64_t o1 = 0; o1 < os.size[1]; ++o1) {
                    for (int64_t o2 = 0; o2 < ow; ++o2) {
                        const std::array<int64_t, 3> o{o0, o1, o2};
                        float acc = 0.0f;
                        for (uint32_t icg = 0; icg < cig; ++icg) {
                            const uint32_t ic = g * cig + icg;
                            const std::byte* inChannel = inBatch + int64_t(ic) * p.input.strides[1] * es;
                            // Forward filter {OC, IC/G, k}; backward filter {IC, OC/G, k}.
                            const std::byte* fChannel =
                                filter + (backward ? int64_t(ic) * p.filter.strides[0] + int64_t(ocg) * p.filter.strides[1]
                                                   : int64_t(oc) * p.filter.strides[0] + int64_t(icg) * p.filter.strides[1]) * es;
                            for (int64_t k0 = 0; k0 < fs.size[0]; ++k0) {
                                int64_t i0;
                                if (!backward) {
                                    i0 = o[0] * stride[0] + k0 * dil[0] - pad[0];
                                    if (i0 < 0 || i0 >= is.size[0]) continue;
                                } else {
                                    int64_t t = o[0] + pad[0] - k0 * dil[0];
                                    if (t < 0 || t % stride[0]) continue;
                                    i0 = t / stride[0];
                                    if (i0 >= is.size[0]) continue;
                                }
                                for (int64_t k1 = 0; k1 < fs.size[1]; ++k1) {
                                    int64_t i1;
                                    if (!backward) {
                                        i1 = o[1] * stride[1] + k1 * dil[1] - pad[1];
                                        if (i1 < 0 || i1 >= is.size[1]) continue;
                                    } else {
                                        int64_t t = o[1] + pad[1] - k1 * dil[1];
                                        if (t < 0 || t % stride[1]) continue;
                                        i1 = t / stride[1];
                                        if (i1 >= is.size[1]) continue;
                                    }
                                    for (int64_t k2 = 0; k2 < fs.size[2]; ++k2) {
                                        int64_t i2;
                                        if (!backward) {
                                            i2 = o[2] * stride[2] + k2 * dil[2] - pad[2];
                                            if (i2 < 0 || i2 >= is.size[2]) continue;
                                        } else {
                                            int64_t t = o[2] + pad[2] - k2 * dil[2];
                                            if (t < 0 || t % stride[2]) continue;
                                            i2 = t / stride[2];
                                            if (i2 >= is.size[2]) continue;
                                        }
                                        const int64_t f0 = flip ? fs.size[0] - 1 - k0 : k0;
                                        const int64_t f1 = flip ? fs.size[1] - 1 - k1 : k1;
                                        const int64_t f2 = flip ? fs.size[2] - 1 - k2 : k2;
                                        const float x = LoadOne(type, inChannel + (i0 * is.stride[0] + i1 * is.stride[1] +
                                                                                   i2 * is.stride[2]) * es);
                                        const float w = LoadOne(type, fChannel + (f0 * fs.stride[0] + f1 * fs.stride[1] +
                                                                                  f2 * fs.stride[2]) * es);
                                        acc += x * w;
                                    }
                                }
                            }
                        }
                        row[size_t(o2)] = acc + biasValue;
                    }
                    std::byte* rowOut = outChannel + (o0 * os.stride[0] + o1 * os.stride[1]) * es;
                    if (p.accumulate) {
                        for (int64_t o2 = 0; o2 < ow; ++o2) row[size_t(o2)] += LoadOne(type, rowOut + o2 * os.stride[2] * es);
                    }
                    ApplyActivation(p.activation, row.data(), row.size());
                    StoreFloats(type, row.data(), rowOut, os.stride[2] * es, row.size());
                }
            }
        }
    });
}

// The factory the operator table names (dml/ops/operators.def).
Status CreateCpuConvolution(const KernelContext&, const OperatorArgs& args, std::unique_ptr<Kernel>* out) {
    const auto& desc = args.As<DML_CONVOLUTION_OPERATOR_DESC>();
    ConvolutionParams params;
    params.input = *args.inputs[0];
    params.filter = *args.inputs[1];
    params.bias = args.inputs[2];
    params.output = *args.outputs[0];
    params.mode = desc.Mode;
    params.direction = desc.Direction;
    params.dimensionCount = desc.DimensionCount;
    for (uint32_t i = 0; i < desc.DimensionCount; ++i) {
        params.strides[i] = desc.Strides[i];
        params.dilations[i] = desc.Dilations[i];
        params.startPadding[i] = desc.StartPadding[i];
        params.endPadding[i] = desc.EndPadding[i];
        params.outputPadding[i] = desc.OutputPadding ? desc.OutputPadding[i] : 0;
    }
    params.groupCount = desc.GroupCount;
    params.accumulate = args.accumulateOutput;
    FREEDML_TRY(
        DecodeEpilogue(desc.FusedActivation, args.clampOutput, args.clampMin, args.clampMax, &params.activation));
    ConvolutionKernel kernel;
    FREEDML_TRY(kernel.Create(params));
    *out = AdaptKernel(
        args, std::move(kernel),
        [](ConvolutionKernel& k, const OperatorArgs& a, const KernelBindings& b) {
            k.Execute(HostThreads(b), ViewOf(a.inputs, b.inputs, 0), ViewOf(a.inputs, b.inputs, 1),
                      ViewOf(a.inputs, b.inputs, 2), ViewOf(a.outputs, b.outputs, 0), b.persistent, b.temporary);
        },
        [](ConvolutionKernel& k, const OperatorArgs& a, const KernelBindings& b) {
            k.Initialize(ViewOf(a.inputs, b.inputs, 1), ViewOf(a.inputs, b.inputs, 2), b.persistent);
        },
        {1, 2});  // filter and bias; an owned input tensor is copied as it is
    return {};
}

}  // namespace freedml::dml::cpu
