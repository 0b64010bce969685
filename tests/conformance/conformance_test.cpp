// Runs every case of cases/*.json (see README.md) through the public DirectML API, once per
// adapter: CPU always, each CUDA adapter when one is present (otherwise those runs skip and say
// why). Expected values come from the generating scripts, never from FreeDML.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>

#include "desc_builder.h"
#include "dml_fixture.h"  // first: the wsl/ shims before any DirectX header

#include <directx/dxcore.h>

namespace freedml_test {
namespace {

using dmlrun::Json;

// ---- Element encoding, independent of FreeDML's kernels ----------------------------------------

uint16_t FloatToHalf(float value) {
    uint32_t bits;
    std::memcpy(&bits, &value, 4);
    const uint32_t sign = (bits >> 16) & 0x8000u;
    const uint32_t exponent = (bits >> 23) & 0xffu;
    uint32_t mantissa = bits & 0x7fffffu;
    if (exponent == 0xff) return static_cast<uint16_t>(sign | 0x7c00u | (mantissa ? 0x200u : 0));
    int e = static_cast<int>(exponent) - 127 + 15;
    if (e >= 31) return static_cast<uint16_t>(sign | 0x7c00u);
    if (e <= 0) {  // subnormal or zero in half
        if (e < -10) return static_cast<uint16_t>(sign);
        mantissa |= 0x800000u;
        const uint32_t shift = static_cast<uint32_t>(14 - e);
        uint32_t half = mantissa >> shift;
        const uint32_t rest = mantissa & ((1u << shift) - 1), halfway = 1u << (shift - 1);
        if (rest > halfway || (rest == halfway && (half & 1))) ++half;
        return static_cast<uint16_t>(sign | half);
    }
    uint32_t half = (static_cast<uint32_t>(e) << 10) | (mantissa >> 13);
    const uint32_t rest = mantissa & 0x1fffu;
    if (rest > 0x1000u || (rest == 0x1000u && (half & 1))) ++half;  // may carry into the exponent: right
    return static_cast<uint16_t>(sign | half);
}

double HalfToDouble(uint16_t h) {
    const int sign = (h >> 15) ? -1 : 1;
    const int exponent = (h >> 10) & 0x1f;
    const int mantissa = h & 0x3ff;
    if (exponent == 0) return sign * std::ldexp(mantissa, -24);
    if (exponent == 31) return mantissa ? std::numeric_limits<double>::quiet_NaN() : sign * INFINITY;
    return sign * std::ldexp(1024 + mantissa, exponent - 25);
}

double JsonNumber(const Json& value) {
    if (value.is_string()) {
        const std::string text = value.get<std::string>();
        if (text == "nan") return std::numeric_limits<double>::quiet_NaN();
        if (text == "inf") return INFINITY;
        if (text == "-inf") return -INFINITY;
        if (text == "-0") return -0.0;
        throw std::runtime_error("unknown value string '" + text + "'");
    }
    return value.get<double>();
}

uint32_t ElementSize(DML_TENSOR_DATA_TYPE type) { return freedml::TensorElementSizeInBytes(type); }

// Writes `value` as one element of `type` at `out`.
void Encode(DML_TENSOR_DATA_TYPE type, const Json& value, unsigned char* out) {
    auto put = [&](auto typed) { std::memcpy(out, &typed, sizeof(typed)); };
    switch (type) {
        case DML_TENSOR_DATA_TYPE_FLOAT32: put(static_cast<float>(JsonNumber(value))); break;
        case DML_TENSOR_DATA_TYPE_FLOAT64: put(JsonNumber(value)); break;
        case DML_TENSOR_DATA_TYPE_FLOAT16: put(FloatToHalf(static_cast<float>(JsonNumber(value)))); break;
        case DML_TENSOR_DATA_TYPE_UINT8: put(value.get<uint8_t>()); break;
        case DML_TENSOR_DATA_TYPE_INT8: put(value.get<int8_t>()); break;
        case DML_TENSOR_DATA_TYPE_UINT16: put(value.get<uint16_t>()); break;
        case DML_TENSOR_DATA_TYPE_INT16: put(value.get<int16_t>()); break;
        case DML_TENSOR_DATA_TYPE_UINT32: put(value.get<uint32_t>()); break;
        case DML_TENSOR_DATA_TYPE_INT32: put(value.get<int32_t>()); break;
        case DML_TENSOR_DATA_TYPE_UINT64: put(value.get<uint64_t>()); break;
        case DML_TENSOR_DATA_TYPE_INT64: put(value.get<int64_t>()); break;
        default: throw std::runtime_error("unsupported data type in a case");
    }
}

bool IsFloat(DML_TENSOR_DATA_TYPE type) {
    return type == DML_TENSOR_DATA_TYPE_FLOAT32 || type == DML_TENSOR_DATA_TYPE_FLOAT16 ||
           type == DML_TENSOR_DATA_TYPE_FLOAT64;
}

// Maps a float to an integer line on which adjacent representable values differ by 1.
int64_t OrderedBits(DML_TENSOR_DATA_TYPE type, double value) {
    int64_t bits = 0, signBit = 0;
    if (type == DML_TENSOR_DATA_TYPE_FLOAT16) {
        bits = FloatToHalf(static_cast<float>(value));
        signBit = 0x8000;
    } else if (type == DML_TENSOR_DATA_TYPE_FLOAT32) {
        float f = static_cast<float>(value);
        uint32_t u;
        std::memcpy(&u, &f, 4);
        bits = u;
        signBit = int64_t(1) << 31;
    } else {
        uint64_t u;
        std::memcpy(&u, &value, 8);
        if (u >> 63) return -static_cast<int64_t>(u & ~(uint64_t(1) << 63));
        return static_cast<int64_t>(u);
    }
    return (bits & signBit) ? -(bits & (signBit - 1)) : bits;
}

// Reads element `index` of `type` at `in` as a double (integers exactly, up to 2^53).
double Decode(DML_TENSOR_DATA_TYPE type, const unsigned char* in) {
    auto get = [&](auto typed) {
        std::memcpy(&typed, in, sizeof(typed));
        return static_cast<double>(typed);
    };
    switch (type) {
        case DML_TENSOR_DATA_TYPE_FLOAT32: return get(float{});
        case DML_TENSOR_DATA_TYPE_FLOAT64: return get(double{});
        case DML_TENSOR_DATA_TYPE_FLOAT16: {
            uint16_t h;
            std::memcpy(&h, in, 2);
            return HalfToDouble(h);
        }
        case DML_TENSOR_DATA_TYPE_UINT8: return get(uint8_t{});
        case DML_TENSOR_DATA_TYPE_INT8: return get(int8_t{});
        case DML_TENSOR_DATA_TYPE_UINT16: return get(uint16_t{});
        case DML_TENSOR_DATA_TYPE_INT16: return get(int16_t{});
        case DML_TENSOR_DATA_TYPE_UINT32: return get(uint32_t{});
        case DML_TENSOR_DATA_TYPE_INT32: return get(int32_t{});
        case DML_TENSOR_DATA_TYPE_UINT64: return get(uint64_t{});
        case DML_TENSOR_DATA_TYPE_INT64: return get(int64_t{});
        default: return NAN;
    }
}

// Element `index` of a 4-bit tensor: byte index / 2, the low nibble when index is even; INT4
// sign-extends.
int Nibble(DML_TENSOR_DATA_TYPE type, const std::vector<unsigned char>& bytes, uint64_t index) {
    const int nibble = (index & 1) ? bytes[index / 2] >> 4 : bytes[index / 2] & 0xF;
    return type == DML_TENSOR_DATA_TYPE_INT4 && nibble >= 8 ? nibble - 16 : nibble;
}

// Element offsets (not bytes) of a tensor's elements in logical (row-major) order.
std::vector<uint64_t> ElementIndices(const DML_BUFFER_TENSOR_DESC& tensor);

// Byte offsets of a tensor's elements in logical (row-major) order.
std::vector<uint64_t> ElementOffsets(const DML_BUFFER_TENSOR_DESC& tensor) {
    std::vector<uint64_t> offsets = ElementIndices(tensor);
    for (auto& offset : offsets) offset *= ElementSize(tensor.DataType);
    return offsets;
}

std::vector<uint64_t> ElementIndices(const DML_BUFFER_TENSOR_DESC& tensor) {
    const UINT rank = tensor.DimensionCount;
    std::vector<UINT> strides(rank);
    if (tensor.Strides) {
        strides.assign(tensor.Strides, tensor.Strides + rank);
    } else {
        UINT stride = 1;
        for (UINT d = rank; d-- > 0;) {
            strides[d] = stride;
            stride *= tensor.Sizes[d];
        }
    }
    uint64_t count = 1;
    for (UINT d = 0; d < rank; ++d) count *= tensor.Sizes[d];
    std::vector<uint64_t> offsets;
    offsets.reserve(count);
    std::vector<UINT> index(rank, 0);
    for (uint64_t i = 0; i < count; ++i) {
        uint64_t offset = 0;
        for (UINT d = 0; d < rank; ++d) offset += uint64_t(index[d]) * strides[d];
        offsets.push_back(offset);
        for (UINT d = rank; d-- > 0;) {
            if (++index[d] < tensor.Sizes[d]) break;
            index[d] = 0;
        }
    }
    return offsets;
}

constexpr unsigned char kSentinel = 0xA5;  // fills output buffers before the dispatch

// ---- The test ----------------------------------------------------------------------------------

struct AdapterChoice {
    std::string name;   // "cpu", "cuda:0"
    LUID luid{};
    bool present = false;
    std::string whyAbsent;
};

// The case's operator with its input tensors flagged OWNED_BY_DML: DirectML lets most inputs be
// owned (DML_TENSOR_FLAGS), and the result must not change.
// The fields may sit in "desc" (an operator with a field named Type, as RANDOM_GENERATOR, must
// keep them there: a top-level "Type" names the operator type).
// `only`: a list of the input fields to flag (a case's "ownedInputs" list); anything else: all.
Json WithOwnedInputs(const Json& op, const dmlrun::BuiltOperator& built, const Json& only) {
    Json owned = op;
    Json* fields = &owned;
    for (const char* name : {"desc", "Desc"}) {
        if (owned.contains(name)) fields = &owned[name];
    }
    for (const auto& point : built.Inputs()) {
        if (!point.given) continue;
        if (only.is_array() && std::find(only.begin(), only.end(), Json(point.name)) == only.end()) continue;
        Json& field = fields->at(point.name);
        if (field.is_array()) {
            for (Json& tensor : field) tensor["Flags"] = "OWNED_BY_DML";
        } else {
            field["Flags"] = "OWNED_BY_DML";
        }
    }
    return owned;
}

// The values (or expectation) of tensor `t` of a field: a tensor array field lists one entry per
// tensor (each a list or an object); a plain list stands for the only tensor of its field.
const Json& ForTensor(const Json& field, bool isArray, size_t t) {
    const bool perTensor = isArray && field.is_array() && !field.empty() && (field[0].is_array() || field[0].is_object());
    return perTensor ? field.at(t) : field;
}

class ConformanceCase : public DmlTest {
public:
    // `ownedInputs`: run the case with every input flagged OWNED_BY_DML (bound at initialization).
    ConformanceCase(std::string file, Json testCase, AdapterChoice adapter, bool ownedInputs)
        : file_(std::move(file)), case_(std::move(testCase)), adapter_(std::move(adapter)), ownedInputs_(ownedInputs) {}

    IUnknown* Adapter() override { return dxcoreAdapter_.Get(); }

    void SetUp() override {
        if (!adapter_.present) GTEST_SKIP() << adapter_.whyAbsent;
        ComPtr<IDXCoreAdapterFactory> factory;
        ASSERT_EQ(DXCoreCreateAdapterFactory(IID_PPV_ARGS(&factory)), S_OK);
        ASSERT_EQ(factory->GetAdapterByLuid(adapter_.luid, IID_PPV_ARGS(&dxcoreAdapter_)), S_OK);
        DmlTest::SetUp();
    }

    void TestBody() override;

private:
    std::string file_;
    Json case_;
    AdapterChoice adapter_;
    bool ownedInputs_;
    ComPtr<IDXCoreAdapter> dxcoreAdapter_;
};

void ConformanceCase::TestBody() {
    SCOPED_TRACE(file_ + ": " + case_.value("name", std::string("(unnamed)")));
    std::unique_ptr<dmlrun::BuiltOperator> built;
    try {
        built = dmlrun::BuildOperator(case_.at("operator"), dmlrun::JsonPath() / "operator");
        if (ownedInputs_) {
            built = dmlrun::BuildOperator(WithOwnedInputs(case_.at("operator"), *built, case_.value("ownedInputs", Json(true))), dmlrun::JsonPath() / "operator");
        }
    } catch (const std::exception& error) {
        FAIL() << "The case's operator does not build: " << error.what();
    }
    ComPtr<IDMLOperator> op;
    ASSERT_EQ(dml->CreateOperator(&built->Desc(), IID_PPV_ARGS(&op)), S_OK) << Messages();
    ComPtr<IDMLCompiledOperator> compiled;
    ASSERT_EQ(dml->CompileOperator(op.Get(), DML_EXECUTION_FLAG_NONE, IID_PPV_ARGS(&compiled)), S_OK) << Messages();

    const Json& inputs = case_.value("inputs", Json::object());
    const Json& outputs = case_.at("outputs");
    std::vector<ComPtr<ID3D12Resource>> keepAlive;
    std::vector<std::unique_ptr<DML_BUFFER_BINDING>> buffers;
    auto bufferFor = [&](const DML_BUFFER_TENSOR_DESC& tensor, const Json* values, const std::string& name,
                         DML_BUFFER_BINDING** binding) {
        const UINT64 bytes = tensor.TotalTensorSizeInBytes;
        std::vector<unsigned char> data(bytes, kSentinel);
        if (values && freedml::IsPacked4Bit(tensor.DataType)) {
            // A 4-bit input lists the bytes of its buffer, packed by the generator.
            const uint64_t reach = DMLCalcBufferTensorSize(tensor.DataType, tensor.DimensionCount, tensor.Sizes,
                                                           tensor.Strides);
            ASSERT_GE(values->size() + 3, reach) << name << ": too few bytes for the elements its strides reach";
            for (size_t i = 0; i < values->size() && i < bytes; ++i) data[i] = (*values)[i].get<uint8_t>();
        } else if (values) {
            const uint32_t size = ElementSize(tensor.DataType);
            const uint64_t reach = DMLCalcBufferTensorSize(tensor.DataType, tensor.DimensionCount, tensor.Sizes,
                                                           tensor.Strides);
            ASSERT_GE(values->size() * size + 3, reach) << name << ": too few values for the bytes its strides reach";
            for (size_t i = 0; i < values->size() && (i + 1) * size <= bytes; ++i) {
                Encode(tensor.DataType, (*values)[i], data.data() + i * size);
            }
        }
        auto resource = Buffer(bytes, D3D12_HEAP_TYPE_DEFAULT);
        Upload(resource.Get(), data.data(), bytes);
        buffers.push_back(std::make_unique<DML_BUFFER_BINDING>(DML_BUFFER_BINDING{resource.Get(), 0, bytes}));
        keepAlive.push_back(resource);
        *binding = buffers.back().get();
    };

    // Inputs, in binding order; owned ones go to the initializer.
    std::vector<DML_BINDING_DESC> inputBindings;
    std::vector<DML_BUFFER_BINDING> ownedBindings;
    bool anyOwned = false;
    for (const auto& point : built->Inputs()) {
        for (size_t t = 0; t < point.tensors.size() || (!point.given && t == 0); ++t) {
            if (!point.given) {
                inputBindings.push_back(NoBinding());
                ownedBindings.push_back({});
                break;
            }
            const DML_BUFFER_TENSOR_DESC& tensor = *point.tensors[t];
            const Json* values = nullptr;
            if (inputs.contains(point.name)) {
                values = &ForTensor(inputs.at(point.name), point.isArray, t);
            }
            ASSERT_NE(values, nullptr) << "The case gives no values for input " << point.name;
            DML_BUFFER_BINDING* binding = nullptr;
            bufferFor(tensor, values, point.name, &binding);
            if (tensor.Flags & DML_TENSOR_FLAG_OWNED_BY_DML) {
                anyOwned = true;
                inputBindings.push_back(NoBinding());
                ownedBindings.push_back(*binding);
            } else {
                inputBindings.push_back(BufferBinding(binding));
                ownedBindings.push_back({});
            }
        }
    }
    auto persistent = Initialize(compiled.Get(), anyOwned ? ownedBindings : std::vector<DML_BUFFER_BINDING>{});
    ASSERT_FALSE(DeviceRemoved()) << Messages();

    std::vector<DML_BINDING_DESC> outputBindings;
    std::vector<std::pair<const DML_BUFFER_TENSOR_DESC*, ID3D12Resource*>> results;
    std::vector<std::string> resultNames;
    std::vector<size_t> resultIndices;  // the tensor's index in its field (SPLIT's OutputTensors)
    std::vector<bool> resultInArray;
    for (const auto& point : built->Outputs()) {
        if (!point.given) {
            outputBindings.push_back(NoBinding());
            continue;
        }
        for (size_t t = 0; t < point.tensors.size(); ++t) {
            DML_BUFFER_BINDING* binding = nullptr;
            bufferFor(*point.tensors[t], nullptr, point.name, &binding);
            outputBindings.push_back(BufferBinding(binding));
            results.emplace_back(point.tensors[t], binding->Buffer);
            resultNames.push_back(point.name);
            resultIndices.push_back(t);
            resultInArray.push_back(point.isArray);
        }
    }
    Dispatch(compiled.Get(), inputBindings, outputBindings, persistent.Get());
    ASSERT_FALSE(DeviceRemoved()) << Messages();

    for (size_t r = 0; r < results.size(); ++r) {
        const auto& [tensor, resource] = results[r];
        if (!outputs.contains(resultNames[r])) continue;  // an output the case does not check
        const Json& expectation = ForTensor(outputs.at(resultNames[r]), resultInArray[r], resultIndices[r]);
        const Json& expected = expectation.is_array() ? expectation : expectation.at("values");
        const double ulps = expectation.is_object() ? expectation.value("ulps", 0.0) : 0.0;
        const double absolute = expectation.is_object() ? expectation.value("absolute", 0.0) : 0.0;
        auto bytes = Readback(resource, tensor->TotalTensorSizeInBytes);
        if (freedml::IsPacked4Bit(tensor->DataType)) {
            // Elements compare as integers; every nibble no element covers keeps the sentinel's.
            const auto indices = ElementIndices(*tensor);
            ASSERT_EQ(indices.size(), expected.size()) << resultNames[r] << ": the case lists the wrong number of values";
            std::vector<bool> coveredNibble(bytes.size() * 2, false);
            int failures = 0;
            for (size_t i = 0; i < indices.size(); ++i) {
                coveredNibble[indices[i]] = true;
                const int actual = Nibble(tensor->DataType, bytes, indices[i]);
                if (actual != expected[i].get<int>() && failures++ < 10) {
                    ADD_FAILURE() << resultNames[r] << "[" << i << "] is " << actual << ", expected " << expected[i].dump();
                }
            }
            const std::vector<unsigned char> sentinel(1, kSentinel);
            for (size_t n = 0; n < coveredNibble.size(); ++n) {
                if (!coveredNibble[n] && Nibble(DML_TENSOR_DATA_TYPE_UINT4, bytes, n) !=
                                             Nibble(DML_TENSOR_DATA_TYPE_UINT4, sentinel, n & 1)) {
                    ADD_FAILURE() << resultNames[r] << ": nibble " << n << " outside the tensor's elements was written (D4)";
                    break;
                }
            }
            continue;
        }
        auto offsets = ElementOffsets(*tensor);
        ASSERT_EQ(offsets.size(), expected.size()) << resultNames[r] << ": the case lists the wrong number of values";
        std::vector<bool> covered(bytes.size(), false);
        const uint32_t size = ElementSize(tensor->DataType);
        int failures = 0;
        for (size_t i = 0; i < offsets.size() && failures < 10; ++i) {
            for (uint32_t b = 0; b < size; ++b) covered[offsets[i] + b] = true;
            const double actual = Decode(tensor->DataType, bytes.data() + offsets[i]);
            if (IsFloat(tensor->DataType)) {
                const double want = JsonNumber(expected[i]);
                if (std::isnan(want)) {
                    if (!std::isnan(actual)) ++failures, ADD_FAILURE() << resultNames[r] << "[" << i << "] is " << actual << ", expected NaN";
                    continue;
                }
                const bool exactSign = (want == 0 && ulps == 0 && absolute == 0);
                const double distance = std::fabs(double(OrderedBits(tensor->DataType, actual) -
                                                         OrderedBits(tensor->DataType, want)));
                const bool ok = (actual == want && (!exactSign || std::signbit(actual) == std::signbit(want))) ||
                                (!exactSign && distance <= ulps) || std::fabs(actual - want) <= absolute;
                if (!ok) {
                    ++failures;
                    ADD_FAILURE() << resultNames[r] << "[" << i << "] is " << actual << ", expected " << want << " (off by "
                                  << distance << " ulps; allowed " << ulps << ", absolute " << absolute << ")";
                }
            } else {
                // Integers compare exactly, through the JSON integer (64-bit safe).
                unsigned char want[8] = {};
                Encode(tensor->DataType, expected[i], want);
                if (std::memcmp(want, bytes.data() + offsets[i], size) != 0) {
                    ++failures;
                    ADD_FAILURE() << resultNames[r] << "[" << i << "] is " << actual << ", expected " << expected[i].dump();
                }
            }
        }
        for (size_t b = 0; b < bytes.size(); ++b) {
            if (!covered[b] && bytes[b] != kSentinel) {
                ADD_FAILURE() << resultNames[r] << ": byte " << b << " outside the tensor's elements was written (D4)";
                break;
            }
        }
    }
}

std::vector<AdapterChoice> Adapters() {
    std::vector<AdapterChoice> choices;
    AdapterChoice cpu{"cpu"}, cuda{"cuda"};
    cuda.whyAbsent = "No CUDA adapter on this machine (no NVIDIA GPU or driver found), so the CUDA runs skip.";
    ComPtr<IDXCoreAdapterFactory> factory;
    ComPtr<IDXCoreAdapterList> list;
    if (SUCCEEDED(DXCoreCreateAdapterFactory(IID_PPV_ARGS(&factory))) &&
        SUCCEEDED(factory->CreateAdapterList(1, &DXCORE_ADAPTER_ATTRIBUTE_D3D12_CORE_COMPUTE, IID_PPV_ARGS(&list)))) {
        for (uint32_t i = 0; i < list->GetAdapterCount(); ++i) {
            ComPtr<IDXCoreAdapter> adapter;
            if (FAILED(list->GetAdapter(i, IID_PPV_ARGS(&adapter)))) continue;
            bool hardware = false;
            adapter->GetProperty(DXCoreAdapterProperty::IsHardware, &hardware);
            LUID luid{};
            adapter->GetProperty(DXCoreAdapterProperty::InstanceLuid, &luid);
            AdapterChoice& target = hardware ? cuda : cpu;
            if (!target.present) {
                target.present = true;
                target.luid = luid;
            }
        }
    }
    cpu.whyAbsent = "DXCore lists no CPU adapter.";
    choices.push_back(cpu);
    choices.push_back(cuda);
    return choices;
}

void RegisterCases() {
    const std::filesystem::path root = FREEDML_CONFORMANCE_CASES;
    std::vector<std::filesystem::path> files;
    for (const auto& entry : std::filesystem::directory_iterator(root)) {
        if (entry.path().extension() == ".json") files.push_back(entry.path());
    }
    std::sort(files.begin(), files.end());
    const auto adapters = Adapters();
    for (const auto& path : files) {
        std::ifstream stream(path);
        std::stringstream text;
        text << stream.rdbuf();
        Json document = Json::parse(text.str());
        const std::string suite = path.stem().string();
        for (const auto& testCase : document.at("cases")) {
            // Every case with inputs runs twice: as written, and with its inputs OWNED_BY_DML
            // against the same expected values (unless its "ownedInputs" says otherwise).
            bool hasInputs = false;
            try {
                auto built = dmlrun::BuildOperator(testCase.at("operator"), dmlrun::JsonPath() / "operator");
                for (const auto& point : built->Inputs()) hasInputs = hasInputs || point.given;
            } catch (const std::exception&) {
                // The plain run reports the case's problem.
            }
            // "ownedInputs": false skips that run; a list of input fields flags only those (for
            // operators that refuse the flag on some inputs).
            const Json ownedInputs = testCase.value("ownedInputs", Json(true));
            const bool ownedRun = hasInputs && (ownedInputs.is_array() ? !ownedInputs.empty() : ownedInputs == Json(true));
            for (bool owned : {false, true}) {
                if (owned && !ownedRun) continue;
                for (const auto& adapter : adapters) {
                    const std::string name =
                        testCase.value("name", std::string("case")) + (owned ? "_owned/" : "/") + adapter.name;
                    ::testing::RegisterTest(("Conformance_" + suite).c_str(), name.c_str(), nullptr, nullptr,
                                            path.string().c_str(), 0, [=]() -> DmlTest* {
                                                return new ConformanceCase(path.filename().string(), testCase, adapter,
                                                                           owned);
                                            });
                }
            }
        }
    }
}

}  // namespace
}  // namespace freedml_test

int main(int argc, char** argv) {
    ::testing::InitGoogleTest(&argc, argv);
    freedml_test::RegisterCases();
    return RUN_ALL_TESTS();
}
