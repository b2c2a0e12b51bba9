#pragma once
// The graph a mode of the engine runs for a sample's first unit: the AOT graph for eager, the
// post-grad graph for the compiled modes, as fuse_unit reads them (with the plan).

#include <catch2/catch.hpp>

#include <filesystem>
#include <functional>
#include <string>

#include "fxscope/fusion/unit_fusion.h"
#include "fxscope/gpu/run_unit.h"
#include "fxscope/trace/trace_log.h"
#include "samples.h"

namespace fxscope::test {

inline fusion::GraphFusion sample_fusion(const std::string& name, fusion::Mode mode) {
  auto log = trace::read_trace(sample(name));
  REQUIRE(log);
  REQUIRE(!log->units().empty());
  auto f = fusion::fuse_unit(log->units().front(), mode);
  REQUIRE(!f.empty());
  return std::move(f.front());
}

// Each corpus log's unit `run` takes by default, with the sizes run gives a dynamic unit's
// symbols (engine_run's hints: their recorded values); NAME is the log's folder.
inline void for_each_corpus_run_unit(
    const std::function<void(const std::string& name, const trace::CompileUnit& unit,
                             const ops::SymbolHints& hints)>& visit) {
  for (const auto& d : std::filesystem::directory_iterator(sample("corpus"))) {
    if (!d.is_directory()) continue;
    auto log = trace::read_trace(d.path().string());
    if (!log) continue;
    const trace::CompileUnit* unit = gpu::default_run_unit(*log);
    if (unit == nullptr) continue;
    visit(d.path().filename().string(), *unit, gpu::unit_hints(*unit));
  }
}

}  // namespace fxscope::test
