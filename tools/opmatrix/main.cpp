// opmatrix: writes docs/OPERATORS.md, the operator support matrix, from the operator catalog
// (what DirectML allows) and the schema registry (what FreeDML runs, and which data types its
// validation accepts). `opmatrix --check FILE` fails when FILE is not what it would write.
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "dml/schema/catalog.h"
#include "dml/schema/schema.h"
#include "probe.h"

using namespace freedml::dml;
using freedml::opmatrix::ProbeDataTypes;
using freedml::opmatrix::ProbeResult;

namespace {

const char* Token(DML_TENSOR_DATA_TYPE type) {
    switch (type) {
        case DML_TENSOR_DATA_TYPE_FLOAT64: return "f64";
        case DML_TENSOR_DATA_TYPE_FLOAT32: return "f32";
        case DML_TENSOR_DATA_TYPE_FLOAT16: return "f16";
        case DML_TENSOR_DATA_TYPE_INT64: return "i64";
        case DML_TENSOR_DATA_TYPE_INT32: return "i32";
        case DML_TENSOR_DATA_TYPE_INT16: return "i16";
        case DML_TENSOR_DATA_TYPE_INT8: return "i8";
        case DML_TENSOR_DATA_TYPE_UINT64: return "u64";
        case DML_TENSOR_DATA_TYPE_UINT32: return "u32";
        case DML_TENSOR_DATA_TYPE_UINT16: return "u16";
        case DML_TENSOR_DATA_TYPE_UINT8: return "u8";
        case DML_TENSOR_DATA_TYPE_INT4: return "i4";
        case DML_TENSOR_DATA_TYPE_UINT4: return "u4";
        default: return "?";
    }
}

std::string Tokens(DataTypeSet set) {
    std::string text;
    for (auto type : CatalogDataTypeOrder()) {
        if (set & DataTypeBit(type)) text += (text.empty() ? "" : " ") + std::string(Token(type));
    }
    return text.empty() ? "none" : text;
}

// "ATensor" -> "A", "InputTensors" -> "Inputs": the table is wide enough already.
std::string ShortName(const std::string& name) {
    if (name.size() > 7 && name.compare(name.size() - 7, 7, "Tensors") == 0) return name.substr(0, name.size() - 7) + "s";
    if (name.size() > 6 && name.compare(name.size() - 6, 6, "Tensor") == 0) return name.substr(0, name.size() - 6);
    return name;
}

// Tensors with the same set share a group: "A, B: f32 f16; Output: u8". One group: just the set.
std::string GroupedTypes(const std::vector<std::pair<std::string, DataTypeSet>>& tensors) {
    std::vector<std::pair<std::vector<std::string>, DataTypeSet>> groups;
    for (const auto& tensor : tensors) {
        const DataTypeSet set = tensor.second;
        auto it = std::find_if(groups.begin(), groups.end(), [set](const auto& g) { return g.second == set; });
        if (it == groups.end()) {
            groups.push_back({{ShortName(tensor.first)}, set});
        } else {
            it->first.push_back(ShortName(tensor.first));
        }
    }
    if (groups.size() == 1) return Tokens(groups.front().second);
    std::string text;
    for (const auto& [names, set] : groups) {
        if (!text.empty()) text += "; ";
        for (size_t i = 0; i < names.size(); ++i) text += (i ? ", " : "") + names[i];
        text += ": " + Tokens(set);
    }
    return text;
}

struct Row {
    const CatalogEntry* entry;
    const OperatorSchema* schema;
    ProbeResult probe;
    bool complete = false;  // FreeDML accepts every type DirectML allows, for every tensor
    std::string cpu;
};

// What the CPU column says for an implemented operator, from the probe against the catalog.
void DescribeCpu(Row& row) {
    const auto& entry = *row.entry;
    if (!row.probe.ok) {
        row.cpu = "yes (data types not probed)";
        return;
    }
    std::vector<std::pair<std::string, DataTypeSet>> accepted;
    for (const auto& tensor : row.probe.tensors) accepted.push_back({tensor.name, tensor.accepted});
    if (!entry.dataTypesKnown) {
        // The page lists none: complete only where FreeDML takes every type a tensor of 8 to 64
        // bits can have (DirectML lists the 4-bit ones for QUANTIZE and DEQUANTIZE alone).
        constexpr DML_TENSOR_DATA_TYPE kWide[] = {
            DML_TENSOR_DATA_TYPE_FLOAT64, DML_TENSOR_DATA_TYPE_FLOAT32, DML_TENSOR_DATA_TYPE_FLOAT16,
            DML_TENSOR_DATA_TYPE_INT64,   DML_TENSOR_DATA_TYPE_INT32,   DML_TENSOR_DATA_TYPE_INT16,
            DML_TENSOR_DATA_TYPE_INT8,    DML_TENSOR_DATA_TYPE_UINT64,  DML_TENSOR_DATA_TYPE_UINT32,
            DML_TENSOR_DATA_TYPE_UINT16,  DML_TENSOR_DATA_TYPE_UINT8};
        DataTypeSet wide = 0;
        for (auto type : kWide) wide |= DataTypeBit(type);
        bool all = !row.probe.tensors.empty();
        for (const auto& tensor : row.probe.tensors) all = all && (tensor.accepted & wide) == wide;
        row.complete = all;
        row.cpu = all ? "yes: every 8- to 64-bit type" : "yes: " + GroupedTypes(accepted);
        return;
    }
    DataTypeSet missing = 0, extra = 0;
    bool matched = true;
    for (const auto& tensor : row.probe.tensors) {
        const CatalogTensor* expected = entry.FindTensor(tensor.name);
        if (!expected) {
            matched = false;
            continue;
        }
        missing |= expected->types & ~tensor.accepted;
        extra |= tensor.accepted & ~expected->types;
    }
    if (!matched) {
        row.cpu = "yes: " + GroupedTypes(accepted);
        return;
    }
    row.complete = missing == 0;
    row.cpu = missing == 0 ? "yes" : "yes, except " + Tokens(missing);
    if (extra) row.cpu += " (also " + Tokens(extra) + ")";
}

std::string Generate(std::vector<std::string>* probeFailures) {
    std::vector<Row> rows;
    size_t cpu = 0, cpuComplete = 0, cuda = 0, schemaOnly = 0, inPlace = 0, typesKnown = 0;
    for (const auto& entry : OperatorCatalog()) {
        Row row{&entry, FindSchema(entry.type), {}};
        if (entry.supportsInPlaceExecution) ++inPlace;
        if (entry.dataTypesKnown) ++typesKnown;
        if (row.schema && IsImplemented(*row.schema)) {
            ++cpu;
            row.probe = ProbeDataTypes(*row.schema);
            DescribeCpu(row);
            if (row.complete) ++cpuComplete;
            if (!row.probe.ok) probeFailures->push_back(std::string(entry.name) + ": " + row.probe.failure);
        } else if (row.schema) {
            ++schemaOnly;
            row.cpu = "no (schema only)";
        } else {
            row.cpu = "no";
        }
        if (row.schema && RunsOnCuda(*row.schema)) ++cuda;
        rows.push_back(std::move(row));
    }

    std::ostringstream md;
    md << "# Operator support\n\n"
          "<!-- Generated by tools/opmatrix from the operator schemas (src/dml/schema) and the operator\n"
          "     catalog (src/dml/schema/catalog.cpp). Do not edit by hand: regenerate with\n"
          "     cmake --build build --target update_operators_md -->\n\n"
          "Every DirectML operator type through feature level 6.4, what DirectML allows for it, and what\n"
          "FreeDML runs. The FreeDML columns come from the code: an operator counts as run when its schema\n"
          "is implemented, and the data types are the ones its validation accepts (the generator asks the\n"
          "validation with a small desc per data type), so this page cannot drift from the library.\n"
          "How ONNX models lower to these operators, with ONNX's backend test suite case by case and its\n"
          "pass counts, is on the sibling page [ONNX-BACKEND.md](ONNX-BACKEND.md).\n\n";
    md << "## Totals\n\n| | operators |\n| --- | ---: |\n";
    md << "| DirectML operator types | " << rows.size() << " |\n";
    md << "| run by FreeDML on the CPU | " << cpu << " |\n";
    md << "| ... with every data type DirectML allows | " << cpuComplete << " |\n";
    md << "| run by FreeDML on CUDA | " << cuda << " |\n";
    md << "| known to FreeDML by layout only (schema, not run) | " << schemaOnly << " |\n";
    md << "| not yet in FreeDML | " << rows.size() - cpu - schemaOnly << " |\n";
    md << "| in-place execution allowed by DirectML | " << inPlace << " |\n";
    md << "| data types given by DirectML's reference page | " << typesKnown << " |\n\n";

    md << "## Reading the table\n\n"
          "- **Level**: the DirectML feature level that introduced the operator. A device created at a lower\n"
          "  level refuses it.\n"
          "- **DirectML data types**: what DirectML's reference page allows at the highest feature level, per\n"
          "  tensor (desc member without its `Tensor` suffix; tensors sharing a list are grouped). A single list\n"
          "  applies to every tensor. `f64 f32 f16` are FLOAT64/32/16, `i64`..`i4` INT64..INT4, `u64`..`u4`\n"
          "  UINT64..UINT4. `unknown`: the page gives none.\n"
          "- **CPU**: `yes` when FreeDML runs it on the CPU with every data type DirectML allows (where the page\n"
          "  lists none, every 8- to 64-bit type); `yes, except`\n"
          "  names the types FreeDML's validation refuses; `(also ...)` names types it accepts beyond\n"
          "  DirectML. `no (schema only)`: FreeDML knows the desc (dmlrun reads it) but does not run it.\n"
          "- **CUDA**: whether the CUDA backend runs it.\n"
          "- **In place**: DirectML lets an output be bound to exactly the region of an input (BINDING-RULES.md,\n"
          "  H2).\n\n";

    md << "## Operators\n\n| # | Operator | Level | DirectML data types | CPU | CUDA | In place |\n"
          "| ---: | --- | --- | --- | --- | --- | --- |\n";
    std::vector<std::string> notes;
    for (const auto& row : rows) {
        const auto& entry = *row.entry;
        std::string types = "unknown";
        if (entry.dataTypesKnown) {
            std::vector<std::pair<std::string, DataTypeSet>> tensors;
            for (const auto& tensor : entry.tensors) tensors.push_back({tensor.name, tensor.types});
            types = GroupedTypes(tensors);
        }
        std::string name = "`" + std::string(entry.name) + "`";
        if (entry.note) {
            notes.push_back(std::string(entry.name) + ": " + entry.note);
            name += " [" + std::to_string(notes.size()) + "]";
        }
        md << "| " << static_cast<int>(entry.type) << " | " << name << " | " << FeatureLevelToString(entry.featureLevel)
           << " | " << types << " | " << row.cpu << " | " << (row.schema && RunsOnCuda(*row.schema) ? "yes" : "no")
           << " | " << (entry.supportsInPlaceExecution ? "yes" : "no") << " |\n";
    }
    md << "\n## Notes\n\n";
    for (size_t i = 0; i < notes.size(); ++i) md << i + 1 << ". " << notes[i] << "\n";
    if (!probeFailures->empty()) {
        md << "\n## Operators whose data types were not probed\n\n"
              "The generator found no desc its small probes could build that the validation accepts:\n\n";
        for (const auto& failure : *probeFailures) md << "- " << failure << "\n";
    }
    return md.str();
}

bool ReadFile(const char* path, std::string* text) {
    std::ifstream file(path, std::ios::binary);
    if (!file) return false;
    std::ostringstream content;
    content << file.rdbuf();
    *text = content.str();
    return true;
}

int Usage() {
    std::fprintf(stderr,
                 "usage: opmatrix [--output FILE | --check FILE]\n"
                 "  Writes the operator support matrix (docs/OPERATORS.md) to standard output or FILE;\n"
                 "  --check exits 1 when FILE differs from what opmatrix generates.\n");
    return 2;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc != 1 && argc != 3) return Usage();
    if (!CatalogParseErrors().empty()) {
        for (const auto& error : CatalogParseErrors()) std::fprintf(stderr, "opmatrix: catalog: %s\n", error.c_str());
        return 1;
    }
    std::vector<std::string> probeFailures;
    const std::string markdown = Generate(&probeFailures);
    if (argc == 1) {
        std::fwrite(markdown.data(), 1, markdown.size(), stdout);
        return 0;
    }
    const char* path = argv[2];
    if (std::strcmp(argv[1], "--output") == 0) {
        std::ofstream file(path, std::ios::binary);
        file << markdown;
        if (!file) {
            std::fprintf(stderr, "opmatrix: cannot write %s\n", path);
            return 1;
        }
        return 0;
    }
    if (std::strcmp(argv[1], "--check") == 0) {
        std::string committed;
        if (!ReadFile(path, &committed)) {
            std::fprintf(stderr, "opmatrix: cannot read %s\n", path);
            return 1;
        }
        if (committed == markdown) return 0;
        std::fprintf(stderr,
                     "opmatrix: %s is out of date: the operator schemas or the catalog changed.\n"
                     "Regenerate it and commit the result:\n"
                     "    cmake --build <build dir> --target update_operators_md\n",
                     path);
        // Point at the first line that differs so the change is easy to see.
        std::istringstream a(committed), b(markdown);
        std::string lineA, lineB;
        for (int line = 1;; ++line) {
            bool moreA = static_cast<bool>(std::getline(a, lineA));
            bool moreB = static_cast<bool>(std::getline(b, lineB));
            if (!moreA && !moreB) break;
            if (!moreA || !moreB || lineA != lineB) {
                std::fprintf(stderr, "first difference at line %d:\n  committed: %s\n  generated: %s\n", line,
                             moreA ? lineA.c_str() : "(end of file)", moreB ? lineB.c_str() : "(end of file)");
                break;
            }
        }
        return 1;
    }
    return Usage();
}
