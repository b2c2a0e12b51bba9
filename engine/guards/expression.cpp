#include "fxscope/guards/expression.h"

#include <cctype>
#include <utility>

#include "fxscope/core/text.h"

namespace fxscope::guards {

namespace {

struct Token {
  enum class Kind { kNumber, kString, kName, kOp, kEnd };
  Kind kind = Kind::kEnd;
  std::string_view text;
};

// Splits guard text into tokens; an Error names the first character it cannot read.
Result<std::vector<Token>> tokenize(std::string_view s) {
  static constexpr std::string_view kOps[] = {"**", "//", "<=", ">=", "==", "!=", "(",
                                              ")",  "[",  "]",  ",",  ".",  "+",  "-",
                                              "*",  "/",  "%",  "<",  ">"};
  std::vector<Token> tokens;
  std::size_t i = 0;
  while (i < s.size()) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    if (std::isspace(c)) {
      ++i;
    } else if (std::isdigit(c) || (c == '.' && i + 1 < s.size() && std::isdigit(s[i + 1]))) {
      std::size_t j = i;
      while (j < s.size() &&
             (std::isalnum(static_cast<unsigned char>(s[j])) || s[j] == '.' ||
              ((s[j] == '-' || s[j] == '+') && (s[j - 1] == 'e' || s[j - 1] == 'E')))) {
        ++j;
      }
      tokens.push_back({Token::Kind::kNumber, s.substr(i, j - i)});
      i = j;
    } else if (c == '\'' || c == '"') {
      std::size_t j = i + 1;
      while (j < s.size() && s[j] != s[i]) j += s[j] == '\\' ? std::size_t{2} : std::size_t{1};
      if (j >= s.size()) return make_error("unterminated string at column " + std::to_string(i));
      tokens.push_back({Token::Kind::kString, s.substr(i, j + 1 - i)});
      i = j + 1;
    } else if (std::isalpha(c) || c == '_') {
      std::size_t j = i;
      while (j < s.size() && (std::isalnum(static_cast<unsigned char>(s[j])) || s[j] == '_')) ++j;
      tokens.push_back({Token::Kind::kName, s.substr(i, j - i)});
      i = j;
    } else {
      bool matched = false;
      for (const auto op : kOps) {
        if (s.substr(i, op.size()) == op) {
          tokens.push_back({Token::Kind::kOp, op});
          i += op.size();
          matched = true;
          break;
        }
      }
      if (!matched) {
        return make_error("unexpected '" + std::string(1, s[i]) + "' at column " +
                          std::to_string(i));
      }
    }
  }
  tokens.push_back({Token::Kind::kEnd, {}});
  return tokens;
}

// Recursive descent over Python's precedence: or, and, not, comparisons, + -, * / // %, unary
// minus, **, then postfix calls, attributes and subscripts.
class Parser {
 public:
  explicit Parser(std::vector<Token> tokens) : tokens_(std::move(tokens)) {}

  Result<Expression> run(std::string_view text) {
    const int root = parse_or();
    if (error_.empty() && peek().kind != Token::Kind::kEnd) {
      error_ = "unexpected '" + std::string(peek().text) + "'";
    }
    if (!error_.empty()) return make_error(error_);
    expr_.root = root;
    expr_.text = std::string(text);
    return std::move(expr_);
  }

 private:
  using Op = ExprNode::Op;

  const Token& peek(std::size_t ahead = 0) const {
    return tokens_[std::min(pos_ + ahead, tokens_.size() - 1)];
  }
  bool accept(std::string_view text) {
    const auto& t = peek();
    if ((t.kind == Token::Kind::kOp || t.kind == Token::Kind::kName) && t.text == text) {
      ++pos_;
      return true;
    }
    return false;
  }
  void expect(std::string_view text) {
    if (!accept(text) && error_.empty()) {
      error_ = "expected '" + std::string(text) + "', found '" + std::string(peek().text) + "'";
    }
  }
  int add(ExprNode node) {
    expr_.nodes.push_back(std::move(node));
    return static_cast<int>(expr_.nodes.size() - 1);
  }
  int binary(Op op, int lhs, int rhs) { return add({op, {}, {}, {lhs, rhs}}); }

  // Bounds the recursion so that garbage such as "((((..." cannot exhaust the stack.
  struct Depth {
    explicit Depth(int& d) : depth(++d) {}
    ~Depth() { --depth; }
    Depth(const Depth&) = delete;
    Depth& operator=(const Depth&) = delete;
    int& depth;
  };
  bool too_deep() {
    if (depth_ <= kMaxDepth) return false;
    if (error_.empty()) error_ = "guard nested too deeply";
    return true;
  }

  int parse_or() {
    const Depth depth(depth_);
    if (too_deep()) return -1;
    int lhs = parse_and();
    while (error_.empty() && accept("or")) lhs = binary(Op::kOr, lhs, parse_and());
    return lhs;
  }
  int parse_and() {
    int lhs = parse_not();
    while (error_.empty() && accept("and")) lhs = binary(Op::kAnd, lhs, parse_not());
    return lhs;
  }
  int parse_not() {
    const Depth depth(depth_);
    if (too_deep()) return -1;
    if (accept("not")) return add({Op::kNot, {}, {}, {parse_not()}});
    return parse_comparison();
  }
  std::optional<Op> comparison_op() {
    static constexpr std::pair<std::string_view, Op> kCompare[] = {{"<=", Op::kLe}, {">=", Op::kGe},
                                                                   {"==", Op::kEq}, {"!=", Op::kNe},
                                                                   {"<", Op::kLt},  {">", Op::kGt}};
    for (const auto& [text, op] : kCompare) {
      if (accept(text)) return op;
    }
    if (accept("is")) return accept("not") ? Op::kIsNot : Op::kIs;
    return std::nullopt;
  }
  // A chain a < b <= c means (a < b) and (b <= c), as in Python.
  int parse_comparison() {
    int lhs = parse_arith();
    int result = -1;
    while (error_.empty()) {
      const auto op = comparison_op();
      if (!op) break;
      const int rhs = parse_arith();
      const int cmp = binary(*op, lhs, rhs);
      result = result < 0 ? cmp : binary(Op::kAnd, result, cmp);
      lhs = rhs;
    }
    return result < 0 ? lhs : result;
  }
  int parse_arith() {
    int lhs = parse_term();
    while (error_.empty()) {
      if (accept("+")) {
        lhs = binary(Op::kAdd, lhs, parse_term());
      } else if (accept("-")) {
        lhs = binary(Op::kSub, lhs, parse_term());
      } else {
        break;
      }
    }
    return lhs;
  }
  int parse_term() {
    int lhs = parse_unary();
    while (error_.empty()) {
      if (accept("*")) {
        lhs = binary(Op::kMul, lhs, parse_unary());
      } else if (accept("//")) {
        lhs = binary(Op::kFloorDiv, lhs, parse_unary());
      } else if (accept("/")) {
        lhs = binary(Op::kDiv, lhs, parse_unary());
      } else if (accept("%")) {
        lhs = binary(Op::kMod, lhs, parse_unary());
      } else {
        break;
      }
    }
    return lhs;
  }
  int parse_unary() {
    const Depth depth(depth_);
    if (too_deep()) return -1;
    if (accept("-")) return add({Op::kNeg, {}, {}, {parse_unary()}});
    if (accept("+")) return parse_unary();
    const int base = parse_postfix();
    if (error_.empty() && accept("**")) return binary(Op::kPow, base, parse_unary());
    return base;
  }
  std::vector<int> parse_args() {
    std::vector<int> args;
    if (accept(")")) return args;
    do {
      args.push_back(parse_or());
    } while (error_.empty() && accept(","));
    expect(")");
    return args;
  }
  int parse_postfix();
  int parse_primary();

  std::vector<Token> tokens_;
  std::size_t pos_ = 0;
  Expression expr_;
  std::string error_;
  int depth_ = 0;
  static constexpr int kMaxDepth = 200;
};

int Parser::parse_primary() {
  const Token t = peek();
  if (t.kind == Token::Kind::kNumber || t.kind == Token::Kind::kString) {
    ++pos_;
    auto value = parse_python_value(t.text);
    if (!value) {
      error_ = "unreadable literal " + std::string(t.text);
      return -1;
    }
    return add({Op::kLiteral, std::move(*value), {}, {}});
  }
  if (t.kind == Token::Kind::kName) {
    ++pos_;
    if (t.text == "None" || t.text == "True" || t.text == "False") {
      return add({Op::kLiteral, *parse_python_value(t.text), {}, {}});
    }
    return add({Op::kName, {}, std::string(t.text), {}});
  }
  if (accept("(")) {
    const int inner = parse_or();
    if (error_.empty() && accept(",")) {
      // A tuple of literals, as guards compare with (1, 1).
      std::vector<int> items{inner};
      while (error_.empty() && !accept(")")) {
        items.push_back(parse_or());
        if (!accept(",")) {
          expect(")");
          break;
        }
      }
      if (!error_.empty()) return -1;
      Value tuple;
      tuple.kind = Value::Kind::kTuple;
      for (const int item : items) {
        if (expr_.nodes[static_cast<std::size_t>(item)].op != Op::kLiteral) {
          error_ = "a tuple of non-constants";
          return -1;
        }
        tuple.items.push_back(expr_.nodes[static_cast<std::size_t>(item)].value);
      }
      return add({Op::kLiteral, std::move(tuple), {}, {}});
    }
    expect(")");
    return inner;
  }
  error_ = t.kind == Token::Kind::kEnd ? "unexpected end of guard"
                                       : "unexpected '" + std::string(t.text) + "'";
  return -1;
}

int Parser::parse_postfix() {
  int node = parse_primary();
  while (error_.empty()) {
    auto& current = expr_.nodes[static_cast<std::size_t>(node)];
    // L and G start a source; it grows as long as the chain only subscripts, reads attributes
    // and calls size()/stride()/storage_offset(), so that it prints as Dynamo names sources.
    const bool is_source =
        current.op == Op::kSource ||
        (current.op == Op::kName && (current.name == "L" || current.name == "G"));
    if (accept("[")) {
      const int index = parse_or();
      expect("]");
      if (!error_.empty()) break;
      const auto& idx = expr_.nodes[static_cast<std::size_t>(index)];
      auto& base = expr_.nodes[static_cast<std::size_t>(node)];
      if ((base.op == Op::kSource || base.op == Op::kName) && is_source && idx.op == Op::kLiteral) {
        base.name += "[" + python_repr(idx.value) + "]";
        base.op = Op::kSource;
      } else {
        node = binary(Op::kIndex, node, index);
      }
    } else if (accept(".")) {
      if (peek().kind != Token::Kind::kName) {
        error_ = "expected a name after '.'";
        break;
      }
      const std::string member(peek().text);
      ++pos_;
      const bool call = accept("(");
      auto& base = expr_.nodes[static_cast<std::size_t>(node)];
      if (call && is_source &&
          (member == "size" || member == "stride" || member == "storage_offset")) {
        expect(")");
        base.name += "." + member + "()";
        base.op = Op::kSource;
      } else if (base.op == Op::kName && !is_source) {
        // A dotted module path: math.isnan(...), torch.sym_max(...).
        std::string name = base.name + "." + member;
        if (call) {
          auto args = parse_args();
          expr_.nodes[static_cast<std::size_t>(node)] = {
              Op::kCall, {}, std::move(name), std::move(args)};
        } else {
          base.name = std::move(name);
        }
      } else if (call) {
        std::vector<int> args{node};
        for (const int a : parse_args()) args.push_back(a);
        node = add({Op::kCall, {}, "." + member, std::move(args)});
      } else if (is_source) {
        base.name += "." + member;
        base.op = Op::kSource;
      } else {
        node = add({Op::kAttr, {}, member, {node}});
      }
    } else if (accept("(")) {
      const auto& callee = expr_.nodes[static_cast<std::size_t>(node)];
      if (callee.op != Op::kName) {
        error_ = "call of an expression";
        break;
      }
      std::string name = callee.name;
      auto args = parse_args();
      expr_.nodes[static_cast<std::size_t>(node)] = {
          Op::kCall, {}, std::move(name), std::move(args)};
    } else {
      break;
    }
  }
  return node;
}

}  // namespace

Result<Expression> parse_expression(std::string_view text) {
  auto tokens = tokenize(text);
  if (!tokens) return tokens.error();
  return Parser(std::move(tokens).value()).run(text);
}

}  // namespace fxscope::guards
