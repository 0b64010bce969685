#include "dml/ops/matrix/cpu/gemm.h"

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

// Copies the bytes an owned tensor spans; the copy is read through the same TensorDesc.
void CopyOwned(const TensorView& view, std::byte* dst) {
    std::memcpy(dst, view.data, view.Desc().MinimumSizeInBytes());
}

// Stride of dimension `d` of `desc` facing an output dimension of `outSize`: 0 when it broadcasts.
int64_t BatchStride(const TensorDesc& desc, uint32_t d, uint32_t outSize) {
    return (desc.sizes[d] == 1 && outSize != 1) ? 0 : int64_t(desc.strides[d]);
}

}  // namespace

GemmKernel::Geometry GemmKernel::GeometryOf(const GemmParams& p) {
    const TensorDesc &a = p.a, &b = p.b, &out = p.output;
    const uint32_t r = out.rank;
    Geometry g;
    const bool ta = p.transA == DML_MATRIX_TRANSFORM_TRANSPOSE;
    const bool tb = p.transB == DML_MATRIX_TRANSFORM_TRANSPOSE;
    g.m = out.sizes[r - 2];
    g.n = out.sizes[r - 1];
    g.k = ta ? a.sizes[r - 2] : a.sizes[r - 1];
    g.aM = ta ? a.strides[r - 1] : a.strides[r - 2];
    g.aK = ta ? a.strides[r - 2] : a.strides[r - 1];
    g.bK = tb ? b.strides[r - 1] : b.strides[r - 2];
    g.bN = tb ? b.strides[r - 2] : b.strides[r - 1];
    g.oM = out.strides[r - 2];
    g.oN = out.strides[r - 1];
    if (p.c) {
        g.cM = BatchStride(*p.c, r - 2, g.m);
        g.cN = BatchStride(*p.c, r - 1, g.n);
    }
    g.batchRank = r - 2;
    for (uint32_t d = 0; d < g.batchRank; ++d) {
        const uint32_t size = out.sizes[d];
        g.batchSizes[d] = size;
        g.aBatch[d] = BatchStride(a, d, size);
        g.bBatch[d] = BatchStride(b, d, size);
        g.cBatch[d] = p.c ? BatchStride(*p.c, d, size) : 0;
        g.oBatch[d] = out.strides[d];
        g.batchCount *= size;
    }
    return g;
}

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

    const bool ta = params.transA == DML_MATRIX_TRANSFORM_TRANSPOSE;
    const bool tb = params.transB == DML_MATRIX_TRANSFORM_TRANSPOSE;
    const uint32_t m = out.sizes[r - 2], n = out.sizes[r - 1], k = ta ? a.sizes[r - 2] : a.sizes[r - 1];
    const uint32_t aRows = ta ? a.sizes[r - 1] : a.sizes[r - 2];
    const uint32_t bK = tb ? b.sizes[r - 1] : b.sizes[r - 2];
    const uint32_t bN = tb ? b.sizes[r - 2] : b.sizes[r - 1];
    INVALID_IF(aRows != m || bK != k || bN != n,
               "GEMM sizes disagree: op(A) is %u x %u, op(B) is %u x %u, Output is %u x %u.", aRows, k, bK, bN, m, n);
    if (params.c) {
        const TensorDesc& c = *params.c;
        INVALID_IF((c.sizes[r - 2] != 1 && c.sizes[r - 2] != m) || (c.sizes[r - 1] != 1 && c.sizes[r - 1] != n),
                   "GEMM's C %s does not broadcast to Output %s.", c.Describe().c_str(), out.Describe().c_str());
    }
    for (uint32_t d = 0; d + 2 < r; ++d) {
        const uint32_t size = out.sizes[d];
        INVALID_IF((a.sizes[d] != 1 && a.sizes[d] != size) || (b.sizes[d] != 1 && b.sizes[d] != size) ||
                       (params.c && params.c->sizes[d] != 1 && params.c->sizes[d] != size),
                   "GEMM batch dimension %u of A, B or C does not broadcast to Output's (%u).", d, size);
    }

    params_ = params;
    g_ = GeometryOf(params);
    // FLOAT16 goes to oneDNN through packed FLOAT32 copies of every operand.
    half_ = type == DML_TENSOR_DATA_TYPE_FLOAT16 && !params.forceReference;
    compute_ = params;
    if (half_) {
        compute_.a = PackedFloat32Like(a);
        compute_.b = PackedFloat32Like(b);
        if (params.c) compute_.c = PackedFloat32Like(*params.c);
        compute_.output = PackedFloat32Like(out);
    }
    computeG_ = GeometryOf(compute_);
    path_.clear();
    TryOneDnn();
    half_ = half_ && oneDnn_;

    // Persistent resource: one aligned region per owned tensor (with half_, its FLOAT32 copy).
    const GemmParams& stored = half_ ? compute_ : params_;
    uint64_t offset = 0;
    aOffset_ = bOffset_ = cOffset_ = UINT64_MAX;
    if (a.OwnedByDml()) aOffset_ = offset, offset = AlignUp(offset + stored.a.MinimumSizeInBytes());
    if (b.OwnedByDml()) {
        bOffset_ = offset;
        uint64_t size = stored.b.MinimumSizeInBytes();
        if (oneDnn_) size = OneDnnOwnedBSize(size);
        offset = AlignUp(offset + size);
    }
    if (params.c && params.c->OwnedByDml()) cOffset_ = offset, offset = AlignUp(offset + stored.c->MinimumSizeInBytes());
    persistentSize_ = offset;

    if (oneDnn_) {
        uint64_t t = AlignUp(OneDnnScratchSize());
        if (half_) {
            auto place = [&](bool needed, const TensorDesc& d, uint64_t* at) {
                if (needed) *at = t, t = AlignUp(t + d.MinimumSizeInBytes());
            };
            place(!a.OwnedByDml(), compute_.a, &aTemp_);
            place(!b.OwnedByDml(), compute_.b, &bTemp_);
            place(params.c && params.beta != 0.0f && !params.c->OwnedByDml(), compute_.c ? *compute_.c : out, &cTemp_);
            place(true, compute_.output, &oTemp_);
        }
        temporarySize_ = t;
    } else {
        temporarySize_ = (uint64_t(g_.m) * g_.k + uint64_t(g_.k) * g_.n) * sizeof(float);
    }
    return Status::Ok();
}

void GemmKernel::Initialize(TensorView a, TensorView b, TensorView c, std::byte* persistent) const {
    if (half_) {
        // The owned tensors' FLOAT32 copies; B's then goes into oneDNN's layout.
        if (aOffset_ != UINT64_MAX) ConvertTensor(nullptr, a, TensorView{&compute_.a, persistent + aOffset_});
        if (cOffset_ != UINT64_MAX) ConvertTensor(nullptr, c, TensorView{&*compute_.c, persistent + cOffset_});
        if (bOffset_ == UINT64_MAX) return;
        std::vector<std::byte> b32(compute_.b.MinimumSizeInBytes());
        ConvertTensor(nullptr, b, TensorView{&compute_.b, b32.data()});
        if (!InitializeOneDnn(b32.data(), persistent)) std::memcpy(persistent + bOffset_, b32.data(), b32.size());
        return;
    }
    if (aOffset_ != UINT64_MAX) CopyOwned(a, persistent + aOffset_);
    if (cOffset_ != UINT64_MAX) CopyOwned(c, persistent + cOffset_);
    if (bOffset_ == UINT64_MAX) return;
    if (oneDnn_ && InitializeOneDnn(b.data, persistent)) return;
    CopyOwned(b, persistent + bOffset_);
}

void GemmKernel::Execute(ThreadPool* threads, TensorView a, TensorView b, TensorView c, TensorView output,
                         std::byte* persistent, std::byte* temporary) const {
    const std::byte* aData = aOffset_ != UINT64_MAX ? persistent + aOffset_ : a.data;
    const std::byte* bData = bOffset_ != UINT64_MAX ? persistent + bOffset_ : b.data;
    const std::byte* cData = !params_.c ? nullptr : cOffset_ != UINT64_MAX ? persistent + cOffset_ : c.data;
    if (!oneDnn_) {
        ExecuteReference(threads, aData, bData, params_.beta != 0.0f ? cData : nullptr, output.data, temporary);
        return;
    }
    if (!half_) {
        ExecuteOneDnn(threads, aData, bData, cData, output, temporary);
        return;
    }
    auto owned = [&](uint64_t offset) { return offset != UINT64_MAX ? persistent + offset : nullptr; };
    ExecuteOneDnnHalf(threads, a, b, c, output, {owned(aOffset_), owned(bOffset_), owned(cOffset_)}, temporary);
}

void GemmKernel::ExecuteReference(ThreadPool* threads, const std::byte* aBase, const std::byte* bBase,
                                  const std::byte* cBase, std::byte* oBase, std::byte* temporary) const {
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
        ParallelFor(threads, M, minRows, [&](uint64_t first, uint64_t last) {
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
    *out = AdaptKernel(
        args, std::move(kernel),
        [](GemmKernel& k, const OperatorArgs& a, const KernelBindings& b) {
            k.Execute(HostThreads(b), ViewOf(a.inputs, b.inputs, 0), ViewOf(a.inputs, b.inputs, 1),
                      ViewOf(a.inputs, b.inputs, 2), ViewOf(a.outputs, b.outputs, 0), b.persistent, b.temporary);
        },
        [](GemmKernel& k, const OperatorArgs& a, const KernelBindings& b) {
            k.Initialize(ViewOf(a.inputs, b.inputs, 0), ViewOf(a.inputs, b.inputs, 1), ViewOf(a.inputs, b.inputs, 2),
                         b.persistent);
        },
        {0, 1, 2});  // A, B and C
    return {};
}

}  // namespace freedml::dml::cpu
