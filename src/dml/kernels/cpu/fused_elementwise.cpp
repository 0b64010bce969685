// The CPU kernel of a compiled graph's fused element-wise pass (graph/ew_program.h): the program
// runs over blocks of kBlock elements, one instruction at a time over the whole block, so the
// interpretation costs one indirect call per instruction and block while every loop inside runs
// over packed floats (and vectorizes). Each block's operands are gathered from and its result
// scattered to memory once; the intermediates never leave the registers (blocks on the stack).
#include "dml/kernels/cpu/float_rows.h"  // first: vectorization and FP settings of this file

#include <algorithm>
#include <cstring>

#include "dml/graph/ew_program.h"
#include "dml/kernel.h"
#include "dml/kernels/cpu/activation.h"
#include "dml/kernels/cpu/thread_pool.h"

namespace freedml::dml::cpu {
namespace {

constexpr uint64_t kBlock = 512;
constexpr uint64_t kMinChunk = uint64_t(1) << 14;  // elements per thread-pool chunk at least

using BlockFn = void (*)(const EwInstruction& in, const float* a, const float* b, float* dst, uint64_t n);

template <uint8_t kOp>
void UnaryBlock(const EwInstruction& in, const float* a, const float*, float* dst, uint64_t n) {
    EwInstruction fixed = in;
    fixed.op = kOp;  // a constant: the switch in EwUnary folds away
    if (in.scaleBias) {
        fixed.scaleBias = true;
        for (uint64_t i = 0; i < n; ++i) dst[i] = EwUnary(fixed, a[i]);
    } else {
        fixed.scaleBias = false;
        for (uint64_t i = 0; i < n; ++i) dst[i] = EwUnary(fixed, a[i]);
    }
}

template <uint8_t kOp>
void BinaryBlock(const EwInstruction&, const float* a, const float* b, float* dst, uint64_t n) {
    for (uint64_t i = 0; i < n; ++i) dst[i] = EwBinary(kOp, a[i], b[i]);
}

void ActivationBlock(const EwInstruction& in, const float* a, const float*, float* dst, uint64_t n) {
    ActivationParams params;
    params.type = static_cast<DML_OPERATOR_TYPE>(in.activationType);
    params.alpha = in.p0;
    params.beta = in.p1;
    params.gamma = in.p2;
    ApplyActivation(params, a, dst, n);
}

template <uint8_t... kOps>
BlockFn PickUnary(uint8_t op, std::integer_sequence<uint8_t, kOps...>) {
    BlockFn fn = nullptr;
    ((fn = op == kOps ? &UnaryBlock<kOps> : fn), ...);
    return fn;
}

BlockFn PickFor(const EwInstruction& in) {
    switch (in.code) {
        case EwCode::Load: return nullptr;
        case EwCode::Activation: return &ActivationBlock;
        case EwCode::Unary:
            if (in.op == 0xFF) return &UnaryBlock<0xFF>;
            return PickUnary(in.op, std::make_integer_sequence<uint8_t, uint8_t(UnaryFloatOp::Pow) + 1>{});
        case EwCode::Binary:
            switch (static_cast<BinaryOp>(in.op)) {
                case BinaryOp::Add: return &BinaryBlock<uint8_t(BinaryOp::Add)>;
                case BinaryOp::Subtract: return &BinaryBlock<uint8_t(BinaryOp::Subtract)>;
                case BinaryOp::Multiply: return &BinaryBlock<uint8_t(BinaryOp::Multiply)>;
                case BinaryOp::Divide: return &BinaryBlock<uint8_t(BinaryOp::Divide)>;
                case BinaryOp::Min: return &BinaryBlock<uint8_t(BinaryOp::Min)>;
                case BinaryOp::Max: return &BinaryBlock<uint8_t(BinaryOp::Max)>;
                default: return nullptr;
            }
    }
    return nullptr;
}

class FusedElementwiseKernel final : public Kernel {
public:
    explicit FusedElementwiseKernel(const EwProgram& program) : program_(program) {
        for (uint32_t i = 0; i < program_.instructionCount; ++i) functions_[i] = PickFor(program_.instructions[i]);
    }

    uint64_t PersistentResourceSize() const override { return 0; }
    uint64_t TemporaryResourceSize() const override { return 0; }
    void Initialize(const KernelBindings&) override {}

    void Execute(const KernelBindings& bindings) override {
        std::byte* bases[kEwMaxInputs + 1] = {};
        bases[0] = bindings.outputs[0];
        for (uint32_t k = 0; k < program_.inputCount; ++k) bases[1 + k] = bindings.inputs[k];
        ParallelFor(HostThreads(bindings), program_.count, kMinChunk, [&](uint64_t begin, uint64_t end) {
            alignas(64) float registers[kEwMaxRegisters][kBlock];
            for (uint64_t start = begin; start < end; start += kBlock) {
                RunBlock(bases, registers, start, std::min(kBlock, end - start));
            }
        });
    }

private:
    // Calls row(offsetInElements, length, stride) over the elements [start, start + n) of
    // operand k, in runs along the innermost merged dimension.
    template <class Row>
    void Walk(uint32_t k, uint64_t start, uint64_t n, Row&& row) const {
        const uint32_t rank = program_.rank;
        if (rank == 0) {
            row(int64_t(0), uint64_t(0), n, int64_t(0));
            return;
        }
        uint64_t index[kEwMaxDims];
        uint64_t rest = start;
        int64_t offset = 0;
        for (uint32_t d = rank; d-- > 0;) {
            index[d] = rest % program_.sizes[d];
            rest /= program_.sizes[d];
            offset += int64_t(index[d]) * program_.strides[k][d];
        }
        const uint32_t inner = rank - 1;
        const int64_t innerStride = program_.strides[k][inner];
        uint64_t done = 0;
        while (done < n) {
            const uint64_t run = std::min(n - done, program_.sizes[inner] - index[inner]);
            row(offset, done, run, innerStride);
            done += run;
            offset += int64_t(run) * innerStride;
            index[inner] += run;
            // Carry into the outer dimensions.
            for (uint32_t d = inner; d > 0 && index[d] == program_.sizes[d]; --d) {
                offset -= int64_t(index[d]) * program_.strides[k][d];
                index[d] = 0;
                ++index[d - 1];
                offset += program_.strides[k][d - 1];
            }
        }
    }

    void RunBlock(std::byte* const* bases, float (*registers)[kBlock], uint64_t start, uint64_t n) const {
        for (uint32_t i = 0; i < program_.instructionCount; ++i) {
            const EwInstruction& in = program_.instructions[i];
            float* dst = registers[in.dst];
            if (in.code == EwCode::Load) {
                const auto* base = reinterpret_cast<const float*>(bases[1 + in.a]);
                Walk(1 + in.a, start, n, [&](int64_t offset, uint64_t at, uint64_t run, int64_t stride) {
                    const float* from = base + offset;
                    if (stride == 1) {
                        std::memcpy(dst + at, from, run * sizeof(float));
                    } else if (stride == 0) {
                        std::fill(dst + at, dst + at + run, *from);
                    } else {
                        for (uint64_t e = 0; e < run; ++e) dst[at + e] = from[int64_t(e) * stride];
                    }
                });
                continue;
            }
            functions_[i](in, registers[in.a], registers[in.b], dst, n);
        }
        const float* result = registers[program_.result];
        auto* out = reinterpret_cast<float*>(bases[0]);
        Walk(0, start, n, [&](int64_t offset, uint64_t at, uint64_t run, int64_t stride) {
            float* to = out + offset;
            if (stride == 1) {
                std::memcpy(to, result + at, run * sizeof(float));
            } else {
                for (uint64_t e = 0; e < run; ++e) to[int64_t(e) * stride] = result[at + e];
            }
        });
    }

    EwProgram program_;
    BlockFn functions_[kEwMaxInstructions] = {};
};

}  // namespace

Status CreateFusedElementwise(const KernelContext&, const EwProgram& program, std::unique_ptr<Kernel>* kernel) {
    for (uint32_t i = 0; i < program.instructionCount; ++i) {
        if (program.instructions[i].code != EwCode::Load && !PickFor(program.instructions[i])) {
            return Error(E_INVALIDARG, "The fused element-wise program's instruction %u has an operation the CPU kernel "
                         "does not run.", i);
        }
    }
    *kernel = std::make_unique<FusedElementwiseKernel>(program);
    return {};
}

}  // namespace freedml::dml::cpu
