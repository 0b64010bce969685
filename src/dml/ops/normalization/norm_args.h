// Builds a NormPlan (norm_plan.h) from a validated normalization desc, for both backends.
#pragma once

#include <DirectML.h>

#include "common/status.h"
#include "dml/ops/normalization/norm_plan.h"
#include "dml/schema/schema.h"

namespace freedml::dml {

// `fusedActivation` receives the desc's FusedActivation (null when it has none or no such field).
Status BuildNormPlan(const OperatorArgs& args, NormPlan* plan, const DML_OPERATOR_DESC** fusedActivation);

// The binding slot of each NormOperand of `type`, -1 where the operator has no such tensor: an
// index into the inputs, or into the outputs for the NormIsOutput operands.
void NormSlots(DML_OPERATOR_TYPE type, int (&slots)[kNormOperands]);

}  // namespace freedml::dml
