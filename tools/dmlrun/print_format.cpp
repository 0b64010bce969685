#include "print_format.h"

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <cstring>

#include "values.h"

namespace dmlrun {

namespace {

template <class T>
T Load(const uint8_t* data) {
    T value;
    std::memcpy(&value, data, sizeof(T));
    return value;
}

std::string FormatFloat(double value) {
    char buffer[48];
    std::snprintf(buffer, sizeof(buffer), "%g", value);
    return buffer;
}

}  // namespace

std::string FormatElement(DML_TENSOR_DATA_TYPE type, const uint8_t* data) {
    switch (type) {
        case DML_TENSOR_DATA_TYPE_FLOAT16: return FormatFloat(HalfToFloat(Load<uint16_t>(data)));
        case DML_TENSOR_DATA_TYPE_FLOAT32: return FormatFloat(Load<float>(data));
        case DML_TENSOR_DATA_TYPE_FLOAT64: return FormatFloat(Load<double>(data));
        case DML_TENSOR_DATA_TYPE_UINT8: return std::to_string(Load<uint8_t>(data));
        case DML_TENSOR_DATA_TYPE_UINT16: return std::to_string(Load<uint16_t>(data));
        case DML_TENSOR_DATA_TYPE_UINT32: return std::to_string(Load<uint32_t>(data));
        case DML_TENSOR_DATA_TYPE_UINT64: return std::to_string(Load<uint64_t>(data));
        case DML_TENSOR_DATA_TYPE_INT8: return std::to_string(Load<int8_t>(data));
        case DML_TENSOR_DATA_TYPE_INT16: return std::to_string(Load<int16_t>(data));
        case DML_TENSOR_DATA_TYPE_INT32: return std::to_string(Load<int32_t>(data));
        case DML_TENSOR_DATA_TYPE_INT64: return std::to_string(Load<int64_t>(data));
        default: return "?";
    }
}

std::string FormatResource(const std::string& name, DML_TENSOR_DATA_TYPE type, const uint8_t* data, uint64_t count,
                           bool verbose) {
    const uint32_t size = ValueSizeInBytes(type);
    std::string out = "Resource '" + name + "':";
    if (!verbose) {
        out += ' ';
        for (uint64_t i = 0; i < count; ++i) {
            if (i) out += ", ";
            out += FormatElement(type, data + i * size);
        }
        return out;
    }
    out += '\n';
    const int indexWidth = static_cast<int>(std::to_string(count).size());
    for (uint64_t i = 0; i < count; ++i) {
        uint64_t bits = 0;
        std::memcpy(&bits, data + i * size, size);
        char line[96];
        std::snprintf(line, sizeof(line), "[%*" PRIu64 "] %s (0x%*" PRIX64 ")\n", indexWidth, i,
                      FormatElement(type, data + i * size).c_str(), static_cast<int>(size * 2), bits);
        out += line;
    }
    return out;
}

TimingStats ComputeTimingStats(const std::vector<double>& milliseconds) {
    TimingStats stats;
    if (milliseconds.empty()) return stats;
    std::vector<double> hot(milliseconds.begin() + (milliseconds.size() > 1 ? 1 : 0), milliseconds.end());
    std::sort(hot.begin(), hot.end());
    stats.samples = hot.size();
    stats.minimum = hot.front();
    stats.median = hot[hot.size() / 2];
    stats.maximum = hot.back();
    return stats;
}

std::string FormatDispatchTiming(const std::string& name, size_t iterations, const TimingStats& stats) {
    char buffer[256];
    std::snprintf(buffer, sizeof(buffer), "%zu iterations, %.4f ms median (CPU)", iterations, stats.median);
    std::string out = "Dispatch '" + name + "': " + buffer;
    if (stats.samples > 1) {
        std::snprintf(buffer, sizeof(buffer), ", %.4f ms min, %.4f ms max (the first iteration excluded)", stats.minimum,
                      stats.maximum);
        out += buffer;
    }
    return out;
}

}  // namespace dmlrun
