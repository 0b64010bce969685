// IDMLOperator: a validated operator description, owned (deep-copied) so that the application's
// desc may be freed right after CreateOperator.
#pragma once

#include <memory>

#include "dml/object.h"
#include "dml/schema/schema.h"

namespace freedml::dml {

class Operator final : public DeviceChild<Operator, ChildKind::Operator, IDMLOperator, IDMLDeviceChild, IDMLObject> {
public:
    static constexpr ChildKind kKind = ChildKind::Operator;

    // Validates `desc` (T1-T4 and the operator's own rules) and creates the operator.
    static Status Create(Device& device, const DML_OPERATOR_DESC& desc, Operator** created);

    const OperatorArgs& Args() const { return *args_; }
    // The graph optimizer's clamped-output epilogue (OperatorArgs::clampOutput), set on an operator
    // it made itself, before any kernel reads the args.
    void ClampOutput(float min, float max) {
        args_->clampOutput = true;
        args_->clampMin = min;
        args_->clampMax = max;
    }
    // The graph optimizer's accumulated-output epilogue (OperatorArgs::accumulateOutput).
    void AccumulateOutput() { args_->accumulateOutput = true; }
    // Carries the graph optimizer's epilogues of `from` over to this operator, made to replace it.
    void CopyEpilogues(const Operator& from) {
        args_->clampOutput = from.args_->clampOutput;
        args_->clampMin = from.args_->clampMin;
        args_->clampMax = from.args_->clampMax;
        args_->accumulateOutput = from.args_->accumulateOutput;
    }
    const OperatorSchema& Schema() const { return args_->schema; }
    // "GEMM operator 'layer1'"
    std::string Describe() const;

private:
    Operator(Device& device, std::unique_ptr<OwnedOperatorDesc> desc, std::unique_ptr<OperatorArgs> args);

    std::unique_ptr<OwnedOperatorDesc> desc_;
    std::unique_ptr<OperatorArgs> args_;  // points into desc_
};

}  // namespace freedml::dml
