#include "runtime/conv_bias.h"

#include <algorithm>
#include <set>
#include <vector>

#include "fxscope/ops/op_registry.h"

namespace fxscope::gpu {

// The bias of convolution CONV where an op computes it (a cast of the parameter), which a
// pointwise kernel can then compute and add after the library call; nullopt for any other node.
std::optional<graph::NodeId> conv_bias(const graph::Graph& g, graph::NodeId conv) {
  const graph::Node& n = g.node(conv);
  if (!n.is_op() || ops::op_base_name(n.target) != "convolution" || n.args.size() < 3 ||
      !n.args[2].is_node() || !g.node(n.args[2].as_node()).is_op()) {
    return std::nullopt;
  }
  return n.args[2].as_node();
}

// Whether CONV's bias is computed by another group of PLAN that also lists CONV: Inductor's
// convolution lowering then ran the convolution without the bias and adds it in that pointwise
// kernel, after the library call (a bf16 model casts each bias there).
bool bias_in_epilogue(const graph::Graph& g, const fusion::FusionPlan& plan, std::size_t conv_group,
                      graph::NodeId conv) {
  const auto bias = conv_bias(g, conv);
  if (!bias) return false;
  for (std::size_t i = 0; i < plan.groups.size(); ++i) {
    if (i == conv_group || plan.groups[i].kind == fusion::GroupKind::extern_kernel) continue;
    const auto& nodes = plan.groups[i].nodes;
    if (std::find(nodes.begin(), nodes.end(), *bias) != nodes.end() &&
        std::find(nodes.begin(), nodes.end(), conv) != nodes.end()) {
      return true;
    }
  }
  return false;
}

namespace {

// Whether CONV's buffer holds the value without its bias when a kernel reads it: the library
// call runs without the bias (bias_in_epilogue for the extern group that calls it; a template
// group lists a convolution among its origins but calls a GEMM) and no generated kernel stores
// the convolution's whole value back into it (a bias epilogue of the convolution's own, as
// Inductor's kernel `buf0 = buf0 + bias` does, which later readers then read whole).
bool holds_partial_value(const graph::Graph& g, const fusion::FusionPlan& plan,
                         graph::NodeId conv) {
  bool partial = false;
  for (std::size_t i = 0; i < plan.groups.size(); ++i) {
    const auto& group = plan.groups[i];
    const auto lists = [&](const std::vector<graph::NodeId>& v) {
      return std::find(v.begin(), v.end(), conv) != v.end();
    };
    if (group.kind == fusion::GroupKind::extern_kernel) {
      if (lists(group.nodes)) partial = partial || bias_in_epilogue(g, plan, i, conv);
    } else if (group.kind != fusion::GroupKind::template_gemm && lists(group.outputs)) {
      return false;
    }
  }
  return partial;
}

}  // namespace

// GROUP with the bias of each convolution it reads whose buffer holds it without its bias, and
// the views it reads that convolution through: the group's kernel then computes the bias and adds
// it to what it loads (codegen's epilogue_bias), as each of Inductor's kernels reading the
// convolution's buffer does. Without it, a kernel other than the one the bias's group names (an
// SE block's gate, a UNet's GroupNorm, ConvNeXt's stem recomputed in a later block) reads the
// partial value.
fusion::KernelGroup with_conv_biases(const graph::Graph& g, const fusion::FusionPlan& plan,
                                     fusion::KernelGroup group) {
  std::set<graph::NodeId> members(group.nodes.begin(), group.nodes.end());
  std::vector<graph::NodeId> added;
  for (const graph::NodeId n : group.nodes) {
    for (graph::NodeId in : g.inputs(n)) {
      std::vector<graph::NodeId> views;
      while (!members.count(in) && g.node(in).is_op() &&
             ops::classify(g.node(in).target).lowering == ops::Lowering::view &&
             !g.node(in).args.empty() && g.node(in).args[0].is_node()) {
        views.push_back(in);
        in = g.node(in).args[0].as_node();
      }
      if (members.count(in)) continue;
      const auto bias = conv_bias(g, in);
      if (!bias || members.count(*bias) || !holds_partial_value(g, plan, in)) continue;
      for (const graph::NodeId v : views) {
        if (members.insert(v).second) added.push_back(v);
      }
      if (members.insert(*bias).second) added.push_back(*bias);
    }
  }
  if (added.empty()) return group;
  group.nodes.insert(group.nodes.end(), added.begin(), added.end());
  std::sort(group.nodes.begin(), group.nodes.end());
  return group;
}

}  // namespace fxscope::gpu
