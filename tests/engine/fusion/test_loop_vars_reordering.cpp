// Inductor keeps a GPU node's loops unmerged until fusion (loop_ordering_after_fusion), so each
// dependency names as many loop variables as its node has dims other than 1, and
// Scheduler.shared_data_after_reordering_loop reorders a node's loops towards another's only
// between dependencies of as many variables. A node's own loops are first ordered by the vote
// of its store and loads (ComputedBuffer.simplify_and_reorder). Swin-T's window partition of a
// layer norm's output shows both: in inference the partition is a 6-d clone whose loads outvote
// its store, so it walks the rows the layer norm stored and is its epilogue; in bf16 training
// it is a 3-d cast of the clone viewed as windows, no loop order of which walks those rows, so
// it stays a kernel of its own, as Inductor's output code has it.

#include <catch2/catch.hpp>

#include <algorithm>
#include <set>
#include <string>

#include "corpus_log.h"
#include "fxscope/fusion/unit_fusion.h"
#include "fxscope/trace/trace_log.h"
#include "graph_lookup.h"

using namespace fxscope;

namespace {

struct Formed {
  int checked = 0;
  int exact = 0;
};

// How many of the Inductor kernels of LOG that WANTED picks the plan forms exactly; with
// EVERY, each one is checked to be.
template <typename Wanted>
Formed formed(const trace::TraceLog& log, Wanted wanted, bool every) {
  Formed out;
  for (const auto& unit : log.units()) {
    for (const auto& f : fusion::fuse_unit(unit, fusion::Mode::default_mode)) {
      for (const fusion::KernelGroup& theirs : f.inductor.groups) {
        std::set<std::string> names;
        for (const graph::NodeId id : theirs.nodes) names.insert(f.post_grad.node(id).name);
        if (!wanted(theirs.name, names)) continue;
        ++out.checked;
        const bool exact = test::formed_exactly(f.ours, theirs);
        out.exact += exact ? 1 : 0;
        INFO(theirs.name);
        if (every) CHECK(exact);
      }
    }
  }
  return out;
}

bool holds_prefixed(const std::set<std::string>& names, const std::string& prefix) {
  return std::any_of(names.begin(), names.end(),
                     [&](const std::string& n) { return n.rfind(prefix, 0) == 0; });
}

}  // namespace

TEST_CASE("a layer norm keeps a 3-d window-partition cast apart (Swin-T bf16 training)",
          "[fusion]") {
  const auto log = test::corpus_log("tv_swin_t_train_bf16");
  if (!log) return;
  // Every layer norm's forward reduction (var_mean) is a kernel of its own or holds what
  // Inductor's does, never the window partition after it.
  const Formed reductions = formed(
      *log,
      [](const std::string&, const std::set<std::string>& names) {
        return holds_prefixed(names, "var_mean");
      },
      true);
  CHECK(reductions.checked >= 20);
  // The partitions after the layer norms of each stage's first block (no roll), one kernel
  // each: stages 1 to 3 (stage 4's window is the whole map, a plain permute). Inductor's
  // 1-d copies of a partition (its `_view_5` kernel) are a known gap.
  const Formed partitions = formed(
      *log,
      [](const std::string& name, const std::set<std::string>& names) {
        return name.rfind("triton_poi", 0) == 0 &&
               name.find("clone_native_layer_norm_permute_view") != std::string::npos &&
               !holds_prefixed(names, "var_mean");
      },
      false);
  CHECK(partitions.exact >= 3);
}

TEST_CASE("a 6-d window partition walking a layer norm's rows is its epilogue (Swin-T)",
          "[fusion]") {
  const auto log = test::corpus_log("tv_swin_t");
  if (!log) return;
  // The layer norms whose kernel stores the window partition (clone) of their output.
  const Formed fused = formed(
      *log,
      [](const std::string& name, const std::set<std::string>&) {
        return name.rfind("triton_poi", 0) != 0 &&
               name.find("clone_native_layer_norm_permute") != std::string::npos;
      },
      true);
  CHECK(fused.checked >= 3);
}
