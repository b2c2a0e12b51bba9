// torch.export's composite ops become the core ATen ops AOTInductor compiles and fxscope's
// runtime runs, with the strides an exported program does not print: on the bundled export log
// (a real torch.export of a conv + batch norm + attention model, a dynamic batch) and on
// hand-written graphs for the decompositions that log lacks.

#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "fxscope/fusion/core_aten_graph.h"
#include "fxscope/fusion/lowering_ops.h"
#include "fxscope/fusion/unit_fusion.h"
#include "fxscope/graph/fx_readable_parser.h"
#include "fxscope/ops/op_registry.h"
#include "fxscope/trace/trace_log.h"
#include "samples.h"

using namespace fxscope;

namespace {

std::string strides_of(const graph::Graph& g, const std::string& name) {
  const auto id = g.find(name);
  if (!id || !g.node(*id).meta) return "(none)";
  std::string out;
  for (const auto& d : g.node(*id).meta->strides) out += d.to_string() + ",";
  return out;
}

std::string target_of(const graph::Graph& g, const std::string& name) {
  const auto id = g.find(name);
  return id ? std::string(ops::op_key(g.node(*id).target)) : "(absent)";
}

std::size_t count_of(const graph::Graph& g, std::string_view key) {
  std::size_t n = 0;
  for (const auto& node : g.nodes()) n += ops::op_key(node.target) == key;
  return n;
}

fusion::CoreAtenGraph decomposed(const std::string& body, const std::string& inputs) {
  const std::string code =
      "class GraphModule(torch.nn.Module):\n    def forward(self, " + inputs + "):\n" + body;
  const auto parsed = graph::parse_fx_readable(code, "test");
  REQUIRE(parsed.warnings.empty());
  return fusion::core_aten_graph(parsed.graph, "test");
}

}  // namespace

TEST_CASE("an exported program is planned as its core ATen graph", "[fusion]") {
  auto log =
      trace::read_trace(test::sample("export_program/dedicated_log_torch_trace_8o3_upov.log.zst"));
  REQUIRE(log);
  REQUIRE(!log->units().empty());
  for (const fusion::Mode mode : {fusion::Mode::eager, fusion::Mode::default_mode}) {
    const auto plans = fusion::fuse_unit(log->units().front(), mode);
    REQUIRE(plans.size() == 1);
    const auto& f = plans.front();
    for (const auto& w : f.warnings) WARN(w.message);
    CHECK(f.warnings.empty());
    CHECK(!fusion::has_export_composite_ops(f.post_grad));
    const graph::Graph& g = f.post_grad;
    // conv2d -> convolution; batch_norm (eval) -> (x - mean) * rsqrt(var + eps) * w + b, the
    // last op keeping its name; linear -> permute + addmm over a row-major copy of the
    // transposed tokens; chunk -> split; attention on 3-D q/k/v -> efficient attention with a
    // head dim of 1.
    CHECK(target_of(g, "conv2d") == "aten.convolution");
    CHECK(target_of(g, "batch_norm") == "aten.add");
    CHECK(target_of(g, "batch_norm_rsqrt") == "aten.rsqrt");
    CHECK(target_of(g, "linear_permute") == "aten.permute");
    CHECK(target_of(g, "linear_clone") == "aten.clone");
    CHECK(target_of(g, "linear_addmm") == "aten.addmm");
    CHECK(target_of(g, "linear") == "aten.view");
    CHECK(target_of(g, "linear_1") == "aten.addmm");
    CHECK(target_of(g, "chunk") == "aten.split");
    CHECK(target_of(g, "scaled_dot_product_attention") == "aten.squeeze");
    CHECK(count_of(g, "aten._scaled_dot_product_efficient_attention") == 1);
    // Strides an exported program does not print: a transpose's are its input's swapped, a
    // chunk's pieces keep the whole's.
    CHECK(strides_of(g, "flatten") == "8192,256,1,");
    CHECK(strides_of(g, "transpose") == "8192,1,256,");
    CHECK(strides_of(g, "getitem_1") == "24576,96,1,");
    for (const auto& node : g.nodes()) {
      if (node.meta && !node.meta->is_sym_scalar()) {
        INFO(node.name);
        CHECK(node.meta->strides.size() == node.meta->rank());
      }
    }
    CHECK(f.ours.unknown_ops.empty());
    std::size_t gemms = 0;
    for (const auto& group : f.ours.groups) {
      for (const auto id : group.nodes) {
        gemms += ops::classify(g.node(id).target).op_class == ops::OpClass::gemm;
      }
    }
    CHECK(gemms == 2);
  }
}

TEST_CASE("composite ops the export log lacks decompose as torch decomp does", "[fusion]") {
  const auto core = decomposed(
      "        conv1d: \"bf16[4, 8, 32]\" = torch.ops.aten.conv1d.padding(x, w, None, [1], "
      "'same')\n"
      "        batch_norm: \"bf16[4, 8, 32]\" = torch.ops.aten.batch_norm.default(conv1d, g, b, "
      "m, v, True, 0.1, 1e-05, False)\n"
      "        group_norm: \"bf16[4, 8, 32]\" = torch.ops.aten.group_norm.default(batch_norm, 2, "
      "g, b, 1e-05, False)\n"
      "        unflatten: \"bf16[4, 2, 4, 32]\" = torch.ops.aten.unflatten.int(group_norm, 1, "
      "[2, 4])\n"
      "        transpose: \"bf16[4, 2, 32, 4]\" = torch.ops.aten.transpose.int(unflatten, 2, 3)\n"
      "        matmul: \"bf16[4, 2, 4, 4]\" = torch.ops.aten.matmul.default(unflatten, "
      "transpose)\n"
      "        softmax: \"f32[4, 2, 4, 4]\" = torch.ops.aten.softmax.int(matmul, -1, "
      "torch.float32)\n"
      "        dropout: \"f32[4, 2, 4, 4]\" = torch.ops.aten.dropout.default(softmax, 0.1, "
      "False)\n"
      "        return (dropout,)\n",
      "x: \"bf16[4, 8, 32]\", w: \"bf16[8, 8, 3]\", g: \"bf16[8]\", b: \"bf16[8]\", m: "
      "\"f32[8]\", v: \"f32[8]\"");
  const graph::Graph& g = core.graph;
  for (const auto& w : core.warnings) WARN(w.message);
  CHECK(core.warnings.empty());
  CHECK(core.decomposed == 7);
  CHECK(!fusion::has_export_composite_ops(g));
  // padding='same' with a kernel of 3: one each side.
  const auto conv = g.find("conv1d");
  REQUIRE(conv);
  CHECK(target_of(g, "conv1d") == "aten.convolution");
  CHECK(g.node(*conv).args.at(4).to_string() == "[1]");
  // Batch norm in training and group norm reduce with var_mean, in f32 for bf16 input, and
  // convert back under their own names.
  CHECK(count_of(g, "aten.var_mean") == 2);
  CHECK(target_of(g, "batch_norm") == "prims.convert_element_type");
  CHECK(target_of(g, "group_norm") == "prims.convert_element_type");
  CHECK(g.node(*g.find("batch_norm")).meta->dtype == "bf16");
  // unflatten is a view whose new dims stride within the split one.
  CHECK(target_of(g, "unflatten") == "aten.view");
  CHECK(strides_of(g, "unflatten") == "256,128,32,1,");
  // A 4-D matmul: both operands as 3-D batches (the transposed one copied row-major), bmm, and
  // the product viewed back.
  CHECK(target_of(g, "matmul") == "aten.view");
  CHECK(count_of(g, "aten.bmm") == 1);
  CHECK(count_of(g, "aten.clone") == 1);
  // softmax with a dtype converts first; dropout in eval is its input.
  CHECK(target_of(g, "softmax") == "aten._softmax");
  CHECK(target_of(g, "dropout") == "(absent)");
  const auto& out = g.node(static_cast<graph::NodeId>(g.size() - 1));
  REQUIRE(out.op == graph::OpKind::output);
  CHECK(g.node(out.args.at(0).items().at(0).as_node()).name == "softmax");
  CHECK(fusion::plan(g, fusion::Mode::default_mode).unknown_ops.empty());
}

TEST_CASE("a composite op without what its decomposition needs is kept and named", "[fusion]") {
  const auto core = decomposed(
      "        matmul: \"f32[3, 4, 4]\" = torch.ops.aten.matmul.default(a, b)\n"
      "        return (matmul,)\n",
      "a: \"f32[3, 4, 8]\", b: \"f32[1, 8, 4]\"");
  CHECK(core.decomposed == 0);
  REQUIRE(core.warnings.size() == 1);
  CHECK(core.warnings.front().message.find("matmul") != std::string::npos);
  CHECK(core.warnings.front().message.find("broadcast") != std::string::npos);
  CHECK(fusion::has_export_composite_ops(core.graph));
}

TEST_CASE("views of an export without strides take the strides PyTorch computes", "[fusion]") {
  const auto core = decomposed(
      "        squeeze: \"f32[1, 4, 6]\" = torch.ops.aten.squeeze.dim(x, 2)\n"
      "        permute: \"f32[6, 4, 1, 1]\" = torch.ops.aten.permute.default(x, [3, 1, 0, 2])\n"
      "        slice_1: \"f32[1, 4, 1, 3]\" = torch.ops.aten.slice.Tensor(x, 3, 0, 6, 2)\n"
      "        select: \"f32[1, 1, 6]\" = torch.ops.aten.select.int(x, 1, 2)\n"
      "        expand: \"f32[3, 4, 5, 6]\" = torch.ops.aten.expand.default(x, [3, 4, 5, 6])\n"
      "        unsqueeze: \"f32[1, 1, 4, 1, 6]\" = torch.ops.aten.unsqueeze.default(x, 1)\n"
      "        relu: \"f32[6, 4, 1, 1]\" = torch.ops.aten.relu.default(permute)\n"
      "        return (squeeze, slice_1, select, expand, unsqueeze, relu)\n",
      "x: \"f32[1, 4, 1, 6]\"");
  const graph::Graph& g = core.graph;
  CHECK(strides_of(g, "x") == "24,6,6,1,");
  CHECK(strides_of(g, "squeeze") == "24,6,1,");
  CHECK(strides_of(g, "permute") == "1,6,24,6,");
  CHECK(strides_of(g, "slice_1") == "24,6,6,2,");
  CHECK(strides_of(g, "select") == "24,6,1,");
  CHECK(strides_of(g, "expand") == "0,6,0,1,");
  CHECK(strides_of(g, "unsqueeze") == "24,24,6,6,1,");
  // A computed value is dense whatever its input's layout.
  CHECK(strides_of(g, "relu") == "4,1,1,1,");
  CHECK(core.strides_inferred == 8);
}

TEST_CASE("pooling and padding and dtype casts and contiguous and rms norm decompose", "[fusion]") {
  const auto core = decomposed(
      "        conv_transpose2d: \"bf16[2, 4, 16, 16]\" = "
      "torch.ops.aten.conv_transpose2d.input(x, w, None, [2, 2], [1, 1], [1, 1])\n"
      "        max_pool2d: \"bf16[2, 4, 8, 8]\" = torch.ops.aten.max_pool2d.default("
      "conv_transpose2d, [2, 2], [2, 2])\n"
      "        transpose: \"bf16[2, 4, 8, 8]\" = torch.ops.aten.transpose.int(max_pool2d, 2, 3)\n"
      "        contiguous: \"bf16[2, 4, 8, 8]\" = torch.ops.aten.contiguous.default(transpose)\n"
      "        contiguous_1: \"bf16[2, 4, 8, 8]\" = torch.ops.aten.contiguous.default(contiguous)\n"
      "        to: \"f32[2, 4, 8, 8]\" = torch.ops.aten.to.dtype(contiguous_1, torch.float32)\n"
      "        type_as: \"f32[2, 4, 8, 8]\" = torch.ops.aten.type_as.default(to, to)\n"
      "        pad: \"f32[2, 4, 10, 10]\" = torch.ops.aten.pad.default(type_as, [1, 1, 1, 1])\n"
      "        pad_1: \"f32[2, 4, 12, 12]\" = torch.ops.aten.pad.default(pad, [1, 1, 1, 1], "
      "'reflect')\n"
      "        rms_norm: \"bf16[2, 4, 8, 8]\" = torch.ops.aten.rms_norm.default(max_pool2d, [8], "
      "g)\n"
      "        return (pad_1, rms_norm)\n",
      "x: \"bf16[2, 8, 8, 8]\", w: \"bf16[8, 4, 3, 3]\", g: \"bf16[8]\"");
  const graph::Graph& g = core.graph;
  // conv_transpose2d(x, w, b, stride, padding, output_padding): a transposed convolution.
  REQUIRE(target_of(g, "conv_transpose2d") == "aten.convolution");
  const auto& conv = g.node(*g.find("conv_transpose2d"));
  CHECK(conv.args.at(6).as_bool());
  CHECK(conv.args.at(7).to_string() == "[1, 1]");
  CHECK(target_of(g, "max_pool2d") == "operator.getitem");
  CHECK(count_of(g, "aten.max_pool2d_with_indices") == 1);
  // contiguous copies a transposed input and is its input where that is row-major already;
  // to and type_as convert only where the dtype changes.
  CHECK(target_of(g, "contiguous") == "aten.clone");
  CHECK(target_of(g, "contiguous_1") == "(absent)");
  CHECK(target_of(g, "to") == "prims.convert_element_type");
  CHECK(target_of(g, "type_as") == "(absent)");
  CHECK(target_of(g, "pad") == "aten.constant_pad_nd");
  // Only constant padding decomposes: the reflect pad is kept, and said.
  CHECK(target_of(g, "pad_1") == "aten.pad");
  REQUIRE(core.warnings.size() == 1);
  CHECK(core.warnings.front().message.find("reflect") != std::string::npos);
  // rms_norm in f32 for bf16: mean of squares over the last dim, then converted back.
  CHECK(target_of(g, "rms_norm") == "prims.convert_element_type");
  CHECK(count_of(g, "aten.mean") == 1);
  CHECK(count_of(g, "aten.rsqrt") == 1);
  CHECK(core.decomposed == 8);  // all but the reflect pad
}

TEST_CASE("a real BERT export is planned on its core ATen graph at its own batch", "[fusion]") {
  auto log =
      trace::read_trace(test::sample("export_bert/dedicated_log_torch_trace_v62taa2r.log.zst"));
  REQUIRE(log);
  REQUIRE(log->units().size() == 1);
  const trace::CompileUnit& unit = log->units().front();
  // export's symbols carry no compile id: the batch's (2, range [2, 64]) joins the unit, so the
  // plan sizes the graph at the batch traced rather than a default.
  REQUIRE(unit.symbols.size() >= 1);
  CHECK(unit.symbols.front().value == "2");
  const auto plans = fusion::fuse_unit(unit, fusion::Mode::default_mode);
  REQUIRE(plans.size() == 1);
  const auto& f = plans.front();
  for (const auto& w : f.warnings) WARN(w.message);
  CHECK(f.warnings.empty());
  CHECK(f.hints.count(unit.symbols.front().symbol) == 1);
  const graph::Graph& g = f.post_grad;
  CHECK(!fusion::has_export_composite_ops(g));
  // layer_norm as var_mean and pointwise ops (one reduction kernel each), the boolean mask as
  // the additive one the attention kernel takes.
  CHECK(count_of(g, "aten.native_layer_norm") == 0);
  CHECK(count_of(g, "aten.var_mean") >= 4);
  CHECK(count_of(g, "aten._scaled_dot_product_efficient_attention") == 2);
  for (const auto& node : g.nodes()) {
    if (ops::op_key(node.target) != "aten._scaled_dot_product_efficient_attention") continue;
    REQUIRE(node.args.size() > 3);
    REQUIRE(node.args[3].is_node());
    INFO(node.name);
    CHECK(g.node(node.args[3].as_node()).meta->dtype == "f32");
  }
  CHECK(f.ours.unknown_ops.empty());
}

TEST_CASE("a view of a transposed tensor takes the strides PyTorch computes for it", "[fusion]") {
  // nn.MultiheadAttention's heads (torchvision's ViT): q.view(L, B * H, E).transpose(0, 1), then
  // .view(B, H, L, E) splits the transposed batch dim in place; a reshape that cannot be laid
  // over its input copies it first.
  const auto core = decomposed(
      "        view: \"f32[197, 24, 64]\" = torch.ops.aten.view.default(q, [197, 24, 64])\n"
      "        transpose: \"f32[24, 197, 64]\" = torch.ops.aten.transpose.int(view, 0, 1)\n"
      "        view_1: \"f32[2, 12, 197, 64]\" = torch.ops.aten.view.default(transpose, [2, 12, "
      "197, 64])\n"
      "        reshape: \"f32[24, 12608]\" = torch.ops.aten.reshape.default(transpose, [24, "
      "12608])\n"
      "        reshape_1: \"f32[197, 1536]\" = torch.ops.aten.reshape.default(view, [197, "
      "1536])\n"
      "        return (view_1, reshape, reshape_1)\n",
      "q: \"f32[197, 1536]\"");
  const graph::Graph& g = core.graph;
  CHECK(strides_of(g, "transpose") == "64,1536,1,");
  CHECK(strides_of(g, "view_1") == "768,64,1536,1,");
  // [24, 197, 64] with 197 and 64 apart in memory cannot be [24, 12608] without a copy.
  CHECK(target_of(g, "reshape") == "aten.view");
  CHECK(target_of(g, "reshape_clone") == "aten.clone");
  CHECK(strides_of(g, "reshape") == "12608,1,");
  // A row-major input reshapes in place.
  CHECK(target_of(g, "reshape_1") == "aten.view");
  CHECK(count_of(g, "aten.clone") == 1);
}

TEST_CASE("in-place ops of an export become functional and their tensor's later readers follow",
          "[fusion]") {
  // torchvision's ReLU(inplace=True) and its residual `out += identity`: relu_ and add_ mutate
  // the tensor conv computed; a later reader of that tensor reads the last result.
  const auto core = decomposed(
      "        add: \"f32[2, 8]\" = torch.ops.aten.add.Tensor(x, 1)\n"
      "        relu_: \"f32[2, 8]\" = torch.ops.aten.relu_.default(add)\n"
      "        add_: \"f32[2, 8]\" = torch.ops.aten.add_.Tensor(relu_, x)\n"
      "        hardswish_: \"f32[2, 8]\" = torch.ops.aten.hardswish_.default(add)\n"
      "        mul: \"f32[2, 8]\" = torch.ops.aten.mul.Tensor(add, 2)\n"
      "        return (mul,)\n",
      "x: \"f32[2, 8]\"");
  const graph::Graph& g = core.graph;
  CHECK(core.functionalized == 3);
  CHECK(target_of(g, "relu_") == "aten.relu");
  CHECK(target_of(g, "add_") == "aten.add");
  CHECK(target_of(g, "hardswish_") == "aten.hardswish");
  const auto input_of = [&](const char* name, std::size_t i) {
    return g.node(g.node(*g.find(name)).args.at(i).as_node()).name;
  };
  CHECK(input_of("relu_", 0) == "add");
  CHECK(input_of("add_", 0) == "relu_");
  CHECK(input_of("hardswish_", 0) == "add_");
  CHECK(input_of("mul", 0) == "hardswish_");
  CHECK(fusion::plan(g, fusion::Mode::default_mode).unknown_ops.empty());
}

TEST_CASE("F.interpolate's upsample overloads become Inductor's gathers", "[fusion]") {
  // upsample_bilinear2d.vec / upsample_nearest2d.vec, as a segmentation head's F.interpolate
  // leaves them in the training IR: bilinear as four _unsafe_index gathers blended W then H
  // (the pattern FCN-ResNet50's post-grad graph holds), nearest as one.
  const auto core = decomposed(
      "        up: \"f32[1, 2, 8, 8]\" = torch.ops.aten.upsample_bilinear2d.vec(x, [8, 8], False, "
      "None)\n"
      "        near: \"f32[1, 2, 8, 8]\" = torch.ops.aten.upsample_nearest2d.vec(x, None, [2.0, "
      "2.0])\n"
      "        return (up, near)\n",
      "x: \"f32[1, 2, 4, 4]\"");
  const graph::Graph& g = core.graph;
  for (const auto& w : core.warnings) WARN(w.message);
  CHECK(core.warnings.empty());
  CHECK(core.decomposed == 2);
  CHECK(count_of(g, "aten._unsafe_index") == 5);
  CHECK(count_of(g, "prims.iota") == 4);
  CHECK(target_of(g, "up") == "aten.add");
  CHECK(target_of(g, "near") == "aten._unsafe_index");
  // The source index of bilinear without align_corners: (i + 0.5) * in / out - 0.5, at 0 or more.
  const auto mul = g.find("up_w_mul");
  REQUIRE(mul);
  CHECK(g.node(*mul).args.at(1).as_float() == 0.5);
  CHECK(target_of(g, "up_w_clamp") == "aten.clamp_min");
  CHECK(strides_of(g, "up_h_view") == "1,1,");
  CHECK(fusion::plan(g, fusion::Mode::default_mode).unknown_ops.empty());
}
