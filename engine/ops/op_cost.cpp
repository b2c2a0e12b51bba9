// Flops and bytes of a node from the shapes the FX text annotates.

#include "fxscope/ops/op_cost.h"

#include <cctype>
#include <cmath>
#include <cstddef>
#include <optional>
#include <string>
#include <unordered_map>

#include "fxscope/core/text.h"
#include "fxscope/guards/expression.h"
#include "fxscope/ops/alu_cost.h"
#include "fxscope/ops/op_registry.h"

namespace fxscope::ops {
namespace {

// A size expression as FX prints it (2*s77, (s77//2), 64*Max(1, ((s53 - 7)//4) + 1)**2): the
// sympy forms are those of shape guards, so the guards' parser reads them, once per text and
// thread (planning runs on the thread pool).
const guards::Expression* parsed_dim(const std::string& text) {
  thread_local std::unordered_map<std::string, std::optional<guards::Expression>> cache;
  auto it = cache.find(text);
  if (it == cache.end()) {
    auto parsed = guards::parse_expression(text);
    it = cache.emplace(text, parsed ? std::optional(std::move(*parsed)) : std::nullopt).first;
  }
  return it->second ? &*it->second : nullptr;
}

const graph::TensorMeta* meta_of(const graph::Graph& graph, graph::NodeId id) {
  const graph::Node& node = graph.node(id);
  return node.meta && !node.meta->is_sym_scalar() ? &*node.meta : nullptr;
}

double tensor_bytes(const graph::TensorMeta& meta, const SymbolHints& hints) {
  return static_cast<double>(numel(meta, hints) * dtype_bytes(meta.dtype));
}

// Bytes a node writes: its own tensor, or for tuple results the tensors of its getitem users.
double written_bytes(const graph::Graph& graph, graph::NodeId id,
                     const std::vector<graph::NodeId>& users, const SymbolHints& hints) {
  if (const graph::TensorMeta* meta = meta_of(graph, id)) return tensor_bytes(*meta, hints);
  double bytes = 0.0;
  for (const graph::NodeId user : users) {
    if (const graph::TensorMeta* meta = meta_of(graph, user)) bytes += tensor_bytes(*meta, hints);
  }
  return bytes;
}

std::int64_t dim_at(const graph::TensorMeta& meta, std::size_t i, const SymbolHints& hints) {
  return i < meta.sizes.size() ? eval_dim(meta.sizes[i], hints) : 1;
}

// The constant term of node N of EXPR (constant_term); atoms count 0.
std::optional<std::int64_t> constant_of(const guards::Expression& expr, int n) {
  using Op = guards::ExprNode::Op;
  const guards::ExprNode& node = expr.nodes[static_cast<std::size_t>(n)];
  const auto arg = [&](std::size_t k) -> std::optional<std::int64_t> {
    if (k >= node.args.size()) return std::nullopt;
    return constant_of(expr, node.args[k]);
  };
  switch (node.op) {
    case Op::kLiteral:
      if (node.value.kind == guards::Value::Kind::kInt) return node.value.integer;
      return std::nullopt;
    case Op::kName:
    case Op::kSource:
    case Op::kFloorDiv:
    case Op::kMod:
    case Op::kCall:
      return 0;
    case Op::kNeg: {
      const auto a = arg(0);
      return a ? std::optional(-*a) : std::nullopt;
    }
    case Op::kAdd:
    case Op::kSub:
    case Op::kMul: {
      const auto a = arg(0);
      const auto b = arg(1);
      if (!a || !b) return std::nullopt;
      if (node.op == Op::kAdd) return *a + *b;
      if (node.op == Op::kSub) return *a - *b;
      return *a * *b;
    }
    case Op::kPow: {
      // The constant term of a power of a polynomial is the power of its constant term.
      const auto a = arg(0);
      if (!a || node.args.size() < 2) return std::nullopt;
      const guards::ExprNode& e = expr.nodes[static_cast<std::size_t>(node.args[1])];
      if (e.op != Op::kLiteral || e.value.kind != guards::Value::Kind::kInt ||
          e.value.integer < 0 || e.value.integer > 8) {
        return std::nullopt;
      }
      std::int64_t p = 1;
      for (std::int64_t k = 0; k < e.value.integer; ++k) p *= *a;
      return p;
    }
    default:
      return std::nullopt;
  }
}

}  // namespace

std::optional<std::int64_t> constant_term(const graph::Dim& dim) {
  if (!dim.is_symbolic()) return dim.value;
  const guards::Expression* expr = parsed_dim(dim.expr);
  if (expr == nullptr || expr->root < 0) return std::nullopt;
  return constant_of(*expr, expr->root);
}

std::int64_t eval_dim(const graph::Dim& dim, const SymbolHints& hints) {
  if (!dim.is_symbolic()) return dim.value;
  const guards::Expression* expr = parsed_dim(dim.expr);
  if (expr == nullptr) return kDefaultSymbolValue;
  const auto result = guards::evaluate(*expr, [&](std::string_view name) {
    const auto hint = hints.find(name);
    return std::optional(
        guards::Value::of_int(hint == hints.end() ? kDefaultSymbolValue : hint->second));
  });
  if (result.state != guards::ExprResult::State::kKnown) return kDefaultSymbolValue;
  switch (result.value.kind) {
    case guards::Value::Kind::kInt:
      return result.value.integer;
    case guards::Value::Kind::kBool:
      return result.value.boolean ? 1 : 0;
    case guards::Value::Kind::kFloat:
      return static_cast<std::int64_t>(std::floor(result.value.real));
    default:
      return kDefaultSymbolValue;
  }
}

std::int64_t numel(const graph::TensorMeta& meta, const SymbolHints& hints) {
  std::int64_t n = 1;
  for (const graph::Dim& d : meta.sizes) n *= eval_dim(d, hints);
  return n;
}

std::int64_t dtype_bytes(std::string_view dtype) {
  if (dtype == "f64" || dtype == "i64" || dtype == "c64") return 8;
  if (dtype == "f16" || dtype == "bf16" || dtype == "i16") return 2;
  if (dtype == "b8" || dtype == "i8" || dtype == "u8" || text::starts_with(dtype, "f8")) return 1;
  return 4;
}

OpCost op_cost(const graph::Graph& graph, graph::NodeId id, const SymbolHints& hints) {
  OpCost cost;
  const graph::Node& node = graph.node(id);
  const OpInfo info = classify(node.target);
  if (!node.is_op() || info.lowering == Lowering::view || info.lowering == Lowering::getitem) {
    return cost;
  }
  const std::vector<graph::NodeId> inputs = graph.inputs(id);
  for (const graph::NodeId input : inputs) {
    if (const graph::TensorMeta* meta = meta_of(graph, input)) {
      cost.bytes_read += tensor_bytes(*meta, hints);
    }
  }
  std::vector<graph::NodeId> getitems;
  if (!meta_of(graph, id)) {
    for (graph::NodeId u = id + 1; u < graph.size(); ++u) {
      const std::vector<graph::NodeId> uses = graph.inputs(u);
      if (graph.node(u).target == "operator.getitem" && !uses.empty() && uses.front() == id) {
        getitems.push_back(u);
      }
    }
  }
  cost.bytes_written = written_bytes(graph, id, getitems, hints);
  const graph::TensorMeta* out = meta_of(graph, id);
  const graph::TensorMeta* in0 = inputs.empty() ? nullptr : meta_of(graph, inputs.front());
  const double out_elems = out ? static_cast<double>(numel(*out, hints)) : cost.bytes_written / 4.0;
  switch (info.flop_rule) {
    case FlopRule::none:
      // transformers' grouped_mm_fallback: an opaque custom op, but a GEMM per group of rows,
      // input [M, K] times weight[g] [K, N]; every row is multiplied (rows past the last offset
      // are zero-filled, at most M).
      if (is_grouped_mm(node.target) && in0 && in0->rank() == 2) {
        cost.flops = 2.0 * out_elems * static_cast<double>(dim_at(*in0, 1, hints));
      }
      break;
    case FlopRule::per_output:
      cost.flops = info.flops_per_element * out_elems;
      break;
    case FlopRule::per_input:
      cost.flops =
          info.flops_per_element * (in0 ? static_cast<double>(numel(*in0, hints)) : out_elems);
      break;
    case FlopRule::gemm: {
      // The contracted size is the last dimension of the first matrix operand.
      const std::size_t first = info.name == "aten.addmm" || info.name == "aten.baddbmm" ? 1 : 0;
      const graph::TensorMeta* a = inputs.size() > first ? meta_of(graph, inputs[first]) : nullptr;
      const double k =
          a && a->rank() > 0 ? static_cast<double>(dim_at(*a, a->rank() - 1, hints)) : 1.0;
      cost.flops = 2.0 * out_elems * k + (first == 1 ? out_elems : 0.0);
      break;
    }
    case FlopRule::conv: {
      // convolution_backward(grad_output, input, weight, ...) computes the input's and the
      // weight's gradients, each as many FLOPs as the forward convolution that made grad_output.
      const bool backward = info.name == "aten.convolution_backward";
      const std::size_t weight = backward ? 2 : 1;
      const graph::TensorMeta* w =
          inputs.size() > weight ? meta_of(graph, inputs[weight]) : nullptr;
      double per_output = 1.0;
      if (w) {
        for (std::size_t i = 1; i < w->rank(); ++i)
          per_output *= static_cast<double>(dim_at(*w, i, hints));
      }
      const double conv_outputs =
          backward && in0 ? static_cast<double>(numel(*in0, hints)) : out_elems;
      cost.flops = (backward ? 4.0 : 2.0) * conv_outputs * per_output;
      break;
    }
    case FlopRule::attention: {
      // q: [B, H, L, E], k: [B, H, S, E]: QK^T and PV each take 2*B*H*L*S*E.
      const graph::TensorMeta* k = inputs.size() > 1 ? meta_of(graph, inputs[1]) : nullptr;
      if (in0 && k && in0->rank() == 4 && k->rank() == 4) {
        cost.flops = 4.0 * static_cast<double>(numel(*in0, hints)) *
                     static_cast<double>(dim_at(*k, 2, hints));
      }
      break;
    }
  }
  return cost;
}

}  // namespace fxscope::ops
