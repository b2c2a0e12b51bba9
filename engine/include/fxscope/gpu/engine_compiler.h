#pragma once
// CUDA C -> a loadable cubin for the run's device, through the NVRTC compiler and its on-disk
// cache (nvrtc_compiler.h), with errors naming the group. Kernels that differ only in names
// compile once, as Inductor's wrapper defines one kernel for identical sources.

#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "fxscope/core/result.h"

namespace fxscope::gpu {

// A compiled kernel: its cubin, and the name its kernel has there. Sources that differ only in
// their kernel's name, the names fxscope's code generator gives buffers and values, and comment
// lines share the cubin of the first compiled: every one of them is launched under that one's
// name (ENTRY). ENTRY is empty for a source of other than one kernel: its own names hold.
struct CompiledKernel {
  std::string cubin;
  std::string entry;
  // The name to load: ENTRY, or OWN (the source's own name) when ENTRY is empty.
  const std::string& entry_or(const std::string& own) const { return entry.empty() ? own : entry; }
};

// SOURCE's key for sharing a compiled kernel (comment lines dropped; its one kernel's name and
// the generator's p_ and v_ names replaced by placeholders numbered in order of appearance), and
// its kernel's name; for a source of other than one kernel the key is the source and the name
// empty.
struct KernelKey {
  std::string key;
  std::string entry;
};
KernelKey kernel_key(const std::string& source);

class EngineCompiler {
 public:
  // ARCH: "sm_90"; CACHE_DIR empty: the compiler's default cache.
  EngineCompiler(std::string arch, std::string cache_dir)
      : arch_(std::move(arch)), cache_dir_(std::move(cache_dir)) {}

  Result<CompiledKernel> compile(const std::string& source, const std::string& where) const;

  // Compiles SOURCES not yet compiled (one of each key) on up to hardware_concurrency threads, so
  // that the executable's build (which compiles one kernel at a time, in step order) finds them
  // ready: a 48-layer model has thousands of kernels and variants, each tens of ms of NVRTC. A
  // source that fails is left for compile() to report with its group. PROGRESS, where given, is
  // told how many are compiled every PROGRESS_EVERY seconds while they compile, and at the end
  // (max-autotune's thousands of variants take a minute: the run says it is working).
  void precompile(const std::vector<const std::string*>& sources,
                  const std::function<void(const std::string&)>& progress = {},
                  double progress_every = 5.0) const;

  // Sources compiled and kernels shared so far (a progress line's figures).
  std::size_t compiled() const;

 private:
  std::string arch_;
  std::string cache_dir_;
  // The modes of one run share most kernels, and layers of a model kernels that differ only in
  // names: compile each key once.
  mutable std::map<std::string, CompiledKernel, std::less<>> compiled_;
  mutable std::mutex mutex_;  // guards compiled_ while precompile's threads fill it
};

}  // namespace fxscope::gpu
