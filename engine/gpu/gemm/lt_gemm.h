#pragma once
// One GEMM of a plan on cuBLASLt, its descriptors built once: row-major PyTorch matrices are
// handed over as their column-major transposes (D^T = B^T A^T), so no operand is ever copied.
// The bias of addmm rides in the epilogue, as PyTorch's own addmm does.

#include <cuda_runtime_api.h>

#include <memory>
#include <string>
#include <vector>

#include "fxscope/core/result.h"
#include "fxscope/gpu/gemm_spec.h"
#include "gemm/cublaslt_api.h"

namespace fxscope::gpu {

struct GemmPointers {
  const void* a = nullptr;
  const void* b = nullptr;
  void* out = nullptr;
  const void* bias = nullptr;  // bias_vector
  const void* c = nullptr;     // bias_matrix
};

class LtGemm {
 public:
  ~LtGemm();
  LtGemm(const LtGemm&) = delete;
  LtGemm& operator=(const LtGemm&) = delete;

  // WHERE names the group in errors. The workspace is shared by all GEMMs of a stream.
  static Result<std::unique_ptr<LtGemm>> create(cublasLtHandle_t handle, const GemmSpec& spec,
                                                const GemmPointers& ptrs, void* workspace,
                                                std::size_t workspace_bytes,
                                                const std::string& where);

  cublasStatus_t launch(cudaStream_t stream) const;
  // max-autotune: times each algorithm cuBLASLt's heuristic offers (up to COUNT) and keeps the
  // fastest; returns what was picked ("algo 3 of 8, 41.2 us").
  Result<std::string> tune(cudaStream_t stream, int count);

 private:
  LtGemm() = default;

  const CublasLtApi* lt_ = nullptr;
  cublasLtHandle_t handle_ = nullptr;
  cublasLtMatmulDesc_t op_ = nullptr;
  cublasLtMatrixLayout_t a_ = nullptr;  // cuBLASLt's A: spec.b's storage
  cublasLtMatrixLayout_t b_ = nullptr;  // cuBLASLt's B: spec.a's storage
  cublasLtMatrixLayout_t c_ = nullptr;
  cublasLtMatrixLayout_t d_ = nullptr;
  cublasLtMatmulAlgo_t algo_{};
  std::vector<cublasLtMatmulHeuristicResult_t> choices_;
  float alpha_ = 1.0f;
  float beta_ = 0.0f;
  GemmPointers ptrs_;
  void* workspace_ = nullptr;
  std::size_t workspace_bytes_ = 0;
  std::string where_;
};

}  // namespace fxscope::gpu
