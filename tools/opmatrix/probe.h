// Which tensor data types an operator schema accepts, found by asking its own validation: the
// probe builds small descs (every tensor {1,1,1,1}, or {1,1,1,n} where only that validates, plain
// attribute values) with different data type assignments and keeps, per tensor, every type that
// appears in an assignment that passes ValidateOperatorDesc. Where no desc with every tensor
// validates, it starts from fewer optional tensors and gives the others back one at a time. Nothing here restates a schema's type
// rules, so OPERATORS.md follows the code as it changes.
#pragma once

#include <string>
#include <vector>

#include "dml/schema/catalog.h"
#include "dml/schema/schema.h"

namespace freedml::opmatrix {

struct ProbedTensor {
    std::string name;  // the desc field ("InputTensors" for an array)
    dml::DataTypeSet accepted = 0;
};

struct ProbeResult {
    bool ok = false;           // some assignment validated; `tensors` is meaningful
    std::string failure;       // the last validation message when nothing validated
    std::vector<ProbedTensor> tensors;  // in binding order (inputs, then outputs)
};

ProbeResult ProbeDataTypes(const dml::OperatorSchema& schema);

}  // namespace freedml::opmatrix
