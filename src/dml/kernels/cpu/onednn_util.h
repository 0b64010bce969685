// What the oneDNN-backed CPU kernels share: the engine, memory descriptors from TensorDesc
// strides, and fused activations as oneDNN post-ops. Only compiled with FREEDML_HAVE_DNNL.
#pragma once

#ifdef FREEDML_HAVE_DNNL

#include <oneapi/dnnl/dnnl.hpp>

#include <vector>

#include "dml/kernels/cpu/activation.h"

namespace freedml::dml::cpu::onednn {

inline dnnl::engine& CpuEngine() {
    static dnnl::engine engine(dnnl::engine::kind::cpu, 0);
    return engine;
}

inline dnnl::memory::desc Md(const std::vector<int64_t>& dims, const std::vector<int64_t>& strides,
                             dnnl::memory::data_type type = dnnl::memory::data_type::f32) {
    return dnnl::memory::desc(dnnl::memory::dims(dims.begin(), dims.end()), type,
                              dnnl::memory::dims(strides.begin(), strides.end()));
}

// Appends the activation as eltwise post-ops when oneDNN computes the same formula; returns
// false (appending nothing) when our own pass must apply it after the primitive.
inline bool AppendActivation(const FusedActivation& a, dnnl::post_ops& ops) {
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

}  // namespace freedml::dml::cpu::onednn

#endif  // FREEDML_HAVE_DNNL
