#include <catch2/catch.hpp>

#include <filesystem>
#include <optional>
#include <set>
#include <string>

#include "fxscope/gpu/host_values.h"
#include "fxscope/gpu/random_inputs.h"
#include "sample_graph.h"
#include "samples.h"

using namespace fxscope;

TEST_CASE("storage of a strided view spans its last element", "[gpu]") {
  auto meta = graph::parse_tensor_meta("f32[1024, 4096][1, 1024]cuda:0");
  REQUIRE(meta);
  CHECK(gpu::storage_elements(*meta, {}) == 1024 * 4096);
  meta = graph::parse_tensor_meta("f32[1, 12, 128, 128][16384, 0, 128, 1]cuda:0");
  REQUIRE(meta);
  CHECK(gpu::storage_elements(*meta, {}) == 128 * 128);
  meta = graph::parse_tensor_meta("f32[s0, 8][8, 1]cuda:0");
  REQUIRE(meta);
  CHECK(gpu::storage_elements(*meta, {{"s0", 3}}) == 24);
}

TEST_CASE("GPT-2's token ids stay within the embedding table", "[gpu]") {
  const auto f = test::sample_fusion("gpt2_12layer", fusion::Mode::eager);
  std::vector<std::int64_t> bounds;
  for (graph::NodeId n = 0; n < f.post_grad.size(); ++n) {
    const auto& node = f.post_grad.node(n);
    if (node.op != graph::OpKind::placeholder || !node.meta || node.meta->dtype != "i64") continue;
    if (const auto b = gpu::index_bound(f.post_grad, n, {})) bounds.push_back(*b);
  }
  CHECK(bounds == std::vector<std::int64_t>{50257});
}

TEST_CASE("random inputs are reproducible and in their ranges", "[gpu]") {
  const auto w = graph::parse_tensor_meta("f32[1024, 4096][4096, 1]cuda:0");
  const auto v = graph::parse_tensor_meta("f32[64][1]cuda:0");
  const auto ids = graph::parse_tensor_meta("i64[1, 128][128, 1]cuda:0");
  REQUIRE((w && v && ids));
  const auto a = gpu::random_tensor(*w, {}, 7, std::nullopt);
  CHECK(a == gpu::random_tensor(*w, {}, 7, std::nullopt));
  CHECK(a != gpu::random_tensor(*w, {}, 8, std::nullopt));
  double max_abs = 0;
  for (std::int64_t i = 0; i < 1024 * 4096; ++i) {
    max_abs = std::max(max_abs, std::abs(gpu::read_element("f32", a.data(), i)));
  }
  CHECK(max_abs <= 0.02);  // 1/sqrt(fan-in 4096), clamped up to 0.02
  CHECK(max_abs > 0.019);
  const auto scales = gpu::random_tensor(*v, {}, 1, std::nullopt);
  for (std::int64_t i = 0; i < 64; ++i) {
    const double x = gpu::read_element("f32", scales.data(), i);
    CHECK((x >= 0.5 && x < 1.5));  // a batch norm's variance must stay positive
  }
  const auto tokens = gpu::random_tensor(*ids, {}, 3, 50257);
  for (std::int64_t i = 0; i < 128; ++i) {
    const double t = gpu::read_element("i64", tokens.data(), i);
    CHECK((t >= 0 && t < 50257));
  }
}

TEST_CASE("half and bfloat16 round-trip through the host conversions", "[gpu]") {
  std::byte buf[2];
  for (const double x : {0.0, 1.0, -2.5, 0.333251953125, 65504.0, 1.0e-4}) {
    gpu::write_element("f16", buf, 0, x);
    CHECK(gpu::read_element("f16", buf, 0) == Approx(x).epsilon(1e-3));
    gpu::write_element("bf16", buf, 0, x);
    CHECK(gpu::read_element("bf16", buf, 0) == Approx(x).epsilon(1e-2));
  }
}

namespace {

// The bound of each i64 input of the first graph of LOG's first unit planned in MODE, in input
// order (0 where no user indexes with it).
std::vector<std::int64_t> integer_bounds(const std::string& log_dir, fusion::Mode mode) {
  auto log = trace::read_trace(test::sample(log_dir));
  REQUIRE(log);
  auto fused = fusion::fuse_unit(log->units().front(), mode);
  REQUIRE(!fused.empty());
  const graph::Graph& g = fused.front().post_grad;
  std::vector<std::int64_t> out;
  for (const graph::NodeId n : gpu::graph_inputs(g)) {
    const auto& meta = g.node(n).meta;
    if (!meta || meta->dtype != "i64") continue;
    out.push_back(gpu::index_bound(g, n, fused.front().hints).value_or(0));
  }
  return out;
}

}  // namespace

// BERT gathers its token-type buffer (1 x 512) by the position ids and embeds the gathered
// values in a 2-row table: random token types must stay below 2, positions below 512 (the
// buffer's length and the position table's), token ids below the 2048-word table; the attention
// mask indexes nothing.
TEST_CASE("BERT's integer inputs stay inside what they index, through the gather",
          "[gpu][corpus]") {
  for (const char* log : {"corpus/hf_bert_max_autotune_fp16", "corpus/hf_bert_mlm_train_fp16"}) {
    for (const auto mode : {fusion::Mode::eager, fusion::Mode::default_mode}) {
      INFO(log << " " << fusion::to_string(mode));
      CHECK(integer_bounds(log, mode) == std::vector<std::int64_t>{2048, 512, 2, 0});
    }
  }
}

namespace {

// The graph input whose values reach ARG unchanged (through views, copies, broadcasts and the
// source side of gathers), if any.
std::optional<graph::NodeId> source_input(const graph::Graph& g, const graph::Argument& arg) {
  if (!arg.is_node()) return std::nullopt;
  graph::NodeId n = arg.as_node();
  for (int depth = 0; depth < 32; ++depth) {
    const graph::Node& node = g.node(n);
    if (node.op == graph::OpKind::placeholder || node.op == graph::OpKind::get_attr) return n;
    if (!node.is_op() || node.args.empty() || !node.args[0].is_node()) return std::nullopt;
    const std::string& t = node.target;
    const bool moves =
        t.find("view") != std::string::npos || t.find("expand") != std::string::npos ||
        t.find("slice") != std::string::npos || t.find("clone") != std::string::npos ||
        t.find("unsqueeze") != std::string::npos || t.find("aten.gather") != std::string::npos;
    if (!moves) return std::nullopt;
    n = node.args[0].as_node();
  }
  return std::nullopt;
}

}  // namespace

// Over the corpus: every embedding and gather whose indices are a graph input's values draws them
// inside the table's dimension, so eager's lookups never read outside it.
TEST_CASE("corpus: integer inputs that index stay inside the indexed dimension", "[gpu][corpus]") {
  std::size_t checked = 0;
  for (const auto& d : std::filesystem::directory_iterator(test::sample("corpus"))) {
    if (!d.is_directory()) continue;
    auto log = trace::read_trace(d.path().string());
    if (!log || log->units().empty()) continue;
    for (const auto& unit : log->units()) {
      if (unit.aot_graph() == nullptr) continue;
      for (const auto mode : {fusion::Mode::eager, fusion::Mode::default_mode}) {
        for (const auto& f : fusion::fuse_unit(unit, mode)) {
          const graph::Graph& g = f.post_grad;
          for (graph::NodeId n = 0; n < g.size(); ++n) {
            const graph::Node& node = g.node(n);
            if (!node.is_op() || node.args.size() < 2) continue;
            std::optional<graph::NodeId> idx;
            std::size_t table_dim = 0;
            if (node.target.find("aten.embedding.default") != std::string::npos) {
              idx = source_input(g, node.args[1]);
            } else if (node.target.find("aten.gather.default") != std::string::npos &&
                       node.args.size() >= 3 &&
                       node.args[1].kind() == graph::Argument::Kind::integer) {
              idx = source_input(g, node.args[2]);
              table_dim = static_cast<std::size_t>(node.args[1].as_int());
            } else {
              continue;
            }
            if (!idx || !node.args[0].is_node()) continue;
            const auto& table = g.node(node.args[0].as_node()).meta;
            if (!table || table_dim >= table->rank()) continue;
            INFO(d.path().filename().string() << " " << f.where << " " << node.name);
            const auto bound = gpu::index_bound(g, *idx, f.hints);
            REQUIRE(bound);
            CHECK(*bound <= ops::eval_dim(table->sizes[table_dim], f.hints));
            ++checked;
          }
        }
      }
    }
  }
  CHECK(checked >= 20);
}

TEST_CASE("a parameter frozen into a constant is fed what eager's argument is", "[gpu]") {
  // AOTInductor freezes the module's parameters: eager's graph takes the convolution's weight as
  // arg0_1, the compiled graph reads it as the constant conv_weight (a real model's nested
  // module as getattr(self.layer1, "0").conv1.weight). Both must hold the same bytes, or every
  // compiled mode differs from eager from its first convolution on.
  const std::string sample = GENERATE(std::string("aoti_provenance"), std::string("aoti_resnet18"),
                                      std::string("aoti_mobilenet_v3_small"));
  INFO(sample);
  const auto eager = test::sample_fusion(sample, fusion::Mode::eager);
  const auto compiled = test::sample_fusion(sample, fusion::Mode::default_mode);
  const auto eager_ids = gpu::graph_inputs(eager.post_grad);
  const auto ids = gpu::graph_inputs(compiled.post_grad);
  const auto slots = gpu::input_slots(compiled.post_grad, eager.post_grad);
  REQUIRE(slots.size() == ids.size());
  const auto eager_name = [&](std::size_t k) {
    return slots[k] < eager_ids.size() ? eager.post_grad.node(eager_ids[slots[k]]).name
                                       : std::string("(none)");
  };
  int constants = 0;
  std::set<std::size_t> taken;
  for (std::size_t k = 0; k < ids.size(); ++k) {
    const graph::Node& node = compiled.post_grad.node(ids[k]);
    INFO(node.name << " takes " << eager_name(k));
    REQUIRE(slots[k] < eager_ids.size());  // every compiled input has eager's counterpart
    CHECK(taken.insert(slots[k]).second);  // and no two share one
    const graph::Node& theirs = eager.post_grad.node(eager_ids[slots[k]]);
    REQUIRE((node.meta && theirs.meta));
    CHECK(node.meta->dtype == theirs.meta->dtype);
    CHECK(node.meta->sizes == theirs.meta->sizes);
    if (node.op == graph::OpKind::placeholder) CHECK(node.name == theirs.name);
    if (sample == "aoti_provenance" && node.name == "conv_weight") CHECK(theirs.name == "arg0_1");
    if (sample == "aoti_provenance" && node.name == "conv_bias") CHECK(theirs.name == "arg1_1");
    if (node.op == graph::OpKind::get_attr) {
      ++constants;
      if (node.name == "layer1_0_conv1_weight") CHECK(node.target == "layer1.0.conv1.weight");
    }
  }
  // resnet18: its 62 parameters and 40 running statistics; none is an op of its own.
  CHECK(constants >= (sample == "aoti_provenance" ? 2 : 100));
  for (const graph::Node& node : compiled.post_grad.nodes()) {
    INFO(node.name);
    CHECK((node.op != graph::OpKind::call_function || !node.target.empty()));
  }
  // A graph against itself: every input its own place.
  const auto same = gpu::input_slots(eager.post_grad, eager.post_grad);
  for (std::size_t k = 0; k < same.size(); ++k) CHECK(same[k] == k);
}
