// libFuzzer target of the ONNX loader and lowering: bytes -> protobuf parse -> ONNX's checker and
// shape inference -> the lowering -> the library's own deep copy and validation of every operator
// desc the lowering made (what CreateOperator runs first). No device, no files. Every failure must
// be a LoadError or LoweringError sentence; anything else (a crash, another exception) is a bug.
#include <cstddef>
#include <cstdint>

#include "dml/schema/schema.h"
#include "loader.h"
#include "lowering.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    try {
        freedml::onnx::LoadedModel model = freedml::onnx::LoadModel(data, size, {});
        freedml::onnx::LoweredGraph graph = freedml::onnx::Lower(model);
        for (const auto& node : graph.nodes) {
            if (node.type == DML_OPERATOR_INVALID) continue;
            DML_OPERATOR_DESC desc = {node.type, node.desc};
            std::unique_ptr<freedml::dml::OwnedOperatorDesc> owned;
            if (freedml::dml::OwnedOperatorDesc::Copy(desc, &owned).ok()) {
                std::unique_ptr<freedml::dml::OperatorArgs> args;
                (void)freedml::dml::ValidateOperatorDesc(*owned, DML_FEATURE_LEVEL_6_4, &args);
            }
        }
        (void)graph.Dump();
    } catch (const freedml::onnx::LoadError&) {
    } catch (const freedml::onnx::LoweringError&) {
    }
    return 0;
}
