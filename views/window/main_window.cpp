#include "window/main_window.h"

#include <QAction>
#include <QDockWidget>
#include <QFileDialog>
#include <QFileInfo>
#include <QHeaderView>
#include <QMenuBar>
#include <QProgressBar>
#include <QSettings>
#include <QStatusBar>
#include <QTabWidget>
#include <QTableView>
#include <QTreeView>
#include <algorithm>
#include <utility>

#include "capture/capture_dialog.h"
#include "compare/comparison_loader.h"
#include "context/view_context.h"
#include "gpu_run/gpu_run_controller.h"
#include "layout/document_canvas.h"
#include "models/compile_units_model.h"
#include "models/graph_breaks_model.h"
#include "panels/comparison_panel.h"
#include "panels/compile_time_panel.h"
#include "panels/graph_panel.h"
#include "panels/guards_panel.h"
#include "panels/kernels_panel.h"
#include "panels/message_log.h"
#include "panels/mode_comparison_panel.h"
#include "panels/ranks_panel.h"
#include "panels/summary_panel.h"
#include "window/document_window.h"
#include "window/export_actions.h"
#include "window/log_loader.h"
#include "window/path_drop_filter.h"
#include "window/recent_files.h"

namespace fxscope::views {
namespace {

// Bumped when the docks change, so that an older saved layout is ignored rather than misapplied.
constexpr int kLayoutVersion = 3;
// Logs with many bad lines have thousands of warnings; the Log tab shows the first ones and
// `fxscope-cli summary` lists them all.
constexpr std::size_t kMaxWarningsShown = 1000;
constexpr int kMaxReasonWidth = 200;

QDockWidget* make_dock(const QString& title, const QString& name, QWidget* content,
                       QMainWindow* window) {
  auto* dock = new QDockWidget(title, window);
  dock->setObjectName(name);
  dock->setWidget(content);
  return dock;
}

}  // namespace

MainWindow::MainWindow(QWidget* parent) : QMainWindow(parent) {
  setWindowTitle(QStringLiteral("fxscope"));
  resize(1440, 860);
  loader_ = new LogLoader(this);
  comparer_ = new ComparisonLoader(this);
  units_model_ = new CompileUnitsModel(this);
  breaks_model_ = new GraphBreaksModel(this);
  summary_ = new SummaryPanel(this);
  context_ = new ViewContext(this);
  graph_ = new GraphPanel(this, context_);
  centre_ = new QTabWidget(this);
  centre_->setObjectName(QStringLiteral("centre_tabs"));
  centre_->setDocumentMode(true);
  centre_->addTab(graph_, tr("Graph"));
  centre_->addTab(summary_, tr("Summary"));
  compile_ = new CompileTimePanel(this);
  centre_->addTab(compile_, tr("Compile"));
  setCentralWidget(centre_);
  connect(graph_, &GraphPanel::status, this, &MainWindow::show_status);
  build_docks();
  build_menus();

  progress_ = new QProgressBar(this);
  progress_->setRange(0, 0);  // busy: the reader reports no fraction done
  progress_->setMaximumWidth(160);
  progress_->hide();
  statusBar()->addPermanentWidget(progress_);

  connect(loader_, &LogLoader::started, this, &MainWindow::on_load_started);
  connect(loader_, &LogLoader::loaded, this, &MainWindow::on_loaded);
  connect(loader_, &LogLoader::failed, this, &MainWindow::on_load_failed);
  connect(comparer_, &ComparisonLoader::loaded, this, &MainWindow::on_compared);
  connect(comparer_, &ComparisonLoader::failed, this, &MainWindow::on_compare_failed);
}

void MainWindow::build_docks() {
  units_view_ = new QTreeView(this);
  units_view_->setObjectName(QStringLiteral("compile_units_view"));
  units_view_->setModel(units_model_);
  units_view_->setUniformRowHeights(true);
  units_view_->setAlternatingRowColors(true);
  units_view_->setAllColumnsShowFocus(true);
  units_view_->setSelectionBehavior(QAbstractItemView::SelectRows);
  units_view_->setTextElideMode(Qt::ElideMiddle);
  connect(units_view_->selectionModel(), &QItemSelectionModel::currentChanged, summary_,
          [this](const QModelIndex& current) {
            summary_->show_row(current);
            compile_->show_row(current);
            graph_->show_row(current);
            guards_->show_row(current);
          });

  breaks_view_ = new QTableView(this);
  breaks_view_->setObjectName(QStringLiteral("graph_breaks_view"));
  breaks_view_->setModel(breaks_model_);
  breaks_view_->setSelectionBehavior(QAbstractItemView::SelectRows);
  // Reasons and hints are sentences: they share the width and wrap rather than being cut.
  breaks_view_->setWordWrap(true);
  breaks_view_->verticalHeader()->hide();
  breaks_view_->verticalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
  auto* header = breaks_view_->horizontalHeader();
  header->setSectionResizeMode(QHeaderView::ResizeToContents);
  header->setSectionResizeMode(GraphBreaksModel::kReason, QHeaderView::Interactive);
  header->setSectionResizeMode(GraphBreaksModel::kHint, QHeaderView::Stretch);

  messages_ = new MessageLog(this);

  units_dock_ =
      make_dock(tr("Compile units"), QStringLiteral("compile_units_dock"), units_view_, this);
  breaks_dock_ =
      make_dock(tr("Graph breaks"), QStringLiteral("graph_breaks_dock"), breaks_view_, this);
  log_dock_ = make_dock(tr("Log"), QStringLiteral("log_dock"), messages_, this);
  // The tree runs the full height; the bottom tabs sit under the summary only.
  setCorner(Qt::BottomLeftCorner, Qt::LeftDockWidgetArea);
  setTabPosition(Qt::BottomDockWidgetArea, QTabWidget::North);
  addDockWidget(Qt::LeftDockWidgetArea, units_dock_);
  addDockWidget(Qt::BottomDockWidgetArea, breaks_dock_);
  tabifyDockWidget(breaks_dock_, log_dock_);
  kernels_ = new KernelsPanel(*context_, this);
  connect(kernels_, &KernelsPanel::nodes_chosen, graph_, &GraphPanel::highlight_node_ids);
  kernels_dock_ = make_dock(tr("Kernels"), QStringLiteral("kernels_dock"), kernels_, this);
  tabifyDockWidget(breaks_dock_, kernels_dock_);
  ab_ = new ModeComparisonPanel(*context_, this);
  ab_dock_ = make_dock(tr("A/B"), QStringLiteral("mode_comparison_dock"), ab_, this);
  tabifyDockWidget(breaks_dock_, ab_dock_);
  inspector_dock_ =
      make_dock(tr("Inspector"), QStringLiteral("inspector_dock"), graph_->take_inspector(), this);
  // Under the units tree, so the canvas keeps the window's width.
  addDockWidget(Qt::LeftDockWidgetArea, inspector_dock_);
  source_dock_ = make_dock(tr("Kernel source"), QStringLiteral("kernel_source_dock"),
                           graph_->take_kernel_source(), this);
  tabifyDockWidget(inspector_dock_, source_dock_);
  inspector_dock_->raise();
  guards_ = new GuardsPanel(*graph_, this);
  guards_dock_ =
      make_dock(tr("Guards and recompiles"), QStringLiteral("guards_dock"), guards_, this);
  tabifyDockWidget(breaks_dock_, guards_dock_);
  connect(guards_, &GuardsPanel::status, this, &MainWindow::show_status);
  ranks_ = new RanksPanel(this);
  ranks_dock_ = make_dock(tr("Ranks"), QStringLiteral("ranks_dock"), ranks_, this);
  tabifyDockWidget(breaks_dock_, ranks_dock_);
  // The rank switcher: a rank chosen in the table opens in this window.
  connect(ranks_, &RanksPanel::rank_chosen, this,
          [this](int, const QString& path) { loader_->load(path); });
  connect(ranks_, &RanksPanel::loaded, this, [this](int ranks, int divergences) {
    messages_->add_info(tr("compared %1 ranks: %2 divergences").arg(ranks).arg(divergences));
  });
  compare_ = new ComparisonPanel(this);
  compare_dock_ = make_dock(tr("Compare"), QStringLiteral("compare_dock"), compare_, this);
  tabifyDockWidget(breaks_dock_, compare_dock_);
  connect(compare_, &ComparisonPanel::unit_chosen, this,
          [this](const QString& id) { select_unit(id); });
  breaks_dock_->raise();
  resizeDocks({units_dock_}, {520}, Qt::Horizontal);
  resizeDocks({breaks_dock_}, {190}, Qt::Vertical);
}

void MainWindow::build_menus() {
  auto* file = menuBar()->addMenu(tr("&File"));
  auto* open_file = file->addAction(tr("&Open Log File..."), this, &MainWindow::open_file_dialog);
  open_file->setShortcut(QKeySequence::Open);
  auto* open_directory =
      file->addAction(tr("Open Log &Directory..."), this, &MainWindow::open_directory_dialog);
  open_directory->setShortcut(QKeySequence(tr("Ctrl+Shift+O")));
  recent_ = new RecentFiles(file->addMenu(tr("Open &Recent")), this);
  auto* capture = file->addAction(tr("&Capture..."), this, &MainWindow::open_capture_dialog);
  capture->setObjectName(QStringLiteral("capture"));
  capture->setStatusTip(tr("Run your program with TORCH_TRACE set and open the log it writes"));
  file->addSeparator();
  auto* compare = file->addAction(tr("Compare &with..."), this, &MainWindow::compare_dialog);
  compare->setObjectName(QStringLiteral("compare_with"));
  compare->setStatusTip(
      tr("Open a second log of the same program and see what changed: the open "
         "log is before, the second after"));
  clear_comparison_ = file->addAction(tr("C&lear Comparison"), this, &MainWindow::clear_comparison);
  clear_comparison_->setObjectName(QStringLiteral("clear_comparison"));
  clear_comparison_->setEnabled(false);
  connect(recent_, &RecentFiles::open_requested, this, &MainWindow::open_path);
  connect(loader_, &LogLoader::started, recent_, &RecentFiles::opening);
  connect(this, &MainWindow::log_loaded, recent_, &RecentFiles::loaded);
  connect(new PathDropFilter(this), &PathDropFilter::dropped, this, &MainWindow::open_path);
  exports_ = new ExportActions(*this, *file);
  connect(exports_, &ExportActions::finished, this, [this](const QString&, const QString& error) {
    if (!error.isEmpty()) messages_->add_error(tr("export failed: %1").arg(error));
  });
  file->addSeparator();
  auto* quit = file->addAction(tr("&Quit"), this, &QWidget::close);
  quit->setShortcut(QKeySequence::Quit);

  auto* view = menuBar()->addMenu(tr("&View"));
  view->addAction(units_dock_->toggleViewAction());
  view->addAction(breaks_dock_->toggleViewAction());
  view->addAction(log_dock_->toggleViewAction());
  view->addAction(kernels_dock_->toggleViewAction());
  view->addAction(ab_dock_->toggleViewAction());
  view->addAction(inspector_dock_->toggleViewAction());
  view->addAction(source_dock_->toggleViewAction());
  view->addAction(guards_dock_->toggleViewAction());
  view->addAction(compare_dock_->toggleViewAction());

  gpu_runs_ = new GpuRunController(this, *context_);
  gpu_runs_->add_actions(menuBar()->addMenu(tr("&Run")));
  connect(gpu_runs_, &GpuRunController::status, this, &MainWindow::show_status);
  connect(gpu_runs_, &GpuRunController::failed, this,
          [this](const QString& message) { messages_->add_error(tr("GPU run: %1").arg(message)); });
  connect(gpu_runs_, &GpuRunController::run_loaded, this, [this] { kernels_dock_->raise(); });
}

void MainWindow::open_file_dialog() {
  const QString path =
      QFileDialog::getOpenFileName(this, tr("Open TORCH_TRACE Log"), {},
                                   tr("TORCH_TRACE logs (*.log *.gz *.zst);;All files (*)"));
  if (!path.isEmpty()) open_path(path);
}

void MainWindow::open_directory_dialog() {
  const QString path = QFileDialog::getExistingDirectory(this, tr("Open TORCH_TRACE Directory"));
  if (!path.isEmpty()) open_path(path);
}

CaptureDialog* MainWindow::capture_dialog() const {
  return capture_.data();
}

void MainWindow::open_capture_dialog() {
  if (!capture_) {
    capture_ = new CaptureDialog(this);
    capture_->setAttribute(Qt::WA_DeleteOnClose);
    connect(capture_, &CaptureDialog::open_requested, this, &MainWindow::open_path);
  }
  capture_->show();
  capture_->raise();
  capture_->activateWindow();
}

void MainWindow::open_path(const QString& path) {
  // An fxscope JSON file (File > Export, fxscope-cli export) opens in a window of its own,
  // shown once read; any other JSON goes on to the log reader, which says what it is not.
  if (is_fxscope_json(path.toStdString())) {
    auto* document = new DocumentWindow(this);
    connect(document, &DocumentWindow::graph_shown, document, &QWidget::show);
    connect(document, &DocumentWindow::failed, this, [this, document, path] {
      document->deleteLater();
      loader_->load(path);
    });
    document->open(path);
    return;
  }
  opened_path_ = path;
  loader_->load(path);
}

bool MainWindow::loading() const {
  return loader_->loading();
}

void MainWindow::show_status(const QString& message) {
  statusBar()->showMessage(message);
}

void MainWindow::on_load_started(const QString& path) {
  progress_->show();
  show_status(tr("Loading %1 ...").arg(path));
  messages_->add_info(tr("loading %1").arg(path));
}

LoadedLogPtr MainWindow::log() const {
  return context_->log();
}

void MainWindow::on_loaded(LoadedLogPtr log) {
  progress_->hide();
  context_->set_log(std::move(log));
  // A comparison (or one under way) was of the previous log.
  clear_comparison();
  const auto& summary = context_->log()->summary;
  units_model_->set_log(context_->log());
  breaks_model_->set_log(context_->log());
  summary_->set_log(context_->log());
  compile_->set_log(context_->log());
  guards_->set_log(context_->log());
  units_view_->expandAll();
  fit_columns();
  // A directory of ranks opens rank 0 and lists every rank; opening one of its ranks' files
  // (the rank switcher) keeps the comparison.
  if (!context_->log()->log.ranks().empty() && QFileInfo(opened_path_).isDir()) {
    ranks_->load(opened_path_);
    opened_path_.clear();
  }

  const QString path = QString::fromStdString(summary.path);
  setWindowTitle(QStringLiteral("fxscope - %1").arg(QFileInfo(path).fileName()));
  const QString counts = tr("%1 compile units in %2 frames, %3 graph breaks, %4 recompiles")
                             .arg(summary.units.size())
                             .arg(summary.frame_count())
                             .arg(summary.graph_breaks.size())
                             .arg(summary.recompiles.size());
  messages_->add_info(tr("read %1: %2").arg(path, counts));
  const std::size_t shown = std::min(summary.warnings.size(), kMaxWarningsShown);
  for (std::size_t i = 0; i < shown; ++i) {
    const auto& warning = summary.warnings[i];
    messages_->add_warning(QString::fromStdString(warning.where + ": " + warning.message));
  }
  if (shown < summary.warnings.size()) {
    messages_->add_warning(tr("%1 more warnings; `fxscope-cli summary` lists them all")
                               .arg(summary.warnings.size() - shown));
  }
  show_status(summary.warnings.empty()
                  ? counts
                  : tr("%1; %2 warnings in the Log tab").arg(counts).arg(summary.warnings.size()));
  emit log_loaded();
}

void MainWindow::on_load_failed(const QString& message) {
  progress_->hide();
  show_status(tr("Could not open: %1").arg(message));
  messages_->add_error(message);
  log_dock_->raise();
  emit load_failed(message);
}

void MainWindow::compare_dialog() {
  if (!context_->log()) {
    show_status(tr("Open a log first: Compare with... compares the open log with another"));
    return;
  }
  const QString path =
      QFileDialog::getOpenFileName(this, tr("Compare with TORCH_TRACE Log"), {},
                                   tr("TORCH_TRACE logs (*.log *.gz *.zst);;All files (*)"));
  if (!path.isEmpty()) compare_with(path);
}

void MainWindow::compare_with(const QString& path) {
  if (!context_->log()) {
    on_compare_failed(tr("no log is open to compare %1 with").arg(path));
    return;
  }
  progress_->show();
  show_status(tr("Comparing with %1 ...").arg(path));
  messages_->add_info(tr("comparing with %1").arg(path));
  comparer_->compare(context_->log(), path);
}

void MainWindow::clear_comparison() {
  comparer_->cancel();
  const bool had = comparison_ != nullptr;
  comparison_.reset();
  graph_->set_comparison(nullptr);
  compare_->set_comparison(nullptr);
  units_model_->set_comparison(nullptr);
  clear_comparison_->setEnabled(false);
  if (!loader_->loading()) progress_->hide();
  if (had) show_status(tr("Comparison cleared"));
}

void MainWindow::on_compared(ComparisonPtr comparison) {
  progress_->hide();
  // Loaded for a log that another has replaced since: it describes nothing shown.
  if (!comparison || comparison->before != context_->log()) return;
  comparison_ = std::move(comparison);
  graph_->set_comparison(comparison_);
  compare_->set_comparison(comparison_);
  units_model_->set_comparison(comparison_);
  clear_comparison_->setEnabled(true);
  compare_dock_->raise();
  const QString verdict = QString::fromStdString(comparison_->verdict);
  if (comparison_->diff.unrelated()) {
    messages_->add_warning(verdict);
  } else {
    messages_->add_info(tr("compared: %1").arg(verdict));
  }
  show_status(
      tr("Compared with %1: %2")
          .arg(QFileInfo(QString::fromStdString(comparison_->diff.b_path)).fileName(), verdict));
  emit comparison_loaded();
}

// The open log and any comparison stay as they were.
void MainWindow::on_compare_failed(const QString& message) {
  if (!loader_->loading()) progress_->hide();
  show_status(tr("Could not compare: %1").arg(message));
  messages_->add_error(tr("compare: %1").arg(message));
  log_dock_->raise();
  emit comparison_failed(message);
}

// Break and recompile rows span the whole tree, so their long text sets no column's width.
void MainWindow::fit_columns() {
  for (int f = 0; f < units_model_->rowCount(); ++f) {
    const QModelIndex frame = units_model_->index(f, 0);
    for (int u = 0; u < units_model_->rowCount(frame); ++u) {
      const QModelIndex unit = units_model_->index(u, 0, frame);
      for (int d = 0; d < units_model_->rowCount(unit); ++d) {
        units_view_->setFirstColumnSpanned(d, unit, true);
      }
    }
  }
  for (int column = 0; column < units_model_->columnCount(); ++column) {
    units_view_->resizeColumnToContents(column);
  }
  // Reasons are short headlines and hints are long: the hint takes what the reason leaves.
  breaks_view_->resizeColumnToContents(GraphBreaksModel::kReason);
  if (breaks_view_->columnWidth(GraphBreaksModel::kReason) > kMaxReasonWidth) {
    breaks_view_->setColumnWidth(GraphBreaksModel::kReason, kMaxReasonWidth);
  }
}

bool MainWindow::select_first_unit() {
  const QModelIndex first = units_model_->unit_index(0);
  if (!first.isValid()) return false;
  units_view_->setCurrentIndex(first);
  units_view_->scrollTo(first);
  return true;
}

bool MainWindow::select_unit(const QString& compile_id) {
  if (!context_->log()) return false;
  const auto& units = context_->log()->summary.units;
  for (std::size_t u = 0; u < units.size(); ++u) {
    if (QString::fromStdString(units[u].compile_id) != compile_id) continue;
    const QModelIndex index = units_model_->unit_index(u);
    if (!index.isValid()) return false;
    units_view_->setCurrentIndex(index);
    units_view_->scrollTo(index);
    return true;
  }
  return false;
}

QStringList MainWindow::unit_ids() const {
  QStringList ids;
  if (!context_->log()) return ids;
  for (const auto& unit : context_->log()->summary.units)
    ids << QString::fromStdString(unit.compile_id);
  return ids;
}

void MainWindow::save_layout(QSettings& settings) const {
  settings.setValue(QStringLiteral("main_window/geometry"), saveGeometry());
  settings.setValue(QStringLiteral("main_window/state"), saveState(kLayoutVersion));
}

void MainWindow::restore_layout(const QSettings& settings) {
  restoreGeometry(settings.value(QStringLiteral("main_window/geometry")).toByteArray());
  restoreState(settings.value(QStringLiteral("main_window/state")).toByteArray(), kLayoutVersion);
}

}  // namespace fxscope::views
