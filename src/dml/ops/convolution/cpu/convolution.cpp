#include "dml/ops/convolution/cpu/convolution.h"

#include <algorithm>
#include <cstring>
#include <unordered_map>
#include <vector>

#include "dml/kernels/cpu/float16.h"
#include "dml/kernels/cpu/kernel_adapter.h"
#include "dml/kernels/cpu/onednn_util.h"
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

}  // namespace

#ifdef FREEDML_HAVE_DNNL
struct ConvolutionKernel::OneDnnState {
    dnnl::primitive primitive;
    dnnl::memory::desc srcMd, dstMd, weightsUserMd, weightsDenseMd, weightsMd, biasMd, scratchMd;
    bool activationPass = false;
    // Temporary resource layout for an unowned filter / bias.
    uint64_t scratchOffset = 0, weightsOffset = 0, flipOffset = 0, biasOffset = 0;
};
#else
struct ConvolutionKernel::OneDnnState {};
#endif

ConvolutionKernel::ConvolutionKernel() = default;
ConvolutionKernel::~ConvolutionKernel() = default;
ConvolutionKernel::ConvolutionKernel(ConvolutionKernel&&) noexcept = default;
ConvolutionKernel& ConvolutionKernel::operator=(ConvolutionKernel&&) noexcept = default;

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
    oneDnn_.reset();
    TryOneDnn();

    uint64_t offset = 0;
    filterOffset_ = biasOffset_ = UINT64_MAX;
    if (filter.OwnedByDml()) {
        filterOffset_ = offset;
        uint64_t size = filter.MinimumSizeInBytes();
#ifdef FREEDML_HAVE_DNNL
        if (oneDnn_) size = oneDnn_->weightsMd.get_size();
#endif
        offset = AlignUp(offset + size);
    }
    if (params.bias && params.bias->OwnedByDml()) {
        biasOffset_ = offset;
        offset = AlignUp(offset + (oneDnn_ ? uint64_t(cout) * 4 : params.bias->MinimumSizeInBytes()));
    }
    persistentSize_ = offset;

    temporarySize_ = 0;
#ifdef FREEDML_HAVE_DNNL
    if (oneDnn_) {
        OneDnnState& s = *oneDnn_;
        uint64_t t = 0;
        s.scratchOffset = t, t = AlignUp(t + s.scratchMd.get_size());
        if (!filter.OwnedByDml()) {
            s.weightsOffset = t, t = AlignUp(t + s.weightsMd.get_size());
            if (params.mode == DML_CONVOLUTION_MODE_CONVOLUTION) {
                s.flipOffset = t, t = AlignUp(t + filter.ElementCount() * 4);
            }
        }
        if (params.bias && !params.bias->OwnedByDml()) s.biasOffset = t, t = AlignUp(t + uint64_t(cout) * 4);
        temporarySize_ = t;
    }
#endif
    return Status::Ok();
}

void ConvolutionKernel::TryOneDnn() {
#ifndef FREEDML_HAVE_DNNL
    path_ = "reference (built without oneDNN)";
#else
    const ConvolutionParams& p = params_;
    if (p.forceReference) {
        path_ = "reference (forced)";
        return;
    }
    if (p.output.dataType != DML_TENSOR_DATA_TYPE_FLOAT32) {
        path_ = "reference (oneDNN path is FLOAT32 only)";
        return;
    }
    if (!IsPacked(p.input) || !IsPacked(p.output)) {
        path_ = "reference (Input or Output is not packed)";
        return;
    }
    const uint32_t dims = p.dimensionCount, groups = p.groupCount;
    const bool backward = p.direction == DML_CONVOLUTION_DIRECTION_BACKWARD;
    const TensorDesc& f = p.filter;
    auto toVector = [](const TensorDesc& d) {
        std::vector<int64_t> sizes(d.sizes.begin(), d.sizes.begin() + d.rank);
        std::vector<int64_t> strides(d.strides.begin(), d.strides.begin() + d.rank);
        return std::make_pair(sizes, strides);
    };
    // oneDNN's logical weights: {[G,] OC/G, IC/G, spatial...} where OC are the output channels.
    auto weightsMd = [&](const std::array<uint32_t, kMaxTensorRank>& fs) {
        const int64_t icg = inChannels_ / groups, ocg = outChannels_ / groups;
        std::vector<int64_t> wd, ws;
        if (groups > 1) {
            wd.push_back(groups);
            ws.push_back(backward ? icg * fs[0] : ocg * fs[0]);
        }
        wd.push_back(ocg), ws.push_back(backward ? fs[1] : fs[0]);
        wd.push_back(icg), ws.push_back(backward ? fs[0] : fs[1]);
        for (uint32_t i = 0; i < dims; ++i) wd.push_back(f.sizes[2 + i]), ws.push_back(fs[2 + i]);
        return onednn::Md(wd, ws);
    };
    try {
        auto [srcDims, srcStrides] = toVector(p.input);
        auto [dstDims, dstStrides] = toVector(p.output);
        auto state = std::make_unique<OneDnnState>();
        state->srcMd = onednn::Md(srcDims, srcStrides);
        state->dstMd = onednn::Md(dstDims, dstStrides);
        state->weightsUserMd = weightsMd(f.strides);
        state->weightsDenseMd = weightsMd(PackedStrides(f.sizes, f.rank));
        dnnl::memory::desc weightsAny(state->weightsUserMd.dims(), dnnl::memory::data_type::f32,
                                      dnnl::memory::format_tag::any);
        if (p.bias) state->biasMd = onednn::Md({int64_t(outChannels_)}, {1});
        dnnl::memory::dims strides, dilations, padL, padR;
        for (uint32_t i = 0; i < dims; ++i) {
            strides.push_back(p.strides[i]);
            dilations.push_back(int64_t(p.dilations[i]) - 1);  // oneDNN counts the gaps
            padL.push_back(p.startPadding[i]);
            padR.push_back(int64_t(p.endPadding[i]) - (backward ? int64_t(p.outputPadding[i]) : 0));
        }
        dnnl::primitive_attr attr;
        attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
        dnnl::post_ops ops;
        bool fused = onednn::AppendActivation(p.activation, ops);
        if (fused) attr.set_post_ops(ops);
        auto& engine = onednn::CpuEngine();
        const auto inference = dnnl::prop_kind::forward_inference;
        if (!backward) {
            auto desc = p.bias ? dnnl::convolution_forward::desc(inference, dnnl::algorithm::convolution_direct,
                                                                 state->srcMd, weightsAny, state->biasMd, state->dstMd,
                                                                 strides, dilations, padL, padR)
                               : dnnl::convolution_forward::desc(inference, dnnl::algorithm::convolution_direct,
                                                                 state->srcMd, weightsAny, state->dstMd, strides,
                                                                 dilations, padL, padR);
            dnnl::convolution_forward::primitive_desc pd(desc, attr, engine);
            state->weightsMd = pd.weights_desc();
            state->scratchMd = pd.scratchpad_desc();
            state->primitive = dnnl::convolution_forward(pd);
            path_ = std::string("oneDNN convolution_forward (") + pd.impl_info_str() + ")";
        } else {
            auto desc = p.bias ? dnnl::deconvolution_forward::desc(inference, dnnl::algorithm::deconvolution_direct,
                                                                   state->srcMd, weightsAny, state->biasMd,
                                                                   state->dstMd, strides, dilations, padL, padR)
                               : dnnl::deconvolution_forward::desc(inference, dnnl::algorithm::deconvolution_direct,
                                                                   state->srcMd, weightsAny, state->dstMd, strides,
                                                                   dilations, padL, padR);
            dnnl::deconvolution_forward::primitive_desc pd(desc, attr, engine);
            state->weightsMd = pd.weights_desc();
            state->scratchMd = pd.scratchpad_desc();
            state->primitive = dnnl::deconvolution_forward(pd);
            path_ = std::string("oneDNN deconvolution_forward (") + pd.impl_info_str() + ")";
        }
        state->activationPass = !fused;
        oneDnn_ = std::move(state);
    } catch (const dnnl::error& e) {
        path_ = std::string("reference (oneDNN refused: ") + e.what() + ")";
    }
#endif
}

void ConvolutionKernel::FlipFilter(const std::byte* filter, float* out) const {
    const TensorDesc& f = params_.filter;
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
                        out[o++] = LoadOne(type, filter + e * es);
                    }
}

void ConvolutionKernel::Initialize(TensorView filter, TensorView bias, std::byte* persistent) const {
#ifdef FREEDML_HAVE_DNNL
    if (oneDnn_) {
        const OneDnnState& s = *oneDnn_;
        if (filterOffset_ != UINT64_MAX) {
            dnnl::engine& engine = onednn::CpuEngine();
            dnnl::stream stream(engine);
            std::vector<float> flipped;
            dnnl::memory source;
            if (params_.mode == DML_CONVOLUTION_MODE_CONVOLUTION) {
                flipped.resize(params_.filter.ElementCount());
                FlipFilter(filter.data, flipped.data());
                source = dnnl::memory(s.weightsDenseMd, engine, flipped.data());
            } else {
                source = dnnl::memory(s.weightsUserMd, engine, filter.data);
            }
            dnnl::memory packed(s.weightsMd, engine, persistent + filterOffset_);
            dnnl::reorder(source, packed).execute(stream, source, packed);
            stream.wait();
        }
        if (biasOffset_ != UINT64_MAX) {
            LoadFloats(params_.bias->dataType, bias.data, int64_t(params_.bias->strides[1]) * 4,
                       reinterpret_cast<float*>(persistent + biasOffset_), outChannels_);
        }
        return;
    }
#endif
    if (filterOffset_ != UINT64_MAX) {
        std::memcpy(persistent + filterOffset_, filter.data, params_.filter.MinimumSizeInBytes());
    }
    if (biasOffset_ != UINT64_MAX) std::memcpy(persistent + biasOffset_, bias.data, params_.bias->MinimumSizeInBytes());
}

void ConvolutionKernel::Execute(TensorView input, TensorView filter, TensorView bias, TensorView output,
                                std::byte* persistent, std::byte* temporary) const {
    const std::byte* filterData = filterOffset_ != UINT64_MAX ? persistent + filterOffset_ : filter.data;
    const std::byte* biasData = !params_.bias ? nullptr : biasOffset_ != UINT64_MAX ? persistent + biasOffset_ : bias.data;
    if (!oneDnn_) {
        ExecuteReference(input.data, filterData, biasData, output.data);
        return;
    }
#ifndef FREEDML_HAVE_DNNL
    (void)temporary;
#else
    const OneDnnState& s = *oneDnn_;
    dnnl::engine& engine = onednn::CpuEngine();
    dnnl::stream stream(engine);
    if (filterOffset_ == UINT64_MAX) {
        // Unowned filter: prepare it in the temporary resource (flip, then oneDNN's layout).
        dnnl::memory source;
        if (params_.mode == DML_CONVOLUTION_MODE_CONVOLUTION) {
            float* flipped = reinterpret_cast<float*>(temporary + s.flipOffset);
            FlipFilter(filter.data, flipped);
            source = dnnl::memory(s.weightsDenseMd, engine, flipped);
        } else {
            source = dnnl::memory(s.weightsUserMd, engine, filter.data);
        }
        if (source.get_desc() == s.weightsMd) {
            filterData = static_cast<const std::byte*>(source.get_data_handle());
        } else {
            dnnl::memory packed(s.weightsMd, engine, temporary + s.weightsOffset);
            dnnl::reorder(source, packed).execute(stream, source, packed);
            filterData = temporary + s.weightsOffset;
        }
    }
    if (params_.bias && biasOffset_ == UINT64_MAX) {
        float* dense = reinterpret_cast<float*>(temporary + s.biasOffset);
        LoadFloats(params_.bias->dataType, bias.data, int64_t(params_.bias->strides[1]) * 4, dense, outChannels_);
        biasData = temporary + s.biasOffset;
    }
    std::unordered_map<int, dnnl::memory> args{
        {DNNL_ARG_SRC, dnnl::memory(s.srcMd, engine, input.data)},
        {DNNL_ARG_WEIGHTS, dnnl::memory(s.weightsMd, engine, const_cast<std::byte*>(filterData))},
        {DNNL_ARG_DST, dnnl::memory(s.dstMd, engine, output.data)},
        {DNNL_ARG_SCRATCHPAD, dnnl::memory(s.scratchMd, engine, temporary + s.scratchOffset)},
    };
    if (params_.bias) args.emplace(DNNL_ARG_BIAS, dnnl::memory(s.biasMd, engine, const_cast<std::byte*>(biasData)));
    s.primitive.execute(stream, args);
    stream.wait();
    if (s.activationPass) ApplyActivation(params_.activation, output);
#endif
}

void ConvolutionKernel::ExecuteReference(const std::byte* input, const std::byte* filter, const std::byte* bias,
                                         std::byte* output) const {
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

    ParallelFor(uint64_t(batch) * outChannels_, 1, [&](uint64_t first, uint64_t last) {
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
                    ApplyActivation(p.activation, row.data(), row.size());
                    StoreFloats(type, row.data(), outChannel + (o0 * os.stride[0] + o1 * os.stride[1]) * es,
                                os.stride[2] * es, row.size());
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
    FREEDML_TRY(DecodeFusedActivation(desc.FusedActivation, &params.activation));
    ConvolutionKernel kernel;
    FREEDML_TRY(kernel.Create(params));
    *out = AdaptKernel(args, std::move(kernel),
                      [](ConvolutionKernel& k, const OperatorArgs& a, const KernelBindings& b) {
                          k.Execute(ViewOf(a.inputs, b.inputs, 0), ViewOf(a.inputs, b.inputs, 1),
                                    ViewOf(a.inputs, b.inputs, 2), ViewOf(a.outputs, b.outputs, 0), b.persistent,
                                    b.temporary);
                      },
                      [](ConvolutionKernel& k, const OperatorArgs& a, const KernelBindings& b) {
                          k.Initialize(ViewOf(a.inputs, b.inputs, 1), ViewOf(a.inputs, b.inputs, 2), b.persistent);
                      },
                      {1, 2});  // filter and bias; an owned input tensor is copied as it is
    return {};
}

}  // namespace freedml::dml::cpu
