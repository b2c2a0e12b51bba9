// Both backends of `run` take the same unit by default (gpu/run_unit.h): on every corpus log and
// sample, the first unit in log order with an ATen graph and a runnable, which is also the first
// in compile order (the PyTorch driver's own default when it is given none).

#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <tuple>

#include "fxscope/fusion/unit_fusion.h"
#include "fxscope/gpu/run_unit.h"
#include "samples.h"

using namespace fxscope;

namespace {

std::vector<std::string> logs_of(const std::string& folder) {
  std::vector<std::string> out;
  for (const auto& d : std::filesystem::directory_iterator(test::sample(folder))) {
    if (d.is_directory()) out.push_back(d.path().string());
  }
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace

TEST_CASE("run's default unit is the first with an ATen graph and a runnable", "[gpu][corpus]") {
  std::size_t logs = 0;
  std::size_t many_units = 0;
  for (const std::string& folder : {std::string("corpus"), std::string()}) {
    for (const std::string& dir : logs_of(folder)) {
      if (dir.ends_with("/corpus")) continue;
      auto log = trace::read_trace(dir);
      if (!log) continue;  // a folder without a log (tools, data)
      INFO(dir);
      ++logs;
      const trace::CompileUnit* chosen = gpu::default_run_unit(*log);
      const bool any_aten = std::any_of(log->units().begin(), log->units().end(),
                                        [](const auto& u) { return u.aot_graph() != nullptr; });
      if (!any_aten) {
        // A refused or failed export compiles nothing: there is no unit to run.
        CHECK(chosen == nullptr);
        continue;
      }
      REQUIRE(chosen != nullptr);
      CHECK(chosen->aot_graph() != nullptr);
      // The first unit in compile order (frame, then compile) that the PyTorch driver can run.
      const trace::CompileUnit* first_runnable = nullptr;
      std::size_t with_graph = 0;
      for (const auto& u : log->units()) {
        if (u.aot_graph() == nullptr) continue;
        ++with_graph;
        if (u.find(trace::ArtifactKind::kFxGraphRunnable) == nullptr) continue;
        const auto order = [](const trace::CompileUnit& x) {
          return std::make_tuple(x.id.frame_id, x.id.frame_compile_id);
        };
        if (!first_runnable || order(u) < order(*first_runnable)) first_runnable = &u;
      }
      if (with_graph > 1) ++many_units;
      if (first_runnable) CHECK(chosen == first_runnable);
      CHECK_THAT(gpu::default_unit_line(*chosen),
                 Catch::StartsWith("unit " + chosen->id.without_attempt().str() + " ("));
    }
  }
  CHECK(logs >= 56);
  CHECK(many_units > 0);
}

TEST_CASE("eager computing from tensor constants that Inductor folded is no reference", "[gpu]") {
  // DeBERTa scales its scores by sqrt(torch.tensor(64.) * 3): the AOT graph lifts the constant
  // and computes the scale; the post-grad graph keeps the constant's read, dead, and divides by
  // the folded 13.86. The log records no constant's value.
  auto log = trace::read_trace(test::sample("corpus/hf_deberta_v2"));
  REQUIRE(log);
  const trace::CompileUnit* unit = gpu::default_run_unit(*log);
  REQUIRE(unit);
  const auto eager = fusion::fuse_unit(*unit, fusion::Mode::eager);
  REQUIRE(!eager.empty());
  const std::string line = gpu::unrecorded_constants(eager.front().post_grad, *unit);
  CHECK(line.find("eager computes from 6 tensor constants") == 0);
  // A model without tensor constants keeps eager as its reference.
  auto gpt2 = trace::read_trace(test::sample("corpus/hf_gpt2_max_autotune"));
  REQUIRE(gpt2);
  const trace::CompileUnit* u2 = gpu::default_run_unit(*gpt2);
  REQUIRE(u2);
  const auto e2 = fusion::fuse_unit(*u2, fusion::Mode::eager);
  REQUIRE(!e2.empty());
  CHECK(gpu::unrecorded_constants(e2.front().post_grad, *u2).empty());
}
