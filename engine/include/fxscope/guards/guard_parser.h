#pragma once
// Reads the `dynamo_cpp_guards_str` tree (and, when a unit lacks one, its `guard_added_fast`
// shape guards) into a GuardSet. Nothing is dropped: what is not understood stays as an opaque
// guard and is named in a warning.

#include <string_view>

#include "fxscope/guards/guard.h"
#include "fxscope/trace/compile_unit.h"

namespace fxscope::guards {

// Parses the tree text (the payload of dynamo_cpp_guards_str). Within each GuardManager
// Dynamo checks the manager's own guards before its children; the LAMBDA_GUARDs at the top
// level run last, after the whole RootGuardManager.
GuardSet parse_guard_tree(std::string_view text);

// The guards of UNIT's final attempt: its tree; the shape guards of the log only when there is
// no tree, since the tree already holds the ones Dynamo installed, in source form.
GuardSet parse_unit_guards(const trace::CompileUnit& unit);

// Parses one guard line's text after "TAG: " (used by the tree parser, open for tests).
Guard parse_guard(std::string_view tag, std::string_view text, Warnings& warnings,
                  std::string_view where);

}  // namespace fxscope::guards
