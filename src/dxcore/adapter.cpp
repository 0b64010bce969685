#include "dxcore/adapter.h"

#include <cstring>
#include <string>

#include "common/api_guard.h"

namespace freedml::dxcore {

namespace {

// FreeDML's version as a driver version: 16 bits each of major, minor, patch, build.
constexpr uint64_t kDriverVersion = (uint64_t{0} << 48) | (uint64_t{1} << 32);

// The bytes of one property, or false when the adapter has no such property.
bool PropertyBytes(const backend::AdapterInfo& info, DXCoreAdapterProperty property, std::string* bytes) {
    auto put = [bytes](const auto& value) { bytes->assign(reinterpret_cast<const char*>(&value), sizeof(value)); };
    switch (property) {
        case DXCoreAdapterProperty::InstanceLuid: put(info.luid); return true;
        case DXCoreAdapterProperty::DriverVersion: put(kDriverVersion); return true;
        case DXCoreAdapterProperty::DriverDescription:
            bytes->assign(info.description.c_str(), info.description.size() + 1);  // with its terminating zero
            return true;
        case DXCoreAdapterProperty::HardwareID: {
            // subSysID packs the subsystem's device id above its vendor id, as the PCI SSID does.
            DXCoreHardwareID id{info.vendorId, info.deviceId, (info.subSystemId << 16) | (info.subVendorId & 0xffff),
                                info.revision};
            put(id);
            return true;
        }
        case DXCoreAdapterProperty::HardwareIDParts: {
            DXCoreHardwareIDParts parts{info.vendorId, info.deviceId, info.subSystemId, info.subVendorId, info.revision};
            put(parts);
            return true;
        }
        case DXCoreAdapterProperty::DedicatedAdapterMemory: put(info.dedicatedMemoryBytes); return true;
        case DXCoreAdapterProperty::DedicatedSystemMemory: put(uint64_t{0}); return true;
        case DXCoreAdapterProperty::SharedSystemMemory: put(info.sharedMemoryBytes); return true;
        case DXCoreAdapterProperty::IsHardware: put(info.isHardware); return true;
        // Integrated: shares the host's memory (the CPU adapter, UMA), rather than a discrete card.
        case DXCoreAdapterProperty::IsIntegrated: put(info.unifiedMemory); return true;
        case DXCoreAdapterProperty::IsDetachable: put(false); return true;
        default: return false;  // kernel-mode driver details that FreeDML does not have
    }
}

}  // namespace

bool AdapterHasAttribute(const backend::AdapterInfo& info, REFGUID attribute) {
    if (SameGuid(attribute, kAttributeCoreCompute) || SameGuid(attribute, kAttributeGenericMl)) return true;
    if (SameGuid(attribute, kAttributeD3D12Graphics) || SameGuid(attribute, kHardwareTypeGpu)) return info.isHardware;
    return false;
}

Adapter::Adapter(IDXCoreAdapterFactory* factory, backend::Adapter* adapter)
    : factory_(Ref<IDXCoreAdapterFactory>::Share(factory)), adapter_(adapter) {}

bool Adapter::IsAttributeSupported(REFGUID attribute) { return AdapterHasAttribute(adapter_->Info(), attribute); }

bool Adapter::IsPropertySupported(DXCoreAdapterProperty property) {
    std::string bytes;
    return PropertyBytes(adapter_->Info(), property, &bytes);
}

HRESULT Adapter::GetProperty(DXCoreAdapterProperty property, size_t bufferSize, void* data) {
    return Guard("IDXCoreAdapter::GetProperty", NoReport, [&]() -> HRESULT {
        if (!data) return E_POINTER;
        std::string bytes;
        if (!PropertyBytes(adapter_->Info(), property, &bytes)) return DXGI_ERROR_UNSUPPORTED;
        if (bufferSize < bytes.size()) return E_INVALIDARG;
        std::memcpy(data, bytes.data(), bytes.size());
        return S_OK;
    });
}

HRESULT Adapter::GetPropertySize(DXCoreAdapterProperty property, size_t* bufferSize) {
    return Guard("IDXCoreAdapter::GetPropertySize", NoReport, [&]() -> HRESULT {
        if (!bufferSize) return E_POINTER;
        std::string bytes;
        if (!PropertyBytes(adapter_->Info(), property, &bytes)) return DXGI_ERROR_UNSUPPORTED;
        *bufferSize = bytes.size();
        return S_OK;
    });
}

bool Adapter::IsQueryStateSupported(DXCoreAdapterState state) {
    switch (static_cast<uint32_t>(state)) {
        case static_cast<uint32_t>(DXCoreAdapterState::IsDriverUpdateInProgress):
        case static_cast<uint32_t>(DXCoreAdapterState::AdapterMemoryBudget): return true;
        default: return false;
    }
}

HRESULT Adapter::QueryState(DXCoreAdapterState state, size_t inputStateDetailsSize, const void* inputStateDetails,
                            size_t outputBufferSize, void* outputBuffer) {
    return Guard("IDXCoreAdapter::QueryState", NoReport, [&]() -> HRESULT {
        // The state kind is read as an integer: an application may pass any value.
        switch (static_cast<uint32_t>(state)) {
            case static_cast<uint32_t>(DXCoreAdapterState::IsDriverUpdateInProgress): {
                if (!outputBuffer) return E_POINTER;
                if (outputBufferSize < sizeof(uint8_t)) return E_INVALIDARG;
                *static_cast<uint8_t*>(outputBuffer) = 0;  // a boolean byte: no update in progress
                return S_OK;
            }
            case static_cast<uint32_t>(DXCoreAdapterState::AdapterMemoryBudget): {
                if (!inputStateDetails || !outputBuffer) return E_POINTER;
                if (inputStateDetailsSize < sizeof(DXCoreAdapterMemoryBudgetNodeSegmentGroup) ||
                    outputBufferSize < sizeof(DXCoreAdapterMemoryBudget)) {
                    return E_INVALIDARG;
                }
                DXCoreAdapterMemoryBudgetNodeSegmentGroup query;
                std::memcpy(&query, inputStateDetails, sizeof(query));
                const uint32_t group = static_cast<uint32_t>(query.segmentGroup);
                // One node; the two segment groups DXCore defines.
                if (query.nodeIndex != 0) return E_INVALIDARG;
                if (group != static_cast<uint32_t>(DXCoreSegmentGroup::Local) &&
                    group != static_cast<uint32_t>(DXCoreSegmentGroup::NonLocal)) {
                    return E_INVALIDARG;
                }
                const backend::MemoryBudget measured = adapter_->QueryMemoryBudget(
                    group == static_cast<uint32_t>(DXCoreSegmentGroup::Local) ? backend::SegmentGroup::Local
                                                                              : backend::SegmentGroup::NonLocal);
                // SetState (reservations) is unsupported, so nothing is reserved or reservable.
                DXCoreAdapterMemoryBudget budget{measured.budget, measured.currentUsage, 0, 0};
                std::memcpy(outputBuffer, &budget, sizeof(budget));
                return S_OK;
            }
            default:
                // A state kind this implementation does not know (DXCore's answer for a kind the
                // operating system does not recognize).
                return DXGI_ERROR_INVALID_CALL;
        }
    });
}

HRESULT Adapter::GetFactory(REFIID riid, void** factory) { return factory_->QueryInterface(riid, factory); }

}  // namespace freedml::dxcore
