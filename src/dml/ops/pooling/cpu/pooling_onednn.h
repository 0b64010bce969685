// oneDNN's pooling primitive for the FLOAT32 averages it computes as FreeDML defines them (its calls
// are in kernels/cpu/onednn.cpp, with every other oneDNN call).
#pragma once

#include <memory>

#include "dml/ops/pooling/pool_plan.h"
#include "dml/tensor.h"

namespace freedml::dml::cpu {

class OneDnnPooling {
public:
    // Null where oneDNN is not built in or refuses the pool. The caller checks that the pool is
    // one oneDNN computes the same way (pooling.cpp: a FLOAT32 AVERAGE, no dilations, no window
    // wholly in the padding). MAX works too, but oneDNN's passes over NaNs.
    static std::unique_ptr<OneDnnPooling> Make(const PoolPlan& plan, const TensorDesc& input,
                                               const TensorDesc& output);
    ~OneDnnPooling();
    void Run(const std::byte* input, std::byte* output) const;

    struct State;

private:
    explicit OneDnnPooling(std::unique_ptr<State> state);
    std::unique_ptr<State> state_;
};

}  // namespace freedml::dml::cpu
