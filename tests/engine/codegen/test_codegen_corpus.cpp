// Every group of every corpus log, in every mode, generates CUDA C of a bounded size: a refused
// group is named with its reason, and a kernel whose index text grows without bound (ShuffleNet's
// channel shuffle once made one of gigabytes) fails here rather than exhausting memory.

#include <catch2/catch.hpp>

#include <iostream>
#include <map>

#include "corpus_kernels.h"

using namespace fxscope;

namespace {
// The groups the generator refuses over the corpus in all four modes (Mixtral's router, which
// stores its probabilities padded beside the softmax's rows, generates as two kernels).
constexpr std::size_t kRefusedCeiling = 0;
}  // namespace

TEST_CASE("codegen: every group of every corpus log generates a kernel of bounded size",
          "[codegen][corpus]") {
  // The largest kernel of the corpus is about 60 KB (a layer norm's backward with its prelude).
  constexpr std::size_t kMaxSourceBytes = 256 * 1024;
  std::size_t kernels = 0;
  std::size_t refused = 0;
  std::map<std::string, std::size_t> refused_by_log;
  test::for_each_corpus_plan([&](const std::string& name, fusion::Mode mode,
                                 const codegen::UnitKernelSources& sources) {
    for (const auto& file : sources.files) {
      INFO(name << " " << fusion::to_string(mode) << " " << file.name);
      CHECK(file.text.size() < kMaxSourceBytes);
    }
    kernels += sources.files.size();
    refused += sources.refused.size();
    if (!sources.refused.empty()) {
      refused_by_log[name + " " + std::string(fusion::to_string(mode))] += sources.refused.size();
      std::cout << name << " " << fusion::to_string(mode) << ": " << sources.refused.front()
                << "\n";
    }
  });
  for (const auto& [log, n] : refused_by_log)
    std::cout << "  " << n << " not generated: " << log << "\n";
  std::cout << kernels << " kernels generated, " << refused << " groups not generated\n";
  CHECK(kernels > 20000);
  // Every group generates; none may be refused again.
  CHECK(refused <= kRefusedCeiling);
}
