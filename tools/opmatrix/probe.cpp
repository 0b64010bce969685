#include "probe.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <deque>
#include <memory>

namespace freedml::opmatrix {

using namespace freedml::dml;

namespace {

constexpr DML_FEATURE_LEVEL kProbeLevel = DML_FEATURE_LEVEL_6_4;

// How plain attribute values are chosen. The probe tries these in order and keeps the first
// under which some data type assignment validates: shape rules differ between operators (a
// JOIN of one input, a convolution with two spatial dimensions), types do not.
struct Profile {
    uint32_t uintValue;         // UINT fields that count nothing (Axis, GroupCount...)
    uint32_t arrayCount;        // count fields of UINT/INT/FLOAT arrays (DimensionCount, AxisCount)
    uint32_t tensorArrayCount;  // count fields of tensor arrays (InputCount of JOIN)
    size_t enumIndex = 0;       // which value of each enum (the last one when there are fewer)
    uint32_t lastSize = 1;      // every tensor's last size (the others are 1)
};
// The last profiles give every tensor a longer last dimension, for operators whose rules ask for
// more than one element somewhere (ONE_HOT's two values, RANDOM_GENERATOR's six-word state).
constexpr Profile kShapes[] = {
    {1, 2, 1}, {1, 2, 2}, {0, 2, 1}, {1, 1, 1}, {0, 1, 1}, {1, 4, 1}, {0, 4, 1}, {1, 1, 2}, {0, 2, 2},
    {0, 2, 1, 0, 2}, {1, 2, 1, 0, 2}, {0, 2, 1, 0, 6}, {1, 2, 1, 0, 6},
};

// Operators whose shape rules tie tensors of different sizes together (the recurrent layers'
// gates * hidden_size rows and 2 * gates * hidden_size biases), which the profiles' one shape for
// every tensor cannot meet: the sizes of such a tensor, and the value of such a count field. Each
// recurrent one describes seq_length, batch_size, input_size and hidden_size 1, one direction; the
// region operators get one region row (four coordinates, five with ROI_POOLING's batch).
struct FieldOverride {
    const char* op;
    const char* field;
    std::array<UINT, 5> sizes;  // tensors: four sizes, or five where the fifth is not 0
    uint32_t value;             // count fields
    UINT Rank() const { return sizes[4] ? 5 : 4; }
};
constexpr FieldOverride kOverrides[] = {
    {"RNN", "BiasTensor", {1, 1, 1, 2}, 0},
    {"RNN", "ActivationDescCount", {}, 1},
    {"LSTM", "WeightTensor", {1, 1, 4, 1}, 0},
    {"LSTM", "RecurrenceTensor", {1, 1, 4, 1}, 0},
    {"LSTM", "BiasTensor", {1, 1, 1, 8}, 0},
    {"LSTM", "PeepholeTensor", {1, 1, 1, 3}, 0},
    {"LSTM", "ActivationDescCount", {}, 3},
    {"GRU", "WeightTensor", {1, 1, 3, 1}, 0},
    {"GRU", "RecurrenceTensor", {1, 1, 3, 1}, 0},
    {"GRU", "BiasTensor", {1, 1, 1, 6}, 0},
    {"GRU", "ActivationDescCount", {}, 2},
    {"ROI_POOLING", "ROITensor", {1, 1, 1, 5}, 0},
    {"ROI_ALIGN", "ROITensor", {1, 1, 1, 4}, 0},
    {"ROI_ALIGN1", "ROITensor", {1, 1, 1, 4}, 0},
    {"ROI_ALIGN_GRAD", "ROITensor", {1, 1, 1, 4}, 0},
    {"ROI_ALIGN_GRAD", "OutputROIGradientTensor", {1, 1, 1, 4}, 0},
    // Attention with batch, sequences, heads and head size 1: stacked tensors hold 2 or 3 of them
    // along their fourth of five dimensions; the bias is query, key and value biases in a row.
    {"MULTIHEAD_ATTENTION", "StackedQueryKeyTensor", {1, 1, 1, 2, 1}, 0},
    {"MULTIHEAD_ATTENTION", "StackedKeyValueTensor", {1, 1, 1, 2, 1}, 0},
    {"MULTIHEAD_ATTENTION", "StackedQueryKeyValueTensor", {1, 1, 1, 3, 1}, 0},
    {"MULTIHEAD_ATTENTION", "BiasTensor", {1, 1, 1, 3}, 0},
    {"MULTIHEAD_ATTENTION", "OutputPresentKeyTensor", {1, 1, 2, 1}, 0},  // past and new key: 2
    {"MULTIHEAD_ATTENTION", "OutputPresentValueTensor", {1, 1, 2, 1}, 0},
    {"MULTIHEAD_ATTENTION1", "StackedQueryKeyTensor", {1, 1, 1, 2, 1}, 0},
    {"MULTIHEAD_ATTENTION1", "StackedKeyValueTensor", {1, 1, 1, 2, 1}, 0},
    {"MULTIHEAD_ATTENTION1", "StackedQueryKeyValueTensor", {1, 1, 1, 3, 1}, 0},
    {"MULTIHEAD_ATTENTION1", "BiasTensor", {1, 1, 1, 3}, 0},
    {"MULTIHEAD_ATTENTION1", "OutputPresentKeyTensor", {1, 1, 2, 1}, 0},
    {"MULTIHEAD_ATTENTION1", "OutputPresentValueTensor", {1, 1, 2, 1}, 0},
};

// Operators whose optional tensors exclude one another (attention's separate and stacked query,
// key and value; past key and value with the present outputs; a mask only with a mask type):
// where a desc with every tensor fails, the probe starts from each of these sets of optional
// tensors (the others left out) and then adds the others back one at a time. Operators not
// listed start from no optional tensor at all.
struct PresentSet {
    const char* op;
    std::array<const char*, 8> fields;  // null: fewer
};
#define FREEDML_ATTENTION_SETS(OP)                                                                             \
    {OP, {"QueryTensor", "KeyTensor", "ValueTensor"}}, {OP, {"StackedQueryKeyValueTensor"}},                 \
        {OP, {"StackedQueryKeyTensor", "ValueTensor"}}, {OP, {"QueryTensor", "StackedKeyValueTensor"}},      \
        {OP, {"QueryTensor", "KeyTensor", "ValueTensor", "MaskTensor"}},                                      \
        {OP, {"QueryTensor", "KeyTensor", "ValueTensor", "PastKeyTensor", "PastValueTensor",                  \
              "OutputPresentKeyTensor", "OutputPresentValueTensor", "PastSequenceLengthsTensor"}},             \
        {OP, {"QueryTensor", "KeyTensor", "ValueTensor", "PastKeyTensor", "PastValueTensor",                  \
              "OutputPresentKeyTensor", "OutputPresentValueTensor"}}
constexpr PresentSet kPresentSets[] = {
    FREEDML_ATTENTION_SETS("MULTIHEAD_ATTENTION"),
    FREEDML_ATTENTION_SETS("MULTIHEAD_ATTENTION1"),
};
#undef FREEDML_ATTENTION_SETS
const FieldOverride* FindOverride(const OperatorSchema& schema, const char* field) {
    for (const auto& o : kOverrides) {
        if (std::strcmp(o.op, schema.name) == 0 && std::strcmp(o.field, field) == 0) return &o;
    }
    return nullptr;
}

bool IsTensorKind(FieldKind kind) {
    return kind == FieldKind::InputTensor || kind == FieldKind::OutputTensor || kind == FieldKind::InputTensorArray ||
           kind == FieldKind::OutputTensorArray;
}
bool IsOutputKind(FieldKind kind) { return kind == FieldKind::OutputTensor || kind == FieldKind::OutputTensorArray; }

const FieldSchema* FindField(const OperatorSchema& schema, const char* name) {
    if (!name) return nullptr;
    for (const auto& field : schema.fields) {
        if (std::strcmp(field.name, name) == 0) return &field;
    }
    return nullptr;
}

// The field is some array's element count; the value says which kind of array.
enum class CountOf { Nothing, Values, Tensors };
CountOf CountRole(const OperatorSchema& schema, const FieldSchema& candidate) {
    for (const auto& field : schema.fields) {
        if (!field.countField || std::strcmp(field.countField, candidate.name) != 0) continue;
        return IsTensorKind(field.kind) ? CountOf::Tensors : CountOf::Values;
    }
    return CountOf::Nothing;
}

template <class T>
void Store(std::vector<unsigned char>& desc, size_t offset, T value) {
    std::memcpy(desc.data() + offset, &value, sizeof(T));
}
template <class T>
T Load(const std::vector<unsigned char>& desc, size_t offset) {
    T value;
    std::memcpy(&value, desc.data() + offset, sizeof(T));
    return value;
}

// Builds one desc for a data type assignment (one type per tensor field) and validates it.
class ProbeDesc {
public:
    // One tensor of the desc: a tensor field, or one element of a tensor array.
    struct Slot {
        const FieldSchema* field;
        bool isOutput;
    };

    // `absent`: optional tensor fields left null.
    ProbeDesc(const OperatorSchema& schema, const Profile& profile, std::vector<const FieldSchema*> absent = {})
        : schema_(schema), profile_(profile), absent_(std::move(absent)) {
        for (const auto& field : schema.fields) {
            if (!IsTensorKind(field.kind) || IsAbsent(field)) continue;
            const bool isArray = field.kind == FieldKind::InputTensorArray || field.kind == FieldKind::OutputTensorArray;
            const uint32_t count = isArray ? profile.tensorArrayCount : 1;
            for (uint32_t i = 0; i < count; ++i) slots_.push_back({&field, IsOutputKind(field.kind)});
        }
    }
    const std::vector<Slot>& Slots() const { return slots_; }
    bool IsAbsent(const FieldSchema& field) const {
        return std::find(absent_.begin(), absent_.end(), &field) != absent_.end();
    }

    Status Validate(const std::vector<DML_TENSOR_DATA_TYPE>& types) {
        buffers_.clear();
        tensors_.clear();
        words_.clear();
        activations_.clear();
        std::vector<unsigned char> desc(schema_.descSize, 0);
        // The typed-scalar fields follow the first output's type.
        DML_TENSOR_DATA_TYPE outputType = types.empty() ? DML_TENSOR_DATA_TYPE_FLOAT32 : types.front();
        for (size_t i = 0; i < slots_.size(); ++i) {
            if (slots_[i].isOutput) {
                outputType = types[i];
                break;
            }
        }
        // Scalars first: the arrays below read their counts from the desc.
        for (const auto& field : schema_.fields) {
            switch (field.kind) {
                case FieldKind::UInt: {
                    if (const FieldOverride* o = FindOverride(schema_, field.name)) {
                        Store<uint32_t>(desc, field.offset, o->value);
                        break;
                    }
                    CountOf role = CountRole(schema_, field);
                    // No batch dimensions: GATHER_ND1 needs fewer than its other dimension counts.
                    const bool batch = std::strstr(field.name, "BatchDimensionCount") != nullptr;
                    Store<uint32_t>(desc, field.offset,
                                    role == CountOf::Tensors  ? profile_.tensorArrayCount
                                    : role == CountOf::Values ? profile_.arrayCount
                                    : batch                   ? 0u
                                                              : profile_.uintValue);
                    break;
                }
                case FieldKind::Float:
                    Store<float>(desc, field.offset, 1.0f);
                    break;
                case FieldKind::Enum: {
                    uint32_t value = 0;
                    if (field.enumType == &TensorDataTypeEnum()) {
                        value = outputType;  // the typed-scalar fields follow the output's type
                    } else if (field.enumType && !field.enumType->values.empty()) {
                        const auto& values = field.enumType->values;
                        value = values[std::min(profile_.enumIndex, values.size() - 1)].value;
                    }
                    Store<uint32_t>(desc, field.offset, value);
                    break;
                }
                case FieldKind::Size2D:
                    Store<DML_SIZE_2D>(desc, field.offset, DML_SIZE_2D{1, 1});
                    break;
                default:
                    break;  // Int, Bool, ScalarUnion: zero; pointers: null until set below
            }
        }
        size_t slot = 0;
        for (const auto& field : schema_.fields) {
            const FieldSchema* countField = FindField(schema_, field.countField);
            const uint32_t count = countField ? Load<uint32_t>(desc, countField->offset) : 0;
            switch (field.kind) {
                case FieldKind::InputTensor:
                case FieldKind::OutputTensor:
                    if (IsAbsent(field)) break;  // null
                    Store<const DML_TENSOR_DESC*>(desc, field.offset,
                                                  MakeTensors(&types[slot], 1, FindOverride(schema_, field.name)));
                    slot += 1;
                    break;
                case FieldKind::InputTensorArray:
                case FieldKind::OutputTensorArray:
                    Store<const DML_TENSOR_DESC*>(desc, field.offset, MakeTensors(&types[slot], count));
                    slot += count;
                    break;
                case FieldKind::UIntArray:
                case FieldKind::IntArray: {
                    // Padding and slice offsets of zero keep every output {1,1,1,1} and every read
                    // inside the input; strides, windows, repeats and axes of one.
                    const bool zero =
                        std::strstr(field.name, "Padding") != nullptr || std::strstr(field.name, "Offsets") != nullptr;
                    Store<const uint32_t*>(desc, field.offset, MakeWords(count, zero ? 0u : 1u));
                    break;
                }
                case FieldKind::OperatorDescArray: {
                    // Sigmoids, which every operator with an activation array accepts.
                    auto& descs = activations_.emplace_back(std::max<uint32_t>(count, 1));
                    for (auto& d : descs) d = DML_OPERATOR_DESC{DML_OPERATOR_ACTIVATION_SIGMOID, &sigmoid_};
                    Store<const DML_OPERATOR_DESC*>(desc, field.offset, descs.data());
                    break;
                }
                case FieldKind::FloatArray: {
                    uint32_t one;
                    const float value = 1.0f;
                    std::memcpy(&one, &value, sizeof(one));
                    Store<const uint32_t*>(desc, field.offset, MakeWords(count, one));
                    break;
                }
                default:
                    break;
            }
        }
        DML_OPERATOR_DESC op{schema_.type, desc.data()};
        std::unique_ptr<OwnedOperatorDesc> owned;
        FREEDML_TRY(OwnedOperatorDesc::Copy(op, &owned));
        std::unique_ptr<OperatorArgs> args;
        return ValidateOperatorDesc(*owned, kProbeLevel, &args);
    }

private:
    // `types` holds one type per tensor of the field (array elements each have their own).
    const DML_TENSOR_DESC* MakeTensors(const DML_TENSOR_DATA_TYPE* types, uint32_t count,
                                       const FieldOverride* sizes = nullptr) {
        auto& list = tensors_.emplace_back(std::max<uint32_t>(count, 1));
        for (uint32_t i = 0; i < count; ++i) {
            auto& tensor = list[i];
            auto& buffer = buffers_.emplace_back();
            buffer.DataType = types[i];
            buffer.Flags = DML_TENSOR_FLAG_NONE;
            buffer.DimensionCount = sizes ? sizes->Rank() : 4;
            buffer.Sizes = sizes ? sizes->sizes.data() : sizes_;
            buffer.Strides = nullptr;
            // every element of any type, rounded up (T2)
            const uint64_t elements = sizes ? uint64_t(sizes->sizes[0]) * sizes->sizes[1] * sizes->sizes[2] *
                                                  sizes->sizes[3] * std::max<UINT>(sizes->sizes[4], 1)
                                            : profile_.lastSize;
            buffer.TotalTensorSizeInBytes = std::max<UINT64>(16, elements * 8);
            buffer.GuaranteedBaseOffsetAlignment = 0;
            tensor = DML_TENSOR_DESC{DML_TENSOR_TYPE_BUFFER, &buffer};
        }
        return list.data();
    }
    const uint32_t* MakeWords(uint32_t count, uint32_t value) {
        return words_.emplace_back(std::max<uint32_t>(count, 1), value).data();
    }

    const OperatorSchema& schema_;
    Profile profile_;
    std::vector<const FieldSchema*> absent_;
    UINT sizes_[4] = {1, 1, 1, profile_.lastSize};
    std::vector<Slot> slots_;
    std::deque<DML_BUFFER_TENSOR_DESC> buffers_;
    std::deque<std::vector<DML_TENSOR_DESC>> tensors_;
    std::deque<std::vector<uint32_t>> words_;
    std::deque<std::vector<DML_OPERATOR_DESC>> activations_;
    DML_ACTIVATION_SIGMOID_OPERATOR_DESC sigmoid_{};
};

// Every data type the catalog knows, 4-bit ones included.
std::vector<DML_TENSOR_DATA_TYPE> AllTypes() {
    auto order = CatalogDataTypeOrder();
    return {order.begin(), order.end()};
}

// Calls visit(assignment) for the assignments worth trying: all of them when there are few
// tensors, otherwise every assignment that uses at most two distinct types (operators mix at
// most an "index or quantized" type with a "value" type per tensor group, and the union per
// tensor is what the matrix needs).
template <class Visit>
void ForEachAssignment(size_t slots, Visit visit) {
    const auto types = AllTypes();
    const size_t n = types.size();
    std::vector<DML_TENSOR_DATA_TYPE> assignment(slots, types.front());
    size_t total = 1;
    for (size_t i = 0; i < slots && total <= 40000; ++i) total *= n;
    if (total <= 40000) {
        std::vector<size_t> digit(slots, 0);
        for (size_t k = 0; k < total; ++k) {
            for (size_t i = 0; i < slots; ++i) assignment[i] = types[digit[i]];
            visit(assignment);
            for (size_t i = 0; i < slots && ++digit[i] == n; ++i) digit[i] = 0;
        }
        return;
    }
    // Splitting every subset of more than 10 tensors (MULTIHEAD_ATTENTION's 14) between two types
    // is millions of validations per pair; one tensor moved at a time says the same for them.
    const size_t masks = slots <= 10 ? (size_t{1} << slots) : 0;
    for (size_t a = 0; a < n; ++a) {
        for (size_t b = a; b < n; ++b) {
            if (a == b || masks == 0) {
                std::fill(assignment.begin(), assignment.end(), types[a]);
                visit(assignment);
                if (a == b) continue;
                // Too many tensors for every split: move one tensor at a time to the other type.
                for (size_t i = 0; i < slots; ++i) {
                    assignment[i] = types[b];
                    visit(assignment);
                    assignment[i] = types[a];
                }
                continue;
            }
            for (size_t mask = 1; mask + 1 < masks; ++mask) {
                for (size_t i = 0; i < slots; ++i) assignment[i] = (mask >> i) & 1 ? types[b] : types[a];
                visit(assignment);
            }
        }
    }
}

}  // namespace

ProbeResult ProbeDataTypes(const OperatorSchema& schema) {
    ProbeResult result;
    size_t choices = 1;  // every value of the longest enum (REDUCE's MIN and MAX are its 8th and 9th)
    for (const auto& field : schema.fields) {
        if (IsTensorKind(field.kind)) result.tensors.push_back({field.name, 0});
        if (field.kind == FieldKind::Enum && field.enumType && field.enumType != &TensorDataTypeEnum()) {
            choices = std::max(choices, field.enumType->values.size());
        }
    }
    // Each enum choice may open other types (a quantization type that adds a zero point, a reduce
    // function that takes integers), so the union runs over every choice; within one, the first
    // shape profile that validates is enough.
    // Validates one assignment; on success records its types and returns true.
    auto tryTypes = [&](ProbeDesc& probe, const std::vector<DML_TENSOR_DATA_TYPE>& types) {
        Status status = probe.Validate(types);
        if (!status.ok()) {
            if (!result.ok) result.failure = status.message();
            return false;
        }
        for (size_t i = 0; i < types.size(); ++i) {
            for (auto& tensor : result.tensors) {
                if (tensor.name == probe.Slots()[i].field->name) tensor.accepted |= DataTypeBit(types[i]);
            }
        }
        return true;
    };
    std::vector<const FieldSchema*> optional;  // single optional tensors
    for (const auto& field : schema.fields) {
        if (field.optional && (field.kind == FieldKind::InputTensor || field.kind == FieldKind::OutputTensor)) {
            optional.push_back(&field);
        }
    }
    // Starting sets of absent optional tensors for the second pass.
    std::vector<std::vector<const FieldSchema*>> starts;
    for (const auto& set : kPresentSets) {
        if (std::strcmp(set.op, schema.name) != 0) continue;
        std::vector<const FieldSchema*> absent;
        for (const FieldSchema* field : optional) {
            if (std::none_of(set.fields.begin(), set.fields.end(),
                             [&](const char* name) { return name && std::strcmp(name, field->name) == 0; })) {
                absent.push_back(field);
            }
        }
        starts.push_back(absent);
    }
    if (starts.empty() && !optional.empty()) starts.push_back(optional);

    for (size_t choice = 0; choice < choices; ++choice) {
        for (Profile profile : kShapes) {
            profile.enumIndex = choice;
            ProbeDesc probe(schema, profile);
            bool any = false;
            ForEachAssignment(probe.Slots().size(), [&](const std::vector<DML_TENSOR_DATA_TYPE>& types) {
                any |= tryTypes(probe, types);
            });
            const bool firstPass = any;
            // Nothing with every tensor given (optional tensors that exclude one another, or more
            // distinct types than the assignments mix): start from fewer optional tensors, then give
            // each left-out one back, with every type, beside a few of the assignments that passed.
            for (size_t start = 0; !firstPass && start < starts.size(); ++start) {
                ProbeDesc base(schema, profile, starts[start]);
                std::vector<std::vector<DML_TENSOR_DATA_TYPE>> passed;
                ForEachAssignment(base.Slots().size(), [&](const std::vector<DML_TENSOR_DATA_TYPE>& types) {
                    if (tryTypes(base, types) && passed.size() < 64) passed.push_back(types);
                });
                any |= !passed.empty();
                for (const FieldSchema* added : starts[start]) {
                    std::vector<const FieldSchema*> absent = starts[start];
                    absent.erase(std::find(absent.begin(), absent.end(), added));
                    ProbeDesc plus(schema, profile, absent);
                    for (const auto& types : passed) {
                        for (DML_TENSOR_DATA_TYPE type : AllTypes()) {
                            // The base's types in slot order, `type` for the added tensor.
                            std::vector<DML_TENSOR_DATA_TYPE> more;
                            size_t next = 0;
                            for (const auto& slot : plus.Slots()) more.push_back(slot.field == added ? type : types[next++]);
                            tryTypes(plus, more);
                        }
                    }
                }
            }
            if (any) {
                result.ok = true;
                result.failure.clear();
                break;
            }
        }
    }
    return result;
}

}  // namespace freedml::opmatrix
