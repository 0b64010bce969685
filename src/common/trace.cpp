#include "common/trace.h"

#include <cstdio>
#include <cstring>

#include "common/status.h"

namespace freedml::trace {

namespace {
// WKPDID_D3DDebugObjectNameW (d3dcommon.h), the GUID SetName stores the name under.
constexpr GUID kDebugObjectNameW = {0x4cca5fd8, 0x921f, 0x42c8, {0x85, 0x66, 0x70, 0xca, 0xf2, 0xa9, 0xb7, 0x41}};

bool Same(const GUID& a, const GUID& b) { return std::memcmp(&a, &b, sizeof(GUID)) == 0; }

struct KnownIid {
    GUID iid;
    const char* name;
};
#define FREEDML_KNOWN_IID(Interface) {__uuidof(Interface), #Interface}
const KnownIid kKnownIids[] = {
    FREEDML_KNOWN_IID(IUnknown),
    FREEDML_KNOWN_IID(ID3D12Device),
    FREEDML_KNOWN_IID(ID3D12Device1),
    FREEDML_KNOWN_IID(ID3D12Device2),
    FREEDML_KNOWN_IID(ID3D12Device3),
    FREEDML_KNOWN_IID(ID3D12Device4),
    FREEDML_KNOWN_IID(ID3D12Device5),
    FREEDML_KNOWN_IID(ID3D12CommandQueue),
    FREEDML_KNOWN_IID(ID3D12CommandAllocator),
    FREEDML_KNOWN_IID(ID3D12CommandList),
    FREEDML_KNOWN_IID(ID3D12GraphicsCommandList),
    FREEDML_KNOWN_IID(ID3D12Fence),
    FREEDML_KNOWN_IID(ID3D12Resource),
    FREEDML_KNOWN_IID(ID3D12Heap),
    FREEDML_KNOWN_IID(ID3D12DescriptorHeap),
    FREEDML_KNOWN_IID(ID3D12Debug),
    FREEDML_KNOWN_IID(ID3D12InfoQueue),
    FREEDML_KNOWN_IID(IDMLDevice),
    FREEDML_KNOWN_IID(IDMLDevice1),
    FREEDML_KNOWN_IID(IDMLOperator),
    FREEDML_KNOWN_IID(IDMLCompiledOperator),
    FREEDML_KNOWN_IID(IDMLOperatorInitializer),
    FREEDML_KNOWN_IID(IDMLBindingTable),
    FREEDML_KNOWN_IID(IDMLCommandRecorder),
    FREEDML_KNOWN_IID(IDMLDispatchable),
};
#undef FREEDML_KNOWN_IID

template <class Object>
std::string NameOf(Object* object) {
    UINT size = 0;
    if (FAILED(object->GetPrivateData(kDebugObjectNameW, &size, nullptr)) || size < sizeof(wchar_t)) return {};
    std::wstring wide(size / sizeof(wchar_t), L'\0');
    if (FAILED(object->GetPrivateData(kDebugObjectNameW, &size, wide.data()))) return {};
    return Narrow(wide.c_str());
}
}  // namespace

std::string Hex(uint64_t value) {
    char text[24];
    std::snprintf(text, sizeof(text), "0x%llx", static_cast<unsigned long long>(value));
    return text;
}

std::string GuidText(const GUID& guid) {
    for (const KnownIid& known : kKnownIids) {
        if (Same(known.iid, guid)) return known.name;
    }
    char text[48];
    std::snprintf(text, sizeof(text), "{%08x-%04x-%04x-%02x%02x-%02x%02x%02x%02x%02x%02x}",
                  static_cast<unsigned>(guid.Data1), guid.Data2, guid.Data3, guid.Data4[0], guid.Data4[1], guid.Data4[2],
                  guid.Data4[3], guid.Data4[4], guid.Data4[5], guid.Data4[6], guid.Data4[7]);
    return text;
}

std::string Quoted(const char* text) { return text ? "'" + std::string(text) + "'" : std::string("null"); }
std::string Quoted(const wchar_t* text) { return text ? "'" + Narrow(text) + "'" : std::string("null"); }

std::string ObjectText(const void* address, ID3D12Object* d3d12, IDMLObject* dml) {
    if (!address) return "null";
    std::string text = Hex(reinterpret_cast<uintptr_t>(address));
    std::string name = d3d12 ? NameOf(d3d12) : dml ? NameOf(dml) : std::string();
    if (!name.empty()) text += " '" + name + "'";
    return text;
}

std::string BindingDescText(const DML_BINDING_DESC* desc) {
    if (!desc) return "null";
    auto buffer = [](const DML_BUFFER_BINDING& binding) {
        return "{" + TraceValue(binding.Buffer) + " +" + std::to_string(binding.Offset) + " " +
               std::to_string(binding.SizeInBytes) + " bytes}";
    };
    switch (desc->Type) {
        case DML_BINDING_TYPE_NONE: return "NONE";
        case DML_BINDING_TYPE_BUFFER:
            return desc->Desc ? "BUFFER" + buffer(*static_cast<const DML_BUFFER_BINDING*>(desc->Desc)) : "BUFFER{null}";
        case DML_BINDING_TYPE_BUFFER_ARRAY: {
            const auto* array = static_cast<const DML_BUFFER_ARRAY_BINDING*>(desc->Desc);
            if (!array) return "BUFFER_ARRAY{null}";
            std::string text = "BUFFER_ARRAY[";
            for (UINT i = 0; i < array->BindingCount && array->Bindings; ++i) {
                text += (i ? ", " : "") + buffer(array->Bindings[i]);
            }
            return text + "]";
        }
    }
    return "type " + std::to_string(static_cast<int>(desc->Type));
}

std::string ResourceDescText(const D3D12_RESOURCE_DESC* desc) {
    if (!desc) return "null";
    if (desc->Dimension == D3D12_RESOURCE_DIMENSION_BUFFER) {
        return "{BUFFER " + std::to_string(desc->Width) + " bytes, flags " + Hex(desc->Flags) + "}";
    }
    return "{dimension " + std::to_string(static_cast<int>(desc->Dimension)) + ", " + std::to_string(desc->Width) + "x" +
           std::to_string(desc->Height) + ", format " + std::to_string(static_cast<int>(desc->Format)) + "}";
}

std::string HeapPropertiesText(const D3D12_HEAP_PROPERTIES* properties) {
    if (!properties) return "null";
    switch (properties->Type) {
        case D3D12_HEAP_TYPE_DEFAULT: return "DEFAULT";
        case D3D12_HEAP_TYPE_UPLOAD: return "UPLOAD";
        case D3D12_HEAP_TYPE_READBACK: return "READBACK";
        case D3D12_HEAP_TYPE_CUSTOM: return "CUSTOM";
        default: return "type " + std::to_string(static_cast<int>(properties->Type));
    }
}

std::string BarrierText(const D3D12_RESOURCE_BARRIER* barrier) {
    if (!barrier) return "null";
    switch (barrier->Type) {
        case D3D12_RESOURCE_BARRIER_TYPE_TRANSITION:
            return "TRANSITION{" + TraceValue(barrier->Transition.pResource) + " " +
                   std::to_string(static_cast<int>(barrier->Transition.StateBefore)) + "->" +
                   std::to_string(static_cast<int>(barrier->Transition.StateAfter)) + "}";
        case D3D12_RESOURCE_BARRIER_TYPE_ALIASING: return "ALIASING";
        case D3D12_RESOURCE_BARRIER_TYPE_UAV: return "UAV{" + TraceValue(barrier->UAV.pResource) + "}";
    }
    return "type " + std::to_string(static_cast<int>(barrier->Type));
}

void Line::AppendName() {
    if (!first_) text_ += ", ";
    first_ = false;
    // The next top-level comma of the macro's argument text ends this argument's name.
    size_t depth = 0, end = 0;
    for (; end < names_.size(); ++end) {
        char c = names_[end];
        if (c == '(' || c == '[' || c == '{' || c == '<') ++depth;
        if ((c == ')' || c == ']' || c == '}' || c == '>') && depth) --depth;
        if (c == ',' && depth == 0) break;
    }
    std::string_view name = names_.substr(0, end);
    // FREEDML_TRACE_LIST(items, count) is named by its items.
    if (size_t open = name.find('('); open != std::string_view::npos) {
        name = name.substr(open + 1);
        name = name.substr(0, std::min(name.find(','), name.size()));
    }
    while (!name.empty() && name.front() == ' ') name.remove_prefix(1);
    while (!name.empty() && name.back() == ' ') name.remove_suffix(1);
    text_ += name;
    text_ += '=';
    names_ = end < names_.size() ? names_.substr(end + 1) : std::string_view();
}

}  // namespace freedml::trace
