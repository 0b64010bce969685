// Device code of the unary element-wise family, built on elementwise.cuh.
#include "dml/kernels/cuda/elementwise.cuh"
