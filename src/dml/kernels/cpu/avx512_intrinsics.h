// <immintrin.h> for the CPU kernels written in AVX-512 intrinsics (exp_avx512.cpp,
// pointwise_avx512.cpp, transpose_avx512.cpp), each function of them marked FREEDML_TARGET_AVX512
// (cpu_isa.h) and called only where UseAvx512(). Include it from those .cpp files alone: GCC 12's
// AVX-512 intrinsics start their results from _mm512_undefined_ps(), which -Wmaybe-uninitialized
// and -Wuninitialized then report wherever they inline (a known false positive of that release), so
// the two warnings are off for the rest of the file.
#pragma once

#include "dml/kernels/cpu/cpu_isa.h"

#ifdef FREEDML_CPU_X86_64
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"
#endif
#include <immintrin.h>
#endif
