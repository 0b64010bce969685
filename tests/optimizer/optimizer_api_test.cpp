// ADAM_OPTIMIZER through the public API: invalid descs are refused with messages that name the
// field and the values; the operator runs in place (every output bound to its input's region,
// which DirectML allows for it, H2) over several training steps, on tensors large enough for the
// host thread pool to split, against the DML_ADAM_OPTIMIZER_OPERATOR_DESC page's formula
// evaluated here in double. (The conformance suite has the small cases, every data type and edge
// values: cases/optimizer_adam.json.)
#include <cmath>
#include <random>

#include "dml_fixture.h"

namespace freedml_test {
namespace {

class AdamTest : public DmlTest {};

struct AdamTensors {
    Tensor x, m, v, g, step, outX, outM, outV;
    AdamTensors(DML_TENSOR_DATA_TYPE type, std::vector<UINT> sizes)
        : x(type, sizes), m(type, sizes), v(type, sizes), g(type, sizes), step(type, {1, 1, 1, 1}),
          outX(type, sizes), outM(type, sizes), outV(type, sizes) {}
    DML_ADAM_OPTIMIZER_OPERATOR_DESC Desc() const {
        return {&x.desc, &m.desc, &v.desc, &g.desc, &step.desc, &outX.desc, &outM.desc, &outV.desc,
                0.01f, 0.9f, 0.999f, 1e-8f};
    }
};

TEST_F(AdamTest, DescsAreChecked) {
    AdamTensors f32(DML_TENSOR_DATA_TYPE_FLOAT32, {2, 3, 4, 5});
    AdamTensors f16(DML_TENSOR_DATA_TYPE_FLOAT16, {1, 1, 1, 7});
    auto d = f32.Desc();
    Accepted(DML_OPERATOR_ADAM_OPTIMIZER, &d);
    auto h = f16.Desc();
    Accepted(DML_OPERATOR_ADAM_OPTIMIZER, &h);

    Tensor gF16(DML_TENSOR_DATA_TYPE_FLOAT16, {2, 3, 4, 5}), stepI32(DML_TENSOR_DATA_TYPE_INT32, {1, 1, 1, 1});
    Tensor stepU32(DML_TENSOR_DATA_TYPE_UINT32, {1, 1, 1, 1});
    Tensor stepWide(DML_TENSOR_DATA_TYPE_FLOAT32, {1, 1, 1, 2}), vOther(DML_TENSOR_DATA_TYPE_FLOAT32, {2, 3, 5, 4});
    Tensor x3(DML_TENSOR_DATA_TYPE_FLOAT32, {3, 4, 5}), xI32(DML_TENSOR_DATA_TYPE_INT32, {2, 3, 4, 5});
    d.GradientTensor = &gF16.desc;
    Refused(DML_OPERATOR_ADAM_OPTIMIZER, &d, "GradientTensor has data type FLOAT16, but InputParametersTensor is "
                                             "FLOAT32");
    // The page's member text makes the step UINT32 (TensorFlow-DirectML passes one); other integers are refused.
    d = f32.Desc();
    d.TrainingStepTensor = &stepU32.desc;
    Accepted(DML_OPERATOR_ADAM_OPTIMIZER, &d);
    h = f16.Desc();
    h.TrainingStepTensor = &stepU32.desc;
    Accepted(DML_OPERATOR_ADAM_OPTIMIZER, &h);
    d = f32.Desc();
    d.TrainingStepTensor = &stepI32.desc;
    Refused(DML_OPERATOR_ADAM_OPTIMIZER, &d, "TrainingStepTensor has data type INT32; DML_OPERATOR_ADAM_OPTIMIZER "
                                             "accepts FLOAT32, FLOAT16 (and UINT32 for the training step)");
    d = f32.Desc();
    d.TrainingStepTensor = &stepWide.desc;
    Refused(DML_OPERATOR_ADAM_OPTIMIZER, &d, "TrainingStepTensor has sizes {1, 1, 1, 2}; it must be a scalar");
    d = f32.Desc();
    d.OutputSecondMomentTensor = &vOther.desc;
    Refused(DML_OPERATOR_ADAM_OPTIMIZER, &d,
            "OutputSecondMomentTensor has sizes {2, 3, 5, 4}, but InputParametersTensor has {2, 3, 4, 5}");
    d = f32.Desc();
    d.InputParametersTensor = &x3.desc;
    Refused(DML_OPERATOR_ADAM_OPTIMIZER, &d, "InputParametersTensor has DimensionCount 3");
    d = f32.Desc();
    d.InputParametersTensor = &xI32.desc;
    Refused(DML_OPERATOR_ADAM_OPTIMIZER, &d, "InputParametersTensor has data type INT32");
}

// The page's formula in double, the state rounded to float after each step as the tensors store it.
void ReferenceStep(std::vector<float>& x, std::vector<float>& m, std::vector<float>& v, const std::vector<float>& g,
                   double t) {
    const double lr = 0.01f, b1 = 0.9f, b2 = 0.999f, eps = 1e-8f;
    const double alpha = std::sqrt(1.0 - std::pow(b2, t)) / (1.0 - std::pow(b1, t));
    for (size_t i = 0; i < x.size(); ++i) {
        const double m2 = b1 * m[i] + (1.0 - b1) * g[i];
        const double v2 = b2 * v[i] + (1.0 - b2) * double(g[i]) * g[i];
        x[i] = float(x[i] - lr * alpha * m2 / (std::sqrt(v2) + eps));
        m[i] = float(m2);
        v[i] = float(v2);
    }
}

void ExpectNear(const std::vector<float>& actual, const std::vector<float>& expected, const char* what) {
    ASSERT_EQ(actual.size(), expected.size());
    int failures = 0;
    for (size_t i = 0; i < actual.size() && failures < 10; ++i) {
        const double tolerance = 1e-5 * std::fabs(expected[i]) + 1e-7;
        if (!(std::fabs(double(actual[i]) - expected[i]) <= tolerance)) {
            ++failures;
            ADD_FAILURE() << what << "[" << i << "] is " << actual[i] << ", expected " << expected[i];
        }
    }
}

TEST_F(AdamTest, UpdatesInPlaceOverSeveralSteps) {
    const std::vector<UINT> sizes = {1, 2, 300, 301};  // 180600 elements: the pool splits the loop
    const size_t count = 2 * 300 * 301;
    AdamTensors t(DML_TENSOR_DATA_TYPE_FLOAT32, sizes);
    auto desc = t.Desc();
    auto op = Compile(DML_OPERATOR_ADAM_OPTIMIZER, &desc);
    ASSERT_TRUE(op) << Messages();
    auto persistent = Initialize(op.Get());

    std::mt19937 engine(24);
    std::normal_distribution<float> normal(0.0f, 1.0f);
    std::vector<float> x(count), m(count, 0.0f), v(count, 0.0f), g(count);
    for (auto& e : x) e = normal(engine);
    auto xBuf = Buffer(t.x.Bytes()), mBuf = Buffer(t.m.Bytes()), vBuf = Buffer(t.v.Bytes());
    auto gBuf = Buffer(t.g.Bytes()), stepBuf = Buffer(t.step.Bytes());
    Upload(xBuf.Get(), x);
    Upload(mBuf.Get(), m);
    Upload(vBuf.Get(), v);
    DML_BUFFER_BINDING xB{xBuf.Get(), 0, t.x.Bytes()}, mB{mBuf.Get(), 0, t.m.Bytes()}, vB{vBuf.Get(), 0, t.v.Bytes()};
    DML_BUFFER_BINDING gB{gBuf.Get(), 0, t.g.Bytes()}, stepB{stepBuf.Get(), 0, t.step.Bytes()};
    for (int step = 1; step <= 3; ++step) {
        for (auto& e : g) e = normal(engine);
        Upload(gBuf.Get(), g);
        Upload(stepBuf.Get(), std::vector<float>{float(step)});
        // Each output on its input's very region (H2).
        Dispatch(op.Get(),
                 {BufferBinding(&xB), BufferBinding(&mB), BufferBinding(&vB), BufferBinding(&gB),
                  BufferBinding(&stepB)},
                 {BufferBinding(&xB), BufferBinding(&mB), BufferBinding(&vB)}, persistent.Get());
        ASSERT_FALSE(DeviceRemoved()) << Messages();
        ReferenceStep(x, m, v, g, step);
        ExpectNear(ReadbackAs<float>(xBuf.Get(), count), x, "parameters");
        ExpectNear(ReadbackAs<float>(mBuf.Get(), count), m, "first moment");
        ExpectNear(ReadbackAs<float>(vBuf.Get(), count), v, "second moment");
    }
}

// A UINT32 training step (as TensorFlow-DirectML binds it): steps 1 and 7 against the page's formula.
TEST_F(AdamTest, Uint32TrainingStep) {
    const std::vector<UINT> sizes = {1, 1, 3, 5};
    const size_t count = 15;
    AdamTensors t(DML_TENSOR_DATA_TYPE_FLOAT32, sizes);
    Tensor stepU32(DML_TENSOR_DATA_TYPE_UINT32, {1, 1, 1, 1});
    auto desc = t.Desc();
    desc.TrainingStepTensor = &stepU32.desc;
    auto op = Compile(DML_OPERATOR_ADAM_OPTIMIZER, &desc);
    ASSERT_TRUE(op) << Messages();
    auto persistent = Initialize(op.Get());
    std::vector<float> x(count), m(count), v(count), g(count);
    for (size_t i = 0; i < count; ++i) {
        x[i] = 0.3f * float(i) - 2.0f;
        m[i] = 0.01f * float(i);
        v[i] = 0.002f * float(i + 1);
        g[i] = 0.5f - 0.07f * float(i);
    }
    auto xBuf = Buffer(t.x.Bytes()), mBuf = Buffer(t.m.Bytes()), vBuf = Buffer(t.v.Bytes());
    auto gBuf = Buffer(t.g.Bytes()), stepBuf = Buffer(stepU32.Bytes());
    Upload(xBuf.Get(), x);
    Upload(mBuf.Get(), m);
    Upload(vBuf.Get(), v);
    Upload(gBuf.Get(), g);
    DML_BUFFER_BINDING xB{xBuf.Get(), 0, t.x.Bytes()}, mB{mBuf.Get(), 0, t.m.Bytes()}, vB{vBuf.Get(), 0, t.v.Bytes()};
    DML_BUFFER_BINDING gB{gBuf.Get(), 0, t.g.Bytes()}, stepB{stepBuf.Get(), 0, stepU32.Bytes()};
    for (uint32_t step : {1u, 7u}) {
        Upload(stepBuf.Get(), std::vector<uint32_t>{step});
        Dispatch(op.Get(),
                 {BufferBinding(&xB), BufferBinding(&mB), BufferBinding(&vB), BufferBinding(&gB),
                  BufferBinding(&stepB)},
                 {BufferBinding(&xB), BufferBinding(&mB), BufferBinding(&vB)}, persistent.Get());
        ASSERT_FALSE(DeviceRemoved()) << Messages();
        ReferenceStep(x, m, v, g, step);
        ExpectNear(ReadbackAs<float>(xBuf.Get(), count), x, "parameters");
        ExpectNear(ReadbackAs<float>(mBuf.Get(), count), m, "first moment");
        ExpectNear(ReadbackAs<float>(vBuf.Get(), count), v, "second moment");
    }
}

}  // namespace
}  // namespace freedml_test
