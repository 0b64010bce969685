// Runs a lowered ONNX graph on a FreeDML adapter through the public D3D12 and DirectML APIs only:
// every operator created and the graph compiled (IDMLDevice1::CompileGraph) and initialized when
// the session is made, so a model DirectML refuses fails before anything executes.
#pragma once

#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "lowering.h"

namespace freedml::onnx {

class SessionError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

struct SessionOptions {
    std::string adapter;  // "cpu", "cuda", "cuda:N"; empty: FreeDML's default choice
    bool debug = false;   // the D3D12 and DirectML debug layers
    // DML_EXECUTION_FLAG_ALLOW_HALF_PRECISION_COMPUTATION for the graph (TF32 on CUDA).
    bool allowHalfPrecision = false;
};

class Session {
public:
    // Throws SessionError; an operator DirectML refuses is named by its ONNX node.
    Session(const LoweredGraph& graph, const SessionOptions& options);
    ~Session();
    Session(const Session&) = delete;
    Session& operator=(const Session&) = delete;

    const std::string& AdapterName() const;
    // `bytes` are graph input `index`'s elements, packed (Port::elementCount of them).
    void SetInput(size_t index, const std::vector<uint8_t>& bytes);
    // One dispatch of the graph, waited for.
    void Execute();
    // Graph output `index`'s elements, packed.
    std::vector<uint8_t> Output(size_t index);

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

}  // namespace freedml::onnx
