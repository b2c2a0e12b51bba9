// Building flex attention's math graph node by node, with each node's value annotated (dtype,
// sizes, contiguous strides) as a log's readable code would give them.

#include "fxscope/gpu/flex_math_graph.h"

#include <cmath>
#include <map>

#include "fxscope/gpu/dense_copy.h"
#include "fxscope/guards/dtype.h"
#include "fxscope/ops/op_registry.h"
#include "fxscope/ops/tuple_item.h"

namespace fxscope::gpu {
namespace {

using graph::Argument;
using graph::NodeId;
using Sizes = std::vector<std::int64_t>;

graph::TensorMeta contiguous(const std::string& dtype, const Sizes& sizes,
                             const std::string& device) {
  graph::TensorMeta m;
  m.dtype = dtype;
  m.device = device;
  for (const std::int64_t d : sizes) m.sizes.push_back(graph::Dim::constant(d));
  for (const std::int64_t d : dense_strides(sizes, false)) {
    m.strides.push_back(graph::Dim::constant(d));
  }
  return m;
}

Sizes sizes_of(const graph::TensorMeta& m) {
  Sizes s;
  for (const graph::Dim& d : m.sizes) s.push_back(d.value);
  return s;
}

bool is_static(const graph::TensorMeta& m) {
  for (const auto* dims : {&m.sizes, &m.strides}) {
    for (const graph::Dim& d : *dims) {
      if (d.is_symbolic()) return false;
    }
  }
  return true;
}

// NumPy broadcasting of A and B (sizes aligned at their last dimension).
Sizes broadcast(const Sizes& a, const Sizes& b) {
  Sizes out(std::max(a.size(), b.size()), 1);
  for (std::size_t i = 0; i < out.size(); ++i) {
    const std::int64_t x = i < a.size() ? a[a.size() - 1 - i] : 1;
    const std::int64_t y = i < b.size() ? b[b.size() - 1 - i] : 1;
    out[out.size() - 1 - i] = x == 1 ? y : x;
  }
  return out;
}

class MathGraph {
 public:
  explicit MathGraph(std::string device) : device_(std::move(device)) {
    out_.set_name("flex_attention_math");
  }

  NodeId input(const std::string& name, const graph::TensorMeta& meta) {
    graph::Node n;
    n.name = name;
    n.op = graph::OpKind::placeholder;
    n.target = name;
    n.meta = meta;
    return add(std::move(n));
  }

  NodeId op(const std::string& target, std::vector<Argument> args, const std::string& dtype,
            const Sizes& sizes, std::vector<graph::KeywordArgument> kwargs = {}) {
    return op_with_meta(target, std::move(args), contiguous(dtype, sizes, device_),
                        std::move(kwargs));
  }

  NodeId op_with_meta(const std::string& target, std::vector<Argument> args, graph::TensorMeta meta,
                      std::vector<graph::KeywordArgument> kwargs = {}) {
    graph::Node n;
    n.name = "fx" + std::to_string(out_.size());
    n.target = target;
    n.args = std::move(args);
    n.kwargs = std::move(kwargs);
    n.meta = std::move(meta);
    return add(std::move(n));
  }

  NodeId view(NodeId x, const Sizes& sizes) {
    std::vector<Argument> dims;
    for (const std::int64_t s : sizes) dims.push_back(Argument::integer(s));
    return op("torch.ops.aten.view.default", {Argument::node(x), Argument::list(dims)}, dtype(x),
              sizes);
  }

  NodeId convert(NodeId x, const std::string& to) {
    return op("torch.ops.prims.convert_element_type.default",
              {Argument::node(x), Argument::symbol(torch_dtype(to))}, to, sizes(x));
  }

  NodeId full(double value, const std::string& dtype) {
    return op("torch.ops.aten.full.default", {Argument::list({}), Argument::floating(value)}, dtype,
              {},
              {{"dtype", Argument::symbol(torch_dtype(dtype))},
               {"device", Argument::symbol("device(type='cuda', index=0)")},
               {"pin_memory", Argument::boolean(false)}});
  }

  // The index tensor of dimension AXIS of a RANK-4 broadcast: iota(SIZE) viewed as 1 x .. x SIZE.
  NodeId index(std::int64_t size, std::size_t axis) {
    const NodeId iota = op("torch.ops.prims.iota.default", {Argument::integer(size)}, "i32", {size},
                           {{"start", Argument::integer(0)},
                            {"step", Argument::integer(1)},
                            {"dtype", Argument::symbol("torch.int32")},
                            {"device", Argument::symbol("device(type='cuda', index=0)")},
                            {"requires_grad", Argument::boolean(false)}});
    Sizes s(4, 1);
    s[axis] = size;
    return view(iota, s);
  }

  void output(const std::vector<NodeId>& values) {
    std::vector<Argument> items;
    for (const NodeId v : values) items.push_back(Argument::node(v));
    graph::Node n;
    n.name = "output";
    n.op = graph::OpKind::output;
    n.target = "output";
    n.args = {Argument::tuple(items)};
    add(std::move(n));
  }

  const std::string& dtype(NodeId x) const { return out_.node(x).meta->dtype; }
  const std::string& device() const { return device_; }
  Sizes sizes(NodeId x) const { return sizes_of(*out_.node(x).meta); }
  graph::Graph take() { return std::move(out_); }

  static std::string torch_dtype(const std::string& short_name) {
    const auto d = guards::parse_dtype(short_name);
    return std::string(d ? d->torch_name : "torch.float32");
  }

 private:
  NodeId add(graph::Node n) {
    const auto id = out_.add_node(std::move(n));
    return *id;  // names are made unique above
  }

  std::string device_;
  graph::Graph out_;
};

// Copies the ops of SUB (a score or mask subgraph) into M, its placeholders bound in order to
// BOUND, every value broadcast over the indices it reads. Returns the node SUB returns.
// aten.index.Tensor(self, [i0, i1, ..]) of a subgraph, its arguments mapped by TO: self's leading
// dims indexed by tensors that broadcast together, the rest kept.
Result<NodeId> inline_gather(MathGraph& m, const graph::Node& n, const std::map<NodeId, NodeId>& to,
                             const std::string& where) {
  if (n.args.size() < 2 || !n.args[0].is_node() || !to.count(n.args[0].as_node())) {
    return make_error(where + ": " + n.name + " indexes no tensor");
  }
  const NodeId self = to.at(n.args[0].as_node());
  const Sizes self_sizes = m.sizes(self);
  Sizes shape;
  std::vector<Argument> indices;
  for (const Argument& i : n.args[1].items()) {
    if (!i.is_node() || !to.count(i.as_node())) {
      return make_error(where + ": " + n.name + " indexes with other than tensors");
    }
    const NodeId t = to.at(i.as_node());
    shape = broadcast(shape, m.sizes(t));
    indices.push_back(Argument::node(t));
  }
  if (indices.empty() || indices.size() > self_sizes.size()) {
    return make_error(where + ": " + n.name + " takes " + std::to_string(indices.size()) +
                      " indices of a " + std::to_string(self_sizes.size()) + "-d tensor");
  }
  shape.insert(shape.end(), self_sizes.begin() + static_cast<std::ptrdiff_t>(indices.size()),
               self_sizes.end());
  return m.op(n.target, {Argument::node(self), Argument::list(indices)}, n.meta->dtype, shape);
}

Result<NodeId> inline_subgraph(MathGraph& m, const graph::Graph& sub,
                               const std::vector<NodeId>& bound, const std::string& where) {
  std::map<NodeId, NodeId> to;
  std::size_t placeholder = 0;
  std::optional<NodeId> result;
  for (NodeId id = 0; id < sub.size(); ++id) {
    const graph::Node& n = sub.node(id);
    if (n.op == graph::OpKind::placeholder) {
      if (placeholder >= bound.size()) {
        return make_error(where + ": subgraph " + sub.name() + " takes more inputs than " +
                          std::to_string(bound.size()));
      }
      to[id] = bound[placeholder++];
      continue;
    }
    if (n.op == graph::OpKind::output) {
      if (!n.args.empty()) {
        n.args.front().for_each_node([&](NodeId r) {
          if (!result && to.count(r)) result = to[r];
        });
      }
      continue;
    }
    if (!n.is_op() || !n.meta || n.meta->is_sym_scalar()) {
      return make_error(where + ": subgraph " + sub.name() + " node " + n.name +
                        " is no tensor op");
    }
    const ops::OpInfo info = ops::classify(n.target);
    const std::string base(ops::op_base_name(n.target));
    const bool makes_values = base == "full" || base == "scalar_tensor";
    if (base == "index") {
      // A captured buffer read at the indices (a document mask's ids[q_idx], a bias table's
      // row): the indices broadcast, then the buffer's dims they do not index.
      auto gathered = inline_gather(m, n, to, where + ": subgraph " + sub.name());
      if (!gathered) return gathered.error();
      to[id] = *gathered;
      continue;
    }
    if (info.lowering != ops::Lowering::pointwise && !makes_values) {
      return make_error(where + ": subgraph " + sub.name() + " applies " +
                        std::string(ops::op_key(n.target)) +
                        ", which fxscope applies only elementwise ops of");
    }
    Sizes shape = sizes_of(*n.meta);
    const auto remap = [&](const Argument& a, auto&& self) -> Argument {
      if (a.is_node()) {
        const NodeId t = to.at(a.as_node());
        shape = broadcast(shape, m.sizes(t));
        return Argument::node(t);
      }
      if (a.kind() == Argument::Kind::list || a.kind() == Argument::Kind::tuple) {
        std::vector<Argument> items;
        for (const Argument& i : a.items()) items.push_back(self(i, self));
        return a.kind() == Argument::Kind::list ? Argument::list(items) : Argument::tuple(items);
      }
      return a;
    };
    std::vector<Argument> args;
    for (const Argument& a : n.args) args.push_back(remap(a, remap));
    std::vector<graph::KeywordArgument> kwargs;
    for (const auto& [k, v] : n.kwargs) kwargs.emplace_back(k, remap(v, remap));
    to[id] = m.op(n.target, std::move(args), n.meta->dtype, shape, std::move(kwargs));
  }
  if (!result) return make_error(where + ": subgraph " + sub.name() + " returns no op's value");
  return *result;
}

const graph::Graph* subgraph_at(const graph::Graph& g, const Argument& a) {
  if (!a.is_node()) return nullptr;
  const graph::Node& attr = g.node(a.as_node());
  return attr.op == graph::OpKind::get_attr ? g.find_subgraph(attr.target) : nullptr;
}

std::vector<NodeId> nodes_of(const Argument& a) {
  std::vector<NodeId> out;
  a.for_each_node([&](NodeId n) { out.push_back(n); });
  return out;
}

// The sizes of an attention's query [B, H, M, D], key [B, H, N, D] and value [B, H, N, Dv].
// H counts the query's heads; the key and value have H / G (grouped-query attention, G > 1).
struct Shapes {
  std::int64_t B = 0, H = 0, M = 0, D = 0, N = 0, Dv = 0, G = 1;
};

// What both math graphs read of a flex op: its q, k, v, scale, subgraphs and buffers, with its
// sizes checked; AT says at which arguments.
struct FlexArgs {
  const graph::Graph* score_mod = nullptr;
  const graph::Graph* mask_mod = nullptr;
  const graph::TensorMeta* q = nullptr;
  const graph::TensorMeta* k = nullptr;
  const graph::TensorMeta* v = nullptr;
  Shapes shape;
  double scale = 1.0;
  std::vector<NodeId> score_buffers;  // in the enclosing graph
  std::vector<NodeId> mask_buffers;
};

// The positions of a flex op's arguments: the score subgraph, the block mask (its last item the
// mask subgraph), the scale, the score and mask subgraphs' buffers.
struct FlexArgPositions {
  std::size_t score_mod, block_mask, scale, score_buffers, mask_buffers;
};
constexpr FlexArgPositions kForwardArgs{3, 4, 5, 7, 8};
// flex_attention_backward: the forward graph at 7, the joint graph at 8.
constexpr FlexArgPositions kBackwardArgs{7, 9, 10, 12, 13};

Result<FlexArgs> read_flex_args(const graph::Graph& g, NodeId flex, const FlexArgPositions& at,
                                const std::string& where) {
  const graph::Node& node = g.node(flex);
  if (node.args.size() <= at.scale || !node.args[0].is_node() || !node.args[1].is_node() ||
      !node.args[2].is_node()) {
    return make_error(where + ": expected (q, k, v, ...) and its subgraphs, got " +
                      std::to_string(node.args.size()) + " arguments");
  }
  FlexArgs f;
  f.score_mod = subgraph_at(g, node.args[at.score_mod]);
  const auto& mask_items = node.args[at.block_mask].items();
  f.mask_mod = mask_items.empty() ? nullptr : subgraph_at(g, mask_items.back());
  if (f.score_mod == nullptr || f.mask_mod == nullptr) {
    return make_error(where + ": its score or mask subgraph is not in the log");
  }
  const auto& qm = g.node(node.args[0].as_node()).meta;
  const auto& km = g.node(node.args[1].as_node()).meta;
  const auto& vm = g.node(node.args[2].as_node()).meta;
  if (!qm || !km || !vm || qm->rank() != 4 || km->rank() != 4 || vm->rank() != 4) {
    return make_error(where + ": expected 4-d query, key and value");
  }
  if (!is_static(*qm) || !is_static(*km) || !is_static(*vm)) {
    return make_error(where + ": symbolic sizes, which fxscope's math graph does not take");
  }
  const Sizes q = sizes_of(*qm);
  const Sizes k = sizes_of(*km);
  const Sizes v = sizes_of(*vm);
  if (q[0] != k[0] || k[2] != v[2] || k[0] != v[0] || k[1] != v[1] || k[1] <= 0 ||
      q[1] % k[1] != 0) {
    return make_error(where +
                      ": key and value heads that do not divide the query's, or broadcast "
                      "batches, which fxscope's math graph does not take");
  }
  f.q = &*qm;
  f.k = &*km;
  f.v = &*vm;
  f.shape = {q[0], q[1], q[2], q[3], k[2], v[3], q[1] / k[1]};
  const Argument& scale = node.args[at.scale];
  f.scale = scale.kind() == Argument::Kind::floating
                ? scale.as_float()
                : 1.0 / std::sqrt(static_cast<double>(f.shape.D));
  for (const auto& [arg, list] : {std::pair{at.score_buffers, &f.score_buffers},
                                  std::pair{at.mask_buffers, &f.mask_buffers}}) {
    if (node.args.size() <= arg) continue;
    for (const NodeId b : nodes_of(node.args[arg])) {
      const auto& bm = g.node(b).meta;
      if (!bm || !is_static(*bm)) return make_error(where + ": a captured buffer has no sizes");
      list->push_back(b);
    }
  }
  return f;
}

// The meta of getitem K of OP in G, when the graph takes it with static sizes.
std::optional<graph::TensorMeta> getitem_meta(const graph::Graph& g, NodeId op, std::int64_t k) {
  for (NodeId u = 0; u < g.size(); ++u) {
    const graph::Node& un = g.node(u);
    const auto item = ops::tuple_item(un);
    if (item && item->of == op && item->index == k && un.meta && is_static(*un.meta)) {
      return un.meta;
    }
  }
  return std::nullopt;
}

// X [B*H, R, C] transposed to [B*H, C, R] (a view).
NodeId transposed(MathGraph& m, NodeId x) {
  const Sizes s = m.sizes(x);
  graph::TensorMeta t = contiguous(m.dtype(x), {s[0], s[2], s[1]}, m.device());
  t.strides = {graph::Dim::constant(s[1] * s[2]), graph::Dim::constant(1),
               graph::Dim::constant(s[2])};
  return m.op_with_meta(
      "torch.ops.aten.permute.default",
      {Argument::node(x),
       Argument::list({Argument::integer(0), Argument::integer(2), Argument::integer(1)})},
      t);
}

// X (any layout) as a contiguous [B*H, R, C] of DTYPE: converted, or cloned, then viewed.
NodeId batched(MathGraph& m, NodeId x, const std::string& dtype) {
  const Sizes s = m.sizes(x);
  const NodeId dense = m.dtype(x) == dtype
                           ? m.op("torch.ops.aten.clone.default", {Argument::node(x)}, dtype, s,
                                  {{"memory_format", Argument::symbol("torch.contiguous_format")}})
                           : m.convert(x, dtype);
  return m.view(dense, {s[0] * s[1], s[2], s[3]});
}

// X [B, Hkv, N, D] with each head repeated GROUPS times, [B, Hkv * GROUPS, N, D]
// (repeat_interleave on the heads, as math_attention does for grouped-query attention).
NodeId repeat_heads(MathGraph& m, NodeId x, std::int64_t groups) {
  if (groups == 1) return x;
  const Sizes s = m.sizes(x);
  const std::string dtype = m.dtype(x);
  const NodeId dense = m.op("torch.ops.aten.clone.default", {Argument::node(x)}, dtype, s,
                            {{"memory_format", Argument::symbol("torch.contiguous_format")}});
  const NodeId one = m.view(dense, {s[0], s[1], 1, s[2], s[3]});
  const Sizes wide = {s[0], s[1], groups, s[2], s[3]};
  graph::TensorMeta expanded = contiguous(dtype, {s[0], s[1], 1, s[2], s[3]}, m.device());
  expanded.sizes[2] = graph::Dim::constant(groups);
  expanded.strides[2] = graph::Dim::constant(0);
  std::vector<Argument> dims;
  for (const std::int64_t d : wide) dims.push_back(Argument::integer(d));
  const NodeId e = m.op_with_meta("torch.ops.aten.expand.default",
                                  {Argument::node(one), Argument::list(dims)}, expanded);
  const NodeId copied = m.op("torch.ops.aten.clone.default", {Argument::node(e)}, dtype, wide,
                             {{"memory_format", Argument::symbol("torch.contiguous_format")}});
  return m.view(copied, {s[0], s[1] * groups, s[2], s[3]});
}

// X [B, Hkv * GROUPS, N, D] summed over each head's GROUPS copies: [B, Hkv, N, D].
NodeId sum_heads(MathGraph& m, NodeId x, std::int64_t groups) {
  if (groups == 1) return x;
  const Sizes s = m.sizes(x);
  const NodeId split = m.view(x, {s[0], s[1] / groups, groups, s[2], s[3]});
  return m.op("torch.ops.aten.sum.dim_IntList",
              {Argument::node(split), Argument::list({Argument::integer(2)})}, m.dtype(x),
              {s[0], s[1] / groups, s[2], s[3]});
}

NodeId bmm(MathGraph& m, NodeId a, NodeId b, const std::string& dtype) {
  const Sizes sa = m.sizes(a);
  const Sizes sb = m.sizes(b);
  return m.op("torch.ops.aten.bmm.default", {Argument::node(a), Argument::node(b)}, dtype,
              {sa[0], sa[1], sb[2]});
}

// _math_attention_inner: the scaled scores in f32, the index tensors, the mask, and the scores
// after the score subgraph with masked positions at -inf.
struct Inner {
  NodeId scores = 0, post = 0, mask = 0;
  std::vector<NodeId> indices;  // b, h, q_idx, kv_idx
};

Result<Inner> attention_inner(MathGraph& m, const FlexArgs& f, NodeId qi, NodeId ki,
                              const std::vector<NodeId>& score_buffers,
                              const std::vector<NodeId>& mask_buffers, const std::string& where) {
  const Shapes& s = f.shape;
  const NodeId s3 = bmm(m, batched(m, qi, "f32"), transposed(m, batched(m, ki, "f32")), "f32");
  Inner in;
  in.scores = m.op("torch.ops.aten.mul.Tensor",
                   {Argument::node(m.view(s3, {s.B, s.H, s.M, s.N})), Argument::floating(f.scale)},
                   "f32", {s.B, s.H, s.M, s.N});
  in.indices = {m.index(s.B, 0), m.index(s.H, 1), m.index(s.M, 2), m.index(s.N, 3)};
  std::vector<NodeId> score_in = {in.scores};
  score_in.insert(score_in.end(), in.indices.begin(), in.indices.end());
  score_in.insert(score_in.end(), score_buffers.begin(), score_buffers.end());
  auto modded = inline_subgraph(m, *f.score_mod, score_in, where);
  if (!modded) return modded.error();
  std::vector<NodeId> mask_in = in.indices;
  mask_in.insert(mask_in.end(), mask_buffers.begin(), mask_buffers.end());
  auto mask = inline_subgraph(m, *f.mask_mod, mask_in, where);
  if (!mask) return mask.error();
  in.mask = *mask;
  in.post = m.op(
      "torch.ops.aten.where.self",
      {Argument::node(*mask), Argument::node(*modded), Argument::node(m.full(-INFINITY, "f32"))},
      "f32", {s.B, s.H, s.M, s.N});
  return in;
}

// X stored in META's layout (a copy), or X itself when META is absent or of other sizes.
NodeId stored_as(MathGraph& m, NodeId x, const std::optional<graph::TensorMeta>& meta) {
  if (!meta || sizes_of(*meta) != m.sizes(x) || meta->dtype != m.dtype(x)) return x;
  return m.op_with_meta("torch.ops.aten.clone.default", {Argument::node(x)}, *meta);
}

}  // namespace

Result<graph::Graph> flex_attention_math(const graph::Graph& g, NodeId flex) {
  const std::string where = "flex attention " + g.node(flex).name;
  // flex_attention(q, k, v, score_mod, block_mask, scale, kernel_options, score_mod_buffers,
  //                mask_mod_buffers)
  auto f = read_flex_args(g, flex, kForwardArgs, where);
  if (!f) return f.error();
  const auto [B, H, M, D, N, Dv, G] = f->shape;
  static_cast<void>(D);
  MathGraph m(f->q->device);
  const NodeId qi = m.input("query", *f->q);
  const NodeId ki = m.input("key", *f->k);
  const NodeId vi = m.input("value", *f->v);
  std::vector<NodeId> score_buffers;
  std::vector<NodeId> mask_buffers;
  for (const NodeId b : f->score_buffers) {
    score_buffers.push_back(m.input("buffer" + std::to_string(b), *g.node(b).meta));
  }
  for (const NodeId b : f->mask_buffers) {
    mask_buffers.push_back(m.input("buffer" + std::to_string(b), *g.node(b).meta));
  }
  const NodeId keys = repeat_heads(m, ki, G);
  const NodeId values = repeat_heads(m, vi, G);
  auto in = attention_inner(m, *f, qi, keys, score_buffers, mask_buffers, where);
  if (!in) return in.error();
  const Sizes full_shape = {B, H, M, N};
  const Sizes rows = {B, H, M, 1};
  const NodeId zero = m.full(0.0, "f32");
  const NodeId mx = m.op(
      "torch.ops.aten.amax.default",
      {Argument::node(in->post), Argument::list({Argument::integer(-1)}), Argument::boolean(true)},
      "f32", rows);
  // A fully masked row's maximum is -inf: it is taken as 0, so its exps are 0, not NaN.
  const NodeId masked_row = m.op("torch.ops.aten.eq.Scalar",
                                 {Argument::node(mx), Argument::floating(-INFINITY)}, "b8", rows);
  const NodeId mx0 =
      m.op("torch.ops.aten.where.self",
           {Argument::node(masked_row), Argument::node(zero), Argument::node(mx)}, "f32", rows);
  const NodeId shifted = m.op("torch.ops.aten.sub.Tensor",
                              {Argument::node(in->post), Argument::node(mx0)}, "f32", full_shape);
  const NodeId e = m.op("torch.ops.aten.exp.default", {Argument::node(shifted)}, "f32", full_shape);
  const NodeId sum =
      m.op("torch.ops.aten.sum.dim_IntList",
           {Argument::node(e), Argument::list({Argument::integer(-1)}), Argument::boolean(true)},
           "f32", rows);
  const NodeId p = m.op("torch.ops.aten.div.Tensor", {Argument::node(e), Argument::node(sum)},
                        "f32", full_shape);
  const NodeId empty_row =
      m.op("torch.ops.aten.eq.Scalar", {Argument::node(sum), Argument::floating(0.0)}, "b8", rows);
  const NodeId safe_p =
      m.op("torch.ops.aten.where.self",
           {Argument::node(empty_row), Argument::node(zero), Argument::node(p)}, "f32", full_shape);
  const double inv_ln2 = 1.0 / std::log(2.0);
  const NodeId lse =
      m.op("torch.ops.aten.add.Tensor",
           {Argument::node(m.op("torch.ops.aten.log.default", {Argument::node(sum)}, "f32", rows)),
            Argument::node(mx0)},
           "f32", rows);
  const NodeId lse2 =
      m.op("torch.ops.aten.mul.Tensor",
           {Argument::node(m.view(lse, {B, H, M})), Argument::floating(inv_ln2)}, "f32", {B, H, M});
  const NodeId max2 =
      m.op("torch.ops.aten.mul.Tensor",
           {Argument::node(m.view(mx, {B, H, M})), Argument::floating(inv_ln2)}, "f32", {B, H, M});
  const NodeId p3 = m.view(m.convert(safe_p, f->q->dtype), {B * H, M, N});
  const NodeId o3 = bmm(m, p3, batched(m, values, f->v->dtype), f->q->dtype);
  const NodeId o4 = m.view(o3, {B, H, M, Dv});
  m.output({stored_as(m, o4, getitem_meta(g, flex, 0)), lse2, max2});
  return m.take();
}

Result<graph::Graph> flex_attention_backward_math(const graph::Graph& g, NodeId flex) {
  const graph::Node& node = g.node(flex);
  const std::string where = "flex attention backward " + node.name;
  // flex_attention_backward(q, k, v, out, logsumexp, grad_out, grad_logsumexp, fw_graph,
  //     joint_graph, block_mask, scale, kernel_options, score_mod_buffers, mask_mod_buffers)
  auto f = read_flex_args(g, flex, kBackwardArgs, where);
  if (!f) return f.error();
  const graph::Graph* joint = subgraph_at(g, node.args[8]);
  if (joint == nullptr) return make_error(where + ": its joint subgraph is not in the log");
  if (!f->score_buffers.empty()) {
    return make_error(where +
                      ": its score subgraph captures buffers, whose gradients fxscope's "
                      "math graph does not compute");
  }
  for (std::size_t a : {3u, 4u, 5u}) {
    if (!node.args[a].is_node() || !g.node(node.args[a].as_node()).meta ||
        !is_static(*g.node(node.args[a].as_node()).meta)) {
      return make_error(where + ": expected the attention, its log-sum-exp and its gradient");
    }
  }
  const auto [B, H, M, D, N, Dv, G] = f->shape;
  const std::string& qd = f->q->dtype;
  MathGraph m(f->q->device);
  const NodeId qi = m.input("query", *f->q);
  const NodeId ki = m.input("key", *f->k);
  const NodeId vi = m.input("value", *f->v);
  const NodeId outi = m.input("out", *g.node(node.args[3].as_node()).meta);
  const NodeId lsei = m.input("logsumexp", *g.node(node.args[4].as_node()).meta);
  const NodeId gouti = m.input("grad_out", *g.node(node.args[5].as_node()).meta);
  std::optional<NodeId> glsei;
  if (node.args[6].is_node()) {
    const auto& gm = g.node(node.args[6].as_node()).meta;
    if (!gm || !is_static(*gm))
      return make_error(where + ": its log-sum-exp gradient has no sizes");
    glsei = m.input("grad_logsumexp", *gm);
  }
  std::vector<NodeId> mask_buffers;
  for (const NodeId b : f->mask_buffers) {
    mask_buffers.push_back(m.input("buffer" + std::to_string(b), *g.node(b).meta));
  }
  const NodeId keys = repeat_heads(m, ki, G);
  const NodeId values = repeat_heads(m, vi, G);
  auto in = attention_inner(m, *f, qi, keys, {}, mask_buffers, where);
  if (!in) return in.error();
  const Sizes full_shape = {B, H, M, N};
  const Sizes rows = {B, H, M, 1};
  const double ln2 = std::log(2.0);
  // The op takes the log-sum-exp in base 2, as the forward returns it.
  const NodeId lse =
      m.op("torch.ops.aten.mul.Tensor",
           {Argument::node(m.view(lsei, rows)), Argument::floating(ln2)}, "f32", rows);
  const NodeId masked_row = m.op("torch.ops.aten.eq.Scalar",
                                 {Argument::node(lse), Argument::floating(-INFINITY)}, "b8", rows);
  const NodeId sm0 = m.op(
      "torch.ops.aten.exp.default",
      {Argument::node(m.op("torch.ops.aten.sub.Tensor",
                           {Argument::node(in->post), Argument::node(lse)}, "f32", full_shape))},
      "f32", full_shape);
  const NodeId sm =
      m.op("torch.ops.aten.where.self",
           {Argument::node(masked_row), Argument::node(m.full(0.0, "f32")), Argument::node(sm0)},
           "f32", full_shape);
  // dV = P^T dO, in Q's dtype.
  const NodeId p3 = m.view(m.convert(sm, qd), {B * H, M, N});
  const NodeId gv3 = bmm(m, transposed(m, p3), batched(m, gouti, qd), qd);
  // dP = dO V^T and the rows' sum(O * dO), in f32.
  const NodeId gout32 = batched(m, gouti, "f32");
  const NodeId gp3 = bmm(m, gout32, transposed(m, batched(m, values, "f32")), "f32");
  const NodeId prod =
      m.op("torch.ops.aten.mul.Tensor",
           {Argument::node(m.convert(outi, "f32")), Argument::node(m.convert(gouti, "f32"))}, "f32",
           {B, H, M, Dv});
  const NodeId row_sum =
      m.op("torch.ops.aten.sum.dim_IntList",
           {Argument::node(prod), Argument::list({Argument::integer(-1)}), Argument::boolean(true)},
           "f32", rows);
  NodeId t =
      m.op("torch.ops.aten.sub.Tensor",
           {Argument::node(m.view(gp3, full_shape)), Argument::node(row_sum)}, "f32", full_shape);
  if (glsei) {
    const NodeId glse = m.op(
        "torch.ops.aten.mul.Tensor",
        {Argument::node(m.view(m.convert(*glsei, "f32"), rows)), Argument::floating(1.0 / ln2)},
        "f32", rows);
    t = m.op("torch.ops.aten.add.Tensor", {Argument::node(t), Argument::node(glse)}, "f32",
             full_shape);
  }
  const NodeId grad_mod =
      m.op("torch.ops.aten.mul.Tensor", {Argument::node(sm), Argument::node(t)}, "f32", full_shape);
  // The score subgraph's gradient: the joint graph at (scores, b, h, q_idx, kv_idx, dS).
  std::vector<NodeId> joint_in = {in->scores};
  joint_in.insert(joint_in.end(), in->indices.begin(), in->indices.end());
  joint_in.push_back(grad_mod);
  auto grad_scores = inline_subgraph(m, *joint, joint_in, where);
  if (!grad_scores) return grad_scores.error();
  const NodeId scaled =
      m.op("torch.ops.aten.mul.Tensor",
           {Argument::node(*grad_scores), Argument::floating(f->scale)}, "f32", full_shape);
  const NodeId ds = m.op("torch.ops.aten.where.self",
                         {Argument::node(in->mask), Argument::node(m.convert(scaled, qd)),
                          Argument::node(m.full(0.0, qd))},
                         qd, full_shape);
  const NodeId ds3 = m.view(ds, {B * H, M, N});
  const NodeId gq3 = bmm(m, ds3, batched(m, keys, qd), qd);
  const NodeId gk3 = bmm(m, transposed(m, ds3), batched(m, qi, qd), qd);
  m.output({stored_as(m, m.view(gq3, {B, H, M, D}), getitem_meta(g, flex, 0)),
            stored_as(m, sum_heads(m, m.view(gk3, {B, H, N, D}), G), getitem_meta(g, flex, 1)),
            stored_as(m, sum_heads(m, m.view(gv3, {B, H, N, Dv}), G), getitem_meta(g, flex, 2))});
  return m.take();
}

}  // namespace fxscope::gpu
