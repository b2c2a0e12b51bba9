#include "text/summary_text.h"

#include <QStringList>

#include "fxscope/report/summary_text.h"
#include "text/display_format.h"

namespace fxscope::views {
namespace {

QString from(const std::string& text) {
  return QString::fromStdString(text);
}

QString unit_counts_line(const report::UnitSummary& unit) {
  return QStringLiteral("Dynamo %1 ops, ATen %2 ops, post-grad %3 ops, %4 kernels, %5")
      .arg(count_text(unit.dynamo_ops), count_text(unit.aten_ops), count_text(unit.post_grad_ops),
           count_text(unit.inductor_kernels), seconds_text(unit.compile_time_s));
}

QString times(std::size_t count) {
  return count == 1 ? QStringLiteral("once") : QStringLiteral("%1 times").arg(count);
}

void append_graph_break(QStringList& lines, const trace::GraphBreak& graph_break) {
  lines << QStringLiteral("  %1  %2")
               .arg(short_location(graph_break.file, graph_break.line), from(graph_break.reason));
  lines << QStringLiteral("    [%1], hit %2")
               .arg(from(graph_break.gb_code), times(graph_break.count));
  if (!graph_break.explanation.empty()) {
    lines << QStringLiteral("    why:  ") + from(graph_break.explanation);
  }
  for (const auto& hint : graph_break.hints) lines << QStringLiteral("    hint: ") + from(hint);
  if (const auto* frame = trace::innermost_user_frame(graph_break.user_stack)) {
    if (!frame->code.empty()) lines << QStringLiteral("    code: ") + from(frame->code);
  }
}

// What the break costs a call, as the summary ranks it (docs/compile-time.md).
void append_break_impact(QStringList& lines, const report::Summary& summary, std::size_t b) {
  for (const auto& impact : summary.break_impacts) {
    if (impact.graph_break != b) continue;
    lines << QStringLiteral(
                 "    predicted lost a call on %1: %2 us (eager %3, host sync %4, "
                 "tensors across %5, launch %6, guards %7)")
                 .arg(from(summary.impact_device.name))
                 .arg(impact.lost_us(), 0, 'f', 1)
                 .arg(impact.eager_us, 0, 'f', 1)
                 .arg(impact.sync_us, 0, 'f', 1)
                 .arg(impact.crossing_us, 0, 'f', 1)
                 .arg(impact.launch_us, 0, 'f', 1)
                 .arg(impact.guard_us, 0, 'f', 1);
    if (impact.frame_skipped) {
      lines << QStringLiteral("    the whole frame runs eagerly; its ops are not in the log");
    }
  }
}

}  // namespace

QString unit_summary_text(const report::Summary& summary, std::size_t index) {
  const auto& unit = summary.units[index];
  QStringList lines;
  lines << QStringLiteral("Compile unit %1   %2")
               .arg(from(unit.compile_id), from(unit.frame.function));
  lines << from(unit.frame.location()) << QString();
  lines << QStringLiteral("Dynamo graph    %1 ops").arg(count_text(unit.dynamo_ops));
  lines << QStringLiteral("ATen graphs     %1 ops").arg(count_text(unit.aten_ops));
  lines << QStringLiteral("Post-grad       %1 ops").arg(count_text(unit.post_grad_ops));
  lines << QStringLiteral("Kernels         %1 launches (%2 generated, %3 extern)")
               .arg(count_text(unit.inductor_kernels))
               .arg(unit.triton_launches)
               .arg(unit.extern_launches);
  lines << QStringLiteral("Compile time    %1").arg(seconds_text(unit.compile_time_s));
  if (unit.guard_count) lines << QStringLiteral("Guards          %1").arg(*unit.guard_count);
  if (!unit.failure.empty()) lines << QStringLiteral("Failed          ") + from(unit.failure);

  if (unit.attempts > 1) {
    lines
        << QString()
        << (unit.attempts == 2
                ? QStringLiteral("Dynamo restarted the compile once:")
                : QStringLiteral("Dynamo restarted the compile %1 times:").arg(unit.attempts - 1));
    // The headline only: a restart for a graph break repeats the break's whole message, which
    // the "Graph breaks" section below gives once.
    for (const auto& reason : unit.restart_reasons) {
      lines << QStringLiteral("  ") + from(reason.substr(0, reason.find('\n')));
    }
  }
  if (!unit.graph_breaks.empty()) {
    lines << QString() << QStringLiteral("Graph breaks");
    for (std::size_t b : unit.graph_breaks) {
      append_graph_break(lines, summary.graph_breaks[b]);
      append_break_impact(lines, summary, b);
    }
  }
  if (unit.recompile) {
    lines << QString() << QStringLiteral("Recompiled because guards of earlier compiles failed");
    for (const auto& reason : summary.recompiles[*unit.recompile].reasons) {
      lines << QStringLiteral("  %1: %2").arg(from(reason.failed_id.str()), from(reason.guard));
      if (const auto* frame = trace::innermost_user_frame(reason.user_stack)) {
        lines << QStringLiteral("    at %1  %2").arg(from(frame->location()), from(frame->code));
      }
    }
  }
  return lines.join(QLatin1Char('\n'));
}

QString frame_summary_text(const report::Summary& summary, int frame_id) {
  QStringList lines;
  for (const auto& unit : summary.units) {
    if (unit.frame_id != frame_id) continue;
    if (lines.isEmpty()) {
      lines << QStringLiteral("Frame %1   %2").arg(frame_id).arg(from(unit.frame.function));
      lines << from(unit.frame.location()) << QString();
    }
    lines << QStringLiteral("  [%1]  %2").arg(from(unit.compile_id), unit_counts_line(unit));
  }
  return lines.join(QLatin1Char('\n'));
}

QString log_summary_text(const report::Summary& summary) {
  return from(report::to_text(summary));
}

}  // namespace fxscope::views
