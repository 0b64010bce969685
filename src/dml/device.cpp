#include "dml/device.h"

#include <dlfcn.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "common/enum_value.h"
#include "common/trace.h"
#include "dml/binding_table.h"
#include "dml/capture.h"
#include "dml/command_recorder.h"
#include "dml/compiled_operator.h"
#include "dml/graph/graph.h"
#include "dml/operator.h"
#include "dml/operator_initializer.h"

namespace freedml::dml {

namespace {
constexpr const char* kSource = "DirectML";

// No D3D12 device to report through: reach libd3d12's process-wide reporting, which is loaded
// whenever a FreeDML D3D12 device could exist; otherwise standard error is all there is.
void ReportWithoutDevice(const std::string& text, bool echo) {
    static const auto report = reinterpret_cast<d3d12::ReportWithoutDeviceFunction>(
        dlsym(RTLD_DEFAULT, d3d12::kReportWithoutDeviceSymbol));
    if (report) {
        report(D3D12_MESSAGE_SEVERITY_ERROR, kSource, text.c_str(), echo ? 1 : 0);
    } else {
        std::fprintf(stderr, "FreeDML DirectML ERROR: %s\n", text.c_str());
    }
}
}  // namespace

// ---- IDMLDebugDevice ---------------------------------------------------------------------------

HRESULT DebugDeviceInterface::QueryInterface(REFIID riid, void** object) { return device_.QueryInterface(riid, object); }
ULONG DebugDeviceInterface::AddRef() { return device_.AddRef(); }
ULONG DebugDeviceInterface::Release() { return device_.Release(); }
void DebugDeviceInterface::SetMuteDebugOutput(BOOL mute) { device_.SetMuted(mute != FALSE); }

// ---- Device ------------------------------------------------------------------------------------

Device::Device(ID3D12Device* d3d12Device, d3d12::DeviceInternal* internal, DML_CREATE_DEVICE_FLAGS flags,
               DML_FEATURE_LEVEL featureLevel)
    : d3d12Device_(Ref<ID3D12Device>::Share(d3d12Device)),
      d3d12_(internal),
      flags_(flags),
      featureLevel_(featureLevel),
      ordinal_([] {
          static std::atomic<uint32_t> created{0};
          return ++created;
      }()) {}

HRESULT Device::Create(ID3D12Device* d3d12Device, uint32_t flags, uint32_t minimumFeatureLevel, REFIID riid,
                       void** object) {
    // DMLCreateDevice and DMLCreateDevice1: no C++ exception leaves them (common/api_guard.h).
    auto report = [&](const char* name, const ExceptionFailure& failure) {
        ReportWithoutDevice(DescribeFailure(name, failure), (flags & DML_CREATE_DEVICE_FLAG_DEBUG) != 0);
    };
    return Guard("DMLCreateDevice", report, [&]() -> HRESULT {
        d3d12::DeviceInternal* internal = d3d12::GetDeviceInternal(d3d12Device);
        const bool echo = (flags & DML_CREATE_DEVICE_FLAG_DEBUG) != 0;
        auto fail = [&](HRESULT hr, const std::string& text) {
            std::string message = "DMLCreateDevice: " + text;
            if (internal) {
                internal->ReportFrom(kSource, D3D12_MESSAGE_SEVERITY_ERROR, D3D12_MESSAGE_CATEGORY_APPLICATION_DEFINED,
                                     message, echo);
            } else {
                ReportWithoutDevice(message, echo);
            }
            return hr;
        };
        if (object) *object = nullptr;
        if (!d3d12Device) return fail(E_INVALIDARG, "d3d12Device is null.");
        if (!internal) {
            return fail(E_INVALIDARG, "d3d12Device is not a FreeDML D3D12 device; FreeDML's DirectML runs on devices made "
                                      "by FreeDML's libd3d12.so (D3D12CreateDevice).");
        }
        const uint32_t knownFlags = DML_CREATE_DEVICE_FLAG_DEBUG;
        if (flags & ~knownFlags) {
            return fail(E_INVALIDARG, Format("flags (0x%x) has bits FreeDML does not know.", static_cast<unsigned>(flags)));
        }
        if (minimumFeatureLevel > static_cast<uint32_t>(kMaxFeatureLevel)) {
            return fail(DXGI_ERROR_UNSUPPORTED,
                        Format("minimumFeatureLevel (0x%x) is above the highest feature level FreeDML supports (0x%x).",
                               static_cast<unsigned>(minimumFeatureLevel), static_cast<unsigned>(kMaxFeatureLevel)));
        }
        if (ValidateOnly(object)) return kValidatedOnly;
        auto* device = new Device(d3d12Device, internal, static_cast<DML_CREATE_DEVICE_FLAGS>(flags), kMaxFeatureLevel);
        return HandOut(static_cast<IDMLDevice1*>(device), riid, object);
    });
}

void* Device::QueryExtraInterface(REFIID riid) {
    if (SameGuid(riid, __uuidof(IDMLDebugDevice)) && DebugEnabled()) {
        AddRef();
        return static_cast<IDMLDebugDevice*>(&debugInterface_);
    }
    return nullptr;
}

HRESULT Device::Fail(const char* method, const Status& status) {
    if (!muted_) {
        d3d12_->ReportFrom(kSource, D3D12_MESSAGE_SEVERITY_ERROR, D3D12_MESSAGE_CATEGORY_APPLICATION_DEFINED,
                           std::string(method) + ": " + status.FullMessage(), DebugEnabled());
    }
    return status.hr();
}

void Device::Remove(const char* method, const Status& status) {
    // The device is removed whether or not its messages are muted; only the text is muted.
    std::string text = std::string(method) + ": " + status.FullMessage();
    d3d12_->RemoveDeviceFrom(kSource, status.ok() ? E_INVALIDARG : status.hr(), muted_ ? std::string() : text,
                             DebugEnabled());
}

void Device::ReportError(const std::string& text) {
    if (!muted_) {
        d3d12_->ReportFrom(kSource, D3D12_MESSAGE_SEVERITY_ERROR, D3D12_MESSAGE_CATEGORY_APPLICATION_DEFINED, text,
                           DebugEnabled());
    }
}

// Each DML_FEATURE this header declares (DirectML 1.15, feature level 6.4: the two below), as the
// reference pages of DML_FEATURE and its query and data structs describe them.
HRESULT Device::CheckFeatureSupport(DML_FEATURE feature, UINT queryDataSize, const void* queryData,
                                    UINT supportDataSize, void* supportData) {
    FREEDML_TRACE_DML("IDMLDevice::CheckFeatureSupport", this, feature, queryDataSize, queryData, supportDataSize, supportData);
    constexpr const char* kMethod = "IDMLDevice::CheckFeatureSupport";
    return Guarded(kMethod, [&]() -> HRESULT {
        switch (Raw(feature)) {
            case DML_FEATURE_TENSOR_DATA_TYPE_SUPPORT: {
                if (!queryData || queryDataSize != sizeof(DML_FEATURE_QUERY_TENSOR_DATA_TYPE_SUPPORT) ||
                    !supportData || supportDataSize != sizeof(DML_FEATURE_DATA_TENSOR_DATA_TYPE_SUPPORT)) {
                    return Fail(kMethod, Error(E_INVALIDARG,
                                               "DML_FEATURE_TENSOR_DATA_TYPE_SUPPORT takes a %zu-byte query and a "
                                               "%zu-byte result (neither null); got %u bytes at %p and %u bytes at %p.",
                                               sizeof(DML_FEATURE_QUERY_TENSOR_DATA_TYPE_SUPPORT),
                                               sizeof(DML_FEATURE_DATA_TENSOR_DATA_TYPE_SUPPORT), queryDataSize,
                                               queryData, supportDataSize, supportData));
                }
                const uint32_t type =
                    Raw(static_cast<const DML_FEATURE_QUERY_TENSOR_DATA_TYPE_SUPPORT*>(queryData)->DataType);
                // Both backends' kernels (the CPU's and the CUDA plugin's) hold every 8-, 16-, 32- and
                // 64-bit type in tensors, and the 4-bit ones (INT4, UINT4) in QUANTIZE and DEQUANTIZE,
                // the operators DirectML lists them for; UNKNOWN or a value outside the enumeration is
                // no type.
                const bool supported = (type >= DML_TENSOR_DATA_TYPE_FLOAT32 && type <= DML_TENSOR_DATA_TYPE_INT64) ||
                                       type == DML_TENSOR_DATA_TYPE_UINT4 || type == DML_TENSOR_DATA_TYPE_INT4;
                static_cast<DML_FEATURE_DATA_TENSOR_DATA_TYPE_SUPPORT*>(supportData)->IsSupported = supported;
                return S_OK;
            }
            case DML_FEATURE_FEATURE_LEVELS: {
                if (!queryData || queryDataSize != sizeof(DML_FEATURE_QUERY_FEATURE_LEVELS) || !supportData ||
                    supportDataSize != sizeof(DML_FEATURE_DATA_FEATURE_LEVELS)) {
                    return Fail(kMethod, Error(E_INVALIDARG,
                                               "DML_FEATURE_FEATURE_LEVELS takes a %zu-byte query and a %zu-byte "
                                               "result (neither null); got %u bytes at %p and %u bytes at %p.",
                                               sizeof(DML_FEATURE_QUERY_FEATURE_LEVELS),
                                               sizeof(DML_FEATURE_DATA_FEATURE_LEVELS), queryDataSize, queryData,
                                               supportDataSize, supportData));
                }
                const auto* query = static_cast<const DML_FEATURE_QUERY_FEATURE_LEVELS*>(queryData);
                if (query->RequestedFeatureLevelCount == 0 || !query->RequestedFeatureLevels) {
                    return Fail(kMethod, Error(E_INVALIDARG,
                                               "DML_FEATURE_QUERY_FEATURE_LEVELS asks for no feature levels "
                                               "(RequestedFeatureLevelCount %u, RequestedFeatureLevels %p).",
                                               query->RequestedFeatureLevelCount,
                                               static_cast<const void*>(query->RequestedFeatureLevels)));
                }
                // The highest requested level this device supports; 0 when none is.
                DML_FEATURE_LEVEL best = static_cast<DML_FEATURE_LEVEL>(0);
                for (UINT i = 0; i < query->RequestedFeatureLevelCount; ++i) {
                    const uint32_t level = Raw(query->RequestedFeatureLevels[i]);
                    if (level <= static_cast<uint32_t>(featureLevel_) && level > static_cast<uint32_t>(best)) {
                        best = static_cast<DML_FEATURE_LEVEL>(level);
                    }
                }
                static_cast<DML_FEATURE_DATA_FEATURE_LEVELS*>(supportData)->MaxSupportedFeatureLevel = best;
                return S_OK;
            }
            default:
                return Fail(kMethod, Error(E_INVALIDARG,
                                           "DML_FEATURE (%d) is not a feature FreeDML knows (it answers "
                                           "DML_FEATURE_TENSOR_DATA_TYPE_SUPPORT and DML_FEATURE_FEATURE_LEVELS).",
                                           static_cast<int>(Raw(feature))));
        }
    });
}

HRESULT Device::CreateOperator(const DML_OPERATOR_DESC* desc, REFIID riid, void** object) {
    FREEDML_TRACE_DML("IDMLDevice::CreateOperator", this, desc, riid, object);
    return Guarded("IDMLDevice::CreateOperator", [&]() -> HRESULT {
        constexpr const char* kMethod = "IDMLDevice::CreateOperator";
        if (object) *object = nullptr;
        if (!desc) return Fail(kMethod, Error(E_INVALIDARG, "desc is null."));
        Operator* op = nullptr;
        Status status = Operator::Create(*this, *desc, &op);
        if (!status.ok()) return Fail(kMethod, status);
        return HandOut(op, riid, object);  // a null ppv validates only: the operator is dropped
    });
}

HRESULT Device::CompileOperator(IDMLOperator* op, DML_EXECUTION_FLAGS flags, REFIID riid, void** object) {
    FREEDML_TRACE_DML("IDMLDevice::CompileOperator", this, op, flags, riid, object);
    return Guarded("IDMLDevice::CompileOperator", [&]() -> HRESULT {
        constexpr const char* kMethod = "IDMLDevice::CompileOperator";
        if (object) *object = nullptr;
        auto* ours = AsChild<Operator>(op);
        if (!ours) return Fail(kMethod, Error(E_INVALIDARG, "op is %s, not a FreeDML operator.", op ? "another object" : "null"));
        if (&ours->GetDmlDevice() != this) {
            return Fail(kMethod, Error(E_INVALIDARG, "%s was created on another DirectML device.", ours->Describe().c_str()));
        }
        CompiledOperator* compiled = nullptr;
        Status status = CompiledOperator::Create(*this, *ours, Raw(flags), &compiled);
        if (!status.ok()) return Fail(kMethod, status);
        return HandOut(compiled, riid, object);  // a null ppv validates only: the compiled operator is dropped
    });
}

HRESULT Device::CreateOperatorInitializer(UINT count, IDMLCompiledOperator* const* operators, REFIID riid,
                                          void** object) {
    FREEDML_TRACE_DML("IDMLDevice::CreateOperatorInitializer", this, count, FREEDML_TRACE_LIST(operators, count), riid, object);
    return Guarded("IDMLDevice::CreateOperatorInitializer", [&]() -> HRESULT {
        constexpr const char* kMethod = "IDMLDevice::CreateOperatorInitializer";
        if (object) *object = nullptr;
        if (!object) return Fail(kMethod, Error(E_POINTER, "ppv is null."));
        OperatorInitializer* initializer = nullptr;
        Status status = OperatorInitializer::Create(*this, count, operators, &initializer);
        if (!status.ok()) return Fail(kMethod, status);
        return HandOut(initializer, riid, object);
    });
}

HRESULT Device::CreateCommandRecorder(REFIID riid, void** object) {
    FREEDML_TRACE_DML("IDMLDevice::CreateCommandRecorder", this, riid, object);
    return Guarded("IDMLDevice::CreateCommandRecorder", [&]() -> HRESULT {
        if (!object) return Fail("IDMLDevice::CreateCommandRecorder", Error(E_POINTER, "ppv is null."));
        return HandOut(new CommandRecorder(*this), riid, object);
    });
}

HRESULT Device::CreateBindingTable(const DML_BINDING_TABLE_DESC* desc, REFIID riid, void** object) {
    FREEDML_TRACE_DML("IDMLDevice::CreateBindingTable", this, desc, riid, object);
    return Guarded("IDMLDevice::CreateBindingTable", [&]() -> HRESULT {
        constexpr const char* kMethod = "IDMLDevice::CreateBindingTable";
        if (object) *object = nullptr;
        if (!object) return Fail(kMethod, Error(E_POINTER, "ppv is null."));
        BindingTable* table = nullptr;
        Status status = BindingTable::Create(*this, desc, &table);
        if (!status.ok()) return Fail(kMethod, status);
        return HandOut(table, riid, object);
    });
}

bool Device::Owns(IDMLDeviceChild* object) {
    if (!object) return false;
    void* identity = nullptr;
    if (FAILED(object->QueryInterface(kIidChildIdentity, &identity)) || !identity) return false;
    return static_cast<ChildIdentity*>(identity)->device == this;
}

// Residency: FreeDML keeps everything resident; the calls only check their arguments.
HRESULT Device::Evict(UINT count, IDMLPageable* const* objects) {
    FREEDML_TRACE_DML("IDMLDevice::Evict", this, count, objects);
    if (count && !objects) return Fail("IDMLDevice::Evict", Error(E_INVALIDARG, "count is %u but ppObjects is null.", count));
    for (UINT i = 0; i < count; ++i) {
        if (!Owns(objects[i])) {
            return Fail("IDMLDevice::Evict", Error(E_INVALIDARG, "ppObjects[%u] is not a pageable object of this device.", i));
        }
    }
    return S_OK;
}

HRESULT Device::MakeResident(UINT count, IDMLPageable* const* objects) {
    FREEDML_TRACE_DML("IDMLDevice::MakeResident", this, count, objects);
    if (count && !objects) {
        return Fail("IDMLDevice::MakeResident", Error(E_INVALIDARG, "count is %u but ppObjects is null.", count));
    }
    for (UINT i = 0; i < count; ++i) {
        if (!Owns(objects[i])) {
            return Fail("IDMLDevice::MakeResident",
                        Error(E_INVALIDARG, "ppObjects[%u] is not a pageable object of this device.", i));
        }
    }
    return S_OK;
}

HRESULT Device::GetDeviceRemovedReason() { FREEDML_TRACE_DML("IDMLDevice::GetDeviceRemovedReason", this); return d3d12_->RemovedReason(); }

HRESULT Device::GetParentDevice(REFIID riid, void** object) { FREEDML_TRACE_DML("IDMLDevice::GetParentDevice", this, riid, object); return d3d12Device_->QueryInterface(riid, object); }

HRESULT Device::CompileGraph(const DML_GRAPH_DESC* desc, DML_EXECUTION_FLAGS flags, REFIID riid, void** object) {
    FREEDML_TRACE_DML("IDMLDevice::CompileGraph", this, desc, flags, riid, object);
    return Guarded("IDMLDevice1::CompileGraph", [&]() -> HRESULT {
        constexpr const char* kMethod = "IDMLDevice1::CompileGraph";
        if (object) *object = nullptr;
        if (!desc) return Fail(kMethod, Error(E_INVALIDARG, "desc is null."));
        CompiledOperator* compiled = nullptr;
        Status status = dml::CompileGraph(*this, *desc, Raw(flags), &compiled);
        if (!status.ok()) return Fail(kMethod, status);
        if (capture::Enabled()) compiled->CaptureGraphJson() = capture::GraphJson(*desc);
        return HandOut(compiled, riid, object);  // a null ppv validates only
    });
}

}  // namespace freedml::dml
