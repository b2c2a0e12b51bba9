// What `run` cannot run of each corpus log's default unit, known without a GPU: planned the way
// engine_run plans each mode (forward and backward), every group a step cannot be made for is
// listed with its reason, counted by reason. The ops left out may only go down.

#include <catch2/catch.hpp>

#include <filesystem>
#include <iostream>
#include <map>

#include "fxscope/core/text.h"
#include "fxscope/fusion/lowering_ops.h"
#include "fxscope/fusion/unit_fusion.h"
#include "fxscope/gpu/run_unit.h"
#include "fxscope/gpu/step_plan.h"
#include "fxscope/gpu/training_pair.h"
#include "fxscope/gpu/unbacked_sizes.h"
#include "sample_graph.h"

using namespace fxscope;

namespace {

// Causes the runtime leaves out by design, documented in docs/gpu-runtime.md: they count apart
// from the ratchet. Any other cause is a gap the ratchet holds.
bool documented_exclusion(const std::string& why) {
  return why.find(fusion::kUserTritonKernelNoRuntime) != std::string::npos ||
         why.find(fusion::kCustomOpNoRuntime) != std::string::npos;
}

// A reason without the group's name: "group 12 triton_poi_fused_x: nonzero has no kernel" ->
// "nonzero has no kernel", so that one cause counts once per group it stops.
std::string cause(const std::string& why) {
  const std::size_t colon = why.find(": ");
  return why.starts_with("group ") && colon != std::string::npos ? why.substr(colon + 2) : why;
}

}  // namespace

TEST_CASE("groups of corpus runs that cannot be planned, by cause", "[gpu][corpus][coverage]") {
  std::map<std::string, std::size_t> by_cause;
  std::size_t ops = 0;
  std::size_t ran = 0;
  std::size_t excluded = 0;  // ops of documented exclusions
  test::for_each_corpus_run_unit(
      [&](const std::string& name, const trace::CompileUnit& unit, const ops::SymbolHints& hints) {
        for (const fusion::Mode mode : fusion::kAllModes) {
          // What run plans: the forward (fuse_unit's first graph) and, for a training unit, the
          // backward (eager's from the AOT backward graph, which fuse_unit does not give).
          std::vector<fusion::GraphFusion> graphs = fusion::fuse_unit(unit, mode);
          if (graphs.size() > 1) graphs.resize(1);
          if (auto backward = gpu::backward_fusion(unit, mode))
            graphs.push_back(std::move(*backward));
          for (const auto& f : graphs) {
            // As a run plans its first call: sizes the data sets at their upper bounds.
            const auto s =
                gpu::plan_steps(f.post_grad, f.ours, gpu::with_upper_bounds(f.post_grad, hints),
                                mode == fusion::Mode::max_autotune, 1);
            ops += s.ops;
            ran += s.ran_ops;
            for (const auto& skip : s.skipped) {
              ++by_cause[cause(skip.why)];
              if (documented_exclusion(skip.why)) excluded += skip.ops;
              std::cout << name << " " << fusion::to_string(mode) << " " << f.where << ": "
                        << skip.why << " (" << skip.ops << " ops)\n";
            }
          }
        }
      });
  std::cout << ran << " of " << ops << " ops planned, " << excluded
            << " left out by design (a user's Triton kernel, a custom op)\n";
  for (const auto& [c, n] : by_cause) std::cout << n << "x " << c << "\n";
  CHECK(ops > 80000);
  // A user's Triton kernel and a custom op's Python body run on PyTorch only, by design.
  CHECK(excluded > 0);
  // Every other op is planned.
  CHECK(ops - ran - excluded == 0);
}
