// The instruction sets the CPU kernels may use, decided once per process from what the CPU has
// (never from compile flags: one build runs on every x86-64). A row that has a faster form exists
// several times, baseline, FREEDML_TARGET_AVX2_FMA and (for the transcendental rows, whose work is
// arithmetic) FREEDML_TARGET_AVX512, all from one inline body; its Create picks one.
#pragma once

#include <cstdlib>

#if defined(__x86_64__)
#define FREEDML_CPU_X86_64 1
#define FREEDML_TARGET_AVX2_FMA __attribute__((target("avx2,fma")))
#define FREEDML_TARGET_AVX512 __attribute__((target("avx512f,avx512bw,avx512dq,avx512vl,avx2,fma")))
#endif

namespace freedml::dml::cpu {

namespace detail {
inline bool EnvironmentSays(const char* name) {
    const char* value = std::getenv(name);
    return value && *value && *value != '0';
}
}  // namespace detail

// True when the CPU has AVX2 and FMA, unless FREEDML_CPU_BASELINE=1 keeps every kernel on its
// baseline rows (to test them on a machine that has both).
inline bool UseAvx2Fma() {
#ifdef FREEDML_CPU_X86_64
    static const bool use = [] {
        if (detail::EnvironmentSays("FREEDML_CPU_BASELINE")) return false;
        __builtin_cpu_init();
        return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
    }();
    return use;
#else
    return false;
#endif
}

// True when the CPU (and the OS, which must save the registers: the runtime check covers it) has
// AVX-512 F, BW, DQ and VL besides AVX2 and FMA, unless FREEDML_CPU_BASELINE=1 or
// FREEDML_CPU_NO_AVX512=1 keeps the kernels on narrower rows.
inline bool UseAvx512() {
#ifdef FREEDML_CPU_X86_64
    static const bool use = [] {
        if (!UseAvx2Fma() || detail::EnvironmentSays("FREEDML_CPU_NO_AVX512")) return false;
        return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
               __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512vl");
    }();
    return use;
#else
    return false;
#endif
}

}  // namespace freedml::dml::cpu
