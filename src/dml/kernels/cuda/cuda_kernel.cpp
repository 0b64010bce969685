// The CUDA plugin's DirectML kernel set (the CUDA column of the operator table, dml/ops/operators.def,
// handed to libdirectml by CudaDevice::DmlKernels) and the helpers the CUDA kernel families share.
//
// An operator the CUDA kernels do not run is refused here, when it is compiled, with a message
// that says so: never accepted and then computed wrong or not at all.
#include "dml/kernels/cuda/cuda_common.h"

namespace freedml::dml::cuda {

bool ToElementType(DML_TENSOR_DATA_TYPE type, ElementType* out) {
    switch (type) {
        case DML_TENSOR_DATA_TYPE_FLOAT32: *out = ElementType::F32; return true;
        case DML_TENSOR_DATA_TYPE_FLOAT16: *out = ElementType::F16; return true;
        case DML_TENSOR_DATA_TYPE_FLOAT64: *out = ElementType::F64; return true;
        case DML_TENSOR_DATA_TYPE_INT8: *out = ElementType::I8; return true;
        case DML_TENSOR_DATA_TYPE_UINT8: *out = ElementType::U8; return true;
        case DML_TENSOR_DATA_TYPE_INT16: *out = ElementType::I16; return true;
        case DML_TENSOR_DATA_TYPE_UINT16: *out = ElementType::U16; return true;
        case DML_TENSOR_DATA_TYPE_INT32: *out = ElementType::I32; return true;
        case DML_TENSOR_DATA_TYPE_UINT32: *out = ElementType::U32; return true;
        case DML_TENSOR_DATA_TYPE_INT64: *out = ElementType::I64; return true;
        case DML_TENSOR_DATA_TYPE_UINT64: *out = ElementType::U64; return true;
        default: return false;
    }
}

void BroadcastStrides(const TensorDesc& desc, const TensorDesc& shape, int64_t (&strides)[kMaxDims]) {
    for (int64_t& s : strides) s = 0;
    const uint32_t offset = shape.rank - desc.rank;  // validation gives equal ranks; right-align anyway
    for (uint32_t i = 0; i < desc.rank; ++i) {
        strides[offset + i] = (desc.sizes[i] == 1 && shape.sizes[offset + i] != 1) ? 0 : int64_t(desc.strides[i]);
    }
}

void OwnStrides(const TensorDesc& desc, int64_t (&strides)[kMaxDims]) {
    for (int64_t& s : strides) s = 0;
    for (uint32_t i = 0; i < desc.rank; ++i) strides[i] = desc.strides[i];
}

EwPlan<2> CopyPlan(const TensorDesc& to, const TensorDesc& from) {
    int64_t strides[2][kMaxDims];
    OwnStrides(to, strides[0]);
    BroadcastStrides(from, to, strides[1]);
    return MakeEwPlan<2>(to.sizes.data(), to.rank, strides);
}

EwPlan<2> PackPlan(const TensorDesc& from) {
    int64_t strides[2][kMaxDims] = {};
    int64_t packed = 1;
    for (uint32_t i = from.rank; i-- > 0;) {
        strides[0][i] = packed;
        packed *= from.sizes[i];
    }
    OwnStrides(from, strides[1]);
    return MakeEwPlan<2>(from.sizes.data(), from.rank, strides);
}

bool IsPackedTensor(const TensorDesc& desc) {
    uint64_t expected = 1;
    for (uint32_t i = desc.rank; i-- > 0;) {
        if (desc.sizes[i] != 1 && desc.strides[i] != expected) return false;
        expected *= desc.sizes[i];
    }
    return true;
}

const char* ActName(Act act) {
    static const char* const kNames[] = {"none", "LINEAR", "SIGMOID", "HARD_SIGMOID", "TANH", "SCALED_TANH", "RELU",
                                         "LEAKY_RELU", "THRESHOLDED_RELU", "ELU", "CELU", "SCALED_ELU", "SOFTPLUS",
                                         "PARAMETRIC_SOFTPLUS", "SOFTSIGN", "SHRINK", "GELU", "SWISH",
                                         "HARD_SWISH"};
    return kNames[int(act)];
}

Status ToActParams(const ActivationParams& decoded, ActParams* out) {
    ActParams a{Act::None, decoded.alpha, decoded.beta, decoded.gamma};
    switch (decoded.type) {
        case DML_OPERATOR_INVALID:
        case DML_OPERATOR_ACTIVATION_IDENTITY: a = ActParams{}; break;
        case DML_OPERATOR_ACTIVATION_LINEAR: a.act = Act::Linear; break;
        case DML_OPERATOR_ACTIVATION_SIGMOID: a.act = Act::Sigmoid; break;
        case DML_OPERATOR_ACTIVATION_HARD_SIGMOID: a.act = Act::HardSigmoid; break;
        case DML_OPERATOR_ACTIVATION_TANH: a.act = Act::Tanh; break;
        case DML_OPERATOR_ACTIVATION_SCALED_TANH: a.act = Act::ScaledTanh; break;
        case DML_OPERATOR_ACTIVATION_RELU: a.act = Act::Relu; break;
        case DML_OPERATOR_ACTIVATION_LEAKY_RELU: a.act = Act::LeakyRelu; break;
        case DML_OPERATOR_ACTIVATION_THRESHOLDED_RELU: a.act = Act::ThresholdedRelu; break;
        case DML_OPERATOR_ACTIVATION_ELU: a.act = Act::Elu; break;
        case DML_OPERATOR_ACTIVATION_CELU: a.act = Act::Celu; break;
        case DML_OPERATOR_ACTIVATION_SCALED_ELU: a.act = Act::ScaledElu; break;
        case DML_OPERATOR_ACTIVATION_SOFTPLUS: a.act = Act::Softplus; break;
        case DML_OPERATOR_ACTIVATION_PARAMETRIC_SOFTPLUS: a.act = Act::ParametricSoftplus; break;
        case DML_OPERATOR_ACTIVATION_SOFTSIGN: a.act = Act::Softsign; break;
        case DML_OPERATOR_ACTIVATION_SHRINK: a.act = Act::Shrink; break;
        case DML_OPERATOR_ACTIVATION_GELU: a.act = Act::Gelu; break;
        case DML_OPERATOR_ACTIVATION_SWISH: a.act = Act::Swish; break;
        case DML_OPERATOR_ACTIVATION_HARD_SWISH: a.act = Act::HardSwish; break;
        case DML_OPERATOR_ELEMENT_WISE_CLIP:
            a.act = Act::Clip;
            break;
        default:
            return NoKernel("The CUDA kernels have no form of %s as an activation.", ActivationName(decoded.type));
    }
    *out = a;
    return {};
}

Status MakeActParams(const DML_OPERATOR_DESC* fused, ActParams* out) {
    ActivationParams decoded;
    FREEDML_TRY(DecodeFusedActivation(fused, &decoded));
    return ToActParams(decoded, out);
}

// Each factory the operator table's CUDA column names, declared here with the one signature they
// share.
#define FREEDML_DECLARE_FACTORY(...) \
    __VA_OPT__(Status __VA_ARGS__(const KernelContext&, const OperatorArgs&, std::unique_ptr<Kernel>*);)
#define FREEDML_OPERATOR(TYPE, CPU, CUDA) FREEDML_DECLARE_FACTORY(CUDA)
#include "dml/ops/operators.def"
#undef FREEDML_OPERATOR
#undef FREEDML_DECLARE_FACTORY

// Compiled graphs: the fused element-wise pass (cuda_fused.cpp) and the CUDA-graph replay of a
// whole graph (cuda_graph_replay.cpp).
Status CreateCudaFusedElementwise(const KernelContext&, const EwProgram&, std::unique_ptr<Kernel>*);
void ReplayAsCudaGraph(std::unique_ptr<Kernel>* graph, std::span<Kernel* const> nodes);

namespace {

constexpr KernelSet::Row kRows[] = {
#define FREEDML_OPERATOR(TYPE, CPU, CUDA) {DML_OPERATOR_##TYPE, CUDA},
#include "dml/ops/operators.def"
#undef FREEDML_OPERATOR
};

}  // namespace

}  // namespace freedml::dml::cuda

namespace freedml::backend::cuda {

const dml::KernelSet& DmlCudaKernels() {
    static const dml::KernelSet kernels(
        "CUDA", "; the CPU adapter runs it (FREEDML_ADAPTER=cpu, or a device made on the CPU adapter).",
        dml::cuda::kRows, dml::GraphHooks{dml::cuda::CreateCudaFusedElementwise, dml::cuda::ReplayAsCudaGraph});
    return kernels;
}

}  // namespace freedml::backend::cuda
