// A split reduction's first pass visits every element once, so an element its group writes (a
// convolution's bias added in place before a group norm's statistics) is stored there: left out,
// the group norm after it read the convolution without its bias.

#include <catch2/catch.hpp>

#include <regex>
#include <string>

#include "codegen_samples.h"
#include "fxscope/codegen/kernel_codegen.h"
#include "fxscope/fusion/fusion_plan.h"

using namespace fxscope;

TEST_CASE("a split reduction's first pass stores the elements its group writes", "[codegen]") {
  int checked = 0;
  for (const std::string sample : {"corpus/hand_unet_train_cl_bf16", "corpus/hf_t5_train_bf16"}) {
    for (const auto& planned : test::planned_graphs(sample, fusion::Mode::default_mode)) {
      const graph::Graph& g = planned.fusion.post_grad;
      for (const auto& group : planned.fusion.ours.groups) {
        if (!group.note.starts_with(fusion::kSplitFirstPassNote)) continue;
        codegen::CodegenOptions options;
        options.hints = planned.hints;
        const auto kernel = codegen::generate(g, group, options);
        if (!kernel) continue;
        for (const auto& p : kernel->params) {
          if (!p.written || p.scratch_elements > 0) continue;
          INFO(planned.where << " " << group.name << " writes " << g.node(p.node).name);
          const std::string name = "p_" + g.node(p.node).name;
          CHECK(std::regex_search(kernel->source, std::regex(name + "\\[[^;]*\\] = ")));
          ++checked;
        }
      }
    }
  }
  CHECK(checked >= 1);  // the UNet's convolutions before each group norm
}
