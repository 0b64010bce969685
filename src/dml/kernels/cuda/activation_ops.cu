// Device code of the activation element-wise family, built on elementwise.cuh.
#include "dml/kernels/cuda/elementwise.cuh"
