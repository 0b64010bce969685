// Runs a model on FreeDML through the public D3D12, DXCore and DirectML APIs only, in DxDispatch's
// order: create the device, upload every resource, create, compile and initialize every
// dispatchable, then run the commands one by one, waiting for each.
#pragma once

#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

#include "cli.h"
#include "json_document.h"
#include "model.h"

namespace dmlrun {

// A D3D12 or DirectML call that failed, with FreeDML's messages about it. `path` names the model
// part it concerns (a dispatchable, a command) when there is one.
class RunError : public std::runtime_error {
public:
    RunError(JsonPath path, const std::string& message, bool modelIsInvalid)
        : std::runtime_error(message), path_(std::move(path)), modelIsInvalid_(modelIsInvalid) {}
    const JsonPath& Path() const { return path_; }
    // True when DirectML refused the model's operators or bindings (exit status 1), false when
    // the device or a call failed for another reason (exit status 3).
    bool ModelIsInvalid() const { return modelIsInvalid_; }

private:
    JsonPath path_;
    bool modelIsInvalid_;
};

// Throws RunError. Standard output gets what DxDispatch prints (unless options.quiet hides all but
// the print commands); standard error gets progress and, with --verbose, each step and message.
void RunModel(const Model& model, const Options& options);

// One output tensor of a dispatch, read back after it ran.
struct DispatchOutput {
    std::string bindPoint;  // "OutputTensor", or an array field
    size_t arrayIndex = 0;
    bool isArray = false;
    DML_TENSOR_DATA_TYPE dataType = DML_TENSOR_DATA_TYPE_UNKNOWN;
    std::vector<uint8_t> bytes;  // TotalTensorSizeInBytes of the tensor
    std::string Name() const { return isArray ? bindPoint + "[" + std::to_string(arrayIndex) + "]" : bindPoint; }
};
// Called after each dispatch command (its index in Model::commands) with what it wrote.
using DispatchObserver = std::function<void(size_t command, const DispatchCommand&, std::vector<DispatchOutput>)>;
void RunModel(const Model& model, const Options& options, const DispatchObserver& observer);

// --list-adapters: one line per adapter FreeDML offers, through DXCore. Returns false on failure.
bool ListAdapters();

}  // namespace dmlrun
