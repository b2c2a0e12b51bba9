#include <catch2/catch.hpp>

#include <set>
#include <string>

#include "fxscope/fusion/unit_fusion.h"
#include "fxscope/inductor/output_code.h"
#include "fxscope/report/summary.h"
#include "fxscope/trace/trace_log.h"
#include "samples.h"

using namespace fxscope;

namespace {

const trace::CompileUnit* aoti_unit(const trace::TraceLog& log) {
  for (const trace::CompileUnit& unit : log.units()) {
    if (unit.find(trace::ArtifactKind::kAotWrapperCode)) return &unit;
  }
  return nullptr;
}

}  // namespace

TEST_CASE("AOTInductor's C++ wrapper reads as the launches of its graph", "[inductor]") {
  // ResNet-18 compiled by AOTInductor: run_impl makes 39 launches, 20 convolutions and one
  // addmm through the C shim and 18 Triton launches of 13 kernels (the provenance handles
  // number them 1 to 39, in order).
  const auto log = trace::read_trace(test::sample("aoti_resnet18"));
  REQUIRE(log);
  const trace::CompileUnit* unit = aoti_unit(*log);
  REQUIRE(unit);
  const trace::Artifact* wrapper = unit->find(trace::ArtifactKind::kAotWrapperCode);
  const trace::Artifact* autotune = unit->find(trace::ArtifactKind::kAutotuneCode);
  REQUIRE(autotune);
  const inductor::OutputCode code = inductor::parse_aot_wrapper_code(
      wrapper->payload.text(), autotune->payload.text(), "aoti_resnet18");
  for (const auto& w : code.warnings()) INFO(w.where << ": " << w.message);
  CHECK(code.warnings().empty());
  CHECK(code.launches().size() == 39);
  CHECK(code.kernels().size() == 13);
  CHECK(code.extern_launch_count() == 21);
  std::size_t handle = 0;
  for (const inductor::Launch& launch : code.launches()) {
    INFO(launch.callee << " line " << launch.line);
    REQUIRE(launch.comments.provenance_handles.size() == 1);
    const std::string& h = launch.comments.provenance_handles.front();
    CHECK(h.substr(h.rfind(':') + 1) == std::to_string(++handle));
    if (launch.kind == inductor::LaunchKind::extern_op) {
      CHECK((launch.op == "convolution" || launch.op == "addmm"));
      continue;
    }
    REQUIRE(launch.kernel);
    const inductor::Kernel& kernel = code.kernels()[*launch.kernel];
    // The autotune module's definitions keep Inductor's header: the graph fragment's nodes.
    CHECK_FALSE(kernel.comments.fragment_nodes.empty());
    CHECK_FALSE(launch.stored.empty());
    // The launcher's device, stream, kernel table and cubin folder are no kernel argument.
    CHECK(launch.grid.empty());
    REQUIRE_FALSE(launch.numels.empty());
    CHECK(launch.numels.front().value.find("s77") != std::string::npos);  // 802816L*s77 read
    CHECK(launch.numels.front().value.find('L') == std::string::npos);
  }
}

TEST_CASE("without the autotune module the wrapper's embedded kernels are read", "[inductor]") {
  const auto log = trace::read_trace(test::sample("aoti_mobilenet_v3_small"));
  REQUIRE(log);
  const trace::CompileUnit* unit = aoti_unit(*log);
  REQUIRE(unit);
  const inductor::OutputCode code = inductor::parse_aot_wrapper_code(
      unit->find(trace::ArtifactKind::kAotWrapperCode)->payload.text(), "", "mobilenet");
  CHECK(code.warnings().empty());
  REQUIRE_FALSE(code.kernels().empty());
  std::set<std::string> kinds;
  for (const inductor::Kernel& kernel : code.kernels()) {
    INFO(kernel.name);
    CHECK(kernel.source.starts_with("import triton"));  // dedented out of the launcher
    CHECK_FALSE(kernel.meta.params.empty());
    kinds.insert(std::string(inductor::to_string(kernel.kind)));
  }
  CHECK(kinds.count("pointwise") == 1);
  CHECK(kinds.count("persistent_reduction") == 1);
  for (const inductor::Launch& launch : code.launches()) {
    if (launch.kind == inductor::LaunchKind::kernel) CHECK(launch.kernel);
  }
}

TEST_CASE("an AOTInductor log's own kernels stand beside the plan", "[inductor][fusion]") {
  // Every post-grad node Inductor computes lands in one of its groups, as provenance says.
  for (const std::string name : {"aoti_resnet18", "aoti_mobilenet_v3_small", "aoti_provenance"}) {
    INFO(name);
    const auto log = trace::read_trace(test::sample(name));
    REQUIRE(log);
    const trace::CompileUnit* unit = aoti_unit(*log);
    REQUIRE(unit);
    const auto fused = fusion::fuse_unit(*unit, fusion::Mode::default_mode);
    REQUIRE(fused.size() == 1);
    const fusion::GraphFusion& g = fused.front();
    CHECK(g.inductor.groups.size() == g.agreement.inductor_launches);
    REQUIRE_FALSE(g.inductor.groups.empty());
    for (const fusion::KernelGroup& group : g.inductor.groups) {
      INFO(group.name);
      CHECK_FALSE(group.nodes.empty());
    }
    for (const auto& w : g.inductor.warnings) INFO(w.where << ": " << w.message);
    CHECK(g.inductor.warnings.empty());
  }
}

TEST_CASE("a truncated or foreign wrapper is named, not read as launches", "[inductor]") {
  const inductor::OutputCode none = inductor::parse_aot_wrapper_code("int main() {}", "", "x.cpp");
  REQUIRE(none.warnings().size() == 1);
  CHECK(none.warnings().front().message.find("run_impl") != std::string::npos);
  CHECK(none.launches().empty());
  const inductor::OutputCode cut = inductor::parse_aot_wrapper_code(
      "void call_triton_k(){\n/*\nasync_compile.triton('k', '''\nimport triton\n", "", "y.cpp");
  bool named = false;
  for (const auto& w : cut.warnings()) named |= w.message.find("kernel k") != std::string::npos;
  CHECK(named);
  CHECK(inductor::parse_aot_wrapper_code("", "", "z.cpp").warnings().size() == 1);
}

TEST_CASE("an AOTInductor unit's launches count in its summary", "[inductor][report]") {
  const auto log = trace::read_trace(test::sample("aoti_resnet18"));
  REQUIRE(log);
  const report::Summary summary = report::summarize(*log);
  REQUIRE(summary.units.size() == 1);
  CHECK(summary.units[0].inductor_kernels == 39);
  CHECK(summary.units[0].triton_launches == 18);
  CHECK(summary.units[0].extern_launches == 21);
  REQUIRE(aoti_unit(*log));
  CHECK(aoti_unit(*log)->inductor_codes().size() == 1);  // the wrapper: no Python output code
}
