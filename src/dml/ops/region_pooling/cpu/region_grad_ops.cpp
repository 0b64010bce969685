// CPU kernel of ROI_ALIGN_GRAD (region_grad_math.h says what it computes). OutputGradientTensor:
// one task per channel, which scatters every region's gradient of that channel into a float plane
// set of its own (no two tasks write one pixel) and then stores it through the output's strides.
// OutputROIGradientTensor: one task per region, summing its elements' derivatives in double.
// Any strides.
#include <algorithm>
#include <cstring>
#include <memory>
#include <vector>

#include "dml/kernel.h"
#include "dml/kernels/cpu/float16.h"
#include "dml/kernels/cpu/thread_pool.h"
#include "dml/kernels/cpu/float_io.h"
#include "dml/ops/region_pooling/grad_plan_from_args.h"

namespace freedml::dml {

namespace {

using cpu::ReadFloat;
using cpu::WriteFloat;
using region::GradPlan;

class RoiAlignGradKernel final : public Kernel {
public:
    explicit RoiAlignGradKernel(GradPlan plan) : plan_(plan) {}
    uint64_t PersistentResourceSize() const override { return 0; }
    uint64_t TemporaryResourceSize() const override { return 0; }
    void Initialize(const KernelBindings&) override {}
    void Execute(const KernelBindings& b) override {
        if (plan_.half) {
            Run<true>(b);
        } else {
            Run<false>(b);
        }
    }

private:
    // Region r's batch index, and its axes.
    template <bool kHalf>
    uint64_t Region(const KernelBindings& b, uint32_t r, region::Axis* ax, region::Axis* ay) const {
        const GradPlan& p = plan_;
        uint32_t batch;
        std::memcpy(&batch, b.inputs[3] + int64_t(r) * p.batchStride * 4, 4);
        const std::byte* rois = b.inputs[2];
        const int64_t row = int64_t(r) * p.roiRow;
        const auto coord = [&](int k) { return ReadFloat<kHalf>(rois, row + k * p.roiColumn); };
        *ax = region::MakeAxis(p, coord(0), coord(2), p.scaleX, p.outWidth);
        *ay = region::MakeAxis(p, coord(1), coord(3), p.scaleY, p.outHeight);
        return batch;
    }

    template <bool kHalf>
    void Run(const KernelBindings& b) const {
        const GradPlan& p = plan_;
        const std::byte* input = p.hasInput ? b.inputs[0] : nullptr;
        const std::byte* gradient = b.inputs[1];
        if (p.hasOutputGradient) {
            std::byte* out = b.outputs[0];
            const uint64_t plane = uint64_t(p.height) * p.width;
            cpu::ParallelFor(cpu::HostThreads(b), p.channels, 1, [&](uint64_t first, uint64_t last) {
                std::vector<float> acc(plane * p.batch);
                for (uint64_t c = first; c < last; ++c) {
                    std::fill(acc.begin(), acc.end(), 0.0f);
                    for (uint32_t r = 0; r < p.regions; ++r) {
                        region::Axis ax, ay;
                        const uint64_t batch = Region<kHalf>(b, r, &ax, &ay);
                        if (batch >= p.batch) continue;
                        const int64_t inBase = int64_t(batch) * p.in[0] + int64_t(c) * p.in[1];
                        const auto read = [&](int64_t y, int64_t x) {
                            return ReadFloat<kHalf>(input, inBase + y * p.in[2] + x * p.in[3]);
                        };
                        float* target = acc.data() + batch * plane;
                        const auto scatter = [&](int64_t y, int64_t x, float v) { target[y * p.width + x] += v; };
                        for (uint32_t oy = 0; oy < p.outHeight; ++oy) {
                            for (uint32_t ox = 0; ox < p.outWidth; ++ox) {
                                const float g = ReadFloat<kHalf>(
                                    gradient, int64_t(r) * p.inGrad[0] + int64_t(c) * p.inGrad[1] +
                                                  int64_t(oy) * p.inGrad[2] + int64_t(ox) * p.inGrad[3]);
                                float unused[4] = {};
                                region::ElementGradient(p, ax, ay, oy, ox, g, true, false, read, scatter, unused);
                            }
                        }
                    }
                    for (uint32_t n = 0; n < p.batch; ++n) {
                        for (uint32_t y = 0; y < p.height; ++y) {
                            for (uint32_t x = 0; x < p.width; ++x) {
                                WriteFloat<kHalf>(out,
                                                  int64_t(n) * p.outGrad[0] + int64_t(c) * p.outGrad[1] +
                                                      int64_t(y) * p.outGrad[2] + int64_t(x) * p.outGrad[3],
                                                  acc[n * plane + uint64_t(y) * p.width + x]);
                            }
                        }
                    }
                }
            });
        }
        if (p.hasRoiGradient) {
            std::byte* out = b.outputs[1];
            cpu::ParallelFor(cpu::HostThreads(b), p.regions, 1, [&](uint64_t first, uint64_t last) {
                for (uint64_t r = first; r < last; ++r) {
                    region::Axis ax, ay;
                    const uint64_t batch = Region<kHalf>(b, uint32_t(r), &ax, &ay);
                    double sum[4] = {};
                    if (batch < p.batch) {
                        for (uint32_t c = 0; c < p.channels; ++c) {
                            const int64_t inBase = int64_t(batch) * p.in[0] + int64_t(c) * p.in[1];
                            const auto read = [&](int64_t y, int64_t x) {
                                return ReadFloat<kHalf>(input, inBase + y * p.in[2] + x * p.in[3]);
                            };
                            const auto scatter = [](int64_t, int64_t, float) {};
                            for (uint32_t oy = 0; oy < p.outHeight; ++oy) {
                                for (uint32_t ox = 0; ox < p.outWidth; ++ox) {
                                    const float g = ReadFloat<kHalf>(
                                        gradient, int64_t(r) * p.inGrad[0] + int64_t(c) * p.inGrad[1] +
                                                      int64_t(oy) * p.inGrad[2] + int64_t(ox) * p.inGrad[3]);
                                    float roi[4] = {};
                                    region::ElementGradient(p, ax, ay, oy, ox, g, false, true, read, scatter, roi);
                                    for (int k = 0; k < 4; ++k) sum[k] += roi[k];
                                }
                            }
                        }
                    }
                    for (int k = 0; k < 4; ++k) {
                        WriteFloat<kHalf>(out, int64_t(r) * p.roiGradRow + k * p.roiGradColumn, float(sum[k]));
                    }
                }
            });
        }
    }

    GradPlan plan_;
};

}  // namespace

namespace cpu {

Status CreateCpuRoiAlignGrad(const KernelContext&, const OperatorArgs& args, std::unique_ptr<Kernel>* kernel) {
    *kernel = std::make_unique<RoiAlignGradKernel>(region::GradPlanFromArgs(args));
    return {};
}

}  // namespace cpu

}  // namespace freedml::dml
