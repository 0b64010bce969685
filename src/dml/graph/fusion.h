// The graph optimizer: rewrites a validated graph into one that computes the same outputs with
// fewer nodes and fewer intermediates, before its kernels are made.
//   - identity elision: an ELEMENT_WISE_IDENTITY without ScaleBias whose input and output are the
//     same packed layout is a byte copy; its readers read its source instead.
//   - GEMM biases: ADD(GEMM(A, B), bias) with GEMM's C absent becomes GEMM's C (Beta 1).
//   - activation epilogues: an ACTIVATION_* node that alone reads the output of a node with an
//     empty FusedActivation (GEMM, CONVOLUTION, ...) becomes that node's FusedActivation.
//   - element-wise trees: FLOAT32 element-wise nodes of one shape whose intermediates have one
//     reader and are no graph output become one node that runs an EwProgram (ew_program.h) in one
//     pass over memory.
//   - residual additions (CPU): ADD(CONVOLUTION(x), r), r an intermediate nothing reads after the
//     convolution, becomes the convolution writing over r's bytes and adding onto them.
//   - channels-last intermediates (CPU): the activations between convolutions are stored NHWC
//     (graph/layout.h), before the element-wise trees are fused.
// The graph inputs, outputs and their tensors do not change. FREEDML_GRAPH_FUSION=0 turns the
// optimizer off (the random-graph conformance runs both ways).
#pragma once

#include <string>
#include <vector>

#include "dml/graph/ew_program.h"
#include "dml/graph/graph.h"

namespace freedml::dml {

struct FusedElementwise {
    EwProgram program;
    std::vector<TensorDesc> inputs;  // as the fused nodes read them; all FLOAT32 of one shape
    TensorDesc output;
    std::string what;  // "ELEMENT_WISE_ADD -> ACTIVATION_RELU (nodes 3, 4)"
};

struct FusionOptions {
    bool elementwise = true;  // the backend runs fused element-wise programs
    bool accumulateOutputs = false;  // the backend's convolutions honour OperatorArgs::accumulateOutput
    bool channelsLast = false;  // the backend's convolutions prefer channels-last activations (graph/layout.h)
};

// False when FREEDML_GRAPH_FUSION is "0" (read at every compile).
bool GraphFusionEnabled();
// FREEDML_DEBUG is set (not "0"): CompileGraph prints one line per rewrite to standard error.
bool GraphDebugLog();

// Rewrites `graph` in place (removed nodes stay in `nodes`, marked, and leave `order`); keeps new
// operators it creates alive in the nodes. `log` gets one line per rewrite.
Status OptimizeGraph(Device& device, const FusionOptions& options, ValidatedGraph* graph, std::vector<std::string>* log);

}  // namespace freedml::dml
