// What a mode of `run` executes for each corpus log's default unit, planned without a GPU: every
// buffer a step reads is written by an earlier step or is an input. A read before any write runs
// on uninitialised memory, and the mode's outputs then differ from eager's for a reason that is
// fxscope's, not Inductor's.

#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <iostream>
#include <map>
#include <set>

#include "fxscope/codegen/kernel_codegen.h"
#include "fxscope/core/text.h"
#include "fxscope/fusion/unit_fusion.h"
#include "fxscope/gpu/run_unit.h"
#include "fxscope/gpu/step_plan.h"
#include "fxscope/ops/op_registry.h"
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

TEST_CASE("a planned Scatter scatters into a buffer a step before it filled with self",
          "[gpu][corpus]") {
  // A fused Scatter (lowering.scatter: scatter_(clone(self), ...)) runs as two launches: the
  // clone's kernel copies self into the output, the Scatter's kernel stores only the scattered
  // elements. Without the copy, the elements not scattered are whatever the buffer held.
  std::size_t scatters = 0;
  std::vector<std::string> unfilled;
  test::for_each_corpus_run_unit(
      [&](const std::string& name, const trace::CompileUnit& unit, const ops::SymbolHints& hints) {
        for (const fusion::Mode mode : fusion::kAllModes) {
          for (const auto& f : fusion::fuse_unit(unit, mode)) {
            const auto s =
                gpu::plan_steps(f.post_grad, f.ours, hints, mode == fusion::Mode::max_autotune, 1);
            std::set<graph::NodeId> filled;
            for (const auto& step : s.steps) {
              if (step.variants.empty()) continue;
              const std::string& source = step.variants.front().source;
              for (const graph::NodeId w : step.writes) {
                if (!codegen::is_scatter(f.post_grad.node(w))) continue;
                const auto has = [&](const char* what) {
                  return source.find(what) != std::string::npos;
                };
                if (has("scatter's self copied") || has("self copied first")) {
                  filled.insert(w);
                } else if (has("elements into")) {
                  ++scatters;
                  if (!filled.count(w)) {
                    unfilled.push_back(name + " " + std::string(fusion::to_string(mode)) + " " +
                                       f.where + ": " + f.post_grad.node(w).name);
                  }
                }
              }
            }
          }
        }
      });
  for (const auto& u : unfilled) std::cout << u << "\n";
  CHECK(scatters > 0);
  CHECK(unfilled.empty());
}

TEST_CASE("a kernel reading a convolution adds its bias exactly when the buffer lacks it",
          "[gpu][corpus]") {
  // The library call leaves a convolution without the bias a pointwise kernel adds (Inductor's
  // lowering). Until a kernel stores the whole value back into the buffer (the convolution's own
  // bias epilogue), each generated kernel reading it computes the bias from what the bias is
  // computed from (a cast of the parameter) and adds it; after, none may add it again. ConvNeXt's
  // stem, recomputed in a later block's GEMM epilogue, read the partial value; EfficientNet's SE
  // gates and the UNet's group norms added the bias to a value that already had it.
  std::size_t partial_reads = 0;
  std::size_t whole_reads = 0;
  std::vector<std::string> wrong;
  test::for_each_corpus_run_unit([&](const std::string& name, const trace::CompileUnit& unit,
                                     const ops::SymbolHints& hints) {
    for (const fusion::Mode mode : fusion::kAllModes) {
      for (const auto& f : fusion::fuse_unit(unit, mode)) {
        const graph::Graph& g = f.post_grad;
        const auto s = gpu::plan_steps(g, f.ours, hints, mode == fusion::Mode::max_autotune, 1);
        // Each convolution with a computed bias, and whether its buffer lacks the bias now
        // (unwritten before its library call).
        std::map<graph::NodeId, bool> partial;
        for (graph::NodeId n = 0; n < g.size(); ++n) {
          const graph::Node& node = g.node(n);
          if (node.is_op() && ops::op_base_name(node.target) == "convolution" &&
              node.args.size() > 2 && node.args[2].is_node() &&
              g.node(node.args[2].as_node()).is_op()) {
            partial[n] = false;
          }
        }
        for (const auto& step : s.steps) {
          const auto has = [](const std::vector<graph::NodeId>& v, graph::NodeId n) {
            return std::find(v.begin(), v.end(), n) != v.end();
          };
          for (auto& [conv, lacks] : partial) {
            const graph::NodeId bias = g.node(conv).args[2].as_node();
            if (!step.variants.empty() && has(step.reads, conv)) {
              const auto from = g.inputs(bias);
              const bool adds = has(step.reads, bias) ||
                                std::all_of(from.begin(), from.end(),
                                            [&](graph::NodeId n) { return has(step.reads, n); });
              (lacks ? partial_reads : whole_reads) += 1;
              if (adds != lacks) {
                wrong.push_back(name + " " + std::string(fusion::to_string(mode)) + " " + f.where +
                                ": " + step.name + (lacks ? " lacks " : " adds ") +
                                g.node(bias).name + " reading " + g.node(conv).name);
              }
            }
            if (has(step.partial_writes, conv)) {
              lacks = true;
            } else if (has(step.writes, conv)) {
              lacks = false;
            }
          }
        }
      }
    }
  });
  for (const auto& w : wrong) std::cout << w << "\n";
  CHECK(partial_reads > 0);
  CHECK(whole_reads > 0);
  CHECK(wrong.empty());
}
