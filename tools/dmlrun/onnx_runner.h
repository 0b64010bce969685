// `dmlrun model.onnx`: the model lowered by libfreedml_onnx, run through its session, outputs
// printed in dmlrun's format (and written as .npy files), optionally compared with ONNX Runtime.
#pragma once

#include "cli.h"

namespace dmlrun {

// The exit status: 0, 1 (the model cannot be run: the reason on standard error), 3 (a failure).
int RunOnnxModel(const Options& options);
void ListOnnxOperators();

}  // namespace dmlrun
