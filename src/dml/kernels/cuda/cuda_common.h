// What the CUDA kernels' planning code shares: DirectML types to the plain launch descriptions of
// ew_plan.h, the fused activation, and the adapter between the binding model and a CUDA stream.
#pragma once

#include <DirectML.h>

#include <memory>
#include <string>

#include "backend/cuda/cuda_backend.h"
#include "dml/kernel.h"
#include "dml/kernels/cuda/ew_plan.h"
#include "dml/tensor.h"

namespace freedml::dml::cuda {

using backend::cuda::CudaDevice;
using backend::cuda::CudaStream;

// false for types the CUDA kernels do not move (UNKNOWN, 4-bit types).
bool ToElementType(DML_TENSOR_DATA_TYPE type, ElementType* out);

// Strides of `desc` over `shape` (same rank): a dimension of size 1 facing a larger one broadcasts.
void BroadcastStrides(const TensorDesc& desc, const TensorDesc& shape, int64_t (&strides)[kMaxDims]);
void OwnStrides(const TensorDesc& desc, int64_t (&strides)[kMaxDims]);

// A FusedActivation desc (null: none). Refuses operators that cannot be fused.
Status MakeActParams(const DML_OPERATOR_DESC* fused, ActParams* out);
const char* ActName(Act act);

// Plans a copy of `from` (its own strides) into `to` (the same sizes) and one of a tensor into a
// packed buffer of its own sizes.
EwPlan<2> CopyPlan(const TensorDesc& to, const TensorDesc& from);
EwPlan<2> PackPlan(const TensorDesc& from);
// True when the strides are the packed strides of the sizes (dimensions of size 1 ignored).
bool IsPackedTensor(const TensorDesc& desc);

// The stream a kernel's Initialize or Execute runs on. A failed launch or library call there,
// where nothing can return it, goes to its Check or Fail: the queue's device is removed.
inline CudaStream& StreamOf(const KernelBindings& bindings) {
    CudaStream& stream = backend::cuda::AsCudaStream(*bindings.stream);
    stream.MakeCurrent();
    return stream;
}

// Element-wise and data movement (cuda_elementwise.cpp).
Status CreateIdentityKernel(const OperatorArgs& args, std::unique_ptr<Kernel>* out);
Status CreateAddKernel(const OperatorArgs& args, const DML_OPERATOR_DESC* fused, std::unique_ptr<Kernel>* out);
Status CreateJoinKernel(const OperatorArgs& args, std::unique_ptr<Kernel>* out);
// The element-wise families, one file each: cuda_unary.cpp (schema/elementwise_unary.cpp: math of
// one tensor, CAST, FILL_VALUE_*), cuda_binary.cpp (schema/elementwise_binary.cpp and IF) and
// cuda_activation.cpp (schema/activation.cpp). A family returns false for an operator that is not
// its own; otherwise it sets *status (and *out when that is success).
using CudaFamilyFactory = bool (*)(const OperatorArgs& args, std::unique_ptr<Kernel>* out, Status* status);
bool CreateUnaryFamilyKernel(const OperatorArgs& args, std::unique_ptr<Kernel>* out, Status* status);
bool CreateBinaryFamilyKernel(const OperatorArgs& args, std::unique_ptr<Kernel>* out, Status* status);
bool CreateActivationFamilyKernel(const OperatorArgs& args, std::unique_ptr<Kernel>* out, Status* status);
// cuBLASLt (cuda_gemm.cpp) and cuDNN (cuda_convolution.cpp).
Status CreateGemmKernel(CudaDevice& device, const OperatorArgs& args, DML_EXECUTION_FLAGS flags,
                        std::unique_ptr<Kernel>* out);
Status CreateConvolutionKernel(CudaDevice& device, const OperatorArgs& args, DML_EXECUTION_FLAGS flags,
                               std::unique_ptr<Kernel>* out);

}  // namespace freedml::dml::cuda
