// Both backends of `run` take the same unit by default (gpu/run_unit.h): on every corpus log and
// sample, the first unit in log order with an ATen graph and a runnable, which is also the first
// in compile order (the PyTorch driver's own default when it is given none).

#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <tuple>

#include "fxscope/fusion/unit_fusion.h"
#include "fxscope/gpu/run_unit.h"
#include "fxscope/gpu/step_plan.h"
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

TEST_CASE("eager's reference is the post-grad graph where the AOT graph's constants are unknown",
          "[gpu]") {
  auto log = trace::read_trace(test::sample("corpus/hf_deberta_v2"));
  REQUIRE(log);
  const trace::CompileUnit* unit = gpu::default_run_unit(*log);
  REQUIRE(unit);
  std::string note;
  const fusion::GraphFusion eager = gpu::eager_reference(*unit, note);
  CHECK(note.find("eager runs the post-grad graph one op a kernel") == 0);
  // The graph the compiled modes run, planned one op a kernel: every tensor constant it reads is
  // one the post-grad graph keeps, so eager's values are the compiled modes' reference again.
  const auto compiled = fusion::fuse_unit(*unit, fusion::Mode::default_mode);
  REQUIRE(!compiled.empty());
  CHECK(eager.post_grad.size() == compiled.front().post_grad.size());
  CHECK(gpu::unrecorded_constants(eager.post_grad, *unit).empty());
  CHECK(eager.ours.mode == fusion::Mode::eager);
  CHECK(eager.ours.groups.size() > compiled.front().ours.groups.size());
  // Each of its ops has a runtime, in DeBERTa and in Swin-T (whose window attention computes
  // from 45 such constants).
  for (const char* name : {"corpus/hf_deberta_v2", "corpus/tv_swin_t"}) {
    auto l = trace::read_trace(test::sample(name));
    REQUIRE(l);
    const trace::CompileUnit* u = gpu::default_run_unit(*l);
    REQUIRE(u);
    std::string why;
    const fusion::GraphFusion ref = gpu::eager_reference(*u, why);
    CHECK(!why.empty());
    const auto steps = gpu::plan_steps(ref.post_grad, ref.ours, ref.hints, false, 1);
    INFO(name << ": " << (steps.skipped.empty() ? "" : steps.skipped.front().why));
    CHECK(steps.skipped.empty());
    CHECK(steps.ran_ops == steps.ops);
  }
  // Where the AOT graph has no such constants, eager runs it.
  auto gpt2 = trace::read_trace(test::sample("corpus/hf_gpt2_max_autotune"));
  REQUIRE(gpt2);
  const trace::CompileUnit* u2 = gpu::default_run_unit(*gpt2);
  REQUIRE(u2);
  std::string none;
  const fusion::GraphFusion e2 = gpu::eager_reference(*u2, none);
  CHECK(none.empty());
  CHECK(e2.post_grad.size() ==
        fusion::fuse_unit(*u2, fusion::Mode::eager).front().post_grad.size());
}
