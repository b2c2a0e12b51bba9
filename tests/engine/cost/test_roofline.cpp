#include <catch2/catch.hpp>

#include "fxscope/cost/device_spec.h"
#include "fxscope/cost/roofline.h"

using namespace fxscope::cost;

namespace {

DeviceSpec h200() {
  auto d = find_device("h200");
  REQUIRE(d.has_value());
  return *d;
}

}  // namespace

TEST_CASE("the shipped devices include the four the issue names", "[cost]") {
  for (const char* name : {"H200", "H100", "A100", "V100"}) {
    INFO(name);
    const auto d = find_device(name);
    REQUIRE(d.has_value());
    CHECK(d->memory_bandwidth_gbs > 0);
    CHECK(d->fp32_tflops > 0);
    CHECK_FALSE(d->source.empty());
  }
  CHECK_FALSE(find_device("TPUv5").has_value());
  // The H200 is an H100 with faster memory.
  CHECK(find_device("H200")->bf16_tflops == find_device("H100")->bf16_tflops);
  CHECK(find_device("H200")->memory_bandwidth_gbs > find_device("H100")->memory_bandwidth_gbs);
}

TEST_CASE("a large elementwise kernel is bound by memory bandwidth", "[cost]") {
  // 64 x 65536 fp32 in and out: 33.5 MB at 4.8 TB/s * 0.85.
  const KernelWork add{"add", WorkClass::elementwise, 2 * 64 * 65536 * 4.0, 64 * 65536.0,
                       Precision::fp32};
  const auto c = predict_kernel(add, h200(), LaunchMode::host);
  CHECK(c.memory_bound);
  CHECK(c.memory_us == Approx(33554432.0 / (4800 * 0.85 * 1e3)));
  CHECK(c.overhead_us == 0);  // 8 us of work hides a 5 us launch
  CHECK(c.total_us == Approx(c.memory_us));
}

TEST_CASE("a large GEMM is bound by compute at the precision's peak", "[cost]") {
  const double n = 8192;
  KernelWork mm{"mm", WorkClass::gemm_conv, 3 * n * n * 2, 2 * n * n * n, Precision::bf16};
  const auto bf16 = predict_kernel(mm, h200(), LaunchMode::host);
  CHECK_FALSE(bf16.memory_bound);
  CHECK(bf16.compute_us == Approx(2 * n * n * n / (989 * 0.7 * 1e6)));
  mm.precision = Precision::fp32;
  const auto fp32 = predict_kernel(mm, h200(), LaunchMode::host);
  CHECK(fp32.compute_us / bf16.compute_us == Approx(989.0 / 67.0));
}

TEST_CASE("tiny kernels cost their launch, which CUDA graphs remove", "[cost]") {
  const KernelWork tiny{"relu", WorkClass::elementwise, 1024, 256, Precision::fp32};
  const auto host = predict_kernel(tiny, h200(), LaunchMode::host);
  CHECK(host.device_us == Approx(2.0));  // the floor
  CHECK(host.overhead_us == Approx(3.0));
  const auto graph = predict_kernel(tiny, h200(), LaunchMode::cuda_graph);
  CHECK(graph.total_us == Approx(2.6));

  const std::vector<KernelWork> many(100, tiny);
  const auto eager = predict_mode(many, h200(), LaunchMode::host);
  const auto graphed = predict_mode(many, h200(), LaunchMode::cuda_graph);
  CHECK(eager.total_us == Approx(500));
  CHECK(graphed.total_us == Approx(100 * 2.6 + 5.0));  // plus one launch of the whole graph
}

TEST_CASE("op-class shares add up to the whole", "[cost]") {
  const std::vector<KernelWork> work = {
      {"mm", WorkClass::gemm_conv, 3e7, 6.9e10, Precision::fp32},
      {"softmax", WorkClass::reduction, 1e7, 1e6, Precision::fp32},
      {"gelu", WorkClass::elementwise, 2e7, 1e6, Precision::fp32},
      {"gelu2", WorkClass::elementwise, 2e7, 1e6, Precision::fp32},
  };
  const auto m = predict_mode(work, h200(), LaunchMode::host);
  REQUIRE(m.shares.size() == 4);
  double time = 0, bytes = 0;
  for (const auto& s : m.shares) {
    time += s.time_share;
    bytes += s.bytes_share;
  }
  CHECK(time == Approx(1.0));
  CHECK(bytes == Approx(1.0));
  CHECK(m.shares[0].kernels == 2);  // elementwise
  CHECK(m.shares[0].bytes_share == Approx(4e7 / 8e7));
}

TEST_CASE("a user overrides rates by key, and a typo is an error naming it", "[cost]") {
  auto d = apply_overrides(h200(), "bw=4300, launch=4");
  REQUIRE(d.ok());
  CHECK(d->memory_bandwidth_gbs == 4300);
  CHECK(d->launch_overhead_us == 4);
  const auto bad = apply_overrides(h200(), "bandwidth=4300");
  REQUIRE_FALSE(bad.ok());
  CHECK_THAT(bad.error().message, Catch::Contains("bandwidth=4300"));
  CHECK_FALSE(apply_overrides(h200(), "bw=fast").ok());
  CHECK_FALSE(apply_overrides(h200(), "mem_eff=1.5").ok());
}

TEST_CASE("issue slots bound elementwise work, never tensor-core work", "[cost]") {
  const DeviceSpec d = h200();
  // 4.19M elements through ~120 slots each (pointwise_chain's fused chain), 34 MB moved.
  KernelWork chain{"chain", WorkClass::elementwise, 34.1e6, 4.19e6 * 20, Precision::fp32};
  chain.alu_slots = 4.19e6 * 120;
  const KernelCost c = predict_kernel(chain, d, LaunchMode::host);
  // The fp32 peak counts an FMA as two FLOPs: 67 TFLOP/s is 33.5 G slots a millisecond.
  CHECK(c.compute_us == Approx(4.19e6 * 120 / (d.fp32_tflops * 1e6 / 2)));
  CHECK(c.compute_us > c.memory_us);
  CHECK_FALSE(c.memory_bound);
  // The same slots on a GEMM are not counted: it runs on tensor cores, by its FLOPs.
  KernelWork mm{"mm", WorkClass::gemm_conv, 1e6, 1e9, Precision::bf16};
  mm.alu_slots = 1e12;
  CHECK(predict_kernel(mm, d, LaunchMode::host).compute_us < 10.0);
}
