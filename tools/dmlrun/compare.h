// --check and --compare-adapters: outputs compared element by element.
#pragma once

#include <DirectML.h>

#include <cstdint>
#include <string>
#include <vector>

#include "cli.h"
#include "model.h"

namespace dmlrun {

struct Difference {
    uint64_t elements = 0;
    uint64_t differing = 0;     // elements whose bits differ (two NaNs agree)
    uint64_t beyond = 0;        // of those, the ones past the tolerance
    uint64_t first = 0;         // the first differing element (when differing > 0)
    double firstA = 0, firstB = 0;
    double maxAbsolute = 0, maxRelative = 0;
};

// `a` and `b` hold elements of `type` (bytes past the last whole element are compared as bytes).
// An element is past `tolerance` when both its absolute and its relative difference exceed it.
Difference CompareElements(DML_TENSOR_DATA_TYPE type, const std::vector<uint8_t>& a, const std::vector<uint8_t>& b,
                           double tolerance);

// "2 of 6 elements differ: largest absolute difference 1, relative 0.5; first at element 3
// (1.5 against 2.5)" or "identical".
std::string DescribeDifference(const Difference& difference, const std::string& nameA, const std::string& nameB);

// Both return the exit status (0 agree, 4 differ); they throw RunError as RunModel does.
int CheckCapture(const Model& model, const Options& options);
int CompareAdapters(const Model& model, const Options& options);

}  // namespace dmlrun
