#pragma once
// One guard of a cache entry, parsed from the `dynamo_cpp_guards_str` tree, and the whole set
// of a compile unit in the order Dynamo checks them.

#include <cstddef>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "fxscope/core/diagnostics.h"
#include "fxscope/guards/expression.h"
#include "fxscope/guards/tensor_match.h"
#include "fxscope/guards/value.h"

namespace fxscope::guards {

// What a guard checks, and so how fxscope evaluates it.
enum class GuardKind {
  kTensorMatch,  // TENSOR_MATCH: dtype, device, requires_grad, static sizes and strides
  kConstant,     // EQUALS_MATCH, TRUE_MATCH, FALSE_MATCH, NONE_MATCH: a Python constant
  kType,         // TYPE_MATCH: checked when the input gives the value, else assumed to hold
  kId,           // ID_MATCH: object identity, which no input can state: assumed to hold
  kLength,       // LENGTH_CHECK, DICT_LENGTH: len(X) == n, or `not X`
  kShape,        // LAMBDA_GUARD and symbolic shape relations: evaluated as expressions
  kAmbient,      // GLOBAL_STATE, DEFAULT_DEVICE, TORCH_FUNCTION_MODE_STACK ...: assumed to hold
  kStructure,    // NO_HASATTR, DICT_CONTAINS, NO_TENSOR_ALIASING ...: assumed to hold
  kOpaque,       // not understood: kept with its text, assumed to hold, named in a warning
};

std::string_view to_string(GuardKind kind);

// One guard: what it checks, on which source, and its text as Dynamo printed it.
struct Guard {
  GuardKind kind = GuardKind::kOpaque;
  std::string tag;       // "TENSOR_MATCH", "LAMBDA_GUARD", or "guard_added_fast"
  std::string source;    // the guarded value ("L['x']"); empty for relations between several
  std::string code;      // the check without its comment: "L['act'] == 'relu'"
  std::string comment;   // the source line Dynamo appended after '#', if any
  std::size_t line = 0;  // 1-based line in the guard tree text; 0 for shape guards
  std::optional<TensorMatch> tensor;  // kTensorMatch
  std::optional<Value> value;         // kConstant: the expected value; kLength: the length
  std::string type_name;              // kType: "str" from type=<class 'str'>
  std::optional<Expression> expr;     // kShape
};

// One GuardManager of the tree (torch/csrc/dynamo/guards.cpp, class GuardManager): its leaf
// guards, which always run first and in a fixed order, and its child managers, which Dynamo
// re-sorts by failure count (see CheckOrder in guard_evaluator.h).
struct GuardNode {
  std::string source;                 // "L['self']._modules['lin']"; "" for the root
  std::vector<std::size_t> guards;    // into GuardSet::guards
  std::vector<std::size_t> children;  // into GuardSet::nodes, in the order the tree prints
  // A plain GuardManager re-sorts its children after failures; a DictGuardManager checks its
  // key/value pairs by index and never does.
  bool sorts_children = true;
};

// The guards of one cache entry in Dynamo's order, with the shape symbols they may name.
struct GuardSet {
  // Every guard, in the order a fresh cache entry checks them: the RootGuardManager's tree
  // depth first, each manager's own guards before its children, then the epilogue.
  std::vector<Guard> guards;
  // The tree itself (nodes[0] is the RootGuardManager); empty when the log had no tree and
  // the guards are the unit's shape guards alone, checked in their order.
  std::vector<GuardNode> nodes;
  // The LAMBDA_GUARDs printed beside the root: RootGuardManager runs them after the whole
  // tree (its _epilogue_lambda_guards, symbolic shape guards among them).
  std::vector<std::size_t> epilogue;
  std::vector<std::pair<std::string, std::string>> symbols;  // s77 -> L['x'].size()[0]
  Warnings warnings;  // every guard that could not be parsed, named by line and text
};

}  // namespace fxscope::guards
