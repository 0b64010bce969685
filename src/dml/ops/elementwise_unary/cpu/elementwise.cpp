#include "dml/ops/elementwise_unary/cpu/elementwise.h"

#include <algorithm>
#include <cstring>

#include "dml/kernels/cpu/float16.h"
#include "dml/kernels/cpu/kernel_adapter.h"
#include "dml/kernels/cpu/thread_pool.h"
#include "dml/ops/elementwise_binary/cpu/binary_kernels.h"

namespace freedml::dml::cpu {
namespace {

constexpr size_t kBlock = 256;  // floats converted at a time on the strided / FLOAT16 paths

template <class T>
inline T Load(const std::byte* p) {
    T v;
    std::memcpy(&v, p, sizeof(T));
    return v;
}

template <class T>
inline void Store(std::byte* p, T v) {
    std::memcpy(p, &v, sizeof(T));
}

// Copies a row of `n` elements of `size` bytes between byte strides.
void CopyRow(uint32_t size, std::byte* dst, int64_t dstStride, const std::byte* src, int64_t srcStride, uint64_t n) {
    if (dstStride == int64_t(size) && srcStride == int64_t(size)) {
        if (dst != src) std::memmove(dst, src, n * size);
        return;
    }
    auto loop = [&](auto tag) {
        using T = decltype(tag);
        for (uint64_t i = 0; i < n; ++i) Store<T>(dst + int64_t(i) * dstStride, Load<T>(src + int64_t(i) * srcStride));
    };
    switch (size) {
        case 1: return loop(uint8_t{});
        case 2: return loop(uint16_t{});
        case 4: return loop(uint32_t{});
        default: return loop(uint64_t{});
    }
}

}  // namespace

// ---- IDENTITY -----------------------------------------------------------------------------------

Status IdentityKernel::Create(const IdentityParams& params) {
    INVALID_IF(params.input.dataType != params.output.dataType,
               "IDENTITY needs equal input and output data types (%s, %s).", DataTypeName(params.input.dataType),
               DataTypeName(params.output.dataType));
    INVALID_IF(params.hasScaleBias && !IsFloatingPoint(params.input.dataType),
               "IDENTITY applies a ScaleBias only to floating-point tensors (%s given).",
               DataTypeName(params.input.dataType));
    INVALID_IF(ElementSizeInBytes(params.input.dataType) == 0 ||
                   params.input.dataType == DML_TENSOR_DATA_TYPE_UINT4 ||
                   params.input.dataType == DML_TENSOR_DATA_TYPE_INT4,
               "IDENTITY does not support data type %s on the CPU.", DataTypeName(params.input.dataType));
    params_ = params;
    auto inStrides = BroadcastStridesOver(params_.input, params_.output);
    uint32_t size = ElementSizeInBytes(params_.output.dataType);
    plan_ = MakeLoopPlan<2>(params_.output.sizes.data(), params_.output.rank,
                            {params_.output.strides.data(), inStrides.data()}, {size, size});
    return Status::Ok();
}

void IdentityKernel::Execute(ThreadPool* threads, TensorView input, TensorView output, std::byte*, std::byte*) const {
    const DML_TENSOR_DATA_TYPE type = params_.output.dataType;
    const uint32_t size = ElementSizeInBytes(type);
    if (!params_.hasScaleBias) {
        ParallelLoop(threads, plan_, {output.data, input.data},
                     [&](const std::array<std::byte*, 2>& p, uint64_t n, const std::array<int64_t, 2>& s) {
                         CopyRow(size, p[0], s[0], p[1], s[1], n);
                     });
        return;
    }
    const float scale = params_.scaleBias.Scale, bias = params_.scaleBias.Bias;
    if (type == DML_TENSOR_DATA_TYPE_FLOAT64) {
        ParallelLoop(threads, plan_, {output.data, input.data},
                     [&](const std::array<std::byte*, 2>& p, uint64_t n, const std::array<int64_t, 2>& s) {
                         for (uint64_t i = 0; i < n; ++i) {
                             Store<double>(p[0] + int64_t(i) * s[0],
                                           Load<double>(p[1] + int64_t(i) * s[1]) * scale + bias);
                         }
                     });
        return;
    }
    ParallelLoop(threads, plan_, {output.data, input.data},
                 [&](const std::array<std::byte*, 2>& p, uint64_t n, const std::array<int64_t, 2>& s) {
                     float block[kBlock];
                     for (uint64_t i = 0; i < n; i += kBlock) {
                         size_t m = size_t(std::min<uint64_t>(kBlock, n - i));
                         LoadFloats(type, p[1] + int64_t(i) * s[1], s[1], block, m);
                         for (size_t j = 0; j < m; ++j) block[j] = block[j] * scale + bias;
                         StoreFloats(type, block, p[0] + int64_t(i) * s[0], s[0], m);
                     }
                 });
}

// The factory the operator table names (dml/ops/operators.def).
Status CreateCpuIdentity(const KernelContext&, const OperatorArgs& args, std::unique_ptr<Kernel>* out) {
    const auto& desc = args.As<DML_ELEMENT_WISE_IDENTITY_OPERATOR_DESC>();
    IdentityParams params{*args.inputs[0], *args.outputs[0], desc.ScaleBias != nullptr,
                               desc.ScaleBias ? *desc.ScaleBias : DML_SCALE_BIAS{1.0f, 0.0f}};
    IdentityKernel kernel;
    FREEDML_TRY(kernel.Create(params));
    *out = AdaptKernel(
        args, std::move(kernel),
        [](IdentityKernel& k, const OperatorArgs& a, const KernelBindings& b) {
            k.Execute(HostThreads(b), ViewOf(a.inputs, b.inputs, 0), ViewOf(a.outputs, b.outputs, 0), b.persistent,
                      b.temporary);
        },
        kNoInitialize);
    return {};
}

}  // namespace freedml::dml::cpu
