// Hand-made and broken inputs: what must not count, what must warn, and never a crash or hang.

#include <catch2/catch.hpp>

#include <fstream>
#include <sstream>

#include "fxscope/inductor/output_code.h"
#include "log_payloads.h"
#include "samples.h"

using namespace fxscope;
using namespace fxscope::inductor;

namespace {

std::string read_file(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

bool warned(const OutputCode& code, const std::string& part) {
  for (const Warning& w : code.warnings()) {
    if (w.message.find(part) != std::string::npos) return true;
  }
  return false;
}

std::string residual_mlp_code() {
  const auto payloads = test::payloads("residual_mlp", "inductor_output_code");
  REQUIRE(payloads.size() == 1);
  return payloads.front().payload;
}

}  // namespace

TEST_CASE("text inside ''' kernel sources is neither a launch nor a header", "[inductor]") {
  const std::string text = read_file(test::data("inductor/tricky_output_code.py"));
  REQUIRE_FALSE(text.empty());
  const OutputCode code = parse_output_code(text, "tricky");
  REQUIRE(code.kernels().size() == 2);
  const Kernel& poi = code.kernels()[0];
  CHECK(poi.comments.source_nodes == std::vector<std::string>{"y"});
  CHECK(poi.comments.kernel_path == "/tmp/x/a.py");
  CHECK(poi.meta.params == std::vector<std::string>{"in_ptr0", "out_ptr0", "xnumel"});
  CHECK(poi.source.find("extern_kernels.mm(a, b, out=c)") != std::string::npos);
  const Kernel& cpp = code.kernels()[1];
  CHECK(cpp.name == "cpp_fused_add_1");
  CHECK(cpp.compile_kind == "cpp_pybinding");
  CHECK(cpp.kind == KernelKind::other);
  CHECK(cpp.comments.source_nodes.empty());

  // The Triton launch split over three lines, the C++ kernel called directly, and the launch of
  // an undefined kernel; not the ones inside the ''' string, not the torch.ops text in a string.
  REQUIRE(code.launches().size() == 3);
  const Launch& run = code.launches()[0];
  CHECK(run.line == 42);
  CHECK(run.function == "call");
  CHECK(run.comments.source_nodes == std::vector<std::string>{"y"});
  REQUIRE(run.numels.size() == 1);
  CHECK(run.numels[0].value == "8");
  CHECK(code.launches()[1].callee == "cpp_fused_add_1");
  CHECK(code.launches()[1].kernel == std::optional<std::size_t>(1));
  CHECK(code.launches()[2].callee == "triton_poi_fused_missing_9");
  CHECK_FALSE(code.launches()[2].kernel);
  CHECK(code.launch_count(0) == 1);

  CHECK(warned(code, "Original ATen"));          // the broken header
  CHECK(warned(code, "followed by no kernel"));  // ... but by async_compile.wait
  CHECK(warned(code, "does not define"));        // triton_poi_fused_missing_9
  CHECK(code.warnings().size() == 3);
  for (const Warning& w : code.warnings()) CHECK_THAT(w.where, Catch::StartsWith("tricky line "));
}

TEST_CASE("empty and garbage input give warnings, not kernels", "[inductor]") {
  const OutputCode empty = parse_output_code("", "empty");
  CHECK(empty.kernels().empty());
  CHECK(empty.launches().empty());
  REQUIRE(empty.warnings().size() == 1);
  CHECK(empty.warnings()[0].where == "empty");

  for (const std::string& garbage :
       {std::string("((((\n[[[\n"), std::string("'''"), std::string("\"\"\"abc\\"),
        std::string("x.run(\n"), std::string("\0\xff\n#\n\t\t", 6), std::string(10000, '(')}) {
    const OutputCode code = parse_output_code(garbage, "garbage");
    CHECK(code.kernels().empty());
    CHECK(code.launches().empty());
    CHECK_FALSE(code.warnings().empty());
  }
}

TEST_CASE("output code truncated inside a ''' string", "[inductor]") {
  const std::string text = residual_mlp_code();
  const std::size_t cut = text.find("tmp8 = libdevice");
  REQUIRE(cut != std::string::npos);
  const OutputCode code = parse_output_code(std::string_view(text).substr(0, cut), "cut");
  REQUIRE(code.kernels().size() == 1);
  CHECK(code.kernels()[0].name == "triton_poi_fused_add_addmm_gelu_mul_0");
  CHECK(code.launches().empty());
  CHECK(warned(code, "never ends"));
  CHECK(code.warnings()[0].where == "cut line 57");
}

TEST_CASE("every prefix of real output code parses without crashing", "[inductor]") {
  const std::string text = residual_mlp_code();
  std::size_t previous = 0;
  for (std::size_t n = 0; n <= text.size(); n += 13) {
    const OutputCode code = parse_output_code(std::string_view(text).substr(0, n), "prefix");
    CHECK(code.launches().size() >= previous);  // a longer prefix never loses a launch
    previous = code.launches().size();
  }
  CHECK(previous == 3);
}
