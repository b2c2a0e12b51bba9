// NVRTC needs no GPU: the generated kernels of every corpus log, in every mode, compile for
// sm_90. Kernels that differ only in their numbers (shapes, offsets, constants) and names take
// the same paths through the generator, so one of each such form is compiled (about 2,300 of
// the corpus's 29,000 kernels); FXSCOPE_NVRTC_EVERY_KERNEL=1 compiles every distinct source.
// Where NVRTC cannot be loaded, the test says so and checks nothing.

#include <catch2/catch.hpp>

#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <map>

#include "../../codegen/corpus_kernels.h"
#include "fxscope/codegen/kernel_codegen.h"
#include "fxscope/fusion/core_aten_graph.h"
#include "fxscope/gpu/engine_compiler.h"
#include "fxscope/gpu/nvrtc_compiler.h"
#include "fxscope/graph/fx_readable_parser.h"
#include "nvrtc_usable.h"

using namespace fxscope;

namespace {

// The source with comments dropped and every digit run written as 0: kernels of one form.
std::string form_of(const std::string& source) {
  std::string out;
  bool digits = false;
  std::size_t line_start = 0;
  while (line_start < source.size()) {
    std::size_t end = source.find('\n', line_start);
    if (end == std::string::npos) end = source.size();
    const std::string_view line(source.data() + line_start, end - line_start);
    const std::size_t first = line.find_first_not_of(' ');
    if (first == std::string_view::npos || line.substr(first, 2) != "//") {
      for (const char c : line) {
        const bool digit = std::isdigit(static_cast<unsigned char>(c)) != 0;
        if (!digit) out += c;
        if (digit && !digits) out += '0';
        digits = digit;
      }
      out += '\n';
    }
    line_start = end + 1;
  }
  return out;
}

}  // namespace

TEST_CASE("every generated kernel form of every corpus log compiles for sm_90",
          "[nvrtc][codegen][corpus]") {
  if (!test::nvrtc_unusable().empty()) {
    WARN("NVRTC is not usable here, the corpus kernels were not compiled: "
         << test::nvrtc_unusable());
    return;
  }
  const char* every = std::getenv("FXSCOPE_NVRTC_EVERY_KERNEL");
  const bool all = every != nullptr && std::string(every) == "1";
  std::map<std::string, std::string> sources;  // form (or source) -> "log mode file" and source
  std::map<std::string, std::string> where;
  std::size_t kernels = 0;
  test::for_each_corpus_plan(
      [&](const std::string& name, fusion::Mode mode, const codegen::UnitKernelSources& found) {
        for (const auto& file : found.files) {
          ++kernels;
          const std::string key = all ? file.text : form_of(file.text);
          if (sources.emplace(key, file.text).second) {
            where[key] = name + " " + std::string(fusion::to_string(mode)) + " " + file.name;
          }
        }
      });
  // A cache kept between runs (not the user's): a second run compiles only what changed.
  const gpu::EngineCompiler compiler(
      "sm_90", (std::filesystem::temp_directory_path() / "fxscope_nvrtc_corpus").string());
  std::vector<const std::string*> all_sources;
  for (const auto& [key, source] : sources) all_sources.push_back(&source);
  compiler.precompile(all_sources);
  std::size_t failed = 0;
  for (const auto& [key, source] : sources) {
    const auto cubin = compiler.compile(source, where[key]);
    if (!cubin) {
      ++failed;
      if (failed <= 20) std::cout << cubin.error().message << "\n";  // names the kernel's file
    }
  }
  std::cout << kernels << " corpus kernels, " << sources.size()
            << (all ? " distinct sources" : " forms") << " compiled for sm_90, " << failed
            << " failed\n";
  CHECK(sources.size() > 1000);
  CHECK(failed == 0);
}

TEST_CASE("every kernel of the bundled torch.export and AOTInductor logs is generated and compiles",
          "[nvrtc][codegen]") {
  // An exported program is planned as its core ATen graph (fusion::core_aten_graph): none of its
  // groups is refused as a composite op the runtime lacks.
  if (!test::nvrtc_unusable().empty()) {
    WARN("NVRTC is not usable here: " << test::nvrtc_unusable());
    return;
  }
  const gpu::EngineCompiler compiler(
      "sm_90", (std::filesystem::temp_directory_path() / "fxscope_nvrtc_corpus").string());
  for (const char* path :
       {"export_program/dedicated_log_torch_trace_8o3_upov.log.zst",
        "export_program/dedicated_log_torch_trace_xpph8do_.log.zst",
        "export_bert/dedicated_log_torch_trace_v62taa2r.log.zst", "export_resnet18",
        "export_mobilenet_v3_small", "export_vit_b_16", "export_fcn_resnet50", "aoti_resnet18",
        "aoti_mobilenet_v3_small", "aoti_provenance/dedicated_log_torch_trace_2mdov0to.log"}) {
    auto log = trace::read_trace(test::sample(path));
    REQUIRE(log);
    for (const fusion::Mode mode : fusion::kAllModes) {
      INFO(path << " in " << fusion::to_string(mode));
      const auto sources = codegen::unit_kernel_sources(*log, mode, "");
      REQUIRE(sources);
      for (const auto& r : sources->refused) WARN(r);
      CHECK(sources->refused.empty());
      CHECK(!sources->files.empty());
      for (const auto& file : sources->files) {
        const auto cubin = compiler.compile(file.text, file.name);
        INFO(file.name);
        CHECK(cubin);
      }
    }
  }
}

TEST_CASE("the kernels of an exported F.interpolate compile for sm_90", "[nvrtc][codegen]") {
  if (!test::nvrtc_unusable().empty()) {
    WARN("NVRTC is not usable here: " << test::nvrtc_unusable());
    return;
  }
  const std::string code =
      "class GraphModule(torch.nn.Module):\n"
      "    def forward(self, x: \"f32[1, 2, 4, 4]\"):\n"
      "        up: \"f32[1, 2, 8, 8]\" = torch.ops.aten.upsample_bilinear2d.vec(x, [8, 8], False, "
      "None)\n"
      "        near: \"f32[1, 2, 8, 8]\" = torch.ops.aten.upsample_nearest2d.vec(x, None, [2.0, "
      "2.0])\n"
      "        return (up, near)\n";
  const auto core = fusion::core_aten_graph(graph::parse_fx_readable(code, "up").graph, "up");
  const gpu::EngineCompiler compiler(
      "sm_90", (std::filesystem::temp_directory_path() / "fxscope_nvrtc_corpus").string());
  for (const fusion::Mode mode : {fusion::Mode::eager, fusion::Mode::default_mode}) {
    const auto plan = fusion::plan(core.graph, mode);
    std::size_t compiled = 0;
    for (const auto& group : plan.groups) {
      if (!codegen::has_generated_kernel(core.graph, group)) continue;
      const auto k = codegen::generate(core.graph, group, {});
      INFO(group.name << ": " << (k ? std::string() : k.error().message));
      REQUIRE(k);
      const auto cubin = compiler.compile(k->source, group.name);
      CHECK(cubin);
      ++compiled;
    }
    CHECK(compiled >= 1);
  }
}
