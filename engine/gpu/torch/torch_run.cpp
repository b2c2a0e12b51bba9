#include "fxscope/gpu/torch_run.h"

#include <nlohmann/json.hpp>

#include <fcntl.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <thread>

#include "fxscope/gpu/run_unit.h"
#include "fxscope/trace/trace_log.h"

extern char** environ;

namespace fxscope::gpu {
namespace {

std::string read_all(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

struct Child {
  int status = 0;
  std::string out;
  std::string err;
};

using Progress = std::function<void(const std::string&)>;

// The progress a line of the driver's stderr tells, or "" when it tells none.
std::string progress_of(const std::string& line) {
  static const std::string kDriver = "fxscope-progress: ";
  static const std::string kAutotune = "AUTOTUNE ";
  if (line.starts_with(kDriver)) return line.substr(kDriver.size());
  // Inductor's header before the table of one op's choices: "AUTOTUNE mm(3136x64, 64x64)".
  if (line.starts_with(kAutotune) && line.find('(') != std::string::npos) {
    return "autotuning " + line.substr(kAutotune.size());
  }
  return {};
}

// The driver's last word on stderr (its refusal, or the exception that stopped it), progress
// lines passed over.
std::string last_message(const std::string& text) {
  std::size_t end = text.size();
  while (end > 0) {
    const std::size_t stop = text.find_last_not_of("\n\r ", end - 1);
    if (stop == std::string::npos) return {};
    const std::size_t begin = text.rfind('\n', stop);
    const std::size_t from = begin == std::string::npos ? 0 : begin + 1;
    std::string line = text.substr(from, stop + 1 - from);
    if (progress_of(line).empty()) return line;
    end = from;
  }
  return {};
}

// Follows the file at PATH as the child writes it: each complete line past OFFSET that tells
// progress goes to PROGRESS; PARTIAL keeps an unfinished last line for the next call.
void relay_progress(const std::string& path, std::uintmax_t& offset, std::string& partial,
                    const Progress& progress) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return;
  in.seekg(static_cast<std::streamoff>(offset));
  std::string chunk((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  offset += chunk.size();
  partial += chunk;
  std::size_t start = 0;
  for (std::size_t end; (end = partial.find('\n', start)) != std::string::npos; start = end + 1) {
    if (std::string p = progress_of(partial.substr(start, end - start)); !p.empty()) progress(p);
  }
  partial.erase(0, start);
}

// Spawns ARGV with EXTRA added to the environment; stdout and stderr go to files in WORK. While
// it runs, PROGRESS (when set) hears the progress lines of its stderr.
Result<Child> spawn(const std::vector<std::string>& argv, const std::vector<std::string>& extra,
                    const std::string& work, const Progress& progress) {
  const std::string out_path = work + "/driver.out";
  const std::string err_path = work + "/driver.err";
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC,
                                   0644);
  posix_spawn_file_actions_addopen(&actions, 2, err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC,
                                   0644);
  std::vector<std::string> env_strings = extra;
  for (char** e = environ; *e; ++e) env_strings.emplace_back(*e);
  std::vector<char*> env;
  for (auto& s : env_strings) env.push_back(s.data());
  env.push_back(nullptr);
  std::vector<std::string> args = argv;
  std::vector<char*> cargs;
  for (auto& s : args) cargs.push_back(s.data());
  cargs.push_back(nullptr);
  pid_t pid = 0;
  const int rc = posix_spawnp(&pid, cargs[0], &actions, nullptr, cargs.data(), env.data());
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0) {
    return make_error(argv[0] + ": cannot start Python (" + std::strerror(rc) +
                      "); install it or pass --python PATH");
  }
  Child c;
  if (progress) {
    std::uintmax_t offset = 0;
    std::string partial;
    for (;;) {
      const pid_t done = waitpid(pid, &c.status, WNOHANG);
      const bool failed = done < 0 && errno != EINTR;
      relay_progress(err_path, offset, partial, progress);
      if (done == pid || failed) break;
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
    }
  } else {
    while (waitpid(pid, &c.status, 0) < 0 && errno == EINTR) {
    }
  }
  c.out = read_all(out_path);
  c.err = read_all(err_path);
  return c;
}

// The variable ENV_VAR when set; else the file beside the running executable (a build tree's
// copy), then at its installed place relative to bin/; else where the build put it.
std::string find_file_for_cli(const char* env_var, const std::string& file_name,
                              const std::string& installed_from_bin,
                              const std::string& built_path) {
  if (const char* v = std::getenv(env_var); v && *v) return v;
  std::error_code ec;
  const auto exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (ec) return built_path;
  for (const auto& candidate : {exe.parent_path() / file_name,
                                (exe.parent_path() / installed_from_bin).lexically_normal()}) {
    if (std::filesystem::exists(candidate, ec)) return candidate.string();
  }
  return built_path;
}

}  // namespace

std::string default_cupti_lib() {
  return find_file_for_cli("FXSCOPE_CUPTI_LIB", "libfxscope_cupti.so", FXSCOPE_INSTALLED_CUPTI_LIB,
                           FXSCOPE_BUILT_CUPTI_LIB);
}

std::string default_torch_driver() {
  return find_file_for_cli("FXSCOPE_TORCH_DRIVER", "fxscope_torch_driver.py",
                           FXSCOPE_INSTALLED_TORCH_DRIVER, FXSCOPE_SOURCE_TORCH_DRIVER);
}

Result<report::RunResult> assemble_run(const std::string& driver_json, const CuptiRecords& records,
                                       const KernelIndex& index) {
  const auto j = nlohmann::json::parse(last_message(driver_json), nullptr, false);
  if (j.is_discarded() || !j.is_object() || !j.contains("modes")) {
    return make_error("the PyTorch driver printed no result object");
  }
  report::RunResult run;
  run.backend = "pytorch";
  run.device = j.value("device", "");
  run.unit = j.value("unit", "");
  run.torch_version = j.value("torch_version", "");
  if (const auto tf32 = j.find("allow_tf32"); tf32 != j.end() && tf32->is_boolean()) {
    run.allow_tf32 = tf32->get<bool>();
  }
  for (const auto& jm : j["modes"]) {
    report::RunMode m = attribute_mode(jm.value("mode", ""), jm.value("range", ""), records, index);
    const auto& total = jm.value("total_us", nlohmann::json::object());
    m.total_us = total.value("median", 0.0);
    m.total_min_us = total.value("min", 0.0);
    m.total_max_us = total.value("max", 0.0);
    run.modes.push_back(std::move(m));
  }
  return run;
}

Result<std::string> make_temp_work_dir() {
  std::error_code ec;
  std::string path = (std::filesystem::temp_directory_path(ec) / "fxscope-run-XXXXXX").string();
  if (ec || mkdtemp(path.data()) == nullptr) {
    return make_error(path + ": cannot create the run's temp folder (" + std::strerror(errno) +
                      ")");
  }
  return path;
}

namespace {

// Deletes the work folder on every way out of a run, when asked to.
class WorkDirCleanup {
 public:
  explicit WorkDirCleanup(const TorchRunOptions& o) : o_(o) {}
  WorkDirCleanup(const WorkDirCleanup&) = delete;
  WorkDirCleanup& operator=(const WorkDirCleanup&) = delete;
  ~WorkDirCleanup() {
    std::error_code ec;
    if (o_.remove_work_dir) std::filesystem::remove_all(o_.work_dir, ec);
  }

 private:
  const TorchRunOptions& o_;
};

// The unit the driver ran: named in its result (the first with a runnable artifact when none was
// asked for), else the one asked for.
std::string unit_ran(const std::string& driver_out, const std::string& asked) {
  const auto result = nlohmann::json::parse(last_message(driver_out), nullptr, false);
  const bool named = result.is_object() && result.contains("unit") && result["unit"].is_string();
  return named ? result["unit"].get<std::string>() : asked;
}

// The Inductor kernels of unit RAN of LOG, and of the driver's own compiles in TRACE_DIR (they
// name the kernels of modes the capture did not use, such as max-autotune's templates).
KernelIndex kernel_index(const trace::TraceLog& log, const std::string& ran,
                         const std::string& trace_dir) {
  KernelIndex index;
  for (const auto& unit : log.units()) {
    if (unit.id.without_attempt().str() != ran) continue;
    index.add_unit(unit);
    index.add_dynamo_map(unit);
  }
  if (auto own = trace::read_trace(trace_dir)) {
    for (const auto& unit : own->units()) index.add_unit(unit, /*driver=*/true);
  }
  return index;
}

}  // namespace

Result<RunnableFiles> write_runnable(const trace::TraceLog& log, const std::string& unit,
                                     const std::string& work_dir) {
  // Writes TEXT to WORK_DIR/NAME, whose path it gives, or says it could not.
  const auto write = [&](const char* name, std::string_view text) -> Result<std::string> {
    const std::string path = work_dir + "/" + name;
    std::ofstream out(path, std::ios::binary);
    out << text;
    if (!out) return make_error(path + ": cannot write the unit's graph for the driver");
    return path;
  };
  for (const trace::CompileUnit& u : log.units()) {
    if (u.id.without_attempt().str() != unit) continue;
    const auto runnables = u.find_all(trace::ArtifactKind::kFxGraphRunnable);
    if (runnables.empty()) continue;
    RunnableFiles files;
    const std::string text = runnables.front()->payload.text();
    auto runnable = write("runnable.py", text);
    if (!runnable) return runnable.error();
    files.runnable = std::move(*runnable);
    if (text.find("<lambda>()") == std::string::npos) return files;
    for (const trace::Artifact& a : u.artifacts) {
      if (a.name != "before_post_grad_graph" || a.line < runnables.front()->line) continue;
      auto graph = write("graph.py", a.payload.text());
      if (!graph) return graph.error();
      files.graph = std::move(*graph);
      break;
    }
    return files;
  }
  return RunnableFiles{};
}

Result<report::RunResult> run_pytorch(const TorchRunOptions& o) {
  const WorkDirCleanup cleanup(o);
  auto log = trace::read_trace(o.log_path);
  if (!log) return log.error();
  std::error_code ec;
  std::filesystem::create_directories(o.work_dir + "/trace", ec);
  if (ec) return make_error(o.work_dir + ": cannot create (" + ec.message() + ")");
  const std::string records_path = o.work_dir + "/cupti.jsonl";
  std::filesystem::remove(records_path, ec);
  std::vector<std::string> argv = {o.python, o.driver, log->path(), "--mode", o.mode};
  // The unit the engine would run by default, so that both backends' defaults are one graph.
  std::string unit = o.unit;
  const trace::CompileUnit* chosen = unit.empty() ? default_run_unit(*log) : nullptr;
  if (chosen) unit = chosen->id.without_attempt().str();
  if (!unit.empty()) {
    argv.push_back("--unit");
    argv.push_back(unit);
    auto files = write_runnable(*log, unit, o.work_dir);
    if (!files) return files.error();
    if (!files->runnable.empty()) {
      argv.push_back("--runnable");
      argv.push_back(files->runnable);
    }
    if (!files->graph.empty()) {
      argv.push_back("--graph");
      argv.push_back(files->graph);
    }
  }
  if (o.allow_tf32) argv.push_back("--allow-tf32");
  for (const auto& module : o.imports) {
    argv.push_back("--import");
    argv.push_back(module);
  }
  // NVTX reaches CUPTI through our library, so one libcupti serves both (see fxscope_cupti.cpp).
  const std::vector<std::string> env = {
      "CUDA_INJECTION64_PATH=" + o.cupti_lib, "NVTX_INJECTION64_PATH=" + o.cupti_lib,
      "FXSCOPE_CUPTI_OUT=" + records_path, "TORCH_TRACE=" + o.work_dir + "/trace",
      "PYTHONUNBUFFERED=1"};
  auto child = spawn(argv, env, o.work_dir, o.progress);
  if (!child) return child.error();
  if (!WIFEXITED(child->status) || WEXITSTATUS(child->status) != 0) {
    const std::string why = last_message(child->err);
    if (WIFEXITED(child->status) && WEXITSTATUS(child->status) == 127) {
      return make_error(o.python + ": cannot start Python; install it or pass --python PATH");
    }
    if (!why.empty()) return make_error(why);
    return make_error(o.remove_work_dir
                          ? "the PyTorch driver failed without a message"
                          : "the PyTorch driver failed (see " + o.work_dir + "/driver.err)");
  }
  // Said once the run is done, so that a refusal stays one line.
  if (chosen && o.progress) o.progress(default_unit_line(*chosen));
  auto records = read_cupti_file(records_path);
  if (!records) {
    return make_error(records.error().message + " (was " + o.cupti_lib + " loaded?)");
  }
  const std::string ran = unit_ran(child->out, unit);
  return assemble_run(child->out, *records, kernel_index(*log, ran, o.work_dir + "/trace"));
}

Result<report::RunResult> attribute_work_dir(const std::string& log_path,
                                             const std::string& work_dir, const std::string& unit) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (!fs::is_directory(work_dir, ec)) {
    return make_error(work_dir +
                      ": not a work dir (expected the folder `run --work-dir` saved: driver.out, "
                      "cupti.jsonl, trace/)");
  }
  const std::string out_path = work_dir + "/driver.out";
  if (!fs::is_regular_file(out_path, ec)) {
    return make_error(out_path + ": missing (the PyTorch driver's result)");
  }
  const std::string driver_out = read_all(out_path);
  if (last_message(driver_out).empty()) {
    const std::string why = last_message(read_all(work_dir + "/driver.err"));
    return make_error(out_path + ": empty, the PyTorch driver printed no result" +
                      (why.empty() ? std::string() : " (driver.err: " + why + ")"));
  }
  const std::string records_path = work_dir + "/cupti.jsonl";
  if (!fs::is_regular_file(records_path, ec)) {
    return make_error(records_path + ": missing (the CUPTI records of the run)");
  }
  const std::string trace_dir = work_dir + "/trace";
  if (!fs::is_directory(trace_dir, ec)) {
    return make_error(trace_dir + ": missing (the PyTorch driver's TORCH_TRACE folder)");
  }
  const std::string ran = unit_ran(driver_out, unit);
  if (!unit.empty() && ran != unit) {
    return make_error(out_path + ": the run is of unit " + ran + ", not " + unit);
  }
  auto log = trace::read_trace(log_path);
  if (!log) return log.error();
  auto records = read_cupti_file(records_path);
  if (!records) return records.error();
  auto run = assemble_run(driver_out, *records, kernel_index(*log, ran, trace_dir));
  if (!run) return make_error(out_path + ": " + run.error().message);
  return run;
}

}  // namespace fxscope::gpu
