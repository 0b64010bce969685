// CUDA kernels of the unary element-wise family (planning side; the launches are in unary_ops.cu).
#include "dml/kernels/cuda/cuda_common.h"

namespace freedml::dml::cuda {

bool CreateUnaryFamilyKernel(const OperatorArgs&, std::unique_ptr<Kernel>*, Status*) { return false; }

}  // namespace freedml::dml::cuda
