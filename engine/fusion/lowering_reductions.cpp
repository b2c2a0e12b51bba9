// Reductions, scans and pooling windows as Inductor lowers them: unrolled into a Pointwise when
// tiny, split in two kernels when long (reduction_split.cpp), a buffer of their own otherwise.

#include <algorithm>
#include <set>
#include <string>
#include <string_view>
#include <utility>

#include "fxscope/fusion/lowering_ops.h"
#include "fxscope/fusion/reduction_split.h"
#include "lowerer.h"

namespace fxscope::fusion::detail {

using ops::Lowering;

bool Lowerer::reads_reduction(NodeId p) {
  const std::vector<std::int64_t> reads = read_set(p);
  return std::any_of(reads.begin(), reads.end(),
                     [&](std::int64_t b) { return reduction_buffers_.count(b) > 0; });
}

void Lowerer::lower_reduction(NodeId i, const std::vector<NodeId>& args,
                              std::vector<NodeId> gathered) {
  std::vector<std::int64_t> reads;
  for (const NodeId a : args) add_reads(a, reads);
  const std::int64_t total = args.empty() ? 1 : numel_of(args.front());
  const std::int64_t out = std::max<std::int64_t>(1, output_numel(i));
  const bool scan = info_[i].lowering == Lowering::scan;
  std::int64_t rnumel = scan ? 1 : std::max<std::int64_t>(1, total / out);
  if (plain_reduction(g_.node(i).target) &&
      (rnumel == 1 || (rnumel < options_.unroll_rnumel && out > 1))) {
    // Reduction.create: a reduction over so few elements is unrolled into a Pointwise, which
    // inlines into its consumers like any other.
    origins_[i] = std::move(gathered);
    inlinable_[i] = true;
    opcount_[i] = static_cast<std::size_t>(rnumel);
    for (const NodeId a : args) opcount_[i] += realized_[a] ? 0 : opcount_[a];
    return hint_realize(i);
  }
  // lowering.mean is a sum divided by the count: the Reduction is a buffer of its own and
  // the node's value a Pointwise of it, inlined into its readers like any other.
  const bool mean = ops::op_base_name(g_.node(i).target) == "mean";
  const std::int64_t buffer = mean ? next_buffer_++ : static_cast<std::int64_t>(i);
  if (mean) {
    epilogue_of_[i] = buffer;
    origins_[i] = gathered;
    inlinable_[i] = true;
    opcount_[i] = 1;
  } else {
    realized_[i] = true;
    origins_[i] = gathered;  // what a Pointwise made with the reduction carries (a variance)
  }
  // The loads of the reduction's loop decide, where their addresses are known; else the layout.
  const bool modelled = !scan && !args.empty() && model_.reduced_dims(i);
  const std::vector<MemoryDep> voters =
      modelled ? vote_reads(i, args, reads, out) : std::vector<MemoryDep>{};
  const std::optional<bool> voted =
      modelled ? inner_by_reads(voters, rnumel) : std::optional<bool>{};
  const bool inner = voted.value_or(inner_reduction(i, args));
  // Reduction.num_splits: with no load spanning every loop variable (a gradient scattered into
  // one token, a select_backward) it takes no vote and does not split.
  const bool unvoted = modelled && !voted && no_spanning_read(voters);
  const std::int64_t split = scan || unvoted ? 1 : reduction_split(rnumel, out, inner, options_);
  // The hint takes the vote, or the layout where the addresses are not modelled; a vote not
  // taken (no load spanning every loop variable) leaves it neither inner nor outer.
  const ReductionHint hint =
      scan ? ReductionHint::inner
           : reduction_hint(rnumel, out, modelled ? voted : std::optional<bool>(inner), options_);
  const bool symbolic_rnumel = !scan && symbolic_reduced_size(i, args);
  if (split > 1) {
    // Reduction.create_multilayer makes the first pass with Reduction.create (WelfordReduction's
    // likewise), which splits it again by the same rule: OUT x SPLIT rows of the parts, voted
    // inner or outer through the one flattened variable that reads a part.
    const std::vector<MemoryDep> deps =
        args.empty() ? std::vector<MemoryDep>{} : reduction_reads(i, args, reads);
    const bool inner_part = inner_by_flat_reads(deps, rnumel).value_or(inner);
    const std::int64_t split2 =
        reduction_split((rnumel + split - 1) / split, out * split, inner_part, options_);
    // WelfordReduction.create_multilayer combines the parts with WelfordReduction.create, which
    // splits them again as it would any reduction: the parts of an outer one lie a row of outputs
    // apart. Taken where the parts divide evenly, as the runtime's middle pass combines whole
    // parts.
    std::int64_t combine = 1;
    if (split2 == 1 && info_[i].lowering == Lowering::welford && hint == ReductionHint::outer) {
      combine = reduction_split(split, out, false, options_);
      if (split % combine != 0) combine = 1;
    }
    const std::size_t passes = split2 > 1 || combine > 1 ? 3 : 2;
    if (ops::op_base_name(g_.node(i).target) == "prepare_softmax_online") {
      // Online softmax never splits: Inductor falls back to amax, then the sum of exp(x - max),
      // each a split reduction of its own.
      const std::int64_t amax = next_buffer_++;
      push_split(i, gathered, reads, amax, out, rnumel, {split, split2, 1}, hint);
      reads.push_back(amax);
    }
    const bool softmax = ops::op_base_name(g_.node(i).target) == "prepare_softmax_online";
    push_split(i, std::move(gathered), std::move(reads), buffer, out, rnumel,
               {split, split2, combine}, hint);
    SchedulerNode& first = sched_[sched_.size() - passes];
    first.symbolic_rnumel = symbolic_rnumel;
    first.no_prologue = (!inner && out > 1) || (split2 > 1 && !inner_part);
    first.outer_reduction = !inner && out > 1;
    // The first pass reads its input re-indexed by the split: for an inner reduction the same
    // addresses, for an outer one addresses no producer's store matches.
    if (!args.empty()) {
      first.read_deps = reduction_reads(i, args, first.reads);
      if (first.no_prologue && split2 == 1 && !softmax) {
        split_parts_as_loops(i, args, out, rnumel, split, first);
      }
      if (first.no_prologue) {
        for (MemoryDep& d : first.read_deps) d.split = split * std::max<std::int64_t>(1, split2);
      } else {
        // create_multilayer's first pass loops over the kept dims and the parts, then a part's
        // rows: its deps (not normalized under loop_ordering_after_fusion) have those sizes, so
        // they equal no pointwise kernel's loads of the same input, and score_fusion_memory
        // gives a pointwise kernel beside the pass nothing shared to fuse on.
        const std::int64_t first_part = split2 > 1
                                            ? ((rnumel + split - 1) / split + split2 - 1) / split2
                                            : (rnumel + split - 1) / split;
        std::vector<std::int64_t> pass_loops;
        for (const std::int64_t size :
             {out * split * std::max<std::int64_t>(1, split2), first_part}) {
          if (size > 1) pass_loops.push_back(size);
        }
        for (MemoryDep& d : first.read_deps) {
          if (d.loops.empty()) d.loops = pass_loops;
        }
      }
      if (softmax && sched_.size() >= 2 * passes) {
        sched_[sched_.size() - 2 * passes].read_deps = first.read_deps;
      }
    }
  } else {
    push(i, std::move(gathered), std::move(reads), buffer, scan ? total : out, rnumel, !scan, !scan,
         scan ? "scan" : "");
    sched_.back().hint = hint;
    sched_.back().symbolic_rnumel = symbolic_rnumel;
    if (!args.empty()) sched_.back().read_deps = reduction_reads(i, args, sched_.back().reads);
    sched_.back().outer_reduction = !scan && !inner && out > 1;
    set_reduction_write(i, buffer);
    if (!scan && !args.empty()) order_reduction_loops(i, buffer, rnumel);
    if (mean) hint_realize(i);
    return;
  }
  set_reduction_write(i, buffer);
  if (mean) hint_realize(i);
}

bool Lowerer::symbolic_reduced_size(NodeId i, const std::vector<NodeId>& args) const {
  if (args.empty()) return false;
  const std::optional<std::vector<std::int64_t>> reduced = model_.reduced_dims(i);
  if (!reduced) return false;
  const std::vector<bool> symbolic = ir_symbolic_dims(args.front());
  return std::any_of(reduced->begin(), reduced->end(), [&](std::int64_t d) {
    return d >= 0 && static_cast<std::size_t>(d) < symbolic.size() &&
           symbolic[static_cast<std::size_t>(d)];
  });
}

bool Lowerer::lower_sort(NodeId i, const std::vector<NodeId>& gathered) {
  const graph::Node& node = g_.node(i);
  if (ops::op_base_name(node.target) != "sort") return false;
  const std::optional<NodeId> in = arg_node(i, 0);
  if (trivial_sort(g_, i) && in) {
    // Sort.create's copy: the values and indices are Pointwise made while the sort is lowered,
    // carrying what it gathered, inlined into their readers (lower_getitem).
    origins_[i] = gathered;
    inlinable_[i] = true;
    opcount_[i] = realized_[*in] ? 1 : opcount_[*in];
    return true;
  }
  if (!in || !g_.node(*in).meta || g_.node(*in).meta->device == "cpu") return false;
  const std::vector<std::int64_t>& sizes = model_.sizes(*in);
  if (sizes.empty()) return false;
  std::int64_t dim = -1;
  if (node.args.size() > 1 && node.args[1].kind() == graph::Argument::Kind::integer) {
    dim = node.args[1].as_int();
  }
  for (const auto& [name, value] : node.kwargs) {
    if (name == "dim" && value.kind() == graph::Argument::Kind::integer) dim = value.as_int();
  }
  const auto rank = static_cast<std::int64_t>(sizes.size());
  if (dim < 0) dim += rank;
  if (dim < 0 || dim >= rank) return false;
  const std::int64_t rnumel = sizes[static_cast<std::size_t>(dim)];
  // Sort.create: a persistent kernel only (max_rblock 512).
  constexpr std::int64_t kMaxSortBlock = 512;
  if (rnumel <= 1 || rnumel > kMaxSortBlock) return false;
  const std::int64_t total = model_.numel(*in);
  std::vector<std::int64_t> reads;
  add_reads(*in, reads);
  const Coords coords = reduction_coords(sizes, {dim});
  std::vector<std::int64_t> dense(sizes.size(), 1);
  for (std::size_t k = sizes.size(); k-- > 1;) dense[k - 1] = dense[k] * sizes[k];
  const std::int64_t indices = next_buffer_++;
  constexpr std::int64_t kIndexBytes = 2;  // int16
  for (const std::int64_t buffer : {static_cast<std::int64_t>(i), indices}) {
    push(i, gathered, reads, buffer, total / rnumel, rnumel, true, true, "");
    SchedulerNode& s = sched_.back();
    s.read_deps = walk_deps({{*in, coords}}, total, reads, false);
    s.write_dep = make_dep(buffer, coords, dense, total,
                           buffer == indices ? kIndexBytes : model_.element_bytes(*in));
  }
  realized_[i] = true;
  layout_fixed_[i] = true;
  origins_[i] = gathered;
  sort_indices_[i] = indices;
  return true;
}

std::vector<MemoryDep> Lowerer::vote_reads(NodeId i, const std::vector<NodeId>& args,
                                           const std::vector<std::int64_t>& reads,
                                           std::int64_t out) {
  std::vector<MemoryDep> deps = reduction_reads(i, args, reads);
  const auto opaque = [](const MemoryDep& d) { return d.opaque; };
  const NodeId in = arg_node(i, 0).value_or(args.front());
  const std::optional<std::vector<std::int64_t>> dims = model_.reduced_dims(i);
  if (std::none_of(deps.begin(), deps.end(), opaque) || !dims) return deps;
  // Reduction.num_splits takes each load's strides along the reduced variables with the others
  // at zero (stride_hints): an address that re-splits the kept dims (a window partition undone,
  // then a grid partition made) is no sum of digits, yet steps the reduced dims plainly. Walked
  // again with the kept coordinates at zero, such a load keeps only its reduced steps; it spans
  // the kept variables too, which one more digit above the reduced ones stands for.
  Coords coords = reduction_coords(model_.sizes(in), *dims);
  for (std::size_t d = 0; d < coords.size(); ++d) {
    if (std::find(dims->begin(), dims->end(), static_cast<std::int64_t>(d)) == dims->end()) {
      coords[d] = IndexExpr{};
    }
  }
  std::vector<MemoryDep> reduced = walk_deps({{in, coords}}, model_.numel(in), reads, false);
  const std::int64_t rnumel =
      std::max<std::int64_t>(1, model_.numel(in) / std::max<std::int64_t>(1, out));
  for (MemoryDep& d : deps) {
    if (!d.opaque || d.tag != 0) continue;
    // A load that no reduced dim steps does not span the reduction's variables: no vote.
    const auto steps = std::find_if(reduced.begin(), reduced.end(), [&](const MemoryDep& r) {
      return r.buffer == d.buffer && !r.opaque &&
             std::any_of(r.terms.begin(), r.terms.end(),
                         [](const IndexTerm& t) { return t.mult != 0; });
    });
    if (steps == reduced.end()) continue;
    MemoryDep voted = *steps;
    std::erase_if(voted.terms, [](const IndexTerm& t) { return t.mult == 0; });
    voted.terms.push_back({rnumel, std::max<std::int64_t>(1, out), 1});
    d = std::move(voted);
    reduced.erase(steps);
  }
  return deps;
}

void Lowerer::set_reduction_write(NodeId i, std::int64_t buffer) {
  const std::vector<std::int64_t>& sizes = model_.sizes(i);
  if (sizes.empty()) return;
  SchedulerNode& s = sched_.back();
  s.write_dep = make_dep(buffer, iteration_coords(sizes), layout_strides(i), model_.numel(i),
                         model_.element_bytes(i));
}

bool Lowerer::inner_reduction(NodeId i, const std::vector<NodeId>& args) const {
  if (args.empty()) return true;
  const graph::Node& in = g_.node(args.front());
  if (!in.meta || in.meta->rank() == 0) return true;
  const auto rank = static_cast<std::int64_t>(in.meta->rank());
  std::vector<std::int64_t> dims;
  const graph::Node& node = g_.node(i);
  if (node.args.size() > 1) {
    const graph::Argument& d = node.args[1];
    if (d.kind() == graph::Argument::Kind::integer) dims.push_back(d.as_int());
    for (const graph::Argument& item : d.items()) {
      if (item.kind() == graph::Argument::Kind::integer) dims.push_back(item.as_int());
    }
  }
  if (dims.empty()) return true;  // every dim: one output, split as an inner reduction
  std::int64_t innermost = rank - 1;
  if (channels_last_[args.front()] && rank == 4) {
    innermost = 1;
  } else if (in.meta->strides.size() == in.meta->sizes.size()) {
    for (std::int64_t d = 0; d < rank; ++d) {
      const auto u = static_cast<std::size_t>(d);
      if (ops::eval_dim(in.meta->strides[u], options_.hints) == 1 &&
          ops::eval_dim(in.meta->sizes[u], options_.hints) > 1) {
        innermost = d;
      }
    }
  }
  return std::any_of(dims.begin(), dims.end(),
                     [&](std::int64_t d) { return (d < 0 ? d + rank : d) == innermost; });
}

void Lowerer::push_split(NodeId i, std::vector<NodeId> gathered, std::vector<std::int64_t> reads,
                         std::int64_t buffer, std::int64_t out, std::int64_t rnumel,
                         SplitPasses passes, ReductionHint hint) {
  // Reduction.create_multilayer: the first pass keeps the reduction's hint, each pass combining
  // parts takes _multilayer_second_step_hint's.
  const auto [split, split2, combine] = passes;
  const std::int64_t partial = next_buffer_++;
  const std::int64_t part = (rnumel + split - 1) / split;
  if (combine > 1) {
    // The combine split: the middle pass is the first of the combine's own passes.
    const std::int64_t partial2 = next_buffer_++;
    push(i, gathered, std::move(reads), partial2, out * split, part, true, true,
         std::string(kSplitFirstPassNote));
    sched_.back().hint = hint;
    push(i, gathered, {partial2}, partial, out * combine, split / combine, true, true,
         std::string(kSplitMiddlePassNote));
    sched_.back().hint = hint;
    push(i, std::move(gathered), {partial}, buffer, out, combine, true, true,
         std::string(kSplitSecondPassNote));
    sched_.back().hint = second_pass_hint(combine, out, hint);
    return;
  }
  if (split2 > 1) {
    const std::int64_t partial2 = next_buffer_++;
    push(i, gathered, std::move(reads), partial2, out * split * split2,
         (part + split2 - 1) / split2, true, true, std::string(kSplitFirstPassNote));
    sched_.back().hint = hint;
    push(i, gathered, {partial2}, partial, out * split, split2, true, true,
         std::string(kSplitMiddlePassNote));
    sched_.back().hint = second_pass_hint(split2, out * split, hint);
  } else {
    push(i, gathered, std::move(reads), partial, out * split, part, true, true,
         std::string(kSplitFirstPassNote));
    sched_.back().hint = hint;
  }
  push(i, std::move(gathered), {partial}, buffer, out, split, true, true,
       std::string(kSplitSecondPassNote));
  sched_.back().hint = second_pass_hint(split, out, hint);
}

void Lowerer::lower_window(NodeId i, const std::vector<NodeId>& args,
                           std::vector<NodeId> gathered) {
  if (const std::size_t window = pool_window_positions(g_.node(i)); window > 0) {
    // lowering.avg_pool2d and _low_memory_max_pool_with_offsets: a Pointwise loading every
    // position of the window of its (realized) input, inlined like any other; each position
    // is a read of its own for the read thresholds.
    for (const NodeId a : args) realize(a);
    origins_[i] = std::move(gathered);
    inlinable_[i] = true;
    opcount_[i] = window;
    window_reads_[i] = window;
    // A max-pool with its offsets is a tuple: GraphLowering.run_node's reuse and read checks
    // apply to the TensorBox each getitem takes out, when that getitem is lowered
    // (lower_getitem).
    if (!g_.node(i).meta) return;
    return hint_realize(i);
  }
  std::vector<std::int64_t> reads;
  for (const NodeId a : args) {
    realize(a);
    add_reads(a, reads);
  }
  realized_[i] = true;
  push(i, std::move(gathered), std::move(reads), i, output_numel(i), 1, false, true, "");
}

std::size_t Lowerer::num_reads(NodeId i) {
  std::size_t reads = read_set(i).size();
  for (const NodeId o : origins_[i]) {
    if (window_reads_[o] > 1 && !realized_[o]) reads += window_reads_[o] - 1;
  }
  return reads + welford_extra_reads(i);
}

std::size_t Lowerer::welford_extra_reads(NodeId root) {
  // WelfordReduction.create stores each output (mean, m2) in a buffer of its own, so a value
  // loading both the mean and the variance of one var_mean makes two reads where the lowering
  // here has one buffer for the pair.
  std::set<std::pair<NodeId, std::int64_t>> outputs;
  std::set<NodeId> parents;
  ++generation_;
  std::vector<NodeId> stack{root};
  while (!stack.empty()) {
    const NodeId i = stack.back();
    stack.pop_back();
    if (stamp_[i] == generation_) continue;
    stamp_[i] = generation_;
    const graph::Node& node = g_.node(i);
    const std::vector<NodeId> args = g_.inputs(i);
    if (info_[i].lowering == Lowering::getitem && !args.empty() &&
        info_[args.front()].lowering == Lowering::welford && node.args.size() > 1 &&
        node.args[1].kind() == graph::Argument::Kind::integer) {
      outputs.insert({args.front(), node.args[1].as_int()});
      parents.insert(args.front());
      continue;
    }
    if (realized_[i] || epilogue_of_[i] >= 0) continue;
    for (const NodeId a : args) stack.push_back(a);
  }
  return outputs.size() - parents.size();
}

}  // namespace fxscope::fusion::detail
