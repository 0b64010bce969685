#include "dml/kernels/cpu/float32_copy.h"

#include <algorithm>
#include <cstring>

#include "dml/kernels/cpu/float16.h"
#include "dml/kernels/cpu/thread_pool.h"

namespace freedml::dml::cpu {

TensorDesc PackedFloat32Like(const TensorDesc& desc) {
    TensorDesc d = desc;
    d.dataType = DML_TENSOR_DATA_TYPE_FLOAT32;
    d.strides = PackedStrides(desc.sizes, desc.rank);
    d.hasExplicitStrides = false;
    d.totalTensorSizeInBytes = desc.ElementCount() * 4;
    d.guaranteedBaseOffsetAlignment = 0;
    return d;
}

void ConvertTensorOn(const ParallelForFunction& parallelFor, TensorView from, TensorView to,
                     uint64_t minElementsPerChunk) {
    const TensorDesc &s = from.Desc(), &d = to.Desc();
    const DML_TENSOR_DATA_TYPE sType = s.dataType, dType = d.dataType;
    auto plan = MakeLoopPlan<2>(d.sizes.data(), d.rank, {d.strides.data(), s.strides.data()},
                                {ElementSizeInBytes(dType), ElementSizeInBytes(sType)});
    ParallelLoopOn(
        parallelFor, plan, {to.data, from.data},
        [&](const std::array<std::byte*, 2>& p, uint64_t n, const std::array<int64_t, 2>& st) {
            // One side packed FLOAT32: a single conversion pass; otherwise through a block of floats.
            if (dType == DML_TENSOR_DATA_TYPE_FLOAT32 && st[0] == 4) {
                LoadFloats(sType, p[1], st[1], reinterpret_cast<float*>(p[0]), size_t(n));
                return;
            }
            if (sType == DML_TENSOR_DATA_TYPE_FLOAT32 && st[1] == 4) {
                StoreFloats(dType, reinterpret_cast<const float*>(p[1]), p[0], st[0], size_t(n));
                return;
            }
            float block[256];
            for (uint64_t i = 0; i < n; i += 256) {
                const size_t m = size_t(std::min<uint64_t>(256, n - i));
                LoadFloats(sType, p[1] + int64_t(i) * st[1], st[1], block, m);
                StoreFloats(dType, block, p[0] + int64_t(i) * st[0], st[0], m);
            }
        },
        minElementsPerChunk);
}

void ConvertTensor(ThreadPool* threads, TensorView from, TensorView to) {
    ConvertTensorOn(OnPool(threads), from, to, 1u << 16);
}

}  // namespace freedml::dml::cpu
