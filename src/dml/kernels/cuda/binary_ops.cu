// Device code of the binary element-wise family, built on elementwise.cuh.
#include "dml/kernels/cuda/elementwise.cuh"
