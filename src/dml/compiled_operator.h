// IDMLCompiledOperator: an operator, or a graph of operators (IDMLDevice1::CompileGraph), planned
// for the device's backend. It owns the kernel (a graph's is a GraphKernel), and knows whether it
// was initialized (N7).
//
// Its persistent resource holds the kernel's own bytes first (PersistentResourceSize of the
// kernel: weights it packs), then one aligned copy of every other OWNED_BY_DML input, made by
// the operator initializer and read there at execution. So OWNED_BY_DML works on any input of
// any operator, whether or not its kernel has a use for packing it.
#pragma once

#include <atomic>
#include <memory>
#include <vector>

#include "dml/dispatchable.h"
#include "dml/kernel.h"
#include "dml/object.h"
#include "dml/operator.h"

namespace freedml::dml {

// An OWNED_BY_DML input its kernel does not pack (Kernel::PacksOwnedInput): its bytes, as the
// tensor lays them out, live at `offset` of the persistent resource.
struct OwnedInputCopy {
    size_t input = 0;     // index in the operator's inputs
    uint64_t offset = 0;  // in the persistent resource, past the kernel's own bytes
    uint64_t bytes = 0;   // what the tensor's elements span (DMLCalcBufferTensorSize)
};

// What a compiled operator binds: one operator's tensors in desc order, or a graph's inputs and
// outputs. The tensor descs live in `operators` (each held by a reference) or in the kernel.
struct CompiledInterface {
    std::vector<const TensorDesc*> inputs;  // nullptr: an absent optional tensor, an unused graph input
    std::vector<const TensorDesc*> outputs;
    std::vector<std::string> inputNames;  // for messages: "ATensor", "graph input 2"
    std::vector<std::string> outputNames;
    bool supportsInPlaceExecution = false;  // H2
    std::string what;                       // "GEMM operator", "graph of 3 nodes"
    std::string subject;                    // binding messages' subject: "GEMM operator 'layer1'"
    std::vector<Ref<Operator>> operators;   // the operators whose tensors and args the kernel reads
};

// The execution flags FreeDML knows, as CompileOperator and CompileGraph accept them.
Status ValidateExecutionFlags(uint32_t rawFlags, DML_EXECUTION_FLAGS* flags);
// The kernel of `op` from the kernels of the device's backend: its own (the CUDA plugin's), or
// libdirectml's CPU kernels for a backend whose memory is host memory.
Status CreateKernelFor(Device& device, const Operator& op, DML_EXECUTION_FLAGS flags, std::unique_ptr<Kernel>* kernel);

class CompiledOperator final
    : public DeviceChild<CompiledOperator, ChildKind::CompiledOperator, IDMLCompiledOperator, IDMLDispatchable,
                         IDMLPageable, IDMLDeviceChild, IDMLObject> {
public:
    static constexpr ChildKind kKind = ChildKind::CompiledOperator;

    // `flags` is the application's DML_EXECUTION_FLAGS read as an integer; validated here.
    static Status Create(Device& device, Operator& op, uint32_t flags, CompiledOperator** created);
    // A compiled operator of an already planned kernel (CompileGraph's).
    static Status Create(Device& device, CompiledInterface shape, DML_EXECUTION_FLAGS flags,
                         std::unique_ptr<Kernel> kernel, CompiledOperator** created);

    DML_BINDING_PROPERTIES STDMETHODCALLTYPE GetBindingProperties() override;

    const std::shared_ptr<const DispatchableSnapshot>& Snapshot() const { return snapshot_; }
    Kernel& GetKernel() { return *kernel_; }
    const std::vector<OwnedInputCopy>& OwnedInputCopies() const { return ownedCopies_; }
    DML_EXECUTION_FLAGS Flags() const { return flags_; }
    const CompiledInterface& Interface() const { return shape_; }
    std::string Describe() const;

    // Capture (dml/capture.h): a graph's JSON, made by CompileGraph while capturing (an operator's
    // is made from its desc when needed), and the name the capture gave this dispatchable.
    std::string& CaptureGraphJson() { return captureGraphJson_; }
    std::string& CaptureName() { return captureName_; }

    // N7: set when an initializer that targets it has run on a queue.
    bool IsInitialized() const { return initialized_.load(); }
    // Returns false when it already was.
    bool MarkInitialized() { return !initialized_.exchange(true); }

private:
    CompiledOperator(Device& device, CompiledInterface shape, DML_EXECUTION_FLAGS flags,
                     std::unique_ptr<Kernel> kernel);

    CompiledInterface shape_;
    DML_EXECUTION_FLAGS flags_;
    std::unique_ptr<Kernel> kernel_;
    std::vector<OwnedInputCopy> ownedCopies_;
    std::shared_ptr<const DispatchableSnapshot> snapshot_;
    std::atomic<bool> initialized_{false};
    std::string captureGraphJson_;
    std::string captureName_;  // guarded by the capture's lock
};

}  // namespace freedml::dml
