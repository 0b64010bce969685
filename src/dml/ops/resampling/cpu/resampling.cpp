// CPU kernels of the resampling family: UPSAMPLE_2D, RESAMPLE, RESAMPLE1-3 and the gradients
// RESAMPLE_GRAD(1) sum the flat tap tables of resample_params.h (one pass over the destination,
// rows in parallel), and VALUE_SCALE_2D is x * Scale + Bias[channel]. Arithmetic in float; FLOAT16
// and the 8-bit integers are rounded to nearest (the integers also saturate) on the way out.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <vector>

#include "common/half.h"
#include "dml/kernels/cpu/kernel_adapter.h"
#include "dml/kernels/cpu/thread_pool.h"
#include "dml/ops/resampling/resample_params.h"

namespace freedml::dml::cpu {
namespace {

template <class T>
float Load(const std::byte* p) {
    T v;
    std::memcpy(&v, p, sizeof(T));
    if constexpr (std::is_same_v<T, uint16_t>) return HalfToFloat(v);
    return float(v);
}

template <class T>
void Store(std::byte* p, float v) {
    T out;
    if constexpr (std::is_same_v<T, uint16_t>) {
        out = FloatToHalf(v);
    } else if constexpr (std::is_same_v<T, float>) {
        out = v;
    } else {
        const float lo = float(std::numeric_limits<T>::min()), hi = float(std::numeric_limits<T>::max());
        const float r = std::nearbyint(v);
        out = T(r < lo ? lo : (r > hi ? hi : r));
    }
    std::memcpy(p, &out, sizeof(T));
}

Status CheckType(const OperatorArgs& args, DML_TENSOR_DATA_TYPE type) {
    INVALID_IF(type != DML_TENSOR_DATA_TYPE_FLOAT32 && type != DML_TENSOR_DATA_TYPE_FLOAT16 &&
                   type != DML_TENSOR_DATA_TYPE_INT8 && type != DML_TENSOR_DATA_TYPE_UINT8,
               "DML_OPERATOR_%s does not support data type %s on the CPU.", args.schema.name, DataTypeName(type));
    return {};
}

class ResampleKernel {
public:
    Status Create(const OperatorArgs& args) {
        type_ = args.outputs[0]->dataType;
        FREEDML_TRY(CheckType(args, type_));
        storage_ = BuildTapTables(DecodeResamplePlan(args), IsResampleGrad(args.schema.type));
        // Nearest and plain linear read at most two elements along the last dimension: then each
        // element of a row gets exactly two (a single tap is paired with itself at weight 0), so
        // the row loop has no inner loop or branch.
        const TapTables t = storage_.Tables();
        const uint32_t last = t.rank - 1;
        const uint32_t* starts = t.starts + t.startBase[last];
        bool pairs = true;
        for (uint32_t x = 0; x < t.sizes[last] && pairs; ++x) pairs = starts[x + 1] - starts[x] <= 2;
        if (pairs) {
            for (uint32_t x = 0; x < t.sizes[last]; ++x) {
                const uint32_t a = starts[x], n = starts[x + 1] - a;
                const uint32_t b = n == 2 ? a + 1 : a;
                pairOffsets_.push_back({n ? t.offsets[a] : 0, n ? t.offsets[b] : 0});
                pairWeights_.push_back({n ? t.weights[a] : 0.0f, n == 2 ? t.weights[b] : 0.0f});
            }
        }
        return {};
    }
    void Execute(ThreadPool* threads, TensorView src, TensorView dst) const {
        switch (type_) {
            case DML_TENSOR_DATA_TYPE_FLOAT32: return Run<float>(threads, src.data, dst.data);
            case DML_TENSOR_DATA_TYPE_FLOAT16: return Run<uint16_t>(threads, src.data, dst.data);
            case DML_TENSOR_DATA_TYPE_INT8: return Run<int8_t>(threads, src.data, dst.data);
            default: return Run<uint8_t>(threads, src.data, dst.data);
        }
    }

private:
    // Row by row (every dimension but the last fixed): the row's outer taps are combined once,
    // then each element of the row adds its last-dimension taps under each of them. The sums are
    // SumTaps' (resample_plan.h), ordered for the row.
    template <class T>
    void Run(ThreadPool* threads, const std::byte* src, std::byte* dst) const {
        const TapTables t = storage_.Tables();
        const uint32_t last = t.rank - 1;
        const uint64_t width = t.sizes[last];
        if (width == 0) return;
        const uint64_t rows = t.count / width;
        const uint32_t* lastStarts = t.starts + t.startBase[last];
        ParallelFor(threads, rows, std::max<uint64_t>(1, 4096 / width), [&](uint64_t begin, uint64_t end) {
            std::vector<std::pair<int64_t, float>> outer, next;
            std::vector<float> sums;
            for (uint64_t row = begin; row < end; ++row) {
                outer.assign(1, {0, 1.0f});
                int64_t dstRow = 0;
                uint64_t rest = row;
                for (uint32_t d = last; d-- > 0;) {
                    const uint32_t c = uint32_t(rest % t.sizes[d]);
                    rest /= t.sizes[d];
                    dstRow += int64_t(c) * t.dstStrides[d];
                    const uint32_t* range = t.starts + t.startBase[d] + c;
                    next.clear();
                    for (uint32_t k = range[0]; k < range[1]; ++k) {
                        for (const auto& [offset, w] : outer) next.push_back({offset + t.offsets[k], w * t.weights[k]});
                    }
                    outer.swap(next);
                }
                // One pass over the row per outer tap, accumulating in `sums`: the inner loop
                // stays a plain gather of the last dimension's taps.
                sums.assign(width, 0.0f);
                for (const auto& [offset, w] : outer) {
                    const std::byte* base = src + offset * int64_t(sizeof(T));
                    if (!pairOffsets_.empty()) {
                        for (uint64_t x = 0; x < width; ++x) {
                            const auto& o = pairOffsets_[x];
                            const auto& pw = pairWeights_[x];
                            sums[x] += w * (pw[0] * Load<T>(base + o[0] * int64_t(sizeof(T))) +
                                            pw[1] * Load<T>(base + o[1] * int64_t(sizeof(T))));
                        }
                        continue;
                    }
                    for (uint64_t x = 0; x < width; ++x) {
                        float inner = 0;
                        for (uint32_t k = lastStarts[x]; k < lastStarts[x + 1]; ++k) {
                            inner += t.weights[k] * Load<T>(base + t.offsets[k] * int64_t(sizeof(T)));
                        }
                        sums[x] += w * inner;
                    }
                }
                std::byte* out = dst + dstRow * int64_t(sizeof(T));
                const int64_t step = t.dstStrides[last] * int64_t(sizeof(T));
                for (uint64_t x = 0; x < width; ++x) Store<T>(out + int64_t(x) * step, sums[x]);
            }
        });
    }

    DML_TENSOR_DATA_TYPE type_ = DML_TENSOR_DATA_TYPE_FLOAT32;
    TapTableStorage storage_;
    std::vector<std::array<int64_t, 2>> pairOffsets_;  // the last dimension as pairs, when it is
    std::vector<std::array<float, 2>> pairWeights_;
};

class ValueScaleKernel {
public:
    Status Create(const OperatorArgs& args) {
        const auto& desc = args.As<DML_VALUE_SCALE_2D_OPERATOR_DESC>();
        type_ = args.outputs[0]->dataType;
        FREEDML_TRY(CheckType(args, type_));
        scale_ = desc.Scale;
        bias_.assign(desc.Bias, desc.Bias + desc.ChannelCount);
        in_ = *args.inputs[0];
        out_ = *args.outputs[0];
        return {};
    }
    void Execute(ThreadPool* threads, TensorView src, TensorView dst) const {
        if (type_ == DML_TENSOR_DATA_TYPE_FLOAT16) return Run<uint16_t>(threads, src.data, dst.data);
        return Run<float>(threads, src.data, dst.data);
    }

private:
    template <class T>
    void Run(ThreadPool* threads, const std::byte* src, std::byte* dst) const {
        const uint32_t n = out_.sizes[0], c = out_.sizes[1], h = out_.sizes[2], w = out_.sizes[3];
        ParallelFor(threads, uint64_t(n) * c * h, 64, [&](uint64_t begin, uint64_t end) {
            for (uint64_t row = begin; row < end; ++row) {
                const uint64_t y = row % h, ch = (row / h) % c, b = row / (uint64_t(h) * c);
                const int64_t inBase = int64_t(b * in_.strides[0] + ch * in_.strides[1] + y * in_.strides[2]);
                const int64_t outBase = int64_t(b * out_.strides[0] + ch * out_.strides[1] + y * out_.strides[2]);
                for (uint32_t x = 0; x < w; ++x) {
                    const float v = Load<T>(src + (inBase + int64_t(x) * in_.strides[3]) * int64_t(sizeof(T)));
                    Store<T>(dst + (outBase + int64_t(x) * out_.strides[3]) * int64_t(sizeof(T)),
                             v * scale_ + bias_[ch]);
                }
            }
        });
    }

    DML_TENSOR_DATA_TYPE type_ = DML_TENSOR_DATA_TYPE_FLOAT32;
    float scale_ = 1;
    std::vector<float> bias_;
    TensorDesc in_, out_;
};

template <class Impl>
Status CreateUnary(const OperatorArgs& args, std::unique_ptr<Kernel>* out) {
    Impl kernel;
    FREEDML_TRY(kernel.Create(args));
    const OperatorArgs* a = &args;  // the operator outlives its compiled kernels
    *out = MakeStateless(std::move(kernel), [a](const Impl& k, const KernelBindings& b) {
        k.Execute(HostThreads(b), ViewOf(a->inputs, b.inputs, 0), ViewOf(a->outputs, b.outputs, 0));
    });
    return {};
}

}  // namespace

// The factories the operator table names (dml/ops/operators.def).
Status CreateCpuResample(const KernelContext&, const OperatorArgs& args, std::unique_ptr<Kernel>* out) {
    return CreateUnary<ResampleKernel>(args, out);
}

Status CreateCpuValueScale2d(const KernelContext&, const OperatorArgs& args, std::unique_ptr<Kernel>* out) {
    return CreateUnary<ValueScaleKernel>(args, out);
}

}  // namespace freedml::dml::cpu
