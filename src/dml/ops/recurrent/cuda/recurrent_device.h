// The launch description of the CUDA kernels of RNN, LSTM and GRU (recurrent_ops.cu), planned by
// cuda_recurrent.cpp from the shared plan (../recurrent_plan.h); plain data the device code reads.
//
// The work of one execution, all on the queue's stream:
//   1. X, W and R are packed into contiguous copies of their own type (PackRecurrentOperand).
//   2. One cuBLASLt GEMM projects the input of every step for every direction and gate:
//      xw {seq, batch, dirs * gates * hidden} = X W^T, in float (cuda_recurrent.cpp).
//   3. Per step: one GEMM, batched over the directions, hr {dirs, batch, gates * hidden} = h R^T
//      (GRU without LinearBeforeReset: the z and r rows, then RecurrentGruReset forms r . h and a
//      second GEMM its h rows), then ONE kernel (RecurrentStep) for every element of the cell:
//      biases, peepholes, clip, activations, input-forget coupling, sequence lengths, the new state
//      and the output sequence.
//   4. RecurrentFinish writes the single outputs.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "backend/cuda/launch.h"
#include "dml/kernels/cuda/ew_plan.h"

namespace freedml::dml::cuda {

using backend::cuda::LaunchTarget;

struct RecurrentDevicePlan {
    int cell = 0;  // 0 RNN, 1 LSTM, 2 GRU
    int gates = 1;
    int seq = 0, batch = 0, input = 0, hidden = 0, dirs = 1;
    bool backward[2] = {false, true};
    ActParams act[2][3];
    bool half = false;
    bool useClip = false;
    float clip = 0.0f;
    bool couple = false;
    bool linearBeforeReset = false;
    // Inputs: x, w, r, bias, h0, c0, lengths (UINT32), peephole; outputs: y, yh, yc.
    int64_t strides[11][4] = {};
    bool present[11] = {};
};

struct RecurrentPointers {
    const void* in[8] = {};
    void* out[3] = {};
};

// The state and intermediate buffers in the temporary resource.
struct RecurrentBuffers {
    const float* xw = nullptr;  // {seq, batch, dirs, gates * hidden}
    float* hr = nullptr;        // {dirs, batch, gates * hidden}
    float* h = nullptr;         // {dirs, batch, hidden}: the state in float
    float* c = nullptr;         // LSTM's cell state, the same shape
    void* hOperand = nullptr;   // h in the data type, the recurrent GEMM's operand
    void* resetH = nullptr;     // GRU: r . h in the data type
};

// Copies input `slot` (0 X, 1 W, 2 R) into `destination`, contiguous in its own shape.
cudaError_t PackRecurrentOperand(const RecurrentDevicePlan& plan, int slot, const void* source, void* destination,
                                 LaunchTarget launch);
// h and c from the initial states (zero where absent).
cudaError_t LaunchRecurrentInit(const RecurrentDevicePlan& plan, const RecurrentPointers& pointers,
                                const RecurrentBuffers& buffers, LaunchTarget launch);
// GRU without LinearBeforeReset: r . h of step `step` into buffers.resetH (hr holds the z and r rows).
cudaError_t LaunchRecurrentGruReset(const RecurrentDevicePlan& plan, const RecurrentPointers& pointers,
                                    const RecurrentBuffers& buffers, int step, LaunchTarget launch);
// The cell of step `step` for every direction, batch row and hidden unit.
cudaError_t LaunchRecurrentStep(const RecurrentDevicePlan& plan, const RecurrentPointers& pointers,
                                const RecurrentBuffers& buffers, int step, LaunchTarget launch);
// The single outputs (and the output sequence when there are no steps).
cudaError_t LaunchRecurrentFinish(const RecurrentDevicePlan& plan, const RecurrentPointers& pointers,
                                  const RecurrentBuffers& buffers, LaunchTarget launch);

}  // namespace freedml::dml::cuda
