// Every oneDNN call of the CPU kernels, in one file, so that a new oneDNN major version is a
// change to this file alone: GEMM's matmul and CONVOLUTION's convolution and deconvolution
// primitives, the recurrent layers' per-step products (how each is planned, how an owned weight is
// packed into oneDNN's layout at initialization, how the primitive runs), fused activations as oneDNN
// post-ops, the pooling primitive of the FLOAT32 average pools, and the integer GEMM of the
// quantized matrix multiplies. Built
// without oneDNN (FREEDML_ONEDNN=OFF), the kernels take their own reference paths and say why.
#include <cstring>
#include <string>
#include <unordered_map>
#include <vector>

#include "common/align.h"
#include "dml/kernels/cpu/float16.h"
#include "dml/kernels/cpu/float32_copy.h"
#include "dml/kernels/cpu/int8_gemm.h"
#include "dml/ops/convolution/cpu/convolution.h"
#include "dml/ops/matrix/cpu/gemm.h"
#include "dml/ops/pooling/cpu/pooling_onednn.h"
#include "dml/ops/recurrent/cpu/recurrent_matmul.h"

#ifdef FREEDML_HAVE_DNNL
#include <oneapi/dnnl/dnnl.hpp>
#endif

namespace freedml::dml::cpu {

#ifdef FREEDML_HAVE_DNNL

namespace {

constexpr uint64_t kAlign = 64;
uint64_t AlignUp(uint64_t v) { return ::freedml::AlignUp(v, kAlign); }

dnnl::engine& CpuEngine() {
    static dnnl::engine engine(dnnl::engine::kind::cpu, 0);
    return engine;
}

dnnl::memory::desc Md(const std::vector<int64_t>& dims, const std::vector<int64_t>& strides,
                             dnnl::memory::data_type type = dnnl::memory::data_type::f32) {
    return dnnl::memory::desc(dnnl::memory::dims(dims.begin(), dims.end()), type,
                              dnnl::memory::dims(strides.begin(), strides.end()));
}

// Appends the activation as eltwise post-ops when oneDNN computes the same formula; returns
// false (appending nothing) when our own pass must apply it after the primitive.
bool AppendActivation(const FusedActivation& a, dnnl::post_ops& ops) {
    using alg = dnnl::algorithm;
    switch (a.type) {
        case DML_OPERATOR_INVALID:
        case DML_OPERATOR_ACTIVATION_IDENTITY:
            return true;
        case DML_OPERATOR_ACTIVATION_RELU:
            ops.append_eltwise(1.0f, alg::eltwise_relu, 0.0f, 0.0f);
            return true;
        case DML_OPERATOR_ACTIVATION_LEAKY_RELU:
            ops.append_eltwise(1.0f, alg::eltwise_relu, a.alpha, 0.0f);
            return true;
        case DML_OPERATOR_ACTIVATION_LINEAR:
            ops.append_eltwise(1.0f, alg::eltwise_linear, a.alpha, a.beta);
            return true;
        case DML_OPERATOR_ACTIVATION_SIGMOID:
            ops.append_eltwise(1.0f, alg::eltwise_logistic, 0.0f, 0.0f);
            return true;
        case DML_OPERATOR_ACTIVATION_TANH:
            ops.append_eltwise(1.0f, alg::eltwise_tanh, 0.0f, 0.0f);
            return true;
        case DML_OPERATOR_ACTIVATION_ELU:
            ops.append_eltwise(1.0f, alg::eltwise_elu, a.alpha, 0.0f);
            return true;
        case DML_OPERATOR_ACTIVATION_GELU:
            ops.append_eltwise(1.0f, alg::eltwise_gelu_erf, 0.0f, 0.0f);
            return true;
        default:
            return false;
    }
}

}  // namespace


// ---- GEMM ---------------------------------------------------------------------------------------

struct GemmKernel::OneDnnState {
    dnnl::matmul primitive;
    dnnl::memory::desc aMd, bMd, bUserMd, cMd, oMd, scratchMd;
    bool bPacked = false;      // B owned and reordered into oneDNN's layout at Initialize
    bool cBinary = false;      // C added by a binary post-op (Beta == 1)
    bool cSum = false;         // C copied into the output, then a sum post-op scales it by Beta
    bool activationPass = false;  // activation applied by our own pass after the primitive
    LoopPlan<2> cCopy;         // output <- C, for cSum
};

void GemmKernel::TryOneDnn() {
    oneDnn_.reset();
    const GemmParams& p = compute_;  // FLOAT16: the packed FLOAT32 copies
    const Geometry& g = computeG_;
    if (p.forceReference) {
        path_ = "reference (forced)";
        return;
    }
    if (p.output.dataType != DML_TENSOR_DATA_TYPE_FLOAT32) {
        path_ = "reference (oneDNN path is FLOAT32 only)";
        return;
    }
    auto matrixOk = [](int64_t rowStride, int64_t colStride) {
        return rowStride != 0 && colStride != 0 && (rowStride == 1 || colStride == 1);
    };
    if (!matrixOk(g.aM, g.aK) || !matrixOk(g.bK, g.bN) || !matrixOk(g.oM, g.oN)) {
        path_ = "reference (a matrix has no unit stride)";
        return;
    }
    for (uint32_t d = 0; d < g.batchRank; ++d) {
        if (g.batchSizes[d] != 1 && g.oBatch[d] == 0) {
            path_ = "reference (output batch stride 0)";
            return;
        }
    }
    // Logical oneDNN shapes: {batch..., rows, cols}; broadcast batch dimensions have size 1.
    auto shape = [&](const std::array<int64_t, kMaxTensorRank>& batch, uint32_t rows, uint32_t cols, int64_t rs,
                     int64_t cs, std::vector<int64_t>* dims, std::vector<int64_t>* strides) {
        for (uint32_t d = 0; d < g.batchRank; ++d) {
            bool broadcast = batch[d] == 0;
            dims->push_back(broadcast ? 1 : g.batchSizes[d]);
            strides->push_back(broadcast ? 1 : batch[d]);
        }
        dims->push_back(rows), dims->push_back(cols);
        strides->push_back(rs ? rs : 1), strides->push_back(cs ? cs : 1);
    };
    std::vector<int64_t> ad, as, bd, bs, od, os, cd, cs;
    shape(g.aBatch, g.m, g.k, g.aM, g.aK, &ad, &as);
    shape(g.bBatch, g.k, g.n, g.bK, g.bN, &bd, &bs);
    shape(g.oBatch, g.m, g.n, g.oM, g.oN, &od, &os);
    const bool hasC = p.c && p.beta != 0.0f;
    if (hasC) shape(g.cBatch, g.cM ? g.m : 1, g.cN ? g.n : 1, g.cM, g.cN, &cd, &cs);

    auto state = std::make_unique<OneDnnState>();
    state->aMd = Md(ad, as);
    state->bUserMd = Md(bd, bs);
    state->oMd = Md(od, os);
    if (hasC) state->cMd = Md(cd, cs);
    const bool packB = p.b.OwnedByDml();
    dnnl::memory::desc bMd = packB ? dnnl::memory::desc(state->bUserMd.dims(), dnnl::memory::data_type::f32,
                                                        dnnl::memory::format_tag::any)
                                   : state->bUserMd;

    // Strategies for C, best first: a binary add post-op (Beta == 1), or C copied into the
    // output and a sum post-op with scale Beta.
    std::vector<int> strategies;
    if (!hasC) strategies = {0};
    else if (p.beta == 1.0f) strategies = {1, 2};
    else strategies = {2};
    std::string failure;
    for (int strategy : strategies) {
        try {
            dnnl::primitive_attr attr;
            attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
            if (p.alpha != 1.0f) attr.set_output_scales(0, {p.alpha});
            dnnl::post_ops ops;
            if (strategy == 1) ops.append_binary(dnnl::algorithm::binary_add, state->cMd);
            if (strategy == 2) ops.append_sum(p.beta);
            dnnl::post_ops withActivation = ops;
            bool fused = AppendActivation(p.activation, withActivation);
            attr.set_post_ops(fused ? withActivation : ops);
            dnnl::matmul::desc desc(state->aMd, bMd, state->oMd);
            dnnl::matmul::primitive_desc pd(desc, attr, CpuEngine());
            state->primitive = dnnl::matmul(pd);
            state->bMd = pd.weights_desc();
            state->scratchMd = pd.scratchpad_desc();
            state->bPacked = packB;
            state->cBinary = strategy == 1;
            state->cSum = strategy == 2;
            state->activationPass = !fused;
            if (state->cSum) {
                std::array<uint32_t, kMaxTensorRank> cStrides{};
                const uint32_t r = p.output.rank;
                for (uint32_t d = 0; d < g.batchRank; ++d) cStrides[d] = uint32_t(g.cBatch[d]);
                cStrides[r - 2] = uint32_t(g.cM);
                cStrides[r - 1] = uint32_t(g.cN);
                state->cCopy = MakeLoopPlan<2>(p.output.sizes.data(), r, {p.output.strides.data(), cStrides.data()},
                                               {4u, 4u});
            }
            path_ = std::string("oneDNN matmul (") + pd.impl_info_str() + ")";
            oneDnn_ = std::move(state);
            return;
        } catch (const dnnl::error& e) {
            failure = e.what();
        }
    }
    path_ = "reference (oneDNN refused: " + failure + ")";
}

uint64_t GemmKernel::OneDnnOwnedBSize(uint64_t plainSize) const {
    return oneDnn_->bPacked ? oneDnn_->bMd.get_size() : plainSize;
}

uint64_t GemmKernel::OneDnnScratchSize() const { return oneDnn_->scratchMd.get_size(); }

bool GemmKernel::InitializeOneDnn(const std::byte* b, std::byte* persistent) const {
    if (!oneDnn_->bPacked) return false;
    dnnl::engine& engine = CpuEngine();
    dnnl::stream stream(engine);
    dnnl::memory user(oneDnn_->bUserMd, engine, const_cast<std::byte*>(b));
    dnnl::memory packed(oneDnn_->bMd, engine, persistent + bOffset_);
    dnnl::reorder(user, packed).execute(stream, user, packed);
    stream.wait();
    return true;
}

void GemmKernel::ExecuteOneDnn(ThreadPool* threads, const std::byte* aData, const std::byte* bData,
                               const std::byte* cData, TensorView output, std::byte* temporary) const {
    const OneDnnState& s = *oneDnn_;
    dnnl::engine& engine = CpuEngine();
    dnnl::stream stream(engine);
    if (s.cSum) {
        RunLoopRows(s.cCopy, {output.data, const_cast<std::byte*>(cData)}, 0, s.cCopy.OuterCount(),
                    [](const std::array<std::byte*, 2>& p, uint64_t n, const std::array<int64_t, 2>& st) {
                        if (st[0] == 4 && st[1] == 4) {
                            std::memcpy(p[0], p[1], n * 4);
                            return;
                        }
                        for (uint64_t i = 0; i < n; ++i) std::memcpy(p[0] + int64_t(i) * st[0], p[1] + int64_t(i) * st[1], 4);
                    });
    }
    std::unordered_map<int, dnnl::memory> args{
        {DNNL_ARG_SRC, dnnl::memory(s.aMd, engine, const_cast<std::byte*>(aData))},
        {DNNL_ARG_WEIGHTS, dnnl::memory(s.bMd, engine, const_cast<std::byte*>(bData))},
        {DNNL_ARG_DST, dnnl::memory(s.oMd, engine, output.data)},
        {DNNL_ARG_SCRATCHPAD, dnnl::memory(s.scratchMd, engine, temporary)},
    };
    if (s.cBinary) {
        args.emplace(DNNL_ARG_ATTR_MULTIPLE_POST_OP(0) | DNNL_ARG_SRC_1,
                     dnnl::memory(s.cMd, engine, const_cast<std::byte*>(cData)));
    }
    s.primitive.execute(stream, args);
    stream.wait();
    if (s.activationPass) ApplyActivation(threads, params_.activation, output);
}

// ---- CONVOLUTION --------------------------------------------------------------------------------

struct ConvolutionKernel::OneDnnState {
    dnnl::primitive primitive;
    dnnl::memory::desc srcMd, dstMd, weightsUserMd, weightsDenseMd, weightsMd, biasMd, scratchMd;
    bool activationPass = false;
    // FLOAT16: input and output go through packed FLOAT32 copies, the filter through its dense
    // FLOAT32 form (flipped or not).
    bool half = false;
    TensorDesc input32, output32;
    // Temporary resource layout: scratchpad, an unowned filter (dense floats, then oneDNN's layout)
    // and bias, the FLOAT16 input and output copies.
    uint64_t scratchOffset = 0, weightsOffset = 0, flipOffset = 0, biasOffset = 0, inputOffset = 0, outputOffset = 0;
};

void ConvolutionKernel::TryOneDnn() {
    oneDnn_.reset();
    const ConvolutionParams& p = params_;
    if (p.forceReference) {
        path_ = "reference (forced)";
        return;
    }
    // FLOAT16 runs on FLOAT32 copies, packed whatever the tensors' strides.
    const bool half = p.output.dataType == DML_TENSOR_DATA_TYPE_FLOAT16;
    const TensorDesc input = half ? PackedFloat32Like(p.input) : p.input;
    const TensorDesc output = half ? PackedFloat32Like(p.output) : p.output;
    if (!IsPacked(input) || !IsPacked(output)) {
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
        return Md(wd, ws);
    };
    try {
        auto [srcDims, srcStrides] = toVector(input);
        auto [dstDims, dstStrides] = toVector(output);
        auto state = std::make_unique<OneDnnState>();
        state->half = half;
        state->input32 = input;
        state->output32 = output;
        state->srcMd = Md(srcDims, srcStrides);
        state->dstMd = Md(dstDims, dstStrides);
        state->weightsUserMd = weightsMd(f.strides);
        state->weightsDenseMd = weightsMd(PackedStrides(f.sizes, f.rank));
        dnnl::memory::desc weightsAny(state->weightsUserMd.dims(), dnnl::memory::data_type::f32,
                                      dnnl::memory::format_tag::any);
        if (p.bias) state->biasMd = Md({int64_t(outChannels_)}, {1});
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
        bool fused = AppendActivation(p.activation, ops);
        if (fused) attr.set_post_ops(ops);
        auto& engine = CpuEngine();
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
}

uint64_t ConvolutionKernel::OneDnnOwnedFilterSize() const { return oneDnn_->weightsMd.get_size(); }

uint64_t ConvolutionKernel::PlanOneDnnTemporary() {
    OneDnnState& s = *oneDnn_;
    uint64_t t = 0;
    s.scratchOffset = t, t = AlignUp(t + s.scratchMd.get_size());
    if (!params_.filter.OwnedByDml()) {
        s.weightsOffset = t, t = AlignUp(t + s.weightsMd.get_size());
        if (params_.mode == DML_CONVOLUTION_MODE_CONVOLUTION || s.half) {
            s.flipOffset = t, t = AlignUp(t + params_.filter.ElementCount() * 4);
        }
    }
    if (params_.bias && !params_.bias->OwnedByDml()) s.biasOffset = t, t = AlignUp(t + uint64_t(outChannels_) * 4);
    if (s.half) {
        s.inputOffset = t, t = AlignUp(t + s.input32.MinimumSizeInBytes());
        s.outputOffset = t, t = AlignUp(t + s.output32.MinimumSizeInBytes());
    }
    return t;
}

void ConvolutionKernel::InitializeOneDnn(TensorView filter, TensorView bias, std::byte* persistent) const {
    const OneDnnState& s = *oneDnn_;
    if (filterOffset_ != UINT64_MAX) {
        dnnl::engine& engine = CpuEngine();
        dnnl::stream stream(engine);
        std::vector<float> dense;
        dnnl::memory source;
        if (params_.mode == DML_CONVOLUTION_MODE_CONVOLUTION || s.half) {
            dense.resize(params_.filter.ElementCount());
            DenseFilter(nullptr, filter, dense.data());
            source = dnnl::memory(s.weightsDenseMd, engine, dense.data());
        } else {
            source = dnnl::memory(s.weightsUserMd, engine, filter.data);
        }
        dnnl::memory packed(s.weightsMd, engine, persistent + filterOffset_);
        dnnl::reorder(source, packed).execute(stream, source, packed);
        stream.wait();
    }
    if (biasOffset_ != UINT64_MAX) {
        LoadFloats(params_.bias->dataType, bias.data, BiasByteStride(),
                   reinterpret_cast<float*>(persistent + biasOffset_), outChannels_);
    }
}

void ConvolutionKernel::ExecuteOneDnn(ThreadPool* threads, TensorView input, TensorView filter, TensorView bias,
                                      TensorView output, const std::byte* filterData, const std::byte* biasData,
                                      std::byte* temporary) const {
    const OneDnnState& s = *oneDnn_;
    dnnl::engine& engine = CpuEngine();
    dnnl::stream stream(engine);
    TensorView finalOutput = output;
    if (filterOffset_ == UINT64_MAX) {
        // Unowned filter: prepare it in the temporary resource (flip, then oneDNN's layout).
        dnnl::memory source;
        if (params_.mode == DML_CONVOLUTION_MODE_CONVOLUTION || s.half) {
            float* dense = reinterpret_cast<float*>(temporary + s.flipOffset);
            DenseFilter(threads, filter, dense);
            source = dnnl::memory(s.weightsDenseMd, engine, dense);
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
        LoadFloats(params_.bias->dataType, bias.data, BiasByteStride(), dense, outChannels_);
        biasData = temporary + s.biasOffset;
    }
    if (s.half) {
        // FLOAT16: FLOAT32 copies of the input and output.
        const TensorView input32{&s.input32, temporary + s.inputOffset};
        ConvertTensor(threads, input, input32);
        input = input32;
        finalOutput = output;
        output = TensorView{&s.output32, temporary + s.outputOffset};
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
    if (s.activationPass) ApplyActivation(threads, params_.activation, output);
    if (s.half) ConvertTensor(threads, output, finalOutput);
}

// ---- POOLING ------------------------------------------------------------------------------------

struct OneDnnPooling::State {
    dnnl::memory::desc src, dst;
    dnnl::pooling_forward primitive;
};

std::unique_ptr<OneDnnPooling> OneDnnPooling::Make(const PoolPlan& plan, const TensorDesc& input,
                                                   const TensorDesc& output) {
    const uint32_t spatial = input.rank - 2, lead = 3 - spatial;
    std::vector<int64_t> inDims, outDims, inStrides, outStrides;
    for (uint32_t d = 0; d < input.rank; ++d) {
        inDims.push_back(input.sizes[d]);
        outDims.push_back(output.sizes[d]);
        inStrides.push_back(input.strides[d]);
        outStrides.push_back(output.strides[d]);
    }
    dnnl::memory::dims strides, kernel, padL, padR;
    for (uint32_t i = 0; i < spatial; ++i) {
        strides.push_back(plan.stride[lead + i]);
        kernel.push_back(plan.window[lead + i]);
        padL.push_back(plan.pad[lead + i]);
        // oneDNN wants the end padding that makes its output size ours.
        padR.push_back(int64_t(plan.out[lead + i] - 1) * plan.stride[lead + i] + plan.window[lead + i] -
                       plan.in[lead + i] - plan.pad[lead + i]);
    }
    const dnnl::algorithm algorithm = plan.kind == PoolKind::Max ? dnnl::algorithm::pooling_max
                                      : plan.includePadding     ? dnnl::algorithm::pooling_avg_include_padding
                                                                : dnnl::algorithm::pooling_avg_exclude_padding;
    try {
        auto state = std::make_unique<State>();
        state->src = Md(inDims, inStrides);
        state->dst = Md(outDims, outStrides);
        const dnnl::pooling_forward::desc op(dnnl::prop_kind::forward_inference, algorithm, state->src, state->dst,
                                             strides, kernel, padL, padR);
        state->primitive = dnnl::pooling_forward(dnnl::pooling_forward::primitive_desc(op, CpuEngine()));
        return std::unique_ptr<OneDnnPooling>(new OneDnnPooling(std::move(state)));
    } catch (const dnnl::error&) {
        return nullptr;  // the caller's own loops run it
    }
}

void OneDnnPooling::Run(const std::byte* input, std::byte* output) const {
    dnnl::engine& engine = CpuEngine();
    dnnl::stream stream(engine);
    state_->primitive.execute(
        stream, {{DNNL_ARG_SRC, dnnl::memory(state_->src, engine, const_cast<std::byte*>(input))},
                 {DNNL_ARG_DST, dnnl::memory(state_->dst, engine, output)}});
    stream.wait();
}

// ---- RNN, LSTM, GRU -----------------------------------------------------------------------------

bool MatMulAccumulateOneDnn(const float* a, int64_t lda, const float* b, int64_t bRow, int64_t bCol, float* c,
                            int64_t ldc, int64_t m, int64_t k, int64_t n) {
    if (m <= 0 || k <= 0 || n <= 0) return true;
    try {
        dnnl::engine& engine = CpuEngine();
        const auto aMd = Md({m, k}, {lda, 1});
        const auto bMd = Md({k, n}, {bRow, bCol});
        const auto cMd = Md({m, n}, {ldc, 1});
        dnnl::post_ops ops;
        ops.append_sum(1.0f);  // accumulate into c
        dnnl::primitive_attr attr;
        attr.set_post_ops(ops);
        // oneDNN's primitive cache makes the repeated creation of one shape cheap.
        const dnnl::matmul::desc desc(aMd, bMd, cMd);
        const dnnl::matmul::primitive_desc pd(desc, attr, engine);
        const dnnl::matmul primitive(pd);
        dnnl::stream stream(engine);
        primitive.execute(stream, {{DNNL_ARG_SRC, dnnl::memory(aMd, engine, const_cast<float*>(a))},
                                   {DNNL_ARG_WEIGHTS, dnnl::memory(bMd, engine, const_cast<float*>(b))},
                                   {DNNL_ARG_DST, dnnl::memory(cMd, engine, c)}});
        stream.wait();
        return true;
    } catch (const dnnl::error&) {
        return false;
    }
}

struct PackedMatMul::State {
    dnnl::matmul primitive;
    dnnl::memory::desc aMd, cMd;
    dnnl::memory packed;
};

bool PackedMatMul::Prepare(int64_t m, int64_t k, int64_t n, int64_t lda, int64_t ldc, const float* b, int64_t bRow,
                           int64_t bCol) {
    state_.reset();
    if (m <= 0 || k <= 0 || n <= 0) return false;
    try {
        dnnl::engine& engine = CpuEngine();
        auto state = std::make_unique<State>();
        state->aMd = Md({m, k}, {lda, 1});
        state->cMd = Md({m, n}, {ldc, 1});
        const dnnl::memory::desc anyB({k, n}, dnnl::memory::data_type::f32, dnnl::memory::format_tag::any);
        dnnl::post_ops ops;
        ops.append_sum(1.0f);
        dnnl::primitive_attr attr;
        attr.set_post_ops(ops);
        const dnnl::matmul::desc desc(state->aMd, anyB, state->cMd);
        const dnnl::matmul::primitive_desc pd(desc, attr, engine);
        state->primitive = dnnl::matmul(pd);
        state->packed = dnnl::memory(pd.weights_desc(), engine);
        dnnl::memory user(Md({k, n}, {bRow, bCol}), engine, const_cast<float*>(b));
        dnnl::stream stream(engine);
        dnnl::reorder(user, state->packed).execute(stream, user, state->packed);
        stream.wait();
        state_ = std::move(state);
        return true;
    } catch (const dnnl::error&) {
        return false;
    }
}

void PackedMatMul::Run(const float* a, float* c) const {
    dnnl::engine& engine = CpuEngine();
    dnnl::stream stream(engine);
    state_->primitive.execute(stream, {{DNNL_ARG_SRC, dnnl::memory(state_->aMd, engine, const_cast<float*>(a))},
                                       {DNNL_ARG_WEIGHTS, state_->packed},
                                       {DNNL_ARG_DST, dnnl::memory(state_->cMd, engine, c)}});
    stream.wait();
}

// ---- Integer GEMM (quantized matrix multiplies) ----------------------------------------------------

bool Int8Gemm(bool aSigned, int64_t m, int64_t n, int64_t k, const void* a, int64_t lda, const int8_t* b, int64_t ldb,
              int32_t* c, int64_t ldc) {
    const int32_t zero = 0;
    dnnl::status status;
    if (aSigned) {
        status = dnnl::gemm_s8s8s32('N', 'N', 'F', m, n, k, 1.0f, static_cast<const int8_t*>(a), lda, 0, b, ldb, 0,
                                    0.0f, c, ldc, &zero);
    } else {
        status = dnnl::gemm_u8s8s32('N', 'N', 'F', m, n, k, 1.0f, static_cast<const uint8_t*>(a), lda, 0, b, ldb, 0,
                                    0.0f, c, ldc, &zero);
    }
    return status == dnnl::status::success;
}

#else  // built without oneDNN: TryOneDnn makes no OneDnnState, so the other members never run.

struct OneDnnPooling::State {};

std::unique_ptr<OneDnnPooling> OneDnnPooling::Make(const PoolPlan&, const TensorDesc&, const TensorDesc&) {
    return nullptr;
}

void OneDnnPooling::Run(const std::byte*, std::byte*) const {}

struct PackedMatMul::State {};
bool PackedMatMul::Prepare(int64_t, int64_t, int64_t, int64_t, int64_t, const float*, int64_t, int64_t) {
    return false;
}
void PackedMatMul::Run(const float*, float*) const {}

bool MatMulAccumulateOneDnn(const float*, int64_t, const float*, int64_t, int64_t, float*, int64_t, int64_t, int64_t,
                            int64_t) {
    return false;
}

bool Int8Gemm(bool, int64_t, int64_t, int64_t, const void*, int64_t, const int8_t*, int64_t, int32_t*, int64_t) {
    return false;
}

struct GemmKernel::OneDnnState {};
struct ConvolutionKernel::OneDnnState {};

void GemmKernel::TryOneDnn() {
    oneDnn_.reset();
    path_ = "reference (built without oneDNN)";
}
uint64_t GemmKernel::OneDnnOwnedBSize(uint64_t plainSize) const { return plainSize; }
uint64_t GemmKernel::OneDnnScratchSize() const { return 0; }
bool GemmKernel::InitializeOneDnn(const std::byte*, std::byte*) const { return false; }
void GemmKernel::ExecuteOneDnn(ThreadPool*, const std::byte*, const std::byte*, const std::byte*, TensorView,
                               std::byte*) const {}

void ConvolutionKernel::TryOneDnn() {
    oneDnn_.reset();
    path_ = "reference (built without oneDNN)";
}
uint64_t ConvolutionKernel::OneDnnOwnedFilterSize() const { return 0; }
uint64_t ConvolutionKernel::PlanOneDnnTemporary() { return 0; }
void ConvolutionKernel::InitializeOneDnn(TensorView, TensorView, std::byte*) const {}
void ConvolutionKernel::ExecuteOneDnn(ThreadPool*, TensorView, TensorView, TensorView, TensorView, const std::byte*,
                                      const std::byte*, std::byte*) const {}

#endif  // FREEDML_HAVE_DNNL

// The kernels' special members live here, where OneDnnState is complete.
OneDnnPooling::OneDnnPooling(std::unique_ptr<State> state) : state_(std::move(state)) {}
OneDnnPooling::~OneDnnPooling() = default;
PackedMatMul::PackedMatMul() = default;
PackedMatMul::~PackedMatMul() = default;
GemmKernel::GemmKernel() = default;
GemmKernel::~GemmKernel() = default;
GemmKernel::GemmKernel(GemmKernel&&) noexcept = default;
GemmKernel& GemmKernel::operator=(GemmKernel&&) noexcept = default;
ConvolutionKernel::ConvolutionKernel() = default;
ConvolutionKernel::~ConvolutionKernel() = default;
ConvolutionKernel::ConvolutionKernel(ConvolutionKernel&&) noexcept = default;
ConvolutionKernel& ConvolutionKernel::operator=(ConvolutionKernel&&) noexcept = default;

}  // namespace freedml::dml::cpu
