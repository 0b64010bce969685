#include "dml/kernels/cpu/activation.h"

#include <algorithm>
#include <cmath>

#include "dml/kernels/cpu/float16.h"
#include "dml/kernels/cpu/thread_pool.h"

namespace freedml::dml::cpu {
namespace {

template <class Desc>
const Desc& As(const DML_OPERATOR_DESC* desc) {
    return *static_cast<const Desc*>(desc->Desc);
}

// ln(1 + e^v) without overflow for large v or loss for very negative v.
inline float Softplus(float v) { return std::max(v, 0.0f) + std::log1p(std::exp(-std::fabs(v))); }

template <class F>
void Map(float* values, size_t count, F f) {
    for (size_t i = 0; i < count; ++i) values[i] = f(values[i]);
}

}  // namespace

const char* ActivationName(DML_OPERATOR_TYPE type) {
    switch (type) {
        case DML_OPERATOR_INVALID: return "none";
        case DML_OPERATOR_ACTIVATION_LINEAR: return "ACTIVATION_LINEAR";
        case DML_OPERATOR_ACTIVATION_SIGMOID: return "ACTIVATION_SIGMOID";
        case DML_OPERATOR_ACTIVATION_HARD_SIGMOID: return "ACTIVATION_HARD_SIGMOID";
        case DML_OPERATOR_ACTIVATION_TANH: return "ACTIVATION_TANH";
        case DML_OPERATOR_ACTIVATION_SCALED_TANH: return "ACTIVATION_SCALED_TANH";
        case DML_OPERATOR_ACTIVATION_RELU: return "ACTIVATION_RELU";
        case DML_OPERATOR_ACTIVATION_LEAKY_RELU: return "ACTIVATION_LEAKY_RELU";
        case DML_OPERATOR_ACTIVATION_THRESHOLDED_RELU: return "ACTIVATION_THRESHOLDED_RELU";
        case DML_OPERATOR_ACTIVATION_ELU: return "ACTIVATION_ELU";
        case DML_OPERATOR_ACTIVATION_CELU: return "ACTIVATION_CELU";
        case DML_OPERATOR_ACTIVATION_SCALED_ELU: return "ACTIVATION_SCALED_ELU";
        case DML_OPERATOR_ACTIVATION_SOFTPLUS: return "ACTIVATION_SOFTPLUS";
        case DML_OPERATOR_ACTIVATION_PARAMETRIC_SOFTPLUS: return "ACTIVATION_PARAMETRIC_SOFTPLUS";
        case DML_OPERATOR_ACTIVATION_SOFTSIGN: return "ACTIVATION_SOFTSIGN";
        case DML_OPERATOR_ACTIVATION_IDENTITY: return "ACTIVATION_IDENTITY";
        case DML_OPERATOR_ACTIVATION_SHRINK: return "ACTIVATION_SHRINK";
        case DML_OPERATOR_ACTIVATION_GELU: return "ACTIVATION_GELU";
        default: return "unknown";
    }
}

Status MakeFusedActivation(const DML_OPERATOR_DESC* desc, FusedActivation* out) {
    *out = FusedActivation{};
    if (!desc) return Status::Ok();
    INVALID_IF(!desc->Desc, "The fused activation (type %d) has a null Desc.", int(desc->Type));
    FusedActivation a;
    a.type = desc->Type;
    switch (desc->Type) {
        case DML_OPERATOR_ACTIVATION_LINEAR: {
            auto& d = As<DML_ACTIVATION_LINEAR_OPERATOR_DESC>(desc);
            a.alpha = d.Alpha, a.beta = d.Beta;
            break;
        }
        case DML_OPERATOR_ACTIVATION_HARD_SIGMOID: {
            auto& d = As<DML_ACTIVATION_HARD_SIGMOID_OPERATOR_DESC>(desc);
            a.alpha = d.Alpha, a.beta = d.Beta;
            break;
        }
        case DML_OPERATOR_ACTIVATION_SCALED_TANH: {
            auto& d = As<DML_ACTIVATION_SCALED_TANH_OPERATOR_DESC>(desc);
            a.alpha = d.Alpha, a.beta = d.Beta;
            break;
        }
        case DML_OPERATOR_ACTIVATION_PARAMETRIC_SOFTPLUS: {
            auto& d = As<DML_ACTIVATION_PARAMETRIC_SOFTPLUS_OPERATOR_DESC>(desc);
            a.alpha = d.Alpha, a.beta = d.Beta;
            break;
        }
        case DML_OPERATOR_ACTIVATION_LEAKY_RELU:
            a.alpha = As<DML_ACTIVATION_LEAKY_RELU_OPERATOR_DESC>(desc).Alpha;
            break;
        case DML_OPERATOR_ACTIVATION_THRESHOLDED_RELU:
            a.alpha = As<DML_ACTIVATION_THRESHOLDED_RELU_OPERATOR_DESC>(desc).Alpha;
            break;
        case DML_OPERATOR_ACTIVATION_ELU:
            a.alpha = As<DML_ACTIVATION_ELU_OPERATOR_DESC>(desc).Alpha;
            break;
        case DML_OPERATOR_ACTIVATION_CELU:
            a.alpha = As<DML_ACTIVATION_CELU_OPERATOR_DESC>(desc).Alpha;
            break;
        case DML_OPERATOR_ACTIVATION_SCALED_ELU: {
            auto& d = As<DML_ACTIVATION_SCALED_ELU_OPERATOR_DESC>(desc);
            a.alpha = d.Alpha, a.gamma = d.Gamma;
            break;
        }
        case DML_OPERATOR_ACTIVATION_SOFTPLUS:
            a.alpha = As<DML_ACTIVATION_SOFTPLUS_OPERATOR_DESC>(desc).Steepness;
            break;
        case DML_OPERATOR_ACTIVATION_SHRINK: {
            auto& d = As<DML_ACTIVATION_SHRINK_OPERATOR_DESC>(desc);
            a.alpha = d.Bias, a.beta = d.Threshold;
            break;
        }
        case DML_OPERATOR_ACTIVATION_SIGMOID:
        case DML_OPERATOR_ACTIVATION_TANH:
        case DML_OPERATOR_ACTIVATION_RELU:
        case DML_OPERATOR_ACTIVATION_SOFTSIGN:
        case DML_OPERATOR_ACTIVATION_IDENTITY:
        case DML_OPERATOR_ACTIVATION_GELU:
            break;
        default:
            return Error(E_INVALIDARG, "Operator type %d cannot be a fused activation.", int(desc->Type));
    }
    *out = a;
    return Status::Ok();
}

float ApplyActivation(const FusedActivation& a, float x) {
    float v = x;
    ApplyActivation(a, &v, 1);
    return v;
}

void ApplyActivation(const FusedActivation& a, float* v, size_t n) {
    const float alpha = a.alpha, beta = a.beta, gamma = a.gamma;
    switch (a.type) {
        case DML_OPERATOR_ACTIVATION_LINEAR:
            return Map(v, n, [=](float x) { return alpha * x + beta; });
        case DML_OPERATOR_ACTIVATION_SIGMOID:
            return Map(v, n, [](float x) { return 1.0f / (1.0f + std::exp(-x)); });
        case DML_OPERATOR_ACTIVATION_HARD_SIGMOID:
            return Map(v, n, [=](float x) { return std::min(1.0f, std::max(0.0f, alpha * x + beta)); });
        case DML_OPERATOR_ACTIVATION_TANH:
            return Map(v, n, [](float x) { return std::tanh(x); });
        case DML_OPERATOR_ACTIVATION_SCALED_TANH:
            return Map(v, n, [=](float x) { return alpha * std::tanh(beta * x); });
        case DML_OPERATOR_ACTIVATION_RELU:
            return Map(v, n, [](float x) { return x > 0.0f ? x : 0.0f; });
        case DML_OPERATOR_ACTIVATION_LEAKY_RELU:
            return Map(v, n, [=](float x) { return x >= 0.0f ? x : alpha * x; });
        case DML_OPERATOR_ACTIVATION_THRESHOLDED_RELU:
            return Map(v, n, [=](float x) { return x > alpha ? x : 0.0f; });
        case DML_OPERATOR_ACTIVATION_ELU:
            return Map(v, n, [=](float x) { return x > 0.0f ? x : alpha * std::expm1(x); });
        case DML_OPERATOR_ACTIVATION_CELU:
            return Map(v, n, [=](float x) {
                return std::max(0.0f, x) + std::min(0.0f, alpha * std::expm1(x / alpha));
            });
        case DML_OPERATOR_ACTIVATION_SCALED_ELU:
            return Map(v, n, [=](float x) { return gamma * (x > 0.0f ? x : alpha * std::expm1(x)); });
        case DML_OPERATOR_ACTIVATION_SOFTPLUS:
            return Map(v, n, [=](float x) { return Softplus(alpha * x) / alpha; });
        case DML_OPERATOR_ACTIVATION_PARAMETRIC_SOFTPLUS:
            return Map(v, n, [=](float x) { return alpha * Softplus(beta * x); });
        case DML_OPERATOR_ACTIVATION_SOFTSIGN:
            return Map(v, n, [](float x) { return x / (1.0f + std::fabs(x)); });
        case DML_OPERATOR_ACTIVATION_SHRINK:
            return Map(v, n, [=](float x) { return x > beta ? x - alpha : (x < -beta ? x + alpha : 0.0f); });
        case DML_OPERATOR_ACTIVATION_GELU:
            // erfc keeps the relative accuracy for negative x, where 1 + erf(x) would cancel.
            return Map(v, n, [](float x) { return 0.5f * x * std::erfc(-x * 0.70710678118654752f); });
        default:
            return;  // none / IDENTITY
    }
}

void ApplyActivation(const FusedActivation& activation, TensorView tensor) {
    if (activation.IsNone()) return;
    const TensorDesc& desc = tensor.Desc();
    const uint32_t size = ElementSizeInBytes(desc.dataType);
    auto plan = MakeLoopPlan<1>(desc.sizes.data(), desc.rank, {desc.strides.data()}, {size});
    ParallelLoop(plan, {tensor.data}, [&](const std::array<std::byte*, 1>& p, uint64_t n, const std::array<int64_t, 1>& s) {
        if (desc.dataType == DML_TENSOR_DATA_TYPE_FLOAT32 && s[0] == 4) {
            ApplyActivation(activation, reinterpret_cast<float*>(p[0]), n);
            return;
        }
        float block[256];
        for (uint64_t i = 0; i < n; i += 256) {
            size_t m = size_t(std::min<uint64_t>(256, n - i));
            LoadFloats(desc.dataType, p[0] + int64_t(i) * s[0], s[0], block, m);
            ApplyActivation(activation, block, m);
            StoreFloats(desc.dataType, block, p[0] + int64_t(i) * s[0], s[0], m);
        }
    }, 1u << 13);
}

}  // namespace freedml::dml::cpu
