#pragma once
// CUDA C -> a loadable cubin for the run's device, through the NVRTC compiler and its on-disk
// cache (nvrtc_compiler.h), with errors naming the group.

#include <map>
#include <string>

#include "fxscope/core/result.h"

namespace fxscope::gpu {

class EngineCompiler {
 public:
  // ARCH: "sm_90"; CACHE_DIR empty: the compiler's default cache.
  EngineCompiler(std::string arch, std::string cache_dir)
      : arch_(std::move(arch)), cache_dir_(std::move(cache_dir)) {}

  Result<std::string> compile(const std::string& source, const std::string& where) const;

 private:
  std::string arch_;
  std::string cache_dir_;
  // The modes of one run share most kernels (and layers of a model share sources): compile once.
  mutable std::map<std::string, std::string, std::less<>> compiled_;
};

}  // namespace fxscope::gpu
