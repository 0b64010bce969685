// CUDA kernels of RNN, LSTM and GRU around the cuBLASLt products of cuda_recurrent.cpp (the order
// of the work is in recurrent_device.h). The math is the CPU kernel's (../cpu/recurrent_ops.cpp):
// every element kernel here runs one thread per (direction, batch row, hidden unit), widens
// FLOAT16 on load and computes in float; the state stays in float between steps.
#include <cuda_fp16.h>

#include <algorithm>

#include "dml/kernels/cuda/activation.cuh"
#include "dml/ops/recurrent/cuda/recurrent_device.h"

namespace freedml::dml::cuda {

namespace {

enum : int { kX, kW, kR, kBias, kH0, kC0, kLengths, kPeephole, kY, kYh, kYc };

constexpr unsigned kThreads = 256;

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

// Batch row b's number of steps: its sequence length, capped at seq.
__device__ __forceinline__ int Length(const RecurrentDevicePlan& p, const RecurrentPointers& ptr, int b) {
    if (!p.present[kLengths]) return p.seq;
    const unsigned v = static_cast<const unsigned*>(ptr.in[kLengths])[int64_t(b) * p.strides[kLengths][3]];
    return v < unsigned(p.seq) ? int(v) : p.seq;
}

// The (direction, batch row, hidden unit) of this thread; false past the end.
__device__ __forceinline__ bool Element(const RecurrentDevicePlan& p, int* d, int* b, int* j) {
    const int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (i >= int64_t(p.dirs) * p.batch * p.hidden) return false;
    *j = int(i % p.hidden);
    *b = int(i / p.hidden % p.batch);
    *d = int(i / (int64_t(p.hidden) * p.batch));
    return true;
}

unsigned Blocks(const RecurrentDevicePlan& p) {
    const uint64_t n = uint64_t(p.dirs) * p.batch * p.hidden;
    return unsigned((n + kThreads - 1) / kThreads);
}

template <class T>
__global__ void PackKernel(const T* source, T* destination, int64_t n1, int64_t n2, int64_t n3, int64_t s1, int64_t s2,
                           int64_t s3) {
    const int64_t total = n1 * n2 * n3;
    for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < total; i += int64_t(gridDim.x) * blockDim.x) {
        const int64_t k = i % n3, jj = i / n3 % n2, ii = i / (n3 * n2);
        destination[i] = source[ii * s1 + jj * s2 + k * s3];
    }
}

template <class T>
__global__ void InitKernel(RecurrentDevicePlan p, RecurrentPointers ptr, RecurrentBuffers buf) {
    int d, b, j;
    if (!Element(p, &d, &b, &j)) return;
    const int64_t i = (int64_t(d) * p.batch + b) * p.hidden + j;
    const float h = p.present[kH0] ? Load<T>(ptr.in[kH0], At(p.strides[kH0], 0, d, b, j)) : 0.0f;
    buf.h[i] = h;
    Store<T>(buf.hOperand, i, h);
    if (p.cell == 1) buf.c[i] = p.present[kC0] ? Load<T>(ptr.in[kC0], At(p.strides[kC0], 0, d, b, j)) : 0.0f;
}

// The bias of gate row `row` of direction d: Wb, and Rb when `recurrence`.
template <class T>
__device__ __forceinline__ float Bias(const RecurrentDevicePlan& p, const RecurrentPointers& ptr, int d, int row,
                                      bool recurrence) {
    if (!p.present[kBias]) return 0.0f;
    const int64_t* sb = p.strides[kBias];
    float v = Load<T>(ptr.in[kBias], At(sb, 0, 0, d, row));
    if (recurrence) v += Load<T>(ptr.in[kBias], At(sb, 0, 0, d, p.gates * p.hidden + row));
    return v;
}

template <class T>
__global__ void GruResetKernel(RecurrentDevicePlan p, RecurrentPointers ptr, RecurrentBuffers buf, int s) {
    int d, b, j;
    if (!Element(p, &d, &b, &j)) return;
    const int length = Length(p, ptr, b);
    if (s >= length) return;  // the row is done; what the product makes of it is not read
    const int t = p.backward[d] ? length - 1 - s : s;
    const int H = p.hidden, GH = 3 * H;
    const int64_t i = (int64_t(d) * p.batch + b) * H + j;
    const float* xw = buf.xw + ((int64_t(t) * p.batch + b) * p.dirs + d) * GH;
    const float* hr = buf.hr + (int64_t(d) * p.batch + b) * GH;
    const float r = Activate(p.act[d][0], xw[H + j] + hr[H + j] + Bias<T>(p, ptr, d, H + j, true));
    Store<T>(buf.resetH, i, r * buf.h[i]);
}

template <class T>
__global__ void StepKernel(RecurrentDevicePlan p, RecurrentPointers ptr, RecurrentBuffers buf, int s) {
    int d, b, j;
    if (!Element(p, &d, &b, &j)) return;
    const int length = Length(p, ptr, b);
    if (s >= length) {
        // Steps past the row's length: its sequence output is zero there, its state stays.
        if (p.present[kY]) Store<T>(ptr.out[0], At(p.strides[kY], s, d, b, j), 0.0f);
        return;
    }
    const int t = p.backward[d] ? length - 1 - s : s;
    const int H = p.hidden, GH = p.gates * H;
    const int64_t i = (int64_t(d) * p.batch + b) * H + j;
    const float* xw = buf.xw + ((int64_t(t) * p.batch + b) * p.dirs + d) * GH;
    const float* hr = buf.hr + (int64_t(d) * p.batch + b) * GH;
    const ActParams* act = p.act[d];
    float next;
    if (p.cell == 0) {
        next = Activate(act[0], xw[j] + hr[j] + Bias<T>(p, ptr, d, j, true));
    } else if (p.cell == 1) {
        // Gate order i, o, f, c; peepholes i, o, f.
        auto clip = [&](float v) { return p.useClip ? fminf(p.clip, fmaxf(-p.clip, v)) : v; };
        auto pre = [&](int g) { return xw[g * H + j] + hr[g * H + j] + Bias<T>(p, ptr, d, g * H + j, true); };
        const bool peep = p.present[kPeephole];
        const int64_t* sp = p.strides[kPeephole];
        const float pi = peep ? Load<T>(ptr.in[kPeephole], At(sp, 0, 0, d, j)) : 0.0f;
        const float po = peep ? Load<T>(ptr.in[kPeephole], At(sp, 0, 0, d, H + j)) : 0.0f;
        const float pf = peep ? Load<T>(ptr.in[kPeephole], At(sp, 0, 0, d, 2 * H + j)) : 0.0f;
        const float cPrev = buf.c[i];
        const float in = Activate(act[0], clip(pre(0) + pi * cPrev));
        const float forget = p.couple ? 1.0f - in : Activate(act[0], clip(pre(2) + pf * cPrev));
        const float candidate = Activate(act[1], clip(pre(3)));
        const float cell = forget * cPrev + in * candidate;
        const float out = Activate(act[0], clip(pre(1) + po * cell));
        buf.c[i] = cell;
        next = out * Activate(act[2], cell);
    } else {
        // Gate order z, r, h. hr's h rows hold Rh (r . h) without LinearBeforeReset, Rh h with it.
        const float update = Activate(act[0], xw[j] + hr[j] + Bias<T>(p, ptr, d, j, true));
        const int row = 2 * H + j;
        const float recurrence = hr[row] + Bias<T>(p, ptr, d, GH + row, false);  // + Rbh
        float n = xw[row] + Bias<T>(p, ptr, d, row, false);
        if (p.linearBeforeReset) {
            const float r = Activate(act[0], xw[H + j] + hr[H + j] + Bias<T>(p, ptr, d, H + j, true));
            n += r * recurrence;
        } else {
            n += recurrence;
        }
        const float candidate = Activate(act[1], n);
        next = (1.0f - update) * candidate + update * buf.h[i];
    }
    buf.h[i] = next;
    Store<T>(buf.hOperand, i, next);
    if (p.present[kY]) Store<T>(ptr.out[0], At(p.strides[kY], t, d, b, j), next);
}

template <class T>
__global__ void FinishKernel(RecurrentDevicePlan p, RecurrentPointers ptr, RecurrentBuffers buf) {
    int d, b, j;
    if (!Element(p, &d, &b, &j)) return;
    const int64_t i = (int64_t(d) * p.batch + b) * p.hidden + j;
    // A row of length 0 ran no step: its single outputs are zero.
    const bool ran = Length(p, ptr, b) > 0;
    if (p.present[kYh]) Store<T>(ptr.out[1], At(p.strides[kYh], 0, d, b, j), ran ? buf.h[i] : 0.0f);
    if (p.present[kYc]) Store<T>(ptr.out[2], At(p.strides[kYc], 0, d, b, j), ran ? buf.c[i] : 0.0f);
}

}  // namespace

cudaError_t PackRecurrentOperand(const RecurrentDevicePlan& p, int slot, const void* source, void* destination,
                                 LaunchTarget launch) {
    const int64_t GH = int64_t(p.gates) * p.hidden;
    int64_t n1 = p.dirs, n2 = GH, n3 = slot == kW ? p.input : p.hidden;
    if (slot == kX) n1 = p.seq, n2 = p.batch, n3 = p.input;
    const int64_t total = n1 * n2 * n3;
    if (total == 0) return cudaSuccess;
    const int64_t* s = p.strides[slot];
    const unsigned blocks = unsigned(std::min<int64_t>((total + kThreads - 1) / kThreads, 4096));
    if (p.half) {
        const auto* from = static_cast<const __half*>(source);
        auto* to = static_cast<__half*>(destination);
        PackKernel<<<blocks, kThreads, 0, launch.stream>>>(from, to, n1, n2, n3, s[1], s[2], s[3]);
    } else {
        const auto* from = static_cast<const float*>(source);
        auto* to = static_cast<float*>(destination);
        PackKernel<<<blocks, kThreads, 0, launch.stream>>>(from, to, n1, n2, n3, s[1], s[2], s[3]);
    }
    return cudaGetLastError();
}

cudaError_t LaunchRecurrentInit(const RecurrentDevicePlan& p, const RecurrentPointers& ptr, const RecurrentBuffers& buf,
                                LaunchTarget launch) {
    if (uint64_t(p.dirs) * p.batch * p.hidden == 0) return cudaSuccess;
    if (p.half) {
        InitKernel<__half><<<Blocks(p), kThreads, 0, launch.stream>>>(p, ptr, buf);
    } else {
        InitKernel<float><<<Blocks(p), kThreads, 0, launch.stream>>>(p, ptr, buf);
    }
    return cudaGetLastError();
}

cudaError_t LaunchRecurrentGruReset(const RecurrentDevicePlan& p, const RecurrentPointers& ptr,
                                    const RecurrentBuffers& buf, int step, LaunchTarget launch) {
    if (uint64_t(p.dirs) * p.batch * p.hidden == 0) return cudaSuccess;
    if (p.half) {
        GruResetKernel<__half><<<Blocks(p), kThreads, 0, launch.stream>>>(p, ptr, buf, step);
    } else {
        GruResetKernel<float><<<Blocks(p), kThreads, 0, launch.stream>>>(p, ptr, buf, step);
    }
    return cudaGetLastError();
}

cudaError_t LaunchRecurrentStep(const RecurrentDevicePlan& p, const RecurrentPointers& ptr, const RecurrentBuffers& buf,
                                int step, LaunchTarget launch) {
    if (uint64_t(p.dirs) * p.batch * p.hidden == 0) return cudaSuccess;
    if (p.half) {
        StepKernel<__half><<<Blocks(p), kThreads, 0, launch.stream>>>(p, ptr, buf, step);
    } else {
        StepKernel<float><<<Blocks(p), kThreads, 0, launch.stream>>>(p, ptr, buf, step);
    }
    return cudaGetLastError();
}

cudaError_t LaunchRecurrentFinish(const RecurrentDevicePlan& p, const RecurrentPointers& ptr,
                                  const RecurrentBuffers& buf, LaunchTarget launch) {
    if (uint64_t(p.dirs) * p.batch * p.hidden == 0) return cudaSuccess;
    if (p.half) {
        FinishKernel<__half><<<Blocks(p), kThreads, 0, launch.stream>>>(p, ptr, buf);
    } else {
        FinishKernel<float><<<Blocks(p), kThreads, 0, launch.stream>>>(p, ptr, buf);
    }
    return cudaGetLastError();
}

}  // namespace freedml::dml::cuda
