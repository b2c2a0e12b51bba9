#include "gemm/lt_gemm.h"

#include <algorithm>
#include <cstdio>

#include "run/gpu_timing.h"
#include "runtime/cuda_status.h"

namespace fxscope::gpu {
namespace {

Result<cudaDataType_t> data_type(const std::string& dtype, const std::string& where) {
  if (dtype == "f32") return CUDA_R_32F;
  if (dtype == "f16") return CUDA_R_16F;
  if (dtype == "bf16") return CUDA_R_16BF;
  return make_error(where + ": cuBLASLt GEMM in " + dtype + " is not supported");
}

// The column-major storage of a row-major (or column-major) matrix and the op that turns it
// into the transpose cuBLASLt needs.
cublasStatus_t layout_of(const CublasLtApi& lt, const MatrixOperand& m, cudaDataType_t type,
                         cublasLtMatrixLayout_t* out, cublasOperation_t* op) {
  const bool row = m.row_major();
  if (op) *op = row ? CUBLAS_OP_N : CUBLAS_OP_T;
  const auto rows = static_cast<std::uint64_t>(row ? m.cols : m.rows);
  const auto cols = static_cast<std::uint64_t>(row ? m.rows : m.cols);
  const std::int64_t ld = row ? m.row_stride : m.col_stride;
  cublasStatus_t s = lt.layout_create(out, type, rows, cols, std::max<std::int64_t>(ld, 1));
  if (s != CUBLAS_STATUS_SUCCESS || m.batch == 1) return s;
  const int batch = static_cast<int>(m.batch);
  const std::int64_t stride = m.batch_stride;
  s = lt.layout_set_attribute(*out, CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, &batch, sizeof batch);
  if (s != CUBLAS_STATUS_SUCCESS) return s;
  return lt.layout_set_attribute(*out, CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET, &stride,
                                 sizeof stride);
}

}  // namespace

LtGemm::~LtGemm() {
  for (cublasLtMatrixLayout_t layout : {a_, b_, c_, d_}) {
    if (layout) lt_->layout_destroy(layout);
  }
  if (op_) lt_->desc_destroy(op_);
}

Result<std::unique_ptr<LtGemm>> LtGemm::create(cublasLtHandle_t handle, const GemmSpec& spec,
                                               const GemmPointers& ptrs, void* workspace,
                                               std::size_t workspace_bytes,
                                               const std::string& where) {
  auto type = data_type(spec.dtype, where);
  if (!type) return type.error();
  auto loaded = cublaslt_api();
  if (!loaded) return make_error(where + ": " + loaded.error().message);
  const CublasLtApi& lt = **loaded;
  std::unique_ptr<LtGemm> g(new LtGemm());
  g->lt_ = &lt;
  g->handle_ = handle;
  g->ptrs_ = ptrs;
  g->workspace_ = workspace;
  g->workspace_bytes_ = workspace_bytes;
  g->where_ = where;
  g->alpha_ = static_cast<float>(spec.alpha);
  g->beta_ = static_cast<float>(spec.beta);
  const auto check = [&](cublasStatus_t s, const char* what) -> std::optional<Error> {
    if (s == CUBLAS_STATUS_SUCCESS) return std::nullopt;
    return make_error(where + ": cuBLASLt " + what + " failed (" + cublas_text(s) + ")");
  };
  // fp32 stays fp32 (TF32 off, as in the captures); half types accumulate in fp32.
  if (auto e = check(lt.desc_create(&g->op_, CUBLAS_COMPUTE_32F, CUDA_R_32F), "desc")) {
    return *e;
  }
  cublasOperation_t op_a = CUBLAS_OP_N;
  cublasOperation_t op_b = CUBLAS_OP_N;
  if (auto e = check(layout_of(lt, spec.b, *type, &g->a_, &op_a), "layout A")) return *e;
  if (auto e = check(layout_of(lt, spec.a, *type, &g->b_, &op_b), "layout B")) return *e;
  if (auto e = check(layout_of(lt, spec.out, *type, &g->d_, nullptr), "layout D")) return *e;
  if (spec.bias_matrix) {
    if (!spec.bias_matrix->row_major()) {
      return make_error(where + ": a column-major addmm bias is not supported");
    }
    if (auto e = check(layout_of(lt, *spec.bias_matrix, *type, &g->c_, nullptr), "layout C"))
      return *e;
  } else {
    if (auto e = check(layout_of(lt, spec.out, *type, &g->c_, nullptr), "layout C")) return *e;
  }
  lt.desc_set_attribute(g->op_, CUBLASLT_MATMUL_DESC_TRANSA, &op_a, sizeof op_a);
  lt.desc_set_attribute(g->op_, CUBLASLT_MATMUL_DESC_TRANSB, &op_b, sizeof op_b);
  cublasLtEpilogue_t epi = CUBLASLT_EPILOGUE_DEFAULT;
  const bool bias = spec.bias_vector.has_value();
  switch (spec.epilogue) {
    case GemmEpilogue::none:
      epi = bias ? CUBLASLT_EPILOGUE_BIAS : CUBLASLT_EPILOGUE_DEFAULT;
      break;
    case GemmEpilogue::relu:
      epi = bias ? CUBLASLT_EPILOGUE_RELU_BIAS : CUBLASLT_EPILOGUE_RELU;
      break;
    case GemmEpilogue::gelu_tanh:
      epi = bias ? CUBLASLT_EPILOGUE_GELU_BIAS : CUBLASLT_EPILOGUE_GELU;
      break;
  }
  lt.desc_set_attribute(g->op_, CUBLASLT_MATMUL_DESC_EPILOGUE, &epi, sizeof epi);
  if (bias) {
    lt.desc_set_attribute(g->op_, CUBLASLT_MATMUL_DESC_BIAS_POINTER, &ptrs.bias, sizeof ptrs.bias);
  }
  cublasLtMatmulPreference_t pref = nullptr;
  if (auto e = check(lt.preference_create(&pref), "preference")) return *e;
  lt.preference_set_attribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &workspace_bytes,
                              sizeof workspace_bytes);
  g->choices_.resize(8);
  int returned = 0;
  const cublasStatus_t hs =
      lt.algo_get_heuristic(handle, g->op_, g->a_, g->b_, g->c_, g->d_, pref,
                            static_cast<int>(g->choices_.size()), g->choices_.data(), &returned);
  lt.preference_destroy(pref);
  if (hs != CUBLAS_STATUS_SUCCESS || returned == 0) {
    return make_error(where + ": cuBLASLt has no algorithm for this GEMM (" + cublas_text(hs) +
                      ")");
  }
  g->choices_.resize(static_cast<std::size_t>(returned));
  g->algo_ = g->choices_.front().algo;
  return g;
}

cublasStatus_t LtGemm::launch(cudaStream_t stream) const {
  const void* c = ptrs_.c ? ptrs_.c : ptrs_.out;
  return lt_->matmul(handle_, op_, &alpha_, ptrs_.b, a_, ptrs_.a, b_, &beta_, c, c_, ptrs_.out, d_,
                     &algo_, workspace_, workspace_bytes_, stream);
}

Result<std::string> LtGemm::tune(cudaStream_t stream, int count) {
  const std::size_t n = std::min<std::size_t>(choices_.size(), static_cast<std::size_t>(count));
  double best_us = 1e30;
  std::size_t best = 0;
  for (std::size_t i = 0; i < n; ++i) {
    algo_ = choices_[i].algo;
    // A failing algorithm is passed over.
    const auto us = gpu_time_us(
        stream, [&] { return launch(stream) == CUBLAS_STATUS_SUCCESS; }, 10);
    if (us && *us < best_us) {
      best_us = *us;
      best = i;
    }
  }
  algo_ = choices_[best].algo;
  if (best_us >= 1e30) return make_error(where_ + ": no cuBLASLt algorithm ran");
  char text[96];
  std::snprintf(text, sizeof text, "cuBLASLt algo %zu of %zu, %.1f us", best + 1, n, best_us);
  return std::string(text);
}

}  // namespace fxscope::gpu
