// The launch description of the CUDA kernel of RNN, LSTM and GRU (recurrent_ops.cu), planned by
// cuda_recurrent.cpp from the shared plan (../recurrent_plan.h); plain data the device code reads.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "backend/cuda/launch.h"
#include "dml/kernels/cuda/ew_plan.h"

namespace freedml::dml::cuda {

using backend::cuda::LaunchTarget;

struct RecurrentTensor {
    const void* data = nullptr;  // null: absent
    int64_t strides[4] = {};     // elements
};

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
    float* temporary = nullptr;  // RecurrentTemporaryFloats floats
};

inline uint64_t RecurrentTemporaryFloats(const RecurrentDevicePlan& p) {
    return uint64_t(p.dirs) * p.batch * (uint64_t(p.gates) * p.hidden + 3ull * p.hidden);
}

cudaError_t LaunchRecurrent(const RecurrentDevicePlan& plan, const RecurrentPointers& pointers, LaunchTarget launch);

}  // namespace freedml::dml::cuda
