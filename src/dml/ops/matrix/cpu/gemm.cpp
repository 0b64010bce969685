#include "dml/ops/matrix/cpu/gemm.h"

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

// Copies the bytes an owned tensor spans; the copy is read through the same TensorDesc.
void CopyOwned(const TensorView& view, std::byte* dst) {
    std::memcpy(dst, view.data, view.Desc().MinimumSizeInBytes());
}

// Stride of dimension `d` of `desc` facing an output dimension of `outSize`: 0 when it broadcasts.
int64_t BatchStride(const TensorDesc& desc, uint32_t d, uint32_t outSize) {
    return (desc.sizes[d] == 1 && outSize != 1) ? 0 : int64_t(desc.strides[d]);
}

}  // namespace

#ifdef FREEDML_HAVE_DNNL
struct GemmKernel::OneDnnState {
    dnnl::matmul primitive;
    dnnl::memory::desc aMd, bMd, bUserMd, cMd, oMd, scratchMd;
    bool bPacked = false;      // B owned and reordered into oneDNN's layout at Initialize
    bool cBinary = false;      // C added by a binary post-op (Beta == 1)
    bool cSum = false;         // C copied into the output, then a sum post-op scales it by Beta
    bool activationPass = false;  // activation applied by our own pass after the primitive
    LoopPlan<2> cCopy;         // output <- C, for cSum
};
#else
struct GemmKernel::OneDnnState {};
#endif

GemmKernel::GemmKernel() = default;
GemmKernel::~GemmKernel() = default;
GemmKernel::GemmKernel(GemmKernel&&) noexcept = default;
GemmKernel& GemmKernel::operator=(GemmKernel&&) noexcept = default;

Status GemmKernel::Create(const GemmParams& params) {
    const TensorDesc &a = params.a, &b = params.b, &out = params.output;
    const uint32_t r = out.rank;
    const DML_TENSOR_DATA_TYPE type = out.dataType;
    INVALID_IF(type != DML_TENSOR_DATA_TYPE_FLOAT32 && type != DML_TENSOR_DATA_TYPE_FLOAT16,
               "GEMM supports FLOAT32 and FLOAT16 on the CPU (%s given).", DataTypeName(type));
    INVALID_IF(a.dataType != type || b.dataType != type || (params.c && params.c->dataType != type),
               "GEMM needs one data type for A, B, C and Output.");
    INVALID_IF(r < 2 || a.rank != r || b.rank != r || (params.c && params.c->rank != r),
               "GEMM needs A, B, C and Output of one rank of 2 or more (A %s, B %s, Output %s).",
               a.Describe().c_str(), b.Describe().c_str(), out.Describe().c_str());

    Geometry g;
    const bool ta = params.transA == DML_MATRIX_TRANSFORM_TRANSPOSE;
    const bool tb = params.transB == DML_MATRIX_TRANSFORM_TRANSPOSE;
    g.m = out.sizes[r - 2];
    g.n = out.sizes[r - 1];
    g.k = ta ? a.sizes[r - 2] : a.sizes[r - 1];
    const uint32_t aRows = ta ? a.sizes[r - 1] : a.sizes[r - 2];
    const uint32_t bK = tb ? b.sizes[r - 1] : b.sizes[r - 2];
    const uint32_t bN = tb ? b.sizes[r - 2] : b.sizes[r - 1];
    INVALID_IF(aRows != g.m || bK != g.k || bN != g.n,
               "GEMM sizes disagree: op(A) is %u x %u, op(B) is %u x %u, Output is %u x %u.", aRows, g.k, bK, bN,
               g.m, g.n);
    g.aM = ta ? a.strides[r - 1] : a.strides[r - 2];
    g.aK = ta ? a.strides[r - 2] : a.strides[r - 1];
    g.bK = tb ? b.strides[r - 1] : b.strides[r - 2];
    g.bN = tb ? b.strides[r - 2] : b.strides[r - 1];
    g.oM = out.strides[r - 2];
    g.oN = out.strides[r - 1];
    if (params.c) {
        const TensorDesc& c = *params.c;
        INVALID_IF((c.sizes[r - 2] != 1 && c.sizes[r - 2] != g.m) || (c.sizes[r - 1] != 1 && c.sizes[r - 1] != g.n),
                   "GEMM's C %s does not broadcast to Output %s.", c.Describe().c_str(), out.Describe().c_str());
        g.cM = BatchStride(c, r - 2, g.m);
        g.cN = BatchStride(c, r - 1, g.n);
    }
    g.batchRank = r - 2;
    for (uint32_t d = 0; d < g.batchRank; ++d) {
        const uint32_t size = out.sizes[d];
        INVALID_IF((a.sizes[d] != 1 && a.sizes[d] != size) || (b.sizes[d] != 1 && b.sizes[d] != size) ||
                       (params.c && params.c->sizes[d] != 1 && params.c->sizes[d] != size),
                   "GEMM batch dimension %u of A, B or C does not broadcast to Output's (%u).", d, size);
        g.batchSizes[d] = size;
        g.aBatch[d] = BatchStride(a, d, size);
        g.bBatch[d] = BatchStride(b, d, size);
        g.cBatch[d] = params.c ? BatchStride(*params.c, d, size) : 0;
        g.oBatch[d] = out.strides[d];
        g.batchCount *= size;
    }

    params_ = params;
    g_ = g;
    oneDnn_.reset();
    path_.clear();
    TryOneDnn();

    // Persistent resource: one aligned region per owned tensor.
    uint64_t offset = 0;
    aOffset_ = bOffset_ = cOffset_ = UINT64_MAX;
    if (a.OwnedByDml()) aOffset_ = offset, offset = AlignUp(offset + a.MinimumSizeInBytes());
    if (b.OwnedByDml()) {
        bOffset_ = offset;
        uint64_t size = b.MinimumSizeInBytes();
#ifdef FREEDML_HAVE_DNNL
        if (oneDnn_ && oneDnn_->bPacked) size = oneDnn_->bMd.get_size();
#endif
        offset = AlignUp(offset + size);
    }
    if (params.c && params.c->OwnedByDml()) cOffset_ = offset, offset = AlignUp(offset + params.c->MinimumSizeInBytes());
    persistentSize_ = offset;

    if (oneDnn_) {
#ifdef FREEDML_HAVE_DNNL
        temporarySize_ = oneDnn_->scratchMd.get_size();
#endif
    } else {
        temporarySize_ = (uint64_t(g.m) * g.k + uint64_t(g.k) * g.n) * sizeof(float);
    }
    return Status::Ok();
}

void GemmKernel::TryOneDnn() {
#ifndef FREEDML_HAVE_DNNL
    path_ = "reference (built without oneDNN)";
#else
    const GemmParams& p = params_;
    const Geometry& g = g_;
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
    state->aMd = onednn::Md(ad, as);
    state->bUserMd = onednn::Md(bd, bs);
    state->oMd = onednn::Md(od, os);
    if (hasC) state->cMd = onednn::Md(cd, cs);
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
            bool fused = onednn::AppendActivation(p.activation, withActivation);
            attr.set_post_ops(fused ? withActivation : ops);
            dnnl::matmul::desc desc(state->aMd, bMd, state->oMd);
            dnnl::matmul::primitive_desc pd(desc, attr, onednn::CpuEngine());
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
#endif
}

void GemmKernel::Initialize(TensorView a, TensorView b, TensorView c, std::byte* persistent) const {
    if (aOffset_ != UINT64_MAX) CopyOwned(a, persistent + aOffset_);
    if (cOffset_ != UINT64_MAX) CopyOwned(c, persistent + cOffset_);
    if (bOffset_ == UINT64_MAX) return;
#ifdef FREEDML_HAVE_DNNL
    if (oneDnn_ && oneDnn_->bPacked) {
        dnnl::engine& engine = onednn::CpuEngine();
        dnnl::stream stream(engine);
        dnnl::memory user(oneDnn_->bUserMd, engine, b.data);
        dnnl::memory packed(oneDnn_->bMd, engine, persistent + bOffset_);
        dnnl::reorder(user, packed).execute(stream, user, packed);
        stream.wait();
        return;
    }
#endif
    CopyOwned(b, persistent + bOffset_);
}

void GemmKernel::Execute(TensorView a, TensorView b, TensorView c, TensorView output, std::byte* persistent,
                         std::byte* temporary) const {
    const std::byte* aData = aOffset_ != UINT64_MAX ? persistent + aOffset_ : a.data;
    const std::byte* bData = bOffset_ != UINT64_MAX ? persistent + bOffset_ : b.data;
    const std::byte* cData = !params_.c ? nullptr : cOffset_ != UINT64_MAX ? persistent + cOffset_ : c.data;
    if (!oneDnn_) {
        ExecuteReference(aData, bData, params_.beta != 0.0f ? cData : nullptr, output.data, temporary);
        return;
    }
#ifdef FREEDML_HAVE_DNNL
    const OneDnnState& s = *oneDnn_;
    dnnl::engine& engine = onednn::CpuEngine();
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
    if (s.activationPass) ApplyActivation(params_.activation, output);
#endif
}

void GemmKernel::ExecuteReference(const std::byte* aBase, const std::byte* bBase, const std::byte* cBase,
                                  std::byte* oBase, std::byte* temporary) const {
    const Geometry& g = g_;
    const DML_TENSOR_DATA_TYPE type = params_.output.dataType;
    const int64_t es = ElementSizeInBytes(type);
    const uint32_t M = g.m, N = g.n, K = g.k;
    float* aPack = reinterpret_cast<float*>(temporary);
    float* bPack = aPack + uint64_t(M) * K;
    const float alpha = params_.alpha, beta = params_.beta;

    std::array<uint32_t, kMaxTensorRank> index{};
    for (uint64_t batch = 0; batch < g.batchCount; ++batch) {
        int64_t ao = 0, bo = 0, co = 0, oo = 0;
        uint64_t rest = batch;
        for (uint32_t d = g.batchRank; d-- > 0;) {
            index[d] = uint32_t(rest % g.batchSizes[d]);
            rest /= g.batchSizes[d];
            ao += index[d] * g.aBatch[d], bo += index[d] * g.bBatch[d];
            co += index[d] * g.cBatch[d], oo += index[d] * g.oBatch[d];
        }
        const std::byte* aP = aBase + ao * es;
        const std::byte* bP = bBase + bo * es;
        const std::byte* cP = cBase ? cBase + co * es : nullptr;
        std::byte* oP = oBase + oo * es;
        // Gather op(A) (M x K) and op(B) (K x N) as packed floats, whatever their strides.
        for (uint32_t m = 0; m < M; ++m) LoadFloats(type, aP + m * g.aM * es, g.aK * es, aPack + uint64_t(m) * K, K);
        for (uint32_t k = 0; k < K; ++k) LoadFloats(type, bP + k * g.bK * es, g.bN * es, bPack + uint64_t(k) * N, N);

        const uint64_t minRows = std::max<uint64_t>(1, (1u << 16) / (uint64_t(N) * K + 1));
        ParallelFor(M, minRows, [&](uint64_t first, uint64_t last) {
            std::vector<float> acc(N), cRow(N);
            for (uint64_t m = first; m < last; ++m) {
                std::fill(acc.begin(), acc.end(), 0.0f);
                const float* aRow = aPack + m * K;
                for (uint32_t k = 0; k < K; ++k) {
                    const float av = aRow[k];
                    const float* bRow = bPack + uint64_t(k) * N;
                    for (uint32_t n = 0; n < N; ++n) acc[n] += av * bRow[n];
                }
                if (cP) {
                    LoadFloats(type, cP + int64_t(m) * g.cM * es, g.cN * es, cRow.data(), N);
                    for (uint32_t n = 0; n < N; ++n) acc[n] = alpha * acc[n] + beta * cRow[n];
                } else {
                    for (uint32_t n = 0; n < N; ++n) acc[n] = alpha * acc[n];
                }
                ApplyActivation(params_.activation, acc.data(), N);
                StoreFloats(type, acc.data(), oP + int64_t(m) * g.oM * es, g.oN * es, N);
            }
        });
    }
}

// The factory the operator table names (dml/ops/operators.def).
Status CreateCpuGemm(const KernelContext&, const OperatorArgs& args, std::unique_ptr<Kernel>* out) {
    const auto& desc = args.As<DML_GEMM_OPERATOR_DESC>();
    GemmParams params;
    params.a = *args.inputs[0];
    params.b = *args.inputs[1];
    params.c = args.inputs[2];
    params.output = *args.outputs[0];
    params.transA = desc.TransA;
    params.transB = desc.TransB;
    params.alpha = desc.Alpha;
    params.beta = desc.Beta;
    FREEDML_TRY(DecodeFusedActivation(desc.FusedActivation, &params.activation));
    GemmKernel kernel;
    FREEDML_TRY(kernel.Create(params));
    *out = AdaptKernel(args, std::move(kernel),
                      [](GemmKernel& k, const OperatorArgs& a, const KernelBindings& b) {
                          k.Execute(ViewOf(a.inputs, b.inputs, 0), ViewOf(a.inputs, b.inputs, 1),
                                    ViewOf(a.inputs, b.inputs, 2), ViewOf(a.outputs, b.outputs, 0), b.persistent,
                                    b.temporary);
                      },
                      [](GemmKernel& k, const OperatorArgs& a, const KernelBindings& b) {
                          k.Initialize(ViewOf(a.inputs, b.inputs, 0), ViewOf(a.inputs, b.inputs, 1),
                                       ViewOf(a.inputs, b.inputs, 2), b.persistent);
                      },
                      {0, 1, 2});  // A, B and C
    return {};
}

}  // namespace freedml::dml::cpu
