#pragma once
// Every plan of every unit of a sample in one mode, with the unit's symbol hints: what the code
// generator is run on in these tests; and the kernel of the group holding a node.

#include <catch2/catch.hpp>
#include <optional>

#include <algorithm>
#include <string>
#include <vector>

#include "fxscope/codegen/kernel_codegen.h"
#include "fxscope/fusion/unit_fusion.h"
#include "fxscope/graph/fx_readable_parser.h"
#include "fxscope/trace/trace_log.h"
#include "samples.h"

namespace fxscope::test {

struct PlannedGraph {
  std::string where;
  fusion::GraphFusion fusion;
  ops::SymbolHints hints;
};

inline std::vector<PlannedGraph> planned_graphs(const std::string& sample_name, fusion::Mode mode) {
  std::vector<PlannedGraph> out;
  auto log = trace::read_trace(sample(sample_name));
  if (!log) return out;
  for (const auto& unit : log->units()) {
    for (auto& f : fusion::fuse_unit(unit, mode)) {
      ops::SymbolHints hints = f.hints;
      PlannedGraph p{sample_name + " " + f.where, std::move(f), std::move(hints)};
      out.push_back(std::move(p));
    }
  }
  return out;
}

// The kernel of the group of PLANNED holding node NAME, generated with the default config.
inline codegen::GeneratedKernel kernel_of(const PlannedGraph& planned, const std::string& name,
                                          std::optional<codegen::LaunchConfig> config = {}) {
  const auto id = planned.fusion.post_grad.find(name);
  REQUIRE(id);
  for (const auto& group : planned.fusion.ours.groups) {
    if (!std::binary_search(group.nodes.begin(), group.nodes.end(), *id)) continue;
    codegen::CodegenOptions options;
    options.hints = planned.hints;
    options.config = config;
    auto k = codegen::generate(planned.fusion.post_grad, group, options);
    INFO((k ? std::string() : k.error().message));
    REQUIRE(k);
    return *k;
  }
  FAIL("no group holds " << name);
  return {};
}

// How many times WHAT occurs in TEXT (a kernel's source).
inline std::size_t occurrences(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (std::size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) {
    ++n;
  }
  return n;
}

inline const std::vector<std::string>& all_samples() {
  static const std::vector<std::string> names = {"graph_breaks",
                                                 "gpt2_12layer",
                                                 "gpt2_2layer",
                                                 "gpt2_2layer_eager_attention",
                                                 "gpt2_48layer",
                                                 "llama_48layer",
                                                 "max_autotune_mlp",
                                                 "pointwise_chain",
                                                 "reduce_overhead_dynamic",
                                                 "residual_mlp",
                                                 "residual_mlp_train",
                                                 "resnet18",
                                                 "resnet50"};
  return names;
}

// An AOT graph with the composite ops eager PyTorch runs as one kernel each (the samples' AOT
// graphs come decomposed, so these are written by hand).
inline graph::Graph composite_ops_graph() {
  const std::string code =
      "class GraphModule(torch.nn.Module):\n"
      "    def forward(self, arg0_1: \"f32[4, 128, 768][98304, 768, 1]cuda:0\", "
      "arg1_1: \"f32[768][1]cuda:0\", arg2_1: \"f32[768][1]cuda:0\"):\n"
      "        _softmax: \"f32[4, 128, 768][98304, 768, 1]cuda:0\" = "
      "torch.ops.aten._softmax.default(arg0_1, -1, False)\n"
      "        _log_softmax: \"f32[4, 128, 768][98304, 768, 1]cuda:0\" = "
      "torch.ops.aten._log_softmax.default(arg0_1, 1, False)\n"
      "        native_layer_norm = torch.ops.aten.native_layer_norm.default(arg0_1, [768], "
      "arg1_1, arg2_1, 1e-05)\n"
      "        getitem: \"f32[4, 128, 768][98304, 768, 1]cuda:0\" = native_layer_norm[0]\n"
      "        getitem_1: \"f32[4, 128, 1][128, 1, 1]cuda:0\" = native_layer_norm[1]\n"
      "        getitem_2: \"f32[4, 128, 1][128, 1, 1]cuda:0\" = native_layer_norm[2]\n"
      "        return (_softmax, _log_softmax, getitem, getitem_1, getitem_2)\n";
  return graph::parse_fx_readable(code, "composite ops").graph;
}

}  // namespace fxscope::test
