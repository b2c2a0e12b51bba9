#pragma once
// The values of cuDNN 9's C API that fxscope passes, under cuDNN's own names. cuDNN is loaded
// with dlopen and its headers are no build dependency (no Debian package ships them), so they are
// declared here; where the headers are installed, cudnn_api_values.cpp checks every value against
// them at compile time. Handles and descriptors are opaque pointers, enums plain ints.

#include <cstddef>
#include <cstdint>
#include <vector>

namespace fxscope::gpu::cudnn {

using Status = int;
using Descriptor = void*;

constexpr Status CUDNN_STATUS_SUCCESS = 0;
constexpr Status CUDNN_STATUS_NOT_INITIALIZED = 1001;

// cudnnDataType_t
constexpr int CUDNN_DATA_FLOAT = 0;
constexpr int CUDNN_DATA_HALF = 2;
constexpr int CUDNN_DATA_BFLOAT16 = 9;

// Legacy API: cudnnTensorFormat_t, cudnnConvolutionMode_t, cudnnMathType_t.
constexpr int CUDNN_TENSOR_NCHW = 0;
constexpr int CUDNN_TENSOR_NHWC = 1;
constexpr int CUDNN_CROSS_CORRELATION = 1;
constexpr int CUDNN_TENSOR_OP_MATH = 1;
constexpr int CUDNN_FMA_MATH = 3;

// cudnnPointwiseMode_t
constexpr int CUDNN_POINTWISE_ADD = 0;

// cudnnBackendDescriptorType_t
constexpr int CUDNN_BACKEND_POINTWISE_DESCRIPTOR = 0;
constexpr int CUDNN_BACKEND_CONVOLUTION_DESCRIPTOR = 1;
constexpr int CUDNN_BACKEND_ENGINE_DESCRIPTOR = 2;
constexpr int CUDNN_BACKEND_ENGINECFG_DESCRIPTOR = 3;
constexpr int CUDNN_BACKEND_ENGINEHEUR_DESCRIPTOR = 4;
constexpr int CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR = 5;
constexpr int CUDNN_BACKEND_OPERATION_CONVOLUTION_FORWARD_DESCRIPTOR = 10;
constexpr int CUDNN_BACKEND_OPERATION_CONVOLUTION_BACKWARD_FILTER_DESCRIPTOR = 11;
constexpr int CUDNN_BACKEND_OPERATION_CONVOLUTION_BACKWARD_DATA_DESCRIPTOR = 12;
constexpr int CUDNN_BACKEND_OPERATION_POINTWISE_DESCRIPTOR = 13;
constexpr int CUDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR = 15;
constexpr int CUDNN_BACKEND_VARIANT_PACK_DESCRIPTOR = 16;
constexpr int CUDNN_BACKEND_TENSOR_DESCRIPTOR = 17;

// cudnnBackendAttributeType_t
constexpr int CUDNN_TYPE_HANDLE = 0;
constexpr int CUDNN_TYPE_DATA_TYPE = 1;
constexpr int CUDNN_TYPE_BOOLEAN = 2;
constexpr int CUDNN_TYPE_INT64 = 3;
constexpr int CUDNN_TYPE_FLOAT = 4;
constexpr int CUDNN_TYPE_VOID_PTR = 6;
constexpr int CUDNN_TYPE_CONVOLUTION_MODE = 7;
constexpr int CUDNN_TYPE_HEUR_MODE = 8;
constexpr int CUDNN_TYPE_NUMERICAL_NOTE = 11;
constexpr int CUDNN_TYPE_POINTWISE_MODE = 14;
constexpr int CUDNN_TYPE_BACKEND_DESCRIPTOR = 15;
constexpr int CUDNN_TYPE_BEHAVIOR_NOTE = 19;

// cudnnBackendAttributeName_t
constexpr int CUDNN_ATTR_POINTWISE_MODE = 0;
constexpr int CUDNN_ATTR_POINTWISE_MATH_PREC = 1;
constexpr int CUDNN_ATTR_CONVOLUTION_COMP_TYPE = 100;
constexpr int CUDNN_ATTR_CONVOLUTION_CONV_MODE = 101;
constexpr int CUDNN_ATTR_CONVOLUTION_DILATIONS = 102;
constexpr int CUDNN_ATTR_CONVOLUTION_FILTER_STRIDES = 103;
constexpr int CUDNN_ATTR_CONVOLUTION_POST_PADDINGS = 104;
constexpr int CUDNN_ATTR_CONVOLUTION_PRE_PADDINGS = 105;
constexpr int CUDNN_ATTR_CONVOLUTION_SPATIAL_DIMS = 106;
constexpr int CUDNN_ATTR_ENGINEHEUR_MODE = 200;
constexpr int CUDNN_ATTR_ENGINEHEUR_OPERATION_GRAPH = 201;
constexpr int CUDNN_ATTR_ENGINEHEUR_RESULTS = 202;
constexpr int CUDNN_ATTR_ENGINECFG_ENGINE = 300;
constexpr int CUDNN_ATTR_EXECUTION_PLAN_HANDLE = 400;
constexpr int CUDNN_ATTR_EXECUTION_PLAN_ENGINE_CONFIG = 401;
constexpr int CUDNN_ATTR_EXECUTION_PLAN_WORKSPACE_SIZE = 402;
constexpr int CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_ALPHA = 700;
constexpr int CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_BETA = 701;
constexpr int CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_CONV_DESC = 702;
constexpr int CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_W = 703;
constexpr int CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_X = 704;
constexpr int CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_Y = 705;
constexpr int CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_ALPHA = 706;
constexpr int CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_BETA = 707;
constexpr int CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_CONV_DESC = 708;
constexpr int CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_W = 709;
constexpr int CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_DX = 710;
constexpr int CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_DY = 711;
constexpr int CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_ALPHA = 712;
constexpr int CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_BETA = 713;
constexpr int CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_CONV_DESC = 714;
constexpr int CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_DW = 715;
constexpr int CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_X = 716;
constexpr int CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_DY = 717;
constexpr int CUDNN_ATTR_OPERATION_POINTWISE_PW_DESCRIPTOR = 750;
constexpr int CUDNN_ATTR_OPERATION_POINTWISE_XDESC = 751;
constexpr int CUDNN_ATTR_OPERATION_POINTWISE_BDESC = 752;
constexpr int CUDNN_ATTR_OPERATION_POINTWISE_YDESC = 753;
constexpr int CUDNN_ATTR_OPERATION_POINTWISE_ALPHA1 = 754;
constexpr int CUDNN_ATTR_OPERATION_POINTWISE_ALPHA2 = 755;
constexpr int CUDNN_ATTR_OPERATIONGRAPH_HANDLE = 800;
constexpr int CUDNN_ATTR_OPERATIONGRAPH_OPS = 801;
constexpr int CUDNN_ATTR_TENSOR_BYTE_ALIGNMENT = 900;
constexpr int CUDNN_ATTR_TENSOR_DATA_TYPE = 901;
constexpr int CUDNN_ATTR_TENSOR_DIMENSIONS = 902;
constexpr int CUDNN_ATTR_TENSOR_STRIDES = 903;
constexpr int CUDNN_ATTR_TENSOR_UNIQUE_ID = 906;
constexpr int CUDNN_ATTR_TENSOR_IS_VIRTUAL = 907;
constexpr int CUDNN_ATTR_VARIANT_PACK_UNIQUE_IDS = 1000;
constexpr int CUDNN_ATTR_VARIANT_PACK_DATA_POINTERS = 1001;
constexpr int CUDNN_ATTR_VARIANT_PACK_WORKSPACE = 1003;
constexpr int CUDNN_ATTR_ENGINE_GLOBAL_INDEX = 1301;
constexpr int CUDNN_ATTR_ENGINE_NUMERICAL_NOTE = 1303;
constexpr int CUDNN_ATTR_ENGINE_BEHAVIOR_NOTE = 1305;

// cudnnBackendNumericalNote_t
constexpr int CUDNN_NUMERICAL_NOTE_TENSOR_CORE = 0;
constexpr int CUDNN_NUMERICAL_NOTE_DOWN_CONVERT_INPUTS = 1;
constexpr int CUDNN_NUMERICAL_NOTE_REDUCED_PRECISION_REDUCTION = 2;

// cudnnBackendBehaviorNote_t
constexpr int CUDNN_BEHAVIOR_NOTE_RUNTIME_COMPILATION = 0;

// cudnnBackendHeurMode_t
constexpr int CUDNN_HEUR_MODE_INSTANT = 0;
constexpr int CUDNN_HEUR_MODE_FALLBACK = 2;

// cudnnConvolutionFwdAlgoPerf_t, cudnnConvolutionBwdDataAlgoPerf_t and
// cudnnConvolutionBwdFilterAlgoPerf_t as cuDNN 9 lays them out (the same fields).
struct AlgoPerf {
  int algo;
  int status;
  float time;
  std::size_t memory;
  int determinism;
  int math_type;
  int reserved[3];
};

// Sizes and strides as the legacy API's descriptors take them.
inline std::vector<int> ints(const std::vector<std::int64_t>& v) {
  return {v.begin(), v.end()};
}

}  // namespace fxscope::gpu::cudnn
