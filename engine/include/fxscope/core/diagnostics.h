#pragma once
// Problems that do not stop the work (a broken line, a graph that does not parse): they are
// collected and shown to the user beside the result, never dropped silently.

#include <string>
#include <vector>

namespace fxscope {

struct Warning {
  std::string where;    // "file:line" or "[0/1] post-grad graph line 12"
  std::string message;  // what was expected and what was found
};

using Warnings = std::vector<Warning>;

}  // namespace fxscope
