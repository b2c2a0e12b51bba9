#pragma once
// CUDA C -> a loadable cubin for the run's device, through the NVRTC compiler and its on-disk
// cache (nvrtc_compiler.h), with errors naming the group.

#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "fxscope/core/result.h"

namespace fxscope::gpu {

class EngineCompiler {
 public:
  // ARCH: "sm_90"; CACHE_DIR empty: the compiler's default cache.
  EngineCompiler(std::string arch, std::string cache_dir)
      : arch_(std::move(arch)), cache_dir_(std::move(cache_dir)) {}

  Result<std::string> compile(const std::string& source, const std::string& where) const;

  // Compiles SOURCES not yet compiled on up to hardware_concurrency threads, so that the
  // executable's build (which compiles one kernel at a time, in step order) finds them ready: a
  // 48-layer model has thousands of kernels and variants, each tens of ms of NVRTC. A source that
  // fails is left for compile() to report with its group.
  void precompile(const std::vector<const std::string*>& sources) const;

 private:
  std::string arch_;
  std::string cache_dir_;
  // The modes of one run share most kernels (and layers of a model share sources): compile once.
  mutable std::map<std::string, std::string, std::less<>> compiled_;
  mutable std::mutex mutex_;  // guards compiled_ while precompile's threads fill it
};

}  // namespace fxscope::gpu
