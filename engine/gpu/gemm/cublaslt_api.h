#pragma once
// cuBLASLt's entry points that fxscope calls, bound at run time (runtime/cuda_libraries.h): its
// header gives the types and signatures, and the library (over 500 MB) is loaded by the first
// GPU run that needs a GEMM, not by every start of every binary.

#include <cublasLt.h>

#include <string>

#include "fxscope/core/result.h"

namespace fxscope::gpu {

struct CublasLtApi {
  decltype(&cublasLtGetVersion) get_version = nullptr;
  decltype(&cublasLtCreate) create = nullptr;
  decltype(&cublasLtDestroy) destroy = nullptr;
  decltype(&cublasLtMatmul) matmul = nullptr;
  decltype(&cublasLtMatmulAlgoGetHeuristic) algo_get_heuristic = nullptr;
  decltype(&cublasLtMatmulDescCreate) desc_create = nullptr;
  decltype(&cublasLtMatmulDescDestroy) desc_destroy = nullptr;
  decltype(&cublasLtMatmulDescSetAttribute) desc_set_attribute = nullptr;
  decltype(&cublasLtMatmulPreferenceCreate) preference_create = nullptr;
  decltype(&cublasLtMatmulPreferenceDestroy) preference_destroy = nullptr;
  decltype(&cublasLtMatmulPreferenceSetAttribute) preference_set_attribute = nullptr;
  decltype(&cublasLtMatrixLayoutCreate) layout_create = nullptr;
  decltype(&cublasLtMatrixLayoutDestroy) layout_destroy = nullptr;
  decltype(&cublasLtMatrixLayoutSetAttribute) layout_set_attribute = nullptr;
};

// The process's cuBLASLt, loaded on the first call; the error names where it was looked for.
Result<const CublasLtApi*> cublaslt_api();

std::string cublas_text(cublasStatus_t status);

// A cuBLASLt handle (cublasLtCreate), or why there is none: the library is missing or refused.
Result<cublasLtHandle_t> create_cublaslt_handle();
// Destroys a handle made by create_cublaslt_handle; a null handle is left alone.
void destroy_cublaslt_handle(cublasLtHandle_t handle);

}  // namespace fxscope::gpu
