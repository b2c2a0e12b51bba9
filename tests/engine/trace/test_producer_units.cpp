// Logs without Dynamo compile ids (torch.export, AOTInductor) open as units: on a real captured
// log with its ids taken out, and on tlparse's public export and AOTInductor logs when a mirror
// of pytorch/tlparse is at hand (FXSCOPE_TLPARSE_MIRROR, else /work/.mirror/pytorch+tlparse/repo).
#include <catch2/catch.hpp>

#include <cstdlib>
#include <filesystem>
#include <regex>
#include <string>

#include "compress.h"
#include "fxscope/fusion/unit_fusion.h"
#include "fxscope/trace/trace_log.h"
#include "run_process.h"
#include "samples.h"
#include "scratch_dir.h"

using namespace fxscope;
using namespace fxscope::trace;
using test::ScratchDir;

namespace {

// PATH of tlparse's repository written into DIR; empty when no mirror holds it.
std::string from_mirror(const std::string& path, const ScratchDir& dir) {
  const char* env = std::getenv("FXSCOPE_TLPARSE_MIRROR");
  const std::string mirror =
      env != nullptr && *env != '\0' ? env : "/work/.mirror/pytorch+tlparse/repo";
  if (!std::filesystem::exists(mirror)) return {};
  const std::string out = dir.path() + "/" + std::filesystem::path(path).filename().string();
  const auto shown = test::run_process("git --git-dir='" + mirror + "' show 'HEAD:" + path +
                                       "' > '" + out + "' 2>/dev/null");
  return shown.status == 0 ? out : std::string();
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
  const ScratchDir dir("tlparse_producers");
  SECTION("a draft export: its program, its guards and its problems") {
    const auto path = from_mirror("tests/inputs/export.log", dir);
    if (path.empty()) {
      WARN("no tlparse mirror: not checked");
      return;
    }
    const auto read = read_trace(path);
    REQUIRE(read.ok());
    REQUIRE(read->units().size() == 1);
    const CompileUnit& unit = read->units()[0];
    CHECK(unit.producer == "torch.export");
    REQUIRE(unit.aot_graph() != nullptr);
    CHECK(unit.aot_graph()->name == "exported_program");
    CHECK(unit.shape_guards.size() == 7);
    REQUIRE_FALSE(unit.export_issues.empty());
    CHECK(unit.export_issues[0].kind == "data-dependent expression");
    CHECK_FALSE(unit.export_issues[0].user_stack.empty());
  }
  SECTION("AOTInductor: graphs, post-grad graph and provenance") {
    const auto path = from_mirror("tests/inputs/inductor_provenance_aot_cuda_log.txt", dir);
    if (path.empty()) return;
    const auto read = read_trace(path);
    REQUIRE(read.ok());
    REQUIRE(read->units().size() == 1);
    const CompileUnit& unit = read->units()[0];
    CHECK(unit.producer == "AOTInductor");
    CHECK(unit.aot_graph() != nullptr);
    CHECK(unit.find(ArtifactKind::kPostGradGraph) != nullptr);
    CHECK(unit.find(ArtifactKind::kProvenanceMappings) != nullptr);
    // An older AOTInductor: its wrapper's launches carry no debug handle and it logs no autotune
    // module; the provenance map, keyed by kernel name, still gives Inductor's kernels.
    REQUIRE(unit.find(ArtifactKind::kAotWrapperCode) != nullptr);
    const auto fused = fusion::fuse_unit(unit, fusion::Mode::default_mode);
    REQUIRE(fused.size() == 1);
    CHECK(fused[0].agreement.inductor_launches == 5);  // two mm_out calls, three Triton kernels
    CHECK(fused[0].agreement.kernels.size() == 3);
    CHECK(fused[0].agreement.exact_count() == 3);
  }
  SECTION("AOTInductor on the CPU: C++ kernels called directly") {
    const auto path = from_mirror("tests/inputs/inductor_provenance_aot_log.txt", dir);
    if (path.empty()) return;
    const auto read = read_trace(path);
    REQUIRE(read.ok());
    REQUIRE(read->units().size() == 1);
    const auto fused = fusion::fuse_unit(read->units()[0], fusion::Mode::default_mode);
    REQUIRE(fused.size() == 1);
    CHECK(fused[0].agreement.inductor_launches == 4);  // two addmm_out calls, two C++ kernels
    for (const auto& group : fused[0].inductor.groups) {
      INFO(group.name);
      CHECK_FALSE(group.nodes.empty());
    }
  }
}
