#include "gemm/cublaslt_api.h"

#include "runtime/cuda_libraries.h"

namespace fxscope::gpu {
namespace {

constexpr int kCublasltMajor = CUBLAS_VER_MAJOR;

std::optional<Error> bind_cublaslt(const SharedLibrary& so, CublasLtApi& a) {
  EntryPoints points(so);
  points.bind("cublasLtGetVersion", a.get_version)
      .bind("cublasLtCreate", a.create)
      .bind("cublasLtDestroy", a.destroy)
      .bind("cublasLtMatmul", a.matmul)
      .bind("cublasLtMatmulAlgoGetHeuristic", a.algo_get_heuristic)
      .bind("cublasLtMatmulDescCreate", a.desc_create)
      .bind("cublasLtMatmulDescDestroy", a.desc_destroy)
      .bind("cublasLtMatmulDescSetAttribute", a.desc_set_attribute)
      .bind("cublasLtMatmulPreferenceCreate", a.preference_create)
      .bind("cublasLtMatmulPreferenceDestroy", a.preference_destroy)
      .bind("cublasLtMatmulPreferenceSetAttribute", a.preference_set_attribute)
      .bind("cublasLtMatrixLayoutCreate", a.layout_create)
      .bind("cublasLtMatrixLayoutDestroy", a.layout_destroy)
      .bind("cublasLtMatrixLayoutSetAttribute", a.layout_set_attribute);
  const std::string expected = "cuBLASLt " + std::to_string(kCublasltMajor);
  if (auto e = points.missing(expected)) return e;
  // cublasLtGetVersion: major * 10000 + minor * 100 + patch.
  if (const std::size_t v = a.get_version();
      v / 10000 != static_cast<std::size_t>(kCublasltMajor)) {
    return so.wrong_version(
        "cuBLASLt " + std::to_string(v / 10000) + "." + std::to_string(v / 100 % 100), expected);
  }
  return std::nullopt;
}

}  // namespace

Result<const CublasLtApi*> cublaslt_api() {
  static const LoadedLibrary<CublasLtApi> loaded(
      cuda_library_search({"cuBLASLt", "libcublasLt", kCublasltMajor,
                           toolkit_package("cuBLAS", "libcublas"), "nvidia-cublas", "cublas"}),
      bind_cublaslt);
  return loaded.get();
}

std::string cublas_text(cublasStatus_t status) {
  return std::string("cuBLAS status ") + std::to_string(static_cast<int>(status));
}

Result<cublasLtHandle_t> create_cublaslt_handle() {
  auto lt = cublaslt_api();
  if (!lt) return lt.error();
  cublasLtHandle_t handle = nullptr;
  if (const cublasStatus_t s = (*lt)->create(&handle); s != CUBLAS_STATUS_SUCCESS) {
    return make_error("cublasLtCreate failed (" + cublas_text(s) + ")");
  }
  return handle;
}

void destroy_cublaslt_handle(cublasLtHandle_t handle) {
  if (handle == nullptr) return;
  // A handle exists only where the library loaded.
  if (auto lt = cublaslt_api()) (*lt)->destroy(handle);
}

}  // namespace fxscope::gpu
