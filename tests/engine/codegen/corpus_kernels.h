#pragma once
// The generated kernels of every corpus log (sample_graphs/corpus/, listed in manifest.json), in
// every mode, as `fxscope-cli fuse --cuda-source` writes them: what the corpus tests of the code
// generator and of NVRTC walk.

#include <catch2/catch.hpp>

#include <fstream>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>

#include "fxscope/codegen/unit_kernel_sources.h"
#include "fxscope/trace/trace_log.h"
#include "samples.h"

namespace fxscope::test {

// Calls VISIT with each corpus log's name, a mode and that mode's kernels of all its units.
inline void for_each_corpus_plan(
    const std::function<void(const std::string&, fusion::Mode, const codegen::UnitKernelSources&)>&
        visit) {
  std::ifstream in(sample("corpus") + "/manifest.json");
  REQUIRE(in);
  const auto logs = nlohmann::json::parse(in).at("logs");
  REQUIRE(logs.size() >= 40);
  for (const auto& entry : logs) {
    const std::string name = entry.at("name");
    auto log =
        trace::read_trace(sample("corpus/" + name) + "/" + entry.at("log").get<std::string>());
    INFO(name);
    REQUIRE(log);
    for (const fusion::Mode mode : fusion::kAllModes) {
      auto sources = codegen::unit_kernel_sources(*log, mode, "");
      REQUIRE(sources);
      visit(name, mode, *sources);
    }
  }
}

}  // namespace fxscope::test
