#include <catch2/catch.hpp>

#include <string>

#include "fxscope/guards/input_spec.h"

using namespace fxscope;
using namespace fxscope::guards;

namespace {

Dims dims(std::initializer_list<std::int64_t> values) {
  Dims out;
  for (const auto v : values) out.emplace_back(v);
  return out;
}

}  // namespace

TEST_CASE("a tensor spec gives the source, sizes and dtype and other fields stay open",
          "[guards][spec]") {
  const auto spec = parse_tensor_spec("x=16x32:f32");
  REQUIRE(spec.ok());
  CHECK(spec->source == "L['x']");
  CHECK(spec->sizes == dims({16, 32}));
  REQUIRE(spec->dtype);
  CHECK(spec->dtype->c10_name == "Float");
  CHECK_FALSE(spec->strides);
  CHECK_FALSE(spec->device);
  CHECK_FALSE(spec->requires_grad);
}

TEST_CASE("a tensor spec takes strides, a device, grad and any dtype spelling", "[guards][spec]") {
  const auto spec = parse_tensor_spec("x=8x64:torch.float16:stride=1x8:cuda:1:grad");
  REQUIRE(spec.ok());
  CHECK(spec->sizes == dims({8, 64}));
  CHECK(spec->strides == dims({1, 8}));
  CHECK(spec->dtype->c10_name == "Half");
  REQUIRE(spec->device);
  CHECK(spec->device->type == "cuda");
  CHECK(spec->device->index == 1);
  CHECK(spec->requires_grad == true);

  const auto cpu = parse_tensor_spec("self.w=4:BFloat16:cpu:nograd");
  REQUIRE(cpu.ok());
  CHECK(cpu->source == "L['self'].w");
  CHECK(cpu->dtype->short_name == "bf16");
  CHECK(cpu->device->type == "cpu");
  CHECK(cpu->requires_grad == false);

  const auto plain_cuda = parse_tensor_spec("x=4:cuda");
  REQUIRE(plain_cuda.ok());
  CHECK(plain_cuda->device->index == 0);

  const auto no_dtype = parse_tensor_spec("L['x']=16x32");
  REQUIRE(no_dtype.ok());
  CHECK(no_dtype->source == "L['x']");
  CHECK_FALSE(no_dtype->dtype);
}

TEST_CASE("a 0-d tensor is written with no sizes or as scalar", "[guards][spec]") {
  for (const char* text : {"s=:f64", "s=scalar:float64", "s="}) {
    INFO(text);
    const auto spec = parse_tensor_spec(text);
    REQUIRE(spec.ok());
    REQUIRE(spec->sizes);
    CHECK(spec->sizes->empty());
  }
}

TEST_CASE("a bad tensor spec is an error naming the spec and what was expected", "[guards][spec]") {
  const std::pair<const char*, const char*> cases[] = {
      {"x16x32:f32", "no NAME="},
      {"=16x32:f32", "no NAME="},
      {"x=16xq:f32", "size 'q'"},
      {"x=16x-1:f32", "size '-1'"},
      {"x=16x32:f33", "'f33' is neither a dtype"},
      {"x=16x32:f32:stride=1", "1 strides for 2 sizes"},
      {"x=16x32:f32:stride=1xz", "stride 'z'"},
      {"x=16x32:f32:f16", "'f16' repeats a field"},
      {"x=16x32:cpu:cuda:0", "'cuda' repeats a field"},
      {"x=16x32:cuda:x", "'x' is neither a dtype"},
  };
  for (const auto& [text, why] : cases) {
    INFO(text);
    const auto spec = parse_tensor_spec(text);
    REQUIRE_FALSE(spec.ok());
    const auto& message = spec.error().message;
    CHECK_THAT(message, Catch::Contains("'" + std::string(text) + "'"));
    CHECK_THAT(message, Catch::Contains(why));
    CHECK_THAT(message, Catch::Contains("expected NAME=8x64:f32"));
  }
}

TEST_CASE("a constant spec is a Python literal, or a bare word taken as a string",
          "[guards][spec]") {
  const auto act = parse_constant_spec("act=relu");
  REQUIRE(act.ok());
  CHECK(act->source == "L['act']");
  CHECK(python_repr(act->value) == "'relu'");

  const auto scale = parse_constant_spec("___stack0=124.5");
  REQUIRE(scale.ok());
  CHECK(scale->source == "L['___stack0']");
  CHECK(scale->value.kind == Value::Kind::kFloat);

  const auto flag = parse_constant_spec("flag=True");
  REQUIRE(flag.ok());
  CHECK(flag->value.kind == Value::Kind::kBool);

  const auto quoted = parse_constant_spec("act='a b'");
  REQUIRE(quoted.ok());
  CHECK(quoted->value.string == "a b");
}

TEST_CASE("a bad constant spec names the spec", "[guards][spec]") {
  for (const char* text : {"act", "=3", "act=", "act=  "}) {
    INFO(text);
    const auto spec = parse_constant_spec(text);
    REQUIRE_FALSE(spec.ok());
    CHECK_THAT(spec.error().message, Catch::Contains("constant spec '" + std::string(text) + "'"));
    CHECK_THAT(spec.error().message, Catch::Contains("expected NAME=VALUE"));
  }
}
