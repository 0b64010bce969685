// libdirectml's door to the CUDA kernels. They live in the CUDA plugin with the CUDA backend, so
// libdirectml itself links no CUDA: a device of a CUDA adapter hands out the plugin's factory.
#include "backend/cuda/cuda_plugin.h"
#include "dml/kernel.h"

namespace freedml::dml {

Status CreateCudaKernel(backend::Device& device, const OperatorArgs& args, DML_EXECUTION_FLAGS flags,
                        std::unique_ptr<Kernel>* kernel) {
    auto factory = reinterpret_cast<CudaKernelFactory>(device.PluginSymbol(backend::cuda::kCreateKernelSymbol));
    if (!factory) {
        return NoKernel(
                     "Adapter '%s' offers no CUDA kernels (its plugin has no %s); the CUDA plugin is from another "
                     "FreeDML build.",
                     device.Info().description.c_str(), backend::cuda::kCreateKernelSymbol);
    }
    return factory(device, args, flags, kernel);
}

}  // namespace freedml::dml
