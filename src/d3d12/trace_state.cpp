// The process-wide trace flags (common/trace.h) and where trace lines go. They live here, in
// libd3d12, because its message callback is the process's; libdirectml reaches both through the
// exported symbols below.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "common/trace.h"
#include "d3d12/internal.h"
#include "d3d12/messages.h"
#include "freedml/freedml.h"

namespace {
// FREEDML_TRACE=api (a comma-separated list; "api" is the one kind so far).
uint32_t FlagsFromEnvironment() {
    const char* value = std::getenv("FREEDML_TRACE");
    if (!value) return 0;
    uint32_t flags = 0;
    std::string list = value;
    size_t start = 0;
    while (start <= list.size()) {
        size_t end = list.find(',', start);
        if (end == std::string::npos) end = list.size();
        std::string item = list.substr(start, end - start);
        if (item == "api" || item == "1") {
            flags |= FREEDML_TRACE_API;
        } else if (!item.empty() && item != "0") {
            std::fprintf(stderr, "FreeDML: FREEDML_TRACE names '%s', which is not a kind of trace; the kinds are: api.\n",
                         item.c_str());
        }
        start = end + 1;
    }
    return flags;
}
}  // namespace

extern "C" {
// Private: read by every FreeDML library through common/trace.h.
FREEDML_EXPORT uint32_t FreeDMLInternalTraceFlags = FlagsFromEnvironment();

// Private: libdirectml's trace lines come here (freedml::d3d12::kTraceSymbol).
FREEDML_EXPORT void FreeDMLInternalTrace(const char* source, const char* line) {
    try {
        freedml::d3d12::ReportToProcess(D3D12_MESSAGE_SEVERITY_MESSAGE, source, line, false);
    } catch (...) {  // no memory for the callback's copy: the line still goes to standard error
    }
    std::fprintf(stderr, "FreeDML trace: %s\n", line);
}

FREEDML_EXPORT uint32_t FreeDMLSetTraceFlags(uint32_t flags) {
    return __atomic_exchange_n(&FreeDMLInternalTraceFlags, flags, __ATOMIC_RELAXED);
}
}  // extern "C"

namespace freedml::trace {
const uint32_t* const gFlags = &FreeDMLInternalTraceFlags;
void Emit(const char* source, const std::string& line) { FreeDMLInternalTrace(source, line.c_str()); }
}  // namespace freedml::trace
