// A model's layers generate kernels that differ only in names: the run compiles each once
// (EngineCompiler, kernel_key). Counted on Swin-T's training step, without a GPU.

#include <catch2/catch.hpp>

#include <iostream>
#include <set>

#include "fxscope/codegen/unit_kernel_sources.h"
#include "fxscope/gpu/engine_compiler.h"
#include "fxscope/trace/trace_log.h"
#include "samples.h"

using namespace fxscope;

TEST_CASE("Swin-T's training step compiles far fewer kernels than it launches", "[gpu][corpus]") {
  auto log = trace::read_trace(test::sample("corpus/tv_swin_t_train_bf16"));
  REQUIRE(log);
  for (const fusion::Mode mode : {fusion::Mode::eager, fusion::Mode::default_mode}) {
    INFO(fusion::to_string(mode));
    const auto sources = codegen::unit_kernel_sources(*log, mode, "");
    REQUIRE(sources);
    std::set<std::string> keys;
    for (const auto& f : sources->files) keys.insert(gpu::kernel_key(f.text).key);
    std::cout << fusion::to_string(mode) << ": " << sources->files.size() << " kernels, "
              << keys.size() << " to compile\n";
    CHECK(sources->files.size() > 500);
    // Its third stage alone repeats one block six times.
    CHECK(keys.size() * 10 < sources->files.size() * 8);
  }
}
