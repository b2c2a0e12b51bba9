// What a mode of `run` executes for each corpus log's default unit, planned without a GPU: every
// buffer a step reads is written by an earlier step or is an input. A read before any write runs
// on uninitialised memory, and the mode's outputs then differ from eager's for a reason that is
// fxscope's, not Inductor's.

#include <catch2/catch.hpp>

#include <filesystem>
#include <iostream>

#include "fxscope/core/text.h"
#include "fxscope/fusion/unit_fusion.h"
#include "fxscope/gpu/run_unit.h"
#include "fxscope/gpu/step_plan.h"
#include "sample_graph.h"

using namespace fxscope;

TEST_CASE("no step of a corpus run reads a buffer before a step writes it", "[gpu][corpus]") {
  std::size_t graphs = 0;
  std::vector<std::string> reads_first;
  test::for_each_corpus_run_unit(
      [&](const std::string& name, const trace::CompileUnit& unit, const ops::SymbolHints& hints) {
        for (const fusion::Mode mode : fusion::kAllModes) {
          for (const auto& f : fusion::fuse_unit(unit, mode)) {
            ++graphs;
            const auto s =
                gpu::plan_steps(f.post_grad, f.ours, hints, mode == fusion::Mode::max_autotune, 1);
            // A skipped group's outputs are read unwritten too; that is the skip's consequence,
            // reported as the mode's coverage. Here: buffers no step was ever meant to write.
            if (!s.skipped.empty()) continue;
            for (const auto& r : s.read_before_write) {
              reads_first.push_back(name + " " + std::string(fusion::to_string(mode)) + " " +
                                    f.where + ": " + r);
            }
          }
        }
      });
  for (const auto& r : reads_first) std::cout << r << "\n";
  CHECK(graphs > 200);
  CHECK(reads_first.empty());
}
