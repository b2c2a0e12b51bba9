#include "fxscope/gpu/isolated_run.h"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>

#include "fxscope/gpu/run_unit.h"
#include "run/engine_modes.h"

namespace fxscope::gpu {
namespace {

// The folder of the children's result files, removed on every way out.
class ResultDir {
 public:
  ResultDir() {
    std::error_code ec;
    std::string path = (std::filesystem::temp_directory_path(ec) / "fxscope-modes-XXXXXX").string();
    if (!ec && mkdtemp(path.data()) != nullptr)
      path_ = path;
    else
      error_ =
          path + ": cannot create a folder for the modes' results (" + std::strerror(errno) + ")";
  }
  ~ResultDir() {
    std::error_code ec;
    if (!path_.empty()) std::filesystem::remove_all(path_, ec);
  }
  ResultDir(const ResultDir&) = delete;
  ResultDir& operator=(const ResultDir&) = delete;
  const std::string& path() const { return path_; }
  const std::string& error() const { return error_; }

 private:
  std::string path_;
  std::string error_;
};

// Why a child left no usable result: how it ended, and what reading its file said.
std::string child_failure(const ChildExit& exit, const Error& read) {
  if (exit.success()) return "its process ended without a result (" + read.message + ")";
  return "its process " + exit.describe() + " before writing a result";
}

}  // namespace

Result<EngineRun> run_engine_isolated(const EngineRunOptions& o, const ModeChildCommand& command) {
  const auto say = [&](const std::string& s) {
    if (o.progress) o.progress(s);
  };
  auto found = find_run_unit(o);
  if (!found) return found.error();
  const std::vector<std::string> modes = selected_modes(o.mode);
  if (modes.empty()) {
    return make_error("--mode " + o.mode +
                      ": expected eager, default, reduce-overhead, "
                      "max-autotune, a comma-separated list of them, or all");
  }
  const std::string unit = found->unit->id.without_attempt().str();
  const ResultDir dir;
  if (dir.path().empty()) return make_error(dir.error());
  EngineRun run;
  bool device_known = false;
  std::vector<std::vector<HostOutput>> outputs;
  std::vector<std::vector<HostOutput>> backward_outputs;  // per entry of run.backward
  std::vector<HostOutput> reference;                      // eager's graph in f32
  std::vector<HostOutput> backward_reference;             // eager's backward in f32
  for (std::size_t mi = 0; mi < modes.size(); ++mi) {
    const std::string& mode = modes[mi];
    const std::string file = dir.path() + "/" + mode + ".cbor";
    EngineMode failed;
    failed.measured.mode = mode;
    const auto exit = run_child(command(mode, unit, file));
    if (!exit) {
      failed.error = "cannot start the mode's process: " + exit.error().message;
    } else if (auto result = read_mode_result(file); !result) {
      failed.error = child_failure(*exit, result.error());
    } else if (!result->fatal_error.empty()) {
      // What keeps one mode from starting (no device, no libraries) keeps them all.
      if (mi == 0) return make_error(result->fatal_error);
      failed.error = result->fatal_error;
    } else if (result->run.modes.size() != 1) {
      failed.error =
          "its process reported " + std::to_string(result->run.modes.size()) + " modes, not one";
    } else {
      if (!device_known) {
        std::vector<std::string> notes = std::move(run.notes);
        std::vector<EngineMode> done = std::move(run.modes);
        run = std::move(result->run);
        run.modes.insert(run.modes.begin(), std::make_move_iterator(done.begin()),
                         std::make_move_iterator(done.end()));
        run.notes.insert(run.notes.begin(), notes.begin(), notes.end());
        device_known = true;
        // Said once a mode ran, so that a refusal (no device) stays one line.
        if (o.unit.empty()) say(default_unit_line(*found->unit));
      } else {
        run.modes.push_back(std::move(result->run.modes.front()));
        for (auto& b : result->run.backward) run.backward.push_back(std::move(b));
        run.notes.insert(run.notes.end(), result->run.notes.begin(), result->run.notes.end());
      }
      for (auto& g : result->backward_outputs) backward_outputs.push_back(std::move(g));
      if (mode == "eager") {
        reference = std::move(result->reference_outputs);
        backward_reference = std::move(result->backward_reference_outputs);
      }
      if (!exit->success()) {
        run.notes.push_back(mode + ": its process " + exit->describe() +
                            " after writing its result");
      }
      outputs.push_back(std::move(result->outputs.front()));
      continue;
    }
    say(mode + ": " + failed.error);
    run.modes.push_back(std::move(failed));
    outputs.emplace_back();
  }
  if (run.unit.empty()) run.unit = unit;
  compare_with_eager(run, outputs, found->hints, reference);
  compare_backward_with_eager(run, backward_outputs, found->hints, backward_reference);
  return run;
}

int run_mode_child(const EngineRunOptions& o, const std::string& result_file) {
  ModeResult written;
  bool wrote = false;
  EngineRunOptions options = o;
  // The parent runs eager first and writes each mode's result beside the others.
  const std::filesystem::path eager =
      std::filesystem::path(result_file).parent_path() / "eager.cbor";
  if (o.mode != "eager" && std::filesystem::exists(eager)) options.eager_result = eager.string();
  options.mode_done = [&](const EngineRun& run, const std::vector<HostOutput>& outputs,
                          const std::vector<HostOutput>& gradients) {
    written.run = run;
    written.outputs.assign(run.modes.size(), {});
    written.outputs.back() = outputs;
    written.backward_outputs.assign(run.backward.size(), {});
    if (!run.backward.empty()) written.backward_outputs.back() = gradients;
    const std::string err = write_mode_result(result_file, written);
    if (!err.empty() && o.progress) o.progress(err);
    wrote = err.empty();
  };
  auto modes = run_modes(options);
  if (!modes) {
    written = {};
    written.fatal_error = modes.error().message;
    // The parent reports the error itself.
    const std::string err = write_mode_result(result_file, written);
    if (!err.empty() && o.progress) o.progress(err);
    return 1;
  }
  if (wrote && (!modes->reference_outputs.empty() || !modes->backward_reference_outputs.empty())) {
    written.reference_outputs = std::move(modes->reference_outputs);
    written.backward_reference_outputs = std::move(modes->backward_reference_outputs);
    const std::string err = write_mode_result(result_file, written);
    if (!err.empty() && o.progress) o.progress(err);
    wrote = err.empty();
  }
  return wrote ? 0 : 1;
}

}  // namespace fxscope::gpu
