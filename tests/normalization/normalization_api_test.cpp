// The normalization family through the public API: invalid descs are refused with messages that
// name the field, and a transformer layer normalization (MEAN_VARIANCE_NORMALIZATION1 over the last
// axis with a per-feature scale and bias) and an RMS normalization (MEAN_VARIANCE_NORMALIZATION2
// without the mean) over 4096 features match float64 references computed here.
#include <cmath>
#include <random>

#include "dml_fixture.h"

namespace freedml_test {
namespace {

class NormalizationTest : public DmlTest {};

std::vector<float> RandomFloats(size_t count, uint32_t seed, float mean, float deviation) {
    std::mt19937 engine(seed);
    std::normal_distribution<float> normal(mean, deviation);
    std::vector<float> v(count);
    for (auto& x : v) x = normal(engine);
    return v;
}

TEST_F(NormalizationTest, InvalidDescsAreRefused) {
    Tensor in(DML_TENSOR_DATA_TYPE_FLOAT32, {2, 3, 4, 5});
    Tensor stat(DML_TENSOR_DATA_TYPE_FLOAT32, {1, 3, 1, 1});
    Tensor badStat(DML_TENSOR_DATA_TYPE_FLOAT32, {1, 2, 1, 1});
    Tensor statRank3(DML_TENSOR_DATA_TYPE_FLOAT32, {3, 1, 1});
    Tensor f16(DML_TENSOR_DATA_TYPE_FLOAT16, {2, 3, 4, 5});
    Tensor i32(DML_TENSOR_DATA_TYPE_INT32, {2, 3, 4, 5});
    Tensor other(DML_TENSOR_DATA_TYPE_FLOAT32, {2, 3, 4, 6});
    Tensor rank3(DML_TENSOR_DATA_TYPE_FLOAT32, {2, 3, 4});
    DML_BATCH_NORMALIZATION_OPERATOR_DESC bn{&in.desc,   &stat.desc,   &badStat.desc, &stat.desc, &stat.desc,
                                             &in.desc,   TRUE,         1e-5f,         nullptr};
    Refused(DML_OPERATOR_BATCH_NORMALIZATION, &bn, "VarianceTensor has sizes {1, 2, 1, 1}");
    bn.VarianceTensor = &statRank3.desc;
    Refused(DML_OPERATOR_BATCH_NORMALIZATION, &bn, "it must have 4 dimensions");
    bn.VarianceTensor = &stat.desc;
    bn.OutputTensor = &other.desc;
    Refused(DML_OPERATOR_BATCH_NORMALIZATION, &bn, "OutputTensor has sizes {2, 3, 4, 6}");
    bn.OutputTensor = &f16.desc;
    Refused(DML_OPERATOR_BATCH_NORMALIZATION, &bn, "FLOAT16");
    bn = {&i32.desc, &stat.desc, &stat.desc, &stat.desc, &stat.desc, &i32.desc, TRUE, 1e-5f, nullptr};
    Refused(DML_OPERATOR_BATCH_NORMALIZATION, &bn, "INT32");

    DML_BATCH_NORMALIZATION_TRAINING_OPERATOR_DESC bnt{&in.desc,   &stat.desc, &stat.desc, nullptr, &in.desc,
                                                       &stat.desc, &badStat.desc, 1e-5f,   nullptr};
    Refused(DML_OPERATOR_BATCH_NORMALIZATION_TRAINING, &bnt, "OutputVarianceTensor has sizes {1, 2, 1, 1}");
    bnt.OutputVarianceTensor = &stat.desc;
    bnt.FusedAddTensor = &other.desc;
    Refused(DML_OPERATOR_BATCH_NORMALIZATION_TRAINING, &bnt, "FusedAddTensor has sizes {2, 3, 4, 6}");

    DML_MEAN_VARIANCE_NORMALIZATION_OPERATOR_DESC mvn{&rank3.desc, nullptr, nullptr, &rank3.desc,
                                                      TRUE,        TRUE,    1e-5f,   nullptr};
    Refused(DML_OPERATOR_MEAN_VARIANCE_NORMALIZATION, &mvn, "accepts 4 to 5");

    UINT repeated[] = {3, 3}, outside[] = {4}, last[] = {3};
    DML_MEAN_VARIANCE_NORMALIZATION1_OPERATOR_DESC m1{&in.desc, nullptr, nullptr, &in.desc, 2,
                                                      repeated, TRUE,    1e-5f,   nullptr};
    Refused(DML_OPERATOR_MEAN_VARIANCE_NORMALIZATION1, &m1, "Axes[1] (3) repeats");
    m1.AxisCount = 1;
    m1.Axes = outside;
    Refused(DML_OPERATOR_MEAN_VARIANCE_NORMALIZATION1, &m1, "Axes[0] (4) is outside");
    m1.AxisCount = 0;
    m1.Axes = last;
    Refused(DML_OPERATOR_MEAN_VARIANCE_NORMALIZATION1, &m1, "AxisCount (0)");

    DML_LOCAL_RESPONSE_NORMALIZATION_OPERATOR_DESC lrn{&in.desc, &in.desc, TRUE, 0, 1e-4f, 0.75f, 1.0f};
    Refused(DML_OPERATOR_LOCAL_RESPONSE_NORMALIZATION, &lrn, "LocalSize is 0");
    lrn = {&rank3.desc, &rank3.desc, TRUE, 3, 1e-4f, 0.75f, 1.0f};
    Refused(DML_OPERATOR_LOCAL_RESPONSE_NORMALIZATION, &lrn, "accepts 4 to 4");

    DML_LP_NORMALIZATION_OPERATOR_DESC lp{&in.desc, &in.desc, 1, 1e-5f, 3};
    Refused(DML_OPERATOR_LP_NORMALIZATION, &lp, "P is 3; it must be 1 or 2");
    lp = {&in.desc, &in.desc, 4, 1e-5f, 2};
    Refused(DML_OPERATOR_LP_NORMALIZATION, &lp, "Axis (4) is outside");
}

// Layer normalization of 64 tokens of 4096 features (y = gamma * (x - mean) / sqrt(var + eps) +
// beta per token), then RMS normalization of the same (MVN2, UseMean FALSE, scale only).
TEST_F(NormalizationTest, TransformerLayerNormalization) {
    const UINT tokens = 64, features = 4096;
    const float epsilon = 1e-5f;
    const auto x = RandomFloats(size_t(tokens) * features, 3, 5.0f, 2.0f);  // a large mean: two passes matter
    const auto gamma = RandomFloats(features, 4, 1.0f, 0.25f);
    const auto beta = RandomFloats(features, 5, 0.0f, 0.5f);
    Tensor t(DML_TENSOR_DATA_TYPE_FLOAT32, {1, tokens, features});
    Tensor row(DML_TENSOR_DATA_TYPE_FLOAT32, {1, 1, features});
    auto in = Buffer(t.Bytes()), out = Buffer(t.Bytes()), g = Buffer(row.Bytes()), b = Buffer(row.Bytes());
    Upload(in.Get(), x);
    Upload(g.Get(), gamma);
    Upload(b.Get(), beta);
    DML_BUFFER_BINDING ib{in.Get(), 0, t.Bytes()}, ob{out.Get(), 0, t.Bytes()};
    DML_BUFFER_BINDING gb{g.Get(), 0, row.Bytes()}, bb{b.Get(), 0, row.Bytes()};
    const UINT axis = 2;
    for (bool rms : {false, true}) {
        SCOPED_TRACE(rms ? "RMS normalization" : "layer normalization");
        ComPtr<IDMLCompiledOperator> op;
        if (!rms) {
            DML_MEAN_VARIANCE_NORMALIZATION1_OPERATOR_DESC desc{&t.desc, &row.desc, &row.desc, &t.desc, 1,
                                                                &axis,   TRUE,      epsilon,   nullptr};
            op = Compile(DML_OPERATOR_MEAN_VARIANCE_NORMALIZATION1, &desc);
        } else {
            DML_MEAN_VARIANCE_NORMALIZATION2_OPERATOR_DESC desc{&t.desc, &row.desc, nullptr, &t.desc, 1,
                                                                &axis,   FALSE,     TRUE,    epsilon, nullptr};
            op = Compile(DML_OPERATOR_MEAN_VARIANCE_NORMALIZATION2, &desc);
        }
        ASSERT_TRUE(op) << Messages();
        auto persistent = Initialize(op.Get());
        DML_BINDING_DESC none{DML_BINDING_TYPE_NONE, nullptr};
        Dispatch(op.Get(), {BufferBinding(&ib), BufferBinding(&gb), rms ? none : BufferBinding(&bb)},
                 {BufferBinding(&ob)}, persistent.Get());
        ASSERT_FALSE(DeviceRemoved()) << Messages();
        const auto y = ReadbackAs<float>(out.Get(), x.size());
        for (UINT r = 0; r < tokens; ++r) {
            const float* v = &x[size_t(r) * features];
            double mean = 0, var = 0;
            if (!rms) {
                for (UINT c = 0; c < features; ++c) mean += v[c];
                mean /= features;
            }
            for (UINT c = 0; c < features; ++c) var += (v[c] - mean) * (v[c] - mean);
            const double inv = 1.0 / std::sqrt(var / features + epsilon);
            for (UINT c = 0; c < features; ++c) {
                const double want = (v[c] - mean) * inv * gamma[c] + (rms ? 0.0 : beta[c]);
                ASSERT_NEAR(y[size_t(r) * features + c], want, 1e-5 * std::fabs(want) + 1e-5) << r << ", " << c;
            }
        }
    }
}

}  // namespace
}  // namespace freedml_test
