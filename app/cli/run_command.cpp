// `fxscope-cli run PATH [--backend engine|pytorch] [--unit ID] --mode MODE|all [--repeat N]
// [--ab A,B] [--json] [--chrome-trace FILE]`: one compile unit re-run on the GPU per mode, every
// kernel timed with CUPTI and mapped to groups and nodes. The engine backend (the default) runs
// fxscope's own runtime; the pytorch backend runs the unit under real PyTorch with fxscope's
// CUPTI injection library. Options only the pytorch backend takes (--python, --work-dir,
// --keep-work-dir, --from-work-dir) select it when --backend is not given; --from-work-dir DIR
// attributes a run saved with --work-dir again, with no GPU and no Python.

#include <cstdio>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <functional>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "commands.h"
#include "rank_option.h"

#if FXSCOPE_HAS_CUDA
#include <filesystem>

#include "fxscope/export/chrome_trace.h"
#include "fxscope/gpu/engine_run.h"
#include "fxscope/gpu/isolated_run.h"
#include "fxscope/gpu/torch_run.h"
#include "fxscope/report/run_result.h"
#include "fxscope/report/run_result_comparison.h"
#endif

namespace fxscope::cli {
namespace {

struct RunArgs {
  std::string path;
  std::string backend;
  std::string python = "python3";
  std::string unit;
  std::string mode = "all";
  std::string chrome_trace;
  std::string work_dir;
  std::string from_work_dir;
  std::string ab;
  // Hidden: run the one mode of --mode in this process and write its result here (what the
  // parent's child process for that mode does; the parent never opens the device).
  std::string mode_result;
  bool same_process = false;  // hidden: every mode in this process (no fault isolation)
  int repeat = 20;
  std::uint64_t seed = 0;
  bool keep_work_dir = false;
  bool allow_tf32 = false;
  std::vector<std::string> imports;  // pytorch: modules that register the graph's custom ops
  bool json = false;
  // --python, --work-dir, --keep-work-dir, --from-work-dir, --allow-tf32 or --import
  bool pytorch_options = false;
};

bool known_mode(const std::string& mode) {
  return mode == "all" || mode == "eager" || mode == "default" || mode == "reduce-overhead" ||
         mode == "max-autotune";
}

// "eager,default,reduce-overhead": a list of modes, which both backends run in order (so a
// slow mode such as max-autotune can run in a job of its own).
bool known_mode_list(const std::string& text) {
  std::size_t begin = 0;
  while (true) {
    const std::size_t comma = text.find(',', begin);
    const std::string mode = text.substr(begin, comma - begin);
    if (mode == "all" || !known_mode(mode)) return false;
    if (comma == std::string::npos) return true;
    begin = comma + 1;
  }
}

// "default,reduce-overhead" -> the two modes; empty when the text is not two known modes.
std::pair<std::string, std::string> ab_modes(const std::string& text) {
  const auto comma = text.find(',');
  if (comma == std::string::npos) return {};
  std::string a = text.substr(0, comma);
  std::string b = text.substr(comma + 1);
  if (!known_mode(a) || !known_mode(b) || a == "all" || b == "all") return {};
  return {a, b};
}

#if FXSCOPE_HAS_CUDA
bool write_file(const std::string& path, const std::string& text) {
  std::ofstream out(path);
  if (!out) return false;
  out << text << "\n";
  return static_cast<bool>(out);
}

std::string joined(const std::vector<std::string>& items) {
  std::string out;
  for (const auto& s : items) out += (out.empty() ? "" : ",") + s;
  return out;
}

// Totals of the two modes, then per kernel of B the time A spent on the same nodes (the A/B
// view's table): where B gains or loses against A.
void print_ab(const report::RunResult& run, const std::string& a_name, const std::string& b_name) {
  const auto* a = run.find_mode(a_name);
  const auto* b = run.find_mode(b_name);
  if (!a || !b) {
    std::printf("\nA/B %s vs %s: %s did not run\n", a_name.c_str(), b_name.c_str(),
                a ? b_name.c_str() : a_name.c_str());
    return;
  }
  const auto ratio = [](double x, double y) { return x > 0 ? y / x : 0.0; };
  std::printf("\nA/B  A = %s, B = %s\n", a_name.c_str(), b_name.c_str());
  std::printf("  %-22s %12s %12s %8s\n", "", "A", "B", "B/A");
  std::printf("  %-22s %12.1f %12.1f %8.2f\n", "total us (median)", a->total_us, b->total_us,
              ratio(a->total_us, b->total_us));
  std::printf("  %-22s %12.1f %12.1f %8.2f\n", "kernel us", a->kernel_us, b->kernel_us,
              ratio(a->kernel_us, b->kernel_us));
  std::printf("  %-22s %12.1f %12.1f %8.2f\n", "launches", a->launches, b->launches,
              ratio(a->launches, b->launches));
  const report::ModeComparison ab = report::compare_modes(report::side_of(*a), report::side_of(*b));
  std::printf("  kernel us per kernel of B, A's on the same nodes:\n");
  for (const report::KernelDelta& row : ab.rows) {
    std::printf("    %-40.40s %10.2f %10.2f\n", row.name.c_str(), row.a_us, row.b_us);
  }
  if (ab.a_unmatched_us > 0 || ab.b_unmatched_us > 0) {
    std::printf("    %-40.40s %10.2f %10.2f\n", "(kernels on no node)", ab.a_unmatched_us,
                ab.b_unmatched_us);
  }
}

void print_text(const report::RunResult& run) {
  std::printf("%s  unit %s  torch %s  backend pytorch\n", run.device.c_str(), run.unit.c_str(),
              run.torch_version.c_str());
  std::printf("%-16s %10s %10s %9s %11s %8s\n", "mode", "total_us", "kernel_us", "launches",
              "in_graphs", "attrib");
  for (const auto& m : run.modes) {
    std::printf("%-16s %10.1f %10.1f %9.1f %11.1f %7.1f%%\n", m.mode.c_str(), m.total_us,
                m.kernel_us, m.launches, m.cuda_graph_launches, 100.0 * m.attributed_share());
    for (const auto& k : m.kernels) {
      const std::string nodes = joined(k.nodes);
      std::printf("    %9.2f us  %-40.40s  %s\n", k.us, k.name.c_str(),
                  nodes.empty() ? "(unattributed)" : nodes.c_str());
    }
  }
}

// One line per mode (with its top kernels, picks and gaps) of MODES, speedups against eager's.
void print_modes(const std::vector<gpu::EngineMode>& modes) {
  double eager_us = 0;
  for (const auto& m : modes) {
    if (m.measured.mode == "eager" && m.ran) eager_us = m.measured.total_us;
  }
  for (const auto& m : modes) {
    const auto& t = m.measured;
    if (!m.ran) {
      std::printf("%-16s did not run: %s\n", t.mode.c_str(), m.error.c_str());
      continue;
    }
    char err[32] = "-";
    if (m.max_rel_err)
      std::snprintf(err, sizeof err, "%.2e%s", *m.max_rel_err, m.flagged ? "!" : "");
    std::printf("%-16s %10.1f %9.1f %9.1f %10.1f %9.1f %8.1f %7.2fx %12s %9.1f\n", t.mode.c_str(),
                t.total_us, t.total_min_us, t.total_max_us, t.kernel_us, t.launches,
                m.host_launch_us, eager_us > 0 && t.total_us > 0 ? eager_us / t.total_us : 0.0, err,
                static_cast<double>(m.peak_bytes) / 1e6);
    for (std::size_t i = 0; i < t.kernels.size() && i < 5; ++i) {
      const auto& k = t.kernels[i];
      const std::string nodes = joined(k.nodes);
      std::printf("    %9.2f us  %-40.40s  %s\n", k.us, k.name.c_str(),
                  nodes.empty() ? "(unattributed)" : nodes.c_str());
    }
    for (const auto& p : m.picks) std::printf("    picked: %s\n", p.c_str());
    for (const auto& miss : m.coverage.missing) std::printf("    not run: %s\n", miss.c_str());
    if (m.flagged)
      std::printf("    ! outputs differ from eager above tolerance %.0e\n", m.tolerance);
  }
}

void print_text(const gpu::EngineRun& run) {
  std::printf("%s  unit %s  backend engine  CUDA %s  copy %.0f GB/s  cuDNN %s\n",
              run.device.c_str(), run.unit.c_str(), run.cuda_version.c_str(), run.copy_gbps,
              run.cudnn.empty() ? "not found" : "found");
  std::printf("coverage (default graph): %zu of %zu ops\n", run.coverage.ran, run.coverage.ops);
  std::printf("%-16s %10s %9s %9s %10s %9s %8s %8s %12s %9s\n", "mode", "total_us", "min", "max",
              "kernel_us", "launches", "host_us", "speedup", "max_rel_err", "peak_MB");
  print_modes(run.modes);
  if (!run.backward.empty()) {
    std::printf("backward graph (fed the forward's saved tensors):\n");
    print_modes(run.backward);
  }
  for (const auto& n : run.notes) std::printf("note: %s\n", n.c_str());
}

// Writes a finished run of either backend as asked: the Chrome trace, then JSON, or text with
// the A/B table of two of MEASURED (the modes that ran).
template <class Run>
void report_run(const RunArgs& args, const Run& run, const report::RunResult& measured) {
  if (!args.chrome_trace.empty() &&
      !write_file(args.chrome_trace, exporting::chrome_trace_from_run(measured).dump())) {
    fail(args.chrome_trace + ": cannot write the Chrome trace");
    return;
  }
  if (args.json) {
    std::cout << to_json(run).dump(1) << "\n";
    return;
  }
  print_text(run);
  if (!args.ab.empty()) {
    const auto [a, b] = ab_modes(args.ab);
    print_ab(measured, a, b);
  }
}

// Progress lines on stderr, each with the seconds since this process began the run, so that a
// slow stage (planning, NVRTC, timing) shows in a saved .err file.
std::function<void(const std::string&)> stderr_progress() {
  const auto start = std::chrono::steady_clock::now();
  return [start](const std::string& line) {
    const std::chrono::duration<double> at = std::chrono::steady_clock::now() - start;
    std::fprintf(stderr, "fxscope: %s (%.1f s)\n", line.c_str(), at.count());
  };
}

void run_engine_backend(const RunArgs& args) {
  gpu::EngineRunOptions o;
  o.log_path = args.path;
  o.unit = args.unit;
  o.mode = args.mode;
  o.repeats = args.repeat;
  o.seed = args.seed;
  o.progress = stderr_progress();
  if (!args.mode_result.empty()) {
    set_exit_code(gpu::run_mode_child(o, args.mode_result));
    return;
  }
  // Each mode in a process of its own: a CUDA fault in one poisons only its own context.
  std::error_code ec;
  const std::string self = std::filesystem::read_symlink("/proc/self/exe", ec).string();
  const auto child = [&](const std::string& mode, const std::string& unit,
                         const std::string& result_file) {
    return ChildCommand{{self, "run", args.path, "--unit", unit, "--mode", mode, "--repeat",
                         std::to_string(args.repeat), "--seed", std::to_string(args.seed),
                         "--mode-result", result_file},
                        {}};
  };
  auto run =
      args.same_process || self.empty() ? gpu::run_engine(o) : gpu::run_engine_isolated(o, child);
  if (!run) {
    fail(run.error().message);
    return;
  }
  report::RunResult measured = gpu::run_result(*run);
  std::erase_if(measured.modes, [&](const report::RunMode& m) {
    const auto ran =
        std::find_if(run->modes.begin(), run->modes.end(),
                     [&](const gpu::EngineMode& e) { return e.measured.mode == m.mode; });
    return ran == run->modes.end() || !ran->ran;
  });
  report_run(args, *run, measured);
}

// The modes of RUN that --mode asked for, in the run's order; an error names a mode the saved run
// does not have.
Result<std::vector<report::RunMode>> asked_modes(const report::RunResult& run,
                                                 const std::string& asked) {
  if (asked == "all") return run.modes;
  std::vector<report::RunMode> out;
  std::string ran;
  for (const auto& m : run.modes) ran += (ran.empty() ? "" : ", ") + m.mode;
  std::size_t begin = 0;
  while (true) {
    const std::size_t comma = asked.find(',', begin);
    const std::string mode = asked.substr(begin, comma - begin);
    const auto* m = run.find_mode(mode);
    if (!m) return make_error("--mode " + mode + ": the saved run has " + ran);
    out.push_back(*m);
    if (comma == std::string::npos) return out;
    begin = comma + 1;
  }
}

void attribute_saved_run(const RunArgs& args) {
  if (!args.work_dir.empty() || args.keep_work_dir || args.allow_tf32 || !args.imports.empty()) {
    fail(
        "--from-work-dir attributes a saved run: --work-dir, --keep-work-dir, --allow-tf32 and "
        "--import do not apply");
    return;
  }
  auto run = gpu::attribute_work_dir(args.path, args.from_work_dir, args.unit);
  if (!run) {
    fail(run.error().message);
    return;
  }
  auto modes = asked_modes(*run, args.mode);
  if (!modes) {
    fail(args.from_work_dir + ": " + modes.error().message);
    return;
  }
  run->modes = std::move(*modes);
  report_run(args, *run, *run);
}

void run_pytorch_backend(const RunArgs& args) {
  if (!args.from_work_dir.empty()) {
    attribute_saved_run(args);
    return;
  }
  gpu::TorchRunOptions o;
  o.log_path = args.path;
  o.unit = args.unit;
  o.mode = args.mode;
  o.python = args.python;
  o.allow_tf32 = args.allow_tf32;
  o.imports = args.imports;
  o.driver = gpu::default_torch_driver();
  o.cupti_lib = gpu::default_cupti_lib();
  o.work_dir = args.work_dir;
  o.progress = stderr_progress();
  if (o.work_dir.empty()) {
    auto temp = gpu::make_temp_work_dir();
    if (!temp) {
      fail(temp.error().message);
      return;
    }
    o.work_dir = *temp;
    // A temp folder goes when the run is done, unless asked for (then its path is printed).
    o.remove_work_dir = !args.keep_work_dir;
    if (args.keep_work_dir) std::fprintf(stderr, "fxscope-cli: keeping %s\n", o.work_dir.c_str());
  }
  auto run = gpu::run_pytorch(o);
  if (!run) {
    fail(run.error().message);
    return;
  }
  report_run(args, *run, *run);
}
#endif

void run_run(const RunArgs& args) {
  const std::string backend =
      !args.backend.empty() ? args.backend : (args.pytorch_options ? "pytorch" : "engine");
  if (backend != "engine" && backend != "pytorch") {
    fail("--backend " + backend + ": expected engine or pytorch");
    return;
  }
  if (backend == "engine" && !args.from_work_dir.empty()) {
    fail("--from-work-dir: only the pytorch backend saves work dirs");
    return;
  }
  if (backend == "engine" && args.allow_tf32) {
    fail(
        "--allow-tf32: the engine runs convolutions and GEMMs in full FP32; the option is the "
        "pytorch backend's");
    return;
  }
  if (backend == "engine" && !args.imports.empty()) {
    fail(
        "--import: the engine runs the graph's ops itself; a custom op's Python code runs only "
        "under the pytorch backend");
    return;
  }
  if (!known_mode(args.mode) && !known_mode_list(args.mode)) {
    fail("--mode " + args.mode + ": expected eager, default, reduce-overhead, max-autotune or all");
    return;
  }
  if (args.repeat < 1) {
    fail("--repeat " + std::to_string(args.repeat) + ": expected 1 or more");
    return;
  }
  if (!args.ab.empty() && ab_modes(args.ab).first.empty()) {
    fail("--ab " + args.ab + ": expected two modes, e.g. default,reduce-overhead");
    return;
  }
#if FXSCOPE_HAS_CUDA
  if (backend == "engine") {
    run_engine_backend(args);
  } else {
    run_pytorch_backend(args);
  }
#else
  fail("this fxscope-cli was built without CUDA (FXSCOPE_WITH_CUDA=OFF): no GPU backend");
#endif
}

}  // namespace

void add_run_command(CLI::App& app) {
  auto args = std::make_shared<RunArgs>();
  auto* cmd = app.add_subcommand(
      "run",
      "re-run a compile unit on the GPU per mode, per kernel (fxscope's runtime or PyTorch)");
  cmd->add_option("PATH", args->path, "a TORCH_TRACE log file or the directory holding it")
      ->required();
  cmd->add_option("--backend", args->backend,
                  "engine (fxscope's runtime, the default) or pytorch (real PyTorch)");
  auto* python = cmd->add_option("--python", args->python, "pytorch: the Python that has PyTorch")
                     ->capture_default_str();
  cmd->add_option("--unit", args->unit, "one compile unit, e.g. 0/0 (default: the first)");
  cmd->add_option("--mode", args->mode, "eager, default, reduce-overhead, max-autotune or all")
      ->capture_default_str();
  cmd->add_option("--repeat", args->repeat, "engine: timed calls per mode (after 5 warm-ups)")
      ->capture_default_str();
  cmd->add_option("--seed", args->seed, "engine: seed of the random inputs")->capture_default_str();
  cmd->add_option("--ab", args->ab, "compare two modes, e.g. default,reduce-overhead");
  cmd->add_option("--chrome-trace", args->chrome_trace, "also write the kernels as a Chrome trace");
  auto* work_dir =
      cmd->add_option("--work-dir", args->work_dir,
                      "pytorch: keep the driver's output, CUPTI records and TORCH_TRACE here");
  auto* keep =
      cmd->add_flag("--keep-work-dir", args->keep_work_dir,
                    "pytorch: keep the temp folder of the run (its path is printed on stderr)");
  auto* from_work_dir = cmd->add_option(
      "--from-work-dir", args->from_work_dir,
      "pytorch: attribute a run saved with --work-dir again (no GPU, no Python needed)");
  auto* tf32 = cmd->add_flag(
      "--allow-tf32", args->allow_tf32,
      "pytorch: let convolutions and matmuls use TF32 (default: full FP32, as the engine runs)");
  auto* imports = cmd->add_option(
      "--import", args->imports,
      "pytorch: import this Python module first (repeatable): the one that registers the "
      "custom ops the graph calls");
  cmd->add_flag("--json", args->json, "print one JSON object instead of text");
  cmd->add_option("--mode-result", args->mode_result)->group("");
  cmd->add_flag("--same-process", args->same_process)->group("");
  add_rank_option(cmd, args->path, [args, python, work_dir, keep, from_work_dir, tf32, imports] {
    args->pytorch_options = python->count() > 0 || work_dir->count() > 0 || keep->count() > 0 ||
                            from_work_dir->count() > 0 || tf32->count() > 0 || imports->count() > 0;
    run_run(*args);
  });
}

}  // namespace fxscope::cli
