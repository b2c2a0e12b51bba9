#include "fxscope/gpu/gemm_epilogue.h"

#include <algorithm>
#include <cmath>
#include <set>
#include <string_view>

#include "fxscope/ops/op_registry.h"

namespace fxscope::gpu {
namespace {

using graph::NodeId;

double gelu_erf(double v) {
  return 0.5 * v * (1.0 + std::erf(v / std::sqrt(2.0)));
}
double gelu_tanh(double v) {
  return 0.5 * v * (1.0 + std::tanh(0.7978845608028654 * (v + 0.044715 * v * v * v)));
}

// The epilogue kernel's output as a scalar function of one product element X and the bias
// element B of its column, read off the kernel's nodes.
class ScalarEpilogue {
 public:
  ScalarEpilogue(const graph::Graph& g, NodeId gemm, std::set<NodeId> members, std::int64_t cols,
                 const ops::SymbolHints& hints)
      : g_(g), gemm_(gemm), members_(std::move(members)), cols_(cols), hints_(hints) {}

  Result<double> eval(NodeId n, double x, double b) {
    if (n == gemm_) return x;
    const graph::Node& node = g_.node(n);
    if (!members_.count(n)) return leaf(n, b);
    reached_.insert(n);
    const std::string base(ops::op_base_name(node.target));
    if (ops::classify(node.target).lowering == ops::Lowering::view) {
      // A view of the bias (unsqueeze, expand) reads the same column element; a view of
      // anything else would move elements.
      if (node.args.empty() || !node.args[0].is_node() || members_.count(node.args[0].as_node()) ||
          node.args[0].as_node() == gemm_) {
        return fail("indexes the product through the view " + node.name);
      }
      return leaf(node.args[0].as_node(), b);
    }
    std::vector<double> a;
    for (const graph::Argument& arg : node.args) {
      if (arg.is_node()) {
        auto v = eval(arg.as_node(), x, b);
        if (!v) return v;
        a.push_back(*v);
      } else if (arg.kind() == graph::Argument::Kind::integer) {
        a.push_back(static_cast<double>(arg.as_int()));
      } else if (arg.kind() == graph::Argument::Kind::floating) {
        a.push_back(arg.as_float());
      } else {
        return fail(node.name + " has an argument that is not a tensor or a number");
      }
    }
    double alpha = 1.0;
    std::string approximate = "none";
    for (const auto& [k, v] : node.kwargs) {
      if (k == "alpha" && v.kind() == graph::Argument::Kind::integer)
        alpha = static_cast<double>(v.as_int());
      if (k == "alpha" && v.kind() == graph::Argument::Kind::floating) alpha = v.as_float();
      if (k == "approximate") approximate = v.text();
    }
    const auto need = [&](std::size_t k) { return a.size() >= k; };
    if ((base == "add" || base == "sub" || base == "rsub") && need(2)) {
      if (base == "add") return a[0] + alpha * a[1];
      return base == "sub" ? a[0] - alpha * a[1] : a[1] - alpha * a[0];
    }
    if (base == "mul" && need(2)) return a[0] * a[1];
    if (base == "div" && need(2)) return a[0] / a[1];
    if (base == "pow" && need(2)) return std::pow(a[0], a[1]);
    if ((base == "maximum" || base == "clamp_min") && need(2)) return std::max(a[0], a[1]);
    if (!need(1)) return fail(node.name + " has no operand");
    if (base == "neg") return -a[0];
    if (base == "relu") return std::max(a[0], 0.0);
    if (base == "erf") return std::erf(a[0]);
    if (base == "tanh") return std::tanh(a[0]);
    if (base == "exp") return std::exp(a[0]);
    if (base == "sigmoid") return 1.0 / (1.0 + std::exp(-a[0]));
    if (base == "gelu") return approximate == "tanh" ? gelu_tanh(a[0]) : gelu_erf(a[0]);
    if (base == "clone" || base == "alias" || base == "_to_copy" ||
        (base == "convert_element_type" && node.meta && g_.node(gemm_).meta &&
         node.meta->dtype == g_.node(gemm_).meta->dtype)) {
      return a[0];
    }
    return fail("computes " + std::string(ops::op_key(node.target)) + " (" + node.name +
                "), which no cuBLASLt epilogue does");
  }

  std::optional<NodeId> bias;
  std::set<NodeId> reached_;

 private:
  Result<double> leaf(NodeId n, double b) {
    const auto& m = g_.node(n).meta;
    const auto dim = [&](std::size_t d) { return ops::eval_dim(m->sizes[d], hints_); };
    const bool vector = m && !m->is_sym_scalar() &&
                        ((m->rank() == 1 && dim(0) == cols_ &&
                          (m->strides.empty() || ops::eval_dim(m->strides[0], hints_) == 1)) ||
                         (m->rank() == 2 && dim(0) == 1 && dim(1) == cols_));
    if (!vector || (bias && *bias != n)) {
      return fail("reads " + g_.node(n).name + " besides the product and one bias");
    }
    bias = n;
    return b;
  }
  static Error fail(const std::string& why) { return make_error(why); }

  const graph::Graph& g_;
  NodeId gemm_;
  std::set<NodeId> members_;
  std::int64_t cols_;
  const ops::SymbolHints& hints_;
};

}  // namespace

Result<EpilogueMatch> match_gemm_epilogue(const graph::Graph& g, NodeId gemm_node,
                                          const GemmSpec& gemm, const std::vector<NodeId>& nodes,
                                          const std::vector<NodeId>& writes,
                                          const ops::SymbolHints& hints) {
  if (gemm.a.batch != 1 || gemm.b.batch != 1 || gemm.bias_matrix) {
    return make_error("only an unbatched GEMM without a matrix addend takes an epilogue");
  }
  if (writes.size() != 1) {
    return make_error("the kernel writes " + std::to_string(writes.size()) +
                      " buffers; an epilogue writes one");
  }
  const NodeId out = writes.front();
  const auto& om = g.node(out).meta;
  if (!om || om->dtype != gemm.dtype || om->rank() != 2 || om->strides.size() != 2 ||
      ops::eval_dim(om->sizes[0], hints) != gemm.out.rows ||
      ops::eval_dim(om->sizes[1], hints) != gemm.out.cols ||
      ops::eval_dim(om->strides[0], hints) != gemm.out.cols ||
      ops::eval_dim(om->strides[1], hints) != 1) {
    return make_error(g.node(out).name + " is not a contiguous " + gemm.dtype +
                      " matrix of the product's shape");
  }
  std::set<NodeId> members(nodes.begin(), nodes.end());
  members.erase(gemm_node);
  ScalarEpilogue f(g, gemm_node, members, gemm.out.cols, hints);
  // Sample points across relu's kink and GELU's curved range, with and without a bias.
  struct Sample {
    double x, b, y;
  };
  std::vector<Sample> samples;
  for (int i = -24; i <= 24; ++i) {
    for (const double b : {0.0, 0.375, -1.25}) {
      const double x = 0.25 * i + 0.0625;
      auto y = f.eval(out, x, b);
      if (!y) return y.error();
      samples.push_back({x, b, *y});
    }
  }
  const auto users = g.users();
  for (const NodeId u : users[gemm_node]) {
    if (!f.reached_.count(u)) {
      return make_error("the product is also read by " + g.node(u).name);
    }
  }
  if (f.bias && gemm.bias_vector) return make_error("the kernel adds a second bias");
  const bool has_bias = f.bias || gemm.bias_vector;
  const auto agrees = [&](double (*act)(double)) {
    return std::all_of(samples.begin(), samples.end(), [&](const Sample& s) {
      const double want = act(s.x + (f.bias ? s.b : 0.0));
      return std::abs(s.y - want) <= 1e-9 + 1e-6 * std::abs(want);
    });
  };
  EpilogueMatch m;
  m.fused = gemm;
  m.fused.out.node = out;
  if (f.bias) m.fused.bias_vector = *f.bias;
  m.out = out;
  const std::string bias_text = has_bias ? "bias + " : "";
  if (agrees([](double v) { return v; })) {
    if (!f.bias) return make_error("the kernel only copies the product");
    m.fused.epilogue = GemmEpilogue::none;
    m.what = "bias";
  } else if (agrees([](double v) { return std::max(v, 0.0); })) {
    m.fused.epilogue = GemmEpilogue::relu;
    m.what = bias_text + "relu";
  } else if (agrees(gelu_tanh)) {
    m.fused.epilogue = GemmEpilogue::gelu_tanh;
    m.what = bias_text + "gelu (tanh)";
  } else if (agrees(gelu_erf)) {
    return make_error(
        "GELU in its erf form; cuBLASLt's GELU is the tanh approximation (up to 4.7e-4 apart)");
  } else {
    return make_error("the kernel is not act(product" + std::string(has_bias ? " + bias" : "") +
                      ") for act in none, relu, gelu (tanh)");
  }
  return m;
}

}  // namespace fxscope::gpu
