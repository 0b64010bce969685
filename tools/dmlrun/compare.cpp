#include "compare.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <map>

#include "executor.h"
#include "values.h"

namespace dmlrun {

namespace {

constexpr int kExitDiffer = 4;

double ElementValue(DML_TENSOR_DATA_TYPE type, const uint8_t* p) {
    switch (type) {
        case DML_TENSOR_DATA_TYPE_FLOAT32: { float v; std::memcpy(&v, p, 4); return v; }
        case DML_TENSOR_DATA_TYPE_FLOAT64: { double v; std::memcpy(&v, p, 8); return v; }
        case DML_TENSOR_DATA_TYPE_FLOAT16: { uint16_t v; std::memcpy(&v, p, 2); return HalfToFloat(v); }
        case DML_TENSOR_DATA_TYPE_INT8: return static_cast<int8_t>(*p);
        case DML_TENSOR_DATA_TYPE_UINT8: return *p;
        case DML_TENSOR_DATA_TYPE_INT16: { int16_t v; std::memcpy(&v, p, 2); return v; }
        case DML_TENSOR_DATA_TYPE_UINT16: { uint16_t v; std::memcpy(&v, p, 2); return v; }
        case DML_TENSOR_DATA_TYPE_INT32: { int32_t v; std::memcpy(&v, p, 4); return v; }
        case DML_TENSOR_DATA_TYPE_UINT32: { uint32_t v; std::memcpy(&v, p, 4); return v; }
        case DML_TENSOR_DATA_TYPE_INT64: { int64_t v; std::memcpy(&v, p, 8); return static_cast<double>(v); }
        case DML_TENSOR_DATA_TYPE_UINT64: { uint64_t v; std::memcpy(&v, p, 8); return static_cast<double>(v); }
        default: return *p;
    }
}

std::string Number(double value) {
    char text[40];
    std::snprintf(text, sizeof(text), "%.9g", value);
    return text;
}

std::string CommandName(const Model& model, size_t index, const DispatchCommand& command) {
    const Dispatchable& dispatchable = model.dispatchables[command.dispatchable];
    return "commands[" + std::to_string(index) + "] '" + dispatchable.name + "' (" + dispatchable.Binds().Describe() + ")";
}

}  // namespace

Difference CompareElements(DML_TENSOR_DATA_TYPE type, const std::vector<uint8_t>& a, const std::vector<uint8_t>& b,
                           double tolerance) {
    Difference d;
    const uint32_t size = ValueSizeInBytes(type) ? ValueSizeInBytes(type) : 1;
    const size_t bytes = std::min(a.size(), b.size());
    d.elements = bytes / size;
    for (uint64_t i = 0; i < d.elements; ++i) {
        const uint8_t* pa = a.data() + i * size;
        const uint8_t* pb = b.data() + i * size;
        if (std::memcmp(pa, pb, size) == 0) continue;
        const double va = ElementValue(type, pa), vb = ElementValue(type, pb);
        if (std::isnan(va) && std::isnan(vb)) continue;
        double absolute = std::fabs(va - vb);
        if (std::isnan(absolute)) absolute = INFINITY;  // one NaN, or infinities of opposite sign
        const double scale = std::max(std::fabs(va), std::fabs(vb));
        const double relative = scale > 0 ? absolute / scale : 0;
        if (d.differing++ == 0) {
            d.first = i;
            d.firstA = va;
            d.firstB = vb;
        }
        if (absolute > tolerance && relative > tolerance) ++d.beyond;
        d.maxAbsolute = std::max(d.maxAbsolute, absolute);
        d.maxRelative = std::max(d.maxRelative, relative);
    }
    if (a.size() != b.size()) {
        d.differing += 1;
        d.beyond += 1;
    }
    return d;
}

std::string DescribeDifference(const Difference& d, const std::string& nameA, const std::string& nameB) {
    if (d.differing == 0) return "identical (" + std::to_string(d.elements) + " elements)";
    return std::to_string(d.differing) + " of " + std::to_string(d.elements) + " elements differ" +
           (d.beyond != d.differing ? " (" + std::to_string(d.beyond) + " beyond the tolerance)" : "") +
           ": largest absolute difference " + Number(d.maxAbsolute) + ", relative " + Number(d.maxRelative) +
           "; first at element " + std::to_string(d.first) + " (" + nameA + " " + Number(d.firstA) + ", " + nameB + " " +
           Number(d.firstB) + ")";
}

int CheckCapture(const Model& model, const Options& options) {
    if (model.captureVersion == 0) {
        throw RunError({}, "this model is not a FreeDML capture (it has no \"$capture\"); --check replays captures "
                           "(FREEDML_CAPTURE=DIR writes DIR/model.json).", true);
    }
    size_t compared = 0, matching = 0, skipped = 0;
    Options replay = options;
    replay.dispatchesOnly = true;
    RunModel(model, replay, [&](size_t index, const DispatchCommand& command, std::vector<DispatchOutput> outputs) {
        const std::string name = CommandName(model, index, command);
        // Outputs computed from data the capture left out cannot be compared.
        std::string leftOut;
        for (const Binding& binding : command.bindings) {
            for (const BoundRange& range : binding.ranges) {
                if (model.resources[range.resource].random && leftOut.find(binding.bindPoint) == std::string::npos) {
                    leftOut += (leftOut.empty() ? "" : ", ") + binding.bindPoint;
                }
            }
        }
        for (const ExpectedOutput& expected : command.expected) {
            const DispatchOutput* actual = nullptr;
            for (const auto& output : outputs) {
                if (output.bindPoint == expected.bindPoint && output.arrayIndex == expected.arrayIndex) actual = &output;
            }
            if (!actual) continue;
            if (!expected.given || !leftOut.empty()) {
                ++skipped;
                std::printf("%s %s: not compared (%s)\n", name.c_str(), actual->Name().c_str(),
                            !leftOut.empty() ? ("the capture left out " + leftOut).c_str() : "the capture left this output out");
                continue;
            }
            ++compared;
            const Difference d = CompareElements(actual->dataType, expected.bytes, actual->bytes, 0);
            if (d.differing == 0) {
                ++matching;
                if (!options.quiet) std::printf("%s %s: matches the capture bit for bit\n", name.c_str(), actual->Name().c_str());
            } else {
                std::printf("%s %s: differs from the capture: %s\n", name.c_str(), actual->Name().c_str(),
                            DescribeDifference(d, "captured", "replayed").c_str());
            }
        }
    });
    std::printf("%zu of %zu captured outputs match bit for bit%s.\n", matching, compared,
                skipped ? (", " + std::to_string(skipped) + " not compared").c_str() : "");
    return matching == compared ? 0 : kExitDiffer;
}

int CompareAdapters(const Model& model, const Options& options) {
    struct Run {
        std::map<size_t, std::vector<DispatchOutput>> outputs;
    } runs[2];
    for (int r = 0; r < 2; ++r) {
        Options one = options;
        one.adapter = options.compareAdapters[r];
        one.quiet = true;
        one.dispatchesOnly = true;
        RunModel(model, one, [&](size_t index, const DispatchCommand&, std::vector<DispatchOutput> outputs) {
            runs[r].outputs[index] = std::move(outputs);
        });
    }
    const std::string& a = options.compareAdapters[0];
    const std::string& b = options.compareAdapters[1];
    std::string firstDisagreement;
    size_t dispatches = 0;
    for (const auto& [index, outputsA] : runs[0].outputs) {
        const auto& command = std::get<DispatchCommand>(model.commands[index]);
        const std::vector<DispatchOutput>& outputsB = runs[1].outputs[index];
        const std::string name = CommandName(model, index, command);
        ++dispatches;
        for (size_t k = 0; k < outputsA.size() && k < outputsB.size(); ++k) {
            const Difference d = CompareElements(outputsA[k].dataType, outputsA[k].bytes, outputsB[k].bytes, options.tolerance);
            std::printf("%s %s: %s\n", name.c_str(), outputsA[k].Name().c_str(), DescribeDifference(d, a, b).c_str());
            if (d.beyond && firstDisagreement.empty()) firstDisagreement = name + " " + outputsA[k].Name();
        }
    }
    if (firstDisagreement.empty()) {
        std::printf("%s and %s agree on all %zu dispatches%s.\n", a.c_str(), b.c_str(), dispatches,
                    options.tolerance > 0 ? (" within " + Number(options.tolerance)).c_str() : "");
        return 0;
    }
    std::printf("The first dispatch where %s and %s disagree: %s.\n", a.c_str(), b.c_str(), firstDisagreement.c_str());
    return kExitDiffer;
}

}  // namespace dmlrun
