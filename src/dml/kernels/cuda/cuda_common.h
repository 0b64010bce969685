// What the CUDA kernels' planning code shares: DirectML types to the plain launch descriptions of
// ew_plan.h, the fused activation, and the adapters between the binding model and a CUDA device
// and stream. Each family's factories are in its folder (dml/ops/<family>/cuda); the operator
// table names them.
#pragma once

#include <DirectML.h>

#include <memory>
#include <string>

#include "backend/cuda/cuda_backend.h"
#include "dml/kernel.h"
#include "dml/kernels/cuda/ew_plan.h"
#include "dml/ops/activation/activation_params.h"
#include "dml/tensor.h"

namespace freedml::dml::cuda {

using backend::cuda::CudaDevice;
using backend::cuda::CudaStream;

// false for types the CUDA kernels do not move (UNKNOWN, 4-bit types).
bool ToElementType(DML_TENSOR_DATA_TYPE type, ElementType* out);

// Strides of `desc` over `shape` (same rank): a dimension of size 1 facing a larger one broadcasts.
void BroadcastStrides(const TensorDesc& desc, const TensorDesc& shape, int64_t (&strides)[kMaxDims]);
void OwnStrides(const TensorDesc& desc, int64_t (&strides)[kMaxDims]);

// A FusedActivation desc (null: none), decoded by the one activation decode
// (ops/activation/activation_params.h) and put in the device code's terms.
Status MakeActParams(const DML_OPERATOR_DESC* fused, ActParams* out);
// Decoded activation parameters in the device code's terms.
Status ToActParams(const ActivationParams& decoded, ActParams* out);
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

// The CUDA device a CUDA factory plans for: the CUDA kernel set is handed out by CUDA devices only
// (CudaDevice::DmlKernels).
inline CudaDevice& DeviceOf(const KernelContext& context) { return static_cast<CudaDevice&>(context.device); }

}  // namespace freedml::dml::cuda
