// Reductions of a whole tensor to one value that the generator takes by their ATen names:
// max.default / min.default (an exported program's `lengths.max()`) and all.default, run on the
// host on values where the identity or a wrong combiner would show.

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
)";

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
  const auto dir = test::host_dir("fxscope-whole-reductions-");
  void* lib = test::build_on_host(*k, dir, kCombiners);
  using Kernel = void (*)(void*, void*);
  const auto run = reinterpret_cast<Kernel>(dlsym(lib, k->entry.c_str()));
  const auto set_thread =
      reinterpret_cast<void (*)(unsigned, unsigned)>(dlsym(lib, "fx_set_thread"));
  REQUIRE(run);
  REQUIRE(set_thread);
  REQUIRE(k->grid == 1);
  for (unsigned t = 0; t < static_cast<unsigned>(k->block); ++t) {
    set_thread(t, static_cast<unsigned>(k->block));
    run(input.data(), &out);
  }
  dlclose(lib);
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
