// Every graph of every real sample log parses without a warning and survives a JSON round trip.

#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include "fxscope/graph/fx_readable_parser.h"
#include "fxscope/graph/graph_fragment_parser.h"
#include "fxscope/graph/graph_json.h"
#include "log_payloads.h"

using namespace fxscope;
using namespace fxscope::graph;

namespace {

std::string describe(const Warnings& warnings) {
  std::string out;
  for (const Warning& w : warnings) out += w.where + ": " + w.message + "\n";
  return out;
}

const std::vector<std::string> kReadableKinds = {"dynamo_output_graph", "aot_inference_graph",
                                                 "aot_forward_graph",   "aot_backward_graph",
                                                 "aot_joint_graph",     "inductor_post_grad_graph"};

}  // namespace

TEST_CASE("every readable graph of every sample parses without warnings", "[graph][samples]") {
  for (const std::string& sample : test::all_samples()) {
    std::size_t graphs = 0;
    for (const std::string& kind : kReadableKinds) {
      for (const test::LogPayload& p : test::payloads(sample, kind)) {
        INFO(sample << " " << kind << " [" << p.compile_id << "]");
        const ParsedGraph parsed = parse_fx_readable(p.payload, kind);
        CHECK(describe(parsed.warnings) == "");
        CHECK(parsed.graph.count(OpKind::output) == 1);
        CHECK(parsed.graph.count(OpKind::placeholder) > 0);
        CHECK(parsed.graph.nodes().back().op == OpKind::output);
        ++graphs;
      }
    }
    INFO(sample);
    CHECK(graphs >= 3);
  }
}

TEST_CASE("every graph fragment of every sample parses without warnings", "[graph][samples]") {
  for (const std::string& sample : test::all_samples()) {
    for (const test::LogPayload& p : test::payloads(sample, "inductor_output_code")) {
      INFO(sample << " [" << p.compile_id << "]");
      const auto fragments = find_graph_fragments(p.payload);
      CHECK(!fragments.empty());
      for (const std::string_view fragment : fragments) {
        const ParsedGraph one = parse_graph_fragment(fragment, "fragment");
        CHECK(describe(one.warnings) == "");
        CHECK(one.graph.op_count() > 0);
      }
      const ParsedGraph merged = parse_graph_fragment(p.payload, "output code");
      CHECK(describe(merged.warnings) == "");
      CHECK(merged.graph.op_count() > 0);
    }
  }
}

TEST_CASE("JSON round trip is identical for every sample graph", "[graph][samples][json]") {
  for (const std::string& sample : test::all_samples()) {
    Document doc;
    doc.metadata()["sample"] = sample;
    for (const std::string& kind : kReadableKinds) {
      for (const test::LogPayload& p : test::payloads(sample, kind)) {
        doc.add_graph(p.compile_id, kind, parse_fx_readable(p.payload, kind).graph);
      }
    }
    for (const test::LogPayload& p : test::payloads(sample, "inductor_output_code")) {
      doc.add_graph(p.compile_id, "fragments", parse_graph_fragment(p.payload, "code").graph);
    }
    INFO(sample);
    REQUIRE(doc.size() >= 4);
    const std::string first = to_json_text(doc);
    const Result<Document> back = parse_document(first);
    REQUIRE(back.ok());
    CHECK(back->size() == doc.size());
    CHECK(to_json_text(*back) == first);
  }
}

// Parsing speed is measured by bench/bench_summary, not asserted here (timed tests are flaky on
// a loaded machine); this checks that the largest graphs parse whole.
TEST_CASE("the largest graphs of gpt2_48layer parse whole and clean", "[graph][samples]") {
  const std::pair<const char*, std::size_t> expected[] = {{"dynamo_output_graph", 2587},
                                                          {"aot_inference_graph", 3515},
                                                          {"inductor_post_grad_graph", 3559}};
  for (const auto& [kind, nodes] : expected) {
    INFO(kind);
    const ParsedGraph parsed = parse_fx_readable(test::first_payload("gpt2_48layer", kind), kind);
    CHECK(parsed.graph.size() == nodes);
    CHECK(parsed.warnings.empty());
  }
}

TEST_CASE("mutated real payloads never crash the parsers", "[graph][robust]") {
  const std::string readable = test::first_payload("gpt2_2layer", "aot_inference_graph");
  const std::string code = test::first_payload("gpt2_2layer", "inductor_output_code");
  REQUIRE(!readable.empty());
  std::uint64_t state = 12345;
  const auto next = [&state](std::size_t bound) {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    return static_cast<std::size_t>((state >> 33) % bound);
  };
  for (int i = 0; i < 200; ++i) {
    std::string a = readable.substr(0, next(readable.size()));
    std::string b = code.substr(next(code.size() / 2));
    for (int k = 0; k < 20; ++k) {
      if (!a.empty()) a[next(a.size())] = static_cast<char>(next(256));
      if (!b.empty()) b[next(b.size())] = "()[]{}\"'%#,=: \n"[next(15)];
    }
    const ParsedGraph p = parse_fx_readable(a, "mutated");
    const ParsedGraph q = parse_graph_fragment(b, "mutated");
    Document d;
    d.add_graph("0/0", "aot", p.graph);
    d.add_graph("0/0", "fragments", q.graph);
    const std::string text = to_json_text(d);
    const Result<Document> back = parse_document(text);
    REQUIRE(back.ok());
    CHECK(to_json_text(*back) == text);
  }
}
