// The adapter registry. libdxcore and libd3d12 each link their own copy of this static library,
// so an adapter's LUID must be computed, never counted: the same adapter gets the same LUID in
// both, and an adapter listed by DXCore opens the same backend in D3D12.
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>

#include "backend/backend.h"
#include "backend/cpu/cpu_backend.h"
#include "backend/cuda/cuda_plugin.h"

namespace freedml::backend {

namespace {

// LowPart spells "FDML"; HighPart is 0 for the CPU and 1 + N for CUDA device N.
constexpr DWORD kLuidTag = 0x4C4D4446;

LUID MakeLuid(LONG high) {
    LUID luid{};
    luid.LowPart = kLuidTag;
    luid.HighPart = high;
    return luid;
}

struct Registry {
    std::vector<std::unique_ptr<Adapter>> owned;
    std::vector<Adapter*> adapters;
};

Registry& GetRegistry() {
    // Built once, thread-safely; never destroyed, so no static destruction order problem.
    static Registry* registry = [] {
        auto built = std::make_unique<Registry>();  // a throw here leaves nothing behind
        // Hardware adapters first: one per CUDA device, from the CUDA plugin when a driver and
        // the plugin are found at run time (cuda_loader.cpp), with MakeLuid(1 + ordinal).
        cuda::AppendCudaAdapters(&built->owned, MakeLuid);
        built->owned.push_back(cpu::CreateCpuAdapter(MakeLuid(0)));
        for (auto& adapter : built->owned) built->adapters.push_back(adapter.get());
        return built.release();
    }();
    return *registry;
}

}  // namespace

const std::vector<Adapter*>& EnumerateAdapters() { return GetRegistry().adapters; }

Status DefaultAdapter(Adapter** adapter) {
    *adapter = nullptr;
    const auto& adapters = EnumerateAdapters();
    const char* wanted = std::getenv("FREEDML_ADAPTER");
    if (!wanted || !*wanted) {
        *adapter = adapters.front();  // the first hardware adapter, else the CPU
        return {};
    }
    std::string name(wanted);
    std::string names;
    for (Adapter* candidate : adapters) {
        const AdapterInfo& info = candidate->Info();
        bool match = info.ordinalName == name;
        // "cuda" alone names the first CUDA adapter.
        if (!match && name == "cuda" && info.kind == AdapterKind::Cuda) match = true;
        if (match) {
            *adapter = candidate;
            return {};
        }
        if (!names.empty()) names += ", ";
        names += info.ordinalName;
    }
    return Error(DXGI_ERROR_NOT_FOUND,
                 "FREEDML_ADAPTER (%s) names no adapter of this machine: the adapters are %s (cpu, cuda or cuda:N "
                 "are the accepted forms).",
                 name.c_str(), names.c_str());
}

Adapter* FindAdapterByLuid(const LUID& luid) {
    for (Adapter* adapter : EnumerateAdapters()) {
        const LUID& own = adapter->Info().luid;
        if (own.LowPart == luid.LowPart && own.HighPart == luid.HighPart) return adapter;
    }
    return nullptr;
}

}  // namespace freedml::backend
