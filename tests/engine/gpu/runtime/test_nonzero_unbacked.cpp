// aten.nonzero and the sizes it sets (unbacked u0...), on the sparse MoE corpus log whose
// routing is torch.where over the experts: its kernel runs on the CPU through the host shim and
// stores the nonzero coordinates in row-major order, -1 past the count; a plan whose hints lack
// the counts runs none of the groups they size (named, not sized at a default); a plan at the
// upper bounds (a run's first call) runs every group, and the count read back from that call
// binds the symbol.

#include <unistd.h>

#include <catch2/catch.hpp>

#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "../../codegen/host_shim.h"
#include "fxscope/codegen/kernel_codegen.h"
#include "fxscope/gpu/step_plan.h"
#include "fxscope/gpu/unbacked_sizes.h"
#include "fxscope/ops/op_registry.h"
#include "sample_graph.h"

using namespace fxscope;

namespace nonzero_unbacked {

std::filesystem::path nonzero_dir() {
  return test::host_dir("fxscope-nonzero-on-host-");
}

}  // namespace nonzero_unbacked

using namespace nonzero_unbacked;

TEST_CASE("nonzero of the sparse MoE's routing runs as a generated kernel and binds its count",
          "[gpu][codegen]") {
  for (const fusion::Mode mode : {fusion::Mode::eager, fusion::Mode::default_mode}) {
    INFO(fusion::to_string(mode));
    const auto f = test::sample_fusion("corpus/hand_moe_sparse_unbacked_bf16", mode);
    const graph::Graph& g = f.post_grad;
    const ops::SymbolHints hints;  // the log records no value of u0 ... u3
    const auto counts = gpu::unbound_counts(g, hints);
    REQUIRE(counts.size() == 4);
    CHECK(counts[0].symbol == "u0");
    CHECK(counts[0].upper_bound == 512);  // the [256, 2] routing mask's elements

    // Without the counts, every group they size is named and not run.
    const auto unbound = gpu::plan_steps(g, f.ours, hints, false);
    std::size_t named = 0;
    for (const auto& s : unbound.skipped) {
      named += s.why.find("a size the data sets that no run bound: not run") != std::string::npos;
    }
    CHECK(named >= 4);
    CHECK(unbound.ran_ops < unbound.ops);

    // At the upper bounds (a run's first call) every group has a step.
    const ops::SymbolHints bounds = gpu::with_upper_bounds(g, hints);
    CHECK(bounds.at("u0") == 512);
    const auto planned = gpu::plan_steps(g, f.ours, bounds, false);
    CHECK(planned.skipped.empty());
    CHECK(planned.ran_ops == planned.ops);

    // The first nonzero's kernel, on a mask with a known pattern.
    const fusion::KernelGroup* group = nullptr;
    for (const auto& candidate : f.ours.groups) {
      if (candidate.nodes.size() == 1 && candidate.nodes[0] == counts[0].node) group = &candidate;
    }
    REQUIRE(group);
    REQUIRE(codegen::lone_generated_extern(g, *group));
    codegen::CodegenOptions options;
    options.hints = bounds;
    options.config = codegen::LaunchConfig{1, 1, 1};
    const auto k = codegen::generate(g, *group, options);
    INFO((k ? k->source : k.error().message));
    REQUIRE(k);
    REQUIRE(k->params.size() == 2);
    void* lib = test::build_on_host(*k, nonzero_dir());
    using Kernel = void (*)(const bool*, long long*);
    const auto run = reinterpret_cast<Kernel>(dlsym(lib, k->entry.c_str()));
    REQUIRE(run);
    bool mask[512];
    std::vector<std::pair<long long, long long>> want;
    for (long long i = 0; i < 512; ++i) {
      mask[i] = (i * 7 + 3) % 5 == 0;
      if (mask[i]) want.emplace_back(i / 2, i % 2);
    }
    // [u0, 2] with strides [1, u0]: coordinate d of row r at d * 512 + r.
    std::vector<long long> out(2 * 512, -99);
    run(mask, out.data());
    dlclose(lib);
    REQUIRE(want.size() == 103);
    for (std::size_t r = 0; r < 512; ++r) {
      INFO("row " << r);
      if (r < want.size()) {
        CHECK(out[r] == want[r].first);
        CHECK(out[512 + r] == want[r].second);
      } else {
        CHECK(out[r] == -1);
        CHECK(out[512 + r] == -1);
      }
    }
    // The count a run reads back, which binds u0 for the mode's kernels.
    std::vector<std::byte> bytes(out.size() * sizeof(long long));
    std::memcpy(bytes.data(), out.data(), bytes.size());
    CHECK(gpu::nonzero_rows_found(*g.node(counts[0].node).meta, bytes, bounds) == 103);
    ops::SymbolHints bound = hints;
    for (const auto& c : counts) bound[c.symbol] = c.symbol == "u0" ? 103 : 100;
    const auto exact = gpu::plan_steps(g, f.ours, bound, false);
    CHECK(exact.skipped.empty());
    CHECK(gpu::unbound_counts(g, bound).empty());
  }
}
