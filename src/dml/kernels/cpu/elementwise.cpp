#include "dml/kernels/cpu/elementwise.h"

#include <cstring>
#include <type_traits>

#include "dml/kernels/cpu/float16.h"
#include "dml/kernels/cpu/thread_pool.h"

namespace freedml::dml::cpu {
namespace {

constexpr size_t kBlock = 256;  // floats converted at a time on the strided / FLOAT16 paths

// Strides of `desc` over the output's shape: a dimension of size 1 facing a larger one broadcasts.
std::array<uint32_t, kMaxTensorRank> BroadcastStrides(const TensorDesc& desc, const TensorDesc& output) {
    std::array<uint32_t, kMaxTensorRank> strides{};
    uint32_t offset = output.rank - desc.rank;  // validation gives equal ranks; right-align anyway
    for (uint32_t i = 0; i < desc.rank; ++i) {
        strides[offset + i] = (desc.sizes[i] == 1 && output.sizes[offset + i] != 1) ? 0 : desc.strides[i];
    }
    return strides;
}

bool IsFloatType(DML_TENSOR_DATA_TYPE t) {
    return t == DML_TENSOR_DATA_TYPE_FLOAT32 || t == DML_TENSOR_DATA_TYPE_FLOAT16;
}

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

// Integer addition modulo 2^bits (signed overflow is undefined in C++, unsigned wraps).
template <class T>
void AddIntegerRow(std::byte* out, int64_t so, const std::byte* a, int64_t sa, const std::byte* b, int64_t sb,
                   uint64_t n) {
    using U = std::make_unsigned_t<T>;
    if (so == sizeof(T) && sa == sizeof(T) && sb == sizeof(T)) {
        for (uint64_t i = 0; i < n; ++i) {
            U x = U(Load<T>(a + i * sizeof(T))), y = U(Load<T>(b + i * sizeof(T)));
            Store<T>(out + i * sizeof(T), T(U(x + y)));
        }
        return;
    }
    for (uint64_t i = 0; i < n; ++i) {
        U x = U(Load<T>(a + int64_t(i) * sa)), y = U(Load<T>(b + int64_t(i) * sb));
        Store<T>(out + int64_t(i) * so, T(U(x + y)));
    }
}

}  // namespace

// ---- IDENTITY -----------------------------------------------------------------------------------

Status IdentityKernel::Create(const IdentityParams& params) {
    INVALID_IF(params.input.dataType != params.output.dataType,
               "IDENTITY needs equal input and output data types (%s, %s).", DataTypeName(params.input.dataType),
               DataTypeName(params.output.dataType));
    INVALID_IF(params.hasScaleBias && !IsFloatType(params.input.dataType) &&
                   params.input.dataType != DML_TENSOR_DATA_TYPE_FLOAT64,
               "IDENTITY applies a ScaleBias only to floating-point tensors (%s given).",
               DataTypeName(params.input.dataType));
    INVALID_IF(ElementSizeInBytes(params.input.dataType) == 0 ||
                   params.input.dataType == DML_TENSOR_DATA_TYPE_UINT4 ||
                   params.input.dataType == DML_TENSOR_DATA_TYPE_INT4,
               "IDENTITY does not support data type %s on the CPU.", DataTypeName(params.input.dataType));
    params_ = params;
    auto inStrides = BroadcastStrides(params_.input, params_.output);
    uint32_t size = ElementSizeInBytes(params_.output.dataType);
    plan_ = MakeLoopPlan<2>(params_.output.sizes.data(), params_.output.rank,
                            {params_.output.strides.data(), inStrides.data()}, {size, size});
    return Status::Ok();
}

void IdentityKernel::Execute(TensorView input, TensorView output, std::byte*, std::byte*) const {
    const DML_TENSOR_DATA_TYPE type = params_.output.dataType;
    const uint32_t size = ElementSizeInBytes(type);
    if (!params_.hasScaleBias) {
        ParallelLoop(plan_, {output.data, input.data}, [&](const std::array<std::byte*, 2>& p, uint64_t n,
                                                          const std::array<int64_t, 2>& s) {
            CopyRow(size, p[0], s[0], p[1], s[1], n);
        });
        return;
    }
    const float scale = params_.scaleBias.Scale, bias = params_.scaleBias.Bias;
    if (type == DML_TENSOR_DATA_TYPE_FLOAT64) {
        ParallelLoop(plan_, {output.data, input.data}, [&](const std::array<std::byte*, 2>& p, uint64_t n,
                                                          const std::array<int64_t, 2>& s) {
            for (uint64_t i = 0; i < n; ++i) {
                Store<double>(p[0] + int64_t(i) * s[0], Load<double>(p[1] + int64_t(i) * s[1]) * scale + bias);
            }
        });
        return;
    }
    ParallelLoop(plan_, {output.data, input.data}, [&](const std::array<std::byte*, 2>& p, uint64_t n,
                                                      const std::array<int64_t, 2>& s) {
        float block[kBlock];
        for (uint64_t i = 0; i < n; i += kBlock) {
            size_t m = size_t(std::min<uint64_t>(kBlock, n - i));
            LoadFloats(type, p[1] + int64_t(i) * s[1], s[1], block, m);
            for (size_t j = 0; j < m; ++j) block[j] = block[j] * scale + bias;
            StoreFloats(type, block, p[0] + int64_t(i) * s[0], s[0], m);
        }
    });
}

// ---- ADD / ADD1 ---------------------------------------------------------------------------------

Status AddKernel::Create(const AddParams& params) {
    const DML_TENSOR_DATA_TYPE type = params.output.dataType;
    INVALID_IF(params.a.dataType != type || params.b.dataType != type,
               "ADD needs equal data types (A %s, B %s, Output %s).", DataTypeName(params.a.dataType),
               DataTypeName(params.b.dataType), DataTypeName(type));
    switch (type) {
        case DML_TENSOR_DATA_TYPE_FLOAT32: case DML_TENSOR_DATA_TYPE_FLOAT16: case DML_TENSOR_DATA_TYPE_FLOAT64:
        case DML_TENSOR_DATA_TYPE_UINT8: case DML_TENSOR_DATA_TYPE_INT8: case DML_TENSOR_DATA_TYPE_UINT16:
        case DML_TENSOR_DATA_TYPE_INT16: case DML_TENSOR_DATA_TYPE_UINT32: case DML_TENSOR_DATA_TYPE_INT32:
        case DML_TENSOR_DATA_TYPE_UINT64: case DML_TENSOR_DATA_TYPE_INT64:
            break;
        default:
            return Error(DXGI_ERROR_UNSUPPORTED, "ADD does not support data type %s on the CPU.", DataTypeName(type));
    }
    INVALID_IF(!params.activation.IsNone() && !IsFloatType(type),
               "ADD1's fused activation (%s) needs FLOAT32 or FLOAT16 tensors (%s given).",
               ActivationName(params.activation.type), DataTypeName(type));
    params_ = params;
    auto aStrides = BroadcastStrides(params_.a, params_.output);
    auto bStrides = BroadcastStrides(params_.b, params_.output);
    uint32_t size = ElementSizeInBytes(type);
    plan_ = MakeLoopPlan<3>(params_.output.sizes.data(), params_.output.rank,
                            {params_.output.strides.data(), aStrides.data(), bStrides.data()}, {size, size, size});
    return Status::Ok();
}

void AddKernel::Execute(TensorView a, TensorView b, TensorView output, std::byte*, std::byte*) const {
    const DML_TENSOR_DATA_TYPE type = params_.output.dataType;
    const FusedActivation& activation = params_.activation;
    const std::array<std::byte*, 3> bases{output.data, a.data, b.data};
    using Ptrs = std::array<std::byte*, 3>;
    using Strides = std::array<int64_t, 3>;

    auto integer = [&](auto tag) {
        using T = decltype(tag);
        ParallelLoop(plan_, bases, [](const Ptrs& p, uint64_t n, const Strides& s) {
            AddIntegerRow<T>(p[0], s[0], p[1], s[1], p[2], s[2], n);
        });
    };
    switch (type) {
        case DML_TENSOR_DATA_TYPE_FLOAT32:
            ParallelLoop(plan_, bases, [&](const Ptrs& p, uint64_t n, const Strides& s) {
                if (s[0] == 4 && s[1] == 4 && s[2] == 4) {
                    // Packed rows: a plain vectorizable loop, then the activation over what it wrote.
                    auto* out = reinterpret_cast<float*>(p[0]);
                    auto* x = reinterpret_cast<const float*>(p[1]);
                    auto* y = reinterpret_cast<const float*>(p[2]);
                    for (uint64_t i = 0; i < n; ++i) out[i] = x[i] + y[i];
                    if (!activation.IsNone()) ApplyActivation(activation, out, n);
                    return;
                }
                float x[kBlock], y[kBlock];
                for (uint64_t i = 0; i < n; i += kBlock) {
                    size_t m = size_t(std::min<uint64_t>(kBlock, n - i));
                    LoadFloats(type, p[1] + int64_t(i) * s[1], s[1], x, m);
                    LoadFloats(type, p[2] + int64_t(i) * s[2], s[2], y, m);
                    for (size_t j = 0; j < m; ++j) x[j] += y[j];
                    if (!activation.IsNone()) ApplyActivation(activation, x, m);
                    StoreFloats(type, x, p[0] + int64_t(i) * s[0], s[0], m);
                }
            });
            return;
        case DML_TENSOR_DATA_TYPE_FLOAT16:
            ParallelLoop(plan_, bases, [&](const Ptrs& p, uint64_t n, const Strides& s) {
                float x[kBlock], y[kBlock];
                for (uint64_t i = 0; i < n; i += kBlock) {
                    size_t m = size_t(std::min<uint64_t>(kBlock, n - i));
                    LoadFloats(type, p[1] + int64_t(i) * s[1], s[1], x, m);
                    LoadFloats(type, p[2] + int64_t(i) * s[2], s[2], y, m);
                    // The float sum of two halves rounds to the correctly rounded half (24 >= 2*11+2).
                    for (size_t j = 0; j < m; ++j) x[j] += y[j];
                    if (!activation.IsNone()) ApplyActivation(activation, x, m);
                    StoreFloats(type, x, p[0] + int64_t(i) * s[0], s[0], m);
                }
            });
            return;
        case DML_TENSOR_DATA_TYPE_FLOAT64:
            ParallelLoop(plan_, bases, [](const Ptrs& p, uint64_t n, const Strides& s) {
                for (uint64_t i = 0; i < n; ++i) {
                    Store<double>(p[0] + int64_t(i) * s[0],
                                  Load<double>(p[1] + int64_t(i) * s[1]) + Load<double>(p[2] + int64_t(i) * s[2]));
                }
            });
            return;
        case DML_TENSOR_DATA_TYPE_UINT8: return integer(uint8_t{});
        case DML_TENSOR_DATA_TYPE_INT8: return integer(int8_t{});
        case DML_TENSOR_DATA_TYPE_UINT16: return integer(uint16_t{});
        case DML_TENSOR_DATA_TYPE_INT16: return integer(int16_t{});
        case DML_TENSOR_DATA_TYPE_UINT32: return integer(uint32_t{});
        case DML_TENSOR_DATA_TYPE_INT32: return integer(int32_t{});
        case DML_TENSOR_DATA_TYPE_UINT64: return integer(uint64_t{});
        case DML_TENSOR_DATA_TYPE_INT64: return integer(int64_t{});
        default: return;
    }
}

}  // namespace freedml::dml::cpu
