#include "fxscope/gpu/engine_compiler.h"

#include <algorithm>
#include <atomic>
#include <future>
#include <set>
#include <thread>

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
  std::atomic<std::size_t> next{0};
  const auto work = [&] {
    for (std::size_t i = next++; i < todo.size(); i = next++) {
      auto built = compile(*todo[i], "precompile");
      static_cast<void>(built);  // a failure is compiled and reported again with its group
    }
  };
  const std::size_t threads =
      std::clamp<std::size_t>(std::thread::hardware_concurrency(), 1, todo.size());
  std::vector<std::future<void>> workers;
  for (std::size_t t = 1; t < threads; ++t) workers.push_back(std::async(std::launch::async, work));
  work();
  for (auto& w : workers) w.get();
}

}  // namespace fxscope::gpu
