#include <dlfcn.h>

#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <set>
#include <string>

#include "d3d12/internal.h"
#include "dxcore/factory.h"

namespace freedml::dxcore {

void ReportUnsupportedOnce(const char* what) {
    static std::mutex mutex;
    static auto* reported = new std::set<std::string>;  // lives until exit
    {
        std::lock_guard lock(mutex);
        if (!reported->insert(what).second) return;
    }
    const std::string text = std::string(what) +
                             " is not implemented: FreeDML's adapters never change while a process runs, and it "
                             "reports no adapter memory budget changes.";
    // libdxcore does not link libd3d12; a program that uses DirectML has it loaded.
    static const auto report =
        reinterpret_cast<d3d12::ReportWithoutDeviceFunction>(dlsym(RTLD_DEFAULT, d3d12::kReportWithoutDeviceSymbol));
    if (report) {
        report(2 /* D3D12_MESSAGE_SEVERITY_WARNING */, "DXCore", text.c_str(), 0);
    } else if (const char* debug = std::getenv("FREEDML_DEBUG"); debug && *debug && std::string(debug) != "0") {
        std::fprintf(stderr, "FreeDML DXCore WARNING: %s\n", text.c_str());
    }
}

}  // namespace freedml::dxcore
