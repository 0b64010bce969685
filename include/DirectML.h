/*
 * FreeDML - DirectML.h
 *
 * The DirectML application interface (feature levels 1.0 through 6.4), declared for FreeDML.
 * It is binary compatible with the DirectML API: every enumerator has its documented value,
 * every structure its documented members in their documented order, and every interface its
 * documented methods, order and IID. A program built against this header runs against
 * libdirectml.so from FreeDML.
 *
 * Include order on Linux (any of these work):
 *     #include <DirectML.h>                      (pulls in the wsl shims and d3d12.h itself)
 *     #include <wsl/winadapter.h> + <d3d12.h> + <DirectML.h>
 *     #include <directx/d3d12.h> + <DirectML.h>  (after <wsl/winadapter.h>)
 *
 * Define DML_TARGET_VERSION (e.g. 0x4100) before including this header to see only what a given
 * feature level offers; by default everything up to 6.4 is declared.
 */
#ifndef FREEDML_DIRECTML_H
#define FREEDML_DIRECTML_H
#pragma once

#if !defined(__cplusplus)
#error "DirectML.h declares C++ interfaces; compile this translation unit as C++."
#endif

/* ------------------------------------------------------------------------------------------------
 * Windows types and Direct3D 12
 * ---------------------------------------------------------------------------------------------- */

#if !defined(_WIN32)
#include <wsl/winadapter.h>  /* HRESULT, GUID, IUnknown, __uuidof, the SAL no-ops */
#endif

#if defined(__has_include)
#if __has_include(<d3d12.h>)
#include <d3d12.h>
#else
#include <directx/d3d12.h>
#endif
#else
#include <d3d12.h>
#endif

/* ------------------------------------------------------------------------------------------------
 * Build-time switches
 * ---------------------------------------------------------------------------------------------- */

/* DML_TARGET_VERSION picks the newest feature level whose declarations are visible. Without a
 * Windows target (NTDDI_VERSION) or with DML_TARGET_VERSION_USE_LATEST, that is 6.4. */
#ifndef DML_TARGET_VERSION
#if defined(DML_TARGET_VERSION_USE_LATEST) || !defined(NTDDI_VERSION)
#define DML_TARGET_VERSION 0x6400
#elif defined(NTDDI_WIN10_ZN) && NTDDI_VERSION >= NTDDI_WIN10_ZN
#define DML_TARGET_VERSION 0x6000
#elif defined(NTDDI_WIN10_NI) && NTDDI_VERSION >= NTDDI_WIN10_NI
#define DML_TARGET_VERSION 0x5000
#elif defined(NTDDI_WIN10_CO) && NTDDI_VERSION >= NTDDI_WIN10_CO
#define DML_TARGET_VERSION 0x4000
#elif defined(NTDDI_WIN10_FE) && NTDDI_VERSION >= NTDDI_WIN10_FE
#define DML_TARGET_VERSION 0x3000
#elif defined(NTDDI_WIN10_VB) && NTDDI_VERSION >= NTDDI_WIN10_VB
#define DML_TARGET_VERSION 0x2000
#else
#define DML_TARGET_VERSION 0x1000
#endif
#endif /* DML_TARGET_VERSION */

/* Marks the two exported entry points so they stay visible when the library is built with
 * -fvisibility=hidden. */
#ifndef DML_API
#if defined(_WIN32)
#define DML_API
#elif defined(__GNUC__) || defined(__clang__)
#define DML_API __attribute__((visibility("default")))
#else
#define DML_API
#endif
#endif

/* Opens an interface declaration: `interface DML_DECLARE_INTERFACE("iid") IDMLThing : IBase`.
 * On Linux DECLSPEC_UUID is empty, so each interface is also followed by DML_INTERFACE_UUID,
 * which registers the IID with the __uuidof emulation of the wsl shims (__CRT_UUID_DECL).
 * A program that registers the DirectML IIDs itself can define FREEDML_NO_UUID_DECL. */
#ifndef DML_DECLARE_INTERFACE
#define DML_DECLARE_INTERFACE(iid) DECLSPEC_UUID(iid) DECLSPEC_NOVTABLE
#endif

#if defined(__CRT_UUID_DECL) && !defined(FREEDML_NO_UUID_DECL)
#define DML_INTERFACE_UUID(type, l, w1, w2, b1, b2, b3, b4, b5, b6, b7, b8) \
    __CRT_UUID_DECL(type, l, w1, w2, b1, b2, b3, b4, b5, b6, b7, b8)
#else
#define DML_INTERFACE_UUID(type, l, w1, w2, b1, b2, b3, b4, b5, b6, b7, b8)
#endif

/* ------------------------------------------------------------------------------------------------
 * Limits and alignments
 * ---------------------------------------------------------------------------------------------- */

constexpr UINT DML_TENSOR_DIMENSION_COUNT_MAX = 5;       /* rank limit for most operators */
#if DML_TARGET_VERSION >= 0x3000
constexpr UINT DML_TENSOR_DIMENSION_COUNT_MAX1 = 8;      /* rank limit from feature level 3.0 */
#endif
constexpr UINT DML_TEMPORARY_BUFFER_ALIGNMENT = 256;     /* bytes, for temporary resource bindings */
constexpr UINT DML_PERSISTENT_BUFFER_ALIGNMENT = 256;    /* bytes, for persistent resource bindings */
constexpr UINT DML_MINIMUM_BUFFER_TENSOR_ALIGNMENT = 16; /* bytes, smallest GuaranteedBaseOffsetAlignment */

/* ------------------------------------------------------------------------------------------------
 * Forward declarations of the interfaces
 * ---------------------------------------------------------------------------------------------- */

interface IDMLObject;
interface IDMLDevice;
interface IDMLDeviceChild;
interface IDMLPageable;
interface IDMLDispatchable;
interface IDMLOperator;
interface IDMLCompiledOperator;
interface IDMLOperatorInitializer;
interface IDMLBindingTable;
interface IDMLCommandRecorder;

/* ------------------------------------------------------------------------------------------------
 * Tensors
 * ---------------------------------------------------------------------------------------------- */

/* Element type of a tensor. */
enum DML_TENSOR_DATA_TYPE
{
    DML_TENSOR_DATA_TYPE_UNKNOWN = 0,
    DML_TENSOR_DATA_TYPE_FLOAT32 = 1,
    DML_TENSOR_DATA_TYPE_FLOAT16 = 2,
    DML_TENSOR_DATA_TYPE_UINT32  = 3,
    DML_TENSOR_DATA_TYPE_UINT16  = 4,
    DML_TENSOR_DATA_TYPE_UINT8   = 5,
    DML_TENSOR_DATA_TYPE_INT32   = 6,
    DML_TENSOR_DATA_TYPE_INT16   = 7,
    DML_TENSOR_DATA_TYPE_INT8    = 8,
    DML_TENSOR_DATA_TYPE_FLOAT64 = 9,
    DML_TENSOR_DATA_TYPE_UINT64  = 10,
    DML_TENSOR_DATA_TYPE_INT64   = 11,
#if DML_TARGET_VERSION >= 0x6300
    DML_TENSOR_DATA_TYPE_UINT4   = 12, /* two elements per byte */
    DML_TENSOR_DATA_TYPE_INT4    = 13, /* two elements per byte */
#endif
};

/* Which structure DML_TENSOR_DESC::Desc points at. */
enum DML_TENSOR_TYPE
{
    DML_TENSOR_TYPE_INVALID = 0,
    DML_TENSOR_TYPE_BUFFER  = 1, /* DML_BUFFER_TENSOR_DESC */
};

enum DML_TENSOR_FLAGS
{
    DML_TENSOR_FLAG_NONE         = 0x0,
    DML_TENSOR_FLAG_OWNED_BY_DML = 0x1, /* bound at initialization; the contents become DML's */
};
DEFINE_ENUM_FLAG_OPERATORS(DML_TENSOR_FLAGS)

/* A tensor stored in a D3D12 buffer: shape, optional strides (in elements) and byte size. */
struct DML_BUFFER_TENSOR_DESC
{
    DML_TENSOR_DATA_TYPE DataType;
    DML_TENSOR_FLAGS Flags;
    UINT DimensionCount;
    const UINT* Sizes;                   /* DimensionCount entries */
    const UINT* Strides;                 /* DimensionCount entries, or null for packed */
    UINT64 TotalTensorSizeInBytes;
    UINT GuaranteedBaseOffsetAlignment;  /* 0, or a power of two of at least 16 */
};

/* A tagged pointer to a tensor description (today always DML_BUFFER_TENSOR_DESC). */
struct DML_TENSOR_DESC
{
    DML_TENSOR_TYPE Type;
    const void* Desc;
};

/* ------------------------------------------------------------------------------------------------
 * Operator types. Values are stated explicitly; they are part of the binary interface.
 * ---------------------------------------------------------------------------------------------- */

enum DML_OPERATOR_TYPE
{
    DML_OPERATOR_INVALID = 0,
    /* feature level 1.0 */
    DML_OPERATOR_ELEMENT_WISE_IDENTITY                         = 1,
    DML_OPERATOR_ELEMENT_WISE_ABS                              = 2,
    DML_OPERATOR_ELEMENT_WISE_ACOS                             = 3,
    DML_OPERATOR_ELEMENT_WISE_ADD                              = 4,
    DML_OPERATOR_ELEMENT_WISE_ASIN                             = 5,
    DML_OPERATOR_ELEMENT_WISE_ATAN                             = 6,
    DML_OPERATOR_ELEMENT_WISE_CEIL                             = 7,
    DML_OPERATOR_ELEMENT_WISE_CLIP                             = 8,
    DML_OPERATOR_ELEMENT_WISE_COS                              = 9,
    DML_OPERATOR_ELEMENT_WISE_DIVIDE                           = 10,
    DML_OPERATOR_ELEMENT_WISE_EXP                              = 11,
    DML_OPERATOR_ELEMENT_WISE_FLOOR                            = 12,
    DML_OPERATOR_ELEMENT_WISE_LOG                              = 13,
    DML_OPERATOR_ELEMENT_WISE_LOGICAL_AND                      = 14,
    DML_OPERATOR_ELEMENT_WISE_LOGICAL_EQUALS                   = 15,
    DML_OPERATOR_ELEMENT_WISE_LOGICAL_GREATER_THAN             = 16,
    DML_OPERATOR_ELEMENT_WISE_LOGICAL_LESS_THAN                = 17,
    DML_OPERATOR_ELEMENT_WISE_LOGICAL_NOT                      = 18,
    DML_OPERATOR_ELEMENT_WISE_LOGICAL_OR                       = 19,
    DML_OPERATOR_ELEMENT_WISE_LOGICAL_XOR                      = 20,
    DML_OPERATOR_ELEMENT_WISE_MAX                              = 21,
    DML_OPERATOR_ELEMENT_WISE_MEAN                             = 22,
    DML_OPERATOR_ELEMENT_WISE_MIN                              = 23,
    DML_OPERATOR_ELEMENT_WISE_MULTIPLY                         = 24,
    DML_OPERATOR_ELEMENT_WISE_POW                              = 25,
    DML_OPERATOR_ELEMENT_WISE_CONSTANT_POW                     = 26,
    DML_OPERATOR_ELEMENT_WISE_RECIP                            = 27,
    DML_OPERATOR_ELEMENT_WISE_SIN                              = 28,
    DML_OPERATOR_ELEMENT_WISE_SQRT                             = 29,
    DML_OPERATOR_ELEMENT_WISE_SUBTRACT                         = 30,
    DML_OPERATOR_ELEMENT_WISE_TAN                              = 31,
    DML_OPERATOR_ELEMENT_WISE_THRESHOLD                        = 32,
    DML_OPERATOR_ELEMENT_WISE_QUANTIZE_LINEAR                  = 33,
    DML_OPERATOR_ELEMENT_WISE_DEQUANTIZE_LINEAR                = 34,
    DML_OPERATOR_ACTIVATION_ELU                                = 35,
    DML_OPERATOR_ACTIVATION_HARDMAX                            = 36,
    DML_OPERATOR_ACTIVATION_HARD_SIGMOID                       = 37,
    DML_OPERATOR_ACTIVATION_IDENTITY                           = 38,
    DML_OPERATOR_ACTIVATION_LEAKY_RELU                         = 39,
    DML_OPERATOR_ACTIVATION_LINEAR                             = 40,
    DML_OPERATOR_ACTIVATION_LOG_SOFTMAX                        = 41,
    DML_OPERATOR_ACTIVATION_PARAMETERIZED_RELU                 = 42,
    DML_OPERATOR_ACTIVATION_PARAMETRIC_SOFTPLUS                = 43,
    DML_OPERATOR_ACTIVATION_RELU                               = 44,
    DML_OPERATOR_ACTIVATION_SCALED_ELU                         = 45,
    DML_OPERATOR_ACTIVATION_SCALED_TANH                        = 46,
    DML_OPERATOR_ACTIVATION_SIGMOID                            = 47,
    DML_OPERATOR_ACTIVATION_SOFTMAX                            = 48,
    DML_OPERATOR_ACTIVATION_SOFTPLUS                           = 49,
    DML_OPERATOR_ACTIVATION_SOFTSIGN                           = 50,
    DML_OPERATOR_ACTIVATION_TANH                               = 51,
    DML_OPERATOR_ACTIVATION_THRESHOLDED_RELU                   = 52,
    DML_OPERATOR_CONVOLUTION                                   = 53,
    DML_OPERATOR_GEMM                                          = 54,
    DML_OPERATOR_REDUCE                                        = 55,
    DML_OPERATOR_AVERAGE_POOLING                               = 56,
    DML_OPERATOR_LP_POOLING                                    = 57,
    DML_OPERATOR_MAX_POOLING                                   = 58,
    DML_OPERATOR_ROI_POOLING                                   = 59,
    DML_OPERATOR_SLICE                                         = 60,
    DML_OPERATOR_CAST                                          = 61,
    DML_OPERATOR_SPLIT                                         = 62,
    DML_OPERATOR_JOIN                                          = 63,
    DML_OPERATOR_PADDING                                       = 64,
    DML_OPERATOR_VALUE_SCALE_2D                                = 65,
    DML_OPERATOR_UPSAMPLE_2D                                   = 66,
    DML_OPERATOR_GATHER                                        = 67,
    DML_OPERATOR_SPACE_TO_DEPTH                                = 68,
    DML_OPERATOR_DEPTH_TO_SPACE                                = 69,
    DML_OPERATOR_TILE                                          = 70,
    DML_OPERATOR_TOP_K                                         = 71,
    DML_OPERATOR_BATCH_NORMALIZATION                           = 72,
    DML_OPERATOR_MEAN_VARIANCE_NORMALIZATION                   = 73,
    DML_OPERATOR_LOCAL_RESPONSE_NORMALIZATION                  = 74,
    DML_OPERATOR_LP_NORMALIZATION                              = 75,
    DML_OPERATOR_RNN                                           = 76,
    DML_OPERATOR_LSTM                                          = 77,
    DML_OPERATOR_GRU                                           = 78,

#if DML_TARGET_VERSION >= 0x2000  /* added in feature level 2.0 */
    DML_OPERATOR_ELEMENT_WISE_SIGN                             = 79,
    DML_OPERATOR_ELEMENT_WISE_IS_NAN                           = 80,
    DML_OPERATOR_ELEMENT_WISE_ERF                              = 81,
    DML_OPERATOR_ELEMENT_WISE_SINH                             = 82,
    DML_OPERATOR_ELEMENT_WISE_COSH                             = 83,
    DML_OPERATOR_ELEMENT_WISE_TANH                             = 84,
    DML_OPERATOR_ELEMENT_WISE_ASINH                            = 85,
    DML_OPERATOR_ELEMENT_WISE_ACOSH                            = 86,
    DML_OPERATOR_ELEMENT_WISE_ATANH                            = 87,
    DML_OPERATOR_ELEMENT_WISE_IF                               = 88,
    DML_OPERATOR_ELEMENT_WISE_ADD1                             = 89,
    DML_OPERATOR_ACTIVATION_SHRINK                             = 90,
    DML_OPERATOR_MAX_POOLING1                                  = 91,
    DML_OPERATOR_MAX_UNPOOLING                                 = 92,
    DML_OPERATOR_DIAGONAL_MATRIX                               = 93,
    DML_OPERATOR_SCATTER_ELEMENTS                              = 94,
    DML_OPERATOR_SCATTER                                       = 94,  /* older spelling of SCATTER_ELEMENTS */
    DML_OPERATOR_ONE_HOT                                       = 95,
    DML_OPERATOR_RESAMPLE                                      = 96,
#endif

#if DML_TARGET_VERSION >= 0x2100  /* added in feature level 2.1 */
    DML_OPERATOR_ELEMENT_WISE_BIT_SHIFT_LEFT                   = 97,
    DML_OPERATOR_ELEMENT_WISE_BIT_SHIFT_RIGHT                  = 98,
    DML_OPERATOR_ELEMENT_WISE_ROUND                            = 99,
    DML_OPERATOR_ELEMENT_WISE_IS_INFINITY                      = 100,
    DML_OPERATOR_ELEMENT_WISE_MODULUS_TRUNCATE                 = 101,
    DML_OPERATOR_ELEMENT_WISE_MODULUS_FLOOR                    = 102,
    DML_OPERATOR_FILL_VALUE_CONSTANT                           = 103,
    DML_OPERATOR_FILL_VALUE_SEQUENCE                           = 104,
    DML_OPERATOR_CUMULATIVE_SUMMATION                          = 105,
    DML_OPERATOR_REVERSE_SUBSEQUENCES                          = 106,
    DML_OPERATOR_GATHER_ELEMENTS                               = 107,
    DML_OPERATOR_GATHER_ND                                     = 108,
    DML_OPERATOR_SCATTER_ND                                    = 109,
    DML_OPERATOR_MAX_POOLING2                                  = 110,
    DML_OPERATOR_SLICE1                                        = 111,
    DML_OPERATOR_TOP_K1                                        = 112,
    DML_OPERATOR_DEPTH_TO_SPACE1                               = 113,
    DML_OPERATOR_SPACE_TO_DEPTH1                               = 114,
    DML_OPERATOR_MEAN_VARIANCE_NORMALIZATION1                  = 115,
    DML_OPERATOR_RESAMPLE1                                     = 116,
    DML_OPERATOR_MATRIX_MULTIPLY_INTEGER                       = 117,
    DML_OPERATOR_QUANTIZED_LINEAR_MATRIX_MULTIPLY              = 118,
    DML_OPERATOR_CONVOLUTION_INTEGER                           = 119,
    DML_OPERATOR_QUANTIZED_LINEAR_CONVOLUTION                  = 120,
#endif

#if DML_TARGET_VERSION >= 0x3000  /* added in feature level 3.0 */
    DML_OPERATOR_ELEMENT_WISE_BIT_AND                          = 121,
    DML_OPERATOR_ELEMENT_WISE_BIT_OR                           = 122,
    DML_OPERATOR_ELEMENT_WISE_BIT_XOR                          = 123,
    DML_OPERATOR_ELEMENT_WISE_BIT_NOT                          = 124,
    DML_OPERATOR_ELEMENT_WISE_BIT_COUNT                        = 125,
    DML_OPERATOR_ELEMENT_WISE_LOGICAL_GREATER_THAN_OR_EQUAL    = 126,
    DML_OPERATOR_ELEMENT_WISE_LOGICAL_LESS_THAN_OR_EQUAL       = 127,
    DML_OPERATOR_ACTIVATION_CELU                               = 128,
    DML_OPERATOR_ACTIVATION_RELU_GRAD                          = 129,
    DML_OPERATOR_AVERAGE_POOLING_GRAD                          = 130,
    DML_OPERATOR_MAX_POOLING_GRAD                              = 131,
    DML_OPERATOR_RANDOM_GENERATOR                              = 132,
    DML_OPERATOR_NONZERO_COORDINATES                           = 133,
    DML_OPERATOR_RESAMPLE_GRAD                                 = 134,
    DML_OPERATOR_SLICE_GRAD                                    = 135,
    DML_OPERATOR_ADAM_OPTIMIZER                                = 136,
    DML_OPERATOR_ARGMIN                                        = 137,
    DML_OPERATOR_ARGMAX                                        = 138,
    DML_OPERATOR_ROI_ALIGN                                     = 139,
    DML_OPERATOR_GATHER_ND1                                    = 140,
#endif

#if DML_TARGET_VERSION >= 0x3100  /* added in feature level 3.1 */
    DML_OPERATOR_ELEMENT_WISE_ATAN_YX                          = 141,
    DML_OPERATOR_ELEMENT_WISE_CLIP_GRAD                        = 142,
    DML_OPERATOR_ELEMENT_WISE_DIFFERENCE_SQUARE                = 143,
    DML_OPERATOR_LOCAL_RESPONSE_NORMALIZATION_GRAD             = 144,
    DML_OPERATOR_CUMULATIVE_PRODUCT                            = 145,
    DML_OPERATOR_BATCH_NORMALIZATION_GRAD                      = 146,
#endif

#if DML_TARGET_VERSION >= 0x4000  /* added in feature level 4.0 */
    DML_OPERATOR_ELEMENT_WISE_QUANTIZED_LINEAR_ADD             = 147,
    DML_OPERATOR_DYNAMIC_QUANTIZE_LINEAR                       = 148,
    DML_OPERATOR_ROI_ALIGN1                                    = 149,
#endif

#if DML_TARGET_VERSION >= 0x4100  /* added in feature level 4.1 */
    DML_OPERATOR_ROI_ALIGN_GRAD                                = 150,
    DML_OPERATOR_BATCH_NORMALIZATION_TRAINING                  = 151,
    DML_OPERATOR_BATCH_NORMALIZATION_TRAINING_GRAD             = 152,
#endif

#if DML_TARGET_VERSION >= 0x5000  /* added in feature level 5.0 */
    DML_OPERATOR_ELEMENT_WISE_CLIP1                            = 153,
    DML_OPERATOR_ELEMENT_WISE_CLIP_GRAD1                       = 154,
    DML_OPERATOR_PADDING1                                      = 155,
    DML_OPERATOR_ELEMENT_WISE_NEGATE                           = 156,
#endif

#if DML_TARGET_VERSION >= 0x5100  /* added in feature level 5.1 */
    DML_OPERATOR_ACTIVATION_GELU                               = 157,
    DML_OPERATOR_ACTIVATION_SOFTMAX1                           = 158,
    DML_OPERATOR_ACTIVATION_LOG_SOFTMAX1                       = 159,
    DML_OPERATOR_ACTIVATION_HARDMAX1                           = 160,
    DML_OPERATOR_RESAMPLE2                                     = 161,
    DML_OPERATOR_RESAMPLE_GRAD1                                = 162,
    DML_OPERATOR_DIAGONAL_MATRIX1                              = 163,
#endif

#if DML_TARGET_VERSION >= 0x6100  /* added in feature level 6.1 */
    DML_OPERATOR_MULTIHEAD_ATTENTION                           = 164,
#endif

#if DML_TARGET_VERSION >= 0x6200  /* added in feature level 6.2 */
    DML_OPERATOR_LP_POOLING1                                   = 165,
    DML_OPERATOR_AVERAGE_POOLING1                              = 166,
    DML_OPERATOR_ACTIVATION_SWISH                              = 167,
    DML_OPERATOR_ACTIVATION_HARD_SWISH                         = 168,
    DML_OPERATOR_QUANTIZED_LINEAR_AVERAGE_POOLING              = 169,
    DML_OPERATOR_MATRIX_MULTIPLY_INTEGER_TO_FLOAT              = 170,
#endif

#if DML_TARGET_VERSION >= 0x6300  /* added in feature level 6.3 */
    DML_OPERATOR_MEAN_VARIANCE_NORMALIZATION2                  = 171,
    DML_OPERATOR_MULTIHEAD_ATTENTION1                          = 172,
    DML_OPERATOR_QUANTIZE                                      = 173,
    DML_OPERATOR_DEQUANTIZE                                    = 174,
#endif

#if DML_TARGET_VERSION >= 0x6400  /* added in feature level 6.4 */
    DML_OPERATOR_RESAMPLE3                                     = 175,
    DML_OPERATOR_FOLD                                          = 176,
    DML_OPERATOR_UNFOLD                                        = 177,
#endif
};

/* ------------------------------------------------------------------------------------------------
 * Enumerations and small structures used by operator descriptions
 * ---------------------------------------------------------------------------------------------- */

/* Reduction applied by DML_REDUCE_OPERATOR_DESC and friends. */
enum DML_REDUCE_FUNCTION
{
    DML_REDUCE_FUNCTION_ARGMAX      = 0,
    DML_REDUCE_FUNCTION_ARGMIN      = 1,
    DML_REDUCE_FUNCTION_AVERAGE     = 2,
    DML_REDUCE_FUNCTION_L1          = 3,
    DML_REDUCE_FUNCTION_L2          = 4,
    DML_REDUCE_FUNCTION_LOG_SUM     = 5,
    DML_REDUCE_FUNCTION_LOG_SUM_EXP = 6,
    DML_REDUCE_FUNCTION_MAX         = 7,
    DML_REDUCE_FUNCTION_MIN         = 8,
    DML_REDUCE_FUNCTION_MULTIPLY    = 9,
    DML_REDUCE_FUNCTION_SUM         = 10,
    DML_REDUCE_FUNCTION_SUM_SQUARE  = 11,
};

/* Whether GEMM reads a matrix as given or transposed. */
enum DML_MATRIX_TRANSFORM
{
    DML_MATRIX_TRANSFORM_NONE      = 0,
    DML_MATRIX_TRANSFORM_TRANSPOSE = 1,
};

/* Convolution flips the filter; cross-correlation does not. */
enum DML_CONVOLUTION_MODE
{
    DML_CONVOLUTION_MODE_CONVOLUTION       = 0,
    DML_CONVOLUTION_MODE_CROSS_CORRELATION = 1,
};

/* Forward convolution, or backward (transposed, "deconvolution"). */
enum DML_CONVOLUTION_DIRECTION
{
    DML_CONVOLUTION_DIRECTION_FORWARD  = 0,
    DML_CONVOLUTION_DIRECTION_BACKWARD = 1,
};

/* How padding elements are produced. */
enum DML_PADDING_MODE
{
    DML_PADDING_MODE_CONSTANT   = 0,
    DML_PADDING_MODE_EDGE       = 1,
    DML_PADDING_MODE_REFLECTION = 2,
#if DML_TARGET_VERSION >= 0x3000
    DML_PADDING_MODE_SYMMETRIC  = 3,
#endif
#if DML_TARGET_VERSION >= 0x6400
    DML_PADDING_MODE_WRAP       = 4,
#endif
};

/* Sampling used by the resampling operators. */
enum DML_INTERPOLATION_MODE
{
    DML_INTERPOLATION_MODE_NEAREST_NEIGHBOR = 0,
    DML_INTERPOLATION_MODE_LINEAR           = 1,
};

/* y = x * Scale + Bias, applied to the input of many element-wise operators. */
struct DML_SCALE_BIAS
{
    FLOAT Scale;
    FLOAT Bias;
};

struct DML_SIZE_2D
{
    UINT Width;
    UINT Height;
};

/* Time direction of the recurrent operators (RNN, LSTM, GRU). */
enum DML_RECURRENT_NETWORK_DIRECTION
{
    DML_RECURRENT_NETWORK_DIRECTION_FORWARD       = 0,
    DML_RECURRENT_NETWORK_DIRECTION_BACKWARD      = 1,
    DML_RECURRENT_NETWORK_DIRECTION_BIDIRECTIONAL = 2,
};

#if DML_TARGET_VERSION >= 0x2100

/* Rounding of DML_ELEMENT_WISE_ROUND. */
enum DML_ROUNDING_MODE
{
    DML_ROUNDING_MODE_HALVES_TO_NEAREST_EVEN = 0,
    DML_ROUNDING_MODE_TOWARD_ZERO            = 1,
    DML_ROUNDING_MODE_TOWARD_INFINITY        = 2,
};

/* Which infinities DML_ELEMENT_WISE_IS_INFINITY reports. */
enum DML_IS_INFINITY_MODE
{
    DML_IS_INFINITY_MODE_EITHER   = 0,
    DML_IS_INFINITY_MODE_POSITIVE = 1,
    DML_IS_INFINITY_MODE_NEGATIVE = 2,
};

/* Direction along an axis (scans, top-k order, arg min/max ties, rounding). */
enum DML_AXIS_DIRECTION
{
    DML_AXIS_DIRECTION_INCREASING = 0,
    DML_AXIS_DIRECTION_DECREASING = 1,
};

/* Element order used by depth-to-space and space-to-depth. */
enum DML_DEPTH_SPACE_ORDER
{
    DML_DEPTH_SPACE_ORDER_DEPTH_COLUMN_ROW = 0,
    DML_DEPTH_SPACE_ORDER_COLUMN_ROW_DEPTH = 1,
};

/* One scalar of any tensor data type; its meaning is given by an accompanying
 * DML_TENSOR_DATA_TYPE. Eight bytes, aligned to eight. */
union DML_SCALAR_UNION
{
    BYTE Bytes[8];
    INT8 Int8;
    UINT8 UInt8;
    INT16 Int16;
    UINT16 UInt16;
    INT32 Int32;
    UINT32 UInt32;
    INT64 Int64;
    UINT64 UInt64;
    FLOAT Float32;
    DOUBLE Float64;
};

#endif /* DML_TARGET_VERSION >= 0x2100 */

#if DML_TARGET_VERSION >= 0x3000

/* Generator algorithm of DML_RANDOM_GENERATOR. */
enum DML_RANDOM_GENERATOR_TYPE
{
    DML_RANDOM_GENERATOR_TYPE_PHILOX_4X32_10 = 0,
};

#endif /* DML_TARGET_VERSION >= 0x3000 */

#if DML_TARGET_VERSION >= 0x6100

/* Meaning of the mask tensor of the multi-head attention operators. */
enum DML_MULTIHEAD_ATTENTION_MASK_TYPE
{
    DML_MULTIHEAD_ATTENTION_MASK_TYPE_NONE                                = 0,
    DML_MULTIHEAD_ATTENTION_MASK_TYPE_KEY_SEQUENCE_LENGTH                 = 1,
    DML_MULTIHEAD_ATTENTION_MASK_TYPE_KEY_SEQUENCE_END_START              = 2,
    DML_MULTIHEAD_ATTENTION_MASK_TYPE_KEY_QUERY_SEQUENCE_LENGTH_START_END = 3,
    DML_MULTIHEAD_ATTENTION_MASK_TYPE_BOOLEAN                             = 4,
};

#endif /* DML_TARGET_VERSION >= 0x6100 */

#if DML_TARGET_VERSION >= 0x6300

/* Which quantization tensors DML_QUANTIZE / DML_DEQUANTIZE take. */
enum DML_QUANTIZATION_TYPE
{
    DML_QUANTIZATION_TYPE_NONE             = 0,
    DML_QUANTIZATION_TYPE_SCALE            = 1, /* one tensor: scale */
    DML_QUANTIZATION_TYPE_SCALE_ZERO_POINT = 2, /* two tensors: scale, zero point */
};

#endif /* DML_TARGET_VERSION >= 0x6300 */

/* ------------------------------------------------------------------------------------------------
 * Operator descriptions
 * ---------------------------------------------------------------------------------------------- */

/* A tagged pointer to one of the DML_*_OPERATOR_DESC structures below. */
struct DML_OPERATOR_DESC
{
    DML_OPERATOR_TYPE Type;
    const void* Desc;
};

#include "freedml/detail/operator_descs.h"

/* ------------------------------------------------------------------------------------------------
 * Feature support queries (IDMLDevice::CheckFeatureSupport)
 * ---------------------------------------------------------------------------------------------- */

#if DML_TARGET_VERSION >= 0x2000

/* A feature level: 0xMm00 for version M.m. */
enum DML_FEATURE_LEVEL
{
    DML_FEATURE_LEVEL_1_0 = 0x1000,
    DML_FEATURE_LEVEL_2_0 = 0x2000,
    DML_FEATURE_LEVEL_2_1 = 0x2100,
    DML_FEATURE_LEVEL_3_0 = 0x3000,
    DML_FEATURE_LEVEL_3_1 = 0x3100,
    DML_FEATURE_LEVEL_4_0 = 0x4000,
    DML_FEATURE_LEVEL_4_1 = 0x4100,
    DML_FEATURE_LEVEL_5_0 = 0x5000,
    DML_FEATURE_LEVEL_5_1 = 0x5100,
    DML_FEATURE_LEVEL_5_2 = 0x5200,
    DML_FEATURE_LEVEL_6_0 = 0x6000,
    DML_FEATURE_LEVEL_6_1 = 0x6100,
    DML_FEATURE_LEVEL_6_2 = 0x6200,
    DML_FEATURE_LEVEL_6_3 = 0x6300,
    DML_FEATURE_LEVEL_6_4 = 0x6400,
};

#endif /* DML_TARGET_VERSION >= 0x2000 */

/* The question asked of CheckFeatureSupport. */
enum DML_FEATURE
{
    DML_FEATURE_TENSOR_DATA_TYPE_SUPPORT = 0, /* query/data: ..._TENSOR_DATA_TYPE_SUPPORT */
#if DML_TARGET_VERSION >= 0x2000
    DML_FEATURE_FEATURE_LEVELS           = 1, /* query/data: ..._FEATURE_LEVELS */
#endif
};

struct DML_FEATURE_QUERY_TENSOR_DATA_TYPE_SUPPORT
{
    DML_TENSOR_DATA_TYPE DataType;
};

struct DML_FEATURE_DATA_TENSOR_DATA_TYPE_SUPPORT
{
    BOOL IsSupported;
};

#if DML_TARGET_VERSION >= 0x2000

/* The application lists the levels it cares about; the answer is the highest one supported. */
struct DML_FEATURE_QUERY_FEATURE_LEVELS
{
    UINT RequestedFeatureLevelCount;
    const DML_FEATURE_LEVEL* RequestedFeatureLevels; /* RequestedFeatureLevelCount entries */
};

struct DML_FEATURE_DATA_FEATURE_LEVELS
{
    DML_FEATURE_LEVEL MaxSupportedFeatureLevel;
};

#endif /* DML_TARGET_VERSION >= 0x2000 */

/* ------------------------------------------------------------------------------------------------
 * Device creation, execution flags, binding tables
 * ---------------------------------------------------------------------------------------------- */

/* Where a binding table lives: a dispatchable object and a range of a CBV/SRV/UAV heap. */
struct DML_BINDING_TABLE_DESC
{
    IDMLDispatchable* Dispatchable;
    D3D12_CPU_DESCRIPTOR_HANDLE CPUDescriptorHandle;
    D3D12_GPU_DESCRIPTOR_HANDLE GPUDescriptorHandle;
    UINT SizeInDescriptors;
};

/* Options for compiling an operator or a graph. */
enum DML_EXECUTION_FLAGS
{
    DML_EXECUTION_FLAG_NONE                             = 0x0,
    DML_EXECUTION_FLAG_ALLOW_HALF_PRECISION_COMPUTATION = 0x1, /* float32 math may run in float16 */
    DML_EXECUTION_FLAG_DISABLE_META_COMMANDS            = 0x2, /* no driver meta commands */
    DML_EXECUTION_FLAG_DESCRIPTORS_VOLATILE             = 0x4, /* descriptors may change after recording */
};
DEFINE_ENUM_FLAG_OPERATORS(DML_EXECUTION_FLAGS)

/* Options for DMLCreateDevice / DMLCreateDevice1. */
enum DML_CREATE_DEVICE_FLAGS
{
    DML_CREATE_DEVICE_FLAG_NONE  = 0x0,
    DML_CREATE_DEVICE_FLAG_DEBUG = 0x1, /* turn on the validation layer */
};
DEFINE_ENUM_FLAG_OPERATORS(DML_CREATE_DEVICE_FLAGS)

/* Creates a DirectML device on top of a D3D12 device; riid is normally IDMLDevice. */
extern "C" DML_API HRESULT STDAPICALLTYPE DMLCreateDevice(
    ID3D12Device* d3d12Device,
    DML_CREATE_DEVICE_FLAGS flags,
    REFIID riid,
    _COM_Outptr_opt_ void** ppv);

#if DML_TARGET_VERSION >= 0x2000
/* Same, but fails unless the device supports at least minimumFeatureLevel. */
extern "C" DML_API HRESULT STDAPICALLTYPE DMLCreateDevice1(
    ID3D12Device* d3d12Device,
    DML_CREATE_DEVICE_FLAGS flags,
    DML_FEATURE_LEVEL minimumFeatureLevel,
    REFIID riid,
    _COM_Outptr_opt_ void** ppv);
#endif

/* ------------------------------------------------------------------------------------------------
 * Interfaces
 * ---------------------------------------------------------------------------------------------- */

/* Base of every DirectML object: private data and a debug name. */
interface DML_DECLARE_INTERFACE("c8263aac-9e0c-4a2d-9b8e-007521a3317c") IDMLObject : public IUnknown
{
    virtual HRESULT STDMETHODCALLTYPE GetPrivateData(REFGUID guid, _Inout_ UINT* dataSize,
                                                     _Out_writes_bytes_opt_(*dataSize) void* data) = 0;
    virtual HRESULT STDMETHODCALLTYPE SetPrivateData(REFGUID guid, UINT dataSize,
                                                     const void* data) = 0;
    virtual HRESULT STDMETHODCALLTYPE SetPrivateDataInterface(REFGUID guid, _In_opt_ IUnknown* data) = 0;
    virtual HRESULT STDMETHODCALLTYPE SetName(PCWSTR name) = 0;
};
DML_INTERFACE_UUID(IDMLObject, 0xc8263aac, 0x9e0c, 0x4a2d, 0x9b, 0x8e, 0x00, 0x75, 0x21, 0xa3, 0x31, 0x7c)

/* The DirectML device: creates operators, compiles them, makes initializers, recorders and
 * binding tables. */
interface DML_DECLARE_INTERFACE("6dbd6437-96fd-423f-a98c-ae5e7c2a573f") IDMLDevice : public IDMLObject
{
    virtual HRESULT STDMETHODCALLTYPE CheckFeatureSupport(DML_FEATURE feature,
                                                          UINT featureQueryDataSize,
                                                          const void* featureQueryData,
                                                          UINT featureSupportDataSize,
                                                          void* featureSupportData) = 0;
    virtual HRESULT STDMETHODCALLTYPE CreateOperator(const DML_OPERATOR_DESC* desc, REFIID riid,
                                                     _COM_Outptr_opt_ void** ppv) = 0;
    virtual HRESULT STDMETHODCALLTYPE CompileOperator(IDMLOperator* op, DML_EXECUTION_FLAGS flags,
                                                      REFIID riid, _COM_Outptr_opt_ void** ppv) = 0;
    virtual HRESULT STDMETHODCALLTYPE CreateOperatorInitializer(UINT operatorCount,
                                                                IDMLCompiledOperator* const* operators,
                                                                REFIID riid, _COM_Outptr_ void** ppv) = 0;
    virtual HRESULT STDMETHODCALLTYPE CreateCommandRecorder(REFIID riid, _COM_Outptr_ void** ppv) = 0;
    virtual HRESULT STDMETHODCALLTYPE CreateBindingTable(_In_opt_ const DML_BINDING_TABLE_DESC* desc,
                                                         REFIID riid, _COM_Outptr_ void** ppv) = 0;
    virtual HRESULT STDMETHODCALLTYPE Evict(UINT count, IDMLPageable* const* ppObjects) = 0;
    virtual HRESULT STDMETHODCALLTYPE MakeResident(UINT count, IDMLPageable* const* ppObjects) = 0;
    virtual HRESULT STDMETHODCALLTYPE GetDeviceRemovedReason() = 0;
    virtual HRESULT STDMETHODCALLTYPE GetParentDevice(REFIID riid, _COM_Outptr_ void** ppv) = 0;
};
DML_INTERFACE_UUID(IDMLDevice, 0x6dbd6437, 0x96fd, 0x423f, 0xa9, 0x8c, 0xae, 0x5e, 0x7c, 0x2a, 0x57, 0x3f)

/* An object created by a DirectML device. */
interface DML_DECLARE_INTERFACE("27e83142-8165-49e3-974e-2fd66e4cb69d") IDMLDeviceChild : public IDMLObject
{
    virtual HRESULT STDMETHODCALLTYPE GetDevice(REFIID riid, _COM_Outptr_ void** ppv) = 0;
};
DML_INTERFACE_UUID(IDMLDeviceChild, 0x27e83142, 0x8165, 0x49e3, 0x97, 0x4e, 0x2f, 0xd6, 0x6e, 0x4c, 0xb6, 0x9d)

/* A device child that owns GPU memory and can be evicted / made resident. */
interface DML_DECLARE_INTERFACE("b1ab0825-4542-4a4b-8617-6dde6e8f6201") IDMLPageable : public IDMLDeviceChild
{
};
DML_INTERFACE_UUID(IDMLPageable, 0xb1ab0825, 0x4542, 0x4a4b, 0x86, 0x17, 0x6d, 0xde, 0x6e, 0x8f, 0x62, 0x01)

/* An operator description, validated but not yet compiled. */
interface DML_DECLARE_INTERFACE("26caae7a-3081-4633-9581-226fbe57695d") IDMLOperator : public IDMLDeviceChild
{
};
DML_INTERFACE_UUID(IDMLOperator, 0x26caae7a, 0x3081, 0x4633, 0x95, 0x81, 0x22, 0x6f, 0xbe, 0x57, 0x69, 0x5d)

/* What a dispatchable object needs bound: descriptors and temporary / persistent bytes. */
struct DML_BINDING_PROPERTIES
{
    UINT RequiredDescriptorCount;
    UINT64 TemporaryResourceSize;
    UINT64 PersistentResourceSize;
};

/* Something a command recorder can record: a compiled operator or an operator initializer. */
interface DML_DECLARE_INTERFACE("dcb821a8-1039-441e-9f1c-b1759c2f3cec") IDMLDispatchable : public IDMLPageable
{
    virtual DML_BINDING_PROPERTIES STDMETHODCALLTYPE GetBindingProperties() = 0;
};
DML_INTERFACE_UUID(IDMLDispatchable, 0xdcb821a8, 0x1039, 0x441e, 0x9f, 0x1c, 0xb1, 0x75, 0x9c, 0x2f, 0x3c, 0xec)

/* An operator (or graph) compiled for the device, ready to be initialized and dispatched. */
interface DML_DECLARE_INTERFACE("6b15e56a-bf5c-4902-92d8-da3a650afea4") IDMLCompiledOperator : public IDMLDispatchable
{
};
DML_INTERFACE_UUID(IDMLCompiledOperator, 0x6b15e56a, 0xbf5c, 0x4902, 0x92, 0xd8, 0xda, 0x3a, 0x65, 0x0a, 0xfe, 0xa4)

/* Initializes the persistent resources of a set of compiled operators. */
interface DML_DECLARE_INTERFACE("427c1113-435c-469c-8676-4d5dd072f813") IDMLOperatorInitializer : public IDMLDispatchable
{
    virtual HRESULT STDMETHODCALLTYPE Reset(UINT operatorCount, IDMLCompiledOperator* const* operators) = 0;
};
DML_INTERFACE_UUID(IDMLOperatorInitializer, 0x427c1113, 0x435c, 0x469c, 0x86, 0x76, 0x4d, 0x5d, 0xd0, 0x72, 0xf8, 0x13)

/* Which structure DML_BINDING_DESC::Desc points at. */
enum DML_BINDING_TYPE
{
    DML_BINDING_TYPE_NONE         = 0, /* nothing bound; Desc is null */
    DML_BINDING_TYPE_BUFFER       = 1, /* DML_BUFFER_BINDING */
    DML_BINDING_TYPE_BUFFER_ARRAY = 2, /* DML_BUFFER_ARRAY_BINDING */
};

/* A tagged pointer to a binding. */
struct DML_BINDING_DESC
{
    DML_BINDING_TYPE Type;
    const void* Desc;
};

/* A byte range of a D3D12 buffer. */
struct DML_BUFFER_BINDING
{
    ID3D12Resource* Buffer; /* may be null */
    UINT64 Offset;
    UINT64 SizeInBytes;
};

/* Several buffer ranges bound to one slot. */
struct DML_BUFFER_ARRAY_BINDING
{
    UINT BindingCount;
    const DML_BUFFER_BINDING* Bindings; /* BindingCount entries */
};

/* Writes descriptors for the inputs, outputs and resources of a dispatchable object. */
interface DML_DECLARE_INTERFACE("29c687dc-de74-4e3b-ab00-1168f2fc3cfc") IDMLBindingTable : public IDMLDeviceChild
{
    virtual void STDMETHODCALLTYPE BindInputs(UINT bindingCount, const DML_BINDING_DESC* bindings) = 0;
    virtual void STDMETHODCALLTYPE BindOutputs(UINT bindingCount, const DML_BINDING_DESC* bindings) = 0;
    virtual void STDMETHODCALLTYPE BindTemporaryResource(_In_opt_ const DML_BINDING_DESC* binding) = 0;
    virtual void STDMETHODCALLTYPE BindPersistentResource(_In_opt_ const DML_BINDING_DESC* binding) = 0;
    virtual HRESULT STDMETHODCALLTYPE Reset(_In_opt_ const DML_BINDING_TABLE_DESC* desc) = 0;
};
DML_INTERFACE_UUID(IDMLBindingTable, 0x29c687dc, 0xde74, 0x4e3b, 0xab, 0x00, 0x11, 0x68, 0xf2, 0xfc, 0x3c, 0xfc)

/* Records dispatches of DirectML work into a D3D12 command list. */
interface DML_DECLARE_INTERFACE("e6857a76-2e3e-4fdd-bff4-5d2ba10fb453") IDMLCommandRecorder : public IDMLDeviceChild
{
    virtual void STDMETHODCALLTYPE RecordDispatch(ID3D12CommandList* commandList,
                                                  IDMLDispatchable* dispatchable,
                                                  IDMLBindingTable* bindings) = 0;
};
DML_INTERFACE_UUID(IDMLCommandRecorder, 0xe6857a76, 0x2e3e, 0x4fdd, 0xbf, 0xf4, 0x5d, 0x2b, 0xa1, 0x0f, 0xb4, 0x53)

/* Obtained from a device created with DML_CREATE_DEVICE_FLAG_DEBUG. */
interface DML_DECLARE_INTERFACE("7d6f3ac9-394a-4ac3-92a7-390cc57a8217") IDMLDebugDevice : public IUnknown
{
    virtual void STDMETHODCALLTYPE SetMuteDebugOutput(BOOL mute) = 0;
};
DML_INTERFACE_UUID(IDMLDebugDevice, 0x7d6f3ac9, 0x394a, 0x4ac3, 0x92, 0xa7, 0x39, 0x0c, 0xc5, 0x7a, 0x82, 0x17)

/* ------------------------------------------------------------------------------------------------
 * Operator graphs (feature level 2.1)
 * ---------------------------------------------------------------------------------------------- */

#if DML_TARGET_VERSION >= 0x2100

/* Which structure DML_GRAPH_EDGE_DESC::Desc points at. */
enum DML_GRAPH_EDGE_TYPE
{
    DML_GRAPH_EDGE_TYPE_INVALID      = 0,
    DML_GRAPH_EDGE_TYPE_INPUT        = 1, /* DML_INPUT_GRAPH_EDGE_DESC */
    DML_GRAPH_EDGE_TYPE_OUTPUT       = 2, /* DML_OUTPUT_GRAPH_EDGE_DESC */
    DML_GRAPH_EDGE_TYPE_INTERMEDIATE = 3, /* DML_INTERMEDIATE_GRAPH_EDGE_DESC */
};

struct DML_GRAPH_EDGE_DESC
{
    DML_GRAPH_EDGE_TYPE Type;
    const void* Desc;
};

/* Graph input GraphInputIndex feeds input ToNodeInputIndex of node ToNodeIndex. */
struct DML_INPUT_GRAPH_EDGE_DESC
{
    UINT GraphInputIndex;
    UINT ToNodeIndex;
    UINT ToNodeInputIndex;
    const char* Name; /* optional */
};

/* Output FromNodeOutputIndex of node FromNodeIndex becomes graph output GraphOutputIndex. */
struct DML_OUTPUT_GRAPH_EDGE_DESC
{
    UINT FromNodeIndex;
    UINT FromNodeOutputIndex;
    UINT GraphOutputIndex;
    const char* Name; /* optional */
};

/* An output of one node feeds an input of another. */
struct DML_INTERMEDIATE_GRAPH_EDGE_DESC
{
    UINT FromNodeIndex;
    UINT FromNodeOutputIndex;
    UINT ToNodeIndex;
    UINT ToNodeInputIndex;
    const char* Name; /* optional */
};

/* Which structure DML_GRAPH_NODE_DESC::Desc points at. */
enum DML_GRAPH_NODE_TYPE
{
    DML_GRAPH_NODE_TYPE_INVALID  = 0,
    DML_GRAPH_NODE_TYPE_OPERATOR = 1, /* DML_OPERATOR_GRAPH_NODE_DESC */
#if DML_TARGET_VERSION >= 0x6200
    DML_GRAPH_NODE_TYPE_CONSTANT = 2, /* DML_CONSTANT_DATA_GRAPH_NODE_DESC */
#endif
};

struct DML_GRAPH_NODE_DESC
{
    DML_GRAPH_NODE_TYPE Type;
    const void* Desc;
};

/* A node that runs an operator. */
struct DML_OPERATOR_GRAPH_NODE_DESC
{
    IDMLOperator* Operator;
    const char* Name; /* optional */
};

#if DML_TARGET_VERSION >= 0x6200
/* A node whose single output is a small constant known at compile time. */
struct DML_CONSTANT_DATA_GRAPH_NODE_DESC
{
    const void* Data;
    SIZE_T DataSize;
    const char* Name; /* optional */
};
#endif

/* A whole graph: nodes plus the edges that connect graph inputs, nodes and graph outputs. */
struct DML_GRAPH_DESC
{
    UINT InputCount;
    UINT OutputCount;
    UINT NodeCount;
    const DML_GRAPH_NODE_DESC* Nodes;
    UINT InputEdgeCount;
    const DML_GRAPH_EDGE_DESC* InputEdges;
    UINT OutputEdgeCount;
    const DML_GRAPH_EDGE_DESC* OutputEdges;
    UINT IntermediateEdgeCount;
    const DML_GRAPH_EDGE_DESC* IntermediateEdges;
};

/* The device interface of feature level 2.1: adds graph compilation. */
interface DML_DECLARE_INTERFACE("a0884f9a-d2be-4355-aa5d-5901281ad1d2") IDMLDevice1 : public IDMLDevice
{
    virtual HRESULT STDMETHODCALLTYPE CompileGraph(const DML_GRAPH_DESC* desc, DML_EXECUTION_FLAGS flags,
                                                   REFIID riid, _COM_Outptr_opt_ void** ppv) = 0;
};
DML_INTERFACE_UUID(IDMLDevice1, 0xa0884f9a, 0xd2be, 0x4355, 0xaa, 0x5d, 0x59, 0x01, 0x28, 0x1a, 0xd1, 0xd2)

#endif /* DML_TARGET_VERSION >= 0x2100 */

#endif /* FREEDML_DIRECTML_H */
