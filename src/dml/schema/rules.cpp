// Validation rules shared by several operator families.
#include <algorithm>

#include "dml/schema/families.h"

namespace freedml::dml {

std::string SizesToString(const TensorDesc& tensor) {
    std::string text = "{";
    for (uint32_t i = 0; i < tensor.rank; ++i) {
        text += (i ? ", " : "") + std::to_string(tensor.sizes[i]);
    }
    return text + "}";
}

namespace {
template <class Visit>
Status ForEachTensor(const OperatorArgs& args, Visit visit) {
    for (size_t i = 0; i < args.inputs.size(); ++i) {
        if (args.inputs[i]) FREEDML_TRY(visit(*args.inputs[i], args.inputNames[i]));
    }
    for (size_t i = 0; i < args.outputs.size(); ++i) {
        if (args.outputs[i]) FREEDML_TRY(visit(*args.outputs[i], args.outputNames[i]));
    }
    return {};
}

const std::optional<TensorDesc>& FirstOutput(const OperatorArgs& args) { return args.outputs.front(); }
}  // namespace

Status ValidateSameDataType(const OperatorArgs& args) {
    const TensorDesc& reference = *FirstOutput(args);
    return ForEachTensor(args, [&](const TensorDesc& tensor, const std::string& name) -> Status {
        INVALID_IF(tensor.dataType != reference.dataType, "%s has data type %s, but %s is %s; they must match.",
                   name.c_str(), DataTypeName(tensor.dataType), args.outputNames.front().c_str(),
                   DataTypeName(reference.dataType));
        return {};
    });
}

Status ValidateSameSizes(const OperatorArgs& args) {
    const TensorDesc& reference = *FirstOutput(args);
    return ForEachTensor(args, [&](const TensorDesc& tensor, const std::string& name) -> Status {
        bool same = tensor.rank == reference.rank &&
                    std::equal(tensor.sizes.begin(), tensor.sizes.begin() + tensor.rank, reference.sizes.begin());
        INVALID_IF(!same, "%s has sizes %s, but %s has %s; they must match (broadcast with zero strides).",
                   name.c_str(), SizesToString(tensor).c_str(), args.outputNames.front().c_str(),
                   SizesToString(reference).c_str());
        return {};
    });
}

std::string DataTypeListToString(std::initializer_list<DML_TENSOR_DATA_TYPE> types) {
    std::string list;
    for (auto type : types) list += (list.empty() ? "" : ", ") + std::string(DataTypeName(type));
    return list;
}

bool DataTypeIn(std::initializer_list<DML_TENSOR_DATA_TYPE> types, DML_TENSOR_DATA_TYPE type) {
    return std::find(types.begin(), types.end(), type) != types.end();
}

Status ValidateDataTypeIn(const OperatorArgs& args, std::initializer_list<DML_TENSOR_DATA_TYPE> allowed) {
    return ForEachTensor(args, [&](const TensorDesc& tensor, const std::string& name) -> Status {
        if (DataTypeIn(allowed, tensor.dataType)) return {};
        return Error(E_INVALIDARG, "%s has data type %s; DML_OPERATOR_%s accepts %s.", name.c_str(),
                     DataTypeName(tensor.dataType), args.schema.name, DataTypeListToString(allowed).c_str());
    });
}

}  // namespace freedml::dml
