#include "dxcore/adapter_list.h"

#include <algorithm>

#include "common/api_guard.h"

namespace freedml::dxcore {

AdapterList::AdapterList(IDXCoreAdapterFactory* factory, std::vector<Ref<Adapter>> adapters)
    : factory_(Ref<IDXCoreAdapterFactory>::Share(factory)), adapters_(std::move(adapters)) {}

HRESULT AdapterList::GetAdapter(uint32_t index, REFIID riid, void** adapter) {
    return Guard("IDXCoreAdapterList::GetAdapter", NoReport, [&]() -> HRESULT {
        if (!adapter) return E_POINTER;
        *adapter = nullptr;
        if (index >= adapters_.size()) return E_INVALIDARG;
        return adapters_[index]->QueryInterface(riid, adapter);
    });
}

HRESULT AdapterList::GetFactory(REFIID riid, void** factory) { return factory_->QueryInterface(riid, factory); }

bool AdapterList::IsAdapterPreferenceSupported(DXCoreAdapterPreference preference) {
    return preference == DXCoreAdapterPreference::Hardware || preference == DXCoreAdapterPreference::MinimumPower ||
           preference == DXCoreAdapterPreference::HighPerformance;
}

HRESULT AdapterList::Sort(uint32_t preferenceCount, const DXCoreAdapterPreference* preferences) {
    return Guard("IDXCoreAdapterList::Sort", NoReport, [&]() -> HRESULT {
        if (preferenceCount && !preferences) return E_INVALIDARG;
        for (uint32_t i = 0; i < preferenceCount; ++i) {
            if (!IsAdapterPreferenceSupported(preferences[i])) return E_INVALIDARG;
        }
        // A lower rank sorts first; preferences are applied in the order given, ties keep the order.
        auto rank = [](const backend::AdapterInfo& info, DXCoreAdapterPreference preference) -> int {
            switch (preference) {
                case DXCoreAdapterPreference::Hardware: return info.isHardware ? 0 : 1;
                case DXCoreAdapterPreference::HighPerformance: return info.kind == backend::AdapterKind::Cuda ? 0 : 1;
                case DXCoreAdapterPreference::MinimumPower: return info.kind == backend::AdapterKind::Cpu ? 0 : 1;
            }
            return 0;
        };
        std::stable_sort(adapters_.begin(), adapters_.end(), [&](const Ref<Adapter>& a, const Ref<Adapter>& b) {
            for (uint32_t i = 0; i < preferenceCount; ++i) {
                int ra = rank(a->Backend()->Info(), preferences[i]);
                int rb = rank(b->Backend()->Info(), preferences[i]);
                if (ra != rb) return ra < rb;
            }
            return false;
        });
        return S_OK;
    });
}

}  // namespace freedml::dxcore
