#include "engine_compiler.h"

#include "fxscope/gpu/nvrtc_compiler.h"

namespace fxscope::gpu {

Result<std::string> EngineCompiler::compile(const std::string& source,
                                            const std::string& where) const {
  if (const auto it = compiled_.find(source); it != compiled_.end()) return it->second;
  NvrtcOptions options;
  options.arch = arch_;
  options.cache_dir = cache_dir_;
  // The error names WHERE (the group) in place of the kernel's entry.
  auto built = compile_cuda(source, where, options);
  if (!built) return built.error();
  compiled_.emplace(source, built->cubin);
  return std::move(built->cubin);
}

}  // namespace fxscope::gpu
