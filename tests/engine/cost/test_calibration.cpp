#include <catch2/catch.hpp>

#include "fxscope/cost/calibration.h"
#include "fxscope/cost/device_spec.h"
#include "fxscope/cost/prediction_error.h"
#include "fxscope/cost/roofline.h"

using namespace fxscope::cost;

TEST_CASE("the compiled-in calibration names its device and covers the common classes",
          "[cost][calibration]") {
  const Calibration& cal = builtin_calibration();
  CHECK(cal.measured_on.find("H100") != std::string::npos);
  CHECK(cal.device_spec == "H100");
  CHECK_FALSE(cal.source.empty());
  // Which logs it was fitted to: a rule on the data set, report::training_logs.
  CHECK(cal.source.find("every other log by name") != std::string::npos);
  for (const auto c : {KernelClass::pointwise, KernelClass::persistent_reduction, KernelClass::gemm,
                       KernelClass::conv, KernelClass::transpose}) {
    INFO(to_string(c));
    const ClassCurve* curve = cal.find(c, "fp32");
    REQUIRE(curve != nullptr);
    CHECK(curve->samples >= 40);
    CHECK(curve->latency_us > 0);
    CHECK(curve->memory_efficiency + curve->compute_efficiency + curve->issue_efficiency > 0);
  }
  // A tensor-core class has a curve per precision; bf16 GEMMs reach a lower share of their
  // (much higher) peak than fp32 ones.
  const ClassCurve* bf16 = cal.find(KernelClass::gemm, "bf16");
  REQUIRE(bf16 != nullptr);
  CHECK(bf16->precision == "bf16");
}

TEST_CASE("the compiled-in calibration prices a backward pass by its own curve",
          "[cost][calibration]") {
  // A pass is another kernel, not another size: its bucket needs fewer kernels than a size
  // bucket (fit_cost_model.py's MIN_PASS_SAMPLES). The engine's attention backward runs at a
  // small share of the forward's FLOP rate; the class curve alone prices it at a sixth of its time.
  const Calibration& cal = builtin_calibration();
  const ClassCurve* attention_bwd = cal.find(KernelClass::attention, "bf16", "bwd/none/d<=64");
  const ClassCurve* attention_fwd = cal.find(KernelClass::attention, "bf16", "fwd/bias/d<=64");
  REQUIRE(attention_bwd != nullptr);
  REQUIRE(attention_fwd != nullptr);
  CHECK(attention_bwd->shape == "bwd");
  CHECK(attention_bwd->compute_efficiency < attention_fwd->compute_efficiency / 2);
  // cuDNN's dgrad and wgrad kernels, timed since the 2026-12-06 runs.
  const ClassCurve* conv_bwd = cal.find(KernelClass::conv, "bf16", "bwd/cl/3x3/s1/c>=64");
  REQUIRE(conv_bwd != nullptr);
  CHECK(conv_bwd->shape.starts_with("bwd"));
  CHECK(conv_bwd->precision == "bf16");
}

TEST_CASE("a calibrated kernel costs its class's latency plus its curve", "[cost][calibration]") {
  const DeviceSpec h100 = *find_device("H100");
  KernelWork add{"add", WorkClass::elementwise, 64e6, 8e6, Precision::fp32,
                 8e6,   KernelClass::pointwise};
  const ClassCurve& curve = *builtin_calibration().find(KernelClass::pointwise, "fp32");
  const KernelCost c = predict_kernel(add, h100, LaunchMode::cuda_graph);
  CHECK(c.calibrated);
  CHECK(c.memory_us == Approx(64e6 / (3350e3 * curve.memory_efficiency)));
  CHECK(c.device_us >= curve.latency_us + c.memory_us);
  // Another device scales by its datasheet bandwidth.
  const KernelCost h200 = predict_kernel(add, *find_device("H200"), LaunchMode::cuda_graph);
  CHECK(h200.memory_us == Approx(c.memory_us * 3350.0 / 4800.0));
  // calibrated=0 prices with the fixed efficiencies and the 2 us floor.
  auto fixed = apply_overrides(h100, "calibrated=0");
  REQUIRE(fixed);
  const KernelCost f = predict_kernel(add, *fixed, LaunchMode::cuda_graph);
  CHECK_FALSE(f.calibrated);
  CHECK(f.memory_us == Approx(64e6 / (3350e3 * 0.85)));
  CHECK_FALSE(apply_overrides(h100, "calibrated=yes"));
  // A class the calibration does not cover keeps the fixed model.
  add.kernel_class = KernelClass::other;
  CHECK_FALSE(predict_kernel(add, h100, LaunchMode::cuda_graph).calibrated);
}

TEST_CASE("a kernel takes the curve of its shape class's longest fitted prefix",
          "[cost][calibration]") {
  auto cal = parse_calibration(R"({"curves": [
      {"class": "conv", "precision": "fp32", "latency_us": 1, "memory_efficiency": 1,
       "compute_efficiency": 1, "issue_efficiency": 0},
      {"class": "conv", "precision": "fp32", "shape": "fwd", "latency_us": 2,
       "memory_efficiency": 1, "compute_efficiency": 1, "issue_efficiency": 0},
      {"class": "conv", "precision": "any", "shape": "fwd/cl", "latency_us": 3,
       "memory_efficiency": 1, "compute_efficiency": 1, "issue_efficiency": 0},
      {"class": "conv", "precision": "fp32", "shape": "fwd/cl", "latency_us": 4,
       "memory_efficiency": 1, "compute_efficiency": 1, "issue_efficiency": 0},
      {"class": "conv", "precision": "bf16", "shape": "fwd/cl/1x1", "latency_us": 5,
       "memory_efficiency": 1, "compute_efficiency": 1, "issue_efficiency": 0}]})",
                               "shapes");
  REQUIRE(cal);
  const auto latency = [&](std::string_view precision, std::string_view shape) {
    const ClassCurve* c = cal->find(KernelClass::conv, precision, shape);
    return c ? c->latency_us : -1.0;
  };
  CHECK(latency("fp32", "") == 1);
  CHECK(latency("fp32", "bwd/nchw/3x3/s1/c>=64") == 1);  // no bwd curve: the class's
  CHECK(latency("fp32", "fwd/nchw/3x3/s1/c>=64") == 2);
  // Equally long prefixes: the precision's own; a longer one at "any" beats a shorter own.
  CHECK(latency("fp32", "fwd/cl/3x3/s1/c>=64") == 4);
  CHECK(latency("fp16", "fwd/cl/3x3/s1/c>=64") == 3);
  CHECK(latency("bf16", "fwd/cl/1x1/s1/c<64") == 5);
  // Whole components only: "fwd/cl/1x1" is no prefix of "fwd/cl/1x1x1".
  CHECK(latency("bf16", "fwd/cl/1x1x1/s1/c<64") == 3);
  CHECK(latency("fp16", "") == -1);
}

TEST_CASE("a one-thread-a-row reduction reaches its bandwidth only with enough rows",
          "[cost][calibration]") {
  const DeviceSpec h100 = *find_device("H100");
  const ClassCurve* curve = builtin_calibration().find(KernelClass::persistent_reduction, "bf16",
                                                       "r<=128/rows<64k/outer/thread");
  REQUIRE(curve);
  REQUIRE(curve->shape == "r<=128/rows<64k/outer/thread");
  REQUIRE(curve->saturating_rows > 12544);
  // ResNet-18's batch norm backward: 1,024 bytes a row over 6,272 and 12,544 rows take about
  // as long (77 and 75 us measured): the bytes' time follows the bytes a row.
  KernelWork few{"sum",
                 WorkClass::reduction,
                 6272 * 1024.0,
                 0,
                 Precision::bf16,
                 0,
                 KernelClass::persistent_reduction,
                 "r<=128/rows<64k/outer/thread",
                 6272};
  KernelWork more = few;
  more.bytes *= 2;
  more.rows *= 2;
  const KernelCost a = predict_kernel(few, h100, LaunchMode::cuda_graph);
  const KernelCost b = predict_kernel(more, h100, LaunchMode::cuda_graph);
  CHECK(b.memory_us == Approx(a.memory_us));
  CHECK(a.memory_us ==
        Approx(few.bytes / (3350e3 * curve->memory_efficiency) * curve->saturating_rows / 6272));
  // Past the saturating rows the bandwidth term alone.
  more.rows = curve->saturating_rows * 2;
  more.bytes = more.rows * 1024.0;
  CHECK(predict_kernel(more, h100, LaunchMode::cuda_graph).memory_us ==
        Approx(more.bytes / (3350e3 * curve->memory_efficiency)));
}

TEST_CASE("a calibration that does not parse says where", "[cost][calibration]") {
  auto bad_class = parse_calibration(
      R"({"curves": [{"class": "fft", "latency_us": 1, "memory_efficiency": 1,
          "compute_efficiency": 0, "issue_efficiency": 0}]})",
      "cal.json");
  REQUIRE_FALSE(bad_class);
  CHECK_THAT(bad_class.error().message,
             Catch::Contains("cal.json: curves[0]: unknown class 'fft'"));
  auto missing = parse_calibration(R"({"curves": [{"class": "gemm", "latency_us": 1}]})", "c.json");
  REQUIRE_FALSE(missing);
  CHECK_THAT(missing.error().message, Catch::Contains("memory_efficiency"));
  CHECK_FALSE(parse_calibration("[1, 2", "broken.json"));
  auto ok = parse_calibration(
      R"({"device_spec": "H100", "curves": [{"class": "conv", "precision": "bf16",
          "latency_us": 3, "memory_efficiency": 0.5, "compute_efficiency": 0.4,
          "issue_efficiency": 0, "combine": "sum"}]})",
      "ok.json");
  REQUIRE(ok);
  REQUIRE(ok->find(KernelClass::conv, "bf16") != nullptr);
  CHECK(ok->find(KernelClass::conv, "bf16")->additive);
  CHECK(ok->find(KernelClass::conv, "fp32") == nullptr);  // no "any" curve to fall back on
}

TEST_CASE("prediction error: median and p90 factors and the total ratio", "[cost][calibration]") {
  std::vector<PredictedMeasured> pairs;
  for (int i = 1; i <= 10; ++i) pairs.push_back({10.0 * i, 10.0});  // factors 1 .. 10
  pairs.push_back({5.0, 0.0});                                      // not measured: ignored
  const PredictionError e = prediction_error(pairs, 600.0, 400.0);
  CHECK(e.kernels == 10);
  CHECK(e.median_factor == Approx(6.0));
  CHECK(e.p90_factor == Approx(9.0));
  CHECK(e.total_ratio() == Approx(1.5));
  // Too fast counts as much as too slow.
  const PredictionError under = prediction_error({{1.0, 4.0}}, 1.0, 4.0);
  CHECK(under.median_factor == Approx(4.0));
}
