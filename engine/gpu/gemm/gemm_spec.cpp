#include "fxscope/gpu/gemm_spec.h"

#include <string_view>

namespace fxscope::gpu {
namespace {

std::string short_target(const std::string& target) {
  std::string t = target;
  if (t.rfind("torch.ops.", 0) == 0) t = t.substr(10);
  const auto dot = t.rfind('.');
  if (dot != std::string::npos && t.find('.') != dot) t = t.substr(0, dot);
  return t;
}

std::optional<double> scalar_kwarg(const graph::Node& n, std::string_view name) {
  for (const auto& [k, v] : n.kwargs) {
    if (k != name) continue;
    if (v.kind() == graph::Argument::Kind::integer) return static_cast<double>(v.as_int());
    if (v.kind() == graph::Argument::Kind::floating) return v.as_float();
  }
  return std::nullopt;
}

// The last two dims of NODE (rank 2 or 3) as a matrix; a size-1 dim takes the stride that keeps
// the operand in one of the two layouts cuBLASLt reads.
Result<MatrixOperand> operand(const graph::Graph& g, const graph::Argument& arg, std::size_t rank,
                              const ops::SymbolHints& hints, const std::string& where) {
  if (!arg.is_node()) return make_error(where + ": an operand is not a tensor");
  const graph::Node& n = g.node(arg.as_node());
  if (!n.meta || n.meta->rank() != rank || n.meta->strides.size() != rank) {
    return make_error(where + ": operand " + n.name + " has no rank-" + std::to_string(rank) +
                      " tensor annotation");
  }
  MatrixOperand m;
  m.node = arg.as_node();
  const auto& s = n.meta->sizes;
  const auto& st = n.meta->strides;
  const std::size_t r = rank - 2;
  m.rows = ops::eval_dim(s[r], hints);
  m.cols = ops::eval_dim(s[r + 1], hints);
  m.row_stride = ops::eval_dim(st[r], hints);
  m.col_stride = ops::eval_dim(st[r + 1], hints);
  if (rank == 3) {
    m.batch = ops::eval_dim(s[0], hints);
    m.batch_stride = m.batch == 1 ? 0 : ops::eval_dim(st[0], hints);
  }
  if (m.cols == 1) m.col_stride = 1;
  if (m.rows == 1 && m.col_stride == 1) m.row_stride = m.cols;
  if (m.rows == 1 && m.col_stride != 1) m.row_stride = 1;
  const bool row_major = m.col_stride == 1 && m.row_stride >= m.cols;
  const bool col_major = m.row_stride == 1 && m.col_stride >= m.rows;
  if (!row_major && !col_major) {
    return make_error(where + ": operand " + n.name + " has strides [" +
                      std::to_string(m.row_stride) + ", " + std::to_string(m.col_stride) +
                      "], neither row- nor column-major");
  }
  return m;
}

}  // namespace

bool is_gemm_target(const std::string& target) {
  const std::string t = short_target(target);
  return t == "aten.mm" || t == "aten.addmm" || t == "aten.bmm" || t == "aten.baddbmm";
}

Result<GemmSpec> describe_gemm(const graph::Graph& g, graph::NodeId id,
                               const ops::SymbolHints& hints) {
  const graph::Node& n = g.node(id);
  GemmSpec spec;
  spec.op = short_target(n.target);
  const std::string where = "node " + n.name + " (" + spec.op + ")";
  const bool batched = spec.op == "aten.bmm" || spec.op == "aten.baddbmm";
  const bool with_bias = spec.op == "aten.addmm" || spec.op == "aten.baddbmm";
  const std::size_t rank = batched ? 3 : 2;
  const std::size_t first = with_bias ? 1 : 0;
  if (!is_gemm_target(n.target) || n.args.size() < first + 2) {
    return make_error(where + ": expected mm, addmm, bmm or baddbmm with its operands");
  }
  auto a = operand(g, n.args[first], rank, hints, where);
  if (!a) return a.error();
  auto b = operand(g, n.args[first + 1], rank, hints, where);
  if (!b) return b.error();
  auto out = operand(g, graph::Argument::node(id), rank, hints, where);
  if (!out) return out.error();
  if (!out->row_major()) return make_error(where + ": a column-major result is not supported");
  if (a->cols != b->rows || a->rows != out->rows || b->cols != out->cols) {
    return make_error(where + ": operand shapes do not multiply to the result's");
  }
  spec.a = *a;
  spec.b = *b;
  spec.out = *out;
  spec.dtype = g.node(id).meta->dtype;
  spec.beta = 0.0;
  spec.alpha = scalar_kwarg(n, "alpha").value_or(1.0);
  if (with_bias) {
    const graph::Argument& c = n.args[0];
    if (!c.is_node() || !g.node(c.as_node()).meta) {
      return make_error(where + ": the bias is not an annotated tensor");
    }
    const double beta = scalar_kwarg(n, "beta").value_or(1.0);
    const auto& cm = *g.node(c.as_node()).meta;
    const bool vector =
        cm.rank() == 1 || (cm.rank() == 2 && ops::eval_dim(cm.sizes[0], hints) == 1);
    if (vector && beta == 1.0 && !batched) {
      spec.bias_vector = c.as_node();
    } else {
      auto cmat = operand(g, c, rank, hints, where);
      if (!cmat) return cmat.error();
      spec.bias_matrix = *cmat;
      spec.beta = beta;
    }
  }
  return spec;
}

}  // namespace fxscope::gpu
