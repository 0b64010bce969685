// One training step of a small CNN through the public DirectML API (bench/training_step.h has the
// network and how each piece is composed), timed as steps per second on any adapter
// (FREEDML_ADAPTER picks it); bench/training_torch.py times the same step in PyTorch (torch.nn +
// torch.optim.Adam) on the CPU or a CUDA GPU. Each timed run executes the recorded step's command
// list `reps` times back to back (one ExecuteCommandLists per step) and waits once; the median of
// the runs is printed. The optimizer is ADAM_OPTIMIZER; where this FreeDML does not compile it, the
// step uses plain SGD from element-wise operators and the line says so ("optimizer": "sgd").
//   training_bench [--quick] [--optimizer adam|sgd] [--batch N] [--profile] [--runs N]
//                  [--weight-gradient conv|unfold]
// Output: one JSON object per line; --profile adds one line per operator (each alone, median ms).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "training_step.h"

using freedml_train::NetConfig;
using freedml_train::Optimizer;
using freedml_train::TrainingStep;

namespace {

// PyTorch's default initialization: weights uniform in +-1/sqrt(fan_in), BN scale 1 and bias 0.
void InitializeRandom(TrainingStep& step, std::mt19937& rng) {
    const NetConfig& n = step.Net();
    const UINT F = n.c2 * (n.size / 4) * (n.size / 4);
    auto uniform = [&](size_t count, float bound) {
        std::uniform_real_distribution<float> u(-bound, bound);
        std::vector<float> v(count);
        for (auto& x : v) x = u(rng);
        return v;
    };
    step.Write("W1", uniform(size_t(n.c1) * n.inChannels * 9, 1.0f / std::sqrt(float(n.inChannels * 9))));
    step.Write("W2", uniform(size_t(n.c2) * n.c1 * 9, 1.0f / std::sqrt(float(n.c1 * 9))));
    step.Write("W3", uniform(size_t(n.classes) * F, 1.0f / std::sqrt(float(F))));
    step.Write("b3", uniform(n.classes, 1.0f / std::sqrt(float(F))));
    step.Write("g1", std::vector<float>(n.c1, 1.0f));
    step.Write("g2", std::vector<float>(n.c2, 1.0f));
    step.Write("be1", std::vector<float>(n.c1, 0.0f));
    step.Write("be2", std::vector<float>(n.c2, 0.0f));
    std::normal_distribution<float> normal(0.0f, 1.0f);
    std::vector<float> x(size_t(n.batch) * n.inChannels * n.size * n.size);
    for (auto& v : x) v = normal(rng);
    step.Write("x", x);
    std::vector<float> onehot(size_t(n.batch) * n.classes, 0.0f);
    for (UINT i = 0; i < n.batch; ++i) onehot[size_t(i) * n.classes + rng() % n.classes] = 1.0f;
    step.Write("onehot", onehot);
}

}  // namespace

int main(int argc, char** argv) {
    bool quick = false, profile = false;
    std::string optimizer = "adam";
    int runs = 5;
    NetConfig net;
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        if (arg == "--quick") {
            quick = true;
        } else if (arg == "--profile") {
            profile = true;
        } else if (arg == "--optimizer" && i + 1 < argc) {
            optimizer = argv[++i];
        } else if (arg == "--batch" && i + 1 < argc) {
            net.batch = UINT(std::stoul(argv[++i]));
        } else if (arg == "--weight-gradient" && i + 1 < argc) {
            const std::string how = argv[++i];
            net.weightGradient = how == "unfold" ? freedml_train::WeightGradient::Unfold
                                                 : freedml_train::WeightGradient::SwappedConvolution;
        } else if (arg == "--runs" && i + 1 < argc) {
            runs = std::max(1, std::stoi(argv[++i]));
        } else {
            std::fprintf(stderr, "usage: training_bench [--quick] [--optimizer adam|sgd] [--batch N] [--profile] "
                                 "[--runs N] [--weight-gradient conv|unfold]\n");
            return 2;
        }
    }
    if (optimizer != "adam" && optimizer != "sgd") {
        std::fprintf(stderr, "training_bench: --optimizer is adam or sgd\n");
        return 2;
    }
    if (optimizer == "adam" && !TrainingStep::CompilesAdam()) {
        std::fprintf(stderr, "training_bench: this FreeDML does not compile ADAM_OPTIMIZER; timing the step with "
                             "plain SGD from element-wise operators instead\n");
        optimizer = "sgd";
    }
    const double runSeconds = quick ? 0.3 : 1.0;
    try {
        TrainingStep step(net, optimizer == "adam" ? Optimizer::Adam : Optimizer::Sgd, {});
        std::mt19937 rng(2024);
        InitializeRandom(step, rng);
        step.Steps(2);  // warm-up: oneDNN primitives, first touches
        auto timed = [&](int reps) {
            const auto start = std::chrono::steady_clock::now();
            step.Steps(reps);
            return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() / reps;
        };
        const double once = timed(1);
        const int reps = std::clamp(int(runSeconds / std::max(once, 1e-6)), 1, 10000);
        std::vector<double> times;
        for (int r = 0; r < (quick ? std::min(runs, 3) : runs); ++r) times.push_back(timed(reps));
        std::sort(times.begin(), times.end());
        const double seconds = times[times.size() / 2];
        const float loss = step.Read("loss")[0];
        std::printf("{\"bench\": \"train\", \"name\": \"cnn_b%u\", \"type\": \"f32\", \"optimizer\": \"%s\", "
                    "\"weight_gradient\": \"%s\", \"ms\": %.4f, \"steps_per_s\": %.3f, \"dispatches\": %zu, \"loss\": %.5f}\n",
                    net.batch, optimizer.c_str(),
                    net.weightGradient == freedml_train::WeightGradient::Unfold ? "unfold" : "conv", seconds * 1e3,
                    1.0 / seconds, step.OperatorCount(), loss);
        std::fflush(stdout);
        if (profile) {
            double total = 0.0;
            for (const auto& [name, ms] : step.Profile(quick ? 1 : 3, quick ? 2 : 5)) {
                total += ms;
                std::printf("{\"bench\": \"train_op\", \"name\": \"%s\", \"ms\": %.4f}\n", name.c_str(), ms);
            }
            std::printf("{\"bench\": \"train_op\", \"name\": \"sum of operators alone\", \"ms\": %.4f}\n", total);
        }
    } catch (const std::exception& e) {
        std::fprintf(stderr, "training_bench: %s\n", e.what());
        return 1;
    }
    return 0;
}
