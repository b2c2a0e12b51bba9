#pragma once
// The fxscope window: the compile units tree on the left, the graph of the selection (and its
// summary, in a second tab) in the centre, graph breaks and the log below. It observes one
// LoadedLog at a time.

#include <QMainWindow>
#include <QPointer>
#include <QString>
#include <QStringList>

#include "compare/comparison.h"
#include "window/loaded_log.h"

class QDockWidget;
class QProgressBar;
class QSettings;
class QTabWidget;
class QTableView;
class QTreeView;

namespace fxscope::views {

class CaptureDialog;
class CompileUnitsModel;
class ComparisonLoader;
class ComparisonPanel;
class ExportActions;
class GpuRunController;
class KernelsPanel;
class ModeComparisonPanel;
class RecentFiles;
class GraphPanel;
class ViewContext;
class GraphBreaksModel;
class GuardsPanel;
class LogLoader;
class MessageLog;
class SummaryPanel;
class CompileTimePanel;
class RanksPanel;

class MainWindow : public QMainWindow {
  Q_OBJECT

 public:
  explicit MainWindow(QWidget* parent = nullptr);

  // Starts loading PATH (a log file or a directory) off the UI thread; the window stays usable
  // and keeps the log it shows until the new one is read.
  void open_path(const QString& path);
  bool loading() const;
  // Selects the first compile unit of the tree; false when no log with units is open.
  bool select_first_unit();
  // Selects the unit whose compile id (without the attempt, "3/1") is ID, as a click on its row
  // would; false when the open log has no such unit.
  bool select_unit(const QString& compile_id);
  // The compile ids of the open log's units, in log order: what an unknown id is told to use.
  QStringList unit_ids() const;
  void show_status(const QString& message);

  // File > Compare with...: reads PATH off the UI thread and diffs the open log (before)
  // against it (after); the graph and the Compare tab show the result. Needs an open log.
  void compare_with(const QString& path);
  // File > Clear Comparison: back to the open log alone.
  void clear_comparison();
  const ComparisonPtr& comparison() const { return comparison_; }
  ComparisonPanel& comparison_panel() const { return *compare_; }

  // Dock layout and window geometry, kept between runs by the caller's QSettings.
  void save_layout(QSettings& settings) const;
  void restore_layout(const QSettings& settings);

  const CompileUnitsModel& compile_units() const { return *units_model_; }
  const GraphBreaksModel& graph_breaks() const { return *breaks_model_; }
  LoadedLogPtr log() const;
  // What the window looks at (log, unit, level, groups, mode, run): panels observe it.
  ViewContext& context() const { return *context_; }
  GraphPanel& graph_panel() const { return *graph_; }
  ExportActions& exports() const { return *exports_; }
  GuardsPanel& guards_panel() const { return *guards_; }
  RanksPanel& ranks_panel() const { return *ranks_; }
  GpuRunController& gpu_runs() const { return *gpu_runs_; }
  KernelsPanel& kernels_panel() const { return *kernels_; }
  ModeComparisonPanel& mode_comparison() const { return *ab_; }
  RecentFiles& recent_files() const { return *recent_; }
  // File > Capture...'s dialog while it is open, else null.
  CaptureDialog* capture_dialog() const;

 signals:
  void log_loaded();
  void load_failed(const QString& message);
  void comparison_loaded();
  void comparison_failed(const QString& message);

 private:
  void build_docks();
  void build_menus();
  void open_file_dialog();
  void open_directory_dialog();
  void open_capture_dialog();
  void on_load_started(const QString& path);
  void on_loaded(LoadedLogPtr log);
  void on_load_failed(const QString& message);
  void compare_dialog();
  void on_compared(ComparisonPtr comparison);
  void on_compare_failed(const QString& message);
  void fit_columns();

  ViewContext* context_ = nullptr;
  LogLoader* loader_ = nullptr;
  CompileUnitsModel* units_model_ = nullptr;
  GraphBreaksModel* breaks_model_ = nullptr;
  QTreeView* units_view_ = nullptr;
  QTableView* breaks_view_ = nullptr;
  SummaryPanel* summary_ = nullptr;
  CompileTimePanel* compile_ = nullptr;
  GraphPanel* graph_ = nullptr;
  QTabWidget* centre_ = nullptr;
  MessageLog* messages_ = nullptr;
  QDockWidget* units_dock_ = nullptr;
  QDockWidget* breaks_dock_ = nullptr;
  QDockWidget* log_dock_ = nullptr;
  QProgressBar* progress_ = nullptr;
  ExportActions* exports_ = nullptr;
  GuardsPanel* guards_ = nullptr;
  QDockWidget* guards_dock_ = nullptr;
  RanksPanel* ranks_ = nullptr;
  QDockWidget* ranks_dock_ = nullptr;
  QString opened_path_;  // what the user opened last: a directory of ranks is compared once
  GpuRunController* gpu_runs_ = nullptr;
  KernelsPanel* kernels_ = nullptr;
  ModeComparisonPanel* ab_ = nullptr;
  QDockWidget* kernels_dock_ = nullptr;
  QDockWidget* ab_dock_ = nullptr;
  QDockWidget* inspector_dock_ = nullptr;
  QDockWidget* source_dock_ = nullptr;
  RecentFiles* recent_ = nullptr;
  QPointer<CaptureDialog> capture_;
  ComparisonLoader* comparer_ = nullptr;
  ComparisonPtr comparison_;
  ComparisonPanel* compare_ = nullptr;
  QDockWidget* compare_dock_ = nullptr;
  QAction* clear_comparison_ = nullptr;
};

}  // namespace fxscope::views
