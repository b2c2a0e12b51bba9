// Higher-order ops in the lowering: torch.cond and while_loop around their subgraphs, a user's
// @triton.jit kernel, and flex attention's templates.

#include <algorithm>
#include <vector>

#include "fxscope/fusion/lowering_ops.h"
#include "lowerer.h"

namespace fxscope::fusion::detail {

bool Lowerer::read_after(NodeId a, NodeId after) const {
  const NodeId base = storage(a);
  std::vector<NodeId> stack{base};
  std::vector<bool> seen(n_, false);
  while (!stack.empty()) {
    const NodeId v = stack.back();
    stack.pop_back();
    if (seen[v]) continue;
    seen[v] = true;
    for (const NodeId u : users_[v]) {
      if (u > after) return true;
      // A view taken before AFTER and read after it reads the same buffer.
      if (info_[u].lowering == ops::Lowering::view) stack.push_back(u);
    }
  }
  return false;
}

bool Lowerer::lower_higher_order(NodeId i, const std::vector<NodeId>& args,
                                 const std::vector<NodeId>& gathered) {
  const std::string_view target = g_.node(i).target;
  if (!lowered_higher_order(target)) return false;
  const bool control_flow = runs_subgraphs(target);
  const bool flex = flex_attention_template(target);
  // ir.Conditional.create, ir.WhileLoop.create and UserDefinedTritonKernel realize every tensor
  // operand (realize_input), the predicate included; a view of a buffer stays a view.
  std::vector<std::int64_t> reads;
  for (const NodeId a : args) {
    if (!g_.node(a).meta) continue;  // a subgraph (get_attr) or a non-tensor
    realize(a);
    layout_fixed_[storage(a)] = true;
    add_reads(a, reads);
  }
  std::sort(reads.begin(), reads.end());
  reads.erase(std::unique(reads.begin(), reads.end()), reads.end());
  realized_[i] = true;
  if (control_flow) {
    // The wrapper reads the predicate on the host and calls the chosen subgraph's code: no
    // launch of its own, and nothing fuses across it.
    push(i, {i}, std::move(reads), i, 1, 1, false, false, "");
    sched_.back().launches = false;
    return true;
  }
  const auto kernel_buffer = static_cast<std::int64_t>(i);
  if (flex) {
    // flex attention's templates: the backward's delta reduction, then the template, each a
    // launch of its own over what the call gathered (the views of q, k and v).
    if (ops::op_key(target) == "higher_order.flex_attention_backward") {
      push(i, gathered, reads, next_buffer_++, 1, 1, true, false, "");
    }
    push(i, gathered, std::move(reads), kernel_buffer, 1, 1, false, false, "");
    return true;
  }
  // The user's kernel: one launch fusing with nothing, whose origins are what the call gathered
  // (the views of its arguments).
  push(i, gathered, std::move(reads), kernel_buffer, 1, 1, false, false, "a user's Triton kernel");
  // Each tensor argument it may store into becomes a MutationOutput (UserDefinedTritonKernel's
  // mutable args): a node launching nothing whose buffer later readers of the argument load, so
  // they depend on the kernel. Which arguments the kernel stores is known from its Triton code
  // alone (identify_mutated_tensors); those read again after it are taken as stored.
  for (const NodeId a : args) {
    if (!g_.node(a).meta || g_.node(a).meta->is_sym_scalar() || !read_after(a, i)) continue;
    const NodeId base = storage(a);
    const std::int64_t renamed = next_buffer_++;
    push(i, {i}, {kernel_buffer}, renamed, numel_of(base), 1, false, false, "");
    sched_.back().launches = false;
    alias_[base] = static_cast<NodeId>(renamed);
  }
  return true;
}

}  // namespace fxscope::fusion::detail
