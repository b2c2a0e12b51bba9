#include "panels/graph_panel.h"

#include "panels/kernel_source.h"

#include <QAction>
#include <QComboBox>
#include <QFileInfo>
#include <QFontDatabase>
#include <QFutureWatcher>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QPointer>
#include <QSignalBlocker>
#include <QSplitter>
#include <QToolBar>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrentRun>
#include <utility>

#include "canvas/change_legend.h"
#include "canvas/graph_canvas.h"
#include "canvas/graph_scene.h"
#include "canvas/heat_legend.h"
#include "canvas/node_item.h"
#include "context/view_context.h"
#include "models/compile_units_model.h"
#include "panels/kernel_source.h"
#include "panels/node_details.h"

namespace fxscope::views {

GraphPanel::GraphPanel(QWidget* parent, ViewContext* context)
    : QWidget(parent), context_(context != nullptr ? context : new ViewContext(this)) {
  setObjectName(QStringLiteral("graph_panel"));
  scene_ = new GraphScene(this);
  canvas_ = new GraphCanvas(scene_, this);
  banner_ = new QLabel(this);
  banner_->setObjectName(QStringLiteral("graph_banner"));
  banner_->setWordWrap(true);
  banner_->setStyleSheet(QStringLiteral(
      "QLabel { background: #fdecea; color: #7a1c12; border: 1px solid #e6a49b; padding: 4px; }"));
  banner_->hide();
  inspector_ = new QPlainTextEdit(this);
  inspector_->setObjectName(QStringLiteral("node_inspector"));
  inspector_->setReadOnly(true);
  inspector_->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
  inspector_->setPlaceholderText(tr("Click a node to inspect it."));
  // Filled on every selection; shown where the window docks it (take_kernel_source).
  source_ = new QPlainTextEdit(this);
  source_->setObjectName(QStringLiteral("kernel_source"));
  source_->setReadOnly(true);
  source_->setLineWrapMode(QPlainTextEdit::NoWrap);
  source_->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
  source_->setPlaceholderText(
      tr("Click a node to see the CUDA C fxscope generates for its kernel (Groups: fxscope)."));
  source_->hide();

  auto* splitter = new QSplitter(Qt::Horizontal, this);
  splitter->addWidget(canvas_);
  splitter->addWidget(inspector_);
  splitter->setStretchFactor(0, 1);
  splitter->setStretchFactor(1, 0);
  splitter->setSizes({700, 280});
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->setSpacing(2);
  build_toolbar();
  layout->addWidget(findChild<QToolBar*>());
  layout->addWidget(banner_);
  layout->addWidget(splitter, 1);
  connect(canvas_, &GraphCanvas::node_selected, this, &GraphPanel::on_node_selected);
  connect(context_, &ViewContext::log_changed, this, &GraphPanel::on_log_changed);
  connect(context_, &ViewContext::unit_changed, this, [this] {
    update_banner();
    request();
  });
  connect(context_, &ViewContext::view_changed, this, &GraphPanel::on_view_changed);
  connect(context_, &ViewContext::run_changed, this, &GraphPanel::on_run_changed);
  on_view_changed();
}

void GraphPanel::build_toolbar() {
  auto* bar = new QToolBar(this);
  bar->setObjectName(QStringLiteral("graph_toolbar"));
  level_ = new QComboBox(bar);
  level_->setObjectName(QStringLiteral("graph_level"));
  level_->addItem(tr("ATen graph"), int(GraphLevel::kAten));
  level_->addItem(tr("Dynamo graph"), int(GraphLevel::kDynamo));
  level_->addItem(tr("ATen graph, backward"), int(GraphLevel::kAtenBackward));
  groups_ = new QComboBox(bar);
  groups_->setObjectName(QStringLiteral("graph_groups"));
  groups_->addItem(tr("fxscope groups"), int(GroupSource::kFxscope));
  groups_->addItem(tr("Inductor groups"), int(GroupSource::kInductor));
  mode_ = new QComboBox(bar);
  mode_->setObjectName(QStringLiteral("graph_mode"));
  for (fusion::Mode mode : fusion::kAllModes) {
    mode_->addItem(QString::fromLatin1(fusion::to_string(mode).data(),
                                       qsizetype(fusion::to_string(mode).size())),
                   int(mode));
  }
  colour_ = new QComboBox(bar);
  colour_->setObjectName(QStringLiteral("graph_colour"));
  colour_->addItem(tr("by group"), false);
  colour_->addItem(tr("by time"), true);
  bar->addWidget(new QLabel(tr(" Level "), bar));
  bar->addWidget(level_);
  bar->addWidget(new QLabel(tr(" Groups "), bar));
  bar->addWidget(groups_);
  bar->addWidget(new QLabel(tr(" Mode "), bar));
  bar->addWidget(mode_);
  bar->addWidget(new QLabel(tr(" Colour "), bar));
  bar->addWidget(colour_);
  bar->addSeparator();
  bar->addAction(tr("Fit"), canvas_, &GraphCanvas::fit_to_view);
  search_ = new QLineEdit(bar);
  search_->setObjectName(QStringLiteral("graph_search"));
  search_->setPlaceholderText(tr("Find node or op (Ctrl+F)"));
  search_->setClearButtonEnabled(true);
  search_->setMaximumWidth(260);
  bar->addWidget(search_);
  auto* find = new QAction(tr("Find"), this);
  find->setShortcut(QKeySequence::Find);
  find->setShortcutContext(Qt::WindowShortcut);
  connect(find, &QAction::triggered, search_, [this] {
    search_->setFocus();
    search_->selectAll();
  });
  addAction(find);
  connect(search_, &QLineEdit::returnPressed, this, [this] {
    if (!search(search_->text())) emit status(tr("No node matches \"%1\"").arg(search_->text()));
  });
  connect(level_, &QComboBox::currentIndexChanged, this,
          [this] { context_->set_level(GraphLevel(level_->currentData().toInt())); });
  connect(groups_, &QComboBox::currentIndexChanged, this,
          [this] { context_->set_groups(GroupSource(groups_->currentData().toInt())); });
  connect(mode_, &QComboBox::currentIndexChanged, this,
          [this] { context_->set_mode(fusion::Mode(mode_->currentData().toInt())); });
  connect(colour_, &QComboBox::currentIndexChanged, this, &GraphPanel::update_heat);
}

void GraphPanel::on_log_changed() {
  ++generation_;  // a graph of the previous log is no longer wanted
  pending_ = false;
  comparison_.reset();  // it compared the previous log
  scene_->show_graph(nullptr);
  inspector_->clear();
  source_->clear();
  update_banner();
  update_heat();
}

void GraphPanel::show_row(const QModelIndex& index) {
  if (!context_->log()) return;
  const QVariant unit = index.data(CompileUnitsModel::kUnitRole);
  const QVariant frame = index.data(CompileUnitsModel::kFrameRole);
  if (unit.isValid()) {
    context_->set_unit(unit.value<qulonglong>());
  } else if (frame.isValid()) {
    context_->set_frame(frame.toInt());
  }
}

// The boxes show the context; set from it, they must not set it back.
void GraphPanel::on_view_changed() {
  const auto show = [](QComboBox* box, int value) {
    const QSignalBlocker quiet(box);
    box->setCurrentIndex(box->findData(value));
  };
  show(level_, int(context_->level()));
  show(groups_, int(context_->groups()));
  show(mode_, int(context_->mode()));
  request();
}

void GraphPanel::on_run_changed() {
  if (context_->run()) colour_->setCurrentIndex(colour_->findData(true));  // what to see
  update_heat();
}

void GraphPanel::request() {
  const LoadedLogPtr& log = context_->log();
  const auto& unit = context_->unit();
  if (!log || !unit) return;
  const std::uint64_t generation = ++generation_;
  pending_ = true;
  const CanvasRequest asked = context_->request();
  // A graph planned before is shown at once, but after this call returns, as a planned one is.
  if (CanvasGraphPtr planned = context_->plans()->find(asked)) {
    QMetaObject::invokeMethod(
        this,
        [self = QPointer<GraphPanel>(this), planned = std::move(planned), generation] {
          if (!self || generation != self->generation_) return;
          self->pending_ = false;
          self->on_built(planned);
        },
        Qt::QueuedConnection);
    return;
  }
  emit status(tr("Planning and laying out compile unit %1 ...")
                  .arg(QString::fromStdString(log->summary.units[*unit].compile_id)));
  auto* watcher = new QFutureWatcher<CanvasGraphPtr>(this);
  connect(watcher, &QFutureWatcherBase::finished, this,
          [self = QPointer<GraphPanel>(this), watcher, generation] {
            watcher->deleteLater();
            if (!self || generation != self->generation_) return;
            self->pending_ = false;
            self->on_built(watcher->result());
          });
  watcher->setFuture(QtConcurrent::run(
      [log, plans = context_->plans(), asked] { return plans->get(*log, asked); }));
}

void GraphPanel::on_built(CanvasGraphPtr graph) {
  scene_->show_graph(graph);
  inspector_->clear();
  source_->clear();
  update_heat();
  context_->set_graph(graph);
  canvas_->show_start();
  QString message;
  if (!graph->problem.empty()) {
    message = QString::fromStdString(graph->problem);
  } else {
    const auto& layout = graph->layout;
    message = tr("%1: %2 nodes, %3 kernel groups; planned in %4 ms, laid out with %5 in %6 ms")
                  .arg(QString::fromStdString(graph->where))
                  .arg(graph->graph.size())
                  .arg(graph->groups.size())
                  .arg(graph->plan_ms, 0, 'f', 0)
                  .arg(QString::fromStdString(layout.engine))
                  .arg(layout.milliseconds, 0, 'f', 0);
    // Clusters cannot share nodes, so kernels over the same nodes share one: say how many run.
    if (graph->kernels != graph->groups.size()) {
      message += tr(" (%1 kernels: a kernel whose nodes run in an earlier one is drawn with it)")
                     .arg(graph->kernels);
    }
    if (layout.engine == "layered") {
      message += tr(" (over %1 nodes: fxscope's layered layout, Graphviz dot is too slow)")
                     .arg(kDotNodeLimit);
    }
    for (const auto& note : graph->notes) message += QStringLiteral("; ") + note.c_str();
  }
  emit status(message);
  emit graph_shown();
}

void GraphPanel::on_node_selected(std::size_t id) {
  const CanvasGraphPtr& graph = scene_->graph();
  if (!graph) return;
  std::string details = node_details(*graph, static_cast<graph::NodeId>(id), &heat_);
  if (comparison_) {
    const std::string change =
        node_change_text(*graph, comparison_->diff, static_cast<graph::NodeId>(id));
    if (!change.empty()) details += "\n" + change + "\n";
  }
  inspector_->setPlainText(QString::fromStdString(details));
  source_->setPlainText(
      QString::fromStdString(kernel_source_text(*graph, static_cast<graph::NodeId>(id))));
  emit node_selected(id);
}

bool GraphPanel::search(const QString& text) {
  const auto found = scene_->find(text, scene_->selected_node());
  if (!found) return false;
  canvas_->focus_node(*found);
  return true;
}

int GraphPanel::highlight_nodes(const QStringList& names, const QString& reason) {
  const CanvasGraphPtr& graph = scene_->graph();
  if (!graph) return 0;
  std::vector<graph::NodeId> ids;
  for (const QString& name : names) {
    if (const auto id = graph->graph.find(name.toStdString())) ids.push_back(*id);
  }
  highlight_node_ids(ids, reason);
  return int(ids.size());
}

void GraphPanel::highlight_node_ids(const std::vector<graph::NodeId>& ids, const QString& reason) {
  const auto items = scene_->select_nodes(ids);
  if (items.empty()) {
    emit status(tr("%1: no such node on this graph").arg(reason));
    return;
  }
  QRectF area;
  for (const auto* item : items) area |= item->sceneBoundingRect();
  canvas_->ensureVisible(area, 40, 40);
  if (!canvas_->mapToScene(canvas_->viewport()->rect()).boundingRect().intersects(area)) {
    canvas_->centerOn(area.center());
  }
  emit status(reason);
}

void GraphPanel::set_heat_shown(bool shown) {
  colour_->setCurrentIndex(colour_->findData(shown));
}

bool GraphPanel::heat_shown() const {
  return colour_->currentData().toBool();
}

// Timings are cheap to recompute (one pass over the groups' nodes), so every change simply
// rebuilds them; only the recolouring touches items.
void GraphPanel::update_heat() {
  const CanvasGraphPtr& graph = scene_->graph();
  heat_ = graph ? build_heat_overlay(*graph, context_->run().get()) : HeatOverlay{};
  const bool shown = graph && heat_shown() && !heat_.groups.empty();
  scene_->set_heat(shown ? &heat_ : nullptr);
  if (shown) {
    QString source = QString::fromStdString(heat_.source());
    if (!heat_.mismatch.empty()) source += QStringLiteral(" (%1)").arg(heat_.mismatch.c_str());
    canvas_->legend().set_scale(
        heat_.max_us, source, heat_.mode != nullptr && heat_.measured_groups < heat_.groups.size());
    canvas_->place_legend();
  }
  canvas_->legend().setVisible(shown);
  update_marks();
  if (const auto selected = scene_->selected_node()) on_node_selected(*selected);
}

void GraphPanel::set_comparison(ComparisonPtr comparison) {
  comparison_ = std::move(comparison);
  update_heat();
}

// The marks are one pass over the diff's changes of the shown unit: rebuilt with the timings.
void GraphPanel::update_marks() {
  const CanvasGraphPtr& graph = scene_->graph();
  const bool shown = comparison_ && graph;
  marks_ = shown ? build_graph_marks(*graph, comparison_->diff) : GraphMarks{};
  ChangeLegend& legend = canvas_->change_legend();
  if (shown) {
    scene_->set_marks(&marks_);
    const QString mark = to_text(marks_.unit);
    QStringList only_after;
    for (const auto& item : marks_.only_after) only_after << QString::fromStdString(item);
    legend.set_text(
        QFileInfo(QString::fromStdString(comparison_->diff.b_path)).fileName(),
        tr("unit %1: %2, %3 nodes and %4 groups marked")
            .arg(QString::fromStdString(graph->compile_id), mark.isEmpty() ? tr("unchanged") : mark)
            .arg(marks_.marked_nodes())
            .arg(marks_.marked_groups()),
        only_after);
    canvas_->place_legend();
  }
  legend.setVisible(shown);
}

const CanvasGraphPtr& GraphPanel::shown() const {
  return scene_->graph();
}

QString GraphPanel::banner_text() const {
  return banner_->text();
}

QWidget* GraphPanel::take_inspector() {
  inspector_->setParent(nullptr);
  return inspector_;
}

QWidget* GraphPanel::take_kernel_source() {
  source_->setParent(nullptr);
  source_->show();
  return source_;
}

QString GraphPanel::kernel_source() const {
  return source_->toPlainText();
}

QString GraphPanel::inspector_text() const {
  return inspector_->toPlainText();
}

// Units are shown one at a time, never merged: a frame that broke into several units says so,
// and a unit that ended in a graph break names the break above its graph.
void GraphPanel::update_banner() {
  QStringList lines;
  const LoadedLogPtr& log = context_->log();
  const auto& shown = context_->unit();
  const auto& frame = context_->frame();
  if (log && shown && *shown < log->summary.units.size()) {
    const auto& summary = log->summary;
    const auto& unit = summary.units[*shown];
    if (frame) {
      std::size_t count = 0;
      for (const auto& u : summary.units) count += u.frame_id == *frame ? 1U : 0U;
      if (count > 1) {
        lines << tr("Frame %1 compiled as %2 units; showing %3, select a unit for its own graph.")
                     .arg(*frame)
                     .arg(count)
                     .arg(QString::fromStdString(unit.compile_id));
      }
    }
    for (std::size_t b : unit.graph_breaks) {
      if (b >= summary.graph_breaks.size()) continue;
      const auto& gb = summary.graph_breaks[b];
      lines << tr("Graph break after %1 at %2:%3: %4")
                   .arg(QString::fromStdString(unit.compile_id), QString::fromStdString(gb.file))
                   .arg(gb.line)
                   .arg(QString::fromStdString(gb.reason));
    }
  }
  banner_->setText(lines.join(QLatin1Char('\n')));
  banner_->setVisible(!lines.isEmpty());
}

}  // namespace fxscope::views
