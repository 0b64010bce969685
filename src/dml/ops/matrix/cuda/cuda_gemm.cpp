// CUDA kernel of GEMM through cuBLASLt: Output = act(Alpha * op(A) x op(B) + Beta * C), FLOAT32
// and FLOAT16 (accumulating in float; FLOAT32 in full float unless the operator was compiled with
// ALLOW_HALF_PRECISION_COMPUTATION, which permits TF32), batch dimensions with broadcasting.
//
// cuBLASLt is column-major; a row-major output is computed as its transpose (Out^T = op(B)^T x
// op(A)^T), so a row-major A or B is read in place through the transpose flags. An operand with
// no unit stride is packed first (into the persistent resource at initialization when it is
// OWNED_BY_DML, else into the temporary resource at each execution), as is an output cuBLASLt
// cannot write. A broadcast C is expanded into the output, which the product then updates in
// place. RELU runs as cuBLASLt's epilogue; other activations as one pass over the output. The
// algorithm is chosen once, when the operator compiles; its workspace is the temporary resource.
#include <algorithm>
#include <numeric>

#include "dml/kernels/cuda/cuda_common.h"

namespace freedml::dml::cuda {

namespace {

constexpr uint64_t kAlign = 256;
constexpr uint64_t kMaxWorkspace = 32ull << 20;

uint64_t AlignUp(uint64_t v) { return (v + kAlign - 1) / kAlign * kAlign; }

// One matrix of a batch: logical rows x cols with element strides.
struct Mat {
    uint64_t rows, cols;
    int64_t rs, cs;
};

struct Layout {
    uint64_t rows = 0, cols = 0, ld = 0;
    cublasOperation_t op = CUBLAS_OP_N;
};

bool ColumnMajor(uint64_t rows, uint64_t cols, int64_t rs, int64_t cs, uint64_t* ld) {
    if (rows > 1 && rs != 1) return false;
    if (cols == 1) {
        *ld = std::max<uint64_t>(rows, 1);
        return true;
    }
    if (cs < int64_t(std::max<uint64_t>(rows, 1))) return false;
    *ld = uint64_t(cs);
    return true;
}

// As stored column-major (op N) or as the transpose of a stored column-major matrix (op T).
bool ToLayout(const Mat& m, bool allowTranspose, Layout* out) {
    uint64_t ld;
    if (ColumnMajor(m.rows, m.cols, m.rs, m.cs, &ld)) {
        *out = {m.rows, m.cols, ld, CUBLAS_OP_N};
        return true;
    }
    if (allowTranspose && ColumnMajor(m.cols, m.rows, m.cs, m.rs, &ld)) {
        *out = {m.cols, m.rows, ld, CUBLAS_OP_T};
        return true;
    }
    return false;
}

// A tensor's strides with its matrix and batch dims; a size-1 dim facing a larger one is stride 0.
int64_t StrideOver(const TensorDesc& t, uint32_t d, uint32_t size) {
    return (t.sizes[d] == 1 && size != 1) ? 0 : int64_t(t.strides[d]);
}

TensorDesc PackedDesc(const TensorDesc& t) {
    TensorDesc packed = t;
    uint32_t stride = 1;
    for (uint32_t i = t.rank; i-- > 0;) {
        packed.strides[i] = stride;
        stride *= t.sizes[i];
    }
    return packed;
}

uint32_t Gcd(uint64_t a, uint64_t b) { return uint32_t(std::gcd(a, b)); }

// Where one input operand comes from at execution.
struct Operand {
    bool present = false;
    bool owned = false;
    bool pack = false;         // packed (row-major, own sizes) before use
    uint64_t rawBytes = 0;     // owned and not packed: bytes copied as they are
    uint64_t offset = 0;       // in the persistent (owned) or temporary (packed) resource
    EwPlan<2> packPlan;
    TensorDesc effective;      // the layout the product reads
};

class GemmKernel final : public Kernel {
public:
    ~GemmKernel() override {
        for (auto* layout : {&aLayout_, &bLayout_, &cLayout_, &dLayout_}) {
            if (*layout) cublasLtMatrixLayoutDestroy(*layout);
        }
        if (op_) cublasLtMatmulDescDestroy(op_);
    }

    Status Plan(CudaDevice& device, const OperatorArgs& args, DML_EXECUTION_FLAGS flags);

    uint64_t PersistentResourceSize() const override { return persistentSize_; }
    uint64_t TemporaryResourceSize() const override { return temporarySize_; }

    void Initialize(const KernelBindings& b) override {
        CudaStream& stream = StreamOf(b);
        const Operand* operands[3] = {&a_, &b_, &c_};
        for (int i = 0; i < 3; ++i) {
            const Operand& x = *operands[i];
            if (!x.present || !x.owned || !b.inputs[i]) continue;
            if (x.pack) {
                stream.Check(
                    LaunchCopy(x.packPlan, elementBytes_, b.persistent + x.offset, b.inputs[i], stream.Launch()),
                    "GEMM initialization");
            } else {
                stream.Check(cudaMemcpyAsync(b.persistent + x.offset, b.inputs[i], x.rawBytes, cudaMemcpyDeviceToDevice,
                                             stream.Get()),
                             "GEMM initialization");
            }
        }
    }

    // Owned A, B and C are copied (packed when cuBLASLt needs it) by Initialize above.
    bool PacksOwnedInput(size_t input) const override { return input <= 2; }
    void Execute(const KernelBindings& b) override;
    // Launches and cublasLtMatmul with its workspace in the temporary resource: nothing the host waits on.
    bool ReplaySafe() const override { return true; }

private:
    const std::byte* Source(const Operand& x, const KernelBindings& b, std::byte* temp, int index, CudaStream& stream,
                            const LaunchTarget& launch) const {
        if (x.owned) return b.persistent + x.offset;
        if (x.pack) {
            stream.Check(LaunchCopy(x.packPlan, elementBytes_, temp + x.offset, b.inputs[index], launch),
                         "GEMM packing");
            return temp + x.offset;
        }
        return b.inputs[index];
    }

    Operand a_, b_, c_;
    bool swap_ = false;           // computing Out^T = op(B)^T op(A)^T
    bool useC_ = false;           // beta != 0 and C present
    bool cDirect_ = false;        // C read in place (same layout as D)
    EwPlan<2> cExpandPlan_;       // C broadcast into D
    bool dTemp_ = false;          // the product lands in the temporary resource, then is copied out
    uint64_t dOffset_ = 0;
    EwPlan<2> dPlan_;             // D target in place (activation pass)
    EwPlan<2> copyOutPlan_;       // D temp -> Output
    ElementType type_ = ElementType::F32;
    uint32_t elementBytes_ = 4;
    float alpha_ = 1.0f, beta_ = 0.0f;
    ActParams act_;
    bool actInEpilogue_ = false;
    // Batches: the innermost merged batch dimension goes to cuBLASLt; the others loop here.
    EwPlan<3> batchPlan_;         // operands: D, A, B (element strides)
    uint64_t workspaceSize_ = 0;
    uint64_t persistentSize_ = 0, temporarySize_ = 0;
    cublasLtMatmulDesc_t op_ = nullptr;
    cublasLtMatrixLayout_t aLayout_ = nullptr, bLayout_ = nullptr, cLayout_ = nullptr, dLayout_ = nullptr;
    cublasLtMatmulAlgo_t algo_{};
};

Status LtError(cublasStatus_t status, const char* what) {
    return Error(E_FAIL, "cuBLASLt %s failed (status %d).", what, int(status));
}

#define LT_TRY(call, what)                                     \
    do {                                                       \
        cublasStatus_t lt_status_ = (call);                    \
        if (lt_status_ != CUBLAS_STATUS_SUCCESS) return LtError(lt_status_, what); \
    } while (0)

Status GemmKernel::Plan(CudaDevice& device, const OperatorArgs& args, DML_EXECUTION_FLAGS flags) {
    const auto& desc = args.As<DML_GEMM_OPERATOR_DESC>();
    const TensorDesc& A = *args.inputs[0];
    const TensorDesc& B = *args.inputs[1];
    const TensorDesc& out = *args.outputs[0];
    const uint32_t r = out.rank;
    const DML_TENSOR_DATA_TYPE type = out.dataType;
    if (type != DML_TENSOR_DATA_TYPE_FLOAT32 && type != DML_TENSOR_DATA_TYPE_FLOAT16) {
        return NoKernel("GEMM supports FLOAT32 and FLOAT16 on CUDA (%s given).",
                     DataTypeName(type));
    }
    INVALID_IF(A.dataType != type || B.dataType != type || (args.inputs[2] && args.inputs[2]->dataType != type),
               "GEMM needs one data type for A, B, C and Output.");
    INVALID_IF(r < 2 || A.rank != r || B.rank != r || (args.inputs[2] && args.inputs[2]->rank != r),
               "GEMM needs A, B, C and Output of one rank of 2 or more.");
    ToElementType(type, &type_);
    elementBytes_ = ElementBytes(type_);
    alpha_ = desc.Alpha;
    beta_ = desc.Beta;
    FREEDML_TRY(MakeActParams(desc.FusedActivation, &act_));

    const bool ta = desc.TransA == DML_MATRIX_TRANSFORM_TRANSPOSE;
    const bool tb = desc.TransB == DML_MATRIX_TRANSFORM_TRANSPOSE;
    const uint32_t M = out.sizes[r - 2], N = out.sizes[r - 1];
    const uint32_t K = ta ? A.sizes[r - 2] : A.sizes[r - 1];
    INVALID_IF((ta ? A.sizes[r - 1] : A.sizes[r - 2]) != M || (tb ? B.sizes[r - 1] : B.sizes[r - 2]) != K ||
                   (tb ? B.sizes[r - 2] : B.sizes[r - 1]) != N,
               "GEMM sizes disagree (A %s, B %s, Output %s).", A.Describe().c_str(), B.Describe().c_str(),
               out.Describe().c_str());

    uint64_t persistent = 0, temp = 0;
    // The operands: packed when cuBLASLt cannot read them as they are.
    auto setUp = [&](Operand& x, const TensorDesc& t, bool trans) {
        x.present = true;
        x.owned = t.OwnedByDml();
        Mat m{trans ? t.sizes[r - 1] : t.sizes[r - 2], trans ? t.sizes[r - 2] : t.sizes[r - 1],
              trans ? int64_t(t.strides[r - 1]) : int64_t(t.strides[r - 2]),
              trans ? int64_t(t.strides[r - 2]) : int64_t(t.strides[r - 1])};
        Layout unused;
        x.pack = !ToLayout(m, true, &unused);
        x.effective = x.pack ? PackedDesc(t) : t;
        if (x.pack) x.packPlan = PackPlan(t);
        if (x.owned) {
            x.offset = persistent;
            x.rawBytes = t.MinimumSizeInBytes();
            persistent = AlignUp(persistent + (x.pack ? t.ElementCount() * elementBytes_ : x.rawBytes));
        } else if (x.pack) {
            x.offset = temp;
            temp = AlignUp(temp + t.ElementCount() * elementBytes_);
        }
    };
    setUp(a_, A, ta);
    setUp(b_, B, tb);
    useC_ = args.inputs[2].has_value() && beta_ != 0.0f;
    if (args.inputs[2] && args.inputs[2]->OwnedByDml()) {
        // Owned C is kept even when unused, as it was bound at initialization.
        setUp(c_, *args.inputs[2], false);
        c_.pack = false;
        c_.effective = *args.inputs[2];
        persistent = AlignUp(c_.offset + c_.rawBytes);
    } else if (args.inputs[2]) {
        c_.present = true;
        c_.effective = *args.inputs[2];
    }

    // The output: written in place when cuBLASLt can write it, else through a packed temporary.
    const TensorDesc& Ae = a_.effective;
    const TensorDesc& Be = b_.effective;
    auto outputMat = [&](const TensorDesc& o, bool swap) {
        return swap ? Mat{N, M, int64_t(o.strides[r - 1]), int64_t(o.strides[r - 2])}
                    : Mat{M, N, int64_t(o.strides[r - 2]), int64_t(o.strides[r - 1])};
    };
    Layout dl;
    TensorDesc D = out;
    if (ToLayout(outputMat(out, true), false, &dl)) {
        swap_ = true;
    } else if (ToLayout(outputMat(out, false), false, &dl)) {
        swap_ = false;
    } else {
        dTemp_ = true;
        D = PackedDesc(out);
        swap_ = true;
        ToLayout(outputMat(D, true), false, &dl);
        dOffset_ = temp;
        temp = AlignUp(temp + out.ElementCount() * elementBytes_);
        int64_t strides[2][kMaxDims];
        OwnStrides(out, strides[0]);
        OwnStrides(D, strides[1]);
        copyOutPlan_ = MakeEwPlan<2>(out.sizes.data(), r, strides);
    }
    {
        int64_t strides[2][kMaxDims];
        OwnStrides(D, strides[0]);
        OwnStrides(D, strides[1]);
        dPlan_ = MakeEwPlan<2>(D.sizes.data(), r, strides);
    }
    if (useC_) {
        const TensorDesc& C = c_.effective;
        cDirect_ = C.sizes == D.sizes && C.strides == D.strides;
        if (!cDirect_) cExpandPlan_ = CopyPlan(D, C);
    }

    // X1 x X2 = D in cuBLASLt's column-major terms.
    Mat aMat{M, K, ta ? int64_t(Ae.strides[r - 1]) : int64_t(Ae.strides[r - 2]),
             ta ? int64_t(Ae.strides[r - 2]) : int64_t(Ae.strides[r - 1])};
    Mat bMat{K, N, tb ? int64_t(Be.strides[r - 1]) : int64_t(Be.strides[r - 2]),
             tb ? int64_t(Be.strides[r - 2]) : int64_t(Be.strides[r - 1])};
    auto transposed = [](const Mat& m) { return Mat{m.cols, m.rows, m.cs, m.rs}; };
    Layout l1, l2;
    const bool ok1 = ToLayout(swap_ ? transposed(bMat) : aMat, true, &l1);
    const bool ok2 = ToLayout(swap_ ? transposed(aMat) : bMat, true, &l2);
    if (!ok1 || !ok2) return Error(E_FAIL, "GEMM planning found no cuBLASLt layout for A or B after packing.");

    // Batches over the leading dimensions, with broadcasting.
    {
        int64_t strides[3][kMaxDims] = {};
        for (uint32_t d = 0; d + 2 < r; ++d) {
            strides[0][d] = D.strides[d];
            strides[1][d] = StrideOver(Ae, d, out.sizes[d]);
            strides[2][d] = StrideOver(Be, d, out.sizes[d]);
            INVALID_IF((Ae.sizes[d] != 1 && Ae.sizes[d] != out.sizes[d]) ||
                           (Be.sizes[d] != 1 && Be.sizes[d] != out.sizes[d]),
                       "GEMM batch dimension %u of A or B does not broadcast to Output's (%u).", d, out.sizes[d]);
        }
        batchPlan_ = MakeEwPlan<3>(out.sizes.data(), r - 2, strides);
    }
    const int R = batchPlan_.rank;
    const int64_t batchCount = R > 0 ? int64_t(batchPlan_.sizes[R - 1]) : 1;
    auto innerStride = [&](int k) { return R > 0 ? batchPlan_.strides[k][R - 1] : 0; };

    // Descriptors.
    const cudaDataType_t dataType = type_ == ElementType::F16 ? CUDA_R_16F : CUDA_R_32F;
    const bool allowTf32 = (flags & DML_EXECUTION_FLAG_ALLOW_HALF_PRECISION_COMPUTATION) != 0;
    const cublasComputeType_t compute =
        type_ == ElementType::F32 && allowTf32 ? CUBLAS_COMPUTE_32F_FAST_TF32 : CUBLAS_COMPUTE_32F;
    LT_TRY(cublasLtMatmulDescCreate(&op_, compute, CUDA_R_32F), "matmul descriptor");
    LT_TRY(cublasLtMatmulDescSetAttribute(op_, CUBLASLT_MATMUL_DESC_TRANSA, &l1.op, sizeof(l1.op)), "TRANSA");
    LT_TRY(cublasLtMatmulDescSetAttribute(op_, CUBLASLT_MATMUL_DESC_TRANSB, &l2.op, sizeof(l2.op)), "TRANSB");
    actInEpilogue_ = act_.act == Act::Relu;
    if (actInEpilogue_) {
        cublasLtEpilogue_t epilogue = CUBLASLT_EPILOGUE_RELU;
        LT_TRY(cublasLtMatmulDescSetAttribute(op_, CUBLASLT_MATMUL_DESC_EPILOGUE, &epilogue, sizeof(epilogue)),
               "epilogue");
    }
    auto makeLayout = [&](cublasLtMatrixLayout_t* layout, const Layout& l, int64_t batchStride) -> Status {
        LT_TRY(cublasLtMatrixLayoutCreate(layout, dataType, l.rows, l.cols, int64_t(l.ld)), "matrix layout");
        if (batchCount > 1) {
            int32_t count = int32_t(batchCount);
            LT_TRY(cublasLtMatrixLayoutSetAttribute(*layout, CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, &count, sizeof(count)),
                   "batch count");
            LT_TRY(cublasLtMatrixLayoutSetAttribute(*layout, CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET, &batchStride,
                                                    sizeof(batchStride)),
                   "batch stride");
        }
        return {};
    };
    const int64_t aStride = innerStride(1), bStride = innerStride(2), dStride = innerStride(0);
    FREEDML_TRY(makeLayout(&aLayout_, l1, swap_ ? bStride : aStride));
    FREEDML_TRY(makeLayout(&bLayout_, l2, swap_ ? aStride : bStride));
    FREEDML_TRY(makeLayout(&dLayout_, dl, dStride));
    FREEDML_TRY(makeLayout(&cLayout_, dl, dStride));  // C is D's layout: in place or read like D

    // Alignments the pointers are known to have: the binding's, and every batch step's.
    auto alignment = [&](const Operand& x, const TensorDesc& t, int64_t batchStride) {
        uint64_t base = (x.owned || x.pack) ? kAlign : std::min<uint64_t>(t.RequiredOffsetAlignment(), kAlign);
        uint32_t result = Gcd(base, kAlign);
        if (batchStride != 0) result = Gcd(result, uint64_t(std::llabs(batchStride)) * elementBytes_);
        for (int d = 0; d + 1 < R; ++d) {
            for (int k = 0; k < 3; ++k) {
                if (batchPlan_.strides[k][d]) result = Gcd(result, uint64_t(std::llabs(batchPlan_.strides[k][d])) * elementBytes_);
            }
        }
        return result;
    };
    uint32_t alignA = alignment(a_, A, aStride), alignB = alignment(b_, B, bStride);
    uint32_t alignD = dTemp_ ? Gcd(kAlign, uint64_t(dStride) * elementBytes_ + kAlign)
                             : alignment(Operand{}, out, dStride);
    uint32_t alignC = alignD;
    if (useC_ && cDirect_ && !c_.owned) alignC = Gcd(alignD, args.inputs[2]->RequiredOffsetAlignment());
    if (swap_) std::swap(alignA, alignB);
    cublasLtHandle_t handle;
    auto lock = device.PlanningLock();
    FREEDML_TRY(device.PlanningCublasLt(&handle));
    cublasLtMatmulPreference_t preference;
    LT_TRY(cublasLtMatmulPreferenceCreate(&preference), "preference");
    uint64_t maxWorkspace = kMaxWorkspace;
    cublasLtMatmulPreferenceSetAttribute(preference, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &maxWorkspace,
                                         sizeof(maxWorkspace));
    cublasLtMatmulPreferenceSetAttribute(preference, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES, &alignA, sizeof(alignA));
    cublasLtMatmulPreferenceSetAttribute(preference, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_B_BYTES, &alignB, sizeof(alignB));
    cublasLtMatmulPreferenceSetAttribute(preference, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_C_BYTES, &alignC, sizeof(alignC));
    cublasLtMatmulPreferenceSetAttribute(preference, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_D_BYTES, &alignD, sizeof(alignD));
    cublasLtMatmulHeuristicResult_t result{};
    int found = 0;
    cublasStatus_t status = cublasLtMatmulAlgoGetHeuristic(handle, op_, aLayout_, bLayout_, cLayout_, dLayout_,
                                                           preference, 1, &result, &found);
    cublasLtMatmulPreferenceDestroy(preference);
    if (status != CUBLAS_STATUS_SUCCESS || found == 0) {
        return NoKernel(
                     "cuBLASLt has no algorithm for this GEMM (%s x %s -> %s, status %d); FreeDML's CUDA kernels "
                     "cannot run it.",
                     A.Describe().c_str(), B.Describe().c_str(), out.Describe().c_str(), int(status));
    }
    algo_ = result.algo;
    workspaceSize_ = result.workspaceSize;
    // The temporary resource: [workspace][packed A, B][D], each 256-byte aligned, plus slack to
    // align the binding's base.
    const uint64_t workspace = AlignUp(workspaceSize_);
    a_.offset += a_.pack && !a_.owned ? workspace : 0;
    b_.offset += b_.pack && !b_.owned ? workspace : 0;
    dOffset_ += workspace;
    temp += workspace;
    temporarySize_ = temp > 0 ? temp + kAlign : 0;
    persistentSize_ = persistent;
    return {};
}

void GemmKernel::Execute(const KernelBindings& b) {
    CudaStream& stream = StreamOf(b);
    const cudaStream_t s = stream.Get();
    const LaunchTarget launch = stream.Launch();
    std::byte* temp = b.temporary;
    if (temp) temp = reinterpret_cast<std::byte*>(AlignUp(reinterpret_cast<uint64_t>(temp)));
    const std::byte* A = Source(a_, b, temp, 0, stream, launch);
    const std::byte* B = Source(b_, b, temp, 1, stream, launch);
    std::byte* D = dTemp_ ? temp + dOffset_ : b.outputs[0];
    const std::byte* C = D;
    float beta = 0.0f;
    if (useC_) {
        beta = beta_;
        const std::byte* cSource = c_.owned ? b.persistent + c_.offset : b.inputs[2];
        if (cDirect_) {
            C = cSource;
        } else {
            stream.Check(LaunchCopy(cExpandPlan_, elementBytes_, D, cSource, launch), "GEMM C broadcast");
        }
    }
    cublasLtHandle_t handle = stream.CublasLt();
    void* workspace = workspaceSize_ ? temp : nullptr;
    // The outer batch dimensions (those cuBLASLt's one batch stride cannot express).
    const int R = batchPlan_.rank;
    uint64_t outer = 1;
    for (int d = 0; d + 1 < R; ++d) outer *= batchPlan_.sizes[d];
    for (uint64_t i = 0; i < outer; ++i) {
        int64_t offset[3] = {0, 0, 0};
        uint64_t index = i;
        for (int d = R - 2; d >= 0; --d) {
            const uint64_t at = index % batchPlan_.sizes[d];
            index /= batchPlan_.sizes[d];
            for (int k = 0; k < 3; ++k) offset[k] += int64_t(at) * batchPlan_.strides[k][d] * elementBytes_;
        }
        const std::byte* x1 = swap_ ? B + offset[2] : A + offset[1];
        const std::byte* x2 = swap_ ? A + offset[1] : B + offset[2];
        cublasStatus_t status =
            cublasLtMatmul(handle, op_, &alpha_, x1, aLayout_, x2, bLayout_, &beta, C + offset[0], cLayout_,
                           D + offset[0], dLayout_, &algo_, workspace, workspaceSize_, s);
        if (status != CUBLAS_STATUS_SUCCESS) {
            stream.Fail("cublasLtMatmul (GEMM)", backend::cuda::CublasStatusText(status));
            return;
        }
    }
    if (act_.act != Act::None && !actInEpilogue_) {
        stream.Check(LaunchActivation(dPlan_, type_, act_, D, D, launch), "GEMM activation");
    }
    if (dTemp_) stream.Check(LaunchCopy(copyOutPlan_, elementBytes_, b.outputs[0], D, launch), "GEMM output");
}

}  // namespace

Status CreateCudaGemm(const KernelContext& context, const OperatorArgs& args, std::unique_ptr<Kernel>* out) {
    auto kernel = std::make_unique<GemmKernel>();
    FREEDML_TRY(kernel->Plan(DeviceOf(context), args, context.flags));
    *out = std::move(kernel);
    return {};
}

}  // namespace freedml::dml::cuda
