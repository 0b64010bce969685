// CPU kernels of the resampling family: UPSAMPLE_2D, RESAMPLE, RESAMPLE1-3 and the gradients
// RESAMPLE_GRAD(1) sum the flat tap tables of resample_params.h (one pass over the destination,
// in parallel), and VALUE_SCALE_2D is x * Scale + Bias[channel]. Arithmetic in float; FLOAT16
// and the 8-bit integers are rounded to nearest (the integers also saturate) on the way out.
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
        return {};
    }
    void Execute(TensorView src, TensorView dst) const {
        switch (type_) {
            case DML_TENSOR_DATA_TYPE_FLOAT32: return Run<float>(src.data, dst.data);
            case DML_TENSOR_DATA_TYPE_FLOAT16: return Run<uint16_t>(src.data, dst.data);
            case DML_TENSOR_DATA_TYPE_INT8: return Run<int8_t>(src.data, dst.data);
            default: return Run<uint8_t>(src.data, dst.data);
        }
    }

private:
    template <class T>
    void Run(const std::byte* src, std::byte* dst) const {
        const TapTables t = storage_.Tables();
        ParallelFor(t.count, 1u << 12, [&](uint64_t begin, uint64_t end) {
            for (uint64_t i = begin; i < end; ++i) {
                int64_t offset = 0;
                const float v = SumTaps(t, i, &offset, [src](int64_t s) {
                    return Load<T>(src + s * int64_t(sizeof(T)));
                });
                Store<T>(dst + offset * int64_t(sizeof(T)), v);
            }
        });
    }

    DML_TENSOR_DATA_TYPE type_ = DML_TENSOR_DATA_TYPE_FLOAT32;
    TapTableStorage storage_;
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
    void Execute(TensorView src, TensorView dst) const {
        if (type_ == DML_TENSOR_DATA_TYPE_FLOAT16) return Run<uint16_t>(src.data, dst.data);
        return Run<float>(src.data, dst.data);
    }

private:
    template <class T>
    void Run(const std::byte* src, std::byte* dst) const {
        const uint32_t n = out_.sizes[0], c = out_.sizes[1], h = out_.sizes[2], w = out_.sizes[3];
        ParallelFor(uint64_t(n) * c * h, 64, [&](uint64_t begin, uint64_t end) {
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
        k.Execute(ViewOf(a->inputs, b.inputs, 0), ViewOf(a->outputs, b.outputs, 0));
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
