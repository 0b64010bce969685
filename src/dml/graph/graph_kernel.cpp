#include "dml/graph/graph_kernel.h"

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>

#include "common/align.h"
#include "dml/compiled_operator.h"
#include "dml/device.h"
#include "dml/graph/fusion.h"

namespace freedml::dml {

namespace {

// Every region of the persistent and temporary resources starts at this alignment, which every
// kernel's vector loads and every tensor's GuaranteedBaseOffsetAlignment are satisfied with.
constexpr uint64_t kRegionAlignment = 256;

// An intermediate's bytes and the steps during which it is live (inclusive).
struct Lifetime {
    uint64_t bytes = 0;
    size_t first = 0, last = 0;
    uint64_t offset = 0;
};

// Places each lifetime (sorted by `first`) at the lowest offset no live one occupies; returns the
// area's size.
uint64_t PlaceByLifetime(std::vector<Lifetime*>& lifetimes) {
    std::vector<Lifetime*> live;  // sorted by offset
    uint64_t area = 0;
    for (Lifetime* next : lifetimes) {
        live.erase(std::remove_if(live.begin(), live.end(), [&](Lifetime* l) { return l->last < next->first; }),
                   live.end());
        uint64_t candidate = 0;
        for (Lifetime* l : live) {
            if (candidate + next->bytes <= l->offset) break;
            candidate = std::max(candidate, AlignUp(l->offset + l->bytes, kRegionAlignment));
        }
        next->offset = candidate;
        live.insert(std::upper_bound(live.begin(), live.end(), next,
                                     [](Lifetime* a, Lifetime* b) { return a->offset < b->offset; }),
                    next);
        area = std::max(area, candidate + next->bytes);
    }
    return AlignUp(area, kRegionAlignment);
}

}  // namespace

namespace {
bool GraphProfileEnabled() {
    const char* value = std::getenv("FREEDML_PROFILE");
    return value && std::strstr(value, "graph");
}
}  // namespace

GraphKernel::GraphKernel(ValidatedGraph graph, std::vector<std::unique_ptr<Kernel>> kernels)
    : graph_(std::move(graph)), kernels_(std::move(kernels)) {
    Plan();
    profile_ = GraphProfileEnabled();
    if (profile_) stepNanoseconds_.assign(steps_.size(), 0);
}

GraphKernel::~GraphKernel() {
    if (profile_ && profiledRuns_ > 0) PrintProfile();
}

// One table to standard error: the slowest nodes first, then the time per operator type. The
// first execution is left out (kernels set up there) unless it is the only one.
void GraphKernel::PrintProfile() const {
    uint64_t total = 0;
    for (uint64_t ns : stepNanoseconds_) total += ns;
    const double runs = static_cast<double>(profiledRuns_ > 1 ? profiledRuns_ - 1 : 1);
    std::fprintf(stderr, "FreeDML profile: graph of %zu nodes (%zu kernels), %.0f executions timed, %.3f ms each\n",
                 graph_.nodes.size(), steps_.size(), runs,
                 total / runs / 1e6);
    std::vector<size_t> order(steps_.size());
    for (size_t s = 0; s < order.size(); ++s) order[s] = s;
    std::stable_sort(order.begin(), order.end(),
                     [&](size_t a, size_t b) { return stepNanoseconds_[a] > stepNanoseconds_[b]; });
    std::map<std::string, std::pair<uint64_t, int>> byKind;  // per operator type: time, nodes
    for (size_t s = 0; s < steps_.size(); ++s) {
        const GraphNode& node = graph_.nodes[steps_[s].node];
        auto& entry = byKind[node.op ? node.op->Schema().name : "fused element-wise"];
        entry.first += stepNanoseconds_[s];
        entry.second += 1;
    }
    const size_t shown = std::min<size_t>(order.size(), 40);
    std::fprintf(stderr, "FreeDML profile:   ms/run      %%  node\n");
    for (size_t i = 0; i < shown; ++i) {
        const size_t s = order[i];
        std::fprintf(stderr, "FreeDML profile: %8.3f %6.1f  %s\n", stepNanoseconds_[s] / runs / 1e6,
                     total ? 100.0 * stepNanoseconds_[s] / total : 0.0, graph_.nodes[steps_[s].node].description.c_str());
    }
    std::vector<std::pair<std::string, std::pair<uint64_t, int>>> kinds(byKind.begin(), byKind.end());
    std::stable_sort(kinds.begin(), kinds.end(), [](const auto& a, const auto& b) { return a.second.first > b.second.first; });
    std::fprintf(stderr, "FreeDML profile:   ms/run      %%  count  kind\n");
    for (const auto& [kind, entry] : kinds) {
        std::fprintf(stderr, "FreeDML profile: %8.3f %6.1f %6d  %s\n", entry.first / runs / 1e6,
                     total ? 100.0 * entry.first / total : 0.0, entry.second, kind.c_str());
    }
}

void GraphKernel::Plan() {
    const size_t nodeCount = graph_.nodes.size();
    std::vector<size_t> position(nodeCount);
    for (size_t p = 0; p < graph_.order.size(); ++p) position[graph_.order[p]] = p;

    // Constants first in the persistent resource, then each node kernel's bytes.
    constantOffsets_.assign(nodeCount, 0);
    constantBytes_.assign(nodeCount, {});
    uint64_t persistent = 0;
    for (size_t n = 0; n < nodeCount; ++n) {
        const GraphNode& node = graph_.nodes[n];
        if (!node.IsConstant()) continue;
        constantOffsets_[n] = persistent;
        constantBytes_[n] = node.constant;
        constantBytes_[n].resize(node.constantTensor->totalTensorSizeInBytes, std::byte{0});
        persistent = AlignUp(persistent + constantBytes_[n].size(), kRegionAlignment);
    }

    // Which graph outputs each node output fills.
    std::vector<std::vector<std::vector<uint32_t>>> fills(nodeCount);
    for (size_t n = 0; n < nodeCount; ++n) fills[n].resize(graph_.nodes[n].outputCount);
    for (uint32_t j = 0; j < graph_.outputSources.size(); ++j) {
        const auto [n, o] = graph_.outputSources[j];
        fills[n][o].push_back(j);
    }
    // The last step that reads each node output.
    std::vector<std::vector<size_t>> lastRead(nodeCount);
    for (size_t n = 0; n < nodeCount; ++n) lastRead[n].assign(graph_.nodes[n].outputCount, position[n]);
    for (size_t n = 0; n < nodeCount; ++n) {
        for (const GraphSource& source : graph_.nodes[n].inputs) {
            if (source.kind != GraphSource::Kind::NodeOutput) continue;
            size_t& last = lastRead[source.index][source.output];
            last = std::max(last, position[n]);
        }
    }

    // A node output written over another intermediate's bytes (GraphNode::outputOver) shares that
    // intermediate's lifetime, which lasts until its last reader; chains end at the first.
    std::vector<std::pair<uint32_t, uint32_t>> over(nodeCount, {UINT32_MAX, 0});  // root of output 0
    for (uint32_t n : graph_.order) {
        const GraphSource& source = graph_.nodes[n].outputOver;
        if (source.kind != GraphSource::Kind::NodeOutput) continue;
        over[n] = over[source.index].first != UINT32_MAX && source.output == 0 ? over[source.index]
                                                                               : std::make_pair(source.index, source.output);
        size_t& last = lastRead[over[n].first][over[n].second];
        last = std::max(last, lastRead[n][0]);
    }

    // Steps in topological order; node outputs that no graph output takes become intermediates.
    std::vector<std::vector<Lifetime>> lifetimes(nodeCount);
    for (size_t n = 0; n < nodeCount; ++n) lifetimes[n].resize(graph_.nodes[n].outputCount);
    std::vector<Lifetime*> ordered;
    for (uint32_t n : graph_.order) {
        const GraphNode& node = graph_.nodes[n];
        if (!kernels_[n]) continue;
        Step step;
        step.node = n;
        step.persistentOffset = persistent;
        persistent = AlignUp(persistent + kernels_[n]->PersistentResourceSize(), kRegionAlignment);
        nodeTemporarySize_ = std::max(nodeTemporarySize_, kernels_[n]->TemporaryResourceSize());
        step.outputs.resize(node.outputCount);
        for (uint32_t o = 0; o < node.outputCount; ++o) {
            const TensorDesc* tensor = node.OutputTensor(o);
            if (!tensor) continue;  // an absent optional output
            if (!fills[n][o].empty()) {
                step.outputs[o] = {Place::Kind::GraphOutput, fills[n][o][0], 0};
                for (size_t k = 1; k < fills[n][o].size(); ++k) {
                    step.copies.push_back({o, fills[n][o][k], tensor->totalTensorSizeInBytes});
                }
                continue;
            }
            if (o == 0 && over[n].first != UINT32_MAX) {
                step.outputs[o] = {Place::Kind::Intermediate, 0, 0};  // the root's offset, below
                continue;
            }
            // Read by other nodes, or by nobody (an unconnected output still needs somewhere to go).
            Lifetime& lifetime = lifetimes[n][o];
            lifetime.bytes = tensor->totalTensorSizeInBytes;
            lifetime.first = position[n];
            lifetime.last = lastRead[n][o];
            ordered.push_back(&lifetime);
            unpackedIntermediates_ += AlignUp(lifetime.bytes, kRegionAlignment);
            step.outputs[o] = {Place::Kind::Intermediate, 0, 0};  // offset filled in below
        }
        steps_.push_back(std::move(step));
    }
    persistentSize_ = persistent;
    intermediateArea_ = PlaceByLifetime(ordered);
    nodeTemporarySize_ = AlignUp(nodeTemporarySize_, kRegionAlignment);
    temporarySize_ = nodeTemporarySize_ + intermediateArea_;

    // Now that intermediates have offsets, say where every node input and output is.
    auto lifetimeOf = [&](uint32_t n, uint32_t o) -> const Lifetime& {
        if (o == 0 && over[n].first != UINT32_MAX) return lifetimes[over[n].first][over[n].second];
        return lifetimes[n][o];
    };
    for (Step& step : steps_) {
        const GraphNode& node = graph_.nodes[step.node];
        for (uint32_t o = 0; o < step.outputs.size(); ++o) {
            if (step.outputs[o].kind == Place::Kind::Intermediate) step.outputs[o].offset = lifetimeOf(step.node, o).offset;
        }
        step.inputs.resize(node.inputs.size());
        for (size_t i = 0; i < node.inputs.size(); ++i) {
            const GraphSource& source = node.inputs[i];
            if (source.kind == GraphSource::Kind::GraphInput) {
                step.inputs[i] = {Place::Kind::GraphInput, source.index, 0};
            } else if (source.kind == GraphSource::Kind::NodeOutput) {
                const GraphNode& producer = graph_.nodes[source.index];
                if (producer.IsConstant()) {
                    step.inputs[i] = {Place::Kind::Constant, 0, constantOffsets_[source.index]};
                } else if (!fills[source.index][source.output].empty()) {
                    step.inputs[i] = {Place::Kind::GraphOutput, fills[source.index][source.output][0], 0};
                } else {
                    step.inputs[i] = {Place::Kind::Intermediate, 0, lifetimeOf(source.index, source.output).offset};
                }
            }
        }
    }

    // In-place execution (H2): the last step that reads any graph input against the first step
    // that writes any graph output.
    constexpr size_t kNever = SIZE_MAX;
    size_t lastInputRead = kNever, firstOutputWrite = kNever;
    for (size_t s = 0; s < steps_.size(); ++s) {
        for (const Place& place : steps_[s].inputs) {
            if (place.kind == Place::Kind::GraphInput) lastInputRead = s;
        }
        bool writes = !steps_[s].copies.empty();
        for (const Place& place : steps_[s].outputs) writes = writes || place.kind == Place::Kind::GraphOutput;
        if (writes && firstOutputWrite == kNever) firstOutputWrite = s;
    }
    if (lastInputRead == kNever || firstOutputWrite == kNever || lastInputRead < firstOutputWrite) {
        supportsInPlace_ = true;
    } else if (lastInputRead == firstOutputWrite) {
        // The one step that both reads inputs last and writes outputs first: in place only if its
        // operator is, and then no later step may read a graph input (none does: it is the last).
        const GraphNode& node = graph_.nodes[steps_[lastInputRead].node];
        // A fused element-wise pass (graph/fusion.h) computes each output element from the input
        // elements at the same position, as the element-wise operators it replaced do in place.
        supportsInPlace_ = node.op ? node.op->Args().schema.supportsInPlaceExecution : node.fused != nullptr;
    }
}

std::byte* GraphKernel::Address(const Place& place, const KernelBindings& bindings) const {
    switch (place.kind) {
        case Place::Kind::GraphInput:
            return place.index < bindings.inputs.size() ? bindings.inputs[place.index] : nullptr;
        case Place::Kind::GraphOutput:
            return place.index < bindings.outputs.size() ? bindings.outputs[place.index] : nullptr;
        case Place::Kind::Intermediate:
            return bindings.temporary + nodeTemporarySize_ + place.offset;
        case Place::Kind::Constant:
            return bindings.persistent + place.offset;
        case Place::Kind::None:
            break;
    }
    return nullptr;
}

bool GraphKernel::PacksOwnedInput(size_t input) const {
    if (input >= graph_.inputConsumers.size() || graph_.inputConsumers[input].empty()) return false;
    for (const auto& [n, i] : graph_.inputConsumers[input]) {
        if (!kernels_[n]->PacksOwnedInput(i)) return false;
    }
    return true;
}

void GraphKernel::Initialize(const KernelBindings& bindings) {
    for (size_t n = 0; n < constantBytes_.size(); ++n) {
        if (constantBytes_[n].empty()) continue;
        bindings.stream->WriteFromHost(bindings.persistent + constantOffsets_[n], constantBytes_[n].data(),
                                       constantBytes_[n].size());
    }
    for (const Step& step : steps_) {
        KernelBindings node;
        node.stream = bindings.stream;
        node.persistent = bindings.persistent + step.persistentOffset;
        // Only owned graph inputs and constants (which the optimizer may have made owned weights,
        // fusion.cpp) are bound at initialization; everything else is null.
        node.inputs.resize(step.inputs.size(), nullptr);
        for (size_t i = 0; i < step.inputs.size(); ++i) {
            const Place::Kind kind = step.inputs[i].kind;
            if (kind == Place::Kind::GraphInput || kind == Place::Kind::Constant)
                node.inputs[i] = Address(step.inputs[i], bindings);
        }
        kernels_[step.node]->Initialize(node);
    }
}

void GraphKernel::Execute(const KernelBindings& bindings) {
    KernelBindings node;
    node.stream = bindings.stream;
    node.temporary = bindings.temporary;
    // Profiling waits for each node's work (a GPU stream's too) so that its time is its own.
    const bool timed = profile_;
    if (timed && profiledRuns_ == 1) std::fill(stepNanoseconds_.begin(), stepNanoseconds_.end(), 0);
    for (size_t s = 0; s < steps_.size(); ++s) {
        const Step& step = steps_[s];
        const auto start = timed ? std::chrono::steady_clock::now() : std::chrono::steady_clock::time_point{};
        node.persistent = bindings.persistent + step.persistentOffset;
        node.inputs.resize(step.inputs.size());
        for (size_t i = 0; i < step.inputs.size(); ++i) node.inputs[i] = Address(step.inputs[i], bindings);
        node.outputs.resize(step.outputs.size());
        for (size_t o = 0; o < step.outputs.size(); ++o) node.outputs[o] = Address(step.outputs[o], bindings);
        kernels_[step.node]->Execute(node);
        for (const Step::Copy& copy : step.copies) {
            bindings.stream->CopyAddresses(bindings.outputs[copy.graphOutput], node.outputs[copy.output], copy.bytes);
        }
        if (timed) {
            bindings.stream->Finish();
            stepNanoseconds_[s] += static_cast<uint64_t>(
                std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - start).count());
        }
    }
    if (timed) ++profiledRuns_;
}

namespace {

// The kernel of one node: its operator's, or the backend's fused element-wise kernel.
Status CreateNodeKernel(Device& device, const GraphNode& node, DML_EXECUTION_FLAGS flags, std::unique_ptr<Kernel>* kernel) {
    if (node.op) {
        FREEDML_TRY_CONTEXT(CreateKernelFor(device, *node.op.Get(), flags, kernel), "compiling %s of the graph",
                            node.description.c_str());
        return {};
    }
    backend::Device& backend = device.D3D12().Backend();
    const KernelSet& kernels = backend.DmlKernels() ? *backend.DmlKernels() : CpuKernels();
    FREEDML_TRY_CONTEXT(kernels.Graphs().fusedElementwise(KernelContext{backend, flags}, node.fused->program, kernel),
                        "compiling %s of the graph", node.description.c_str());
    return {};
}

}  // namespace

Status CompileGraph(Device& device, const DML_GRAPH_DESC& desc, uint32_t rawFlags, CompiledOperator** created) {
    DML_EXECUTION_FLAGS flags = DML_EXECUTION_FLAG_NONE;
    FREEDML_TRY_CONTEXT(ValidateExecutionFlags(rawFlags, &flags), "checking the execution flags of the whole graph (G10)");
    ValidatedGraph graph;
    FREEDML_TRY(ValidateGraph(device, desc, &graph));

    // The compiled operator's interface is the graph as the application described it.
    CompiledInterface shape;
    shape.inputs = graph.inputTensors;
    shape.inputNames = graph.inputNames;
    for (const auto& [n, o] : graph.outputSources) shape.outputs.push_back(graph.nodes[n].OutputTensor(o));
    shape.outputNames = graph.outputNames;
    shape.what = Format("graph of %zu nodes", graph.nodes.size());
    shape.subject = shape.what;
    for (const GraphNode& node : graph.nodes) {
        if (node.op) shape.operators.push_back(Ref<Operator>::Share(node.op.Get()));
    }

    backend::Device& backend = device.D3D12().Backend();
    const KernelSet& kernelSet = backend.DmlKernels() ? *backend.DmlKernels() : CpuKernels();
    std::vector<std::string> log;
    if (GraphFusionEnabled()) {
        FusionOptions options;
        options.elementwise = kernelSet.Graphs().fusedElementwise != nullptr;
        options.channelsLast = &kernelSet == &CpuKernels();
        options.accumulateOutputs = options.channelsLast;
        FREEDML_TRY(OptimizeGraph(device, options, &graph, &log));
    }
    if (GraphDebugLog()) {
        for (const std::string& line : log) std::fprintf(stderr, "FreeDML graph: %s\n", line.c_str());
    }

    std::vector<std::unique_ptr<Kernel>> kernels(graph.nodes.size());
    auto createKernels = [&]() -> Status {
        for (uint32_t n : graph.order) {
            const GraphNode& node = graph.nodes[n];
            if (node.IsConstant()) continue;
            FREEDML_TRY(CreateNodeKernel(device, node, flags, &kernels[n]));
        }
        return {};
    };
    if (Status made = createKernels(); !made.ok()) {
        if (log.empty()) return made;
        // A backend may refuse an operator the optimizer made (an activation its epilogue does not
        // run): the graph is compiled as the application wrote it instead.
        log.push_back("the optimized graph did not compile (" + made.message() + "); compiled as written");
        if (GraphDebugLog()) std::fprintf(stderr, "FreeDML graph: %s\n", log.back().c_str());
        graph = ValidatedGraph{};
        FREEDML_TRY(ValidateGraph(device, desc, &graph));
        kernels.clear();
        kernels.resize(graph.nodes.size());
        FREEDML_TRY(createKernels());
    }
    std::vector<Kernel*> nodeKernels;
    for (uint32_t n : graph.order) {
        if (kernels[n]) nodeKernels.push_back(kernels[n].get());
    }
    std::unique_ptr<Kernel> kernel = std::make_unique<GraphKernel>(std::move(graph), std::move(kernels));
    auto& graphKernel = static_cast<GraphKernel&>(*kernel);
    graphKernel.SetLog(std::move(log));
    shape.supportsInPlaceExecution = graphKernel.SupportsInPlaceExecution();
    // A replayed CUDA graph would bypass the per-node timing of FREEDML_PROFILE=graph.
    if (kernelSet.Graphs().replayGraph && !GraphProfileEnabled()) kernelSet.Graphs().replayGraph(&kernel, nodeKernels);
    return CompiledOperator::Create(device, std::move(shape), flags, std::move(kernel), created);
}

}  // namespace freedml::dml
