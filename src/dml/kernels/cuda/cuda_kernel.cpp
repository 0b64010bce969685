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

Status MakeActParams(const DML_OPERATOR_DESC* fused, ActParams* out) {
    *out = ActParams{};
    if (!fused) return {};
    INVALID_IF(!fused->Desc, "The fused activation (type %d) has a null Desc.", int(fused->Type));
    ActParams a;
    const void* d = fused->Desc;
    auto as = [d](auto* typed) { return *static_cast<decltype(typed)>(d); };
    switch (fused->Type) {
        case DML_OPERATOR_ACTIVATION_IDENTITY: a.act = Act::None; break;
        case DML_OPERATOR_ACTIVATION_LINEAR: {
            auto v = as((const DML_ACTIVATION_LINEAR_OPERATOR_DESC*)nullptr);
            a = {Act::Linear, v.Alpha, v.Beta};
            break;
        }
        case DML_OPERATOR_ACTIVATION_SIGMOID: a.act = Act::Sigmoid; break;
        case DML_OPERATOR_ACTIVATION_HARD_SIGMOID: {
            auto v = as((const DML_ACTIVATION_HARD_SIGMOID_OPERATOR_DESC*)nullptr);
            a = {Act::HardSigmoid, v.Alpha, v.Beta};
            break;
        }
        case DML_OPERATOR_ACTIVATION_TANH: a.act = Act::Tanh; break;
        case DML_OPERATOR_ACTIVATION_SCALED_TANH: {
            auto v = as((const DML_ACTIVATION_SCALED_TANH_OPERATOR_DESC*)nullptr);
            a = {Act::ScaledTanh, v.Alpha, v.Beta};
            break;
        }
        case DML_OPERATOR_ACTIVATION_RELU: a.act = Act::Relu; break;
        case DML_OPERATOR_ACTIVATION_LEAKY_RELU:
            a = {Act::LeakyRelu, as((const DML_ACTIVATION_LEAKY_RELU_OPERATOR_DESC*)nullptr).Alpha};
            break;
        case DML_OPERATOR_ACTIVATION_THRESHOLDED_RELU:
            a = {Act::ThresholdedRelu, as((const DML_ACTIVATION_THRESHOLDED_RELU_OPERATOR_DESC*)nullptr).Alpha};
            break;
        case DML_OPERATOR_ACTIVATION_ELU: a = {Act::Elu, as((const DML_ACTIVATION_ELU_OPERATOR_DESC*)nullptr).Alpha}; break;
        case DML_OPERATOR_ACTIVATION_CELU:
            a = {Act::Celu, as((const DML_ACTIVATION_CELU_OPERATOR_DESC*)nullptr).Alpha};
            break;
        case DML_OPERATOR_ACTIVATION_SCALED_ELU: {
            auto v = as((const DML_ACTIVATION_SCALED_ELU_OPERATOR_DESC*)nullptr);
            a = {Act::ScaledElu, v.Alpha, 0.0f, v.Gamma};
            break;
        }
        case DML_OPERATOR_ACTIVATION_SOFTPLUS:
            a = {Act::Softplus, as((const DML_ACTIVATION_SOFTPLUS_OPERATOR_DESC*)nullptr).Steepness};
            break;
        case DML_OPERATOR_ACTIVATION_PARAMETRIC_SOFTPLUS: {
            auto v = as((const DML_ACTIVATION_PARAMETRIC_SOFTPLUS_OPERATOR_DESC*)nullptr);
            a = {Act::ParametricSoftplus, v.Alpha, v.Beta};
            break;
        }
        case DML_OPERATOR_ACTIVATION_SOFTSIGN: a.act = Act::Softsign; break;
        case DML_OPERATOR_ACTIVATION_SHRINK: {
            auto v = as((const DML_ACTIVATION_SHRINK_OPERATOR_DESC*)nullptr);
            a = {Act::Shrink, v.Bias, v.Threshold};
            break;
        }
        case DML_OPERATOR_ACTIVATION_GELU: a.act = Act::Gelu; break;
        default:
            return NoKernel("The CUDA kernels cannot fuse operator type %d as an activation.",
                         int(fused->Type));
    }
    *out = a;
    return {};
}

// Each factory the operator table's CUDA column names, declared here with the one signature they
// share.
#define FREEDML_DECLARE_FACTORY(...) \
    __VA_OPT__(Status __VA_ARGS__(const KernelContext&, const OperatorArgs&, std::unique_ptr<Kernel>*);)
#define FREEDML_OPERATOR(TYPE, CPU, CUDA) FREEDML_DECLARE_FACTORY(CUDA)
#include "dml/ops/operators.def"
#undef FREEDML_OPERATOR
#undef FREEDML_DECLARE_FACTORY

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
        dml::cuda::kRows);
    return kernels;
}

}  // namespace freedml::backend::cuda
