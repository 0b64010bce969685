// CUDA kernel of RNN, LSTM and GRU: the CPU kernel's math (../cpu/recurrent_ops.cpp) in a
// straightforward form. Batch rows and directions are independent recurrences, so one block runs
// one (direction, batch row) through its whole sequence: per step its threads compute the gates'
// pre-activations as dot products (float accumulation, FLOAT16 widened on load), synchronize, and
// apply the cell element-wise. The block's state (gates, h, c, GRU's reset state) lives in the
// temporary resource. This is correct for any size but leaves the GEMM-shaped work to plain dot
// products; a cuBLAS path for large layers is future work.
#include <cuda_fp16.h>

#include "dml/kernels/cuda/activation.cuh"
#include "dml/ops/recurrent/cuda/recurrent_device.h"

namespace freedml::dml::cuda {

namespace {

enum : int { kX, kW, kR, kBias, kH0, kC0, kLengths, kPeephole, kY, kYh, kYc };

template <class T>
__device__ __forceinline__ float Load(const void* base, int64_t index) {
    if constexpr (sizeof(T) == 2) {
        return __half2float(static_cast<const __half*>(base)[index]);
    } else {
        return static_cast<const float*>(base)[index];
    }
}

template <class T>
__device__ __forceinline__ void Store(void* base, int64_t index, float v) {
    if constexpr (sizeof(T) == 2) {
        static_cast<__half*>(base)[index] = __float2half_rn(v);
    } else {
        static_cast<float*>(base)[index] = v;
    }
}

__device__ __forceinline__ int64_t At(const int64_t* s, int64_t a, int64_t b, int64_t c, int64_t d) {
    return a * s[0] + b * s[1] + c * s[2] + d * s[3];
}

template <class T>
__global__ void RecurrentKernel(RecurrentDevicePlan p, RecurrentPointers ptr) {
    const int d = blockIdx.y;
    const int b = blockIdx.x;
    const int H = p.hidden, G = p.gates, GH = G * H;
    const bool gru = p.cell == 2;
    float* gates = ptr.temporary + (int64_t(d) * p.batch + b) * (GH + 3 * H);
    float* h = gates + GH;
    float* c = h + H;
    float* rh = c + H;
    const ActParams* act = p.act[d];
    auto clip = [&](float v) { return p.useClip ? fminf(p.clip, fmaxf(-p.clip, v)) : v; };

    int length = p.seq;
    if (p.present[kLengths]) {
        const unsigned v = static_cast<const unsigned*>(ptr.in[kLengths])[int64_t(b) * p.strides[kLengths][3]];
        length = v < unsigned(p.seq) ? int(v) : p.seq;
    }
    for (int j = threadIdx.x; j < H; j += blockDim.x) {
        h[j] = p.present[kH0] ? Load<T>(ptr.in[kH0], At(p.strides[kH0], 0, d, b, j)) : 0.0f;
        c[j] = p.present[kC0] ? Load<T>(ptr.in[kC0], At(p.strides[kC0], 0, d, b, j)) : 0.0f;
    }
    __syncthreads();
    const int64_t* sx = p.strides[kX];
    const int64_t* sw = p.strides[kW];
    const int64_t* sr = p.strides[kR];
    const int64_t* sb = p.strides[kBias];
    for (int s = 0; s < length; ++s) {
        const int t = p.backward[d] ? length - 1 - s : s;
        // Pre-activations: X W^T + H R^T + Wb + Rb (GRU's h row: X Wh^T + Wbh only; its recurrence
        // term is added below).
        for (int row = threadIdx.x; row < GH; row += blockDim.x) {
            float sum = 0.0f;
            for (int k = 0; k < p.input; ++k) {
                sum += Load<T>(ptr.in[kX], At(sx, 0, t, b, k)) * Load<T>(ptr.in[kW], At(sw, 0, d, row, k));
            }
            if (p.present[kBias]) sum += Load<T>(ptr.in[kBias], At(sb, 0, 0, d, row));
            const bool gruH = gru && row >= 2 * H;
            if (!gruH) {
                for (int k = 0; k < H; ++k) sum += h[k] * Load<T>(ptr.in[kR], At(sr, 0, d, row, k));
                if (p.present[kBias]) sum += Load<T>(ptr.in[kBias], At(sb, 0, 0, d, GH + row));
            }
            gates[row] = sum;
        }
        __syncthreads();
        if (gru) {
            // The recurrence term of the h row: Rh (r . h) + Rbh, or r . (Rh h + Rbh) with
            // LinearBeforeReset.
            for (int j = threadIdx.x; j < H; j += blockDim.x) {
                rh[j] = Activate(act[0], gates[H + j]);
                if (!p.linearBeforeReset) rh[j] *= h[j];
            }
            __syncthreads();
            for (int j = threadIdx.x; j < H; j += blockDim.x) {
                const int row = 2 * H + j;
                const bool lbr = p.linearBeforeReset;
                float sum = 0.0f;
                for (int k = 0; k < H; ++k) sum += (lbr ? h[k] : rh[k]) * Load<T>(ptr.in[kR], At(sr, 0, d, row, k));
                if (p.present[kBias]) sum += Load<T>(ptr.in[kBias], At(sb, 0, 0, d, GH + row));
                gates[row] += lbr ? rh[j] * sum : sum;
            }
            __syncthreads();
        }
        for (int j = threadIdx.x; j < H; j += blockDim.x) {
            float next;
            if (p.cell == 0) {
                next = Activate(act[0], gates[j]);
            } else if (p.cell == 1) {
                const bool peep = p.present[kPeephole];
                const int64_t* sp = p.strides[kPeephole];
                const float pi = peep ? Load<T>(ptr.in[kPeephole], At(sp, 0, 0, d, j)) : 0.0f;
                const float po = peep ? Load<T>(ptr.in[kPeephole], At(sp, 0, 0, d, H + j)) : 0.0f;
                const float pf = peep ? Load<T>(ptr.in[kPeephole], At(sp, 0, 0, d, 2 * H + j)) : 0.0f;
                const float cPrev = c[j];
                const float in = Activate(act[0], clip(gates[j] + pi * cPrev));
                const float forget = p.couple ? 1.0f - in : Activate(act[0], clip(gates[2 * H + j] + pf * cPrev));
                const float candidate = Activate(act[1], clip(gates[3 * H + j]));
                const float cell = forget * cPrev + in * candidate;
                const float out = Activate(act[0], clip(gates[H + j] + po * cell));
                c[j] = cell;
                next = out * Activate(act[2], cell);
            } else {
                const float update = Activate(act[0], gates[j]);
                const float candidate = Activate(act[1], gates[2 * H + j]);
                next = (1.0f - update) * candidate + update * h[j];
            }
            // Every thread read h[j] of its own j only in this phase; the dot products above are done.
            h[j] = next;
            if (p.present[kY]) Store<T>(ptr.out[0], At(p.strides[kY], t, d, b, j), next);
        }
        __syncthreads();
    }
    for (int j = threadIdx.x; j < H; j += blockDim.x) {
        if (p.present[kY]) {
            for (int t = length; t < p.seq; ++t) Store<T>(ptr.out[0], At(p.strides[kY], t, d, b, j), 0.0f);
        }
        // A row of length 0 ran no step: its single outputs are zero.
        if (p.present[kYh]) Store<T>(ptr.out[1], At(p.strides[kYh], 0, d, b, j), length ? h[j] : 0.0f);
        if (p.present[kYc]) Store<T>(ptr.out[2], At(p.strides[kYc], 0, d, b, j), length ? c[j] : 0.0f);
    }
}

}  // namespace

cudaError_t LaunchRecurrent(const RecurrentDevicePlan& plan, const RecurrentPointers& pointers, LaunchTarget launch) {
    if (plan.batch == 0 || plan.hidden == 0) return cudaSuccess;
    const dim3 grid(unsigned(plan.batch), unsigned(plan.dirs));
    const unsigned threads = 256;
    if (plan.half) {
        RecurrentKernel<__half><<<grid, threads, 0, launch.stream>>>(plan, pointers);
    } else {
        RecurrentKernel<float><<<grid, threads, 0, launch.stream>>>(plan, pointers);
    }
    return cudaGetLastError();
}

}  // namespace freedml::dml::cuda
