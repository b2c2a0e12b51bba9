#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include <limits>

#include "fxscope/export/chrome_trace.h"
#include "fxscope/gpu/engine_run.h"
#include "fxscope/report/run_result.h"

using namespace fxscope;

namespace {

gpu::EngineRun two_modes() {
  gpu::EngineRun run;
  run.device = "NVIDIA H200";
  run.unit = "0/0";
  run.copy_gbps = 4188;
  run.coverage = {10, 10, {}};
  gpu::EngineMode eager;
  eager.ran = true;
  eager.measured.mode = "eager";
  eager.measured.total_us = 100;
  report::RunKernel k;
  k.name = "fx_aten_add_g0";
  k.group = "aten.add";
  k.nodes = {"add"};
  k.us = 2.5;
  k.calls = 1;
  k.grid = {4, 1, 1};
  k.block = {256, 1, 1};
  eager.measured.kernels.push_back(k);
  eager.measured.timeline.push_back({"fx_aten_add_g0", 1000, 3500, {4, 1, 1}, {256, 1, 1}});
  gpu::EngineMode fused = eager;
  fused.measured.mode = "reduce-overhead";
  fused.cuda_graph = true;
  fused.max_rel_err = std::numeric_limits<double>::infinity();
  fused.rel_errs = {std::numeric_limits<double>::infinity()};
  fused.flagged = true;
  run.modes = {eager, fused};
  return run;
}

}  // namespace

TEST_CASE("engine JSON has the PyTorch backend's fields plus its own", "[gpu]") {
  const auto j = gpu::to_json(two_modes());
  CHECK(j["backend"] == "engine");
  CHECK(j["device"] == "NVIDIA H200");
  CHECK(j["unit"] == "0/0");
  CHECK(j["coverage"]["text"] == "10 of 10 ops");
  CHECK_FALSE(j.contains("torch_version"));
  REQUIRE(j["modes"].size() == 2);
  const auto& m = j["modes"][1];
  CHECK(m["mode"] == "reduce-overhead");
  CHECK(m["total_us"] == 100.0);
  for (const char* key : {"total_min_us", "total_max_us", "launches", "kernel_us", "peak_bytes",
                          "host_launch_us", "bandwidth", "picks"}) {
    CHECK(m.contains(key));
  }
  // An infinite error (NaN on one side) is null in JSON, and flagged.
  CHECK(m["max_rel_err"].is_null());
  CHECK(m["rel_errs"][0].is_null());
  CHECK(m["flagged"] == true);
  const auto& k = m["kernels"][0];
  CHECK(k["name"] == "fx_aten_add_g0");
  CHECK(k["group"] == "aten.add");
  CHECK(k["nodes"][0] == "add");
  CHECK(k["grid"][0] == 4);
}

TEST_CASE("engine JSON says which kernels are held to the bandwidth target", "[gpu]") {
  auto run = two_modes();
  gpu::KernelBandwidth big;
  big.name = "fx_aten_add_g0";
  big.bytes = 33.5e6;
  big.gbps = 3000;
  big.share_of_copy = 3000.0 / 4188;
  big.same_size_copy_us = 9.0;
  big.share_of_same_size_copy = 0.8;
  big.same_size_copy_kernel_us = 9.5;
  big.share_of_same_size_copy_kernel = 0.85;
  big.held_to_target = true;
  big.meets_target = true;
  run.modes[1].bandwidth = {big};
  const auto j = gpu::to_json(run);
  // Held: kernels moving at least 1 MiB, judged against a copy kernel of their own size.
  CHECK(j["bandwidth_target"]["share"] == gpu::kBandwidthTarget);
  CHECK(j["bandwidth_target"]["reference"] == "same_size_copy_kernel");
  CHECK(j["bandwidth_target"]["min_bytes"].get<double>() == Approx(1 << 20));
  const auto& b = j["modes"][1]["bandwidth"][0];
  CHECK(b["name"] == "fx_aten_add_g0");
  CHECK(b["held_to_target"] == true);
  CHECK(b["meets_target"] == true);
  CHECK(b["bound"] == "memory");
  CHECK(b["same_size_copy_us"].get<double>() == Approx(9.0));
  CHECK(b["share_of_same_size_copy"].get<double>() == Approx(0.8));
  CHECK(b["share_of_same_size_copy_kernel"].get<double>() == Approx(0.85));
  // Read back, the share the target judged is the copy kernel's.
  const auto read = report::parse_run_result(j.dump(), "run.json");
  REQUIRE(read);
  const report::RunMode* mode = read->find_mode("reduce-overhead");
  REQUIRE(mode);
  REQUIRE(mode->kernels.size() == 1);
  REQUIRE(mode->kernels[0].bandwidth);
  CHECK(mode->kernels[0].bandwidth->judged_share == Approx(0.85));
  CHECK(mode->kernels[0].bandwidth->judged_against == "copy kernel");

  SECTION("a copy timed in the kernel's place is named with where it ran, beside the alone one") {
    run.modes[1].bandwidth[0].reference_place = "after group 4 mm (GEMM), in the CUDA graph";
    run.modes[1].bandwidth[0].alone_copy_kernel_us = 7.5;
    const auto placed = gpu::to_json(run);
    CHECK(placed["bandwidth_target"]["place"] == "in_place");
    const auto& pb = placed["modes"][1]["bandwidth"][0];
    CHECK(pb["reference_place"] == "after group 4 mm (GEMM), in the CUDA graph");
    CHECK(pb["alone_copy_kernel_us"].get<double>() == Approx(7.5));
    const auto back = report::parse_run_result(placed.dump(), "run.json");
    REQUIRE(back);
    const report::RunBandwidth& bw = *back->find_mode("reduce-overhead")->kernels[0].bandwidth;
    CHECK(bw.judged_against == "copy kernel in its place");
    CHECK(bw.reference_place == "after group 4 mm (GEMM), in the CUDA graph");
    CHECK(bw.alone_copy_kernel_us == Approx(7.5));
    CHECK(bw.same_size_copy_kernel_us == Approx(9.5));
  }
  SECTION("a copy that could not be timed in place says why and is judged as the copy alone") {
    run.modes[1].bandwidth[0].reference_place = "alone: the first step";
    const auto back = report::parse_run_result(gpu::to_json(run).dump(), "run.json");
    REQUIRE(back);
    CHECK(back->find_mode("reduce-overhead")->kernels[0].bandwidth->judged_against ==
          "copy kernel");
  }
}

TEST_CASE("engine JSON marks a compute-bound kernel and the ALU rate it was judged by", "[gpu]") {
  auto run = two_modes();
  run.alu_slots_per_us = 132.0 * 128 * 1980;
  gpu::KernelBandwidth chain;
  chain.name = "fx_aten_add_g0";
  chain.bytes = 34.1e6;
  chain.gbps = 2010;
  chain.share_of_copy = 0.48;
  chain.alu_us = 14.2;
  chain.compute_bound = true;
  run.modes[1].bandwidth = {chain};
  const auto j = gpu::to_json(run);
  CHECK(j["bandwidth_target"]["alu_slots_per_us"].get<double>() == Approx(132.0 * 128 * 1980));
  const auto& b = j["modes"][1]["bandwidth"][0];
  CHECK(b["bound"] == "compute");
  CHECK(b["alu_us"].get<double>() == Approx(14.2));
  CHECK(b["held_to_target"] == false);
  // What the app reads back is what was written.
  const auto back = report::parse_run_result(j.dump(), "run.json");
  REQUIRE(back.ok());
  const report::RunMode* mode = back->find_mode("reduce-overhead");
  REQUIRE(mode);
  REQUIRE(mode->kernels.size() == 1);
  REQUIRE(mode->kernels[0].bandwidth);
  CHECK(mode->kernels[0].bandwidth->compute_bound);
  CHECK(mode->kernels[0].bandwidth->alu_us == Approx(14.2));
}

TEST_CASE("the engine's Chrome trace names the engine and lays out the first call", "[gpu]") {
  const auto t = exporting::chrome_trace_from_run(gpu::run_result(two_modes()));
  std::size_t named = 0;
  std::size_t spans = 0;
  for (const auto& e : t["traceEvents"]) {
    if (e["ph"] == "M" && e["name"] == "process_name") {
      CHECK_THAT(e["args"]["name"].get<std::string>(),
                 Catch::Contains("(engine: the first call's kernels)"));
      ++named;
    }
    if (e["ph"] == "X") CHECK(e["dur"] == 2.5);  // the launch's CUPTI time, 1000 to 3500 ns
    if (e["ph"] == "X") ++spans;
  }
  CHECK(named == 2);
  CHECK(spans == 2);
}
