// A slice whose end is a value read from a tensor (draft export's `kept = x[:, :n]` with
// n = lengths.max().item()): its length is a size the data sets. A run's first call sizes it at
// the sliced dim, the value read back binds it (clamped to the dim, as PyTorch's slice does),
// and the item's own symbol with it.

#include <catch2/catch.hpp>

#include <cstring>
#include <string>
#include <vector>

#include "fxscope/gpu/step_plan.h"
#include "fxscope/gpu/unbacked_sizes.h"
#include "sample_graph.h"

using namespace fxscope;

namespace slice_by_item {

std::vector<std::byte> i64_bytes(std::int64_t v) {
  std::vector<std::byte> out(sizeof v);
  std::memcpy(out.data(), &v, sizeof v);
  return out;
}

}  // namespace slice_by_item

TEST_CASE("a slice an item ends is sized by the value read back", "[gpu]") {
  for (const fusion::Mode mode : {fusion::Mode::eager, fusion::Mode::default_mode}) {
    INFO(fusion::to_string(mode));
    const auto f =
        test::sample_fusion("export_program/dedicated_log_torch_trace_xpph8do_.log.zst", mode);
    const graph::Graph& g = f.post_grad;
    const auto counts = gpu::unbound_counts(g, f.hints);
    REQUIRE(counts.size() == 1);
    const gpu::UnboundCount& c = counts.front();
    CHECK(c.symbol == "u1");
    CHECK(c.upper_bound == 12);  // x is [4, 12]
    REQUIRE(c.slice);
    CHECK(c.slice->item_symbol == "u0");
    CHECK(g.node(c.node).name == "max_1");  // the tensor the item reads

    // Unbound, the groups the slice sizes are named and not run; at the bound every one runs.
    const auto unbound = gpu::plan_steps(g, f.ours, f.hints, false);
    CHECK(unbound.ran_ops < unbound.ops);
    const ops::SymbolHints bounds = gpu::with_upper_bounds(g, f.hints);
    CHECK(bounds.at("u1") == 12);
    fusion::PlanOptions options;
    options.hints = bounds;
    const auto plan = fusion::plan(g, mode, options);
    const auto planned = gpu::plan_steps(g, plan, bounds, false);
    for (const auto& s : planned.skipped) WARN(s.why);
    CHECK(planned.skipped.empty());
    CHECK(planned.ran_ops == planned.ops);

    // The value read back binds the length (and the item), clamped to the dim.
    const graph::TensorMeta& meta = *g.node(c.node).meta;
    auto found = gpu::counts_found(c, meta, slice_by_item::i64_bytes(9), bounds);
    CHECK(found.at("u1") == 9);
    CHECK(found.at("u0") == 9);
    found = gpu::counts_found(c, meta, slice_by_item::i64_bytes(40), bounds);
    CHECK(found.at("u1") == 12);
    found = gpu::counts_found(c, meta, slice_by_item::i64_bytes(-3), bounds);
    CHECK(found.at("u1") == 9);  // a negative end counts from the dim's end

    // A mode's outputs carry the length it bound as a number (the comparison with eager is
    // sized by the unit's hints, which lack it).
    graph::TensorMeta out = *g.node(*g.find("add")).meta;
    gpu::bind_unbacked_dims(out, found);
    CHECK(out.to_string().find("[4, 9]") != std::string::npos);
  }
}
