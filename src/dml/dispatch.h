// The command a DirectML dispatch becomes in a D3D12 command list. When the queue runs it, it
// reads the binding table's descriptors from the heap (BT3), checks every binding rule again on
// what it read (descriptors may have changed since recording), and only then runs the kernel:
// a dispatch that breaks a rule writes nothing.
#pragma once

#include <memory>

#include "d3d12/internal.h"
#include "dml/dispatchable.h"

namespace freedml::dml {

class Device;

std::unique_ptr<d3d12::Command> MakeDispatchCommand(Device& device, IDMLDispatchable* dispatchable,
                                                    std::shared_ptr<const DispatchableSnapshot> snapshot,
                                                    D3D12_GPU_DESCRIPTOR_HANDLE descriptors, std::string description);

}  // namespace freedml::dml
