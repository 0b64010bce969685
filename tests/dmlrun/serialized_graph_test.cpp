// The reader of DirectML's binary graph serialization (tools/dmlrun/serialized_graph.h) on the graph
// models/serialized/write_graphs.py writes: what it reads (checked against the writer's graph), and
// damaged copies of it (every truncation, bytes flipped at every offset), which are refused with a
// reason or read into a graph that dmlrun then checks; nothing reads past the buffer (the sanitizer
// run of this test would say).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>

#include "graph_model.h"
#include "serialized_graph.h"

namespace dmlrun {
namespace {

const std::filesystem::path kDirectory = std::filesystem::path(FREEDML_MODELS_DIR) / "serialized";

std::vector<uint8_t> LayerBytes() {
    std::ifstream in(kDirectory / "layer.bin", std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

bool HasEdge(const Json& graph, const std::string& from, const std::string& to) {
    for (const Json& edge : graph["edges"]) {
        if (edge["from"] == from && edge["to"] == to) return true;
    }
    return false;
}

TEST(SerializedGraphTest, ReadsTheLayerGraph) {
    const std::vector<uint8_t> bytes = LayerBytes();
    ASSERT_GT(bytes.size(), 100u);
    const Json graph = ReadSerializedGraph(bytes, kDirectory);
    EXPECT_EQ(graph["inputs"], Json::array({"X"}));
    EXPECT_EQ(graph["outputs"], Json::array({"Y"}));
    const Json& nodes = graph["nodes"];
    ASSERT_EQ(nodes.size(), 5u);
    // write_graphs.py's values: b inline, W = (0..11 - 5) / 4 from layer_weights.bin.
    EXPECT_EQ(nodes["bias"]["values"], Json::array({0.5, -1.0, 2.0}));
    ASSERT_EQ(nodes["weights"]["values"].size(), 12u);
    EXPECT_EQ(nodes["weights"]["values"][0], -1.25);
    EXPECT_EQ(nodes["weights"]["values"][11], 1.5);
    const Json& fc = nodes["fc"];
    EXPECT_EQ(fc["type"], "DML_OPERATOR_GEMM");
    EXPECT_EQ(fc["desc"]["TransA"], "DML_MATRIX_TRANSFORM_NONE");
    EXPECT_EQ(fc["desc"]["Beta"], 1.0);
    EXPECT_FALSE(fc["desc"].contains("FusedActivation")) << "an attribute without a value is left out";
    EXPECT_EQ(fc["desc"]["CTensor"]["Strides"], Json::array({0, 0, 0, 1}));
    EXPECT_EQ(fc["desc"]["CTensor"]["TotalTensorSizeInBytes"], 12);
    EXPECT_EQ(nodes["act"]["desc"]["Alpha"], 0.125);
    EXPECT_EQ(nodes["scale"]["desc"]["ScaleBias"], (Json{{"Scale", 2.0}, {"Bias", -1.0}}));
    EXPECT_TRUE(HasEdge(graph, "X", "fc.ATensor"));
    EXPECT_TRUE(HasEdge(graph, "weights", "fc.BTensor"));
    EXPECT_TRUE(HasEdge(graph, "bias", "fc.CTensor"));
    EXPECT_TRUE(HasEdge(graph, "fc.OutputTensor", "act.InputTensor"));
    EXPECT_TRUE(HasEdge(graph, "scale.OutputTensor", "Y"));
    auto built = BuildGraph(graph, JsonPath() / "layer");
    EXPECT_EQ(built->nodes.size(), 5u);
    EXPECT_EQ(built->inputEdges.size(), 1u);
    EXPECT_EQ(built->outputEdges.size(), 1u);
}

std::string RefusalOf(const std::vector<uint8_t>& bytes, const std::filesystem::path& directory = kDirectory) {
    try {
        ReadSerializedGraph(bytes, directory);
    } catch (const SerializedGraphError& error) {
        return error.what();
    }
    return "";
}

// Every object the writer makes is referred to by an earlier one, so any truncation cuts off
// something the graph needs.
TEST(SerializedGraphTest, EveryTruncationIsRefusedWithAReason) {
    const std::vector<uint8_t> bytes = LayerBytes();
    for (size_t length = 0; length < bytes.size(); ++length) {
        const std::string reason = RefusalOf({bytes.begin(), bytes.begin() + length});
        ASSERT_FALSE(reason.empty()) << "the first " << length << " bytes were read as a graph";
    }
    EXPECT_NE(RefusalOf({bytes.begin(), bytes.begin() + 4}).find("too few"), std::string::npos);
}

TEST(SerializedGraphTest, DamagedBytesAreRefusedOrReadSafely) {
    const std::vector<uint8_t> bytes = LayerBytes();
    size_t refused = 0, read = 0;
    for (size_t at = 0; at < bytes.size(); ++at) {
        for (uint8_t flip : {uint8_t(0x01), uint8_t(0x80), uint8_t(0xFF)}) {
            std::vector<uint8_t> damaged = bytes;
            damaged[at] ^= flip;
            try {
                const Json graph = ReadSerializedGraph(damaged, kDirectory);
                ++read;
                try {
                    BuildGraph(graph, JsonPath() / "layer");
                } catch (const ModelError&) {
                }
            } catch (const SerializedGraphError& error) {
                ++refused;
                ASSERT_GT(std::string(error.what()).size(), 10u);
            }
        }
    }
    EXPECT_GT(refused, bytes.size()) << "most flips in offsets and counts must be caught";
    EXPECT_GT(read, 0u) << "a flip inside a float value still reads";
}

TEST(SerializedGraphTest, NamedReasons) {
    std::vector<uint8_t> bytes = LayerBytes();
    std::vector<uint8_t> rootPastEnd = bytes;
    rootPastEnd[3] = 0x7F;  // the root offset
    EXPECT_NE(RefusalOf(rootPastEnd).find("past the end"), std::string::npos) << RefusalOf(rootPastEnd);
    const std::string missing = RefusalOf(bytes, kDirectory / "no-such-directory");
    EXPECT_NE(missing.find("layer_weights.bin"), std::string::npos) << missing;
}

}  // namespace
}  // namespace dmlrun
