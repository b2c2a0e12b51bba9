// index_put as generated code, run on the CPU through the host shim (one thread of one block)
// and checked element by element against ATen's semantics computed here: an eager call copies
// self and then stores or adds the values at the indexed places; negative indices wrap, repeated
// indices add up under accumulate, values broadcast to the indexed shape.

#include <unistd.h>

#include <catch2/catch.hpp>

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "fxscope/codegen/kernel_codegen.h"
#include "fxscope/graph/fx_readable_parser.h"
#include "host_shim.h"

using namespace fxscope;

namespace {

graph::Graph index_put_graph(const std::string& body, const std::string& signature) {
  const std::string code =
      "class GraphModule(torch.nn.Module):\n    def forward(self, " + signature + "):\n" + body;
  return graph::parse_fx_readable(code, "index_put").graph;
}

fusion::KernelGroup eager_group(const graph::Graph& g, const char* node) {
  fusion::KernelGroup group;
  group.name = "aten.index_put";
  group.kind = fusion::GroupKind::eager_op;
  group.nodes = {*g.find(node)};
  group.outputs = {*g.find(node)};
  return group;
}

std::filesystem::path shim_dir() {
  return test::host_dir("fxscope-index-put-on-host-");
}

}  // namespace

TEST_CASE("index_put with accumulate: an embedding's gradient adds repeated rows", "[codegen]") {
  // grad_weight = zeros[6, 4].index_put_([ids], grad, True): ids 1 and -1 (= 5) repeat.
  const auto g = index_put_graph(
      "        index_put: \"f32[6, 4][4, 1]cuda:0\" = "
      "torch.ops.aten.index_put.default(arg0_1, [arg1_1], arg2_1, True)\n"
      "        return (index_put,)\n",
      "arg0_1: \"f32[6, 4][4, 1]cuda:0\", arg1_1: \"i64[2, 3][3, 1]cuda:0\", "
      "arg2_1: \"f32[2, 3, 4][12, 4, 1]cuda:0\"");
  const auto k = codegen::generate(g, eager_group(g, "index_put"), {});
  REQUIRE(k);
  CHECK(k->summary == "index_put accumulate 24 x f32, self copied first, one block");
  CHECK(k->source.find("atomicAdd(") != std::string::npos);
  CHECK(k->grid == 1);
  REQUIRE(k->params.size() == 4);
  void* lib = test::build_on_host(*k, shim_dir());
  using Kernel = void (*)(const float*, const long long*, const float*, float*);
  const auto run = reinterpret_cast<Kernel>(dlsym(lib, k->entry.c_str()));
  REQUIRE(run);
  // The params in the order the kernel reads them: self, the indices, the values, the output.
  CHECK(g.node(k->params[0].node).name == "arg0_1");
  CHECK(g.node(k->params[1].node).name == "arg1_1");
  CHECK(g.node(k->params[2].node).name == "arg2_1");
  CHECK(k->params[3].written);
  std::vector<float> self(24);
  for (std::size_t i = 0; i < self.size(); ++i) self[i] = 0.25f * static_cast<float>(i);
  const std::vector<long long> ids = {1, 3, -1, 1, 5, 0};
  std::vector<float> values(24);
  for (std::size_t i = 0; i < values.size(); ++i) values[i] = 1.0f + static_cast<float>(i);
  std::vector<float> out(24, -7.0f);
  run(self.data(), ids.data(), values.data(), out.data());
  std::vector<float> want = self;
  for (std::size_t r = 0; r < ids.size(); ++r) {
    const auto row = static_cast<std::size_t>(ids[r] < 0 ? ids[r] + 6 : ids[r]);
    for (std::size_t c = 0; c < 4; ++c) want[row * 4 + c] += values[r * 4 + c];
  }
  for (std::size_t i = 0; i < want.size(); ++i) {
    INFO("element " << i);
    CHECK(out[i] == want[i]);
  }
  dlclose(lib);
}

TEST_CASE("index_put without accumulate stores broadcast values at two index tensors' places",
          "[codegen]") {
  // out = self; out[:, rows, cols] = values[4] (broadcast over dim 0 and the index shape [3]).
  const auto g = index_put_graph(
      "        index_put: \"f32[2, 3, 5][15, 5, 1]cuda:0\" = "
      "torch.ops.aten.index_put.default(arg0_1, [None, arg1_1, arg2_1], arg3_1)\n"
      "        return (index_put,)\n",
      "arg0_1: \"f32[2, 3, 5][15, 5, 1]cuda:0\", arg1_1: \"i64[3][1]cuda:0\", "
      "arg2_1: \"i64[1][1]cuda:0\", arg3_1: \"f32[3][1]cuda:0\"");
  const auto k = codegen::generate(g, eager_group(g, "index_put"), {});
  REQUIRE(k);
  CHECK(k->summary == "index_put 6 x f32, self copied first, one block");
  CHECK(k->source.find("atomicAdd(") == std::string::npos);
  REQUIRE(k->params.size() == 5);
  void* lib = test::build_on_host(*k, shim_dir());
  using Kernel = void (*)(const float*, const long long*, const long long*, const float*, float*);
  const auto run = reinterpret_cast<Kernel>(dlsym(lib, k->entry.c_str()));
  REQUIRE(run);
  std::vector<float> self(30);
  for (std::size_t i = 0; i < self.size(); ++i) self[i] = static_cast<float>(i);
  const std::vector<long long> rows = {2, 0, -2};  // -2 is row 1
  const std::vector<long long> cols = {-1};        // column 4, broadcast over the rows
  const std::vector<float> values = {100.0f, 200.0f, 300.0f};
  std::vector<float> out(30, -7.0f);
  run(self.data(), rows.data(), cols.data(), values.data(), out.data());
  std::vector<float> want = self;
  for (std::size_t b = 0; b < 2; ++b) {
    for (std::size_t j = 0; j < 3; ++j) {
      const auto r = static_cast<std::size_t>(rows[j] < 0 ? rows[j] + 3 : rows[j]);
      want[b * 15 + r * 5 + 4] = values[j];
    }
  }
  for (std::size_t i = 0; i < want.size(); ++i) {
    INFO("element " << i);
    CHECK(out[i] == want[i]);
  }
  dlclose(lib);
}
