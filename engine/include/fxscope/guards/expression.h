#pragma once
// The expressions of LAMBDA_GUARDs and symbolic shape guards, in Python form
// (`2 <= L['x'].size()[0]`, `L['x'].stride()[1] == L['x'].size()[0]`) or sympy form
// (`Eq(s27, 256)`, `32*s77 <= 2147483647`), parsed once and evaluated against any input.

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "fxscope/core/result.h"
#include "fxscope/guards/value.h"

namespace fxscope::guards {

// One node of an Expression; children are indices into Expression::nodes (a flat tree).
struct ExprNode {
  enum class Op {
    kLiteral,  // value
    kSource,   // name: a guarded value spelled canonically, "L['x'].size()[0]"
    kName,     // name: a bare name (a shape symbol such as s77, or a module such as torch)
    kNeg,
    kNot,
    kAdd,
    kSub,
    kMul,
    kDiv,
    kFloorDiv,
    kMod,
    kPow,
    kLt,
    kLe,
    kGt,
    kGe,
    kEq,
    kNe,
    kIs,
    kIsNot,
    kAnd,
    kOr,
    kCall,  // name: the function ("Eq", "math.isnan"), or ".item" for a method; args: operands
    kAttr,  // name: attribute of a value that is not a source
    kIndex,
  };
  Op op = Op::kLiteral;
  Value value;
  std::string name;
  std::vector<int> args;
};

// A parsed expression: the nodes and the root's index.
struct Expression {
  std::vector<ExprNode> nodes;
  int root = -1;
  std::string text;  // as written
};

// Parses Python / sympy guard text; an Error names what was not understood.
Result<Expression> parse_expression(std::string_view text);

// What an evaluation found: a value, an input nobody gave (the guard is assumed to hold), or
// a construct fxscope cannot evaluate (named in `why`).
struct ExprResult {
  enum class State { kKnown, kUnknown, kUnsupported };
  State state = State::kUnknown;
  Value value;
  std::string why;
};

// Gives the value of a source ("L['x'].size()[0]", "len(L['kwargs'])") or of a shape symbol
// ("s77"); nullopt when the input does not say.
using SourceResolver = std::function<std::optional<Value>(std::string_view source)>;

ExprResult evaluate(const Expression& expr, const SourceResolver& resolve);
ExprResult evaluate_node(const Expression& expr, int node, const SourceResolver& resolve);

// Python truthiness of a known value.
bool truthy(const Value& value);

}  // namespace fxscope::guards
