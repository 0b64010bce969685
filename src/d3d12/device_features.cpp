// Device::CheckFeatureSupport: what the CPU adapter truthfully offers to compute work. Graphics,
// tiling, ray tracing and the like answer "not supported".
#include <cstring>

#include "common/trace.h"
#include "d3d12/device.h"
#include "d3d12/enum_value.h"
#include "d3d12/formats.h"

namespace freedml::d3d12 {

namespace {

// The feature levels FreeDML accepts (see D3D12CreateDevice in entry.cpp).
bool FeatureLevelSupported(const D3D_FEATURE_LEVEL& level) {
    switch (Raw(level)) {
        case D3D_FEATURE_LEVEL_1_0_CORE:
        case D3D_FEATURE_LEVEL_11_0:
        case D3D_FEATURE_LEVEL_11_1:
        case D3D_FEATURE_LEVEL_12_0:
        case D3D_FEATURE_LEVEL_12_1: return true;
        default: return false;
    }
}

// Host addresses of x86-64 and AArch64 user space.
constexpr UINT kAddressBits = 47;

template <class T>
Status CheckSize(D3D12_FEATURE feature, const char* name, void* data, UINT size) {
    INVALID_IF(!data, "CheckFeatureSupport(%s): pFeatureSupportData is null.", name);
    INVALID_IF(size != sizeof(T), "CheckFeatureSupport(%s): FeatureSupportDataSize (%u) must be %zu.", name, size,
               sizeof(T));
    (void)feature;
    return {};
}

// Features answered with all zeros ("not supported" / tier 0) beyond a node index input.
template <class T>
Status AllZero(D3D12_FEATURE feature, const char* name, void* data, UINT size) {
    FREEDML_TRY(CheckSize<T>(feature, name, data, size));
    std::memset(data, 0, sizeof(T));
    return {};
}

}  // namespace

HRESULT Device::CheckFeatureSupport(D3D12_FEATURE feature, void* data, UINT size) {
    FREEDML_TRACE_D3D12("ID3D12Device::CheckFeatureSupport", this, feature, data, size);
    Status status = [&]() -> Status {
        switch (Raw(feature)) {
            case D3D12_FEATURE_D3D12_OPTIONS: {
                FREEDML_TRY(AllZero<D3D12_FEATURE_DATA_D3D12_OPTIONS>(feature, "D3D12_OPTIONS", data, size));
                auto* o = static_cast<D3D12_FEATURE_DATA_D3D12_OPTIONS*>(data);
                o->DoublePrecisionFloatShaderOps = TRUE;  // the CPU computes in float64 natively
                o->MinPrecisionSupport = D3D12_SHADER_MIN_PRECISION_SUPPORT_16_BIT;
                o->ResourceBindingTier = D3D12_RESOURCE_BINDING_TIER_3;
                o->TypedUAVLoadAdditionalFormats = TRUE;
                o->MaxGPUVirtualAddressBitsPerResource = kAddressBits;
                o->ResourceHeapTier = D3D12_RESOURCE_HEAP_TIER_2;
                return {};
            }
            case D3D12_FEATURE_D3D12_OPTIONS1: {
                FREEDML_TRY(AllZero<D3D12_FEATURE_DATA_D3D12_OPTIONS1>(feature, "D3D12_OPTIONS1", data, size));
                auto* o = static_cast<D3D12_FEATURE_DATA_D3D12_OPTIONS1*>(data);
                o->ExpandedComputeResourceStates = TRUE;
                o->Int64ShaderOps = TRUE;
                return {};
            }
            case D3D12_FEATURE_ARCHITECTURE: {
                FREEDML_TRY(CheckSize<D3D12_FEATURE_DATA_ARCHITECTURE>(feature, "ARCHITECTURE", data, size));
                auto* a = static_cast<D3D12_FEATURE_DATA_ARCHITECTURE*>(data);
                INVALID_IF(a->NodeIndex != 0, "CheckFeatureSupport(ARCHITECTURE): NodeIndex (%u) must be 0.", a->NodeIndex);
                a->TileBasedRenderer = FALSE;
                // The CPU adapter's memory is the host's; a discrete CUDA GPU has memory of its own.
                a->UMA = adapter_->Info().unifiedMemory;
                a->CacheCoherentUMA = adapter_->Info().unifiedMemory;
                return {};
            }
            case D3D12_FEATURE_ARCHITECTURE1: {
                FREEDML_TRY(CheckSize<D3D12_FEATURE_DATA_ARCHITECTURE1>(feature, "ARCHITECTURE1", data, size));
                auto* a = static_cast<D3D12_FEATURE_DATA_ARCHITECTURE1*>(data);
                INVALID_IF(a->NodeIndex != 0, "CheckFeatureSupport(ARCHITECTURE1): NodeIndex (%u) must be 0.",
                           a->NodeIndex);
                a->TileBasedRenderer = FALSE;
                a->UMA = adapter_->Info().unifiedMemory;
                a->CacheCoherentUMA = adapter_->Info().unifiedMemory;
                a->IsolatedMMU = !adapter_->Info().unifiedMemory;  // the CPU shares the process's page tables
                return {};
            }
            case D3D12_FEATURE_FEATURE_LEVELS: {
                FREEDML_TRY(CheckSize<D3D12_FEATURE_DATA_FEATURE_LEVELS>(feature, "FEATURE_LEVELS", data, size));
                auto* f = static_cast<D3D12_FEATURE_DATA_FEATURE_LEVELS*>(data);
                INVALID_IF(f->NumFeatureLevels == 0 || !f->pFeatureLevelsRequested,
                           "CheckFeatureSupport(FEATURE_LEVELS): NumFeatureLevels (%u) or pFeatureLevelsRequested is "
                           "empty.",
                           f->NumFeatureLevels);
                bool found = false;
                D3D_FEATURE_LEVEL best{};
                for (UINT i = 0; i < f->NumFeatureLevels; ++i) {
                    const D3D_FEATURE_LEVEL& level = f->pFeatureLevelsRequested[i];
                    if (FeatureLevelSupported(level) && (!found || Raw(level) > Raw(best))) {
                        best = level;
                        found = true;
                    }
                }
                if (!found) {
                    return Error(DXGI_ERROR_UNSUPPORTED,
                                 "CheckFeatureSupport(FEATURE_LEVELS): none of the %u levels requested is supported "
                                 "(FreeDML offers 1_0_CORE and 11_0 to 12_1).",
                                 f->NumFeatureLevels);
                }
                f->MaxSupportedFeatureLevel = best;
                return {};
            }
            case D3D12_FEATURE_FORMAT_SUPPORT: {
                FREEDML_TRY(CheckSize<D3D12_FEATURE_DATA_FORMAT_SUPPORT>(feature, "FORMAT_SUPPORT", data, size));
                auto* f = static_cast<D3D12_FEATURE_DATA_FORMAT_SUPPORT*>(data);
                f->Support1 = D3D12_FORMAT_SUPPORT1_NONE;
                f->Support2 = D3D12_FORMAT_SUPPORT2_NONE;
                if (f->Format == DXGI_FORMAT_UNKNOWN) {
                    f->Support1 = D3D12_FORMAT_SUPPORT1_BUFFER;
                } else if (BufferFormatSize(f->Format) != 0) {
                    f->Support1 = D3D12_FORMAT_SUPPORT1_BUFFER | D3D12_FORMAT_SUPPORT1_SHADER_LOAD |
                                  D3D12_FORMAT_SUPPORT1_TYPED_UNORDERED_ACCESS_VIEW;
                    f->Support2 = D3D12_FORMAT_SUPPORT2_UAV_TYPED_LOAD | D3D12_FORMAT_SUPPORT2_UAV_TYPED_STORE;
                    if (IsAtomicFormat(f->Format)) {
                        f->Support2 |= D3D12_FORMAT_SUPPORT2_UAV_ATOMIC_ADD | D3D12_FORMAT_SUPPORT2_UAV_ATOMIC_BITWISE_OPS |
                                       D3D12_FORMAT_SUPPORT2_UAV_ATOMIC_COMPARE_STORE_OR_COMPARE_EXCHANGE |
                                       D3D12_FORMAT_SUPPORT2_UAV_ATOMIC_EXCHANGE |
                                       D3D12_FORMAT_SUPPORT2_UAV_ATOMIC_SIGNED_MIN_OR_MAX |
                                       D3D12_FORMAT_SUPPORT2_UAV_ATOMIC_UNSIGNED_MIN_OR_MAX;
                    }
                }
                return {};
            }
            case D3D12_FEATURE_MULTISAMPLE_QUALITY_LEVELS: {
                FREEDML_TRY(CheckSize<D3D12_FEATURE_DATA_MULTISAMPLE_QUALITY_LEVELS>(
                    feature, "MULTISAMPLE_QUALITY_LEVELS", data, size));
                auto* m = static_cast<D3D12_FEATURE_DATA_MULTISAMPLE_QUALITY_LEVELS*>(data);
                m->NumQualityLevels = 0;  // no textures, so no multisampling
                return {};
            }
            case D3D12_FEATURE_FORMAT_INFO: {
                FREEDML_TRY(CheckSize<D3D12_FEATURE_DATA_FORMAT_INFO>(feature, "FORMAT_INFO", data, size));
                auto* f = static_cast<D3D12_FEATURE_DATA_FORMAT_INFO*>(data);
                INVALID_IF(f->Format != DXGI_FORMAT_UNKNOWN && BufferFormatSize(f->Format) == 0,
                           "CheckFeatureSupport(FORMAT_INFO): Format (%d) is not a format FreeDML knows.",
                           static_cast<int>(f->Format));
                f->PlaneCount = 1;
                return {};
            }
            case D3D12_FEATURE_GPU_VIRTUAL_ADDRESS_SUPPORT: {
                FREEDML_TRY(CheckSize<D3D12_FEATURE_DATA_GPU_VIRTUAL_ADDRESS_SUPPORT>(
                    feature, "GPU_VIRTUAL_ADDRESS_SUPPORT", data, size));
                auto* g = static_cast<D3D12_FEATURE_DATA_GPU_VIRTUAL_ADDRESS_SUPPORT*>(data);
                g->MaxGPUVirtualAddressBitsPerResource = kAddressBits;
                g->MaxGPUVirtualAddressBitsPerProcess = kAddressBits;
                return {};
            }
            case D3D12_FEATURE_SHADER_MODEL: {
                FREEDML_TRY(CheckSize<D3D12_FEATURE_DATA_SHADER_MODEL>(feature, "SHADER_MODEL", data, size));
                auto* s = static_cast<D3D12_FEATURE_DATA_SHADER_MODEL*>(data);
                INVALID_IF(Raw(s->HighestShaderModel) < D3D_SHADER_MODEL_5_1 || Raw(s->HighestShaderModel) > D3D_HIGHEST_SHADER_MODEL,
                           "CheckFeatureSupport(SHADER_MODEL): HighestShaderModel (0x%x) is not a shader model.",
                           static_cast<unsigned>(Raw(s->HighestShaderModel)));
                // FreeDML runs no HLSL. Shader model 6.2 is what DirectML programs check, together with
                // Native16BitShaderOpsSupported, before they use float16: FreeDML's own kernels do it.
                if (Raw(s->HighestShaderModel) > D3D_SHADER_MODEL_6_2) s->HighestShaderModel = D3D_SHADER_MODEL_6_2;
                return {};
            }
            case D3D12_FEATURE_ROOT_SIGNATURE: {
                FREEDML_TRY(CheckSize<D3D12_FEATURE_DATA_ROOT_SIGNATURE>(feature, "ROOT_SIGNATURE", data, size));
                auto* r = static_cast<D3D12_FEATURE_DATA_ROOT_SIGNATURE*>(data);
                INVALID_IF(Raw(r->HighestVersion) < D3D_ROOT_SIGNATURE_VERSION_1_0,
                           "CheckFeatureSupport(ROOT_SIGNATURE): HighestVersion (%d) is not a version.",
                           static_cast<int>(Raw(r->HighestVersion)));
                if (Raw(r->HighestVersion) > D3D_ROOT_SIGNATURE_VERSION_1_1) r->HighestVersion = D3D_ROOT_SIGNATURE_VERSION_1_1;
                return {};
            }
            case D3D12_FEATURE_COMMAND_QUEUE_PRIORITY: {
                FREEDML_TRY(CheckSize<D3D12_FEATURE_DATA_COMMAND_QUEUE_PRIORITY>(feature, "COMMAND_QUEUE_PRIORITY",
                                                                                 data, size));
                auto* p = static_cast<D3D12_FEATURE_DATA_COMMAND_QUEUE_PRIORITY*>(data);
                auto listType = Raw(p->CommandListType);
                bool type = listType == D3D12_COMMAND_LIST_TYPE_DIRECT || listType == D3D12_COMMAND_LIST_TYPE_COMPUTE ||
                            listType == D3D12_COMMAND_LIST_TYPE_COPY;
                bool priority = p->Priority == D3D12_COMMAND_QUEUE_PRIORITY_NORMAL ||
                                p->Priority == D3D12_COMMAND_QUEUE_PRIORITY_HIGH;
                p->PriorityForTypeIsSupported = type && priority;
                return {};
            }
            case D3D12_FEATURE_D3D12_OPTIONS4: {
                FREEDML_TRY(AllZero<D3D12_FEATURE_DATA_D3D12_OPTIONS4>(feature, "D3D12_OPTIONS4", data, size));
                static_cast<D3D12_FEATURE_DATA_D3D12_OPTIONS4*>(data)->Native16BitShaderOpsSupported = TRUE;
                return {};
            }
            case D3D12_FEATURE_SERIALIZATION: {
                FREEDML_TRY(CheckSize<D3D12_FEATURE_DATA_SERIALIZATION>(feature, "SERIALIZATION", data, size));
                auto* s = static_cast<D3D12_FEATURE_DATA_SERIALIZATION*>(data);
                INVALID_IF(s->NodeIndex != 0, "CheckFeatureSupport(SERIALIZATION): NodeIndex (%u) must be 0.",
                           s->NodeIndex);
                s->HeapSerializationTier = D3D12_HEAP_SERIALIZATION_TIER_0;
                return {};
            }
            case D3D12_FEATURE_PROTECTED_RESOURCE_SESSION_SUPPORT: {
                FREEDML_TRY(CheckSize<D3D12_FEATURE_DATA_PROTECTED_RESOURCE_SESSION_SUPPORT>(
                    feature, "PROTECTED_RESOURCE_SESSION_SUPPORT", data, size));
                auto* p = static_cast<D3D12_FEATURE_DATA_PROTECTED_RESOURCE_SESSION_SUPPORT*>(data);
                INVALID_IF(p->NodeIndex != 0,
                           "CheckFeatureSupport(PROTECTED_RESOURCE_SESSION_SUPPORT): NodeIndex (%u) must be 0.",
                           p->NodeIndex);
                p->Support = D3D12_PROTECTED_RESOURCE_SESSION_SUPPORT_FLAG_NONE;
                return {};
            }
            case D3D12_FEATURE_D3D12_OPTIONS2:
                return AllZero<D3D12_FEATURE_DATA_D3D12_OPTIONS2>(feature, "D3D12_OPTIONS2", data, size);
            case D3D12_FEATURE_SHADER_CACHE:
                return AllZero<D3D12_FEATURE_DATA_SHADER_CACHE>(feature, "SHADER_CACHE", data, size);
            case D3D12_FEATURE_D3D12_OPTIONS3:
                return AllZero<D3D12_FEATURE_DATA_D3D12_OPTIONS3>(feature, "D3D12_OPTIONS3", data, size);
            case D3D12_FEATURE_EXISTING_HEAPS:
                return AllZero<D3D12_FEATURE_DATA_EXISTING_HEAPS>(feature, "EXISTING_HEAPS", data, size);
            case D3D12_FEATURE_CROSS_NODE:
                return AllZero<D3D12_FEATURE_DATA_CROSS_NODE>(feature, "CROSS_NODE", data, size);
            case D3D12_FEATURE_D3D12_OPTIONS5:
                return AllZero<D3D12_FEATURE_DATA_D3D12_OPTIONS5>(feature, "D3D12_OPTIONS5", data, size);
            case D3D12_FEATURE_DISPLAYABLE:
                return AllZero<D3D12_FEATURE_DATA_DISPLAYABLE>(feature, "DISPLAYABLE", data, size);
            case D3D12_FEATURE_D3D12_OPTIONS6:
                return AllZero<D3D12_FEATURE_DATA_D3D12_OPTIONS6>(feature, "D3D12_OPTIONS6", data, size);
            case D3D12_FEATURE_D3D12_OPTIONS7:
                return AllZero<D3D12_FEATURE_DATA_D3D12_OPTIONS7>(feature, "D3D12_OPTIONS7", data, size);
            case D3D12_FEATURE_D3D12_OPTIONS8:
                return AllZero<D3D12_FEATURE_DATA_D3D12_OPTIONS8>(feature, "D3D12_OPTIONS8", data, size);
            case D3D12_FEATURE_D3D12_OPTIONS9:
                return AllZero<D3D12_FEATURE_DATA_D3D12_OPTIONS9>(feature, "D3D12_OPTIONS9", data, size);
            case D3D12_FEATURE_D3D12_OPTIONS10:
                return AllZero<D3D12_FEATURE_DATA_D3D12_OPTIONS10>(feature, "D3D12_OPTIONS10", data, size);
            case D3D12_FEATURE_D3D12_OPTIONS11:
                return AllZero<D3D12_FEATURE_DATA_D3D12_OPTIONS11>(feature, "D3D12_OPTIONS11", data, size);
            case D3D12_FEATURE_D3D12_OPTIONS12:
                return AllZero<D3D12_FEATURE_DATA_D3D12_OPTIONS12>(feature, "D3D12_OPTIONS12", data, size);
            case D3D12_FEATURE_D3D12_OPTIONS13:
                return AllZero<D3D12_FEATURE_DATA_D3D12_OPTIONS13>(feature, "D3D12_OPTIONS13", data, size);
            default:
                return Error(E_INVALIDARG, "CheckFeatureSupport: Feature (%d) is not a feature FreeDML knows.",
                             static_cast<int>(Raw(feature)));
        }
    }();
    if (!status.ok()) return Fail(status);
    return S_OK;
}

}  // namespace freedml::d3d12
