// CPU kernel of RNN, LSTM and GRU (recurrent_plan.h has the layout). Every tensor is read as
// packed floats (FLOAT16 widens, other strides are copied; the math is float for both types) and
// the outputs are stored through their strides at the end (the input products and the sequence
// output are kept in the temporary resource). Per direction the input's product with the weights
// is one GEMM over every step and batch row; each step then multiplies the hidden state by the
// recurrence weights (a GEMM over the batch, the weights packed once per direction) and applies
// each gate's activation over a row at once. The products run on oneDNN's matmul where FreeDML is
// built with it, on our loops otherwise. A batch row runs its own sequence length: backward
// directions start at its last valid step, the sequence output is zero past its length, and the
// single outputs hold the state after its last step (zero for a length of 0).
#include <algorithm>
#include <cstring>
#include <memory>
#include <vector>

#include "dml/kernel.h"
#include "dml/kernels/cpu/activation.h"
#include "dml/kernels/cpu/float16.h"
#include "dml/kernels/cpu/kernel_adapter.h"
#include "dml/kernels/cpu/tensor_view.h"
#include "dml/kernels/cpu/thread_pool.h"
#include "dml/ops/recurrent/cpu/recurrent_matmul.h"
#include "dml/ops/recurrent/recurrent_plan.h"

namespace freedml::dml::cpu {

namespace {

// A 4-D tensor of any strides <-> packed floats.
void Load4(const TensorDesc& desc, const std::byte* data, float* out) {
    const uint32_t elementSize = ElementSizeInBytes(desc.dataType);
    const auto& s = desc.sizes;
    const auto& st = desc.strides;
    size_t o = 0;
    for (uint32_t a = 0; a < s[0]; ++a) {
        for (uint32_t b = 0; b < s[1]; ++b) {
            for (uint32_t c = 0; c < s[2]; ++c) {
                const uint64_t offset = uint64_t(a) * st[0] + uint64_t(b) * st[1] + uint64_t(c) * st[2];
                LoadFloats(desc.dataType, data + offset * elementSize, int64_t(st[3]) * elementSize, out + o, s[3]);
                o += s[3];
            }
        }
    }
}

void Store4(const TensorDesc& desc, const float* in, std::byte* data) {
    const uint32_t elementSize = ElementSizeInBytes(desc.dataType);
    const auto& s = desc.sizes;
    const auto& st = desc.strides;
    size_t i = 0;
    for (uint32_t a = 0; a < s[0]; ++a) {
        for (uint32_t b = 0; b < s[1]; ++b) {
            for (uint32_t c = 0; c < s[2]; ++c) {
                const uint64_t offset = uint64_t(a) * st[0] + uint64_t(b) * st[1] + uint64_t(c) * st[2];
                StoreFloats(desc.dataType, in + i, data + offset * elementSize, int64_t(st[3]) * elementSize, s[3]);
                i += s[3];
            }
        }
    }
}

// c[m][n] += a[m][k] x b[k][n] for rows [m0, m1), b read through (row, column) strides: the
// inner loop runs along n, contiguous in c (and in b when its column stride is 1), so it
// vectorizes without reordering any sum.
void MatMulRows(const float* a, size_t lda, const float* b, size_t bRow, size_t bCol, float* c, size_t ldc, size_t m0,
                size_t m1, size_t k, size_t n) {
    for (size_t i = m0; i < m1; ++i) {
        float* row = c + i * ldc;
        const float* ai = a + i * lda;
        for (size_t p = 0; p < k; ++p) {
            const float v = ai[p];
            const float* bp = b + p * bRow;
            if (bCol == 1) {
                for (size_t j = 0; j < n; ++j) row[j] += v * bp[j];
            } else {
                for (size_t j = 0; j < n; ++j) row[j] += v * bp[j * bCol];
            }
        }
    }
}

void MatMul(ThreadPool* threads, const float* a, size_t lda, const float* b, size_t bRow, size_t bCol, float* c,
            size_t ldc, size_t m, size_t k, size_t n) {
    if (MatMulAccumulateOneDnn(a, int64_t(lda), b, int64_t(bRow), int64_t(bCol), c, int64_t(ldc), int64_t(m),
                               int64_t(k), int64_t(n))) {
        return;
    }
    const uint64_t work = uint64_t(k) * n;
    const uint64_t minRows = std::max<uint64_t>(1, (1u << 16) / std::max<uint64_t>(1, work));
    ParallelFor(threads, m, minRows,
                [&](uint64_t begin, uint64_t end) { MatMulRows(a, lda, b, bRow, bCol, c, ldc, begin, end, k, n); });
}

class RecurrentKernel final : public Kernel {
public:
    RecurrentKernel(const OperatorArgs& args, RecurrentPlan plan) : args_(args), plan_(plan) {}
    uint64_t PersistentResourceSize() const override { return 0; }
    // The input products of a direction and the sequence output, in floats: tens of MiB for a
    // long sequence, which an execution would otherwise allocate and fault in every time.
    uint64_t TemporaryResourceSize() const override { return (ProductFloats() + SequenceFloats()) * sizeof(float); }
    void Initialize(const KernelBindings&) override {}
    void Execute(const KernelBindings& bindings) override;

private:
    // Packed floats of input `index`: the binding itself where it already is that (FLOAT32 with
    // packed strides; the weights are megabytes that a copy would move at every execution), else a
    // copy in `storage`.
    const float* LoadInput(int index, const KernelBindings& bindings, std::vector<float>* storage) const {
        if (index < 0 || !args_.inputs[index]) return nullptr;
        const TensorDesc& desc = *args_.inputs[index];
        const std::byte* data = bindings.inputs[index];
        if (desc.dataType == DML_TENSOR_DATA_TYPE_FLOAT32 && IsPacked(desc) &&
            reinterpret_cast<uintptr_t>(data) % alignof(float) == 0) {
            return reinterpret_cast<const float*>(data);
        }
        storage->resize(desc.ElementCount());
        Load4(desc, data, storage->data());
        return storage->data();
    }

    uint64_t ProductFloats() const { return uint64_t(plan_.seq) * plan_.batch * plan_.gates * plan_.hidden; }
    uint64_t SequenceFloats() const { return uint64_t(plan_.seq) * plan_.dirs * plan_.batch * plan_.hidden; }

    void RunDirection(ThreadPool* threads, uint32_t d, const float* x, const float* w, const float* r,
                      const float* bias, const float* h0, const float* c0, const uint32_t* lengths,
                      const float* peephole, float* xw, float* y, float* yh, float* yc) const;

    const OperatorArgs& args_;
    RecurrentPlan plan_;
};

void RecurrentKernel::Execute(const KernelBindings& bindings) {
    const RecurrentPlan& p = plan_;
    ThreadPool* threads = HostThreads(bindings);
    std::vector<float> x, w, r, bias, h0, c0, peephole;
    const float* xData = LoadInput(0, bindings, &x);
    const float* wData = LoadInput(1, bindings, &w);
    const float* rData = LoadInput(2, bindings, &r);
    const float* biasData = LoadInput(p.bias, bindings, &bias);
    const float* h0Data = LoadInput(p.hiddenInit, bindings, &h0);
    const float* c0Data = LoadInput(p.cellInit, bindings, &c0);
    const float* peepholeData = LoadInput(p.peephole, bindings, &peephole);
    std::vector<uint32_t> lengths(p.batch, p.seq);
    if (args_.inputs[p.sequenceLengths]) {
        const TensorDesc& desc = *args_.inputs[p.sequenceLengths];
        for (uint32_t b = 0; b < p.batch; ++b) {
            uint32_t v;
            std::memcpy(&v, bindings.inputs[p.sequenceLengths] + uint64_t(b) * desc.strides[3] * 4, 4);
            lengths[b] = std::min(v, p.seq);  // a length past the sequence runs the whole sequence
        }
    }
    const size_t stateSize = size_t(p.dirs) * p.batch * p.hidden;
    float* xw = reinterpret_cast<float*>(bindings.temporary);
    float* y = xw + ProductFloats();
    std::fill_n(y, SequenceFloats(), 0.0f);  // steps past a row's length stay 0
    std::vector<float> yh(stateSize), yc(stateSize);
    for (uint32_t d = 0; d < p.dirs; ++d) {
        RunDirection(threads, d, xData, wData, rData, biasData, h0Data, c0Data, lengths.data(), peepholeData, xw, y,
                     yh.data(), yc.data());
    }
    if (args_.outputs[0]) Store4(*args_.outputs[0], y, bindings.outputs[0]);
    if (args_.outputs[1]) Store4(*args_.outputs[1], yh.data(), bindings.outputs[1]);
    if (args_.outputs.size() > 2 && args_.outputs[2]) Store4(*args_.outputs[2], yc.data(), bindings.outputs[2]);
}

void RecurrentKernel::RunDirection(ThreadPool* threads, uint32_t d, const float* x, const float* w, const float* r,
                                   const float* bias, const float* h0, const float* c0, const uint32_t* lengths,
                                   const float* peephole, float* xw, float* y, float* yh, float* yc) const {
    const RecurrentPlan& p = plan_;
    const size_t H = p.hidden, G = p.gates, GH = G * H, B = p.batch, I = p.input, S = p.seq;
    const bool gru = p.cell == RecurrentCell::Gru;
    const ActivationParams* act = p.activations[d];

    const float* wd = w + size_t(d) * GH * I;
    const float* rd = r + size_t(d) * GH * H;
    const float* wb = bias ? bias + size_t(d) * 2 * GH : nullptr;
    const float* rb = bias ? wb + GH : nullptr;

    // X W^T plus the biases that add outside any gate product: every bias but GRU's Rbh, which
    // goes inside (LinearBeforeReset) or after the reset product. {seq * batch, GH}.
    if (bias) {
        for (size_t row = 0; row < S * B; ++row) {
            float* dst = xw + row * GH;
            for (size_t j = 0; j < GH; ++j) dst[j] = wb[j] + (gru && j >= 2 * H ? 0.0f : rb[j]);
        }
    } else {
        std::fill_n(xw, S * B * GH, 0.0f);
    }
    MatMul(threads, x, I, wd, 1, I, xw, GH, S * B, I, GH);

    std::vector<float> h(B * H, 0.0f), c(B * H, 0.0f), hr(B * GH), rh(B * H), scratch(4 * H);
    if (h0) std::copy_n(h0 + size_t(d) * B * H, B * H, h.data());
    if (c0) std::copy_n(c0 + size_t(d) * B * H, B * H, c.data());
    const float* pi = peephole ? peephole + size_t(d) * 3 * H : nullptr;
    const float* po = pi ? pi + H : nullptr;
    const float* pf = pi ? pi + 2 * H : nullptr;
    const bool backward = p.backward[d];
    auto clip = [&](float v) { return p.useClip ? std::min(p.clip, std::max(-p.clip, v)) : v; };

    // The recurrence products h {batch, H} x R^T {H, columns} (GRU without LinearBeforeReset: the
    // z and r columns; its h columns multiply the reset state), with R packed once for all steps.
    const size_t columns = gru && !p.linearBeforeReset ? 2 * H : GH;
    PackedMatMul recurrence, resetRecurrence;
    const bool packed = recurrence.Prepare(int64_t(B), int64_t(H), int64_t(columns), int64_t(H), int64_t(GH), rd, 1,
                                           int64_t(H)) &&
                        (columns == GH || resetRecurrence.Prepare(int64_t(B), int64_t(H), int64_t(H), int64_t(H),
                                                                  int64_t(GH), rd + 2 * H * H, 1, int64_t(H)));

    uint32_t steps = 0;
    for (size_t b = 0; b < B; ++b) steps = std::max(steps, lengths[b]);
    for (uint32_t s = 0; s < steps; ++s) {
        std::fill(hr.begin(), hr.end(), 0.0f);
        if (packed) {
            recurrence.Run(h.data(), hr.data());
        } else {
            MatMul(threads, h.data(), H, rd, 1, H, hr.data(), GH, B, H, columns);
        }
        if (columns != GH) {
            for (size_t b = 0; b < B; ++b) {
                if (s >= lengths[b]) continue;
                const size_t t = backward ? lengths[b] - 1 - s : s;
                const float* g = xw + (t * B + b) * GH;
                float* reset = rh.data() + b * H;
                for (size_t j = 0; j < H; ++j) reset[j] = g[H + j] + hr[b * GH + H + j];
                ApplyActivation(act[0], reset, H);
                for (size_t j = 0; j < H; ++j) reset[j] *= h[b * H + j];
            }
            if (packed) {
                resetRecurrence.Run(rh.data(), hr.data() + 2 * H);
            } else {
                MatMul(threads, rh.data(), H, rd + 2 * H * H, 1, H, hr.data() + 2 * H, GH, B, H, H);
            }
        }
        for (size_t b = 0; b < B; ++b) {
            if (s >= lengths[b]) continue;
            const size_t t = backward ? lengths[b] - 1 - s : s;
            const float* g = xw + (t * B + b) * GH;
            const float* q = hr.data() + b * GH;
            float* hb = h.data() + b * H;
            float* cb = c.data() + b * H;
            // Each gate's activation input for the row, then the activation over the row at once.
            float* v0 = scratch.data();
            float* v1 = v0 + H;
            float* v2 = v1 + H;
            float* v3 = v2 + H;
            switch (p.cell) {
                case RecurrentCell::Rnn:
                    for (size_t j = 0; j < H; ++j) hb[j] = g[j] + q[j];
                    ApplyActivation(act[0], hb, H);
                    break;
                case RecurrentCell::Lstm: {
                    float* in = v0;
                    float* forget = v1;
                    float* candidate = v2;
                    float* out = v3;
                    for (size_t j = 0; j < H; ++j) in[j] = clip(g[j] + q[j] + (pi ? pi[j] * cb[j] : 0.0f));
                    ApplyActivation(act[0], in, H);
                    if (p.coupleInputForget) {
                        for (size_t j = 0; j < H; ++j) forget[j] = 1.0f - in[j];
                    } else {
                        for (size_t j = 0; j < H; ++j) {
                            forget[j] = clip(g[2 * H + j] + q[2 * H + j] + (pf ? pf[j] * cb[j] : 0.0f));
                        }
                        ApplyActivation(act[0], forget, H);
                    }
                    for (size_t j = 0; j < H; ++j) candidate[j] = clip(g[3 * H + j] + q[3 * H + j]);
                    ApplyActivation(act[1], candidate, H);
                    for (size_t j = 0; j < H; ++j) cb[j] = forget[j] * cb[j] + in[j] * candidate[j];
                    for (size_t j = 0; j < H; ++j) out[j] = clip(g[H + j] + q[H + j] + (po ? po[j] * cb[j] : 0.0f));
                    ApplyActivation(act[0], out, H);
                    ApplyActivation(act[2], cb, candidate, H);  // h(c) into the spent candidate
                    for (size_t j = 0; j < H; ++j) hb[j] = out[j] * candidate[j];
                    break;
                }
                case RecurrentCell::Gru: {
                    float* update = v0;
                    float* reset = v1;
                    float* candidate = v2;
                    for (size_t j = 0; j < H; ++j) update[j] = g[j] + q[j];
                    ApplyActivation(act[0], update, H);
                    if (p.linearBeforeReset) {
                        for (size_t j = 0; j < H; ++j) reset[j] = g[H + j] + q[H + j];
                        ApplyActivation(act[0], reset, H);
                        for (size_t j = 0; j < H; ++j) {
                            candidate[j] = g[2 * H + j] + reset[j] * (q[2 * H + j] + (rb ? rb[2 * H + j] : 0.0f));
                        }
                    } else {
                        for (size_t j = 0; j < H; ++j) {
                            candidate[j] = g[2 * H + j] + q[2 * H + j] + (rb ? rb[2 * H + j] : 0.0f);
                        }
                    }
                    ApplyActivation(act[1], candidate, H);
                    for (size_t j = 0; j < H; ++j) hb[j] = (1.0f - update[j]) * candidate[j] + update[j] * hb[j];
                    break;
                }
            }
            std::copy_n(hb, H, y + ((t * p.dirs + d) * B + b) * H);
        }
    }
    // A row of length 0 ran no step: its single outputs are zero (ONNX Runtime's reading).
    for (size_t b = 0; b < B; ++b) {
        if (lengths[b] == 0) {
            std::fill_n(h.data() + b * H, H, 0.0f);
            std::fill_n(c.data() + b * H, H, 0.0f);
        }
    }
    std::copy_n(h.data(), B * H, yh + size_t(d) * B * H);
    std::copy_n(c.data(), B * H, yc + size_t(d) * B * H);
}

}  // namespace

Status CreateCpuRecurrent(const KernelContext&, const OperatorArgs& args, std::unique_ptr<Kernel>* kernel) {
    *kernel = std::make_unique<RecurrentKernel>(args, MakeRecurrentPlan(args));
    return {};
}

}  // namespace freedml::dml::cpu
