// Channels-last intermediates: the CPU graph optimizer's choice of layout for the activations that
// flow between convolutions. The intermediates of a compiled graph are its own (no application
// binds them), so the graph may store them in whatever layout its kernels run fastest. oneDNN's
// direct and 1x1 convolutions run on NHWC (channels-last) memory without reordering it, where
// plain NCHW memory sends 1x1 convolutions to its GEMM-based path and makes depthwise ones reorder
// their activations into and out of a blocked layout at every execution.
//
// An intermediate becomes channels-last (element strides {H*W*C, 1, W*C, C} over sizes
// {N, C, H, W}) when it is a FLOAT32 4-D packed tensor of more than one channel and pixel, no
// graph output, written by a CONVOLUTION or by a point-wise node (ELEMENT_WISE_ADD, CLIP, the
// ACTIVATION_* operators that act on each element alone, ...) that reads a channels-last
// intermediate, and read only as a CONVOLUTION's Input or by such point-wise nodes, each reading it
// in the layout its producer wrote. The rewritten nodes compute what they computed before:
//   - a CONVOLUTION gets the channels-last strides on the Input and Output it touches;
//   - a point-wise node gets every operand (inputs, output) viewed in the dimension order
//     {N, H, W, C}: a channels-last operand is then packed, any other one strided, and an
//     element-wise loop walks the channels-last ones contiguously.
// Graph inputs and outputs keep their layouts (a convolution that reads or writes one reorders, as
// a lone operator does). FREEDML_CHANNELS_LAST=0 turns the choice off.
#pragma once

#include <string>
#include <vector>

#include "dml/graph/graph.h"

namespace freedml::dml {

// False when FREEDML_CHANNELS_LAST is "0" (read at every compile).
bool ChannelsLastEnabled();

// Rewrites the nodes around the intermediates it chooses (their operators re-created with the new
// tensor descs); one log line per intermediate.
void ChooseChannelsLastIntermediates(Device& device, ValidatedGraph* graph, std::vector<std::string>* log);

}  // namespace freedml::dml
