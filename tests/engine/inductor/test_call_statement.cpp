#include <catch2/catch.hpp>

#include "fxscope/inductor/call_statement.h"

using namespace fxscope::inductor;

TEST_CASE("call statements with and without assignment", "[inductor]") {
  const auto run = match_call("triton_poi_fused_add_0.run(buf0, 32768, stream=stream0)");
  REQUIRE(run);
  CHECK(run->targets.empty());
  CHECK(run->callee == "triton_poi_fused_add_0.run");
  CHECK(run->args == "buf0, 32768, stream=stream0");
  CHECK(run->closed);

  const auto sdpa = match_call("buf7 = torch.ops.aten._efficient_attention.default(f(a), b)");
  REQUIRE(sdpa);
  CHECK(sdpa->targets == "buf7");
  CHECK(sdpa->callee == "torch.ops.aten._efficient_attention.default");
  CHECK(sdpa->args == "f(a), b");

  // A ''' argument may hold an odd number of quotes and unbalanced parentheses.
  const auto def = match_call("k = async_compile.triton('k', '''\ndon't ( \"\n''', x=1) + y");
  REQUIRE(def);
  CHECK(def->targets == "k");
  CHECK(def->args == "'k', '''\ndon't ( \"\n''', x=1");

  const auto cut = match_call("extern_kernels.mm(buf0, reinterpret_tensor(");
  REQUIRE(cut);
  CHECK_FALSE(cut->closed);
  CHECK(cut->args == "buf0, reinterpret_tensor(");
}

TEST_CASE("statements that are not call statements", "[inductor]") {
  CHECK_FALSE(match_call("buf8 = buf7[0]"));
  CHECK_FALSE(match_call("(buf2,) = self.partitions[0](partition0_args)"));
  CHECK_FALSE(match_call("fn = lambda: call(list(args))"));
  CHECK_FALSE(match_call("x == f(y)"));
  CHECK_FALSE(match_call("x += f(y)"));
  CHECK_FALSE(match_call("f.(x)"));
  CHECK_FALSE(match_call(""));
  CHECK(is_keyword_arg("stream=stream0"));
  CHECK_FALSE(is_keyword_arg("a == b"));
  CHECK_FALSE(is_keyword_arg("32768"));
}
