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

/* y = activation(a + b) */
struct DML_ELEMENT_WISE_ADD1_OPERATOR_DESC
{
    const DML_TENSOR_DESC* ATensor;
    const DML_TENSOR_DESC* BTensor;
    const DML_TENSOR_DESC* OutputTensor;
    const DML_OPERATOR_DESC* FusedActivation;            /* optional fused activation */
};

#endif /* DML_TARGET_VERSION >= 0x2000 */

#endif /* FREEDML_DETAIL_OPERATOR_DESCS_H */
