// The provenance artifact of the two samples captured with provenance tracking on, and how it
// lines up with the output code's own comments.

#include <catch2/catch.hpp>

#include "fxscope/inductor/output_code.h"
#include "fxscope/inductor/provenance.h"
#include "log_payloads.h"
#include "samples.h"

using namespace fxscope;
using namespace fxscope::inductor;

namespace {

using Names = std::vector<std::string>;

Provenance provenance_of(const std::string& sample) {
  const auto payloads = test::payloads(sample, "inductor_provenance_tracking_node_mappings");
  REQUIRE(payloads.size() == 1);
  auto p = parse_provenance(payloads.front().payload, sample);
  REQUIRE(p.ok());
  CHECK(p->warnings.empty());
  return std::move(p).value();
}

OutputCode code_of(const std::string& sample) {
  const auto payloads = test::payloads(sample, "inductor_output_code");
  REQUIRE(payloads.size() == 1);
  return parse_output_code(payloads.front().payload, sample);
}

}  // namespace

TEST_CASE("residual_mlp provenance maps", "[inductor]") {
  const Provenance p = provenance_of("residual_mlp");
  CHECK(p.kernel_to_post.size() == 3);
  const Names* poi = p.kernel_to_post.find("triton_poi_fused_add_addmm_gelu_mul_0:3");
  REQUIRE(poi != nullptr);
  CHECK(*poi == Names{"add", "add_1", "add_tensor", "erf", "mul", "mul_1", "mul_2", "mul_3"});
  REQUIRE(p.kernel_to_post.find("extern_kernels.mm:2") != nullptr);
  CHECK(*p.kernel_to_post.find("extern_kernels.mm:2") == Names{"mm_default"});
  REQUIRE(p.post_to_kernel.find("addmm") != nullptr);
  CHECK(*p.post_to_kernel.find("addmm") == Names{"extern_kernels.addmm:1"});
  REQUIRE(p.post_to_pre.find("addmm") != nullptr);
  CHECK(*p.post_to_pre.find("addmm") == Names{"dropout", "linear"});
  REQUIRE(p.pre_to_post.find("gelu") != nullptr);
  CHECK(*p.pre_to_post.find("gelu") == Names{"add", "erf", "mul", "mul_1", "mul_2"});
  CHECK(p.pre_to_post.find("nothing") == nullptr);
  CHECK(p.post_nodes_of_kernel("triton_poi_fused_add_addmm_gelu_mul_0") == *poi);
}

TEST_CASE("residual_mlp: provenance equals the kernel's graph fragment", "[inductor]") {
  const Provenance p = provenance_of("residual_mlp");
  const OutputCode code = code_of("residual_mlp");
  REQUIRE(code.kernels().size() == 1);
  Names computed;
  for (const FragmentNode& n : code.kernels()[0].comments.fragment_nodes) {
    if (!n.placeholder) computed.push_back(n.name);
  }
  std::sort(computed.begin(), computed.end());
  CHECK(computed == p.post_nodes_of_kernel(code.kernels()[0].name));
  // Each launch's debug handle is a key of the map.
  for (const Launch& launch : code.launches()) {
    REQUIRE(launch.comments.provenance_handles.size() == 1);
    CHECK(p.kernel_to_post.find(launch.comments.provenance_handles[0]) != nullptr);
  }
}

TEST_CASE("pointwise_chain: three kernels of one fused chain", "[inductor]") {
  const Provenance p = provenance_of("pointwise_chain");
  const OutputCode code = code_of("pointwise_chain");
  CHECK(code.warnings().empty());
  REQUIRE(code.kernels().size() == 3);
  CHECK(code.kernels()[0].kind == KernelKind::reduction);
  CHECK(code.kernels()[1].kind == KernelKind::persistent_reduction);
  CHECK(code.kernels()[2].kind == KernelKind::pointwise);
  CHECK(code.launches().size() == 3);
  CHECK(p.post_nodes_of_kernel(code.kernels()[0].name).size() == 15);
  CHECK(p.post_nodes_of_kernel(code.kernels()[2].name).size() == 21);
  REQUIRE(p.pre_to_post.find("layer_norm") != nullptr);
  CHECK(p.pre_to_post.find("layer_norm")->size() == 9);
  CHECK(code.launches()[0].comments.provenance_handles == Names{code.kernels()[0].name + ":1"});
}

TEST_CASE("provenance: handles and bad JSON", "[inductor]") {
  CHECK(handle_kernel_name("triton_poi_fused_add_0:3") == "triton_poi_fused_add_0");
  CHECK(handle_kernel_name("extern_kernels.mm:2") == "extern_kernels.mm");
  CHECK(handle_kernel_name("no_handle") == "no_handle");
  CHECK(handle_kernel_name("a:b") == "a:b");

  for (const char* bad : {"", "[1, 2]", "{\"preToPost\": ", "nul"}) {
    const auto p = parse_provenance(bad, "bad.json");
    REQUIRE_FALSE(p.ok());
    CHECK_THAT(p.error().message, Catch::StartsWith("bad.json: "));
  }
  const auto odd = parse_provenance(
      R"({"preToPost": {"a": ["x"], "b": 3}, "postToPre": [], "version": 2.0})", "odd");
  REQUIRE(odd.ok());
  CHECK(odd->pre_to_post.size() == 1);
  CHECK(odd->warnings.size() == 2);
}
