// The resampling operators through the public API: invalid descs are refused with messages that
// name the field and the values; a bilinear resize large enough that the thread pool splits the
// work matches the half-pixel formula written out here, and its gradient conserves the sum (each
// output element's weights add up to 1).
#include <cmath>
#include <random>

#include "dml_fixture.h"

namespace freedml_test {
namespace {

class ResamplingTest : public DmlTest {};

TEST_F(ResamplingTest, InvalidDescsAreRefused) {
    Tensor in(DML_TENSOR_DATA_TYPE_FLOAT32, {1, 2, 3, 4});
    Tensor out(DML_TENSOR_DATA_TYPE_FLOAT32, {1, 2, 6, 8});
    Tensor out3(DML_TENSOR_DATA_TYPE_FLOAT32, {2, 6, 8});
    Tensor outI32(DML_TENSOR_DATA_TYPE_INT32, {1, 2, 6, 8});
    FLOAT scales[] = {1, 1, 2, 2}, zeroScale[] = {1, 1, 0, 2}, offsets[] = {0.5f, 0.5f, 0.5f, 0.5f};
    FLOAT nanOffsets[] = {0.5f, 0.5f, NAN, 0.5f};
    DML_RESAMPLE_OPERATOR_DESC r{&in.desc, &out.desc, DML_INTERPOLATION_MODE_LINEAR, 3, scales};
    Refused(DML_OPERATOR_RESAMPLE, &r, "ScaleCount (3) must equal the tensors' dimension count (4)");
    r = {&in.desc, &out.desc, DML_INTERPOLATION_MODE_LINEAR, 4, zeroScale};
    Refused(DML_OPERATOR_RESAMPLE, &r, "Scales[2] (0) must be a finite number above 0");
    r = {&in.desc, &out3.desc, DML_INTERPOLATION_MODE_LINEAR, 4, scales};
    Refused(DML_OPERATOR_RESAMPLE, &r, "InputTensor has 4 dimensions and OutputTensor 3");
    r = {&in.desc, &outI32.desc, DML_INTERPOLATION_MODE_LINEAR, 4, scales};
    Refused(DML_OPERATOR_RESAMPLE, &r, "INT32");
    r = {&in.desc, &out.desc, static_cast<DML_INTERPOLATION_MODE>(5), 4, scales};
    Refused(DML_OPERATOR_RESAMPLE, &r, "InterpolationMode (5)");

    DML_RESAMPLE2_OPERATOR_DESC r2{&in.desc,  &out.desc, DML_INTERPOLATION_MODE_NEAREST_NEIGHBOR,
                                   static_cast<DML_AXIS_DIRECTION>(2), 4, scales, offsets, offsets};
    Refused(DML_OPERATOR_RESAMPLE2, &r2, "RoundingDirection (2)");
    r2.RoundingDirection = DML_AXIS_DIRECTION_DECREASING;
    r2.OutputPixelOffsets = nanOffsets;
    Refused(DML_OPERATOR_RESAMPLE2, &r2, "OutputPixelOffsets[2] (nan) must be finite");
    // RESAMPLE2's table has no 8-bit integers.
    Tensor inU8(DML_TENSOR_DATA_TYPE_UINT8, {1, 2, 3, 4}), outU8(DML_TENSOR_DATA_TYPE_UINT8, {1, 2, 6, 8});
    r2 = {&inU8.desc, &outU8.desc, DML_INTERPOLATION_MODE_LINEAR, DML_AXIS_DIRECTION_INCREASING, 4, scales, offsets,
          offsets};
    Refused(DML_OPERATOR_RESAMPLE2, &r2, "UINT8");

    Tensor five(DML_TENSOR_DATA_TYPE_FLOAT32, {1, 1, 2, 3, 4}), fiveOut(DML_TENSOR_DATA_TYPE_FLOAT32, {1, 1, 2, 6, 8});
    FLOAT scales5[] = {1, 1, 1, 2, 2}, offsets5[] = {0.5f, 0.5f, 0.5f, 0.5f, 0.5f};
    DML_RESAMPLE1_OPERATOR_DESC r1{&five.desc, &fiveOut.desc, DML_INTERPOLATION_MODE_LINEAR, 5, scales5, offsets5,
                                   offsets5};
    Refused(DML_OPERATOR_RESAMPLE1, &r1, "InputTensor has 5 dimensions; DML_OPERATOR_RESAMPLE1 takes 1 to 4");

    DML_UPSAMPLE_2D_OPERATOR_DESC u{&in.desc, &out.desc, {2, 3}, DML_INTERPOLATION_MODE_LINEAR};
    Refused(DML_OPERATOR_UPSAMPLE_2D, &u, "ScaleSize.Height (3)");
    u.ScaleSize = {0, 2};
    Refused(DML_OPERATOR_UPSAMPLE_2D, &u, "ScaleSize ({Width 0, Height 2}) must be at least 1");

    FLOAT bias[] = {1, 2, 3};
    DML_VALUE_SCALE_2D_OPERATOR_DESC v{&in.desc, &in.desc, 2.0f, 3, bias};
    Refused(DML_OPERATOR_VALUE_SCALE_2D, &v, "ChannelCount (3) must equal InputTensor's channel count");

    DML_RESAMPLE_GRAD_OPERATOR_DESC g{&out.desc, &in.desc, DML_INTERPOLATION_MODE_LINEAR, 2, scales, offsets, offsets};
    Refused(DML_OPERATOR_RESAMPLE_GRAD, &g, "DimensionCount (2) must equal the tensors' dimension count (4)");
}

double HalfPixelTap(uint32_t o, uint32_t n, double scale, uint32_t* i0, uint32_t* i1) {
    const double x = std::clamp((o + 0.5) / scale - 0.5, 0.0, double(n - 1));
    *i0 = uint32_t(std::floor(x));
    *i1 = std::min(*i0 + 1, n - 1);
    return x - *i0;
}

TEST_F(ResamplingTest, LargeBilinearResizeAndGradientAcrossThreads) {
    const UINT c = 3, h = 70, w = 90, oh = 140, ow = 135;  // scales 2 and 1.5
    std::vector<float> x(size_t(c) * h * w);
    std::mt19937 engine(7);
    std::uniform_real_distribution<float> dist(-4, 4);
    for (auto& v : x) v = dist(engine);
    Tensor t(DML_TENSOR_DATA_TYPE_FLOAT32, {1, c, h, w}), o(DML_TENSOR_DATA_TYPE_FLOAT32, {1, c, oh, ow});
    auto in = Buffer(t.Bytes());
    Upload(in.Get(), x);
    FLOAT scales[] = {1, 1, 2, 1.5f};
    DML_RESAMPLE_OPERATOR_DESC r{&t.desc, &o.desc, DML_INTERPOLATION_MODE_LINEAR, 4, scales};
    auto op = Compile(DML_OPERATOR_RESAMPLE, &r);
    ASSERT_TRUE(op) << Messages();
    auto persistent = Initialize(op.Get());
    auto out = Buffer(o.Bytes());
    DML_BUFFER_BINDING ib{in.Get(), 0, t.Bytes()}, ob{out.Get(), 0, o.Bytes()};
    Dispatch(op.Get(), {BufferBinding(&ib)}, {BufferBinding(&ob)}, persistent.Get());
    ASSERT_FALSE(DeviceRemoved()) << Messages();
    auto got = ReadbackAs<float>(out.Get(), size_t(c) * oh * ow);
    for (UINT ch = 0; ch < c; ++ch) {
        for (UINT r0 = 0; r0 < oh; ++r0) {
            uint32_t y0, y1, x0, x1;
            const double fy = HalfPixelTap(r0, h, 2.0, &y0, &y1);
            for (UINT c0 = 0; c0 < ow; ++c0) {
                const double fx = HalfPixelTap(c0, w, 1.5, &x0, &x1);
                auto at = [&](uint32_t yy, uint32_t xx) { return double(x[(size_t(ch) * h + yy) * w + xx]); };
                const double want = (1 - fy) * ((1 - fx) * at(y0, x0) + fx * at(y0, x1)) +
                                    fy * ((1 - fx) * at(y1, x0) + fx * at(y1, x1));
                // The kernel maps coordinates in float (DirectML's FLOAT scales): near column 100 its
                // coordinate is off by up to half an ulp of 68 (4e-6), times a neighbour difference
                // of up to 8.
                ASSERT_NEAR(got[(size_t(ch) * oh + r0) * ow + c0], want, 1e-4) << ch << ", " << r0 << ", " << c0;
            }
        }
    }

    // The gradient of the same resize: every output gradient element is spread with weights
    // that sum to 1, so each channel's input gradient sums to its output gradient's sum.
    std::vector<float> dy(size_t(c) * oh * ow);
    for (auto& v : dy) v = dist(engine);
    FLOAT offsets[] = {0.5f, 0.5f, 0.5f, 0.5f}, outOffsets[] = {-0.5f, -0.5f, -0.5f, -0.5f};
    DML_RESAMPLE_GRAD_OPERATOR_DESC g{&o.desc, &t.desc, DML_INTERPOLATION_MODE_LINEAR, 4, scales, offsets, outOffsets};
    op = Compile(DML_OPERATOR_RESAMPLE_GRAD, &g);
    ASSERT_TRUE(op) << Messages();
    persistent = Initialize(op.Get());
    auto dyBuffer = Buffer(o.Bytes()), dxBuffer = Buffer(t.Bytes());
    Upload(dyBuffer.Get(), dy);
    DML_BUFFER_BINDING db{dyBuffer.Get(), 0, o.Bytes()}, xb{dxBuffer.Get(), 0, t.Bytes()};
    Dispatch(op.Get(), {BufferBinding(&db)}, {BufferBinding(&xb)}, persistent.Get());
    ASSERT_FALSE(DeviceRemoved()) << Messages();
    auto dx = ReadbackAs<float>(dxBuffer.Get(), x.size());
    for (UINT ch = 0; ch < c; ++ch) {
        double sumDy = 0, sumDx = 0;
        for (size_t i = 0; i < size_t(oh) * ow; ++i) sumDy += dy[size_t(ch) * oh * ow + i];
        for (size_t i = 0; i < size_t(h) * w; ++i) sumDx += dx[size_t(ch) * h * w + i];
        EXPECT_NEAR(sumDx, sumDy, 1e-2) << ch;
    }
}

}  // namespace
}  // namespace freedml_test
