// Reading an ONNX model for the lowering: the file parsed by ONNX's own protobuf classes, checked
// by ONNX's checker, its symbolic dimensions set from the caller's values and every tensor's shape
// found by ONNX's shape inference. Everything wrong is one sentence in a LoadError.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace onnx {
class ModelProto;
class TensorProto;
}

namespace freedml::onnx {

class LoadError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

struct LoadOptions {
    std::map<std::string, uint64_t> dims;  // symbolic dimension name -> value (--dim name=value)
    // Whole shapes of graph inputs (DxDispatch's binding shapes): each must have its input's rank
    // and agree with its fixed dimensions; the input's other dimensions take these values.
    std::map<std::string, std::vector<uint64_t>> inputShapes;
    // A graph input dimension still unset after `dims` and `inputShapes` becomes 1 (DxDispatch's
    // rule for its ONNX dispatchables) instead of being refused.
    bool unsetDimensionsAreOne = false;
    std::string dimsName = "--dim";  // what an error about a `dims` entry calls it
};

// A parsed model whose value infos carry the inferred static shapes.
struct LoadedModel {
    std::shared_ptr<::onnx::ModelProto> proto;
    int64_t opset = 0;  // the default domain's opset version
    // The graph's inputs (initializers left out) and outputs, in the file's order.
    std::vector<std::string> inputNames, outputNames;
};

// Throws LoadError: a file protobuf cannot parse (with where it stopped), a model ONNX's checker
// refuses (with the checker's reason), external data, or shape inference's own errors.
LoadedModel LoadModel(const uint8_t* data, size_t size, const LoadOptions& options);
LoadedModel LoadModelFile(const std::string& path, const LoadOptions& options);

}  // namespace freedml::onnx
