#pragma once
// `fxscope-cli guards`: what each compile unit's guards demand, which cache entry of a frame a
// proposed input would reuse (or that the frame recompiles, and why), and the replay of every
// recompile the log recorded. Each report has a text and a JSON form.

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "fxscope/core/result.h"
#include "fxscope/guards/guard.h"
#include "fxscope/guards/guard_evaluator.h"
#include "fxscope/guards/proposed_input.h"
#include "fxscope/guards/recompile_replay.h"
#include "fxscope/trace/compile_id.h"
#include "fxscope/trace/trace_log.h"

namespace fxscope::report {

// The guards of one compile unit, as the listing shows them.
struct UnitGuards {
  trace::CompileId compile_id;
  std::string function;     // the compiled function, "" when the log has no stack
  bool has_guards = false;  // false for a compile that failed or installed nothing
  guards::GuardSet guards;
};

// Every unit's guards, or one unit's.
struct GuardListing {
  std::string path;
  std::vector<UnitGuards> units;
};

// One cache entry checked against the input.
struct EntryVerdict {
  trace::CompileId compile_id;
  guards::GuardEvaluation evaluation;
};

// One frame's cache checked newest entry first, as Dynamo does, up to the entry reused.
struct FrameVerdict {
  int frame_id = -1;
  int compiled_autograd_id = -1;
  std::string function;
  trace::CompileId newest;                 // the newest entry the cache held
  std::vector<EntryVerdict> entries;       // in check order
  std::optional<trace::CompileId> reused;  // nullopt: the frame recompiles
  std::vector<std::string> unguarded;      // input sources no entry of this frame reads
};

// What Dynamo would do with one proposed input.
struct InputReport {
  std::string path;
  guards::ProposedInput input;
  std::vector<FrameVerdict> frames;
};

// One cause of recompiles (a kind of guard on one value) over every recompile it fired in.
struct RankedRecompileCause {
  guards::RecompileCause cause;  // as first met
  std::vector<trace::CompileId> compile_ids;
  std::size_t count() const { return compile_ids.size(); }
};

// A frame compiled as often as Dynamo's recompile limit allows: a later call that misses every
// entry runs the frame eagerly instead of compiling it.
struct RecompileLimitHit {
  int frame_id = -1;
  std::string function;
  int compiles = 0;
  int limit = 0;
};

// The recorded recompiles replayed (see guards::replay_recompiles), their causes ranked by how
// often each fired, and the frames that reached the recompile limit.
struct RecompileReport {
  std::string path;
  std::vector<guards::RecompileCheck> recompiles;
  std::vector<RankedRecompileCause> ranked;  // most recompiles first
  std::vector<RecompileLimitHit> limit_hits;
};

// UNIT's guards, or every unit's; an Error names the log and an id it does not hold.
Result<GuardListing> list_guards(const trace::TraceLog& log,
                                 const std::optional<trace::CompileId>& unit);

// With UNIT: its frame's cache as it stood once UNIT was compiled (UNIT and the older entries),
// which is what the recompile after UNIT met. Without: every frame with its whole cache.
Result<InputReport> evaluate_input(const trace::TraceLog& log,
                                   const std::optional<trace::CompileId>& unit,
                                   const guards::ProposedInput& input);

// Every recorded recompile, or those of UNIT's frame.
Result<RecompileReport> check_recompiles(const trace::TraceLog& log,
                                         const std::optional<trace::CompileId>& unit);

std::string to_text(const GuardListing& listing);
std::string to_text(const InputReport& report);
std::string to_text(const RecompileReport& report);
nlohmann::json to_json(const GuardListing& listing);
nlohmann::json to_json(const InputReport& report);
nlohmann::json to_json(const RecompileReport& report);
// The ranked causes and limit hits alone, for the summary; "" / empty lists without recompiles.
std::string recompile_causes_text(const RecompileReport& report);
nlohmann::json recompile_causes_json(const RecompileReport& report);

}  // namespace fxscope::report
