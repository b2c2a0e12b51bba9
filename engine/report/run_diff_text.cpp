#include "fxscope/report/run_diff_text.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>

namespace fxscope::report {
namespace {

// Phases whose own time changed less than this are noise between two runs of one compile.
constexpr double kShownPhaseDelta_s = 0.05;
constexpr std::size_t kTopPhases = 5;

std::string format(const char* fmt, auto... args) {
  char buf[512];
  std::snprintf(buf, sizeof buf, fmt, args...);
  return buf;
}

std::string plural(std::size_t n, const std::string& one, const std::string& many) {
  return std::to_string(n) + " " + (n == 1 ? one : many);
}

std::string short_frame_text(const trace::StackFrame& frame) {
  const auto slash = frame.file.find_last_of('/');
  const std::string file = slash == std::string::npos ? frame.file : frame.file.substr(slash + 1);
  return frame.function + "  " + file + ":" + std::to_string(frame.line);
}

std::string list(const std::vector<std::string>& items, const char* sep) {
  std::string s;
  for (const auto& i : items) s += (s.empty() ? "" : sep) + i;
  return s;
}

// "at X" for one change, nothing for several (the sections below name them).
template <typename Change, typename Where>
std::string counted(const std::vector<Change>& changes, const std::string& what, Where where) {
  std::string s = plural(changes.size(), what, what + "s");
  if (changes.size() == 1) s += " at " + where(changes.front());
  return s;
}

void unit_lines(std::string& out, const DiffUnit& u) {
  out += format("  [%s] ", u.compile_id.c_str()) + short_frame_text(u.frame) +
         format("  (%zu ATen ops, %zu kernels, %.2f s)\n", u.aten_ops, u.launches, u.compile_s);
}

// Each unit's line, then its breaks under it: a break is read in the code that broke.
void break_lines(std::string& out, const std::vector<UnitBreaks>& units) {
  for (const auto& u : units) {
    if (u.compile_id.empty()) {
      out += "  (no compile id)\n";
    } else if (u.frame.file.empty()) {
      out += "  [" + u.compile_id + "]\n";
    } else {
      out += "  [" + u.compile_id + "] " + short_frame_text(u.frame) + "\n";
    }
    for (const auto& c : u.breaks) out += "      " + c.location + "  " + c.reason + "\n";
  }
}

void matched_lines(std::string& out, const UnitDiff& d) {
  out += "  [" + d.a.compile_id + "] -> [" + d.b.compile_id + "] " + short_frame_text(d.b.frame);
  out += d.same_graph() ? "  same graph" : "  graph changed";
  out += format(", kernels %zu -> %zu, compile %.2f -> %.2f s\n", d.a.launches, d.b.launches,
                d.a.compile_s, d.b.compile_s);
  for (const auto& op : d.ops) out += format("      %-40s %d -> %d\n", op.op.c_str(), op.a, op.b);
  for (const auto& k : d.kernels) {
    std::string line = "      " + std::string(to_string(k.kind)) + ": ";
    if (k.kind == KernelChangeKind::refused) {
      line += list(k.a, " + ") + " -> " + list(k.b, " + ");
    } else {
      line += list(k.kind == KernelChangeKind::added ? k.b : k.a, ", ");
    }
    if (!k.ops.empty()) line += "  [" + list(k.ops, ", ") + "]";
    out += line + "\n";
  }
}

std::string state_text(const std::string& state) {
  return state.empty() ? "none" : state;
}

// Shown component changes per lookup; the JSON has them all.
constexpr std::size_t kShownComponents = 8;

void cache_lines(std::string& out, const UnitDiff& d) {
  out += "  [" + d.a.compile_id + "] -> [" + d.b.compile_id + "] " + short_frame_text(d.b.frame) +
         "\n";
  for (const auto& c : d.caches) {
    out += "      " + c.cache + " cache: " + state_text(c.a_state) + " -> " +
           state_text(c.b_state) + (c.same_key ? " (same key)" : "");
    if (!c.components.empty()) out += ", the key differs in:";
    out += "\n";
    for (std::size_t i = 0; i < c.components.size() && i < kShownComponents; ++i) {
      const auto& k = c.components[i];
      out += "          " + k.name + ": " + (k.a.empty() ? "(absent)" : k.a) + " -> " +
             (k.b.empty() ? "(absent)" : k.b) + "\n";
    }
    if (c.components.size() > kShownComponents) {
      out += format("          ... %zu more (--json lists them)\n",
                    c.components.size() - kShownComponents);
    }
  }
}

// "2 FX graph cache lookups miss -> hit" per outcome change, then the key components that
// differ anywhere: what a user reads first about a warm or a changed rerun.
void cache_verdict(const RunDiff& d, std::vector<std::string>& parts) {
  std::map<std::string, std::size_t> outcomes;
  std::vector<std::string> components;
  for (const auto& u : d.matched) {
    for (const auto& c : u.caches) {
      if (c.a_state != c.b_state) {
        ++outcomes[c.cache + " cache " + state_text(c.a_state) + " -> " + state_text(c.b_state)];
      }
      for (const auto& k : c.components) {
        if (std::find(components.begin(), components.end(), k.name) == components.end())
          components.push_back(k.name);
      }
    }
  }
  for (const auto& [what, n] : outcomes) parts.push_back(what + format(" (%zu)", n));
  if (components.empty()) return;
  std::string part = "cache keys differ in ";
  for (std::size_t i = 0; i < components.size() && i < 3; ++i)
    part += (i == 0 ? "" : ", ") + components[i];
  if (components.size() > 3) part += format(" and %zu more", components.size() - 3);
  parts.push_back(part);
}

}  // namespace

std::string verdict(const RunDiff& d) {
  std::vector<std::string> parts;
  if (d.unrelated()) {
    parts.push_back(format("the logs look unrelated: only %zu of %zu compile units pair up",
                           d.matched.size(), std::max(d.a_units, d.b_units)));
  }
  const auto break_at = [](const BreakChange& c) {
    const auto slash = c.location.find_last_of('/');
    return slash == std::string::npos ? c.location : c.location.substr(slash + 1);
  };
  const auto recompile_at = [](const RecompileChange& c) { return c.frame; };
  if (!d.breaks_fixed.empty())
    parts.push_back(plural(d.breaks_fixed.size(), "break", "breaks") + " fixed");
  if (!d.breaks_new.empty()) parts.push_back(counted(d.breaks_new, "new break", break_at));
  if (!d.recompiles_fixed.empty()) {
    parts.push_back(plural(d.recompiles_fixed.size(), "recompile", "recompiles") + " fixed");
  }
  if (!d.recompiles_new.empty())
    parts.push_back(counted(d.recompiles_new, "new recompile", recompile_at));
  if (!d.only_a.empty()) parts.push_back(plural(d.only_a.size(), "unit", "units") + " only in A");
  if (!d.only_b.empty()) parts.push_back(plural(d.only_b.size(), "unit", "units") + " only in B");
  const auto changed_graphs = static_cast<std::size_t>(std::count_if(
      d.matched.begin(), d.matched.end(), [](const UnitDiff& u) { return !u.same_graph(); }));
  if (changed_graphs > 0) parts.push_back(plural(changed_graphs, "graph", "graphs") + " changed");
  const auto refused = static_cast<std::size_t>(
      std::count_if(d.matched.begin(), d.matched.end(), [](const UnitDiff& u) {
        return std::any_of(u.kernels.begin(), u.kernels.end(), [](const KernelChange& k) {
          return k.kind == KernelChangeKind::refused;
        });
      }));
  if (refused > 0) parts.push_back(plural(refused, "unit", "units") + " fused differently");
  if (d.a_launches != d.b_launches) {
    const bool fewer = d.b_launches < d.a_launches;
    const std::size_t n = fewer ? d.a_launches - d.b_launches : d.b_launches - d.a_launches;
    parts.push_back(std::to_string(n) + (fewer ? " fewer" : " more") +
                    (n == 1 ? " kernel" : " kernels"));
  }
  cache_verdict(d, parts);
  if (parts.empty() && d.a_compile_s == d.b_compile_s) return "no difference";
  if (parts.empty()) parts.push_back("same compiles");
  parts.push_back(format("compile time %+.1f s", d.b_compile_s - d.a_compile_s));
  return list(parts, ", ");
}

std::string to_text(const RunDiff& d) {
  std::string out = "fxscope diff\n";
  out += format("  A: %s (%zu units, %zu kernels, compile %.2f s)\n", d.a_path.c_str(), d.a_units,
                d.a_launches, d.a_compile_s);
  out += format("  B: %s (%zu units, %zu kernels, compile %.2f s)\n", d.b_path.c_str(), d.b_units,
                d.b_launches, d.b_compile_s);
  out += verdict(d) + "\n";
  const auto section = [&out](bool show, const std::string& title) {
    if (show) out += "\n" + title + "\n";
    return show;
  };
  if (section(!d.breaks_fixed.empty(), "graph breaks fixed (in A, not in B), by A's unit:")) {
    break_lines(out, breaks_by_unit(d, d.breaks_fixed, true));
  }
  if (section(!d.breaks_new.empty(), "new graph breaks (in B, not in A), by B's unit:")) {
    break_lines(out, breaks_by_unit(d, d.breaks_new, false));
  }
  if (section(!d.recompiles_fixed.empty(), "recompiles fixed (in A, not in B):")) {
    for (const auto& c : d.recompiles_fixed)
      out += "  [" + c.compile_id + "] " + c.frame + ": " + c.guard + "\n";
  }
  if (section(!d.recompiles_new.empty(), "new recompiles (in B, not in A):")) {
    for (const auto& c : d.recompiles_new)
      out += "  [" + c.compile_id + "] " + c.frame + ": " + c.guard + "\n";
  }
  if (section(!d.only_a.empty(), "compile units only in A:")) {
    for (const auto& u : d.only_a) unit_lines(out, u);
  }
  if (section(!d.only_b.empty(), "compile units only in B:")) {
    for (const auto& u : d.only_b) unit_lines(out, u);
  }
  const auto changed = static_cast<std::size_t>(std::count_if(
      d.matched.begin(), d.matched.end(), [](const UnitDiff& u) { return u.changed(); }));
  // Unchanged pairs are listed only where few pair up: then what matches is the news.
  if (changed == 0 && !d.matched.empty() && !d.unrelated()) {
    out += "\n" + plural(d.matched.size(), "paired unit", "paired units") +
           " (A -> B), none changed\n";
  } else if (section(!d.matched.empty(), format("paired units (A -> B), %zu of %zu changed:",
                                                changed, d.matched.size()))) {
    for (const auto& u : d.matched) {
      if (u.changed() || d.unrelated()) matched_lines(out, u);
    }
  }
  const bool caches = std::any_of(d.matched.begin(), d.matched.end(),
                                  [](const UnitDiff& u) { return !u.caches.empty(); });
  if (section(caches, "cache lookups that differ (A -> B), by paired unit:")) {
    for (const auto& u : d.matched) {
      if (!u.caches.empty()) cache_lines(out, u);
    }
  }
  std::vector<const PhaseChange*> phases;
  for (const auto& p : d.phases) {
    if (std::fabs(p.b_s - p.a_s) >= kShownPhaseDelta_s && phases.size() < kTopPhases)
      phases.push_back(&p);
  }
  if (section(!phases.empty(), "compile time, largest changes by phase (own time):")) {
    for (const auto* p : phases) {
      out += format("  %+8.2f s  %8.2f -> %8.2f s  %s\n", p->b_s - p->a_s, p->a_s, p->b_s,
                    p->name.c_str());
    }
  }
  return out;
}

}  // namespace fxscope::report
