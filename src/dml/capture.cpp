#include "dml/capture.h"

#include <dlfcn.h>

#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <chrono>
#include <mutex>
#include <set>
#include <system_error>

#include "backend/backend.h"
#include "common/half.h"
#include "d3d12/internal.h"
#include "dml/compiled_operator.h"
#include "dml/operator.h"
#include "dml/schema/schema.h"

namespace freedml::dml::capture {

namespace {

constexpr uint64_t kDefaultLimit = uint64_t(256) << 20;

struct Settings {
    std::filesystem::path directory;
    uint64_t limit = kDefaultLimit;
    uint64_t first = UINT64_MAX;
};

// "64M", "1G", "4096": bytes. Returns false for anything else.
bool ParseSize(const char* text, uint64_t* value) {
    char* end = nullptr;
    unsigned long long number = std::strtoull(text, &end, 10);
    if (end == text) return false;
    uint64_t scale = 1;
    if (*end == 'K' || *end == 'k') scale = uint64_t(1) << 10;
    if (*end == 'M' || *end == 'm') scale = uint64_t(1) << 20;
    if (*end == 'G' || *end == 'g') scale = uint64_t(1) << 30;
    if (scale != 1) ++end;
    if (*end != '\0') return false;
    *value = number * scale;
    return true;
}

Settings& GetSettings() {
    static Settings* settings = [] {
        auto* s = new Settings;  // never destroyed: read until exit
        if (const char* directory = std::getenv("FREEDML_CAPTURE")) s->directory = directory;
        if (const char* limit = std::getenv("FREEDML_CAPTURE_LIMIT"); limit && !ParseSize(limit, &s->limit)) {
            std::fprintf(stderr, "FreeDML: FREEDML_CAPTURE_LIMIT is '%s', not a size in bytes (4096, 64K, 256M, 1G); "
                                 "the default of 256M applies.\n", limit);
        }
        if (const char* first = std::getenv("FREEDML_CAPTURE_FIRST"); first && !ParseSize(first, &s->first)) {
            std::fprintf(stderr, "FreeDML: FREEDML_CAPTURE_FIRST is '%s', not a number of executions; every execution "
                                 "is captured.\n", first);
        }
        return s;
    }();
    return *settings;
}

void Report(D3D12_MESSAGE_SEVERITY severity, const std::string& text) {
    static const auto report = reinterpret_cast<d3d12::ReportWithoutDeviceFunction>(
        dlsym(RTLD_DEFAULT, d3d12::kReportWithoutDeviceSymbol));
    if (report) {
        report(severity, "DirectML", text.c_str(), 1);
    } else {
        std::fprintf(stderr, "FreeDML DirectML: %s\n", text.c_str());
    }
}

// ---- JSON text -----------------------------------------------------------------------------------

std::string Quote(const std::string& text) {
    std::string out = "\"";
    for (char c : text) {
        if (c == '"' || c == '\\') {
            out += '\\';
            out += c;
        } else if (static_cast<unsigned char>(c) < 0x20) {
            char escaped[8];
            std::snprintf(escaped, sizeof(escaped), "\\u%04x", static_cast<unsigned>(c));
            out += escaped;
        } else {
            out += c;
        }
    }
    return out + "\"";
}

// Enough digits that dmlrun reads back the same float (9 significant digits for FLOAT32).
std::string Number(double value, int digits) {
    if (std::isnan(value)) return "\"nan\"";
    if (std::isinf(value)) return value > 0 ? "\"inf\"" : "\"-inf\"";
    char text[40];
    std::snprintf(text, sizeof(text), "%.*g", digits, value);
    return text;
}
std::string Float(float value) { return Number(value, 9); }

template <class T>
T Read(const uint8_t* slot) {
    T value;
    std::memcpy(&value, slot, sizeof(T));
    return value;
}

std::string TensorJson(const DML_TENSOR_DESC* tensor) {
    if (!tensor || tensor->Type != DML_TENSOR_TYPE_BUFFER || !tensor->Desc) return "null";
    const auto& buffer = *static_cast<const DML_BUFFER_TENSOR_DESC*>(tensor->Desc);
    std::string out = "{\"DataType\": " + Quote(DataTypeName(buffer.DataType)) + ", \"Sizes\": [";
    for (UINT i = 0; i < buffer.DimensionCount; ++i) out += (i ? ", " : "") + std::to_string(buffer.Sizes[i]);
    out += "]";
    if (buffer.Strides) {
        out += ", \"Strides\": [";
        for (UINT i = 0; i < buffer.DimensionCount; ++i) out += (i ? ", " : "") + std::to_string(buffer.Strides[i]);
        out += "]";
    }
    if (buffer.Flags & DML_TENSOR_FLAG_OWNED_BY_DML) out += ", \"Flags\": \"OWNED_BY_DML\"";
    out += ", \"TotalTensorSizeInBytes\": " + std::to_string(buffer.TotalTensorSizeInBytes);
    if (buffer.GuaranteedBaseOffsetAlignment) {
        out += ", \"GuaranteedBaseOffsetAlignment\": " + std::to_string(buffer.GuaranteedBaseOffsetAlignment);
    }
    return out + "}";
}

std::string OperatorJson(const DML_OPERATOR_DESC& desc);

// The count a `countField` holds in the desc.
uint32_t CountOf(const OperatorSchema& schema, const uint8_t* bytes, const char* countField) {
    for (const FieldSchema& field : schema.fields) {
        if (countField && std::strcmp(field.name, countField) == 0) return Read<UINT>(bytes + field.offset);
    }
    return 0;
}

std::string ScalarJson(const OperatorSchema& schema, const FieldSchema& field, const uint8_t* bytes) {
    DML_TENSOR_DATA_TYPE type = DML_TENSOR_DATA_TYPE_UNKNOWN;
    for (const FieldSchema& candidate : schema.fields) {
        if (field.typeField && std::strcmp(candidate.name, field.typeField) == 0) {
            type = static_cast<DML_TENSOR_DATA_TYPE>(Read<uint32_t>(bytes + candidate.offset));
        }
    }
    const uint8_t* value = bytes + field.offset;
    switch (type) {
        case DML_TENSOR_DATA_TYPE_FLOAT32: return "{\"Float32\": " + Float(Read<float>(value)) + "}";
        case DML_TENSOR_DATA_TYPE_FLOAT64: return "{\"Float64\": " + Number(Read<double>(value), 17) + "}";
        case DML_TENSOR_DATA_TYPE_FLOAT16: return "{\"UInt16\": " + std::to_string(Read<uint16_t>(value)) + "}";
        case DML_TENSOR_DATA_TYPE_INT8: return "{\"Int8\": " + std::to_string(Read<int8_t>(value)) + "}";
        case DML_TENSOR_DATA_TYPE_UINT8: return "{\"UInt8\": " + std::to_string(Read<uint8_t>(value)) + "}";
        case DML_TENSOR_DATA_TYPE_INT16: return "{\"Int16\": " + std::to_string(Read<int16_t>(value)) + "}";
        case DML_TENSOR_DATA_TYPE_UINT16: return "{\"UInt16\": " + std::to_string(Read<uint16_t>(value)) + "}";
        case DML_TENSOR_DATA_TYPE_INT32: return "{\"Int32\": " + std::to_string(Read<int32_t>(value)) + "}";
        case DML_TENSOR_DATA_TYPE_UINT32: return "{\"UInt32\": " + std::to_string(Read<uint32_t>(value)) + "}";
        case DML_TENSOR_DATA_TYPE_INT64: return "{\"Int64\": " + std::to_string(Read<int64_t>(value)) + "}";
        case DML_TENSOR_DATA_TYPE_UINT64: return "{\"UInt64\": " + std::to_string(Read<uint64_t>(value)) + "}";
        default: return "null";
    }
}

// The desc's fields in dmlrun's form; count fields are left out (the arrays give them).
std::string FieldsJson(const OperatorSchema& schema, const void* desc) {
    const auto* bytes = static_cast<const uint8_t*>(desc);
    std::string out = "{";
    bool first = true;
    auto add = [&](const char* name, const std::string& value) {
        out += (first ? "" : ", ") + Quote(name) + ": " + value;
        first = false;
    };
    auto isCount = [&](const FieldSchema& candidate) {
        for (const FieldSchema& field : schema.fields) {
            if (field.countField && std::strcmp(field.countField, candidate.name) == 0) return true;
        }
        return false;
    };
    for (const FieldSchema& field : schema.fields) {
        const uint8_t* slot = bytes + field.offset;
        if (isCount(field)) continue;
        switch (field.kind) {
            case FieldKind::InputTensor:
            case FieldKind::OutputTensor: {
                const auto* tensor = Read<const DML_TENSOR_DESC*>(slot);
                if (tensor) add(field.name, TensorJson(tensor));
                break;
            }
            case FieldKind::InputTensorArray:
            case FieldKind::OutputTensorArray: {
                const auto* tensors = Read<const DML_TENSOR_DESC*>(slot);
                if (!tensors) break;
                std::string list = "[";
                const uint32_t count = CountOf(schema, bytes, field.countField);
                for (uint32_t i = 0; i < count; ++i) list += (i ? ", " : "") + TensorJson(&tensors[i]);
                add(field.name, list + "]");
                break;
            }
            case FieldKind::OperatorDesc: {
                const auto* op = Read<const DML_OPERATOR_DESC*>(slot);
                if (op) add(field.name, OperatorJson(*op));
                break;
            }
            case FieldKind::OperatorDescArray: {
                const auto* ops = Read<const DML_OPERATOR_DESC*>(slot);
                if (!ops) break;
                std::string list = "[";
                const uint32_t count = CountOf(schema, bytes, field.countField);
                for (uint32_t i = 0; i < count; ++i) list += (i ? ", " : "") + OperatorJson(ops[i]);
                add(field.name, list + "]");
                break;
            }
            case FieldKind::ScaleBias: {
                const auto* scaleBias = Read<const DML_SCALE_BIAS*>(slot);
                if (scaleBias) add(field.name, "{\"Scale\": " + Float(scaleBias->Scale) + ", \"Bias\": " + Float(scaleBias->Bias) + "}");
                break;
            }
            case FieldKind::UInt: add(field.name, std::to_string(Read<UINT>(slot))); break;
            case FieldKind::Int: add(field.name, std::to_string(Read<INT>(slot))); break;
            case FieldKind::Float: add(field.name, Float(Read<FLOAT>(slot))); break;
            case FieldKind::Bool: add(field.name, Read<BOOL>(slot) ? "true" : "false"); break;
            case FieldKind::Enum: {
                const uint32_t value = Read<uint32_t>(slot);
                const char* name = field.enumType ? field.enumType->NameOf(value) : nullptr;
                add(field.name, name ? Quote(name) : std::to_string(value));
                break;
            }
            case FieldKind::UIntArray:
            case FieldKind::IntArray:
            case FieldKind::FloatArray: {
                const auto* values = Read<const uint8_t*>(slot);
                if (!values) break;
                const uint32_t count = CountOf(schema, bytes, field.countField);
                std::string list = "[";
                for (uint32_t i = 0; i < count; ++i) {
                    const uint8_t* element = values + 4 * i;
                    list += i ? ", " : "";
                    if (field.kind == FieldKind::UIntArray) list += std::to_string(Read<UINT>(element));
                    if (field.kind == FieldKind::IntArray) list += std::to_string(Read<INT>(element));
                    if (field.kind == FieldKind::FloatArray) list += Float(Read<FLOAT>(element));
                }
                add(field.name, list + "]");
                break;
            }
            case FieldKind::Size2D: {
                const auto size = Read<DML_SIZE_2D>(slot);
                add(field.name, "{\"Width\": " + std::to_string(size.Width) + ", \"Height\": " + std::to_string(size.Height) + "}");
                break;
            }
            case FieldKind::ScalarUnion: add(field.name, ScalarJson(schema, field, bytes)); break;
        }
    }
    return out + "}";
}

std::string OperatorJson(const DML_OPERATOR_DESC& desc) {
    const OperatorSchema* schema = FindSchema(desc.Type);
    if (!schema) return "null";
    return "{\"type\": " + Quote(std::string("DML_OPERATOR_") + schema->name) + ", \"desc\": " +
           (desc.Desc ? FieldsJson(*schema, desc.Desc) : std::string("{}")) + "}";
}

// "InputTensors[2]" -> ("InputTensors", 2); "ATensor" -> ("ATensor", -1).
std::pair<std::string, int> SplitBindPoint(const std::string& name) {
    size_t open = name.find('[');
    if (open == std::string::npos || name.back() != ']') return {name, -1};
    return {name.substr(0, open), std::atoi(name.c_str() + open + 1)};
}

std::string Identifier(const std::string& text) {
    std::string out;
    for (char c : text) out += std::isalnum(static_cast<unsigned char>(c)) || c == '_' ? c : '_';
    return out;
}

// ---- .npy --------------------------------------------------------------------------------------

const char* NpyDescr(DML_TENSOR_DATA_TYPE type) {
    switch (type) {
        case DML_TENSOR_DATA_TYPE_FLOAT16: return "<f2";
        case DML_TENSOR_DATA_TYPE_FLOAT32: return "<f4";
        case DML_TENSOR_DATA_TYPE_FLOAT64: return "<f8";
        case DML_TENSOR_DATA_TYPE_INT8: return "|i1";
        case DML_TENSOR_DATA_TYPE_UINT8: return "|u1";
        case DML_TENSOR_DATA_TYPE_INT16: return "<i2";
        case DML_TENSOR_DATA_TYPE_UINT16: return "<u2";
        case DML_TENSOR_DATA_TYPE_INT32: return "<i4";
        case DML_TENSOR_DATA_TYPE_UINT32: return "<u4";
        case DML_TENSOR_DATA_TYPE_INT64: return "<i8";
        case DML_TENSOR_DATA_TYPE_UINT64: return "<u8";
        default: return nullptr;
    }
}

std::string NpyHeader(const char* descr, uint64_t count) {
    std::string header = std::string("{'descr': '") + descr + "', 'fortran_order': False, 'shape': (" + std::to_string(count) + ",), }";
    const size_t total = 10 + header.size() + 1;
    header.append((64 - total % 64) % 64, ' ');
    header += '\n';
    std::string prefix = "\x93NUMPY";
    prefix += '\x01';
    prefix += '\x00';
    prefix += static_cast<char>(header.size() & 0xFF);
    prefix += static_cast<char>(header.size() >> 8);
    return prefix + header;
}

uint64_t Fnv1a(const std::vector<uint8_t>& bytes) {
    uint64_t hash = 1469598103934665603ull;
    for (uint8_t b : bytes) hash = (hash ^ b) * 1099511628211ull;
    return hash;
}

// ---- The capture ------------------------------------------------------------------------------

std::vector<uint8_t> ReadBytes(const Bound& bound, backend::Stream& stream) {
    std::vector<uint8_t> bytes(bound.bytes);
    if (bound.bytes) {
        stream.ReadToHost(bytes.data(), bound.address, bound.bytes);
        stream.Finish();
    }
    return bytes;
}

// The resources bound to each bind point: one for a tensor field, a list for a tensor array field.
struct PointBindings {
    bool array = false;
    std::vector<std::string> items;  // JSON values
};
using Points = std::map<std::string, PointBindings>;

struct PendingExecution {
    std::string dispatchable;
    std::string command;  // without its closing brace
    std::vector<std::string> outputPoints;
    std::vector<DML_TENSOR_DATA_TYPE> outputTypes;
};

class Capture {
public:
    static Capture& Get() {
        static Capture* capture = new Capture;  // never destroyed: dispatches may run until exit
        return *capture;
    }

    void RecordInitialization(CompiledOperator& target, const std::vector<Bound>& inputs, backend::Stream& stream) {
        std::lock_guard lock(mutex_);
        if (!Active()) return;
        const CompiledInterface& shape = target.Interface();
        Points points;
        const std::string prefix = "init" + std::to_string(initializations_++) + "_";
        for (const Bound& bound : inputs) {
            const TensorDesc* tensor = bound.index < shape.inputs.size() ? shape.inputs[bound.index] : nullptr;
            if (!tensor || !bound.address) continue;
            auto [point, index] = PointName(target, true, bound.index);
            std::string resource = prefix + Identifier(point) + (index >= 0 ? "_" + std::to_string(index) : "");
            AddResource(resource, tensor->dataType, ReadBytes(bound, stream), nullptr);
            points[point].array = index >= 0;
            points[point].items.push_back(Quote(resource));
        }
        std::string bindings = BindingsJson(points);
        DispatchableName(target, bindings);
    }

    uint64_t ExecutionStarting(CompiledOperator& compiled, const std::vector<Bound>& inputs,
                               const std::vector<Bound>& outputs, backend::Stream& stream) {
        std::lock_guard lock(mutex_);
        if (!Active() || executions_ >= GetSettings().first) return 0;
        const uint64_t number = executions_++;
        const CompiledInterface& shape = compiled.Interface();
        PendingExecution pending;
        pending.dispatchable = DispatchableName(compiled, "");
        const std::string prefix = "d" + std::to_string(number) + "_";
        Points points;
        std::vector<std::string> leftOut;
        auto bind = [&](const Bound& bound, bool input) {
            const TensorDesc* tensor = input ? shape.inputs[bound.index] : shape.outputs[bound.index];
            auto [point, index] = PointName(compiled, input, bound.index);
            std::string resource = prefix + Identifier(point) + (index >= 0 ? "_" + std::to_string(index) : "");
            bool left = false;
            AddResource(resource, tensor->dataType, ReadBytes(bound, stream), &left);
            if (left && input) leftOut.push_back(point);
            points[point].array = index >= 0;
            points[point].items.push_back(Quote(resource));
            if (!input) {
                pending.outputPoints.push_back(index >= 0 ? point + "[" + std::to_string(index) + "]" : point);
                pending.outputTypes.push_back(tensor->dataType);
            }
        };
        for (const Bound& bound : inputs) {
            if (bound.address && bound.index < shape.inputs.size() && shape.inputs[bound.index]) bind(bound, true);
        }
        for (const Bound& bound : outputs) {
            if (bound.address && bound.index < shape.outputs.size() && shape.outputs[bound.index]) bind(bound, false);
        }
        pending.command = "{\"type\": \"dispatch\", \"dispatchable\": " + Quote(pending.dispatchable) +
                          ", \"bindings\": " + BindingsJson(points);
        if (!leftOut.empty()) {
            std::string list;
            for (const auto& point : leftOut) list += (list.empty() ? "" : ", ") + Quote(point);
            pending.command += ", \"leftOut\": [" + list + "]";
        }
        const uint64_t token = nextToken_++;
        pending_[token] = std::move(pending);
        return token;
    }

    void ExecutionFinished(uint64_t token, const std::vector<Bound>& outputs, backend::Stream& stream) {
        std::lock_guard lock(mutex_);
        auto found = pending_.find(token);
        if (found == pending_.end()) return;
        PendingExecution pending = std::move(found->second);
        pending_.erase(found);
        if (failed_) return;
        // "expected": {"OutputTensor": "data_....npy"}, array points as lists (null: left out).
        Points expected;
        size_t k = 0;
        for (const Bound& bound : outputs) {
            if (k >= pending.outputPoints.size()) break;
            if (!bound.address) continue;
            auto [point, index] = SplitBindPoint(pending.outputPoints[k]);
            std::string file = WriteData(pending.outputTypes[k], ReadBytes(bound, stream));
            expected[point].array = index >= 0;
            expected[point].items.push_back(file.empty() ? "null" : Quote(file));
            ++k;
        }
        const std::string text = BindingsJson(expected);
        commands_.push_back(pending.command + ", \"expected\": " + text + "}");
        // model.json is rewritten whole: after each of the first dispatches, then at most once a
        // second, and when the process exits (Flush), so a long run costs linear time.
        const auto now = std::chrono::steady_clock::now();
        if (commands_.size() <= 64 || now - lastWrite_ >= std::chrono::seconds(1)) {
            lastWrite_ = now;
            WriteModel();
        } else {
            unwritten_ = true;
        }
    }

    // At exit: the dispatches not yet in model.json. A queue thread that holds the lock (a dispatch
    // being captured as the process ends) is not waited for.
    void Flush() {
        std::unique_lock lock(mutex_, std::try_to_lock);
        if (lock.owns_lock() && unwritten_ && !failed_) {
            unwritten_ = false;
            WriteModel();
        }
    }

private:
    Capture() = default;

    bool Active() const { return !failed_; }

    static std::string Join(const std::vector<std::string>& items) {
        std::string out;
        for (const auto& item : items) out += (out.empty() ? "" : ", ") + item;
        return out;
    }

    // The bind point of input or output `index`: the desc's field (and array index) for an
    // operator, "input3" / "output0" for a graph.
    std::pair<std::string, int> PointName(CompiledOperator& compiled, bool input, size_t index) {
        if (!compiled.CaptureGraphJson().empty()) return {(input ? "input" : "output") + std::to_string(index), -1};
        const auto& names = input ? compiled.Interface().inputNames : compiled.Interface().outputNames;
        return SplitBindPoint(names[index]);
    }

    static std::string BindingsJson(const Points& points) {
        std::string out = "{";
        for (const auto& [point, bound] : points) {
            out += (out.size() > 1 ? ", " : "") + Quote(point) + ": " + (bound.array ? "[" + Join(bound.items) + "]" : bound.items[0]);
        }
        return out + "}";
    }

    // The dispatchable's name, added to the model the first time; `initBindings` are its
    // OWNED_BY_DML bindings (an object, or "" when it has none).
    std::string DispatchableName(CompiledOperator& compiled, const std::string& initBindings) {
        std::string& name = compiled.CaptureName();
        if (!name.empty()) return name;
        std::string json;
        const CompiledInterface& shape = compiled.Interface();
        if (!compiled.CaptureGraphJson().empty()) {
            json = compiled.CaptureGraphJson();
            name = "graph" + std::to_string(dispatchables_.size());
        } else {
            const Operator& op = *shape.operators.front().Get();
            json = OperatorJson(DML_OPERATOR_DESC{op.Schema().type, op.Args().desc});
            name = Lower(op.Schema().name) + std::to_string(dispatchables_.size());
        }
        // The program's name for it when it gave one (and no other dispatchable has it).
        const std::string given = compiled.Name();
        if (!given.empty()) name = Identifier(given);
        if (!names_.insert(name).second) {
            name += "_" + std::to_string(dispatchables_.size());
            names_.insert(name);
        }
        // The JSON object without its closing brace, then the extra members.
        json.pop_back();
        const uint32_t flags = static_cast<uint32_t>(compiled.Flags());
        if (flags) {
            std::string list;
            if (flags & DML_EXECUTION_FLAG_ALLOW_HALF_PRECISION_COMPUTATION) list += "\"ALLOW_HALF_PRECISION_COMPUTATION\"";
            if (flags & DML_EXECUTION_FLAG_DISABLE_META_COMMANDS) list += std::string(list.empty() ? "" : ", ") + "\"DISABLE_META_COMMANDS\"";
            if (flags & DML_EXECUTION_FLAG_DESCRIPTORS_VOLATILE) list += std::string(list.empty() ? "" : ", ") + "\"DESCRIPTORS_VOLATILE\"";
            json += ", \"executionFlags\": [" + list + "]";
        }
        if (!initBindings.empty() && initBindings != "{}") json += ", \"bindings\": " + initBindings;
        if (!given.empty()) json += ", \"$comment\": " + Quote("named '" + given + "' by the program");
        dispatchables_.push_back(Quote(name) + ": " + json + "}");
        return name;
    }

    static std::string Lower(std::string text) {
        for (char& c : text) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        return text;
    }

    // Writes `bytes` as an .npy file (once per distinct content); returns its name, or "" when the
    // size limit leaves it out (or the capture failed).
    std::string WriteData(DML_TENSOR_DATA_TYPE type, const std::vector<uint8_t>& bytes) {
        if (failed_) return {};
        const uint32_t elementSize = ElementSizeInBytes(type);
        const char* descr = NpyDescr(type);
        if (!descr || elementSize == 0 || bytes.size() % elementSize != 0) {
            descr = "|u1";
        }
        const uint64_t count = bytes.size() / (descr[2] == '1' ? 1 : elementSize);
        const uint64_t hash = Fnv1a(bytes);
        char name[64];
        std::snprintf(name, sizeof(name), "data_%016llx_%s.npy", static_cast<unsigned long long>(hash), descr + 1);
        if (files_.count(name)) return name;
        if (dataBytes_ + bytes.size() > GetSettings().limit) {
            if (!limitReported_) {
                limitReported_ = true;
                Report(D3D12_MESSAGE_SEVERITY_WARNING,
                       "Capture: FREEDML_CAPTURE_LIMIT (" + std::to_string(GetSettings().limit) +
                           " bytes) is reached; the data of later buffers is left out of the capture (dmlrun fills it "
                           "with seeded random values, and --check cannot compare what depends on it).");
            }
            return {};
        }
        const std::filesystem::path path = GetSettings().directory / name;
        std::ofstream file(path, std::ios::binary | std::ios::trunc);
        const std::string header = NpyHeader(descr, count);
        file.write(header.data(), static_cast<std::streamsize>(header.size()));
        file.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
        file.close();
        if (!file) {
            Fail("cannot write '" + path.string() + "' (" + std::strerror(errno) + ")");
            return {};
        }
        files_.insert(name);
        dataBytes_ += bytes.size();
        return name;
    }

    // A resource of the model: all-zero bytes as a constant, others as a data file, or seeded
    // random values when the limit leaves the data out (`leftOut` says so).
    void AddResource(const std::string& name, DML_TENSOR_DATA_TYPE type, const std::vector<uint8_t>& bytes, bool* leftOut) {
        if (leftOut) *leftOut = false;
        const uint32_t elementSize = ElementSizeInBytes(type) ? ElementSizeInBytes(type) : 1;
        const bool typed = NpyDescr(type) && bytes.size() % elementSize == 0;
        const std::string dataType = typed ? DataTypeName(type) : "UINT8";
        const uint64_t count = typed ? bytes.size() / elementSize : bytes.size();
        const std::string size = ", \"sizeInBytes\": " + std::to_string((bytes.size() + 3) & ~uint64_t(3));
        std::string json;
        bool zero = true;
        for (uint8_t b : bytes) zero = zero && b == 0;
        if (zero) {
            json = "{\"initialValuesDataType\": " + Quote(dataType) + ", \"initialValues\": {\"valueCount\": " +
                   std::to_string(count) + ", \"value\": 0}" + size + "}";
        } else if (std::string file = WriteData(typed ? type : DML_TENSOR_DATA_TYPE_UINT8, bytes); !file.empty()) {
            json = "{\"initialValues\": {\"sourcePath\": " + Quote(file) + "}" + size + "}";
        } else {
            if (leftOut) *leftOut = true;
            json = "{\"initialValuesDataType\": " + Quote(dataType) + ", \"initialValues\": {\"valueCount\": " +
                   std::to_string(count) + ", \"randomSeed\": " + std::to_string(resources_.size() + 1) + "}" + size +
                   ", \"$comment\": \"left out of the capture (FREEDML_CAPTURE_LIMIT)\"}";
        }
        resources_.push_back(Quote(name) + ": " + json);
    }

    void Fail(const std::string& reason) {
        if (failed_) return;
        failed_ = true;
        Report(D3D12_MESSAGE_SEVERITY_WARNING, "Capture: " + reason + "; the capture in '" +
                                                   GetSettings().directory.string() +
                                                   "' stops here and the program goes on without it.");
    }

    void WriteModel() {
        std::string text = "{\n  \"$comment\": \"A FreeDML capture: replay it with dmlrun, check it with dmlrun --check.\",\n";
        text += "  \"$capture\": {\"format\": \"FreeDML capture\", \"version\": " + std::to_string(kFormatVersion) +
                ", \"executions\": " + std::to_string(commands_.size()) + "},\n";
        text += "  \"resources\": {\n    " + JoinLines(resources_) + "\n  },\n";
        text += "  \"dispatchables\": {\n    " + JoinLines(dispatchables_) + "\n  },\n";
        text += "  \"commands\": [\n    " + JoinLines(commands_) + "\n  ]\n}\n";
        const std::filesystem::path target = GetSettings().directory / "model.json";
        const std::filesystem::path temporary = GetSettings().directory / "model.json.partial";
        {
            std::ofstream file(temporary, std::ios::binary | std::ios::trunc);
            file.write(text.data(), static_cast<std::streamsize>(text.size()));
            file.close();
            if (!file) return Fail("cannot write '" + temporary.string() + "' (" + std::strerror(errno) + ")");
        }
        std::error_code error;
        std::filesystem::rename(temporary, target, error);
        if (error) Fail("cannot write '" + target.string() + "' (" + error.message() + ")");
    }

    static std::string JoinLines(const std::vector<std::string>& items) {
        std::string out;
        for (const auto& item : items) out += (out.empty() ? "" : ",\n    ") + item;
        return out;
    }

    std::mutex mutex_;
    bool failed_ = false;
    bool limitReported_ = false;
    uint64_t executions_ = 0;
    uint64_t initializations_ = 0;
    uint64_t dataBytes_ = 0;
    uint64_t nextToken_ = 1;
    bool unwritten_ = false;  // dispatches captured since model.json was last written
    std::chrono::steady_clock::time_point lastWrite_{};
    std::set<std::string> files_;
    std::set<std::string> names_;  // of dispatchables
    std::vector<std::string> resources_;
    std::vector<std::string> dispatchables_;
    std::vector<std::string> commands_;
    std::map<uint64_t, PendingExecution> pending_;

    friend bool Start();
};

// Creates the directory; a capture that cannot start says so once and stays off.
bool Start() {
    Settings& settings = GetSettings();
    if (settings.directory.empty()) return false;
    std::error_code error;
    std::filesystem::create_directories(settings.directory, error);
    if (error || !std::filesystem::is_directory(settings.directory, error)) {
        Report(D3D12_MESSAGE_SEVERITY_WARNING, "Capture: cannot create the directory '" + settings.directory.string() +
                                                   "' (" + error.message() + "); nothing is captured.");
        return false;
    }
    std::atexit([] { Capture::Get().Flush(); });
    return true;
}

}  // namespace

const bool gEnabled = Start();

namespace {
struct Perturbation {
    std::string type;
    uint32_t device = 0;
};
const Perturbation* TestPerturbation() {
    static const Perturbation* perturbation = []() -> const Perturbation* {
        const char* value = std::getenv("FREEDML_TEST_PERTURB");
        if (!value || !std::strchr(value, '@')) return nullptr;
        auto* p = new Perturbation;  // never destroyed: read until exit
        std::string text = value;
        p->type = text.substr(0, text.find('@'));
        p->device = static_cast<uint32_t>(std::strtoul(text.c_str() + text.find('@') + 1, nullptr, 10));
        return p;
    }();
    return perturbation;
}
}  // namespace

const bool gExecutionHooks = gEnabled || TestPerturbation() != nullptr;

void ApplyTestPerturbation(CompiledOperator& compiled, uint32_t deviceOrdinal, const std::vector<Bound>& outputs,
                           backend::Stream& stream) {
    const Perturbation* p = TestPerturbation();
    const CompiledInterface& shape = compiled.Interface();
    if (!p || p->device != deviceOrdinal || !compiled.CaptureGraphJson().empty() || shape.operators.size() != 1) return;
    if (p->type != shape.operators.front()->Schema().name || outputs.empty() || outputs[0].index != 0) return;
    const TensorDesc* tensor = shape.outputs[0];
    if (!tensor) return;
    auto* address = const_cast<std::byte*>(outputs[0].address);
    uint8_t bytes[8] = {};
    const uint32_t size = ElementSizeInBytes(tensor->dataType);
    if (size == 0 || size > 8) return;
    stream.ReadToHost(bytes, address, size);
    stream.Finish();
    if (tensor->dataType == DML_TENSOR_DATA_TYPE_FLOAT32) {
        float v;
        std::memcpy(&v, bytes, 4);
        v += 1.0f;
        std::memcpy(bytes, &v, 4);
    } else if (tensor->dataType == DML_TENSOR_DATA_TYPE_FLOAT16) {
        uint16_t h;
        std::memcpy(&h, bytes, 2);
        h = FloatToHalf(HalfToFloat(h) + 1.0f);
        std::memcpy(bytes, &h, 2);
    } else {
        bytes[0] = static_cast<uint8_t>(bytes[0] + 1);
    }
    stream.WriteFromHost(address, bytes, size);
    stream.Finish();
}

std::string GraphJson(const DML_GRAPH_DESC& desc) {
    std::vector<std::string> names(desc.NodeCount);
    std::vector<const Operator*> ops(desc.NodeCount, nullptr);
    std::string nodes;
    for (UINT n = 0; n < desc.NodeCount; ++n) {
        const DML_GRAPH_NODE_DESC& node = desc.Nodes[n];
        names[n] = "node" + std::to_string(n);
        std::string json;
        if (node.Type == DML_GRAPH_NODE_TYPE_OPERATOR) {
            const auto* opNode = static_cast<const DML_OPERATOR_GRAPH_NODE_DESC*>(node.Desc);
            const Operator* op = AsChild<Operator>(opNode->Operator);
            if (!op) return {};
            ops[n] = op;
            json = OperatorJson(DML_OPERATOR_DESC{op->Schema().type, op->Args().desc});
        } else {
            const auto* constant = static_cast<const DML_CONSTANT_DATA_GRAPH_NODE_DESC*>(node.Desc);
            const auto* bytes = static_cast<const uint8_t*>(constant->Data);
            json = "{\"type\": \"constant\", \"dataType\": \"UINT8\", \"values\": [";
            for (SIZE_T i = 0; i < constant->DataSize; ++i) json += (i ? ", " : "") + std::to_string(bytes[i]);
            json += "]}";
        }
        nodes += (nodes.empty() ? "" : ", ") + Quote(names[n]) + ": " + json;
    }
    auto inputOf = [&](UINT node, UINT input) {
        return names[node] + "." + (ops[node] ? ops[node]->Args().inputNames[input] : std::string("?"));
    };
    auto outputOf = [&](UINT node, UINT output) {
        return ops[node] ? names[node] + "." + ops[node]->Args().outputNames[output] : names[node];
    };
    std::string edges;
    auto edge = [&](const std::string& from, const std::string& to) {
        edges += (edges.empty() ? "" : ", ") + ("{\"from\": " + Quote(from) + ", \"to\": " + Quote(to) + "}");
    };
    for (UINT e = 0; e < desc.InputEdgeCount; ++e) {
        const auto* in = static_cast<const DML_INPUT_GRAPH_EDGE_DESC*>(desc.InputEdges[e].Desc);
        edge("input" + std::to_string(in->GraphInputIndex), inputOf(in->ToNodeIndex, in->ToNodeInputIndex));
    }
    for (UINT e = 0; e < desc.IntermediateEdgeCount; ++e) {
        const auto* mid = static_cast<const DML_INTERMEDIATE_GRAPH_EDGE_DESC*>(desc.IntermediateEdges[e].Desc);
        edge(outputOf(mid->FromNodeIndex, mid->FromNodeOutputIndex), inputOf(mid->ToNodeIndex, mid->ToNodeInputIndex));
    }
    for (UINT e = 0; e < desc.OutputEdgeCount; ++e) {
        const auto* out = static_cast<const DML_OUTPUT_GRAPH_EDGE_DESC*>(desc.OutputEdges[e].Desc);
        edge(outputOf(out->FromNodeIndex, out->FromNodeOutputIndex), "output" + std::to_string(out->GraphOutputIndex));
    }
    std::string inputs, outputs;
    for (UINT i = 0; i < desc.InputCount; ++i) inputs += (i ? ", " : "") + Quote("input" + std::to_string(i));
    for (UINT i = 0; i < desc.OutputCount; ++i) outputs += (i ? ", " : "") + Quote("output" + std::to_string(i));
    return "{\"type\": \"graph\", \"inputs\": [" + inputs + "], \"outputs\": [" + outputs + "], \"nodes\": {" + nodes +
           "}, \"edges\": [" + edges + "]}";
}

void RecordInitialization(CompiledOperator& target, const std::vector<Bound>& inputs, backend::Stream& stream) {
    try {
        Capture::Get().RecordInitialization(target, inputs, stream);
    } catch (...) {  // out of memory: the capture is incomplete, the program goes on
    }
}

uint64_t ExecutionStarting(CompiledOperator& compiled, const std::vector<Bound>& inputs, const std::vector<Bound>& outputs,
                           backend::Stream& stream) {
    if (!gEnabled) return 0;
    try {
        return Capture::Get().ExecutionStarting(compiled, inputs, outputs, stream);
    } catch (...) {
        return 0;
    }
}

void ExecutionFinished(uint64_t token, const std::vector<Bound>& outputs, backend::Stream& stream) {
    if (token == 0) return;
    try {
        Capture::Get().ExecutionFinished(token, outputs, stream);
    } catch (...) {
    }
}

}  // namespace freedml::dml::capture
