// The ONNX backend test suite (Debian's libonnx-testdata: each case a model.onnx with input_k.pb and
// output_k.pb tensors) through the lowering and a session on one adapter. Prints the pass count and
// every case that did not pass with its reason: not lowered (the lowering's sentence), refused by
// DirectML, or wrong values (where and by how much).
//
//   onnx_backend_test DATA_DIR [--adapter cpu] [--suite node] [--min-pass N] [--report FILE]
//
// Exit status 1 when fewer than N cases pass.
#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <string>
#include <vector>

#include <onnx/onnx_pb.h>

#include "loader.h"
#include "lowering.h"
#include "session.h"

namespace fs = std::filesystem;
namespace fo = freedml::onnx;

namespace {

std::vector<uint8_t> ReadAll(const fs::path& path) {
    std::ifstream stream(path, std::ios::binary);
    return std::vector<uint8_t>((std::istreambuf_iterator<char>(stream)), std::istreambuf_iterator<char>());
}

double Element(DML_TENSOR_DATA_TYPE type, const uint8_t* p) {
    switch (type) {
        case DML_TENSOR_DATA_TYPE_FLOAT32: { float v; std::memcpy(&v, p, 4); return v; }
        case DML_TENSOR_DATA_TYPE_FLOAT64: { double v; std::memcpy(&v, p, 8); return v; }
        case DML_TENSOR_DATA_TYPE_FLOAT16: {
            uint16_t h; std::memcpy(&h, p, 2);
            const int e = (h >> 10) & 31, m = h & 1023;
            double v = e == 0 ? std::ldexp(m, -24) : e == 31 ? (m ? NAN : INFINITY) : std::ldexp(m + 1024, e - 25);
            return (h & 0x8000) ? -v : v;
        }
        case DML_TENSOR_DATA_TYPE_INT64: { int64_t v; std::memcpy(&v, p, 8); return static_cast<double>(v); }
        case DML_TENSOR_DATA_TYPE_UINT64: { uint64_t v; std::memcpy(&v, p, 8); return static_cast<double>(v); }
        case DML_TENSOR_DATA_TYPE_INT32: { int32_t v; std::memcpy(&v, p, 4); return v; }
        case DML_TENSOR_DATA_TYPE_UINT32: { uint32_t v; std::memcpy(&v, p, 4); return v; }
        case DML_TENSOR_DATA_TYPE_INT16: { int16_t v; std::memcpy(&v, p, 2); return v; }
        case DML_TENSOR_DATA_TYPE_UINT16: { uint16_t v; std::memcpy(&v, p, 2); return v; }
        case DML_TENSOR_DATA_TYPE_INT8: return static_cast<int8_t>(*p);
        default: return *p;
    }
}

// Why a case's model has no DirectML equivalent, or "" when it has one. Decided from the model
// alone (operators, attributes, data types), never from whether the case passes: an ONNX operator
// counts as having an equivalent when DirectML has an operator for it or ONNX defines it as a
// function of such operators, or when a composition of DirectML operators computes it (Einsum).
std::string NoDirectMlEquivalent(const fs::path& modelPath) {
    ::onnx::ModelProto model;
    {
        std::ifstream stream(modelPath, std::ios::binary);
        if (!model.ParseFromIstream(&stream)) return "";
    }
    struct Rule { const char* op; const char* why; };
    static const Rule rules[] = {
        {"If", "control flow (If, Loop, Scan): a DirectML graph is one fixed set of operators"},
        {"Loop", "control flow (If, Loop, Scan): a DirectML graph is one fixed set of operators"},
        {"Scan", "control flow (If, Loop, Scan): a DirectML graph is one fixed set of operators"},
        {"TfIdfVectorizer", "n-gram counting (TfIdfVectorizer) has no DirectML operator"},
        {"StringNormalizer", "strings have no DirectML tensor type"},
        {"Bernoulli", "random numbers: DirectML's RANDOM_GENERATOR cannot reproduce the reference's generator"},
        {"RandomUniform", "random numbers: DirectML's RANDOM_GENERATOR cannot reproduce the reference's generator"},
        {"RandomUniformLike", "random numbers: DirectML's RANDOM_GENERATOR cannot reproduce the reference's generator"},
        {"RandomNormal", "random numbers: DirectML's RANDOM_GENERATOR cannot reproduce the reference's generator"},
        {"RandomNormalLike", "random numbers: DirectML's RANDOM_GENERATOR cannot reproduce the reference's generator"},
        {"Multinomial", "random numbers: DirectML's RANDOM_GENERATOR cannot reproduce the reference's generator"},
        {"Adagrad", "the Adagrad optimizer has no DirectML operator (DirectML has ADAM_OPTIMIZER only)"},
        {"Momentum", "the Momentum optimizer has no DirectML operator (DirectML has ADAM_OPTIMIZER only)"},
        {"DFT", "Fourier transforms (DFT, STFT) have no DirectML operator"},
        {"STFT", "Fourier transforms (DFT, STFT) have no DirectML operator"},
        {"MelWeightMatrix", "MelWeightMatrix has no DirectML operator"},
        {"Det", "determinants have no DirectML operator"},
        {"Gradient", "automatic differentiation (Gradient) has no DirectML operator"},
        {"GridSample", "grid sampling has no DirectML operator"},
        {"NonMaxSuppression", "non-maximum suppression has no DirectML operator"},
        {"Unique", "Unique has no DirectML operator (and its output size depends on the values)"},
        {"Compress", "Compress has no DirectML operator (and its output size depends on the values)"},
    };
    auto typeWhy = [](const ::onnx::TypeProto& type) -> std::string {
        if (!type.has_tensor_type()) return "sequences and optional values have no DirectML form";
        const int32_t t = type.tensor_type().elem_type();
        if (t == ::onnx::TensorProto::STRING) return "strings have no DirectML tensor type";
        if (t == ::onnx::TensorProto::BFLOAT16) return "BFLOAT16 has no DirectML tensor type";
        return "";
    };
    const auto& graph = model.graph();
    for (const auto* list : {&graph.input(), &graph.output(), &graph.value_info()}) {
        for (const auto& info : *list) {
            if (std::string why = typeWhy(info.type()); !why.empty()) return why;
        }
    }
    for (const auto& node : graph.node()) {
        const std::string& op = node.op_type();
        if (op.rfind("Sequence", 0) == 0 || op.rfind("Optional", 0) == 0 || op == "SplitToSequence" ||
            op == "ConcatFromSequence") {
            return "sequences and optional values have no DirectML form";
        }
        for (const Rule& rule : rules) {
            if (op == rule.op) return rule.why;
        }
        for (const auto& attribute : node.attribute()) {
            if (op == "Resize" && attribute.name() == "mode" && attribute.s() == "cubic") {
                return "cubic Resize: DirectML's RESAMPLE interpolates nearest or linear only";
            }
            if ((op == "ScatterND" || op == "ScatterElements") && attribute.name() == "reduction" &&
                attribute.s() != "none") {
                return "a Scatter with reduction: DirectML's SCATTER operators overwrite only";
            }
            if ((op == "Cast" || op == "Constant") && (attribute.i() == ::onnx::TensorProto::STRING ||
                                                      attribute.i() == ::onnx::TensorProto::BFLOAT16) &&
                attribute.name() == "to") {
                return "STRING and BFLOAT16 have no DirectML tensor type";
            }
        }
    }
    return "";
}

enum class Outcome { Pass, NotLowered, Refused, Wrong };

// Whether the machine has an NVIDIA GPU's device node (/dev/nvidia0, ...): without one the CUDA
// adapter cannot exist, and the CUDA runs skip rather than count every case as refused.
bool HasNvidiaDevice() {
    std::error_code error;
    for (const auto& entry : fs::directory_iterator("/dev", error)) {
        const std::string name = entry.path().filename().string();
        if (name.size() > 6 && name.rfind("nvidia", 0) == 0 && std::isdigit(static_cast<unsigned char>(name[6]))) {
            return true;
        }
    }
    return false;
}

// Runs one case; `reason` gets why it did not pass.
Outcome RunCase(const fs::path& dir, const std::string& adapter, std::string* reason) {
    const fs::path data = dir / "test_data_set_0";
    fo::LoweredGraph graph;
    std::map<std::string, fo::TensorData> constants;
    try {
        fo::LoadedModel model = fo::LoadModelFile((dir / "model.onnx").string(), {});
        // Inputs DirectML takes as attributes (a Reshape's shape...) get the suite's values when the
        // graph is built, as ONNX Runtime's DirectML provider asks for them on the CPU.
        for (;;) {
            try {
                graph = fo::Lower(model, constants);
                break;
            } catch (const fo::LoweringError& error) {
                if (error.constantInputNeeded.empty() || constants.count(error.constantInputNeeded)) throw;
                bool found = false;
                for (size_t i = 0; fs::exists(data / ("input_" + std::to_string(i) + ".pb")); ++i) {
                    auto bytes = ReadAll(data / ("input_" + std::to_string(i) + ".pb"));
                    fo::TensorData t = fo::ParseTensor(bytes.data(), bytes.size());
                    if (t.name == error.constantInputNeeded) {
                        constants[t.name] = std::move(t);
                        found = true;
                    }
                }
                if (!found) throw;
            }
        }
    } catch (const std::exception& error) {
        *reason = error.what();
        return Outcome::NotLowered;
    }
    try {
        fo::SessionOptions options;
        options.adapter = adapter;
        fo::Session session(graph, options);
        for (size_t i = 0; fs::exists(data / ("input_" + std::to_string(i) + ".pb")); ++i) {
            auto bytes = ReadAll(data / ("input_" + std::to_string(i) + ".pb"));
            fo::TensorData t = fo::ParseTensor(bytes.data(), bytes.size());
            if (constants.count(t.name)) continue;
            size_t index = i < graph.inputs.size() ? i : graph.inputs.size();
            for (size_t k = 0; k < graph.inputs.size(); ++k) {
                if (!t.name.empty() && graph.inputs[k].name == t.name) index = k;
            }
            if (index == graph.inputs.size()) continue;
            session.SetInput(index, t.bytes);
        }
        session.Execute();
        for (size_t i = 0; i < graph.outputs.size(); ++i) {
            auto bytes = ReadAll(data / ("output_" + std::to_string(i) + ".pb"));
            fo::TensorData want = fo::ParseTensor(bytes.data(), bytes.size());
            const fo::Port& port = graph.outputs[i];
            std::vector<uint8_t> got = session.Output(i);
            if (want.dataType != port.dataType || want.bytes.size() != got.size()) {
                *reason = "output '" + port.name + "' has " + fo::DataTypeName(port.dataType) + " x " +
                          std::to_string(port.elementCount) + ", the reference " + fo::DataTypeName(want.dataType) +
                          " of " + std::to_string(want.bytes.size()) + " bytes.";
                return Outcome::Wrong;
            }
            const uint32_t size = fo::DataTypeSize(port.dataType);
            const bool floating = port.dataType == DML_TENSOR_DATA_TYPE_FLOAT32 ||
                                  port.dataType == DML_TENSOR_DATA_TYPE_FLOAT64 ||
                                  port.dataType == DML_TENSOR_DATA_TYPE_FLOAT16;
            // The backend suite's tolerance (rtol 1e-3), with atol 1e-5 for float rounding near zero.
            for (uint64_t e = 0; e < port.elementCount; ++e) {
                const double a = Element(port.dataType, got.data() + e * size);
                const double b = Element(port.dataType, want.bytes.data() + e * size);
                const bool same = floating ? (std::isnan(a) && std::isnan(b)) || a == b ||
                                                 std::fabs(a - b) <= 1e-5 + 1e-3 * std::fabs(b)
                                           : a == b;
                if (!same) {
                    char text[200];
                    std::snprintf(text, sizeof(text), "output '%s' element %llu is %.9g, the reference %.9g.",
                                  port.name.c_str(), static_cast<unsigned long long>(e), a, b);
                    *reason = text;
                    return Outcome::Wrong;
                }
            }
        }
    } catch (const std::exception& error) {
        *reason = error.what();
        return Outcome::Refused;
    }
    return Outcome::Pass;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc < 2) {
        std::fprintf(stderr, "usage: onnx_backend_test DATA_DIR [--adapter NAME] [--suite NAME] [--min-pass N] [--report FILE]\n");
        return 2;
    }
    fs::path root = argv[1];
    std::string adapter = "cpu", suite = "node", report;
    long minPass = 0;
    for (int i = 2; i + 1 < argc; i += 2) {
        std::string flag = argv[i];
        if (flag == "--adapter") adapter = argv[i + 1];
        else if (flag == "--suite") suite = argv[i + 1];
        else if (flag == "--min-pass") minPass = std::atol(argv[i + 1]);
        else if (flag == "--report") report = argv[i + 1];
    }
    if (!fs::is_directory(root / suite)) {
        std::printf("skipped: %s has no '%s' suite (Debian: apt-get install libonnx-testdata)\n", root.c_str(), suite.c_str());
        return 77;
    }
    if (adapter.rfind("cuda", 0) == 0 && !HasNvidiaDevice()) {
        std::printf("skipped: no NVIDIA GPU on this machine for the '%s' adapter\n", adapter.c_str());
        return 77;
    }
    std::vector<fs::path> cases;
    for (const auto& entry : fs::directory_iterator(root / suite)) {
        if (fs::exists(entry.path() / "model.onnx")) cases.push_back(entry.path());
    }
    std::sort(cases.begin(), cases.end());
    // Failing cases of models with a DirectML equivalent by outcome; those without one apart.
    std::map<Outcome, std::vector<std::pair<std::string, std::string>>> results;
    std::vector<std::pair<std::string, std::string>> outOfScope;
    size_t pass = 0, inScope = 0, inScopePass = 0;
    for (const auto& dir : cases) {
        std::string reason;
        Outcome outcome = RunCase(dir, adapter, &reason);
        const std::string why = NoDirectMlEquivalent(dir / "model.onnx");
        pass += outcome == Outcome::Pass;
        if (why.empty()) {
            ++inScope;
            inScopePass += outcome == Outcome::Pass;
            results[outcome].emplace_back(dir.filename().string(), reason);
        } else {
            outOfScope.emplace_back(dir.filename().string(),
                                    (outcome == Outcome::Pass ? "passes; " : "") + why + (outcome == Outcome::Pass ? "" : " (" + reason + ")"));
        }
    }
    std::string text;
    char line[768];
    std::snprintf(line, sizeof(line),
                  "## '%s' on %s\n\n%zu of %zu pass. Of the %zu cases whose model has a DirectML equivalent, "
                  "%zu pass (%.1f%%); %zu cannot be lowered, %zu are refused by DirectML, %zu give wrong values. "
                  "%zu cases have no DirectML equivalent.\n",
                  suite.c_str(), adapter.c_str(), pass, cases.size(), inScope, inScopePass,
                  inScope ? 100.0 * static_cast<double>(inScopePass) / static_cast<double>(inScope) : 100.0,
                  results[Outcome::NotLowered].size(), results[Outcome::Refused].size(), results[Outcome::Wrong].size(),
                  outOfScope.size());
    text += line;
    const std::pair<Outcome, const char*> sections[] = {{Outcome::Wrong, "Wrong values"},
                                                        {Outcome::Refused, "Refused when creating or running the graph"},
                                                        {Outcome::NotLowered, "Not lowered"}};
    for (const auto& [outcome, title] : sections) {
        if (results[outcome].empty()) continue;
        text += std::string("\n") + title + ":\n\n";
        for (const auto& [name, reason] : results[outcome]) text += "- `" + name + "`: " + reason + "\n";
    }
    if (!outOfScope.empty()) {
        text += "\nNo DirectML equivalent (left out of the percentage above):\n\n";
        for (const auto& [name, reason] : outOfScope) text += "- `" + name + "`: " + reason + "\n";
    }
    std::fputs(text.c_str(), stdout);
    if (!report.empty()) std::ofstream(report) << text << "\n";
    if (static_cast<long>(pass) < minPass) {
        std::printf("\nFAILED: %zu pass, fewer than the %ld this suite passed before.\n", pass, minPass);
        return 1;
    }
    return 0;
}
