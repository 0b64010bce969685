// The registry's half of the CUDA plugin (see cuda_plugin.h): find libfreedml_cuda.so, load it
// only where an NVIDIA driver exists, and ask it for one adapter per device. Linked into every
// library that holds the adapter registry; it needs no CUDA header or library.
#include <dlfcn.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "backend/cuda/cuda_plugin.h"

namespace freedml::backend::cuda {

namespace {

std::string& Reason() {
    static std::string* reason = new std::string;  // never destroyed: read at any time
    return *reason;
}

bool DebugEnabled() {
    const char* debug = std::getenv("FREEDML_DEBUG");
    return debug && *debug && std::string(debug) != "0";
}

// The directory of the shared library this code was linked into (libd3d12.so, libdxcore.so), so
// that an installed plugin is found beside it.
std::string OwnDirectory() {
    Dl_info info{};
    if (!dladdr(reinterpret_cast<void*>(&OwnDirectory), &info) || !info.dli_fname) return {};
    std::string path(info.dli_fname);
    size_t slash = path.rfind('/');
    return slash == std::string::npos ? std::string() : path.substr(0, slash);
}

std::vector<std::string> PluginCandidates() {
    std::vector<std::string> candidates;
    if (const char* explicitPath = std::getenv("FREEDML_CUDA_PLUGIN"); explicitPath && *explicitPath) {
        candidates.emplace_back(explicitPath);
        return candidates;  // an explicit choice is the only one tried
    }
    std::string own = OwnDirectory();
    if (!own.empty()) candidates.push_back(own + "/libfreedml_cuda.so");
#ifdef FREEDML_CUDA_PLUGIN_BUILD_PATH
    candidates.emplace_back(FREEDML_CUDA_PLUGIN_BUILD_PATH);  // running from the build tree
#endif
    candidates.emplace_back("libfreedml_cuda.so");  // LD_LIBRARY_PATH and the loader's paths
    return candidates;
}

const PluginApi* LoadPlugin(std::string* why) {
    std::string tried;
    for (const std::string& candidate : PluginCandidates()) {
        void* handle = dlopen(candidate.c_str(), RTLD_NOW | RTLD_LOCAL);
        if (!handle) {
            const char* error = dlerror();
            if (!tried.empty()) tried += "; ";
            tried += error ? error : candidate;
            continue;
        }
        // Kept loaded for the life of the process: adapters, memory and kernels live in it.
        auto entry = reinterpret_cast<PluginEntryFn>(dlsym(handle, kPluginEntryName));
        const PluginApi* api = entry ? entry() : nullptr;
        if (!api || api->abiVersion != kPluginAbiVersion) {
            *why = "the CUDA plugin " + candidate + " is from another FreeDML build (ABI version " +
                   (api ? std::to_string(api->abiVersion) : std::string("unknown")) + ", expected " +
                   std::to_string(kPluginAbiVersion) + ")";
            return nullptr;
        }
        return api;
    }
    *why = "the CUDA plugin libfreedml_cuda.so could not be loaded (" + tried + ")";
    return nullptr;
}

}  // namespace

const std::string& CudaUnavailableReason() { return Reason(); }

void AppendCudaAdapters(std::vector<std::unique_ptr<Adapter>>* adapters, LUID (*makeLuid)(LONG high)) {
    std::string why;
    const char* disabled = std::getenv("FREEDML_DISABLE_CUDA");
    if (disabled && *disabled && std::string(disabled) != "0") {
        why = "FREEDML_DISABLE_CUDA is set";
    } else if (void* driver = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_LOCAL); !driver) {
        // The cheap test first: without a driver the plugin (and cuBLAS, cuDNN) is never loaded.
        why = "no NVIDIA driver (libcuda.so.1 cannot be loaded)";
    } else if (const PluginApi* api = LoadPlugin(&why)) {
        int count = api->deviceCount(&why);
        for (int ordinal = 0; ordinal < count; ++ordinal) {
            if (auto adapter = api->createAdapter(ordinal, makeLuid(1 + ordinal))) adapters->push_back(std::move(adapter));
        }
        if (count > 0) why.clear();
    }
    Reason() = why;
    // Standard error (under FREEDML_DEBUG only), not a device's info queue: adapters are found
    // before any device exists, and a missing GPU is no failure of the application's work.
    if (!why.empty() && DebugEnabled()) std::fprintf(stderr, "FreeDML: no CUDA adapter: %s.\n", why.c_str());
}

}  // namespace freedml::backend::cuda
