// Pointwise ATen ops as C expressions. Every value is computed in its node's compute type
// (float for f32/f16/bf16, as Inductor does); operands are cast to it, comparisons compare in the
// operands' common type.

#include <functional>
#include <map>

#include "arg_helpers.h"
#include "fxscope/ops/op_registry.h"
#include "rng_value.h"
#include "value_emitter.h"

namespace fxscope::codegen {
namespace {

using graph::Argument;
using graph::NodeId;
using Operand = ValueEmitter::Operand;

std::string cast(const Operand& v, const std::string& type) {
  return v.type == type ? v.expr : "(" + type + ")(" + v.expr + ")";
}

bool is_float_type(const std::string& t) {
  return t == "float" || t == "double";
}

// The type two operands are compared or combined in (PyTorch's promotion, on C types).
std::string common_type(const Operand& a, const Operand& b) {
  if (a.type == "double" || b.type == "double") return "double";
  if (is_float_type(a.type) || is_float_type(b.type)) return "float";
  if (a.type == "long long" || b.type == "long long") return "long long";
  if (a.type == "int" || b.type == "int") return "int";
  return "bool";
}

std::string unary_float(const std::string& base, const std::string& x) {
  static const std::map<std::string, std::string, std::less<>> kFunctions = {
      {"exp", "expf"},      {"exp2", "exp2f"},   {"expm1", "expm1f"}, {"log", "logf"},
      {"log2", "log2f"},    {"log10", "log10f"}, {"log1p", "log1pf"}, {"sqrt", "sqrtf"},
      {"rsqrt", "rsqrtf"},  {"sin", "sinf"},     {"cos", "cosf"},     {"tan", "tanf"},
      {"tanh", "tanhf"},    {"erf", "erff"},     {"erfc", "erfcf"},   {"floor", "floorf"},
      {"ceil", "ceilf"},    {"round", "rintf"},  {"trunc", "truncf"}, {"asin", "asinf"},
      {"acos", "acosf"},    {"atan", "atanf"},   {"sinh", "sinhf"},   {"cosh", "coshf"},
      {"asinh", "asinhf"},  {"acosh", "acoshf"}, {"atanh", "atanhf"}, {"sigmoid", "fx_sigmoid"},
      {"lgamma", "lgammaf"}};
  const auto it = kFunctions.find(base);
  return it == kFunctions.end() ? std::string() : it->second + "(" + x + ")";
}

}  // namespace

Result<ValueEmitter::Operand> ValueEmitter::operand(NodeId consumer, const Argument& arg,
                                                    const Index& idx) {
  switch (arg.kind()) {
    case Argument::Kind::integer:
      return Operand{"(" + std::to_string(arg.as_int()) + "LL)", "long long"};
    case Argument::Kind::floating:
      return Operand{float_literal(arg.as_float()), "float"};
    case Argument::Kind::boolean:
      return Operand{arg.as_bool() ? "true" : "false", "bool"};
    case Argument::Kind::node:
      break;
    default:
      return fail(consumer, "has an argument fxscope cannot compute with: " + arg.to_string());
  }
  const NodeId input = arg.as_node();
  const graph::Node& in = g_.node(input);
  if (!in.meta) return fail(consumer, "reads " + in.name + ", which has no tensor annotation");
  if (in.meta->is_sym_scalar()) {
    auto v = value(input, idx);
    if (!v) return v.error();
    return Operand{*v, "long long"};
  }
  auto mapped = operand_index(consumer, input, idx);
  if (!mapped) return mapped.error();
  auto v = value(input, *mapped);
  if (!v) return v.error();
  return Operand{*v, compute_type(in.meta->dtype)};
}

Result<Index> ValueEmitter::operand_index(NodeId consumer, NodeId input, const Index& idx) {
  const graph::Node& in = g_.node(input);
  const auto out_shape = shape_of(g_.node(consumer), hints_);
  const auto in_shape = shape_of(in, hints_);
  if (!out_shape || !in_shape || in_shape->sizes.size() > out_shape->sizes.size()) {
    return fail(consumer, "broadcasts " + in.name + " to a shape of lower rank");
  }
  // Broadcasting aligns trailing dimensions; a size-1 input dimension reads index 0.
  Index mapped;
  const std::size_t off = out_shape->sizes.size() - in_shape->sizes.size();
  for (std::size_t d = 0; d < in_shape->sizes.size(); ++d) {
    const bool broadcast = in_shape->sizes[d] == 1 && out_shape->sizes[d + off] != 1;
    mapped.dims.push_back(broadcast ? "0" : idx.dims[d + off]);
  }
  if (in_shape->sizes == out_shape->sizes) mapped.linear = idx.linear;
  return mapped;
}

std::optional<NodeId> ValueEmitter::fused_sqrt_operand(const graph::Node& reciprocal) const {
  if (reciprocal.args.empty() || reciprocal.args[0].kind() != Argument::Kind::node) {
    return std::nullopt;
  }
  const NodeId root = reciprocal.args[0].as_node();
  const graph::Node& r = g_.node(root);
  if (!members_.count(root) || bound_.count(root) || !r.meta || r.args.empty() ||
      ops::op_base_name(r.target) != "sqrt" || compute_type(r.meta->dtype) != "float" ||
      r.args[0].kind() != Argument::Kind::node) {
    return std::nullopt;
  }
  return root;
}

Result<std::string> ValueEmitter::pointwise_value(NodeId node, const Index& idx) {
  const graph::Node& n = g_.node(node);
  if (!n.meta) return fail(node, "has no tensor annotation");
  const std::string t = compute_type(n.meta->dtype);
  if (is_rng_value_op(n)) {
    auto rng = rng_expression(*this, node, idx);
    if (!rng) return fail(node, rng.error().message);
    return declare(t, n.name, *rng);
  }
  const std::string base(ops::op_base_name(n.target));
  // reciprocal(sqrt(x)) of the group (a batch norm's scale) as one hardware reciprocal square
  // root (rsqrtf, within 2 ulp): the IEEE square root and division it replaces took a third of a
  // 7x7 double batch norm's time on the H200 (bench_memory_kernels resnet: 2.85 -> 2.05 us).
  // Not __frsqrt_rn, though it rounds correctly: its inline assembly is not shared between the
  // nine window reads of the stem's max-pool, which then ran 3.0 -> 4.0 us in the model.
  // The square root itself is then not computed unless something else reads it.
  if (base == "reciprocal" && t == "float") {
    if (const auto root = fused_sqrt_operand(n)) {
      auto at = operand_index(node, *root, idx);
      if (!at) return at.error();
      auto x = operand(*root, g_.node(*root).args[0], *at);
      if (!x) return x.error();
      return declare(t, n.name, "rsqrtf(" + cast(*x, "float") + ")");
    }
  }
  std::vector<Operand> a;
  for (const Argument& arg : n.args) {
    if (arg.kind() == Argument::Kind::list || arg.kind() == Argument::Kind::symbol ||
        arg.kind() == Argument::Kind::none || arg.kind() == Argument::Kind::string) {
      a.push_back({});  // a size list, a dtype or a mode: read by the op itself
      continue;
    }
    auto v = operand(node, arg, idx);
    if (!v) return v.error();
    a.push_back(std::move(*v));
  }
  const auto need = [&](std::size_t count) { return a.size() >= count; };
  const auto scalar_kw = [&](std::string_view name, const std::string& fallback) {
    const Argument* k = kwarg(n, name);
    if (!k) return fallback;
    auto v = operand(node, *k, idx);
    return v ? cast(*v, t) : fallback;
  };
  const bool makes_values = base == "full" || base == "scalar_tensor" || base == "iota" ||
                            base == "arange" || base.starts_with("zeros") ||
                            base.starts_with("ones") || base.starts_with("empty");
  if (!makes_values && (a.empty() || a[0].expr.empty()) && base != "copy") {
    return fail(node, "has no tensor operand");
  }
  std::string e;
  if (base == "add" || base == "sub" || base == "rsub") {
    if (!need(2)) return fail(node, "needs two operands");
    const std::string alpha = scalar_kw("alpha", "");
    std::string lhs = cast(a[0], t);
    std::string rhs = cast(a[1], t);
    if (base == "rsub") std::swap(lhs, rhs);
    if (!alpha.empty()) rhs = alpha + " * " + rhs;
    e = lhs + (base == "add" ? " + " : " - ") + rhs;
  } else if (base == "mul") {
    if (!need(2)) return fail(node, "needs two operands");
    e = t == "bool" ? cast(a[0], t) + " && " + cast(a[1], t)
                    : cast(a[0], t) + " * " + cast(a[1], t);
  } else if (base == "div") {
    if (!need(2)) return fail(node, "needs two operands");
    const Argument* mode = kwarg(n, "rounding_mode");
    const std::string q = is_float_type(t)
                              ? cast(a[0], t) + " / " + cast(a[1], t)
                              : "(float)(" + a[0].expr + ") / (float)(" + a[1].expr + ")";
    if (!mode || mode->is_none()) {
      e = q;
    } else if (mode->text() == "trunc") {
      e = "truncf(" + q + ")";
    } else {
      e = "floorf(" + q + ")";
    }
  } else if (base == "neg") {
    e = "-" + cast(a[0], t);
  } else if (base == "abs") {
    e = "(" + cast(a[0], t) + " < 0 ? -" + cast(a[0], t) + " : " + cast(a[0], t) + ")";
  } else if (base == "reciprocal") {
    e = "1.0f / " + cast(a[0], t);
  } else if (base == "relu") {
    e = "fx_max(" + cast(a[0], t) + ", (" + t + ")0)";
  } else if (base == "silu") {
    e = cast(a[0], t) + " * fx_sigmoid(" + cast(a[0], t) + ")";
  } else if (base == "hardsigmoid" || base == "hardswish") {
    // relu6(x + 3) / 6, times x for hardswish (PyTorch's kernels and Inductor's decomposition).
    const std::string x = cast(a[0], "float");
    const std::string gate = "(fx_min(fx_max(" + x + " + 3.0f, 0.0f), 6.0f) / 6.0f)";
    e = base == "hardsigmoid" ? gate : x + " * " + gate;
  } else if (base == "gelu") {
    const Argument* approx = kwarg(n, "approximate");
    const bool tanh = approx && approx->text() == "tanh";
    e = (tanh ? "fx_gelu_tanh(" : "fx_gelu(") + cast(a[0], t) + ")";
  } else if (base == "sign") {
    const std::string x = cast(a[0], t);
    e = "(" + t + ")((" + x + " > 0) - (" + x + " < 0))";
  } else if (base == "pow") {
    if (!need(2)) return fail(node, "needs two operands");
    const Argument& ex = n.args[1];
    const bool literal =
        ex.kind() == Argument::Kind::integer || ex.kind() == Argument::Kind::floating;
    const double p =
        ex.kind() == Argument::Kind::integer ? static_cast<double>(ex.as_int()) : ex.as_float();
    const std::string x = cast(a[0], t);
    if (literal && p == 2.0) {
      e = x + " * " + x;
    } else if (literal && p == 3.0) {
      e = x + " * " + x + " * " + x;
    } else if (literal && p == 0.5) {
      e = "sqrtf(" + x + ")";
    } else if (literal && p == -1.0) {
      e = "1.0f / " + x;
    } else {
      e = "powf(" + cast(a[0], "float") + ", " + cast(a[1], "float") + ")";
    }
  } else if (base == "clamp" || base == "clamp_min" || base == "clamp_max" || base == "hardtanh") {
    std::string x = cast(a[0], t);
    const bool hard = base == "hardtanh";
    const std::size_t lo_at = 1;
    const std::size_t hi_at = base == "clamp_max" ? 1 : 2;
    const bool has_lo = base != "clamp_max" && (a.size() > lo_at && !a[lo_at].expr.empty());
    const bool has_hi = base != "clamp_min" && (a.size() > hi_at && !a[hi_at].expr.empty());
    if (has_lo || hard)
      x = "fx_max(" + x + ", " + (has_lo ? cast(a[lo_at], t) : "(" + t + ")-1") + ")";
    if (has_hi || hard)
      x = "fx_min(" + x + ", " + (has_hi ? cast(a[hi_at], t) : "(" + t + ")1") + ")";
    e = x;
  } else if (base == "maximum" || base == "minimum") {
    if (!need(2)) return fail(node, "needs two operands");
    e = std::string(base == "maximum" ? "fx_max(" : "fx_min(") + cast(a[0], t) + ", " +
        cast(a[1], t) + ")";
  } else if (base == "where") {
    if (!need(3)) return fail(node, "needs a condition and two values");
    e = cast(a[0], "bool") + " ? " + cast(a[1], t) + " : " + cast(a[2], t);
  } else if (base == "masked_fill") {
    if (!need(3)) return fail(node, "needs a mask and a value");
    e = cast(a[1], "bool") + " ? " + cast(a[2], t) + " : " + cast(a[0], t);
  } else if (base == "eq" || base == "ne" || base == "lt" || base == "le" || base == "gt" ||
             base == "ge") {
    if (!need(2)) return fail(node, "needs two operands");
    static const std::map<std::string, std::string, std::less<>> kOps = {
        {"eq", " == "}, {"ne", " != "}, {"lt", " < "},
        {"le", " <= "}, {"gt", " > "},  {"ge", " >= "}};
    const std::string c = common_type(a[0], a[1]);
    e = cast(a[0], c) + kOps.at(base) + cast(a[1], c);
  } else if (base == "bitwise_and" || base == "bitwise_or" || base == "bitwise_xor" ||
             base == "logical_and" || base == "logical_or" || base == "logical_xor") {
    if (!need(2)) return fail(node, "needs two operands");
    const bool logical = t == "bool" || base.rfind("logical", 0) == 0;
    const std::string ty = logical ? "bool" : t;
    const char* op = base.ends_with("and")  ? (logical ? " && " : " & ")
                     : base.ends_with("or") ? (logical ? " || " : " | ")
                                            : (logical ? " != " : " ^ ");
    e = cast(a[0], ty) + op + cast(a[1], ty);
  } else if (base == "bitwise_not" || base == "logical_not") {
    e = t == "bool" || base == "logical_not" ? "!" + cast(a[0], "bool") : "~" + cast(a[0], t);
  } else if (base == "isnan") {
    e = "(" + a[0].expr + " != " + a[0].expr + ")";
  } else if (base == "isinf") {
    e = "(fabsf(" + cast(a[0], "float") + ") == FX_INF)";
  } else if (base == "leaky_relu") {
    const std::string slope = a.size() > 1 && !a[1].expr.empty() ? cast(a[1], t) : "0.01f";
    e = "(" + cast(a[0], t) + " > 0 ? " + cast(a[0], t) + " : " + slope + " * " + cast(a[0], t) +
        ")";
  } else if (base == "fma") {
    // prims.fma: a * b + c rounded once, as Inductor's libdevice.fma computes it.
    if (!need(3)) return fail(node, "needs three operands");
    e = std::string(t == "double" ? "fma(" : "fmaf(") + cast(a[0], t) + ", " + cast(a[1], t) +
        ", " + cast(a[2], t) + ")";
  } else if (base == "addcmul" || base == "addcdiv") {
    if (!need(3)) return fail(node, "needs three operands");
    const std::string v = scalar_kw("value", "");
    const std::string prod = cast(a[1], t) + (base == "addcmul" ? " * " : " / ") + cast(a[2], t);
    e = cast(a[0], t) + " + " + (v.empty() ? prod : v + " * " + prod);
  } else if (base == "convert_element_type" || base == "_to_copy" || base == "clone" ||
             base == "copy" || base == "copy_" || base == "lift_fresh_copy" ||
             base == "contiguous" || base == "alias_copy" || base == "detach_copy" ||
             base == "_assert_tensor_metadata") {
    const std::size_t src = base == "copy" || base == "copy_" ? 1 : 0;
    if (a.size() <= src || a[src].expr.empty()) return fail(node, "has no tensor to copy");
    e = cast(a[src], t);
  } else if (base == "full" || base == "scalar_tensor" || base == "full_like" || base == "zeros" ||
             base == "ones" || base == "zeros_like" || base == "ones_like") {
    const std::size_t at = base == "scalar_tensor" ? 0 : 1;
    if (base.starts_with("zeros")) {
      e = "(" + t + ")0";
    } else if (base.starts_with("ones")) {
      e = "(" + t + ")1";
    } else if (a.size() > at && !a[at].expr.empty()) {
      e = cast(a[at], t);
    } else {
      return fail(node, "has no fill value");
    }
  } else if (base == "empty" || base == "empty_like" || base == "empty_strided" ||
             base == "empty_permuted") {
    // Uninitialised memory in PyTorch: any value is right, and zero is the reproducible one.
    e = "(" + t + ")0";
  } else if (base == "device_put") {
    e = cast(a[0], t);  // a copy to the device the kernel already runs on
  } else if (base == "fmod" || base == "remainder") {
    if (!need(2)) return fail(node, "needs two operands");
    const std::string x = cast(a[0], t);
    const std::string y = cast(a[1], t);
    if (is_float_type(t)) {
      // fmod keeps the dividend's sign (C's fmodf); remainder the divisor's (Python's %).
      e = base == "fmod" ? std::string(t == "double" ? "fmod(" : "fmodf(") + x + ", " + y + ")"
                         : "fx_remainder(" + x + ", " + y + ")";
    } else {
      e = base == "fmod" ? x + " % " + y : "fx_remainder(" + x + ", " + y + ")";
    }
  } else if (base == "floor_divide") {
    if (!need(2)) return fail(node, "needs two operands");
    e = is_float_type(t) ? "floorf(" + cast(a[0], t) + " / " + cast(a[1], t) + ")"
                         : "fx_floor_div(" + cast(a[0], t) + ", " + cast(a[1], t) + ")";
  } else if ((base == "iota" || base == "arange") && idx.dims.size() != 1) {
    return fail(node, "is a range that is not 1-d");
  } else if (base == "iota") {
    const std::string start = scalar_kw("start", "0");
    const std::string step = scalar_kw("step", "1");
    e = "(" + t + ")(" + start + " + " + step + " * (" + idx.dims[0] + "))";
  } else if (base == "arange") {
    std::string start = "0";
    std::string step = "1";
    if (a.size() >= 2 && !a[1].expr.empty()) start = cast(a[0], t);
    if (a.size() >= 3 && !a[2].expr.empty()) step = cast(a[2], t);
    e = "(" + t + ")(" + start + " + " + step + " * (" + idx.dims[0] + "))";
  } else {
    const std::string f = a.empty() ? std::string() : unary_float(base, cast(a[0], "float"));
    if (f.empty()) return fail(node, "has no CUDA lowering in fxscope's code generator");
    e = t == "float" ? f : "(" + t + ")(" + f + ")";
  }
  return declare(t, n.name, e);
}

}  // namespace fxscope::codegen
