#include "fxscope/report/compile_time_text.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace fxscope::report {
namespace {

// Rows below this share of their compile are folded into one line: a max-autotune compile
// times a hundred phases, most of them a few milliseconds.
constexpr double kShownShare = 0.005;
constexpr std::size_t kTopPhases = 15;
constexpr std::size_t kTopKernels = 5;

std::string format(const char* fmt, auto... args) {
  char buf[512];
  std::snprintf(buf, sizeof buf, fmt, args...);
  return buf;
}

std::string named(const std::string& name, const std::string& what) {
  return what.empty() ? name : name + "  (" + what + ")";
}

std::string check_line(const PhaseTree& tree) {
  std::string s = format("%.3f s by the events", tree.events_s);
  const auto deviation = tree.deviation();
  if (!deviation) return s + ", no total from Dynamo to check against";
  s += format(", Dynamo says %.3f s (%+.2f%%, ", *tree.dynamo_s, *deviation * 100);
  s += std::abs(*deviation) <= kCompileTimeTolerance ? "within " : "NOT within ";
  return s + format("%.0f%%)", kCompileTimeTolerance * 100);
}

void tree_text(std::string& out, const std::string& id, const char* direction,
               const PhaseTree& tree) {
  out += "[" + id + "] " + direction + ": " + check_line(tree) + "\n";
  out += "      total s     own s  phase\n";
  const double shown_from = tree.events_s * kShownShare;
  std::size_t hidden = 0;
  double hidden_s = 0;
  int hidden_depth = -1;  // rows under a hidden row are hidden with it
  for (std::size_t i = 0; i < tree.phases.size(); ++i) {
    const auto& p = tree.phases[i];
    if (hidden_depth >= 0 && p.depth > hidden_depth) {
      ++hidden;
      hidden_s += p.self_s;
      continue;
    }
    hidden_depth = -1;
    if (i > 0 && p.total_s < shown_from) {
      hidden_depth = p.depth;
      ++hidden;
      hidden_s += p.self_s;
      continue;
    }
    const std::string own = i == 0 ? std::string(9, ' ') : format("%9.3f", p.self_s);
    const std::string count = p.count > 1 ? format(" x%d", p.count) : std::string();
    out += format("    %9.3f %s  ", p.total_s, own.c_str()) +
           std::string(2 * static_cast<std::size_t>(p.depth), ' ') + named(p.name, p.what) + count +
           "\n";
  }
  if (hidden > 0) {
    out += format("              %9.3f  ", hidden_s) +
           format("%zu smaller phases (each under %.1f%%; --json lists them)\n", hidden,
                  kShownShare * 100);
  }
  out += format("              %9.3f  other: inside %s, in no timed phase\n", tree.other_s,
                tree.root.c_str());
}

std::string caches_line(const UnitCompileTime& u) {
  std::string s;
  for (const auto& c : u.caches) {
    s += s.empty() ? "" : "; ";
    s += c.cache == "fx_graph" ? "FX graph cache" : "AOTAutograd cache";
    if (c.backward) s += " (backward)";
    s += " " + c.state;
    if (!c.reason.empty()) s += " (" + c.reason + ")";
    if (!c.key.empty()) s += " key " + c.key;
  }
  const bool aot = std::any_of(u.caches.begin(), u.caches.end(),
                               [](const CacheLookup& c) { return c.cache == "aot_autograd"; });
  if (!u.caches.empty() && !aot) s += "; AOTAutograd cache not logged";
  return s;
}

// PyTorch's verdict on CUDA graphs beside fxscope's prediction, and whether they agree.
std::string cuda_graphs_line(const UnitCompileTime& u) {
  if (!u.cuda_graph_prediction && !u.cudagraph_skip_reason) return {};
  std::string line;
  if (u.cudagraph_skip_reason) {
    line = "PyTorch skipped them: " + *u.cudagraph_skip_reason;
  } else if (u.cuda_graphs_recorded == std::size_t{0}) {
    line =
        "PyTorch recorded none at the unit's calls (a skip decided at a call, such as for a "
        "mutated input, leaves no reason in the trace; a unit called once only warms up)";
  } else if (u.cuda_graphs_recorded) {
    line = "PyTorch recorded " + std::to_string(*u.cuda_graphs_recorded) +
           (*u.cuda_graphs_recorded == 1 ? " CUDA graph" : " CUDA graphs");
  } else {
    line = "PyTorch logged no skip";
  }
  if (!u.cuda_graph_prediction) return line;
  const auto& p = *u.cuda_graph_prediction;
  line += "; fxscope predicts ";
  line += p.usable ? "usable" : "skipped";
  std::string sep = ": ";
  for (const auto& reason : p.reasons) {
    line += sep + reason;
    sep = ", ";
  }
  return line + (u.cuda_graph_prediction_agrees().value_or(true) ? " (agrees)" : " (DIFFERS)");
}

void unit_text(std::string& out, const UnitCompileTime& u) {
  if (u.forward) tree_text(out, u.compile_id, "forward", *u.forward);
  if (u.backward) tree_text(out, u.compile_id, "backward", *u.backward);
  if (!u.forward && !u.backward) out += "[" + u.compile_id + "] no timed compile in the log\n";
  if (const std::string caches = caches_line(u); !caches.empty()) {
    out += "  caches: " + caches + "\n";
  }
  std::string facts;
  if (u.guard_count) facts += format("guards %lld", static_cast<long long>(*u.guard_count));
  if (u.guard_latency_us) {
    facts += format(", guard check %lld us", static_cast<long long>(*u.guard_latency_us));
  }
  if (u.autotune_us) {
    facts += format(", autotune at compile %.3f s", static_cast<double>(*u.autotune_us) / 1e6);
  }
  if (u.failure) facts += ", failed: " + *u.failure;
  if (u.unmatched_events > 0) facts += format(", %zu unmatched events", u.unmatched_events);
  if (!facts.empty()) out += "  " + (facts.front() == ',' ? facts.substr(2) : facts) + "\n";
  if (const std::string graphs = cuda_graphs_line(u); !graphs.empty()) {
    out += "  CUDA graphs: " + graphs + "\n";
  }
  if (!u.triton_compiles.empty()) {
    auto kernels = u.triton_compiles;
    std::stable_sort(kernels.begin(), kernels.end(),
                     [](const auto& a, const auto& b) { return a.us > b.us; });
    out += format("  Triton compiles (%zu kernels, in parallel workers, so not additive):",
                  kernels.size());
    for (std::size_t i = 0; i < std::min(kTopKernels, kernels.size()); ++i) {
      out += format(" %s %.3f s%s", kernels[i].kernel.c_str(),
                    static_cast<double>(kernels[i].us) / 1e6,
                    i + 1 < std::min(kTopKernels, kernels.size()) ? "," : "");
    }
    out += kernels.size() > kTopKernels ? ", ...\n" : "\n";
  }
  if (!u.runtime.empty()) {
    double runtime_s = 0;
    for (const auto& r : u.runtime) runtime_s += r.seconds;
    out += format("  at the first call, not compile time: %zu spans, %.3f s (", u.runtime.size(),
                  runtime_s);
    const auto& longest = *std::max_element(
        u.runtime.begin(), u.runtime.end(),
        [](const RuntimeSpan& a, const RuntimeSpan& b) { return a.seconds < b.seconds; });
    out += "longest " + longest.name + (longest.kernel.empty() ? "" : " " + longest.kernel) +
           format(" %.3f s)\n", longest.seconds);
  }
}

}  // namespace

std::string to_text(const UnitCompileTime& unit) {
  std::string out;
  unit_text(out, unit);
  return out;
}

std::string to_text(const CompileTimeReport& report) {
  std::string out = run_text(report);
  for (const auto& u : report.units) unit_text(out, u);
  return out;
}

std::string run_text(const CompileTimeReport& report) {
  std::string out = "compile time of " + report.path + "\n";
  out += format(
      "%zu compile units, %.3f s compiling (frames and backward compiles, from the "
      "events)\n\n",
      report.units.size(), report.total_s);
  if (!report.by_phase.empty()) {
    out += "where it went, all units (each phase's own time, largest first):\n";
    out += "          s  share  count  phase\n";
    double rest_s = 0;
    for (std::size_t i = 0; i < report.by_phase.size(); ++i) {
      const auto& p = report.by_phase[i];
      if (i >= kTopPhases) {
        rest_s += p.self_s;
        continue;
      }
      const bool root = p.name == "entire_frame_compile" || p.name == "entire_backward_compile";
      const std::string name =
          root ? "other: inside " + p.name + ", in no timed phase" : named(p.name, p.what);
      out += format("  %9.3f %5.1f%% %6d  ", p.self_s,
                    report.total_s > 0 ? 100 * p.self_s / report.total_s : 0.0, p.count) +
             name + "\n";
    }
    if (report.by_phase.size() > kTopPhases) {
      out +=
          format("  %9.3f         %4zu more phases\n", rest_s, report.by_phase.size() - kTopPhases);
    }
    out += "\n";
  }
  return out;
}

}  // namespace fxscope::report
