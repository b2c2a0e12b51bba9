#include "fxscope/graph/readable_statement.h"

#include <array>

#include "fxscope/core/text.h"
#include "fxscope/graph/module_path.h"
#include "fxscope/graph/python_text.h"

namespace fxscope::graph {

namespace {

struct OperatorName {
  std::string_view symbol;
  std::string_view target;
};

// FX prints calls to these `operator` functions as Python operators.
constexpr std::array<OperatorName, 19> kBinary = {{
    {"+", "operator.add"},     {"-", "operator.sub"},       {"*", "operator.mul"},
    {"/", "operator.truediv"}, {"//", "operator.floordiv"}, {"%", "operator.mod"},
    {"**", "operator.pow"},    {"@", "operator.matmul"},    {"&", "operator.and_"},
    {"|", "operator.or_"},     {"^", "operator.xor"},       {"<<", "operator.lshift"},
    {">>", "operator.rshift"}, {"==", "operator.eq"},       {"!=", "operator.ne"},
    {"<", "operator.lt"},      {"<=", "operator.le"},       {">", "operator.gt"},
    {">=", "operator.ge"},
}};

constexpr std::array<OperatorName, 13> kInplace = {{
    {"+=", "operator.iadd"},
    {"-=", "operator.isub"},
    {"*=", "operator.imul"},
    {"/=", "operator.itruediv"},
    {"//=", "operator.ifloordiv"},
    {"%=", "operator.imod"},
    {"**=", "operator.ipow"},
    {"@=", "operator.imatmul"},
    {"&=", "operator.iand"},
    {"|=", "operator.ior"},
    {"^=", "operator.ixor"},
    {"<<=", "operator.ilshift"},
    {">>=", "operator.irshift"},
}};

template <std::size_t N>
std::string_view lookup(const std::array<OperatorName, N>& table, std::string_view symbol) {
  for (const OperatorName& op : table) {
    if (op.symbol == symbol) return op.target;
  }
  return {};
}

// `name`, `name: "annotation"` (the left side of an assignment or a parameter) or `name : Type`.
struct Target {
  std::string_view name;
  std::optional<std::string_view> annotation;
};

std::optional<Target> parse_target(std::string_view lhs) {
  lhs = text::trim(lhs);
  const std::size_t colon = lhs.find(':');
  Target t{text::trim(lhs.substr(0, colon)), std::nullopt};
  if (!text::is_identifier(t.name)) return std::nullopt;
  if (colon == std::string_view::npos) return t;
  const std::string_view a = text::trim(lhs.substr(colon + 1));
  // An older Dynamo annotates a parameter with its Python type (`L_x_ : torch.Tensor`): no
  // tensor value is printed.
  if (text::is_dotted_name(a)) return t;
  if (a.size() < 2 || a.front() != '"' || a.back() != '"') return std::nullopt;
  t.annotation = a.substr(1, a.size() - 2);
  return t;
}

// `a = b = None`: the code generator freeing names, which carries no graph information. It
// follows nearly every statement, so it is read without allocating; names hold no bracket or
// quote, so a plain search for " = " splits it as a bracket-aware one would.
bool is_free_statement(std::string_view stmt) {
  std::string_view rest = text::trim(stmt);
  bool named = false;
  for (std::size_t eq = rest.find(" = "); eq != std::string_view::npos; eq = rest.find(" = ")) {
    if (!text::is_identifier(rest.substr(0, eq))) return false;
    named = true;
    rest = rest.substr(eq + 3);
  }
  return named && rest == "None";
}

}  // namespace

ReadableStatementParser::ReadableStatementParser(Graph& graph, std::string_view where)
    : graph_(graph),
      where_(where),
      reader_(ArgumentReader::NodeNames::bare,
              [this](std::string_view name) { return resolve(name); }) {}

std::optional<NodeId> ReadableStatementParser::resolve(std::string_view name) const {
  if (!aliases_.empty()) {
    const auto it = aliases_.find(name);
    if (it != aliases_.end()) return it->second;
  }
  return graph_.find(name);
}

void ReadableStatementParser::warn(std::size_t line_no, std::string message) {
  warnings_.push_back(
      Warning{std::string(where_) + " line " + std::to_string(line_no), std::move(message)});
}

void ReadableStatementParser::take_reader_problems(std::size_t line_no) {
  for (std::string& p : reader_.take_problems()) warn(line_no, std::move(p));
}

Warnings ReadableStatementParser::take_warnings() {
  return std::exchange(warnings_, {});
}

void ReadableStatementParser::add(Node node, std::optional<std::string_view> annotation,
                                  std::size_t line_no) {
  if (annotation) {
    node.meta = parse_tensor_meta(*annotation);
    if (!node.meta) {
      warn(line_no, "unreadable annotation \"" + std::string(*annotation) + "\" of " + node.name);
      node.raw_annotation = std::string(*annotation);
    }
  }
  if (node.op == OpKind::placeholder) {
    node.module_path = module_path_from_parameter(node.name);
  } else if (node.op != OpKind::output) {
    node.source = source_;
    for (const Argument& a : node.args) {
      a.for_each_node([&](NodeId ref) {
        const Node& input = graph_.node(ref);
        if (node.module_path.empty() && input.op == OpKind::placeholder) {
          node.module_path = input.module_path;
        }
      });
    }
  }
  if (graph_.find(node.name)) {
    // Never drop a node: keep the second definition under a name that cannot clash.
    const std::string renamed = node.name + "@" + std::to_string(line_no);
    warn(line_no, "name " + node.name + " is defined twice; the second is kept as " + renamed);
    node.name = renamed;
  }
  if (!aliases_.empty()) aliases_.erase(node.name);
  graph_.add_node(std::move(node));
}

void ReadableStatementParser::parse_parameters(std::string_view params, std::size_t line_no) {
  for (std::string_view p : text::split_top_level(params, ",")) {
    p = text::trim(p);
    if (p.empty() || p == "self") continue;
    const std::size_t eq = python_text::find_top_level(p, "=");  // a default value: ignored
    const auto target = parse_target(p.substr(0, eq));
    if (!target) {
      warn(line_no, "unreadable parameter: " + std::string(p));
      continue;
    }
    if (!target->annotation) {
      deferred_.emplace_back(target->name);
      continue;
    }
    Node n;
    n.name = std::string(target->name);
    n.op = OpKind::placeholder;
    n.target = n.name;
    add(std::move(n), target->annotation, line_no);
  }
}

void ReadableStatementParser::flush_deferred(std::size_t line_no) {
  for (std::string& name : deferred_) {
    Node n;
    n.name = name;
    n.op = OpKind::placeholder;
    n.target = std::move(name);
    add(std::move(n), std::nullopt, line_no);
  }
  deferred_.clear();
}

void ReadableStatementParser::finish() {
  flush_deferred(0);
  if (!returned_) warn(0, "no return statement in forward (truncated input?)");
}

void ReadableStatementParser::parse(std::string_view line, std::size_t line_no) {
  if (returned_) {
    warn(line_no, "statement after return: " + std::string(line.substr(0, 120)));
    return;
  }
  // Most lines hold one statement; only a line with a ';' somewhere needs the bracket-aware split.
  std::vector<std::string_view>& stmts = statements_;
  if (line.find(';') == std::string_view::npos) {
    stmts.assign(1, line);
  } else {
    text::split_top_level(line, ";", stmts);
  }
  const std::string_view first = text::trim(stmts.front());
  std::size_t next = 1;
  if (first == "return" || text::starts_with(first, "return ") ||
      text::starts_with(first, "return(")) {
    flush_deferred(line_no);
    parse_return(text::trim(first.substr(6)), line_no);
  } else if (const std::size_t used = parse_inplace(stmts, line_no); used > 0) {
    next = used;
  } else if (const std::size_t set = parse_setitem(stmts, line_no); set > 0) {
    next = set;
  } else {
    parse_statement(first, line_no);
  }
  for (std::size_t i = next; i < stmts.size(); ++i) {
    // `arg2_1: "f32[8, 10]..."; arg3_1: "f32[10, 20]..."; `: a graph module with no
    // parameters (AOTInductor's) declares all its flattened inputs on one line.
    const std::string_view stmt = text::trim(stmts[i]);
    if (python_text::find_top_level(stmt, " = ") == std::string_view::npos) {
      if (const auto decl = parse_target(stmt); decl && decl->annotation) {
        parse_statement(stmt, line_no);
        continue;
      }
    }
    if (!stmt.empty() && !is_free_statement(stmts[i])) {
      warn(line_no, "unexpected statement: " + std::string(text::trim(stmts[i]).substr(0, 120)));
    }
  }
  take_reader_problems(line_no);
}

void ReadableStatementParser::parse_return(std::string_view rest, std::size_t line_no) {
  constexpr std::string_view kUnflatten = "pytree.tree_unflatten(";
  if (text::starts_with(rest, kUnflatten)) {
    // Joint graphs: `return pytree.tree_unflatten([a, b], self._out_spec)`; the list is the value.
    const std::string_view inner = rest.substr(kUnflatten.size() - 1);
    const std::size_t close = python_text::matching_close(inner, 0);
    const std::string_view args =
        inner.substr(1, close == std::string_view::npos ? inner.size() - 1 : close - 1);
    rest = args.substr(0, python_text::find_top_level(args, ","));
  }
  Node n;
  n.name = "output";
  n.op = OpKind::output;
  n.target = "output";
  n.args.push_back(rest.empty() ? Argument() : reader_.read(rest));
  add(std::move(n), std::nullopt, line_no);
  returned_ = true;
}

std::size_t ReadableStatementParser::parse_inplace(const std::vector<std::string_view>& stmts,
                                                   std::size_t line_no) {
  // FX prints an in-place operator node N as `a += b;  N: "annot" = a`.
  const std::string_view first = text::trim(stmts.front());
  const std::size_t space = first.find(' ');
  if (space == std::string_view::npos || !text::is_identifier(first.substr(0, space))) {
    return 0;
  }
  const std::size_t end = first.find(' ', space + 1);
  if (end == std::string_view::npos) return 0;
  const std::string_view target = lookup(kInplace, first.substr(space + 1, end - space - 1));
  if (target.empty()) return 0;
  const std::string_view lhs = first.substr(0, space);
  Node n;
  n.op = OpKind::call_function;
  n.target = std::string(target);
  n.args.push_back(reader_.read(lhs));
  n.args.push_back(reader_.read(first.substr(end + 1)));
  std::optional<Target> result;
  if (stmts.size() > 1) {
    const std::string_view second = text::trim(stmts[1]);
    const std::size_t eq = python_text::find_top_level(second, " = ");
    if (eq != std::string_view::npos && text::trim(second.substr(eq + 3)) == lhs) {
      result = parse_target(second.substr(0, eq));
    }
  }
  if (!result) {
    warn(line_no, "in-place statement without its `name = " + std::string(lhs) + "` rebinding");
    n.name = std::string(lhs) + "@" + std::to_string(line_no);
    add(std::move(n), std::nullopt, line_no);
    return 1;
  }
  n.name = std::string(result->name);
  add(std::move(n), result->annotation, line_no);
  return 2;
}

std::size_t ReadableStatementParser::parse_setitem(const std::vector<std::string_view>& stmts,
                                                   std::size_t line_no) {
  // FX prints an operator.setitem node N as `a[index] = value;  N = a` (a Dynamo graph that
  // writes into a tensor by index: `inv_perm[perm] = torch.arange(...)`).
  if (stmts.size() < 2) return 0;
  const std::string_view first = text::trim(stmts.front());
  const std::size_t eq = python_text::find_top_level(first, " = ");
  if (eq == std::string_view::npos) return 0;
  const std::string_view lhs = text::trim(first.substr(0, eq));
  const std::size_t open = lhs.find('[');
  if (open == std::string_view::npos || open == 0 || lhs.back() != ']' ||
      !text::is_identifier(lhs.substr(0, open)) ||
      python_text::matching_close(lhs, open) != lhs.size() - 1) {
    return 0;
  }
  const std::string_view tensor = lhs.substr(0, open);
  const std::string_view second = text::trim(stmts[1]);
  const std::size_t eq2 = python_text::find_top_level(second, " = ");
  if (eq2 == std::string_view::npos || text::trim(second.substr(eq2 + 3)) != tensor) return 0;
  const auto result = parse_target(second.substr(0, eq2));
  if (!result) return 0;
  Node n;
  n.op = OpKind::call_function;
  n.target = "operator.setitem";
  n.name = std::string(result->name);
  n.args.push_back(reader_.read(tensor));
  n.args.push_back(reader_.read(lhs.substr(open + 1, lhs.size() - open - 2)));
  n.args.push_back(reader_.read(text::trim(first.substr(eq + 3))));
  add(std::move(n), result->annotation, line_no);
  return 2;
}

void ReadableStatementParser::parse_statement(std::string_view stmt, std::size_t line_no) {
  const std::size_t eq = python_text::find_top_level(stmt, " = ");
  if (eq == std::string_view::npos) {
    // Joint graphs declare their flattened inputs as bare `primals_1: "f32[...]"` lines.
    const auto decl = parse_target(stmt);
    if (decl && decl->annotation) {
      if (!declared_inputs_) deferred_.clear();
      declared_inputs_ = true;
      Node n;
      n.name = std::string(decl->name);
      n.op = OpKind::placeholder;
      n.target = n.name;
      add(std::move(n), decl->annotation, line_no);
      return;
    }
    warn(line_no, "expected `name = value`, found: " + std::string(stmt.substr(0, 120)));
    return;
  }
  flush_deferred(line_no);
  const std::string_view lhs = stmt.substr(0, eq);
  const std::string_view rhs = text::trim(stmt.substr(eq + 3));
  const auto target = parse_target(lhs);
  if (!target) {
    // `primals_1, tangents_1, = fx_pytree.tree_flatten_spec(...)` only unpacks the inputs.
    if (rhs.find("tree_flatten_spec(") == std::string_view::npos) {
      warn(line_no, "unreadable assignment target: " + std::string(text::trim(lhs).substr(0, 120)));
    }
    return;
  }
  if (text::is_identifier(rhs)) {
    if (const auto id = resolve(rhs)) {
      if (*id < graph_.size() && graph_.node(*id).name != target->name) {
        aliases_.insert_or_assign(std::string(target->name), *id);
      }
      return;
    }
  }
  Node n;
  n.name = std::string(target->name);
  if (!parse_right_side(rhs, n)) {
    warn(line_no, "unreadable right side of " + n.name + ": " + std::string(rhs.substr(0, 120)));
    n.op = OpKind::call_function;
    n.raw_text = std::string(rhs);
  }
  add(std::move(n), target->annotation, line_no);
}

bool ReadableStatementParser::parse_right_side(std::string_view rhs, Node& node) {
  if (rhs.empty()) return false;
  if (auto path = attribute_path(rhs)) {
    node.op = OpKind::get_attr;
    node.target = std::move(*path);
    return true;
  }
  if ((rhs.front() == '-' || rhs.front() == '~' || rhs.front() == '+') &&
      text::is_identifier(rhs.substr(1))) {
    node.target = rhs.front() == '-'   ? "operator.neg"
                  : rhs.front() == '~' ? "operator.invert"
                                       : "operator.pos";
    node.args.push_back(reader_.read(rhs.substr(1)));
    return true;
  }
  if (text::starts_with(rhs, "not ")) {
    node.target = "operator.not_";
    node.args.push_back(reader_.read(rhs.substr(4)));
    return true;
  }
  // A binary operator: FX prints `{a} {op} {b}` with no top-level space inside a or b.
  const std::size_t space = python_text::find_top_level(rhs, " ");
  if (space != std::string_view::npos && space > 0) {
    const std::size_t end = rhs.find(' ', space + 1);
    if (end == std::string_view::npos) return false;
    const std::string_view target = lookup(kBinary, rhs.substr(space + 1, end - space - 1));
    if (target.empty()) return false;
    node.target = std::string(target);
    node.args.push_back(reader_.read(rhs.substr(0, space)));
    node.args.push_back(reader_.read(rhs.substr(end + 1)));
    return true;
  }
  const char last = rhs.back();
  const std::size_t open = rhs.find(last == ')' ? '(' : '[');
  if ((last != ')' && last != ']') || open == std::string_view::npos || open == 0 ||
      python_text::matching_close(rhs, open) != rhs.size() - 1 ||
      !text::is_dotted_name(rhs.substr(0, open))) {
    return false;
  }
  const std::string_view head = rhs.substr(0, open);
  const std::string_view inner = rhs.substr(open + 1, rhs.size() - open - 2);
  if (last == ']') {
    if (!resolve(head)) return false;
    node.target = "operator.getitem";
    node.args.push_back(reader_.read(head));
    node.args.push_back(reader_.read(inner));
    return true;
  }
  parse_call(head, inner, node);
  return true;
}

void ReadableStatementParser::parse_call(std::string_view head, std::string_view inner,
                                         Node& node) {
  const std::size_t dot = head.find('.');
  if (auto path = attribute_path(head)) {
    node.op = OpKind::call_module;
    node.target = std::move(*path);
  } else if (dot != std::string_view::npos && resolve(head.substr(0, dot))) {
    node.op = OpKind::call_method;
    node.target = std::string(head.substr(dot + 1));
    node.args.push_back(reader_.read(head.substr(0, dot)));
  } else {
    node.op = OpKind::call_function;
    node.target = std::string(head);
  }
  reader_.read_call(inner, node.args, node.kwargs);
}

}  // namespace fxscope::graph
