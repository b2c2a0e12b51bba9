// Logs without Dynamo compile ids (torch.export, AOTInductor) open as units: on a real captured
// log with its ids taken out, and on tlparse's public export, AOTInductor and older Dynamo logs
// (sample_graphs/public/tlparse/inputs), which older PyTorch versions wrote.
#include <catch2/catch.hpp>

#include <filesystem>
#include <regex>
#include <string>
#include <vector>

#include "compress.h"
#include "fxscope/fusion/unit_fusion.h"
#include "fxscope/graph/fx_readable_parser.h"
#include "fxscope/trace/trace_log.h"
#include "samples.h"
#include "scratch_dir.h"

using namespace fxscope;
using namespace fxscope::trace;
using test::ScratchDir;

namespace {

// One of tlparse's test logs bundled in sample_graphs/public/tlparse/inputs (zstd-compressed).
std::string tlparse_input(const std::string& name) {
  return test::sample("public/tlparse/inputs/" + name + ".zst");
}

// The warnings of a read log, one per line, for a failing check's message.
std::string listed(const TraceLog& log) {
  std::string out;
  for (const auto& w : log.warnings()) out += w.where + ": " + w.message + "\n";
  return out;
}

// The plans of the one unit of tlparse's input NAME, in default mode, beside Inductor's.
std::vector<fusion::GraphFusion> fused_input(const std::string& name) {
  const auto read = read_trace(tlparse_input(name));
  REQUIRE(read.ok());
  REQUIRE(read->units().size() == 1);
  return fusion::fuse_unit(read->units()[0], fusion::Mode::default_mode);
}

}  // namespace

TEST_CASE("a log without compile ids is one unit of its producer", "[trace][producer]") {
  const ScratchDir dir("no_ids");
  const std::string log = test::slurp(test::data("trace/small.log"));
  const std::string without = std::regex_replace(
      log, std::regex(R"(, "frame_id": 0, "frame_compile_id": 0, "attempt": 0)"), "");
  REQUIRE(without != log);
  const auto path = dir.write("aoti.log", without);
  const auto read = read_trace(path);
  REQUIRE(read.ok());
  REQUIRE(read->units().size() == 1);
  const CompileUnit& unit = read->units()[0];
  CHECK(unit.producer == "AOTInductor");
  CHECK(unit.id.str() == "0/0");
  CHECK(unit.dynamo_graph() != nullptr);
  // A log with ids is Dynamo's: no producer.
  const auto with_ids = read_trace(test::data("trace/small.log"));
  REQUIRE(with_ids.ok());
  CHECK(with_ids->units().at(0).producer.empty());
}

TEST_CASE("tlparse's export and AOTInductor logs", "[trace][producer][public]") {
  SECTION("a draft export: its program, its guards and its problems") {
    // Its printed program's blank lines lost their TAB (and whatever followed it, so the md5
    // differs): the payload still reads to its end.
    const auto read = read_trace(tlparse_input("export.log"));
    REQUIRE(read.ok());
    INFO(listed(*read));
    REQUIRE(read->units().size() == 1);
    const CompileUnit& unit = read->units()[0];
    CHECK(unit.producer == "torch.export");
    REQUIRE(unit.aot_graph() != nullptr);
    CHECK(unit.aot_graph()->name == "exported_program");
    CHECK(unit.aot_graph()->payload.line_count == 24);
    CHECK(unit.shape_guards.size() == 7);
    REQUIRE_FALSE(unit.export_issues.empty());
    CHECK(unit.export_issues[0].kind == "data-dependent expression");
    CHECK_FALSE(unit.export_issues[0].user_stack.empty());
    REQUIRE(read->warnings().size() == 1);
    CHECK(read->warnings()[0].message.find("cut short or edited") != std::string::npos);
  }
  SECTION("AOTInductor: graphs, post-grad graph, provenance and the C++ wrapper") {
    const auto read = read_trace(tlparse_input("inductor_provenance_aot_cuda_log.txt"));
    REQUIRE(read.ok());
    INFO(listed(*read));
    CHECK(read->warnings().empty());
    REQUIRE(read->units().size() == 1);
    const CompileUnit& unit = read->units()[0];
    CHECK(unit.producer == "AOTInductor");
    CHECK(unit.aot_graph() != nullptr);
    CHECK(unit.find(ArtifactKind::kPostGradGraph) != nullptr);
    CHECK(unit.find(ArtifactKind::kProvenanceMappings) != nullptr);
    // An older AOTInductor: its wrapper's launches carry no debug handle and it logs no autotune
    // module; the provenance map, keyed by kernel name, still gives Inductor's kernels. Its
    // graph declares its four inputs on one line.
    REQUIRE(unit.find(ArtifactKind::kAotWrapperCode) != nullptr);
    const auto fused = fusion::fuse_unit(unit, fusion::Mode::default_mode);
    REQUIRE(fused.size() == 1);
    for (const auto& w : fused[0].warnings) INFO(w.where << ": " << w.message);
    CHECK(fused[0].warnings.empty());
    CHECK(fused[0].post_grad.count(graph::OpKind::placeholder) == 4);
    CHECK(fused[0].agreement.inductor_launches == 5);  // two mm_out calls, three Triton kernels
    CHECK(fused[0].agreement.kernels.size() == 3);
    CHECK(fused[0].agreement.exact_count() == 3);
  }
  SECTION("AOTInductor with debug handles") {
    const auto fused = fused_input("inductor_provenance_aot_debug_handle_log.txt");
    REQUIRE(fused.size() == 1);
    CHECK(fused[0].agreement.kernels.size() == 3);
    CHECK(fused[0].agreement.exact_count() == 3);
  }
  SECTION("AOTInductor on the CPU: C++ kernels called directly") {
    const auto fused = fused_input("inductor_provenance_aot_log.txt");
    REQUIRE(fused.size() == 1);
    CHECK(fused[0].agreement.inductor_launches == 4);  // two addmm_out calls, two C++ kernels
    for (const auto& group : fused[0].inductor.groups) {
      INFO(group.name);
      CHECK_FALSE(group.nodes.empty());
    }
  }
  SECTION("an older Inductor: the post-grad graph as after_post_grad_graph, one provenance map") {
    // torch.compile's log of PyTorch 2.6: no inductor_post_grad_graph, and the kernels' nodes
    // in inductor_triton_kernel_to_post_grad_nodes.
    const auto read = read_trace(tlparse_input("inductor_provenance_jit_cuda_log.txt"));
    REQUIRE(read.ok());
    REQUIRE(read->units().size() == 1);
    const CompileUnit& unit = read->units()[0];
    REQUIRE(unit.find(ArtifactKind::kPostGradGraph) != nullptr);
    CHECK(unit.find(ArtifactKind::kPostGradGraph)->name == "after_post_grad_graph");
    REQUIRE(unit.find(ArtifactKind::kProvenanceMappings) != nullptr);
    const auto fused = fusion::fuse_unit(unit, fusion::Mode::default_mode);
    REQUIRE(fused.size() == 1);
    CHECK(fused[0].agreement.inductor_launches == 5);
    CHECK(fused[0].agreement.kernels.size() == 3);
    CHECK(fused[0].agreement.exact_count() == 3);
    for (const auto& group : fused[0].inductor.groups) {
      if (group.kind != fusion::GroupKind::extern_kernel)
        CHECK(group.note == "members from provenance");
    }
  }
  SECTION("an older Dynamo: parameters annotated with their Python type") {
    // `def forward(self, L_x_ : torch.Tensor):` then `l_x_ = L_x_`.
    const auto read = read_trace(tlparse_input("comp_metrics.log"));
    REQUIRE(read.ok());
    INFO(listed(*read));
    CHECK(read->warnings().empty());
    REQUIRE(read->units().size() == 3);
    // It records no graph break reason; frame 2 is torch_dynamo_resume_in_fn_at_9551, so fn
    // (frame 1) broke at line 9551, for the reason its restart gives.
    REQUIRE(read->graph_breaks().size() == 1);
    const GraphBreak& gb = read->graph_breaks()[0];
    CHECK(gb.line == 9551);
    CHECK(gb.reason.find("skip function graph_break") != std::string::npos);
    CHECK(gb.message.find("inferred from the resume function") != std::string::npos);
    REQUIRE(gb.compile_ids.size() == 1);
    CHECK(gb.compile_ids[0].str() == "1/0");
    CHECK(read->units()[1].graph_breaks.size() == 1);
    for (const CompileUnit& unit : read->units()) {
      REQUIRE(unit.dynamo_graph() != nullptr);
      const auto parsed =
          graph::parse_fx_readable(unit.dynamo_graph()->payload.text(), unit.id.str());
      CHECK(parsed.warnings.empty());
      CHECK(parsed.graph.op_count() == 1);
      CHECK(parsed.graph.count(graph::OpKind::placeholder) == 1);
    }
  }
}
