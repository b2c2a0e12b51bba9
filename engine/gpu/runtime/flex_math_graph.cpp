// Building flex attention's math graph node by node, with each node's value annotated (dtype,
// sizes, contiguous strides) as a log's readable code would give them.

#include "fxscope/gpu/flex_math_graph.h"

#include <cmath>
#include <map>

#include "fxscope/ops/op_registry.h"

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
  std::int64_t stride = 1;
  m.sizes.resize(sizes.size());
  m.strides.resize(sizes.size());
  for (std::size_t d = sizes.size(); d-- > 0;) {
    m.sizes[d] = graph::Dim::constant(sizes[d]);
    m.strides[d] = graph::Dim::constant(stride);
    stride *= std::max<std::int64_t>(sizes[d], 1);
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
  Sizes sizes(NodeId x) const { return sizes_of(*out_.node(x).meta); }
  graph::Graph take() { return std::move(out_); }

  static std::string torch_dtype(const std::string& short_name) {
    static const std::map<std::string, std::string> kNames = {
        {"f32", "torch.float32"}, {"f16", "torch.float16"}, {"bf16", "torch.bfloat16"},
        {"f64", "torch.float64"}, {"i32", "torch.int32"},   {"i64", "torch.int64"},
        {"b8", "torch.bool"}};
    const auto it = kNames.find(short_name);
    return it == kNames.end() ? "torch.float32" : it->second;
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

}  // namespace

Result<graph::Graph> flex_attention_math(const graph::Graph& g, NodeId flex) {
  const graph::Node& node = g.node(flex);
  const std::string where = "flex attention " + node.name;
  // flex_attention(q, k, v, score_mod, block_mask, scale, kernel_options, score_mod_buffers,
  //                mask_mod_buffers)
  if (node.args.size() < 6 || !node.args[0].is_node() || !node.args[1].is_node() ||
      !node.args[2].is_node()) {
    return make_error(where +
                      ": expected flex_attention(q, k, v, score_mod, block_mask, scale, "
                      "...), got " +
                      std::to_string(node.args.size()) + " arguments");
  }
  const graph::Graph* score_mod = subgraph_at(g, node.args[3]);
  const auto& mask_items = node.args[4].items();
  const graph::Graph* mask_mod = mask_items.empty() ? nullptr : subgraph_at(g, mask_items.back());
  if (score_mod == nullptr || mask_mod == nullptr) {
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
  if (q[0] != k[0] || q[1] != k[1] || k[2] != v[2] || k[0] != v[0] || k[1] != v[1]) {
    return make_error(where +
                      ": grouped-query heads or broadcast batches, which fxscope's math "
                      "graph does not take");
  }
  const std::int64_t B = q[0], H = q[1], M = q[2], D = q[3], N = k[2], Dv = v[3];
  const double scale = node.args[5].kind() == Argument::Kind::floating
                           ? node.args[5].as_float()
                           : 1.0 / std::sqrt(static_cast<double>(D));
  // The attention's own meta: the op's getitem 0 where the graph takes it (Q's stride order).
  std::optional<graph::TensorMeta> out_meta;
  for (NodeId u = 0; u < g.size(); ++u) {
    const graph::Node& un = g.node(u);
    if (ops::op_key(un.target) == "operator.getitem" && un.args.size() > 1 &&
        un.args[0].is_node() && un.args[0].as_node() == flex && un.args[1].as_int() == 0) {
      out_meta = un.meta;
    }
  }
  MathGraph m(qm->device);
  const NodeId qi = m.input("query", *qm);
  const NodeId ki = m.input("key", *km);
  const NodeId vi = m.input("value", *vm);
  std::vector<NodeId> score_buffers;
  std::vector<NodeId> mask_buffers;
  for (const auto& [arg, list] : {std::pair{7u, &score_buffers}, std::pair{8u, &mask_buffers}}) {
    if (node.args.size() <= arg) continue;
    for (const NodeId b : nodes_of(node.args[arg])) {
      const auto& bm = g.node(b).meta;
      if (!bm || !is_static(*bm)) return make_error(where + ": a captured buffer has no sizes");
      list->push_back(m.input("buffer" + std::to_string(b), *bm));
    }
  }
  const NodeId q3 = m.view(m.convert(qi, "f32"), {B * H, M, D});
  const NodeId k3 = m.view(m.convert(ki, "f32"), {B * H, N, D});
  const NodeId kt = m.op_with_meta(
      "torch.ops.aten.permute.default",
      {Argument::node(k3),
       Argument::list({Argument::integer(0), Argument::integer(2), Argument::integer(1)})},
      [&] {
        graph::TensorMeta t = contiguous("f32", {B * H, D, N}, qm->device);
        t.strides = {graph::Dim::constant(N * D), graph::Dim::constant(1), graph::Dim::constant(D)};
        return t;
      }());
  const NodeId s3 = m.op("torch.ops.aten.bmm.default", {Argument::node(q3), Argument::node(kt)},
                         "f32", {B * H, M, N});
  const NodeId scores = m.op("torch.ops.aten.mul.Tensor",
                             {Argument::node(m.view(s3, {B, H, M, N})), Argument::floating(scale)},
                             "f32", {B, H, M, N});
  const NodeId b = m.index(B, 0);
  const NodeId h = m.index(H, 1);
  const NodeId qidx = m.index(M, 2);
  const NodeId kvidx = m.index(N, 3);
  std::vector<NodeId> score_in = {scores, b, h, qidx, kvidx};
  score_in.insert(score_in.end(), score_buffers.begin(), score_buffers.end());
  auto modded = inline_subgraph(m, *score_mod, score_in, where);
  if (!modded) return modded.error();
  std::vector<NodeId> mask_in = {b, h, qidx, kvidx};
  mask_in.insert(mask_in.end(), mask_buffers.begin(), mask_buffers.end());
  auto mask = inline_subgraph(m, *mask_mod, mask_in, where);
  if (!mask) return mask.error();
  const Sizes full_shape = {B, H, M, N};
  const NodeId ninf = m.full(-INFINITY, "f32");
  const NodeId post = m.op("torch.ops.aten.where.self",
                           {Argument::node(*mask), Argument::node(*modded), Argument::node(ninf)},
                           "f32", full_shape);
  const NodeId zero = m.full(0.0, "f32");
  const Sizes rows = {B, H, M, 1};
  const NodeId mx =
      m.op("torch.ops.aten.amax.default",
           {Argument::node(post), Argument::list({Argument::integer(-1)}), Argument::boolean(true)},
           "f32", rows);
  // A fully masked row's maximum is -inf: it is taken as 0, so its exps are 0, not NaN.
  const NodeId masked_row = m.op("torch.ops.aten.eq.Scalar",
                                 {Argument::node(mx), Argument::floating(-INFINITY)}, "b8", rows);
  const NodeId mx0 =
      m.op("torch.ops.aten.where.self",
           {Argument::node(masked_row), Argument::node(zero), Argument::node(mx)}, "f32", rows);
  const NodeId shifted = m.op("torch.ops.aten.sub.Tensor",
                              {Argument::node(post), Argument::node(mx0)}, "f32", full_shape);
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
  const NodeId p3 = m.view(m.convert(safe_p, qm->dtype), {B * H, M, N});
  const NodeId vc = m.op("torch.ops.aten.clone.default", {Argument::node(vi)}, vm->dtype, v,
                         {{"memory_format", Argument::symbol("torch.contiguous_format")}});
  const NodeId o3 = m.op("torch.ops.aten.bmm.default",
                         {Argument::node(p3), Argument::node(m.view(vc, {B * H, N, Dv}))},
                         qm->dtype, {B * H, M, Dv});
  const NodeId o4 = m.view(o3, {B, H, M, Dv});
  graph::TensorMeta attention = contiguous(qm->dtype, {B, H, M, Dv}, qm->device);
  if (out_meta && is_static(*out_meta) && sizes_of(*out_meta) == sizes_of(attention)) {
    attention = *out_meta;
  }
  const NodeId out =
      m.op_with_meta("torch.ops.aten.clone.default", {Argument::node(o4)}, attention);
  m.output({out, lse2, max2});
  return m.take();
}

}  // namespace fxscope::gpu
