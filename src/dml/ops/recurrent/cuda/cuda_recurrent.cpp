// CUDA factory and kernel of RNN, LSTM and GRU: the shared plan (../recurrent_plan.h) in the
// device code's terms, the cuBLASLt products planned when the operator compiles, and the order of
// the work (recurrent_device.h) on the queue's stream.
//
// The products, column-major as cuBLASLt sees the row-major buffers (all with float output and
// float accumulation; FLOAT32 in full float unless ALLOW_HALF_PRECISION_COMPUTATION permits TF32):
//   projection   xw^T {dirs*G*H, seq*batch} = W {dirs*G*H, I} (op T) x X^T {I, seq*batch}
//   recurrence   hr_d^T {rows, batch} = R_d[rows] (op T) x h_d^T, batched over the directions
//   GRU h rows   hr_d^T[2H..3H] = R_d[2H..3H] (op T) x (r . h)_d^T (without LinearBeforeReset)
#include <algorithm>

#include "dml/kernels/cuda/cuda_common.h"
#include "dml/ops/recurrent/cuda/recurrent_device.h"
#include "dml/ops/recurrent/recurrent_plan.h"

namespace freedml::dml::cuda {

namespace {

constexpr uint64_t kAlign = 256;
constexpr uint64_t kMaxWorkspace = 8ull << 20;

uint64_t AlignUp(uint64_t v) { return (v + kAlign - 1) / kAlign * kAlign; }

uint32_t Gcd(uint64_t a, uint64_t b) {
    while (b) {
        const uint64_t t = a % b;
        a = b;
        b = t;
    }
    return uint32_t(a);
}

Status LtError(cublasStatus_t status, const char* what) {
    return Error(E_FAIL, "cuBLASLt %s failed for a recurrent operator (status %d).", what, int(status));
}

#define RNN_LT_TRY(call, what)                                                       \
    do {                                                                             \
        cublasStatus_t rnn_status_ = (call);                                         \
        if (rnn_status_ != CUBLAS_STATUS_SUCCESS) return LtError(rnn_status_, what); \
    } while (0)

// D {m, n} (float, leading dimension ldd) = A^T x B with A stored {k, m} (lda) and B {k, n} (ldb),
// `batch` times with the given element strides; `offset*` are element offsets of the operands
// from 256-byte aligned bases (for the alignment cuBLASLt may assume).
struct GemmShape {
    uint64_t m = 0, n = 0, k = 0, lda = 0, ldb = 0, ldd = 0;
    int32_t batch = 1;
    int64_t strideA = 0, strideB = 0, strideD = 0;
    uint64_t offsetA = 0, offsetB = 0, offsetD = 0;
};

struct LtGemm {
    cublasLtMatmulDesc_t op = nullptr;
    cublasLtMatrixLayout_t a = nullptr, b = nullptr, d = nullptr;
    cublasLtMatmulAlgo_t algo{};
    uint64_t workspace = 0;
    bool planned = false;

    ~LtGemm() {
        for (auto* layout : {&a, &b, &d}) {
            if (*layout) cublasLtMatrixLayoutDestroy(*layout);
        }
        if (op) cublasLtMatmulDescDestroy(op);
    }

    Status Plan(cublasLtHandle_t handle, const GemmShape& s, cudaDataType_t type, uint64_t elementBytes,
                cublasComputeType_t compute) {
        RNN_LT_TRY(cublasLtMatmulDescCreate(&op, compute, CUDA_R_32F), "matmul descriptor");
        const cublasOperation_t transpose = CUBLAS_OP_T, none = CUBLAS_OP_N;
        RNN_LT_TRY(cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_TRANSA, &transpose, sizeof(transpose)),
                   "TRANSA");
        RNN_LT_TRY(cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_TRANSB, &none, sizeof(none)), "TRANSB");
        auto layout = [&](cublasLtMatrixLayout_t* l, cudaDataType_t t, uint64_t rows, uint64_t cols, uint64_t ld,
                          int64_t stride) -> Status {
            RNN_LT_TRY(cublasLtMatrixLayoutCreate(l, t, rows, cols, int64_t(ld)), "matrix layout");
            if (s.batch > 1) {
                RNN_LT_TRY(
                    cublasLtMatrixLayoutSetAttribute(*l, CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, &s.batch, sizeof(s.batch)),
                    "batch count");
                RNN_LT_TRY(cublasLtMatrixLayoutSetAttribute(*l, CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET, &stride,
                                                            sizeof(stride)),
                           "batch stride");
            }
            return {};
        };
        FREEDML_TRY(layout(&a, type, s.k, s.m, s.lda, s.strideA));
        FREEDML_TRY(layout(&b, type, s.k, s.n, s.ldb, s.strideB));
        FREEDML_TRY(layout(&d, CUDA_R_32F, s.m, s.n, s.ldd, s.strideD));
        auto alignment = [&](uint64_t offset, int64_t stride, uint64_t bytes) {
            uint32_t result = Gcd(kAlign, offset * bytes);
            if (s.batch > 1) result = Gcd(result, uint64_t(stride) * bytes);
            return result;
        };
        uint32_t alignA = alignment(s.offsetA, s.strideA, elementBytes);
        uint32_t alignB = alignment(s.offsetB, s.strideB, elementBytes);
        uint32_t alignD = alignment(s.offsetD, s.strideD, 4);
        cublasLtMatmulPreference_t preference;
        RNN_LT_TRY(cublasLtMatmulPreferenceCreate(&preference), "preference");
        uint64_t maxWorkspace = kMaxWorkspace;
        cublasLtMatmulPreferenceSetAttribute(preference, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &maxWorkspace,
                                             sizeof(maxWorkspace));
        cublasLtMatmulPreferenceSetAttribute(preference, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES, &alignA,
                                             sizeof(alignA));
        cublasLtMatmulPreferenceSetAttribute(preference, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_B_BYTES, &alignB,
                                             sizeof(alignB));
        cublasLtMatmulPreferenceSetAttribute(preference, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_C_BYTES, &alignD,
                                             sizeof(alignD));
        cublasLtMatmulPreferenceSetAttribute(preference, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_D_BYTES, &alignD,
                                             sizeof(alignD));
        cublasLtMatmulHeuristicResult_t result{};
        int found = 0;
        const cublasStatus_t status =
            cublasLtMatmulAlgoGetHeuristic(handle, op, a, b, d, d, preference, 1, &result, &found);
        cublasLtMatmulPreferenceDestroy(preference);
        if (status != CUBLAS_STATUS_SUCCESS || found == 0) {
            return NoKernel(
                "cuBLASLt has no algorithm for a recurrent operator's product (%llu x %llu x %llu, "
                "status %d).",
                (unsigned long long)s.m, (unsigned long long)s.n, (unsigned long long)s.k, int(status));
        }
        algo = result.algo;
        workspace = result.workspaceSize;
        planned = true;
        return {};
    }

    // False when it failed (the stream has the failure).
    bool Run(CudaStream& stream, const void* A, const void* B, float* D, void* workspaceBase, const char* what) const {
        const float one = 1.0f, zero = 0.0f;
        const cublasStatus_t status = cublasLtMatmul(stream.CublasLt(), op, &one, A, a, B, b, &zero, D, d, D, d, &algo,
                                                     workspace ? workspaceBase : nullptr, workspace, stream.Get());
        if (status != CUBLAS_STATUS_SUCCESS) {
            stream.Fail(what, backend::cuda::CublasStatusText(status));
            return false;
        }
        return true;
    }
};

class RecurrentCudaKernel final : public Kernel {
public:
    RecurrentCudaKernel(const char* name, RecurrentDevicePlan plan, const int inputIndex[8], int outputCount)
        : name_(name), plan_(plan), outputCount_(outputCount) {
        for (int i = 0; i < 8; ++i) inputIndex_[i] = inputIndex[i];
    }

    Status Plan(CudaDevice& device, DML_EXECUTION_FLAGS flags) {
        const RecurrentDevicePlan& p = plan_;
        const uint64_t eb = p.half ? 2 : 4;
        const uint64_t H = uint64_t(p.hidden), GH = uint64_t(p.gates) * H, B = uint64_t(p.batch);
        const uint64_t state = uint64_t(p.dirs) * B * H;
        // The temporary resource after the workspace (offsets from its aligned base).
        uint64_t at = 0;
        auto take = [&](uint64_t bytes) {
            const uint64_t offset = at;
            at += AlignUp(bytes);
            return offset;
        };
        x_ = take(uint64_t(p.seq) * B * p.input * eb);
        w_ = take(uint64_t(p.dirs) * GH * p.input * eb);
        r_ = take(uint64_t(p.dirs) * GH * H * eb);
        xw_ = take(uint64_t(p.seq) * B * p.dirs * GH * 4);
        hr_ = take(uint64_t(p.dirs) * B * GH * 4);
        h_ = take(state * 4);
        c_ = take(state * 4);
        hOperand_ = take(state * eb);
        resetH_ = take(state * eb);
        uint64_t workspace = 0;
        if (state > 0 && p.seq > 0) {
            const cudaDataType_t type = p.half ? CUDA_R_16F : CUDA_R_32F;
            const cublasComputeType_t compute = !p.half && (flags & DML_EXECUTION_FLAG_ALLOW_HALF_PRECISION_COMPUTATION)
                                                    ? CUBLAS_COMPUTE_32F_FAST_TF32
                                                    : CUBLAS_COMPUTE_32F;
            const bool split = p.cell == 2 && !p.linearBeforeReset;
            cublasLtHandle_t handle;
            auto lock = device.PlanningLock();
            FREEDML_TRY(device.PlanningCublasLt(&handle));
            if (p.input > 0) {
                GemmShape s;
                s.m = uint64_t(p.dirs) * GH, s.n = uint64_t(p.seq) * B, s.k = uint64_t(p.input);
                s.lda = s.k, s.ldb = s.k, s.ldd = s.m;
                FREEDML_TRY(projection_.Plan(handle, s, type, eb, compute));
            }
            GemmShape s;
            s.m = split ? 2 * H : GH, s.n = B, s.k = H;
            s.lda = H, s.ldb = H, s.ldd = GH;
            s.batch = int32_t(p.dirs);
            s.strideA = int64_t(GH * H), s.strideB = int64_t(B * H), s.strideD = int64_t(B * GH);
            FREEDML_TRY(recurrence_.Plan(handle, s, type, eb, compute));
            if (split) {
                s.m = H;
                s.offsetA = 2 * H * H, s.offsetD = 2 * H;
                FREEDML_TRY(resetProduct_.Plan(handle, s, type, eb, compute));
            }
            workspace = std::max({projection_.workspace, recurrence_.workspace, resetProduct_.workspace});
        }
        workspace = AlignUp(workspace);
        for (uint64_t* offset : {&x_, &w_, &r_, &xw_, &hr_, &h_, &c_, &hOperand_, &resetH_}) *offset += workspace;
        temporarySize_ = workspace + at + kAlign;  // slack to align the binding's base
        return {};
    }

    uint64_t PersistentResourceSize() const override { return 0; }
    uint64_t TemporaryResourceSize() const override { return temporarySize_; }
    void Initialize(const KernelBindings&) override {}

    void Execute(const KernelBindings& b) override {
        const RecurrentDevicePlan& p = plan_;
        if (uint64_t(p.dirs) * p.batch * p.hidden == 0) return;
        CudaStream& stream = StreamOf(b);
        const LaunchTarget launch = stream.Launch();
        RecurrentPointers pointers;
        for (int i = 0; i < 8; ++i) {
            if (inputIndex_[i] >= 0 && p.present[i]) pointers.in[i] = b.inputs[inputIndex_[i]];
        }
        for (int i = 0; i < outputCount_; ++i) {
            if (p.present[8 + i]) pointers.out[i] = b.outputs[i];
        }
        std::byte* temp = reinterpret_cast<std::byte*>(AlignUp(reinterpret_cast<uint64_t>(b.temporary)));
        void* x = temp + x_;
        void* w = temp + w_;
        void* r = temp + r_;
        float* xw = reinterpret_cast<float*>(temp + xw_);
        RecurrentBuffers buffers;
        buffers.xw = xw;
        buffers.hr = reinterpret_cast<float*>(temp + hr_);
        buffers.h = reinterpret_cast<float*>(temp + h_);
        buffers.c = reinterpret_cast<float*>(temp + c_);
        buffers.hOperand = temp + hOperand_;
        buffers.resetH = temp + resetH_;
        const uint64_t eb = p.half ? 2 : 4;
        const uint64_t GH = uint64_t(p.gates) * p.hidden, H = uint64_t(p.hidden);

        // Check is true when the call failed (the stream then has the failure).
        if (stream.Check(PackRecurrentOperand(p, 0, pointers.in[0], x, launch), name_) ||
            stream.Check(PackRecurrentOperand(p, 1, pointers.in[1], w, launch), name_) ||
            stream.Check(PackRecurrentOperand(p, 2, pointers.in[2], r, launch), name_) ||
            stream.Check(LaunchRecurrentInit(p, pointers, buffers, launch), name_)) {
            return;
        }
        if (p.seq > 0) {
            if (projection_.planned) {
                if (!projection_.Run(stream, w, x, xw, temp, "cublasLtMatmul (recurrent input projection)")) return;
            } else if (stream.Check(cudaMemsetAsync(xw, 0, uint64_t(p.seq) * p.batch * p.dirs * GH * 4, stream.Get()),
                                    name_)) {
                return;
            }
        }
        const bool split = p.cell == 2 && !p.linearBeforeReset;
        for (int s = 0; s < p.seq; ++s) {
            if (!recurrence_.Run(stream, r, buffers.hOperand, buffers.hr, temp, "cublasLtMatmul (recurrence)")) return;
            if (split) {
                if (stream.Check(LaunchRecurrentGruReset(p, pointers, buffers, s, launch), name_)) return;
                if (!resetProduct_.Run(stream, static_cast<std::byte*>(r) + 2 * H * H * eb, buffers.resetH,
                                       buffers.hr + 2 * H, temp, "cublasLtMatmul (GRU reset product)")) {
                    return;
                }
            }
            if (stream.Check(LaunchRecurrentStep(p, pointers, buffers, s, launch), name_)) return;
        }
        stream.Check(LaunchRecurrentFinish(p, pointers, buffers, launch), name_);
    }

private:
    const char* name_;
    RecurrentDevicePlan plan_;
    int inputIndex_[8];
    int outputCount_;
    LtGemm projection_, recurrence_, resetProduct_;
    uint64_t x_ = 0, w_ = 0, r_ = 0, xw_ = 0, hr_ = 0, h_ = 0, c_ = 0, hOperand_ = 0, resetH_ = 0;
    uint64_t temporarySize_ = 0;
};

}  // namespace

Status CreateCudaRecurrent(const KernelContext& context, const OperatorArgs& args, std::unique_ptr<Kernel>* kernel) {
    const RecurrentPlan plan = MakeRecurrentPlan(args);
    RecurrentDevicePlan device;
    device.cell = plan.cell == RecurrentCell::Rnn ? 0 : plan.cell == RecurrentCell::Lstm ? 1 : 2;
    device.gates = int(plan.gates);
    device.seq = int(plan.seq), device.batch = int(plan.batch), device.input = int(plan.input);
    device.hidden = int(plan.hidden), device.dirs = int(plan.dirs);
    device.backward[0] = plan.backward[0], device.backward[1] = plan.backward[1];
    device.half = plan.dataType == DML_TENSOR_DATA_TYPE_FLOAT16;
    device.useClip = plan.useClip, device.clip = plan.clip;
    device.couple = plan.coupleInputForget, device.linearBeforeReset = plan.linearBeforeReset;
    for (uint32_t d = 0; d < plan.dirs; ++d) {
        for (int a = 0; a < 3; ++a) {
            if (plan.activations[d][a].type == DML_OPERATOR_INVALID) continue;
            FREEDML_TRY(ToActParams(plan.activations[d][a], &device.act[d][a]));
        }
    }
    // The device plan's slots: x, w, r, bias, h0, c0, lengths, peephole; then y, yh, yc.
    const int inputIndex[8] = {0, 1, 2, plan.bias, plan.hiddenInit, plan.cellInit, plan.sequenceLengths, plan.peephole};
    for (int i = 0; i < 8; ++i) {
        const int index = inputIndex[i];
        if (index < 0 || !args.inputs[index]) continue;
        device.present[i] = true;
        for (int k = 0; k < 4; ++k) device.strides[i][k] = args.inputs[index]->strides[k];
    }
    for (size_t o = 0; o < args.outputs.size(); ++o) {
        if (!args.outputs[o]) continue;
        device.present[8 + o] = true;
        for (int k = 0; k < 4; ++k) device.strides[8 + o][k] = args.outputs[o]->strides[k];
    }
    auto result = std::make_unique<RecurrentCudaKernel>(args.schema.name, device, inputIndex, int(args.outputs.size()));
    FREEDML_TRY(result->Plan(DeviceOf(context), context.flags));
    *kernel = std::move(result);
    return {};
}

}  // namespace freedml::dml::cuda
