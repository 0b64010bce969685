// Generator operators: tensors made from a few numbers rather than read from a tensor of the same
// size. ONE_HOT (an on value at one index of each line along an axis, off values elsewhere),
// DIAGONAL_MATRIX and DIAGONAL_MATRIX1 (a value along a band of diagonals of each trailing 2D
// matrix, zeros or the input elsewhere), NONZERO_COORDINATES (the count and the coordinates of an
// input's nonzero elements) and RANDOM_GENERATOR (Philox 4x32-10 bits from a state tensor). Data
// types follow the reference pages' tables for the highest feature level (dml/schema/catalog.cpp
// has them).
#include "dml/schema/families.h"

namespace freedml::dml {

namespace {

using Types = std::initializer_list<DML_TENSOR_DATA_TYPE>;

constexpr Types kAllTypes = {DML_TENSOR_DATA_TYPE_FLOAT64, DML_TENSOR_DATA_TYPE_FLOAT32, DML_TENSOR_DATA_TYPE_FLOAT16,
                             DML_TENSOR_DATA_TYPE_INT64,   DML_TENSOR_DATA_TYPE_INT32,   DML_TENSOR_DATA_TYPE_INT16,
                             DML_TENSOR_DATA_TYPE_INT8,    DML_TENSOR_DATA_TYPE_UINT64,  DML_TENSOR_DATA_TYPE_UINT32,
                             DML_TENSOR_DATA_TYPE_UINT16,  DML_TENSOR_DATA_TYPE_UINT8};
// NONZERO_COORDINATES' inputs.
constexpr Types kNonzeroInputTypes = {DML_TENSOR_DATA_TYPE_FLOAT32, DML_TENSOR_DATA_TYPE_FLOAT16,
                                      DML_TENSOR_DATA_TYPE_INT32,   DML_TENSOR_DATA_TYPE_INT16,
                                      DML_TENSOR_DATA_TYPE_INT8,    DML_TENSOR_DATA_TYPE_UINT32,
                                      DML_TENSOR_DATA_TYPE_UINT16,  DML_TENSOR_DATA_TYPE_UINT8};
constexpr Types kIndexTypes = {DML_TENSOR_DATA_TYPE_INT64, DML_TENSOR_DATA_TYPE_INT32, DML_TENSOR_DATA_TYPE_UINT64,
                               DML_TENSOR_DATA_TYPE_UINT32};

// ONE_HOT: IndicesTensor has OutputTensor's rank and sizes except 1 along Axis; ValuesTensor holds
// at least two elements (off, then on) of OutputTensor's data type.
Status ValidateOneHot(const OperatorArgs& args) {
    const auto& desc = args.As<DML_ONE_HOT_OPERATOR_DESC>();
    const TensorDesc& indices = *args.inputs[0];
    const TensorDesc& values = *args.inputs[1];
    const TensorDesc& output = *args.outputs[0];
    INVALID_IF(desc.Axis >= indices.rank, "Axis (%u) must be less than IndicesTensor's DimensionCount (%u).",
               desc.Axis, indices.rank);
    INVALID_IF(output.rank != indices.rank,
               "OutputTensor has DimensionCount %u, but IndicesTensor has %u; they must match.", output.rank,
               indices.rank);
    for (uint32_t d = 0; d < output.rank; ++d) {
        const uint32_t want = d == desc.Axis ? 1 : output.sizes[d];
        INVALID_IF(indices.sizes[d] != want,
                   "IndicesTensor has sizes %s for OutputTensor's %s and Axis %u: dimension %u must be %u.",
                   SizesToString(indices).c_str(), SizesToString(output).c_str(), desc.Axis, d, want);
    }
    uint64_t count = 1;
    for (uint32_t d = 0; d < values.rank; ++d) count *= values.sizes[d];
    INVALID_IF(count < 2, "ValuesTensor has sizes %s; it must hold at least two elements (OffValue, OnValue).",
               SizesToString(values).c_str());
    INVALID_IF(!DataTypeIn(kIndexTypes, indices.dataType), "IndicesTensor has data type %s; DML_OPERATOR_ONE_HOT accepts %s.",
               DataTypeName(indices.dataType), DataTypeListToString(kIndexTypes).c_str());
    INVALID_IF(!DataTypeIn(kAllTypes, output.dataType), "OutputTensor has data type %s; DML_OPERATOR_ONE_HOT accepts %s.",
               DataTypeName(output.dataType), DataTypeListToString(kAllTypes).c_str());
    INVALID_IF(values.dataType != output.dataType,
               "ValuesTensor has data type %s, but OutputTensor is %s; they must match.", DataTypeName(values.dataType),
               DataTypeName(output.dataType));
    return {};
}

// DIAGONAL_MATRIX and DIAGONAL_MATRIX1: the output is a stack of 2D matrices, its last two
// dimensions (the pages show 4D tensors; FreeDML takes any DimensionCount from 2, leading
// dimensions being the batch). DIAGONAL_MATRIX1's optional InputTensor has the output's sizes and
// data type, and ValueDataType is the output's data type.
Status ValidateDiagonal(const OperatorArgs& args) {
    const TensorDesc& output = *args.outputs[0];
    INVALID_IF(output.rank < 2, "OutputTensor has DimensionCount %u; DML_OPERATOR_%s needs at least 2.", output.rank,
               args.schema.name);
    INVALID_IF(!DataTypeIn(kAllTypes, output.dataType), "OutputTensor has data type %s; DML_OPERATOR_%s accepts %s.",
               DataTypeName(output.dataType), args.schema.name, DataTypeListToString(kAllTypes).c_str());
    if (args.schema.type == DML_OPERATOR_DIAGONAL_MATRIX1) {
        const auto& desc = args.As<DML_DIAGONAL_MATRIX1_OPERATOR_DESC>();
        INVALID_IF(desc.ValueDataType != output.dataType,
                   "ValueDataType (%s) must match OutputTensor's data type (%s).",
                   DataTypeName(desc.ValueDataType), DataTypeName(output.dataType));
        if (args.inputs[0]) {
            FREEDML_TRY(ValidateSameDataType(args));
            FREEDML_TRY(ValidateSameSizes(args));
        }
    }
    return {};
}

const OperatorSchema kOneHot{
    .type = DML_OPERATOR_ONE_HOT,
    .name = "ONE_HOT",
    .featureLevel = DML_FEATURE_LEVEL_2_0,
    .descSize = sizeof(DML_ONE_HOT_OPERATOR_DESC),
    .fields = {DML_FIELD(DML_ONE_HOT_OPERATOR_DESC, IndicesTensor, InputTensor),
               DML_FIELD(DML_ONE_HOT_OPERATOR_DESC, ValuesTensor, InputTensor),
               DML_FIELD(DML_ONE_HOT_OPERATOR_DESC, OutputTensor, OutputTensor),
               DML_FIELD(DML_ONE_HOT_OPERATOR_DESC, Axis, UInt)},
    .validate = ValidateOneHot,
};

const OperatorSchema kDiagonalMatrix{
    .type = DML_OPERATOR_DIAGONAL_MATRIX,
    .name = "DIAGONAL_MATRIX",
    .featureLevel = DML_FEATURE_LEVEL_2_0,
    .descSize = sizeof(DML_DIAGONAL_MATRIX_OPERATOR_DESC),
    .fields = {DML_FIELD(DML_DIAGONAL_MATRIX_OPERATOR_DESC, OutputTensor, OutputTensor),
               DML_FIELD(DML_DIAGONAL_MATRIX_OPERATOR_DESC, Offset, Int),
               DML_FIELD(DML_DIAGONAL_MATRIX_OPERATOR_DESC, Value, Float)},
    .validate = ValidateDiagonal,
};

const OperatorSchema kDiagonalMatrix1{
    .type = DML_OPERATOR_DIAGONAL_MATRIX1,
    .name = "DIAGONAL_MATRIX1",
    .featureLevel = DML_FEATURE_LEVEL_5_1,
    .descSize = sizeof(DML_DIAGONAL_MATRIX1_OPERATOR_DESC),
    .fields = {DML_FIELD(DML_DIAGONAL_MATRIX1_OPERATOR_DESC, InputTensor, InputTensor, .optional = true),
               DML_FIELD(DML_DIAGONAL_MATRIX1_OPERATOR_DESC, OutputTensor, OutputTensor),
               DML_FIELD(DML_DIAGONAL_MATRIX1_OPERATOR_DESC, ValueDataType, Enum, .enumType = &TensorDataTypeEnum()),
               DML_FIELD(DML_DIAGONAL_MATRIX1_OPERATOR_DESC, Value, ScalarUnion, .typeField = "ValueDataType"),
               DML_FIELD(DML_DIAGONAL_MATRIX1_OPERATOR_DESC, DiagonalFillBegin, Int),
               DML_FIELD(DML_DIAGONAL_MATRIX1_OPERATOR_DESC, DiagonalFillEnd, Int)},
    .validate = ValidateDiagonal,
};

// NONZERO_COORDINATES: OutputCountTensor is one UINT32 (all sizes 1); OutputCoordinatesTensor is a
// UINT32 M x N matrix in its last two dimensions, M the input's element count and N from the input's
// effective rank (leading sizes of 1 not counted) to its DimensionCount. The page shows
// {1,1,M,N} and {1,1,1,M,N}; FreeDML takes any DimensionCount from 2 whose leading sizes are 1.
Status ValidateNonzero(const OperatorArgs& args) {
    const TensorDesc& input = *args.inputs[0];
    const TensorDesc& count = *args.outputs[0];
    const TensorDesc& coords = *args.outputs[1];
    INVALID_IF(!DataTypeIn(kNonzeroInputTypes, input.dataType),
               "InputTensor has data type %s; DML_OPERATOR_NONZERO_COORDINATES accepts %s.",
               DataTypeName(input.dataType), DataTypeListToString(kNonzeroInputTypes).c_str());
    INVALID_IF(count.dataType != DML_TENSOR_DATA_TYPE_UINT32, "OutputCountTensor has data type %s; it must be UINT32.",
               DataTypeName(count.dataType));
    INVALID_IF(coords.dataType != DML_TENSOR_DATA_TYPE_UINT32,
               "OutputCoordinatesTensor has data type %s; it must be UINT32.", DataTypeName(coords.dataType));
    for (uint32_t d = 0; d < count.rank; ++d) {
        INVALID_IF(count.sizes[d] != 1, "OutputCountTensor has sizes %s; it must be a scalar (every size 1).",
                   SizesToString(count).c_str());
    }
    uint64_t elements = 1;
    uint32_t effectiveRank = 0;
    for (uint32_t d = 0; d < input.rank; ++d) {
        elements *= input.sizes[d];
        if (effectiveRank == 0 && input.sizes[d] != 1) effectiveRank = input.rank - d;
    }
    INVALID_IF(coords.rank < 2, "OutputCoordinatesTensor has DimensionCount %u; it must be at least 2 ({..., M, N}).",
               coords.rank);
    for (uint32_t d = 0; d + 2 < coords.rank; ++d) {
        INVALID_IF(coords.sizes[d] != 1, "OutputCoordinatesTensor has sizes %s; every size before the last two must "
                   "be 1.", SizesToString(coords).c_str());
    }
    const uint32_t m = coords.sizes[coords.rank - 2], n = coords.sizes[coords.rank - 1];
    INVALID_IF(m != elements,
               "OutputCoordinatesTensor has sizes %s: M (%u) must be InputTensor's element count (%llu).",
               SizesToString(coords).c_str(), m, static_cast<unsigned long long>(elements));
    INVALID_IF(n < effectiveRank || n > input.rank,
               "OutputCoordinatesTensor has sizes %s: N (%u) must be from InputTensor's effective rank (%u) to its "
               "DimensionCount (%u).", SizesToString(coords).c_str(), n, effectiveRank, input.rank);
    return {};
}

const OperatorSchema kNonzeroCoordinates{
    .type = DML_OPERATOR_NONZERO_COORDINATES,
    .name = "NONZERO_COORDINATES",
    .featureLevel = DML_FEATURE_LEVEL_3_0,
    .descSize = sizeof(DML_NONZERO_COORDINATES_OPERATOR_DESC),
    .fields = {DML_FIELD(DML_NONZERO_COORDINATES_OPERATOR_DESC, InputTensor, InputTensor),
               DML_FIELD(DML_NONZERO_COORDINATES_OPERATOR_DESC, OutputCountTensor, OutputTensor),
               DML_FIELD(DML_NONZERO_COORDINATES_OPERATOR_DESC, OutputCoordinatesTensor, OutputTensor)},
    .validate = ValidateNonzero,
};

constexpr EnumValue kRandomGeneratorTypeValues[] = {
    {"DML_RANDOM_GENERATOR_TYPE_PHILOX_4X32_10", DML_RANDOM_GENERATOR_TYPE_PHILOX_4X32_10},
};
const EnumType kRandomGeneratorType{"DML_RANDOM_GENERATOR_TYPE", kRandomGeneratorTypeValues};

// RANDOM_GENERATOR with PHILOX_4X32_10: InputStateTensor is six UINT32 (a 128-bit counter, a 64-bit
// key) of sizes {1,1,1,6} (the page; FreeDML takes any DimensionCount whose sizes are 1 but the last);
// the optional OutputStateTensor has its sizes; OutputTensor is UINT32 of any sizes.
Status ValidateRandomGenerator(const OperatorArgs& args) {
    const TensorDesc& state = *args.inputs[0];
    INVALID_IF(state.dataType != DML_TENSOR_DATA_TYPE_UINT32, "InputStateTensor has data type %s; it must be UINT32.",
               DataTypeName(state.dataType));
    for (uint32_t d = 0; d < state.rank; ++d) {
        const uint32_t want = d + 1 == state.rank ? 6 : 1;
        INVALID_IF(state.sizes[d] != want,
                   "InputStateTensor has sizes %s; the Philox 4x32-10 state must be {1,1,1,6} (six UINT32).",
                   SizesToString(state).c_str());
    }
    const TensorDesc& output = *args.outputs[0];
    INVALID_IF(output.dataType != DML_TENSOR_DATA_TYPE_UINT32, "OutputTensor has data type %s; it must be UINT32.",
               DataTypeName(output.dataType));
    if (args.outputs[1]) {
        const TensorDesc& next = *args.outputs[1];
        INVALID_IF(next.dataType != DML_TENSOR_DATA_TYPE_UINT32,
                   "OutputStateTensor has data type %s; it must be UINT32.", DataTypeName(next.dataType));
        INVALID_IF(next.rank != state.rank || SizesToString(next) != SizesToString(state),
                   "OutputStateTensor has sizes %s, but InputStateTensor has %s; they must match.",
                   SizesToString(next).c_str(), SizesToString(state).c_str());
    }
    return {};
}

const OperatorSchema kRandomGenerator{
    .type = DML_OPERATOR_RANDOM_GENERATOR,
    .name = "RANDOM_GENERATOR",
    .featureLevel = DML_FEATURE_LEVEL_3_0,
    .descSize = sizeof(DML_RANDOM_GENERATOR_OPERATOR_DESC),
    .fields = {DML_FIELD(DML_RANDOM_GENERATOR_OPERATOR_DESC, InputStateTensor, InputTensor),
               DML_FIELD(DML_RANDOM_GENERATOR_OPERATOR_DESC, OutputTensor, OutputTensor),
               DML_FIELD(DML_RANDOM_GENERATOR_OPERATOR_DESC, OutputStateTensor, OutputTensor, .optional = true),
               DML_FIELD(DML_RANDOM_GENERATOR_OPERATOR_DESC, Type, Enum, .enumType = &kRandomGeneratorType)},
    .validate = ValidateRandomGenerator,
};

const OperatorSchema* const kSchemas[] = {&kOneHot, &kDiagonalMatrix, &kDiagonalMatrix1, &kNonzeroCoordinates,
                                          &kRandomGenerator};

}  // namespace

std::span<const OperatorSchema* const> GeneratorSchemas() { return kSchemas; }

}  // namespace freedml::dml
