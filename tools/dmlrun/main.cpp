// dmlrun: runs a DirectML model described in JSON (the DxDispatch model format), or an ONNX model
// lowered to a DirectML graph, on FreeDML.
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>

#include "cli.h"
#include "compare.h"
#include "executor.h"
#include "json_document.h"
#include "model.h"
#include "onnx_runner.h"

namespace {

constexpr int kExitInvalidModel = 1;
constexpr int kExitUsage = 2;
constexpr int kExitRunFailed = 3;

void ListOperators() {
    std::printf("DirectML operators FreeDML knows (* = runs; the others are known by their desc only):\n");
    for (const auto* schema : freedml::dml::AllSchemas()) {
        std::printf("  %c DML_OPERATOR_%s%s\n", freedml::dml::IsImplemented(*schema) ? '*' : ' ', schema->name,
                    schema->canBeFusedActivation ? " (fusable activation)" : "");
    }
}

int Run(const dmlrun::Options& options) {
    const std::string& path = options.modelPath;
    if (path.size() >= 5 && path.compare(path.size() - 5, 5, ".onnx") == 0) return dmlrun::RunOnnxModel(options);
    std::error_code ignored;
    if (std::filesystem::is_directory(options.modelPath, ignored)) {
        std::fprintf(stderr, "dmlrun: error: cannot read '%s': it is a directory.\n", options.modelPath.c_str());
        return kExitInvalidModel;
    }
    std::ifstream stream(options.modelPath, std::ios::binary);
    if (!stream) {
        std::fprintf(stderr, "dmlrun: error: cannot open '%s'.\n", options.modelPath.c_str());
        return kExitInvalidModel;
    }
    std::string text((std::istreambuf_iterator<char>(stream)), std::istreambuf_iterator<char>());
    if (stream.bad()) {
        std::fprintf(stderr, "dmlrun: error: cannot read '%s'.\n", options.modelPath.c_str());
        return kExitInvalidModel;
    }

    dmlrun::JsonDocument document;
    dmlrun::Model model;
    try {
        document = dmlrun::JsonDocument::Parse(std::move(text));
        dmlrun::ParseOptions parseOptions;
        parseOptions.modelDirectory = std::filesystem::path(options.modelPath).parent_path();
        parseOptions.maxMemoryBytes = options.maxMemoryMiB << 20;
        model = dmlrun::ParseModel(document.Root(), parseOptions);
    } catch (const dmlrun::ModelError& error) {
        std::fprintf(stderr, "dmlrun: error: %s\n", document.Describe(error, options.modelPath).c_str());
        return kExitInvalidModel;
    }

    try {
        if (options.check) return dmlrun::CheckCapture(model, options);
        if (!options.compareAdapters[0].empty()) return dmlrun::CompareAdapters(model, options);
        dmlrun::RunModel(model, options);
    } catch (const dmlrun::RunError& error) {
        dmlrun::ModelError located(error.Path(), error.what());
        std::string where = error.Path().Empty() ? options.modelPath + ": " + error.what()
                                                 : document.Describe(located, options.modelPath);
        std::fprintf(stderr, "dmlrun: error: %s\n", where.c_str());
        return error.ModelIsInvalid() ? kExitInvalidModel : kExitRunFailed;
    }
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    dmlrun::Options options;
    std::string error;
    switch (dmlrun::ParseCommandLine(argc, argv, &options, &error)) {
        case dmlrun::CommandLineAction::Help:
            std::fputs(dmlrun::UsageText(), stdout);
            return 0;
        case dmlrun::CommandLineAction::Version:
            std::printf("dmlrun (FreeDML) 0.1.0\n");
            return 0;
        case dmlrun::CommandLineAction::ListOperators:
            ListOperators();
            return 0;
        case dmlrun::CommandLineAction::ListOnnxOperators:
            dmlrun::ListOnnxOperators();
            return 0;
        case dmlrun::CommandLineAction::ListAdapters:
            return dmlrun::ListAdapters() ? 0 : kExitRunFailed;
        case dmlrun::CommandLineAction::Error:
            std::fprintf(stderr, "dmlrun: %s\n", error.c_str());
            return kExitUsage;
        case dmlrun::CommandLineAction::Run:
            break;
    }
    try {
        return Run(options);
    } catch (const std::exception& unexpected) {
        // Every expected failure is reported above; this is a bug in dmlrun, said plainly.
        std::fprintf(stderr, "dmlrun: internal error: %s\n", unexpected.what());
        return kExitRunFailed;
    }
}
