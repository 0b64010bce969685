// CPU kernels of one operator family; see kernel.h (CpuKernelFactory).
#include "dml/kernel.h"

namespace freedml::dml {

bool CreateBinaryCpuKernel(const OperatorArgs&, DML_EXECUTION_FLAGS, std::unique_ptr<Kernel>*, Status*) { return false; }

}  // namespace freedml::dml
