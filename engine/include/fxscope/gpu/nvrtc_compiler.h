#pragma once
// CUDA C -> cubin with NVRTC for one architecture, cached on disk by a hash of the source, the
// architecture and the options, so a kernel compiles once per machine. NVRTC needs no GPU and no
// driver: this works (and is tested) on machines without one.

#include <string>
#include <vector>

#include "fxscope/core/result.h"

namespace fxscope::gpu {

struct NvrtcOptions {
  std::string arch = "sm_90";      // the device's: "sm_" + major + minor
  std::vector<std::string> extra;  // more NVRTC options ("-lineinfo")
  std::string cache_dir;           // empty: default_kernel_cache_dir()
  bool use_cache = true;
};

struct CompiledCubin {
  std::string cubin;  // the ELF image, for cuModuleLoadData
  std::string log;    // NVRTC's log (warnings), empty when clean or cached
  bool from_cache = false;
  std::string cache_path;  // where it is (or would be) cached; empty when uncacheable
};

// $XDG_CACHE_HOME/fxscope/kernels, else $HOME/.cache/fxscope/kernels, else a temp directory.
std::string default_kernel_cache_dir();

// Compiles SOURCE, whose kernel ENTRY names the errors: "fx_add_g3: NVRTC: <first error line>".
// A cache that cannot be read or written is skipped, never an error.
Result<CompiledCubin> compile_cuda(const std::string& source, const std::string& entry,
                                   const NvrtcOptions& options = {});

}  // namespace fxscope::gpu
