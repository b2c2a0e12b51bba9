// Annotations (TensorMeta) and argument text (ArgumentReader) on the forms the real logs use.

#include <catch2/catch.hpp>

#include <cmath>

#include "fxscope/graph/argument_reader.h"
#include "fxscope/graph/module_path.h"
#include "fxscope/graph/tensor_meta.h"

using namespace fxscope::graph;

TEST_CASE("tensor annotations", "[graph][meta]") {
  const auto m = parse_tensor_meta("f32[8, 64][64, 1]cuda:0");
  REQUIRE(m.has_value());
  CHECK(m->dtype == "f32");
  CHECK(m->sizes == std::vector<Dim>{Dim::constant(8), Dim::constant(64)});
  CHECK(m->strides == std::vector<Dim>{Dim::constant(64), Dim::constant(1)});
  CHECK(m->device == "cuda:0");

  const auto scalar = parse_tensor_meta("f32[][]cuda:0");
  REQUIRE(scalar.has_value());
  CHECK(scalar->rank() == 0);
  CHECK(scalar->to_string() == "f32[][]cuda:0");

  const auto sym = parse_tensor_meta("bf16[2*s77, (s77//2), u0][(s77//2)*u0, u0, 1]cuda:0");
  REQUIRE(sym.has_value());
  CHECK(sym->sizes[0].expr == "2*s77");
  CHECK(sym->sizes[1].expr == "(s77//2)");
  CHECK(sym->strides[0].expr == "(s77//2)*u0");
  CHECK(sym->strides[2] == Dim::constant(1));

  CHECK(parse_tensor_meta("Sym(s77)")->sym == "s77");
  CHECK(parse_tensor_meta("Sym(0.100000000000000)")->is_sym_scalar());

  CHECK(!parse_tensor_meta("").has_value());
  CHECK(!parse_tensor_meta("f32[8, 64][64]cuda:0").has_value());  // stride count differs
  CHECK(!parse_tensor_meta("f32[8, 64").has_value());
  CHECK(!parse_tensor_meta("[8]cuda:0").has_value());
  CHECK(!parse_tensor_meta("Sym(").has_value());
}

TEST_CASE("argument text", "[graph][args]") {
  ArgumentReader r(ArgumentReader::NodeNames::bare, [](std::string_view name) {
    return name == "x" ? std::optional<NodeId>(7) : std::nullopt;
  });
  CHECK(r.read("None").is_none());
  CHECK(r.read("True").as_bool());
  CHECK(r.read("-3").as_int() == -3);
  CHECK(r.read("-3.4028234663852886e+38").as_float() == -3.4028234663852886e+38);
  CHECK(std::isinf(r.read("inf").as_float()));
  CHECK(std::isinf(r.read("-inf").as_float()));
  CHECK(std::isnan(r.read("nan").as_float()));
  CHECK(r.read("1e-05").kind() == Argument::Kind::floating);
  CHECK(r.read("'it\\'s, (x)'").text() == "it's, (x)");
  CHECK(r.read("x").as_node() == 7);
  CHECK(r.read("(x,)").to_string() == "(%7,)");
  CHECK(r.read("[x, [1, 2], ()]").to_string() == "[%7, [1, 2], ()]");
  CHECK(r.read("(x)").is_node());
  CHECK(r.read("slice(None, 1, None)").kind() == Argument::Kind::slice);
  CHECK(r.read("torch.contiguous_format").kind() == Argument::Kind::symbol);
  CHECK(r.read("device(type='cuda', index=0)").kind() == Argument::Kind::symbol);
  // A user's Triton kernel takes its tensors in a dict: they are node references like any other.
  const Argument dict = r.read("{'x_ptr': x, 'n': 2}");
  CHECK(dict.kind() == Argument::Kind::dict);
  CHECK(dict.to_string() == "{'x_ptr': %7, 'n': 2}");
  int nodes = 0;
  dict.for_each_node([&](NodeId id) { nodes += id == 7 ? 1 : 100; });
  CHECK(nodes == 1);
  CHECK(r.read("{}").items().empty());
  CHECK(r.read("foo(1)").text() == "foo(1)");
  CHECK(r.take_problems().empty());
  CHECK(r.read("y").kind() == Argument::Kind::symbol);
  CHECK(r.take_problems().size() == 1);  // an unknown name is reported

  std::vector<Argument> args;
  std::vector<KeywordArgument> kwargs;
  r.read_call("x, [1, 0], dim = 2, keepdim=True, eq = x == 1", args, kwargs);
  CHECK(args.size() == 2);
  REQUIRE(kwargs.size() == 3);
  CHECK(kwargs[0].first == "dim");
  CHECK(kwargs[1].second.as_bool());
  CHECK(kwargs[2].second.kind() == Argument::Kind::raw);

  // Nesting past the limits is kept as raw text and reported, not recursed into.
  const std::string deep = std::string(100, '[') + std::string(100, ']');
  CHECK(r.read(deep).kind() == Argument::Kind::list);
  CHECK(!r.take_problems().empty());
  const std::string deeper = std::string(100000, '(') + std::string(100000, ')');
  CHECK(r.read(deeper).kind() == Argument::Kind::raw);
}

TEST_CASE("fragment kwargs dicts", "[graph][args]") {
  ArgumentReader r(ArgumentReader::NodeNames::percent, [](std::string_view name) {
    return name == "a" ? std::optional<NodeId>(1) : std::nullopt;
  });
  CHECK(r.read("%a").as_node() == 1);
  CHECK(r.read("rand").kind() == Argument::Kind::symbol);  // fragments print strings bare
  const auto kw = r.read_dict("{dtype: torch.float32, device: cuda:0, scale: 0.125, t: %a}");
  REQUIRE(kw.size() == 4);
  CHECK(kw[1].second.text() == "cuda:0");
  CHECK(kw[2].second.as_float() == 0.125);
  CHECK(kw[3].second.is_node());
  CHECK(r.take_problems().empty());
  CHECK(r.read_dict("oops").size() == 1);
  CHECK(r.take_problems().size() == 1);
}

TEST_CASE("module paths from Dynamo parameter names", "[graph][module]") {
  CHECK(module_path_from_parameter(
            "l_self_modules_layer1_modules_0_modules_conv1_parameters_weight_") ==
        "layer1.0.conv1");
  CHECK(module_path_from_parameter("L_self_modules_linear1_parameters_weight_") == "linear1");
  CHECK(module_path_from_parameter(
            "L_self_modules_transformer_modules_h_modules_0_modules_ln_1_parameters_bias_") ==
        "transformer.h.0.ln_1");
  CHECK(module_path_from_parameter("L_self_modules_bn1_buffers_running_mean_") == "bn1");
  CHECK(module_path_from_parameter("L_x_").empty());
  CHECK(module_path_from_parameter("L_self_modules_dropout_p").empty());
}

TEST_CASE("attribute paths as FX prints a get_attr", "[graph][module]") {
  CHECK(attribute_path("self.conv1.weight") == "conv1.weight");
  CHECK(attribute_path(R"(getattr(self.layer1, "0").conv1.weight)") == "layer1.0.conv1.weight");
  CHECK(attribute_path(R"(getattr(getattr(self.layer2, "0").downsample, "1").running_mean)") ==
        "layer2.0.downsample.1.running_mean");
  CHECK(attribute_path(R"(getattr(self.features, "0"))") == "features.0");
  CHECK_FALSE(attribute_path("self"));
  CHECK_FALSE(attribute_path("selfish.weight"));
  CHECK_FALSE(attribute_path("torch.ops.aten.add.Tensor"));
  CHECK_FALSE(attribute_path(R"(getattr(self.layer1, "0").conv1.weight + 1)"));
  CHECK_FALSE(attribute_path(R"(getattr(self.layer1, 0))"));
}
