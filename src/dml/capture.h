// Capture (FREEDML_CAPTURE=DIR): what a program dispatches, written while it runs as a dmlrun
// model, DIR/model.json with .npy files beside it (docs/USER-GUIDE.md, "Capturing a workload").
//
// Every executed dispatch becomes a dispatch command of its own, with its own resources: the
// bytes each bound input held when it ran (and each output before it ran), and, as the command's
// "expected" outputs, what it wrote. Replayed, every dispatch sees exactly what it saw in the
// program, so `dmlrun --check` compares outputs bit for bit and `--compare-adapters` finds the
// first dispatch two adapters disagree on, with nothing propagated from earlier ones.
//
// Settings, read once when libdirectml loads:
//   FREEDML_CAPTURE=DIR          where to write (created if needed)
//   FREEDML_CAPTURE_LIMIT=BYTES  the data written, all .npy files together (default 256 MiB; K, M,
//                                G suffixes); a buffer that would pass it is left out and the
//                                model fills it with seeded random values instead
//   FREEDML_CAPTURE_FIRST=N      only the N first executions (initializations are not counted)
// Off, the cost is one predictable branch per executed dispatch.
#pragma once

#include <DirectML.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace freedml::backend {
class Stream;
}

namespace freedml::dml {

class CompiledOperator;

namespace capture {

constexpr int kFormatVersion = 1;

extern const bool gEnabled;
inline bool Enabled() { return __builtin_expect(gEnabled, 0); }

// True when capture or the test hook below is on: the one branch a dispatch takes when both are off.
extern const bool gExecutionHooks;
inline bool ExecutionHooks() { return __builtin_expect(gExecutionHooks, 0); }

// The JSON of a graph dispatchable (dmlrun's "type": "graph" form), made by CompileGraph.
std::string GraphJson(const DML_GRAPH_DESC& desc);

// One bound tensor of a dispatch: where its bytes are (a kernel address) and how many to take.
struct Bound {
    size_t index = 0;            // in the dispatchable's inputs or outputs
    const std::byte* address = nullptr;
    uint64_t bytes = 0;
};

// An operator initializer ran: `inputs` are the OWNED_BY_DML inputs it read for `target`.
void RecordInitialization(CompiledOperator& target, const std::vector<Bound>& inputs, backend::Stream& stream);

// A dispatch is about to run. Returns a token for ExecutionFinished (0: not captured).
uint64_t ExecutionStarting(CompiledOperator& compiled, const std::vector<Bound>& inputs,
                           const std::vector<Bound>& outputs, backend::Stream& stream);
// It ran: its outputs are read again as the expected ones, and the model is written.
void ExecutionFinished(uint64_t token, const std::vector<Bound>& outputs, backend::Stream& stream);

// A test hook for `dmlrun --compare-adapters`: FREEDML_TEST_PERTURB=TYPE@N (TYPE an operator type
// without DML_OPERATOR_, N the ordinal of a DirectML device in the process, 1 for the first) adds
// 1 to the first element of output 0 of every dispatch of a TYPE operator on that device, so that
// a test can check that the comparison names the dispatch. Never set outside tests.
void ApplyTestPerturbation(CompiledOperator& compiled, uint32_t deviceOrdinal, const std::vector<Bound>& outputs,
                           backend::Stream& stream);

}  // namespace capture
}  // namespace freedml::dml
