#pragma once
// The "Guards & recompiles" tab: for the selected compile unit, its input (editable: shapes,
// dtypes, strides, constants) evaluated live against its frame's cache, its guards in plain
// words with the failing one marked, the input that guard concerns selected on the graph, and
// the frame's recorded recompiles with the guard that failed. Guards load and evaluate on Qt's
// pool; the newest request wins.

#include <QModelIndex>
#include <QWidget>
#include <cstdint>
#include <optional>

#include "models/unit_guards.h"
#include "window/loaded_log.h"

class QLabel;
class QTableView;

namespace fxscope::views {

class GraphPanel;
class GuardInputModel;
class GuardListModel;
class RecompileListModel;

class GuardsPanel : public QWidget {
  Q_OBJECT

 public:
  // GRAPH is where the failing guard's input is selected; it must outlive the panel.
  explicit GuardsPanel(GraphPanel& graph, QWidget* parent = nullptr);

  void set_log(LoadedLogPtr log);
  // The unit of a CompileUnitsModel row; a frame row shows the frame's first unit.
  void show_row(const QModelIndex& index);
  void show_unit(std::size_t unit);

  GuardInputModel& inputs() const { return *inputs_; }
  GuardListModel& guard_list() const { return *guards_; }
  RecompileListModel& recompiles() const { return *recompiles_; }
  QTableView& input_view() const { return *input_view_; }
  // Why the frame recompiled and the fix for each cause, most recompiles first.
  QString recompile_causes() const;
  // The lines of the last verdict: each cache entry, then what Dynamo would do.
  QString verdict_text() const;
  // The input the failing guard concerns ("x"); empty when every guard holds.
  QString failing_input() const { return failing_input_; }
  bool busy() const { return pending_ > 0; }
  // Evaluates the editor's input now (edits do so by themselves).
  void evaluate();
  // Puts back the input the unit was compiled for.
  void reset_input();

 signals:
  void unit_loaded();
  void evaluated();
  void status(const QString& message);

 private:
  void on_unit_loaded(UnitGuards loaded);
  void on_evaluated(const GuardVerdict& verdict);
  void highlight_failing_input();

  GraphPanel& graph_;
  LoadedLogPtr log_;
  std::optional<UnitGuards> unit_;
  std::uint64_t generation_ = 0;  // of unit loads
  std::uint64_t evaluation_ = 0;  // of evaluations, so that an edit never drops a unit load
  int pending_ = 0;
  QString failing_input_;
  GuardInputModel* inputs_ = nullptr;
  GuardListModel* guards_ = nullptr;
  RecompileListModel* recompiles_ = nullptr;
  QTableView* input_view_ = nullptr;
  QTableView* guard_view_ = nullptr;
  QTableView* recompile_view_ = nullptr;
  QLabel* title_ = nullptr;
  QLabel* verdict_ = nullptr;
  QLabel* causes_ = nullptr;
};

}  // namespace fxscope::views
