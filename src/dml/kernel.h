// A kernel: one operator planned for one backend when it is compiled (XNNPACK's create / plan /
// run). Compiled operators own one; the binding model hands it memory that was already
// validated, so a kernel only computes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "backend/backend.h"
#include "common/status.h"
#include "dml/schema/schema.h"

namespace freedml::dml {

// Addresses of bound tensors, in the operator's binding order (inputs, outputs). An entry is
// null for an absent optional tensor. An OWNED_BY_DML input is null at execution when its
// kernel packs it (PacksOwnedInput); any other owned input points at the copy the initializer
// made of it in the persistent resource, so the kernel reads it like a bound input.
struct KernelBindings {
    std::vector<std::byte*> inputs;
    std::vector<std::byte*> outputs;
    std::byte* temporary = nullptr;
    std::byte* persistent = nullptr;
    backend::Stream* stream = nullptr;
};

class Kernel {
public:
    virtual ~Kernel() = default;
    virtual uint64_t PersistentResourceSize() const = 0;
    virtual uint64_t TemporaryResourceSize() const = 0;
    // Runs once, when the operator initializer executes: `inputs` holds the owned tensors (others
    // are null); packs those it packs (PacksOwnedInput) into `persistent`, from byte 0 up to
    // PersistentResourceSize.
    virtual void Initialize(const KernelBindings& bindings) = 0;
    // True when the kernel keeps its own copy of OWNED_BY_DML input `input` (in a layout it
    // prefers) and reads nothing from that binding at execution. Every other owned input is
    // copied as it is into the persistent resource, after the kernel's own bytes, by the
    // compiled operator (CompiledOperator::OwnedInputCopies).
    virtual bool PacksOwnedInput(size_t /*input*/) const { return false; }
    virtual void Execute(const KernelBindings& bindings) = 0;
};

// The operator families that plan their own CPU kernels (one file each in kernels/cpu/): each
// returns false when `args` is not one of its operators, else sets `status` (and `kernel`).
using CpuKernelFactory = bool (*)(const OperatorArgs& args, DML_EXECUTION_FLAGS flags,
                                  std::unique_ptr<Kernel>* kernel, Status* status);
bool CreateUnaryCpuKernel(const OperatorArgs& args, DML_EXECUTION_FLAGS flags, std::unique_ptr<Kernel>* kernel,
                          Status* status);
bool CreateBinaryCpuKernel(const OperatorArgs& args, DML_EXECUTION_FLAGS flags, std::unique_ptr<Kernel>* kernel,
                           Status* status);
bool CreateActivationCpuKernel(const OperatorArgs& args, DML_EXECUTION_FLAGS flags, std::unique_ptr<Kernel>* kernel,
                               Status* status);
bool CreateSelectCpuKernel(const OperatorArgs& args, DML_EXECUTION_FLAGS flags, std::unique_ptr<Kernel>* kernel,
                           Status* status);

// Plans `args` for the CPU backend. Fails with a message for a combination the CPU kernels do
// not run (never accepted and then wrong).
Status CreateCpuKernel(const OperatorArgs& args, DML_EXECUTION_FLAGS flags, std::unique_ptr<Kernel>* kernel);

// Plans `args` for a CUDA device. The CUDA kernels live in the CUDA plugin beside the CUDA
// backend (src/dml/kernels/cuda); this reaches them through device.PluginSymbol. Fails with a
// message for an operator or combination they do not run yet.
Status CreateCudaKernel(backend::Device& device, const OperatorArgs& args, DML_EXECUTION_FLAGS flags,
                        std::unique_ptr<Kernel>* kernel);
// The plugin's factory, found under backend::cuda::kCreateKernelSymbol.
using CudaKernelFactory = Status (*)(backend::Device& device, const OperatorArgs& args, DML_EXECUTION_FLAGS flags,
                                     std::unique_ptr<Kernel>* kernel);

}  // namespace freedml::dml
