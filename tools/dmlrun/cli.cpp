#include "cli.h"

#include <cerrno>
#include <cstdlib>
#include <cstring>

namespace dmlrun {

namespace {

bool ParseNumber(const char* text, uint64_t maximum, uint64_t* value) {
    if (!text || !*text || *text == '-' || *text == '+') return false;
    errno = 0;
    char* end = nullptr;
    unsigned long long parsed = std::strtoull(text, &end, 10);
    if (errno || *end || parsed > maximum) return false;
    *value = parsed;
    return true;
}

}  // namespace

const char* UsageText() {
    return "Usage: dmlrun [OPTIONS] MODEL.json\n"
           "       dmlrun [OPTIONS] MODEL.onnx\n"
           "\n"
           "Runs a DirectML model described in JSON (the DxDispatch model format) on FreeDML and\n"
           "prints what its print commands ask for, as DxDispatch does. An ONNX model is lowered to\n"
           "one DirectML graph and run; its outputs are printed.\n"
           "\n"
           "Options:\n"
           "  -a, --adapter NAME     cpu, cuda or cuda:N (default: $FREEDML_ADAPTER, else the first\n"
           "                         GPU, else cpu)\n"
           "  -i, --iterations N     run each dispatch command N times and report the minimum,\n"
           "                         median and maximum time, the first run excluded (default 1)\n"
           "      --print-all        print every resource after the last command\n"
           "  -q, --quiet            print only what print commands write, and errors\n"
           "  -v, --verbose          show each step and every FreeDML message (turns on --debug)\n"
           "  -d, --debug            turn on the D3D12 and DirectML debug layers\n"
           "      --max-memory MIB   the most memory the model's buffers may take (default 4096)\n"
           "      --check            replay a FreeDML capture (FREEDML_CAPTURE) and compare every\n"
           "                         output with the captured one, bit for bit\n"
           "      --compare-adapters A,B  run the model on adapters A and B (cpu, cuda, cuda:N) and\n"
           "                         report per dispatch the largest absolute and relative\n"
           "                         difference and the first differing element\n"
           "      --tolerance X      with --compare-adapters: differences up to X (absolute or\n"
           "                         relative) count as agreement (default 0)\n"
           "      --list-operators   list the DirectML operators FreeDML knows, and which it runs\n"
           "      --list-adapters    list the adapters FreeDML offers\n"
           "\n"
           "ONNX models:\n"
           "      --dim NAME=N       give the symbolic dimension NAME the value N (repeatable)\n"
           "      --input NAME=FILE  read graph input NAME from a .npy file (repeatable); the\n"
           "                         others get random values from --seed\n"
           "      --seed N           the seed of random inputs (default 0)\n"
           "      --allow-half-precision  compile the graph with DML_EXECUTION_FLAG_ALLOW_HALF_\n"
           "                         PRECISION_COMPUTATION: FLOAT32 math may run at lower precision\n"
           "                         (TF32 tensor cores in CUDA GEMMs and convolutions)\n"
           "      --output-dir DIR   write each output to DIR/NAME.npy\n"
           "      --dump-graph       print the DirectML graph the model became\n"
           "      --compare-ort      run the same inputs through ONNX Runtime (Python onnxruntime)\n"
           "                         and print the largest differences and the speed ratio\n"
           "      --list-onnx-operators  list the ONNX operators FreeDML lowers\n"
           "  -h, --help             show this help\n"
           "      --version          show dmlrun's version\n"
           "\n"
           "Exit status: 0 when the model ran, 1 when the model is invalid, 2 for a wrong command\n"
           "line, 3 when a D3D12 or DirectML call failed, 4 when --check or --compare-adapters found\n"
           "outputs that differ.\n";
}

CommandLineAction ParseCommandLine(int argc, const char* const* argv, Options* options, std::string* error) {
    auto value = [&](int& i, const char* name) -> const char* {
        const char* arg = argv[i];
        const char* equals = std::strchr(arg, '=');
        if (arg[1] == '-' && equals) return equals + 1;
        if (i + 1 >= argc) {
            *error = std::string(name) + " needs a value.";
            return nullptr;
        }
        return argv[++i];
    };
    auto is = [](const char* arg, const char* shortName, const char* longName) {
        size_t length = std::strlen(longName);
        return (shortName && std::strcmp(arg, shortName) == 0) || std::strcmp(arg, longName) == 0 ||
               (std::strncmp(arg, longName, length) == 0 && arg[length] == '=');
    };
    bool endOfOptions = false;
    for (int i = 1; i < argc; ++i) {
        const char* arg = argv[i];
        if (endOfOptions || arg[0] != '-' || arg[1] == '\0') {
            if (!options->modelPath.empty()) {
                *error = "only one model can run at a time (given '" + options->modelPath + "' and '" + arg + "').";
                return CommandLineAction::Error;
            }
            options->modelPath = arg;
        } else if (std::strcmp(arg, "--") == 0) {
            endOfOptions = true;
        } else if (is(arg, "-h", "--help")) {
            return CommandLineAction::Help;
        } else if (is(arg, nullptr, "--version")) {
            return CommandLineAction::Version;
        } else if (is(arg, nullptr, "--list-operators")) {
            return CommandLineAction::ListOperators;
        } else if (is(arg, nullptr, "--list-onnx-operators")) {
            return CommandLineAction::ListOnnxOperators;
        } else if (is(arg, nullptr, "--dim")) {
            const char* v = value(i, "--dim");
            if (!v) return CommandLineAction::Error;
            const char* equals = std::strchr(v, '=');
            uint64_t n = 0;
            if (!equals || equals == v || !ParseNumber(equals + 1, UINT32_MAX, &n)) {
                *error = std::string("--dim takes NAME=N with a whole number N, not '") + v + "'.";
                return CommandLineAction::Error;
            }
            options->dims[std::string(v, equals)] = n;
        } else if (is(arg, nullptr, "--input")) {
            const char* v = value(i, "--input");
            if (!v) return CommandLineAction::Error;
            const char* equals = std::strchr(v, '=');
            if (!equals || equals == v || !equals[1]) {
                *error = std::string("--input takes NAME=FILE.npy, not '") + v + "'.";
                return CommandLineAction::Error;
            }
            options->inputs.emplace_back(std::string(v, equals), std::string(equals + 1));
        } else if (is(arg, nullptr, "--seed")) {
            const char* v = value(i, "--seed");
            if (!v) return CommandLineAction::Error;
            if (!ParseNumber(v, UINT64_MAX, &options->seed)) {
                *error = std::string("--seed takes a whole number, not '") + v + "'.";
                return CommandLineAction::Error;
            }
        } else if (is(arg, nullptr, "--output-dir")) {
            const char* v = value(i, "--output-dir");
            if (!v) return CommandLineAction::Error;
            options->outputDir = v;
        } else if (is(arg, nullptr, "--allow-half-precision")) {
            options->allowHalfPrecision = true;
        } else if (is(arg, nullptr, "--dump-graph")) {
            options->dumpGraph = true;
        } else if (is(arg, nullptr, "--compare-ort")) {
            options->compareOrt = true;
        } else if (is(arg, nullptr, "--list-adapters")) {
            return CommandLineAction::ListAdapters;
        } else if (is(arg, "-a", "--adapter")) {
            const char* v = value(i, "--adapter");
            if (!v) return CommandLineAction::Error;
            options->adapter = v;
            if (options->adapter != "cpu" && options->adapter != "cuda" && options->adapter.rfind("cuda:", 0) != 0) {
                *error = "--adapter takes cpu, cuda or cuda:N, not '" + options->adapter + "'.";
                return CommandLineAction::Error;
            }
        } else if (is(arg, "-i", "--iterations")) {
            const char* v = value(i, "--iterations");
            uint64_t n = 0;
            if (!v) return CommandLineAction::Error;
            if (!ParseNumber(v, 1000000000, &n) || n == 0) {
                *error = std::string("--iterations takes a whole number from 1 to 1000000000, not '") + v + "'.";
                return CommandLineAction::Error;
            }
            options->iterations = static_cast<uint32_t>(n);
        } else if (is(arg, nullptr, "--max-memory")) {
            const char* v = value(i, "--max-memory");
            uint64_t n = 0;
            if (!v) return CommandLineAction::Error;
            if (!ParseNumber(v, uint64_t(1) << 30, &n) || n == 0) {
                *error = std::string("--max-memory takes a number of MiB from 1 to 1073741824, not '") + v + "'.";
                return CommandLineAction::Error;
            }
            options->maxMemoryMiB = n;
        } else if (is(arg, nullptr, "--check")) {
            options->check = true;
        } else if (is(arg, nullptr, "--compare-adapters")) {
            const char* v = value(i, "--compare-adapters");
            if (!v) return CommandLineAction::Error;
            std::string pair = v;
            const size_t comma = pair.find(',');
            auto valid = [](const std::string& name) {
                return name == "cpu" || name == "cuda" || (name.rfind("cuda:", 0) == 0 && name.size() > 5);
            };
            if (comma == std::string::npos || !valid(pair.substr(0, comma)) || !valid(pair.substr(comma + 1))) {
                *error = "--compare-adapters takes two adapters separated by a comma (cpu,cuda), not '" + pair + "'.";
                return CommandLineAction::Error;
            }
            options->compareAdapters[0] = pair.substr(0, comma);
            options->compareAdapters[1] = pair.substr(comma + 1);
        } else if (is(arg, nullptr, "--tolerance")) {
            const char* v = value(i, "--tolerance");
            if (!v) return CommandLineAction::Error;
            char* end = nullptr;
            options->tolerance = std::strtod(v, &end);
            if (end == v || *end != '\0' || !(options->tolerance >= 0)) {
                *error = std::string("--tolerance takes a number of 0 or more, not '") + v + "'.";
                return CommandLineAction::Error;
            }
        } else if (is(arg, nullptr, "--print-all")) {
            options->printAll = true;
        } else if (is(arg, "-q", "--quiet")) {
            options->quiet = true;
        } else if (is(arg, "-v", "--verbose")) {
            options->verbose = true;
            options->debug = true;
        } else if (is(arg, "-d", "--debug")) {
            options->debug = true;
        } else {
            *error = std::string("unknown option '") + arg + "' (dmlrun --help lists the options).";
            return CommandLineAction::Error;
        }
    }
    if (options->quiet && options->verbose) {
        *error = "--quiet and --verbose contradict each other; give one.";
        return CommandLineAction::Error;
    }
    const bool onnx = options->modelPath.size() >= 5 &&
                      options->modelPath.compare(options->modelPath.size() - 5, 5, ".onnx") == 0;
    if (!onnx && (!options->dims.empty() || !options->inputs.empty() || !options->outputDir.empty() ||
                  options->dumpGraph || options->compareOrt || options->allowHalfPrecision)) {
        *error = "--dim, --input, --output-dir, --dump-graph, --compare-ort and --allow-half-precision apply to ONNX "
                 "models (MODEL.onnx); a JSON model gives a dispatchable \"executionFlags\".";
        return CommandLineAction::Error;
    }
    if (options->check && !options->compareAdapters[0].empty()) {
        *error = "--check and --compare-adapters are two different runs; give one.";
        return CommandLineAction::Error;
    }
    if (options->modelPath.empty()) {
        *error = "no model given (dmlrun MODEL.json; dmlrun --help lists the options).";
        return CommandLineAction::Error;
    }
    return CommandLineAction::Run;
}

}  // namespace dmlrun
