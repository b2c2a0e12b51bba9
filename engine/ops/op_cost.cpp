// Flops and bytes of a node from the shapes the FX text annotates.

#include "fxscope/ops/op_cost.h"

#include <cctype>
#include <cstddef>

#include "fxscope/core/text.h"
#include "fxscope/ops/op_registry.h"

namespace fxscope::ops {
namespace {

// A recursive-descent evaluator for the size expressions FX prints: 2*s77, (s77//2), s0 + 1.
class DimExpression {
 public:
  DimExpression(std::string_view text, const SymbolHints& hints) : s_(text), hints_(hints) {}

  std::int64_t evaluate() { return sum(); }

 private:
  std::int64_t sum() {
    std::int64_t value = product();
    for (skip_blanks(); pos_ < s_.size() && (s_[pos_] == '+' || s_[pos_] == '-'); skip_blanks()) {
      const char op = s_[pos_++];
      const std::int64_t rhs = product();
      value = op == '+' ? value + rhs : value - rhs;
    }
    return value;
  }

  std::int64_t product() {
    std::int64_t value = atom();
    for (skip_blanks(); pos_ < s_.size() && (s_[pos_] == '*' || s_[pos_] == '/'); skip_blanks()) {
      const bool floor_div = s_.substr(pos_, 2) == "//";
      pos_ += floor_div ? 2 : 1;
      const std::int64_t rhs = atom();
      if (floor_div || s_[pos_ - 1] == '/') {
        value = rhs == 0 ? value : value / rhs;
      } else {
        value *= rhs;
      }
    }
    return value;
  }

  std::int64_t atom() {
    skip_blanks();
    if (pos_ >= s_.size()) return 0;
    if (s_[pos_] == '(') {
      ++pos_;
      const std::int64_t value = sum();
      skip_blanks();
      if (pos_ < s_.size() && s_[pos_] == ')') ++pos_;
      return value;
    }
    if (s_[pos_] == '-') {
      ++pos_;
      return -atom();
    }
    const std::size_t start = pos_;
    while (pos_ < s_.size() &&
           (std::isalnum(static_cast<unsigned char>(s_[pos_])) != 0 || s_[pos_] == '_')) {
      ++pos_;
    }
    const std::string_view token = s_.substr(start, pos_ - start);
    if (token.empty()) {
      ++pos_;  // an unexpected character: skip it rather than loop
      return 0;
    }
    if (const auto number = text::parse_int(token)) return *number;
    const auto hint = hints_.find(token);
    return hint == hints_.end() ? kDefaultSymbolValue : hint->second;
  }

  void skip_blanks() {
    while (pos_ < s_.size() && s_[pos_] == ' ') ++pos_;
  }

  std::string_view s_;
  const SymbolHints& hints_;
  std::size_t pos_ = 0;
};

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

}  // namespace

std::int64_t eval_dim(const graph::Dim& dim, const SymbolHints& hints) {
  if (!dim.is_symbolic()) return dim.value;
  return DimExpression(dim.expr, hints).evaluate();
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
