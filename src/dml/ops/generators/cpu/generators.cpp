// CPU kernels of ONE_HOT, DIAGONAL_MATRIX and DIAGONAL_MATRIX1: each output element is chosen from
// its coordinates (generator_plan.h) and moved as bits, so one loop serves every data type. Chunks
// of elements run in parallel, each walking its coordinates like an odometer. NONZERO_COORDINATES
// walks its input once, in order; RANDOM_GENERATOR computes its Philox blocks in parallel.
#include <algorithm>
#include <cstring>

#include "dml/kernel.h"
#include "dml/kernels/cpu/thread_pool.h"
#include "dml/ops/generators/generator_args.h"
#include "dml/ops/generators/philox.h"

namespace freedml::dml {

namespace {

using generators::GenMode;
using generators::GenPlan;
using generators::IndexType;

int64_t ReadIndex(IndexType type, const std::byte* p) {
    switch (type) {
        case IndexType::I32: {
            int32_t v;
            std::memcpy(&v, p, 4);
            return v;
        }
        case IndexType::I64: {
            int64_t v;
            std::memcpy(&v, p, 8);
            return v;
        }
        case IndexType::U32: {
            uint32_t v;
            std::memcpy(&v, p, 4);
            return v;
        }
        default: {
            uint64_t v;
            std::memcpy(&v, p, 8);
            // Beyond INT64_MAX is out of range anyway; keep it positive so it is not taken as negative.
            return v > uint64_t(INT64_MAX) ? INT64_MAX : int64_t(v);
        }
    }
}

uint32_t IndexBytes(IndexType type) { return type == IndexType::I32 || type == IndexType::U32 ? 4 : 8; }

class GeneratorKernel final : public Kernel {
public:
    GeneratorKernel(GenPlan plan, int64_t onOffset) : plan_(plan), onOffset_(onOffset) {}
    uint64_t PersistentResourceSize() const override { return 0; }
    uint64_t TemporaryResourceSize() const override { return 0; }
    void Initialize(const KernelBindings&) override {}

    void Execute(const KernelBindings& b) override {
        GenPlan plan = plan_;
        const uint32_t size = plan.elementSize;
        if (plan.mode == GenMode::OneHot) {  // OffValue and OnValue live in ValuesTensor
            std::memcpy(&plan.offBits, b.inputs[1], size);
            std::memcpy(&plan.onBits, b.inputs[1] + onOffset_ * size, size);
        }
        const std::byte* src = plan.hasSource ? b.inputs[0] : nullptr;
        const uint32_t srcSize = plan.mode == GenMode::OneHot ? IndexBytes(plan.indexType) : size;
        std::byte* out = b.outputs[0];
        const uint32_t rank = plan.rank;
        cpu::ParallelFor(cpu::HostThreads(b), plan.count, uint64_t(1) << 14, [&](uint64_t first, uint64_t last) {
            uint64_t coord[generators::kMaxRank] = {};
            int64_t o = 0, s = 0;
            uint64_t rest = first;
            for (uint32_t d = rank; d-- > 0;) {
                coord[d] = rest % plan.sizes[d];
                rest /= plan.sizes[d];
                o += int64_t(coord[d]) * plan.outStrides[d];
                s += int64_t(coord[d]) * plan.srcStrides[d];
            }
            for (uint64_t e = first; e < last; ++e) {
                uint64_t bits = 0;
                if (plan.mode == GenMode::OneHot) {
                    const int64_t index = generators::NormalizeIndex(
                        ReadIndex(plan.indexType, src + s * srcSize), plan.sizes[plan.axis]);
                    bits = index == int64_t(coord[plan.axis]) ? plan.onBits : plan.offBits;
                } else {
                    const int64_t topX = int64_t(coord[rank - 1]) - int64_t(coord[rank - 2]);
                    if (generators::InFillBand(topX, plan.fillBegin, plan.fillEnd)) {
                        bits = plan.valueBits;
                    } else if (src) {
                        std::memcpy(&bits, src + s * size, size);
                    }
                }
                std::memcpy(out + o * size, &bits, size);  // little-endian: the low bytes
                for (uint32_t d = rank; d-- > 0;) {
                    o += plan.outStrides[d];
                    s += plan.srcStrides[d];
                    if (++coord[d] < plan.sizes[d]) break;
                    o -= int64_t(plan.sizes[d]) * plan.outStrides[d];
                    s -= int64_t(plan.sizes[d]) * plan.srcStrides[d];
                    coord[d] = 0;
                }
            }
        });
    }

private:
    GenPlan plan_;
    int64_t onOffset_;
};

Status Create(const OperatorArgs& args, std::unique_ptr<Kernel>* kernel) {
    GenPlan plan;
    FREEDML_TRY(generators::MakeGenPlan(args, &plan));
    const int64_t onOffset = plan.mode == GenMode::OneHot ? generators::OnValueOffset(*args.inputs[1]) : 0;
    *kernel = std::make_unique<GeneratorKernel>(plan, onOffset);
    return {};
}

class NonzeroKernel final : public Kernel {
public:
    explicit NonzeroKernel(generators::NonzeroPlan plan) : plan_(plan) {}
    uint64_t PersistentResourceSize() const override { return 0; }
    uint64_t TemporaryResourceSize() const override { return 0; }
    void Initialize(const KernelBindings&) override {}

    void Execute(const KernelBindings& b) override {
        const generators::NonzeroPlan& p = plan_;
        auto* coords = reinterpret_cast<uint32_t*>(b.outputs[1]);
        uint64_t coord[generators::kMaxRank] = {};
        int64_t offset = 0;
        uint32_t found = 0;
        for (uint64_t e = 0; e < p.count; ++e) {
            uint64_t bits = 0;
            std::memcpy(&bits, b.inputs[0] + offset * p.elementSize, p.elementSize);
            if (bits & p.zeroMask) {
                uint32_t* row = coords + int64_t(found) * p.rowStride;
                for (uint32_t c = 0; c < p.columns; ++c) {
                    row[int64_t(c) * p.columnStride] = uint32_t(coord[p.rank - p.columns + c]);
                }
                ++found;
            }
            for (uint32_t d = p.rank; d-- > 0;) {
                offset += p.inStrides[d];
                if (++coord[d] < p.sizes[d]) break;
                offset -= int64_t(p.sizes[d]) * p.inStrides[d];
                coord[d] = 0;
            }
        }
        for (uint64_t r = found; r < p.count; ++r) {  // rows past the count: zeros
            for (uint32_t c = 0; c < p.columns; ++c) coords[int64_t(r) * p.rowStride + int64_t(c) * p.columnStride] = 0;
        }
        std::memcpy(b.outputs[0], &found, 4);
    }

private:
    generators::NonzeroPlan plan_;
};

class RandomKernel final : public Kernel {
public:
    explicit RandomKernel(generators::RandomPlan plan) : plan_(plan) {}
    uint64_t PersistentResourceSize() const override { return 0; }
    uint64_t TemporaryResourceSize() const override { return 0; }
    void Initialize(const KernelBindings&) override {}

    void Execute(const KernelBindings& b) override {
        const generators::RandomPlan& p = plan_;
        uint32_t state[6];
        for (int i = 0; i < 6; ++i) std::memcpy(&state[i], b.inputs[0] + int64_t(i) * p.stateStride * 4, 4);
        auto* out = reinterpret_cast<uint32_t*>(b.outputs[0]);
        const uint64_t blocks = (p.count + 3) / 4;
        cpu::ParallelFor(cpu::HostThreads(b), blocks, 1024, [&](uint64_t first, uint64_t last) {
            for (uint64_t block = first; block < last; ++block) {
                const generators::Philox4x32 bits =
                    generators::Philox4x32x10(generators::AddToCounter(state, block), state[4], state[5]);
                for (uint64_t i = block * 4; i < std::min(p.count, block * 4 + 4); ++i) {
                    int64_t o = 0;
                    uint64_t rest = i;
                    for (uint32_t d = p.rank; d-- > 0;) {
                        o += int64_t(rest % p.sizes[d]) * p.outStrides[d];
                        rest /= p.sizes[d];
                    }
                    out[o] = bits.v[i % 4];
                }
            }
        });
        if (p.writesState) {
            const generators::Philox4x32 next = generators::AddToCounter(state, blocks);
            const uint32_t words[6] = {next.v[0], next.v[1], next.v[2], next.v[3], state[4], state[5]};
            for (int i = 0; i < 6; ++i) std::memcpy(b.outputs[1] + int64_t(i) * p.nextStateStride * 4, &words[i], 4);
        }
    }

private:
    generators::RandomPlan plan_;
};

}  // namespace

namespace cpu {

Status CreateCpuRandomGenerator(const KernelContext&, const OperatorArgs& args, std::unique_ptr<Kernel>* kernel) {
    *kernel = std::make_unique<RandomKernel>(generators::MakeRandomPlan(args));
    return {};
}


Status CreateCpuNonzeroCoordinates(const KernelContext&, const OperatorArgs& args, std::unique_ptr<Kernel>* kernel) {
    *kernel = std::make_unique<NonzeroKernel>(generators::MakeNonzeroPlan(args));
    return {};
}


Status CreateCpuOneHot(const KernelContext&, const OperatorArgs& args, std::unique_ptr<Kernel>* kernel) {
    return Create(args, kernel);
}

Status CreateCpuDiagonalMatrix(const KernelContext&, const OperatorArgs& args, std::unique_ptr<Kernel>* kernel) {
    return Create(args, kernel);
}

}  // namespace cpu

}  // namespace freedml::dml
