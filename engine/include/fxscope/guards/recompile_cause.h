#pragma once
// Why a recompile happened in a user's terms: which value changed, from what to what, and the
// change to the code that would let the cached compile serve the call.

#include <string>
#include <string_view>

namespace fxscope::guards {

// One failed guard of a recorded recompile, explained.
struct RecompileCause {
  std::string kind;    // "tensor size", "dtype", "python constant", "global state", ...
  std::string source;  // what changed: "x", "n", "self.alpha", "grad_mode"; "" when unnamed
  std::string before;  // the value the cached entry was compiled for; "" when not logged
  std::string after;   // the value of the call that recompiled; "" when not logged
  std::string fix;     // the change that avoids it
  std::string where;   // the user's source line ("model.py:12"); "" when not logged
};

// Explains GUARD, a failed-guard reason as Dynamo writes it (normalised: one line, no comment).
// `after` is left empty for guards that do not name the new value.
RecompileCause explain_recompile(std::string_view guard);

// The value a guard listing (the new compile's dynamo_cpp_guards_str) requires of LHS in its
// `LHS == VALUE` guard; "" when it has none.
std::string guarded_value(std::string_view guards_text, std::string_view lhs);

}  // namespace fxscope::guards
