// The f32 run that judges a low-precision mode (fxscope/gpu/f32_reference.h), planned for every
// corpus log's eager graphs without a GPU: widened, every group eager can run must still be made,
// or the comparison would fall back to the dtype's tolerance alone on that log.

#include <catch2/catch.hpp>

#include <iostream>

#include "fxscope/fusion/unit_fusion.h"
#include "fxscope/gpu/f32_reference.h"
#include "fxscope/gpu/run_unit.h"
#include "fxscope/gpu/step_plan.h"
#include "fxscope/gpu/training_pair.h"
#include "fxscope/gpu/unbacked_sizes.h"
#include "sample_graph.h"

using namespace fxscope;

TEST_CASE("every low-precision corpus graph plans in f32 as fully as eager does",
          "[gpu][corpus][coverage]") {
  std::size_t widened = 0;
  test::for_each_corpus_run_unit(
      [&](const std::string& name, const trace::CompileUnit& unit, const ops::SymbolHints& hints) {
        std::string note;
        std::vector<fusion::GraphFusion> graphs = {gpu::eager_reference(unit, note)};
        if (auto backward = gpu::backward_fusion(unit, fusion::Mode::default_mode)) {
          graphs.push_back(gpu::planned_as_eager(std::move(*backward)));
        }
        for (const fusion::GraphFusion& f : graphs) {
          auto wide = gpu::widened_to_f32(f.post_grad);
          if (!wide) continue;
          ++widened;
          const ops::SymbolHints at = gpu::with_upper_bounds(f.post_grad, hints);
          const auto eager = gpu::plan_steps(f.post_grad, f.ours, at, false, 1);
          fusion::GraphFusion w;
          w.post_grad = std::move(*wide);
          w.hints = f.hints;
          w = gpu::planned_as_eager(std::move(w));
          const auto f32 = gpu::plan_steps(w.post_grad, w.ours, at, false, 1);
          INFO(name << " " << f.where);
          for (const auto& s : f32.skipped) UNSCOPED_INFO(s.why);
          CHECK(f32.skipped.size() <= eager.skipped.size());
          CHECK(f32.ran_ops >= eager.ran_ops);
        }
      });
  std::cout << widened << " low-precision eager graphs of the corpus planned in f32\n";
  CHECK(widened > 20);
}
