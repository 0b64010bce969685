// CUDA kernels of the resampling family. The tap tables (resample_params.h) are built on the host
// when the operator is compiled and copied into the persistent resource at initialization, as is
// VALUE_SCALE_2D's Bias; execution is one launch over the destination.
#include <algorithm>
#include <vector>

#include "dml/kernels/cuda/cuda_common.h"
#include "dml/ops/resampling/cuda/resample_launch.h"
#include "dml/ops/resampling/resample_params.h"

namespace freedml::dml::cuda {

namespace {

Status ElementTypeOf(const OperatorArgs& args, ElementType* type) {
    const DML_TENSOR_DATA_TYPE dataType = args.outputs[0]->dataType;
    if (!ToElementType(dataType, type) || (*type != ElementType::F32 && *type != ElementType::F16 &&
                                           *type != ElementType::I8 && *type != ElementType::U8)) {
        return NoKernel("DML_OPERATOR_%s does not support data type %s on CUDA.", args.schema.name,
                        DataTypeName(dataType));
    }
    return {};
}

// Whether LaunchTapSum2d takes the tables: 4-D, F32 or F16, the first two dimensions passed
// through (one tap of weight 1 each), the destination rows countable in 32 bits.
bool IsTapSum2d(const TapTableStorage& s, ElementType type) {
    const TapTables& t = s.header;
    if (t.rank != 4 || (type != ElementType::F32 && type != ElementType::F16)) return false;
    if (uint64_t(t.sizes[0]) * t.sizes[1] * t.sizes[2] >= (uint64_t(1) << 31)) return false;
    for (int d = 0; d < 2; ++d) {
        for (uint32_t c = 0; c < t.sizes[d]; ++c) {
            const uint32_t begin = s.starts[t.startBase[d] + c];
            if (s.starts[t.startBase[d] + c + 1] != begin + 1 || s.weights[begin] != 1.0f) return false;
        }
    }
    return true;
}

// Whether every offset LaunchTapSum2d forms fits in 32 bits: the source's (a sum of one tap per
// dimension) and the destination's.
bool FitsIn32Bits(const TapTableStorage& s) {
    const TapTables& t = s.header;
    int64_t source = 0, destination = 0;
    for (uint32_t d = 0; d < t.rank; ++d) {
        int64_t largest = 0;
        for (uint32_t k = s.starts[t.startBase[d]]; k < s.starts[t.startBase[d] + t.sizes[d]]; ++k) {
            if (s.offsets[k] < 0) return false;
            largest = std::max(largest, s.offsets[k]);
        }
        source += largest;
        if (t.dstStrides[d] < 0) return false;
        destination += int64_t(t.sizes[d] == 0 ? 0 : t.sizes[d] - 1) * t.dstStrides[d];
    }
    return source < (int64_t(1) << 31) && destination < (int64_t(1) << 31);
}

class ResampleKernel final : public Kernel {
public:
    ResampleKernel(const char* name, TapTableStorage storage, ElementType type)
        : name_(name),
          storage_(std::move(storage)),
          type_(type),
          byRows_(IsTapSum2d(storage_, type)),
          narrow_(byRows_ && FitsIn32Bits(storage_)) {
        packed_.resize(storage_.PackedBytes());
        storage_.Pack(packed_.data());
    }
    uint64_t PersistentResourceSize() const override { return packed_.size(); }
    uint64_t TemporaryResourceSize() const override { return 0; }
    void Initialize(const KernelBindings& b) override {
        CudaStream& stream = StreamOf(b);
        stream.Check(cudaMemcpyAsync(b.persistent, packed_.data(), packed_.size(), cudaMemcpyHostToDevice,
                                     stream.Get()),
                     name_);
    }
    void Execute(const KernelBindings& b) override {
        CudaStream& stream = StreamOf(b);
        const TapTables tables = storage_.TablesAt(b.persistent);
        stream.Check(byRows_ ? LaunchTapSum2d(tables, type_, narrow_, b.outputs[0], b.inputs[0], stream.Launch())
                             : LaunchTapSum(tables, type_, b.outputs[0], b.inputs[0], stream.Launch()),
                     name_);
    }

private:
    const char* name_;
    TapTableStorage storage_;
    std::vector<std::byte> packed_;  // the tables as the persistent resource holds them
    ElementType type_;
    bool byRows_;  // LaunchTapSum2d applies
    bool narrow_;  // ... with 32-bit offsets
};

class ValueScaleKernel final : public Kernel {
public:
    ValueScaleKernel(const ValueScalePlan& plan, std::vector<float> bias, ElementType type)
        : plan_(plan), bias_(std::move(bias)), type_(type) {}
    uint64_t PersistentResourceSize() const override { return bias_.size() * sizeof(float); }
    uint64_t TemporaryResourceSize() const override { return 0; }
    void Initialize(const KernelBindings& b) override {
        CudaStream& stream = StreamOf(b);
        stream.Check(cudaMemcpyAsync(b.persistent, bias_.data(), bias_.size() * sizeof(float), cudaMemcpyHostToDevice,
                                     stream.Get()),
                     "VALUE_SCALE_2D initialization");
    }
    void Execute(const KernelBindings& b) override {
        CudaStream& stream = StreamOf(b);
        stream.Check(LaunchValueScale(plan_, type_, reinterpret_cast<const float*>(b.persistent), b.outputs[0],
                                      b.inputs[0], stream.Launch()),
                     "VALUE_SCALE_2D");
    }

private:
    ValueScalePlan plan_;
    std::vector<float> bias_;
    ElementType type_;
};

}  // namespace

Status CreateCudaResample(const KernelContext&, const OperatorArgs& args, std::unique_ptr<Kernel>* out) {
    ElementType type;
    FREEDML_TRY(ElementTypeOf(args, &type));
    *out = std::make_unique<ResampleKernel>(args.schema.name,
                                            BuildTapTables(DecodeResamplePlan(args), IsResampleGrad(args.schema.type)),
                                            type);
    return {};
}

Status CreateCudaValueScale2d(const KernelContext&, const OperatorArgs& args, std::unique_ptr<Kernel>* out) {
    ElementType type;
    FREEDML_TRY(ElementTypeOf(args, &type));
    const auto& desc = args.As<DML_VALUE_SCALE_2D_OPERATOR_DESC>();
    const TensorDesc& in = *args.inputs[0];
    const TensorDesc& o = *args.outputs[0];
    ValueScalePlan plan;
    for (int d = 0; d < 4; ++d) {
        plan.sizes[d] = o.sizes[d];
        plan.inStrides[d] = in.strides[d];
        plan.outStrides[d] = o.strides[d];
    }
    plan.scale = desc.Scale;
    *out = std::make_unique<ValueScaleKernel>(plan, std::vector<float>(desc.Bias, desc.Bias + desc.ChannelCount), type);
    return {};
}

}  // namespace freedml::dml::cuda
