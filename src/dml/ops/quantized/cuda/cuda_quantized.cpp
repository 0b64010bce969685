// CUDA kernels of the quantized family (dml/ops/quantized): plans made from the operator's tensors,
// device code in quantized.cu. The arithmetic is the CPU kernels' (../cpu/quantized.cpp). The 8-bit
// matrix multiplies of some size run through cuBLASLt's INT8 GEMM (Int8GemmKernel; the plan's
// comment in quantized_plan.h says how), the others through the tiled kernel.
#include <algorithm>
#include <numeric>

#include "dml/kernels/cuda/cuda_common.h"
#include "dml/kernels/cuda/cuda_tuning.h"
#include "dml/ops/quantized/cuda/quantized_plan.h"
#include "dml/ops/quantized/quantized_conv_fields.h"

namespace freedml::dml::cuda {

namespace {

using quantized::Operand;

// `t` over a tensor of `rank` dimensions: strides 0 where it has size 1.
Status MakeOperand(const std::optional<TensorDesc>& t, Operand* out) {
    *out = Operand{};
    if (!t) return {};
    INVALID_IF(!ToElementType(t->dataType, &out->type), "The CUDA kernels cannot read %s.", DataTypeName(t->dataType));
    out->present = true;
    for (uint32_t d = 0; d < t->rank; ++d) out->strides[d] = t->sizes[d] == 1 ? 0 : int64_t(t->strides[d]);
    return {};
}

// A convolution or pooling tensor's strides as {N, C, spatial right-aligned at 2..4}.
void AlignSpatial(const TensorDesc& t, uint32_t dims, Operand* o) {
    int64_t s[quantized::kRank] = {};
    s[0] = t.sizes[0] == 1 ? 0 : t.strides[0];
    s[1] = t.sizes[1] == 1 ? 0 : t.strides[1];
    for (uint32_t i = 0; i < dims; ++i) s[2 + 3 - dims + i] = t.strides[2 + i];
    for (int d = 0; d < quantized::kRank; ++d) o->strides[d] = s[d];
}

template <class Plan, class Launch>
class QuantizedKernel final : public Kernel {
public:
    QuantizedKernel(const char* name, Plan plan, std::array<int, quantized::kSlots> slots, Launch launch)
        : name_(name), plan_(plan), slots_(slots), launch_(launch) {}
    uint64_t PersistentResourceSize() const override { return 0; }
    uint64_t TemporaryResourceSize() const override { return 0; }
    void Initialize(const KernelBindings&) override {}
    void Execute(const KernelBindings& b) override {
        CudaStream& stream = StreamOf(b);
        const void* in[quantized::kSlots] = {};
        for (size_t i = 0; i < slots_.size(); ++i) {
            if (slots_[i] >= 0 && size_t(slots_[i]) < b.inputs.size()) in[i] = b.inputs[size_t(slots_[i])];
        }
        stream.Check(launch_(plan_, in, b.outputs[0], stream.Launch()), name_);
    }

private:
    const char* name_;
    Plan plan_;
    std::array<int, quantized::kSlots> slots_;
    Launch launch_;
};

template <class Plan, class Launch>
std::unique_ptr<Kernel> MakeKernel(const char* name, const Plan& plan, std::array<int, quantized::kSlots> slots,
                                   Launch launch) {
    return std::make_unique<QuantizedKernel<Plan, Launch>>(name, plan, slots, launch);
}

constexpr uint64_t kAlign = 256;
constexpr uint64_t kMaxWorkspace = 32ull << 20;
// Below this many multiply-adds the tiled kernel (one launch) is used: the cuBLASLt route takes three.
constexpr uint64_t kInt8GemmMinimumWork = 1ull << 16;

uint64_t AlignUp(uint64_t v, uint64_t to = kAlign) { return (v + to - 1) / to * to; }

// cuBLASLt's INT8 x INT8 -> INT32 GEMM between a packing kernel and an epilogue kernel.
class Int8GemmKernel final : public Kernel {
public:
    Int8GemmKernel(const char* name, std::array<int, quantized::kSlots> slots) : name_(name), slots_(slots) {}
    ~Int8GemmKernel() override {
        for (auto* layout : {&x1Layout_, &x2Layout_, &dLayout_}) {
            if (*layout) cublasLtMatrixLayoutDestroy(*layout);
        }
        if (op_) cublasLtMatmulDescDestroy(op_);
    }

    // False (with nothing else changed that matters) when cuBLASLt has no algorithm for it.
    bool Plan(CudaDevice& device, const OperatorArgs& args, const quantized::MatMulPlan& epilogue);

    uint64_t PersistentResourceSize() const override { return 0; }
    uint64_t TemporaryResourceSize() const override { return temporarySize_; }
    void Initialize(const KernelBindings&) override {}
    // Launches and cublasLtMatmul with its workspace in the temporary resource: nothing the host waits on.
    bool ReplaySafe() const override { return true; }
    void Execute(const KernelBindings& b) override;

private:
    const char* name_;
    std::array<int, quantized::kSlots> slots_;
    quantized::Int8GemmPlan plan_;
    // cuBLASLt batches over one output batch dimension; the other (if any) loops here.
    uint32_t outerCount_ = 1;
    int64_t x1Outer_ = 0, x2Outer_ = 0, dOuter_ = 0;  // bytes per outer step
    uint64_t workspaceSize_ = 0, temporarySize_ = 0;
    uint64_t sumsBegin_ = 0;  // the row sums' bytes in the temporary: [sumsBegin_, productOffset)
    cublasLtMatmulDesc_t op_ = nullptr;
    cublasLtMatrixLayout_t x1Layout_ = nullptr, x2Layout_ = nullptr, dLayout_ = nullptr;
    cublasLtMatmulAlgo_t algo_{};
};

bool Int8GemmKernel::Plan(CudaDevice& device, const OperatorArgs& args, const quantized::MatMulPlan& epilogue) {
    const TensorDesc& A = *args.inputs[size_t(slots_[0])];
    const TensorDesc& B = *args.inputs[size_t(slots_[3])];
    const TensorDesc& out = *args.outputs[0];
    const uint32_t r = out.rank, M = out.sizes[r - 2], N = out.sizes[r - 1], K = A.sizes[r - 1];
    quantized::Int8GemmPlan& plan = plan_;
    plan.epilogue = epilogue;
    plan.depth = K;
    plan.paddedDepth = uint32_t(AlignUp(K, 16));
    // The output's batch dimensions, and each operand's, right-aligned into two.
    auto batchOf = [&](const TensorDesc& t, uint32_t* sizes, int64_t* strides) {
        for (uint32_t d = 0; d + 2 < r; ++d) {
            const uint32_t at = d + 4 - r;  // rank 3: dimension 0 goes to 1
            sizes[at] = t.sizes[d];
            if (strides) strides[at] = t.sizes[d] == 1 ? 0 : int64_t(t.strides[d]);
        }
    };
    batchOf(out, plan.batchSizes, nullptr);
    const uint64_t batches = uint64_t(plan.batchSizes[0]) * plan.batchSizes[1];
    if (batches > 65535 || (M + 31) / 32 > 65535 || uint64_t(M) * batches > INT32_MAX) return false;

    quantized::Int8Operand& a = plan.a;
    quantized::Int8Operand& b = plan.b;
    a.isUnsigned = A.dataType == DML_TENSOR_DATA_TYPE_UINT8;
    b.isUnsigned = B.dataType == DML_TENSOR_DATA_TYPE_UINT8;
    a.rows = a.packedRows = M;
    b.rows = N;
    b.packedRows = uint32_t(AlignUp(N, 4));  // cuBLASLt's integer kernels want D's rows in fours
    batchOf(A, a.batchSizes, a.batchStrides);
    batchOf(B, b.batchSizes, b.batchStrides);
    a.rowStride = int64_t(A.strides[r - 2]);
    a.depthStride = int64_t(A.strides[r - 1]);
    b.rowStride = int64_t(B.strides[r - 1]);  // B is read as N x K
    b.depthStride = int64_t(B.strides[r - 2]);
    // Row sums of one operand are needed where the other has a zero point or is UINT8.
    // (A slot is -1 where the tensor is absent.)
    a.sums = slots_[5] >= 0 || b.isUnsigned;
    b.sums = slots_[2] >= 0 || a.isUnsigned;
    // A is read in place when cuBLASLt can take it as it is: INT8, contiguous along K, K and every
    // stride a multiple of 16 bytes, and a bound (not owned) tensor at 16-byte aligned offsets.
    a.pack = !(A.dataType == DML_TENSOR_DATA_TYPE_INT8 && !A.OwnedByDml() && (a.depthStride == 1 || K == 1) &&
               K % 16 == 0 && (M == 1 || (a.rowStride % 16 == 0 && a.rowStride >= int64_t(K))) &&
               a.batchStrides[0] % 16 == 0 && a.batchStrides[1] % 16 == 0 && A.RequiredOffsetAlignment() >= 16);
    if (!a.pack && M == 1) a.rowStride = K;
    b.pack = true;
    // Word loads where the strides allow them (the bases are at least 16-byte aligned: bound
    // tensors by DirectML's rule, owned copies by the persistent resource's).
    for (auto [x, t] : {std::pair{&a, &A}, std::pair{&b, &B}}) {
        const bool steps =
            x->batchStrides[0] % 4 == 0 && x->batchStrides[1] % 4 == 0 && t->RequiredOffsetAlignment() % 4 == 0;
        if (steps && (x->depthStride == 1 || K == 1) && (x->rows == 1 || x->rowStride % 4 == 0)) {
            x->words = 1;
        } else if (steps && x->rowStride == 1 && (K == 1 || x->depthStride % 4 == 0)) {
            x->words = 2;
        }
    }
    const uint32_t Kp = plan.paddedDepth;
    a.splits = b.splits = (Kp + quantized::kPackDepth - 1) / quantized::kPackDepth;
    auto blocksOf = [&](const quantized::Int8Operand& x) {
        if (!x.pack && !x.sums) return uint64_t(0);
        const uint64_t rowTiles = (x.packedRows + quantized::kPackRows - 1) / quantized::kPackRows;
        return uint64_t(x.batchSizes[0]) * x.batchSizes[1] * x.splits * rowTiles;
    };
    if (blocksOf(a) + blocksOf(b) > INT32_MAX) return false;
    a.blocks = uint32_t(blocksOf(a));
    b.blocks = uint32_t(blocksOf(b));
    plan.productStride = b.packedRows;
    const uint32_t Np = b.packedRows;

    // cuBLASLt, column-major: D (N x M, the row-major product) = op(X1) x op(X2), X1 = packed B
    // (K x N, N padded to Np, transposed: op T) and X2 = A (K x M, op N): the "TN" form its
    // integer kernels take.
    const uint64_t aBatchBytes = uint64_t(M) * Kp, bBatchBytes = uint64_t(Np) * Kp;
    const uint64_t dBatch = uint64_t(M) * plan.productStride;  // elements
    // One GEMM over every batch where B is shared and A's packed copy has one matrix per batch.
    const bool merged =
        b.batchSizes[0] * b.batchSizes[1] == 1 && a.pack && uint64_t(a.batchSizes[0]) * a.batchSizes[1] == batches;
    uint64_t gemmRows = M;
    int32_t count = 1;
    int64_t x1Stride = 0, x2Stride = 0, dStride = 0;
    auto x2BatchStride = [&](int d) -> int64_t {  // bytes (INT8 elements)
        if (a.batchSizes[d] == 1) return 0;
        if (!a.pack) return a.batchStrides[d];
        return int64_t(d == 1 ? aBatchBytes : aBatchBytes * a.batchSizes[1]);
    };
    auto x1BatchStride = [&](int d) -> int64_t {
        if (b.batchSizes[d] == 1) return 0;
        return int64_t(d == 1 ? bBatchBytes : bBatchBytes * b.batchSizes[1]);
    };
    if (merged) {
        gemmRows = uint64_t(M) * batches;
    } else {
        const int inner = plan.batchSizes[1] > 1 ? 1 : 0;
        count = int32_t(plan.batchSizes[inner]);
        x1Stride = x1BatchStride(inner);
        x2Stride = x2BatchStride(inner);
        dStride = int64_t(inner == 1 ? dBatch : dBatch * plan.batchSizes[1]);
        if (inner == 1) {
            outerCount_ = plan.batchSizes[0];
            x1Outer_ = x1BatchStride(0);
            x2Outer_ = x2BatchStride(0);
            dOuter_ = int64_t(dBatch * plan.batchSizes[1] * 4);
        }
    }

    auto ok = [](cublasStatus_t status) { return status == CUBLAS_STATUS_SUCCESS; };
    if (!ok(cublasLtMatmulDescCreate(&op_, CUBLAS_COMPUTE_32I, CUDA_R_32I))) return false;
    const cublasOperation_t transposed = CUBLAS_OP_T, plain = CUBLAS_OP_N;
    if (!ok(cublasLtMatmulDescSetAttribute(op_, CUBLASLT_MATMUL_DESC_TRANSA, &transposed, sizeof(transposed))) ||
        !ok(cublasLtMatmulDescSetAttribute(op_, CUBLASLT_MATMUL_DESC_TRANSB, &plain, sizeof(plain)))) {
        return false;
    }
    auto layout = [&](cublasLtMatrixLayout_t* l, cudaDataType_t type, uint64_t rows, uint64_t cols, int64_t ld,
                      int64_t batchStride) {
        if (!ok(cublasLtMatrixLayoutCreate(l, type, rows, cols, ld))) return false;
        if (count == 1) return true;
        return ok(cublasLtMatrixLayoutSetAttribute(*l, CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, &count, sizeof(count))) &&
               ok(cublasLtMatrixLayoutSetAttribute(*l, CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET, &batchStride,
                                                   sizeof(batchStride)));
    };
    const int64_t x2Ld = a.pack ? int64_t(Kp) : (M == 1 ? int64_t(Kp) : a.rowStride);
    if (!layout(&x1Layout_, CUDA_R_8I, Kp, Np, Kp, x1Stride) ||
        !layout(&x2Layout_, CUDA_R_8I, Kp, gemmRows, x2Ld, x2Stride) ||
        !layout(&dLayout_, CUDA_R_32I, Np, gemmRows, plan.productStride, dStride)) {
        return false;
    }
    cublasLtHandle_t handle;
    auto lock = device.PlanningLock();
    if (!device.PlanningCublasLt(&handle).ok()) return false;
    cublasLtMatmulPreference_t preference;
    if (!ok(cublasLtMatmulPreferenceCreate(&preference))) return false;
    uint64_t maxWorkspace = kMaxWorkspace;
    uint32_t alignment = 16;  // every base, leading dimension and batch step is a multiple of 16 bytes
    cublasLtMatmulPreferenceSetAttribute(preference, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &maxWorkspace,
                                         sizeof(maxWorkspace));
    for (auto attribute : {CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_B_BYTES,
                           CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_C_BYTES, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_D_BYTES}) {
        cublasLtMatmulPreferenceSetAttribute(preference, attribute, &alignment, sizeof(alignment));
    }
    // The heuristics' first few, timed once here on scratch buffers of these sizes where
    // measuring is allowed (their ranking is an estimate; FREEDML_CUDNN_FIND=0 keeps the first).
    constexpr int kCandidates = 6;
    cublasLtMatmulHeuristicResult_t results[kCandidates] = {};
    int found = 0;
    const cublasStatus_t status = cublasLtMatmulAlgoGetHeuristic(handle, op_, x1Layout_, x2Layout_, dLayout_, dLayout_,
                                                                 preference, kCandidates, results, &found);
    cublasLtMatmulPreferenceDestroy(preference);
    if (!ok(status) || found <= 0) return false;
    int chosen = 0;
    if (found > 1 && MeasuringAllowed()) {
        uint64_t workspaceLimit = 0;
        for (int i = 0; i < found; ++i) workspaceLimit = std::max<uint64_t>(workspaceLimit, results[i].workspaceSize);
        // Extents of one cublasLtMatmul call: X1 and X2 as their layouts describe them, D likewise.
        const uint64_t x1Bytes = uint64_t(x1Stride) * uint64_t(count - 1) + bBatchBytes;
        const uint64_t x2Bytes = uint64_t(x2Stride) * uint64_t(count - 1) + uint64_t(x2Ld) * (gemmRows - 1) + Kp;
        const uint64_t dBytes = (uint64_t(dStride) * uint64_t(count - 1) + uint64_t(plan.productStride) * gemmRows) * 4;
        TimingScratch scratch;
        device.MakeCurrent();
        if (scratch.Allocate({x1Bytes, x2Bytes, dBytes}, workspaceLimit)) {
            const void* x1 = scratch.buffers[0];
            const void* x2 = scratch.buffers[1];
            void* d = scratch.buffers[2];
            std::vector<CandidateLaunch> launches;
            for (int i = 0; i < found; ++i) {
                launches.push_back([&, i](cudaStream_t stream) {
                    const uint64_t bytes = results[i].workspaceSize;
                    const int32_t one = 1, zero = 0;
                    return bytes <= scratch.workspaceBytes &&
                           ok(cublasLtMatmul(handle, op_, &one, x1, x1Layout_, x2, x2Layout_, &zero, d, dLayout_, d,
                                             dLayout_, &results[i].algo, bytes ? scratch.workspace : nullptr, bytes,
                                             stream));
                });
            }
            const std::string what = std::string(name_) + " " + A.Describe() + " x " + B.Describe() + " (cuBLASLt)";
            const int fastest = FastestCandidate(launches, what.c_str());
            if (fastest >= 0) chosen = fastest;
        }
        scratch.Release();
    }
    algo_ = results[chosen].algo;
    workspaceSize_ = results[chosen].workspaceSize;

    // The temporary resource: [workspace][packed A][packed B][A sums][B sums][product], each
    // 256-byte aligned, plus slack to align the binding's base.
    uint64_t temp = AlignUp(workspaceSize_);
    if (a.pack) {
        a.packedOffset = temp;
        temp = AlignUp(temp + aBatchBytes * a.batchSizes[0] * a.batchSizes[1]);
    }
    b.packedOffset = temp;
    temp = AlignUp(temp + bBatchBytes * b.batchSizes[0] * b.batchSizes[1]);
    if (a.sums) {
        a.sumOffset = temp;
        temp = AlignUp(temp + uint64_t(a.batchSizes[0]) * a.batchSizes[1] * M * 4);
    }
    if (b.sums) {
        b.sumOffset = temp;
        temp = AlignUp(temp + uint64_t(b.batchSizes[0]) * b.batchSizes[1] * N * 4);
    }
    sumsBegin_ = a.sums ? a.sumOffset : b.sumOffset;
    plan.productOffset = temp;
    temp = AlignUp(temp + dBatch * batches * 4);
    temporarySize_ = temp + kAlign;
    return true;
}

void Int8GemmKernel::Execute(const KernelBindings& b) {
    CudaStream& stream = StreamOf(b);
    const LaunchTarget launch = stream.Launch();
    std::byte* temp = reinterpret_cast<std::byte*>(AlignUp(reinterpret_cast<uint64_t>(b.temporary)));
    const void* in[quantized::kSlots] = {};
    for (size_t i = 0; i < slots_.size(); ++i) {
        if (slots_[i] >= 0 && size_t(slots_[i]) < b.inputs.size()) in[i] = b.inputs[size_t(slots_[i])];
    }
    // The packing kernel adds into the row sums.
    if (plan_.a.sums || plan_.b.sums) {
        const cudaError_t cleared =
            cudaMemsetAsync(temp + sumsBegin_, 0, plan_.productOffset - sumsBegin_, launch.stream);
        if (stream.Check(cleared, name_)) return;  // failed
    }
    if (stream.Check(quantized::LaunchInt8Pack(plan_, in[0], in[3], temp, launch), name_)) return;  // failed
    const std::byte* x1 = temp + plan_.b.packedOffset;
    const std::byte* x2 = plan_.a.pack ? temp + plan_.a.packedOffset : static_cast<const std::byte*>(in[0]);
    std::byte* d = temp + plan_.productOffset;
    const int32_t one = 1, zero = 0;
    void* workspace = workspaceSize_ ? temp : nullptr;
    for (uint32_t i = 0; i < outerCount_; ++i) {
        std::byte* di = d + int64_t(i) * dOuter_;
        const cublasStatus_t status = cublasLtMatmul(
            stream.CublasLt(), op_, &one, x1 + int64_t(i) * x1Outer_, x1Layout_, x2 + int64_t(i) * x2Outer_, x2Layout_,
            &zero, di, dLayout_, di, dLayout_, &algo_, workspace, workspaceSize_, stream.Get());
        if (status != CUBLAS_STATUS_SUCCESS) {
            stream.Fail("cublasLtMatmul (integer matrix multiply)", backend::cuda::CublasStatusText(status));
            return;
        }
    }
    stream.Check(quantized::LaunchInt8Epilogue(plan_, in, temp, b.outputs[0], launch), name_);
}

class DynamicQuantizeKernel final : public Kernel {
public:
    explicit DynamicQuantizeKernel(quantized::DynamicQuantizePlan plan) : plan_(plan) {}
    uint64_t PersistentResourceSize() const override { return 0; }
    uint64_t TemporaryResourceSize() const override { return 0; }
    void Initialize(const KernelBindings&) override {}
    void Execute(const KernelBindings& b) override {
        CudaStream& stream = StreamOf(b);
        stream.Check(quantized::LaunchDynamicQuantize(plan_, b.inputs[0], b.outputs[0], b.outputs[1], b.outputs[2],
                                                      stream.Launch()),
                     "DYNAMIC_QUANTIZE_LINEAR");
    }

private:
    quantized::DynamicQuantizePlan plan_;
};

}  // namespace

Status CreateCudaQuantizedMatMul(const KernelContext& context, const OperatorArgs& args, std::unique_ptr<Kernel>* out) {
    quantized::MatMulPlan plan;
    std::array<int, quantized::kSlots> slots;
    switch (args.schema.type) {
        case DML_OPERATOR_MATRIX_MULTIPLY_INTEGER:
            plan.kind = quantized::MatMulKind::Integer;
            slots = {0, -1, 1, 2, -1, 3, -1, -1, -1};
            break;
        case DML_OPERATOR_QUANTIZED_LINEAR_MATRIX_MULTIPLY:
            plan.kind = quantized::MatMulKind::QuantizedLinear;
            slots = {0, 1, 2, 3, 4, 5, -1, 6, 7};
            break;
        default:
            plan.kind = quantized::MatMulKind::IntegerToFloat;
            slots = {0, 1, 2, 3, 4, 5, 6, -1, -1};
            break;
    }
    const TensorDesc& output = *args.outputs[0];
    plan.rank = int(output.rank);
    for (uint32_t d = 0; d < output.rank; ++d) plan.sizes[d] = output.sizes[d];
    for (size_t i = 0; i < slots.size(); ++i) {
        if (slots[i] >= 0) FREEDML_TRY(MakeOperand(args.inputs[size_t(slots[i])], &plan.in[i]));
        if (slots[i] >= 0 && !args.inputs[size_t(slots[i])]) slots[i] = -1;  // absent: the kernel reads a null address
    }
    // A and B keep their K strides even where K is 1 (the loop steps along them).
    const TensorDesc& a = *args.inputs[size_t(slots[0])];
    const TensorDesc& b = *args.inputs[size_t(slots[3])];
    plan.in[0].strides[a.rank - 1] = a.strides[a.rank - 1];
    plan.in[3].strides[b.rank - 2] = b.strides[b.rank - 2];
    plan.depth = a.sizes[a.rank - 1];
    plan.wide = ElementSizeInBytes(a.dataType) > 1 || ElementSizeInBytes(b.dataType) > 1;
    FREEDML_TRY(MakeOperand(args.outputs[0], &plan.out));
    for (uint32_t d = 0; d < output.rank; ++d) plan.out.strides[d] = output.strides[d];
    const uint64_t work = output.ElementCount() * plan.depth;
    if (!plan.wide && work >= kInt8GemmMinimumWork) {
        auto gemm = std::make_unique<Int8GemmKernel>(args.schema.name, slots);
        if (gemm->Plan(DeviceOf(context), args, plan)) {
            *out = std::move(gemm);
            return {};
        }
    }
    *out = MakeKernel(args.schema.name, plan, slots, quantized::LaunchQuantizedMatMul);
    return {};
}

Status CreateCudaQuantizedConv(const KernelContext&, const OperatorArgs& args, std::unique_ptr<Kernel>* out) {
    quantized::ConvPlan plan;
    const dml::quantized::ConvFields fields = dml::quantized::DecodeConvFields(args);
    std::array<int, quantized::kSlots> slots = fields.slots;
    const uint32_t dims = fields.dims;
    const uint32_t *strides = fields.strides, *dilations = fields.dilations, *startPadding = fields.startPadding;
    plan.groups = fields.groups;
    plan.quantizedOutput = fields.quantizedOutput;
    const TensorDesc& input = *args.inputs[size_t(slots[0])];
    const TensorDesc& filter = *args.inputs[size_t(slots[3])];
    const TensorDesc& output = *args.outputs[0];
    plan.dims = int(dims);
    plan.batch = output.sizes[0];
    plan.inChannels = input.sizes[1];
    plan.outChannels = output.sizes[1];
    for (uint32_t i = 0; i < dims; ++i) {
        const uint32_t at = 3 - dims + i;
        plan.inSize[at] = input.sizes[2 + i];
        plan.kernelSize[at] = filter.sizes[2 + i];
        plan.outSize[at] = output.sizes[2 + i];
        plan.stride[at] = strides[i];
        plan.dilation[at] = dilations[i];
        plan.pad[at] = startPadding[i];
    }
    for (size_t i = 0; i < slots.size(); ++i) {
        if (slots[i] >= 0) FREEDML_TRY(MakeOperand(args.inputs[size_t(slots[i])], &plan.in[i]));
        if (slots[i] >= 0 && !args.inputs[size_t(slots[i])]) slots[i] = -1;  // absent: the kernel reads a null address
    }
    AlignSpatial(input, dims, &plan.in[0]);
    AlignSpatial(filter, dims, &plan.in[3]);
    FREEDML_TRY(MakeOperand(args.outputs[0], &plan.out));
    AlignSpatial(output, dims, &plan.out);
    *out = MakeKernel(args.schema.name, plan, slots, quantized::LaunchQuantizedConv);
    return {};
}

Status CreateCudaQuantizedPooling(const KernelContext&, const OperatorArgs& args, std::unique_ptr<Kernel>* out) {
    const auto& desc = args.As<DML_QUANTIZED_LINEAR_AVERAGE_POOLING_OPERATOR_DESC>();
    quantized::PoolPlan plan;
    const TensorDesc& input = *args.inputs[0];
    const TensorDesc& output = *args.outputs[0];
    const uint32_t dims = desc.DimensionCount;
    plan.includePadding = desc.IncludePadding != 0;
    plan.batch = output.sizes[0];
    plan.channels = output.sizes[1];
    for (uint32_t i = 0; i < dims; ++i) {
        const uint32_t at = 3 - dims + i;
        plan.inSize[at] = input.sizes[2 + i];
        plan.outSize[at] = output.sizes[2 + i];
        plan.stride[at] = desc.Strides[i];
        plan.window[at] = desc.WindowSize[i];
        plan.dilation[at] = desc.Dilations[i];
        plan.pad[at] = desc.StartPadding[i];
    }
    std::array<int, quantized::kSlots> slots{0, 1, 2, 3, 4, -1, -1, -1, -1};
    for (size_t i = 0; i < 5; ++i) {
        FREEDML_TRY(MakeOperand(args.inputs[i], &plan.in[i]));
        if (!args.inputs[i]) slots[i] = -1;
    }
    AlignSpatial(input, dims, &plan.in[0]);
    FREEDML_TRY(MakeOperand(args.outputs[0], &plan.out));
    AlignSpatial(output, dims, &plan.out);
    auto launch = [](const quantized::PoolPlan& p, const void* const* in, void* o, LaunchTarget target) {
        return quantized::LaunchQuantizedPool(p, in, o, target);
    };
    *out = MakeKernel(args.schema.name, plan, slots, +launch);
    return {};
}

Status CreateCudaDynamicQuantize(const KernelContext&, const OperatorArgs& args, std::unique_ptr<Kernel>* out) {
    quantized::DynamicQuantizePlan plan;
    const TensorDesc& input = *args.inputs[0];
    plan.rank = int(input.rank);
    for (uint32_t d = 0; d < input.rank; ++d) plan.sizes[d] = input.sizes[d];
    plan.count = input.ElementCount();
    FREEDML_TRY(MakeOperand(args.inputs[0], &plan.in));
    FREEDML_TRY(MakeOperand(args.outputs[0], &plan.out));
    for (uint32_t d = 0; d < input.rank; ++d) {
        plan.in.strides[d] = input.strides[d];
        plan.out.strides[d] = args.outputs[0]->strides[d];
    }
    *out = std::make_unique<DynamicQuantizeKernel>(plan);
    return {};
}

}  // namespace freedml::dml::cuda
