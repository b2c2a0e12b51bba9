// How generated kernels touch memory, on real samples and small graphs: rows of persistent
// reductions read once and kept in registers, 16-byte vectors for f32 and packed halves, loads
// shared by the lanes of a vector, views read by element, split reductions that fill the device.

#include <catch2/catch.hpp>

#include "codegen_samples.h"
#include "fxscope/codegen/kernel_codegen.h"
#include "fxscope/fusion/planner.h"
#include "fxscope/graph/fx_readable_parser.h"

using namespace fxscope;

namespace {

graph::Graph traffic_graph(const std::string& body, const std::string& signature) {
  const std::string code =
      "class GraphModule(torch.nn.Module):\n    def forward(self, " + signature + "):\n" + body;
  return graph::parse_fx_readable(code, "memory traffic").graph;
}

codegen::GeneratedKernel only_kernel(const graph::Graph& g) {
  const auto plan = fusion::plan(g, fusion::Mode::default_mode);
  REQUIRE(plan.launches() == 1);
  auto k = codegen::generate(g, plan.groups.front(), {});
  INFO((k ? std::string() : k.error().message));
  REQUIRE(k);
  return *k;
}

}  // namespace

TEST_CASE("gpt2 layer norm reads every element of its row once", "[codegen]") {
  const auto planned = test::planned_graphs("gpt2_2layer", fusion::Mode::default_mode);
  REQUIRE(!planned.empty());
  const auto k = test::kernel_of(planned.front(), "var_mean_1");
  const graph::Graph& g = planned.front().fusion.post_grad;
  CHECK(k.summary.find("2 passes, persistent") != std::string::npos);
  CHECK(k.summary.find("row in registers") != std::string::npos);
  // The variance's shift is the row's first element, read once a thread before the passes (the
  // same address for the whole team); apart from it, each buffer is read by one load instruction.
  const std::size_t shift_at = k.source.find("const int rr = 0;");
  REQUIRE(shift_at != std::string::npos);
  const std::size_t shift_end = k.source.find("shift0 = (float)(", shift_at);
  REQUIRE(shift_end != std::string::npos);
  const std::string passes = k.source.substr(0, shift_at) + k.source.substr(shift_end);
  std::size_t reads = 0;
  for (const auto& p : k.params) {
    if (p.written || p.scratch_elements) continue;
    const std::string name = "p_" + g.node(p.node).name;
    INFO(name << "\n" << k.source);
    // One load instruction per buffer: the normalising pass takes the row from registers.
    CHECK(test::occurrences(passes, name + "[") == 1);
    ++reads;
  }
  CHECK(reads >= 2);
  CHECK(k.source.find("#pragma unroll") != std::string::npos);
  CHECK(k.source.find("acc0.s += d0;") != std::string::npos);
}

TEST_CASE("gpt2 layer norm reads its weight and bias before the reduction, not after",
          "[codegen]") {
  const auto planned = test::planned_graphs("gpt2_2layer", fusion::Mode::default_mode);
  REQUIRE(!planned.empty());
  const auto k = test::kernel_of(planned.front(), "var_mean_1");
  INFO(k.source);
  const auto body = k.source.find("end of prelude");
  const auto first_reduce = k.source.find("fx_team_reduce(", body);
  REQUIRE(first_reduce != std::string::npos);
  // Every buffer's one load sits in the first pass: the affine weight and bias of the last pass
  // are in flight with the row, and the normalising pass reads them from registers.
  std::size_t checked = 0;
  for (const auto& p : k.params) {
    if (p.written || p.scratch_elements) continue;
    const std::string name = "p_" + planned.front().fusion.post_grad.node(p.node).name + "[";
    const auto at = k.source.find(name, body);
    INFO(name);
    REQUIRE(at != std::string::npos);
    CHECK(at < first_reduce);
    ++checked;
  }
  CHECK(checked >= 4);  // the row, and the weight and bias of the normalisation at least
}

TEST_CASE("resnet50 batch-norm epilogue loads each channel's parameters once per float4",
          "[codegen]") {
  const auto planned = test::planned_graphs("resnet50", fusion::Mode::default_mode);
  REQUIRE(!planned.empty());
  const auto k = test::kernel_of(planned.front(), "relu_3");
  CHECK(k.summary.find("float4") != std::string::npos);
  // Two batch norms (mean, variance, weight, bias each) of 784 float4 per channel: the channel
  // is the same for the four lanes, so each parameter is one load.
  INFO(k.source);
  CHECK(test::occurrences(k.source, "[((i4 / 784))]") == 8);
  // Each scale 1 / sqrt(var + eps) is one reciprocal square root, the square root not computed.
  CHECK(test::occurrences(k.source, "rsqrtf(") == 2);
  CHECK(test::occurrences(k.source, " sqrtf(") == 0);
}

TEST_CASE("a kernel's bytes are its own buffers': the stem pool's output, a copy's destination",
          "[codegen]") {
  const auto planned = test::planned_graphs("resnet50", fusion::Mode::default_mode);
  REQUIRE(!planned.empty());
  const auto& p = planned.front();
  codegen::CodegenOptions options;
  options.hints = p.hints;
  std::size_t checked = 0;
  for (const auto& g : p.fusion.ours.groups) {
    const bool pool = g.name.find("max_pool_with_offsets_add") != std::string::npos;
    const bool weight_copy = fusion::is_layout_copy(g) && g.bytes_read == 9437184.0;
    if (!pool && !weight_copy) continue;
    const auto k = codegen::generate(p.fusion.post_grad, g, options);
    REQUIRE(k);
    const double bytes = codegen::kernel_bytes(*k, p.fusion.post_grad, p.hints);
    if (pool) {
      // The plan follows Inductor's buffers: it reads the ReLU's (3.2 MB) and writes the pooled
      // getitem of the pool's tuple (0.8 MB; the tuple itself counts nothing).
      // The kernel reads the convolution's output and four vectors of 64 and recomputes the ReLU.
      CHECK(g.bytes_read == 64.0 * 112 * 112 * 4);
      CHECK(g.bytes_written == 64.0 * 56 * 56 * 4);
      CHECK(bytes == 64.0 * 112 * 112 * 4 + 4 * 64 * 4 + 64.0 * 56 * 56 * 4);
    } else {
      // 512 x 512 x 3 x 3 weights into a scratch buffer of the same size.
      CHECK(bytes == 2 * 9437184.0);
    }
    ++checked;
  }
  CHECK(checked == 4);  // the stem and layer 4's three 3x3 convolutions' weights
}

TEST_CASE("an expanded operand's bytes are its base's", "[codegen]") {
  const auto g = traffic_graph(
      "        expand: \"f32[64, 256][0, 1]cuda:0\" = torch.ops.aten.expand.default(arg1_1, [64, "
      "256])\n"
      "        add: \"f32[64, 256][256, 1]cuda:0\" = torch.ops.aten.add.Tensor(arg0_1, expand)\n"
      "        return (add,)\n",
      "arg0_1: \"f32[64, 256][256, 1]cuda:0\", arg1_1: \"f32[256][1]cuda:0\"");
  const auto k = only_kernel(g);
  INFO(k.source);
  // arg0_1 and add 64 KB each; the expanded row 1 KB, not 64 KB.
  CHECK(codegen::kernel_bytes(k, g, {}) == 2 * 65536.0 + 1024.0);
}

TEST_CASE("packed f16 and bf16 move 16 bytes a thread, broadcasts read lane by lane", "[codegen]") {
  const auto g = traffic_graph(
      "        convert: \"f32[4, 64][64, 1]cuda:0\" = "
      "torch.ops.prims.convert_element_type.default(arg0_1, torch.float32)\n"
      "        add: \"f32[4, 64][64, 1]cuda:0\" = torch.ops.aten.add.Tensor(convert, arg1_1)\n"
      "        out: \"bf16[4, 64][64, 1]cuda:0\" = "
      "torch.ops.prims.convert_element_type.default(add, torch.bfloat16)\n"
      "        return (out,)\n",
      "arg0_1: \"f16[4, 64][64, 1]cuda:0\", arg1_1: \"bf16[64][1]cuda:0\"");
  const auto k = only_kernel(g);
  INFO(k.source);
  CHECK(k.summary.find("8 x bf16 vectors") != std::string::npos);
  CHECK(k.config.items_per_thread == 8);
  CHECK(k.source.find("reinterpret_cast<const fx_vec<fx_half, 8>*>(p_arg0_1)[i8]") !=
        std::string::npos);
  CHECK(k.source.find("reinterpret_cast<fx_vec<fx_bf16, 8>*>(p_out)[i8] = out0") !=
        std::string::npos);
  CHECK(k.source.find("fx_b2f(p_arg1_1[((i8 % 8) * 8 + 7)])") != std::string::npos);
  CHECK(k.grid * k.block * 8 >= 256);
}

TEST_CASE("reciprocal of a square root is one reciprocal square root, the root kept if read",
          "[codegen]") {
  // r reads the group's own square root: one rsqrtf. s is also an output, so its square
  // root is still computed, once; the reciprocal of a loaded buffer stays a division.
  const auto g = traffic_graph(
      "        s: \"f32[4, 64][64, 1]cuda:0\" = torch.ops.aten.sqrt.default(arg0_1)\n"
      "        r: \"f32[4, 64][64, 1]cuda:0\" = torch.ops.aten.reciprocal.default(s)\n"
      "        q: \"f32[4, 64][64, 1]cuda:0\" = torch.ops.aten.reciprocal.default(arg1_1)\n"
      "        m: \"f32[4, 64][64, 1]cuda:0\" = torch.ops.aten.mul.Tensor(r, q)\n"
      "        return (s, m)\n",
      "arg0_1: \"f32[4, 64][64, 1]cuda:0\", arg1_1: \"f32[4, 64][64, 1]cuda:0\"");
  const auto k = only_kernel(g);
  INFO(k.source);
  CHECK(test::occurrences(k.source, "= rsqrtf(") == 4);  // one a lane
  CHECK(test::occurrences(k.source, " sqrtf(") == 4);
  CHECK(test::occurrences(k.source, "= 1.0f / v_arg1_1") == 4);
}

TEST_CASE("a view is read by element, never as a vector", "[codegen]") {
  // The slice starts 16 floats into its base: a pointer the runtime offsets, not 16-byte aligned
  // in general, so only the output is a vector.
  const auto g = traffic_graph(
      "        slice_1: \"f32[8, 32][64, 1]cuda:0\" = torch.ops.aten.slice.Tensor(arg0_1, 1, 16, "
      "48)\n"
      "        relu: \"f32[8, 32][32, 1]cuda:0\" = torch.ops.aten.relu.default(slice_1)\n"
      "        return (relu,)\n",
      "arg0_1: \"f32[8, 64][64, 1]cuda:0\"");
  const auto k = only_kernel(g);
  INFO(k.source);
  CHECK(k.summary.find("float4") != std::string::npos);
  CHECK(k.source.find("fx_vec<float, 4>*>(p_arg0_1)") == std::string::npos);
  CHECK(k.source.find("fx_vec<float, 4>*>(p_relu)[i4] = out0") != std::string::npos);
}

TEST_CASE("pointwise_chain: the split reduction's first pass fills the device", "[codegen]") {
  const auto planned = test::planned_graphs("pointwise_chain", fusion::Mode::default_mode);
  REQUIRE(!planned.empty());
  const auto& f = planned.front().fusion;
  codegen::CodegenOptions options;
  options.hints = planned.front().hints;
  const auto first = codegen::generate(f.post_grad, f.ours.groups[0], options);
  REQUIRE(first);
  CHECK(first->summary.find("split pass 1") != std::string::npos);
  // 512 parts of 8192 elements: a block of 512 threads per part keeps 132 SMs about full.
  CHECK(first->block == 512);
  CHECK(first->grid * first->block >= 132 * 1024);
  CHECK(first->source.find("fx_welford_add(acc0") != std::string::npos);
}

TEST_CASE("a persistent item is guarded only where it can fall outside its row", "[codegen]") {
  // GPT-2's layer norm: 128 rows a block each, 256 threads dividing 768: no item can be outside,
  // so no guard splits the row's loads into one branch an item.
  const auto gpt2 = test::planned_graphs("gpt2_2layer", fusion::Mode::default_mode);
  REQUIRE(!gpt2.empty());
  const auto ln = test::kernel_of(gpt2.front(), "var_mean_1");
  const std::string ln_body = ln.source.substr(ln.source.find("end of prelude"));
  INFO(ln_body);
  CHECK(ln_body.find("if (active && r") == std::string::npos);
  CHECK(ln_body.find("r < 768") == std::string::npos);
  // ResNet-50's global average pool: 49 positions over teams of 16, 16 rows a block dividing
  // 2,048: the position is guarded, the row is not.
  const auto resnet = test::planned_graphs("resnet50", fusion::Mode::default_mode);
  REQUIRE(!resnet.empty());
  const auto pool = test::kernel_of(resnet.front(), "mean");
  const std::string pool_body = pool.source.substr(pool.source.find("end of prelude"));
  INFO(pool_body);
  CHECK(pool_body.find("if (r < 49) {") != std::string::npos);
  CHECK(pool_body.find("if (active && r") == std::string::npos);
}
