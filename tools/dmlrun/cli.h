// dmlrun's command line.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace dmlrun {

struct Options {
    std::string modelPath;
    std::string adapter;          // "cpu", "cuda", "cuda:N"; empty: FreeDML's default choice
    uint32_t iterations = 1;      // dispatches per dispatch command
    bool printAll = false;        // print every resource at the end
    bool quiet = false;           // only print commands' output and errors
    bool verbose = false;         // steps and every FreeDML message
    bool debug = false;           // the D3D12 and DirectML debug layers
    uint64_t maxMemoryMiB = 4096;
    // ONNX models only.
    std::map<std::string, uint64_t> dims;                      // --dim NAME=VALUE
    std::vector<std::pair<std::string, std::string>> inputs;   // --input NAME=FILE.npy
    std::string outputDir;                                     // --output-dir DIR
    uint64_t seed = 0;                                         // --seed N (random inputs)
    bool dumpGraph = false;                                    // --dump-graph
    bool compareOrt = false;                                   // --compare-ort
    bool allowHalfPrecision = false;                           // --allow-half-precision
    // --check: replay a capture and compare every output with the captured one, bit for bit.
    bool check = false;
    // --compare-adapters A,B: run the model on both and compare each dispatch's outputs.
    std::string compareAdapters[2];
    // --tolerance X: with --compare-adapters, an element differs when both its absolute and its
    // relative difference pass X (default 0: any difference).
    double tolerance = 0;
    // Set by --check and --compare-adapters: print and writeFile commands do not run.
    bool dispatchesOnly = false;
};

enum class CommandLineAction { Run, Help, Version, ListOperators, ListOnnxOperators, ListAdapters, Error };

// `error` receives a sentence for CommandLineAction::Error.
CommandLineAction ParseCommandLine(int argc, const char* const* argv, Options* options, std::string* error);
const char* UsageText();

}  // namespace dmlrun
