// Device code of the fused element-wise pass: each thread interprets the program for its
// elements (grid-stride), keeping the program's registers in its own registers or local memory;
// the program itself sits in the kernel's parameter space, which every thread reads alike.
#include "dml/kernels/cuda/activation.cuh"
#include "dml/kernels/cuda/fused_elementwise.cuh"

namespace freedml::dml::cuda {

namespace {

constexpr int kFusedThreads = 256;

__device__ __forceinline__ int64_t OffsetOf(const EwProgram& p, int k, const uint64_t (&index)[kEwMaxDims]) {
    int64_t offset = 0;
    for (uint32_t d = 0; d < p.rank; ++d) offset += int64_t(index[d]) * p.strides[k][d];
    return offset;
}

__global__ void __launch_bounds__(kFusedThreads) FusedKernel(const __grid_constant__ EwProgram p, FusedOperands ops) {
    const uint64_t stride = uint64_t(gridDim.x) * blockDim.x;
    for (uint64_t e = uint64_t(blockIdx.x) * blockDim.x + threadIdx.x; e < p.count; e += stride) {
        uint64_t index[kEwMaxDims];
        if (p.rank <= 1) {
            index[0] = e;  // packed or one merged dimension: no division
        } else {
            uint64_t rest = e;
            for (uint32_t d = p.rank; d-- > 0;) {
                index[d] = rest % p.sizes[d];
                rest /= p.sizes[d];
            }
        }
        float r[kEwMaxRegisters];
        for (uint32_t i = 0; i < p.instructionCount; ++i) {
            const EwInstruction& in = p.instructions[i];
            float v;
            switch (in.code) {
                case EwCode::Load: v = __ldg(ops.inputs[in.a] + OffsetOf(p, 1 + in.a, index)); break;
                case EwCode::Unary: v = EwUnary(in, r[in.a]); break;
                case EwCode::Binary: v = EwBinary(in.op, r[in.a], r[in.b]); break;
                default: {
                    ActParams act;
                    act.act = static_cast<Act>(in.op);
                    act.alpha = in.p0;
                    act.beta = in.p1;
                    act.gamma = in.p2;
                    v = Activate<float>(act, r[in.a]);
                    break;
                }
            }
            r[in.dst] = v;
        }
        ops.output[OffsetOf(p, 0, index)] = r[p.result];
    }
}

}  // namespace

cudaError_t LaunchFusedElementwise(const EwProgram& program, const FusedOperands& operands, LaunchTarget launch) {
    if (program.count == 0) return cudaSuccess;
    FusedKernel<<<launch.Blocks(program.count, kFusedThreads), kFusedThreads, 0, launch.stream>>>(program, operands);
    return cudaGetLastError();
}

}  // namespace freedml::dml::cuda
