#include <catch2/catch.hpp>

#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <string>

#include "fxscope/trace/trace_log.h"
#include "samples.h"

using namespace fxscope;
using namespace fxscope::trace;

namespace {

nlohmann::json expected(const std::string& sample) {
  std::ifstream in(test::sample(sample) + "/expected.json");
  return nlohmann::json::parse(in);
}

TraceLog read_sample(const std::string& sample) {
  auto log = read_trace(test::sample(sample));
  if (!log) FAIL(log.error().message);
  return std::move(log).value();
}

std::string file_name(const std::string& path) {
  return path.substr(path.rfind('/') + 1);
}

}  // namespace

TEST_CASE("every sample reads cleanly and matches PyTorch's own counters", "[trace]") {
  const char* samples[] = {"resnet18",           "resnet50",
                           "gpt2_2layer",        "gpt2_12layer",
                           "gpt2_48layer",       "residual_mlp",
                           "residual_mlp_train", "pointwise_chain",
                           "graph_breaks",       "reduce_overhead_dynamic",
                           "max_autotune_mlp"};
  for (const char* sample : samples) {
    INFO(sample);
    const TraceLog log = read_sample(sample);
    const auto e = expected(sample);
    CHECK(log.warnings().empty());
    CHECK(log.stats().bad_lines == 0);
    CHECK_FALSE(log.truncated());
    CHECK(log.stats().bytes == log.text().size());
    CHECK(log.other_logs().empty());

    std::size_t with_graph = 0;
    for (const auto& unit : log.units()) {
      INFO(unit.id.str());
      if (unit.dynamo_graph() != nullptr) ++with_graph;
      REQUIRE(unit.user_frame() != nullptr);
      CHECK(unit.guards() != nullptr);
      CHECK(unit.aot_graph() != nullptr);
      CHECK(unit.find(ArtifactKind::kPostGradGraph) != nullptr);
      CHECK(unit.find(ArtifactKind::kOutputCode) != nullptr);
      CHECK(unit.find(ArtifactKind::kFxGraphRunnable) != nullptr);
      CHECK(unit.find(ArtifactKind::kTritonKernelInfo) != nullptr);
      REQUIRE(unit.metrics.has_value());
      CHECK(unit.metrics->compile_id == unit.id.str());
      CHECK_FALSE(unit.failed());
    }
    CHECK(with_graph == e["unique_graphs"].get<std::size_t>());
    CHECK(log.graph_break_total() == e["graph_breaks_total"].get<std::size_t>());
    std::map<std::string, std::size_t> breaks;
    for (const auto& gb : log.graph_breaks()) breaks[gb.message] = gb.count;
    CHECK(breaks == e["graph_break_reasons"].get<std::map<std::string, std::size_t>>());
  }
}

TEST_CASE("resnet18: one unit compiled from torchvision, called from the capture script",
          "[trace]") {
  const TraceLog log = read_sample("resnet18");
  REQUIRE(log.units().size() == 1);
  const CompileUnit& unit = log.units()[0];
  CHECK(unit.id.str() == "0/0");
  CHECK(unit.stack.size() == 9);
  REQUIRE(unit.compiled_frame() != nullptr);
  CHECK(file_name(unit.compiled_frame()->file) == "resnet.py");
  CHECK(unit.compiled_frame()->line == 284);
  CHECK(unit.compiled_frame()->function == "forward");
  CHECK(file_name(unit.user_frame()->file) == "capture.py");
  CHECK(unit.user_frame()->line == 117);
  CHECK(unit.user_frame()->function == "run_resnet");
  CHECK(unit.user_frame()->code == "cmodel(torch.randn(1, 3, 224, 224, device=dev))");
  CHECK(unit.metrics->graph_op_count == 69);
  CHECK(unit.metrics->guard_count == 1242);
  CHECK(unit.metrics->graph_node_count == 173);
  CHECK(unit.find(ArtifactKind::kAotInferenceGraph) != nullptr);
  CHECK(unit.find(ArtifactKind::kAotForwardGraph) == nullptr);
  CHECK(unit.find(ArtifactKind::kProvenanceMappings) == nullptr);
  CHECK(unit.runtime_metrics.size() == 1);
}

TEST_CASE("gpt2_48layer: the big log, its graph and its op count", "[trace]") {
  const TraceLog log = read_sample("gpt2_48layer");
  REQUIRE(log.units().size() == 1);
  const CompileUnit& unit = log.units()[0];
  CHECK(unit.metrics->graph_op_count == 2005);
  CHECK(unit.metrics->guard_count == 8866);
  CHECK(file_name(unit.compiled_frame()->file) == "generic.py");
  CHECK(unit.user_frame()->line == 134);
  CHECK(unit.user_frame()->function == "run_gpt2");
  const Artifact* graph = unit.dynamo_graph();
  REQUIRE(graph != nullptr);
  CHECK(graph->payload.text().rfind("class GraphModule(torch.nn.Module):", 0) == 0);
  CHECK(unit.find_all(ArtifactKind::kOther).size() == 8);  // pre-grad, joint, config, ...
  const auto kinds = log.stats().kinds;
  const auto describe = std::find_if(
      kinds.begin(), kinds.end(), [](const KindCount& k) { return k.kind == "describe_tensor"; });
  REQUIRE(describe != kinds.end());
  CHECK(describe->count == 581);
  CHECK_FALSE(describe->understood);
}

TEST_CASE("gpt2_2layer and gpt2_12layer: op counts", "[trace]") {
  CHECK(read_sample("gpt2_2layer").units().at(0).metrics->graph_op_count == 119);
  CHECK(read_sample("gpt2_12layer").units().at(0).metrics->graph_op_count == 529);
  CHECK(read_sample("resnet50").units().at(0).metrics->graph_op_count == 175);
}

TEST_CASE("residual_mlp_train: forward and backward graphs and output code", "[trace]") {
  const TraceLog log = read_sample("residual_mlp_train");
  REQUIRE(log.units().size() == 1);
  const CompileUnit& unit = log.units()[0];
  CHECK(unit.find(ArtifactKind::kAotJointGraph) != nullptr);
  CHECK(unit.find(ArtifactKind::kAotForwardGraph) != nullptr);
  CHECK(unit.find(ArtifactKind::kAotBackwardGraph) != nullptr);
  CHECK(unit.find(ArtifactKind::kAotInferenceGraph) == nullptr);
  CHECK(unit.aot_graph() == unit.find(ArtifactKind::kAotForwardGraph));
  CHECK(unit.find_all(ArtifactKind::kPostGradGraph).size() == 2);
  CHECK(unit.find_all(ArtifactKind::kOutputCode).size() == 2);
  const Artifact* fwd = unit.find(ArtifactKind::kPostGradGraph, Direction::kForward);
  const Artifact* bwd = unit.find(ArtifactKind::kPostGradGraph, Direction::kBackward);
  REQUIRE(fwd != nullptr);
  REQUIRE(bwd != nullptr);
  CHECK(fwd->line < bwd->line);
  CHECK(bwd->payload.text().find("tangents_1") != std::string::npos);
  CHECK(fwd->payload.text().find("tangents_1") == std::string::npos);
  const Artifact* bwd_code = unit.find(ArtifactKind::kOutputCode, Direction::kBackward);
  REQUIRE(bwd_code != nullptr);
  CHECK(bwd_code->envelope.find("cz6ggze7") == std::string::npos);
  CHECK(unit.find(ArtifactKind::kOutputCode, Direction::kForward)->envelope.find("cz6ggze7") !=
        std::string::npos);
  REQUIRE(unit.backward_metrics.size() == 1);
  CHECK(unit.backward_metrics[0].compile_id == "0/0");
  CHECK(unit.metrics->graph_op_count == 6);
}

TEST_CASE("reduce_overhead_dynamic: restart, symbols and shape guards", "[trace]") {
  const TraceLog log = read_sample("reduce_overhead_dynamic");
  REQUIRE(log.units().size() == 1);
  const CompileUnit& unit = log.units()[0];
  CHECK(unit.final_attempt == 1);
  CHECK(unit.find_all(ArtifactKind::kDynamoGraph).size() == 2);
  REQUIRE(unit.dynamo_graph() != nullptr);
  CHECK(unit.dynamo_graph()->id.str() == "0/0_1");
  const auto sizes = unit.dynamo_sizes();
  REQUIRE_FALSE(sizes.empty());
  CHECK(sizes[0].name == "l_self_modules_linear1_parameters_weight_");
  CHECK(sizes[0].dims == std::vector<std::string>{"1024", "256"});
  const auto x = std::find_if(sizes.begin(), sizes.end(),
                              [](const TensorSizes& s) { return s.name == "l_x_"; });
  REQUIRE(x != sizes.end());
  CHECK(x->dims == std::vector<std::string>{"s77", "256"});
  REQUIRE(unit.metrics.has_value());
  CHECK(unit.metrics->shape_env_guard_count == 5);
  REQUIRE(unit.metrics->restart_reasons.size() == 1);
  CHECK(unit.symbols.size() == 6);
  CHECK(unit.symbols[0].symbol == "s77");
  CHECK(unit.symbols[0].source == "L['x'].size()[0]");
  CHECK(unit.symbols[0].value == "4");
  CHECK(unit.symbols[0].value_range == "[2, int_oo]");
  REQUIRE_FALSE(unit.symbols[0].user_stack.empty());
  CHECK(unit.symbols[0].user_stack[0].line == 47);
  CHECK(unit.shape_guards.size() == 9);
  CHECK(unit.shape_guards[0].expr == "Eq(s27, 256)");
  CHECK(unit.shape_guards.back().expr == "256*s77 <= 2147483647");
  CHECK(unit.shape_guards.back().id.attempt == 1);
  CHECK(unit.runtime_metrics.size() == 6);
}

TEST_CASE("residual_mlp and pointwise_chain: provenance mappings and guard text", "[trace]") {
  for (const char* sample : {"residual_mlp", "pointwise_chain"}) {
    const TraceLog log = read_sample(sample);
    const CompileUnit& unit = log.units().at(0);
    const Artifact* provenance = unit.find(ArtifactKind::kProvenanceMappings);
    REQUIRE(provenance != nullptr);
    CHECK(provenance->encoding == "json");
    CHECK(provenance->payload.text().rfind("{\"preToPost\":", 0) == 0);
  }
  const TraceLog log = read_sample("residual_mlp");
  const Artifact* guards = log.units().at(0).guards();
  REQUIRE(guards != nullptr);
  const std::string text = guards->payload.text();
  CHECK(text.find("TREE_GUARD_MANAGER:") != std::string::npos);
  CHECK(text.find("TENSOR_MATCH: check_tensor(L['x'], Tensor, DispatchKeySet(CUDA, BackendSelect, "
                  "ADInplaceOrView, AutogradCUDA), torch.float32, device=0, requires_grad=False, "
                  "size=[32, 1024], stride=[1024, 1])") != std::string::npos);
  // The payload's first line is empty: Dynamo starts the tree with a newline.
  CHECK(text.front() == '\n');
}
