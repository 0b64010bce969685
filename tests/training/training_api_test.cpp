// Three training steps of a small CNN composed through the public DirectML API on the CPU adapter
// (bench/training_step.h: convolution, batch normalization training, ReLU, max pooling, GEMM, log
// softmax, their gradients, and ADAM_OPTIMIZER or SGD from element-wise operators; the weight
// gradients by a swapped convolution or by UNFOLD, a batched GEMM and REDUCE), against the
// float64 reference that generate_reference.py computed with PyTorch's autograd and the optimizers'
// definitions: each step's loss, the first step's gradient of every parameter, and every parameter
// after the three steps. FREEDML_ADAPTER picks another adapter (the CPU one when it is unset).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "training_step.h"

namespace {

using freedml_train::NetConfig;
using freedml_train::Optimizer;
using freedml_train::ParameterNames;
using freedml_train::TrainingStep;

std::map<std::string, std::vector<double>> LoadReference() {
    std::ifstream file(FREEDML_TRAINING_REFERENCE);
    std::map<std::string, std::vector<double>> values;
    std::string line;
    while (std::getline(file, line)) {
        if (line.empty() || line[0] == '#') continue;
        std::istringstream header(line);
        std::string name;
        size_t count = 0;
        header >> name >> count;
        std::vector<double>& v = values[name];
        v.resize(count);
        for (double& x : v) file >> x;
        std::getline(file, line);  // the rest of the values line
    }
    return values;
}

std::vector<float> ToFloat(const std::vector<double>& v) { return std::vector<float>(v.begin(), v.end()); }

// Every element within rtol of the tensor's largest magnitude (gradients and parameters are
// compared as tensors: float32 rounding is relative to their scale, not to each element).
void ExpectClose(const std::string& what, const std::vector<float>& got, const std::vector<double>& want,
                 double rtol) {
    ASSERT_EQ(got.size(), want.size()) << what;
    double scale = 0.0;
    for (double w : want) scale = std::max(scale, std::abs(w));
    size_t worst = 0;
    double worstError = -1.0;
    for (size_t i = 0; i < got.size(); ++i) {
        const double error = std::abs(double(got[i]) - want[i]);
        if (!(error <= worstError)) {
            worstError = error;
            worst = i;
        }
    }
    EXPECT_LE(worstError, rtol * scale) << what << ": element " << worst << " is " << got[worst] << ", the reference "
                                        << want[worst] << " (largest magnitude " << scale << ")";
}

using freedml_train::WeightGradient;
using Param = std::tuple<Optimizer, WeightGradient>;

class TrainingStepTest : public ::testing::TestWithParam<Param> {
protected:
    void SetUp() override {
        setenv("FREEDML_ADAPTER", "cpu", /*overwrite=*/0);
        ref_ = LoadReference();
        ASSERT_EQ(ref_["config"].size(), 7u) << "cannot read " << FREEDML_TRAINING_REFERENCE;
        if (std::get<0>(GetParam()) == Optimizer::Adam && !TrainingStep::CompilesAdam()) {
            GTEST_SKIP() << "this FreeDML does not compile ADAM_OPTIMIZER";
        }
    }
    std::map<std::string, std::vector<double>> ref_;
};

TEST_P(TrainingStepTest, MatchesFloat64Reference) {
    const std::vector<double>& c = ref_["config"];
    NetConfig net{UINT(c[0]), UINT(c[1]), UINT(c[2]), UINT(c[3]), UINT(c[4]), UINT(c[5]), std::get<1>(GetParam())};
    const int steps = int(c[6]);
    const bool adam = std::get<0>(GetParam()) == Optimizer::Adam;
    freedml_train::Hyper hyper;
    if (adam) {
        hyper.learningRate = float(ref_["adam"][0]);
        hyper.beta1 = float(ref_["adam"][1]);
        hyper.beta2 = float(ref_["adam"][2]);
        hyper.epsilon = float(ref_["adam"][3]);
    } else {
        hyper.learningRate = float(ref_["sgd_lr"][0]);
    }
    TrainingStep step(net, std::get<0>(GetParam()), hyper);
    for (const std::string& p : ParameterNames()) step.Write(p, ToFloat(ref_[p]));
    step.Write("x", ToFloat(ref_["x"]));
    step.Write("onehot", ToFloat(ref_["onehot"]));

    const std::string tag = adam ? "adam" : "sgd";
    for (int s = 0; s < steps; ++s) {
        step.Steps(1);
        const double want = ref_[tag + "_losses"][s];
        EXPECT_NEAR(step.Read("loss")[0], want, 1e-5 * std::abs(want)) << "the loss of step " << s + 1;
        if (s == 0) {
            for (const std::string& p : ParameterNames()) {
                ExpectClose("step 1 gradient of " + p, step.Read("g" + p), ref_["grad_" + p], 1e-4);
            }
        }
    }
    for (const std::string& p : ParameterNames()) {
        ExpectClose(p + " after " + std::to_string(steps) + " steps", step.Read(p), ref_[tag + "_" + p], 1e-4);
    }
}

INSTANTIATE_TEST_SUITE_P(
    Compositions, TrainingStepTest,
    ::testing::Combine(::testing::Values(Optimizer::Adam, Optimizer::Sgd),
                       ::testing::Values(WeightGradient::SwappedConvolution, WeightGradient::Unfold)),
    [](const ::testing::TestParamInfo<Param>& param) {
        return std::string(std::get<0>(param.param) == Optimizer::Adam ? "Adam" : "Sgd") +
               (std::get<1>(param.param) == WeightGradient::Unfold ? "_UnfoldWeightGradient" : "_ConvolutionWeightGradient");
    });

}  // namespace
