// The runtime's two launches of index_put (self copied, then the values scattered) compile with
// NVRTC for sm_90 in f32, f16 and bf16, accumulating (atomicAdd; the prelude's compare-and-swap
// add for 16-bit elements) and storing. NVRTC needs no GPU; where it cannot be loaded the test
// says so and checks nothing.

#include <catch2/catch.hpp>

#include <string>

#include "fxscope/codegen/kernel_codegen.h"
#include "fxscope/gpu/nvrtc_compiler.h"
#include "fxscope/graph/fx_readable_parser.h"
#include "nvrtc_usable.h"

using namespace fxscope;

TEST_CASE("index_put's copy and scatter launches compile for sm_90 in every float dtype",
          "[nvrtc][codegen]") {
  if (!test::nvrtc_unusable().empty()) {
    WARN("NVRTC is not usable here, nothing was compiled: " << test::nvrtc_unusable());
    return;
  }
  int compiled = 0;
  for (const std::string dtype : {"f32", "f16", "bf16"}) {
    for (const std::string accumulate : {"True", "False"}) {
      const std::string code =
          "class GraphModule(torch.nn.Module):\n    def forward(self, arg0_1: \"" + dtype +
          "[64, 8][8, 1]cuda:0\", arg1_1: \"i64[32][1]cuda:0\", arg2_1: \"" + dtype +
          "[32, 8][8, 1]cuda:0\"):\n        index_put: \"" + dtype +
          "[64, 8][8, 1]cuda:0\" = torch.ops.aten.index_put_.default(arg0_1, [arg1_1], arg2_1, " +
          accumulate + ")\n        return (index_put,)\n";
      const auto g = graph::parse_fx_readable(code, "index_put").graph;
      fusion::KernelGroup group;
      group.name = "aten.index_put_";
      group.kind = fusion::GroupKind::extern_kernel;
      group.nodes = {*g.find("index_put")};
      group.outputs = group.nodes;
      REQUIRE(codegen::lone_index_put(g, group) == group.nodes.front());
      for (const std::string_view note :
           {codegen::kIndexPutSelfNote, codegen::kIndexPutScatterNote}) {
        fusion::KernelGroup part = group;
        part.kind = fusion::GroupKind::pointwise;
        part.note = std::string(note);
        const auto k = codegen::generate(g, part, {});
        INFO(dtype << " accumulate=" << accumulate << " " << note);
        REQUIRE(k);
        if (note == codegen::kIndexPutScatterNote && accumulate == "True") {
          const std::string add = dtype == "f32"   ? "atomicAdd("
                                  : dtype == "f16" ? "fx_atomic_add_f16("
                                                   : "fx_atomic_add_bf16(";
          CHECK(k->source.find(add) != std::string::npos);
        }
        gpu::NvrtcOptions options;
        options.use_cache = false;
        const auto cubin = gpu::compile_cuda(k->source, k->entry, options);
        INFO((cubin ? std::string() : cubin.error().message));
        CHECK(cubin);
        ++compiled;
      }
    }
  }
  CHECK(compiled == 12);
}
