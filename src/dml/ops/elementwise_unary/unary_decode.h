// An operator to the unary function it computes, decoded once for every backend (unary_op.h).
#pragma once

#include <DirectML.h>

#include "dml/ops/elementwise_unary/unary_op.h"

namespace freedml::dml {

// False for a type with no floating-point function of one tensor. `roundingMode` is ROUND's
// DML_ROUNDING_MODE (ignored for the others).
inline bool UnaryFloatOpOf(DML_OPERATOR_TYPE type, uint32_t roundingMode, UnaryFloatOp* op) {
    using Op = UnaryFloatOp;
    switch (type) {
        case DML_OPERATOR_ELEMENT_WISE_ABS: *op = Op::Abs; return true;
        case DML_OPERATOR_ELEMENT_WISE_ACOS: *op = Op::Acos; return true;
        case DML_OPERATOR_ELEMENT_WISE_ASIN: *op = Op::Asin; return true;
        case DML_OPERATOR_ELEMENT_WISE_ATAN: *op = Op::Atan; return true;
        case DML_OPERATOR_ELEMENT_WISE_CEIL: *op = Op::Ceil; return true;
        case DML_OPERATOR_ELEMENT_WISE_CLIP:
        case DML_OPERATOR_ELEMENT_WISE_CLIP1: *op = Op::Clip; return true;
        case DML_OPERATOR_ELEMENT_WISE_COS: *op = Op::Cos; return true;
        case DML_OPERATOR_ELEMENT_WISE_EXP: *op = Op::Exp; return true;
        case DML_OPERATOR_ELEMENT_WISE_FLOOR: *op = Op::Floor; return true;
        case DML_OPERATOR_ELEMENT_WISE_LOG: *op = Op::Log; return true;
        case DML_OPERATOR_ELEMENT_WISE_CONSTANT_POW: *op = Op::Pow; return true;
        case DML_OPERATOR_ELEMENT_WISE_RECIP: *op = Op::Recip; return true;
        case DML_OPERATOR_ELEMENT_WISE_SIN: *op = Op::Sin; return true;
        case DML_OPERATOR_ELEMENT_WISE_SQRT: *op = Op::Sqrt; return true;
        case DML_OPERATOR_ELEMENT_WISE_TAN: *op = Op::Tan; return true;
        case DML_OPERATOR_ELEMENT_WISE_THRESHOLD: *op = Op::Threshold; return true;
        case DML_OPERATOR_ELEMENT_WISE_SIGN: *op = Op::Sign; return true;
        case DML_OPERATOR_ELEMENT_WISE_ERF: *op = Op::Erf; return true;
        case DML_OPERATOR_ELEMENT_WISE_SINH: *op = Op::Sinh; return true;
        case DML_OPERATOR_ELEMENT_WISE_COSH: *op = Op::Cosh; return true;
        case DML_OPERATOR_ELEMENT_WISE_TANH: *op = Op::Tanh; return true;
        case DML_OPERATOR_ELEMENT_WISE_ASINH: *op = Op::Asinh; return true;
        case DML_OPERATOR_ELEMENT_WISE_ACOSH: *op = Op::Acosh; return true;
        case DML_OPERATOR_ELEMENT_WISE_ATANH: *op = Op::Atanh; return true;
        case DML_OPERATOR_ELEMENT_WISE_NEGATE: *op = Op::Negate; return true;
        case DML_OPERATOR_ELEMENT_WISE_ROUND:
            *op = roundingMode == DML_ROUNDING_MODE_TOWARD_ZERO       ? Op::RoundZero
                  : roundingMode == DML_ROUNDING_MODE_TOWARD_INFINITY ? Op::RoundAway
                                                                      : Op::RoundEven;
            return true;
        default: return false;
    }
}

// False for a type with no integer function of one tensor.
inline bool UnaryIntegerOpOf(DML_OPERATOR_TYPE type, UnaryIntegerOp* op) {
    switch (type) {
        case DML_OPERATOR_ELEMENT_WISE_ABS: *op = UnaryIntegerOp::Abs; return true;
        case DML_OPERATOR_ELEMENT_WISE_NEGATE: *op = UnaryIntegerOp::Negate; return true;
        case DML_OPERATOR_ELEMENT_WISE_SIGN: *op = UnaryIntegerOp::Sign; return true;
        case DML_OPERATOR_ELEMENT_WISE_CLIP:
        case DML_OPERATOR_ELEMENT_WISE_CLIP1: *op = UnaryIntegerOp::Clip; return true;
        case DML_OPERATOR_ELEMENT_WISE_THRESHOLD: *op = UnaryIntegerOp::Threshold; return true;
        case DML_OPERATOR_ELEMENT_WISE_LOGICAL_NOT: *op = UnaryIntegerOp::LogicalNot; return true;
        default: return false;
    }
}

// ROUND's rounding mode (DML_ROUNDING_MODE), or 0 for any other operator.
inline uint32_t RoundingModeOf(DML_OPERATOR_TYPE type, const void* desc) {
    return type == DML_OPERATOR_ELEMENT_WISE_ROUND ? static_cast<const DML_ELEMENT_WISE_ROUND_OPERATOR_DESC*>(desc)->RoundingMode
                                                   : 0;
}

}  // namespace freedml::dml
