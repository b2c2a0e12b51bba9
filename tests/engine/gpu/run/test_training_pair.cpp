// A training unit's forward and backward paired as the compiled autograd function runs them, on
// the corpus's training logs: every saved tensor the backward takes is a forward output of the
// same dtype and shape, and the rest are tangents.

#include <catch2/catch.hpp>

#include <filesystem>

#include "fxscope/gpu/random_inputs.h"
#include "fxscope/gpu/training_pair.h"
#include "fxscope/trace/trace_log.h"
#include "samples.h"

using namespace fxscope;

TEST_CASE("corpus: training units pair their backward's inputs with forward outputs",
          "[gpu][corpus]") {
  std::size_t logs = 0;
  for (const auto& d : std::filesystem::directory_iterator(test::sample("corpus"))) {
    const std::string name = d.path().filename().string();
    if (!d.is_directory() || name.find("_train") == std::string::npos) continue;
    auto log = trace::read_trace(d.path().string());
    REQUIRE(log);
    const trace::CompileUnit* unit = nullptr;
    for (const auto& u : log->units()) {
      if (u.find(trace::ArtifactKind::kAotBackwardGraph) != nullptr) {
        unit = &u;
        break;
      }
    }
    INFO(name);
    REQUIRE(unit != nullptr);
    ++logs;
    for (const auto mode : {fusion::Mode::eager, fusion::Mode::default_mode}) {
      INFO(fusion::to_string(mode));
      const auto forward = fusion::fuse_unit(*unit, mode);
      const auto backward = gpu::backward_fusion(*unit, mode);
      REQUIRE(backward);
      const graph::Graph& fwd = forward.front().post_grad;
      const graph::Graph& bwd = backward->post_grad;
      const auto pair = gpu::pair_training_graphs(fwd, bwd, forward.front().hints);
      CHECK(pair.unmatched.empty());
      for (const auto& u : pair.unmatched) WARN(u);
      CHECK(pair.saved > 0);
      CHECK(pair.tangents > 0);
      const auto inputs = gpu::graph_inputs(bwd);
      const auto outputs = gpu::output_nodes(fwd);
      REQUIRE(pair.forward_output_of.size() == inputs.size());
      for (std::size_t i = 0; i < inputs.size(); ++i) {
        if (!pair.forward_output_of[i]) continue;
        const auto& took = bwd.node(inputs[i]).meta;
        const auto& made = fwd.node(outputs[*pair.forward_output_of[i]]).meta;
        REQUIRE((took && made));
        for (std::size_t k = 0; k < took->sizes.size() && k < made->sizes.size(); ++k) {
          CHECK(ops::eval_dim(took->sizes[k], forward.front().hints) ==
                ops::eval_dim(made->sizes[k], forward.front().hints));
        }
        CHECK(took->sizes.size() == made->sizes.size());
      }
    }
  }
  CHECK(logs >= 8);
}

TEST_CASE("an inference unit has no backward", "[gpu]") {
  auto log = trace::read_trace(test::sample("residual_mlp"));
  REQUIRE(log);
  CHECK(!gpu::backward_fusion(log->units().front(), fusion::Mode::eager));
  CHECK(!gpu::backward_fusion(log->units().front(), fusion::Mode::default_mode));
}

TEST_CASE("a DDP-split unit runs one bucket's forward and backward in every mode", "[gpu]") {
  // DDPOptimizer compiles one module per bucket in one compile unit: every forward first, then
  // the backwards in reverse. Eager and the compiled modes run the first bucket's forward and
  // that bucket's backward, so that their outputs compare.
  auto log = trace::read_trace(test::sample("ranks_ddp"));
  REQUIRE(log);
  const trace::CompileUnit* unit = nullptr;
  for (const auto& u : log->units()) {
    if (u.find_all(trace::ArtifactKind::kAotForwardGraph).size() > 1) unit = &u;
  }
  REQUIRE(unit != nullptr);
  const auto eager = fusion::fuse_unit(*unit, fusion::Mode::eager);
  const auto compiled = fusion::fuse_unit(*unit, fusion::Mode::default_mode);
  // Eager plans every bucket's AOT forward and backward, as the compiled modes plan every
  // post-grad graph.
  CHECK(eager.size() == unit->aot_graphs().size());
  CHECK(eager.size() >= compiled.size());
  REQUIRE((!eager.empty() && !compiled.empty()));
  CHECK(gpu::output_nodes(eager.front().post_grad).size() ==
        gpu::output_nodes(compiled.front().post_grad).size());
  const auto eager_backward = gpu::backward_fusion(*unit, fusion::Mode::eager);
  const auto compiled_backward = gpu::backward_fusion(*unit, fusion::Mode::default_mode);
  REQUIRE((eager_backward && compiled_backward));
  for (const auto* f : {&eager.front(), &compiled.front()}) {
    for (const auto* b : {&*eager_backward, &*compiled_backward}) {
      const auto pair = gpu::pair_training_graphs(f->post_grad, b->post_grad, f->hints);
      CHECK(pair.unmatched.empty());
      CHECK(pair.saved > 0);
    }
  }
  CHECK(gpu::output_nodes(eager_backward->post_grad).size() ==
        gpu::output_nodes(compiled_backward->post_grad).size());
}

TEST_CASE("eager plans a training unit's backward beside its forward", "[gpu]") {
  auto log = trace::read_trace(test::sample("residual_mlp_train"));
  REQUIRE(log);
  for (const auto& unit : log->units()) {
    if (unit.find(trace::ArtifactKind::kAotBackwardGraph) == nullptr) continue;
    const auto eager = fusion::fuse_unit(unit, fusion::Mode::eager);
    const auto compiled = fusion::fuse_unit(unit, fusion::Mode::default_mode);
    CHECK(eager.size() == 2);
    CHECK(eager.size() == compiled.size());
    REQUIRE(eager.size() == 2);
    CHECK(eager[1].where.find("aot_backward_graph") != std::string::npos);
  }
}
