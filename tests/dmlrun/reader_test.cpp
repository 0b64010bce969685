// dmlrun's model reader, piece by piece: JSON paths and positions, typed values and FLOAT16, .npy
// files, the schema-driven desc builder, model checks, and the print formats.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

#include "desc_builder.h"
#include "json_document.h"
#include "model.h"
#include "npy.h"
#include "print_format.h"
#include "values.h"

namespace dmlrun {
namespace {

Json Parse(const std::string& text) { return JsonDocument::Parse(text).Root(); }

// The message of the ModelError `f` throws, as "path: message".
template <class F>
std::string ErrorOf(F f) {
    try {
        f();
    } catch (const ModelError& error) {
        return error.Path().ToString() + ": " + error.what();
    }
    return "(no error)";
}

TEST(JsonDocumentTest, PathsPrintAsDotsAndIndices) {
    JsonPath path = (JsonPath() / "dispatchables" / "gemm" / "desc" / "ATensor" / "Sizes")[2];
    EXPECT_EQ(path.ToString(), "dispatchables.gemm.desc.ATensor.Sizes[2]");
    EXPECT_EQ(JsonPath().ToString(), "(the model)");
}

TEST(JsonDocumentTest, TrailingCommasAreBlankedOutsideStringsAndComments) {
    EXPECT_EQ(BlankTrailingCommas("[1, 2,]"), "[1, 2 ]");
    EXPECT_EQ(BlankTrailingCommas("{\"a\": 1, /* c */ }"), "{\"a\": 1  /* c */ }");
    EXPECT_EQ(BlankTrailingCommas("[\",]\", 1]"), "[\",]\", 1]");
    EXPECT_EQ(BlankTrailingCommas("// x,]\n[1]"), "// x,]\n[1]");
    EXPECT_EQ(BlankTrailingCommas("[1,\n // c\n]"), "[1 \n // c\n]");
}

TEST(JsonDocumentTest, ParsesCommentsAndTrailingCommas) {
    Json root = Parse("{ // a comment\n \"a\": [1, 2, /* two */ ], }");
    EXPECT_EQ(root["a"].size(), 2u);
}

TEST(JsonDocumentTest, SyntaxErrorsHaveLineAndColumn) {
    try {
        JsonDocument::Parse("{\n  \"a\": [1,\n  2 3]\n}");
        FAIL() << "no error";
    } catch (const ModelError& error) {
        ASSERT_TRUE(error.Position().has_value());
        EXPECT_EQ(error.Position()->line, 3u);
        EXPECT_EQ(error.Position()->column, 5u);
        EXPECT_NE(std::string(error.what()).find("invalid JSON: syntax error"), std::string::npos) << error.what();
    }
}

TEST(JsonDocumentTest, LocatesPaths) {
    JsonDocument document = JsonDocument::Parse(
        "{\n \"r\": { \"x\": 1, \"s\": \"a,]}\" },\n \"d\": { \"g\": { \"Sizes\": [4, [5, 6], 7] } }\n}");
    auto at = [&](const JsonPath& path) {
        auto position = document.Locate(path);
        return position ? std::to_string(position->line) + ":" + std::to_string(position->column) : "none";
    };
    EXPECT_EQ(at(JsonPath() / "r" / "x"), "2:14");
    EXPECT_EQ(at((JsonPath() / "d" / "g" / "Sizes")[2]), "3:37");
    EXPECT_EQ(at((JsonPath() / "d" / "g" / "Sizes")[1]), "3:29");
    // A missing member: where its object starts.
    EXPECT_EQ(at(JsonPath() / "d" / "g" / "Missing"), "3:14");
    EXPECT_EQ(at((JsonPath() / "d" / "g" / "Sizes")[9]), "3:25");  // the array: it has no element 9
    EXPECT_FALSE(JsonDocument().Locate(JsonPath() / "x").has_value());
}

TEST(JsonDocumentTest, DescribesValuesBriefly) {
    EXPECT_EQ(DescribeValue(Parse("-1")), "the number -1");
    EXPECT_EQ(DescribeValue(Parse("1.5")), "the number 1.5");
    EXPECT_EQ(DescribeValue(Parse("\"abc\"")), "the string \"abc\"");
    EXPECT_EQ(DescribeValue(Parse("[1, [2]]")), "an array of 2 values");
    EXPECT_EQ(DescribeValue(Parse("{}")), "an object");
    EXPECT_EQ(DescribeValue(Parse("null")), "null");
}

TEST(ValuesTest, DataTypeNamesWithAndWithoutPrefix) {
    EXPECT_EQ(ParseDataType(Json("FLOAT16"), {}), DML_TENSOR_DATA_TYPE_FLOAT16);
    EXPECT_EQ(ParseDataType(Json("DML_TENSOR_DATA_TYPE_INT64"), {}), DML_TENSOR_DATA_TYPE_INT64);
    std::string error = ErrorOf([] { ParseDataType(Json("float32"), JsonPath() / "t"); });
    EXPECT_NE(error.find("t: expected a DML_TENSOR_DATA_TYPE name (UNKNOWN, FLOAT32, FLOAT16"), std::string::npos) << error;
}

TEST(ValuesTest, IntegersAreRangeChecked) {
    std::vector<uint8_t> bytes;
    AppendValue(DML_TENSOR_DATA_TYPE_INT8, Json(-128), {}, &bytes);
    AppendValue(DML_TENSOR_DATA_TYPE_UINT16, Json(65535), {}, &bytes);
    AppendValue(DML_TENSOR_DATA_TYPE_INT32, Json(3.0), {}, &bytes);  // an integral float is an integer
    ASSERT_EQ(bytes.size(), 7u);
    EXPECT_EQ(static_cast<int8_t>(bytes[0]), -128);
    EXPECT_EQ(bytes[1] | bytes[2] << 8, 65535);
    EXPECT_EQ(bytes[3], 3);
    for (const char* bad : {"-129", "128", "1.5", "\"1\"", "1e30", "null"}) {
        EXPECT_NE(ErrorOf([&] { AppendValue(DML_TENSOR_DATA_TYPE_INT8, Parse(bad), {}, &bytes); })
                      .find("expected an integer from -128 to 127 for INT8"),
                  std::string::npos)
            << bad;
    }
    EXPECT_NE(ErrorOf([&] { AppendValue(DML_TENSOR_DATA_TYPE_UINT64, Json(-1), {}, &bytes); }).find("from 0 to 18446744073709551615"),
              std::string::npos);
    EXPECT_NE(ErrorOf([&] { AppendValue(DML_TENSOR_DATA_TYPE_INT64, Parse("9223372036854775808"), {}, &bytes); })
                  .find("expected an integer"),
              std::string::npos);
}

TEST(ValuesTest, FloatsTakeKeywordsAndAreRangeChecked) {
    std::vector<uint8_t> bytes;
    AppendValue(DML_TENSOR_DATA_TYPE_FLOAT32, Json("nan"), {}, &bytes);
    AppendValue(DML_TENSOR_DATA_TYPE_FLOAT32, Json("-inf"), {}, &bytes);
    float values[2];
    std::memcpy(values, bytes.data(), 8);
    EXPECT_TRUE(std::isnan(values[0]));
    EXPECT_EQ(values[1], -INFINITY);
    EXPECT_NE(ErrorOf([&] { AppendValue(DML_TENSOR_DATA_TYPE_FLOAT32, Parse("1e39"), {}, &bytes); }).find("FLOAT32 value"),
              std::string::npos);
    EXPECT_NE(ErrorOf([&] { AppendValue(DML_TENSOR_DATA_TYPE_FLOAT16, Parse("65520"), {}, &bytes); }).find("at most 65504"),
              std::string::npos);
    EXPECT_NE(ErrorOf([&] { AppendValue(DML_TENSOR_DATA_TYPE_UNKNOWN, Parse("1"), {}, &bytes); }).find("cannot be written"),
              std::string::npos);
}

TEST(ValuesTest, Float16ConversionRoundsToNearestEven) {
    EXPECT_EQ(FloatToHalf(1.0f), 0x3C00);
    EXPECT_EQ(FloatToHalf(-2.0f), 0xC000);
    EXPECT_EQ(FloatToHalf(65504.0f), 0x7BFF);
    EXPECT_EQ(FloatToHalf(65519.0f), 0x7BFF);
    EXPECT_EQ(FloatToHalf(65520.0f), 0x7C00);
    EXPECT_EQ(FloatToHalf(std::ldexp(1.0f, -24)), 0x0001);  // the smallest subnormal
    EXPECT_EQ(FloatToHalf(std::ldexp(1.0f, -25)), 0x0000);  // a tie rounds to even (zero)
    EXPECT_EQ(FloatToHalf(std::ldexp(3.0f, -25)), 0x0002);  // 1.5 units rounds to 2
    EXPECT_EQ(FloatToHalf(1.0f + std::ldexp(1.0f, -11)), 0x3C00);  // a tie at 1 rounds to even
    EXPECT_EQ(FloatToHalf(1.0f + 3 * std::ldexp(1.0f, -11)), 0x3C02);
    EXPECT_EQ(FloatToHalf(-0.0f), 0x8000);
    EXPECT_EQ(FloatToHalf(INFINITY), 0x7C00);
    EXPECT_EQ(FloatToHalf(NAN) & 0x7C00, 0x7C00);
    EXPECT_NE(FloatToHalf(NAN) & 0x3FF, 0);
    // Every finite half survives the round trip through float.
    for (uint32_t bits = 0; bits < 0x10000; ++bits) {
        if ((bits & 0x7C00) == 0x7C00) continue;
        EXPECT_EQ(FloatToHalf(HalfToFloat(static_cast<uint16_t>(bits))), bits) << bits;
    }
    EXPECT_EQ(HalfToFloat(0x0001), std::ldexp(1.0f, -24));
    EXPECT_EQ(HalfToFloat(0xFC00), -INFINITY);
}

TEST(ValuesTest, SequencesComputeInTheElementType) {
    std::vector<uint8_t> bytes;
    AppendSequence(DML_TENSOR_DATA_TYPE_UINT8, Json(254), Json(1), 4, {}, {}, &bytes);
    EXPECT_EQ(bytes, (std::vector<uint8_t>{254, 255, 0, 1}));  // wraps, as in DxDispatch
    bytes.clear();
    AppendSequence(DML_TENSOR_DATA_TYPE_INT16, Json(-1), Json(-32767), 3, {}, {}, &bytes);
    int16_t shorts[3];
    std::memcpy(shorts, bytes.data(), 6);
    EXPECT_EQ(shorts[0], -1);
    EXPECT_EQ(shorts[1], -32768);
    EXPECT_EQ(shorts[2], 1);  // -32768 - 32767 wraps around
    bytes.clear();
    AppendSequence(DML_TENSOR_DATA_TYPE_FLOAT16, Json(2048), Json(1), 3, {}, {}, &bytes);
    uint16_t halves[3];
    std::memcpy(halves, bytes.data(), 6);
    EXPECT_EQ(HalfToFloat(halves[1]), 2048.0f);  // 2049 is no half: each step rounds
    bytes.clear();
    AppendConstant(DML_TENSOR_DATA_TYPE_FLOAT64, Json(0.5), 3, {}, &bytes);
    EXPECT_EQ(bytes.size(), 24u);
}

TEST(NpyTest, RoundTrips) {
    std::vector<uint8_t> data(24);
    for (size_t i = 0; i < data.size(); ++i) data[i] = static_cast<uint8_t>(i);
    std::vector<uint8_t> file = WriteNpy(DML_TENSOR_DATA_TYPE_INT32, {2, 3}, data);
    EXPECT_EQ((file.size() - data.size()) % 64, 0u);  // numpy aligns the data to 64 bytes
    NpyArray array = ReadNpy(file, 1 << 20);
    EXPECT_EQ(array.dataType, DML_TENSOR_DATA_TYPE_INT32);
    EXPECT_EQ(array.shape, (std::vector<uint64_t>{2, 3}));
    EXPECT_EQ(array.data, data);
    NpyArray scalar = ReadNpy(WriteNpy(DML_TENSOR_DATA_TYPE_FLOAT16, {5}, std::vector<uint8_t>(10)), 1 << 20);
    EXPECT_EQ(scalar.shape, (std::vector<uint64_t>{5}));
}

TEST(NpyTest, RefusesWhatItCannotRead) {
    auto error = [](std::string header, size_t dataBytes = 0) {
        std::string bytes = std::string("\x93NUMPY\x01\x00", 8) + static_cast<char>(header.size()) + '\0' + header +
                            std::string(dataBytes, '\0');
        std::vector<uint8_t> file(bytes.begin(), bytes.end());
        try {
            ReadNpy(file, 1000);
        } catch (const std::runtime_error& e) {
            return std::string(e.what());
        }
        return std::string("(no error)");
    };
    EXPECT_NE(error("{'descr': '>f4', 'fortran_order': False, 'shape': (2,), }", 8).find("not one dmlrun reads"), std::string::npos);
    EXPECT_NE(error("{'descr': '<c8', 'fortran_order': False, 'shape': (2,), }", 16).find("not one dmlrun reads"), std::string::npos);
    EXPECT_NE(error("{'descr': '<f4', 'fortran_order': True, 'shape': (2, 2), }", 16).find("Fortran order"), std::string::npos);
    EXPECT_NE(error("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }", 8).find("holds 8 bytes of data"), std::string::npos);
    EXPECT_NE(error("{'descr': '<f4', 'fortran_order': False, 'shape': (100000,), }").find("more data than dmlrun accepts"),
              std::string::npos);
    EXPECT_NE(error("{'descr': '<f4', 'fortran_order': False, 'shape': (99999999999999999999999,), }").find("more data"),
              std::string::npos);
    EXPECT_NE(error("{'descr': '<f4', 'fortran_order': False, }").find("no 'shape'"), std::string::npos);
    EXPECT_THROW(ReadNpy({1, 2, 3}, 1000), std::runtime_error);
}

constexpr const char* kGemm = R"({
    "type": "DML_OPERATOR_GEMM",
    "desc": {
        "ATensor": { "DataType": "FLOAT32", "Sizes": [1, 1, 3, 2] },
        "BTensor": { "DataType": "FLOAT32", "Sizes": [1, 1, 4, 3], "Flags": ["OWNED_BY_DML"] },
        "CTensor": { "DataType": "FLOAT32", "Sizes": [1, 1, 2, 4], "Strides": [0, 0, 0, 1] },
        "OutputTensor": { "Type": "BUFFER", "Desc": { "DataType": "FLOAT32", "Sizes": [1, 1, 2, 4] } },
        "TransA": "DML_MATRIX_TRANSFORM_TRANSPOSE", "TransB": "TRANSPOSE", "Alpha": 0.5, "Beta": 2,
        "FusedActivation": { "Type": "ACTIVATION_LEAKY_RELU", "Desc": { "Alpha": 0.25 } }
    }
})";

TEST(DescBuilderTest, BuildsTheCStructThroughTheSchema) {
    auto op = BuildOperator(Parse(kGemm), JsonPath() / "gemm");
    ASSERT_EQ(op->Desc().Type, DML_OPERATOR_GEMM);
    const auto& desc = *static_cast<const DML_GEMM_OPERATOR_DESC*>(op->Desc().Desc);
    EXPECT_EQ(desc.TransA, DML_MATRIX_TRANSFORM_TRANSPOSE);
    EXPECT_EQ(desc.TransB, DML_MATRIX_TRANSFORM_TRANSPOSE);
    EXPECT_EQ(desc.Alpha, 0.5f);
    EXPECT_EQ(desc.Beta, 2.0f);
    const auto& a = *static_cast<const DML_BUFFER_TENSOR_DESC*>(desc.ATensor->Desc);
    EXPECT_EQ(desc.ATensor->Type, DML_TENSOR_TYPE_BUFFER);
    EXPECT_EQ(a.DimensionCount, 4u);
    EXPECT_EQ(a.Sizes[2], 3u);
    EXPECT_EQ(a.Strides, nullptr);
    EXPECT_EQ(a.TotalTensorSizeInBytes, 24u);
    const auto& b = *static_cast<const DML_BUFFER_TENSOR_DESC*>(desc.BTensor->Desc);
    EXPECT_EQ(b.Flags, DML_TENSOR_FLAG_OWNED_BY_DML);
    const auto& c = *static_cast<const DML_BUFFER_TENSOR_DESC*>(desc.CTensor->Desc);
    EXPECT_EQ(c.TotalTensorSizeInBytes, 16u);  // computed from the strides: 4 elements
    ASSERT_NE(desc.FusedActivation, nullptr);
    EXPECT_EQ(desc.FusedActivation->Type, DML_OPERATOR_ACTIVATION_LEAKY_RELU);
    const auto& fused = *static_cast<const DML_ACTIVATION_LEAKY_RELU_OPERATOR_DESC*>(desc.FusedActivation->Desc);
    EXPECT_EQ(fused.InputTensor, nullptr);
    EXPECT_EQ(fused.Alpha, 0.25f);

    ASSERT_EQ(op->Inputs().size(), 3u);
    EXPECT_EQ(op->Inputs()[1].name, "BTensor");
    EXPECT_TRUE(op->Inputs()[2].given);
    ASSERT_EQ(op->Outputs().size(), 1u);
    EXPECT_EQ(op->BindPointNames(), "ATensor, BTensor, CTensor, OutputTensor");
}

TEST(DescBuilderTest, OptionalTensorsLeftOutAreNullButKeepTheirBindPoint) {
    auto op = BuildOperator(Parse(R"({"type": "GEMM", "ATensor": {"DataType": "FLOAT16", "Sizes": [2, 2]},
        "BTensor": {"DataType": "FLOAT16", "Sizes": [2, 2]}, "OutputTensor": {"DataType": "FLOAT16", "Sizes": [2, 2]},
        "TransA": "NONE", "TransB": "NONE", "Alpha": 1, "Beta": 0, "CTensor": null})"),
                             {});
    const auto& desc = *static_cast<const DML_GEMM_OPERATOR_DESC*>(op->Desc().Desc);
    EXPECT_EQ(desc.CTensor, nullptr);
    EXPECT_EQ(desc.FusedActivation, nullptr);
    const BindPoint* c = op->FindBindPoint("CTensor");
    ASSERT_NE(c, nullptr);
    EXPECT_FALSE(c->given);
}

TEST(DescBuilderTest, ArrayCountsComeFromTheArrays) {
    auto join = BuildOperator(Parse(R"({"type": "JOIN", "desc": {"Axis": 0, "OutputTensor": {"DataType": "INT8", "Sizes": [3]},
        "InputTensors": [{"DataType": "INT8", "Sizes": [1]}, {"DataType": "INT8", "Sizes": [2]}]}})"),
                               {});
    const auto& joinDesc = *static_cast<const DML_JOIN_OPERATOR_DESC*>(join->Desc().Desc);
    EXPECT_EQ(joinDesc.InputCount, 2u);
    EXPECT_EQ(join->Inputs()[0].tensors.size(), 2u);

    auto conv = BuildOperator(Parse(R"({"type": "CONVOLUTION", "desc": {
        "InputTensor": {"DataType": "FLOAT32", "Sizes": [1, 1, 3, 3]}, "FilterTensor": {"DataType": "FLOAT32", "Sizes": [1, 1, 2, 2]},
        "OutputTensor": {"DataType": "FLOAT32", "Sizes": [1, 1, 2, 2]}, "Mode": "CROSS_CORRELATION", "Direction": "FORWARD",
        "Strides": [1, 1], "Dilations": [1, 1], "StartPadding": [0, 0], "EndPadding": [0, 0], "OutputPadding": [0, 0],
        "GroupCount": 1}})"),
                               {});
    const auto& convDesc = *static_cast<const DML_CONVOLUTION_OPERATOR_DESC*>(conv->Desc().Desc);
    EXPECT_EQ(convDesc.DimensionCount, 2u);
    EXPECT_EQ(convDesc.Strides[1], 1u);
    EXPECT_EQ(convDesc.BiasTensor, nullptr);
}

TEST(DescBuilderTest, ErrorsNameTheField) {
    auto error = [](const std::string& text) { return ErrorOf([&] { BuildOperator(Parse(text), JsonPath() / "d"); }); };
    EXPECT_EQ(error(R"({"type": "JOIN", "desc": {"Axis": 0, "InputCount": 1, "OutputTensor": {"DataType": "INT8", "Sizes": [3]},
        "InputTensors": [{"DataType": "INT8", "Sizes": [1]}, {"DataType": "INT8", "Sizes": [2]}]}})"),
              "d.desc.InputTensors: InputTensors has 2 values, but InputCount is 1; InputCount counts both.");
    EXPECT_EQ(error(R"({"type": "ELEMENT_WISE_IDENTITY", "desc": {"InputTensor": {"DataType": "INT8", "Sizes": [1]},
        "OutputTensor": {"DataType": "INT8", "Sizes": [1]}, "ScaleBias": {"Scale": 1}}})"),
              "d.desc.ScaleBias: the DML_SCALE_BIAS has no Bias.");
    EXPECT_EQ(error(R"({"desc": {}})"), "d: the operator has no \"type\" (e.g. \"DML_OPERATOR_GEMM\").");
    EXPECT_EQ(error(R"({"type": 7})"),
              "d.type: expected an operator type name (e.g. \"DML_OPERATOR_GEMM\"), found the number 7.");
    EXPECT_EQ(error(R"({"type": "ELEMENT_WISE_IDENTITY", "desc": {"InputTensor": {"DataType": "INT8", "Sizes": [1], "Size": 1},
        "OutputTensor": {"DataType": "INT8", "Sizes": [1]}}})")
                  .substr(0, 62),
              "d.desc.InputTensor.Size: a tensor desc has no field 'Size'; it");
    EXPECT_EQ(error(R"({"type": "ELEMENT_WISE_IDENTITY", "desc": {"InputTensor": [1], "OutputTensor": {"DataType": "INT8", "Sizes": [1]}}})"),
              "d.desc.InputTensor: expected a tensor desc (a JSON object), found an array of 1 values.");
}

TEST(ModelTest, BindingsResolveToByteRanges) {
    Json root = Parse(R"({
        "resources": {
            "AB": {"initialValuesDataType": "FLOAT16", "initialValues": {"valueCount": 7, "value": 1}},
            "Out": {"initialValuesDataType": "FLOAT16", "initialValues": [0, 0, 0, 0, 0], "initialValuesOffsetInBytes": 6}
        },
        "dispatchables": {"join": {"type": "JOIN", "desc": {"Axis": 0, "OutputTensor": {"DataType": "FLOAT16", "Sizes": [5]},
            "InputTensors": [{"DataType": "FLOAT16", "Sizes": [2]}, {"DataType": "FLOAT16", "Sizes": [3]}]}}},
        "commands": [
            {"type": "dispatch", "dispatchable": "join", "bindings": {
                "InputTensors": [{"name": "AB", "elementCount": 2}, {"name": "AB", "elementOffset": 4, "elementSizeInBytes": 2}],
                "OutputTensor": "Out"}},
            {"type": "print", "resource": "Out"},
            {"type": "writeFile", "resource": "AB", "targetPath": "x.npy", "dimensions": [7]}
        ]})");
    Model model = ParseModel(root, ParseOptions{});
    ASSERT_EQ(model.resources.size(), 2u);
    EXPECT_EQ(model.resources[0].sizeInBytes, 16u);  // 14 bytes, rounded up to whole DWORDs
    EXPECT_EQ(model.resources[1].sizeInBytes, 16u);  // 10 bytes at offset 6
    EXPECT_EQ(PrintedElementCount(model.resources[1]), 5u);
    ASSERT_EQ(model.commands.size(), 3u);
    const auto& dispatch = std::get<DispatchCommand>(model.commands[0]);
    ASSERT_EQ(dispatch.bindings.size(), 2u);
    const auto& inputs = dispatch.bindings[0].ranges;
    ASSERT_EQ(inputs.size(), 2u);
    EXPECT_EQ(inputs[0].offset, 0u);
    EXPECT_EQ(inputs[0].size, 4u);
    EXPECT_EQ(inputs[1].offset, 8u);
    EXPECT_EQ(inputs[1].size, 8u);  // the rest of the buffer
    EXPECT_EQ(std::get<WriteFileCommand>(model.commands[2]).dimensions, (std::vector<uint64_t>{7}));
}

TEST(ModelTest, FilesAreNotOpenedWhenForbidden) {
    ParseOptions options;
    options.allowFiles = false;
    std::string error = ErrorOf([&] {
        ParseModel(Parse(R"({"resources": {"A": {"initialValues": {"sourcePath": "/etc/passwd"}}}, "dispatchables": {}, "commands": []})"),
                   options);
    });
    EXPECT_EQ(error, "resources.A.initialValues.sourcePath: this reader does not open files.");
}

TEST(ModelTest, MemoryIsCappedBeforeAllocation) {
    ParseOptions options;
    options.maxMemoryBytes = 1000;
    std::string error = ErrorOf([&] {
        ParseModel(Parse(R"({"resources": {"A": {"initialValuesDataType": "FLOAT32", "initialValues": {"valueCount": 200, "value": 1}},
            "B": {"initialValuesDataType": "FLOAT32", "initialValues": {"valueCount": 100, "value": 1}}}, "dispatchables": {}, "commands": []})"),
                   options);
    });
    EXPECT_EQ(error, "resources.B.initialValues.valueCount: the initial values would take 400 bytes; with the buffers before it that "
                     "is more than dmlrun's limit of 1000 bytes (raise it with --max-memory MiB).");
}

// DxDispatch's "deferred" resources: only an ONNX model output gives one its type and shape, so
// every other use is refused before anything runs.
TEST(ModelTest, DeferredResourcesAreRefusedWhereNoOnnxOutputSizesThem) {
    const std::string resources = R"("resources": {"A": {"initialValuesDataType": "FLOAT32", "initialValues": [1, 2, 3, 4]},
        "D": {"initialValuesDataType": "FLOAT32", "initialValues": "deferred"}},)";
    const std::string identity = R"("dispatchables": {"id": {"type": "DML_OPERATOR_ELEMENT_WISE_IDENTITY", "desc": {
        "InputTensor": {"DataType": "FLOAT32", "Sizes": [1, 1, 1, 4]}, "OutputTensor": {"DataType": "FLOAT32", "Sizes": [1, 1, 1, 4]}}}},)";
    auto error = [&](const std::string& rest) { return ErrorOf([&] { ParseModel(Parse("{" + resources + rest + "}"), ParseOptions{}); }); };
    EXPECT_EQ(error(R"("dispatchables": {}, "commands": [{"type": "print", "resource": "D"}])"),
              "commands[0].resource: resource 'D' is deferred, and no dispatch command before this one writes an ONNX model "
              "output to it, so it has no type or shape yet.");
    EXPECT_EQ(error(identity + R"("commands": [{"type": "dispatch", "dispatchable": "id", "bindings": {"InputTensor": "A", "OutputTensor": "D"}}])"),
              "commands[0].bindings.OutputTensor: resource 'D' is deferred: only an ONNX dispatchable's output gives a deferred "
              "resource its type and shape, and DML_OPERATOR_ELEMENT_WISE_IDENTITY is not one.");
    EXPECT_EQ(ErrorOf([&] {
                  ParseModel(Parse(R"({"resources": {"D": {"initialValues": "deferred", "sizeInBytes": 16}}, "dispatchables": {}, "commands": []})"),
                             ParseOptions{});
              }),
              "resources.D.sizeInBytes: a deferred resource takes its size from the ONNX model output bound to it, so it has no "
              "\"sizeInBytes\".");
    EXPECT_NE(ErrorOf([&] {
                  ParseModel(Parse(R"({"resources": {"D": {"initialValues": "later"}}, "dispatchables": {}, "commands": []})"), ParseOptions{});
              }).find("the one string initialValues is \"deferred\""),
              std::string::npos);
    // Unused, a deferred resource is a small buffer that --print-all leaves out.
    Model model = ParseModel(Parse("{" + resources + R"("dispatchables": {}, "commands": []})"), ParseOptions{});
    EXPECT_TRUE(model.resources[1].deferred);
    EXPECT_EQ(model.resources[1].sizeInBytes, 4u);
    EXPECT_FALSE(model.finalViews[1].has_value());
}

TEST(PrintFormatTest, MatchesDxDispatch) {
    float floats[] = {1.0f, 2.5f, -3.0f, 1e-7f, 1234567.0f, 0.1f};
    EXPECT_EQ(FormatResource("Out", DML_TENSOR_DATA_TYPE_FLOAT32, reinterpret_cast<uint8_t*>(floats), 6, false),
              "Resource 'Out': 1, 2.5, -3, 1e-07, 1.23457e+06, 0.1");
    uint16_t halves[] = {0x3C00, 0x7E00};
    EXPECT_EQ(FormatResource("h", DML_TENSOR_DATA_TYPE_FLOAT16, reinterpret_cast<uint8_t*>(halves), 2, false),
              "Resource 'h': 1, nan");
    uint32_t uints[] = {7, 4000000000u};
    EXPECT_EQ(FormatResource("u", DML_TENSOR_DATA_TYPE_UINT32, reinterpret_cast<uint8_t*>(uints), 2, true),
              "Resource 'u':\n[0] 7 (0x       7)\n[1] 4000000000 (0xEE6B2800)\n");
    EXPECT_EQ(FormatResource("none", DML_TENSOR_DATA_TYPE_FLOAT32, nullptr, 0, false), "Resource 'none': ");
}

TEST(PrintFormatTest, TimingStatisticsLeaveOutTheFirstRun) {
    TimingStats one = ComputeTimingStats({5.0});
    EXPECT_EQ(one.samples, 1u);
    EXPECT_EQ(one.median, 5.0);
    TimingStats many = ComputeTimingStats({100.0, 3.0, 1.0, 2.0, 4.0});
    EXPECT_EQ(many.samples, 4u);
    EXPECT_EQ(many.minimum, 1.0);
    EXPECT_EQ(many.median, 3.0);  // the upper middle of 1, 2, 3, 4, as DxDispatch's
    EXPECT_EQ(many.maximum, 4.0);
    EXPECT_EQ(FormatDispatchTiming("g", 5, many),
              "Dispatch 'g': 5 iterations, 3.0000 ms median (CPU), 1.0000 ms min, 4.0000 ms max (the first iteration "
              "excluded)");
    EXPECT_EQ(FormatDispatchTiming("g", 1, one), "Dispatch 'g': 1 iterations, 5.0000 ms median (CPU)");
}

}  // namespace
}  // namespace dmlrun
