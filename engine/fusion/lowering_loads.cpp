// What a kernel of the lowering loads: the buffers an unrealized value reads through everything
// inlined into it, and the addresses of those loads (memory_index.h) where they can be followed.

#include <algorithm>
#include <bit>
#include <cstdlib>
#include <functional>
#include <optional>
#include <set>
#include <string>
#include <string_view>

#include "fxscope/fusion/lowering_ops.h"
#include "lowerer.h"

namespace fxscope::fusion::detail {

using ops::Lowering;

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
  std::set<NodeId> viewed;  // values read through a view (a ReinterpretView of their buffer)
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
      if (inlined_fill(v, viewed.contains(v))) continue;
      add_dep(deps, layout_dep(alias_[v], load.coords, v, iter_numel));
      continue;
    }
    if (epilogue_of_[v] >= 0) {
      add_dep(deps, layout_dep(epilogue_of_[v], load.coords, v, iter_numel));
      const std::optional<NodeId> bias =
          ops::op_base_name(g_.node(v).target) == "convolution" ? arg_node(v, 2) : std::nullopt;
      if (bias && load.coords.size() > 1) stack.push_back({*bias, Coords{load.coords[1]}});
      continue;
    }
    const bool view = info_[v].lowering == Lowering::view;
    for (ValueLoad& next : model_.loads(v, load.coords)) {
      if (view) viewed.insert(next.value);
      stack.push_back(std::move(next));
    }
  }
  // A pooling window loads its input once per position, each a MemoryDep of its own over the
  // whole loop: they weigh that many times in score_fusion_memory.
  for (MemoryDep& d : deps) {
    if (!d.opaque || d.tag <= 0 || d.tag > static_cast<std::int64_t>(n_)) continue;
    const auto window = static_cast<NodeId>(d.tag - 1);
    if (info_[window].lowering == Lowering::window && window_reads_[window] > 1) {
      d.bytes *= static_cast<std::int64_t>(window_reads_[window]);
    }
  }
  // LoopBody.add_indirect names a kernel's indirect variables indirect0, indirect1, ... in the
  // order its loads make them, so two kernels whose indirect loads of a buffer come in the same
  // place hold equal MemoryDeps (the same text), whatever indices they load through.
  std::vector<std::int64_t> order;
  for (MemoryDep& d : deps) {
    if (!d.opaque || d.tag == 0) continue;
    auto at = std::find(order.begin(), order.end(), d.tag);
    if (at == order.end()) at = order.insert(order.end(), d.tag);
    d.tag = static_cast<std::int64_t>(at - order.begin()) + 1;
  }
  return deps;
}

namespace {

// A position's text, as OpCounterCSE names an index_expr of it.
std::string position_key(const Coords& coords) {
  std::string key;
  for (const IndexExpr& e : coords) {
    key += e.opaque ? " ?" : " +" + std::to_string(e.offset);
    for (const IndexTerm& t : e.terms) {
      key += " " + std::to_string(t.place) + ":" + std::to_string(t.radix) + "*" +
             std::to_string(t.mult);
    }
  }
  return key;
}

}  // namespace

Lowerer::InnerFnCount Lowerer::inner_fn_count(NodeId root) {
  ValueNumbering numbering;
  numbering.iter_numel = model_.numel(root);
  value_number(root, iteration_coords(model_.sizes(root)), numbering, true);
  return numbering.count;
}

std::size_t Lowerer::value_number(NodeId v, const Coords& coords, ValueNumbering& state,
                                  bool root) {
  std::vector<std::int64_t> at = load_key({v, coords});
  if (state.indirect_salt != 0) at.push_back(state.indirect_salt);
  if (const auto found = state.by_load.find(at); found != state.by_load.end()) {
    return found->second;
  }
  const auto name = [&](std::string key, std::size_t ops) {
    const auto [it, fresh] = state.names.emplace(std::move(key), state.names.size());
    if (fresh) state.count.ops += ops;
    state.by_load.emplace(at, it->second);
    return it->second;
  };
  const auto load = [&](std::int64_t buffer) {
    const MemoryDep dep =
        make_dep(buffer, coords, layout_strides(v), state.iter_numel, model_.element_bytes(v));
    std::string key = "load " + std::to_string(dep.buffer) + " " + std::to_string(dep.offset);
    if (dep.opaque) {
      // An indirect load's index holds a temporary: each is a name of its own.
      key += " opaque " + std::to_string(state.names.size());
    }
    for (const IndexTerm& t : dep.terms) {
      key += " " + std::to_string(t.place) + ":" + std::to_string(t.radix) + "*" +
             std::to_string(t.mult);
    }
    const std::size_t before = state.names.size();
    const std::size_t id = name(std::move(key), 1);
    if (state.names.size() > before) {
      ++state.count.loads;
      if (dep.opaque || !dep.terms.empty()) ++state.count.nontrivial_reads;
    }
    return id;
  };
  if (++state.steps > kMaxWalkSteps || is_sym(v)) return name("opaque " + std::to_string(v), 0);
  if (realized_[v] && !root) return load(alias_[v]);
  if (epilogue_of_[v] >= 0) {
    // A Pointwise of a library call's buffer: the load, and the bias added to it.
    const std::size_t loaded = load(epilogue_of_[v]);
    std::string key = std::string(g_.node(v).target) + " " + std::to_string(loaded);
    const std::optional<NodeId> bias =
        ops::op_base_name(g_.node(v).target) == "convolution" ? arg_node(v, 2) : std::nullopt;
    if (bias && coords.size() > 1) {
      key += " " + std::to_string(value_number(*bias, Coords{coords[1]}, state, false));
    }
    return name(std::move(key), 1);
  }
  if (inlined_constant(g_.node(v)) && coords.size() == 1) {
    // lowering.tensor: a binary search over the values by the position, index_expr of it
    // compared (lt) with each midpoint's constant, a where per midpoint, a constant per value.
    // The values are not in the post-grad graph: each is taken as a constant named already,
    // the same at a position in every such tensor (an image normalisation's 0.5s).
    const std::size_t index = name("index_expr" + position_key(coords), 1);
    const std::function<std::size_t(std::int64_t, std::int64_t)> search =
        [&](std::int64_t start, std::int64_t end) -> std::size_t {
      if (end - start == 1) {
        return name("constant " + std::to_string(start), 0);
      }
      const std::int64_t mid = (end - start) / 2 + start;
      // The midpoint is an int64 constant, the same name as an integral scalar of that value.
      const std::string mid_key =
          std::to_string(static_cast<int>(graph::Argument::Kind::integer)) + std::to_string(mid);
      const std::size_t mid_ops = state.constants.insert(mid_key).second ? 1 : 0;
      const std::size_t lt =
          name("lt " + std::to_string(index) + " " + std::to_string(mid), 1 + mid_ops);
      const std::size_t lo = search(start, mid);
      const std::size_t hi = search(mid, end);
      return name(
          "where " + std::to_string(lt) + " " + std::to_string(lo) + " " + std::to_string(hi), 1);
    };
    const std::size_t id = search(0, std::max<std::int64_t>(1, model_.numel(v)));
    state.by_load.emplace(at, id);
    return id;
  }
  const std::vector<ValueLoad> inputs = model_.loads(v, coords);
  const ops::Lowering lowering = info_[v].lowering;
  if (lowering == ops::Lowering::getitem && inputs.size() == 1 && welford_variance(v) &&
      realized_[inputs.front().value]) {
    // var_mean_welford_: the variance is a Pointwise of m2, a buffer of its own (not the mean's),
    // m2 / maximum(0, N - correction): the load, the three constants (a correction of 0 is the
    // zero's name), a sub, a maximum and a truediv.
    const NodeId parent = inputs.front().value;
    const std::size_t m2 = load(-2 - static_cast<std::int64_t>(alias_[parent]));
    const double correction = welford_correction(parent);
    const double rnumel = static_cast<double>(model_.numel(arg_node(parent, 0).value_or(parent))) /
                          static_cast<double>(std::max<std::int64_t>(1, model_.numel(v)));
    const std::string floating = std::to_string(static_cast<int>(graph::Argument::Kind::floating));
    std::size_t ops = 3;
    for (const double c : {0.0, correction, rnumel}) {
      if (state.constants.insert(floating + graph::Argument::floating(c).to_string()).second) {
        ++ops;
      }
    }
    return name("variance " + std::to_string(m2), ops);
  }
  if ((lowering == ops::Lowering::view || lowering == ops::Lowering::getitem) &&
      inputs.size() == 1) {
    // A view only re-indexes its input: it names what the input names there.
    const std::size_t id = value_number(inputs.front().value, inputs.front().coords, state, false);
    state.by_load.emplace(at, id);
    return id;
  }
  // OpCounterCSE names an op by its text: the op, its scalars and the names of its operands.
  const graph::Node& node = g_.node(v);
  std::string key = std::string(node.target);
  for (const graph::Argument& a : node.args) {
    if (!a.is_node()) key += " " + a.to_string();
  }
  if (ops::op_base_name(node.target) == "iota") {
    // lowering.iota is ops.index_expr of the position: iotas broadcast along different dims
    // (an upsampling's rows and columns) are different names.
    key += " at" + position_key(coords);
  }
  // An indirect load (index, embedding, gather): its data is loaded at an address held in
  // temporaries, the indices' values (one per index tensor: a bilinear upsampling's four corner
  // loads differ by the row index, the column index or both), so through other indices it is
  // another load.
  const std::optional<std::size_t> index_pos = indirect_indices_position(node.target);
  std::vector<NodeId> index_args;
  if (index_pos && node.args.size() > *index_pos) {
    node.args[*index_pos].for_each_node([&](NodeId n) { index_args.push_back(n); });
  }
  const std::optional<NodeId> data_arg = index_pos ? arg_node(v, 0) : std::nullopt;
  std::int64_t index_salt = 0;
  for (const NodeId index_arg : index_args) {
    for (const ValueLoad& in : inputs) {
      if (in.value != index_arg) continue;
      const std::size_t index_name = value_number(in.value, in.coords, state, false);
      index_salt = index_salt * 1000003 + static_cast<std::int64_t>(index_name) + 1;
    }
  }
  for (const ValueLoad& in : inputs) {
    const std::int64_t salt = state.indirect_salt;
    if (index_salt != 0 && data_arg && in.value == *data_arg) {
      state.indirect_salt = salt * 1000003 + index_salt;
    }
    key += " " + std::to_string(value_number(in.value, in.coords, state, false));
    state.indirect_salt = salt;
  }
  const std::size_t ops = ops::op_base_name(node.target).ends_with("_scatter")
                              ? scatter_mask_ops(v, coords, state.constants)
                              : node_ops(v, state.constants);
  return name(std::move(key), ops);
}

std::size_t Lowerer::scatter_mask_ops(NodeId v, const Coords& coords,
                                      std::set<std::string>& named) const {
  const graph::Node& node = g_.node(v);
  const std::string_view base = ops::op_base_name(node.target);
  const std::vector<std::int64_t>& sizes = model_.sizes(v);
  const auto rank = static_cast<std::int64_t>(sizes.size());
  const auto int_at = [&](std::size_t k, std::int64_t fallback) {
    return node.args.size() > k && node.args[k].kind() == graph::Argument::Kind::integer
               ? node.args[k].as_int()
               : fallback;
  };
  std::int64_t dim = int_at(2, 0);
  if (dim < 0) dim += rank;
  if ((base != "slice_scatter" && base != "select_scatter") || dim < 0 || dim >= rank ||
      coords.size() != sizes.size()) {
    return node_ops(v, named);
  }
  const std::int64_t dim_size = sizes[static_cast<std::size_t>(dim)];
  // OpCounterCSE names an op by its text: a test of the same index against the same bound, made
  // by two scatters into one buffer, is one name. A name fresh here is one op.
  const std::string at = position_key(Coords{coords[static_cast<std::size_t>(dim)]});
  std::size_t n = 0;
  const auto op = [&](const std::string& text) {
    if (named.insert(text).second) ++n;
    return text;
  };
  // A value of another dtype is cast to self's first (to_dtype).
  const std::optional<NodeId> src = arg_node(v, 1);
  if (src && node.meta && g_.node(*src).meta && g_.node(*src).meta->dtype != node.meta->dtype) {
    ++n;
  }
  if (base == "select_scatter") {
    // lowering.select_scatter: where(eq(index_expr(idx[dim]), index_expr(index)), src, self),
    // both index_exprs int32.
    std::int64_t index = int_at(3, 0);
    if (index < 0) index += dim_size;
    const std::string pos = op("index_expr i32" + at);
    const std::string bound = op("index_expr i32 " + std::to_string(index));
    op("eq " + pos + " " + bound);
    return n + 1;
  }
  // lowering.slice_scatter: a slice of the whole dim is src itself; otherwise the position
  // (index_expr int64) tested against each bound the slice has (ge start, lt end, and the
  // remainder by the step eq 0), the tests and-ed, src loaded under the mask (masked: its other
  // value is a Python scalar, no op), and a where of the mask, that load and self.
  std::int64_t start = int_at(3, 0);
  std::int64_t end = int_at(4, dim_size);
  const std::int64_t step = int_at(5, 1);
  if (start < 0) start += dim_size;
  if (end < 0) end += dim_size;
  start = std::clamp<std::int64_t>(start, 0, dim_size);
  end = std::clamp<std::int64_t>(end, start, dim_size);
  if (start == 0 && end == dim_size && step == 1) return 0;
  const std::string pos = op("index_expr i64" + at);
  std::vector<std::string> tests;
  if (start != 0) {
    tests.push_back(op("ge " + pos + " " + op("index_expr i64 " + std::to_string(start))));
  }
  if (end != dim_size) {
    tests.push_back(op("lt " + pos + " " + op("index_expr i64 " + std::to_string(end))));
  }
  if (step != 1) {
    const std::string rem =
        op("index_expr mod" + at + " " + std::to_string(start) + " " + std::to_string(step));
    const std::string zero = op(std::to_string(static_cast<int>(graph::Argument::Kind::integer)) +
                                graph::Argument::integer(0).to_string());
    tests.push_back(op("eq " + rem + " " + zero));
  }
  std::string mask = tests.front();
  for (std::size_t k = 1; k < tests.size(); ++k) mask = op("and " + mask + " " + tests[k]);
  return n + 2;  // the masked load and the where
}

bool Lowerer::welford_variance(NodeId i) const {
  const graph::Node& node = g_.node(i);
  const std::vector<NodeId> args = g_.inputs(i);
  return info_[i].lowering == Lowering::getitem && !args.empty() &&
         info_[args.front()].lowering == Lowering::welford && node.args.size() > 1 &&
         node.args[1].kind() == graph::Argument::Kind::integer && node.args[1].as_int() == 0;
}

double Lowerer::welford_correction(NodeId welford) const {
  // var_mean.correction: correction=None (or absent) is Bessel's 1.
  for (const auto& [name, value] : g_.node(welford).kwargs) {
    if (name != "correction") continue;
    if (value.kind() == graph::Argument::Kind::integer) return static_cast<double>(value.as_int());
    if (value.kind() == graph::Argument::Kind::floating) return value.as_float();
  }
  return 1.0;
}

namespace {

// The constant a fill of NODE holds, keyed by its dtype and its value as written; nothing for
// other ops.
std::optional<std::string> fill_constant(const graph::Node& node) {
  const std::string_view base = ops::op_base_name(node.target);
  std::optional<std::size_t> at;
  std::string value;
  if (base == "full" || base == "full_like") at = 1;
  if (base == "new_full") at = 2;
  if (base == "scalar_tensor") at = 0;
  if (base == "zeros" || base == "zeros_like" || base == "new_zeros") value = "0";
  if (base == "ones" || base == "ones_like" || base == "new_ones") value = "1";
  if (at) {
    if (node.args.size() <= *at || node.args[*at].is_node()) return std::nullopt;
    value = node.args[*at].to_string();
  }
  if (value.empty() || !node.meta) return std::nullopt;
  // OpCounterCSE names ops.constant by its text: 0 and 0.0 are two names.
  return "fill " + node.meta->dtype + " " + value;
}

}  // namespace

std::size_t Lowerer::node_ops(NodeId i, std::set<std::string>& constants) const {
  switch (info_[i].lowering) {
    case ops::Lowering::view:
    case ops::Lowering::getitem:
      return 0;
    case ops::Lowering::window:
      return std::max<std::size_t>(window_reads_[i], 1);
    default:
      break;
  }
  const graph::Node& node = g_.node(i);
  const std::string_view base = ops::op_base_name(node.target);
  if (base == "cat" && !node.args.empty()) {
    // pointwise_cat: the position along the dim and a zero; per input its end, a test against
    // its start and its end, and a masked load (a start is the previous input's end, the same
    // name); an and of the two tests for an input in the middle, and a where per input but the
    // last.
    // lowering.cat first casts each input of another dtype to the promoted one (to_dtype).
    const std::size_t n = node.args[0].items().size();
    std::size_t casts = 0;
    node.args[0].for_each_node([&](NodeId in) {
      if (node.meta && g_.node(in).meta && g_.node(in).meta->dtype != node.meta->dtype) ++casts;
    });
    return 2 + 4 * n + (n - 1) + (n > 2 ? n - 2 : 0) + casts;
  }
  // Ops whose lowering only loads (clone, an index or embedding through indirect_indexing, a
  // cast to the dtype it has) name no value of their own; iota is one index_expr.
  if (base == "clone" || base == "lift_fresh_copy" || base == "alias" || base == "embedding" ||
      base == "index" || base == "_unsafe_index") {
    return 0;
  }
  if (base == "iota") return 1;
  if (const std::optional<std::string> fill = fill_constant(node)) {
    // lowering.full, scalar_tensor, zeros, ones (tensor_constructor): the value is one
    // ops.constant of the fill's dtype, named once however many fills hold it, and no op.
    return constants.insert(*fill).second ? 1 : 0;
  }
  if (base == "convert_element_type" || base == "_to_copy") {
    const std::optional<NodeId> in = arg_node(i, 0);
    const bool same =
        in && node.meta && g_.node(*in).meta && node.meta->dtype == g_.node(*in).meta->dtype;
    return same ? 0 : 1;
  }
  if (base == "pow" && node.args.size() > 1 && !node.args[1].is_node()) {
    // lowering.pow: an integral exponent is multiplied out (pow_recursive), one mul per
    // squaring and one per set bit past the first, with no constant.
    const graph::Argument& e = node.args[1];
    const double v = e.kind() == graph::Argument::Kind::integer
                         ? static_cast<double>(e.as_int())
                         : std::strtod(e.to_string().c_str(), nullptr);
    if (v >= 1 && v <= 64 && v == static_cast<double>(static_cast<std::int64_t>(v))) {
      const auto n = static_cast<std::uint64_t>(v);
      return static_cast<std::size_t>(std::bit_width(n)) - 2 +
             static_cast<std::size_t>(std::popcount(n));
    }
  }
  std::size_t n = 1;
  if (info_[i].lowering == ops::Lowering::pointwise && node.meta && node.meta->dtype != "b8") {
    // lowering.transform_args (type promotion): each tensor input of another dtype than the
    // promoted one is cast first (to_dtype), one op; where's condition is not promoted.
    const bool where = base == "where";
    for (std::size_t k = where ? 1 : 0; k < node.args.size(); ++k) {
      if (!node.args[k].is_node()) continue;
      const graph::Node& in = g_.node(node.args[k].as_node());
      if (in.meta && !in.meta->is_sym_scalar() && in.meta->dtype != node.meta->dtype) ++n;
    }
  }
  for (const graph::Argument& a : node.args) {
    const auto kind = a.kind();
    if (kind == graph::Argument::Kind::integer || kind == graph::Argument::Kind::floating ||
        kind == graph::Argument::Kind::boolean) {
      // ops.constant: the same value twice is one name.
      if (constants.insert(std::to_string(static_cast<int>(kind)) + a.to_string()).second) ++n;
    }
  }
  return n;
}

bool Lowerer::inlined_fill(NodeId i, bool through_view) const {
  // ComputedBuffer.make_loader inlines the buffer's Pointwise; a view of a buffer in memory is a
  // ReinterpretView, whose loader loads.
  return !through_view && alias_[i] == i && loadless_[i];
}

std::vector<std::int64_t> Lowerer::read_set(NodeId i) {
  std::vector<std::int64_t> reads;
  add_reads(i, reads);
  return reads;
}

void Lowerer::add_reads(NodeId root, std::vector<std::int64_t>& reads) {
  ++generation_;
  std::vector<NodeId> stack{root};
  std::set<NodeId> viewed;  // values read through a view (a ReinterpretView of their buffer)
  while (!stack.empty()) {
    const NodeId i = stack.back();
    stack.pop_back();
    if (stamp_[i] == generation_) continue;
    stamp_[i] = generation_;
    if (realized_[i]) {
      if (!is_sym(i) && !inlined_fill(i, viewed.contains(i))) {
        reads.push_back(alias_[i]);
      }
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
    const bool view = info_[i].lowering == Lowering::view;
    for (const NodeId a : value_inputs(i)) {
      if (view) viewed.insert(a);
      stack.push_back(a);
    }
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
