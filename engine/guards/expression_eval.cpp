// Evaluation of parsed guard expressions: Python semantics for the arithmetic and comparisons
// shape guards use, sympy's relation functions, and an "unknown" that spreads from any input
// the caller does not give (so the guard is assumed to hold) instead of guessing.

#include <cctype>
#include <cmath>
#include <cstdlib>
#include <string>
#include <utility>
#include <vector>

#include "fxscope/guards/expression.h"

namespace fxscope::guards {

namespace {

using Op = ExprNode::Op;
using State = ExprResult::State;

constexpr int kMaxEvalDepth = 400;

ExprResult known(Value v) {
  return {State::kKnown, std::move(v), {}};
}
ExprResult unknown() {
  return {State::kUnknown, {}, {}};
}
ExprResult unsupported(std::string why) {
  return {State::kUnsupported, {}, std::move(why)};
}

bool is_integral(const Value& v) {
  return v.kind == Value::Kind::kInt || v.kind == Value::Kind::kBool;
}
std::int64_t as_int(const Value& v) {
  return v.kind == Value::Kind::kBool ? (v.boolean ? 1 : 0) : v.integer;
}

// Floor division and modulo with Python's signs.
std::int64_t floor_div(std::int64_t a, std::int64_t b) {
  std::int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
  return q;
}

ExprResult arithmetic(Op op, const Value& a, const Value& b) {
  if (!is_number(a) || !is_number(b)) return unsupported("arithmetic on non-numbers");
  if (is_integral(a) && is_integral(b) && op != Op::kDiv) {
    const std::int64_t x = as_int(a), y = as_int(b);
    switch (op) {
      case Op::kAdd:
        return known(Value::of_int(x + y));
      case Op::kSub:
        return known(Value::of_int(x - y));
      case Op::kMul:
        return known(Value::of_int(x * y));
      case Op::kFloorDiv:
        if (y == 0) return unsupported("division by zero");
        return known(Value::of_int(floor_div(x, y)));
      case Op::kMod:
        if (y == 0) return unsupported("division by zero");
        return known(Value::of_int(x - floor_div(x, y) * y));
      case Op::kPow:
        if (y >= 0) return known(Value::of_int(static_cast<std::int64_t>(std::pow(x, y))));
        break;
      default:
        break;
    }
  }
  const double x = as_double(a), y = as_double(b);
  switch (op) {
    case Op::kAdd:
      return known(Value::of_float(x + y));
    case Op::kSub:
      return known(Value::of_float(x - y));
    case Op::kMul:
      return known(Value::of_float(x * y));
    case Op::kDiv:
      if (y == 0) return unsupported("division by zero");
      return known(Value::of_float(x / y));
    case Op::kFloorDiv:
      if (y == 0) return unsupported("division by zero");
      return known(Value::of_float(std::floor(x / y)));
    case Op::kMod:
      if (y == 0) return unsupported("division by zero");
      return known(Value::of_float(x - std::floor(x / y) * y));
    case Op::kPow:
      return known(Value::of_float(std::pow(x, y)));
    default:
      return unsupported("not arithmetic");
  }
}

ExprResult compare(Op op, const Value& a, const Value& b) {
  if (op == Op::kIs || op == Op::kIsNot) {
    // Identity is decidable only for None, True and False, which are singletons.
    const bool singleton = [](const Value& v) {
      return v.kind == Value::Kind::kNone || v.kind == Value::Kind::kBool;
    }(b);
    if (!singleton) return unknown();
    const bool same = python_equals(a, b);
    return known(Value::of_bool(op == Op::kIs ? same : !same));
  }
  if (op == Op::kEq || op == Op::kNe) {
    bool eq = false;
    if (is_number(a) && is_number(b)) {
      eq = as_double(a) == as_double(b);
    } else {
      eq = python_equals(a, b);
    }
    return known(Value::of_bool(op == Op::kEq ? eq : !eq));
  }
  if (is_number(a) && is_number(b)) {
    const double x = as_double(a), y = as_double(b);
    const bool r = op == Op::kLt ? x < y : op == Op::kLe ? x <= y : op == Op::kGt ? x > y : x >= y;
    return known(Value::of_bool(r));
  }
  if (a.kind == Value::Kind::kString && b.kind == Value::Kind::kString) {
    const int c = a.string.compare(b.string);
    const bool r = op == Op::kLt ? c < 0 : op == Op::kLe ? c <= 0 : op == Op::kGt ? c > 0 : c >= 0;
    return known(Value::of_bool(r));
  }
  return unsupported("ordering of non-numbers");
}

class Evaluator {
 public:
  Evaluator(const Expression& expr, const SourceResolver& resolve)
      : expr_(expr), resolve_(resolve) {}

  ExprResult eval(int index, int depth) {
    if (index < 0 || static_cast<std::size_t>(index) >= expr_.nodes.size()) {
      return unsupported("malformed expression");
    }
    if (depth > kMaxEvalDepth) return unsupported("expression nested too deeply");
    const ExprNode& n = expr_.nodes[static_cast<std::size_t>(index)];
    switch (n.op) {
      case Op::kLiteral:
        return known(n.value);
      case Op::kSource:
      case Op::kName: {
        if (auto v = resolve_(n.name)) return known(std::move(*v));
        if (n.op == Op::kName && n.name.find('.') == std::string::npos &&
            !is_shape_symbol(n.name)) {
          return unsupported("unknown name " + n.name);
        }
        return unknown();
      }
      case Op::kNeg: {
        auto v = eval(n.args[0], depth + 1);
        if (v.state != State::kKnown) return v;
        return arithmetic(Op::kSub, Value::of_int(0), v.value);
      }
      case Op::kNot: {
        auto v = eval(n.args[0], depth + 1);
        if (v.state != State::kKnown) return v;
        return known(Value::of_bool(!truthy(v.value)));
      }
      case Op::kAnd:
      case Op::kOr:
        return logical(n, depth);
      case Op::kCall:
        return call(n, depth);
      case Op::kAttr:
      case Op::kIndex:
        return unsupported("attribute or subscript of a computed value");
      default:
        return binary(n, depth);
    }
  }

 private:
  static bool is_shape_symbol(const std::string& name) {
    // Dynamo's symbols: s77, u0, zf2 (float), c3 ...: letters then digits.
    std::size_t i = 0;
    while (i < name.size() && std::isalpha(static_cast<unsigned char>(name[i]))) ++i;
    return i > 0 && i < name.size() && i <= 2 &&
           name.find_first_not_of("0123456789", i) == std::string::npos;
  }

  // `a and b` is false as soon as one side is known false, whatever the other side is.
  ExprResult logical(const ExprNode& n, int depth) {
    const bool is_and = n.op == Op::kAnd;
    auto a = eval(n.args[0], depth + 1);
    if (a.state == State::kKnown && truthy(a.value) != is_and) return a;
    auto b = eval(n.args[1], depth + 1);
    if (b.state == State::kKnown && truthy(b.value) != is_and) return b;
    if (a.state == State::kUnsupported) return a;
    if (b.state == State::kUnsupported) return b;
    if (a.state == State::kUnknown || b.state == State::kUnknown) return unknown();
    return b;
  }

  ExprResult binary(const ExprNode& n, int depth) {
    if (n.args.size() != 2) return unsupported("malformed expression");
    auto a = eval(n.args[0], depth + 1);
    if (a.state == State::kUnsupported) return a;
    auto b = eval(n.args[1], depth + 1);
    if (b.state == State::kUnsupported) return b;
    if (a.state != State::kKnown || b.state != State::kKnown) return unknown();
    switch (n.op) {
      case Op::kLt:
      case Op::kLe:
      case Op::kGt:
      case Op::kGe:
      case Op::kEq:
      case Op::kNe:
      case Op::kIs:
      case Op::kIsNot:
        return compare(n.op, a.value, b.value);
      default:
        return arithmetic(n.op, a.value, b.value);
    }
  }

  ExprResult call(const ExprNode& n, int depth);

  const Expression& expr_;
  const SourceResolver& resolve_;
};

ExprResult Evaluator::call(const ExprNode& n, int depth) {
  const std::string& f = n.name;
  // len(X) of a source is a question for the input, not arithmetic on X.
  if (f == "len" && n.args.size() == 1) {
    const auto& arg = expr_.nodes[static_cast<std::size_t>(n.args[0])];
    if (arg.op == Op::kSource) {
      if (auto v = resolve_("len(" + arg.name + ")")) return known(std::move(*v));
    }
    auto v = eval(n.args[0], depth + 1);
    if (v.state != State::kKnown) return v;
    if (v.value.kind == Value::Kind::kTuple) {
      return known(Value::of_int(static_cast<std::int64_t>(v.value.items.size())));
    }
    if (v.value.kind == Value::Kind::kString) {
      return known(Value::of_int(static_cast<std::int64_t>(v.value.string.size())));
    }
    return unsupported("len() of a " + std::string(python_type_name(v.value)));
  }
  std::vector<ExprResult> args;
  for (const int a : n.args) {
    args.push_back(eval(a, depth + 1));
    if (args.back().state == State::kUnsupported) return args.back();
  }
  for (const auto& a : args) {
    if (a.state != State::kKnown) return unknown();
  }
  auto arg = [&](std::size_t i) -> const Value& { return args[i].value; };
  const std::size_t count = args.size();
  // ___as_tensor(x).item() is x: Dynamo wraps a scalar input to read it as a tensor.
  if ((f == "___as_tensor" || f == ".item" || f == "ToFloat" || f == "float") && count == 1) {
    if (f == "ToFloat" || f == "float") return known(Value::of_float(as_double(arg(0))));
    return known(arg(0));
  }
  static constexpr std::pair<std::string_view, Op> kRelations[] = {{"Eq", Op::kEq},
                                                                   {"Ne", Op::kNe},
                                                                   {"Lt", Op::kLt},
                                                                   {"Le", Op::kLe},
                                                                   {"Gt", Op::kGt},
                                                                   {"Ge", Op::kGe},
                                                                   {"StrictLessThan", Op::kLt},
                                                                   {"StrictGreaterThan", Op::kGt},
                                                                   {"LessThan", Op::kLe},
                                                                   {"GreaterThan", Op::kGe}};
  for (const auto& [name, op] : kRelations) {
    if (f == name && count == 2) return compare(op, arg(0), arg(1));
  }
  if ((f == "Mod" || f == "PythonMod") && count == 2) return arithmetic(Op::kMod, arg(0), arg(1));
  if (f == "FloorDiv" && count == 2) return arithmetic(Op::kFloorDiv, arg(0), arg(1));
  if ((f == "IntTrueDiv" || f == "FloatTrueDiv") && count == 2) {
    return arithmetic(Op::kDiv, arg(0), arg(1));
  }
  if ((f == "Max" || f == "Min" || f == "sym_max" || f == "sym_min" || f == "max" || f == "min") &&
      count >= 1) {
    const bool want_max = f == "Max" || f == "sym_max" || f == "max";
    Value best = arg(0);
    for (std::size_t i = 1; i < count; ++i) {
      if (!is_number(arg(i)) || !is_number(best)) return unsupported(f + " of non-numbers");
      if (want_max ? as_double(arg(i)) > as_double(best) : as_double(arg(i)) < as_double(best)) {
        best = arg(i);
      }
    }
    return known(best);
  }
  if ((f == "Abs" || f == "abs") && count == 1 && is_number(arg(0))) {
    if (is_integral(arg(0))) return known(Value::of_int(std::llabs(as_int(arg(0)))));
    return known(Value::of_float(std::fabs(as_double(arg(0)))));
  }
  if ((f == "math.isnan" || f == "math.isinf" || f == "math.isfinite") && count == 1 &&
      is_number(arg(0))) {
    const double x = as_double(arg(0));
    const bool r = f == "math.isnan"   ? std::isnan(x)
                   : f == "math.isinf" ? std::isinf(x)
                                       : std::isfinite(x);
    return known(Value::of_bool(r));
  }
  if ((f == "math.floor" || f == "floor" || f == "FloorToInt" || f == "math.ceil" ||
       f == "ceiling" || f == "CeilToInt" || f == "TruncToInt" || f == "int") &&
      count == 1 && is_number(arg(0))) {
    const double x = as_double(arg(0));
    const bool up = f == "math.ceil" || f == "ceiling" || f == "CeilToInt";
    const double r = f == "TruncToInt" || f == "int" ? std::trunc(x)
                     : up                            ? std::ceil(x)
                                                     : std::floor(x);
    return known(Value::of_int(static_cast<std::int64_t>(r)));
  }
  return unsupported("unknown function " + f);
}

}  // namespace

bool truthy(const Value& value) {
  switch (value.kind) {
    case Value::Kind::kNone:
      return false;
    case Value::Kind::kBool:
      return value.boolean;
    case Value::Kind::kInt:
      return value.integer != 0;
    case Value::Kind::kFloat:
      return value.real != 0.0;
    case Value::Kind::kString:
      return !value.string.empty();
    case Value::Kind::kTuple:
      return !value.items.empty();
  }
  return false;
}

ExprResult evaluate_node(const Expression& expr, int node, const SourceResolver& resolve) {
  return Evaluator(expr, resolve).eval(node, 0);
}

ExprResult evaluate(const Expression& expr, const SourceResolver& resolve) {
  return evaluate_node(expr, expr.root, resolve);
}

}  // namespace fxscope::guards
