/*
 * FreeDML - operator description structures of DirectML.h.
 *
 * Included by <DirectML.h> after DML_OPERATOR_DESC; do not include directly. One structure per
 * operator type, in DML_OPERATOR_TYPE order, members in the documented order (this order is the
 * binary interface). Tensor pointers marked "optional" may be null. A pointer member documented
 * as an array holds the count named beside it.
 */
#ifndef FREEDML_DETAIL_OPERATOR_DESCS_H
#define FREEDML_DETAIL_OPERATOR_DESCS_H
#pragma once

#ifndef FREEDML_DIRECTML_H
#error "Include <DirectML.h> instead of freedml/detail/operator_descs.h."
#endif

/* ---- feature level 1.0 --------------------------------------------------------------------- */

/* y = x (with optional scale and bias) */
struct DML_ELEMENT_WISE_IDENTITY_OPERATOR_DESC
{
    const DML_TENSOR_DESC* InputTensor;
    const DML_TENSOR_DESC* OutputTensor;
    const DML_SCALE_BIAS* ScaleBias;                     /* optional */
};

/* y = |x| */
struct DML_ELEMENT_WISE_ABS_OPERATOR_DESC
{
    const DML_TENSOR_DESC* InputTensor;
    const DML_TENSOR_DESC* OutputTensor;
    const DML_SCALE_BIAS* ScaleBias;                     /* optional */
};

/* y = arccos(x) */
struct DML_ELEMENT_WISE_ACOS_OPERATOR_DESC
{
    const DML_TENSOR_DESC* InputTensor;
    const DML_TENSOR_DESC* OutputTensor;
    const DML_SCALE_BIAS* ScaleBias;                     /* optional */
};

/* y = a + b */
struct DML_ELEMENT_WISE_ADD_OPERATOR_DESC
{
    const DML_TENSOR_DESC* ATensor;
    const DML_TENSOR_DESC* BTensor;
    const DML_TENSOR_DESC* OutputTensor;
};

/* y = arcsin(x) */
struct DML_ELEMENT_WISE_ASIN_OPERATOR_DESC
{
    const DML_TENSOR_DESC* InputTensor;
    const DML_TENSOR_DESC* OutputTensor;
    const DML_SCALE_BIAS* ScaleBias;                     /* optional */
};

/* y = arctan(x) */
struct DML_ELEMENT_WISE_ATAN_OPERATOR_DESC
{
    const DML_TENSOR_DESC* InputTensor;
    const DML_TENSOR_DESC* OutputTensor;
    const DML_SCALE_BIAS* ScaleBias;                     /* optional */
};

/* y = ceil(x) */
struct DML_ELEMENT_WISE_CEIL_OPERATOR_DESC
{
    const DML_TENSOR_DESC* InputTensor;
    const DML_TENSOR_DESC* OutputTensor;
    const DML_SCALE_BIAS* ScaleBias;                     /* optional */
};

/* y = clamp(x, Min, Max) */
struct DML_ELEMENT_WISE_CLIP_OPERATOR_DESC
{
    const DML_TENSOR_DESC* InputTensor;
    const DML_TENSOR_DESC* OutputTensor;
    const DML_SCALE_BIAS* ScaleBias;                     /* optional */
    FLOAT Min;
    FLOAT Max;
};

/* y = cos(x) */
struct DML_ELEMENT_WISE_COS_OPERATOR_DESC
{
    const DML_TENSOR_DESC* InputTensor;
    const DML_TENSOR_DESC* OutputTensor;
    const DML_SCALE_BIAS* ScaleBias;                     /* optional */
};

/* y = a / b */
struct DML_ELEMENT_WISE_DIVIDE_OPERATOR_DESC
{
    const DML_TENSOR_DESC* ATensor;
    const DML_TENSOR_DESC* BTensor;
    const DML_TENSOR_DESC* OutputTensor;
};

/* y = e^x */
struct DML_ELEMENT_WISE_EXP_OPERATOR_DESC
{
    const DML_TENSOR_DESC* InputTensor;
    const DML_TENSOR_DESC* OutputTensor;
    const DML_SCALE_BIAS* ScaleBias;                     /* optional */
};

/* y = floor(x) */
struct DML_ELEMENT_WISE_FLOOR_OPERATOR_DESC
{
    const DML_TENSOR_DESC* InputTensor;
    const DML_TENSOR_DESC* OutputTensor;
    const DML_SCALE_BIAS* ScaleBias;                     /* optional */
};

/* y = ln(x) */
struct DML_ELEMENT_WISE_LOG_OPERATOR_DESC
{
    const DML_TENSOR_DESC* InputTensor;
    const DML_TENSOR_DESC* OutputTensor;
    const DML_SCALE_BIAS* ScaleBias;                     /* optional */
};

/* y = a && b */
struct DML_ELEMENT_WISE_LOGICAL_AND_OPERATOR_DESC
{
    const DML_TENSOR_DESC* ATensor;
    const DML_TENSOR_DESC* BTensor;
    const DML_TENSOR_DESC* OutputTensor;
};

/* y = (a == b) */
struct DML_ELEMENT_WISE_LOGICAL_EQUALS_OPERATOR_DESC
{
    const DML_TENSOR_DESC* ATensor;
    const DML_TENSOR_DESC* BTensor;
    const DML_TENSOR_DESC* OutputTensor;
};

/* y = (a > b) */
struct DML_ELEMENT_WISE_LOGICAL_GREATER_THAN_OPERATOR_DESC
{
    const DML_TENSOR_DESC* ATensor;
    const DML_TENSOR_DESC* BTensor;
    const DML_TENSOR_DESC* OutputTensor;
};

/* y = (a < b) */
struct DML_ELEMENT_WISE_LOGICAL_LESS_THAN_OPERATOR_DESC
{
    const DML_TENSOR_DESC* ATensor;
    const DML_TENSOR_DESC* BTensor;
    const DML_TENSOR_DESC* OutputTensor;
};

/* y = !x */
struct DML_ELEMENT_WISE_LOGICAL_NOT_OPERATOR_DESC
{
    const DML_TENSOR_DESC* InputTensor;
    const DML_TENSOR_DESC* OutputTensor;
};

/* y = a || b */
struct DML_ELEMENT_WISE_LOGICAL_OR_OPERATOR_DESC
{
    const DML_TENSOR_DESC* ATensor;
    const DML_TENSOR_DESC* BTensor;
    const DML_TENSOR_DESC* OutputTensor;
};

/* y = a != b (as booleans) */
struct DML_ELEMENT_WISE_LOGICAL_XOR_OPERATOR_DESC
{
    const DML_TENSOR_DESC* ATensor;
    const DML_TENSOR_DESC* BTensor;
    const DML_TENSOR_DESC* OutputTensor;
};

/* y = max(a, b) */
struct DML_ELEMENT_WISE_MAX_OPERATOR_DESC
{
    const DML_TENSOR_DESC* ATensor;
    const DML_TENSOR_DESC* BTensor;
    const DML_TENSOR_DESC* OutputTensor;
};

/* y = (a + b) / 2 */
struct DML_ELEMENT_WISE_MEAN_OPERATOR_DESC
{
    const DML_TENSOR_DESC* ATensor;
    const DML_TENSOR_DESC* BTensor;
    const DML_TENSOR_DESC* OutputTensor;
};

/* y = min(a, b) */
struct DML_ELEMENT_WISE_MIN_OPERATOR_DESC
{
    const DML_TENSOR_DESC* ATensor;
    const DML_TENSOR_DESC* BTensor;
    const DML_TENSOR_DESC* OutputTensor;
};

/* y = a * b */
struct DML_ELEMENT_WISE_MULTIPLY_OPERATOR_DESC
{
    const DML_TENSOR_DESC* ATensor;
    const DML_TENSOR_DESC* BTensor;
    const DML_TENSOR_DESC* OutputTensor;
};

/* y = x ^ exponent (exponent is a tensor) */
struct DML_ELEMENT_WISE_POW_OPERATOR_DESC
{
    const DML_TENSOR_DESC* InputTensor;
    const DML_TENSOR_DESC* ExponentTensor;
    const DML_TENSOR_DESC* OutputTensor;
    const DML_SCALE_BIAS* ScaleBias;                     /* optional */
};

/* y = x ^ Exponent (a constant) */
struct DML_ELEMENT_WISE_CONSTANT_POW_OPERATOR_DESC
{
    const DML_TENSOR_DESC* InputTensor;
    const DML_TENSOR_DESC* OutputTensor;
    const DML_SCALE_BIAS* ScaleBias;                     /* optional */
    FLOAT Exponent;
};

/* y = 1 / x */
struct DML_ELEMENT_WISE_RECIP_OPERATOR_DESC
{
    const DML_TENSOR_DESC* InputTensor;
    const DML_TENSOR_DESC* OutputTensor;
    const DML_SCALE_BIAS* ScaleBias;                     /* optional */
};

/* y = sin(x) */
struct DML_ELEMENT_WISE_SIN_OPERATOR_DESC
{
    const DML_TENSOR_DESC* InputTensor;
    const DML_TENSOR_DESC* OutputTensor;
    const DML_SCALE_BIAS* ScaleBias;                     /* optional */
};

/* y = sqrt(x) */
struct DML_ELEMENT_WISE_SQRT_OPERATOR_DESC
{
    const DML_TENSOR_DESC* InputTensor;
    const DML_TENSOR_DESC* OutputTensor;
    const DML_SCALE_BIAS* ScaleBias;                     /* optional */
};

/* y = a - b */
struct DML_ELEMENT_WISE_SUBTRACT_OPERATOR_DESC
{
    const DML_TENSOR_DESC* ATensor;
    const DML_TENSOR_DESC* BTensor;
    const DML_TENSOR_DESC* OutputTensor;
};

/* y = tan(x) */
struct DML_ELEMENT_WISE_TAN_OPERATOR_DESC
{
    const DML_TENSOR_DESC* InputTensor;
    const DML_TENSOR_DESC* OutputTensor;
    const DML_SCALE_BIAS* ScaleBias;                     /* optional */
};

/* y = max(x, Min) */
struct DML_ELEMENT_WISE_THRESHOLD_OPERATOR_DESC
{
    const DML_TENSOR_DESC* InputTensor;
    const DML_TENSOR_DESC* OutputTensor;
    const DML_SCALE_BIAS* ScaleBias;                     /* optional */
    FLOAT Min;
};

/* y = saturate(round(x / scale) + zeroPoint) */
struct DML_ELEMENT_WISE_QUANTIZE_LINEAR_OPERATOR_DESC
{
    const DML_TENSOR_DESC* InputTensor;
    const DML_TENSOR_DESC* ScaleTensor;
    const DML_TENSOR_DESC* ZeroPointTensor;              /* optional */
    const DML_TENSOR_DESC* OutputTensor;
};

/* y = (x - zeroPoint) * scale */
struct DML_ELEMENT_WISE_DEQUANTIZE_LINEAR_OPERATOR_DESC
{
    const DML_TENSOR_DESC* InputTensor;
    const DML_TENSOR_DESC* ScaleTensor;
    const DML_TENSOR_DESC* ZeroPointTensor;              /* optional */
    const DML_TENSOR_DESC* OutputTensor;
};

/* y = x if x > 0, else Alpha * (e^x - 1) */
struct DML_ACTIVATION_ELU_OPERATOR_DESC
{
    const DML_TENSOR_DESC* InputTensor;
    const DML_TENSOR_DESC* OutputTensor;
    FLOAT Alpha;
};

/* one-hot of the maximum along the last axis */
struct DML_ACTIVATION_HARDMAX_OPERATOR_DESC
{
    const DML_TENSOR_DESC* InputTensor;
    const DML_TENSOR_DESC* OutputTensor;
};

/* y = clamp(Alpha * x + Beta, 0, 1) */
struct DML_ACTIVATION_HARD_SIGMOID_OPERATOR_DESC
{
    const DML_TENSOR_DESC* InputTensor;
    const DML_TENSOR_DESC* OutputTensor;
    FLOAT Alpha;
    FLOAT Beta;
};

/* y = x */
struct DML_ACTIVATION_IDENTITY_OPERATOR_DESC
{
    const DML_TENSOR_DESC* InputTensor;
    const DML_TENSOR_DESC* OutputTensor;
};

/* y = x if x > 0, else Alpha * x */
struct DML_ACTIVATION_LEAKY_RELU_OPERATOR_DESC
{
    const DML_TENSOR_DESC* InputTensor;
    const DML_TENSOR_DESC* OutputTensor;
    FLOAT Alpha;
};

/* y = Alpha * x + Beta */
struct DML_ACTIVATION_LINEAR_OPERATOR_DESC
{
    const DML_TENSOR_DESC* InputTensor;
    const DML_TENSOR_DESC* OutputTensor;
    FLOAT Alpha;
    FLOAT Beta;
};

/* y = log(softmax(x)) along the last axis */
struct DML_ACTIVATION_LOG_SOFTMAX_OPERATOR_DESC
{
    const DML_TENSOR_DESC* InputTensor;
    const DML_TENSOR_DESC* OutputTensor;
};

/* y = x if x > 0, else slope * x (slope is a tensor) */
struct DML_ACTIVATION_PARAMETERIZED_RELU_OPERATOR_DESC
{
    const DML_TENSOR_DESC* InputTensor;
    const DML_TENSOR_DESC* SlopeTensor;
    const DML_TENSOR_DESC* OutputTensor;
};

/* y = Alpha * ln(1 + e^(Beta * x)) */
struct DML_ACTIVATION_PARAMETRIC_SOFTPLUS_OPERATOR_DESC
{
    const DML_TENSOR_DESC* InputTensor;
    const DML_TENSOR_DESC* OutputTensor;
    FLOAT Alpha;
    FLOAT Beta;
};

/* y = max(0, x) */
struct DML_ACTIVATION_RELU_OPERATOR_DESC
{
    const DML_TENSOR_DESC* InputTensor;
    const DML_TENSOR_DESC* OutputTensor;
};

/* y = Gamma * (x if x > 0, else Alpha * (e^x - 1)) */
struct DML_ACTIVATION_SCALED_ELU_OPERATOR_DESC
{
    const DML_TENSOR_DESC* InputTensor;
    const DML_TENSOR_DESC* OutputTensor;
    FLOAT Alpha;
    FLOAT Gamma;
};

/* y = Alpha * tanh(Beta * x) */
struct DML_ACTIVATION_SCALED_TANH_OPERATOR_DESC
{
    const DML_TENSOR_DESC* InputTensor;
    const DML_TENSOR_DESC* OutputTensor;
    FLOAT Alpha;
    FLOAT Beta;
};

/* y = 1 / (1 + e^-x) */
struct DML_ACTIVATION_SIGMOID_OPERATOR_DESC
{
    const DML_TENSOR_DESC* InputTensor;
    const DML_TENSOR_DESC* OutputTensor;
};

/* y = e^x / sum(e^x) along the last axis */
struct DML_ACTIVATION_SOFTMAX_OPERATOR_DESC
{
    const DML_TENSOR_DESC* InputTensor;
    const DML_TENSOR_DESC* OutputTensor;
};

/* y = ln(1 + e^(Steepness * x)) / Steepness */
struct DML_ACTIVATION_SOFTPLUS_OPERATOR_DESC
{
    const DML_TENSOR_DESC* InputTensor;
    const DML_TENSOR_DESC* OutputTensor;
    FLOAT Steepness;
};

/* y = x / (1 + |x|) */
struct DML_ACTIVATION_SOFTSIGN_OPERATOR_DESC
{
    const DML_TENSOR_DESC* InputTensor;
    const DML_TENSOR_DESC* OutputTensor;
};

/* y = tanh(x) */
struct DML_ACTIVATION_TANH_OPERATOR_DESC
{
    const DML_TENSOR_DESC* InputTensor;
    const DML_TENSOR_DESC* OutputTensor;
};

/* y = x if x > Alpha, else 0 */
struct DML_ACTIVATION_THRESHOLDED_RELU_OPERATOR_DESC
{
    const DML_TENSOR_DESC* InputTensor;
    const DML_TENSOR_DESC* OutputTensor;
    FLOAT Alpha;
};

/* N-d convolution or transposed convolution, with groups and an optional fused activation */
struct DML_CONVOLUTION_OPERATOR_DESC
{
    const DML_TENSOR_DESC* InputTensor;
    const DML_TENSOR_DESC* FilterTensor;
    const DML_TENSOR_DESC* BiasTensor;                   /* optional */
    const DML_TENSOR_DESC* OutputTensor;
    DML_CONVOLUTION_MODE Mode;
    DML_CONVOLUTION_DIRECTION Direction;
    UINT DimensionCount;                                 /* spatial dimensions */
    const UINT* Strides;                                 /* DimensionCount entries */
    const UINT* Dilations;                               /* DimensionCount entries */
    const UINT* StartPadding;                            /* DimensionCount entries */
    const UINT* EndPadding;                              /* DimensionCount entries */
    const UINT* OutputPadding;                           /* DimensionCount entries */
    UINT GroupCount;
    const DML_OPERATOR_DESC* FusedActivation;            /* optional fused activation */
};

/* y = activation(Alpha * op(A) x op(B) + Beta * C) */
struct DML_GEMM_OPERATOR_DESC
{
    const DML_TENSOR_DESC* ATensor;
    const DML_TENSOR_DESC* BTensor;
    const DML_TENSOR_DESC* CTensor;                      /* optional */
    const DML_TENSOR_DESC* OutputTensor;
    DML_MATRIX_TRANSFORM TransA;
    DML_MATRIX_TRANSFORM TransB;
    FLOAT Alpha;
    FLOAT Beta;
    const DML_OPERATOR_DESC* FusedActivation;            /* optional fused activation */
};

/* reduces the given axes with Function */
struct DML_REDUCE_OPERATOR_DESC
{
    DML_REDUCE_FUNCTION Function;
    const DML_TENSOR_DESC* InputTensor;
    const DML_TENSOR_DESC* OutputTensor;
    UINT AxisCount;
    const UINT* Axes;                                    /* AxisCount entries */
};

/* mean over each window */
struct DML_AVERAGE_POOLING_OPERATOR_DESC
{
    const DML_TENSOR_DESC* InputTensor;
    const DML_TENSOR_DESC* OutputTensor;
    UINT DimensionCount;
    const UINT* Strides;
    const UINT* WindowSize;
    const UINT* StartPadding;
    const UINT* EndPadding;
    BOOL IncludePadding;
};

/* Lp norm over each window */
struct DML_LP_POOLING_OPERATOR_DESC
{
    const DML_TENSOR_DESC* InputTensor;
    const DML_TENSOR_DESC* OutputTensor;
    UINT DimensionCount;
    const UINT* Strides;
    const UINT* WindowSize;
    const UINT* StartPadding;
    const UINT* EndPadding;
    UINT P;
};

/* maximum over each window */
struct DML_MAX_POOLING_OPERATOR_DESC
{
    const DML_TENSOR_DESC* InputTensor;
    const DML_TENSOR_DESC* OutputTensor;
    UINT DimensionCount;
    const UINT* Strides;
    const UINT* WindowSize;
    const UINT* StartPadding;
    const UINT* EndPadding;
};

/* max pooling of regions of interest to a fixed size */
struct DML_ROI_POOLING_OPERATOR_DESC
{
    const DML_TENSOR_DESC* InputTensor;
    const DML_TENSOR_DESC* ROITensor;
    const DML_TENSOR_DESC* OutputTensor;
    FLOAT SpatialScale;
    DML_SIZE_2D PooledSize;
};

/* extracts a strided window */
struct DML_SLICE_OPERATOR_DESC
{
    const DML_TENSOR_DESC* InputTensor;
    const DML_TENSOR_DESC* OutputTensor;
    UINT DimensionCount;
    const UINT* Offsets;
    const UINT* Sizes;
    const UINT* Strides;
};

/* converts each element to the output data type */
struct DML_CAST_OPERATOR_DESC
{
    const DML_TENSOR_DESC* InputTensor;
    const DML_TENSOR_DESC* OutputTensor;
};

/* splits one tensor into several along Axis */
struct DML_SPLIT_OPERATOR_DESC
{
    const DML_TENSOR_DESC* InputTensor;
    UINT OutputCount;
    const DML_TENSOR_DESC* OutputTensors;                /* OutputCount entries */
    UINT Axis;
};

/* concatenates several tensors along Axis */
struct DML_JOIN_OPERATOR_DESC
{
    UINT InputCount;
    const DML_TENSOR_DESC* InputTensors;                 /* InputCount entries */
    const DML_TENSOR_DESC* OutputTensor;
    UINT Axis;
};

/* pads each dimension at its start and end */
struct DML_PADDING_OPERATOR_DESC
{
    const DML_TENSOR_DESC* InputTensor;
    const DML_TENSOR_DESC* OutputTensor;
    DML_PADDING_MODE PaddingMode;
    FLOAT PaddingValue;
    UINT DimensionCount;
    const UINT* StartPadding;
    const UINT* EndPadding;
};

/* y = x * Scale + Bias[channel] */
struct DML_VALUE_SCALE_2D_OPERATOR_DESC
{
    const DML_TENSOR_DESC* InputTensor;
    const DML_TENSOR_DESC* OutputTensor;
    FLOAT Scale;
    UINT ChannelCount;
    const FLOAT* Bias;                                   /* ChannelCount entries */
};

/* enlarges height and width by integer factors */
struct DML_UPSAMPLE_2D_OPERATOR_DESC
{
    const DML_TENSOR_DESC* InputTensor;
    const DML_TENSOR_DESC* OutputTensor;
    DML_SIZE_2D ScaleSize;
    DML_INTERPOLATION_MODE InterpolationMode;
};

/* selects slices along Axis by index */
struct DML_GATHER_OPERATOR_DESC
{
    const DML_TENSOR_DESC* InputTensor;
    const DML_TENSOR_DESC* IndicesTensor;
    const DML_TENSOR_DESC* OutputTensor;
    UINT Axis;
    UINT IndexDimensions;
};

/* moves spatial blocks into channels */
struct DML_SPACE_TO_DEPTH_OPERATOR_DESC
{
    const DML_TENSOR_DESC* InputTensor;
    const DML_TENSOR_DESC* OutputTensor;
    UINT BlockSize;
};

/* moves channels into spatial blocks */
struct DML_DEPTH_TO_SPACE_OPERATOR_DESC
{
    const DML_TENSOR_DESC* InputTensor;
    const DML_TENSOR_DESC* OutputTensor;
    UINT BlockSize;
};

/* repeats the input along each dimension */
struct DML_TILE_OPERATOR_DESC
{
    const DML_TENSOR_DESC* InputTensor;
    const DML_TENSOR_DESC* OutputTensor;
    UINT RepeatsCount;
    const UINT* Repeats;                                 /* RepeatsCount entries */
};

/* the K largest values along Axis and their indices */
struct DML_TOP_K_OPERATOR_DESC
{
    const DML_TENSOR_DESC* InputTensor;
    const DML_TENSOR_DESC* OutputValueTensor;
    const DML_TENSOR_DESC* OutputIndexTensor;
    UINT Axis;
    UINT K;
};

/* y = scale * (x - mean) / sqrt(variance + Epsilon) + bias */
struct DML_BATCH_NORMALIZATION_OPERATOR_DESC
{
    const DML_TENSOR_DESC* InputTensor;
    const DML_TENSOR_DESC* MeanTensor;
    const DML_TENSOR_DESC* VarianceTensor;
    const DML_TENSOR_DESC* ScaleTensor;
    const DML_TENSOR_DESC* BiasTensor;
    const DML_TENSOR_DESC* OutputTensor;
    BOOL Spatial;
    FLOAT Epsilon;
    const DML_OPERATOR_DESC* FusedActivation;            /* optional fused activation */
};

/* normalizes to zero mean (and unit variance) per instance */
struct DML_MEAN_VARIANCE_NORMALIZATION_OPERATOR_DESC
{
    const DML_TENSOR_DESC* InputTensor;
    const DML_TENSOR_DESC* ScaleTensor;                  /* optional */
    const DML_TENSOR_DESC* BiasTensor;                   /* optional */
    const DML_TENSOR_DESC* OutputTensor;
    BOOL CrossChannel;
    BOOL NormalizeVariance;
    FLOAT Epsilon;
    const DML_OPERATOR_DESC* FusedActivation;            /* optional fused activation */
};

/* normalizes over neighbouring channels or positions */
struct DML_LOCAL_RESPONSE_NORMALIZATION_OPERATOR_DESC
{
    const DML_TENSOR_DESC* InputTensor;
    const DML_TENSOR_DESC* OutputTensor;
    BOOL CrossChannel;
    UINT LocalSize;
    FLOAT Alpha;
    FLOAT Beta;
    FLOAT Bias;
};

/* divides by the Lp norm along Axis */
struct DML_LP_NORMALIZATION_OPERATOR_DESC
{
    const DML_TENSOR_DESC* InputTensor;
    const DML_TENSOR_DESC* OutputTensor;
    UINT Axis;
    FLOAT Epsilon;
    UINT P;
};

/* simple recurrent network layer */
struct DML_RNN_OPERATOR_DESC
{
    const DML_TENSOR_DESC* InputTensor;
    const DML_TENSOR_DESC* WeightTensor;
    const DML_TENSOR_DESC* RecurrenceTensor;
    const DML_TENSOR_DESC* BiasTensor;                   /* optional */
    const DML_TENSOR_DESC* HiddenInitTensor;             /* optional */
    const DML_TENSOR_DESC* SequenceLengthsTensor;        /* optional */
    const DML_TENSOR_DESC* OutputSequenceTensor;         /* optional */
    const DML_TENSOR_DESC* OutputSingleTensor;           /* optional */
    UINT ActivationDescCount;
    const DML_OPERATOR_DESC* ActivationDescs;            /* ActivationDescCount entries */
    DML_RECURRENT_NETWORK_DIRECTION Direction;
};

/* long short-term memory layer */
struct DML_LSTM_OPERATOR_DESC
{
    const DML_TENSOR_DESC* InputTensor;
    const DML_TENSOR_DESC* WeightTensor;
    const DML_TENSOR_DESC* RecurrenceTensor;
    const DML_TENSOR_DESC* BiasTensor;                   /* optional */
    const DML_TENSOR_DESC* HiddenInitTensor;             /* optional */
    const DML_TENSOR_DESC* CellMemInitTensor;            /* optional */
    const DML_TENSOR_DESC* SequenceLengthsTensor;        /* optional */
    const DML_TENSOR_DESC* PeepholeTensor;               /* optional */
    const DML_TENSOR_DESC* OutputSequenceTensor;         /* optional */
    const DML_TENSOR_DESC* OutputSingleTensor;           /* optional */
    const DML_TENSOR_DESC* OutputCellSingleTensor;       /* optional */
    UINT ActivationDescCount;
    const DML_OPERATOR_DESC* ActivationDescs;            /* ActivationDescCount entries */
    DML_RECURRENT_NETWORK_DIRECTION Direction;
    FLOAT ClipThreshold;
    BOOL UseClipThreshold;
    BOOL CoupleInputForget;
};

/* gated recurrent unit layer */
struct DML_GRU_OPERATOR_DESC
{
    const DML_TENSOR_DESC* InputTensor;
    const DML_TENSOR_DESC* WeightTensor;
    const DML_TENSOR_DESC* RecurrenceTensor;
    const DML_TENSOR_DESC* BiasTensor;                   /* optional */
    const DML_TENSOR_DESC* HiddenInitTensor;             /* optional */
    const DML_TENSOR_DESC* SequenceLengthsTensor;        /* optional */
    const DML_TENSOR_DESC* OutputSequenceTensor;         /* optional */
    const DML_TENSOR_DESC* OutputSingleTensor;           /* optional */
    UINT ActivationDescCount;
    const DML_OPERATOR_DESC* ActivationDescs;            /* ActivationDescCount entries */
    DML_RECURRENT_NETWORK_DIRECTION Direction;
    BOOL LinearBeforeReset;
};

/* ---- feature level 2.0 --------------------------------------------------------------------- */

#if DML_TARGET_VERSION >= 0x2000

/* y = -1, 0 or 1 by the sign of x */
struct DML_ELEMENT_WISE_SIGN_OPERATOR_DESC
{
    const DML_TENSOR_DESC* InputTensor;
    const DML_TENSOR_DESC* OutputTensor;
};

/* y = isnan(x) */
struct DML_ELEMENT_WISE_IS_NAN_OPERATOR_DESC
{
    const DML_TENSOR_DESC* InputTensor;
    const DML_TENSOR_DESC* OutputTensor;
};

/* y = erf(x) */
struct DML_ELEMENT_WISE_ERF_OPERATOR_DESC
{
    const DML_TENSOR_DESC* InputTensor;
    const DML_TENSOR_DESC* OutputTensor;
    const DML_SCALE_BIAS* ScaleBias;                     /* optional */
};

/* y = sinh(x) */
struct DML_ELEMENT_WISE_SINH_OPERATOR_DESC
{
    const DML_TENSOR_DESC* InputTensor;
    const DML_TENSOR_DESC* OutputTensor;
    const DML_SCALE_BIAS* ScaleBias;                     /* optional */
};

/* y = cosh(x) */
struct DML_ELEMENT_WISE_COSH_OPERATOR_DESC
{
    const DML_TENSOR_DESC* InputTensor;
    const DML_TENSOR_DESC* OutputTensor;
    const DML_SCALE_BIAS* ScaleBias;                     /* optional */
};

/* y = tanh(x) */
struct DML_ELEMENT_WISE_TANH_OPERATOR_DESC
{
    const DML_TENSOR_DESC* InputTensor;
    const DML_TENSOR_DESC* OutputTensor;
    const DML_SCALE_BIAS* ScaleBias;                     /* optional */
};

/* y = arsinh(x) */
struct DML_ELEMENT_WISE_ASINH_OPERATOR_DESC
{
    const DML_TENSOR_DESC* InputTensor;
    const DML_TENSOR_DESC* OutputTensor;
    const DML_SCALE_BIAS* ScaleBias;                     /* optional */
};

/* y = arcosh(x) */
struct DML_ELEMENT_WISE_ACOSH_OPERATOR_DESC
{
    const DML_TENSOR_DESC* InputTensor;
    const DML_TENSOR_DESC* OutputTensor;
    const DML_SCALE_BIAS* ScaleBias;                     /* optional */
};

/* y = artanh(x) */
struct DML_ELEMENT_WISE_ATANH_OPERATOR_DESC
{
    const DML_TENSOR_DESC* InputTensor;
    const DML_TENSOR_DESC* OutputTensor;
    const DML_SCALE_BIAS* ScaleBias;                     /* optional */
};

/* y = condition ? a : b */
struct DML_ELEMENT_WISE_IF_OPERATOR_DESC
{
    const DML_TENSOR_DESC* ConditionTensor;
    const DML_TENSOR_DESC* ATensor;
    const DML_TENSOR_DESC* BTensor;
    const DML_TENSOR_DESC* OutputTensor;
};

/* y = activation(a + b) */
struct DML_ELEMENT_WISE_ADD1_OPERATOR_DESC
{
    const DML_TENSOR_DESC* ATensor;
    const DML_TENSOR_DESC* BTensor;
    const DML_TENSOR_DESC* OutputTensor;
    const DML_OPERATOR_DESC* FusedActivation;            /* optional fused activation */
};

/* y = x - Bias if x > Threshold, x + Bias if x < -Threshold, else 0 */
struct DML_ACTIVATION_SHRINK_OPERATOR_DESC
{
    const DML_TENSOR_DESC* InputTensor;
    const DML_TENSOR_DESC* OutputTensor;
    FLOAT Bias;
    FLOAT Threshold;
};

/* max pooling that can also output the argmax indices */
struct DML_MAX_POOLING1_OPERATOR_DESC
{
    const DML_TENSOR_DESC* InputTensor;
    const DML_TENSOR_DESC* OutputTensor;
    const DML_TENSOR_DESC* OutputIndicesTensor;          /* optional */
    UINT DimensionCount;
    const UINT* Strides;
    const UINT* WindowSize;
    const UINT* StartPadding;
    const UINT* EndPadding;
};

/* scatters values back to the positions recorded by max pooling */
struct DML_MAX_UNPOOLING_OPERATOR_DESC
{
    const DML_TENSOR_DESC* InputTensor;
    const DML_TENSOR_DESC* IndicesTensor;
    const DML_TENSOR_DESC* OutputTensor;
};

/* fills a matrix with Value on the diagonal at Offset, zero elsewhere */
struct DML_DIAGONAL_MATRIX_OPERATOR_DESC
{
    const DML_TENSOR_DESC* OutputTensor;
    INT Offset;
    FLOAT Value;
};

/* copies the input, then writes updates at the indexed positions along Axis */
struct DML_SCATTER_OPERATOR_DESC
{
    const DML_TENSOR_DESC* InputTensor;
    const DML_TENSOR_DESC* IndicesTensor;
    const DML_TENSOR_DESC* UpdatesTensor;
    const DML_TENSOR_DESC* OutputTensor;
    UINT Axis;
};

/* the same structure under its newer name */
typedef DML_SCATTER_OPERATOR_DESC DML_SCATTER_ELEMENTS_OPERATOR_DESC;

/* expands indices into one-hot vectors along Axis */
struct DML_ONE_HOT_OPERATOR_DESC
{
    const DML_TENSOR_DESC* IndicesTensor;
    const DML_TENSOR_DESC* ValuesTensor;
    const DML_TENSOR_DESC* OutputTensor;
    UINT Axis;
};

/* rescales each dimension by a floating-point factor */
struct DML_RESAMPLE_OPERATOR_DESC
{
    const DML_TENSOR_DESC* InputTensor;
    const DML_TENSOR_DESC* OutputTensor;
    DML_INTERPOLATION_MODE InterpolationMode;
    UINT ScaleCount;
    const FLOAT* Scales;                                 /* ScaleCount entries */
};

#endif /* DML_TARGET_VERSION >= 0x2000 */

/* ---- feature level 2.1 --------------------------------------------------------------------- */

#if DML_TARGET_VERSION >= 0x2100

/* y = a << b */
struct DML_ELEMENT_WISE_BIT_SHIFT_LEFT_OPERATOR_DESC
{
    const DML_TENSOR_DESC* ATensor;
    const DML_TENSOR_DESC* BTensor;
    const DML_TENSOR_DESC* OutputTensor;
};

/* y = a >> b */
struct DML_ELEMENT_WISE_BIT_SHIFT_RIGHT_OPERATOR_DESC
{
    const DML_TENSOR_DESC* ATensor;
    const DML_TENSOR_DESC* BTensor;
    const DML_TENSOR_DESC* OutputTensor;
};

/* y = round(x) with the given rounding mode */
struct DML_ELEMENT_WISE_ROUND_OPERATOR_DESC
{
    const DML_TENSOR_DESC* InputTensor;
    const DML_TENSOR_DESC* OutputTensor;
    DML_ROUNDING_MODE RoundingMode;
};

/* y = isinf(x), restricted by sign as requested */
struct DML_ELEMENT_WISE_IS_INFINITY_OPERATOR_DESC
{
    const DML_TENSOR_DESC* InputTensor;
    const DML_TENSOR_DESC* OutputTensor;
    DML_IS_INFINITY_MODE InfinityMode;
};

/* y = a - trunc(a / b) * b (C fmod) */
struct DML_ELEMENT_WISE_MODULUS_TRUNCATE_OPERATOR_DESC
{
    const DML_TENSOR_DESC* ATensor;
    const DML_TENSOR_DESC* BTensor;
    const DML_TENSOR_DESC* OutputTensor;
};

/* y = a - floor(a / b) * b (Python %) */
struct DML_ELEMENT_WISE_MODULUS_FLOOR_OPERATOR_DESC
{
    const DML_TENSOR_DESC* ATensor;
    const DML_TENSOR_DESC* BTensor;
    const DML_TENSOR_DESC* OutputTensor;
};

/* every element = Value */
struct DML_FILL_VALUE_CONSTANT_OPERATOR_DESC
{
    const DML_TENSOR_DESC* OutputTensor;
    DML_TENSOR_DATA_TYPE ValueDataType;
    DML_SCALAR_UNION Value;
};

/* element i = ValueStart + i * ValueDelta */
struct DML_FILL_VALUE_SEQUENCE_OPERATOR_DESC
{
    const DML_TENSOR_DESC* OutputTensor;
    DML_TENSOR_DATA_TYPE ValueDataType;
    DML_SCALAR_UNION ValueStart;
    DML_SCALAR_UNION ValueDelta;
};

/* running sum along Axis */
struct DML_CUMULATIVE_SUMMATION_OPERATOR_DESC
{
    const DML_TENSOR_DESC* InputTensor;
    const DML_TENSOR_DESC* OutputTensor;
    UINT Axis;
    DML_AXIS_DIRECTION AxisDirection;
    BOOL HasExclusiveSum;
};

/* reverses the first sequenceLength elements of each sequence along Axis */
struct DML_REVERSE_SUBSEQUENCES_OPERATOR_DESC
{
    const DML_TENSOR_DESC* InputTensor;
    const DML_TENSOR_DESC* SequenceLengthsTensor;
    const DML_TENSOR_DESC* OutputTensor;
    UINT Axis;
};

/* y[..i..] = x[..indices[..i..]..] along Axis */
struct DML_GATHER_ELEMENTS_OPERATOR_DESC
{
    const DML_TENSOR_DESC* InputTensor;
    const DML_TENSOR_DESC* IndicesTensor;
    const DML_TENSOR_DESC* OutputTensor;
    UINT Axis;
};

/* gathers slices addressed by index tuples */
struct DML_GATHER_ND_OPERATOR_DESC
{
    const DML_TENSOR_DESC* InputTensor;
    const DML_TENSOR_DESC* IndicesTensor;
    const DML_TENSOR_DESC* OutputTensor;
    UINT InputDimensionCount;
    UINT IndicesDimensionCount;
};

/* writes update slices at positions addressed by index tuples */
struct DML_SCATTER_ND_OPERATOR_DESC
{
    const DML_TENSOR_DESC* InputTensor;
    const DML_TENSOR_DESC* IndicesTensor;
    const DML_TENSOR_DESC* UpdatesTensor;
    const DML_TENSOR_DESC* OutputTensor;
    UINT InputDimensionCount;
    UINT IndicesDimensionCount;
};

/* max pooling with dilations and optional argmax indices */
struct DML_MAX_POOLING2_OPERATOR_DESC
{
    const DML_TENSOR_DESC* InputTensor;
    const DML_TENSOR_DESC* OutputTensor;
    const DML_TENSOR_DESC* OutputIndicesTensor;          /* optional */
    UINT DimensionCount;
    const UINT* Strides;
    const UINT* WindowSize;
    const UINT* StartPadding;
    const UINT* EndPadding;
    const UINT* Dilations;
};

/* extracts a window; negative strides walk backwards */
struct DML_SLICE1_OPERATOR_DESC
{
    const DML_TENSOR_DESC* InputTensor;
    const DML_TENSOR_DESC* OutputTensor;
    UINT DimensionCount;
    const UINT* InputWindowOffsets;
    const UINT* InputWindowSizes;
    const INT* InputWindowStrides;
};

/* the K largest or smallest values along Axis and their indices */
struct DML_TOP_K1_OPERATOR_DESC
{
    const DML_TENSOR_DESC* InputTensor;
    const DML_TENSOR_DESC* OutputValueTensor;
    const DML_TENSOR_DESC* OutputIndexTensor;
    UINT Axis;
    UINT K;
    DML_AXIS_DIRECTION AxisDirection;
};

/* depth-to-space with a choice of element order */
struct DML_DEPTH_TO_SPACE1_OPERATOR_DESC
{
    const DML_TENSOR_DESC* InputTensor;
    const DML_TENSOR_DESC* OutputTensor;
    UINT BlockSize;
    DML_DEPTH_SPACE_ORDER Order;
};

/* space-to-depth with a choice of element order */
struct DML_SPACE_TO_DEPTH1_OPERATOR_DESC
{
    const DML_TENSOR_DESC* InputTensor;
    const DML_TENSOR_DESC* OutputTensor;
    UINT BlockSize;
    DML_DEPTH_SPACE_ORDER Order;
};

/* mean-variance normalization over an explicit set of axes */
struct DML_MEAN_VARIANCE_NORMALIZATION1_OPERATOR_DESC
{
    const DML_TENSOR_DESC* InputTensor;
    const DML_TENSOR_DESC* ScaleTensor;                  /* optional */
    const DML_TENSOR_DESC* BiasTensor;                   /* optional */
    const DML_TENSOR_DESC* OutputTensor;
    UINT AxisCount;
    const UINT* Axes;                                    /* AxisCount entries */
    BOOL NormalizeVariance;
    FLOAT Epsilon;
    const DML_OPERATOR_DESC* FusedActivation;            /* optional fused activation */
};

/* resampling with per-dimension pixel offsets */
struct DML_RESAMPLE1_OPERATOR_DESC
{
    const DML_TENSOR_DESC* InputTensor;
    const DML_TENSOR_DESC* OutputTensor;
    DML_INTERPOLATION_MODE InterpolationMode;
    UINT DimensionCount;
    const FLOAT* Scales;
    const FLOAT* InputPixelOffsets;
    const FLOAT* OutputPixelOffsets;
};

/* y = (A - aZeroPoint) x (B - bZeroPoint), in 32-bit integers */
struct DML_MATRIX_MULTIPLY_INTEGER_OPERATOR_DESC
{
    const DML_TENSOR_DESC* ATensor;
    const DML_TENSOR_DESC* AZeroPointTensor;             /* optional */
    const DML_TENSOR_DESC* BTensor;
    const DML_TENSOR_DESC* BZeroPointTensor;             /* optional */
    const DML_TENSOR_DESC* OutputTensor;
};

/* quantized A x B requantized to the output scale and zero point */
struct DML_QUANTIZED_LINEAR_MATRIX_MULTIPLY_OPERATOR_DESC
{
    const DML_TENSOR_DESC* ATensor;
    const DML_TENSOR_DESC* AScaleTensor;
    const DML_TENSOR_DESC* AZeroPointTensor;             /* optional */
    const DML_TENSOR_DESC* BTensor;
    const DML_TENSOR_DESC* BScaleTensor;
    const DML_TENSOR_DESC* BZeroPointTensor;             /* optional */
    const DML_TENSOR_DESC* OutputScaleTensor;
    const DML_TENSOR_DESC* OutputZeroPointTensor;        /* optional */
    const DML_TENSOR_DESC* OutputTensor;
};

/* integer convolution with zero points, 32-bit integer output */
struct DML_CONVOLUTION_INTEGER_OPERATOR_DESC
{
    const DML_TENSOR_DESC* InputTensor;
    const DML_TENSOR_DESC* InputZeroPointTensor;         /* optional */
    const DML_TENSOR_DESC* FilterTensor;
    const DML_TENSOR_DESC* FilterZeroPointTensor;        /* optional */
    const DML_TENSOR_DESC* OutputTensor;
    UINT DimensionCount;
    const UINT* Strides;
    const UINT* Dilations;
    const UINT* StartPadding;
    const UINT* EndPadding;
    UINT GroupCount;
};

/* quantized convolution requantized to the output scale and zero point */
struct DML_QUANTIZED_LINEAR_CONVOLUTION_OPERATOR_DESC
{
    const DML_TENSOR_DESC* InputTensor;
    const DML_TENSOR_DESC* InputScaleTensor;
    const DML_TENSOR_DESC* InputZeroPointTensor;         /* optional */
    const DML_TENSOR_DESC* FilterTensor;
    const DML_TENSOR_DESC* FilterScaleTensor;
    const DML_TENSOR_DESC* FilterZeroPointTensor;        /* optional */
    const DML_TENSOR_DESC* BiasTensor;                   /* optional */
    const DML_TENSOR_DESC* OutputScaleTensor;
    const DML_TENSOR_DESC* OutputZeroPointTensor;        /* optional */
    const DML_TENSOR_DESC* OutputTensor;
    UINT DimensionCount;
    const UINT* Strides;
    const UINT* Dilations;
    const UINT* StartPadding;
    const UINT* EndPadding;
    UINT GroupCount;
};

#endif /* DML_TARGET_VERSION >= 0x2100 */

/* ---- feature level 3.0 --------------------------------------------------------------------- */

#if DML_TARGET_VERSION >= 0x3000

/* y = a & b */
struct DML_ELEMENT_WISE_BIT_AND_OPERATOR_DESC
{
    const DML_TENSOR_DESC* ATensor;
    const DML_TENSOR_DESC* BTensor;
    const DML_TENSOR_DESC* OutputTensor;
};

/* y = a | b */
struct DML_ELEMENT_WISE_BIT_OR_OPERATOR_DESC
{
    const DML_TENSOR_DESC* ATensor;
    const DML_TENSOR_DESC* BTensor;
    const DML_TENSOR_DESC* OutputTensor;
};

/* y = a ^ b */
struct DML_ELEMENT_WISE_BIT_XOR_OPERATOR_DESC
{
    const DML_TENSOR_DESC* ATensor;
    const DML_TENSOR_DESC* BTensor;
    const DML_TENSOR_DESC* OutputTensor;
};

/* y = ~x */
struct DML_ELEMENT_WISE_BIT_NOT_OPERATOR_DESC
{
    const DML_TENSOR_DESC* InputTensor;
    const DML_TENSOR_DESC* OutputTensor;
};

/* y = number of set bits of x */
struct DML_ELEMENT_WISE_BIT_COUNT_OPERATOR_DESC
{
    const DML_TENSOR_DESC* InputTensor;
    const DML_TENSOR_DESC* OutputTensor;
};

/* y = (a >= b) */
struct DML_ELEMENT_WISE_LOGICAL_GREATER_THAN_OR_EQUAL_OPERATOR_DESC
{
    const DML_TENSOR_DESC* ATensor;
    const DML_TENSOR_DESC* BTensor;
    const DML_TENSOR_DESC* OutputTensor;
};

/* y = (a <= b) */
struct DML_ELEMENT_WISE_LOGICAL_LESS_THAN_OR_EQUAL_OPERATOR_DESC
{
    const DML_TENSOR_DESC* ATensor;
    const DML_TENSOR_DESC* BTensor;
    const DML_TENSOR_DESC* OutputTensor;
};

/* y = max(0, x) + min(0, Alpha * (e^(x / Alpha) - 1)) */
struct DML_ACTIVATION_CELU_OPERATOR_DESC
{
    const DML_TENSOR_DESC* InputTensor;
    const DML_TENSOR_DESC* OutputTensor;
    FLOAT Alpha;
};

/* gradient of ReLU: dx = (x > 0) ? dy : 0 */
struct DML_ACTIVATION_RELU_GRAD_OPERATOR_DESC
{
    const DML_TENSOR_DESC* InputTensor;
    const DML_TENSOR_DESC* InputGradientTensor;
    const DML_TENSOR_DESC* OutputGradientTensor;
};

/* gradient of average pooling */
struct DML_AVERAGE_POOLING_GRAD_OPERATOR_DESC
{
    const DML_TENSOR_DESC* InputGradientTensor;
    const DML_TENSOR_DESC* OutputGradientTensor;
    UINT DimensionCount;
    const UINT* Strides;
    const UINT* WindowSize;
    const UINT* StartPadding;
    const UINT* EndPadding;
    BOOL IncludePadding;
};

/* gradient of max pooling */
struct DML_MAX_POOLING_GRAD_OPERATOR_DESC
{
    const DML_TENSOR_DESC* InputTensor;
    const DML_TENSOR_DESC* InputGradientTensor;
    const DML_TENSOR_DESC* OutputGradientTensor;
    UINT DimensionCount;
    const UINT* Strides;
    const UINT* WindowSize;
    const UINT* StartPadding;
    const UINT* EndPadding;
    const UINT* Dilations;
};

/* fills the output with random bits and advances the generator state */
struct DML_RANDOM_GENERATOR_OPERATOR_DESC
{
    const DML_TENSOR_DESC* InputStateTensor;
    const DML_TENSOR_DESC* OutputTensor;
    const DML_TENSOR_DESC* OutputStateTensor;            /* optional */
    DML_RANDOM_GENERATOR_TYPE Type;
};

/* count and coordinates of the nonzero elements */
struct DML_NONZERO_COORDINATES_OPERATOR_DESC
{
    const DML_TENSOR_DESC* InputTensor;
    const DML_TENSOR_DESC* OutputCountTensor;
    const DML_TENSOR_DESC* OutputCoordinatesTensor;
};

/* gradient of resampling */
struct DML_RESAMPLE_GRAD_OPERATOR_DESC
{
    const DML_TENSOR_DESC* InputGradientTensor;
    const DML_TENSOR_DESC* OutputGradientTensor;
    DML_INTERPOLATION_MODE InterpolationMode;
    UINT DimensionCount;
    const FLOAT* Scales;
    const FLOAT* InputPixelOffsets;
    const FLOAT* OutputPixelOffsets;
};

/* gradient of slicing: scatters the window back into zeros */
struct DML_SLICE_GRAD_OPERATOR_DESC
{
    const DML_TENSOR_DESC* InputGradientTensor;
    const DML_TENSOR_DESC* OutputGradientTensor;
    UINT DimensionCount;
    const UINT* InputWindowOffsets;
    const UINT* InputWindowSizes;
    const INT* InputWindowStrides;
};

/* one Adam update of parameters and their moments */
struct DML_ADAM_OPTIMIZER_OPERATOR_DESC
{
    const DML_TENSOR_DESC* InputParametersTensor;
    const DML_TENSOR_DESC* InputFirstMomentTensor;
    const DML_TENSOR_DESC* InputSecondMomentTensor;
    const DML_TENSOR_DESC* GradientTensor;
    const DML_TENSOR_DESC* TrainingStepTensor;
    const DML_TENSOR_DESC* OutputParametersTensor;
    const DML_TENSOR_DESC* OutputFirstMomentTensor;
    const DML_TENSOR_DESC* OutputSecondMomentTensor;
    FLOAT LearningRate;
    FLOAT Beta1;
    FLOAT Beta2;
    FLOAT Epsilon;
};

/* index of the minimum over the given axes */
struct DML_ARGMIN_OPERATOR_DESC
{
    const DML_TENSOR_DESC* InputTensor;
    const DML_TENSOR_DESC* OutputTensor;
    UINT AxisCount;
    const UINT* Axes;                                    /* AxisCount entries */
    DML_AXIS_DIRECTION AxisDirection;
};

/* index of the maximum over the given axes */
struct DML_ARGMAX_OPERATOR_DESC
{
    const DML_TENSOR_DESC* InputTensor;
    const DML_TENSOR_DESC* OutputTensor;
    UINT AxisCount;
    const UINT* Axes;                                    /* AxisCount entries */
    DML_AXIS_DIRECTION AxisDirection;
};

/* bilinear or nearest sampling of regions of interest, reduced per output cell */
struct DML_ROI_ALIGN_OPERATOR_DESC
{
    const DML_TENSOR_DESC* InputTensor;
    const DML_TENSOR_DESC* ROITensor;
    const DML_TENSOR_DESC* BatchIndicesTensor;
    const DML_TENSOR_DESC* OutputTensor;
    DML_REDUCE_FUNCTION ReductionFunction;
    DML_INTERPOLATION_MODE InterpolationMode;
    FLOAT SpatialScaleX;
    FLOAT SpatialScaleY;
    FLOAT OutOfBoundsInputValue;
    UINT MinimumSamplesPerOutput;
    UINT MaximumSamplesPerOutput;
};

/* gather by index tuples with leading batch dimensions */
struct DML_GATHER_ND1_OPERATOR_DESC
{
    const DML_TENSOR_DESC* InputTensor;
    const DML_TENSOR_DESC* IndicesTensor;
    const DML_TENSOR_DESC* OutputTensor;
    UINT InputDimensionCount;
    UINT IndicesDimensionCount;
    UINT BatchDimensionCount;
};

#endif /* DML_TARGET_VERSION >= 0x3000 */

/* ---- feature level 3.1 --------------------------------------------------------------------- */

#if DML_TARGET_VERSION >= 0x3100

/* y = atan2(a, b) */
struct DML_ELEMENT_WISE_ATAN_YX_OPERATOR_DESC
{
    const DML_TENSOR_DESC* ATensor;
    const DML_TENSOR_DESC* BTensor;
    const DML_TENSOR_DESC* OutputTensor;
};

/* gradient of clip: dx = (Min <= x <= Max) ? dy : 0 */
struct DML_ELEMENT_WISE_CLIP_GRAD_OPERATOR_DESC
{
    const DML_TENSOR_DESC* InputTensor;
    const DML_TENSOR_DESC* InputGradientTensor;
    const DML_TENSOR_DESC* OutputGradientTensor;
    FLOAT Min;
    FLOAT Max;
};

/* y = (a - b)^2 */
struct DML_ELEMENT_WISE_DIFFERENCE_SQUARE_OPERATOR_DESC
{
    const DML_TENSOR_DESC* ATensor;
    const DML_TENSOR_DESC* BTensor;
    const DML_TENSOR_DESC* OutputTensor;
};

/* gradient of local response normalization */
struct DML_LOCAL_RESPONSE_NORMALIZATION_GRAD_OPERATOR_DESC
{
    const DML_TENSOR_DESC* InputTensor;
    const DML_TENSOR_DESC* InputGradientTensor;
    const DML_TENSOR_DESC* OutputGradientTensor;
    BOOL CrossChannel;
    UINT LocalSize;
    FLOAT Alpha;
    FLOAT Beta;
    FLOAT Bias;
};

/* running product along Axis */
struct DML_CUMULATIVE_PRODUCT_OPERATOR_DESC
{
    const DML_TENSOR_DESC* InputTensor;
    const DML_TENSOR_DESC* OutputTensor;
    UINT Axis;
    DML_AXIS_DIRECTION AxisDirection;
    BOOL HasExclusiveProduct;
};

/* gradients of batch normalization for input, scale and bias */
struct DML_BATCH_NORMALIZATION_GRAD_OPERATOR_DESC
{
    const DML_TENSOR_DESC* InputTensor;
    const DML_TENSOR_DESC* InputGradientTensor;
    const DML_TENSOR_DESC* MeanTensor;
    const DML_TENSOR_DESC* VarianceTensor;
    const DML_TENSOR_DESC* ScaleTensor;
    const DML_TENSOR_DESC* OutputGradientTensor;
    const DML_TENSOR_DESC* OutputScaleGradientTensor;
    const DML_TENSOR_DESC* OutputBiasGradientTensor;
    FLOAT Epsilon;
};

#endif /* DML_TARGET_VERSION >= 0x3100 */

/* ---- feature level 4.0 --------------------------------------------------------------------- */

#if DML_TARGET_VERSION >= 0x4000

/* quantized a + b requantized to the output scale and zero point */
struct DML_ELEMENT_WISE_QUANTIZED_LINEAR_ADD_OPERATOR_DESC
{
    const DML_TENSOR_DESC* ATensor;
    const DML_TENSOR_DESC* AScaleTensor;
    const DML_TENSOR_DESC* AZeroPointTensor;             /* optional */
    const DML_TENSOR_DESC* BTensor;
    const DML_TENSOR_DESC* BScaleTensor;
    const DML_TENSOR_DESC* BZeroPointTensor;             /* optional */
    const DML_TENSOR_DESC* OutputScaleTensor;            /* an input */
    const DML_TENSOR_DESC* OutputZeroPointTensor;        /* optional, an input */
    const DML_TENSOR_DESC* OutputTensor;
};

/* quantizes to uint8/int8, computing scale and zero point from the data */
struct DML_DYNAMIC_QUANTIZE_LINEAR_OPERATOR_DESC
{
    const DML_TENSOR_DESC* InputTensor;
    const DML_TENSOR_DESC* OutputTensor;
    const DML_TENSOR_DESC* OutputScaleTensor;            /* an output */
    const DML_TENSOR_DESC* OutputZeroPointTensor;        /* an output */
};

/* ROI align with pixel offsets and corner alignment */
struct DML_ROI_ALIGN1_OPERATOR_DESC
{
    const DML_TENSOR_DESC* InputTensor;
    const DML_TENSOR_DESC* ROITensor;
    const DML_TENSOR_DESC* BatchIndicesTensor;
    const DML_TENSOR_DESC* OutputTensor;
    DML_REDUCE_FUNCTION ReductionFunction;
    DML_INTERPOLATION_MODE InterpolationMode;
    FLOAT SpatialScaleX;
    FLOAT SpatialScaleY;
    FLOAT InputPixelOffset;
    FLOAT OutputPixelOffset;
    FLOAT OutOfBoundsInputValue;
    UINT MinimumSamplesPerOutput;
    UINT MaximumSamplesPerOutput;
    BOOL AlignRegionsToCorners;
};

#endif /* DML_TARGET_VERSION >= 0x4000 */

/* ---- feature level 4.1 --------------------------------------------------------------------- */

#if DML_TARGET_VERSION >= 0x4100

/* gradients of ROI align for the input and the regions */
struct DML_ROI_ALIGN_GRAD_OPERATOR_DESC
{
    const DML_TENSOR_DESC* InputTensor;                  /* optional */
    const DML_TENSOR_DESC* InputGradientTensor;
    const DML_TENSOR_DESC* ROITensor;
    const DML_TENSOR_DESC* BatchIndicesTensor;
    const DML_TENSOR_DESC* OutputGradientTensor;         /* optional */
    const DML_TENSOR_DESC* OutputROIGradientTensor;      /* optional */
    DML_REDUCE_FUNCTION ReductionFunction;
    DML_INTERPOLATION_MODE InterpolationMode;
    FLOAT SpatialScaleX;
    FLOAT SpatialScaleY;
    FLOAT InputPixelOffset;
    FLOAT OutputPixelOffset;
    UINT MinimumSamplesPerOutput;
    UINT MaximumSamplesPerOutput;
    BOOL AlignRegionsToCorners;
};

/* batch normalization that computes the batch mean and variance */
struct DML_BATCH_NORMALIZATION_TRAINING_OPERATOR_DESC
{
    const DML_TENSOR_DESC* InputTensor;
    const DML_TENSOR_DESC* ScaleTensor;
    const DML_TENSOR_DESC* BiasTensor;
    const DML_TENSOR_DESC* FusedAddTensor;               /* optional */
    const DML_TENSOR_DESC* OutputTensor;
    const DML_TENSOR_DESC* OutputMeanTensor;
    const DML_TENSOR_DESC* OutputVarianceTensor;
    FLOAT Epsilon;
    const DML_OPERATOR_DESC* FusedActivation;            /* optional fused activation */
};

/* gradients of training-mode batch normalization */
struct DML_BATCH_NORMALIZATION_TRAINING_GRAD_OPERATOR_DESC
{
    const DML_TENSOR_DESC* InputTensor;
    const DML_TENSOR_DESC* InputGradientTensor;
    const DML_TENSOR_DESC* MeanTensor;
    const DML_TENSOR_DESC* VarianceTensor;
    const DML_TENSOR_DESC* ScaleTensor;
    const DML_TENSOR_DESC* OutputGradientTensor;
    const DML_TENSOR_DESC* OutputScaleGradientTensor;
    const DML_TENSOR_DESC* OutputBiasGradientTensor;
    FLOAT Epsilon;
};

#endif /* DML_TARGET_VERSION >= 0x4100 */

/* ---- feature level 5.0 --------------------------------------------------------------------- */

#if DML_TARGET_VERSION >= 0x5000

/* y = clamp(x, Min, Max) with bounds of the tensor type */
struct DML_ELEMENT_WISE_CLIP1_OPERATOR_DESC
{
    const DML_TENSOR_DESC* InputTensor;
    const DML_TENSOR_DESC* OutputTensor;
    const DML_SCALE_BIAS* ScaleBias;                     /* optional */
    DML_TENSOR_DATA_TYPE MinMaxDataType;
    DML_SCALAR_UNION Min;
    DML_SCALAR_UNION Max;
};

/* gradient of clip with bounds of the tensor type */
struct DML_ELEMENT_WISE_CLIP_GRAD1_OPERATOR_DESC
{
    const DML_TENSOR_DESC* InputTensor;
    const DML_TENSOR_DESC* InputGradientTensor;
    const DML_TENSOR_DESC* OutputGradientTensor;
    DML_TENSOR_DATA_TYPE MinMaxDataType;
    DML_SCALAR_UNION Min;
    DML_SCALAR_UNION Max;
};

/* padding with a pad value of the tensor type */
struct DML_PADDING1_OPERATOR_DESC
{
    const DML_TENSOR_DESC* InputTensor;
    const DML_TENSOR_DESC* OutputTensor;
    DML_PADDING_MODE PaddingMode;
    DML_TENSOR_DATA_TYPE PaddingValueDataType;
    DML_SCALAR_UNION PaddingValue;
    UINT DimensionCount;
    const UINT* StartPadding;
    const UINT* EndPadding;
};

/* y = -x */
struct DML_ELEMENT_WISE_NEGATE_OPERATOR_DESC
{
    const DML_TENSOR_DESC* InputTensor;
    const DML_TENSOR_DESC* OutputTensor;
};

#endif /* DML_TARGET_VERSION >= 0x5000 */

/* ---- feature level 5.1 --------------------------------------------------------------------- */

#if DML_TARGET_VERSION >= 0x5100

/* y = 0.5 * x * (1 + erf(x / sqrt(2))) */
struct DML_ACTIVATION_GELU_OPERATOR_DESC
{
    const DML_TENSOR_DESC* InputTensor;
    const DML_TENSOR_DESC* OutputTensor;
};

/* softmax over the given axes */
struct DML_ACTIVATION_SOFTMAX1_OPERATOR_DESC
{
    const DML_TENSOR_DESC* InputTensor;
    const DML_TENSOR_DESC* OutputTensor;
    UINT AxisCount;
    const UINT* Axes;                                    /* AxisCount entries */
};

/* log-softmax over the given axes */
struct DML_ACTIVATION_LOG_SOFTMAX1_OPERATOR_DESC
{
    const DML_TENSOR_DESC* InputTensor;
    const DML_TENSOR_DESC* OutputTensor;
    UINT AxisCount;
    const UINT* Axes;                                    /* AxisCount entries */
};

/* hardmax over the given axes */
struct DML_ACTIVATION_HARDMAX1_OPERATOR_DESC
{
    const DML_TENSOR_DESC* InputTensor;
    const DML_TENSOR_DESC* OutputTensor;
    UINT AxisCount;
    const UINT* Axes;                                    /* AxisCount entries */
};

/* resampling with a rounding direction for nearest-neighbour */
struct DML_RESAMPLE2_OPERATOR_DESC
{
    const DML_TENSOR_DESC* InputTensor;
    const DML_TENSOR_DESC* OutputTensor;
    DML_INTERPOLATION_MODE InterpolationMode;
    DML_AXIS_DIRECTION RoundingDirection;
    UINT DimensionCount;
    const FLOAT* Scales;
    const FLOAT* InputPixelOffsets;
    const FLOAT* OutputPixelOffsets;
};

/* gradient of RESAMPLE2 */
struct DML_RESAMPLE_GRAD1_OPERATOR_DESC
{
    const DML_TENSOR_DESC* InputGradientTensor;
    const DML_TENSOR_DESC* OutputGradientTensor;
    DML_INTERPOLATION_MODE InterpolationMode;
    DML_AXIS_DIRECTION RoundingDirection;
    UINT DimensionCount;
    const FLOAT* Scales;
    const FLOAT* InputPixelOffsets;
    const FLOAT* OutputPixelOffsets;
};

/* writes Value on diagonals DiagonalFillBegin..DiagonalFillEnd, copying the input elsewhere */
struct DML_DIAGONAL_MATRIX1_OPERATOR_DESC
{
    const DML_TENSOR_DESC* InputTensor;                  /* optional */
    const DML_TENSOR_DESC* OutputTensor;
    DML_TENSOR_DATA_TYPE ValueDataType;
    DML_SCALAR_UNION Value;
    INT DiagonalFillBegin;
    INT DiagonalFillEnd;
};

#endif /* DML_TARGET_VERSION >= 0x5100 */

/* ---- feature level 6.1 --------------------------------------------------------------------- */

#if DML_TARGET_VERSION >= 0x6100

/* softmax(Q x K^T * Scale + bias, masked) x V over HeadCount heads */
struct DML_MULTIHEAD_ATTENTION_OPERATOR_DESC
{
    const DML_TENSOR_DESC* QueryTensor;                  /* optional */
    const DML_TENSOR_DESC* KeyTensor;                    /* optional */
    const DML_TENSOR_DESC* ValueTensor;                  /* optional */
    const DML_TENSOR_DESC* StackedQueryKeyTensor;        /* optional */
    const DML_TENSOR_DESC* StackedKeyValueTensor;        /* optional */
    const DML_TENSOR_DESC* StackedQueryKeyValueTensor;   /* optional */
    const DML_TENSOR_DESC* BiasTensor;                   /* optional */
    const DML_TENSOR_DESC* MaskTensor;                   /* optional */
    const DML_TENSOR_DESC* RelativePositionBiasTensor;   /* optional */
    const DML_TENSOR_DESC* PastKeyTensor;                /* optional */
    const DML_TENSOR_DESC* PastValueTensor;              /* optional */
    const DML_TENSOR_DESC* OutputTensor;
    const DML_TENSOR_DESC* OutputPresentKeyTensor;       /* optional */
    const DML_TENSOR_DESC* OutputPresentValueTensor;     /* optional */
    FLOAT Scale;
    FLOAT MaskFilterValue;
    UINT HeadCount;
    DML_MULTIHEAD_ATTENTION_MASK_TYPE MaskType;
};

#endif /* DML_TARGET_VERSION >= 0x6100 */

/* ---- feature level 6.2 --------------------------------------------------------------------- */

#if DML_TARGET_VERSION >= 0x6200

/* Lp pooling with dilations */
struct DML_LP_POOLING1_OPERATOR_DESC
{
    const DML_TENSOR_DESC* InputTensor;
    const DML_TENSOR_DESC* OutputTensor;
    UINT DimensionCount;
    const UINT* Strides;
    const UINT* WindowSize;
    const UINT* StartPadding;
    const UINT* EndPadding;
    const UINT* Dilations;
    UINT P;
};

/* average pooling with dilations */
struct DML_AVERAGE_POOLING1_OPERATOR_DESC
{
    const DML_TENSOR_DESC* InputTensor;
    const DML_TENSOR_DESC* OutputTensor;
    UINT DimensionCount;
    const UINT* Strides;
    const UINT* WindowSize;
    const UINT* StartPadding;
    const UINT* EndPadding;
    const UINT* Dilations;
    BOOL IncludePadding;
};

/* y = x * sigmoid(SigmoidInputScale * x) */
struct DML_ACTIVATION_SWISH_OPERATOR_DESC
{
    const DML_TENSOR_DESC* InputTensor;
    const DML_TENSOR_DESC* OutputTensor;
    FLOAT SigmoidInputScale;
};

/* y = x * clamp(Alpha * x + Beta, 0, 1) */
struct DML_ACTIVATION_HARD_SWISH_OPERATOR_DESC
{
    const DML_TENSOR_DESC* InputTensor;
    const DML_TENSOR_DESC* OutputTensor;
    FLOAT Alpha;
    FLOAT Beta;
};

/* average pooling of quantized data, requantized to the output */
struct DML_QUANTIZED_LINEAR_AVERAGE_POOLING_OPERATOR_DESC
{
    const DML_TENSOR_DESC* InputTensor;
    const DML_TENSOR_DESC* InputScaleTensor;
    const DML_TENSOR_DESC* InputZeroPointTensor;         /* optional */
    const DML_TENSOR_DESC* OutputScaleTensor;
    const DML_TENSOR_DESC* OutputZeroPointTensor;        /* optional */
    const DML_TENSOR_DESC* OutputTensor;
    UINT DimensionCount;
    const UINT* Strides;
    const UINT* WindowSize;
    const UINT* StartPadding;
    const UINT* EndPadding;
    const UINT* Dilations;
    BOOL IncludePadding;
};

/* dequantized A x dequantized B (+ bias), as floating point */
struct DML_MATRIX_MULTIPLY_INTEGER_TO_FLOAT_OPERATOR_DESC
{
    const DML_TENSOR_DESC* ATensor;
    const DML_TENSOR_DESC* AScaleTensor;
    const DML_TENSOR_DESC* AZeroPointTensor;             /* optional */
    const DML_TENSOR_DESC* BTensor;
    const DML_TENSOR_DESC* BScaleTensor;
    const DML_TENSOR_DESC* BZeroPointTensor;             /* optional */
    const DML_TENSOR_DESC* BiasTensor;                   /* optional */
    const DML_TENSOR_DESC* OutputTensor;
};

#endif /* DML_TARGET_VERSION >= 0x6200 */

/* ---- feature level 6.3 --------------------------------------------------------------------- */

#if DML_TARGET_VERSION >= 0x6300

/* normalization over given axes, mean and variance each optional */
struct DML_MEAN_VARIANCE_NORMALIZATION2_OPERATOR_DESC
{
    const DML_TENSOR_DESC* InputTensor;
    const DML_TENSOR_DESC* ScaleTensor;                  /* optional */
    const DML_TENSOR_DESC* BiasTensor;                   /* optional */
    const DML_TENSOR_DESC* OutputTensor;
    UINT AxisCount;
    const UINT* Axes;                                    /* AxisCount entries */
    BOOL UseMean;
    BOOL UseVariance;
    FLOAT Epsilon;
    const DML_OPERATOR_DESC* FusedActivation;            /* optional fused activation */
};

/* multi-head attention with past sequence lengths and grouped key/value heads */
struct DML_MULTIHEAD_ATTENTION1_OPERATOR_DESC
{
    const DML_TENSOR_DESC* QueryTensor;                  /* optional */
    const DML_TENSOR_DESC* KeyTensor;                    /* optional */
    const DML_TENSOR_DESC* ValueTensor;                  /* optional */
    const DML_TENSOR_DESC* StackedQueryKeyTensor;        /* optional */
    const DML_TENSOR_DESC* StackedKeyValueTensor;        /* optional */
    const DML_TENSOR_DESC* StackedQueryKeyValueTensor;   /* optional */
    const DML_TENSOR_DESC* BiasTensor;                   /* optional */
    const DML_TENSOR_DESC* MaskTensor;                   /* optional */
    const DML_TENSOR_DESC* RelativePositionBiasTensor;   /* optional */
    const DML_TENSOR_DESC* PastKeyTensor;                /* optional */
    const DML_TENSOR_DESC* PastValueTensor;              /* optional */
    const DML_TENSOR_DESC* PastSequenceLengthsTensor;    /* optional */
    const DML_TENSOR_DESC* OutputTensor;
    const DML_TENSOR_DESC* OutputPresentKeyTensor;       /* optional */
    const DML_TENSOR_DESC* OutputPresentValueTensor;     /* optional */
    FLOAT Scale;
    FLOAT MaskFilterValue;
    UINT QueryHeadCount;
    UINT KeyValueHeadCount;
    DML_MULTIHEAD_ATTENTION_MASK_TYPE MaskType;
};

/* quantizes with the tensors that QuantizationType names */
struct DML_QUANTIZE_OPERATOR_DESC
{
    const DML_TENSOR_DESC* InputTensor;
    DML_QUANTIZATION_TYPE QuantizationType;
    UINT QuantizationTensorCount;
    const DML_TENSOR_DESC* QuantizationTensors;          /* QuantizationTensorCount entries */
    const DML_TENSOR_DESC* OutputTensor;
};

/* dequantizes with the tensors that QuantizationType names */
struct DML_DEQUANTIZE_OPERATOR_DESC
{
    const DML_TENSOR_DESC* InputTensor;
    DML_QUANTIZATION_TYPE QuantizationType;
    UINT QuantizationTensorCount;
    const DML_TENSOR_DESC* QuantizationTensors;          /* QuantizationTensorCount entries */
    const DML_TENSOR_DESC* OutputTensor;
};

#endif /* DML_TARGET_VERSION >= 0x6300 */

/* ---- feature level 6.4 --------------------------------------------------------------------- */

#if DML_TARGET_VERSION >= 0x6400

/* RESAMPLE2 with optional antialiasing when downscaling */
struct DML_RESAMPLE3_OPERATOR_DESC
{
    const DML_TENSOR_DESC* InputTensor;
    const DML_TENSOR_DESC* OutputTensor;
    DML_INTERPOLATION_MODE InterpolationMode;
    DML_AXIS_DIRECTION RoundingDirection;
    UINT DimensionCount;
    const FLOAT* Scales;
    const FLOAT* InputPixelOffsets;
    const FLOAT* OutputPixelOffsets;
    BOOL Antialiased;
};

/* col2im: sums sliding-window columns back into an image */
struct DML_FOLD_OPERATOR_DESC
{
    const DML_TENSOR_DESC* InputTensor;
    const DML_TENSOR_DESC* OutputTensor;
    UINT DimensionCount;
    const UINT* WindowSizes;
    const UINT* Strides;
    const UINT* Dilations;
    const UINT* StartPadding;
    const UINT* EndPadding;
};

/* im2col: extracts sliding windows into columns */
struct DML_UNFOLD_OPERATOR_DESC
{
    const DML_TENSOR_DESC* InputTensor;
    const DML_TENSOR_DESC* OutputTensor;
    UINT DimensionCount;
    const UINT* WindowSizes;
    const UINT* Strides;
    const UINT* Dilations;
    const UINT* StartPadding;
    const UINT* EndPadding;
};

#endif /* DML_TARGET_VERSION >= 0x6400 */

#endif /* FREEDML_DETAIL_OPERATOR_DESCS_H */
