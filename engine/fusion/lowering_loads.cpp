// What a kernel of the lowering loads: the buffers an unrealized value reads through everything
// inlined into it, and the addresses of those loads (memory_index.h) where they can be followed.

#include <algorithm>
#include <set>

#include "fxscope/fusion/lowering_ops.h"
#include "lowerer.h"

namespace fxscope::fusion::detail {

void Lowerer::set_value_deps(NodeId root) {
  SchedulerNode& s = sched_.back();
  const std::vector<std::int64_t>& sizes = model_.sizes(root);
  if (sizes.empty() && model_.numel(root) != s.numel) return;
  s.read_deps = walk_deps({{root, iteration_coords(sizes)}}, model_.numel(root), s.reads, true);
}

std::vector<MemoryDep> Lowerer::reduction_reads(NodeId i, const std::vector<NodeId>& args,
                                                const std::vector<std::int64_t>& fallback) {
  const NodeId in = arg_node(i, 0).value_or(args.front());
  const std::vector<std::int64_t>& sizes = model_.sizes(in);
  const std::optional<std::vector<std::int64_t>> dims = model_.reduced_dims(i);
  const Coords coords = dims ? reduction_coords(sizes, *dims) : iteration_coords(sizes);
  std::vector<ValueLoad> start{{in, coords}};
  if (!dims) {
    for (const NodeId a : args) {
      if (a == in || is_sym(a)) continue;
      start.push_back({a, model_.sizes(a) == sizes
                              ? coords
                              : Coords(std::max<std::size_t>(model_.sizes(a).size(), 1),
                                       IndexExpr{{}, 0, true})});
    }
  }
  return walk_deps(std::move(start), model_.numel(in), fallback, false);
}

std::vector<MemoryDep> Lowerer::walk_deps(std::vector<ValueLoad> stack, std::int64_t iter_numel,
                                          const std::vector<std::int64_t>& fallback,
                                          bool expand_first) {
  std::vector<MemoryDep> deps;
  std::set<std::vector<std::int64_t>> seen;
  std::size_t steps = 0;
  bool first = expand_first;
  while (!stack.empty()) {
    ValueLoad load = std::move(stack.back());
    stack.pop_back();
    const NodeId v = load.value;
    if (++steps > kMaxWalkSteps) {
      // Too many distinct loads to follow: each buffer read at an address of its own.
      deps.clear();
      for (const std::int64_t b : fallback) deps.push_back(opaque_dep(b));
      return deps;
    }
    if (!seen.insert(load_key(load)).second || is_sym(v)) continue;
    const bool root_step = first;
    first = false;
    if (realized_[v] && !root_step) {
      add_dep(deps, make_dep(alias_[v], load.coords, layout_strides(v), iter_numel,
                             model_.element_bytes(v)));
      continue;
    }
    if (epilogue_of_[v] >= 0) {
      add_dep(deps, make_dep(epilogue_of_[v], load.coords, layout_strides(v), iter_numel,
                             model_.element_bytes(v)));
      const std::optional<NodeId> bias =
          ops::op_base_name(g_.node(v).target) == "convolution" ? arg_node(v, 2) : std::nullopt;
      if (bias && load.coords.size() > 1) stack.push_back({*bias, Coords{load.coords[1]}});
      continue;
    }
    for (ValueLoad& next : model_.loads(v, load.coords)) stack.push_back(std::move(next));
  }
  return deps;
}

std::vector<std::int64_t> Lowerer::read_set(NodeId i) {
  std::vector<std::int64_t> reads;
  add_reads(i, reads);
  return reads;
}

void Lowerer::add_reads(NodeId root, std::vector<std::int64_t>& reads) {
  ++generation_;
  std::vector<NodeId> stack{root};
  while (!stack.empty()) {
    const NodeId i = stack.back();
    stack.pop_back();
    if (stamp_[i] == generation_) continue;
    stamp_[i] = generation_;
    if (realized_[i]) {
      if (!is_sym(i)) reads.push_back(alias_[i]);
      continue;
    }
    if (epilogue_of_[i] >= 0) {
      // The buffer it is a Pointwise of, plus a convolution's bias.
      reads.push_back(epilogue_of_[i]);
      const auto bias =
          ops::op_base_name(g_.node(i).target) == "convolution" ? arg_node(i, 2) : std::nullopt;
      if (bias) stack.push_back(*bias);
      continue;
    }
    for (const NodeId a : value_inputs(i)) stack.push_back(a);
  }
  std::sort(reads.begin(), reads.end());
  reads.erase(std::unique(reads.begin(), reads.end()), reads.end());
}

std::vector<std::int64_t> Lowerer::indirect_reads(const std::vector<NodeId>& origins) {
  std::vector<std::int64_t> reads;
  for (const NodeId o : origins) {
    const std::optional<std::size_t> indices = indirect_indices_position(g_.node(o).target);
    if (!indices || g_.node(o).args.size() <= *indices) continue;
    std::vector<std::int64_t> index_reads;
    g_.node(o).args[*indices].for_each_node([&](NodeId n) { add_reads(n, index_reads); });
    if (index_reads.empty()) continue;
    if (const std::optional<NodeId> data = arg_node(o, 0)) add_reads(*data, reads);
  }
  return reads;
}

}  // namespace fxscope::fusion::detail
