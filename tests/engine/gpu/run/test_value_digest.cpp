// Digests of the values a run's steps wrote, and the first one a mode gets wrong: CPU-only, on
// host bytes laid out as the device's buffers are.

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "fxscope/gpu/host_values.h"
#include "fxscope/gpu/output_compare.h"
#include "fxscope/gpu/training_pair.h"
#include "fxscope/gpu/value_digest.h"
#include "fxscope/trace/trace_log.h"
#include "graph_lookup.h"
#include "samples.h"

using namespace fxscope;

namespace {

std::vector<std::byte> stored(const std::string& dtype, const std::vector<double>& v) {
  std::vector<std::byte> out(v.size() * gpu::element_bytes(dtype));
  for (std::size_t i = 0; i < v.size(); ++i) {
    gpu::write_element(dtype, out.data(), static_cast<std::int64_t>(i), v[i]);
  }
  return out;
}

gpu::ValueDigest digest(const std::string& meta, const std::vector<double>& v,
                        const std::string& node, std::size_t step) {
  const auto m = graph::parse_tensor_meta(meta);
  REQUIRE(m);
  const auto bytes = stored(m->dtype, v);
  gpu::ValueDigest d = gpu::digest_value(*m, bytes.data(), {});
  d.node = node;
  d.step = step;
  d.group = step;
  d.group_name = "group_" + node;
  d.kernel = "kernel_" + node;
  return d;
}

// The AOT backward graph of corpus log NAME's training unit, as eager runs it.
fusion::GraphFusion eager_backward(const std::string& name) {
  const auto log = trace::read_trace(test::sample("corpus/" + name));
  REQUIRE(log);
  const trace::CompileUnit* unit = nullptr;
  for (const auto& u : log->units()) {
    if (u.find(trace::ArtifactKind::kAotBackwardGraph) != nullptr) unit = &u;
  }
  REQUIRE(unit);
  auto backward = gpu::backward_fusion(*unit, fusion::Mode::eager);
  REQUIRE(backward);
  return std::move(*backward);
}

}  // namespace

TEST_CASE("a digest reads its value in logical order whatever the strides", "[gpu][digest]") {
  // The same 2x3 matrix stored row-major and column-major digests the same.
  const auto row = digest("f32[2, 3][3, 1]cuda:0", {1, 2, 3, 4, 5, -6}, "a", 0);
  const auto col = digest("f32[2, 3][1, 2]cuda:0", {1, 4, 2, 5, 3, -6}, "a", 0);
  CHECK(row.samples == std::vector<double>{1, 2, 3, 4, 5, -6});
  CHECK(col.samples == row.samples);
  CHECK(row.numel == 6);
  CHECK(row.max_abs == 6);
  CHECK(row.sum == 9);
  CHECK(row.abs_sum == 21);
  CHECK(gpu::digest_error(row, col) == 0.0);
  // A broadcast (stride 0) value reads its one row again.
  const auto bcast = digest("f32[3, 2][0, 1]cuda:0", {7, 8}, "b", 0);
  CHECK(bcast.samples == std::vector<double>{7, 8, 7, 8, 7, 8});
}

TEST_CASE("a large value is sampled evenly, first and last element included", "[gpu][digest]") {
  const auto positions = gpu::sample_positions(1'000'000);
  REQUIRE(positions.size() == gpu::kDigestSamples);
  CHECK(positions.front() == 0);
  CHECK(positions.back() == 999'999);
  CHECK(std::is_sorted(positions.begin(), positions.end()));
  CHECK(gpu::sample_positions(5).size() == 5);
  CHECK(gpu::sample_positions(0).empty());
}

TEST_CASE("an error between samples still shows in the sums", "[gpu][digest]") {
  std::vector<double> v(100'000, 1.0);
  const auto ref = digest("f32[100000][1]cuda:0", v, "x", 0);
  // One element between two sampled positions, far off: the samples agree, the sums do not.
  const auto positions = gpu::sample_positions(100'000);
  const std::int64_t between = positions[10] + 1;
  REQUIRE(between < positions[11]);
  v[static_cast<std::size_t>(between)] = 500.0;
  const auto bad = digest("f32[100000][1]cuda:0", v, "x", 0);
  CHECK(bad.samples == ref.samples);
  CHECK(gpu::digest_error(ref, bad) > gpu::tolerance("f32"));
  // A rounding-sized difference stays inside.
  v[static_cast<std::size_t>(between)] = 1.0 + 1e-6;
  CHECK(gpu::digest_error(ref, digest("f32[100000][1]cuda:0", v, "x", 0)) < gpu::tolerance("f32"));
}

TEST_CASE("non-finite elements on one side only, or another size, never agree", "[gpu][digest]") {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const auto ref = digest("f32[3][1]cuda:0", {1, 2, 3}, "x", 0);
  CHECK(std::isinf(gpu::digest_error(ref, digest("f32[3][1]cuda:0", {1, nan, 3}, "x", 0))));
  CHECK(std::isinf(gpu::digest_error(ref, digest("f32[4][1]cuda:0", {1, 2, 3, 4}, "x", 0))));
  const auto masked = digest("f32[2][1]cuda:0", {-INFINITY, 1}, "m", 0);
  CHECK(gpu::digest_error(masked, masked) == 0.0);
}

TEST_CASE("the first value outside tolerance is the earliest step's, not the first listed",
          "[gpu][digest]") {
  const std::vector<gpu::ValueDigest> eager = {
      digest("bf16[4][1]cuda:0", {1, 2, 3, 4}, "mm", 0),
      digest("bf16[4][1]cuda:0", {2, 4, 6, 8}, "add", 1),
      digest("bf16[4][1]cuda:0", {3, 3, 3, 3}, "mul", 2),
      digest("f32[4][1]cuda:0", {9, 9, 9, 9}, "only_eager", 3),
  };
  // The fused run writes mul (wrong) at step 5 and add (wrong) at step 2, mm right at step 0.
  const std::vector<gpu::ValueDigest> fused = {
      digest("bf16[4][1]cuda:0", {3, 3, 3, 2}, "mul", 5),
      digest("bf16[4][1]cuda:0", {1, 2, 3, 4}, "mm", 0),
      digest("bf16[4][1]cuda:0", {2, 4, 6, 0}, "add", 2),
  };
  CHECK(gpu::shared_values(eager, fused) == 3);
  const auto d = gpu::first_divergence(eager, fused);
  REQUIRE(d);
  CHECK(d->actual->node == "add");
  CHECK(d->agreeing == 1);
  CHECK(d->tolerance == gpu::tolerance("bf16"));
  CHECK(d->error == Approx(1.0));
  const std::string note = gpu::divergence_note(d, 3);
  CHECK(note.find("add, written by group 2 group_add (kernel_add)") != std::string::npos);
  CHECK(note.find("against bf16's 0.03") != std::string::npos);
  CHECK(note.find("most at [3]: eager 8, here 0") != std::string::npos);
  CHECK(!gpu::first_divergence(eager, {eager[0], eager[2]}));
  CHECK(gpu::divergence_note(std::nullopt, 2).find("each of the 2 values") != std::string::npos);
}

TEST_CASE("a value computed through bf16 is held to bf16's tolerance", "[gpu][digest]") {
  auto ref = digest("f32[2][1]cuda:0", {1, 1}, "sum", 0);
  auto act = digest("f32[2][1]cuda:0", {1, 1.01}, "sum", 0);
  CHECK(!(gpu::digest_error(ref, act) <= gpu::digest_tolerance(act)));
  act.computed_in = "bf16";
  CHECK(gpu::digest_error(ref, act) <= gpu::digest_tolerance(act));
  // Integers computed from integers must match exactly.
  const auto ids = digest("i64[2][1]cuda:0", {1, 0}, "argmax", 0);
  CHECK(gpu::digest_tolerance(ids) == 0.0);
}

TEST_CASE("a mask computed from floats may flip at a few elements, not more", "[gpu][digest]") {
  // relu's `x <= 0` after a batch norm: the modes' statistics differ in the last bits, so an
  // element sitting at zero can land on either side.
  std::vector<double> v(100'000, 0.0);
  for (std::size_t i = 0; i < v.size(); i += 2) v[i] = 1.0;
  auto ref = digest("b8[100000][1]cuda:0", v, "le", 0);
  ref.computed_in = "bf16";
  auto few = v;
  few[1] = 1.0;
  few[3] = 1.0;
  auto act = digest("b8[100000][1]cuda:0", few, "le", 0);
  act.computed_in = "bf16";
  CHECK(gpu::digest_tolerance(act) == gpu::kMaskFlipShare);
  CHECK(gpu::digest_error(ref, act) <= gpu::digest_tolerance(act));
  auto many = v;
  for (std::size_t i = 1; i < many.size(); i += 20) many[i] = 1.0;  // 5% of the elements
  auto bad = digest("b8[100000][1]cuda:0", many, "le", 0);
  bad.computed_in = "bf16";
  CHECK(!(gpu::digest_error(ref, bad) <= gpu::digest_tolerance(bad)));
}

TEST_CASE("the largest sampled difference is placed in the value's coordinates", "[gpu][digest]") {
  std::vector<double> v(24, 1.0);
  const auto ref = digest("f32[2, 3, 4][12, 4, 1]cuda:0", v, "x", 0);
  v[1 * 12 + 2 * 4 + 3] = 5.0;
  const auto bad = digest("f32[2, 3, 4][12, 4, 1]cuda:0", v, "x", 0);
  CHECK(gpu::largest_difference(ref, bad) == "[1, 2, 3]: eager 1, here 5");
  CHECK(gpu::largest_difference(ref, ref).empty());
}

TEST_CASE("a sum that cancels is judged against the magnitude of its terms", "[gpu][digest]") {
  // A batch norm's bias gradient: per channel, the sum of 196 terms of about 0.1 whose mean is
  // about zero by construction. Two summation orders differ by a few units in the terms' last
  // place, which is a whole multiple of the result.
  const std::vector<double> eager = {-3.0e-5, 2.0e-5, 1.0e-5, -4.0e-5};
  const std::vector<double> fused = {2.3e-5, -1.0e-5, 3.0e-5, 1.0e-5};
  gpu::ValueDigest ref = digest("bf16[4][1]cuda:0", eager, "sum_4", 0);
  const gpu::ValueDigest act = digest("bf16[4][1]cuda:0", fused, "sum_4", 0);
  CHECK(!(gpu::digest_error(ref, act) <= gpu::digest_tolerance(act)));
  ref.terms_abs_sum = 4 * 196 * 0.1;  // what the sums add up, in magnitude
  CHECK(gpu::digest_error(ref, act) <= gpu::digest_tolerance(act));
  // The same difference in a sum whose terms are as small as the result stays outside.
  ref.terms_abs_sum = 4 * 4.0e-5;
  CHECK(!(gpu::digest_error(ref, act) <= gpu::digest_tolerance(act)));
  // An output's full comparison takes the same magnitude per element.
  const auto m = graph::parse_tensor_meta("f32[4][1]cuda:0");
  REQUIRE(m);
  const auto e = stored("f32", eager);
  const auto a = stored("f32", fused);
  const double unscaled = gpu::relative_error({&*m, e.data()}, {&*m, a.data()}, {});
  const double scaled = gpu::relative_error({&*m, e.data()}, {&*m, a.data()}, {}, 196 * 0.1);
  CHECK(unscaled > 1.0);
  CHECK(scaled < 1e-4);
}

TEST_CASE("a bias gradient returned as a cast of a view of a sum takes the sum's terms",
          "[gpu][digest][corpus]") {
  // BERT's backward as eager runs it (the AOT graph): the key projection's bias gradient sums to
  // about zero by construction (softmax ignores a shift of the keys), and the graph returns it as
  // convert_element_type_default_1 = a cast of view_83, a view of the sum sum_37 that stores
  // nothing of its own.
  const fusion::GraphFusion backward = eager_backward("hf_bert_mlm_train_fp16");
  const graph::Graph& g = backward.post_grad;
  const auto id = [&](std::string_view name) { return test::id_of(g, name); };
  gpu::ValueDigest sum;
  sum.numel = 256;
  sum.terms_abs_sum = 1234.5;
  const auto stored = [&](graph::NodeId n) -> const gpu::ValueDigest* {
    return n == id("sum_37") ? &sum : nullptr;
  };
  CHECK(gpu::terms_abs_sum(g, id("convert_element_type_default_1"), 256, stored) == 1234.5);
  CHECK(gpu::terms_abs_sum(g, id("view_83"), 256, stored) == 1234.5);
  CHECK(gpu::terms_abs_sum(g, id("convert_element_type_default_1"), 255, stored) == 0);
  CHECK(gpu::terms_abs_sum(g, id("mm_24"), 65536, stored) == 0);
}

TEST_CASE("a scatter that adds takes its values' terms, through the views of a sum",
          "[gpu][digest][corpus]") {
  // Swin-T's backward as eager runs it: the first block's relative-position bias gradient is
  // index_put(zeros, [index], view_315, True), view_315 a view of a permute of a squeeze of
  // sum_26, the attention bias's gradient summed over the windows (which cancels).
  const fusion::GraphFusion backward = eager_backward("tv_swin_t_train_bf16");
  const graph::Graph& g = backward.post_grad;
  const auto id = [&](std::string_view name) { return test::id_of(g, name); };
  gpu::ValueDigest sum;
  sum.numel = 24 * 49 * 49;
  sum.abs_sum = 0.5;           // what the windows' gradients add up to
  sum.terms_abs_sum = 4000.0;  // what they add up, in magnitude
  gpu::ValueDigest zeros;
  zeros.numel = 169 * 24;
  const auto stored = [&](graph::NodeId n) -> const gpu::ValueDigest* {
    if (n == id("sum_26")) return &sum;
    return n == id("full_default_58") ? &zeros : nullptr;
  };
  CHECK(gpu::terms_abs_sum(g, id("index_put"), 169 * 24, stored) == 4000.0);
  // Without the sum's digest there are no terms to judge by.
  const auto none = [](graph::NodeId) -> const gpu::ValueDigest* { return nullptr; };
  CHECK(gpu::terms_abs_sum(g, id("index_put"), 169 * 24, none) == 0);
}

TEST_CASE("an add of sums takes both sums' terms: a shared weight's gradient",
          "[gpu][digest][corpus]") {
  // ALBERT's backward as eager runs it: every layer shares one key projection, whose bias
  // gradient is add_51 = view_63 + view_85, views of sum_23 and sum_37, each layer's gradient
  // summed over the tokens (about zero by construction: softmax ignores a shift of the keys).
  const fusion::GraphFusion backward = eager_backward("hf_albert_train");
  const graph::Graph& g = backward.post_grad;
  const auto id = [&](std::string_view name) { return test::id_of(g, name); };
  gpu::ValueDigest first;
  first.numel = 256;
  first.abs_sum = 1e-6;
  first.terms_abs_sum = 3.0;
  gpu::ValueDigest second = first;
  second.terms_abs_sum = 5.0;
  const auto stored = [&](graph::NodeId n) -> const gpu::ValueDigest* {
    if (n == id("sum_23")) return &first;
    return n == id("sum_37") ? &second : nullptr;
  };
  CHECK(gpu::terms_abs_sum(g, id("add_51"), 256, stored) == 8.0);
  // An add of values that sum nothing is judged by its result.
  gpu::ValueDigest plain;
  plain.numel = 256;
  plain.abs_sum = 2.0;
  const auto plain_stored = [&](graph::NodeId n) -> const gpu::ValueDigest* {
    return n == id("sum_23") || n == id("sum_37") ? &plain : nullptr;
  };
  CHECK(gpu::terms_abs_sum(g, id("add_51"), 256, plain_stored) == 0);
}
