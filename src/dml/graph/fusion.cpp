#include "dml/graph/fusion.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <memory>

#include "dml/device.h"
#include "dml/graph/layout.h"
#include "dml/kernels/loop_merge.h"
#include "dml/ops/activation/activation_params.h"
#include "dml/ops/elementwise_binary/binary_decode.h"
#include "dml/ops/elementwise_unary/unary_decode.h"

namespace freedml::dml {

bool GraphFusionEnabled() {
    const char* value = std::getenv("FREEDML_GRAPH_FUSION");
    return !(value && std::strcmp(value, "0") == 0);
}

bool GraphDebugLog() {
    const char* value = std::getenv("FREEDML_DEBUG");
    return value && *value && std::strcmp(value, "0") != 0;
}

namespace {

// ELEMENT_WISE_IDENTITY in a program: Unary with this op applies only the ScaleBias.
constexpr uint8_t kEwUnaryIdentity = 0xFF;

struct Reader {
    uint32_t node, input;
};

// Per node output: the node inputs that read it, and the graph outputs it fills.
struct Uses {
    std::vector<std::vector<std::vector<Reader>>> readers;
    std::vector<std::vector<std::vector<uint32_t>>> graphOutputs;

    explicit Uses(const ValidatedGraph& graph) {
        const size_t count = graph.nodes.size();
        readers.resize(count);
        graphOutputs.resize(count);
        for (size_t n = 0; n < count; ++n) {
            readers[n].resize(graph.nodes[n].outputCount);
            graphOutputs[n].resize(graph.nodes[n].outputCount);
        }
        for (uint32_t n = 0; n < count; ++n) {
            const GraphNode& node = graph.nodes[n];
            if (node.removed) continue;
            for (uint32_t i = 0; i < node.inputs.size(); ++i) {
                const GraphSource& s = node.inputs[i];
                if (s.kind == GraphSource::Kind::NodeOutput) readers[s.index][s.output].push_back({n, i});
            }
        }
        for (uint32_t g = 0; g < graph.outputSources.size(); ++g) {
            const auto [n, o] = graph.outputSources[g];
            graphOutputs[n][o].push_back(g);
        }
    }
};

bool SameSizes(const TensorDesc& a, const TensorDesc& b) {
    if (a.rank != b.rank) return false;
    for (uint32_t d = 0; d < a.rank; ++d) {
        if (a.sizes[d] != b.sizes[d]) return false;
    }
    return true;
}

// The strides are the packed strides of the sizes (size-1 dimensions ignored) and the tensor
// covers exactly its bytes.
bool IsPacked(const TensorDesc& t) {
    uint64_t expected = 1;
    for (uint32_t d = t.rank; d-- > 0;) {
        if (t.sizes[d] != 1 && t.strides[d] != expected) return false;
        expected *= t.sizes[d];
    }
    return t.MinimumSizeInBytes() == t.totalTensorSizeInBytes;
}

// No two elements share an address (no zero stride over a dimension of more than one element).
bool WritesEachElementOnce(const TensorDesc& t) {
    for (uint32_t d = 0; d < t.rank; ++d) {
        if (t.sizes[d] != 1 && t.strides[d] == 0) return false;
    }
    return true;
}

const FieldSchema* FindField(const OperatorSchema& schema, const char* name) {
    for (const FieldSchema& field : schema.fields) {
        if (std::strcmp(field.name, name) == 0) return &field;
    }
    return nullptr;
}

DML_OPERATOR_TYPE TypeOf(const GraphNode& node) { return node.op ? node.op->Schema().type : DML_OPERATOR_INVALID; }
const char* NameOf(const GraphNode& node) { return node.op ? node.op->Schema().name : "constant"; }

bool IsActivationType(DML_OPERATOR_TYPE type) { return std::strncmp(ActivationName(type), "ACTIVATION_", 11) == 0; }

// Every reader of node output (from, output) reads `to` instead; graph outputs it filled are filled
// by `to` (a node output). `uses` follows.
void Redirect(ValidatedGraph* graph, Uses* uses, uint32_t from, uint32_t output, GraphSource to) {
    auto readers = std::move(uses->readers[from][output]);
    auto outputs = std::move(uses->graphOutputs[from][output]);
    uses->readers[from][output].clear();
    uses->graphOutputs[from][output].clear();
    for (const Reader& r : readers) {
        graph->nodes[r.node].inputs[r.input] = to;
        if (to.kind == GraphSource::Kind::GraphInput) graph->inputConsumers[to.index].emplace_back(r.node, r.input);
        if (to.kind == GraphSource::Kind::NodeOutput) uses->readers[to.index][to.output].push_back(r);
    }
    for (uint32_t g : outputs) {
        graph->outputSources[g] = {to.index, to.output};
        uses->graphOutputs[to.index][to.output].push_back(g);
    }
    // A node that writes over (from, output)'s bytes writes over the new source's.
    for (GraphNode& node : graph->nodes) {
        const GraphSource& over = node.outputOver;
        if (over.kind == GraphSource::Kind::NodeOutput && over.index == from && over.output == output) node.outputOver = to;
    }
}

// Takes node n out of the graph: its inputs read nothing any more.
void Remove(ValidatedGraph* graph, Uses* uses, uint32_t n) {
    GraphNode& node = graph->nodes[n];
    for (const GraphSource& s : node.inputs) {
        if (s.kind == GraphSource::Kind::GraphInput) {
            auto& consumers = graph->inputConsumers[s.index];
            consumers.erase(std::remove_if(consumers.begin(), consumers.end(), [&](const auto& c) { return c.first == n; }),
                            consumers.end());
        } else if (s.kind == GraphSource::Kind::NodeOutput && uses) {
            auto& readers = uses->readers[s.index][s.output];
            readers.erase(std::remove_if(readers.begin(), readers.end(), [&](const Reader& r) { return r.node == n; }),
                          readers.end());
        }
    }
    node.inputs.clear();
    node.removed = true;
}

// ---- Identity elision -----------------------------------------------------------------------------

void ElideIdentities(ValidatedGraph* graph, std::vector<std::string>* log) {
    Uses uses(*graph);
    for (uint32_t n : graph->order) {
        GraphNode& node = graph->nodes[n];
        if (node.removed || TypeOf(node) != DML_OPERATOR_ELEMENT_WISE_IDENTITY) continue;
        if (node.op->Args().As<DML_ELEMENT_WISE_IDENTITY_OPERATOR_DESC>().ScaleBias) continue;
        const TensorDesc& in = *node.InputTensor(0);
        const TensorDesc& out = *node.OutputTensor(0);
        if (!SameLayout(in, out) || !IsPacked(in)) continue;
        const GraphSource source = node.inputs[0];
        const bool fillsOutput = !uses.graphOutputs[n][0].empty();
        if (source.kind == GraphSource::Kind::GraphInput) {
            // A graph input may not fill a graph output (G6), and an owned one is read through its copy.
            if (fillsOutput || in.OwnedByDml()) continue;
        } else if (graph->nodes[source.index].IsConstant() && fillsOutput) {
            continue;
        }
        Redirect(graph, &uses, n, 0, source);
        Remove(graph, &uses, n);
        log->push_back(Format("elided %s: a copy of one packed layout", node.description.c_str()));
    }
}

// ---- Unread nodes ---------------------------------------------------------------------------------

// An operator none of whose outputs is read by a node or fills a graph output has no effect on
// what the graph gives (an operator writes only its outputs): it is not run. A lowering may leave
// one behind (the ONNX lowering's SPLIT whose parts an attention node reads in place). Walked
// from the last node back, so a chain of them goes at once. Nodes reading a graph input stay, so
// that every input keeps a consumer.
void RemoveUnreadNodes(ValidatedGraph* graph, std::vector<std::string>* log) {
    Uses uses(*graph);
    for (auto it = graph->order.rbegin(); it != graph->order.rend(); ++it) {
        const uint32_t n = *it;
        GraphNode& node = graph->nodes[n];
        if (node.removed || !node.op) continue;
        bool read = false;
        for (uint32_t o = 0; o < node.outputCount; ++o) {
            read = read || !uses.readers[n][o].empty() || !uses.graphOutputs[n][o].empty();
        }
        for (const GraphSource& s : node.inputs) read = read || s.kind == GraphSource::Kind::GraphInput;
        if (read) continue;
        Remove(graph, &uses, n);
        log->push_back(Format("removed %s: no node or graph output reads it", node.description.c_str()));
    }
}

// ---- GEMM biases --------------------------------------------------------------------------------

// ADD(GEMM(A, B), bias) with GEMM's C absent becomes GEMM(A, B, C = bias, Beta = 1): one kernel
// instead of two, and the activation after it can then become its epilogue. ADD1's
// FusedActivation moves to the GEMM (which must have none of its own).
void FoldGemmBiases(Device& device, ValidatedGraph* graph, std::vector<std::string>* log) {
    Uses uses(*graph);
    std::vector<size_t> position(graph->nodes.size(), 0);
    for (size_t p = 0; p < graph->order.size(); ++p) position[graph->order[p]] = p;
    for (uint32_t d : graph->order) {
        GraphNode& add = graph->nodes[d];
        const DML_OPERATOR_TYPE type = TypeOf(add);
        if (add.removed || (type != DML_OPERATOR_ELEMENT_WISE_ADD && type != DML_OPERATOR_ELEMENT_WISE_ADD1)) continue;
        for (uint32_t j = 0; j < 2; ++j) {
            const GraphSource source = add.inputs[j];
            if (source.kind != GraphSource::Kind::NodeOutput) continue;
            GraphNode& gemm = graph->nodes[source.index];
            if (gemm.removed || TypeOf(gemm) != DML_OPERATOR_GEMM) continue;
            const auto& gemmDesc = gemm.op->Args().As<DML_GEMM_OPERATOR_DESC>();
            if (gemmDesc.CTensor || gemmDesc.FusedActivation) continue;
            // The GEMM will read the bias: it must be ready before the GEMM runs.
            const GraphSource& biasSource = add.inputs[1 - j];
            if (biasSource.kind == GraphSource::Kind::NodeOutput && position[biasSource.index] > position[source.index]) continue;
            if (uses.readers[source.index][0].size() != 1 || !uses.graphOutputs[source.index][0].empty()) continue;
            const TensorDesc& addOut = *add.OutputTensor(0);
            if (!SameLayout(*gemm.OutputTensor(0), *add.InputTensor(j)) || addOut.dataType != gemm.OutputTensor(0)->dataType ||
                !SameSizes(addOut, *gemm.OutputTensor(0))) {
                continue;
            }
            // ADD and ADD1 begin alike: ATensor, BTensor, OutputTensor (ADD1 then FusedActivation).
            const auto& addDesc = add.op->Args().As<DML_ELEMENT_WISE_ADD_OPERATOR_DESC>();
            const DML_OPERATOR_DESC* activation =
                type == DML_OPERATOR_ELEMENT_WISE_ADD1 ? add.op->Args().As<DML_ELEMENT_WISE_ADD1_OPERATOR_DESC>().FusedActivation
                                                       : nullptr;
            DML_GEMM_OPERATOR_DESC desc = gemmDesc;
            desc.CTensor = j == 0 ? addDesc.BTensor : addDesc.ATensor;
            desc.OutputTensor = addDesc.OutputTensor;
            desc.Beta = 1.0f;
            desc.FusedActivation = activation;
            Ref<Operator> replacement;
            const Status made = Operator::Create(device, {DML_OPERATOR_GEMM, &desc}, replacement.Put());
            if (!made.ok()) {
                log->push_back(Format("kept %s apart from %s: %s", add.description.c_str(), gemm.description.c_str(),
                                      made.message().c_str()));
                continue;
            }
            log->push_back(Format("folded %s into %s as its C tensor", add.description.c_str(), gemm.description.c_str()));
            const GraphSource bias = add.inputs[1 - j];
            gemm.op = std::move(replacement);
            gemm.description += " with its bias ADD folded";
            gemm.inputs[2] = bias;
            if (bias.kind == GraphSource::Kind::GraphInput) graph->inputConsumers[bias.index].emplace_back(source.index, 2);
            if (bias.kind == GraphSource::Kind::NodeOutput) uses.readers[bias.index][bias.output].push_back({source.index, 2});
            Redirect(graph, &uses, d, 0, {GraphSource::Kind::NodeOutput, source.index, 0});
            Remove(graph, &uses, d);
            break;
        }
    }
}

// ---- Residual additions --------------------------------------------------------------------------

// ADD(CONVOLUTION(x), r) where r is an intermediate that nothing reads after the convolution runs
// (a residual network's shortcut): the convolution writes its output over r's bytes and adds its
// result to what it finds there (OperatorArgs::accumulateOutput; oneDNN's sum post-op), one pass
// over memory fewer. The ADD's readers read the convolution's output. FLOAT32, one layout for the
// three tensors, a convolution without FusedActivation or clamp (an activation after the ADD can
// then become its FusedActivation, applied after the sum).
void FoldResidualAdds(Device& device, ValidatedGraph* graph, std::vector<std::string>* log) {
    Uses uses(*graph);
    std::vector<size_t> position(graph->nodes.size(), 0);
    for (size_t p = 0; p < graph->order.size(); ++p) position[graph->order[p]] = p;
    std::vector<bool> overwritten(graph->nodes.size(), false);  // an output some node writes over
    for (uint32_t d : graph->order) {
        GraphNode& add = graph->nodes[d];
        if (add.removed || TypeOf(add) != DML_OPERATOR_ELEMENT_WISE_ADD) continue;
        const TensorDesc& addOut = *add.OutputTensor(0);
        if (addOut.dataType != DML_TENSOR_DATA_TYPE_FLOAT32 || !WritesEachElementOnce(addOut)) continue;
        if (!SameLayout(*add.InputTensor(0), addOut) || !SameLayout(*add.InputTensor(1), addOut)) continue;
        if (!uses.graphOutputs[d][0].empty()) continue;
        for (uint32_t j = 0; j < 2; ++j) {
            const GraphSource c = add.inputs[j], r = add.inputs[1 - j];
            if (c.kind != GraphSource::Kind::NodeOutput || r.kind != GraphSource::Kind::NodeOutput) continue;
            if (c.index == r.index || r.output != 0) continue;
            GraphNode& conv = graph->nodes[c.index];
            const GraphNode& residual = graph->nodes[r.index];
            if (conv.removed || TypeOf(conv) != DML_OPERATOR_CONVOLUTION) continue;
            const OperatorArgs& args = conv.op->Args();
            if (args.clampOutput || args.accumulateOutput || args.As<DML_CONVOLUTION_OPERATOR_DESC>().FusedActivation) continue;
            if (uses.readers[c.index][0].size() != 1 || !uses.graphOutputs[c.index][0].empty()) continue;
            // r: an intermediate of an operator node (not a constant's bytes), written over by no
            // other node, not read by the convolution itself, and read by no node after it.
            if (residual.removed || residual.IsConstant() || overwritten[r.index]) continue;
            if (!uses.graphOutputs[r.index][r.output].empty()) continue;
            bool lastReader = true;
            for (const Reader& reader : uses.readers[r.index][r.output]) {
                if (reader.node != d && position[reader.node] >= position[c.index]) lastReader = false;
            }
            for (const GraphSource& s : conv.inputs) {
                if (s.kind == r.kind && s.index == r.index && s.output == r.output) lastReader = false;
            }
            if (!lastReader) continue;
            if (!SameLayout(*residual.OutputTensor(r.output), addOut) || !SameLayout(*conv.OutputTensor(0), addOut)) continue;

            Ref<Operator> replacement;
            const Status made = Operator::Create(device, {DML_OPERATOR_CONVOLUTION, args.desc}, replacement.Put());
            if (!made.ok()) continue;
            replacement->CopyEpilogues(*conv.op.Get());
            replacement->AccumulateOutput();
            log->push_back(Format("folded %s into %s as an accumulated output over the bytes of node %u's output",
                                  add.description.c_str(), conv.description.c_str(), r.index));
            conv.op = std::move(replacement);
            conv.description += " with its residual ADD folded";
            conv.outputOver = r;
            overwritten[r.index] = true;
            // The ADD no longer reads r; its readers read the convolution.
            Redirect(graph, &uses, d, 0, {GraphSource::Kind::NodeOutput, c.index, 0});
            Remove(graph, &uses, d);
            break;
        }
    }
}

// ---- Activation epilogues ------------------------------------------------------------------------

void FuseActivations(Device& device, ValidatedGraph* graph, std::vector<std::string>* log) {
    Uses uses(*graph);
    for (uint32_t a : graph->order) {
        GraphNode& act = graph->nodes[a];
        if (act.removed || !act.op || !act.op->Schema().canBeFusedActivation || act.inputs.size() != 1) continue;
        const GraphSource source = act.inputs[0];
        if (source.kind != GraphSource::Kind::NodeOutput) continue;
        GraphNode& producer = graph->nodes[source.index];
        if (!producer.op || producer.outputCount != 1) continue;
        const OperatorSchema& schema = producer.op->Schema();
        const FieldSchema* fusedField = FindField(schema, "FusedActivation");
        if (!fusedField || fusedField->kind != FieldKind::OperatorDesc) continue;
        const void* producerDesc = producer.op->Args().desc;
        if (FieldAt<const DML_OPERATOR_DESC*>(producerDesc, fusedField->offset)) continue;
        if (uses.readers[source.index][0].size() != 1 || !uses.graphOutputs[source.index][0].empty()) continue;
        // A node written over an intermediate's bytes must not come to fill a graph output.
        if (producer.outputOver.kind != GraphSource::Kind::None && !uses.graphOutputs[a][0].empty()) continue;
        const TensorDesc& produced = *producer.OutputTensor(0);
        const TensorDesc& actIn = *act.InputTensor(0);
        const TensorDesc& actOut = *act.OutputTensor(0);
        if (!SameLayout(produced, actIn) || !SameSizes(actIn, actOut) || actIn.dataType != actOut.dataType) continue;

        // The activation's desc with its tensors null (the fused form), and the producer's desc
        // writing to the activation's output tensor.
        const OperatorSchema& actSchema = act.op->Schema();
        std::vector<unsigned char> actDesc(actSchema.descSize), desc(schema.descSize);
        std::memcpy(actDesc.data(), act.op->Args().desc, actSchema.descSize);
        const DML_TENSOR_DESC* actOutput = nullptr;
        for (const FieldSchema& field : actSchema.fields) {
            if (field.kind == FieldKind::OutputTensor && !actOutput) {
                actOutput = FieldAt<const DML_TENSOR_DESC*>(actDesc.data(), field.offset);
            }
            if (field.kind == FieldKind::InputTensor || field.kind == FieldKind::OutputTensor) {
                std::memset(actDesc.data() + field.offset, 0, sizeof(void*));
            }
        }
        std::memcpy(desc.data(), producerDesc, schema.descSize);
        const DML_OPERATOR_DESC fused{actSchema.type, actDesc.data()};
        const DML_OPERATOR_DESC* fusedPointer = &fused;
        std::memcpy(desc.data() + fusedField->offset, &fusedPointer, sizeof(fusedPointer));
        for (const FieldSchema& field : schema.fields) {
            if (field.kind == FieldKind::OutputTensor) {
                std::memcpy(desc.data() + field.offset, &actOutput, sizeof(actOutput));
                break;
            }
        }
        Ref<Operator> replacement;
        const Status made = Operator::Create(device, {schema.type, desc.data()}, replacement.Put());
        if (!made.ok()) {
            log->push_back(Format("kept %s apart from %s: %s", act.description.c_str(), producer.description.c_str(),
                                  made.message().c_str()));
            continue;
        }
        log->push_back(Format("fused %s into %s as its FusedActivation", act.description.c_str(),
                              producer.description.c_str()));
        replacement->CopyEpilogues(*producer.op.Get());
        producer.op = std::move(replacement);
        producer.description += Format(" with %s fused", actSchema.name);
        Redirect(graph, &uses, a, 0, {GraphSource::Kind::NodeOutput, source.index, 0});
        Remove(graph, &uses, a);
    }
}

// ---- Constant weights ----------------------------------------------------------------------------

// A GEMM's B or a CONVOLUTION's filter and bias fed by a constant node become OWNED_BY_DML
// tensors: the graph binds the constant at initialization (graph_kernel.cpp), and the kernel packs
// it once into its persistent resource instead of repacking it at every execution, as it does
// for an application's owned weights. The values read are the same.
void OwnConstantWeights(Device& device, ValidatedGraph* graph, std::vector<std::string>* log) {
    for (uint32_t n : graph->order) {
        GraphNode& node = graph->nodes[n];
        if (node.removed || !node.op) continue;
        const DML_OPERATOR_TYPE type = TypeOf(node);
        std::vector<uint32_t> weights;
        if (type == DML_OPERATOR_GEMM)
            weights = {1};
        else if (type == DML_OPERATOR_CONVOLUTION)
            weights = {1, 2};
        else
            continue;
        const OperatorSchema& schema = node.op->Schema();
        std::vector<unsigned char> desc(schema.descSize);
        std::memcpy(desc.data(), node.op->Args().desc, schema.descSize);
        // Owned copies of the buffer descs (a node input's tensor field is the k-th InputTensor field).
        std::vector<DML_BUFFER_TENSOR_DESC> buffers(weights.size());
        std::vector<DML_TENSOR_DESC> tensors(weights.size());
        bool changed = false;
        for (size_t w = 0; w < weights.size(); ++w) {
            const uint32_t input = weights[w];
            if (input >= node.inputs.size()) continue;
            const GraphSource& source = node.inputs[input];
            if (source.kind != GraphSource::Kind::NodeOutput || !graph->nodes[source.index].IsConstant()) continue;
            const TensorDesc* tensor = node.InputTensor(input);
            if (!tensor || tensor->OwnedByDml()) continue;
            uint32_t k = 0;
            for (const FieldSchema& field : schema.fields) {
                if (field.kind != FieldKind::InputTensor) continue;
                if (k++ != input) continue;
                const auto* current = FieldAt<const DML_TENSOR_DESC*>(desc.data(), field.offset);
                if (!current || current->Type != DML_TENSOR_TYPE_BUFFER) break;
                buffers[w] = *static_cast<const DML_BUFFER_TENSOR_DESC*>(current->Desc);
                buffers[w].Flags |= DML_TENSOR_FLAG_OWNED_BY_DML;
                tensors[w] = {DML_TENSOR_TYPE_BUFFER, &buffers[w]};
                const DML_TENSOR_DESC* pointer = &tensors[w];
                std::memcpy(desc.data() + field.offset, &pointer, sizeof(pointer));
                changed = true;
                break;
            }
        }
        if (!changed) continue;
        Ref<Operator> replacement;
        const Status made = Operator::Create(device, {type, desc.data()}, replacement.Put());
        if (!made.ok()) {
            log->push_back(Format("kept the constant weights of %s unowned: %s", node.description.c_str(),
                                  made.message().c_str()));
            continue;
        }
        replacement->CopyEpilogues(*node.op.Get());
        log->push_back(Format("%s packs its constant weights at initialization", node.description.c_str()));
        node.op = std::move(replacement);
    }
}

// ---- Clamped convolutions ------------------------------------------------------------------------

// ELEMENT_WISE_CLIP (no ScaleBias) after a CONVOLUTION without FusedActivation (ReLU6 in
// MobileNets): DirectML's FusedActivation cannot name CLIP, so the convolution carries it as
// FreeDML's own clamped-output epilogue (OperatorArgs::clampOutput), which its kernels apply
// with CLIP's formula. FLOAT32 only: a FLOAT16 CLIP rounds its input before clamping.
void FuseConvolutionClips(Device& device, ValidatedGraph* graph, std::vector<std::string>* log) {
    Uses uses(*graph);
    for (uint32_t c : graph->order) {
        GraphNode& clip = graph->nodes[c];
        if (clip.removed || TypeOf(clip) != DML_OPERATOR_ELEMENT_WISE_CLIP) continue;
        const auto& clipDesc = clip.op->Args().As<DML_ELEMENT_WISE_CLIP_OPERATOR_DESC>();
        if (clipDesc.ScaleBias) continue;
        const GraphSource source = clip.inputs[0];
        if (source.kind != GraphSource::Kind::NodeOutput) continue;
        GraphNode& conv = graph->nodes[source.index];
        if (conv.removed || TypeOf(conv) != DML_OPERATOR_CONVOLUTION || conv.op->Args().clampOutput) continue;
        const auto& convDesc = conv.op->Args().As<DML_CONVOLUTION_OPERATOR_DESC>();
        if (convDesc.FusedActivation) continue;
        if (uses.readers[source.index][0].size() != 1 || !uses.graphOutputs[source.index][0].empty()) continue;
        if (conv.outputOver.kind != GraphSource::Kind::None && !uses.graphOutputs[c][0].empty()) continue;
        const TensorDesc& produced = *conv.OutputTensor(0);
        const TensorDesc& clipIn = *clip.InputTensor(0);
        const TensorDesc& clipOut = *clip.OutputTensor(0);
        if (produced.dataType != DML_TENSOR_DATA_TYPE_FLOAT32 || clipOut.dataType != DML_TENSOR_DATA_TYPE_FLOAT32)
            continue;
        if (!SameLayout(produced, clipIn) || !SameSizes(clipIn, clipOut) || !WritesEachElementOnce(clipOut)) continue;

        // The convolution's desc writing to the clip's output tensor.
        DML_CONVOLUTION_OPERATOR_DESC desc = convDesc;
        desc.OutputTensor = clipDesc.OutputTensor;
        Ref<Operator> replacement;
        const Status made = Operator::Create(device, {DML_OPERATOR_CONVOLUTION, &desc}, replacement.Put());
        if (!made.ok()) {
            log->push_back(Format("kept %s apart from %s: %s", clip.description.c_str(), conv.description.c_str(),
                                  made.message().c_str()));
            continue;
        }
        replacement->CopyEpilogues(*conv.op.Get());
        replacement->ClampOutput(clipDesc.Min, clipDesc.Max);
        log->push_back(
            Format("fused %s into %s as a clamped output", clip.description.c_str(), conv.description.c_str()));
        conv.op = std::move(replacement);
        conv.description += " with ELEMENT_WISE_CLIP fused";
        Redirect(graph, &uses, c, 0, {GraphSource::Kind::NodeOutput, source.index, 0});
        Remove(graph, &uses, c);
    }
}

// ---- Element-wise trees --------------------------------------------------------------------------

// A node as the instructions that compute it from its inputs' registers (one or two), before a
// register is given.
struct EwNode {
    uint32_t arity = 0;
    EwInstruction first;           // Unary, Binary or Activation
    bool hasSecond = false;        // ADD1's FusedActivation
    EwInstruction second;
};

void SetActivation(const ActivationParams& params, EwInstruction* in) {
    in->code = EwCode::Activation;
    in->activationType = static_cast<uint32_t>(params.type);
    in->p0 = params.alpha;
    in->p1 = params.beta;
    in->p2 = params.gamma;
}

float FloatField(const OperatorArgs& args, const char* name) {
    const FieldSchema* field = FindField(args.schema, name);
    return field && field->kind == FieldKind::Float ? FieldAt<float>(args.desc, field->offset) : 0.0f;
}

bool DecodeEw(const GraphNode& node, EwNode* out) {
    if (!node.op || node.removed || node.outputCount != 1) return false;
    const OperatorArgs& args = node.op->Args();
    if (!args.outputs[0] || args.outputs[0]->dataType != DML_TENSOR_DATA_TYPE_FLOAT32) return false;
    const TensorDesc& output = *args.outputs[0];
    if (output.rank > kEwMaxDims || !WritesEachElementOnce(output)) return false;
    for (const auto& input : args.inputs) {
        if (!input || input->dataType != DML_TENSOR_DATA_TYPE_FLOAT32 || !SameSizes(*input, output)) return false;
    }
    const DML_OPERATOR_TYPE type = args.schema.type;
    EwInstruction& in = out->first;
    UnaryFloatOp unary;
    BinaryOp binary;
    if (type == DML_OPERATOR_ELEMENT_WISE_IDENTITY ||
        (type != DML_OPERATOR_ELEMENT_WISE_CLIP1 && UnaryFloatOpOf(type, RoundingModeOf(type, args.desc), &unary))) {
        if (args.inputs.size() != 1) return false;
        out->arity = 1;
        in.code = EwCode::Unary;
        in.op = type == DML_OPERATOR_ELEMENT_WISE_IDENTITY ? kEwUnaryIdentity : static_cast<uint8_t>(unary);
        if (const FieldSchema* field = FindField(args.schema, "ScaleBias"); field && field->kind == FieldKind::ScaleBias) {
            if (const auto* scaleBias = FieldAt<const DML_SCALE_BIAS*>(args.desc, field->offset)) {
                in.scaleBias = true;
                in.scale = scaleBias->Scale;
                in.bias = scaleBias->Bias;
            }
        }
        if (type == DML_OPERATOR_ELEMENT_WISE_CLIP) {
            in.p0 = FloatField(args, "Min");
            in.p1 = FloatField(args, "Max");
        } else if (type == DML_OPERATOR_ELEMENT_WISE_THRESHOLD) {
            in.p0 = FloatField(args, "Min");
        } else if (type == DML_OPERATOR_ELEMENT_WISE_CONSTANT_POW) {
            in.p0 = FloatField(args, "Exponent");
        }
        return true;
    }
    if (BinaryOpOf(type, &binary) && EwBinaryFusable(binary)) {
        if (args.inputs.size() != 2) return false;
        out->arity = 2;
        in.code = EwCode::Binary;
        in.op = static_cast<uint8_t>(binary);
        if (type == DML_OPERATOR_ELEMENT_WISE_ADD1) {
            ActivationParams params;
            if (!DecodeFusedActivation(args.As<DML_ELEMENT_WISE_ADD1_OPERATOR_DESC>().FusedActivation, &params).ok()) {
                return false;
            }
            if (!params.IsNone()) {
                out->hasSecond = true;
                SetActivation(params, &out->second);
            }
        }
        return true;
    }
    if (IsActivationType(type) && args.inputs.size() == 1) {
        ActivationParams params;
        if (!DecodeActivation(type, args.desc, &params).ok()) return false;
        out->arity = 1;
        SetActivation(params, &in);
        return true;
    }
    return false;
}

// What a region costs so far: instructions, loads (an upper bound of its inputs) and the
// registers its evaluation needs (children with the larger need first).
struct Cost {
    uint32_t instructions = 0, loads = 0, registers = 0;
};

class TreeFuser {
public:
    TreeFuser(ValidatedGraph* graph, std::vector<std::string>* log) : graph_(*graph), log_(*log) {}

    void Run() {
        const size_t count = graph_.nodes.size();
        ew_.resize(count);
        eligible_.assign(count, false);
        absorbed_.assign(count, false);
        child_.assign(count, {});
        cost_.assign(count, {});
        for (uint32_t n : graph_.order) eligible_[n] = DecodeEw(graph_.nodes[n], &ew_[n]);
        // An output another node writes over (FoldResidualAdds) must be written where it is.
        for (uint32_t n : graph_.order) {
            const GraphSource& over = graph_.nodes[n].outputOver;
            if (over.kind == GraphSource::Kind::NodeOutput) eligible_[over.index] = false;
        }
        const Uses uses(graph_);
        for (uint32_t n : graph_.order) {
            if (!eligible_[n]) continue;
            const GraphNode& node = graph_.nodes[n];
            child_[n].assign(node.inputs.size(), false);
            Cost total{1u + (ew_[n].hasSecond ? 1u : 0u), 0, 0};
            uint32_t needs[2] = {1, 1};
            for (uint32_t i = 0; i < node.inputs.size(); ++i) {
                const GraphSource& s = node.inputs[i];
                bool take = s.kind == GraphSource::Kind::NodeOutput && eligible_[s.index] &&
                            uses.readers[s.index][0].size() == 1 && uses.graphOutputs[s.index][0].empty() &&
                            SameLayout(*graph_.nodes[s.index].OutputTensor(0), *node.InputTensor(i));
                if (take) {
                    const Cost& c = cost_[s.index];
                    take = total.instructions + c.instructions + 2 <= uint32_t(kEwMaxInstructions) &&
                           total.loads + c.loads + 1 <= uint32_t(kEwMaxInputs) && c.registers + 1 <= uint32_t(kEwMaxRegisters);
                }
                if (take) {
                    child_[n][i] = true;
                    absorbed_[s.index] = true;
                    total.instructions += cost_[s.index].instructions;
                    total.loads += cost_[s.index].loads;
                    needs[i] = cost_[s.index].registers;
                } else {
                    total.instructions += 1;
                    total.loads += 1;
                }
            }
            total.registers = ew_[n].arity == 1 ? needs[0]
                              : needs[0] == needs[1] ? needs[0] + 1
                                                     : std::max(needs[0], needs[1]);
            cost_[n] = total;
        }
        for (uint32_t n : graph_.order) {
            if (!eligible_[n] || absorbed_[n]) continue;
            if (std::find(child_[n].begin(), child_[n].end(), true) == child_[n].end()) continue;
            Fuse(n);
        }
    }

private:
    uint8_t Allocate() {
        for (uint8_t r = 0; r < kEwMaxRegisters; ++r) {
            if (!busy_[r]) {
                busy_[r] = true;
                peak_ = std::max<uint8_t>(peak_, r + 1);
                return r;
            }
        }
        return 0xFF;  // cannot happen: the costs bound the registers
    }

    // Emits node n's tree; returns the register that holds its value.
    uint8_t Emit(uint32_t n) {
        const GraphNode& node = graph_.nodes[n];
        members_.push_back(n);
        uint8_t regs[2] = {0, 0};
        const uint32_t arity = ew_[n].arity;
        // The child that needs more registers first, so the other's value waits in one register.
        uint32_t first = 0;
        if (arity == 2 && child_[n][1] && (!child_[n][0] || cost_[node.inputs[1].index].registers >
                                                               cost_[node.inputs[0].index].registers)) {
            first = 1;
        }
        for (uint32_t k = 0; k < arity; ++k) {
            const uint32_t i = k == 0 ? first : 1 - first;
            if (child_[n][i]) {
                regs[i] = Emit(node.inputs[i].index);
            } else {
                regs[i] = Allocate();
                EwInstruction load;
                load.code = EwCode::Load;
                load.dst = regs[i];
                load.a = static_cast<uint8_t>(Operand(node.inputs[i], *node.InputTensor(i)));
                Push(load);
            }
        }
        EwInstruction in = ew_[n].first;
        in.a = regs[0];
        in.b = arity == 2 ? regs[1] : 0;
        in.dst = regs[0];
        if (arity == 2) busy_[regs[1]] = false;
        Push(in);
        if (ew_[n].hasSecond) {
            EwInstruction second = ew_[n].second;
            second.a = second.dst = regs[0];
            Push(second);
        }
        return regs[0];
    }

    uint32_t Operand(const GraphSource& source, const TensorDesc& tensor) {
        for (uint32_t k = 0; k < fused_->inputs.size(); ++k) {
            const GraphSource& s = sources_[k];
            if (s.kind == source.kind && s.index == source.index && s.output == source.output &&
                SameLayout(fused_->inputs[k], tensor)) {
                return k;
            }
        }
        sources_.push_back(source);
        fused_->inputs.push_back(tensor);
        return static_cast<uint32_t>(fused_->inputs.size() - 1);
    }

    void Push(const EwInstruction& in) { fused_->program.instructions[fused_->program.instructionCount++] = in; }

    void Fuse(uint32_t root) {
        fused_ = std::make_shared<FusedElementwise>();
        sources_.clear();
        members_.clear();
        std::fill(std::begin(busy_), std::end(busy_), false);
        peak_ = 0;
        GraphNode& node = graph_.nodes[root];
        fused_->output = *node.OutputTensor(0);
        EwProgram& program = fused_->program;
        program.result = Emit(root);
        program.registerCount = peak_;
        program.inputCount = static_cast<uint32_t>(fused_->inputs.size());

        // One loop over the shape for every operand, dimensions merged where all step together.
        const TensorDesc& out = fused_->output;
        auto strideOf = [&](size_t k, uint32_t d) -> int64_t {
            if (k == 0) return out.strides[d];
            return k - 1 < fused_->inputs.size() ? int64_t(fused_->inputs[k - 1].strides[d]) : 0;
        };
        program.count = out.ElementCount();
        program.rank = MergeLoopDimensions<size_t(kEwMaxInputs + 1)>(out.sizes.data(), out.rank, strideOf,
                                                                      program.sizes, program.strides);

        std::string names;
        std::sort(members_.begin(), members_.end());
        for (uint32_t m : members_) {
            names += (names.empty() ? "" : ", ") + Format("%u %s", m, NameOf(graph_.nodes[m]));
        }
        fused_->what = Format("fused element-wise pass of nodes %s", names.c_str());
        log_.push_back(Format("fused nodes %s into one element-wise pass (%u inputs, %u instructions)", names.c_str(),
                              program.inputCount, program.instructionCount));

        for (uint32_t m : members_) {
            if (m != root) Remove(&graph_, nullptr, m);
        }
        Remove(&graph_, nullptr, root);
        node.removed = false;
        node.op.Reset();
        node.description = Format("node %u (%s)", root, fused_->what.c_str());
        node.inputs = sources_;
        for (uint32_t k = 0; k < sources_.size(); ++k) {
            if (sources_[k].kind == GraphSource::Kind::GraphInput) graph_.inputConsumers[sources_[k].index].emplace_back(root, k);
        }
        node.fused = std::move(fused_);
    }

    ValidatedGraph& graph_;
    std::vector<std::string>& log_;
    std::vector<EwNode> ew_;
    std::vector<bool> eligible_, absorbed_;
    std::vector<std::vector<bool>> child_;
    std::vector<Cost> cost_;
    // The region being fused.
    std::shared_ptr<FusedElementwise> fused_;
    std::vector<GraphSource> sources_;
    std::vector<uint32_t> members_;
    bool busy_[kEwMaxRegisters] = {};
    uint8_t peak_ = 0;
};

}  // namespace

Status OptimizeGraph(Device& device, const FusionOptions& options, ValidatedGraph* graph, std::vector<std::string>* log) {
    RemoveUnreadNodes(graph, log);
    ElideIdentities(graph, log);
    FoldGemmBiases(device, graph, log);
    if (options.accumulateOutputs) FoldResidualAdds(device, graph, log);
    FuseActivations(device, graph, log);
    FuseConvolutionClips(device, graph, log);
    OwnConstantWeights(device, graph, log);
    if (options.channelsLast && ChannelsLastEnabled()) ChooseChannelsLastIntermediates(device, graph, log);
    if (options.elementwise) TreeFuser(graph, log).Run();
    graph->order.erase(std::remove_if(graph->order.begin(), graph->order.end(),
                                      [&](uint32_t n) { return graph->nodes[n].removed; }),
                       graph->order.end());
    return {};
}

}  // namespace freedml::dml
