// transformers' grouped_mm_fallback as generated code, taken from the Mixtral corpus log's plans
// (eager's AOT graph and the default mode's post-grad graph), run on the CPU through the host
// shim and checked element by element against the op's definition computed here: rows
// [offs[g-1], offs[g]) times weight[g], read through the weight's transposed strides, and rows
// past the last offset zero.

#include <unistd.h>

#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "fxscope/codegen/kernel_codegen.h"
#include "fxscope/fusion/unit_fusion.h"
#include "fxscope/ops/op_registry.h"
#include "fxscope/trace/trace_log.h"
#include "host_shim.h"
#include "samples.h"

using namespace fxscope;

namespace grouped_mm_on_host {

std::filesystem::path grouped_mm_dir() {
  return test::host_dir("fxscope-grouped-mm-on-host-");
}

}  // namespace grouped_mm_on_host

using namespace grouped_mm_on_host;

TEST_CASE("grouped_mm_fallback of the Mixtral log runs as a generated kernel", "[codegen]") {
  auto log = trace::read_trace(test::sample("corpus/hf_mixtral_bf16"));
  REQUIRE(log);
  for (const fusion::Mode mode : {fusion::Mode::eager, fusion::Mode::default_mode}) {
    INFO(fusion::to_string(mode));
    const trace::CompileUnit* unit = nullptr;
    for (const auto& u : log->units()) {
      if (u.aot_graph() != nullptr) {
        unit = &u;
        break;
      }
    }
    REQUIRE(unit);
    const auto fused = fusion::fuse_unit(*unit, mode);
    REQUIRE(!fused.empty());
    const graph::Graph& g = fused.front().post_grad;
    const fusion::KernelGroup* group = nullptr;
    for (const auto& candidate : fused.front().ours.groups) {
      if (candidate.nodes.size() == 1 &&
          ops::op_base_name(g.node(candidate.nodes[0]).target) == "grouped_mm_fallback") {
        group = &candidate;
        break;
      }
    }
    REQUIRE(group);
    REQUIRE(codegen::lone_generated_extern(g, *group));
    REQUIRE(codegen::has_generated_kernel(g, *group));
    const graph::NodeId node = group->nodes[0];
    const graph::Node& op = g.node(node);
    const auto k = codegen::generate(g, *group, {});
    INFO((k ? k->source : k.error().message));
    REQUIRE(k);
    CHECK(k->summary ==
          "grouped mm: 512 rows of 256 over 4 groups' 256 x 1024 weights, a thread per output "
          "element");
    const graph::NodeId x = op.args[0].as_node();
    const graph::NodeId w = op.args[1].as_node();
    const graph::NodeId offs =
        op.args.size() > 2 ? op.args[2].as_node() : op.kwargs.front().second.as_node();
    const auto& ws = g.node(w).meta->strides;
    REQUIRE(ws.size() == 3);
    const std::int64_t s0 = ws[0].value, s1 = ws[1].value, s2 = ws[2].value;
    constexpr std::int64_t M = 512, K = 256, N = 1024, G = 4;
    std::vector<float> xs(M * K), weights(G * K * N), out(M * N, -99.0f);
    for (std::size_t i = 0; i < xs.size(); ++i) {
      xs[i] = static_cast<float>((i * 37 + 11) % 23) / 23.0f - 0.5f;
    }
    for (std::size_t i = 0; i < weights.size(); ++i) {
      weights[i] = static_cast<float>((i * 53 + 7) % 29) / 29.0f - 0.5f;
    }
    // Group 2 is empty, and rows from 400 on belong to no group (a sentinel expert's).
    const std::vector<int> ends = {100, 250, 250, 400};
    std::vector<void*> args;
    for (const codegen::KernelParam& p : k->params) {
      INFO(g.node(p.node).name);
      if (p.node == node) {
        args.push_back(out.data());
      } else if (p.node == offs) {
        CHECK(p.dtype == "i32");
        args.push_back(const_cast<int*>(ends.data()));
      } else if (p.node == x) {
        args.push_back(xs.data());
      } else {
        // The weight: the transposed view, at its base's address (offset 0).
        CHECK(p.node == w);
        args.push_back(weights.data());
      }
    }
    REQUIRE(args.size() == 4);
    void* lib = test::build_on_host(*k, grouped_mm_dir());
    using Kernel = void (*)(void*, void*, void*, void*);
    const auto run = reinterpret_cast<Kernel>(dlsym(lib, k->entry.c_str()));
    REQUIRE(run);
    run(args[0], args[1], args[2], args[3]);
    dlclose(lib);
    std::size_t wrong = 0;
    for (std::int64_t m = 0; m < M; ++m) {
      int e = -1;
      for (int j = G - 1; j >= 0; --j) {
        if (m < ends[static_cast<std::size_t>(j)]) e = j;
      }
      for (std::int64_t n = 0; n < N; n += 7) {
        double want = 0.0;
        for (std::int64_t kk = 0; e >= 0 && kk < K; ++kk) {
          want += static_cast<double>(xs[static_cast<std::size_t>(m * K + kk)]) *
                  weights[static_cast<std::size_t>(e * s0 + kk * s1 + n * s2)];
        }
        const float got = out[static_cast<std::size_t>(m * N + n)];
        if (std::fabs(got - want) > 1e-4 * (1.0 + std::fabs(want))) ++wrong;
        if (e < 0 && got != 0.0f) ++wrong;
      }
    }
    CHECK(wrong == 0);
  }
}
