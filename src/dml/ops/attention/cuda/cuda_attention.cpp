// The CUDA factory of MULTIHEAD_ATTENTION and MULTIHEAD_ATTENTION1: AttentionGeometry put in the
// device code's terms (attention_plan.h); the kernels are in attention.cu.
#include <cstring>

#include "dml/kernels/cuda/cuda_common.h"
#include "dml/ops/attention/attention_geometry.h"
#include "dml/ops/attention/cuda/attention_plan.h"

namespace freedml::dml::cuda {
namespace {

// Shared memory one block of AttendRows may use without opting in to more (48 KiB on every
// device FreeDML runs on): the scores of one query row and the query.
constexpr size_t kSharedBytes = 48 * 1024;

AttentionOperandPlan ToPlan(const AttentionOperand& o) {
    return {int(o.input), o.offset, o.batch, o.position, o.head, o.channel};
}

class AttentionKernel final : public Kernel {
public:
    explicit AttentionKernel(const AttentionPlan& plan) : plan_(plan) {}
    uint64_t PersistentResourceSize() const override { return 0; }
    uint64_t TemporaryResourceSize() const override { return AttentionTemporaryBytes(plan_); }
    void Initialize(const KernelBindings&) override {}
    void Execute(const KernelBindings& b) override {
        CudaStream& stream = StreamOf(b);
        AttentionPointers ptr{};
        for (size_t i = 0; i < 12 && i < b.inputs.size(); ++i) ptr.inputs[i] = b.inputs[i];
        ptr.output = b.outputs[0];
        ptr.presentKey = b.outputs.size() > 1 ? b.outputs[1] : nullptr;
        ptr.presentValue = b.outputs.size() > 2 ? b.outputs[2] : nullptr;
        stream.Check(LaunchAttention(plan_, ptr, b.temporary, stream.Launch()), "MULTIHEAD_ATTENTION");
    }

private:
    AttentionPlan plan_;
};

}  // namespace

Status CreateCudaMultiheadAttention(const KernelContext&, const OperatorArgs& args, std::unique_ptr<Kernel>* out) {
    AttentionGeometry g;
    FREEDML_TRY(MakeAttentionGeometry(args, &g));
    AttentionPlan p{};
    p.half = g.dataType == DML_TENSOR_DATA_TYPE_FLOAT16;
    p.batch = g.batch, p.querySequence = g.querySequence, p.keyValueSequence = g.keyValueSequence;
    p.pastSequence = g.pastSequence, p.totalSequence = g.totalSequence;
    p.queryHeads = g.queryHeads, p.keyValueHeads = g.keyValueHeads;
    p.headSize = g.headSize, p.valueHeadSize = g.valueHeadSize;
    p.scale = g.scale, p.maskFilterValue = g.maskFilterValue;
    p.query = ToPlan(g.query), p.key = ToPlan(g.key), p.value = ToPlan(g.value);
    p.hasBias = g.hasBias, p.hasMask = g.hasMask, p.hasRelativePositionBias = g.hasRelativePositionBias;
    p.hasPast = g.hasPast, p.hasPastSequenceLengths = g.hasPastSequenceLengths;
    switch (g.pastSequenceLengthsType) {
        case DML_TENSOR_DATA_TYPE_UINT32:
            p.pastLengthsKind = 1;
            break;
        case DML_TENSOR_DATA_TYPE_FLOAT32:
            p.pastLengthsKind = 2;
            break;
        case DML_TENSOR_DATA_TYPE_FLOAT16:
            p.pastLengthsKind = 3;
            break;
        default:
            p.pastLengthsKind = 0;
            break;
    }
    p.maskType = g.maskType;
    p.biasStride = g.biasStride, p.pastLengthsStride = g.pastSequenceLengthsStride;
    for (int d = 0; d < 4; ++d) {
        p.maskStrides[d] = g.maskStrides[d], p.positionBiasStrides[d] = g.biasPositionStrides[d];
        p.pastKeyStrides[d] = g.pastKeyStrides[d], p.pastValueStrides[d] = g.pastValueStrides[d];
        p.presentKeyStrides[d] = g.presentKeyStrides[d], p.presentValueStrides[d] = g.presentValueStrides[d];
    }
    for (int d = 0; d < 3; ++d) p.outputStrides[d] = g.outputStrides[d];
    p.skipMaskedTiles = g.maskFilterValue <= -1e4f;
    // The tiled kernel walks the keys in tiles and has no such limit.
    if (!FlashAttentionCovers(p) && !AttentionTilesCover(p) && (size_t(g.totalSequence) + g.headSize) * sizeof(float) > kSharedBytes) {
        return NoKernel("DML_OPERATOR_%s on CUDA keeps a query row's %u scores in shared memory; more than %zu "
                        "keys plus head size do not fit.", args.schema.name, g.totalSequence,
                        kSharedBytes / sizeof(float));
    }
    *out = std::make_unique<AttentionKernel>(p);
    return {};
}

}  // namespace freedml::dml::cuda
