// GraphKernel: a validated graph planned for one backend, run as one Kernel. Its nodes' kernels
// run in topological order; each node input reads a graph input binding, a graph output binding
// (an output another node also reads), an intermediate in the temporary resource, or a constant
// in the persistent resource.
//
// Memory:
//   persistent: every node kernel's persistent bytes, then the constants (written at initialization)
//   temporary:  one region every node uses in turn as its own temporary resource (the largest a
//               node needs), then the intermediates, placed by lifetime: two intermediates share
//               bytes when no node runs while both are live. A node output written over another
//               intermediate (GraphNode::outputOver) takes that one's bytes, which stay live until
//               the output's last reader.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "dml/graph/graph.h"
#include "dml/kernel.h"

namespace freedml::dml {

class GraphKernel final : public Kernel {
public:
    // `kernels` holds one kernel per node (null for constant nodes), indexed like graph.nodes.
    GraphKernel(ValidatedGraph graph, std::vector<std::unique_ptr<Kernel>> kernels);
    // With FREEDML_PROFILE=graph, prints the time each node took over all executions.
    ~GraphKernel() override;

    uint64_t PersistentResourceSize() const override { return persistentSize_; }
    uint64_t TemporaryResourceSize() const override { return temporarySize_; }
    void Initialize(const KernelBindings& bindings) override;
    // A graph input is packed when every node that reads it packs it; otherwise the compiled
    // operator keeps a copy of it that the other readers read at execution.
    bool PacksOwnedInput(size_t input) const override;
    void Execute(const KernelBindings& bindings) override;

    // The sum of the intermediates' sizes, against which the temporary resource's intermediate
    // area compares (what lifetime packing saves).
    uint64_t IntermediateBytesUnpacked() const { return unpackedIntermediates_; }
    uint64_t IntermediateBytes() const { return intermediateArea_; }
    // What the optimizer did to the graph, one line per rewrite (graph/fusion.h).
    const std::vector<std::string>& Log() const { return log_; }
    void SetLog(std::vector<std::string> log) { log_ = std::move(log); }

    // Whether any graph output may be bound to the same bytes as any graph input (H2): true when
    // every graph output is written no earlier than the last step that reads any graph input, and
    // where that last read is the writing node itself, the node's operator supports in-place
    // execution. Then no node reads an input after its bytes were overwritten, whichever pair the
    // application binds in place (as it does for TensorFlow's Assign and Apply kernels).
    bool SupportsInPlaceExecution() const { return supportsInPlace_; }

private:
    // Where one node input or output lives at execution.
    struct Place {
        enum class Kind : uint8_t { None, GraphInput, GraphOutput, Intermediate, Constant };
        Kind kind = Kind::None;
        uint32_t index = 0;   // graph input or output
        uint64_t offset = 0;  // in the intermediate area, or in the persistent resource
    };
    struct Step {
        uint32_t node = 0;
        uint64_t persistentOffset = 0;
        std::vector<Place> inputs;
        std::vector<Place> outputs;
        // Graph outputs past the first that one node output fills: (output, graph output, bytes),
        // copied after the node runs.
        struct Copy {
            uint32_t output, graphOutput;
            uint64_t bytes;
        };
        std::vector<Copy> copies;
    };

    void Plan();
    std::byte* Address(const Place& place, const KernelBindings& bindings) const;

    ValidatedGraph graph_;  // first: the node kernels read their operators' args
    std::vector<std::unique_ptr<Kernel>> kernels_;
    std::vector<Step> steps_;  // in topological order
    std::vector<uint64_t> constantOffsets_;  // per node; constants only
    std::vector<std::vector<std::byte>> constantBytes_;  // per node: the data, zero-padded to its tensor's size
    uint64_t persistentSize_ = 0;
    uint64_t nodeTemporarySize_ = 0;  // the shared region at the start of the temporary resource
    uint64_t intermediateArea_ = 0;
    uint64_t unpackedIntermediates_ = 0;
    uint64_t temporarySize_ = 0;
    std::vector<std::string> log_;
    bool supportsInPlace_ = false;

    // FREEDML_PROFILE=graph: the nanoseconds each step took, summed over `profiledRuns_` executions.
    bool profile_ = false;
    std::vector<uint64_t> stepNanoseconds_;
    uint64_t profiledRuns_ = 0;
    void PrintProfile() const;
};

}  // namespace freedml::dml
