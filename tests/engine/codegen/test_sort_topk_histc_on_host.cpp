// sort, topk and histc as generated code, run on the CPU through the host shim (one thread of
// one block: the block-stride phases of the bitonic sort and the histogram's zeroing and
// counting do all the work in order) and checked element by element against ATen's definitions
// computed here: a stable sort with NaN above every number, topk's first K of that order,
// histc's bins.

#include <unistd.h>

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <numeric>
#include <string>
#include <vector>

#include "fxscope/codegen/kernel_codegen.h"
#include "fxscope/graph/fx_readable_parser.h"
#include "host_shim.h"

using namespace fxscope;

// A named namespace: the unity build puts several tests' helpers in one translation unit.
namespace sort_on_host {

graph::Graph sort_graph(const std::string& body, const std::string& signature) {
  const std::string code =
      "class GraphModule(torch.nn.Module):\n    def forward(self, " + signature + "):\n" + body;
  return graph::parse_fx_readable(code, "sort").graph;
}

fusion::KernelGroup extern_group(const graph::Graph& g, const char* node) {
  fusion::KernelGroup group;
  group.name = std::string("aten.") + node;
  group.kind = fusion::GroupKind::extern_kernel;
  group.nodes = {*g.find(node)};
  group.outputs = {*g.find(node)};
  return group;
}

std::filesystem::path sort_dir() {
  return test::host_dir("fxscope-sort-on-host-");
}

// ATen's order of positions P within a row read by VALUE(p): stable, NaN above every number.
template <class T, class Value>
std::vector<long long> reference_order(std::size_t n, Value value, bool descending) {
  std::vector<long long> pos(n);
  std::iota(pos.begin(), pos.end(), 0);
  std::stable_sort(pos.begin(), pos.end(), [&](long long a, long long b) {
    const T x = value(a), y = value(b);
    const bool nx = x != x, ny = y != y;
    if (nx || ny) return descending ? (nx && !ny) : (!nx && ny);
    return descending ? x > y : x < y;
  });
  return pos;
}

bool same(float a, float b) {
  return (a != a && b != b) || a == b;
}

}  // namespace sort_on_host

using namespace sort_on_host;

TEST_CASE("sort along the last dim of an int64 tensor keeps tied values in their order",
          "[codegen]") {
  const auto g = sort_graph(
      "        sort = torch.ops.aten.sort.default(arg0_1)\n"
      "        values: \"i64[2, 7][7, 1]cuda:0\" = sort[0]\n"
      "        indices: \"i64[2, 7][7, 1]cuda:0\" = sort[1];  sort = None\n"
      "        return (values, indices)\n",
      "arg0_1: \"i64[2, 7][7, 1]cuda:0\"");
  const auto group = extern_group(g, "sort");
  REQUIRE(codegen::has_generated_kernel(g, group));
  const auto k = codegen::generate(g, group, {});
  INFO((k ? k->source : k.error().message));
  REQUIRE(k);
  CHECK(k->summary ==
        "sort 2 rows of 7 x i64, ascending, bitonic in shared memory, a block per row");
  REQUIRE(k->params.size() == 3);
  void* lib = test::build_on_host(*k, sort_dir());
  using Kernel = void (*)(const long long*, long long*, long long*);
  const auto run = reinterpret_cast<Kernel>(dlsym(lib, k->entry.c_str()));
  REQUIRE(run);
  const std::vector<long long> x = {3, 1, 3, -2, 1, 7, 3, 0, 0, 5, -1, 0, 5, 2};
  std::vector<long long> values(14, -99), indices(14, -99);
  run(x.data(), values.data(), indices.data());
  for (std::size_t r = 0; r < 2; ++r) {
    const auto want = reference_order<long long>(
        7, [&](long long p) { return x[r * 7 + static_cast<std::size_t>(p)]; }, false);
    for (std::size_t j = 0; j < 7; ++j) {
      INFO("row " << r << " position " << j);
      CHECK(indices[r * 7 + j] == want[j]);
      CHECK(values[r * 7 + j] == x[r * 7 + static_cast<std::size_t>(want[j])]);
    }
  }
  dlclose(lib);
}

TEST_CASE("sort descending along dim 0 puts NaN first and reads through strides", "[codegen]") {
  // x is [5, 3] stored column-major; the sort runs down each column.
  const auto g = sort_graph(
      "        sort = torch.ops.aten.sort.default(arg0_1, 0, True)\n"
      "        values: \"f32[5, 3][3, 1]cuda:0\" = sort[0]\n"
      "        indices: \"i64[5, 3][3, 1]cuda:0\" = sort[1];  sort = None\n"
      "        return (values, indices)\n",
      "arg0_1: \"f32[5, 3][1, 5]cuda:0\"");
  const auto k = codegen::generate(g, extern_group(g, "sort"), {});
  INFO((k ? k->source : k.error().message));
  REQUIRE(k);
  CHECK(k->summary ==
        "sort 3 rows of 5 x f32, descending, bitonic in shared memory, a block per row");
  void* lib = test::build_on_host(*k, sort_dir());
  using Kernel = void (*)(const float*, float*, long long*);
  const auto run = reinterpret_cast<Kernel>(dlsym(lib, k->entry.c_str()));
  REQUIRE(run);
  const float nan = std::nanf("");
  // Element (i, c) at c * 5 + i.
  const std::vector<float> x = {0.5f,  nan,  -1.0f, 0.5f,  2.0f,   // column 0
                                -0.0f, 0.0f, 3.0f,  nan,   nan,    // column 1
                                1.0f,  1.0f, 1.0f,  -4.0f, 1.0f};  // column 2
  std::vector<float> values(15, -99.0f);
  std::vector<long long> indices(15, -99);
  run(x.data(), values.data(), indices.data());
  for (std::size_t c = 0; c < 3; ++c) {
    const auto want = reference_order<float>(
        5, [&](long long p) { return x[c * 5 + static_cast<std::size_t>(p)]; }, true);
    for (std::size_t i = 0; i < 5; ++i) {
      INFO("column " << c << " position " << i);
      CHECK(indices[i * 3 + c] == want[i]);
      CHECK(same(values[i * 3 + c], x[c * 5 + static_cast<std::size_t>(want[i])]));
    }
  }
  dlclose(lib);
}

TEST_CASE("topk keeps the first k of ATen's order, largest or smallest", "[codegen]") {
  for (const bool largest : {true, false}) {
    const std::string call = largest ? "torch.ops.aten.topk.default(arg0_1, 3)"
                                     : "torch.ops.aten.topk.default(arg0_1, 3, -1, False)";
    const auto g = sort_graph("        topk = " + call +
                                  "\n"
                                  "        values: \"f32[4, 3][3, 1]cuda:0\" = topk[0]\n"
                                  "        indices: \"i64[4, 3][3, 1]cuda:0\" = topk[1]\n"
                                  "        return (values, indices)\n",
                              "arg0_1: \"f32[4, 9][9, 1]cuda:0\"");
    const auto k = codegen::generate(g, extern_group(g, "topk"), {});
    INFO((k ? k->source : k.error().message));
    REQUIRE(k);
    CHECK(k->summary == std::string("topk 3 of 4 rows of 9 x f32, ") +
                            (largest ? "descending" : "ascending") +
                            ", bitonic in shared memory, a block per row");
    void* lib = test::build_on_host(*k, sort_dir());
    using Kernel = void (*)(const float*, float*, long long*);
    const auto run = reinterpret_cast<Kernel>(dlsym(lib, k->entry.c_str()));
    REQUIRE(run);
    std::vector<float> x(36);
    for (std::size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>((i * 5 + 2) % 7) - 3.0f;
    x[10] = std::nanf("");
    std::vector<float> values(12, -99.0f);
    std::vector<long long> indices(12, -99);
    run(x.data(), values.data(), indices.data());
    for (std::size_t r = 0; r < 4; ++r) {
      const auto want = reference_order<float>(
          9, [&](long long p) { return x[r * 9 + static_cast<std::size_t>(p)]; }, largest);
      for (std::size_t j = 0; j < 3; ++j) {
        INFO("largest " << largest << " row " << r << " position " << j);
        CHECK(indices[r * 3 + j] == want[j]);
        CHECK(same(values[r * 3 + j], x[r * 9 + static_cast<std::size_t>(want[j])]));
      }
    }
    dlclose(lib);
  }
}

TEST_CASE("a row longer than the shared-memory sort takes is refused, its size named",
          "[codegen]") {
  const auto g = sort_graph(
      "        sort = torch.ops.aten.sort.default(arg0_1)\n"
      "        values: \"f32[5000][1]cuda:0\" = sort[0]\n"
      "        return (values,)\n",
      "arg0_1: \"f32[5000][1]cuda:0\"");
  const auto k = codegen::generate(g, extern_group(g, "sort"), {});
  REQUIRE_FALSE(k);
  CHECK(k.error().message.find("rows of 5000 elements") != std::string::npos);
}

TEST_CASE("histc counts in-range elements into bins, max in the last", "[codegen]") {
  SECTION("int32, integer arithmetic") {
    const auto g = sort_graph(
        "        histc: \"i32[4][1]cuda:0\" = torch.ops.aten.histc.default(arg0_1, 4, 0, 3)\n"
        "        return (histc,)\n",
        "arg0_1: \"i32[13][1]cuda:0\"");
    const auto k = codegen::generate(g, extern_group(g, "histc"), {});
    INFO((k ? k->source : k.error().message));
    REQUIRE(k);
    CHECK(k->summary == "histc 13 x i32 into 4 bins, one block");
    CHECK(k->grid == 1);
    void* lib = test::build_on_host(*k, sort_dir());
    using Kernel = void (*)(const int*, int*);
    const auto run = reinterpret_cast<Kernel>(dlsym(lib, k->entry.c_str()));
    REQUIRE(run);
    const std::vector<int> x = {0, 1, 2, 3, 3, -1, 4, 2, 2, 1, 0, 7, 3};
    std::vector<int> out(4, -99);
    run(x.data(), out.data());
    std::vector<int> want(4, 0);
    for (const int v : x) {
      if (v < 0 || v > 3) continue;
      long long bin = static_cast<long long>(v - 0) * 4 / (3 - 0);
      if (bin == 4) bin -= 1;
      ++want[static_cast<std::size_t>(bin)];
    }
    for (std::size_t b = 0; b < 4; ++b) {
      INFO("bin " << b);
      CHECK(out[b] == want[b]);
    }
    dlclose(lib);
  }
  SECTION("float32 with NaN, which no bin counts") {
    const auto g = sort_graph(
        "        histc: \"f32[5][1]cuda:0\" = torch.ops.aten.histc.default(arg0_1, 5, -1.0, "
        "1.5)\n"
        "        return (histc,)\n",
        "arg0_1: \"f32[3, 4][4, 1]cuda:0\"");
    const auto k = codegen::generate(g, extern_group(g, "histc"), {});
    INFO((k ? k->source : k.error().message));
    REQUIRE(k);
    void* lib = test::build_on_host(*k, sort_dir());
    using Kernel = void (*)(const float*, float*);
    const auto run = reinterpret_cast<Kernel>(dlsym(lib, k->entry.c_str()));
    REQUIRE(run);
    const std::vector<float> x = {-1.0f, -0.5f, 0.0f,          0.49f, 0.5f,  1.5f,
                                  1.6f,  -2.0f, std::nanf(""), 1.0f,  0.99f, -0.01f};
    std::vector<float> out(5, -99.0f);
    run(x.data(), out.data());
    std::vector<float> want(5, 0.0f);
    for (const float v : x) {
      if (!(v >= -1.0f && v <= 1.5f)) continue;
      int bin = static_cast<int>((v - -1.0f) * 5 / (1.5f - -1.0f));
      if (bin == 5) bin -= 1;
      want[static_cast<std::size_t>(bin)] += 1.0f;
    }
    for (std::size_t b = 0; b < 5; ++b) {
      INFO("bin " << b);
      CHECK(out[b] == want[b]);
    }
    dlclose(lib);
  }
  SECTION("min == max takes the data's range: refused") {
    const auto g = sort_graph(
        "        histc: \"f32[10][1]cuda:0\" = torch.ops.aten.histc.default(arg0_1, 10)\n"
        "        return (histc,)\n",
        "arg0_1: \"f32[8][1]cuda:0\"");
    const auto k = codegen::generate(g, extern_group(g, "histc"), {});
    REQUIRE_FALSE(k);
    CHECK(k.error().message.find("min == max") != std::string::npos);
  }
}

TEST_CASE("a Triton sort stores its consumers: a cast and the scatter inverting the permutation",
          "[codegen]") {
  // Mixtral's router (ir.Sort with the int32 cast histc reads and inv_perm[perm] = arange fused
  // after it): each thread's sorted element feeds the epilogue from registers.
  const auto g = sort_graph(
      "        sort = torch.ops.aten.sort.default(arg0_1)\n"
      "        getitem: \"i64[8][1]cuda:0\" = sort[0]\n"
      "        getitem_1: \"i64[8][1]cuda:0\" = sort[1];  sort = None\n"
      "        convert_element_type: \"i32[8][1]cuda:0\" = "
      "torch.ops.prims.convert_element_type.default(getitem, torch.int32)\n"
      "        empty: \"i64[8][1]cuda:0\" = torch.ops.aten.empty.memory_format([8], dtype = "
      "torch.int64, device = device(type='cuda', index=0), pin_memory = False)\n"
      "        iota: \"i64[8][1]cuda:0\" = torch.ops.prims.iota.default(8, start = 0, step = 1, "
      "dtype = torch.int64, device = device(type='cuda', index=0), requires_grad = False)\n"
      "        index_put: \"i64[8][1]cuda:0\" = torch.ops.aten.index_put_.default(empty, "
      "[getitem_1], iota);  empty = iota = None\n"
      "        return (getitem, convert_element_type, index_put)\n",
      "arg0_1: \"i64[8][1]cuda:0\"");
  fusion::KernelGroup group;
  group.name = "triton_per_fused__to_copy_arange_index_put_sort_0";
  group.kind = fusion::GroupKind::persistent_reduction;
  for (const char* n : {"sort", "convert_element_type", "iota", "index_put"}) {
    group.nodes.push_back(*g.find(n));
  }
  std::sort(group.nodes.begin(), group.nodes.end());
  group.outputs = {*g.find("sort"), *g.find("convert_element_type"), *g.find("index_put")};
  const auto k = codegen::generate(g, group, {});
  INFO((k ? k->source : k.error().message));
  REQUIRE(k);
  const std::vector<long long> x = {3, 1, 3, 0, 2, 0, 1, 3};
  std::vector<long long> values(8, -99), positions(8, -99), inverse(8, -99);
  std::vector<int> as_int(8, -99);
  std::vector<void*> args;
  for (const codegen::KernelParam& p : k->params) {
    const std::string& name = g.node(p.node).name;
    INFO(name);
    if (name == "arg0_1") {
      args.push_back(const_cast<long long*>(x.data()));
    } else if (name == "getitem") {
      args.push_back(values.data());
    } else if (name == "getitem_1") {
      args.push_back(positions.data());
    } else if (name == "convert_element_type") {
      args.push_back(as_int.data());
    } else if (name == "index_put" || name == "empty") {
      args.push_back(inverse.data());
    } else {
      FAIL("an unexpected param " << name);
    }
  }
  REQUIRE(args.size() == 5);
  void* lib = test::build_on_host(*k, sort_dir());
  using Kernel = void (*)(void*, void*, void*, void*, void*);
  const auto run = reinterpret_cast<Kernel>(dlsym(lib, k->entry.c_str()));
  REQUIRE(run);
  run(args[0], args[1], args[2], args[3], args[4]);
  const auto want = reference_order<long long>(
      8, [&](long long p) { return x[static_cast<std::size_t>(p)]; }, false);
  for (std::size_t j = 0; j < 8; ++j) {
    INFO("position " << j);
    CHECK(positions[j] == want[j]);
    CHECK(values[j] == x[static_cast<std::size_t>(want[j])]);
    CHECK(as_int[j] == static_cast<int>(values[j]));
    CHECK(inverse[static_cast<std::size_t>(want[j])] == static_cast<long long>(j));
  }
  dlclose(lib);
}
