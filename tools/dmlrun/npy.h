// NumPy .npy files (format versions 1.0 to 3.0, little-endian, C order), read for buffer
// initializers and written by writeFile commands.
#pragma once

#include <DirectML.h>

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace dmlrun {

struct NpyArray {
    DML_TENSOR_DATA_TYPE dataType = DML_TENSOR_DATA_TYPE_UNKNOWN;
    std::vector<uint64_t> shape;
    std::vector<uint8_t> data;  // the elements, packed, little-endian
};

// Throws std::runtime_error with a sentence saying what is wrong with the file's bytes.
// `maxDataBytes` caps the element data a header may announce.
NpyArray ReadNpy(const std::vector<uint8_t>& file, uint64_t maxDataBytes);

// A version 1.0 file of `data` with this type and shape (the product of the shape times the
// element size must be data.size()).
std::vector<uint8_t> WriteNpy(DML_TENSOR_DATA_TYPE dataType, const std::vector<uint64_t>& shape,
                              const std::vector<uint8_t>& data);

}  // namespace dmlrun
