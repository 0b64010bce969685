#include "onnx_runner.h"

#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>
#include <set>

#include "npy.h"
#include "print_format.h"

#if FREEDML_HAVE_ONNX
#include "loader.h"
#include "lowering.h"
#include "session.h"
#endif

namespace dmlrun {

namespace {

constexpr int kExitInvalidModel = 1;
constexpr int kExitRunFailed = 3;

#if FREEDML_HAVE_ONNX
namespace fo = freedml::onnx;

std::vector<uint8_t> ReadFile(const std::string& path) {
    std::ifstream stream(path, std::ios::binary);
    if (!stream) throw std::runtime_error("cannot open '" + path + "'.");
    return std::vector<uint8_t>((std::istreambuf_iterator<char>(stream)), std::istreambuf_iterator<char>());
}

void WriteFile(const std::filesystem::path& path, const std::vector<uint8_t>& bytes) {
    std::ofstream stream(path, std::ios::binary | std::ios::trunc);
    stream.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
    if (!stream) throw std::runtime_error("cannot write '" + path.string() + "'.");
}

// Random values for an input nobody gave: floats uniform in [-1, 1), integers in [0, 10), booleans 0/1.
std::vector<uint8_t> RandomInput(const fo::Port& port, std::mt19937_64& rng) {
    const uint32_t size = fo::DataTypeSize(port.dataType);
    std::vector<uint8_t> bytes(port.elementCount * size);
    std::uniform_real_distribution<float> real(-1.0f, 1.0f);
    std::uniform_int_distribution<int> integer(0, port.onnxType == 9 /* BOOL */ ? 1 : 9);
    for (uint64_t e = 0; e < port.elementCount; ++e) {
        uint8_t* p = bytes.data() + e * size;
        switch (port.dataType) {
            case DML_TENSOR_DATA_TYPE_FLOAT32: { float f = real(rng); std::memcpy(p, &f, 4); break; }
            case DML_TENSOR_DATA_TYPE_FLOAT64: { double f = real(rng); std::memcpy(p, &f, 8); break; }
            case DML_TENSOR_DATA_TYPE_FLOAT16: {
                // A half in [-1, 1): sign, exponent 14 or below, random mantissa.
                uint16_t h = static_cast<uint16_t>((rng() & 0x8000) | (0x3800 + (rng() % 0x0400)));
                std::memcpy(p, &h, 2);
                break;
            }
            default: {
                int64_t v = integer(rng);
                std::memcpy(p, &v, size);  // little-endian: the low bytes
                break;
            }
        }
    }
    return bytes;
}

double Element(DML_TENSOR_DATA_TYPE type, const uint8_t* p) {
    switch (type) {
        case DML_TENSOR_DATA_TYPE_FLOAT32: { float v; std::memcpy(&v, p, 4); return v; }
        case DML_TENSOR_DATA_TYPE_FLOAT64: { double v; std::memcpy(&v, p, 8); return v; }
        case DML_TENSOR_DATA_TYPE_INT64: { int64_t v; std::memcpy(&v, p, 8); return static_cast<double>(v); }
        case DML_TENSOR_DATA_TYPE_INT32: { int32_t v; std::memcpy(&v, p, 4); return v; }
        case DML_TENSOR_DATA_TYPE_UINT8: return *p;
        case DML_TENSOR_DATA_TYPE_INT8: return static_cast<int8_t>(*p);
        default: return std::nan("");
    }
}

std::string Quote(const std::string& s) {
    std::string out = "'";
    for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return out + "'";
}

// The helper that runs ONNX Runtime: beside the installed program, else in the source tree.
std::string OrtHelper() {
    if (const char* env = std::getenv("FREEDML_ORT_HELPER")) return env;
    std::error_code ignored;
    auto self = std::filesystem::read_symlink("/proc/self/exe", ignored);
    for (auto candidate : {self.parent_path() / "../share/freedml/dmlrun_ort.py", self.parent_path() / "dmlrun_ort.py"}) {
        if (std::filesystem::exists(candidate, ignored)) return candidate.string();
    }
    return FREEDML_ORT_HELPER_SOURCE;
}

int Run(const Options& options) {
    fo::LoadOptions loadOptions;
    loadOptions.dims = options.dims;
    fo::LoadedModel model;
    fo::LoweredGraph graph;
    try {
        model = fo::LoadModelFile(options.modelPath, loadOptions);
        graph = fo::Lower(model);
    } catch (const fo::LoadError& error) {
        std::fprintf(stderr, "dmlrun: error: %s: %s\n", options.modelPath.c_str(), error.what());
        return kExitInvalidModel;
    } catch (const fo::LoweringError& error) {
        std::fprintf(stderr, "dmlrun: error: %s: %s\n", options.modelPath.c_str(), error.what());
        return kExitInvalidModel;
    }
    if (options.dumpGraph) std::fputs(graph.Dump().c_str(), stdout);

    // Inputs: the files given, random values for the rest.
    std::vector<std::vector<uint8_t>> inputs(graph.inputs.size());
    std::set<std::string> given;
    for (const auto& [name, file] : options.inputs) {
        size_t index = graph.inputs.size();
        for (size_t i = 0; i < graph.inputs.size(); ++i) {
            if (graph.inputs[i].name == name) index = i;
        }
        if (index == graph.inputs.size()) {
            std::string names;
            for (const auto& port : graph.inputs) names += (names.empty() ? "'" : ", '") + port.name + "'";
            std::fprintf(stderr, "dmlrun: error: --input %s: the model has no input '%s' (its inputs: %s).\n", name.c_str(),
                         name.c_str(), names.c_str());
            return kExitInvalidModel;
        }
        const fo::Port& port = graph.inputs[index];
        try {
            NpyArray array = ReadNpy(ReadFile(file), options.maxMemoryMiB << 20);
            uint64_t count = 1;
            for (uint64_t d : array.shape) count *= d;
            if (array.dataType != port.dataType || count != port.elementCount) {
                std::string want = fo::DataTypeName(port.dataType), have = fo::DataTypeName(array.dataType);
                throw std::runtime_error("input '" + name + "' takes " + std::to_string(port.elementCount) + " " + want +
                                         " elements; the file holds " + std::to_string(count) + " " + have + ".");
            }
            inputs[index] = std::move(array.data);
        } catch (const std::exception& error) {
            std::fprintf(stderr, "dmlrun: error: --input %s=%s: %s\n", name.c_str(), file.c_str(), error.what());
            return kExitInvalidModel;
        }
        given.insert(name);
    }
    std::mt19937_64 rng(options.seed);
    for (size_t i = 0; i < graph.inputs.size(); ++i) {
        if (!given.count(graph.inputs[i].name)) inputs[i] = RandomInput(graph.inputs[i], rng);
    }

    fo::SessionOptions sessionOptions;
    sessionOptions.adapter = options.adapter;
    sessionOptions.debug = options.debug;
    sessionOptions.allowHalfPrecision = options.allowHalfPrecision;
    std::vector<std::vector<uint8_t>> outputs;
    std::vector<double> milliseconds;
    const std::string name = std::filesystem::path(options.modelPath).stem().string();
    try {
        fo::Session session(graph, sessionOptions);
        if (!options.quiet) std::printf("Running on '%s'\n", session.AdapterName().c_str());
        for (size_t i = 0; i < inputs.size(); ++i) session.SetInput(i, inputs[i]);
        for (uint32_t i = 0; i < options.iterations; ++i) {
            const auto start = std::chrono::steady_clock::now();
            session.Execute();
            milliseconds.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
        }
        for (size_t i = 0; i < graph.outputs.size(); ++i) outputs.push_back(session.Output(i));
    } catch (const fo::SessionError& error) {
        std::fprintf(stderr, "dmlrun: error: %s: %s\n", options.modelPath.c_str(), error.what());
        return kExitRunFailed;
    }
    const TimingStats stats = ComputeTimingStats(milliseconds);
    if (!options.quiet) std::printf("%s\n", FormatDispatchTiming(name, options.iterations, stats).c_str());
    for (size_t i = 0; i < graph.outputs.size(); ++i) {
        const fo::Port& port = graph.outputs[i];
        std::printf("%s\n", FormatResource(port.name, port.dataType, outputs[i].data(), port.elementCount, false).c_str());
    }
    if (!options.outputDir.empty()) {
        std::error_code ignored;
        std::filesystem::create_directories(options.outputDir, ignored);
        for (size_t i = 0; i < graph.outputs.size(); ++i) {
            const fo::Port& port = graph.outputs[i];
            std::vector<uint64_t> shape(port.shape.begin(), port.shape.end());
            const auto path = std::filesystem::path(options.outputDir) / (port.name + ".npy");
            try {
                WriteFile(path, WriteNpy(port.dataType, shape, outputs[i]));
            } catch (const std::exception& error) {
                std::fprintf(stderr, "dmlrun: error: %s\n", error.what());
                return kExitRunFailed;
            }
            if (!options.quiet) std::printf("Output '%s' written to '%s'\n", port.name.c_str(), path.string().c_str());
        }
    }
    std::fflush(stdout);

    if (options.compareOrt) {
        char pattern[] = "/tmp/dmlrun-ort-XXXXXX";
        if (!mkdtemp(pattern)) {
            std::fprintf(stderr, "dmlrun: error: cannot make a temporary folder for --compare-ort.\n");
            return kExitRunFailed;
        }
        const std::filesystem::path dir = pattern;
        std::string args;
        for (size_t i = 0; i < graph.inputs.size(); ++i) {
            const auto path = dir / ("input" + std::to_string(i) + ".npy");
            std::vector<uint64_t> shape(graph.inputs[i].shape.begin(), graph.inputs[i].shape.end());
            WriteFile(path, WriteNpy(graph.inputs[i].dataType, shape, inputs[i]));
            args += " --input " + Quote(graph.inputs[i].name + "=" + path.string());
        }
        const char* python = std::getenv("FREEDML_PYTHON");
        const std::string command = std::string(python ? python : "python3") + " " + Quote(OrtHelper()) + " " +
                                    Quote(options.modelPath) + " --iterations " + std::to_string(options.iterations) +
                                    " --output-dir " + Quote(dir.string()) + args;
        const int status = std::system(command.c_str());
        if (status != 0) {
            std::fprintf(stderr, "dmlrun: error: --compare-ort: ONNX Runtime's run failed (is the Python package "
                                 "onnxruntime installed? python3 -m pip install onnxruntime).\n");
            std::filesystem::remove_all(dir);
            return kExitRunFailed;
        }
        int worst = 0;
        for (size_t i = 0; i < graph.outputs.size(); ++i) {
            const fo::Port& port = graph.outputs[i];
            NpyArray reference;
            try {
                reference = ReadNpy(ReadFile((dir / ("output" + std::to_string(i) + ".npy")).string()), uint64_t(1) << 40);
            } catch (const std::exception& error) {
                std::fprintf(stderr, "dmlrun: error: --compare-ort: output '%s': %s\n", port.name.c_str(), error.what());
                worst = kExitRunFailed;
                continue;
            }
            const uint32_t size = fo::DataTypeSize(port.dataType);
            if (reference.dataType != port.dataType || reference.data.size() != outputs[i].size()) {
                std::fprintf(stderr, "dmlrun: error: --compare-ort: output '%s' from ONNX Runtime has another type or size.\n",
                             port.name.c_str());
                worst = kExitRunFailed;
                continue;
            }
            double maxAbs = 0, maxRel = 0;
            for (uint64_t e = 0; e < port.elementCount; ++e) {
                const double a = Element(port.dataType, outputs[i].data() + e * size);
                const double b = Element(port.dataType, reference.data.data() + e * size);
                double diff = std::fabs(a - b);
                if (std::isnan(a) != std::isnan(b)) diff = INFINITY;
                if (std::isnan(a) && std::isnan(b)) diff = 0;
                maxAbs = std::max(maxAbs, diff);
                if (diff > 0) maxRel = std::max(maxRel, diff / std::max(std::fabs(b), 1e-30));
            }
            std::printf("Compare '%s' with ONNX Runtime: max abs difference %g, max rel difference %g\n", port.name.c_str(),
                        maxAbs, maxRel);
        }
        std::ifstream timing(dir / "timing.txt");
        double ortMedian = 0;
        if (timing >> ortMedian && ortMedian > 0 && stats.median > 0) {
            std::printf("Speed: FreeDML %.4f ms median, ONNX Runtime (CPU) %.4f ms median: FreeDML at %.2fx ONNX Runtime's speed\n",
                        stats.median, ortMedian, ortMedian / stats.median);
        }
        std::filesystem::remove_all(dir);
        return worst;
    }
    return 0;
}
#endif

}  // namespace

int RunOnnxModel(const Options& options) {
#if FREEDML_HAVE_ONNX
    return Run(options);
#else
    std::fprintf(stderr,
                 "dmlrun: error: %s: this dmlrun was built without ONNX support; install the Debian packages "
                 "libonnx-dev and libprotobuf-dev and build FreeDML again.\n",
                 options.modelPath.c_str());
    return kExitInvalidModel;
#endif
}

void ListOnnxOperators() {
#if FREEDML_HAVE_ONNX
    std::printf("ONNX operators FreeDML lowers to DirectML:\n");
    for (const auto& name : freedml::onnx::SupportedOperators()) std::printf("  %s\n", name.c_str());
#else
    std::printf("This dmlrun was built without ONNX support (libonnx-dev, libprotobuf-dev).\n");
#endif
}

}  // namespace dmlrun
