// lowering._adaptive_avg_pool2d returns clone(x) where the output sizes are the input's: a
// Pointwise sized as its input, whose sizes are symbolic under dynamic shapes even where the
// graph records the output's as numbers. A reshape merging those dims into a static size
// (AlexNet's 256 x h x w read as 9216) reaches them through ModularIndexing that
// simplify_with_ranges cannot drop, so the GEMM reading it cannot take the view as strides
// (convert_to_reinterpret_view) and copies it with its own origins (ExternKernel.realize_input).

#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <string>

#include "corpus_log.h"
#include "fxscope/fusion/lowering_ops.h"
#include "fxscope/fusion/unit_fusion.h"
#include "fxscope/ops/op_registry.h"
#include "fxscope/trace/trace_log.h"
#include "graph_lookup.h"
#include "samples.h"

using namespace fxscope;

TEST_CASE("a reshape merging symbolic dims into a static size keeps its ModularIndexing",
          "[fusion]") {
  // s x 256 x h x w read as s x 9216: the merged h and w are symbolic, 9216 is not.
  CHECK(fusion::reshape_merges_symbolic_dims({2, 256, 6, 6}, {true, false, true, true}, {2, 9216},
                                             {true, false}));
  // The same sizes all static simplify to strides.
  CHECK_FALSE(fusion::reshape_merges_symbolic_dims({2, 256, 6, 6}, {false, false, false, false},
                                                   {2, 9216}, {false, false}));
  // Merging into a symbolic size, or splitting, needs no ModularIndexing that stays.
  CHECK_FALSE(fusion::reshape_merges_symbolic_dims({4, 8}, {true, false}, {32}, {true}));
  CHECK_FALSE(fusion::reshape_merges_symbolic_dims({32, 6}, {false, true}, {4, 8, 6},
                                                   {false, false, true}));
}

TEST_CASE("AlexNet's classifier copies the flattened clone of its pooling (dynamic shapes)",
          "[fusion]") {
  const auto log = test::corpus_log("tv_alexnet_dynamic");
  if (!log) return;
  std::size_t copies = 0;
  for (const auto& unit : log->units()) {
    for (const auto& f : fusion::fuse_unit(unit, fusion::Mode::default_mode)) {
      CHECK(f.ours.launches() == f.inductor.launches());
      for (const fusion::KernelGroup& theirs : f.inductor.groups) {
        // The copy: the pooling's clone read through the flattening view, with the GEMM's
        // origins, and no pooling window.
        const auto has = [&](std::string_view op) {
          return test::holds_op(f.post_grad, theirs, op);
        };
        if (!has("_adaptive_avg_pool2d") || !has("mm")) continue;
        ++copies;
        INFO(theirs.name);
        CHECK(test::formed_exactly(f.ours, theirs));
      }
    }
  }
  CHECK(copies == 1);
}
