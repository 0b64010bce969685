#include "values.h"

#include <freedml/helpers.h>

#include <cctype>
#include <cfloat>
#include <cmath>
#include <cstring>
#include <limits>
#include <optional>
#include <string>

#include "dml/tensor.h"

namespace dmlrun {

namespace {

constexpr const char* kDataTypePrefix = "DML_TENSOR_DATA_TYPE_";
// Every value a DML_TENSOR_DATA_TYPE can hold (its enumerators span 0..13, so 4 bits); looking up
// names beyond it would form enum values the type cannot represent.
constexpr int kDataTypeValues = 16;

bool IsKnownDataTypeName(const char* name) { return std::strncmp(name, "DML_TENSOR_DATA_TYPE(", 21) != 0; }

bool IsSignedType(DML_TENSOR_DATA_TYPE type) {
    return type == DML_TENSOR_DATA_TYPE_INT8 || type == DML_TENSOR_DATA_TYPE_INT16 ||
           type == DML_TENSOR_DATA_TYPE_INT32 || type == DML_TENSOR_DATA_TYPE_INT64;
}

std::string Lower(std::string text) {
    for (char& c : text) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return text;
}

// A JSON number or float keyword as a double; nullopt when it is neither.
std::optional<double> AsDouble(const Json& value) {
    if (value.is_number()) return value.get<double>();
    if (value.is_string()) {
        std::string text = Lower(value.get<std::string>());
        if (text == "nan") return std::numeric_limits<double>::quiet_NaN();
        if (text == "inf" || text == "+inf" || text == "infinity") return std::numeric_limits<double>::infinity();
        if (text == "-inf" || text == "-infinity") return -std::numeric_limits<double>::infinity();
    }
    return std::nullopt;
}

double ParseFloating(const Json& value, const JsonPath& path, const char* typeName) {
    std::optional<double> number = AsDouble(value);
    if (!number) {
        throw ModelError(path, std::string("expected a number (or \"nan\", \"inf\", \"-inf\") for ") + typeName +
                                   ", found " + DescribeValue(value) + ".");
    }
    return *number;
}

// An integer in [minimum, maximum]: a JSON integer, or a float with an integral value.
template <class T>
T ParseInteger(const Json& value, const JsonPath& path, const char* typeName) {
    constexpr auto minimum = std::numeric_limits<T>::min();
    constexpr auto maximum = std::numeric_limits<T>::max();
    auto rangeError = [&]() {
        return ModelError(path, "expected an integer from " + std::to_string(minimum) + " to " +
                                    std::to_string(maximum) + " for " + typeName + ", found " + DescribeValue(value) +
                                    ".");
    };
    if (value.is_number_unsigned()) {
        uint64_t v = value.get<uint64_t>();
        if (v > static_cast<uint64_t>(maximum)) throw rangeError();
        return static_cast<T>(v);
    }
    if (value.is_number_integer()) {
        int64_t v = value.get<int64_t>();
        if (v < 0 && !std::numeric_limits<T>::is_signed) throw rangeError();
        if (v < 0 && v < static_cast<int64_t>(minimum)) throw rangeError();
        if (v > 0 && static_cast<uint64_t>(v) > static_cast<uint64_t>(maximum)) throw rangeError();
        return static_cast<T>(v);
    }
    if (value.is_number_float()) {
        double v = value.get<double>();
        // -2^63 and 2^64 bound the conversions below; beyond them (or fractional) is an error.
        if (std::isfinite(v) && v == std::floor(v) && v >= static_cast<double>(minimum) && v < 18446744073709551616.0 &&
            v <= static_cast<double>(maximum)) {
            if (v < 0) return static_cast<T>(static_cast<int64_t>(v));
            uint64_t u = static_cast<uint64_t>(v);
            if (u <= static_cast<uint64_t>(maximum)) return static_cast<T>(u);
        }
        throw rangeError();
    }
    throw rangeError();
}

float ToFloat32(double v, const JsonPath& path, const Json& value) {
    // Beyond FLT_MAX plus half a unit in the last place a finite value would round to infinity;
    // say so instead of letting the conversion do it silently.
    if (std::isfinite(v) && std::fabs(v) >= 3.4028235677973366e38) {
        throw ModelError(path, "expected a FLOAT32 value (magnitude at most 3.40282e+38), found " +
                                   DescribeValue(value) + ".");
    }
    if (std::isfinite(v) && std::fabs(v) > FLT_MAX) return v < 0 ? -FLT_MAX : FLT_MAX;
    return static_cast<float>(v);
}

uint16_t ToFloat16(double v, const JsonPath& path, const Json& value) {
    if (std::isfinite(v) && std::fabs(v) >= 65520.0) {
        throw ModelError(path, "expected a FLOAT16 value (magnitude at most 65504), found " + DescribeValue(value) + ".");
    }
    return FloatToHalf(static_cast<float>(v));
}

template <class T>
void Append(std::vector<uint8_t>* out, T value) {
    size_t at = out->size();
    out->resize(at + sizeof(T));
    std::memcpy(out->data() + at, &value, sizeof(T));
}

}  // namespace

uint16_t FloatToHalf(float value) {
    uint32_t f;
    std::memcpy(&f, &value, sizeof(f));
    const uint16_t sign = static_cast<uint16_t>((f >> 16) & 0x8000);
    const uint32_t magnitude = f & 0x7FFFFFFF;
    if (magnitude >= 0x7F800000) {  // infinity or NaN (a NaN stays a quiet NaN)
        return static_cast<uint16_t>(sign | (magnitude > 0x7F800000 ? 0x7E00 : 0x7C00));
    }
    if (magnitude >= 0x477FF000) return static_cast<uint16_t>(sign | 0x7C00);  // 65520 and above round to infinity
    if (magnitude < 0x38800000) {
        // Below 2^-14 the half is subnormal: its bits count units of 2^-24. The scaling by 2^24 is
        // exact, and nearbyint rounds to nearest even (1024 becomes the smallest normal).
        float scaled;
        std::memcpy(&scaled, &magnitude, sizeof(scaled));
        scaled *= 16777216.0f;
        return static_cast<uint16_t>(sign | static_cast<uint16_t>(std::nearbyint(scaled)));
    }
    uint32_t half = ((((magnitude >> 23) - 127 + 15) << 10) | ((magnitude & 0x7FFFFF) >> 13));
    const uint32_t rest = magnitude & 0x1FFF;
    if (rest > 0x1000 || (rest == 0x1000 && (half & 1))) ++half;  // a carry moves into the exponent, as it should
    return static_cast<uint16_t>(sign | half);
}

float HalfToFloat(uint16_t bits) {
    const uint32_t sign = static_cast<uint32_t>(bits & 0x8000) << 16;
    const uint32_t exponent = (bits >> 10) & 0x1F;
    const uint32_t mantissa = bits & 0x3FF;
    if (exponent == 0) {
        float v = std::ldexp(static_cast<float>(mantissa), -24);
        return sign ? -v : v;
    }
    uint32_t f = exponent == 31 ? (sign | 0x7F800000 | (mantissa << 13))
                                : (sign | ((exponent - 15 + 127) << 23) | (mantissa << 13));
    float out;
    std::memcpy(&out, &f, sizeof(out));
    return out;
}

DML_TENSOR_DATA_TYPE ParseDataType(const Json& value, const JsonPath& path) {
    // The enumerators are small consecutive values; FreeDML's DataTypeName names each one.
    if (value.is_string()) {
        std::string text = value.get<std::string>();
        if (text.rfind(kDataTypePrefix, 0) == 0) text = text.substr(std::strlen(kDataTypePrefix));
        for (int v = 0; v < kDataTypeValues; ++v) {
            const char* name = freedml::dml::DataTypeName(static_cast<DML_TENSOR_DATA_TYPE>(v));
            if (IsKnownDataTypeName(name) && text == name) return static_cast<DML_TENSOR_DATA_TYPE>(v);
        }
    }
    std::string names;
    for (int v = 0; v < kDataTypeValues; ++v) {
        const char* name = freedml::dml::DataTypeName(static_cast<DML_TENSOR_DATA_TYPE>(v));
        if (!IsKnownDataTypeName(name)) continue;
        names += names.empty() ? "" : ", ";
        names += name;
    }
    throw ModelError(path, "expected a DML_TENSOR_DATA_TYPE name (" + names + ", with or without the prefix " +
                               kDataTypePrefix + "), found " + DescribeValue(value) + ".");
}

uint32_t ValueSizeInBytes(DML_TENSOR_DATA_TYPE type) { return freedml::TensorElementSizeInBytes(type); }

void AppendValue(DML_TENSOR_DATA_TYPE type, const Json& value, const JsonPath& path, std::vector<uint8_t>* out) {
    const char* name = freedml::dml::DataTypeName(type);
    switch (type) {
        case DML_TENSOR_DATA_TYPE_FLOAT16: Append(out, ToFloat16(ParseFloating(value, path, name), path, value)); break;
        case DML_TENSOR_DATA_TYPE_FLOAT32: Append(out, ToFloat32(ParseFloating(value, path, name), path, value)); break;
        case DML_TENSOR_DATA_TYPE_FLOAT64: Append(out, ParseFloating(value, path, name)); break;
        case DML_TENSOR_DATA_TYPE_UINT8: Append(out, ParseInteger<uint8_t>(value, path, name)); break;
        case DML_TENSOR_DATA_TYPE_UINT16: Append(out, ParseInteger<uint16_t>(value, path, name)); break;
        case DML_TENSOR_DATA_TYPE_UINT32: Append(out, ParseInteger<uint32_t>(value, path, name)); break;
        case DML_TENSOR_DATA_TYPE_UINT64: Append(out, ParseInteger<uint64_t>(value, path, name)); break;
        case DML_TENSOR_DATA_TYPE_INT8: Append(out, ParseInteger<int8_t>(value, path, name)); break;
        case DML_TENSOR_DATA_TYPE_INT16: Append(out, ParseInteger<int16_t>(value, path, name)); break;
        case DML_TENSOR_DATA_TYPE_INT32: Append(out, ParseInteger<int32_t>(value, path, name)); break;
        case DML_TENSOR_DATA_TYPE_INT64: Append(out, ParseInteger<int64_t>(value, path, name)); break;
        default:
            throw ModelError(path, std::string("values of data type ") + name + " cannot be written by a model.");
    }
}

float ParseFloat32(const Json& value, const JsonPath& path) {
    return ToFloat32(ParseFloating(value, path, "a FLOAT field"), path, value);
}
uint32_t ParseUInt32(const Json& value, const JsonPath& path) { return ParseInteger<uint32_t>(value, path, "a UINT"); }
int32_t ParseInt32(const Json& value, const JsonPath& path) { return ParseInteger<int32_t>(value, path, "an INT"); }
uint64_t ParseUInt64(const Json& value, const JsonPath& path) { return ParseInteger<uint64_t>(value, path, "a UINT64"); }

bool ParseBool(const Json& value, const JsonPath& path) {
    if (value.is_boolean()) return value.get<bool>();
    if (value.is_number_unsigned() && value.get<uint64_t>() <= 1) return value.get<uint64_t>() == 1;
    throw ModelError(path, "expected true or false, found " + DescribeValue(value) + ".");
}

void AppendConstant(DML_TENSOR_DATA_TYPE type, const Json& value, uint64_t count, const JsonPath& path,
                    std::vector<uint8_t>* out) {
    std::vector<uint8_t> one;
    AppendValue(type, value, path, &one);
    out->reserve(out->size() + one.size() * count);
    for (uint64_t i = 0; i < count; ++i) out->insert(out->end(), one.begin(), one.end());
}

void AppendRandom(DML_TENSOR_DATA_TYPE type, uint64_t seed, uint64_t count, std::vector<uint8_t>* out) {
    uint64_t state = seed;
    auto next = [&state]() {
        uint64_t z = (state += 0x9E3779B97F4A7C15ull);
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
        return z ^ (z >> 31);
    };
    const uint32_t size = ValueSizeInBytes(type);
    out->reserve(out->size() + size * count);
    for (uint64_t i = 0; i < count; ++i) {
        const uint64_t bits = next();
        const double unit = static_cast<double>(bits >> 11) * 0x1.0p-53;  // [0, 1)
        const int64_t small = static_cast<int64_t>(bits >> 60);           // [0, 16)
        uint8_t bytes[8] = {};
        switch (type) {
            case DML_TENSOR_DATA_TYPE_FLOAT32: {
                const float v = static_cast<float>(unit * 2 - 1);
                std::memcpy(bytes, &v, 4);
                break;
            }
            case DML_TENSOR_DATA_TYPE_FLOAT64: {
                const double v = unit * 2 - 1;
                std::memcpy(bytes, &v, 8);
                break;
            }
            case DML_TENSOR_DATA_TYPE_FLOAT16: {
                const uint16_t v = FloatToHalf(static_cast<float>(unit * 2 - 1));
                std::memcpy(bytes, &v, 2);
                break;
            }
            case DML_TENSOR_DATA_TYPE_INT8:
            case DML_TENSOR_DATA_TYPE_INT16:
            case DML_TENSOR_DATA_TYPE_INT32:
            case DML_TENSOR_DATA_TYPE_INT64: {
                const int64_t v = small - 8;
                std::memcpy(bytes, &v, 8);  // little-endian: the low bytes are the narrower value
                break;
            }
            default: {
                const uint64_t v = static_cast<uint64_t>(small);
                std::memcpy(bytes, &v, 8);
                break;
            }
        }
        out->insert(out->end(), bytes, bytes + size);
    }
}

void AppendSequence(DML_TENSOR_DATA_TYPE type, const Json& start, const Json& delta, uint64_t count,
                    const JsonPath& startPath, const JsonPath& deltaPath, std::vector<uint8_t>* out) {
    std::vector<uint8_t> first, step;
    AppendValue(type, start, startPath, &first);
    AppendValue(type, delta, deltaPath, &step);
    const size_t size = first.size();
    out->reserve(out->size() + size * count);
    if (type == DML_TENSOR_DATA_TYPE_FLOAT16) {
        uint16_t value, increment;
        std::memcpy(&value, first.data(), 2);
        std::memcpy(&increment, step.data(), 2);
        for (uint64_t i = 0; i < count; ++i) {
            Append(out, value);
            value = FloatToHalf(static_cast<float>(double(HalfToFloat(value)) + HalfToFloat(increment)));
        }
    } else if (type == DML_TENSOR_DATA_TYPE_FLOAT32) {
        float value, increment;
        std::memcpy(&value, first.data(), 4);
        std::memcpy(&increment, step.data(), 4);
        for (uint64_t i = 0; i < count; ++i, value += increment) Append(out, value);
    } else if (type == DML_TENSOR_DATA_TYPE_FLOAT64) {
        double value, increment;
        std::memcpy(&value, first.data(), 8);
        std::memcpy(&increment, step.data(), 8);
        for (uint64_t i = 0; i < count; ++i, value += increment) Append(out, value);
    } else {
        // Integers wrap around in the element's width: add in 64 bits, keep the low bytes
        // (little-endian), sign-extending the start and step of signed types first.
        auto widen = [&](const std::vector<uint8_t>& bytes) {
            uint64_t v = 0;
            std::memcpy(&v, bytes.data(), size);
            if (IsSignedType(type) && size < 8 && (bytes[size - 1] & 0x80)) v |= ~uint64_t(0) << (8 * size);
            return v;
        };
        uint64_t value = widen(first);
        const uint64_t increment = widen(step);
        for (uint64_t i = 0; i < count; ++i, value += increment) {
            size_t at = out->size();
            out->resize(at + size);
            std::memcpy(out->data() + at, &value, size);
        }
    }
}

}  // namespace dmlrun
