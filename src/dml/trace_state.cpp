// libdirectml's side of common/trace.h: the flags and the output are libd3d12's, found when this
// library loads. Without libd3d12 (no D3D12 device can exist then) the flags come from
// FREEDML_TRACE here and lines go to standard error.
#include <dlfcn.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "common/trace.h"
#include "dml/schema/schema.h"

namespace freedml::trace {

namespace {
uint32_t gLocalFlags = 0;

const uint32_t* ResolveFlags() {
    if (auto* shared = static_cast<const uint32_t*>(dlsym(RTLD_DEFAULT, "FreeDMLInternalTraceFlags"))) return shared;
    const char* value = std::getenv("FREEDML_TRACE");
    gLocalFlags = value && std::strstr(value, "api") ? kApi : 0;
    return &gLocalFlags;
}

using TraceFunction = void (*)(const char* source, const char* line);
}  // namespace

const uint32_t* const gFlags = ResolveFlags();

void Emit(const char* source, const std::string& line) {
    static const auto function = reinterpret_cast<TraceFunction>(dlsym(RTLD_DEFAULT, "FreeDMLInternalTrace"));
    if (function) {
        function(source, line.c_str());
    } else {
        std::fprintf(stderr, "FreeDML trace: %s\n", line.c_str());
    }
}

// "GEMM{ATensor=FLOAT32[2,3], BTensor=FLOAT32[3,4], OutputTensor=FLOAT32[2,4]}": the type and
// the tensors, which is what tells one call from another.
std::string OperatorDescText(const DML_OPERATOR_DESC* desc) {
    if (!desc) return "null";
    const dml::OperatorSchema* schema = dml::FindSchema(desc->Type);
    if (!schema) return "DML_OPERATOR_TYPE(" + std::to_string(static_cast<int>(desc->Type)) + ")";
    std::string text = std::string(schema->name) + "{";
    if (!desc->Desc) return text + "null}";
    bool first = true;
    auto tensor = [](const DML_TENSOR_DESC* t) -> std::string {
        if (!t) return "null";
        if (t->Type != DML_TENSOR_TYPE_BUFFER || !t->Desc) return "{non-buffer}";
        const auto* buffer = static_cast<const DML_BUFFER_TENSOR_DESC*>(t->Desc);
        std::string s = dml::DataTypeName(buffer->DataType);
        s += "[";
        for (UINT i = 0; i < buffer->DimensionCount && buffer->Sizes; ++i) s += (i ? "," : "") + std::to_string(buffer->Sizes[i]);
        return s + "]";
    };
    for (const dml::FieldSchema& field : schema->fields) {
        const auto* slot = static_cast<const uint8_t*>(desc->Desc) + field.offset;
        if (field.kind != dml::FieldKind::InputTensor && field.kind != dml::FieldKind::OutputTensor) continue;
        const DML_TENSOR_DESC* pointer;
        std::memcpy(&pointer, slot, sizeof(pointer));
        if (!pointer) continue;
        text += (first ? "" : ", ") + std::string(field.name) + "=" + tensor(pointer);
        first = false;
    }
    return text + "}";
}

}  // namespace freedml::trace
