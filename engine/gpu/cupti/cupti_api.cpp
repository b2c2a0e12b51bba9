#include "cupti/cupti_api.h"

#include <cuda_runtime_api.h>

#include "runtime/cuda_libraries.h"

namespace fxscope::gpu {
namespace {

// CUPTI's soname follows the CUDA release (libcupti.so.13); its API version leads with that
// release's major version (130001 for CUDA 13.0; CUDA 12's were two-digit numbers).
constexpr int kCuptiMajor = CUDART_VERSION / 1000;

std::optional<Error> bind_cupti(const SharedLibrary& so, CuptiApi& a) {
  EntryPoints points(so);
  points.bind("cuptiGetVersion", a.get_version)
      .bind("cuptiGetResultString", a.result_string)
      .bind("cuptiActivityRegisterCallbacks", a.register_callbacks)
      .bind("cuptiActivityEnable", a.enable)
      .bind("cuptiActivityDisable", a.disable)
      .bind("cuptiActivityFlushAll", a.flush_all)
      .bind("cuptiActivityGetNextRecord", a.next_record)
      .bind("cuptiActivityPushExternalCorrelationId", a.push_external_id)
      .bind("cuptiActivityPopExternalCorrelationId", a.pop_external_id);
  const std::string expected = "CUPTI of CUDA " + std::to_string(kCuptiMajor);
  if (auto e = points.missing(expected)) return e;
  std::uint32_t version = 0;
  a.get_version(&version);
  if (version / 10000 != CUPTI_API_VERSION / 10000) {
    return so.wrong_version("CUPTI API version " + std::to_string(version),
                            expected + " (" + std::to_string(CUPTI_API_VERSION) + ")");
  }
  return std::nullopt;
}

}  // namespace

std::string CuptiApi::text(CUptiResult r) const {
  const char* text = nullptr;
  result_string(r, &text);
  return text ? text : "CUPTI error " + std::to_string(static_cast<int>(r));
}

Result<const CuptiApi*> cupti_api() {
  static const LoadedLibrary<CuptiApi> loaded(
      cuda_library_search({"CUPTI", "libcupti", kCuptiMajor, toolkit_package("CUPTI", "cuda-cupti"),
                           "nvidia-cuda-cupti", "cuda_cupti"}),
      bind_cupti);
  return loaded.get();
}

}  // namespace fxscope::gpu
