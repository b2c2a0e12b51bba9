#pragma once
// A corpus log (sample_graphs/corpus/NAME) read for a test, or nothing where this checkout lacks
// the corpus: the test then warns and checks nothing; and a walk over its Inductor kernels.

#include <catch2/catch.hpp>

#include <filesystem>
#include <functional>
#include <optional>
#include <string>

#include "fxscope/fusion/unit_fusion.h"
#include "fxscope/trace/trace_log.h"
#include "samples.h"

namespace fxscope::test {

inline std::optional<trace::TraceLog> corpus_log(const std::string& name) {
  const std::string path = sample("corpus/" + name);
  if (!std::filesystem::exists(path)) {
    WARN("sample_graphs/corpus/ is absent from this checkout");
    return std::nullopt;
  }
  auto log = trace::read_trace(path);
  INFO(path);
  REQUIRE(log);
  return std::move(*log);
}

// Calls VISIT with each of Inductor's kernels of every graph of corpus log NAME, planned in MODE
// beside it; nothing where this checkout lacks the corpus (warned).
inline void for_each_inductor_kernel(
    const std::string& name, fusion::Mode mode,
    const std::function<void(const fusion::GraphFusion&, const fusion::KernelGroup&)>& visit) {
  const auto log = corpus_log(name);
  if (!log) return;
  for (const auto& unit : log->units()) {
    for (const auto& f : fusion::fuse_unit(unit, mode)) {
      for (const fusion::KernelGroup& theirs : f.inductor.groups) visit(f, theirs);
    }
  }
}

}  // namespace fxscope::test
