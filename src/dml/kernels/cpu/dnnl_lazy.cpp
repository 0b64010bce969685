// oneDNN loaded on first use (cmake/DnnlLazy.cmake says why and how). The generated stubs of every
// dnnl_* function jump through freedml_dnnl_slots; until oneDNN is loaded each slot leads here.
#if defined(FREEDML_DNNL_LAZY)

#include <dlfcn.h>

#include <cstdio>
#include <cstdlib>
#include <mutex>

extern "C" {
// Defined by the generated stubs (hidden, like everything here).
extern void* freedml_dnnl_slots[];
extern const char* const freedml_dnnl_names[];
extern const unsigned freedml_dnnl_count;
void* freedml_dnnl_resolve(unsigned index);
void* freedml_dnnl_symbol(const char* name);
}

namespace {

[[noreturn]] void MissingFunction() {
    std::fprintf(stderr,
                 "FreeDML: a oneDNN function that FreeDML was built against is missing from %s; install the "
                 "oneDNN release FreeDML was built with (Debian: libdnnl2).\n",
                 FREEDML_DNNL_SONAME);
    std::abort();
}

// Loads oneDNN once. GNU OpenMP reads its wait policy when it is loaded, here: unless the user chose
// one (OMP_WAIT_POLICY, GOMP_SPINCOUNT) or the process already has OpenMP, FreeDML asks for a short
// spin: an idle OpenMP thread polls kSpinCount times (a poll is a pause instruction, 15 ns on the
// Intel Xeon measured: 3000 polls are some 45 microseconds) and then sleeps. OpenMP's default
// (300000 polls, milliseconds) collapses FreeDML's dense math beside a busy process; the passive
// policy (sleep at once), and spins much shorter than a wake-up on a virtual machine, let oneDNN's
// other threads fall asleep between and at the end of GEMMs and convolutions: a 256 GEMM ran 0.6 as
// fast with 600 polls as with 3000 (bench/analysis.md item 9). The variable is set only while the
// library loads. The count is a build setting, FREEDML_OMP_SPIN_COUNT.
constexpr const char* kSpinCount = FREEDML_OMP_SPIN_COUNT;
void* loaded = nullptr;  // oneDNN's handle, once Load has run

void Load() {
    const bool chosen = std::getenv("OMP_WAIT_POLICY") || std::getenv("GOMP_SPINCOUNT");
    bool openMpLoaded = false;
    if (void* openMp = dlopen("libgomp.so.1", RTLD_LAZY | RTLD_NOLOAD)) {
        openMpLoaded = true;
        dlclose(openMp);
    }
    const bool setPolicy = !chosen && !openMpLoaded;
    if (setPolicy) setenv("GOMP_SPINCOUNT", kSpinCount, 0);
    void* library = dlopen(FREEDML_DNNL_SONAME, RTLD_NOW | RTLD_LOCAL);
    if (setPolicy) unsetenv("GOMP_SPINCOUNT");
    if (!library) {
        const char* why = dlerror();
        std::fprintf(stderr, "FreeDML: cannot load oneDNN (%s), which the CPU adapter's dense math needs: %s\n",
                     FREEDML_DNNL_SONAME, why ? why : "unknown error");
        std::abort();
    }
    loaded = library;
    for (unsigned i = 0; i < freedml_dnnl_count; ++i) {
        void* function = dlsym(library, freedml_dnnl_names[i]);
        __atomic_store_n(&freedml_dnnl_slots[i], function ? function : reinterpret_cast<void*>(&MissingFunction),
                         __ATOMIC_RELEASE);
    }
}

}  // namespace

extern "C" void* freedml_dnnl_resolve(unsigned index) {
    static std::once_flag once;
    std::call_once(once, Load);
    return __atomic_load_n(&freedml_dnnl_slots[index], __ATOMIC_ACQUIRE);
}

// A symbol of oneDNN or of a library it loaded (its OpenMP runtime), oneDNN loaded first; null where
// there is none. The library is loaded RTLD_LOCAL, so its dependencies are reached through its handle.
extern "C" void* freedml_dnnl_symbol(const char* name) {
    freedml_dnnl_resolve(0);
    return loaded ? dlsym(loaded, name) : nullptr;
}

#endif  // FREEDML_DNNL_LAZY
