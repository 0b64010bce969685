// Reduction operators: REDUCE (every DML_REDUCE_FUNCTION over any set of axes), ARGMIN and
// ARGMAX (index of the extreme element over a set of axes, ties broken by AxisDirection), the
// scans CUMULATIVE_SUMMATION and CUMULATIVE_PRODUCT (running tallies along one axis), and TOP_K and
// TOP_K1 (the K largest or smallest elements along one axis, with their indices).
//
// The reductions keep the input's rank: the output has size 1 on every reduced axis and the input's
// size on every other. The scans' output has the input's sizes and data type. The data types follow
// the reference pages' tables for the highest feature level (dml/schema/catalog.cpp has them).
#include "dml/schema/families.h"

namespace freedml::dml {

namespace {

using Types = std::initializer_list<DML_TENSOR_DATA_TYPE>;

constexpr EnumValue kReduceFunctionValues[] = {
    {"DML_REDUCE_FUNCTION_ARGMAX", DML_REDUCE_FUNCTION_ARGMAX},
    {"DML_REDUCE_FUNCTION_ARGMIN", DML_REDUCE_FUNCTION_ARGMIN},
    {"DML_REDUCE_FUNCTION_AVERAGE", DML_REDUCE_FUNCTION_AVERAGE},
    {"DML_REDUCE_FUNCTION_L1", DML_REDUCE_FUNCTION_L1},
    {"DML_REDUCE_FUNCTION_L2", DML_REDUCE_FUNCTION_L2},
    {"DML_REDUCE_FUNCTION_LOG_SUM", DML_REDUCE_FUNCTION_LOG_SUM},
    {"DML_REDUCE_FUNCTION_LOG_SUM_EXP", DML_REDUCE_FUNCTION_LOG_SUM_EXP},
    {"DML_REDUCE_FUNCTION_MAX", DML_REDUCE_FUNCTION_MAX},
    {"DML_REDUCE_FUNCTION_MIN", DML_REDUCE_FUNCTION_MIN},
    {"DML_REDUCE_FUNCTION_MULTIPLY", DML_REDUCE_FUNCTION_MULTIPLY},
    {"DML_REDUCE_FUNCTION_SUM", DML_REDUCE_FUNCTION_SUM},
    {"DML_REDUCE_FUNCTION_SUM_SQUARE", DML_REDUCE_FUNCTION_SUM_SQUARE},
};
const EnumType kReduceFunction{"DML_REDUCE_FUNCTION", kReduceFunctionValues};

constexpr EnumValue kAxisDirectionValues[] = {
    {"DML_AXIS_DIRECTION_INCREASING", DML_AXIS_DIRECTION_INCREASING},
    {"DML_AXIS_DIRECTION_DECREASING", DML_AXIS_DIRECTION_DECREASING},
};
const EnumType kAxisDirection{"DML_AXIS_DIRECTION", kAxisDirectionValues};

constexpr Types kAllTypes = {DML_TENSOR_DATA_TYPE_FLOAT32, DML_TENSOR_DATA_TYPE_FLOAT16, DML_TENSOR_DATA_TYPE_INT64,
                             DML_TENSOR_DATA_TYPE_INT32,   DML_TENSOR_DATA_TYPE_INT16,   DML_TENSOR_DATA_TYPE_INT8,
                             DML_TENSOR_DATA_TYPE_UINT64,  DML_TENSOR_DATA_TYPE_UINT32,  DML_TENSOR_DATA_TYPE_UINT16,
                             DML_TENSOR_DATA_TYPE_UINT8};
constexpr Types kFloatTypes = {DML_TENSOR_DATA_TYPE_FLOAT32, DML_TENSOR_DATA_TYPE_FLOAT16};
// L1, SUM_SQUARE, MULTIPLY and SUM.
constexpr Types kArithmeticTypes = {DML_TENSOR_DATA_TYPE_FLOAT32, DML_TENSOR_DATA_TYPE_FLOAT16,
                                    DML_TENSOR_DATA_TYPE_INT64,   DML_TENSOR_DATA_TYPE_INT32,
                                    DML_TENSOR_DATA_TYPE_UINT64,  DML_TENSOR_DATA_TYPE_UINT32};
constexpr Types kIndexTypes = {DML_TENSOR_DATA_TYPE_INT64, DML_TENSOR_DATA_TYPE_INT32, DML_TENSOR_DATA_TYPE_UINT64,
                               DML_TENSOR_DATA_TYPE_UINT32};

// AxisCount axes, each in [0, DimensionCount) and none repeated; OutputTensor has InputTensor's
// rank, size 1 on each reduced axis and InputTensor's size on every other.
Status ValidateAxesAndShape(const OperatorArgs& args, uint32_t axisCount, const UINT* axes) {
    const TensorDesc& input = *args.inputs[0];
    const TensorDesc& output = *args.outputs[0];
    const uint32_t rank = input.rank;
    INVALID_IF(axisCount == 0 || axisCount > rank, "AxisCount (%u) must be 1 to InputTensor's DimensionCount (%u).",
               axisCount, rank);
    INVALID_IF(!axes, "Axes is null but AxisCount is %u.", axisCount);
    bool reduced[kMaxTensorRank] = {};
    for (uint32_t i = 0; i < axisCount; ++i) {
        const uint32_t axis = axes[i];
        INVALID_IF(axis >= rank, "Axes[%u] (%u) is outside [0, %u), InputTensor's dimensions.", i, axis, rank);
        INVALID_IF(reduced[axis], "Axes[%u] (%u) repeats an axis; each axis may appear once.", i, axis);
        reduced[axis] = true;
    }
    INVALID_IF(output.rank != rank,
               "OutputTensor has DimensionCount %u, but InputTensor has %u; DML_OPERATOR_%s keeps the rank.",
               output.rank, rank, args.schema.name);
    for (uint32_t d = 0; d < rank; ++d) {
        const uint32_t want = reduced[d] ? 1 : input.sizes[d];
        INVALID_IF(output.sizes[d] != want,
                   "OutputTensor has sizes %s for InputTensor's %s: dimension %u must be %u (%s).",
                   SizesToString(output).c_str(), SizesToString(input).c_str(), d, want,
                   reduced[d] ? "a reduced axis" : "not a reduced axis, so InputTensor's size");
    }
    return {};
}

// An index output: InputTensor any of the ten types, OutputTensor one of the index types.
Status ValidateIndexTypes(const OperatorArgs& args, const char* what) {
    const DML_TENSOR_DATA_TYPE in = args.inputs[0]->dataType, out = args.outputs[0]->dataType;
    INVALID_IF(!DataTypeIn(kAllTypes, in), "InputTensor has data type %s; %s accepts %s.", DataTypeName(in), what,
               DataTypeListToString(kAllTypes).c_str());
    INVALID_IF(!DataTypeIn(kIndexTypes, out), "OutputTensor has data type %s; %s writes indices as %s.", DataTypeName(out),
               what, DataTypeListToString(kIndexTypes).c_str());
    return {};
}

Status ValidateReduce(const OperatorArgs& args) {
    const auto& desc = args.As<DML_REDUCE_OPERATOR_DESC>();
    FREEDML_TRY(ValidateAxesAndShape(args, desc.AxisCount, desc.Axes));
    const DML_TENSOR_DATA_TYPE in = args.inputs[0]->dataType, out = args.outputs[0]->dataType;
    Types allowed = kAllTypes;
    const char* name = kReduceFunction.NameOf(desc.Function);
    switch (desc.Function) {
        case DML_REDUCE_FUNCTION_ARGMAX:
        case DML_REDUCE_FUNCTION_ARGMIN:
            return ValidateIndexTypes(args, name);
        case DML_REDUCE_FUNCTION_AVERAGE:
        case DML_REDUCE_FUNCTION_L2:
        case DML_REDUCE_FUNCTION_LOG_SUM:
        case DML_REDUCE_FUNCTION_LOG_SUM_EXP:
            allowed = kFloatTypes;
            break;
        case DML_REDUCE_FUNCTION_L1:
        case DML_REDUCE_FUNCTION_SUM_SQUARE:
        case DML_REDUCE_FUNCTION_MULTIPLY:
        case DML_REDUCE_FUNCTION_SUM:
            allowed = kArithmeticTypes;
            break;
        default:  // MAX and MIN
            break;
    }
    INVALID_IF(!DataTypeIn(allowed, in), "InputTensor has data type %s; Function %s accepts %s.", DataTypeName(in), name,
               DataTypeListToString(allowed).c_str());
    INVALID_IF(out != in, "OutputTensor has data type %s, but InputTensor is %s; Function %s needs them to match.",
               DataTypeName(out), DataTypeName(in), name);
    return {};
}

template <class Desc>
Status ValidateArgExtreme(const OperatorArgs& args) {
    const auto& desc = args.As<Desc>();
    FREEDML_TRY(ValidateAxesAndShape(args, desc.AxisCount, desc.Axes));
    return ValidateIndexTypes(args, args.schema.type == DML_OPERATOR_ARGMIN ? "DML_OPERATOR_ARGMIN"
                                                                             : "DML_OPERATOR_ARGMAX");
}

const OperatorSchema kReduce{
    .type = DML_OPERATOR_REDUCE,
    .name = "REDUCE",
    .featureLevel = DML_FEATURE_LEVEL_1_0,
    .descSize = sizeof(DML_REDUCE_OPERATOR_DESC),
    .fields = {DML_FIELD(DML_REDUCE_OPERATOR_DESC, Function, Enum, .enumType = &kReduceFunction),
               DML_FIELD(DML_REDUCE_OPERATOR_DESC, InputTensor, InputTensor),
               DML_FIELD(DML_REDUCE_OPERATOR_DESC, OutputTensor, OutputTensor),
               DML_FIELD(DML_REDUCE_OPERATOR_DESC, AxisCount, UInt),
               DML_FIELD(DML_REDUCE_OPERATOR_DESC, Axes, UIntArray, .countField = "AxisCount")},
    .validate = ValidateReduce,
};

#define ARG_SCHEMA(NAME)                                                                               \
    const OperatorSchema k##NAME{                                                                      \
        .type = DML_OPERATOR_##NAME,                                                                   \
        .name = #NAME,                                                                                 \
        .featureLevel = DML_FEATURE_LEVEL_3_0,                                                         \
        .descSize = sizeof(DML_##NAME##_OPERATOR_DESC),                                                \
        .fields = {DML_FIELD(DML_##NAME##_OPERATOR_DESC, InputTensor, InputTensor),                    \
                   DML_FIELD(DML_##NAME##_OPERATOR_DESC, OutputTensor, OutputTensor),                  \
                   DML_FIELD(DML_##NAME##_OPERATOR_DESC, AxisCount, UInt),                             \
                   DML_FIELD(DML_##NAME##_OPERATOR_DESC, Axes, UIntArray, .countField = "AxisCount"),  \
                   DML_FIELD(DML_##NAME##_OPERATOR_DESC, AxisDirection, Enum, .enumType = &kAxisDirection)}, \
        .validate = ValidateArgExtreme<DML_##NAME##_OPERATOR_DESC>,                                    \
    }

ARG_SCHEMA(ARGMIN);
ARG_SCHEMA(ARGMAX);

#undef ARG_SCHEMA

// CUMULATIVE_SUMMATION and CUMULATIVE_PRODUCT: Axis inside the input's dimensions, input and output
// of one data type and one shape.
template <class Desc>
Status ValidateScan(const OperatorArgs& args) {
    const uint32_t axis = args.As<Desc>().Axis;
    const uint32_t rank = args.inputs[0]->rank;
    INVALID_IF(axis >= rank, "Axis (%u) must be less than InputTensor's DimensionCount (%u).", axis, rank);
    FREEDML_TRY(ValidateDataTypeIn(args, kArithmeticTypes));
    FREEDML_TRY(ValidateSameDataType(args));
    return ValidateSameSizes(args);
}

#define SCAN_SCHEMA(NAME, LEVEL, EXCLUSIVE)                                                            \
    const OperatorSchema k##NAME{                                                                      \
        .type = DML_OPERATOR_##NAME,                                                                   \
        .name = #NAME,                                                                                 \
        .featureLevel = LEVEL,                                                                         \
        .descSize = sizeof(DML_##NAME##_OPERATOR_DESC),                                                \
        .fields = {DML_FIELD(DML_##NAME##_OPERATOR_DESC, InputTensor, InputTensor),                    \
                   DML_FIELD(DML_##NAME##_OPERATOR_DESC, OutputTensor, OutputTensor),                  \
                   DML_FIELD(DML_##NAME##_OPERATOR_DESC, Axis, UInt),                                  \
                   DML_FIELD(DML_##NAME##_OPERATOR_DESC, AxisDirection, Enum, .enumType = &kAxisDirection), \
                   DML_FIELD(DML_##NAME##_OPERATOR_DESC, EXCLUSIVE, Bool)},                            \
        .supportsInPlaceExecution = true,                                                              \
        .validate = ValidateScan<DML_##NAME##_OPERATOR_DESC>,                                          \
    }

SCAN_SCHEMA(CUMULATIVE_SUMMATION, DML_FEATURE_LEVEL_2_1, HasExclusiveSum);
SCAN_SCHEMA(CUMULATIVE_PRODUCT, DML_FEATURE_LEVEL_3_1, HasExclusiveProduct);

#undef SCAN_SCHEMA

// TOP_K and TOP_K1: Axis inside InputTensor's dimensions; 0 < K <= InputTensor's size along Axis
// (the pages say "less than" the size; ONNX's TopK, which TOP_K serves, allows K equal to it, and
// so does FreeDML); both outputs have InputTensor's rank and sizes except K along Axis;
// OutputValueTensor has InputTensor's data type, OutputIndexTensor is UINT32 or UINT64.
template <class Desc>
Status ValidateTopK(const OperatorArgs& args) {
    const auto& desc = args.As<Desc>();
    const TensorDesc& input = *args.inputs[0];
    const uint32_t rank = input.rank;
    INVALID_IF(desc.Axis >= rank, "Axis (%u) must be less than InputTensor's DimensionCount (%u).", desc.Axis, rank);
    const uint32_t length = input.sizes[desc.Axis];
    INVALID_IF(desc.K == 0 || desc.K > length, "K (%u) must be 1 to InputTensor's size along Axis %u (%u).", desc.K,
               desc.Axis, length);
    for (size_t o = 0; o < 2; ++o) {
        const TensorDesc& out = *args.outputs[o];
        const char* name = args.outputNames[o].c_str();
        INVALID_IF(out.rank != rank, "%s has DimensionCount %u, but InputTensor has %u; they must match.", name,
                   out.rank, rank);
        for (uint32_t d = 0; d < rank; ++d) {
            const uint32_t want = d == desc.Axis ? desc.K : input.sizes[d];
            INVALID_IF(out.sizes[d] != want, "%s has sizes %s for InputTensor's %s and K %u: dimension %u must be %u.",
                       name, SizesToString(out).c_str(), SizesToString(input).c_str(), desc.K, d, want);
        }
    }
    const DML_TENSOR_DATA_TYPE in = input.dataType, values = args.outputs[0]->dataType,
                               indices = args.outputs[1]->dataType;
    INVALID_IF(!DataTypeIn(kAllTypes, in), "InputTensor has data type %s; DML_OPERATOR_%s accepts %s.", DataTypeName(in),
               args.schema.name, DataTypeListToString(kAllTypes).c_str());
    INVALID_IF(values != in, "OutputValueTensor has data type %s, but InputTensor is %s; they must match.",
               DataTypeName(values), DataTypeName(in));
    INVALID_IF(indices != DML_TENSOR_DATA_TYPE_UINT32 && indices != DML_TENSOR_DATA_TYPE_UINT64,
               "OutputIndexTensor has data type %s; DML_OPERATOR_%s writes indices as UINT32 or UINT64.",
               DataTypeName(indices), args.schema.name);
    return {};
}

const OperatorSchema kTopK{
    .type = DML_OPERATOR_TOP_K,
    .name = "TOP_K",
    .featureLevel = DML_FEATURE_LEVEL_1_0,
    .descSize = sizeof(DML_TOP_K_OPERATOR_DESC),
    .fields = {DML_FIELD(DML_TOP_K_OPERATOR_DESC, InputTensor, InputTensor),
               DML_FIELD(DML_TOP_K_OPERATOR_DESC, OutputValueTensor, OutputTensor),
               DML_FIELD(DML_TOP_K_OPERATOR_DESC, OutputIndexTensor, OutputTensor),
               DML_FIELD(DML_TOP_K_OPERATOR_DESC, Axis, UInt), DML_FIELD(DML_TOP_K_OPERATOR_DESC, K, UInt)},
    .validate = ValidateTopK<DML_TOP_K_OPERATOR_DESC>,
};

const OperatorSchema kTopK1{
    .type = DML_OPERATOR_TOP_K1,
    .name = "TOP_K1",
    .featureLevel = DML_FEATURE_LEVEL_2_1,
    .descSize = sizeof(DML_TOP_K1_OPERATOR_DESC),
    .fields = {DML_FIELD(DML_TOP_K1_OPERATOR_DESC, InputTensor, InputTensor),
               DML_FIELD(DML_TOP_K1_OPERATOR_DESC, OutputValueTensor, OutputTensor),
               DML_FIELD(DML_TOP_K1_OPERATOR_DESC, OutputIndexTensor, OutputTensor),
               DML_FIELD(DML_TOP_K1_OPERATOR_DESC, Axis, UInt), DML_FIELD(DML_TOP_K1_OPERATOR_DESC, K, UInt),
               DML_FIELD(DML_TOP_K1_OPERATOR_DESC, AxisDirection, Enum, .enumType = &kAxisDirection)},
    .validate = ValidateTopK<DML_TOP_K1_OPERATOR_DESC>,
};

const OperatorSchema* const kSchemas[] = {&kReduce, &kARGMIN, &kARGMAX, &kCUMULATIVE_SUMMATION, &kCUMULATIVE_PRODUCT,
                                          &kTopK, &kTopK1};

}  // namespace

std::span<const OperatorSchema* const> ReductionSchemas() { return kSchemas; }

}  // namespace freedml::dml
