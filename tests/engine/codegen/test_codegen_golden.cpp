// Golden checks of generated kernels on real samples and small hand-written graphs: which
// buffers a kernel reads and writes, how many passes a reduction makes, and the code that must be
// there (float4, Welford, online softmax, the scratch of a split reduction).

#include <catch2/catch.hpp>

#include <algorithm>

#include "codegen_samples.h"
#include "fxscope/codegen/kernel_codegen.h"
#include "fxscope/fusion/planner.h"
#include "fxscope/graph/fx_readable_parser.h"

using namespace fxscope;

namespace {

std::vector<std::string> param_names(const graph::Graph& g, const codegen::GeneratedKernel& k,
                                     bool written) {
  std::vector<std::string> out;
  for (const auto& p : k.params) {
    if (p.written == written && p.scratch_elements == 0) out.push_back(g.node(p.node).name);
  }
  std::sort(out.begin(), out.end());
  return out;
}

graph::Graph parse(const std::string& body, const std::string& signature) {
  const std::string code =
      "class GraphModule(torch.nn.Module):\n    def forward(self, " + signature + "):\n" + body;
  return graph::parse_fx_readable(code, "golden").graph;
}

}  // namespace

TEST_CASE("residual_mlp: bias + GELU + residual reads its three buffers as float4", "[codegen]") {
  const auto planned = test::planned_graphs("residual_mlp", fusion::Mode::default_mode);
  REQUIRE(!planned.empty());
  const auto k = test::kernel_of(planned.front(), "erf");
  const graph::Graph& g = planned.front().fusion.post_grad;
  CHECK(param_names(g, k, false) == std::vector<std::string>{"arg2_1", "arg4_1", "mm_default"});
  CHECK(param_names(g, k, true) == std::vector<std::string>{"add_1"});
  CHECK(k.summary.find("float4") != std::string::npos);
  CHECK(k.source.find("erff(") != std::string::npos);
  // The bias (1024 per row) broadcasts over the rows: read by column, lane by lane.
  CHECK(k.source.find("p_arg4_1[((i4 % 256) * 4 + 3)]") != std::string::npos);
  CHECK(k.block * k.grid * 4 >= 32768);
}

TEST_CASE("gpt2: layer norm is one kernel: shifted sums for the variance, then its normalisation",
          "[codegen]") {
  const auto planned = test::planned_graphs("gpt2_2layer", fusion::Mode::default_mode);
  REQUIRE(!planned.empty());
  const auto k = test::kernel_of(planned.front(), "var_mean_1");
  CHECK(k.summary.find("reduction 128 rows x 768 (var_mean), 2 passes") == 0);
  // The row is in registers: the sums of x - K and its square (K the row's first element) in one
  // team reduction, no Welford.
  CHECK(test::occurrences(k.source, "fx_team_reduce(acc0, FxShiftedSum(), 256)") == 1);
  CHECK(test::occurrences(k.source.substr(k.source.find("end of prelude")), "fx_team_reduce(") ==
        1);
  CHECK(k.source.find("acc0.q += d0 * d0;") != std::string::npos);
  CHECK(k.source.find("const float red0_mean = shift0 + red0_dm;") != std::string::npos);
  const std::string body = k.source.substr(k.source.find("end of prelude"));
  CHECK(body.find("FxWelford") == std::string::npos);
  CHECK(k.source.find("rsqrtf(") != std::string::npos);
  // Mean and variance leave through the getitems, the normalised rows through the epilogue.
  const auto written = param_names(planned.front().fusion.post_grad, k, true);
  CHECK(written.size() >= 2);
  CHECK(k.grid == 128);  // one row per block: 768 elements over 256 threads
}

TEST_CASE("gpt2 eager attention: masked online softmax is one kernel", "[codegen]") {
  const auto planned =
      test::planned_graphs("gpt2_2layer_eager_attention", fusion::Mode::default_mode);
  REQUIRE(!planned.empty());
  const auto k = test::kernel_of(planned.front(), "prepare_softmax_online_default_1");
  CHECK(k.summary.find("(prepare_softmax_online), 2 passes") != std::string::npos);
  CHECK(k.source.find("FxOnlineSoftmax()") != std::string::npos);
  CHECK(param_names(planned.front().fusion.post_grad, k, false) ==
        std::vector<std::string>{"bmm", "cumsum"});
  CHECK(k.config.rows_per_block == 8);  // 128 elements a row: a warp per row
}

TEST_CASE("softmax with amax and sum is one kernel with two reductions", "[codegen]") {
  const auto g = parse(
      "        amax: \"f32[8, 512][512, 1]cuda:0\" = torch.ops.aten.amax.default(arg0_1, [1], "
      "True)\n"
      "        sub: \"f32[8, 512][512, 1]cuda:0\" = torch.ops.aten.sub.Tensor(arg0_1, amax)\n"
      "        exp: \"f32[8, 512][512, 1]cuda:0\" = torch.ops.aten.exp.default(sub)\n"
      "        sum_1: \"f32[8, 1][1, 1]cuda:0\" = torch.ops.aten.sum.dim_IntList(exp, [1], True)\n"
      "        div: \"f32[8, 512][512, 1]cuda:0\" = torch.ops.aten.div.Tensor(exp, sum_1)\n"
      "        return (div,)\n",
      "arg0_1: \"f32[8, 512][512, 1]cuda:0\"");
  // The group FUSION.md asks for (the planner's own grouping is tested in test_fusion).
  fusion::KernelGroup group;
  group.name = "triton_per_fused_softmax";
  group.kind = fusion::GroupKind::persistent_reduction;
  for (const char* n : {"amax", "sub", "exp", "sum_1", "div"}) group.nodes.push_back(*g.find(n));
  group.inputs = {*g.find("arg0_1")};
  group.outputs = {*g.find("div")};
  group.numel = 8;
  group.rnumel = 512;
  const auto k = codegen::generate(g, group, {});
  REQUIRE(k);
  // max in pass 1, sum of exp(x - max) in pass 2, the division written in pass 3.
  CHECK(k->summary.find("(amax, sum), 3 passes") != std::string::npos);
  CHECK(k->source.find("fx_team_reduce(acc0, FxMax()") != std::string::npos);
  CHECK(k->source.find("fx_team_reduce(acc1, FxSum()") != std::string::npos);
  CHECK(param_names(g, *k, true) == std::vector<std::string>{"div"});
}

TEST_CASE("pointwise_chain: a split reduction shares its scratch between two kernels",
          "[codegen]") {
  const auto planned = test::planned_graphs("pointwise_chain", fusion::Mode::default_mode);
  REQUIRE(!planned.empty());
  const auto& f = planned.front().fusion;
  REQUIRE(f.ours.groups.size() == 3);
  codegen::CodegenOptions options;
  options.hints = planned.front().hints;
  const auto first = codegen::generate(f.post_grad, f.ours.groups[0], options);
  const auto second = codegen::generate(f.post_grad, f.ours.groups[1], options);
  REQUIRE(first);
  REQUIRE(second);
  const auto scratch = [](const codegen::GeneratedKernel& k) {
    for (const auto& p : k.params) {
      if (p.scratch_elements > 0) return p;
    }
    return codegen::KernelParam{};
  };
  const auto w = scratch(*first);
  const auto r = scratch(*second);
  CHECK(w.written);
  CHECK(!r.written);
  CHECK(w.node == r.node);
  CHECK(w.scratch_elements == 64 * 8 * 3);  // 64 rows x 8 parts x (mean, m2, count)
  CHECK(r.scratch_elements == w.scratch_elements);
  CHECK(second->summary.find("split pass 2") != std::string::npos);
}

TEST_CASE("f16 and bf16 load and store through float, i64 and bool stay integral", "[codegen]") {
  // 15 elements: no vector width divides them, so every buffer is read and written by element.
  const auto g = parse(
      "        convert: \"f32[3, 5][5, 1]cuda:0\" = "
      "torch.ops.prims.convert_element_type.default(arg0_1, torch.float32)\n"
      "        add: \"f32[3, 5][5, 1]cuda:0\" = torch.ops.aten.add.Tensor(convert, arg1_1)\n"
      "        gt: \"b8[3, 5][5, 1]cuda:0\" = torch.ops.aten.gt.Scalar(arg2_1, 3)\n"
      "        where: \"f32[3, 5][5, 1]cuda:0\" = torch.ops.aten.where.self(gt, add, convert)\n"
      "        out: \"bf16[3, 5][5, 1]cuda:0\" = "
      "torch.ops.prims.convert_element_type.default(where, torch.bfloat16)\n"
      "        return (out,)\n",
      "arg0_1: \"f16[3, 5][5, 1]cuda:0\", arg1_1: \"bf16[5][1]cuda:0\", "
      "arg2_1: \"i64[3, 5][5, 1]cuda:0\"");
  const auto plan = fusion::plan(g, fusion::Mode::default_mode);
  REQUIRE(plan.launches() == 1);
  const auto k = codegen::generate(g, plan.groups.front(), {});
  REQUIRE(k);
  CHECK(k->source.find("fx_h2f(p_arg0_1[") != std::string::npos);
  CHECK(k->source.find("fx_b2f(p_arg1_1[") != std::string::npos);
  CHECK(k->source.find("const long long* __restrict__ p_arg2_1") != std::string::npos);
  CHECK(k->source.find("p_out[i] = fx_f2b(") != std::string::npos);
  CHECK(k->summary.find("vector") == std::string::npos);
}

TEST_CASE("alias_of follows views to their base with the element offset", "[codegen]") {
  const auto g = parse(
      "        slice_1: \"f32[8, 16][64, 1]cuda:0\" = torch.ops.aten.slice.Tensor(arg0_1, 1, 16, "
      "32)\n"
      "        select: \"f32[64][1]cuda:0\" = torch.ops.aten.select.int(arg0_1, 0, 2)\n"
      "        permute: \"f32[64, 8][1, 64]cuda:0\" = torch.ops.aten.permute.default(arg0_1, [1, "
      "0])\n"
      "        slice_2: \"f32[64, 4][1, 64]cuda:0\" = "
      "torch.ops.aten.slice.Tensor(permute, 1, 4, 8)\n"
      "        split = torch.ops.aten.split.Tensor(arg0_1, 32, 1)\n"
      "        getitem: \"f32[8, 32][64, 1]cuda:0\" = split[1]\n"
      "        relu: \"f32[8, 64][64, 1]cuda:0\" = torch.ops.aten.relu.default(arg0_1)\n"
      "        return (slice_1, select, slice_2, getitem, relu)\n",
      "arg0_1: \"f32[8, 64][64, 1]cuda:0\"");
  const auto at = [&](const std::string& name) { return codegen::alias_of(g, *g.find(name), {}); };
  const auto base = *g.find("arg0_1");
  REQUIRE(at("slice_1"));
  CHECK(at("slice_1")->base == base);
  CHECK(at("slice_1")->offset == 16);
  CHECK(at("select")->offset == 128);
  CHECK(at("permute")->offset == 0);
  CHECK(at("slice_2")->offset == 4 * 64);  // through the permute: dim 1 has stride 64
  REQUIRE(at("getitem"));
  CHECK(at("getitem")->offset == 32);
  CHECK(!at("relu"));
  CHECK(!at("arg0_1"));
}

TEST_CASE("candidates start with the default config and all generate", "[codegen]") {
  const auto planned = test::planned_graphs("gpt2_2layer", fusion::Mode::max_autotune);
  REQUIRE(!planned.empty());
  const auto& f = planned.front();
  std::size_t tried = 0;
  for (const auto& group : f.fusion.ours.groups) {
    if (!codegen::has_generated_kernel(f.fusion.post_grad, group)) continue;
    const auto configs = codegen::candidates(f.fusion.post_grad, group, f.hints);
    codegen::CodegenOptions options;
    options.hints = f.hints;
    const auto dflt = codegen::generate(f.fusion.post_grad, group, options);
    REQUIRE(dflt);
    // A sequential scan has one configuration; everything else offers alternatives.
    CHECK(configs.size() >= (dflt->summary.starts_with("scan") ? 1U : 2U));
    REQUIRE(!configs.empty());
    CHECK(configs.front() == dflt->config);
    for (const auto& c : configs) {
      options.config = c;
      const auto k = codegen::generate(f.fusion.post_grad, group, options);
      INFO(group.name << " block " << c.block << " items " << c.items_per_thread << " rows "
                      << c.rows_per_block);
      CHECK(k);
      ++tried;
    }
  }
  CHECK(tried > 10);
}

TEST_CASE("Only the few-channel layout copy offers block sizes to tune", "[codegen]") {
  const auto planned = test::planned_graphs("resnet50", fusion::Mode::max_autotune);
  REQUIRE(!planned.empty());
  const auto& f = planned.front();
  std::size_t few_channel = 0;
  std::size_t tiled = 0;
  for (const auto& group : f.fusion.ours.groups) {
    if (group.note != "layout copy to channels-last") continue;
    const auto configs = codegen::candidates(f.fusion.post_grad, group, f.hints);
    codegen::CodegenOptions options;
    options.hints = f.hints;
    const auto dflt = codegen::generate(f.fusion.post_grad, group, options);
    REQUIRE(dflt);
    INFO(group.name << ": " << dflt->summary);
    if (dflt->summary.find("channels x") != std::string::npos) {
      // A tile's block is fixed by the tile: timing other configs would time the same kernel.
      CHECK(configs.size() == 1);
      ++tiled;
      continue;
    }
    // The RGB input and the stem's weights: each block size is the kernel's own.
    ++few_channel;
    CHECK(configs.size() == 4);
    for (const auto& c : configs) {
      options.config = c;
      const auto k = codegen::generate(f.fusion.post_grad, group, options);
      REQUIRE(k);
      CHECK(k->block == c.block);
    }
  }
  CHECK(few_channel == 2);
  CHECK(tiled > 10);
}

TEST_CASE("generate refuses library groups and unknown ops with a named message", "[codegen]") {
  const auto g = parse(
      "        mm: \"f32[8, 8][8, 1]cuda:0\" = torch.ops.aten.mm.default(arg0_1, arg0_1)\n"
      "        odd: \"f32[8, 8][8, 1]cuda:0\" = torch.ops.aten.special_bessel_j0.default(arg0_1)\n"
      "        return (mm, odd)\n",
      "arg0_1: \"f32[8, 8][8, 1]cuda:0\"");
  const auto plan = fusion::plan(g, fusion::Mode::eager);
  REQUIRE(plan.launches() == 2);
  const auto mm = codegen::generate(g, plan.groups[0], {});
  REQUIRE(!mm);
  CHECK(mm.error().message.rfind("group 0 aten.mm: ", 0) == 0);
  CHECK(!codegen::has_generated_kernel(g, plan.groups[0]));
  const auto odd = codegen::generate(g, plan.groups[1], {});
  REQUIRE(!odd);
  CHECK(odd.error().message.find("special_bessel_j0") != std::string::npos);
}

TEST_CASE("eager softmax, log-softmax and layer norm are one kernel each", "[codegen]") {
  const graph::Graph g = test::composite_ops_graph();
  const auto plan = fusion::plan(g, fusion::Mode::eager);
  REQUIRE(plan.launches() == 3);
  std::vector<std::string> summaries;
  for (const auto& group : plan.groups) {
    const auto k = codegen::generate(g, group, {});
    INFO(group.name << ": " << (k ? std::string() : k.error().message));
    REQUIRE(k);
    summaries.push_back(k->summary);
    if (group.name == "aten.native_layer_norm") {
      CHECK(param_names(g, *k, true) ==
            std::vector<std::string>{"getitem", "getitem_1", "getitem_2"});
      CHECK(param_names(g, *k, false) == std::vector<std::string>{"arg0_1", "arg1_1", "arg2_1"});
    }
  }
  CHECK(summaries[0] == "reduction 512 rows x 768 (_softmax), 2 passes, 256 threads per row");
  // Softmax over dim 1: rows are (batch, channel) pairs, the row strides by 768.
  CHECK(summaries[1] == "reduction 3072 rows x 128 (_log_softmax), 2 passes, 32 threads per row");
  CHECK(summaries[2] ==
        "reduction 512 rows x 768 (native_layer_norm), 2 passes, 256 threads per row");
}

TEST_CASE("vit training: a layer norm stored through a permute lands where its row's element goes",
          "[codegen]") {
  // nn.MultiheadAttention takes (sequence, batch, features): the first block's layer norm over
  // [2, 197, 384] is stored permuted to [197, 2, 384] (clone_1). The kernel iterates over the
  // norm's rows (batch b = xrow / 197, position s = xrow % 197), so row xrow's element rr goes to
  // clone_1[s][b][rr], with that row's mean and variance.
  const auto planned =
      test::planned_graphs("corpus/tv_vit_small_train_bf16", fusion::Mode::default_mode);
  REQUIRE(!planned.empty());
  const auto k = test::kernel_of(planned.front(), "clone_1");
  CHECK(k.summary.find("reduction 394 rows x 384 (var_mean)") == 0);
  CHECK(k.source.find("p_clone_1[((xrow) % 197) * 768 + ((xrow) / 197) * 384 + (rr)] = ") !=
        std::string::npos);
  // Not at clone_1's own row-major position, which holds another row's element.
  CHECK(k.source.find("p_clone_1[xrow * 384 + rr]") == std::string::npos);
}

TEST_CASE("vit training backward: a sum Inductor unrolls into a pointwise kernel is computed there",
          "[codegen]") {
  // triton_poi_fused_sum_0 sums the head's gradient over the batch of 2: a pointwise kernel by
  // Inductor's name, whose only node is the sum, computed inline at each of its 1000 elements. It
  // reads the gradient; it must not copy sum_1 onto itself.
  const auto planned =
      test::planned_graphs("corpus/tv_vit_small_train_bf16", fusion::Mode::default_mode);
  REQUIRE(planned.size() == 2);
  const auto k = test::kernel_of(planned.back(), "sum_1");
  CHECK(k.source.find("p_tangents_1") != std::string::npos);
  CHECK(k.summary.find("pointwise 1000 x") == 0);
}

TEST_CASE("generate names torch.export's composite ops and how to get a graph it runs",
          "[codegen]") {
  const auto g = parse(
      "        linear: \"f32[4, 8][8, 1]cuda:0\" = torch.ops.aten.linear.default(arg0_1, arg1_1)\n"
      "        softmax: \"f32[4, 8][8, 1]cuda:0\" = torch.ops.aten.softmax.int(linear, -1)\n"
      "        return (softmax,)\n",
      "arg0_1: \"f32[4, 8][8, 1]cuda:0\", arg1_1: \"f32[8, 8][8, 1]cuda:0\"");
  const auto plan = fusion::plan(g, fusion::Mode::eager);
  REQUIRE(plan.launches() == 2);
  CHECK(plan.unknown_ops.empty());
  for (const auto& group : plan.groups) {
    const auto k = codegen::generate(g, group, {});
    REQUIRE(!k);
    INFO(k.error().message);
    CHECK(k.error().message.find("composite op of torch.export's training IR") !=
          std::string::npos);
    CHECK(k.error().message.find("run_decompositions()") != std::string::npos);
  }
}
