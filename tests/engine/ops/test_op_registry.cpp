// The op registry: lookups, unknown ops, costs, and that every op in the sample logs is known.

#include <catch2/catch.hpp>

#include <set>
#include <string>

#include "fxscope/graph/fx_readable_parser.h"
#include "fxscope/ops/op_cost.h"
#include "fxscope/ops/op_registry.h"
#include "log_payloads.h"

using namespace fxscope;

TEST_CASE("lookup by target string", "[ops]") {
  REQUIRE(ops::find_op("torch.ops.aten.add.Tensor") != nullptr);
  CHECK(ops::classify("torch.ops.aten.addmm.default").op_class == ops::OpClass::gemm);
  CHECK(ops::classify("torch.ops.aten.permute.default").lowering == ops::Lowering::view);
  CHECK(ops::classify("operator.getitem").lowering == ops::Lowering::getitem);
  CHECK(ops::classify("torch.ops.aten.var_mean.correction").lowering == ops::Lowering::welford);
  // Online softmax: one reduction with two outputs (max and sum), each read through a getitem.
  CHECK(ops::classify("torch.ops.prims.prepare_softmax_online.default").lowering ==
        ops::Lowering::reduction);
  CHECK(ops::op_base_name("torch.ops.prims.convert_element_type.default") ==
        "convert_element_type");
  const ops::OpInfo unknown = ops::classify("torch.ops.mylib.frobnicate.default");
  CHECK(unknown.op_class == ops::OpClass::opaque);
  CHECK(unknown.name == "mylib.frobnicate");
}

TEST_CASE("every ATen op of every sample log is in the table", "[ops]") {
  std::set<std::string> missing;
  for (const std::string& sample : test::all_samples()) {
    for (const char* kind : {"inductor_post_grad_graph", "aot_inference_graph", "aot_forward_graph",
                             "aot_backward_graph"}) {
      for (const auto& p : test::payloads(sample, kind)) {
        const auto parsed = graph::parse_fx_readable(p.payload, sample);
        for (const graph::Node& node : parsed.graph.nodes()) {
          if (node.op == graph::OpKind::call_function && !ops::find_op(node.target)) {
            missing.insert(node.target);
          }
        }
      }
    }
  }
  CAPTURE(missing);
  CHECK(missing.empty());
}

TEST_CASE("symbolic dims evaluate with hints or the documented default", "[ops]") {
  const ops::SymbolHints hints{{"s77", 8}};
  CHECK(ops::eval_dim(graph::Dim::symbolic("2*s77"), hints) == 16);
  CHECK(ops::eval_dim(graph::Dim::symbolic("(s77//2)"), hints) == 4);
  CHECK(ops::eval_dim(graph::Dim::symbolic("s5 + 1"), hints) == ops::kDefaultSymbolValue + 1);
}

TEST_CASE("the strides of a dynamic AlexNet's tensors: powers, Max and Python's //", "[ops]") {
  // tv_alexnet_dynamic's post-grad graph at the recorded 224x224 input (s53 = 224).
  const ops::SymbolHints hints{{"s53", 224}, {"s77", 2}};
  CHECK(ops::eval_dim(graph::Dim::symbolic("3*s53**2"), hints) == 3 * 224 * 224);
  CHECK(ops::eval_dim(graph::Dim::symbolic("64*Max(1, (((s53 - 7)//4)) + 1)**2"), hints) ==
        64 * 55 * 55);
  CHECK(ops::eval_dim(graph::Dim::symbolic("Max(1, ((((((s53 - 7)//8)) - 3)//2)) + 1)"), hints) ==
        13);
  CHECK(ops::eval_dim(graph::Dim::symbolic("(-s77//4)"), hints) == -1);  // floor, as Python
  CHECK(ops::eval_dim(graph::Dim::symbolic("Min(s77, 8)"), hints) == 2);
}

TEST_CASE("the constant term of a symbolic stride once sympy expands it", "[ops]") {
  // MobileNetV3 with a symbolic image size: the output side of a stride-8 convolution, its
  // square (the channels' stride) and the batch's stride.
  CHECK(ops::constant_term(graph::Dim::symbolic("(((s53 - 1)//8)) + 1")) == 1);
  CHECK(ops::constant_term(graph::Dim::symbolic("((((s53 - 1)//8)) + 1)**2")) == 1);
  CHECK(ops::constant_term(graph::Dim::symbolic("72*((((s53 - 1)//8)) + 1)**2")) == 72);
  CHECK(ops::constant_term(graph::Dim::symbolic("3*s53**2")) == 0);
  CHECK(ops::constant_term(graph::Dim::symbolic("64*Max(1, (((s53 - 7)//4)) + 1)**2")) == 0);
  CHECK(ops::constant_term(graph::Dim::symbolic("(s0 + 2)*(s1 - 3)")) == -6);
  CHECK(ops::constant_term(graph::Dim::constant(96)) == 96);
  CHECK_FALSE(ops::constant_term(graph::Dim::symbolic("s0 +* 2")).has_value());
}

TEST_CASE("gemm flops and bytes from TensorMeta", "[ops]") {
  const auto parsed = graph::parse_fx_readable(
      test::first_payload("residual_mlp", "inductor_post_grad_graph"), "residual_mlp");
  const auto mm = parsed.graph.find("mm_default");
  REQUIRE(mm);
  const ops::OpCost cost = ops::op_cost(parsed.graph, *mm, {});
  CHECK(cost.flops == Approx(2.0 * 32 * 1024 * 4096));
  CHECK(cost.bytes_written == Approx(32 * 1024 * 4));
}
