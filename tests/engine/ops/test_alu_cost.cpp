// Which generated kernels are compute-bound for the bandwidth target, on real plans: the fused
// chain of sin/exp/tanh/sigmoid of pointwise_chain is (measured on the H200: its kernel ran 18.6 us
// at full precision and 12.0 us with fast math, the copy of its bytes 10.9 us), while ResNet-50's
// batch-norm epilogues and residual_mlp's GELU, each a few cheap ops an element, are not.

#include <catch2/catch.hpp>

#include <string>

#include "fxscope/core/text.h"
#include "fxscope/fusion/unit_fusion.h"
#include "fxscope/graph/fx_readable_parser.h"
#include "fxscope/ops/alu_cost.h"
#include "fxscope/trace/trace_log.h"
#include "samples.h"

using namespace fxscope;

namespace {

// The H200 as a run sees it: 132 SMs at 1,980 MHz, a device-to-device copy of 4,178 GB/s.
const double kSlotsPerUs = ops::alu_slots_per_us(132, 1980000);
constexpr double kCopyGbps = 4178;

struct GroupVerdict {
  std::string name;
  double bytes = 0;
  double alu_us = 0;
  bool compute_bound = false;
};

// Every group of the default plan of SAMPLE's first unit whose name holds PART.
std::vector<GroupVerdict> groups_of(const std::string& sample_name, const std::string& part) {
  std::vector<GroupVerdict> out;
  auto log = trace::read_trace(test::sample(sample_name));
  REQUIRE(log);
  const trace::CompileUnit& unit = log->units().front();
  ops::SymbolHints hints;
  for (const trace::ShapeSymbol& s : unit.symbols) {
    if (const auto v = text::parse_int(s.value)) hints.emplace(s.symbol, *v);
  }
  for (const auto& f : fusion::fuse_unit(unit, fusion::Mode::default_mode)) {
    for (const auto& g : f.ours.groups) {
      if (g.name.find(part) == std::string::npos) continue;
      GroupVerdict v{g.name, g.bytes_read + g.bytes_written, 0, false};
      // The planner counts each group's slots (KernelGroup::alu_slots), which the engine's run
      // and the cost model use: its nodes', but none for a copy and only the combine for a split
      // reduction's second pass.
      if (g.note != fusion::kSplitSecondPassNote) {
        CHECK(
            g.alu_slots ==
            Approx(fusion::is_layout_copy(g) ? 0.0 : ops::alu_slots(f.post_grad, g.nodes, hints)));
      }
      v.alu_us = g.alu_slots / kSlotsPerUs;
      v.compute_bound = ops::compute_bound(v.alu_us, v.bytes, kCopyGbps);
      out.push_back(v);
    }
  }
  return out;
}

}  // namespace

TEST_CASE("plain arithmetic costs a slot, full-precision math many, views none", "[ops][alu]") {
  CHECK(ops::alu_slots_per_element("add") == 1.0);
  CHECK(ops::alu_slots_per_element("some_op_fxscope_never_met") == 1.0);
  CHECK(ops::alu_slots_per_element("view") == 0.0);
  CHECK(ops::alu_slots_per_element("sin") > 8 * ops::alu_slots_per_element("mul"));
  CHECK(ops::alu_slots_per_element("div") > ops::alu_slots_per_element("mul"));
  CHECK(ops::alu_slots_per_element("sigmoid") > ops::alu_slots_per_element("exp"));
  CHECK(kSlotsPerUs == Approx(132.0 * 128 * 1980));
}

TEST_CASE("pointwise_chain's fused kernels are compute-bound for the target", "[ops][alu]") {
  const auto poi = groups_of("pointwise_chain", "triton_poi_");
  const auto red = groups_of("pointwise_chain", "triton_red_");
  REQUIRE(poi.size() == 1);
  REQUIRE(red.size() == 1);
  // 4.19M elements through sin, exp, a division, tanh and sigmoid: ~100+ slots an element.
  CHECK(poi[0].alu_us > 12.0);
  CHECK(poi[0].compute_bound);
  CHECK(red[0].compute_bound);
  // Its bytes at 70% of copy take 11.7 us (34 MB), at copy 8.2 us.
  CHECK(poi[0].bytes == Approx(34078720.0).epsilon(0.01));
}

TEST_CASE("cheap fused kernels stay memory-bound", "[ops][alu]") {
  // ResNet-50's batch norm + ReLU epilogues: a subtract, a multiply, a rsqrt per channel...
  const auto bn = groups_of("resnet50", "triton_poi_fused_add_mul_reciprocal_relu_sqrt_sub");
  REQUIRE(!bn.empty());
  for (const auto& g : bn) {
    INFO(g.name << " " << g.alu_us << " us of ALU for " << g.bytes / 1e6 << " MB");
    CHECK_FALSE(g.compute_bound);
  }
  // residual_mlp's bias + erf-GELU + residual: erf is dear, but it is one op over 12 bytes.
  const auto gelu = groups_of("residual_mlp", "_erf_");
  REQUIRE(!gelu.empty());
  for (const auto& g : gelu) CHECK_FALSE(g.compute_bound);
}

TEST_CASE("the roofline's ridge divides compute-bound from memory-bound kernels", "[ops][alu]") {
  // pointwise_chain's 12-op kernel in an H200 run: 34.1 MB, a copy of its bytes in its place
  // 10.54 us, 15.05 us of instructions. Past the ridge, so compute-bound; a line at the copy's
  // time / 0.7 (15.06 us) would hold it to the bandwidth target, where it measured 62%, in one
  // run and let it go in the next.
  const double bytes = 34078720.0;
  const double gbps = bytes / 10.54 / 1e3;
  CHECK(ops::compute_bound(15.05, bytes, gbps));
  CHECK(ops::compute_bound(10.6, bytes, gbps));
  CHECK_FALSE(ops::compute_bound(10.5, bytes, gbps));
  // GPT-2's fused add + mul + pow (1.18 us of instructions, a 1.9 us copy of its 6.3 MB).
  CHECK_FALSE(ops::compute_bound(1.18, 6.3e6, 6.3e6 / 1.9 / 1e3));
  // Unknown bytes or bandwidth: nothing is said.
  CHECK_FALSE(ops::compute_bound(15.05, 0, gbps));
  CHECK_FALSE(ops::compute_bound(15.05, bytes, 0));
}

TEST_CASE("a split reduction's second pass counts only its combine", "[ops][alu]") {
  // pointwise_chain's var_mean: the first pass runs the whole chain over 4.19M elements, the
  // second combines 64 rows x 8 partial Welford states.
  const auto second = groups_of("pointwise_chain", "triton_per_");
  REQUIRE(second.size() == 1);
  CHECK(second[0].alu_us < 0.01);
  const auto first = groups_of("pointwise_chain", "triton_red_");
  REQUIRE(first.size() == 1);
  CHECK(first[0].alu_us > 12.0);
}

namespace {

// transformers' grouped_mm_fallback(input [512, 256], weight [4, 256, 1024], offs) with the
// weight's strides WEIGHT_STRIDES (Mixtral's experts: a transposed view, columns 256 apart).
graph::ParsedGraph grouped_mm_graph(const std::string& weight_strides) {
  const std::string text =
      "class GraphModule(torch.nn.Module):\n"
      "    def forward(self, arg0_1: \"f32[512, 256][256, 1]cuda:0\", arg1_1: \"f32[4, 256, "
      "1024][" +
      weight_strides +
      "]cuda:0\", arg2_1: \"i32[4][1]cuda:0\"):\n"
      "        grouped_mm_fallback: \"f32[512, 1024][1024, 1]cuda:0\" = "
      "torch.ops.transformers.grouped_mm_fallback.default(arg0_1, arg1_1, arg2_1)\n"
      "        return (grouped_mm_fallback,)\n";
  return graph::parse_fx_readable(text, "grouped_mm");
}

}  // namespace

TEST_CASE("grouped_mm_fallback counts its GEMM's FLOPs and its loads' lines", "[ops][alu]") {
  // Measured on an H100 (the Mixtral log's engine run): 555 us for this call, 0.48 TFLOP/s, a
  // hundredth of the fp32 peak its FLOPs alone would price it at; the weight's column loads, a
  // cache line a lane, take the time.
  const double steps = 512.0 * 1024 * 256;
  const auto transposed = grouped_mm_graph("262144, 1, 256");
  const auto node = transposed.graph.find("grouped_mm_fallback");
  REQUIRE(node);
  CHECK(ops::op_cost(transposed.graph, *node, {}).flops == Approx(2 * steps));
  const double slots = ops::alu_slots(transposed.graph, {*node}, {});
  CHECK(slots == Approx(steps * (1 + 4 * (1 + 32))));
  CHECK(slots / ops::alu_slots_per_us(132, 1980000) == Approx(555).epsilon(0.1));
  // Columns next to each other: a warp's 32 columns share one line.
  const auto contiguous = grouped_mm_graph("262144, 1024, 1");
  const auto same = contiguous.graph.find("grouped_mm_fallback");
  REQUIRE(same);
  CHECK(ops::alu_slots(contiguous.graph, {*same}, {}) == Approx(steps * (1 + 4 * (1 + 1))));
}
