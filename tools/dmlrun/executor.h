// Runs a model on FreeDML through the public D3D12, DXCore and DirectML APIs only, in DxDispatch's
// order: create the device, upload every resource, create, compile and initialize every
// dispatchable, then run the commands one by one, waiting for each.
#pragma once

#include <stdexcept>
#include <string>

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

// --list-adapters: one line per adapter FreeDML offers, through DXCore. Returns false on failure.
bool ListAdapters();

}  // namespace dmlrun
