// The operator catalog: one row per DML_OPERATOR_TYPE through feature level 6.4, transcribed from
// DirectML's operator reference pages (their "Availability" line, their first "Tensor support"
// table, i.e. the one for the highest feature level, and their in-place remark; the in-place set
// is the 77 operators of BINDING-RULES.md, H2).
//
// A row's data types are a string so that the table stays readable: groups separated by ';', each
// "Tensor Tensor...: types", with the types f64 f32 f16 i64 i32 i16 i8 u64 u32 u16 u8 i4 u4.
// nullptr means the reference page gives none (shown as "unknown").
#include "dml/schema/catalog.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <sstream>

namespace freedml::dml {

namespace {

struct CatalogRow {
    DML_OPERATOR_TYPE type;
    const char* name;
    DML_FEATURE_LEVEL featureLevel;
    bool inPlace;
    const char* tensors;
    const char* note = nullptr;
};

#define FREEDML_OP(NAME, LEVEL, IN_PLACE, ...) \
    CatalogRow { DML_OPERATOR_##NAME, #NAME, DML_FEATURE_LEVEL_##LEVEL, IN_PLACE, __VA_ARGS__ }

// clang-format off
constexpr CatalogRow kRows[] = {
    FREEDML_OP(ELEMENT_WISE_IDENTITY, 1_0, true, "InputTensor OutputTensor: f64 f32 f16 i64 i32 i16 i8 u64 u32 u16 u8"),
    FREEDML_OP(ELEMENT_WISE_ABS, 1_0, true, "InputTensor OutputTensor: f32 f16 i64 i32 i16 i8"),
    FREEDML_OP(ELEMENT_WISE_ACOS, 1_0, true, "InputTensor OutputTensor: f32 f16"),
    FREEDML_OP(ELEMENT_WISE_ADD, 1_0, true, "ATensor BTensor OutputTensor: f32 f16 i64 i32 i16 i8 u64 u32 u16 u8"),
    FREEDML_OP(ELEMENT_WISE_ASIN, 1_0, true, "InputTensor OutputTensor: f32 f16"),
    FREEDML_OP(ELEMENT_WISE_ATAN, 1_0, true, "InputTensor OutputTensor: f32 f16"),
    FREEDML_OP(ELEMENT_WISE_CEIL, 1_0, true, "InputTensor OutputTensor: f32 f16"),
    FREEDML_OP(ELEMENT_WISE_CLIP, 1_0, true, "InputTensor OutputTensor: f32 f16 i64 i32 i16 i8 u64 u32 u16 u8"),
    FREEDML_OP(ELEMENT_WISE_COS, 1_0, true, "InputTensor OutputTensor: f32 f16"),
    FREEDML_OP(ELEMENT_WISE_DIVIDE, 1_0, true, "ATensor BTensor OutputTensor: f32 f16 i64 i32 i16 i8 u64 u32 u16 u8"),
    FREEDML_OP(ELEMENT_WISE_EXP, 1_0, true, "InputTensor OutputTensor: f32 f16"),
    FREEDML_OP(ELEMENT_WISE_FLOOR, 1_0, true, "InputTensor OutputTensor: f32 f16"),
    FREEDML_OP(ELEMENT_WISE_LOG, 1_0, true, "InputTensor OutputTensor: f32 f16"),
    FREEDML_OP(ELEMENT_WISE_LOGICAL_AND, 1_0, true, "ATensor BTensor OutputTensor: u32 u8"),
    FREEDML_OP(ELEMENT_WISE_LOGICAL_EQUALS, 1_0, false,
               "ATensor BTensor: f32 f16 i64 i32 i16 i8 u64 u32 u16 u8; OutputTensor: u32 u8"),
    FREEDML_OP(ELEMENT_WISE_LOGICAL_GREATER_THAN, 1_0, false,
               "ATensor BTensor: f32 f16 i64 i32 i16 i8 u64 u32 u16 u8; OutputTensor: u32 u8"),
    FREEDML_OP(ELEMENT_WISE_LOGICAL_LESS_THAN, 1_0, false,
               "ATensor BTensor: f32 f16 i64 i32 i16 i8 u64 u32 u16 u8; OutputTensor: u32 u8"),
    FREEDML_OP(ELEMENT_WISE_LOGICAL_NOT, 1_0, true, "InputTensor OutputTensor: u32 u8"),
    FREEDML_OP(ELEMENT_WISE_LOGICAL_OR, 1_0, true, "ATensor BTensor OutputTensor: u32 u8"),
    FREEDML_OP(ELEMENT_WISE_LOGICAL_XOR, 1_0, true, "ATensor BTensor OutputTensor: u32 u8"),
    FREEDML_OP(ELEMENT_WISE_MAX, 1_0, true, "ATensor BTensor OutputTensor: f32 f16 i64 i32 i16 i8 u64 u32 u16 u8"),
    FREEDML_OP(ELEMENT_WISE_MEAN, 1_0, true, "ATensor BTensor OutputTensor: f32 f16 i32 u32"),
    FREEDML_OP(ELEMENT_WISE_MIN, 1_0, true, "ATensor BTensor OutputTensor: f32 f16 i64 i32 i16 i8 u64 u32 u16 u8"),
    FREEDML_OP(ELEMENT_WISE_MULTIPLY, 1_0, true, "ATensor BTensor OutputTensor: f32 f16 i64 i32 i16 i8 u64 u32 u16 u8"),
    FREEDML_OP(ELEMENT_WISE_POW, 1_0, true, "InputTensor ExponentTensor OutputTensor: f32 f16 i32 i16 i8 u32 u16 u8"),
    FREEDML_OP(ELEMENT_WISE_CONSTANT_POW, 1_0, true, "InputTensor OutputTensor: f32 f16"),
    FREEDML_OP(ELEMENT_WISE_RECIP, 1_0, true, "InputTensor OutputTensor: f32 f16"),
    FREEDML_OP(ELEMENT_WISE_SIN, 1_0, true, "InputTensor OutputTensor: f32 f16"),
    FREEDML_OP(ELEMENT_WISE_SQRT, 1_0, true, "InputTensor OutputTensor: f32 f16"),
    FREEDML_OP(ELEMENT_WISE_SUBTRACT, 1_0, true, "ATensor BTensor OutputTensor: f32 f16 i64 i32 i16 i8 u64 u32 u16 u8"),
    FREEDML_OP(ELEMENT_WISE_TAN, 1_0, true, "InputTensor OutputTensor: f32 f16"),
    FREEDML_OP(ELEMENT_WISE_THRESHOLD, 1_0, true, "InputTensor OutputTensor: f32 f16 i32 i16 i8 u32 u16 u8"),
    FREEDML_OP(ELEMENT_WISE_QUANTIZE_LINEAR, 1_0, false,
               "InputTensor: f32 f16 i32; ScaleTensor: f32 f16; ZeroPointTensor: i8 u8; OutputTensor: i8 u8"),
    FREEDML_OP(ELEMENT_WISE_DEQUANTIZE_LINEAR, 1_0, false,
               "InputTensor: i32 i16 i8 u32 u16 u8; ScaleTensor: f32 f16; ZeroPointTensor: i32 i16 i8 u32 u16 u8; "
               "OutputTensor: f32 f16"),
    FREEDML_OP(ACTIVATION_ELU, 1_0, true, "InputTensor OutputTensor: f32 f16"),
    FREEDML_OP(ACTIVATION_HARDMAX, 1_0, false, "InputTensor OutputTensor: f32 f16"),
    FREEDML_OP(ACTIVATION_HARD_SIGMOID, 1_0, true, "InputTensor OutputTensor: f32 f16"),
    FREEDML_OP(ACTIVATION_IDENTITY, 1_0, true, "InputTensor OutputTensor: f32 f16"),
    FREEDML_OP(ACTIVATION_LEAKY_RELU, 1_0, true, "InputTensor OutputTensor: f32 f16"),
    FREEDML_OP(ACTIVATION_LINEAR, 1_0, true, "InputTensor OutputTensor: f32 f16"),
    FREEDML_OP(ACTIVATION_LOG_SOFTMAX, 1_0, false, "InputTensor OutputTensor: f32 f16"),
    FREEDML_OP(ACTIVATION_PARAMETERIZED_RELU, 1_0, true, "InputTensor SlopeTensor OutputTensor: f32 f16 i32 i16 i8"),
    FREEDML_OP(ACTIVATION_PARAMETRIC_SOFTPLUS, 1_0, true, "InputTensor OutputTensor: f32 f16"),
    FREEDML_OP(ACTIVATION_RELU, 1_0, true, "InputTensor OutputTensor: f32 f16 i32 i16 i8"),
    FREEDML_OP(ACTIVATION_SCALED_ELU, 1_0, true, "InputTensor OutputTensor: f32 f16"),
    FREEDML_OP(ACTIVATION_SCALED_TANH, 1_0, true, "InputTensor OutputTensor: f32 f16"),
    FREEDML_OP(ACTIVATION_SIGMOID, 1_0, true, "InputTensor OutputTensor: f32 f16"),
    FREEDML_OP(ACTIVATION_SOFTMAX, 1_0, false, "InputTensor OutputTensor: f32 f16"),
    FREEDML_OP(ACTIVATION_SOFTPLUS, 1_0, true, "InputTensor OutputTensor: f32 f16"),
    FREEDML_OP(ACTIVATION_SOFTSIGN, 1_0, true, "InputTensor OutputTensor: f32 f16"),
    FREEDML_OP(ACTIVATION_TANH, 1_0, true, "InputTensor OutputTensor: f32 f16"),
    FREEDML_OP(ACTIVATION_THRESHOLDED_RELU, 1_0, true, "InputTensor OutputTensor: f32 f16"),
    FREEDML_OP(CONVOLUTION, 1_0, false, "InputTensor FilterTensor BiasTensor OutputTensor: f32 f16"),
    FREEDML_OP(GEMM, 1_0, false, "ATensor BTensor CTensor OutputTensor: f32 f16"),
    FREEDML_OP(REDUCE, 1_0, false,
               "InputTensor: f32 f16 i64 i32 i16 i8 u64 u32 u16 u8; OutputTensor: f32 f16 i64 i32 i16 i8 u64 u32 u16 "
               "u8",
               "Types depend on Function: ARGMIN and ARGMAX write i64/i32/u64/u32 indices; AVERAGE, L2, LOG_SUM and "
               "LOG_SUM_EXP take f32/f16 only; L1, SUM_SQUARE, MULTIPLY and SUM take f32 f16 i64 i32 u64 u32; MIN "
               "and MAX take all ten listed."),
    FREEDML_OP(AVERAGE_POOLING, 1_0, false, "InputTensor OutputTensor: f32 f16"),
    FREEDML_OP(LP_POOLING, 1_0, false, "InputTensor OutputTensor: f32 f16"),
    FREEDML_OP(MAX_POOLING, 1_0, false, "InputTensor OutputTensor: f32 f16 i64 i32 i16 i8 u64 u32 u16 u8"),
    FREEDML_OP(ROI_POOLING, 1_0, false, "InputTensor ROITensor OutputTensor: f32 f16"),
    FREEDML_OP(SLICE, 1_0, false, "InputTensor OutputTensor: f64 f32 f16 i64 i32 i16 i8 u64 u32 u16 u8"),
    FREEDML_OP(CAST, 1_0, false, "InputTensor OutputTensor: f64 f32 f16 i64 i32 i16 i8 u64 u32 u16 u8"),
    FREEDML_OP(SPLIT, 1_0, false, "InputTensor OutputTensors: f64 f32 f16 i64 i32 i16 i8 u64 u32 u16 u8"),
    FREEDML_OP(JOIN, 1_0, false, "InputTensors OutputTensor: f64 f32 f16 i64 i32 i16 i8 u64 u32 u16 u8"),
    FREEDML_OP(PADDING, 1_0, false, "InputTensor OutputTensor: f64 f32 f16 i64 i32 i16 i8 u64 u32 u16 u8"),
    FREEDML_OP(VALUE_SCALE_2D, 1_0, false, "InputTensor OutputTensor: f32 f16"),
    FREEDML_OP(UPSAMPLE_2D, 1_0, false, "InputTensor OutputTensor: f32 f16"),
    FREEDML_OP(GATHER, 1_0, false,
               "InputTensor: f64 f32 f16 i64 i32 i16 i8 u64 u32 u16 u8; IndicesTensor: i64 i32 u64 u32; "
               "OutputTensor: f64 f32 f16 i64 i32 i16 i8 u64 u32 u16 u8"),
    FREEDML_OP(SPACE_TO_DEPTH, 1_0, false, "InputTensor OutputTensor: f64 f32 f16 i64 i32 i16 i8 u64 u32 u16 u8"),
    FREEDML_OP(DEPTH_TO_SPACE, 1_0, false, "InputTensor OutputTensor: f64 f32 f16 i64 i32 i16 i8 u64 u32 u16 u8"),
    FREEDML_OP(TILE, 1_0, false, "InputTensor OutputTensor: f32 f16 i64 i32 i16 i8 u64 u32 u16 u8"),
    FREEDML_OP(TOP_K, 1_0, false,
               "InputTensor OutputValueTensor: f32 f16 i64 i32 i16 i8 u64 u32 u16 u8; OutputIndexTensor: u64 u32",
               "The reference page's oldest table is for level 2_0; DirectML.h declares it with the 1_0 operators."),
    FREEDML_OP(BATCH_NORMALIZATION, 1_0, false,
               "InputTensor MeanTensor VarianceTensor ScaleTensor BiasTensor OutputTensor: f32 f16"),
    FREEDML_OP(MEAN_VARIANCE_NORMALIZATION, 1_0, false, "InputTensor ScaleTensor BiasTensor OutputTensor: f32 f16"),
    FREEDML_OP(LOCAL_RESPONSE_NORMALIZATION, 1_0, false, "InputTensor OutputTensor: f32 f16"),
    FREEDML_OP(LP_NORMALIZATION, 1_0, false, "InputTensor OutputTensor: f32 f16"),
    FREEDML_OP(RNN, 1_0, false,
               "InputTensor WeightTensor RecurrenceTensor BiasTensor HiddenInitTensor OutputSequenceTensor "
               "OutputSingleTensor: f32 f16; SequenceLengthsTensor: u32"),
    FREEDML_OP(LSTM, 1_0, false,
               "InputTensor WeightTensor RecurrenceTensor BiasTensor HiddenInitTensor CellMemInitTensor "
               "PeepholeTensor OutputSequenceTensor OutputSingleTensor OutputCellSingleTensor: f32 f16; "
               "SequenceLengthsTensor: u32"),
    FREEDML_OP(GRU, 1_0, false,
               "InputTensor WeightTensor RecurrenceTensor BiasTensor HiddenInitTensor OutputSequenceTensor "
               "OutputSingleTensor: f32 f16; SequenceLengthsTensor: u32"),
    FREEDML_OP(ELEMENT_WISE_SIGN, 2_0, true, "InputTensor OutputTensor: f32 f16 i64 i32 i16 i8 u64 u32 u16 u8"),
    FREEDML_OP(ELEMENT_WISE_IS_NAN, 2_0, false, "InputTensor: f32 f16; OutputTensor: u32 u8"),
    FREEDML_OP(ELEMENT_WISE_ERF, 2_0, true, "InputTensor OutputTensor: f32 f16"),
    FREEDML_OP(ELEMENT_WISE_SINH, 2_0, true, "InputTensor OutputTensor: f32 f16"),
    FREEDML_OP(ELEMENT_WISE_COSH, 2_0, true, "InputTensor OutputTensor: f32 f16"),
    FREEDML_OP(ELEMENT_WISE_TANH, 2_0, true, "InputTensor OutputTensor: f32 f16"),
    FREEDML_OP(ELEMENT_WISE_ASINH, 2_0, true, "InputTensor OutputTensor: f32 f16"),
    FREEDML_OP(ELEMENT_WISE_ACOSH, 2_0, true, "InputTensor OutputTensor: f32 f16"),
    FREEDML_OP(ELEMENT_WISE_ATANH, 2_0, true, "InputTensor OutputTensor: f32 f16"),
    FREEDML_OP(ELEMENT_WISE_IF, 2_0, false,
               "ConditionTensor: u8; ATensor BTensor OutputTensor: f64 f32 f16 i64 i32 i16 i8 u64 u32 u16 u8"),
    FREEDML_OP(ELEMENT_WISE_ADD1, 2_0, true, "ATensor BTensor OutputTensor: f32 f16"),
    FREEDML_OP(ACTIVATION_SHRINK, 2_0, true, "InputTensor OutputTensor: f32 f16 i32 i16 i8 u32 u16 u8"),
    FREEDML_OP(MAX_POOLING1, 2_0, false,
               "InputTensor OutputTensor: f32 f16 i64 i32 i16 i8 u64 u32 u16 u8; OutputIndicesTensor: u64 u32"),
    FREEDML_OP(MAX_UNPOOLING, 3_0, false,
               "InputTensor OutputTensor: f32 f16 i64 i32 i16 i8 u64 u32 u16 u8; IndicesTensor: u64 u32",
               "The reference page names level 3_0; DirectML.h declares it with the 2_0 operators."),
    FREEDML_OP(DIAGONAL_MATRIX, 2_0, false, "OutputTensor: f64 f32 f16 i64 i32 i16 i8 u64 u32 u16 u8"),
    FREEDML_OP(SCATTER_ELEMENTS, 2_0, false,
               "InputTensor UpdatesTensor OutputTensor: f64 f32 f16 i64 i32 i16 i8 u64 u32 u16 u8; IndicesTensor: "
               "i64 i32 u64 u32",
               "Where the page leaves the result undefined, FreeDML skips an update whose index is outside the "
               "output and, of updates to one element, keeps the last in the updates' order on the CPU and any one "
               "on CUDA."),
    FREEDML_OP(ONE_HOT, 2_0, false,
               "IndicesTensor: i64 i32 u64 u32; ValuesTensor OutputTensor: f64 f32 f16 i64 i32 i16 i8 u64 u32 u16 u8"),
    FREEDML_OP(RESAMPLE, 2_0, false, "InputTensor OutputTensor: f32 f16 i8 u8"),
    FREEDML_OP(ELEMENT_WISE_BIT_SHIFT_LEFT, 2_1, true, "ATensor BTensor OutputTensor: u64 u32 u16 u8"),
    FREEDML_OP(ELEMENT_WISE_BIT_SHIFT_RIGHT, 2_1, true, "ATensor BTensor OutputTensor: u64 u32 u16 u8"),
    FREEDML_OP(ELEMENT_WISE_ROUND, 2_1, true, "InputTensor OutputTensor: f32 f16"),
    FREEDML_OP(ELEMENT_WISE_IS_INFINITY, 2_1, true, "InputTensor: f32 f16; OutputTensor: u8"),
    FREEDML_OP(ELEMENT_WISE_MODULUS_TRUNCATE, 2_1, true,
               "ATensor BTensor OutputTensor: f32 f16 i64 i32 i16 i8 u64 u32 u16 u8"),
    FREEDML_OP(ELEMENT_WISE_MODULUS_FLOOR, 2_1, true,
               "ATensor BTensor OutputTensor: f32 f16 i64 i32 i16 i8 u64 u32 u16 u8"),
    FREEDML_OP(FILL_VALUE_CONSTANT, 2_1, true, "OutputTensor: f64 f32 f16 i64 i32 i16 i8 u64 u32 u16 u8"),
    FREEDML_OP(FILL_VALUE_SEQUENCE, 2_1, true, "OutputTensor: f32 f16 i64 i32 i16 i8 u64 u32 u16 u8"),
    FREEDML_OP(CUMULATIVE_SUMMATION, 2_1, true, "InputTensor OutputTensor: f32 f16 i64 i32 u64 u32"),
    FREEDML_OP(REVERSE_SUBSEQUENCES, 2_1, false,
               "InputTensor OutputTensor: f64 f32 f16 i64 i32 i16 i8 u64 u32 u16 u8; SequenceLengthsTensor: u64 u32"),
    FREEDML_OP(GATHER_ELEMENTS, 2_1, false,
               "InputTensor: f64 f32 f16 i64 i32 i16 i8 u64 u32 u16 u8; IndicesTensor: i64 i32 u64 u32; "
               "OutputTensor: f64 f32 f16 i64 i32 i16 i8 u64 u32 u16 u8"),
    FREEDML_OP(GATHER_ND, 2_1, false,
               "InputTensor: f64 f32 f16 i64 i32 i16 i8 u64 u32 u16 u8; IndicesTensor: i64 i32 u64 u32; "
               "OutputTensor: f64 f32 f16 i64 i32 i16 i8 u64 u32 u16 u8"),
    FREEDML_OP(SCATTER_ND, 2_1, false,
               "InputTensor UpdatesTensor OutputTensor: f64 f32 f16 i64 i32 i16 i8 u64 u32 u16 u8; IndicesTensor: "
               "i64 i32 u64 u32",
               "As SCATTER_ELEMENTS: an index tuple outside the output skips its update; of updates to one element "
               "the CPU keeps the last, CUDA any one."),
    FREEDML_OP(MAX_POOLING2, 2_1, false,
               "InputTensor OutputTensor: f32 f16 i64 i32 i16 i8 u64 u32 u16 u8; OutputIndicesTensor: u64 u32"),
    FREEDML_OP(SLICE1, 2_1, false, "InputTensor OutputTensor: f64 f32 f16 i64 i32 i16 i8 u64 u32 u16 u8"),
    FREEDML_OP(TOP_K1, 2_1, false,
               "InputTensor OutputValueTensor: f32 f16 i64 i32 i16 i8 u64 u32 u16 u8; OutputIndexTensor: u64 u32"),
    FREEDML_OP(DEPTH_TO_SPACE1, 2_1, false, "InputTensor OutputTensor: f64 f32 f16 i64 i32 i16 i8 u64 u32 u16 u8"),
    FREEDML_OP(SPACE_TO_DEPTH1, 2_1, false, "InputTensor OutputTensor: f64 f32 f16 i64 i32 i16 i8 u64 u32 u16 u8"),
    FREEDML_OP(MEAN_VARIANCE_NORMALIZATION1, 2_1, false, "InputTensor ScaleTensor BiasTensor OutputTensor: f32 f16"),
    FREEDML_OP(RESAMPLE1, 2_1, false, "InputTensor OutputTensor: f32 f16 i8 u8"),
    FREEDML_OP(MATRIX_MULTIPLY_INTEGER, 2_1, false,
               "ATensor AZeroPointTensor BTensor BZeroPointTensor: i8 u8; OutputTensor: i32"),
    FREEDML_OP(QUANTIZED_LINEAR_MATRIX_MULTIPLY, 2_1, false,
               "ATensor AZeroPointTensor BTensor BZeroPointTensor OutputZeroPointTensor OutputTensor: i8 u8; "
               "AScaleTensor BScaleTensor OutputScaleTensor: f32"),
    FREEDML_OP(CONVOLUTION_INTEGER, 2_1, false,
               "InputTensor InputZeroPointTensor FilterTensor FilterZeroPointTensor: i8 u8; OutputTensor: i32"),
    FREEDML_OP(QUANTIZED_LINEAR_CONVOLUTION, 2_1, false,
               "InputTensor InputZeroPointTensor FilterTensor FilterZeroPointTensor OutputZeroPointTensor "
               "OutputTensor: i8 u8; InputScaleTensor FilterScaleTensor OutputScaleTensor: f32; BiasTensor: i32"),
    FREEDML_OP(ELEMENT_WISE_BIT_AND, 3_0, true,
               "ATensor BTensor OutputTensor: f64 f32 f16 i64 i32 i16 i8 u64 u32 u16 u8"),
    FREEDML_OP(ELEMENT_WISE_BIT_OR, 3_0, true,
               "ATensor BTensor OutputTensor: f64 f32 f16 i64 i32 i16 i8 u64 u32 u16 u8"),
    FREEDML_OP(ELEMENT_WISE_BIT_XOR, 3_0, true,
               "ATensor BTensor OutputTensor: f64 f32 f16 i64 i32 i16 i8 u64 u32 u16 u8"),
    FREEDML_OP(ELEMENT_WISE_BIT_NOT, 3_0, true, "InputTensor OutputTensor: f64 f32 f16 i64 i32 i16 i8 u64 u32 u16 u8"),
    FREEDML_OP(ELEMENT_WISE_BIT_COUNT, 3_0, false,
               "InputTensor: f64 f32 f16 i64 i32 i16 i8 u64 u32 u16 u8; OutputTensor: u32 u8"),
    FREEDML_OP(ELEMENT_WISE_LOGICAL_GREATER_THAN_OR_EQUAL, 3_0, false,
               "ATensor BTensor: f32 f16 i64 i32 i16 i8 u64 u32 u16 u8; OutputTensor: u32 u8"),
    FREEDML_OP(ELEMENT_WISE_LOGICAL_LESS_THAN_OR_EQUAL, 3_0, false,
               "ATensor BTensor: f32 f16 i64 i32 i16 i8 u64 u32 u16 u8; OutputTensor: u32 u8"),
    FREEDML_OP(ACTIVATION_CELU, 3_0, true, "InputTensor OutputTensor: f32 f16"),
    FREEDML_OP(ACTIVATION_RELU_GRAD, 3_0, false,
               "InputTensor InputGradientTensor OutputGradientTensor: f32 f16 i32 i16 i8"),
    FREEDML_OP(AVERAGE_POOLING_GRAD, 3_0, false, "InputGradientTensor OutputGradientTensor: f32 f16"),
    FREEDML_OP(MAX_POOLING_GRAD, 3_0, false, "InputTensor InputGradientTensor OutputGradientTensor: f32 f16"),
    FREEDML_OP(RANDOM_GENERATOR, 3_0, false, "InputStateTensor OutputTensor OutputStateTensor: u32"),
    FREEDML_OP(NONZERO_COORDINATES, 3_0, false,
               "InputTensor: f32 f16 i32 i16 i8 u32 u16 u8; OutputCountTensor OutputCoordinatesTensor: u32"),
    FREEDML_OP(RESAMPLE_GRAD, 3_0, false, "InputGradientTensor OutputGradientTensor: f32 f16"),
    FREEDML_OP(SLICE_GRAD, 3_0, false,
               "InputGradientTensor OutputGradientTensor: f64 f32 f16 i64 i32 i16 i8 u64 u32 u16 u8"),
    // TrainingStepTensor: the table says f32 f16, the member text UINT32 (which TensorFlow-DirectML passes).
    FREEDML_OP(ADAM_OPTIMIZER, 3_0, true,
               "InputParametersTensor InputFirstMomentTensor InputSecondMomentTensor GradientTensor "
               "OutputParametersTensor OutputFirstMomentTensor OutputSecondMomentTensor: f32 f16; "
               "TrainingStepTensor: f32 f16 u32"),
    FREEDML_OP(ARGMIN, 3_0, false, "InputTensor: f32 f16 i64 i32 i16 i8 u64 u32 u16 u8; OutputTensor: i64 i32 u64 u32"),
    FREEDML_OP(ARGMAX, 3_0, false, "InputTensor: f32 f16 i64 i32 i16 i8 u64 u32 u16 u8; OutputTensor: i64 i32 u64 u32"),
    FREEDML_OP(ROI_ALIGN, 3_0, false, "InputTensor ROITensor OutputTensor: f32 f16; BatchIndicesTensor: u64 u32"),
    FREEDML_OP(GATHER_ND1, 3_0, false,
               "InputTensor: f64 f32 f16 i64 i32 i16 i8 u64 u32 u16 u8; IndicesTensor: i64 i32 u64 u32; "
               "OutputTensor: f64 f32 f16 i64 i32 i16 i8 u64 u32 u16 u8"),
    FREEDML_OP(ELEMENT_WISE_ATAN_YX, 3_1, true, "ATensor BTensor OutputTensor: f32 f16"),
    FREEDML_OP(ELEMENT_WISE_CLIP_GRAD, 3_1, true,
               "InputTensor InputGradientTensor OutputGradientTensor: f32 f16 i64 i32 i16 i8 u64 u32 u16 u8"),
    FREEDML_OP(ELEMENT_WISE_DIFFERENCE_SQUARE, 3_1, true, "ATensor BTensor OutputTensor: f32 f16 i32 u32"),
    FREEDML_OP(LOCAL_RESPONSE_NORMALIZATION_GRAD, 3_1, false,
               "InputTensor InputGradientTensor OutputGradientTensor: f32 f16"),
    FREEDML_OP(CUMULATIVE_PRODUCT, 3_1, true, "InputTensor OutputTensor: f32 f16 i64 i32 u64 u32"),
    FREEDML_OP(BATCH_NORMALIZATION_GRAD, 3_1, false,
               "InputTensor InputGradientTensor MeanTensor VarianceTensor ScaleTensor OutputGradientTensor "
               "OutputScaleGradientTensor OutputBiasGradientTensor: f32 f16"),
    FREEDML_OP(ELEMENT_WISE_QUANTIZED_LINEAR_ADD, 4_0, false,
               "ATensor AZeroPointTensor BTensor BZeroPointTensor OutputZeroPointTensor OutputTensor: i8 u8; "
               "AScaleTensor BScaleTensor OutputScaleTensor: f32"),
    FREEDML_OP(DYNAMIC_QUANTIZE_LINEAR, 4_0, false,
               "InputTensor: f32 f16; OutputTensor OutputZeroPointTensor: i8 u8; OutputScaleTensor: f32"),
    FREEDML_OP(ROI_ALIGN1, 4_0, false, "InputTensor ROITensor OutputTensor: f32 f16; BatchIndicesTensor: u64 u32"),
    FREEDML_OP(ROI_ALIGN_GRAD, 4_1, false,
               "InputTensor InputGradientTensor ROITensor OutputGradientTensor OutputROIGradientTensor: f32 f16; "
               "BatchIndicesTensor: u32"),
    FREEDML_OP(BATCH_NORMALIZATION_TRAINING, 4_1, false,
               "InputTensor ScaleTensor BiasTensor FusedAddTensor OutputTensor OutputMeanTensor "
               "OutputVarianceTensor: f32 f16"),
    FREEDML_OP(BATCH_NORMALIZATION_TRAINING_GRAD, 4_1, false,
               "InputTensor InputGradientTensor MeanTensor VarianceTensor ScaleTensor OutputGradientTensor "
               "OutputScaleGradientTensor OutputBiasGradientTensor: f32 f16"),
    FREEDML_OP(ELEMENT_WISE_CLIP1, 5_0, true, "InputTensor OutputTensor: f32 f16 i64 i32 i16 i8 u64 u32 u16 u8"),
    FREEDML_OP(ELEMENT_WISE_CLIP_GRAD1, 5_0, true,
               "InputTensor InputGradientTensor OutputGradientTensor: f32 f16 i64 i32 i16 i8 u64 u32 u16 u8"),
    FREEDML_OP(PADDING1, 5_0, false, "InputTensor OutputTensor: f64 f32 f16 i64 i32 i16 i8 u64 u32 u16 u8"),
    FREEDML_OP(ELEMENT_WISE_NEGATE, 5_0, true, "InputTensor OutputTensor: f32 f16 i64 i32 i16 i8"),
    FREEDML_OP(ACTIVATION_GELU, 5_1, true, "InputTensor OutputTensor: f32 f16"),
    FREEDML_OP(ACTIVATION_SOFTMAX1, 5_1, false, "InputTensor OutputTensor: f32 f16"),
    FREEDML_OP(ACTIVATION_LOG_SOFTMAX1, 5_1, false, "InputTensor OutputTensor: f32 f16"),
    FREEDML_OP(ACTIVATION_HARDMAX1, 5_1, false, "InputTensor OutputTensor: f32 f16"),
    FREEDML_OP(RESAMPLE2, 5_1, false, "InputTensor OutputTensor: f32 f16"),
    FREEDML_OP(RESAMPLE_GRAD1, 5_1, false, "InputGradientTensor OutputGradientTensor: f32 f16"),
    FREEDML_OP(DIAGONAL_MATRIX1, 5_1, false, "InputTensor OutputTensor: f64 f32 f16 i64 i32 i16 i8 u64 u32 u16 u8"),
    FREEDML_OP(MULTIHEAD_ATTENTION, 6_1, false,
               "QueryTensor KeyTensor ValueTensor StackedQueryKeyTensor StackedKeyValueTensor "
               "StackedQueryKeyValueTensor BiasTensor RelativePositionBiasTensor PastKeyTensor PastValueTensor "
               "OutputTensor OutputPresentKeyTensor OutputPresentValueTensor: f32 f16; MaskTensor: i32"),
    FREEDML_OP(LP_POOLING1, 6_2, false, "InputTensor OutputTensor: f32 f16"),
    FREEDML_OP(AVERAGE_POOLING1, 6_2, false, "InputTensor OutputTensor: f32 f16"),
    FREEDML_OP(ACTIVATION_SWISH, 6_2, false, "InputTensor OutputTensor: f32 f16"),
    FREEDML_OP(ACTIVATION_HARD_SWISH, 6_2, false, "InputTensor OutputTensor: f32 f16"),
    FREEDML_OP(QUANTIZED_LINEAR_AVERAGE_POOLING, 6_2, false,
               "InputTensor InputZeroPointTensor OutputZeroPointTensor OutputTensor: i8 u8; InputScaleTensor "
               "OutputScaleTensor: f32"),
    FREEDML_OP(MATRIX_MULTIPLY_INTEGER_TO_FLOAT, 6_2, false,
               "ATensor AZeroPointTensor BTensor BZeroPointTensor: i32 i16 i8 u32 u16 u8; AScaleTensor BScaleTensor "
               "BiasTensor OutputTensor: f32 f16"),
    FREEDML_OP(MEAN_VARIANCE_NORMALIZATION2, 6_3, false, "InputTensor ScaleTensor BiasTensor OutputTensor: f32 f16"),
    FREEDML_OP(MULTIHEAD_ATTENTION1, 6_3, false,
               "QueryTensor KeyTensor ValueTensor StackedQueryKeyTensor StackedKeyValueTensor "
               "StackedQueryKeyValueTensor BiasTensor RelativePositionBiasTensor PastKeyTensor PastValueTensor "
               "PastSequenceLengthsTensor OutputTensor OutputPresentKeyTensor OutputPresentValueTensor: f32 f16; "
               "MaskTensor: i32",
               "The reference page lists f32/f16 for PastSequenceLengthsTensor; FreeDML reads those (rounded to whole "
               "lengths) and also i32/u32, which ONNX Runtime binds."),
    FREEDML_OP(QUANTIZE, 6_3, false,
               "InputTensor: f32 f16; QuantizationTensors: f32 f16 i8 i4 u8 u4; OutputTensor: i8 i4 u8 u4"),
    FREEDML_OP(DEQUANTIZE, 6_3, false,
               "InputTensor: i8 i4 u8 u4; QuantizationTensors: f32 f16 i8 i4 u8 u4; OutputTensor: f32 f16"),
    FREEDML_OP(RESAMPLE3, 6_4, false, "InputTensor OutputTensor: f32 f16 i8 u8"),
    FREEDML_OP(FOLD, 6_4, false, nullptr,
               "The reference page leaves the data type column empty; FreeDML accepts every 8- to 64-bit type "
               "(floats summed in float, integers modulo their type)."),
    FREEDML_OP(UNFOLD, 6_4, false, nullptr,
               "The reference page leaves the data type column empty; FreeDML accepts every 8- to 64-bit type (it "
               "only moves elements)."),
};
// clang-format on
#undef FREEDML_OP

static_assert(std::size(kRows) == 177, "DirectML 6.4 has 177 operator types");

struct TypeToken {
    const char* token;
    DML_TENSOR_DATA_TYPE type;
    const char* name;
};
constexpr TypeToken kTypeTokens[] = {
    {"f64", DML_TENSOR_DATA_TYPE_FLOAT64, "FLOAT64"}, {"f32", DML_TENSOR_DATA_TYPE_FLOAT32, "FLOAT32"},
    {"f16", DML_TENSOR_DATA_TYPE_FLOAT16, "FLOAT16"}, {"i64", DML_TENSOR_DATA_TYPE_INT64, "INT64"},
    {"i32", DML_TENSOR_DATA_TYPE_INT32, "INT32"},     {"i16", DML_TENSOR_DATA_TYPE_INT16, "INT16"},
    {"i8", DML_TENSOR_DATA_TYPE_INT8, "INT8"},        {"u64", DML_TENSOR_DATA_TYPE_UINT64, "UINT64"},
    {"u32", DML_TENSOR_DATA_TYPE_UINT32, "UINT32"},   {"u16", DML_TENSOR_DATA_TYPE_UINT16, "UINT16"},
    {"u8", DML_TENSOR_DATA_TYPE_UINT8, "UINT8"},      {"i4", DML_TENSOR_DATA_TYPE_INT4, "INT4"},
    {"u4", DML_TENSOR_DATA_TYPE_UINT4, "UINT4"},
};

// A malformed row is a bug in this file; the catalog test fails on any recorded error.
std::vector<std::string>& ParseErrors() {
    static std::vector<std::string> errors;
    return errors;
}

CatalogEntry Parse(const CatalogRow& row) {
    CatalogEntry entry{row.type, row.name, row.featureLevel, row.inPlace, row.tensors != nullptr, {}, row.note};
    if (!row.tensors) return entry;
    std::stringstream groups(row.tensors);
    std::string group;
    while (std::getline(groups, group, ';')) {
        const size_t colon = group.find(':');
        if (colon == std::string::npos) {
            ParseErrors().push_back(std::string(row.name) + ": a group has no ':'");
            continue;
        }
        DataTypeSet types = 0;
        std::stringstream typeWords(group.substr(colon + 1));
        for (std::string word; typeWords >> word;) {
            auto it = std::find_if(std::begin(kTypeTokens), std::end(kTypeTokens),
                                   [&](const TypeToken& t) { return word == t.token; });
            if (it == std::end(kTypeTokens)) {
                ParseErrors().push_back(std::string(row.name) + ": unknown data type '" + word + "'");
                continue;
            }
            types |= DataTypeBit(it->type);
        }
        std::stringstream names(group.substr(0, colon));
        for (std::string name; names >> name;) {
            if (entry.FindTensor(name)) ParseErrors().push_back(std::string(row.name) + ": " + name + " listed twice");
            entry.tensors.push_back({name, types});
        }
    }
    return entry;
}

const std::vector<CatalogEntry>& Catalog() {
    static const std::vector<CatalogEntry> catalog = [] {
        std::vector<CatalogEntry> all;
        for (const auto& row : kRows) all.push_back(Parse(row));
        for (size_t i = 0; i < all.size(); ++i) {
            if (static_cast<size_t>(all[i].type) != i + 1) {
                ParseErrors().push_back(std::string(all[i].name) + " is out of DML_OPERATOR_TYPE order");
            }
        }
        return all;
    }();
    return catalog;
}

}  // namespace

std::span<const DML_TENSOR_DATA_TYPE> CatalogDataTypeOrder() {
    static const auto order = [] {
        std::vector<DML_TENSOR_DATA_TYPE> types;
        for (const auto& t : kTypeTokens) types.push_back(t.type);
        return types;
    }();
    return order;
}

std::string DataTypeSetToString(DataTypeSet set) {
    std::string text;
    for (const auto& t : kTypeTokens) {
        if (set & DataTypeBit(t.type)) text += (text.empty() ? "" : ", ") + std::string(t.name);
    }
    return text.empty() ? "none" : text;
}

DataTypeSet CatalogEntry::AllTypes() const {
    DataTypeSet all = 0;
    for (const auto& tensor : tensors) all |= tensor.types;
    return all;
}

const CatalogTensor* CatalogEntry::FindTensor(const std::string& tensorName) const {
    for (const auto& tensor : tensors) {
        if (tensor.name == tensorName) return &tensor;
    }
    return nullptr;
}

std::span<const CatalogEntry> OperatorCatalog() { return Catalog(); }

const CatalogEntry* FindCatalogEntry(DML_OPERATOR_TYPE type) {
    const auto& all = Catalog();
    const int index = static_cast<int>(type) - 1;
    if (index < 0 || index >= static_cast<int>(all.size())) return nullptr;
    return &all[index];
}

std::span<const std::string> CatalogParseErrors() {
    Catalog();
    return ParseErrors();
}

std::string FeatureLevelToString(DML_FEATURE_LEVEL level) {
    const unsigned value = static_cast<unsigned>(level);
    return std::to_string(value >> 12) + "." + std::to_string((value >> 8) & 0xF);
}

}  // namespace freedml::dml
