// The JSON text of a model: parsing (comments and trailing commas allowed, as DxDispatch allows
// them), JSON paths for messages ("dispatchables.gemm.desc.ATensor.Sizes[2]"), and the line and
// column where a path's value starts, found again in the text when an error needs it.
#pragma once

#include <cstddef>
#include <optional>
#include <stdexcept>
#include <string>
#include <variant>
#include <vector>

#include <nlohmann/json.hpp>

namespace dmlrun {

// Object members keep their order in the file, so messages and runs follow the file.
using Json = nlohmann::ordered_json;

class JsonPath {
public:
    using Segment = std::variant<std::string, size_t>;  // an object key or an array index

    JsonPath() = default;
    JsonPath operator/(const std::string& key) const;
    JsonPath operator[](size_t index) const;
    const std::vector<Segment>& Segments() const { return segments_; }
    bool Empty() const { return segments_.empty(); }
    // "resources.A.initialValues[3]"; "(the model)" for the root.
    std::string ToString() const;

private:
    std::vector<Segment> segments_;
};

struct TextPosition {
    size_t line = 0;    // 1-based
    size_t column = 0;  // 1-based, in bytes
};

// A model that is wrong: where (a JSON path, and a line when known) and what was expected.
class ModelError : public std::runtime_error {
public:
    ModelError(JsonPath path, const std::string& message) : std::runtime_error(message), path_(std::move(path)) {}
    ModelError(TextPosition position, const std::string& message) : std::runtime_error(message), position_(position) {}
    const JsonPath& Path() const { return path_; }
    const std::optional<TextPosition>& Position() const { return position_; }

private:
    JsonPath path_;
    std::optional<TextPosition> position_;
};

class JsonDocument {
public:
    // Throws ModelError with the line and column of the first syntax error.
    static JsonDocument Parse(std::string text);

    const Json& Root() const { return root_; }
    // Where the value at `path` starts; for a path that does not exist (a missing field), where
    // the deepest part of it that exists starts. nullopt only for an empty document.
    std::optional<TextPosition> Locate(const JsonPath& path) const;
    // "file.json:12:5: dispatchables.gemm.Alpha: message" (`file` may be empty).
    std::string Describe(const ModelError& error, const std::string& file) const;

private:
    std::string text_;  // with trailing commas blanked, so offsets are the file's
    Json root_;
};

// Replaces every comma that only precedes a closing bracket with a space, outside strings and
// comments. Positions in the text stay the same.
std::string BlankTrailingCommas(std::string text);
TextPosition PositionOf(const std::string& text, size_t offset);

// A short description of a JSON value for messages: `the string "abc"`, `the number -1`, `an
// object`. Never serializes a whole object or array.
std::string DescribeValue(const Json& value);

// Reading a model's objects: the member `name` (null when absent); the member or a ModelError
// saying it is missing (`what` it holds); a string or a ModelError; an object or a ModelError.
const Json* FindMember(const Json& object, const char* name);
const Json& Require(const Json& object, const JsonPath& path, const char* name, const char* what);
const std::string& ExpectString(const Json& value, const JsonPath& path, const char* what);
void ExpectObject(const Json& value, const JsonPath& path, const char* what);

}  // namespace dmlrun
