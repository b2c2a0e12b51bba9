#include "panels/guards_panel.h"

#include <QFutureWatcher>
#include <QHeaderView>
#include <QLabel>
#include <QPointer>
#include <QPushButton>
#include <QSplitter>
#include <QTableView>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrentRun>
#include <algorithm>
#include <utility>

#include "models/compile_units_model.h"
#include "models/guard_input_model.h"
#include "models/guard_list_model.h"
#include "models/recompile_list_model.h"
#include "panels/graph_panel.h"
#include "text/guard_wording.h"

namespace fxscope::views {
namespace {

// Dynamo's tags (TORCH_FUNCTION_MODE_STACK) are long and say little: the guard in words gets
// the width.
constexpr int kTagWidth = 110;

QTableView* make_table(QAbstractItemModel* model, const QString& name, QWidget* parent) {
  auto* view = new QTableView(parent);
  view->setObjectName(name);
  view->setModel(model);
  view->setSelectionBehavior(QAbstractItemView::SelectRows);
  view->verticalHeader()->hide();
  view->horizontalHeader()->setStretchLastSection(true);
  view->setWordWrap(false);
  return view;
}

QWidget* column(const std::initializer_list<QWidget*> widgets, QWidget* parent) {
  auto* box = new QWidget(parent);
  auto* layout = new QVBoxLayout(box);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->setSpacing(2);
  for (QWidget* w : widgets) layout->addWidget(w, w->inherits("QTableView") ? 1 : 0);
  return box;
}

// Where the input named INPUT sits on GRAPH: the Dynamo placeholder L_<input>_ (what Dynamo
// names L['input']), or on the ATen graph the placeholder at the same position, when both
// graphs have the same inputs in the same order (AOT flattens them in Dynamo's order).
QStringList input_nodes(const CanvasGraph& graph, const UnitGuards& unit, const QString& input) {
  const std::string dynamo_name = "L_" + input.toStdString() + "_";
  const auto at = std::find(unit.graph_inputs.begin(), unit.graph_inputs.end(), dynamo_name);
  if (at == unit.graph_inputs.end()) return {};
  if (graph.request.level == GraphLevel::kDynamo) return {QString::fromStdString(dynamo_name)};
  std::vector<std::string> aten;
  for (const auto& node : graph.graph.nodes()) {
    if (node.op == graph::OpKind::placeholder) aten.push_back(node.name);
  }
  if (aten.size() != unit.graph_inputs.size()) return {};
  return {QString::fromStdString(aten[std::size_t(at - unit.graph_inputs.begin())])};
}

}  // namespace

GuardsPanel::GuardsPanel(GraphPanel& graph, QWidget* parent) : QWidget(parent), graph_(graph) {
  setObjectName(QStringLiteral("guards_panel"));
  inputs_ = new GuardInputModel(this);
  guards_ = new GuardListModel(this);
  recompiles_ = new RecompileListModel(this);
  input_view_ = make_table(inputs_, QStringLiteral("guard_input_view"), this);
  input_view_->setEditTriggers(QAbstractItemView::AllEditTriggers);
  guard_view_ = make_table(guards_, QStringLiteral("guard_list_view"), this);
  recompile_view_ = make_table(recompiles_, QStringLiteral("recompile_list_view"), this);
  title_ = new QLabel(tr("Select a compile unit to see its guards."), this);
  verdict_ = new QLabel(this);
  verdict_->setObjectName(QStringLiteral("guard_verdict"));
  verdict_->setWordWrap(true);
  verdict_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  causes_ = new QLabel(this);
  causes_->setObjectName(QStringLiteral("recompile_causes"));
  causes_->setWordWrap(true);
  causes_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  auto* reset = new QPushButton(tr("Recorded input"), this);
  reset->setToolTip(tr("Put back the input this unit was compiled for"));
  connect(reset, &QPushButton::clicked, this, &GuardsPanel::reset_input);

  auto* splitter = new QSplitter(Qt::Horizontal, this);
  splitter->addWidget(column({title_, input_view_, verdict_, reset}, splitter));
  splitter->addWidget(
      column({new QLabel(tr("Guards, in the order Dynamo checks them"), splitter), guard_view_},
             splitter));
  splitter->addWidget(column(
      {new QLabel(tr("Recorded recompiles of this frame"), splitter), recompile_view_, causes_},
      splitter));
  splitter->setSizes({320, 600, 340});
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(2, 2, 2, 2);
  layout->addWidget(splitter);

  connect(inputs_, &GuardInputModel::input_edited, this, &GuardsPanel::evaluate);
  connect(inputs_, &GuardInputModel::edit_refused, this, &GuardsPanel::status);
  connect(&graph_, &GraphPanel::graph_shown, this, &GuardsPanel::highlight_failing_input);
}

QString GuardsPanel::recompile_causes() const {
  return causes_->text();
}

void GuardsPanel::set_log(LoadedLogPtr log) {
  log_ = std::move(log);
  ++generation_;
  ++evaluation_;
  unit_.reset();
  failing_input_.clear();
  inputs_->set_input({});
  guards_->set_guards({});
  recompiles_->set_rows({});
  causes_->clear();
  verdict_->clear();
  title_->setText(tr("Select a compile unit to see its guards."));
}

void GuardsPanel::show_row(const QModelIndex& index) {
  if (!log_) return;
  const QVariant unit = index.data(CompileUnitsModel::kUnitRole);
  if (unit.isValid()) return show_unit(unit.value<qulonglong>());
  const QVariant frame = index.data(CompileUnitsModel::kFrameRole);
  if (!frame.isValid()) return;
  const auto& units = log_->summary.units;
  for (std::size_t u = 0; u < units.size(); ++u) {
    if (units[u].frame_id == frame.toInt()) return show_unit(u);
  }
}

void GuardsPanel::show_unit(std::size_t unit) {
  if (!log_) return;
  const std::uint64_t generation = ++generation_;
  ++pending_;
  auto* watcher = new QFutureWatcher<UnitGuards>(this);
  connect(watcher, &QFutureWatcherBase::finished, this,
          [self = QPointer<GuardsPanel>(this), watcher, generation] {
            watcher->deleteLater();
            if (!self) return;
            --self->pending_;
            if (generation == self->generation_) self->on_unit_loaded(watcher->result());
          });
  watcher->setFuture(
      QtConcurrent::run([log = log_, unit] { return load_unit_guards(*log, unit); }));
}

void GuardsPanel::on_unit_loaded(UnitGuards loaded) {
  unit_ = std::move(loaded);
  failing_input_.clear();
  title_->setText(unit_->problem.empty()
                      ? tr("Input of %1 (edit a cell: the guards are checked as you type)")
                            .arg(QString::fromStdString(unit_->compile_id))
                      : QString::fromStdString(unit_->problem));
  guards_->set_guards(unit_->guards);
  recompiles_->set_rows(unit_->recompiles);
  causes_->setText(QString::fromStdString(unit_->ranked_causes).trimmed());
  inputs_->set_input(unit_->recorded_input);
  input_view_->resizeColumnsToContents();
  // Guards and reasons are sentences: they take the width the short columns leave.
  guard_view_->resizeColumnToContents(GuardListModel::kState);
  guard_view_->setColumnWidth(GuardListModel::kTag, kTagWidth);
  recompile_view_->resizeColumnToContents(RecompileListModel::kCompile);
  recompile_view_->horizontalHeader()->setSectionResizeMode(RecompileListModel::kRecorded,
                                                            QHeaderView::Stretch);
  emit unit_loaded();
  if (unit_->problem.empty()) evaluate();
}

void GuardsPanel::reset_input() {
  if (unit_) {
    inputs_->set_input(unit_->recorded_input);
    evaluate();
  }
}

void GuardsPanel::evaluate() {
  if (!log_ || !unit_ || !unit_->problem.empty()) return;
  const std::uint64_t evaluation = ++evaluation_;
  ++pending_;
  auto* watcher = new QFutureWatcher<GuardVerdict>(this);
  connect(watcher, &QFutureWatcherBase::finished, this,
          [self = QPointer<GuardsPanel>(this), watcher, evaluation, id = unit_->compile_id] {
            watcher->deleteLater();
            if (!self) return;
            --self->pending_;
            if (evaluation == self->evaluation_ && self->unit_ && self->unit_->compile_id == id) {
              self->on_evaluated(watcher->result());
            }
          });
  watcher->setFuture(
      QtConcurrent::run([log = log_, id = unit_->compile_id, input = inputs_->input()] {
        return evaluate_unit_input(*log, id, input);
      }));
}

void GuardsPanel::on_evaluated(const GuardVerdict& verdict) {
  QStringList lines;
  for (const auto& entry : verdict.entries) lines << QString::fromStdString(entry);
  if (!verdict.problem.empty()) {
    lines << QString::fromStdString(verdict.problem);
  } else if (verdict.reused) {
    lines << tr("=> runs the code compiled in %1").arg(QString::fromStdString(*verdict.reused));
  } else {
    lines << tr("=> recompiles: no cache entry accepts this input");
  }
  verdict_->setText(lines.join(QLatin1Char('\n')));
  verdict_->setStyleSheet(verdict.reused ? QStringLiteral("QLabel { color: #1d5e20; }")
                                         : QStringLiteral("QLabel { color: #7a1c12; }"));
  guards_->set_failed(verdict.failed);
  failing_input_.clear();
  if (verdict.failed && *verdict.failed < unit_->guards.size()) {
    const guards::Guard& guard = unit_->guards[*verdict.failed];
    std::string source = guard.source;
    if (source.empty() && guard.tensor) source = guard.tensor->source;
    if (const auto input = input_of_source(source)) failing_input_ = QString::fromStdString(*input);
    guard_view_->scrollTo(guards_->index(int(*verdict.failed), 0));
    const int row = inputs_->row_of(failing_input_);
    if (row >= 0) input_view_->selectRow(row);
  }
  highlight_failing_input();
  emit evaluated();
}

void GuardsPanel::highlight_failing_input() {
  if (!unit_ || failing_input_.isEmpty()) return;
  const CanvasGraphPtr& graph = graph_.shown();
  if (!graph || graph->compile_id != unit_->compile_id) return;
  const QString reason = tr("guard fails on input %1").arg(failing_input_);
  const QStringList nodes = input_nodes(*graph, *unit_, failing_input_);
  if (nodes.isEmpty()) {
    emit status(tr("%1 (not a tensor input of the shown graph)").arg(reason));
    return;
  }
  graph_.highlight_nodes(nodes, reason);
}

QString GuardsPanel::verdict_text() const {
  return verdict_->text();
}

}  // namespace fxscope::views
