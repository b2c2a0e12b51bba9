// torch.export's composite ops decomposed node by node into the core ATen ops that
// ExportedProgram.run_decompositions() gives AOTInductor (torch/_decomp, the CompositeImplicit
// kernels of aten/src/ATen/native), and strides for the annotations an exported program prints
// without them.

#include "fxscope/fusion/core_aten_graph.h"

#include <array>
#include <limits>
#include <optional>
#include <set>
#include <string_view>
#include <utility>
#include <vector>

#include "fxscope/fusion/lowering_ops.h"
#include "fxscope/guards/dtype.h"
#include "fxscope/ops/op_registry.h"

namespace fxscope::fusion {
namespace {

using graph::Argument;
using graph::Dim;
using graph::NodeId;
using graph::TensorMeta;
using Dims = std::vector<Dim>;

std::string factor(const Dim& d) {
  if (!d.is_symbolic()) return std::to_string(d.value);
  return d.expr.find_first_of("+-/%") == std::string::npos ? d.expr : "(" + d.expr + ")";
}

Dim mul(const Dim& a, const Dim& b) {
  if (!a.is_symbolic() && !b.is_symbolic()) return Dim::constant(a.value * b.value);
  if (!a.is_symbolic() && a.value == 1) return b;
  if (!b.is_symbolic() && b.value == 1) return a;
  if ((!a.is_symbolic() && a.value == 0) || (!b.is_symbolic() && b.value == 0)) {
    return Dim::constant(0);
  }
  return Dim::symbolic(factor(a) + "*" + factor(b));
}

Dim product(const Dims& sizes, std::size_t from, std::size_t to) {
  Dim p = Dim::constant(1);
  for (std::size_t i = from; i < to && i < sizes.size(); ++i) p = mul(p, sizes[i]);
  return p;
}

Dims dense(const Dims& sizes) {
  Dims strides(sizes.size(), Dim::constant(1));
  for (std::size_t i = sizes.size(); i-- > 1;) strides[i - 1] = mul(strides[i], sizes[i]);
  return strides;
}

bool is_one(const Dim& d) {
  return !d.is_symbolic() && d.value == 1;
}

// Whether M's strides are the dense row-major ones (a dimension of size 1 may have any stride).
bool row_major(const TensorMeta& m) {
  if (m.strides.size() != m.sizes.size()) return false;
  const Dims want = dense(m.sizes);
  for (std::size_t i = 0; i < want.size(); ++i) {
    if (!is_one(m.sizes[i]) && m.strides[i] != want[i]) return false;
  }
  return true;
}

std::optional<std::size_t> dim_index(std::int64_t dim, std::size_t rank) {
  const std::int64_t d = dim < 0 ? dim + static_cast<std::int64_t>(rank) : dim;
  if (d < 0 || d >= static_cast<std::int64_t>(rank)) return std::nullopt;
  return static_cast<std::size_t>(d);
}

// Positional argument I or keyword NAME; nullptr where the call leaves it to its default.
const Argument* arg_of(const graph::Node& n, std::size_t i, std::string_view name) {
  if (i < n.args.size()) return &n.args[i];
  for (const auto& [key, value] : n.kwargs) {
    if (key == name) return &value;
  }
  return nullptr;
}

std::optional<std::int64_t> int_of(const Argument* a) {
  if (a && a->kind() == Argument::Kind::integer) return a->as_int();
  return std::nullopt;
}

std::optional<double> number_of(const Argument* a) {
  if (a && a->kind() == Argument::Kind::integer) return static_cast<double>(a->as_int());
  if (a && a->kind() == Argument::Kind::floating) return a->as_float();
  return std::nullopt;
}

std::optional<bool> bool_of(const Argument* a) {
  if (a && a->kind() == Argument::Kind::boolean) return a->as_bool();
  return std::nullopt;
}

// The integers of a list argument, or one integer repeated COUNT times (conv2d's stride=1).
std::optional<std::vector<std::int64_t>> ints_of(const Argument* a, std::size_t count) {
  if (!a) return std::nullopt;
  if (a->kind() == Argument::Kind::integer) return std::vector<std::int64_t>(count, a->as_int());
  std::vector<std::int64_t> out;
  for (const Argument& item : a->items()) {
    if (item.kind() != Argument::Kind::integer) return std::nullopt;
    out.push_back(item.as_int());
  }
  if (out.size() == 1 && count > 1) out.assign(count, out.front());
  if (out.size() != count) return std::nullopt;
  return out;
}

Argument int_list(const std::vector<std::int64_t>& values) {
  std::vector<Argument> items;
  for (const std::int64_t v : values) items.push_back(Argument::integer(v));
  return Argument::list(std::move(items));
}

// A size as an FX argument: a number, a symbol's name, or an expression as written.
Argument size_argument(const Dim& d) {
  if (!d.is_symbolic()) return Argument::integer(d.value);
  const bool name =
      d.expr.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_") ==
      std::string::npos;
  return name ? Argument::symbol(d.expr) : Argument::raw(d.expr);
}

Argument size_list(const Dims& sizes) {
  std::vector<Argument> items;
  for (const Dim& d : sizes) items.push_back(size_argument(d));
  return Argument::list(std::move(items));
}

// torch.float32 for f32: a dtype argument as FX prints it.
Argument dtype_symbol(const std::string& short_name) {
  const auto d = guards::parse_dtype(short_name);
  return Argument::symbol(std::string(d ? d->torch_name : "torch.float32"));
}

// F.interpolate's overloads of the training IR (CompositeImplicit: the core ATen IR has only
// the sized ones, which Dynamo's graphs and Inductor keep).
bool upsample_vec(std::string_view target) {
  return target == "torch.ops.aten.upsample_nearest2d.vec" ||
         target == "torch.ops.aten.upsample_bilinear2d.vec";
}

bool half_precision(const std::string& dtype) {
  return dtype == "bf16" || dtype == "f16";
}

class Decomposer {
 public:
  Decomposer(const graph::Graph& in, std::string where, const ops::SymbolHints& hints)
      : in_(in), where_(std::move(where)), hints_(hints), map_(in.size(), 0), root_(in.size()) {
    for (NodeId id = 0; id < in.size(); ++id) root_[id] = id;
    out_.graph.set_name(in.name());
    out_.graph.reserve(in.size() + in.size() / 2);
    for (const graph::Graph& sub : in.subgraphs()) out_.graph.add_subgraph(sub);
  }

  CoreAtenGraph run() {
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

 private:
  Argument remap(const Argument& a) const {
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
  std::optional<NodeId> node_of(const Argument* a) const {
    if (!a || !a->is_node()) return std::nullopt;
    return map_[a->as_node()];
  }
  const TensorMeta* meta(NodeId id) const {
    const auto& m = out_.graph.node(id).meta;
    return m && !m->is_sym_scalar() ? &*m : nullptr;
  }
  const TensorMeta* meta(const std::optional<NodeId>& id) const { return id ? meta(*id) : nullptr; }
  // A value's annotation kept across adding nodes (which moves the graph's nodes).
  static std::optional<TensorMeta> copy_of(const TensorMeta* m) {
    return m ? std::optional<TensorMeta>(*m) : std::nullopt;
  }

  std::string fresh(const std::string& base) const {
    std::string name = base;
    for (int k = 1; in_.find(name) || out_.graph.find(name); ++k) {
      name = base + "_" + std::to_string(k);
    }
    return name;
  }

  NodeId add(graph::Node node) {
    // Fresh names avoid every name of both graphs, so only a graph whose own names repeat (which
    // no parser builds) makes the name taken: the node is then added under a fresh one.
    if (out_.graph.find(node.name)) node.name = fresh(node.name);
    const NodeId at = *out_.graph.add_node(std::move(node));
    fill_strides(at);
    return at;
  }

  // A node standing for part of composite op OF: named NAME (OF's own name for its result),
  // with OF's source line and module.
  NodeId emit(const graph::Node& of, std::string name, std::string_view op,
              std::vector<Argument> args, std::optional<TensorMeta> value,
              std::vector<graph::KeywordArgument> kwargs = {}) {
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

  TensorMeta value(const TensorMeta& like, Dims sizes, std::optional<Dims> strides = {}) const {
    TensorMeta m;
    m.dtype = like.dtype;
    m.device = like.device;
    m.strides = strides ? std::move(*strides) : dense(sizes);
    m.sizes = std::move(sizes);
    return m;
  }

  NodeId getitem(const graph::Node& of, NodeId tuple, std::int64_t k, std::string name,
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
  NodeId reshape(const graph::Node& of, NodeId x, const Dims& sizes, std::string name) {
    const TensorMeta m = *meta(x);
    if (!row_major(m)) {
      x = emit(of, fresh(of.name + "_clone"), "clone.default", {Argument::node(x)},
               value(m, m.sizes), {{"memory_format", Argument::symbol("torch.contiguous_format")}});
    }
    return emit(of, std::move(name), "view.default", {Argument::node(x), size_list(sizes)},
                value(m, sizes));
  }

  // The functional target of in-place op N ("torch.ops.aten.relu.default" for relu_): an op the
  // table knows without its trailing underscore, mutating a tensor the graph computed or took
  // (not a view, whose base the mutation would change too). nullopt for any other node.
  std::optional<std::string> functional_target(const graph::Node& n) const {
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

  std::optional<NodeId> decompose(const graph::Node& n, std::string& why) {
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

  // linear(x, w, b): x @ w.T + b, as addmm (mm without a bias) over x's leading dims flattened.
  std::optional<NodeId> linear(const graph::Node& n, std::string& why) {
    const auto x = node_of(arg_of(n, 0, "input"));
    const auto w = node_of(arg_of(n, 1, "weight"));
    const auto b = node_of(arg_of(n, 2, "bias"));
    const std::optional<TensorMeta> xm = copy_of(meta(x));
    const std::optional<TensorMeta> wm = copy_of(meta(w));
    if (!xm || !wm || wm->rank() != 2 || xm->rank() < 2 || wm->strides.size() != 2) {
      why = "expected an input of rank 2 or more and a weight of rank 2, annotated";
      return std::nullopt;
    }
    const NodeId t = emit(
        n, fresh(n.name + "_permute"), "permute.default", {Argument::node(*w), int_list({1, 0})},
        value(*wm, {wm->sizes[1], wm->sizes[0]}, Dims{wm->strides[1], wm->strides[0]}));
    return gemm(n, *x, t, b);
  }

  // X (rank >= 2) times the matrix W (K x N), plus BIAS: addmm or mm over X's leading dims.
  NodeId gemm(const graph::Node& n, NodeId x, NodeId w, std::optional<NodeId> bias) {
    const TensorMeta xm = *meta(x);
    const Dim cols = meta(w)->sizes[1];
    const std::size_t rank = xm.rank();
    const auto product_op = [&](NodeId a, std::string name, const Dims& sizes) {
      std::vector<Argument> args;
      if (bias) args.push_back(Argument::node(*bias));
      args.push_back(Argument::node(a));
      args.push_back(Argument::node(w));
      return emit(n, std::move(name), bias ? "addmm.default" : "mm.default", std::move(args),
                  value(*n.meta, sizes));
    };
    if (rank == 2) return product_op(x, n.name, {xm.sizes[0], cols});
    const Dim rows = product(xm.sizes, 0, rank - 1);
    const NodeId flat = reshape(n, x, {rows, xm.sizes[rank - 1]}, fresh(n.name + "_view"));
    const NodeId mm = product_op(flat, fresh(n.name + (bias ? "_addmm" : "_mm")), {rows, cols});
    return emit(n, n.name, "view.default", {Argument::node(mm), size_list(n.meta->sizes)},
                value(*n.meta, n.meta->sizes));
  }

  std::optional<NodeId> matmul(const graph::Node& n, std::string& why) {
    const auto a = node_of(arg_of(n, 0, "self"));
    const auto b = node_of(arg_of(n, 1, "other"));
    const std::optional<TensorMeta> am = copy_of(meta(a));
    const std::optional<TensorMeta> bm = copy_of(meta(b));
    if (!am || !bm || am->rank() < 2 || bm->rank() < 2) {
      why = "expected annotated operands of rank 2 or more";
      return std::nullopt;
    }
    if (bm->rank() == 2) return gemm(n, *a, *b, std::nullopt);
    const std::size_t rank = am->rank();
    if (bm->rank() != rank ||
        !std::equal(am->sizes.begin(), am->sizes.end() - 2, bm->sizes.begin())) {
      why = "its operands broadcast their batch dimensions";
      return std::nullopt;
    }
    if (rank == 3) {
      return emit(n, n.name, "bmm.default", {Argument::node(*a), Argument::node(*b)},
                  value(*n.meta, n.meta->sizes));
    }
    const Dim batch = product(am->sizes, 0, rank - 2);
    const NodeId a3 =
        reshape(n, *a, {batch, am->sizes[rank - 2], am->sizes[rank - 1]}, fresh(n.name + "_view"));
    const NodeId b3 =
        reshape(n, *b, {batch, bm->sizes[rank - 2], bm->sizes[rank - 1]}, fresh(n.name + "_view"));
    const NodeId p =
        emit(n, fresh(n.name + "_bmm"), "bmm.default", {Argument::node(a3), Argument::node(b3)},
             value(*n.meta, {batch, am->sizes[rank - 2], bm->sizes[rank - 1]}));
    return emit(n, n.name, "view.default", {Argument::node(p), size_list(n.meta->sizes)},
                value(*n.meta, n.meta->sizes));
  }

  // conv1d/2d/3d(x, w, b, stride, padding, dilation, groups) -> convolution(.., transposed=False).
  // conv_transpose*d(x, w, b, stride, padding, output_padding, groups, dilation): the same
  // convolution, transposed, its arguments in another order.
  std::optional<NodeId> convolution(const graph::Node& n, std::size_t spatial, std::string& why,
                                    bool transposed = false) {
    const auto x = node_of(arg_of(n, 0, "input"));
    const auto w = node_of(arg_of(n, 1, "weight"));
    const std::optional<TensorMeta> xm = copy_of(meta(x));
    const std::optional<TensorMeta> wm = copy_of(meta(w));
    if (!xm || !wm || xm->rank() != spatial + 2 || wm->rank() != spatial + 2) {
      why = "expected a batched input and a weight of rank " + std::to_string(spatial + 2);
      return std::nullopt;
    }
    const Argument* bias = arg_of(n, 2, "bias");
    const Argument* stride_arg = arg_of(n, 3, "stride");
    const Argument* padding_arg = arg_of(n, 4, "padding");
    const Argument* dilation_arg = transposed ? arg_of(n, 7, "dilation") : arg_of(n, 5, "dilation");
    const Argument* output_padding_arg = transposed ? arg_of(n, 5, "output_padding") : nullptr;
    const auto output_padding = output_padding_arg ? ints_of(output_padding_arg, spatial)
                                                   : std::vector<std::int64_t>(spatial, 0);
    const auto stride =
        stride_arg ? ints_of(stride_arg, spatial) : std::vector<std::int64_t>(spatial, 1);
    const auto dilation =
        dilation_arg ? ints_of(dilation_arg, spatial) : std::vector<std::int64_t>(spatial, 1);
    const auto groups = arg_of(n, 6, "groups") ? int_of(arg_of(n, 6, "groups")) : 1;
    std::optional<std::vector<std::int64_t>> padding(std::vector<std::int64_t>(spatial, 0));
    if (padding_arg && padding_arg->kind() == Argument::Kind::string) {
      if (padding_arg->text() == "same" && dilation) {
        for (std::size_t i = 0; i < spatial && padding; ++i) {
          const Dim& k = wm->sizes[2 + i];
          const std::int64_t total = (*dilation)[i] * (k.value - 1);
          if (k.is_symbolic() || total % 2 != 0)
            padding.reset();
          else
            (*padding)[i] = total / 2;
        }
      } else if (padding_arg->text() != "valid") {
        padding.reset();
      }
    } else if (padding_arg) {
      padding = ints_of(padding_arg, spatial);
    }
    if (!stride || !dilation || !groups || !padding || !output_padding) {
      why = "stride, padding, dilation or groups not as integers (or padding='same' uneven)";
      return std::nullopt;
    }
    return emit(
        n, n.name, "convolution.default",
        {Argument::node(*x), Argument::node(*w),
         bias && bias->is_node() ? Argument::node(*node_of(bias)) : Argument(), int_list(*stride),
         int_list(*padding), int_list(*dilation), Argument::boolean(transposed),
         int_list(*output_padding), Argument::integer(*groups)},
        value(*n.meta, n.meta->sizes));
  }

  Argument tensor_or_none(const Argument* a) const {
    const auto id = node_of(a);
    return id ? Argument::node(*id) : Argument();
  }

  // A pointwise ATen op over ARGS, valued like X's sizes in DTYPE.
  NodeId pointwise(const graph::Node& n, std::string name, std::string_view op,
                   std::vector<Argument> args, const TensorMeta& like, const Dims& sizes) {
    return emit(n, std::move(name), op, std::move(args), value(like, sizes));
  }

  // X in DTYPE: itself, or a convert_element_type (the decompositions compute a bf16/f16 norm in
  // f32, as torch/_decomp's batch and group norm do).
  NodeId in_dtype(const graph::Node& n, NodeId x, const std::string& dtype) {
    if (meta(x)->dtype == dtype) return x;
    return convert(n, x, dtype, fresh(n.name + "_convert"));
  }

  // X converted to DTYPE (prims.convert_element_type), named NAME, X's sizes.
  NodeId convert(const graph::Node& n, NodeId x, const std::string& dtype, std::string name) {
    TensorMeta to = value(*meta(x), meta(x)->sizes);
    to.dtype = dtype;
    return emit(n, std::move(name), "prims.convert_element_type.default",
                {Argument::node(x), dtype_symbol(dtype)}, std::move(to));
  }

  // rsqrt(V + EPS): a norm's inverse standard deviation, valued like LIKE at SIZES.
  NodeId inverse_root(const graph::Node& n, NodeId v, double eps, const TensorMeta& like,
                      const Dims& sizes) {
    const NodeId ve = pointwise(n, fresh(n.name + "_add"), "add.Tensor",
                                {Argument::node(v), Argument::floating(eps)}, like, sizes);
    return pointwise(n, fresh(n.name + "_rsqrt"), "rsqrt.default", {Argument::node(ve)}, like,
                     sizes);
  }

  // Y * W + B where W and B (absent or not) broadcast against Y's last dims (layer and RMS norm),
  // in COMPUTE, the last op named LAST.
  NodeId scale_shift(const graph::Node& n, NodeId y, std::optional<NodeId> w,
                     std::optional<NodeId> b, const std::string& compute, const std::string& last) {
    const TensorMeta full = *meta(y);
    if (w) {
      const NodeId wc = in_dtype(n, *w, compute);
      y = pointwise(n, b ? fresh(n.name + "_mul") : last, "mul.Tensor",
                    {Argument::node(y), Argument::node(wc)}, full, full.sizes);
    }
    if (b) {
      const NodeId bc = in_dtype(n, *b, compute);
      y = pointwise(n, last, "add.Tensor", {Argument::node(y), Argument::node(bc)}, full,
                    full.sizes);
    }
    return y;
  }

  // (X - MEAN) * RSTD, the last op named LAST.
  NodeId normalized(const graph::Node& n, NodeId x, NodeId mean, NodeId rstd,
                    const std::string& last) {
    const TensorMeta xm = *meta(x);
    const NodeId centred = pointwise(n, fresh(n.name + "_sub"), "sub.Tensor",
                                     {Argument::node(x), Argument::node(mean)}, xm, xm.sizes);
    return pointwise(n, last, "mul.Tensor", {Argument::node(centred), Argument::node(rstd)}, xm,
                     xm.sizes);
  }

  // Y * W + B, W and B (one value per channel) viewed as CHANNEL against Y's dim 1; the last op
  // is named LAST (Y itself where there are neither).
  NodeId affine(const graph::Node& n, NodeId y, std::optional<NodeId> w, std::optional<NodeId> b,
                const Dims& channel, const std::string& last) {
    const TensorMeta ym = *meta(y);
    const auto per_channel = [&](NodeId p) {
      const NodeId pc = in_dtype(n, p, ym.dtype);
      return emit(n, fresh(n.name + "_view"), "view.default",
                  {Argument::node(pc), size_list(channel)}, value(*meta(pc), channel));
    };
    if (w) {
      const NodeId wv = per_channel(*w);
      y = pointwise(n, b ? fresh(n.name + "_mul") : last, "mul.Tensor",
                    {Argument::node(y), Argument::node(wv)}, ym, ym.sizes);
    }
    if (b) {
      const NodeId bv = per_channel(*b);
      y = pointwise(n, last, "add.Tensor", {Argument::node(y), Argument::node(bv)}, ym, ym.sizes);
    }
    return y;
  }

  // The name of the last op computing N's value in COMPUTE: N's own, unless a convert back to
  // N's dtype follows.
  std::string last_name(const graph::Node& n, const std::string& compute) const {
    return compute == n.meta->dtype ? n.name : fresh(n.name + "_f32");
  }

  // Y as N's value: itself where already in N's dtype, else converted back, named N.
  NodeId finish(const graph::Node& n, NodeId y) {
    if (meta(y)->dtype == n.meta->dtype) return y;
    return convert(n, y, n.meta->dtype, n.name);
  }

  // batch_norm: (x - mean) * rsqrt(var + eps) * w + b, with the running statistics in eval and
  // x's own (var_mean over every dim but the channel, unbiased=False) in training, computed in
  // f32 for bf16/f16 input, as Inductor's decomposition of _native_batch_norm_legit does.
  std::optional<NodeId> batch_norm(const graph::Node& n, std::string& why) {
    const auto x = node_of(arg_of(n, 0, "input"));
    const auto training = bool_of(arg_of(n, 5, "training"));
    const auto eps = number_of(arg_of(n, 7, "eps"));
    const auto mean = node_of(arg_of(n, 3, "running_mean"));
    const auto var = node_of(arg_of(n, 4, "running_var"));
    const std::optional<TensorMeta> xm = copy_of(meta(x));
    if (!xm || xm->rank() < 2 || !training || !eps || (!*training && (!mean || !var))) {
      why =
          "expected an annotated input of rank 2 or more, training and eps (and running "
          "statistics in eval)";
      return std::nullopt;
    }
    const std::string compute = half_precision(xm->dtype) ? "f32" : xm->dtype;
    const NodeId xc = in_dtype(n, *x, compute);
    Dims channel(xm->rank() - 1, Dim::constant(1));
    channel[0] = xm->sizes[1];
    NodeId m = 0;
    NodeId v = 0;
    if (*training) {
      std::vector<std::int64_t> dims;
      for (std::size_t d = 0; d < xm->rank(); ++d) {
        if (d != 1) dims.push_back(static_cast<std::int64_t>(d));
      }
      Dims kept(xm->rank(), Dim::constant(1));
      kept[1] = xm->sizes[1];
      const NodeId vm =
          emit(n, fresh(n.name + "_var_mean"), "var_mean.correction",
               {Argument::node(xc), int_list(dims)}, std::nullopt,
               {{"correction", Argument::integer(0)}, {"keepdim", Argument::boolean(true)}});
      v = getitem(n, vm, 0, fresh(n.name + "_var"), value(*meta(xc), kept));
      m = getitem(n, vm, 1, fresh(n.name + "_mean"), value(*meta(xc), kept));
    } else {
      const auto view = [&](NodeId p) {
        const NodeId pc = in_dtype(n, p, compute);
        return emit(n, fresh(n.name + "_view"), "view.default",
                    {Argument::node(pc), size_list(channel)}, value(*meta(pc), channel));
      };
      m = view(*mean);
      v = view(*var);
    }
    const TensorMeta stat = *meta(v);
    const NodeId rstd = inverse_root(n, v, *eps, stat, stat.sizes);
    const auto w = node_of(arg_of(n, 1, "weight"));
    const auto b = node_of(arg_of(n, 2, "bias"));
    const std::string last = last_name(n, compute);
    const NodeId y = normalized(n, xc, m, rstd, w || b ? fresh(n.name + "_norm") : last);
    return finish(n, affine(n, y, w, b, channel, last));
  }

  // layer_norm: var_mean over the normalized (last) dims, (x - mean) * rsqrt(var + eps) * w + b,
  // in f32 for bf16/f16 input: the ops Inductor's decomposition of native_layer_norm gives, which
  // it fuses into one reduction kernel (fxscope's generator has no fused native_layer_norm).
  std::optional<NodeId> layer_norm(const graph::Node& n, std::string& why) {
    const auto x = node_of(arg_of(n, 0, "input"));
    const Argument* shape = arg_of(n, 1, "normalized_shape");
    const auto eps = arg_of(n, 4, "eps") ? number_of(arg_of(n, 4, "eps")) : 1e-5;
    const std::optional<TensorMeta> xm = copy_of(meta(x));
    const std::size_t k = shape ? shape->items().size() : 0;
    if (!xm || k == 0 || k > xm->rank() || !eps) {
      why = "expected an annotated input, a normalized shape within it and eps";
      return std::nullopt;
    }
    const std::string compute = half_precision(xm->dtype) ? "f32" : xm->dtype;
    const NodeId xc = in_dtype(n, *x, compute);
    const TensorMeta full = *meta(xc);
    Dims kept = full.sizes;
    std::vector<std::int64_t> dims;
    for (std::size_t d = xm->rank() - k; d < xm->rank(); ++d) {
      kept[d] = Dim::constant(1);
      dims.push_back(static_cast<std::int64_t>(d));
    }
    const NodeId vm = emit(
        n, fresh(n.name + "_var_mean"), "var_mean.correction", {Argument::node(xc), int_list(dims)},
        std::nullopt, {{"correction", Argument::integer(0)}, {"keepdim", Argument::boolean(true)}});
    const NodeId v = getitem(n, vm, 0, fresh(n.name + "_var"), value(full, kept));
    const NodeId m = getitem(n, vm, 1, fresh(n.name + "_mean"), value(full, kept));
    const NodeId rstd = inverse_root(n, v, *eps, full, kept);
    const auto w = node_of(arg_of(n, 2, "weight"));
    const auto b = node_of(arg_of(n, 3, "bias"));
    const std::string last = last_name(n, compute);
    const NodeId y = normalized(n, xc, m, rstd, w || b ? fresh(n.name + "_norm") : last);
    return finish(n, scale_shift(n, y, w, b, compute, last));
  }

  // group_norm: x viewed as [N, G, rest], var_mean over rest, normalized, viewed back, then the
  // per-channel weight and bias (torch/_decomp's native_group_norm).
  std::optional<NodeId> group_norm(const graph::Node& n, std::string& why) {
    const auto x = node_of(arg_of(n, 0, "input"));
    const auto groups = int_of(arg_of(n, 1, "num_groups"));
    const auto eps = arg_of(n, 4, "eps") ? number_of(arg_of(n, 4, "eps")) : 1e-5;
    const std::optional<TensorMeta> xm = copy_of(meta(x));
    if (!xm || xm->rank() < 2 || !groups || *groups <= 0 || !eps || xm->sizes[1].is_symbolic() ||
        xm->sizes[1].value % *groups != 0) {
      why =
          "expected an annotated input of rank 2 or more with a static channel count that "
          "num_groups divides, and eps";
      return std::nullopt;
    }
    const std::string compute = half_precision(xm->dtype) ? "f32" : xm->dtype;
    const Dim per_group =
        mul(Dim::constant(xm->sizes[1].value / *groups), product(xm->sizes, 2, xm->rank()));
    const Dims grouped = {xm->sizes[0], Dim::constant(*groups), per_group};
    const NodeId xg = reshape(n, in_dtype(n, *x, compute), grouped, fresh(n.name + "_view"));
    const Dims kept = {xm->sizes[0], Dim::constant(*groups), Dim::constant(1)};
    const NodeId vm = emit(
        n, fresh(n.name + "_var_mean"), "var_mean.correction", {Argument::node(xg), int_list({2})},
        std::nullopt, {{"correction", Argument::integer(0)}, {"keepdim", Argument::boolean(true)}});
    const TensorMeta stat = value(*meta(xg), kept);
    const NodeId v = getitem(n, vm, 0, fresh(n.name + "_var"), stat);
    const NodeId m = getitem(n, vm, 1, fresh(n.name + "_mean"), stat);
    const NodeId rstd = inverse_root(n, v, *eps, stat, kept);
    const auto w = node_of(arg_of(n, 2, "weight"));
    const auto b = node_of(arg_of(n, 3, "bias"));
    const std::string last = last_name(n, compute);
    NodeId y = normalized(n, xg, m, rstd, fresh(n.name + "_norm"));
    y = emit(n, w || b ? fresh(n.name + "_view") : last, "view.default",
             {Argument::node(y), size_list(xm->sizes)}, value(*meta(y), xm->sizes));
    Dims channel(xm->rank() - 1, Dim::constant(1));
    channel[0] = xm->sizes[1];
    y = affine(n, y, w, b, channel, last);
    return finish(n, y);
  }

  // softmax(x, dim, dtype): x converted to DTYPE first where one is given, then _softmax.
  std::optional<NodeId> softmax(const graph::Node& n, std::string_view op, std::string& why) {
    auto x = node_of(arg_of(n, 0, "self"));
    const auto dim = int_of(arg_of(n, 1, "dim"));
    if (!x || !dim || !meta(x)) {
      why = "expected an annotated input and a dim";
      return std::nullopt;
    }
    const Argument* dtype = arg_of(n, 2, "dtype");
    if (dtype && !dtype->is_none()) x = in_dtype(n, *x, n.meta->dtype);
    return emit(n, n.name, op,
                {Argument::node(*x), Argument::integer(*dim), Argument::boolean(false)},
                value(*n.meta, n.meta->sizes));
  }

  // dropout in eval (or p = 0) is its input; in training native_dropout's first output.
  std::optional<NodeId> dropout(const graph::Node& n, std::string& why) {
    const auto x = node_of(arg_of(n, 0, "input"));
    const auto p = number_of(arg_of(n, 1, "p"));
    const auto train = bool_of(arg_of(n, 2, "train"));
    if (!x || !p || !train) {
      why = "expected an input, p and train";
      return std::nullopt;
    }
    if (!*train || *p == 0.0) return *x;
    if (!n.meta) {
      why = "its value has no annotation";
      return std::nullopt;
    }
    const NodeId d =
        emit(n, fresh(n.name + "_native"), "native_dropout.default",
             {Argument::node(*x), Argument::floating(*p), Argument::boolean(true)}, std::nullopt);
    return getitem(n, d, 0, n.name, value(*n.meta, n.meta->sizes));
  }

  std::optional<NodeId> flatten(const graph::Node& n, std::string& why) {
    const auto x = node_of(arg_of(n, 0, "self"));
    if (!meta(x)) {
      why = "expected an annotated input";
      return std::nullopt;
    }
    return reshape(n, *x, n.meta->sizes, n.name);
  }

  // unflatten splits one dim: always a view, its new dims strided within the split one.
  std::optional<NodeId> unflatten(const graph::Node& n, std::string& why) {
    const auto x = node_of(arg_of(n, 0, "self"));
    const std::optional<TensorMeta> xm = copy_of(meta(x));
    const auto dim = int_of(arg_of(n, 1, "dim"));
    const std::size_t parts = n.meta->rank() + 1 - (xm ? xm->rank() : 0);
    const auto d = xm && dim ? dim_index(*dim, xm->rank()) : std::nullopt;
    if (!xm || !d || xm->strides.size() != xm->rank() || n.meta->rank() < xm->rank()) {
      why = "expected an annotated input and a dim within it";
      return std::nullopt;
    }
    Dims strides;
    for (std::size_t i = 0; i < *d; ++i) strides.push_back(xm->strides[i]);
    for (std::size_t j = 0; j < parts; ++j) {
      strides.push_back(mul(xm->strides[*d], product(n.meta->sizes, *d + j + 1, *d + parts)));
    }
    for (std::size_t i = *d + 1; i < xm->rank(); ++i) strides.push_back(xm->strides[i]);
    return emit(n, n.name, "view.default", {Argument::node(*x), size_list(n.meta->sizes)},
                value(*n.meta, n.meta->sizes, strides));
  }

  // max_pool2d / max_pool3d -> max_pool*_with_indices's values, the same arguments.
  std::optional<NodeId> max_pool(const graph::Node& n, std::string& why) {
    if (n.args.empty() || !n.args[0].is_node()) {
      why = "expected an input";
      return std::nullopt;
    }
    std::vector<Argument> args;
    for (const Argument& a : n.args) args.push_back(remap(a));
    std::vector<graph::KeywordArgument> kwargs;
    for (const auto& [k, v] : n.kwargs) kwargs.emplace_back(k, remap(v));
    const std::string op = std::string(ops::op_base_name(n.target)) + "_with_indices.default";
    const NodeId pool =
        emit(n, fresh(n.name + "_with_indices"), op, std::move(args), std::nullopt, kwargs);
    return getitem(n, pool, 0, n.name, value(*n.meta, n.meta->sizes));
  }

  // contiguous is its input where that is row-major, else a copy that is.
  std::optional<NodeId> contiguous(const graph::Node& n, std::string& why) {
    const auto x = node_of(arg_of(n, 0, "self"));
    const std::optional<TensorMeta> xm = copy_of(meta(x));
    if (!xm) {
      why = "expected an annotated input";
      return std::nullopt;
    }
    const Argument* format = arg_of(n, 1, "memory_format");
    if (format && !format->is_none() && format->text() != "torch.contiguous_format") {
      why = "a memory format other than torch.contiguous_format";
      return std::nullopt;
    }
    if (row_major(*xm)) return *x;
    return emit(n, n.name, "clone.default", {Argument::node(*x)}, value(*n.meta, n.meta->sizes),
                {{"memory_format", Argument::symbol("torch.contiguous_format")}});
  }

  // type_as(x, other) and to(x, dtype, ...): a convert to the other dtype; its input where the
  // dtype does not change (and no copy is asked for).
  std::optional<NodeId> to_dtype(const graph::Node& n, std::string& why) {
    const auto x = node_of(arg_of(n, 0, "self"));
    const std::optional<TensorMeta> xm = copy_of(meta(x));
    if (!xm) {
      why = "expected an annotated input";
      return std::nullopt;
    }
    bool copy = false;
    for (const auto& [key, v] : n.kwargs) {
      if (key == "copy" && v.kind() == Argument::Kind::boolean) copy = v.as_bool();
    }
    if (n.meta->dtype == xm->dtype && !copy) return *x;
    return convert(n, *x, n.meta->dtype, n.name);
  }

  // pad(x, pad, 'constant', value) -> constant_pad_nd; the other modes are kept.
  std::optional<NodeId> pad(const graph::Node& n, std::string& why) {
    const auto x = node_of(arg_of(n, 0, "self"));
    const Argument* widths = arg_of(n, 1, "pad");
    const Argument* mode = arg_of(n, 2, "mode");
    const Argument* fill = arg_of(n, 3, "value");
    if (!x || !widths) {
      why = "expected an input and the pad widths";
      return std::nullopt;
    }
    if (mode && mode->kind() == Argument::Kind::string && mode->text() != "constant") {
      why = "pad mode '" + mode->text() + "' (only 'constant' decomposes to constant_pad_nd)";
      return std::nullopt;
    }
    const Argument value_arg = fill && !fill->is_none() ? remap(*fill) : Argument::floating(0.0);
    return emit(n, n.name, "constant_pad_nd.default",
                {Argument::node(*x), remap(*widths), value_arg}, value(*n.meta, n.meta->sizes));
  }

  // rms_norm(x, shape, w, eps): x * rsqrt(mean(x^2 over the normalized dims) + eps) * w, in f32
  // for bf16/f16 input; eps defaults to the input dtype's machine epsilon (torch/_decomp).
  std::optional<NodeId> rms_norm(const graph::Node& n, std::string& why) {
    const auto x = node_of(arg_of(n, 0, "input"));
    const Argument* shape = arg_of(n, 1, "normalized_shape");
    const std::optional<TensorMeta> xm = copy_of(meta(x));
    const std::size_t k = shape ? shape->items().size() : 0;
    if (!xm || k == 0 || k > xm->rank()) {
      why = "expected an annotated input and a normalized shape within it";
      return std::nullopt;
    }
    const Argument* eps_arg = arg_of(n, 3, "eps");
    const double machine_eps = xm->dtype == "bf16"  ? 0.0078125
                               : xm->dtype == "f16" ? 0.0009765625
                                                    : 1.1920928955078125e-07;
    const double eps =
        eps_arg && !eps_arg->is_none() ? number_of(eps_arg).value_or(machine_eps) : machine_eps;
    const std::string compute = half_precision(xm->dtype) ? "f32" : xm->dtype;
    const NodeId xc = in_dtype(n, *x, compute);
    const TensorMeta full = *meta(xc);
    Dims kept = full.sizes;
    std::vector<std::int64_t> dims;
    for (std::size_t d = xm->rank() - k; d < xm->rank(); ++d) {
      kept[d] = Dim::constant(1);
      dims.push_back(static_cast<std::int64_t>(d));
    }
    const NodeId sq = pointwise(n, fresh(n.name + "_pow"), "pow.Tensor_Scalar",
                                {Argument::node(xc), Argument::integer(2)}, full, full.sizes);
    const NodeId ms =
        emit(n, fresh(n.name + "_mean"), "mean.dim",
             {Argument::node(sq), int_list(dims), Argument::boolean(true)}, value(full, kept));
    const NodeId rstd = inverse_root(n, ms, eps, full, kept);
    const auto w = node_of(arg_of(n, 2, "weight"));
    const std::string last = last_name(n, compute);
    const NodeId y = pointwise(n, w ? fresh(n.name + "_norm") : last, "mul.Tensor",
                               {Argument::node(xc), Argument::node(rstd)}, full, full.sizes);
    return finish(n, scale_shift(n, y, w, std::nullopt, compute, last));
  }

  // upsample_nearest2d.vec / upsample_bilinear2d.vec (F.interpolate in the training IR): the
  // gathers Inductor's decompositions give (_upsample_nearest, _upsample_linear): per spatial dim
  // a source index from iota(out) (floor(i * scale) for nearest; scale * (i + 0.5) - 0.5 clamped
  // at 0, or scale * i with align_corners, for bilinear), _unsafe_index of the input at them, and
  // for bilinear the four corners blended by the fractions, W first. SCALE is in / out, or
  // 1 / scale_factor where one is given.
  std::optional<NodeId> upsample(const graph::Node& n, bool bilinear, std::string& why) {
    const auto x = node_of(arg_of(n, 0, "input"));
    const std::optional<TensorMeta> xm = copy_of(meta(x));
    if (!xm || xm->rank() != 4 || n.meta->rank() != 4) {
      why = "expected an annotated 4-D input and output";
      return std::nullopt;
    }
    const Argument* align_arg = bilinear ? arg_of(n, 2, "align_corners") : nullptr;
    const bool align = align_arg && bool_of(align_arg).value_or(false);
    const Argument* factors = arg_of(n, bilinear ? 3 : 2, "scale_factors");
    std::vector<double> scale_factors;
    if (factors && !factors->is_none()) {
      for (const Argument& f : factors->items()) {
        if (const auto v = number_of(&f)) scale_factors.push_back(*v);
      }
    }
    std::array<NodeId, 2> floor_at{};
    std::array<NodeId, 2> next_at{};
    std::array<NodeId, 2> source_at{};
    for (std::size_t k = 0; k < 2; ++k) {
      const Dim& in = xm->sizes[2 + k];
      const Dim& out = n.meta->sizes[2 + k];
      if (in.is_symbolic() || out.is_symbolic() || out.value <= 0) {
        why = "its spatial sizes are symbolic";
        return std::nullopt;
      }
      double scale = static_cast<double>(in.value) / static_cast<double>(out.value);
      if (k < scale_factors.size() && scale_factors[k] > 0) scale = 1.0 / scale_factors[k];
      if (bilinear && align) {
        scale = out.value > 1
                    ? static_cast<double>(in.value - 1) / static_cast<double>(out.value - 1)
                    : 0.0;
      }
      const std::string tag = k == 0 ? "_h" : "_w";
      TensorMeta f32;
      f32.dtype = "f32";
      f32.device = xm->device;
      const Dims line = {out};
      const NodeId iota = emit(n, fresh(n.name + tag + "_iota"), "prims.iota.default",
                               {Argument::integer(out.value)}, value(index_meta(xm->device), line),
                               {{"start", Argument::integer(0)},
                                {"step", Argument::integer(1)},
                                {"dtype", Argument::symbol("torch.int64")},
                                {"device", Argument::symbol("device(type='cuda', index=0)")},
                                {"requires_grad", Argument::boolean(false)}});
      NodeId src = convert(n, iota, "f32", fresh(n.name + tag + "_float"));
      if (bilinear && !align) {
        src = pointwise(n, fresh(n.name + tag + "_add"), "add.Tensor",
                        {Argument::node(src), Argument::floating(0.5)}, f32, line);
      }
      src = pointwise(n, fresh(n.name + tag + "_mul"), "mul.Tensor",
                      {Argument::node(src), Argument::floating(scale)}, f32, line);
      if (bilinear && !align) {
        src = pointwise(n, fresh(n.name + tag + "_sub"), "sub.Tensor",
                        {Argument::node(src), Argument::floating(0.5)}, f32, line);
        src = pointwise(n, fresh(n.name + tag + "_clamp"), "clamp_min.default",
                        {Argument::node(src), Argument::floating(0.0)}, f32, line);
      }
      // H's index is a column (out, 1) against W's row (out): they broadcast to (out_h, out_w).
      const Dims shaped = k == 0 ? Dims{out, Dim::constant(1)} : line;
      src = emit(n, fresh(n.name + tag + "_view"), "view.default",
                 {Argument::node(src), size_list(shaped)}, value(f32, shaped));
      source_at[k] = src;
      NodeId idx = convert(n, src, "i64", fresh(n.name + tag + "_index"));
      if (!bilinear) {
        idx = pointwise(n, fresh(n.name + tag + "_last"), "clamp_max.default",
                        {Argument::node(idx), Argument::integer(in.value - 1)},
                        index_meta(xm->device), shaped);
      }
      floor_at[k] = idx;
      if (bilinear) {
        const NodeId plus =
            pointwise(n, fresh(n.name + tag + "_next"), "add.Tensor",
                      {Argument::node(idx), Argument::integer(1)}, index_meta(xm->device), shaped);
        next_at[k] = pointwise(n, fresh(n.name + tag + "_next_clamp"), "clamp_max.default",
                               {Argument::node(plus), Argument::integer(in.value - 1)},
                               index_meta(xm->device), shaped);
      }
    }
    const auto gather = [&](NodeId h, NodeId w, std::string name) {
      return emit(n, std::move(name), "_unsafe_index.Tensor",
                  {Argument::node(*x),
                   Argument::list({Argument(), Argument(), Argument::node(h), Argument::node(w)})},
                  value(*n.meta, n.meta->sizes));
    };
    if (!bilinear) return gather(floor_at[0], floor_at[1], n.name);
    const NodeId c00 = gather(floor_at[0], floor_at[1], fresh(n.name + "_00"));
    const NodeId c01 = gather(floor_at[0], next_at[1], fresh(n.name + "_01"));
    const NodeId c10 = gather(next_at[0], floor_at[1], fresh(n.name + "_10"));
    const NodeId c11 = gather(next_at[0], next_at[1], fresh(n.name + "_11"));
    const auto fraction = [&](std::size_t k) {
      const TensorMeta src = *meta(source_at[k]);
      const NodeId d =
          pointwise(n, fresh(n.name + "_frac"), "sub.Tensor",
                    {Argument::node(source_at[k]), Argument::node(floor_at[k])}, src, src.sizes);
      const NodeId lo = pointwise(n, fresh(n.name + "_frac"), "clamp_min.default",
                                  {Argument::node(d), Argument::floating(0.0)}, src, src.sizes);
      const NodeId f = pointwise(n, fresh(n.name + "_frac"), "clamp_max.default",
                                 {Argument::node(lo), Argument::floating(1.0)}, src, src.sizes);
      return in_dtype(n, f, n.meta->dtype);
    };
    const auto lerp = [&](NodeId a, NodeId b, NodeId t, std::string name) {
      const TensorMeta full = *n.meta;
      const NodeId diff = pointwise(n, fresh(n.name + "_diff"), "sub.Tensor",
                                    {Argument::node(b), Argument::node(a)}, full, full.sizes);
      const NodeId step = pointwise(n, fresh(n.name + "_step"), "mul.Tensor",
                                    {Argument::node(diff), Argument::node(t)}, full, full.sizes);
      return pointwise(n, std::move(name), "add.Tensor", {Argument::node(a), Argument::node(step)},
                       full, full.sizes);
    };
    const NodeId fw = fraction(1);
    const NodeId top = lerp(c00, c01, fw, fresh(n.name + "_top"));
    const NodeId bottom = lerp(c10, c11, fw, fresh(n.name + "_bottom"));
    return lerp(top, bottom, fraction(0), n.name);
  }

  static TensorMeta index_meta(const std::string& device) {
    TensorMeta m;
    m.dtype = "i64";
    m.device = device;
    return m;
  }

  // chunk(x, chunks, dim) -> split(x, ceil(size / chunks), dim); its getitems read the split.
  std::optional<NodeId> chunk(const graph::Node& n, std::string& why) {
    const auto x = node_of(arg_of(n, 0, "self"));
    const auto chunks = int_of(arg_of(n, 1, "chunks"));
    const auto dim = arg_of(n, 2, "dim") ? int_of(arg_of(n, 2, "dim")) : 0;
    const std::optional<TensorMeta> xm = copy_of(meta(x));
    const auto d = xm && dim ? dim_index(*dim, xm->rank()) : std::nullopt;
    if (!d || !chunks || *chunks <= 0 || xm->sizes[*d].is_symbolic()) {
      why = "expected an annotated input with a static size along dim, and chunks";
      return std::nullopt;
    }
    const std::int64_t size = xm->sizes[*d].value;
    const std::int64_t split = (size + *chunks - 1) / *chunks;
    return emit(n, n.name, "split.Tensor",
                {Argument::node(*x), Argument::integer(split),
                 Argument::integer(static_cast<std::int64_t>(*d))},
                std::nullopt);
  }

  // scaled_dot_product_attention as the kernel PyTorch's CUDA dispatch picks: flash attention
  // for bf16/f16 without a mask, memory-efficient attention otherwise; a 3-D call runs with a
  // head dimension of 1.
  // A boolean attention mask as the additive one the kernels take (sdpa's
  // convert_boolean_attn_mask): 0 where it keeps a position, -inf where it masks it, in DTYPE.
  NodeId additive_mask(const graph::Node& n, NodeId mask, const std::string& dtype) {
    const auto scalar = [&](double fill, const std::string& what) {
      TensorMeta m;
      m.dtype = dtype;
      m.device = meta(mask)->device;
      return emit(n, fresh(n.name + what), "full.default",
                  {Argument::list({}), Argument::floating(fill)}, std::move(m),
                  {{"dtype", dtype_symbol(dtype)},
                   {"device", Argument::symbol("device(type='cuda', index=0)")},
                   {"pin_memory", Argument::boolean(false)}});
    };
    const NodeId keep = scalar(0.0, "_keep");
    const NodeId drop = scalar(-std::numeric_limits<double>::infinity(), "_drop");
    TensorMeta m = value(*meta(mask), meta(mask)->sizes);
    m.dtype = dtype;
    return emit(n, fresh(n.name + "_mask"), "where.self",
                {Argument::node(mask), Argument::node(keep), Argument::node(drop)}, std::move(m));
  }

  std::optional<NodeId> attention(const graph::Node& n, std::string& why) {
    auto q = node_of(arg_of(n, 0, "query"));
    auto k = node_of(arg_of(n, 1, "key"));
    auto v = node_of(arg_of(n, 2, "value"));
    auto mask = node_of(arg_of(n, 3, "attn_mask"));
    const Argument* dropout_arg = arg_of(n, 4, "dropout_p");
    const Argument* causal_arg = arg_of(n, 5, "is_causal");
    const auto dropout = dropout_arg ? number_of(dropout_arg) : 0.0;
    const auto causal = causal_arg ? bool_of(causal_arg) : false;
    const Argument* scale = arg_of(n, 6, "scale");
    const Argument* gqa = arg_of(n, 7, "enable_gqa");
    const std::optional<TensorMeta> qm = copy_of(meta(q));
    if (!qm || !meta(k) || !meta(v) || !dropout || !causal ||
        (qm->rank() != 3 && qm->rank() != 4) || meta(k)->rank() != qm->rank() ||
        meta(v)->rank() != qm->rank()) {
      why = "expected annotated query, key and value of rank 3 or 4";
      return std::nullopt;
    }
    if (gqa && bool_of(gqa).value_or(true)) {
      why = "grouped-query attention (enable_gqa)";
      return std::nullopt;
    }
    const bool batched = qm->rank() == 4;
    const auto heads = [&](NodeId t) {
      const TensorMeta m = *meta(t);
      Dims sizes = m.sizes;
      sizes.insert(sizes.begin() + 1, Dim::constant(1));
      return emit(n, fresh(n.name + "_unsqueeze"), "unsqueeze.default",
                  {Argument::node(t), Argument::integer(1)}, value(m, sizes, Dims{}));
    };
    if (!batched) {
      q = heads(*q);
      k = heads(*k);
      v = heads(*v);
      if (mask && meta(mask) && meta(mask)->rank() == 3) mask = heads(*mask);
    }
    if (mask && meta(mask) && meta(mask)->dtype == "b8") mask = additive_mask(n, *mask, qm->dtype);
    std::vector<graph::KeywordArgument> kwargs;
    if (scale && !scale->is_none()) kwargs.emplace_back("scale", *scale);
    const bool flash = half_precision(qm->dtype) && !mask;
    const NodeId call =
        flash ? emit(n, fresh(n.name + "_flash"), "_scaled_dot_product_flash_attention.default",
                     {Argument::node(*q), Argument::node(*k), Argument::node(*v),
                      Argument::floating(*dropout), Argument::boolean(*causal),
                      Argument::boolean(false)},
                     std::nullopt, std::move(kwargs))
              : emit(n, fresh(n.name + "_efficient"),
                     "_scaled_dot_product_efficient_attention.default",
                     {Argument::node(*q), Argument::node(*k), Argument::node(*v),
                      mask ? Argument::node(*mask) : Argument(), Argument::boolean(false),
                      Argument::floating(*dropout), Argument::boolean(*causal)},
                     std::nullopt, std::move(kwargs));
    if (batched) return getitem(n, call, 0, n.name, value(*n.meta, n.meta->sizes));
    Dims sizes = n.meta->sizes;
    sizes.insert(sizes.begin() + 1, Dim::constant(1));
    const NodeId out = getitem(n, call, 0, fresh(n.name + "_out"), value(*n.meta, sizes));
    return emit(n, n.name, "squeeze.dim", {Argument::node(out), Argument::integer(1)},
                value(*n.meta, n.meta->sizes));
  }

  // The strides of a view of SIZES over an input of OLD_SIZES and OLD_STRIDES, as PyTorch's
  // computeStride finds them (each run of the input's dims contiguous in memory maps onto whole
  // dims of the view); nullopt where the view cannot be laid over the input (reshape copies).
  // Sizes are compared at the hints; the strides are built from the input's as expressions.
  std::optional<Dims> view_of(const Dims& old_sizes, const Dims& old_strides,
                              const Dims& sizes) const {
    const auto at = [&](const Dim& d) { return ops::eval_dim(d, hints_); };
    if (old_sizes.empty() || old_strides.size() != old_sizes.size()) return std::nullopt;
    Dims out(sizes.size(), Dim::constant(1));
    auto view_d = static_cast<std::int64_t>(sizes.size()) - 1;
    Dim chunk_base = old_strides.back();
    Dim tensor_numel = Dim::constant(1);
    Dim view_numel = Dim::constant(1);
    for (auto d = static_cast<std::int64_t>(old_sizes.size()) - 1; d >= 0; --d) {
      const auto ud = static_cast<std::size_t>(d);
      tensor_numel = mul(tensor_numel, old_sizes[ud]);
      if (d == 0 || (at(old_sizes[ud - 1]) != 1 &&
                     at(old_strides[ud - 1]) != at(tensor_numel) * at(chunk_base))) {
        while (view_d >= 0 && (at(view_numel) < at(tensor_numel) ||
                               at(sizes[static_cast<std::size_t>(view_d)]) == 1)) {
          out[static_cast<std::size_t>(view_d)] = mul(view_numel, chunk_base);
          view_numel = mul(view_numel, sizes[static_cast<std::size_t>(view_d)]);
          --view_d;
        }
        if (at(view_numel) != at(tensor_numel)) return std::nullopt;
        if (d > 0) {
          chunk_base = old_strides[ud - 1];
          tensor_numel = Dim::constant(1);
          view_numel = Dim::constant(1);
        }
      }
    }
    if (view_d != -1) return std::nullopt;
    return out;
  }

  // reshape: a view where the input's strides allow one, else a row-major copy viewed.
  std::optional<NodeId> reshape_op(const graph::Node& n, std::string& why) {
    const auto x = node_of(arg_of(n, 0, "self"));
    const std::optional<TensorMeta> xm = copy_of(meta(x));
    if (!xm) {
      why = "expected an annotated input";
      return std::nullopt;
    }
    if (view_of(xm->sizes, xm->strides, n.meta->sizes)) {
      return emit(n, n.name, "view.default", {Argument::node(*x), size_list(n.meta->sizes)},
                  value(*n.meta, n.meta->sizes, Dims{}));
    }
    return reshape(n, *x, n.meta->sizes, n.name);
  }

  // Strides for node ID where its annotation printed none: a view's as PyTorch computes them
  // from its input's, any other value's dense.
  void fill_strides(NodeId id) {
    graph::Node& n = out_.graph.node(id);
    if (!n.meta || n.meta->is_sym_scalar() || !n.meta->strides.empty() || n.meta->sizes.empty()) {
      return;
    }
    std::optional<Dims> strides = view_strides(n);
    if (!strides || strides->size() != n.meta->rank()) strides = dense(n.meta->sizes);
    n.meta->strides = std::move(*strides);
    ++out_.strides_inferred;
  }

  std::optional<Dims> view_strides(const graph::Node& n) const {
    if (!n.is_op() || n.args.empty() || !n.args[0].is_node()) return std::nullopt;
    const graph::Node& src = out_.graph.node(n.args[0].as_node());
    const std::string_view base = ops::op_base_name(n.target);
    if (n.target == "operator.getitem") {
      // A piece of a split keeps its input's strides; one of unbind drops the unbound dim.
      const std::string_view of = ops::op_base_name(src.target);
      if (src.args.empty() || !src.args[0].is_node()) return std::nullopt;
      const TensorMeta* whole = meta(src.args[0].as_node());
      if (!whole || whole->strides.size() != whole->rank()) return std::nullopt;
      if (of == "split" || of == "split_with_sizes") return whole->strides;
      if (of == "unbind") {
        const auto d = dim_index(src.args.size() > 1 ? src.args[1].as_int() : 0, whole->rank());
        if (!d) return std::nullopt;
        Dims s = whole->strides;
        s.erase(s.begin() + static_cast<std::ptrdiff_t>(*d));
        return s;
      }
      return std::nullopt;
    }
    const TensorMeta* in = meta(n.args[0].as_node());
    if (!in || in->strides.size() != in->rank()) return std::nullopt;
    const Dims& s = in->strides;
    const auto int_arg = [&](std::size_t i, std::int64_t fallback) {
      return i < n.args.size() && n.args[i].kind() == Argument::Kind::integer ? n.args[i].as_int()
                                                                              : fallback;
    };
    if (base == "permute" && n.args.size() > 1) {
      Dims out;
      for (const Argument& p : n.args[1].items()) {
        const auto d = dim_index(p.as_int(), in->rank());
        if (!d) return std::nullopt;
        out.push_back(s[*d]);
      }
      return out;
    }
    if (base == "transpose" || base == "t") {
      const auto d0 = dim_index(int_arg(1, 0), in->rank());
      const auto d1 = dim_index(int_arg(2, 1), in->rank());
      if (!d0 || !d1) return std::nullopt;
      Dims out = s;
      std::swap(out[*d0], out[*d1]);
      return out;
    }
    if (base == "unsqueeze") {
      const auto d = dim_index(int_arg(1, 0), in->rank() + 1);
      if (!d) return std::nullopt;
      Dims out = s;
      const Dim at = *d < in->rank() ? mul(in->sizes[*d], s[*d]) : Dim::constant(1);
      out.insert(out.begin() + static_cast<std::ptrdiff_t>(*d), at);
      return out;
    }
    if (base == "squeeze") {
      // squeeze.dim / squeeze.dims drop the named dims of size 1, squeeze.default every one.
      std::vector<bool> dropped(in->rank(), false);
      const bool named = n.args.size() > 1;
      std::vector<std::int64_t> dims;
      if (named) {
        if (n.args[1].kind() == Argument::Kind::integer) dims.push_back(n.args[1].as_int());
        for (const Argument& d : n.args[1].items()) dims.push_back(d.as_int());
      }
      for (std::size_t i = 0; i < in->rank(); ++i) dropped[i] = !named && is_one(in->sizes[i]);
      for (const std::int64_t d : dims) {
        const auto at = dim_index(d, in->rank());
        if (at && is_one(in->sizes[*at])) dropped[*at] = true;
      }
      Dims out;
      for (std::size_t i = 0; i < in->rank(); ++i) {
        if (!dropped[i]) out.push_back(s[i]);
      }
      return out;
    }
    if (base == "select") {
      const auto d = dim_index(int_arg(1, 0), in->rank());
      if (!d) return std::nullopt;
      Dims out = s;
      out.erase(out.begin() + static_cast<std::ptrdiff_t>(*d));
      return out;
    }
    if (base == "slice") {
      const auto d = dim_index(int_arg(1, 0), in->rank());
      if (!d) return std::nullopt;
      Dims out = s;
      out[*d] = mul(out[*d], Dim::constant(int_arg(4, 1)));
      return out;
    }
    if (base == "expand") {
      const std::size_t lead = n.meta->rank() - std::min(n.meta->rank(), in->rank());
      Dims out(lead, Dim::constant(0));
      for (std::size_t i = 0; i < in->rank(); ++i) {
        const bool stretched = is_one(in->sizes[i]) && !is_one(n.meta->sizes[lead + i]);
        out.push_back(stretched ? Dim::constant(0) : s[i]);
      }
      return out;
    }
    if (base == "view" || base == "_unsafe_view" || base == "reshape" || base == "alias" ||
        base == "detach" || base == "flatten" || base == "unflatten") {
      if (in->sizes == n.meta->sizes) return s;
      return view_of(in->sizes, s, n.meta->sizes);
    }
    return std::nullopt;
  }

  const graph::Graph& in_;
  std::string where_;
  const ops::SymbolHints& hints_;
  std::vector<NodeId> map_;
  std::vector<NodeId> root_;  // the tensor each node's value is, through in-place ops
  CoreAtenGraph out_;
};

}  // namespace

bool has_export_composite_ops(const graph::Graph& graph) {
  for (const graph::Node& n : graph.nodes()) {
    if (n.is_op() && export_composite_op(n.target)) return true;
  }
  return false;
}

CoreAtenGraph core_aten_graph(const graph::Graph& graph, const std::string& where,
                              const ops::SymbolHints& hints) {
  return Decomposer(graph, where, hints).run();
}

}  // namespace fxscope::fusion
