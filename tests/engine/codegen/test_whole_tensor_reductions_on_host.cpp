// Reductions of a whole tensor to one value that the generator takes by their ATen names:
// max.default / min.default (an exported program's `lengths.max()`), all.default, and max.dim /
// min.dim (values and indices), run on the host on values where the identity, a wrong combiner
// or a tie taken by the wrong index would show.

#include <catch2/catch.hpp>

#include <dlfcn.h>

#include <string>
#include <vector>

#include "fxscope/codegen/kernel_codegen.h"
#include "fxscope/graph/fx_readable_parser.h"
#include "host_shim.h"

using namespace fxscope;

namespace {

// What these kernels use of the prelude, for one thread: a team of one reduces nothing more.
constexpr const char* kCombiners = R"(
template <class T> inline T fx_min(T a, T b) { return (a != a || a < b) ? a : b; }
struct FxMax { template <class T> T operator()(T a, T b) const { return fx_max(a, b); } };
struct FxMin { template <class T> T operator()(T a, T b) const { return fx_min(a, b); } };
struct FxAny { int operator()(int a, int b) const { return a | b; } };
struct FxAll { int operator()(int a, int b) const { return a & b; } };
template <class T, class Op> inline T fx_team_reduce(T v, Op, int) { return v; }
struct FxArgState { float v; long long i; };
struct FxArgMax {
  FxArgState operator()(FxArgState a, FxArgState b) const {
    if (a.v != a.v) return a;
    if (b.v != b.v) return b;
    return (b.v > a.v || (b.v == a.v && b.i < a.i)) ? b : a;
  }
};
struct FxArgMin {
  FxArgState operator()(FxArgState a, FxArgState b) const {
    if (a.v != a.v) return a;
    if (b.v != b.v) return b;
    return (b.v < a.v || (b.v == a.v && b.i < a.i)) ? b : a;
  }
};
)";

// KERNEL (one block, no barriers) built on the host with the combiners and run by each of its
// threads in turn with ARGS, its params in order.
template <class... Args>
void run_with_combiners(const codegen::GeneratedKernel& kernel, Args... args) {
  REQUIRE(kernel.grid == 1);
  const auto dir = test::host_dir("fxscope-whole-reductions-");
  void* lib = test::build_on_host(kernel, dir, kCombiners);
  using Kernel = void (*)(Args...);
  const auto run = reinterpret_cast<Kernel>(dlsym(lib, kernel.entry.c_str()));
  const auto set_thread =
      reinterpret_cast<void (*)(unsigned, unsigned)>(dlsym(lib, "fx_set_thread"));
  REQUIRE(run);
  REQUIRE(set_thread);
  for (unsigned t = 0; t < static_cast<unsigned>(kernel.block); ++t) {
    set_thread(t, static_cast<unsigned>(kernel.block));
    run(args...);
  }
  dlclose(lib);
}

// The one-node reduction OP of INPUT (annotated ANNOTATION) generated and run on the host
// thread by thread; its output written to OUT.
template <class In, class Out>
void reduce_on_host(const std::string& op, const std::string& annotation,
                    const std::string& out_annotation, std::vector<In>& input, Out& out) {
  const std::string code =
      "class GraphModule(torch.nn.Module):\n"
      "    def forward(self, x: \"" +
      annotation + "\"):\n        r: \"" + out_annotation + "\" = torch.ops.aten." + op +
      "(x)\n        return (r,)\n";
  const auto g = graph::parse_fx_readable(code, op).graph;
  fusion::KernelGroup group;
  group.name = "triton_per_fused_" + op.substr(0, op.find('.')) + "_0";
  group.kind = fusion::GroupKind::persistent_reduction;
  group.nodes = {*g.find("r")};
  group.outputs = group.nodes;
  const auto k = codegen::generate(g, group, {});
  INFO((k ? k->source : k.error().message));
  REQUIRE(k);
  REQUIRE(k->params.size() == 2);
  run_with_combiners(*k, static_cast<void*>(input.data()), static_cast<void*>(&out));
}

}  // namespace

TEST_CASE("max and min of a whole integer tensor start from the integer identities", "[codegen]") {
  std::vector<long long> lengths = {-7, -3, -12, -5};
  long long largest = 99;
  reduce_on_host("max.default", "i64[4][1]cuda:0", "i64[][]cuda:0", lengths, largest);
  CHECK(largest == -3);
  long long smallest = -99;
  std::vector<long long> positive = {7, 3, 12, 5};
  reduce_on_host("min.default", "i64[4][1]cuda:0", "i64[][]cuda:0", positive, smallest);
  CHECK(smallest == 3);
}

TEST_CASE("all of a whole tensor is true only when every element is", "[codegen]") {
  std::vector<float> ones = {1.0f, 2.0f, -0.5f, 4.0f, 3.0f};
  bool every = false;
  reduce_on_host("all.default", "f32[5][1]cuda:0", "b8[][]cuda:0", ones, every);
  CHECK(every);
  std::vector<float> one_zero = {1.0f, 2.0f, 0.0f, 4.0f, 3.0f};
  reduce_on_host("all.default", "f32[5][1]cuda:0", "b8[][]cuda:0", one_zero, every);
  CHECK(!every);
}

TEST_CASE("max and min along a dim give each row's value and its first index", "[codegen]") {
  for (const char* op : {"max", "min"}) {
    const std::string code = std::string(
                                 "class GraphModule(torch.nn.Module):\n"
                                 "    def forward(self, x: \"f32[3, 4][4, 1]cuda:0\"):\n"
                                 "        m = torch.ops.aten.") +
                             op +
                             ".dim(x, 1)\n"
                             "        v: \"f32[3][1]cuda:0\" = m[0]\n"
                             "        i: \"i64[3][1]cuda:0\" = m[1];  m = None\n"
                             "        return (v, i)\n";
    const auto g = graph::parse_fx_readable(code, op).graph;
    fusion::KernelGroup group;
    group.name = std::string("triton_per_fused_") + op + "_0";
    group.kind = fusion::GroupKind::persistent_reduction;
    for (const char* n : {"m", "v", "i"}) group.nodes.push_back(*g.find(n));
    group.outputs = {*g.find("v"), *g.find("i")};
    const auto k = codegen::generate(g, group, {});
    INFO((k ? k->source : k.error().message));
    REQUIRE(k);
    REQUIRE(k->params.size() == 3);
    // Row 0 ties its largest (and row 1 its smallest): the first index wins, as in PyTorch.
    std::vector<float> x = {1, 5, 5, 2, -3, -7, 4, -7, 0.5f, 0.25f, 8, -1};
    std::vector<float> values(3, 99.0f);
    std::vector<long long> indices(3, 99);
    std::vector<void*> by_param;
    for (const auto& p : k->params) {
      const std::string& name = g.node(p.node).name;
      by_param.push_back(name == "x"   ? static_cast<void*>(x.data())
                         : name == "v" ? static_cast<void*>(values.data())
                                       : static_cast<void*>(indices.data()));
    }
    run_with_combiners(*k, by_param[0], by_param[1], by_param[2]);
    INFO(op);
    if (std::string(op) == "max") {
      CHECK(values == std::vector<float>{5, 4, 8});
      CHECK(indices == std::vector<long long>{1, 2, 2});
    } else {
      CHECK(values == std::vector<float>{1, -7, -1});
      CHECK(indices == std::vector<long long>{0, 1, 3});
    }
  }
}
