// Compiler settings for the files whose float rows must vectorize and give the same results in
// each instruction-set variant (cpu_isa.h): unary.cpp, activation.cpp, activation_ops.cpp.
// Include it first: the settings hold for the rest of the file.
// - GCC vectorizes at -O2 only the cheapest loops; these are the hot ones.
// - No contraction into FMAs: the baseline and AVX2+FMA variants round the same operations. A
//   formula asks for fused multiply-adds explicitly where they pay (vector_math.h's MulAdd, in
//   GELU's rows for CPUs with FMA), and its test bounds both forms.
// - no-trapping-math lets selects (CLIP, the clamps of vector_math.h) become vector blends;
//   FreeDML never reads floating-point exception flags.
#pragma once

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("tree-vectorize", "vect-cost-model=dynamic", "fp-contract=off", "no-trapping-math")
#endif
#if defined(__clang__)
#pragma clang fp contract(off)
#endif
