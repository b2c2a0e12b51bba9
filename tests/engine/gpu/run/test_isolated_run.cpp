// Each mode of an engine run in a process of its own, without a GPU: the children here are shell
// commands that copy a prepared result, crash, exit with a status or write nothing, as a mode's
// child does when its CUDA context faults.

#include <catch2/catch.hpp>

#include <cmath>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>

#include "fxscope/gpu/isolated_run.h"
#include "samples.h"

using namespace fxscope;

namespace {

gpu::HostOutput output_of(const std::vector<float>& values) {
  gpu::HostOutput o;
  o.meta = *graph::parse_tensor_meta("f32[" + std::to_string(values.size()) + "][1]cuda:0");
  o.bytes.resize(values.size() * sizeof(float));
  std::memcpy(o.bytes.data(), values.data(), o.bytes.size());
  return o;
}

// A one-mode result as a mode's child writes it.
std::string prepared(const std::filesystem::path& dir, const std::string& mode,
                     const std::vector<float>& values, std::vector<gpu::ValueDigest> digests = {}) {
  gpu::ModeResult r;
  r.run.device = "a test device";
  r.run.unit = "0/0";
  r.run.notes = {mode + ": a note of its own"};
  gpu::EngineMode m;
  m.measured.mode = mode;
  m.measured.total_us = 10;
  m.ran = true;
  m.coverage = {3, 3, {}};
  m.values = std::move(digests);
  r.run.modes.push_back(m);
  r.outputs = {{output_of(values)}};
  const std::string path = (dir / (mode + ".prepared")).string();
  REQUIRE(gpu::write_mode_result(path, r).empty());
  return path;
}

struct TempDir {
  TempDir() {
    path = std::filesystem::temp_directory_path() / "fxscope-test-isolated-XXXXXX";
    std::string p = path.string();
    REQUIRE(mkdtemp(p.data()) != nullptr);
    path = p;
  }
  ~TempDir() { std::filesystem::remove_all(path); }
  std::filesystem::path path;
};

gpu::EngineRunOptions options() {
  gpu::EngineRunOptions o;
  o.log_path = test::sample("residual_mlp");
  o.mode = "all";
  return o;
}

// The isolated run of O, each mode's child the shell command SCRIPT holds for it ($0: the result
// file it is to write).
Result<gpu::EngineRun> run_scripts(const gpu::EngineRunOptions& o,
                                   const std::map<std::string, std::string>& script) {
  return gpu::run_engine_isolated(
      o, [&](const std::string& mode, const std::string&, const std::string& file) {
        return ChildCommand{{"sh", "-c", script.at(mode), file}, {}};
      });
}

const gpu::EngineMode& mode_named(const gpu::EngineRun& run, const std::string& name) {
  for (const auto& m : run.modes) {
    if (m.measured.mode == name) return m;
  }
  FAIL("no mode " << name);
  return run.modes.front();
}

}  // namespace

TEST_CASE("a mode's result file reads back as written", "[gpu]") {
  TempDir dir;
  const std::string path = prepared(dir.path, "eager", {1.0f, -2.0f, 3.5f});
  auto r = gpu::read_mode_result(path);
  REQUIRE(r);
  REQUIRE(r->run.modes.size() == 1);
  CHECK(r->run.modes[0].measured.mode == "eager");
  CHECK(r->run.modes[0].coverage.ran == 3);
  REQUIRE(r->outputs.size() == 1);
  REQUIRE(r->outputs[0].size() == 1);
  CHECK(r->outputs[0][0].meta.to_string() == "f32[3][1]cuda:0");
  CHECK(r->outputs[0][0].bytes == output_of({1.0f, -2.0f, 3.5f}).bytes);
}

TEST_CASE("a file that is not a mode result is refused with its path", "[gpu]") {
  TempDir dir;
  const std::string path = (dir.path / "garbage").string();
  { std::ofstream(path) << "not cbor"; }
  const auto r = gpu::read_mode_result(path);
  REQUIRE(!r);
  CHECK(r.error().message.find(path) != std::string::npos);
}

TEST_CASE("a mode whose process crashes or fails costs that mode only", "[gpu]") {
  TempDir dir;
  const std::map<std::string, std::string> script = {
      {"eager", "cp '" + prepared(dir.path, "eager", {1, 2, 3}) + "' \"$0\""},
      // A CUDA fault that takes the process down (SIGSEGV), and one that leaves it exiting 3.
      {"default", "kill -SEGV $$"},
      {"reduce-overhead", "exit 3"},
      {"max-autotune", "cp '" + prepared(dir.path, "max-autotune", {1, 2, 3.5f}) + "' \"$0\""}};
  std::vector<std::string> started;
  const auto command = [&](const std::string& mode, const std::string&, const std::string& file) {
    started.push_back(mode);
    return ChildCommand{{"sh", "-c", script.at(mode), file}, {}};
  };
  auto run = gpu::run_engine_isolated(options(), command);
  REQUIRE(run);
  CHECK(started == std::vector<std::string>{"eager", "default", "reduce-overhead", "max-autotune"});
  REQUIRE(run->modes.size() == 4);
  CHECK(run->device == "a test device");
  const auto& def = mode_named(*run, "default");
  CHECK(!def.ran);
  CHECK(def.error.find("killed by signal 11") != std::string::npos);
  const auto& ro = mode_named(*run, "reduce-overhead");
  CHECK(!ro.ran);
  CHECK(ro.error.find("exited with status 3") != std::string::npos);
  // The modes that ran are measured and compared with eager.
  const auto& ma = mode_named(*run, "max-autotune");
  CHECK(ma.ran);
  REQUIRE(ma.max_rel_err);
  CHECK(*ma.max_rel_err == Approx(0.5 / 3.0));
  CHECK(ma.flagged);
  CHECK(std::count(run->notes.begin(), run->notes.end(), "max-autotune: a note of its own") == 1);
  CHECK(std::count(run->notes.begin(), run->notes.end(), "eager: a note of its own") == 1);
}

TEST_CASE("a child that exits cleanly without a result is named", "[gpu]") {
  auto o = options();
  o.mode = "eager,default";
  const auto command = [](const std::string&, const std::string&, const std::string&) {
    return ChildCommand{{"true"}, {}};
  };
  auto run = gpu::run_engine_isolated(o, command);
  REQUIRE(run);
  REQUIRE(run->modes.size() == 2);
  for (const auto& m : run->modes) {
    CHECK(!m.ran);
    CHECK(m.error.find("ended without a result") != std::string::npos);
  }
  // Eager did not run: nothing is compared, and the run says so.
  CHECK(run->unit == "0/0");
}

TEST_CASE("an error every mode would share is the run's error", "[gpu]") {
  TempDir dir;
  gpu::ModeResult fatal;
  fatal.fatal_error = "no CUDA device: test";
  const std::string path = (dir.path / "fatal").string();
  REQUIRE(gpu::write_mode_result(path, fatal).empty());
  int children = 0;
  const auto command = [&](const std::string&, const std::string&, const std::string& file) {
    ++children;
    return ChildCommand{{"cp", path, file}, {}};
  };
  const auto run = gpu::run_engine_isolated(options(), command);
  REQUIRE(!run);
  CHECK(run.error().message == "no CUDA device: test");
  CHECK(children == 1);
}

TEST_CASE("an unknown unit is refused before any child starts", "[gpu]") {
  auto o = options();
  o.unit = "99/0";
  int children = 0;
  const auto command = [&](const std::string&, const std::string&, const std::string&) {
    ++children;
    return ChildCommand{{"true"}, {}};
  };
  const auto run = gpu::run_engine_isolated(o, command);
  REQUIRE(!run);
  CHECK(run.error().message.find("no compile unit 99/0") != std::string::npos);
  CHECK(children == 0);
}

namespace {

gpu::ValueDigest digest_of(const std::string& node, std::size_t step, const std::vector<float>& v) {
  const gpu::HostOutput o = output_of(v);
  gpu::ValueDigest d = gpu::digest_value(o.meta, o.bytes.data(), {});
  d.node = node;
  d.step = step;
  d.group = step;
  d.group_name = "triton_poi_" + node;
  d.kernel = "k" + std::to_string(step);
  return d;
}

}  // namespace

TEST_CASE("a mode outside tolerance names its first wrong value, across processes", "[gpu]") {
  TempDir dir;
  auto o = options();
  o.mode = "eager,default";
  const std::vector<gpu::ValueDigest> eager = {digest_of("mm", 0, {1, 2, 3}),
                                               digest_of("relu", 1, {1, 2, 3})};
  const std::vector<gpu::ValueDigest> fused = {digest_of("mm", 0, {1, 2, 3}),
                                               digest_of("relu", 1, {1, 2, 3.5f})};
  const std::map<std::string, std::string> from = {
      {"eager", prepared(dir.path, "eager", {1, 2, 3}, eager)},
      {"default", prepared(dir.path, "default", {1, 2, 3.5f}, fused)}};
  const auto command = [&](const std::string& mode, const std::string&, const std::string& file) {
    return ChildCommand{{"cp", from.at(mode), file}, {}};
  };
  auto run = gpu::run_engine_isolated(o, command);
  REQUIRE(run);
  CHECK(mode_named(*run, "default").flagged);
  const auto note = std::find_if(run->notes.begin(), run->notes.end(), [](const std::string& n) {
    return n.rfind("default: the first value outside tolerance is relu", 0) == 0;
  });
  REQUIRE(note != run->notes.end());
  CHECK(note->find("group 1 triton_poi_relu (k1)") != std::string::npos);
  CHECK(note->find("the 1 value its groups wrote before agree") != std::string::npos);
}

TEST_CASE("an output beyond eager's tolerance but near an f32 run of eager's graph is not flagged",
          "[gpu]") {
  TempDir dir;
  // Eager's file carries its graph's f32 run: eager is 0.003 / sqrt(3) from it (root mean square).
  const std::string eager = prepared(dir.path, "eager", {1, 2, 3});
  auto with_reference = gpu::read_mode_result(eager);
  REQUIRE(with_reference);
  with_reference->reference_outputs = {output_of({1, 2, 3.003f})};
  with_reference->backward_reference_outputs = {output_of({0.5f})};
  REQUIRE(gpu::write_mode_result(eager, *with_reference).empty());
  const auto read_back = gpu::read_mode_result(eager);
  REQUIRE(read_back);
  REQUIRE(read_back->reference_outputs.size() == 1);
  CHECK(read_back->reference_outputs[0].bytes == output_of({1, 2, 3.003f}).bytes);
  REQUIRE(read_back->backward_reference_outputs.size() == 1);
  CHECK(read_back->backward_reference_outputs[0].bytes == output_of({0.5f}).bytes);
  const std::map<std::string, std::string> script = {
      {"eager", "cp '" + eager + "' \"$0\""},
      // 0.002 from eager (f32's tolerance is 0.001), as far from the f32 run as eager: within 3x.
      {"default", "cp '" + prepared(dir.path, "default", {1, 2, 3.006f}) + "' \"$0\""},
      // 0.17 from both: flagged.
      {"max-autotune", "cp '" + prepared(dir.path, "max-autotune", {1, 2, 3.5f}) + "' \"$0\""}};
  auto o = options();
  o.mode = "eager,default,max-autotune";
  auto run = run_scripts(o, script);
  REQUIRE(run);
  const auto& def = mode_named(*run, "default");
  REQUIRE(def.max_rel_err);
  CHECK(*def.max_rel_err > def.tolerance);
  CHECK_FALSE(def.flagged);
  CHECK(def.near_reference == 1);
  CHECK(def.eager_reference_distance == Approx(0.003 / std::sqrt(3.0)).epsilon(1e-3));
  CHECK(std::any_of(run->notes.begin(), run->notes.end(), [](const std::string& n) {
    return n.starts_with(
        "default: 1 outputs beyond the tolerance of eager pass PyTorch's accuracy rule");
  }));
  const auto& ma = mode_named(*run, "max-autotune");
  CHECK(ma.flagged);
  CHECK(ma.near_reference == 0);
}

TEST_CASE("outputs that depend on a group eager could not run are left out, the others compared",
          "[gpu]") {
  TempDir dir;
  const std::string cond = "group 8 higher_order.cond: a higher-order op, which has no runtime";
  const auto with_outputs = [&](const std::string& mode, std::vector<gpu::HostOutput> outputs,
                                bool eager_incomplete) {
    const std::string path = prepared(dir.path, mode, {0});
    auto r = gpu::read_mode_result(path);
    REQUIRE(r);
    r->outputs = {std::move(outputs)};
    if (eager_incomplete) r->run.modes[0].coverage = {3, 2, {cond}};
    REQUIRE(gpu::write_mode_result(path, *r).empty());
    return path;
  };
  gpu::HostOutput upstream = output_of({1, 2, 3});
  gpu::HostOutput downstream = output_of({4, 5});
  downstream.not_run = cond;
  const std::string eager = with_outputs("eager", {upstream, downstream}, true);
  // Default agrees upstream and differs downstream, where eager holds no reference.
  const std::string def = with_outputs("default", {upstream, output_of({40, 50})}, false);
  // Max-autotune differs upstream: flagged, though eager did not run every group.
  const std::string ma =
      with_outputs("max-autotune", {output_of({1, 2, 9}), output_of({4, 5})}, false);
  // Reduce-overhead's only comparable output is the one eager could not compute.
  const std::string ro = with_outputs("reduce-overhead", {output_of({4, 5})}, false);
  const std::map<std::string, std::string> script = {{"eager", "cp '" + eager + "' \"$0\""},
                                                     {"default", "cp '" + def + "' \"$0\""},
                                                     {"reduce-overhead", "cp '" + ro + "' \"$0\""},
                                                     {"max-autotune", "cp '" + ma + "' \"$0\""}};
  auto run = run_scripts(options(), script);
  REQUIRE(run);
  const auto& d = mode_named(*run, "default");
  REQUIRE(d.max_rel_err);
  CHECK(*d.max_rel_err == 0.0);
  CHECK_FALSE(d.flagged);
  CHECK(d.outputs_not_compared == 1);
  CHECK(std::count(run->notes.begin(), run->notes.end(),
                   "default: 1 of 2 outputs compared; the others depend on what eager could not "
                   "run: " +
                       cond) == 1);
  const auto& m = mode_named(*run, "max-autotune");
  CHECK(m.flagged);
  // Reduce-overhead's outputs disagree in number with eager's: that is its error, as before.
  CHECK(mode_named(*run, "reduce-overhead").error.find("outputs: eager has 2") !=
        std::string::npos);
}

TEST_CASE("a mode none of whose outputs eager computed is not compared, with the group named",
          "[gpu]") {
  TempDir dir;
  const std::string cond = "group 8 higher_order.cond: a higher-order op, which has no runtime";
  gpu::HostOutput downstream = output_of({4, 5});
  downstream.not_run = cond;
  const std::string eager = prepared(dir.path, "eager", {0});
  auto r = gpu::read_mode_result(eager);
  REQUIRE(r);
  r->outputs = {{downstream}};
  REQUIRE(gpu::write_mode_result(eager, *r).empty());
  const std::map<std::string, std::string> script = {
      {"eager", "cp '" + eager + "' \"$0\""},
      {"default", "cp '" + prepared(dir.path, "default", {4, 6}) + "' \"$0\""}};
  auto o = options();
  o.mode = "eager,default";
  auto run = run_scripts(o, script);
  REQUIRE(run);
  const auto& d = mode_named(*run, "default");
  CHECK_FALSE(d.max_rel_err);
  CHECK_FALSE(d.flagged);
  CHECK(std::count(run->notes.begin(), run->notes.end(),
                   "default: not compared (eager did not run completely: " + cond + ")") == 1);
}
