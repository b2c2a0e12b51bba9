#include <catch2/catch.hpp>

#include "fxscope/gpu/cupti_records.h"

using namespace fxscope;

TEST_CASE("CUPTI JSON lines parse into kernels, copies, paired ranges and launch times", "[gpu]") {
  const std::string text =
      R"({"kind":"kernel","start":2000,"end":5000,"grid":[64,1,1],"block":[128,1,1],)"
      R"("registers":32,"static_smem":0,"dynamic_smem":1024,"device":0,"stream":7,)"
      R"("correlation":11,"graph":3,"graph_node":42,"name":"triton_poi_fused_add_0"})"
      "\n"
      R"({"kind":"memcpy","bytes":4096,"start":100,"end":300,"stream":7,"correlation":9,)"
      R"("graph":0,"graph_node":0})"
      "\n"
      R"({"kind":"marker","flag":"start","id":5,"ts":1000,"name":"fxscope:eager:0","domain":""})"
      "\n"
      R"({"kind":"marker","flag":"end","id":5,"ts":1900,"name":"","domain":""})"
      "\n"
      R"({"kind":"launch","correlation":11,"start":1500,"end":1600})"
      "\n";
  auto r = gpu::parse_cupti_lines(text, "records.jsonl");
  REQUIRE(r);
  REQUIRE(r->kernels.size() == 1);
  const auto& k = r->kernels[0];
  CHECK(k.name == "triton_poi_fused_add_0");
  CHECK(k.us() == Approx(3.0));
  CHECK(k.grid == std::array<int, 3>{64, 1, 1});
  CHECK(k.dynamic_smem == 1024);
  CHECK(k.graph == 3);
  CHECK(k.graph_node == 42);
  REQUIRE(r->copies.size() == 1);
  CHECK(r->copies[0].bytes == 4096);
  REQUIRE(r->ranges.size() == 1);
  CHECK(r->ranges[0].name == "fxscope:eager:0");
  CHECK(r->ranges[0].end == 1900);
  // The kernel ran after its range closed; its launch, found by correlation, was inside it.
  CHECK(r->launched_at(k) == 1500);
}

TEST_CASE("a malformed CUPTI line is an error naming the file and line", "[gpu]") {
  auto r = gpu::parse_cupti_lines("{\"kind\":\"kernel\"}\nnot json\n", "records.jsonl");
  REQUIRE_FALSE(r);
  CHECK(r.error().message == "records.jsonl line 2: expected a JSON object with a \"kind\"");
}
