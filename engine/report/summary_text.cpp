#include "fxscope/report/summary_text.h"

#include <cstdio>
#include <map>
#include <sstream>

namespace fxscope::report {
namespace {

std::string fixed(double v, int digits) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", digits, v);
  return buf;
}

std::string count(const std::optional<std::size_t>& n) {
  return n ? std::to_string(*n) : "-";
}

std::string plural(std::size_t n, const std::string& word) {
  return std::to_string(n) + " " + word + (n == 1 ? "" : "s");
}

std::string frame_text(const trace::StackFrame& f) {
  if (f.file.empty()) return "(frame not logged)";
  return f.function + "  " + f.location();
}

void unit_line(std::ostringstream& out, const UnitSummary& u) {
  out << "  [" << u.compile_id << "]  dynamo " << count(u.dynamo_ops) << " ops, aten "
      << count(u.aten_ops) << " ops, post-grad " << count(u.post_grad_ops) << " ops, kernels "
      << count(u.inductor_kernels);
  if (u.inductor_kernels) {
    out << " (" << u.triton_launches << " generated, " << u.extern_launches << " extern)";
  }
  if (u.compile_time_s) out << ", compiled in " << fixed(*u.compile_time_s, 2) << " s";
  out << "\n";
  if (!u.failure.empty()) out << "         compile failed: " << u.failure << "\n";
  for (const auto& issue : u.export_issues) out << "         export: " << issue << "\n";
  // A restart reason repeats Dynamo's whole message; its first line says which.
  for (const auto& r : u.restart_reasons) {
    out << "         restarted once: " << r.substr(0, r.find('\n')) << "\n";
  }
}

std::string break_ids_text(const std::vector<std::string>& ids) {
  std::string out;
  for (const auto& id : ids) out += (out.empty() ? "" : ", ") + id;
  return out;
}

// What a break costs a call, term by term (docs/compile-time.md defines each).
void impact_lines(std::ostringstream& out, const BreakImpact& impact) {
  out << "     lost: " << fixed(impact.lost_us(), 1) << " us a call";
  std::string sep = " = ";
  const auto term = [&](double us, const std::string& what) {
    if (us <= 0) return;
    out << sep << what << " " << fixed(us, 1);
    sep = " + ";
  };
  std::string eager = "eager";
  for (const auto& op : impact.eager_ops) eager += (eager == "eager" ? " (" : ", ") + op;
  if (!impact.eager_ops.empty()) eager += ")";
  term(impact.eager_us, eager);
  term(impact.sync_us, "host sync");
  term(impact.crossing_us, "tensors across " + fixed(impact.crossing_bytes / 1e3, 1) + " KB");
  term(impact.launch_us, "launch");
  term(impact.guard_us, "guards");
  if (impact.frame_skipped) out << "; the whole frame runs eagerly, its ops not in the log";
  out << "\n     split: " << break_ids_text(impact.split) << " -> "
      << (impact.resumed.empty() ? std::string("(no compiled resumption)")
                                 : break_ids_text(impact.resumed));
  if (impact.unsized_tensors > 0) {
    out << "  (" << impact.unsized_tensors << " of " << impact.crossing_tensors
        << " tensors across of symbolic size, not counted)";
  }
  out << "\n";
}

void breaks_section(std::ostringstream& out, const Summary& s) {
  out << "\nGraph breaks: " << s.graph_breaks.size() << " distinct, " << s.graph_break_hits()
      << " hits";
  if (!s.break_impacts.empty()) {
    out << "; by predicted time lost a call on " << s.impact_device.name << ", largest first";
  }
  out << "\n";
  std::size_t i = 0;
  for (const auto& impact : s.break_impacts) {
    const auto& b = s.graph_breaks[impact.graph_break];
    out << "  " << ++i << ". " << b.location() << "  " << b.reason;
    if (!b.gb_code.empty()) out << "  [" << b.gb_code << "]";
    out << "  x" << b.count << "\n";
    impact_lines(out, impact);
    if (!b.explanation.empty()) out << "     why:  " << b.explanation << "\n";
    for (const auto& h : b.hints) out << "     hint: " << h << "\n";
    if (!b.user_stack.empty() && !b.user_stack.back().code.empty()) {
      out << "     code: " << b.user_stack.back().code << "\n";
    }
  }
}

void recompiles_section(std::ostringstream& out, const Summary& s) {
  out << "\nRecompiles: " << s.recompiles.size() << "\n";
  for (const auto& r : s.recompiles) {
    out << "  [" << r.id.str() << "] recompiled because the guards of earlier compiles failed:\n";
    for (const auto& reason : r.reasons) {
      out << "      ";
      if (reason.failed_id.valid()) out << reason.failed_id.str() << ": ";
      out << reason.guard << "\n";
      if (!reason.user_stack.empty()) {
        const auto& at = reason.user_stack.back();
        out << "          at " << at.location() << "  " << at.code << "\n";
      }
    }
  }
  // The causes behind those reasons, each with its fix, the cause of most recompiles first.
  const std::string causes = recompile_causes_text(s.recompile_check);
  if (causes.empty()) return;
  std::istringstream lines(causes);
  for (std::string line; std::getline(lines, line);) out << "  " << line << "\n";
}

}  // namespace

std::string to_text(const Summary& s) {
  std::ostringstream out;
  out << "fxscope summary of " << s.path << " (" << fixed(static_cast<double>(s.bytes) / 1e6, 1)
      << " MB, " << s.lines << " lines)\n";
  for (const auto& other : s.other_logs)
    out << "  other log beside it (not read): " << other << "\n";
  out << plural(s.units.size(), "compile unit") << " in " << plural(s.frame_count(), "frame")
      << ", " << plural(s.graph_breaks.size(), "graph break") << " (" << s.graph_break_hits()
      << " hits), " << plural(s.recompiles.size(), "recompile") << "\n";

  // Units grouped by frame, in the order frames first appear.
  std::vector<int> frame_order;
  std::map<int, std::vector<const UnitSummary*>> by_frame;
  for (const auto& u : s.units) {
    if (!by_frame.contains(u.frame_id)) frame_order.push_back(u.frame_id);
    by_frame[u.frame_id].push_back(&u);
  }
  for (const int frame : frame_order) {
    const auto& units = by_frame[frame];
    const UnitSummary& first = *units.front();
    out << "\nframe " << frame << "  " << frame_text(first.frame);
    if (!first.producer.empty()) out << "  (" << first.producer << ", no Dynamo compile id)";
    out << "\n";
    if (!first.user_frame.file.empty() && first.user_frame.location() != first.frame.location()) {
      out << "         called from " << frame_text(first.user_frame) << "\n";
    }
    for (const auto* u : units) {
      unit_line(out, *u);
      for (const std::size_t b : u->graph_breaks) {
        const auto& gb = s.graph_breaks[b];
        out << "         graph break at " << gb.location() << ": " << gb.reason << "\n";
      }
      if (u->recompile) {
        for (const auto& reason : s.recompiles[*u->recompile].reasons) {
          out << "         recompiled, guard of " << reason.failed_id.str()
              << " failed: " << reason.guard << "\n";
        }
      }
    }
  }
  breaks_section(out, s);
  recompiles_section(out, s);
  out << "\nWarnings: " << s.warnings.size() << "\n";
  for (const auto& w : s.warnings) out << "  " << w.where << ": " << w.message << "\n";
  return out.str();
}

}  // namespace fxscope::report
