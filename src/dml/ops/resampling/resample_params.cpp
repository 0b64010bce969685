#include "dml/ops/resampling/resample_params.h"

#include <cstring>

namespace freedml::dml {

bool IsResampleGrad(DML_OPERATOR_TYPE type) {
    return type == DML_OPERATOR_RESAMPLE_GRAD || type == DML_OPERATOR_RESAMPLE_GRAD1;
}

namespace {

struct Fields {
    DML_INTERPOLATION_MODE mode = DML_INTERPOLATION_MODE_NEAREST_NEIGHBOR;
    DML_AXIS_DIRECTION rounding = DML_AXIS_DIRECTION_INCREASING;
    const FLOAT* scales = nullptr;
    const FLOAT* inOffsets = nullptr;   // null: 0.5 (half-pixel)
    const FLOAT* outOffsets = nullptr;  // null: -0.5
    bool antialias = false;
    float upsample[2] = {0, 0};         // UPSAMPLE_2D: height and width scales
};

template <class Desc>
void ReadOffsets(const Desc& d, Fields* f) {
    f->mode = d.InterpolationMode;
    f->scales = d.Scales;
    f->inOffsets = d.InputPixelOffsets;
    f->outOffsets = d.OutputPixelOffsets;
}

Fields ReadFields(const OperatorArgs& args) {
    Fields f;
    switch (args.schema.type) {
        case DML_OPERATOR_UPSAMPLE_2D: {
            const auto& d = args.As<DML_UPSAMPLE_2D_OPERATOR_DESC>();
            f.mode = d.InterpolationMode;
            f.upsample[0] = float(d.ScaleSize.Height);
            f.upsample[1] = float(d.ScaleSize.Width);
            break;
        }
        case DML_OPERATOR_RESAMPLE: {
            const auto& d = args.As<DML_RESAMPLE_OPERATOR_DESC>();
            f.mode = d.InterpolationMode;
            f.scales = d.Scales;
            break;
        }
        case DML_OPERATOR_RESAMPLE1: ReadOffsets(args.As<DML_RESAMPLE1_OPERATOR_DESC>(), &f); break;
        case DML_OPERATOR_RESAMPLE2: {
            const auto& d = args.As<DML_RESAMPLE2_OPERATOR_DESC>();
            ReadOffsets(d, &f);
            f.rounding = d.RoundingDirection;
            break;
        }
        case DML_OPERATOR_RESAMPLE3: {
            const auto& d = args.As<DML_RESAMPLE3_OPERATOR_DESC>();
            ReadOffsets(d, &f);
            f.rounding = d.RoundingDirection;
            f.antialias = d.Antialiased != 0;
            break;
        }
        case DML_OPERATOR_RESAMPLE_GRAD: ReadOffsets(args.As<DML_RESAMPLE_GRAD_OPERATOR_DESC>(), &f); break;
        case DML_OPERATOR_RESAMPLE_GRAD1: {
            const auto& d = args.As<DML_RESAMPLE_GRAD1_OPERATOR_DESC>();
            ReadOffsets(d, &f);
            f.rounding = d.RoundingDirection;
            break;
        }
        default: break;
    }
    return f;
}

}  // namespace

ResamplePlan DecodeResamplePlan(const OperatorArgs& args) {
    const Fields f = ReadFields(args);
    const bool grad = IsResampleGrad(args.schema.type);
    // The forward roles: `in` has the forward input's shape, `out` the forward output's.
    const TensorDesc& in = grad ? *args.outputs[0] : *args.inputs[0];
    const TensorDesc& out = grad ? *args.inputs[0] : *args.outputs[0];
    ResamplePlan p;
    p.rank = in.rank;
    p.linear = f.mode == DML_INTERPOLATION_MODE_LINEAR;
    p.roundDown = f.rounding == DML_AXIS_DIRECTION_DECREASING;
    p.antialias = f.antialias;
    p.outCount = 1;
    for (uint32_t d = 0; d < p.rank; ++d) {
        ResampleDim& r = p.dims[d];
        r.inSize = in.sizes[d];
        r.outSize = out.sizes[d];
        r.inStride = in.strides[d];
        r.outStride = out.strides[d];
        if (args.schema.type == DML_OPERATOR_UPSAMPLE_2D) {
            // UPSAMPLE_2D scales the last two dimensions (height, width) by integers.
            r.scale = d + 2 >= p.rank ? f.upsample[d + 2 - p.rank] : 1.0f;
        } else {
            r.scale = f.scales[d];
        }
        r.inOffset = f.inOffsets ? f.inOffsets[d] : 0.5f;
        r.outOffset = f.outOffsets ? f.outOffsets[d] : -0.5f;
        p.outCount *= r.outSize;
    }
    return p;
}

TapTables TapTableStorage::Tables() const {
    TapTables t = header;
    t.starts = starts.data();
    t.offsets = offsets.data();
    t.weights = weights.data();
    return t;
}

namespace {
uint64_t Align8(uint64_t n) { return (n + 7) & ~uint64_t(7); }
}  // namespace

uint64_t TapTableStorage::PackedBytes() const {
    return Align8(offsets.size() * 8) + Align8(weights.size() * 4) + Align8(starts.size() * 4);
}

void TapTableStorage::Pack(std::byte* dst) const {
    std::memcpy(dst, offsets.data(), offsets.size() * 8);
    dst += Align8(offsets.size() * 8);
    std::memcpy(dst, weights.data(), weights.size() * 4);
    dst += Align8(weights.size() * 4);
    std::memcpy(dst, starts.data(), starts.size() * 4);
}

TapTables TapTableStorage::TablesAt(const std::byte* packed) const {
    TapTables t = header;
    t.offsets = reinterpret_cast<const int64_t*>(packed);
    packed += Align8(offsets.size() * 8);
    t.weights = reinterpret_cast<const float*>(packed);
    packed += Align8(weights.size() * 4);
    t.starts = reinterpret_cast<const uint32_t*>(packed);
    return t;
}

TapTableStorage BuildTapTables(const ResamplePlan& plan, bool transposed) {
    TapTableStorage s;
    TapTables& h = s.header;
    h.rank = plan.rank;
    h.count = 1;
    for (uint32_t d = 0; d < plan.rank; ++d) {
        const ResampleDim& r = plan.dims[d];
        h.startBase[d] = uint32_t(s.starts.size());
        if (!transposed) {
            h.sizes[d] = r.outSize;
            h.dstStrides[d] = r.outStride;
            for (uint32_t o = 0; o < r.outSize; ++o) {
                s.starts.push_back(uint32_t(s.offsets.size()));
                ForEachTap(plan, r, o, [&](int64_t i, float w) {
                    s.offsets.push_back(i * r.inStride);
                    s.weights.push_back(w);
                });
            }
        } else {
            // Each input coordinate lists the output coordinates that read it, in increasing order.
            std::vector<std::vector<std::pair<int64_t, float>>> lists(r.inSize);
            for (uint32_t o = 0; o < r.outSize; ++o) {
                ForEachTap(plan, r, o, [&](int64_t i, float w) { lists[i].push_back({int64_t(o) * r.outStride, w}); });
            }
            h.sizes[d] = r.inSize;
            h.dstStrides[d] = r.inStride;
            for (const auto& list : lists) {
                s.starts.push_back(uint32_t(s.offsets.size()));
                for (const auto& [offset, w] : list) {
                    s.offsets.push_back(offset);
                    s.weights.push_back(w);
                }
            }
        }
        s.starts.push_back(uint32_t(s.offsets.size()));
        h.count *= h.sizes[d];
    }
    return s;
}

}  // namespace freedml::dml
