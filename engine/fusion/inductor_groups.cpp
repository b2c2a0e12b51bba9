// Inductor's launches as kernel groups.

#include "fxscope/fusion/inductor_groups.h"

#include <algorithm>
#include <optional>
#include <string>

#include "fxscope/ops/op_registry.h"

namespace fxscope::fusion {
namespace {

GroupKind kind_of(inductor::KernelKind kind) {
  switch (kind) {
    case inductor::KernelKind::pointwise:
      return GroupKind::pointwise;
    case inductor::KernelKind::reduction:
      return GroupKind::reduction;
    case inductor::KernelKind::persistent_reduction:
      return GroupKind::persistent_reduction;
    case inductor::KernelKind::template_gemm:
      return GroupKind::template_gemm;
    case inductor::KernelKind::other:
      return GroupKind::pointwise;
  }
  return GroupKind::pointwise;
}

class InductorReader {
 public:
  // G is the post-grad graph, or with SUBGRAPH set its subgraph of that name: the launches read
  // are those of the function Inductor wrote for it.
  InductorReader(const inductor::OutputCode& code, const graph::Graph& g,
                 const inductor::Provenance* provenance, const graph::Graph* subgraph)
      : code_(code),
        g_(subgraph ? *subgraph : g),
        root_(g),
        provenance_(provenance),
        subgraph_(subgraph),
        used_(g_.size(), false) {}

  FusionPlan run() {
    FusionPlan plan;
    for (const inductor::Launch& launch : code_.launches()) {
      if (!in_scope(launch)) continue;
      KernelGroup group;
      group.id = plan.groups.size();
      group.name = launch.callee;
      std::vector<std::string> names;
      const bool exact = provenance_ && from_provenance(launch, names);
      if (launch.kind == inductor::LaunchKind::extern_op) {
        group.kind = GroupKind::extern_kernel;
        if (!exact) names = extern_node(launch);
      } else if (launch.kernel) {
        const inductor::Kernel& kernel = code_.kernels()[*launch.kernel];
        group.kind = kind_of(kernel.kind);
        // A foreach node's combo kernel (SIMDScheduling.codegen_combo_kernel names it so).
        if (kernel.kind == inductor::KernelKind::other && kernel.name.starts_with("triton_for_")) {
          group.kind = GroupKind::combo;
        }
        if (!exact) {
          for (const inductor::FragmentNode& f : kernel.comments.fragment_nodes) {
            if (!f.placeholder) names.push_back(f.name);
          }
        }
        // A template computes its GEMM or convolution: a library call after it does not.
        if (group.kind == GroupKind::template_gemm) take(names);
      }
      group.note = exact ? "members from provenance" : "members from the kernel header";
      if (names.empty()) group.stored_inputs = graph_inputs(launch.stored);
      if (names.empty() && group.stored_inputs.empty()) {
        group.read_inputs = graph_inputs(launch.loaded);
      }
      for (const std::string& name : names) {
        if (const auto id = g_.find(name)) {
          group.nodes.push_back(*id);
        } else if (!subgraph_) {
          plan.warnings.push_back(
              {"line " + std::to_string(launch.line),
               "kernel " + launch.callee + " names " + name + ", which the post-grad graph lacks"});
        }
      }
      std::sort(group.nodes.begin(), group.nodes.end());
      group.nodes.erase(std::unique(group.nodes.begin(), group.nodes.end()), group.nodes.end());
      plan.groups.push_back(std::move(group));
    }
    return plan;
  }

 private:
  // Whether LAUNCH is in the function of the graph read: a subgraph's own function, or for the
  // post-grad graph any function that is no subgraph's (call, partition_0).
  bool in_scope(const inductor::Launch& launch) const {
    if (subgraph_) return launch.function == subgraph_->name();
    return root_.find_subgraph(launch.function) == nullptr;
  }

  // The graph inputs among a launch's ARGS (the buffers it stores, or those it reads), when every
  // one is (by the placeholder's name, as the call passes it); else none. A combo kernel of fused
  // foreach sub-kernels names no nodes (its header and provenance are empty), but its launch
  // still says what it updates; a layout copy of an input, what it copies.
  std::vector<graph::NodeId> graph_inputs(const std::vector<std::string>& args) const {
    std::vector<graph::NodeId> ids;
    for (const std::string& arg : args) {
      const auto id = g_.find(arg);
      if (!id || g_.node(*id).op != graph::OpKind::placeholder) return {};
      ids.push_back(*id);
    }
    std::sort(ids.begin(), ids.end());
    ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
    return ids;
  }

  bool from_provenance(const inductor::Launch& launch, std::vector<std::string>& names) const {
    for (const std::string& handle : launch.comments.provenance_handles) {
      if (const auto* post = provenance_->kernel_to_post.find(handle)) {
        names.insert(names.end(), post->begin(), post->end());
      }
    }
    // Logs whose launches carry no debug handle key the map by kernel name alone; a generated
    // kernel's name is its own (a library call's is shared by all its calls, so it says nothing).
    if (names.empty() && launch.kind == inductor::LaunchKind::kernel && launch.kernel &&
        code_.launch_count(*launch.kernel) == 1) {
      names = provenance_->post_nodes_of_kernel(launch.callee);
    }
    return !names.empty();
  }

  // The post-grad node an extern launch computes. Inductor's comment before the launch names the
  // buffer's source nodes, which can hold a fused prologue with its own convolution: the first of
  // them that runs the op and that no earlier library call or template took is the one. Where none
  // runs the op, the comment's library op is it (max-autotune lowers a 1x1 convolution to an
  // extern mm). Without the comment: the next untaken node running the op, in graph order.
  std::vector<std::string> extern_node(const inductor::Launch& launch) {
    // op_base_name returns a view into its argument, so the qualified name must outlive `op`.
    const std::string qualified = "torch.ops." + launch.op;
    std::string_view op = launch.op;
    if (op.rfind('.') != std::string_view::npos && op.find("aten.") == 0) {
      op = ops::op_base_name(qualified);
    }
    // Inductor lowers the RNG seeds op (prims.inductor_seeds) to a randint.low_out call.
    const bool seeds = op == "randint";
    const auto runs_op = [&](const graph::Node& node) {
      return node.is_op() && (seeds ? node.target.find("inductor_seeds") != std::string::npos
                                    : ops::op_base_name(node.target) == op);
    };
    const auto library_op = [](const graph::Node& node) {
      const ops::OpInfo* info = node.is_op() ? ops::find_op(node.target) : nullptr;
      return info && info->lowering == ops::Lowering::extern_kernel &&
             info->op_class != ops::OpClass::opaque;
    };
    const auto take_from_comment = [&](const auto& wanted) -> std::optional<std::string> {
      for (const std::string& name : launch.comments.source_nodes) {
        const auto id = g_.find(name);
        if (id && !used_[*id] && wanted(g_.node(*id))) {
          used_[*id] = true;
          return name;
        }
      }
      return std::nullopt;
    };
    if (auto name = take_from_comment(runs_op)) return {*name};
    if (auto name = take_from_comment(library_op)) return {*name};
    for (graph::NodeId id = 0; id < g_.size(); ++id) {
      if (!used_[id] && runs_op(g_.node(id))) {
        used_[id] = true;
        return {g_.node(id).name};
      }
    }
    return {};
  }

  void take(const std::vector<std::string>& names) {
    for (const std::string& name : names) {
      if (const auto id = g_.find(name)) used_[*id] = true;
    }
  }

  const inductor::OutputCode& code_;
  const graph::Graph& g_;
  const graph::Graph& root_;
  const inductor::Provenance* provenance_;
  // A subgraph's kernels carry the origins of the op that lowered it (the cond and what it
  // gathered) beside the subgraph's own nodes: names the subgraph lacks are those.
  const graph::Graph* subgraph_;
  std::vector<bool> used_;
};

}  // namespace

FusionPlan inductor_plan(const inductor::OutputCode& code, const graph::Graph& post_grad,
                         const inductor::Provenance* provenance) {
  FusionPlan plan = InductorReader(code, post_grad, provenance, nullptr).run();
  // Each subgraph Inductor compiled (a cond's branch) is a function of its own in the output
  // code, called where the wrapper runs the op.
  for (const graph::Graph& sub : post_grad.subgraphs()) {
    const auto& launches = code.launches();
    const bool compiled = std::any_of(launches.begin(), launches.end(),
                                      [&](const auto& l) { return l.function == sub.name(); });
    if (!compiled) continue;
    // Where the wrapper calls it is no launch: its position stays unknown (0).
    plan.subgraphs.push_back(
        {sub.name(), 0, InductorReader(code, post_grad, provenance, &sub).run()});
  }
  return plan;
}

}  // namespace fxscope::fusion
