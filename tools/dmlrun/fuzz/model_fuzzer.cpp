// libFuzzer target of dmlrun's model reader: JSON text -> model (resources, initializers,
// bindings) -> operator descs built through the schemas -> the library's own deep copy and
// validation of each desc (what CreateOperator runs first), plus the error paths (locating a JSON
// path in the text) and the print formatting. Inputs that start as .npy files go to the .npy reader,
// inputs that start with a small little-endian offset (three zero bytes after the first, which JSON
// text never has) to the serialized-graph reader and the graph builder.
// No files are opened and buffers are capped at 16 MiB, so every input runs quickly.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>

#include "dml/schema/schema.h"
#include "graph_model.h"
#include "json_document.h"
#include "model.h"
#include "npy.h"
#include "print_format.h"
#include "serialized_graph.h"
#include "values.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    if (size >= 6 && std::memcmp(data, "\x93NUMPY", 6) == 0) {
        try {
            dmlrun::NpyArray array = dmlrun::ReadNpy(std::vector<uint8_t>(data, data + size), 1 << 24);
            (void)dmlrun::WriteNpy(array.dataType, array.shape, array.data);
        } catch (const std::runtime_error&) {
        }
        return 0;
    }
    if (size >= 8 && data[1] == 0 && data[2] == 0 && data[3] == 0) {
        try {
            // Named constants are looked up in a directory that does not exist: no file is opened.
            const dmlrun::Json graph =
                dmlrun::ReadSerializedGraph(std::vector<uint8_t>(data, data + size), "/nonexistent-fuzz-directory");
            (void)dmlrun::BuildGraph(graph, dmlrun::JsonPath() / "graph");
        } catch (const dmlrun::SerializedGraphError&) {
        } catch (const dmlrun::ModelError&) {
        }
        return 0;
    }
    dmlrun::JsonDocument document;
    try {
        document = dmlrun::JsonDocument::Parse(std::string(reinterpret_cast<const char*>(data), size));
        dmlrun::ParseOptions options;
        options.allowFiles = false;
        options.maxMemoryBytes = 1 << 24;
        dmlrun::Model model = dmlrun::ParseModel(document.Root(), options);
        for (const auto& dispatchable : model.dispatchables) {
            if (!dispatchable.op) continue;  // a graph dispatchable
            std::unique_ptr<freedml::dml::OwnedOperatorDesc> owned;
            if (freedml::dml::OwnedOperatorDesc::Copy(dispatchable.op->Desc(), &owned).ok()) {
                std::unique_ptr<freedml::dml::OperatorArgs> args;
                (void)freedml::dml::ValidateOperatorDesc(*owned, DML_FEATURE_LEVEL_6_4, &args);
            }
        }
        for (const auto& resource : model.resources) {
            if (dmlrun::ValueSizeInBytes(resource.dataType) == 0) continue;
            (void)dmlrun::FormatResource(resource.name, resource.dataType, resource.initialValues.data(),
                                         dmlrun::PrintedElementCount(resource), resource.initialValues.size() < 64);
        }
    } catch (const dmlrun::ModelError& error) {
        (void)document.Describe(error, "fuzz.json");
    }
    return 0;
}
