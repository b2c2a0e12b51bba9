#include "window/export_actions.h"

#include <nlohmann/json.hpp>

#include <QFileDialog>
#include <QFutureWatcher>
#include <QMenu>
#include <QPointer>
#include <QtConcurrent/QtConcurrentRun>
#include <exception>
#include <fstream>
#include <string>
#include <utility>

#include "canvas/view_image_export.h"
#include "context/view_context.h"
#include "fxscope/export/chrome_trace.h"
#include "fxscope/export/dot_writer.h"
#include "fxscope/export/planned_unit.h"
#include "fxscope/export/unit_document.h"
#include "fxscope/graph/graph_json.h"
#include "panels/graph_panel.h"
#include "window/main_window.h"

namespace fxscope::views {
namespace {

struct UnitExport {
  LoadedLogPtr log;
  std::string compile_id;
  fusion::Mode mode = fusion::Mode::default_mode;
  RunResultPtr run;  // used for the Chrome trace when it is of the same unit
  ExportActions::Format format = ExportActions::Format::kDot;
  std::string path;
};

Result<std::string> unit_bytes(const UnitExport& job) {
  if (job.format == ExportActions::Format::kChromeTrace && job.run &&
      job.run->unit == job.compile_id) {
    return exporting::chrome_trace_from_run(*job.run).dump(1) + "\n";
  }
  auto planned = exporting::plan_unit(job.log->log, {job.compile_id, job.mode});
  if (!planned) return planned.error();
  if (job.format == ExportActions::Format::kChromeTrace) {
    return exporting::predicted_chrome_trace(*planned).dump(1) + "\n";
  }
  const graph::Document doc = exporting::unit_document(*planned);
  if (job.format == ExportActions::Format::kJson) return graph::to_json_text(doc, 1) + "\n";
  return exporting::document_dot(doc);
}

// Runs on Qt's pool: plans, writes, and returns the error text (empty when done).
QString write_unit_export(const UnitExport& job) {
  try {
    auto bytes = unit_bytes(job);
    if (!bytes) return QString::fromStdString(bytes.error().message);
    std::ofstream out(job.path, std::ios::binary);
    out.write(bytes->data(), std::streamsize(bytes->size()));
    out.close();
    if (!out) return QString::fromStdString(job.path + ": cannot write the export");
    return {};
  } catch (const std::exception& error) {
    return QString::fromStdString(job.path + ": " + error.what());
  }
}

QString title(ExportActions::Format format) {
  switch (format) {
    case ExportActions::Format::kSvg:
      return QObject::tr("Current View as &SVG...");
    case ExportActions::Format::kPng:
      return QObject::tr("Current View as &PNG...");
    case ExportActions::Format::kDot:
      return QObject::tr("Unit as Annotated &DOT...");
    case ExportActions::Format::kJson:
      return QObject::tr("Unit as fxscope &JSON...");
    case ExportActions::Format::kChromeTrace:
      return QObject::tr("Kernel Timeline as &Chrome Trace...");
  }
  return {};
}

}  // namespace

ExportActions::ExportActions(MainWindow& window, QMenu& menu) : QObject(&window), window_(window) {
  QMenu* exports = menu.addMenu(tr("&Export"));
  exports->setObjectName(QStringLiteral("export_menu"));
  for (Format format :
       {Format::kSvg, Format::kPng, Format::kDot, Format::kJson, Format::kChromeTrace}) {
    QAction* action = exports->addAction(title(format));
    connect(action, &QAction::triggered, this, [this, format] { ask_and_export(format); });
  }
}

QString ExportActions::file_filter(Format format) {
  switch (format) {
    case Format::kSvg:
      return tr("SVG images (*.svg)");
    case Format::kPng:
      return tr("PNG images (*.png)");
    case Format::kDot:
      return tr("Graphviz DOT (*.dot *.gv)");
    case Format::kJson:
      return tr("fxscope JSON (*.json)");
    case Format::kChromeTrace:
      return tr("Chrome trace (*.json)");
  }
  return {};
}

void ExportActions::ask_and_export(Format format) {
  const QString path =
      QFileDialog::getSaveFileName(&window_, tr("Export"), {}, file_filter(format));
  if (!path.isEmpty()) export_to(format, path);
}

void ExportActions::export_to(Format format, const QString& path) {
  const GraphPanel& panel = window_.graph_panel();
  if (format == Format::kSvg || format == Format::kPng) {
    report(path,
           format == Format::kSvg ? export_view_svg(panel, path) : export_view_png(panel, path));
    return;
  }
  const CanvasGraphPtr& shown = panel.shown();
  if (!window_.log() || !shown || shown->compile_id.empty()) {
    report(path, tr("open a log and select a compile unit first"));
    return;
  }
  const ViewContext& context = window_.context();
  UnitExport job{window_.log(), shown->compile_id, context.mode(), context.run(),
                 format,        path.toStdString()};
  ++pending_;
  window_.show_status(tr("Exporting %1 ...").arg(path));
  auto* watcher = new QFutureWatcher<QString>(this);
  connect(watcher, &QFutureWatcherBase::finished, this,
          [self = QPointer<ExportActions>(this), watcher, path] {
            watcher->deleteLater();
            if (!self) return;
            --self->pending_;
            self->report(path, watcher->result());
          });
  watcher->setFuture(QtConcurrent::run([job = std::move(job)] { return write_unit_export(job); }));
}

void ExportActions::report(const QString& path, const QString& error) {
  window_.show_status(error.isEmpty() ? tr("Exported %1").arg(path)
                                      : tr("Export failed: %1").arg(error));
  emit finished(path, error);
}

}  // namespace fxscope::views
