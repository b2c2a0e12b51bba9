// Prints how faithfully the planner reproduces Inductor on real logs, each planned in the mode it
// was captured in: per log and unit Inductor's launches and generated kernels, fxscope's
// launches and their drift, the kernels formed exactly, and the misses grouped by pattern; then
// the exact rate per log, the aggregate and the commonest miss patterns.
//   bench_fidelity [--baseline] [--misses] [PATH...]
// PATH is a log, a folder holding one, or a folder of such folders (default: every folder of
// sample_graphs/ and of sample_graphs/corpus/). --baseline prints the recorded form the corpus
// ratchet test reads instead (tests/data/fidelity_baseline.json). --misses also prints, under each
// log, every missed kernel's nodes beside those of the planned group closest to it: the nodes
// only Inductor's kernel holds (-) and those only the plan's group holds (+).
#include <algorithm>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "fxscope/report/fidelity.h"
#include "fxscope/trace/trace_log.h"

namespace {

namespace fs = std::filesystem;
using fxscope::report::CorpusLog;
using fxscope::report::LogFidelity;

std::vector<CorpusLog> logs_of(const std::vector<std::string>& paths) {
  if (paths.empty()) return fxscope::report::find_corpus_logs(FXSCOPE_SAMPLES_DIR);
  std::vector<CorpusLog> logs;
  for (const std::string& p : paths) {
    auto found = fxscope::report::find_corpus_logs(p);
    const bool folder_of_logs = fs::is_directory(p) && !found.empty();
    if (!folder_of_logs) {
      logs.push_back({fs::path(p).filename().string(), p});
      continue;
    }
    logs.insert(logs.end(), found.begin(), found.end());
  }
  return logs;
}

double percent(std::size_t part, std::size_t whole) {
  return whole == 0 ? 100.0 : 100.0 * static_cast<double>(part) / static_cast<double>(whole);
}

std::vector<std::pair<std::string, std::size_t>> by_count(
    const std::map<std::string, std::size_t>& misses) {
  std::vector<std::pair<std::string, std::size_t>> sorted(misses.begin(), misses.end());
  std::stable_sort(sorted.begin(), sorted.end(),
                   [](const auto& a, const auto& b) { return a.second > b.second; });
  return sorted;
}

// NAMES of A that B lacks, space-separated.
std::string missing_from(const std::vector<std::string>& a, const std::vector<std::string>& b) {
  std::string out;
  for (const std::string& n : a) {
    if (std::find(b.begin(), b.end(), n) == b.end()) out += " " + n;
  }
  return out;
}

void print_missed(const LogFidelity& log) {
  for (const auto& u : log.units) {
    for (const auto& m : u.missed) {
      std::printf("    miss %s %s  (%s)\n", u.compile_id.c_str(), m.inductor_kernel.c_str(),
                  m.pattern.c_str());
      std::string nodes;
      for (const std::string& n : m.inductor_nodes) nodes += " " + n;
      std::printf("      inductor:%s\n", nodes.c_str());
      if (m.closest_group.empty()) continue;
      std::printf("      closest %s\n", m.closest_group.c_str());
      const std::string only_theirs = missing_from(m.inductor_nodes, m.closest_nodes);
      const std::string only_ours = missing_from(m.closest_nodes, m.inductor_nodes);
      if (!only_theirs.empty()) std::printf("        -%s\n", only_theirs.c_str());
      if (!only_ours.empty()) std::printf("        +%s\n", only_ours.c_str());
    }
  }
}

void print_log(const LogFidelity& log) {
  std::printf("\n%s  (%s)\n", log.name.c_str(), log.path.c_str());
  std::printf("  %-10s %-16s %9s %8s %7s %8s %6s\n", "unit", "mode", "inductor", "fxscope", "drift",
              "kernels", "exact");
  for (const auto& u : log.units) {
    const std::string mode =
        std::string(fxscope::fusion::to_string(u.mode)) + (u.mode_from_log ? "" : "?");
    std::printf(
        "  %-10s %-16s %9zu %8zu %+6.1f%% %8zu %6zu%s\n", u.compile_id.c_str(), mode.c_str(),
        u.inductor_launches, u.our_launches, 100.0 * u.launch_drift(), u.kernels, u.exact,
        std::abs(u.launch_drift()) > fxscope::report::kLaunchTolerance ? "  drift > 5%" : "");
  }
  std::printf("  exact %zu/%zu (%.1f%%), of the same kind %zu\n", log.exact(), log.kernels(),
              percent(log.exact(), log.kernels()), log.same_kind());
  for (const auto& [pattern, count] : by_count(log.misses())) {
    std::printf("    %4zu  %s\n", count, pattern.c_str());
  }
}

}  // namespace

int main(int argc, char** argv) {
  bool baseline = false;
  bool missed = false;
  std::vector<std::string> paths;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--baseline") {
      baseline = true;
    } else if (arg == "--misses") {
      missed = true;
    } else {
      paths.push_back(arg);
    }
  }
  std::vector<LogFidelity> measured;
  for (const CorpusLog& entry : logs_of(paths)) {
    auto log = fxscope::trace::read_trace(entry.path);
    if (!log) {
      std::fprintf(stderr, "bench_fidelity: %s\n", log.error().message.c_str());
      return 1;
    }
    measured.push_back(fxscope::report::measure_fidelity(*log, entry.name));
    if (baseline) continue;
    print_log(measured.back());
    if (missed) print_missed(measured.back());
  }
  if (baseline) {
    std::printf("%s\n", fxscope::report::baseline_json(measured).dump(1).c_str());
    return 0;
  }
  std::printf("\n%-40s %12s %8s %16s %10s\n", "log", "exact", "rate", "worst drift", "same kind");
  std::size_t exact = 0, kernels = 0, same_kind = 0;
  std::map<std::string, std::size_t> misses;
  for (const LogFidelity& log : measured) {
    double worst = 0;
    for (const auto& u : log.units) {
      if (std::abs(u.launch_drift()) > std::abs(worst)) worst = u.launch_drift();
    }
    std::printf("%-40s %6zu/%-5zu %7.1f%% %+15.1f%% %10zu\n", log.name.c_str(), log.exact(),
                log.kernels(), percent(log.exact(), log.kernels()), 100.0 * worst, log.same_kind());
    exact += log.exact();
    same_kind += log.same_kind();
    kernels += log.kernels();
    for (const auto& [pattern, count] : log.misses()) misses[pattern] += count;
  }
  std::printf("aggregate: %zu/%zu kernels exact (%.1f%%; issue 22 asks for 95%%)\n", exact, kernels,
              percent(exact, kernels));
  std::printf(
      "of the same kind as Inductor's (persistent or looped reduction, pointwise): %zu/%zu\n",
      same_kind, exact);
  std::printf("commonest miss patterns:\n");
  const auto sorted = by_count(misses);
  for (std::size_t i = 0; i < sorted.size() && i < 20; ++i) {
    std::printf("  %5zu  %s\n", sorted[i].second, sorted[i].first.c_str());
  }
  return 0;
}
