// Schemas of the unary element-wise family (filled in as the family's operators are implemented).
#include "dml/schema/families.h"

namespace freedml::dml {

std::span<const OperatorSchema* const> ElementWiseUnarySchemas() { return {}; }

}  // namespace freedml::dml
