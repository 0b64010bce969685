#include "dml/operator.h"

namespace freedml::dml {

Operator::Operator(Device& device, std::unique_ptr<OwnedOperatorDesc> desc, std::unique_ptr<OperatorArgs> args)
    : DeviceChild(device), desc_(std::move(desc)), args_(std::move(args)) {}

Status Operator::Create(Device& device, const DML_OPERATOR_DESC& desc, Operator** created) {
    std::unique_ptr<OwnedOperatorDesc> owned;
    FREEDML_TRY(OwnedOperatorDesc::Copy(desc, &owned));
    std::unique_ptr<OperatorArgs> args;
    FREEDML_TRY_CONTEXT(ValidateOperatorDesc(*owned, device.FeatureLevel(), &args), "validating a %s operator",
                        owned->Schema().name);
    *created = new Operator(device, std::move(owned), std::move(args));
    return {};
}

std::string Operator::Describe() const { return std::string(Schema().name) + " operator" + NameSuffix(); }

}  // namespace freedml::dml
