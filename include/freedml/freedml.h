// FreeDML extensions: what DirectML and D3D12 leave out and a Linux user needs. Exported by
// libd3d12.so. Include after <wsl/winadapter.h> (or DirectML.h / d3d12.h).
#pragma once

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define FREEDML_API __attribute__((visibility("default")))

// Severity of a FreeDML message; the same values as D3D12_MESSAGE_SEVERITY.
typedef enum FREEDML_MESSAGE_SEVERITY {
    FREEDML_MESSAGE_SEVERITY_CORRUPTION = 0,
    FREEDML_MESSAGE_SEVERITY_ERROR = 1,
    FREEDML_MESSAGE_SEVERITY_WARNING = 2,
    FREEDML_MESSAGE_SEVERITY_INFO = 3,
    FREEDML_MESSAGE_SEVERITY_MESSAGE = 4,
} FREEDML_MESSAGE_SEVERITY;

// Called for every message any FreeDML device reports (from any thread, possibly a queue's
// worker), whether or not the debug layer is on. `source` is "D3D12" or "DirectML"; `text` is
// one UTF-8 sentence or more, valid only during the call.
typedef void (*FREEDML_MESSAGE_CALLBACK)(FREEDML_MESSAGE_SEVERITY severity, const char* source, const char* text,
                                         void* context);

// Installs the process-wide callback (nullptr removes it). Returns the previous one.
FREEDML_API FREEDML_MESSAGE_CALLBACK FreeDMLSetMessageCallback(FREEDML_MESSAGE_CALLBACK callback, void* context);

#ifdef __cplusplus
}
#endif
