// torch.export's composite ops decomposed node by node into the core ATen ops that
// ExportedProgram.run_decompositions() gives AOTInductor (torch/_decomp, the CompositeImplicit
// kernels of aten/src/ATen/native): the pass, and the new graph it builds.

#include "fxscope/fusion/core_aten_graph.h"

#include "core_aten_decomposer.h"

#include <set>
#include <utility>

#include "fxscope/fusion/lowering_ops.h"
#include "fxscope/ops/op_registry.h"

namespace fxscope::fusion::core_aten {

Decomposer::Decomposer(const graph::Graph& in, std::string where, const ops::SymbolHints& hints)
    : in_(in), where_(std::move(where)), hints_(hints), map_(in.size(), 0), root_(in.size()) {
  for (NodeId id = 0; id < in.size(); ++id) root_[id] = id;
  out_.graph.set_name(in.name());
  out_.graph.reserve(in.size() + in.size() / 2);
  for (const graph::Graph& sub : in.subgraphs()) out_.graph.add_subgraph(sub);
}

CoreAtenGraph Decomposer::run() {
  for (NodeId id = 0; id < in_.size(); ++id) {
    const graph::Node& original = in_.node(id);
    // An in-place op (relu_, add_, hardswish_: the training IR keeps a module's inplace=True)
    // becomes its functional form, whose value later users of the mutated tensor read.
    std::optional<NodeId> mutated;
    graph::Node functional;
    if (const auto target = functional_target(original)) {
      functional = original;
      functional.target = *target;
      mutated = original.args[0].as_node();
    }
    const graph::Node& n = mutated ? functional : original;
    std::optional<NodeId> to;
    if (n.is_op() && (export_composite_op(n.target) || upsample_vec(n.target))) {
      std::string why;
      to = decompose(n, why);
      if (to) {
        ++out_.decomposed;
      } else {
        out_.warnings.push_back({where_, "kept composite op " + n.name + " (" +
                                             std::string(ops::op_key(n.target)) + "): " + why});
      }
    }
    if (!to) {
      graph::Node copy = n;
      for (Argument& a : copy.args) a = remap(a);
      for (auto& kw : copy.kwargs) kw.second = remap(kw.second);
      to = add(std::move(copy));
    }
    map_[id] = *to;
    if (mutated) {
      // The op returned the tensor it mutated: every name of that tensor reads the result.
      root_[id] = root_[*mutated];
      for (NodeId j = 0; j <= id; ++j) {
        if (root_[j] == root_[id]) map_[j] = *to;
      }
      ++out_.functionalized;
    }
  }
  return std::move(out_);
}

Argument Decomposer::remap(const Argument& a) const {
  std::vector<Argument> items;
  for (const Argument& item : a.items()) items.push_back(remap(item));
  switch (a.kind()) {
    case Argument::Kind::node:
      return Argument::node(map_[a.as_node()]);
    case Argument::Kind::list:
      return Argument::list(std::move(items));
    case Argument::Kind::tuple:
      return Argument::tuple(std::move(items));
    case Argument::Kind::slice:
      return Argument::slice(items[0], items[1], items[2]);
    case Argument::Kind::dict:
      return Argument::dict(std::move(items));
    default:
      return a;
  }
}

// The new graph's node for argument A of the node being decomposed; nullopt unless a node.
std::optional<NodeId> Decomposer::node_of(const Argument* a) const {
  if (!a || !a->is_node()) return std::nullopt;
  return map_[a->as_node()];
}

const TensorMeta* Decomposer::meta(NodeId id) const {
  const auto& m = out_.graph.node(id).meta;
  return m && !m->is_sym_scalar() ? &*m : nullptr;
}

const TensorMeta* Decomposer::meta(const std::optional<NodeId>& id) const {
  return id ? meta(*id) : nullptr;
}

// A value's annotation kept across adding nodes (which moves the graph's nodes).
std::optional<TensorMeta> Decomposer::copy_of(const TensorMeta* m) {
  return m ? std::optional<TensorMeta>(*m) : std::nullopt;
}

std::string Decomposer::fresh(const std::string& base) const {
  std::string name = base;
  for (int k = 1; in_.find(name) || out_.graph.find(name); ++k) {
    name = base + "_" + std::to_string(k);
  }
  return name;
}

NodeId Decomposer::add(graph::Node node) {
  // Fresh names avoid every name of both graphs, so only a graph whose own names repeat (which
  // no parser builds) makes the name taken: the node is then added under a fresh one.
  if (out_.graph.find(node.name)) node.name = fresh(node.name);
  const NodeId at = *out_.graph.add_node(std::move(node));
  fill_strides(at);
  return at;
}

// A node standing for part of composite op OF: named NAME (OF's own name for its result),
// with OF's source line and module.
NodeId Decomposer::emit(const graph::Node& of, std::string name, std::string_view op,
                        std::vector<Argument> args, std::optional<TensorMeta> value,
                        std::vector<graph::KeywordArgument> kwargs) {
  graph::Node n;
  n.name = std::move(name);
  // An ATen op by its name and overload ("addmm.default"), a prim by "prims." and its own.
  n.target = (op.starts_with("prims.") ? "torch.ops." : "torch.ops.aten.") + std::string(op);
  n.args = std::move(args);
  n.kwargs = std::move(kwargs);
  n.meta = std::move(value);
  n.source = of.source;
  n.module_path = of.module_path;
  return add(std::move(n));
}

TensorMeta Decomposer::value(const TensorMeta& like, Dims sizes,
                             std::optional<Dims> strides) const {
  TensorMeta m;
  m.dtype = like.dtype;
  m.device = like.device;
  m.strides = strides ? std::move(*strides) : dense(sizes);
  m.sizes = std::move(sizes);
  return m;
}

NodeId Decomposer::getitem(const graph::Node& of, NodeId tuple, std::int64_t k, std::string name,
                           std::optional<TensorMeta> value) {
  graph::Node n;
  n.name = std::move(name);
  n.target = "operator.getitem";
  n.args = {Argument::node(tuple), Argument::integer(k)};
  n.meta = std::move(value);
  n.source = of.source;
  n.module_path = of.module_path;
  return add(std::move(n));
}

// X laid out row-major (a copy where it is not), then viewed as SIZES.
NodeId Decomposer::reshape(const graph::Node& of, NodeId x, const Dims& sizes, std::string name) {
  const TensorMeta m = *meta(x);
  if (!row_major(m)) {
    x = emit(of, fresh(of.name + "_clone"), "clone.default", {Argument::node(x)}, value(m, m.sizes),
             {{"memory_format", Argument::symbol("torch.contiguous_format")}});
  }
  return emit(of, std::move(name), "view.default", {Argument::node(x), size_list(sizes)},
              value(m, sizes));
}

// The functional target of in-place op N ("torch.ops.aten.relu.default" for relu_): an op the
// table knows without its trailing underscore, mutating a tensor the graph computed or took
// (not a view, whose base the mutation would change too). nullopt for any other node.
std::optional<std::string> Decomposer::functional_target(const graph::Node& n) const {
  if (!n.is_op() || n.args.empty() || !n.args[0].is_node()) return std::nullopt;
  const std::string_view key = ops::op_key(n.target);
  static const std::set<std::string_view> kNotFunctional = {
      "aten.copy_", "aten.index_put_", "aten.fill_", "aten.zero_", "aten.set_", "aten.resize_"};
  if (!key.starts_with("aten.") || !key.ends_with("_") || key.starts_with("aten._") ||
      kNotFunctional.count(key)) {
    return std::nullopt;
  }
  const std::string stem(key.substr(0, key.size() - 1));
  if (!ops::find_op(stem) && !export_composite_op(stem)) return std::nullopt;
  const graph::Node& x = in_.node(n.args[0].as_node());
  if (x.is_op() && ops::classify(x.target).op_class == ops::OpClass::view) return std::nullopt;
  const std::string_view overload = n.target.substr(n.target.rfind('.') + 1);
  return "torch.ops." + stem + "." + std::string(overload);
}

std::optional<NodeId> Decomposer::decompose(const graph::Node& n, std::string& why) {
  const std::string_view key = ops::op_key(n.target);
  const std::string_view base = ops::op_base_name(n.target);
  if (!n.meta && base != "chunk" && base != "dropout") {
    why = "its value has no annotation to size the ops it decomposes to";
    return std::nullopt;
  }
  if (key == "aten.linear") return linear(n, why);
  if (key == "aten.matmul") return matmul(n, why);
  if (key == "aten.conv1d") return convolution(n, 1, why);
  if (key == "aten.conv2d") return convolution(n, 2, why);
  if (key == "aten.conv3d") return convolution(n, 3, why);
  if (key == "aten.batch_norm") return batch_norm(n, why);
  if (key == "aten.layer_norm") return layer_norm(n, why);
  if (key == "aten.group_norm") return group_norm(n, why);
  if (key == "aten.softmax") return softmax(n, "_softmax.default", why);
  if (key == "aten.log_softmax") return softmax(n, "_log_softmax.default", why);
  if (key == "aten.dropout") return dropout(n, why);
  if (key == "aten.flatten") return flatten(n, why);
  if (key == "aten.unflatten") return unflatten(n, why);
  if (key == "aten.chunk") return chunk(n, why);
  if (key == "aten.scaled_dot_product_attention") return attention(n, why);
  if (key == "aten.conv_transpose1d") return convolution(n, 1, why, true);
  if (key == "aten.conv_transpose2d") return convolution(n, 2, why, true);
  if (key == "aten.conv_transpose3d") return convolution(n, 3, why, true);
  if (key == "aten.max_pool2d" || key == "aten.max_pool3d") return max_pool(n, why);
  if (key == "aten.contiguous") return contiguous(n, why);
  if (key == "aten.type_as" || key == "aten.to") return to_dtype(n, why);
  if (key == "aten.pad") return pad(n, why);
  if (key == "aten.rms_norm") return rms_norm(n, why);
  if (key == "aten.reshape") return reshape_op(n, why);
  if (upsample_vec(n.target)) return upsample(n, key == "aten.upsample_bilinear2d", why);
  why = "no decomposition";
  return std::nullopt;
}

Argument Decomposer::tensor_or_none(const Argument* a) const {
  const auto id = node_of(a);
  return id ? Argument::node(*id) : Argument();
}

// A pointwise ATen op over ARGS, valued like X's sizes in DTYPE.
NodeId Decomposer::pointwise(const graph::Node& n, std::string name, std::string_view op,
                             std::vector<Argument> args, const TensorMeta& like,
                             const Dims& sizes) {
  return emit(n, std::move(name), op, std::move(args), value(like, sizes));
}

// X in DTYPE: itself, or a convert_element_type (the decompositions compute a bf16/f16 norm in
// f32, as torch/_decomp's batch and group norm do).
NodeId Decomposer::in_dtype(const graph::Node& n, NodeId x, const std::string& dtype) {
  if (meta(x)->dtype == dtype) return x;
  return convert(n, x, dtype, fresh(n.name + "_convert"));
}

// X converted to DTYPE (prims.convert_element_type), named NAME, X's sizes.
NodeId Decomposer::convert(const graph::Node& n, NodeId x, const std::string& dtype,
                           std::string name) {
  TensorMeta to = value(*meta(x), meta(x)->sizes);
  to.dtype = dtype;
  return emit(n, std::move(name), "prims.convert_element_type.default",
              {Argument::node(x), dtype_symbol(dtype)}, std::move(to));
}

// The name of the last op computing N's value in COMPUTE: N's own, unless a convert back to
// N's dtype follows.
std::string Decomposer::last_name(const graph::Node& n, const std::string& compute) const {
  return compute == n.meta->dtype ? n.name : fresh(n.name + "_f32");
}

// Y as N's value: itself where already in N's dtype, else converted back, named N.
NodeId Decomposer::finish(const graph::Node& n, NodeId y) {
  if (meta(y)->dtype == n.meta->dtype) return y;
  return convert(n, y, n.meta->dtype, n.name);
}

}  // namespace fxscope::fusion::core_aten

namespace fxscope::fusion {

bool has_export_composite_ops(const graph::Graph& graph) {
  for (const graph::Node& n : graph.nodes()) {
    if (n.is_op() && export_composite_op(n.target)) return true;
  }
  return false;
}

CoreAtenGraph core_aten_graph(const graph::Graph& graph, const std::string& where,
                              const ops::SymbolHints& hints) {
  return core_aten::Decomposer(graph, where, hints).run();
}

}  // namespace fxscope::fusion
