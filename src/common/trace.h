// API tracing (FREEDML_TRACE=api, FreeDMLSetTraceFlags): one readable line per DirectML and D3D12
// call, with its arguments and the names objects were given with SetName.
//
// Adding an entry point's trace is one line at the top of its body:
//
//     FREEDML_TRACE("ID3D12Device::CreateHeap", this, desc, riid, heap);
//
// The argument names come from the macro's own text, the values from the overloads of
// TraceValue below. When tracing is off the macro is one load and one branch the compiler marks
// unlikely; nothing is formatted.
//
// The flags live once per process, in libd3d12 (exported as FreeDMLInternalTraceFlags); each of
// FreeDML's libraries reaches them through TraceFlagsAddress(), resolved when the library loads.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <type_traits>

#include "common/platform.h"

#include <DirectML.h>

namespace freedml::trace {

constexpr uint32_t kApi = 1;  // FREEDML_TRACE_API

// This library's view of the process-wide flags (never null).
extern const uint32_t* const gFlags;

inline bool ApiEnabled() { return __builtin_expect(__atomic_load_n(gFlags, __ATOMIC_RELAXED) & kApi, 0) != 0; }

// Writes one finished line: to standard error ("FreeDML trace: ...") and to the FreeDML message
// callback (severity MESSAGE, `source` "D3D12" or "DirectML").
void Emit(const char* source, const std::string& line);

// ---- Formatting --------------------------------------------------------------------------------
std::string Hex(uint64_t value);
std::string GuidText(const GUID& guid);      // the interface name when FreeDML knows it
std::string Quoted(const char* text);        // "null" for nullptr
std::string Quoted(const wchar_t* text);
// "0x5581c0 'weights'" (the name set with SetName, when there is one), "null".
std::string ObjectText(const void* address, ID3D12Object* d3d12, IDMLObject* dml);
std::string OperatorDescText(const DML_OPERATOR_DESC* desc);
std::string BindingDescText(const DML_BINDING_DESC* desc);
std::string ResourceDescText(const D3D12_RESOURCE_DESC* desc);
std::string HeapPropertiesText(const D3D12_HEAP_PROPERTIES* properties);
std::string BarrierText(const D3D12_RESOURCE_BARRIER* barrier);

// A DML_BINDING_DESC or D3D12_RESOURCE_BARRIER element, given by reference.
inline std::string TraceValue(const DML_BINDING_DESC& desc) { return BindingDescText(&desc); }
inline std::string TraceValue(const D3D12_RESOURCE_BARRIER& barrier) { return BarrierText(&barrier); }

template <class T>
std::string TraceValue(const T& value) {
    using Plain = std::remove_cv_t<std::remove_pointer_t<T>>;
    if constexpr (std::is_same_v<T, bool>) {
        return value ? "true" : "false";
    } else if constexpr (std::is_enum_v<T>) {
        return std::to_string(static_cast<long long>(value));
    } else if constexpr (std::is_integral_v<T>) {
        return std::to_string(value);
    } else if constexpr (std::is_floating_point_v<T>) {
        return std::to_string(value);
    } else if constexpr (std::is_same_v<T, GUID>) {
        return GuidText(value);
    } else if constexpr (std::is_same_v<T, D3D12_GPU_DESCRIPTOR_HANDLE> || std::is_same_v<T, D3D12_CPU_DESCRIPTOR_HANDLE>) {
        return Hex(value.ptr);
    } else if constexpr (std::is_pointer_v<T>) {
        if constexpr (std::is_same_v<Plain, char>) {
            return Quoted(value);
        } else if constexpr (std::is_same_v<Plain, wchar_t>) {
            return Quoted(value);
        } else if constexpr (std::is_same_v<Plain, DML_OPERATOR_DESC>) {
            return OperatorDescText(value);
        } else if constexpr (std::is_same_v<Plain, DML_BINDING_DESC>) {
            return BindingDescText(value);
        } else if constexpr (std::is_same_v<Plain, D3D12_RESOURCE_DESC>) {
            return ResourceDescText(value);
        } else if constexpr (std::is_same_v<Plain, D3D12_HEAP_PROPERTIES>) {
            return HeapPropertiesText(value);
        } else if constexpr (std::is_same_v<Plain, D3D12_RESOURCE_BARRIER>) {
            return BarrierText(value);
        } else if constexpr (std::is_base_of_v<ID3D12Object, Plain>) {
            return ObjectText(value, const_cast<ID3D12Object*>(static_cast<const ID3D12Object*>(value)), nullptr);
        } else if constexpr (std::is_base_of_v<IDMLObject, Plain>) {
            return ObjectText(value, nullptr, const_cast<IDMLObject*>(static_cast<const IDMLObject*>(value)));
        } else {
            return value ? Hex(reinterpret_cast<uintptr_t>(value)) : std::string("null");
        }
    } else {
        return "{...}";
    }
}

template <class T>
struct List {
    const T* items;
    size_t count;
};
template <class T>
List<T> MakeList(const T* items, size_t count) {
    return {items, count};
}
template <class T>
std::string TraceValue(const List<T>& list) {
    if (!list.items) return "null";
    std::string text = "[";
    for (size_t i = 0; i < list.count; ++i) text += (i ? ", " : "") + TraceValue(list.items[i]);
    return text + "]";
}

// The line "method(name=value, ...)"; `names` is the macro's text of the arguments.
class Line {
public:
    Line(const char* method, const char* names) : names_(names) { text_ = method; text_ += '('; }
    template <class T>
    Line& Arg(const T& value) {
        AppendName();
        text_ += TraceValue(value);
        return *this;
    }
    void Self(const std::string& self) {
        text_ += "this=" + self;
        first_ = false;
    }
    std::string Finish() { return text_ + ")"; }

private:
    void AppendName();  // the next name of `names_`, then "="
    std::string text_;
    std::string_view names_;
    bool first_ = true;
};

// `self` is the object whose method was called (nullptr for a free function); it is shown first,
// as "this=0x... 'name'".
template <class Self, class... Args>
void Call(const char* source, const char* method, Self self, const char* names, const Args&... args) {
    Line line(method, names);
    if constexpr (requires { self->Name(); }) {
        // FreeDML's own object (a NamedComObject): its name directly, no interface cast.
        std::string name = self->Name();
        line.Self(Hex(reinterpret_cast<uintptr_t>(self)) + (name.empty() ? "" : " '" + name + "'"));
    } else if constexpr (!std::is_same_v<Self, std::nullptr_t>) {
        line.Self(TraceValue(self));
    }
    (line.Arg(args), ...);
    Emit(source, line.Finish());
}

}  // namespace freedml::trace

// An array argument: FREEDML_TRACE_LIST(bindings, bindingCount) shows every element under the
// name "bindings".
#define FREEDML_TRACE_LIST(items, count) ::freedml::trace::MakeList(items, count)

// The trace of one entry point: `self` is `this` (or nullptr for a free function); the rest are
// its arguments, in order. Put it first in the body.
#define FREEDML_TRACE_SOURCE(source, method, self, ...)                                                     \
    do {                                                                                                   \
        if (::freedml::trace::ApiEnabled()) ::freedml::trace::Call(source, method, self, #__VA_ARGS__ __VA_OPT__(,) __VA_ARGS__); \
    } while (0)
#define FREEDML_TRACE_D3D12(method, self, ...) FREEDML_TRACE_SOURCE("D3D12", method, self, __VA_ARGS__)
#define FREEDML_TRACE_DML(method, self, ...) FREEDML_TRACE_SOURCE("DirectML", method, self, __VA_ARGS__)
