#pragma once
// Dynamo's compile id: which frame, which compile of that frame, which restart of that compile.

#include <compare>
#include <optional>
#include <string>
#include <string_view>

namespace fxscope::trace {

// `frame_id/frame_compile_id` plus the restart `attempt`; shown as Dynamo shows it: "0/1",
// "0/1_2" when attempt > 0, "!3/0/1" under compiled autograd. -1 means "absent".
struct CompileId {
  int frame_id = -1;
  int frame_compile_id = -1;
  int attempt = 0;
  int compiled_autograd_id = -1;

  bool valid() const { return frame_id >= 0 || compiled_autograd_id >= 0; }
  // The same compile whatever the attempt: restarts belong to one compile unit.
  bool same_compile(const CompileId& other) const;
  CompileId without_attempt() const;
  std::string str() const;

  // Parses "4/1", "4/1_2", "!3/4/1" or "!3"; nullopt for anything else.
  static std::optional<CompileId> parse(std::string_view s);

  auto operator<=>(const CompileId&) const = default;
};

}  // namespace fxscope::trace
