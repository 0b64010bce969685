#include "npy.h"

#include <freedml/helpers.h>

#include <cstring>

namespace dmlrun {

namespace {

struct TypeCode {
    const char* code;  // numpy's descr without the byte-order character
    DML_TENSOR_DATA_TYPE type;
};

constexpr TypeCode kTypeCodes[] = {
    {"f2", DML_TENSOR_DATA_TYPE_FLOAT16}, {"f4", DML_TENSOR_DATA_TYPE_FLOAT32}, {"f8", DML_TENSOR_DATA_TYPE_FLOAT64},
    {"u1", DML_TENSOR_DATA_TYPE_UINT8},   {"u2", DML_TENSOR_DATA_TYPE_UINT16},  {"u4", DML_TENSOR_DATA_TYPE_UINT32},
    {"u8", DML_TENSOR_DATA_TYPE_UINT64},  {"i1", DML_TENSOR_DATA_TYPE_INT8},    {"i2", DML_TENSOR_DATA_TYPE_INT16},
    {"i4", DML_TENSOR_DATA_TYPE_INT32},   {"i8", DML_TENSOR_DATA_TYPE_INT64},   {"b1", DML_TENSOR_DATA_TYPE_UINT8},
};

[[noreturn]] void Fail(const std::string& message) { throw std::runtime_error(message); }

// The text of the value of 'key' in the header dictionary, up to the next top-level comma.
std::string DictValue(const std::string& header, const std::string& key) {
    size_t at = header.find("'" + key + "'");
    if (at == std::string::npos) Fail("the .npy header has no '" + key + "' entry.");
    at = header.find(':', at);
    if (at == std::string::npos) Fail("the .npy header's '" + key + "' entry has no value.");
    ++at;
    while (at < header.size() && header[at] == ' ') ++at;
    size_t end = at;
    int depth = 0;
    while (end < header.size()) {
        char c = header[end];
        if (c == '(') ++depth;
        if (c == ')') --depth;
        if ((c == ',' && depth == 0) || c == '}' || depth < 0) break;
        ++end;
    }
    if (depth > 0 || end >= header.size()) Fail("the .npy header's '" + key + "' entry is not terminated.");
    if (header[end] == ')') ++end;  // keep a tuple's closing parenthesis
    return header.substr(at, end - at);
}

}  // namespace

NpyArray ReadNpy(const std::vector<uint8_t>& file, uint64_t maxDataBytes) {
    static const uint8_t kMagic[] = {0x93, 'N', 'U', 'M', 'P', 'Y'};
    if (file.size() < 10 || std::memcmp(file.data(), kMagic, sizeof(kMagic)) != 0) {
        Fail("it is not a .npy file (it lacks the \\x93NUMPY signature).");
    }
    const uint8_t major = file[6];
    size_t headerLength, headerStart;
    if (major == 1) {
        headerLength = file[8] | (size_t(file[9]) << 8);
        headerStart = 10;
    } else if (major == 2 || major == 3) {
        if (file.size() < 12) Fail("the .npy file ends inside its header.");
        headerLength = file[8] | (size_t(file[9]) << 8) | (size_t(file[10]) << 16) | (size_t(file[11]) << 24);
        headerStart = 12;
    } else {
        Fail("its .npy format version " + std::to_string(major) + " is not 1, 2 or 3.");
    }
    if (headerLength > file.size() - headerStart) Fail("the .npy file ends inside its header.");
    const std::string header(reinterpret_cast<const char*>(file.data() + headerStart), headerLength);

    NpyArray array;
    std::string descr = DictValue(header, "descr");
    if (descr.size() != 5 || (descr.front() != '\'' && descr.front() != '"')) {
        Fail("its dtype " + descr + " is not one dmlrun reads (float16/32/64, (u)int8/16/32/64, bool).");
    }
    const char order = descr[1];
    const std::string code = descr.substr(2, 2);
    for (const auto& entry : kTypeCodes) {
        if (code == entry.code) array.dataType = entry.type;
    }
    const bool singleByte = code[1] == '1';
    if (array.dataType == DML_TENSOR_DATA_TYPE_UNKNOWN || (order != '<' && order != '|' && !(order == '=' || singleByte))) {
        Fail("its dtype " + descr + " is not one dmlrun reads (little-endian float16/32/64, (u)int8/16/32/64, bool).");
    }

    std::string shape = DictValue(header, "shape");
    if (shape.size() < 2 || shape.front() != '(' || shape.back() != ')') Fail("its shape " + shape + " is not a tuple.");
    uint64_t elements = 1;
    bool overflow = false;
    for (size_t i = 1; i + 1 < shape.size();) {
        while (i + 1 < shape.size() && (shape[i] == ' ' || shape[i] == ',')) ++i;
        if (i + 1 >= shape.size()) break;
        uint64_t dimension = 0;
        size_t digits = 0;
        while (i + 1 < shape.size() && shape[i] >= '0' && shape[i] <= '9') {
            if (dimension > (~uint64_t(0) - 9) / 10) overflow = true;
            dimension = dimension * 10 + uint64_t(shape[i] - '0');
            ++i;
            ++digits;
        }
        while (i + 1 < shape.size() && shape[i] == 'L') ++i;  // Python 2 long suffix
        if (digits == 0) Fail("its shape " + shape + " is not a tuple of integers.");
        if (!freedml::detail::CheckedMultiply(elements, dimension, &elements)) overflow = true;
        array.shape.push_back(dimension);
        if (array.shape.size() > 32) Fail("its shape has more than 32 dimensions.");
    }
    const std::string fortran = DictValue(header, "fortran_order");
    uint64_t dataBytes = 0;
    const uint32_t elementSize = freedml::TensorElementSizeInBytes(array.dataType);
    if (overflow || !freedml::detail::CheckedMultiply(elements, elementSize, &dataBytes) || dataBytes > maxDataBytes) {
        Fail("its shape " + shape + " holds more data than dmlrun accepts (" + std::to_string(maxDataBytes) +
             " bytes; see --max-memory).");
    }
    if (fortran.rfind("True", 0) == 0 && array.shape.size() > 1) {
        Fail("it is stored in Fortran order; save it in C order (numpy.ascontiguousarray).");
    }
    const size_t dataStart = headerStart + headerLength;
    if (file.size() - dataStart < dataBytes) {
        Fail("it holds " + std::to_string(file.size() - dataStart) + " bytes of data; its shape " + shape + " needs " +
             std::to_string(dataBytes) + ".");
    }
    array.data.assign(file.begin() + dataStart, file.begin() + dataStart + dataBytes);
    return array;
}

std::vector<uint8_t> WriteNpy(DML_TENSOR_DATA_TYPE dataType, const std::vector<uint64_t>& shape,
                              const std::vector<uint8_t>& data) {
    std::string descr = "|u1";
    for (const auto& entry : kTypeCodes) {
        if (entry.type == dataType && std::strcmp(entry.code, "b1") != 0) {
            descr = std::string(entry.code[1] == '1' ? "|" : "<") + entry.code;
            break;
        }
    }
    std::string shapeText = "(";
    for (size_t i = 0; i < shape.size(); ++i) shapeText += std::to_string(shape[i]) + (shape.size() == 1 ? "," : i + 1 < shape.size() ? ", " : "");
    shapeText += ")";
    std::string header = "{'descr': '" + descr + "', 'fortran_order': False, 'shape': " + shapeText + ", }";
    // The magic, version and length take 10 bytes; numpy pads the header with spaces and a newline
    // so that the data starts at a multiple of 64.
    size_t total = 10 + header.size() + 1;
    header.append((64 - total % 64) % 64, ' ');
    header += '\n';
    static const uint8_t kMagic[] = {0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0};
    std::vector<uint8_t> file(10 + header.size() + data.size());
    std::memcpy(file.data(), kMagic, sizeof(kMagic));
    file[8] = static_cast<uint8_t>(header.size() & 0xFF);
    file[9] = static_cast<uint8_t>(header.size() >> 8);
    std::memcpy(file.data() + 10, header.data(), header.size());
    if (!data.empty()) std::memcpy(file.data() + 10 + header.size(), data.data(), data.size());
    return file;
}

}  // namespace dmlrun
