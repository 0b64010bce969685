// Device code of CAST: every pair of the eleven data types, converted as the CPU kernel does
// (../cpu/unary_cast.cpp). A file of its own because it instantiates a map per type pair.
#include <type_traits>

#include "dml/kernels/integer_math.h"
#include "dml/ops/elementwise_unary/cuda/unary_map.cuh"
#include "dml/ops/elementwise_unary/cuda/unary_ops.h"

namespace freedml::dml::cuda {

namespace {

using unary::DoubleToHalfBits;
using unary::LaunchMap;

// A FLOAT16 element as stored: its bits (UINT16 is another type).
struct HalfBits {
    uint16_t bits;
};

template <class TOut, class TIn>
__device__ __forceinline__ TOut Convert(TIn x) {
    if constexpr (std::is_same_v<TIn, TOut>) {
        return x;
    } else if constexpr (std::is_same_v<TIn, HalfBits>) {
        return Convert<TOut>(__half2float(__ushort_as_half(x.bits)));  // every half is exactly a float
    } else if constexpr (std::is_same_v<TOut, HalfBits>) {
        if constexpr (std::is_same_v<TIn, float>) {
            return HalfBits{__half_as_ushort(__float2half_rn(x))};
        } else {
            // Integers up to 2^53 are exact doubles; larger ones overflow FLOAT16 either way.
            return HalfBits{DoubleToHalfBits(double(x))};
        }
    } else if constexpr (std::is_floating_point_v<TOut>) {
        return TOut(x);  // one rounding to nearest even
    } else if constexpr (std::is_floating_point_v<TIn>) {
        return SaturatingTruncate<TOut>(double(x));
    } else {
        return TOut(x);  // modulo 2^bits
    }
}

template <class TIn, class TOut>
struct CastFunction {
    __device__ TOut operator()(TIn x) const { return Convert<TOut>(x); }
};

// Calls visit(T{}) with the type that stores `type`'s elements.
template <class Visit>
cudaError_t WithStorageType(ElementType type, Visit&& visit) {
    switch (type) {
        case ElementType::F32: return visit(float{});
        case ElementType::F16: return visit(HalfBits{});
        case ElementType::F64: return visit(double{});
        case ElementType::I8: return visit(int8_t{});
        case ElementType::U8: return visit(uint8_t{});
        case ElementType::I16: return visit(int16_t{});
        case ElementType::U16: return visit(uint16_t{});
        case ElementType::I32: return visit(int32_t{});
        case ElementType::U32: return visit(uint32_t{});
        case ElementType::I64: return visit(int64_t{});
        case ElementType::U64: return visit(uint64_t{});
    }
    return cudaErrorInvalidValue;
}

}  // namespace

cudaError_t LaunchCast(const EwPlan<2>& plan, ElementType inType, ElementType outType, void* out, const void* in,
                       LaunchTarget launch) {
    return WithStorageType(inType, [&](auto inTag) {
        return WithStorageType(outType, [&](auto outTag) {
            using TIn = decltype(inTag);
            using TOut = decltype(outTag);
            return LaunchMap<TIn, TOut>(plan, CastFunction<TIn, TOut>{}, out, in, launch);
        });
    });
}

}  // namespace freedml::dml::cuda
