// A sort along a dim of one element (flex attention's block mask made in the compiled forward
// sorts each row of a 1 x 1 dense mask): ir.Sort.create returns Pointwise copies, the values its
// input and the indices 0, inlined into their readers; no sort launches. The block mask's
// index_put loads its index tensors directly (output_indexer), so the fill its index is computed
// from fuses into the Scatter's kernel.

#include <catch2/catch.hpp>

#include <algorithm>
#include <string>

#include "corpus_log.h"
#include "fxscope/codegen/kernel_codegen.h"
#include "fxscope/fusion/lowering_ops.h"
#include "fxscope/fusion/unit_fusion.h"
#include "graph_lookup.h"

using namespace fxscope;

namespace {

// The compiled forward of the flex attention log: the graph that sorts.
const fusion::GraphFusion* forward_with_sort(const std::vector<fusion::GraphFusion>& fused) {
  for (const fusion::GraphFusion& f : fused) {
    if (f.post_grad.find("sort")) return &f;
  }
  return nullptr;
}

}  // namespace

TEST_CASE("a sort over one element is a Pointwise computed where its indices are read",
          "[fusion]") {
  auto log = test::corpus_log("hand_flex_attention_train_bf16");
  if (!log) return;
  const auto fused = fusion::fuse_unit(log->units().front(), fusion::Mode::default_mode);
  const fusion::GraphFusion* f = forward_with_sort(fused);
  REQUIRE(f != nullptr);
  const graph::NodeId sort = *f->post_grad.find("sort");
  CHECK(fusion::trivial_sort(f->post_grad, sort));
  // No launch of the sort alone: the int32 cast of its indices is a pointwise kernel carrying
  // the sort's origins (Inductor's `[num_blocks_in_row, col_indices, q_indices]` kernel).
  const fusion::KernelGroup* holder = nullptr;
  for (const fusion::KernelGroup& g : f->ours.groups) {
    if (!std::count(g.nodes.begin(), g.nodes.end(), sort)) continue;
    CHECK(holder == nullptr);
    holder = &g;
  }
  REQUIRE(holder != nullptr);
  CHECK(holder->kind == fusion::GroupKind::pointwise);
  CHECK(test::node_names(f->post_grad, *holder).contains("convert_element_type_7"));
  // The generated kernel computes the indices (0) inline: it loads nothing and stores the cast.
  const auto kernel = codegen::generate(f->post_grad, *holder, codegen::CodegenOptions{});
  REQUIRE(kernel);
  REQUIRE(kernel->params.size() == 1);
  CHECK(kernel->params.front().written);
  CHECK(f->post_grad.node(kernel->params.front().node).name == "convert_element_type_7");
  // The forward launches as many kernels as Inductor's (14), every generated one exact.
  CHECK(f->agreement.our_launches == f->agreement.inductor_launches);
  for (const fusion::KernelAgreement& k : f->agreement.kernels) CHECK(k.exact);
}

TEST_CASE("index_put loads its broadcast index tensors directly, so their producer fuses",
          "[fusion]") {
  auto log = test::corpus_log("hand_flex_attention_train_bf16");
  if (!log) return;
  const auto fused = fusion::fuse_unit(log->units().front(), fusion::Mode::default_mode);
  const fusion::GraphFusion* f = forward_with_sort(fused);
  REQUIRE(f != nullptr);
  // `full` (the block count, a graph output stored as it is lowered) is read through a view by
  // the `where` computing the column index: a load at the Scatter's own coordinates, which
  // matches full's store, so full's kernel and the Scatter are one (Inductor's
  // triton_poi_fused_arange_index_put_lt_new_zeros_ones_..._4).
  std::size_t both = 0;
  for (const fusion::KernelGroup& g : f->ours.groups) {
    const auto names = test::node_names(f->post_grad, g);
    if (names.contains("index_put")) {
      CHECK(names.contains("full"));
      ++both;
    }
  }
  CHECK(both == 1);
}
