// The binding rules of BINDING-RULES.md as pure functions. See binding_rules.h.
//
// Every check runs in time linear in the number of bindings, except CheckHazards, which sorts
// (O(n log n)); nothing here compares bindings pairwise.

#include "dml/binding_rules.h"

#include <algorithm>
#include <cinttypes>
#include <cstring>
#include <limits>
#include <unordered_map>
#include <utility>

namespace freedml::dml {

namespace {

constexpr uint64_t kMaxU64 = std::numeric_limits<uint64_t>::max();

uint64_t SaturatingAdd(uint64_t a, uint64_t b) { return b > kMaxU64 - a ? kMaxU64 : a + b; }

std::string HeapTypeName(D3D12_HEAP_TYPE type) {
    switch (type) {
        case D3D12_HEAP_TYPE_DEFAULT: return "DEFAULT";
        case D3D12_HEAP_TYPE_UPLOAD: return "UPLOAD";
        case D3D12_HEAP_TYPE_READBACK: return "READBACK";
        case D3D12_HEAP_TYPE_CUSTOM: return "CUSTOM";
        default: return Format("D3D12_HEAP_TYPE(%d)", static_cast<int>(type));
    }
}

// DML_BINDING_DESC::Type as the application wrote it. An application may pass any 32-bit value;
// reading it as the enum would be undefined behavior for values outside the enumerators' range.
uint32_t RawBindingType(const DML_BINDING_DESC& desc) {
    static_assert(sizeof(desc.Type) == sizeof(uint32_t));
    uint32_t type;
    std::memcpy(&type, &desc.Type, sizeof type);
    return type;
}

std::string BindingTypeName(uint32_t type) {
    switch (type) {
        case DML_BINDING_TYPE_NONE: return "DML_BINDING_TYPE_NONE";
        case DML_BINDING_TYPE_BUFFER: return "DML_BINDING_TYPE_BUFFER";
        case DML_BINDING_TYPE_BUFFER_ARRAY: return "DML_BINDING_TYPE_BUFFER_ARRAY";
        default: return Format("DML_BINDING_TYPE(%u)", type);
    }
}

const std::string& NameAt(const std::vector<std::string>& names, size_t index) {
    static const std::string empty;
    return index < names.size() ? names[index] : empty;
}

// "inputs[1] (ATensor)", or "inputs[1]" without a name.
std::string SlotLabel(const char* kind, size_t index, const std::string& name) {
    if (name.empty()) return Format("%s[%zu]", kind, index);
    return Format("%s[%zu] (%s)", kind, index, name.c_str());
}

// "inputs[0][2] (FilterTensor of compiled CONVOLUTION operator 'conv1')": an entry of an
// initializer's buffer array, named after its target's tensor.
std::string EntryLabel(size_t target, size_t entry, const std::string& name, const std::string& targetDescription) {
    std::string label = Format("inputs[%zu][%zu]", target, entry);
    if (!name.empty() && !targetDescription.empty()) {
        label += Format(" (%s of %s)", name.c_str(), targetDescription.c_str());
    } else if (!name.empty()) {
        label += Format(" (%s of target %zu)", name.c_str(), target);
    } else if (!targetDescription.empty()) {
        label += Format(" (of %s)", targetDescription.c_str());
    }
    return label;
}

std::string TargetLabel(const char* kind, size_t target, const std::string& targetDescription) {
    if (targetDescription.empty()) return Format("%s[%zu] (target %zu)", kind, target, target);
    return Format("%s[%zu] (%s)", kind, target, targetDescription.c_str());
}

// Names a binding in messages. Validation of a valid binding never formats text: the label is
// built only when a message needs it.
struct Slot {
    enum class Form { Tensor, Entry, Target, Fixed };
    Form form = Form::Fixed;
    const char* kind = "";  // "inputs", "outputs"; for Form::Fixed, the whole label
    size_t index = 0;
    size_t entry = 0;
    const std::string* name = nullptr;
    const std::string* target = nullptr;  // a target operator's description

    static Slot Tensor(const char* kind, size_t index, const std::string& name) {
        return {Form::Tensor, kind, index, 0, &name, nullptr};
    }
    static Slot Entry(size_t target, size_t entry, const std::string& name, const std::string& description) {
        return {Form::Entry, "inputs", target, entry, &name, &description};
    }
    static Slot Target(const char* kind, size_t target, const std::string& description) {
        return {Form::Target, kind, target, 0, nullptr, &description};
    }
    static Slot Fixed(const char* text) { return {Form::Fixed, text}; }

    std::string Text() const {
        switch (form) {
            case Form::Tensor: return SlotLabel(kind, index, *name);
            case Form::Entry: return EntryLabel(index, entry, *name, *target);
            case Form::Target: return TargetLabel(kind, index, *target);
            case Form::Fixed: break;
        }
        return kind;
    }
};

// A DML_BINDING_DESC as the rules see it.
struct Decoded {
    enum Kind { Nothing, Buffer, BufferArray, NullBufferDesc, BadType } kind = Nothing;
    const DML_BUFFER_BINDING* buffer = nullptr;
    const DML_BUFFER_ARRAY_BINDING* array = nullptr;  // may be null for BufferArray: empty
};

Decoded Decode(const DML_BINDING_DESC& desc) {
    Decoded decoded;
    switch (RawBindingType(desc)) {
        case DML_BINDING_TYPE_NONE:
            decoded.kind = Decoded::Nothing;
            break;
        case DML_BINDING_TYPE_BUFFER:
            decoded.buffer = static_cast<const DML_BUFFER_BINDING*>(desc.Desc);
            if (!decoded.buffer) {
                decoded.kind = Decoded::NullBufferDesc;
            } else {
                // DML_BUFFER_BINDING::Buffer may be null: nothing is bound then.
                decoded.kind = decoded.buffer->Buffer ? Decoded::Buffer : Decoded::Nothing;
            }
            break;
        case DML_BINDING_TYPE_BUFFER_ARRAY:
            decoded.kind = Decoded::BufferArray;
            decoded.array = static_cast<const DML_BUFFER_ARRAY_BINDING*>(desc.Desc);
            break;
        default:
            decoded.kind = Decoded::BadType;
            break;
    }
    return decoded;
}

// What a binding holds, for messages: "DML_BINDING_TYPE_NONE", "a DML_BINDING_TYPE_BUFFER with a
// null Buffer".
std::string Given(const DML_BINDING_DESC& desc, const Decoded& decoded) {
    if (decoded.kind == Decoded::Nothing && RawBindingType(desc) == DML_BINDING_TYPE_BUFFER) {
        return "a DML_BINDING_TYPE_BUFFER with a null Buffer";
    }
    if (decoded.kind == Decoded::NullBufferDesc) return "a DML_BINDING_TYPE_BUFFER with a null Desc";
    return BindingTypeName(RawBindingType(desc));
}

Status WithContext(Status status, const DispatchableBindingInfo& info) {
    if (!status.ok() && !info.description.empty()) {
        status.AddContext(Format("binding %s", info.description.c_str()));
    }
    return status;
}

// V1: a live buffer, and [Offset, Offset + SizeInBytes) inside it.
Status ResolveBuffer(const char* method, const Slot& label, const DML_BUFFER_BINDING& binding,
                     ResourceResolver& resolver, ResourceFacts* facts) {
    INVALID_IF(!resolver.Resolve(binding.Buffer, facts),
               "%s: %s is bound to %p, which is not a live FreeDML resource (V1).", method, label.Text().c_str(),
               static_cast<void*>(binding.Buffer));
    INVALID_IF(facts->dimension != D3D12_RESOURCE_DIMENSION_BUFFER,
               "%s: %s is bound to %s, which is not a buffer (its dimension is %d); DirectML binds buffers "
               "only (V1).",
               method, label.Text().c_str(), resolver.Describe(facts->id).c_str(), static_cast<int>(facts->dimension));
    // Written so that nothing overflows: Offset + SizeInBytes may exceed 2^64.
    INVALID_IF(binding.Offset > facts->width || binding.SizeInBytes > facts->width - binding.Offset,
               "%s: %s binds Offset (%" PRIu64 ") + SizeInBytes (%" PRIu64 ") of %s, past its end (%" PRIu64
               " bytes) (V1).",
               method, label.Text().c_str(), binding.Offset, binding.SizeInBytes, resolver.Describe(facts->id).c_str(),
               facts->width);
    return {};
}

BoundRegion MakeRegion(BindingRole role, size_t index, size_t arrayIndex, const ResourceFacts& facts,
                       uint64_t offset, uint64_t size) {
    BoundRegion region;
    region.role = role;
    region.index = static_cast<uint32_t>(index);
    region.arrayIndex = static_cast<uint32_t>(arrayIndex);
    region.resourceId = facts.id;
    region.heapId = facts.heapId;
    region.offsetInHeap = facts.offsetInHeap;
    region.offset = offset;
    region.size = size;
    return region;
}

// V1-V3 and the heap rule (I6 for inputs, O2 for outputs) for a tensor's buffer.
Status CheckTensorBuffer(const char* method, const Slot& label, const DML_BUFFER_BINDING& binding,
                         const TensorDesc& tensor, bool allowUploadHeap, const char* heapRule,
                         ResourceResolver& resolver, ResourceFacts* facts) {
    FREEDML_TRY(ResolveBuffer(method, label, binding, resolver, facts));
    bool heapOk = facts->heapType == D3D12_HEAP_TYPE_DEFAULT ||
                  (allowUploadHeap &&
                   (facts->heapType == D3D12_HEAP_TYPE_UPLOAD || facts->heapType == D3D12_HEAP_TYPE_CUSTOM));
    INVALID_IF(!heapOk, "%s: %s is bound to %s on a %s heap; %s (%s).", method, label.Text().c_str(),
               resolver.Describe(facts->id).c_str(), HeapTypeName(facts->heapType).c_str(),
               allowUploadHeap ? "an OWNED_BY_DML tensor bound for initialization lives on a DEFAULT, UPLOAD or "
                                 "CUSTOM heap"
                               : "tensors are bound from DEFAULT heaps",
               heapRule);
    INVALID_IF(binding.SizeInBytes < tensor.totalTensorSizeInBytes,
               "%s: %s binds %" PRIu64 " bytes of %s at offset %" PRIu64
               ", fewer than the tensor's TotalTensorSizeInBytes (%" PRIu64 ") (V2).",
               method, label.Text().c_str(), binding.SizeInBytes, resolver.Describe(facts->id).c_str(), binding.Offset,
               tensor.totalTensorSizeInBytes);
    uint64_t alignment = tensor.RequiredOffsetAlignment();
    INVALID_IF(alignment != 0 && binding.Offset % alignment != 0,
               "%s: %s is bound at offset %" PRIu64 " of %s, which is not a multiple of %" PRIu64
               " (the tensor's GuaranteedBaseOffsetAlignment, or DML_MINIMUM_BUFFER_TENSOR_ALIGNMENT when that "
               "is 0) (V3).",
               method, label.Text().c_str(), binding.Offset, resolver.Describe(facts->id).c_str(), alignment);
    return {};
}

// V1 and the rules of a temporary or persistent resource (P1, P2): DEFAULT heap, at least
// `required` bytes, offset a multiple of 256.
Status CheckResourceBuffer(const char* method, const Slot& label, const DML_BUFFER_BINDING& binding,
                           uint64_t required, uint64_t alignment, const char* rule, ResourceResolver& resolver,
                           ResourceFacts* facts) {
    FREEDML_TRY(ResolveBuffer(method, label, binding, resolver, facts));
    INVALID_IF(facts->heapType != D3D12_HEAP_TYPE_DEFAULT,
               "%s: %s is bound to %s on a %s heap; it must live on a DEFAULT heap (%s).", method, label.Text().c_str(),
               resolver.Describe(facts->id).c_str(), HeapTypeName(facts->heapType).c_str(), rule);
    INVALID_IF(binding.SizeInBytes < required,
               "%s: %s binds %" PRIu64 " bytes of %s, fewer than the %" PRIu64 " bytes required (%s).", method,
               label.Text().c_str(), binding.SizeInBytes, resolver.Describe(facts->id).c_str(), required, rule);
    INVALID_IF(binding.Offset % alignment != 0,
               "%s: %s is bound at offset %" PRIu64 " of %s, which is not a multiple of %" PRIu64 " (%s).", method,
               label.Text().c_str(), binding.Offset, resolver.Describe(facts->id).c_str(), alignment, rule);
    return {};
}

Status ValidateCompiledInputs(const DispatchableBindingInfo& info, UINT bindingCount, const DML_BINDING_DESC* bindings,
                              ResourceResolver& resolver, std::vector<BoundRegion>* regions) {
    const char* method = "BindInputs";
    INVALID_IF(bindingCount != info.inputs.size(),
               "%s: bindingCount is %u, but the operator has %zu inputs, optional tensors included (I1).", method,
               bindingCount, info.inputs.size());
    INVALID_IF(!bindings, "%s: bindingCount is %u but bindings is null (I1).", method, bindingCount);
    for (size_t i = 0; i < info.inputs.size(); ++i) {
        const TensorDesc* tensor = info.inputs[i];
        Slot label = Slot::Tensor("inputs", i, NameAt(info.inputNames, i));
        Decoded decoded = Decode(bindings[i]);
        if (!tensor) {
            INVALID_IF(decoded.kind != Decoded::Nothing,
                       "%s: %s is an optional tensor absent from the operator's desc, so its binding must be "
                       "DML_BINDING_TYPE_NONE (it is %s) (I2).",
                       method, label.Text().c_str(), Given(bindings[i], decoded).c_str());
            continue;
        }
        INVALID_IF(decoded.kind == Decoded::BadType || decoded.kind == Decoded::BufferArray ||
                       decoded.kind == Decoded::NullBufferDesc,
                   "%s: %s is a buffer tensor, so its binding must be a DML_BINDING_TYPE_BUFFER pointing at a "
                   "DML_BUFFER_BINDING (it is %s) (I3).",
                   method, label.Text().c_str(), Given(bindings[i], decoded).c_str());
        if (tensor->OwnedByDml()) {
            INVALID_IF(decoded.kind != Decoded::Nothing,
                       "%s: %s is flagged DML_TENSOR_FLAG_OWNED_BY_DML: it is bound when the operator is "
                       "initialized, and at execution its binding must be DML_BINDING_TYPE_NONE (it is bound to "
                       "%p) (I4).",
                       method, label.Text().c_str(), static_cast<void*>(decoded.buffer->Buffer));
            continue;
        }
        INVALID_IF(decoded.kind == Decoded::Nothing,
                   "%s: %s is not bound (%s); a tensor without DML_TENSOR_FLAG_OWNED_BY_DML is bound for "
                   "execution (I5).",
                   method, label.Text().c_str(), Given(bindings[i], decoded).c_str());
        ResourceFacts facts;
        FREEDML_TRY(CheckTensorBuffer(method, label, *decoded.buffer, *tensor, false, "I6", resolver, &facts));
        regions->push_back(
            MakeRegion(BindingRole::Input, i, 0, facts, decoded.buffer->Offset, tensor->totalTensorSizeInBytes));
    }
    return {};
}

Status ValidateInitializerInputs(const DispatchableBindingInfo& info, UINT bindingCount,
                                 const DML_BINDING_DESC* bindings, ResourceResolver& resolver,
                                 std::vector<BoundRegion>* regions) {
    const char* method = "BindInputs";
    INVALID_IF(bindingCount != info.targets.size(),
               "%s: bindingCount is %u, but the initializer has %zu target operators; give one "
               "DML_BINDING_TYPE_BUFFER_ARRAY (or NONE) per operator, in the order given to "
               "CreateOperatorInitializer or Reset (N1).",
               method, bindingCount, info.targets.size());
    INVALID_IF(!bindings, "%s: bindingCount is %u but bindings is null (N1).", method, bindingCount);
    for (size_t t = 0; t < info.targets.size(); ++t) {
        const DispatchableBindingInfo::Target& target = info.targets[t];
        Slot label = Slot::Target("inputs", t, target.description);
        Decoded decoded = Decode(bindings[t]);
        INVALID_IF(decoded.kind != Decoded::Nothing && decoded.kind != Decoded::BufferArray,
                   "%s: %s must be a DML_BINDING_TYPE_BUFFER_ARRAY or DML_BINDING_TYPE_NONE (it is %s) (N1).", method,
                   label.Text().c_str(), Given(bindings[t], decoded).c_str());
        // A NULL Desc of a BUFFER_ARRAY is taken as an empty array, like NONE (N4).
        UINT entries = decoded.array ? decoded.array->BindingCount : 0;
        if (entries == 0) {
            for (size_t k = 0; k < target.inputs.size(); ++k) {
                const TensorDesc* tensor = target.inputs[k];
                INVALID_IF(tensor && tensor->OwnedByDml(),
                           "%s: %s binds nothing, but %s is flagged DML_TENSOR_FLAG_OWNED_BY_DML and is bound for "
                           "initialization; \"no binding\" is only for an operator without such tensors (N3, N4).",
                           method, label.Text().c_str(),
                           EntryLabel(t, k, NameAt(target.inputNames, k), target.description).c_str());
            }
            continue;
        }
        INVALID_IF(!decoded.array->Bindings, "%s: %s has BindingCount %u but Bindings is null (N2).", method,
                   label.Text().c_str(), entries);
        INVALID_IF(entries != target.inputs.size(),
                   "%s: %s has %u entries, but that operator has %zu inputs, optional tensors included (N2).",
                   method, label.Text().c_str(), entries, target.inputs.size());
        for (size_t k = 0; k < target.inputs.size(); ++k) {
            const TensorDesc* tensor = target.inputs[k];
            const DML_BUFFER_BINDING& entry = decoded.array->Bindings[k];
            Slot entryLabel = Slot::Entry(t, k, NameAt(target.inputNames, k), target.description);
            if (!tensor || !tensor->OwnedByDml()) {
                INVALID_IF(entry.Buffer != nullptr,
                           "%s: %s is %s, so it is bound at execution and not at initialization: its entry must "
                           "have a null Buffer (it is %p) (N3, I5).",
                           method, entryLabel.Text().c_str(),
                           tensor ? "not flagged DML_TENSOR_FLAG_OWNED_BY_DML" : "absent from the operator's desc",
                           static_cast<void*>(entry.Buffer));
                continue;
            }
            INVALID_IF(entry.Buffer == nullptr,
                       "%s: %s is flagged DML_TENSOR_FLAG_OWNED_BY_DML, so it is bound for initialization, but its "
                       "Buffer is null (N3, I4).",
                       method, entryLabel.Text().c_str());
            ResourceFacts facts;
            FREEDML_TRY(CheckTensorBuffer(method, entryLabel, entry, *tensor, true, "I6", resolver, &facts));
            regions->push_back(
                MakeRegion(BindingRole::Input, t, k, facts, entry.Offset, tensor->totalTensorSizeInBytes));
        }
    }
    return {};
}

Status ValidateCompiledOutputs(const DispatchableBindingInfo& info, UINT bindingCount,
                               const DML_BINDING_DESC* bindings, ResourceResolver& resolver,
                               std::vector<BoundRegion>* regions) {
    const char* method = "BindOutputs";
    INVALID_IF(bindingCount != info.outputs.size(),
               "%s: bindingCount is %u, but the operator has %zu outputs, optional tensors included (O1).",
               method, bindingCount, info.outputs.size());
    INVALID_IF(!bindings, "%s: bindingCount is %u but bindings is null (O1).", method, bindingCount);
    for (size_t i = 0; i < info.outputs.size(); ++i) {
        const TensorDesc* tensor = info.outputs[i];
        Slot label = Slot::Tensor("outputs", i, NameAt(info.outputNames, i));
        Decoded decoded = Decode(bindings[i]);
        if (!tensor) {
            INVALID_IF(decoded.kind != Decoded::Nothing,
                       "%s: %s is an optional tensor absent from the operator's desc, so its binding must be "
                       "DML_BINDING_TYPE_NONE (it is %s) (O1).",
                       method, label.Text().c_str(), Given(bindings[i], decoded).c_str());
            continue;
        }
        INVALID_IF(decoded.kind != Decoded::Buffer,
                   "%s: %s must be bound with a DML_BINDING_TYPE_BUFFER to a resource (it is %s) (O1).", method,
                   label.Text().c_str(), Given(bindings[i], decoded).c_str());
        ResourceFacts facts;
        FREEDML_TRY(CheckTensorBuffer(method, label, *decoded.buffer, *tensor, false, "O2", resolver, &facts));
        regions->push_back(
            MakeRegion(BindingRole::Output, i, 0, facts, decoded.buffer->Offset, tensor->totalTensorSizeInBytes));
    }
    return {};
}

Status ValidateInitializerOutputs(const DispatchableBindingInfo& info, UINT bindingCount,
                                  const DML_BINDING_DESC* bindings, ResourceResolver& resolver,
                                  std::vector<BoundRegion>* regions) {
    const char* method = "BindOutputs";
    INVALID_IF(bindingCount != info.targets.size(),
               "%s: bindingCount is %u, but the initializer has %zu target operators; give each operator's "
               "persistent resource (or NONE), in the order given to CreateOperatorInitializer or Reset (N5).",
               method, bindingCount, info.targets.size());
    INVALID_IF(!bindings, "%s: bindingCount is %u but bindings is null (N5).", method, bindingCount);
    for (size_t t = 0; t < info.targets.size(); ++t) {
        const DispatchableBindingInfo::Target& target = info.targets[t];
        Slot label = Slot::Target("outputs", t, target.description);
        Decoded decoded = Decode(bindings[t]);
        INVALID_IF(decoded.kind != Decoded::Nothing && decoded.kind != Decoded::Buffer,
                   "%s: %s, a persistent resource, must be a DML_BINDING_TYPE_BUFFER or NONE (it is %s) (N5).",
                   method, label.Text().c_str(), Given(bindings[t], decoded).c_str());
        uint64_t required = target.persistentResourceSize;
        if (required == 0) {
            INVALID_IF(decoded.kind != Decoded::Nothing,
                       "%s: %s needs no persistent resource (its PersistentResourceSize is 0), so its binding must "
                       "be DML_BINDING_TYPE_NONE (N5).",
                       method, label.Text().c_str());
            continue;
        }
        INVALID_IF(decoded.kind == Decoded::Nothing,
                   "%s: %s needs a persistent resource of %" PRIu64 " bytes, but its binding is %s (N5).", method,
                   label.Text().c_str(), required, Given(bindings[t], decoded).c_str());
        ResourceFacts facts;
        FREEDML_TRY(CheckResourceBuffer(method, label, *decoded.buffer, required, DML_PERSISTENT_BUFFER_ALIGNMENT,
                                        "P2", resolver, &facts));
        regions->push_back(MakeRegion(BindingRole::Output, t, 0, facts, decoded.buffer->Offset, required));
    }
    return {};
}

// BindTemporaryResource / BindPersistentResource.
Status ValidateResourceBinding(const char* method, const Slot& label, BindingRole role, uint64_t required,
                               uint64_t alignment, const char* rule, const DML_BINDING_DESC* binding,
                               ResourceResolver& resolver, std::vector<BoundRegion>* regions) {
    if (!binding) {
        INVALID_IF(required != 0, "%s: the binding is null, but %s of %" PRIu64 " bytes is required (%s).", method,
                   label.Text().c_str(), required, rule);
        return {};
    }
    Decoded decoded = Decode(*binding);
    INVALID_IF(decoded.kind != Decoded::Nothing && decoded.kind != Decoded::Buffer,
               "%s: %s must be a DML_BINDING_TYPE_BUFFER (it is %s) (%s).", method, label.Text().c_str(),
               Given(*binding, decoded).c_str(), rule);
    if (decoded.kind == Decoded::Nothing) {
        INVALID_IF(required != 0, "%s: %s of %" PRIu64 " bytes is required, but the binding is %s (%s).", method,
                   label.Text().c_str(), required, Given(*binding, decoded).c_str(), rule);
        return {};
    }
    ResourceFacts facts;
    FREEDML_TRY(CheckResourceBuffer(method, label, *decoded.buffer, required, alignment, rule, resolver, &facts));
    // A buffer bound where nothing is required claims no bytes (size 0).
    regions->push_back(MakeRegion(role, 0, 0, facts, decoded.buffer->Offset, required));
    return {};
}

bool IsWriter(BindingRole role) { return role == BindingRole::Output || role == BindingRole::Temporary; }

const char* RuleFor(BindingRole a, BindingRole b, bool forInitializer) {
    if (a == BindingRole::Temporary || b == BindingRole::Temporary) return "H4";
    if (a == BindingRole::Persistent || b == BindingRole::Persistent) return "H3";
    if (a == BindingRole::Output && b == BindingRole::Output) return "H6";
    return forInitializer ? "H1" : "H2";
}

// A region as the sweep sees it: absolute bytes [begin, end) of a heap.
struct HeapSpan {
    uint64_t heap;
    uint64_t begin;
    uint64_t end;
    size_t index;
};

uint64_t HeapBegin(const BoundRegion& r) { return SaturatingAdd(r.offsetInHeap, r.offset); }
uint64_t HeapEnd(const BoundRegion& r) { return SaturatingAdd(HeapBegin(r), r.size); }

// Messages list a pair in this order: inputs before the persistent resource before outputs
// before the temporary resource.
int RoleRank(BindingRole role) {
    switch (role) {
        case BindingRole::Input: return 0;
        case BindingRole::Persistent: return 1;
        case BindingRole::Output: return 2;
        case BindingRole::Temporary: return 3;
    }
    return 4;
}

std::string RegionLabel(const BoundRegion& r, bool forInitializer, const DispatchableBindingInfo* info) {
    // The dispatchable decides how its slots are named; without it, the mode does.
    bool initializerSlots = info ? info->isInitializer : forInitializer;
    switch (r.role) {
        case BindingRole::Input:
            if (initializerSlots) {
                if (info && r.index < info->targets.size()) {
                    const auto& target = info->targets[r.index];
                    return EntryLabel(r.index, r.arrayIndex, NameAt(target.inputNames, r.arrayIndex),
                                      target.description);
                }
                return EntryLabel(r.index, r.arrayIndex, "", "");
            }
            return SlotLabel("inputs", r.index, info ? NameAt(info->inputNames, r.index) : std::string());
        case BindingRole::Output:
            if (initializerSlots) {
                std::string description =
                    info && r.index < info->targets.size() ? info->targets[r.index].description : std::string();
                return TargetLabel("outputs", r.index, description);
            }
            return SlotLabel("outputs", r.index, info ? NameAt(info->outputNames, r.index) : std::string());
        case BindingRole::Temporary: return "the temporary resource";
        case BindingRole::Persistent: return "the persistent resource";
    }
    return "?";
}

std::string RangeText(uint64_t begin, uint64_t size) {
    return Format("[%" PRIu64 ", %" PRIu64 ")", begin, SaturatingAdd(begin, size));
}

std::string Explanation(const char* rule, bool identical, bool sameResource) {
    std::string rule_id = rule;
    if (rule_id == "H1") {
        return sameResource ? "use the same resource; an initializer copies its inputs into its outputs (the "
                              "persistent resources), so no input may reference an output's resource, whatever "
                              "the ranges (H1)."
                            : "overlap; an initializer's inputs share no byte with its outputs (H1).";
    }
    if (rule_id == "H2") {
        return identical ? "are identical, but the operator does not support in-place execution, so an input and "
                           "an output must not share bytes (H2)."
                         : "overlap without being identical; DirectML allows an input and an output to share bytes "
                           "only when their regions are identical and the operator supports in-place execution (H2).";
    }
    const char* verb = identical ? "are identical" : "overlap";
    if (rule_id == "H3") {
        return Format("%s; the persistent resource shares no byte with an output or the temporary resource (H3).",
                      verb);
    }
    if (rule_id == "H4") {
        return Format("%s; the temporary resource shares no byte with any other binding (H4).", verb);
    }
    return Format("%s; two outputs never share a byte (H6).", verb);
}

}  // namespace

const char* RoleName(BindingRole role) {
    switch (role) {
        case BindingRole::Input: return "input";
        case BindingRole::Output: return "output";
        case BindingRole::Temporary: return "temporary";
        case BindingRole::Persistent: return "persistent";
    }
    return "unknown";
}

Status ValidateInputBindings(const DispatchableBindingInfo& info, UINT bindingCount, const DML_BINDING_DESC* bindings,
                             ResourceResolver& resolver, std::vector<BoundRegion>* regions) {
    std::vector<BoundRegion> bound;
    // I7: a count of 0 unbinds every input. Whether the dispatchable can run so is checked by
    // ValidateBindingsComplete (D2), not here.
    if (bindingCount != 0) {
        bound.reserve(bindingCount);
        Status status = info.isInitializer
                            ? ValidateInitializerInputs(info, bindingCount, bindings, resolver, &bound)
                            : ValidateCompiledInputs(info, bindingCount, bindings, resolver, &bound);
        if (!status.ok()) return WithContext(std::move(status), info);
    }
    *regions = std::move(bound);
    return {};
}

Status ValidateOutputBindings(const DispatchableBindingInfo& info, UINT bindingCount,
                              const DML_BINDING_DESC* bindings, ResourceResolver& resolver,
                              std::vector<BoundRegion>* regions) {
    std::vector<BoundRegion> bound;
    if (bindingCount != 0) {  // 0 unbinds every output, as BindInputs does (I7)
        bound.reserve(bindingCount);
        Status status = info.isInitializer
                            ? ValidateInitializerOutputs(info, bindingCount, bindings, resolver, &bound)
                            : ValidateCompiledOutputs(info, bindingCount, bindings, resolver, &bound);
        if (!status.ok()) return WithContext(std::move(status), info);
    }
    *regions = std::move(bound);
    return {};
}

Status ValidateTemporaryBinding(const DispatchableBindingInfo& info, const DML_BINDING_DESC* binding,
                                ResourceResolver& resolver, std::vector<BoundRegion>* regions) {
    std::vector<BoundRegion> bound;
    Status status = ValidateResourceBinding("BindTemporaryResource", Slot::Fixed("the temporary resource"),
                                            BindingRole::Temporary,
                                            info.properties.TemporaryResourceSize, DML_TEMPORARY_BUFFER_ALIGNMENT,
                                            "P1", binding, resolver, &bound);
    if (!status.ok()) return WithContext(std::move(status), info);
    *regions = std::move(bound);
    return {};
}

Status ValidatePersistentBinding(const DispatchableBindingInfo& info, const DML_BINDING_DESC* binding,
                                 ResourceResolver& resolver, std::vector<BoundRegion>* regions) {
    const char* method = "BindPersistentResource";
    std::vector<BoundRegion> bound;
    if (info.isInitializer) {
        // N6: an initializer has no persistent resource of its own; its targets' persistent
        // resources are its outputs. A buffer bound here is a mix-up worth reporting.
        Decoded decoded = binding ? Decode(*binding) : Decoded{};
        if (decoded.kind != Decoded::Nothing) {
            return WithContext(
                Error(E_INVALIDARG,
                      "%s: an operator initializer needs no persistent resource (its PersistentResourceSize is 0), "
                      "so the binding must be null or DML_BINDING_TYPE_NONE (it is %s); bind the target operators' "
                      "persistent resources with BindOutputs (N6).",
                      method, Given(*binding, decoded).c_str()),
                info);
        }
        *regions = std::move(bound);
        return {};
    }
    Status status = ValidateResourceBinding(method, Slot::Fixed("the persistent resource"), BindingRole::Persistent,
                                            info.properties.PersistentResourceSize, DML_PERSISTENT_BUFFER_ALIGNMENT,
                                            "P2", binding, resolver, &bound);
    if (!status.ok()) return WithContext(std::move(status), info);
    *regions = std::move(bound);
    return {};
}

Hazard FindHazard(const std::vector<BoundRegion>& regions, bool forInitializer, bool supportsInPlaceExecution) {
    auto found = [&](size_t a, size_t b) {
        Hazard hazard;
        hazard.found = true;
        if (RoleRank(regions[b].role) < RoleRank(regions[a].role)) std::swap(a, b);
        hazard.first = a;
        hazard.second = b;
        hazard.rule = RuleFor(regions[a].role, regions[b].role, forInitializer);
        return hazard;
    };

    // H1: at initialization an input never shares a resource with an output, ranges aside.
    if (forInitializer) {
        std::unordered_map<uint64_t, size_t> outputByResource;
        outputByResource.reserve(regions.size());
        for (size_t i = 0; i < regions.size(); ++i) {
            if (regions[i].role == BindingRole::Output) outputByResource.emplace(regions[i].resourceId, i);
        }
        for (size_t i = 0; i < regions.size(); ++i) {
            if (regions[i].role != BindingRole::Input) continue;
            auto it = outputByResource.find(regions[i].resourceId);
            if (it != outputByResource.end()) return found(i, it->second);
        }
    }

    // The rest concerns bytes: heap ranges, so aliasing placed resources meet here (H7).
    std::vector<HeapSpan> spans;
    spans.reserve(regions.size());
    for (size_t i = 0; i < regions.size(); ++i) {
        uint64_t begin = HeapBegin(regions[i]);
        uint64_t end = HeapEnd(regions[i]);
        if (end > begin) spans.push_back({regions[i].heapId, begin, end, i});
    }
    std::sort(spans.begin(), spans.end(), [](const HeapSpan& a, const HeapSpan& b) {
        if (a.heap != b.heap) return a.heap < b.heap;
        if (a.begin != b.begin) return a.begin < b.begin;
        if (a.end != b.end) return a.end < b.end;
        return a.index < b.index;
    });

    // Sweep the groups of identical spans in order of begin. Any earlier group starts at or before
    // this one, so it shares a byte with it exactly when it ends after this one begins; the
    // earlier group that ends farthest is then such a group whenever one exists, and is the one
    // named. Spans of different groups are never identical, so the in-place exemption (H2) is
    // only ever decided inside a group.
    bool haveAny = false, haveWriter = false;
    uint64_t farthestAny = 0, farthestWriter = 0;
    size_t farthestAnyRegion = 0, farthestWriterRegion = 0;
    uint64_t heap = 0;
    for (size_t g = 0; g < spans.size();) {
        size_t groupEnd = g + 1;
        while (groupEnd < spans.size() && spans[groupEnd].heap == spans[g].heap &&
               spans[groupEnd].begin == spans[g].begin && spans[groupEnd].end == spans[g].end) {
            ++groupEnd;
        }
        if (g == 0 || spans[g].heap != heap) {
            heap = spans[g].heap;
            haveAny = haveWriter = false;
        }

        // Inside the group: allowed when nothing writes, or when the one writer is an output that
        // may share its region with inputs (execution of an in-place operator, H2).
        size_t writers = 0;
        size_t writer = 0;
        for (size_t k = g; k < groupEnd; ++k) {
            size_t region = spans[k].index;
            if (!IsWriter(regions[region].role)) continue;
            if (writers == 1) return found(writer, region);
            writer = region;
            ++writers;
        }
        if (writers == 1) {
            bool inputsMayShare =
                !forInitializer && supportsInPlaceExecution && regions[writer].role == BindingRole::Output;
            for (size_t k = g; k < groupEnd; ++k) {
                size_t region = spans[k].index;
                if (region == writer) continue;
                if (!(inputsMayShare && regions[region].role == BindingRole::Input)) return found(region, writer);
            }
        }

        // Against earlier groups.
        size_t representative = writers ? writer : spans[g].index;
        uint64_t begin = spans[g].begin, end = spans[g].end;
        if (writers && haveAny && farthestAny > begin) return found(farthestAnyRegion, representative);
        if (!writers && haveWriter && farthestWriter > begin) return found(farthestWriterRegion, representative);
        if (!haveAny || end > farthestAny) {
            haveAny = true;
            farthestAny = end;
            farthestAnyRegion = representative;
        }
        if (writers && (!haveWriter || end > farthestWriter)) {
            haveWriter = true;
            farthestWriter = end;
            farthestWriterRegion = representative;
        }
        g = groupEnd;
    }
    return {};
}

Status CheckHazards(const std::vector<BoundRegion>& regions, bool forInitializer, bool supportsInPlaceExecution,
                    ResourceResolver& resolver, const char* method, const DispatchableBindingInfo* info) {
    Hazard hazard = FindHazard(regions, forInitializer, supportsInPlaceExecution);
    if (!hazard.found) return {};

    const BoundRegion& a = regions[hazard.first];
    const BoundRegion& b = regions[hazard.second];
    std::string labelA = RegionLabel(a, forInitializer, info);
    std::string labelB = RegionLabel(b, forInitializer, info);
    bool sameResource = a.resourceId == b.resourceId;
    bool identical = a.heapId == b.heapId && HeapBegin(a) == HeapBegin(b) && HeapEnd(a) == HeapEnd(b);
    std::string explanation = Explanation(hazard.rule, identical, sameResource);
    Status status;
    if (sameResource) {
        status = Error(E_INVALIDARG, "%s: %s %s and %s %s of %s %s", method, labelA.c_str(),
                       RangeText(a.offset, a.size).c_str(), labelB.c_str(), RangeText(b.offset, b.size).c_str(),
                       resolver.Describe(a.resourceId).c_str(), explanation.c_str());
    } else {
        // Different resources meet only through their heap: placed resources that alias (H7).
        status = Error(E_INVALIDARG,
                       "%s: %s %s of %s and %s %s of %s alias bytes of heap %" PRIu64 " (%s and %s of the heap); "
                       "FreeDML checks the heap ranges of placed resources (H7). They %s",
                       method, labelA.c_str(), RangeText(a.offset, a.size).c_str(),
                       resolver.Describe(a.resourceId).c_str(), labelB.c_str(), RangeText(b.offset, b.size).c_str(),
                       resolver.Describe(b.resourceId).c_str(), a.heapId, RangeText(HeapBegin(a), a.size).c_str(),
                       RangeText(HeapBegin(b), b.size).c_str(), explanation.c_str());
    }
    if (info) return WithContext(std::move(status), *info);
    return status;
}

Status ValidateBindingsComplete(const DispatchableBindingInfo& info, const BindingState& state, const char* method) {
    auto why = [](bool called, const char* bindMethod) {
        return called ? Format("the last %s left it unbound", bindMethod)
                      : Format("no %s since the binding table was created or reset has bound it", bindMethod);
    };
    const char* tail = "every required binding is in place when the dispatch is recorded, or, with "
                       "DML_EXECUTION_FLAG_DESCRIPTORS_VOLATILE, when it executes (D2).";

    bool temporaryBound = false, persistentBound = false;
    Status status;
    if (!info.isInitializer) {
        std::vector<char> inputBound(info.inputs.size(), 0), outputBound(info.outputs.size(), 0);
        for (const BoundRegion& r : state.regions) {
            if (r.role == BindingRole::Input && r.index < inputBound.size()) inputBound[r.index] = 1;
            if (r.role == BindingRole::Output && r.index < outputBound.size()) outputBound[r.index] = 1;
            if (r.role == BindingRole::Temporary) temporaryBound = true;
            if (r.role == BindingRole::Persistent) persistentBound = true;
        }
        for (size_t i = 0; i < info.inputs.size() && status.ok(); ++i) {
            const TensorDesc* tensor = info.inputs[i];
            if (tensor && !tensor->OwnedByDml() && !inputBound[i]) {
                status = Error(E_INVALIDARG, "%s: %s is not bound (%s); %s", method,
                               SlotLabel("inputs", i, NameAt(info.inputNames, i)).c_str(),
                               why(state.inputsBound, "BindInputs").c_str(), tail);
            }
        }
        for (size_t i = 0; i < info.outputs.size() && status.ok(); ++i) {
            if (info.outputs[i] && !outputBound[i]) {
                status = Error(E_INVALIDARG, "%s: %s is not bound (%s); %s", method,
                               SlotLabel("outputs", i, NameAt(info.outputNames, i)).c_str(),
                               why(state.outputsBound, "BindOutputs").c_str(), tail);
            }
        }
        if (status.ok() && info.properties.PersistentResourceSize != 0 && !persistentBound) {
            status = Error(E_INVALIDARG, "%s: the persistent resource (%" PRIu64 " bytes) is not bound (%s); %s",
                           method, info.properties.PersistentResourceSize,
                           why(state.persistentBound, "BindPersistentResource").c_str(), tail);
        }
    } else {
        // One flag per buffer-array entry of every target, found by a running offset.
        std::vector<size_t> firstEntry(info.targets.size() + 1, 0);
        for (size_t t = 0; t < info.targets.size(); ++t) {
            firstEntry[t + 1] = firstEntry[t] + info.targets[t].inputs.size();
        }
        std::vector<char> entryBound(firstEntry.back(), 0), outputBound(info.targets.size(), 0);
        for (const BoundRegion& r : state.regions) {
            if (r.role == BindingRole::Input && r.index < info.targets.size() &&
                r.arrayIndex < info.targets[r.index].inputs.size()) {
                entryBound[firstEntry[r.index] + r.arrayIndex] = 1;
            }
            if (r.role == BindingRole::Output && r.index < outputBound.size()) outputBound[r.index] = 1;
            if (r.role == BindingRole::Temporary) temporaryBound = true;
        }
        for (size_t t = 0; t < info.targets.size() && status.ok(); ++t) {
            const auto& target = info.targets[t];
            for (size_t k = 0; k < target.inputs.size() && status.ok(); ++k) {
                const TensorDesc* tensor = target.inputs[k];
                if (tensor && tensor->OwnedByDml() && !entryBound[firstEntry[t] + k]) {
                    status = Error(E_INVALIDARG, "%s: %s, flagged DML_TENSOR_FLAG_OWNED_BY_DML, is not bound (%s); %s",
                                   method, EntryLabel(t, k, NameAt(target.inputNames, k), target.description).c_str(),
                                   why(state.inputsBound, "BindInputs").c_str(), tail);
                }
            }
            if (status.ok() && target.persistentResourceSize != 0 && !outputBound[t]) {
                status = Error(E_INVALIDARG,
                               "%s: %s, a persistent resource of %" PRIu64 " bytes, is not bound (%s); %s", method,
                               TargetLabel("outputs", t, target.description).c_str(), target.persistentResourceSize, why(state.outputsBound, "BindOutputs").c_str(), tail);
            }
        }
    }
    if (status.ok() && info.properties.TemporaryResourceSize != 0 && !temporaryBound) {
        status = Error(E_INVALIDARG, "%s: the temporary resource (%" PRIu64 " bytes) is not bound (%s); %s", method,
                       info.properties.TemporaryResourceSize,
                       why(state.temporaryBound, "BindTemporaryResource").c_str(), tail);
    }
    return WithContext(std::move(status), info);
}

}  // namespace freedml::dml
