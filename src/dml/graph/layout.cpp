#include "dml/graph/layout.h"

#include <array>
#include <cstdlib>
#include <cstring>

#include "dml/device.h"

namespace freedml::dml {

bool ChannelsLastEnabled() {
    const char* value = std::getenv("FREEDML_CHANNELS_LAST");
    return !(value && std::strcmp(value, "0") == 0);
}

namespace {

DML_OPERATOR_TYPE TypeOf(const GraphNode& node) { return node.op ? node.op->Schema().type : DML_OPERATOR_INVALID; }

// Operators whose output element depends only on the input elements at the same position (and
// their own parameters), so that any permutation of the dimensions, applied to every operand alike,
// computes the same values at the same addresses.
bool IsPointwiseType(DML_OPERATOR_TYPE type) {
    switch (type) {
        case DML_OPERATOR_ELEMENT_WISE_IDENTITY:
        case DML_OPERATOR_ELEMENT_WISE_ADD:
        case DML_OPERATOR_ELEMENT_WISE_ADD1:
        case DML_OPERATOR_ELEMENT_WISE_SUBTRACT:
        case DML_OPERATOR_ELEMENT_WISE_MULTIPLY:
        case DML_OPERATOR_ELEMENT_WISE_DIVIDE:
        case DML_OPERATOR_ELEMENT_WISE_MAX:
        case DML_OPERATOR_ELEMENT_WISE_MIN:
        case DML_OPERATOR_ELEMENT_WISE_CLIP:
        case DML_OPERATOR_ACTIVATION_CELU:
        case DML_OPERATOR_ACTIVATION_ELU:
        case DML_OPERATOR_ACTIVATION_GELU:
        case DML_OPERATOR_ACTIVATION_HARD_SIGMOID:
        case DML_OPERATOR_ACTIVATION_HARD_SWISH:
        case DML_OPERATOR_ACTIVATION_IDENTITY:
        case DML_OPERATOR_ACTIVATION_LEAKY_RELU:
        case DML_OPERATOR_ACTIVATION_LINEAR:
        case DML_OPERATOR_ACTIVATION_PARAMETERIZED_RELU:
        case DML_OPERATOR_ACTIVATION_PARAMETRIC_SOFTPLUS:
        case DML_OPERATOR_ACTIVATION_RELU:
        case DML_OPERATOR_ACTIVATION_SCALED_ELU:
        case DML_OPERATOR_ACTIVATION_SCALED_TANH:
        case DML_OPERATOR_ACTIVATION_SHRINK:
        case DML_OPERATOR_ACTIVATION_SIGMOID:
        case DML_OPERATOR_ACTIVATION_SOFTPLUS:
        case DML_OPERATOR_ACTIVATION_SOFTSIGN:
        case DML_OPERATOR_ACTIVATION_SWISH:
        case DML_OPERATOR_ACTIVATION_TANH:
        case DML_OPERATOR_ACTIVATION_THRESHOLDED_RELU:
            return true;
        default:
            return false;
    }
}

// A point-wise node of one output whose operands all have the output's rank-4 sizes (broadcast
// operands have them too, through zero strides), so that its dimensions can be permuted.
bool IsPermutablePointwise(const GraphNode& node) {
    if (node.removed || !node.op || node.outputCount != 1 || !IsPointwiseType(TypeOf(node))) return false;
    const OperatorArgs& args = node.op->Args();
    if (args.outputs.size() != 1 || !args.outputs[0] || args.outputs[0]->rank != 4) return false;
    const TensorDesc& out = *args.outputs[0];
    for (const auto& input : args.inputs) {
        if (!input || input->rank != 4) return false;
        for (uint32_t d = 0; d < 4; ++d) {
            if (input->sizes[d] != out.sizes[d]) return false;
        }
    }
    return true;
}

bool IsCandidateConvolution(const GraphNode& node) {
    if (node.removed || TypeOf(node) != DML_OPERATOR_CONVOLUTION) return false;
    const OperatorArgs& args = node.op->Args();
    return args.inputs[0] && args.inputs[0]->rank == 4 && args.outputs[0] && args.outputs[0]->rank == 4;
}

// NCHW packed over its sizes (size-1 dimensions ignored), and covering exactly its bytes.
bool IsPackedNchw(const TensorDesc& t) {
    uint64_t expected = 1;
    for (uint32_t d = t.rank; d-- > 0;) {
        if (t.sizes[d] != 1 && t.strides[d] != expected) return false;
        expected *= t.sizes[d];
    }
    return t.MinimumSizeInBytes() == t.totalTensorSizeInBytes;
}

std::array<uint32_t, 4> ChannelsLastStrides(const TensorDesc& t) {
    const uint32_t c = t.sizes[1], h = t.sizes[2], w = t.sizes[3];
    return {h * w * c, 1, w * c, c};
}

// A node's operand tensors as the k-th InputTensor / OutputTensor fields of its desc (the
// operators rewritten here have no tensor arrays).
struct DescEditor {
    const OperatorSchema& schema;
    std::vector<unsigned char> desc;
    // Storage for the new tensor descs; reserved so that pointers stay put.
    std::vector<DML_BUFFER_TENSOR_DESC> buffers;
    std::vector<DML_TENSOR_DESC> tensors;
    std::vector<std::array<UINT, 4>> arrays;

    explicit DescEditor(const Operator& op) : schema(op.Schema()), desc(op.Schema().descSize) {
        std::memcpy(desc.data(), op.Args().desc, schema.descSize);
        buffers.reserve(16);
        tensors.reserve(16);
        arrays.reserve(32);
    }

    // Replaces operand `index` of `kind` with `sizes` and `strides`; false when the field is not a
    // buffer tensor.
    bool Set(FieldKind kind, uint32_t index, const std::array<uint32_t, 4>& sizes, const std::array<uint32_t, 4>& strides) {
        uint32_t k = 0;
        for (const FieldSchema& field : schema.fields) {
            if (field.kind != kind) continue;
            if (k++ != index) continue;
            const auto* current = FieldAt<const DML_TENSOR_DESC*>(desc.data(), field.offset);
            if (!current || current->Type != DML_TENSOR_TYPE_BUFFER) return false;
            DML_BUFFER_TENSOR_DESC buffer = *static_cast<const DML_BUFFER_TENSOR_DESC*>(current->Desc);
            if (buffer.DimensionCount != 4) return false;
            arrays.push_back({sizes[0], sizes[1], sizes[2], sizes[3]});
            buffer.Sizes = arrays.back().data();
            arrays.push_back({strides[0], strides[1], strides[2], strides[3]});
            buffer.Strides = arrays.back().data();
            buffers.push_back(buffer);
            tensors.push_back({DML_TENSOR_TYPE_BUFFER, &buffers.back()});
            const DML_TENSOR_DESC* pointer = &tensors.back();
            std::memcpy(desc.data() + field.offset, &pointer, sizeof(pointer));
            return true;
        }
        return false;
    }
};

}  // namespace

void ChooseChannelsLastIntermediates(Device& device, ValidatedGraph* graph, std::vector<std::string>* log) {
    const size_t count = graph->nodes.size();
    // Per node: the node inputs that read its output 0, and whether that output fills a graph output.
    std::vector<std::vector<std::pair<uint32_t, uint32_t>>> readers(count);
    std::vector<bool> isGraphOutput(count, false);
    for (uint32_t n : graph->order) {
        const GraphNode& node = graph->nodes[n];
        for (uint32_t i = 0; i < node.inputs.size(); ++i) {
            const GraphSource& s = node.inputs[i];
            if (s.kind == GraphSource::Kind::NodeOutput && s.output == 0) readers[s.index].emplace_back(n, i);
        }
    }
    for (const auto& [n, o] : graph->outputSources) {
        if (o == 0) isGraphOutput[n] = true;
    }
    // Outputs another node writes over (GraphNode::outputOver): that node reads them as it
    // accumulates, in its own output's layout (made equal below).
    std::vector<bool> overwritten(count, false);
    for (uint32_t n : graph->order) {
        const GraphSource& over = graph->nodes[n].outputOver;
        if (over.kind == GraphSource::Kind::NodeOutput) overwritten[over.index] = true;
    }
    std::vector<bool> convolution(count, false), pointwise(count, false);
    for (uint32_t n : graph->order) {
        convolution[n] = IsCandidateConvolution(graph->nodes[n]);
        pointwise[n] = IsPermutablePointwise(graph->nodes[n]);
    }

    // Topological order: a point-wise producer's inputs are decided before its output.
    std::vector<bool> chosen(count, false);
    auto readsChosen = [&](const GraphNode& node) {
        for (const GraphSource& s : node.inputs) {
            if (s.kind == GraphSource::Kind::NodeOutput && s.output == 0 && chosen[s.index]) return true;
        }
        return false;
    };
    for (uint32_t n : graph->order) {
        const GraphNode& node = graph->nodes[n];
        if (!(convolution[n] || (pointwise[n] && readsChosen(node)))) continue;
        if (node.outputCount != 1 || isGraphOutput[n] || (readers[n].empty() && !overwritten[n])) continue;
        const TensorDesc& out = *node.OutputTensor(0);
        if (out.dataType != DML_TENSOR_DATA_TYPE_FLOAT32 || out.rank != 4 || !IsPackedNchw(out)) continue;
        if (out.sizes[1] < 2 || uint64_t(out.sizes[2]) * out.sizes[3] < 2) continue;
        bool ok = true;
        for (const auto& [r, i] : readers[n]) {
            const GraphNode& reader = graph->nodes[r];
            ok = ((convolution[r] && i == 0) || pointwise[r]) && SameLayout(*reader.InputTensor(i), out);
            if (!ok) break;
        }
        chosen[n] = ok;
    }

    // A node output written over another's bytes (GraphNode::outputOver) has that one's layout.
    for (bool changed = true; changed;) {
        changed = false;
        for (uint32_t n : graph->order) {
            const GraphSource& over = graph->nodes[n].outputOver;
            if (over.kind != GraphSource::Kind::NodeOutput || chosen[n] == chosen[over.index]) continue;
            chosen[n] = chosen[over.index] = false;
            changed = true;
        }
    }

    // Every node that touches a chosen intermediate gets a new operator; all of them or none.
    std::vector<std::pair<uint32_t, Ref<Operator>>> replacements;
    std::vector<std::string> lines;
    for (uint32_t n : graph->order) {
        const GraphNode& node = graph->nodes[n];
        const bool writes = chosen[n];
        if (!writes && !readsChosen(node)) continue;
        DescEditor editor(*node.op.Get());
        bool ok = true;
        if (convolution[n]) {
            const TensorDesc& in = *node.InputTensor(0);
            const TensorDesc& out = *node.OutputTensor(0);
            auto sizes = [](const TensorDesc& t) { return std::array<uint32_t, 4>{t.sizes[0], t.sizes[1], t.sizes[2], t.sizes[3]}; };
            const GraphSource& s = node.inputs[0];
            if (s.kind == GraphSource::Kind::NodeOutput && s.output == 0 && chosen[s.index]) {
                ok = editor.Set(FieldKind::InputTensor, 0, sizes(in), ChannelsLastStrides(in));
            }
            if (ok && writes) ok = editor.Set(FieldKind::OutputTensor, 0, sizes(out), ChannelsLastStrides(out));
        } else {
            // Every operand in the order {N, H, W, C}.
            auto permuted = [](const TensorDesc& t, bool channelsLast) {
                const std::array<uint32_t, 4> strides =
                    channelsLast ? ChannelsLastStrides(t)
                                 : std::array<uint32_t, 4>{t.strides[0], t.strides[1], t.strides[2], t.strides[3]};
                return std::make_pair(std::array<uint32_t, 4>{t.sizes[0], t.sizes[2], t.sizes[3], t.sizes[1]},
                                      std::array<uint32_t, 4>{strides[0], strides[2], strides[3], strides[1]});
            };
            for (uint32_t i = 0; i < node.inputs.size() && ok; ++i) {
                const GraphSource& s = node.inputs[i];
                const bool channelsLast = s.kind == GraphSource::Kind::NodeOutput && s.output == 0 && chosen[s.index];
                const auto [sizes, strides] = permuted(*node.InputTensor(i), channelsLast);
                ok = editor.Set(FieldKind::InputTensor, i, sizes, strides);
            }
            if (ok) {
                const auto [sizes, strides] = permuted(*node.OutputTensor(0), writes);
                ok = editor.Set(FieldKind::OutputTensor, 0, sizes, strides);
            }
        }
        Ref<Operator> replacement;
        const Status made = ok ? Operator::Create(device, {node.op->Schema().type, editor.desc.data()}, replacement.Put())
                               : Error(E_INVALIDARG, "an operand is not a 4-D buffer tensor.");
        if (!made.ok()) {
            // Not expected for the operators chosen above; the graph keeps its layouts then.
            log->push_back(Format("kept every intermediate in its own layout: %s could not be rewritten (%s)",
                                  node.description.c_str(), made.message().c_str()));
            return;
        }
        replacement->CopyEpilogues(*node.op.Get());
        replacements.emplace_back(n, std::move(replacement));
        if (writes) lines.push_back(Format("stored the output of %s channels-last (NHWC)", node.description.c_str()));
    }
    for (auto& [n, op] : replacements) graph->nodes[n].op = std::move(op);
    log->insert(log->end(), lines.begin(), lines.end());
}

}  // namespace freedml::dml
