// The generated kernels of ATen ops outside Inductor's lowerings (the fused LSTM cell and its
// backward, sort, topk, histc, transformers' grouped_mm_fallback, nonzero) compile with NVRTC for
// sm_90 in every dtype they take. NVRTC needs no GPU; where it cannot be loaded the test says so
// and checks nothing.

#include <catch2/catch.hpp>

#include <string>

#include "fxscope/codegen/kernel_codegen.h"
#include "fxscope/gpu/nvrtc_compiler.h"
#include "fxscope/graph/fx_readable_parser.h"
#include "nvrtc_usable.h"

using namespace fxscope;

namespace extern_ops_nvrtc {

// Generates the kernel of NODE (an extern group of its own) in the graph of BODY and compiles it.
void compile(const std::string& signature, const std::string& body, const char* node) {
  const std::string code =
      "class GraphModule(torch.nn.Module):\n    def forward(self, " + signature + "):\n" + body;
  const auto g = graph::parse_fx_readable(code, node).graph;
  fusion::KernelGroup group;
  group.name = std::string("aten.") + node;
  group.kind = fusion::GroupKind::extern_kernel;
  group.nodes = {*g.find(node)};
  group.outputs = group.nodes;
  REQUIRE(codegen::lone_generated_extern(g, group) == group.nodes.front());
  const auto k = codegen::generate(g, group, {});
  INFO(body);
  INFO((k ? k->source : k.error().message));
  REQUIRE(k);
  gpu::NvrtcOptions options;
  options.use_cache = false;
  const auto cubin = gpu::compile_cuda(k->source, k->entry, options);
  INFO((cubin ? std::string() : cubin.error().message));
  CHECK(cubin);
}

}  // namespace extern_ops_nvrtc

TEST_CASE("the LSTM cell, sort, topk, histc, grouped mm and nonzero kernels compile for sm_90",
          "[nvrtc][codegen]") {
  if (!test::nvrtc_unusable().empty()) {
    WARN("NVRTC is not usable here, nothing was compiled: " << test::nvrtc_unusable());
    return;
  }
  for (const std::string t : {"f32", "f16", "bf16"}) {
    const std::string g4 = "\"" + t + "[8, 1024][1024, 1]cuda:0\"";
    const std::string h = "\"" + t + "[8, 256][256, 1]cuda:0\"";
    const std::string b = "\"" + t + "[1024][1]cuda:0\"";
    extern_ops_nvrtc::compile(
        "a: " + g4 + ", c: " + g4 + ", cx: " + h + ", b1: " + b + ", b2: " + b,
        "        lstm = torch.ops.aten._thnn_fused_lstm_cell.default(a, c, cx, b1, b2)\n"
        "        hy: " +
            h + " = lstm[0]\n        cy: " + h + " = lstm[1]\n        ws: " + g4 +
            " = lstm[2]\n        return (hy, cy, ws)\n",
        "lstm");
    extern_ops_nvrtc::compile(
        "ghy: " + h + ", gcy: " + h + ", cx: " + h + ", cy: " + h + ", ws: " + g4,
        "        bw = torch.ops.aten._thnn_fused_lstm_cell_backward_impl.default(ghy, gcy, cx, "
        "cy, ws, True)\n        gg: " +
            g4 + " = bw[0]\n        gcx: " + h + " = bw[1]\n        gb: " + b +
            " = bw[2]\n        return (gg, gcx, gb)\n",
        "bw");
    extern_ops_nvrtc::compile(
        "x: \"" + t + "[512, 8][8, 1]cuda:0\"",
        "        topk = torch.ops.aten.topk.default(x, 2)\n        v: \"" + t +
            "[512, 2][2, 1]cuda:0\" = topk[0]\n        i: \"i64[512, 2][2, 1]cuda:0\" = "
            "topk[1]\n        return (v, i)\n",
        "topk");
    extern_ops_nvrtc::compile(
        "x: \"" + t + "[4, 2048][2048, 1]cuda:0\"",
        "        sort = torch.ops.aten.sort.default(x, -1, True)\n        v: \"" + t +
            "[4, 2048][2048, 1]cuda:0\" = sort[0]\n        i: \"i64[4, 2048][2048, 1]cuda:0\" = "
            "sort[1]\n        return (v, i)\n",
        "sort");
  }
  extern_ops_nvrtc::compile(
      "x: \"i64[512][1]cuda:0\"",
      "        sort = torch.ops.aten.sort.default(x)\n        v: \"i64[512][1]cuda:0\" = "
      "sort[0]\n        i: \"i64[512][1]cuda:0\" = sort[1]\n        return (v, i)\n",
      "sort");
  for (const std::string t : {"i32", "i64", "f32"}) {
    extern_ops_nvrtc::compile("x: \"" + t + "[512][1]cuda:0\"",
                              "        histc: \"" + t +
                                  "[4][1]cuda:0\" = torch.ops.aten.histc.default(x, 4, 0, 3)\n"
                                  "        return (histc,)\n",
                              "histc");
  }
  for (const std::string t : {"f32", "bf16"}) {
    extern_ops_nvrtc::compile(
        "x: \"" + t + "[512, 256][256, 1]cuda:0\", w: \"" + t +
            "[4, 256, 1024][262144, 1, 256]cuda:0\", offs: \"i32[4][1]cuda:0\"",
        "        gmm: \"" + t +
            "[512, 1024][1024, 1]cuda:0\" = "
            "torch.ops.transformers.grouped_mm_fallback.default(x, w, offs)\n"
            "        return (gmm,)\n",
        "gmm");
  }
  extern_ops_nvrtc::compile("x: \"b8[256, 2][2, 1]cuda:0\"",
                            "        nz: \"i64[300, 2][1, 300]cuda:0\" = "
                            "torch.ops.aten.nonzero.default(x)\n"
                            "        return (nz,)\n",
                            "nz");
}
