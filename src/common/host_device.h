// FREEDML_HOST_DEVICE marks a function that the C++ compiler builds for the host and nvcc for the
// host and the GPU alike: the scalar semantics both backends share (half.h, dml/kernels/
// integer_math.h and float_math.h) are written once with it.
#pragma once

#if defined(__CUDACC__)
#define FREEDML_HOST_DEVICE __host__ __device__
#else
#define FREEDML_HOST_DEVICE
#endif
