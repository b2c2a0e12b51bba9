// NVRTC needs no GPU: every generated kernel of the main samples compiles for sm_90 here, errors
// name the kernel and NVRTC's first error line, and the disk cache answers the second compile.

#include <unistd.h>
#include <catch2/catch.hpp>

#include <filesystem>
#include <iostream>
#include <set>

#include "../../codegen/codegen_samples.h"
#include "fxscope/codegen/kernel_codegen.h"
#include "fxscope/fusion/planner.h"
#include "fxscope/gpu/engine_compiler.h"
#include "fxscope/gpu/nvrtc_compiler.h"
#include "fxscope/graph/fx_readable_parser.h"

using namespace fxscope;

namespace {

// A cache directory of this test's own, removed at the end of the test.
struct TempCache {
  explicit TempCache(const std::string& name)
      : path(std::filesystem::temp_directory_path() /
             ("fxscope_nvrtc_" + name + "_" + std::to_string(::getpid()))) {
    std::filesystem::remove_all(path);
  }
  ~TempCache() {
    std::error_code ec;
    std::filesystem::remove_all(path, ec);
  }
  std::filesystem::path path;
};

}  // namespace

TEST_CASE("NVRTC compiles a kernel, caches it, and names the kernel in errors", "[nvrtc]") {
  TempCache cache("basic");
  gpu::NvrtcOptions options;
  options.cache_dir = cache.path.string();
  const std::string ok =
      "extern \"C\" __global__ void fx_twice(float* p) { p[threadIdx.x] *= 2.0f; }\n";
  const auto first = gpu::compile_cuda(ok, "fx_twice", options);
  REQUIRE(first);
  CHECK(!first->from_cache);
  CHECK(first->cubin.substr(1, 3) == "ELF");
  CHECK(std::filesystem::exists(first->cache_path));
  const auto second = gpu::compile_cuda(ok, "fx_twice", options);
  REQUIRE(second);
  CHECK(second->from_cache);
  CHECK(second->cubin == first->cubin);
  options.arch = "sm_80";  // another architecture is another cache entry
  const auto other = gpu::compile_cuda(ok, "fx_twice", options);
  REQUIRE(other);
  CHECK(!other->from_cache);
  CHECK(other->cache_path != first->cache_path);

  const auto bad = gpu::compile_cuda(
      "extern \"C\" __global__ void fx_bad(float* p) { p[0] = undefined_name; }\n", "fx_bad",
      options);
  REQUIRE(!bad);
  CHECK(bad.error().message.rfind("fx_bad: NVRTC: ", 0) == 0);
  CHECK(bad.error().message.find("undefined_name") != std::string::npos);
  CHECK(bad.error().message.find('\n') == std::string::npos);
}

TEST_CASE("every generated kernel of the main samples compiles for sm_90", "[nvrtc][codegen]") {
  TempCache cache("samples");
  gpu::NvrtcOptions options;
  options.cache_dir = cache.path.string();
  for (const std::string sample : {"residual_mlp", "pointwise_chain", "gpt2_2layer", "resnet18"}) {
    std::set<std::string> sources;  // layers repeat kernels: compile each source once
    std::size_t kernels = 0;
    for (const fusion::Mode mode : {fusion::Mode::eager, fusion::Mode::default_mode}) {
      for (const auto& p : test::planned_graphs(sample, mode)) {
        for (const auto& group : p.fusion.ours.groups) {
          codegen::CodegenOptions copts;
          copts.hints = p.hints;
          const auto kernel = codegen::generate(p.fusion.post_grad, group, copts);
          if (!kernel) continue;  // coverage is test_codegen's business
          ++kernels;
          if (!sources.insert(kernel->source).second) continue;
          const auto cubin = gpu::compile_cuda(kernel->source, kernel->entry, options);
          INFO(p.where << " " << group.name << "\n" << kernel->source);
          CHECK(cubin);
          if (!cubin) std::cout << cubin.error().message << "\n";
        }
      }
    }
    if (sample == std::string("residual_mlp")) {
      // The eager composites no sample's AOT graph holds.
      const graph::Graph g = test::composite_ops_graph();
      for (const auto& group : fusion::plan(g, fusion::Mode::eager).groups) {
        const auto kernel = codegen::generate(g, group, {});
        REQUIRE(kernel);
        ++kernels;
        sources.insert(kernel->source);
        const auto cubin = gpu::compile_cuda(kernel->source, kernel->entry, options);
        INFO(kernel->source);
        CHECK(cubin);
      }
    }
    std::cout << sample << ": " << kernels << " kernels, " << sources.size()
              << " distinct sources compiled for sm_90\n";
    CHECK(kernels > 0);
  }
}

TEST_CASE("every max-autotune tuning candidate of ResNet-18 and GPT-2 compiles for sm_90",
          "[nvrtc][codegen]") {
  // Each config is generated as given (a {256, 1, 1} candidate included, though it equals
  // LaunchConfig{}), so each must compile; a failing variant would only be left out of the
  // timing, and this says so here rather than in a run.
  TempCache cache("candidates");
  const gpu::EngineCompiler compiler("sm_90", cache.path.string());
  for (const std::string sample : {"resnet18", "gpt2_2layer"}) {
    std::vector<std::string> sources;
    std::set<std::string> seen;
    for (const auto& p : test::planned_graphs(sample, fusion::Mode::max_autotune)) {
      for (const auto& group : p.fusion.ours.groups) {
        if (!codegen::has_generated_kernel(p.fusion.post_grad, group)) continue;
        for (const auto& config : codegen::candidates(p.fusion.post_grad, group, p.hints)) {
          codegen::CodegenOptions copts;
          copts.hints = p.hints;
          copts.config = config;
          const auto kernel = codegen::generate(p.fusion.post_grad, group, copts);
          INFO(p.where << " " << group.name << " block " << config.block);
          REQUIRE(kernel);
          if (seen.insert(kernel->source).second) sources.push_back(kernel->source);
        }
      }
    }
    std::vector<const std::string*> all;
    for (const auto& s : sources) all.push_back(&s);
    compiler.precompile(all);
    std::size_t failed = 0;
    for (const auto& s : sources) {
      const auto cubin = compiler.compile(s, sample);
      if (!cubin) std::cout << cubin.error().message << "\n";
      failed += cubin ? 0u : 1u;
    }
    std::cout << sample << ": " << sources.size() << " distinct candidate kernels compiled\n";
    CHECK(sources.size() > 20);
    CHECK(failed == 0);
  }
}

TEST_CASE("kernels over more than 2^31 elements index with 64 bits and compile",
          "[nvrtc][codegen]") {
  const std::string code =
      "class GraphModule(torch.nn.Module):\n"
      "    def forward(self, arg0_1: \"f32[65536, 40000][40000, 1]cuda:0\"):\n"
      "        exp: \"f32[65536, 40000][40000, 1]cuda:0\" = torch.ops.aten.exp.default(arg0_1)\n"
      "        sum_1: \"f32[65536][1]cuda:0\" = torch.ops.aten.sum.dim_IntList(arg0_1, [1])\n"
      "        return (exp, sum_1)\n";
  const auto g = graph::parse_fx_readable(code, "big").graph;
  const auto plan = fusion::plan(g, fusion::Mode::default_mode);
  REQUIRE(!plan.groups.empty());
  TempCache cache("big");
  gpu::NvrtcOptions options;
  options.cache_dir = cache.path.string();
  for (const auto& group : plan.groups) {
    const auto kernel = codegen::generate(g, group, {});
    REQUIRE(kernel);
    CHECK(kernel->source.find("for (fx_i64 ") != std::string::npos);
    const auto cubin = gpu::compile_cuda(kernel->source, kernel->entry, options);
    INFO(kernel->source);
    CHECK(cubin);
  }
}

TEST_CASE(
    "precompiling on many threads gives compile() the same cubins and a failure keeps its group",
    "[nvrtc]") {
  TempCache cache("precompile");
  const gpu::EngineCompiler compiler("sm_90", cache.path.string());
  std::vector<std::string> sources;
  for (int k = 0; k < 6; ++k) {
    sources.push_back("extern \"C\" __global__ void fx_scale" + std::to_string(k) +
                      "(float* p) { p[threadIdx.x] *= " + std::to_string(k + 2) + ".0f; }\n");
  }
  const std::string bad = "extern \"C\" __global__ void fx_bad(float* p) { p[0] = nope; }\n";
  std::vector<const std::string*> all;
  for (const auto& s : sources) all.push_back(&s);
  all.push_back(&sources[0]);  // a source twice is compiled once
  all.push_back(&bad);
  std::vector<std::string> lines;
  compiler.precompile(
      all, [&](const std::string& line) { lines.push_back(line); }, 0.0);
  // A line as kernels finish (every 0 s here), the last for all of them: 7 distinct sources.
  REQUIRE_FALSE(lines.empty());
  CHECK_THAT(lines.back(), Catch::StartsWith("7 of 7 kernels compiled ("));
  // Every good source is now on disk, compiled by the threads (one cubin per source).
  std::size_t on_disk = 0;
  for (const auto& e : std::filesystem::directory_iterator(cache.path)) {
    on_disk += e.path().extension() == ".cubin";
  }
  CHECK(on_disk == sources.size());
  gpu::NvrtcOptions options;
  options.use_cache = false;
  for (std::size_t k = 0; k < sources.size(); ++k) {
    const auto got = compiler.compile(sources[k], "group " + std::to_string(k));
    const auto fresh = gpu::compile_cuda(sources[k], "fx_scale", options);
    REQUIRE(got);
    REQUIRE(fresh);
    CHECK(got->cubin == fresh->cubin);
    CHECK(got->entry == "fx_scale" + std::to_string(k));
  }
  const auto failed = compiler.compile(bad, "group 7 triton_poi_fused_bad");
  REQUIRE(!failed);
  CHECK(failed.error().message.find("group 7 triton_poi_fused_bad") != std::string::npos);
  CHECK(failed.error().message.find("nope") != std::string::npos);
}

TEST_CASE("llama's embedding + RMS norm kernels compile: a gather read again by a later pass",
          "[nvrtc][codegen]") {
  // The first pass makes a later pass's loads early; a gather's load is not among them, since its
  // index names the token id under a name only the rehearsal of that pass declared (these four
  // kernels failed to compile on the H200 when it was).
  TempCache cache("llama");
  gpu::NvrtcOptions options;
  options.cache_dir = cache.path.string();
  std::size_t gathers = 0;
  for (const auto& p : test::planned_graphs("llama_48layer", fusion::Mode::default_mode)) {
    for (const auto& group : p.fusion.ours.groups) {
      if (group.name.find("embedding") == std::string::npos) continue;
      codegen::CodegenOptions copts;
      copts.hints = p.hints;
      const auto kernel = codegen::generate(p.fusion.post_grad, group, copts);
      REQUIRE(kernel);
      ++gathers;
      const auto cubin = gpu::compile_cuda(kernel->source, kernel->entry, options);
      INFO(group.name << "\n" << kernel->source);
      CHECK(cubin);
      if (!cubin) std::cout << cubin.error().message << "\n";
    }
  }
  CHECK(gathers == 4);
}

TEST_CASE("eager var_mean over few long rows shares each row among a cluster's blocks",
          "[nvrtc][codegen]") {
  // pointwise_chain's 64 rows of 65,536: a block a row left 68 of 132 SMs idle. With clusters
  // (sm_90) two blocks share a row and combine through distributed shared memory.
  TempCache cache("cluster");
  gpu::NvrtcOptions options;
  options.cache_dir = cache.path.string();
  std::size_t shared_rows = 0;
  for (const auto& p : test::planned_graphs("pointwise_chain", fusion::Mode::eager)) {
    for (const auto& group : p.fusion.ours.groups) {
      if (group.name.find("var_mean") == std::string::npos) continue;
      codegen::CodegenOptions copts;
      copts.hints = p.hints;
      const auto plain = codegen::generate(p.fusion.post_grad, group, copts);
      copts.clusters = true;
      const auto kernel = codegen::generate(p.fusion.post_grad, group, copts);
      REQUIRE(plain);
      REQUIRE(kernel);
      INFO(kernel->source);
      CHECK(plain->cluster == 1);
      CHECK(plain->grid == 64);
      CHECK(kernel->cluster == 2);
      CHECK(kernel->grid == 128);
      CHECK(kernel->source.find("__cluster_dims__(2, 1, 1)") != std::string::npos);
      // Shifted sums (no division an element), combined across the cluster as sums.
      CHECK(kernel->source.find("fx_cluster_reduce(acc0, FxShiftedSum(), 2)") != std::string::npos);
      CHECK(kernel->source.find("= fx_welford_add(acc0") == std::string::npos);
      CHECK(kernel->source.find("lane == 0 && cpart == 0") != std::string::npos);
      const auto cubin = gpu::compile_cuda(kernel->source, kernel->entry, options);
      CHECK(cubin);
      if (!cubin) std::cout << cubin.error().message << "\n";
      ++shared_rows;
    }
  }
  CHECK(shared_rows == 1);
}

TEST_CASE(
    "kernels that differ only in names share one key and any other difference keeps them apart",
    "[gpu]") {
  const auto kernel = [](const std::string& entry, const std::string& a, const std::string& b,
                         const std::string& constant) {
    return "// fxscope: group 3 " + entry + "\n// params: " + a + ", " + b +
           "\nextern \"C\" __global__ void __launch_bounds__(256)\n" + entry + "(const float* p_" +
           a + ", float* p_" + b + ") {\n  const float v_" + a + "_0 = p_" + a +
           "[threadIdx.x];\n  p_" + b + "[threadIdx.x] = v_" + a + "_0 * " + constant + ";\n}\n";
  };
  const auto layer1 = gpu::kernel_key(kernel("fx_aten_mul_g3", "add_1", "mul_1", "2.0f"));
  const auto layer2 = gpu::kernel_key(kernel("fx_aten_mul_g40", "add_12", "mul_12", "2.0f"));
  CHECK(layer1.entry == "fx_aten_mul_g3");
  CHECK(layer2.entry == "fx_aten_mul_g40");
  CHECK(layer1.key == layer2.key);
  // Another constant, or the two buffers named alike (a different data flow), is another kernel.
  CHECK(gpu::kernel_key(kernel("fx_aten_mul_g3", "add_1", "mul_1", "3.0f")).key != layer1.key);
  CHECK(gpu::kernel_key(kernel("fx_aten_mul_g3", "add_1", "add_1", "2.0f")).key != layer1.key);
  // A source of several kernels is its own key, loaded under its own names.
  const std::string two =
      "extern \"C\" __global__ void a(float* p_x) {}\nextern \"C\" __global__ void b(float* p_x) "
      "{}\n";
  CHECK(gpu::kernel_key(two).key == two);
  CHECK(gpu::kernel_key(two).entry.empty());
}

TEST_CASE("a kernel that differs from one compiled only in names is not compiled again",
          "[nvrtc]") {
  TempCache cache("twins");
  const gpu::EngineCompiler compiler("sm_90", cache.path.string());
  const std::string first =
      "extern \"C\" __global__ void fx_add_g1(float* p_add_1) { p_add_1[threadIdx.x] += 1.0f; }\n";
  const std::string twin =
      "extern \"C\" __global__ void fx_add_g9(float* p_add_9) { p_add_9[threadIdx.x] += 1.0f; }\n";
  const auto a = compiler.compile(first, "group 1");
  const auto b = compiler.compile(twin, "group 9");
  REQUIRE(a);
  REQUIRE(b);
  CHECK(b->entry == "fx_add_g1");  // launched under the first one's name
  CHECK(b->cubin == a->cubin);
  CHECK(compiler.compiled() == 1);
}
