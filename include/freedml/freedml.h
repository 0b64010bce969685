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

// Tracing: FREEDML_TRACE=api in the environment, or FreeDMLSetTraceFlags(FREEDML_TRACE_API) in
// code, logs every DirectML and D3D12 call as one line, "ID3D12Device::CreateCommittedResource(
// this=0x... 'device', heapProperties=DEFAULT, ...)", with the names objects were given with
// SetName, to standard error ("FreeDML trace: ...") and to the message callback (severity
// MESSAGE). Off, it costs one branch per call.
typedef enum FREEDML_TRACE_FLAGS {
    FREEDML_TRACE_NONE = 0,
    FREEDML_TRACE_API = 1,
} FREEDML_TRACE_FLAGS;

// Sets the process-wide trace flags (FREEDML_TRACE_FLAGS combined); returns the previous ones.
FREEDML_API uint32_t FreeDMLSetTraceFlags(uint32_t flags);

// Fence events on Linux. ID3D12Fence::SetEventOnCompletion takes a Win32 event HANDLE, which Linux
// does not have: a FreeDML event HANDLE is a file descriptor cast to HANDLE. When the fence reaches
// the value, FreeDML writes the 8-byte integer 1 to it once: with an eventfd (eventfd(0,
// EFD_CLOEXEC)) the application can poll() for POLLIN and read() it. FreeDML never closes it; keep
// it open until the event fired or the fence is released. Descriptor 0 cannot be used (a null
// HANDLE makes SetEventOnCompletion block until the value is reached, as in D3D12).
#define FREEDML_FD_TO_HANDLE(fd) ((HANDLE)(intptr_t)(fd))
#define FREEDML_HANDLE_TO_FD(handle) ((int)(intptr_t)(handle))

#ifdef __cplusplus
}
#endif
