#pragma once
// The graph a mode of the engine runs for a sample's first unit: the AOT graph for eager, the
// post-grad graph for the compiled modes, as fuse_unit reads them (with the plan).

#include <catch2/catch.hpp>

#include <string>

#include "fxscope/fusion/unit_fusion.h"
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

}  // namespace fxscope::test
