// What a mode of `run` executes for each corpus log's default unit, planned without a GPU: every
// buffer a step reads is written by an earlier step or is an input. A read before any write runs
// on uninitialised memory, and the mode's outputs then differ from eager's for a reason that is
// fxscope's, not Inductor's.

#include <catch2/catch.hpp>

#include <algorithm>
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

TEST_CASE("a split reduction's two passes share one scratch buffer alive from one to the other",
          "[gpu][corpus]") {
  std::size_t second_passes = 0;
  std::vector<std::string> unshared;
  test::for_each_corpus_run_unit(
      [&](const std::string& name, const trace::CompileUnit& unit, const ops::SymbolHints& hints) {
        for (const auto& f : fusion::fuse_unit(unit, fusion::Mode::default_mode)) {
          const auto s = gpu::plan_steps(f.post_grad, f.ours, hints, false, 1);
          const auto buffers = gpu::scratch_buffers(s.steps);
          // Library steps (GEMMs, convolutions) have no generated variant.
          const auto params = [&](std::size_t i) {
            return s.steps[i].variants.empty() ? std::vector<codegen::KernelParam>{}
                                               : s.steps[i].variants.front().params;
          };
          const auto writes_scratch = [&](std::size_t i, const codegen::KernelParam& p) {
            const auto ps = params(i);
            return std::any_of(ps.begin(), ps.end(), [&](const codegen::KernelParam& q) {
              return q.node == p.node && q.dtype == p.dtype && q.written && q.scratch_elements > 0;
            });
          };
          for (std::size_t i = 0; i < s.steps.size(); ++i) {
            for (const auto& p : params(i)) {
              // The second pass reads the partial states the first pass wrote.
              if (p.scratch_elements <= 0 || p.written) continue;
              ++second_passes;
              const auto b = std::find_if(buffers.begin(), buffers.end(), [&](const auto& x) {
                return x.node == p.node && x.dtype == p.dtype;
              });
              const bool shared = b != buffers.end() && b->first_step < i && b->last_step >= i &&
                                  writes_scratch(b->first_step, p);
              if (!shared) {
                std::string writer = "none";
                for (std::size_t j = 0; j < s.steps.size(); ++j) {
                  if (writes_scratch(j, p))
                    writer = std::to_string(j) + " " + s.steps[j].group_name;
                }
                unshared.push_back(name + " " + f.where + " step " + std::to_string(i) + " " +
                                   s.steps[i].group_name +
                                   " reads partial states written by step " + writer);
              }
            }
          }
        }
      });
  for (const auto& u : unshared) std::cout << u << "\n";
  // A second pass whose first pass the plan lacks is skipped and named, never run on scratch
  // nothing wrote.
  CHECK(second_passes > 20);  // the training backwards' bias and norm-weight gradients
  CHECK(unshared.empty());
}
