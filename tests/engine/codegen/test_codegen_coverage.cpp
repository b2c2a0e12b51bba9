// Every non-extern group of every unit of every sample, in every mode, either generates a kernel
// or fails with a message naming its group.

#include <catch2/catch.hpp>

#include <iostream>
#include <map>

#include "codegen_samples.h"
#include "fxscope/codegen/kernel_codegen.h"

using namespace fxscope;

namespace {

struct Coverage {
  std::size_t groups = 0;
  std::size_t generated = 0;
  std::map<std::string, std::size_t> failures;  // message without the group prefix -> count
};

Coverage cover(const std::string& sample, fusion::Mode mode) {
  Coverage c;
  for (const auto& p : test::planned_graphs(sample, mode)) {
    for (const auto& group : p.fusion.ours.groups) {
      if (!codegen::has_generated_kernel(p.fusion.post_grad, group)) continue;
      ++c.groups;
      codegen::CodegenOptions options;
      options.hints = p.hints;
      const auto kernel = codegen::generate(p.fusion.post_grad, group, options);
      if (kernel) {
        ++c.generated;
        CHECK(!kernel->source.empty());
        CHECK(kernel->grid >= 1);
        continue;
      }
      const std::string& m = kernel.error().message;
      // Named: "group N NAME: ..." and one line.
      CHECK(m.rfind("group " + std::to_string(group.id) + " " + group.name + ":", 0) == 0);
      CHECK(m.find('\n') == std::string::npos);
      ++c.failures[m.substr(m.find(':') + 2)];
    }
  }
  return c;
}

}  // namespace

TEST_CASE("codegen covers every group of every sample", "[codegen][coverage]") {
  for (const std::string& sample : test::all_samples()) {
    for (const fusion::Mode mode : fusion::kAllModes) {
      const Coverage c = cover(sample, mode);
      std::cout << sample << " " << fusion::to_string(mode) << ": " << c.generated << " of "
                << c.groups << " groups generated\n";
      for (const auto& [m, n] : c.failures) std::cout << "  " << n << "x " << m << "\n";
      CHECK(c.groups > 0);
      CHECK(c.generated == c.groups);  // dropout's RNG included (residual_mlp_train)
    }
  }
}
