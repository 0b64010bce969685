// The ONNX backend test suite (Debian's libonnx-testdata: each case a model.onnx with input_k.pb and
// output_k.pb tensors) through the lowering and a session on one adapter. Prints the pass count and
// every case that did not pass with its reason: not lowered (the lowering's sentence), refused by
// DirectML, or wrong values (where and by how much).
//
//   onnx_backend_test DATA_DIR [--adapter cpu] [--suite node] [--min-pass N] [--report FILE]
//
// Exit status 1 when fewer than N cases pass.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <string>
#include <vector>

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

enum class Outcome { Pass, NotLowered, Refused, Wrong };

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
    std::vector<fs::path> cases;
    for (const auto& entry : fs::directory_iterator(root / suite)) {
        if (fs::exists(entry.path() / "model.onnx")) cases.push_back(entry.path());
    }
    std::sort(cases.begin(), cases.end());
    std::map<Outcome, std::vector<std::pair<std::string, std::string>>> results;
    for (const auto& dir : cases) {
        std::string reason;
        Outcome outcome = RunCase(dir, adapter, &reason);
        results[outcome].emplace_back(dir.filename().string(), reason);
    }
    const size_t pass = results[Outcome::Pass].size();
    std::string text;
    char line[512];
    std::snprintf(line, sizeof(line),
                  "## '%s' on %s\n\n%zu of %zu pass; %zu cannot be lowered, %zu are refused by DirectML, "
                  "%zu give wrong values.\n",
                  suite.c_str(), adapter.c_str(), pass, cases.size(), results[Outcome::NotLowered].size(),
                  results[Outcome::Refused].size(), results[Outcome::Wrong].size());
    text += line;
    const std::pair<Outcome, const char*> sections[] = {{Outcome::Wrong, "Wrong values"},
                                                        {Outcome::Refused, "Refused when creating or running the graph"},
                                                        {Outcome::NotLowered, "Not lowered"}};
    for (const auto& [outcome, title] : sections) {
        if (results[outcome].empty()) continue;
        text += std::string("\n") + title + ":\n\n";
        for (const auto& [name, reason] : results[outcome]) text += "- `" + name + "`: " + reason + "\n";
    }
    std::fputs(text.c_str(), stdout);
    if (!report.empty()) std::ofstream(report) << text << "\n";
    if (static_cast<long>(pass) < minPass) {
        std::printf("\nFAILED: %zu pass, fewer than the %ld this suite passed before.\n", pass, minPass);
        return 1;
    }
    return 0;
}
