#include "fxscope/gpu/engine_compiler.h"

#include <set>

#include "fxscope/core/parallel_for.h"
#include "fxscope/gpu/nvrtc_compiler.h"

namespace fxscope::gpu {

Result<std::string> EngineCompiler::compile(const std::string& source,
                                            const std::string& where) const {
  {
    const std::lock_guard lock(mutex_);
    if (const auto it = compiled_.find(source); it != compiled_.end()) return it->second;
  }
  NvrtcOptions options;
  options.arch = arch_;
  options.cache_dir = cache_dir_;
  // The error names WHERE (the group) in place of the kernel's entry.
  auto built = compile_cuda(source, where, options);
  if (!built) return built.error();
  const std::lock_guard lock(mutex_);
  compiled_.emplace(source, built->cubin);
  return std::move(built->cubin);
}

void EngineCompiler::precompile(const std::vector<const std::string*>& sources) const {
  std::vector<const std::string*> todo;
  {
    const std::lock_guard lock(mutex_);
    std::set<std::string_view> seen;
    for (const std::string* s : sources) {
      if (!compiled_.contains(*s) && seen.insert(*s).second) todo.push_back(s);
    }
  }
  if (todo.size() < 2) return;
  parallel_for(todo.size(), [&](std::size_t i) {
    auto built = compile(*todo[i], "precompile");
    static_cast<void>(built);  // a failure is compiled and reported again with its group
  });
}

}  // namespace fxscope::gpu
