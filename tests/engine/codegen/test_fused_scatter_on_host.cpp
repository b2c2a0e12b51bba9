// A Scatter (index_put with its values inline, Inductor's index_put_impl_) as one store among
// others of a generated pointwise or reduction kernel, run on the CPU through the host shim and
// checked element by element against ATen's semantics computed here. The runtime fills the
// scatter's output with self before the group's kernel runs, so the test passes it filled.

#include <unistd.h>

#include <catch2/catch.hpp>

#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "fxscope/codegen/kernel_codegen.h"
#include "fxscope/graph/fx_readable_parser.h"
#include "host_shim.h"

using namespace fxscope;

namespace {

graph::Graph scatter_graph(const std::string& signature, const std::string& body) {
  const std::string code =
      "class GraphModule(torch.nn.Module):\n    def forward(self, " + signature + "):\n" + body;
  return graph::parse_fx_readable(code, "fused_scatter").graph;
}

fusion::KernelGroup scatter_group(const graph::Graph& g, fusion::GroupKind kind,
                                  const std::vector<const char*>& nodes,
                                  const std::vector<const char*>& outputs, std::int64_t numel,
                                  std::int64_t rnumel) {
  fusion::KernelGroup group;
  group.name = "fused_scatter";
  group.kind = kind;
  for (const char* n : nodes) group.nodes.push_back(*g.find(n));
  for (const char* n : outputs) group.outputs.push_back(*g.find(n));
  group.numel = numel;
  group.rnumel = rnumel;
  return group;
}

std::filesystem::path fused_scatter_dir() {
  return test::host_dir("fxscope-fused-scatter-on-host-");
}

// What the shim lacks for a reduction kernel of one thread a row: the team reduction of one
// thread is its own state, and the sum's combiner.
constexpr const char* kScatterReductionShim = R"(
struct FxSum { template <class T> T operator()(T a, T b) const { return a + b; } };
template <class T, class C> inline T fx_team_reduce(T v, C, int) { return v; }
)";

template <std::size_t... I>
void call_with_pointers(void* entry, const std::vector<void*>& args, std::index_sequence<I...>) {
  using Entry = void (*)(decltype((void)I, static_cast<void*>(nullptr))...);
  reinterpret_cast<Entry>(entry)(args[I]...);
}

// Runs KERNEL with the buffer each param names (by node name) from BUFFERS.
void run_scatter_kernel(const codegen::GeneratedKernel& kernel, const graph::Graph& g,
                        const std::map<std::string, void*>& buffers, bool reduction) {
  const codegen::GeneratedKernel& k = kernel;
  void* lib = test::build_on_host(k, fused_scatter_dir(), reduction ? kScatterReductionShim : "");
  std::vector<void*> args;
  for (const codegen::KernelParam& p : k.params) {
    INFO(g.node(p.node).name);
    REQUIRE(buffers.count(g.node(p.node).name));
    args.push_back(buffers.at(g.node(p.node).name));
  }
  void* entry = dlsym(lib, k.entry.c_str());
  REQUIRE(entry);
  // Every param is a pointer: called through a signature of as many pointers.
  switch (args.size()) {
    case 3:
      call_with_pointers(entry, args, std::make_index_sequence<3>{});
      break;
    case 4:
      call_with_pointers(entry, args, std::make_index_sequence<4>{});
      break;
    case 5:
      call_with_pointers(entry, args, std::make_index_sequence<5>{});
      break;
    case 6:
      call_with_pointers(entry, args, std::make_index_sequence<6>{});
      break;
    case 7:
      call_with_pointers(entry, args, std::make_index_sequence<7>{});
      break;
    case 8:
      call_with_pointers(entry, args, std::make_index_sequence<8>{});
      break;
    default:
      FAIL("a kernel of " << args.size() << " params");
  }
  dlclose(lib);
}

}  // namespace

TEST_CASE("a pointwise kernel stores a Scatter with accumulate beside another store", "[codegen]") {
  // y = g * 2 + 1 is stored, and added into grad_weight[ids] (ids 1 and -5 = 1 repeat).
  const auto g = scatter_graph(
      "arg0_1: \"f32[6, 4][4, 1]cuda:0\", arg1_1: \"i64[5][1]cuda:0\", "
      "arg2_1: \"f32[5, 4][4, 1]cuda:0\"",
      "        mul: \"f32[5, 4][4, 1]cuda:0\" = torch.ops.aten.mul.Tensor(arg2_1, 2.0)\n"
      "        add: \"f32[5, 4][4, 1]cuda:0\" = torch.ops.aten.add.Tensor(mul, 1.0)\n"
      "        index_put: \"f32[6, 4][4, 1]cuda:0\" = "
      "torch.ops.aten.index_put_.default(arg0_1, [arg1_1], add, True)\n"
      "        return (add, index_put)\n");
  const auto group = scatter_group(g, fusion::GroupKind::pointwise, {"mul", "add", "index_put"},
                                   {"add", "index_put"}, 20, 1);
  codegen::CodegenOptions options;
  options.config = codegen::LaunchConfig{1, 1, 1};
  const auto k = codegen::generate(g, group, options);
  INFO((k ? k->source : k.error().message));
  REQUIRE(k);
  CHECK(k->summary.starts_with("pointwise 20 x f32"));
  CHECK(k->source.find("atomicAdd(") != std::string::npos);
  const std::vector<long long> ids = {1, 3, -5, 0, 5};
  std::vector<float> grad(20);
  for (std::size_t i = 0; i < grad.size(); ++i) grad[i] = 0.5f * static_cast<float>(i) - 3.0f;
  std::vector<float> self(24);
  for (std::size_t i = 0; i < self.size(); ++i) self[i] = 0.125f * static_cast<float>(i);
  std::vector<float> out = self;  // the runtime's copy of self into the scatter's output
  std::vector<float> y(20, -7.0f);
  run_scatter_kernel(*k, g,
                     {{"arg0_1", self.data()},
                      {"arg1_1", const_cast<long long*>(ids.data())},
                      {"arg2_1", grad.data()},
                      {"add", y.data()},
                      {"index_put", out.data()}},
                     false);
  std::vector<float> want = self;
  for (std::size_t r = 0; r < ids.size(); ++r) {
    const auto row = static_cast<std::size_t>(ids[r] < 0 ? ids[r] + 6 : ids[r]);
    for (std::size_t c = 0; c < 4; ++c) want[row * 4 + c] += grad[r * 4 + c] * 2.0f + 1.0f;
  }
  for (std::size_t i = 0; i < y.size(); ++i) {
    INFO("y element " << i);
    CHECK(y[i] == grad[i] * 2.0f + 1.0f);
  }
  for (std::size_t i = 0; i < want.size(); ++i) {
    INFO("scatter element " << i);
    CHECK(out[i] == want[i]);
  }
}

TEST_CASE("a reduction kernel stores a Scatter of the rows' elements and one of the row sums",
          "[codegen]") {
  // Per row of x[4, 8]: s = sum(x); d = x - s / 8 stored at dest[ids] (accumulate, ids repeat)
  // with the rows' elements, and s stored without accumulate at rows[perm] with one a row.
  const auto g = scatter_graph(
      "arg0_1: \"f32[4, 8][8, 1]cuda:0\", arg1_1: \"i64[4][1]cuda:0\", "
      "arg2_1: \"f32[3, 8][8, 1]cuda:0\", arg3_1: \"i64[4][1]cuda:0\", "
      "arg4_1: \"f32[5][1]cuda:0\"",
      "        sum_1: \"f32[4, 1][1, 1]cuda:0\" = "
      "torch.ops.aten.sum.dim_IntList(arg0_1, [1], True)\n"
      "        div: \"f32[4, 1][1, 1]cuda:0\" = torch.ops.aten.div.Tensor(sum_1, 8)\n"
      "        sub: \"f32[4, 8][8, 1]cuda:0\" = torch.ops.aten.sub.Tensor(arg0_1, div)\n"
      "        index_put: \"f32[3, 8][8, 1]cuda:0\" = "
      "torch.ops.aten.index_put_.default(arg2_1, [arg1_1], sub, True)\n"
      "        view: \"f32[4][1]cuda:0\" = torch.ops.aten.view.default(sum_1, [4])\n"
      "        index_put_1: \"f32[5][1]cuda:0\" = "
      "torch.ops.aten.index_put_.default(arg4_1, [arg3_1], view)\n"
      "        return (sum_1, index_put, index_put_1)\n");
  const auto group = scatter_group(g, fusion::GroupKind::persistent_reduction,
                                   {"sum_1", "div", "sub", "index_put", "view", "index_put_1"},
                                   {"sum_1", "index_put", "index_put_1"}, 4, 8);
  codegen::CodegenOptions options;
  options.config = codegen::LaunchConfig{1, 1, 1};
  const auto k = codegen::generate(g, group, options);
  INFO((k ? k->source : k.error().message));
  REQUIRE(k);
  CHECK(k->summary.starts_with("reduction 4 rows x 8"));
  std::vector<float> x(32);
  for (std::size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>((i * 7) % 11) - 4.0f;
  const std::vector<long long> ids = {2, -1, 0, 2};  // -1 is row 2: three rows add into it
  const std::vector<long long> perm = {4, 0, -2, 1};
  std::vector<float> dest_self(24);
  for (std::size_t i = 0; i < dest_self.size(); ++i) dest_self[i] = static_cast<float>(i);
  std::vector<float> dest = dest_self;
  std::vector<float> rows_self = {-1.0f, -2.0f, -3.0f, -4.0f, -5.0f};
  std::vector<float> rows = rows_self;
  std::vector<float> sums(4, -7.0f);
  run_scatter_kernel(*k, g,
                     {{"arg0_1", x.data()},
                      {"arg1_1", const_cast<long long*>(ids.data())},
                      {"arg2_1", dest_self.data()},
                      {"arg3_1", const_cast<long long*>(perm.data())},
                      {"arg4_1", rows_self.data()},
                      {"sum_1", sums.data()},
                      {"index_put", dest.data()},
                      {"index_put_1", rows.data()}},
                     true);
  std::vector<float> want_sums(4, 0.0f);
  for (std::size_t r = 0; r < 4; ++r) {
    for (std::size_t c = 0; c < 8; ++c) want_sums[r] += x[r * 8 + c];
  }
  std::vector<float> want_dest = dest_self;
  std::vector<float> want_rows = rows_self;
  for (std::size_t r = 0; r < 4; ++r) {
    const auto to = static_cast<std::size_t>(ids[r] < 0 ? ids[r] + 3 : ids[r]);
    for (std::size_t c = 0; c < 8; ++c) want_dest[to * 8 + c] += x[r * 8 + c] - want_sums[r] / 8;
    want_rows[static_cast<std::size_t>(perm[r] < 0 ? perm[r] + 5 : perm[r])] = want_sums[r];
  }
  for (std::size_t i = 0; i < 4; ++i) {
    INFO("sum " << i);
    CHECK(sums[i] == want_sums[i]);
  }
  for (std::size_t i = 0; i < want_dest.size(); ++i) {
    INFO("scatter of the rows' elements, element " << i);
    CHECK(dest[i] == Approx(want_dest[i]));
  }
  for (std::size_t i = 0; i < want_rows.size(); ++i) {
    INFO("scatter of the row sums, element " << i);
    CHECK(rows[i] == want_rows[i]);
  }
}

TEST_CASE("a reduction kernel computes a reduction of two elements over rows of its own inline",
          "[codegen]") {
  // s2 = w.sum(1) over w[2, 2] (Inductor unrolls it: fewer than 8 elements), read by each of
  // x's 4 rows through an expand to [2, 2] and a view to [4, 1]; s1 = (x / s2[row / 2]).sum(1).
  // s2 is stored too, over its own 2 elements.
  const auto g = scatter_graph(
      "arg0_1: \"f32[4, 8][8, 1]cuda:0\", arg1_1: \"f32[2, 2][2, 1]cuda:0\"",
      "        sum_2: \"f32[2][1]cuda:0\" = torch.ops.aten.sum.dim_IntList(arg1_1, [1])\n"
      "        unsqueeze: \"f32[2, 1][1, 1]cuda:0\" = torch.ops.aten.unsqueeze.default(sum_2, 1)\n"
      "        expand: \"f32[2, 2][1, 0]cuda:0\" = "
      "torch.ops.aten.expand.default(unsqueeze, [2, 2])\n"
      "        clone: \"f32[2, 2][2, 1]cuda:0\" = torch.ops.aten.clone.default(expand)\n"
      "        view: \"f32[4, 1][1, 1]cuda:0\" = torch.ops.aten.view.default(clone, [4, 1])\n"
      "        div: \"f32[4, 8][8, 1]cuda:0\" = torch.ops.aten.div.Tensor(arg0_1, view)\n"
      "        sum_1: \"f32[4][1]cuda:0\" = torch.ops.aten.sum.dim_IntList(div, [1])\n"
      "        return (sum_1, sum_2)\n");
  const auto group = scatter_group(
      g, fusion::GroupKind::persistent_reduction,
      {"sum_2", "unsqueeze", "expand", "clone", "view", "div", "sum_1"}, {"sum_2", "sum_1"}, 4, 8);
  codegen::CodegenOptions options;
  options.config = codegen::LaunchConfig{1, 1, 1};
  const auto k = codegen::generate(g, group, options);
  INFO((k ? k->source : k.error().message));
  REQUIRE(k);
  CHECK(k->summary.starts_with("reduction 4 rows x 8 (sum)"));
  std::vector<float> x(32);
  for (std::size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>((i * 5) % 9) - 2.0f;
  std::vector<float> w = {0.5f, 1.5f, -3.0f, 1.0f};
  std::vector<float> s1(4, -7.0f);
  std::vector<float> s2(2, -7.0f);
  run_scatter_kernel(
      *k, g,
      {{"arg0_1", x.data()}, {"arg1_1", w.data()}, {"sum_1", s1.data()}, {"sum_2", s2.data()}},
      true);
  const std::vector<float> want_s2 = {w[0] + w[1], w[2] + w[3]};
  for (std::size_t i = 0; i < 2; ++i) {
    INFO("s2 " << i);
    CHECK(s2[i] == want_s2[i]);
  }
  for (std::size_t r = 0; r < 4; ++r) {
    float want = 0.0f;
    for (std::size_t c = 0; c < 8; ++c) want += x[r * 8 + c] / want_s2[r / 2];
    INFO("s1 " << r);
    CHECK(s1[r] == Approx(want));
  }
}
