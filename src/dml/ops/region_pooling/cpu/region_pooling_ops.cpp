// CPU kernels of ROI_POOLING, ROI_ALIGN and ROI_ALIGN1: each output element computed on its own
// by region_math.h (which says what it computes), output elements in parallel. Any strides.
#include <cstring>

#include "dml/kernel.h"
#include "dml/kernels/cpu/float16.h"
#include "dml/kernels/cpu/thread_pool.h"
#include "dml/kernels/cpu/float_io.h"
#include "dml/ops/region_pooling/plan_from_args.h"

namespace freedml::dml {

namespace {

using cpu::ReadFloat;
using cpu::WriteFloat;
using region::RegionPlan;

template <bool kHalf>
void RunRange(const RegionPlan& p, const KernelBindings& b, uint64_t first, uint64_t last) {
    const std::byte* in = b.inputs[0];
    const std::byte* rois = b.inputs[1];
    const auto read = [in](int64_t offset) { return ReadFloat<kHalf>(in, offset); };
    for (uint64_t e = first; e < last; ++e) {
        const region::OutputIndex o = region::Unflatten(p, e);
        const int64_t row = int64_t(o.region) * p.roiRow;
        const auto coord = [&](int k) { return ReadFloat<kHalf>(rois, row + k * p.roiColumn); };
        float value;
        if (p.align) {
            const std::byte* at = b.inputs[2] + int64_t(o.region) * p.batchStride * (p.batch64 ? 8 : 4);
            uint64_t batch;
            if (p.batch64) {
                std::memcpy(&batch, at, 8);
            } else {
                uint32_t b32;
                std::memcpy(&b32, at, 4);
                batch = b32;
            }
            value = region::AlignValue(p, o, batch, read, coord);
        } else {
            value = region::PoolValue(p, o, read, coord);
        }
        WriteFloat<kHalf>(b.outputs[0], region::OutputOffset(p, o), value);
    }
}

class RegionKernel final : public Kernel {
public:
    explicit RegionKernel(RegionPlan plan) : plan_(plan) {}
    uint64_t PersistentResourceSize() const override { return 0; }
    uint64_t TemporaryResourceSize() const override { return 0; }
    void Initialize(const KernelBindings&) override {}
    void Execute(const KernelBindings& b) override {
        cpu::ParallelFor(cpu::HostThreads(b), plan_.OutputCount(), 256, [&](uint64_t first, uint64_t last) {
            if (plan_.half) {
                RunRange<true>(plan_, b, first, last);
            } else {
                RunRange<false>(plan_, b, first, last);
            }
        });
    }

private:
    RegionPlan plan_;
};

}  // namespace

namespace cpu {

Status CreateCpuRoiPooling(const KernelContext&, const OperatorArgs& args, std::unique_ptr<Kernel>* kernel) {
    *kernel = std::make_unique<RegionKernel>(region::PlanFromArgs(args));
    return {};
}

Status CreateCpuRoiAlign(const KernelContext&, const OperatorArgs& args, std::unique_ptr<Kernel>* kernel) {
    *kernel = std::make_unique<RegionKernel>(region::PlanFromArgs(args));
    return {};
}

}  // namespace cpu

}  // namespace freedml::dml
