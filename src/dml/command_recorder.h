// IDMLCommandRecorder: records DirectML dispatches onto FreeDML D3D12 command lists.
#pragma once

#include "dml/object.h"

namespace freedml::dml {

class CommandRecorder final : public DeviceChild<CommandRecorder, ChildKind::CommandRecorder, IDMLCommandRecorder,
                                                 IDMLDeviceChild, IDMLObject> {
public:
    static constexpr ChildKind kKind = ChildKind::CommandRecorder;
    explicit CommandRecorder(Device& device) : DeviceChild(device) {}

    void STDMETHODCALLTYPE RecordDispatch(ID3D12CommandList* commandList, IDMLDispatchable* dispatchable,
                                          IDMLBindingTable* bindings) override;
};

}  // namespace freedml::dml
