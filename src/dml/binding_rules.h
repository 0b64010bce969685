// The binding rules of BINDING-RULES.md (I*, N*, V*, O*, P*, H*) as pure functions over plain
// data. The binding table (and the dispatch, when descriptors are volatile) calls them; they know
// nothing of COM objects, so every rule can be tested with made-up resources.
//
// A failure is a Status whose message cites the rule id, the method ("BindInputs"), the binding
// index, the resource (by name when it has one) and the byte ranges involved.
#pragma once

#include <DirectML.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "common/status.h"
#include "dml/tensor.h"

namespace freedml::dml {

// What the rules need to know of a D3D12 resource.
struct ResourceFacts {
    uint64_t id = 0;                 // unique, nonzero
    D3D12_RESOURCE_DIMENSION dimension = D3D12_RESOURCE_DIMENSION_BUFFER;
    D3D12_HEAP_TYPE heapType = D3D12_HEAP_TYPE_DEFAULT;
    uint64_t width = 0;              // bytes of a buffer
    uint64_t heapId = 0;             // the heap it lives on (committed: its own implicit heap)
    uint64_t offsetInHeap = 0;       // where it starts in that heap (H7)
};

// Turns the application's ID3D12Resource pointers into facts. The binding table's resolver asks
// our D3D12 library; tests use a fake.
class ResourceResolver {
public:
    virtual ~ResourceResolver() = default;
    // False when the pointer is not a live FreeDML resource.
    virtual bool Resolve(ID3D12Resource* resource, ResourceFacts* facts) = 0;
    // "resource 'weights' (4096 bytes)": called only to build messages.
    virtual std::string Describe(uint64_t resourceId) = 0;
};

enum class BindingRole { Input, Output, Temporary, Persistent };

// A bound byte range, as the hazard rules see it. `size` is the bytes the dispatch may touch, not
// the binding's SizeInBytes: a tensor's TotalTensorSizeInBytes (DirectML's "writable region" of
// an output), the Temporary/PersistentResourceSize, or a target's persistent size for an
// initializer's outputs. A binding larger than its tensor therefore claims no extra bytes.
struct BoundRegion {
    BindingRole role = BindingRole::Input;
    uint32_t index = 0;        // binding index (for initializer inputs: the target operator's)
    uint32_t arrayIndex = 0;   // entry of a BUFFER_ARRAY binding (initializer inputs), else 0
    uint64_t resourceId = 0;
    uint64_t heapId = 0;
    uint64_t offsetInHeap = 0; // of the resource
    uint64_t offset = 0;       // of the binding, within the resource
    uint64_t size = 0;
};

// What a dispatchable (compiled operator or operator initializer) expects to have bound.
struct DispatchableBindingInfo {
    bool isInitializer = false;
    std::string description;  // "compiled GEMM operator 'layer1'": the subject of messages
    DML_BINDING_PROPERTIES properties{};

    // Compiled operator: its tensors in desc order; nullptr for an absent optional tensor.
    std::vector<const TensorDesc*> inputs;
    std::vector<const TensorDesc*> outputs;
    // The desc field names of those tensors ("ATensor"), for messages; may be empty or shorter.
    std::vector<std::string> inputNames;
    std::vector<std::string> outputNames;
    bool supportsInPlaceExecution = false;  // the schema's in-place flag (H2)

    // Initializer: one entry per target operator, in the order given to Create/Reset (N1).
    struct Target {
        std::string description;
        std::vector<const TensorDesc*> inputs;  // nullptr for absent optional tensors
        std::vector<std::string> inputNames;    // as DispatchableBindingInfo::inputNames
        uint64_t persistentResourceSize = 0;
    };
    std::vector<Target> targets;
};

// BindInputs (I1-I7 for a compiled operator, N1-N4 for an initializer, V1-V3 for every buffer).
// On success `regions` holds one region per bound buffer (and nothing for NONE bindings); on
// failure it is left as it was. bindingCount 0 unbinds every input (I7) and always succeeds:
// whether the dispatchable can run without them is ValidateBindingsComplete's question (D2).
// A DML_BUFFER_BINDING whose Buffer is null counts as "nothing bound", like NONE.
Status ValidateInputBindings(const DispatchableBindingInfo& info, UINT bindingCount, const DML_BINDING_DESC* bindings,
                             ResourceResolver& resolver, std::vector<BoundRegion>* regions);
// BindOutputs (O1-O2, N5, V1-V3). bindingCount 0 unbinds every output, as for inputs.
Status ValidateOutputBindings(const DispatchableBindingInfo& info, UINT bindingCount, const DML_BINDING_DESC* bindings,
                              ResourceResolver& resolver, std::vector<BoundRegion>* regions);
// BindTemporaryResource (P1) and BindPersistentResource (P2, N6). `binding` may be null.
Status ValidateTemporaryBinding(const DispatchableBindingInfo& info, const DML_BINDING_DESC* binding,
                                ResourceResolver& resolver, std::vector<BoundRegion>* regions);
Status ValidatePersistentBinding(const DispatchableBindingInfo& info, const DML_BINDING_DESC* binding,
                                 ResourceResolver& resolver, std::vector<BoundRegion>* regions);

// H1-H7 over everything bound at once, in O(n log n). `forInitializer` selects H1 (inputs never
// share a resource with an output) over H2 (identical regions allowed for in-place operators).
// Regions are compared by heap and heap offset, so placed resources that alias are caught (H7).
// Outputs and the temporary resource are written; inputs and the persistent resource are read
// (an initializer writes its targets' persistent resources, bound as its outputs). Regions of
// size 0 share no byte with anything, though H1 still applies to them.
// `method` starts the message ("BindOutputs"); `info`, when given, lends tensor names to it.
Status CheckHazards(const std::vector<BoundRegion>& regions, bool forInitializer, bool supportsInPlaceExecution,
                    ResourceResolver& resolver, const char* method = "RecordDispatch",
                    const DispatchableBindingInfo* info = nullptr);

// The search under CheckHazards, without messages: the first conflicting pair found (indices into
// `regions`) and the rule it breaks ("H1".."H6"), or found == false.
struct Hazard {
    bool found = false;
    size_t first = 0;
    size_t second = 0;
    const char* rule = "";
};
Hazard FindHazard(const std::vector<BoundRegion>& regions, bool forInitializer, bool supportsInPlaceExecution);

// D2: everything the dispatchable needs is bound (called by RecordDispatch, or at execution for
// DML_EXECUTION_FLAG_DESCRIPTORS_VOLATILE).
struct BindingState {
    bool inputsBound = false;   // BindInputs was called (and succeeded) since creation or Reset
    bool outputsBound = false;
    bool temporaryBound = false;
    bool persistentBound = false;
    std::vector<BoundRegion> regions;
};
// Required slots are found in state.regions (by role, index and array index); the *Bound flags
// only refine the message ("BindInputs was never called" or "... unbound").
Status ValidateBindingsComplete(const DispatchableBindingInfo& info, const BindingState& state,
                                const char* method = "RecordDispatch");

const char* RoleName(BindingRole role);  // "input", "output", "temporary", "persistent"

}  // namespace freedml::dml
