// What dmlrun writes to standard output, in DxDispatch's formats, so that scripts written for
// DxDispatch's output keep working:
//   Resource 'Out': 1, 2.5, -3
//   Dispatch 'gemm': 10 iterations, 0.0123 ms median (CPU)
// Numbers are printed as C++ streams print them by default (printf's %g, six significant digits),
// which is what DxDispatch does.
#pragma once

#include <DirectML.h>

#include <cstdint>
#include <string>
#include <vector>

namespace dmlrun {

// One element of `type` at `data`: "1", "2.5", "-3", "nan", "1e+06". (U)INT8 print as numbers,
// where DxDispatch's streams would print characters.
std::string FormatElement(DML_TENSOR_DATA_TYPE type, const uint8_t* data);

// "Resource 'NAME': v0, v1, ..." (no newline). Verbose: "Resource 'NAME':\n" and one line per
// element, "[index] value (0xBITS)", each ending in a newline, as DxDispatch's verbose print.
std::string FormatResource(const std::string& name, DML_TENSOR_DATA_TYPE type, const uint8_t* data, uint64_t count,
                           bool verbose);

// Timing statistics of the dispatches of one command, in milliseconds.
struct TimingStats {
    size_t samples = 0;
    double minimum = 0, median = 0, maximum = 0;
};
// The statistics of the samples after the first (all of them when there is only one): the first
// dispatch pays for cold caches. The median is the upper middle sample, as DxDispatch's.
TimingStats ComputeTimingStats(const std::vector<double>& milliseconds);
// "Dispatch 'NAME': N iterations, 0.1234 ms median (CPU)", plus ", 0.1000 ms min, 0.2000 ms max"
// when more than one sample was measured after the first.
std::string FormatDispatchTiming(const std::string& name, size_t iterations, const TimingStats& stats);

}  // namespace dmlrun
