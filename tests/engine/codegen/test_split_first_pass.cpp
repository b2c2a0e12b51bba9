// A split reduction's first pass visits every element once, so an element its group writes (a
// convolution's bias added in place before a group norm's statistics) is stored there: left out,
// the group norm after it read the convolution without its bias. The planner fuses no producer
// into the corpus's first passes (Inductor's first passes of these group norms read through
// re-indexed addresses), so the group here is a first pass with its producer merged in.
//
// A first pass split again leaves its partial states for a middle pass, which combines them into
// the slots the second pass reads: part-major, a middle row's state in the slot of its own first
// part.

#include <catch2/catch.hpp>

#include <algorithm>
#include <regex>
#include <string>

#include "codegen_samples.h"
#include "fxscope/codegen/kernel_codegen.h"
#include "fxscope/fusion/fusion_plan.h"

using namespace fxscope;

namespace {

bool contains(const std::vector<graph::NodeId>& v, graph::NodeId n) {
  return std::find(v.begin(), v.end(), n) != v.end();
}

}  // namespace

TEST_CASE("a split reduction's first pass stores the elements its group writes", "[codegen]") {
  int checked = 0;
  for (const auto& planned :
       test::planned_graphs("corpus/hand_unet_train_cl_bf16", fusion::Mode::default_mode)) {
    const graph::Graph& g = planned.fusion.post_grad;
    const auto& groups = planned.fusion.ours.groups;
    for (const auto& first : groups) {
      if (!first.note.starts_with(fusion::kSplitFirstPassNote)) continue;
      // The pointwise group writing the elements the first pass reduces (a convolution's bias).
      const auto producer = std::find_if(groups.begin(), groups.end(), [&](const auto& p) {
        return p.kind == fusion::GroupKind::pointwise && p.numel == first.numel * first.rnumel &&
               std::any_of(p.outputs.begin(), p.outputs.end(),
                           [&](graph::NodeId o) { return contains(first.inputs, o); });
      });
      if (producer == groups.end()) continue;
      fusion::KernelGroup merged = first;
      for (const graph::NodeId n : producer->nodes) {
        if (!contains(merged.nodes, n)) merged.nodes.push_back(n);
      }
      std::sort(merged.nodes.begin(), merged.nodes.end());
      merged.inputs.clear();
      for (const auto* from : {&producer->inputs, &first.inputs}) {
        for (const graph::NodeId n : *from) {
          if (!contains(producer->outputs, n) && !contains(merged.inputs, n)) {
            merged.inputs.push_back(n);
          }
        }
      }
      for (const graph::NodeId o : producer->outputs) merged.outputs.push_back(o);
      codegen::CodegenOptions options;
      options.hints = planned.hints;
      const auto kernel = codegen::generate(g, merged, options);
      INFO(planned.where << " " << first.name << " with " << producer->name);
      REQUIRE(kernel);
      for (const auto& p : kernel->params) {
        if (!p.written || p.scratch_elements > 0) continue;
        INFO(planned.where << " " << first.name << " writes " << g.node(p.node).name);
        const std::string name = "p_" + g.node(p.node).name;
        CHECK(std::regex_search(kernel->source, std::regex(name + "\\[[^;]*\\] = ")));
        ++checked;
      }
    }
  }
  CHECK(checked >= 1);  // the UNet's convolutions before each group norm
}

TEST_CASE("a first pass split again hands its partial states on through a middle pass",
          "[codegen]") {
  int chains = 0;
  for (const auto& planned :
       test::planned_graphs("corpus/hand_unet_train_cl_bf16", fusion::Mode::default_mode)) {
    const graph::Graph& g = planned.fusion.post_grad;
    const auto& groups = planned.fusion.ours.groups;
    for (std::size_t i = 0; i < groups.size(); ++i) {
      if (groups[i].note != fusion::kSplitMiddlePassNote) continue;
      const auto& middle = groups[i];
      // The first pass before it and the second pass after it, of the same reduction.
      const auto first = std::find_if(groups.begin(), groups.end(), [&](const auto& f) {
        return f.note.starts_with(fusion::kSplitFirstPassNote) &&
               f.numel == middle.numel * middle.rnumel;
      });
      const auto second =
          std::find_if(groups.begin() + static_cast<std::ptrdiff_t>(i) + 1, groups.end(),
                       [&](const auto& s) { return s.note == fusion::kSplitSecondPassNote; });
      REQUIRE(first != groups.end());
      REQUIRE(second != groups.end());
      const std::int64_t rows = second->numel;
      const std::int64_t split = second->rnumel;
      INFO(planned.where << " " << first->name << " / " << middle.name << " / " << second->name);
      REQUIRE(middle.numel == rows * split);
      codegen::CodegenOptions options;
      options.hints = planned.hints;
      const auto a = codegen::generate(g, *first, options);
      const auto b = codegen::generate(g, middle, options);
      const auto c = codegen::generate(g, *second, options);
      REQUIRE(a);
      REQUIRE(b);
      REQUIRE(c);
      const std::string r = std::to_string(rows);
      const std::string m = std::to_string(middle.numel);
      // First pass: part p of row x at p * rows + x.
      CHECK(std::regex_search(a->source, std::regex("scratch_\\w+\\[\\(part \\* " + r +
                                                    " \\+ xrow\\) \\* \\d \\+ 0\\] = ")));
      // Middle pass: row (x, k) combines the slots row + j * middle rows, then stores at row.
      CHECK(std::regex_search(
          b->source, std::regex("scratch_\\w+\\[\\(rr \\* " + m + " \\+ row\\) \\* \\d \\+ 0\\]")));
      CHECK(std::regex_search(b->source, std::regex("scratch_\\w+\\[row \\* \\d \\+ 0\\] = ")));
      // Second pass: its SPLIT states of row x at k * rows + x.
      CHECK(std::regex_search(
          c->source, std::regex("scratch_\\w+\\[\\(rr \\* " + r + " \\+ row\\) \\* \\d \\+ 0\\]")));
      // One scratch for all three: the first pass's is the largest.
      const auto scratch_of = [](const codegen::GeneratedKernel& k) {
        std::int64_t n = 0;
        for (const auto& p : k.params) n = std::max(n, p.scratch_elements);
        return n;
      };
      CHECK(scratch_of(*a) >= scratch_of(*b));
      CHECK(scratch_of(*b) >= scratch_of(*c));
      ++chains;
    }
  }
  CHECK(chains >= 3);  // the group norms over the most elements
}
