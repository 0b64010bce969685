// The instruction sets the CPU kernels may use, decided once per process from what the CPU has
// (never from compile flags: one build runs on every x86-64). A row that has a faster form exists
// twice, baseline and FREEDML_TARGET_AVX2_FMA, both from one inline body; its Create picks one.
#pragma once

#include <cstdlib>

#if defined(__x86_64__)
#define FREEDML_CPU_X86_64 1
#define FREEDML_TARGET_AVX2_FMA __attribute__((target("avx2,fma")))
#endif

namespace freedml::dml::cpu {

// True when the CPU has AVX2 and FMA, unless FREEDML_CPU_BASELINE=1 keeps every kernel on its
// baseline rows (to test them on a machine that has both).
inline bool UseAvx2Fma() {
#ifdef FREEDML_CPU_X86_64
    static const bool use = [] {
        const char* baseline = std::getenv("FREEDML_CPU_BASELINE");
        if (baseline && *baseline && *baseline != '0') return false;
        __builtin_cpu_init();
        return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
    }();
    return use;
#else
    return false;
#endif
}

}  // namespace freedml::dml::cpu
