// Golden facts of real output code from sample_graphs, checked by hand against the logs
// (grep for `.run(`, `extern_kernels.`, `torch.ops.`, `aten.` statements in call()/partition_N()).

#include <catch2/catch.hpp>

#include <algorithm>
#include <numeric>

#include "fxscope/inductor/output_code.h"
#include "log_payloads.h"
#include "samples.h"

using namespace fxscope;
using namespace fxscope::inductor;

namespace {

std::vector<OutputCode> units(const std::string& sample) {
  std::vector<OutputCode> out;
  for (const auto& p : test::payloads(sample, "inductor_output_code")) {
    out.push_back(parse_output_code(p.payload, sample + " output code"));
  }
  return out;
}

OutputCode only_unit(const std::string& sample) {
  auto all = units(sample);
  REQUIRE(all.size() == 1);
  return std::move(all.front());
}

std::size_t count_op(const OutputCode& code, const std::string& op) {
  return static_cast<std::size_t>(std::count_if(code.launches().begin(), code.launches().end(),
                                                [&](const Launch& l) { return l.op == op; }));
}

}  // namespace

TEST_CASE("residual_mlp: one pointwise kernel, addmm + mm + one Triton launch", "[inductor]") {
  const OutputCode code = only_unit("residual_mlp");
  CHECK(code.warnings().empty());
  REQUIRE(code.kernels().size() == 1);
  const Kernel& k = code.kernels()[0];
  CHECK(k.name == "triton_poi_fused_add_addmm_gelu_mul_0");
  CHECK(k.kind == KernelKind::pointwise);
  CHECK(k.compile_kind == "triton");
  CHECK(k.line == 57);
  CHECK(k.source_line == 57);
  CHECK(k.comments.source_nodes == std::vector<std::string>{"", "gelu", "mul", "add"});
  CHECK(k.comments.aten_ops ==
        std::vector<std::string>{"aten.addmm", "aten.gelu", "aten.mul", "aten.add"});
  REQUIRE(k.comments.node_mapping.size() == 4);
  CHECK(k.comments.node_mapping[0].source.empty());
  CHECK(k.comments.node_mapping[0].aten_nodes == std::vector<std::string>{"add_tensor"});
  CHECK(k.comments.node_mapping[2].source == "gelu");
  CHECK(k.comments.node_mapping[2].aten_nodes ==
        std::vector<std::string>{"add", "erf", "mul", "mul_1", "mul_2"});

  REQUIRE(code.launches().size() == 3);
  CHECK(code.kernel_launch_count() == 1);
  CHECK(code.extern_launch_count() == 2);
  const Launch& addmm = code.launches()[0];
  CHECK(addmm.kind == LaunchKind::extern_op);
  CHECK(addmm.callee == "extern_kernels.addmm");
  CHECK(addmm.op == "addmm");
  CHECK(addmm.line == 125);
  CHECK(addmm.comments.source_nodes == std::vector<std::string>{"linear"});
  CHECK(addmm.comments.provenance_handles == std::vector<std::string>{"extern_kernels.addmm:1"});
  CHECK(code.launches()[1].op == "mm");
  CHECK(code.launches()[1].comments.source_nodes == std::vector<std::string>{"linear_1", ""});
  const Launch& poi = code.launches()[2];
  CHECK(poi.kind == LaunchKind::kernel);
  CHECK(poi.kernel == std::optional<std::size_t>(0));
  CHECK(poi.function == "call");
  CHECK(poi.line == 138);
  CHECK(poi.args == "buf2, arg2_1, arg4_1, 32768, stream=stream0");
  REQUIRE(poi.numels.size() == 1);
  CHECK(poi.numels[0].name == "xnumel");
  CHECK(poi.numels[0].value == "32768");
  CHECK(poi.grid.empty());
  CHECK(poi.comments.provenance_handles ==
        std::vector<std::string>{"triton_poi_fused_add_addmm_gelu_mul_0:3"});
  CHECK(code.launch_count(0) == 1);
  CHECK(code.launch_functions() == std::vector<std::string>{"call"});
}

TEST_CASE("residual_mlp: the graph fragment is kept and its nodes listed", "[inductor]") {
  const OutputCode code = only_unit("residual_mlp");
  REQUIRE(code.kernels().size() == 1);
  const SourceComments& c = code.kernels()[0].comments;
  CHECK(c.graph_fragment_line == 45);
  CHECK(c.graph_fragment.rfind("%arg2_1 : Tensor \"f32[32, 1024][1024, 1]cuda:0\" = PlaceHolder",
                               0) == 0);
  CHECK(c.graph_fragment.find("\nreturn %add_1") != std::string::npos);
  std::vector<std::string> names;
  std::vector<std::string> placeholders;
  for (const FragmentNode& n : c.fragment_nodes)
    (n.placeholder ? placeholders : names).push_back(n.name);
  CHECK(placeholders == std::vector<std::string>{"arg2_1", "arg4_1", "mm_default"});
  CHECK(names == std::vector<std::string>{"add_tensor", "mul", "mul_1", "erf", "add", "mul_2",
                                          "mul_3", "add_1"});
}

TEST_CASE("residual_mlp: Triton meta from the decorator and signature", "[inductor]") {
  const OutputCode code = only_unit("residual_mlp");
  REQUIRE(code.kernels().size() == 1);
  const TritonMeta& m = code.kernels()[0].meta;
  CHECK(m.heuristic == "pointwise");
  CHECK(m.size_hints == std::vector<std::pair<std::string, std::int64_t>>{{"x", 32768}});
  CHECK(m.params == std::vector<std::string>{"in_out_ptr0", "in_ptr0", "in_ptr1", "xnumel"});
  CHECK(m.kernel_name == "triton_poi_fused_add_addmm_gelu_mul_0");
  CHECK(m.mutated_arg_names == std::vector<std::string>{"in_out_ptr0"});
  CHECK(m.num_load == 3);
  CHECK(m.num_store == 1);
  CHECK(m.num_reduction == 0);
}

TEST_CASE("resnet18: 22 kernels, 57 launches", "[inductor]") {
  const OutputCode code = only_unit("resnet18");
  CHECK(code.warnings().empty());
  CHECK(code.kernels().size() == 22);
  CHECK(code.launches().size() == 57);
  CHECK(code.kernel_launch_count() == 36);
  CHECK(count_op(code, "convolution") == 20);
  CHECK(count_op(code, "addmm") == 1);
  const auto k =
      code.find_kernel("triton_poi_fused__native_batch_norm_legit_no_training_convolution_relu_1");
  REQUIRE(k);
  CHECK(code.launch_count(*k) == 4);
  // A 2-D tiled pointwise kernel: ynumel then xnumel.
  const Launch& first = code.launches()[0];
  REQUIRE(first.numels.size() == 2);
  CHECK(first.numels[0].name == "ynumel");
  CHECK(first.numels[0].value == "16384");
  CHECK(first.numels[1].name == "xnumel");
  CHECK(first.numels[1].value == "9");
}

TEST_CASE("resnet50 and gpt2: launch counts", "[inductor]") {
  const OutputCode resnet50 = only_unit("resnet50");
  CHECK(resnet50.kernels().size() == 24);
  CHECK(resnet50.launches().size() == 122);
  CHECK(resnet50.extern_launch_count() == 54);

  const OutputCode gpt2 = only_unit("gpt2_2layer");
  CHECK(gpt2.warnings().empty());
  CHECK(gpt2.kernels().size() == 8);
  CHECK(gpt2.launches().size() == 20);
  CHECK(gpt2.kernel_launch_count() == 9);
  CHECK(count_op(gpt2, "mm") == 7);
  CHECK(count_op(gpt2, "addmm") == 2);
  CHECK(count_op(gpt2, "aten._scaled_dot_product_efficient_attention.default") == 2);
  std::size_t reductions = 0;
  std::size_t persistent = 0;
  for (const Kernel& k : gpt2.kernels()) {
    reductions += k.kind == KernelKind::reduction ? 1 : 0;
    persistent += k.kind == KernelKind::persistent_reduction ? 1 : 0;
  }
  CHECK(reductions == 1);
  CHECK(persistent == 5);
  const auto twice = gpt2.find_kernel("triton_poi_fused_add_addmm_mul_pow_tanh_view_4");
  REQUIRE(twice);
  CHECK(gpt2.launch_count(*twice) == 2);
  const auto cumsum =
      gpt2.find_kernel("triton_per_fused_add_arange_cat_cumsum_ne_slice_sub_unsqueeze_1");
  REQUIRE(cumsum);
  const auto launch = std::find_if(gpt2.launches().begin(), gpt2.launches().end(),
                                   [&](const Launch& l) { return l.kernel == cumsum; });
  REQUIRE(launch != gpt2.launches().end());
  REQUIRE(launch->numels.size() == 2);
  CHECK(launch->numels[1].name == "r0_numel");
  CHECK(launch->numels[1].value == "128");

  CHECK(only_unit("gpt2_12layer").launches().size() == 102);
  CHECK(only_unit("gpt2_48layer").launches().size() == 397);
}

TEST_CASE("residual_mlp_train: forward and backward units", "[inductor]") {
  const auto all = units("residual_mlp_train");
  REQUIRE(all.size() == 2);
  // The forward draws its dropout seed with an ATen fallback through the `aten` alias.
  CHECK(all[0].launches().size() == 5);
  CHECK(count_op(all[0], "aten.randint.low_out") == 1);
  const Launch& seed = all[0].launches()[1];
  CHECK(seed.callee == "aten.randint.low_out");
  CHECK(seed.comments.has_source_nodes);  // `[], Original ATen: []`
  CHECK(seed.comments.source_nodes.empty());
  CHECK(seed.comments.aten_ops.empty());
  CHECK(all[1].launches().size() == 6);
  CHECK(all[1].kernel_launch_count() == 2);
  CHECK(count_op(all[1], "mm") == 3);
}

TEST_CASE("graph_breaks: 11 units, 14 launches", "[inductor]") {
  const auto all = units("graph_breaks");
  REQUIRE(all.size() == 11);
  std::size_t launches = 0;
  for (const OutputCode& code : all) {
    CHECK(code.warnings().empty());
    CHECK(code.kernels().size() == 1);
    launches += code.launches().size();
  }
  CHECK(launches == 14);
}

TEST_CASE("reduce_overhead_dynamic: launches sit in partition_0 with a symbolic size",
          "[inductor]") {
  const OutputCode code = only_unit("reduce_overhead_dynamic");
  CHECK(code.warnings().empty());
  CHECK(code.launches().size() == 3);
  CHECK(code.launch_functions() == std::vector<std::string>{"partition_0"});
  const Launch& poi = code.launches()[2];
  CHECK(poi.callee == "triton_poi_fused_add_addmm_gelu_mul_0");
  REQUIRE(poi.numels.size() == 1);
  CHECK(poi.numels[0].value == "256*s77");  // from `..._xnumel = 256*s77` before the launch
}

TEST_CASE("max_autotune_mlp: a Triton GEMM template launched on a grid", "[inductor]") {
  const OutputCode code = only_unit("max_autotune_mlp");
  CHECK(code.warnings().empty());
  REQUIRE(code.kernels().size() == 2);
  const Kernel& tem = code.kernels()[0];
  CHECK(tem.name == "triton_tem_fused_addmm_t_0");
  CHECK(tem.kind == KernelKind::template_gemm);
  CHECK(tem.meta.heuristic == "template");
  CHECK(tem.meta.num_warps == 4);
  CHECK(tem.meta.num_stages == 5);
  CHECK(code.kernels()[1].kind == KernelKind::pointwise);
  REQUIRE(code.launches().size() == 3);
  CHECK(code.launch_functions() == std::vector<std::string>{"partition_0"});
  CHECK(code.launches()[0].kernel == std::optional<std::size_t>(0));
  CHECK(code.launches()[0].grid == std::vector<std::string>{"128", "1", "1"});
  CHECK(code.launches()[1].op == "mm");
}

TEST_CASE("every captured unit reads without a warning", "[inductor]") {
  for (const char* sample : {"resnet18", "resnet50", "gpt2_2layer", "gpt2_12layer", "gpt2_48layer",
                             "residual_mlp", "pointwise_chain", "residual_mlp_train",
                             "graph_breaks", "reduce_overhead_dynamic", "max_autotune_mlp"}) {
    const auto all = units(sample);
    CHECK_FALSE(all.empty());
    for (const OutputCode& code : all) {
      INFO(sample);
      CHECK(code.warnings().empty());
      CHECK_FALSE(code.launches().empty());
      // Every kernel defined is launched, and every kernel launch names a defined kernel.
      for (std::size_t k = 0; k < code.kernels().size(); ++k) CHECK(code.launch_count(k) > 0);
      for (const Launch& l : code.launches()) {
        CHECK((l.kind == LaunchKind::extern_op || l.kernel.has_value()));
        CHECK(l.comments.has_source_nodes);
      }
    }
  }
}
