// A few-element sum inside a pointwise kernel is computed at each element it is loaded at: a
// rotary embedding's backward reads the gradient summed over a dim of 2 both at its own element
// and half a head away (slice, neg, slice_scatter). Run on the CPU through the host shim and
// checked element by element against the graph's definition.

#include <dlfcn.h>
#include <unistd.h>

#include <catch2/catch.hpp>

#include <filesystem>
#include <string>
#include <vector>

#include "fxscope/codegen/kernel_codegen.h"
#include "fxscope/graph/fx_readable_parser.h"
#include "host_shim.h"

using namespace fxscope;

TEST_CASE("a few-element sum loaded at another element is that element's sum", "[codegen]") {
  const std::string code =
      "class GraphModule(torch.nn.Module):\n"
      "    def forward(self, arg0_1: \"f32[4, 2, 8][16, 8, 1]cuda:0\"):\n"
      "        sum_1: \"f32[4, 8][8, 1]cuda:0\" = torch.ops.aten.sum.dim_IntList(arg0_1, [1])\n"
      "        slice_1: \"f32[4, 4][8, 1]cuda:0\" = torch.ops.aten.slice.Tensor(sum_1, 1, 0, 4)\n"
      "        neg: \"f32[4, 4][4, 1]cuda:0\" = torch.ops.aten.neg.default(slice_1)\n"
      "        full: \"f32[4, 8][8, 1]cuda:0\" = torch.ops.aten.full.default([4, 8], 0, dtype = "
      "torch.float32, layout = torch.strided, device = device(type='cuda', index=0), pin_memory "
      "= False)\n"
      "        slice_scatter: \"f32[4, 8][8, 1]cuda:0\" = "
      "torch.ops.aten.slice_scatter.default(full, neg, 1, 4, 8)\n"
      "        add: \"f32[4, 8][8, 1]cuda:0\" = torch.ops.aten.add.Tensor(slice_scatter, sum_1)\n"
      "        return (add,)\n";
  const graph::Graph g = graph::parse_fx_readable(code, "unrolled_sum").graph;
  fusion::KernelGroup group;
  group.name = "triton_poi_fused_add_neg_slice_slice_scatter_sum_0";
  group.kind = fusion::GroupKind::pointwise;
  for (const char* n : {"sum_1", "slice_1", "neg", "full", "slice_scatter", "add"}) {
    group.nodes.push_back(*g.find(n));
  }
  group.inputs = {*g.find("arg0_1")};
  group.outputs = {*g.find("add")};
  const auto k = codegen::generate(g, group, {});
  REQUIRE(k);
  INFO(k->source);
  CHECK(k->summary.find("pointwise") == 0);
  REQUIRE(k->params.size() == 2);
  const auto dir =
      std::filesystem::temp_directory_path() / ("fxscope-unrolled-sum-" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  void* lib = test::build_on_host(*k, dir);
  using Kernel = void (*)(const float*, float*);
  const auto run = reinterpret_cast<Kernel>(dlsym(lib, k->entry.c_str()));
  REQUIRE(run);
  using SetThread = void (*)(unsigned, unsigned);
  const auto set_thread = reinterpret_cast<SetThread>(dlsym(lib, "fx_set_thread"));
  REQUIRE(set_thread);
  std::vector<float> in(64);
  for (std::size_t i = 0; i < in.size(); ++i) in[i] = static_cast<float>((i * 7) % 13) - 6.0f;
  std::vector<float> out(32, -1000.0f);
  for (unsigned t = 0; t < 256; ++t) {
    set_thread(t, 256);
    run(in.data(), out.data());
  }
  dlclose(lib);
  std::filesystem::remove_all(dir);
  const auto sum = [&](std::size_t r, std::size_t c) {
    return in[r * 16 + c] + in[r * 16 + 8 + c];
  };
  for (std::size_t r = 0; r < 4; ++r) {
    for (std::size_t c = 0; c < 8; ++c) {
      INFO("add[" << r << "][" << c << "]");
      const float shifted = c >= 4 ? -sum(r, c - 4) : 0.0f;
      CHECK(out[r * 8 + c] == shifted + sum(r, c));
    }
  }
}
