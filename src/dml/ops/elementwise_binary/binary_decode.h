// An operator type to the BinaryOp it computes, decoded once for every backend (binary_op.h).
#pragma once

#include <DirectML.h>

#include "dml/ops/elementwise_binary/binary_op.h"

namespace freedml::dml {

// False for a type that is not a binary element-wise operation. ADD1 is ADD (its fused activation
// is the caller's to read).
inline bool BinaryOpOf(DML_OPERATOR_TYPE type, BinaryOp* op) {
    switch (type) {
#define FREEDML_BINARY_OP_CASE(kind, name)     \
    case DML_OPERATOR_ELEMENT_WISE_##name:     \
        *op = BinaryOp::kind;                  \
        return true;
        FREEDML_BINARY_OPS(FREEDML_BINARY_OP_CASE)
#undef FREEDML_BINARY_OP_CASE
        case DML_OPERATOR_ELEMENT_WISE_ADD1:
            *op = BinaryOp::Add;
            return true;
        default:
            return false;
    }
}

}  // namespace freedml::dml
