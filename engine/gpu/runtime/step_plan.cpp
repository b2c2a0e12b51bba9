#include "fxscope/gpu/step_plan.h"

#include <algorithm>
#include <array>
#include <map>
#include <set>
#include <string_view>

#include "fxscope/codegen/padded_outputs.h"
#include "fxscope/codegen/rng.h"
#include "fxscope/core/text.h"
#include "fxscope/fusion/lowering_ops.h"
#include "fxscope/gpu/host_values.h"
#include "fxscope/gpu/unbacked_sizes.h"
#include "runtime/conv_bias.h"
#include "runtime/step_order.h"
#include "runtime/subgraph_step.h"
#include "runtime/unwritten_reads.h"

namespace fxscope::gpu {
namespace {

bool is_library_op(const std::string& target) {
  return is_gemm_target(target) || is_conv_target(target) || is_conv_backward_target(target) ||
         is_attention_target(target);
}

std::string group_where(const fusion::KernelGroup& g) {
  return "group " + std::to_string(g.id) + " " + g.name;
}

void add_unique(std::vector<graph::NodeId>& v, graph::NodeId n) {
  if (std::find(v.begin(), v.end(), n) == v.end()) v.push_back(n);
}

Result<StepPlan> library_step(const graph::Graph& g, graph::NodeId anchor,
                              const ops::SymbolHints& hints, fusion::Mode mode) {
  const std::string& target = g.node(anchor).target;
  StepPlan s;
  if (is_gemm_target(target)) {
    auto spec = describe_gemm(g, anchor, hints);
    if (!spec) return spec.error();
    s.kind = StepKind::gemm;
    s.name = "cublasLt " + spec->op;
    s.reads = {spec->a.node, spec->b.node};
    if (spec->bias_vector) s.reads.push_back(*spec->bias_vector);
    if (spec->bias_matrix) s.reads.push_back(spec->bias_matrix->node);
    s.writes = {spec->out.node};
    s.gemm = std::move(*spec);
  } else if (is_conv_target(target)) {
    auto spec = describe_conv(g, anchor, hints);
    if (!spec) return spec.error();
    s.kind = StepKind::conv;
    s.name = "cudnn convolution";
    s.reads = {spec->x, spec->w};
    if (spec->bias) s.reads.push_back(*spec->bias);
    s.writes = {spec->out};
    s.conv = std::move(*spec);
  } else if (is_conv_backward_target(target)) {
    auto spec = describe_conv_backward(g, anchor, hints);
    if (!spec) return spec.error();
    s.kind = StepKind::conv_backward;
    s.name = "cudnn convolution backward";
    s.reads = {spec->conv.out, spec->conv.x, spec->conv.w};
    for (const auto& grad : {spec->grad_x, spec->grad_w, spec->grad_bias}) {
      if (grad) s.writes.push_back(*grad);
    }
    s.conv_backward = std::move(*spec);
  } else {
    auto spec = describe_attention(g, anchor, hints);
    if (!spec) return spec.error();
    // Eager keeps the f32 kernel, the reference every compiled mode's outputs are compared
    // against: the tensor-core form is checked by each run as the tiled one is.
    spec->tensor_cores =
        mode != fusion::Mode::eager && attention_mma_enabled() && attention_mma_fits(*spec);
    spec->tiled = !spec->tensor_cores && mode != fusion::Mode::eager && attention_tiles_fit(*spec);
    s.kind = StepKind::attention;
    // The form that ran is named, so that two runs' kernel tables say which attention they timed.
    s.name = spec->backward       ? "fxscope_attention backward"
             : spec->tensor_cores ? "fxscope_attention on tensor cores"
                                  : "fxscope_attention";
    s.reads = {spec->q.node, spec->k.node, spec->v.node};
    if (spec->bias) s.reads.push_back(spec->bias->node);
    if (spec->backward) {
      s.reads.insert(s.reads.end(), {spec->grad_out.node, spec->fwd_out.node, spec->lse->node});
      s.writes = {spec->dq.node, spec->dk.node, spec->dv.node};
    } else {
      s.writes = {spec->out.node};
      if (spec->lse) s.writes.push_back(spec->lse->node);
      s.writes.insert(s.writes.end(), spec->zeroed.begin(), spec->zeroed.end());
    }
    s.attention = std::move(*spec);
  }
  return s;
}

Result<StepPlan> generated_step(const graph::Graph& g, const fusion::KernelGroup& group,
                                const ops::SymbolHints& hints, bool tune, bool clusters,
                                std::uint64_t run_seed) {
  codegen::CodegenOptions options;
  options.hints = hints;
  options.clusters = clusters;
  options.run_seed = run_seed;
  auto first = codegen::generate(g, group, options);
  if (!first) return first.error();
  StepPlan s;
  s.kind = StepKind::generated;
  s.name = first->entry;
  for (const auto& p : first->params) {
    if (p.scratch_elements > 0) continue;
    (p.written ? s.writes : s.reads).push_back(p.node);
  }
  s.variants.push_back(std::move(*first));
  if (tune) {
    for (const auto& config : codegen::candidates(g, group, hints)) {
      if (config == s.variants.front().config) continue;
      options.config = config;
      if (auto k = codegen::generate(g, group, options)) s.variants.push_back(std::move(*k));
    }
  }
  return s;
}

// The nodes of a GEMM template group that consume the product: an epilogue kernel after the
// GEMM. The planner also lists the template's prologue (the ops producing its operands, a layer
// norm before a linear); those run in the groups that produce them, or, where no other group
// computes them (a cast Inductor fuses into the template's loads), in a prologue kernel before
// the GEMM (prologue_of).
Result<fusion::KernelGroup> epilogue_of(const graph::Graph& g, const fusion::FusionPlan& plan,
                                        std::size_t index, graph::NodeId anchor) {
  const fusion::KernelGroup& group = plan.groups[index];
  fusion::KernelGroup e = group;
  e.name = group.name + "_epilogue";
  e.kind = fusion::GroupKind::pointwise;
  e.nodes.clear();
  std::set<graph::NodeId> after = {anchor};
  for (const graph::NodeId n : group.nodes) {  // sorted: producers come first
    if (n == anchor) continue;
    const auto in = g.inputs(n);
    const bool consumes =
        std::any_of(in.begin(), in.end(), [&](graph::NodeId x) { return after.count(x) > 0; });
    if (consumes) {
      after.insert(n);
      // Views too: the kernel reads the product through them (a permute of the scaled q).
      e.nodes.push_back(n);
    }
  }
  // The group's pointwise nodes the epilogue reads that do not consume the product (a GELU's
  // input recomputed in a backward epilogue): Inductor inlines them into the epilogue, and so
  // does this kernel. Another group may also list them without storing them.
  std::set<graph::NodeId> needed;
  for (const graph::NodeId n : e.nodes) {
    for (const graph::NodeId in : g.inputs(n)) needed.insert(in);
  }
  for (auto it = group.nodes.rbegin(); it != group.nodes.rend(); ++it) {
    const graph::NodeId n = *it;
    if (after.count(n) || !needed.count(n) || !g.node(n).is_op()) continue;
    const ops::OpInfo info = ops::classify(g.node(n).target);
    if (ops::reduces(info.lowering) || info.lowering == ops::Lowering::extern_kernel) continue;
    e.nodes.push_back(n);
    for (const graph::NodeId in : g.inputs(n)) needed.insert(in);
  }
  std::sort(e.nodes.begin(), e.nodes.end());
  const std::set<graph::NodeId> members(e.nodes.begin(), e.nodes.end());
  e.inputs.clear();
  for (const graph::NodeId n : e.nodes) {
    for (const graph::NodeId in : g.inputs(n)) {
      if (!members.count(in)) add_unique(e.inputs, in);
    }
  }
  std::erase_if(e.outputs, [&](graph::NodeId n) { return !members.count(n); });
  e.rnumel = 1;
  return e;
}

// The nodes of a GEMM template group that feed its operands and that no other group computes:
// Inductor's prologue fusion applies them as the template loads its operands; here one kernel
// computes them into their buffers before the GEMM reads them. Empty when every prologue node is
// computed elsewhere. A prologue that reduces or calls a library (a layer norm or a GEMM no
// other group lists) is an error,
// never a guess.
Result<fusion::KernelGroup> prologue_of(const graph::Graph& g, const fusion::FusionPlan& plan,
                                        std::size_t index, graph::NodeId anchor,
                                        const std::vector<bool>& is_view) {
  const fusion::KernelGroup& group = plan.groups[index];
  fusion::KernelGroup p = group;
  p.name = group.name + "_prologue";
  p.kind = fusion::GroupKind::pointwise;
  p.nodes.clear();
  std::set<graph::NodeId> elsewhere;
  std::set<graph::NodeId> stored_before;  // outputs of the groups that run before this one
  for (std::size_t i = 0; i < plan.groups.size(); ++i) {
    if (i != index) elsewhere.insert(plan.groups[i].nodes.begin(), plan.groups[i].nodes.end());
    if (i < index) {
      stored_before.insert(plan.groups[i].outputs.begin(), plan.groups[i].outputs.end());
    }
  }
  std::set<graph::NodeId> after = {anchor};
  for (const graph::NodeId n : group.nodes) {  // sorted: producers come first
    if (n == anchor) continue;
    const auto in = g.inputs(n);
    if (std::any_of(in.begin(), in.end(), [&](graph::NodeId x) { return after.count(x) > 0; })) {
      after.insert(n);
      continue;
    }
    if (is_view[n]) {
      // A view of a value the prologue computes is that value, read where it is computed.
      const auto from_prologue = [&](graph::NodeId x) {
        return std::find(p.nodes.begin(), p.nodes.end(), x) != p.nodes.end();
      };
      if (std::any_of(in.begin(), in.end(), from_prologue)) p.nodes.push_back(n);
      continue;
    }
    if (!g.node(n).is_op() || elsewhere.count(n)) continue;
    if (ops::reduces(ops::classify(g.node(n).target).lowering) || is_library_op(g.node(n).target)) {
      return make_error("the template's prologue node " + g.node(n).name +
                        " is computed by no other group");
    }
    p.nodes.push_back(n);
  }
  const std::set<graph::NodeId> members(p.nodes.begin(), p.nodes.end());
  p.inputs.clear();
  p.outputs.clear();
  // Only a prologue over the graph's inputs (a weight's cast) or over what an earlier group
  // stores (another GEMM's product) is run so: one reading what this group's own epilogue lists
  // (a block's residual the planner's origins put here) would read it before any kernel writes
  // it. Over a reshape no strides express (a backward's transposed activation, which a step of
  // its own copies first), what another group computes is read too.
  const auto from_inputs = [&](graph::NodeId in) {
    bool copied = false;  // through a reshape no strides express
    while (!members.count(in) && !g.inputs(in).empty()) {
      if (!is_view[in]) {
        if (!ops::is_view_op(g.node(in))) break;
        copied = true;
      }
      in = g.inputs(in).front();
    }
    return members.count(in) > 0 || !g.node(in).is_op() || stored_before.count(in) > 0 ||
           (copied && elsewhere.count(in) > 0);
  };
  for (const graph::NodeId n : p.nodes) {
    for (const graph::NodeId in : g.inputs(n)) {
      if (!from_inputs(in)) {
        return make_error("the template's prologue node " + g.node(n).name + " reads " +
                          g.node(in).name + ", which no other group computes first");
      }
      if (!members.count(in)) add_unique(p.inputs, in);
    }
    bool read_outside = false;
    for (graph::NodeId u = n + 1; u < g.size() && !read_outside; ++u) {
      const auto in = g.inputs(u);
      read_outside = !members.count(u) && std::find(in.begin(), in.end(), n) != in.end();
    }
    if (read_outside) p.outputs.push_back(n);
  }
  p.rnumel = 1;
  return p;
}

// GROUP (plan.groups[INDEX]) with, among its outputs, each reduction it computes that a later
// pointwise group also lists: Inductor put the reduction's final step (a mean's division) in that
// kernel, which the planner records by listing the reduction in both, and the pointwise kernel
// reads the reduction's buffer (codegen computes a reduction in a pointwise group elsewhere).
// A reduction a group before computed whole (not a split's partial pass) is among this one's
// nodes as an origin of something it computes (an SE block's mean behind a convolution's bias
// epilogue): this group stores none of it.
fusion::KernelGroup with_read_reductions(const graph::Graph& g, const fusion::FusionPlan& plan,
                                         std::size_t index) {
  fusion::KernelGroup group = plan.groups[index];
  const auto lists = [&](std::size_t i, graph::NodeId n) {
    const fusion::KernelGroup& other = plan.groups[i];
    if (other.note.starts_with(fusion::kSplitFirstPassNote) ||
        other.note == fusion::kSplitMiddlePassNote) {
      return false;
    }
    return std::find(other.nodes.begin(), other.nodes.end(), n) != other.nodes.end();
  };
  for (const graph::NodeId n : plan.groups[index].nodes) {
    if (!g.node(n).is_op() || !ops::reduces(ops::classify(g.node(n).target).lowering)) continue;
    bool listed_before = false;
    for (std::size_t i = 0; i < index && !listed_before; ++i) listed_before = lists(i, n);
    if (listed_before) continue;
    for (std::size_t i = index + 1; i < plan.groups.size(); ++i) {
      const auto& other = plan.groups[i];
      if (other.kind == fusion::GroupKind::pointwise &&
          std::find(other.nodes.begin(), other.nodes.end(), n) != other.nodes.end()) {
        add_unique(group.outputs, n);
      }
    }
  }
  return group;
}

// A value the plan computes in no kernel of its own, made by one generated copy kernel run just
// before READER (its first reader), once its inputs exist:
// - a cat whose parts other kernels realise: Inductor lowers it as a ConcatKernel, each part's
//   kernel storing straight into its slice of the cat's buffer, and no kernel names the cat. The
//   runtime keeps each part in its own buffer.
// - a reshape that no strides over its input express (codegen::alias_of): Inductor lays the
//   input out so the reshape is a view of it (a flexible layout frozen contiguous for the
//   reader), where the runtime keeps the input in its recorded strides and copies.
template <class Base>
std::optional<StepPlan> materialize_step(const graph::Graph& g, graph::NodeId node,
                                         const StepPlan& reader, const std::vector<bool>& written,
                                         const Base& base, const ops::SymbolHints& hints,
                                         std::uint64_t run_seed) {
  const graph::Node& n = g.node(node);
  if (!n.is_op()) return std::nullopt;
  const bool cat = ops::op_base_name(n.target) == "cat";
  // The views down to the first one with an alias (a transpose of the copied reshape included):
  // one kernel computes them from that alias.
  std::vector<graph::NodeId> chain;
  graph::NodeId from = node;
  while (!cat && ops::is_view_op(g.node(from)) && !codegen::alias_of(g, from, hints) &&
         g.inputs(from).size() == 1) {
    chain.insert(chain.begin(), from);
    from = g.inputs(from).front();
  }
  const bool copied = std::any_of(chain.begin(), chain.end(), [&](graph::NodeId c) {
    const std::string_view op = ops::op_base_name(g.node(c).target);
    return op == "view" || op == "reshape" || op == "_unsafe_view";
  });
  if (!cat && !copied) return std::nullopt;
  fusion::KernelGroup k;
  k.id = reader.group;
  k.name = n.name + (cat ? "_concat" : "_copy");
  k.kind = fusion::GroupKind::pointwise;
  k.nodes = cat ? std::vector<graph::NodeId>{node} : chain;
  for (const graph::NodeId in : cat ? g.inputs(node) : std::vector<graph::NodeId>{from}) {
    if (!written[base(in)]) return std::nullopt;
    add_unique(k.inputs, in);
  }
  k.outputs = {node};
  codegen::CodegenOptions options;
  options.hints = hints;
  options.run_seed = run_seed;
  auto kernel = codegen::generate(g, k, options);
  if (!kernel) return std::nullopt;
  StepPlan s;
  s.kind = StepKind::generated;
  s.name = kernel->entry;
  for (const auto& p : kernel->params) {
    if (p.scratch_elements == 0) (p.written ? s.writes : s.reads).push_back(p.node);
  }
  s.variants.push_back(std::move(*kernel));
  s.group = reader.group;
  s.group_name = k.name + (cat ? " (Inductor's parts write in place)"
                               : " (Inductor lays the input out as the reshape reads it)");
  s.nodes = {node};
  return s;
}

// max-autotune: a GEMM step directly followed by the kernel that reads its product is offered
// with that kernel in cuBLASLt's epilogue where the kernel is act(product + bias).
void offer_gemm_epilogues(const graph::Graph& g, PlannedSteps& out, const ops::SymbolHints& hints) {
  for (std::size_t i = 0; i + 1 < out.steps.size(); ++i) {
    StepPlan& gemm = out.steps[i];
    const StepPlan& next = out.steps[i + 1];
    if (gemm.kind != StepKind::gemm || next.kind != StepKind::generated) continue;
    const graph::NodeId product = gemm.gemm->out.node;
    if (std::find(next.reads.begin(), next.reads.end(), product) == next.reads.end()) continue;
    auto m = match_gemm_epilogue(g, product, *gemm.gemm, next.nodes, next.writes, hints);
    if (!m) {
      gemm.epilogue_note = m.error().message;
      continue;
    }
    gemm.writes.push_back(m->out);
    gemm.fused_epilogue = std::move(*m);
  }
}

// Whether META's sizes or strides name the symbol SYM.
bool sized_by(const graph::TensorMeta& meta, const std::string& sym) {
  const auto names = [&](const graph::Dim& d) { return text::contains_identifier(d.expr, sym); };
  return std::any_of(meta.sizes.begin(), meta.sizes.end(), names) ||
         std::any_of(meta.strides.begin(), meta.strides.end(), names);
}

// A group of host scalars only (a symbolic size, arithmetic and comparisons of sizes, a runtime
// assertion on them, `.item()` of a one-element tensor that kernels then read on the device):
// "" when nothing needs launching, the reason when a value is not known before the run (a
// size computed from a tensor's value); nullopt for a group with tensor work.
// Whether GROUP only carries an index_put among its origins, storing nothing: the kernel Inductor
// makes for index_put's clone(self), whose Scatter another group stores.
bool copies_index_put_self(const graph::Graph& g, const fusion::KernelGroup& group) {
  if (!group.outputs.empty() || group.kind == fusion::GroupKind::extern_kernel ||
      group.kind == fusion::GroupKind::eager_op) {
    return false;
  }
  return std::any_of(group.nodes.begin(), group.nodes.end(),
                     [&](graph::NodeId n) { return codegen::is_index_put(g.node(n)); });
}

std::optional<std::string> host_scalar_group(const graph::Graph& g,
                                             const fusion::KernelGroup& group) {
  const auto scalar = [&](graph::NodeId n) { return fusion::host_scalar_op(g.node(n)); };
  if (group.nodes.empty() || !std::all_of(group.nodes.begin(), group.nodes.end(), scalar)) {
    return std::nullopt;
  }
  // A host scalar computed from `.item()` is a value of the data, which no symbol hint holds.
  std::vector<bool> from_data(g.size(), false);
  for (graph::NodeId n = 0; n < g.size(); ++n) {
    const graph::Node& node = g.node(n);
    if (!node.is_op() || !node.meta || !node.meta->is_sym_scalar()) continue;
    if (ops::op_base_name(node.target) == "_local_scalar_dense") {
      from_data[n] = true;
      continue;
    }
    for (const graph::NodeId in : g.inputs(n)) from_data[n] = from_data[n] || from_data[in];
  }
  for (const graph::NodeId n : group.nodes) {
    const graph::Node& node = g.node(n);
    if (ops::op_base_name(node.target) == "_local_scalar_dense") {
      // Only kernels may read it (they load the tensor): a size or a host value made from it
      // is the data's.
      for (graph::NodeId u = n + 1; u < g.size(); ++u) {
        const auto ins = g.inputs(u);
        if (std::find(ins.begin(), ins.end(), n) == ins.end()) continue;
        if (scalar(u) || (g.node(u).meta && !g.node(u).meta->is_sym_scalar() &&
                          sized_by(*g.node(u).meta, node.meta->sym))) {
          return node.name + " (`.item()` of a tensor) sets a size or a host value: unbacked, " +
                 "not known before the run";
        }
      }
      continue;
    }
    for (const graph::NodeId in : g.inputs(n)) {
      if (from_data[in]) {
        return node.name + " is computed from a tensor's value (`.item()`): unbacked, not " +
               "known before the run";
      }
    }
  }
  return "";
}

// The reason GROUP cannot be sized: a tensor it computes or reads is sized by a symbol the data
// sets (nonzero's count, `.item()` of a tensor) that HINTS lack; nullopt when every size is known.
std::optional<std::string> unbound_size(const graph::Graph& g, const fusion::KernelGroup& group,
                                        const ops::SymbolHints& hints) {
  const auto check = [&](graph::NodeId n) -> std::optional<std::string> {
    const graph::Node& node = g.node(n);
    if (!node.meta || node.meta->is_sym_scalar()) return std::nullopt;
    if (const auto sym = unbound_unbacked_symbol(*node.meta, hints)) {
      return node.name + " is sized by " + *sym +
             ", a size the data sets that no run bound: not run";
    }
    return std::nullopt;
  };
  for (const graph::NodeId n : group.nodes) {
    if (auto why = check(n)) return why;
    for (const graph::NodeId in : g.inputs(n)) {
      if (auto why = check(in)) return why;
    }
  }
  return std::nullopt;
}

// The one op of GROUP that is neither a view nor a getitem, when it has exactly one.
std::optional<graph::NodeId> only_op(const graph::Graph& g, const fusion::KernelGroup& group,
                                     const std::vector<bool>& is_view) {
  std::optional<graph::NodeId> found;
  for (const graph::NodeId n : group.nodes) {
    const graph::Node& node = g.node(n);
    if (!node.is_op() || is_view[n] || ops::op_key(node.target) == "operator.getitem") continue;
    if (found) return std::nullopt;
    found = n;
  }
  return found;
}

}  // namespace

PlannedSteps plan_steps(const graph::Graph& g, const fusion::FusionPlan& plan,
                        const ops::SymbolHints& hints, bool tune, std::uint64_t run_seed,
                        bool clusters) {
  PlannedSteps out;
  // A node is a view when codegen resolves it to another node's memory: it never launches.
  std::vector<bool> is_view(g.size(), false);
  for (graph::NodeId n = 0; n < g.size(); ++n) {
    is_view[n] = g.node(n).is_op() && codegen::alias_of(g, n, hints).has_value();
  }
  std::vector<bool> counted(g.size(), false);
  const auto generate = [&](const fusion::KernelGroup& k) {
    return generated_step(g, k, hints, tune, clusters, run_seed);
  };
  std::set<graph::NodeId> called;  // flex ops whose step is made
  const PlanCallee plan_callee = [&](const graph::Graph& sub, const fusion::FusionPlan& p) {
    return plan_steps(sub, p, hints, tune, run_seed, clusters);
  };
  for (std::size_t gi = 0; gi < plan.groups.size(); ++gi) {
    const fusion::KernelGroup& group = plan.groups[gi];
    std::size_t ops = 0;
    std::optional<graph::NodeId> anchor;
    // Only these kinds run a library call; a generated group never holds one.
    const bool library_kind = group.kind == fusion::GroupKind::extern_kernel ||
                              group.kind == fusion::GroupKind::template_gemm ||
                              group.kind == fusion::GroupKind::eager_op;
    for (const graph::NodeId n : group.nodes) {
      // A node the planner lists in two groups (a template's prologue) counts once.
      if (!is_view[n] && g.node(n).is_op() && !counted[n]) {
        counted[n] = true;
        ++ops;
      }
      // A template's GEMM, not a convolution its prologue lists (computed by its own group).
      const bool call = group.kind == fusion::GroupKind::template_gemm
                            ? is_gemm_target(g.node(n).target)
                            : is_library_op(g.node(n).target);
      if (!anchor && library_kind && call) anchor = n;
    }
    out.ops += ops;
    const std::string where = group_where(group);
    std::vector<StepPlan> made;
    std::optional<Error> failed;
    if (const auto unbound = unbound_size(g, group, hints)) {
      // Kernels take sizes as constants: one the data sets that no run bound has no value to
      // take (sized at the default instead, a buffer would be smaller than what is written).
      failed = make_error(*unbound);
    } else if (const auto flex = only_op(g, group, is_view);
               flex && (is_flex_attention_forward(g.node(*flex)) ||
                        is_flex_attention_backward(g.node(*flex)))) {
      // flex attention's forward and backward, in every mode. Inductor's backward is two
      // launches (the delta pass, then the template), two groups of one op: its math step, made
      // at the first, runs both. (torch.cond is in no group: add_cond_steps.)
      if (called.insert(*flex).second) {
        auto s = flex_attention_step(g, *flex, plan_callee);
        if (s) {
          // Its math graph's ops count as the plan's.
          ops += subgraph_ops(*s);
          out.ops += subgraph_ops(*s);
          made.push_back(std::move(*s));
        } else {
          failed = s.error();
        }
      }
    } else if (copies_index_put_self(g, group)) {
      // Inductor's kernel for the clone of a functional index_put's self: the runtime copies self
      // right before the group that scatters (below), whichever of the two the plan orders first,
      // so that a copy after the Scatter never overwrites its values. Nothing to launch here.
    } else if (const auto host = host_scalar_group(g, group)) {
      // Nothing to launch: its values are the unit's symbol values, or read by the kernels
      // that use them.
      if (!host->empty()) failed = make_error(*host);
    } else if (anchor) {
      auto lib = library_step(g, *anchor, hints, plan.mode);
      if (lib && lib->conv && lib->conv->bias && bias_in_epilogue(g, plan, gi, *anchor)) {
        // The epilogue kernel computes the bias (a cast to the convolution's dtype) and adds it,
        // as Inductor's does: the convolution runs without it (codegen's epilogue_bias).
        std::erase(lib->reads, *lib->conv->bias);
        lib->conv->bias.reset();
        lib->partial_writes.push_back(lib->conv->out);
      }
      if (lib) {
        if (const auto pro = prologue_of(g, plan, gi, *anchor, is_view); !pro) {
          failed = pro.error();
        } else if (!pro->nodes.empty()) {
          auto k = generate(with_conv_biases(g, plan, *pro));
          if (k) {
            made.push_back(std::move(*k));
          } else {
            failed = k.error();
          }
        }
        made.push_back(std::move(*lib));
        auto epi = epilogue_of(g, plan, gi, *anchor);
        if (!epi) {
          failed = epi.error();
        } else if (!epi->nodes.empty()) {
          auto k = generate(with_conv_biases(g, plan, *epi));
          if (k) {
            made.push_back(std::move(*k));
          } else {
            failed = k.error();
          }
        }
      } else {
        failed = lib.error();
      }
    } else if (group.nodes.size() == 1 && codegen::is_rng_seeds_op(g.node(group.nodes[0]).target)) {
      auto k = codegen::seeds_kernel(g, group, run_seed);
      if (k) {
        StepPlan s;
        s.name = k->entry;
        s.writes = {group.nodes[0]};
        s.variants.push_back(std::move(*k));
        made.push_back(std::move(s));
      } else {
        failed = k.error();
      }
    } else if (codegen::lone_index_put(g, group)) {
      // ATen's index_put (eager, or a call in Inductor's plan) as two generated launches: self
      // copied into the output, then the values scattered into it (writes to one buffer keep
      // their order).
      for (const std::string_view note :
           {codegen::kIndexPutSelfNote, codegen::kIndexPutScatterNote}) {
        fusion::KernelGroup part = group;
        part.kind = fusion::GroupKind::pointwise;
        part.note = std::string(note);
        auto k = generate(part);
        if (!k) {
          failed = k.error();
          break;
        }
        made.push_back(std::move(*k));
      }
    } else if (codegen::lone_generated_extern(g, group)) {
      // An ATen op outside Inductor's lowerings (eager, or its call in Inductor's plan) as one
      // generated kernel storing every output of its tuple.
      auto k = generate(group);
      if (k) {
        made.push_back(std::move(*k));
      } else {
        failed = k.error();
      }
    } else if (std::any_of(group.nodes.begin(), group.nodes.end(), [&](graph::NodeId n) {
                 return fusion::user_triton_kernel(g.node(n).target);
               })) {
      failed = make_error(group.name + " is " + std::string(fusion::kUserTritonKernelNoRuntime));
    } else if (group.kind == fusion::GroupKind::extern_kernel) {
      const auto custom =
          std::find_if(group.nodes.begin(), group.nodes.end(), [&](graph::NodeId n) {
            return g.node(n).is_op() && fusion::custom_op_fallback(g.node(n).target);
          });
      failed = make_error(custom == group.nodes.end()
                              ? "no runtime for the extern kernel " + group.name
                              : std::string(ops::op_key(g.node(*custom).target)) + " is " +
                                    std::string(fusion::kCustomOpNoRuntime));
    } else {
      // A fused Scatter (index_put with its values inline) stores into a destination the runtime
      // gives a buffer of its own: self is copied into it first, computed inline where the group
      // computes it (a fill the group also stores), since the group's kernel runs after the copy.
      // Only the group that stores the Scatter gets the copy: another group holding the
      // index_put among its origins (Inductor's kernel for clone(self), which the planner may
      // order after the Scatter) must not copy self over the values scattered.
      for (const graph::NodeId n : group.nodes) {
        if (!codegen::is_index_put(g.node(n))) continue;
        if (std::find(group.outputs.begin(), group.outputs.end(), n) == group.outputs.end()) {
          continue;
        }
        fusion::KernelGroup part = with_conv_biases(g, plan, group);
        part.outputs = {n};
        part.note = std::string(codegen::kIndexPutSelfNote);
        auto k = generate(part);
        if (k) made.push_back(std::move(*k));
        if (!k) failed = k.error();
      }
      const fusion::KernelGroup stored =
          with_conv_biases(g, plan, with_read_reductions(g, plan, gi));
      if (group.outputs.empty() && !stored.outputs.empty() &&
          std::any_of(group.nodes.begin(), group.nodes.end(),
                      [&](graph::NodeId n) { return codegen::is_scatter(g.node(n)); })) {
        // A group storing nothing that holds a planned Scatter (lowering.scatter's clone of
        // self) is the copy of self into the scatter's buffer, which the Scatter group then
        // only scatters into. Storing the reductions later groups read makes its kernel one of
        // those stores instead, so the copy is a step of its own, before it.
        auto copy = generate(group);
        if (copy) made.push_back(std::move(*copy));
        if (!copy) failed = copy.error();
      }
      if (auto k = codegen::make_whole_or_split(g, stored, generate)) {
        for (auto& part : *k) made.push_back(std::move(part.second));
      } else {
        failed = k.error();
      }
      if (!failed && codegen::fills_cat_slices_apart(g, group)) {
        fusion::KernelGroup copies = with_conv_biases(g, plan, group);
        copies.outputs.clear();
        auto c = generate(copies);
        if (c) {
          made.push_back(std::move(*c));
        } else {
          failed = c.error();
        }
      }
    }
    if (failed) {
      // Code generation's messages name the group already.
      const bool named = failed->message.starts_with(where + ":");
      out.skipped.push_back(
          {gi, group.name, ops, named ? failed->message : where + ": " + failed->message});
      continue;
    }
    out.ran_ops += ops;
    for (auto& s : made) {
      s.group = gi;
      s.group_name = group.name;
      s.nodes = group.nodes;
      s.group_ops = ops;
      out.steps.push_back(std::move(s));
    }
  }
  add_cond_steps(g, plan, plan_callee, out);
  if (tune) offer_gemm_epilogues(g, out, hints);
  // Inductor's output code draws dropout's seeds first of all (a randint into the seeds buffer);
  // the plan may list the seeds op after kernels that look them up. It reads nothing, so it runs
  // first.
  std::stable_partition(out.steps.begin(), out.steps.end(), [&](const StepPlan& s) {
    return s.nodes.size() == 1 && codegen::is_rng_seeds_op(g.node(s.nodes.front()).target);
  });
  const auto base = [&](graph::NodeId n) {
    const auto a = codegen::alias_of(g, n, hints);
    return a ? a->base : n;
  };
  order_by_dependences(out.steps, base, [&](graph::NodeId n) {
    return g.node(n).op == graph::OpKind::placeholder || g.node(n).op == graph::OpKind::get_attr;
  });
  // Inputs are in memory before any step; an uninitialized buffer (empty, Inductor's
  // NopKernelSchedulerNode) is as soon as it is allocated, no kernel computes it.
  std::vector<bool> written(g.size(), false);
  for (graph::NodeId n = 0; n < g.size(); ++n) {
    const graph::Node& node = g.node(n);
    written[n] = node.op == graph::OpKind::placeholder || node.op == graph::OpKind::get_attr ||
                 (node.is_op() && fusion::allocates_only(node.target));
  }
  std::vector<bool> materialised = written;
  for (std::size_t i = 0; i < out.steps.size(); ++i) {
    std::vector<StepPlan> before;
    for (const graph::NodeId r : out.steps[i].reads) {
      if (materialised[base(r)]) continue;
      if (auto copy =
              materialize_step(g, base(r), out.steps[i], materialised, base, hints, run_seed)) {
        materialised[base(r)] = true;
        before.push_back(std::move(*copy));
      }
    }
    for (const graph::NodeId w : out.steps[i].writes) materialised[base(w)] = true;
    if (!before.empty()) {
      out.steps.insert(out.steps.begin() + static_cast<std::ptrdiff_t>(i),
                       std::make_move_iterator(before.begin()),
                       std::make_move_iterator(before.end()));
      i += before.size();
    }
  }
  drop_unwritten_reads(g, plan, out, written, base);
  for (const StepPlan& s : out.steps) {
    for (const graph::NodeId r : s.reads) {
      if (written[base(r)]) continue;
      out.read_before_write.push_back("group " + std::to_string(s.group) + " " + s.group_name +
                                      " reads " + g.node(r).name + " before any group writes it");
      written[base(r)] = true;  // once per buffer
    }
    for (const graph::NodeId w : s.writes) written[base(w)] = true;
  }
  return out;
}

std::vector<ScratchBuffer> scratch_buffers(const std::vector<StepPlan>& steps) {
  std::vector<ScratchBuffer> out;
  std::map<std::pair<graph::NodeId, std::string>, std::size_t> index;
  for (std::size_t i = 0; i < steps.size(); ++i) {
    for (const auto& v : steps[i].variants) {
      for (const auto& p : v.params) {
        if (p.scratch_elements <= 0) continue;
        const std::size_t bytes = static_cast<std::size_t>(p.scratch_elements) *
                                  std::max<std::size_t>(element_bytes(p.dtype), 1);
        const auto [it, fresh] = index.try_emplace({p.node, p.dtype}, out.size());
        if (fresh) out.push_back({p.node, p.dtype, 0, i, i});
        ScratchBuffer& b = out[it->second];
        b.bytes = std::max(b.bytes, bytes);
        b.last_step = std::max(b.last_step, i);
      }
    }
  }
  return out;
}

bool indexes_by_data(const StepPlan& step, const graph::Graph& graph) {
  // torch.cond chooses what it launches by its predicate's value.
  if (step.kind == StepKind::subgraphs) return true;
  if (step.kind != StepKind::generated) return false;
  static constexpr std::array<std::string_view, 5> kByData = {"index", "gather", "scatter",
                                                              "embedding", "take"};
  return std::any_of(step.nodes.begin(), step.nodes.end(), [&](graph::NodeId n) {
    const std::string& t = graph.node(n).target;
    return std::any_of(kByData.begin(), kByData.end(),
                       [&](std::string_view k) { return t.find(k) != std::string::npos; });
  });
}

}  // namespace fxscope::gpu
