// The binary element-wise operations, one list for every backend: the CPU kernels, the CUDA
// planning code and the CUDA device code (a plain header: nvcc sees it, and DirectML.h is not
// needed). binary_decode.h turns a DML_OPERATOR_TYPE into one of them.
#pragma once

#include <cstddef>
#include <cstdint>

namespace freedml::dml {

// X(Enumerator, the DML_OPERATOR_ELEMENT_WISE_ suffix). The comparisons are contiguous.
#define FREEDML_BINARY_OPS(X)                                                                                 \
    X(Add, ADD) X(Subtract, SUBTRACT) X(Multiply, MULTIPLY) X(Divide, DIVIDE) X(Min, MIN) X(Max, MAX)         \
    X(Mean, MEAN) X(AtanYX, ATAN_YX) X(DifferenceSquare, DIFFERENCE_SQUARE) X(ModulusFloor, MODULUS_FLOOR)   \
    X(ModulusTruncate, MODULUS_TRUNCATE) X(BitAnd, BIT_AND) X(BitOr, BIT_OR) X(BitXor, BIT_XOR)              \
    X(ShiftLeft, BIT_SHIFT_LEFT) X(ShiftRight, BIT_SHIFT_RIGHT) X(LogicalAnd, LOGICAL_AND)                   \
    X(LogicalOr, LOGICAL_OR) X(LogicalXor, LOGICAL_XOR) X(Equals, LOGICAL_EQUALS)                            \
    X(GreaterThan, LOGICAL_GREATER_THAN) X(LessThan, LOGICAL_LESS_THAN)                                      \
    X(GreaterThanOrEqual, LOGICAL_GREATER_THAN_OR_EQUAL) X(LessThanOrEqual, LOGICAL_LESS_THAN_OR_EQUAL)      \
    X(Pow, POW)

enum class BinaryOp : uint8_t {
#define FREEDML_BINARY_OP_ENUMERATOR(op, name) op,
    FREEDML_BINARY_OPS(FREEDML_BINARY_OP_ENUMERATOR)
#undef FREEDML_BINARY_OP_ENUMERATOR
};

// The comparisons read numbers and write UINT8 or UINT32; every other operation writes A's type.
constexpr bool IsComparison(BinaryOp op) { return op >= BinaryOp::Equals && op <= BinaryOp::LessThanOrEqual; }

// "SUBTRACT" (the operator's name without DML_OPERATOR_ELEMENT_WISE_).
inline const char* BinaryOpName(BinaryOp op) {
    static constexpr const char* kNames[] = {
#define FREEDML_BINARY_OP_NAME(op, name) #name,
        FREEDML_BINARY_OPS(FREEDML_BINARY_OP_NAME)
#undef FREEDML_BINARY_OP_NAME
    };
    return kNames[size_t(op)];
}

}  // namespace freedml::dml
