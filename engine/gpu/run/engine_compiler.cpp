#include "fxscope/gpu/engine_compiler.h"

#include <atomic>
#include <cctype>
#include <chrono>
#include <cstdio>
#include <mutex>
#include <set>

#include "fxscope/core/parallel_for.h"
#include "fxscope/core/progress_every.h"
#include "fxscope/gpu/nvrtc_compiler.h"

namespace fxscope::gpu {
namespace {

bool ident_start(char c) {
  return std::isalpha(static_cast<unsigned char>(c)) || c == '_';
}
bool ident_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
}

// The name of SOURCE's one __global__ function; "" when it has none or several.
std::string only_kernel(const std::string& source) {
  constexpr std::string_view kGlobal = "__global__";
  const std::size_t first = source.find(kGlobal);
  if (first == std::string::npos ||
      source.find(kGlobal, first + kGlobal.size()) != std::string::npos) {
    return "";
  }
  // __global__ void [__launch_bounds__(...)] [__cluster_dims__(...)] NAME(
  std::size_t at = first + kGlobal.size();
  while (at < source.size()) {
    if (!ident_start(source[at])) {
      if (source[at] == '(' || source[at] == '{' || source[at] == ';') return "";
      ++at;
      continue;
    }
    std::size_t end = at;
    while (end < source.size() && ident_char(source[end])) ++end;
    const std::string token = source.substr(at, end - at);
    std::size_t next = end;
    while (next < source.size() && std::isspace(static_cast<unsigned char>(source[next]))) ++next;
    if (token == "__launch_bounds__" || token == "__cluster_dims__") {
      next = source.find(')', next);  // the attribute's arguments
      if (next == std::string::npos) return "";
      at = next + 1;
      continue;
    }
    if (next < source.size() && source[next] == '(') return token;
    at = end;
  }
  return "";
}

}  // namespace

KernelKey kernel_key(const std::string& source) {
  KernelKey out;
  out.entry = only_kernel(source);
  if (out.entry.empty()) {
    out.key = source;
    return out;
  }
  std::map<std::string, std::string, std::less<>> renamed;
  out.key.reserve(source.size());
  std::size_t line = 0;
  while (line < source.size()) {
    std::size_t end = source.find('\n', line);
    if (end == std::string::npos) end = source.size();
    const std::string_view text(source.data() + line, end - line);
    const std::size_t first = text.find_first_not_of(" \t");
    if (first != std::string_view::npos && text.substr(first, 2) == "//") {
      line = end + 1;
      continue;
    }
    for (std::size_t i = 0; i < text.size();) {
      if (!ident_start(text[i]) || (i > 0 && ident_char(text[i - 1]))) {
        out.key += text[i++];
        continue;
      }
      std::size_t j = i;
      while (j < text.size() && ident_char(text[j])) ++j;
      const std::string_view token = text.substr(i, j - i);
      if (token == out.entry) {
        out.key += "fxk_entry";
      } else if (token.size() > 2 && (token.starts_with("p_") || token.starts_with("v_"))) {
        auto it = renamed.find(token);
        if (it == renamed.end()) {
          it = renamed.emplace(std::string(token), "fxk_" + std::to_string(renamed.size())).first;
        }
        out.key += it->second;
      } else {
        out.key += token;
      }
      i = j;
    }
    out.key += '\n';
    line = end + 1;
  }
  return out;
}

Result<CompiledKernel> EngineCompiler::compile(const std::string& source,
                                               const std::string& where) const {
  KernelKey key = kernel_key(source);
  {
    const std::lock_guard lock(mutex_);
    if (const auto it = compiled_.find(key.key); it != compiled_.end()) return it->second;
  }
  NvrtcOptions options;
  options.arch = arch_;
  options.cache_dir = cache_dir_;
  // The error names WHERE (the group) in place of the kernel's entry.
  auto built = compile_cuda(source, where, options);
  if (!built) return built.error();
  const std::lock_guard lock(mutex_);
  // Another thread may have compiled a twin meanwhile: every user shares the first one kept.
  const auto it =
      compiled_.emplace(std::move(key.key), CompiledKernel{std::move(built->cubin), key.entry})
          .first;
  return it->second;
}

void EngineCompiler::precompile(const std::vector<const std::string*>& sources,
                                const std::function<void(const std::string&)>& progress,
                                double progress_every) const {
  std::vector<const std::string*> todo;
  {
    const std::lock_guard lock(mutex_);
    std::set<std::string> seen;
    for (const std::string* s : sources) {
      std::string key = kernel_key(*s).key;
      if (!compiled_.contains(key) && seen.insert(std::move(key)).second) todo.push_back(s);
    }
  }
  if (todo.size() < 2) return;
  core::ProgressEvery said(progress, todo.size(), "kernels compiled", progress_every);
  std::atomic<std::size_t> done{0};
  parallel_for(todo.size(), [&](std::size_t i) {
    auto built = compile(*todo[i], "precompile");
    static_cast<void>(built);  // a failure is compiled and reported again with its group
    said.done(++done);
  });
  said.finish();
}

std::size_t EngineCompiler::compiled() const {
  const std::lock_guard lock(mutex_);
  return compiled_.size();
}

}  // namespace fxscope::gpu
