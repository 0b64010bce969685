// Methods outside the compute subset: say so once per method and process (vkd3d-proton's
// FIXME-once), and return E_NOTIMPL.
#include <mutex>
#include <set>
#include <string>

#include "d3d12/factories.h"
#include "d3d12/messages.h"

namespace freedml::d3d12 {

HRESULT ReportUnsupported(DeviceInternal* device, const char* method) {
    static std::mutex mutex;
    static std::set<std::string>* reported = new std::set<std::string>;  // lives until exit
    std::string name = method ? method : "(unnamed method)";
    {
        std::lock_guard lock(mutex);
        if (!reported->insert(name).second) return E_NOTIMPL;
    }
    std::string text = Format("%s is not implemented: FreeDML implements the Direct3D 12 compute subset that "
                              "DirectML needs (buffers, descriptor heaps, copies, command lists, queues and fences).",
                              name.c_str());
    if (device) {
        device->Report(D3D12_MESSAGE_SEVERITY_WARNING, D3D12_MESSAGE_CATEGORY_MISCELLANEOUS, text);
    } else {
        ReportToProcess(D3D12_MESSAGE_SEVERITY_WARNING, "D3D12", text, DebugLayerRequested() || DebugEnvironment());
    }
    return E_NOTIMPL;
}

}  // namespace freedml::d3d12
