// What the CPU and CUDA kernels of RNN, LSTM and GRU read from a validated desc: the sizes, the
// binding index of each optional tensor, each direction's activations and the cell's options.
//
// The layout (DirectML's 4-D tensors, the ONNX operators' gate order):
//   InputTensor        {1, seq, batch, input}
//   WeightTensor       {1, dirs, gates * hidden, input}    gates: RNN 1; LSTM 4 (i, o, f, c); GRU 3 (z, r, h)
//   RecurrenceTensor   {1, dirs, gates * hidden, hidden}
//   BiasTensor         {1, 1, dirs, 2 * gates * hidden}    Wb of every gate, then Rb of every gate
//   HiddenInitTensor   {1, dirs, batch, hidden}            (CellMemInitTensor the same)
//   SequenceLengths    {1, 1, 1, batch}, UINT32
//   PeepholeTensor     {1, 1, dirs, 3 * hidden}            i, o, f
//   OutputSequence     {seq, dirs, batch, hidden}
//   OutputSingle       {1, dirs, batch, hidden}            (OutputCellSingle the same)
// Direction 0 of BIDIRECTIONAL runs forward, direction 1 backward. A batch row of sequence length L
// runs steps 0..L-1 (backward: L-1 down to 0); its sequence output is zero from step L on and its
// single outputs hold the state after its last step, zero when L is 0 (as ONNX Runtime gives them;
// DirectML's pages say nothing of 0). A length past seq_length runs the whole sequence.
#pragma once

#include <DirectML.h>

#include <cstdint>

#include "common/status.h"
#include "dml/ops/activation/activation_params.h"
#include "dml/schema/schema.h"

namespace freedml::dml {

enum class RecurrentCell : uint8_t { Rnn, Lstm, Gru };

struct RecurrentPlan {
    RecurrentCell cell = RecurrentCell::Rnn;
    uint32_t gates = 1;  // 1, 4 or 3
    uint32_t seq = 0, batch = 0, input = 0, hidden = 0, dirs = 1;
    bool backward[2] = {false, true};  // whether direction d runs from the last step to the first
    // Per direction: RNN f; LSTM f, g, h; GRU f, g.
    ActivationParams activations[2][3];
    DML_TENSOR_DATA_TYPE dataType = DML_TENSOR_DATA_TYPE_FLOAT32;
    bool useClip = false;  // LSTM
    float clip = 0.0f;
    bool coupleInputForget = false;  // LSTM: f = 1 - i
    bool linearBeforeReset = false;  // GRU
    // Binding indices of the inputs (-1: this operator has no such field).
    int bias = 3, hiddenInit = 4, cellInit = -1, sequenceLengths = 5, peephole = -1;
    // Outputs: 0 OutputSequence, 1 OutputSingle, 2 OutputCellSingle (LSTM).
};

// `args` was validated by the operator's schema.
RecurrentPlan MakeRecurrentPlan(const OperatorArgs& args);

}  // namespace freedml::dml
