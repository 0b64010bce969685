// A kernel: one operator planned for one backend when it is compiled (XNNPACK's create / plan /
// run). Compiled operators own one; the binding model hands it memory that was already
// validated, so a kernel only computes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
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
    // True when Execute only enqueues device work on the bindings' stream (no host wait, no host
    // read of device memory, no allocation, nothing that depends on host state that changes
    // between executions), so that a recording of it replays it (a CUDA graph; GraphHooks).
    virtual bool ReplaySafe() const { return false; }
};

// What a kernel factory is given besides the operator: the backend device it will run on (a
// CUDA factory reads the GPU's facts from it) and the flags the operator was compiled with.
struct KernelContext {
    backend::Device& device;
    DML_EXECUTION_FLAGS flags = DML_EXECUTION_FLAG_NONE;
};

// Plans `args` for one backend. Fails with a message for a combination the backend does not run
// (never accepted and then computed wrong). Every factory of every backend has this signature;
// the operator table (dml/ops/operators.def) names one per operator type and backend.
using KernelFactory = Status (*)(const KernelContext& context, const OperatorArgs& args,
                                 std::unique_ptr<Kernel>* kernel);

struct EwProgram;  // graph/ew_program.h

// What a backend brings for compiled graphs besides its operators' kernels (graph/graph_kernel.cpp).
struct GraphHooks {
    // A kernel that runs a fused element-wise program; null: the backend runs none and the graph
    // optimizer fuses no element-wise nodes for it.
    Status (*fusedElementwise)(const KernelContext& context, const EwProgram& program,
                               std::unique_ptr<Kernel>* kernel) = nullptr;
    // Replaces a compiled graph's kernel (its node kernels in execution order are `nodes`) by one
    // that replays the graph's launches, or leaves it as it is; null: graphs run as they are.
    void (*replayGraph)(std::unique_ptr<Kernel>* graph, std::span<Kernel* const> nodes) = nullptr;
};

// One backend's kernels: the factory of each operator type, as the operator table gives them.
// The CPU set is libdirectml's own; the CUDA set lives in the CUDA plugin, and a CUDA device
// hands it out (backend::Device::DmlKernels).
class KernelSet {
public:
    static constexpr int kTypeCount = 178;  // DML_OPERATOR_TYPE values 0..177 (feature level 6.4)
    struct Row {
        DML_OPERATOR_TYPE type;
        KernelFactory factory;  // null: no kernel on this backend
    };

    // `backendName` names the backend in messages ("CPU", "CUDA"); `noKernelHint` is added to the
    // message for a type without a kernel (where else it runs).
    KernelSet(const char* backendName, const char* noKernelHint, std::span<const Row> rows, GraphHooks hooks = {});

    bool Runs(DML_OPERATOR_TYPE type) const { return FactoryOf(type) != nullptr; }
    // The kernel of `args` on this backend, or kNoKernel (DXGI_ERROR_UNSUPPORTED) with a message
    // when the set has none for its type. An in-place operator's kernel comes wrapped so that an
    // input bound to the output's region through another layout is read from a snapshot (H2).
    Status Create(const KernelContext& context, const OperatorArgs& args, std::unique_ptr<Kernel>* kernel) const;
    const char* BackendName() const { return backendName_; }
    const GraphHooks& Graphs() const { return hooks_; }

private:
    KernelFactory FactoryOf(DML_OPERATOR_TYPE type) const {
        const int index = static_cast<int>(type);
        return index >= 0 && index < kTypeCount ? factories_[index] : nullptr;
    }
    const char* backendName_;
    const char* noKernelHint_;
    GraphHooks hooks_;
    KernelFactory factories_[kTypeCount] = {};
};

// libdirectml's CPU kernels (kernels/cpu/cpu_kernel.cpp): what runs an operator on a device
// whose backend brings no kernels of its own (the CPU adapter, whose memory is host memory).
const KernelSet& CpuKernels();

}  // namespace freedml::dml
