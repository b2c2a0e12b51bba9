#pragma once
// `fxscope-cli summary DIR --all-ranks`: every rank's log of a distributed job read side by side,
// and where the ranks compiled differently. Ranks that compile differently are the distributed
// bugs that hurt most: one rank recompiles or schedules its collectives in another order and the
// job hangs or slows.

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "fxscope/core/diagnostics.h"
#include "fxscope/core/result.h"
#include "fxscope/report/rank_compile_time.h"

namespace fxscope::report {

// One rank, counted like `summary` counts one log.
struct RankSummary {
  int rank = 0;
  std::string path;
  std::size_t units = 0;
  std::size_t graph_breaks = 0;  // graph-break hits, repeats included
  std::size_t recompiles = 0;
  std::size_t kernels = 0;  // Inductor's kernel launches over every unit
  double compile_s = 0;     // entire_frame_compile_time_s over every unit
  std::string error;        // why the log could not be read; empty when it was
};

// What the ranks disagree on, most harmful first (the order of this enum).
enum class DivergenceKind {
  kCollectives,     // another collective schedule for one graph, or collectives left unwaited
  kExecutionOrder,  // graphs run in another order
  kGraphs,          // one compile id, another graph
  kCompileIds,      // another set of compiles
  kRecompiles,      // other recompiles or reasons
  kTensorMeta,      // other shapes, strides or dtypes of Inductor's ops
  kCache,           // another cache hit / miss pattern
  kRuntime,         // Inductor's runtime estimate of one graph differs by more than 10%
};

std::string_view to_string(DivergenceKind kind);

// A group of ranks as the texts name it, one line however many: "rank 3", "ranks 0, 1, 4",
// "ranks 0-2, 4-6" (runs of three or more), "16 ranks, every 4th from 3 to 63", or past eight
// items "48 ranks: 0-2, 4-6, ..., 60-62".
std::string ranks_text(const std::vector<int>& ranks);

// TEXT with c10d collectives named as a reader knows them: "torch.ops._c10d_functional.
// all_reduce_.default" -> "all_reduce_". Schedules name every op in full, which leaves a line
// of a terminal room for two of them.
std::string short_op_names(std::string_view text);

// One disagreement: the ranks in groups that agree within themselves.
struct Divergence {
  DivergenceKind kind = DivergenceKind::kCompileIds;
  std::string detail;      // one sentence in plain words
  std::string compile_id;  // the compile it is about ("0/1"); empty when about the whole log
  std::vector<std::vector<int>> groups;  // ranks, each group ascending, groups by first rank
  std::vector<std::string> values;       // per group, what its ranks have (a schedule, a hash)
};

struct RankComparison {
  std::string dir;
  std::vector<RankSummary> ranks;  // ascending by rank
  std::vector<Divergence> divergence;
  RanksCompileTime compile_time;  // each rank's compile time and the slowest rank, from its log
  Warnings warnings;  // every rank's reader warnings, and the ranks that could not be read
};

// Called once per rank read, from the reading threads, with the number read so far.
using RankProgress = std::function<void(std::size_t done, std::size_t total)>;

// Reads every rank's log in DIR (dedicated_log_torch_trace_rank_N*.log or folders per rank) on
// the machine's cores and compares them. An error only when DIR holds no ranked logs; a rank
// that cannot be read is a RankSummary with its error and is left out of the comparison.
Result<RankComparison> compare_ranks(const std::string& dir, const RankProgress& progress = {});

}  // namespace fxscope::report
