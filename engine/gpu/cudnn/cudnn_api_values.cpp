// Where cuDNN's headers are installed (the CUDA toolkit of the development image has them), every
// value cudnn_api.h declares is checked against them at compile time; elsewhere nothing is built.

#include "cudnn/cudnn_api.h"

#include <cstddef>

#if __has_include(<cudnn.h>)
#include <cudnn.h>

// Two of the attributes are deprecated in cuDNN 9.19 (still honoured); naming them is the point.
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"

namespace fxscope::gpu::cudnn {

static_assert(CUDNN_STATUS_SUCCESS == static_cast<int>(::CUDNN_STATUS_SUCCESS));
// The algorithm records the heuristics fill: one layout for the three directions.
static_assert(sizeof(AlgoPerf) == sizeof(::cudnnConvolutionFwdAlgoPerf_t));
static_assert(sizeof(AlgoPerf) == sizeof(::cudnnConvolutionBwdDataAlgoPerf_t));
static_assert(sizeof(AlgoPerf) == sizeof(::cudnnConvolutionBwdFilterAlgoPerf_t));
static_assert(offsetof(AlgoPerf, memory) ==
              offsetof(::cudnnConvolutionBwdFilterAlgoPerf_t, memory));
static_assert(CUDNN_STATUS_NOT_INITIALIZED == static_cast<int>(::CUDNN_STATUS_NOT_INITIALIZED));
static_assert(CUDNN_DATA_FLOAT == static_cast<int>(::CUDNN_DATA_FLOAT));
static_assert(CUDNN_DATA_HALF == static_cast<int>(::CUDNN_DATA_HALF));
static_assert(CUDNN_DATA_BFLOAT16 == static_cast<int>(::CUDNN_DATA_BFLOAT16));
static_assert(CUDNN_TENSOR_NCHW == static_cast<int>(::CUDNN_TENSOR_NCHW));
static_assert(CUDNN_TENSOR_NHWC == static_cast<int>(::CUDNN_TENSOR_NHWC));
static_assert(CUDNN_CROSS_CORRELATION == static_cast<int>(::CUDNN_CROSS_CORRELATION));
static_assert(CUDNN_TENSOR_OP_MATH == static_cast<int>(::CUDNN_TENSOR_OP_MATH));
static_assert(CUDNN_FMA_MATH == static_cast<int>(::CUDNN_FMA_MATH));
static_assert(CUDNN_POINTWISE_ADD == static_cast<int>(::CUDNN_POINTWISE_ADD));
static_assert(CUDNN_BACKEND_POINTWISE_DESCRIPTOR ==
              static_cast<int>(::CUDNN_BACKEND_POINTWISE_DESCRIPTOR));
static_assert(CUDNN_BACKEND_CONVOLUTION_DESCRIPTOR ==
              static_cast<int>(::CUDNN_BACKEND_CONVOLUTION_DESCRIPTOR));
static_assert(CUDNN_BACKEND_ENGINE_DESCRIPTOR ==
              static_cast<int>(::CUDNN_BACKEND_ENGINE_DESCRIPTOR));
static_assert(CUDNN_BACKEND_ENGINECFG_DESCRIPTOR ==
              static_cast<int>(::CUDNN_BACKEND_ENGINECFG_DESCRIPTOR));
static_assert(CUDNN_BACKEND_ENGINEHEUR_DESCRIPTOR ==
              static_cast<int>(::CUDNN_BACKEND_ENGINEHEUR_DESCRIPTOR));
static_assert(CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR ==
              static_cast<int>(::CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR));
static_assert(CUDNN_BACKEND_OPERATION_CONVOLUTION_FORWARD_DESCRIPTOR ==
              static_cast<int>(::CUDNN_BACKEND_OPERATION_CONVOLUTION_FORWARD_DESCRIPTOR));
static_assert(CUDNN_BACKEND_OPERATION_POINTWISE_DESCRIPTOR ==
              static_cast<int>(::CUDNN_BACKEND_OPERATION_POINTWISE_DESCRIPTOR));
static_assert(CUDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR ==
              static_cast<int>(::CUDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR));
static_assert(CUDNN_BACKEND_VARIANT_PACK_DESCRIPTOR ==
              static_cast<int>(::CUDNN_BACKEND_VARIANT_PACK_DESCRIPTOR));
static_assert(CUDNN_BACKEND_TENSOR_DESCRIPTOR ==
              static_cast<int>(::CUDNN_BACKEND_TENSOR_DESCRIPTOR));
static_assert(CUDNN_TYPE_HANDLE == static_cast<int>(::CUDNN_TYPE_HANDLE));
static_assert(CUDNN_TYPE_DATA_TYPE == static_cast<int>(::CUDNN_TYPE_DATA_TYPE));
static_assert(CUDNN_TYPE_BOOLEAN == static_cast<int>(::CUDNN_TYPE_BOOLEAN));
static_assert(CUDNN_TYPE_INT64 == static_cast<int>(::CUDNN_TYPE_INT64));
static_assert(CUDNN_TYPE_FLOAT == static_cast<int>(::CUDNN_TYPE_FLOAT));
static_assert(CUDNN_TYPE_VOID_PTR == static_cast<int>(::CUDNN_TYPE_VOID_PTR));
static_assert(CUDNN_TYPE_CONVOLUTION_MODE == static_cast<int>(::CUDNN_TYPE_CONVOLUTION_MODE));
static_assert(CUDNN_TYPE_HEUR_MODE == static_cast<int>(::CUDNN_TYPE_HEUR_MODE));
static_assert(CUDNN_TYPE_NUMERICAL_NOTE == static_cast<int>(::CUDNN_TYPE_NUMERICAL_NOTE));
static_assert(CUDNN_TYPE_POINTWISE_MODE == static_cast<int>(::CUDNN_TYPE_POINTWISE_MODE));
static_assert(CUDNN_TYPE_BACKEND_DESCRIPTOR == static_cast<int>(::CUDNN_TYPE_BACKEND_DESCRIPTOR));
static_assert(CUDNN_TYPE_BEHAVIOR_NOTE == static_cast<int>(::CUDNN_TYPE_BEHAVIOR_NOTE));
static_assert(CUDNN_ATTR_POINTWISE_MODE == static_cast<int>(::CUDNN_ATTR_POINTWISE_MODE));
static_assert(CUDNN_ATTR_POINTWISE_MATH_PREC == static_cast<int>(::CUDNN_ATTR_POINTWISE_MATH_PREC));
static_assert(CUDNN_ATTR_CONVOLUTION_COMP_TYPE ==
              static_cast<int>(::CUDNN_ATTR_CONVOLUTION_COMP_TYPE));
static_assert(CUDNN_ATTR_CONVOLUTION_CONV_MODE ==
              static_cast<int>(::CUDNN_ATTR_CONVOLUTION_CONV_MODE));
static_assert(CUDNN_ATTR_CONVOLUTION_DILATIONS ==
              static_cast<int>(::CUDNN_ATTR_CONVOLUTION_DILATIONS));
static_assert(CUDNN_ATTR_CONVOLUTION_FILTER_STRIDES ==
              static_cast<int>(::CUDNN_ATTR_CONVOLUTION_FILTER_STRIDES));
static_assert(CUDNN_ATTR_CONVOLUTION_POST_PADDINGS ==
              static_cast<int>(::CUDNN_ATTR_CONVOLUTION_POST_PADDINGS));
static_assert(CUDNN_ATTR_CONVOLUTION_PRE_PADDINGS ==
              static_cast<int>(::CUDNN_ATTR_CONVOLUTION_PRE_PADDINGS));
static_assert(CUDNN_ATTR_CONVOLUTION_SPATIAL_DIMS ==
              static_cast<int>(::CUDNN_ATTR_CONVOLUTION_SPATIAL_DIMS));
static_assert(CUDNN_ATTR_ENGINEHEUR_MODE == static_cast<int>(::CUDNN_ATTR_ENGINEHEUR_MODE));
static_assert(CUDNN_ATTR_ENGINEHEUR_OPERATION_GRAPH ==
              static_cast<int>(::CUDNN_ATTR_ENGINEHEUR_OPERATION_GRAPH));
static_assert(CUDNN_ATTR_ENGINEHEUR_RESULTS == static_cast<int>(::CUDNN_ATTR_ENGINEHEUR_RESULTS));
static_assert(CUDNN_ATTR_ENGINECFG_ENGINE == static_cast<int>(::CUDNN_ATTR_ENGINECFG_ENGINE));
static_assert(CUDNN_ATTR_EXECUTION_PLAN_HANDLE ==
              static_cast<int>(::CUDNN_ATTR_EXECUTION_PLAN_HANDLE));
static_assert(CUDNN_ATTR_EXECUTION_PLAN_ENGINE_CONFIG ==
              static_cast<int>(::CUDNN_ATTR_EXECUTION_PLAN_ENGINE_CONFIG));
static_assert(CUDNN_ATTR_EXECUTION_PLAN_WORKSPACE_SIZE ==
              static_cast<int>(::CUDNN_ATTR_EXECUTION_PLAN_WORKSPACE_SIZE));
static_assert(CUDNN_BACKEND_OPERATION_CONVOLUTION_BACKWARD_FILTER_DESCRIPTOR ==
              static_cast<int>(::CUDNN_BACKEND_OPERATION_CONVOLUTION_BACKWARD_FILTER_DESCRIPTOR));
static_assert(CUDNN_BACKEND_OPERATION_CONVOLUTION_BACKWARD_DATA_DESCRIPTOR ==
              static_cast<int>(::CUDNN_BACKEND_OPERATION_CONVOLUTION_BACKWARD_DATA_DESCRIPTOR));
static_assert(CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_ALPHA ==
              static_cast<int>(::CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_ALPHA));
static_assert(CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_BETA ==
              static_cast<int>(::CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_BETA));
static_assert(CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_CONV_DESC ==
              static_cast<int>(::CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_CONV_DESC));
static_assert(CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_W ==
              static_cast<int>(::CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_W));
static_assert(CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_DX ==
              static_cast<int>(::CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_DX));
static_assert(CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_DY ==
              static_cast<int>(::CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_DY));
static_assert(CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_ALPHA ==
              static_cast<int>(::CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_ALPHA));
static_assert(CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_BETA ==
              static_cast<int>(::CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_BETA));
static_assert(CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_CONV_DESC ==
              static_cast<int>(::CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_CONV_DESC));
static_assert(CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_DW ==
              static_cast<int>(::CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_DW));
static_assert(CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_X ==
              static_cast<int>(::CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_X));
static_assert(CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_DY ==
              static_cast<int>(::CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_DY));
static_assert(CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_ALPHA ==
              static_cast<int>(::CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_ALPHA));
static_assert(CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_BETA ==
              static_cast<int>(::CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_BETA));
static_assert(CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_CONV_DESC ==
              static_cast<int>(::CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_CONV_DESC));
static_assert(CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_W ==
              static_cast<int>(::CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_W));
static_assert(CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_X ==
              static_cast<int>(::CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_X));
static_assert(CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_Y ==
              static_cast<int>(::CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_Y));
static_assert(CUDNN_ATTR_OPERATION_POINTWISE_PW_DESCRIPTOR ==
              static_cast<int>(::CUDNN_ATTR_OPERATION_POINTWISE_PW_DESCRIPTOR));
static_assert(CUDNN_ATTR_OPERATION_POINTWISE_XDESC ==
              static_cast<int>(::CUDNN_ATTR_OPERATION_POINTWISE_XDESC));
static_assert(CUDNN_ATTR_OPERATION_POINTWISE_BDESC ==
              static_cast<int>(::CUDNN_ATTR_OPERATION_POINTWISE_BDESC));
static_assert(CUDNN_ATTR_OPERATION_POINTWISE_YDESC ==
              static_cast<int>(::CUDNN_ATTR_OPERATION_POINTWISE_YDESC));
static_assert(CUDNN_ATTR_OPERATION_POINTWISE_ALPHA1 ==
              static_cast<int>(::CUDNN_ATTR_OPERATION_POINTWISE_ALPHA1));
static_assert(CUDNN_ATTR_OPERATION_POINTWISE_ALPHA2 ==
              static_cast<int>(::CUDNN_ATTR_OPERATION_POINTWISE_ALPHA2));
static_assert(CUDNN_ATTR_OPERATIONGRAPH_HANDLE ==
              static_cast<int>(::CUDNN_ATTR_OPERATIONGRAPH_HANDLE));
static_assert(CUDNN_ATTR_OPERATIONGRAPH_OPS == static_cast<int>(::CUDNN_ATTR_OPERATIONGRAPH_OPS));
static_assert(CUDNN_ATTR_TENSOR_BYTE_ALIGNMENT ==
              static_cast<int>(::CUDNN_ATTR_TENSOR_BYTE_ALIGNMENT));
static_assert(CUDNN_ATTR_TENSOR_DATA_TYPE == static_cast<int>(::CUDNN_ATTR_TENSOR_DATA_TYPE));
static_assert(CUDNN_ATTR_TENSOR_DIMENSIONS == static_cast<int>(::CUDNN_ATTR_TENSOR_DIMENSIONS));
static_assert(CUDNN_ATTR_TENSOR_STRIDES == static_cast<int>(::CUDNN_ATTR_TENSOR_STRIDES));
static_assert(CUDNN_ATTR_TENSOR_UNIQUE_ID == static_cast<int>(::CUDNN_ATTR_TENSOR_UNIQUE_ID));
static_assert(CUDNN_ATTR_TENSOR_IS_VIRTUAL == static_cast<int>(::CUDNN_ATTR_TENSOR_IS_VIRTUAL));
static_assert(CUDNN_ATTR_VARIANT_PACK_UNIQUE_IDS ==
              static_cast<int>(::CUDNN_ATTR_VARIANT_PACK_UNIQUE_IDS));
static_assert(CUDNN_ATTR_VARIANT_PACK_DATA_POINTERS ==
              static_cast<int>(::CUDNN_ATTR_VARIANT_PACK_DATA_POINTERS));
static_assert(CUDNN_ATTR_VARIANT_PACK_WORKSPACE ==
              static_cast<int>(::CUDNN_ATTR_VARIANT_PACK_WORKSPACE));
static_assert(CUDNN_ATTR_ENGINE_GLOBAL_INDEX == static_cast<int>(::CUDNN_ATTR_ENGINE_GLOBAL_INDEX));
static_assert(CUDNN_ATTR_ENGINE_NUMERICAL_NOTE ==
              static_cast<int>(::CUDNN_ATTR_ENGINE_NUMERICAL_NOTE));
static_assert(CUDNN_ATTR_ENGINE_BEHAVIOR_NOTE ==
              static_cast<int>(::CUDNN_ATTR_ENGINE_BEHAVIOR_NOTE));
static_assert(CUDNN_NUMERICAL_NOTE_TENSOR_CORE ==
              static_cast<int>(::CUDNN_NUMERICAL_NOTE_TENSOR_CORE));
static_assert(CUDNN_NUMERICAL_NOTE_DOWN_CONVERT_INPUTS ==
              static_cast<int>(::CUDNN_NUMERICAL_NOTE_DOWN_CONVERT_INPUTS));
static_assert(CUDNN_NUMERICAL_NOTE_REDUCED_PRECISION_REDUCTION ==
              static_cast<int>(::CUDNN_NUMERICAL_NOTE_REDUCED_PRECISION_REDUCTION));
static_assert(CUDNN_BEHAVIOR_NOTE_RUNTIME_COMPILATION ==
              static_cast<int>(::CUDNN_BEHAVIOR_NOTE_RUNTIME_COMPILATION));
static_assert(CUDNN_HEUR_MODE_INSTANT == static_cast<int>(::CUDNN_HEUR_MODE_INSTANT));
static_assert(CUDNN_HEUR_MODE_FALLBACK == static_cast<int>(::CUDNN_HEUR_MODE_FALLBACK));

}  // namespace fxscope::gpu::cudnn
#endif
