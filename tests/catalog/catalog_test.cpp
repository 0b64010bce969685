// The operator catalog (DirectML's facts) against the schema registry (FreeDML's code): every
// schema must agree with the catalog on the feature level, in-place support and tensor names.
#include <gtest/gtest.h>

#include <cstring>
#include <set>
#include <string>
#include <utility>

#include "dml/kernel.h"
#include "dml/schema/catalog.h"
#include "dml/schema/schema.h"

namespace freedml::dml {
namespace {

bool IsTensorKind(FieldKind kind) {
    return kind == FieldKind::InputTensor || kind == FieldKind::OutputTensor || kind == FieldKind::InputTensorArray ||
           kind == FieldKind::OutputTensorArray;
}

TEST(Catalog, EveryRowParses) {
    for (const auto& error : CatalogParseErrors()) ADD_FAILURE() << error;
}

TEST(Catalog, Lists177OperatorsInTypeOrder) {
    auto catalog = OperatorCatalog();
    ASSERT_EQ(catalog.size(), 177u);
    for (size_t i = 0; i < catalog.size(); ++i) {
        EXPECT_EQ(static_cast<size_t>(catalog[i].type), i + 1) << catalog[i].name;
        EXPECT_EQ(FindCatalogEntry(catalog[i].type), &catalog[i]);
    }
    EXPECT_EQ(FindCatalogEntry(DML_OPERATOR_INVALID), nullptr);
    EXPECT_EQ(FindCatalogEntry(static_cast<DML_OPERATOR_TYPE>(178)), nullptr);
}

TEST(Catalog, InPlaceOperatorsAreTheSeventySevenOfBindingRules) {
    size_t inPlace = 0;
    for (const auto& entry : OperatorCatalog()) inPlace += entry.supportsInPlaceExecution;
    EXPECT_EQ(inPlace, 77u);
    EXPECT_TRUE(FindCatalogEntry(DML_OPERATOR_ADAM_OPTIMIZER)->supportsInPlaceExecution);
    EXPECT_FALSE(FindCatalogEntry(DML_OPERATOR_GEMM)->supportsInPlaceExecution);
}

TEST(Catalog, DataTypesOnlyUnknownWhereThePageGivesNone) {
    std::set<std::string> unknown;
    for (const auto& entry : OperatorCatalog()) {
        if (!entry.dataTypesKnown) {
            unknown.insert(entry.name);
            EXPECT_TRUE(entry.tensors.empty()) << entry.name;
            EXPECT_NE(entry.note, nullptr) << entry.name << " needs a note saying why its types are unknown";
        } else {
            EXPECT_FALSE(entry.tensors.empty()) << entry.name;
            for (const auto& tensor : entry.tensors) EXPECT_NE(tensor.types, 0u) << entry.name << " " << tensor.name;
        }
    }
    EXPECT_EQ(unknown, (std::set<std::string>{"FOLD", "UNFOLD"}));
}

TEST(Catalog, SpotChecks) {
    const auto* topK = FindCatalogEntry(DML_OPERATOR_TOP_K1);
    ASSERT_NE(topK, nullptr);
    EXPECT_EQ(topK->featureLevel, DML_FEATURE_LEVEL_2_1);
    ASSERT_NE(topK->FindTensor("OutputIndexTensor"), nullptr);
    EXPECT_EQ(topK->FindTensor("OutputIndexTensor")->types,
              DataTypeBit(DML_TENSOR_DATA_TYPE_UINT32) | DataTypeBit(DML_TENSOR_DATA_TYPE_UINT64));
    EXPECT_EQ(DataTypeSetToString(FindCatalogEntry(DML_OPERATOR_GEMM)->AllTypes()), "FLOAT32, FLOAT16");
    EXPECT_EQ(FeatureLevelToString(FindCatalogEntry(DML_OPERATOR_UNFOLD)->featureLevel), "6.4");
}

// Disagreements already reported to the schemas' owners (operator, what disagrees). Each entry
// must still disagree: fix the schema, then delete its line here.
const std::set<std::pair<std::string, std::string>> kKnownDisagreements = {
    // BINDING-RULES.md lists IS_INFINITY among the in-place operators; elementwise_unary.cpp does not.
    {"ELEMENT_WISE_IS_INFINITY", "in place"},
    // BINDING-RULES.md leaves SWISH and HARD_SWISH out; activation.cpp's UNARY_SCHEMA marks them in place.
    {"ACTIVATION_SWISH", "in place"},
    {"ACTIVATION_HARD_SWISH", "in place"},
};

bool Known(const OperatorSchema& schema, const char* what) {
    return kKnownDisagreements.count({schema.name, what}) != 0;
}

// The test the catalog exists for: a schema that says something DirectML's pages contradict.
// The CUDA backend runs every operator the CPU backend runs (a DirectML program must not lose
// operators by moving to a GPU); a new CPU operator needs its CUDA kernels too.
TEST(Catalog, EveryOperatorTheCpuRunsHasCudaKernels) {
    for (const OperatorSchema* schema : AllSchemas()) {
        if (!IsImplemented(*schema)) continue;
        EXPECT_TRUE(RunsOnCuda(*schema)) << "DML_OPERATOR_" << schema->name;
    }
}

// The operator table (src/dml/ops/*/operators.def) and the family schemas name the same types,
// one row per schema, each row spelled as its schema's name.
TEST(OperatorTable, AgreesWithTheSchemas) {
    for (const std::string& error : OperatorTableErrors()) ADD_FAILURE() << error;
    EXPECT_EQ(OperatorTableErrors().size(), 0u);
}

// CheckOperatorTable names each way a row and a schema can disagree (so the test above can fail).
TEST(OperatorTable, CheckFindsEachDisagreement) {
    const OperatorSchema* gemm = FindSchema(DML_OPERATOR_GEMM);
    const OperatorSchema* join = FindSchema(DML_OPERATOR_JOIN);
    ASSERT_NE(gemm, nullptr);
    ASSERT_NE(join, nullptr);
    const OperatorSchema* const schemas[] = {gemm, join};

    const OperatorTableRow agreeing[] = {{DML_OPERATOR_GEMM, "GEMM", true, true},
                                         {DML_OPERATOR_JOIN, "JOIN", true, false}};
    EXPECT_TRUE(CheckOperatorTable(agreeing, schemas).empty());

    const OperatorTableRow missingRow[] = {{DML_OPERATOR_GEMM, "GEMM", true, true}};
    auto errors = CheckOperatorTable(missingRow, schemas);
    ASSERT_EQ(errors.size(), 1u);
    EXPECT_NE(errors[0].find("DML_OPERATOR_JOIN has a schema but no row"), std::string::npos) << errors[0];

    const OperatorTableRow extraRow[] = {{DML_OPERATOR_GEMM, "GEMM", true, true},
                                         {DML_OPERATOR_JOIN, "JOIN", true, true},
                                         {DML_OPERATOR_CAST, "CAST", true, true}};
    errors = CheckOperatorTable(extraRow, schemas);
    ASSERT_EQ(errors.size(), 1u);
    EXPECT_NE(errors[0].find("row CAST"), std::string::npos) << errors[0];
    EXPECT_NE(errors[0].find("has no schema"), std::string::npos) << errors[0];

    const OperatorTableRow misspelled[] = {{DML_OPERATOR_GEMM, "GEMM", true, true},
                                           {DML_OPERATOR_JOIN, "CONCAT", true, true}};
    errors = CheckOperatorTable(misspelled, schemas);
    ASSERT_EQ(errors.size(), 1u);
    EXPECT_NE(errors[0].find("row CONCAT"), std::string::npos) << errors[0];
    EXPECT_NE(errors[0].find("schema is JOIN"), std::string::npos) << errors[0];

    const OperatorTableRow twice[] = {{DML_OPERATOR_GEMM, "GEMM", true, true},
                                      {DML_OPERATOR_JOIN, "JOIN", true, true},
                                      {DML_OPERATOR_GEMM, "GEMM", true, false}};
    errors = CheckOperatorTable(twice, schemas);
    ASSERT_EQ(errors.size(), 1u);
    EXPECT_NE(errors[0].find("two rows"), std::string::npos) << errors[0];
}

// What the table says is what runs: every implemented type has a CPU kernel in the CPU kernel set.
TEST(OperatorTable, CpuKernelSetHasEveryImplementedType) {
    for (const OperatorSchema* schema : AllSchemas()) {
        EXPECT_EQ(CpuKernels().Runs(schema->type), IsImplemented(*schema)) << "DML_OPERATOR_" << schema->name;
    }
}

TEST(Catalog, AgreesWithEverySchema) {
    for (const OperatorSchema* schema : AllSchemas()) {
        SCOPED_TRACE(schema->name);
        const CatalogEntry* entry = FindCatalogEntry(schema->type);
        ASSERT_NE(entry, nullptr);
        EXPECT_STREQ(schema->name, entry->name);
        EXPECT_EQ(schema->featureLevel == entry->featureLevel, !Known(*schema, "feature level"))
            << "feature level of DML_OPERATOR_" << schema->name << ": schema "
            << FeatureLevelToString(schema->featureLevel) << ", catalog " << FeatureLevelToString(entry->featureLevel);
        EXPECT_EQ(schema->supportsInPlaceExecution == entry->supportsInPlaceExecution, !Known(*schema, "in place"))
            << "in-place support of DML_OPERATOR_" << schema->name << " (BINDING-RULES.md, H2): schema "
            << schema->supportsInPlaceExecution << ", catalog " << entry->supportsInPlaceExecution;
        if (!entry->dataTypesKnown) continue;
        std::set<std::string> schemaTensors, catalogTensors;
        for (const auto& field : schema->fields) {
            if (IsTensorKind(field.kind)) schemaTensors.insert(field.name);
        }
        for (const auto& tensor : entry->tensors) catalogTensors.insert(tensor.name);
        EXPECT_EQ(schemaTensors == catalogTensors, !Known(*schema, "tensors"))
            << "tensor fields of DML_OPERATOR_" << schema->name;
    }
}

}  // namespace
}  // namespace freedml::dml
