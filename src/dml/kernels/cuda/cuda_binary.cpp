// CUDA kernels of the binary element-wise family (planning side; the launches are in binary_ops.cu).
#include "dml/kernels/cuda/cuda_common.h"

namespace freedml::dml::cuda {

bool CreateBinaryFamilyKernel(const OperatorArgs&, std::unique_ptr<Kernel>*, Status*) { return false; }

}  // namespace freedml::dml::cuda
