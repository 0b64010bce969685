// The one decode of activation descs (activation_params.h).
#include "dml/ops/activation/activation_params.h"

namespace freedml::dml {

namespace {

template <class T>
const T& As(const DML_OPERATOR_DESC* desc) {
    return *static_cast<const T*>(desc->Desc);
}

}  // namespace

const char* ActivationName(DML_OPERATOR_TYPE type) {
    switch (type) {
        case DML_OPERATOR_INVALID: return "none";
        case DML_OPERATOR_ELEMENT_WISE_CLIP:
            return "ELEMENT_WISE_CLIP (a clamped output)";
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
        case DML_OPERATOR_ACTIVATION_SWISH: return "ACTIVATION_SWISH";
        case DML_OPERATOR_ACTIVATION_HARD_SWISH: return "ACTIVATION_HARD_SWISH";
        default: return "unknown";
    }
}

Status DecodeEpilogue(const DML_OPERATOR_DESC* fused, bool clampOutput, float clampMin, float clampMax,
                      ActivationParams* out) {
    if (!clampOutput) return DecodeFusedActivation(fused, out);
    INVALID_IF(fused != nullptr, "An operator with a clamped output has a FusedActivation as well.");
    *out = ActivationParams{};
    out->type = DML_OPERATOR_ELEMENT_WISE_CLIP;
    out->alpha = clampMin;
    out->beta = clampMax;
    return {};
}

Status DecodeFusedActivation(const DML_OPERATOR_DESC* desc, ActivationParams* out) {
    *out = ActivationParams{};
    if (!desc) return {};
    INVALID_IF(!desc->Desc, "The fused activation (type %d) has a null Desc.", int(desc->Type));
    ActivationParams a;
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
    return {};
}

Status DecodeActivation(DML_OPERATOR_TYPE type, const void* desc, ActivationParams* out) {
    const DML_OPERATOR_DESC typed{type, desc};
    switch (type) {
        case DML_OPERATOR_ACTIVATION_SWISH:
            *out = ActivationParams{type, As<DML_ACTIVATION_SWISH_OPERATOR_DESC>(&typed).SigmoidInputScale};
            return {};
        case DML_OPERATOR_ACTIVATION_HARD_SWISH: {
            const auto& d = As<DML_ACTIVATION_HARD_SWISH_OPERATOR_DESC>(&typed);
            *out = ActivationParams{type, d.Alpha, d.Beta};
            return {};
        }
        default:
            return DecodeFusedActivation(&typed, out);
    }
}

}  // namespace freedml::dml
