// Plans of ONE_HOT, DIAGONAL_MATRIX and DIAGONAL_MATRIX1 (generator_args.h).
#include <cmath>
#include <cstring>
#include <limits>

#include "dml/kernels/cpu/float16.h"
#include "dml/ops/generators/generator_args.h"

namespace freedml::dml::generators {

namespace {

// DIAGONAL_MATRIX's FLOAT Value as bits of the output's type. The page: integer types take the
// value truncated (10.6 becomes 10). It says nothing of values outside the type's range; FreeDML
// saturates them to the type's limits (and NaN to 0), as a float-to-integer CAST does.
template <class T>
uint64_t IntegerBits(float value) {
    double v = std::trunc(double(value));
    if (v != v) v = 0;
    const double lo = double(std::numeric_limits<T>::min()), hi = double(std::numeric_limits<T>::max());
    T t;
    if (v <= lo) {
        t = std::numeric_limits<T>::min();
    } else if (v >= hi) {
        t = std::numeric_limits<T>::max();
    } else {
        t = T(v);
    }
    uint64_t bits = 0;
    std::memcpy(&bits, &t, sizeof(T));
    return bits;
}

uint64_t FloatValueBits(DML_TENSOR_DATA_TYPE type, float value) {
    uint64_t bits = 0;
    switch (type) {
        case DML_TENSOR_DATA_TYPE_FLOAT64: {
            const double d = value;
            std::memcpy(&bits, &d, 8);
            return bits;
        }
        case DML_TENSOR_DATA_TYPE_FLOAT32: std::memcpy(&bits, &value, 4); return bits;
        case DML_TENSOR_DATA_TYPE_FLOAT16: return cpu::FloatToHalf(value);
        case DML_TENSOR_DATA_TYPE_INT64: return IntegerBits<int64_t>(value);
        case DML_TENSOR_DATA_TYPE_INT32: return IntegerBits<int32_t>(value);
        case DML_TENSOR_DATA_TYPE_INT16: return IntegerBits<int16_t>(value);
        case DML_TENSOR_DATA_TYPE_INT8: return IntegerBits<int8_t>(value);
        case DML_TENSOR_DATA_TYPE_UINT64: return IntegerBits<uint64_t>(value);
        case DML_TENSOR_DATA_TYPE_UINT32: return IntegerBits<uint32_t>(value);
        case DML_TENSOR_DATA_TYPE_UINT16: return IntegerBits<uint16_t>(value);
        default: return IntegerBits<uint8_t>(value);
    }
}

}  // namespace

int64_t OnValueOffset(const TensorDesc& values) {
    for (uint32_t d = values.rank; d-- > 0;) {
        if (values.sizes[d] > 1) return int64_t(values.strides[d]);
    }
    return 0;  // never: validation asks for two elements
}

Status MakeGenPlan(const OperatorArgs& args, GenPlan* plan) {
    const TensorDesc& output = *args.outputs[0];
    *plan = GenPlan{};
    plan->rank = output.rank;
    plan->elementSize = ElementSizeInBytes(output.dataType);
    for (uint32_t d = 0; d < output.rank; ++d) {
        plan->sizes[d] = output.sizes[d];
        plan->outStrides[d] = output.strides[d];
        plan->count *= output.sizes[d];
    }
    switch (args.schema.type) {
        case DML_OPERATOR_ONE_HOT: {
            const auto& desc = args.As<DML_ONE_HOT_OPERATOR_DESC>();
            const TensorDesc& indices = *args.inputs[0];
            plan->mode = GenMode::OneHot;
            plan->axis = desc.Axis;
            plan->hasSource = true;
            for (uint32_t d = 0; d < output.rank; ++d) plan->srcStrides[d] = d == desc.Axis ? 0 : indices.strides[d];
            switch (indices.dataType) {
                case DML_TENSOR_DATA_TYPE_INT32: plan->indexType = IndexType::I32; break;
                case DML_TENSOR_DATA_TYPE_INT64: plan->indexType = IndexType::I64; break;
                case DML_TENSOR_DATA_TYPE_UINT64: plan->indexType = IndexType::U64; break;
                default: plan->indexType = IndexType::U32; break;
            }
            return {};
        }
        case DML_OPERATOR_DIAGONAL_MATRIX: {
            const auto& desc = args.As<DML_DIAGONAL_MATRIX_OPERATOR_DESC>();
            plan->fillBegin = desc.Offset;
            plan->fillEnd = int64_t(desc.Offset) + 1;
            plan->valueBits = FloatValueBits(output.dataType, desc.Value);
            return {};
        }
        default: {
            const auto& desc = args.As<DML_DIAGONAL_MATRIX1_OPERATOR_DESC>();
            plan->fillBegin = desc.DiagonalFillBegin;
            plan->fillEnd = desc.DiagonalFillEnd;
            std::memcpy(&plan->valueBits, desc.Value.Bytes, plan->elementSize);
            if (args.inputs[0]) {
                plan->hasSource = true;
                for (uint32_t d = 0; d < output.rank; ++d) plan->srcStrides[d] = args.inputs[0]->strides[d];
            }
            return {};
        }
    }
}

NonzeroPlan MakeNonzeroPlan(const OperatorArgs& args) {
    const TensorDesc& input = *args.inputs[0];
    const TensorDesc& coords = *args.outputs[1];
    NonzeroPlan plan;
    plan.rank = input.rank;
    for (uint32_t d = 0; d < input.rank; ++d) {
        plan.sizes[d] = input.sizes[d];
        plan.inStrides[d] = input.strides[d];
        plan.count *= input.sizes[d];
    }
    plan.elementSize = ElementSizeInBytes(input.dataType);
    switch (input.dataType) {
        case DML_TENSOR_DATA_TYPE_FLOAT32: plan.zeroMask = 0x7fffffffu; break;
        case DML_TENSOR_DATA_TYPE_FLOAT16: plan.zeroMask = 0x7fffu; break;
        default: plan.zeroMask = plan.elementSize == 8 ? ~uint64_t(0) : (uint64_t(1) << (8 * plan.elementSize)) - 1;
    }
    plan.columns = coords.sizes[coords.rank - 1];
    plan.rowStride = coords.strides[coords.rank - 2];
    plan.columnStride = coords.strides[coords.rank - 1];
    return plan;
}

RandomPlan MakeRandomPlan(const OperatorArgs& args) {
    const TensorDesc& output = *args.outputs[0];
    RandomPlan plan;
    plan.rank = output.rank;
    for (uint32_t d = 0; d < output.rank; ++d) {
        plan.sizes[d] = output.sizes[d];
        plan.outStrides[d] = output.strides[d];
        plan.count *= output.sizes[d];
    }
    const TensorDesc& state = *args.inputs[0];
    plan.stateStride = state.strides[state.rank - 1];
    if (args.outputs[1]) {
        plan.writesState = true;
        plan.nextStateStride = args.outputs[1]->strides[args.outputs[1]->rank - 1];
    }
    return plan;
}

}  // namespace freedml::dml::generators
