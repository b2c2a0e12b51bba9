#pragma once
// A corpus log (sample_graphs/corpus/NAME) read for a test, or nothing where this checkout lacks
// the corpus: the test then warns and checks nothing.

#include <catch2/catch.hpp>

#include <filesystem>
#include <optional>
#include <string>

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

}  // namespace fxscope::test
