// CUDA kernels of the activation element-wise family (planning side; the launches are in activation_ops.cu).
#include "dml/kernels/cuda/cuda_common.h"

namespace freedml::dml::cuda {

bool CreateActivationFamilyKernel(const OperatorArgs&, std::unique_ptr<Kernel>*, Status*) { return false; }

}  // namespace freedml::dml::cuda
