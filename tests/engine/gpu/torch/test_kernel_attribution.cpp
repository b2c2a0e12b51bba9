#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <set>

#include "fxscope/export/chrome_trace.h"
#include "fxscope/gpu/kernel_attribution.h"
#include "fxscope/gpu/torch_run.h"
#include "fxscope/trace/trace_log.h"
#include "samples.h"

using namespace fxscope;

namespace {

gpu::KernelIndex residual_mlp_index() {
  auto log = trace::read_trace(test::sample("residual_mlp"));
  REQUIRE(log);
  gpu::KernelIndex index;
  for (const auto& unit : log->units()) {
    index.add_unit(unit);
    index.add_dynamo_map(unit);
  }
  return index;
}

gpu::KernelRecord kernel(const std::string& name, std::uint64_t start, std::uint32_t correlation,
                         std::uint32_t graph = 0) {
  gpu::KernelRecord k;
  k.name = name;
  k.start = start;
  k.end = start + 1000;
  k.correlation = correlation;
  k.graph = graph;
  return k;
}

// One repeat of residual_mlp compiled: cuBLAS for addmm (two kernels: split-K and its reduce),
// cuBLAS for mm, then Inductor's fused epilogue.
gpu::CuptiRecords compiled_repeat(std::uint32_t graph) {
  gpu::CuptiRecords r;
  r.ranges.push_back({"fxscope:default:0", 0, 100});
  r.kernels = {kernel("nvjet_sm90_tst_splitk", 200, 1, graph),
               kernel("cublasLt::splitKreduce_kernel", 1300, 2, graph),
               kernel("nvjet_sm90_tst_mm", 2400, 3, graph),
               kernel("triton_poi_fused_add_addmm_gelu_mul_0", 3500, 4, graph)};
  for (std::uint32_t c = 1; c <= 4; ++c) r.launch_start[c] = 10 * c;
  return r;
}

}  // namespace

TEST_CASE("Inductor kernels of the real residual_mlp log map to their post-grad nodes", "[gpu]") {
  const auto index = residual_mlp_index();
  REQUIRE(index.plans.size() == 1);
  const auto it = index.by_name.find("triton_poi_fused_add_addmm_gelu_mul_0");
  REQUIRE(it != index.by_name.end());
  REQUIRE(it->second.size() == 1);
  const auto& pk = index.plans[it->second[0].plan].kernels[it->second[0].kernel];
  CHECK_FALSE(pk.is_extern);
  CHECK(pk.nodes.size() == 8);
  CHECK(std::count(pk.nodes.begin(), pk.nodes.end(), "erf") == 1);
}

TEST_CASE("compiled kernels attribute by name, library kernels by launch order", "[gpu]") {
  const auto m =
      gpu::attribute_mode("default", "fxscope:default:", compiled_repeat(0), residual_mlp_index());
  CHECK(m.repeats == 1);
  CHECK(m.launches == Approx(4.0));
  CHECK(m.kernel_us == Approx(4.0));
  CHECK(m.attributed_share() == Approx(1.0));
  REQUIRE(m.kernels.size() == 4);
  CHECK(m.kernels[0].group == "extern_kernels.addmm");
  CHECK(m.kernels[1].group == "extern_kernels.addmm");  // the split-K reduce of the same call
  CHECK(m.kernels[2].group == "extern_kernels.mm");
  CHECK(m.kernels[2].nodes == std::vector<std::string>{"mm_default"});
  CHECK(m.kernels[3].group == "triton_poi_fused_add_addmm_gelu_mul_0");
}

TEST_CASE("under CUDA graphs, kernels outside the graph stay unattributed", "[gpu]") {
  auto records = compiled_repeat(7);
  records.kernels.insert(records.kernels.begin(), kernel("elementwise_copy", 100, 5));
  records.launch_start[5] = 5;
  const auto m =
      gpu::attribute_mode("reduce-overhead", "fxscope:default:", records, residual_mlp_index());
  CHECK(m.cuda_graph_launches == Approx(4.0));
  CHECK(m.kernels[0].group.empty());
  CHECK(m.kernels[1].group == "extern_kernels.addmm");
  CHECK(m.attributed_share() == Approx(0.8));
}

TEST_CASE("CUDA graph input copies attribute to the inputs the driver's range names", "[gpu]") {
  auto records = compiled_repeat(7);
  records.ranges.push_back({"fxscope-copy:arg2_1,arg4_1", 3, 8});
  records.kernels.insert(records.kernels.begin(), kernel("elementwise_copy", 100, 5));
  records.launch_start[5] = 5;
  const auto m =
      gpu::attribute_mode("reduce-overhead", "fxscope:default:", records, residual_mlp_index());
  REQUIRE(m.kernels.size() == 5);
  CHECK(m.kernels[0].group == gpu::kCudaGraphInputCopy);
  CHECK(m.kernels[0].nodes == std::vector<std::string>{"arg2_1", "arg4_1"});
  // The inputs pair with the Dynamo graph's inputs by position: x and linear2's bias.
  CHECK(m.kernels[0].dynamo_nodes ==
        std::vector<std::string>{"L_self_modules_linear2_parameters_bias_", "L_x_"});
  CHECK(m.kernels[1].group == "extern_kernels.addmm");
  CHECK(m.attributed_share() == Approx(1.0));
}

TEST_CASE("the RNG seeds call and the graph replay's generator fills go to the seeds node",
          "[gpu]") {
  // residual_mlp_train's forward (dropout): as the H200 ran it under reduce-overhead.
  auto log = trace::read_trace(test::sample("residual_mlp_train"));
  REQUIRE(log);
  gpu::KernelIndex index;
  index.add_unit(log->units().front());
  CHECK(index.rng_nodes == std::vector<std::string>{"inductor_seeds_default"});
  const auto randint = index.by_name.find("aten.randint.low_out");
  REQUIRE(randint != index.by_name.end());
  const gpu::PlanPlace at = randint->second.front();
  CHECK(index.plans[at.plan].kernels[at.kernel].nodes == index.rng_nodes);
  // The capture's launch order: cuBLAS, the seeds' randint, the dropout kernel.
  gpu::CuptiRecords r;
  r.ranges.push_back({"fxscope:reduce-overhead:0", 0, 10000});
  const std::string fill =
      "void at::native::vectorized_elementwise_kernel<2, at::native::FillFunctor<long>, "
      "std::array<char*, 1ul> >";
  r.kernels = {kernel(fill, 100, 1), kernel(fill, 1200, 2),
               kernel("sm80_xmma_gemm_f32f32_f32f32_f32_tn_n", 2300, 3, 7),
               kernel("void at::native::distribution_elementwise_grid_stride_kernel", 3400, 4, 7),
               kernel("triton_poi_fused_addmm_native_dropout_0", 4500, 5, 7)};
  const auto m = gpu::attribute_mode("reduce-overhead", "fxscope:reduce-overhead:", r, index);
  REQUIRE(m.kernels.size() == 4);
  CHECK(m.kernels[0].group == gpu::kCudaGraphRngState);
  CHECK(m.kernels[0].nodes == index.rng_nodes);
  CHECK(m.kernels[0].calls == 2.0);
  CHECK(m.kernels[1].group == "extern_kernels.mm");
  CHECK(m.kernels[2].group == "aten.randint.low_out");
  CHECK(m.attributed_share() == Approx(1.0));
}

TEST_CASE("compiled kernels map on to the Dynamo nodes of the real log", "[gpu]") {
  const auto index = residual_mlp_index();
  // Inductor's provenance mapping names the Dynamo op each post-grad node comes from.
  const auto erf = index.dynamo_of.find("erf");
  REQUIRE(erf != index.dynamo_of.end());
  CHECK(erf->second == std::vector<std::string>{"gelu"});
  const auto both = index.dynamo_nodes({"mm_default", "erf"});
  CHECK(both.size() == 2);
  CHECK(std::count(both.begin(), both.end(), "gelu") == 1);
  const auto m = gpu::attribute_mode("default", "fxscope:default:", compiled_repeat(0), index);
  CHECK(m.dynamo_share() == Approx(1.0));
  CHECK_FALSE(m.kernels[3].dynamo_nodes.empty());
  CHECK(gpu::KernelIndex{}.dynamo_nodes({"erf"}).empty());
}

TEST_CASE("eager kernels attribute to the op whose NVTX range launched them", "[gpu]") {
  gpu::CuptiRecords r;
  r.ranges = {
      {"fxscope:eager:0", 0, 100}, {"fxscope-op:1:addmm", 10, 20}, {"fxscope-op:6:erf", 30, 40}};
  r.kernels = {kernel("gemm", 500, 1), kernel("erf_kernel", 1600, 2), kernel("stray", 2700, 3)};
  r.launch_start = {{1, 15}, {2, 35}, {3, 90}};
  const auto m = gpu::attribute_mode("eager", "fxscope:eager:", r, gpu::KernelIndex{});
  REQUIRE(m.kernels.size() == 3);
  CHECK(m.kernels[0].nodes == std::vector<std::string>{"addmm"});
  CHECK(m.kernels[1].nodes == std::vector<std::string>{"erf"});
  CHECK(m.kernels[2].nodes.empty());
  CHECK(m.attributed_share() == Approx(2.0 / 3.0));
}

TEST_CASE("a run is assembled from the driver's JSON and the records", "[gpu]") {
  const std::string driver =
      "compile noise\n"
      R"({"torch_version":"2.11.0","device":"NVIDIA H200","unit":"0/0","modes":[)"
      R"({"mode":"default","repeats":1,"range":"fxscope:default:",)"
      R"("total_us":{"median":12.5,"min":12.0,"max":14.0}}]})";
  auto run = gpu::assemble_run(driver, compiled_repeat(0), residual_mlp_index());
  REQUIRE(run);
  const auto j = report::to_json(*run);
  CHECK(j["backend"] == "pytorch");
  CHECK(j["device"] == "NVIDIA H200");
  CHECK(j["modes"][0]["total_us"] == 12.5);
  CHECK(j["modes"][0]["attributed_share"] == 1.0);
  CHECK(j["modes"][0]["kernels"][3]["nodes"].size() == 8);
  const auto trace = exporting::chrome_trace_from_run(*run);
  std::size_t launches = 0;
  for (const auto& e : trace["traceEvents"]) {
    launches += e["ph"] == "X" ? 1U : 0U;
  }
  CHECK(launches == 4);  // the first call's kernels, as launched
  CHECK_FALSE(gpu::assemble_run("Traceback: boom\n", {}, {}));
}

TEST_CASE("library kernels follow the plan of the compile whose kernels ran", "[gpu]") {
  // The capture was max-autotune (a GEMM template first); the run is default (cuBLAS first).
  gpu::KernelIndex index;
  index.plans = {{{{"triton_tem_fused_addmm_permute_0", {"addmm"}, false},
                   {"extern_kernels.mm", {"mm_default"}, true},
                   {"triton_poi_fused_add_addmm_erf_mul_1", {"mul"}, false}},
                  "max-autotune",
                  false},
                 {{{"extern_kernels.addmm", {"addmm"}, true},
                   {"extern_kernels.mm", {"mm_default"}, true},
                   {"triton_poi_fused_add_addmm_erf_mul_0", {"mul"}, false}},
                  "default",
                  false}};
  index.by_name = {{"triton_tem_fused_addmm_permute_0", {{0, 0}}},
                   {"triton_poi_fused_add_addmm_erf_mul_1", {{0, 2}}},
                   {"triton_poi_fused_add_addmm_erf_mul_0", {{1, 2}}}};
  gpu::CuptiRecords r;
  r.ranges.push_back({"fxscope:default:0", 0, 100});
  r.kernels = {kernel("sm80_xmma_gemm", 200, 1), kernel("sm80_xmma_gemm", 1300, 2),
               kernel("triton_poi_fused_add_addmm_erf_mul_0", 2400, 3)};
  r.launch_start = {{1, 10}, {2, 20}, {3, 30}};
  const auto m = gpu::attribute_mode("default", "fxscope:default:", r, index);
  REQUIRE(m.kernels.size() == 3);
  CHECK(m.kernels[0].group == "extern_kernels.addmm");
  CHECK(m.kernels[1].group == "extern_kernels.mm");
  CHECK(m.attributed_share() == Approx(1.0));
}

namespace {

// An index of PLANS with by_name filled as add_unit fills it.
gpu::KernelIndex index_of(std::vector<gpu::KernelPlan> plans) {
  gpu::KernelIndex index;
  index.plans = std::move(plans);
  for (std::size_t p = 0; p < index.plans.size(); ++p) {
    for (std::size_t k = 0; k < index.plans[p].kernels.size(); ++k) {
      index.by_name[index.plans[p].kernels[k].name].push_back({p, k});
    }
  }
  return index;
}

// One repeat of NAMES launched in order, 1 us each.
gpu::CuptiRecords repeat_of(const std::string& range, const std::vector<std::string>& names) {
  gpu::CuptiRecords r;
  r.ranges.push_back({range, 0, 100000});
  for (std::size_t i = 0; i < names.size(); ++i) {
    r.kernels.push_back(kernel(names[i], 200 + 1100 * i, static_cast<std::uint32_t>(i + 1)));
  }
  return r;
}

}  // namespace

TEST_CASE("library kernels follow the compile whose launch sequence matches theirs", "[gpu]") {
  // The capture and the driver's default compile launch cuBLAS for both GEMMs; the driver's
  // max-autotune compile copies the bias first (a library kernel too). All name the epilogue alike
  // (the known gap: the capture's plan was taken, the copy went to addmm and both GEMMs to mm).
  const gpu::KernelPlan cublas{{{"extern_kernels.addmm", {"addmm"}, true},
                                {"extern_kernels.mm", {"mm_default"}, true},
                                {"triton_poi_fused_epilogue_0", {"mul"}, false}},
                               "max-autotune",
                               false};
  gpu::KernelPlan driver_default = cublas;
  driver_default.mode = "default";
  driver_default.driver = true;
  driver_default.kernels[1].nodes = {"mm"};  // the driver's post-grad graph names nodes its own way
  const gpu::KernelPlan driver_autotune{{{"aten.copy_", {"bias_copy"}, true},
                                         {"extern_kernels.addmm", {"addmm"}, true},
                                         {"extern_kernels.mm", {"mm_default"}, true},
                                         {"triton_poi_fused_epilogue_0", {"mul"}, false}},
                                        "max-autotune",
                                        true};
  const auto index = index_of({cublas, driver_default, driver_autotune});
  const auto records = repeat_of("fxscope:max-autotune:0",
                                 {"copy_kernel", "gemm", "gemm", "triton_poi_fused_epilogue_0"});
  const auto m = gpu::attribute_mode("max-autotune", "fxscope:max-autotune:", records, index);
  REQUIRE(m.kernels.size() == 4);
  CHECK(m.kernels[0].group == "aten.copy_");
  CHECK(m.kernels[1].nodes == std::vector<std::string>{"addmm"});
  CHECK(m.kernels[2].nodes == std::vector<std::string>{"mm_default"});
  // Default mode's launches match the capture and the driver's default compile alike: the
  // capture's plan names the user's nodes.
  const auto d = gpu::attribute_mode(
      "default", "fxscope:default:",
      repeat_of("fxscope:default:0", {"gemm", "gemm", "triton_poi_fused_epilogue_0"}), index);
  REQUIRE(d.kernels.size() == 3);
  CHECK(d.kernels[0].group == "extern_kernels.addmm");
  CHECK(d.kernels[1].nodes == std::vector<std::string>{"mm_default"});
}

TEST_CASE("without the driver's compile, the plan that explains the launches best is walked",
          "[gpu]") {
  // Two captures name the epilogue alike; only the second launches a library kernel first.
  const auto index = index_of(
      {{{{"triton_poi_fused_epilogue_0", {"mul"}, false}, {"extern_kernels.mm", {"mm"}, true}},
        "",
        false},
       {{{"extern_kernels.addmm", {"addmm"}, true},
         {"triton_poi_fused_epilogue_0", {"mul"}, false},
         {"extern_kernels.mm", {"mm"}, true}},
        "",
        false}});
  const auto m = gpu::attribute_mode(
      "default", "fxscope:default:",
      repeat_of("fxscope:default:0", {"gemm_a", "triton_poi_fused_epilogue_0", "gemm_b"}), index);
  REQUIRE(m.kernels.size() == 3);
  CHECK(m.kernels[0].nodes == std::vector<std::string>{"addmm"});
  CHECK(m.kernels[2].nodes == std::vector<std::string>{"mm"});
  CHECK(m.attributed_share() == Approx(1.0));
}

TEST_CASE("a kernel launched several times takes its next place in the plan", "[gpu]") {
  // As a transformer's layers launch one layer-norm kernel each, with a GEMM after each.
  const auto index = index_of({{{{"triton_per_fused_layer_norm_0", {"ln_1"}, false},
                                 {"extern_kernels.mm", {"mm_1"}, true},
                                 {"triton_per_fused_layer_norm_0", {"ln_2"}, false},
                                 {"extern_kernels.mm", {"mm_2"}, true}},
                                "default",
                                false}});
  const auto m = gpu::attribute_mode(
      "default", "fxscope:default:",
      repeat_of("fxscope:default:0", {"triton_per_fused_layer_norm_0", "gemm",
                                      "triton_per_fused_layer_norm_0", "gemm2"}),
      index);
  // One entry per layer: each layer's time stays on its own nodes.
  REQUIRE(m.kernels.size() == 4);
  CHECK(m.kernels[0].nodes == std::vector<std::string>{"ln_1"});
  CHECK(m.kernels[1].nodes == std::vector<std::string>{"mm_1"});
  CHECK(m.kernels[2].nodes == std::vector<std::string>{"ln_2"});
  CHECK(m.kernels[2].calls == 1.0);
  CHECK(m.kernels[3].nodes == std::vector<std::string>{"mm_2"});
}

TEST_CASE("a captured compile's mode is read from its runnable's Inductor config", "[gpu]") {
  const auto mode_of = [](const std::string& sample) {
    auto log = trace::read_trace(test::sample(sample));
    REQUIRE(log);
    gpu::KernelIndex index;
    index.add_unit(log->units().front());
    REQUIRE_FALSE(index.plans.empty());
    CHECK_FALSE(index.plans.front().driver);
    return index.plans.front().mode;
  };
  CHECK(mode_of("max_autotune_mlp") == "max-autotune");
  CHECK(mode_of("residual_mlp") == "default");
  CHECK(mode_of("reduce_overhead_dynamic") == "reduce-overhead");
}

TEST_CASE("the driver's own compile takes the captured graph's node names", "[gpu]") {
  // gpt2_2layer's capture (default) and the driver's max-autotune compile of its runnable, as the
  // H200 saved it: the driver's Dynamo orders the inputs by first use (its arg0_1 is the
  // capture's arg1_1), so its post-grad nodes are named apart from the capture's.
  auto capture = trace::read_trace(test::sample("gpt2_2layer"));
  auto driver = trace::read_trace(test::data("runs/gpt2_2layer_max-autotune_h200_work_dir/trace"));
  REQUIRE(capture);
  REQUIRE(driver);
  gpu::KernelIndex index;
  index.add_unit(capture->units().front());
  for (const auto& unit : driver->units()) index.add_unit(unit, /*driver=*/true);
  REQUIRE(index.plans.size() == 2);
  CHECK(index.plans[1].driver);
  CHECK(index.plans[1].mode == "max-autotune");
  std::set<std::vector<std::string>> captured;
  for (auto k : index.plans[0].kernels) {
    std::sort(k.nodes.begin(), k.nodes.end());
    captured.insert(k.nodes);
  }
  std::size_t same = 0;
  std::size_t externs = 0;
  for (auto k : index.plans[1].kernels) {
    std::sort(k.nodes.begin(), k.nodes.end());
    const bool found = captured.count(k.nodes) > 0;
    same += found;
    if (k.is_extern) {
      ++externs;
      CHECK(found);
    }
  }
  // The templates fuse GEMMs with their neighbours, which the default capture does not: those
  // kernels have node sets of their own; the rest are the capture's (7 of 19 by the driver's own
  // names).
  CHECK(externs == 5);
  CHECK(same == 13);
}
