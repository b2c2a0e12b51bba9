// The engine backend on the real samples, on a GPU. Where there is none, each test passes with a
// warning saying it was skipped. FXSCOPE_SAMPLE_DIR points the test at the samples on another
// machine; FXSCOPE_ENGINE_SAMPLES (comma separated) picks which samples run.

#include <catch2/catch.hpp>

#include "samples.h"

#include <cctype>

#include <cstdlib>
#include <iostream>
#include <sstream>

#include "fxscope/gpu/engine_run.h"
#include "fxscope/trace/trace_log.h"

using namespace fxscope;

namespace {

std::string sample_dir() {
  const char* dir = std::getenv("FXSCOPE_SAMPLE_DIR");
  return dir && *dir ? dir : fxscope::test::samples_dir();
}

std::vector<std::string> engine_samples() {
  const char* env = std::getenv("FXSCOPE_ENGINE_SAMPLES");
  std::string list = env && *env ? env : "residual_mlp,pointwise_chain,max_autotune_mlp";
  std::vector<std::string> out;
  std::stringstream ss(list);
  for (std::string s; std::getline(ss, s, ',');) {
    if (!s.empty()) out.push_back(s);
  }
  return out;
}

constexpr auto npos = std::string::npos;

bool no_device(const Error& e) {
  return e.message.find("no CUDA device") != std::string::npos;
}

}  // namespace

TEST_CASE("without a GPU the engine says so in one line", "[gpu]") {
  gpu::EngineRunOptions o;
  o.log_path = sample_dir() + "/residual_mlp";
  o.mode = "eager";
  o.repeats = 1;
  const auto run = gpu::run_engine(o);
  if (run) {
    WARN("a GPU is present: the refusal is not exercised here");
    return;
  }
  CHECK(no_device(run.error()));
  CHECK(run.error().message.find('\n') == std::string::npos);
}

TEST_CASE("an unknown unit is refused before the device is opened", "[gpu]") {
  gpu::EngineRunOptions o;
  o.log_path = sample_dir() + "/residual_mlp";
  o.unit = "9/9";
  const auto run = gpu::run_engine(o);
  REQUIRE_FALSE(run);
  CHECK_THAT(run.error().message, Catch::EndsWith("no compile unit 9/9"));
}

TEST_CASE("every unit of the samples runs in all four modes and matches eager", "[cuda][engine]") {
  for (const std::string& name : engine_samples()) {
    auto log = trace::read_trace(sample_dir() + "/" + name);
    REQUIRE(log);
    for (const auto& unit : log->units()) {
      if (!unit.aot_graph()) continue;
      gpu::EngineRunOptions o;
      o.log_path = log->path();
      o.unit = unit.id.without_attempt().str();
      o.repeats = 3;
      o.warmup = 1;
      const auto run = gpu::run_engine(o);
      if (!run && no_device(run.error())) {
        WARN("skipped, no device: " + run.error().message);
        return;
      }
      INFO(name << " unit " << o.unit);
      REQUIRE(run);
      REQUIRE(run->modes.size() == 4);
      // The reference kernels (copies alone and in place, the empty kernel) compiled and loaded.
      for (const std::string& note : run->notes) CHECK(note.find("no reference copy") == npos);
      for (const auto& m : run->modes) {
        std::string missing;
        for (const auto& why : m.coverage.missing) missing += "\n  not run: " + why;
        INFO("mode " << m.measured.mode << ": " << m.error << missing);
        CHECK(m.ran);
        CHECK(m.coverage.missing.empty());
        CHECK(m.coverage.ran == m.coverage.ops);
        if (!m.ran) continue;
        if (m.measured.mode != "eager") {
          REQUIRE(m.max_rel_err);
          CHECK_FALSE(m.flagged);
        }
        // CUPTI saw every launch and mapped each to its step, inside CUDA graphs too.
        CHECK(m.measured.launches >= 1.0);
        CHECK(m.measured.attributed_share() == Approx(1.0));
        if (m.cuda_graph) CHECK(m.measured.cuda_graph_launches == m.measured.launches);
        // A generated kernel is named by its own entry (fx_<group>_g<id>): CUPTI's records named
        // modules loaded where unloaded ones had been after the unloaded ones' kernels.
        for (const auto& k : m.measured.kernels) {
          if (k.name.rfind("fx_", 0) != 0) continue;
          std::string group = k.group;
          for (char& c : group) {
            if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
          }
          INFO("kernel " << k.name << " of group " << k.group);
          CHECK(k.name.find(group) != std::string::npos);
        }
        CHECK(m.peak_bytes > 0);
        CHECK(m.peak_bytes <= m.unplanned_bytes);
        // Each held kernel's reference copy was timed alone and, unless its place says why not,
        // in its place: after the step before it, in the mode's CUDA graph or on its stream.
        for (const auto& b : m.bandwidth) {
          if (!b.held_to_target) continue;
          INFO("kernel " << b.name << ": reference " << b.reference_place);
          CHECK(b.alone_copy_kernel_us > 0);
          CHECK(b.same_size_copy_kernel_us > 0);
          if (b.reference_place.starts_with("alone")) {
            CHECK(b.same_size_copy_kernel_us == b.alone_copy_kernel_us);
            continue;
          }
          CHECK(b.reference_place.starts_with("after group "));
          // A GEMM's product is one aligned buffer: the copy reads it, as the kernel does.
          if (b.reference_place.find("(GEMM)") != std::string::npos) {
            CHECK(b.reference_place.find(", reading what it wrote, ") != std::string::npos);
          }
          CHECK(b.reference_place.ends_with(m.cuda_graph ? ", in the CUDA graph"
                                                         : ", on the stream"));
        }
      }
      // A line a unit as it finishes, so that a run cut short by a time limit still says which
      // samples were checked whole.
      std::cout << name << " unit " << o.unit << ": 4 modes checked" << std::endl;
    }
  }
}
