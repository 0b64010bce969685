#include "json_document.h"

#include <cstdio>
#include <cstring>

namespace dmlrun {

JsonPath JsonPath::operator/(const std::string& key) const {
    JsonPath copy = *this;
    copy.segments_.emplace_back(key);
    return copy;
}

JsonPath JsonPath::operator[](size_t index) const {
    JsonPath copy = *this;
    copy.segments_.emplace_back(index);
    return copy;
}

std::string JsonPath::ToString() const {
    if (segments_.empty()) return "(the model)";
    std::string out;
    for (const auto& segment : segments_) {
        if (const auto* key = std::get_if<std::string>(&segment)) {
            if (!out.empty()) out += '.';
            out += *key;
        } else {
            out += '[' + std::to_string(std::get<size_t>(segment)) + ']';
        }
    }
    return out;
}

namespace {

// A minimal scanner over text that nlohmann::json already accepted (with comments and trailing
// commas), used only to find where a path's value starts. It never recurses, so no nesting depth
// can exhaust the stack.
class Scanner {
public:
    explicit Scanner(const std::string& text) : text_(text) {}

    size_t pos = 0;

    void SkipSpace() {
        while (pos < text_.size()) {
            char c = text_[pos];
            if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
                ++pos;
            } else if (c == '/' && pos + 1 < text_.size() && text_[pos + 1] == '/') {
                while (pos < text_.size() && text_[pos] != '\n') ++pos;
            } else if (c == '/' && pos + 1 < text_.size() && text_[pos + 1] == '*') {
                size_t end = text_.find("*/", pos + 2);
                pos = end == std::string::npos ? text_.size() : end + 2;
            } else {
                return;
            }
        }
    }

    bool Peek(char c) {
        SkipSpace();
        return pos < text_.size() && text_[pos] == c;
    }

    // Reads a string literal at pos (after SkipSpace), decoding the escapes keys may use.
    std::string ReadString() {
        std::string out;
        if (pos >= text_.size() || text_[pos] != '"') return out;
        ++pos;
        while (pos < text_.size() && text_[pos] != '"') {
            char c = text_[pos++];
            if (c != '\\' || pos >= text_.size()) {
                out += c;
                continue;
            }
            char e = text_[pos++];
            switch (e) {
                case 'n': out += '\n'; break;
                case 't': out += '\t'; break;
                case 'r': out += '\r'; break;
                case 'b': out += '\b'; break;
                case 'f': out += '\f'; break;
                case 'u': {
                    unsigned code = 0;
                    for (int i = 0; i < 4 && pos < text_.size(); ++i, ++pos) {
                        char h = text_[pos];
                        code = code * 16 + static_cast<unsigned>(h >= '0' && h <= '9' ? h - '0' : (h | 0x20) - 'a' + 10);
                    }
                    // Keys that differ only in escaped non-ASCII characters are rare; an
                    // approximate decoding only makes the line less precise.
                    out += code < 0x80 ? static_cast<char>(code) : '?';
                    break;
                }
                default: out += e; break;
            }
        }
        ++pos;  // the closing quote
        return out;
    }

    // Skips one value of any kind, counting brackets instead of recursing.
    void SkipValue() {
        SkipSpace();
        if (pos >= text_.size()) return;
        if (text_[pos] == '"') {
            ReadString();
            return;
        }
        if (text_[pos] != '{' && text_[pos] != '[') {
            while (pos < text_.size() && !std::strchr(",]} \t\r\n/", text_[pos])) ++pos;
            return;
        }
        size_t depth = 0;
        while (pos < text_.size()) {
            SkipSpace();
            if (pos >= text_.size()) return;
            char c = text_[pos];
            if (c == '"') {
                ReadString();
                continue;
            }
            ++pos;
            if (c == '{' || c == '[') ++depth;
            if ((c == '}' || c == ']') && --depth == 0) return;
        }
    }

private:
    const std::string& text_;
};

}  // namespace

std::string BlankTrailingCommas(std::string text) {
    size_t i = 0;
    const size_t n = text.size();
    while (i < n) {
        char c = text[i];
        if (c == '"') {
            for (++i; i < n && text[i] != '"'; ++i) {
                if (text[i] == '\\') ++i;
            }
            ++i;
        } else if (c == '/' && i + 1 < n && text[i + 1] == '/') {
            while (i < n && text[i] != '\n') ++i;
        } else if (c == '/' && i + 1 < n && text[i + 1] == '*') {
            size_t end = text.find("*/", i + 2);
            i = end == std::string::npos ? n : end + 2;
        } else if (c == ',') {
            Scanner scanner(text);
            scanner.pos = i + 1;
            scanner.SkipSpace();
            if (scanner.pos < n && (text[scanner.pos] == ']' || text[scanner.pos] == '}')) text[i] = ' ';
            ++i;
        } else {
            ++i;
        }
    }
    return text;
}

TextPosition PositionOf(const std::string& text, size_t offset) {
    TextPosition position{1, 1};
    for (size_t i = 0; i < offset && i < text.size(); ++i) {
        if (text[i] == '\n') {
            ++position.line;
            position.column = 1;
        } else {
            ++position.column;
        }
    }
    return position;
}

JsonDocument JsonDocument::Parse(std::string text) {
    JsonDocument document;
    document.text_ = BlankTrailingCommas(std::move(text));
    try {
        document.root_ = Json::parse(document.text_, nullptr, /*allow_exceptions=*/true, /*ignore_comments=*/true);
    } catch (const Json::parse_error& error) {
        // nlohmann's message begins "[json.exception.parse_error.101] parse error at line 1,
        // column 2: "; keep what follows, and give the position our own way.
        std::string message = error.what();
        size_t colon = message.find(": ");
        if (colon != std::string::npos) message = message.substr(colon + 2);
        size_t offset = error.byte > 0 ? error.byte - 1 : 0;
        throw ModelError(PositionOf(document.text_, offset), "invalid JSON: " + message);
    } catch (const Json::exception& error) {
        // A number beyond a double ("1e309") is out_of_range, without a position: find the
        // number nlohmann quotes in its message.
        std::string message = error.what();
        size_t colon = message.find("] ");
        if (colon != std::string::npos) message = message.substr(colon + 2);
        size_t open = message.find('\''), close = message.rfind('\'');
        size_t offset = 0;
        if (open != std::string::npos && close > open) {
            size_t found = document.text_.find(message.substr(open + 1, close - open - 1));
            if (found != std::string::npos) offset = found;
        }
        throw ModelError(PositionOf(document.text_, offset), "invalid JSON: " + message);
    }
    return document;
}

std::optional<TextPosition> JsonDocument::Locate(const JsonPath& path) const {
    Scanner scanner(text_);
    scanner.SkipSpace();
    if (scanner.pos >= text_.size()) return std::nullopt;
    size_t found = scanner.pos;  // where the deepest existing part of the path starts
    for (const auto& segment : path.Segments()) {
        if (const auto* key = std::get_if<std::string>(&segment)) {
            if (!scanner.Peek('{')) break;
            ++scanner.pos;
            bool matched = false;
            while (!scanner.Peek('}') && scanner.pos < text_.size()) {
                std::string name = scanner.ReadString();
                if (!scanner.Peek(':')) return PositionOf(text_, found);
                ++scanner.pos;
                scanner.SkipSpace();
                if (name == *key) {
                    matched = true;
                    break;
                }
                scanner.SkipValue();
                if (scanner.Peek(',')) ++scanner.pos;
            }
            if (!matched) break;
        } else {
            if (!scanner.Peek('[')) break;
            ++scanner.pos;
            size_t index = std::get<size_t>(segment);
            bool matched = true;
            for (size_t i = 0; i < index; ++i) {
                if (scanner.Peek(']') || scanner.pos >= text_.size()) {
                    matched = false;
                    break;
                }
                scanner.SkipValue();
                if (scanner.Peek(',')) ++scanner.pos;
            }
            if (!matched || scanner.Peek(']')) break;
        }
        found = scanner.pos;
    }
    return PositionOf(text_, found);
}

std::string JsonDocument::Describe(const ModelError& error, const std::string& file) const {
    std::optional<TextPosition> position = error.Position();
    if (!position) position = Locate(error.Path());
    std::string out = file;
    if (position) {
        out += (out.empty() ? "" : ":") + std::to_string(position->line) + ":" + std::to_string(position->column);
    }
    if (!out.empty()) out += ": ";
    if (!error.Path().Empty()) out += error.Path().ToString() + ": ";
    out += error.what();
    return out;
}

std::string DescribeValue(const Json& value) {
    switch (value.type()) {
        case Json::value_t::null: return "null";
        case Json::value_t::boolean: return value.get<bool>() ? "true" : "false";
        case Json::value_t::number_integer: return "the number " + std::to_string(value.get<int64_t>());
        case Json::value_t::number_unsigned: return "the number " + std::to_string(value.get<uint64_t>());
        case Json::value_t::number_float: {
            char buffer[64];
            std::snprintf(buffer, sizeof(buffer), "the number %.17g", value.get<double>());
            return buffer;
        }
        case Json::value_t::string: {
            const std::string& text = value.get_ref<const std::string&>();
            std::string shown = text.size() > 40 ? text.substr(0, 40) + "..." : text;
            for (char& c : shown) {
                if (static_cast<unsigned char>(c) < 0x20) c = ' ';
            }
            return "the string \"" + shown + "\"";
        }
        case Json::value_t::array: return "an array of " + std::to_string(value.size()) + " values";
        case Json::value_t::object: return "an object";
        default: return "a value of another kind";
    }
}

const Json* FindMember(const Json& object, const char* name) {
    auto it = object.find(name);
    return it == object.end() ? nullptr : &*it;
}

const Json& Require(const Json& object, const JsonPath& path, const char* name, const char* what) {
    const Json* member = FindMember(object, name);
    if (!member) throw ModelError(path, std::string("missing \"") + name + "\" (" + what + ").");
    return *member;
}

const std::string& ExpectString(const Json& value, const JsonPath& path, const char* what) {
    if (!value.is_string()) throw ModelError(path, std::string("expected ") + what + " (a string), found " + DescribeValue(value) + ".");
    return value.get_ref<const std::string&>();
}

void ExpectObject(const Json& value, const JsonPath& path, const char* what) {
    if (!value.is_object()) throw ModelError(path, std::string("expected ") + what + " (a JSON object), found " + DescribeValue(value) + ".");
}

}  // namespace dmlrun
