// A Swin transformer's patch merging gathers every other row and column (x[0::2, 0::2], ...);
// its backward scatters the four gradients back into zeros with strided slice_scatters and adds
// them. lowering.slice_scatter loads the gradient at FloorDiv(idx - start, step) under a mask
// of index tests, so each scatter makes a distinct load and about ten ops: Inductor stores the
// running sum once it passes realize_opcount_threshold, and the layer norm backward reading it
// loads the stored sum. Modelled as opaque loads of one buffer, the sum stayed inline, and every
// kernel reading it recomputed the scatters.

#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <string_view>

#include "corpus_log.h"
#include "fxscope/fusion/unit_fusion.h"
#include "fxscope/ops/op_registry.h"
#include "fxscope/trace/trace_log.h"
#include "graph_lookup.h"
#include "samples.h"

using namespace fxscope;

namespace {

bool holds_strided_scatter(const fusion::GraphFusion& f, const fusion::KernelGroup& g) {
  return std::any_of(g.nodes.begin(), g.nodes.end(), [&](graph::NodeId id) {
    const graph::Node& n = f.post_grad.node(id);
    return ops::op_base_name(n.target) == "slice_scatter" && n.args.size() > 5 &&
           n.args[5].kind() == graph::Argument::Kind::integer && n.args[5].as_int() > 1;
  });
}

}  // namespace

TEST_CASE("a patch merging's backward stores the sum of its strided scatters", "[fusion]") {
  if (!std::filesystem::exists(test::sample("corpus/tv_swin_t_train_bf16"))) {
    WARN("sample_graphs/corpus/ is absent from this checkout");
    return;
  }
  int kernels = 0;
  int exact = 0;
  test::for_each_inductor_kernel(
      "tv_swin_t_train_bf16", fusion::Mode::default_mode,
      [&](const fusion::GraphFusion& f, const fusion::KernelGroup& theirs) {
        if (!holds_strided_scatter(f, theirs)) return;
        ++kernels;
        INFO(theirs.name);
        const bool made = test::formed_exactly(f.ours, theirs);
        CHECK(made);
        exact += made ? 1 : 0;
      });
  CHECK(kernels == 81);
  CHECK(exact == kernels);
}
