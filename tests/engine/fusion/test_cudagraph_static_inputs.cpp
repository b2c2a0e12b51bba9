// Inductor's cudagraph trees skip a graph that mutates an input, except a static one: a module's
// parameter or buffer (torch/_inductor/cudagraph_utils.py check_for_mutation). A batch norm's
// running statistics are buffers, so a training step's forward still records a CUDA graph, while
// the same copy_ into the model's data input stops it.

#include <catch2/catch.hpp>

#include <filesystem>
#include <string>

#include "corpus_log.h"
#include "fxscope/fusion/cuda_graph_check.h"
#include "fxscope/fusion/unit_fusion.h"
#include "fxscope/graph/fx_readable_parser.h"
#include "fxscope/trace/trace_log.h"
#include "samples.h"

using namespace fxscope;

TEST_CASE("a batch norm's running stats are static inputs: the training step keeps CUDA graphs",
          "[fusion][cuda_graphs]") {
  const auto log = test::corpus_log("tv_resnet18_train_bf16");
  if (!log) return;
  const trace::CompileUnit& unit = log->units().front();
  const std::set<std::size_t> statics = fusion::cudagraph_static_inputs(unit);
  // conv1.weight, then the input x, then bn1's num_batches_tracked, running_mean, running_var...
  CHECK(statics.contains(0));
  CHECK_FALSE(statics.contains(1));
  CHECK(statics.contains(2));
  CHECK(statics.contains(3));
  std::size_t graphs = 0;
  for (const auto& f : fusion::fuse_unit(unit, fusion::Mode::reduce_overhead)) {
    ++graphs;
    INFO(f.where);
    for (const std::string& reason : f.ours.cuda_graphs.reasons) {
      CHECK(reason.find("mutation") == std::string::npos);
    }
    CHECK(f.ours.cuda_graphs.usable);
  }
  CHECK(graphs >= 1);
}

TEST_CASE("a mutated data input stops CUDA graphs and the reasons name every mutating op once",
          "[fusion][cuda_graphs]") {
  // primals_1 (position 0) is static, primals_2 and arg3_1 are not.
  const std::string text = R"(class GraphModule(torch.nn.Module):
    def forward(self, primals_1: "f32[4][1]cuda:0", primals_2: "f32[4][1]cuda:0", arg3_1: "f32[4][1]cuda:0"):
        add: "f32[4][1]cuda:0" = torch.ops.aten.add.Tensor(primals_1, 1)
        copy_: "f32[4][1]cuda:0" = torch.ops.aten.copy_.default(primals_1, add)
        copy__1: "f32[4][1]cuda:0" = torch.ops.aten.copy_.default(primals_2, add)
        copy__2: "f32[4][1]cuda:0" = torch.ops.aten.copy_.default(arg3_1, add)
        return (add,)
)";
  const graph::ParsedGraph parsed = graph::parse_fx_readable(text, "test");
  const fusion::CudaGraphVerdict all = fusion::check_cuda_graphs(parsed.graph);
  CHECK_FALSE(all.usable);
  REQUIRE(all.reasons.size() == 1);
  CHECK(all.reasons[0] == "mutation of 3 inputs, by copy_, copy__1, copy__2");
  const fusion::CudaGraphVerdict some = fusion::check_cuda_graphs(parsed.graph, {0, 3});
  CHECK_FALSE(some.usable);
  REQUIRE(some.reasons.size() == 1);
  CHECK(some.reasons[0] == "mutation of an input by copy__1");
  CHECK(fusion::check_cuda_graphs(parsed.graph, {0, 1, 3}).usable);
}
