// CUDA kernel of CONVOLUTION through cuDNN: 1-, 2- and 3-D, FORWARD and BACKWARD (transposed, as
// cuDNN's backward-data), CONVOLUTION and CROSS_CORRELATION modes, strides, dilations, groups,
// any input and output strides, optional bias and fused activation; FLOAT32 (full float unless
// compiled with ALLOW_HALF_PRECISION_COMPUTATION, which permits TF32) and FLOAT16 (tensor cores,
// float accumulation).
//
// cuDNN pads symmetrically. Asymmetric padding becomes: extra zeros at the end of the input
// (a padded copy in the temporary resource) when EndPadding > StartPadding, and a larger result
// cropped to the output when EndPadding < StartPadding. A 1-D convolution is a 2-D one of height 1.
// The filter must be packed for cuDNN: an owned one is packed into the persistent resource at
// initialization, an unowned strided one into the temporary resource at each execution. Bias and
// activation run as one pass over the output after the convolution (with the crop, when there is
// one).
//
// The implementation is chosen once, when the operator compiles, by timing candidates on scratch
// buffers of the operator's sizes (cuda_tuning.h; FREEDML_CUDNN_FIND=0 keeps to the heuristics):
// for FLOAT16 and for FLOAT32 1x1 filters, the plans cuDNN's graph-API heuristics (modes A and B)
// rank first and, for a 1x1 convolution of stride 1 without padding or groups, cuBLASLt's
// algorithms for it as a batched matrix product; otherwise cuDNN's Find over its legacy
// algorithms.
#include <algorithm>
#include <array>
#include <cstdlib>
#include <numeric>
#include <string>
#include <vector>

#include "dml/kernels/cuda/cuda_common.h"
#include "dml/kernels/cuda/cuda_tuning.h"

namespace freedml::dml::cuda {

namespace {

constexpr uint64_t kAlign = 256;
constexpr size_t kMaxWorkspace = size_t(1) << 30;
constexpr size_t kFindWorkspace = size_t(256) << 20;
constexpr uint64_t kMaxGemmWorkspace = uint64_t(32) << 20;
// Candidates timed per heuristics mode (cuDNN graph API) and from cuBLASLt.
constexpr size_t kGraphCandidates = 8;
constexpr int kGemmCandidates = 8;

uint64_t AlignUp(uint64_t v) { return (v + kAlign - 1) / kAlign * kAlign; }

Status CudnnError(cudnnStatus_t status, const char* what) {
    return Error(E_FAIL, "cuDNN %s failed: %s.", what, cudnnGetErrorString(status));
}

#define DNN_TRY(call, what)                                                       \
    do {                                                                          \
        cudnnStatus_t dnn_status_ = (call);                                       \
        if (dnn_status_ != CUDNN_STATUS_SUCCESS) return CudnnError(dnn_status_, what); \
    } while (0)

// A tensor as cuDNN sees it: 1-D convolutions get a height of 1 in front of the width.
struct DnnShape {
    int rank = 0;
    std::array<int, kMaxDims> sizes{};
    std::array<int, kMaxDims> strides{};
};

DnnShape ShapeOf(const TensorDesc& t, uint32_t spatial) {
    DnnShape s;
    if (spatial == 1) {
        s.rank = 4;
        s.sizes = {int(t.sizes[0]), int(t.sizes[1]), 1, int(t.sizes[2])};
        s.strides = {int(t.strides[0]), int(t.strides[1]), int(t.strides[2]) * int(t.sizes[2]), int(t.strides[2])};
    } else {
        s.rank = int(t.rank);
        for (uint32_t i = 0; i < t.rank; ++i) s.sizes[i] = int(t.sizes[i]), s.strides[i] = int(t.strides[i]);
    }
    return s;
}

// A forward convolution through cuDNN's graph API: its engines include native tensor-core kernels
// for NCHW FLOAT16 that the legacy API's fixed engine list lacks. Describe() builds the operation
// graph; AddCandidates() plans the engine configurations a heuristics mode ranks first; Choose()
// keeps one plan (the heuristics' first, or the fastest measured) and releases the others.
class GraphConvolution {
public:
    ~GraphConvolution() {
        for (auto d : owned_) cudnnBackendDestroyDescriptor(d);
    }
    int64_t WorkspaceSize() const { return workspace_; }

    bool Describe(cudnnHandle_t handle, cudnnDataType_t dataType, const DnnShape& x, const DnnShape& w,
                  const DnnShape& y, int spatial, const int* pads, const int* strides, const int* dilations,
                  cudnnConvolutionMode_t mode, int64_t alignment) {
        handle_ = handle;
        cudnnBackendDescriptor_t xd, wd, yd;
        if (!Tensor(1, dataType, x, alignment, &xd) || !Tensor(2, dataType, w, alignment, &wd) ||
            !Tensor(3, dataType, y, alignment, &yd)) {
            return false;
        }
        cudnnBackendDescriptor_t conv = Make(CUDNN_BACKEND_CONVOLUTION_DESCRIPTOR);
        if (!conv) return false;
        int64_t dims = spatial, p[3], st[3], dl[3];
        for (int i = 0; i < spatial; ++i) p[i] = pads[i], st[i] = strides[i], dl[i] = dilations[i];
        cudnnDataType_t compute = CUDNN_DATA_FLOAT;
        bool set = Set(conv, CUDNN_ATTR_CONVOLUTION_COMP_TYPE, CUDNN_TYPE_DATA_TYPE, 1, &compute) &&
                   Set(conv, CUDNN_ATTR_CONVOLUTION_CONV_MODE, CUDNN_TYPE_CONVOLUTION_MODE, 1, &mode) &&
                   Set(conv, CUDNN_ATTR_CONVOLUTION_SPATIAL_DIMS, CUDNN_TYPE_INT64, 1, &dims) &&
                   Set(conv, CUDNN_ATTR_CONVOLUTION_DILATIONS, CUDNN_TYPE_INT64, dims, dl) &&
                   Set(conv, CUDNN_ATTR_CONVOLUTION_FILTER_STRIDES, CUDNN_TYPE_INT64, dims, st) &&
                   Set(conv, CUDNN_ATTR_CONVOLUTION_PRE_PADDINGS, CUDNN_TYPE_INT64, dims, p) &&
                   Set(conv, CUDNN_ATTR_CONVOLUTION_POST_PADDINGS, CUDNN_TYPE_INT64, dims, p);
        if (!set || cudnnBackendFinalize(conv) != CUDNN_STATUS_SUCCESS) return false;
        cudnnBackendDescriptor_t op = Make(CUDNN_BACKEND_OPERATION_CONVOLUTION_FORWARD_DESCRIPTOR);
        float alpha = 1.0f, beta = 0.0f;
        set = op && Set(op, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_X, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &xd) &&
              Set(op, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_W, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &wd) &&
              Set(op, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_Y, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &yd) &&
              Set(op, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_CONV_DESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &conv) &&
              Set(op, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_ALPHA, CUDNN_TYPE_FLOAT, 1, &alpha) &&
              Set(op, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_BETA, CUDNN_TYPE_FLOAT, 1, &beta);
        if (!set || cudnnBackendFinalize(op) != CUDNN_STATUS_SUCCESS) return false;
        graph_ = Make(CUDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR);
        set = graph_ && Set(graph_, CUDNN_ATTR_OPERATIONGRAPH_OPS, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &op) &&
              Set(graph_, CUDNN_ATTR_OPERATIONGRAPH_HANDLE, CUDNN_TYPE_HANDLE, 1, &handle);
        if (!set || cudnnBackendFinalize(graph_) != CUDNN_STATUS_SUCCESS) graph_ = nullptr;
        return graph_ != nullptr;
    }

    // Plans up to `limit` of the configurations `mode` ranks first that make a plan within the
    // workspace limit (in full float, only engines that neither use tensor cores, which means
    // TF32, nor convert their inputs down). Only the first candidate may need runtime compilation,
    // which can take a second per engine. Configurations already planned are skipped.
    void AddCandidates(cudnnBackendHeurMode_t mode, bool strictFloat, size_t limit) {
        cudnnBackendDescriptor_t heuristics = Make(CUDNN_BACKEND_ENGINEHEUR_DESCRIPTOR);
        if (!graph_ || !heuristics ||
            !Set(heuristics, CUDNN_ATTR_ENGINEHEUR_OPERATION_GRAPH, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &graph_) ||
            !Set(heuristics, CUDNN_ATTR_ENGINEHEUR_MODE, CUDNN_TYPE_HEUR_MODE, 1, &mode) ||
            cudnnBackendFinalize(heuristics) != CUDNN_STATUS_SUCCESS) {
            return;
        }
        int64_t count = 0;
        if (cudnnBackendGetAttribute(heuristics, CUDNN_ATTR_ENGINEHEUR_RESULTS, CUDNN_TYPE_BACKEND_DESCRIPTOR, 0, &count,
                                     nullptr) != CUDNN_STATUS_SUCCESS || count <= 0) {
            return;
        }
        count = std::min<int64_t>(count, strictFloat ? 32 : 8 + int64_t(limit));
        std::vector<cudnnBackendDescriptor_t> configs(size_t(count), nullptr);
        for (auto& c : configs) c = Make(CUDNN_BACKEND_ENGINECFG_DESCRIPTOR);
        int64_t returned = 0;
        if (cudnnBackendGetAttribute(heuristics, CUDNN_ATTR_ENGINEHEUR_RESULTS, CUDNN_TYPE_BACKEND_DESCRIPTOR, count,
                                     &returned, configs.data()) != CUDNN_STATUS_SUCCESS) {
            return;
        }
        size_t added = 0;
        for (int64_t i = 0; i < returned && added < limit; ++i) {
            cudnnBackendDescriptor_t config = configs[size_t(i)];
            cudnnBackendDescriptor_t engine = EngineOf(config);
            if (!engine || (strictFloat && !FullFloat(engine)) || (!candidates_.empty() && CompilesAtRuntime(engine))) {
                continue;
            }
            cudnnBackendDescriptor_t plan = Make(CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR);
            if (!plan || !Set(plan, CUDNN_ATTR_EXECUTION_PLAN_HANDLE, CUDNN_TYPE_HANDLE, 1, &handle_) ||
                !Set(plan, CUDNN_ATTR_EXECUTION_PLAN_ENGINE_CONFIG, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &config) ||
                cudnnBackendFinalize(plan) != CUDNN_STATUS_SUCCESS) {
                continue;
            }
            int64_t workspace = 0, got = 0, index = -1;
            cudnnBackendGetAttribute(plan, CUDNN_ATTR_EXECUTION_PLAN_WORKSPACE_SIZE, CUDNN_TYPE_INT64, 1, &got, &workspace);
            if (workspace < 0 || uint64_t(workspace) > kMaxWorkspace) continue;
            const std::string key = PlanKey(plan);
            bool seen = false;
            for (const Candidate& c : candidates_) seen = seen || (!key.empty() && c.key == key);
            if (seen) continue;
            cudnnBackendGetAttribute(engine, CUDNN_ATTR_ENGINE_GLOBAL_INDEX, CUDNN_TYPE_INT64, 1, &got, &index);
            candidates_.push_back({plan, workspace, key,
                                   "cuDNN engine " + std::to_string(index) + " (heuristics " +
                                       (mode == CUDNN_HEUR_MODE_B ? "B" : "A") + " #" + std::to_string(i + 1) + ")"});
            ++added;
        }
    }

    size_t CandidateCount() const { return candidates_.size(); }
    int64_t CandidateWorkspace(size_t i) const { return candidates_[i].workspace; }
    const std::string& CandidateLabel(size_t i) const { return candidates_[i].label; }
    cudnnStatus_t ExecuteCandidate(size_t i, cudnnHandle_t handle, const void* x, const void* w, void* y,
                                   void* workspace) const {
        return Run(candidates_[i].plan, handle, x, w, y, workspace);
    }

    void Choose(size_t chosen) {
        for (size_t i = 0; i < candidates_.size(); ++i) {
            if (i == chosen) continue;
            owned_.erase(std::find(owned_.begin(), owned_.end(), candidates_[i].plan));
            cudnnBackendDestroyDescriptor(candidates_[i].plan);
        }
        plan_ = candidates_[chosen].plan;
        workspace_ = candidates_[chosen].workspace;
        candidates_.clear();
    }

    cudnnStatus_t Execute(cudnnHandle_t handle, const void* x, const void* w, void* y, void* workspace) const {
        return Run(plan_, handle, x, w, y, workspace);
    }

private:
    struct Candidate {
        cudnnBackendDescriptor_t plan;
        int64_t workspace;
        std::string key;  // the plan's serialization: the same engine and knobs give the same key
        std::string label;
    };

    static cudnnStatus_t Run(cudnnBackendDescriptor_t plan, cudnnHandle_t handle, const void* x, const void* w,
                             void* y, void* workspace) {
        cudnnBackendDescriptor_t pack = nullptr;
        cudnnStatus_t status = cudnnBackendCreateDescriptor(CUDNN_BACKEND_VARIANT_PACK_DESCRIPTOR, &pack);
        if (status != CUDNN_STATUS_SUCCESS) return status;
        int64_t ids[3] = {1, 2, 3};
        void* pointers[3] = {const_cast<void*>(x), const_cast<void*>(w), y};
        status = cudnnBackendSetAttribute(pack, CUDNN_ATTR_VARIANT_PACK_UNIQUE_IDS, CUDNN_TYPE_INT64, 3, ids);
        if (status == CUDNN_STATUS_SUCCESS)
            status = cudnnBackendSetAttribute(pack, CUDNN_ATTR_VARIANT_PACK_DATA_POINTERS, CUDNN_TYPE_VOID_PTR, 3, pointers);
        if (status == CUDNN_STATUS_SUCCESS)
            status = cudnnBackendSetAttribute(pack, CUDNN_ATTR_VARIANT_PACK_WORKSPACE, CUDNN_TYPE_VOID_PTR, 1, &workspace);
        if (status == CUDNN_STATUS_SUCCESS) status = cudnnBackendFinalize(pack);
        if (status == CUDNN_STATUS_SUCCESS) status = cudnnBackendExecute(handle, plan, pack);
        cudnnBackendDestroyDescriptor(pack);
        return status;
    }

    cudnnBackendDescriptor_t EngineOf(cudnnBackendDescriptor_t config) {
        cudnnBackendDescriptor_t engine = Make(CUDNN_BACKEND_ENGINE_DESCRIPTOR);
        int64_t got = 0;
        if (!engine || cudnnBackendGetAttribute(config, CUDNN_ATTR_ENGINECFG_ENGINE, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1,
                                                &got, &engine) != CUDNN_STATUS_SUCCESS) {
            return nullptr;
        }
        return engine;
    }

    static bool FullFloat(cudnnBackendDescriptor_t engine) {
        cudnnBackendNumericalNote_t notes[CUDNN_NUMERICAL_NOTE_TYPE_COUNT];
        int64_t got = 0;
        if (cudnnBackendGetAttribute(engine, CUDNN_ATTR_ENGINE_NUMERICAL_NOTE, CUDNN_TYPE_NUMERICAL_NOTE,
                                     CUDNN_NUMERICAL_NOTE_TYPE_COUNT, &got, notes) != CUDNN_STATUS_SUCCESS) {
            return false;
        }
        for (int64_t i = 0; i < got; ++i) {
            if (notes[i] == CUDNN_NUMERICAL_NOTE_TENSOR_CORE || notes[i] == CUDNN_NUMERICAL_NOTE_DOWN_CONVERT_INPUTS) {
                return false;
            }
        }
        return true;
    }

    static bool CompilesAtRuntime(cudnnBackendDescriptor_t engine) {
        cudnnBackendBehaviorNote_t notes[CUDNN_BEHAVIOR_NOTE_TYPE_COUNT];
        int64_t got = 0;
        if (cudnnBackendGetAttribute(engine, CUDNN_ATTR_ENGINE_BEHAVIOR_NOTE, CUDNN_TYPE_BEHAVIOR_NOTE,
                                     CUDNN_BEHAVIOR_NOTE_TYPE_COUNT, &got, notes) != CUDNN_STATUS_SUCCESS) {
            return false;
        }
        for (int64_t i = 0; i < got; ++i) {
            if (notes[i] == CUDNN_BEHAVIOR_NOTE_RUNTIME_COMPILATION) return true;
        }
        return false;
    }

    // "" when cuDNN cannot serialize the plan (it is then never taken for a duplicate).
    static std::string PlanKey(cudnnBackendDescriptor_t plan) {
        int64_t size = 0;
        if (cudnnBackendGetAttribute(plan, CUDNN_ATTR_EXECUTION_PLAN_JSON_REPRESENTATION, CUDNN_TYPE_CHAR, 0, &size,
                                     nullptr) != CUDNN_STATUS_SUCCESS || size <= 0) {
            return {};
        }
        std::string key(size_t(size), '\0');
        if (cudnnBackendGetAttribute(plan, CUDNN_ATTR_EXECUTION_PLAN_JSON_REPRESENTATION, CUDNN_TYPE_CHAR, size, &size,
                                     key.data()) != CUDNN_STATUS_SUCCESS) {
            return {};
        }
        key.resize(size_t(std::max<int64_t>(size, 0)));
        return key;
    }

    cudnnBackendDescriptor_t Make(cudnnBackendDescriptorType_t type) {
        cudnnBackendDescriptor_t d = nullptr;
        if (cudnnBackendCreateDescriptor(type, &d) != CUDNN_STATUS_SUCCESS) return nullptr;
        owned_.push_back(d);
        return d;
    }
    static bool Set(cudnnBackendDescriptor_t d, cudnnBackendAttributeName_t name, cudnnBackendAttributeType_t type,
                    int64_t count, const void* value) {
        return cudnnBackendSetAttribute(d, name, type, count, value) == CUDNN_STATUS_SUCCESS;
    }
    bool Tensor(int64_t id, cudnnDataType_t dataType, const DnnShape& shape, int64_t alignment,
                cudnnBackendDescriptor_t* out) {
        cudnnBackendDescriptor_t d = Make(CUDNN_BACKEND_TENSOR_DESCRIPTOR);
        int64_t dims[kMaxDims], strides[kMaxDims], rank = shape.rank;
        for (int i = 0; i < shape.rank; ++i) dims[i] = shape.sizes[size_t(i)], strides[i] = shape.strides[size_t(i)];
        bool set = d && Set(d, CUDNN_ATTR_TENSOR_DATA_TYPE, CUDNN_TYPE_DATA_TYPE, 1, &dataType) &&
                   Set(d, CUDNN_ATTR_TENSOR_DIMENSIONS, CUDNN_TYPE_INT64, rank, dims) &&
                   Set(d, CUDNN_ATTR_TENSOR_STRIDES, CUDNN_TYPE_INT64, rank, strides) &&
                   Set(d, CUDNN_ATTR_TENSOR_UNIQUE_ID, CUDNN_TYPE_INT64, 1, &id) &&
                   Set(d, CUDNN_ATTR_TENSOR_BYTE_ALIGNMENT, CUDNN_TYPE_INT64, 1, &alignment);
        if (!set || cudnnBackendFinalize(d) != CUDNN_STATUS_SUCCESS) return false;
        *out = d;
        return true;
    }

    std::vector<cudnnBackendDescriptor_t> owned_;
    cudnnHandle_t handle_ = nullptr;
    cudnnBackendDescriptor_t graph_ = nullptr;
    std::vector<Candidate> candidates_;
    cudnnBackendDescriptor_t plan_ = nullptr;
    int64_t workspace_ = 0;
};

// A 1x1 convolution of stride 1 without padding, dilation or groups is one matrix product per
// image: with S the spatial size, Result[n] (K x S) = Filter (K x C) x Input[n] (C x S). In
// cuBLASLt's column-major terms the stored Input[n] is S x C (its channel stride the leading
// dimension), the packed Filter is C x K and the stored Result[n] is S x K, so Input[n] x Filter
// is the result as stored: one strided-batched product sharing the filter across images.
class PointwiseGemm {
public:
    ~PointwiseGemm() {
        for (auto* layout : {&xLayout_, &wLayout_, &yLayout_}) {
            if (*layout) cublasLtMatrixLayoutDestroy(*layout);
        }
        if (op_) cublasLtMatmulDescDestroy(op_);
    }

    // False when a tensor's spatial dimensions are not one contiguous run, or cuBLASLt refuses.
    // `align*`: the byte alignment each binding is known to have.
    bool Describe(ElementType type, bool allowTf32, const TensorDesc& input, const TensorDesc& result,
                  uint32_t alignX, uint32_t alignW, uint32_t alignY) {
        Images x, y;
        if (!ImagesOf(input, &x) || !ImagesOf(result, &y) || x.spatial != y.spatial) return false;
        const cudaDataType_t dataType = type == ElementType::F16 ? CUDA_R_16F : CUDA_R_32F;
        const cublasComputeType_t compute =
            type == ElementType::F32 && allowTf32 ? CUBLAS_COMPUTE_32F_FAST_TF32 : CUBLAS_COMPUTE_32F;
        const uint64_t elementBytes = type == ElementType::F16 ? 2 : 4;
        const uint64_t channels = input.sizes[1], filters = result.sizes[1];
        const int32_t images = int32_t(input.sizes[0]);
        if (cublasLtMatmulDescCreate(&op_, compute, CUDA_R_32F) != CUBLAS_STATUS_SUCCESS) return false;
        auto layout = [&](cublasLtMatrixLayout_t* l, uint64_t rows, uint64_t cols, int64_t ld, int64_t batchStride) {
            if (cublasLtMatrixLayoutCreate(l, dataType, rows, cols, ld) != CUBLAS_STATUS_SUCCESS) return false;
            if (images == 1) return true;
            return cublasLtMatrixLayoutSetAttribute(*l, CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, &images, sizeof(images)) ==
                       CUBLAS_STATUS_SUCCESS &&
                   cublasLtMatrixLayoutSetAttribute(*l, CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET, &batchStride,
                                                    sizeof(batchStride)) == CUBLAS_STATUS_SUCCESS;
        };
        if (!layout(&xLayout_, x.spatial, channels, x.ld, x.batchStride) ||
            !layout(&wLayout_, channels, filters, int64_t(channels), 0) ||
            !layout(&yLayout_, y.spatial, filters, y.ld, y.batchStride)) {
            return false;
        }
        // Every image's pointer, not just the first, must have the alignment promised.
        auto stepped = [&](uint32_t base, int64_t batchStride) {
            uint64_t a = base;
            if (images > 1 && batchStride != 0) a = std::gcd(a, uint64_t(batchStride) * elementBytes);
            return uint32_t(a);
        };
        align_[0] = stepped(alignX, x.batchStride);
        align_[1] = alignW;
        align_[2] = align_[3] = stepped(alignY, y.batchStride);
        return true;
    }

    // Up to `count` algorithms, best first by cuBLASLt's heuristics, within kMaxGemmWorkspace.
    std::vector<cublasLtMatmulHeuristicResult_t> Algorithms(cublasLtHandle_t handle, int count) const {
        std::vector<cublasLtMatmulHeuristicResult_t> results(static_cast<size_t>(count));
        cublasLtMatmulPreference_t preference = nullptr;
        if (cublasLtMatmulPreferenceCreate(&preference) != CUBLAS_STATUS_SUCCESS) return {};
        const uint64_t maxWorkspace = kMaxGemmWorkspace;
        cublasLtMatmulPreferenceSetAttribute(preference, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &maxWorkspace,
                                             sizeof(maxWorkspace));
        const cublasLtMatmulPreferenceAttributes_t alignments[4] = {
            CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_B_BYTES,
            CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_C_BYTES, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_D_BYTES};
        for (int i = 0; i < 4; ++i) {
            cublasLtMatmulPreferenceSetAttribute(preference, alignments[i], &align_[i], sizeof(align_[i]));
        }
        int found = 0;
        cublasStatus_t status = cublasLtMatmulAlgoGetHeuristic(handle, op_, xLayout_, wLayout_, yLayout_, yLayout_,
                                                               preference, count, results.data(), &found);
        cublasLtMatmulPreferenceDestroy(preference);
        results.resize(status == CUBLAS_STATUS_SUCCESS ? size_t(std::max(found, 0)) : 0);
        return results;
    }

    void Use(const cublasLtMatmulHeuristicResult_t& chosen) {
        algo_ = chosen.algo;
        workspace_ = chosen.workspaceSize;
    }
    size_t WorkspaceSize() const { return workspace_; }

    cublasStatus_t Run(cublasLtHandle_t handle, const cublasLtMatmulAlgo_t& algo, const void* x, const void* w,
                       void* y, void* workspace, size_t workspaceBytes, cudaStream_t stream) const {
        const float one = 1.0f, zero = 0.0f;
        return cublasLtMatmul(handle, op_, &one, x, xLayout_, w, wLayout_, &zero, y, yLayout_, y, yLayout_, &algo,
                              workspace, workspaceBytes, stream);
    }
    cublasStatus_t Execute(cublasLtHandle_t handle, const void* x, const void* w, void* y, void* workspace,
                           cudaStream_t stream) const {
        return Run(handle, algo_, x, w, y, workspace, workspace_, stream);
    }

private:
    // A tensor as a batch of S x channels column-major matrices.
    struct Images {
        uint64_t spatial = 1;
        int64_t ld = 0, batchStride = 0;
    };
    static bool ImagesOf(const TensorDesc& t, Images* out) {
        uint64_t run = 1;
        for (uint32_t d = t.rank; d-- > 2;) {
            if (t.sizes[d] != 1 && t.strides[d] != run) return false;
            run *= t.sizes[d];
        }
        out->spatial = run;
        out->ld = t.sizes[1] == 1 ? int64_t(run) : int64_t(t.strides[1]);
        out->batchStride = int64_t(t.strides[0]);
        return out->ld >= int64_t(run);
    }

    cublasLtMatmulDesc_t op_ = nullptr;
    cublasLtMatrixLayout_t xLayout_ = nullptr, wLayout_ = nullptr, yLayout_ = nullptr;
    uint32_t align_[4] = {};  // A (input), B (filter), C and D (result)
    cublasLtMatmulAlgo_t algo_{};
    size_t workspace_ = 0;
};

TensorDesc Packed(const TensorDesc& t) {
    TensorDesc p = t;
    uint32_t stride = 1;
    for (uint32_t i = t.rank; i-- > 0;) {
        p.strides[i] = stride;
        stride *= t.sizes[i];
    }
    return p;
}

class ConvolutionKernel final : public Kernel {
public:
    ~ConvolutionKernel() override {
        if (x_) cudnnDestroyTensorDescriptor(x_);
        if (y_) cudnnDestroyTensorDescriptor(y_);
        if (w_) cudnnDestroyFilterDescriptor(w_);
        if (conv_) cudnnDestroyConvolutionDescriptor(conv_);
    }

    Status Plan(CudaDevice& device, const OperatorArgs& args, DML_EXECUTION_FLAGS flags);
    uint64_t PersistentResourceSize() const override { return persistentSize_; }
    uint64_t TemporaryResourceSize() const override { return temporarySize_; }

    void Initialize(const KernelBindings& b) override {
        CudaStream& stream = StreamOf(b);
        if (filterOwned_ && b.inputs.size() > 1 && b.inputs[1]) {
            stream.Check(
                LaunchCopy(filterPack_, elementBytes_, b.persistent + filterOffset_, b.inputs[1], stream.Launch()),
                "CONVOLUTION initialization (filter)");
        }
        if (biasOwned_ && b.inputs.size() > 2 && b.inputs[2]) {
            stream.Check(cudaMemcpyAsync(b.persistent + biasOffset_, b.inputs[2], biasBytes_, cudaMemcpyDeviceToDevice,
                                         stream.Get()),
                         "CONVOLUTION initialization (bias)");
        }
    }

    // Owned filter and bias are packed by Initialize above; an owned input tensor is copied as it
    // is by the compiled operator.
    bool PacksOwnedInput(size_t input) const override { return input == 1 || input == 2; }
    void Execute(const KernelBindings& b) override;

private:
    bool backward_ = false;
    ElementType type_ = ElementType::F32;
    uint32_t elementBytes_ = 4;
    ActParams act_;
    // Filter: owned (persistent, packed at initialization), packed in temp, or read in place.
    bool filterOwned_ = false, filterPackInTemp_ = false;
    EwPlan<2> filterPack_;
    uint64_t filterOffset_ = 0;
    // Bias.
    bool hasBias_ = false, biasOwned_ = false;
    uint64_t biasOffset_ = 0, biasBytes_ = 0;
    // Input padded with trailing zeros (asymmetric padding).
    bool padInput_ = false;
    uint64_t paddedOffset_ = 0, paddedBytes_ = 0;
    EwPlan<2> padCopy_;
    // Result in temp, cropped into the output.
    bool cropOutput_ = false;
    uint64_t resultOffset_ = 0;
    // The pass after the convolution: output = act(result + bias) (operands: output, result, bias).
    EwPlan<3> finishPlan_;
    EwPlan<2> finishPlan2_;  // without bias
    bool finishPass_ = false;

    // Forward through cuDNN's graph API or as a matrix product, when one of them was chosen.
    std::unique_ptr<GraphConvolution> graph_;
    std::unique_ptr<PointwiseGemm> gemm_;
    cudnnTensorDescriptor_t x_ = nullptr, y_ = nullptr;  // forward: input, result; backward: dy (input), dx (result)
    cudnnFilterDescriptor_t w_ = nullptr;
    cudnnConvolutionDescriptor_t conv_ = nullptr;
    cudnnConvolutionFwdAlgo_t forwardAlgo_{};
    cudnnConvolutionBwdDataAlgo_t backwardAlgo_{};
    size_t workspaceSize_ = 0;
    uint64_t persistentSize_ = 0, temporarySize_ = 0;
};

Status ConvolutionKernel::Plan(CudaDevice& device, const OperatorArgs& args, DML_EXECUTION_FLAGS flags) {
    const auto& desc = args.As<DML_CONVOLUTION_OPERATOR_DESC>();
    const TensorDesc& in = *args.inputs[0];
    const TensorDesc& filter = *args.inputs[1];
    const TensorDesc& out = *args.outputs[0];
    const DML_TENSOR_DATA_TYPE type = out.dataType;
    const uint32_t dims = desc.DimensionCount;
    if (type != DML_TENSOR_DATA_TYPE_FLOAT32 && type != DML_TENSOR_DATA_TYPE_FLOAT16) {
        return NoKernel("CONVOLUTION supports FLOAT32 and FLOAT16 on CUDA (%s given).",
                     DataTypeName(type));
    }
    INVALID_IF(in.dataType != type || filter.dataType != type || (args.inputs[2] && args.inputs[2]->dataType != type),
               "CONVOLUTION needs one data type for Input, Filter, Bias and Output.");
    INVALID_IF(dims < 1 || dims > 3 || in.rank != dims + 2 || filter.rank != dims + 2 || out.rank != dims + 2,
               "CONVOLUTION needs DimensionCount 1 to 3 and tensors of rank DimensionCount + 2.");
    const uint32_t groups = desc.GroupCount;
    INVALID_IF(groups == 0 || in.sizes[1] % groups != 0 || out.sizes[1] % groups != 0,
               "CONVOLUTION's GroupCount (%u) must divide the input (%u) and output (%u) channels.", groups,
               in.sizes[1], out.sizes[1]);
    ToElementType(type, &type_);
    elementBytes_ = ElementBytes(type_);
    backward_ = desc.Direction == DML_CONVOLUTION_DIRECTION_BACKWARD;
    if (args.accumulateOutput) return NoKernel("the CUDA CONVOLUTION does not add onto its output (a CPU graph's epilogue).");
    ActivationParams epilogue;
    FREEDML_TRY(DecodeEpilogue(desc.FusedActivation, args.clampOutput, args.clampMin, args.clampMax, &epilogue));
    FREEDML_TRY(ToActParams(epilogue, &act_));

    uint64_t persistent = 0, temp = 0;
    // Filter.
    filterOwned_ = filter.OwnedByDml();
    filterPack_ = PackPlan(filter);
    if (filterOwned_) {
        filterOffset_ = persistent;
        persistent = AlignUp(persistent + filter.ElementCount() * elementBytes_);
    } else if (!IsPackedTensor(filter)) {
        filterPackInTemp_ = true;
        filterOffset_ = temp;
        temp = AlignUp(temp + filter.ElementCount() * elementBytes_);
    }
    // Bias.
    if (args.inputs[2]) {
        const TensorDesc& bias = *args.inputs[2];
        INVALID_IF(bias.rank < 2 || bias.sizes[1] != out.sizes[1] || bias.ElementCount() != out.sizes[1],
                   "CONVOLUTION's Bias %s should be {1, %u, 1, ...}.", bias.Describe().c_str(), out.sizes[1]);
        hasBias_ = true;
        biasOwned_ = bias.OwnedByDml();
        biasBytes_ = bias.MinimumSizeInBytes();
        if (biasOwned_) {
            biasOffset_ = persistent;
            persistent = AlignUp(persistent + biasBytes_);
        }
    }

    // Geometry, per spatial dimension: the padding cuDNN applies (StartPadding), the zeros added at
    // the input's end, and the size of the result cuDNN produces.
    std::array<int, 3> pads{}, strides{}, dilations{};
    TensorDesc input = in;        // what cuDNN reads (maybe padded)
    TensorDesc result = out;      // what cuDNN writes (maybe larger than the output)
    bool crop = false;
    for (uint32_t i = 0; i < dims; ++i) {
        const uint32_t d = 2 + i;
        const int64_t start = desc.StartPadding[i], end = desc.EndPadding[i];
        const int64_t s = desc.Strides[i], dil = desc.Dilations[i];
        INVALID_IF(s == 0 || dil == 0, "CONVOLUTION's Strides and Dilations must be at least 1.");
        const int64_t k = filter.sizes[d];
        const int64_t extent = (k - 1) * dil + 1;
        pads[i] = int(start), strides[i] = int(s), dilations[i] = int(dil);
        if (!backward_) {
            if (end > start) {
                padInput_ = true;
                input.sizes[d] = uint32_t(in.sizes[d] + (end - start));
            }
            const int64_t produced = (int64_t(input.sizes[d]) + 2 * start - extent) / s + 1;
            if (produced != int64_t(out.sizes[d])) {
                INVALID_IF(produced < int64_t(out.sizes[d]), "CONVOLUTION's output size %u in dimension %u does not "
                           "follow from the input, filter, strides and padding.", out.sizes[d], d);
                crop = true;
                result.sizes[d] = uint32_t(produced);
            }
        } else {
            // cuDNN's backward data needs a result size X with (X + 2 * start - extent) / s + 1 equal
            // to the input size: X from Xmin to Xmin + s - 1.
            const int64_t xMin = (int64_t(in.sizes[d]) - 1) * s - 2 * start + extent;
            const int64_t o = out.sizes[d];
            INVALID_IF(xMin < 1, "CONVOLUTION (BACKWARD): the padding in dimension %u leaves no output.", d);
            if (o > xMin + s - 1) {
                return NoKernel(
                             "A BACKWARD CONVOLUTION whose StartPadding - EndPadding + OutputPadding is at least its "
                             "Strides (dimension %u) is not supported on CUDA yet.",
                             d);
            }
            if (o < xMin) {
                crop = true;
                result.sizes[d] = uint32_t(xMin);
            }
        }
    }
    if (padInput_) {
        input = Packed(input);
        paddedOffset_ = temp;
        paddedBytes_ = input.ElementCount() * elementBytes_;
        temp = AlignUp(temp + paddedBytes_);
        TensorDesc slice = input;
        slice.sizes = in.sizes;
        padCopy_ = CopyPlan(slice, in);
    }
    if (crop) {
        cropOutput_ = true;
        result = Packed(result);
        resultOffset_ = temp;
        temp = AlignUp(temp + result.ElementCount() * elementBytes_);
    }
    // The pass after cuDNN: over the output's shape, reading the result (the crop's window).
    finishPass_ = hasBias_ || act_.act != Act::None || cropOutput_;
    {
        int64_t s3[3][kMaxDims] = {};
        OwnStrides(out, s3[0]);
        OwnStrides(result, s3[1]);
        if (hasBias_) s3[2][1] = args.inputs[2]->strides[1];
        finishPlan_ = MakeEwPlan<3>(out.sizes.data(), out.rank, s3);
        int64_t s2[2][kMaxDims];
        OwnStrides(out, s2[0]);
        OwnStrides(result, s2[1]);
        finishPlan2_ = MakeEwPlan<2>(out.sizes.data(), out.rank, s2);
    }

    // Descriptors.
    const cudnnDataType_t dataType = type_ == ElementType::F16 ? CUDNN_DATA_HALF : CUDNN_DATA_FLOAT;
    const int spatial = dims == 1 ? 2 : int(dims);
    std::array<int, 3> p2 = pads, s2 = strides, d2 = dilations;
    if (dims == 1) p2 = {0, pads[0], 0}, s2 = {1, strides[0], 0}, d2 = {1, dilations[0], 0};
    DNN_TRY(cudnnCreateConvolutionDescriptor(&conv_), "convolution descriptor");
    DNN_TRY(cudnnSetConvolutionNdDescriptor(conv_, spatial, p2.data(), s2.data(), d2.data(),
                                            desc.Mode == DML_CONVOLUTION_MODE_CONVOLUTION ? CUDNN_CONVOLUTION
                                                                                          : CUDNN_CROSS_CORRELATION,
                                            CUDNN_DATA_FLOAT),
            "convolution descriptor");
    DNN_TRY(cudnnSetConvolutionGroupCount(conv_, int(groups)), "group count");
    const bool strictFloat =
        type_ == ElementType::F32 && (flags & DML_EXECUTION_FLAG_ALLOW_HALF_PRECISION_COMPUTATION) == 0;
    DNN_TRY(cudnnSetConvolutionMathType(conv_, strictFloat ? CUDNN_FMA_MATH : CUDNN_TENSOR_OP_MATH), "math type");

    auto tensorDesc = [&](cudnnTensorDescriptor_t* t, const TensorDesc& tensor) -> Status {
        DnnShape s = ShapeOf(tensor, dims);
        DNN_TRY(cudnnCreateTensorDescriptor(t), "tensor descriptor");
        DNN_TRY(cudnnSetTensorNdDescriptor(*t, dataType, s.rank, s.sizes.data(), s.strides.data()),
                "tensor descriptor");
        return {};
    };
    FREEDML_TRY(tensorDesc(&x_, input));
    FREEDML_TRY(tensorDesc(&y_, result));
    DnnShape f = ShapeOf(Packed(filter), dims);
    DNN_TRY(cudnnCreateFilterDescriptor(&w_), "filter descriptor");
    DNN_TRY(cudnnSetFilterNdDescriptor(w_, dataType, CUDNN_TENSOR_NCHW, f.rank, f.sizes.data()), "filter descriptor");

    cudnnHandle_t handle;
    auto lock = device.PlanningLock();
    FREEDML_TRY(device.PlanningCudnn(&handle));
    const bool measure = MeasuringAllowed();
    TimingScratch scratch;
    auto allocateScratch = [&](uint64_t workspaceLimit) {
        device.MakeCurrent();
        return scratch.Allocate({input.MinimumSizeInBytes(), filter.ElementCount() * elementBytes_,
                                 result.MinimumSizeInBytes()},
                                workspaceLimit);
    };
    // The temporary resource: [workspace][packed filter][padded input][result], 256-byte aligned.
    auto layOutTemporary = [&] {
        const uint64_t workspace = AlignUp(workspaceSize_);
        if (filterPackInTemp_) filterOffset_ += workspace;
        paddedOffset_ += workspace;
        resultOffset_ += workspace;
        temp += workspace;
        temporarySize_ = temp > 0 ? temp + kAlign : 0;
        persistentSize_ = persistent;
    };
    // The graph API for FLOAT16, and for FLOAT32 1x1 filters (where its full-float engines beat the
    // legacy ones; cuDNN's Find over the legacy engines wins for larger filters).
    bool pointwise = true;
    for (uint32_t i = 0; i < dims; ++i) pointwise = pointwise && filter.sizes[2 + i] == 1;
    if (!backward_ && (type_ == ElementType::F16 || pointwise)) {
        // The byte alignment each binding is known to have (the temporary resource's: 256).
        auto known = [](const TensorDesc& t, bool inTemporary) {
            return inTemporary ? uint32_t(kAlign) : uint32_t(std::min<uint64_t>(t.RequiredOffsetAlignment(), kAlign));
        };
        const uint32_t alignIn = known(in, padInput_);
        const uint32_t alignFilter = known(filter, filterOwned_ || filterPackInTemp_);
        const uint32_t alignOut = known(out, cropOutput_);
        auto graph = std::make_unique<GraphConvolution>();
        if (graph->Describe(handle, dataType, ShapeOf(input, dims), ShapeOf(Packed(filter), dims),
                            ShapeOf(result, dims), spatial, p2.data(), s2.data(), d2.data(),
                            desc.Mode == DML_CONVOLUTION_MODE_CONVOLUTION ? CUDNN_CONVOLUTION : CUDNN_CROSS_CORRELATION,
                            std::min({alignIn, alignFilter, alignOut}))) {
            graph->AddCandidates(CUDNN_HEUR_MODE_INSTANT, strictFloat, measure ? kGraphCandidates : 1);
            if (measure) graph->AddCandidates(CUDNN_HEUR_MODE_B, strictFloat, kGraphCandidates);
        }
        // A 1x1 convolution of stride 1 without padding or groups can also run as a matrix product;
        // only a measurement decides for it.
        auto gemm = std::make_unique<PointwiseGemm>();
        std::vector<cublasLtMatmulHeuristicResult_t> gemmAlgos;
        cublasLtHandle_t lt = nullptr;
        bool product = measure && pointwise && groups == 1 && !padInput_;
        for (uint32_t i = 0; i < dims; ++i) product = product && pads[i] == 0 && strides[i] == 1;
        if (product && device.PlanningCublasLt(&lt).ok() &&
            gemm->Describe(type_, !strictFloat, input, result, alignIn, alignFilter, alignOut)) {
            gemmAlgos = gemm->Algorithms(lt, kGemmCandidates);
        }

        const size_t graphCount = graph->CandidateCount();
        const size_t total = graphCount + gemmAlgos.size();
        int chosen = total > 0 ? 0 : -1;  // without a measurement, the graph heuristics' first
        if (measure && total > 1) {
            uint64_t workspaceLimit = 0;
            for (size_t i = 0; i < graphCount; ++i) {
                workspaceLimit = std::max<uint64_t>(workspaceLimit, uint64_t(graph->CandidateWorkspace(i)));
            }
            for (const auto& a : gemmAlgos) workspaceLimit = std::max<uint64_t>(workspaceLimit, a.workspaceSize);
            if (allocateScratch(workspaceLimit)) {
                const void* x = scratch.buffers[0];
                const void* w = scratch.buffers[1];
                void* y = scratch.buffers[2];
                std::vector<CandidateLaunch> launches;
                std::vector<std::string> labels;
                for (size_t i = 0; i < graphCount; ++i) {
                    launches.push_back([&, i](cudaStream_t stream) {
                        return uint64_t(graph->CandidateWorkspace(i)) <= scratch.workspaceBytes &&
                               cudnnSetStream(handle, stream) == CUDNN_STATUS_SUCCESS &&
                               graph->ExecuteCandidate(i, handle, x, w, y, scratch.workspace) == CUDNN_STATUS_SUCCESS;
                    });
                    labels.push_back(graph->CandidateLabel(i));
                }
                for (size_t i = 0; i < gemmAlgos.size(); ++i) {
                    launches.push_back([&, i](cudaStream_t stream) {
                        const size_t bytes = gemmAlgos[i].workspaceSize;
                        return bytes <= scratch.workspaceBytes &&
                               gemm->Run(lt, gemmAlgos[i].algo, x, w, y, bytes ? scratch.workspace : nullptr, bytes,
                                         stream) == CUBLAS_STATUS_SUCCESS;
                    });
                    labels.push_back("cuBLASLt algorithm " + std::to_string(i));
                }
                cudaStream_t planningStream = nullptr;
                cudnnGetStream(handle, &planningStream);
                const std::string what = "CONVOLUTION " + in.Describe() + " * " + filter.Describe();
                const int fastest = FastestCandidate(launches, what.c_str(), labels);
                cudnnSetStream(handle, planningStream);
                if (fastest >= 0) chosen = fastest;
            }
            scratch.Release();
        }
        if (chosen >= 0 && size_t(chosen) < graphCount) {
            graph->Choose(size_t(chosen));
            graph_ = std::move(graph);
            workspaceSize_ = size_t(graph_->WorkspaceSize());
        } else if (chosen >= 0) {
            gemm->Use(gemmAlgos[size_t(chosen) - graphCount]);
            gemm_ = std::move(gemm);
            workspaceSize_ = gemm_->WorkspaceSize();
        }
        if (graph_ || gemm_) {
            layOutTemporary();
            return {};
        }
    }
    constexpr int kCandidates = 16;
    int returned = 0;
    bool chosen = false;
    cudnnMathType_t math = CUDNN_DEFAULT_MATH;
    auto acceptable = [&](cudnnStatus_t status, size_t memory, cudnnMathType_t mathType) {
        return status == CUDNN_STATUS_SUCCESS && memory <= kMaxWorkspace &&
               (!strictFloat || mathType == CUDNN_FMA_MATH || mathType == CUDNN_DEFAULT_MATH);
    };
    // cuDNN's Find times the legacy algorithms on scratch buffers: far better choices than its
    // heuristics alone, at a one-time cost when the operator compiles.
    if (measure) allocateScratch(kFindWorkspace);
    if (!backward_) {
        cudnnConvolutionFwdAlgoPerf_t perf[kCandidates];
        cudnnStatus_t found = CUDNN_STATUS_NOT_SUPPORTED;
        if (scratch.ok) {
            found = cudnnFindConvolutionForwardAlgorithmEx(handle, x_, scratch.buffers[0], w_, scratch.buffers[1], conv_,
                                                           y_, scratch.buffers[2], kCandidates, &returned, perf,
                                                           scratch.workspace, scratch.workspaceBytes);
        }
        if (found != CUDNN_STATUS_SUCCESS) {
            DNN_TRY(cudnnGetConvolutionForwardAlgorithm_v7(handle, x_, w_, conv_, y_, kCandidates, &returned, perf),
                    "forward algorithm heuristics");
        }
        for (int i = 0; i < returned && !chosen; ++i) {
            if (!acceptable(perf[i].status, perf[i].memory, perf[i].mathType)) continue;
            forwardAlgo_ = perf[i].algo;
            math = perf[i].mathType;
            chosen = true;
        }
        if (chosen) {
            if (!strictFloat) DNN_TRY(cudnnSetConvolutionMathType(conv_, math), "math type");
            DNN_TRY(cudnnGetConvolutionForwardWorkspaceSize(handle, x_, w_, conv_, y_, forwardAlgo_, &workspaceSize_),
                    "forward workspace size");
        }
    } else {
        cudnnConvolutionBwdDataAlgoPerf_t perf[kCandidates];
        cudnnStatus_t found = CUDNN_STATUS_NOT_SUPPORTED;
        if (scratch.ok) {
            found = cudnnFindConvolutionBackwardDataAlgorithmEx(handle, w_, scratch.buffers[1], x_, scratch.buffers[0],
                                                                conv_, y_, scratch.buffers[2], kCandidates, &returned,
                                                                perf, scratch.workspace, scratch.workspaceBytes);
        }
        if (found != CUDNN_STATUS_SUCCESS) {
            DNN_TRY(cudnnGetConvolutionBackwardDataAlgorithm_v7(handle, w_, x_, conv_, y_, kCandidates, &returned, perf),
                    "backward-data algorithm heuristics");
        }
        for (int i = 0; i < returned && !chosen; ++i) {
            if (!acceptable(perf[i].status, perf[i].memory, perf[i].mathType)) continue;
            backwardAlgo_ = perf[i].algo;
            math = perf[i].mathType;
            chosen = true;
        }
        if (chosen) {
            if (!strictFloat) DNN_TRY(cudnnSetConvolutionMathType(conv_, math), "math type");
            DNN_TRY(cudnnGetConvolutionBackwardDataWorkspaceSize(handle, w_, x_, conv_, y_, backwardAlgo_,
                                                                 &workspaceSize_),
                    "backward-data workspace size");
        }
    }
    scratch.Release();
    if (!chosen) {
        return NoKernel("cuDNN offers no algorithm for this CONVOLUTION (Input %s, Filter %s, "
                     "Output %s); FreeDML's CUDA kernels cannot run it.",
                     in.Describe().c_str(), filter.Describe().c_str(), out.Describe().c_str());
    }
    layOutTemporary();
    return {};
}

void ConvolutionKernel::Execute(const KernelBindings& b) {
    CudaStream& stream = StreamOf(b);
    const cudaStream_t s = stream.Get();
    const LaunchTarget launch = stream.Launch();
    std::byte* temp = b.temporary;
    if (temp) temp = reinterpret_cast<std::byte*>(AlignUp(reinterpret_cast<uint64_t>(temp)));
    const std::byte* filter = b.inputs[1];
    if (filterOwned_) {
        filter = b.persistent + filterOffset_;
    } else if (filterPackInTemp_) {
        stream.Check(LaunchCopy(filterPack_, elementBytes_, temp + filterOffset_, b.inputs[1], launch),
                     "CONVOLUTION filter packing");
        filter = temp + filterOffset_;
    }
    const std::byte* input = b.inputs[0];
    if (padInput_) {
        stream.Check(cudaMemsetAsync(temp + paddedOffset_, 0, paddedBytes_, s), "CONVOLUTION input padding");
        stream.Check(LaunchCopy(padCopy_, elementBytes_, temp + paddedOffset_, b.inputs[0], launch),
                     "CONVOLUTION input padding");
        input = temp + paddedOffset_;
    }
    std::byte* result = cropOutput_ ? temp + resultOffset_ : b.outputs[0];
    void* workspace = workspaceSize_ ? temp : nullptr;
    if (gemm_) {
        const cublasStatus_t status = gemm_->Execute(stream.CublasLt(), input, filter, result, workspace, s);
        if (status != CUBLAS_STATUS_SUCCESS) {
            stream.Fail("cublasLtMatmul (CONVOLUTION)", backend::cuda::CublasStatusText(status));
            return;
        }
    } else {
        cudnnHandle_t handle = stream.Cudnn();
        const float one = 1.0f, zero = 0.0f;
        cudnnStatus_t status;
        if (graph_) {
            status = graph_->Execute(handle, input, filter, result, workspace);
        } else if (!backward_) {
            status = cudnnConvolutionForward(handle, &one, x_, input, w_, filter, conv_, forwardAlgo_, workspace,
                                             workspaceSize_, &zero, y_, result);
        } else {
            status = cudnnConvolutionBackwardData(handle, &one, w_, filter, x_, input, conv_, backwardAlgo_, workspace,
                                                  workspaceSize_, &zero, y_, result);
        }
        if (status != CUDNN_STATUS_SUCCESS) {
            stream.Fail(backward_ ? "cudnnConvolutionBackwardData" : "cudnnConvolutionForward",
                        cudnnGetErrorString(status));
            return;
        }
    }
    if (!finishPass_) return;
    if (hasBias_) {
        const std::byte* bias = biasOwned_ ? b.persistent + biasOffset_ : b.inputs[2];
        stream.Check(LaunchAdd(finishPlan_, type_, act_, b.outputs[0], result, bias, launch), "CONVOLUTION bias");
    } else if (act_.act != Act::None) {
        stream.Check(LaunchActivation(finishPlan2_, type_, act_, b.outputs[0], result, launch),
                     "CONVOLUTION activation");
    } else {
        stream.Check(LaunchCopy(finishPlan2_, elementBytes_, b.outputs[0], result, launch), "CONVOLUTION crop");
    }
}

}  // namespace

Status CreateCudaConvolution(const KernelContext& context, const OperatorArgs& args,
                             std::unique_ptr<Kernel>* out) {
    auto kernel = std::make_unique<ConvolutionKernel>();
    FREEDML_TRY(kernel->Plan(DeviceOf(context), args, context.flags));
    *out = std::move(kernel);
    return {};
}

}  // namespace freedml::dml::cuda
